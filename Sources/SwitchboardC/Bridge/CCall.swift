@_spi(Faces) import Switchboard
import CSwitchboard
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A C interceptor: its function and userdata. `free_userdata` runs once,
/// when the last snapshot holding it is gone.
final class CInterceptor: @unchecked Sendable {
    // @unchecked: immutable; what `userdata` points to is the C code's to guard.
    let fn: sb_interceptor_fn
    let userdata: UnsafeMutableRawPointer?
    let freeUserdata: sb_destroy_fn?

    init(fn: sb_interceptor_fn, userdata: UnsafeMutableRawPointer?, freeUserdata: sb_destroy_fn?) {
        self.fn = fn
        self.userdata = userdata
        self.freeUserdata = freeUserdata
    }

    deinit { freeUserdata?(userdata) }

    /// Shows `interception` to the C function and turns what it returns into
    /// a decision (see switchboard.h, "interceptors").
    func run(_ interception: Interception) {
        let call = CCall(interception)
        let handle = OpaquePointer(Unmanaged.passRetained(call).toOpaque())
        let returned = fn(userdata, handle)
        if returned != SB_INTERCEPT_PENDING {
            if !call.decisionMade.exchange(true, ordering: .acquiringAndReleasing) {
                if returned == 0 {
                    interception.complete(.proceed)
                } else {
                    let status = Int32(returned)
                    let code = SwitchboardError.Code(rawValue: status) ?? .actionFailed
                    interception.complete(.reject(SwitchboardError(
                        code: code, message: "interceptor \"\(interception.interceptor)\" failed: \(lastError)")))
                }
                call.dropHold()
            }
        }
        call.dropHold()
    }
}

/// What an `sb_call *` points to: the interception, its strings as C
/// strings, and two holds, one for the function's return and one for the
/// decision: the handle lives until both are dropped.
final class CCall: @unchecked Sendable {
    // @unchecked: immutable but for atomics.
    let interception: Interception
    let target: UnsafeMutablePointer<CChar>
    let action: UnsafeMutablePointer<CChar>
    let url: UnsafeMutablePointer<CChar>?
    let name: UnsafeMutablePointer<CChar>
    let tags: [UnsafeMutablePointer<CChar>]
    let holds = Atomic<Int>(2)
    /// A decision went through this handle (or the function's return made one).
    let decisionMade = Atomic<Bool>(false)

    init(_ interception: Interception) {
        self.interception = interception
        target = strdup(interception.target)
        action = strdup(interception.action)
        url = interception.url.map { strdup($0) }
        name = strdup(interception.interceptor)
        tags = interception.tags.map { strdup($0) }
    }

    deinit {
        free(target)
        free(action)
        free(url)
        free(name)
        tags.forEach { free($0) }
    }

    func dropHold() {
        if holds.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            Unmanaged.passUnretained(self).release()
        }
    }

    static func borrow(_ handle: OpaquePointer) -> CCall {
        Unmanaged<CCall>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// Makes `decision` through this handle, with switchboard.h's statuses
    /// for decisions that are ignored.
    func decide(_ decision: Decision, _ caller: String) -> sb_status {
        let first = !decisionMade.exchange(true, ordering: .acquiringAndReleasing)
        defer { if first { dropHold() } }
        if interception.complete(decision) { return SB_OK }
        let what = "\(caller): interceptor \"\(interception.interceptor)\""
        if interception.isAbandoned {
            return interception.isCancelled ? failure(SB_ECANCELED, "\(what): the call was cancelled; decision ignored")
                                             : failure(SB_ETIMEOUT, "\(what): the call timed out; decision ignored")
        }
        return failure(SB_EINVAL, "\(what): the call was already decided; decision ignored")
    }
}
