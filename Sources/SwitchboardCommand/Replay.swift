import ArgumentParser
import CSwitchboard
import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

extension SwitchboardCLI {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Do again what the scenarios of a --trace file did, against this build, and report every answer that differs.",
            discussion: InstallPrefix.expand("""
                Record a run on one build (switchboard run --trace FILE), replay it on the next. A trace \
                records each step a scenario took: every call it made (sb.perform, sb.open, \
                sb.perform_async, sb.perform_service) with its params and options (cache, fallback, \
                bypass, tags, timeout, a cancellation token as cancelled or not) and whether a coroutine \
                made it; what it set up (sb.target, sb.url_pattern, sb.rules, sb.intercept, sb.evict, \
                sb.degrade, sb.scheme, sb.policy...); and each time the build called a function of the \
                script's (a target's action, a callback in params, an interceptor, a URL pattern's \
                function), what it was given, what it answered (through sb.later too) and the calls it \
                made meanwhile.

                For each scenario, in a fresh mediator with the plugins and Lua targets given, in a \
                process of its own (as in switchboard run), the replay takes the steps again in the \
                order they started, after its script's top level, each answered before the next. A \
                function of the script's is played by a stand-in: it compares what the build gives it \
                with what the function was given, makes the calls the function made, and answers what \
                it answered; a recorded call of it that the build no longer makes differs, and so does \
                one more. An answer compares as the trace writes it; a failure compares by its code \
                only (messages may change between builds).

                What a replay cannot reproduce: timing (calls started together are made one after the \
                other), a C value or coroutine in a step's arguments (recorded by kind only: that step \
                is skipped, with its reason), what the script's functions did besides calling and \
                answering (its own variables), calls its observers made (skipped: observers are not \
                replayed), a token cancelled while its call ran, and what the script loaded itself \
                (sb.load_plugin, sb.path: give the replay the same --plugin and --targets). A trace of \
                format 1 (written before traces recorded steps) replays its calls without options, \
                skipping those to targets the script registered; a newer format is refused.

                Reports in TAP, one test per scenario, with the calls that differ (and those skipped) in \
                its YAML block. Exit status: 0 when nothing differs, 1 otherwise, 3 when the watchdog \
                ended it, 64 for a usage error or a file that is not a trace (the line is named).

                Example, from PREFIX/share/switchboard/examples (scenarios/module_a.jsonl holds the \
                steps of scenarios/module_a.lua, recorded with switchboard run --trace):

                  $ switchboard replay --plugin ./module_a.so scenarios/module_a.jsonl
                """))

        @OptionGroup var load: LoadOptions
        @OptionGroup var limits: LimitOptions<ReplayLimits>

        @Option(help: ArgumentHelp("Also write a JUnit XML report to this file.", valueName: "file"))
        var junit: String?

        @Argument(help: ArgumentHelp("A trace written by switchboard run --trace.", valueName: "trace"))
        var trace: String

        func validate() throws {
            guard DeferredValidation.now else { return }
            try PathCheck.readableFile(trace, what: trace)
            if let junit { try PathCheck.outputs([("--junit", junit)], inputs: RunInputs(load: load, files: [("the trace \(trace)", trace)])) }
        }

        func run() throws {
            sbr_signals_watch() // a signal stops the replay, which reports what it replayed (Interruption.swift)
            let recorded = try ReplayTrace(path: trace)
            if recorded.format == 1 {
                complain("\(trace) is a trace of format 1: it holds no call options, nor the targets and functions of the "
                         + "script's, so some calls are made without them or skipped (record it again for a replay that "
                         + "can gate a build)")
            }
            // TAP goes to a copy of standard output; standard output itself
            // becomes standard error, for whatever plugins print.
            let tapDescriptor = sbr_take_stdout()
            guard tapDescriptor >= 0 else { throw CommandFailure("cannot duplicate standard output") }
            sbr_detach_stdin()
            let tap = LineWriter(descriptor: tapDescriptor)
            let junitReport = try junit.map { try JUnitReport(path: $0) }
            let timestamp = wallclock()
            try junitReport?.save(timestamp: timestamp) // a path that cannot be written fails first
            tap.line("TAP version 14")
            guard !recorded.scenarios.isEmpty else {
                try junitReport?.save(timestamp: timestamp, finished: true)
                try junitReport?.publish()
                tap.line("1..0 # SKIP \(visible(trace)) holds no calls")
                return
            }
            tap.line("1..\(recorded.scenarios.count)")
            var failed = 0
            var totals = ReplayTally()
            let stop = Interruption(tap: TAPReport(out: tap, version: 14, verbose: false), junit: junitReport,
                                    trace: nil, timestamp: timestamp, progress: Progress(enabled: false))
            for (i, scenario) in recorded.scenarios.enumerated() {
                if Interruption.signal != nil {
                    try stop.whileRunning(notRun: recorded.scenarios[i...].map { ($0.script, $0.name) }, reported: i,
                                          planned: recorded.scenarios.count)
                }
                let started = monotonicSeconds()
                var outcome = replay(scenario, of: recorded)
                if let signal = Interruption.signal, outcome.problem != nil { // stopped while it was replayed
                    outcome.problem = "interrupted by \(Interruption.describe(signal)): the replay was stopped"
                    outcome.interrupted = true
                }
                totals.add(outcome.tally)
                let result = outcome.result(script: scenario.script, name: scenario.name,
                                            seconds: monotonicSeconds() - started)
                if !result.passed { failed += 1 }
                tap.line("\(result.passed ? "ok" : "not ok") \(i + 1) - \(tapDescription("\(scenario.script): \(scenario.name)"))")
                if let block = outcome.yaml() { tap.write(block) }
                try junitReport?.add(result)
            }
            if Interruption.signal != nil {
                try stop.whileRunning(notRun: [], reported: recorded.scenarios.count, planned: recorded.scenarios.count)
            }
            try junitReport?.save(timestamp: timestamp, finished: true)
            try junitReport?.publish()
            tap.line("# \(totals.calls) calls replayed: \(totals.same) same, \(totals.differ) differ, "
                     + "\(totals.skipped) skipped (failures compare by code, not message)")
            if failed > 0 { throw ExitCode.failure }
            if totals.same + totals.differ == 0 && totals.skipped > 0 {
                // Every call skipped: a build that lost a whole plugin would pass.
                complain("\(trace): no call could be replayed (every one was skipped): is a --plugin or --targets missing?")
                throw ExitCode.failure
            }
        }

        /// One scenario's calls, in a session of their own, in a process of
        /// its own (ReplayProcess): plugins are never unloaded, so a fresh
        /// mediator no longer resets what a plugin keeps in static memory.
        private func replay(_ scenario: ReplayTrace.Scenario, of trace: ReplayTrace) -> ReplayOutcome {
            var outcome = ReplayOutcome()
            outcome.nested = scenario.nested
            let replayed = ReplayProcess.run { answer in answers(scenario, format: trace.format ?? 1, setup: trace.setup(of: scenario), answer) }
            for answer in replayed.answers { outcome.add(answer) }
            if let problem = replayed.problem { outcome.problem = problem }
            return outcome
        }

        /// Replays `scenario`'s calls (format 1) or steps (format 2, after
        /// `setup`, its script's top level, done again but not compared),
        /// handing each answer, "LINE\tNAME\tVERDICT", to `answer` (false:
        /// stop); the problem that stopped them, or nil.
        private func answers(_ scenario: ReplayTrace.Scenario, format: Int, setup: [ReplayTrace.Call],
                             _ answer: (String) -> Bool) -> String? {
            let session: Session
            do {
                session = try Session(load: load, limits: limits, setup: nil)
                try session.prepareReplay()
            } catch {
                return "\(error)"
            }
            func line(_ mode: String, _ call: ReplayTrace.Call) -> [UInt8] { Array("\(mode) \(call.line)\t".utf8) + call.text }
            if scenario.calls.isEmpty { return nil }
            guard format >= 2 else {
                for call in scenario.calls {
                    switch session.replay(line("call", call)) {
                    case .failure(let failure):
                        return "line \(call.line) (\(call.name)): \(failure)"
                    case .success(let verdict):
                        if !answer("\(call.line)\t\(call.name)\t\(verdict)") { return "the answers could not be sent" }
                    }
                }
                return nil
            }
            for (mode, calls) in [("setup", setup), ("step", scenario.calls)] {
                for call in calls {
                    if case .failure(let failure) = session.replay(line(mode, call)) {
                        return "line \(call.line) (\(call.name)): \(failure)"
                    }
                }
            }
            var request = "run" // then "more": the answers come a page at a time, "" after the last
            while true {
                switch session.replay(Array(request.utf8)) {
                case .failure(let failure):
                    return "\(failure)"
                case .success(let text):
                    if text.isEmpty { return nil }
                    for verdict in text.split(separator: "\n") where !answer(String(verdict)) { return "the answers could not be sent" }
                }
                request = "more"
            }
        }
    }
}

enum ReplayLimits: LimitSubject {
    static var subject: String { "the calls of one scenario" }
    static var graceEnds: String { "the process replaying that scenario (an error of that scenario)" }
}

/// Counts of replayed calls.
struct ReplayTally {
    var same = 0, differ = 0, skipped = 0
    var calls: Int { same + differ + skipped }

    mutating func add(_ other: ReplayTally) {
        same += other.same
        differ += other.differ
        skipped += other.skipped
    }
}

/// What replaying one scenario found.
struct ReplayOutcome {
    struct Entry {
        let line: Int
        let name: String
        let fields: [(String, String)]
    }

    var tally = ReplayTally()
    var differences: [Entry] = []
    var skips: [Entry] = []
    var nested = 0
    var problem: String? // the session did not open, or a limit (or a signal) stopped it
    var interrupted = false

    /// An answer: "LINE\tNAME\t" and replay.lua's verdict, "same",
    /// "differs\trecorded\tnow" or "skipped\treason".
    mutating func add(_ answer: String) {
        let parts = answer.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let line = Int(parts[0]) else {
            problem = "the replay answered \(quoted(answer))"
            return
        }
        let name = parts[1]
        switch (parts[2], parts.count) {
        case ("same", 3):
            tally.same += 1
        case ("differs", 5):
            tally.differ += 1
            differences.append(Entry(line: line, name: name, fields: [("recorded", parts[3]), ("now", parts[4])]))
        case ("skipped", 4):
            tally.skipped += 1
            skips.append(Entry(line: line, name: name, fields: [("reason", parts[3])]))
        default:
            problem = "line \(line): the replay answered \(quoted(answer))"
        }
    }

    var passed: Bool { differences.isEmpty && problem == nil }

    var message: String {
        if let problem { return "the replay stopped: \(problem)" }
        let differing = differences.count == 1 ? "1 call differs" : "\(differences.count) calls differ"
        return "\(differing) of \(tally.calls) replayed"
    }

    /// The YAML block of a scenario with differences, skipped calls or a problem; nil when all were the same.
    func yaml() -> String? {
        guard !passed || !skips.isEmpty else { return nil }
        let summary = "\(tally.same) of \(tally.calls) calls the same, \(tally.skipped) skipped"
        var lines = ["  ---", "  message: \(quoted(passed ? summary : message))"]
        if !passed { lines.append("  severity: \(quoted(problem == nil ? "fail" : "error"))") }
        func list(_ key: String, _ entries: [Entry]) {
            guard !entries.isEmpty else { return }
            lines.append("  \(key):")
            for entry in entries {
                lines.append("    - call: \(quoted(entry.name))")
                lines.append("      line: \(entry.line)")
                for (name, value) in entry.fields { lines.append("      \(name): \(quoted(value))") }
            }
        }
        list("differs", differences)
        list("skipped", skips)
        if nested > 0 { lines.append("  nested_calls_not_replayed: \(nested)") }
        lines.append("  ...")
        return lines.joined(separator: "\n") + "\n"
    }

    func result(script: String, name: String, seconds: Double) -> ScenarioResult {
        ScenarioResult(script: script, name: name,
                       outcome: passed ? .passed : interrupted ? .interrupted : (problem == nil ? .failed : .error),
                       message: passed ? nil : message, output: passed ? nil : yaml(), seconds: seconds)
    }
}
