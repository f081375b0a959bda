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
/// strings (made on first use: most interceptors read one or two), and two
/// holds, one for the function's return and one for the decision: the
/// handle lives until both are dropped.
final class CCall: Sendable {
    let interception: Interception
    let holds = Atomic<Int>(2)
    /// A decision went through this handle (or the function's return made one).
    let decisionMade = Atomic<Bool>(false)
    private let strings = Mutex(CStrings())

    enum Field { case target, action, url, interceptor }

    init(_ interception: Interception) {
        self.interception = interception
    }

    deinit { strings.withLock { $0.free() } }

    /// A field as a C string that lives as long as this handle; nil for no URL.
    func cString(_ field: Field) -> UnsafePointer<CChar>? {
        let i = interception
        return strings.withLock { strings -> CStrings.Pointer in
            switch field {
            case .target: CStrings.Pointer(strings.target.made { strdup(i.target) })
            case .action: CStrings.Pointer(strings.action.made { strdup(i.action) })
            case .url: CStrings.Pointer(i.url.flatMap { url in strings.url.made { strdup(url) } })
            case .interceptor: CStrings.Pointer(strings.interceptor.made { strdup(i.interceptor) })
            }
        }.pointer
    }

    /// Tag `index` as a C string, or nil past the end.
    func tag(_ index: Int) -> UnsafePointer<CChar>? {
        let tags = interception.tags
        guard index >= 0 && index < tags.count else { return nil }
        return strings.withLock { strings -> CStrings.Pointer in
            if strings.tags.isEmpty { strings.tags = tags.map { strdup($0) } }
            return CStrings.Pointer(strings.tags[index])
        }.pointer
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

/// The C strings a handle has handed out; freed with it.
private struct CStrings: @unchecked Sendable {
    // @unchecked: only reached under the handle's mutex.
    var target: UnsafeMutablePointer<CChar>?
    var action: UnsafeMutablePointer<CChar>?
    var url: UnsafeMutablePointer<CChar>?
    var interceptor: UnsafeMutablePointer<CChar>?
    var tags: [UnsafeMutablePointer<CChar>?] = []

    /// A pointer leaving the mutex: the handle still owns it.
    struct Pointer: @unchecked Sendable {
        let pointer: UnsafePointer<CChar>?
        init(_ pointer: UnsafeMutablePointer<CChar>?) { self.pointer = pointer.map { UnsafePointer($0) } }
    }

    func free() {
        // One by one: an array literal here would be an allocation per call.
        Glibc.free(target)
        Glibc.free(action)
        Glibc.free(url)
        Glibc.free(interceptor)
        for tag in tags { Glibc.free(tag) }
    }
}

extension Optional where Wrapped == UnsafeMutablePointer<CChar> {
    /// The string, made now if it was not yet.
    fileprivate mutating func made(_ make: () -> UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
        if self == nil { self = make() }
        return self
    }
}
