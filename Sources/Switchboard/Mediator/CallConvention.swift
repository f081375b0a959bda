/// How one face hands arguments to actions and gets results back. The
/// dispatcher is generic over it, so each face's path is specialized.
protocol CallConvention {
    associatedtype Args
    associatedtype Outcome

    /// The call came from a URL: it is admitted where it lands
    /// (`Mediator.dispatchPinned`), and contracts treat it as remote.
    var fromURL: Bool { get }

    func invoke(_ action: ActionEntry, on instance: TargetInstance?, args: Args,
                target: NameRef, action: NameRef) -> Outcome
    func fail(_ error: SwitchboardError) -> Outcome
    /// Runs `body` with the params of the NoTargetAction fallback.
    func withFallbackArgs(origin: Args, target: String, action: String, _ body: (Args) -> Outcome) -> Outcome

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

/// Swift callers: `Params` in, `Value` out.
struct SwiftConvention: CallConvention {
    /// The call came from a URL (see `ActionEntry.checked`).
    var fromURL = false

    func invoke(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
        var args = args
        if entry.contract != nil {
            do throws(SwitchboardError) {
                if let fixed = try entry.checked(args, fromURL: fromURL, target: target, action: action) { args = fixed }
            } catch {
                return .failure(error)
            }
        }
        switch entry.body {
        case .swift(let body):
            do {
                return .success(try body(instance?.object, args))
            } catch {
                return .failure(.wrapping(error, in: "\(target.string).\(action.string)"))
            }
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

    func withFallbackArgs(origin: Params, target: String, action: String,
                          _ body: (Params) -> Result<Value, SwitchboardError>) -> Result<Value, SwitchboardError> {
        body(["originParams": .dict(origin), "targetString": .string(target), "selectorString": .string(action)])
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
