/// The Test Anything Protocol stream on standard output: a plan, one test
/// point per scenario with YAML diagnostics when it did not pass, and a
/// summary comment.
struct TAPReport {
    let out: LineWriter
    let version: Int
    let verbose: Bool

    func begin(plannedTests: Int) {
        out.line("TAP version \(version)")
        out.line("1..\(plannedTests)")
    }

    func report(_ number: Int, _ r: ScenarioResult) {
        out.line("\(r.passed ? "ok" : "not ok") \(number) - \(description(r))")
        if !r.passed {
            out.write(diagnostics(r))
        } else if verbose, let output = r.output {
            for line in output.split(separator: "\n", omittingEmptySubsequences: false) { out.line("# " + line) }
        }
    }

    func skipEverything(_ reason: String) {
        out.line("TAP version \(version)")
        out.line("1..0 # SKIP \(reason)")
    }

    func summary(passed: Int, failed: Int, seconds: Double) {
        out.line("# \(passed) passed, \(failed) failed (\(formatSeconds(seconds)))")
    }

    /// "script: scenario", on one line; '#' and '\' escaped as TAP 14 asks.
    private func description(_ r: ScenarioResult) -> String {
        let text = "\(r.script): \(r.name)"
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\\\"
            case "#": out += "\\#"
            case "\n", "\r": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    /// A YAML block, every value a double-quoted (JSON) string or a number.
    private func diagnostics(_ r: ScenarioResult) -> String {
        var lines = ["  ---"]
        func add(_ key: String, _ value: String?) {
            if let value { lines.append("  \(key): \(quoted(value))") }
        }
        add("message", r.message ?? "(no message)")
        add("severity", r.outcome == .failed ? "fail" : "error")
        add("outcome", r.outcome.rawValue)
        add("at", r.location)
        add("step", r.step)
        if !r.steps.isEmpty {
            lines.append("  steps:")
            for s in r.steps {
                lines.append("    - name: \(quoted(s.name))")
                lines.append("      status: \(quoted(s.status))")
            }
        }
        lines.append("  duration_ms: \(Int((r.seconds * 1000).rounded()))")
        add("output", r.output)
        add("traceback", r.traceback)
        lines.append("  ...")
        return lines.joined(separator: "\n") + "\n"
    }
}

func formatSeconds(_ s: Double) -> String {
    let tenths = Int((s * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100) s"
}
