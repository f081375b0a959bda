// What issue 41 added to the URL router: the unmatched-URL fallback, lookups
// that do not call, converters, the router's keys, removing a scheme's
// patterns, the rule for a URL's user and port, and the messages of URLs
// nothing matches. URLs built from patterns are URLBuilderTests'.
import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard

/// Lines, in order, from any thread.
private final class Log: Sendable {
    private let lines = Guarded<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// What the URL observer hears.
private final class Heard: Sendable {
    private let reasons = Guarded<[String]>([])
    var all: [String] { reasons.withLock { $0 } }
    func install(on m: Mediator) { m.onRejectedURL = { [self] r in reasons.withLock { $0.append(r.reason) } } }
}

@Suite("URL routing: the unmatched-URL fallback")
struct URLFallbackTests {
    @Test("a scheme's fallback, then every scheme's, answer what no pattern or connector takes")
    func order() throws {
        let m = try echoMediator()
        try m.register(target: "Web", action: "miss") { .dict($0) }
        try m.route("shop://item/<int:id>")
        #expect(m.failure("shop://nothing") == .noTarget)
        try m.setURLFallback(target: "Web", action: "miss")
        #expect(m.routed("shop://nothing/here?q=1") == ["url": "shop://nothing/here?q=1", "scheme": "shop", "host": "nothing",
                                                        "path": ["here"], "query": ["q": "1"]])
        #expect(m.routed("other://x")?["scheme"] == "other") // every scheme the policy allows
        try m.setURLFallback(target: "T", action: "echo", scheme: "SHOP")
        #expect(try m.lookup(url: "shop://nothing").target == "T")
        #expect(try m.lookup(url: "other://x").target == "Web")
        // Patterns and connectors come first.
        #expect(try m.lookup(url: "shop://item/7").kind == .pattern)
        #expect(try m.lookup(url: "app://Ghost/boo").kind == .targets) // NoTargetAction's, not the fallback's
        // app://a/b/c/d is not target/action: the fallback takes it.
        #expect(try m.lookup(url: "app://a/b/c/d").kind == .fallback)
        try m.connect(scheme: "web", to: .forward(target: "T", action: "echo"))
        #expect(try m.lookup(url: "web://a/b/c").kind == .forward)
        // A URL that does not parse never reaches it.
        #expect(m.failure("shop://bad%zz") == .badURL)
        #expect(m.removeURLFallback(scheme: "shop") && !m.removeURLFallback(scheme: "shop"))
        #expect(try m.lookup(url: "shop://nothing").target == "Web")
        #expect(m.removeURLFallback())
        #expect(m.failure("shop://nothing") == .noTarget)
    }

    @Test("the policy holds for the fallback: its scheme, its target, native*, and after a redirect")
    func policy() throws {
        let m = try echoMediator()
        let heard = Heard()
        heard.install(on: m)
        try m.register(target: "T", action: "nativeMiss") { _ in Issue.record("a URL reached a native action"); return .null }
        try m.setURLFallback(target: "T", action: "echo")
        m.urlPolicy = URLPolicy(schemes: ["app"], targets: ["Other"])
        #expect(m.failure("shop://x") == .rejected) // the scheme first: nothing is matched
        #expect(m.failure("app://a/b/c") == .rejected) // T is not listed
        m.urlPolicy = URLPolicy()
        try m.setURLFallback(target: "T", action: "nativeMiss", scheme: "app")
        #expect(m.failure("app://a/b/c") == .rejected)
        #expect(heard.all.count == 3)
        // An interceptor that moves the fallback's call onto a native action is refused where it lands.
        try m.setURLFallback(target: "T", action: "echo", scheme: "app")
        try m.addInterceptor(named: "mover") { _ in .redirect(target: "T", action: "nativeMiss", params: nil) }
        #expect(m.failure("app://a/b/c") == .rejected)
    }

    @Test("a fallback that opens unmatched URLs again stops at the call-depth limit")
    func reentrant() throws {
        let m = Mediator()
        let calls = Counter()
        try m.register(target: "Loop", action: "again") { [m] params in
            calls.increment()
            return try m.callAndWait(url: params["url"]!.string!)
        }
        try m.setURLFallback(target: "Loop", action: "again")
        #expect(m.failure("loop://forever") == .rejected)
        #expect(calls.value > 10 && calls.value < CallDepth.limit)
    }

    @Test("names are checked; the fallback is listed in the catalogue")
    func registration() throws {
        let m = Mediator()
        #expect(throws: SwitchboardError.self) { try m.setURLFallback(target: "", action: "a") }
        #expect(throws: SwitchboardError.self) { try m.setURLFallback(target: "T", action: "a", scheme: "1bad") }
        try m.setURLFallback(target: "T", action: "a", scheme: "shop")
        try m.setURLFallback(target: "U", action: "b")
        #expect(m.routes()["url_fallbacks"] == [["scheme": .null, "target": "U", "action": "b"],
                                                ["scheme": "shop", "target": "T", "action": "a"]])
    }
}

@Suite("URL routing: lookups that do not call")
struct URLLookupTests {
    @Test("a lookup says what would answer, with the params, and runs no target, interceptor, observer or completion")
    func lookup() throws {
        let m = Mediator()
        let ran = Counter()
        try m.register(target: "T", action: "echo") { _ in ran.increment(); return .null }
        try m.addInterceptor(named: "watch") { _ in ran.increment(); return .proceed }
        _ = try m.addObserver { _ in ran.increment() }
        let heard = Heard()
        heard.install(on: m)
        try m.addURLPattern("app://user/<int:id>", target: "T", action: "echo")
        let found = try m.lookup(url: "app://user/42?tab=posts")
        #expect(found == URLLookup(kind: .pattern, scheme: "app", target: "T", action: "echo", pattern: "app://user/<int:id>",
                                   params: ["tab": "posts", "id": 42, Mediator.patternKey: "app://user/<int:id>",
                                            Mediator.schemeKey: "app", Mediator.urlKey: "app://user/42?tab=posts"]))
        #expect(try m.lookup(url: "APP://T/echo?x=1") == URLLookup(kind: .targets, scheme: "app", target: "T", action: "echo",
                                                                   pattern: nil, params: ["x": "1"]))
        // Refusals are the call's, but quiet.
        #expect { try m.lookup(url: "app://T/nativeX") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect { try m.lookup(url: "app://T/echo?switchboard.pattern=x") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect { try m.lookup(url: "nope://x") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        #expect(ran.value == 0 && heard.all.isEmpty)
        #expect(try m.lookup(url: "app://user/42").value["kind"] == "pattern")
    }

    @Test("a handler's name never shows: target and action are nil")
    func handlers() throws {
        let m = Mediator()
        try m.setURLFallback(scheme: nil, handler: Answer())
        try m.addURLPattern("app://h/:x", handler: Answer())
        try m.connect(scheme: "web", handler: Answer())
        for (url, kind) in [("app://a/b/c", URLLookup.Kind.fallback), ("app://h/1", .pattern), ("web://x", .forward)] {
            let found = try m.lookup(url: url)
            #expect(found.kind == kind && found.target == nil && found.action == nil, "\(url)")
            #expect(found.value["handler"] == true && found.value["target"] == nil)
        }
        #expect(try m.callAndWait(url: "app://a/b/c")["url"] == "app://a/b/c")
        #expect(m.routes()["url_fallbacks"] == [["scheme": .null, "handler": true]])
        // No name reaches the fallback's handler.
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: HandlerName.fallback(nil), action: "open") }
        #expect(m.removeURLFallback(scheme: nil) { _ in false } == false)
        #expect(m.removeURLFallback(scheme: nil) { $0 is Answer })
        #expect(m.failure("app://a/b/c") == .badURL)
    }

    /// A function another face would give: answers its args.
    private final class Answer: ForeignFunction, @unchecked Sendable {
        override func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value { args }
        override func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                                 out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
            preconditionFailure("Swift callers only")
        }
    }

    @Test("a signed mediator looks up signed URLs only, and tells no observer")
    func signed() throws {
        let m = try echoMediator()
        let heard = Heard()
        heard.install(on: m)
        m.urlSigner = RejectAll()
        #expect { try m.lookup(url: "app://T/echo") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect(heard.all.isEmpty)
        #expect(!m.canOpen(url: "app://T/echo"))
    }

    /// A signature check that refuses every URL.
    private struct RejectAll: URLSignatureCheck {
        func verified(_ url: String) -> Result<String, URLSignatureRefusal> { .failure(.unsigned) }
    }
}

@Suite("URL routing: converters")
struct URLConverterTests {
    @Test("precedence: literal, int, float, uuid, converters by name, :name, path, *")
    func precedence() throws {
        let m = try echoMediator()
        let asked = Log()
        for type in ["zz", "aa"] {
            try m.addURLConverter(type) { segment in
                asked.append("\(type):\(segment)")
                return segment.hasPrefix(type) ? .string(type) : nil
            }
        }
        try m.route("p://x/<zz:v>", "p://x/<aa:v>", "p://x/:v", "p://x/<float:v>", "p://x/<int:v>", "p://x/<uuid:v>",
                    "p://x/lit")
        #expect(m.routed("p://x/lit")?[Mediator.patternKey] == "p://x/lit")
        #expect(m.routed("p://x/7")?[Mediator.patternKey] == "p://x/<int:v>")
        #expect(m.routed("p://x/7.5")?[Mediator.patternKey] == "p://x/<float:v>")
        #expect(m.routed("p://x/00000000-0000-0000-0000-00000000000A")?["v"] == "00000000-0000-0000-0000-00000000000a")
        #expect(asked.all.isEmpty) // no converter asked while a built-in type matched
        #expect(m.routed("p://x/zzz")?[Mediator.patternKey] == "p://x/<zz:v>")
        #expect(m.routed("p://x/aaz")?[Mediator.patternKey] == "p://x/<aa:v>")
        #expect(m.routed("p://x/other")?[Mediator.patternKey] == "p://x/:v")
        // In byte order of their names, each asked once per segment.
        #expect(asked.all == ["aa:zzz", "zz:zzz", "aa:aaz", "aa:other", "zz:other"])
    }

    @Test("a converter's failure fails the call with its code; one that is removed declines")
    func failureAndRemoval() throws {
        let m = try echoMediator()
        try m.addURLConverter("strict") { _ in throw SwitchboardError.badParams("not a slug") }
        try m.route("p://x/<strict:v>", "p://y/<strict:v>/:w")
        #expect(m.failure("p://x/a") == .badParams)
        #expect(m.removeURLConverter("strict") && !m.removeURLConverter("strict"))
        #expect(m.failure("p://x/a") == .noTarget)
        // A pattern naming a converter that is not registered is refused.
        let error = #expect(throws: SwitchboardError.self) { try m.route("p://z/<strict:v>") }
        #expect(error?.message.contains("not registered") == true)
        for bad in ["", "int", "string", "path", "float", "uuid", "1x", "a-b", "é", String(repeating: "a", count: 65)] {
            #expect(throws: SwitchboardError.self) { try m.addURLConverter(bad) { .string($0) } }
        }
    }

    @Test("a converter may open URLs and add patterns (no lock is held), within the call-depth limit")
    func reentrant() throws {
        let m = try echoMediator()
        try m.addURLConverter("deep") { [m] segment in
            try m.addURLPattern("q://added/\(segment)", target: "T", action: "echo")
            return try m.callAndWait(url: "p://x/" + segment)
        }
        try m.route("p://x/<deep:v>")
        #expect(m.failure("p://x/a") == .rejected) // the depth limit, not a deadlock or a crash
        #expect(m.canOpen(url: "q://added/a"))
    }

    @Test("a URL that needs more than 32 converter answers is refused")
    func bounded() throws {
        let m = try echoMediator()
        let asked = Counter()
        try m.addURLConverter("no") { _ in asked.increment(); return nil }
        // A converter node at every depth, below a chain of :name nodes:
        // the walk asks at depth 0, is declined, goes down the chain, asks at
        // depth 1, ... 40 distinct answers.
        for k in 0..<40 {
            try m.route("p://" + (0..<40).map { $0 == k ? "<no:v>" : ":s\($0)" }.joined(separator: "/"))
        }
        let url = "p://" + (0..<40).map { "s\($0)" }.joined(separator: "/")
        let error = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: url) }
        #expect(error?.code == .rejected && error?.message.contains("32 converter answers") == true)
        #expect(asked.value == PatternTrie.maximumConversions)
        robustnessRow("URL converters: a URL whose segments each ask a converter (40 segments, one converter that "
                      + "declines everything), and converters that re-enter (open URLs, add patterns)", cases: 2,
                      "at most 32 converter answers per URL, then EREJECTED; re-entry meets the call-depth limit, no lock held")
    }
}

@Suite("URL routing: the router's keys, user and port, messages")
struct URLRouterKeysTests {
    @Test("a pattern's params carry the pattern, the scheme and the URL; no URL can set a switchboard. key")
    func keys() throws {
        let m = try echoMediator()
        let heard = Heard()
        heard.install(on: m)
        try m.route("Shop://item/:id")
        #expect(m.routed("SHOP://item/7?x=1") == ["x": "1", "id": "7", Mediator.patternKey: "Shop://item/:id",
                                                  Mediator.schemeKey: "shop", Mediator.urlKey: "SHOP://item/7?x=1"])
        for query in ["switchboard.pattern=evil", "switchboard.scheme=x", "switchboard.url=x", "switchboard.anything=x",
                      "switchboard.=x", "switchboard%2Eurl=x"] {
            #expect(m.failure("shop://item/7?" + query) == .rejected, "\(query)")
            #expect(m.failure("app://T/echo?" + query) == .rejected, "\(query)")
        }
        #expect(heard.all.count == 12)
        // Not a prefix: allowed. Code beside the URL is trusted, and may set them.
        #expect(m.routed("app://T/echo?switchboardx=1&Switchboard.url=2") == ["switchboardx": "1", "Switchboard.url": "2"])
        #expect(m.routed("shop://item/7", params: [Mediator.patternKey: "mine"])?[Mediator.patternKey] == "mine")
    }

    @Test("a URL with a user, password or port, or a dot segment, matches no route; a handler of the whole URL may take it")
    func userAndPort() throws {
        let m = try echoMediator()
        try m.route("p://host/:x", "p://*", "p://files/<path:rest>")
        for url in ["p://me@host/a", "p://host:8080/a", "p://me:pw@host:1/a"] {
            let error = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: url) }
            #expect(error?.code == .badURL && error?.message.contains("user, password or port") == true)
        }
        // "../.." is no path a handler should be given, however it is spelled.
        for url in ["p://files/../../etc/passwd", "p://files/a/%2E%2E/b", "p://host/.", "p://../x"] {
            let error = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: url) }
            #expect(error?.code == .badURL && error?.message.contains("'.' and '..'") == true, "\(url)")
        }
        #expect(throws: SwitchboardError.self) { try m.route("p://a/../b") }
        #expect(throws: SwitchboardError.self) { try m.route("p://a/%2E") }
        #expect(m.failure("app://me@T/echo") == .badURL)
        try m.setURLFallback(target: "T", action: "echo", scheme: "p")
        #expect(m.routed("p://me@host/a")?["url"] == "p://me@host/a")
        #expect(m.routed("p://files/../x")?["path"] == ["..", "x"])
        try m.connect(scheme: "p", to: .forward(target: "T", action: "echo"))
        #expect(try m.lookup(url: "p://host:8080/a").kind == .forward)
        #expect(try m.lookup(url: "p://host/a").kind == .pattern)
        robustnessRow("URLs for route patterns with a user, password or port, or a \".\" or \"..\" segment (also "
                      + "escaped: %2E%2E) under <path:>, :name and *", cases: 7,
                      "no pattern matches them (EBADURL naming the rule); only a handler given the whole URL may take them")
    }

    @Test("a scheme with patterns that none matches says so, and names the nearest")
    func messages() throws {
        let m = try echoMediator()
        try m.route("shop://item/<int:id>/reviews", "shop://item/<int:id>/photos", "shop://cart", "shop://orders/:id")
        let error = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "shop://item/7/review") }
        #expect(error?.message == #"no pattern of the scheme "shop" matches "shop://item/7/review" "#
                + #"(nearest patterns: "shop://item/<int:id>/reviews", "shop://item/<int:id>/photos")"#)
        // A host no pattern has: the scheme's first patterns, not called near.
        let far = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "shop://zzz") }
        #expect(far?.message == #"no pattern of the scheme "shop" matches "shop://zzz" "#
                + #"(its patterns include "shop://item/<int:id>/reviews", "shop://item/<int:id>/photos", "shop://cart")"#)
        #expect(m.failure("other://x") == .noTarget)
        let plain = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "other://x") }
        #expect(plain?.message == #"no connector or pattern for the scheme "other""#)
        try m.route("app://user/:id")
        let targets = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "app://user/1/2") }
        #expect(targets?.code == .badURL && targets?.message.contains(#"nearest patterns: "app://user/:id""#) == true)
    }

    @Test("removing a scheme's patterns removes their handlers, and only that scheme's")
    func removeScheme() throws {
        let m = try echoMediator()
        try m.route("a://x/:id", "a://y(/:z)", "b://x/:id")
        #expect(m.removeURLPatterns(scheme: "A") == ["a://x/:id", "a://y(/:z)"])
        #expect(m.failure("a://x/1") == .noTarget && m.routed("b://x/1") != nil)
        #expect(m.routes()["patterns"]?.array?.count == 1)
        try m.route("a://x/:id") // the shape is free again
    }
}
