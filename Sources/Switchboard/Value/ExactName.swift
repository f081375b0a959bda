// Names and keys are bytes.
//
// Swift's `String ==` is Unicode canonical equivalence: "café" written with
// U+00E9 and "cafe\u{301}" are equal, and `Set<String>` or `[String: T]`
// merge them. The mediator never does: a dict key, a target or action name,
// a scheme, a policy entry, a pattern literal or a service name is the same
// as another only when their UTF-8 bytes are equal.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether the two strings are the same UTF-8 bytes (not canonical
    /// equivalence, which `==` is).
    @_spi(Faces) @inlinable
    public func hasSameBytes(as other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Native and small strings are contiguous: one memcmp, no iteration.
        let compared: Bool?? = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        if let compared = compared ?? nil { return compared }
        return a.elementsEqual(b)
    }

    /// Whether the string's UTF-8 bytes start with the ASCII `prefix`,
    /// compared without regard to ASCII case. Bytes, not characters: a
    /// combining mark after the prefix does not hide it, and no non-ASCII
    /// letter folds to an ASCII one (as KELVIN SIGN does under
    /// `lowercased()`).
    func hasASCIIPrefixIgnoringCase(_ prefix: StaticString) -> Bool {
        let bytes = utf8
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        var position = bytes.startIndex
        for i in 0..<prefix.utf8CodeUnitCount {
            if ASCII.lower(bytes[position]) != ASCII.lower(prefix.utf8Start[i]) { return false }
            position = bytes.index(after: position)
        }
        return true
    }

    /// Whether the ASCII `needle` occurs in the string's UTF-8 bytes (not
    /// as Characters: a combining mark after it does not hide it).
    func containsASCII(_ needle: StaticString) -> Bool {
        let n = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        let bytes = Array(utf8)
        guard !n.isEmpty, bytes.count >= n.count else { return n.isEmpty }
        for i in 0...(bytes.count - n.count) where bytes[i] == n[0] && bytes[i..<(i + n.count)].elementsEqual(n) {
            return true
        }
        return false
    }

    /// The string with ASCII letters lowered and every other byte kept (for
    /// URL schemes, which are ASCII: `lowercased()` would fold non-ASCII
    /// letters into ASCII ones).
    @_spi(Faces) public var asciiLowercased: String {
        guard utf8.contains(where: { (65...90).contains($0) }) else { return self }
        return String(decoding: utf8.map(ASCII.lower), as: UTF8.self)
    }
}

enum ASCII {
    @inline(__always)
    static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte | 0x20 : byte }
    @inline(__always)
    static func upper(_ byte: UInt8) -> UInt8 { (97...122).contains(byte) ? byte & ~0x20 : byte }
}

/// A string as a key of a `Set` or `Dictionary`: equal to another only when
/// their UTF-8 bytes are, and hashed by those bytes.
@_spi(Faces) public struct ExactName: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let string: String

    public init(_ string: String) { self.string = string }

    public static func == (a: ExactName, b: ExactName) -> Bool { a.string.hasSameBytes(as: b.string) }

    /// Byte order (so a sorted listing is the same whatever the
    /// normalization of its names).
    public static func < (a: ExactName, b: ExactName) -> Bool { a.string.utf8.lexicographicallyPrecedes(b.string.utf8) }

    public func hash(into hasher: inout Hasher) { hasher.combineUTF8(of: string) }

    public var description: String { string }
}

extension Hasher {
    /// Feeds the UTF-8 bytes of `string`, and its length.
    @_spi(Faces) @inlinable
    public mutating func combineUTF8(of string: String) {
        let utf8 = string.utf8
        combine(utf8.count)
        let done: Bool? = utf8.withContiguousStorageIfAvailable {
            combine(bytes: UnsafeRawBufferPointer($0))
            return true
        }
        if done == nil { for byte in utf8 { combine(byte) } }
    }
}

extension Sequence where Element == String {
    /// The strings in the order of their UTF-8 bytes.
    @_spi(Faces) public func sortedByBytes() -> [String] { sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
}
