// The resolver: the one place that decides what answers a call, as a Plan.
//
// Resolution order for (target, action):
//   1. an action registered under the target's name;
//   2. the action of the target's class (a Swift `Target_<Name>` type, a C
//      plugin, a Lua file), found by name on first use (discovery);
//   3. the target's `notFound` action (registered, then class), same params;
//   4. for a call that falls back: a degrade rule's target, then the
//      `NoTargetAction` target's `response` action, then the degrade
//      handler, each with the params of ``FallbackCall``.
//
// When the target is there but neither the action nor `notFound` is, its
// cached instance is dropped by each such call (CTMediator removes the
// target from its cache): the plan names the entry (`Miss.evicts`).

extension Mediator {
    /// The plan for (`target`, `action`): the cached one of this generation,
    /// or one the resolver makes now. `forURL`: as a URL call sees the
    /// registry. `fallback`: the call falls back (its plan, when nothing
    /// answers, must name the fallbacks). Pinned; planning may unpin to run
    /// discovery, so references the caller borrowed before are stale after.
    @inline(__always)
    func plan(_ target: NameRef, _ action: NameRef, forURL: Bool, fallback: Bool) -> Borrowed<Plan> {
        let generation = self.generation.load(ordering: .acquiring)
        let key = PlanCache.key(target, action)
        if let plan = plans.find(target, action, key: key, forURL: forURL, generation: generation),
           !fallback || plan.read({ $0.fallbacks != nil || !$0.isMissing }) {
            return plan
        }
        return makePlan(target, action, forURL: forURL, fallback: fallback, generation: generation)
    }

    /// The resolver. Keeps a reusable plan in the cache; a plan made for
    /// one call is retired at once (it lives while this thread stays
    /// pinned). Pinned.
    @inline(never)
    func makePlan(_ target: NameRef, _ action: NameRef, forURL: Bool, fallback: Bool,
                  generation: UInt64) -> Borrowed<Plan> {
        // A name no caller may use, and bytes that are not UTF-8, name
        // nothing (and are never repaired into another name).
        if let problem = NameCheck.problem(with: target, kind: "target") ?? NameCheck.problem(with: action, kind: "action")
            ?? ((target.isUTF8 && action.isUTF8) ? nil : "a target or action name is not valid UTF-8"),
            !HandlerName.isHandler(target) || !forURL {
            return made(Plan(generation: generation, target: target, action: action, forURL: forURL,
                             answer: .failed(.invalidArgument(problem)), fallbacks: nil, reusable: false),
                        keep: false, generation: generation)
        }
        // Made while a search runs on this thread, a plan reflects that
        // search's state ("the entry is what there is until it ends").
        var reusable = !DiscoveriesInProgress.anyOnThisThread
        var answer = resolve(target, action, forURL: forURL)
        var fallbacks: Fallbacks?
        if fallback, answer.isMissing {
            fallbacks = self.fallbacks(target, action, forURL: forURL)
            // Finding the fallbacks may run discovery, unpinned: what the
            // answer, a rule's answer or the hooks named before it may
            // have been unlinked and freed meanwhile (a change makes a new
            // generation before it retires anything). Then everything is
            // read again, pinned throughout and discovering nothing (what
            // was found is registered now), for this call alone.
            if self.generation.load(ordering: .acquiring) != generation {
                answer = resolve(target, action, forURL: forURL, discovering: false)
                fallbacks = answer.isMissing ? self.fallbacks(target, action, forURL: forURL, discovering: false) : nil
                reusable = false
            }
        }
        // A provider that may answer differently next time (a discoverer)
        // is asked again by the next call: for the target, and for a
        // fallback's target as well.
        let unstable = unstableProviders.load(ordering: .acquiring) != 0
        if !answer.isSettled(unstable: unstable) || fallbacks.map({ !$0.areSettled(unstable: unstable) }) == true {
            reusable = false
        }
        return made(Plan(generation: generation, target: target, action: action, forURL: forURL, answer: answer,
                         fallbacks: fallbacks, reusable: reusable),
                    keep: reusable && reusesPlans.load(ordering: .relaxed), generation: generation)
    }

    /// Whether the cache holds a plan of the current generation for the
    /// pair (tests: a call would reuse it).
    func hasCurrentPlan(_ target: NameRef, _ action: NameRef, forURL: Bool = false) -> Bool {
        epochs.withPinned {
            plans.find(target, action, key: PlanCache.key(target, action), forURL: forURL,
                       generation: generation.load(ordering: .acquiring)) != nil
        }
    }

    private func made(_ plan: Plan, keep: Bool, generation: UInt64) -> Borrowed<Plan> {
        let made = Unmanaged.passRetained(plan)
        if keep {
            plans.keep(made, generation: generation, epochs: epochs)
        } else {
            // Nobody else sees it; it lives until this thread unpins.
            epochs.retire(made)
        }
        return Borrowed(made)
    }

    /// What answers (`target`, `action`) itself: the action, or `notFound`.
    /// Pinned.
    private func resolve(_ target: NameRef, _ action: NameRef, forURL: Bool, discovering: Bool = true) -> Plan.Answer {
        switch lookup(target, action, forURL: forURL, discovering: discovering) {
        case .found(let entry, let found, let onClass):
            return .action(Step(action: found, owner: entry.toOpaque(), instanceOf: onClass ? entry : nil))
        case .failed(let error):
            return .failed(error)
        case .noTarget:
            return .missing(Miss(why: .noTarget, evicts: nil))
        case .noAction(let entry):
            return Borrowed(entry).read { e in
                if let notFound = e.registered.find(Names.notFound.ref) {
                    return .notFound(Step(action: notFound, owner: entry.toOpaque(), instanceOf: nil))
                }
                let classVisible = !forURL || classReachableFromURL(e)
                if classVisible, let notFound = e.classActions.flatMap({ Borrowed($0).read { $0.find(Names.notFound.ref) } }) {
                    return .notFound(Step(action: notFound, owner: entry.toOpaque(),
                                          instanceOf: e.classNeedsInstance ? entry : nil))
                }
                // Not for a URL call that cannot see the class it would drop.
                return .missing(Miss(why: .noAction, evicts: classVisible ? entry : nil))
            }
        }
    }

    /// The fallbacks of a missed (`target`, `action`). Pinned (unpinned
    /// while a discovery runs, unless not `discovering`).
    private func fallbacks(_ target: NameRef, _ action: NameRef, forURL: Bool, discovering: Bool = true) -> Fallbacks {
        let hooks = self.hooks.pinned()
        var rule: (target: String, action: String, answer: Plan.Answer)?
        if let hooks, let (t, a) = hooks.rules.degrade(target: target.string, action: action.string) {
            rule = (t, a, withNameRef(t) { t in
                withNameRef(a) { a in resolve(t, a, forURL: forURL, discovering: discovering) }
            })
        }
        let handler = hooks?.degrade.map { entry in
            Step(action: Unmanaged.passUnretained(entry), owner: Unmanaged.passUnretained(hooks!).toOpaque(),
                 instanceOf: nil)
        }
        return Fallbacks(rule: rule, noTargetAction: resolve(Names.noTargetAction.ref, Names.response.ref,
                                                             forURL: forURL, discovering: discovering),
                         handler: handler)
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
    }

    /// The entry and the exact action for a pair: registered actions first,
    /// then the class's (discovering the class if it has never been looked
    /// for). No `notFound`, no fallback. `forURL`: a Swift class that
    /// discovery with the current `modules` would not find is not there
    /// (``classReachableFromURL(_:)``). `discovering` false: the registry
    /// as it is, nothing searched (so never unpinned). Pinned.
    func lookup(_ target: NameRef, _ action: NameRef, forURL: Bool = false, discovering: Bool = true) -> Lookup {
        var entry: Unmanaged<TargetEntry>
        if let found = targets.find(target) {
            entry = found
        } else {
            guard discovering else { return .noTarget }
            switch discoverEntry(target, absent: true) {
            case .success(let found?): entry = found
            case .success(nil): return .noTarget
            case .failure(let error): return .failed(error)
            }
        }
        if let registered = Borrowed(entry).read({ $0.registered.find(action) }) {
            return .found(entry: entry, action: registered, onClass: false)
        }
        if discovering, Borrowed(entry).read({ mightDiscoverClass(for: $0) }) {
            // The search runs unpinned: `entry` is read again.
            switch discoverEntry(target) {
            case .success(let found?): entry = found
            case .success(nil): return .noTarget // removed meanwhile
            case .failure(let error): return .failed(error)
            }
        }
        return Borrowed(entry).read { e in
            if forURL, !classReachableFromURL(e) { return e.registered.isEmpty ? .noTarget : .noAction(entry: entry) }
            if let found = e.classActions.flatMap({ Borrowed($0).read { $0.find(action) } }) {
                return .found(entry: entry, action: found, onClass: e.classNeedsInstance)
            }
            return .noAction(entry: entry)
        }
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
}

extension Plan {
    /// Nothing on the target answers.
    var isMissing: Bool { answer.isMissing }
}

extension Plan.Answer {
    /// Whether a later resolution in the same generation answers the same:
    /// not when looking failed (a provider's error is not remembered), nor
    /// when no target was found and a provider may find it next time
    /// (`unstable`: a discoverer is there).
    func isSettled(unstable: Bool) -> Bool {
        switch self {
        case .action, .notFound: true
        case .missing(let miss): miss.why == .noAction || !unstable
        case .failed: false
        }
    }

    /// Nothing on the target answers.
    var isMissing: Bool {
        if case .missing = self { return true }
        return false
    }

    /// The step that answers, when something does.
    var step: Step? {
        switch self {
        case .action(let step), .notFound(let step): step
        case .missing, .failed: nil
        }
    }

    /// The target is there (something answers, or its instance is what a
    /// miss drops): for a URL call, whether the policy must admit it.
    var hasTarget: Bool {
        switch self {
        case .action, .notFound: true
        case .missing(let miss): miss.why == .noAction
        case .failed: false
        }
    }
}

extension Fallbacks {
    /// Whether each fallback's answer is settled (`Plan.Answer.isSettled`).
    func areSettled(unstable: Bool) -> Bool {
        (rule?.answer.isSettled(unstable: unstable) ?? true) && noTargetAction.isSettled(unstable: unstable)
    }
}

/// Names the resolver looks up itself, with stable storage for their keys.
enum Names {
    static let notFound = OwnedName(ActionName.notFound)
    static let noTargetAction = OwnedName(TargetName.noTargetAction)
    static let response = OwnedName(ActionName.response)
}
