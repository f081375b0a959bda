import Synchronization

/// Target name → entry, read without locks.
///
/// Open addressing over atomic cells. Readers (pinned in the epoch) load a
/// cell and use the entry it points to; writers (holding the mediator's lock)
/// publish a fully built entry with one release store, and collect what they
/// unlink in `unlinked`, which the mediator retires once the change is
/// complete. Growing builds a new cell array and publishes it the same way.
/// Lookups cost the same at 10 or 100,000 targets.
final class TargetTable: @unchecked Sendable {
    // @unchecked: `current` is atomic; `Cells` counters are touched only by
    // writers under the mediator's lock.

    /// Cell values other than entry addresses.
    private static let empty: UInt = 0
    private static let tombstone: UInt = 1

    /// `Unmanaged<Cells>` bits; the table holds one strong reference.
    private let current: Atomic<UInt>
    /// Objects unlinked by writers and not yet retired (writer lock held);
    /// each holds the table's former strong reference.
    var unlinked: [Unmanaged<AnyObject>] = []

    init() {
        current = Atomic(UInt(bitPattern: Unmanaged.passRetained(Cells(capacity: 16)).toOpaque()))
    }

    deinit {
        // The mediator is gone, so no reader can be here.
        for object in unlinked { object.release() }
        let cells = Unmanaged<Cells>.fromOpaque(UnsafeRawPointer(bitPattern: current.load(ordering: .acquiring))!)
        Borrowed(cells).read { $0.forEachEntry { $0.release() } }
        cells.release()
    }

    // MARK: Readers (pinned)

    @inline(__always)
    func find(_ key: NameRef) -> Unmanaged<TargetEntry>? {
        let cells = Unmanaged<Cells>.fromOpaque(UnsafeRawPointer(bitPattern: current.load(ordering: .acquiring))!)
        return Borrowed(cells).read { $0.find(key) }
    }

    // MARK: Writers (mediator lock held)

    /// Publishes `entry` under its name, replacing and retiring any previous one.
    func put(_ entry: TargetEntry) {
        var cells = currentCells
        if cells.used + 1 > cells.capacity / 2 {
            cells = grow(cells)
        }
        let key = entry.name.ref
        let bits = UInt(bitPattern: Unmanaged.passRetained(entry).toOpaque())
        var i = key.slot(mask: cells.mask)
        var reusable: Int?
        while true {
            let cell = cells.cells[i].load(ordering: .relaxed)
            if cell == Self.empty { break }
            if cell == Self.tombstone {
                if reusable == nil { reusable = i }
            } else if Borrowed(Cells.entry(cell)).read({ $0.name.matches(key) }) {
                cells.cells[i].store(bits, ordering: .releasing)
                unlink(Cells.entry(cell))
                return
            }
            i = (i + 1) & cells.mask
        }
        if let reusable {
            cells.cells[reusable].store(bits, ordering: .releasing)
        } else {
            cells.cells[i].store(bits, ordering: .releasing)
            cells.used += 1
        }
        cells.live += 1
    }

    /// Unlinks and retires the entry under `name`. Returns false if there was none.
    @discardableResult
    func remove(_ key: NameRef) -> Bool {
        let cells = currentCells
        var i = key.slot(mask: cells.mask)
        while true {
            let cell = cells.cells[i].load(ordering: .relaxed)
            if cell == Self.empty { return false }
            if cell != Self.tombstone, Borrowed(Cells.entry(cell)).read({ $0.name.matches(key) }) {
                cells.cells[i].store(Self.tombstone, ordering: .releasing)
                cells.live -= 1
                unlink(Cells.entry(cell))
                return true
            }
            i = (i + 1) & cells.mask
        }
    }

    /// Every live entry (writer side: for listings and teardown).
    func entries() -> [TargetEntry] {
        var out: [TargetEntry] = []
        currentCells.forEachEntry { out.append($0.takeUnretainedValue()) }
        return out
    }

    var count: Int { currentCells.live }

    private var currentCells: Cells {
        Unmanaged<Cells>.fromOpaque(UnsafeRawPointer(bitPattern: current.load(ordering: .relaxed))!).takeUnretainedValue()
    }

    /// Moves the live entries into a new array (twice as big unless most of
    /// the old one is tombstones), publishes it, and retires the old array.
    private func grow(_ old: Cells) -> Cells {
        let capacity = old.live * 4 > old.capacity ? old.capacity * 2 : old.capacity
        let fresh = Cells(capacity: capacity)
        old.forEachEntry { entry in
            let key = Borrowed(entry).read { $0.name.ref }
            var i = key.slot(mask: fresh.mask)
            while fresh.cells[i].load(ordering: .relaxed) != Self.empty { i = (i + 1) & fresh.mask }
            fresh.cells[i].store(UInt(bitPattern: entry.toOpaque()), ordering: .relaxed)
            fresh.used += 1
            fresh.live += 1
        }
        // The entries' strong references move to `fresh`; the old array is
        // retired empty-handed (its deinit releases no entries).
        let oldBits = current.exchange(UInt(bitPattern: Unmanaged.passRetained(fresh).toOpaque()), ordering: .acquiringAndReleasing)
        unlink(Unmanaged<Cells>.fromOpaque(UnsafeRawPointer(bitPattern: oldBits)!))
        return fresh
    }

    private func unlink<T: AnyObject>(_ object: Unmanaged<T>) {
        unlinked.append(Unmanaged<AnyObject>.fromOpaque(object.toOpaque()))
    }

    /// One generation of the cell array.
    final class Cells: @unchecked Sendable {
        let capacity: Int
        let mask: Int
        let cells: UnsafeMutablePointer<Atomic<UInt>>
        var used = 0
        var live = 0

        init(capacity: Int) {
            self.capacity = capacity
            mask = capacity - 1
            cells = .allocate(capacity: capacity)
            for i in 0..<capacity { (cells + i).initialize(to: Atomic(TargetTable.empty)) }
        }

        deinit {
            cells.deinitialize(count: capacity)
            cells.deallocate()
        }

        static func entry(_ bits: UInt) -> Unmanaged<TargetEntry> {
            Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        }

        @inline(__always)
        func find(_ key: NameRef) -> Unmanaged<TargetEntry>? {
            var i = key.slot(mask: mask)
            while true {
                let cell = cells[i].load(ordering: .acquiring)
                if cell == TargetTable.empty { return nil }
                if cell != TargetTable.tombstone {
                    let entry = Cells.entry(cell)
                    if Borrowed(entry).read({ $0.name.matches(key) }) { return entry }
                }
                i = (i + 1) & mask
            }
        }

        func forEachEntry(_ body: (Unmanaged<TargetEntry>) -> Void) {
            for i in 0..<capacity {
                let cell = cells[i].load(ordering: .relaxed)
                if cell != TargetTable.empty && cell != TargetTable.tombstone { body(Cells.entry(cell)) }
            }
        }
    }
}
