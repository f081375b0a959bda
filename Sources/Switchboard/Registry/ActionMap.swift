/// An immutable name → action map. Changing a target's actions makes a new
/// map, so readers never see one half-updated; the new map shares all of
/// the old one but the path to the changed action (a persistent hash trie,
/// ActionTrie.swift), so one registration costs the same on a target with
/// 10 actions or 100,000, and registering n actions one by one costs O(n).
///
/// A lookup reads the root's cell for the first four bits of the name's
/// hash: an empty cell, an action (compared by name, as before), or a node
/// one level down (at most 16 levels, by four bits a level; only names
/// whose first bits collide go below the root).
final class ActionMap: @unchecked Sendable {
    // @unchecked: immutable after init; `cells` points into `root`, which
    // is owned here and never changed once the map is made.

    static let empty = ActionMap(root: .trie(), count: 0)

    /// How many actions it has.
    let count: Int
    private let root: ActionNode
    /// `root`'s cells, read without touching the node.
    private let cells: UnsafeMutablePointer<UInt>

    private init(root: ActionNode, count: Int) {
        self.root = root
        self.count = count
        cells = root.cells
    }

    /// `entries` must have distinct names (a repeated name keeps the last).
    convenience init(_ entries: [ActionEntry]) {
        var root = ActionNode.trie(), count = 0
        for entry in entries {
            // The root is this init's own until it returns: an empty cell of
            // it is filled in place (most entries of a small map), the rest
            // is inserted as any change is.
            let i = ActionTrie.index(entry.name.hash)
            if root.cells[i] == ActionCell.empty {
                root.cells[i] = ActionCell.retaining(entry)
                count += 1
                continue
            }
            let replaced: Bool
            (root, replaced) = ActionTrie.inserting(entry, into: root, depth: 0)
            if !replaced { count += 1 }
        }
        self.init(root: root, count: count)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    func find(_ key: NameRef) -> Unmanaged<ActionEntry>? {
        var bits = key.hash
        var cell = cells[ActionTrie.index(bits)]
        while cell & ActionCell.nodeBit != 0 {
            if cell & ActionCell.listBit != 0 { return ActionTrie.find(key, inList: cell) }
            bits &<<= ActionTrie.bitsPerLevel
            cell = Borrowed(ActionCell.node(cell)).read { $0.cells }[ActionTrie.index(bits)]
        }
        guard cell != ActionCell.empty else { return nil }
        let entry = ActionCell.entry(cell)
        return Borrowed(entry).read { $0.name.matches(key) } ? entry : nil
    }

    /// A new map with `entry` added, replacing any action of the same name
    /// (the new one comes last in `entries`). Copies one path of the trie.
    func replacing(_ entry: ActionEntry) -> ActionMap {
        let (root, replaced) = ActionTrie.inserting(entry, into: root, depth: 0)
        return ActionMap(root: root, count: replaced ? count : count + 1)
    }

    /// A new map without the action `name`, or nil if there is no such
    /// action. Copies one path of the trie.
    func removing(_ name: String) -> ActionMap? {
        withNameRef(name) { removing($0) }
    }

    @inline(never)
    func removing(_ key: NameRef) -> ActionMap? {
        guard let root = ActionTrie.removing(key, from: root, depth: 0) else { return nil }
        return ActionMap(root: root, count: count - 1)
    }

    /// The actions in the order they were made (registration order).
    var entries: [ActionEntry] { ordered().map { $0.takeUnretainedValue() } }

    var names: [String] { ordered().map(Self.name) }

    /// At most `limit` names, in no particular order: every name when there
    /// are no more, else those of the first `limit` actions registered (for
    /// "did you mean", which orders them itself: no sort for most maps).
    func names(limit: Int) -> [String] {
        count <= limit ? unordered().map(Self.name) : ordered().prefix(limit).map(Self.name)
    }

    private static func name(_ entry: Unmanaged<ActionEntry>) -> String {
        Borrowed(entry).read { $0.name.string }
    }

    /// Every action, borrowed from this map, in registration order.
    private func ordered() -> [Unmanaged<ActionEntry>] {
        // A heapsort by serial (distinct, so stability is moot), by hand:
        // the standard sort specialized for these elements cost 2.5 KiB of
        // the library's size budget.
        var all = unordered()
        func serial(_ i: Int) -> UInt64 { Borrowed(all[i]).read { $0.serial } }
        func siftDown(_ start: Int, _ end: Int) {
            var parent = start
            while 2 * parent + 1 < end {
                var child = 2 * parent + 1
                if child + 1 < end && serial(child + 1) > serial(child) { child += 1 }
                if serial(child) <= serial(parent) { return }
                all.swapAt(parent, child)
                parent = child
            }
        }
        for start in stride(from: all.count / 2 - 1, through: 0, by: -1) { siftDown(start, all.count) }
        for end in stride(from: all.count - 1, to: 0, by: -1) {
            all.swapAt(0, end)
            siftDown(0, end)
        }
        return all
    }

    private func unordered() -> [Unmanaged<ActionEntry>] {
        var all: [Unmanaged<ActionEntry>] = []
        all.reserveCapacity(count)
        ActionTrie.forEach(in: root) { all.append($0) }
        return all
    }

    /// How many of this map's trie nodes `other` does not have (for tests:
    /// one change copies one path, so a map and the one it was made from
    /// differ by at most a path's length).
    func nodesNotShared(with other: ActionMap) -> Int {
        var theirs = Set<ObjectIdentifier>()
        ActionTrie.forEachNode(in: other.root) { theirs.insert(ObjectIdentifier($0)) }
        var count = 0
        ActionTrie.forEachNode(in: root) { if !theirs.contains(ObjectIdentifier($0)) { count += 1 } }
        return count
    }

    /// The depth of the deepest node below the root (0: everything is in the root).
    var depth: Int { ActionTrie.depth(of: root) }
}
