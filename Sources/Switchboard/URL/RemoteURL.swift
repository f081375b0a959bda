// URLComponents: from swift-foundation's FoundationEssentials where the
// toolchain has it on its own (Linux), from Foundation otherwise (Apple).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A URL that passed validation, decoded into the parts routing needs.
///
/// Parsing uses swift-foundation's `URLComponents` to split scheme,
/// authority, path and query (RFC 3986), then checks what that parser lets
/// through: every percent escape must be valid and decode to UTF-8 without
/// NUL bytes, and there must be a host. Anything else is `.badURL` with a
/// message naming the problem.
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
    /// ASCII lower case (URLComponents admits only ASCII in a scheme).
    public let scheme: String
    /// Decoded; never empty.
    public let host: String
    /// Decoded path segments, without empty ones (`/a//b` is refused; one
    /// trailing slash, `/a/`, is dropped).
    public let segments: [String]
    /// Decoded query: each value a string, or an array of strings.
    public let query: Params
    /// Whether the URL has a user, password or port (refused for targets).
    public let hasUserOrPort: Bool

    /// URLs longer than this are refused (64 KiB - 1).
    public static let maximumLength = 65_535
    /// Path segments beyond this many are refused.
    public static let maximumSegments = 64

    public init(_ string: String) throws(SwitchboardError) {
        self.string = string
        try Self.checkLength(string)
        guard !string.isEmpty else { throw .badURL("the URL is empty") }
        if let problem = Self.forbiddenCharacter(in: string) { throw .badURL("the URL contains \(problem)") }
        guard let parts = URLComponents(string: string) else { throw .badURL("malformed URL \(Self.quoted(string))") }
        guard let scheme = parts.scheme, !scheme.isEmpty else { throw .badURL("the URL has no scheme: \(Self.quoted(string))") }
        self.scheme = scheme.asciiLowercased
        guard let encodedHost = parts.percentEncodedHost, !encodedHost.isEmpty else {
            throw .badURL("the URL has no host (the target): \(Self.quoted(string))")
        }
        host = try Self.decode(encodedHost, what: "the host")
        hasUserOrPort = parts.percentEncodedUser != nil || parts.percentEncodedPassword != nil || parts.port != nil

        // Split and decode on UTF-8 bytes: String.split compares Characters
        // (grapheme clusters), which the profile showed as most of a parse.
        var segments: [String] = []
        let path = Array(parts.percentEncodedPath.utf8)
        if !path.isEmpty && path != [UInt8(ascii: "/")] {
            var pieces = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            // One trailing slash is no segment (CTMediator: app://A/act/).
            if pieces.count > 1, pieces.last!.isEmpty { pieces.removeLast() }
            guard pieces.count <= Self.maximumSegments else {
                throw .badURL("the URL has \(pieces.count) path segments; the limit is \(Self.maximumSegments)")
            }
            for piece in pieces {
                guard !piece.isEmpty else { throw .badURL("the URL has an empty path segment: \(Self.quoted(string))") }
                segments.append(try Self.decode(piece, what: "a path segment"))
            }
        }
        self.segments = segments

        query = try Self.query(Array((parts.percentEncodedQuery ?? "").utf8))
    }

    /// The decoded query. Linear in its length: a key's first value goes in
    /// place, and a repeated key's values are collected in one array
    /// (appended, never copied), set once at the end.
    private static func query(_ encoded: [UInt8]) throws(SwitchboardError) -> Params {
        var query = Params()
        var repeated: [Int: [Value]] = [:] // by position in `query`; empty unless a key repeats
        for pair in encoded.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let key = try decode(pair[..<(equals ?? pair.endIndex)], what: "a query key")
            let value = Value.string(try decode(equals.map { pair[($0 + 1)...] } ?? [], what: "the value of \(key)"))
            if let at = query.position(of: key) {
                repeated[at, default: [query[at].value]].append(value)
            } else {
                query.appendDistinct(key, value)
            }
        }
        for (at, values) in repeated { query.updateValue(.array(values), forKey: query[at].key) }
        return query
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
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexValue(bytes[i + 1]),
               let low = hexValue(bytes[i + 2]) {
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

    /// Strict percent-decoding (URLComponents' getters are lenient: they
    /// leave a bad escape in place or give nil): every `%` must start two hex
    /// digits, and the bytes must be UTF-8 without a NUL.
    static func decode(_ encoded: String, what: String) throws(SwitchboardError) -> String {
        try decode(Array(encoded.utf8)[...], what: what)
    }

    static func decode(_ encoded: ArraySlice<UInt8>, what: @autoclosure () -> String) throws(SwitchboardError) -> String {
        guard encoded.contains(UInt8(ascii: "%")) else { return String(decoding: encoded, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .badURL("\(what()) \(Self.quoted(String(decoding: encoded, as: UTF8.self))) has an invalid percent escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .badURL("\(what()) \(Self.quoted(String(decoding: encoded, as: UTF8.self))) does not decode to UTF-8")
        }
        if bytes.contains(0) {
            throw .badURL("\(what()) \(Self.quoted(String(decoding: encoded, as: UTF8.self))) decodes to a NUL byte")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// What RFC 3986 never allows in a URL: controls, space, DEL, bytes
    /// beyond ASCII (which must be percent-encoded), and a `%` that does not
    /// start two hex digits. Checked on the raw text because URLComponents
    /// quietly re-encodes a bad escape (`%ZZ` becomes `%25ZZ`).
    private static func forbiddenCharacter(in string: String) -> String? {
        let bytes = Array(string.utf8)
        for (i, byte) in bytes.enumerated() {
            switch byte {
            case 0: return "a NUL byte"
            case 1..<0x20, 0x7F: return "a control character (0x\(String(byte, radix: 16)))"
            case 0x20: return "a space"
            case 0x80...: return "a non-ASCII character (percent-encode it)"
            case UInt8(ascii: "%"):
                guard i + 2 < bytes.count, hexValue(bytes[i + 1]) != nil, hexValue(bytes[i + 2]) != nil else {
                    return "an invalid percent escape at byte \(i)"
                }
            default: continue
            }
        }
        return nil
    }
}
