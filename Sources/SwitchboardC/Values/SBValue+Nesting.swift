@_spi(Faces) import Switchboard
import CSwitchboard

// How deep each container sits, kept exact however a value is built.
//
// SB_MAX_DEPTH is a property of the whole value: no path from a container
// that nothing contains (a root) may pass through more than SB_MAX_DEPTH
// containers, whatever order the value was built in — a chain appended to
// the innermost container of another chain counts in full. Containers may be
// shared (one value under several parents, at several depths), so each one
// keeps the set of depths at which it occurs, as counts:
//
//     count[e] = the number of edges parent -> self with e - 1 among the
//                depths of the parent
//
// and its depths are the e with count[e] > 0, or just 1 when nothing contains
// it. Adding an edge adds the parent's depths + 1 to the child; a depth that
// appears or disappears in a container passes on to its children, and a
// container that gains its first parent (or loses its last) stops (or
// starts) being at depth 1. The counts are a function of the graph alone, so
// removing an edge undoes adding it exactly: an insertion is tried, and
// undone when some container would sit deeper than SB_MAX_DEPTH.
//
// A tree's container has one parent at one depth: an inline record in the
// header's `scalar` (unused by containers), which has room for two. A
// container shared at more depths gets a `DepthTable` in the header's
// `object` (also unused by them).
//
// The counts live in values that other threads may share (a shared value may
// be put into containers on several threads at once, switchboard.h), so they
// change only under one lock (nesting.c), and only when a container goes into or
// leaves a container: scalars never take it.

/// The counts of a container that occurs at several depths.
final class DepthTable {
    /// count[e] for e in 0...SB_MAX_DEPTH (0 and 1 stay 0).
    let counts: UnsafeMutablePointer<Int>
    /// How many depths have a count.
    var present = 0
    /// The largest depth with a count; 0 when none.
    var deepest = 0

    init() {
        counts = .allocate(capacity: Nesting.limit + 1)
        counts.initialize(repeating: 0, count: Nesting.limit + 1)
    }

    deinit { counts.deallocate() }
}

extension SBValue {
    // The inline records: two of 32 bits in `scalar`, each a depth in its low
    // 8 bits (0: unused) and a count in the 24 above. Two, because a
    // container put into a parent while it holds containers briefly has its
    // children at two depths (the new ones arrive before depth 2 leaves).
    private static let recordBits: UInt64 = 32
    private static let recordMask: UInt64 = 0xffff_ffff
    private static let depthMask: UInt64 = 0xff
    private static let countOne: UInt64 = 1 << 8
    private static let countMax: UInt64 = (1 << 24) - 1
    /// `scalar` when the counts are in a table (no record has depth 255).
    private static let inTable: UInt64 = .max

    /// The table, if the counts are in one; nil costs no reference counting.
    @inline(__always)
    private var depthTable: DepthTable? {
        guard h.pointee.scalar == Self.inTable else { return nil }
        return unsafeDowncast(h.pointee.object!, to: DepthTable.self)
    }

    /// Nothing contains this container.
    @inline(__always)
    var isRoot: Bool {
        let records = h.pointee.scalar
        if records == 0 { return true }
        if records != Self.inTable { return false }
        return depthTable!.present == 0
    }

    /// The deepest level this container occurs at (1: a root).
    var deepestLevel: Int {
        if let t = depthTable { return t.present == 0 ? 1 : t.deepest }
        let records = h.pointee.scalar
        let d = max(records & Self.depthMask, (records >> Self.recordBits) & Self.depthMask)
        return d == 0 ? 1 : Int(d)
    }

    /// Calls `body` with each level this container occurs at.
    @inline(__always)
    func forEachLevel(_ body: (Int) -> Void) {
        if let t = depthTable {
            if t.present == 0 { return body(1) }
            for e in 2...t.deepest where t.counts[e] > 0 { body(e) }
            return
        }
        let records = h.pointee.scalar
        if records == 0 { return body(1) }
        let d0 = records & Self.depthMask, d1 = (records >> Self.recordBits) & Self.depthMask
        if d0 != 0 { body(Int(d0)) }
        if d1 != 0 { body(Int(d1)) }
    }

    /// Records a container built inside exactly one parent, at `depth`
    /// (fresh values only: no lock).
    func setSingleParent(depth: Int) {
        h.pointee.scalar = Self.singleParentRecord(depth: depth)
    }

    /// The `scalar` of a container with one parent, at `depth`.
    @inline(__always)
    static func singleParentRecord(depth: Int) -> UInt64 { countOne | UInt64(depth) }

    /// Whether a container is directly inside this one.
    var holdsContainers: Bool {
        let count = h.pointee.count
        if type == SB_ARRAY {
            let items = arraySlots
            for i in 0..<count where items[i].isContainer { return true }
        } else {
            let entries = dictEntries
            for i in 0..<count where entries[i].value.isContainer { return true }
        }
        return false
    }

    /// count[e] += 1; true if `e` is a new depth.
    fileprivate func addDepth(_ e: Int) -> Bool {
        if let t = depthTable {
            let c = t.counts[e]
            t.counts[e] = c + 1
            guard c == 0 else { return false }
            t.present += 1
            t.deepest = max(t.deepest, e)
            return true
        }
        let records = h.pointee.scalar, depth = UInt64(e)
        var r0 = records & Self.recordMask, r1 = records >> Self.recordBits
        var new = false
        if r0 & Self.depthMask == depth && r0 >> 8 < Self.countMax {
            r0 += Self.countOne
        } else if r1 & Self.depthMask == depth && r1 >> 8 < Self.countMax {
            r1 += Self.countOne
        } else if r0 == 0 && r1 & Self.depthMask != depth {
            r0 = Self.countOne | depth
            new = true
        } else if r1 == 0 && r0 & Self.depthMask != depth {
            r1 = Self.countOne | depth
            new = true
        } else {
            // A third depth, or a count that outgrows 24 bits: a table.
            let t = DepthTable()
            for r in [r0, r1] where r != 0 { t.counts[Int(r & Self.depthMask)] = Int(r >> 8) }
            new = t.counts[e] == 0
            t.counts[e] += 1
            for d in 2...Nesting.limit where t.counts[d] > 0 {
                t.present += 1
                t.deepest = d
            }
            h.pointee.object = t
            h.pointee.scalar = Self.inTable
            return new
        }
        h.pointee.scalar = r0 | r1 << Self.recordBits
        return new
    }

    /// count[e] -= 1; true if `e` is no longer a depth.
    fileprivate func removeDepth(_ e: Int) -> Bool {
        if let t = depthTable {
            let c = t.counts[e] - 1
            t.counts[e] = c
            guard c == 0 else { return false }
            t.present -= 1
            if e == t.deepest {
                var d = e - 1
                while d > 1 && t.counts[d] == 0 { d -= 1 }
                t.deepest = d > 1 ? d : 0
            }
            return true
        }
        let records = h.pointee.scalar, depth = UInt64(e)
        var r0 = records & Self.recordMask, r1 = records >> Self.recordBits
        var gone: Bool
        if r0 & Self.depthMask == depth {
            r0 -= Self.countOne
            gone = r0 >> 8 == 0
            if gone { r0 = 0 }
        } else {
            assert(r1 & Self.depthMask == depth)
            r1 -= Self.countOne
            gone = r1 >> 8 == 0
            if gone { r1 = 0 }
        }
        h.pointee.scalar = r0 | r1 << Self.recordBits
        return gone
    }

    /// The containers directly inside this one (once per edge), borrowed.
    @inline(__always)
    fileprivate func forEachContainerChild(_ body: (SBValue) -> Void) {
        let count = h.pointee.count
        guard count > 0 else { return }
        if type == SB_ARRAY {
            let items = arraySlots
            for i in 0..<count {
                guard let box = items[i].box else { continue }
                Borrowed(box).read { if $0.isContainer { body($0) } }
            }
        } else {
            let entries = dictEntries
            for i in 0..<count {
                guard let box = entries[i].value.box else { continue }
                Borrowed(box).read { if $0.isContainer { body($0) } }
            }
        }
    }

    /// Releases `child`, a value this container held: when it is a container
    /// that lives on elsewhere, its depths lose what this container gave them.
    /// (One that dies with this reference takes its counts along: its own
    /// deinit removes what it gave its children, by its own depths.)
    @inline(__always)
    func dropChild(_ child: Handle) {
        guard let box = child.box else { return }
        guard Borrowed(box).read({ $0.isContainer }) else {
            box.release()
            return
        }
        var object = box.takeRetainedValue()
        if !isKnownUniquelyReferenced(&object) { Nesting.edge(from: self, to: object, adding: false) }
    }
}

enum Nesting {
    static let limit = Int(SB_MAX_DEPTH)

    /// What one pass over the graph met.
    struct Pass {
        /// The container being added to (its address): never changed, as a
        /// path back to it is a cycle.
        let target: UnsafeMutableRawPointer?
        var tooDeep = false
        var cycle = false
    }

    /// Adds or removes what the edge parent -> child gives the child's depths.
    static func edge(from parent: SBValue, to child: SBValue, adding: Bool) {
        sb__nesting_lock()
        if rootEdge(from: parent, to: child, adding: adding) {
            sb__nesting_unlock()
            return
        }
        var pass = Pass(target: nil)
        parent.forEachLevel { change(child, $0 + 1, adding: adding, &pass) }
        sb__nesting_unlock()
    }

    private static func change(_ x: SBValue, _ e: Int, adding: Bool, _ pass: inout Pass) {
        if e > limit { pass.tooDeep = true; return }
        if pass.target == Unmanaged.passUnretained(x).toOpaque() { pass.cycle = true; return }
        if adding {
            let wasRoot = x.isRoot
            let new = x.addDepth(e)
            // No longer a root: depth 1 goes, after the new depth came (so no
            // child passes through being a root itself).
            if new && wasRoot {
                x.forEachContainerChild {
                    change($0, e + 1, adding: true, &pass)
                    change($0, 2, adding: false, &pass)
                }
            } else if new {
                x.forEachContainerChild { change($0, e + 1, adding: true, &pass) }
            }
        } else {
            guard x.removeDepth(e) else { return }
            // A root again: depth 1 comes, before the old depth goes.
            if x.isRoot {
                x.forEachContainerChild {
                    change($0, 2, adding: true, &pass)
                    change($0, e + 1, adding: false, &pass)
                }
            } else {
                x.forEachContainerChild { change($0, e + 1, adding: false, &pass) }
            }
        }
    }

    /// Takes `item` (a container) into the depths of `container`, before it
    /// is stored there; nil, or why it may not go in. On nil the caller must
    /// store it, or call `undo` if it cannot.
    static func admit(_ item: SBValue, into container: SBValue) -> String? {
        if item === container { return "a container cannot contain itself" }
        let target = Unmanaged.passUnretained(container).toOpaque()
        sb__nesting_lock()
        if rootEdge(from: container, to: item, adding: true) {
            sb__nesting_unlock()
            return nil
        }
        var pass = Pass(target: target)
        container.forEachLevel { change(item, $0 + 1, adding: true, &pass) }
        guard pass.tooDeep || pass.cycle else {
            sb__nesting_unlock()
            return nil
        }
        var undo = Pass(target: target)
        container.forEachLevel { change(item, $0 + 1, adding: false, &undo) }
        let deepest = container.deepestLevel
        sb__nesting_unlock()
        if pass.cycle || reaches(item, container) {
            return "the value contains the container it is added to (a cycle)"
        }
        return "the result would nest deeper than SB_MAX_DEPTH (\(limit)): the container is already "
            + "\(deepest) level\(deepest == 1 ? "" : "s") deep"
    }

    /// The usual edge, done without walking: a container holding no
    /// containers (a call's params) going into, or leaving, a root (the
    /// params of a fallback) that is its only parent. It gains or loses
    /// depth 2 and nothing else changes: exactly what `change` does then
    /// (no cycle or depth limit is possible: SB_MAX_DEPTH >= 2, and the child
    /// holds no container, so not the parent). False, having changed
    /// nothing, in every other case. Under the lock.
    @inline(__always)
    private static func rootEdge(from parent: SBValue, to child: SBValue, adding: Bool) -> Bool {
        let atDepthTwo = SBValue.singleParentRecord(depth: 2)
        guard parent.h.pointee.scalar == 0, child.h.pointee.scalar == (adding ? 0 : atDepthTwo),
              parent !== child, !child.holdsContainers
        else { return false }
        child.h.pointee.scalar = adding ? atDepthTwo : 0
        return true
    }

    /// Undoes a successful `admit` whose item was not stored after all.
    static func undo(_ item: SBValue, into container: SBValue) {
        edge(from: container, to: item, adding: false)
    }

    /// Whether `target` is inside `start` (for the message of a refusal only).
    private static func reaches(_ start: SBValue, _ target: SBValue) -> Bool {
        var seen = Set<ObjectIdentifier>()
        var stack = [start]
        while let x = stack.popLast() {
            var found = false
            x.forEachContainerChild { child in
                if child === target { found = true }
                if seen.insert(ObjectIdentifier(child)).inserted { stack.append(child) }
            }
            if found { return true }
        }
        return false
    }
}
