import Testing
import CSwitchboard
import CInteropHelpers
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A Swift target class a C caller reaches by name.
final class Target_SwiftCounter: Target {
    static let made = Counter()
    let serial = Target_SwiftCounter.made.increment()
    static let actions: Actions<Target_SwiftCounter> = [
        "serial": { t, _ in .int(Int64(t.serial)) },
    ]
}

final class Counter: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var count = 0
    func increment() -> Int { lock.withLock { count += 1; return count } }
}

/// A fresh Swift mediator and its C handle.
struct Pair {
    let mediator: Mediator
    let handle: OpaquePointer
    let owner: CMediator

    init(modules: [String] = []) {
        mediator = Mediator(modules: modules)
        owner = CMediator(mediator)
        handle = OpaquePointer(Unmanaged.passUnretained(owner).toOpaque())
    }
}

/// The int inside a C value, for checks.
func intOf(_ v: OpaquePointer?) -> Int64? {
    var i: Int64 = 0
    return sb_value_get_int(v, &i) == SB_OK ? i : nil
}

@Suite("C and Swift in one process")
struct InteropTests {
    @Test("a C callback in params is called by a Swift target")
    func cCallbackFromSwiftTarget() throws {
        let pair = Pair()
        try pair.mediator.register(target: "SwiftT", action: "useCallback") { params in
            let n = params["arg"]?.int ?? 0
            return try params["cb"]!.callback!(.int(n * 10))
        }
        var result: Int64 = 0
        #expect(helper_perform_with_c_callback(pair.handle, "SwiftT", "useCallback", 4, &result) == SB_OK)
        #expect(result == 41)
    }

    @Test("a Swift callback is called from a C action, and from C directly")
    func swiftCallbackFromC() throws {
        let pair = Pair()
        #expect(sb_action_register(pair.handle, "CT", "callIt", helper_call_param_callback, nil, nil) == SB_OK)
        let callback = Callback { args in .int((args.int ?? 0) + 100) }
        #expect(try pair.mediator.callAndWait(target: "CT", action: "callIt",
                                       params: ["cb": .callback(callback), "arg": 5]) == 105)

        // The same callback as a C value, called with sb_callback_call.
        let value = Handle(retaining: SBValue.object(callback, as: SB_CALLBACK)).pointer
        defer { sb_value_release(value) }
        let args = CSwitchboard.sb_int(7)
        defer { sb_value_release(args) }
        var out: OpaquePointer?
        #expect(sb_callback_call(value, args, &out) == SB_OK)
        #expect(intOf(out) == 107)
        sb_value_release(out)
    }

    @Test("a C caller's URL to a local action is refused and reaches the Swift URL observer")
    func localRefusalFromC() throws {
        let pair = Pair()
        try pair.mediator.register(target: "A", action: "inside", contract: "local") { _ in "ran" }
        let seen = Counter()
        pair.mediator.onRejectedURL = { refusal in
            if refusal.reason == "A.inside is local: URLs cannot reach it" { _ = seen.increment() }
        }
        var out: OpaquePointer?
        #expect(sb_url_open(pair.handle, "app://A/inside?x=1", nil, &out) == SB_EREJECTED)
        #expect(out == nil)
        #expect(String(cString: sb_error_message()) == "A.inside is local: URLs cannot reach it")
        #expect(seen.increment() == 2) // one refusal seen, then this count
    }

    @Test("a C callback called from Swift converts its arguments and result")
    func cCallbackFromSwift() throws {
        let made = sb_callback_new(helper_add_one, nil, nil)
        let handle = try #require(made)
        defer { sb_value_release(handle) }
        let callback = try #require(Handle(handle).box?.takeUnretainedValue().callback)
        #expect(try callback(41) == 42)
        #expect {
            try callback("not an int")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .typeMismatch && error.message.contains("args must be an int")
        }
    }

    @Test("failures cross both ways with their status and message")
    func errorsAcross() throws {
        let pair = Pair()
        #expect(sb_action_register(pair.handle, "CT", "reject", helper_reject, nil, nil) == SB_OK)
        #expect {
            try pair.mediator.callAndWait(target: "CT", action: "reject")
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .rejected else { return false }
            return error.message == "helper_reject: policy says no"
        }

        struct Oops: Error {}
        try pair.mediator.register(target: "SwiftT", action: "fail") { _ in throw Oops() }
        try pair.mediator.register(target: "SwiftT", action: "deny") { _ in throw SwitchboardError.rejected("swift says no") }
        var out: OpaquePointer?
        #expect(helper_perform(pair.handle, "SwiftT", "fail", 0, &out) == SB_EACTION)
        #expect(out == nil)
        #expect(String(cString: sb_error_message()).contains("SwiftT.fail"))
        #expect(helper_perform(pair.handle, "SwiftT", "deny", 0, &out) == SB_EREJECTED)
        #expect(String(cString: sb_error_message()) == "swift says no")
    }

    @Test("values keep their kinds and identities from Swift to C and back")
    func valuesRoundTrip() throws {
        let callback = Callback { $0 }
        let pointer = Pointer(UnsafeMutableRawPointer(bitPattern: 0x1234))
        let original: Value = [
            "int": 3, "double": 3.0, "string": "héllo\u{0}x", "bytes": .bytes([0, 255]),
            "nested": ["list": [1, [2.5, .null]], "flag": false],
            "callback": .callback(callback), "pointer": .pointer(pointer),
        ]
        let native = try Handle.from(original)
        defer { native.release() }
        let back = try native.toValue()
        #expect(back == original)
        #expect(back["callback"]?.callback === callback)
        #expect(back["pointer"]?.pointer === pointer)
        // C sees an int and a double as different kinds.
        let handle = native.pointer
        #expect(sb_value_type(sb_dict_get(handle, "int")) == SB_INT)
        #expect(sb_value_type(sb_dict_get(handle, "double")) == SB_DOUBLE)
        var length = 0
        #expect(sb_value_get_string(sb_dict_get(handle, "string"), &length) != nil)
        #expect(length == 8)
    }

    @Test("a Swift dict key holding a NUL byte cannot become a C key; the other keys keep their bytes and order")
    func nulInKeys() throws {
        for key in ["a\u{0}b", "\u{0}", "ab\u{0}"] {
            #expect {
                let value: Value = ["n": 1, key: 2]
                try Handle.from(value).release()
            } throws: { error in
                guard let error = error as? SwitchboardError, error.code == .invalidArgument else { return false }
                return error.message.contains("contains a NUL byte")
            }
        }
        let original: Value = ["": 0, "zé": 1, "a": 2, String(repeating: "k", count: 40): 3]
        let native = try Handle.from(original)
        defer { native.release() }
        #expect(try native.toValue() == original)
        var keys: [String] = []
        for i in 0..<sb_value_count(native.pointer) {
            var key: UnsafePointer<CChar>?
            var item: OpaquePointer?
            #expect(sb_dict_at(native.pointer, i, &key, &item) == SB_OK)
            keys.append(String(cString: try #require(key)))
        }
        #expect(keys == ["", "zé", "a", String(repeating: "k", count: 40)])
    }

    @Test("a C caller reaches a Swift target class, cached across calls")
    func swiftClassFromC() throws {
        let pair = Pair(modules: ["SwitchboardCTests"])
        var first: OpaquePointer?, second: OpaquePointer?, third: OpaquePointer?
        #expect(helper_perform(pair.handle, "SwiftCounter", "serial", SB_CACHE_TARGET, &first) == SB_OK)
        #expect(helper_perform(pair.handle, "SwiftCounter", "serial", SB_CACHE_TARGET, &second) == SB_OK)
        #expect(intOf(first) != nil && intOf(first) == intOf(second))
        #expect(sb_target_evict(pair.handle, "SwiftCounter") == SB_OK)
        #expect(helper_perform(pair.handle, "SwiftCounter", "serial", 0, &third) == SB_OK)
        #expect(intOf(third) != intOf(first))
        [first, second, third].forEach { sb_value_release($0) }
    }

    @Test("a Swift NoTargetAction answers a C caller with the same params as a Swift caller")
    func swiftFallbackForC() throws {
        let pair = Pair()
        try pair.mediator.register(target: "NoTargetAction", action: "response") { .dict($0) }
        var out: OpaquePointer?
        #expect(helper_perform(pair.handle, "Ghost", "boo", 0, &out) == SB_OK)
        let result = try Handle(try #require(out)).toValue()
        #expect(result == ["originParams": [:], "targetString": "Target_Ghost", "selectorString": "Action_boo:",
                           "target": "Ghost", "action": "boo"])
        sb_value_release(out)
    }

    @Test("small ints, booleans and null are immediates; big ints and everything else are boxes")
    func immediates() throws {
        for i: Int64 in [0, 1, -1, 42, Handle.immediateInts.lowerBound, Handle.immediateInts.upperBound] {
            let h = Handle.int(i)
            #expect(h.isImmediate)
            #expect(h.int == i)
            #expect(h.type == SB_INT)
            #expect(try h.toValue() == .int(i))
        }
        for i: Int64 in [.max, .min, Handle.immediateInts.upperBound + 1, Handle.immediateInts.lowerBound - 1] {
            let h = Handle.int(i)
            defer { h.release() }
            #expect(!h.isImmediate)
            #expect(h.int == i)
            #expect(h.type == SB_INT)
            #expect(!h.equals(.int(0)))
        }
        #expect(Handle.null.type == SB_NULL && Handle.null.isImmediate)
        #expect(Handle.bool(true).bool == true && Handle.bool(false).bool == false)
        #expect(Handle.bool(true).int == nil && Handle.int(1).bool == nil)
        // The module key's length is a literal in ModuleKey; it must match.
        #expect(ModuleKey.count == Mediator.moduleKey.utf8.count)
        #expect(ModuleKey.Alias.count == Mediator.ctMediatorModuleKey.utf8.count)
    }

    @Test("a Swift value nested deeper than SB_MAX_DEPTH is refused, not overflowed")
    func depthLimit() {
        var deep: Value = .null
        for _ in 0..<Int(SB_MAX_DEPTH) + 5 { deep = .array([deep]) }
        #expect { try Handle.from(deep) } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
    }

    @Test("a C value converted from Swift knows how deep each container sits")
    func convertedDepth() throws {
        /// Appends a new empty array to `array`.
        func appendArray(_ array: OpaquePointer?) -> sb_status {
            SwitchboardC.sb_array_append_new(array, SwitchboardC.sb_array_new())
        }
        // SB_MAX_DEPTH arrays, the innermost holding a scalar: converted
        // whole, the innermost array takes no container (it would be level
        // 201), even though nothing was ever inserted through sb_array_append.
        var deep: Value = .array([.int(1)])
        for _ in 1..<Int(SB_MAX_DEPTH) { deep = .array([deep]) }
        let root = try Handle.from(deep).pointer
        var innermost: OpaquePointer = root
        while let next = SwitchboardC.sb_array_get(innermost, 0), SwitchboardC.sb_value_type(next) == SB_ARRAY {
            innermost = next
        }
        let refused = appendArray(innermost)
        #expect(refused == SB_EINVAL)
        #expect(String(cString: sb_error_message()).contains("already 200 levels deep"))
        // The level above it may take one (an empty array at level 200).
        var second: OpaquePointer = root
        for _ in 0..<(Int(SB_MAX_DEPTH) - 2) { second = SwitchboardC.sb_array_get(second, 0)! }
        let added = appendArray(second)
        #expect(added == SB_OK)
        let refusedBelow = appendArray(SwitchboardC.sb_array_get(second, 1))
        #expect(refusedBelow == SB_EINVAL)
        // Once its outermost array is gone, the rest may grow by one level.
        let inner = SwitchboardC.sb_value_retain(SwitchboardC.sb_array_get(root, 0))
        SwitchboardC.sb_value_release(root)
        let grown = appendArray(innermost)
        #expect(grown == SB_OK)
        SwitchboardC.sb_value_release(inner)
    }
}
