@_spi(Faces) import Switchboard
import CSwitchboard

/// What an action receives when the caller passed no params: actions always
/// get a dict (switchboard.h promises `args` is never NULL). Shared and never
/// freed; actions must not modify their args.
nonisolated(unsafe) let emptyParams: OpaquePointer = Handle(retaining: SBValue.container(SB_DICT)).pointer

/// How the core calls Swift actions for C callers: `sb_value` in and out.
enum CBridge: ForeignBridge {
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

    static func fallbackParams(origin: OpaquePointer?, target: String, action: String) throws(SwitchboardError) -> OpaquePointer {
        let params = SBValue.container(SB_DICT)
        let originParams = origin.map { Handle($0).retain() } ?? Handle(retaining: SBValue.container(SB_DICT))
        let entries: [(String, Handle)] = [
            ("originParams", originParams),
            ("targetString", Handle(retaining: SBValue.string(target))),
            ("selectorString", Handle(retaining: SBValue.string(action))),
        ]
        for (key, value) in entries {
            var key = key
            guard key.withUTF8({ params.set(key: $0.baseAddress!, length: $0.count, value: value) }) else {
                value.release()
                throw .outOfMemory("out of memory building NoTargetAction params")
            }
        }
        return Handle(retaining: params).pointer
    }

    static func retain(_ native: OpaquePointer) -> OpaquePointer {
        Handle(native).retain().pointer
    }

    static func lastError() -> String { String(cString: sb_last_error()) }

    static func report(_ error: SwitchboardError) {
        setLastError(error.message)
    }
}
