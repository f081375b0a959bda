// The calls of the DocC article "Opening URLs"
// (Sources/Switchboard/Switchboard.docc/OpeningURLs.md shows them).
import Synchronization
import Switchboard
import Testing

func registerArticles(_ mediator: Mediator) throws {
    try mediator.register(target: "Article", action: "show") { params in
        .string("article \(params["id"] ?? .null)")
    }
}

func openByTarget(_ mediator: Mediator) async throws -> Value {
    // scheme://target/action?query: app is connected to targets.
    try await mediator.call(url: "app://Article/show?id=42")  // "article \"42\"": a query value is a string
}

func openByPattern(_ mediator: Mediator) async throws -> Value {
    // Patterns of your own, with typed placeholders: <int:id> captures an int.
    try mediator.addURLPattern("app://news/<int:id>", target: "Article", action: "show")
    return try await mediator.call(url: "app://news/7")  // "article 7"
}

func lookAndBuild(_ mediator: Mediator) throws -> [String] {
    // Where a URL would go, without calling anything.
    let found = try mediator.lookup(url: "app://news/7")
    // A URL from a pattern and params; params no placeholder takes become the query.
    let built = try mediator.buildURL(pattern: "app://news/<int:id>", params: ["id": 8, "from": "mail"])
    return ["\(found.kind) \(found.target ?? "") \(found.params["id"] ?? .null)", built]
    // ["pattern Article 7", "app://news/8?from=mail"]
}

func guarded(_ mediator: Mediator) async -> (codes: [SwitchboardError.Code?], refused: [String]) {
    // Only these schemes and targets; actions named native* never, whatever the policy.
    mediator.urlPolicy = URLPolicy(schemes: ["app"], targets: ["Article"])
    let refused = Mutex<[String]>([])
    mediator.onRejectedURL = { rejected in refused.withLock { $0.append(rejected.url) } }

    var codes: [SwitchboardError.Code?] = []
    for url in ["app://Payments/charge?cents=100", "app://Article/nativeDelete", "app://Article/show?id=%zz"] {
        do { _ = try await mediator.call(url: url) } catch { codes.append(error.code) }
    }
    return (codes, refused.withLock { $0 })
    // [.rejected, .rejected, .badURL]; the two rejected URLs reach onRejectedURL
}

func openWithCompletion(_ mediator: Mediator) async -> (value: Value, reply: Value?) {
    let reply = Mutex<Value?>(nil)
    // CTMediator's form: never throws; .null on failure, and the completion says why.
    let value = await mediator.open("app://Nobody/show") { answer in
        reply.withLock { $0 = answer }  // ["error": "no target named \"Nobody\" ...", "code": "ENOTARGET"]
    }
    return (value, reply.withLock { $0 })
}

@Suite("DocC article: Opening URLs")
struct URLsArticle {
    let mediator = Mediator()

    @Test("a URL to a target, and one a pattern matches")
    func open() async throws {
        try registerArticles(mediator)
        #expect(try await openByTarget(mediator) == "article \"42\"")
        #expect(try await openByPattern(mediator) == "article 7")
        #expect(try lookAndBuild(mediator) == ["pattern Article 7", "app://news/8?from=mail"])
        #expect(try await mediator.call(url: "app://news/8?from=mail") == "article 8")
    }

    @Test("the policy and the native rule refuse, and say so")
    func policy() async throws {
        try registerArticles(mediator)
        let (codes, refused) = await guarded(mediator)
        #expect(codes == [.rejected, .rejected, .badURL])
        #expect(refused == ["app://Payments/charge?cents=100", "app://Article/nativeDelete"])
        #expect(try await mediator.call(url: "app://Article/show?id=1") == "article \"1\"")
    }

    @Test("open never throws: .null, and the completion says why")
    func completion() async {
        let (value, reply) = await openWithCompletion(mediator)
        #expect(value == .null)
        #expect(reply?["code"] == "ENOTARGET")
        #expect(reply?["error"]?.string?.hasPrefix("no target named \"Nobody\"") == true)
    }
}
