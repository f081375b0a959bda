/// A declarative routing rule, loaded from a Lua table or JSON:
///
///     {"from": "app://old/*", "to": "app://new/$1"}     rewrites a URL before it resolves
///     {"from": "Old/*",       "to": "New/$1"}           rewrites target/action of any call
///     {"target": "Pay", "action": "*", "degrade": "Web"}
///         when nothing answers Pay.<any>, Web.response answers instead, with
///         NoTargetAction's params (originParams, targetString, selectorString,
///         target, action, and url for a URL call; see ``FallbackCall``);
///         "degrade_action" names another action than "response".
///
/// In patterns `*` matches any run of characters (none included) and `$1`…`$9`
/// in `to` is what the n-th `*` matched. The first rule that matches wins; a
/// rewritten call is matched again, at most ``Mediator/maxRedirects`` times.
public struct RoutingRule: Sendable, Equatable {
    /// What a rule does.
    public enum Kind: Sendable, Equatable {
        /// Calls matching `from` go to `to` instead: a URL pattern (with a
        /// scheme) rewrites the URL before it resolves, a `Target/action`
        /// pattern rewrites any call's target and action. `$1`…`$9` in `to`
        /// are what the `*`s in `from` matched.
        case rewrite(from: String, to: String)
        /// When nothing answers a call of `target` and `action` (either may
        /// be a `*` pattern), target `to`'s action `toAction` answers instead,
        /// with NoTargetAction's params.
        case degrade(target: String, action: String, to: String, toAction: String)
    }

    /// The rule's pattern and what it does.
    public let kind: Kind
    /// Whether a rewrite applies to URL text (its pattern has a scheme) or to
    /// `target/action`.
    var isURLRule: Bool { urlPattern != nil }
    /// A URL rule's `from` in the normal form URLs are matched in
    /// (``RemoteURL/normalized(_:)``): `APP://%4Fld/*` matches as `app://Old/*`.
    let urlPattern: String?

    /// A rule of this kind, taken as it is (the dict form,
    /// `init(_:index:)`, checks its fields); a pattern that matches no call
    /// never applies.
    public init(_ kind: Kind) {
        self.kind = kind
        urlPattern = Self.urlPattern(kind)
    }

    private static func urlPattern(_ kind: Kind) -> String? {
        guard isURLRule(kind), case .rewrite(let from, _) = kind else { return nil }
        return RemoteURL.normalized(from)
    }

    /// Rules are equal when their kinds are.
    public static func == (a: RoutingRule, b: RoutingRule) -> Bool { a.kind == b.kind }

    private static func isURLRule(_ kind: Kind) -> Bool {
        if case .rewrite(let from, _) = kind { return from.containsASCII("://") }
        return false
    }

    /// Reads one rule from a dict, naming the problem when it is not one.
    public init(_ value: Value, index: Int) throws(SwitchboardError) {
        let at = "rule \(index + 1)"
        guard let fields = value.dict else { throw .invalidArgument("\(at) is not a table/object") }
        func string(_ key: String) throws(SwitchboardError) -> String? {
            guard let field = fields[key] else { return nil }
            guard let text = field.string, !text.isEmpty, !text.utf8.contains(0) else {
                throw .invalidArgument("\(at): \"\(key)\" must be a non-empty string without NUL bytes")
            }
            return text
        }
        let known: Set<String> = ["from", "to", "target", "action", "degrade", "degrade_action"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidArgument("\(at): unknown key \"\(unknown)\" (a rule has from/to, or target/action/degrade)")
        }
        if let from = try string("from") {
            guard let to = try string("to") else { throw .invalidArgument("\(at): \"from\" needs \"to\"") }
            guard fields["degrade"] == nil, fields["target"] == nil else {
                throw .invalidArgument("\(at): a rule is either from/to or target/action/degrade")
            }
            let urlRule = from.containsASCII("://")
            guard urlRule == to.containsASCII("://") else {
                throw .invalidArgument("\(at): \"from\" and \"to\" must both be URLs or both target/action")
            }
            if !urlRule {
                for side in [from, to] where Self.split(side) == nil {
                    throw .invalidArgument("\(at): \"\(side)\" is not target/action")
                }
            }
            let stars = from.utf8.filter { $0 == UInt8(ascii: "*") }.count
            if let bad = Self.references(in: to).first(where: { $0 > stars }) {
                throw .invalidArgument("\(at): \"to\" uses $\(bad) but \"from\" has \(stars) *")
            }
            kind = .rewrite(from: from, to: to)
            urlPattern = urlRule ? RemoteURL.normalized(from) : nil
        } else if let degrade = try string("degrade") {
            guard let target = try string("target") else { throw .invalidArgument("\(at): \"degrade\" needs \"target\"") }
            kind = .degrade(target: target, action: try string("action") ?? "*", to: degrade,
                            toAction: try string("degrade_action") ?? ActionName.response)
            urlPattern = nil
        } else {
            throw .invalidArgument("\(at): needs \"from\" and \"to\", or \"target\" and \"degrade\"")
        }
    }

    /// The rule as a dict, for the catalogue.
    public var value: Value {
        switch kind {
        case .rewrite(let from, let to):
            ["from": .string(from), "to": .string(to)]
        case .degrade(let target, let action, let to, let toAction):
            ["target": .string(target), "action": .string(action), "degrade": .string(to),
             "degrade_action": .string(toAction)]
        }
    }

    // Rules are read by bytes and scalars, never by Characters: a combining
    // mark after `*`, `/` or `$1` must not hide it (names are bytes).

    /// `target/action` split at the first slash, both non-empty.
    static func split(_ text: String) -> (target: String, action: String)? {
        let bytes = text.utf8
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let target = String(decoding: bytes[..<slash], as: UTF8.self)
        let action = String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
        return target.isEmpty || action.isEmpty ? nil : (target, action)
    }

    private static func references(in template: String) -> [Int] {
        var found: [Int] = []
        var previous: Unicode.Scalar?
        for c in template.unicodeScalars {
            if previous == "$", let digit = digit(c) { found.append(digit) }
            previous = c
        }
        return found
    }

    private static func digit(_ scalar: Unicode.Scalar) -> Int? {
        ("0"..."9").contains(scalar) ? Int(scalar.value - 48) : nil
    }

    /// What the `*`s of `pattern` matched in `text`, or nil when it does not
    /// match. Each `*` takes the shortest run that lets the rest match; the
    /// literal pieces between stars are found leftmost, so this is linear in
    /// the text for each piece (no backtracking blow-up on hostile URLs).
    static func match(_ pattern: String, _ text: String) -> [String]? {
        let pieces = pattern.utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map { Array($0) }
        let bytes = Array(text.utf8)
        guard pieces.count > 1 else { return pieces[0] == bytes ? [] : nil }
        let first = pieces[0], last = pieces[pieces.count - 1]
        guard bytes.count >= first.count + last.count, bytes.starts(with: first),
              bytes[(bytes.count - last.count)...].elementsEqual(last) else { return nil }
        var position = first.count
        let limit = bytes.count - last.count
        var captures: [String] = []
        for piece in pieces.dropFirst().dropLast() {
            guard let found = find(piece, in: bytes, from: position, before: limit) else { return nil }
            captures.append(String(decoding: bytes[position..<found], as: UTF8.self))
            position = found + piece.count
        }
        captures.append(String(decoding: bytes[position..<limit], as: UTF8.self))
        return captures
    }

    private static func find(_ piece: [UInt8], in bytes: [UInt8], from start: Int, before limit: Int) -> Int? {
        guard !piece.isEmpty else { return start }
        var i = start
        while i + piece.count <= limit {
            if bytes[i] == piece[0] && bytes[i..<(i + piece.count)].elementsEqual(piece) { return i }
            i += 1
        }
        return nil
    }

    /// `template` with `$n` replaced by the n-th capture.
    static func fill(_ template: String, _ captures: [String]) -> String {
        var out = String.UnicodeScalarView()
        var scalars = template.unicodeScalars.makeIterator()
        while let c = scalars.next() {
            guard c == "$" else { out.append(c); continue }
            guard let next = scalars.next() else { out.append(c); break }
            if let n = digit(next), n >= 1, n <= captures.count {
                out.append(contentsOf: captures[n - 1].unicodeScalars)
            } else {
                out.append(c)
                out.append(next)
            }
        }
        return String(out)
    }
}

/// A mediator's rules, split by what they apply to.
struct RuleSet: Sendable {
    let all: [RoutingRule]

    static let empty = RuleSet(all: [])

    var isEmpty: Bool { all.isEmpty }

    /// Whether some rule rewrites URLs.
    var hasURLRules: Bool { all.contains { $0.isURLRule } }

    /// The rewrite of `url` (in its normal form, see
    /// ``RemoteURL/normalized(_:)``) by the first URL rule that matches, or nil.
    func rewrite(url: String) -> String? {
        for rule in all {
            guard let from = rule.urlPattern, case .rewrite(_, let to) = rule.kind,
                  let captures = RoutingRule.match(from, url) else { continue }
            return RoutingRule.fill(to, captures)
        }
        return nil
    }

    /// The rewrite of `target/action` by the first local rule that matches, or nil.
    func rewrite(target: String, action: String) -> String? {
        var text: String? // made for the first rule that needs it
        for rule in all where !rule.isURLRule {
            guard case .rewrite(let from, let to) = rule.kind else { continue }
            if text == nil { text = target + "/" + action }
            guard let captures = RoutingRule.match(from, text!) else { continue }
            return RoutingRule.fill(to, captures)
        }
        return nil
    }

    /// Where a call to (`target`, `action`) that nothing answers degrades to.
    func degrade(target: String, action: String) -> (target: String, action: String)? {
        for rule in all {
            // A name no caller could use (a handler's, see HandlerName) is
            // no place to degrade to.
            guard case .degrade(let t, let a, let to, let toAction) = rule.kind,
                  NameCheck.problem(with: to, kind: "target") == nil, NameCheck.problem(with: toAction, kind: "action") == nil,
                  RoutingRule.match(t, target) != nil, RoutingRule.match(a, action) != nil else { continue }
            return (to, toAction)
        }
        return nil
    }
}
