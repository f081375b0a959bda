/// A reference used without retaining it: the one place where the core
/// reads an object through `_withUnsafeGuaranteedRef`.
///
/// That is safe only while something else is known to keep the object
/// alive: the thread is pinned (EpochDomain) and the object was reachable
/// from the registry, a plan or a hook snapshot when it read it; or the
/// call holds it (`ThreadRecord.hold`); or a face's handle owns it for the
/// duration of the function (a C `sb_mediator *` argument); or it lives as
/// long as the thread that alone reads it (Deferral's per-thread state), or
/// as long as the process (Parking's buckets). A `Borrowed`
/// says "this is such a reference"; its `read` is the only access. Swift's
/// own advice is that the underscored method is not public API: keeping it
/// here keeps every use of it reviewable in one file.
@_spi(Faces) public struct Borrowed<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: a borrowed reference crosses threads only inside a held call.
    public let unmanaged: Unmanaged<Object>

    @inline(__always)
    public init(_ unmanaged: Unmanaged<Object>) { self.unmanaged = unmanaged }

    /// The reference stored as bits (an atomic word that owns one reference).
    @inline(__always)
    public init(bits: UInt) {
        unmanaged = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    /// An object the caller keeps alive for as long as it uses this.
    @inline(__always)
    public init(_ object: Object) { unmanaged = Unmanaged.passUnretained(object) }

    public var opaque: UnsafeMutableRawPointer { unmanaged.toOpaque() }

    /// Runs `body` with the object, retaining nothing.
    @inline(__always) @discardableResult
    public func read<R>(_ body: (Object) -> R) -> R {
        unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// `read` for a body that throws a typed error.
    @inline(__always)
    public func read<R, E: Error>(throwing body: (Object) throws(E) -> R) throws(E) -> R {
        var result: Result<R, E>?
        unmanaged._withUnsafeGuaranteedRef { object in
            do throws(E) { result = .success(try body(object)) } catch { result = .failure(error) }
        }
        return try result!.get()
    }
}
