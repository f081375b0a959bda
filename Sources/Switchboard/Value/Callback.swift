/// A callable value carried in params or results.
///
/// A callback made in Swift wraps a closure; one made in C or Lua wraps
/// that face's function. Either kind can be called from any language. Two
/// callbacks are equal only if they are the same object.
public final class Callback: Sendable {
    enum Body: Sendable {
        case swift(@Sendable (Value) throws -> Value)
        case foreign(ForeignFunction)
    }

    let body: Body
    /// The foreign function, borrowed (`body` owns it): faces call through
    /// it without touching its reference count.
    @_spi(Faces) public let borrowedForeign: Unmanaged<ForeignFunction>?

    /// A callback that runs `body` with the caller's argument, on the
    /// caller's thread, from any face; what it throws fails the call with
    /// that error (or `.actionFailed`).
    public init(_ body: @escaping @Sendable (Value) throws -> Value) {
        self.body = .swift(body)
        borrowedForeign = nil
    }

    /// A callback isolated to the main actor (pass `MainActor.shared`): it
    /// runs when called on the main actor; called on another thread, it
    /// fails at once with `.wouldBlock` (waiting there for the main actor
    /// could wait for ever).
    public convenience init(isolation: MainActor, _ body: @escaping @MainActor @Sendable (Value) throws -> Value) {
        self.init { args in
            guard let result = try MainActorCode.onMainActor({ try body(args) }) else {
                throw SwitchboardError.wouldBlock("the callback is isolated to the main actor and was called on "
                                                  + "a thread that does not run it: call it on the main actor")
            }
            return result
        }
    }

    /// A callback implemented by another face (C, Lua).
    @_spi(Faces) public init(foreign: ForeignFunction) {
        self.body = .foreign(foreign)
        borrowedForeign = Unmanaged.passUnretained(foreign)
    }

    /// Calls a foreign callback in its face's own representation (see
    /// ``ForeignFunction/callNative(_:state:out:)``), counted as one more
    /// call in progress like `callAsFunction`; nil for a Swift closure. A
    /// call too deep runs nothing and reports the depth error through `bridge`.
    @_spi(Faces) @inline(__always)
    public func callNative(_ args: OpaquePointer?, out: UnsafeMutablePointer<OpaquePointer?>,
                           bridge: any ForeignBridge.Type) -> Int32? {
        guard let function = borrowedForeign else { return nil }
        let record = CallDepth.pins.enterCall()
        defer { CallDepth.pins.leaveCall(record) }
        if CallDepth.exceeded(record) {
            bridge.report(CallDepth.error(record, call: "callback"))
            return SwitchboardError.Code.rejected.rawValue
        }
        return Borrowed(function).read { $0.callNative(args, state: nil, out: out) }
    }

    /// The foreign implementation, so a face can call its own functions
    /// without converting arguments; nil for Swift closures.
    @_spi(Faces) public var foreign: ForeignFunction? {
        if case .foreign(let f) = body { return f }
        return nil
    }

    /// Calls the callback with `args`. Whatever the callback throws comes back
    /// as a `SwitchboardError` (a `SwitchboardError` passes through as is).
    /// The call counts against ``Mediator/maxCallDepth`` like a perform: a
    /// callback that calls itself without end gets `.rejected`.
    @discardableResult
    public func callAsFunction(_ args: Value = .null) throws(SwitchboardError) -> Value {
        try CallDepth.entering("callback") { () throws(SwitchboardError) -> Value in
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
}

/// A function implemented outside Swift, in another face's own value
/// representation (for C: `sb_fn` with `sb_value`).
///
/// The mediator calls `callNative` when the caller is in the same face, so a
/// C-to-C call converts nothing, and `call` when the caller is Swift.
///
/// A class to subclass, not a protocol: the dispatcher calls it through a
/// borrowed `Unmanaged` reference, which needs a concrete class. Binding an
/// existential would retain and release the function on every call — a
/// write to a reference count that every thread calling the action shares.
@_spi(Faces) open class ForeignFunction: @unchecked Sendable {
    public init() {}

    /// Calls from Swift: converts `args` in and the result out.
    /// `state` is the target instance's state for actions of a target class
    /// (a C plugin's `create()` result); nil otherwise.
    open func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        preconditionFailure("\(type(of: self)) must override call(_:state:)")
    }

    /// Calls in the face's own representation. On success returns 0 and sets
    /// `out` to a new reference; on failure returns a status code and leaves
    /// the message where the face keeps it (`sb_error_message`).
    open func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                         out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
        preconditionFailure("\(type(of: self)) must override callNative(_:state:out:)")
    }
}
