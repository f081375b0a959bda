import ArgumentParser
import CSwitchboard
import Switchboard

extension SwitchboardCLI {
    struct Routes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the targets, actions, schemes and route patterns that the plugins and Lua targets provide.",
            discussion: InstallPrefix.expand("""
                Prints, for people, each target with where it comes from (a plugin, a Lua file) \
                and its actions, with the signature and the params' notes of each action that \
                has a contract (and [async] for one that answers later), then the URL schemes, the route patterns, and any rules and \
                interceptors. With --json it prints the catalogue that \
                sb_routes_json returns (switchboard gen --catalogue reads it).

                Example, from PREFIX/share/switchboard/examples:

                  $ switchboard routes --plugin ./module_a.so --targets targets --json
                """))

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<LoadingLimits>

        @OptionGroup var session: SessionOptions

        @Flag(help: "Print JSON (what sb_routes_json returns) instead of a table.")
        var json = false

        func run() throws {
            let session = try Session(load: load, limits: limits, setup: session.setup)
            try session.loadLuaTargets()
            guard let text = takeJSON(sb_routes_json(session.mediator)) else { throw CommandFailure("no routes") }
            if json {
                print(terminalJSON(text))
                return
            }
            // Names as plugins and target files give them: control characters escaped, line by line.
            let listing = try RoutesListing(json: text).text.split(separator: "\n", omittingEmptySubsequences: false)
            print(listing.map { visible(String($0)) }.joined(separator: "\n"), terminator: "")
        }
    }
}

/// sb_routes_json as lines for people.
struct RoutesListing {
    let text: String

    init(json: String) throws {
        let routes = try Value(json: json)
        var lines: [String] = []
        let targets = routes["targets"]?.array ?? []
        lines.append("targets (\(targets.count)):")
        for target in targets {
            let name = target["name"]?.string ?? "?"
            let origin = target["origin"]?.string.map { " [\($0)]" } ?? ""
            let actions = (target["actions"]?.array ?? []).compactMap(\.string)
            lines.append("  \(name)\(origin)\(actions.isEmpty ? ": (no listed actions)" : "")")
            let contracts = target["contracts"]?.dict ?? [:]
            let later = (target["async"]?.array ?? []).compactMap(\.string)
            for action in actions {
                lines += Self.action(action, contracts[action], answersLater: later.contains { $0.utf8.elementsEqual(action.utf8) })
            }
        }
        let schemes = routes["schemes"]?.array ?? []
        lines.append("schemes (\(schemes.count)):")
        for scheme in schemes {
            let connector = scheme["connector"]?.string ?? "?"
            lines.append("  \(scheme["scheme"]?.string ?? "?")://  \(connector)")
        }
        let patterns = routes["patterns"]?.array ?? []
        lines.append("patterns (\(patterns.count)):")
        for p in patterns {
            let destination = p["handler"]?.bool == true
                ? "handler" : "\(p["target"]?.string ?? "?")/\(p["action"]?.string ?? "?")"
            lines.append("  \(p["pattern"]?.string ?? "?")  ->  \(destination)")
        }
        let rules = routes["rules"]?.array ?? []
        let interceptors = routes["interceptors"]?.array ?? []
        if !rules.isEmpty || !interceptors.isEmpty {
            lines.append("rules (\(rules.count)), interceptors (\(interceptors.count)):")
            for interceptor in interceptors {
                let priority = interceptor["priority"]?.int.map { "priority \($0)" } ?? ""
                lines.append("  \(interceptor["name"]?.string ?? "?")  \(priority)")
            }
        }
        text = lines.joined(separator: "\n") + "\n"
    }

    /// One action: its signature when it has a contract, then its params' docs.
    ///
    ///     showAlert(message: string, answer: string?) -> bool  [local: not from URLs]
    ///         message  the alert's text
    ///     fetch(id: int) -> dict  [async: answers later]
    private static func action(_ name: String, _ contract: Value?, answersLater: Bool) -> [String] {
        let later = answersLater ? "  [async: answers later]" : ""
        guard let contract else { return ["    \(name)\(later)"] }
        let params = contract["params"]?.array ?? []
        let signature = params.map { param -> String in
            let type = param["type"]?.string ?? "any"
            let mark = param["default"].map { " = \($0)" } ?? (param["required"]?.bool == false ? "?" : "")
            return "\(param["name"]?.string ?? "?"): \(type)\(mark)"
        }.joined(separator: ", ")
        let result = contract["result"]?.string.flatMap { $0 == "any" ? nil : " -> \($0)" } ?? ""
        let local = contract["exposure"]?.string == "local" ? "  [local: not from URLs]" : ""
        var lines = ["    \(name)(\(signature))\(result)\(local)\(later)"]
        let documented = params.compactMap { param -> (String, String)? in
            guard let doc = param["doc"]?.string, let name = param["name"]?.string else { return nil }
            return (name, doc)
        }
        let width = documented.map(\.0.count).max() ?? 0
        for (param, doc) in documented {
            lines.append("        " + param + String(repeating: " ", count: width - param.count) + "  " + doc)
        }
        return lines
    }
}
