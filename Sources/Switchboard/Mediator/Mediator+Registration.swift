// Explicit registration: closures, Swift target classes, foreign functions.
// Registered actions are found before a discovered class's own actions.

extension Mediator {
    /// Registers one closure action. Replaces an action of the same name on
    /// the same target; the replaced closure is released once no call is
    /// still running it.
    public func register(target: String, action: String,
                         _ body: @escaping @Sendable (Params) throws -> Value) throws(SwitchboardError) {
        try register(target: target, actions: [action: body])
    }

    /// Registers a closure action with a contract: its params are checked
    /// (and completed) before each call. Throws `.invalidArgument` for a
    /// contract that does not parse or contradicts itself.
    public func register(target: String, action: String, contract: Contract,
                         _ body: @escaping @Sendable (Params) throws -> Value) throws(SwitchboardError) {
        try Self.check(action, kind: "action")
        let contract = try contract.validated(for: "\(target).\(action)")
        try add([ActionEntry(name: action, body: .swift { _, params in try body(params) }, contract: contract)],
                to: target)
    }

    /// Registers an asynchronous closure action: it runs on a task of its
    /// own and answers when it returns. A call (from any face) waits for it
    /// on the caller's thread, except from inside a Swift task, where
    /// waiting could starve the cooperative pool: there the call fails with
    /// `.wouldBlock` before the action starts. The call's
    /// ``CallOptions/timeout`` and ``CallOptions/cancellation`` end the wait
    /// and cancel the action's task.
    ///
    /// A closure isolated to the main actor (`{ @MainActor params in ... }`)
    /// runs there; a caller that waits for it on the main actor, where it
    /// would run, gets `.wouldBlock` at once instead of waiting forever.
    public func register(target: String, action: String,
                         _ body: @escaping @isolated(any) @Sendable (Params) async throws -> Value) throws(SwitchboardError) {
        try registerAsync(target: target, action: action, contract: nil, body)
    }

    /// Registers an asynchronous closure action with a contract: its params
    /// are checked before it starts, its result when it answers.
    public func register(target: String, action: String, contract: Contract,
                         _ body: @escaping @isolated(any) @Sendable (Params) async throws -> Value) throws(SwitchboardError) {
        try registerAsync(target: target, action: action, contract: contract, body)
    }

    private func registerAsync(target: String, action: String, contract: Contract?,
                               _ body: @escaping @isolated(any) @Sendable (Params) async throws -> Value) throws(SwitchboardError) {
        if MainActorCode.isMain(body.isolation) {
            let label = "\(target).\(action)"
            return try registerSwift(target: target, action: action, contract: Self.answeringLater(contract),
                                     body: { _, params in try MainActorCode.runAsyncAction(label) { try await body(params) } })
        }
        try Self.check(action, kind: "action")
        let contract = try contract?.validated(for: "\(target).\(action)")
        try add([ActionEntry(name: action, body: .swiftAsync { _, params in try await body(params) }, contract: contract)],
                to: target)
    }

    /// Registers several closure actions on one target at once, in the order
    /// written (a repeated name keeps its last body).
    public func register(target: String,
                         actions: KeyValuePairs<String, @Sendable (Params) throws -> Value>) throws(SwitchboardError) {
        let entries = try actions.map { name, body throws(SwitchboardError) in
            try Self.check(name, kind: "action")
            return ActionEntry(name: name, body: .swift { _, params in try body(params) })
        }
        try add(entries, to: target)
    }

    /// Registers a `Target` class under `name` without discovery. Replaces a
    /// class registered or discovered under that name (and its cached instance).
    public func register<T: Target>(_ type: T.Type, as name: String) throws(SwitchboardError) {
        try Self.check(name, kind: "target")
        let targetClass = TargetClass(swiftType: type, origin: "Swift type \(String(reflecting: type)) registered as \(name)",
                                      for: self)
        write {
            let registered = withNameRef(name) { targets.find($0) }?.takeUnretainedValue().registered ?? .empty
            targets.put(TargetEntry(name: name, registered: registered, targetClass: targetClass, searchedAt: .max))
        }
    }

    /// Registers an action implemented by another face.
    @_spi(Faces) public func register(target: String, action: String,
                                      foreign function: ForeignFunction) throws(SwitchboardError) {
        try Self.check(action, kind: "action")
        try add([ActionEntry(name: action, body: .foreign(function))], to: target)
    }

    /// Registers a C or Lua function with a contract (the contract syntax or
    /// its JSON form; nil: none).
    @_spi(Faces) public func register(target: String, action: String, contract text: String?,
                                      foreign function: ForeignFunction) throws(SwitchboardError) {
        try Self.check(action, kind: "action")
        let contract = try text.map { text throws(SwitchboardError) in
            try Contract(parsing: text).validated(for: "\(target).\(action)")
        }
        try add([ActionEntry(name: action, body: .foreign(function), contract: contract)], to: target)
    }

    /// Removes everything registered or discovered under `target` and drops
    /// its cached instance. A discoverable target is found again on next use.
    /// Returns false if there was nothing under that name.
    @discardableResult
    public func unregister(target: String) -> Bool {
        // A handler is removed with its scheme or pattern, never by name.
        guard !HandlerName.isHandler(target) else { return false }
        return unregisterAny(target: target)
    }

    /// `unregister(target:)` for any name, a handler's included.
    func unregisterAny(target: String) -> Bool {
        write {
            registrationOrigins[Array(target.utf8)] = nil
            return withNameRef(target) { targets.remove($0) }
        }
    }

    /// Says where the registered actions of `target` come from ("Lua file
    /// targets/Target_A.lua", "config.json"), for the catalogue: `routes()`
    /// shows it as the target's origin instead of "registered". Forgotten
    /// when the target loses its registered actions or is registered more
    /// actions (say it again after registering). Throws `.notFound` if
    /// `target` has no registered action.
    public func setOrigin(_ origin: String, ofTarget target: String) throws(SwitchboardError) {
        try Self.check(target, kind: "target")
        guard !origin.isEmpty, !origin.utf8.contains(0) else {
            throw .invalidArgument("an origin is a non-empty string without NUL bytes")
        }
        try write { () throws(SwitchboardError) in
            guard withNameRef(target, { targets.find($0) })?.takeUnretainedValue().registered.isEmpty == false else {
                throw .notFound("no target \"\(target)\" with registered actions to describe")
            }
            registrationOrigins[Array(target.utf8)] = origin
        }
    }

    /// Removes one registered action. Actions of a discovered class cannot be
    /// removed this way. Returns false if there was no such registration.
    @discardableResult
    public func unregister(target: String, action: String) -> Bool {
        unregister(target: target, action: action, if: { _ in true })
    }

    /// Removes one registered action only if it is still the caller's:
    /// `isMine` is shown its foreign function (under the registry's lock: it
    /// must only compare, never call back). For a face that removes what it
    /// registered when it goes away (a Lua state closing), so that what
    /// another owner registered since under the same name stays. Returns
    /// false if the action is not registered, or not as the caller's.
    @_spi(Faces) public func unregister(target: String, action: String,
                                        ifOwned isMine: (ForeignFunction) -> Bool) -> Bool {
        unregister(target: target, action: action) { entry in
            entry.foreign.map { isMine($0.takeUnretainedValue()) } ?? false
        }
    }

    private func unregister(target: String, action: String, if isMine: (ActionEntry) -> Bool) -> Bool {
        guard !HandlerName.isHandler(target) else { return false }
        return unregisterEntry(target: target, action: action, if: isMine)
    }

    /// Removes the action `isMine` accepts; handlers' names included (for
    /// `disconnect(scheme:ifHandler:)` and `removeURLPattern(_:ifHandler:)`).
    func unregisterEntry(target: String, action: String, if isMine: (ActionEntry) -> Bool) -> Bool {
        write {
            withNameRef(target) { key in
                guard let entry = targets.find(key)?.takeUnretainedValue(),
                      let current = withNameRef(action, { entry.registered.find($0) }),
                      isMine(current.takeUnretainedValue()),
                      let remaining = entry.registered.removing(action) else { return false }
                if remaining.isEmpty {
                    registrationOrigins[Array(target.utf8)] = nil
                }
                if remaining.isEmpty && entry.targetClass == nil {
                    targets.remove(key)
                } else {
                    targets.put(entry.with(registered: remaining))
                }
                return true
            }
        }
    }

    /// Evicts the cached instance of `target` (`sb_target_evict`; CTMediator's
    /// `releaseCachedTargetWithFullTargetName:`). Calls already running keep
    /// using it; it is destroyed when the last of them returns. For a call
    /// that named a module with ``moduleKey``, the name is `Module.Name`.
    /// Returns false if nothing was cached.
    @discardableResult
    public func evict(target: String) -> Bool {
        let released: Bool = epochs.withPinned {
            withNameRef(target) { key in
                guard let entry = targets.find(key) else { return false }
                return Borrowed(entry).read { evictCachedInstance(of: $0) }
            }
        }
        if released { epochs.collect(wait: true) }
        return released
    }

    /// Adds `entries` to the registered actions of `target`.
    func add(_ entries: [ActionEntry], to target: String) throws(SwitchboardError) {
        try Self.check(target, kind: "target")
        addChecked(entries, to: target)
    }

    /// `add` for a name already checked, or a handler's (``HandlerName``).
    func addChecked(_ entries: [ActionEntry], to target: String) {
        write {
            registrationOrigins[Array(target.utf8)] = nil // what is added comes from the caller
            return withNameRef(target) { key in
                if let entry = targets.find(key)?.takeUnretainedValue() {
                    let registered = entries.reduce(entry.registered) { $0.replacing($1) }
                    targets.put(entry.with(registered: registered))
                } else {
                    targets.put(TargetEntry(name: target, registered: ActionMap(entries)))
                }
            }
        }
    }

    static func check(_ name: String, kind: String) throws(SwitchboardError) {
        if let problem = NameCheck.problem(with: name, kind: kind) {
            throw .invalidArgument(problem)
        }
    }
}
