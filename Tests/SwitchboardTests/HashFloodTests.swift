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
    /// The 4,096 crafted keys: one block of each pair, every choice.
    private static let craftedKeys: [[UInt8]] = (0..<(1 << collidingPairs.count)).map { choice in
        var key = ""
        for (i, pair) in collidingPairs.enumerated() { key += (choice >> i) & 1 == 0 ? pair.0 : pair.1 }
        return Array(key.utf8)
    }

    /// How many slots of a 2^24-entry table the crafted keys fill.
    private static func slots(_ hash: (UnsafeBufferPointer<UInt8>) -> UInt64) -> Int {
        Set(craftedKeys.map { key in key.withUnsafeBufferPointer { hash($0) } & 0xFF_FFFF }).count
    }

    /// The registry's and the C dicts' name hash is seeded per process, so
    /// keys crafted against FNV-1a spread like any others.
    @Test func craftedKeysSpread() {
        // Unseeded, all 4,096 keys share one slot; random hashes collide in
        // about 4,096² / 2^25 ≈ 0.5 pairs.
        #expect(Self.slots { NameHash.of($0.baseAddress!, count: $0.count) } > 4_000)
        robustnessRow("Keys crafted to collide in FNV-1a's low bits (4,096 names, for dicts and the registry)",
                      cases: 1, "the hash is seeded per process: they spread over distinct slots")
    }

    /// FNV-1a's low bits depend only on the seed's low bits: for about one
    /// seed in 150 the crafted keys still collided there (the first three
    /// seeds below are such seeds, found by search). The finish folds the
    /// high bits down, so they spread under every seed.
    @Test func craftedKeysSpreadUnderEverySeed() {
        var seeds: [UInt64] = [0x415a_c400_d754_7080, 0x301b_a988_0a3e_fb80, 0x725a_9a5b_f6a0_7500]
        var generator = Seeded(state: 23)
        for _ in 0..<40 { seeds.append(generator.next()) }
        for seed in seeds {
            #expect(Self.slots { NameHash.of($0, seed: seed) } > 4_000, "seed \(String(seed, radix: 16))")
        }
        robustnessRow("Keys crafted to collide in FNV-1a's low bits, under seeds for which FNV-1a alone still "
                      + "collides there", cases: seeds.count, "the finalized hash spreads them over distinct slots")
    }
}

