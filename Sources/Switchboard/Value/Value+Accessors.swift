// Typed accessors. Each one is strict: it answers only for its own kind, so
// `Value.int(3).double` is nil (3 is not 3.0) and `Value.bytes(...).string` is nil.

extension Value {
    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The bool, when this is `.bool`.
    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The integer, when this is `.int` (nil for a double, however whole).
    public var int: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    /// The double, when this is `.double` (nil for an int).
    public var double: Double? {
        if case .double(let d) = self { return d }
        return nil
    }

    /// The text, when this is `.string` (nil for bytes).
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The bytes, when this is `.bytes` (nil for a string).
    public var bytes: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The elements, when this is `.array`.
    public var array: [Value]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The dict, when this is `.dict`.
    public var dict: Dict? {
        if case .dict(let d) = self { return d }
        return nil
    }

    /// The callback, when this is `.callback`: call it with `callback?(args)`.
    public var callback: Callback? {
        if case .callback(let c) = self { return c }
        return nil
    }

    /// The host object, when this is `.pointer`.
    public var pointer: Pointer? {
        if case .pointer(let p) = self { return p }
        return nil
    }

    /// The value under `key` (compared by bytes) when this is a dict; nil
    /// when the key is absent or this is not a dict.
    public subscript(key: String) -> Value? {
        if case .dict(let d) = self { return d[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in
    /// range; nil otherwise (never a trap).
    public subscript(index: Int) -> Value? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

// Swift's `Int`, beside the 64-bit ints values hold.

extension Value {
    /// `.int` from a Swift `Int`: `.int(count)`, `params["n"] = .int(items.count)`.
    /// (Disfavoured: `.int(.max)` and other literals stay `Int64`'s, as in 1.x.)
    @_disfavoredOverload
    public static func int(_ value: Int) -> Value { .int(Int64(value)) }

    /// The int as a Swift `Int`, when this is an int that fits one (every
    /// int on 64-bit platforms); nil otherwise. Strict as ``int`` is.
    public var intValue: Int? {
        if case .int(let i) = self { return Int(exactly: i) }
        return nil
    }
}
