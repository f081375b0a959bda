import ArgumentParser
import CSwitchboard
import Switchboard

extension SwitchboardCLI {
    struct Routes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the targets, actions, schemes and route patterns that the plugins and Lua targets provide.",
            discussion: """
                Example, from PREFIX/share/switchboard/examples:

                  $ switchboard routes --plugin ./module_a.so --targets targets --json
                """)

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions

        @OptionGroup var session: SessionOptions

        @Flag(help: "Print JSON (what sb_routes_json returns) instead of a table.")
        var json = false

        func run() throws {
            let session = try Session(load: load, limits: limits, setup: session.setup)
            try session.loadLuaTargets()
            guard let text = takeJSON(sb_routes_json(session.mediator)) else { throw CommandFailure("no routes") }
            if json {
                print(text)
                return
            }
            print(try RoutesListing(json: text).text, terminator: "")
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
            lines.append("  \(name)\(origin): \(actions.isEmpty ? "(no listed actions)" : actions.joined(separator: ", "))")
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
            lines.append("  \(p["pattern"]?.string ?? "?")  ->  \(p["target"]?.string ?? "?")/\(p["action"]?.string ?? "?")")
        }
        text = lines.joined(separator: "\n") + "\n"
    }
}
