#if canImport(Glibc)
import Glibc
#endif

/// One shard's JUnit report, as `run --shard --junit` writes it, read back
/// for `switchboard report merge`. Only that writer's output is accepted:
/// its text never holds a raw '<' or '>' (JUnitReport escapes them), so the
/// elements are found by their tags, and anything else is refused.
struct ShardReport {
    struct Case {
        let script: String
        let kind: JUnitReport.CaseKind
        let seconds: Double
        let xml: String // the whole <testcase> element, with its indentation and newline
    }

    let path: String
    let index: Int
    let count: Int
    let selected: Int
    let digest: String
    private(set) var cases: [Case] = []

    static let sizeLimit = 1 << 30

    init(path: String) throws {
        self.path = path
        let text = try Self.read(path)
        func refuse(_ why: String) -> CommandFailure { CommandFailure("the report \(path): \(why)") }
        let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\""
        guard text.hasPrefix(prolog), text.hasSuffix("</testsuites>\n"),
              let open = text[text.index(text.startIndex, offsetBy: prolog.count)...].firstRange(of: ">\n") else {
            throw refuse("not a JUnit report written by switchboard run --junit")
        }
        let header = text[..<open.lowerBound] // the <testsuites> tag
        guard let name = Self.attribute("name", in: header),
              let mark = Self.shardMark(name) else {
            throw refuse("not the report of one shard (it was not written by run --shard K/N --junit)")
        }
        (index, count, selected, digest) = mark
        guard let declared = Self.attribute("tests", in: header).flatMap({ Int($0) }) else {
            throw refuse("its <testsuites> element has no test count")
        }
        if text.contains("<testsuite name=\"switchboard run\"") {
            throw refuse("its run did not finish (the report says so): run that shard again")
        }
        var rest = text[open.upperBound...]
        while let start = rest.firstRange(of: "    <testcase ") {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { throw refuse("a <testcase> is cut short") }
            let tag = rest[start.lowerBound...end]
            var close = rest.index(after: end)
            var body: Substring = ""
            if rest[rest.index(before: end)] != "/" {
                guard let closing = rest[close...].firstRange(of: "</testcase>") else { throw refuse("a <testcase> is not closed") }
                body = rest[close..<closing.lowerBound]
                close = closing.upperBound
            }
            guard rest[close...].hasPrefix("\n") else { throw refuse("a <testcase> is followed by something else") }
            close = rest.index(after: close)
            guard let script = Self.attribute("classname", in: tag).map(Self.unescaped),
                  let seconds = Self.attribute("time", in: tag).flatMap(Double.init), seconds >= 0, seconds.isFinite else {
                throw refuse("a <testcase> lacks its classname or time")
            }
            let kind: JUnitReport.CaseKind = body.contains("<failure ") ? .failure : body.contains("<error ") ? .error
                : body.contains("<skipped ") ? .skipped : .passed
            cases.append(Case(script: script, kind: kind, seconds: seconds, xml: String(rest[start.lowerBound..<close])))
            rest = rest[close...]
        }
        guard cases.count == declared else {
            throw refuse("it holds \(cases.count) test cases where its header counts \(declared): it was changed or cut")
        }
    }

    /// Every part 1..N of one selection, each once, holding together all
    /// it selected.
    static func checkComplete(_ parts: [ShardReport]) throws {
        guard let first = parts.first else { return }
        var seen: [Int: String] = [:]
        for part in parts {
            guard part.count == first.count, part.selected == first.selected, part.digest == first.digest else {
                throw CommandFailure("the report \(part.path) is shard \(part.index)/\(part.count) of another selection than "
                                     + "\(first.path) (\(part.selected) scenarios selected, digest \(part.digest), where "
                                     + "\(first.path) has \(first.selected), \(first.digest)): run every shard with the same "
                                     + "scripts and selection options")
            }
            if let other = seen[part.index] {
                throw CommandFailure("shard \(part.index)/\(part.count) is given twice: \(other) and \(part.path)")
            }
            seen[part.index] = part.path
        }
        let missing = (1...first.count).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            let shown = missing.prefix(10).map { "\($0)/\(first.count)" }.joined(separator: ", ")
            throw CommandFailure("shard\(missing.count == 1 ? "" : "s") \(shown)\(missing.count > 10 ? " ..." : "") "
                                 + "missing: every part 1..\(first.count) must be given once")
        }
        let total = parts.reduce(0) { $0 + $1.cases.count }
        guard total == first.selected else {
            throw CommandFailure("the shards hold \(total) test cases, where \(first.selected) scenarios were selected")
        }
    }

    /// "switchboard shard K/N of S selected DIGEST".
    private static func shardMark(_ name: String) -> (Int, Int, Int, String)? {
        let words = name.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 7, words[0] == "switchboard", words[1] == "shard", words[3] == "of", words[5] == "selected",
              words[6].utf8.count == 16, words[6].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let shard = try? Shard(parsing: String(words[2])),
              words[4].utf8.count <= 12, words[4].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let selected = Int(words[4]) else { return nil }
        return (shard.index, shard.count, selected, String(words[6]))
    }

    /// The value of `key="..."` in an opening tag, still escaped.
    private static func attribute(_ key: String, in tag: Substring) -> String? {
        guard let start = tag.firstRange(of: " \(key)=\"") else { return nil }
        let value = tag[start.upperBound...]
        guard let end = value.firstIndex(of: "\"") else { return nil }
        return String(value[..<end])
    }

    /// An attribute's text as JUnitReport escaped it.
    static func unescaped(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = String.UnicodeScalarView()
        var rest = Substring(s)
        while let amp = rest.firstIndex(of: "&") {
            out.append(contentsOf: rest[..<amp].unicodeScalars)
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            var scalar: Unicode.Scalar?
            switch entity {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init) }
            }
            if let scalar { out.append(scalar) } else { out.append(contentsOf: rest[amp...semi].unicodeScalars) }
            rest = rest[rest.index(after: semi)...]
        }
        out.append(contentsOf: rest.unicodeScalars)
        return String(out)
    }

    private static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else {
            throw CommandFailure("the report \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes += buffer[..<n]
            guard bytes.count <= sizeLimit else { throw CommandFailure("the report \(path): larger than 1 GiB") }
        }
        guard ferror(file) == 0 else { throw CommandFailure("the report \(path): cannot be read") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("the report \(path): not UTF-8 text")
        }
        return text
    }
}

extension RunInputs {
    init(files: [(what: String, path: String)]) {
        self.files = files
    }
}
