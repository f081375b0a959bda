import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Epoch-based reclamation: how `perform` reads the registry without a lock
/// and without touching a shared reference count, and how a writer knows when
/// an object it unlinked can no longer be in use.
///
/// A reader *pins* the current epoch (it writes only its own thread's record),
/// reads, and unpins. A writer that unlinks an object *retires* it; the object
/// is released once the global epoch has advanced twice past its retirement,
/// which happens only after every reader that might have seen it has unpinned
/// (Fraser, "Practical lock-freedom", 2004; the scheme crossbeam-epoch uses).
///
/// Releasing a retired object runs its deinit, which may run user destructors
/// (`free_userdata`, a plugin's `destroy`). That happens outside every lock,
/// either on the thread that retires or on the next thread to unpin.
final class EpochDomain: @unchecked Sendable {
    // @unchecked: `records` and `retired` are only touched under `lock`;
    // everything readers touch is atomic or owned by their thread.

    static let shared = EpochDomain()

    /// What readers touch, reachable without this object (see `EpochPins`).
    let pins: EpochPins
    private var global: UnsafeMutablePointer<Atomic<UInt>> { pins.global }
    private var hasGarbage: UnsafeMutablePointer<Atomic<Bool>> { pins.hasGarbage }
    private let lock = Lock()
    private var records: ThreadRecord?
    private var retired: [(epoch: UInt, object: Unmanaged<AnyObject>)] = []

    private init() {
        var key = pthread_key_t()
        // On thread exit the record is emptied and left for another thread.
        let status = pthread_key_create(&key) { raw in
            guard let raw else { return }
            let record = ThreadRecord(raw)
            record.depth.pointee = 0
            record.observing.pointee = 0
            record.state.pointee.store(0, ordering: .releasing)
            record.inUse.pointee.store(false, ordering: .releasing)
        }
        precondition(status == 0, "Switchboard: out of pthread keys")
        pins = EpochPins(key: key)
    }

    // MARK: Readers

    /// Enters a critical section: registry objects read until the matching
    /// `unpin` stay alive. Nests (an action may perform).
    @inline(__always)
    func pin() -> ThreadRecord { pins.pin() }

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
    /// once no reader can hold it. Callers usually hold a lock here, so this
    /// never runs a destructor itself; call `collect(wait: true)` after
    /// unlocking.
    func retire<T: AnyObject>(_ object: Unmanaged<T>) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        lock.withLock {
            retired.append((global.pointee.load(ordering: .relaxed), Unmanaged<AnyObject>.fromOpaque(object.toOpaque())))
            hasGarbage.pointee.store(true, ordering: .relaxed)
        }
    }

    /// Advances the epoch as far as readers allow and releases what is safe.
    /// `wait: false` gives up at once if another thread is collecting.
    func collect(wait: Bool) {
        if wait { lock.lock() } else if !lock.tryLock() { return }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if tryAdvance() { _ = tryAdvance() }
        let now = global.pointee.load(ordering: .relaxed)
        var ready: [Unmanaged<AnyObject>] = []
        retired.removeAll { item in
            guard item.epoch &+ 2 <= now else { return false }
            ready.append(item.object)
            return true
        }
        hasGarbage.pointee.store(!retired.isEmpty, ordering: .relaxed)
        lock.unlock()
        for object in ready { object.release() }
    }

    /// Objects retired but not yet released (for tests).
    var pendingCount: Int { lock.withLock { retired.count } }

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

    // MARK: Thread records

    /// First use on this thread: reuse a record left by an exited thread, or
    /// make one. Records are never freed; there is one per live thread at most.
    fileprivate func adoptRecord() -> ThreadRecord {
        let record: ThreadRecord = lock.withLock {
            var next = records
            while let candidate = next {
                if candidate.inUse.pointee.compareExchange(expected: false, desired: true,
                                                           ordering: .acquiring).exchanged {
                    return candidate
                }
                next = candidate.next
            }
            // A whole cache line each, so pinning never contends with a neighbour.
            let fresh = ThreadRecord(next: records)
            records = fresh
            return fresh
        }
        (record.stackLow.pointee, record.stackFloor.pointee) = CallDepth.stackReserveOfCallingThread()
        pthread_setspecific(pins.key, record.base)
        return record
    }
}

/// The reader side of the domain: the thread key and two atomics in memory
/// that is never freed. A plain struct, so a hot path that keeps a copy pins
/// and unpins without loading, retaining or releasing any object.
struct EpochPins: @unchecked Sendable {
    // @unchecked: the pointers lead to atomics; the key is immutable.

    let key: pthread_key_t
    /// The global epoch.
    let global: UnsafeMutablePointer<Atomic<UInt>>
    /// Something is retired and waits for collection.
    let hasGarbage: UnsafeMutablePointer<Atomic<Bool>>

    fileprivate init(key: pthread_key_t) {
        self.key = key
        global = .allocate(capacity: 1)
        global.initialize(to: Atomic(0))
        hasGarbage = .allocate(capacity: 1)
        hasGarbage.initialize(to: Atomic(false))
    }

    @inline(__always)
    func pin() -> ThreadRecord {
        let record = pthread_getspecific(key).map(ThreadRecord.init) ?? EpochDomain.shared.adoptRecord()
        if record.depth.pointee == 0 {
            record.state.pointee.store(global.pointee.load(ordering: .relaxed) << 1 | 1, ordering: .relaxed)
            // Pairs with the fence in `collect`: either the collector sees this
            // pin, or this thread's later reads see the writer's unlink.
            atomicMemoryFence(ordering: .sequentiallyConsistent)
        }
        record.depth.pointee &+= 1
        return record
    }

    @inline(__always)
    func unpin(_ record: ThreadRecord) {
        record.depth.pointee &-= 1
        if record.depth.pointee == 0 {
            record.state.pointee.store(0, ordering: .releasing)
            if hasGarbage.pointee.load(ordering: .relaxed) { EpochDomain.shared.collect(wait: false) }
        }
    }
}

/// One thread's view of the epoch: a handle to a cache line of its own.
///
/// Each field is reached through its own pointer, so the owner updating
/// `depth` and a collector reading `state` touch disjoint memory (a Swift
/// struct behind one pointer would be one access to the whole record, which
/// the exclusivity checker and ThreadSanitizer rightly call a race).
struct ThreadRecord {
    let base: UnsafeMutableRawPointer

    // Each field at an offset aligned for its type.
    private static let stateOffset = 0
    private static let depthOffset = aligned(stateOffset + MemoryLayout<Atomic<UInt>>.size, for: Int.self)
    private static let nextOffset = aligned(depthOffset + MemoryLayout<Int>.size, for: UnsafeMutableRawPointer?.self)
    private static let inUseOffset = aligned(nextOffset + MemoryLayout<UnsafeMutableRawPointer?>.size, for: Atomic<Bool>.self)
    private static let stackLowOffset = aligned(inUseOffset + MemoryLayout<Atomic<Bool>>.size, for: UInt.self)
    private static let stackFloorOffset = stackLowOffset + MemoryLayout<UInt>.size
    private static let observingOffset = stackFloorOffset + MemoryLayout<UInt>.size
    private static let size = observingOffset + MemoryLayout<Int>.size

    private static func aligned<T: ~Copyable>(_ offset: Int, for type: T.Type) -> Int {
        let alignment = MemoryLayout<T>.alignment
        return (offset + alignment - 1) / alignment * alignment
    }

    /// A new record for the calling thread, linked before `next`.
    init(next: ThreadRecord?) {
        base = .allocate(byteCount: max(Self.size, 128), alignment: 128)
        (base + Self.stateOffset).initializeMemory(as: Atomic<UInt>.self, to: Atomic(0))
        (base + Self.depthOffset).initializeMemory(as: Int.self, repeating: 0, count: 1)
        (base + Self.inUseOffset).initializeMemory(as: Atomic<Bool>.self, to: Atomic(true))
        (base + Self.nextOffset).initializeMemory(as: UnsafeMutableRawPointer?.self, repeating: next?.base, count: 1)
        (base + Self.stackLowOffset).initializeMemory(as: UInt.self, repeating: 0, count: 2)
        (base + Self.observingOffset).initializeMemory(as: Int.self, repeating: 0, count: 1)
    }

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// 0 outside any critical section, else `(epoch << 1) | 1`.
    var state: UnsafeMutablePointer<Atomic<UInt>> {
        (base + Self.stateOffset).assumingMemoryBound(to: Atomic<UInt>.self)
    }

    /// Nesting of critical sections; touched only by the owning thread.
    /// Every call in progress holds exactly one pin, so this is also the
    /// thread's call depth (see CallDepth.swift).
    var depth: UnsafeMutablePointer<Int> {
        (base + Self.depthOffset).assumingMemoryBound(to: Int.self)
    }

    /// The reserve at the end of the thread's stack, `stackLow ..< stackFloor`,
    /// where no call may start (see CallDepth.swift); set by the owning
    /// thread when it adopts the record.
    var stackLow: UnsafeMutablePointer<UInt> {
        (base + Self.stackLowOffset).assumingMemoryBound(to: UInt.self)
    }

    var stackFloor: UnsafeMutablePointer<UInt> {
        (base + Self.stackFloorOffset).assumingMemoryBound(to: UInt.self)
    }

    /// How many observers are running on the thread (see `Mediator.notify`);
    /// touched only by the owning thread.
    var observing: UnsafeMutablePointer<Int> {
        (base + Self.observingOffset).assumingMemoryBound(to: Int.self)
    }

    /// False once the owning thread has exited.
    var inUse: UnsafeMutablePointer<Atomic<Bool>> {
        (base + Self.inUseOffset).assumingMemoryBound(to: Atomic<Bool>.self)
    }

    /// The next record; immutable once published (under the domain lock).
    var next: ThreadRecord? {
        (base + Self.nextOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee.map(ThreadRecord.init)
    }
}
