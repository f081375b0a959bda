// How a call finds what answers it, shared by every face and by prepared
// routes. Lookups run pinned (see EpochDomain): references are borrowed from
// the registry without reference counting. What a call goes on using after
// the lookup (the entry owning its action, its cached instance) is held for
// its call level before it unpins, so the action itself runs unpinned.
//
// Resolution order for (target, action):
//   1. an action registered under the target's name;
//   2. the action of the target's class (a Swift `Target_<Name>` type, a C
//      plugin, a Lua file), found by name on first use;
//   3. the target's `notFound` action (registered, then class), same params;
//   4. with fallback on: the `NoTargetAction` target's `response` action,
//      with the params of ``FallbackCall``: `originParams`, `targetString`
//      (`Target_X`), `selectorString` (`Action_x:`), `target`, `action`,
//      and `url` for a URL call.
//
// When the target is there but neither the action nor `notFound` is, its
// cached instance is released (CTMediator removes the target from its cache).

extension Mediator {
    /// Resolves and runs one call. `lookup` is the registry key (perhaps
    /// module-qualified); `called` is the name the caller used, which the
    /// fallback reports.
    func dispatch<C: CallConvention>(_ lookup: NameRef, as called: NameRef, _ action: NameRef,
                                     args: C.Args, cache: Bool, fallback: Bool, via convention: C) -> C.Outcome {
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        if CallDepth.exceeded(record) { return convention.fail(CallDepth.error(record, target: called, action: action)) }
        return dispatchEntered(record, lookup, as: called, action, args: args, cache: cache, fallback: fallback,
                               via: convention)
    }

    /// `dispatch` for a caller that has entered the call (`record`) and
    /// checked the depth.
    ///
    /// A call from a URL (`convention.fromURL`) is admitted again here, where
    /// it lands, whatever moved it since the URL resolved: its target and
    /// action, and those of a degrade rule or `NoTargetAction` that answer
    /// for it, must pass the URL policy and the `native*` rule, and a Swift
    /// class answers only if discovery with the mediator's `modules` would
    /// find it (see ``landing(_:_:)``).
    func dispatchEntered<C: CallConvention>(_ record: ThreadRecord, _ lookup: NameRef, as called: NameRef,
                                            _ action: NameRef, args: C.Args, cache: Bool, fallback: Bool,
                                            via convention: C) -> C.Outcome {
        if convention.fromURL, let refusal = landing(called, action) { return convention.fail(refusal) }
        pins.pin(record)
        switch resolve(lookup, action, cache: cache, forURL: convention.fromURL) {
        case .found(let resolved):
            record.hold(resolved)
            pins.unpin(record)
            return run(resolved, args: args, target: called, action: action, via: convention)
        case .failed(let error):
            pins.unpin(record)
            return convention.fail(error)
        case .missing(let missing):
            pins.unpin(record)
            guard fallback else { return convention.fail(finalError(missing, lookup, action, via: convention)) }
            return degrade(record, lookup, as: called, action, args: args, missing: missing, via: convention)
        }
    }

    /// The error of a call nothing answers, for good: its message, with the
    /// closest names (built only now: a fallback that answers needs neither).
    private func finalError<C: CallConvention>(_ missing: Missing, _ lookup: NameRef, _ action: NameRef,
                                               via convention: C) -> SwitchboardError {
        suggesting(missing.error(target: lookup, action: action), target: lookup, action: action,
                   fromSwift: C.self == SwiftConvention.self)
    }

    /// A call nothing answers: a degrade rule's target if one matches, else
    /// `NoTargetAction`, else the degrade handler, each with the fallback
    /// params (``FallbackCall``); else the `missing` error. A URL call may
    /// not land on a rule's target or `NoTargetAction` that the URL policy
    /// refuses.
    private func degrade<C: CallConvention>(_ record: ThreadRecord, _ lookup: NameRef, as called: NameRef,
                                            _ action: NameRef, args: C.Args, missing: Missing,
                                            via convention: C) -> C.Outcome {
        let call = FallbackCall(lookup: lookup, target: called, action: action, url: convention.url)
        let fromURL = convention.fromURL
        pins.pin(record)
        let hooks = self.hooks.pinned()
        if let hooks, let (target, degraded) = hooks.rules.degrade(target: called.string, action: action.string) {
            let outcome = withNameRef(target) { t in
                withNameRef(degraded) { a -> C.Outcome? in
                    // Where a URL call lands is admitted before anything there runs.
                    if fromURL, let refusal = landing(t, a) {
                        pins.unpin(record)
                        return convention.fail(refusal)
                    }
                    guard case .found(let resolved) = resolve(t, a, cache: false, forURL: fromURL) else { return nil }
                    return runFallback(resolved, record, args: args, call: call, target: t, action: a, via: convention)
                }
            }
            if let outcome { return outcome }
        }
        let noTargetAction = Names.noTargetAction.ref, response = Names.response.ref
        // A URL call is admitted to NoTargetAction before it is resolved;
        // when the lookup finds none, it is not looked for again (that
        // would ask the discoverers a second time for the same name).
        let mayAnswer = fromURL ? self.lookup(noTargetAction, response, forURL: true).hasTarget : true
        if fromURL, mayAnswer, let refusal = landing(noTargetAction, response) {
            pins.unpin(record)
            return convention.fail(refusal)
        }
        if mayAnswer, case .found(let resolved) = resolve(noTargetAction, response, cache: false, forURL: fromURL) {
            return runFallback(resolved, record, args: args, call: call, target: noTargetAction, action: response,
                               via: convention)
        }
        if let hooks, let handler = hooks.degrade {
            // It answers for the call itself, which was admitted where it
            // landed (dispatchEntered). The snapshot owns it.
            let resolved = Resolved(action: Unmanaged.passUnretained(handler), instance: nil, ownsInstance: false,
                                    owner: Unmanaged.passUnretained(hooks).toOpaque())
            return withNameRef("degrade handler") { t in
                withNameRef("") { a in
                    runFallback(resolved, record, args: args, call: call, target: t, action: a, via: convention)
                }
            }
        }
        pins.unpin(record)
        return convention.fail(finalError(missing, lookup, action, via: convention))
    }

    /// Runs a fallback found pinned: holds what it uses, unpins, and runs it
    /// with the fallback params, as `target`.`action`.
    @inline(__always)
    private func runFallback<C: CallConvention>(_ resolved: Resolved, _ record: ThreadRecord, args: C.Args,
                                                call: FallbackCall, target: NameRef, action: NameRef,
                                                via convention: C) -> C.Outcome {
        record.hold(resolved)
        pins.unpin(record)
        return convention.withFallbackArgs(origin: args, call: call) { args in
            run(resolved, args: args, target: target, action: action, via: convention)
        }
    }

    /// Runs a resolved action, then releases an instance made for this call.
    @inline(__always)
    func run<C: CallConvention>(_ resolved: Resolved, args: C.Args, target: NameRef, action: NameRef,
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

    /// What answers a call. Borrowed references, valid while pinned, and
    /// after that while held (`ThreadRecord.hold(_:)`).
    struct Resolved {
        let action: Unmanaged<ActionEntry>
        let instance: Unmanaged<TargetInstance>?
        /// The instance was made for this call only and is released after it.
        let ownsInstance: Bool
        /// What keeps `action` alive: its target entry, or the hook snapshot
        /// of the degrade handler.
        let owner: UnsafeMutableRawPointer
    }

    enum Resolution {
        case found(Resolved)
        /// Nothing answers (its error is built only if the call fails for good).
        case missing(Missing)
        /// Something failed on the way: discovery, or making the instance.
        case failed(SwitchboardError)
    }

    /// Finds what answers (`target`, `action`), `notFound` included, making
    /// or reusing the target instance it needs. `forURL`: as a URL call sees
    /// the target (``lookup(_:_:forURL:)``).
    func resolve(_ target: NameRef, _ action: NameRef, cache: Bool, forURL: Bool = false) -> Resolution {
        switch lookup(target, action, forURL: forURL) {
        case .found(let entry, let found, let onClass):
            return onClass ? instance(for: entry, action: found, cache: cache)
                           : .found(Resolved(action: found, instance: nil, ownsInstance: false, owner: entry.toOpaque()))
        case .failed(let error):
            return .failed(error)
        case .noTarget:
            return .missing(.noTarget)
        case .noAction(let entry):
            return entry._withUnsafeGuaranteedRef { e in
                if let notFound = e.registered.find(Names.notFound.ref) {
                    return .found(Resolved(action: notFound, instance: nil, ownsInstance: false, owner: entry.toOpaque()))
                }
                if !forURL || classReachableFromURL(e),
                   let notFound = e.classActions?._withUnsafeGuaranteedRef({ $0.find(Names.notFound.ref) }) {
                    return e.classNeedsInstance ? instance(for: entry, action: notFound, cache: cache)
                                                : .found(Resolved(action: notFound, instance: nil, ownsInstance: false,
                                                                  owner: entry.toOpaque()))
                }
                // CTMediator removes the target from its cache. Not for a URL
                // call that cannot see the class it would drop.
                if !forURL || classReachableFromURL(e) { evictCachedInstance(of: e) }
                return .missing(.noAction)
            }
        }
    }

    /// Why nothing answers a pair.
    enum Missing {
        case noTarget
        case noAction

        /// The `.noTarget` / `.noAction` error for (`target`, `action`).
        func error(target: NameRef, action: NameRef) -> SwitchboardError {
            switch self {
            case .noTarget: .noTarget("no target named \"\(target.string)\"")
            case .noAction: .noAction("target \"\(target.string)\" has no action \"\(action.string)\" and no notFound")
            }
        }
    }

    enum Lookup {
        /// `onClass`: the action belongs to the target's class and needs an
        /// instance (a stateless class's actions do not).
        case found(entry: Unmanaged<TargetEntry>, action: Unmanaged<ActionEntry>, onClass: Bool)
        case noTarget
        case noAction(entry: Unmanaged<TargetEntry>)
        case failed(SwitchboardError)

        /// Whether the target is there (its `notFound` may answer).
        var hasTarget: Bool {
            switch self {
            case .found, .noAction: true
            case .noTarget, .failed: false
            }
        }
    }

    /// The entry and the exact action for a pair: registered actions first,
    /// then the class's (discovering the class if it has never been looked
    /// for). No `notFound`, no fallback. `forURL`: a Swift class that
    /// discovery with the current `modules` would not find is not there
    /// (``classReachableFromURL(_:)``).
    func lookup(_ target: NameRef, _ action: NameRef, forURL: Bool = false) -> Lookup {
        var entry: Unmanaged<TargetEntry>
        if let found = targets.find(target) {
            entry = found
        } else {
            switch discoverEntry(target, absent: true) {
            case .success(let found?): entry = found
            case .success(nil): return .noTarget
            case .failure(let error): return .failed(error)
            }
        }
        if let registered = entry._withUnsafeGuaranteedRef({ $0.registered.find(action) }) {
            return .found(entry: entry, action: registered, onClass: false)
        }
        if entry._withUnsafeGuaranteedRef({ mightDiscoverClass(for: $0) }) {
            // The search runs unpinned: `entry` is read again.
            switch discoverEntry(target) {
            case .success(let found?): entry = found
            case .success(nil): return .noTarget // removed meanwhile
            case .failure(let error): return .failed(error)
            }
        }
        if forURL, !entry._withUnsafeGuaranteedRef({ classReachableFromURL($0) }) {
            return entry._withUnsafeGuaranteedRef { $0.registered.isEmpty } ? .noTarget : .noAction(entry: entry)
        }
        if let found = entry._withUnsafeGuaranteedRef({ e in e.classActions?._withUnsafeGuaranteedRef { $0.find(action) } }) {
            return .found(entry: entry, action: found,
                          onClass: entry._withUnsafeGuaranteedRef { $0.classNeedsInstance })
        }
        return .noAction(entry: entry)
    }

    /// Whether a URL call may use the class of `entry`: any class but a
    /// Swift type discovered in a module that `modules` does not list now
    /// (found by a module-qualified name, `Probe.Admin`, or before the list
    /// changed). URLs reach only what discovery with the mediator's settings
    /// reaches.
    func classReachableFromURL(_ entry: TargetEntry) -> Bool {
        guard let module = entry.targetClass?.discoveredModule else { return true }
        return modules.contains { $0.hasSameBytes(as: module) }
    }

    /// Why a URL call may not land on (`target`, `action`), or nil: the URL
    /// policy and the `native*` rule, checked where the call lands. A
    /// refusal is marked for the URL entry, which tells the observer.
    func landing(_ target: NameRef, _ action: NameRef) -> SwitchboardError? {
        guard let reason = urls.refusal(target: target, action: action) else { return nil }
        LocalRefusal.note()
        return .rejected(reason)
    }

    /// The cached instance if there is one (CTMediator reuses it even for an
    /// uncached call), else a new one, kept in the cache when asked.
    func instance(for entry: Unmanaged<TargetEntry>, action: Unmanaged<ActionEntry>, cache: Bool) -> Resolution {
        let owner = entry.toOpaque()
        return entry._withUnsafeGuaranteedRef { entry in
            let cached = entry.cache.slot.load(ordering: .acquiring)
            if cached != 0 {
                return .found(Resolved(action: action, instance: Self.instance(cached), ownsInstance: false, owner: owner))
            }
            // The constructor is user code: it runs unpinned, the entry held
            // (the call holds it anyway once this returns).
            pins.record().hold(owner: owner, instance: nil)
            let fresh: TargetInstance
            do throws(SwitchboardError) {
                // A class action is found only on an entry that has a class.
                fresh = try pins.unpinned { () throws(SwitchboardError) in try entry.targetClass!.makeInstance() }
            } catch {
                return .failed(error)
            }
            let made = Unmanaged.passRetained(fresh)
            guard cache else {
                return .found(Resolved(action: action, instance: made, ownsInstance: true, owner: owner))
            }
            let (stored, winner) = entry.cache.slot.compareExchange(
                expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
            if stored {
                return .found(Resolved(action: action, instance: made, ownsInstance: false, owner: owner))
            }
            // Another thread cached one first: use that one, drop ours (its
            // destructor is user code too).
            pins.unpinned { made.release() }
            return .found(Resolved(action: action, instance: Self.instance(winner), ownsInstance: false, owner: owner))
        }
    }

    /// Drops the cached instance of `entry`, if it has one, as
    /// ``releaseCachedTarget(_:)`` does: calls running on it keep it until
    /// they return. Returns whether there was one. Pinned.
    @discardableResult
    func evictCachedInstance(of entry: TargetEntry) -> Bool {
        let bits = entry.cache.slot.exchange(0, ordering: .acquiringAndReleasing)
        guard bits != 0 else { return false }
        epochs.retire(Self.instance(bits))
        return true
    }

    private static func instance(_ bits: UInt) -> Unmanaged<TargetInstance> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }
}

extension ThreadRecord {
    /// Holds what a resolved call uses (see `hold(owner:instance:)`). An
    /// instance made for the call alone is never retired, but is held too:
    /// an action that completes later keeps what its call holds alive
    /// (``Deferral``).
    @inline(__always)
    func hold(_ resolved: Mediator.Resolved) {
        hold(owner: resolved.owner, instance: resolved.instance?.toOpaque())
    }
}

/// Names the dispatcher looks up itself, with stable storage for their keys.
enum Names {
    static let notFound = OwnedName(ActionName.notFound)
    static let noTargetAction = OwnedName(TargetName.noTargetAction)
    static let response = OwnedName(ActionName.response)
}

