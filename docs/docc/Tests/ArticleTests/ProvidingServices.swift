// The calls of the DocC article "Providing Services"
// (Sources/Switchboard/Switchboard.docc/ProvidingServices.md shows them).
import Switchboard
import Testing

// A Swift protocol that callers know, and an implementation they do not.
protocol Payments: Sendable {
    func charge(cents: Int) -> Bool
}

struct CardPayments: Payments {
    func charge(cents: Int) -> Bool { cents <= 10_000 }
}

func typedService(_ mediator: Mediator) -> Bool? {
    // Made on first use, then kept (lifetime: .perCall makes one per request).
    mediator.register(Payments.self) { CardPayments() }
    return mediator.service(Payments.self)?.charge(cents: 300)  // true
}

func namedService(_ mediator: Mediator) async throws -> Value {
    // A service by name, for every face: its actions and their contracts.
    try mediator.defineService("Payments", interface: """
        charge(cents: int -> bool)
        refund(cents: int)
        """)
    // A target that conforms: every action, with compatible contracts.
    try mediator.register(target: "Card", action: "charge", contract: "cents: int -> bool") { params in
        .bool((params["cents"]?.int ?? 0) <= 10_000)
    }
    try mediator.register(target: "Card", action: "refund", contract: "cents: int") { _ in .null }
    try mediator.bindService("Payments", to: "Card")

    // Callers name the service; the binding picks the target.
    return try await mediator.callService("Payments", action: "charge", params: ["cents": 300])  // true
}

func badBinding(_ mediator: Mediator) -> SwitchboardError? {
    do {
        try mediator.register(target: "Cash", action: "charge", contract: "cents: int -> bool") { _ in true }
        try mediator.bindService("Payments", to: "Cash")  // Cash has no refund
        return nil
    } catch {
        return error  // .typeMismatch, naming refund
    }
}

@Suite("DocC article: Services")
struct ServicesArticle {
    let mediator = Mediator()

    @Test("a typed service")
    func typed() {
        #expect(typedService(mediator) == true)
        #expect(mediator.service(Payments.self)?.charge(cents: 20_000) == false)
    }

    @Test("a named service, bound to a conforming target")
    func named() async throws {
        #expect(try await namedService(mediator) == true)
        let refused = try #require(badBinding(mediator))
        #expect(refused.code == .typeMismatch)
        #expect(refused.message.contains("refund is missing"))
        // The binding did not change.
        #expect(try await mediator.callService("Payments", action: "charge", params: ["cents": 20_000]) == false)
    }
}
