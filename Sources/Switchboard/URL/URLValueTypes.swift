/// The built-in placeholder types: which decoded segments each matches and
/// the value it captures, and (for URLs built from patterns) the segment
/// each value is written as. Every test is one pass over the segment's
/// bytes, so a typed placeholder costs no more than the segment is long.
enum URLValueTypes {
    /// `<int:>`: a decimal integer that fits 64 bits, written as Int64
    /// prints it (no leading zeros; "-0" is not 0), or with a leading "+".
    static func int(_ segment: String) -> Int64? {
        guard let number = Int64(segment), String(number) == segment || segment == "+\(number)" else { return nil }
        return number
    }

    /// `<float:>`: a decimal number — an optional sign, digits with an
    /// optional fraction (or a fraction alone), an optional exponent — that
    /// is finite as a double. No "inf", "nan" or hexadecimal.
    static func double(_ segment: String) -> Double? {
        var bytes = segment.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integer = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integer)
        var fraction = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fraction)
        }
        guard integer + fraction > 0 else { return nil }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let digits = bytes.prefix(while: isDigit).count
            guard digits > 0 else { return nil }
            bytes = bytes.dropFirst(digits)
        }
        guard bytes.isEmpty, let value = Double(segment), value.isFinite else { return nil }
        return value
    }

    /// `<uuid:>`: 8-4-4-4-12 hexadecimal digits, either case; captured in
    /// lower case (RFC 9562's output form), so two spellings give one value.
    static func uuid(_ segment: String) -> String? {
        let bytes = segment.utf8
        guard bytes.count == 36 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                guard URLGrammar.isHex(byte) else { return nil }
            }
            lowered.append(ASCII.lower(byte))
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
