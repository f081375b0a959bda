import Testing
@_spi(Faces) @testable import Switchboard

/// Keys that Swift's `String ==` calls equal but whose bytes differ.
enum Spellings {
    static let cafeComposed = "caf\u{E9}"       // é as one scalar
    static let cafeDecomposed = "cafe\u{301}"   // e + COMBINING ACUTE ACCENT
    static let angstroms = ["\u{C5}", "A\u{30A}", "\u{212B}"] // Å three ways
}

@Suite("Dict: ordered, keyed by bytes")
struct DictTests {
    @Test("two spellings of one character are two keys")
    func spellingsAreDistinct() {
        #expect(Spellings.cafeComposed == Spellings.cafeDecomposed) // Swift's view
        var d: Params = [Spellings.cafeComposed: 1]
        d[Spellings.cafeDecomposed] = 2
        #expect(d.count == 2)
        #expect(d[Spellings.cafeComposed] == 1)
        #expect(d[Spellings.cafeDecomposed] == 2)
        #expect(d.keys.map { Array($0.utf8) } == [Array(Spellings.cafeComposed.utf8), Array(Spellings.cafeDecomposed.utf8)])

        let all = Params(Spellings.angstroms.enumerated().map { ($0.element, Value.int(Int64($0.offset))) })
        #expect(all.count == 3)
        for (i, key) in Spellings.angstroms.enumerated() { #expect(all[key] == .int(Int64(i))) }
    }

    @Test("insertion order: a replaced key keeps its place; a removed one set again goes last")
    func order() {
        var d: Params = ["zeta": 1, "alpha": 2, "mid": 3]
        #expect(d.keys == ["zeta", "alpha", "mid"])
        d["alpha"] = 20
        #expect(d.keys == ["zeta", "alpha", "mid"])
        #expect(d["alpha"] == 20)
        #expect(d.removeValue(forKey: "zeta") == 1)
        d["zeta"] = 10
        #expect(d.keys == ["alpha", "mid", "zeta"])
        d["mid"] = nil
        #expect(d.keys == ["alpha", "zeta"])
        #expect(d.removeValue(forKey: "absent") == nil)
        #expect(Array(d.map(\.value)) == [20, 10])
        var seen: [String] = []
        for (key, _) in d { seen.append(key) }
        #expect(seen == ["alpha", "zeta"])
    }

    @Test("equality compares keys by bytes and values, in any order")
    func equality() {
        let a: Params = ["x": 1, "y": [1, 2]]
        let b: Params = ["y": [1, 2], "x": 1]
        #expect(a == b)
        #expect(Value.dict(a) == Value.dict(b))
        #expect(([Spellings.cafeComposed: 1] as Params) != [Spellings.cafeDecomposed: 1])
        #expect(Value.string(Spellings.cafeComposed) != Value.string(Spellings.cafeDecomposed))
        #expect(a != ["x": 1])
        #expect(a != ["x": 1, "y": [2, 1]])
    }

    @Test("a large dict (hash index) keeps order and bytes through inserts and removals", arguments: [9, 100, 5_000])
    func large(count: Int) {
        var d = Params()
        var expected: [String] = []
        for i in 0..<count {
            // Alternate spellings, so every other key pair is canonically equal.
            let key = i % 2 == 0 ? "\(i / 2)\(Spellings.cafeComposed)" : "\(i / 2)\(Spellings.cafeDecomposed)"
            d[key] = .int(Int64(i))
            expected.append(key)
        }
        #expect(d.count == count)
        #expect(d.keys.elementsEqual(expected) { $0.hasSameBytes(as: $1) })
        for (i, key) in expected.enumerated() { #expect(d[key] == .int(Int64(i))) }
        // Remove every third key, then set the first removed one again.
        for key in expected.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) { d[key] = nil }
        let kept = expected.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        #expect(d.keys.elementsEqual(kept) { $0.hasSameBytes(as: $1) })
        d[expected[0]] = "back"
        #expect(d.keys.last.map { $0.hasSameBytes(as: expected[0]) } == true)
        #expect(d[expected[0]] == "back")
        #expect(d[expected[1]] == .int(1))
        #expect(d["absent"] == nil)
    }

    @Test("literals, Dictionary and sequences become dicts in a stated order")
    func construction() {
        let literal: Params = ["b": 1, "a": 2, "b": 3]
        #expect(literal.keys == ["b", "a"])
        #expect(literal["b"] == 3)
        // A Dictionary has no order: its keys come in byte order.
        let fromDictionary = Params(["b": 1, "a": 2, Spellings.cafeComposed: 3])
        #expect(fromDictionary.keys == ["a", "b", Spellings.cafeComposed])
        let fromPairs = Params([("z", Value.int(1)), ("y", Value.int(2))])
        #expect(fromPairs.keys == ["z", "y"])
        #expect(Params(fromPairs.filter { $0.key == "y" }).keys == ["y"])
        #expect(fromPairs.filter { $0.key == "z" }.keys == ["z"])
        #expect(fromPairs.mapValues { _ in .null }.keys == ["z", "y"])
        #expect(fromPairs.merging(["y": 0, "x": 9]).keys == ["z", "y", "x"])
        #expect(fromPairs.merging(["y": 0, "x": 9])["y"] == 0)
    }

    @Test("JSON keeps order and both spellings, and reads back to the same keys")
    func json() throws {
        let d: Value = ["zeta": 1, "alpha": 2, Spellings.cafeComposed: 3, Spellings.cafeDecomposed: 4]
        let text = d.description
        #expect(text == "{\"zeta\":1,\"alpha\":2,\"\(Spellings.cafeComposed)\":3,\"\(Spellings.cafeDecomposed)\":4}")
        let back = try Value(json: text)
        #expect(back.dict?.keys.map { Array($0.utf8) } == d.dict?.keys.map { Array($0.utf8) })
        #expect(back == d)
        // The same bytes twice is still a repeated key.
        #expect(throws: SwitchboardError.self) { try Value(json: #"{"a":1,"a":2}"#) }
    }
}
