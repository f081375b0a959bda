#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// How a call waits for an action that answers later.
///
/// An action defers by taking its call's ``Completion`` (`take`, on the
/// thread running it) and returning "pending" (C: `SB_PENDING`). The face
/// that called it sees the status and waits right there (`settle`), still
/// inside the call: so everything around the action — contracts checking
/// the result, observers timing the call, interceptors, the call depth, what
/// the call holds — works for a deferred action as for any other, and the
/// end event comes at completion with the real duration.
///
/// Nothing here runs unless an action defers: a call that answers at once
/// reads one shared counter (`outstanding`) and no thread-local state.
@_spi(Faces) public enum Deferral {
    /// As a thread exits (`EpochDomain`): completions still taken there
    /// were never returned for.
    static func threadExiting(_ raw: UnsafeMutableRawPointer) {
        let taken = Unmanaged<Taken>.fromOpaque(raw).takeRetainedValue()
        taken.stack.forEach { completion in
            outstanding.subtract(1, ordering: .relaxed)
            OpenCompletions.answered(completion.id)
        }
    }

    /// A completion an action on this thread took (its id in
    /// `OpenCompletions`) at call `level`.
    fileprivate struct TakenID {
        let id: UInt64
        let level: Int
    }

    /// `Taken.stack`: memory this thread alone touches, grown by doubling
    /// (an Array's uniqueness checks cost more than the rest of a push).
    fileprivate struct TakenStack {
        private var base: UnsafeMutablePointer<TakenID>?
        private var count = 0
        private var capacity = 0

        var isEmpty: Bool { count == 0 }
        var last: TakenID? { count == 0 ? nil : base.unsafelyUnwrapped[count &- 1] }

        mutating func append(_ taken: TakenID) {
            if count == capacity { grow() }
            (base.unsafelyUnwrapped + count).initialize(to: taken)
            count &+= 1
        }

        /// Of a stack that is not empty.
        mutating func removeLast() {
            precondition(count > 0, "removeLast of an empty stack of taken completions")
            count &-= 1
        }

        func forEach(_ body: (TakenID) -> Void) {
            for index in 0..<count { body(base.unsafelyUnwrapped[index]) }
        }

        @inline(never)
        private mutating func grow() {
            let bigger = Swift.max(8, capacity * 2)
            let fresh = UnsafeMutablePointer<TakenID>.allocate(capacity: bigger)
            if let base {
                fresh.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            (base, capacity) = (fresh, bigger)
        }

        func deallocate() { base?.deallocate() }
    }

    /// Completions actions on this thread took and have not yet returned
    /// "pending" for, innermost call last: an action that took one may make
    /// calls whose actions take theirs.
    ///
    /// One per thread, reached only by that thread: accesses skip the
    /// dynamic exclusivity checks (about 30 instructions each).
    fileprivate final class Taken {
        @exclusivity(unchecked) var stack = TakenStack()
        /// The call whose caller does not wait (`detaching`), and those it
        /// is nested in.
        @exclusivity(unchecked) var detach = Detach()
        @exclusivity(unchecked) var outerDetaches: [Detach] = []
        /// What the call that returned last with `Pending.entry` kept, for
        /// its caller, which holds it or asks for its object next (nothing
        /// runs on this thread in between): kept out of `detach`, which a
        /// nested call's end restores, and out of `Pending`, which every
        /// call returns.
        @exclusivity(unchecked) var handedKept: (owner: UInt, instance: UInt) = (0, 0)
        /// A delivery runs on this thread now; `queued` run after it.
        @exclusivity(unchecked) var delivering = false
        @exclusivity(unchecked) var queued: [() -> Void] = []

        deinit { stack.deallocate() }
    }

    /// The call on a thread whose caller does not wait (`detaching`): kept
    /// aside whole while a nested one runs.
    fileprivate struct Detach {
        /// Its call level; 0: none.
        var level = 0
        /// That caller's queue, for the completion taken at that level.
        var queuedCaller: QueuedCaller?
        /// The completion that call is pending on, once its action deferred.
        var completion: Completion?
        /// Or the id it is pending on, while it has no object (a caller
        /// that hands its answer to a queue: `OpenCompletions.DetachedCall`),
        /// with what the call kept (one reference each) and its action's
        /// label, for the object a layer may ask for.
        var id: UInt64 = 0
        var kept: (owner: UInt, instance: UInt) = (0, 0)
        var label = ""

        /// No such call: nothing to save around one.
        var isIdle: Bool { level == 0 && queuedCaller == nil && completion == nil && id == 0 }
    }

    /// This thread's, unretained: it lives as long as the thread (released
    /// as the thread exits), and only this thread reaches it. The hot paths
    /// read it borrowed: a retain and a release per use cost more than the
    /// rest of the lookup.
    private static var takenRef: Borrowed<Taken> { takenRef(ThreadRecord.current) }

    /// `takenRef` of a record the caller looked up already (one lookup less).
    @inline(__always)
    private static func takenRef(_ record: ThreadRecord) -> Borrowed<Taken> {
        let word = record.local(.deferral)
        if let raw = word.pointee { return Borrowed(Unmanaged<Taken>.fromOpaque(raw)) }
        let fresh = Unmanaged.passRetained(Taken())
        word.pointee = fresh.toOpaque()
        return Borrowed(fresh)
    }

    private static var taken: Taken { takenRef.unmanaged.takeUnretainedValue() }

    /// Completions taken on any thread and not yet returned for: while there
    /// are none, an action's return checks one word.
    private static let outstanding = Atomic<Int>(0)

    private static var level: Int { ThreadRecord.current.depth.pointee }

    /// Drops the completions taken by calls deeper than `level` (they have
    /// returned) and, with `including`, the one taken at `level`: their
    /// actions answered without "pending", so they are refused from now on.
    private static func drop(deeperThan level: Int, including: Bool, _ taken: Taken) {
        while let last = taken.stack.last, last.level > level || (including && last.level == level) {
            taken.stack.removeLast()
            outstanding.subtract(1, ordering: .relaxed)
            OpenCompletions.answered(last.id)
        }
    }

    /// As a call level ends: what was taken there and never returned
    /// "pending" for (taken by an observer, an interceptor, a discoverer)
    /// is refused from now on, and never handed to a later call.
    @inline(__always)
    static func leaving(_ level: Int) {
        if outstanding.load(ordering: .relaxed) != 0 { dropLeaving(level) }
    }

    @inline(never)
    private static func dropLeaving(_ level: Int) {
        let taken = self.taken
        if !taken.stack.isEmpty { drop(deeperThan: level - 1, including: false, taken) }
    }

    /// After an action returned anything but "pending". The first answer
    /// wins: when the completion it took was completed already (before it
    /// returned), that answer is the call's, and this returns true — the
    /// face then drops what the action returned and gets the answer as if
    /// the action had returned pending (`settle`), so a completer told
    /// "the caller gets it" is never wrong. Otherwise (false) a completion
    /// it took is refused from now on: it answered already.
    @inline(__always)
    public static func returned() -> Bool {
        if outstanding.load(ordering: .relaxed) != 0 { return dropTaken() }
        return false
    }

    @inline(never)
    private static func dropTaken() -> Bool {
        let taken = self.taken
        guard !taken.stack.isEmpty else { return false }
        let level = self.level
        drop(deeperThan: level, including: false, taken)
        guard let last = taken.stack.last, last.level == level else { return false }
        // Answered early, or closed to completers: one step, so that none
        // is told "the caller gets it" between the two.
        if OpenCompletions.answeredEarlyElseClose(last.id) { return true }
        taken.stack.removeLast()
        outstanding.subtract(1, ordering: .relaxed)
        return false
    }

    /// The id (in `OpenCompletions`) of the completion of the call whose
    /// action runs on this thread now; the same one if taken again during
    /// that action. 0 outside any call. No `Completion` object is made
    /// unless the action returns pending with it still open.
    public static func takeID() -> UInt64 {
        // Only while an action runs at this level (its owner is held only
        // from just before it runs until it returns): an observer, an
        // interceptor, a constructor run at the call's level before the
        // action, an observer's end event or a URL call's completion after
        // it, and must not take the completion the action will take (or an
        // id nobody would get).
        let record = ThreadRecord.current
        let level = record.depth.pointee
        guard level > 0, level < ThreadRecord.levels, record.slots(at: level)[0].load(ordering: .relaxed) != 0 else {
            return 0
        }
        return takenRef(record).read { taken in
            if let last = taken.stack.last {
                if last.level > level { drop(deeperThan: level, including: false, taken) }
                if let earlier = taken.stack.last, earlier.level == level { return earlier.id }
            }
            let detached = taken.detach.level == level
            let id = OpenCompletions.open(cancellation: CurrentCall.cancellation(record), callerWaits: !detached,
                                          queuedCaller: detached ? taken.detach.queuedCaller : nil)
            taken.stack.append(TakenID(id: id, level: level))
            outstanding.add(1, ordering: .relaxed)
            return id
        }
    }

    /// A completion for the call running at this thread's current level,
    /// keeping what the call holds now. Nil outside any call.
    private static func make() -> Completion? {
        let record = ThreadRecord.current
        let level = record.depth.pointee
        guard level > 0, level < ThreadRecord.levels else { return nil }
        let slots = record.slots(at: level)
        return Completion(level: level, cancellation: CurrentCall.cancellation, callerWaits: callerWaits(level: level),
                          keeping: (slots[0].load(ordering: .relaxed), slots[1].load(ordering: .relaxed)))
    }

    /// For a step that comes before the action (an interceptor that decides
    /// later, Interception/Steering.swift) of a call whose caller does not
    /// wait: a completion the call is pending on from now on, which that
    /// step completes when the call ends. Nil when the caller waits: the
    /// step waits too.
    static func suspendHere(label: String) -> Completion? {
        let level = self.level
        guard level > 0, level < ThreadRecord.levels, !callerWaits(level: level) else { return nil }
        let completion = Completion(level: level, cancellation: CurrentCall.cancellation, callerWaits: false)
        return detaches(completion, at: level, taken, label: label) ? completion : nil
    }

    /// After an action returned "pending": waits for its completion and
    /// gives the answer as the action would have (0 with `out` set to a new
    /// reference, or a status with the message reported through `bridge`).
    /// `label` names the action in messages.
    public static func settle(out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
                              label: String) -> Int32 {
        out.pointee = nil
        let answer: Completion.Answer
        switch answerOfTaken(label: label) {
        case .success(let given?): answer = given
        case .success(nil): return pendingStatus
        case .failure(let error): return fail(error, bridge)
        }
        switch answer {
        case .native(let native, let face) where ObjectIdentifier(face) == ObjectIdentifier(bridge):
            out.pointee = native
            return 0
        case .native(let native, let face):
            defer { face.release(native) }
            do throws(SwitchboardError) {
                out.pointee = try bridge.native(from: try face.value(from: native))
                return 0
            } catch {
                return fail(error, bridge)
            }
        case .value(let value):
            do throws(SwitchboardError) {
                out.pointee = try bridge.native(from: value)
                return 0
            } catch {
                return fail(error, bridge)
            }
        case .failure(let error):
            return fail(error, bridge)
        }
    }

    private static func fail(_ error: SwitchboardError, _ bridge: any ForeignBridge.Type) -> Int32 {
        bridge.report(error)
        return error.code.rawValue
    }

    /// The answer of the completion the action running here took, once it
    /// comes; a failure when it took none, or the wait ended first; nil
    /// when the call's caller does not wait (`detaching`).
    private static func answerOfTaken(label: String) -> Result<Completion.Answer?, SwitchboardError> {
        let record = ThreadRecord.current
        return takenRef(record).read { answerOfTaken(label: label, record, $0) }
    }

    private static func answerOfTaken(label: String, _ record: ThreadRecord, _ taken: Taken)
        -> Result<Completion.Answer?, SwitchboardError> {
        let level = record.depth.pointee
        if let last = taken.stack.last, last.level > level { drop(deeperThan: level, including: false, taken) }
        // Only an action's call holds what its work goes on using; a
        // callback (or anything else that is not an action) must answer
        // before it returns.
        let slots = record.slots(at: level)
        let owner = slots[0].load(ordering: .relaxed)
        guard owner != 0 else {
            return .failure(.actionFailed("\(label) returned pending, but only actions may answer later", underlying: nil))
        }
        guard let last = taken.stack.last, last.level == level else {
            return .failure(.actionFailed("\(label) returned pending without taking its completion", underlying: nil))
        }
        taken.stack.removeLast()
        outstanding.subtract(1, ordering: .relaxed)
        // A caller that hands the answer to a queue, with no deadline or
        // token to watch: no object unless a layer asks for one, and no step
        // in the table (its entry stays `running` until that caller holds it).
        let owned = (owner: owner, instance: slots[1].load(ordering: .relaxed))
        if taken.detach.queuedCaller != nil && taken.detach.level == level && taken.detach.completion == nil
            && taken.detach.id == 0 && CurrentCall.deadline(record) == .max && CurrentCall.cancellation(record) == nil {
            taken.detach.id = last.id
            // Kept until the answer's callback ran (the call lets go of its own as it returns).
            taken.detach.kept = (Completion.keep(owned.owner), Completion.keep(owned.instance))
            taken.detach.label = label
            // Only this call (as `detaches`).
            taken.detach.level = 0
            return .success(nil)
        }
        switch OpenCompletions.returnedPending(last.id, level: level, keeping: owned) {
        case .answer(let answer)?:
            // Completed before its action returned: a caller that waits has
            // its answer; one that does not gets it through a completed
            // object, as any pending call's (its layers add their work).
            guard taken.detach.level == level, taken.detach.completion == nil, taken.detach.id == 0 else {
                return .success(answer)
            }
            // A caller that hands it to a queue lets go of what the call
            // kept after its callback ran (Completion.complete), as for a
            // later answer; any other lets go as the call returns.
            let completion = if let queuedCaller = taken.detach.queuedCaller {
                Completion(level: level, cancellation: nil, callerWaits: false, keeping: owned, queuedCaller: queuedCaller)
            } else {
                Completion(level: level, cancellation: nil, callerWaits: false)
            }
            completion.complete(answer)
            _ = detaches(completion, at: level, taken, label: label)
            return .success(nil)
        case .open(let completion)?:
            if detaches(completion, at: level, taken, label: label) { return .success(nil) }
            return wait(for: completion, label: label).map { $0 }
        case nil:
            return .failure(.actionFailed("\(label) returned pending, but its completion is no longer open", underlying: nil))
        }
    }

    // MARK: Callers that do not wait

    /// The status a call returns through its layers when its caller does
    /// not wait and its action deferred (C's SB_PENDING).
    public static let pendingStatus: Int32 = 64

    /// What a Swift-convention call returns through its layers in that case.
    public static let pending = SwitchboardError.wouldBlock("the call is pending")

    /// Whether `error` is `pending` (the call deferred and its caller does
    /// not wait), rather than a failure.
    public static func isPending(_ error: SwitchboardError) -> Bool {
        error.code == .wouldBlock && isDetachedHere
    }

    /// Whether a call detached on this thread is pending, while that call
    /// returns through its layers.
    public static var isDetachedHere: Bool {
        guard let raw = ThreadLocal.deferral.value else { return false }
        let taken = Unmanaged<Taken>.fromOpaque(raw).takeUnretainedValue()
        return taken.detach.completion != nil || taken.detach.id != 0
    }

    /// The completion the call detached on this thread is pending on, while
    /// that call returns through its layers: made now if the call had none
    /// (a layer works on its answer: `OpenCompletions.objectOfDetached`).
    public static var detachedHere: Completion? {
        guard let raw = ThreadLocal.deferral.value else { return nil }
        let taken = Unmanaged<Taken>.fromOpaque(raw).takeUnretainedValue()
        return taken.detach.completion ?? objectOfDetached(taken)
    }

    /// The object for the id the detached call is pending on, if any
    /// (adopting what the call kept).
    private static func objectOfDetached(_ taken: Taken) -> Completion? {
        let id = taken.detach.id
        guard id != 0 else { return nil }
        let completion = OpenCompletions.objectOfDetached(.init(id: id, kept: taken.detach.kept),
                                                          queuedCaller: taken.detach.queuedCaller)
        completion.label = taken.detach.label
        taken.detach.completion = completion
        (taken.detach.id, taken.detach.kept) = (0, (0, 0))
        return completion
    }

    /// Runs `body`, a call, so that it does not wait for an action that
    /// answers later: the call returns through its layers at once with
    /// `pendingStatus` (or `pending`), each layer adding what it does with
    /// the answer (`Completion.then`), and this returns the completion, to
    /// which the caller gives its consumer (`Completion.deliver`). Calls
    /// the action makes wait as usual.
    public static func detaching<R>(_ body: () -> R) -> (R, Completion?) {
        let (result, pending, _) = detachingHere(body)
        switch pending {
        case .none: return (result, nil)
        case .object(let completion): return (result, completion)
        case .entry: preconditionFailure("a call without a queue left its completion without an object")
        }
    }

    /// What a call that does not wait is pending on, as it returns.
    public enum Pending {
        /// Nothing: it answered.
        case none
        /// A completion, to give a consumer to (`Completion.deliver`).
        case object(Completion)
        /// The completion of this id, with no object (its caller hands the
        /// answer to a queue): `hold` it, or ask for its object
        /// (`objectOfDetached`), next.
        case entry(UInt64)
    }

    /// `detaching`, also giving this thread's state for `beginDelivery` and
    /// `endDelivery` (one lookup instead of three). With a `queuedCaller`,
    /// the call may be pending on an entry without an object.
    public static func detachingHere<R>(queuedCaller: QueuedCaller? = nil, _ body: () -> R) -> (R, Pending, Here) {
        // The body outside the closures: generic there, it would cost
        // metadata lookups per call.
        let record = ThreadRecord.current
        let ref = takenRef(record)
        // Borrowed: a retain and a release per use cost more than the rest.
        let level = record.depth.pointee
        let nested = ref.read { enterDetaching($0, level: level, queuedCaller) }
        let result = body()
        return (result, ref.read { leaveDetaching($0, nested: nested) }, Here(ref: ref))
    }

    /// `detachingHere` before its body (not generic: one copy for every
    /// caller). Returns whether this call is nested in another one's (rare:
    /// a layer of a detached call making calls of its own), whose state is
    /// kept aside meanwhile.
    private static func enterDetaching(_ taken: Taken, level: Int, _ queuedCaller: QueuedCaller?) -> Bool {
        let nested = !taken.detach.isIdle
        if nested {
            taken.outerDetaches.append(taken.detach)
            taken.detach = Detach()
        }
        taken.detach.level = level + 1
        taken.detach.queuedCaller = queuedCaller
        return nested
    }

    /// `detachingHere` after its body: what the call is pending on.
    private static func leaveDetaching(_ taken: Taken, nested: Bool) -> Pending {
        let pending: Pending
        if let completion = taken.detach.completion.take() {
            pending = .object(completion)
        } else if taken.detach.id != 0 {
            pending = .entry(taken.detach.id)
            taken.handedKept = taken.detach.kept
            (taken.detach.id, taken.detach.kept) = (0, (0, 0))
        } else {
            pending = .none
        }
        if nested {
            taken.detach = taken.outerDetaches.removeLast()
        } else {
            (taken.detach.level, taken.detach.queuedCaller) = (0, nil)
        }
        return pending
    }

    /// A pending call's entry (`Pending.entry`) held by its caller's queue
    /// (`OpenCompletions.hold`), with what the call kept.
    public static func hold(_ id: UInt64, by queuedCaller: QueuedCaller, _ here: Here) {
        OpenCompletions.hold(.init(id: id, kept: handedKept(here)), by: queuedCaller)
    }

    /// The object of a pending call's entry (`Pending.entry`), for a
    /// caller that will not hold it after all.
    public static func objectOfDetached(_ id: UInt64, _ here: Here) -> Completion {
        OpenCompletions.objectOfDetached(.init(id: id, kept: handedKept(here)), queuedCaller: nil)
    }

    private static func handedKept(_ here: Here) -> (owner: UInt, instance: UInt) {
        here.ref.read { taken in
            defer { taken.handedKept = (0, 0) }
            return taken.handedKept
        }
    }

    /// A caller that does not wait and hands its answer to a queue (C: a
    /// call's delivery, switchboard.h "Event loops"). It tells that it ended
    /// the call already, while the action still runs (C: the queue was
    /// freed), so that a completion given then is refused
    /// (`Completion.endedByCaller`) as it would be later, instead of being
    /// told its answer is the caller's and then dropped: `check` returns
    /// nonzero once the caller ended it. Asked only while the completion's
    /// entry is open (under the table's lock), when `context` is alive: the
    /// caller's record of the call (C: the delivery) outlives its action.
    ///
    /// A call it makes that answers later needs no `Completion` unless a
    /// layer works on the answer, or the call has a deadline or a
    /// cancellation token: its completer hands the answer to the queue
    /// directly (`OpenCompletions`, the `queued` phase). `hand` gets
    /// `context`, the answer (a `Completion.Answer` it reads, and whose
    /// native reference it owns from then on), and what the call kept
    /// (object bits, 0 for none: one reference each, to let go once the
    /// caller's callback ran); it returns 1 when the caller gets the answer,
    /// else the caller ended the call first: -1 when it took the references
    /// all the same (its callback, telling of the end, is still to run), 0
    /// when they are the library's again. Plain words, no references: every
    /// such call carries one.
    public struct QueuedCaller: @unchecked Sendable {
        // @unchecked: C functions and the context they are given, read under a lock.
        public let check: @convention(c) (UnsafeMutableRawPointer?) -> CInt
        public let hand: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer, UInt, UInt) -> CInt
        public let context: UnsafeMutableRawPointer?

        public init(check: @convention(c) (UnsafeMutableRawPointer?) -> CInt,
                    hand: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer, UInt, UInt) -> CInt,
                    context: UnsafeMutableRawPointer?) {
            self.check = check
            self.hand = hand
            self.context = context
        }

        var refuses: Bool { check(context) != 0 }

        /// Hands `answer` and what the call kept to the queue: false when
        /// the caller ended the call first (the answer dropped), what the
        /// call kept then let go after the caller's callback ran, or later.
        func hand(_ answer: Completion.Answer, kept: (owner: UInt, instance: UInt)) -> Bool {
            let handed = withUnsafePointer(to: answer) { hand(context, UnsafeRawPointer($0), kept.owner, kept.instance) }
            if handed == 0 { Completion.letGoLater(kept) }
            return handed == 1
        }
    }

    /// This thread's deferral state, for a caller that looked it up already
    /// (on this thread: unretained, as `takenRef`).
    public struct Here {
        fileprivate let ref: Borrowed<Taken>
    }

    /// Whether the caller of the call whose action runs at `level` waits
    /// for it on this thread.
    public static func callerWaits(level: Int) -> Bool {
        guard let raw = ThreadLocal.deferral.value else { return true }
        return Unmanaged<Taken>.fromOpaque(raw).takeUnretainedValue().detach.level != level
    }

    /// This thread's, for `beginDelivery` and `endDelivery` to share.
    static var here: Here { Here(ref: takenRef) }

    /// Runs `delivery` (a caller's callback getting its answer) now, unless
    /// this thread is running one already — a callback that ends another
    /// call, or starts one that ends at once: then right after it, in order.
    /// So callbacks that keep doing that loop instead of recursing until the
    /// stack overflows. Returns whether it ran now.
    @discardableResult
    public static func runDelivery(_ delivery: @escaping () -> Void) -> Bool {
        guard beginDelivery() else {
            taken.queued.append(delivery)
            return false
        }
        delivery()
        endDelivery()
        return true
    }

    /// `runDelivery` in two halves, for a caller that runs its callback
    /// directly when it may (no closure to allocate): true when this thread
    /// runs no delivery now — run it, then call `endDelivery`; false when
    /// it must be queued (`runDelivery`).
    @inline(__always)
    public static func beginDelivery(_ here: Here? = nil) -> Bool {
        (here?.ref ?? takenRef).read { taken in
            if taken.delivering { return false }
            taken.delivering = true
            return true
        }
    }

    /// Runs what was queued meanwhile, in order, then ends the delivery.
    public static func endDelivery(_ here: Here? = nil) {
        (here?.ref ?? takenRef).read { taken in
            if !taken.queued.isEmpty {
                var next = 0
                while next < taken.queued.count {
                    let queued = taken.queued[next]
                    next += 1
                    queued()
                }
                taken.queued.removeAll()
            }
            taken.delivering = false
        }
    }

    /// When the caller of the call at `level` does not wait: records
    /// `completion` as what the call is pending on, with its deadline.
    private static func detaches(_ completion: Completion, at level: Int, _ taken: Taken, label: String) -> Bool {
        guard taken.detach.level == level, taken.detach.completion == nil, taken.detach.id == 0 else { return false }
        completion.label = label
        completion.deadline = CurrentCall.deadline
        taken.detach.completion = completion
        // Only this call: one that a destructor makes at this level while
        // the call unwinds has a caller that waits.
        taken.detach.level = 0
        return true
    }

    /// Waits for `completion` up to the call's deadline, or until the call
    /// is cancelled.
    static func wait(for completion: Completion, label: String) -> Result<Completion.Answer, SwitchboardError> {
        if let answer = completion.wait(until: CurrentCall.deadline) { return .success(answer) }
        let cancelled = completion.isCancelled
        if let answer = completion.abandon(cancelled ? Completion.State.cancelled : Completion.State.timedOut) {
            return .success(answer)
        }
        if cancelled { return .failure(.canceled("the call to \(label) was cancelled while it waited for its answer")) }
        return .failure(.timeout("\(label) did not complete within the call's timeout"))
    }

    /// Runs a Swift `async` action for a synchronous caller: on a task of
    /// its own, the caller waiting for it. From inside a Swift task (a
    /// thread of the cooperative pool, which must never block) it refuses
    /// with `.wouldBlock` before the action starts.
    static func runBlocking(_ body: @escaping @Sendable (AnyObject?, Params) async throws -> Value,
                            on object: AnyObject?, _ params: Params, label: String) -> Result<Value, SwitchboardError> {
        if callerWaits(level: level) && withUnsafeCurrentTask(body: { $0 != nil }) {
            return .failure(.wouldBlock("\(label) is asynchronous and this thread runs a Swift task, which must not "
                                        + "block: await the call (try await mediator.call), or call it from "
                                        + "another thread"))
        }
        guard let completion = make() else {
            return .failure(.actionFailed("\(label) ran outside a call", underlying: nil))
        }
        let detached = detaches(completion, at: completion.level, taken, label: label)
        let instance = UncheckedBox(object)
        // The call's tags, deadline and token, for the action's CallContext.
        let snapshot = CurrentCall.snapshot()
        completion.attach(Task.detached {
            do {
                let value = if let snapshot {
                    try await CurrentCall.$ofTask.withValue(snapshot) { try await body(instance.value, params) }
                } else {
                    try await body(instance.value, params)
                }
                completion.complete(.value(value))
            } catch {
                completion.complete(.failure(.wrapping(error, in: label)))
            }
        })
        if detached { return .failure(pending) }
        return wait(for: completion, label: label).flatMap { $0.takeValue() }
    }
}

/// Carries a target instance's object to the task running its action (the
/// mediator hands it only to that action, which may use it from any thread:
/// `Target` classes are `Sendable`).
private struct UncheckedBox: @unchecked Sendable {
    let value: AnyObject?
    init(_ value: AnyObject?) { self.value = value }
}
