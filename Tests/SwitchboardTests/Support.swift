import Synchronization
import Foundation
@testable import Switchboard

/// A thread-safe counter for destructor and call counts.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    @discardableResult
    func increment() -> Int { count.add(1, ordering: .acquiringAndReleasing).newValue }
}

/// An object whose deinit is counted: capture it in a closure to observe
/// when the mediator lets the closure go.
final class DeinitProbe: Sendable {
    let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.increment() }
}

/// A mediator searching both fixture modules, A first.
func fixtureMediator() -> Mediator {
    Mediator(modules: ["FixtureTargetsA", "FixtureTargetsB"])
}

extension SwitchboardError {
    /// For `#expect(throws:)` checks on the status alone.
    func hasCode(_ code: Code) -> Bool { self.code == code }
}

/// True once `condition` holds. Objects a writer retires are released when
/// no thread can still be using them; tests running in parallel may hold that
/// off for a moment, so destructor checks poll (with a generous bound, so a
/// real leak fails instead of hanging).
func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        EpochDomain.shared.collect(wait: true)
        usleep(1000)
    }
    return true
}
