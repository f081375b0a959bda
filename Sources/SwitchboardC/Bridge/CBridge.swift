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
        return box._withUnsafeGuaranteedRef { d in
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
        // Room for every entry in the box itself: one allocation for the dict.
        let params = SBValue.container(SB_DICT, capacity: 1 + call.fieldCount)
        let originParams = origin.map { Handle($0).retain() } ?? Handle(retaining: SBValue.container(SB_DICT))
        let originBox = originParams.box?.takeUnretainedValue()
        if let originBox, originBox.isContainer, let problem = Nesting.admit(originBox, into: params) {
            originParams.release()
            throw .invalidArgument("NoTargetAction params: originParams: \(problem)")
        }
        let originKey: StaticString = "originParams"
        guard params.set(key: originKey.utf8Start, length: originKey.utf8CodeUnitCount, value: originParams) else {
            if let originBox, originBox.isContainer { Nesting.undo(originBox, into: params) }
            originParams.release()
            throw .outOfMemory("out of memory building NoTargetAction params")
        }
        for i in 0..<call.fieldCount {
            let stored = call.withField(i) { key, value -> Bool in
                let string = Handle(retaining: SBValue.bytes(UnsafeRawBufferPointer(value), as: SB_STRING))
                guard params.set(key: key.utf8Start, length: key.utf8CodeUnitCount, value: string) else {
                    string.release()
                    return false
                }
                return true
            }
            // What was stored goes with `params`, which ARC frees.
            guard stored else {
                throw .outOfMemory("out of memory building NoTargetAction params")
            }
        }
        return Handle(retaining: params).pointer
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
