import Testing
@testable import Switchboard

@Suite("Re-entrancy")
struct ReentrancyTests {
    @Test("an action may perform another action")
    func nestedPerform() throws {
        let m = Mediator()
        try m.register(target: "Inner", action: "value") { _ in 41 }
        try m.register(target: "Outer", action: "value") { [unowned m] _ in
            .int(try m.callAndWait(target: "Inner", action: "value").int! + 1)
        }
        #expect(try m.callAndWait(target: "Outer", action: "value") == 42)
    }

    @Test("an action may call itself through the mediator, deeply")
    func recursion() throws {
        let m = Mediator()
        try m.register(target: "R", action: "countdown") { [unowned m] params in
            let n = params["n"]?.int ?? 0
            if n == 0 { return "done" }
            return try m.callAndWait(target: "R", action: "countdown", params: ["n": .int(n - 1)])
        }
        #expect(try m.callAndWait(target: "R", action: "countdown", params: ["n": 200]) == "done")
    }

    @Test("an action may register, unregister and release while it runs")
    func mutateWhileRunning() throws {
        let m = fixtureMediator()
        try m.register(target: "Self", action: "rewire") { [unowned m] _ in
            try m.register(target: "Self", action: "added") { _ in "added" }
            m.evict(target: "Counter")
            m.unregister(target: "Other")
            // This very closure has just been replaced in the registry; it
            // must stay alive until it returns.
            try m.register(target: "Self", action: "rewire") { _ in "rewired" }
            return "first"
        }
        try m.register(target: "Other", action: "x") { _ in 1 }
        _ = try m.callAndWait(target: "Counter", action: "serial", cacheTarget: true)
        #expect(try m.callAndWait(target: "Self", action: "rewire") == "first")
        #expect(try m.callAndWait(target: "Self", action: "rewire") == "rewired")
        #expect(try m.callAndWait(target: "Self", action: "added") == "added")
        #expect { try m.callAndWait(target: "Other", action: "x") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
    }

    @Test("unregistering the running target leaves the running call intact")
    func unregisterSelf() throws {
        let m = Mediator()
        let payload: Params = ["big": .array(Array(repeating: "x", count: 100))]
        try m.register(target: "Ephemeral", action: "go") { [unowned m] _ in
            m.unregister(target: "Ephemeral")
            return .dict(payload)
        }
        #expect(try m.callAndWait(target: "Ephemeral", action: "go") == .dict(payload))
        #expect(m.performAndWait(target: "Ephemeral", action: "go") == .null)
    }

    @Test("a callback in params may perform on the mediator")
    func callbackPerforms() throws {
        let m = Mediator()
        try m.register(target: "Data", action: "get") { _ in "data" }
        try m.register(target: "UI", action: "show") { params in
            try params["onDone"]!.callback!("shown")
        }
        let done = Callback { [unowned m] args in
            .array([args, try m.callAndWait(target: "Data", action: "get")])
        }
        #expect(try m.callAndWait(target: "UI", action: "show", params: ["onDone": .callback(done)]) == ["shown", "data"])
    }
}
