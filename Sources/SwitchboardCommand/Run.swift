import ArgumentParser
import Switchboard
import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run Lua scenario scripts and report in TAP (and JUnit XML).",
            discussion: InstallPrefix.expand("""
                A script's top level runs once, in a fresh Lua state bound to a fresh mediator with the \
                plugins loaded and the Lua targets on sb.path; each scenario then runs in a process of \
                its own, forked from that state: what one scenario registers, caches or breaks is gone \
                before the next, and a scenario that fails, errors, meets a limit, crashes or is stuck \
                in C past --timeout and --grace does not stop the others. (While another thread \
                runs, a plugin's or one of the library's that did not exit when asked, scenarios \
                run in the runner's own process instead, each after the top level runs again; \
                standard error names the threads.)

                Scripts see `sb` (the switchboard module) and the scenario API: scenario(name, fn), \
                step(name, fn), expect(...).to_equal(v) / to_be_nil() / to_fail_with(code) and more \
                (see docs/scenarios.md). print and io.write go to the report; what plugins write to \
                standard output goes to standard error, so it never mixes into the TAP stream. A \
                scenario writes 64 KiB at most (print, io.write, io.stdout:write and io.stderr:write \
                together); control characters are shown escaped.

                Exit status: 0 when every scenario passed; 1 when one did not, or none matched; \
                3 when code stuck in C in the runner's own process (a top level) ended the run; 64 for a \
                usage error. \
                A signal (^C, kill, a closed report pipe) stops the run: the reports say what \
                finished and mark the rest interrupted, then the signal ends the command. Report \
                files are renamed into place when the run ends; none may be a script, a plugin or \
                a file under --targets.

                Examples, from PREFIX/share/switchboard/examples:

                  $ switchboard run --plugin ./module_a.so --targets targets scenarios/*.lua
                  $ switchboard run --plugin ./module_a.so --junit a.xml scenarios/module_a.lua
                  $ switchboard run --plugin ./module_a.so --filter cache scenarios/*_a.lua
                """))

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<ScenarioLimits>

        @OptionGroup var select: SelectionOptions

        @Option(help: ArgumentHelp(
            "Run the K-th of N parts of the selected scenarios (by a hash of script path and name: the N parts hold each once; adding a scenario moves no other). For a CI system's parallel jobs; switchboard report merge joins their JUnit reports.",
            valueName: "K/N"))
        var shard: String?

        @Flag(help: "Fail a scenario that made no expectation, and a todo scenario that passed (without it: a warning).")
        var strict = false

        @Option(help: ArgumentHelp("Also write a JUnit XML report to this file.", valueName: "file"))
        var junit: String?

        @Option(help: ArgumentHelp(
            "Write a JSON line per call the mediator sees (time, scenario, depth, call, target and action or url, params, result or error and code, duration_us), and per step the script takes (op, args, returns: what switchboard replay does again), to this file.",
            valueName: "file"))
        var trace: String?

        @Flag(help: "Report which actions of the plugins and Lua targets loaded no scenario called, or called only through a fallback (TAP comments at the end, and in the JUnit report).")
        var coverage = false

        @Option(help: ArgumentHelp("With --coverage, also write it as JSON to this file.", valueName: "file"))
        var coverageJson: String?

        @Option(help: ArgumentHelp("The TAP version to write: 14, or 13 for older consumers.", valueName: "version"))
        var tapVersion: Int = 14

        @Option(name: .shortAndLong, help: ArgumentHelp(
            "How many scenarios run at once, each in a process of its own (default: the number of cores). Reports keep the order of the scenarios.",
            valueName: "n"))
        var jobs: Int = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 1024)

        @Flag(name: .shortAndLong, help: "Show the output of passing scenarios too, and what each script's top level printed, as TAP comments.")
        var verbose = false

        @Argument(help: ArgumentHelp("Lua scenario scripts, or directories: every *.lua file inside (but Target_*.lua), in the order of their names.",
                                     valueName: "script"))
        var scripts: [String]

        func validate() throws {
            guard DeferredValidation.now else { return }
            guard !scripts.isEmpty else { throw ValidationError("give at least one scenario script") }
            try ScriptFiles.check(scripts)
            guard tapVersion == 13 || tapVersion == 14 else { throw ValidationError("--tap-version must be 13 or 14") }
            guard (1...1024).contains(jobs) else { throw ValidationError("--jobs must be from 1 to 1024") }
            if coverageJson != nil && !coverage { throw ValidationError("--coverage-json needs --coverage") }
            let outputs = [("--junit", junit), ("--trace", trace), ("--coverage-json", coverageJson)]
            try PathCheck.outputs(outputs.compactMap { option, path in path.map { (option, $0) } },
                                  inputs: RunInputs(load: load, files: scripts.map { ("the script \($0)", $0) }))
            _ = try selection()
            _ = try shard.map(Shard.init(parsing:))
        }

        private func selection() throws -> Selection {
            try select.selection()
        }

        func run() throws {
            // A signal stops the run rather than ending it: what finished is
            // reported, the rest marked interrupted (Interruption.swift).
            sbr_signals_watch()
            let traceFile = try trace.map { try TraceFile(path: $0) }
            // TAP goes to a copy of standard output; standard output itself
            // becomes standard error, for whatever plugins print.
            let interactive = isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
            let tapDescriptor = sbr_take_stdout()
            guard tapDescriptor >= 0 else { throw CommandFailure("cannot duplicate standard output") }
            sbr_detach_stdin()
            let settings = RunnerSettings(load: load, limits: limits, trace: traceFile, reportDescriptor: tapDescriptor,
                                          coverage: coverage)
            var reached = Coverage()
            let tap = TAPReport(out: LineWriter(descriptor: tapDescriptor), version: tapVersion, verbose: verbose)
            let progress = Progress(enabled: interactive)
            let selection = try selection()
            let part = try shard.map(Shard.init(parsing:))

            // The JUnit report is made at once, saying the run has not
            // finished: a path that cannot be written fails before any script
            // runs, and a run that ends early (a script stuck at its top
            // level, a kill) leaves no stale report, nor one that reads as clean.
            let junitReport = try junit.map { try JUnitReport(path: $0) }
            let timestamp = wallclock()
            try junitReport?.save(timestamp: timestamp)
            let stop = Interruption(tap: tap, junit: junitReport, trace: traceFile, timestamp: timestamp, progress: progress)

            // List every script first: the plan comes before the results.
            progress.show("listing scenarios")
            let scripts = try ScriptFiles.expand(self.scripts, skipping: load.targetDirectories)
            var selected: [Work] = []
            var given: Set<[UInt8]> = []
            for (i, script) in scripts.enumerated() {
                guard given.insert(Array(script.utf8)).inserted else {
                    complain("\(script) is given more than once: its scenarios run once")
                    continue
                }
                let listing = ScriptListing(script: script, settings: settings)
                if Interruption.signal != nil { // its listing was stopped: neither it nor those after it are listed
                    try stop.whileListing(planned: selected.map { ($0.script, $0.name) }, unlisted: Array(scripts[i...]))
                }
                if let problem = listing.problem {
                    selected.append(Work(script: script, index: -1, name: problem.name, problem: problem))
                }
                let path = selection.judge(path: script)
                for (index, scenario) in listing.scenarios.enumerated() where selection.selects(scenario, path: path) {
                    selected.append(Work(script: script, index: index, name: scenario.name, skip: scenario.skip,
                                         todo: scenario.todo))
                }
            }
            var digest = SelectionDigest()
            for item in selected { digest.add(script: item.script, name: item.name) }
            let planned = part.map { part in selected.filter { part.holds(script: $0.script, name: $0.name) } } ?? selected
            junitReport?.shard = part.map { JUnitReport.ShardMark(shard: $0, selected: digest.count, digest: digest.hex) }
            if planned.isEmpty {
                progress.clear()
                try junitReport?.save(timestamp: timestamp, finished: true)
                try junitReport?.publish()
                try traceFile?.finish()
                if let part, !selected.isEmpty { // a part may hold none: that is no failure
                    tap.skipEverything("shard \(part.index)/\(part.count) holds none of the \(selected.count) scenarios selected")
                    return
                }
                tap.skipEverything("no scenarios matched")
                complain(selection.narrows ? "no scenario matches the selection (--filter, --filter-out, --tag, --exclude-tag)"
                                           : "the scripts define no scenarios")
                throw ExitCode.failure
            }

            // The report so far, whole. Written before anything runs in this
            // process (a top level, closing a state, a scenario that cannot
            // have a process of its own): a watchdog that ends the run there
            // leaves it. A scenario in a process of its own cannot end the
            // run, so it does not save the report (each save costs what the
            // last suite weighs).
            func saveJUnit() throws {
                try junitReport?.save(timestamp: timestamp)
            }
            progress.clear() // "listing scenarios" must not run into the TAP header
            tap.begin(plannedTests: planned.count)
            var tally = Tally()
            let started = monotonicSeconds()
            func report(_ given: ScenarioResult) throws {
                progress.clear()
                let result = judged(given)
                tally.reported += 1
                tap.report(tally.reported, result)
                if result.passed && result.expectations == 0 && result.todo == nil {
                    tap.comment("# warning: it made no expectation (--strict fails such a scenario)")
                }
                if result.unexpectedPass { tap.comment("# todo: it passed: remove its todo (--strict fails it)") }
                try junitReport?.add(result)
                if coverage { reached.add(result) }
                tally.add(result)
                if tally.reported < planned.count {
                    let item = planned[tally.reported]
                    progress.show("[\(tally.reported + 1)/\(planned.count)] \(item.script): \(item.name)",
                                  passed: tally.passed, failed: tally.failed)
                }
            }
            // The last scenario of each script that runs: its after_all runs after it.
            var lastToRun: [[UInt8]: Int] = [:]
            for (i, item) in planned.enumerated() where item.runs { lastToRun[Array(item.script.utf8)] = i }
            var prepared: PreparedScript? // one script at a time: memory stays that of one
            var at = 0
            while at < planned.count && Interruption.signal == nil {
                let item = planned[at]
                if !item.runs {
                    try report(item.problem ?? ScenarioResult(script: item.script, name: item.name, outcome: .skipped,
                                                              message: item.skip, output: nil, seconds: 0, todo: item.todo))
                    at += 1
                    continue
                }
                // The scenarios of this script that come next, run as one batch.
                var end = at + 1
                while end < planned.count && planned[end].runs && samePath(planned[end].script, item.script) { end += 1 }
                progress.show("[\(at + 1)/\(planned.count)] \(item.script): \(item.name)", passed: tally.passed, failed: tally.failed)
                if !samePath(prepared?.script ?? "", item.script) {
                    try saveJUnit()
                    prepared = nil
                    prepared = PreparedScript(script: item.script, settings: settings)
                    if Interruption.signal != nil { break } // its top level was stopped: nothing of it runs
                    if verbose, let output = prepared?.topOutput { tap.topLevelOutput(item.script, output) }
                }
                let finishing = lastToRun[Array(item.script.utf8)] == end - 1
                try prepared!.run(planned[at..<end].map { ($0.index, $0.name, $0.todo) }, jobs: jobs, finishing: finishing,
                                  beforeInProcess: saveJUnit, report: report)
                at = end
            }
            prepared = nil
            if Interruption.signal != nil {
                try stop.whileRunning(notRun: planned[tally.reported...].map { ($0.script, $0.name) },
                                      reported: tally.reported, planned: planned.count)
            }
            try saveJUnit()
            try traceFile?.finish()
            var coverageLines: [String] = []
            var coverageFailed = false
            if coverage { // listing the catalogue runs code in this process: the report is saved first
                do {
                    let actions = try reached.actions(load: load, limits: limits)
                    coverageLines = Coverage.text(actions)
                    junitReport?.coverage = actions
                    if let coverageJson { try AtomicFile.write(Coverage.json(actions), to: coverageJson) }
                } catch {
                    coverageFailed = true
                    let reason = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
                    coverageLines = ["# coverage: not made: \(visible(reason))"]
                    complain("--coverage: \(reason)")
                }
            }
            if Interruption.signal != nil { // while the catalogue was listed: every scenario was reported
                try stop.whileRunning(notRun: [], reported: tally.reported, planned: planned.count)
            }
            try junitReport?.save(timestamp: timestamp, finished: true)
            try junitReport?.publish()
            progress.clear()
            tap.summary(tally, seconds: monotonicSeconds() - started)
            coverageLines.forEach(tap.comment)
            if tally.withoutExpectations > 0 {
                complain("\(tally.withoutExpectations) scenario\(tally.withoutExpectations == 1 ? "" : "s") made no "
                         + "expectation (the TAP stream says which; --strict fails them)")
            }
            if tally.failed > 0 || coverageFailed { throw ExitCode.failure }
        }

        /// A result as --strict judges it: a scenario that passed without
        /// an expectation, and a todo scenario that passed, fail with it.
        private func judged(_ result: ScenarioResult) -> ScenarioResult {
            guard strict else { return result }
            if result.passed && result.todo == nil && result.expectations == 0 {
                return result.failed("it made no expectation (--strict: a scenario must expect something)")
            }
            if result.unexpectedPass {
                let why = result.todo.map { $0.isEmpty ? "" : " (\($0))" } ?? ""
                return result.failed("it passed, but it is marked todo\(why): remove its todo (--strict)")
            }
            return result
        }

        /// A scenario to run, one that is skipped, or a script's problem to report.
        struct Work {
            var script: String
            var index: Int
            var name: String
            var problem: ScenarioResult? = nil
            var skip: String? = nil
            var todo: String? = nil

            /// Whether it runs (else it is reported as it is: a problem, a skip).
            var runs: Bool { problem == nil && skip == nil }
        }
    }
}

/// The counts of a run, for its summary and its exit status.
struct Tally {
    var reported = 0
    var passed = 0, failed = 0, skipped = 0, todo = 0, todoPassed = 0, withoutExpectations = 0

    mutating func add(_ r: ScenarioResult) {
        if r.outcome == .skipped {
            skipped += 1
        } else if r.expectedFailure {
            todo += 1
        } else if r.counts {
            failed += 1
        } else {
            passed += 1
            if r.unexpectedPass { todoPassed += 1 }
            if r.todo == nil && r.expectations == 0 { withoutExpectations += 1 }
        }
    }
}

/// Paths are bytes: two spellings of one name in Unicode are two files, which
/// String's == (canonical equivalence) would take for one.
func samePath(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8)
}

func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Now, UTC, ISO 8601 to the second (JUnit's timestamp).
func wallclock() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
    return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The live line on a terminal: what runs now, and the counts so far.
struct Progress {
    let enabled: Bool
    private let err = LineWriter(descriptor: STDERR_FILENO)

    func show(_ text: String, passed: Int = 0, failed: Int = 0) {
        guard enabled else { return }
        let counts = passed + failed > 0 ? "  (\(passed) passed, \(failed) failed)" : ""
        err.write("\r\u{1B}[K" + String(visible(text + counts).prefix(200)))
    }

    func clear() {
        if enabled { err.write("\r\u{1B}[K") }
    }
}
