import Testing
import Synchronization
import Foundation
@_spi(Faces) @testable import Switchboard

/// A provider that counts the names it is asked for and finds the ones it is
/// told to, as a C plugin shelf or a discoverer would.
private final class CountingProvider: TargetProvider, @unchecked Sendable {
    // @unchecked: state behind `lock`.
    let isStable: Bool
    private let lock = NSLock()
    private var asked: [String: Int] = [:]
    private var known: Set<String> = []

    init(stable: Bool) { isStable = stable }

    func asks(for name: String) -> Int { lock.withLock { asked[name, default: 0] } }
    func add(_ name: String) { lock.withLock { _ = known.insert(name) } }

    func targetClass(named name: String) throws(SwitchboardError) -> ForeignTargetClass? {
        let found: Bool = lock.withLock {
            asked[name, default: 0] += 1
            return known.contains(name)
        }
        guard found else { return nil }
        return ForeignTargetClass(origin: "test provider", actions: [(name: "x", function: Provided())],
                                  create: { nil }, destroy: { _ in }, stateless: true)
    }
}

/// The provider's one action, x: answers "provided".
private final class Provided: ForeignFunction, @unchecked Sendable {
    override func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        "provided"
    }
}

/// A mediator whose NoTargetAction answers "fallback".
private func mediatorWithFallback(_ provider: CountingProvider) throws -> Mediator {
    let m = Mediator()
    m.addProvider(provider)
    try m.register(target: "NoTargetAction", action: "response") { _ in "fallback" }
    return m
}

@Suite("Misses: names looked for in vain")
struct MissCacheTests {
    @Test("a stable provider is asked once for a missing name; a registration after the miss is seen by the next call")
    func registrationAfterMiss() throws {
        let provider = CountingProvider(stable: true)
        let m = try mediatorWithFallback(provider)
        #expect(m.performAndWait(target: "Later", action: "x") == "fallback")
        #expect(m.performAndWait(target: "Later", action: "x") == "fallback")
        #expect(provider.asks(for: "Later") == 1)
        try m.register(target: "Later", action: "x") { _ in "registered" }
        #expect(m.performAndWait(target: "Later", action: "x") == "registered")
        #expect(m.unregister(target: "Later"))
        // Unregistered: missing again, and looked for again (the registry changed).
        #expect(m.performAndWait(target: "Later", action: "x") == "fallback")
        #expect(provider.asks(for: "Later") == 2)
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "Later", action: "x") }
    }

    @Test("a stable provider that can find a name now is asked again once the mediator is told (a plugin loaded)")
    func providersChanged() throws {
        let provider = CountingProvider(stable: true)
        let m = try mediatorWithFallback(provider)
        #expect(m.performAndWait(target: "Plugged", action: "x") == "fallback")
        provider.add("Plugged")
        m.providersChanged()
        #expect(m.performAndWait(target: "Plugged", action: "x") == "provided")
        #expect(provider.asks(for: "Plugged") == 2)
    }

    @Test("a new provider, or new modules, make missed names searched again")
    func newProviderOrModules() throws {
        let provider = CountingProvider(stable: true)
        let m = try mediatorWithFallback(provider)
        #expect(m.performAndWait(target: "Local", action: "hello") == "fallback")
        m.modules = ["SwitchboardTests"]
        #expect(m.performAndWait(target: "Local", action: "hello", params: ["name": "Ada"]) == "hello Ada")
        #expect(m.performAndWait(target: "Late", action: "x") == "fallback")
        let second = CountingProvider(stable: true)
        second.add("Late")
        m.addProvider(second)
        #expect(m.performAndWait(target: "Late", action: "x") == "provided")
    }

    @Test("a provider that is not stable (a discoverer) is asked on every miss, as before")
    func unstableAskedEveryTime() throws {
        let provider = CountingProvider(stable: false)
        let m = try mediatorWithFallback(provider)
        for _ in 0..<3 { #expect(m.performAndWait(target: "Nowhere", action: "x") == "fallback") }
        #expect(provider.asks(for: "Nowhere") == 3)
        provider.add("Nowhere")
        #expect(m.performAndWait(target: "Nowhere", action: "x") == "provided")
    }

    @Test("a failing call still names the closest targets, built when it fails for good")
    func suggestionsOnFinalFailure() throws {
        let m = Mediator()
        m.addProvider(CountingProvider(stable: true))
        try m.register(target: "Account", action: "show") { _ in .null }
        for _ in 0..<2 {
            do {
                _ = try m.callAndWait(target: "Acount", action: "show")
                Issue.record("a missing target answered")
            } catch {
                #expect(error.code == .noTarget)
                #expect(error.message.hasPrefix("no target named \"Acount\" (did you mean \"Account\"?)"))
            }
        }
    }

    @Test("more missing names than the cache holds keep missing, and each still sees its registration")
    func manyNames() throws {
        let provider = CountingProvider(stable: true)
        let m = try mediatorWithFallback(provider)
        let names = (0..<(3 * MissCache.slotCount)).map { "Missing\($0)" }
        for name in names + names { #expect(m.performAndWait(target: name, action: "x") == "fallback") }
        try m.register(target: names[5], action: "x") { _ in "registered" }
        #expect(m.performAndWait(target: names[5], action: "x") == "registered")
        #expect(m.performAndWait(target: names[6], action: "x") == "fallback")
    }

    @Test("threads missing the same names while one registers them: each registration is seen by the next call")
    func concurrentMissesAndRegistrations() throws {
        let provider = CountingProvider(stable: true)
        let m = try mediatorWithFallback(provider)
        let rounds = 200
        let wrong = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        let group = DispatchGroup()
        for t in 0..<3 {
            group.enter()
            Thread {
                var i = 0
                while !done.load(ordering: .acquiring) {
                    // Names registered or not yet: either answer is right, nothing else.
                    let answer = m.performAndWait(target: "Name\((i + t) % rounds)", action: "x")
                    if answer != "fallback" && answer != "registered" { wrong.add(1, ordering: .relaxed) }
                    i += 1
                }
                group.leave()
            }.start()
        }
        var unseen = 0
        for i in 0..<rounds {
            _ = m.performAndWait(target: "Name\(i)", action: "x")
            try m.register(target: "Name\(i)", action: "x") { _ in "registered" }
            if m.performAndWait(target: "Name\(i)", action: "x") != "registered" { unseen += 1 }
        }
        done.store(true, ordering: .releasing)
        group.wait()
        #expect(unseen == 0)
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
