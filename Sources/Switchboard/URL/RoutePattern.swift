/// A URL pattern that maps URLs to a target and action (JLRoutes,
/// URLNavigator and MGJRouter style).
///
///     app://user/:id/profile           :id (or <id>, <string:id>) matches one segment, as a string
///     app://item/<int:id>              <int:id> matches one integer segment
///     app://price/<float:p>            <float:p> matches one decimal number, as a double
///     app://order/<uuid:id>            <uuid:id> matches one UUID, in lower case
///     app://hello/<greeting:name>      a converter registered as "greeting" decides
///     app://files/<path:rest>          <path:rest> matches the rest (one or more
///                                      segments), captured as "a/b/c"
///     app://web/*                      * matches any rest (zero or more
///                                      segments), captured as an array under "*"
///     app://user/:id(/:tab)            a group in parentheses is optional
///     app://(rest/):object/:id         anywhere, if it holds whole segments
///
/// The first segment after `scheme://` is the host; `<path:>` and `*` may
/// stand for it (`https://<path:url>`). Captured values are added to the
/// call's params under their names. Precedence, segment by segment from the
/// left: a literal beats `<int:>`, then `<float:>`, `<uuid:>`, converters
/// (in the byte order of their names), `:name`, `<path:>` and `*`. Two
/// registrations of the same shape would match the same URLs with equal
/// precedence: the second is refused (MGJRouter and URLNavigator let the
/// later one win silently).
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case string(String)
        case int(String)
        case float(String)
        case uuid(String)
        /// A placeholder whose converter is registered by `type`.
        case custom(type: String, name: String)
        case path(String)
        case wildcard
    }

    /// The pattern as written (one expansion of its optional groups).
    public let description: String
    let scheme: String
    let segments: [Segment]

    /// The names values are captured under, in segment order.
    var captureNames: [String] {
        segments.compactMap {
            switch $0 {
            case .literal: nil
            case .string(let n), .int(let n), .float(let n), .uuid(let n), .path(let n), .custom(_, let n): n
            case .wildcard: "*"
            }
        }
    }

    /// The converter types the pattern names.
    var converterTypes: [String] {
        segments.compactMap { if case .custom(let type, _) = $0 { type } else { nil } }
    }

    /// At most this many optional groups in one pattern: each doubles the
    /// expansions, and each expansion is a path of the trie (2^4 = 16).
    static let maximumGroups = 4

    /// Patterns longer than this are refused: the longest URL.
    static let maximumLength = RemoteURL.maximumLength

    /// The placeholder types the router knows itself.
    static let builtinTypes: Set<String> = ["string", "int", "float", "uuid", "path"]

    /// Parses `text`, expanding optional groups: one pattern per expansion.
    static func parse(_ text: String) throws(SwitchboardError) -> [RoutePattern] {
        let (scheme, body) = try split(text)
        let expansions = try expand(body, in: text)
        // Each part after the host takes at least one path segment: a
        // longer pattern could never match a URL, so it is refused here.
        if let longest = expansions.map({ $0.count - 1 }).max(), longest > RemoteURL.maximumSegments {
            throw .invalidArgument("pattern \(Value.string(text)) has \(longest) path segments\(expansions.count > 1 ? " with its optional groups" : ""); "
                                   + "a URL has at most \(RemoteURL.maximumSegments), so no URL could match it")
        }
        return try expansions.map { parts throws(SwitchboardError) in
            try RoutePattern(text: "\(scheme)://" + parts.joined(separator: "/"), scheme: scheme, parts: parts)
        }
    }

    /// The scheme (lower case) and the bytes after `://`, refusing what no
    /// URL spelled the same way could match.
    private static func split(_ text: String) throws(SwitchboardError) -> (String, [UInt8]) {
        // The length first, before any work proportional to the text.
        guard text.utf8.count <= maximumLength else {
            throw .invalidArgument("the pattern is \(text.utf8.count) bytes; the limit is \(maximumLength), as for a URL")
        }
        // By bytes: a combining mark after "://" must not hide it.
        let bytes = Array(text.utf8)
        guard let at = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual("://".utf8) }) else {
            throw .invalidArgument("pattern \(Value.string(text)) has no scheme://")
        }
        let scheme = String(decoding: bytes[..<at], as: UTF8.self).asciiLowercased
        do {
            try Mediator.check(scheme: scheme)
        } catch {
            throw .invalidArgument("pattern \(Value.string(text)) has an invalid scheme")
        }
        let body = Array(bytes[(at + 3)...])
        guard !body.isEmpty else {
            throw .invalidArgument("pattern \(Value.string(text)) has no host: for every URL of the scheme, write "
                                   + "\(Value.string(scheme + "://*")) (the host and the path, as an array under \"*\") "
                                   + "or give the scheme an unmatched-URL fallback")
        }
        // In a URL, "#" starts the fragment and "?" the query: a pattern
        // holding one could never match the URL spelled the same way.
        if body.contains(UInt8(ascii: "#")) {
            throw .invalidArgument("pattern \(Value.string(text)) contains \"#\", which starts a URL's fragment: no URL "
                                   + "written so reaches it (fragments are not routed); write %23 for a \"#\" in a segment")
        }
        if body.contains(UInt8(ascii: "?")) {
            throw .invalidArgument("pattern \(Value.string(text)) contains \"?\", which starts a URL's query: no URL "
                                   + "written so reaches it (query keys are params, never matched); write %3F for a \"?\" in a segment")
        }
        return (scheme, body)
    }

    /// Every expansion of `body`'s optional groups, as segment texts. A
    /// group holds whole segments, with a "/" on the side that joins it to
    /// its neighbours: `(/:tab)` after a segment, `(rest/)` before one,
    /// `(a/)(b/)` side by side. By bytes: "(", ")" and "/" are ASCII, which
    /// no byte of another character's UTF-8 equals.
    private static func expand(_ body: [UInt8], in text: String) throws(SwitchboardError) -> [[String]] {
        let slash = UInt8(ascii: "/"), open = UInt8(ascii: "("), close = UInt8(ascii: ")")
        // Pieces in order: text outside groups, and each group's text.
        var pieces: [(bytes: ArraySlice<UInt8>, optional: Bool)] = []
        var start = 0
        var groupStart: Int?
        for (i, byte) in body.enumerated() {
            if byte == open {
                guard groupStart == nil else { throw .invalidArgument("pattern groups cannot nest: \(Value.string(text))") }
                pieces.append((body[start..<i], false))
                groupStart = i + 1
            } else if byte == close {
                guard let from = groupStart else { throw .invalidArgument("unbalanced ')' in pattern \(Value.string(text))") }
                pieces.append((body[from..<i], true))
                groupStart = nil
                start = i + 1
            }
        }
        guard groupStart == nil else { throw .invalidArgument("unbalanced '(' in pattern \(Value.string(text))") }
        pieces.append((body[start...], false))

        let groups = pieces.filter(\.optional).count
        guard groups <= maximumGroups else {
            throw .invalidArgument("pattern \(Value.string(text)) has \(groups) optional groups; at most \(maximumGroups) "
                                   + "(each doubles the expansions: \(1 << maximumGroups)); register the longer forms as patterns of their own")
        }
        func wholeSegments() -> SwitchboardError {
            .invalidArgument("an optional group must hold whole segments, joined by \"/\" to what is next to it "
                             + "(\"(/:tab)\", \"(rest/)\"): \(Value.string(text))")
        }
        // Each piece as segments: a "/" that joins a piece to a group is a
        // separator, not an empty segment.
        var segmented: [(segments: [String], optional: Bool)] = []
        for (k, piece) in pieces.enumerated() {
            var bytes = piece.bytes
            let groupBefore = k > 0, groupAfter = k < pieces.count - 1 // pieces alternate around each group
            if piece.optional {
                // Joined on the left by its own "/" or by a boundary outside it.
                let before = pieces[k - 1].bytes, after = pieces[k + 1].bytes
                guard bytes.first == slash || before.isEmpty || before.last == slash else { throw wholeSegments() }
                guard bytes.last == slash || after.isEmpty || after.first == slash else { throw wholeSegments() }
                if bytes.first == slash { bytes = bytes.dropFirst() }
                if bytes.last == slash { bytes = bytes.dropLast() }
                guard !bytes.isEmpty else { throw .invalidArgument("an optional group holds no segment: \(Value.string(text))") }
            } else {
                if groupBefore, bytes.first == slash { bytes = bytes.dropFirst() }
                if groupAfter, bytes.last == slash { bytes = bytes.dropLast() }
                if bytes.isEmpty && (groupBefore || groupAfter) {
                    segmented.append(([], false))
                    continue
                }
            }
            let parts = bytes.split(separator: slash, omittingEmptySubsequences: false)
            guard parts.allSatisfy({ !$0.isEmpty }) else {
                throw .invalidArgument("pattern \(Value.string(text)) has an empty segment")
            }
            segmented.append((parts.map { String(decoding: $0, as: UTF8.self) }, piece.optional))
        }
        var variants: [[String]] = [[]]
        for piece in segmented {
            variants = piece.optional ? variants + variants.map { $0 + piece.segments } : variants.map { $0 + piece.segments }
        }
        guard variants.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidArgument("pattern \(Value.string(text)) can leave out every segment, and a URL always has a host: "
                                   + "keep one segment outside the groups")
        }
        return variants
    }

    private init(text: String, scheme: String, parts: [String]) throws(SwitchboardError) {
        description = text
        self.scheme = scheme
        var segments: [Segment] = []
        var names = Set<ExactName>()
        for (index, part) in parts.enumerated() {
            let segment = try Self.segment(part, in: text)
            switch segment {
            case .path, .wildcard:
                guard index == parts.count - 1 else {
                    throw .invalidArgument("<path:> and * must be the last segment of \(Value.string(text))")
                }
            default:
                break
            }
            if let name = Self.captureName(segment), !names.insert(ExactName(name)).inserted {
                throw .invalidArgument("pattern \(Value.string(text)) captures \"\(name)\" twice")
            }
            segments.append(segment)
        }
        self.segments = segments
    }

    private static func captureName(_ segment: Segment) -> String? {
        switch segment {
        case .string(let n), .int(let n), .float(let n), .uuid(let n), .path(let n), .custom(_, let n): n
        case .literal, .wildcard: nil
        }
    }

    /// One segment, read by Unicode scalars: a combining mark after ":"
    /// or "<" does not hide it.
    private static func segment(_ part: String, in text: String) throws(SwitchboardError) -> Segment {
        let scalars = part.unicodeScalars
        if part.utf8.elementsEqual("*".utf8) { return .wildcard }
        if scalars.first == ":" { return .string(try name(String(scalars.dropFirst()), in: text)) }
        if scalars.first == "<" {
            guard scalars.last == ">", scalars.count > 2 else {
                throw .invalidArgument("malformed placeholder \(Value.string(part)) in \(Value.string(text))")
            }
            let inner = scalars[scalars.index(after: scalars.startIndex)..<scalars.index(before: scalars.endIndex)]
            // <name> is <string:name> (URLNavigator's untyped placeholder).
            guard let colon = inner.firstIndex(of: ":") else { return .string(try name(String(inner), in: text)) }
            let kind = String(inner[..<colon])
            let name = try name(String(inner[inner.index(after: colon)...]), in: text)
            switch kind {
            case "int": return .int(name)
            case "string": return .string(name)
            case "float": return .float(name)
            case "uuid": return .uuid(name)
            case "path": return .path(name)
            default:
                guard isConverterType(kind) else {
                    throw .invalidArgument("unknown placeholder type \(Value.string(kind)) in \(Value.string(text)) "
                                           + "(int, string, float, uuid, path, or a converter's name: letters, digits, _)")
                }
                return .custom(type: kind, name: name)
            }
        }
        if scalars.contains("*") || scalars.contains(">") || scalars.contains("<") {
            throw .invalidArgument("segment \(Value.string(part)) of \(Value.string(text)) mixes a literal and a placeholder")
        }
        let literal: String
        do {
            literal = try RemoteURL.decode(part, what: "a pattern segment")
        } catch {
            throw .invalidArgument(error.message)
        }
        // No URL routes through a "." or ".." segment.
        guard !URLRouter.isDotSegment(literal) else {
            throw .invalidArgument("pattern \(Value.string(text)) has a \".\" or \"..\" segment, which no routed URL has")
        }
        return .literal(literal)
    }

    private static func name(_ name: String, in text: String) throws(SwitchboardError) -> String {
        // Checked by Unicode scalars: a combining mark is not a letter.
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_",
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" })
        else {
            throw .invalidArgument("placeholder name \(Value.string(name)) in \(Value.string(text)) is not an identifier")
        }
        return name
    }

    /// A converter's name: ASCII letters, digits and "_", not starting with
    /// a digit, at most 64 bytes, and not a built-in type.
    static func isConverterType(_ type: String) -> Bool {
        let bytes = type.utf8
        guard let first = bytes.first, bytes.count <= 64, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              !builtinTypes.contains(type) else { return false }
        return bytes.allSatisfy { ASCII.isIdentifier($0) }
    }
}

extension ASCII {
    /// A letter, a digit or "_".
    static func isIdentifier(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}

/// Where a pattern leads.
struct PatternRoute: Sendable {
    let pattern: RoutePattern
    /// The text it was registered with (all its expansions share it).
    let registered: String
    let target: String
    let action: String
    /// Registration order, for ties.
    let order: UInt64
}
