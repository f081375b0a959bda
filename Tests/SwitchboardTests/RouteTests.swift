import Testing
import Foundation
@testable import Switchboard

/// Numbers its instances (Target_Counter's counters belong to CachingTests).
final class Target_RouteCounter: Target {
    static let made = Counter()
    let serial = Target_RouteCounter.made.increment()
    static let actions: Actions<Target_RouteCounter> = [
        "serial": { t, _ in .int(Int64(t.serial)) },
    ]
}

@Suite("Prepared routes")
struct RouteTests {
    @Test("a route calls the action it was prepared for")
    func calls() throws {
        let m = Mediator()
        try m.register(target: "Math", action: "inc") { .int(($0["n"]?.int ?? 0) + 1) }
        let route = try m.route(target: "Math", action: "inc")
        #expect(try route.callAndWait(["n": 1]) == 2)
        #expect(try route.callAndWait(["n": 41]) == 42)
        #expect(route.targetName == "Math")
        #expect(route.actionName == "inc")
    }

    @Test("preparing fails for a pair that does not resolve, and never uses fallbacks")
    func prepareFails() throws {
        let m = Mediator()
        try m.register(target: "T", actions: ["a": { _ in 1 }, "notFound": { _ in "nf" }])
        try m.register(target: "NoTargetAction", action: "response") { _ in "fallback" }
        #expect { try m.route(target: "Nobody", action: "a") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        #expect { try m.route(target: "T", action: "b") } throws: { ($0 as? SwitchboardError)?.code == .noAction }
        #expect { try m.route(target: "", action: "a") } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
    }

    @Test("a route follows the registry: unregistered → noTarget, re-registered → the new action")
    func followsRegistry() throws {
        let m = Mediator()
        try m.register(target: "T", action: "v") { _ in 1 }
        let route = try m.route(target: "T", action: "v")
        #expect(try route.callAndWait() == 1)
        m.unregister(target: "T")
        #expect { try route.callAndWait() } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        try m.register(target: "T", action: "other") { _ in 0 }
        #expect { try route.callAndWait() } throws: { ($0 as? SwitchboardError)?.code == .noAction }
        try m.register(target: "T", action: "v") { _ in 2 }
        #expect(try route.callAndWait() == 2)
    }

    @Test("a route to a class target uses the cache like perform does")
    func cachedClass() throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        let cached = try m.route(target: "RouteCounter", action: "serial", cacheTarget: true)
        let first = try cached.callAndWait()
        #expect(try cached.callAndWait() == first)
        #expect(try m.callAndWait(target: "RouteCounter", action: "serial") == first)
        m.evict(target: "RouteCounter")
        #expect(try cached.callAndWait() != first)
        let uncached = try Mediator(modules: ["SwitchboardTests"]).route(target: "RouteCounter", action: "serial")
        #expect(try uncached.callAndWait() != uncached.callAndWait())
    }

    @Test("a route does not keep a replaced action alive")
    func doesNotPin() throws {
        let m = Mediator()
        let released = Counter()
        do {
            let probe = DeinitProbe(released)
            try m.register(target: "T", action: "a") { _ in _ = probe; return 1 }
        }
        let route = try m.route(target: "T", action: "a")
        #expect(try route.callAndWait() == 1)
        try m.register(target: "T", action: "a") { _ in 2 }
        #expect(eventually { released.value == 1 })
        #expect(try route.callAndWait() == 2)
    }

    @Test("one route called from many tasks while the registry churns")
    func sharedAcrossThreads() async throws {
        let m = Mediator()
        try m.register(target: "T", action: "neg") { .int(-($0["n"]?.int ?? 0)) }
        let route = try m.route(target: "T", action: "neg")
        let failures = Counter()
        let done = Counter()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for i in 0..<20_000 {
                        let n = Int64(worker * 100_000 + i)
                        if (try? route.callAndWait(["n": .int(n)])) != .int(-n) { failures.increment() }
                    }
                    done.increment()
                }
            }
            group.addTask {
                var i = 0
                while done.value < 4 {
                    // Replace with an equivalent action, and churn other names.
                    try? m.register(target: "T", action: "neg") { .int(-($0["n"]?.int ?? 0)) }
                    try? m.register(target: "Other\(i % 10)", action: "x") { _ in .null }
                    i += 1
                    await Task.yield()
                }
            }
        }
        #expect(failures.value == 0)
    }
}
