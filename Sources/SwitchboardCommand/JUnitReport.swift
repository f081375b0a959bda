/// JUnit XML, the shape Jenkins, GitLab and junitparser read: one testsuite
/// per script, one testcase per scenario; an expectation that did not hold
/// is a <failure>, an error or a limit an <error>.
struct JUnitReport {
    private var suites: [(script: String, cases: [ScenarioResult])] = []

    mutating func add(_ r: ScenarioResult) {
        if let i = suites.firstIndex(where: { $0.script == r.script }) {
            suites[i].cases.append(r)
        } else {
            suites.append((r.script, [r]))
        }
    }

    func xml(timestamp: String) -> String {
        let all = suites.flatMap(\.cases)
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        x += "<testsuites name=\"switchboard\"\(counts(all))>\n"
        for suite in suites {
            x += "  <testsuite name=\(attribute(suite.script))\(counts(suite.cases)) skipped=\"0\" timestamp=\"\(timestamp)\">\n"
            for r in suite.cases {
                x += "    <testcase name=\(attribute(r.name)) classname=\(attribute(r.script)) time=\"\(seconds(r.seconds))\""
                if r.passed && r.output == nil {
                    x += "/>\n"
                    continue
                }
                x += ">\n"
                if !r.passed {
                    let element = r.outcome == .failed ? "failure" : "error"
                    var details = [r.location.map { "at \($0)" }, r.step.map { "in step \($0)" }].compactMap { $0 }
                    if let traceback = r.traceback { details.append(traceback) }
                    x += "      <\(element) message=\(attribute(r.message ?? r.outcome.rawValue)) type=\"\(r.outcome.rawValue)\">"
                    x += text(details.joined(separator: "\n")) + "</\(element)>\n"
                }
                if let output = r.output { x += "      <system-out>\(text(output))</system-out>\n" }
                x += "    </testcase>\n"
            }
            x += "  </testsuite>\n"
        }
        return x + "</testsuites>\n"
    }

    private func counts(_ cases: [ScenarioResult]) -> String {
        let failures = cases.filter { $0.outcome == .failed }.count
        let errors = cases.filter { $0.outcome == .error || $0.outcome == .limit }.count
        let time = cases.reduce(0) { $0 + $1.seconds }
        return " tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds(time))\""
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
