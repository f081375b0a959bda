// What a mediator can reach, for people and tools: `switchboard routes`,
// sb_routes_json, sb.routes().

extension Mediator {
    /// Every target the mediator knows or its providers can list (with where
    /// it comes from and its actions), the URL schemes and their connectors,
    /// the route patterns, and the URL policy:
    ///
    ///     {"targets": [{"name", "origin", "actions", "async", "cached",
    ///                   "contracts": {action: contract}}],  (see ``Contract/json``;
    ///                  "async": the actions that answer later: Swift `async`
    ///                  closures, and those whose contract says `async`)
    ///      "schemes": [{"scheme", "connector", "target"?, "action"?}],  (connector
    ///                  "targets", "forward", or "handler": a face's function)
    ///      "patterns": [{"pattern", "target", "action"} | {"pattern", "handler": true}],
    ///      "policy": {"schemes": [...] | null, "targets": [...] | null},
    ///      "rules": [rule], "interceptors": [{"id", "name", "priority", "timeout_ms",
    ///                "origin", "ignored_decisions"}], "observers": n, "degrade_handler": bool,
    ///      "services": [{"name", "kind": "protocol", "lifetime", "made"} |
    ///                   {"name", "kind": "interface", "actions", "contracts", "target"}]}
    ///
    /// Lists, and contracts by action, are sorted by the UTF-8 bytes of the names (patterns in
    /// registration order).
    public func routes() -> Value {
        // Keyed by the names' bytes, as the registry is: a String key would
        // merge two targets whose names are two spellings of "é".
        var targets: [[UInt8]: Value] = [:]
        let entries: [(String, String, [String], [String], Bool, Params)] = lock.withLock {
            // A handler is shown with its scheme or pattern, not as a target.
            self.targets.entries().filter { !HandlerName.isHandler($0.name.ref) }.map { entry in
                var origins: [String] = []
                if !entry.registered.isEmpty {
                    origins.append(registrationOrigins[Array(entry.name.ref.buffer)] ?? "registered")
                }
                if let cls = entry.targetClass { origins.append(cls.origin) }
                let registered = entry.registered.entries, ofClass = entry.targetClass?.actions.entries ?? []
                let actions = (registered + ofClass).map(\.name.string)
                // A registered action hides the class's action of that name.
                var contracts: Params = [:]
                var answersLater: [ExactName: Bool] = [:]
                for action in ofClass + registered {
                    contracts[action.name.string] = action.contract?.contract.json
                    answersLater[ExactName(action.name.string)] = action.answersLater
                }
                return (entry.name.string, origins.joined(separator: " + "), Self.distinctSorted(actions),
                        Self.distinctSorted(answersLater.filter(\.value).keys.map(\.string)),
                        entry.cache.slot.load(ordering: .relaxed) != 0, contracts.sortedByKeyBytes())
            }
        }
        for (name, origin, actions, answersLater, cached, contracts) in entries {
            targets[Array(name.utf8)] = ["name": .string(name), "origin": .string(origin),
                             "actions": .array(actions.map(Value.string)),
                             "async": .array(answersLater.map(Value.string)), "cached": .bool(cached),
                             "contracts": .dict(contracts)]
        }
        for provider in providers {
            for listed in provider.listedTargets() where targets[Array(listed.name.utf8)] == nil {
                let answersLater = listed.contracts.filter(\.value.answersLater).keys.map(\.string)
                targets[Array(listed.name.utf8)] = ["name": .string(listed.name), "origin": .string(listed.origin),
                                        "actions": .array(Self.distinctSorted(listed.actions).map(Value.string)),
                                        "async": .array(Self.distinctSorted(answersLater).map(Value.string)),
                                        "cached": false, "contracts": .dict(Self.listing(listed.contracts))]
            }
        }
        let (connectors, patterns, policy) = urls.catalogue
        let schemes: [Value] = connectors.map { scheme, connector in
            switch connector {
            case .targets:
                return ["scheme": .string(scheme), "connector": "targets"]
            case .forward(let target, _) where HandlerName.isHandler(target):
                return ["scheme": .string(scheme), "connector": "handler"]
            case .forward(let target, let action):
                return ["scheme": .string(scheme), "connector": "forward", "target": .string(target), "action": .string(action)]
            }
        }
        var seen = Set<ExactName>()
        let patternList: [Value] = patterns.compactMap { route in
            guard seen.insert(ExactName(route.registered)).inserted else { return nil }
            if HandlerName.isHandler(route.target) { return ["pattern": .string(route.registered), "handler": true] }
            return ["pattern": .string(route.registered), "target": .string(route.target), "action": .string(route.action)]
        }
        let hooks = hooksCatalogue
        return [
            "rules": .array(hooks.rules),
            "interceptors": .array(hooks.interceptors),
            "observers": .int(Int64(hooks.observers)),
            "degrade_handler": .bool(hooks.degradeHandler),
            "services": .array(servicesCatalogue),
            "targets": .array(targets.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { targets[$0]! }),
            "schemes": .array(schemes),
            "patterns": .array(patternList),
            "policy": ["schemes": policy.schemes.map { .array(Self.distinctSorted($0).map(Value.string)) } ?? .null,
                       "targets": policy.targets.map { .array(Self.distinctSorted($0).map(Value.string)) } ?? .null],
        ]
    }

    /// Names without repeats (by bytes), in byte order.
    static func distinctSorted(_ names: some Sequence<String>) -> [String] {
        Set(names.map(ExactName.init)).sorted().map(\.string)
    }

    /// Contracts by action name, in byte order of the names.
    static func listing(_ contracts: [ExactName: Contract]) -> Params {
        Params(distinctKeys: contracts.keys.sorted().map { (key: $0.string, value: contracts[$0]!.json) })
    }
}
