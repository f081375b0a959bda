import ArgumentParser
import Switchboard

/// A --trace file read for `switchboard graph`: every line checked (JSON, a
/// trace record) before anything is drawn, and the records grouped by the
/// script and scenario that made them, in file order (a scenario's records
/// come from its one process, in the order its calls ended).
struct GraphTrace {
    /// A name as the trace holds it: bytes (one that is not UTF-8 is
    /// written as {"$bytes": hex}), compared as bytes.
    typealias Name = [UInt8]

    /// What answered a call that succeeded, when not the action it named
    /// (the trace's `answered_by`).
    enum Fallback: String {
        case notFound, noTargetAction = "NoTargetAction", other
    }

    struct Record {
        let isOpen: Bool
        let depth: Int
        /// Where the call went: nil for a URL that resolved to no action.
        let target: Name?
        let action: Name?
        let url: Name?
        /// The failure's code; nil when the call succeeded.
        let code: Name?
        let fallback: Fallback?
    }

    struct Scenario {
        let script: Name
        var records: [Record] = []
    }

    private(set) var scenarios: [Scenario] = []

    /// Reads `path`; a line that is not a trace record is a usage error naming it.
    init(path: String) throws {
        var index: [[UInt8]: Int] = [:]
        try TraceLines.read(path) { line, number in
            guard let (script, scenario, record) = try Self.record(line, problem: { what in
                ValidationError(visible("\(path) line \(number): \(what) (switchboard run --trace writes one JSON object a line)"))
            }) else { return } // a step of the script's (format 2), for replay
            let key = script + [0] + scenario
            if index[key] == nil {
                index[key] = scenarios.count
                scenarios.append(Scenario(script: script))
            }
            scenarios[index[key]!].records.append(record)
        }
    }

    /// One line: its script, its scenario (as a key), its record; nil for
    /// a line that records a step of the script's, not a call (format 2).
    private static func record(_ line: [UInt8], problem: (String) -> ValidationError) throws
        -> (Name, [UInt8], Record)? {
        if let nul = line.firstIndex(of: 0) { throw problem("a NUL byte at byte \(nul + 1)") }
        guard let text = String(validating: line, as: UTF8.self) else { throw problem("not UTF-8") }
        let value: Value
        do { value = try Value(json: text) } catch { throw problem("not JSON: \(error.message)") }
        guard case .dict = value else { throw problem("not a JSON object") }
        if let format = value["trace"] {
            guard let n = format.int, n == 1 || n == 2 else {
                throw problem("\"trace\" names a format this build does not read (1 and 2 it does)")
            }
        }
        if value["call"] == nil && value["op"] != nil { return nil }
        func name(_ key: String) throws -> Name? {
            switch value[key] {
            case nil, .null?: return nil
            case .string(let s)?: return Array(s.utf8)
            case .bytes(let b)?: return b
            default: throw problem("\"\(key)\" must be a string")
            }
        }
        guard let script = try name("script") else {
            throw problem("no \"script\": not a trace, or one written before traces named their script (record it again)")
        }
        guard let depth = value["depth"]?.int, depth >= 1, depth <= Int64(Int32.max) else {
            throw problem("no \"depth\" (an integer, 1 or more): not a trace, or one written before traces recorded depths (record it again)")
        }
        let scenario: [UInt8]
        switch value["scenario"] {
        case .null?: scenario = [0] // the top level: no name is one NUL byte
        case .string(let s)?: scenario = [1] + Array(s.utf8)
        default: throw problem("no \"scenario\" (a string, or null for a script's top level)")
        }
        let isOpen: Bool
        switch value["call"]?.string {
        case "perform"?: isOpen = false
        case "open"?: isOpen = true
        default: throw problem("\"call\" must be \"perform\" or \"open\"")
        }
        let target = try name("target"), action = try name("action"), url = try name("url")
        if isOpen {
            guard url != nil else { throw problem("an open record needs a \"url\" string") }
        } else {
            guard target != nil, action != nil else { throw problem("a perform record needs \"target\" and \"action\" strings") }
        }
        let code = try name("code")
        if code == nil && value["result"] == nil { throw problem("neither \"result\" nor \"code\"") }
        var fallback: Fallback?
        if let by = value["answered_by"] {
            guard let known = by.string.flatMap(Fallback.init(rawValue:)) else {
                throw problem("\"answered_by\" must be \"notFound\", \"NoTargetAction\" or \"other\"")
            }
            fallback = known
        }
        let resolved = target != nil && action != nil
        return (script, scenario, Record(isOpen: isOpen, depth: Int(depth), target: resolved ? target : nil,
                                         action: resolved ? action : nil, url: url, code: code,
                                         fallback: code == nil ? fallback : nil))
    }
}
