// The encoding half of Value+Codable.swift: an Encoder whose containers
// write into nodes, turned into a Value once the top-level value is done
// (a nested container is filled after its parent made it, so the tree is
// built by reference first).

enum ValueEncoding {
    static func encode<T: Encodable>(_ value: T) throws(SwitchboardError) -> Value {
        let root = Node()
        do {
            try root.encode(value, path: [])
        } catch let error as SwitchboardError {
            throw error
        } catch let EncodingError.invalidValue(_, context) {
            throw .invalidArgument("\(describe(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .invalidArgument("\(T.self) did not encode: \(error)")
        }
        guard let encoded = root.value else {
            throw .invalidArgument("\(T.self) encoded nothing")
        }
        return encoded
    }

    /// One value being encoded: a plain value, or a container of nodes.
    final class Node {
        enum Content {
            case empty
            case plain(Value)
            /// Keys in the order first encoded; a key encoded again keeps its place.
            case keyed(keys: [String], nodes: [ExactName: Node])
            case unkeyed([Node])
        }

        var content = Content.empty

        var value: Value? {
            switch content {
            case .empty: nil
            case .plain(let value): value
            case .keyed(let keys, let nodes):
                .dict(Value.Dict(distinctKeys: keys.map { key in (key: key, value: nodes[ExactName(key)]!.value ?? .dict([:])) }))
            case .unkeyed(let nodes): .array(nodes.map { $0.value ?? .dict([:]) })
            }
        }

        func encode<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
            switch value {
            case let value as Value: content = .plain(value)
            case let dict as Value.Dict: content = .plain(.dict(dict))
            case let bytes as [UInt8]: content = .plain(.bytes(bytes))
            default: try value.encode(to: ValueEncoder(node: self, codingPath: path))
            }
        }

        func child(forKey key: String) -> Node {
            var keys: [String] = [], nodes: [ExactName: Node] = [:]
            if case .keyed(let k, let n) = content { (keys, nodes) = (k, n) }
            let name = ExactName(key)
            if nodes[name] == nil { keys.append(key) }
            let node = Node()
            nodes[name] = node
            content = .keyed(keys: keys, nodes: nodes)
            return node
        }

        func appended() -> Node {
            var nodes: [Node] = []
            if case .unkeyed(let n) = content { nodes = n }
            let node = Node()
            nodes.append(node)
            content = .unkeyed(nodes)
            return node
        }

        func becomeKeyed() {
            if case .keyed = content { return }
            content = .keyed(keys: [], nodes: [:])
        }

        func becomeUnkeyed() {
            if case .unkeyed = content { return }
            content = .unkeyed([])
        }

        var count: Int {
            if case .unkeyed(let nodes) = content { return nodes.count }
            return 0
        }
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

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: ValueEncoding.Node
        let codingPath: [any CodingKey]

        private func set(_ value: Value, _ key: Key) { node.child(forKey: key.stringValue).content = .plain(value) }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            set(try ValueEncoding.int(value, codingPath + [key]), key)
        }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            set(try ValueEncoding.int(value, codingPath + [key]), key)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let integer = value as? any BinaryInteger {
                return set(try ValueEncoding.int(integer, codingPath + [key]), key)
            }
            try node.child(forKey: key.stringValue).encode(value, path: codingPath + [key])
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

        mutating func superEncoder() -> any Encoder {
            ValueEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
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

        mutating func encodeNil() throws { node.appended().content = .plain(.null) }
        mutating func encode(_ value: Bool) throws { node.appended().content = .plain(.bool(value)) }
        mutating func encode(_ value: String) throws { node.appended().content = .plain(.string(value)) }
        mutating func encode(_ value: Double) throws { node.appended().content = .plain(.double(value)) }
        mutating func encode(_ value: Float) throws { node.appended().content = .plain(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { node.appended().content = .plain(.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.appended().content = .plain(.int(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = nextPath
            if let integer = value as? any BinaryInteger {
                let int = try ValueEncoding.int(integer, path)
                return node.appended().content = .plain(int)
            }
            try node.appended().encode(value, path: path)
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

    struct SingleContainer: SingleValueEncodingContainer {
        let node: ValueEncoding.Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .plain(.null) }
        mutating func encode(_ value: Bool) throws { node.content = .plain(.bool(value)) }
        mutating func encode(_ value: String) throws { node.content = .plain(.string(value)) }
        mutating func encode(_ value: Double) throws { node.content = .plain(.double(value)) }
        mutating func encode(_ value: Float) throws { node.content = .plain(.double(Double(value))) }
        mutating func encode(_ value: Int) throws { node.content = .plain(.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.content = .plain(.int(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            if let integer = value as? any BinaryInteger {
                return node.content = .plain(try ValueEncoding.int(integer, codingPath))
            }
            try node.encode(value, path: codingPath)
        }
    }
}
