import ArgumentParser
import CSwitchboard
import Switchboard
import SwitchboardWrappers

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Gen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write typed wrappers (Swift, C or Lua) for the actions that have contracts.",
            discussion: InstallPrefix.expand("""
                The wrappers are generated from the catalogue (what `switchboard routes --json` \
                prints), or from Swift sources (--swift-sources: their Target_ classes, read without \
                building them): one file per target, with one function per action that has a contract. \
                Swift: an extension on Mediator (Mediator+A.swift: mediator.aShowAlert(message:); \
                --public for wrappers in a module of their own). \
                C: a header of static inline functions (sb_a.h: sb_a_show_alert(m, message, ..., flags, &out)). \
                Lua: a module whose functions check their params (sb_a.lua: A.showAlert{message = ...}). \
                An action that answers later (the catalogue's "async": a contract that says async, \
                a Swift async closure) gets wrappers that do not wait: an async Swift method \
                (try await mediator.aFetch(id:options:)), a C function over sb_action_perform_async \
                (sb_a_fetch(m, id, options, done, userdata)). In a SwiftPM package, the \
                switchboard-wrappers command plugin writes the Swift ones from a module's sources.

                Example, from PREFIX/share/switchboard/examples:

                  $ switchboard gen --lang c --plugin ./module_a.so -o generated
                """))

        @Option(help: ArgumentHelp("swift, c or lua.", valueName: "language"))
        var lang: WrapperLanguage

        @Option(name: .shortAndLong, help: ArgumentHelp("The directory to write to (made if missing).", valueName: "dir"))
        var output: String

        @Option(name: .customLong("target"), help: ArgumentHelp(
            "Only this target (default: every target with a contract). Repeatable.", valueName: "name"))
        var only: [String] = []

        @Option(help: ArgumentHelp(
            "Read the catalogue from this JSON file (sb_routes_json, Mediator.routes(), sb.routes()) instead of loading plugins and targets; - reads standard input.",
            valueName: "file"))
        var catalogue: String?

        @Option(name: .customLong("swift-sources"), help: ArgumentHelp(
            "Read the targets from the Target_ classes of these Swift files or directories instead (repeatable): their tables must be dictionary literals with string-literal keys and contracts.",
            valueName: "path"))
        var swiftSources: [String] = []

        @Flag(name: .customLong("public"), help: "Swift: public methods (for wrappers in a module of their own).")
        var isPublic = false

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<LoadingLimits>
        @OptionGroup var session: SessionOptions

        func run() throws {
            do {
                let targets = try WrapperTarget.all(in: try readCatalogue(), only: only)
                guard !targets.isEmpty else {
                    throw CommandFailure("no target has an action with a contract: there is nothing to generate")
                }
                let files = try GeneratedFile.distinct(targets.map { target in
                    switch lang {
                    case .swift: SwiftWrappers.file(for: target, access: isPublic ? .public : .internal)
                    case .c: CWrappers.file(for: target)
                    case .lua: LuaWrappers.file(for: target)
                    }
                }, of: targets)
                try SourceFiles.makeDirectories(output)
                for file in files {
                    let path = output + "/" + file.name
                    try AtomicFile.write(file.text, to: path)
                    print(path)
                }
            } catch let error as WrapperError {
                throw CommandFailure(error.description)
            }
        }

        func validate() throws {
            if !swiftSources.isEmpty && catalogue != nil {
                throw ValidationError("--swift-sources and --catalogue are two sources of targets: give one")
            }
            if isPublic && lang != .swift { throw ValidationError("--public is for --lang swift") }
        }

        private func readCatalogue() throws -> Value {
            if !swiftSources.isEmpty {
                return try SwiftTargetSources.catalogue(of: try SourceFiles.swiftFiles(at: swiftSources))
            }
            if let catalogue {
                let text = catalogue == "-" ? readStandardInput() : try SourceFiles.read(catalogue)
                do { return try Value(json: text) } catch { throw CommandFailure("\(catalogue): \(error)") }
            }
            let session = try Session(load: load, limits: limits, setup: session.setup)
            try session.loadLuaTargets()
            guard let text = takeJSON(sb_routes_json(session.mediator)) else { throw CommandFailure("no routes") }
            return try Value(json: text)
        }
    }
}

extension WrapperLanguage: ExpressibleByArgument {}

private func readStandardInput() -> String {
    var text = ""
    while let line = readLine(strippingNewline: false) { text += line }
    return text
}
