/// URLs built from a pattern and params (MGJRouter's
/// `generateURLWithPattern:parameters:`), so that matching the URL against
/// the pattern gives the params back (a property test and the URL fuzzer
/// hold it to that):
///
/// - every placeholder needs a value of its type: `:name` a non-empty
///   string, `<int:>` an int, `<float:>` a finite double, `<uuid:>` a string
///   in UUID form (written in lower case, as matching gives it back), a
///   converter's type a string the converter accepts, `<path:>` a string of
///   non-empty segments joined by "/", `*` an array of non-empty strings;
/// - of the optional groups, those whose placeholders have values are
///   written, the others (and groups with no placeholder) left out; a group
///   given only some of its values is refused;
/// - the other params become the query, in order: a string value is one
///   pair, an array of at least two strings repeats the key (one value
///   would come back as a string);
/// - segments, keys and values are percent-encoded: every byte but RFC
///   3986's unreserved ones (letters, digits, "-", ".", "_", "~"), so "+"
///   is %2B and a space %20 whichever way a reader decodes "+";
/// - keys starting with "switchboard." (and CTMediator's module key) are
///   refused: a URL cannot set them.
///
/// The URL is at most ``RemoteURL/maximumLength`` bytes: building stops as
/// soon as it is longer (`.badURL`).
enum URLBuilder {
    static func build(_ text: String, _ params: Params,
                      converter: (String) -> URLConverter?) throws(SwitchboardError) -> String {
        let expansions = try RoutePattern.parse(text)
        for type in expansions[0].converterTypes where converter(type) == nil {
            throw .invalidArgument("pattern \(Value.string(text)) names the converter \(Value.string(type)), which is not registered")
        }
        for (key, _) in params where URLRouter.isReserved(key) {
            throw .badParams("the params key \"\(key)\" cannot go into a URL: a URL may not set it")
        }
        let pattern = try choose(expansions, for: params, text)
        var out = Output()
        out.start(pattern.scheme + "://")
        var used = Set<ExactName>()
        var expected: Params = [:]
        for (index, segment) in pattern.segments.enumerated() {
            let (pieces, captured) = try self.segments(segment, params, converter, text)
            guard index > 0 || !pieces.isEmpty else {
                throw .badParams("\(describe(segment)) stands for the host in \(Value.string(text)): it needs at least one segment")
            }
            for (k, piece) in pieces.enumerated() {
                if index > 0 || k > 0 { try out.append("/") }
                try out.encode(piece)
            }
            if let name = name(of: segment), let captured {
                used.insert(ExactName(name))
                expected[name] = captured
            }
        }
        var separator = "?"
        for (key, value) in params where !used.contains(ExactName(key)) {
            guard !key.isEmpty else { throw .badParams("a query key is empty") }
            let values: [String]
            switch value {
            case .string(let string):
                values = [string]
            case .array(let items) where items.count >= 2 && items.allSatisfy({ $0.string != nil }):
                values = items.map { $0.string! }
            default:
                throw .badParams("the query value of \"\(key)\" must be a string or an array of at least two strings, "
                                 + "not \(kindText(value)) (a URL's query gives strings back)")
            }
            for item in values {
                try out.append(separator)
                try out.encode(key)
                try out.append("=")
                try out.encode(item)
                separator = "&"
            }
        }
        try verify(out.string, pattern, expansions, expected, converter, text)
        return out.string
    }

    /// Matching `url` against the pattern's own expansions must give the
    /// chosen expansion and the values it was built from: a pattern whose
    /// groups let the URL read another way (`x(/:a)(/:b)` with only b) is
    /// refused rather than built into a URL that means something else.
    private static func verify(_ url: String, _ chosen: RoutePattern, _ expansions: [RoutePattern], _ expected: Params,
                               _ converter: (String) -> URLConverter?, _ text: String) throws(SwitchboardError) {
        let trie = PatternTrie()
        for (order, expansion) in expansions.enumerated() {
            trie.insert(PatternRoute(pattern: expansion, registered: text, target: "", action: "", order: UInt64(order)))
        }
        let parsed = try RemoteURL(url)
        let segments = [parsed.host] + parsed.segments
        var steps = 0
        let match = try PatternTrie.matching(segments, steps: &steps, tooMany: { .badParams($0) }) { conversions, walked in
            let match = trie.match(scheme: chosen.scheme, segments: segments, conversions: conversions, steps: &walked)
            guard case .needs(let type, _) = match else { return (match, nil) }
            return (match, converter(type))
        }
        if case .route(let route, let captures) = match, route.pattern == chosen,
           Params(distinctKeys: Array(zip(route.pattern.captureNames, captures)).map { (key: $0.0, value: $0.1) }) == expected {
            return
        }
        let reading: String
        if case .route(let route, _) = match { reading = "its form \(Value.string(route.pattern.description))" } else { reading = "nothing" }
        throw .badParams("pattern \(Value.string(text)) cannot give these params back: the URL \(RemoteURL.quoted(url)) "
                         + "matches \(reading); give other values, or write the pattern without that ambiguity")
    }

    /// The expansion whose placeholders are exactly those `params` gives
    /// values for, with the fewest segments (groups of literals left out).
    private static func choose(_ expansions: [RoutePattern], for params: Params,
                               _ text: String) throws(SwitchboardError) -> RoutePattern {
        let names = Set(expansions.flatMap(\.captureNames).map(ExactName.init))
        let given = Set(params.map(\.key).map(ExactName.init)).intersection(names)
        let fits = expansions.filter { Set($0.captureNames.map(ExactName.init)) == given }
        if let best = fits.min(by: { $0.segments.count < $1.segments.count }) { return best }
        // Why none fits: a placeholder every expansion has, missing; else a
        // group given only some of its values.
        let required = expansions.dropFirst().reduce(Set(expansions[0].captureNames.map(ExactName.init))) {
            $0.intersection($1.captureNames.map(ExactName.init))
        }
        if let missing = required.subtracting(given).sorted().first {
            throw .badParams("pattern \(Value.string(text)) needs a value for \"\(missing.string)\"")
        }
        throw .badParams("pattern \(Value.string(text)): the placeholders of an optional group go together; give all "
                         + "of a group's values or none (given: " + given.sorted().map { "\"\($0.string)\"" }.joined(separator: ", ") + ")")
    }

    /// The decoded segments `segment` writes, and the value matching them
    /// captures (nil for a literal).
    private static func segments(_ segment: RoutePattern.Segment, _ params: Params, _ converter: (String) -> URLConverter?,
                                 _ text: String) throws(SwitchboardError) -> ([String], Value?) {
        func wrong(_ needs: String, _ value: Value) -> SwitchboardError {
            .badParams("\(describe(segment)) in \(Value.string(text)) needs \(needs), not \(kindText(value))")
        }
        /// A segment matching can give back: not empty, no NUL, not "." or "..".
        func routable(_ piece: String) -> Bool {
            !piece.isEmpty && !piece.utf8.contains(0) && !URLRouter.isDotSegment(piece)
        }
        func single(_ string: String, _ value: Value) throws(SwitchboardError) -> String {
            guard routable(string) else { throw wrong("a non-empty string without NUL, not \".\" or \"..\"", value) }
            return string
        }
        guard let name = name(of: segment) else {
            if case .literal(let literal) = segment { return ([literal], nil) }
            preconditionFailure("a placeholder without a name")
        }
        let value = params[name]!
        switch segment {
        case .literal:
            preconditionFailure("a literal with a name")
        case .string:
            guard case .string(let string) = value else { throw wrong("a string", value) }
            return ([try single(string, value)], value)
        case .int:
            guard case .int(let number) = value else { throw wrong("an int", value) }
            return ([String(number)], value)
        case .float:
            guard case .double(let number) = value, number.isFinite else { throw wrong("a finite double", value) }
            return (["\(number)"], value)
        case .uuid:
            guard case .string(let string) = value, let uuid = URLValueTypes.uuid(string) else {
                throw wrong("a UUID (8-4-4-4-12 hexadecimal digits)", value)
            }
            return ([uuid], .string(uuid))
        case .custom(let type, _):
            guard case .string(let string) = value else { throw wrong("a string (the segment)", value) }
            let piece = try single(string, value)
            guard let converter = converter(type), let converted = try converter.convert(string) else {
                throw .badParams("the converter \(Value.string(type)) declines \(RemoteURL.quoted(string)) for \(describe(segment))")
            }
            return ([piece], converted)
        case .path:
            guard case .string(let string) = value else { throw wrong("a string of segments joined by \"/\"", value) }
            let pieces = string.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard pieces.allSatisfy(routable) else {
                throw wrong("non-empty segments joined by \"/\" (not \".\" or \"..\")", value)
            }
            return (pieces, value)
        case .wildcard:
            guard case .array(let items) = value,
                  let pieces = Optional(items.compactMap(\.string)), pieces.count == items.count,
                  pieces.allSatisfy(routable) else {
                throw wrong("an array of non-empty strings (not \".\" or \"..\")", value)
            }
            return (pieces, value)
        }
    }

    /// A value's kind for a message ("an int", "the string \"x\""): short,
    /// whatever the value's size.
    private static func kindText(_ value: Value) -> String {
        switch value {
        case .string(let string): "the string " + RemoteURL.quoted(string)
        case .int(let number): "the int \(number)"
        case .double(let number): "the double \(number)"
        default: "a value of kind \(value.kind)"
        }
    }

    private static func name(of segment: RoutePattern.Segment) -> String? {
        switch segment {
        case .literal: nil
        case .string(let n), .int(let n), .float(let n), .uuid(let n), .path(let n), .custom(_, let n): n
        case .wildcard: "*"
        }
    }

    private static func describe(_ segment: RoutePattern.Segment) -> String {
        switch segment {
        case .literal(let text): "the segment \(Value.string(text))"
        case .string(let n): "\":\(n)\""
        case .int(let n): "\"<int:\(n)>\""
        case .float(let n): "\"<float:\(n)>\""
        case .uuid(let n): "\"<uuid:\(n)>\""
        case .custom(let type, let n): "\"<\(type):\(n)>\""
        case .path(let n): "\"<path:\(n)>\""
        case .wildcard: "\"*\""
        }
    }

    /// The URL as it grows, refused once longer than a URL may be.
    private struct Output {
        var bytes: [UInt8] = []

        var string: String { String(decoding: bytes, as: UTF8.self) }

        mutating func start(_ text: String) {
            bytes += text.utf8
        }

        mutating func append(_ text: String) throws(SwitchboardError) {
            bytes += text.utf8
            try checkLength()
        }

        /// `text`'s UTF-8 bytes, each but the unreserved ones as %XX.
        mutating func encode(_ text: String) throws(SwitchboardError) {
            let hex = Array("0123456789ABCDEF".utf8)
            for byte in text.utf8 {
                if Self.isUnreserved(byte) {
                    bytes.append(byte)
                } else {
                    bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                }
                if bytes.count > RemoteURL.maximumLength { try checkLength() }
            }
        }

        private func checkLength() throws(SwitchboardError) {
            guard bytes.count <= RemoteURL.maximumLength else {
                throw .badURL("the URL would be longer than \(RemoteURL.maximumLength) bytes, the limit")
            }
        }

        private static func isUnreserved(_ byte: UInt8) -> Bool {
            ASCII.isIdentifier(byte) && byte != 0 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "~")
        }
    }
}
