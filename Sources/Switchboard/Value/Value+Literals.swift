// Literal conformances, so params read like data:
//     mediator.perform(target: "A", action: "show", params: ["id": 42, "tags": ["x", "y"]])

extension Value: ExpressibleByBooleanLiteral {
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    /// `3` is `.int(3)`, never a double.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    /// `3.0` is `.double(3.0)`, never an int.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByStringLiteral {
    /// `"text"` is `.string("text")`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByArrayLiteral {
    /// `[1, "x"]` is `.array([.int(1), .string("x")])`.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}

extension Value: ExpressibleByDictionaryLiteral {
    /// Keys in the order written; a repeated key keeps its last value, at
    /// its first position.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .dict(Dict(elements))
    }
}
