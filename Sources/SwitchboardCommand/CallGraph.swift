/// Who called whom in a trace: each caller → what answered, with how many
/// calls, how many failed (by code), and whether a fallback answered; and,
/// beside it, the catalogue of the plugins and Lua targets loaded, for the
/// actions nobody called. What `switchboard graph` draws (DOTWriter).
///
/// The caller of a call the scenario made itself (depth 1) is its script:
/// a script's scenarios are drawn as one caller, since their names would
/// outnumber the targets. The caller of a nested call is the action that
/// was answering when it was made: the record of depth N that comes next
/// after it in its scenario (a call ends before the call that made it). A
/// call whose depth names no such record (an answer heard in sb.poll after
/// the call that made it had ended) is drawn from the script too.
struct CallGraph {
    typealias Name = GraphTrace.Name

    enum Node: Hashable {
        case script(Name)
        case action(target: Name, action: Name)
        /// A URL that resolved to no action, by its scheme and host.
        case url(Name)
    }

    /// One arrow: who called, what answered, and how it was asked.
    struct EdgeKey: Hashable {
        let from: Node
        let to: Node
        let isOpen: Bool
        /// A fallback answered: the name the call asked for ("Target.action",
        /// or the action alone when the target's notFound answered), empty
        /// when a rule or the degrade handler did ("other").
        let asked: Name?
    }

    struct EdgeCount {
        var calls = 0
        var failures: [Name: Int] = [:] // code -> how many
        var failed: Int { failures.values.reduce(0, +) }
    }

    /// A target the catalogue lists: where it comes from, what it declares.
    struct Declared {
        let origin: String
        var actions: Set<Name> = []
    }

    private(set) var edges: [EdgeKey: EdgeCount] = [:]
    private(set) var scripts: Set<Name> = []
    /// nil when no catalogue was listed (a trace drawn without --plugin or
    /// --targets): nothing can be told never called.
    private(set) var catalogue: [Name: Declared]?

    init(trace: GraphTrace, catalogue: [Coverage.Action]?) {
        if let catalogue {
            var declared: [Name: Declared] = [:]
            for a in catalogue {
                declared[Array(a.target.utf8), default: Declared(origin: a.origin)].actions.insert(Array(a.action.utf8))
            }
            self.catalogue = declared
        }
        for scenario in trace.scenarios { add(scenario) }
    }

    /// Finds each record's caller (see the type's comment) and counts it.
    private mutating func add(_ scenario: GraphTrace.Scenario) {
        let script = Node.script(scenario.script)
        scripts.insert(scenario.script)
        // Records waiting for the call that made them: (depth, its edge).
        var waiting: [(depth: Int, edge: Pending)] = []
        for record in scenario.records {
            let edge = Pending(record)
            while let last = waiting.last, last.depth > record.depth {
                waiting.removeLast()
                count(last.edge, from: last.depth == record.depth + 1 ? edge.to : script)
            }
            waiting.append((record.depth, edge))
        }
        for left in waiting { count(left.edge, from: script) }
    }

    private mutating func count(_ edge: Pending, from: Node) {
        let key = EdgeKey(from: from, to: edge.to, isOpen: edge.isOpen, asked: edge.asked)
        edges[key, default: EdgeCount()].calls += 1
        if let code = edge.code { edges[key]!.failures[code, default: 0] += 1 }
    }

    /// A record, as an arrow still missing its caller.
    private struct Pending {
        let to: Node
        let isOpen: Bool
        let asked: Name?
        let code: Name?

        init(_ r: GraphTrace.Record) {
            isOpen = r.isOpen
            code = r.code
            guard let target = r.target, let action = r.action else {
                to = .url(Self.schemeAndHost(r.url ?? []))
                asked = nil
                return
            }
            switch r.fallback {
            case nil:
                to = .action(target: target, action: action)
                asked = nil
            case .notFound?:
                to = .action(target: target, action: Array("notFound".utf8))
                asked = action
            case .noTargetAction?:
                to = .action(target: Array("NoTargetAction".utf8), action: Array("response".utf8))
                asked = target + [0x2E] + action
            case .other?:
                to = .action(target: target, action: action)
                asked = []
            }
        }

        /// "app://user" of "app://user/7?tab=likes": the part of a URL that
        /// names where it goes, without what varies from call to call.
        static func schemeAndHost(_ url: Name) -> Name {
            guard let colon = url.firstIndex(of: 0x3A), url[colon...].starts(with: Array("://".utf8)) else {
                return Array(url.prefix(200))
            }
            let host = url[(colon + 3)...].prefix { $0 != 0x2F && $0 != 0x3F && $0 != 0x23 }
            return Array(url[..<colon].map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }) + Array("://".utf8) + host
        }
    }

    // MARK: What each node is, for drawing

    enum Status {
        /// Called (directly, or as the action a URL reached).
        case called
        /// Reached only as the answer of a fallback (a notFound, NoTargetAction's response).
        case fallbackOnly
        /// Declared by the catalogue, never reached.
        case notCalled
        /// Asked for, but not there: every call to it failed with ENOTARGET or ENOACTION.
        case missing
    }

    /// Every action node, by target: those calls reached and those the catalogue declares.
    var actionsByTarget: [Name: Set<Name>] {
        var all: [Name: Set<Name>] = [:]
        for (target, declared) in catalogue ?? [:] { all[target, default: []].formUnion(declared.actions) }
        for key in edges.keys {
            for node in [key.from, key.to] {
                if case .action(let target, let action) = node { all[target, default: []].insert(action) }
            }
        }
        return all
    }

    var urlNodes: Set<Name> {
        Set(edges.keys.flatMap { [$0.from, $0.to] }.compactMap { if case .url(let u) = $0 { u } else { nil } })
    }

    /// The status of every action node, in one pass over the arrows.
    func statuses() -> [Node: Status] {
        var incoming: [Node: [(key: EdgeKey, count: EdgeCount)]] = [:]
        for (key, count) in edges { incoming[key.to, default: []].append((key, count)) }
        let absent: Set<Name> = [Array("ENOTARGET".utf8), Array("ENOACTION".utf8)]
        var all: [Node: Status] = [:]
        for (target, actions) in actionsByTarget {
            let declared = catalogue?[target]?.actions ?? []
            for action in actions {
                let node = Node.action(target: target, action: action)
                let arrows = incoming[node] ?? []
                if arrows.isEmpty {
                    all[node] = declared.contains(action) ? .notCalled : .called // (a caller only: it was answering)
                } else if !declared.contains(action) && arrows.allSatisfy({
                    $0.count.failed == $0.count.calls && $0.count.failures.keys.allSatisfy(absent.contains)
                }) {
                    all[node] = .missing
                } else if arrows.allSatisfy({ !($0.key.asked ?? []).isEmpty }) {
                    all[node] = .fallbackOnly
                } else {
                    all[node] = .called
                }
            }
        }
        return all
    }
}
