#if Tools
import ArgumentParser
#else
#error("switchboard-cli needs the package trait Tools: .package(url: ..., traits: [\"Tools\"])")
#endif
import CSwitchboard
import Switchboard

#if canImport(Glibc)
import Glibc
#endif

/// `switchboard`: run scenario scripts, call routes, list routes.
@main
struct SwitchboardCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Drive Switchboard targets (C plugins, Lua targets) from the command line.",
        discussion: InstallPrefix.expand("""
            Switchboard is a Target-Action mediator: a caller names a target, an action and \
            params (or a URL), and the mediator finds the target and runs the action, so the \
            parts of a program never import each other. This command loads C plugins \
            (--plugin: shared objects exporting Target_<Name> tables) and directories of Lua \
            targets (--targets) into a fresh mediator, then runs Lua scenario scripts against \
            them and reports in TAP (run), performs one call and prints its result as JSON \
            (call), re-issues the calls of a recorded --trace file and reports every result \
            that differs (replay), lists the targets, actions, schemes and route patterns they \
            provide (routes), writes typed Swift, C or Lua wrappers for the actions that have \
            contracts (gen), or draws who calls whom (graph).

            Lua code runs sandboxed and within limits that every subcommand takes as options: \
            --timeout, --max-instructions, --max-memory and --grace; --allow-os lifts the \
            sandbox. A usage error (an unknown option, a path that is missing or of the wrong \
            kind) exits with status 64 before anything runs.

            Each subcommand has its own help (switchboard help run, or the manual page \
            switchboard.run). The scenario API is described in \
            PREFIX/share/doc/switchboard/docs/scenarios.md.

            Examples, from PREFIX/share/switchboard/examples (installed with the command):

              $ switchboard run --plugin ./module_a.so --targets targets scenarios/*.lua
              $ switchboard call --plugin ./module_a.so A cell '{"identifier": "Row"}'
              $ switchboard replay --plugin ./module_a.so scenarios/module_a.jsonl
              $ switchboard routes --plugin ./module_a.so --targets targets
              $ switchboard gen --lang c --plugin ./module_a.so -o generated
            """),
        version: String(cString: sb_version()),
        subcommands: [Run.self, Call.self, Replay.self, Routes.self, Gen.self, Report.self, Graph.self])

    /// A first word that is no subcommand (`switchboard rnu`) is a usage
    /// error that names the closest one, as a mistyped option already is.
    static func main() {
        if let first = CommandLine.arguments.dropFirst().first, let problem = unknownSubcommand(first) {
            LineWriter(descriptor: STDERR_FILENO).line("Error: \(visible(problem))\nUsage: switchboard <subcommand>\n  See 'switchboard --help'.")
            exit(withError: ExitCode.validationFailure)
        }
        // swift-argument-parser checks a command (validate) before it
        // looks for arguments left over, so `run --shardd 1/2 a.lua` said
        // "the script 1/2: No such file" instead of naming the unknown
        // option: the arguments are parsed once without the checks first.
        DeferredValidation.now = false
        do {
            _ = try parseAsRoot(Array(CommandLine.arguments.dropFirst()))
        } catch {
            exit(withError: error)
        }
        DeferredValidation.now = true
        main(nil)
    }

    /// What is wrong with `word` as a subcommand, or nil when it is one (or an option).
    static func unknownSubcommand(_ word: String) -> String? {
        guard !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        let close = NameSuggestions.closest(to: word, among: names, limit: 1)
        if let best = close.first { return "Unknown subcommand '\(word)'. Did you mean '\(best)'?" }
        return "Unknown subcommand '\(word)' (run, call, replay, routes, gen, report, graph or help)"
    }
}

/// Whether validate() checks now: not while the arguments are first parsed
/// for what cannot be parsed (SwitchboardCLI.main).
enum DeferredValidation {
    nonisolated(unsafe) static var now = true
}
