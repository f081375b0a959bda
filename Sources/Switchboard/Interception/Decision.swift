import Synchronization

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
@_spi(Faces) public final class CallParams: Sendable {
    private struct Forms: @unchecked Sendable {
        // @unchecked: `native` is only reached under the mutex, and it is
        // the mediator's own reference.
        var swift: Params?
        var native: OpaquePointer? // one reference, released at deinit
        var bridge: (any ForeignBridge.Type)?
        /// The caller gave a native value (perhaps NULL): `native` is it.
        var nativeGiven = false
    }
    // A lock in place (Guarded): no allocation or pthread set-up per call.
    private let forms: Guarded<Forms>

    init(_ params: Params) { forms = Guarded(Forms(swift: params)) }

    /// Borrows `native` (a caller's params) for as long as this object lives.
    init(borrowing native: OpaquePointer?, bridge: any ForeignBridge.Type) {
        forms = Guarded(Forms(native: native.map { bridge.retain($0) }, bridge: bridge, nativeGiven: true))
    }

    deinit {
        forms.withLock { forms in
            if let native = forms.native, let bridge = forms.bridge { bridge.release(native) }
        }
    }

    /// As Swift values. A native value that is not a dict reads as `[:]`.
    public var params: Params {
        forms.withLock { forms in
            if let swift = forms.swift { return swift }
            let made = (try? forms.bridge!.value(from: forms.native).dict) ?? [:]
            forms.swift = made
            return made
        }
    }

    /// As the face's native value, borrowed for as long as this object lives.
    public func native(_ bridge: any ForeignBridge.Type) throws(SwitchboardError) -> OpaquePointer? {
        try forms.withLock { (forms) throws(SwitchboardError) -> Borrowed in
            if forms.nativeGiven || forms.native != nil { return Borrowed(pointer: forms.native) }
            let made = try bridge.native(from: .dict(forms.swift ?? [:]))
            forms.native = made
            forms.bridge = bridge
            return Borrowed(pointer: made)
        }.pointer
    }

    /// A native value leaving the mutex: this object still owns it.
    private struct Borrowed: @unchecked Sendable { let pointer: OpaquePointer? }
}
