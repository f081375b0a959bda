// The URL entry: CTMediator's "remote app call", with a security policy,
// per-scheme connectors (Router-objc) and route patterns (JLRoutes,
// URLNavigator, MGJRouter).
//
//   open("app://A/show?id=42")  performs A.show with {"id": "42"}
//
// A URL call resolves in this order: its signature, when the mediator
// requires signed URLs (URLSigner); the scheme must be allowed; a route
// pattern of the scheme, if one matches; otherwise the scheme's connector.
// Then the target must be allowed, and no action whose name starts with
// "native" (in any case) is ever reachable. Refusals are `.rejected` and
// reach no target code. The call itself then resolves like perform, with
// the NoTargetAction fallback.
//
// Params: the query, then path captures over it, then the params passed
// beside the URL over both. Code-supplied params win because they are
// trusted and the URL is not: a URL cannot replace a callback or a value
// the caller set.

extension Mediator {
    /// Opens `url` with CTMediator's semantics, on this thread, waiting
    /// there for an action that answers later: never throws. `params` go
    /// beside the URL (callbacks, pointers, nested values a URL cannot
    /// carry). The completion, if any, gets `["result": value]`, or
    /// `["error": message, "code": "EBADURL"]` when the call failed
    /// (CTMediator would pass nil; this says why). Returns the result, or
    /// `.null` on failure. In async code, `await open(_:params:options:completion:)`.
    @discardableResult
    public func openAndWait(_ url: String, params: Params = [:], options: CallOptions = .none,
                            completion: (@Sendable (Value) -> Void)? = nil) -> Value {
        (try? openURL(url, params: params, options: options, completion: completion).get()) ?? .null
    }

    /// Opens `url` on this thread, waiting there for an action that answers
    /// later, and reports failures: `.badURL`, `.rejected`, and those of the
    /// call itself. In async code, `try await call(url:params:options:)`.
    public func callAndWait(url: String, params: Params = [:],
                            options: CallOptions = .none) throws(SwitchboardError) -> Value {
        try openURL(url, params: params, options: options).get()
    }

    /// The URL entry is one call in progress from its start: the URL
    /// observer (on a refusal) and the completion run inside it, so what
    /// they open or perform is one level deeper, and a call too deep is
    /// refused before any of them runs.
    func openURL(_ received: String, params extra: Params, options: CallOptions,
                         completion: (@Sendable (Value) -> Void)? = nil) -> Result<Value, SwitchboardError> {
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        if CallDepth.exceeded(record) {
            return .failure(CallDepth.error(record, call: "the URL call " + RemoteURL.quoted(received)))
        }
        let result: Result<Value, SwitchboardError>
        do throws(SwitchboardError) {
            let url = try urls.verified(received)
            result = openVerified(record, url, params: extra, options: options)
            // A refusal because the action is `local` is a policy refusal too,
            // made at dispatch: the observer hears of it as of the URL policy's.
            if case .failure(let error) = result, LocalRefusal.take() { urls.report(url, error.message) }
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let value): completion?(["result": value])
        case .failure(let error): completion?(["error": .string(error.message), "code": .string(error.code.name)])
        }
        return result
    }

    /// Entered (`record`), depth checked.
    private func openVerified(_ record: ThreadRecord, _ url: String, params extra: Params,
                              options: CallOptions) -> Result<Value, SwitchboardError> {
        if hasHooks || !options.isPlain {
            return interceptedEntered(record, .url(url, extra: extra), args: [:], options: options, fallback: true,
                                     via: SwiftConvention(url: url))
        }
        do throws(SwitchboardError) {
            let destination = try resolve(url: url)
            let params = destination.params.merging(extra)
            return dispatchRemote(record, destination, params: params, url: url, cache: options.cacheTarget)
        } catch {
            return .failure(error)
        }
    }

    /// Parses and resolves a URL without calling anything.
    func resolve(url: String) throws(SwitchboardError) -> URLRouter.Destination {
        try urls.resolve(RemoteURL(url))
    }

    /// `cache`: the caller's `CallOptions.cacheTarget`, honoured here as on
    /// the intercepted path (a URL's query cannot set it).
    private func dispatchRemote(_ record: ThreadRecord, _ destination: URLRouter.Destination, params: Params,
                                url: String, cache: Bool) -> Result<Value, SwitchboardError> {
        if let problem = destination.nameProblem {
            return .failure(.badURL(problem))
        }
        return withNameRef(destination.target) { target in
            withNameRef(destination.action) { action in
                planned(record, target, as: target, action, args: params, cache: cache, fallback: true,
                                via: SwiftConvention(url: url))
            }
        }
    }

    /// For other faces: resolves the URL, merges the native `extra` params
    /// the face passes (a dict, or nil), and performs. Returns a status code
    /// as `performNative` does. (A face tries ``openPlain(url:options:out:bridge:params:)``
    /// first.)
    @_spi(Faces) public func openNative(url received: String, extra: OpaquePointer?, options: CallOptions? = nil,
                                        out: UnsafeMutablePointer<OpaquePointer?>,
                                        bridge: any ForeignBridge.Type) -> Int32 {
        var convention = ForeignConvention(bridge: bridge, out: out, url: received)
        let record = pins.enterCall() // as in openURL
        defer { pins.leaveCall(record) }
        if CallDepth.exceeded(record) {
            return convention.fail(CallDepth.error(record, call: "the URL call " + RemoteURL.quoted(received)))
        }
        let url: String
        do throws(SwitchboardError) { url = try urls.verified(received) } catch { return convention.fail(error) }
        convention.url = url
        let status = openVerified(record, url, extra: extra, options: options, via: convention)
        if status != 0, LocalRefusal.take(), let error = convention.failure(of: status) {
            urls.report(url, error.message) // as in openURL
        }
        return status
    }

    /// `options`: nil for none (copying `CallOptions.none` showed in the
    /// profile of a URL call).
    private func openVerified(_ record: ThreadRecord, _ url: String, extra: OpaquePointer?, options: CallOptions?,
                              via convention: ForeignConvention) -> Int32 {
        let bridge = convention.bridge
        if hasHooks || options.map({ !$0.isPlain }) ?? false {
            let options = options ?? .none
            let extraParams: Params
            do throws(SwitchboardError) {
                extraParams = extra == nil ? [:] : try bridge.value(from: extra).dict ?? [:]
            } catch {
                return convention.fail(error)
            }
            return interceptedEntered(record, .url(url, extra: extraParams), args: nil, options: options, fallback: true,
                                     via: convention)
        }
        do throws(SwitchboardError) {
            let destination = try resolve(url: url)
            var params = destination.params
            if let extra {
                for (key, value) in try bridge.value(from: extra).dict ?? [:] { params[key] = value }
            }
            if let problem = destination.nameProblem {
                throw .badURL(problem)
            }
            let native = try bridge.native(from: .dict(params))
            defer { bridge.release(native) }
            return withNameRef(destination.target) { target in
                withNameRef(destination.action) { action in
                    planned(record, target, as: target, action, args: native, cache: options?.cacheTarget ?? false,
                                    fallback: true, via: convention)
                }
            }
        } catch {
            return convention.fail(error)
        }
    }

    // MARK: Configuration

    /// Connects a scheme (lower-cased). By default `app` is connected to
    /// `.targets`; every other scheme is an error until connected.
    public func connect(scheme: String, to connector: SchemeConnector = .targets) throws(SwitchboardError) {
        try Self.check(scheme: scheme)
        if case .forward(let target, let action) = connector {
            try Self.check(target, kind: "target")
            try Self.check(action, kind: "action")
        }
        urls.connect(scheme, connector)
        _ = unregisterAny(target: HandlerName.scheme(scheme)) // a handler it replaces
    }

    /// Connects a scheme to a handler another face gives (`sb_scheme_register`,
    /// `sb.scheme(name, fn)`): every URL of the scheme goes to it, with the
    /// params of a `.forward` connector. The handler is the action of a
    /// target no caller can name (``HandlerName``): it is reached only
    /// through its scheme, never by `perform` or an `app://` URL.
    @_spi(Faces) public func connect(scheme: String, handler: ForeignFunction) throws(SwitchboardError) {
        try Self.check(scheme: scheme)
        let name = HandlerName.scheme(scheme)
        addChecked([ActionEntry(name: HandlerName.schemeAction, body: .foreign(handler))], to: name)
        urls.connect(scheme, .forward(target: name, action: HandlerName.schemeAction))
    }

    /// Disconnects a scheme (and drops its handler, if it has one). Returns
    /// false if it was not connected.
    @discardableResult
    public func disconnect(scheme: String) -> Bool {
        defer { _ = unregisterAny(target: HandlerName.scheme(scheme)) }
        return urls.disconnect(scheme)
    }

    /// Disconnects a scheme only if its handler is still the caller's
    /// (`isMine` as for `unregister(target:action:ifOwned:)`): for a face
    /// that removes what it connected when it goes away, leaving a handler
    /// another owner connected since. Returns false if it is not.
    @_spi(Faces) public func disconnect(scheme: String, ifHandler isMine: (ForeignFunction) -> Bool) -> Bool {
        let mine = unregisterEntry(target: HandlerName.scheme(scheme), action: HandlerName.schemeAction) { entry in
            entry.foreign.map { isMine($0.takeUnretainedValue()) } ?? false
        }
        return mine && urls.disconnect(scheme)
    }

    /// Sends URLs that match the URL pattern `pattern` to `action` of
    /// `target` (`sb_url_pattern_add`; see ``RoutePattern`` for the syntax
    /// and the precedence rules).
    public func addURLPattern(_ pattern: String, target: String, action: String) throws(SwitchboardError) {
        try Self.check(target, kind: "target")
        try Self.check(action, kind: "action")
        try urls.add(pattern: pattern, target: target, action: action)
    }

    /// Sends URLs that match `pattern` to a handler another face gives
    /// (`sb.url_pattern(pattern, fn)`), as the action of a target no caller can
    /// name (``HandlerName``): reached only through the pattern.
    @_spi(Faces) public func addURLPattern(_ pattern: String, handler: ForeignFunction) throws(SwitchboardError) {
        let name = HandlerName.route(pattern)
        let existed = withNameRef(name) { key in epochs.withPinned { targets.find(key) != nil } }
        addChecked([ActionEntry(name: HandlerName.routeAction, body: .foreign(handler))], to: name)
        do {
            try urls.add(pattern: pattern, target: name, action: HandlerName.routeAction)
        } catch {
            if !existed { _ = unregisterAny(target: name) }
            throw error
        }
    }

    /// Removes the URL patterns added with exactly this text (and their
    /// handler, if they have one). Returns false if there was none.
    @discardableResult
    public func removeURLPattern(_ pattern: String) -> Bool {
        defer { _ = unregisterAny(target: HandlerName.route(pattern)) }
        return urls.remove(pattern: pattern)
    }

    /// Removes a URL pattern only if its handler is still the caller's
    /// (as `disconnect(scheme:ifHandler:)`). Returns false if it is not.
    @_spi(Faces) public func removeURLPattern(_ pattern: String, ifHandler isMine: (ForeignFunction) -> Bool) -> Bool {
        let mine = unregisterEntry(target: HandlerName.route(pattern), action: HandlerName.routeAction) { entry in
            entry.foreign.map { isMine($0.takeUnretainedValue()) } ?? false
        }
        return mine && urls.remove(pattern: pattern)
    }

    /// When set, every URL opened must carry a valid, unexpired signature
    /// (see ``URLSignatureCheck``; `URLSigner` in `SwitchboardSigning`); it is
    /// checked before interceptors, patterns and targets. `nil` (the
    /// default): URLs are not signed.
    public var urlSigner: (any URLSignatureCheck)? {
        get { urls.urlSigner }
        set { urls.urlSigner = newValue }
    }

    /// Who may be reached from URLs.
    public var urlPolicy: URLPolicy {
        get { urls.urlPolicy }
        set { urls.urlPolicy = newValue }
    }

    /// Called with every URL call the policy refuses (on the calling
    /// thread, before `open` returns): by scheme, target, `native*` action,
    /// signature, or an action whose contract says `local`.
    public var onRejectedURL: (@Sendable (RejectedURL) -> Void)? {
        get { urls.rejectionObserver }
        set { urls.rejectionObserver = newValue }
    }

    @_spi(Faces) public static func check(scheme: String) throws(SwitchboardError) {
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
              scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else {
            throw .invalidArgument("\(Value.string(scheme)) is not a URL scheme (RFC 3986: a letter, then letters, digits, + - .)")
        }
    }
}

/// The names of handlers: a function another face connects to a scheme or
/// a pattern is the action of a target of its own (so replacing it releases
/// the old one once, and the dispatcher runs it like any action). Those
/// names start with a NUL byte, which every name check refuses (Swift's
/// `NameCheck`, C strings, the Lua module's, URL decoding, rules): no caller
/// of any face can spell one, so a handler is reached only through its
/// scheme or pattern, and `unregister` does not remove it by name.
enum HandlerName {
    static let schemeAction = "open"
    static let routeAction = "route"

    static func scheme(_ scheme: String) -> String { "\u{0}scheme:" + scheme.asciiLowercased }
    static func route(_ pattern: String) -> String { "\u{0}route:" + pattern }

    static func isHandler(_ name: String) -> Bool { name.utf8.first == 0 }
    static func isHandler(_ name: NameRef) -> Bool { name.count > 0 && name.base[0] == 0 }
}

private extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
