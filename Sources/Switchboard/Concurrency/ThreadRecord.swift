import CThreadRecord
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread's state for the epoch scheme and for its calls in progress: a
/// handle to memory of its own (two cache lines), never freed, reused by the
/// next thread once its owner exits.
///
/// Each field is reached through its own pointer, so the owner updating
/// `depth` and a collector reading `state` touch disjoint memory (a Swift
/// struct behind one pointer would be one access to the whole record, which
/// the exclusivity checker and ThreadSanitizer rightly call a race).
///
/// Calls on one thread nest: each level's slots belong to the call at that
/// depth, so calls must return in the reverse order they started (fibers
/// that switch between calls in progress are not supported; switchboard.h).
///
/// The owner alone writes every field; collectors read `state`, the held
/// slots and `deepestHeld`, and set `owesAt`.
struct ThreadRecord {
    let base: UnsafeMutableRawPointer

    /// Call levels that can hold: every level a call may reach
    /// (`CallDepth.limit`), and the refused one above it.
    static let levels = CallDepth.limit + 2
    /// Slots per level: the object owning the running action (a target
    /// entry, or a hook snapshot for the degrade handler), the cached
    /// instance it runs on, the hook snapshot of an intercepted call.
    static let slotsPerLevel = 3

    // Word-sized fields, then the flag.
    private static let stateOffset = 0
    private static let depthOffset = 8
    private static let pinnedOffset = 16
    private static let observingOffset = 24
    private static let stackLowOffset = 32
    private static let stackFloorOffset = 40
    private static let nextOffset = 48
    private static let deepestHeldOffset = 56
    private static let heldOffset = 64
    private static let owesAtOffset = 72
    private static let inUseOffset = 80
    private static let serialOffset = 88
    /// How many calls `Mediator.enterDirect` has entered on this record.
    private static let directCountOffset = 96
    /// `ThreadLocal` words, then the owner's identity for a process with no
    /// thread key left (`EpochDomain.adoptRecord`).
    private static let localsOffset = 104
    private static let ownerOffset = localsOffset + ThreadLocal.allCases.count * 8
    private static let ownerTIDOffset = ownerOffset + 8
    private static let size = ownerTIDOffset + 8

    /// Records made so far: each gets the next number (`serial`).
    private static let made = Atomic<UInt64>(0)

    /// A new record for the calling thread, linked before `next`.
    init(next: ThreadRecord?) {
        precondition(MemoryLayout<Atomic<UInt>>.size == 8 && MemoryLayout<Int>.size == 8)
        precondition(Self.size <= 256)
        base = .allocate(byteCount: max(Self.size, 256), alignment: 128)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: Self.size)
        (base + Self.stateOffset).initializeMemory(as: Atomic<UInt>.self, to: Atomic(0))
        (base + Self.deepestHeldOffset).initializeMemory(as: Atomic<Int>.self, to: Atomic(0))
        (base + Self.heldOffset).initializeMemory(as: UnsafeMutablePointer<Atomic<UInt>>.self,
                                                   repeating: Self.mapHeldSlots(), count: 1)
        (base + Self.inUseOffset).initializeMemory(as: Atomic<Bool>.self, to: Atomic(true))
        (base + Self.owesAtOffset).initializeMemory(as: Atomic<Int>.self, to: Atomic(0))
        (base + Self.nextOffset).initializeMemory(as: UnsafeMutableRawPointer?.self, repeating: next?.base, count: 1)
        (base + Self.serialOffset).initializeMemory(
            as: UInt64.self, repeating: Self.made.add(1, ordering: .relaxed).newValue, count: 1)
    }

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// 0 outside any critical section, else `(epoch << 1) | 1`.
    var state: UnsafeMutablePointer<Atomic<UInt>> {
        (base + Self.stateOffset).assumingMemoryBound(to: Atomic<UInt>.self)
    }

    /// Calls in progress on the thread, across all mediators (CallDepth.swift).
    var depth: UnsafeMutablePointer<Int> {
        (base + Self.depthOffset).assumingMemoryBound(to: Int.self)
    }

    /// Nesting of critical sections (a lookup that runs a discoverer, which
    /// performs, pins again).
    var pinned: UnsafeMutablePointer<Int> {
        (base + Self.pinnedOffset).assumingMemoryBound(to: Int.self)
    }

    /// How many observers are running on the thread (see `Mediator.notify`).
    var observing: UnsafeMutablePointer<Int> {
        (base + Self.observingOffset).assumingMemoryBound(to: Int.self)
    }

    /// The reserve at the end of the thread's stack, `stackLow ..< stackFloor`,
    /// where no call may start (see CallDepth.swift).
    var stackLow: UnsafeMutablePointer<UInt> {
        (base + Self.stackLowOffset).assumingMemoryBound(to: UInt.self)
    }

    var stackFloor: UnsafeMutablePointer<UInt> {
        (base + Self.stackFloorOffset).assumingMemoryBound(to: UInt.self)
    }

    /// The deepest level whose slots were ever set: how far a collector looks.
    var deepestHeld: UnsafeMutablePointer<Atomic<Int>> {
        (base + Self.deepestHeldOffset).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// This record's number, distinct from every other record's (records
    /// are never freed; a thread that exits hands its record to a later one).
    var serial: UInt64 {
        (base + Self.serialOffset).assumingMemoryBound(to: UInt64.self).pointee
    }

    /// The next number for a call `Mediator.enterDirect` enters (from 1).
    func nextDirectNumber() -> UInt64 {
        let count = (base + Self.directCountOffset).assumingMemoryBound(to: UInt64.self)
        count.pointee &+= 1
        return count.pointee
    }

    /// What `Mediator.enterDirect` keeps for the call in progress at
    /// `level` (0..<levels), two words: its number (0 when the call there
    /// was not entered directly) and its face's note. Only the owning
    /// thread reads and writes them.
    @inline(__always)
    func directCall(at level: Int) -> UnsafeMutablePointer<UInt64> {
        precondition(level >= 0 && level < Self.levels, "Switchboard: call level beyond the depth limit")
        return UnsafeMutableRawPointer(held + Self.levels * Self.slotsPerLevel)
            .assumingMemoryBound(to: UInt64.self) + 2 * level
    }

    /// The `ThreadLocal` word `local` of the owning thread.
    @inline(__always)
    func local(_ local: ThreadLocal) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        (base + Self.localsOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self) + local.rawValue
    }

    /// Without a thread key only: the owner's `pthread_self()` and kernel
    /// thread id (0 while the record is found through the key).
    var owner: UnsafeMutablePointer<UInt> {
        (base + Self.ownerOffset).assumingMemoryBound(to: UInt.self)
    }

    var ownerTID: UnsafeMutablePointer<Int> {
        (base + Self.ownerTIDOffset).assumingMemoryBound(to: Int.self)
    }

    /// False once the owning thread has exited.
    var inUse: UnsafeMutablePointer<Atomic<Bool>> {
        (base + Self.inUseOffset).assumingMemoryBound(to: Atomic<Bool>.self)
    }

    /// The deepest call level a collector marked as holding a retired
    /// object it had to keep (0: none): the call at that level collects as
    /// it returns, so what it held is released then (or marked again for a
    /// shallower call still holding it), not at the next change.
    var owesAt: UnsafeMutablePointer<Atomic<Int>> {
        (base + Self.owesAtOffset).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// The next record; immutable once published (under the domain lock).
    var next: ThreadRecord? {
        (base + Self.nextOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee.map(ThreadRecord.init)
    }

    /// The held slots, `slotsPerLevel` per call level; immutable.
    var held: UnsafeMutablePointer<Atomic<UInt>> {
        (base + Self.heldOffset).assumingMemoryBound(to: UnsafeMutablePointer<Atomic<UInt>>.self).pointee
    }

    /// The slots of call level `level`.
    @inline(__always)
    func slots(at level: Int) -> UnsafeMutablePointer<Atomic<UInt>> {
        precondition(level < Self.levels, "Switchboard: call level beyond the depth limit")
        return held + level * Self.slotsPerLevel
    }

    /// Zeroed memory for every level's slots, then every level's direct
    /// call words (`directCall(at:)`), mapped so that the pages of levels no
    /// call reaches are never touched (24 + 16 KiB reserved; 4 KiB of slots
    /// used by calls up to 170 deep; the direct words, from byte 24,048, are
    /// written by direct calls and, on thread exit, up to the depth it left
    /// at). Zero bytes are a valid `Atomic<UInt>` 0.
    private static func mapHeldSlots() -> UnsafeMutablePointer<Atomic<UInt>> {
        let slotBytes = levels * slotsPerLevel * MemoryLayout<Atomic<UInt>>.stride
        let memory = mmap(nil, slotBytes + levels * 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        precondition(memory != MAP_FAILED && memory != nil, "Switchboard: out of memory for a thread record")
        (memory! + slotBytes).bindMemory(to: UInt64.self, capacity: levels * 2)
        return memory!.bindMemory(to: Atomic<UInt>.self, capacity: levels * slotsPerLevel)
    }

    /// Calls `body` with every object this thread holds now and the call
    /// level holding it (a collector's view).
    func forEachHeld(_ body: (_ object: UInt, _ level: Int) -> Void) {
        let deepest = min(deepestHeld.pointee.load(ordering: .acquiring), Self.levels - 1)
        guard deepest > 0 else { return }
        for slot in 0..<((deepest + 1) * Self.slotsPerLevel) {
            let object = (held + slot).pointee.load(ordering: .acquiring)
            if object != 0 { body(object, slot / Self.slotsPerLevel) }
        }
    }
}

extension ThreadRecord {
    /// The calling thread's record: from its thread-local variable
    /// (thread_record.h), or adopted at its first use on this thread.
    @inline(__always)
    static var current: ThreadRecord {
        if let raw = sb__thread_record_get() { return ThreadRecord(raw) }
        return adopted()
    }

    // Apart, so that the optimizer does not hoist the domain's lazy
    // initialization (a swift_once) above the test.
    @inline(never)
    private static func adopted() -> ThreadRecord { EpochDomain.shared.adoptRecord() }

    /// Makes `raw` the calling thread's record, under the domain's key too
    /// (whose destructor reports the thread's exit). Without a key, the
    /// thread-local variable stays NULL: every lookup then goes by owner.
    static func setCurrent(_ raw: UnsafeMutableRawPointer?, key: pthread_key_t) {
        guard key != EpochPins.noKey else { return }
        pthread_setspecific(key, raw)
        sb__thread_record_set(raw)
    }
}

/// Per-thread words kept in the thread's record instead of under a pthread
/// key each: the library needs one key (the record's), and can work without
/// any when the host has used them all (`EpochDomain.adoptRecord`).
enum ThreadLocal: Int, CaseIterable {
    /// `Deferral.Taken`, retained (released as the thread exits).
    case deferral
    /// `DiscoveriesInProgress.Searches`, retained, while a search runs.
    case discoveries
    /// `LocalRefusal`'s mark.
    case refusal
    /// `CurrentCall.Frame`, unretained, while a call with options runs.
    case callFrame

    /// The calling thread's word.
    @inline(__always)
    var value: UnsafeMutableRawPointer? {
        get { ThreadRecord.current.local(self).pointee }
        nonmutating set { ThreadRecord.current.local(self).pointee = newValue }
    }
}
