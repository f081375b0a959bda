// The tests of the DocC article "Testing with Your Own Mediator"
// (Sources/Switchboard/Switchboard.docc/TestingWithYourOwnMediator.md shows them).
import Synchronization
import Switchboard
import Testing

@Suite("Checkout")
struct CheckoutTests {
    // Each test gets a mediator of its own (Swift Testing makes a new
    // instance of the suite per test, and runs tests in parallel).
    let mediator = Mediator(modules: ["Features"])

    @Test func paysWhenTheCardIsCharged() async throws {
        // A stand-in for the Payments feature, which this test does not link.
        try mediator.register(target: "Payments", action: "charge") { _ in true }
        #expect(try await mediator.call(target: "Checkout", action: "pay", params: ["cents": 300]) == "paid")
    }

    @Test func declinesWhenTheChargeFails() async throws {
        try mediator.register(target: "Payments", action: "charge") { _ in false }
        #expect(try await mediator.call(target: "Checkout", action: "pay", params: ["cents": 300]) == "declined")
    }

    @Test func failsWithoutPayments() async throws {
        let error = await #expect(throws: SwitchboardError.self) {
            try await mediator.call(target: "Checkout", action: "pay", params: ["cents": 300])
        }
        #expect(error?.code == .noTarget)  // the nested call's failure, passed on
    }

    @Test func chargesTheAmountAsked() async throws {
        // A stand-in that records what it was asked.
        let charged = Mutex<[Value]>([])
        try mediator.register(target: "Payments", action: "charge") { params in
            charged.withLock { $0.append(params["cents"] ?? .null) }
            return true
        }
        _ = try await mediator.call(target: "Checkout", action: "pay", params: ["cents": 300])
        #expect(charged.withLock { $0 } == [300])
    }

    @Test func everyCallIsObserved() async throws {
        // An observer sees every call, nested ones included.
        let calls = Mutex<[String]>([])
        try mediator.addObserver { event in
            guard event.phase == .end else { return }
            calls.withLock { $0.append("\(event.target ?? "?").\(event.action ?? "?")") }
        }
        // An interceptor can answer instead of a target: here, for a
        // Payments target that may exist in the modules searched.
        try mediator.addInterceptor(named: "no real payments") { call in
            call.target == "Payments" ? .answer(true) : .proceed
        }
        _ = try await mediator.call(target: "Checkout", action: "pay", params: ["cents": 300])
        #expect(calls.withLock { $0 } == ["Payments.charge", "Checkout.pay"])
    }
}

@Suite("DocC article: Testing with Your Own Mediator")
struct TestingArticle {
    @Test("what a test registers on its own mediator never reaches the shared one")
    func sharedUntouched() async throws {
        let mine = Mediator(modules: ["Features"])
        try mine.register(target: "Payments", action: "charge") { _ in true }
        #expect(try await mine.call(target: "Checkout", action: "pay", params: ["cents": 1]) == "paid")
        let error = await #expect(throws: SwitchboardError.self) {
            try await Mediator.shared.call(target: "Payments", action: "charge")
        }
        #expect(error?.code == .noTarget)
    }
}
