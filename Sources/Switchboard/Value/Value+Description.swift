// A JSON rendering of values, for logs, error messages and `sb_json_encode`.
//
// Data kinds are plain JSON. Doubles always show a fraction or an exponent
// (`3.0`, `1e+100`) so they cannot be mistaken for ints; non-finite doubles are
// written `NaN`, `Infinity`, `-Infinity` (as JSON5 and Python's json module do).
// Kinds JSON has no word for are tagged objects:
//     bytes    -> {"$bytes":"<lowercase hex>"}
//     callback -> {"$callback":"0x..."}   (identity, for logs only)
//     pointer  -> {"$pointer":"0x..."}
// Dict keys are written in the dict's order, byte for byte: what is written
// reads back (`init(json:)`, `sb_json_decode`) to the same keys in the same
// order.

extension Value: CustomStringConvertible {
    /// The value as JSON, by the rules above: `{"name":"Ada","n":3}`.
    public var description: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the JSON rendering of `self` to `out`.
    public func write(to out: inout String) {
        switch self {
        case .null:
            out += "null"
        case .bool(let b):
            out += b ? "true" : "false"
        case .int(let i):
            out += String(i)
        case .double(let d):
            Value.writeDouble(d, to: &out)
        case .string(let s):
            Value.writeJSONString(s, to: &out)
        case .bytes(let b):
            out += "{\"$bytes\":\""
            for byte in b {
                out += byte < 16 ? "0" : ""
                out += String(byte, radix: 16)
            }
            out += "\"}"
        case .array(let a):
            out += "["
            for (i, element) in a.enumerated() {
                if i > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .dict(let d):
            out += "{"
            for (i, entry) in d.enumerated() {
                if i > 0 { out += "," }
                Value.writeJSONString(entry.key, to: &out)
                out += ":"
                entry.value.write(to: &out)
            }
            out += "}"
        case .callback(let c):
            out += "{\"$callback\":\"\(Value.address(of: c))\"}"
        case .pointer(let p):
            out += "{\"$pointer\":\"\(Value.address(of: p))\"}"
        }
    }

    private static func address(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }

    private static func writeDouble(_ d: Double, to out: inout String) {
        if d.isNaN {
            out += "NaN"
        } else if d.isInfinite {
            out += d < 0 ? "-Infinity" : "Infinity"
        } else {
            // Swift's description is the shortest text that reads back to the
            // same double, and keeps ".0" on integral values.
            out += d.description
        }
    }

    static func writeJSONString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension String {
    /// At most `limit` Unicode scalars of the string, then `marker` if it
    /// had more: for quoting input in a message. Scalars, not characters: a
    /// character holds any number of combining marks, so a prefix of 40
    /// characters can be the whole of a huge input.
    func clipped(toScalars limit: Int, marker: String = "...") -> String {
        let scalars = unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
              end != scalars.endIndex else { return self }
        return String(scalars[..<end]) + marker
    }
}
