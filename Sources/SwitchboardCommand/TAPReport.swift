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
            var lines = tapLines(output)
            if lines.last == "" { lines.removeLast() }
            for line in lines { out.line("# " + visible(line)) }
        }
    }

    /// The last line of a run that cannot go on (`begun`: the version line
    /// is written already).
    func bailOut(_ line: String, begun: Bool) {
        if !begun { out.line("TAP version \(version)") }
        out.line(visible(line))
    }

    func skipEverything(_ reason: String) {
        out.line("TAP version \(version)")
        out.line("1..0 # SKIP \(reason)")
    }

    func summary(passed: Int, failed: Int, seconds: Double) {
        out.line("# \(passed) passed, \(failed) failed (\(formatSeconds(seconds)))")
    }

    /// A line that is already a TAP comment ("# ...").
    func comment(_ line: String) {
        out.line(line)
    }

    private func description(_ r: ScenarioResult) -> String { tapDescription("\(r.script): \(r.name)") }

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

/// A test point's description ("script: scenario"), on one line; '#' and '\' escaped as TAP 14 asks,
/// other control characters shown as escapes (`visible`).
/// Scalar by scalar: as Characters, "\r\n" or a '#' after a prepended
/// mark would be one cluster and slip through.
func tapDescription(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
        case "#": out.append(contentsOf: "\\#".unicodeScalars)
        case _ where isLineBreak(scalar): out.append(" ")
        default: out.append(scalar)
        }
    }
    return visible(String(out))
}

func formatSeconds(_ s: Double) -> String {
    let tenths = Int((s * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100) s"
}

/// Every scalar a TAP reader might take for the end of a line.
func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return true
    default: return false
    }
}

/// `text` cut at every line break (scalars, not Characters).
func tapLines(_ text: String) -> [String] {
    var lines: [String] = []
    var line = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        if isLineBreak(scalar) {
            lines.append(String(line))
            line = String.UnicodeScalarView()
        } else {
            line.append(scalar)
        }
    }
    lines.append(String(line))
    return lines
}
