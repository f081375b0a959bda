// The extension `switchboard gen --lang swift` writes (Generated/Mediator+Typed.swift,
// from Tests/c/plugins/typed_plugin.c by scripts/generate.sh), compiled here
// and run against a Swift Target "Typed" whose actions answer with their
// params: each argument arrives under its contract name as its declared kind,
// and results are typed.
import Testing
@testable import Switchboard

@Suite("generated Swift wrappers")
struct GeneratedWrapperTests {
    private func mediator() throws -> Mediator {
        let m = Mediator()
        for action in ["everything", "optional", "oddNames", "secret", "wrongResult"] {
            try m.register(target: "Typed", action: action) { .dict($0) }
        }
        try m.register(target: "Typed", action: "countKeys") { .int(Int64($0.count)) }
        return m
    }

    @Test("every argument arrives under its contract name, as its declared kind")
    func everything() throws {
        let m = try mediator()
        let done = Callback { _ in "called" }
        let got = try m.typed_everything(flag: true, count: 42, ratio: 2.5, name: "text", data: [0, 1],
                                         list: [1], map: ["k": 1], done: done, anything: "x")
        #expect(got["flag"] == true)
        #expect(got["count"] == .int(42))
        #expect(got["ratio"] == .double(2.5))
        #expect(got["name"] == "text")
        #expect(got["data"] == .bytes([0, 1]))
        #expect(got["list"] == [1])
        #expect(got["map"] == ["k": 1])
        #expect(got["done"] == .callback(done))
        #expect(got["anything"] == "x")
        #expect(got.count == 9)
    }

    @Test("optional arguments left out are not sent; names that are keywords or not identifiers keep their names")
    func optionalAndOddNames() throws {
        let m = try mediator()
        #expect(try m.typed_optional().isEmpty)
        #expect(try m.typed_optional(count: 3, anything: .null) == ["count": 3, "anything": .null])
        let odd = try m.typed_oddNames(default: 1, answerId: "id", end: false, params: "p", out: 2)
        #expect(odd == ["default": 1, "answer-id": "id", "end": false, "params": "p", "out": 2])
    }

    @Test("results are typed: a result of another kind is a typeMismatch naming the action")
    func results() throws {
        let m = try mediator()
        #expect(try m.typed_countKeys(a: 1, b: 2) == 2)
        do {
            _ = try m.typed_wrongResult()
            Issue.record("a dict passed for a string result")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.message == "Typed.wrongResult: expected a string result, got dict")
        }
        // What call() reports comes through: no target.
        do {
            _ = try Mediator().typed_secret()
            Issue.record("a missing target answered")
        } catch {
            #expect(error.code == .noTarget)
        }
    }

    @Test("an action that answers later gets an async wrapper: it awaits the typed result")
    func answersLater() async throws {
        let m = Mediator()
        try m.register(target: "Typed", action: "later") { params async throws -> Value in
            try await Task.sleep(for: .milliseconds(5))
            return .string("later \(params["n"]?.int ?? -1)")
        }
        try m.register(target: "Typed", action: "laterAny") { _ async throws -> Value in
            try await Task.sleep(for: .milliseconds(5))
            return ["done": true]
        }
        let text: String = try await m.typed_later(n: 5)
        #expect(text == "later 5")
        #expect(try await m.typed_laterAny() == ["done": true])
        // The options reach the call: a timeout shorter than the action.
        try m.register(target: "Typed", action: "later") { _ async throws -> Value in
            try await Task.sleep(for: .seconds(30))
            return "too late"
        }
        await #expect {
            _ = try await m.typed_later(n: 1, options: CallOptions(timeout: .milliseconds(20)))
        } throws: { error in
            (error as? SwitchboardError)?.code == .timeout
        }
        // A result of another kind is a typeMismatch, as for the wrappers that wait.
        try m.register(target: "Typed", action: "later") { _ async throws -> Value in 1 }
        await #expect {
            _ = try await m.typed_later(n: 1)
        } throws: { error in
            (error as? SwitchboardError)?.message == "Typed.later: expected a string result, got int"
        }
    }

    @Test("cacheTarget reaches the mediator")
    func caching() throws {
        let m = Mediator()
        try m.register(GeneratedTyped.self, as: "Typed")
        _ = try m.typed_countKeys()
        #expect(!m.evict(target: "Typed"))
        _ = try m.typed_countKeys(cacheTarget: true)
        #expect(m.evict(target: "Typed"))
    }
}

private final class GeneratedTyped: Target {
    static let actions: Actions<GeneratedTyped> = ["countKeys": { _, _ in .int(1) }]
}
