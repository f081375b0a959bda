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
    /// Dict only, once it is large: open-addressed entry numbers, -1 = empty.
    var index: UnsafeMutablePointer<Int32>?
    var indexMask = 0

    init(type: sb_type) { self.type = type }
}

/// The object behind an `sb_value *`. Its reference count is Swift's own
/// (atomic), driven by `sb_retain`/`sb_release` through `Unmanaged`.
final class SBValue: ManagedBuffer<SBHeader, UInt8> {
    deinit {
        guard header.slots != nil else { return }
        switch header.type {
        case SB_ARRAY:
            let items = arraySlots
            for i in 0..<header.count { items[i].release() }
            free(header.slots)
        case SB_DICT:
            let entries = dictEntries
            for i in 0..<header.count {
                free(entries[i].key)
                entries[i].value.release()
            }
            free(header.slots)
            free(header.index)
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
        v.header.scalar = b ? 1 : 0
        return v
    }

    static func int(_ i: Int64) -> SBValue {
        let v = make(SB_INT)
        v.header.scalar = UInt64(bitPattern: i)
        return v
    }

    static func double(_ d: Double) -> SBValue {
        let v = make(SB_DOUBLE)
        v.header.scalar = d.bitPattern
        return v
    }

    /// A string (bytes already known to be UTF-8) or bytes value; the bytes
    /// are copied into the value, followed by a NUL.
    static func bytes(_ bytes: UnsafeRawBufferPointer, as type: sb_type) -> SBValue {
        let v = make(type, tailBytes: bytes.count + 1)
        v.header.count = bytes.count
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
        v.header.object = object
        return v
    }
}

// MARK: - Reading values

extension SBValue {
    var type: sb_type { header.type }
    var isContainer: Bool { header.type == SB_ARRAY || header.type == SB_DICT }

    /// The bytes of a string or bytes value, NUL-terminated. Stable for the
    /// value's lifetime: a buffer's tail never moves.
    var tailBytes: UnsafeMutablePointer<UInt8> { withUnsafeMutablePointerToElements { $0 } }

    var stringValue: String {
        String(decoding: UnsafeBufferPointer(start: tailBytes, count: header.count), as: UTF8.self)
    }

    var callback: Callback? { header.type == SB_CALLBACK ? unsafeDowncast(header.object!, to: Callback.self) : nil }
    var pointer: Pointer? { header.type == SB_POINTER ? unsafeDowncast(header.object!, to: Pointer.self) : nil }
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
