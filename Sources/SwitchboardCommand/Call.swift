import ArgumentParser
import CSwitchboard

extension SwitchboardCLI {
    struct Call: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Perform one call, by URL or by target and action, and print the result as JSON.",
            discussion: """
                With one argument that contains "://" the call is a URL entry (the security policy \
                applies: no native* action is reachable). Otherwise it names a target, an action and, \
                optionally, params as a JSON object. On failure the error goes to standard error and \
                the exit status is 1.

                Examples, from PREFIX/share/switchboard/examples:

                  $ switchboard call --plugin ./module_a.so A cell '{"identifier": "Row"}'
                  $ switchboard call --plugin ./module_a.so 'app://A/cell?identifier=Row'
                  $ switchboard call --targets targets Catalog item '{"sku": "X1"}'
                """)

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
        }

        func run() throws {
            let session = try Session(load: load, limits: limits, setup: session.setup)
            var out: OpaquePointer?
            let status: sb_status
            if let action {
                var args: OpaquePointer?
                if let params {
                    let parsed = sb_from_json(params, &args)
                    guard parsed == SB_OK else { throw CommandFailure("the params are not JSON: \(String(cString: sb_last_error()))") }
                    guard sb_typeof(args) == SB_DICT else {
                        sb_release(args)
                        throw CommandFailure("the params must be a JSON object")
                    }
                }
                status = sb_perform(session.mediator, first, action, args, 0, &out)
                sb_release(args)
            } else {
                status = sb_open_url(session.mediator, first, nil, &out)
            }
            guard status == SB_OK else { throw CommandFailure(failureMessage(status)) }
            defer { sb_release(out) }
            guard let json = takeJSON(sb_to_json(out)) else { throw CommandFailure("the result could not be written as JSON") }
            print(json)
        }
    }
}
