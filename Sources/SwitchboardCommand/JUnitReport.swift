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
    /// The report, written under a temporary name beside its own (an
    /// AtomicFile) and put in place when the run ends (`publish`): until
    /// then the path holds a report saying the run did not finish, never a
    /// stale one, never one half written. Saves before anything runs in
    /// this process keep the temporary file whole (the watchdog puts it in
    /// place if it ends the run). Suites before the last never change once
    /// written: a save writes the header (fixed width, padded) and what
    /// follows the last of those, so a run's saves cost in all what its
    /// suites weigh, not that times the number of saves.
    private let output: AtomicFile
    private var frozen = 0 // suites written for good
    private var frozenEnd = 0 // where the first suite not frozen starts
    private static let headerWidth = 240

    init(path: String) throws {
        guard let spool = tmpfile() else {
            throw CommandFailure("cannot make a temporary file for the JUnit report: \(String(cString: strerror(errno)))")
        }
        self.spool = spool
        do {
            try AtomicFile.write(Self.header(Suite(script: ""), finished: false) + Self.tail(coverage: nil, finished: false),
                                 to: path)
            output = try AtomicFile(path: path, watchdog: true)
        } catch {
            fclose(spool)
            throw error
        }
    }

    deinit {
        fclose(spool)
    }

    /// Puts the report in place (after the last save).
    func publish() throws {
        try output.publish()
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
        if r.outcome == .error || r.outcome == .limit || r.outcome == .interrupted { suites[i].errors += 1 }
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

    /// Brings the report in its temporary file up to date: whole, well
    /// formed. Until the run has `finished`, a suite of one error says it
    /// did not (what the file says if the watchdog ends the run).
    func save(timestamp: String, finished: Bool = false) throws {
        var all = Suite(script: "")
        for suite in suites {
            all.tests += suite.tests
            all.failures += suite.failures
            all.errors += suite.errors
            all.seconds += suite.seconds
        }
        let header = Self.header(all, finished: finished)
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
        let tail = Self.tail(coverage: coverage, finished: finished)
        guard put(tail, at: at), ftruncate(output.descriptor, off_t(at + tail.utf8.count)) == 0 else { throw failure() }
    }

    /// The document's start: its counts (with the suite that says the run
    /// did not finish, until it has), padded to a fixed width.
    private static func header(_ all: Suite, finished: Bool) -> String {
        var all = all
        if !finished {
            all.tests += 1
            all.errors += 1
        }
        var header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"switchboard\"\(counts(all))"
        header += String(repeating: " ", count: max(0, headerWidth - header.utf8.count - 2)) + ">\n"
        return header
    }

    /// What follows the scripts' suites: the coverage, and until the run
    /// has finished, one error saying it did not.
    private static func tail(coverage: [Coverage.Action]?, finished: Bool) -> String {
        var tail = ""
        if let coverage {
            tail += "  <testsuite name=\"switchboard coverage\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
            tail += "    <properties>\n"
            for a in coverage {
                tail += "      <property name=\(attribute(a.target + "." + a.action)) value=\(attribute(a.status.rawValue))/>\n"
            }
            tail += "    </properties>\n  </testsuite>\n"
        }
        if !finished {
            tail += "  <testsuite name=\"switchboard run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
            tail += "    <testcase name=\"the run did not finish\" classname=\"switchboard run\" time=\"0.000\">\n"
            tail += "      <error message=\"the run ended before it finished this report: it holds the scenarios reported "
                + "until then (the watchdog ended the run, exit status 3, or it was killed)\" type=\"incomplete\"/>\n"
            tail += "    </testcase>\n  </testsuite>\n"
        }
        return tail + "</testsuites>\n"
    }

    private func failure() -> CommandFailure {
        CommandFailure("cannot write \(visible(output.path)): \(String(cString: strerror(errno)))")
    }

    private func put(_ text: String, at offset: Int) -> Bool {
        var text = text
        return text.withUTF8 { output.put(UnsafeRawBufferPointer($0), at: offset) }
    }

    /// One suite at `offset`: its element, its cases copied from the spool.
    /// The bytes written, or nil.
    private func write(_ suite: Suite, timestamp: String, at offset: Int) -> Int? {
        let open = "  <testsuite name=\(Self.attribute(suite.script))\(Self.counts(suite)) skipped=\"0\" timestamp=\"\(timestamp)\">\n"
        guard put(open, at: offset) else { return nil }
        var at = offset + open.utf8.count
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for range in suite.cases {
            var from = range.lowerBound
            while from < range.upperBound {
                let n = buffer.withUnsafeMutableBytes {
                    pread(fileno(spool), $0.baseAddress, min($0.count, range.upperBound - from), off_t(from))
                }
                guard n > 0, buffer.withUnsafeBytes({ output.put(UnsafeRawBufferPointer(rebasing: $0.prefix(n)), at: at) }) else {
                    return nil
                }
                from += n
                at += n
            }
        }
        let close = "  </testsuite>\n"
        guard put(close, at: at) else { return nil }
        return at + close.utf8.count - offset
    }

    private func testcase(_ r: ScenarioResult) -> String {
        var x = "    <testcase name=\(Self.attribute(r.name)) classname=\(Self.attribute(r.script)) time=\"\(Self.seconds(r.seconds))\""
        if r.passed && r.output == nil { return x + "/>\n" }
        x += ">\n"
        if !r.passed {
            let element = r.outcome == .failed ? "failure" : "error"
            var details = [r.location.map { "at \($0)" }, r.step.map { "in step \($0)" }].compactMap { $0 }
            if let traceback = r.traceback { details.append(traceback) }
            x += "      <\(element) message=\(Self.attribute(r.message ?? r.outcome.rawValue)) type=\"\(r.outcome.rawValue)\">"
            x += Self.text(details.joined(separator: "\n")) + "</\(element)>\n"
        }
        if let output = r.output { x += "      <system-out>\(Self.text(output))</system-out>\n" }
        return x + "    </testcase>\n"
    }

    private static func counts(_ suite: Suite) -> String {
        " tests=\"\(suite.tests)\" failures=\"\(suite.failures)\" errors=\"\(suite.errors)\" time=\"\(seconds(suite.seconds))\""
    }

    private static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    private static func attribute(_ s: String) -> String { "\"" + escaped(s, attribute: true) + "\"" }
    private static func text(_ s: String) -> String { escaped(s, attribute: false) }

    /// XML 1.0 cannot carry most control characters even as references:
    /// they become U+FFFD. DEL and C1 (CSI, OSC...) it can, as references,
    /// which keep them from a terminal that shows the file.
    private static func escaped(_ s: String, attribute: Bool) -> String {
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
