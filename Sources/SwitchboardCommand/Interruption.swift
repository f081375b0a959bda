import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// How a run that a signal stopped ends (sbr_signals_watch: SIGINT,
/// SIGTERM, SIGHUP, a closed report pipe's SIGPIPE): the scenarios that ran
/// are reported as they finished (those the signal ended as interrupted),
/// every other one planned is a JUnit test case marked interrupted, the TAP
/// stream ends with a Bail out! line, the report files are put in place,
/// and the command then dies by the signal, as it would have.
struct Interruption {
    let tap: TAPReport
    let junit: JUnitReport?
    let trace: TraceFile?
    let timestamp: String
    let progress: Progress

    /// The signal that stopped the run, or nil.
    static var signal: Int32? {
        let signal = sbr_interrupted()
        return signal == 0 ? nil : signal
    }

    /// "signal 2 (SIGINT)".
    static func describe(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGPIPE: "SIGPIPE"]
        return "signal \(signal) (\(names[signal] ?? String(cString: strsignal(signal))))"
    }

    /// Stopped while scripts were listed: nothing ran; the TAP stream has no
    /// plan yet. `planned`: the scenarios listed; `unlisted`: the scripts
    /// not listed, the one stopped among them.
    func whileListing(planned: [(script: String, name: String)], unlisted: [String]) throws -> Never {
        let signal = Self.signal ?? SIGINT
        let why = "the run was stopped by \(Self.describe(signal))"
        for (script, name) in planned { try junit?.add(notRun(script: script, name: name, "not run: \(why)")) }
        for script in unlisted {
            try junit?.add(notRun(script: script, name: "(its scenarios)", "not listed: \(why) while the scripts were listed"))
        }
        try end("Bail out! Interrupted by \(Self.describe(signal)) while the scripts were listed: no scenario ran",
                tapBegun: false)
    }

    /// Stopped while scenarios ran: `reported` of `planned` are reported;
    /// `notRun` are the others, in their order.
    func whileRunning(notRun: [(script: String, name: String)], reported: Int, planned: Int) throws -> Never {
        let signal = Self.signal ?? SIGINT
        for (script, name) in notRun {
            try junit?.add(self.notRun(script: script, name: name, "not run: the run was stopped by \(Self.describe(signal))"))
        }
        try end("Bail out! Interrupted by \(Self.describe(signal)): \(reported) of \(planned) scenarios reported, "
                + "\(notRun.count) not run", tapBegun: true)
    }

    private func notRun(script: String, name: String, _ message: String) -> ScenarioResult {
        ScenarioResult(script: script, name: name, outcome: .interrupted, message: message, output: nil, seconds: 0)
    }

    /// The reports in place, the last TAP line, then the signal's end.
    private func end(_ bailOut: String, tapBegun: Bool) throws -> Never {
        try junit?.save(timestamp: timestamp, finished: true)
        try junit?.publish()
        try trace?.finish()
        progress.clear()
        tap.bailOut(bailOut, begun: tapBegun)
        complain(String(bailOut.dropFirst("Bail out! ".count)))
        TemporaryFolder.removeAll() // switchboard graph's: the run's trace and report were its own
        sbr_signals_finish()
        exit(128 + (Self.signal ?? SIGINT)) // not reached
    }
}
