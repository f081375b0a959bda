/// An opaque host object carried in params or results.
///
/// The mediator never looks into it. It runs `destroy` once, when the last
/// value holding the pointer is gone (on whichever thread that happens).
/// Two pointers are equal only if they are the same `Pointer` object.
public final class Pointer: @unchecked Sendable {
    // @unchecked: `address` is an immutable bit pattern the mediator never
    // dereferences; what it points to is the host's business.

    /// The raw address, as given (or the object's address, for `init(object:)`).
    public let address: UnsafeMutableRawPointer?
    /// The Swift object, when the pointer was made with `init(object:)`.
    public let object: (any AnyObject & Sendable)?
    private let destroy: (@Sendable (UnsafeMutableRawPointer?) -> Void)?

    /// Carries `address`; `destroy`, if any, runs once with it when the last
    /// value holding the pointer is gone.
    public init(_ address: UnsafeMutableRawPointer?,
                destroy: (@Sendable (UnsafeMutableRawPointer?) -> Void)? = nil) {
        self.address = address
        self.object = nil
        self.destroy = destroy
    }

    /// Carries a Swift object; the pointer keeps it alive.
    public init(object: any AnyObject & Sendable) {
        self.address = Unmanaged.passUnretained(object).toOpaque()
        self.object = object
        self.destroy = nil
    }

    deinit {
        destroy?(address)
    }
}
