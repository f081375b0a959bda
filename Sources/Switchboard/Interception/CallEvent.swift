/// What an observer is told: a call starts, or it ends.
///
/// Observers run on the calling thread, in registration order, and must not
/// block; they see every call the mediator's entry points take (perform,
/// call, open, prepared routes), nested ones included. An observer that
/// performs is observed too.
public final class CallEvent: @unchecked Sendable {
    // @unchecked: immutable after the end fields are set, before delivery.

    /// Which of a call's two events this is.
    public enum Phase: Sendable {
        /// The call has entered the mediator, before its rules, interceptors
        /// and target: no error, result or duration yet.
        case start
        /// The call has answered: `error` says whether it failed, `duration`
        /// how long it took.
        case end
    }

    /// Whether the call starts or ends; every call that starts also ends.
    public let phase: Phase
    /// The target and action as called, or nil for a URL call that did not
    /// resolve yet (start) or at all (end).
    public let target: String?
    /// The action as called; nil as for `target`.
    public let action: String?
    /// The URL, for calls from URLs.
    public let url: String?
    /// The tags of the call's `CallOptions`.
    public let tags: [String]
    /// Nil when the call succeeded (and at start).
    public let error: SwitchboardError?
    /// Nanoseconds from start to end; 0 at start.
    public let duration: UInt64
    @_spi(Faces) public let carried: CallParams
    @_spi(Faces) public let result: CallResult?

    init(phase: Phase, target: String?, action: String?, url: String?, tags: [String], error: SwitchboardError?,
         duration: UInt64, carried: CallParams, result: CallResult?) {
        self.phase = phase
        self.target = target
        self.action = action
        self.url = url
        self.tags = tags
        self.error = error
        self.duration = duration
        self.carried = carried
        self.result = result
    }

    /// This event with its result in Swift values, for an observer told
    /// after its call has returned (the caller's native result is only
    /// borrowed while the event is delivered; the params are kept).
    func keptForLater() -> CallEvent {
        guard case .native = result else { return self }
        return CallEvent(phase: phase, target: target, action: action, url: url, tags: tags, error: error,
                         duration: duration, carried: carried, result: result?.value.map(CallResult.swift))
    }

    /// The params of the call (at end: as the target got them).
    public var params: Params { carried.params }
    /// The result of a call that succeeded, at end; nil otherwise.
    public var value: Value? { result?.value }
}

/// A call's result in its caller's form, converted on demand; valid while
/// the event is delivered.
@_spi(Faces) public enum CallResult: @unchecked Sendable {
    // @unchecked: a native value is only read while its call is delivering the event.
    case swift(Value)
    /// Borrowed: the caller's `out`.
    case native(OpaquePointer?, any ForeignBridge.Type)

    public var value: Value? {
        switch self {
        case .swift(let value): value
        case .native(let native, let bridge): try? bridge.value(from: native)
        }
    }

    /// As the face's native value: borrowed, or (`owned`) a new reference.
    public func native(_ bridge: any ForeignBridge.Type) -> (value: OpaquePointer?, owned: Bool) {
        switch self {
        case .native(let native, _): (native, false)
        case .swift(let value): ((try? bridge.native(from: value)), true)
        }
    }
}
