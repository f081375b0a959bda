// Targets that tests reach only by name: nothing imports these types.
import Switchboard
import Synchronization

/// Answers "A" — module B has a class of the same name that answers "B".
public final class Target_Shared: Target {
    public init() {}
    public static let actions: Actions<Target_Shared> = [
        "whoami": { _, _ in "FixtureTargetsA" },
    ]
}

/// Only in this module.
public final class Target_OnlyA: Target {
    public init() {}
    public static let actions: Actions<Target_OnlyA> = [
        "echo": { _, params in .dict(params) },
    ]
}

/// Numbers its instances, so tests can tell a cached instance from a new one.
public final class Target_Counter: Target {
    public static let instancesMade = Atomic<Int>(0)
    public static let instancesAlive = Atomic<Int>(0)
    let serial: Int

    public init() {
        serial = Target_Counter.instancesMade.add(1, ordering: .relaxed).newValue
        Target_Counter.instancesAlive.add(1, ordering: .relaxed)
    }

    deinit { Target_Counter.instancesAlive.subtract(1, ordering: .relaxed) }

    public static let actions: Actions<Target_Counter> = [
        "serial": { counter, _ in .int(Int64(counter.serial)) },
        "notFound": { counter, params in ["serial": .int(Int64(counter.serial)), "params": .dict(params)] },
    ]
}
