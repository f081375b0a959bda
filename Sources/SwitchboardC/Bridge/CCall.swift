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
    ///
    /// The `sb_call *` is the interception itself, with one reference held
    /// for the decision: the handle lives while the function runs (our
    /// caller holds the interception) and, past a pending return, until a
    /// decision goes through it. Nothing else is made per call: the C
    /// strings are made when an accessor first asks (`CallStrings`).
    func run(_ interception: Interception) {
        let handle = OpaquePointer(Unmanaged.passRetained(interception).toOpaque())
        let returned = fn(userdata, handle)
        if returned != SB_INTERCEPT_PENDING {
            if !interception.handleDecided.exchange(true, ordering: .acquiringAndReleasing) {
                if returned == 0 {
                    interception.proceedWhileShown()
                } else {
                    let status = Int32(returned)
                    let code = SwitchboardError.Code(rawValue: status) ?? .actionFailed
                    interception.complete(.reject(SwitchboardError(
                        code: code, message: "interceptor \"\(interception.interceptor)\" failed: \(lastError)")))
                }
                Unmanaged.passUnretained(interception).release()
            }
        }
    }
}

/// What an `sb_call *` points to, seen from the C exports: the interception
/// (borrowed from the handle), its strings as C strings (made on first use:
/// most interceptors read one or two, many none), and its decisions.
struct CCall {
    let interception: Interception

    enum Field { case target, action, url, interceptor }

    static func borrow(_ handle: OpaquePointer) -> CCall {
        CCall(interception: Unmanaged<Interception>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue())
    }

    /// The C strings of this call, made on first use and kept with the
    /// interception (it releases them when it goes).
    private var strings: CallStrings {
        if let made = interception.faceCache.load() { return unsafeDowncast(made, to: CallStrings.self) }
        return unsafeDowncast(interception.faceCache.storeIfNil(CallStrings()), to: CallStrings.self)
    }

    /// A field as a C string that lives as long as this handle; nil for no URL.
    func cString(_ field: Field) -> UnsafePointer<CChar>? {
        let i = interception
        return strings.strings.withLock { strings -> CStrings.Pointer in
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
        return strings.strings.withLock { strings -> CStrings.Pointer in
            if strings.tags.isEmpty { strings.tags = tags.map { strdup($0) } }
            return CStrings.Pointer(strings.tags[index])
        }.pointer
    }

    /// Makes `decision` through this handle, with switchboard.h's statuses
    /// for decisions that are ignored. The first decision through the
    /// handle gives up the reference it held.
    func decide(_ decision: Decision, _ caller: String) -> sb_status {
        let interception = self.interception
        let first = !interception.handleDecided.exchange(true, ordering: .acquiringAndReleasing)
        defer { if first { Unmanaged.passUnretained(interception).release() } }
        if interception.complete(decision) { return SB_OK }
        let what = "\(caller): interceptor \"\(interception.interceptor)\""
        if interception.isAbandoned {
            return interception.isCancelled ? failure(SB_ECANCELED, "\(what): the call was cancelled; decision ignored")
                                             : failure(SB_ETIMEOUT, "\(what): the call timed out; decision ignored")
        }
        return failure(SB_EINVAL, "\(what): the call was already decided; decision ignored")
    }
}

/// The C strings a call's handle has handed out; freed with the interception.
private final class CallStrings: Sendable {
    let strings = Mutex(CStrings())

    deinit { strings.withLock { $0.free() } }
}

/// The C strings a handle has handed out.
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
