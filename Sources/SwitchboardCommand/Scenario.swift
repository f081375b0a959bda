import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// One scenario's report, copied out of the runner's C struct. (A class:
/// reports are passed around, never changed.)
final class ScenarioResult {
    enum Outcome: String { case passed, failed, error, limit, interrupted }

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

    init(script: String, name: String? = nil, _ r: sbr_result) {
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        self.script = script
        self.name = name ?? text(r.name) ?? script
        switch r.outcome {
        case SBR_PASSED: outcome = .passed
        case SBR_FAILED: outcome = .failed
        case SBR_LIMIT: outcome = .limit
        case SBR_INTERRUPTED: outcome = .interrupted
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
    }

    /// A result made in Swift (switchboard replay), not by the runner.
    init(script: String, name: String, outcome: Outcome, message: String?, output: String?, seconds: Double) {
        self.script = script
        self.name = name
        self.outcome = outcome
        self.message = message
        self.output = output
        self.seconds = seconds
        location = nil
        step = nil
        traceback = nil
        calls = nil
        steps = []
    }

    var passed: Bool { outcome == .passed }
}

/// What a script holds: its scenarios, or the problem that kept it from loading.
struct ScriptListing {
    var names: [String] = []
    var problem: ScenarioResult?

    init(script: String, settings: RunnerSettings) {
        var config = settings.config
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count = 0
        var problem = sbr_result()
        defer { sbr_result_clear(&problem) }
        if sbr_list(&config, script, &names, &count, &problem) == 0 {
            self.problem = ScenarioResult(script: script, name: "the script does not load", problem)
            return
        }
        defer { sbr_names_free(names, count) }
        self.names = (0..<count).map { String(cString: names![$0]!) }
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

    /// Runs the scenarios `items` (index and name in the script) in
    /// processes of their own, up to `jobs` at once, and hands each result
    /// to `report` in the order given. Where that cannot be done (another
    /// thread is running, fork failed, out of memory), the rest run the old
    /// way: in this process, one after another, after `beforeInProcess`, in
    /// a fresh state where the top level runs again.
    func run(_ items: [(index: Int, name: String)], jobs: Int, beforeInProcess: () throws -> Void,
             report: (ScenarioResult) throws -> Void) throws {
        var done = 0
        if let prepared, !items.isEmpty {
            let names = items.map { strdup($0.name) }
            defer { names.forEach { free($0) } }
            let indices = items.map(\.index)
            let batch = Batch(script: script, names: items.map(\.name))
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
            try report(ScenarioResult(script: script, name: item.name, result))
        }
    }

    /// What the C callback reaches: where results go, and the first error
    /// in sending one there (the batch runs on; the rest are dropped).
    private final class Batch {
        let script: String
        let names: [String]
        var report: ((ScenarioResult) throws -> Void)?
        var failure: Error?

        init(script: String, names: [String]) {
            self.script = script
            self.names = names
        }

        func take(_ position: Int, _ result: sbr_result) {
            guard failure == nil, let report else { return }
            do { try report(ScenarioResult(script: script, name: names[position], result)) } catch { failure = error }
        }
    }

    deinit { sbr_script_close(prepared) }
}
