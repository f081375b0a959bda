import CThreadRecord
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Epoch-based reclamation, with the objects a running call uses held:
/// how `perform` reads the registry without a lock and without touching a
/// shared reference count, and how a writer knows when an object it
/// unlinked can no longer be in use.
///
/// A lookup *pins* the current epoch (it writes only its own thread's
/// record), reads, and unpins. A writer that unlinks an object *retires* it;
/// the object is released once the global epoch has advanced twice past its
/// retirement, which happens only after every lookup that might have seen it
/// has unpinned (Fraser, "Practical lock-freedom", 2004; the scheme
/// crossbeam-epoch uses).
///
/// A call pins only while it looks up. Before it unpins and runs user code it
/// *holds* what it found, in its thread's slot for its call level (the entry
/// that owns the action, the cached instance, the hook snapshot): a plain
/// store to memory of its own, no shared count. A retired object that some
/// thread holds is kept past its epochs until that call returns (its thread
/// then collects, see `leaveCall`); everything else is released on time, so
/// a call that runs for hours keeps only the few objects it uses, and never
/// delays reclamation for another call or another mediator (hazard pointers,
/// Michael 2004, published before leaving the critical section).
///
/// Releasing a retired object runs its deinit, which may run user destructors
/// (`free_userdata`, a plugin's `destroy`). That happens outside every lock,
/// on a thread that collects: the one that retires, the next one to unpin,
/// or the one whose call held the object, as that call returns.
final class EpochDomain: @unchecked Sendable {
    // @unchecked: `records` and `retired` are only touched under `lock`;
    // everything readers touch is atomic or owned by their thread.

    static let shared = EpochDomain()

    /// What readers touch, reachable without this object (see `EpochPins`).
    let pins: EpochPins
    private var global: UnsafeMutablePointer<Atomic<UInt>> { pins.global }
    private var hasGarbage: UnsafeMutablePointer<Atomic<Bool>> { pins.hasGarbage }
    private let lock = Lock()
    // Unchecked: both are touched only under `lock` (a collect runs on every
    // asynchronous answer; the runtime's access checks were a tenth of it).
    @exclusivity(unchecked) private var records: ThreadRecord?
    @exclusivity(unchecked) private var retired: [(epoch: UInt, object: Unmanaged<AnyObject>)] = []
    /// Extra references to let go of off the caller's stack (`releaseLater`).
    @exclusivity(unchecked) private var releases: [Unmanaged<AnyObject>] = []

    private init() {
        var key = pthread_key_t()
        // On thread exit the record is emptied and left for another thread.
        let status = pthread_key_create(&key) { raw in
            guard let raw else { return }
            // Back under the key while the thread's words are let go: what
            // that runs (completions answered, objects retired) may look
            // the record up.
            ThreadRecord.setCurrent(raw, key: EpochDomain.shared.pins.key)
            EpochDomain.threadExited(ThreadRecord(raw))
            ThreadRecord.setCurrent(nil, key: EpochDomain.shared.pins.key)
        }
        // With no key left (the host used them all), records are found by
        // their owner instead (`adoptRecord`): slower, never a trap.
        pins = EpochPins(key: status == 0 ? key : EpochPins.noKey)
    }

    /// Empties the record of a thread that exited (by its key's destructor,
    /// or found dead by `adoptRecord`) and leaves it for another thread.
    fileprivate static func threadExited(_ record: ThreadRecord) {
        release(emptied(record))
    }

    /// What an exited thread's record held that may run code as it is let
    /// go (completions it took, its discoveries), taken out of the record.
    fileprivate struct Leftovers {
        var deferral: UnsafeMutableRawPointer?
        var discoveries: UnsafeMutableRawPointer?
    }

    /// Empties `record` and marks it free; returns what must still be let
    /// go (`release`, outside any lock of the domain's: it may retire).
    fileprivate static func emptied(_ record: ThreadRecord) -> Leftovers {
        let leftovers = Leftovers(deferral: record.local(.deferral).pointee,
                                  discoveries: record.local(.discoveries).pointee)
        for local in ThreadLocal.allCases { record.local(local).pointee = nil }
        // Direct calls the thread never left (it exited inside one): a
        // later thread gets this record and its serial, and an old
        // ticket must not end a call of its at the same level.
        for level in 0...min(max(record.depth.pointee, 0), ThreadRecord.levels - 1) {
            record.directCall(at: level)[0] = 0
        }
        record.depth.pointee = 0
        record.pinned.pointee = 0
        record.observing.pointee = 0
        for slot in 0..<(ThreadRecord.levels * ThreadRecord.slotsPerLevel) {
            (record.held + slot).pointee.store(0, ordering: .releasing)
        }
        record.owesAt.pointee.store(0, ordering: .relaxed)
        record.deepestHeld.pointee.store(0, ordering: .relaxed)
        record.owner.pointee = 0
        record.ownerTID.pointee = 0
        record.state.pointee.store(0, ordering: .releasing)
        record.inUse.pointee.store(false, ordering: .releasing)
        return leftovers
    }

    fileprivate static func release(_ leftovers: Leftovers) {
        if let taken = leftovers.deferral { Deferral.threadExiting(taken) }
        if let searches = leftovers.discoveries { Unmanaged<AnyObject>.fromOpaque(searches).release() }
    }

    // MARK: Readers

    /// Enters a critical section outside any call (a registry read that runs
    /// no user code). Nests.
    @inline(__always)
    func pin() -> ThreadRecord {
        let record = pins.record()
        pins.pin(record)
        return record
    }

    @inline(__always)
    func unpin(_ record: ThreadRecord) { pins.unpin(record) }

    @inline(__always)
    func withPinned<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let record = pin()
        defer { unpin(record) }
        return try body()
    }

    // MARK: Writers

    /// Takes over one strong reference to an object that is no longer
    /// reachable from shared memory. It is released by a later `collect`,
    /// once no lookup can see it and no call holds it. Callers usually hold
    /// a lock here, so this never runs a destructor itself; call
    /// `collect(wait: true)` after unlocking.
    func retire<T: AnyObject>(_ object: Unmanaged<T>) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        lock.withLock {
            retired.append((global.pointee.load(ordering: .relaxed), Unmanaged<AnyObject>.fromOpaque(object.toOpaque())))
            hasGarbage.pointee.store(true, ordering: .relaxed)
        }
    }

    /// Takes over one strong reference that is not the object's only way in
    /// (a pending call's hold on its target, what a delivery's layers kept)
    /// and that must not be let go on this stack: it may be the last one
    /// now, and its release may run a host's destructor where it must not
    /// (inside a completion). The next `collect`, on a thread that enters
    /// the library, releases it. Unlike `retire`, no epoch or call has to
    /// end first: whatever reached the object through shared memory holds
    /// a reference of its own, or a retirement that waits for readers.
    func releaseLater(_ object: Unmanaged<AnyObject>) {
        lock.withLock {
            releases.append(object)
            hasGarbage.pointee.store(true, ordering: .relaxed)
        }
    }

    /// `releaseLater` of two objects' bits (0: none), under one hold of the lock.
    func releaseLater(_ first: UInt, _ second: UInt) {
        guard first != 0 || second != 0 else { return }
        lock.withLock {
            // One by one: an array literal here would be an allocation per call.
            if let object = UnsafeRawPointer(bitPattern: first) { releases.append(.fromOpaque(object)) }
            if let object = UnsafeRawPointer(bitPattern: second) { releases.append(.fromOpaque(object)) }
            hasGarbage.pointee.store(true, ordering: .relaxed)
        }
    }

    /// Advances the epoch as far as readers allow and releases what is safe.
    /// `wait: false` gives up at once if another thread is collecting.
    func collect(wait: Bool) {
        if wait { lock.lock() } else if !lock.tryLock() { return }
        // The first few objects to release go in a buffer on the stack, the
        // rest (a burst of retirements) in an array: the path every
        // asynchronous answer takes allocates nothing.
        let inline = 16
        withUnsafeTemporaryAllocation(of: Unmanaged<AnyObject>.self, capacity: inline) { first in
            var count = 0
            var more: [Unmanaged<AnyObject>] = []
            // Popped, not removed all at once: the array keeps its storage
            // (`removeAll(keepingCapacity:)` costs more than the few pops).
            while let object = releases.popLast() {
                if count < inline { first.initializeElement(at: count, to: object) } else { more.append(object) }
                count += 1
            }
            // Only retirements wait for epochs: with none, no need to advance.
            if retired.isEmpty {
                hasGarbage.pointee.store(false, ordering: .relaxed)
                lock.unlock()
                for i in 0..<min(count, inline) { first[i].release() }
                for object in more { object.release() }
                return
            }
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if tryAdvance() { _ = tryAdvance() }
            let now = global.pointee.load(ordering: .relaxed)
            if retired.contains(where: { $0.epoch &+ 2 <= now }) {
                withUnsafeTemporaryAllocation(of: HeldObjects.Entry.self, capacity: HeldObjects.few) { buffer in
                    let held = HeldObjects(records, buffer: buffer)
                    retired.removeAll { item in
                        guard item.epoch &+ 2 <= now else { return false }
                        if let (holder, level) = held.holder(of: UInt(bitPattern: item.object.toOpaque())) {
                            // That call collects as it returns (or the next change does).
                            if holder.owesAt.pointee.load(ordering: .relaxed) < level {
                                holder.owesAt.pointee.store(level, ordering: .relaxed)
                            }
                            return false
                        }
                        if count < inline { first.initializeElement(at: count, to: item.object) } else { more.append(item.object) }
                        count += 1
                        return true
                    }
                }
            }
            // Only what waits for epochs makes every unpin try again; what a
            // call holds waits for that call.
            hasGarbage.pointee.store(retired.contains { $0.epoch &+ 2 > now }, ordering: .relaxed)
            lock.unlock()
            for i in 0..<min(count, inline) { first[i].release() }
            for object in more { object.release() }
        }
    }

    /// Objects retired or handed to `releaseLater`, not yet released (for tests).
    var pendingCount: Int { lock.withLock { retired.count + releases.count } }

    /// Moves the epoch on if every pinned thread has seen the current one.
    private func tryAdvance() -> Bool {
        let now = global.pointee.load(ordering: .relaxed)
        var next = records
        while let record = next {
            let state = record.state.pointee.load(ordering: .acquiring)
            if state & 1 == 1 && state >> 1 != now { return false }
            next = record.next
        }
        global.pointee.store(now &+ 1, ordering: .releasing)
        return true
    }

    /// Every object some call holds now, with a thread and level that hold
    /// it (the first found). A thread publishes what it holds before it
    /// unpins, and this is read after seeing it unpinned (acquire), so
    /// nothing a call still uses is missed. Calls hold a few objects each:
    /// the first `few` go in a buffer the collector keeps on its stack,
    /// searched in turn; past them, all go in a dictionary.
    private struct HeldObjects {
        typealias Entry = (object: UInt, record: ThreadRecord, level: Int)
        static let few = 32
        private let buffer: UnsafeMutableBufferPointer<Entry>
        private var count = 0
        private var many: [UInt: (ThreadRecord, level: Int)]?

        init(_ records: ThreadRecord?, buffer: UnsafeMutableBufferPointer<Entry>) {
            self.buffer = buffer
            var next = records
            while let record = next {
                record.forEachHeld { add($0, record, $1) }
                next = record.next
            }
        }

        private mutating func add(_ object: UInt, _ record: ThreadRecord, _ level: Int) {
            if many == nil {
                if count < buffer.count {
                    buffer.initializeElement(at: count, to: (object, record, level))
                    count += 1
                    return
                }
                var all: [UInt: (ThreadRecord, level: Int)] = Dictionary(minimumCapacity: 2 * count)
                for entry in buffer[..<count] where all[entry.object] == nil { all[entry.object] = (entry.record, entry.level) }
                many = all
            }
            if many![object] == nil { many![object] = (record, level) }
        }

        func holder(of object: UInt) -> (ThreadRecord, level: Int)? {
            if let many { return many[object] }
            for entry in buffer[..<count] where entry.object == object { return (entry.record, entry.level) }
            return nil
        }
    }

    // MARK: Thread records

    /// First use on this thread: reuse a record left by an exited thread, or
    /// make one. Records are never freed; there is one per live thread at most.
    func adoptRecord() -> ThreadRecord {
        if pins.key == EpochPins.noKey { return adoptRecordWithoutKey() }
        let record: ThreadRecord = lock.withLock {
            var next = records
            while let candidate = next {
                if candidate.inUse.pointee.compareExchange(expected: false, desired: true,
                                                           ordering: .acquiring).exchanged {
                    return candidate
                }
                next = candidate.next
            }
            let fresh = ThreadRecord(next: records)
            records = fresh
            return fresh
        }
        (record.stackLow.pointee, record.stackFloor.pointee) = CallDepth.stackReserveOfCallingThread()
        ThreadRecord.setCurrent(record.base, key: pins.key)
        return record
    }

    /// `adoptRecord` in a process that had no thread key left for the
    /// domain: every lookup comes here (a lock and a walk of the records).
    /// A record is the calling thread's when it names it as owner; one
    /// whose owner thread is gone (no destructor told us) is emptied and
    /// reused.
    private func adoptRecordWithoutKey() -> ThreadRecord {
        #if canImport(Darwin)
        let me = UInt(bitPattern: pthread_self())
        #else
        let me = UInt(pthread_self())
        #endif
        // A thread is known by its pthread_t and its kernel id together: a
        // new thread often gets the pthread_t of one that exited (glibc
        // reuses their memory), whose record must not pass for its own
        // while a later adopter, seeing that id dead, empties it.
        let tid = Self.thisThreadID()
        var leftovers: [Leftovers] = []
        let (record, fresh): (ThreadRecord, Bool) = lock.withLock {
            var next = records
            while let candidate = next {
                if candidate.owner.pointee == me && candidate.inUse.pointee.load(ordering: .acquiring) {
                    if candidate.ownerTID.pointee == tid { return (candidate, false) }
                    // A forked child's only thread (its id is the process's)
                    // goes on with the calls it was in, as with a key: the
                    // record is its own.
                    if tid != 0 && tid == Int(getpid()) {
                        candidate.ownerTID.pointee = tid
                        return (candidate, false)
                    }
                    // An exited thread's, under the same pthread_t.
                    leftovers.append(Self.emptied(candidate))
                }
                next = candidate.next
            }
            next = records
            while let candidate = next {
                if candidate.inUse.pointee.load(ordering: .acquiring) && candidate.ownerTID.pointee != 0
                    && !Self.threadLives(candidate.ownerTID.pointee) {
                    leftovers.append(Self.emptied(candidate))
                }
                if candidate.inUse.pointee.compareExchange(expected: false, desired: true,
                                                           ordering: .acquiring).exchanged {
                    (candidate.owner.pointee, candidate.ownerTID.pointee) = (me, tid)
                    return (candidate, true)
                }
                next = candidate.next
            }
            let made = ThreadRecord(next: records)
            (made.owner.pointee, made.ownerTID.pointee) = (me, tid)
            records = made
            return (made, true)
        }
        // Outside the lock: letting go of a completion may retire objects.
        for leftover in leftovers { Self.release(leftover) }
        if fresh {
            (record.stackLow.pointee, record.stackFloor.pointee) = CallDepth.stackReserveOfCallingThread()
        }
        return record
    }

    /// The kernel's id of the calling thread (glibc's `gettid`, which the
    /// Glibc module hides; else "/proc/thread-self", which links to
    /// "PID/task/TID"), or 0 where neither can be read.
    private static func thisThreadID() -> Int {
        if let gettid = gettidFunction { return Int(gettid()) }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard length > 0 else { return 0 }
        let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.split(separator: "/").last.flatMap { Int($0) } ?? 0
    }

    private static let gettidFunction: (@convention(c) () -> pid_t)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gettid") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> pid_t).self)
    }()

    /// Whether thread `tid` of this process still runs: tgkill(2) with no
    /// signal, which fails with ESRCH once it exited. Where the C library
    /// has no tgkill, its entry under /proc; where neither can tell (no
    /// /proc: a chroot, a container), it is taken to run, so that a live
    /// thread's record is never emptied under it (an exited one's is then
    /// kept: memory, not a wrong answer).
    private static func threadLives(_ tid: Int) -> Bool {
        if let tgkill = tgkillFunction {
            return tgkill(getpid(), pid_t(truncatingIfNeeded: tid), 0) == 0 || errno != ESRCH
        }
        guard access("/proc/self/task", F_OK) == 0 else { return true }
        return access("/proc/self/task/\(tid)", F_OK) == 0
    }

    private static let tgkillFunction: (@convention(c) (pid_t, pid_t, CInt) -> CInt)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "tgkill") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, pid_t, CInt) -> CInt).self)
    }()
}

/// The reader side of the domain: the thread key and two atomics in memory
/// that is never freed. A plain struct, so a hot path that keeps a copy pins
/// and unpins without loading, retaining or releasing any object.
///
/// A call runs as:
///
///     let record = pins.enterCall()        // one more call on this thread
///     defer { pins.leaveCall(record) }
///     pins.pin(record)                     // look up, borrowing
///     record.hold(owner: entry, instance: instance)
///     pins.unpin(record)
///     ... run the action: what it uses is held, not pinned ...
struct EpochPins: @unchecked Sendable {
    // @unchecked: the pointers lead to atomics; the key is immutable.

    let key: pthread_key_t
    /// The global epoch.
    let global: UnsafeMutablePointer<Atomic<UInt>>
    /// Something retired waits for the epoch to move on.
    let hasGarbage: UnsafeMutablePointer<Atomic<Bool>>

    /// The key when none could be made: pthread_getspecific gives NULL for
    /// it, and `adoptRecord` finds records by owner.
    static let noKey = pthread_key_t.max

    fileprivate init(key: pthread_key_t) {
        self.key = key
        global = .allocate(capacity: 1)
        global.initialize(to: Atomic(0))
        hasGarbage = .allocate(capacity: 1)
        hasGarbage.initialize(to: Atomic(false))
    }

    /// The calling thread's record.
    @inline(__always)
    func record() -> ThreadRecord { ThreadRecord.current }

    /// Starts one more call in progress on this thread; check
    /// `CallDepth.exceeded` next.
    @inline(__always)
    func enterCall() -> ThreadRecord {
        let record = record()
        record.depth.pointee &+= 1
        return record
    }

    /// Ends the call `enterCall` started: drops what it held, and collects
    /// if a collector kept something because of it.
    @inline(__always)
    func leaveCall(_ record: ThreadRecord) {
        let level = record.depth.pointee
        Deferral.leaving(level)
        record.depth.pointee = level &- 1
        if level < ThreadRecord.levels {
            // Releasing: the call's last uses of what it held come first.
            let slots = record.held + level * ThreadRecord.slotsPerLevel
            slots[0].store(0, ordering: .releasing)
            slots[1].store(0, ordering: .releasing)
            slots[2].store(0, ordering: .releasing)
        }
        if record.owesAt.pointee.load(ordering: .relaxed) >= level { settle(record) }
    }

    /// A collector kept something this call held: release it now. (What
    /// shallower calls still hold is marked again for them.)
    @inline(never)
    private func settle(_ record: ThreadRecord) {
        guard record.pinned.pointee == 0 else { return } // a later leave settles
        record.owesAt.pointee.store(0, ordering: .relaxed)
        EpochDomain.shared.collect(wait: true)
    }

    /// Runs `body` (user code a lookup must run: a discoverer, a target's
    /// constructor) outside every critical section of the thread, then
    /// enters again: a constructor that runs for hours holds back nothing.
    /// References borrowed before are not valid after, unless held.
    func unpinned<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let record = record()
        let nesting = record.pinned.pointee
        guard nesting > 0 else { return try body() }
        record.pinned.pointee = 0
        record.state.pointee.store(0, ordering: .releasing)
        defer {
            record.pinned.pointee = nesting
            record.state.pointee.store(global.pointee.load(ordering: .relaxed) << 1 | 1, ordering: .releasing)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        }
        return try body()
    }

    /// Enters a critical section: registry objects read until the matching
    /// `unpin` stay alive. Nests (a lookup may run a discoverer that performs).
    @inline(__always)
    func pin(_ record: ThreadRecord) {
        record.pinned.pointee &+= 1
        if record.pinned.pointee == 1 {
            // Releasing, so that a collector that sees this state also sees
            // what the thread held before (see `EpochDomain.HeldObjects`).
            record.state.pointee.store(global.pointee.load(ordering: .relaxed) << 1 | 1, ordering: .releasing)
            // Pairs with the fence in `collect`: either the collector sees this
            // pin, or this thread's later reads see the writer's unlink.
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        }
    }

    @inline(__always)
    func unpin(_ record: ThreadRecord) {
        record.pinned.pointee &-= 1
        if record.pinned.pointee == 0 {
            record.state.pointee.store(0, ordering: .releasing)
            if hasGarbage.pointee.load(ordering: .relaxed) { EpochDomain.shared.collect(wait: false) }
        }
    }
}

extension ThreadRecord {
    /// Holds, for the current call level, what the call found while pinned
    /// and goes on using after it unpins: the object that owns its action
    /// (a target entry or a hook snapshot) and the cached instance it runs
    /// on. Call before `unpin`.
    @inline(__always)
    func hold(owner: UnsafeMutableRawPointer?, instance: UnsafeMutableRawPointer?) {
        let level = depth.pointee
        let slots = slots(at: level)
        slots[0].store(UInt(bitPattern: owner), ordering: .relaxed)
        slots[1].store(UInt(bitPattern: instance), ordering: .relaxed)
        noteHeld(level)
    }

    /// The action of the current call level has returned: the object that
    /// owns it is let go, so that what the call runs after it (an observer's
    /// end event, a URL call's completion, an owned instance's destructor)
    /// is no action and takes no completion (`Deferral.takeID`, which would
    /// open one that nobody gets, and tell its completer "given"). After
    /// `hold` at the same level, which checked it.
    @inline(__always)
    func actionReturned() {
        // Releasing: the action's last uses of its owner come first.
        (held + depth.pointee &* ThreadRecord.slotsPerLevel).pointee.store(0, ordering: .releasing)
    }

    /// Holds the hook snapshot of an intercepted call for its current level.
    @inline(__always)
    func hold(hooks: UnsafeMutableRawPointer) {
        let level = depth.pointee
        slots(at: level)[2].store(UInt(bitPattern: hooks), ordering: .relaxed)
        noteHeld(level)
    }

    @inline(__always)
    private func noteHeld(_ level: Int) {
        if level > deepestHeld.pointee.load(ordering: .relaxed) {
            deepestHeld.pointee.store(level, ordering: .releasing)
        }
    }
}
