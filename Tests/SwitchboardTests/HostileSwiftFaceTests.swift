import Testing
import Foundation
import Synchronization
@_spi(Faces) @testable import Switchboard

// What issue 45 added to the Swift face, attacked as a hostile caller would:
// values that do not fit the Swift type, recursive and huge types, strange
// encoders, escaped call contexts, forged hook ids and blocking calls where
// blocking is wrong. Each attack ends in a value or a clear SwitchboardError,
// never a trap, a hang or a stranger's state changed.

/// The error `body` throws, or nil.
private func thrown<T>(_ body: () throws -> T) -> SwitchboardError? {
    do {
        _ = try body()
        return nil
    } catch let error as SwitchboardError {
        return error
    } catch {
        Issue.record("not a SwitchboardError: \(error)")
        return nil
    }
}

/// A linked list: a recursive Codable type as deep as the input says.
private final class Link: Codable, @unchecked Sendable {
    let n: Int
    let next: Link?
    init(_ n: Int, _ next: Link?) {
        self.n = n
        self.next = next
    }

    /// `count` links, built and torn down without recursion.
    static func chain(_ count: Int) -> Link {
        var link = Link(0, nil)
        for i in 1..<count { link = Link(i, link) }
        return link
    }

    /// Releases a long chain link by link (ARC would recurse).
    static func dismantle(_ link: inout Link?) {
        while let current = link {
            link = current.next
            _ = current
        }
    }
}

/// A value nesting `depth` dicts (a `Link` chain as data).
private func nestedDicts(_ depth: Int) -> Value {
    var value: Value = ["n": 0]
    for i in 1..<depth { value = ["n": .int(i), "next": value] }
    return value
}

/// A coding key that is any text.
struct HostileKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ text: String) { stringValue = text }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

@Suite("Hostile Swift face: the Codable bridge")
struct HostileCodableTests {
    struct Scalars: Codable {
        var i: Int?
        var i8: Int8?
        var u64: UInt64?
        var f: Float?
        var d: Double?
        var b: Bool?
        var s: String?
    }

    @Test("every kind of value into every scalar type: a value or .badParams, never a trap")
    func kindMatrix() throws {
        let values: [Value] = [
            .null, .bool(true), .int(0), .int(.min), .int(.max), .int(-1), .double(.nan), .double(.infinity),
            .double(-0.0), .double(1e300), .double(3.0), .string(""), .string("7"), .bytes([0xFF]), .array([]),
            .dict([:]), .callback(Callback { $0 }), .pointer(Pointer(object: Callback { $0 })),
        ]
        let fields = ["i", "i8", "u64", "f", "d", "b", "s"]
        var outcomes = 0
        for value in values {
            for field in fields {
                let params: Params = [field: value]
                if let error = thrown({ try params.decode(Scalars.self) }) {
                    #expect(error.code == .badParams, "\(field) <- \(value): \(error)")
                    #expect(error.message.contains("\"\(field)\""), "\(error.message)")
                }
                outcomes += 1
            }
        }
        // What fits, fits exactly; what does not is refused with the reason.
        let d = { (v: Value) in try (["d": v] as Params).decode(Scalars.self).d }
        let f = { (v: Value) in try (["f": v] as Params).decode(Scalars.self).f }
        #expect(try (["i": .int(.min)] as Params).decode(Scalars.self).i == Int.min)
        #expect(thrown { try (["i8": .int(.min)] as Params).decode(Scalars.self) }?.message.contains("does not fit in Int8") == true)
        #expect(thrown { try (["u64": -1] as Params).decode(Scalars.self) }?.message.contains("does not fit in UInt64") == true)
        #expect(thrown { try (["i": 3.0] as Params).decode(Scalars.self) }?.message.contains("expected int, got double 3.0") == true)
        #expect(thrown { try (["i": 1e300] as Params).decode(Scalars.self) }?.code == .badParams)
        #expect(thrown { try d(.int(.max)) }?.message.contains("has no exact double") == true)
        #expect(try d(.double(-0.0))?.sign == .minus)
        #expect(try d(.double(.nan))?.isNaN == true)
        #expect(try f(.double(.infinity)) == .infinity)
        #expect(try f(.double(3.25)) == 3.25)
        #expect(try f(.int(16_777_216)) == 16_777_216)
        // Float: a double beyond its range is no Float, and an int it cannot
        // hold exactly is none either (as for Double).
        #expect(thrown { try f(.double(1e300)) }?.message.contains("does not fit in Float") == true)
        #expect(thrown { try f(.double(-1e39)) }?.message.contains("does not fit in Float") == true)
        #expect(thrown { try f(.int(16_777_217)) }?.message.contains("has no exact Float") == true)
        #expect(thrown { try (["s": .bytes([0xFF])] as Params).decode(Scalars.self) }?.message
                    .contains("expected string, got bytes") == true)
        robustnessRow("Codable: every kind of value (null, bool, int extremes, NaN, infinities, -0.0, 1e300, bytes, "
                      + "containers, callbacks, pointers) decoded into every scalar Swift type", cases: outcomes,
                      ".badParams naming the key, or the value when it fits exactly (Float range checked)")
    }

    @Test("bytes and strings: a string's UTF-8 decodes as bytes (Lua's one type for both), bytes never as a string")
    func bytesAndStrings() throws {
        struct Blob: Codable { var bytes: [UInt8]; var data: Data; var text: String }
        let fromString = try (["bytes": "abc", "data": "é", "text": "t"] as Params).decode(Blob.self)
        #expect(fromString.bytes == Array("abc".utf8) && fromString.data == Data("é".utf8))
        let fromBytes = try (["bytes": .bytes([0, 0xFF]), "data": .bytes([0xFE]), "text": "t"] as Params)
            .decode(Blob.self)
        #expect(fromBytes.bytes == [0, 0xFF] && fromBytes.data == Data([0xFE]))
        let notUTF8 = thrown { try (["bytes": "", "data": "", "text": .bytes([0xC3, 0x28])] as Params).decode(Blob.self) }
        #expect(notUTF8?.message.contains("\"text\": expected string, got bytes") == true)
        // An array of ints is bytes too; a string is no array of numbers.
        #expect(try (["bytes": [1, 2], "data": [3], "text": ""] as Params).decode(Blob.self).data == Data([3]))
        #expect(thrown { try Value.string("ab").decode([Int].self) }?.code == .badParams)
        #expect(thrown { try Value.array([256]).decode([UInt8].self) }?.message.contains("does not fit in UInt8") == true)
        // Data round-trips (as the ints Data encodes itself as).
        let data = Data((0..<300).map { UInt8($0 % 256) })
        #expect(try Value(encoding: data).decode(Data.self) == data)
        robustnessRow("Codable: bytes and strings crossed (a Lua string for [UInt8] and Data, non-UTF-8 bytes for "
                      + "a String, 256 for a UInt8)", cases: 5,
                      "a string decodes as its UTF-8 bytes, as contracts convert it; the rest .badParams naming the key")
    }

    @Test("dicts with Int keys, keys with control bytes, and messages that quote huge input only in part")
    func keysAndMessages() throws {
        let byInt: [Int: String] = [3: "a", -1: "b"]
        #expect(try Value(encoding: byInt).decode([Int: String].self) == byInt)
        #expect(thrown { try Value.dict(["x": "a"]).decode([Int: String].self) }?.code == .badParams)
        // A key with ESC and NUL is quoted with escapes, never raw.
        let message = thrown { try Value.dict(["\u{1B}[2J\u{0}": "x"]).decode([String: Int].self) }?.message ?? ""
        #expect(message.contains("\\u001b[2J\\u0000") && !message.contains("\u{1B}"))
        // One character of 100,000 combining marks, and a 100,000-byte key:
        // messages quote a few dozen scalars of each.
        let huge = "e" + String(repeating: "\u{301}", count: 100_000)
        let wrongKind = thrown { try (["s": .string(huge)] as Params).decode([String: Int].self) }
        #expect(wrongKind?.code == .badParams)
        #expect((wrongKind?.message.utf8.count ?? .max) < 400)
        let longKey = String(repeating: "k", count: 100_000)
        let keyed = thrown { try Value.dict([longKey: "x"]).decode([String: Int].self) }
        #expect(keyed?.code == .badParams)
        #expect((keyed?.message.utf8.count ?? .max) < 400)
        // A contract's refusal quotes the string so too, escaped: no raw ESC
        // reaches a terminal that prints the message.
        let m = Mediator()
        try m.register(target: "T", action: "a", contract: "n: int") { _ in .null }
        let refused = thrown { try m.callAndWait(target: "T", action: "a", params: ["n": .string("\u{1B}]0;x\u{7}" + huge)]) }
        #expect(refused?.code == .badParams)
        #expect((refused?.message.utf8.count ?? .max) < 400)
        #expect(refused?.message.contains("\u{1B}") == false)
        robustnessRow("Codable and contracts: a wrong value under a 100,000-byte key, a string of one character of "
                      + "100,000 combining marks, with ESC and BEL", cases: 3,
                      "messages quote the first few dozen scalars of each, control bytes escaped")
    }

    @Test("a recursive type 5,000 deep is refused both ways at SB_MAX_DEPTH, not run until the stack overflows")
    func recursiveTypes() throws {
        let limit = Value.maximumJSONDepth
        // Encoding: 5,000 links overflowed the stack (SIGSEGV).
        var chain: Link? = Link.chain(5_000)
        let encoding = thrown { try Value(encoding: chain!) }
        #expect(encoding?.code == .invalidArgument)
        #expect(encoding?.message.contains("values nest deeper than \(limit)") == true)
        Link.dismantle(&chain)
        // Exactly at the limit: 200 nested dicts encode, 201 do not.
        var atLimit: Link? = Link.chain(limit)
        let encoded = try Value(encoding: atLimit!)
        #expect(encoded == nestedDicts(limit))
        Link.dismantle(&atLimit)
        var beyond: Link? = Link.chain(limit + 1)
        #expect(thrown { try Value(encoding: beyond!) }?.code == .invalidArgument)
        Link.dismantle(&beyond)
        // Decoding: a Swift-made value 5,000 deep (no face makes one) overflowed the stack too.
        let deep = nestedDicts(5_000)
        let decoding = thrown { try deep.decode(Link.self) }
        #expect(decoding?.code == .badParams)
        #expect(decoding?.message.contains("values nest deeper than \(limit)") == true)
        var decoded: Link? = try nestedDicts(limit).decode(Link.self)
        #expect(decoded?.n == limit - 1)
        Link.dismantle(&decoded)
        #expect(thrown { try nestedDicts(limit + 1).decode(Link.self) }?.code == .badParams)
        robustnessRow("Codable: a recursive type (a linked list) 5,000 deep, encoded and decoded; 200 and 201 deep",
                      cases: 6, "beyond SB_MAX_DEPTH .invalidArgument / .badParams naming the path; at it, the value")
    }

    /// Recurses through superEncoder(forKey:) and superDecoder(forKey:) alone,
    /// never through the generic encode/decode.
    final class ViaSuper: Codable, @unchecked Sendable {
        let next: ViaSuper?
        init(_ next: ViaSuper?) { self.next = next }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: HostileKey.self)
            try c.encode(true, forKey: HostileKey("here"))
            if let next { try next.encode(to: c.superEncoder(forKey: HostileKey("next"))) }
        }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: HostileKey.self)
            next = c.contains(HostileKey("next")) ? try ViaSuper(from: c.superDecoder(forKey: HostileKey("next"))) : nil
        }
    }

    @Test("recursion through superEncoder and superDecoder stops at the limit too")
    func recursionViaSuper() throws {
        var chain = ViaSuper(nil)
        for _ in 0..<5_000 { chain = ViaSuper(chain) }
        #expect(thrown { try Value(encoding: chain) }?.code == .invalidArgument)
        var value: Value = ["here": true]
        for _ in 0..<5_000 { value = ["here": true, "next": value] }
        #expect(thrown { try value.decode(ViaSuper.self) }?.code == .badParams)
        withExtendedLifetime(chain) {}
        var link: ViaSuper? = chain
        while let current = link { link = current.next }
    }

    @Test("200,000 elements and 100,000 keys encode in linear work, and decode back")
    func hugeContainers() throws {
        // Each element or key copied the container's array so far: 100,000
        // keys took minutes. A wall bound far above the linear cost (under
        // a second here, a few under TSan) stands for that.
        let clock = ContinuousClock(), started = clock.now
        let ints = Array(repeating: 7, count: 200_000)
        let array = try Value(encoding: ints)
        #expect(array.array?.count == 200_000)
        var byName: [String: Int] = [:]
        for i in 0..<100_000 { byName["k\(i)"] = i }
        let dict = try Value(encoding: byName)
        #expect(dict.dict?.count == 100_000)
        #expect(try array.decode([Int].self) == ints)
        #expect(try dict.decode([String: Int].self) == byName)
        let bytes = try Value(encoding: [UInt8](repeating: 1, count: 1_000_000))
        #expect(try bytes.decode(Data.self).count == 1_000_000)
        let elapsed = clock.now - started
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        robustnessRow("Codable: an array of 200,000 ints, a dict of 100,000 keys, 1,000,000 bytes as Data",
                      cases: 3, "encoded and decoded in linear work (each element copied the container: quadratic)")
    }
}

@Suite("Hostile Swift face: hook ids")
struct HostileHookIDTests {
    @Test("another mediator's id, a forged id, an id removed twice: false, and nobody's hook is touched")
    func foreignAndForged() throws {
        let a = Mediator(), b = Mediator()
        let seen = Mutex<[String]>([])
        try b.register(target: "T", action: "a") { _ in 1 }
        let inA = try a.addInterceptor(named: "a") { _ in .proceed }
        let observedInA = try a.addObserver { _ in }
        try b.addInterceptor(named: "b") { _ in
            seen.withLock { $0.append("b") }
            return .proceed
        }
        try b.addObserver { event in if event.phase == .end { seen.withLock { $0.append("end") } } }
        // a's ids name nothing in b (each mediator counted from 1, so they named b's hooks).
        #expect(!b.removeInterceptor(inA))
        #expect(!b.removeObserver(observedInA))
        #expect(!b.removeInterceptor(InterceptorID(rawValue: 0)))
        #expect(!b.removeInterceptor(InterceptorID(rawValue: .max)))
        #expect(!b.removeObserver(ObserverID(rawValue: inA.rawValue)))
        _ = try b.callAndWait(target: "T", action: "a")
        #expect(seen.withLock { $0 } == ["b", "end"])
        #expect(a.removeInterceptor(inA) && !a.removeInterceptor(inA))
        #expect(a.removeObserver(observedInA) && !a.removeObserver(observedInA))
        robustnessRow("Hook ids: another mediator's interceptor and observer ids, ids 0 and UInt64.max, an id "
                      + "removed twice", cases: 6, "false; ids are unique in the process, so no other hook is removed")
    }
}
