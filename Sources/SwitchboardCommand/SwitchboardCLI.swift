import ArgumentParser
import CSwitchboard

/// `switchboard`: run scenario scripts, call routes, list routes.
@main
struct SwitchboardCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Drive Switchboard targets (C plugins, Lua targets) from the command line.",
        discussion: """
            Examples, from the examples that scripts/install.sh puts in PREFIX/share/switchboard/examples:

              $ switchboard run --plugin ./module_a.so --targets targets scenarios/*.lua
              $ switchboard call --plugin ./module_a.so A cell '{"identifier": "Row"}'
              $ switchboard routes --plugin ./module_a.so --targets targets
              $ switchboard gen --lang c --plugin ./module_a.so -o generated
            """,
        version: String(cString: sb_version()),
        subcommands: [Run.self, Call.self, Routes.self, Gen.self])
}
