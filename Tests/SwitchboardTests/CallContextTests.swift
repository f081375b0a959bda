import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard

/// An action knows its calling context (issue 45, item 4): the mediator that
/// called it, the call's tags and deadline, its token.
@Suite struct CallContextTests {
    final class Target_Cart: Target {
        static let actions: Actions<Target_Cart> = ["plain": { _, _ in "plain" }]
        static let contextActions: ContextActions<Target_Cart> = [
            "checkout": { _, _, call in
                // Nested calls go to the mediator that called, not Mediator.shared.
                try call.mediator.callAndWait(target: "Session", action: "user")
            },
        ]
    }

    @Test("a registered closure and a Target class's context action call on through their own mediator")
    func mediatorOfTheCall() throws {
        let a = Mediator(), b = Mediator()
        for (m, user) in [(a, "ada"), (b, "bob")] {
            try m.register(Target_Cart.self, as: "Cart")
            try m.register(target: "Session", action: "user") { _ in .string(user) }
            try m.register(target: "Who", action: "asks") { _, call in
                try call.mediator.callAndWait(target: "Session", action: "user")
            }
        }
        #expect(try a.callAndWait(target: "Cart", action: "checkout") == "ada")
        #expect(try b.callAndWait(target: "Cart", action: "checkout") == "bob")
        #expect(try b.callAndWait(target: "Who", action: "asks") == "bob")
        #expect(try a.callAndWait(target: "Cart", action: "plain") == "plain")
        // Nothing reached the shared mediator.
        #expect(Mediator.shared.performAndWait(target: "Session", action: "user") == .null)
    }

    @Test("the call's own tags, not its caller's; the deadline and token, also inherited")
    func tagsAndDeadline() throws {
        let m = Mediator()
        let seen = Guarded<[String: Value]>([:])
        try m.register(target: "T", action: "inner") { _, call in
            seen.withLock { $0["innerTags"] = .array(call.tags.map(Value.string)) }
            seen.withLock { $0["innerDeadline"] = .bool(call.deadline != nil) }
            return .null
        }
        try m.register(target: "T", action: "outer") { _, call in
            seen.withLock { $0["outerTags"] = .array(call.tags.map(Value.string)) }
            let left = call.timeRemaining ?? .zero
            seen.withLock { $0["outerLeft"] = .bool(left > .zero && left <= .seconds(60)) }
            seen.withLock { $0["cancelled"] = .bool(call.isCancelled) }
            seen.withLock { $0["token"] = .bool(call.cancellation != nil) }
            return try call.mediator.callAndWait(target: "T", action: "inner")
        }
        let token = Cancellation()
        _ = try m.callAndWait(target: "T", action: "outer",
                              options: CallOptions(tags: ["from-push"], cancellation: token, timeout: .seconds(60)))
        let got = seen.withLock { $0 }
        #expect(got["outerTags"] == ["from-push"])
        #expect(got["outerLeft"] == true)
        #expect(got["cancelled"] == false)
        #expect(got["token"] == true)
        #expect(got["innerTags"] == []) // a nested call has its own (none)
        #expect(got["innerDeadline"] == true) // but waits no longer than its caller
        // A plain call: no tags, no deadline, no token.
        try m.register(target: "T", action: "plain") { _, call in
            .array([.int(Int64(call.tags.count)), .bool(call.deadline == nil), .bool(call.cancellation == nil)])
        }
        #expect(try m.callAndWait(target: "T", action: "plain") == [0, true, true])
    }

    @Test("an async action gets its context on its own task, and passes the deadline on with options")
    func asyncContext() async throws {
        let m = Mediator()
        try m.register(target: "T", action: "slow") { _ async throws -> Value in
            try await Task.sleep(for: .seconds(30))
            return .null
        }
        try m.register(target: "T", action: "fetch") { (_: Params, call: CallContext) async throws -> Value in
            #expect(call.mediator === m)
            #expect(call.tags == ["bg"])
            #expect(call.deadline != nil)
            // Its own task inherits nothing from the calling thread: the options carry the deadline.
            return try await call.mediator.call(target: "T", action: "slow", options: call.options)
        }
        await #expect {
            try await m.call(target: "T", action: "fetch", options: CallOptions(tags: ["bg"], timeout: .milliseconds(50)))
        } throws: { ($0 as? SwitchboardError)?.code == .timeout }
    }

    @Test("a context action with a contract is checked as any action is")
    func contextWithContract() throws {
        let m = Mediator()
        try m.register(target: "T", action: "typed", contract: "n: int -> int") { params, call in
            .int((params["n"]?.int ?? 0) + Int64(call.tags.count))
        }
        #expect(try m.callAndWait(target: "T", action: "typed", params: ["n": 1], options: CallOptions(tags: ["a", "b"])) == 3)
        #expect { try m.callAndWait(target: "T", action: "typed", params: ["n": "x"]) } throws: {
            ($0 as? SwitchboardError)?.code == .badParams
        }
    }
}
