import Testing
@testable import Switchboard

/// Codable types as Values and back (issue 45, item 6), with the byte-exact
/// rules: keys are bytes, order is kept, kinds are strict.
@Suite struct CodableTests {
    struct Order: Codable, Equatable {
        var item: String
        var count: Int
        var price: Double
        var gift: Bool
        var note: String?
        var tags: [String]
        var receipt: [UInt8]
        var address: Address

        struct Address: Codable, Equatable {
            var city: String
            var zip: UInt32
        }
    }

    static let order = Order(item: "tea", count: 2, price: 3.5, gift: true, note: nil, tags: ["hot", "green"],
                             receipt: [0, 255, 7], address: .init(city: "Z\u{FC}rich", zip: 8001))

    @Test("a struct becomes params in its declaration order, and comes back equal")
    func roundTrip() throws {
        let params = try Params(encoding: Self.order)
        #expect(params.keys == ["item", "count", "price", "gift", "tags", "receipt", "address"]) // nil is left out
        #expect(params["count"] == .int(2))
        #expect(params["price"] == .double(3.5))
        #expect(params["receipt"] == .bytes([0, 255, 7]))
        #expect(params["address"] == ["city": "Z\u{FC}rich", "zip": 8001])
        #expect(try params.decode(Order.self) == Self.order)
        // Through a call and back: an action that echoes its params.
        let m = Mediator()
        try m.register(target: "Shop", action: "echo") { params in .dict(params) }
        let echoed = try m.callAndWait(target: "Shop", action: "echo", params: params)
        #expect(try echoed.decode(Order.self) == Self.order)
    }

    struct Spelled: Codable, Equatable {
        var composed: Int
        var decomposed: Int
        enum CodingKeys: String, CodingKey {
            case composed = "caf\u{E9}"
            case decomposed = "cafe\u{301}"
        }
    }

    @Test("keys are compared by their bytes: two spellings of \"é\" are two keys, both ways")
    func keyBytes() throws {
        let params = try Params(encoding: Spelled(composed: 1, decomposed: 2))
        #expect(params.count == 2) // a Swift Dictionary would have merged them
        #expect(params.keys.map { Array($0.utf8) } == [Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)])
        #expect(try params.decode(Spelled.self) == Spelled(composed: 1, decomposed: 2))
        // A dict with only the decomposed spelling lacks the composed key.
        let other: Params = ["cafe\u{301}": 2]
        #expect { try other.decode(Spelled.self) } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .badParams && error.message.contains("is missing")
        }
    }

    struct Repeats: Encodable {
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: AnyKey.self)
            try c.encode(1, forKey: AnyKey("b"))
            try c.encode(2, forKey: AnyKey("a"))
            try c.encode(3, forKey: AnyKey("b"))
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test("a key encoded twice keeps its last value at its first place, as Params does")
    func repeatedKey() throws {
        let params = try Params(encoding: Repeats())
        #expect(params.keys == ["b", "a"])
        #expect(params["b"] == 3)
    }

    struct Counts: Codable, Equatable { var small: Int8; var big: UInt64; var ratio: Double; var name: String }

    @Test("kinds are strict and ranges are checked, with the key path in the message")
    func strictKinds() throws {
        #expect { try (["small": 300, "big": 1, "ratio": 1.0, "name": "x"] as Params).decode(Counts.self) } throws: {
            ($0 as? SwitchboardError)?.message.contains("\"small\": 300 does not fit in Int8") == true
        }
        #expect { try (["small": 1, "big": 1, "ratio": 1.0, "name": 7] as Params).decode(Counts.self) } throws: {
            let message = ($0 as? SwitchboardError)?.message ?? ""
            return message.contains("\"name\": expected string, got int 7")
        }
        #expect { try (["small": 1, "big": 1, "ratio": 1.0, "name": .bytes([120])] as Params).decode(Counts.self) } throws: {
            ($0 as? SwitchboardError)?.code == .badParams
        }
        // An int is a double when it converts exactly (as contracts take it).
        #expect(try (["small": 1, "big": 2, "ratio": 3, "name": "x"] as Params).decode(Counts.self)
                == Counts(small: 1, big: 2, ratio: 3, name: "x"))
        // A UInt64 beyond Int64 has no Value.
        #expect { try Params(encoding: Counts(small: 1, big: .max, ratio: 0, name: "")) } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .invalidArgument && error.message.contains("\"big\"")
        }
    }

    struct Carrier: Codable { var payload: Value; var extra: Params }

    @Test("Value and Params fields pass as they are, callbacks included")
    func valueFields() throws {
        let callback = Callback { $0 }
        let carrier = Carrier(payload: .callback(callback), extra: ["z": 1, "a": 2])
        let value = try Value(encoding: carrier)
        #expect(value["payload"]?.callback === callback)
        #expect(value["extra"]?.dict?.keys == ["z", "a"])
        let back = try value.decode(Carrier.self)
        #expect(back.payload.callback === callback)
        #expect(back.extra.keys == ["z", "a"])
    }

    @Test("arrays, nested arrays and top-level values")
    func shapes() throws {
        #expect(try Value(encoding: [[1, 2], [3]]) == [[1, 2], [3]])
        #expect(try Value(encoding: "x") == "x")
        #expect(try Value(encoding: Optional<Int>.none) == .null)
        #expect(try Value.array([1, 2]).decode([Int].self) == [1, 2])
        #expect(try Value.bytes([1, 2]).decode([UInt8].self) == [1, 2])
        #expect(try Value.array([1, 2]).decode([UInt8].self) == [1, 2])
        #expect { try Params(encoding: [1, 2]) } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
        #expect { try Value.array([1, "x"]).decode([Int].self) } throws: {
            ($0 as? SwitchboardError)?.message.contains("[1]: expected int, got string") == true
        }
    }

    @Test("Int conveniences: .int(count) with an Int, intValue back")
    func intConveniences() {
        let count: Int = 3
        let value = Value.int(count)
        #expect(value == .int(Int64(3)))
        #expect(value.intValue == 3)
        #expect(Value.string("3").intValue == nil)
        var params: Params = [:]
        params["n"] = .int(count)
        #expect(params["n"]?.intValue == count)
    }
}
