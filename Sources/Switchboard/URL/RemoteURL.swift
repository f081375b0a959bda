/// A URL that passed validation, decoded into the parts routing needs.
///
/// The mediator's URL grammar splits it in one pass over its bytes and
/// refuses what it does not allow; this decodes the parts strictly: every
/// escape must decode to UTF-8 without NUL bytes, and there must be a host.
/// Anything else is `.badURL` with a message naming the problem.
///
/// Decoding rules (documented in the README):
/// - the scheme is compared in lower case; the host and each path segment
///   are percent-decoded separately, so `%2F` stays inside its segment;
/// - the query is split on `&` and the first `=`; keys and values are
///   percent-decoded; `+` is a literal plus (RFC 3986), not a space;
/// - a key without `=` has the value `""`; a repeated key gives an array of
///   its values in order; empty pairs (`&&`) are skipped;
/// - the fragment is ignored.
public struct RemoteURL: Sendable, Equatable {
    /// The URL as given.
    public let string: String
    /// ASCII lower case (the grammar admits only ASCII in a scheme).
    public let scheme: String
    /// Decoded; never empty.
    public let host: String
    /// Decoded path segments, without empty ones (`/a//b` is refused; one
    /// trailing slash, `/a/`, is dropped).
    public var segments: [String] {
        switch path {
        case .none: []
        case .one(let segment): [segment]
        case .many(let segments): segments
        }
    }
    /// How many segments there are, without making the array.
    var segmentCount: Int {
        switch path {
        case .none: 0
        case .one: 1
        case .many(let segments): segments.count
        }
    }
    /// The first segment, if any, without making the array.
    var firstSegment: String? {
        switch path {
        case .none: nil
        case .one(let segment): segment
        case .many(let segments): segments.first
        }
    }
    /// The segments; most URLs have one (`app://target/action`), kept
    /// without an array of its own.
    private let path: Path
    private enum Path: Equatable {
        case none, one(String), many([String])
    }
    /// Decoded query: each value a string, or an array of strings.
    public let query: Params
    /// Whether the URL has a user, password or port (refused for targets).
    public let hasUserOrPort: Bool

    /// URLs longer than this are refused (64 KiB - 1).
    public static let maximumLength = 65_535
    /// Path segments beyond this many are refused.
    public static let maximumSegments = 64

    /// Parses and decodes `string` by the rules above; `.badURL` naming the
    /// problem when it breaks them or is longer than `maximumLength`.
    public init(_ string: String) throws(SwitchboardError) {
        self.string = string
        try Self.checkLength(string)
        guard !string.isEmpty else { throw .badURL("the URL is empty") }
        var text = string
        let parsed = text.withUTF8 { bytes in Self.parse(bytes, string) }
        switch parsed {
        case .success(let parts):
            (scheme, host, path, query, hasUserOrPort) = parts
        case .failure(let error):
            throw error
        }
    }

    private typealias Parts = (scheme: String, host: String, path: Path, query: Params, hasUserOrPort: Bool)

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ string: String) -> Result<Parts, SwitchboardError> {
        let grammar: URLGrammar
        switch URLGrammar.split(bytes, quoted: { quoted(string) }) {
        case .success(let split): grammar = split
        case .failure(let error): return .failure(error)
        }
        do throws(SwitchboardError) {
            let scheme = lowercased(bytes, grammar.scheme)
            let host = try decode(bytes, grammar.host, literal: false, what: "the host")
            let segments = try segments(bytes, grammar.path, literal: grammar.literalPath, string)
            let query = try query(bytes, grammar.query, literal: grammar.literalQuery)
            return .success((scheme, host, segments, query, grammar.hasUserOrPort))
        } catch {
            return .failure(error)
        }
    }

    /// A scheme's bytes in ASCII lower case.
    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let piece = UnsafeBufferPointer(rebasing: bytes[range])
        guard piece.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return String(decoding: piece, as: UTF8.self)
        }
        return String(decoding: piece.map(ASCII.lower), as: UTF8.self)
    }

    /// The decoded segments of `range` (empty, or starting with "/").
    private static func segments(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, literal: Bool,
                                 _ string: String) throws(SwitchboardError) -> Path {
        let slash = UInt8(ascii: "/")
        guard range.count > 1 else { return .none } // "" or "/"
        var end = range.upperBound
        var count = 0
        for k in range where bytes[k] == slash { count += 1 }
        // One trailing slash is no segment (CTMediator: app://A/act/).
        if count > 1 && bytes[end - 1] == slash {
            count -= 1
            end -= 1
        }
        guard count <= maximumSegments else {
            throw .badURL("the URL has \(count) path segments; the limit is \(maximumSegments)")
        }
        var segments: [String] = []
        var start = range.lowerBound + 1
        while start <= end {
            var stop = start
            while stop < end && bytes[stop] != slash { stop += 1 }
            guard stop > start else { throw .badURL("the URL has an empty path segment: \(quoted(string))") }
            let segment = try decode(bytes, start..<stop, literal: literal, what: "a path segment")
            if count == 1 { return .one(segment) }
            if segments.isEmpty { segments.reserveCapacity(count) }
            segments.append(segment)
            start = stop + 1
        }
        return .many(segments)
    }

    /// The decoded query. Linear in its length: a key's first value goes in
    /// place, and a repeated key's values are collected in one array
    /// (appended, never copied), set once at the end.
    private static func query(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>,
                              literal: Bool) throws(SwitchboardError) -> Params {
        var query = Params()
        var repeated: [Int: [Value]] = [:] // by position in `query`; empty unless a key repeats
        var start = range.lowerBound
        while start < range.upperBound {
            var stop = start
            var equals = -1
            while stop < range.upperBound && bytes[stop] != UInt8(ascii: "&") {
                if equals < 0 && bytes[stop] == UInt8(ascii: "=") { equals = stop }
                stop += 1
            }
            if stop > start { // empty pairs (&&) are skipped
                let key = try decode(bytes, start..<(equals < 0 ? stop : equals), literal: literal, what: "a query key")
                let value = Value.string(try decode(bytes, equals < 0 ? stop..<stop : (equals + 1)..<stop,
                                                    literal: literal, what: "the value of \(key)"))
                if let at = query.position(of: key) {
                    repeated[at, default: [query[at].value]].append(value)
                } else {
                    query.appendDistinct(key, value)
                }
            }
            start = stop + 1
        }
        for (at, values) in repeated { query.updateValue(.array(values), forKey: query[at].key) }
        return query
    }

    /// Strict percent-decoding of a part of a URL that passed
    /// ``URLGrammar`` (so every escape has its two hex digits): the bytes
    /// must be UTF-8 without a NUL. A `literal` part is taken as it is.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, literal: Bool,
                               what: @autoclosure () -> String) throws(SwitchboardError) -> String {
        let piece = UnsafeBufferPointer(rebasing: bytes[range])
        if literal || !piece.contains(UInt8(ascii: "%")) { return String(decoding: piece, as: UTF8.self) }
        let decoded: Result<String, DecodeFailure> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: piece.count) {
            out in
            let (n, sawNUL) = unescape(piece, into: out.baseAddress!)
            guard let string = String(validating: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self) else {
                return .failure(.notUTF8)
            }
            return sawNUL ? .failure(.nul) : .success(string)
        }
        switch decoded {
        case .success(let string):
            return string
        case .failure(.notUTF8):
            throw .badURL("\(what()) \(quoted(String(decoding: piece, as: UTF8.self))) does not decode to UTF-8")
        case .failure(.nul):
            throw .badURL("\(what()) \(quoted(String(decoding: piece, as: UTF8.self))) decodes to a NUL byte")
        }
    }

    private enum DecodeFailure: Error { case notUTF8, nul }

    /// The bytes `piece` stands for (every escape has its two hex digits:
    /// ``URLGrammar`` checked them), written to `out`, which has room for
    /// `piece.count`: how many, and whether one of them is a NUL.
    static func unescape(_ piece: UnsafeBufferPointer<UInt8>,
                         into out: UnsafeMutablePointer<UInt8>) -> (count: Int, sawNUL: Bool) {
        var n = 0
        var k = 0
        var sawNUL = false
        while k < piece.count {
            var byte = piece[k]
            if byte == UInt8(ascii: "%") {
                byte = URLGrammar.hexValue(piece[k + 1])! << 4 | URLGrammar.hexValue(piece[k + 2])!
                k += 3
            } else {
                k += 1
            }
            sawNUL = sawNUL || byte == 0
            out[n] = byte
            n += 1
        }
        return (n, sawNUL)
    }

    /// `.badURL` when `string` is over ``maximumLength``: the first check
    /// of every URL entry, before any work proportional to the text
    /// (verifying a signature, applying rules, parsing).
    static func checkLength(_ string: String) throws(SwitchboardError) {
        let length = string.utf8.count
        guard length <= maximumLength else {
            throw .badURL("the URL is \(length) bytes; the limit is \(maximumLength)")
        }
    }

    /// `text` in the normal form of RFC 3986 (6.2.2), which names the same
    /// resource: the scheme in lower case, escapes of unreserved characters
    /// decoded (`%4F` is `O`, `%7E` is `~`), other escapes' hex digits in
    /// upper case. What is not a valid escape is left for the parser to
    /// refuse. URL rules match this form, so no spelling slips past them.
    static func normalized(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? 0
        let scheme = bytes[..<schemeEnd]
        let lowerScheme = scheme.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "+")
            || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
        guard bytes.contains(UInt8(ascii: "%")) || (lowerScheme && scheme.contains(where: { (65...90).contains($0) }))
        else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if i < schemeEnd {
                out.append(lowerScheme ? ASCII.lower(byte) : byte)
                i += 1
                continue
            }
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count, let high = URLGrammar.hexValue(bytes[i + 1]),
               let low = URLGrammar.hexValue(bytes[i + 2]) {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out += [byte, ASCII.upper(bytes[i + 1]), ASCII.upper(bytes[i + 2])]
                }
                i += 3
                continue
            }
            out.append(byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// A URL (or part) for a message: quoted, and cut short if long.
    static func quoted(_ text: String) -> String {
        let shown = text.utf8.count > 120 ? String(text.prefix(120)) + "…" : text
        return Value.string(shown).description
    }

    /// Strict percent-decoding of text that is not a whole URL (a route
    /// pattern's segment): every `%` must start two hex digits, and the
    /// bytes must be UTF-8 without a NUL.
    static func decode(_ encoded: String, what: String) throws(SwitchboardError) -> String {
        var text = encoded
        let result: Result<String, SwitchboardError> = text.withUTF8 { bytes in
            var k = 0
            while k < bytes.count {
                if bytes[k] == UInt8(ascii: "%") {
                    guard k + 2 < bytes.count, URLGrammar.isHex(bytes[k + 1]), URLGrammar.isHex(bytes[k + 2]) else {
                        return .failure(.badURL("\(what) \(quoted(encoded)) has an invalid percent escape"))
                    }
                    k += 3
                } else {
                    k += 1
                }
            }
            do throws(SwitchboardError) {
                return .success(try decode(bytes, 0..<bytes.count, literal: false, what: what))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
