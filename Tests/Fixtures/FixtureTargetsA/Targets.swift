// Targets that tests reach only by name: nothing imports these types.
@_spi(Faces) import Switchboard
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

/// Numbers its instances, so tests can tell a cached instance from a new one,
/// and records which are alive. Tests ask about one serial, not a process-wide
/// count: another mediator's instance may be destroyed at any moment (a cached
/// target is reclaimed once no thread can still be using it), and a count read
/// before that would never be reached again.
public final class Target_Counter: Target {
    private static let instancesMade = Atomic<Int>(0)
    // A pthread lock, not Synchronization.Mutex: tests that run side by side
    // make instances on several threads, and ThreadSanitizer cannot see
    // Mutex (it reports a race in correct code).
    private static let lock = Lock()
    private nonisolated(unsafe) static var alive = Set<Int>() // under `lock`
    let serial: Int

    public init() {
        serial = Target_Counter.instancesMade.add(1, ordering: .relaxed).newValue
        let serial = serial
        Target_Counter.lock.withLock { _ = Target_Counter.alive.insert(serial) }
    }

    deinit {
        let serial = serial
        Target_Counter.lock.withLock { _ = Target_Counter.alive.remove(serial) }
    }

    /// Whether the instance numbered `serial` has not been destroyed yet.
    public static func isAlive(_ serial: Int64) -> Bool {
        lock.withLock { alive.contains(Int(serial)) }
    }

    public static let actions: Actions<Target_Counter> = [
        "serial": { counter, _ in .int(Int64(counter.serial)) },
        "notFound": { counter, params in ["serial": .int(Int64(counter.serial)), "params": .dict(params)] },
    ]
}

/// Like `Target_Counter` without a `notFound`: a missing action reaches the
/// fallback, and CTMediator drops the cached instance.
public final class Target_Tally: Target {
    private static let instancesMade = Atomic<Int>(0)
    private static let lock = Lock()
    private nonisolated(unsafe) static var alive = Set<Int>() // under `lock`
    let serial: Int

    public init() {
        serial = Target_Tally.instancesMade.add(1, ordering: .relaxed).newValue
        let serial = serial
        Target_Tally.lock.withLock { _ = Target_Tally.alive.insert(serial) }
    }

    deinit {
        let serial = serial
        Target_Tally.lock.withLock { _ = Target_Tally.alive.remove(serial) }
    }

    /// Whether the instance numbered `serial` has not been destroyed yet.
    public static func isAlive(_ serial: Int64) -> Bool {
        lock.withLock { alive.contains(Int(serial)) }
    }

    public static let actions: Actions<Target_Tally> = [
        "serial": { tally, _ in .int(Int64(tally.serial)) },
    ]
}
