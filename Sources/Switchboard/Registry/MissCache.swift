import Synchronization

/// Names that the stable target providers (``TargetProvider/isStable``: C
/// plugins) were asked for in vain, so that discovery does not ask them again
/// while nothing that could change their answer has changed: the discovery
/// generation (providers, plugins loaded, modules) and the mediator's
/// generation (any registration or unregistration) are part of each
/// remembered miss, and a miss from another generation is no miss. Providers
/// that may answer differently at any time (discoverers, which the Lua
/// module's search path is) are asked on every call as before.
///
/// Discovery's memory, not a second plan cache: a plan of a miss is reused
/// only when no discoverer could answer differently (Calls/Planner.swift);
/// with a discoverer, each call plans again and discovery asks only it, and
/// a name missed for one action is not asked for again for another.
///
/// Bounded: a fixed array of slots, one name each, the newer miss taking the
/// slot of an older one; names longer than `maxNameLength` bytes are never
/// kept. Read without locks while pinned (see EpochDomain): a miss replaced
/// in its slot is retired, not freed, until no reader can see it.
final class MissCache: @unchecked Sendable {
    // @unchecked: slots are atomic; a Miss is immutable.

    static let slotCount = 64
    static let maxNameLength = 128

    /// What a miss is valid for: the generations read before the search.
    struct Stamp: Equatable {
        let discovery: UInt64
        let registry: UInt64
    }

    /// One name looked for in vain.
    private final class Miss {
        let name: OwnedName
        let stamp: Stamp

        init(name: NameRef, stamp: Stamp) {
            self.name = OwnedName(name.string)
            self.stamp = stamp
        }

        deinit { name.free() }
    }

    /// `Unmanaged<Miss>` bits or 0; each slot holds one strong reference.
    private let slots: UnsafeMutablePointer<Atomic<UInt>>
    private let epochs: EpochDomain

    init(epochs: EpochDomain) {
        self.epochs = epochs
        slots = .allocate(capacity: Self.slotCount)
        for i in 0..<Self.slotCount { (slots + i).initialize(to: Atomic(0)) }
    }

    deinit {
        // The mediator is gone, so no reader can be here.
        for i in 0..<Self.slotCount {
            let bits = slots[i].load(ordering: .relaxed)
            if bits != 0 { Self.miss(bits).release() }
        }
        slots.deinitialize(count: Self.slotCount)
        slots.deallocate()
    }

    /// Whether `name` was looked for in vain under `stamp`. Pinned.
    @inline(__always)
    func contains(_ name: NameRef, _ stamp: Stamp) -> Bool {
        let bits = slots[name.slot(mask: Self.slotCount - 1)].load(ordering: .acquiring)
        guard bits != 0 else { return false }
        return Borrowed(Self.miss(bits)).read { $0.stamp == stamp && $0.name.matches(name) }
    }

    /// Remembers that `name` was looked for in vain under `stamp`.
    func insert(_ name: NameRef, _ stamp: Stamp) {
        guard name.count <= Self.maxNameLength else { return }
        let fresh = Unmanaged.passRetained(Miss(name: name, stamp: stamp))
        let old = slots[name.slot(mask: Self.slotCount - 1)].exchange(UInt(bitPattern: fresh.toOpaque()),
                                                                       ordering: .acquiringAndReleasing)
        if old != 0 { epochs.retire(Self.miss(old)) }
    }

    private static func miss(_ bits: UInt) -> Unmanaged<Miss> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }
}
