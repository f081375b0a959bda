@_spi(Faces) import Switchboard
import CSwitchboard

// sb_error_message and sb_error_set are in C (Sources/CSwitchboard/errors.c).

@_cdecl("sb_status_string")
public func sb_status_string(_ s: sb_status) -> UnsafePointer<CChar>? {
    let text: StaticString = switch s {
    case SB_OK: "ok"
    case SB_EINVAL: "invalid argument"
    case SB_ENOTARGET: "no such target"
    case SB_ENOACTION: "no such action"
    case SB_EACTION: "the action failed"
    case SB_ETYPE: "wrong type of value"
    case SB_EREJECTED: "rejected by policy"
    case SB_EBADURL: "malformed URL"
    case SB_ENOMEM: "out of memory"
    case SB_EQUEUED: "queued for its owner thread"
    case SB_ETIMEOUT: "timed out"
    case SB_ECANCELED: "cancelled"
    case SB_EPARAMS: "params break the action's contract"
    case SB_EWOULDBLOCK: "waiting would block a thread that must not block"
    case SB_ENOTFOUND: "no such name or id"
    case SB_PENDING: "pending: the action will complete later"
    default: "unknown status"
    }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// The names the Lua face (`nil, message, "ENOTARGET"`), the command and
/// traces give the statuses: the constant without its `SB_`. One table holds
/// them, `SwitchboardError.Code`'s; the Lua module reads them through this.
@_cdecl("sb_status_name")
public func sb_status_name(_ s: sb_status) -> UnsafePointer<CChar>? {
    let name: StaticString = switch s {
    case SB_OK: "OK"
    case SB_PENDING: "PENDING"
    default: SwitchboardError.Code(rawValue: Int32(bitPattern: s.rawValue))?.staticName ?? "EUNKNOWN"
    }
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}
