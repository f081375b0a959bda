@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One dict entry: the key, NUL-terminated — in the entry itself when it is
/// short (params keys nearly always are), else in a malloc'd copy — its hash,
/// and one strong reference to the value.
struct DictEntry {
    /// The key's hash; set only once the dict has an index.
    var hash: UInt64
    var keyLength: Int
    /// Up to 23 key bytes and a NUL; for a longer key, the first word is the
    /// address of its heap copy.
    var inline: (UInt64, UInt64, UInt64)
    /// One reference.
    var value: Handle

    static let inlineCapacity = MemoryLayout<(UInt64, UInt64, UInt64)>.size - 1
    /// After `hash` and `keyLength`. A constant, not `offset(of:)`: a lazily
    /// computed static costs a swift_once check on every key comparison.
    /// `store` asserts it in debug builds.
    private static var inlineOffset: Int { MemoryLayout<UInt64>.size + MemoryLayout<Int>.size }

    /// The key of the entry at `entry`: valid until the dict changes.
    @inline(__always)
    static func key(_ entry: UnsafeMutablePointer<DictEntry>) -> UnsafeMutablePointer<UInt8> {
        let raw = UnsafeMutableRawPointer(entry) + inlineOffset
        if entry.pointee.keyLength <= inlineCapacity { return raw.assumingMemoryBound(to: UInt8.self) }
        return raw.load(as: UnsafeMutablePointer<UInt8>.self)
    }

    /// Stores a copy of `key` in `entry`; false if a long key's copy cannot
    /// be allocated.
    static func store(key: UnsafePointer<UInt8>, length: Int, in entry: UnsafeMutablePointer<DictEntry>) -> Bool {
        assert(MemoryLayout<DictEntry>.offset(of: \DictEntry.inline) == inlineOffset)
        entry.pointee.keyLength = length
        entry.pointee.inline = (0, 0, 0)
        let raw = UnsafeMutableRawPointer(entry) + inlineOffset
        if length <= inlineCapacity {
            raw.copyMemory(from: key, byteCount: length)
            return true
        }
        guard let copy = malloc(length + 1)?.assumingMemoryBound(to: UInt8.self) else { return false }
        copy.initialize(from: key, count: length)
        copy[length] = 0
        raw.storeBytes(of: copy, as: UnsafeMutablePointer<UInt8>.self)
        return true
    }

    /// Whether the key of `entry` is the `length` bytes at `key`.
    @inline(__always)
    static func hasKey(_ entry: UnsafeMutablePointer<DictEntry>, _ key: UnsafePointer<UInt8>, length: Int) -> Bool {
        entry.pointee.keyLength == length && bytesEqual(Self.key(entry), key, count: length)
    }

    /// Whether the key of `entry` equals the NUL-terminated `key`. Reads `key`
    /// no further than its NUL.
    @inline(__always)
    static func hasKey(_ entry: UnsafeMutablePointer<DictEntry>, cString key: UnsafePointer<UInt8>) -> Bool {
        let length = entry.pointee.keyLength
        let stored = Self.key(entry)
        var i = 0
        while i < length {
            let byte = key[i]
            if byte != stored[i] || byte == 0 { return false }
            i &+= 1
        }
        return key[length] == 0
    }

    /// Frees a long key's heap copy.
    static func freeKey(_ entry: UnsafeMutablePointer<DictEntry>) {
        if entry.pointee.keyLength > inlineCapacity { free(key(entry)) }
    }
}

/// SB_MODULE_KEY, hashed once. `count` is a literal, so inserting a key of
/// another length never touches the lazily made statics (each access to
/// those costs a swift_once check).
enum ModuleKey {
    static let count = 18 // "switchboard.module"; a test checks it
    // Immutable after initialization.
    nonisolated(unsafe) static let base = bytes(of: Mediator.moduleKey)
    static let hash = NameHash.of(base, count: count)

    /// SB_MODULE_KEY_CTMEDIATOR, CTMediator's key, read as an alias.
    enum Alias {
        static let count = 41 // "kCTMediatorParamsKeySwiftTargetModuleName"; a test checks it
        nonisolated(unsafe) static let base = bytes(of: Mediator.ctMediatorModuleKey)
        static let hash = NameHash.of(base, count: count)
    }

    /// Whether `key` is either module key.
    @inline(__always)
    static func matches(_ key: UnsafePointer<UInt8>, length: Int) -> Bool {
        (length == count && memcmp(key, base, length) == 0)
            || (length == Alias.count && memcmp(key, Alias.base, length) == 0)
    }

    private static func bytes(of key: String) -> UnsafePointer<UInt8> {
        let bytes = Array(key.utf8)
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        base.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(base)
    }
}

/// Dicts are scanned linearly while small (params usually are) and get a
/// hash index beyond this many entries.
private let indexThreshold = 8

// MARK: - Growth

extension SBValue {
    /// Doubles the slot capacity: out of the tail into malloc'd memory the
    /// first time, with realloc after that (slots are trivial values).
    fileprivate func growSlots(elementSize: Int) -> Bool {
        let capacity = max(SBValue.tailSlots, h.pointee.capacity * 2)
        let bytes = capacity * elementSize
        if h.pointee.slotsInTail {
            guard let fresh = malloc(bytes) else { return false }
            fresh.copyMemory(from: h.pointee.slots!, byteCount: h.pointee.count * elementSize)
            h.pointee.slots = fresh
            h.pointee.slotsInTail = false
        } else {
            guard let grown = realloc(h.pointee.slots, bytes) else { return false }
            h.pointee.slots = grown
        }
        h.pointee.capacity = capacity
        return true
    }
}

// MARK: - Arrays

extension SBValue {
    var arraySlots: UnsafeMutablePointer<Handle> {
        h.pointee.slots!.assumingMemoryBound(to: Handle.self)
    }

    /// Element `i`, borrowed; nil when out of range.
    func element(_ i: Int) -> Handle? {
        i >= 0 && i < h.pointee.count ? arraySlots[i] : nil
    }

    /// Appends `item`, taking over its reference. False (and `item` still
    /// owned by the caller) when memory runs out. A container `item` must
    /// have been admitted (Nesting.admit).
    func append(_ item: Handle) -> Bool {
        if h.pointee.count == h.pointee.capacity {
            guard growSlots(elementSize: MemoryLayout<Handle>.stride) else { return false }
        }
        arraySlots[h.pointee.count] = item
        h.pointee.count += 1
        return true
    }
}

// MARK: - Dicts

extension SBValue {
    var dictEntries: UnsafeMutablePointer<DictEntry> {
        h.pointee.slots!.assumingMemoryBound(to: DictEntry.self)
    }

    /// The position of `key`, or nil. Small dicts are scanned and never
    /// hash: the key is hashed only when the dict has an index.
    @inline(__always)
    func find(key: UnsafePointer<UInt8>, length: Int) -> Int? {
        if h.pointee.index != nil { return find(key: key, length: length, hash: NameHash.of(key, count: length)) }
        let entries = dictEntries
        for i in 0..<h.pointee.count where DictEntry.hasKey(entries + i, key, length: length) { return i }
        return nil
    }

    /// The position of `key` in a dict that has an index, or nil.
    func find(key: UnsafePointer<UInt8>, length: Int, hash: UInt64) -> Int? {
        guard let index = h.pointee.index else { return find(key: key, length: length) }
        let entries = dictEntries
        var i = Int(truncatingIfNeeded: hash) & h.pointee.indexMask
        while index[i] >= 0 {
            let e = entries + Int(index[i])
            if e.pointee.hash == hash && DictEntry.hasKey(e, key, length: length) { return Int(index[i]) }
            i = (i + 1) & h.pointee.indexMask
        }
        return nil
    }

    func find(key: UnsafePointer<CChar>) -> Int? {
        let bytes = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
        if h.pointee.index == nil {
            // A small dict: compare the C string with each key as it is read,
            // which costs less than measuring and hashing it first.
            let entries = dictEntries
            for i in 0..<h.pointee.count where DictEntry.hasKey(entries + i, cString: bytes) { return i }
            return nil
        }
        let length = strlen(key)
        return find(key: bytes, length: length, hash: NameHash.of(bytes, count: length))
    }

    /// Sets `key` to `value`, taking over its reference. A new key goes
    /// last. False (and `value` still owned by the caller) when memory runs
    /// out. A container `value` must have been admitted (Nesting.admit).
    func set(key: UnsafePointer<UInt8>, length: Int, value: Handle) -> Bool {
        if let i = find(key: key, length: length) {
            let old = dictEntries[i].value
            dictEntries[i].value = value
            dropChild(old)
            return true
        }
        return append(newKey: key, length: length, value: value)
    }

    /// `set` of a key the dict does not hold (the keys of a Swift dict
    /// being converted): no search for it.
    func append(newKey key: UnsafePointer<UInt8>, length: Int, value: Handle) -> Bool {
        assert(find(key: key, length: length) == nil, "append(newKey:) of a key the dict holds")
        if h.pointee.count == h.pointee.capacity {
            guard growSlots(elementSize: MemoryLayout<DictEntry>.stride) else { return false }
            if h.pointee.capacity > indexThreshold && !rebuildIndex() { return false }
        }
        let position = h.pointee.count
        let entry = dictEntries + position
        guard DictEntry.store(key: key, length: length, in: entry) else { return false }
        entry.pointee.value = value
        h.pointee.count += 1
        if ModuleKey.matches(key, length: length) {
            h.pointee.hasModuleKey = true
        }
        if let index = h.pointee.index {
            entry.pointee.hash = NameHash.of(key, count: length)
            insert(position, hash: entry.pointee.hash, into: index)
        }
        return true
    }

    /// Makes an index of at least twice the slot capacity, for a load
    /// factor ≤ 1/2, and a power of two whatever the capacity (a dict made
    /// with 5 slots grows to 10): probes wrap with a mask, which must reach
    /// every slot, or an insert into a dict of 9 keys never ends.
    private func rebuildIndex() -> Bool {
        let size = 1 << (Int.bitWidth - (h.pointee.capacity * 2 - 1).leadingZeroBitCount)
        guard let index = malloc(size * MemoryLayout<Int32>.stride)?.assumingMemoryBound(to: Int32.self) else {
            return false
        }
        index.initialize(repeating: -1, count: size)
        let hadIndex = h.pointee.index != nil
        free(h.pointee.index)
        h.pointee.index = index
        h.pointee.indexMask = size - 1
        for i in 0..<h.pointee.count {
            let e = dictEntries + i
            // Entries added while the dict was small were never hashed.
            if !hadIndex { e.pointee.hash = NameHash.of(DictEntry.key(e), count: e.pointee.keyLength) }
            insert(i, hash: e.pointee.hash, into: index)
        }
        return true
    }

    private func insert(_ position: Int, hash: UInt64, into index: UnsafeMutablePointer<Int32>) {
        var i = Int(truncatingIfNeeded: hash) & h.pointee.indexMask
        while index[i] >= 0 { i = (i + 1) & h.pointee.indexMask }
        index[i] = Int32(position)
    }

    func key(at i: Int) -> String {
        let e = dictEntries + i
        return String(decoding: UnsafeBufferPointer(start: DictEntry.key(e), count: e.pointee.keyLength), as: UTF8.self)
    }
}

// MARK: - Equality

extension SBValue {
    /// Deep equality as `sb_value_equal` documents it; the recursion is as deep
    /// as the values, which SB_MAX_DEPTH bounds (see SBValue+Nesting.swift).
    /// No identity short-cut: a NaN (or a container holding one) is unequal
    /// even to itself, as `Value` equality has it.
    func equals(_ other: SBValue) -> Bool {
        guard type == other.type else { return false }
        switch type {
        case SB_INT:
            return h.pointee.scalar == other.h.pointee.scalar
        case SB_DOUBLE:
            return Double(bitPattern: h.pointee.scalar) == Double(bitPattern: other.h.pointee.scalar)
        case SB_STRING, SB_BYTES:
            return h.pointee.count == other.h.pointee.count && memcmp(tailBytes, other.tailBytes, h.pointee.count) == 0
        case SB_ARRAY:
            guard h.pointee.count == other.h.pointee.count else { return false }
            for i in 0..<h.pointee.count where !arraySlots[i].equals(other.arraySlots[i]) {
                return false
            }
            return true
        case SB_DICT:
            guard h.pointee.count == other.h.pointee.count else { return false }
            for i in 0..<h.pointee.count {
                let e = dictEntries + i
                guard let j = other.find(key: DictEntry.key(e), length: e.pointee.keyLength),
                      e.pointee.value.equals(other.dictEntries[j].value)
                else { return false }
            }
            return true
        default:
            return h.pointee.object === other.h.pointee.object
        }
    }
}
