import SwitchboardRunner

/// One scenario's report, copied out of the runner's C struct. (A class:
/// reports are passed around, never changed.)
final class ScenarioResult {
    enum Outcome: String { case passed, failed, error, limit }

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
        default: outcome = .error
        }
        message = text(r.message)
        location = text(r.where)
        step = text(r.step)
        traceback = text(r.traceback)
        output = text(r.output)
        steps = (0..<r.step_count).map { i in
            let s = r.steps[i]
            return Step(name: text(s.name) ?? "", status: text(s.status) ?? "", seconds: s.seconds)
        }
        seconds = r.seconds
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

    /// Runs a scenario in a process of its own; or, where that cannot be
    /// done (another thread is running, fork failed, out of memory), the old
    /// way: in this process, after `beforeInProcess`, in a fresh state where
    /// the top level runs again.
    func run(index: Int, name: String, beforeInProcess: () throws -> Void) rethrows -> ScenarioResult {
        var result = sbr_result()
        defer { sbr_result_clear(&result) }
        if prepared == nil || sbr_script_run(prepared, index, name, &result) == 0 {
            if !saidNotForked {
                saidNotForked = true
                let why = sbr_script_not_forked(prepared).map { String(cString: $0) } ?? "out of memory preparing it"
                complain("\(script): scenarios run in the runner's own process, one after another, each running "
                         + "the top level again (slower; a crash ends the run): \(why)")
            }
            try beforeInProcess()
            var config = settings.config
            sbr_run(&config, script, index, name, &result)
        }
        return ScenarioResult(script: script, name: name, result)
    }

    deinit { sbr_script_close(prepared) }
}
