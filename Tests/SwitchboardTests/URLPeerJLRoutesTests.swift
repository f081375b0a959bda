// JLRoutes' own suite (JLRoutesTests/JLRoutesTests.m), case by case, in
// Switchboard's terms. Each test names the JLRoutes test it comes from.
// JLRoutes patterns have no scheme and take the host as the first path
// component (when it has no dot): "/user/view/:userID" for
// "tests://user/view/joeldev" is "tests://user/view/:userID" here. Where
// Switchboard differs on purpose, the test asserts the difference and says
// why (the README's URL section and docs/porting-from-ctmediator.md list
// them). JLRoutes' count checks ("parameter count", which leaves out its
// three keys) are made on the params without the router's keys.
import Testing
@testable import Switchboard

/// A mediator whose "T.echo" answers its params, for routing checks.
func echoMediator() throws -> Mediator {
    let m = Mediator()
    try m.register(target: "T", action: "echo") { .dict($0) }
    return m
}

extension Mediator {
    /// Adds each pattern to T.echo.
    func route(_ patterns: String...) throws {
        for pattern in patterns { try addURLPattern(pattern, target: "T", action: "echo") }
    }

    /// The params `url` reaches T.echo with, or nil when opening it fails.
    func routed(_ url: String, params: Params = [:]) -> Params? {
        (try? callAndWait(url: url, params: params))?.dict
    }

    /// The failure's code, or nil when it opens.
    func failure(_ url: String) -> SwitchboardError.Code? {
        do {
            _ = try callAndWait(url: url)
            return nil
        } catch {
            return error.code
        }
    }
}

extension Params {
    /// The params without the router's keys (JLRoutes' count leaves out its own).
    var own: Params { filter { !$0.key.hasPrefix(Mediator.reservedKeyPrefix) } }
}

@Suite("Ported: JLRoutes' JLRoutesTests.m")
struct JLRoutesPortTests {
    @Test("testRouting: patterns, captures over the query, wildcards, optional groups")
    func routing() throws {
        let m = try echoMediator()
        try m.route("tests://test", "tests://user/view/:userID", "tests://:object/:action/:primaryKey",
                    "tests://interleaving/:param1/foo/:param2", "tests://xyz/wildcard/*", "tests://route/:param/*",
                    "tests://required/:requiredParam(/optional/:optionalParam)(/moreOptional/:moreOptionalParam)")
        // JLRoutes' "/" and "/:" patterns: a URL always has a host here, and a
        // placeholder a name (differs: refused at registration).
        #expect(throws: SwitchboardError.self) { try m.route("tests://") }
        #expect(throws: SwitchboardError.self) { try m.route("tests://:") }
        // "tests:/", "tests://", "tests://?key=value": no host (differs: EBADURL).
        for url in ["tests:/", "tests://", "tests://?key=value"] { #expect(m.failure(url) == .badURL) }

        #expect(m.routed("tests://test?")?[Mediator.patternKey] == "tests://test")
        #expect(m.routed("tests://test?")?.own == [:])
        #expect(m.routed("tests://test/")?[Mediator.patternKey] == "tests://test")
        #expect(m.routed("tests://test")?.own == [:])
        #expect(m.routed("tests://user/view/joeldev")?.own == ["userID": "joeldev"])
        #expect(m.routed("tests://user/view/joeldev/")?.own == ["userID": "joeldev"])
        #expect(m.routed("tests://user/view/joel%20levin")?.own == ["userID": "joel levin"])
        #expect(m.routed("tests://user/view/joeldev?foo=bar&thing=stuff")?.own
                == ["foo": "bar", "thing": "stuff", "userID": "joeldev"])
        // A fragment is not read (differs: JLRoutes takes its query items).
        #expect(m.routed("tests://user/view/joeldev#foo=bar&thing=stuff")?.own == ["userID": "joeldev"])
        // A capture wins over the query's key of the same name.
        #expect(m.routed("tests://user/view/joeldev?userID=evilPerson")?.own == ["userID": "joeldev"])
        #expect(m.routed("tests://post/edit/123")?.own == ["object": "post", "action": "edit", "primaryKey": "123"])
        #expect(m.routed("tests://interleaving/paramvalue1/foo/paramvalue2")?.own
                == ["param1": "paramvalue1", "param2": "paramvalue2"])
        // JLRouteWildcardComponentsKey is "*".
        #expect(m.routed("tests://xyz/wildcard")?.own == ["*": []])
        #expect(m.routed("tests://xyz/wildcard/matches/with/extra/path/components")?.own
                == ["*": ["matches", "with", "extra", "path", "components"]])
        #expect(m.routed("tests://route/matches/with/wildcard")?.own == ["param": "matches", "*": ["with", "wildcard"]])
        #expect(m.failure("tests://doesnt/exist/and/wont/match") == .noTarget)
        // URL(string: "/test", relativeTo: "http://localhost"): the host is a
        // segment here whatever it looks like (differs: no host-as-domain).
        #expect(m.failure("http://localhost/test") == .noTarget)
        #expect(m.routed("tests://required/mustExist")?.own == ["requiredParam": "mustExist"])
        #expect(m.routed("tests://required/mustExist/optional/mightExist")?.own
                == ["requiredParam": "mustExist", "optionalParam": "mightExist"])
        #expect(m.routed("tests://required/mustExist/optional/mightExist/moreOptional/mightExistToo")?.own
                == ["requiredParam": "mustExist", "optionalParam": "mightExist", "moreOptionalParam": "mightExistToo"])
    }

    @Test("testRoutingWithParameters: params beside the URL join the captures")
    func routingWithParameters() throws {
        let m = try echoMediator()
        try m.route("tests://foo/:routeParam")
        #expect(m.routed("tests://foo/bar", params: ["stringParam": "stringValue", "nonStringParam": 123])?.own
                == ["routeParam": "bar", "stringParam": "stringValue", "nonStringParam": 123])
    }

    @Test("testFragmentRouting: a pattern with \"#\" is refused; the path form routes the same URLs' paths")
    func fragmentRouting() throws {
        let m = try echoMediator()
        for pattern in ["tests://user#/view/:userID", "tests://:object#/:action/:primaryKey", "tests://xyz/wildcard#/*",
                        "tests://required#/:requiredParam(/optional/:optionalParam)"] {
            let error = #expect(throws: SwitchboardError.self) { try m.route(pattern) }
            #expect(error?.code == .invalidArgument && error?.message.contains("fragment") == true)
        }
        // Differs: fragments are not routed. The Switchboard form puts the route in the path.
        try m.route("tests://user/view/:userID")
        #expect(m.routed("tests://user/view/joeldev?userID=evilPerson&search=evilSearch")?.own
                == ["userID": "joeldev", "search": "evilSearch"])
        #expect(m.failure("tests://user#/view/joeldev") == .noTarget)
    }

    @Test("testMultipleRoutePatterns: several patterns to one handler")
    func multiplePatterns() throws {
        let m = try echoMediator()
        try m.route("tests://multiple1", "tests://multiple2")
        #expect(m.routed("tests://multiple1")?.own == [:])
        #expect(m.routed("tests://multiple2")?.own == [:])
    }

    @Test("testPriority: no numbers; the more specific pattern wins by precedence, whatever the order")
    func priority() throws {
        let m = try echoMediator()
        try m.route("tests://test/priority/:level", "tests://test/priority/high")
        #expect(m.routed("tests://test/priority/high")?[Mediator.patternKey] == "tests://test/priority/high")
        try m.route("prioritytest://:foo/bar/:baz", "prioritytest://:foo/things/:baz", "prioritytest://:foo/:baz")
        #expect(m.routed("priorityTest://stuff/things/foo")?[Mediator.patternKey] == "prioritytest://:foo/things/:baz")
        #expect(m.routed("priorityTest://one/two")?[Mediator.patternKey] == "prioritytest://:foo/:baz")
        #expect(m.routed("priorityTest://stuff/bar/baz")?[Mediator.patternKey] == "prioritytest://:foo/bar/:baz")
    }

    @Test("testBlockReturnValue: a handler that declines is a converter that declines")
    func blockReturnValue() throws {
        let m = try echoMediator()
        // Differs: the decision is made before any handler runs.
        try m.addURLConverter("yes") { $0 == "yes" ? .string($0) : nil }
        try m.route("tests://return/<yes:value>")
        #expect(m.failure("tests://return/no") == .noTarget)
        #expect(m.routed("tests://return/yes")?.own == ["value": "yes"])
    }

    @Test("testSchemes: the same path in three schemes; the scheme key says which (in lower case)")
    func schemes() throws {
        let m = try echoMediator()
        try m.route("tests://test", "namespaceTest1://test", "namespaceTest2://test")
        #expect(m.routed("tests://test")?[Mediator.schemeKey] == "tests")
        // Differs: schemes are compared, and given, in lower case (RFC 3986).
        #expect(m.routed("namespaceTest1://test")?[Mediator.schemeKey] == "namespacetest1")
        #expect(m.routed("namespaceTest2://test")?[Mediator.schemeKey] == "namespacetest2")
    }

    @Test("testFallbackToGlobal: no global routes; each scheme names its patterns, or falls back on purpose")
    func fallbackToGlobal() throws {
        let m = try echoMediator()
        try m.route("tests://user/view/:userID", "namespacetest1://test", "namespacetest2://test")
        // Differs: a pattern belongs to its scheme; no other scheme reaches it.
        #expect(m.failure("namespaceTest1://user/view/joeldev") == .noTarget)
        #expect(m.failure("namespaceTest2://user/view/joeldev") == .noTarget)
        // The Switchboard way to serve another scheme's URLs: its own
        // pattern, or its unmatched-URL fallback.
        try m.setURLFallback(target: "T", action: "echo", scheme: "namespacetest2")
        #expect(m.routed("namespaceTest2://user/view/joeldev")?["path"] == ["view", "joeldev"])
    }

    @Test("testForRouteExistence: canRouteURL is a lookup that calls nothing")
    func routeExistence() throws {
        let m = Mediator()
        try m.register(target: "T", action: "echo") { _ in Issue.record("a lookup called the target"); return .null }
        try m.addURLPattern("tests://test", target: "T", action: "echo")
        #expect(m.canOpen(url: "tests://test"))
        #expect(!m.canOpen(url: "tests://dfjkbsdkjfbskjdfb/sdasd"))
        // "tests:/test" has no host here (differs: refused).
        #expect(!m.canOpen(url: "tests:/test"))
    }

    @Test("testSubscripting, testNonSingletonUsage: a mediator of its own routes like the shared one")
    func ownMediator() throws {
        let m = try echoMediator() // [JLRoutes new]
        try m.route("app://success")
        #expect(m.routed("app://success")?.own == [:])
        // A URL has a scheme and a host here ("/success", "subscripting": refused).
        #expect(m.failure("/success") == .badURL)
        #expect(m.failure("subscripting") == .badURL)
    }

    @Test("testRouteRemoval: one pattern, then every pattern of a scheme")
    func routeRemoval() throws {
        let m = try echoMediator()
        try m.route("namespacetest3://test1", "namespacetest3://test2", "other://test1")
        #expect(m.routed("namespaceTest3://test1") != nil)
        #expect(m.removeURLPattern("namespacetest3://test1"))
        #expect(m.failure("namespaceTest3://test1") == .noTarget)
        #expect(m.routed("namespaceTest3://test2")?[Mediator.schemeKey] == "namespacetest3")
        // unregisterRouteScheme: every pattern of the scheme at once.
        #expect(m.removeURLPatterns(scheme: "namespaceTest3") == ["namespacetest3://test2"])
        #expect(m.failure("namespaceTest3://test2") == .noTarget)
        #expect(m.routed("other://test1") != nil)
        #expect(m.removeURLPatterns(scheme: "namespacetest3") == [])
    }

    @Test("testPercentEncoding: every escape decodes inside its segment, %2F and %23 included",
          arguments: ["!", "#", "$", "&", "'", "(", ")", "*", "+", ",", ":", ";", "=", "?", "@", "[", "]", "/"])
    func percentEncoding(character: String) throws {
        let m = try echoMediator()
        try m.route("tests://user/view/:userID")
        let escape = "%" + String(character.utf8.first!, radix: 16, uppercase: true)
        // JLRoutes cannot take %2F (NSURL splits on it); here it stays in its segment.
        #expect(m.routed("tests://user/view/joel\(escape)levin")?.own == ["userID": .string("joel\(character)levin")])
    }

    @Test("testDecodePlusSymbols: \"+\" stays a plus (differs from JLRoutes' default; its NO setting is this)")
    func plusSymbols() throws {
        let m = try echoMediator()
        try m.route("tests://user/view/:userID")
        #expect(m.routed("tests://user/view/joel%2Blevin")?.own == ["userID": "joel+levin"])
        #expect(m.routed("tests://user/view/joel+levin")?.own == ["userID": "joel+levin"])
        #expect(m.routed("tests://user/view/test?name=joel+levin")?.own == ["userID": "test", "name": "joel+levin"])
        #expect(m.routed("tests://user/view/test?people=joel+levin&people=foo+bar")?.own
                == ["userID": "test", "people": ["joel+levin", "foo+bar"]])
        // A space is %20, which every reader decodes the same way.
        #expect(m.routed("tests://user/view/joel%20levin")?.own == ["userID": "joel levin"])
    }

    @Test("testVariableEmptyFollowedByWildcard: a wildcard after a missing variable does not match")
    func emptyVariableThenWildcard() throws {
        let m = try echoMediator()
        try m.route("wildcardtests://list/:variable/detail/:variable2/*")
        #expect(m.failure("wildcardTests://list/variable/detail/") == .noTarget)
        #expect(m.routed("wildcardTests://list/variable/detail/variable2")?.own
                == ["variable": "variable", "variable2": "variable2", "*": []])
    }

    @Test("testRoutesArray, testAllRoutes: each scheme's patterns listed in the order added; a scheme with none lists none")
    func routesArray() throws {
        let m = try echoMediator()
        // JLRoutes' global routes have no scheme here (no global routes):
        // its "/global1" is a pattern of a scheme like any other.
        try m.route("global://global1", "global://global2", "global://global3", "scheme://scheme1", "scheme://scheme2")
        let patterns = m.routes()["patterns"]?.array?.compactMap { $0["pattern"]?.string } ?? []
        func of(_ scheme: String) -> [String] { patterns.filter { $0.hasPrefix(scheme + "://") } }
        #expect(of("global") == ["global://global1", "global://global2", "global://global3"])
        #expect(of("scheme") == ["scheme://scheme1", "scheme://scheme2"])
        #expect(of("foo") == [])
        // allRoutes' grouping by scheme: removing a scheme's patterns gives
        // them back in the order added, and leaves the other scheme's.
        #expect(m.removeURLPatterns(scheme: "scheme") == ["scheme://scheme1", "scheme://scheme2"])
        #expect(m.routes()["patterns"]?.array?.count == 3)
    }

    @Test("testOptionalRoutesAtEnd: groups at the end; listed once, as registered")
    func optionalAtEnd() throws {
        let m = try echoMediator()
        try m.route("foo://path/:thing(/new)(/anotherpath/:anotherthing)")
        // Differs: JLRoutes lists its 4 expansions; the catalogue lists the
        // pattern as added (it is added and removed as one).
        #expect(m.routes()["patterns"]?.array?.count == 1)
        #expect(m.routed("foo://path/abc/new/anotherpath/def")?.own == ["thing": "abc", "anotherthing": "def"])
        #expect(m.routed("foo://path/foo/anotherpath/bar")?.own == ["thing": "foo", "anotherthing": "bar"])
        #expect(m.routed("foo://path/yyy/new")?.own == ["thing": "yyy"])
        #expect(m.routed("foo://path/zzz")?.own == ["thing": "zzz"])
        #expect(m.failure("foo://path/zzz/anotherpath") == .noTarget)
    }

    @Test("testOptionalRoutesAtStart: groups before the first placeholder")
    func optionalAtStart() throws {
        let m = try echoMediator()
        try m.route("foo://(rest/)(app/):object/:id")
        for url in ["foo://rest/app/aaa/bbb", "foo://app/aaa/bbb", "foo://rest/aaa/bbb", "foo://aaa/bbb"] {
            #expect(m.routed(url)?.own == ["object": "aaa", "id": "bbb"], "\(url)")
        }
    }

    @Test("testOptionalRoutesInterleaved: groups between placeholders")
    func optionalInterleaved() throws {
        let m = try echoMediator()
        try m.route("foo://(rest/):object/(app/):id")
        for url in ["foo://rest/aaa/app/bbb", "foo://aaa/app/bbb", "foo://rest/aaa/bbb", "foo://aaa/bbb"] {
            #expect(m.routed(url)?.own == ["object": "aaa", "id": "bbb"], "\(url)")
        }
    }

    @Test("testPassingURLStringsAsParams: a URL in a segment or in the query")
    func urlStringsAsParams() throws {
        let m = try echoMediator()
        try m.route("tests://web/:URLString", "tests://web")
        #expect(m.routed("tests://web/http%3A%2F%2Ffoobar.com%2Fbaz")?.own == ["URLString": "http://foobar.com/baz"])
        #expect(m.routed("tests://web?URLString=http%3A%2F%2Ffoobar.com%2Fbaz")?.own == ["URLString": "http://foobar.com/baz"])
    }

    @Test("testArrayQueryParams: a repeated key gives an array, in order")
    func arrayQuery() throws {
        let m = try echoMediator()
        try m.route("tests://test/foo")
        #expect(m.routed("tests://test/foo?key=1&key=2&key=3&text=hi&text=there")?.own
                == ["key": ["1", "2", "3"], "text": ["hi", "there"]])
    }

    @Test("testAddingCustomRouteDefinition: a route added, then removed")
    func addAndRemove() throws {
        let m = try echoMediator()
        try m.route("tests://test")
        #expect(m.routed("tests://test")?[Mediator.schemeKey] == "tests")
        #expect(m.removeURLPattern("tests://test"))
        #expect(m.failure("tests://test") == .noTarget)
    }

    @Test("testTreatsHostAsPathComponent: the host is always the first segment (JLRoutes' YES setting)")
    func hostIsASegment() throws {
        let m = try echoMediator()
        // JLRoutes' default (NO) would route these by their path alone
        // (differs: a route names its host, so no other domain reaches it).
        try m.route("https://sign_in", "https://path/:pathid")
        #expect(m.failure("https://www.mydomain.com/sign_in") == .noTarget)
        // The YES setting is the behaviour here.
        try m.route("https://www.mydomain2.com/sign_in", "https://www.mydomain2.com/path/:pathid")
        #expect(m.routed("https://www.mydomain2.com/sign_in")?[Mediator.patternKey] == "https://www.mydomain2.com/sign_in")
        #expect(m.routed("https://www.mydomain2.com/path/3")?.own == ["pathid": "3"])
        // Any domain, on purpose: capture the host.
        try m.route("https://:domain/sign_in")
        #expect(m.routed("https://www.mydomain.com/sign_in")?.own == ["domain": "www.mydomain.com"])
    }

    @Test("testHandlerBlockForTargetClass, testHandlerBlockForWeakTarget: a pattern to a target's action")
    func targets() throws {
        let m = try echoMediator()
        try m.route("tests://test")
        #expect(m.routed("tests://test")?[Mediator.patternKey] == "tests://test")
        // Once the target is gone, the pattern leads nowhere (no fallback set).
        #expect(m.unregister(target: "T"))
        #expect(m.failure("tests://test") == .noTarget)
    }
}
