/// A callable value carried in params or results.
///
/// A callback made in Swift wraps a closure; one made in C or Lua wraps a
/// ``ForeignFunction``. Either kind can be called from any language. Two
/// callbacks are equal only if they are the same object.
public final class Callback: Sendable {
    enum Body: Sendable {
        case swift(@Sendable (Value) throws -> Value)
        case foreign(any ForeignFunction)
    }

    let body: Body

    public init(_ body: @escaping @Sendable (Value) throws -> Value) {
        self.body = .swift(body)
    }

    /// A callback implemented by another face (C, Lua).
    @_spi(Faces) public init(foreign: any ForeignFunction) {
        self.body = .foreign(foreign)
    }

    /// The foreign implementation, so a face can call its own functions
    /// without converting arguments; nil for Swift closures.
    @_spi(Faces) public var foreign: (any ForeignFunction)? {
        if case .foreign(let f) = body { return f }
        return nil
    }

    /// Calls the callback with `args`. Whatever the callback throws comes back
    /// as a `SwitchboardError` (a `SwitchboardError` passes through as is).
    @discardableResult
    public func callAsFunction(_ args: Value = .null) throws(SwitchboardError) -> Value {
        switch body {
        case .swift(let closure):
            do {
                return try closure(args)
            } catch {
                throw SwitchboardError.wrapping(error, in: "callback")
            }
        case .foreign(let function):
            return try function.call(args, state: nil)
        }
    }
}

/// A function implemented outside Swift, in another face's own value
/// representation (for C: `sb_fn` with `sb_value`).
///
/// The mediator calls `callNative` when the caller is in the same face, so a
/// C-to-C call converts nothing, and `call` when the caller is Swift.
@_spi(Faces) public protocol ForeignFunction: AnyObject, Sendable {
    /// Calls from Swift: converts `args` in and the result out.
    /// `state` is the target instance's state for actions of a target class
    /// (a C plugin's `create()` result); nil otherwise.
    func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value

    /// Calls in the face's own representation. On success returns 0 and sets
    /// `out` to a new reference; on failure returns a status code and leaves
    /// the message where the face keeps it (`sb_last_error`).
    func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                    out: UnsafeMutablePointer<OpaquePointer?>) -> Int32
}
