// The one call everything else is built around, and how it resolves.
//
// Resolution order for (target, action):
//   1. an action registered under the target's name;
//   2. the action of the target's class (a Swift `Target_<Name>` type, a C
//      plugin, a Lua file), found by name on first use;
//   3. the target's `notFound` action (registered, then class), same params;
//   4. with fallback on: the `NoTargetAction` target's `response` action,
//      with params `originParams`, `targetString`, `selectorString`.

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

    // MARK: Dispatch, shared by every face

    /// Resolves and runs one call. `lookup` is the registry key (perhaps
    /// module-qualified); `called` is the name the caller used, which the
    /// fallback reports.
    func dispatch<C: CallConvention>(_ lookup: NameRef, as called: NameRef, _ action: NameRef,
                                     args: C.Args, cache: Bool, fallback: Bool, via convention: C) -> C.Outcome {
        let record = epochs.pin()
        defer { epochs.unpin(record) }
        switch resolve(lookup, action, cache: cache) {
        case .found(let resolved):
            return run(resolved, args: args, target: called, action: action, via: convention)
        case .failed(let error):
            return convention.fail(error)
        case .missing(let error):
            guard fallback, case .found(let resolved) = resolve(Names.noTargetAction.ref, Names.response.ref, cache: false) else {
                return convention.fail(error)
            }
            return convention.withFallbackArgs(origin: args, target: called.string, action: action.string) { args in
                run(resolved, args: args, target: Names.noTargetAction.ref, action: Names.response.ref, via: convention)
            }
        }
    }

    @inline(__always)
    private func run<C: CallConvention>(_ resolved: Resolved, args: C.Args, target: NameRef, action: NameRef,
                                        via convention: C) -> C.Outcome {
        defer { if resolved.ownsInstance { resolved.instance?.release() } }
        return resolved.action._withUnsafeGuaranteedRef { entry in
            if let instance = resolved.instance {
                return instance._withUnsafeGuaranteedRef {
                    convention.invoke(entry, on: $0, args: args, target: target, action: action)
                }
            }
            return convention.invoke(entry, on: nil, args: args, target: target, action: action)
        }
    }

    /// What answers a call. Borrowed references, valid while pinned.
    struct Resolved {
        let action: Unmanaged<ActionEntry>
        let instance: Unmanaged<TargetInstance>?
        /// The instance was made for this call only and is released after it.
        let ownsInstance: Bool
    }

    enum Resolution {
        case found(Resolved)
        /// Nothing answers: `.noTarget` or `.noAction`.
        case missing(SwitchboardError)
        /// Something answers but its instance could not be made.
        case failed(SwitchboardError)
    }

    /// Finds the action for (`target`, `action`), making or reusing the
    /// target instance it needs. The caller is pinned.
    func resolve(_ target: NameRef, _ action: NameRef, cache: Bool) -> Resolution {
        guard var entry = targets.find(target) ?? discoverEntry(target) else {
            return .missing(.noTarget("no target named \"\(target.string)\""))
        }
        if let registered = entry._withUnsafeGuaranteedRef({ $0.registered.find(action) }) {
            return .found(Resolved(action: registered, instance: nil, ownsInstance: false))
        }
        if entry._withUnsafeGuaranteedRef({ mightDiscoverClass(for: $0) }) {
            entry = discoverEntry(target) ?? entry
        }
        return entry._withUnsafeGuaranteedRef { entry in
            if let targetClass = entry.targetClass, let found = targetClass.actions.find(action) {
                return instance(of: entry, targetClass, action: found, cache: cache)
            }
            if let notFound = entry.registered.find(Names.notFound.ref) {
                return .found(Resolved(action: notFound, instance: nil, ownsInstance: false))
            }
            if let targetClass = entry.targetClass, let notFound = targetClass.actions.find(Names.notFound.ref) {
                return instance(of: entry, targetClass, action: notFound, cache: cache)
            }
            return .missing(.noAction("target \"\(target.string)\" has no action \"\(action.string)\" and no notFound"))
        }
    }

    /// The cached instance if there is one (CTMediator reuses it even for an
    /// uncached call), else a new one, kept in the cache when asked.
    private func instance(of entry: TargetEntry, _ targetClass: TargetClass, action: Unmanaged<ActionEntry>,
                          cache: Bool) -> Resolution {
        let cached = entry.cache.slot.load(ordering: .acquiring)
        if cached != 0 {
            return .found(Resolved(action: action, instance: Self.instance(cached), ownsInstance: false))
        }
        let fresh: TargetInstance
        do {
            fresh = try targetClass.makeInstance()
        } catch {
            return .failed(error)
        }
        let made = Unmanaged.passRetained(fresh)
        guard cache else {
            return .found(Resolved(action: action, instance: made, ownsInstance: true))
        }
        let (stored, winner) = entry.cache.slot.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if stored {
            return .found(Resolved(action: action, instance: made, ownsInstance: false))
        }
        // Another thread cached one first: use that one, drop ours.
        made.release()
        return .found(Resolved(action: action, instance: Self.instance(winner), ownsInstance: false))
    }

    private static func instance(_ bits: UInt) -> Unmanaged<TargetInstance> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }
}

/// Names the dispatcher looks up itself, with stable storage for their keys.
enum Names {
    static let notFound = OwnedName(ActionName.notFound)
    static let noTargetAction = OwnedName(TargetName.noTargetAction)
    static let response = OwnedName(ActionName.response)
}

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
        case .foreign(let function):
            do throws(SwitchboardError) {
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
