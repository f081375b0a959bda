// URLNavigator's matcher and navigator tests (Tests/URLMatcherTests,
// Tests/URLNavigatorTests/NavigatorTests.swift) and MGJRouter's documented
// outcomes (its README), case by case in Switchboard's terms; each test names
// the case it comes from. URLNavigator's matcher takes a list of candidate
// patterns per call: here they are the mediator's patterns. Deliberate
// differences are asserted as differences, with the reason.
import Testing
import Synchronization
@_spi(Faces) @testable import Switchboard

/// The pattern a URL matched, or nil.
private func matched(_ m: Mediator, _ url: String) -> String? {
    guard let lookup = try? m.lookup(url: url), lookup.kind == .pattern else { return nil }
    return lookup.pattern
}

@Suite("Ported: URLNavigator's URLMatcherTests")
struct URLNavigatorMatcherPortTests {
    @Test("test_returns_nil_when_there_is_no_candidates, _for_unmatched_scheme, _for_(totally|partially)_unmatched_url, _for_an_unmatched_value_type")
    func nothingMatches() throws {
        #expect(matched(try echoMediator(), "myapp://user/1") == nil)
        for pattern in ["yourapp://user/<id>", "myapp://comment/<id>", "myapp://user/<id>/hello"] {
            let m = try echoMediator()
            try m.route(pattern)
            #expect(matched(m, "myapp://user/1") == nil, "\(pattern)")
        }
        let m = try echoMediator()
        try m.route("myapp://user/<int:id>")
        #expect(matched(m, "myapp://user/devxoul") == nil)
    }

    @Test("test_returns_a_result_for_totally_matching_url: a literal beats a placeholder")
    func literalWins() throws {
        let m = try echoMediator()
        try m.route("myapp://hello/<name>", "myapp://hello/world")
        #expect(matched(m, "myapp://hello/world") == "myapp://hello/world")
        #expect(try m.lookup(url: "myapp://hello/world").params.own == [:])
    }

    @Test("test_returns_a_result_for_the_longest_matching_url: <path:> at the host loses to a literal host")
    func longestMatch() throws {
        let m = try echoMediator()
        try m.route("myapp://<path:path>", "myapp://hello/<name>")
        #expect(matched(m, "myapp://hello/world") == "myapp://hello/<name>")
        #expect(try m.lookup(url: "myapp://hello/world").params.own == ["name": "world"])
    }

    @Test("test_returns_a_result_with_an_url_value_for_matching_url, _with_multiple_url_values")
    func untypedValues() throws {
        let m = try echoMediator()
        try m.route("myapp://user/<id>/hello", "myapp://user/<id>", "myapp://user/<id>/<object>")
        #expect(matched(m, "myapp://user/1") == "myapp://user/<id>")
        #expect(m.routed("myapp://user/1")?.own == ["id": "1"])
        #expect(matched(m, "myapp://user/1/posts") == "myapp://user/<id>/<object>")
        #expect(m.routed("myapp://user/1/posts")?.own == ["id": "1", "object": "posts"])
    }

    @Test("test_returns_a_result_with_an_{string,int,float,uuid}_type_url_value_for_matching_url")
    func typedValues() throws {
        let m = try echoMediator()
        try m.route("myapp://s/<string:id>", "myapp://i/<int:id>", "myapp://f/<float:id>", "myapp://u/<uuid:id>")
        #expect(m.routed("myapp://s/123")?.own == ["id": "123"])
        #expect(m.routed("myapp://i/123")?.own == ["id": 123])
        // Differs: a double, exactly the text's value (URLNavigator's Float rounds to 24 bits).
        #expect(m.routed("myapp://f/123.456")?.own == ["id": .double(123.456)])
        // Differs: no UUID kind; the string in lower case, so each UUID has one form.
        #expect(m.routed("myapp://u/621425B8-42D1-4AB4-9A58-1E69D708A84B")?.own
                == ["id": "621425b8-42d1-4ab4-9a58-1e69d708a84b"])
        #expect(m.failure("myapp://u/621425B8-42D1-4AB4-9A58") == .noTarget)
        #expect(m.failure("myapp://f/1e999") == .noTarget) // not finite
    }

    @Test("test_returns_a_result_with_a_custom_type_url_value_for_matching_url: a converter by name")
    func customType() throws {
        let m = try echoMediator()
        try m.addURLConverter("greeting") { .string("Hello, \($0)!") }
        try m.route("myapp://hello/<greeting:name>")
        #expect(matched(m, "myapp://hello/devxoul") == "myapp://hello/<greeting:name>")
        #expect(m.routed("myapp://hello/devxoul")?.own == ["name": "Hello, devxoul!"])
    }

    @Test("test_returns_a_result_with_ignoring_a_query_string: the query is in the params (differs: one dict)")
    func queryIsParams() throws {
        let m = try echoMediator()
        try m.route("myapp://alert")
        #expect(matched(m, "myapp://alert?title=hello&message=world") == "myapp://alert")
        #expect(m.routed("myapp://alert?title=hello&message=world")?.own == ["title": "hello", "message": "world"])
    }

    @Test("test_returns_a_result_with_a_path_type_url_value, _ending_with_trailing_slash: <path:> as the host")
    func pathAsHost() throws {
        let m = try echoMediator()
        try m.route("https://<path:url>")
        #expect(m.routed("https://google.com/search?q=URLNavigator")?.own == ["url": "google.com/search", "q": "URLNavigator"])
        #expect(m.routed("https://google.com/search/?q=URLNavigator")?["url"] == "google.com/search")
    }

    @Test("test_returns_nil_when_there_is_no_candidates_using_path (issues-109): <path:> needs a segment")
    func pathNeedsASegment() throws {
        let m = try echoMediator()
        try m.route("http://host/anything/<path:url>")
        #expect(matched(m, "http://host/anything") == nil)
        #expect(m.failure("") == .badURL)
    }

    @Test("test_returns_same_candidate (issues-109): the order patterns were added in does not matter")
    func orderIndependent() throws {
        let a = try echoMediator(), b = try echoMediator()
        try a.route("http://host/anything/<path:url>", "http://host/anything")
        try b.route("http://host/anything", "http://host/anything/<path:url>")
        #expect(matched(a, "http://host/anything") == "http://host/anything")
        #expect(matched(b, "http://host/anything") == "http://host/anything")
    }

    @Test("test_returns_nil_when_there_is_another_url_in_the_path (#123): refused (an empty segment)")
    func urlInPath() throws {
        let m = try echoMediator()
        try m.route("myapp://browser/<url>")
        #expect(m.failure("myapp://browser/http://google.fr") == .badURL)
        // Escaped, it is one segment.
        #expect(m.routed("myapp://browser/http%3A%2F%2Fgoogle.fr")?.own == ["url": "http://google.fr"])
    }

    @Test("URLPathComponentTests, URLMatcherInternalTests: <name> is untyped; dirty URLs are refused, not normalized")
    func components() throws {
        let m = try echoMediator()
        try m.route("myapp://foo/bar/<name>/<int:id>")
        #expect(m.routed("myapp://foo/bar/ada/7")?.own == ["name": "ada", "id": 7])
        // Differs: empty segments are refused rather than removed.
        #expect(m.failure("myapp:///////user///<id>//hello/??/#abc=/def") == .badURL)
    }

    @Test("URLConvertibleTests: query decoding (a repeated key differs: every value, not the last)")
    func queries() throws {
        let m = try echoMediator()
        try m.setURLFallback(target: "T", action: "echo", scheme: "https")
        let url = "https://xoul.kr?key=this%20is%20a%20value&greeting=hello+world!&int=12&int=34&url=https://foo/bar?hello=world"
        #expect(m.routed(url)?["query"]
                == ["key": "this is a value", "greeting": "hello+world!", "int": ["12", "34"], "url": "https://foo/bar?hello=world"])
        #expect(m.routed("https://xoul.kr?")?["query"] == [:])
        // Differs: raw non-ASCII is refused; percent-encode it.
        #expect(m.failure("https://xoul.kr/한글") == .badURL)
        #expect(m.routed("https://xoul.kr/%ED%95%9C%EA%B8%80")?["path"] == ["한글"])
    }
}

@Suite("Ported: URLNavigator's NavigatorTests (handler(for:), open, the delegate)")
struct URLNavigatorNavigatorPortTests {
    /// The alerts shown.
    private final class Shown: Sendable {
        private let list = Guarded<[Params]>([])
        func withLock<R>(_ body: (inout [Params]) -> R) -> R { list.withLock { body(&$0) } }
    }

    /// myapp://alert opens an "alert" with the query's title and message.
    private func alerts() throws -> (Mediator, Shown) {
        let m = Mediator()
        let shown = Shown()
        try m.register(target: "Alert", action: "show") { params in
            guard params["title"] != nil else { throw SwitchboardError.badParams("no title") }
            shown.withLock { $0.append(params.own) }
            return true
        }
        try m.addURLPattern("myapp://alert", target: "Alert", action: "show")
        return (m, shown)
    }

    @Test("test_handler_returns_nil_when_there_is_no_handler, _for_not_matching_url, _a_matching_handler")
    func handlerFor() throws {
        #expect(!Mediator().canOpen(url: "myapp://alert"))
        let (m, shown) = try alerts()
        #expect(!m.canOpen(url: "myapp://alerthello"))
        let lookup = try m.lookup(url: "myapp://alert?title=Hello%2C%20world!&message=It%27s%20me!")
        #expect(lookup.target == "Alert" && lookup.action == "show" && lookup.pattern == "myapp://alert")
        #expect(shown.withLock { $0.isEmpty }) // a lookup calls nothing
    }

    @Test("test_open_returns_false_when_there_is_no_handler, _for_not_matching_url, _executes_a_matching_handler(_with_context)")
    func open() throws {
        #expect(Mediator().failure("myapp://alert") == .noTarget)
        let (m, shown) = try alerts()
        #expect(m.failure("myapp://alerthello") == .noTarget)
        #expect(try m.callAndWait(url: "myapp://alert?title=Hello%2C%20world!&message=It%27s%20me!") == true)
        #expect(try m.callAndWait(url: "myapp://alert?title=Hello%2C%20world!", params: ["context": "Hi"]) == true)
        #expect(shown.withLock { $0 } == [["title": "Hello, world!", "message": "It's me!"],
                                          ["title": "Hello, world!", "context": "Hi"]])
        // The handler's own "false": the action fails the call.
        #expect(m.failure("myapp://alert") == .badParams)
    }

    @Test("test_viewController_returns_nil_for_not_matching_value_type / _factory: the type, then the action decide")
    func factory() throws {
        let m = Mediator()
        try m.register(target: "Article", action: "page") { params in
            guard let id = params["id"]?.int, id > 0 else { throw SwitchboardError.badParams("no such article") }
            return .int(id)
        }
        try m.addURLPattern("myapp://article/<int:id>", target: "Article", action: "page")
        #expect(m.failure("/article/123") == .badURL)
        #expect(m.failure("myapp://article/hello") == .noTarget)
        #expect(m.failure("myapp://article/-1") == .badParams)
        #expect(try m.callAndWait(url: "myapp://article/123") == 123)
    }

    @Test("test_shouldPush_prevents_from_pushing_when_returns_false, _does_not_get_called_for_a_not_matching_url: an interceptor")
    func delegate() throws {
        let m = try echoMediator()
        try m.route("myapp://article/<int:id>")
        let asked = Counter()
        try m.addInterceptor(named: "shouldPush") { call in
            asked.increment()
            return call.params["id"] == 7 ? .reject(.rejected("not pushed")) : .proceed
        }
        #expect(m.failure("myapp://nothing") == .noTarget)
        #expect(asked.value == 0)
        #expect(m.failure("myapp://article/7") == .rejected)
        #expect(m.routed("myapp://article/8")?.own == ["id": 8])
        #expect(asked.value == 2)
    }
}

@Suite("Ported: MGJRouter's documented outcomes (README)")
struct MGJRouterPortTests {
    @Test("registerURLPattern:toHandler:, openURL:, openURL:withUserInfo:completion:, objectForURL:")
    func basics() throws {
        let m = try echoMediator()
        try m.route("mgj://foo/bar", "mgj://category/travel", "mgj://search/:query")
        #expect(m.routed("mgj://foo/bar")?[Mediator.urlKey] == "mgj://foo/bar") // MGJRouterParameterURL
        // The user info is laid over the params (differs: not nested under MGJRouterParameterUserInfo).
        #expect(m.routed("mgj://category/travel", params: ["user_id": 1900])?.own == ["user_id": 1900])
        #expect(m.routed("mgj://search/bicycle?color=red")?.own == ["query": "bicycle", "color": "red"])
        let done = Guarded<Value?>(nil)
        let value = m.openAndWait("mgj://foo/bar") { info in done.withLock { $0 = info } }
        #expect(done.withLock { $0 }?["result"] == value) // the completion gets what the handler gave
    }

    @Test("registerURLPattern: with Chinese: the pattern may be written raw; the URL is percent-encoded")
    func chinese() throws {
        let m = try echoMediator()
        try m.route("mgj://category/家居")
        #expect(m.routed("mgj://category/%E5%AE%B6%E5%B1%85")?[Mediator.patternKey] == "mgj://category/家居")
        // Differs: a URL with raw non-ASCII is refused (RFC 3986).
        #expect(m.failure("mgj://category/家居") == .badURL)
    }

    @Test("registerURLPattern:@\"mgj://\" as a fallback: refused, with the Switchboard forms named")
    func schemeFallback() throws {
        let m = try echoMediator()
        let error = #expect(throws: SwitchboardError.self) { try m.route("mgj://") }
        #expect(error?.message.contains("\"mgj://*\"") == true && error?.message.contains("fallback") == true)
        try m.route("mgj://search/:query")
        try m.setURLFallback(target: "T", action: "echo", scheme: "mgj")
        #expect(m.routed("mgj://search/travel/china?has_travelled=0")?["url"] == "mgj://search/travel/china?has_travelled=0")
        #expect(m.routed("mgj://search/bicycle")?.own == ["query": "bicycle"])
        // Or a catch-all pattern, below every other pattern of the scheme.
        try m.route("mgj://*")
        #expect(m.routed("mgj://search/travel/china")?.own == ["*": ["search", "travel", "china"]])
    }

    @Test("generateURLWithPattern:parameters: by name, not by position (differs: a dict)")
    func generate() throws {
        let m = try echoMediator()
        try m.route("mgj://search/:keyword")
        let url = try m.buildURL(pattern: "mgj://search/:keyword", params: ["keyword": "Hangzhou"])
        #expect(url == "mgj://search/Hangzhou")
        #expect(m.routed(url)?.own == ["keyword": "Hangzhou"])
    }

    @Test("canOpenURL:, deregisterURLPattern:")
    func canOpenAndDeregister() throws {
        let m = try echoMediator()
        try m.route("mgj://beauty/:id")
        #expect(m.canOpen(url: "mgj://beauty/123"))
        #expect(m.removeURLPattern("mgj://beauty/:id"))
        #expect(!m.canOpen(url: "mgj://beauty/123"))
    }

    @Test("MGJRouter's \":id.html\" (a placeholder with a literal suffix): refused (differs)")
    func suffix() throws {
        let m = try echoMediator()
        #expect(throws: SwitchboardError.self) { try m.route("mgj://detail/:id.html") }
        // The Switchboard form: a converter that takes the suffix off.
        try m.addURLConverter("html") { $0.hasSuffix(".html") && $0.count > 5 ? .string(String($0.dropLast(5))) : nil }
        try m.route("mgj://detail/<html:id>")
        #expect(m.routed("mgj://detail/42.html")?.own == ["id": "42"])
    }
}
