import ArgumentParser
import CSwitchboard
import Switchboard

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Call: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Perform one call, by URL or by target and action, and print the result as JSON.",
            discussion: InstallPrefix.expand("""
                With one argument that contains "://" the call is a URL entry (the security policy \
                applies: no native* action is reachable). Otherwise it names a target, an action and, \
                optionally, params as a JSON object. On failure the error goes to standard error and \
                the exit status is 1; params that are not a JSON object are a usage error (64), found \
                before anything runs.

                Examples, from PREFIX/share/switchboard/examples:

                  $ switchboard call --plugin ./module_a.so A cell '{"identifier": "Row"}'
                  $ switchboard call --plugin ./module_a.so 'app://A/cell?identifier=Row'
                  $ switchboard call --targets targets Catalog item '{"sku": "X1"}'
                """))

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<CallLimits>

        @OptionGroup var session: SessionOptions

        @Argument(help: ArgumentHelp("A URL, or a target name.", valueName: "url-or-target"))
        var first: String

        @Argument(help: ArgumentHelp("The action (with a target).", valueName: "action"))
        var action: String?

        @Argument(help: ArgumentHelp("Params, a JSON object (with a target and action).", valueName: "json"))
        var params: String?

        func validate() throws {
            if action == nil && !first.contains("://") {
                throw ValidationError("give a URL (scheme://target/action?k=v), or a target and an action")
            }
            if action != nil && first.contains("://") {
                throw ValidationError("a URL call takes no other arguments")
            }
            if let params { sb_value_release(try Self.decodeParams(params)) }
        }

        /// The params argument as a dict (a new reference), or a usage error
        /// saying why it is not a JSON object.
        static func decodeParams(_ text: String) throws -> OpaquePointer? {
            var args: OpaquePointer?
            guard sb_json_decode(text, &args) == SB_OK else {
                throw ValidationError("the params are not JSON: \(String(cString: sb_error_message()))")
            }
            guard sb_value_type(args) == SB_DICT else {
                sb_value_release(args)
                throw ValidationError("the params must be a JSON object")
            }
            return args
        }

        /// The mediator suggests the targets it knows; a `Target_<Name>.lua`
        /// file in a --targets directory is known only once a call names it,
        /// so for a target no call found, the files' names are looked at too.
        private func luaTargetHint(_ status: sb_status) -> String {
            guard status == SB_ENOTARGET, action != nil,
                  !String(cString: sb_error_message()).contains("did you mean") else { return "" }
            return NameSuggestions.clause(for: first, among: luaTargetNames(in: load.targetDirectories))
        }

        func run() throws {
            let session = try Session(load: load, limits: limits, setup: session.setup)
            var out: OpaquePointer?
            let status: sb_status
            if let action {
                let args = try params.flatMap { try Self.decodeParams($0) }
                status = sb_action_perform(session.mediator, first, action, args, 0, &out)
                sb_value_release(args)
            } else {
                status = sb_url_open(session.mediator, first, nil, &out)
            }
            guard status == SB_OK else { throw CommandFailure(failureMessage(status) + luaTargetHint(status)) }
            defer { sb_value_release(out) }
            guard let json = takeJSON(sb_json_encode(out)) else { throw CommandFailure("the result could not be written as JSON") }
            print(terminalJSON(json))
        }
    }
}

/// The names of the `Target_<Name>.lua` files in `directories` (at most 10,000).
func luaTargetNames(in directories: [String]) -> [String] {
    var names: [String] = []
    for directory in directories {
        guard let dir = opendir(directory) else { continue }
        defer { closedir(dir) }
        while names.count < 10_000, let entry = readdir(dir) {
            let file = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if file.hasPrefix("Target_"), file.hasSuffix(".lua"), file.count > 11 {
                names.append(String(file.dropFirst(7).dropLast(4)))
            }
        }
    }
    return names
}
