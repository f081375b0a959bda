// The calls of the DocC article "Declaring Contracts"
// (Sources/Switchboard/Switchboard.docc/DeclaringContracts.md shows them).
import Switchboard
import Testing

func alerts(_ mediator: Mediator) async throws -> [Value] {
    // "times" left out: its default, 1.
    let once = try await mediator.call(target: "Alert", action: "show", params: ["message": "Hi"])  // "Hi"
    let twice = try await mediator.call(target: "Alert", action: "show",
                                        params: ["message": "Hi", "times": 2])  // "Hi Hi"
    return [once, twice]
}

func badAlerts(_ mediator: Mediator) async -> [String] {
    var messages: [String] = []
    for params: Params in [["times": 2], ["message": 42]] {
        do {
            _ = try await mediator.call(target: "Alert", action: "show", params: params)
        } catch {
            messages.append(error.message)  // error.code is .badParams: the action never ran
        }
    }
    return messages
    // Alert.show: missing required param "message" (string)
    // Alert.show: param "message": expected string, got int
}

func registerMath(_ mediator: Mediator) throws {
    // A contract is a string literal, or Contract(parsing:) to catch its errors.
    try mediator.register(target: "Math", action: "add", contract: "a: int, b: int -> int") { params in
        .int((params["a"]?.int ?? 0) + (params["b"]?.int ?? 0))
    }
    // A result of another type than declared fails the call (.typeMismatch).
    try mediator.register(target: "Math", action: "broken", contract: "-> int") { _ in "not a number" }
    // local: calls by name and routes reach it, URLs never do (.rejected).
    try mediator.register(target: "Math", action: "reset", contract: "local") { _ in true }
}

func mathFromURLs(_ mediator: Mediator) async throws -> Value {
    // A URL's query values are strings: converted to the declared types.
    try await mediator.call(url: "app://Math/add?a=2&b=3")  // 5
}

@Suite("DocC article: Declaring Contracts")
struct ContractsArticle {
    let mediator = Mediator(modules: ["Features"])

    @Test("defaults are filled in")
    func defaults() async throws {
        #expect(try await alerts(mediator) == ["Hi", "Hi Hi"])
    }

    @Test("params that break the contract fail with .badParams, naming the key")
    func badParams() async throws {
        #expect(await badAlerts(mediator) == [
            "Alert.show: missing required param \"message\" (string)",
            "Alert.show: param \"message\": expected string, got int",
        ])
        let error = await #expect(throws: SwitchboardError.self) {
            try await mediator.call(target: "Alert", action: "show", params: ["message": 42])
        }
        #expect(error?.code == .badParams)
    }

    @Test("results, URLs and local actions")
    func registered() async throws {
        try registerMath(mediator)
        #expect(try await mediator.call(target: "Math", action: "add", params: ["a": 2, "b": 3]) == 5)
        #expect(try await mathFromURLs(mediator) == 5)
        let broken = await #expect(throws: SwitchboardError.self) {
            try await mediator.call(target: "Math", action: "broken")
        }
        #expect(broken?.code == .typeMismatch)
        #expect(try await mediator.call(target: "Math", action: "reset") == true)
        let fromURL = await #expect(throws: SwitchboardError.self) {
            try await mediator.call(url: "app://Math/reset")
        }
        #expect(fromURL?.code == .rejected)
    }

    @Test("a contract that does not parse is refused when registered")
    func unparsable() throws {
        #expect(throws: SwitchboardError.self) { try Contract(parsing: "a: integer") }
        let error = #expect(throws: SwitchboardError.self) {
            try mediator.register(target: "Math", action: "odd", contract: "a: integer") { _ in .null }
        }
        #expect(error?.code == .invalidArgument)
    }
}
