// The calls of the DocC article "Awaiting Calls"
// (Sources/Switchboard/Switchboard.docc/AwaitingCalls.md shows them).
import Foundation
import Switchboard
import Testing

func forecast(_ mediator: Mediator) async throws -> Value {
    // Suspends this task, never a thread, until the action answers.
    try await mediator.call(target: "Weather", action: "forecast", params: ["city": "Oslo"])
}

func registerRadar(_ mediator: Mediator) throws {
    // A closure that answers later: it runs on a task of its own.
    try mediator.register(target: "Radar", action: "scan") { params async throws -> Value in
        try await Task.sleep(for: .seconds(60))  // cancelled when its call is
        return "nothing in sight"
    }
}

func impatientScan(_ mediator: Mediator) async -> SwitchboardError.Code? {
    do {
        _ = try await mediator.call(target: "Radar", action: "scan",
                                    options: CallOptions(timeout: .milliseconds(50)))
        return nil
    } catch {
        return error.code  // .timeout: the action's task is cancelled too
    }
}

func cancelledScan(_ mediator: Mediator) async -> [SwitchboardError.Code?] {
    // A token cancels every call made with it, from anywhere.
    let token = Cancellation()
    let byToken = Task { try await mediator.call(target: "Radar", action: "scan",
                                                 options: CallOptions(cancellation: token)) }
    token.cancel()

    // Cancelling the awaiting task cancels its call.
    let byTask = Task { try await mediator.call(target: "Radar", action: "scan") }
    byTask.cancel()

    var codes: [SwitchboardError.Code?] = []
    for task in [byToken, byTask] {
        do { _ = try await task.value } catch { codes.append((error as? SwitchboardError)?.code) }
    }
    return codes  // [.canceled, .canceled]
}

func registerTrip(_ mediator: Mediator) throws {
    // A call made from an action keeps its caller's deadline and token
    // when it is given the call's options.
    try mediator.register(target: "Trip", action: "plan") { params, call async throws -> Value in
        let weather = try await call.mediator.call(target: "Weather", action: "forecast",
                                                   params: params, options: call.options)
        return weather["sky"] == "clear" ? "go" : "stay"
    }
}

// Synchronous code that may wait on its thread uses the AndWait forms.
func forecastAndWait(_ mediator: Mediator) throws -> Value {
    try mediator.callAndWait(target: "Weather", action: "forecast", params: ["city": "Bergen"])
}

/// Runs `body` on a thread of its own, outside Swift's cooperative pool.
func onAThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

@Suite("DocC article: Awaiting Calls")
struct AsyncCallsArticle {
    let mediator = Mediator(modules: ["Features"])

    @Test("an async action is awaited")
    func awaited() async throws {
        #expect(try await forecast(mediator) == ["city": "Oslo", "sky": "clear"])
    }

    @Test("a timeout ends the wait with .timeout")
    func timeout() async throws {
        try registerRadar(mediator)
        #expect(await impatientScan(mediator) == .timeout)
    }

    @Test("a token or the task's cancellation cancels the call")
    func cancellation() async throws {
        try registerRadar(mediator)
        #expect(await cancelledScan(mediator) == [.canceled, .canceled])
    }

    @Test("an action calls on with its call's options")
    func callsOn() async throws {
        try registerTrip(mediator)
        #expect(try await mediator.call(target: "Trip", action: "plan", params: ["city": "Tromsø"]) == "go")
    }

    @Test("the AndWait form waits on a thread, and refuses to block a task's")
    func andWait() async throws {
        let mediator = self.mediator
        let fromThread = await onAThread { try? forecastAndWait(mediator) }
        #expect(fromThread == ["city": "Bergen", "sky": "clear"])
        let fromTask = #expect(throws: SwitchboardError.self) { try forecastAndWait(mediator) }
        #expect(fromTask?.code == .wouldBlock)
    }
}
