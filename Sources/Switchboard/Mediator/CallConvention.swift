/// How one face hands arguments to actions and gets results back. The
/// dispatcher is generic over it, so each face's path is specialized.
protocol CallConvention {
    associatedtype Args
    associatedtype Outcome

    /// The URL the call came from (as opened, without its signature), or
    /// nil for a local call. A URL call is admitted where it lands
    /// (`Mediator.dispatchPinned`), contracts treat it as remote, and the
    /// fallbacks are told the URL (``FallbackCall``).
    var url: String? { get }

    func invoke(_ action: ActionEntry, on instance: TargetInstance?, args: Args,
                target: NameRef, action: NameRef) -> Outcome
    func fail(_ error: SwitchboardError) -> Outcome
    /// Runs `body` with the params of a fallback (NoTargetAction, a degrade
    /// rule's target, the degrade handler): `originParams`, then `call.fields`.
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
}

extension CallConvention {
    /// The call came from a URL (see `ActionEntry.checked`).
    @inline(__always)
    var fromURL: Bool { url != nil }
}

/// What the fallbacks learn about a call nothing answered, in CTMediator's
/// forms and in plain names. Their params are `originParams` (the caller's
/// params), then ``fields`` in order:
///
/// - `targetString`: the class name CTMediator would have looked for,
///   `Target_<target>`, or `Module.Target_<target>` when the call named a
///   module (the module key, or a qualified name `Module.Name`);
/// - `selectorString`: CTMediator's selector, `Action_<action>:`;
/// - `target`, `action`: the names as the caller gave them;
/// - `url`: only for a call that came from a URL, the URL as opened
///   (without its signature), so a fallback can tell a remote call from a
///   local one.
@_spi(Faces) public struct FallbackCall: Sendable {
    /// The string-valued params after `originParams`, in order.
    public let fields: [(key: String, value: String)]

    /// `lookup` is the registry key the call used (module-qualified when it
    /// named a module), `target` and `action` the names the caller gave.
    init(lookup: String, target: String, action: String, url: String?) {
        var fields: [(key: String, value: String)] = [
            ("targetString", Self.className(lookup)), ("selectorString", "Action_" + action + ":"),
            ("target", target), ("action", action),
        ]
        if let url { fields.append(("url", url)) }
        self.fields = fields
    }

    /// `Target_<Name>`, or `Module.Target_<Name>` for `Module.Name` (the
    /// last dot splits, as discovery splits a qualified name).
    static func className(_ lookup: String) -> String {
        guard let dot = lookup.utf8.lastIndex(of: UInt8(ascii: ".")) else { return "Target_" + lookup }
        return String(lookup[..<dot]) + ".Target_" + String(lookup[lookup.index(after: dot)...])
    }
}

/// Swift callers: `Params` in, `Value` out.
struct SwiftConvention: CallConvention {
    /// The URL the call came from (see ``CallConvention/url``).
    var url: String? = nil

    func invoke(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        guard entry.contract != nil else { return run(entry, on: instance, args: args, target: target, action: action) }
        var args = args
        do throws(SwitchboardError) {
            if let fixed = try entry.checked(args, fromURL: fromURL, target: target, action: action) { args = fixed }
        } catch {
            return .failure(error)
        }
        return entry.checkedResult(run(entry, on: instance, args: args, target: target, action: action),
                                   target: target, action: action)
    }

    @inline(__always)
    private func run(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
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

    func withFallbackArgs(origin: Params, call: FallbackCall,
                          _ body: (Params) -> Result<Value, SwitchboardError>) -> Result<Value, SwitchboardError> {
        var params: Params = ["originParams": .dict(origin)]
        for (key, value) in call.fields { params.appendDistinct(key, .string(value)) }
        return body(params)
    }

    func carry(_ args: Params) -> CallParams { CallParams(args) }

    func args(from params: CallParams) -> Result<Params, SwitchboardError> { .success(params.params) }

    func answer(_ value: Value) -> Result<Value, SwitchboardError> { .success(value) }

    func failure(of outcome: Result<Value, SwitchboardError>) -> SwitchboardError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }

    func result(of outcome: Result<Value, SwitchboardError>) -> CallResult? {
        if case .success(let value) = outcome { return .swift(value) }
        return nil
    }
}
