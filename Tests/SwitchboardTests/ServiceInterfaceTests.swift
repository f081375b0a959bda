import Synchronization
import Testing
@testable import Switchboard

protocol Pinger: Sendable { func ping() -> String }
private struct Pong: Pinger { func ping() -> String { "pong" } }
private final class FailureCount: Sendable { let count = Atomic<Int>(0) }

/// Named services (the protocol-class scheme for every face): define an
/// interface, bind a conforming target, call through the interface.
@Suite("Named services")
struct ServiceInterfaceTests {
    private static let payments = """
        -- what a payment provider answers
        charge(cents: int, currency: string = "EUR" -> bool)
        refund(cents: int)
        status
        """

    private func provider(_ m: Mediator, _ name: String, answer: Bool = true) throws {
        try m.register(target: name, action: "charge", contract: "cents: int, currency: string? -> bool") { _ in
            .bool(answer)
        }
        try m.register(target: name, action: "refund") { p in p["cents"] ?? .null }
        try m.register(target: name, action: "status") { _ in .string(name) }
    }

    @Test("a call through the interface reaches the bound target, and rebinding switches at once")
    func bindAndCall() throws {
        let m = Mediator()
        try provider(m, "Stripe")
        try provider(m, "Adyen", answer: false)
        try m.defineService("Payments", interface: Self.payments)
        try m.bindService("Payments", to: "Stripe")
        #expect(try m.callServiceAndWait("Payments", action: "charge", params: ["cents": 300]) == true)
        #expect(try m.callServiceAndWait("Payments", action: "status") == "Stripe")
        try m.bindService("Payments", to: "Adyen")
        #expect(try m.callServiceAndWait("Payments", action: "charge", params: ["cents": 300]) == false)
        #expect(try m.callServiceAndWait("Payments", action: "status") == "Adyen")
    }

    @Test("binding refuses a target that lacks an action or has an incompatible contract, naming each")
    func conformance() throws {
        let m = Mediator()
        try m.defineService("Payments", interface: Self.payments)
        try m.register(target: "Half", action: "charge", contract: "cents: string -> bool") { _ in true }
        try m.register(target: "Half", action: "notFound") { _ in .null }
        let error = #expect(throws: SwitchboardError.self) { try m.bindService("Payments", to: "Half") }
        #expect(error?.code == .typeMismatch) // the target is not of the interface's kind
        #expect(error?.message.contains("refund is missing") == true)
        #expect(error?.message.contains("status is missing") == true)
        #expect(error?.message.contains("param \"cents\" is string on the target, int in the interface") == true)

        try m.register(target: "Untyped", actions: ["charge": { _ in true }, "refund": { _ in .null }, "status": { _ in .null }])
        let untyped = #expect(throws: SwitchboardError.self) { try m.bindService("Payments", to: "Untyped") }
        #expect(untyped?.message.contains("the interface declares result bool, the target declares none") == true)

        try m.register(target: "Strict", action: "charge", contract: "cents: int, token: string -> bool") { _ in true }
        try m.register(target: "Strict", actions: ["refund": { _ in .null }, "status": { _ in .null }])
        let strict = #expect(throws: SwitchboardError.self) { try m.bindService("Payments", to: "Strict") }
        #expect(strict?.message.contains("requires param \"token\"") == true)

        let nobody = #expect(throws: SwitchboardError.self) { try m.bindService("Payments", to: "Nobody") }
        #expect(nobody?.code == .notFound)
        let undefined = #expect(throws: SwitchboardError.self) { try m.bindService("Undefined", to: "Half") }
        #expect(undefined?.code == .notFound)
        // Nothing was bound by the refusals.
        let unbound = #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Payments", action: "status") }
        #expect(unbound?.code == .noTarget)
    }

    @Test("the interface holds at the call: its params and defaults, its result, whatever the binding points to now")
    func interfaceHoldsAtTheCall() throws {
        let m = Mediator()
        try m.defineService("Quotes", interface: "quote(cents: int, currency: string = \"EUR\" -> string)")
        try m.register(target: "Q", action: "quote", contract: "cents: int, currency: string? -> string") { p in
            .string(p["currency"]?.string ?? "none")
        }
        try m.register(target: "Other.Q", action: "quote") { _ in "other" }
        try m.bindService("Quotes", to: "Q")
        // The interface's default is filled in; its required param is required.
        #expect(try m.callServiceAndWait("Quotes", action: "quote", params: ["cents": 1]) == "EUR")
        let missing = #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Quotes", action: "quote") }
        #expect(missing?.code == .badParams)
        #expect(missing?.message.contains("service Quotes.quote") == true)
        // The binding alone picks the target: a module key is only a param.
        #expect(try m.callServiceAndWait("Quotes", action: "quote",
                                  params: ["cents": 1, Mediator.moduleKey: "Other", "currency": "USD"]) == "USD")
        // The bound target replaced by one that breaks the interface.
        #expect(m.unregister(target: "Q"))
        try m.register(target: "Q", action: "quote") { _ in .int(42) }
        let wrong = #expect(throws: SwitchboardError.self) {
            try m.callServiceAndWait("Quotes", action: "quote", params: ["cents": 1])
        }
        #expect(wrong?.code == .typeMismatch)
        #expect(wrong?.message == "service Quotes.quote: expected a string result, got int")
        // An interceptor's answer too.
        try m.register(target: "Q", action: "quote", contract: "cents: int -> string") { _ in "fine" }
        try m.addInterceptor(named: "mock") { _ in .answer(.bool(true)) }
        let mocked = #expect(throws: SwitchboardError.self) {
            try m.callServiceAndWait("Quotes", action: "quote", params: ["cents": 1])
        }
        #expect(mocked?.code == .typeMismatch)
        robustnessRow("Calls through a service whose binding no longer conforms (target replaced, interceptor "
                      + "answering), missing params, a module key in the params", cases: 5,
                      "the interface's contract is checked at the call: EPARAMS / ETYPE naming the service; "
                      + "defaults filled in; the bound target answers")
    }

    @Test("an interface text with CRLF line ends (a file written on Windows) has one action per line")
    func crlfLines() throws {
        let m = Mediator()
        try m.defineService("S", interface: "a\r\nb(x: int,\r\n y: int -> int)\r\n-- a comment\r\nc")
        let entry = try #require(m.services.interfaces.entry("S"))
        #expect(entry.actions.map(\.name) == ["a", "b", "c"])
        #expect(entry.actions[1].contract?.params.map(\.name) == ["x", "y"])
    }

    @Test("an interface without contracts takes any target that has its actions")
    func plainInterface() throws {
        let m = Mediator()
        try m.defineService("Echo", interface: "echo")
        try m.register(target: "E", action: "echo") { p in .dict(p) }
        try m.bindService("Echo", to: "E")
        #expect(try m.callServiceAndWait("Echo", action: "echo", params: ["a": 1]) == ["a": 1])
    }

    @Test("an action the interface does not declare, an undefined or unbound service fail clearly")
    func failures() throws {
        let m = Mediator()
        try provider(m, "Stripe")
        try m.defineService("Payments", interface: Self.payments)
        let unbound = #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Payments", action: "status") }
        #expect(unbound?.code == .noTarget)
        #expect(unbound?.message.contains("not bound") == true)
        try m.bindService("Payments", to: "Stripe")
        let other = #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Payments", action: "delete") }
        #expect(other?.code == .noAction)
        #expect(other?.message.contains("charge, refund, status") == true)
        let undefined = #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Nope", action: "status") }
        #expect(undefined?.code == .notFound) // no such service: a lookup, not a call's missing target
        // Redefining drops the binding; unbinding with nil too.
        try m.defineService("Payments", interface: Self.payments)
        #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Payments", action: "status") }
        try m.bindService("Payments", to: "Stripe")
        try m.bindService("Payments", to: nil)
        #expect(throws: SwitchboardError.self) { try m.callServiceAndWait("Payments", action: "status") }
        #expect(m.removeService("Payments"))
        #expect(!m.removeService("Payments"))
    }

    @Test("bad interfaces are refused with the reason")
    func badInterfaces() {
        let m = Mediator()
        let cases: [(String, String)] = [
            ("", "declares no action"),
            ("-- only a comment", "declares no action"),
            ("a\na", "declared twice"),
            ("a(x: nosuchtype)", "nosuchtype"),
            ("a(x: int", "closing parenthesis"),
            ("(x: int)", "empty"),
        ]
        for (text, reason) in cases {
            let error = #expect(throws: SwitchboardError.self) { try m.defineService("S", interface: text) }
            #expect(error?.message.contains(reason) == true, "\(text): \(error?.message ?? "")")
        }
        #expect(throws: SwitchboardError.self) { try m.defineService("", interface: "a") }
        robustnessRow("Service interfaces and bindings: bad interface texts, nonconforming targets (missing "
                      + "actions, param and result types), undefined or unbound services, undeclared actions",
                      cases: cases.count + 8, "SwitchboardError with the reason naming each missing or "
                      + "incompatible action; nothing defined or bound")
    }

    @Test("a rebinding is atomic: concurrent calls see one target or the other, never a failure")
    func atomicRebinding() async throws {
        let m = Mediator()
        try provider(m, "A")
        try provider(m, "B")
        try m.defineService("Payments", interface: Self.payments)
        try m.bindService("Payments", to: "A")
        let failures = FailureCount()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<500 { try? m.bindService("Payments", to: i % 2 == 0 ? "B" : "A") }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<500 {
                        let answer = try? m.callServiceAndWait("Payments", action: "status")
                        if answer != "A" && answer != "B" { failures.count.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        #expect(failures.count.load(ordering: .relaxed) == 0)
    }

    @Test("the catalogue lists interfaces with their bindings beside Swift's typed services")
    func catalogue() throws {
        let m = Mediator()
        try provider(m, "Stripe")
        try m.defineService("Payments", interface: Self.payments)
        try m.defineService("Unbound", interface: "x")
        try m.bindService("Payments", to: "Stripe")
        m.register(Pinger.self) { Pong() }
        let rows = m.routes()["services"]?.array ?? []
        #expect(rows.count == 3)
        let payments = rows.first { $0.dict?["name"] == "Payments" }?.dict
        #expect(payments?["kind"] == "interface")
        #expect(payments?["target"] == "Stripe")
        #expect(payments?["actions"] == ["charge", "refund", "status"])
        #expect(payments?["contracts"]?.dict?["charge"] != nil)
        #expect(payments?["contracts"]?.dict?["status"] == nil)
        #expect(rows.first { $0.dict?["name"] == "Unbound" }?.dict?["target"] == .null)
        let typed = rows.first { $0.dict?["name"]?.string?.hasSuffix("Pinger") == true }?.dict
        #expect(typed?["kind"] == "protocol")
    }
}
