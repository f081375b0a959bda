import Synchronization

/// A name being looked up: borrowed UTF-8 bytes and their hash.
///
/// Lookups work on bytes so that a C caller's `const char *` and a Swift
/// `String` find the same entry without building anything.
struct NameRef {
    let base: UnsafePointer<UInt8>
    let count: Int
    let hash: UInt64

    // Inlined: every call hashes two names (the finalizer made the
    // optimizer stop inlining them, +50 instructions per C call).
    @inline(__always)
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.init(bytes, seed: FNV1a.offset)
    }

    /// With this process's seed (`NameRef.seed`) read by the caller: each
    /// read of the global costs a `swift_once` check.
    @inline(__always)
    init(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) {
        base = bytes.baseAddress ?? NameRef.emptyBase
        count = bytes.count
        hash = FNV1a.hash(bytes, seed: seed)
    }

    /// The seed every name's hash starts from in this process.
    static var seed: UInt64 { FNV1a.offset }

    /// Whether the name has a NUL byte (C would see a shorter name).
    var containsNUL: Bool {
        for i in 0..<count where base[i] == 0 { return true }
        return false
    }

    init(base: UnsafePointer<UInt8>, count: Int, hash: UInt64) {
        self.base = base
        self.count = count
        self.hash = hash
    }

    /// Hashes and measures a NUL-terminated string in one pass.
    @inline(__always)
    init(cString: UnsafePointer<CChar>) {
        let bytes = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
        var h = FNV1a.offset
        var n = 0
        // Four bytes a turn, each checked before it is hashed (never a read
        // past the NUL): the loop's counting was a third of its cost.
        scan: while true {
            let b0 = bytes[n]
            if b0 == 0 { break scan }
            h = (h ^ UInt64(b0)) &* FNV1a.prime
            let b1 = bytes[n &+ 1]
            if b1 == 0 { n &+= 1; break scan }
            h = (h ^ UInt64(b1)) &* FNV1a.prime
            let b2 = bytes[n &+ 2]
            if b2 == 0 { n &+= 2; break scan }
            h = (h ^ UInt64(b2)) &* FNV1a.prime
            let b3 = bytes[n &+ 3]
            if b3 == 0 { n &+= 3; break scan }
            h = (h ^ UInt64(b3)) &* FNV1a.prime
            n &+= 4
        }
        base = bytes
        count = n
        hash = FNV1a.finish(h)
    }

    /// Whether the name has a dot (is qualified, `Module.Name`).
    @inline(__always)
    var containsDot: Bool {
        // A word at a time, as `isUTF8` reads: a word has a dot when the
        // word xor dots has a zero byte (exact, whatever the other bytes).
        @inline(__always) func hasDot(_ word: UInt64) -> Bool {
            let x = word ^ 0x2e2e_2e2e_2e2e_2e2e
            return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
        }
        let raw = UnsafeRawPointer(base), dot = UInt8(ascii: ".")
        switch count {
        case 0: return false
        case 1...3: return base[0] == dot || base[count / 2] == dot || base[count - 1] == dot
        case 4...7:
            return hasDot(UInt64(raw.loadUnaligned(as: UInt32.self))
                | UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32)
        default:
            if hasDot(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) { return true }
            var i = 0
            while i &+ 8 <= count {
                if hasDot(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return true }
                i &+= 8
            }
            return false
        }
    }

    /// Whether the bytes are UTF-8. A name from C or Lua may not be; one
    /// that is not must never be turned into a `String`, which would repair
    /// it into another name. (Registered names are UTF-8, so a lookup by
    /// bytes never finds one that is not: only the paths that make a String
    /// need to ask.)
    var isUTF8: Bool {
        // ASCII, the usual name, a word at a time (overlapping loads, as
        // `bytesEqual` reads: never past the name); anything else is validated.
        let raw = UnsafeRawPointer(base)
        let ascii: Bool
        switch count {
        case 0: return true
        case 1...3: ascii = base[0] | base[count / 2] | base[count - 1] < 0x80
        case 4...7:
            ascii = (raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
                & 0x8080_8080 == 0
        default:
            var bits = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            var i = 0
            while i &+ 8 <= count {
                bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            ascii = bits & 0x8080_8080_8080_8080 == 0
        }
        return ascii || validated
    }

    @inline(never)
    private var validated: Bool { String(validating: buffer, as: UTF8.self) != nil }

    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
    var string: String { String(decoding: buffer, as: UTF8.self) }
    var isEmpty: Bool { count == 0 }

    /// The index of this name's first probe in a power-of-two table.
    @inline(__always)
    func slot(mask: Int) -> Int { Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask }

    // Immutable after initialization (one zero byte), so sharing it is safe.
    private nonisolated(unsafe) static let emptyBase: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()
}

/// Calls `body` with a lookup key for `name`.
@inline(__always)
func withNameRef<R>(_ name: String, _ body: (NameRef) -> R) -> R {
    withNameRef(name, seed: NameRef.seed, body)
}

/// The same with the hash seed read by the caller (once for several names).
@inline(__always)
func withNameRef<R>(_ name: String, seed: UInt64, _ body: (NameRef) -> R) -> R {
    // Native and small strings are contiguous (a small one is copied to the
    // stack); only a bridged or foreign string needs `withUTF8`'s copy.
    if let result = name.utf8.withContiguousStorageIfAvailable({ body(NameRef($0, seed: seed)) }) { return result }
    var name = name
    return name.withUTF8 { body(NameRef($0, seed: seed)) }
}

/// A registry entry's own copy of its name, NUL-terminated for C.
struct OwnedName: @unchecked Sendable {
    // @unchecked: the bytes are written once in init and never again.

    let string: String
    let base: UnsafeMutablePointer<UInt8>
    let count: Int
    let hash: UInt64

    init(_ string: String) {
        self.string = string
        (base, count, hash) = withNameRef(string) { key in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: key.count + 1)
            copy.initialize(from: key.base, count: key.count)
            copy[key.count] = 0
            return (copy, key.count, key.hash)
        }
    }

    /// The same bytes under a hash chosen by the caller: for tests of
    /// tables whose names collide (no real name can be given its hash).
    init(_ string: String, hash: UInt64) {
        let name = OwnedName(string)
        (self.string, base, count) = (name.string, name.base, name.count)
        self.hash = hash
    }

    /// A lookup key for this name, valid while the owner lives.
    var ref: NameRef { NameRef(base: base, count: count, hash: hash) }

    @inline(__always)
    func matches(_ key: NameRef) -> Bool {
        hash == key.hash && count == key.count && bytesEqual(UnsafePointer(base), key.base, count: count)
    }

    /// Called once, from the owning entry's deinit.
    func free() { base.deallocate() }
}

/// Whether `count` bytes at `a` and `b` are equal. Names are short, and for
/// up to 16 bytes two overlapping word compares beat a call to memcmp.
/// (Faces use it for their own keys.)
@_spi(Faces) @inlinable @inline(__always)
public func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
    let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
    @inline(__always) func same<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> Bool {
        a.loadUnaligned(fromByteOffset: offset, as: T.self) == b.loadUnaligned(fromByteOffset: offset, as: T.self)
    }
    switch count {
    case 0: return true
    case 1...3:
        return same(UInt8.self, at: 0) && same(UInt8.self, at: count / 2) && same(UInt8.self, at: count - 1)
    case 4...7: return same(UInt32.self, at: 0) && same(UInt32.self, at: count - 4)
    case 8...16: return same(UInt64.self, at: 0) && same(UInt64.self, at: count - 8)
    default: return memcmp(a, b, count) == 0
    }
}

private enum FNV1a {
    /// FNV-1a's offset basis mixed with a seed drawn once per process, so
    /// that names colliding in one process collide in no other: nobody can
    /// craft keys that fill one chain of a table (hash flooding) in advance.
    /// `SWIFT_DETERMINISTIC_HASHING`, which fixes Swift's own hash seed for
    /// repeatable runs (the benchmarks' instruction counts), fixes it too.
    /// Read from an atomic word, 0 until drawn (an offset is never 0: the
    /// basis is odd and the random part even): a lazy global would cost a
    /// `swift_once` on every call.
    @inline(__always)
    static var offset: UInt64 {
        let drawn = offsetWord.load(ordering: .relaxed)
        return drawn != 0 ? drawn : drawOffset()
    }

    private static let offsetWord = Atomic<UInt64>(0)

    @inline(never)
    private static func drawOffset() -> UInt64 {
        let drawn = basis ^ (deterministic ? 0 : UInt64.random(in: .min ... .max) & ~1)
        let (exchanged, earlier) = offsetWord.compareExchange(expected: 0, desired: drawn, ordering: .relaxed)
        return exchanged ? drawn : earlier
    }

    /// Whether `SWIFT_DETERMINISTIC_HASHING` is on, read as the Swift
    /// runtime reads a flag: by its first letter, 1, t or y (any case).
    private static var deterministic: Bool {
        guard let value = getenv("SWIFT_DETERMINISTIC_HASHING") else { return false }
        return [UInt8(ascii: "1"), UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "y"), UInt8(ascii: "Y")]
            .contains(UInt8(bitPattern: value[0]))
    }
    static let basis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        guard let p = bytes.baseAddress else { return finish(seed) }
        // Four bytes a turn: the loop's own counting was half of its cost.
        var h = seed, i = 0
        let n = bytes.count, whole = n & ~3
        while i < whole {
            h = (h ^ UInt64(p[i])) &* prime
            h = (h ^ UInt64(p[i &+ 1])) &* prime
            h = (h ^ UInt64(p[i &+ 2])) &* prime
            h = (h ^ UInt64(p[i &+ 3])) &* prime
            i &+= 4
        }
        while i < n {
            h = (h ^ UInt64(p[i])) &* prime
            i &+= 1
        }
        return finish(h)
    }

    /// The high half folded into the low before one odd multiply. FNV-1a's
    /// low bits depend only on the low bits of its state, and so of the
    /// seed: keys crafted to collide there still collided for about one
    /// seed in 150. Folded, the low bits that tables mask depend on all 64,
    /// and the multiply (a bijection on them) keeps distinct ones distinct.
    @inline(__always)
    static func finish(_ state: UInt64) -> UInt64 {
        (state ^ (state >> 32)) &* 0x9e37_79b9_7f4a_7c15
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The reasons a name cannot be a target or action name.
enum NameCheck {
    /// nil when `name` is usable, else why not.
    static func problem(with name: String, kind: String) -> String? {
        if name.isEmpty { return "\(kind) name is empty" }
        // On the contiguous bytes: `utf8.contains(0)` was a fifth of a Swift
        // perform in the profile.
        return withNameRef(name) { problem(with: $0, kind: kind) }
    }

    /// Whether `problem(with:kind:)` finds nothing, without making its text.
    @inline(__always)
    static func isValid(_ name: NameRef) -> Bool { !name.isEmpty && !name.containsNUL }

    @inline(__always)
    static func problem(with name: NameRef, kind: @autoclosure () -> String) -> String? {
        if name.isEmpty { return "\(kind()) name is empty" }
        if name.containsNUL { return "\(kind()) name contains a NUL byte" }
        return nil
    }
}

/// The hash the registry uses for names, for faces that key their own
/// tables by name (the C face's dict keys) the same way.
@_spi(Faces) public enum NameHash {
    @inline(__always)
    public static func of(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        NameRef(UnsafeBufferPointer(start: bytes, count: count)).hash
    }

    /// The same hash under `seed` instead of this process's: for tests that
    /// check it spreads crafted keys whatever the seed.
    static func of(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        FNV1a.hash(bytes, seed: FNV1a.basis ^ seed)
    }
}
