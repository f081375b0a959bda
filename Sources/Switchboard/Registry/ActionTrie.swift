// The persistent hash trie behind ActionMap.
//
// A node has 16 cells, one per value of four bits of a name's hash (the
// root the first four, its children the next four, ...). A cell is empty, an
// action, or a node one level down, made when two names share the bits so
// far. Nodes are never changed once a map that reaches them is made: a
// change copies the nodes on its path and shares every other one (path
// copying, as Clojure's maps and swift-collections' TreeDictionary do), so
// it costs a path (16 cells a level), whatever the map's size. Reference
// counts keep what versions share: an old map, retired with its target
// entry, releases only what no newer map reaches, such as a replaced action.
//
// Names are hashed with a per-process seed, so no one can craft names that
// pile up in one path; two names whose 64-bit hashes are equal meet after
// 16 levels in a list node, searched in order.
//
// Nodes are ManagedBuffers of words, not arrays: a lookup reads a cell with
// one load, and retains nothing on the way.

/// What one cell holds: an address with its low bits as tags (Swift
/// objects are aligned to 16 bytes).
enum ActionCell {
    static let empty: UInt = 0
    /// Set for a node (the address of an `ActionNode`); clear for an action
    /// (the address of an `ActionEntry`).
    static let nodeBit: UInt = 1
    /// Set, with `nodeBit`, for a list of actions whose hashes are equal.
    static let listBit: UInt = 2
    private static let tags: UInt = 3

    @inline(__always)
    static func entry(_ cell: UInt) -> Unmanaged<ActionEntry> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: cell).unsafelyUnwrapped)
    }

    @inline(__always)
    static func node(_ cell: UInt) -> Unmanaged<ActionNode> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: cell & ~tags).unsafelyUnwrapped)
    }

    /// A cell holding one strong reference to `entry`.
    static func retaining(_ entry: ActionEntry) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(entry).toOpaque())
    }

    /// A cell holding one strong reference to `node`.
    static func retaining(_ node: ActionNode) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(node).toOpaque()) | (node.isList ? nodeBit | listBit : nodeBit)
    }

    static func retain(_ cell: UInt) {
        if cell == empty { return }
        if cell & nodeBit != 0 { _ = node(cell).retain() } else { _ = entry(cell).retain() }
    }

    static func release(_ cell: UInt) {
        if cell == empty { return }
        if cell & nodeBit != 0 { node(cell).release() } else { entry(cell).release() }
    }
}

/// What an `ActionNode` is: how many cells (16, or the list's length), and
/// whether it is a list of actions with one hash.
struct ActionNodeShape {
    let width: Int
    let isList: Bool
}

/// One node: 16 cells, or a list of actions with one hash. Owns one strong
/// reference per non-empty cell.
final class ActionNode: ManagedBuffer<ActionNodeShape, UInt> {
    typealias Shape = ActionNodeShape

    /// A trie node with every cell empty.
    static func trie() -> ActionNode { make(Shape(width: ActionTrie.fanout, isList: false)) }

    /// A list of `entries`, which have one hash.
    static func list(_ entries: [ActionEntry]) -> ActionNode {
        let node = make(Shape(width: entries.count, isList: true))
        for i in 0..<entries.count { node.cells[i] = ActionCell.retaining(entries[i]) }
        return node
    }

    private static func make(_ shape: Shape) -> ActionNode {
        let node = unsafeDowncast(create(minimumCapacity: shape.width) { _ in shape }, to: ActionNode.self)
        node.cells.initialize(repeating: ActionCell.empty, count: shape.width)
        return node
    }

    var width: Int { header.width }
    var isList: Bool { header.isList }

    @inline(__always)
    var cells: UnsafeMutablePointer<UInt> { withUnsafeMutablePointerToElements { $0 } }

    /// A new node with the same cells (each retained once more).
    func copy() -> ActionNode {
        let twin = Self.make(header)
        twin.cells.update(from: cells, count: width)
        for i in 0..<width { ActionCell.retain(cells[i]) }
        return twin
    }

    /// Puts `cell` (holding a reference) at `index`, releasing what was there.
    func replace(at index: Int, with cell: UInt) {
        let old = cells[index]
        cells[index] = cell
        ActionCell.release(old)
    }

    deinit {
        // Children first release their own cells: recursion at most 17 deep.
        for i in 0..<width { ActionCell.release(cells[i]) }
    }
}

/// The trie's operations. Each returns new nodes and leaves its inputs as
/// they were.
enum ActionTrie {
    static let bitsPerLevel: UInt64 = 4
    static let fanout = 16
    /// Trie levels (64 bits, 4 a level); below the last come lists.
    static let levels = 16

    /// The cell index for the top four bits of `bits` (a hash shifted left
    /// by four per level already descended).
    @inline(__always)
    static func index(_ bits: UInt64) -> Int { Int(truncatingIfNeeded: bits &>> 60) }

    /// The index of `hash`'s cell in a node at `depth` (0..<levels).
    @inline(__always)
    static func index(_ hash: UInt64, depth: Int) -> Int { index(hash &<< (UInt64(depth) &* bitsPerLevel)) }

    @inline(never)
    static func find(_ key: NameRef, inList cell: UInt) -> Unmanaged<ActionEntry>? {
        node(cell) { list in
            for i in 0..<list.width {
                let entry = ActionCell.entry(list.cells[i])
                if Borrowed(entry).read({ $0.name.matches(key) }) { return entry }
            }
            return nil
        }
    }

    private static func node<R>(_ cell: UInt, _ body: (ActionNode) -> R) -> R {
        Borrowed(ActionCell.node(cell)).read(body)
    }

    /// The actions of the list `node` but the one named `key`.
    private static func list(_ node: ActionNode, without key: NameRef) -> [ActionEntry] {
        var kept: [ActionEntry] = []
        for i in 0..<node.width {
            let other = ActionCell.entry(node.cells[i]).takeUnretainedValue()
            if !other.name.matches(key) { kept.append(other) }
        }
        return kept
    }

    /// `node` (at `depth`) with `entry` in it: a new node. `replaced`: it
    /// had an action of that name, which the new node no longer holds.
    static func inserting(_ entry: ActionEntry, into node: ActionNode, depth: Int) -> (ActionNode, replaced: Bool) {
        if node.isList {
            var kept = list(node, without: entry.name.ref)
            let replaced = kept.count < node.width
            kept.append(entry)
            return (.list(kept), replaced)
        }
        let i = index(entry.name.hash, depth: depth)
        let copy = node.copy()
        let cell = copy.cells[i]
        if cell == ActionCell.empty {
            copy.cells[i] = ActionCell.retaining(entry)
            return (copy, false)
        }
        if cell & ActionCell.nodeBit != 0 {
            let (child, replaced) = Self.node(cell) { inserting(entry, into: $0, depth: depth + 1) }
            copy.replace(at: i, with: ActionCell.retaining(child))
            return (copy, replaced)
        }
        let other = ActionCell.entry(cell).takeUnretainedValue()
        if other.name.matches(entry.name.ref) {
            copy.replace(at: i, with: ActionCell.retaining(entry))
            return (copy, true)
        }
        copy.replace(at: i, with: ActionCell.retaining(pair(other, entry, depth: depth + 1)))
        return (copy, false)
    }

    /// A node at `depth` holding `a` and `b`, which have the same cell in
    /// every level above it.
    private static func pair(_ a: ActionEntry, _ b: ActionEntry, depth: Int) -> ActionNode {
        if depth == levels { return .list([a, b]) }
        let node = ActionNode.trie()
        let ia = index(a.name.hash, depth: depth), ib = index(b.name.hash, depth: depth)
        if ia == ib {
            node.cells[ia] = ActionCell.retaining(pair(a, b, depth: depth + 1))
        } else {
            node.cells[ia] = ActionCell.retaining(a)
            node.cells[ib] = ActionCell.retaining(b)
        }
        return node
    }

    /// `node` (at `depth`) without the action `key`: a new node, or nil if
    /// it has no such action. Below the root, a node left with one action
    /// and nothing else gives its place to that action, so a map looks the
    /// same whatever was added and removed before.
    static func removing(_ key: NameRef, from node: ActionNode, depth: Int) -> ActionNode? {
        if node.isList {
            let kept = list(node, without: key)
            return kept.count < node.width ? .list(kept) : nil
        }
        let i = index(key.hash, depth: depth)
        let cell = node.cells[i]
        let replacement: UInt
        if cell == ActionCell.empty {
            return nil
        } else if cell & ActionCell.nodeBit != 0 {
            guard let child = Self.node(cell, { removing(key, from: $0, depth: depth + 1) }) else { return nil }
            replacement = collapsed(child)
        } else {
            guard Borrowed(ActionCell.entry(cell)).read({ $0.name.matches(key) }) else { return nil }
            replacement = ActionCell.empty
        }
        let copy = node.copy()
        copy.replace(at: i, with: replacement)
        return copy
    }

    /// The cell that stands for `node` in its parent, holding a reference:
    /// empty for an empty node, its action for a node with one action and
    /// nothing else, else the node.
    private static func collapsed(_ node: ActionNode) -> UInt {
        var occupied = 0, last = ActionCell.empty
        for i in 0..<node.width where node.cells[i] != ActionCell.empty {
            occupied += 1
            last = node.cells[i]
        }
        if occupied == 0 { return ActionCell.empty }
        if occupied == 1 && last & ActionCell.nodeBit == 0 {
            ActionCell.retain(last)
            return last
        }
        return ActionCell.retaining(node)
    }

    /// Every action under `node`, borrowed, in no particular order.
    static func forEach(in node: ActionNode, _ body: (Unmanaged<ActionEntry>) -> Void) {
        for i in 0..<node.width {
            let cell = node.cells[i]
            if cell == ActionCell.empty { continue }
            if cell & ActionCell.nodeBit != 0 {
                Self.node(cell) { forEach(in: $0, body) }
            } else {
                body(ActionCell.entry(cell))
            }
        }
    }

    /// `node` and every node under it.
    static func forEachNode(in node: ActionNode, _ body: (ActionNode) -> Void) {
        body(node)
        for i in 0..<node.width where node.cells[i] & ActionCell.nodeBit != 0 {
            Self.node(node.cells[i]) { forEachNode(in: $0, body) }
        }
    }

    static func depth(of node: ActionNode) -> Int {
        var deepest = 0
        for i in 0..<node.width where node.cells[i] & ActionCell.nodeBit != 0 {
            deepest = max(deepest, 1 + Self.node(node.cells[i]) { depth(of: $0) })
        }
        return deepest
    }
}
