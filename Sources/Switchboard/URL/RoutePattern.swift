/// A URL pattern that maps URLs to a target and action (JLRoutes,
/// URLNavigator and MGJRouter style).
///
///     app://user/:id/profile           :id matches one segment, as a string
///     app://item/<int:id>              <int:id> matches one integer segment
///     app://files/<path:rest>          <path:rest> matches the rest (one or more
///                                      segments), captured as "a/b/c"
///     app://web/*                      * matches any rest (zero or more
///                                      segments), captured as an array under "*"
///     app://user/:id(/:tab)            a group in parentheses is optional
///
/// The first segment after `scheme://` is the host. Captured values are
/// added to the call's params under their names. Precedence, segment by
/// segment from the left: a literal beats `<int:>`, which beats `:name`,
/// which beats `<path:>`, which beats `*`. Two registrations of the same
/// shape would match the same URLs with equal precedence: the second is
/// refused (MGJRouter and URLNavigator let the later one win silently).
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case string(String)
        case int(String)
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
            case .string(let n), .int(let n), .path(let n): n
            case .wildcard: "*"
            }
        }
    }

    /// At most this many optional groups in one pattern (2^4 expansions).
    static let maximumGroups = 4

    /// Parses `text`, expanding optional groups: one pattern per expansion.
    static func parse(_ text: String) throws(SwitchboardError) -> [RoutePattern] {
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
        let rest = String(decoding: bytes[(at + 3)...], as: UTF8.self)
        return try expand(rest).map { variant throws(SwitchboardError) in
            try RoutePattern(text: "\(scheme)://\(variant)", scheme: scheme, body: variant)
        }
    }

    /// All variants of `body` with each optional group present or absent.
    /// The text is read by Unicode scalars, as a URL is by bytes: a
    /// combining mark after `(` does not hide it.
    private static func expand(_ body: String) throws(SwitchboardError) -> [String] {
        var pieces: [(text: String, optional: Bool)] = []
        var current = ""
        var inGroup = false
        for scalar in body.unicodeScalars {
            switch scalar {
            case "(":
                guard !inGroup else { throw .invalidArgument("pattern groups cannot nest: \(Value.string(body))") }
                pieces.append((current, false))
                current = ""
                inGroup = true
            case ")":
                guard inGroup else { throw .invalidArgument("unbalanced ')' in pattern \(Value.string(body))") }
                guard current.utf8.first == UInt8(ascii: "/") && current.utf8.count > 1 else {
                    throw .invalidArgument("an optional group must hold /segments: \(Value.string(body))")
                }
                pieces.append((current, true))
                current = ""
                inGroup = false
            default:
                current.unicodeScalars.append(scalar)
            }
        }
        guard !inGroup else { throw .invalidArgument("unbalanced '(' in pattern \(Value.string(body))") }
        pieces.append((current, false))
        let groups = pieces.filter(\.optional).count
        guard groups <= maximumGroups else {
            throw .invalidArgument("a pattern may have at most \(maximumGroups) optional groups")
        }
        var variants = [""]
        for piece in pieces {
            variants = piece.optional ? variants + variants.map { $0 + piece.text } : variants.map { $0 + piece.text }
        }
        return variants
    }

    private init(text: String, scheme: String, body: String) throws(SwitchboardError) {
        description = text
        self.scheme = scheme
        let parts = body.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidArgument("pattern \(Value.string(text)) has an empty segment")
        }
        var segments: [Segment] = []
        var names = Set<ExactName>()
        for (index, part) in parts.enumerated() {
            let segment = try Self.segment(part, in: text)
            switch segment {
            case .path, .wildcard:
                guard index == parts.count - 1 else {
                    throw .invalidArgument("<path:> and * must be the last segment of \(Value.string(text))")
                }
                guard index > 0 else { throw .invalidArgument("the host of \(Value.string(text)) cannot be <path:> or *") }
            default:
                break
            }
            switch segment {
            case .string(let n), .int(let n), .path(let n):
                if !names.insert(ExactName(n)).inserted { throw Self.duplicate(n, text) }
            case .literal, .wildcard:
                break
            }
            segments.append(segment)
        }
        self.segments = segments
    }

    private static func duplicate(_ name: String, _ text: String) -> SwitchboardError {
        .invalidArgument("pattern \(Value.string(text)) captures \"\(name)\" twice")
    }

    /// One segment, read by Unicode scalars (see `expand`).
    private static func segment(_ part: String, in text: String) throws(SwitchboardError) -> Segment {
        let scalars = part.unicodeScalars
        if part.utf8.elementsEqual("*".utf8) { return .wildcard }
        if scalars.first == ":" { return .string(try name(String(scalars.dropFirst()), in: text)) }
        if scalars.first == "<" {
            guard scalars.last == ">", let colon = scalars.firstIndex(of: ":") else {
                throw .invalidArgument("malformed placeholder \(Value.string(part)) in \(Value.string(text))")
            }
            let kind = String(scalars[scalars.index(after: scalars.startIndex)..<colon])
            let name = try name(String(scalars[scalars.index(after: colon)..<scalars.index(before: scalars.endIndex)]),
                                in: text)
            switch kind {
            case "int": return .int(name)
            case "string": return .string(name)
            case "path": return .path(name)
            default: throw .invalidArgument("unknown placeholder type \(Value.string(String(kind))) in \(Value.string(text))")
            }
        }
        if scalars.contains("*") || scalars.contains(">") {
            throw .invalidArgument("segment \(Value.string(part)) of \(Value.string(text)) mixes a literal and a placeholder")
        }
        do {
            return .literal(try RemoteURL.decode(part, what: "a pattern segment"))
        } catch {
            throw .invalidArgument(error.message)
        }
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

/// Patterns by scheme, in a segment trie. Not thread-safe; URLRouter
/// guards it.
///
/// Matching walks the trie depth first in precedence order and visits each
/// node at most once (a node sits at one depth, so it meets one segment). A
/// URL whose segments fit several kinds at each level (a digit string is a
/// literal, an `<int:>` and a `:name`) can make it visit every node whose
/// path fits, which crafted patterns make many: the walk is therefore
/// bounded by ``maximumSteps`` node visits per URL, and a URL that needs
/// more is refused (`.rejected`) rather than matched slowly.
final class PatternTrie {
    /// The most trie nodes one match may visit. Real route tables visit a
    /// few per URL; 59,049 crafted patterns made one URL visit them all.
    static let maximumSteps = 4_096
    final class Node {
        /// By bytes: a URL segment matches a literal only when its decoded
        /// bytes are the literal's.
        var literals: [ExactName: Node] = [:]
        var int: Node?
        var string: Node?
        var path: Node?
        var wildcard: Node?
        /// Routes ending here: the expansions of one registration (two
        /// optional groups can expand to the same shape), first one first.
        var routes: [PatternRoute] = []
    }

    private var roots: [ExactName: Node] = [:]
    private(set) var count = 0

    /// The route a pattern of this shape would tie with (same scheme, same
    /// segments up to capture names), if one is registered.
    func tie(for pattern: RoutePattern) -> PatternRoute? {
        guard var node = roots[ExactName(pattern.scheme)] else { return nil }
        for segment in pattern.segments {
            let next: Node? = switch segment {
            case .literal(let text): node.literals[ExactName(text)]
            case .int: node.int
            case .string: node.string
            case .path: node.path
            case .wildcard: node.wildcard
            }
            guard let next else { return nil }
            node = next
        }
        return node.routes.first
    }

    func insert(_ route: PatternRoute) {
        let scheme = ExactName(route.pattern.scheme)
        var node = roots[scheme] ?? { let n = Node(); roots[scheme] = n; return n }()
        for segment in route.pattern.segments {
            switch segment {
            case .literal(let text):
                node = node.literals[ExactName(text)] ?? { let n = Node(); node.literals[ExactName(text)] = n; return n }()
            case .int: node = node.int ?? { let n = Node(); node.int = n; return n }()
            case .string: node = node.string ?? { let n = Node(); node.string = n; return n }()
            case .path: node = node.path ?? { let n = Node(); node.path = n; return n }()
            case .wildcard: node = node.wildcard ?? { let n = Node(); node.wildcard = n; return n }()
            }
        }
        node.routes.append(route)
        count += 1
    }

    /// Removes every expansion registered as `text`. Returns how many.
    @discardableResult
    func remove(registered text: String) -> Int {
        var removed = 0
        func prune(_ node: Node) {
            let before = node.routes.count
            node.routes.removeAll { $0.registered.hasSameBytes(as: text) }
            removed += before - node.routes.count
            node.literals.values.forEach(prune)
            [node.int, node.string, node.path, node.wildcard].compactMap { $0 }.forEach(prune)
        }
        roots.values.forEach(prune)
        count -= removed
        return removed
    }

    /// What matching a URL found.
    enum Match {
        /// The best route, and what its placeholders captured, in capture order.
        case route(PatternRoute, captures: [Value])
        case none
        /// The walk needed more than ``maximumSteps`` visits.
        case tooCostly
    }

    /// The best route for a URL's [host] + path segments. `steps` is set to
    /// the number of nodes visited (tests read it).
    /// Whether no pattern is registered (most mediators): the router then
    /// skips matching, and making the URL's segment array for it.
    var isEmpty: Bool { roots.isEmpty }

    func match(scheme: String, host: String, segments: [String], steps: inout Int) -> Match {
        steps = 0
        guard let root = roots[ExactName(scheme)] else { return .none }
        var captures: [Value] = []
        var budget = Self.maximumSteps
        let found = match(root, ([host] + segments)[...], &captures, &budget)
        steps = Self.maximumSteps - budget
        if budget < 0 { return .tooCostly }
        guard let route = found else { return .none }
        return .route(route, captures: captures)
    }

    /// One node; `budget` counts down the visits left (below 0: give up).
    private func match(_ node: Node, _ rest: ArraySlice<String>, _ captures: inout [Value],
                       _ budget: inout Int) -> PatternRoute? {
        guard budget > 0 else {
            budget = -1
            return nil
        }
        budget -= 1
        guard let segment = rest.first else {
            if let route = node.routes.first { return route }
            if let route = node.wildcard?.routes.first {
                captures.append(.array([]))
                return route
            }
            return nil
        }
        let remaining = rest.dropFirst()
        if let next = node.literals[ExactName(segment)], let route = match(next, remaining, &captures, &budget) {
            return route
        }
        if let next = node.int, let number = Int64(segment), String(number) == segment || segment == "+\(number)" {
            captures.append(.int(number))
            if let route = match(next, remaining, &captures, &budget) { return route }
            captures.removeLast()
        }
        if let next = node.string {
            captures.append(.string(segment))
            if let route = match(next, remaining, &captures, &budget) { return route }
            captures.removeLast()
        }
        guard budget >= 0 else { return nil }
        if let route = node.path?.routes.first {
            captures.append(.string(rest.joined(separator: "/")))
            return route
        }
        if let route = node.wildcard?.routes.first {
            captures.append(.array(rest.map(Value.string)))
            return route
        }
        return nil
    }

    /// Every route, in registration order (for the catalogue).
    var all: [PatternRoute] {
        var routes: [PatternRoute] = []
        func walk(_ node: Node) {
            routes += node.routes
            node.literals.values.forEach(walk)
            [node.int, node.string, node.path, node.wildcard].compactMap { $0 }.forEach(walk)
        }
        roots.values.forEach(walk)
        return routes.sorted { $0.order < $1.order }
    }
}
