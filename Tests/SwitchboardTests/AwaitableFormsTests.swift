import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard

/// Every way of calling has an awaitable form (issue 45, item 2): URLs,
/// `open` with a completion, prepared routes and services, with the rules of
/// `try await call(target:action:)` — the answer of an action that answers
/// later without a thread blocked, the call's timeout, its token and the
/// task's cancellation.
@Suite struct AwaitableFormsTests {
    typealias Gate = AwaitTests.Gate

    /// The ways of calling `Net.<action>` with params `["n": n]`, awaited.
    enum Form: String, CaseIterable, CustomStringConvertible {
        case url, open, route, service
        var description: String { rawValue }

        func call(_ m: Mediator, _ action: String, n: Int64,
                  options: CallOptions = .none) async throws(SwitchboardError) -> Value {
            switch self {
            case .url:
                // A URL's query is text: n goes beside the URL.
                return try await m.call(url: "app://Net/\(action)", params: ["n": .int(n)], options: options)
            case .open:
                let replies = Guarded<[Value]>([])
                let value = await m.open("app://Net/\(action)", params: ["n": .int(n)], options: options) { reply in
                    replies.withLock { $0.append(reply) }
                }
                let reply = replies.withLock { $0 }
                guard reply.count == 1 else { throw .actionFailed("the completion ran \(reply.count) times", underlying: nil) }
                if let code = reply[0]["code"]?.string, let message = reply[0]["error"]?.string {
                    throw SwitchboardError(code: SwitchboardError.Code.allCases.first { $0.name == code }!, message: message)
                }
                #expect(reply[0] == ["result": value])
                return value
            case .route:
                return try await m.route(target: "Net", action: action).call(["n": .int(n)], options: options)
            case .service:
                return try await m.callService("Net", action: action, params: ["n": .int(n)], options: options)
            }
        }

        func callAndWait(_ m: Mediator, _ action: String, n: Int64) throws(SwitchboardError) -> Value {
            switch self {
            case .url: try m.callAndWait(url: "app://Net/\(action)", params: ["n": .int(n)])
            case .open: try m.callAndWait(url: "app://Net/\(action)", params: ["n": .int(n)])
            case .route: try m.route(target: "Net", action: action).callAndWait(["n": .int(n)])
            case .service: try m.callServiceAndWait("Net", action: action, params: ["n": .int(n)])
            }
        }
    }

    static func mediator(gate: Gate = Gate(), cancelled: Counter = Counter()) throws -> Mediator {
        let m = Mediator()
        try m.register(target: "Net", action: "gated", contract: "n: int -> int") { params async throws -> Value in
            await gate.pass()
            return .int((params["n"]?.int ?? 0) * 2)
        }
        try m.register(target: "Net", action: "hang", contract: "n: int") { _ async throws -> Value in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.increment()
                throw error
            }
            return .null
        }
        try m.register(target: "Net", action: "text", contract: "n: int -> int") { _ async throws -> Value in "not an int" }
        try m.defineService("Net", interface: "gated(n: int -> int)\nhang(n: int)\ntext(n: int -> int)")
        try m.bindService("Net", to: "Net")
        return m
    }

    @Test("an action that answers later is awaited through every form", arguments: Form.allCases)
    func awaited(form: Form) async throws {
        let gate = Gate()
        gate.open()
        let m = try Self.mediator(gate: gate)
        #expect(try await form.call(m, "gated", n: 21) == 42)
        // The waiting form refuses to block this task: the awaitable one is what async code needs.
        #expect { try form.callAndWait(m, "gated", n: 1) } throws: { ($0 as? SwitchboardError)?.code == .wouldBlock }
    }

    @Test("the call's timeout ends every form, and the action's task is cancelled", arguments: Form.allCases)
    func timeout(form: Form) async throws {
        let cancelled = Counter()
        let m = try Self.mediator(cancelled: cancelled)
        await #expect { try await form.call(m, "hang", n: 1, options: CallOptions(timeout: .milliseconds(30))) }
            throws: { ($0 as? SwitchboardError)?.code == .timeout }
        #expect(await AsyncActionTests.eventually { cancelled.value == 1 })
    }

    @Test("cancelling the awaiting task cancels every form", arguments: Form.allCases)
    func taskCancelled(form: Form) async throws {
        let cancelled = Counter()
        let m = try Self.mediator(cancelled: cancelled)
        let task = Task { () throws(SwitchboardError) -> Value in try await form.call(m, "hang", n: 1) }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let result = await task.result
        #expect(throws: SwitchboardError.self) { try result.get() }
        if case .failure(let error) = result { #expect((error as? SwitchboardError)?.code == .canceled) }
        #expect(await AsyncActionTests.eventually { cancelled.value == 1 })
    }

    @Test("a cancellation token ends every form", arguments: Form.allCases)
    func tokenCancelled(form: Form) async throws {
        let m = try Self.mediator()
        let token = Cancellation()
        let task = Task { () throws(SwitchboardError) -> Value in
            try await form.call(m, "hang", n: 1, options: CallOptions(cancellation: token))
        }
        try? await Task.sleep(for: .milliseconds(20))
        token.cancel()
        let result = await task.result
        if case .failure(let error) = result {
            #expect((error as? SwitchboardError)?.code == .canceled)
        } else {
            Issue.record("not cancelled")
        }
    }

    @Test("an awaited service call checks the interface's declared result when the answer comes")
    func serviceResult() async throws {
        let m = try Self.mediator()
        await #expect { try await m.callService("Net", action: "text", params: ["n": 1]) }
            throws: { ($0 as? SwitchboardError)?.code == .typeMismatch }
        // And its params before the call: n is required by the interface.
        await #expect { try await m.callService("Net", action: "gated") }
            throws: { ($0 as? SwitchboardError)?.code == .badParams }
    }

    @Test("an awaited open's completion runs once, with the error, when the call fails")
    func openFailure() async throws {
        let m = try Self.mediator()
        let replies = Guarded<[Value]>([])
        let value = await m.open("app://Nowhere/x") { reply in replies.withLock { $0.append(reply) } }
        #expect(value == .null)
        let reply = replies.withLock { $0 }
        #expect(reply.count == 1)
        #expect(reply.first?["code"] == "ENOTARGET")
    }
}
