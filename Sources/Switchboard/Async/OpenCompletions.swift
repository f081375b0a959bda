
/// The completions faces hold by id (C's `sb_completion`, and Lua's through
/// C) rather than by pointer, so that a second or stale completion is
/// refused instead of touching freed memory. Ids count up from 1 and are
/// never reused; 0 is never open.
///
/// Most completions are completed while their action still runs (work that
/// turned out to be quick): such a completion never needs a `Completion`
/// object. Its id's entry holds what the action's thread knew when it took
/// it, then the answer, until the action returns pending and its call takes
/// the answer (`returnedPending`). The object is made only for a completion
/// still open when its action returns — a caller then waits for it, gives it
/// a consumer or a deadline, and completers find it here. Every change of an
/// entry happens under the one lock, so a completer racing the action's
/// return either leaves its answer in the entry, or finds the object.
@_spi(Faces) public enum OpenCompletions {
    /// What an id's entry holds.
    enum Phase: UInt8 {
        /// Taken by an action that still runs; nobody completed it yet
        /// (`cancellation` and `callerWaits` are what its thread knew).
        case running
        /// Completed while its action still ran: `answer`, for the call.
        /// The id is no longer open.
        case early
        /// Still open when its action returned pending: `completion`.
        case object
    }

    /// One id's entry. Plain fields rather than an enum with payloads: the
    /// hot path writes and reads them in place, without copying entries.
    struct Entry {
        var id: UInt64 = 0
        var phase = Phase.running
        var callerWaits = false
        var cancellation: Cancellation?
        /// What its caller ended already, while its action runs (a C queue
        /// freed: `Deferral.Refuser`).
        var refuser: Deferral.Refuser?
        var answer: Completion.Answer?
        var completion: Completion?
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
                                    refuser: Deferral.Refuser?) {
            let slot = slots + Self.slot(id)
            if slot.pointee.id == 0 {
                slot.pointee.id = id
                slot.pointee.phase = .running
                slot.pointee.callerWaits = callerWaits
                if let cancellation { slot.pointee.cancellation = cancellation }
                if let refuser { slot.pointee.refuser = refuser }
            } else {
                overflow[id] = Entry(id: id, phase: .running, callerWaits: callerWaits, cancellation: cancellation,
                                     refuser: refuser)
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
                if slot.pointee.refuser != nil { slot.pointee.refuser = nil }
                if slot.pointee.answer != nil { slot.pointee.answer = nil }
                if slot.pointee.completion != nil { slot.pointee.completion = nil }
            } else {
                overflow[id] = nil
            }
        }
    }

    /// Every change of an entry happens under `lock`: a pthread mutex, which
    /// ThreadSanitizer sees (Concurrency/Lock.swift).
    private static let lock = Lock()
    @exclusivity(unchecked) nonisolated(unsafe) private static var entries = Table()

    @inline(__always)
    private static func withTable<R>(_ body: (inout Table) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&entries)
    }

    /// A new id for the action running on this thread (`Deferral.takeID`).
    @inline(__always)
    static func open(cancellation: Cancellation?, callerWaits: Bool, refuser: Deferral.Refuser?) -> UInt64 {
        withTable { table in
            let id = table.next
            table.next += 1
            table.insertRunning(id, cancellation: cancellation, callerWaits: callerWaits, refuser: refuser)
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
                    // Asked under the lock: while the entry runs, what the
                    // refuser reads is alive (Deferral.Refuser).
                    if let refuser = entry.refuser, refuser.refuses { return .endedByCaller }
                    entry.answer = answer.make()
                    entry.phase = .early
                    if entry.cancellation != nil { entry.cancellation = nil }
                    if entry.refuser != nil { entry.refuser = nil }
                    return .answered
                case .object: return entry.completion.map(Found.object) ?? .notOpen
                case .early: return .notOpen
                }
            } ?? .notOpen
            switch found {
            case .object, .endedByCaller: table.remove(id) // closed: the call will find it gone
            case .notOpen, .answered: break
            }
            return found
        }
        switch found {
        case .notOpen:
            return .notOpen
        case .endedByCaller:
            Completion.drop(answer.make())
            return .refused(Completion.endedByCaller)
        case .answered:
            return .given
        case .object(let completion):
            guard let refusal = completion.complete(answer.make()) else { return .given }
            return .refused(refusal)
        }
    }

    /// What completing found under the lock.
    private enum Found {
        case notOpen
        /// The answer is in the entry now.
        case answered
        /// Its caller ended the call already while its action ran: refused
        /// (`Completion.endedByCaller`), the answer (made outside the lock)
        /// dropped, the id closed (the action's return finds it gone).
        case endedByCaller
        /// The object to complete, out of the table.
        case object(Completion)
    }

    /// Whether the work of open `id` may stop (`Completion.isAbandoned`);
    /// false for an id that is not open.
    public static func isAbandoned(_ id: UInt64) -> Bool {
        let found = withTable { table in
            table.with(id) { entry -> (refused: Bool, Cancellation?, Completion?)? in
                switch entry.phase {
                case .running: (entry.refuser?.refuses == true, entry.cancellation, nil)
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
        if let removed {
            if let answer = removed.answer { Completion.drop(answer) }
            removed.completion?.answered()
        }
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
                case .early: false
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
        guard let removed else { return }
        if let answer = removed.answer { Completion.drop(answer) }
        removed.completion?.answered()
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
    /// `keeping` what the call holds).
    /// Nil if the id is not in the table (never for an id this thread's
    /// call took: only that thread removes it otherwise).
    static func returnedPending(_ id: UInt64, level: Int, keeping: (owner: UInt, instance: UInt)) -> Pending? {
        withTable { table -> Pending? in
            let pending = table.with(id) { entry -> Pending in
                switch entry.phase {
                case .early:
                    return .answer(entry.answer.take() ?? .value(.null))
                case .running:
                    let completion = Completion(level: level, cancellation: entry.cancellation,
                                                callerWaits: entry.callerWaits, keeping: keeping,
                                                refuser: entry.refuser)
                    completion.faceID = id
                    // Answering anyway from here on (a layer that turns the
                    // pending call into an answer) closes the id.
                    completion.onAnswered = forget
                    entry.phase = .object
                    entry.completion = completion
                    entry.cancellation = nil
                    // From here on the completion asks it, then its consumer tells.
                    if entry.refuser != nil { entry.refuser = nil }
                    return .open(completion)
                case .object:
                    return .open(entry.completion!)
                }
            }
            if case .answer? = pending { table.remove(id) }
            return pending
        }
    }

    @Sendable private static func forget(_ completion: Completion) {
        let id = completion.faceID
        withTable { table in
            let held = table.with(id) { entry in entry.phase == .object && entry.completion === completion }
            if held == true { table.remove(id) }
        }
    }
}
