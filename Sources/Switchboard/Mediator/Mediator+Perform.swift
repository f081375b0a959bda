// The one call everything else is built around, for Swift callers: the
// Swift face's gate. What answers a call is decided by the resolver
// (Calls/Planner.swift) and run by the executor (Calls/Executor.swift).

extension Mediator {
    /// Performs `action` on `target` with CTMediator's semantics, on this
    /// thread, waiting there for an action that answers later: never throws.
    /// In async code, `await perform(target:action:params:options:)`.
    ///
    /// A cached target instance is reused until ``evict(target:)``;
    /// `cacheTarget: true` keeps the instance this call makes. A missing
    /// action with no `notFound` releases the cached instance (CTMediator
    /// removes the target from its cache), with or without the fallback. When nothing
    /// answers, the `NoTargetAction` fallback answers; when that is absent
    /// too, or the action fails, the result is `.null`. Use ``callAndWait(target:action:params:cacheTarget:)``
    /// to learn why a call failed.
    @discardableResult
    public func performAndWait(target: String, action: String, params: Params = [:],
                               cacheTarget: Bool = false) -> Value {
        (try? plainSwift(target, action, params, cache: cacheTarget, fallback: true).get()) ?? .null
    }

    /// Performs `action` on `target` on this thread, waiting there for an
    /// action that answers later, and reports failures instead of falling
    /// back: `.noTarget`, `.noAction`, `.actionFailed` (what the action threw),
    /// `.invalidArgument`. The target's own `notFound` still answers missing
    /// actions; the `NoTargetAction` fallback does not. In async code,
    /// `try await call(target:action:params:options:)`.
    public func callAndWait(target: String, action: String, params: Params = [:],
                            cacheTarget: Bool = false) throws(SwitchboardError) -> Value {
        try plainSwift(target, action, params, cache: cacheTarget, fallback: false).get()
    }

    /// A call without options: the gate of `dispatchSwift` without making a
    /// `CallOptions` (an array and a reference to copy and release).
    @inline(__always)
    private func plainSwift(_ target: String, _ action: String, _ params: Params, cache: Bool,
                            fallback: Bool) -> Result<Value, SwitchboardError> {
        guard !hasHooks, !Self.hasModuleKey(params) else {
            return dispatchSwiftSlow(target: target, action: action, params: params, cache: cache, fallback: fallback,
                                     options: .none, namingModule: true)
        }
        let seed = NameRef.seed
        return withNameRef(target, seed: seed) { called in
            withNameRef(action, seed: seed) { actionRef in
                planned(called, as: called, actionRef, args: params, cache: cache, fallback: fallback,
                        via: SwiftConvention())
            }
        }
    }

    /// `performAndWait` with options: tags for interceptors, skipping
    /// interceptors, cancellation, a timeout (see ``CallOptions``).
    @discardableResult
    public func performAndWait(target: String, action: String, params: Params = [:], options: CallOptions) -> Value {
        (try? dispatchSwift(target: target, action: action, params: params, cache: options.cacheTarget,
                            fallback: true, options: options).get()) ?? .null
    }

    /// `callAndWait` with options (see ``CallOptions``): also `.timeout` when
    /// an interceptor does not decide in time, `.canceled` when cancelled.
    public func callAndWait(target: String, action: String, params: Params = [:],
                            options: CallOptions) throws(SwitchboardError) -> Value {
        try dispatchSwift(target: target, action: action, params: params, cache: options.cacheTarget,
                          fallback: false, options: options).get()
    }

    /// The module the params name: the value of ``moduleKey``, else of
    /// ``ctMediatorModuleKey``, the first that is a non-empty string. Nearly
    /// no call names a module: the lengths of the keys say so at once.
    static func module(in params: Params) -> String? {
        guard hasModuleKey(params) else { return nil }
        for key in [moduleKey, ctMediatorModuleKey] {
            if let module = params[key]?.string, !module.isEmpty { return module }
        }
        return nil
    }

    /// The registry key of `target` when a call names `module`:
    /// `Module.target`. A module with a NUL byte is refused: a key that
    /// starts with one is a URL handler's internal name (`HandlerName`),
    /// which no name may spell, and C would read it cut short.
    static func qualified(_ target: String, inModule module: String) throws(SwitchboardError) -> String {
        if let problem = NameCheck.problem(with: module, kind: "module") {
            throw .invalidArgument("the params key \"\(moduleKey)\" or \"\(ctMediatorModuleKey)\": \(problem)")
        }
        return module + "." + target
    }

    /// Whether `params` may hold either module key (by key lengths alone).
    static func hasModuleKey(_ params: Params) -> Bool {
        params.hasKey(ofLength: moduleKeyLength, or: ctMediatorModuleKeyLength)
    }

    static var moduleKeyLength: Int { 18 } // "switchboard.module"; a test checks it
    static var ctMediatorModuleKeyLength: Int { 41 } // "kCTMediatorParamsKeySwiftTargetModuleName"; a test checks it

    /// The Swift face's gate: a call with hooks or options takes the
    /// intercepted path; a module key qualifies the lookup; the rest is
    /// planned and run. Names are checked by the resolver when it makes a
    /// plan (a plan is only ever made for names a caller may use).
    /// `namingModule`: whether the module key in `params` qualifies the
    /// target (not for a service's bound target, which the binding names).
    @inline(__always)
    func dispatchSwift(target: String, action: String, params: Params, cache: Bool, fallback: Bool,
                       options: CallOptions = .none, namingModule: Bool = true) -> Result<Value, SwitchboardError> {
        if hasHooks || !options.isPlain || (namingModule && Self.hasModuleKey(params)) {
            return dispatchSwiftSlow(target: target, action: action, params: params, cache: cache, fallback: fallback,
                                     options: options, namingModule: namingModule)
        }
        let seed = NameRef.seed
        return withNameRef(target, seed: seed) { called in
            withNameRef(action, seed: seed) { actionRef in
                planned(called, as: called, actionRef, args: params, cache: cache, fallback: fallback,
                        via: SwiftConvention())
            }
        }
    }

    /// `dispatchSwift` with hooks, options or a module key.
    @inline(never)
    private func dispatchSwiftSlow(target: String, action: String, params: Params, cache: Bool, fallback: Bool,
                                   options: CallOptions, namingModule: Bool) -> Result<Value, SwitchboardError> {
        withNameRef(target) { called in
            withNameRef(action) { actionRef in
                if let problem = NameCheck.problem(with: called, kind: "target")
                    ?? NameCheck.problem(with: actionRef, kind: "action") {
                    return .failure(.invalidArgument(problem))
                }
                if hasHooks || !options.isPlain {
                    var options = options
                    options.cacheTarget = cache
                    return intercepted(.local(target: target, action: action), args: params,
                                       module: namingModule ? Self.module(in: params) : nil,
                                       options: options, fallback: fallback, via: SwiftConvention())
                }
                // The explicit-module key turns "A" into "Module.A" for this call only.
                guard let module = Self.module(in: params) else {
                    return planned(called, as: called, actionRef, args: params, cache: cache, fallback: fallback,
                                   via: SwiftConvention())
                }
                let qualified: String
                do throws(SwitchboardError) {
                    qualified = try Self.qualified(target, inModule: module)
                } catch {
                    return .failure(error)
                }
                return withNameRef(qualified) { lookup in
                    planned(lookup, as: called, actionRef, args: params, cache: cache, fallback: fallback,
                            via: SwiftConvention())
                }
            }
        }
    }
}
