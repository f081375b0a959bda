/// A value that crosses the mediator: in params, in results, in callbacks.
///
/// The same ten kinds exist in the C face (`sb_type`) and the Lua face.
/// `int` and `double` stay distinct: `.int(3)` is not `.double(3)`.
/// Strings and dict keys compare by their UTF-8 bytes, never by Unicode
/// canonical equivalence; a dict keeps its insertion order (``Dict``).
/// Callbacks and pointers compare by identity.
///
/// Params, the bag every action receives, are a ``Dict``: callers pack what
/// they want to say into it and targets unpack it again. Nothing else is
/// shared between the two, which is what keeps components independent of
/// each other.
public enum Value: Sendable {
    /// No value: what a void action returns. A contract counts a param set
    /// to null as absent.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A 64-bit integer; `.int(count)` also takes a Swift `Int`.
    case int(Int64)
    /// A double, never equal to an int of the same number.
    case double(Double)
    /// UTF-8 text, compared by its bytes. Byte strings that are not valid
    /// UTF-8 travel as `.bytes`.
    case string(String)
    /// Raw bytes, compared by their contents.
    case bytes([UInt8])
    /// Values in order.
    case array([Value])
    /// String keys to values, in insertion order (see ``Dict``).
    case dict(Dict)
    /// Something callable, from any of the three languages.
    case callback(Callback)
    /// An opaque host object the mediator carries but never looks into.
    case pointer(Pointer)
}

extension Value {
    /// The kind of a value, in the order of `sb_type` in `switchboard.h`.
    public enum Kind: Int32, Sendable, CaseIterable {
        /// `.null` (`SB_NULL`).
        case null = 0
        /// `.bool` (`SB_BOOL`).
        case bool = 1
        /// `.int` (`SB_INT`).
        case int = 2
        /// `.double` (`SB_DOUBLE`).
        case double = 3
        /// `.string` (`SB_STRING`).
        case string = 4
        /// `.bytes` (`SB_BYTES`).
        case bytes = 5
        /// `.array` (`SB_ARRAY`).
        case array = 6
        /// `.dict` (`SB_DICT`).
        case dict = 7
        /// `.callback` (`SB_CALLBACK`).
        case callback = 8
        /// `.pointer` (`SB_POINTER`).
        case pointer = 9
    }

    /// Which of the ten kinds this value is.
    public var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .array: .array
        case .dict: .dict
        case .callback: .callback
        case .pointer: .pointer
        }
    }
}

extension Value: Equatable {
    /// Structural equality for data, identity for callbacks and pointers.
    /// Strings compare by bytes; dicts by keys (bytes) and values, in any
    /// order, as `sb_value_equal` does.
    /// Doubles compare as IEEE 754 numbers, so `.double(.nan) != .double(.nan)`.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a.hasSameBytes(as: b)
        case let (.bytes(a), .bytes(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dict(a), .dict(b)): a == b
        case let (.callback(a), .callback(b)): a === b
        case let (.pointer(a), .pointer(b)): a === b
        default: false
        }
    }
}
