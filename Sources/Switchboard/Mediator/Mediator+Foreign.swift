// The entry point other faces call with their own value representation
// (for C: `const sb_value *` params, `sb_value **` out). A C caller reaching a
// C action converts nothing; only calls that cross into Swift convert.

/// What the dispatcher needs from a face to call Swift actions for it. The
/// requirements are static: a face passes its bridge type, a constant, so a
/// call initializes nothing and touches no reference count.
@_spi(Faces) public protocol ForeignBridge {
    /// The Swift value of a borrowed native value (NULL reads as `.null`).
    static func value(from native: OpaquePointer?) throws(SwitchboardError) -> Value
    /// A new native reference for `value`.
    static func native(from value: Value) throws(SwitchboardError) -> OpaquePointer
    static func release(_ native: OpaquePointer?)
    /// Takes one more reference to `native`; returns it.
    static func retain(_ native: OpaquePointer) -> OpaquePointer
    /// The calling thread's last error message (after a failed call).
    static func lastError() -> String
    /// New params for a fallback: `originParams` (the caller's params, or an
    /// empty dict), then the string fields of `call`, in order.
    static func fallbackParams(origin: OpaquePointer?, call: FallbackCall) throws(SwitchboardError) -> OpaquePointer
    /// Gives back params from `fallbackParams` after the fallback's call (a
    /// face may keep them for the next call if nobody else holds them). The
    /// default releases them.
    static func releaseFallbackParams(_ params: OpaquePointer)
    /// Makes `error` the calling thread's last error (`sb_error_message`).
    static func report(_ error: SwitchboardError)
    /// Whether `params` fit `check` as they are (each declared key present
    /// with its type, unless optional without a default), confirmed without
    /// converting anything. The default answers false.
    static func fits(_ params: OpaquePointer?, _ check: ContractCheck) -> Bool
    /// Whether `result` (NULL reads as null) is of `type` as it stands. The
    /// default converts it to a Swift value to see.
    static func resultFits(_ result: OpaquePointer?, _ type: ParamType) -> Bool
}

extension ForeignBridge {
    public static func fits(_ params: OpaquePointer?, _ check: ContractCheck) -> Bool { false }

    public static func releaseFallbackParams(_ params: OpaquePointer) { release(params) }

    public static func resultFits(_ result: OpaquePointer?, _ type: ParamType) -> Bool {
        guard let value = try? value(from: result) else { return false }
        return type.admits(value)
    }

    /// After `entry` answered with SB_OK and a result in `out` that is not of
    /// its declared `type` as it stands (`resultFits`): 0 with the result
    /// converted as `ParamType.result` converts, or the result released and
    /// `.typeMismatch` naming the action and both types.
    @inline(never)
    static func conformResult(of entry: ActionEntry, to type: ParamType, out: UnsafeMutablePointer<OpaquePointer?>,
                              target: NameRef, action: NameRef) -> Int32 {
        conformResult(to: type, out: out) { got in entry.wrongResult(type, got: got, target: target, action: action) }
    }

    /// `conformResult(of:to:out:target:action:)` with the error for a
    /// result of kind `got` made by `wrong`.
    static func conformResult(to type: ParamType, out: UnsafeMutablePointer<OpaquePointer?>,
                              wrong: (_ got: String) -> SwitchboardError) -> Int32 {
        let given = out.pointee
        out.pointee = nil
        defer { release(given) }
        do throws(SwitchboardError) {
            let value = try self.value(from: given)
            guard let fitted = type.result(value) else { throw wrong("\(value.kind)") }
            out.pointee = try native(from: fitted)
            return 0
        } catch {
            report(error)
            return error.code.rawValue
        }
    }

    /// `params` checked against the contract: nil when they fit as they are
    /// (`fits`), else a new reference with defaults filled in and values
    /// converted, through Swift values (see `Contract.check`).
    static func checked(_ params: OpaquePointer?, against check: ContractCheck, fromURL: Bool,
                               call: @autoclosure () -> String) throws(SwitchboardError) -> OpaquePointer? {
        if check.isUsable && fits(params, check) { return nil }
        let dict: Params
        switch try value(from: params) {
        case .dict(let given): dict = given
        case .null: dict = [:]
        case let other: throw .badParams("\(call()): params are \(other.kind), not a dict")
        }
        guard let fixed = try check.contract.check(dict, fromURL: fromURL, call: call()) else { return nil }
        return try native(from: .dict(fixed))
    }
}

extension Mediator {
    /// Performs a call for another face, with the NoTargetAction fallback.
    /// Returns 0 with `out` set to a new reference, or a status code with
    /// `out` set to nil and the message reported through `bridge`.
    ///
    /// `target` and `action` must be non-empty; `module` is the value of
    /// ``moduleKey`` in the params, if any.
    @_spi(Faces) public func performNative(target: UnsafePointer<CChar>, action: UnsafePointer<CChar>,
                                           module: String?, params: OpaquePointer?, cache: Bool,
                                           options: CallOptions? = nil,
                                           out: UnsafeMutablePointer<OpaquePointer?>,
                                           bridge: any ForeignBridge.Type) -> Int32 {
        performNative(target: target, action: action, module: module, params: params, cache: cache, fallback: true,
                      options: options, out: out, bridge: bridge)
    }

    /// `performNative` without the fallbacks (SB_NO_FALLBACK): a call that
    /// nothing answers fails as `call` fails, with `.noTarget` or `.noAction`.
    @_spi(Faces) public func performNativeWithoutFallback(target: UnsafePointer<CChar>, action: UnsafePointer<CChar>,
                                                          module: String?, params: OpaquePointer?, cache: Bool,
                                                          options: CallOptions? = nil,
                                                          out: UnsafeMutablePointer<OpaquePointer?>,
                                                          bridge: any ForeignBridge.Type) -> Int32 {
        performNative(target: target, action: action, module: module, params: params, cache: cache, fallback: false,
                      options: options, out: out, bridge: bridge)
    }

    /// The C face's gate: a call with hooks or options takes the intercepted
    /// path, a module key qualifies the lookup, the rest is planned and run.
    /// Names are checked by the resolver when it makes a plan (a name that
    /// is not UTF-8 names nothing, and is never repaired into another with
    /// U+FFFD), so a call whose plan is cached checks nothing again.
    @inline(__always)
    private func performNative(target: UnsafePointer<CChar>, action: UnsafePointer<CChar>, module: String?,
                               params: OpaquePointer?, cache: Bool, fallback: Bool, options: CallOptions?,
                               out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type) -> Int32 {
        let convention = ForeignConvention(bridge: bridge, out: out)
        if hasHooks || options.map({ !$0.isPlain }) == true {
            return performIntercepted(target: target, action: action, module: module, params: params, cache: cache,
                                      fallback: fallback, options: options, via: convention)
        }
        let called = NameRef(cString: target)
        guard let module else {
            return planned(called, as: called, NameRef(cString: action), args: params, cache: cache,
                           fallback: fallback, via: convention)
        }
        return performResolving(called, NameRef(cString: action), module: module, params: params, cache: cache,
                                fallback: fallback, via: convention)
    }

    // The other paths, out of line so that performNative stays small enough
    // to be inlined into the C face's exports.

    @inline(never)
    private func performIntercepted(target: UnsafePointer<CChar>, action: UnsafePointer<CChar>, module: String?,
                                    params: OpaquePointer?, cache: Bool, fallback: Bool, options: CallOptions?,
                                    via convention: ForeignConvention) -> Int32 {
        guard let target = String(validatingCString: target), let action = String(validatingCString: action) else {
            return convention.fail(Self.notUTF8)
        }
        var options = options ?? .none
        options.cacheTarget = cache
        return intercepted(.local(target: target, action: action), args: params, module: module, options: options,
                           fallback: fallback, via: convention)
    }

    /// A call whose params name a module: the lookup is `Module.target`.
    @inline(never)
    func performResolving(_ called: NameRef, _ action: NameRef, module: String, params: OpaquePointer?,
                          cache: Bool, fallback: Bool, via convention: ForeignConvention) -> Int32 {
        guard called.isUTF8 && action.isUTF8 else { return convention.fail(Self.notUTF8) }
        let qualified: String
        do throws(SwitchboardError) {
            qualified = try Self.qualified(called.string, inModule: module)
        } catch {
            return convention.fail(error)
        }
        return withNameRef(qualified) { lookup in
            planned(lookup, as: called, action, args: params, cache: cache, fallback: fallback, via: convention)
        }
    }

    private static var notUTF8: SwitchboardError { .invalidArgument("a target or action name is not valid UTF-8") }
}

/// Foreign callers: native params in, status and native `out` back.
struct ForeignConvention: CallConvention {
    let bridge: any ForeignBridge.Type
    let out: UnsafeMutablePointer<OpaquePointer?>
    /// The URL the call came from (see ``CallConvention/url``). A plain URL
    /// call keeps the caller's bytes instead, made into a string only if
    /// read (a fallback's `url`): see URL/PlainURLCall.swift.
    var url: String? {
        get { urlText ?? urlBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { urlText = newValue }
    }
    private var urlText: String?
    /// The URL of a plain URL call, borrowed for the call.
    var urlBytes: UnsafeBufferPointer<UInt8>?
    var fromURL: Bool { urlText != nil || urlBytes != nil }

    init(bridge: any ForeignBridge.Type, out: UnsafeMutablePointer<OpaquePointer?>, url: String? = nil) {
        self.bridge = bridge
        self.out = out
        self.url = url
    }

    @inline(__always)
    func invoke(_ entry: ActionEntry, on instance: TargetInstance?, args: OpaquePointer?,
                target: NameRef, action: NameRef) -> Int32 {
        guard let check = entry.contract else {
            // A foreign function in its own face's values: nothing converted.
            if let function = entry.foreign {
                return Borrowed(function).read { $0.callNative(args, state: instance?.state, out: out) }
            }
            return invokeChecked(entry, on: instance, args: args, target: target, action: action)
        }
        return invokeContracted(entry, check, on: instance, args: args, target: target, action: action)
    }

    /// `invoke` of an action with a contract: the params checked (and
    /// completed) before, the result after.
    @inline(never)
    private func invokeContracted(_ entry: ActionEntry, _ check: ContractCheck, on instance: TargetInstance?,
                                  args: OpaquePointer?, target: NameRef, action: NameRef) -> Int32 {
        let fixed: OpaquePointer?
        do throws(SwitchboardError) {
            try entry.admit(fromURL: fromURL, target: target, action: action)
            fixed = try bridge.checked(args, against: check, fromURL: fromURL,
                                       call: entry.call(target: target, action: action))
        } catch {
            return fail(error)
        }
        let status: Int32
        if let fixed {
            status = invokeChecked(entry, on: instance, args: fixed, target: target, action: action)
            bridge.release(fixed)
        } else {
            status = invokeChecked(entry, on: instance, args: args, target: target, action: action)
        }
        entry.checkLater(status, target: target, action: action)
        guard status == 0, let type = entry.declaredResult, !bridge.resultFits(out.pointee, type) else { return status }
        return bridge.conformResult(of: entry, to: type, out: out, target: target, action: action)
    }

    @inline(never)
    private func invokeChecked(_ entry: ActionEntry, on instance: TargetInstance?, args: OpaquePointer?,
                               target: NameRef, action: NameRef) -> Int32 {
        if let function = entry.foreign {
            return Borrowed(function).read { $0.callNative(args, state: instance?.state, out: out) }
        }
        switch entry.body {
        case .foreign:
            preconditionFailure("a foreign action without its borrowed view")
        case .swift(let body):
            let params: Params
            let result: Value
            do throws(SwitchboardError) {
                params = try bridge.value(from: args).dict ?? [:]
            } catch {
                return fail(error)
            }
            do {
                result = try body(instance?.object, params)
            } catch {
                // A Swift action may defer as a C one does (a main-actor action
                // whose caller does not wait: Targets/Isolation.swift).
                if let own = error as? SwitchboardError, Deferral.isPending(own) { return Deferral.pendingStatus }
                return fail(.wrapping(error, in: "\(target.string).\(action.string)"))
            }
            do throws(SwitchboardError) {
                out.pointee = try bridge.native(from: result)
            } catch {
                return fail(error)
            }
            return 0
        case .swiftAsync(let body):
            let params: Params
            do throws(SwitchboardError) {
                params = try bridge.value(from: args).dict ?? [:]
            } catch {
                return fail(error)
            }
            let result: Value
            switch Deferral.runBlocking(body, on: instance?.object, params, label: "\(target.string).\(action.string)") {
            case .success(let value): result = value
            case .failure(let error) where Deferral.isPending(error): return Deferral.pendingStatus
            case .failure(let error): return fail(error)
            }
            do throws(SwitchboardError) {
                out.pointee = try bridge.native(from: result)
            } catch {
                return fail(error)
            }
            return 0
        }
    }

    func fail(_ error: SwitchboardError) -> Int32 {
        out.pointee = nil
        bridge.report(error)
        return error.code.rawValue
    }

    var pending: Int32 {
        out.pointee = nil
        return Deferral.pendingStatus
    }

    /// The URL made a string (a plain URL call's bytes are the caller's);
    /// `out` is the caller's still, and only `resuming` writes results.
    func suspended() -> ForeignConvention { ForeignConvention(bridge: bridge, out: out, url: url) }

    func resuming(_ body: (ForeignConvention) -> Int32) -> Completion.Answer? {
        var result: OpaquePointer?
        return withUnsafeMutablePointer(to: &result) { out -> Completion.Answer? in
            let status = body(ForeignConvention(bridge: bridge, out: out, url: url))
            if status == Deferral.pendingStatus { return nil }
            if status == 0 { return .native(out.pointee, bridge) }
            return .failure(failure(of: status)!)
        }
    }

    func withFallbackArgs(origin: OpaquePointer?, call: FallbackCall, _ body: (OpaquePointer?) -> Int32) -> Int32 {
        let params: OpaquePointer
        do throws(SwitchboardError) {
            params = try bridge.fallbackParams(origin: origin, call: call)
        } catch {
            return fail(error)
        }
        defer { bridge.releaseFallbackParams(params) }
        return body(params)
    }

    func carry(_ args: OpaquePointer?) -> CallParams { CallParams(borrowing: args, bridge: bridge) }

    func args(from params: CallParams) -> Result<OpaquePointer?, SwitchboardError> {
        do throws(SwitchboardError) {
            return .success(try params.native(bridge))
        } catch {
            return .failure(error)
        }
    }

    func answer(_ value: Value) -> Int32 {
        do throws(SwitchboardError) {
            out.pointee = try bridge.native(from: value)
            return 0
        } catch {
            return fail(error)
        }
    }

    func failure(of outcome: Int32) -> SwitchboardError? {
        guard outcome != 0 else { return nil }
        let code = SwitchboardError.Code(rawValue: outcome) ?? .actionFailed
        return SwitchboardError(code: code, message: bridge.lastError())
    }

    func isPending(_ outcome: Int32) -> Bool {
        outcome == Deferral.pendingStatus && Deferral.isDetachedHere
    }

    func result(of outcome: Int32) -> CallResult? {
        outcome == 0 ? .native(out.pointee, bridge) : nil
    }
}
