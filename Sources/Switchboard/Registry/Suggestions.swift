// "Did you mean": the ENOTARGET and ENOACTION messages of a call that failed
// for good name the closest names the mediator knows. Built only then (never
// while a call is resolved, nor when a fallback answers), and bounded: a name
// is compared with at most `maxCandidates` names, by an edit distance that
// stops early, so a loop of failing calls costs each a bounded scan.

/// The names closest to one that found nothing, by edit distance.
public enum NameSuggestions {
    /// How many names one suggestion looks at, at most.
    static let maxCandidates = 10_000
    /// Names longer than this (in bytes) get no suggestion: nothing is that long by mistake.
    static let maxLength = 128

    /// At most `limit` of `candidates` closest to `name` (edit distance over
    /// the names' bytes; a swap of two neighbours counts as one edit), best
    /// first, ties in byte order. A candidate counts only within
    /// max(1, min(3, length / 3)) edits, so short names are not "close" to
    /// everything. `name` itself is never suggested.
    public static func closest(to name: String, among candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let wanted = Array(name.utf8)
        guard !wanted.isEmpty, wanted.count <= maxLength, limit > 0 else { return [] }
        let bound = max(1, min(3, wanted.count / 3))
        var found: [(distance: Int, name: [UInt8])] = []
        var seen = Set<[UInt8]>()
        for (i, candidate) in candidates.enumerated() {
            if i >= maxCandidates { break }
            let bytes = Array(candidate.utf8)
            guard abs(bytes.count - wanted.count) <= bound, bytes != wanted, seen.insert(bytes).inserted else { continue }
            if let d = distance(wanted, bytes, bound: bound) { found.append((d, bytes)) }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name.lexicographicallyPrecedes($1.name) }
        return found.prefix(limit).map { String(decoding: $0.name, as: UTF8.self) }
    }

    /// ` (did you mean "A" or "B"?)`, or "" when nothing is close.
    public static func clause(for name: String, among candidates: some Sequence<String>) -> String {
        let names = closest(to: name, among: candidates).map { Value.string($0).description }
        guard let last = names.last else { return "" }
        let listed = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        return " (did you mean \(listed)?)"
    }

    /// Optimal string alignment distance between `a` and `b`, or nil when it
    /// exceeds `bound` (the scan stops as soon as a row is past it).
    static func distance(_ a: [UInt8], _ b: [UInt8], bound: Int) -> Int? {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) <= bound ? max(a.count, b.count) : nil }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var smallest = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
                smallest = min(smallest, d)
            }
            if smallest > bound { return nil }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count] <= bound ? previous[b.count] : nil
    }
}

extension Mediator {
    /// `error` — a call's final ENOTARGET or ENOACTION for `target` and
    /// `action` — with the closest names added to its message; any other
    /// error as it is. `fromSwift`: the caller is Swift code, which is told
    /// where `Target_<Name>` classes were looked for (``modules``).
    func suggesting(_ error: SwitchboardError, target: NameRef, action: NameRef, fromSwift: Bool = false) -> SwitchboardError {
        switch error.code {
        case .noTarget:
            let name = target.string
            var text = error.message + NameSuggestions.clause(for: name, among: knownTargetNames())
            if fromSwift { text += swiftSearchNote(for: name) }
            return .noTarget(text)
        case .noAction:
            return .noAction(error.message + NameSuggestions.clause(for: action.string, among: actionNames(of: target)))
        default:
            return error
        }
    }

    /// Every target a call could reach by name now: registered ones, classes
    /// found so far, and what providers can list (a C plugin's tables).
    func knownTargetNames() -> [String] {
        var names: [String] = lock.withLock {
            targets.entries().compactMap { entry in
                guard !HandlerName.isHandler(entry.name.ref),
                      !entry.registered.isEmpty || entry.targetClass != nil else { return nil }
                return entry.name.string
            }
        }
        for provider in providers { names += provider.listedTargets().map(\.name) }
        return names
    }

    /// The actions of `target` (registered, of its class, or as a provider
    /// lists them); of the first two, the first `NameSuggestions.maxCandidates`
    /// (the only ones a suggestion looks at).
    func actionNames(of target: NameRef) -> [String] {
        // Read pinned, as a call reads, not under the writers' lock: a call
        // that fails on a target of 100,000 actions held up every
        // registration while it listed them. The maps are immutable.
        let maps: (registered: ActionMap, ofClass: ActionMap?)? = epochs.withPinned {
            targets.find(target).map { found in
                let entry = found.takeUnretainedValue()
                return (entry.registered, entry.targetClass?.actions)
            }
        }
        var names = maps?.registered.names(limit: NameSuggestions.maxCandidates) ?? []
        names += maps?.ofClass?.names(limit: max(0, NameSuggestions.maxCandidates - names.count)) ?? []
        let name = target.string
        for provider in providers {
            for listed in provider.listedTargets() where listed.name.utf8.elementsEqual(name.utf8) {
                names += listed.actions
            }
        }
        return names
    }

    /// Where Swift looked for `Target_<name>`, for a name a Swift class could have.
    private func swiftSearchNote(for name: String) -> String {
        guard !name.utf8.contains(UInt8(ascii: ".")) else {
            return "; a module-qualified name finds only the class Module.Target_<Name> of that module"
        }
        let searched = modules
        if searched.isEmpty {
            return "; no Swift module is searched for a class Target_\(name): set the mediator's modules "
                + "(Mediator(modules: [\"App\"]), or Mediator.shared.modules = [\"App\"]), or call \"App.\(name)\""
        }
        return "; the class Target_\(name) was looked for in the Swift modules "
            + searched.joined(separator: ", ") + " (the mediator's modules): is the module linked into the program, "
            + "and is the class internal or public, at the top level of its module? (a private, fileprivate or "
            + "nested class cannot be found by name)"
    }
}
