import Testing
import Foundation
import Synchronization
import CSwitchboard
import LuaInteropHelpers
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A small seeded generator, so every failing case can be run again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random values whose keys and strings come in every normalization form.
enum Confusable {
    /// Groups that Swift's `String ==` calls equal (é, Å, ḍ̇, 한, Ω written
    /// several ways), a ligature, and plain, empty and non-BMP text.
    static let words = [
        "zeta", "alpha", "caf\u{E9}", "cafe\u{301}", "\u{C5}", "A\u{30A}", "\u{212B}", "\u{FB01}", "fi",
        "\u{1E0B}\u{323}", "\u{1E0D}\u{307}", "d\u{323}\u{307}", "\u{D55C}", "\u{1112}\u{1161}\u{11AB}",
        "\u{3A9}", "\u{2126}", "", " ", "日本", "😀", "n",
    ]

    static func word(_ rng: inout SplitMix64) -> String { words.randomElement(using: &rng)! }

    static func dict(_ rng: inout SplitMix64, depth: Int) -> Params {
        var d = Params()
        for _ in 0..<Int.random(in: 0...6, using: &rng) { d[word(&rng)] = value(&rng, depth: depth + 1) }
        return d
    }

    static func value(_ rng: inout SplitMix64, depth: Int) -> Value {
        switch Int.random(in: 0...(depth > 3 ? 6 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0...63, using: &rng))
        case 3: return .double(Double.random(in: -1e9...1e9, using: &rng))
        case 4: return .string(word(&rng) + word(&rng))
        // Not UTF-8, so Lua gives it back as bytes rather than a string.
        case 5: return .bytes([0xFF] + (0..<Int.random(in: 0...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 6: return .string(word(&rng))
        case 7: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default: return .dict(dict(&rng, depth: depth))
        }
    }
}

/// Whether `a` and `b` are the same value byte for byte and in the same
/// order (`==` ignores dict order, as JSON objects do).
func identical(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case let (.dict(x), .dict(y)):
        return x.count == y.count && zip(x, y).allSatisfy { $0.key.hasSameBytes(as: $1.key) && identical($0.value, $1.value) }
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy(identical)
    case let (.double(x), .double(y)):
        return x.bitPattern == y.bitPattern
    default:
        return a == b
    }
}

/// `params` with `key` set last, as a contract's default is.
func appending(_ params: Params, _ key: String, _ value: Value) -> Value {
    var p = params
    p[key] = nil
    p[key] = value
    return .dict(p)
}

/// One process with echo targets in C and Lua, plain and with a contract.
final class OrderWorld {
    let world: World
    let events = Events()

    /// The params observers saw, in order.
    final class Events: Sendable {
        private let seen = Guarded<[Params]>([])
        func append(_ p: Params) { seen.withLock { $0.append(p) } }
        var all: [Params] { seen.withLock { $0 } }
    }

    init() throws {
        world = try World()
        let echo: sb_fn = { _, args, out in
            out?.pointee = sb_value_retain(args)
            return SB_OK
        }
        #expect(sb_action_register(world.handle, "CEcho", "back", echo, nil, nil) == SB_OK)
        #expect(sb_action_register_contract(world.handle, "CTyped", "back", "x: int = 1", echo, nil, nil) == SB_OK)
        _ = try world.lua("""
            sb.target("LuaEcho", { back = function(p) return p end,
                                   maker = function() return function(x) return x end end })
            sb.target("LuaTyped", { back = { params = "x: int = 1", fn = function(p) return p end } })
            sb.target("LuaEdit", { back = function(p) p.zeta = nil; p.added = true; p.aardvark = 1; return p end })
            return true
            """)
        try world.mediator.addInterceptor(named: "redirect") { call in
            call.target == "Nowhere" ? .redirect(target: "LuaEcho", action: "back", params: nil) : .proceed
        }
        let events = self.events
        try world.mediator.addObserver { event in
            if event.phase == .start, event.target == "CEcho" { events.append(event.params) }
        }
    }

    var mediator: Mediator { world.mediator }
    var handle: OpaquePointer { world.handle }

    /// A C caller's call: params made in C from `params`, the result read back.
    func callFromC(_ target: String, _ params: Params) throws -> Value {
        let native = try Handle.from(.dict(params))
        defer { native.release() }
        var out: OpaquePointer?
        guard sb_action_perform(handle, target, "back", native.pointer, 0, &out) == SB_OK, let out else {
            throw SwitchboardError.invalidArgument(String(cString: sb_error_message()))
        }
        defer { sb_value_release(out) }
        return try Handle(out).toValue()
    }

    /// The value through `sb_json_encode` and `sb_json_decode`.
    func throughCJSON(_ value: Value) throws -> Value {
        let native = try Handle.from(value)
        defer { native.release() }
        let text = try #require(sb_json_encode(native.pointer))
        defer { sb_memory_free(text) }
        var back: OpaquePointer?
        #expect(sb_json_decode(text, &back) == SB_OK)
        defer { sb_value_release(back) }
        return try Handle(try #require(back)).toValue()
    }
}


@Suite("Dict order and key bytes across Swift, C, Lua and JSON")
struct OrderTests {
    @Test("random values come back identical on every path", arguments: 1...40)
    func roundTrip(seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        let params = Confusable.dict(&rng, depth: 0)
        let given = Value.dict(params)
        let o = try OrderWorld()
        let m = o.mediator

        // Swift -> C -> Lua -> C -> Swift, then JSON both ways.
        let fromLua = try m.callAndWait(target: "LuaEcho", action: "back", params: params)
        #expect(identical(fromLua, given), "Swift -> Lua: \(fromLua) is not \(given)")
        #expect(identical(try o.throughCJSON(fromLua), given), "sb_json_encode / sb_json_decode")
        #expect(identical(try Value(json: fromLua.description), given), "description / init(json:)")
        // A C caller, a Lua target; and a C target.
        #expect(identical(try o.callFromC("LuaEcho", params), given), "C -> Lua")
        #expect(identical(try o.callFromC("CEcho", params), given), "C -> C")
        #expect(identical(try m.callAndWait(target: "CEcho", action: "back", params: params), given), "Swift -> C")
        // Contracts fill in their default after the caller's keys.
        let typed = appending(params, "x", 1)
        #expect(identical(try m.callAndWait(target: "CTyped", action: "back", params: params), typed), "Swift -> C, contract")
        #expect(identical(try o.callFromC("CTyped", params), typed), "C -> C, contract")
        #expect(identical(try m.callAndWait(target: "LuaTyped", action: "back", params: params), typed), "Swift -> Lua, contract")
        // A prepared route, an interceptor's redirect, an observer, a callback.
        #expect(identical(try m.route(target: "LuaEcho", action: "back").callAndWait(params), given), "route")
        #expect(identical(try m.callAndWait(target: "Nowhere", action: "x", params: params), given), "redirect")
        let callback = try #require(try m.callAndWait(target: "LuaEcho", action: "maker").callback)
        #expect(identical(try callback(given), given), "a Lua callback")
        let seen = o.events.all
        #expect(seen.count == 2) // C -> C and Swift -> C
        for event in seen { #expect(identical(.dict(event), given), "observer") }
    }

    @Test("the three failures first seen: contract order, NFD key, JSON")
    func firstSeen() throws {
        let o = try OrderWorld()
        let params: Params = ["zeta": 1, "alpha": 2, Spelling.composed: 3, Spelling.decomposed: 4]
        let plain = try o.callFromC("CEcho", params)
        let typed = try o.callFromC("CTyped", params)
        #expect(plain.dict?.count == 4)
        #expect(identical(plain, .dict(params)))
        #expect(identical(typed, appending(params, "x", 1)))
        let json = try o.throughCJSON(.dict(params))
        #expect(json.dict?.count == 4)
        #expect(identical(json, .dict(params)))
    }

    @Test("URL query keys keep their order and bytes; params beside the URL go after")
    func urlQuery() throws {
        let o = try OrderWorld()
        let result = try o.mediator.callAndWait(url: "app://LuaEcho/back?zeta=1&alpha=2&caf%C3%A9=3&cafe%CC%81=4&zeta=5",
                                         params: ["beside": true])
        let pairs: [(String, Value)] = [("zeta", ["1", "5"]), ("alpha", "2"), (Spelling.composed, "3"),
                                        (Spelling.decomposed, "4"), ("beside", true)]
        let expected = Value.dict(Params(pairs))
        #expect(identical(result, expected), "\(result)")
    }

    @Test("a table made from a dict keeps its order; keys Lua adds follow in byte order")
    func luaEdits() throws {
        let o = try OrderWorld()
        let result = try o.mediator.callAndWait(target: "LuaEdit", action: "back", params: ["zeta": 1, "mid": 2, "beta": 3])
        #expect(identical(result, ["mid": 2, "beta": 3, "aardvark": 1, "added": true]), "\(result)")
        // A table written in Lua has no order of its own: byte order.
        let made = try o.world.lua("""
            local r = assert(sb.perform("CEcho", "back", { b = 1, a = 2, ["\(Spelling.decomposed)"] = 3,
                                                          ["\(Spelling.composed)"] = 4, c = { z = 1, y = 2 } }))
            return sb.perform("CEcho", "back", r) and "ok"
            """)
        #expect(made == "ok")
        let seen = try #require(o.events.all.first)
        // "cafe\u{301}" sorts first: its fourth byte is "e" (0x65), the other's 0xC3.
        #expect(seen.keys.map { Array($0.utf8) } == ["a", "b", "c", Spelling.decomposed, Spelling.composed].map { Array($0.utf8) })
        #expect(seen["c"]?.dict?.keys == ["y", "z"])
        // The same table through C and back to Lua keeps that order.
        #expect(identical(.dict(o.events.all[1]), .dict(seen)))
    }

    @Test("the catalogue lists both spellings of a target and of an action")
    func catalogue() throws {
        let m = Mediator()
        for name in [Spelling.composed, Spelling.decomposed] {
            try m.register(target: name, action: name) { _ in .null }
        }
        let targets = try #require(m.routes()["targets"]?.array)
        #expect(targets.count == 2)
        for target in targets { #expect(target["actions"]?.array?.count == 1) }
        #expect(m.performAndWait(target: Spelling.composed, action: Spelling.decomposed) == .null)
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: Spelling.composed, action: Spelling.decomposed) }
    }
}

/// "café" in two spellings: U+00E9, and e + U+0301.
enum Spelling {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
}
