@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization

// Asynchronous actions from C (switchboard.h, "Asynchronous actions"): an
// action takes its call's completion, returns SB_PENDING, and completes it
// later from any thread. C holds completions by id, not by pointer, so a
// second or stale completion is refused instead of touching freed memory.

/// The completions C code has taken and not yet completed, by id.
enum TakenCompletions {
    static let table = Mutex<Open>(Open())

    /// Open completions by id. Most are completed soon after they are taken
    /// (often before their action returns), so an id's slot (the id modulo
    /// the slot count) is nearly always free for it: no hashing and no
    /// allocation per completion. One taken while its slot holds an older
    /// open one (many open at once) goes to `overflow`.
    struct Open {
        private static let slotCount = 64
        var next: UInt64 = 1
        /// Id 0 (never given) marks a free slot.
        private var slots = [(id: UInt64, completion: Completion?)](repeating: (0, nil), count: slotCount)
        private var overflow: [UInt64: Completion] = [:]

        private static func slot(_ id: UInt64) -> Int { Int(id % UInt64(slotCount)) }

        mutating func insert(_ id: UInt64, _ completion: Completion) {
            let slot = Self.slot(id)
            if slots[slot].id == 0 { slots[slot] = (id, completion) } else { overflow[id] = completion }
        }

        func find(_ id: UInt64) -> Completion? {
            guard id != 0 else { return nil }
            let slot = slots[Self.slot(id)]
            if slot.id == id { return slot.completion }
            return overflow.isEmpty ? nil : overflow[id]
        }

        mutating func remove(_ id: UInt64) -> Completion? {
            guard id != 0 else { return nil }
            let slot = Self.slot(id)
            if slots[slot].id == id {
                defer { slots[slot] = (0, nil) }
                return slots[slot].completion
            }
            return overflow.isEmpty ? nil : overflow.removeValue(forKey: id)
        }
    }

    static func add(_ completion: Completion) -> UInt64 {
        table.withLock { state in
            // The same completion taken twice in one action has one id.
            if completion.faceID != 0 { return completion.faceID }
            let id = state.next
            state.next += 1
            state.insert(id, completion)
            completion.faceID = id
            // An action that answers anyway has no use for its id: forget it
            // (a later completion is refused as one that is not open).
            completion.onAnswered = forget
            return id
        }
    }

    @Sendable static func forget(_ completion: Completion) {
        table.withLock { state in
            if completion.faceID != 0 { _ = state.remove(completion.faceID) }
        }
    }

    static func find(_ id: UInt64) -> Completion? { table.withLock { $0.find(id) } }

    static func remove(_ id: UInt64) -> Completion? { table.withLock { $0.remove(id) } }
}

@_cdecl("sb_completion_take")
public func sb_completion_take() -> UInt64 {
    guard let completion = Deferral.take() else {
        setLastError("sb_completion_take: no action is running on this thread")
        return 0
    }
    return TakenCompletions.add(completion)
}

@_cdecl("sb_completion_succeed")
public func sb_completion_succeed(_ id: UInt64, _ value: sb_value_ptr?) -> sb_status {
    guard let completion = TakenCompletions.remove(id) else {
        if let value { Handle(value).release() }
        return failure(SB_ENOTFOUND, "sb_completion_succeed: no open completion has id \(id) (completed already, or never taken)")
    }
    let answer = Completion.Answer.native(value ?? Handle.null.pointer, CBridge.self)
    guard let refusal = completion.complete(answer) else { return SB_OK }
    return failure(refusal)
}

@_cdecl("sb_completion_fail")
public func sb_completion_fail(_ id: UInt64, _ status: sb_status, _ message: UnsafePointer<CChar>?) -> sb_status {
    guard let completion = TakenCompletions.remove(id) else {
        return failure(SB_ENOTFOUND, "sb_completion_fail: no open completion has id \(id) (completed already, or never taken)")
    }
    // Statuses that would tell the caller something untrue about a call
    // that ended (queued: no result; would block) become SB_EACTION too.
    let known = status != SB_OK && status.rawValue <= sb_status.highest.rawValue
        && status != SB_EQUEUED && status != SB_EWOULDBLOCK
    let code = known ? SwitchboardError.Code(rawValue: Int32(status.rawValue)) ?? .actionFailed : .actionFailed
    let text = message.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
        ?? "the action failed later: " + String(cString: sb_status_string(known ? status : SB_EACTION)!)
    guard let refusal = completion.complete(.failure(SwitchboardError(code: code, message: text))) else { return SB_OK }
    return failure(refusal)
}

@_cdecl("sb_completion_cancelled")
public func sb_completion_cancelled(_ id: UInt64) -> CInt {
    TakenCompletions.find(id)?.isAbandoned == true ? 1 : 0
}
