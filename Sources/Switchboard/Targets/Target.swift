/// A Swift class that provides actions, found by its type name at run time.
///
/// Name the class `Target_<Name>`, put it in a module the mediator searches
/// (``Mediator/modules``), and `perform(target: "<Name>", ...)` finds it — no
/// registration, no central list (CTMediator's `Target_A` classes and
/// `NSClassFromString`). An action named `"notFound"` answers for actions the
/// table does not have.
///
///     final class Target_A: Target {
///         static let actions: Actions<Target_A> = [
///             "showAlert": { a, params in try a.showAlert(params) },
///             "notFound": { _, _ in "A has no such action" },
///         ]
///         func showAlert(_ params: Params) throws -> Value { ... }
///     }
///
/// The mediator makes an instance per call, or keeps one when the caller asks
/// to cache the target; a cached instance is shared by every thread that
/// calls it, hence `Sendable`.
public protocol Target: AnyObject, Sendable {
    /// Makes the instance a call runs on (or that the mediator caches): it
    /// takes no arguments, since the mediator knows only the class's name.
    init()
    /// The actions this target answers, by name.
    static var actions: Actions<Self> { get }
    /// The actions that answer later, by name (none unless given): each
    /// runs on a task of its own, as a closure registered with
    /// `register(target:action:) { params async throws -> Value }` does. A
    /// name in both tables is this table's.
    ///
    ///     static let asyncActions: AsyncActions<Target_Net> = [
    ///         "fetch": { net, params in try await net.fetch(params) },
    ///     ]
    static var asyncActions: AsyncActions<Self> { get }
    /// The actions that read their call's context (``CallContext``: the
    /// mediator that called, the caller's tags, the deadline), by name (none
    /// unless given). Call on through `context.mediator`, never
    /// `Mediator.shared`. A name in this table and in ``actions`` is this
    /// table's.
    ///
    ///     static let contextActions: ContextActions<Target_Cart> = [
    ///         "checkout": { cart, params, call in
    ///             try cart.checkout(user: call.mediator.callAndWait(target: "Session", action: "user"))
    ///         },
    ///     ]
    static var contextActions: ContextActions<Self> { get }
    /// Contracts for some of those actions, by name (none unless given). A
    /// contract under a name that is no action of the class (a misspelt
    /// one) makes every action of the class fail with `.invalidArgument`
    /// naming it, as a contract that does not parse does its own action's.
    static var contracts: Contracts { get }
}

extension Target {
    /// No actions that answer later.
    public static var asyncActions: AsyncActions<Self> { [:] }
    /// No actions that read their call's context.
    public static var contextActions: ContextActions<Self> { [:] }
    /// No contracts: every action takes any params.
    public static var contracts: Contracts { [:] }
}

/// A target's contracts: action name → `Contract`. Names are bytes, as
/// action names are: a `[String: Contract]` would hold only one of two
/// spellings of "é".
public struct Contracts: Sendable, ExpressibleByDictionaryLiteral {
    let byName: [ExactName: Contract]

    /// A repeated name keeps its last contract.
    public init(dictionaryLiteral elements: (String, Contract)...) {
        byName = Dictionary(elements.map { (ExactName($0.0), $0.1) }, uniquingKeysWith: { _, last in last })
    }

    /// The contract of `action`, if one was given.
    public subscript(action: String) -> Contract? { byName[ExactName(action)] }
}

/// A target's table of actions: name → `(instance, params) throws -> Value`.
public struct Actions<T: Target>: Sendable, ExpressibleByDictionaryLiteral {
    /// An action: the target instance and the call's params in, its result
    /// out; what it throws fails the call (see ``SwitchboardError``).
    public typealias Body = @Sendable (T, Params) throws -> Value

    let bodies: [(name: String, body: Body)]

    /// A repeated name keeps its last body.
    public init(dictionaryLiteral elements: (String, Body)...) {
        bodies = lastOfEachName(elements)
    }

    /// The names, in declaration order.
    public var names: [String] { bodies.map(\.name) }
}

/// A target's table of actions that answer later:
/// name → `(instance, params) async throws -> Value`.
public struct AsyncActions<T: Target>: Sendable, ExpressibleByDictionaryLiteral {
    /// An action that answers later: it runs on a task of its own, and the
    /// call answers when it returns.
    public typealias Body = @Sendable (T, Params) async throws -> Value

    let bodies: [(name: String, body: Body)]

    /// A repeated name keeps its last body.
    public init(dictionaryLiteral elements: (String, Body)...) {
        bodies = lastOfEachName(elements)
    }

    /// The names, in declaration order.
    public var names: [String] { bodies.map(\.name) }
}

/// A target's table of actions that read their call's context:
/// name → `(instance, params, context) throws -> Value`.
public struct ContextActions<T: Target>: Sendable, ExpressibleByDictionaryLiteral {
    /// An action that also gets its call's context: the calling mediator,
    /// the caller's tags, the deadline and cancellation.
    public typealias Body = @Sendable (T, Params, CallContext) throws -> Value

    let bodies: [(name: String, body: Body)]

    /// A repeated name keeps its last body.
    public init(dictionaryLiteral elements: (String, Body)...) {
        bodies = lastOfEachName(elements)
    }

    /// The names, in declaration order.
    public var names: [String] { bodies.map(\.name) }
}

/// `elements` in order, a repeated name (as bytes) keeping its last body in
/// its first place.
private func lastOfEachName<Body>(_ elements: [(String, Body)]) -> [(name: String, body: Body)] {
    var seen: [ExactName: Int] = [:]
    var bodies: [(name: String, body: Body)] = []
    for (name, body) in elements {
        if let index = seen[ExactName(name)] {
            bodies[index].body = body
        } else {
            seen[ExactName(name)] = bodies.count
            bodies.append((name, body))
        }
    }
    return bodies
}

/// Action names with a meaning of their own.
public enum ActionName {
    /// Answers for any action a target does not have, with the same params.
    public static let notFound = "notFound"
    /// The action of the `NoTargetAction` fallback target.
    public static let response = "response"
}

/// Target names with a meaning of their own.
public enum TargetName {
    /// The fallback target: its `response` action answers calls nothing else
    /// answers, with params `originParams`, `targetString` (`Target_X`, or
    /// `Module.Target_X`), `selectorString` (`Action_x:`), `target`, `action`,
    /// and `url` for a call that came from a URL.
    public static let noTargetAction = "NoTargetAction"
}

extension TargetClass {
    /// The class for a Swift `Target` type, as `mediator` finds or registers
    /// it (its context actions are told that mediator).
    convenience init<T: Target>(swiftType: T.Type, origin: String, discoveredModule: String? = nil,
                                for mediator: Mediator) {
        let contracts = T.contracts
        let unusable = Self.contractsOfNoAction(T.self)
        let contract = { (name: String) -> Contract? in
            let label = "\(T.self).\(name)"
            if let unusable { return (contracts[name] ?? Contract()).refused(because: unusable) }
            return contracts[name]?.usable(for: label)
        }
        let asynchronous = Set(T.asyncActions.names.map(ExactName.init))
        let withContext = Set(T.contextActions.names.map(ExactName.init))
        // The mediator passes only instances made by `T.init()` below.
        let plain = T.actions.bodies.filter {
            !asynchronous.contains(ExactName($0.name)) && !withContext.contains(ExactName($0.name))
        }.map { name, body in
            ActionEntry(name: name, body: .swift { object, params in
                try body(unsafeDowncast(object!, to: T.self), params)
            }, contract: contract(name))
        }
        let contextual = T.contextActions.bodies.filter { !asynchronous.contains(ExactName($0.name)) }.map { name, body in
            ActionEntry(name: name, body: .swift { [weak mediator] object, params in
                guard let mediator else { throw CallContext.mediatorGone }
                return try body(unsafeDowncast(object!, to: T.self), params, .ofThisThread(mediator))
            }, contract: contract(name))
        }
        let later = T.asyncActions.bodies.map { name, body in
            ActionEntry(name: name, body: .swiftAsync { object, params in
                try await body(unsafeDowncast(object!, to: T.self), params)
            }, contract: contract(name))
        }
        self.init(origin: origin, actions: ActionMap(plain + contextual + later), discoveredModule: discoveredModule) {
            TargetInstance(object: T())
        }
    }

    /// Why `T.contracts` cannot be trusted, or nil: it names actions the
    /// class does not have (a misspelt name would leave the real action
    /// unchecked, silently).
    private static func contractsOfNoAction<T: Target>(_ type: T.Type) -> String? {
        let actions = Set((T.actions.names + T.asyncActions.names + T.contextActions.names).map(ExactName.init))
        let strays = T.contracts.byName.keys.filter { !actions.contains($0) }.map(\.string)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard !strays.isEmpty else { return nil }
        let names = actions.map(\.string)
        return "\(T.self).contracts names " + strays.map { name in
            "\(Value.string(name))" + NameSuggestions.clause(for: name, among: names)
        }.joined(separator: ", ") + ", which \(strays.count == 1 ? "is" : "are") not an action of \(T.self)"
    }
}
