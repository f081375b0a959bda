import Synchronization

/// What answers a missed call on the fast path (``Mediator/performForeignMissing``)
/// in one registry generation: NoTargetAction's registered `response` when
/// it is a foreign function without a contract, or nothing (the general
/// path answers). Found once per generation instead of by two lookups a
/// call, as a prepared route keeps its resolution (Route.swift).
///
/// Its references are borrowed: every registry change makes a new
/// generation before it retires what it unlinked, so whatever a reader
/// found for the generation it read first lives while that generation is
/// current and the reader is pinned.
final class MissAnswer: @unchecked Sendable {
    // @unchecked: immutable after init.
    let generation: UInt64
    let function: Unmanaged<ForeignFunction>?
    let owner: UnsafeMutableRawPointer?

    init(generation: UInt64, function: Unmanaged<ForeignFunction>?, owner: UnsafeMutableRawPointer?) {
        self.generation = generation
        self.function = function
        self.owner = owner
    }
}

extension Mediator {
    /// NoTargetAction's `response` function and the entry owning it, or nil
    /// (see ``MissAnswer``). Pinned.
    @inline(__always)
    func missAnswer() -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)? {
        // The generation first: a change racing with the lookups leaves an
        // answer that is already stale, never one that is wrong.
        let generation = registryGeneration.load(ordering: .acquiring)
        let bits = missAnswerBits.load(ordering: .acquiring)
        if bits != 0 {
            let known = Unmanaged<MissAnswer>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            if let answer = known._withUnsafeGuaranteedRef({ a -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)?? in
                guard a.generation == generation else { return nil }
                guard let function = a.function, let owner = a.owner else { return .some(nil) }
                return (function, owner)
            }) {
                return answer
            }
        }
        return findMissAnswer(generation)
    }

    /// Looks the answer up for `generation` and keeps it.
    @inline(never)
    private func findMissAnswer(_ generation: UInt64) -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)? {
        // resolve(NoTargetAction, response): its registered action, found
        // before anything on its class; ForeignConvention.invoke: no
        // contract, a foreign function, called without an instance.
        var found: (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)?
        if let entry = targets.find(Names.noTargetAction.ref),
           let response = entry._withUnsafeGuaranteedRef({ $0.registered.find(Names.response.ref) }),
           let function = response._withUnsafeGuaranteedRef({ $0.contract == nil ? $0.foreign : nil }) {
            found = (function, entry.toOpaque())
        }
        let made = Unmanaged.passRetained(MissAnswer(generation: generation, function: found?.0, owner: found?.1))
        var kept = missAnswerBits.load(ordering: .acquiring)
        while true {
            // One found for a later generation by another thread stays: this
            // one is already stale, and replacing it would make every
            // up-to-date reader look again.
            if kept != 0, Unmanaged<MissAnswer>.fromOpaque(UnsafeRawPointer(bitPattern: kept)!)
                ._withUnsafeGuaranteedRef({ $0.generation >= generation }) {
                made.release()
                return found
            }
            let (exchanged, current) = missAnswerBits.compareExchange(
                expected: kept, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
            if exchanged { break }
            kept = current
        }
        if kept != 0 {
            // Another thread may be reading the old one right now.
            epochs.retire(Unmanaged<MissAnswer>.fromOpaque(UnsafeRawPointer(bitPattern: kept)!))
        }
        return found
    }
}
