/// How one face hands arguments to actions and gets results back. The
/// dispatcher is generic over it, so each face's path is specialized.
protocol CallConvention {
    associatedtype Args
    associatedtype Outcome

    /// The URL the call came from (as opened, without its signature), or
    /// nil for a local call. A URL call is admitted where it lands
    /// (`Mediator.planned`), contracts treat it as remote, and the
    /// fallbacks are told the URL (``FallbackCall``).
    var url: String? { get }
    /// `url != nil`, which a convention may know without making the URL.
    var fromURL: Bool { get }

    func invoke(_ action: ActionEntry, on instance: TargetInstance?, args: Args,
                target: NameRef, action: NameRef) -> Outcome
    func fail(_ error: SwitchboardError) -> Outcome
    /// Runs `body` with the params of a fallback (NoTargetAction, a degrade
    /// rule's target, the degrade handler): `originParams`, then the fields of `call`.
    func withFallbackArgs(origin: Args, call: FallbackCall, _ body: (Args) -> Outcome) -> Outcome

    // For intercepted calls (Interception/Mediator+Intercepted.swift):
    /// The caller's params, kept in the caller's form.
    func carry(_ args: Args) -> CallParams
    /// Params for the target, borrowed from `params`.
    func args(from params: CallParams) -> Result<Args, SwitchboardError>
    /// An interceptor's answer as this face's outcome.
    func answer(_ value: Value) -> Outcome
    /// Why the call failed, or nil if it succeeded.
    func failure(of outcome: Outcome) -> SwitchboardError?
    /// The result of a call that succeeded, for observers.
    func result(of outcome: Outcome) -> CallResult?
    /// Whether the call is pending: its action answers later and its
    /// caller does not wait (``Deferral/detaching(_:)``).
    func isPending(_ outcome: Outcome) -> Bool

    // For calls that leave their thread at an interceptor deciding later
    // and are taken up on another (Interception/Steering.swift):
    /// The outcome of a call that is pending from now on.
    var pending: Outcome { get }
    /// This convention with nothing borrowed from its caller's stack.
    func suspended() -> Self
    /// Runs `body`, the rest of such a call, with this convention writing
    /// where this stack can read, and gives the outcome as the call's
    /// answer; nil when it is pending again (its completion is then this
    /// thread's `Deferral.detachedHere`).
    func resuming(_ body: (Self) -> Outcome) -> Completion.Answer?
}

extension CallConvention {
    /// The call came from a URL (see `ActionEntry.checked`).
    @inline(__always)
    var fromURL: Bool { url != nil }

}

/// What the fallbacks learn about a call nothing answered, in CTMediator's
/// forms and in plain names. Their params are `originParams` (the caller's
/// params), then these fields in order:
///
/// - `targetString`: the class name CTMediator would have looked for,
///   `Target_<target>`, or `Module.Target_<target>` when the call named a
///   module (the module key, or a qualified name `Module.Name`);
/// - `selectorString`: CTMediator's selector, `Action_<action>:`;
/// - `target`, `action`: the names as the caller gave them;
/// - `url`: only for a call that came from a URL, the URL as opened
///   (without its signature), so a fallback can tell a remote call from a
///   local one.
///
/// Built from the call's own name bytes as a fallback reads them: nothing is
/// made until a face asks for a field (``withField(_:_:)``).
@_spi(Faces) public struct FallbackCall {
    // Borrowed: valid for the fallback's call, which is where faces read it.
    private let lookup: NameRef
    private let target: NameRef
    private let action: NameRef
    private let url: String?

    /// `lookup` is the registry key the call used (module-qualified when it
    /// named a module), `target` and `action` the names the caller gave.
    init(lookup: NameRef, target: NameRef, action: NameRef, url: String?) {
        self.lookup = lookup
        self.target = target
        self.action = action
        self.url = url
    }

    /// How many string-valued params follow `originParams`.
    public var fieldCount: Int { url == nil ? 4 : 5 }

    /// The key of field `i`, `i` in `0..<fieldCount`. (Inlinable: a face
    /// checking keys a constant `i` at a time compares with a constant.)
    @inlinable
    public static func key(_ i: Int) -> StaticString {
        switch i {
        case 0: "targetString"
        case 1: "selectorString"
        case 2: "target"
        case 3: "action"
        default: "url"
        }
    }

    /// Calls `body` with field `i`'s key and value bytes (UTF-8, borrowed
    /// for the call), `i` in `0..<fieldCount`; returns what `body` returns.
    /// (Not generic: faces call it across modules, where a generic function
    /// would not be specialized.)
    public func withField(_ i: Int, _ body: (StaticString, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        let key = Self.key(i)
        switch i {
        case 0:
            let (a, b, c) = targetStringParts
            return Self.joined(a, b, c) { body(key, $0) }
        case 1:
            return Self.joined(Self.bytes("Action_"), action.buffer, Self.bytes(":")) { body(key, $0) }
        case 2:
            return body(key, target.buffer)
        case 3:
            return body(key, action.buffer)
        default:
            precondition(i == 4 && url != nil, "FallbackCall: no field \(i)")
            var url = url!
            return url.withUTF8 { body(key, $0) }
        }
    }

    /// Which fields differ from `values` (`fieldCount` of them, one per
    /// field, in order): bit `i` set when field `i` is not `values[i]`.
    /// Compared piece by piece where the names stand, nothing joined: a
    /// face that kept the values of an earlier call reuses those that are
    /// the same. One call for all fields, as faces call it across modules.
    public func fieldsDiffering(from values: UnsafePointer<UnsafeBufferPointer<UInt8>>) -> UInt32 {
        var differing: UInt32 = 0
        if !targetStringIs(values[0]) { differing |= 1 }
        if !Self.isSelectorString(values[1], action) { differing |= 2 }
        if !Self.equals(values[2], target) { differing |= 4 }
        if !Self.equals(values[3], action) { differing |= 8 }
        if var url, !url.withUTF8({ Self.equals(values[4], $0) }) { differing |= 16 }
        return differing
    }

    /// Whether `bytes` are `targetString`: `Target_<lookup>`, or
    /// `Module.Target_<Name>` when `lookup` has a dot.
    @inline(__always)
    private func targetStringIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if !lookup.containsDot { return Self.isTargetString(bytes, lookup) }
        let (a, b, c) = targetStringParts
        return Self.equals(bytes, a, b, c)
    }

    /// `targetString` in three pieces: `Target_<Name>`, or
    /// `Module.Target_<Name>` for `Module.Name` (the last dot splits, as
    /// discovery splits a qualified name).
    private var targetStringParts: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) {
        let bytes = lookup.buffer
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return (Self.bytes("Target_"), bytes, Self.bytes("")) }
        return (UnsafeBufferPointer(rebasing: bytes[..<dot]), Self.bytes(".Target_"),
                UnsafeBufferPointer(rebasing: bytes[(dot + 1)...]))
    }

    /// Field `i` as Swift strings.
    public func field(_ i: Int) -> (key: String, value: String) {
        var field = (key: "", value: "")
        _ = withField(i) { key, value in
            field = ("\(key)", String(decoding: value, as: UTF8.self))
            return true
        }
        return field
    }

    private static func bytes(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let a = bytes.baseAddress, let b = other.baseAddress else { return true }
        return bytesEqual(a, b, count: bytes.count)
    }

    /// Whether `bytes` are `name`'s.
    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: NameRef) -> Bool {
        guard bytes.count == name.count else { return false }
        guard let start = bytes.baseAddress else { return true }
        return bytesEqual(start, name.base, count: name.count)
    }

    /// Whether `bytes` are `Target_<name>`. (One function per form, each
    /// with its literal: a shared one taking the literals was not inlined.)
    @inline(__always)
    private static func isTargetString(_ bytes: UnsafeBufferPointer<UInt8>, _ name: NameRef) -> Bool {
        let prefix: StaticString = "Target_"
        let p = prefix.utf8CodeUnitCount
        guard bytes.count == p + name.count, let start = bytes.baseAddress else { return false }
        return bytesEqual(start, prefix.utf8Start, count: p) && bytesEqual(start + p, name.base, count: name.count)
    }

    /// Whether `bytes` are `Action_<name>:`.
    @inline(__always)
    private static func isSelectorString(_ bytes: UnsafeBufferPointer<UInt8>, _ name: NameRef) -> Bool {
        let prefix: StaticString = "Action_"
        let p = prefix.utf8CodeUnitCount
        guard bytes.count == p + name.count + 1, let start = bytes.baseAddress else { return false }
        return bytesEqual(start, prefix.utf8Start, count: p) && bytesEqual(start + p, name.base, count: name.count)
            && start[p + name.count] == UInt8(ascii: ":")
    }

    /// Whether `bytes` are `a`, `b` and `c` one after the other.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ a: UnsafeBufferPointer<UInt8>,
                               _ b: UnsafeBufferPointer<UInt8>, _ c: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == a.count + b.count + c.count else { return false }
        guard let start = bytes.baseAddress else { return true }
        @inline(__always) func same(_ part: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
            guard let base = part.baseAddress else { return true }
            return bytesEqual(start + offset, base, count: part.count)
        }
        return same(a, at: 0) && same(b, at: a.count) && same(c, at: a.count + b.count)
    }

    /// `a`, `b` and `c` in one buffer (on the stack when small).
    private static func joined(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>,
                               _ c: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: a.count + b.count + c.count) { buffer in
            let start = buffer.baseAddress!
            if let base = a.baseAddress { start.initialize(from: base, count: a.count) }
            if let base = b.baseAddress { (start + a.count).initialize(from: base, count: b.count) }
            if let base = c.baseAddress { (start + a.count + b.count).initialize(from: base, count: c.count) }
            return body(UnsafeBufferPointer(buffer))
        }
    }
}

/// Swift callers: `Params` in, `Value` out.
struct SwiftConvention: CallConvention {
    /// The URL the call came from (see ``CallConvention/url``).
    var url: String? = nil

    @inline(__always)
    func invoke(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        guard entry.contract != nil else { return run(entry, on: instance, args: args, target: target, action: action) }
        return invokeChecked(entry, on: instance, args: args, target: target, action: action)
    }

    /// `invoke` of an action with a contract: the params checked (and
    /// completed) before, the result after.
    @inline(never)
    private func invokeChecked(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                               target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        var args = args
        do throws(SwitchboardError) {
            if let fixed = try entry.checked(args, fromURL: fromURL, target: target, action: action) { args = fixed }
        } catch {
            return .failure(error)
        }
        let outcome = run(entry, on: instance, args: args, target: target, action: action)
        if case .failure(let error) = outcome, Deferral.isPending(error) {
            entry.checkLater(Deferral.pendingStatus, target: target, action: action)
        }
        return entry.checkedResult(outcome, target: target, action: action)
    }

    @inline(__always)
    private func run(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                     target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        // The stored closure first: matching on `body` copies its payload
        // (a retain and a release of the closure) on every call.
        if let body = entry.swift {
            do {
                return .success(try body(instance?.object, args))
            } catch {
                return .failure(.wrapping(error, in: "\(target.string).\(action.string)"))
            }
        }
        return runOther(entry, on: instance, args: args, target: target, action: action)
    }

    @inline(never)
    private func runOther(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                          target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        switch entry.body {
        case .swift(let body):
            do {
                return .success(try body(instance?.object, args))
            } catch {
                return .failure(.wrapping(error, in: "\(target.string).\(action.string)"))
            }
        case .swiftAsync(let body):
            return Deferral.runBlocking(body, on: instance?.object, args, label: "\(target.string).\(action.string)")
        case .foreign:
            do throws(SwitchboardError) {
                let function = entry.foreign!.takeUnretainedValue()
                return .success(try function.call(.dict(args), state: instance?.state))
            } catch {
                return .failure(error)
            }
        }
    }

    func fail(_ error: SwitchboardError) -> Result<Value, SwitchboardError> { .failure(error) }

    var pending: Result<Value, SwitchboardError> { .failure(Deferral.pending) }

    func suspended() -> SwiftConvention { self }

    func resuming(_ body: (SwiftConvention) -> Result<Value, SwitchboardError>) -> Completion.Answer? {
        switch body(self) {
        case .success(let value): return .value(value)
        case .failure(let error) where Deferral.isPending(error): return nil
        case .failure(let error): return .failure(error)
        }
    }

    func withFallbackArgs(origin: Params, call: FallbackCall,
                          _ body: (Params) -> Result<Value, SwitchboardError>) -> Result<Value, SwitchboardError> {
        var params: Params = ["originParams": .dict(origin)]
        for i in 0..<call.fieldCount {
            let (key, value) = call.field(i)
            params.appendDistinct(key, .string(value))
        }
        return body(params)
    }

    func carry(_ args: Params) -> CallParams { CallParams(args) }

    func args(from params: CallParams) -> Result<Params, SwitchboardError> { .success(params.params) }

    func answer(_ value: Value) -> Result<Value, SwitchboardError> { .success(value) }

    func failure(of outcome: Result<Value, SwitchboardError>) -> SwitchboardError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }

    func isPending(_ outcome: Result<Value, SwitchboardError>) -> Bool {
        if case .failure(let error) = outcome { return Deferral.isPending(error) }
        return false
    }

    func result(of outcome: Result<Value, SwitchboardError>) -> CallResult? {
        if case .success(let value) = outcome { return .swift(value) }
        return nil
    }
}
