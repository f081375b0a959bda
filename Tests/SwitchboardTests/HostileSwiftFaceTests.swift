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

    struct Profile: Codable, Equatable {
        var name: String
        var age: Int?
        var extra: Value?
        var raw: Value
    }

    @Test("missing, extra, null and absent keys")
    func keysPresentOrNot() throws {
        // Missing: named. Extra: ignored. Null: absent for an Optional, and
        // `.null` itself for a Value.
        #expect(thrown { try (["age": 3] as Params).decode(Profile.self) }?.message.contains("\"name\" is missing") == true)
        let decoded = try (["name": "a", "age": .null, "extra": .null, "raw": .null, "zzz": 1] as Params)
            .decode(Profile.self)
        #expect(decoded == Profile(name: "a", age: nil, extra: nil, raw: .null))
        #expect(thrown { try (["name": .null, "raw": 1] as Params).decode(Profile.self) }?.message
                    .contains("\"name\": expected string, got null") == true)
        // Back: nil is left out, an explicit null is kept.
        let params = try Params(encoding: decoded)
        #expect(params.keys == ["name", "raw"])
        #expect(params["raw"] == .null)
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

    @Test("Foundation types keep their own Codable forms through a Value")
    func foundationTypes() throws {
        let date = Date(timeIntervalSinceReferenceDate: -1e9)
        #expect(try Value(encoding: date).decode(Date.self) == date)
        let url = try #require(URL(string: "https://example.com/a?b=c#d"))
        #expect(try Value(encoding: url).decode(URL.self) == url)
        let decimal = try #require(Decimal(string: "-123456789012345678901234567890.25"))
        #expect(try Value(encoding: decimal).decode(Decimal.self) == decimal)
        let uuid = UUID()
        #expect(try Value(encoding: uuid).decode(UUID.self) == uuid)
        #expect(thrown { try Value.string("not a uuid").decode(UUID.self) }?.code == .badParams)
        #expect(thrown { try Value.dict([:]).decode(URL.self) }?.code == .badParams)
    }

    enum Flavour: String, Codable { case sweet, sour }
    enum Shape: Codable, Equatable { case circle(radius: Double), square(side: Double) }

    @Test("enums: an unknown raw value or case is refused, naming the value")
    func enums() throws {
        #expect(thrown { try Value.string("bitter").decode(Flavour.self) }?.message.contains("bitter") == true)
        #expect(thrown { try Value.int(1).decode(Flavour.self) }?.code == .badParams)
        #expect(try Value(encoding: Shape.circle(radius: 2)).decode(Shape.self) == .circle(radius: 2))
        #expect(thrown { try Value.dict(["triangle": [:]]).decode(Shape.self) }?.code == .badParams)
        #expect(thrown { try Value.dict(["circle": ["radius": 1], "square": ["side": 1]]).decode(Shape.self) }?.code
                == .badParams)
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

    @Test("callbacks and pointers inside Codable values pass as they are; other coders refuse them")
    func callbacksInside() throws {
        struct Envelope: Codable { var handlers: [Value]; var meta: Params }
        let callback = Callback { _ in "called" }
        let envelope = Envelope(handlers: [.callback(callback), .array([.callback(callback)])],
                                meta: ["on": .callback(callback)])
        let value = try Value(encoding: envelope)
        let back = try value.decode(Envelope.self)
        #expect(back.handlers[0].callback === callback)
        #expect(back.handlers[1][0]?.callback === callback)
        #expect(try back.meta["on"]?.callback?(.null) == "called")
        // JSONEncoder cannot carry one: an EncodingError, no trap.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(value) }
        // A callback where data is expected is a kind mismatch.
        #expect(thrown { try Value.callback(callback).decode([Int].self) }?.message.contains("got callback") == true)
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

    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }

    struct Twice: Encodable {
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: HostileKey.self)
            try keyed.encode(1, forKey: HostileKey("a"))
            var nested = keyed.nestedContainer(keyedBy: HostileKey.self, forKey: HostileKey("n"))
            try keyed.encode("plain", forKey: HostileKey("n")) // replaces the nested container
            try nested.encode(2, forKey: HostileKey("lost")) // into the replaced one: goes nowhere
            var single = encoder.singleValueContainer() // a second kind on the same encoder
            try single.encode("last")
        }
    }

    /// Keeps its container and writes to it after encoding ended.
    final class Escaper: Encodable, @unchecked Sendable {
        var kept: KeyedEncodingContainer<HostileKey>?
        func encode(to encoder: any Encoder) throws {
            kept = encoder.container(keyedBy: HostileKey.self)
            try kept?.encode(1, forKey: HostileKey("x"))
        }
    }

    struct Failing: Encodable, Decodable {
        struct Oops: Error {}
        func encode(to encoder: any Encoder) throws { throw Oops() }
        init() {}
        init(from decoder: any Decoder) throws { throw SwitchboardError.timeout("from inside init(from:)") }
    }

    @Test("encoders that encode nothing, twice, into a replaced container, after the end, or throw")
    func strangeEncoders() throws {
        #expect(thrown { try Value(encoding: Nothing()) }?.message.contains("encoded nothing") == true)
        #expect(try Value(encoding: ["a": Nothing()]) == ["a": [:]])
        #expect(try Value(encoding: [Nothing()]) == [[:]])
        #expect(try Value(encoding: Twice()) == "last")
        let escaper = Escaper()
        #expect(try Value(encoding: escaper) == ["x": 1])
        try escaper.kept?.encode(2, forKey: HostileKey("late")) // no effect, no trap
        #expect(thrown { try Value(encoding: Failing()) }?.message.contains("did not encode") == true)
        // A SwitchboardError from inside init(from:) keeps its code.
        #expect(thrown { try Value.null.decode(Failing.self) }?.code == .timeout)
        #expect(thrown { try Params(encoding: 3) }?.code == .invalidArgument)
        #expect(thrown { try Params(encoding: UInt64.max) }?.code == .invalidArgument)
    }

    struct CallsBack: Encodable {
        let mediator: Mediator
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: HostileKey.self)
            try c.encode(try mediator.callAndWait(target: "Codec", action: "again"), forKey: HostileKey("v"))
        }
    }

    @Test("an encode(to:) that calls the mediator re-entrantly stops at the call-depth limit")
    func reentrantEncoding() throws {
        let m = Mediator()
        try m.register(target: "Codec", action: "again") { _ in try Value(encoding: CallsBack(mediator: m)) }
        let error = thrown { try m.callAndWait(target: "Codec", action: "again") }
        #expect(error?.code == .rejected)
        #expect(error?.message.contains("call depth limit") == true)
        // The mediator still answers.
        try m.register(target: "Codec", action: "plain") { _ in 1 }
        #expect(try m.callAndWait(target: "Codec", action: "plain") == 1)
    }
}

@Suite("Hostile Swift face: call contexts")
struct HostileCallContextTests {
    final class Kept: @unchecked Sendable {
        let lock = Guarded<[CallContext]>([])
        func add(_ call: CallContext) { lock.withLock { $0.append(call) } }
        var all: [CallContext] { lock.withLock { $0 } }
    }

    @Test("a context kept past its call: tags stay, the deadline is spent, the token still cancels")
    func escaped() async throws {
        let m = Mediator(), kept = Kept()
        try m.register(target: "T", action: "keep") { _, call in
            kept.add(call)
            return .null
        }
        try m.register(target: "T", action: "slow") { (_: Params) async throws -> Value in
            try await Task.sleep(for: .seconds(10))
            return 1
        }
        let token = Cancellation()
        _ = try m.callAndWait(target: "T", action: "keep",
                              options: CallOptions(tags: ["push"], cancellation: token, timeout: .milliseconds(1)))
        let call = try #require(kept.all.first)
        try await Task.sleep(for: .milliseconds(20))
        #expect(call.tags == ["push"] && call.timeRemaining == .zero && !call.isCancelled)
        // Its options carry the spent deadline: a call waiting with them times out at once.
        await #expect { try await call.mediator.call(target: "T", action: "slow", options: call.options) } throws: {
            ($0 as? SwitchboardError)?.code == .timeout
        }
        token.cancel()
        #expect(call.isCancelled)
        await #expect {
            try await call.mediator.call(target: "T", action: "slow", options: CallOptions(cancellation: call.cancellation))
        } throws: { ($0 as? SwitchboardError)?.code == .canceled }
    }

    @Test("a context used on another thread while and after its call runs; it keeps its mediator alive, no longer")
    func otherThread() async throws {
        var m: Mediator? = Mediator()
        weak let weakMediator = m
        let kept = Kept()
        try m!.register(target: "T", action: "keep") { _, call in
            kept.add(call)
            return .string(call.tags.first ?? "-")
        }
        try m!.register(target: "T", action: "spawn") { _, call in
            let thread = Thread { _ = try? call.mediator.callAndWait(target: "T", action: "keep") }
            thread.start()
            return .null
        }
        _ = try m!.callAndWait(target: "T", action: "spawn", options: CallOptions(tags: ["outer"]))
        for _ in 0..<500 where kept.all.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        // The other thread's call is a call of its own: no tags inherited.
        #expect(kept.all.first?.tags == [])
        m = nil
        #expect(weakMediator != nil) // held by the kept contexts
        kept.lock.withLock { $0.removeAll() }
        // The other thread lets go of its copy as it ends.
        for _ in 0..<500 where weakMediator != nil { try await Task.sleep(for: .milliseconds(2)) }
        #expect(weakMediator == nil)
    }

    @Test("nested calls each see their own tags, and the innermost deadline")
    func nested() throws {
        let m = Mediator(), kept = Kept()
        try m.register(target: "T", action: "inner") { _, call in
            kept.add(call)
            return .null
        }
        try m.register(target: "T", action: "outer") { _, call in
            kept.add(call)
            return try call.mediator.callAndWait(target: "T", action: "inner",
                                                 options: CallOptions(tags: ["in"], timeout: .seconds(5)))
        }
        _ = try m.callAndWait(target: "T", action: "outer", options: CallOptions(tags: ["out"], timeout: .seconds(60)))
        let calls = kept.all
        #expect(calls.map(\.tags) == [["out"], ["in"]])
        #expect((calls[1].timeRemaining ?? .zero) <= .seconds(5) && (calls[0].timeRemaining ?? .zero) > .seconds(5))
    }
}

@Suite("Hostile Swift face: hook ids")
struct HostileHookIDTests {
    @Test("another mediator's id, a forged id, an id removed twice: false, and nobody's hook is touched")
    func foreignAndForged() throws {
        let a = Mediator(), b = Mediator()
        let seen = Guarded<[String]>([])
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

    @Test("a hook that removes itself while it runs: the call goes on, the next call skips it")
    func removedWhileRunning() throws {
        let m = Mediator()
        try m.register(target: "T", action: "a") { _ in 1 }
        let ids = Guarded<(InterceptorID?, ObserverID?)>((nil, nil))
        let removals = Guarded<[Bool]>([])
        let interceptor = try m.addInterceptor(named: "once") { _ in
            let id = ids.withLock { $0.0 }!
            removals.withLock { $0.append(m.removeInterceptor(id)) }
            return .proceed
        }
        let observer = try m.addObserver { _ in
            let id = ids.withLock { $0.1 }!
            removals.withLock { $0.append(m.removeObserver(id)) }
        }
        ids.withLock { $0 = (interceptor, observer) }
        #expect(try m.callAndWait(target: "T", action: "a") == 1)
        #expect(try m.callAndWait(target: "T", action: "a") == 1)
        // The interceptor once; the observer at the first call's start, then
        // perhaps at its end (a running call keeps its hooks), never again.
        let seen = removals.withLock { $0 }
        #expect(seen.first == true && seen.dropFirst().first == true && seen.dropFirst(2).allSatisfy { !$0 })
        #expect(seen.count <= 3)
    }
}

@Suite("Hostile Swift face: blocking forms where blocking is wrong")
struct HostileBlockingTests {
    @Test("a blocking call from a Swift task, or from an action inside an awaited call, is refused before the action starts")
    func fromTasks() async throws {
        let m = Mediator()
        let started = Atomic<Int>(0)
        try m.register(target: "T", action: "later") { (_: Params) async throws -> Value in
            started.add(1, ordering: .relaxed)
            return 1
        }
        try m.register(target: "T", action: "blocks") { _ in try m.callAndWait(target: "T", action: "later") }
        let direct = thrown { try m.callAndWait(target: "T", action: "later") }
        #expect(direct?.code == .wouldBlock && direct?.message.contains("try await") == true)
        await #expect { try await m.call(target: "T", action: "blocks") } throws: {
            ($0 as? SwitchboardError)?.code == .wouldBlock
        }
        // The non-throwing form gives null, as it does for any failure.
        #expect(m.performAndWait(target: "T", action: "later") == .null)
        // From an async action's own task too.
        try m.register(target: "T", action: "asyncBlocks") { (_: Params) async throws -> Value in
            try m.callAndWait(target: "T", action: "later")
        }
        await #expect { try await m.call(target: "T", action: "asyncBlocks") } throws: {
            ($0 as? SwitchboardError)?.code == .wouldBlock
        }
        #expect(started.load(ordering: .relaxed) == 0)
        // Awaited, it runs.
        #expect(try await m.call(target: "T", action: "later") == 1)
    }

    @Test("a main-actor action called by a thread that waits is refused at once, with its context form too")
    func mainActorFromThread() async throws {
        let m = Mediator()
        try m.register(target: "T", action: "ui", isolation: MainActor.shared) { _ in "ui" }
        try m.register(target: "T", action: "uiContext", isolation: MainActor.shared) { _, call in .string(call.tags.first ?? "") }
        let codes = await withCheckedContinuation { (done: CheckedContinuation<[SwitchboardError.Code?], Never>) in
            Thread {
                done.resume(returning: ["ui", "uiContext"].map { action in
                    thrown { try m.callAndWait(target: "T", action: action, options: CallOptions(tags: ["x"])) }?.code
                })
            }.start()
        }
        #expect(codes == [.wouldBlock, .wouldBlock])
        #expect(try await m.call(target: "T", action: "uiContext", options: CallOptions(tags: ["x"])) == "x")
    }
}
