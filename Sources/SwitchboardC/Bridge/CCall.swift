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
    /// The `sb_call *` is a number in `CallHandles`, open while the function
    /// runs and, past a pending return, until a decision goes through it:
    /// a late or second decision, from any thread, then finds it closed
    /// instead of freed memory. Nothing else is made per call: the C
    /// strings are made when an accessor first asks (`CallStrings`).
    func run(_ interception: Interception) {
        let handle = CallHandles.open(interception)
        let returned = fn(userdata, handle)
        let decidedThroughHandle = CallHandles.functionReturned(handle, pending: returned == SB_INTERCEPT_PENDING)
        guard returned != SB_INTERCEPT_PENDING, !decidedThroughHandle else { return }
        if returned == 0 {
            interception.proceedWhileShown()
        } else {
            let status = Int32(returned)
            let code = SwitchboardError.Code(rawValue: status) ?? .actionFailed
            interception.complete(.reject(SwitchboardError(
                code: code, message: "interceptor \"\(interception.interceptor)\" failed: \(lastError)")))
        }
    }
}

/// The calls C holds as `sb_call *`: each handle is a number, never reused,
/// that maps to its interception while the interceptor function runs and,
/// when it returns SB_INTERCEPT_PENDING, until a decision goes through it.
/// A handle used after that is not found: its decision is refused
/// (SB_EINVAL) and its accessors give NULL, whatever thread comes late,
/// instead of reading freed memory.
///
/// Most calls are decided at once: a handle's slot (its number modulo the
/// slot count) is nearly always free, so opening and closing one is a lock,
/// a few stores and no allocation; handles open at once past that go to
/// `overflow`.
enum CallHandles {
    private struct Entry {
        var id: UInt64 = 0
        var interception: Interception?
        /// A decision went through the handle.
        var decided = false
        /// The function returned SB_INTERCEPT_PENDING.
        var returnedPending = false
    }

    private static let slotCount = 64
    private static let lock = Lock()
    nonisolated(unsafe) private static var next: UInt64 = 1
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Entry> = {
        let slots = UnsafeMutablePointer<Entry>.allocate(capacity: slotCount)
        slots.initialize(repeating: Entry(), count: slotCount)
        return slots
    }()
    nonisolated(unsafe) private static var overflow: [UInt64: Entry] = [:]

    /// A handle's bits: the number past a two-bit tag that no object
    /// pointer (aligned) has.
    private static func id(_ handle: OpaquePointer) -> UInt64? {
        let bits = UInt(bitPattern: handle)
        return bits & 3 == 2 ? UInt64(bits >> 2) : nil
    }

    /// Runs `body` on the entry of `handle` under the lock (nil if it is
    /// not open); `body` says whether to close it.
    private static func with<R>(_ handle: OpaquePointer, _ body: (inout Entry) -> (R, close: Bool)) -> R? {
        guard let id = id(handle) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let slot = slots + Int(id % UInt64(slotCount))
        if slot.pointee.id == id {
            let (result, close) = body(&slot.pointee)
            if close { slot.pointee = Entry() }
            return result
        }
        guard !overflow.isEmpty, var entry = overflow[id] else { return nil }
        let (result, close) = body(&entry)
        overflow[id] = close ? nil : entry
        return result
    }

    /// A new handle for `interception`.
    static func open(_ interception: Interception) -> OpaquePointer {
        lock.lock()
        defer { lock.unlock() }
        let id = next
        next += 1
        let slot = slots + Int(id % UInt64(slotCount))
        if slot.pointee.id == 0 {
            slot.pointee.id = id
            slot.pointee.interception = interception
        } else {
            overflow[id] = Entry(id: id, interception: interception)
        }
        return OpaquePointer(bitPattern: UInt(id) << 2 | 2)!
    }

    /// The interception of an open handle, or nil.
    static func find(_ handle: OpaquePointer) -> Interception? {
        with(handle) { entry in (entry.interception, close: false) } ?? nil
    }

    /// A decision through `handle`: its interception, and whether it is the
    /// first decision through it (nil: not open). Closes the handle when its
    /// function has returned pending already; else that return does.
    static func decision(_ handle: OpaquePointer) -> (Interception, first: Bool)? {
        with(handle) { entry in
            let first = !entry.decided
            entry.decided = true
            return ((entry.interception!, first), close: entry.returnedPending)
        }
    }

    /// The interceptor function returned (`pending`: SB_INTERCEPT_PENDING).
    /// Returns whether a decision went through the handle already. Closes
    /// the handle unless it stays open for a decision to come.
    static func functionReturned(_ handle: OpaquePointer, pending: Bool) -> Bool {
        with(handle) { entry in
            entry.returnedPending = pending
            return (entry.decided, close: !pending || entry.decided)
        } ?? true
    }
}

/// What an `sb_call *` stands for, seen from the C exports: the
/// interception (while its handle is open), its strings as C strings (made
/// on first use: most interceptors read one or two, many none), and its
/// decisions.
struct CCall {
    let interception: Interception

    enum Field { case target, action, url, interceptor }

    /// The call of an open handle; nil once it was decided through it.
    static func find(_ handle: OpaquePointer) -> CCall? {
        CallHandles.find(handle).map(CCall.init)
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

    /// Makes `decision` through `handle`, with switchboard.h's statuses for
    /// decisions that are ignored.
    static func decide(_ handle: OpaquePointer, _ decision: Decision, _ caller: String) -> sb_status {
        guard let (interception, _) = CallHandles.decision(handle) else {
            return failure(SB_EINVAL, "\(caller): not an open call (it was decided, and its interceptor has "
                                      + "returned); decision ignored")
        }
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
