#if canImport(Glibc)
import Glibc
#endif

/// JUnit XML, the shape Jenkins, GitLab and junitparser read: one testsuite
/// per script, one testcase per scenario; an expectation that did not hold
/// is a <failure>, an error or a limit an <error>.
final class JUnitReport {
    /// A suite keeps its counts and where its test cases are in the spool,
    /// not the reports: the runner's memory stays the same however many
    /// scenarios run and whatever they print (each scenario's process is a
    /// copy of the runner, whose size it pays for).
    private struct Suite {
        let script: String
        var tests = 0, failures = 0, errors = 0
        var seconds = 0.0
        var cases: [Range<Int>] = [] // in the spool
    }

    private var suites: [Suite] = []
    /// The test cases, written out as they come: a file of their own, gone
    /// when the run ends.
    private let spool: UnsafeMutablePointer<FILE>
    private var spooled = 0

    init() throws {
        guard let spool = tmpfile() else {
            throw CommandFailure("cannot make a temporary file for the JUnit report: \(String(cString: strerror(errno)))")
        }
        self.spool = spool
    }

    deinit { fclose(spool) }

    func add(_ r: ScenarioResult) throws {
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
        var xml = testcase(r)
        let written = xml.withUTF8 { fwrite($0.baseAddress, 1, $0.count, spool) == $0.count }
        guard written else { throw CommandFailure("cannot write the JUnit report's temporary file") }
        let range = spooled..<(spooled + xml.utf8.count)
        spooled = range.upperBound
        if let last = suites[i].cases.last, last.upperBound == range.lowerBound {
            suites[i].cases[suites[i].cases.count - 1] = last.lowerBound..<range.upperBound
        } else {
            suites[i].cases.append(range)
        }
    }

    /// Writes the whole report to `path`, replacing what is there.
    func write(to path: String, timestamp: String) throws {
        guard fflush(spool) == 0, let out = fopen(path, "w") else {
            throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(out) }
        func put(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, out) == $0.count }
        }
        var all = Suite(script: "")
        for suite in suites {
            all.tests += suite.tests
            all.failures += suite.failures
            all.errors += suite.errors
            all.seconds += suite.seconds
        }
        var ok = put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"switchboard\"\(counts(all))>\n")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for suite in suites where ok {
            ok = put("  <testsuite name=\(attribute(suite.script))\(counts(suite)) skipped=\"0\" timestamp=\"\(timestamp)\">\n")
            for range in suite.cases where ok {
                var at = range.lowerBound
                while ok && at < range.upperBound {
                    let n = buffer.withUnsafeMutableBytes {
                        pread(fileno(spool), $0.baseAddress, min($0.count, range.upperBound - at), off_t(at))
                    }
                    ok = n > 0 && fwrite(buffer, 1, n, out) == n
                    at += max(n, 0)
                }
            }
            ok = ok && put("  </testsuite>\n")
        }
        ok = ok && put("</testsuites>\n")
        guard ok, fflush(out) == 0 else { throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
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
