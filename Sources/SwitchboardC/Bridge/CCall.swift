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
/// Most calls are decided at once, on the thread that opened the handle:
/// a handle's slot (its number modulo the slot count) is nearly always free,
/// and each slot is one word (the number, two flags and a lock bit) beside
/// the interception it holds, so opening and closing a handle are a few
/// atomic operations, no lock and no allocation. A handle whose slot is
/// taken (many pending at once) goes to `overflow`, under a lock.
enum CallHandles {
    /// A slot's word: the handle's number above these bits (0: free).
    private static let locked: UInt64 = 1, decided: UInt64 = 2, returnedPending: UInt64 = 4

    private static let slotCount = 64
    nonisolated(unsafe) private static let words: UnsafeMutablePointer<Atomic<UInt64>> = {
        let words = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: slotCount)
        for i in 0..<slotCount { (words + i).initialize(to: Atomic(0)) }
        return words
    }()
    /// The interception of each slot; read and written only by the thread
    /// holding the slot's lock bit. Borrowed while the interceptor function
    /// runs (its caller holds the interception), retained once it returned
    /// pending (the caller may stop waiting and let go of it).
    nonisolated(unsafe) private static let objects: UnsafeMutablePointer<UInt> = {
        let objects = UnsafeMutablePointer<UInt>.allocate(capacity: slotCount)
        objects.initialize(repeating: 0, count: slotCount)
        return objects
    }()
    private static let next = Atomic<UInt64>(1)

    private struct Overflowed {
        var interception: Interception
        var flags: UInt64
    }
    private static let overflowLock = Lock()
    nonisolated(unsafe) private static var overflow: [UInt64: Overflowed] = [:]
    private static let overflowCount = Atomic<Int>(0)

    /// A handle's number, from its bits: past a two-bit tag that no object
    /// pointer (aligned) has.
    private static func id(_ handle: OpaquePointer) -> UInt64? {
        let bits = UInt(bitPattern: handle)
        return bits & 3 == 2 ? UInt64(bits >> 2) : nil
    }

    @inline(__always)
    private static func slot(_ id: UInt64) -> Int { Int(truncatingIfNeeded: id % UInt64(slotCount)) }

    /// A new handle for `interception`.
    static func open(_ interception: Interception) -> OpaquePointer {
        let id = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let slot = slot(id)
        if words[slot].compareExchange(expected: 0, desired: id << 3 | locked, ordering: .acquiring).exchanged {
            objects[slot] = UInt(bitPattern: Unmanaged.passUnretained(interception).toOpaque())
            words[slot].store(id << 3, ordering: .releasing)
        } else {
            overflowLock.withLock { overflow[id] = Overflowed(interception: interception, flags: 0) }
            overflowCount.add(1, ordering: .releasing)
        }
        return OpaquePointer(bitPattern: UInt(id) << 2 | 2)!
    }

    /// Runs `body` with the interception and flags of `handle` (nil if it
    /// is not open), the slot locked; `body` gives the new flags, or nil to
    /// close the handle.
    private static func with<R>(_ handle: OpaquePointer,
                                _ body: (Interception, _ flags: UInt64) -> (R, flags: UInt64?)) -> R? {
        guard let id = id(handle) else { return nil }
        let slot = slot(id)
        var word = words[slot].load(ordering: .relaxed)
        while word >> 3 == id {
            if word & locked != 0 {
                // Another thread decides this very handle now: a moment.
                sched_yield()
                word = words[slot].load(ordering: .relaxed)
                continue
            }
            let (exchanged, seen) = words[slot].compareExchange(expected: word, desired: word | locked,
                                                                ordering: .acquiring)
            guard exchanged else {
                word = seen
                continue
            }
            let object = Unmanaged<Interception>.fromOpaque(UnsafeRawPointer(bitPattern: objects[slot])!)
            let before = word & (decided | returnedPending)
            let (result, flags) = body(object.takeUnretainedValue(), before)
            if let flags {
                if flags & returnedPending != 0 && before & returnedPending == 0 { _ = object.retain() }
                words[slot].store(id << 3 | flags, ordering: .releasing)
            } else {
                objects[slot] = 0
                words[slot].store(0, ordering: .releasing)
                if before & returnedPending != 0 { object.release() }
            }
            return result
        }
        guard overflowCount.load(ordering: .acquiring) != 0 else { return nil }
        return overflowLock.withLock { () -> R? in
            guard let entry = overflow[id] else { return nil }
            let (result, flags) = body(entry.interception, entry.flags)
            if let flags {
                overflow[id]!.flags = flags
            } else {
                overflow[id] = nil
                overflowCount.subtract(1, ordering: .relaxed)
            }
            return result
        }
    }

    /// The interception of an open handle, or nil.
    static func find(_ handle: OpaquePointer) -> Interception? {
        with(handle) { interception, flags in (interception, flags) }
    }

    /// A decision through `handle`: its interception (nil: not open).
    /// Closes the handle when its function has returned pending already;
    /// else that return does.
    static func decision(_ handle: OpaquePointer) -> Interception? {
        with(handle) { interception, flags in
            (interception, flags & returnedPending != 0 ? nil : flags | decided)
        }
    }

    /// The interceptor function returned (`pending`: SB_INTERCEPT_PENDING).
    /// Returns whether a decision went through the handle already. Closes
    /// the handle unless it stays open for a decision to come.
    @inline(__always)
    static func functionReturned(_ handle: OpaquePointer, pending: Bool) -> Bool {
        with(handle) { _, flags in
            let wasDecided = flags & decided != 0
            return (wasDecided, pending && !wasDecided ? flags | returnedPending : nil)
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
        guard let interception = CallHandles.decision(handle) else {
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
    let strings = Guarded(CStrings())

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
