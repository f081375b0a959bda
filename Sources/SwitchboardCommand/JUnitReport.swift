/// JUnit XML, the shape Jenkins, GitLab and junitparser read: one testsuite
/// per script, one testcase per scenario; an expectation that did not hold
/// is a <failure>, an error or a limit an <error>.
struct JUnitReport {
    /// A suite keeps its counts and its test cases already written out, not
    /// the reports: a run of many scenarios keeps little per scenario (each
    /// scenario's process is a copy of the runner, whose size it pays for).
    private struct Suite {
        let script: String
        var tests = 0, failures = 0, errors = 0
        var seconds = 0.0
        var cases = ""
    }

    private var suites: [Suite] = []

    mutating func add(_ r: ScenarioResult) {
        // The scenarios of a script come together: its suite is the last one
        // (but a script given twice has one suite).
        let i: Int
        if let found = suites.lastIndex(where: { $0.script == r.script }) {
            i = found
        } else {
            suites.append(Suite(script: r.script))
            i = suites.count - 1
        }
        suites[i].tests += 1
        if r.outcome == .failed { suites[i].failures += 1 }
        if r.outcome == .error || r.outcome == .limit { suites[i].errors += 1 }
        suites[i].seconds += r.seconds
        suites[i].cases += testcase(r)
    }

    func xml(timestamp: String) -> String {
        var all = Suite(script: "")
        for suite in suites {
            all.tests += suite.tests
            all.failures += suite.failures
            all.errors += suite.errors
        }
        all.seconds = suites.reduce(0) { $0 + $1.seconds }
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<testsuites name=\"switchboard\"\(counts(all))>\n"
        for suite in suites {
            x += "  <testsuite name=\(attribute(suite.script))\(counts(suite)) skipped=\"0\" timestamp=\"\(timestamp)\">\n"
            x += suite.cases
            x += "  </testsuite>\n"
        }
        return x + "</testsuites>\n"
    }

    private func testcase(_ r: ScenarioResult) -> String {
        var x = "    <testcase name=\(attribute(r.name)) classname=\(attribute(r.script)) time=\"\(seconds(r.seconds))\""
        if r.passed && r.output == nil { return x + "/>\n" }
        x += ">\n"
        if !r.passed {
            let element = r.outcome == .failed ? "failure" : "error"
            var details = [r.location.map { "at \($0)" }, r.step.map { "in step \($0)" }].compactMap { $0 }
            if let traceback = r.traceback { details.append(traceback) }
            x += "      <\(element) message=\(attribute(r.message ?? r.outcome.rawValue)) type=\"\(r.outcome.rawValue)\">"
            x += text(details.joined(separator: "\n")) + "</\(element)>\n"
        }
        if let output = r.output { x += "      <system-out>\(text(output))</system-out>\n" }
        return x + "    </testcase>\n"
    }

    private func counts(_ suite: Suite) -> String {
        " tests=\"\(suite.tests)\" failures=\"\(suite.failures)\" errors=\"\(suite.errors)\" time=\"\(seconds(suite.seconds))\""
    }

    private func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    private func attribute(_ s: String) -> String { "\"" + escaped(s, attribute: true) + "\"" }
    private func text(_ s: String) -> String { escaped(s, attribute: false) }

    /// XML 1.0 cannot carry most control characters even as references:
    /// they become U+FFFD.
    private func escaped(_ s: String, attribute: Bool) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            case "\r": out += "&#13;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
