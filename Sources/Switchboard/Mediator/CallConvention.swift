/// How one face hands arguments to actions and gets results back. The
/// dispatcher is generic over it, so each face's path is specialized.
protocol CallConvention {
    associatedtype Args
    associatedtype Outcome

    func invoke(_ action: ActionEntry, on instance: TargetInstance?, args: Args,
                target: NameRef, action: NameRef) -> Outcome
    func fail(_ error: SwitchboardError) -> Outcome
    /// Runs `body` with the params of the NoTargetAction fallback.
    func withFallbackArgs(origin: Args, target: String, action: String, _ body: (Args) -> Outcome) -> Outcome
}

/// Swift callers: `Params` in, `Value` out.
struct SwiftConvention: CallConvention {
    func invoke(_ entry: ActionEntry, on instance: TargetInstance?, args: Params,
                target: NameRef, action: NameRef) -> Result<Value, SwitchboardError> {
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
}
