import Testing
import FixtureTargetsA
@testable import Switchboard

/// `Target_Counter` numbers its instances and knows which are alive. Each
/// test has its own mediator, so each its own cache.
@Suite("Target caching")
struct CachingTests {
    let m = fixtureMediator()

    func serial(cache: Bool = false, _ m: Mediator? = nil) throws -> Int64 {
        try #require((m ?? self.m).callAndWait(target: "Counter", action: "serial", cacheTarget: cache).int)
    }

    @Test("a cached target is the same instance on every call")
    func cachedIsReused() throws {
        let first = try serial(cache: true)
        #expect(try serial(cache: true) == first)
        #expect(try serial(cache: true) == first)
    }

    @Test("an uncached target is made fresh for each call and destroyed after it")
    func uncachedIsFresh() throws {
        let a = try serial()
        let b = try serial()
        #expect(b > a)
        #expect(!Target_Counter.isAlive(a))
        #expect(!Target_Counter.isAlive(b))
    }

    @Test("an uncached call reuses an instance that is already cached (as CTMediator does)")
    func uncachedReusesCached() throws {
        let cached = try serial(cache: true)
        #expect(try serial(cache: false) == cached)
    }

    @Test("after release, the next call gets a fresh instance and the old one is destroyed")
    func releaseDropsInstance() throws {
        let first = try serial(cache: true)
        #expect(Target_Counter.isAlive(first))
        #expect(m.evict(target: "Counter"))
        #expect(eventually { !Target_Counter.isAlive(first) })
        let second = try serial(cache: true)
        #expect(second != first)
        #expect(m.evict(target: "Counter"))
    }

    @Test("a URL call opened with cacheTarget caches, with or without hooks (it was dropped without them)")
    func urlCallCaches() throws {
        let cache = CallOptions(cacheTarget: true)
        for hooked in [false, true] {
            if hooked { _ = try m.addObserver { _ in } }
            let first = try #require(m.callAndWait(url: "app://Counter/serial", options: cache).int)
            #expect(try m.callAndWait(url: "app://Counter/serial", options: cache).int == first)
            #expect(try serial() == first)
            #expect(m.evict(target: "Counter"), "hooked: \(hooked)")
            // Without the option a URL call caches nothing.
            _ = try m.callAndWait(url: "app://Counter/serial")
            #expect(!m.evict(target: "Counter"))
        }
        robustnessRow("URL calls opened with cacheTarget (SB_CACHE_TARGET), with and without hooks",
                      cases: 4, "the instance is cached on either path; without the option nothing is")
    }

    @Test("release reports whether anything was cached")
    func releaseReports() throws {
        #expect(!m.evict(target: "Counter"))
        #expect(!m.evict(target: "NeverHeardOf"))
        _ = try serial(cache: true)
        #expect(m.evict(target: "Counter"))
        #expect(!m.evict(target: "Counter"))
    }

    @Test("notFound runs on the target instance with the same params")
    func notFoundOnInstance() throws {
        let cached = try serial(cache: true)
        let result = try m.callAndWait(target: "Counter", action: "noSuchAction", params: ["p": 1])
        #expect(result == ["serial": .int(cached), "params": ["p": 1]])
    }

    @Test("a missing action with no notFound drops the cached instance (as CTMediator does), fallback or not")
    func missingActionEvicts() throws {
        func tally(cache: Bool = true) throws -> Int64 {
            try #require(m.callAndWait(target: "Tally", action: "serial", cacheTarget: cache).int)
        }
        let first = try tally()
        #expect(try tally() == first)
        #expect { try m.callAndWait(target: "Tally", action: "absent") } throws: { ($0 as? SwitchboardError)?.code == .noAction }
        #expect(eventually { !Target_Tally.isAlive(first) })
        #expect(!m.evict(target: "Tally"))
        let second = try tally()
        #expect(second != first)
        // perform, with the fallback on (and nothing to fall back to).
        #expect(m.performAndWait(target: "Tally", action: "absent", cacheTarget: true) == .null)
        #expect(eventually { !Target_Tally.isAlive(second) })
        // With hooks, through the intercepted path; and from a URL.
        let third = try tally()
        _ = try m.addObserver { _ in }
        #expect(m.performAndWait(target: "Tally", action: "absent") == .null)
        #expect(eventually { !Target_Tally.isAlive(third) })
        let fourth = try tally()
        #expect(m.openAndWait("app://Tally/absent") == .null)
        #expect(eventually { !Target_Tally.isAlive(fourth) })
        // A present action, and a notFound that answers, keep it.
        let kept = try tally()
        #expect(try tally(cache: false) == kept)
        let counter = try serial(cache: true)
        _ = try m.callAndWait(target: "Counter", action: "absent")
        #expect(try serial(cache: true) == counter)
        #expect(m.evict(target: "Tally") && m.evict(target: "Counter"))
        robustnessRow("Missing action on a cached target (call, perform, with hooks, from a URL; notFound present)",
                      cases: 5, "the cached instance is released as CTMediator does, unless notFound answers")
    }

    @Test("registering one more action on a class target keeps its cached instance")
    func registrationKeepsCache() throws {
        let cached = try serial(cache: true)
        try m.register(target: "Counter", action: "extra") { _ in "extra" }
        #expect(try m.callAndWait(target: "Counter", action: "extra") == "extra")
        #expect(try serial(cache: true) == cached)
    }

    @Test("unregistering a target destroys its cached instance; it is rediscovered fresh")
    func unregisterDropsCache() throws {
        let first = try serial(cache: true)
        #expect(m.unregister(target: "Counter"))
        #expect(eventually { !Target_Counter.isAlive(first) })
        #expect(try serial(cache: true) != first)
        m.evict(target: "Counter")
    }

    @Test("a module-qualified cached target is released by its qualified name")
    func qualifiedRelease() throws {
        let params: Params = [Mediator.moduleKey: "FixtureTargetsA"]
        let first = try m.callAndWait(target: "Counter", action: "serial", params: params, cacheTarget: true)
        #expect(try m.callAndWait(target: "Counter", action: "serial", params: params, cacheTarget: true) == first)
        #expect(!m.evict(target: "Counter"))
        #expect(m.evict(target: "FixtureTargetsA.Counter"))
    }

    @Test("each mediator keeps its own cache")
    func perMediator() throws {
        let other = fixtureMediator()
        let mine = try serial(cache: true)
        let theirs = try serial(cache: true, other)
        #expect(mine != theirs)
        m.evict(target: "Counter")
        other.evict(target: "Counter")
    }
}
