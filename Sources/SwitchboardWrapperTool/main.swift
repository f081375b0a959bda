// The tool of the `switchboard-wrappers` command plugin: typed Swift wrappers
// for the Target_ classes of Swift source files, read without building them.
// It needs nothing but the core (no swift-argument-parser), so the plugin
// works for an app that depends on Switchboard with `traits: []`.
//
//   SwitchboardWrapperTool [--public] [--target NAME]... --output DIR SOURCE...
//
// SOURCE: .swift files or directories of them. Prints each file it writes.
import SwitchboardWrappers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let usage = "usage: SwitchboardWrapperTool [--public] [--target NAME]... --output DIR SOURCE..."

func fail(_ message: String, status: Int32 = 1) -> Never {
    // write(2), not fputs(stderr): `stderr` is a mutable global, refused under strict concurrency.
    let text = "error: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

var access = SwiftWrappers.Access.internal
var only: [String] = []
var output: String?
var sources: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--public": access = .public
    case "--target", "--output":
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value\n\(usage)", status: 64) }
        if argument == "--target" { only.append(value) } else { output = value }
    case "-h", "--help": print(usage); exit(0)
    case _ where argument.hasPrefix("-"): fail("unknown option \(argument)\n\(usage)", status: 64)
    default: sources.append(argument)
    }
}
guard let output, !sources.isEmpty else { fail(usage, status: 64) }

do {
    let catalogue = try SwiftTargetSources.catalogue(of: try SourceFiles.swiftFiles(at: sources))
    let targets = try WrapperTarget.all(in: catalogue, only: only)
    guard !targets.isEmpty else {
        fail("no Target_ class in \(sources.joined(separator: ", ")) has an action with a contract: there is nothing to generate")
    }
    let files = try GeneratedFile.distinct(targets.map { SwiftWrappers.file(for: $0, access: access) }, of: targets)
    try SourceFiles.makeDirectories(output)
    for file in files {
        let path = output + "/" + file.name
        try SourceFiles.write(file.text, to: path)
        print(path)
    }
} catch {
    fail(error.description)
}
