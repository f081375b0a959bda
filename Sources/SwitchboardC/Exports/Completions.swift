@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization

// Asynchronous actions from C (switchboard.h, "Asynchronous actions"): an
// action takes its call's completion, returns SB_PENDING, and completes it
// later from any thread. C holds completions by id (OpenCompletions), not by
// pointer, so a second or stale completion is refused instead of touching
// freed memory.

@_cdecl("sb_completion_take")
public func sb_completion_take() -> UInt64 {
    let id = Deferral.takeID()
    if id == 0 { setLastError("sb_completion_take: no action is running on this thread") }
    return id
}

@_cdecl("sb_completion_succeed")
public func sb_completion_succeed(_ id: UInt64, _ value: sb_value_ptr?) -> sb_status {
    switch OpenCompletions.complete(id, .native(value ?? Handle.null.pointer, CBridge.self)) {
    case .given: return SB_OK
    case .refused(let refusal): return failure(refusal)
    case .notOpen:
        return failure(SB_ENOTFOUND, "sb_completion_succeed: no open completion has id \(id) (completed already, or never taken)")
    }
}

@_cdecl("sb_completion_fail")
public func sb_completion_fail(_ id: UInt64, _ status: sb_status, _ message: UnsafePointer<CChar>?) -> sb_status {
    // The failure is made (the message read) only for an open id.
    let answer = { () -> Completion.Answer in
        // Statuses that would tell the caller something untrue about a call
        // that ended (queued: no result; would block) become SB_EACTION too.
        let known = status != SB_OK && status.rawValue <= sb_status.highest.rawValue
            && status != SB_EQUEUED && status != SB_EWOULDBLOCK
        let code = known ? SwitchboardError.Code(rawValue: Int32(status.rawValue)) ?? .actionFailed : .actionFailed
        let text = message.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
            ?? "the action failed later: " + String(cString: sb_status_string(known ? status : SB_EACTION)!)
        return .failure(SwitchboardError(code: code, message: text))
    }
    switch OpenCompletions.complete(id, answer) {
    case .given: return SB_OK
    case .refused(let refusal): return failure(refusal)
    case .notOpen:
        return failure(SB_ENOTFOUND, "sb_completion_fail: no open completion has id \(id) (completed already, or never taken)")
    }
}

@_cdecl("sb_completion_cancelled")
public func sb_completion_cancelled(_ id: UInt64) -> CInt {
    OpenCompletions.isAbandoned(id) ? 1 : 0
}
