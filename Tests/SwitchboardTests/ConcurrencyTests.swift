import Testing
import Synchronization
import Foundation
@testable import Switchboard

/// Multiplies by a factor kept in the instance, and checks on the way out
/// that its instance was not destroyed under it.
final class Target_Stress: Target {
    static let made = Atomic<Int>(0)
    let factor: Int64 = 3
    let destroyed = Atomic<Bool>(false)

    init() { Target_Stress.made.add(1, ordering: .relaxed) }
    deinit { destroyed.store(true, ordering: .releasing) }

    static let actions: Actions<Target_Stress> = [
        "mul": { target, params in
            let n = params["n"]?.int ?? 0
            let result = n * target.factor
            if target.destroyed.load(ordering: .acquiring) {
                throw SwitchboardError.actionFailed("instance destroyed while in use", underlying: nil)
            }
            return .int(result)
        },
    ]
}

/// Numbers its instances (Target_Counter's counters belong to CachingTests).
final class Target_RaceCounter: Target {
    static let made = Counter()
    let serial = Target_RaceCounter.made.increment()
    static let actions: Actions<Target_RaceCounter> = [
        "serial": { t, _ in .int(Int64(t.serial)) },
    ]
}

private let performers = 8
private let performsEach = 100_000
/// Each performer waits, every this many calls, for one more release, so
/// releases interleave with performs whatever the scheduler does.
private let releaseEvery = 20_000

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("8 tasks × 100,000 performs while another task releases and re-caches; every result checked")
    func stress() async throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        try m.register(target: "Plain", action: "neg") { params in .int(-(params["n"]?.int ?? 0)) }
        let done = Counter()
        let failures = Counter()
        let releases = Counter()

        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<performers {
                group.addTask {
                    for i in 0..<performsEach {
                        if i > 0 && i % releaseEvery == 0 {
                            while releases.value < i / releaseEvery { await Task.yield() }
                        }
                        let n = Int64(worker * performsEach + i)
                        let ok: Bool
                        switch i % 3 {
                        case 0: ok = m.performAndWait(target: "Stress", action: "mul", params: ["n": .int(n)], cacheTarget: true) == .int(n * 3)
                        case 1: ok = await m.perform(target: "Stress", action: "mul", params: ["n": .int(n)]) == .int(n * 3)
                        default: ok = await m.perform(target: "Plain", action: "neg", params: ["n": .int(n)]) == .int(-n)
                        }
                        if !ok { failures.increment() }
                    }
                    done.increment()
                }
            }
            // The releaser: drops the cached instance and caches a new one
            // until every performer is done.
            group.addTask {
                while done.value < performers {
                    if m.evict(target: "Stress") { releases.increment() }
                    _ = m.performAndWait(target: "Stress", action: "mul", params: ["n": 1], cacheTarget: true)
                    await Task.yield()
                }
            }
            // The registrar: grows and shrinks the registry, and replaces an
            // action on a target the performers use.
            group.addTask {
                var round = 0
                while done.value < performers {
                    let value = Value.int(Int64(round))
                    try? m.register(target: "Churn\(round % 64)", action: "x") { _ in value }
                    if round % 2 == 0 { m.unregister(target: "Churn\((round / 2) % 64)") }
                    try? m.register(target: "Plain", action: "extra") { _ in value }
                    round += 1
                    await Task.yield()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(releases.value >= performsEach / releaseEvery - 1)
    }

    @Test("concurrent first calls to a cached target agree on one instance")
    func raceToCache() async throws {
        for _ in 0..<50 {
            let m = Mediator(modules: ["SwitchboardTests"])
            let serials = await withTaskGroup(of: Value.self) { group in
                for _ in 0..<8 {
                    group.addTask { m.performAndWait(target: "RaceCounter", action: "serial", cacheTarget: true) }
                }
                return await group.reduce(into: Set<Int64>()) { $0.insert($1.int ?? -1) }
            }
            #expect(serials.count == 1)
            #expect(!serials.contains(-1))
        }
    }

    @Test("no object retired by a writer is released while a reader is pinned")
    func epochProtects() throws {
        let domain = EpochDomain.shared
        let released = Counter()
        let pinned = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        // A pin belongs to a thread, so the reader is a thread, not a task.
        Thread {
            let record = domain.pin()
            pinned.signal()
            proceed.wait()
            domain.unpin(record)
            finished.signal()
        }.start()
        pinned.wait()
        domain.retire(Unmanaged.passRetained(DeinitProbe(released)))
        for _ in 0..<10 { domain.collect(wait: true) }
        #expect(released.value == 0)
        proceed.signal()
        finished.wait()
        #expect(eventually { released.value == 1 })
    }
}
