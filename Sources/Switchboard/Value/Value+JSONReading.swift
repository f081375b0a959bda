// Reading the JSON that `Value.description` writes (and any RFC 8259 text).
//
// Numbers keep the distinction the writer makes: a number written without a
// fraction or exponent is an int when it fits in 64 bits, anything else a
// double. `NaN`, `Infinity` and `-Infinity` read as doubles, and an object
// that is exactly {"$bytes":"<hex>"} reads as bytes, so that the writer's
// output reads back to an equal value. (`$callback` and `$pointer` objects
// name identities for logs: they read back as plain dicts.)
//
// Strict where RFC 8259 is strict: no comments, no trailing commas, no
// control characters in strings, no lone surrogates, one value per text.
// A key repeated in one object is an error rather than a silent choice.
// Nesting deeper than `Value.maximumJSONDepth` is refused, so hostile input
// cannot exhaust the stack.

extension Value {
    /// The deepest nesting `init(json:)` accepts (switchboard.h's SB_MAX_DEPTH).
    public static let maximumJSONDepth = 200

    /// Parses one JSON text. Throws `.invalidArgument` with the line and
    /// column of the first problem.
    public init(json text: String) throws(SwitchboardError) {
        var reader = JSONReader(Array(text.utf8))
        self = try reader.readDocument()
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func readDocument() throws(SwitchboardError) -> Value {
        skipSpace()
        let value = try readValue(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw problem("unexpected text after the value") }
        return value
    }

    // MARK: Values

    private mutating func readValue(depth: Int) throws(SwitchboardError) -> Value {
        guard i < bytes.count else { throw problem("unexpected end of text, a value was expected") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "N"): try expectWord("NaN"); return .double(.nan)
        case UInt8(ascii: "I"): try expectWord("Infinity"); return .double(.infinity)
        case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "I"):
            i += 1
            try expectWord("Infinity")
            return .double(-.infinity)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw problem("unexpected \(describe(bytes[i])), a value was expected")
        }
    }

    private mutating func readObject(depth: Int) throws(SwitchboardError) -> Value {
        guard depth <= Value.maximumJSONDepth else { throw problem("values nest deeper than \(Value.maximumJSONDepth)") }
        i += 1 // {
        var dict = Value.Dict()
        skipSpace()
        if peek(UInt8(ascii: "}")) { i += 1; return .dict(dict) }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else { throw problem("an object key must be a string") }
            let key = try readString()
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw problem("':' expected after the key \(Value.string(key))") }
            i += 1
            skipSpace()
            let value = try readValue(depth: depth)
            guard dict.updateValue(value, forKey: key) == nil else {
                throw problem("the key \(Value.string(key)) appears twice in one object")
            }
            skipSpace()
            if peek(UInt8(ascii: ",")) { i += 1; continue }
            if peek(UInt8(ascii: "}")) { i += 1; break }
            throw problem("',' or '}' expected in an object")
        }
        if dict.count == 1, case .string(let hex)? = dict["$bytes"], let decoded = Self.hexBytes(hex) {
            return .bytes(decoded)
        }
        return .dict(dict)
    }

    private mutating func readArray(depth: Int) throws(SwitchboardError) -> Value {
        guard depth <= Value.maximumJSONDepth else { throw problem("values nest deeper than \(Value.maximumJSONDepth)") }
        i += 1 // [
        var array: [Value] = []
        skipSpace()
        if peek(UInt8(ascii: "]")) { i += 1; return .array(array) }
        while true {
            skipSpace()
            array.append(try readValue(depth: depth))
            skipSpace()
            if peek(UInt8(ascii: ",")) { i += 1; continue }
            if peek(UInt8(ascii: "]")) { i += 1; break }
            throw problem("',' or ']' expected in an array")
        }
        return .array(array)
    }

    /// RFC 8259 number syntax; an int when written without fraction or
    /// exponent and within Int64, else a double.
    private mutating func readNumber() throws(SwitchboardError) -> Value {
        let start = i
        var isInteger = true
        if peek(UInt8(ascii: "-")) { i += 1 }
        if peek(UInt8(ascii: "0")) {
            i += 1
            if peekDigit() { throw problem("a number cannot start with 0") }
        } else {
            guard peekDigit() else { throw problem("a digit was expected") }
            while peekDigit() { i += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            i += 1
            guard peekDigit() else { throw problem("a digit was expected after '.'") }
            while peekDigit() { i += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            i += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { i += 1 }
            guard peekDigit() else { throw problem("a digit was expected in the exponent") }
            while peekDigit() { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger, let int = Int64(text) { return .int(int) }
        guard let double = Double(text) else { throw problem("\(text) is not a number") }
        return .double(double)
    }

    private mutating func readString() throws(SwitchboardError) -> String {
        i += 1 // "
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw problem("unterminated string") }
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                i += 1
                try readEscape(into: &out)
            case 0..<0x20:
                throw problem("a control character (\(describe(byte))) must be escaped in a string")
            default:
                out.append(byte)
                i += 1
            }
        }
    }

    private mutating func readEscape(into out: inout [UInt8]) throws(SwitchboardError) {
        guard i < bytes.count else { throw problem("unterminated escape") }
        let byte = bytes[i]
        i += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard peek(UInt8(ascii: "\\")), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "u") else {
                    throw problem("a lone surrogate \\u\(String(scalar, radix: 16))")
                }
                i += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw problem("a lone surrogate \\u\(String(scalar, radix: 16))") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw problem("a lone surrogate \\u\(String(scalar, radix: 16))")
            }
            out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
        default:
            throw problem("an unknown escape \\\(describe(byte))")
        }
    }

    private mutating func readHex4() throws(SwitchboardError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw problem("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[i]) else { throw problem("\\u needs four hex digits") }
            value = value << 4 | UInt32(digit)
            i += 1
        }
        return value
    }

    // MARK: Helpers

    private mutating func expectWord(_ word: StaticString) throws(SwitchboardError) {
        let count = word.utf8CodeUnitCount
        let matches = i + count <= bytes.count && word.withUTF8Buffer { Array($0) == Array(bytes[i..<(i + count)]) }
        guard matches else { throw problem("unexpected \(describe(bytes[i])), a value was expected") }
        i += count
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private func peek(_ byte: UInt8) -> Bool { i < bytes.count && bytes[i] == byte }

    private func peekDigit() -> Bool { i < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// The error for the problem at the current position.
    private func problem(_ what: String) -> SwitchboardError {
        var line = 1, column = 1
        for byte in bytes[..<min(i, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return .invalidArgument("JSON: \(what) (line \(line), column \(column))")
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes of an even-length hex string, or nil.
    static func hexBytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var k = 0
        while k < digits.count {
            guard let high = hexDigit(digits[k]), let low = hexDigit(digits[k + 1]) else { return nil }
            out.append(high << 4 | low)
            k += 2
        }
        return out
    }
}
