import Synchronization
import Testing
@_spi(Faces) @testable import Switchboard

protocol Greeter: Sendable {
    func greet(_ name: String) -> String
    var serial: Int { get }
}

/// Numbers its instances, so tests can tell a singleton from fresh ones.
private final class Polite: Greeter {
    static let made = Atomic<Int>(0)
    let serial = Polite.made.add(1, ordering: .relaxed).newValue
    func greet(_ name: String) -> String { "Good day, \(name)" }
}

private struct Terse: Greeter {
    let serial = 0
    func greet(_ name: String) -> String { "hi \(name)" }
}

protocol Clock: Sendable { var now: Int { get } }
private struct FixedClock: Clock { let now = 42 }

@Suite("Protocol-class services")
struct ServiceTests {
    @Test("a caller gets an implementation of a protocol without naming its type")
    func resolve() {
        let m = Mediator()
        #expect(m.service(Greeter.self) == nil)
        m.register(Greeter.self) { Polite() }
        #expect(m.service(Greeter.self)?.greet("Ada") == "Good day, Ada")
        #expect(m.service(Clock.self) == nil) // another protocol is another service
        m.register(Clock.self, lifetime: .perCall) { FixedClock() }
        #expect(m.service(Clock.self)?.now == 42)
    }

    @Test("a singleton is made once, on first use; per-call makes one each time")
    func lifetimes() {
        let m = Mediator()
        m.register(Greeter.self) { Polite() }
        let first = m.service(Greeter.self)!.serial
        #expect(m.service(Greeter.self)!.serial == first)
        m.register(Greeter.self, lifetime: .perCall) { Polite() }
        let a = m.service(Greeter.self)!.serial, b = m.service(Greeter.self)!.serial
        #expect(a != b && a != first)
    }

    @Test("replacing and removing a registration; a factory may ask for another service")
    func replace() {
        let m = Mediator()
        m.register(Clock.self) { FixedClock() }
        m.register(Greeter.self) { [m] in
            // Made outside the registry's lock: asking for another service is fine.
            m.service(Clock.self)!.now == 42 ? Terse() as any Greeter : Polite()
        }
        #expect(m.service(Greeter.self)?.greet("x") == "hi x")
        m.register(Greeter.self) { Polite() }
        #expect(m.service(Greeter.self)?.greet("x") == "Good day, x")
        #expect(m.unregister(Greeter.self))
        #expect(!m.unregister(Greeter.self))
        #expect(m.service(Greeter.self) == nil)
    }

    @Test("a factory that asks for the service it is making gets nil, not endless recursion",
          arguments: [ServiceLifetime.singleton, .perCall])
    func cycle(lifetime: ServiceLifetime) throws {
        let m = Mediator()
        let sawNil = Guarded(0)
        m.register(Greeter.self, lifetime: lifetime) { [m] in
            if m.service(Greeter.self) == nil { sawNil.withLock { $0 += 1 } }
            return Polite()
        }
        #expect(m.service(Greeter.self) != nil)
        #expect(sawNil.withLock { $0 } == 1)
        // Through another service: Clock's factory asks for Greeter, whose
        // factory asks for Clock.
        m.register(Clock.self, lifetime: lifetime) { [m] in
            _ = m.service(Greeter.self)
            return FixedClock()
        }
        m.register(Greeter.self, lifetime: lifetime) { [m] in
            m.service(Clock.self) == nil ? Terse() as any Greeter : Polite()
        }
        #expect(m.service(Clock.self)?.now == 42)
        // Greeter was made inside the cycle, without a Clock: a singleton
        // keeps what its factory made then; per-call makes a new one, now
        // that Clock can be had.
        let greeter = try #require(m.service(Greeter.self))
        #expect(greeter is Terse == (lifetime == .singleton))
    }

    @Test("threads racing for a singleton all get the same instance")
    func race() async {
        let m = Mediator()
        m.register(Greeter.self) { Polite() }
        let serials = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { m.service(Greeter.self)!.serial } }
            var all = Set<Int>()
            for await serial in group { all.insert(serial) }
            return all
        }
        #expect(serials.count == 1)
    }

    @Test("the catalogue lists services with their lifetimes")
    func catalogue() {
        let m = Mediator()
        m.register(Greeter.self) { Polite() }
        m.register(Clock.self, lifetime: .perCall) { FixedClock() }
        _ = m.service(Greeter.self)
        let rows = m.routes()["services"]?.array ?? []
        #expect(rows.count == 2)
        let greeter = rows.first { $0.dict?["name"]?.string?.hasSuffix("Greeter") == true }?.dict
        #expect(greeter?["lifetime"] == "singleton")
        #expect(greeter?["made"] == true)
        let clock = rows.first { $0.dict?["name"]?.string?.hasSuffix("Clock") == true }?.dict
        #expect(clock?["lifetime"] == "perCall")
        #expect(clock?["made"] == false)
    }
}
