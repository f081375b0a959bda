// The decoding half of Value+Codable.swift: a Decoder over a Value, strict
// about kinds, with keys compared by their bytes (Value.Dict's subscript).

enum ValueDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from value: Value) throws(SwitchboardError) -> T {
        do {
            return try decodeValue(type, from: value, path: [])
        } catch let error as SwitchboardError {
            throw error
        } catch let error as DecodingError {
            throw SwitchboardError(code: .badParams, message: message(of: error, decoding: T.self), underlying: error)
        } catch {
            throw SwitchboardError(code: .badParams, message: "\(T.self) did not decode: \(error)", underlying: error)
        }
    }

    static func decodeValue<T: Decodable>(_ type: T.Type, from value: Value, path: [any CodingKey]) throws -> T {
        if T.self == Value.self { return value as! T }
        if T.self == Value.Dict.self {
            guard case .dict(let dict) = value else { throw mismatch(T.self, value, path) }
            return dict as! T
        }
        if let bytes = try bytesCollection(T.self, value) { return bytes }
        return try T(from: ValueDecoder(value: value, codingPath: path))
    }

    /// Bytes, or a string's UTF-8, as a collection of bytes (`[UInt8]`,
    /// `Data`): Lua has one type for both (a script's valid UTF-8 arrives as
    /// a string), and contracts convert a string to bytes so too. Nil when
    /// `T` is no such collection or `value` neither kind.
    private static func bytesCollection<T>(_ type: T.Type, _ value: Value) throws -> T? {
        func make<C: RangeReplaceableCollection<UInt8>>(_ type: C.Type, _ bytes: some Sequence<UInt8>) -> C { C(bytes) }
        switch value {
        case .bytes(let bytes):
            if T.self == [UInt8].self { return (bytes as! T) }
            guard let collection = T.self as? any RangeReplaceableCollection<UInt8>.Type else { return nil }
            return (make(collection, bytes) as! T)
        case .string(let text) where T.self != String.self:
            guard let collection = T.self as? any RangeReplaceableCollection<UInt8>.Type else { return nil }
            return (make(collection, text.utf8) as! T)
        default:
            return nil
        }
    }

    private static func message(of error: DecodingError, decoding type: Any.Type) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(type): \(describe(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(type): \(describe(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(type) did not decode: \(error)"
        }
    }

    static func mismatch(_ type: Any.Type, _ value: Value, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(expected(type)), got \(shown(value))"))
    }

    /// What a type is called in messages, in the faces' words.
    private static func expected(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "bool"
        case is String.Type: "string"
        case is Double.Type, is Float.Type: "double"
        case is any BinaryInteger.Type: "int"
        case is [UInt8].Type: "bytes"
        case is [Value].Type: "array"
        case is Value.Dict.Type: "dict"
        default: "\(type)"
        }
    }

    /// A value in messages: its kind, and short data as it reads.
    static func shown(_ value: Value) -> String {
        switch value {
        case .string(let text):
            return "string " + Value.string(text.clipped(toScalars: 36)).description
        case .int, .double, .bool:
            return "\(value.kind) \(value.description)"
        default:
            return "\(value.kind)"
        }
    }

    static func int<I: FixedWidthInteger>(_ type: I.Type, _ value: Value, _ path: [any CodingKey]) throws -> I {
        guard case .int(let int) = value else { throw mismatch(type, value, path) }
        guard let fitted = I(exactly: int) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(int) does not fit in \(I.self)"))
        }
        return fitted
    }

    static func double(_ value: Value, _ path: [any CodingKey]) throws -> Double {
        switch value {
        case .double(let double): return double
        case .int(let int):
            guard let exact = Double(exactly: int) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path,
                                                        debugDescription: "\(int) has no exact double"))
            }
            return exact
        default: throw mismatch(Double.self, value, path)
        }
    }

    /// A double as a Float when it is within Float's range (rounded, as
    /// JSONDecoder rounds), an int when Float holds it exactly.
    static func float(_ value: Value, _ path: [any CodingKey]) throws -> Float {
        switch value {
        case .double(let double):
            let float = Float(double)
            guard float.isFinite || !double.isFinite else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(double) does not fit in Float"))
            }
            return float
        case .int(let int):
            guard let exact = Float(exactly: int) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(int) has no exact Float"))
            }
            return exact
        default: throw mismatch(Float.self, value, path)
        }
    }

    static func bool(_ value: Value, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path) }
        return bool
    }

    static func string(_ value: Value, _ path: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path) }
        return string
    }
}

struct ValueDecoder: Decoder {
    let value: Value
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try admitContainer()
        guard case .dict(let dict) = value else { throw ValueDecoding.mismatch(Value.Dict.self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(dict: dict, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try admitContainer()
        switch value {
        case .array(let items): return UnkeyedContainer(items: items, codingPath: codingPath)
        case .bytes(let bytes): return UnkeyedContainer(items: bytes.map { .int(Int64($0)) }, codingPath: codingPath)
        default: throw ValueDecoding.mismatch([Value].self, value, codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath)
    }

    /// Refuses a container held by `SB_MAX_DEPTH` others: no face makes such
    /// a value, and a recursive type would decode one until the stack ran
    /// out. (Every container adds a key to the path: `superDecoder()` too.)
    private func admitContainer() throws {
        guard codingPath.count < Value.maximumJSONDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: ValueEncoding.tooDeep))
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let dict: Value.Dict
        let codingPath: [any CodingKey]

        /// In the dict's order.
        var allKeys: [Key] { dict.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { dict[key.stringValue] != nil }

        private func value(_ key: Key) throws -> Value {
            guard let value = dict[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no such key"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try ValueDecoding.bool(value(key), codingPath + [key])
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try ValueDecoding.string(value(key), codingPath + [key])
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try ValueDecoding.double(value(key), codingPath + [key])
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            try ValueDecoding.float(value(key), codingPath + [key])
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            try ValueDecoding.int(type, value(key), codingPath + [key])
        }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
            try ValueDecoding.int(type, value(key), codingPath + [key])
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let integer = type as? any FixedWidthInteger.Type {
                return try ValueDecoding.int(integer, value(key), codingPath + [key]) as! T
            }
            return try ValueDecoding.decodeValue(type, from: value(key), path: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                                   forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try ValueDecoder(value: value(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ValueDecoder(value: value(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        /// The value under "super", as JSONDecoder finds it.
        func superDecoder() throws -> any Decoder {
            ValueDecoder(value: dict["super"] ?? .null, codingPath: codingPath + [TextKey("super")])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ValueDecoder(value: dict[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [Value]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(items: [Value], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private var path: [any CodingKey] { codingPath + [IndexKey(currentIndex)] }

        private mutating func next(_ type: Any.Type) throws -> Value {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "past the end of the array"))
            }
            defer { currentIndex += 1 }
            return items[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { let p = path; return try ValueDecoding.bool(next(type), p) }
        mutating func decode(_ type: String.Type) throws -> String { let p = path; return try ValueDecoding.string(next(type), p) }
        mutating func decode(_ type: Double.Type) throws -> Double { let p = path; return try ValueDecoding.double(next(type), p) }
        mutating func decode(_ type: Float.Type) throws -> Float { let p = path; return try ValueDecoding.float(next(type), p) }
        mutating func decode(_ type: Int.Type) throws -> Int { let p = path; return try ValueDecoding.int(type, next(type), p) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { let p = path; return try ValueDecoding.int(type, next(type), p) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let p = path
            let value = try next(type)
            if let integer = type as? any FixedWidthInteger.Type { return try ValueDecoding.int(integer, value, p) as! T }
            return try ValueDecoding.decodeValue(type, from: value, path: p)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let p = path
            return try ValueDecoder(value: next(Value.Dict.self), codingPath: p).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let p = path
            return try ValueDecoder(value: next([Value].self), codingPath: p).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let p = path
            return ValueDecoder(value: try next(Value.self), codingPath: p)
        }
    }

    struct SingleContainer: SingleValueDecodingContainer {
        let value: Value
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value.isNull }
        func decode(_ type: Bool.Type) throws -> Bool { try ValueDecoding.bool(value, codingPath) }
        func decode(_ type: String.Type) throws -> String { try ValueDecoding.string(value, codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try ValueDecoding.double(value, codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try ValueDecoding.float(value, codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try ValueDecoding.int(type, value, codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try ValueDecoding.int(type, value, codingPath) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let integer = type as? any FixedWidthInteger.Type { return try ValueDecoding.int(integer, value, codingPath) as! T }
            return try ValueDecoding.decodeValue(type, from: value, path: codingPath)
        }
    }
}
