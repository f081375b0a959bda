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

func readmeExample(appModule: String) throws -> [Value] {
    // Target_<Name> classes are looked up by name in these modules.
    let mediator = Mediator(modules: [appModule])

    // Found by name, no registration: "Hello, Ada!"
    let hello = mediator.perform(target: "Greeter", action: "hello", params: ["name": "Ada"])

    // Closures register under a name; params can carry callbacks.
    try mediator.register(target: "Dialog", action: "confirm") { params in
        try params["onAnswer"]?.callback?(["answer": "yes"]) ?? .null
    }
    let answer = mediator.perform(target: "Dialog", action: "confirm", params: [
        "onAnswer": .callback(Callback { reply in reply["answer"] ?? .null }),
    ])

    // call() reports why a call failed; perform() falls back quietly to null.
    do {
        _ = try mediator.call(target: "Nobody", action: "anything")
    } catch {
        print(error)  // ENOTARGET: no target named "Nobody"
    }
    return [hello, answer]
}
// README:end

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's Swift example runs and gives what its comments say")
    func runs() throws {
        let results = try readmeExample(appModule: "SwitchboardTests")
        #expect(results == ["Hello, Ada!", "yes"])
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
