@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a boxed value holds besides its kind. One header for every kind
/// keeps each value to one allocation: a string's bytes, or a small
/// container's first slots, follow the header in the same block (the tail).
struct SBHeader {
    let type: sb_type
    /// Bytes of a string or bytes value (without the trailing NUL),
    /// elements of an array, entries of a dict.
    var count = 0
    /// An int too big to be an immediate; a double (bit pattern); a
    /// container's depth record (SBValue+Nesting.swift).
    var scalar: UInt64 = 0
    /// A callback's `Callback`, a pointer's `Pointer`; a container's
    /// `DepthTable` when it occurs at several depths (SBValue+Nesting.swift).
    var object: AnyObject?
    /// Array: `Handle` slots; dict: `DictEntry` slots.
    var slots: UnsafeMutableRawPointer?
    var capacity = 0
    /// The slots are the box's tail (no allocation of their own) until the
    /// container outgrows them.
    var slotsInTail = false
    /// Dict only: it holds SB_MODULE_KEY, so sb_action_perform looks the module up
    /// only when there is one.
    var hasModuleKey = false
    /// Dict only, once it is large: open-addressed entry numbers, -1 = empty.
    var index: UnsafeMutablePointer<Int32>?
    var indexMask = 0

    init(type: sb_type) { self.type = type }
}

/// The box behind an `sb_value *` that is not an immediate (see Handle).
/// Its reference count is Swift's own (atomic), driven by `sb_value_retain` and
/// `sb_value_release` through `Unmanaged`.
///
/// Fields are reached through `h`, a pointer to the header: accessing
/// ManagedBuffer's `header` property costs a dynamic exclusivity check
/// (swift_beginAccess and a thread-local access set) each time, which
/// callgrind showed to be a third of the cost of a small value.
final class SBValue: ManagedBuffer<SBHeader, UInt64> {
    /// The header, in place. Stable for the object's lifetime.
    @inline(__always)
    var h: UnsafeMutablePointer<SBHeader> { withUnsafeMutablePointerToHeader { $0 } }

    /// Releasing nests as deep as the value, which SB_MAX_DEPTH bounds
    /// (SBValue+Nesting.swift keeps that limit exact).
    deinit {
        guard h.pointee.slots != nil else { return }
        switch h.pointee.type {
        case SB_ARRAY:
            let items = arraySlots
            for i in 0..<h.pointee.count { dropChild(items[i]) }
        case SB_DICT:
            let entries = dictEntries
            for i in 0..<h.pointee.count {
                DictEntry.freeKey(entries + i)
                dropChild(entries[i].value)
            }
            free(h.pointee.index)
        default:
            break
        }
        if !h.pointee.slotsInTail { free(h.pointee.slots) }
    }
}

// MARK: - Making boxes

extension SBValue {
    /// Slots a new container carries in its tail before it allocates.
    static let tailSlots = 4

    /// A box with at least `tailBytes` of tail, 8-byte aligned (the tail's
    /// elements are UInt64s, rebound to what it holds).
    static func make(_ type: sb_type, tailBytes: Int = 0) -> SBValue {
        unsafeDowncast(create(minimumCapacity: (tailBytes + 7) / 8) { _ in SBHeader(type: type) }, to: SBValue.self)
    }

    /// An empty array or dict, with room for `capacity` elements in place
    /// (`tailSlots` unless a caller knows how many it will hold).
    static func container(_ type: sb_type, capacity: Int = tailSlots) -> SBValue {
        let v: SBValue
        if type == SB_ARRAY {
            v = make(type, tailBytes: capacity * MemoryLayout<Handle>.stride)
            v.h.pointee.slots = UnsafeMutableRawPointer(v.tail.bindMemory(to: Handle.self, capacity: capacity))
        } else {
            v = make(type, tailBytes: capacity * MemoryLayout<DictEntry>.stride)
            v.h.pointee.slots = UnsafeMutableRawPointer(v.tail.bindMemory(to: DictEntry.self, capacity: capacity))
        }
        v.h.pointee.capacity = capacity
        v.h.pointee.slotsInTail = true
        return v
    }

    /// An int outside the immediate range (see Handle.int).
    static func boxedInt(_ i: Int64) -> SBValue {
        let v = make(SB_INT)
        v.h.pointee.scalar = UInt64(bitPattern: i)
        return v
    }

    static func double(_ d: Double) -> SBValue {
        let v = make(SB_DOUBLE)
        v.h.pointee.scalar = d.bitPattern
        return v
    }

    /// A string (bytes already known to be UTF-8) or bytes value; the bytes
    /// are copied into the value, followed by a NUL.
    static func bytes(_ bytes: UnsafeRawBufferPointer, as type: sb_type) -> SBValue {
        let v = make(type, tailBytes: bytes.count + 1)
        v.h.pointee.count = bytes.count
        let tail = v.tail.bindMemory(to: UInt8.self, capacity: bytes.count + 1)
        if let base = bytes.baseAddress { tail.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        tail[bytes.count] = 0
        return v
    }

    static func string(_ s: String) -> SBValue {
        var s = s
        return s.withUTF8 { bytes(UnsafeRawBufferPointer($0), as: SB_STRING) }
    }

    static func object(_ object: AnyObject, as type: sb_type) -> SBValue {
        let v = make(type)
        v.h.pointee.object = object
        return v
    }
}

// MARK: - Reading boxes

extension SBValue {
    var type: sb_type { h.pointee.type }
    var isContainer: Bool { h.pointee.type == SB_ARRAY || h.pointee.type == SB_DICT }

    /// The tail, raw. Stable for the value's lifetime: a buffer's tail never
    /// moves.
    var tail: UnsafeMutableRawPointer { withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) } }

    /// A string's or bytes' bytes, NUL-terminated.
    var tailBytes: UnsafeMutablePointer<UInt8> { tail.assumingMemoryBound(to: UInt8.self) }

    var stringValue: String {
        String(decoding: UnsafeBufferPointer(start: tailBytes, count: h.pointee.count), as: UTF8.self)
    }

    var callback: Callback? { h.pointee.type == SB_CALLBACK ? unsafeDowncast(h.pointee.object!, to: Callback.self) : nil }
    var pointer: Pointer? { h.pointee.type == SB_POINTER ? unsafeDowncast(h.pointee.object!, to: Pointer.self) : nil }
}
