import ArgumentParser

/// Which scenarios a run runs: name patterns (--filter, --filter-out) and
/// tags (--tag, --exclude-tag), as busted's --filter/--tags and pytest's -k
/// and -m do. Each scenario is judged on what its listing says (its name,
/// its script's path, its tags): nothing runs to select it.
struct Selection {
    private let include: [Regex<AnyRegexOutput>]
    private let exclude: [Regex<AnyRegexOutput>]
    private let tags: Set<[UInt8]>
    private let excludedTags: Set<[UInt8]>

    /// Patterns are regular expressions, case-insensitive, searched in the
    /// scenario's name and its script's path; tags are words, compared as
    /// bytes, several to an option when separated by commas.
    init(filters: [String], filtersOut: [String], tags: [String], excludedTags: [String]) throws {
        include = try filters.map { try Self.compiled($0, option: "--filter") }
        exclude = try filtersOut.map { try Self.compiled($0, option: "--filter-out") }
        self.tags = try Self.words(tags, option: "--tag")
        self.excludedTags = try Self.words(excludedTags, option: "--exclude-tag")
    }

    /// Whether any option narrows the run.
    var narrows: Bool { !include.isEmpty || !exclude.isEmpty || !tags.isEmpty || !excludedTags.isEmpty }

    /// What the patterns say of a script's path, once for all its
    /// scenarios: whether an include pattern matches it, and an exclude one.
    func judge(path: String) -> (included: Bool, excluded: Bool) {
        (include.contains { path.contains($0) }, exclude.contains { path.contains($0) })
    }

    /// Whether the scenario runs, its script's path judged already.
    func selects(_ scenario: ListedScenario, path: (included: Bool, excluded: Bool)) -> Bool {
        if path.excluded { return false }
        if !tags.isEmpty && !scenario.tags.contains(where: { tags.contains(Array($0.utf8)) }) { return false }
        if !excludedTags.isEmpty && scenario.tags.contains(where: { excludedTags.contains(Array($0.utf8)) }) { return false }
        if !include.isEmpty && !path.included && !include.contains(where: { scenario.name.contains($0) }) { return false }
        if exclude.contains(where: { scenario.name.contains($0) }) { return false }
        return true
    }

    private static func compiled(_ pattern: String, option: String) throws -> Regex<AnyRegexOutput> {
        do { return try Regex(pattern).ignoresCase() } catch {
            throw ValidationError(visible("\(option) \(pattern) is not a regular expression: \(error)"))
        }
    }

    /// "slow,net" and "db": the words, each as scenario() allows a tag.
    private static func words(_ values: [String], option: String) throws -> Set<[UInt8]> {
        var words: Set<[UInt8]> = []
        for value in values {
            for word in value.split(separator: ",", omittingEmptySubsequences: false) {
                let bytes = Array(word.utf8)
                guard !bytes.isEmpty, bytes.count <= 64, bytes.allSatisfy(Self.tagByte) else {
                    throw ValidationError(visible("\(option) \(value): a tag is a word of at most 64 letters, digits, "
                                                  + "_ . : or - (several separated by commas)"))
                }
                words.insert(bytes)
            }
        }
        return words
    }

    private static func tagByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
            || b == 0x5F || b == 0x2E || b == 0x3A || b == 0x2D
    }
}

/// `--shard K/N`: the K-th of N disjoint parts of the selected scenarios,
/// which together hold each exactly once, for a CI system's parallel jobs.
///
/// A scenario's part is a hash of its script's path (as given) and its
/// name, modulo N: deterministic (every job computes the same, with no file
/// to share between them), disjoint and complete (each scenario has one
/// hash), and stable as the suite grows (adding a scenario moves no other;
/// renaming one moves that one only). The price: parts balance by count
/// only, and only on average (±√(n/N) scenarios), not by duration as
/// pytest-split does from a previous report, whose parts change whenever
/// the durations do.
struct Shard: Equatable {
    let index: Int // 1-based
    let count: Int

    static let maximum = 1_000_000

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// "K/N", digits only, 1 <= K <= N <= 1,000,000.
    init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        func number(_ s: Substring) -> Int? {
            guard !s.isEmpty, s.utf8.count <= 7, s.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(s)
        }
        guard parts.count == 2, let k = number(parts[0]), let n = number(parts[1]), n >= 1, n <= Self.maximum,
              k >= 1, k <= n else {
            throw ValidationError(visible("--shard \(text): expected K/N, two whole numbers with 1 <= K <= N <= "
                                          + "\(Self.maximum) (--shard 2/5: the second of five parts)"))
        }
        index = k
        count = n
    }

    func holds(script: String, name: String) -> Bool {
        Int(Self.key(script: script, name: name) % UInt64(count)) == index - 1
    }

    /// FNV-1a over the path's bytes, a NUL, the name's bytes; then
    /// splitmix64's finalizer, so that every bit counts in `% N`.
    static func key(script: String, name: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in script.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ 0) &* 0x0000_0100_0000_01B3
        for byte in name.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }
}

/// What every shard of one run shares, so that `switchboard report merge`
/// can tell that it holds each part of the same selection once: the number
/// of scenarios selected and a digest of who they are (their keys, in the
/// order listed), written into each shard's JUnit report.
struct SelectionDigest {
    private(set) var count = 0
    private var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(script: String, name: String) {
        count += 1
        digest = (digest ^ Shard.key(script: script, name: name)) &* 0x0000_0100_0000_01B3
    }

    var hex: String {
        let text = String(digest, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
