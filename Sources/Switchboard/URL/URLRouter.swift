import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How URLs of one scheme become calls (Router-objc's per-scheme connectors).
public enum SchemeConnector: Sendable, Equatable {
    /// `scheme://target/action?query` performs `action` on `target`.
    case targets
    /// Every URL of the scheme goes to one action, which gets the whole URL
    /// in params (`url`, `scheme`, `host`, `path`, `query`) — a web target
    /// for `https`, say.
    case forward(target: String, action: String)
}

/// Who may be reached from a URL. `nil` allows everything; the `native*`
/// rule holds whatever the policy says.
///
/// Names are compared by their UTF-8 bytes, as lookups compare them:
/// allowing "Café" spelled with U+00E9 does not allow "Cafe\u{301}", a
/// different target. Schemes are compared in ASCII lower case.
public struct URLPolicy: Sendable, Equatable {
    /// Schemes URLs may use, in ASCII lower case.
    public var schemes: [String]? {
        didSet { schemes = schemes?.map(\.asciiLowercased) }
    }
    /// Targets URLs may reach (after patterns and connectors resolve them).
    public var targets: [String]?

    /// A policy allowing only these schemes and these targets; nil for
    /// either allows every one.
    public init(schemes: [String]? = nil, targets: [String]? = nil) {
        self.schemes = schemes?.map(\.asciiLowercased)
        self.targets = targets
    }

    /// Whether URLs may use `scheme` (already in lower case).
    func allows(scheme: String) -> Bool {
        schemes?.contains { $0.hasSameBytes(as: scheme) } ?? true
    }

    /// Whether URLs may reach `target`.
    func allows(target: String) -> Bool {
        targets?.contains { $0.hasSameBytes(as: target) } ?? true
    }

    /// The same schemes and targets (by bytes), in any order.
    public static func == (a: URLPolicy, b: URLPolicy) -> Bool {
        func same(_ x: [String]?, _ y: [String]?) -> Bool {
            x.map { Set($0.map(ExactName.init)) } == y.map { Set($0.map(ExactName.init)) }
        }
        return same(a.schemes, b.schemes) && same(a.targets, b.targets)
    }
}

/// A URL call the policy refused, as observers see it.
public struct RejectedURL: Sendable {
    /// The URL as the caller gave it.
    public let url: String
    /// Why it was refused, as the `.rejected` error's message says.
    public let reason: String
}

/// A mediator's URL state. Read on every `open`, written rarely: a
/// reader-writer lock (pthread, so ThreadSanitizer sees it) lets opens run
/// side by side.
final class URLRouter: @unchecked Sendable {
    // @unchecked: every field is read or written under `rwlock`.

    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private var connectors: [ExactName: SchemeConnector] = [ExactName("app"): .targets] {
        didSet {
            fewConnectors = connectors.count <= 8 ? connectors.map { ($0.key.string, $0.value) } : nil
            refreshPlainSchemes()
        }
    }
    /// The same connectors while there are few (most mediators have `app`
    /// alone): a URL's scheme is found by comparing bytes, not hashing them.
    private var fewConnectors: [(scheme: String, connector: SchemeConnector)]? = [("app", .targets)]
    private let patterns = PatternTrie()
    /// The unmatched-URL fallbacks, by scheme in lower case; "" for every
    /// scheme's.
    private var fallbacks: [ExactName: (target: String, action: String)] = [:]
    /// Placeholder converters, by type.
    private var converters: [ExactName: URLConverter] = [:]
    private var nextOrder: UInt64 = 0
    private var policy = URLPolicy()
    /// The schemes whose URLs go straight to targets (``routesToTargets(scheme:)``),
    /// their bytes in lower case; kept by every change of the connectors,
    /// patterns and policy.
    private var plainSchemes: [[UInt8]] = [Array("app".utf8)]
    /// The same, read without the lock in the usual case of one short
    /// scheme: that scheme packed (``packed(_:)``), or ``nonePlain`` when
    /// there is none, or 0: ask `plainSchemes` under the lock.
    private let plainScheme = Atomic<UInt64>(URLRouter.packed(Array("app".utf8)))
    private static let nonePlain: UInt64 = 1
    private var observer: (@Sendable (RejectedURL) -> Void)?
    private var signer: (any URLSignatureCheck)?
    /// Whether `signer` is set, read without the lock: most mediators never
    /// sign, and their opens should not pay a second lock for it.
    private let signing = Atomic<Bool>(false)
    /// Whether the policy lists targets, read without the lock where a URL
    /// call lands (most mediators allow every target).
    private let restrictsTargets = Atomic<Bool>(false)

    init() {
        rwlock = .allocate(capacity: 1)
        rwlock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(rwlock, nil)
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deinitialize(count: 1)
        rwlock.deallocate()
    }

    private func reading<R>(_ body: () -> R) -> R {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return body()
    }

    private func writing<R>(_ body: () -> R) -> R {
        pthread_rwlock_wrlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return body()
    }

    // MARK: Configuration

    func connect(_ scheme: String, _ connector: SchemeConnector) {
        writing { connectors[ExactName(scheme.asciiLowercased)] = connector }
    }

    func disconnect(_ scheme: String) -> Bool {
        writing { connectors.removeValue(forKey: ExactName(scheme.asciiLowercased)) != nil }
    }

    /// Adds a pattern. Registering the same text for the same destination
    /// again changes nothing; a pattern that would tie with another
    /// registration (same shape, so the same URLs at equal precedence) is
    /// refused, naming the one it ties with; so is one naming a converter
    /// that is not registered.
    func add(pattern text: String, target: String, action: String) throws(SwitchboardError) {
        let expansions = try RoutePattern.parse(text)
        let problem: SwitchboardError? = writing {
            for type in expansions[0].converterTypes where converters[ExactName(type)] == nil {
                return .invalidArgument("pattern \(Value.string(text)) names the converter \(Value.string(type)), "
                                        + "which is not registered: add the converter first")
            }
            var fresh: [RoutePattern] = []
            for pattern in expansions {
                guard let existing = patterns.tie(for: pattern) else {
                    fresh.append(pattern)
                    continue
                }
                guard existing.registered.hasSameBytes(as: text), existing.target.hasSameBytes(as: target),
                      existing.action.hasSameBytes(as: action) else {
                    return .invalidArgument("pattern \(Value.string(text)) matches the same URLs as "
                                            + "\(Value.string(existing.registered)) (to \(existing.target)/\(existing.action)) "
                                            + "with equal precedence; remove that one first")
                }
            }
            nextOrder += 1
            for pattern in fresh {
                patterns.insert(PatternRoute(pattern: pattern, registered: text, target: target, action: action,
                                             order: nextOrder))
            }
            refreshPlainSchemes()
            return nil
        }
        if let problem { throw problem }
    }

    func remove(pattern text: String) -> Bool {
        writing {
            defer { refreshPlainSchemes() }
            return patterns.remove(registered: text) > 0
        }
    }

    /// Removes every pattern of `scheme` (lower-cased): their texts, each
    /// once, in registration order.
    func removePatterns(scheme: String) -> [String] {
        writing {
            defer { refreshPlainSchemes() }
            return patterns.remove(scheme: scheme.asciiLowercased)
        }
    }

    /// Sets the fallback for URLs nothing matches: of `scheme`, or of every
    /// scheme (nil).
    func setFallback(scheme: String?, target: String, action: String) {
        writing { fallbacks[Self.fallbackKey(scheme)] = (target, action) }
    }

    /// Removes the fallback of `scheme` (nil: the one for every scheme) if
    /// `isMine` says it is the caller's. Returns whether there was one.
    func removeFallback(scheme: String?, if isMine: ((target: String, action: String)) -> Bool = { _ in true }) -> Bool {
        writing {
            let key = Self.fallbackKey(scheme)
            guard let fallback = fallbacks[key], isMine(fallback) else { return false }
            fallbacks.removeValue(forKey: key)
            return true
        }
    }

    /// The key of a scheme's fallback; "" (no scheme) for every scheme's.
    private static func fallbackKey(_ scheme: String?) -> ExactName { ExactName(scheme?.asciiLowercased ?? "") }

    /// Registers a converter, replacing one of the same type.
    func add(converter: URLConverter) {
        writing { converters[ExactName(converter.type)] = converter }
    }

    /// Removes the converter `type` if `isMine` says it is the caller's.
    /// Patterns that name it then match nothing at its placeholder.
    func removeConverter(_ type: String, if isMine: (URLConverter) -> Bool = { _ in true }) -> Bool {
        writing {
            guard let converter = converters[ExactName(type)], isMine(converter) else { return false }
            converters.removeValue(forKey: ExactName(type))
            return true
        }
    }

    /// The converter `type`, if registered.
    func converter(_ type: String) -> URLConverter? {
        reading { converters[ExactName(type)] }
    }

    var urlPolicy: URLPolicy {
        get { reading { policy } }
        set {
            writing {
                policy = newValue
                restrictsTargets.store(newValue.targets != nil, ordering: .releasing)
                refreshPlainSchemes()
            }
        }
    }

    var urlSigner: (any URLSignatureCheck)? {
        get { reading { signer } }
        set {
            writing {
                signer = newValue
                signing.store(newValue != nil, ordering: .releasing)
            }
        }
    }

    /// With a signer, the URL without its signature once it checks out
    /// (refusals reach the observer, unless `quiet`); without one, `url` as
    /// it is. Every URL entry starts here, so the length limit is checked
    /// here first, before the signature's hash or anything else that reads
    /// the text.
    func verified(_ url: String, quiet: Bool = false) throws(SwitchboardError) -> String {
        try RemoteURL.checkLength(url)
        guard signing.load(ordering: .acquiring) else { return url }
        let (signer, observer) = reading { (self.signer, self.observer) }
        guard let signer else { return url }
        switch signer.verified(url) {
        case .success(let unsigned):
            return unsigned
        case .failure(let refusal):
            if !quiet { observer?(RejectedURL(url: url, reason: refusal.reason)) }
            throw .rejected(refusal.reason)
        }
    }

    /// Whether URLs must be signed (read without the lock).
    var signs: Bool { signing.load(ordering: .acquiring) }

    var rejectionObserver: (@Sendable (RejectedURL) -> Void)? {
        get { reading { observer } }
        set { writing { observer = newValue } }
    }

    // MARK: Routing

    /// What a URL asks for, once resolved.
    struct Destination {
        let target: String
        let action: String
        /// From the URL: query, then path captures over it, then the
        /// router's keys (``Mediator/patternKey``...); or, for a forward
        /// connector and the unmatched-URL fallback, the whole URL.
        let params: Params
        /// What chose it.
        let kind: URLLookup.Kind
        /// For `.pattern`: the text the pattern was registered with.
        var pattern: String? = nil

        /// Why the names cannot be called, or nil. A handler's name
        /// (``HandlerName``) is refused everywhere a caller names a target;
        /// here it comes from its own scheme or pattern.
        var nameProblem: String? {
            (HandlerName.isHandler(target) ? nil : NameCheck.problem(with: target, kind: "target"))
                ?? NameCheck.problem(with: action, kind: "action")
        }
    }

    /// Resolves a parsed URL: scheme policy, then patterns, then the
    /// scheme's connector, then the unmatched-URL fallback; then target
    /// policy and the `native*` rule. `quiet`: refusals do not reach the
    /// observer (a lookup).
    func resolve(_ url: RemoteURL, quiet: Bool = false) throws(SwitchboardError) -> Destination {
        var steps = 0
        return try resolve(url, quiet: quiet, steps: &steps)
    }

    /// `resolve`, saying how many pattern-trie nodes the match visited.
    func resolve(_ url: RemoteURL, quiet: Bool = false, steps: inout Int) throws(SwitchboardError) -> Destination {
        steps = 0
        let (policy, observer, hasPatterns, connector, fallback) = reading {
            (self.policy, quiet ? nil : self.observer, patterns.has(scheme: url.scheme), self.connector(for: url.scheme),
             fallbacks.isEmpty ? nil : fallbacks[ExactName(url.scheme)] ?? fallbacks[ExactName("")])
        }
        func reject(_ reason: String) -> SwitchboardError {
            observer?(RejectedURL(url: url.string, reason: reason))
            return .rejected(reason)
        }
        if !policy.allows(scheme: url.scheme) {
            throw reject("the scheme \"\(url.scheme)\" is not allowed for remote calls")
        }
        // A route is chosen by host and path alone: a URL with a user,
        // password or port matches none, nor one with a "." or ".." segment
        // (a capture of "../.." is a path a handler should never be given);
        // a handler that gets the whole URL may take them below.
        let routable = !url.hasUserOrPort && !Self.hasDotSegment(url)
        let segments = hasPatterns && routable ? [url.host] + url.segments : []
        let match = segments.isEmpty ? .none : try self.match(url.scheme, segments, steps: &steps, reject: reject)
        let destination: Destination
        switch match {
        case .route(let route, let captures):
            if let key = Self.reservedKey(in: url.query) { throw reject(Self.reservedKeyReason(key)) }
            var params = url.query
            for (name, value) in zip(route.pattern.captureNames, captures) { params[name] = value }
            // No query key starts with "switchboard." (refused above) and no
            // capture's name has a dot: the router's keys are new.
            params.appendDistinct(Mediator.patternKey, .string(route.registered))
            params.appendDistinct(Mediator.schemeKey, .string(url.scheme))
            params.appendDistinct(Mediator.urlKey, .string(url.string))
            destination = Destination(target: route.target, action: route.action, params: params, kind: .pattern,
                                      pattern: route.registered)
        case .tooCostly:
            throw reject("matching the URL against the route patterns needs more than \(PatternTrie.maximumSteps) steps")
        case .none, .needs:
            destination = try unmatched(url, connector: connector, fallback: fallback, hasPatterns: hasPatterns,
                                        routable: routable, reject: reject)
        }
        try admit(target: destination.target, action: destination.action, url: url.string, policy: policy, observer: observer)
        return destination
    }

    /// Walks the patterns of `scheme` for `segments` ([host] + path) under
    /// the lock; converters run between walks, outside it (a converter is
    /// user code, and may open URLs or add patterns).
    private func match(_ scheme: String, _ segments: [String], steps: inout Int,
                       reject: (String) -> SwitchboardError) throws(SwitchboardError) -> PatternTrie.Match {
        try PatternTrie.matching(segments, steps: &steps, tooMany: reject) { conversions, walked in
            reading {
                let match = patterns.match(scheme: scheme, segments: segments, conversions: conversions, steps: &walked)
                guard case .needs(let type, _) = match else { return (match, nil) }
                return (match, converters[ExactName(type)])
            }
        }
    }

    /// No pattern matched: the scheme's connector, else the unmatched-URL
    /// fallback, else the error that says why.
    private func unmatched(_ url: RemoteURL, connector: SchemeConnector?, fallback: (target: String, action: String)?,
                           hasPatterns: Bool, routable: Bool,
                           reject: (String) -> SwitchboardError) throws(SwitchboardError) -> Destination {
        var problem: SwitchboardError
        switch connector {
        case .forward(let target, let action)?:
            return Destination(target: target, action: action, params: Self.wholeURL(url), kind: .forward)
        case .targets?:
            if let shapeProblem = Self.targetsProblem(url) {
                problem = shapeProblem
            } else {
                if let key = Self.reservedKey(in: url.query) { throw reject(Self.reservedKeyReason(key)) }
                return Destination(target: url.host, action: url.firstSegment!, params: url.query, kind: .targets)
            }
        case nil:
            problem = url.hasUserOrPort
                ? .badURL("a URL with a user, password or port matches no route (routes are chosen by host and path): "
                          + RemoteURL.quoted(url.string))
                : Self.hasDotSegment(url)
                ? .badURL("'.' and '..' are not route segments: \(RemoteURL.quoted(url.string))")
                : .noTarget(hasPatterns ? "no pattern of the scheme \"\(url.scheme)\" matches \(RemoteURL.quoted(url.string))"
                                        : "no connector or pattern for the scheme \"\(url.scheme)\"")
        }
        if let (target, action) = fallback {
            return Destination(target: target, action: action, params: Self.wholeURL(url), kind: .fallback)
        }
        // The patterns whose first segments fit the URL's, so the message
        // says which were near: made only for a URL that fails.
        if hasPatterns && routable {
            let nearest = reading { patterns.nearest(scheme: url.scheme, segments: [url.host] + url.segments) }
            if !nearest.patterns.isEmpty {
                let clause = (nearest.fits ? " (nearest patterns: " : " (its patterns include ")
                    + nearest.patterns.map { Value.string($0).description }.joined(separator: ", ") + ")"
                if problem.code == .badURL || problem.code == .noTarget {
                    problem = SwitchboardError(code: problem.code, message: problem.message + clause)
                }
            }
        }
        throw problem
    }

    /// Why the targets connector cannot take `url`, or nil.
    private static func targetsProblem(_ url: RemoteURL) -> SwitchboardError? {
        guard !url.hasUserOrPort else {
            return .badURL("a URL for targets has no user, password or port: \(RemoteURL.quoted(url.string))")
        }
        guard url.segmentCount == 1, let action = url.firstSegment else {
            return .badURL("a URL for targets is \(url.scheme)://target/action, not \(RemoteURL.quoted(url.string))")
        }
        guard !isDotSegment(action) && !isDotSegment(url.host) else {
            return .badURL("'.' and '..' are not target or action names: \(RemoteURL.quoted(url.string))")
        }
        return nil
    }

    /// The params of a handler that gets the whole URL (a forward
    /// connector, the unmatched-URL fallback).
    private static func wholeURL(_ url: RemoteURL) -> Params {
        ["url": .string(url.string), "scheme": .string(url.scheme), "host": .string(url.host),
         "path": .array(url.segments.map(Value.string)), "query": .dict(url.query)]
    }

    /// A query key a URL may not set, if there is one: the library's keys
    /// (``Mediator/reservedKeyPrefix``: the module key, the pattern, scheme
    /// and URL keys) and CTMediator's module key. By bytes.
    static func reservedKey(in query: Params) -> String? {
        for (key, _) in query where isReserved(key) { return key }
        return nil
    }

    static func isReserved(_ key: String) -> Bool {
        key.utf8.starts(with: Mediator.reservedKeyPrefix.utf8) || key.hasSameBytes(as: Mediator.ctMediatorModuleKey)
    }

    private static func reservedKeyReason(_ key: String) -> String {
        "the params key \"\(key)\" cannot come from a URL (keys starting with \"\(Mediator.reservedKeyPrefix)\" "
            + "are the library's, and \"\(Mediator.ctMediatorModuleKey)\" names a module)"
    }

    /// Whether a URL of `scheme` (its bytes as written, taken in ASCII lower
    /// case) resolves to the target and action its host and path name, with
    /// nothing else to consult: no route pattern, the scheme allowed and
    /// connected to `.targets`, a policy that lists no targets. For the
    /// plain URL call (PlainURLCall.swift).
    func routesToTargets(scheme: UnsafeBufferPointer<UInt8>) -> Bool {
        switch plainScheme.load(ordering: .acquiring) {
        case 0:
            return reading {
                for plain in plainSchemes where Self.isLowered(scheme, plain) { return true }
                return false
            }
        case Self.nonePlain:
            return false
        case let only:
            var lowered: UInt64 = 0
            guard scheme.count <= 7 else { return false }
            for (i, byte) in scheme.enumerated() { lowered |= UInt64(ASCII.lower(byte)) << (8 * i) }
            return lowered | UInt64(scheme.count) << 56 == only
        }
    }

    /// Up to 7 bytes of a scheme from the low end, its length in the top
    /// byte (so never 0 or ``nonePlain``); 0 for a longer one.
    private static func packed(_ scheme: [UInt8]) -> UInt64 {
        guard scheme.count <= 7 else { return 0 }
        var value = UInt64(scheme.count) << 56
        for (i, byte) in scheme.enumerated() { value |= UInt64(byte) << (8 * i) }
        return value
    }

    /// `plainSchemes` for the current state; under the write lock. At most
    /// eight (a longer list is not searched on every open: the general
    /// path hashes).
    private func refreshPlainSchemes() {
        var schemes: [[UInt8]] = []
        if patterns.isEmpty && policy.targets == nil {
            for (scheme, connector) in connectors where policy.allows(scheme: scheme.string) {
                if case .targets = connector { schemes.append(Array(scheme.string.utf8)) }
            }
        }
        plainSchemes = schemes.count <= 8 ? schemes : []
        let packed: UInt64 = switch plainSchemes.count {
        case 0: Self.nonePlain
        case 1: Self.packed(plainSchemes[0])
        default: 0
        }
        plainScheme.store(packed, ordering: .releasing)
    }

    /// Whether `bytes` in ASCII lower case are `name`.
    private static func isLowered(_ bytes: UnsafeBufferPointer<UInt8>, _ name: [UInt8]) -> Bool {
        guard bytes.count == name.count else { return false }
        for i in 0..<name.count where ASCII.lower(bytes[i]) != name[i] { return false }
        return true
    }

    /// The connector of `scheme` (lower case); under the lock.
    private func connector(for scheme: String) -> SchemeConnector? {
        guard let few = fewConnectors else { return connectors[ExactName(scheme)] }
        for entry in few where entry.scheme.hasSameBytes(as: scheme) { return entry.connector }
        return nil
    }

    /// Whether the host or a path segment is "." or "..".
    static func hasDotSegment(_ url: RemoteURL) -> Bool {
        // Most URLs have one segment: no array made for it.
        isDotSegment(url.host) || (url.segmentCount == 1 ? isDotSegment(url.firstSegment!)
                                                         : url.segments.contains(where: isDotSegment))
    }

    /// "." or "..", by bytes.
    static func isDotSegment(_ name: String) -> Bool {
        let bytes = name.utf8
        return bytes.count <= 2 && !bytes.isEmpty && bytes.allSatisfy { $0 == UInt8(ascii: ".") }
    }

    /// Tells the observer of a refusal made after resolution, where the
    /// router's state is not at hand (an action's contract says `local`).
    func report(_ url: String, _ reason: String) {
        reading { observer }?(RejectedURL(url: url, reason: reason))
    }

    /// Checks that a URL call may reach (`target`, `action`): after
    /// resolution, and again after every redirect of a URL call.
    func admit(target: String, action: String, url: String) throws(SwitchboardError) {
        let (policy, observer) = reading { (self.policy, self.observer) }
        try admit(target: target, action: action, url: url, policy: policy, observer: observer)
    }

    private func admit(target: String, action: String, url: String, policy: URLPolicy,
                       observer: (@Sendable (RejectedURL) -> Void)?) throws(SwitchboardError) {
        guard let reason = Self.refusal(target: target, action: action, policy: policy) else { return }
        observer?(RejectedURL(url: url, reason: reason))
        throw .rejected(reason)
    }

    /// Why a URL call may not reach (`target`, `action`), or nil; the
    /// caller tells the observer. Where a call lands: no lock and no string
    /// unless the name is refused or the policy lists targets.
    func refusal(target: NameRef, action: NameRef) -> String? {
        if Self.isNative(action) || restrictsTargets.load(ordering: .acquiring) {
            return Self.refusal(target: target.string, action: action.string, policy: reading { policy })
        }
        return nil
    }

    /// `hasASCIIPrefixIgnoringCase("native")` on the bytes of a name.
    private static func isNative(_ name: NameRef) -> Bool {
        guard name.count >= 6 else { return false }
        for (i, c) in "native".utf8.enumerated() where ASCII.lower(name.base[i]) != c { return false }
        return true
    }

    private static func refusal(target: String, action: String, policy: URLPolicy) -> String? {
        // A handler (``HandlerName``) is no target: the scheme or pattern it
        // serves admits it.
        if !HandlerName.isHandler(target) && !policy.allows(target: target) {
            return "the target \"\(target)\" is not allowed for remote calls"
        }
        // CTMediator's rule, on the decoded name's first six bytes in ASCII
        // case, so %6Eative and NATIVE are caught too, and so is a name that
        // goes on with a combining mark ("native\u{301}...", whose first
        // character is not "e" but whose bytes start with "native").
        if action.hasASCIIPrefixIgnoringCase("native") {
            return "\"\(action)\" is a native action: never reachable from a URL"
        }
        return nil
    }

    // MARK: Listing

    var catalogue: (connectors: [(String, SchemeConnector)], patterns: [PatternRoute], policy: URLPolicy) {
        reading { (connectors.sorted { $0.key < $1.key }.map { ($0.key.string, $0.value) }, patterns.all, policy) }
    }

    /// The unmatched-URL fallbacks (scheme nil: every scheme's) and the
    /// converters' types, in byte order.
    var routingCatalogue: (fallbacks: [(scheme: String?, target: String, action: String)], converters: [String]) {
        reading {
            (fallbacks.sorted { $0.key < $1.key }.map { ($0.key.string.isEmpty ? nil : $0.key.string, $0.value.target,
                                                         $0.value.action) },
             converters.keys.sorted().map(\.string))
        }
    }
}
