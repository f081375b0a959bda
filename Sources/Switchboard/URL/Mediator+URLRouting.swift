// What the URL routers JLRoutes, URLNavigator and MGJRouter offer beyond
// matching, in Switchboard's terms: a fallback for URLs nothing matches,
// lookups that do not call, URLs built from patterns, converters for
// placeholder types, the router's keys in a pattern's params, and removing a
// scheme's patterns at once. Each of them produces or inspects the
// destination (target, action, params) the URL router makes, so a URL call
// runs through the one dispatch whatever chose its destination.

extension Mediator {
    /// Keys starting with this are the library's: a URL's query cannot set
    /// them (`.rejected`), so a handler can trust them.
    public static let reservedKeyPrefix = "switchboard."
    /// The pattern that matched, as registered (JLRoutes' `JLRoutePatternKey`),
    /// in the params of a call a pattern chose.
    public static let patternKey = "switchboard.pattern"
    /// The URL's scheme, in lower case (`JLRouteSchemeKey`), beside ``patternKey``.
    public static let schemeKey = "switchboard.scheme"
    /// The URL as opened (`JLRouteURLKey`, `MGJRouterParameterURL`), beside ``patternKey``.
    public static let urlKey = "switchboard.url"

    // MARK: Lookups

    /// Where the URL router sends `url`, without calling anything: no
    /// target, interceptor, observer or completion runs, and nothing is
    /// discovered. The signature, the policy and the `native*` rule apply as
    /// for a call (a refusal is `.rejected`, not reported to the observer);
    /// converters run, as matching needs them. What answers the call once it
    /// is made is the dispatch's business, as for any call: a rule or an
    /// interceptor may still move it, and a target that is not there gets
    /// the NoTargetAction fallback.
    public func lookup(url: String) throws(SwitchboardError) -> URLLookup {
        try lookup(url: url) { kind, scheme, target, action, pattern, params in
            URLLookup(kind: kind, scheme: scheme, target: target, action: action, pattern: pattern, params: params)
        }
    }

    /// ``lookup(url:)``, giving what it found to `make` (borrowed) instead
    /// of a ``URLLookup``: a face builds its own answer from the parts
    /// (the C face's dict), with no Swift value made and dropped between.
    @_spi(Faces) public func lookup<Found>(
        url: String,
        _ make: (_ kind: URLLookup.Kind, _ scheme: String, _ target: String?, _ action: String?, _ pattern: String?,
                 _ params: Params) throws(SwitchboardError) -> Found
    ) throws(SwitchboardError) -> Found {
        try CallDepth.entering("the URL lookup " + RemoteURL.quoted(url)) { () throws(SwitchboardError) in
            let parsed = try RemoteURL(try urls.verified(url, quiet: true))
            let destination = try urls.resolve(parsed, quiet: true)
            if let problem = destination.nameProblem { throw .badURL(problem) }
            let handler = HandlerName.isHandler(destination.target)
            return try make(destination.kind, parsed.scheme, handler ? nil : destination.target,
                            handler ? nil : destination.action, destination.pattern, destination.params)
        }
    }

    /// Whether `url` can be opened: ``lookup(url:)`` finds a destination.
    public func canOpen(url: String) -> Bool {
        (try? lookup(url: url)) != nil
    }

    // MARK: URLs nothing matches

    /// Sends URLs of `scheme` (nil: of every scheme without its own) that no
    /// pattern matches and the scheme's connector cannot take to `action` of
    /// `target` (JLRoutes' `unmatchedURLHandler`). It gets the whole URL, as
    /// a forward connector does: `url`, `scheme`, `host`, `path`, `query`.
    /// The policy applies to it as to any URL call. A URL that does not
    /// parse, or that the policy refuses, never reaches it; nor one the
    /// targets connector takes (a target that is not there is NoTargetAction's).
    public func setURLFallback(target: String, action: String, scheme: String? = nil) throws(SwitchboardError) {
        if let scheme { try Self.check(scheme: scheme) }
        try Self.check(target, kind: "target")
        try Self.check(action, kind: "action")
        urls.setFallback(scheme: scheme, target: target, action: action)
        _ = unregisterAny(target: HandlerName.fallback(scheme)) // a handler it replaces
    }

    /// The fallback is a function another face gives (`sb_url_fallback_set_handler`,
    /// `sb.unmatched(scheme, fn)`): the action of a target no caller can name.
    @_spi(Faces) public func setURLFallback(scheme: String?, handler: ForeignFunction) throws(SwitchboardError) {
        if let scheme { try Self.check(scheme: scheme) }
        let name = HandlerName.fallback(scheme)
        addChecked([ActionEntry(name: HandlerName.schemeAction, body: .foreign(handler))], to: name)
        urls.setFallback(scheme: scheme, target: name, action: HandlerName.schemeAction)
    }

    /// Removes the fallback of `scheme` (nil: the one for every scheme).
    /// Returns false if there was none.
    @discardableResult
    public func removeURLFallback(scheme: String? = nil) -> Bool {
        defer { _ = unregisterAny(target: HandlerName.fallback(scheme)) }
        return urls.removeFallback(scheme: scheme)
    }

    /// Removes the fallback only if its handler is still the caller's (as
    /// `disconnect(scheme:ifHandler:)`).
    @_spi(Faces) public func removeURLFallback(scheme: String?, ifHandler isMine: (ForeignFunction) -> Bool) -> Bool {
        let name = HandlerName.fallback(scheme)
        let mine = unregisterEntry(target: name, action: HandlerName.schemeAction) { entry in
            entry.foreign.map { isMine($0.takeUnretainedValue()) } ?? false
        }
        return mine && urls.removeFallback(scheme: scheme) { $0.target.hasSameBytes(as: name) }
    }

    // MARK: Converters

    /// Registers the placeholder type `type` (`<type:name>` in patterns;
    /// URLNavigator's `valueConverters`): `convert` gets a decoded segment
    /// and gives the value to capture, or nil to decline (the pattern does
    /// not match there, and matching goes on with the next one). A failure
    /// it throws fails the URL call (a `SwitchboardError` as it is, any
    /// other error as `.actionFailed`). `type`: ASCII letters, digits and "_",
    /// not a built-in type. Replaces a converter of the same type.
    public func addURLConverter(_ type: String, _ convert: @escaping @Sendable (String) throws -> Value?) throws(SwitchboardError) {
        try Self.checkConverter(type)
        urls.add(converter: URLConverter(type: type) { segment throws(SwitchboardError) in
            do {
                return try convert(segment)
            } catch {
                throw .wrapping(error, in: "the URL converter \(Value.string(type))")
            }
        })
    }

    /// A converter another face gives: called with the segment (a string),
    /// its null or absent result declines.
    @_spi(Faces) public func addURLConverter(_ type: String, handler: ForeignFunction) throws(SwitchboardError) {
        try Self.checkConverter(type)
        urls.add(converter: URLConverter(type: type, foreign: handler) { segment throws(SwitchboardError) in
            try handler.call(.string(segment), state: nil)
        })
    }

    /// Removes the converter `type`; patterns that name it then match
    /// nothing at its placeholder. Returns false if there was none.
    @discardableResult
    public func removeURLConverter(_ type: String) -> Bool {
        urls.removeConverter(type)
    }

    /// Removes the converter only if its function is still the caller's.
    @_spi(Faces) public func removeURLConverter(_ type: String, ifHandler isMine: (ForeignFunction) -> Bool) -> Bool {
        urls.removeConverter(type) { $0.foreign.map(isMine) ?? false }
    }

    private static func checkConverter(_ type: String) throws(SwitchboardError) {
        guard RoutePattern.isConverterType(type) else {
            throw .invalidArgument("\(Value.string(type)) cannot name a converter: ASCII letters, digits and _, not "
                                   + "starting with a digit, at most 64 bytes, and not a built-in type (int, string, float, uuid, path)")
        }
    }

    // MARK: Patterns of a scheme

    /// Removes every pattern of `scheme` (JLRoutes' `unregisterRouteScheme:`
    /// for its routes), with their handlers: the texts they were added
    /// with, in the order they were added (empty if there were none).
    @discardableResult
    public func removeURLPatterns(scheme: String) -> [String] {
        let removed = urls.removePatterns(scheme: scheme)
        for pattern in removed { _ = unregisterAny(target: HandlerName.route(pattern)) }
        return removed
    }

    // MARK: Building URLs

    /// The URL `pattern` stands for with its placeholders filled from
    /// `params` (MGJRouter's `generateURLWithPattern:parameters:`); the
    /// params no placeholder takes become the query. Matching the URL gives
    /// back the params. `.badParams` for a value that
    /// is missing or of the wrong kind, `.invalidArgument` for a malformed
    /// pattern. The pattern need not be registered.
    public func buildURL(pattern: String, params: Params = [:]) throws(SwitchboardError) -> String {
        try URLBuilder.build(pattern, params, converter: urls.converter)
    }
}

extension HandlerName {
    /// The target of a face's unmatched-URL fallback: of a scheme, or "*"
    /// (which no scheme can be) for every scheme's.
    static func fallback(_ scheme: String?) -> String { "\u{0}unmatched:" + (scheme?.asciiLowercased ?? "*") }
}
