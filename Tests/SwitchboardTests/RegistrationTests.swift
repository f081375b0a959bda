import Testing
@testable import Switchboard

/// Registered explicitly in the tests below, never discovered (the test
/// mediators do not list this module).
final class Target_Registered: Target {
    static let actions: Actions<Target_Registered> = [
        "kind": { _, _ in "class" },
        "shared": { _, _ in "class" },
    ]
}

@Suite("Registration")
struct RegistrationTests {
    @Test("a registered closure answers by name and gets the params")
    func closure() throws {
        let m = Mediator()
        try m.register(target: "Math", action: "double") { params in
            .int((params["n"]?.int ?? 0) * 2)
        }
        #expect(try m.callAndWait(target: "Math", action: "double", params: ["n": 21]) == 42)
    }

    @Test("re-registering replaces the action and frees the old closure")
    func replace() throws {
        let m = Mediator()
        let released = Counter()
        do {
            let probe = DeinitProbe(released)
            try m.register(target: "T", action: "a") { _ in _ = probe; return 1 }
        }
        #expect(try m.callAndWait(target: "T", action: "a") == 1)
        #expect(released.value == 0)
        try m.register(target: "T", action: "a") { _ in 2 }
        #expect(try m.callAndWait(target: "T", action: "a") == 2)
        #expect(eventually { released.value == 1 })
    }

    @Test("registering several actions at once")
    func several() throws {
        let m = Mediator()
        try m.register(target: "T", actions: ["a": { _ in "a" }, "b": { _ in "b" }])
        #expect(try m.callAndWait(target: "T", action: "a") == "a")
        #expect(try m.callAndWait(target: "T", action: "b") == "b")
    }

    @Test("unregistering a target removes all its actions")
    func unregisterTarget() throws {
        let m = Mediator()
        let released = Counter()
        do {
            let probe = DeinitProbe(released)
            try m.register(target: "T", actions: ["a": { _ in _ = probe; return 1 }, "b": { _ in 2 }])
        }
        #expect(m.unregister(target: "T"))
        #expect(eventually { released.value == 1 })
        #expect { try m.callAndWait(target: "T", action: "a") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        #expect(!m.unregister(target: "T"))
    }

    @Test("unregistering one action keeps the others; the last one takes the target")
    func unregisterAction() throws {
        let m = Mediator()
        try m.register(target: "T", actions: ["a": { _ in 1 }, "b": { _ in 2 }])
        #expect(m.unregister(target: "T", action: "a"))
        #expect(!m.unregister(target: "T", action: "a"))
        #expect { try m.callAndWait(target: "T", action: "a") } throws: { ($0 as? SwitchboardError)?.code == .noAction }
        #expect(try m.callAndWait(target: "T", action: "b") == 2)
        #expect(m.unregister(target: "T", action: "b"))
        #expect { try m.callAndWait(target: "T", action: "b") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        #expect(!m.unregister(target: "Nobody", action: "b"))
    }

    @Test("a Target class can be registered under any name, without discovery")
    func registerClass() throws {
        let m = Mediator()
        try m.register(Target_Registered.self, as: "Reg")
        #expect(try m.callAndWait(target: "Reg", action: "kind") == "class")
    }

    @Test("registered actions are found before the class's own")
    func registeredShadowsClass() throws {
        let m = Mediator()
        try m.register(Target_Registered.self, as: "Reg")
        try m.register(target: "Reg", action: "shared") { _ in "registered" }
        #expect(try m.callAndWait(target: "Reg", action: "shared") == "registered")
        #expect(try m.callAndWait(target: "Reg", action: "kind") == "class")
        #expect(m.unregister(target: "Reg", action: "shared"))
        #expect(try m.callAndWait(target: "Reg", action: "shared") == "class")
    }

    @Test("registering one action on a discoverable target keeps the rest reachable")
    func registerOnDiscoverable() throws {
        let m = fixtureMediator()
        try m.register(target: "OnlyB", action: "extra") { _ in "extra" }
        #expect(try m.callAndWait(target: "OnlyB", action: "extra") == "extra")
        #expect(try m.callAndWait(target: "OnlyB", action: "add", params: ["a": 1, "b": 2]) == 3)
    }

    @Test("bad names are refused with invalidArgument and register nothing",
          arguments: [("", "a"), ("t", ""), ("t\0", "a"), ("t", "\0")])
    func badNames(target: String, action: String) {
        let m = Mediator()
        #expect {
            try m.register(target: target, action: action) { _ in 1 }
        } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
        #expect(m.targets.count == 0)
        #expect {
            try m.register(Target_Registered.self, as: target.isEmpty ? "" : "x\0")
        } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
    }

    @Test("many targets: every one stays reachable as the table grows")
    func manyTargets() throws {
        let m = Mediator()
        for i in 0..<5000 {
            try m.register(target: "T\(i)", action: "id") { _ in .int(Int64(i)) }
        }
        for i in stride(from: 0, to: 5000, by: 2) { m.unregister(target: "T\(i)") }
        for i in 0..<5000 {
            let result = m.performAndWait(target: "T\(i)", action: "id")
            #expect(result == (i % 2 == 0 ? .null : .int(Int64(i))))
        }
        #expect(m.targets.count == 2500)
        for i in stride(from: 0, to: 5000, by: 2) {
            try m.register(target: "T\(i)", action: "id") { _ in .int(Int64(-i)) }
        }
        #expect(m.performAndWait(target: "T4", action: "id") == -4)
        #expect(m.targets.count == 5000)
    }
}
