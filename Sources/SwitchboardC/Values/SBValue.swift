import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a value holds besides its kind. One header for every kind keeps each
/// value to one allocation: a string's bytes follow the header in the same
/// block (the buffer's tail).
struct SBHeader {
    let type: sb_type
    /// Bytes of a string or bytes value (without the trailing NUL),
    /// elements of an array, entries of a dict.
    var count = 0
    /// bool (0 or 1), int and double (bit patterns).
    var scalar: UInt64 = 0
    /// A callback's `Callback`, a pointer's `Pointer`.
    var object: AnyObject?
    /// Array: `Unmanaged<SBValue>` slots; dict: `DictEntry` slots (malloc'd,
    /// so growth can fail with SB_ENOMEM instead of trapping).
    var slots: UnsafeMutableRawPointer?
    var capacity = 0
    /// Dict only: it holds SB_MODULE_KEY, so sb_perform looks the module up
    /// only when there is one.
    var hasModuleKey = false
    /// Dict only, once it is large: open-addressed entry numbers, -1 = empty.
    var index: UnsafeMutablePointer<Int32>?
    var indexMask = 0

    init(type: sb_type) { self.type = type }
}

/// The object behind an `sb_value *`. Its reference count is Swift's own
/// (atomic), driven by `sb_retain`/`sb_release` through `Unmanaged`.
///
/// Fields are reached through `h`, a pointer to the header: accessing
/// ManagedBuffer's `header` property costs a dynamic exclusivity check
/// (swift_beginAccess and a thread-local access set) each time, which
/// callgrind showed to be a third of the cost of a small value.
final class SBValue: ManagedBuffer<SBHeader, UInt8> {
    /// The header, in place. Stable for the object's lifetime.
    @inline(__always)
    var h: UnsafeMutablePointer<SBHeader> { withUnsafeMutablePointerToHeader { $0 } }

    deinit {
        guard h.pointee.slots != nil else { return }
        switch h.pointee.type {
        case SB_ARRAY:
            let items = arraySlots
            for i in 0..<h.pointee.count { items[i].release() }
            free(h.pointee.slots)
        case SB_DICT:
            let entries = dictEntries
            for i in 0..<h.pointee.count {
                free(entries[i].key)
                entries[i].value.release()
            }
            free(h.pointee.slots)
            free(h.pointee.index)
        default:
            break
        }
    }
}

// MARK: - Making values

extension SBValue {
    static func make(_ type: sb_type, tailBytes: Int = 0) -> SBValue {
        unsafeDowncast(create(minimumCapacity: tailBytes) { _ in SBHeader(type: type) }, to: SBValue.self)
    }

    static func null() -> SBValue { make(SB_NULL) }

    static func bool(_ b: Bool) -> SBValue {
        let v = make(SB_BOOL)
        v.h.pointee.scalar = b ? 1 : 0
        return v
    }

    static func int(_ i: Int64) -> SBValue {
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
        v.withUnsafeMutablePointerToElements { tail in
            if let base = bytes.baseAddress { tail.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
            tail[bytes.count] = 0
        }
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

// MARK: - Reading values

extension SBValue {
    var type: sb_type { h.pointee.type }
    var isContainer: Bool { h.pointee.type == SB_ARRAY || h.pointee.type == SB_DICT }

    /// The bytes of a string or bytes value, NUL-terminated. Stable for the
    /// value's lifetime: a buffer's tail never moves.
    var tailBytes: UnsafeMutablePointer<UInt8> { withUnsafeMutablePointerToElements { $0 } }

    var stringValue: String {
        String(decoding: UnsafeBufferPointer(start: tailBytes, count: h.pointee.count), as: UTF8.self)
    }

    var callback: Callback? { h.pointee.type == SB_CALLBACK ? unsafeDowncast(h.pointee.object!, to: Callback.self) : nil }
    var pointer: Pointer? { h.pointee.type == SB_POINTER ? unsafeDowncast(h.pointee.object!, to: Pointer.self) : nil }
}

// MARK: - Handles

extension SBValue {
    /// The value behind a handle, borrowed: no reference count changes.
    @inline(__always)
    static func borrow(_ handle: OpaquePointer) -> Unmanaged<SBValue> {
        Unmanaged.fromOpaque(UnsafeRawPointer(handle))
    }

    /// A handle that owns one new reference.
    var retainedHandle: OpaquePointer { OpaquePointer(Unmanaged.passRetained(self).toOpaque()) }

    /// A handle without a reference of its own (for borrowed results).
    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
}
