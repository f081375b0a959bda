// Registering what watches and changes calls: interceptors, observers,
// rules and the degrade handler. How a call goes through them is in
// Mediator+Intercepted.swift.

extension Mediator {
    /// How many times one call may be redirected (by rules or interceptors)
    /// before it fails with `.rejected` as a redirect loop (`SB_MAX_REDIRECTS`).
    public static let maxRedirects = 8

    /// How long a call waits for an interceptor that has not decided when its
    /// body returns, unless the interceptor says otherwise (`SB_INTERCEPTOR_TIMEOUT_MS`).
    public static let defaultInterceptorTimeout: Duration = .seconds(1)

    /// Adds an interceptor that decides before it returns. Interceptors run
    /// in priority order (higher first), then in the order they were added.
    /// A thrown error fails the call, with a message naming the interceptor.
    /// Returns the id for ``removeInterceptor(_:)-(InterceptorID)``.
    @discardableResult
    public func addInterceptor(named name: String, priority: Int = 0,
                               _ body: @escaping @Sendable (Interception) throws -> Decision) throws(SwitchboardError)
        -> InterceptorID {
        try addInterceptor(named: name, priority: priority, timeout: Self.defaultInterceptorTimeout) { call in
            do {
                call.complete(try body(call))
            } catch {
                call.complete(.reject(Self.interceptorFailure(error, name: name)))
            }
        }
    }

    /// Adds an interceptor isolated to the main actor (pass
    /// `MainActor.shared`): it decides on the main actor. A call made there
    /// runs it at once; a call made on another thread waits for the main
    /// actor to run it, up to `timeout` (`.timeout`).
    @discardableResult
    public func addInterceptor(named name: String, priority: Int = 0, timeout: Duration = defaultInterceptorTimeout,
                               isolation: MainActor,
                               _ body: @escaping @MainActor @Sendable (Interception) throws -> Decision)
        throws(SwitchboardError) -> InterceptorID {
        try addInterceptor(named: name, priority: priority, timeout: timeout) { call in
            let decide: @MainActor @Sendable () -> Void = {
                do {
                    call.complete(try body(call))
                } catch {
                    call.complete(.reject(Self.interceptorFailure(error, name: name)))
                }
            }
            if MainActorCode.onMainActor(decide) == nil { Task { @MainActor in decide() } }
        }
    }

    /// Adds an interceptor written with Swift concurrency. The call waits
    /// for it up to `timeout`, then fails with `.timeout`; an awaited call
    /// waits without a thread, and goes on where the body decides. The body
    /// starts on a thread kept for async interceptors, not on Swift's shared
    /// pool, so calls made from tasks cannot starve it. A body isolated to
    /// the main actor (`{ @MainActor call in ... }`) cannot run while a
    /// synchronous call waits for it on the main actor: such a call fails at
    /// once with `.wouldBlock` (await the call instead) rather than stall for
    /// the whole timeout.
    @discardableResult
    public func addInterceptor(named name: String, priority: Int = 0, timeout: Duration = defaultInterceptorTimeout,
                               async body: @escaping @isolated(any) @Sendable (Interception) async throws -> Decision)
        throws(SwitchboardError) -> InterceptorID {
        let needsMainActor = MainActorCode.isMain(body.isolation)
        return try addInterceptor(named: name, priority: priority, timeout: timeout) { call in
            if needsMainActor && MainActorThread.isCurrent && call.callerWaits {
                call.complete(.reject(.wouldBlock(
                    "interceptor \"\(name)\" is isolated to the main actor, and this call waits for it on the main "
                    + "actor, where it would run: await the call (try await mediator.call), or make it from another thread")))
                return
            }
            Task.detached(executorPreference: InterceptorExecutor.shared) {
                do {
                    call.complete(try await body(call))
                } catch {
                    call.complete(.reject(Self.interceptorFailure(error, name: name)))
                }
            }
        }
    }

    /// Adds an interceptor that decides by calling ``Interception/complete(_:)``
    /// exactly once, before returning or later from any thread. The call
    /// waits up to `timeout`, then fails with `.timeout` naming it.
    @discardableResult
    public func addInterceptor(named name: String, priority: Int = 0, timeout: Duration = defaultInterceptorTimeout,
                               completing body: @escaping @Sendable (Interception) -> Void) throws(SwitchboardError)
        -> InterceptorID {
        InterceptorID(rawValue: try addInterceptor(named: name, priority: priority, timeout: timeout, origin: "Swift", body))
    }

    @_spi(Faces) @discardableResult
    public func addInterceptor(named name: String, priority: Int, timeout: Duration, origin: String,
                               _ body: @escaping @Sendable (Interception) -> Void) throws(SwitchboardError) -> UInt64 {
        try Self.checkInterceptorName(name)
        let nanoseconds = try Self.nanoseconds(timeout, name: name)
        let id = hooks.update(epochs, changed: changed) { current, nextID -> (Hooks, UInt64?) in
            // Each change copies the list (calls read it without a lock), so
            // without a bound adding n of them would cost n².
            guard current.interceptors.count < Self.maxInterceptors else { return (current, nil) }
            let id = nextID()
            let registration = InterceptorRegistration(id: id, name: name, priority: priority,
                                                       timeout: nanoseconds, origin: origin, body: body)
            return (current.with(interceptors: current.interceptors + [registration]), id)
        }
        guard let id else { throw .rejected("at most \(Self.maxInterceptors) interceptors: remove one first") }
        return id
    }

    /// The most interceptors a mediator holds: adding one more is `.rejected`.
    public static let maxInterceptors = 1_024
    /// The most observers a mediator holds: adding one more is `.rejected`.
    public static let maxObservers = 1_024

    /// Renames an interceptor or changes its timeout (nil keeps either).
    /// Returns false for an unknown id.
    @_spi(Faces) public func reconfigureInterceptor(_ id: UInt64, name: String?, timeout: Duration?) throws(SwitchboardError) -> Bool {
        if let name { try Self.checkInterceptorName(name) }
        let nanoseconds = try timeout.map { (t: Duration) throws(SwitchboardError) -> UInt64 in try Self.nanoseconds(t, name: name ?? "") }
        return hooks.update(epochs, changed: changed) { current, _ in
            var found = false
            let updated = current.interceptors.map { old -> InterceptorRegistration in
                guard old.id == id else { return old }
                found = true
                let new = InterceptorRegistration(id: id, name: name ?? old.name, priority: old.priority,
                                                  timeout: nanoseconds ?? old.timeout, origin: old.origin, body: old.body)
                new.ignored.store(old.ignored.load(ordering: .relaxed), ordering: .relaxed)
                return new
            }
            return (current.with(interceptors: updated), found)
        }
    }

    private static func checkInterceptorName(_ name: String) throws(SwitchboardError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw .invalidArgument("an interceptor's name must be non-empty text without NUL bytes")
        }
    }

    private static func nanoseconds(_ timeout: Duration, name: String) throws(SwitchboardError) -> UInt64 {
        guard timeout > .zero else { throw .invalidArgument("interceptor \"\(name)\": the timeout must be positive") }
        let (seconds, attoseconds) = timeout.components
        let limit = UInt64.max / 4
        guard seconds < Int64(limit / 1_000_000_000) else { return limit }
        return max(UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000), 1)
    }

    /// Removes an interceptor. Calls already past it are not affected.
    /// Returns false for an unknown id.
    @discardableResult
    public func removeInterceptor(_ id: InterceptorID) -> Bool {
        hooks.update(epochs, changed: changed) { current, _ in
            let kept = current.interceptors.filter { $0.id != id.rawValue }
            return (current.with(interceptors: kept), kept.count != current.interceptors.count)
        }
    }

    /// Adds an observer, told when each call starts and ends. Returns the
    /// id for ``removeObserver(_:)-(ObserverID)``. With no observer (and no other hook)
    /// calls pay nothing for the feature. `.rejected` past
    /// ``maxObservers``.
    @discardableResult
    public func addObserver(_ body: @escaping @Sendable (CallEvent) -> Void) throws(SwitchboardError) -> ObserverID {
        let id = hooks.update(epochs, changed: changed) { current, nextID -> (Hooks, UInt64?) in
            guard current.observers.count < Self.maxObservers else { return (current, nil) }
            let id = nextID()
            return (current.with(observers: current.observers + [ObserverRegistration(id: id, body: body)]), id)
        }
        guard let id else { throw .rejected("at most \(Self.maxObservers) observers: remove one first") }
        return ObserverID(rawValue: id)
    }

    /// Adds an observer isolated to the main actor (pass `MainActor.shared`):
    /// told at once of calls made on the main actor, and there,
    /// later, of calls made elsewhere (with the event's params and result
    /// kept for it).
    @discardableResult
    public func addObserver(isolation: MainActor,
                            _ body: @escaping @MainActor @Sendable (CallEvent) -> Void) throws(SwitchboardError) -> ObserverID {
        try addObserver { event in
            if MainActorCode.onMainActor({ body(event) }) != nil { return }
            let kept = event.keptForLater()
            Task { @MainActor in body(kept) }
        }
    }

    /// Removes an observer: calls that start afterwards do not tell it; a
    /// call already running may still tell it of its end. Returns false for
    /// an unknown id.
    @discardableResult
    public func removeObserver(_ id: ObserverID) -> Bool {
        hooks.update(epochs, changed: changed) { current, _ in
            let kept = current.observers.filter { $0.id != id.rawValue }
            return (current.with(observers: kept), kept.count != current.observers.count)
        }
    }

    /// The routing rules, in the order they are tried. Setting replaces all
    /// of them at once: a call sees the old set or the new one, never a mix.
    public var rules: [RoutingRule] {
        get { hooks.snapshot.rules.all }
        set { hooks.update(epochs, changed: changed) { current, _ in (current.with(rules: RuleSet(all: newValue)), ()) } }
    }

    /// Replaces the rules with those in `value`, an array of rule dicts (see
    /// ``RoutingRule``). On an error nothing changes.
    public func setRules(_ value: Value) throws(SwitchboardError) {
        guard let list = value.array else { throw .invalidArgument("rules are an array of rules") }
        var rules: [RoutingRule] = []
        for (index, item) in list.enumerated() { rules.append(try RoutingRule(item, index: index)) }
        self.rules = rules
    }

    /// Replaces the rules with those in a JSON array. On an error nothing changes.
    public func setRules(json: String) throws(SwitchboardError) {
        try setRules(try Value(json: json))
    }

    /// Answers any call that nothing else answers, after `NoTargetAction`,
    /// with the same params (`originParams`, `targetString`,
    /// `selectorString`, `target`, `action`, and `url` for a URL call).
    /// Nil removes it.
    public func setDegradeHandler(_ body: (@Sendable (Params) throws -> Value)?) {
        setDegradeHandler(entry: body.map { body in
            ActionEntry(name: "degrade", body: .swift { _, params in try body(params) })
        })
    }

    @_spi(Faces) public func setDegradeHandler(foreign function: ForeignFunction?) {
        setDegradeHandler(entry: function.map { ActionEntry(name: "degrade", body: .foreign($0)) })
    }

    private func setDegradeHandler(entry: ActionEntry?) {
        hooks.update(epochs, changed: changed) { current, _ in (current.with(degrade: .some(entry)), ()) }
    }

    /// Removes the degrade handler only if it is still the caller's (see
    /// ``unregister(target:action:ifOwned:)``). Returns whether it did.
    @_spi(Faces) public func removeDegradeHandler(ifOwned isMine: (ForeignFunction) -> Bool) -> Bool {
        hooks.update(epochs, changed: changed) { current, _ in
            guard let foreign = current.degrade?.foreign, isMine(foreign.takeUnretainedValue()) else {
                return (current, false)
            }
            return (current.with(degrade: .some(nil)), true)
        }
    }

    /// Whether ``CallOptions/bypassInterceptors`` is honoured (default true).
    /// Turn it off when interceptors enforce something no caller may skip.
    public var allowsBypass: Bool {
        get { hooks.allowsBypass.load(ordering: .relaxed) }
        set { hooks.allowsBypass.store(newValue, ordering: .relaxed) }
    }

    /// The hooks for the catalogue.
    var hooksCatalogue: (interceptors: [Value], rules: [Value], observers: Int, degradeHandler: Bool) {
        let snapshot = hooks.snapshot
        let interceptors: [Value] = snapshot.interceptors.map {
            ["id": .int(Int64($0.id)), "name": .string($0.name), "priority": .int(Int64($0.priority)),
             "timeout_ms": .int(Int64($0.timeout / 1_000_000)), "origin": .string($0.origin),
             "ignored_decisions": .int(Int64($0.ignored.load(ordering: .relaxed)))]
        }
        return (interceptors, snapshot.rules.all.map(\.value), snapshot.observers.count, snapshot.degrade != nil)
    }

    static func interceptorFailure(_ error: any Error, name: String) -> SwitchboardError {
        let message = "interceptor \"\(name)\" failed: "
        if let own = error as? SwitchboardError {
            return SwitchboardError(code: own.code, message: message + own.message, underlying: own.underlying)
        }
        if error is CancellationError { return SwitchboardError(code: .canceled, message: message + "cancelled", underlying: error) }
        return .actionFailed(message + "\(error)", underlying: error)
    }
}
