import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// One scenario's report, copied out of the runner's C struct. (A class:
/// reports are passed around, never changed.)
final class ScenarioResult {
    enum Outcome: String { case passed, failed, error, limit, interrupted, skipped }

    struct Step {
        let name: String
        var status: String
        let seconds: Double
    }

    let script: String
    let name: String
    let outcome: Outcome
    let message: String?
    let location: String?
    let step: String?
    let traceback: String?
    let output: String?
    let calls: String? // --coverage: what it called (sbr_result.calls)
    let steps: [Step]
    let seconds: Double
    /// How many matchers it called (0: it made no expectation).
    let expectations: Int
    /// Its todo reason ("" when none was given), when it is marked todo: its
    /// failure does not fail the run.
    let todo: String?

    init(script: String, name: String? = nil, todo: String? = nil, _ r: sbr_result) {
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        self.script = script
        self.name = name ?? text(r.name) ?? script
        switch r.outcome {
        case SBR_PASSED: outcome = .passed
        case SBR_FAILED: outcome = .failed
        case SBR_LIMIT: outcome = .limit
        case SBR_INTERRUPTED: outcome = .interrupted
        case SBR_SKIPPED: outcome = .skipped
        default: outcome = .error
        }
        message = text(r.message)
        location = text(r.where)
        step = text(r.step)
        traceback = text(r.traceback)
        output = text(r.output)
        calls = text(r.calls)
        steps = (0..<r.step_count).map { i in
            let s = r.steps[i]
            return Step(name: text(s.name) ?? "", status: text(s.status) ?? "", seconds: s.seconds)
        }
        seconds = r.seconds
        expectations = r.expectations
        self.todo = todo
    }

    /// A result made in Swift (switchboard replay, a skipped scenario), not by the runner.
    init(script: String, name: String, outcome: Outcome, message: String?, output: String?, seconds: Double,
         todo: String? = nil) {
        self.script = script
        self.name = name
        self.outcome = outcome
        self.message = message
        self.output = output
        self.seconds = seconds
        self.todo = todo
        location = nil
        step = nil
        traceback = nil
        calls = nil
        steps = []
        expectations = 0
    }

    /// This result, told otherwise: another outcome, message, place.
    private init(_ r: ScenarioResult, outcome: Outcome, message: String?, location: String?, step: String?,
                 traceback: String?, todo: String?, output: String? = nil) {
        script = r.script
        name = r.name
        self.outcome = outcome
        self.message = message
        self.location = location
        self.step = step
        self.traceback = traceback
        self.output = output ?? r.output
        calls = r.calls
        steps = r.steps
        seconds = r.seconds
        expectations = r.expectations
        self.todo = todo
    }

    var passed: Bool { outcome == .passed }

    /// Not passed, not skipped, and not a todo's expected failure: what fails a run.
    var counts: Bool { !passed && outcome != .skipped && !expectedFailure }

    /// A todo scenario that did not pass, as expected (a signal that stopped it is no such thing).
    var expectedFailure: Bool { todo != nil && !passed && outcome != .skipped && outcome != .interrupted }

    /// A todo scenario that passed.
    var unexpectedPass: Bool { todo != nil && passed }

    /// Failed, with this message (--strict: a scenario that made no
    /// expectation, a todo that passed); no longer todo.
    func failed(_ message: String) -> ScenarioResult {
        ScenarioResult(self, outcome: .failed, message: message, location: location, step: step, traceback: traceback, todo: nil)
    }

    /// With what the after_all hooks that ran after it wrote (print,
    /// io.write), shown with its own output, as pytest shows a teardown's.
    func adding(afterAllOutput wrote: String) -> ScenarioResult {
        guard !wrote.isEmpty else { return self }
        return ScenarioResult(self, outcome: outcome, message: message, location: location, step: step,
                              traceback: traceback, todo: todo, output: (output ?? "") + wrote)
    }

    /// With the problem of the after_all hooks that ran after it (pytest
    /// tells a teardown's error on the test before it): a scenario that
    /// passed (or was skipped) takes it as its own outcome; one that did not
    /// keeps its own and adds it to its message.
    func adding(afterAll problem: ScenarioResult) -> ScenarioResult {
        if passed || outcome == .skipped {
            return ScenarioResult(self, outcome: problem.outcome == .failed ? .failed : .error, message: problem.message,
                                  location: problem.location, step: problem.step ?? "(after_all)",
                                  traceback: problem.traceback, todo: todo)
        }
        let also = (problem.message ?? "after_all failed") + (problem.location.map { " at \($0)" } ?? "")
        return ScenarioResult(self, outcome: outcome, message: (message ?? outcome.rawValue) + "\n(\(also))",
                              location: location, step: step, traceback: traceback, todo: todo)
    }
}

/// A scenario as its script defines it: its name, tags, and whether it is
/// skipped or todo (with the reason, "" when none is given).
struct ListedScenario {
    let name: String
    let tags: [String]
    let skip: String?
    let todo: String?
}

/// What a script holds: its scenarios, or the problem that kept it from loading.
struct ScriptListing {
    var scenarios: [ListedScenario] = []
    var problem: ScenarioResult?

    init(script: String, settings: RunnerSettings) {
        var config = settings.config
        var listed: UnsafeMutablePointer<sbr_listed>?
        var count = 0
        var problem = sbr_result()
        defer { sbr_result_clear(&problem) }
        if sbr_list(&config, script, &listed, &count, &problem) == 0 {
            self.problem = ScenarioResult(script: script, name: "the script does not load", problem)
            return
        }
        defer { sbr_listed_free(listed, count) }
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        scenarios = (0..<count).map { i in
            let s = listed![i]
            // Tags come one a line, each followed by a newline.
            let tags = text(s.tags).map { $0.split(separator: "\n").map(String.init) } ?? []
            return ListedScenario(name: text(s.name) ?? "", tags: tags, skip: text(s.skip), todo: text(s.todo))
        }
    }
}

/// A script whose top level has run once, in a state each of its scenarios
/// gets a copy of (a process forked from this one: see script.c).
final class PreparedScript {
    let script: String
    private let settings: RunnerSettings // what the C side's config points to
    private let prepared: OpaquePointer?
    private var saidNotForked = false

    init(script: String, settings: RunnerSettings) {
        self.script = script
        self.settings = settings
        var config = settings.config
        prepared = sbr_script_open(&config, script)
    }

    /// What the top level (and before_all) wrote with print and io.write.
    var topOutput: String? { sbr_script_top_output(prepared).map { String(cString: $0) } }

    /// A scenario to run: where it is in the script, its name, its todo reason.
    typealias Item = (index: Int, name: String, todo: String?)

    /// Runs the scenarios `items` in processes of their own, up to `jobs`
    /// at once, and hands each result to `report` in the order given. Where
    /// that cannot be done (another thread is running, fork failed, out of
    /// memory), the rest run the old way: in this process, one after
    /// another, after `beforeInProcess`, in a fresh state where the top
    /// level (and before_all, and after it after_all) runs again.
    /// `finishing`: the last of them is the script's last to run, so its
    /// after_all hooks run after it, and what goes wrong there is told on
    /// that last scenario's report (which waits for them).
    func run(_ items: [Item], jobs: Int, finishing: Bool, beforeInProcess: () throws -> Void,
             report: (ScenarioResult) throws -> Void) throws {
        var held: ScenarioResult?
        try withoutActuallyEscaping(report) { report in
            let position = Position(count: items.count, holdingLast: finishing)
            try runAll(items, jobs: jobs, beforeInProcess: beforeInProcess) { result in
                if position.next() { held = result } else { try report(result) }
            }
        }
        guard let last = held else { return }
        if Interruption.signal != nil { return try report(last) } // stopped: after_all does not run
        try beforeInProcess() // after_all runs in this process
        var problem = sbr_result()
        defer { sbr_result_clear(&problem) }
        let finished = sbr_script_finish(prepared, &problem) != 0
        let told = last.adding(afterAllOutput: problem.output.map { String(cString: $0) } ?? "")
        if finished { return try report(told) }
        try report(told.adding(afterAll: ScenarioResult(script: script, name: last.name, problem)))
    }

    /// Counts the results as they come: true for the one to hold back.
    private final class Position {
        let count: Int
        let holdingLast: Bool
        var seen = 0
        init(count: Int, holdingLast: Bool) {
            self.count = count
            self.holdingLast = holdingLast
        }
        func next() -> Bool {
            seen += 1
            return holdingLast && seen == count
        }
    }

    private func runAll(_ items: [Item], jobs: Int, beforeInProcess: () throws -> Void,
                        report: (ScenarioResult) throws -> Void) throws {
        var done = 0
        if let prepared, !items.isEmpty {
            let names = items.map { strdup($0.name) }
            defer { names.forEach { free($0) } }
            let indices = items.map(\.index)
            let batch = Batch(script: script, items: items)
            try withoutActuallyEscaping(report) { report in
                batch.report = report
                defer { batch.report = nil }
                names.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
                    done = sbr_script_run_jobs(prepared, indices, names.baseAddress, items.count, UInt32(max(jobs, 1)),
                                               { context, position, result in
                        guard let context, let result else { return }
                        Unmanaged<Batch>.fromOpaque(context).takeUnretainedValue().take(position, result.pointee)
                    }, Unmanaged.passUnretained(batch).toOpaque())
                }
                if let failure = batch.failure { throw failure }
            }
        }
        for item in items[done...] {
            if Interruption.signal != nil { return } // a signal stopped the run: the caller reports the rest
            if !saidNotForked {
                saidNotForked = true
                let why = sbr_script_not_forked(prepared).map { String(cString: $0) } ?? "out of memory preparing it"
                complain("\(script): scenarios run in the runner's own process, one after another, each running "
                         + "the top level again (slower; a crash ends the run): \(why)")
            }
            try beforeInProcess()
            var result = sbr_result()
            defer { sbr_result_clear(&result) }
            var config = settings.config
            sbr_run(&config, script, item.index, item.name, &result)
            try report(ScenarioResult(script: script, name: item.name, todo: item.todo, result))
        }
    }

    /// What the C callback reaches: where results go, and the first error
    /// in sending one there (the batch runs on; the rest are dropped).
    private final class Batch {
        let script: String
        let items: [Item]
        var report: ((ScenarioResult) throws -> Void)?
        var failure: Error?

        init(script: String, items: [Item]) {
            self.script = script
            self.items = items
        }

        func take(_ position: Int, _ result: sbr_result) {
            guard failure == nil, let report else { return }
            let item = items[position]
            do { try report(ScenarioResult(script: script, name: item.name, todo: item.todo, result)) } catch { failure = error }
        }
    }

    deinit { sbr_script_close(prepared) }
}
