import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard
import SwitchboardSigning

/// A handler another face would give: counts its calls and answers its args.
private final class CountingHandler: ForeignFunction, @unchecked Sendable {
    let calls = Counter()

    override func call(_ args: Value, state: UnsafeMutableRawPointer?) throws(SwitchboardError) -> Value {
        calls.increment()
        return args
    }

    override func callNative(_ args: OpaquePointer?, state: UnsafeMutableRawPointer?,
                             out: UnsafeMutablePointer<OpaquePointer?>) -> Int32 {
        preconditionFailure("Swift callers only")
    }
}

/// Collects what the URL observer hears.
private final class Rejections: Sendable {
    private let reasons = Guarded<[String]>([])
    var all: [String] { reasons.withLock { $0 } }
    func install(on m: Mediator) { m.onRejectedURL = { [self] r in reasons.withLock { $0.append(r.reason) } } }
}

@Suite("Hostile URLs: limits and unbounded work")
struct URLLimitTests {
    @Test("a key repeated 32,000 times in a 64 KiB URL parses into one array, in order, in linear work")
    func repeatedKey() throws {
        // 32,000 × "k" (a few with a value): about as many as fit the limit.
        var items: [String] = []
        for i in 0..<32_000 { items.append(i % 64 == 1 ? "k=\(i % 10)" : "k") }
        let url = "app://A/show?" + items.joined(separator: "&")
        #expect(url.utf8.count <= RemoteURL.maximumLength)
        // No step counter fits a parse: a wall bound instead, far from any
        // speed target (that is scripts/bench.sh's job). The quadratic parse
        // took 8.4 s of CPU in a release build for a URL like this one, 4.8 s
        // in a debug build and would take ten times that under TSan; the
        // linear one takes about 0.1 s in a debug build, 2.5 s under TSan on
        // a loaded machine.
        let clock = ContinuousClock()
        let started = clock.now
        let parsed = try RemoteURL(url)
        let elapsed = clock.now - started
        let values = try #require(parsed.query["k"]?.array)
        #expect(values.count == 32_000)
        #expect(values[0] == "" && values[1] == "1" && values[65] == "5" && values[31_999] == "")
        #expect(values.filter { $0 != "" }.count == 500)
        #expect(elapsed < .seconds(30), "parsing took \(elapsed)")

        // Order and grouping with several keys: first appearance decides.
        let mixed = try RemoteURL("app://A/show?b=1&a=2&b=3&c&a=4&b=5")
        #expect(mixed.query.keys == ["b", "a", "c"])
        #expect(mixed.query["b"] == .array(["1", "3", "5"]))
        #expect(mixed.query["a"] == .array(["2", "4"]))
        #expect(mixed.query["c"] == "")
        robustnessRow("Hostile URLs: one query key repeated 32,000 times in 64 KiB (linear parse, one array in order)",
                      cases: 2, "parsed; values grouped in order")
    }

    @Test("the length limit comes first: before the signature's hash, rules that lengthen a URL, and signing")
    func lengthFirst() throws {
        let m = Mediator()
        let rejections = Rejections()
        rejections.install(on: m)
        m.urlSigner = try URLSigner(key: Array(repeating: 7, count: 32), now: { 1_000 })
        let huge = "app://A/show?x=" + String(repeating: "a", count: 16 << 20)
        let error = #expect(throws: SwitchboardError.self) { try m.callAndWait(url: huge) }
        #expect(error?.code == .badURL && error?.message == "the URL is \(huge.utf8.count) bytes; the limit is 65535")
        // Refused for its length, not looked at for a signature.
        #expect(rejections.all.isEmpty)

        // Signing refuses a URL that would be too long to open once signed.
        let signer = try URLSigner(key: Array(repeating: 7, count: 32))
        let almost = "app://A/show?x=" + String(repeating: "a", count: RemoteURL.maximumLength - 30)
        #expect(throws: SwitchboardError.self) { try signer.sign(almost, expires: 2_000) }
        #expect(throws: SwitchboardError.self) { try signer.sign(huge, expires: 2_000) }

        // A rule that doubles the URL at each rewrite meets the limit as it
        // grows, not after eight rewrites of doubling.
        let r = Mediator()
        try r.register(target: "A", action: "show") { .dict($0) }
        r.rules = [RoutingRule(.rewrite(from: "app://*", to: "app://$1$1"))]
        let start = "app://A/show?x=" + String(repeating: "b", count: 2_000)
        do {
            _ = try r.callAndWait(url: start)
            Issue.record("a URL rewritten past the limit was opened")
        } catch {
            #expect(error.code == .badURL, "\(error)")
            #expect(error.message.contains("the limit is 65535"), "\(error)")
        }
        robustnessRow("Hostile URLs: work before the limit (16 MiB with signatures required, a rule that doubles the URL, "
                      + "signing an oversized URL)", cases: 4, "EBADURL/EINVAL before hashing or rewriting")
    }

    @Test("pattern matching is bounded: crafted placeholders that fit every segment stop at the step budget")
    func patternBudget() throws {
        let m = Mediator()
        // 3^8 patterns app://h/{1|<int:aN>|:sN}/.../end: a URL of eight "1"
        // segments fits every path of the trie, and ends where none does.
        let kinds = 8
        var patterns = [""]
        for i in 0..<kinds {
            patterns = patterns.flatMap { ["\($0)/1", "\($0)/<int:a\(i)>", "\($0)/:s\(i)"] }
        }
        for (n, p) in patterns.enumerated() { try m.addURLPattern("app://h\(p)/end", target: "T\(n)", action: "go") }
        let ones = Array(repeating: "1", count: kinds).joined(separator: "/")

        var steps = 0
        let url = try RemoteURL("app://h/\(ones)/nowhere")
        do {
            _ = try m.urls.resolve(url, steps: &steps)
            Issue.record("the URL resolved")
        } catch {
            #expect(error.code == .rejected, "\(error)")
            #expect(error.message.contains("route patterns"), "\(error)")
        }
        #expect(steps <= PatternTrie.maximumSteps + 1)

        // A URL that matches is found at once: the literal path first.
        let found = try m.urls.resolve(try RemoteURL("app://h/\(ones)/end"), steps: &steps)
        #expect(found.target == "T0")
        #expect(steps == kinds + 3) // the scheme's root, the host, eight segments, "end"
        // And one that needs a placeholder at the last level backtracks a little.
        let later = try m.urls.resolve(try RemoteURL("app://h/\(Array(repeating: "1", count: kinds - 1).joined(separator: "/"))/x/end"),
                                       steps: &steps)
        #expect(later.target == "T2")
        #expect(steps < 64)
        robustnessRow("Hostile URLs: a URL that fits 3^8 crafted patterns with placeholders (trie walk bounded)",
                      cases: 3, "EREJECTED at 4,096 steps; matching URLs found in a few steps")
    }
}

@Suite("Hostile URLs: where a URL call may land")
struct URLLandingTests {
    @Test("a handler of a scheme or a pattern is reached through it only, never by name")
    func handlersHaveNoName() throws {
        let m = Mediator()
        let web = CountingHandler()
        let item = CountingHandler()
        try m.connect(scheme: "https", handler: web)
        try m.addURLPattern("app://item/<int:id>", handler: item)
        m.urlPolicy = URLPolicy(schemes: ["app", "https"])

        // Through the scheme and the pattern.
        #expect(try m.callAndWait(url: "https://example.com/x")["host"] == "example.com")
        #expect(try m.callAndWait(url: "app://item/42")["id"] == 42)
        #expect(web.calls.value == 1 && item.calls.value == 1)

        // By any spelling of the old names: never.
        for url in ["app://scheme%3Ahttps/open?url=https://evil.example/", "app://scheme:https/open",
                    "app://route%3Aapp%3A%2F%2Fitem%2F%3Cint%3Aid%3E/route?id=not-an-int",
                    "app://%00scheme%3Ahttps/open"] {
            #expect(throws: SwitchboardError.self, "\(url)") { try m.callAndWait(url: url) }
        }
        for name in ["scheme:https", "\u{0}scheme:https", "route:app://item/<int:id>", "\u{0}route:app://item/<int:id>"] {
            #expect(throws: SwitchboardError.self, "\(name)") {
                try m.callAndWait(target: name, action: name.contains("scheme") ? "open" : "route", params: ["id": "not-an-int"])
            }
            #expect(!m.unregister(target: name))
        }
        #expect(throws: SwitchboardError.self) { try m.route(target: "\u{0}scheme:https", action: "open") }
        #expect(web.calls.value == 1 && item.calls.value == 1)

        // The catalogue shows them with their scheme and pattern.
        let routes = m.routes()
        #expect(routes["targets"]?.array?.isEmpty == true)
        #expect(routes["schemes"]?.array?.contains(["scheme": "https", "connector": "handler"]) == true)
        #expect(routes["patterns"]?.array == [["pattern": "app://item/<int:id>", "handler": true]])

        // Removing the pattern or the scheme removes the handler.
        #expect(m.removeURLPattern("app://item/<int:id>"))
        #expect(m.disconnect(scheme: "https"))
        #expect(m.targets.count == 0)
        robustnessRow("Hostile URLs: internal handler names (scheme:, route:) by URL, perform, route, unregister",
                      cases: 10, "unreachable by name; reached through their scheme or pattern only")
    }

    @Test("a module key never spells a handler's name: a module with a NUL byte is refused")
    func moduleKeyCannotSpellHandlers() throws {
        let m = Mediator()
        let scheme = CountingHandler()
        let route = CountingHandler()
        // Internal names "\0scheme:my.app" and "\0route:app://h.x": a module
        // "\0scheme:my" before target "app" (or "\0route:app://h" before
        // "x") would spell them.
        try m.connect(scheme: "my.app", handler: scheme)
        try m.addURLPattern("app://h.x", handler: route)
        let calls: [(target: String, action: String, module: String)] = [
            ("app", "open", "\u{0}scheme:my"), ("x", "route", "\u{0}route:app://h"), ("T", "a", "Mod\u{0}"),
        ]
        for hooked in [false, true] {
            if hooked { _ = try m.addObserver { _ in } }
            for call in calls {
                for key in [Mediator.moduleKey, Mediator.ctMediatorModuleKey] {
                    let error = #expect(throws: SwitchboardError.self, "\(call) \(key)") {
                        try m.callAndWait(target: call.target, action: call.action, params: [key: .string(call.module)])
                    }
                    #expect(error?.code == .invalidArgument)
                    #expect(error?.message.contains("module name contains a NUL byte") == true)
                    #expect(m.performAndWait(target: call.target, action: call.action, params: [key: .string(call.module)]) == .null)
                }
            }
        }
        #expect(scheme.calls.value == 0 && route.calls.value == 0)
        // Through their scheme and pattern, as ever.
        #expect(try m.callAndWait(url: "my.app://anything")["scheme"] == "my.app")
        #expect(try m.callAndWait(url: "app://h.x?k=v")["k"] == "v")
        #expect(scheme.calls.value == 1 && route.calls.value == 1)
        robustnessRow("Module keys spelling a URL handler's internal name (a NUL byte before scheme: or route:), "
                      + "either key, with and without hooks", cases: 12,
                      "EINVAL naming the module; no handler runs")
    }

    @Test("a module-qualified host reaches only what discovery with the mediator's modules reaches")
    func qualifiedHost() throws {
        let none = Mediator(modules: [])
        #expect(throws: SwitchboardError.self) { try none.callAndWait(url: "app://FixtureTargetsA.OnlyA/echo") }
        // Found by local code first (a trusted caller may name any module):
        // the URL still does not reach it.
        #expect(try none.callAndWait(target: "FixtureTargetsA.OnlyA", action: "echo", params: ["v": 1])["v"] == 1)
        #expect(throws: SwitchboardError.self) { try none.callAndWait(url: "app://FixtureTargetsA.OnlyA/echo") }
        // NoTargetAction answers such a URL as any unknown target.
        try none.register(target: "NoTargetAction", action: "response") { $0["target"] ?? .null }
        #expect(none.openAndWait("app://FixtureTargetsA.OnlyA/echo") == "FixtureTargetsA.OnlyA")

        // A module in the list is reached, qualified or not.
        let a = Mediator(modules: ["FixtureTargetsA"])
        #expect(try a.callAndWait(url: "app://FixtureTargetsA.OnlyA/echo?v=2")["v"] == "2")
        #expect(try a.callAndWait(url: "app://OnlyA/echo?v=3")["v"] == "3")
        #expect(throws: SwitchboardError.self) { try a.callAndWait(url: "app://FixtureTargetsB.OnlyB/echo") }
        // Until the list changes.
        a.modules = ["FixtureTargetsB"]
        #expect(throws: SwitchboardError.self) { try a.callAndWait(url: "app://OnlyA/echo") }

        // The module key never comes from a URL.
        let b = Mediator(modules: ["FixtureTargetsA"])
        let rejections = Rejections()
        rejections.install(on: b)
        let error = #expect(throws: SwitchboardError.self) {
            try b.callAndWait(url: "app://OnlyA/echo?switchboard.module=FixtureTargetsB")
        }
        #expect(error?.code == .rejected
                && error?.message.hasPrefix("the params key \"switchboard.module\" cannot come from a URL") == true)
        #expect(rejections.all.count == 1)
        // Nor does CTMediator's key, its alias, even empty or beside the other.
        for query in ["kCTMediatorParamsKeySwiftTargetModuleName=FixtureTargetsB",
                      "kCTMediatorParamsKeySwiftTargetModuleName=",
                      "switchboard.module=&kCTMediatorParamsKeySwiftTargetModuleName=FixtureTargetsB"] {
            let error = #expect(throws: SwitchboardError.self) { try b.callAndWait(url: "app://OnlyA/echo?" + query) }
            #expect(error?.code == .rejected && error?.message.contains("cannot come from a URL") == true)
        }
        #expect(rejections.all.count == 4)
        b.rules = [RoutingRule(.rewrite(from: "Never/*", to: "Never/$1"))] // the intercepted path
        #expect(throws: SwitchboardError.self) {
            try b.callAndWait(url: "app://OnlyA/echo?kCTMediatorParamsKeySwiftTargetModuleName=FixtureTargetsB")
        }
        robustnessRow("Hostile URLs: CTMediator's module key (kCTMediatorParamsKeySwiftTargetModuleName) in the "
                      + "query, empty, beside switchboard.module, with hooks", cases: 4,
                      "EREJECTED, reported to the URL observer; no class outside modules runs")
        robustnessRow("Hostile URLs: module-qualified hosts and the module key (modules [], a cached qualified entry, "
                      + "a module left out, the key in the query)", cases: 6, "ENOTARGET or EREJECTED; no class outside modules runs")
    }

    @Test("a URL call is admitted where it lands: degrade rules, NoTargetAction, the degrade handler")
    func landing() throws {
        let m = Mediator()
        let spy = Counter()
        try m.register(target: "Pay", action: "show") { _ in "pay" }
        try m.register(target: "Web", actions: [
            "nativeWipe": { [spy] _ in spy.increment(); return "wiped" },
            "response": { [spy] _ in spy.increment(); return "web" },
        ])
        try m.register(target: "NoTargetAction", action: "response") { [spy] _ in spy.increment(); return "fallback" }
        let rejections = Rejections()
        rejections.install(on: m)
        m.urlPolicy = URLPolicy(targets: ["Pay"])

        // A degrade rule to a target the policy leaves out, and to a native action.
        m.rules = [RoutingRule(.degrade(target: "Pay", action: "*", to: "Web", toAction: "nativeWipe"))]
        #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "app://Pay/nothing") }
        #expect(m.openAndWait("app://Pay/nothing") == .null)
        m.rules = [RoutingRule(.degrade(target: "Pay", action: "*", to: "Web", toAction: "response"))]
        #expect(m.openAndWait("app://Pay/nothing") == .null)
        m.urlPolicy = URLPolicy(targets: ["Pay", "Web"])
        m.rules = [RoutingRule(.degrade(target: "Pay", action: "*", to: "Web", toAction: "nativeWipe"))]
        #expect(m.openAndWait("app://Pay/nothing") == .null)
        m.urlPolicy = URLPolicy(targets: ["Pay"])
        m.rules = [RoutingRule(.degrade(target: "Pay", action: "*", to: "Web", toAction: "response"))]
        #expect(spy.value == 0)
        #expect(rejections.all.count == 4)
        #expect(rejections.all.first?.contains("\"Web\" is not allowed") == true)
        #expect(rejections.all.last?.contains("native") == true)
        // Locally the rule still applies.
        #expect(m.performAndWait(target: "Pay", action: "nothing") == "web")
        #expect(spy.value == 1)

        // NoTargetAction is a target like any other: the policy must allow it.
        m.rules = []
        #expect(m.openAndWait("app://Pay/nothing") == .null)
        #expect(spy.value == 1)
        m.urlPolicy = URLPolicy(targets: ["Pay", "NoTargetAction"])
        #expect(m.openAndWait("app://Pay/nothing") == "fallback")
        #expect(spy.value == 2)

        // The degrade handler answers for the call itself (Pay.nothing, admitted).
        #expect(m.unregister(target: "NoTargetAction"))
        m.urlPolicy = URLPolicy(targets: ["Pay"])
        m.setDegradeHandler { _ in "handled" }
        #expect(m.openAndWait("app://Pay/nothing") == "handled")

        // Interceptors: the same holds after a redirect (and did before).
        m.setDegradeHandler(nil)
        m.rules = [RoutingRule(.degrade(target: "Pay", action: "*", to: "Web", toAction: "nativeWipe"))]
        _ = try m.addInterceptor(named: "noop") { _ in .proceed }
        #expect(m.openAndWait("app://Pay/nothing") == .null)
        #expect(spy.value == 2)
        robustnessRow("Hostile URLs: a URL call moved by a degrade rule, NoTargetAction or the degrade handler "
                      + "(policy and native* where it lands)", cases: 7, "EREJECTED, reported; no target code runs")
    }

    @Test("URL rules match the URL's normal form: an escape or the scheme's case does not slip past them")
    func rulesMatchNormalForm() throws {
        let m = Mediator()
        try m.register(target: "Old", action: "go") { _ in "old" }
        try m.register(target: "New", action: "go") { _ in "new" }
        m.rules = [RoutingRule(.rewrite(from: "app://Old/*", to: "app://New/$1"))]
        for url in ["app://Old/go", "app://%4Fld/go", "app://%4f%6C%64/go", "APP://Old/go", "App://%4Fld/%67o"] {
            #expect(try m.callAndWait(url: url) == "new", "\(url)")
        }
        // A rule written with escapes matches too; reserved escapes stay escapes.
        m.rules = [RoutingRule(.rewrite(from: "APP://%4Fld/*", to: "app://New/$1"))]
        #expect(try m.callAndWait(url: "app://Old/go") == "new")
        #expect(RemoteURL.normalized("app://a%2fb/%7e?q=%3d") == "app://a%2Fb/~?q=%3D")
        robustnessRow("Hostile URLs: URL rules against escaped and upper-case spellings of the URL", cases: 6,
                      "the rule applies to every spelling")
    }
}
