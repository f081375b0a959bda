// `swift package switchboard-wrappers`: typed Swift wrappers for the Target_
// classes of one or more of the package's modules, read from their sources
// (nothing is built or run but the generator), written into the module that
// calls them.
//
//   swift package --allow-writing-to-package-directory switchboard-wrappers \
//       --from Feature --to App [--public] [--target NAME]... [--output DIR]
//
// --from   a module whose Target_ classes are read (repeatable)
// --to     the module whose folder gets the files, under Generated/Switchboard
// --output a folder of the package instead (relative to the package)
// --public public methods, for wrappers in a module of their own that
//          callers import
// --target only this target (by its name without Target_; repeatable)
import Foundation
import PackagePlugin

@main
struct SwitchboardWrappersPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let from = extractor.extractOption(named: "from")
        let to = extractor.extractOption(named: "to")
        let output = extractor.extractOption(named: "output")
        let only = extractor.extractOption(named: "target")
        let isPublic = extractor.extractFlag(named: "public") > 0
        guard extractor.remainingArguments.isEmpty else {
            throw Failure("unknown arguments: \(extractor.remainingArguments.joined(separator: " "))\n\(Failure.usage)")
        }
        guard !from.isEmpty, (to.count == 1) != (output.count == 1), to.count + output.count == 1 else {
            throw Failure(Failure.usage)
        }
        var sources: [String] = []
        for name in from {
            guard let module = try context.package.targets(named: [name]).first?.sourceModule else {
                throw Failure("--from \(name): not a module of this package with sources")
            }
            sources += module.sourceFiles(withSuffix: "swift").map(\.url.path)
        }
        let directory: URL
        if let to = to.first {
            guard let module = try context.package.targets(named: [to]).first?.sourceModule else {
                throw Failure("--to \(to): not a module of this package with sources")
            }
            directory = module.directoryURL.appending(path: "Generated/Switchboard")
        } else {
            directory = context.package.directoryURL.appending(path: output[0])
        }
        var toolArguments = ["--output", directory.path]
        if isPublic { toolArguments.append("--public") }
        for name in only { toolArguments += ["--target", name] }
        toolArguments += sources

        let process = Process()
        process.executableURL = try context.tool(named: "SwitchboardWrapperTool").url
        process.arguments = toolArguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("the wrapper generator failed (exit \(process.terminationStatus)); its message is above")
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    static let usage = """
        usage: swift package --allow-writing-to-package-directory switchboard-wrappers \
        --from MODULE... (--to MODULE | --output DIR) [--public] [--target NAME]...
        """
    let description: String
    init(_ description: String) { self.description = description }
}
