@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One dict entry: an owned, NUL-terminated copy of the key, its hash, and
/// one strong reference to the value.
struct DictEntry {
    var hash: UInt64
    var key: UnsafeMutablePointer<UInt8>
    var keyLength: Int
    var value: Unmanaged<SBValue>
}

/// SB_MODULE_KEY, hashed once.
enum ModuleKey {
    // Immutable after initialization.
    nonisolated(unsafe) static let base: UnsafePointer<UInt8> = {
        let bytes = Array(Mediator.moduleKey.utf8)
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        base.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(base)
    }()
    static let count = Mediator.moduleKey.utf8.count
    static let hash = NameHash.of(base, count: count)
}

/// Dicts are scanned linearly while small (params usually are) and get a
/// hash index beyond this many entries.
private let indexThreshold = 8

// MARK: - Arrays

extension SBValue {
    var arraySlots: UnsafeMutablePointer<Unmanaged<SBValue>> {
        h.pointee.slots!.assumingMemoryBound(to: Unmanaged<SBValue>.self)
    }

    /// Element `i`, borrowed; nil when out of range.
    func element(_ i: Int) -> Unmanaged<SBValue>? {
        i >= 0 && i < h.pointee.count ? arraySlots[i] : nil
    }

    /// Appends `item`, taking over one reference to it. False (and `item`
    /// still owned by the caller) when memory runs out.
    func append(_ item: Unmanaged<SBValue>) -> Bool {
        if h.pointee.count == h.pointee.capacity {
            guard grow(elementSize: MemoryLayout<Unmanaged<SBValue>>.stride) else { return false }
        }
        arraySlots[h.pointee.count] = item
        h.pointee.count += 1
        return true
    }

    /// Doubles the slot capacity with realloc (slots are trivial values).
    private func grow(elementSize: Int) -> Bool {
        let capacity = max(4, h.pointee.capacity * 2)
        guard let slots = realloc(h.pointee.slots, capacity * elementSize) else { return false }
        h.pointee.slots = slots
        h.pointee.capacity = capacity
        return true
    }
}

// MARK: - Dicts

extension SBValue {
    var dictEntries: UnsafeMutablePointer<DictEntry> {
        h.pointee.slots!.assumingMemoryBound(to: DictEntry.self)
    }

    /// The position of `key`, or nil.
    func find(key: UnsafePointer<UInt8>, length: Int, hash: UInt64) -> Int? {
        guard h.pointee.count > 0 else { return nil }
        let entries = dictEntries
        if let index = h.pointee.index {
            var i = Int(truncatingIfNeeded: hash) & h.pointee.indexMask
            while index[i] >= 0 {
                let e = entries[Int(index[i])]
                if e.hash == hash && e.keyLength == length && memcmp(e.key, key, length) == 0 { return Int(index[i]) }
                i = (i + 1) & h.pointee.indexMask
            }
            return nil
        }
        for i in 0..<h.pointee.count {
            let e = entries[i]
            if e.hash == hash && e.keyLength == length && memcmp(e.key, key, length) == 0 { return i }
        }
        return nil
    }

    func find(key: UnsafePointer<CChar>) -> Int? {
        let bytes = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
        let length = strlen(key)
        return find(key: bytes, length: length, hash: NameHash.of(bytes, count: length))
    }

    /// Sets `key` to `value`, taking over one reference to `value`. A new key
    /// goes last. False (and `value` still owned by the caller) when memory
    /// runs out.
    func set(key: UnsafePointer<UInt8>, length: Int, value: Unmanaged<SBValue>) -> Bool {
        let hash = NameHash.of(key, count: length)
        if let i = find(key: key, length: length, hash: hash) {
            let old = dictEntries[i].value
            dictEntries[i].value = value
            old.release()
            return true
        }
        if h.pointee.count == h.pointee.capacity {
            let capacity = max(4, h.pointee.capacity * 2)
            guard let slots = realloc(h.pointee.slots, capacity * MemoryLayout<DictEntry>.stride) else { return false }
            h.pointee.slots = slots
            h.pointee.capacity = capacity
            if capacity > indexThreshold && !rebuildIndex() { return false }
        }
        guard let copy = malloc(length + 1)?.assumingMemoryBound(to: UInt8.self) else { return false }
        copy.initialize(from: key, count: length)
        copy[length] = 0
        let position = h.pointee.count
        dictEntries[position] = DictEntry(hash: hash, key: copy, keyLength: length, value: value)
        if hash == ModuleKey.hash && length == ModuleKey.count && memcmp(key, ModuleKey.base, length) == 0 {
            h.pointee.hasModuleKey = true
        }
        h.pointee.count += 1
        if let index = h.pointee.index { insert(position, hash: hash, into: index) }
        return true
    }

    /// Makes an index twice the slot capacity, for a load factor ≤ 1/2.
    private func rebuildIndex() -> Bool {
        let size = h.pointee.capacity * 2
        guard let index = malloc(size * MemoryLayout<Int32>.stride)?.assumingMemoryBound(to: Int32.self) else {
            return false
        }
        index.initialize(repeating: -1, count: size)
        free(h.pointee.index)
        h.pointee.index = index
        h.pointee.indexMask = size - 1
        for i in 0..<h.pointee.count { insert(i, hash: dictEntries[i].hash, into: index) }
        return true
    }

    private func insert(_ position: Int, hash: UInt64, into index: UnsafeMutablePointer<Int32>) {
        var i = Int(truncatingIfNeeded: hash) & h.pointee.indexMask
        while index[i] >= 0 { i = (i + 1) & h.pointee.indexMask }
        index[i] = Int32(position)
    }

    func key(at i: Int) -> String {
        let e = dictEntries[i]
        return String(decoding: UnsafeBufferPointer(start: e.key, count: e.keyLength), as: UTF8.self)
    }
}

// MARK: - Nesting rules

extension SBValue {
    /// Why `item` may not go into `self`, or nil if it may: no container may
    /// contain itself (which would leak and never end a traversal), and no
    /// container may nest deeper than SB_MAX_DEPTH.
    func insertionProblem(_ item: SBValue) -> String? {
        if item === self { return "a container cannot contain itself" }
        return item.isContainer ? item.scan(for: self, level: 1) : nil
    }

    /// Walks the containers inside `self` (at nesting `level`) looking for
    /// `target`, within the depth limit.
    private func scan(for target: SBValue, level: Int) -> String? {
        if level >= Int(SB_MAX_DEPTH) { return "values nest deeper than SB_MAX_DEPTH (\(SB_MAX_DEPTH))" }
        for i in 0..<h.pointee.count {  // count > 0 implies slots exist
            let child = type == SB_ARRAY ? arraySlots[i] : dictEntries[i].value
            let problem: String? = child._withUnsafeGuaranteedRef { child in
                guard child.isContainer else { return nil }
                if child === target { return "the value contains the container it is added to (a cycle)" }
                return child.scan(for: target, level: level + 1)
            }
            if let problem { return problem }
        }
        return nil
    }
}

// MARK: - Equality

extension SBValue {
    /// Deep equality as `sb_equal` documents it; nesting is bounded on
    /// insertion, so the recursion is too.
    /// No identity short-cut: a NaN (or a container holding one) is unequal
    /// even to itself, as `Value` equality has it.
    func equals(_ other: SBValue) -> Bool {
        guard type == other.type else { return false }
        switch type {
        case SB_NULL:
            return true
        case SB_BOOL, SB_INT:
            return h.pointee.scalar == other.h.pointee.scalar
        case SB_DOUBLE:
            return Double(bitPattern: h.pointee.scalar) == Double(bitPattern: other.h.pointee.scalar)
        case SB_STRING, SB_BYTES:
            return h.pointee.count == other.h.pointee.count && memcmp(tailBytes, other.tailBytes, h.pointee.count) == 0
        case SB_ARRAY:
            guard h.pointee.count == other.h.pointee.count else { return false }
            for i in 0..<h.pointee.count where !arraySlots[i].takeUnretainedValue().equals(other.arraySlots[i].takeUnretainedValue()) {
                return false
            }
            return true
        case SB_DICT:
            guard h.pointee.count == other.h.pointee.count else { return false }
            for i in 0..<h.pointee.count {
                let e = dictEntries[i]
                guard let j = other.find(key: e.key, length: e.keyLength, hash: e.hash),
                      e.value.takeUnretainedValue().equals(other.dictEntries[j].value.takeUnretainedValue())
                else { return false }
            }
            return true
        default:
            return h.pointee.object === other.h.pointee.object
        }
    }
}
