import Switchboard
import SwitchboardRunner

/// `run --coverage`: every action of the plugins and Lua targets loaded, and
/// whether a scenario called it, reached it only as a fallback (a target's
/// `notFound`, `NoTargetAction`'s `response`), or never did. Each scenario's
/// process tells what it called (sbr_result.calls); the catalogue is what a
/// fresh mediator with the same plugins and target directories lists (the
/// targets a script registers itself are its own fixtures, not counted).
struct Coverage {
    enum Status: String {
        case called
        case fallback = "only through a fallback"
        case notCalled = "not called"
    }

    struct Action {
        let target: String
        let origin: String
        let action: String
        let status: Status
    }

    /// target -> action -> true when called directly, false when only as a fallback
    private var reached: [String: [String: Bool]] = [:]

    mutating func add(_ r: ScenarioResult) {
        guard let calls = r.calls else { return }
        for line in calls.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == "called" || fields[0] == "fallback" else { continue }
            let target = String(fields[1]), action = String(fields[2])
            let direct = fields[0] == "called"
            reached[target, default: [:]][action] = (reached[target]?[action] ?? false) || direct
        }
    }

    /// The catalogue's actions with their status, in the catalogue's order.
    func actions(load: LoadOptions, limits: LimitOptions<ScenarioLimits>) throws -> [Action] {
        let session = try Session(load: load, limits: limits, setup: nil)
        try session.loadLuaTargets()
        guard let json = takeJSON(sb_routes_json(session.mediator)) else {
            throw CommandFailure("--coverage: the plugins and targets could not be listed")
        }
        var all: [Action] = []
        for target in try Value(json: json)["targets"]?.array ?? [] {
            let name = target["name"]?.string ?? "?"
            let origin = target["origin"]?.string ?? ""
            for action in (target["actions"]?.array ?? []).compactMap(\.string) {
                let status: Status = switch reached[name]?[action] {
                case true?: .called
                case false?: .fallback
                case nil: .notCalled
                }
                all.append(Action(target: name, origin: origin, action: action, status: status))
            }
        }
        return all
    }

    /// TAP comments: a summary line, then each action not called directly.
    static func text(_ actions: [Action]) -> [String] {
        func count(_ s: Status) -> Int { actions.filter { $0.status == s }.count }
        var lines = ["# coverage: \(count(.called)) of \(actions.count) actions of the plugins and targets loaded "
                     + "were called, \(count(.fallback)) only through a fallback, \(count(.notCalled)) never"]
        for a in actions where a.status != .called {
            lines.append("#   \(a.status.rawValue): \(a.target).\(a.action)")
        }
        return lines
    }

    /// The JSON of --coverage-json: counts, and every action with its status.
    static func json(_ actions: [Action]) -> String {
        func count(_ s: Status) -> Int { actions.filter { $0.status == s }.count }
        let items = actions.map {
            "{\"target\":\(quoted($0.target)),\"origin\":\(quoted($0.origin)),\"action\":\(quoted($0.action)),"
                + "\"status\":\(quoted($0.status.rawValue))}"
        }
        return "{\"actions\":[\(items.joined(separator: ","))],\"called\":\(count(.called)),"
            + "\"fallback_only\":\(count(.fallback)),\"not_called\":\(count(.notCalled))}\n"
    }
}
