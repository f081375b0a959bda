import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    /// `switchboard report merge`: the JUnit reports of `run --shard`'s
    /// parts joined into one.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Work with the reports of runs (merge the JUnit reports of --shard's parts).",
            subcommands: [Merge.self])
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join the JUnit reports of run --shard K/N into one.",
            discussion: """
                Each report must come from `switchboard run --shard K/N --junit FILE` over the same \
                selection (the same scripts and selection options; each report names its part, the \
                number of scenarios selected and a digest of who they are), and each part 1..N must \
                be given exactly once: a part missing, given twice, from another selection, a report \
                whose run did not finish, or a file that is not such a report is an error (exit 1) \
                and nothing is written. Test cases keep their script's suite; --coverage's suites are \
                left out (merging coverage is not supported).

                  $ switchboard report merge -o junit.xml shard-1.xml shard-2.xml shard-3.xml
                """)

        @Option(name: .shortAndLong, help: ArgumentHelp("The merged JUnit report to write.", valueName: "file"))
        var output: String

        @Argument(help: ArgumentHelp("The shards' JUnit reports.", valueName: "report"))
        var reports: [String]

        func validate() throws {
            guard DeferredValidation.now else { return }
            guard !reports.isEmpty else { throw ValidationError("give the shards' JUnit reports") }
            for path in reports { try PathCheck.readableFile(path, what: "the report \(path)") }
            try PathCheck.outputs([("--output", output)], inputs: RunInputs(files: reports.map { ("the report \($0)", $0) }))
        }

        func run() throws {
            var parts: [ShardReport] = []
            for path in reports { parts.append(try ShardReport(path: path)) }
            try ShardReport.checkComplete(parts)
            let merged = try JUnitReport(path: output)
            for part in parts {
                for c in part.cases { try merged.add(script: c.script, kind: c.kind, seconds: c.seconds, xml: c.xml) }
            }
            try merged.save(timestamp: wallclock(), finished: true)
            try merged.publish()
            let counted = parts.reduce(0) { $0 + $1.cases.count }
            let failing = parts.reduce(0) { $0 + $1.cases.filter { $0.kind == .failure || $0.kind == .error }.count }
            LineWriter(descriptor: STDOUT_FILENO).line("merged \(parts.count) shards: \(counted) scenarios, \(failing) failed or in error")
        }
    }
}
