extension Value {
    /// The dict kind of value, and the params every action receives: string
    /// keys to values, in insertion order, keyed by the key's UTF-8 bytes.
    ///
    /// It behaves as `switchboard.h` and the Lua module do, so a dict that
    /// passes through Swift comes out as it went in:
    /// - two keys are the same key only when their bytes are equal: "café"
    ///   spelled with U+00E9 and "cafe\u{301}" are two keys (Swift's
    ///   `Dictionary<String, _>` would merge them);
    /// - iteration, `description`, JSON and every conversion follow insertion
    ///   order; setting a key that is present replaces its value in place,
    ///   a new key goes last, and a key removed and set again goes last;
    /// - `==` compares keys by bytes and values, in any order (as JSON
    ///   objects do).
    ///
    /// Write and read it as a dictionary:
    ///
    ///     var params: Params = ["id": 42, "tags": ["x", "y"]]
    ///     params["page"] = 2
    ///     for (key, value) in params { print(key, value) }
    ///
    /// A few keys are scanned in order, compared by length and first bytes
    /// before anything else; beyond `indexThreshold` keys, a hash index
    /// (seeded, keyed by the bytes) keeps lookups constant-time. Removing a
    /// key costs time proportional to the count.
    public struct Dict: Sendable {
        /// A key and its value, as iteration gives them.
        public typealias Element = (key: String, value: Value)

        @usableFromInline var entries: ContiguousArray<Entry>
        /// Empty while the dict is small; else open-addressed slots holding
        /// entry position + 1 (0 = free), at most half full.
        @usableFromInline var slots: ContiguousArray<Int32>

        /// Dicts of up to this many entries have no index.
        @usableFromInline static var indexThreshold: Int { 8 }

        /// An empty dict (`[:]` says the same).
        public init() {
            entries = []
            slots = []
        }

        /// An empty dict with room for `minimumCapacity` keys.
        public init(minimumCapacity: Int) {
            self.init()
            entries.reserveCapacity(minimumCapacity)
        }

        /// A dict of `pairs`, in their order; a repeated key keeps its last
        /// value, at its first position.
        public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
            self.init()
            for (key, value) in pairs { self[key] = value }
        }

        /// A dict of `pairs` (another dict's elements, filtered or mapped),
        /// in their order; a repeated key keeps its last value.
        public init<S: Sequence>(_ pairs: S) where S.Element == Element {
            self.init()
            for (key, value) in pairs { self[key] = value }
        }

        /// A Swift dictionary's entries, in the byte order of their keys (a
        /// `Dictionary` has no order of its own to keep).
        public init(_ dictionary: [String: Value]) {
            self.init(minimumCapacity: dictionary.count)
            for key in dictionary.keys.sortedByBytes() { appendNew(key, dictionary[key]!) }
        }

        /// Entries whose keys are known to be distinct by bytes (they come
        /// from another dict, a C dict, a parsed object that checked).
        @_spi(Faces) public init<S: Sequence>(distinctKeys pairs: S) where S.Element == Element {
            self.init()
            for (key, value) in pairs { appendDistinct(key, value) }
        }

        /// One entry, with what a lookup compares first: the key's length
        /// and its first eight bytes (for a key of up to eight bytes, all of
        /// it).
        @usableFromInline struct Entry: Sendable {
            var key: String
            var value: Value
            let length: Int
            let head: UInt64

            init(key: String, value: Value) {
                self.key = key
                self.value = value
                length = key.utf8.count
                head = Entry.head(of: key)
            }

            /// The first eight bytes of `key`, little-endian, zero-padded.
            static func head(of key: String) -> UInt64 {
                // Native and small strings are contiguous: reading the
                // buffer costs a fraction of iterating the UTF-8 view.
                if let head = key.utf8.withContiguousStorageIfAvailable(head(of:)) { return head }
                return head(of: Array(key.utf8.prefix(8)))
            }

            private static func head(of bytes: some Collection<UInt8>) -> UInt64 {
                var head: UInt64 = 0, shift: UInt64 = 0
                for byte in bytes.prefix(8) {
                    head |= UInt64(byte) &<< shift
                    shift += 8
                }
                return head
            }
        }
    }
}

/// The params every action receives (see ``Value/Dict``).
public typealias Params = Value.Dict

// MARK: - Reading

extension Value.Dict {
    /// The value under `key` (compared by bytes), or nil. Setting nil
    /// removes the key; setting a value replaces it in place or appends it.
    public subscript(key: String) -> Value? {
        get {
            guard let i = position(of: key) else { return nil }
            return entries[i].value
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// The position of `key` in insertion order, or nil.
    public func position(of key: String) -> Int? {
        if slots.isEmpty {
            // Lengths first; the first bytes only when a length matches. (A
            // buffer pointer reads the fields without copying the entries.)
            let length = key.utf8.count
            return entries.withUnsafeBufferPointer { entries -> Int? in
                var head: UInt64?
                for i in entries.indices where entries[i].length == length {
                    let h = head ?? Entry.head(of: key)
                    head = h
                    if entries[i].head == h && (length <= 8 || entries[i].key.hasSameBytes(as: key)) { return i }
                }
                return nil
            }
        }
        let mask = slots.count - 1
        var s = Self.hash(key) & mask
        while true {
            let slot = Int(slots[s])
            if slot == 0 { return nil }
            if entries[slot - 1].key.hasSameBytes(as: key) { return slot - 1 }
            s = (s + 1) & mask
        }
    }

    /// Whether some key is `length` or `other` bytes long: a look at
    /// lengths alone, in one pass.
    func hasKey(ofLength length: Int, or other: Int) -> Bool {
        entries.withUnsafeBufferPointer { $0.contains { $0.length == length || $0.length == other } }
    }

    /// The keys, in the dict's order.
    public var keys: [String] { entries.map(\.key) }
    /// The values, in the order of their keys.
    public var values: [Value] { entries.map(\.value) }
}

// MARK: - Changing

extension Value.Dict {
    /// Sets `key` to `value`: in place when the key is present (returning
    /// the old value), else last.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: String) -> Value? {
        if let i = position(of: key) {
            let old = entries[i].value
            entries[i].value = value
            return old
        }
        appendNew(key, value)
        return nil
    }

    /// Removes `key` and returns its value; the keys after it move up.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let i = position(of: key) else { return nil }
        let removed = entries.remove(at: i).value
        if !slots.isEmpty { rebuildIndex() }
        return removed
    }

    /// Removes every key.
    public mutating func removeAll() {
        entries.removeAll()
        slots.removeAll()
    }

    /// Makes room for `capacity` keys, so adding that many does not grow
    /// the storage again.
    public mutating func reserveCapacity(_ capacity: Int) { entries.reserveCapacity(capacity) }

    /// Sets every key of `other` (its values win), in `other`'s order: keys
    /// already here keep their place, new ones go last.
    public mutating func merge(_ other: Value.Dict) {
        for (key, value) in other { updateValue(value, forKey: key) }
    }

    /// `self` with every key of `other` set (see `merge`).
    public func merging(_ other: Value.Dict) -> Value.Dict {
        var merged = self
        merged.merge(other)
        return merged
    }

    /// The same keys, in the same order, with transformed values.
    public func mapValues(_ transform: (Value) throws -> Value) rethrows -> Value.Dict {
        var mapped = self
        for i in mapped.entries.indices { mapped.entries[i].value = try transform(entries[i].value) }
        return mapped
    }

    /// The entries that satisfy `isIncluded`, in order.
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> Value.Dict {
        var kept = self
        kept.entries = try entries.filter { try isIncluded(($0.key, $0.value)) }
        kept.rebuildIndex()
        return kept
    }

    /// The same entries in the byte order of their keys (for listings).
    func sortedByKeyBytes() -> Value.Dict {
        var sorted = self
        sorted.entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        sorted.rebuildIndex()
        return sorted
    }

    /// Appends `key`, which the caller knows is absent (a C dict's keys, a
    /// parsed object's): no lookup.
    @_spi(Faces) public mutating func appendDistinct(_ key: String, _ value: Value) {
        appendNew(key, value)
    }

    /// Appends `key`, known to be absent.
    @usableFromInline
    mutating func appendNew(_ key: String, _ value: Value) {
        entries.append(Entry(key: key, value: value))
        if !slots.isEmpty {
            if entries.count * 2 > slots.count { rebuildIndex() } else { insertIntoIndex(entries.count - 1) }
        } else if entries.count > Self.indexThreshold {
            rebuildIndex()
        }
    }
}

// MARK: - The index

extension Value.Dict {
    /// Hashes the key's bytes with the process's seeded hasher, so keys
    /// chosen to collide cannot make lookups linear.
    @usableFromInline
    static func hash(_ key: String) -> Int {
        var hasher = Hasher()
        hasher.combineUTF8(of: key)
        return hasher.finalize()
    }

    @usableFromInline
    mutating func rebuildIndex() {
        guard entries.count > Self.indexThreshold else {
            slots = []
            return
        }
        var size = 16
        while size < entries.count * 4 { size *= 2 }
        slots = ContiguousArray(repeating: 0, count: size)
        for i in entries.indices { insertIntoIndex(i) }
    }

    private mutating func insertIntoIndex(_ position: Int) {
        let mask = slots.count - 1
        var s = Self.hash(entries[position].key) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = Int32(position + 1)
    }
}

// MARK: - Collection, literals, equality

extension Value.Dict: RandomAccessCollection {
    /// 0: positions count entries in the dict's order.
    public var startIndex: Int { 0 }
    /// The position after the last entry, `count`.
    public var endIndex: Int { entries.count }
    /// The key and value at `position`, counting in the dict's order.
    public subscript(position: Int) -> Element { (entries[position].key, entries[position].value) }
    /// How many keys the dict holds.
    public var count: Int { entries.count }
    /// Whether the dict holds no key.
    public var isEmpty: Bool { entries.isEmpty }
}

extension Value.Dict: ExpressibleByDictionaryLiteral {
    /// A repeated key keeps its last value, at its first position.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init()
        entries.reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }
}

extension Value.Dict: Equatable {
    /// The same keys (by bytes) with equal values, in any order.
    public static func == (lhs: Value.Dict, rhs: Value.Dict) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (i, entry) in lhs.entries.enumerated() {
            // Equal dicts are usually in the same order: try the same place first.
            let j = i < rhs.count && rhs.entries[i].length == entry.length && rhs.entries[i].head == entry.head
                && rhs.entries[i].key.hasSameBytes(as: entry.key) ? i : rhs.position(of: entry.key)
            guard let j, rhs.entries[j].value == entry.value else { return false }
        }
        return true
    }
}

extension Value.Dict: CustomStringConvertible {
    /// The dict as one line of JSON, keys in order (see `Value.description`).
    public var description: String { Value.dict(self).description }
}
