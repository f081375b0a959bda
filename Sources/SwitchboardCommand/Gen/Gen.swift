import ArgumentParser
import CSwitchboard
import Switchboard

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Gen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write typed wrappers (Swift, C or Lua) for the actions that have contracts.",
            discussion: InstallPrefix.expand("""
                The wrappers are generated from the catalogue (what `switchboard routes --json` \
                prints): one file per target, with one function per action that has a contract. \
                Swift: an extension on Mediator (Mediator+A.swift: mediator.a_showAlert(message:)). \
                C: a header of static inline functions (sb_a.h: sb_a_show_alert(m, message, ..., flags, &out)). \
                Lua: a module whose functions check their params (sb_a.lua: A.showAlert{message = ...}). \
                An action that answers later (the catalogue's "async": a contract that says async, \
                a Swift async closure) gets wrappers that do not wait: an async Swift method \
                (try await mediator.a_fetch(id:options:)), a C function over sb_action_perform_async \
                (sb_a_fetch(m, id, options, done, userdata)).

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

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<LoadingLimits>
        @OptionGroup var session: SessionOptions

        func run() throws {
            let targets = try WrapperTarget.all(in: try readCatalogue(), only: only)
            guard !targets.isEmpty else {
                throw CommandFailure("no target has an action with a contract: there is nothing to generate")
            }
            let files = targets.map { target in
                switch lang {
                case .swift: SwiftWrappers.file(for: target)
                case .c: CWrappers.file(for: target)
                case .lua: LuaWrappers.file(for: target)
                }
            }
            for (i, file) in files.enumerated() {
                if let j = files[..<i].firstIndex(where: { $0.name == file.name }) {
                    throw CommandFailure("targets \(targets[j].name) and \(targets[i].name) would both be written to \(file.name): generate them into separate directories with --target")
                }
            }
            try makeDirectories(output)
            for file in files {
                let path = output + "/" + file.name
                try AtomicFile.write(file.text, to: path)
                print(path)
            }
        }

        private func readCatalogue() throws -> Value {
            if let catalogue {
                let text = catalogue == "-" ? readStandardInput() : try readFile(catalogue)
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

/// mkdir -p.
private func makeDirectories(_ path: String) throws {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
        prefix += part + "/"
        guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
            throw CommandFailure("\(prefix): \(String(cString: strerror(errno)))")
        }
    }
}

private func readStandardInput() -> String {
    var text = ""
    while let line = readLine(strippingNewline: false) { text += line }
    return text
}

private func readFile(_ path: String) throws -> String {
    guard let file = fopen(path, "rb") else { throw CommandFailure("\(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n == 0 { break }
        bytes += buffer[..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}
