import Testing
@testable import Switchboard

/// A target in the test module itself, found by name like the fixtures.
final class Target_Local: Target {
    static let actions: Actions<Target_Local> = [
        "hello": { _, params in .string("hello " + (params["name"]?.string ?? "nobody")) },
    ]
}

@Suite("Discovery by name")
struct DiscoveryTests {
    @Test("a Target_<Name> class is found by name with no registration")
    func findsByName() throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        #expect(try m.callAndWait(target: "Local", action: "hello", params: ["name": "Ada"]) == "hello Ada")
    }

    @Test("modules are searched in order: the first module with the class wins")
    func moduleOrder() throws {
        let ab = Mediator(modules: ["FixtureTargetsA", "FixtureTargetsB"])
        #expect(try ab.callAndWait(target: "Shared", action: "whoami") == "FixtureTargetsA")
        let ba = Mediator(modules: ["FixtureTargetsB", "FixtureTargetsA"])
        #expect(try ba.callAndWait(target: "Shared", action: "whoami") == "FixtureTargetsB")
    }

    @Test("classes from both modules are reachable through one mediator")
    func acrossModules() throws {
        let m = fixtureMediator()
        #expect(try m.callAndWait(target: "OnlyA", action: "echo", params: ["k": 1]) == ["k": 1])
        #expect(try m.callAndWait(target: "OnlyB", action: "add", params: ["a": 2, "b": 40]) == 42)
    }

    @Test("the module key picks the module for one call")
    func moduleKey() throws {
        let m = fixtureMediator()
        let params: Params = [Mediator.moduleKey: "FixtureTargetsB"]
        #expect(try m.callAndWait(target: "Shared", action: "whoami", params: params) == "FixtureTargetsB")
        // Without the key, the module list decides again.
        #expect(try m.callAndWait(target: "Shared", action: "whoami") == "FixtureTargetsA")
        // The key reaches the action unchanged.
        let echoed = try m.callAndWait(target: "OnlyA", action: "echo",
                                params: [Mediator.moduleKey: "FixtureTargetsA", "x": 1])
        #expect(echoed == [Mediator.moduleKey: "FixtureTargetsA", "x": 1])
    }

    @Test("CTMediator's key, kCTMediatorParamsKeySwiftTargetModuleName, is an alias of the module key")
    func ctMediatorModuleKey() throws {
        let m = fixtureMediator()
        #expect(try m.callAndWait(target: "Shared", action: "whoami", params: [Mediator.ctMediatorModuleKey: "FixtureTargetsB"])
                == "FixtureTargetsB")
        #expect(try m.callAndWait(target: "Shared", action: "whoami", params: ["kCTMediatorParamsKeySwiftTargetModuleName": "FixtureTargetsB"])
                == "FixtureTargetsB")
        // switchboard.module wins when both name a module.
        #expect(try m.callAndWait(target: "Shared", action: "whoami",
                           params: [Mediator.ctMediatorModuleKey: "FixtureTargetsB", Mediator.moduleKey: "FixtureTargetsA"])
                == "FixtureTargetsA")
        // With hooks (the intercepted path) too.
        _ = try m.addObserver { _ in }
        #expect(try m.callAndWait(target: "Shared", action: "whoami", params: [Mediator.ctMediatorModuleKey: "FixtureTargetsB"])
                == "FixtureTargetsB")
    }

    @Test("an empty module names none, as in CTMediator: the module list decides")
    func emptyModule() throws {
        let m = fixtureMediator()
        for key in [Mediator.moduleKey, Mediator.ctMediatorModuleKey] {
            #expect(try m.callAndWait(target: "Shared", action: "whoami", params: [key: ""]) == "FixtureTargetsA")
            #expect(try m.callAndWait(target: "OnlyB", action: "add", params: [key: "", "a": 1, "b": 2]) == 3)
        }
        // An empty switchboard.module gives way to the alias.
        #expect(try m.callAndWait(target: "Shared", action: "whoami",
                           params: [Mediator.moduleKey: "", Mediator.ctMediatorModuleKey: "FixtureTargetsB"])
                == "FixtureTargetsB")
        robustnessRow("Module key spellings (switchboard.module, kCTMediatorParamsKeySwiftTargetModuleName, both, "
                      + "either empty, with hooks)", cases: 8, "the first non-empty one names the module; empty names none")
    }

    @Test("the module key finds a class even when the module list is empty")
    func moduleKeyWithoutList() throws {
        let m = Mediator()
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "OnlyB", action: "add") }
        let result = try m.callAndWait(target: "OnlyB", action: "add",
                                params: [Mediator.moduleKey: "FixtureTargetsB", "a": 1, "b": 2])
        #expect(result == 3)
    }

    @Test("a module-qualified name works like the module key")
    func qualifiedName() throws {
        let m = Mediator()
        #expect(try m.callAndWait(target: "FixtureTargetsB.Shared", action: "whoami") == "FixtureTargetsB")
    }

    @Test("a class not in any searched module is not found")
    func notInModules() {
        let m = Mediator(modules: ["FixtureTargetsA"])
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "OnlyB", action: "add") }
        do {
            _ = try m.callAndWait(target: "OnlyB", action: "add")
        } catch {
            #expect(error.code == .noTarget)
            #expect(error.message.contains("OnlyB"))
        }
    }

    @Test("changing the module list makes a missing target findable")
    func modulesChange() throws {
        let m = Mediator(modules: ["FixtureTargetsA"])
        #expect(m.performAndWait(target: "OnlyB", action: "add", params: ["a": 1, "b": 1]) == .null)
        m.modules = ["FixtureTargetsA", "FixtureTargetsB"]
        #expect(m.modules == ["FixtureTargetsA", "FixtureTargetsB"])
        #expect(try m.callAndWait(target: "OnlyB", action: "add", params: ["a": 1, "b": 1]) == 2)
    }

    @Test("a class with the right name that is not a Target is skipped")
    func notATarget() {
        let m = fixtureMediator()
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "NotATarget", action: "x") }
    }

    @Test("names that are not Swift identifiers never reach the type lookup",
          arguments: ["A<Int>", "Shared.", ".Shared", "a b", "Шаред", "1Shared", "Shared$", "x.y.z",
                      String(repeating: "A", count: 5000)])
    func oddNames(name: String) {
        let m = fixtureMediator()
        #expect(m.performAndWait(target: name, action: "whoami") == .null)
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: name, action: "whoami") }
    }

    @Test("a discovered target stays found: the second call hits the registry")
    func memoized() throws {
        let m = fixtureMediator()
        _ = try m.callAndWait(target: "OnlyA", action: "echo")
        let before = m.targets.count
        _ = try m.callAndWait(target: "OnlyA", action: "echo")
        #expect(m.targets.count == before)
        #expect(before == 1)
    }
}
