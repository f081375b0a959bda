import SwitchboardRunner

#if canImport(Glibc)
import Glibc
#endif

/// `switchboard replay` runs each scenario's calls in a process of its own
/// (sbr_replay_fork), as `run` ran the scenario: a plugin's static memory
/// starts afresh for each. The child sends each answer up a pipe (a kind
/// byte, an 8-byte length, the text) and the problem that stopped it, if
/// any; the parent reports from them, or from how the child ended. Where
/// no process can be made (another thread runs), the calls run here.
enum ReplayProcess {
    struct Answers {
        var answers: [String] = []
        var problem: String?
    }

    /// `work` replays, handing each answer to its argument, and returns
    /// the problem that stopped it, or nil.
    static func run(_ work: ((String) -> Bool) -> String?) -> Answers {
        var channel: Int32 = -1
        let pid = sbr_replay_fork(&channel)
        if pid < 0 { // here, in this process
            var here = Answers()
            here.problem = work { here.answers.append($0); return true }
            return here
        }
        if pid == 0 { // the child: answers up the pipe, then gone
            let problem = work { send(channel, UInt8(ascii: "A"), $0) }
            _exit(problem.map { send(channel, UInt8(ascii: "P"), $0) } ?? true ? 0 : 4)
        }
        var received = receive(channel, from: pid)
        close(channel)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if received.problem == nil && !(exited(status) && exitStatus(status) == 0) {
            received.problem = ended(status)
        }
        return received
    }

    private static func send(_ fd: Int32, _ kind: UInt8, _ text: String) -> Bool {
        var length = UInt64(text.utf8.count).littleEndian
        var record = [kind]
        withUnsafeBytes(of: &length) { record.append(contentsOf: $0) }
        record.append(contentsOf: text.utf8)
        return record.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Everything the child sends, to the end of the pipe. A signal that
    /// stops the replay ends the child (its group) at once.
    private static func receive(_ fd: Int32, from pid: pid_t) -> Answers {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if sbr_interrupted() != 0 {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        var out = Answers()
        var at = 0
        while bytes.count - at >= 9 {
            let length = bytes[(at + 1)..<(at + 9)].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - at - 9 else { break }
            let text = String(decoding: bytes[(at + 9)..<(at + 9 + length)], as: UTF8.self)
            if bytes[at] == UInt8(ascii: "A") { out.answers.append(text) } else { out.problem = text }
            at += 9 + length
        }
        return out
    }

    private static func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }
    private static func exitStatus(_ status: Int32) -> Int32 { (status >> 8) & 0xFF }

    /// How a child that did not report ended.
    private static func ended(_ status: Int32) -> String {
        if let signal = Interruption.signal { return "interrupted by \(Interruption.describe(signal))" }
        if exited(status) && exitStatus(status) == 3 {
            return "still running past its timeout (--timeout) and --grace, in code no limit can interrupt "
                + "(a C function?): its process was ended"
        }
        if exited(status) { return "its process exited with status \(exitStatus(status)) before it answered" }
        let signal = status & 0x7F
        return "its process was ended by signal \(signal) (\(String(cString: strsignal(signal)))): it crashed"
    }
}
