
/// The completions faces hold by id (C's `sb_completion`, and Lua's through
/// C) rather than by pointer, so that a second or stale completion is
/// refused instead of touching freed memory. Ids count up from 1 and are
/// never reused; 0 is never open.
///
/// Most completions are completed while their action still runs (work that
/// turned out to be quick): such a completion never needs a `Completion`
/// object. Its id's entry holds what the action's thread knew when it took
/// it, then the answer, until the action returns pending and its call takes
/// the answer (`returnedPending`). Nor does a call whose caller hands the
/// answer to a queue (`Deferral.QueuedCaller`, C's delivery queues), with
/// no deadline, token or layer working on the answer: its entry stays
/// `running` while the call returns through its layers (`DetachedCall`),
/// then that caller holds it (`queued`), and its completer hands the answer
/// over. The object is made for any other completion
/// still open when its action returns — a caller then waits for it, gives
/// it a consumer or a deadline, and completers find it here. Every change
/// of an entry happens under the one lock, so a completer racing the
/// action's return either leaves its answer in the entry, or finds the
/// object or the queue.
@_spi(Faces) public enum OpenCompletions {
    /// What an id's entry holds.
    enum Phase: UInt8 {
        /// Taken by an action that still runs, or whose call returned pending
        /// to a caller that hands the answer to a queue and has not yet held
        /// the entry (`DetachedCall`); nobody completed it yet
        /// (`cancellation` and `callerWaits` are what its thread knew).
        case running
        /// Completed while `running`: `answer`, for the call. The id is no
        /// longer open.
        case early
        /// Still open when its action returned pending: `completion`.
        case object
        /// Held by its caller's queue: a completer hands it the answer and
        /// `kept` (`QueuedCaller.hand`).
        case queued
    }

    /// One id's entry. Plain fields rather than an enum with payloads: the
    /// hot path writes and reads them in place, without copying entries.
    struct Entry {
        var id: UInt64 = 0
        var phase = Phase.running
        var callerWaits = false
        var cancellation: Cancellation?
        /// What its caller ended already, while its action runs (a C queue
        /// freed: `Deferral.QueuedCaller`).
        var queuedCaller: Deferral.QueuedCaller?
        var answer: Completion.Answer?
        var completion: Completion?
        /// What the call held (`Completion`'s `keptOwner`, `keptInstance`),
        /// one reference each, once `queued`; moved out by whoever ends the
        /// entry (`remove` leaves them alone).
        var keptOwner: UInt = 0
        var keptInstance: UInt = 0
    }

    /// Entries by id. An id's slot (the id modulo the slot count) is nearly
    /// always free for it: no hashing and no allocation per completion. One
    /// taken while its slot holds an older entry (many open at once) goes to
    /// `overflow`.
    struct Table {
        private static let slotCount = 64
        var next: UInt64 = 1
        /// Id 0 (never given) marks a free slot. Allocated once, for the
        /// process's life.
        private let slots: UnsafeMutablePointer<Entry> = {
            let slots = UnsafeMutablePointer<Entry>.allocate(capacity: slotCount)
            slots.initialize(repeating: Entry(), count: slotCount)
            return slots
        }()
        private var overflow: [UInt64: Entry] = [:]

        private static func slot(_ id: UInt64) -> Int { Int(id % UInt64(slotCount)) }

        /// Adds a running entry. A free slot's other fields are nil already
        /// (`remove`): only these are written.
        mutating func insertRunning(_ id: UInt64, cancellation: Cancellation?, callerWaits: Bool,
                                    queuedCaller: Deferral.QueuedCaller?) {
            let slot = slots + Self.slot(id)
            if slot.pointee.id == 0 {
                slot.pointee.id = id
                slot.pointee.phase = .running
                slot.pointee.callerWaits = callerWaits
                if let cancellation { slot.pointee.cancellation = cancellation }
                if let queuedCaller { slot.pointee.queuedCaller = queuedCaller }
            } else {
                overflow[id] = Entry(id: id, phase: .running, callerWaits: callerWaits, cancellation: cancellation,
                                     queuedCaller: queuedCaller)
            }
        }

        /// Runs `body` on the entry of `id`, in place; nil when there is none.
        @inline(__always)
        mutating func with<R>(_ id: UInt64, _ body: (inout Entry) -> R) -> R? {
            guard id != 0 else { return nil }
            let slot = slots + Self.slot(id)
            if slot.pointee.id == id { return body(&slot.pointee) }
            guard !overflow.isEmpty, overflow[id] != nil else { return nil }
            return body(&overflow[id]!)
        }

        /// Removes the entry of `id` (after `with` found it).
        mutating func remove(_ id: UInt64) {
            let slot = slots + Self.slot(id)
            if slot.pointee.id == id {
                // Field by field, leaving a free slot's fields nil.
                slot.pointee.id = 0
                if slot.pointee.cancellation != nil { slot.pointee.cancellation = nil }
                if slot.pointee.queuedCaller != nil { slot.pointee.queuedCaller = nil }
                if slot.pointee.answer != nil { slot.pointee.answer = nil }
                if slot.pointee.completion != nil { slot.pointee.completion = nil }
                slot.pointee.keptOwner = 0
                slot.pointee.keptInstance = 0
            } else {
                overflow[id] = nil
            }
        }
    }

    /// Every change of an entry happens under this one lock.
    private static let entries = MadeOnce<QuickLocked<Table>>()

    @inline(__always)
    private static func withTable<R>(_ body: (inout Table) -> R) -> R {
        entries.get { QuickLocked(Table()) }.read { $0.withLock(body) }
    }

    /// A new id for the action running on this thread (`Deferral.takeID`).
    @inline(__always)
    static func open(cancellation: Cancellation?, callerWaits: Bool, queuedCaller: Deferral.QueuedCaller?) -> UInt64 {
        withTable { table in
            let id = table.next
            table.next += 1
            table.insertRunning(id, cancellation: cancellation, callerWaits: callerWaits, queuedCaller: queuedCaller)
            return id
        }
    }

    /// What completing an id did.
    public enum Outcome {
        /// The call gets the answer.
        case given
        /// No completion with that id is open (completed before, or never
        /// taken, or its action answered anyway); the answer was not made.
        case notOpen
        /// The call was open but refused it (`Completion.complete`); the
        /// answer was dropped.
        case refused(SwitchboardError)
    }

    /// Completes the call of `id` with `answer()`, from any thread; the
    /// answer is made only for an open id.
    public static func complete(_ id: UInt64, _ answer: () -> Completion.Answer) -> Outcome {
        withoutActuallyEscaping(answer) { complete(id, .later($0)) }
    }

    /// `complete` with an answer made already (dropped if `id` is not open).
    public static func complete(_ id: UInt64, _ answer: Completion.Answer) -> Outcome {
        let outcome = complete(id, UncheckedAnswer.made(answer))
        if case .notOpen = outcome { Completion.drop(answer) }
        return outcome
    }

    /// `complete`, with the completer's answer made (once) by its thread.
    @inline(__always)
    private static func complete(_ id: UInt64, _ answer: UncheckedAnswer) -> Outcome {
        // Moved out of the lock: `Completion.complete` runs the delivery.
        let found = withTable { table -> Found in
            let found = table.with(id) { entry -> Found in
                switch entry.phase {
                case .running:
                    // Asked under the lock: while the entry is open, what the
                    // caller's queue reads is alive (Deferral.QueuedCaller).
                    if let queuedCaller = entry.queuedCaller, queuedCaller.refuses {
                        // The refusal stays in the entry, for the call: its
                        // caller's queue still waits for the call's end
                        // (`hold` ends it), and lets go of what the call
                        // kept only after the `done` telling of that end.
                        entry.answer = .failure(Completion.endedByCaller)
                        entry.phase = .early
                        entry.queuedCaller = nil
                        if entry.cancellation != nil { entry.cancellation = nil }
                        return .refusedForCaller
                    }
                    entry.answer = answer.make()
                    entry.phase = .early
                    if entry.cancellation != nil { entry.cancellation = nil }
                    if entry.queuedCaller != nil { entry.queuedCaller = nil }
                    return .answered
                case .queued: return .queued(entry.queuedCaller!, (entry.keptOwner, entry.keptInstance))
                case .object: return entry.completion.map(Found.object) ?? .notOpen
                case .early: return .notOpen
                }
            } ?? .notOpen
            switch found {
            case .object, .queued: table.remove(id) // closed: the call will find it gone
            case .notOpen, .answered, .refusedForCaller: break
            }
            return found
        }
        switch found {
        case .notOpen:
            return .notOpen
        case .refusedForCaller:
            Completion.drop(answer.make())
            return .refused(Completion.endedByCaller)
        case .answered:
            return .given
        case .queued(let queuedCaller, let kept):
            return handOver(answer.make(), to: queuedCaller, kept: kept)
        case .object(let completion):
            guard let refusal = completion.complete(answer.make()) else { return .given }
            return .refused(refusal)
        }
    }

    /// Outside the lock (the queue takes its own): hands a queued call's
    /// answer to its caller's queue.
    @inline(never)
    private static func handOver(_ answer: Completion.Answer, to queuedCaller: Deferral.QueuedCaller,
                                 kept: (owner: UInt, instance: UInt)) -> Outcome {
        queuedCaller.hand(answer, kept: kept) ? .given : .refused(Completion.endedByCaller)
    }

    /// What completing found under the lock.
    private enum Found {
        case notOpen
        /// The answer is in the entry now.
        case answered
        /// Its caller ended the call already while its entry was open:
        /// refused (`Completion.endedByCaller`), the answer (made outside
        /// the lock) dropped, the id closed; the entry keeps the refusal
        /// for the call (its return, then `hold`, end its caller's record).
        case refusedForCaller
        /// The object to complete, out of the table.
        case object(Completion)
        /// The caller's queue to hand the answer to, with what the call
        /// kept, out of the table.
        case queued(Deferral.QueuedCaller, (owner: UInt, instance: UInt))
    }

    /// Whether the work of open `id` may stop (`Completion.isAbandoned`);
    /// false for an id that is not open.
    public static func isAbandoned(_ id: UInt64) -> Bool {
        let found = withTable { table in
            table.with(id) { entry -> (refused: Bool, Cancellation?, Completion?)? in
                switch entry.phase {
                case .running, .queued: (entry.queuedCaller?.refuses == true, entry.cancellation, nil)
                case .object: (false, nil, entry.completion)
                case .early: nil
                }
            } ?? nil
        }
        guard let (refused, cancellation, completion) = found else { return false }
        if refused { return true }
        if let completion { return completion.isAbandoned }
        return cancellation?.isCancelled ?? false
    }

    /// As an action of open `id` returns without "pending": true when `id`
    /// was completed while the action still ran (the answer waits in its
    /// entry for the call); else `id` is answered (`answered`) in the same
    /// hold of the lock, so that no completer is told "given" after the
    /// answer was looked for (which left it to be dropped).
    static func answeredEarlyElseClose(_ id: UInt64) -> Bool {
        let (early, removed) = withTable { table -> (Bool, Entry?) in
            guard let entry = table.with(id, { $0 }) else { return (false, nil) }
            if entry.phase == .early { return (true, nil) }
            table.remove(id)
            return (false, entry)
        }
        if let removed { closed(removed) }
        return early
    }

    /// Whether the caller of open `id` waits for it on the thread that took
    /// it (`Completion.callerWaits`); false for an id that is not open.
    public static func callerWaits(_ id: UInt64) -> Bool {
        withTable { table in
            table.with(id) { entry -> Bool in
                switch entry.phase {
                case .running: entry.callerWaits
                case .object: entry.completion?.callerWaits ?? false
                case .early, .queued: false
                }
            } ?? false
        }
    }

    /// The action of `id` answered without "pending" (or its call level
    /// ended): refused from now on; an answer it was given is dropped.
    static func answered(_ id: UInt64) {
        let removed = withTable { table -> Entry? in
            guard let entry = table.with(id, { $0 }) else { return nil }
            table.remove(id)
            return entry
        }
        if let removed { closed(removed) }
    }

    /// An entry removed as its action answered without "pending": refused
    /// from now on, what it held let go.
    private static func closed(_ removed: Entry) {
        if let answer = removed.answer { Completion.drop(answer) }
        removed.completion?.answered()
        Completion.letGoLater((removed.keptOwner, removed.keptInstance))
    }

    /// Makes a completer's answer (called once, by the completer's thread).
    private enum UncheckedAnswer: @unchecked Sendable {
        case made(Completion.Answer)
        case later(() -> Completion.Answer)

        func make() -> Completion.Answer {
            switch self {
            case .made(let answer): answer
            case .later(let make): make()
            }
        }
    }

    /// What the call of `id` gets as its action returns pending.
    enum Pending {
        /// It was completed already: the answer.
        case answer(Completion.Answer)
        /// It is still open: the object the caller waits on or gives a
        /// consumer to, and completers complete.
        case open(Completion)
    }

    /// As the action of `id`, at call `level`, returns pending: its answer
    /// if it came, else the object (made now, open under the same id,
    /// `keeping` what the call holds). Nil if the id is not in the table
    /// (never for an id this thread's call took: only that thread removes
    /// it otherwise). A call whose caller hands the answer to a queue comes
    /// here only for a deadline or a token: otherwise its entry stays
    /// `running` (`DetachedCall`).
    static func returnedPending(_ id: UInt64, level: Int, keeping: (owner: UInt, instance: UInt)) -> Pending? {
        withTable { table -> Pending? in
            let pending = table.with(id) { entry -> Pending in
                switch entry.phase {
                case .early:
                    return .answer(entry.answer.take() ?? .value(.null))
                case .running:
                    let completion = Completion(level: level, cancellation: entry.cancellation,
                                                callerWaits: entry.callerWaits, keeping: keeping,
                                                queuedCaller: entry.queuedCaller)
                    return .open(attach(completion, to: &entry, id: id))
                case .object:
                    return .open(entry.completion!)
                case .queued:
                    preconditionFailure("an action returned for a call that returned already")
                }
            }
            if case .answer? = pending { table.remove(id) }
            return pending
        }
    }

    /// A call that returned pending to a caller handing the answer to a
    /// queue, with no object (`Deferral.Pending.entry`): its completion's
    /// id, still `running` (or `early`, answered meanwhile) until the caller
    /// holds it (`hold`) or a layer asks for its object (`objectOfDetached`),
    /// and what the call held, one reference each (object bits, 0 for
    /// none), which goes with the answer to the caller's queue.
    struct DetachedCall {
        let id: UInt64
        let kept: (owner: UInt, instance: UInt)
    }

    /// The caller of `call` holds it with its queue (the call returned
    /// through its layers, and none worked on the answer): from now on a
    /// completer hands the answer, with what the call kept, to
    /// `queuedCaller`; one that came meanwhile is handed over now.
    static func hold(_ call: DetachedCall, by queuedCaller: Deferral.QueuedCaller) {
        let held = withTable { table in
            table.with(call.id) { entry -> Bool in
                guard entry.phase == .running else { return false }
                entry.phase = .queued
                (entry.keptOwner, entry.keptInstance) = call.kept
                return true
            }
        }
        switch held {
        case true?: return
        case false?: handOverAnswered(call, to: queuedCaller)
        case nil:
            // Gone (nothing but its caller removes such an entry: a completer
            // refused leaves the refusal in it). The caller's record of the
            // call (C: the delivery) still waits for its end, whatever
            // happened: a record never ended leaked it, and its queue with it.
            _ = queuedCaller.hand(.failure(Completion.endedByCaller), kept: call.kept)
        }
    }

    /// `hold` of an entry answered meanwhile (`early`: only its caller takes
    /// it from there): out of the table, handed over by its caller.
    @inline(never)
    private static func handOverAnswered(_ call: DetachedCall, to queuedCaller: Deferral.QueuedCaller) {
        let answer = withTable { table -> Completion.Answer? in
            let answer = table.with(call.id) { entry -> Completion.Answer? in
                precondition(entry.phase == .early, "a call's queue held a completion its call did not leave without an object")
                return entry.answer.take()
            }
            table.remove(call.id)
            return answer ?? nil
        }
        _ = handOver(answer ?? .value(.null), to: queuedCaller, kept: call.kept)
    }

    /// The object for `call` (or one completed, answered meanwhile), as a
    /// layer the call returns through works on its answer
    /// (`Deferral.detachedHere`): from then on the call goes on as one
    /// made with an object, which adopts what the call kept.
    @inline(never)
    static func objectOfDetached(_ call: DetachedCall, queuedCaller: Deferral.QueuedCaller?) -> Completion {
        // Its level is not asked any more: its action returned.
        typealias Made = (Completion?, answer: Completion.Answer?)
        let made = withTable { table -> Made in
            let made = table.with(call.id) { entry -> Made in
                switch entry.phase {
                case .running:
                    let completion = Completion(level: 0, cancellation: nil, callerWaits: false, adopting: call.kept,
                                                queuedCaller: entry.queuedCaller)
                    return (attach(completion, to: &entry, id: call.id), nil)
                case .early:
                    return (nil, entry.answer.take())
                case .object, .queued:
                    preconditionFailure("a layer worked on a call its action did not leave without an object")
                }
            } ?? Made(nil, nil) // ended by its caller meanwhile (as in `hold`)
            if made.0 == nil { table.remove(call.id) }
            return made
        }
        if let completion = made.0 { return completion }
        // Answered meanwhile: as an answer that came before its action
        // returned (`Deferral.answerOfTaken`), a completed object, which
        // keeps what the call kept until the queue's callback ran
        // (Completion.complete). Ended by its caller: one given up, as it
        // would be, keeping nothing.
        guard let answer = made.answer, let queuedCaller else {
            Completion.letGoLater(call.kept)
            let completion = Completion(level: 0, cancellation: nil, callerWaits: false)
            if let answer = made.answer { completion.complete(answer) } else { completion.giveUp() }
            return completion
        }
        let completion = Completion(level: 0, cancellation: nil, callerWaits: false, adopting: call.kept,
                                    queuedCaller: queuedCaller)
        completion.complete(answer)
        return completion
    }

    /// The entry of `id` holds `completion` from now on (`object`), made
    /// with what the entry knew: completers find the object.
    private static func attach(_ completion: Completion, to entry: inout Entry, id: UInt64) -> Completion {
        completion.faceID = id
        // Answering anyway from here on (a layer that turns the pending call
        // into an answer) closes the id.
        completion.onAnswered = forget
        entry.phase = .object
        entry.completion = completion
        if entry.cancellation != nil { entry.cancellation = nil }
        // From here on the completion asks the caller's queue, then its consumer tells.
        if entry.queuedCaller != nil { entry.queuedCaller = nil }
        return completion
    }

    @Sendable private static func forget(_ completion: Completion) {
        let id = completion.faceID
        withTable { table in
            let held = table.with(id) { entry in entry.phase == .object && entry.completion === completion }
            if held == true { table.remove(id) }
        }
    }
}
