import ArgumentParser
import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Graph: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw who calls whom: each caller's calls to each target's actions, from a run or a --trace file.",
            discussion: InstallPrefix.expand("""
                Runs the scenario scripts as switchboard run does (each scenario in a process of its \
                own, with the same selection options and limits), recording every call in a trace, or \
                reads a trace that switchboard run --trace wrote (--from-trace), and draws an arrow from \
                each caller to the action that answered: a script for the calls its scenarios made \
                themselves, an action for the calls made while it was answering (a Lua target calling a \
                C plugin, say: the arrows that show how modules depend on each other). Each arrow says \
                how many calls it stands for and how many failed, by code; a call answered by a \
                fallback (a target's notFound, NoTargetAction's response) is dashed and names what it \
                asked for; a target or action that was asked for but is not there is red. With the \
                plugins and Lua targets loaded (--plugin, --targets: always when running, optional \
                with --from-trace), every action they declare is drawn, those never called in grey.

                Writes Graphviz DOT (to standard output, or -o FILE), sorted, so that the same calls \
                give the same text. --format svg or png (or -o FILE.svg, FILE.png) draws it with \
                Graphviz's dot program, which is not part of Switchboard: the Debian package \
                graphviz; dot is ended past --timeout. The run's own report is not shown: the scenarios that did not pass are \
                listed on standard error, and then the graph is still written.

                Exit status: 0 when the graph was written and every scenario passed; 1 when one did \
                not (the graph is written all the same), when dot is missing or failed, or the output \
                could not be written; 3 when the watchdog ended the run; 64 for a usage error or a \
                --from-trace file that is not a trace (the line is named).

                Examples, from PREFIX/share/switchboard/examples:

                  $ switchboard graph --plugin ./module_a.so --targets targets scenarios/*.lua
                  $ switchboard graph --plugin ./module_a.so -o a.svg scenarios/module_a.lua
                  $ switchboard graph --from-trace scenarios/module_a.jsonl -o module_a.svg
                """))

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<ScenarioLimits>
        @OptionGroup var select: SelectionOptions

        @Option(name: .shortAndLong, help: ArgumentHelp(
            "How many scenarios run at once, each in a process of its own (default: the number of cores).",
            valueName: "n"))
        var jobs: Int = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 1024)

        @Option(name: .customLong("from-trace"), help: ArgumentHelp(
            "Draw the calls of this trace (written by switchboard run --trace) instead of running scripts.",
            valueName: "file"))
        var fromTrace: String?

        @Option(name: .shortAndLong, help: ArgumentHelp(
            "Write the graph to this file (default: standard output). Its extension .svg or .png chooses the format.",
            valueName: "file"))
        var output: String?

        @Option(help: ArgumentHelp(
            "dot (Graphviz's text, the default), svg or png (drawn by Graphviz's dot program).",
            valueName: "format"))
        var format: String?

        @Argument(help: ArgumentHelp("Lua scenario scripts, or directories, to run as switchboard run does.",
                                     valueName: "script"))
        var scripts: [String] = []

        /// The format asked for, or the one -o's extension names, or dot.
        var chosenFormat: String {
            if let format { return format }
            for known in ["svg", "png"] where output?.lowercased().hasSuffix(".\(known)") == true { return known }
            return "dot"
        }

        func validate() throws {
            guard DeferredValidation.now else { return }
            guard ["dot", "svg", "png"].contains(chosenFormat) else {
                throw ValidationError("--format must be dot, svg or png")
            }
            var inputs: [(what: String, path: String)] = scripts.map { ("the script \($0)", $0) }
            if let fromTrace {
                guard scripts.isEmpty else { throw ValidationError("give scripts to run, or --from-trace, not both") }
                guard !select.given else {
                    throw ValidationError("--filter, --filter-out, --tag and --exclude-tag choose scenarios to run: not with --from-trace")
                }
                try PathCheck.readableFile(fromTrace, what: fromTrace)
                inputs.append(("the trace \(fromTrace)", fromTrace))
            } else {
                guard !scripts.isEmpty else { throw ValidationError("give scenario scripts to run, or --from-trace FILE") }
                try ScriptFiles.check(scripts)
                _ = try select.selection()
            }
            guard (1...1024).contains(jobs) else { throw ValidationError("--jobs must be from 1 to 1024") }
            if let output { try PathCheck.outputs([("--output", output)], inputs: RunInputs(load: load, files: inputs)) }
        }

        func run() throws {
            let format = chosenFormat
            let program = format == "dot" ? nil : try Graphviz.find(for: format) // before anything runs
            // Where the graph goes when there is no -o: standard output, as it
            // is now (a run moves it, see drawRun).
            let standardOutput = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
            guard standardOutput >= 0 else { throw CommandFailure("cannot duplicate standard output") }
            defer { close(standardOutput) }
            if output == nil && format == "png" && isatty(standardOutput) == 1 {
                throw CommandFailure("--format png writes an image: give -o FILE.png rather than a terminal")
            }
            var passed = true
            let trace: GraphTrace
            let catalogue: [Coverage.Action]?
            if let fromTrace {
                trace = try GraphTrace(path: fromTrace)
                catalogue = load.plugins.isEmpty && load.targetDirectories.isEmpty ? nil : try listed()
            } else {
                let folder = try TemporaryFolder()
                passed = try drawRun(traceTo: folder.path + "/trace.jsonl", reportTo: folder.path + "/report.tap")
                trace = try GraphTrace(path: folder.path + "/trace.jsonl")
                catalogue = try listed()
            }
            let dot = DOTWriter.dot(CallGraph(trace: trace, catalogue: catalogue))
            try write(dot, format: format, program: program, standardOutput: standardOutput)
            if !passed { throw ExitCode.failure }
        }

        /// The actions the plugins and Lua targets declare, as --coverage lists them.
        private func listed() throws -> [Coverage.Action] {
            try Coverage().actions(load: load, limits: limits)
        }

        /// Runs the scripts with `switchboard run`'s own code, its trace to
        /// `traceTo` and its TAP to `reportTo`; whether every scenario
        /// passed (those that did not are named on standard error).
        private func drawRun(traceTo: String, reportTo: String) throws -> Bool {
            var run = try Run.parse(["--"] + scripts)
            run.load = load
            run.limits = limits
            run.select = select
            run.jobs = jobs
            run.trace = traceTo
            // The run writes its TAP to standard output: here, to a file.
            let report = open(reportTo, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard report >= 0, dup2(report, STDOUT_FILENO) == STDOUT_FILENO else {
                throw CommandFailure("cannot write \(reportTo): \(String(cString: strerror(errno)))")
            }
            close(report)
            do {
                try run.run()
                return true
            } catch let status as ExitCode where status == .failure {
                let failed = Self.notPassed(reportTo)
                complain("the run did not pass: " + (failed.isEmpty ? "no scenario ran (said above)" : "\(failed.count) did not"))
                for line in failed.prefix(50) { complain("  " + line) }
                if failed.count > 50 { complain("  ... and \(failed.count - 50) more (switchboard run says which)") }
                return false
            }
        }

        /// The "not ok" lines of a TAP report, but a todo's expected failures.
        private static func notPassed(_ path: String) -> [String] {
            var failed: [String] = []
            try? TraceLines.read(path) { line, _ in
                guard line.starts(with: Array("not ok ".utf8)) else { return }
                let text = String(decoding: line, as: UTF8.self)
                if !text.contains(" # TODO") { failed.append(text) }
            }
            return failed
        }

        private func write(_ dot: String, format: String, program: String?, standardOutput: Int32) throws {
            switch (output, program) {
            case (let path?, nil):
                try AtomicFile.write(dot, to: path)
            case (nil, nil):
                LineWriter(descriptor: standardOutput).write(dot)
            case (let path?, let program?):
                let file = try AtomicFile(path: path)
                try Graphviz.render(dot, format: format, program: program, output: file.descriptor, timeout: limits.timeout)
                try file.publish()
            case (nil, let program?):
                try Graphviz.render(dot, format: format, program: program, output: standardOutput, timeout: limits.timeout)
            }
        }
    }
}
