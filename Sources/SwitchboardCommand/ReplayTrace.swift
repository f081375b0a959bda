import ArgumentParser
import CSwitchboard

#if canImport(Glibc)
import Glibc
#endif

/// A --trace file read for `switchboard replay`: every line checked (JSON, a
/// trace record) before anything is replayed, and grouped by the script and
/// scenario that made it, in file order.
///
/// Two formats: 1 (no "trace" field) recorded the calls the mediator saw;
/// 2 ("trace": 2, ScenarioAPI/record.lua) adds the steps the script took
/// (its calls with their options, what it set up, what its own functions
/// were given and answered), which are what a replay does again.
struct ReplayTrace {
    /// What is replayed of a scenario: a call it made itself (format 1,
    /// depth 1), or a step (format 2).
    struct Call {
        let line: Int
        let text: [UInt8] // the line, handed to replay.lua as it is
        let name: String  // "Target.action", "open URL", "sb.rules"..., for the report
    }

    struct Scenario {
        let script: String
        let name: String
        let scriptKey: [UInt8] // the script's name as JSON: scenarios of one script share it
        let topLevel: Bool     // the script's top level ("scenario": null)
        var calls: [Call] = []
        var nested = 0 // format 1: records of calls made while answering (depth 2+): not replayed
        var seqs: [Int64: Int] = [:] // format 2: each step's seq -> its line (a scenario's are unique)
    }

    static let newestFormat = 2

    private(set) var scenarios: [Scenario] = []
    /// The format of the file's lines (all have one); nil for an empty file.
    private(set) var format: Int?

    /// The steps of the top level of `scenario`'s script (format 2), which
    /// every scenario of that script started after.
    func setup(of scenario: Scenario) -> [Call] {
        guard format == 2, !scenario.topLevel else { return [] }
        return scenarios.first { $0.topLevel && $0.scriptKey == scenario.scriptKey }?.calls ?? []
    }

    /// Reads `path`; a line that is not a trace record is a usage error naming it.
    init(path: String) throws {
        var index: [[UInt8]: Int] = [:]
        try TraceLines.read(path) { line, number in try add(line, number: number, path: path, index: &index) }
    }

    private mutating func add(_ bytes: [UInt8], number: Int, path: String, index: inout [[UInt8]: Int]) throws {
        func problem(_ what: String) -> ValidationError {
            ValidationError(visible("\(path) line \(number): \(what) (switchboard run --trace writes one JSON object a line)"))
        }
        if let nul = bytes.firstIndex(of: 0) { throw problem("a NUL byte at byte \(nul + 1)") }
        var value: OpaquePointer?
        var text = bytes
        text.append(0)
        let parsed = text.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { sb_json_decode($0, &value) }
        }
        guard parsed == SB_OK else { throw problem("not JSON: \(String(cString: sb_error_message()))") }
        defer { sb_value_release(value) }
        guard sb_value_type(value) == SB_DICT else { throw problem("not a JSON object") }
        func string(_ key: String) -> String? {
            guard let v = sb_dict_get(value, key), sb_value_type(v) == SB_STRING else { return nil }
            return sb_value_get_string(v, nil).map { String(cString: $0) }
        }
        func present(_ key: String) -> Bool { sb_dict_get(value, key) != nil }
        func integer(_ key: String) -> Int64? {
            guard let v = sb_dict_get(value, key), sb_value_type(v) == SB_INT else { return nil }
            var n: Int64 = 0
            _ = sb_value_get_int(v, &n)
            return n
        }
        guard present("script") else { throw problem("no \"script\": not a trace, or one written before traces named their script (record it again)") }
        let lineFormat = try Self.format(present("trace") ? integer("trace") : 1, problem)
        if let known = format, known != lineFormat {
            throw problem("trace format \(lineFormat), but the lines before it are format \(known): two traces joined? (record it again)")
        }
        format = lineFormat
        guard let scenarioValue = sb_dict_get(value, "scenario"),
              sb_value_type(scenarioValue) == SB_STRING || sb_value_type(scenarioValue) == SB_NULL else {
            throw problem("no \"scenario\" (a string, or null for a script's top level)")
        }
        let name: String
        var replayed = false, nested = false
        if lineFormat >= 2 && present("op") {
            name = try ReplayStep.check(value, problem)
            replayed = true
        } else {
            guard let depth = integer("depth") else {
                throw problem("no \"depth\" (an integer): not a trace, or one written before traces recorded depths (record it again)")
            }
            guard depth >= 1 else { throw problem("\"depth\" must be 1 or more") }
            switch string("call") {
            case "perform":
                guard let target = string("target"), let action = string("action") else {
                    throw problem("a perform record needs \"target\" and \"action\" strings")
                }
                name = "\(target).\(action)"
            case "open":
                guard let url = string("url") else { throw problem("an open record needs a \"url\" string") }
                name = "open \(url)"
            default:
                throw problem("\"call\" must be \"perform\" or \"open\"" + (lineFormat >= 2 ? ", or the line an \"op\"" : ""))
            }
            guard present("params"), let params = sb_dict_get(value, "params"), sb_value_type(params) == SB_DICT || sb_value_type(params) == SB_NULL else {
                throw problem("no \"params\" (an object or null)")
            }
            if present("code") {
                guard string("code") != nil else { throw problem("\"code\" must be a string") }
            } else if !present("result") {
                throw problem("neither \"result\" nor \"code\"")
            }
            // Format 2 replays the script's steps: its calls' records are what the mediator saw.
            replayed = lineFormat == 1 && depth == 1
            nested = lineFormat == 1 && depth > 1
        }
        // Names as `switchboard run` allows them (text without control
        // characters, a scenario's at most 1024 bytes), and grouped by their
        // JSON, as bytes: two spellings of a name in Unicode, or 5 and "5",
        // are two groups, as they were two scenarios.
        func json(_ key: String) -> [UInt8] { Array((takeJSON(sb_json_encode(sb_dict_get(value, key))) ?? "").utf8) }
        for key in ["script", "scenario"] {
            if let v = sb_dict_get(value, key), sb_value_type(v) == SB_STRING {
                var length = 0
                guard let text = sb_value_get_string(v, &length) else { continue }
                let raw = UnsafeRawBufferPointer(start: text, count: length)
                if raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw problem("\"\(key)\" holds a control character") }
                if key == "scenario" && length > 1024 { throw problem("\"scenario\" is longer than 1024 bytes") }
            }
        }
        let script = string("script") ?? String(decoding: json("script"), as: UTF8.self)
        let scenario = string("scenario") ?? "(the script's top level)"
        let key = json("script") + [0] + json("scenario")
        let position: Int
        if let known = index[key] {
            position = known
        } else {
            position = scenarios.count
            index[key] = position
            scenarios.append(Scenario(script: script, name: scenario, scriptKey: json("script"),
                                      topLevel: string("scenario") == nil))
        }
        // A scenario's steps have one seq each (replay does one step a seq): a second is
        // an edit that would not be replayed. The top level is recorded once by each
        // process that ran it: its seqs repeat.
        if lineFormat >= 2, replayed, string("scenario") != nil, let seq = integer("seq") {
            if let first = scenarios[position].seqs[seq] {
                throw problem("a second step with \"seq\" \(seq) in this scenario (the first is line \(first))")
            }
            scenarios[position].seqs[seq] = number
        }
        if replayed {
            scenarios[position].calls.append(Call(line: number, text: bytes, name: name))
        } else if nested {
            scenarios[position].nested += 1
        }
    }

    /// A line's format: 1 (no "trace" field; or 1) or 2; a newer one is refused, named.
    private static func format(_ value: Int64?, _ problem: (String) -> ValidationError) throws -> Int {
        guard let value, value >= 1 else { throw problem("\"trace\" (the trace's format) must be 1 or more") }
        guard value <= newestFormat else {
            throw problem("trace format \(value) is newer than this switchboard reads (formats 1 to \(newestFormat)): "
                          + "replay it with the switchboard that wrote it, or a newer one")
        }
        return Int(value)
    }
}
