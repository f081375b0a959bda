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
    /// --coverage: written as a suite of no tests whose properties are the
    /// actions and their status.
    var coverage: [Coverage.Action]?
    /// The test cases, written out as they come: a file of their own, gone
    /// when the run ends.
    private let spool: UnsafeMutablePointer<FILE>
    private var spooled = 0
    /// The report, open from the start (so that a stale one never stays,
    /// and saving needs no new descriptor). Suites before the last never
    /// change once written: a save writes the header (fixed width, padded)
    /// and what follows the last of those, so a run's saves cost in all what
    /// its suites weigh, not that times the number of saves.
    private let path: String
    private let out: Int32
    private var frozen = 0 // suites written for good
    private var frozenEnd = 0 // where the first suite not frozen starts
    private static let headerWidth = 240

    init(path: String) throws {
        guard let spool = tmpfile() else {
            throw CommandFailure("cannot make a temporary file for the JUnit report: \(String(cString: strerror(errno)))")
        }
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard out >= 0 else {
            fclose(spool)
            throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        self.spool = spool
        self.path = path
        self.out = out
    }

    deinit {
        fclose(spool)
        close(out)
    }

    func add(_ r: ScenarioResult) throws {
        // The scenarios of a script come together (a script is run once,
        // however often it is given): its suite is the last one.
        let i: Int
        if let last = suites.indices.last, samePath(suites[last].script, r.script) {
            i = last
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

    /// Brings the report on disk up to date: whole, well formed.
    func save(timestamp: String) throws {
        var all = Suite(script: "")
        for suite in suites {
            all.tests += suite.tests
            all.failures += suite.failures
            all.errors += suite.errors
            all.seconds += suite.seconds
        }
        var header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"switchboard\"\(counts(all))"
        header += String(repeating: " ", count: max(0, Self.headerWidth - header.utf8.count - 2)) + ">\n"
        guard fflush(spool) == 0, put(header, at: 0) else { throw failure() }
        if frozenEnd == 0 { frozenEnd = header.utf8.count }
        var at = frozenEnd
        for i in frozen..<suites.count {
            guard let written = write(suites[i], timestamp: timestamp, at: at) else { throw failure() }
            at += written
            if i < suites.count - 1 { // a later suite exists: this one is done
                frozen = i + 1
                frozenEnd = at
            }
        }
        var tail = ""
        if let coverage {
            tail += "  <testsuite name=\"switchboard coverage\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
            tail += "    <properties>\n"
            for a in coverage {
                tail += "      <property name=\(attribute(a.target + "." + a.action)) value=\(attribute(a.status.rawValue))/>\n"
            }
            tail += "    </properties>\n  </testsuite>\n"
        }
        tail += "</testsuites>\n"
        guard put(tail, at: at), ftruncate(out, off_t(at + tail.utf8.count)) == 0 else { throw failure() }
    }

    private func failure() -> CommandFailure {
        CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))")
    }

    private func put(_ text: String, at offset: Int) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = pwrite(out, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// One suite at `offset`: its element, its cases copied from the spool.
    /// The bytes written, or nil.
    private func write(_ suite: Suite, timestamp: String, at offset: Int) -> Int? {
        let open = "  <testsuite name=\(attribute(suite.script))\(counts(suite)) skipped=\"0\" timestamp=\"\(timestamp)\">\n"
        guard put(open, at: offset) else { return nil }
        var at = offset + open.utf8.count
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for range in suite.cases {
            var from = range.lowerBound
            while from < range.upperBound {
                let n = buffer.withUnsafeMutableBytes {
                    pread(fileno(spool), $0.baseAddress, min($0.count, range.upperBound - from), off_t(from))
                }
                guard n > 0, buffer.withUnsafeBytes({ pwrite(out, $0.baseAddress, n, off_t(at)) }) == n else { return nil }
                from += n
                at += n
            }
        }
        let close = "  </testsuite>\n"
        guard put(close, at: at) else { return nil }
        return at + close.utf8.count - offset
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
    /// they become U+FFFD. DEL and C1 (CSI, OSC...) it can, as references,
    /// which keep them from a terminal that shows the file.
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
            case _ where (0x7F...0x9F).contains(scalar.value):
                out += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
