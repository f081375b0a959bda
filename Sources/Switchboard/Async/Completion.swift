import Synchronization

/// An action's promise to answer its call later.
///
/// An action that cannot answer before it returns takes its call's
/// completion (``Deferral/takeID()``; C: `sb_completion_take`) and returns
/// "pending"; whoever finishes the work completes it exactly once, from any
/// thread. The caller waits for that, up to the call's deadline
/// (``CallOptions/timeout``) and until it is cancelled. A completion that
/// comes after the caller gave up (timed out, cancelled), after the action
/// answered anyway, or a second time, is refused: `complete` says why.
///
/// While it is open, a completion keeps alive what its call used (the
/// target entry that owns the action, with its userdata, and the target
/// instance), so the work may go on using them after a caller stopped
/// waiting; they are let go when it completes.
@_spi(Faces) public final class Completion: @unchecked Sendable {
    // @unchecked: `answer` is written once, by the thread that claims the
    // state, before it publishes `completed`; the rest is atomic or immutable.

    /// What the action answered.
    @_spi(Faces) public enum Answer: @unchecked Sendable {
        // @unchecked: a native value is owned by the answer until taken.
        case value(Value)
        /// A new native reference of `bridge`'s face.
        case native(OpaquePointer?, any ForeignBridge.Type)
        case failure(SwitchboardError)

        /// The answer as a Swift result; a native value is converted and
        /// released (the answer is used up).
        func takeValue() -> Result<Value, SwitchboardError> {
            switch self {
            case .value(let value): return .success(value)
            case .failure(let error): return .failure(error)
            case .native(let native, let face):
                defer { face.release(native) }
                do throws(SwitchboardError) { return .success(try face.value(from: native)) } catch { return .failure(error) }
            }
        }
    }

    enum State {
        static let pending = 0, claimed = 1, completed = 2
        /// The caller stopped waiting: for these reasons.
        static let timedOut = 3, cancelled = 4, answered = 5
    }

    private let state = Atomic<Int>(State.pending)
    /// A caller parks on it (`wait`, `abandon`): only then does completing
    /// it wake the parking bucket. Set before the parked caller looks at
    /// `state`, read after the completer sets it (both sequentially
    /// consistent): one of the two sees the other's write.
    private let parked = Atomic<Bool>(false)
    private var answer: Answer = .value(.null)
    let cancellation: Cancellation?
    /// The call level of the action that took it, on the taking thread.
    let level: Int
    /// What the call held when its action returned "pending" (the entry
    /// that owns the action, the instance it runs on: object bits, 0 for
    /// none), one strong reference each from its making, so the work may
    /// use them after the caller stopped waiting or the action was
    /// unregistered; let go once (`letGo`), after its delivery.
    private let keptOwner: UInt, keptInstance: UInt
    private let keptLetGo = Atomic<Bool>(false)
    /// Called once if the action answers anyway: the face forgets its handle.
    /// (A function, not a closure over the id: nothing is allocated per call.)
    /// (Accessors of this module, so that a face's use skips the dynamic
    /// exclusivity checks, about 75 instructions each.)
    @_spi(Faces) public var onAnswered: (@Sendable (Completion) -> Void)? {
        get { answeredHandler }
        set { answeredHandler = newValue }
    }
    @exclusivity(unchecked) private var answeredHandler: (@Sendable (Completion) -> Void)?
    /// The face's handle for it (C's id), 0 until it has one; read and
    /// written only under that face's lock.
    @_spi(Faces) public var faceID: UInt64 {
        get { handle }
        set { handle = newValue }
    }
    @exclusivity(unchecked) private var handle: UInt64 = 0
    /// What a face's consumer needs besides the answer (C: the call's
    /// delivery), written before `deliver` and read by the consumer. Kept
    /// here so that the consumer captures only this object, which Swift
    /// then passes as its context instead of allocating one per call.
    @_spi(Faces) public var faceContext: UnsafeMutableRawPointer? {
        get { context }
        set { context = newValue }
    }
    @exclusivity(unchecked) private var context: UnsafeMutableRawPointer?
    /// What `whenGivenUp` set: `Unmanaged<GiveUpHooks>` bits owning one
    /// reference, or 0 (nearly always).
    private let givenUpHooks = Atomic<UInt>(0)
    /// The task running a Swift `async` action, cancelled when the caller
    /// gives up: `Unmanaged<RunningTask>` bits owning one reference, or 0
    /// (every other call). Bits rather than a guarded optional, whose
    /// destruction alone cost every completion's deinit ~100 instructions.
    private let task = Atomic<UInt>(0)
    /// For a caller that does not wait (``Deferral/detaching(_:)``): what
    /// the layers around the action do with the answer, and who gets it.
    private let detached = Guarded<Detached>(Detached())
    /// Until the caller gives its consumer: how it tells that it ended the
    /// call already (`Deferral.QueuedCaller`). Read and cleared only under
    /// `detached`'s mutex, which `deliver` takes to give the consumer:
    /// until then the caller's record of the call is alive.
    @exclusivity(unchecked) private var queuedCaller: Deferral.QueuedCaller?
    /// The action, for messages; set as its call stops waiting.
    var label = ""
    /// When a caller that does not wait gives up (monotonic ns; `.max`: never).
    var deadline: UInt64 = .max

    /// Whether the call's caller waits for it, on the thread that took it
    /// (a completion that only that thread could give would never come).
    public let callerWaits: Bool

    /// `keeping` is what the call holds now (`keptOwner`, `keptInstance`),
    /// retained here: made before anyone else can complete it.
    convenience init(level: Int, cancellation: Cancellation?, callerWaits: Bool,
                     keeping: (owner: UInt, instance: UInt) = (0, 0), queuedCaller: Deferral.QueuedCaller? = nil) {
        self.init(level: level, cancellation: cancellation, callerWaits: callerWaits,
                  adopting: (Self.keep(keeping.owner), Self.keep(keeping.instance)), queuedCaller: queuedCaller)
    }

    /// `adopting` is what the call kept, one reference each, now this
    /// completion's (an entry's that had none, `OpenCompletions`).
    init(level: Int, cancellation: Cancellation?, callerWaits: Bool, adopting kept: (owner: UInt, instance: UInt),
         queuedCaller: Deferral.QueuedCaller?) {
        self.level = level
        self.cancellation = cancellation
        self.callerWaits = callerWaits
        keptOwner = kept.owner
        keptInstance = kept.instance
        self.queuedCaller = queuedCaller
    }

    deinit {
        letGo()
        Self.drop(answer)
        let hooks = givenUpHooks.load(ordering: .acquiring)
        if hooks != 0 { Unmanaged<GiveUpHooks>.fromOpaque(UnsafeRawPointer(bitPattern: hooks)!).release() }
        let running = task.load(ordering: .acquiring)
        if running != 0 { Unmanaged<RunningTask>.fromOpaque(UnsafeRawPointer(bitPattern: running)!).release() }
    }

    /// Whether the caller has cancelled the call.
    public var isCancelled: Bool { cancellation?.isCancelled ?? false }

    /// Whether the work may stop: the caller cancelled the call, or stopped
    /// waiting for it (timed out, cancelled).
    public var isAbandoned: Bool {
        isCancelled || state.load(ordering: .acquiring) >= State.timedOut
    }

    /// Completes the call. Returns nil when the caller gets `answer`, else
    /// why it was refused (`answer` is then dropped): `.timeout` or
    /// `.canceled` when the caller stopped waiting, `.notFound` when
    /// the action answered already or this was completed before (it is no
    /// longer open, as sb_completion_succeed says of such an id).
    @discardableResult
    public func complete(_ answer: Answer) -> SwitchboardError? {
        let (claimed, seen) = state.compareExchange(expected: State.pending, desired: State.claimed,
                                                    ordering: .sequentiallyConsistent)
        guard claimed else {
            Self.drop(answer)
            // Given up earlier, completed now: the action's work is done
            // with what the call kept (the timeout watcher may hold this
            // completion until the call's deadline; what it kept need not).
            if seen == State.timedOut || seen == State.cancelled { letGo() }
            return refusal(seen)
        }
        self.answer = answer
        state.store(State.completed, ordering: .sequentiallyConsistent)
        if parked.load(ordering: .sequentiallyConsistent) { Parking.wake(self) }
        // What the call kept is let go after its delivery: a `done` that
        // enters the library (whose collections let go of what waits) or
        // frees the mediator finds the call's target still kept, so it is
        // never let go inside the completion that ends its call, nor in
        // its `done` (switchboard.h). A delivery queued behind another one
        // running on this thread lets go after it runs.
        let (delivery, endedByItsCaller, consumerWillQueue) = claimDeliveryAskingCaller()
        if let delivery {
            // A consumer that hands the answer on (a C queue) lets go itself,
            // once its caller's callback ran (`letGoAfterDelivery`).
            let ran = delivery.runWhenFree(taken(), then: delivery.consumerQueues ? nil : self)
            // Run here, and its caller had ended the call: the answer was
            // dropped, and the completer hears so (a consumer queued behind
            // another delivery on this thread runs after this returns).
            if ran && consumerRefused { return Self.endedByCaller }
            if !ran || delivery.consumerQueues { return nil }
        }
        // No consumer yet, and the one its caller gives will hand the answer
        // to a queue (C): that face lets go once the call's `done` ran
        // (`letGoAfterDelivery`), or, if it gives none, as it forgets its
        // queue (`forgetQueuedCaller`). Let go now, through the collector,
        // they would go at whatever entry came next: before that `done`, or
        // inside it.
        if consumerWillQueue { return endedByItsCaller ? Self.endedByCaller : nil }
        letGo()
        // No consumer yet, and its caller ended the call already: the one it
        // gives will drop the answer (C: the call's queue was freed).
        return endedByItsCaller ? Self.endedByCaller : nil
    }

    /// For a queued consumer (`deliver(to:queued:)`), once
    /// its caller's callback ran, outside any completion (C: the queue's
    /// dispatch, after `done` returned): lets go of what the call kept, now,
    /// if it completed. A call given up is still the action's to complete:
    /// what it kept goes when that ends it (or when it is freed).
    public func letGoAfterDelivery() {
        guard state.load(ordering: .acquiring) == State.completed,
              claimKept() else { return }
        Self.release(keptOwner)
        Self.release(keptInstance)
    }

    /// What a completer gets when the caller ended the call before its
    /// answer could reach it (C: the call's delivery queue was freed).
    @_spi(Faces) public static let endedByCaller = SwitchboardError.canceled(
        "the call was completed after its caller ended it (its delivery queue was freed)")

    /// Set by a consumer that could not hand the answer on, as it runs
    /// (`consumerRefused`), on the thread running it; read by `complete`
    /// on that thread once the consumer ran there.
    @_spi(Faces) public func refuseAsConsumer() { consumerRefused = true }
    @exclusivity(unchecked) private var consumerRefused = false

    private func refusal(_ state: Int) -> SwitchboardError {
        switch state {
        case State.timedOut: .timeout("the call was completed after its caller stopped waiting (timed out)")
        case State.cancelled: .canceled("the call was completed after its caller cancelled it")
        case State.answered: .notFound("the call was completed, but its action had answered already")
        default: .notFound("the call was completed twice")
        }
    }

    /// Lets go of what the call kept, once, after its delivery. Not here:
    /// the last reference to a target runs the host's destructor, which
    /// must not run inside the completion (it may wait for the completing
    /// thread). The epoch collector releases them on a later entry into
    /// the library (no epoch to wait for: these are references of the
    /// completion's own, `releaseLater`).
    fileprivate func letGo() {
        guard claimKept() else { return }
        EpochDomain.shared.releaseLater(keptOwner, keptInstance)
    }

    /// `letGo` for what a call kept without an object (`OpenCompletions`).
    static func letGoLater(_ kept: (owner: UInt, instance: UInt)) {
        if kept.owner != 0 || kept.instance != 0 { EpochDomain.shared.releaseLater(kept.owner, kept.instance) }
    }

    /// Whether the caller is the one to let go of what the call kept: true
    /// once, if it kept anything.
    private func claimKept() -> Bool {
        (keptOwner != 0 || keptInstance != 0) && !keptLetGo.exchange(true, ordering: .acquiringAndReleasing)
    }

    static func drop(_ answer: Answer) {
        if case .native(let native, let bridge) = answer { bridge.release(native) }
    }

    // MARK: The caller's side

    /// Waits until the call is completed, cancelled, or `deadline`
    /// (monotonic nanoseconds) passes. Returns the answer, or nil having
    /// given up (`givenUp` then says why).
    func wait(until deadline: UInt64) -> Answer? {
        // Completed before its action returned (often): no need to park.
        if state.load(ordering: .sequentiallyConsistent) == State.completed { return taken() }
        parked.store(true, ordering: .sequentiallyConsistent)
        _ = Parking.wait(on: self, until: deadline) { settled }
        return state.load(ordering: .sequentiallyConsistent) == State.completed ? taken() : nil
    }

    /// Stops waiting for `reason` (`State.timedOut`, `.cancelled`,
    /// `.answered`), unless a completer claimed the call first: then its
    /// answer, once written.
    func abandon(_ reason: Int) -> Answer? {
        let (exchanged, current) = state.compareExchange(expected: State.pending, desired: reason,
                                                         ordering: .sequentiallyConsistent)
        if exchanged {
            cancelTask()
            if reason == State.answered { onAnswered?(self) }
            return nil
        }
        guard current == State.claimed || current == State.completed else { return nil }
        // A completer is writing its answer: it takes no time.
        parked.store(true, ordering: .sequentiallyConsistent)
        _ = Parking.wait(on: self, until: .max) { state.load(ordering: .sequentiallyConsistent) == State.completed }
        return taken()
    }

    /// The action answered without "pending" (or the call ended first):
    /// refused from now on; an answer it was given is dropped.
    func answered() {
        if let answer = abandon(State.answered) { Self.drop(answer) }
    }

    /// Runs a Swift task for the action (once); cancelled if the caller gives up.
    func attach(_ running: Task<Void, Never>) {
        let bits = UInt(bitPattern: Unmanaged.passRetained(RunningTask(running)).toOpaque())
        let (stored, _) = task.compareExchange(expected: 0, desired: bits, ordering: .sequentiallyConsistent)
        precondition(stored, "a completion runs one task")
        // After the store: a caller giving up changes the state, then looks
        // for the task; one of the two sides sees the other's write.
        if state.load(ordering: .sequentiallyConsistent) >= State.timedOut { running.cancel() }
    }

    private func cancelTask() {
        let bits = task.load(ordering: .sequentiallyConsistent)
        if bits != 0 {
            Unmanaged<RunningTask>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue().task.cancel()
        }
    }

    private final class RunningTask: Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
    }

    // MARK: A caller that does not wait

    /// What happens to the answer of a call whose caller did not wait: each
    /// layer the call returned through while pending added what it does with
    /// an answer (`finishers`, innermost first: a contract's result check,
    /// the observers' end event); `consumer` is the caller's. Runs once, on
    /// the thread that ends the call.
    struct Detached: @unchecked Sendable {
        // @unchecked: built by the calling thread as its call returns, then
        // run once by the thread that claims the delivery, under the mutex.
        var finishers: [(Answer) -> Answer] = []
        var consumer: ((Answer) -> Void)?
        /// The consumer hands the answer to a queue (`deliver(to:queued:)`).
        var consumerQueues = false
        var delivered = false
        /// The completer looked for a consumer (`claimDeliveryAskingCaller`):
        /// until then, one given to a completed call is left to it, so that
        /// what it tells its completer is what the consumer made of it.
        var completerLooked = false

        /// Runs now unless this thread runs a delivery already, then after
        /// it (`Deferral.runDelivery`); a queued one lets go of what
        /// `completion` kept once it ran. Returns whether it ran now.
        @discardableResult
        func runWhenFree(_ answer: Answer, then completion: Completion? = nil) -> Bool {
            // A consumer that only hands the answer to a queue runs no host
            // code: at once, even inside another delivery on this thread.
            if consumerQueues && finishers.isEmpty {
                run(answer)
                return true
            }
            // Directly when it may: a closure for `runDelivery` would be an
            // allocation and a copy of this delivery per answer.
            let here = Deferral.here
            guard Deferral.beginDelivery(here) else {
                return Deferral.runDelivery {
                    run(answer)
                    completion?.letGo()
                }
            }
            run(answer)
            Deferral.endDelivery(here)
            return true
        }

        func run(_ answer: Answer) {
            var answer = answer
            for finish in finishers { answer = finish(answer) }
            consumer?(answer)
            // What the layers' work holds (a mediator, its hooks) may be the
            // last reference to a freed mediator, whose release runs user
            // destructors: not on this stack, which may be a plugin's
            // completing the call. The epoch collector lets go of it later.
            if !finishers.isEmpty {
                EpochDomain.shared.releaseLater(Unmanaged<AnyObject>.passRetained(Leftovers(finishers)))
            }
        }
    }

    /// A delivery's finishers, released by the epoch collector.
    private final class Leftovers {
        let finishers: [(Answer) -> Answer]
        init(_ finishers: [(Answer) -> Answer]) { self.finishers = finishers }
    }

    /// What checks an answer against a declared result `type`, converting
    /// it as `ParamType.result` does; `wrong` makes the error for an answer
    /// of kind `got`.
    static func resultCheck(_ type: ParamType, wrong: @escaping (_ got: String) -> SwitchboardError)
        -> (Answer) -> Answer {
        return { answer in
            if case .failure = answer { return answer }
            switch answer.takeValue() {
            case .failure(let error): return .failure(error)
            case .success(let value):
                guard let fitted = type.result(value) else { return .failure(wrong("\(value.kind)")) }
                return .value(fitted)
            }
        }
    }

    /// Adds what a layer the pending call returns through does with its
    /// answer, before the caller gets it.
    func then(_ finisher: @escaping (Answer) -> Answer) {
        detached.withLock { detached in
            detached.finishers.append(finisher)
        }
    }

    /// Gives the answer to `consumer` when it comes: at once, on this thread,
    /// if it came already; else on the thread that completes the call,
    /// cancels it (`Cancellation.cancel`), or the watch thread at its
    /// deadline (`DetachedWatch`). Deliveries never nest on a thread (see
    /// `Deferral.runDelivery`). Returns whether it ran here, before returning.
    /// A `queued` consumer only hands the answer to a queue (C's delivery
    /// queues) and runs no host code: it runs at once even inside another
    /// delivery on the thread, and its face lets go of what the call kept
    /// (`letGoAfterDelivery`) once the callback it hands the answer to ran;
    /// the completer then does not.
    @discardableResult
    public func deliver(to consumer: @escaping (Answer) -> Void, queued: Bool = false) -> Bool {
        let ready = detached.withLock { detached -> Detached? in
            guard !detached.delivered else { return nil }
            detached.consumer = consumer
            detached.consumerQueues = queued
            queuedCaller = nil // from here on the consumer tells
            // Completed, and its completer found no consumer: the answer
            // waits for this one. A completer still on its way to look (it
            // writes the state, then takes this lock) runs it itself.
            guard detached.completerLooked, state.load(ordering: .sequentiallyConsistent) == State.completed else {
                return nil
            }
            return claim(&detached)
        }
        leaveToken(after: ready)
        if let ready { return ready.runWhenFree(taken()) }
        // Given up before it had a consumer (C: its queue freed while the
        // action ran): the failure now, or nothing would ever claim it, and
        // the consumer, which holds this completion, would keep it forever.
        let now = state.load(ordering: .sequentiallyConsistent)
        if now == State.timedOut || now == State.cancelled { return deliverGivenUp(now) }
        if let cancellation, !cancellation.watch(self) { return giveUp(State.cancelled) }
        if deadline != .max, deadline <= Clock.now { return giveUp(State.timedOut) }
        if deadline != .max, let failure = DetachedWatch.shared.watch(self) {
            return giveUp(State.cancelled, because: failure)
        }
        return false
    }

    /// The delivery to run, once: after the answer came, or after the
    /// caller gave up. What it holds (the layers' work, which may hold a
    /// mediator's hooks) leaves with it.
    /// `claimDelivery` for a completer: with no consumer yet, whether the
    /// caller ended the call already (its queue asked, under the mutex).
    @inline(__always)
    private func claimDeliveryAskingCaller() -> (Detached?, endedByItsCaller: Bool, consumerWillQueue: Bool) {
        let claimed = detached.withLock { detached -> (Detached?, Bool, Bool) in
            detached.completerLooked = true
            guard detached.consumer != nil, !detached.delivered else {
                let waiting = !detached.delivered && queuedCaller != nil
                return (nil, waiting && queuedCaller?.refuses == true, waiting)
            }
            return (claim(&detached), false, false)
        }
        leaveToken(after: claimed.0)
        return claimed
    }

    /// The caller will not give a consumer and ends the call itself (C: a
    /// layer answered a pending call): its record of the call goes, so its
    /// queue must not be asked any more.
    @_spi(Faces) public func forgetQueuedCaller() {
        detached.withLock { _ in queuedCaller = nil }
        // Completed already, what the call kept waited for a queued
        // consumer that will not come (`complete`).
        if state.load(ordering: .acquiring) == State.completed { letGo() }
    }

    @inline(__always)
    private func claimDelivery() -> Detached? {
        let claimed = detached.withLock { detached -> Detached? in
            guard detached.consumer != nil, !detached.delivered else { return nil }
            return claim(&detached)
        }
        leaveToken(after: claimed)
        return claimed
    }

    private func claim(_ detached: inout Detached) -> Detached {
        // Moved out, not copied: no references counted.
        var current = Detached(delivered: true)
        swap(&current, &detached)
        return current
    }

    /// After a claim, outside the mutex: the token holds the calls watched
    /// on it, and each call its token, so a call that ended leaves the
    /// token's list, or the two would keep each other alive once the caller
    /// frees the token. Never under the mutex: the token's own lock is held
    /// while it reads its calls' (`Cancellation.watch` drops the delivered
    /// ones), and the two orders together deadlocked a host whose many
    /// calls on one token timed out while it made more.
    @inline(__always)
    private func leaveToken(after claimed: Detached?) {
        if claimed != nil, let cancellation { cancellation.forget(self) }
    }

    /// Refuses the call from now on, its answer going to nobody (a caller
    /// that does not wait and took an answer otherwise).
    public func giveUp() { giveUp(State.cancelled) }

    /// For a caller that does not wait: tells `hook` the reason
    /// (`State.timedOut`, `.cancelled`) if the caller gives up before the
    /// call is completed; at once if it has. A call pending on something
    /// other than its action (an interceptor's decision, Steering.swift)
    /// lets that know.
    func whenGivenUp(_ hook: @escaping @Sendable (Int) -> Void) {
        var bits = givenUpHooks.load(ordering: .sequentiallyConsistent)
        if bits == 0 {
            let made = UInt(bitPattern: Unmanaged.passRetained(GiveUpHooks()).toOpaque())
            let (stored, current) = givenUpHooks.compareExchange(expected: 0, desired: made,
                                                                 ordering: .sequentiallyConsistent)
            if stored {
                bits = made
            } else {
                Unmanaged<GiveUpHooks>.fromOpaque(UnsafeRawPointer(bitPattern: made)!).release()
                bits = current
            }
        }
        // After the store: `giveUp` changes the state, then looks for hooks;
        // one of the two sides sees the other's write.
        let reason = Unmanaged<GiveUpHooks>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            .list.withLock { list -> Int? in
                let now = state.load(ordering: .sequentiallyConsistent)
                if now == State.timedOut || now == State.cancelled { return now }
                list.append(hook)
                return nil
            }
        if let reason { hook(reason) }
    }

    /// `whenGivenUp`'s hooks, apart from `Detached`, which every pending
    /// call copies several times (a field there cost c.loop 250
    /// instructions a call).
    private final class GiveUpHooks: Sendable {
        let list = Guarded<[@Sendable (Int) -> Void]>([])
    }

    /// Whether a caller that does not wait has its answer, or gave up.
    var isDelivered: Bool { detached.withLock { $0.delivered } }

    /// For a caller that does not wait: gives up (`State.timedOut` or
    /// `.cancelled`) unless a completer claimed the call first (which then
    /// delivers), and gives the consumer the failure (`because`, or the
    /// reason's). Returns whether that ran here.
    @discardableResult
    func giveUp(_ reason: Int, because failure: SwitchboardError? = nil) -> Bool {
        let (exchanged, _) = state.compareExchange(expected: State.pending, desired: reason,
                                                   ordering: .sequentiallyConsistent)
        guard exchanged else { return false }
        cancelTask()
        let hooks = givenUpHooks.load(ordering: .sequentiallyConsistent)
        if hooks != 0 {
            let told = Unmanaged<GiveUpHooks>.fromOpaque(UnsafeRawPointer(bitPattern: hooks)!).takeUnretainedValue()
                .list.withLock { list -> [@Sendable (Int) -> Void] in
                    defer { list = [] }
                    return list
                }
            for tell in told { tell(reason) }
        }
        return deliverGivenUp(reason, because: failure)
    }

    /// The consumer's failure for a call given up for `reason` (`because`,
    /// or the reason's), unless its delivery was claimed already. Returns
    /// whether it ran here.
    private func deliverGivenUp(_ reason: Int, because failure: SwitchboardError? = nil) -> Bool {
        guard let delivery = claimDelivery() else { return false }
        let failure: SwitchboardError = failure ?? (reason == State.cancelled
            ? .canceled("the call to \(label) was cancelled while it waited for its answer")
            : .timeout("\(label) did not complete within the call's timeout"))
        return delivery.runWhenFree(.failure(failure))
    }

    private var settled: Bool {
        state.load(ordering: .sequentiallyConsistent) == State.completed || isCancelled
    }

    /// The answer, moved out (a native reference is the caller's now).
    private func taken() -> Answer {
        let given = answer
        answer = .value(.null)
        return given
    }

    /// One more reference to the object of `bits` (0: none), for a call's
    /// work to keep.
    static func keep(_ bits: UInt) -> UInt {
        if let object = UnsafeRawPointer(bitPattern: bits) { _ = Unmanaged<AnyObject>.fromOpaque(object).retain() }
        return bits
    }

    private static func release(_ bits: UInt) {
        if let object = UnsafeRawPointer(bitPattern: bits) { Unmanaged<AnyObject>.fromOpaque(object).release() }
    }
}
