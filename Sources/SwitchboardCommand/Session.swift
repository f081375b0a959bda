import SwitchboardRunner
import CSwitchboard

#if canImport(Glibc)
import Glibc
#endif

/// A mediator with the plugins and Lua targets loaded, for one-off commands.
final class Session {
    private let settings: RunnerSettings
    private let session: OpaquePointer
    var mediator: OpaquePointer { sbr_session_mediator(session) }

    init<Subject>(load: LoadOptions, limits: LimitOptions<Subject>, setup: String?) throws {
        settings = RunnerSettings(load: load, limits: limits)
        var config = settings.config
        var error: UnsafeMutablePointer<CChar>?
        guard let session = sbr_session_open(&config, &error) else {
            throw CommandFailure(Session.take(error) ?? "the session did not open")
        }
        self.session = session
        if let setup, sbr_session_run_file(session, setup, &error) == 0 {
            throw CommandFailure("--setup \(setup): " + (Session.take(error) ?? "failed"))
        }
    }

    func loadLuaTargets() throws {
        var error: UnsafeMutablePointer<CChar>?
        if sbr_session_load_lua_targets(session, &error) == 0 {
            throw CommandFailure(Session.take(error) ?? "the Lua targets did not load")
        }
    }

    /// Loads the replay chunk (ReplayChunk) after the scenario API, whose
    /// trace writer it writes results with.
    func prepareReplay() throws {
        var error: UnsafeMutablePointer<CChar>?
        let source = ReplayChunk.source
        let ok = source.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sbr_session_replay_prepare(session, $0, buffer.count, &error)
            }
        }
        if ok == 0 { throw CommandFailure(Session.take(error) ?? "the replay did not load") }
    }

    /// Replays one trace line: replay.lua's answer, or the error (a limit) that stopped it.
    func replay(_ line: [UInt8]) -> Result<String, CommandFailure> {
        guard !line.isEmpty else { return .failure(CommandFailure("an empty line")) }
        var answer: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        let ok = line.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sbr_session_replay_line(session, $0, buffer.count, &answer, &error)
            }
        }
        if ok == 0 { return .failure(CommandFailure(Session.take(error) ?? "the replay failed")) }
        return .success(Session.take(answer) ?? "")
    }

    private static func take(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        guard let message else { return nil }
        defer { free(message) }
        return String(cString: message)
    }

    deinit { sbr_session_close(session) }
}

/// Takes a string that sb_json_encode or sb_routes_json made.
func takeJSON(_ text: UnsafeMutablePointer<CChar>?) -> String? {
    guard let text else { return nil }
    defer { sb_memory_free(text) }
    return String(cString: text)
}

/// "ENOTARGET: no target named ..." for the status of the failed call: the
/// code names the Lua face and the trace use.
func failureMessage(_ status: sb_status) -> String {
    let codes: [sb_status: String] = [
        SB_EINVAL: "EINVAL", SB_ENOTARGET: "ENOTARGET", SB_ENOACTION: "ENOACTION", SB_EACTION: "EACTION",
        SB_ETYPE: "ETYPE", SB_EREJECTED: "EREJECTED", SB_EBADURL: "EBADURL", SB_ENOMEM: "ENOMEM", SB_EQUEUED: "EQUEUED",
        SB_ETIMEOUT: "ETIMEOUT", SB_ECANCELED: "ECANCELED", SB_EPARAMS: "EPARAMS", SB_EWOULDBLOCK: "EWOULDBLOCK",
        SB_ENOTFOUND: "ENOTFOUND",
    ]
    let code = codes[status] ?? String(cString: sb_status_string(status))
    let message = String(cString: sb_error_message())
    return message.isEmpty ? code : "\(code): \(message)"
}
