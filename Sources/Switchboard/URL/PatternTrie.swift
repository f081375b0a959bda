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
///
/// The walk runs no user code: a converter's answer for a segment comes from
/// `conversions`, and when the walk needs one it has not got it stops and
/// says which (`.needs`). The router calls the converter outside its lock
/// and walks again; at most ``maximumConversions`` times per URL.
final class PatternTrie {
    /// The most trie nodes one match may visit. Real route tables visit a
    /// few per URL; 59,049 crafted patterns made one URL visit them all.
    static let maximumSteps = 4_096
    /// The most converter answers one URL may need (each one a walk).
    static let maximumConversions = 32

    final class Node {
        /// By bytes: a URL segment matches a literal only when its decoded
        /// bytes are the literal's.
        var literals: [ExactName: Node] = [:]
        var int: Node?
        var float: Node?
        var uuid: Node?
        /// Converter placeholders, by their type's bytes (so precedence does
        /// not depend on the order they were added in).
        var custom: [(type: ExactName, node: Node)] = []
        var string: Node?
        var path: Node?
        var wildcard: Node?
        /// Routes ending here: the expansions of one registration (two
        /// optional groups can expand to the same shape), first one first.
        var routes: [PatternRoute] = []

        var children: [Node] {
            Array(literals.values) + [int, float, uuid].compactMap { $0 } + custom.map(\.node)
                + [string, path, wildcard].compactMap { $0 }
        }

        /// The child for `segment`'s shape, made if `make`.
        func child(_ segment: RoutePattern.Segment, make: Bool) -> Node? {
            func slot(_ node: inout Node?) -> Node? {
                if node == nil && make { node = Node() }
                return node
            }
            switch segment {
            case .literal(let text):
                let key = ExactName(text)
                if let found = literals[key] { return found }
                guard make else { return nil }
                let node = Node()
                literals[key] = node
                return node
            case .int: return slot(&int)
            case .float: return slot(&float)
            case .uuid: return slot(&uuid)
            case .string: return slot(&string)
            case .path: return slot(&path)
            case .wildcard: return slot(&wildcard)
            case .custom(let type, _):
                let key = ExactName(type)
                let at = custom.firstIndex { !($0.type < key) } ?? custom.endIndex
                if at < custom.endIndex && custom[at].type == key { return custom[at].node }
                guard make else { return nil }
                let node = Node()
                custom.insert((key, node), at: at)
                return node
            }
        }
    }

    private var roots: [ExactName: Node] = [:]
    private(set) var count = 0

    /// Whether no pattern is registered (most mediators): the router then
    /// skips matching, and making the URL's segment array for it.
    var isEmpty: Bool { roots.isEmpty }

    /// Whether `scheme` has a pattern.
    func has(scheme: String) -> Bool { roots[ExactName(scheme)] != nil }

    /// The route a pattern of this shape would tie with (same scheme, same
    /// segments up to capture names), if one is registered.
    func tie(for pattern: RoutePattern) -> PatternRoute? {
        guard var node = roots[ExactName(pattern.scheme)] else { return nil }
        for segment in pattern.segments {
            guard let next = node.child(segment, make: false) else { return nil }
            node = next
        }
        return node.routes.first
    }

    func insert(_ route: PatternRoute) {
        let scheme = ExactName(route.pattern.scheme)
        var node = roots[scheme] ?? { let n = Node(); roots[scheme] = n; return n }()
        for segment in route.pattern.segments { node = node.child(segment, make: true)! }
        node.routes.append(route)
        count += 1
    }

    /// Removes every expansion registered as `text`. Returns how many.
    @discardableResult
    func remove(registered text: String) -> Int {
        remove { $0.registered.hasSameBytes(as: text) }
    }

    /// Removes every route of `scheme`: the registered texts, each once, in
    /// registration order.
    func remove(scheme: String) -> [String] {
        guard let root = roots.removeValue(forKey: ExactName(scheme)) else { return [] }
        var routes: [PatternRoute] = []
        var stack = [root]
        while let node = stack.popLast() {
            routes += node.routes
            stack += node.children
        }
        count -= routes.count
        var seen = Set<ExactName>()
        return routes.sorted { $0.order < $1.order }.map(\.registered).filter { seen.insert(ExactName($0)).inserted }
    }

    /// Removes the routes `matches` selects; prunes schemes left empty.
    private func remove(where matches: (PatternRoute) -> Bool) -> Int {
        var removed = 0
        // Iterative: a pattern has at most 65 segments, but nothing here
        // needs the stack.
        var stack = Array(roots.values)
        while let node = stack.popLast() {
            let before = node.routes.count
            node.routes.removeAll(where: matches)
            removed += before - node.routes.count
            stack += node.children
        }
        count -= removed
        for (scheme, root) in roots where !Self.holdsRoutes(root) { roots.removeValue(forKey: scheme) }
        return removed
    }

    private static func holdsRoutes(_ root: Node) -> Bool {
        var stack = [root]
        while let node = stack.popLast() {
            if !node.routes.isEmpty { return true }
            stack += node.children
        }
        return false
    }

    /// Whether a route's pattern names the converter `type`.
    func uses(converter type: String) -> String? {
        all.first { $0.pattern.converterTypes.contains { $0.hasSameBytes(as: type) } }?.registered
    }

    /// A converter's answer for the segment at an index of [host] + path:
    /// the value, or nil when it declined.
    struct Conversions {
        fileprivate var answers: [Key: Value?] = [:]
        var count: Int { answers.count }

        fileprivate struct Key: Hashable {
            let type: ExactName
            let index: Int
        }

        mutating func record(_ type: String, at index: Int, _ value: Value?) {
            answers[Key(type: ExactName(type), index: index)] = .some(value)
        }

        fileprivate func answer(_ type: ExactName, at index: Int) -> Value?? {
            answers[Key(type: type, index: index)]
        }
    }

    /// What matching a URL found.
    enum Match {
        /// The best route, and what its placeholders captured, in capture order.
        case route(PatternRoute, captures: [Value])
        case none
        /// The walk needed more than ``maximumSteps`` visits.
        case tooCostly
        /// The walk needs the converter `type`'s answer for the segment at
        /// `index` of [host] + path.
        case needs(type: String, index: Int)
    }

    /// The best route for a URL's [host] + path segments. `steps` is set to
    /// the number of nodes visited (tests read it).
    func match(scheme: String, segments: [String], conversions: Conversions, steps: inout Int) -> Match {
        steps = 0
        guard let root = roots[ExactName(scheme)] else { return .none }
        var walk = Walk(segments: segments, conversions: conversions)
        let found = walk.match(root, 0)
        steps = Self.maximumSteps - walk.budget
        if let needed = walk.needed { return .needs(type: needed.type, index: needed.index) }
        if walk.budget < 0 { return .tooCostly }
        guard let route = found else { return .none }
        return .route(route, captures: walk.captures)
    }

    /// Matches with converters: `walk` walks a trie with the answers so
    /// far (and says which converter it needs); each answer it lacks is
    /// asked for between walks, as one more call level of this thread, at
    /// most ``maximumConversions`` per URL (then `tooMany`). A converter
    /// that is not there (removed since) declines.
    static func matching(_ segments: [String], steps: inout Int, tooMany: (String) -> SwitchboardError,
                         walk: (Conversions, inout Int) -> (Match, URLConverter?)) throws(SwitchboardError) -> Match {
        var conversions = Conversions()
        while true {
            var walked = 0
            let (match, converter) = walk(conversions, &walked)
            steps += walked
            guard case .needs(let type, let index) = match else { return match }
            guard conversions.count < maximumConversions else {
                throw tooMany("matching the URL against the route patterns needs more than \(maximumConversions) converter answers")
            }
            let answer = try converter.flatMap { converter throws(SwitchboardError) in try converter.convert(segments[index]) }
            conversions.record(type, at: index, answer)
        }
    }

    /// One walk over the trie for one URL.
    private struct Walk {
        let segments: [String]
        let conversions: Conversions
        var captures: [Value] = []
        /// Visits left (below 0: give up).
        var budget = PatternTrie.maximumSteps
        /// A converter answer the walk lacks: it stops at once.
        var needed: (type: String, index: Int)?

        init(segments: [String], conversions: Conversions) {
            self.segments = segments
            self.conversions = conversions
        }

        /// The route below `node` for the segments from `index` on.
        mutating func match(_ node: Node, _ index: Int) -> PatternRoute? {
            guard budget > 0 else {
                budget = -1
                return nil
            }
            budget -= 1
            guard index < segments.count else {
                if let route = node.routes.first { return route }
                if let route = node.wildcard?.routes.first {
                    captures.append(.array([]))
                    return route
                }
                return nil
            }
            let segment = segments[index]
            if let next = node.literals[ExactName(segment)], let route = match(next, index + 1) { return route }
            if let next = node.int, !stopped, let number = URLValueTypes.int(segment),
               let route = capture(.int(number), next, index) { return route }
            if let next = node.float, !stopped, let number = URLValueTypes.double(segment),
               let route = capture(.double(number), next, index) { return route }
            if let next = node.uuid, !stopped, let uuid = URLValueTypes.uuid(segment),
               let route = capture(.string(uuid), next, index) { return route }
            for (type, next) in node.custom {
                if stopped { return nil }
                guard let answer = conversions.answer(type, at: index) else {
                    needed = (type.string, index)
                    return nil
                }
                if let value = answer, let route = capture(value, next, index) { return route }
            }
            if let next = node.string, let route = capture(.string(segment), next, index) { return route }
            if stopped { return nil }
            if let route = node.path?.routes.first {
                captures.append(.string(segments[index...].joined(separator: "/")))
                return route
            }
            if let route = node.wildcard?.routes.first {
                captures.append(.array(segments[index...].map(Value.string)))
                return route
            }
            return nil
        }

        /// Whether the walk has to stop: out of steps, or a converter's
        /// answer is needed.
        private var stopped: Bool { budget < 0 || needed != nil }

        private mutating func capture(_ value: Value, _ next: Node, _ index: Int) -> PatternRoute? {
            guard !stopped else { return nil }
            captures.append(value)
            if let route = match(next, index + 1) { return route }
            captures.removeLast()
            return nil
        }
    }

    /// The registered texts of up to `limit` routes below the deepest node
    /// a URL's segments reach (literals and placeholders that fit, without
    /// converters), for the message of a URL no pattern matched. Bounded by
    /// ``maximumSteps`` visits; made only when the URL fails.
    /// `fits` says whether the URL's first segment (its host) fit any
    /// pattern at all: when it did not, these are just the scheme's first.
    func nearest(scheme: String, segments: [String], limit: Int = 3) -> (patterns: [String], fits: Bool) {
        guard let root = roots[ExactName(scheme)] else { return ([], false) }
        var deepest = (depth: 0, node: root)
        var budget = Self.maximumSteps
        var stack: [(node: Node, depth: Int)] = [(root, 0)]
        while budget > 0, let (node, depth) = stack.popLast() {
            budget -= 1
            if depth > deepest.depth { deepest = (depth, node) }
            guard depth < segments.count else { continue }
            let segment = segments[depth]
            var next: [Node] = []
            if let literal = node.literals[ExactName(segment)] { next.append(literal) }
            if URLValueTypes.int(segment) != nil, let n = node.int { next.append(n) }
            if URLValueTypes.double(segment) != nil, let n = node.float { next.append(n) }
            if URLValueTypes.uuid(segment) != nil, let n = node.uuid { next.append(n) }
            next += node.custom.map(\.node) + [node.string].compactMap { $0 }
            stack += next.reversed().map { ($0, depth + 1) }
        }
        var found: [PatternRoute] = []
        var queue = [deepest.node]
        budget = Self.maximumSteps
        while !queue.isEmpty, found.count < limit * 4, budget > 0 {
            let node = queue.removeFirst()
            budget -= 1
            found += node.routes
            queue += node.children
        }
        var seen = Set<ExactName>()
        let patterns = found.sorted { $0.order < $1.order }.map(\.registered)
            .filter { seen.insert(ExactName($0)).inserted }.prefix(limit).map { $0 }
        return (patterns, deepest.depth > 0)
    }

    /// Every route, in registration order (for the catalogue).
    var all: [PatternRoute] {
        var routes: [PatternRoute] = []
        var stack = Array(roots.values)
        while let node = stack.popLast() {
            routes += node.routes
            stack += node.children
        }
        return routes.sorted { $0.order < $1.order }
    }
}
