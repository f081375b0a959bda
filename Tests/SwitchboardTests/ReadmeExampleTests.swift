import Testing
import Foundation
import Switchboard

// README:begin
import Switchboard

// A component's target. Callers never import it: they name it.
final class Target_Greeter: Target {
    static let actions: Actions<Target_Greeter> = [
        "hello": { _, params in .string("Hello, \(params["name"]?.string ?? "world")!") },
        "notFound": { _, _ in "Greeter has no such action" },
    ]
}

// Params and results can be Codable types.
struct Order: Codable {
    var item: String
    var count: Int
}

func readmeExample(appModule: String) async throws -> [Value] {
    // Target_<Name> classes are looked up by name in these modules.
    let mediator = Mediator(modules: [appModule])

    // Found by name, no registration: "Hello, Ada!"
    let hello = try await mediator.call(target: "Greeter", action: "hello", params: ["name": "Ada"])

    // Closures register under a name; an async one answers when it returns.
    try mediator.register(target: "Kitchen", action: "cook") { params async throws -> Value in
        let order = try params.decode(Order.self)
        return .string("\(order.count) x \(order.item)")
    }
    // A second argument is the call's context: call on through its mediator
    // (never Mediator.shared), with its deadline and cancellation.
    try mediator.register(target: "Shop", action: "order") { params, call async throws -> Value in
        try await call.mediator.call(target: "Kitchen", action: "cook", params: params, options: call.options)
    }
    let cooked = try await mediator.call(target: "Shop", action: "order",
                                         params: Params(encoding: Order(item: "tea", count: 2)))  // "2 x tea"

    // Params can carry callbacks, callable from any language.
    try mediator.register(target: "Dialog", action: "confirm") { params in
        try params["onAnswer"]?.callback?(["answer": "yes"]) ?? .null
    }
    let answer = try await mediator.call(target: "Dialog", action: "confirm", params: [
        "onAnswer": .callback(Callback { reply in reply["answer"] ?? .null }),
    ])

    // A failure says why: switch on its code (a release may add codes).
    do {
        _ = try await mediator.call(target: "Nobody", action: "anything")
    } catch {
        switch error.code {
        case .noTarget, .noAction: print(error.message)  // no target named "Nobody" ...
        default: throw error
        }
    }
    return [hello, cooked, answer]
}

// Synchronous code uses the forms that wait on its thread, named AndWait.
func readmeWaiting(_ mediator: Mediator) throws -> Value {
    try mediator.callAndWait(target: "Greeter", action: "hello")
}
// README:end

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's Swift example runs and gives what its comments say")
    func runs() async throws {
        let results = try await readmeExample(appModule: "SwitchboardTests")
        #expect(results == ["Hello, Ada!", "2 x tea", "yes"])
        #expect(try readmeWaiting(Mediator(modules: ["SwitchboardTests"])) == "Hello, world!")
    }

    @Test("the README shows exactly the example compiled here")
    func inSync() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let example = try #require(Self.between("// README:begin\n", "// README:end\n", in: source))
        #expect(readme.contains("```swift\n" + example + "```\n"))
    }

    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }
}
