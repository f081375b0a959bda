// Swift's Codable types as Values and back: params from a struct, a result
// into one.
//
//     struct Order: Codable { var item: String; var count: Int }
//     let params = try Params(encoding: Order(item: "tea", count: 2))   // ["item": "tea", "count": 2]
//     let order = try params.decode(Order.self)
//
// The byte-exact rules hold both ways: a key is its coding key's bytes
// (two spellings of "é" are two keys), a dict keeps the order the type
// encodes its keys in (declaration order for synthesized conformances), and
// a key encoded twice keeps its last value at its first place, as `Params`
// does. Kinds map as `Value` draws them: Bool ↔ bool; every integer type ↔
// int (64 bits, range checked both ways); Double, Float ↔ double (an int
// decodes as a Double or Float when it converts exactly, a double beyond
// Float's range is no Float); String ↔ string; `[UInt8]` ↔ bytes (an array
// of ints decodes too, and so does a string, as its UTF-8: Lua has one type
// for both, and contracts convert it so; `Data` decodes as `[UInt8]` does
// and encodes as it encodes itself, an array of ints); nil ↔ null; arrays ↔
// array; keyed containers ↔ dict; a `Value` or `Params` field is taken as it
// is (callbacks and pointers included). Decoding is strict as the accessors
// are: a string never decodes as a number. Containers nest at most
// `SB_MAX_DEPTH` (``Value/maximumJSONDepth``) deep both ways, as in every
// face: a recursive type nested deeper is refused at that depth, not
// followed until the stack runs out.

extension Value {
    /// `value` as a Value (see the rules above). Throws `.invalidArgument`
    /// for what no Value holds: an integer beyond 64 signed bits, a value
    /// that encodes nothing, containers nested deeper than `SB_MAX_DEPTH`.
    public init<T: Encodable>(encoding value: T) throws(SwitchboardError) {
        self = try ValueEncoding.encode(value)
    }

    /// This value as a `T` (see the rules above). Throws `.badParams` naming
    /// the key path and what was found: a missing key, a value of another
    /// kind, a number out of the type's range, containers nested deeper
    /// than `SB_MAX_DEPTH`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(SwitchboardError) -> T {
        try ValueDecoding.decode(type, from: self)
    }
}

extension Value.Dict {
    /// `value`, a type that encodes a keyed container (a struct, a class),
    /// as params. Throws `.invalidArgument` for one that encodes anything else.
    public init<T: Encodable>(encoding value: T) throws(SwitchboardError) {
        guard case .dict(let dict) = try ValueEncoding.encode(value) else {
            throw .invalidArgument("\(T.self) does not encode as a dict (keys and values), so it cannot be params")
        }
        self = dict
    }

    /// These params as a `T`, as ``Value/decode(_:)`` decodes a dict.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(SwitchboardError) -> T {
        try ValueDecoding.decode(type, from: .dict(self))
    }
}

/// A key path in messages: `items[2].name`; "the value" at the top.
func describe(_ path: [any CodingKey]) -> String {
    guard !path.isEmpty else { return "the value" }
    var text = ""
    for key in path {
        if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
            text += "[\(index)]"
        } else {
            text += (text.isEmpty ? "" : ".") + Value.string(key.stringValue.clipped(toScalars: 64)).description
        }
    }
    return text
}

/// The key of an array element, as Swift's own coders name it.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}

/// So that Codable types may hold `Value` and `Params` fields. With this
/// module's coders (above) they pass as they are. With another coder
/// (JSONEncoder, a property list): data only — a dict as a keyed container in
/// its order, bytes as an array of ints, and a callback or a pointer cannot
/// be encoded; decoding tries null, bool, int, double, string, dict, array,
/// in that order.
extension Value: Codable {
    /// Encodes the value as data (see above); throws `EncodingError` for a
    /// callback or a pointer, which only this module's coders carry.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .double(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .bytes(let bytes):
            var c = encoder.singleValueContainer()
            try c.encode(bytes)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .dict(let dict):
            try dict.encode(to: encoder)
        case .callback, .pointer:
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                         debugDescription: "a \(kind) is no data: only Switchboard's own coders carry it"))
        }
    }

    /// Decodes whatever the decoder holds as the first kind that fits, in
    /// the order above.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() { self = .null; return }
            if let b = try? single.decode(Bool.self) { self = .bool(b); return }
            if let i = try? single.decode(Int64.self) { self = .int(i); return }
            if let d = try? single.decode(Double.self) { self = .double(d); return }
            if let s = try? single.decode(String.self) { self = .string(s); return }
        }
        if let dict = try? Value.Dict(from: decoder) { self = .dict(dict); return }
        var items = try decoder.unkeyedContainer()
        var array: [Value] = []
        while !items.isAtEnd { array.append(try items.decode(Value.self)) }
        self = .array(array)
    }
}

extension Value.Dict: Codable {
    /// Encodes the dict as a keyed container, its keys in the dict's order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: TextKey.self)
        for (key, value) in self { try c.encode(value, forKey: TextKey(key)) }
    }

    /// In the decoder's order of keys (JSONDecoder's is not the text's).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: TextKey.self)
        self.init()
        for key in c.allKeys { self[key.stringValue] = try c.decode(Value.self, forKey: key) }
    }
}

/// A coding key that is any text.
struct TextKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ text: String) { stringValue = text }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
