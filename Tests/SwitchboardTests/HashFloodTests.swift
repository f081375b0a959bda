import Testing
@_spi(Faces) @testable import Switchboard

/// Twelve pairs of 6-byte blocks that collide in the low 24 bits of
/// *unseeded* FNV-1a 64 (found by a hostile review, chained: after a pair the
/// low bits agree whichever block was taken). Any choice of one block per
/// pair gives 2^12 keys that would all share one slot of a table of up to
/// 2^24 entries: building a dict of them was quadratic.
private let collidingPairs: [(String, String)] = [
    ("4659GL", "7l0jcs"), ("D1QPB4", "RJermn"), ("Y0ZJkq", "AgWYwN"), ("Swutiy", "cBsows"),
    ("oVaFPh", "RlYPxo"), ("dFr6HJ", "4z8xpf"), ("D71ODO", "YjiD55"), ("bacq8c", "BMTBkl"),
    ("LHZCTz", "sW2w35"), ("O2EfBm", "7heae1"), ("uQ4MfU", "Nyn5P0"), ("xlC1jz", "2rP8vb"),
]

@Suite("Hash flooding")
struct HashFloodTests {
    /// The registry's and the C dicts' name hash is seeded per process, so
    /// keys crafted against FNV-1a spread like any others.
    @Test func craftedKeysSpread() {
        var slots = Set<UInt64>()
        for choice in 0..<(1 << collidingPairs.count) {
            var key = ""
            for (i, pair) in collidingPairs.enumerated() { key += (choice >> i) & 1 == 0 ? pair.0 : pair.1 }
            var bytes = Array(key.utf8)
            let hash = bytes.withUnsafeMutableBufferPointer { NameHash.of($0.baseAddress!, count: $0.count) }
            slots.insert(hash & 0xFF_FFFF)
        }
        // Unseeded, all 4,096 keys share one slot; random hashes collide in
        // about 4,096² / 2^25 ≈ 0.5 pairs.
        #expect(slots.count > 4_000)
        robustnessRow("Keys crafted to collide in FNV-1a's low bits (4,096 names, for dicts and the registry)",
                      cases: 1, "the hash is seeded per process: they spread over distinct slots")
    }
}
