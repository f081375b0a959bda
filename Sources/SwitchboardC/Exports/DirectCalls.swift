@_spi(Faces) import Switchboard
import CSwitchboard

// sb__action_enter / sb__action_leave: a call its caller runs itself
// (Mediator+Direct.swift). Face-internal: declared in switchboard_sys.h,
// never in switchboard.h, and exported under SWITCHBOARD_PRIVATE.

/// The ticket of a direct call: the level it entered (10 bits: levels stop
/// at SB_MAX_CALL_DEPTH + 1), the entering thread's serial (24 bits: another
/// thread's ticket is refused, whatever its level) and the call's number on
/// that thread (30 bits: a ticket already left is refused, even where a
/// later call entered the same level, until 2^30 more direct calls on the
/// thread). The error generation before the call is kept with the level,
/// not in the ticket.
private enum Ticket {
    static let levelBits: UInt64 = 10
    static let threadBits: UInt64 = 24
    static let numberShift = levelBits + threadBits

    static func make(level: Int, number: UInt64) -> UInt64 {
        UInt64(level) | thread << levelBits | number << numberShift
    }

    static func level(_ ticket: UInt64) -> Int { Int(ticket & (1 << levelBits - 1)) }
    static func isThisThread(_ ticket: UInt64) -> Bool { (ticket >> levelBits) & (1 << threadBits - 1) == thread }
    /// Whether `ticket` is that of the call numbered `number`.
    static func isCall(_ ticket: UInt64, _ number: UInt64) -> Bool {
        ticket >> numberShift == number & (1 << (64 - numberShift) - 1)
    }

    private static var thread: UInt64 { Mediator.threadSerial & (1 << threadBits - 1) }
}

@_cdecl("sb__action_enter")
public func sb__action_enter(_ m: sb_mediator_ptr?, _ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?,
                             _ fn: UnsafeMutablePointer<sb_fn?>?, _ userdata: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                             _ ticket: UnsafeMutablePointer<UInt64>?) -> Int32 {
    guard let m, let target, let action, let fn, let userdata, let ticket else { return 0 }
    let messages = UInt64(sb__error_generation())
    return Borrowed(CMediator.borrow(m)).read { c -> Int32 in
        guard let (function, level, number) = c.mediator.enterDirect(target, action, note: messages) else { return 0 }
        // A registered C function (what sb_action_register made).
        let direct = Borrowed(function).read { f -> CFunction? in
            guard ObjectIdentifier(type(of: f)) == ObjectIdentifier(CFunction.self) else { return nil }
            let function = unsafeDowncast(f, to: CFunction.self)
            return function.usesInstanceState ? nil : function
        }
        guard let direct, level < 1 << Ticket.levelBits else {
            Mediator.leaveDirect()
            return 0
        }
        fn.pointee = direct.fn
        userdata.pointee = direct.userdata
        ticket.pointee = Ticket.make(level: level, number: number)
        return 1
    }
}

@_cdecl("sb__action_leave")
public func sb__action_leave(_ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?, _ ticket: UInt64,
                             _ status: sb_status, _ out: sb_value_out?) -> sb_status {
    guard ticket != 0, Ticket.isThisThread(ticket), let call = Mediator.innermostDirectCall(level: Ticket.level(ticket)),
          Ticket.isCall(ticket, call.number) else {
        return failure(SB_EINVAL, "sb__action_leave: the ticket is not of this thread's innermost call "
                                  + "(each sb__action_enter is left once, innermost first, on its thread)")
    }
    var status = status
    if status == SB_OK {
        if let out, out.pointee == nil { out.pointee = Handle.null.pointer }
        if Deferral.returned() {
            let label = (target.map { String(cString: $0) } ?? "?") + "." + (action.map { String(cString: $0) } ?? "?")
            var discarded: OpaquePointer?
            status = sb_status(UInt32(bitPattern: withUnsafeMutablePointer(to: &discarded) { local in
                CFunction.answeredEarly(out: out ?? local, label: label)
            }))
            if out == nil, let discarded { Handle(discarded).release() }
        }
    } else {
        status = leaveFailing(target, action, messagesBefore: UInt(truncatingIfNeeded: call.note), status, out)
    }
    Mediator.leaveDirect()
    return status
}

/// sb__action_leave's failure: the message and status a called action's
/// failure gets (`CFunction.normalizeFailure`). Out of line.
@inline(never)
private func leaveFailing(_ target: UnsafePointer<CChar>?, _ action: UnsafePointer<CChar>?, messagesBefore: UInt,
                          _ status: sb_status, _ out: sb_value_out?) -> sb_status {
    let label = (target.map { String(cString: $0) } ?? "?") + "." + (action.map { String(cString: $0) } ?? "?")
    var discarded: OpaquePointer?
    let code = withUnsafeMutablePointer(to: &discarded) { local in
        CFunction.normalizeFailure(status, out: out ?? local, messagesBefore: messagesBefore, label: label)
    }
    if let discarded { Handle(discarded).release() }
    return sb_status(UInt32(code))
}
