@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization

// Asynchronous actions from C (switchboard.h, "Asynchronous actions"): an
// action takes its call's completion, returns SB_PENDING, and completes it
// later from any thread. C holds completions by id, not by pointer, so a
// second or stale completion is refused instead of touching freed memory.

/// The completions C code has taken and not yet completed, by id.
enum TakenCompletions {
    static let table = Mutex<(next: UInt64, open: [UInt64: Completion])>((1, [:]))

    static func add(_ completion: Completion) -> UInt64 {
        table.withLock { state in
            // The same completion taken twice in one action has one id.
            if completion.faceID != 0 { return completion.faceID }
            let id = state.next
            state.next += 1
            state.open[id] = completion
            completion.faceID = id
            // An action that answers anyway has no use for its id: forget it
            // (a later completion is refused as one that is not open).
            completion.onAnswered = forget
            return id
        }
    }

    @Sendable static func forget(_ completion: Completion) {
        table.withLock { state in
            if completion.faceID != 0 { state.open.removeValue(forKey: completion.faceID) }
        }
    }

    static func find(_ id: UInt64) -> Completion? { table.withLock { $0.open[id] } }

    static func remove(_ id: UInt64) -> Completion? { table.withLock { $0.open.removeValue(forKey: id) } }
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
