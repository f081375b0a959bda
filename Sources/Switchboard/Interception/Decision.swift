/// What an interceptor decides about a call: exactly one of these.
public enum Decision: Sendable {
    /// Go on to the next interceptor, then the target.
    case proceed
    /// Go on with these params instead.
    case rewrite(Params)
    /// Send the call elsewhere (a redirect): the rules and interceptors run
    /// again for the new destination, at most ``Mediator/maxRedirects`` times.
    /// `params` nil keeps the call's params.
    case redirect(target: String, action: String, params: Params?)
    /// Fail the call with this error; the target is not reached.
    case reject(SwitchboardError)
    /// Answer the call with this value (a mock, a cached answer); the target
    /// is not reached.
    case answer(Value)
}

/// The params of a call, in the form its caller gave them (Swift values, or
/// another face's native value), converted to the other form once, on demand.
/// Interceptors in the caller's own face read them without any conversion.
@_spi(Faces) public final class CallParams: @unchecked Sendable {
    // @unchecked: the lazily made forms are filled under `lock`.
    private let lock = Lock()
    private var swift: Params?
    private var native: OpaquePointer? // one reference, released at deinit
    private var bridge: (any ForeignBridge.Type)?
    /// The caller gave a native value (perhaps NULL): `native` is it.
    private var nativeGiven = false

    init(_ params: Params) { swift = params }

    /// Borrows `native` (a caller's params) for as long as this object lives.
    init(borrowing native: OpaquePointer?, bridge: any ForeignBridge.Type) {
        self.native = native.map { bridge.retain($0) }
        self.bridge = bridge
        nativeGiven = true
    }

    deinit { if let native, let bridge { bridge.release(native) } }

    /// As Swift values. A native value that is not a dict reads as `[:]`.
    public var params: Params {
        lock.withLock {
            if let swift { return swift }
            let made = (try? bridge!.value(from: native).dict) ?? [:]
            swift = made
            return made
        }
    }

    /// As the face's native value, borrowed for as long as this object lives.
    public func native(_ bridge: any ForeignBridge.Type) throws(SwitchboardError) -> OpaquePointer? {
        try lock.withLock { () throws(SwitchboardError) -> OpaquePointer? in
            if nativeGiven || native != nil { return native }
            let made = try bridge.native(from: .dict(swift ?? [:]))
            native = made
            self.bridge = bridge
            return made
        }
    }
}
