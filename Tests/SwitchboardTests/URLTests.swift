import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard

extension Value {
    /// A pattern's params without the keys the router adds to them
    /// (``Mediator/patternKey``, ``Mediator/schemeKey``, ``Mediator/urlKey``).
    var withoutRouterKeys: Value {
        guard let dict else { return self }
        return .dict(dict.filter { ![Mediator.patternKey, Mediator.schemeKey, Mediator.urlKey].contains($0.key) })
    }
}

/// A target whose every action is counted, so tests can prove a refused URL
/// reached no target code.
final class Spy: Sendable {
    let calls = Counter()

    func install(on m: Mediator, as name: String = "A") throws {
        try m.register(target: name, actions: [
            "show": { [calls] params in calls.increment(); return .dict(params) },
            "nativeSecret": { [calls] _ in calls.increment(); return "leaked" },
            "notFound": { [calls] _ in calls.increment(); return "notFound" },
        ])
    }
}

@Suite("URL parsing")
struct URLParsingTests {
    @Test("scheme, host, path segments and query are decoded as documented")
    func decoding() throws {
        let url = try RemoteURL("APP://Tar%20get/act%2Fion?a=1&b=%E4%B8%AD&a=2&plus=x+y&flag&&empty=")
        #expect(url.scheme == "app")
        #expect(url.host == "Tar get")
        #expect(url.segments == ["act/ion"])
        #expect(url.query == ["a": ["1", "2"], "b": "中", "plus": "x+y", "flag": "", "empty": ""])
    }

    @Test("the fragment is ignored and a repeated key keeps its order")
    func fragmentAndOrder() throws {
        let url = try RemoteURL("app://A/show?k=3&k=1&k=2#fragment")
        #expect(url.query == ["k": ["3", "1", "2"]])
        #expect(url.segments == ["show"])
    }

    @Test("bad URLs are badURL with a message naming the problem",
          arguments: [
            ("", "empty"), ("not a url", "space"), ("app://A/x\u{0}", "NUL"), ("app://A/%00", "NUL byte"),
            ("app://A/x?y=%ZZ", "percent escape"), ("app://A/x?y=%4", "percent escape"), ("app://A/x?y=%", "percent escape"),
            ("app://A/x?y=%FF", "UTF-8"), ("app:///x", "no host"), ("//A/x", "no scheme"), ("app://A//x", "empty path segment"),
            ("app://A/é", "non-ASCII"), ("app://A/x\n", "control character"),
          ])
    func badURLs(url: String, mention: String) {
        #expect {
            try RemoteURL(url)
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .badURL && error.message.contains(mention)
        }
    }

    @Test("one trailing slash after the action is no segment (CTMediator); two, or an empty segment, are refused")
    func trailingSlash() throws {
        #expect(try RemoteURL("app://E/echo/").segments == ["echo"])
        #expect(try RemoteURL("app://E/echo/?k=v").segments == ["echo"])
        #expect(try RemoteURL("app://E/").segments == [])
        #expect(try RemoteURL("app://E/a/b/").segments == ["a", "b"])
        for bad in ["app://E/echo//", "app://E//", "app://E//echo/"] {
            #expect { try RemoteURL(bad) } throws: { ($0 as? SwitchboardError)?.code == .badURL }
        }
    }

    @Test("URLs of 64 KiB and more are refused; just under is fine")
    func length() throws {
        let prefix = "app://A/show?x="
        let fits = prefix + String(repeating: "a", count: RemoteURL.maximumLength - prefix.utf8.count)
        #expect(try RemoteURL(fits).query["x"]?.string?.count == RemoteURL.maximumLength - prefix.utf8.count)
        #expect(throws: SwitchboardError.self) { try RemoteURL(fits + "a") }
        #expect(throws: SwitchboardError.self) { try RemoteURL("app://" + String(repeating: "A", count: 200_000) + "/x") }
    }
}

@Suite("Opening URLs")
struct OpenTests {
    @Test("a URL performs target/action with the query as params")
    func open() throws {
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        let result = try m.callAndWait(url: "app://A/show?id=42&tags=a&tags=b")
        #expect(result == ["id": "42", "tags": ["a", "b"]])
        #expect(spy.calls.value == 1)
    }

    @Test("app://E/echo/ performs E.echo; several segments stay refused unless a pattern matches")
    func trailingSlashOpens() throws {
        let m = Mediator()
        try m.register(target: "E", action: "echo") { .dict($0) }
        #expect(try m.callAndWait(url: "app://E/echo/?k=v") == ["k": "v"])
        #expect(try m.callAndWait(url: "app://E/echo/") == [:])
        for url in ["app://E/echo/more", "app://E/echo/more/", "app://E/echo//"] {
            #expect { try m.callAndWait(url: url) } throws: { ($0 as? SwitchboardError)?.code == .badURL }
        }
        try m.addURLPattern("app://E/echo/:id", target: "E", action: "echo")
        #expect(try m.callAndWait(url: "app://E/echo/7/").withoutRouterKeys == ["id": "7"])
        // Only `app` is connected by default.
        #expect { try m.callAndWait(url: "other://E/echo/") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        robustnessRow("URLs with a trailing slash (after the action, after a pattern's last segment, doubled, "
                      + "after an empty segment, more segments than target/action)", cases: 7,
                      "one trailing / is ignored as CTMediator does; the rest EBADURL")
    }

    @Test("params beside the URL carry what a URL cannot, and win over the query")
    func extraParams() throws {
        let m = Mediator()
        try m.register(target: "A", action: "use") { params in
            .array([params["id"] ?? .null, try params["cb"]?.callback?("called") ?? .null])
        }
        let result = try m.callAndWait(url: "app://A/use?id=fromURL&cb=notACallback",
                                params: ["id": 7, "cb": .callback(Callback { $0 })])
        #expect(result == [7, "called"])
    }

    @Test("the completion gets {result} or {error, code}")
    func completion() throws {
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        let seen = Box()
        let value = m.openAndWait("app://A/show?x=1") { seen.set($0) }
        #expect(value == ["x": "1"])
        #expect(seen.value == ["result": ["x": "1"]])
        #expect(m.openAndWait("app://A/nativeSecret") { seen.set($0) } == .null)
        #expect(seen.value?["code"] == "EREJECTED")
        #expect(seen.value?["error"]?.string?.contains("native") == true)
        m.openAndWait("bad url") { seen.set($0) }
        #expect(seen.value?["code"] == "EBADURL")
    }

    @Test("a URL naming an unknown target reaches NoTargetAction like perform does")
    func fallback() throws {
        let m = Mediator()
        try m.register(target: "NoTargetAction", action: "response") { .dict($0) }
        let result = try m.callAndWait(url: "app://Ghost/boo?k=v")
        #expect(result == ["originParams": ["k": "v"], "targetString": "Target_Ghost", "selectorString": "Action_boo:",
                           "target": "Ghost", "action": "boo", "url": "app://Ghost/boo?k=v"])
    }

    @Test("schemes: app is connected by default, others are an error until connected")
    func connectors() throws {
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        #expect { try m.callAndWait(url: "myapp://A/show") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        try m.connect(scheme: "myapp")
        #expect(try m.callAndWait(url: "MyApp://A/show?x=1") == ["x": "1"])
        #expect(m.disconnect(scheme: "myapp"))
        #expect(!m.disconnect(scheme: "myapp"))
        #expect(throws: SwitchboardError.self) { try m.connect(scheme: "1bad") }
    }

    @Test("a forward connector gives one action the whole URL (a web target for https)")
    func forward() throws {
        let m = Mediator()
        try m.register(target: "Web", action: "open") { .dict($0) }
        try m.connect(scheme: "https", to: .forward(target: "Web", action: "open"))
        let result = try m.callAndWait(url: "https://example.com/a/b?q=1")
        #expect(result["url"] == "https://example.com/a/b?q=1")
        #expect(result["host"] == "example.com")
        #expect(result["path"] == ["a", "b"])
        #expect(result["query"] == ["q": "1"])
    }
}

/// A thread-safe holder of the last value a completion saw.
final class Box: Sendable {
    private let stored = Guarded<Value?>(nil)
    var value: Value? { stored.withLock { $0 } }
    func set(_ v: Value) { stored.withLock { $0 = v } }
}

@Suite("The URL security policy")
struct PolicyTests {
    /// Hostile URLs and the status each must get; none may run target code.
    static let hostile: [(String, SwitchboardError.Code)] = [
        ("app://A/nativeSecret", .rejected),
        ("app://A/%6EativeSecret", .rejected),
        ("app://A/%6E%61%74%69%76%65Secret", .rejected),
        ("app://A/NATIVESecret", .rejected),
        ("app://A/NaTiVeSecret", .rejected),
        ("APP://A/nativeSecret", .rejected),
        ("app://A/nativeSecret?native=1&x=%20", .rejected),
        ("app://A/native", .rejected),
        // The rule reads bytes: a mark or joiner after "native" does not hide it.
        ("app://A/native%CC%81Secret", .rejected),
        ("app://A/native%E2%80%8DSecret", .rejected),
        ("app://A/NATIVE%EF%B8%8FSecret", .rejected),
        // The policy allows "Caf\u{E9}" and "Kiosk": a target whose name is
        // another spelling of either is another target, and not allowed.
        ("app://Cafe%CC%81/show", .rejected),
        ("app://%E2%84%AAiosk/show", .rejected),
        ("app://A/%256EativeSecret", .noAction),         // double encoding: "%6EativeSecret", no such action
        ("app://A/%E2%80%AEnativeSecret", .noAction),    // an RTL override first: not "native…", not an action
        ("app://A/../nativeSecret", .badURL),
        ("app://A/./nativeSecret", .badURL),
        ("app://A/%2E%2E/nativeSecret", .badURL),
        ("app://A/..", .badURL),
        ("app://../nativeSecret", .badURL),
        ("app://A//nativeSecret", .badURL),
        ("app://A/nativeSecret/", .rejected),            // one trailing slash is ignored (CTMediator)
        ("app://A/show/extra", .badURL),
        ("app:///nativeSecret", .badURL),
        ("app://A", .badURL),
        ("app://A/", .badURL),
        ("app:A/show", .badURL),
        ("//A/show", .badURL),
        ("app://A/show%00", .badURL),
        ("app://A/native%00Secret", .badURL),
        ("app://A/show\u{0}", .badURL),
        ("app://A/show?x=%FF", .badURL),
        ("app://A/show?x=%ZZ", .badURL),
        ("app://A/sh%ow", .badURL),
        ("app://A/show?x=%", .badURL),
        ("app://A/show x", .badURL),
        ("app://A/show\r\n", .badURL),
        ("app://A/ſhow", .badURL),
        ("app://user:pw@A/show", .badURL),
        ("app://A:80/show", .badURL),
        ("app://" + String(repeating: "A", count: 70_000) + "/show", .badURL),
        ("app://A/" + String(repeating: "x", count: 65_536), .badURL),
        ("app://A/show?" + String(repeating: "k=v&", count: 20_000), .badURL),
        ("javascript://A/show", .noTarget),
        ("app://A/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/a/b/c/d/e/f/g/h/i/j", .badURL),
        // A.typed has a contract (n: int, ratio: double?, flag: bool?); A.inside is local.
        ("app://A/typed", .badParams),
        ("app://A/typed?n=", .badParams),
        ("app://A/typed?n=4x2", .badParams),
        ("app://A/typed?n=1e3", .badParams),
        ("app://A/typed?n=0x10", .badParams),
        ("app://A/typed?n=%201", .badParams),
        ("app://A/typed?n=%E2%80%8B1", .badParams),
        ("app://A/typed?n=99999999999999999999", .badParams),
        ("app://A/typed?n=1&n=2", .badParams),
        ("app://A/typed?n=1&ratio=NaN", .badParams),
        ("app://A/typed?n=1&ratio=inf", .badParams),
        ("app://A/typed?n=1&ratio=1e999", .badParams),
        ("app://A/typed?n=1&flag=yes", .badParams),
        ("app://A/typed?n=1&flag", .badParams),
        ("app://A/inside", .rejected),
        ("app://A/inside?n=1", .rejected),
    ]

    @Test("hostile URLs are refused, and none reaches target code")
    func hostileTable() throws {
        #expect(Self.hostile.count >= 30)
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        try m.register(target: "A", action: "notFound") { _ in throw SwitchboardError.noAction("A has no such action") }
        try m.register(target: "A", action: "typed", contract: "n: int, ratio: double?, flag: bool?") { [spy] params in
            spy.calls.increment()
            return .dict(params)
        }
        try m.register(target: "A", action: "inside", contract: "local") { [spy] _ in spy.calls.increment(); return .null }
        for name in ["Caf\u{E9}", "Cafe\u{301}", "Kiosk", "\u{212A}iosk"] { try spy.install(on: m, as: name) }
        m.urlPolicy = URLPolicy(targets: ["A", "Caf\u{E9}", "Kiosk"])
        #expect(try m.callAndWait(url: "app://A/typed?n=-7&ratio=0.5&flag=1") == ["n": -7, "ratio": 0.5, "flag": true])
        #expect(try m.callAndWait(url: "app://Caf%C3%A9/show") == [:])
        #expect(try m.callAndWait(url: "app://Kiosk/show") == [:])
        #expect(spy.calls.value == 3)
        let rejected = Counter()
        m.onRejectedURL = { _ in rejected.increment() }
        for (url, expected) in Self.hostile {
            do {
                let value = try m.callAndWait(url: url)
                Issue.record("\(url.prefix(80)) was answered: \(value)")
            } catch {
                #expect(error.code == expected, "\(url.prefix(80)): \(error)")
            }
        }
        #expect(spy.calls.value == 3) // the well-formed calls above, nothing since
        // The observer hears every refusal: the URL policy's, and a local
        // action's (which its contract makes at dispatch).
        #expect(rejected.value == Self.hostile.filter { $0.1 == .rejected }.count)
        robustnessRow("Hostile URLs: native* in every spelling and encoding (a combining mark or joiner after it "
                      + "too), another spelling of an allowed target (NFD, KELVIN SIGN), dot segments, bad escapes, "
                      + "NUL, overlong, non-UTF-8, query values that do not fit the contract, local actions "
                      + "(URLTests.hostile)", cases: Self.hostile.count,
                      "refused with the listed status before any target code runs")
    }

    @Test("a local action's refusal reaches the URL observer, with hooks or without")
    func localRefusalObserved() throws {
        let m = Mediator()
        try m.register(target: "A", action: "inside", contract: "local") { _ in "ran" }
        let seen = Guarded<[String]>([])
        m.onRejectedURL = { refusal in seen.withLock { $0.append(refusal.url + " | " + refusal.reason) } }
        #expect { try m.callAndWait(url: "app://A/inside?x=1") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        // With an interceptor in place the call takes the intercepted path.
        try m.addInterceptor(named: "pass") { _ in .proceed }
        #expect(m.openAndWait("app://A/inside") == .null)
        // An action that opens a local action's URL itself and rethrows the
        // refusal passed the policy and ran: only the inner URL is reported.
        try m.register(target: "A", action: "relay") { [m] _ in try m.callAndWait(url: "app://A/inside?from=relay") }
        #expect { try m.callAndWait(url: "app://A/relay") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        // Nor is an action's own rejection.
        try m.register(target: "A", action: "refuses") { _ in throw SwitchboardError.rejected("no") }
        #expect(m.openAndWait("app://A/refuses") == .null)
        #expect(seen.withLock { $0 } == ["app://A/inside?x=1 | A.inside is local: URLs cannot reach it",
                                         "app://A/inside | A.inside is local: URLs cannot reach it",
                                         "app://A/inside?from=relay | A.inside is local: URLs cannot reach it"])
        #expect(m.performAndWait(target: "A", action: "inside") == "ran")
    }

    @Test("allowlists: schemes and targets")
    func allowlists() throws {
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        try spy.install(on: m, as: "Public")
        try m.connect(scheme: "other")
        m.urlPolicy = URLPolicy(schemes: ["APP"], targets: ["Public"])
        #expect(m.urlPolicy.schemes == ["app"])
        #expect { try m.callAndWait(url: "other://Public/show") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect { try m.callAndWait(url: "app://A/show") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect(try m.callAndWait(url: "app://Public/show?x=1") == ["x": "1"])
        #expect(spy.calls.value == 1)
        m.urlPolicy = URLPolicy()
        #expect(try m.callAndWait(url: "other://A/show") == [:])
    }

    @Test("the native rule holds whatever the route: patterns and forward connectors")
    func nativeWhateverTheRoute() throws {
        let m = Mediator()
        let spy = Spy()
        try spy.install(on: m)
        try m.addURLPattern("app://secret/*", target: "A", action: "nativeSecret")
        try m.connect(scheme: "web", to: .forward(target: "A", action: "nativeSecret"))
        #expect { try m.callAndWait(url: "app://secret/x") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect { try m.callAndWait(url: "web://host/x") } throws: { ($0 as? SwitchboardError)?.code == .rejected }
        #expect(spy.calls.value == 0)
        // A local perform of the same action is of course allowed.
        #expect(m.performAndWait(target: "A", action: "nativeSecret") == "leaked")
    }
}

@Suite("Route patterns")
struct PatternTests {
    func mediator() throws -> Mediator {
        let m = Mediator()
        try m.register(target: "T", actions: [
            "echo": { .dict($0) },
        ])
        return m
    }

    @Test("placeholders capture typed values into params, over the query")
    func captures() throws {
        let m = try mediator()
        try m.addURLPattern("app://user/:id/profile", target: "T", action: "echo")
        try m.addURLPattern("app://item/<int:id>", target: "T", action: "echo")
        try m.addURLPattern("app://files/<path:rest>", target: "T", action: "echo")
        try m.addURLPattern("app://web/*", target: "T", action: "echo")
        #expect(try m.callAndWait(url: "app://user/ada/profile?id=overridden&tab=x").withoutRouterKeys == ["id": "ada", "tab": "x"])
        #expect(try m.callAndWait(url: "app://item/42").withoutRouterKeys == ["id": 42])
        #expect(try m.callAndWait(url: "app://files/a/b%2Fc/d").withoutRouterKeys == ["rest": "a/b/c/d"])
        #expect(try m.callAndWait(url: "app://web/x/y").withoutRouterKeys == ["*": ["x", "y"]])
        #expect(try m.callAndWait(url: "app://web").withoutRouterKeys == ["*": []])
    }

    @Test("optional groups expand into every variant")
    func optionalGroups() throws {
        let m = try mediator()
        try m.addURLPattern("app://user/:id(/:tab)(/edit)", target: "T", action: "echo")
        #expect(try m.callAndWait(url: "app://user/7").withoutRouterKeys == ["id": "7"])
        #expect(try m.callAndWait(url: "app://user/7/posts").withoutRouterKeys == ["id": "7", "tab": "posts"])
        #expect(try m.callAndWait(url: "app://user/7/posts/edit").withoutRouterKeys == ["id": "7", "tab": "posts"])
        // The literal /edit variant beats (/:tab): a literal wins over a placeholder.
        #expect(try m.callAndWait(url: "app://user/7/edit").withoutRouterKeys == ["id": "7"])
    }

    @Test("precedence: literal, then <int:>, then :name, then <path:>, then *; a pattern that would tie is refused")
    func precedence() throws {
        let m = Mediator()
        for tag in ["literal", "int", "string", "path", "wild", "second"] {
            try m.register(target: "P", action: tag) { _ in .string(tag) }
        }
        try m.addURLPattern("app://p/*", target: "P", action: "wild")
        try m.addURLPattern("app://p/<path:rest>", target: "P", action: "path")
        try m.addURLPattern("app://p/:name", target: "P", action: "string")
        try m.addURLPattern("app://p/<int:n>", target: "P", action: "int")
        try m.addURLPattern("app://p/home", target: "P", action: "literal")
        #expect(try m.callAndWait(url: "app://p/home") == "literal")
        #expect(try m.callAndWait(url: "app://p/42") == "int")
        #expect(try m.callAndWait(url: "app://p/ada") == "string")
        #expect(try m.callAndWait(url: "app://p/a/b") == "path")
        #expect(try m.callAndWait(url: "app://p") == "wild")

        // Same shape, other capture name: the same URLs at equal precedence.
        do {
            try m.addURLPattern("app://p/:other", target: "P", action: "second")
            Issue.record("a tie was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(#"the same URLs as "app://p/:name" (to P/string)"#))
        }
        // An optional group that expands to a registered shape ties too.
        #expect(throws: SwitchboardError.self) {
            try m.addURLPattern("app://p(/<int:k>)", target: "P", action: "second")
        }
        // The same text to another action ties; to the same action again, nothing changes.
        #expect(throws: SwitchboardError.self) { try m.addURLPattern("app://p/:name", target: "P", action: "second") }
        try m.addURLPattern("app://p/:name", target: "P", action: "string")
        #expect(m.routes()["patterns"]?.array?.count == 5)
        // Another scheme, or another literal, is another shape.
        try m.addURLPattern("web://p/:other", target: "P", action: "second")
        try m.addURLPattern("app://q/:other", target: "P", action: "second")

        #expect(m.removeURLPattern("app://p/:name"))
        try m.addURLPattern("app://p/:other", target: "P", action: "second")
        #expect(try m.callAndWait(url: "app://p/ada") == "second")
        #expect(!m.removeURLPattern("app://p/:name"))
    }

    @Test("a literal match that dead-ends falls back to a placeholder")
    func backtracking() throws {
        let m = Mediator()
        try m.register(target: "P", actions: ["a": { _ in "a" }, "b": { _ in "b" }])
        try m.addURLPattern("app://x/home/settings", target: "P", action: "a")
        try m.addURLPattern("app://x/:page/about", target: "P", action: "b")
        #expect(try m.callAndWait(url: "app://x/home/about") == "b")
        #expect(try m.callAndWait(url: "app://x/home/settings") == "a")
    }

    @Test("invalid patterns are refused", arguments: [
        "no-scheme/x", "app://", "app://a//b", "app://a/:1bad", "app://a/<int:>", "app://a/<float:x",
        "app://a/<path:p>/more", "app://a/*/more", "app://*/more", "app://a/:x/:x", "app://a(/b", "app://a/b)",
        "app://a((/b))", "app://a(b)", "app://a/(b)c", "app://a/(/)", "app://(a)", "app://(a)(b)", "app://a/<>",
        "app://a(/1)(/2)(/3)(/4)(/5)", "1app://a", "app://a/x*y", "app://a/x<y", "app://a/<nope:x>",
        "app://user#/view/:id", "app://a/b?c", "app://a/<9x:y>", "app://a/<int:x>/<uuid:x>",
    ])
    func invalid(pattern: String) {
        let m = Mediator()
        #expect { try m.addURLPattern(pattern, target: "T", action: "a") } throws: {
            ($0 as? SwitchboardError)?.code == .invalidArgument
        }
    }

    @Test("a pattern longer than a URL may be is refused; one at the limit routes (hostile pass, issue 41)")
    func segmentLimit() throws {
        let m = Mediator()
        try m.register(target: "T", action: "a") { _ in "a" }
        let atLimit = "app://h" + String(repeating: "/s", count: RemoteURL.maximumSegments)
        try m.addURLPattern(atLimit, target: "T", action: "a")
        #expect(try m.callAndWait(url: atLimit) == "a")
        // 30,000 segments fit in 64 KiB: accepted before, though no URL
        // (at most 64 path segments) could ever match it.
        for pattern in ["app://h" + String(repeating: "/s", count: 30_000),
                        "app://g" + String(repeating: "/s", count: RemoteURL.maximumSegments) + "(/more)",
                        "app://k" + String(repeating: "/:a", count: 1) + String(repeating: "/s", count: RemoteURL.maximumSegments)] {
            #expect { try m.addURLPattern(pattern, target: "T", action: "a") } throws: {
                ($0 as? SwitchboardError)?.code == .invalidArgument
                    && ($0 as? SwitchboardError)?.message.contains("no URL could match it") == true
            }
            #expect { try m.buildURL(pattern: pattern, params: [:]) } throws: {
                ($0 as? SwitchboardError)?.code == .invalidArgument
            }
        }
        robustnessRow("Hostile URL patterns: more path segments than a URL may have (30,000 in 64 KiB, 64 and an "
                      + "optional group, a placeholder and 64)", cases: 3,
                      "EINVAL when added or built, naming the limit of 64; a pattern of 64 segments routes")
    }

    @Test("100,000 patterns: every one still routes")
    func many() throws {
        let m = Mediator()
        try m.register(target: "Many", action: "id") { .dict($0) }
        for i in 0..<100_000 {
            try m.addURLPattern("app://many/n\(i)/<int:k>", target: "Many", action: "id")
        }
        for i in stride(from: 0, to: 100_000, by: 9_973) {
            #expect(try m.callAndWait(url: "app://many/n\(i)/\(i)").withoutRouterKeys == ["k": .int(Int64(i))])
        }
    }

    @Test("the catalogue lists targets, schemes, patterns and the policy")
    func catalogue() throws {
        let m = fixtureMediator()
        try m.register(target: "Reg", action: "go") { _ in .null }
        _ = try m.callAndWait(target: "OnlyA", action: "echo")
        try m.addURLPattern("app://u/:id(/x)", target: "Reg", action: "go")
        try m.connect(scheme: "https", to: .forward(target: "Reg", action: "go"))
        m.urlPolicy = URLPolicy(schemes: ["app", "https"])
        let routes = m.routes()
        let names = routes["targets"]?.array?.compactMap { $0["name"]?.string }
        #expect(names == ["OnlyA", "Reg"])
        #expect(routes["targets"]?[0]?["origin"] == "Swift type FixtureTargetsA.Target_OnlyA")
        #expect(routes["targets"]?[1]?["actions"] == ["go"])
        #expect(routes["patterns"] == [["pattern": "app://u/:id(/x)", "target": "Reg", "action": "go"]])
        #expect(routes["schemes"] == [["scheme": "app", "connector": "targets"],
                                      ["scheme": "https", "connector": "forward", "target": "Reg", "action": "go"]])
        #expect(routes["policy"] == ["schemes": ["app", "https"], "targets": .null])
    }

    @Test("a registered target's origin can be told, and is forgotten when its registrations change")
    func registeredOrigin() throws {
        let m = Mediator()
        func origin(_ name: String = "Reg") -> Value? {
            m.routes()["targets"]?.array?.first { $0["name"]?.string == name }?["origin"]
        }
        try m.register(target: "Reg", action: "go") { _ in .null }
        #expect(origin() == "registered")
        try m.setOrigin("config file reg.json", ofTarget: "Reg")
        #expect(origin() == "config file reg.json")
        let nobody = #expect(throws: SwitchboardError.self) { try m.setOrigin("x", ofTarget: "Nobody") }
        #expect(nobody?.code == .notFound)
        let empty = #expect(throws: SwitchboardError.self) { try m.setOrigin("", ofTarget: "Reg") }
        #expect(empty?.code == .invalidArgument)
        // Each way of changing what is registered forgets it.
        #expect(m.unregister(target: "Reg", action: "go"))
        try m.register(target: "Reg", action: "go") { _ in .null }
        #expect(origin() == "registered")
        try m.setOrigin("config file reg.json", ofTarget: "Reg")
        #expect(m.unregister(target: "Reg"))
        try m.register(target: "Reg", action: "go") { _ in .null }
        #expect(origin() == "registered")
        try m.setOrigin("config file reg.json", ofTarget: "Reg")
        try m.register(target: "Reg", action: "more") { _ in .null }
        #expect(origin() == "registered")
        // Names are bytes: two spellings of "é" are two targets, two origins.
        try m.register(target: "\u{E9}", action: "go") { _ in .null }
        try m.register(target: "e\u{301}", action: "go") { _ in .null }
        try m.setOrigin("composed", ofTarget: "\u{E9}")
        let rows = m.routes()["targets"]?.array ?? []
        #expect(rows.filter { $0["origin"] == "composed" }.count == 1)
        #expect(rows.filter { $0["origin"] == "registered" }.count == 2)
    }
}
