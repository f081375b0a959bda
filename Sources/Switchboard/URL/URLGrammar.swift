/// The one pass over a URL's bytes that ``RemoteURL`` decodes from: it
/// checks every byte, splits `scheme://authority/path?query#fragment` the
/// way RFC 3986 (and swift-foundation's `URLComponents`, which this replaced)
/// splits it, and reports the first problem. Only the grammar URLs for the
/// mediator use is accepted; a differential test keeps it equal to
/// `URLComponents` on what both accept, and stricter where that one repairs.
///
/// Grammar (bytes; `%XX` is a valid escape everywhere it is allowed):
///
///     url       = scheme "://" authority path [ "?" query ] [ "#" fragment ]
///     scheme    = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
///     authority = [ userinfo "@" ] host [ ":" *DIGIT ]     userinfo: up to the last "@"
///     host      = 1*( unreserved / sub-delims / %XX )
///               / "[" *( unreserved / sub-delims / ":" ) [ "%25" 1*( unreserved / %XX ) ] "]"
///     path      = *( "/" segment )                         up to "?" or "#"
///     query     = anything up to "#"; fragment: anything
///
/// No byte may be a control, a space, DEL or beyond ASCII, and every `%`
/// starts two hex digits, wherever it is. A path or query holding a byte
/// RFC 3986 leaves out of it (`"` `<` `>` `\` `^` `` ` `` `{` `|` `}` `[`
/// `]`) is taken literally, its escapes included, as `URLComponents` gave
/// it (it escaped the whole part again, `%` too).
struct URLGrammar {
    var scheme = 0..<0
    var host = 0..<0
    /// A user, a password (even empty: `app://@h/`) or a port that fits an Int.
    var hasUserOrPort = false
    var path = 0..<0
    var query = 0..<0
    /// Whether the path or query holds bytes RFC 3986 leaves out, so its
    /// escapes are not decoded.
    var literalPath = false
    var literalQuery = false
    /// Whether the URL holds any `%` escape (else nothing needs decoding).
    var escapes = false

    /// The parts of `bytes`, or the problem to report (`quoted` shows the URL).
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, quoted: () -> String) -> Result<URLGrammar, SwitchboardError> {
        var parts = URLGrammar()
        let end = bytes.count
        // Every byte first, so a forbidden byte is reported wherever it is.
        var i = 0
        while i < end {
            let byte = bytes[i]
            if byte <= 0x20 || byte >= 0x7F {
                return .failure(.badURL("the URL contains " + describe(byte)))
            }
            if byte == UInt8(ascii: "%") {
                guard i + 2 < end, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else {
                    return .failure(.badURL("the URL contains an invalid percent escape at byte \(i)"))
                }
                parts.escapes = true
                i += 3
                continue
            }
            i += 1
        }
        // Scheme: up to the first ":", unless a delimiter comes first.
        i = 0
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: ":") { break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "@") {
                i = end
                break
            }
            i += 1
        }
        guard i > 0 && i < end else { return .failure(.badURL("the URL has no scheme: " + quoted())) }
        guard isLetter(bytes[0]), (1..<i).allSatisfy({ allowed(bytes[$0], .scheme) }) else {
            return .failure(.badURL("malformed URL " + quoted()))
        }
        parts.scheme = 0..<i
        i += 1
        guard i + 1 < end, bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") else {
            return .failure(.badURL("the URL has no host (the target): " + quoted()))
        }
        i += 2

        // Authority: up to "/", "?" or "#"; userinfo up to its last "@".
        let authorityStart = i
        var lastAt = -1
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { lastAt = i }
            i += 1
        }
        let authorityEnd = i
        let hostStart = lastAt >= 0 ? lastAt + 1 : authorityStart
        parts.hasUserOrPort = lastAt >= 0
        var hostEnd = authorityEnd
        var portStart = authorityEnd
        if hostStart < authorityEnd && bytes[hostStart] == UInt8(ascii: "["),
           let close = (hostStart..<authorityEnd).first(where: { bytes[$0] == UInt8(ascii: "]") }) {
            hostEnd = close + 1
            if hostEnd < authorityEnd {
                guard bytes[hostEnd] == UInt8(ascii: ":") else { return .failure(.badURL("malformed URL " + quoted())) }
                portStart = hostEnd + 1
            }
            guard validIPLiteral(bytes, hostStart + 1, close) else { return .failure(.badURL("malformed URL " + quoted())) }
        } else {
            var k = hostStart
            while k < authorityEnd && bytes[k] != UInt8(ascii: ":") { k += 1 }
            hostEnd = k
            portStart = min(k + 1, authorityEnd)
            // A host RFC 3986 does not allow is refused (URLComponents sends
            // it through IDNA when Foundation is loaded, which refuses it).
            guard (hostStart..<hostEnd).allSatisfy({ allowed(bytes[$0], .host) }) else {
                return .failure(.badURL("malformed URL " + quoted()))
            }
        }
        guard hostEnd > hostStart else {
            return .failure(.badURL("the URL has no host (the target): " + quoted()))
        }
        parts.host = hostStart..<hostEnd
        if portStart < authorityEnd {
            // The port itself is not kept: it only refuses the URL for targets.
            var value = 0
            var fits = true
            for k in portStart..<authorityEnd {
                let byte = bytes[k]
                guard isDigit(byte) else { return .failure(.badURL("malformed URL " + quoted())) }
                if fits {
                    let (times, o1) = value.multipliedReportingOverflow(by: 10)
                    let (plus, o2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                    fits = !o1 && !o2
                    value = plus
                }
            }
            // A port too large for an Int was no port for URLComponents.
            if fits { parts.hasUserOrPort = true }
        }

        // Path: up to "?" or "#".
        let pathStart = i
        var literal = false
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            literal = literal || !allowed(byte, .path)
            i += 1
        }
        parts.path = pathStart..<i
        parts.literalPath = literal
        guard i < end, bytes[i] == UInt8(ascii: "?") else {
            parts.query = i..<i
            return .success(parts)
        }
        i += 1
        let queryStart = i
        literal = false
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "#") { break }
            literal = literal || !allowed(byte, .query)
            i += 1
        }
        parts.query = queryStart..<i
        parts.literalQuery = literal
        return .success(parts)
    }

    /// The inside of `[...]`: address characters, then optionally a zone
    /// (`%25` and unreserved characters or escapes).
    private static func validIPLiteral(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var k = start
        while k < end && bytes[k] != UInt8(ascii: "%") {
            guard allowed(bytes[k], .ipLiteral) else { return false }
            k += 1
        }
        guard k < end else { return true }
        guard k + 2 < end, bytes[k + 1] == UInt8(ascii: "2"), bytes[k + 2] == UInt8(ascii: "5") else { return false }
        k += 3
        while k < end {
            if bytes[k] == UInt8(ascii: "%") {
                k += 3 // two hex digits: checked with every byte
                continue
            }
            guard allowed(bytes[k], .zone) else { return false }
            k += 1
        }
        return k == end
    }

    // MARK: Bytes

    struct Class: OptionSet {
        let rawValue: UInt8
        static let scheme = Class(rawValue: 1)
        /// reg-name: unreserved and sub-delims (escapes apart).
        static let host = Class(rawValue: 2)
        /// pchar and "/".
        static let path = Class(rawValue: 4)
        /// pchar, "/" and "?".
        static let query = Class(rawValue: 8)
        /// unreserved, sub-delims and ":".
        static let ipLiteral = Class(rawValue: 16)
        /// unreserved.
        static let zone = Class(rawValue: 32)
    }

    /// Whether RFC 3986 allows `byte` in a part; `%` counts as allowed
    /// where escapes are (every escape was checked first).
    @inline(__always)
    static func allowed(_ byte: UInt8, _ part: Class) -> Bool {
        classes(byte).rawValue & part.rawValue != 0
    }

    @inline(__always)
    private static func classes(_ byte: UInt8) -> Class {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            [.scheme, .host, .path, .query, .ipLiteral, .zone]
        case UInt8(ascii: "+"):
            [.scheme, .host, .path, .query, .ipLiteral]
        case UInt8(ascii: "_"), UInt8(ascii: "~"):
            [.host, .path, .query, .ipLiteral, .zone]
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            [.host, .path, .query, .ipLiteral]
        case UInt8(ascii: ":"):
            [.path, .query, .ipLiteral]
        case UInt8(ascii: "@"), UInt8(ascii: "/"):
            [.path, .query]
        case UInt8(ascii: "?"):
            [.query]
        case UInt8(ascii: "%"):
            [.host, .path, .query]
        default:
            []
        }
    }

    @inline(__always)
    static func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    @inline(__always)
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0: "a NUL byte"
        case 0x20: "a space"
        case 0x80...: "a non-ASCII character (percent-encode it)"
        default: "a control character (0x\(String(byte, radix: 16)))"
        }
    }
}
