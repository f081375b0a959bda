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
        /// It answers later (the catalogue's "async"): a scenario calls it
        /// in a coroutine or waits for it.
        var answersLater = false
    }

    /// target -> action -> true when called directly, false when only as a
    /// fallback. Names as bytes: two spellings of a name in Unicode are two
    /// names, as they are to the mediator.
    private var reached: [[UInt8]: [[UInt8]: Bool]] = [:]

    mutating func add(_ r: ScenarioResult) {
        guard let calls = r.calls else { return }
        // Bytes, not Characters: "\r\n" would be one Character.
        for line in Array(calls.utf8).split(separator: 0x0A) {
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let how = String(decoding: fields[0], as: UTF8.self)
            guard how == "called" || how == "fallback", let target = Self.decoded(fields[1]),
                  let action = Self.decoded(fields[2]) else { continue }
            reached[target, default: [:]][action] = (reached[target]?[action] ?? false) || how == "called"
        }
    }

    /// A name as the scenario's process wrote it (ScenarioAPI/coverage.lua's
    /// `field`: % and control bytes as %XX).
    private static func decoded(_ field: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var i = field.startIndex
        while i < field.endIndex {
            if field[i] == 0x25 {
                guard i + 2 < field.endIndex,
                      let byte = UInt8(String(decoding: field[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else { return nil }
                out.append(byte)
                i += 3
            } else {
                out.append(field[i])
                i += 1
            }
        }
        return out
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
            let later = (target["async"]?.array ?? []).compactMap(\.string)
            for action in (target["actions"]?.array ?? []).compactMap(\.string) {
                let status: Status = switch reached[Array(name.utf8)]?[Array(action.utf8)] {
                case true?: .called
                case false?: .fallback
                case nil: .notCalled
                }
                all.append(Action(target: name, origin: origin, action: action, status: status,
                                  answersLater: later.contains { $0.utf8.elementsEqual(action.utf8) }))
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
            lines.append("#   \(a.status.rawValue): \(Self.oneLine(a.target)).\(Self.oneLine(a.action))")
        }
        return lines
    }

    /// A name on one line of TAP: escaped as in a JSON string, without the
    /// quotes (a newline in an action's name must not start a TAP line).
    private static func oneLine(_ name: String) -> String {
        String(quoted(name).dropFirst().dropLast())
    }

    /// The JSON of --coverage-json: counts, and every action with its status
    /// (and `"async": true` for one that answers later).
    static func json(_ actions: [Action]) -> String {
        func count(_ s: Status) -> Int { actions.filter { $0.status == s }.count }
        let items = actions.map {
            "{\"target\":\(quoted($0.target)),\"origin\":\(quoted($0.origin)),\"action\":\(quoted($0.action)),"
                + "\"status\":\(quoted($0.status.rawValue))\($0.answersLater ? ",\"async\":true" : "")}"
        }
        return "{\"actions\":[\(items.joined(separator: ","))],\"called\":\(count(.called)),"
            + "\"fallback_only\":\(count(.fallback)),\"not_called\":\(count(.notCalled))}\n"
    }
}
