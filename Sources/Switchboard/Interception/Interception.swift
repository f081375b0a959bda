import Synchronization

/// One call as one interceptor sees it, and the way that interceptor answers.
///
/// The interceptor decides by calling ``complete(_:)`` exactly once, now or
/// later from any thread. The call waits for it up to the interceptor's
/// timeout; then it fails with `.timeout` naming the interceptor. A decision
/// that comes after the timeout, after a cancellation, or a second time is
/// ignored: `complete` returns false and the interceptor's count of ignored
/// decisions (in ``Mediator/routes()``) goes up.
///
/// A call whose caller does not wait (``callerWaits`` false: `await`,
/// `sb_action_perform_async`, a Lua coroutine) does not hold its thread
/// meanwhile: it is pending from the moment the interceptor returns
/// undecided, and the rest of it (later interceptors, the target) runs on
/// the thread that decides, inside `complete`.
public final class Interception: @unchecked Sendable {
    // @unchecked: `decision` is written once, before `state` is published.

    /// The call's target and action as they are now (after earlier
    /// redirects and rules).
    public let target: String
    /// The action, as for `target`.
    public let action: String
    /// The URL the call came from, nil for a local call.
    public let url: String?
    /// Whether the call came from a URL (`url` is not nil).
    public var fromURL: Bool { url != nil }
    /// What the caller attached (``CallOptions/tags``).
    public let tags: [String]
    /// The interceptor this is shown to.
    public let interceptor: String
    @_spi(Faces) public let carried: CallParams
    let cancellation: Cancellation?
    let registration: InterceptorRegistration

    /// For a face whose interceptors hold a handle to this call (C's
    /// `sb_call *`): what the face makes for it on first use (C strings),
    /// so that a call shown to an interceptor that reads nothing makes
    /// nothing.
    @_spi(Faces) public let faceCache = AtomicLazyReference<AnyObject>()

    private let state = Atomic<Int>(State.pending)
    private var decision: Decision = .proceed
    /// The call level it is shown at, on the showing thread.
    private let level: Int
    /// For a caller that does not wait: what takes the call up again once
    /// it is decided or given up (`whenSettled`). 0: nothing (deciding a
    /// call nobody left costs one load); `ran`: taken already; else the
    /// bits of an `Unmanaged<Resumption>` owning one reference.
    private let resumption = Atomic<UInt>(0)
    private static let ran: UInt = 1
    /// Given up by a caller that does not wait, as cancelled (`giveUp`).
    private let droppedAsCancelled = Atomic<Bool>(false)

    private final class Resumption {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    enum State {
        static let pending = 0, decided = 1, abandoned = 2
    }

    init(target: String, action: String, url: String?, tags: [String], carried: CallParams,
         cancellation: Cancellation?, registration: InterceptorRegistration, level: Int) {
        self.level = level
        self.target = target
        self.action = action
        self.url = url
        self.tags = tags
        self.carried = carried
        self.cancellation = cancellation
        self.registration = registration
        interceptor = registration.name
    }

    /// The call's params (converted from the caller's face if needed).
    public var params: Params { carried.params }

    /// Whether the caller has cancelled the call (its token, or a caller
    /// that does not wait giving up as cancelled: its queue freed, its
    /// mediator freed).
    public var isCancelled: Bool { cancellation?.isCancelled ?? false || droppedAsCancelled.load(ordering: .acquiring) }

    /// Whether the call's caller waits on the showing thread for the
    /// decision. Asked by the interceptor's body, on that thread: a face
    /// whose decision can only come from that very thread (a Lua state's
    /// interceptor) fails a caller that waits at once, and lets one that
    /// does not wait go pending.
    public var callerWaits: Bool { Deferral.callerWaits(level: level) }

    /// Decides the call. Returns false, and decides nothing, when the call
    /// was already decided, timed out or was cancelled.
    @discardableResult
    public func complete(_ decision: Decision) -> Bool {
        // Only the thread that wins the exchange below writes `decision`;
        // the caller reads it only after seeing `decided`.
        guard state.load(ordering: .sequentiallyConsistent) == State.pending else { return ignored() }
        let claimed = claim()
        guard claimed else { return ignored() }
        self.decision = decision
        state.store(State.decided, ordering: .sequentiallyConsistent)
        Parking.wake(self)
        // After the store: `whenSettled` sets its resumption, then looks at
        // the state; one of the two sides sees the other's write.
        if resumption.load(ordering: .sequentiallyConsistent) != 0 { resume() }
        return true
    }

    /// `complete(.proceed)` for a face whose interceptor returned without
    /// deciding, called before the interceptor's body returns: no one waits
    /// for the call yet (its caller waits only after the body), so no one is
    /// woken, and the decision already reads `.proceed` (it is written only
    /// by a completer that claimed the call, and none has).
    @_spi(Faces) @discardableResult
    public func proceedWhileShown() -> Bool {
        guard state.compareExchange(expected: State.pending, desired: State.decided,
                                    ordering: .sequentiallyConsistent).exchanged else { return ignored() }
        return true
    }

    /// Whether this call's interceptor has not been heard from, and is no
    /// longer awaited (timed out, cancelled).
    public var isAbandoned: Bool { state.load(ordering: .acquiring) == State.abandoned }

    // The state goes pending -> claimed (a completer is writing) -> decided,
    // or pending -> abandoned (the caller gave up). `claimed` is private.
    private static let claimed = 3

    private func claim() -> Bool {
        state.compareExchange(expected: State.pending, desired: Self.claimed, ordering: .sequentiallyConsistent).exchanged
    }

    private func ignored() -> Bool {
        registration.ignored.add(1, ordering: .relaxed)
        return false
    }

    /// The caller's side: the decision, once there is one.
    var decided: Decision? {
        state.load(ordering: .sequentiallyConsistent) == State.decided ? decision : nil
    }

    /// The caller's side: gives up unless a completer already claimed the
    /// call. Returns the decision if one came first.
    func abandon() -> Decision? {
        let (exchanged, current) = state.compareExchange(expected: State.pending, desired: State.abandoned,
                                                         ordering: .sequentiallyConsistent)
        if exchanged { return nil }
        if current == Self.claimed {
            // A completer is writing its decision: it takes no time.
            _ = Parking.wait(on: self, until: .max) { state.load(ordering: .sequentiallyConsistent) == State.decided }
        }
        return decision
    }

    /// For a caller that does not wait: runs `body` once the call is decided
    /// or given up (`giveUp`), on the thread that does it; at once, here,
    /// if it is already. Set once.
    func whenSettled(_ body: @escaping @Sendable () -> Void) {
        let bits = UInt(bitPattern: Unmanaged.passRetained(Resumption(body)).toOpaque())
        resumption.store(bits, ordering: .sequentiallyConsistent)
        let now = state.load(ordering: .sequentiallyConsistent)
        if now == State.decided || now == State.abandoned { resume() }
    }

    /// For a caller that does not wait: stops waiting for a decision (the
    /// interceptor's timeout, a cancellation, the caller gone: `cancelled`
    /// says so to `isCancelled`) unless a completer claimed the call first,
    /// whose `complete` then takes the call up. Returns whether it gave up.
    @discardableResult
    func giveUp(cancelled: Bool = false) -> Bool {
        guard state.compareExchange(expected: State.pending, desired: State.abandoned,
                                    ordering: .sequentiallyConsistent).exchanged else { return false }
        // Only the side that gave up says why: one that lost to the
        // timeout must not make a late decision's refusal read "cancelled".
        if cancelled { droppedAsCancelled.store(true, ordering: .releasing) }
        resume()
        return true
    }

    /// Runs what `whenSettled` set, once, whichever side gets here first.
    private func resume() {
        let bits = resumption.exchange(Self.ran, ordering: .sequentiallyConsistent)
        guard bits > Self.ran else { return }
        Unmanaged<Resumption>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue().body()
    }

    deinit {
        let bits = resumption.load(ordering: .acquiring)
        if bits > Self.ran { Unmanaged<Resumption>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The caller's side: whether it should stop waiting.
    var settled: Bool {
        let now = state.load(ordering: .sequentiallyConsistent)
        return now == State.decided || isCancelled
    }
}
