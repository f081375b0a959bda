import Synchronization

/// A mediator's plans (Plan.swift), found by both names with one hash: the
/// only way a call learns what answers it, so the only fast path there is.
///
/// Read pinned and without locks. Buckets of four slots, each an atomic word
/// holding one reference to a plan, or 0; a pair's bucket is picked by its
/// key, and a new plan takes an empty slot of it, else one whose plan is
/// stale, else the slot its key names. A plan replaced is retired under the
/// epoch scheme, so a reader that found it keeps reading it. A plan answers
/// only while its generation is the mediator's (read before the slot: a
/// change racing the read leaves a plan that is already stale, never one
/// that is wrong), so nothing is ever invalidated here: a change makes a
/// new generation, and every older plan is stale at once.
final class PlanCache: @unchecked Sendable {
    // @unchecked: slots are atomic; plans are immutable.

    static let ways = 4
    static let buckets = 128

    private let slots: UnsafeMutablePointer<Atomic<UInt>>

    init() {
        slots = .allocate(capacity: Self.ways * Self.buckets)
        for i in 0..<(Self.ways * Self.buckets) { (slots + i).initialize(to: Atomic(0)) }
    }

    deinit {
        // The mediator is gone, so no reader can be here.
        for i in 0..<(Self.ways * Self.buckets) {
            let bits = slots[i].load(ordering: .relaxed)
            if bits != 0 { Borrowed<Plan>(bits: bits).unmanaged.release() }
        }
        slots.deinitialize(count: Self.ways * Self.buckets)
        slots.deallocate()
    }

    /// One key for a pair: both names' hashes mixed, so `(a, b)` and
    /// `(b, a)` differ.
    @inline(__always)
    static func key(_ target: NameRef, _ action: NameRef) -> UInt64 {
        (target.hash &* 0x9E37_79B9_7F4A_7C15) ^ action.hash
    }

    @inline(__always)
    private func bucket(_ key: UInt64) -> UnsafeMutablePointer<Atomic<UInt>> {
        slots + Int(truncatingIfNeeded: (key ^ (key >> 29)) % UInt64(Self.buckets)) * Self.ways
    }

    /// The plan for the pair made in `generation`, borrowed (valid while
    /// pinned), or nil. Pinned.
    @inline(__always)
    func find(_ target: NameRef, _ action: NameRef, key: UInt64, forURL: Bool,
              generation: UInt64) -> Borrowed<Plan>? {
        let bucket = bucket(key)
        for way in 0..<Self.ways {
            let bits = bucket[way].load(ordering: .acquiring)
            guard bits != 0 else { continue }
            let plan = Borrowed<Plan>(bits: bits)
            if plan.read({ $0.generation == generation && $0.matches(target, action, key: key, forURL: forURL) }) {
                return plan
            }
        }
        return nil
    }

    /// Keeps `plan` (taking over the reference `made` holds) in its bucket.
    /// Pinned.
    func keep(_ made: Unmanaged<Plan>, generation current: UInt64, epochs: EpochDomain) {
        let plan = Borrowed(made)
        let bucket = bucket(plan.read { $0.key })
        // An empty slot, else a stale plan's, else the one the key names.
        var chosen = -1
        for way in 0..<Self.ways {
            let bits = bucket[way].load(ordering: .acquiring)
            if bits == 0 { chosen = way; break }
            if chosen < 0, Borrowed<Plan>(bits: bits).read({ $0.generation != current }) { chosen = way }
        }
        if chosen < 0 { chosen = Int(truncatingIfNeeded: plan.read { $0.key } >> 61) % Self.ways }
        let old = bucket[chosen].exchange(UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        // Another thread may be reading the old one right now.
        if old != 0 { epochs.retire(Borrowed<Plan>(bits: old).unmanaged) }
    }
}
