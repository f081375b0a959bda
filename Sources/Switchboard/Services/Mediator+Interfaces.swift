// Named services for every face: the protocol-class scheme in the terms C and
// Lua have. A service is a named interface — action names, each with an
// optional contract — that callers ask for by its name; a binding says which
// target implements it. Binding checks conformance; a call through the
// interface finds the bound target with one lookup and performs on it.
//
//     try mediator.defineService("Payments", interface: """
//         charge(cents: int -> bool)
//         refund(cents: int)
//         """)
//     try mediator.bindService("Payments", to: "Stripe")
//     try mediator.callService("Payments", action: "charge", params: ["cents": 300])
//
// Swift's typed services (`register(P.self)`, Mediator+Services.swift) stay as
// they are; both appear in the catalogue's "services" section.

/// One defined service: its interface and, once bound, its target. Immutable:
/// rebinding publishes a new entry, so a call sees one binding or the other.
final class ServiceInterfaceEntry: Sendable {
    let name: String
    /// The interface's actions in the order written, with their contracts.
    let actions: [(name: String, contract: Contract?)]
    /// Each action's contract as calls check it (nil: none declared).
    let byName: [ExactName: ContractCheck?]
    let target: String?

    convenience init(name: String, actions: [(name: String, contract: Contract?)], target: String?) {
        var byName: [ExactName: ContractCheck?] = [:]
        for action in actions {
            // updateValue: assigning an optional through the subscript would
            // remove the key of an action without a contract.
            let check: ContractCheck? = action.contract.map { ContractCheck($0) }
            byName.updateValue(check, forKey: ExactName(action.name))
        }
        self.init(name: name, actions: actions, byName: byName, target: target)
    }

    private init(name: String, actions: [(name: String, contract: Contract?)], byName: [ExactName: ContractCheck?],
                 target: String?) {
        self.name = name
        self.actions = actions
        self.byName = byName
        self.target = target
    }

    func bound(to target: String?) -> ServiceInterfaceEntry {
        ServiceInterfaceEntry(name: name, actions: actions, byName: byName, target: target)
    }
}

/// A mediator's defined services, by name (bytes).
final class ServiceInterfaceTable: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var entries: [ExactName: ServiceInterfaceEntry] = [:] // under `lock`

    func entry(_ name: String) -> ServiceInterfaceEntry? { lock.withLock { entries[ExactName(name)] } }
    func put(_ entry: ServiceInterfaceEntry) { lock.withLock { entries[ExactName(entry.name)] = entry } }
    func remove(_ name: String) -> Bool { lock.withLock { entries.removeValue(forKey: ExactName(name)) != nil } }
    var all: [ServiceInterfaceEntry] { lock.withLock { Array(entries.values) } }

    /// Replaces the entry of `name` with `make(current)` if it is still `current`.
    func replace(_ current: ServiceInterfaceEntry, with new: ServiceInterfaceEntry) -> Bool {
        lock.withLock {
            guard entries[ExactName(current.name)] === current else { return false }
            entries[ExactName(current.name)] = new
            return true
        }
    }
}

/// A call through a service: the bound target, and the interface's
/// contract for the action. The interface holds at the call, not only when
/// the target was bound: the target bound then may have been replaced since,
/// or be gone so that a fallback answers, or an interceptor may answer. So
/// the params are checked against the interface's contract (defaults filled
/// in; `.badParams`) before the target's own contract sees them, and a
/// result the interface declares is checked after (`.typeMismatch`).
struct ServiceCall {
    let service: String
    let action: String
    let target: String
    let check: ContractCheck?

    /// "service Payments.charge", as check messages name the call.
    var label: String { "service \(service).\(action)" }

    func wrongResult(_ type: ParamType, got: String) -> SwitchboardError {
        .typeMismatch("\(label): expected \(type.withArticle) result, got \(got)")
    }

    /// `value`, fitted to the result the interface declares (an int for a
    /// double, a string for bytes); `.typeMismatch` for another kind.
    func checkedResult(_ value: Value) throws(SwitchboardError) -> Value {
        guard let type = check?.result else { return value }
        guard let fitted = type.result(value) else { throw wrongResult(type, got: "\(value.kind)") }
        return fitted
    }
}

extension Mediator {
    /// Defines the service `name` with the actions of `interface`: one
    /// action per line (or separated by `;`), each a name with an optional
    /// contract in parentheses, in the contract syntax; blank lines and
    /// lines starting with `--` are skipped:
    ///
    ///     charge(cents: int, currency: string = "EUR" -> bool)
    ///     refund(cents: int)
    ///     status
    ///
    /// Replaces an earlier definition of `name`, and drops its binding (bind
    /// again: the new interface is checked then). Throws `.invalidArgument`
    /// for a bad name, an empty interface, an action named twice, or a
    /// contract that does not parse.
    public func defineService(_ name: String, interface: String) throws(SwitchboardError) {
        try Self.check(name, kind: "service")
        let actions = try ServiceInterfaceParser.parse(interface, service: name)
        services.interfaces.put(ServiceInterfaceEntry(name: name, actions: actions, target: nil))
    }

    /// Removes the service `name` and its binding. Returns whether it was defined.
    @discardableResult
    public func removeService(_ name: String) -> Bool {
        services.interfaces.remove(name)
    }

    /// Binds the service `name` to `target` (nil unbinds), after checking
    /// that the target conforms: it has every action of the interface
    /// (registered, or of its class, found as a call would find it; a
    /// `notFound` action does not count), and each action's contract is
    /// compatible with the interface's: every param the target requires is
    /// one the interface requires, every param both declare has the same
    /// type (the target may take `any`, or a double for an int), and a
    /// result the interface declares is the target's declared result. The
    /// binding replaces the previous one at once: a call sees the old target
    /// or the new one. Throws `.notFound` for an undefined service or a
    /// target nothing answers to, `.typeMismatch` (the target is not of the
    /// interface's kind) naming every missing or incompatible action.
    public func bindService(_ name: String, to target: String?) throws(SwitchboardError) {
        try Self.check(name, kind: "service")
        if let target { try Self.check(target, kind: "target") }
        while true {
            guard let current = services.interfaces.entry(name) else {
                throw .notFound("no service \(Value.string(name)) is defined")
            }
            if let target { try checkConformance(of: target, to: current) }
            if services.interfaces.replace(current, with: current.bound(to: target)) { return }
            // Redefined meanwhile: check the new interface.
        }
    }

    /// Where a call of `action` through the service `name` goes, found with
    /// one lookup. Throws `.notFound` for an undefined service, `.noTarget`
    /// for an unbound one, `.noAction` for an action its interface does not have.
    func serviceCall(_ name: String, action: String) throws(SwitchboardError) -> ServiceCall {
        guard let entry = services.interfaces.entry(name) else {
            throw .notFound("no service \(Value.string(name)) is defined")
        }
        guard let check = entry.byName[ExactName(action)] else {
            throw .noAction("service \(Value.string(name)) has no action \(Value.string(action)) (its interface: "
                            + entry.actions.map(\.name).joined(separator: ", ") + ")")
        }
        guard let target = entry.target else { throw .noTarget("service \(Value.string(name)) is not bound to a target") }
        return ServiceCall(service: name, action: action, target: target, check: check)
    }

    /// Performs `action` of the service `name` on the target bound to it,
    /// as ``callAndWait(target:action:params:cacheTarget:)`` does (on this
    /// thread, waiting there for an action that answers later), checked
    /// against the interface's contract for `action`.
    /// The binding alone picks the target: a module key in `params` is
    /// passed on as a param, and chooses nothing. In async code,
    /// `try await callService(_:action:params:options:)`.
    public func callServiceAndWait(_ name: String, action: String, params: Params = [:],
                                   cacheTarget: Bool = false) throws(SwitchboardError) -> Value {
        var options = CallOptions.none
        options.cacheTarget = cacheTarget
        return try callServiceAndWait(name, action: action, params: params, options: options)
    }

    /// `callServiceAndWait` with options (see ``CallOptions``).
    public func callServiceAndWait(_ name: String, action: String, params: Params = [:],
                                   options: CallOptions) throws(SwitchboardError) -> Value {
        let (service, params) = try serviceGate(name, action: action, params: params)
        let value = try dispatchSwift(target: service.target, action: action, params: params, cache: options.cacheTarget,
                                      fallback: false, options: options, namingModule: false).get()
        return try service.checkedResult(value)
    }

    /// The gate of a Swift service call: where it goes, and its params as the
    /// interface's contract completes them.
    func serviceGate(_ name: String, action: String,
                     params: Params) throws(SwitchboardError) -> (ServiceCall, Params) {
        let service = try serviceCall(name, action: action)
        var params = params
        if let check = service.check, let fixed = try check.contract.check(params, fromURL: false, call: service.label) {
            params = fixed
        }
        return (service, params)
    }

    /// `callService` for another face (C, and Lua through C): `action`
    /// performed as ``performNative(target:action:module:params:cache:options:out:bridge:)``
    /// performs it (or, without `fallback`, as SB_NO_FALLBACK does) on the
    /// bound target, checked against the interface's contract. `params` is
    /// a dict; `action` non-empty UTF-8.
    @_spi(Faces) public func performServiceNative(_ name: String, action: UnsafePointer<CChar>, params: OpaquePointer,
                                                  cache: Bool, fallback: Bool,
                                                  out: UnsafeMutablePointer<OpaquePointer?>,
                                                  bridge: any ForeignBridge.Type) -> Int32 {
        let convention = ForeignConvention(bridge: bridge, out: out)
        let service: ServiceCall
        var fixed: OpaquePointer?
        do throws(SwitchboardError) {
            service = try serviceCall(name, action: String(cString: action))
            if let check = service.check {
                fixed = try bridge.checked(params, against: check, fromURL: false, call: service.label)
            }
        } catch {
            return convention.fail(error)
        }
        defer { if let fixed { bridge.release(fixed) } }
        let status = service.target.withCString { target in
            fallback
                ? performNative(target: target, action: action, module: nil, params: fixed ?? params, cache: cache,
                                out: out, bridge: bridge)
                : performNativeWithoutFallback(target: target, action: action, module: nil, params: fixed ?? params,
                                               cache: cache, out: out, bridge: bridge)
        }
        if status == Deferral.pendingStatus, let type = service.check?.result {
            Deferral.detachedHere?.then(Completion.resultCheck(type) { got in service.wrongResult(type, got: got) })
        }
        guard status == 0, let type = service.check?.result, !bridge.resultFits(out.pointee, type) else { return status }
        return bridge.conformResult(to: type, out: out) { got in service.wrongResult(type, got: got) }
    }

    /// Every action of `entry` on `target`, with compatible contracts; throws naming what is not.
    private func checkConformance(of target: String, to entry: ServiceInterfaceEntry) throws(SwitchboardError) {
        var problems: [String] = []
        // Discovery may run user code that binds services in turn: one more
        // call in progress, under the depth limit.
        let found: Bool = try CallDepth.entering("binding service \(Value.string(entry.name))") { epochs.withPinned {
            withNameRef(target) { key in
                var resolved = targets.find(key)
                if resolved == nil || Borrowed(resolved!).read({ mightDiscoverClass(for: $0) }) {
                    // Searching runs unpinned: read the entry again after.
                    _ = discoverEntry(key)
                    resolved = targets.find(key)
                }
                guard let resolved else { return false }
                Borrowed(resolved).read { e in
                    for (action, wanted) in entry.actions {
                        let have = withNameRef(action) { ref in
                            e.registered.find(ref) ?? e.classActions.flatMap { Borrowed($0).read { $0.find(ref) } }
                        }
                        guard let have else {
                            problems.append("\(action) is missing")
                            continue
                        }
                        guard let wanted else { continue }
                        let given = Borrowed(have).read { $0.contract?.contract } ?? Contract()
                        if let why = Self.incompatibility(of: given, with: wanted) {
                            problems.append("\(action): \(why)")
                        }
                    }
                }
                return true
            }
        } }
        guard found else {
            throw .notFound("cannot bind service \(Value.string(entry.name)): no target \(Value.string(target))")
        }
        guard problems.isEmpty else {
            throw .typeMismatch("target \(Value.string(target)) does not conform to service "
                                + "\(Value.string(entry.name)): " + problems.joined(separator: "; "))
        }
    }

    /// Why an action with contract `given` cannot answer calls made to
    /// contract `wanted`, or nil when it can.
    static func incompatibility(of given: Contract, with wanted: Contract) -> String? {
        var wantedParams: [ExactName: Contract.Param] = [:]
        for param in wanted.params { wantedParams[ExactName(param.name)] = param }
        for param in given.params {
            guard let asked = wantedParams[ExactName(param.name)] else {
                if param.required { return "the target requires param \"\(param.name)\", which the interface does not declare" }
                continue
            }
            if param.required && !asked.required {
                return "the target requires param \"\(param.name)\", which the interface leaves optional"
            }
            let fits = param.type == .any || param.type == asked.type || (param.type == .double && asked.type == .int)
            if !fits {
                return "param \"\(param.name)\" is \(param.type.rawValue) on the target, \(asked.type.rawValue) in the interface"
            }
        }
        if wanted.result != .any && given.result != wanted.result {
            return "the interface declares result \(wanted.result.rawValue), the target "
                + (given.result == .any ? "declares none" : "declares \(given.result.rawValue)")
        }
        return nil
    }

    /// The catalogue's view of defined services.
    var interfacesCatalogue: [(name: String, value: Value)] {
        services.interfaces.all.map { entry in
            var contracts: Params = [:]
            for (action, contract) in entry.actions {
                if let contract { contracts[action] = contract.json }
            }
            let value: Value = [
                "name": .string(entry.name), "kind": "interface",
                "actions": .array(entry.actions.map(\.name).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    .map(Value.string)),
                "contracts": .dict(contracts.sortedByKeyBytes()),
                "target": entry.target.map(Value.string) ?? .null,
            ]
            return (entry.name, value)
        }
    }
}

/// The interface syntax of ``Mediator/defineService(_:interface:)``.
enum ServiceInterfaceParser {
    static func parse(_ text: String, service: String) throws(SwitchboardError) -> [(name: String, contract: Contract?)] {
        var actions: [(name: String, contract: Contract?)] = []
        var seen = Set<ExactName>()
        for item in split(text) {
            let line = item.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("--") { continue }
            let name: String
            var contract: Contract?
            if let open = line.firstIndex(of: "(") {
                guard line.last == ")" else {
                    throw .invalidArgument("service \(service): \"\(line)\" has no closing parenthesis")
                }
                name = String(line[..<open]).trimmingWhitespace
                let body = String(line[line.index(after: open)..<line.index(before: line.endIndex)])
                contract = try Contract(parsing: body).validated(for: "\(service).\(name)")
            } else {
                name = line
            }
            if let problem = NameCheck.problem(with: name, kind: "action") {
                throw .invalidArgument("service \(service): \(problem)")
            }
            guard seen.insert(ExactName(name)).inserted else {
                throw .invalidArgument("service \(service): action \"\(name)\" is declared twice")
            }
            actions.append((name, contract))
        }
        guard !actions.isEmpty else { throw .invalidArgument("service \(service): the interface declares no action") }
        return actions
    }

    /// The items of `text`: split at line ends and `;` outside parentheses.
    /// A line end is any newline the contract syntax takes (`isNewline`):
    /// "\r\n" is one Character, which `== "\n"` would not split at.
    private static func split(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for ch in text {
            if ch == "(" { depth += 1 }
            if ch == ")" { depth = max(0, depth - 1) }
            if depth == 0 && (ch.isNewline || ch == ";") {
                items.append(current)
                current = ""
            } else {
                current.append(ch) // inside parentheses a newline separates the contract's items
            }
        }
        items.append(current)
        return items
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let bytes = Array(utf8)
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0D { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
