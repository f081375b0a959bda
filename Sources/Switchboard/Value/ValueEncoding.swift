// The encoding half of Value+Codable.swift: an Encoder whose containers
// write into nodes, turned into a Value once the top-level value is done
// (a nested container is filled after its parent made it, so the tree is
// built by reference first).

enum ValueEncoding {
    static func encode<T: Encodable>(_ value: T) throws(SwitchboardError) -> Value {
        let root = Node(depth: 0)
        let encoded: Value?
        do {
            try root.encode(value, path: [])
            encoded = try root.value()
        } catch let error as SwitchboardError {
            throw error
        } catch let EncodingError.invalidValue(_, context) {
            throw .invalidArgument("\(describe(context.codingPath)): \(context.debugDescription)")
        } catch let error as Node.TooDeep {
            throw .invalidArgument("\(describe(error.path.reversed())): \(tooDeep)")
        } catch {
            throw .invalidArgument("\(T.self) did not encode: \(error)")
        }
        guard let encoded else {
            throw .invalidArgument("\(T.self) encoded nothing")
        }
        return encoded
    }

    /// Why a value nesting deeper than `SB_MAX_DEPTH` is refused (no face
    /// takes one, and a recursive type would otherwise recurse until the
    /// stack ran out).
    static let tooDeep = "values nest deeper than \(Value.maximumJSONDepth) (SB_MAX_DEPTH)"

    /// One value being encoded: a plain value, or a container of nodes.
    /// Each kind keeps its parts in a property of its own, so that adding
    /// to a container changes it in place (an enum's payload copied out,
    /// appended to and stored back was copied whole each time: encoding
    /// n elements cost n²).
    final class Node {
        enum Shape { case empty, plain, keyed, unkeyed }

        /// How many containers hold this node.
        let depth: Int
        private(set) var shape = Shape.empty
        private var plain = Value.null
        /// Keyed: keys in the order first encoded; a key encoded again keeps its place.
        private var keys: [String] = []
        private var children: [ExactName: Node] = [:]
        /// Unkeyed: the elements in order.
        private var items: [Node] = []

        init(depth: Int) { self.depth = depth }

        /// Where a container nests deeper than `SB_MAX_DEPTH`: the path,
        /// innermost key first.
        struct TooDeep: Error { var path: [any CodingKey] }

        /// The value encoded here; nil if nothing was.
        func value() throws(TooDeep) -> Value? {
            switch shape {
            case .empty: return nil
            case .plain: return plain
            case .keyed, .unkeyed:
                guard depth < Value.maximumJSONDepth else { throw TooDeep(path: []) }
                return shape == .keyed ? .dict(try keyedValue()) : .array(try unkeyedValue())
            }
        }

        /// The value encoded here as a container's element: one that
        /// encoded nothing is an empty dict (as JSONEncoder writes `{}`).
        private func element() throws(TooDeep) -> Value {
            if let value = try value() { return value }
            guard depth < Value.maximumJSONDepth else { throw TooDeep(path: []) }
            return .dict([:])
        }

        private func keyedValue() throws(TooDeep) -> Value.Dict {
            var dict = Value.Dict(minimumCapacity: keys.count)
            for key in keys {
                do {
                    dict.appendDistinct(key, try children[ExactName(key)]!.element())
                } catch {
                    throw TooDeep(path: error.path + [TextKey(key)])
                }
            }
            return dict
        }

        private func unkeyedValue() throws(TooDeep) -> [Value] {
            var array: [Value] = []
            array.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do {
                    array.append(try item.element())
                } catch {
                    throw TooDeep(path: error.path + [IndexKey(index)])
                }
            }
            return array
        }

        func encode<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
            switch value {
            case let value as Value: set(value)
            case let dict as Value.Dict: set(.dict(dict))
            case let bytes as [UInt8]: set(.bytes(bytes))
            default: try value.encode(to: ValueEncoder(node: self, codingPath: path))
            }
        }

        func set(_ value: Value) {
            clear()
            shape = .plain
            plain = value
        }

        func child(forKey key: String) -> Node {
            becomeKeyed()
            let node = Node(depth: depth + 1)
            if children.updateValue(node, forKey: ExactName(key)) == nil { keys.append(key) }
            return node
        }

        func appended() -> Node {
            becomeUnkeyed()
            let node = Node(depth: depth + 1)
            items.append(node)
            return node
        }

        func becomeKeyed() {
            guard shape != .keyed else { return }
            clear()
            shape = .keyed
        }

        func becomeUnkeyed() {
            guard shape != .unkeyed else { return }
            clear()
            shape = .unkeyed
        }

        private func clear() {
            plain = .null
            keys = []
            children = [:]
            items = []
        }

        var count: Int { shape == .unkeyed ? items.count : 0 }
    }

    /// An integer as `.int`, or the error for one beyond 64 signed bits.
    static func int<I: BinaryInteger>(_ value: I, _ path: [any CodingKey]) throws -> Value {
        guard let int = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path,
                                                          debugDescription: "\(value) does not fit in a 64-bit int"))
        }
        return .int(int)
    }
}

struct ValueEncoder: Encoder {
    let node: ValueEncoding.Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }

    /// Refuses a write into `container` when it nests deeper than
    /// `SB_MAX_DEPTH`: every write checks, so a recursive type stops there
    /// (ValueEncoding.Node.value checks containers nothing was written to).
    static func admit(_ container: ValueEncoding.Node, _ path: [any CodingKey]) throws {
        guard container.depth < Value.maximumJSONDepth else {
            throw EncodingError.invalidValue((), .init(codingPath: path, debugDescription: ValueEncoding.tooDeep))
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: ValueEncoding.Node
        let codingPath: [any CodingKey]

        /// The node for `key`, a new one in place of any encoded before.
        private func child(_ key: Key) throws -> ValueEncoding.Node {
            try ValueEncoder.admit(node, codingPath + [key])
            return node.child(forKey: key.stringValue)
        }

        private func set(_ value: Value, _ key: Key) throws { try child(key).set(value) }

        mutating func encodeNil(forKey key: Key) throws { try set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { try set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try set(.double(value), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try set(.double(Double(value)), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try set(.int(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try set(.int(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            try set(try ValueEncoding.int(value, codingPath + [key]), key)
        }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            try set(try ValueEncoding.int(value, codingPath + [key]), key)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let integer = value as? any BinaryInteger {
                return try set(try ValueEncoding.int(integer, codingPath + [key]), key)
            }
            try child(key).encode(value, path: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = node.child(forKey: key.stringValue)
            child.becomeKeyed()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = node.child(forKey: key.stringValue)
            child.becomeUnkeyed()
            return UnkeyedContainer(node: child, codingPath: codingPath + [key])
        }

        /// Under the key "super", as JSONEncoder puts it.
        mutating func superEncoder() -> any Encoder {
            ValueEncoder(node: node.child(forKey: "super"), codingPath: codingPath + [TextKey("super")])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: ValueEncoding.Node
        let codingPath: [any CodingKey]
        var count: Int { node.count }

        private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }

        /// A new last element.
        private func next() throws -> ValueEncoding.Node {
            try ValueEncoder.admit(node, nextPath)
            return node.appended()
        }

        mutating func encodeNil() throws { try next().set(.null) }
        mutating func encode(_ value: Bool) throws { try next().set(.bool(value)) }
        mutating func encode(_ value: String) throws { try next().set(.string(value)) }
        mutating func encode(_ value: Double) throws { try next().set(.double(value)) }
        mutating func encode(_ value: Float) throws { try next().set(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { try next().set(.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { try next().set(.int(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = nextPath
            if let integer = value as? any BinaryInteger {
                let int = try ValueEncoding.int(integer, path)
                return try next().set(int)
            }
            try next().encode(value, path: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            let child = node.appended()
            child.becomeKeyed()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            let child = node.appended()
            child.becomeUnkeyed()
            return UnkeyedContainer(node: child, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            return ValueEncoder(node: node.appended(), codingPath: path)
        }
    }

    /// One value in place of the node's: nests as deep as the node is held.
    struct SingleContainer: SingleValueEncodingContainer {
        let node: ValueEncoding.Node
        let codingPath: [any CodingKey]

        private func set(_ value: Value) throws {
            guard node.depth <= Value.maximumJSONDepth else {
                throw EncodingError.invalidValue((), .init(codingPath: codingPath, debugDescription: ValueEncoding.tooDeep))
            }
            node.set(value)
        }

        mutating func encodeNil() throws { try set(.null) }
        mutating func encode(_ value: Bool) throws { try set(.bool(value)) }
        mutating func encode(_ value: String) throws { try set(.string(value)) }
        mutating func encode(_ value: Double) throws { try set(.double(value)) }
        mutating func encode(_ value: Float) throws { try set(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { try set(.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { try set(.int(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            if let integer = value as? any BinaryInteger {
                return try set(try ValueEncoding.int(integer, codingPath))
            }
            try node.encode(value, path: codingPath)
        }
    }
}
