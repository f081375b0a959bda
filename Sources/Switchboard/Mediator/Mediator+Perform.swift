// The one call everything else is built around, for Swift callers. How a
// call resolves is in Mediator+Dispatch.swift.

extension Mediator {
    /// Performs `action` on `target` with CTMediator's semantics: never throws.
    ///
    /// A cached target instance is reused until ``releaseCachedTarget(_:)``;
    /// `cacheTarget: true` keeps the instance this call makes. When nothing
    /// answers, the `NoTargetAction` fallback answers; when that is absent
    /// too, or the action fails, the result is `.null`. Use ``call(target:action:params:cacheTarget:)``
    /// to learn why a call failed.
    @discardableResult
    public func perform(target: String, action: String, params: Params = [:],
                        cacheTarget: Bool = false) -> Value {
        (try? dispatchSwift(target: target, action: action, params: params,
                            cache: cacheTarget, fallback: true).get()) ?? .null
    }

    /// Performs `action` on `target` and reports failures instead of falling
    /// back: `.noTarget`, `.noAction`, `.actionFailed` (what the action threw),
    /// `.invalidArgument`. The target's own `notFound` still answers missing
    /// actions; the `NoTargetAction` fallback does not.
    public func call(target: String, action: String, params: Params = [:],
                     cacheTarget: Bool = false) throws(SwitchboardError) -> Value {
        try dispatchSwift(target: target, action: action, params: params,
                          cache: cacheTarget, fallback: false).get()
    }

    private func dispatchSwift(target: String, action: String, params: Params,
                               cache: Bool, fallback: Bool) -> Result<Value, SwitchboardError> {
        if let problem = NameCheck.problem(with: target, kind: "target")
            ?? NameCheck.problem(with: action, kind: "action") {
            return .failure(.invalidArgument(problem))
        }
        // The explicit-module key turns "A" into "Module.A" for this call only.
        var lookupName = target
        if !params.isEmpty, let module = params[Self.moduleKey]?.string {
            lookupName = module + "." + target
        }
        return withNameRef(lookupName) { lookup in
            withNameRef(target) { called in
                withNameRef(action) { action in
                    dispatch(lookup, as: called, action, args: params, cache: cache,
                             fallback: fallback, via: SwiftConvention())
                }
            }
        }
    }
}
