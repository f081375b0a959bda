import Testing
@testable import Switchboard

@Suite("Did you mean")
struct SuggestionTests {
    @Test("the closest names by edit distance, a swap counting as one, best first")
    func closest() {
        let names = ["Catalog", "Cart", "Checkout", "Catalogue", "Login"]
        #expect(NameSuggestions.closest(to: "Catalgo", among: names) == ["Catalog"]) // Catalogue: 3 edits
        #expect(NameSuggestions.closest(to: "Catalogu", among: names) == ["Catalog", "Catalogue"])
        #expect(NameSuggestions.closest(to: "Chekout", among: names) == ["Checkout"])
        #expect(NameSuggestions.closest(to: "Zebra", among: names).isEmpty)
        // a short name is close only to names one edit away
        #expect(NameSuggestions.closest(to: "Crt", among: names) == ["Cart"])
        // the name itself is never suggested, nor a name twice
        #expect(NameSuggestions.closest(to: "Cart", among: ["Cart", "Carts", "Carts"]) == ["Carts"])
        #expect(NameSuggestions.clause(for: "Catalogu", among: names) == " (did you mean \"Catalog\" or \"Catalogue\"?)")
        #expect(NameSuggestions.clause(for: "Catalgo", among: names) == " (did you mean \"Catalog\"?)")
        #expect(NameSuggestions.clause(for: "Zebra", among: names) == "")
    }

    @Test("names are compared by their bytes: two spellings of é are two names")
    func bytes() {
        // Canonically equal to the name (String ==), yet another name: 3 bytes differ.
        #expect(NameSuggestions.closest(to: "Caf\u{E9}Barista", among: ["Cafe\u{301}Barista"]) == ["Cafe\u{301}Barista"])
        #expect(NameSuggestions.distance(Array("abc".utf8), Array("acb".utf8), bound: 3) == 1)
        #expect(NameSuggestions.distance(Array("abcdef".utf8), Array("uvwxyz".utf8), bound: 2) == nil)
    }

    @Test("ENOTARGET names the closest registered target")
    func noTarget() throws {
        let m = Mediator()
        try m.register(target: "Catalog", action: "item") { _ in 1 }
        #expect {
            try m.callAndWait(target: "Catalgo", action: "item")
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .noTarget else { return false }
            let message = error.message
            return message.hasPrefix("no target named \"Catalgo\" (did you mean \"Catalog\"?)")
        }
    }

    @Test("ENOACTION names the closest actions of the target")
    func noAction() throws {
        let m = Mediator()
        try m.register(target: "Shop", action: "checkout") { _ in 1 }
        try m.register(target: "Shop", action: "checkouts") { _ in 2 }
        #expect {
            try m.callAndWait(target: "Shop", action: "chekout")
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .noAction else { return false }
            let message = error.message
            return message.hasSuffix("(did you mean \"checkout\" or \"checkouts\"?)")
        }
    }

    @Test("a Swift caller is told which modules were searched for Target_<Name>, or that none were")
    func modules() {
        #expect {
            try Mediator().callAndWait(target: "Greeter", action: "hello")
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .noTarget else { return false }
            let message = error.message
            return message.contains("no Swift module is searched for a class Target_Greeter")
                && message.contains("Mediator(modules: [\"App\"])")
        }
        #expect {
            try Mediator(modules: ["App", "Core"]).callAndWait(target: "Greeter", action: "hello")
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .noTarget else { return false }
            let message = error.message
            return message.contains("the class Target_Greeter was looked for in the Swift modules App, Core")
                && message.contains("is the module linked into the program")
                && message.contains("a private, fileprivate or nested class cannot be found by name")
        }
    }

    @Test("a prepared route that finds nothing names the closest target too")
    func route() throws {
        let m = Mediator()
        try m.register(target: "Catalog", action: "item") { _ in 1 }
        try m.register(target: "Catalogs", action: "item") { _ in 2 }
        let route = try m.route(target: "Catalogs", action: "item")
        #expect(m.unregister(target: "Catalogs"))
        #expect {
            try route.callAndWait()
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .noTarget else { return false }
            let message = error.message
            return message.contains("(did you mean \"Catalog\"?)")
        }
    }

    @Test("a nested or private Target_ class is not found by name, and ENOTARGET says why it may not be")
    func unreachableClasses() throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        for name in ["Nested", "Hidden"] {
            #expect { try m.callAndWait(target: name, action: "who") } throws: { error in
                guard let error = error as? SwitchboardError, error.code == .noTarget else { return false }
                return error.message.contains("is the module linked into the program, and is the class internal or public")
            }
        }
        // The same classes, registered explicitly, answer: only finding them by name fails.
        try m.register(UnreachableTargets.Target_Nested.self, as: "Nested")
        #expect(try m.callAndWait(target: "Nested", action: "who") == "nested")
        #expect(try Mediator(modules: ["SwitchboardTests"]).callAndWait(target: "Reachable", action: "who") == "top level")
    }
}

enum UnreachableTargets {
    final class Target_Nested: Target {
        static let actions: Actions<Target_Nested> = ["who": { _, _ in "nested" }]
    }
}

private final class Target_Hidden: Target {
    static let actions: Actions<Target_Hidden> = ["who": { _, _ in "hidden" }]
}

final class Target_Reachable: Target {
    static let actions: Actions<Target_Reachable> = ["who": { _, _ in "top level" }]
}
