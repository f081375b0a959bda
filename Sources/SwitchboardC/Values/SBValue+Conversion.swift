@_spi(Faces) import Switchboard
import CSwitchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Conversion between C values and Swift `Value`s, for calls that cross
// between C and Swift. C-to-C calls never convert. (Immediates are handled
// by Handle.toValue / Handle.from.)

extension SBValue {
    /// The Swift value of this box. Callbacks and pointers keep their
    /// identity (the same `Callback` / `Pointer` object).
    func toValue(level: Int = 0) throws(SwitchboardError) -> Value {
        switch type {
        case SB_INT: return .int(Int64(bitPattern: h.pointee.scalar))
        case SB_DOUBLE: return .double(Double(bitPattern: h.pointee.scalar))
        case SB_STRING: return .string(stringValue)
        case SB_BYTES: return .bytes(Array(UnsafeBufferPointer(start: tailBytes, count: h.pointee.count)))
        case SB_CALLBACK: return .callback(callback!)
        case SB_POINTER: return .pointer(pointer!)
        case SB_ARRAY:
            try Self.checkDepth(level)
            var items: [Value] = []
            items.reserveCapacity(h.pointee.count)
            for i in 0..<h.pointee.count {
                items.append(try arraySlots[i].toValue(level: level + 1))
            }
            return .array(items)
        case SB_DICT:
            try Self.checkDepth(level)
            // A C dict's keys are distinct by bytes already: no lookups.
            var dict = Value.Dict(minimumCapacity: h.pointee.count)
            for i in 0..<h.pointee.count {
                dict.appendDistinct(key(at: i), try dictEntries[i].value.toValue(level: level + 1))
            }
            return .dict(dict)
        default:
            return .null
        }
    }

    /// A new box for a Swift value that is not an immediate (see
    /// Handle.from), at nesting `level` (0: a root). Dict keys keep their
    /// order and bytes. The boxes are new, so each container's depth is
    /// recorded directly (one parent, at `level`).
    static func from(_ value: Value, level: Int = 0) throws(SwitchboardError) -> SBValue {
        switch value {
        case .null, .bool, .int:
            // Only big ints reach here; Handle.from makes the others immediates.
            return boxedInt(value.int ?? 0)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .bytes(let b): return b.withUnsafeBytes { bytes($0, as: SB_BYTES) }
        case .callback(let c): return .object(c, as: SB_CALLBACK)
        case .pointer(let p): return .object(p, as: SB_POINTER)
        case .array(let items):
            try checkDepth(level)
            let array = container(SB_ARRAY)
            for item in items {
                let element = try Handle.from(item, level: level + 1)
                guard array.append(element) else {
                    element.release()
                    throw .outOfMemory("out of memory building an array")
                }
            }
            if level > 0 { array.setSingleParent(depth: level + 1) }
            return array
        case .dict(let entries):
            try checkDepth(level)
            let dict = container(SB_DICT)
            for (key, value) in entries {
                var key = key
                // memchr: a generic search of the UTF-8 view cost more than the rest of the entry.
                if key.withUTF8({ $0.count > 0 && memchr($0.baseAddress!, 0, $0.count) != nil }) {
                    throw .invalidArgument("dict key \(Value.string(key)) contains a NUL byte")
                }
                let element = try Handle.from(value, level: level + 1)
                // A Swift dict's keys are distinct: no search for each.
                let stored = key.withUTF8 {
                    dict.append(newKey: $0.baseAddress ?? SBValue.emptyKey, length: $0.count, value: element)
                }
                guard stored else {
                    element.release()
                    throw .outOfMemory("out of memory building a dict")
                }
            }
            if level > 0 { dict.setSingleParent(depth: level + 1) }
            return dict
        }
    }

    private static func checkDepth(_ level: Int) throws(SwitchboardError) {
        if level >= Int(SB_MAX_DEPTH) {
            throw .invalidArgument("values nest deeper than SB_MAX_DEPTH (\(SB_MAX_DEPTH))")
        }
    }

    // A zero-length key's bytes are never read; any valid address will do.
    nonisolated(unsafe) static let emptyKey = UnsafePointer<UInt8>(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))
}
