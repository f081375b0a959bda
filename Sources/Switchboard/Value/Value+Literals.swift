// Literal conformances, so params read like data:
//     mediator.perform(target: "A", action: "show", params: ["id": 42, "tags": ["x", "y"]])

extension Value: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension Value: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Value: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension Value: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
}

extension Value: ExpressibleByDictionaryLiteral {
    /// Keys in the order written; a repeated key keeps its last value, at
    /// its first position.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .dict(Dict(elements))
    }
}
