@_spi(Faces) import Switchboard
import CSwitchboard

/// What an action receives when the caller passed no params: actions always
/// get a dict (switchboard.h promises `args` is never NULL). Shared and never
/// freed; actions must not modify their args.
nonisolated(unsafe) let emptyParams: OpaquePointer = Handle(retaining: SBValue.container(SB_DICT)).pointer

/// How the core calls Swift actions for C callers: `sb_value` in and out.
enum CBridge: ForeignBridge {
    /// Confirms params in place, without converting anything.
    static func fits(_ params: OpaquePointer?, _ check: ContractCheck) -> Bool {
        guard let params, let box = Handle(params).box else { return false }
        return Borrowed(box).read { d in
            guard d.type == SB_DICT else { return false }
            let entries = d.dictEntries, count = d.h.pointee.count
            for (k, key) in check.keys.enumerated() {
                // Callers usually build params in the contract's order: try
                // that position before searching.
                let i = k < count && DictEntry.hasKey(entries + k, key.bytes, length: key.count)
                    ? k : d.find(key: key.bytes, length: key.count)
                guard let i else {
                    if key.mayBeAbsent { continue }
                    return false
                }
                guard key.type.admits(entries[i].value.type) else { return false }
            }
            return true
        }
    }

    /// Confirms a result's kind in place (NULL reads as null).
    @inline(__always)
    static func resultFits(_ result: OpaquePointer?, _ type: ParamType) -> Bool {
        guard let result else { return type == .any }
        return type == .any || type.admits(Handle(result).type)
    }

    static func value(from native: OpaquePointer?) throws(SwitchboardError) -> Value {
        guard let native else { return .null }
        return try Handle(native).toValue()
    }

    static func native(from value: Value) throws(SwitchboardError) -> OpaquePointer {
        try Handle.from(value).pointer
    }

    static func release(_ native: OpaquePointer?) {
        if let native { Handle(native).release() }
    }

    static func fallbackParams(origin: OpaquePointer?, call: FallbackCall) throws(SwitchboardError) -> OpaquePointer {
        try FallbackParams.make(origin: origin, call: call)
    }

    static func releaseFallbackParams(_ params: OpaquePointer) {
        FallbackParams.release(params)
    }

    static func retain(_ native: OpaquePointer) -> OpaquePointer {
        Handle(native).retain().pointer
    }

    static func lastError() -> String { String(cString: sb_error_message()) }

    static func report(_ error: SwitchboardError) {
        setLastError(error.message)
    }
}

extension ParamType {
    /// Whether a value of C type `type` is of this type as it stands.
    fileprivate func admits(_ type: sb_type) -> Bool {
        switch self {
        case .any: type != SB_NULL
        case .bool: type == SB_BOOL
        case .int: type == SB_INT
        case .double: type == SB_DOUBLE
        case .string: type == SB_STRING
        case .bytes: type == SB_BYTES
        case .array: type == SB_ARRAY
        case .dict: type == SB_DICT
        case .callback: type == SB_CALLBACK
        }
    }
}
