// The executor: runs a Plan (Plan.swift) for a call its gate has entered,
// the same way for every face (CallConvention.swift says how a face hands
// arguments to an action and gets its result). Lookups are over by now:
// what it reads of the registry, it reads through the plan, pinned; what
// the call goes on using after that (the object owning its action, the
// instance it runs on) is held for its call level before it unpins, so the
// action itself runs unpinned.

extension Mediator {
    /// Plans and runs one call that its gate has entered (`record`, the
    /// depth checked). `lookup` is the registry key (module-qualified when
    /// the call named a module); `called` is the name the caller used, which
    /// messages and the fallbacks report.
    ///
    /// A call from a URL (`convention.fromURL`) is admitted again here, where
    /// it lands, whatever moved it since the URL resolved: its target and
    /// action, and those of a degrade rule or `NoTargetAction` that answer
    /// for it, must pass the URL policy and the `native*` rule, and a Swift
    /// class answers only if discovery with the mediator's `modules` would
    /// find it (the plan is made as a URL call sees the registry).
    @inline(__always)
    func planned<C: CallConvention>(_ record: ThreadRecord, _ lookup: NameRef, as called: NameRef,
                                    _ action: NameRef, args: C.Args, cache: Bool, fallback: Bool,
                                    via convention: C) -> C.Outcome {
        if convention.fromURL, let refusal = landing(called, action) { return convention.fail(refusal) }
        pins.pin(record)
        let plan = plan(lookup, action, forURL: convention.fromURL, fallback: fallback)
        if let step = plan.read({ $0.step }) {
            return run(step, record, args: args, target: called, action: action, cache: cache, via: convention)
        }
        return unanswered(plan, record, lookup, as: called, action, args: args, fallback: fallback, via: convention)
    }

    /// `planned` for a call that enters itself.
    @inline(__always)
    func planned<C: CallConvention>(_ lookup: NameRef, as called: NameRef, _ action: NameRef, args: C.Args,
                                    cache: Bool, fallback: Bool, via convention: C) -> C.Outcome {
        // No `defer`: the compiler moves its body out of line, a call more.
        let record = pins.enterCall()
        if CallDepth.exceeded(record) {
            let error = CallDepth.error(record, target: called, action: action)
            pins.leaveCall(record)
            return convention.fail(error)
        }
        let outcome = planned(record, lookup, as: called, action, args: args, cache: cache, fallback: fallback,
                              via: convention)
        pins.leaveCall(record)
        return outcome
    }

    /// Runs `step` with `args` as `target`.`action`: holds what it uses (its
    /// owner; its instance, made now if it needs one and none is cached),
    /// unpins, and invokes it. Pinned on entry, unpinned on return.
    @inline(__always)
    func run<C: CallConvention>(_ step: Step, _ record: ThreadRecord, args: C.Args, target: NameRef,
                                action: NameRef, cache: Bool, via convention: C) -> C.Outcome {
        guard step.instanceOf != nil else {
            record.hold(owner: step.owner, instance: nil)
            pins.unpin(record)
            let outcome = Borrowed(step.action).read {
                convention.invoke($0, on: nil, args: args, target: target, action: action)
            }
            record.actionReturned()
            return outcome
        }
        return runOnInstance(step, record, cache: cache, via: convention) { instance in
            return Borrowed(step.action).read { convention.invoke($0, on: instance, args: args, target: target, action: action) }
        }
    }

    /// `run` for a step on an instance: `body` invokes it, held and
    /// unpinned, then an instance made for this call alone is released.
    @inline(__always)
    private func runOnInstance<C: CallConvention>(_ step: Step, _ record: ThreadRecord, cache: Bool, via convention: C,
                                                  _ body: (TargetInstance) -> C.Outcome) -> C.Outcome {
        // Mostly there is a cached one (a plain read of the entry's cell).
        let cached = Borrowed(step.instanceOf!).read { $0.cache.slot.load(ordering: .acquiring) }
        if cached != 0 {
            record.hold(owner: step.owner, instance: UnsafeMutableRawPointer(bitPattern: cached))
            pins.unpin(record)
            let outcome = Borrowed<TargetInstance>(bits: cached).read(body)
            record.actionReturned()
            return outcome
        }
        let instance: Unmanaged<TargetInstance>, owned: Bool
        switch self.instance(of: step.instanceOf!, cache: cache) {
        case .success(let made):
            (instance, owned) = made
        case .failure(let error):
            pins.unpin(record)
            return convention.fail(error)
        }
        record.hold(owner: step.owner, instance: instance.toOpaque())
        pins.unpin(record)
        let outcome = Borrowed(instance).read(body)
        record.actionReturned()
        if owned { instance.release() }
        return outcome
    }

    /// A plan whose target does not answer: a failure, or a miss (dropping
    /// the target's cached instance, then falling back if the call does).
    /// Pinned on entry, unpinned on return.
    @inline(never)
    private func unanswered<C: CallConvention>(_ plan: Borrowed<Plan>, _ record: ThreadRecord, _ lookup: NameRef,
                                               as called: NameRef, _ action: NameRef, args: C.Args, fallback: Bool,
                                               via convention: C) -> C.Outcome {
        guard let miss = plan.read({ $0.miss }) else {
            let error = plan.read { p -> SwitchboardError in
                if case .failed(let error) = p.answer { return error }
                return .noTarget("no plan for \(called.string).\(action.string)") // (every plan has an answer)
            }
            pins.unpin(record)
            return convention.fail(error)
        }
        if let entry = miss.evicts { Borrowed(entry).read { evictCachedInstance(of: $0) } }
        if fallback, let step = plan.read({ $0.noTargetAction }) {
            let call = FallbackCall(lookup: lookup, target: called, action: action, url: nil)
            return runFallback(step, record, args: args, call: call, target: Names.noTargetAction.ref,
                               action: Names.response.ref, via: convention)
        }
        guard fallback, let fallbacks = plan.read({ $0.fallbacks }) else {
            pins.unpin(record)
            return convention.fail(finalError(miss.why, lookup, action, via: convention))
        }
        return fallBack(fallbacks, record, lookup, as: called, action, args: args, missing: miss.why, via: convention)
    }

    /// A call nothing answers: a degrade rule's target if one matches and
    /// answers, else `NoTargetAction`, else the degrade handler, each with
    /// the fallback params (``FallbackCall``); else the `missing` error. A
    /// URL call may not land on a rule's target or `NoTargetAction` that the
    /// URL policy refuses. Pinned on entry, unpinned on return.
    private func fallBack<C: CallConvention>(_ fallbacks: Fallbacks, _ record: ThreadRecord, _ lookup: NameRef,
                                             as called: NameRef, _ action: NameRef, args: C.Args,
                                             missing: Missing, via convention: C) -> C.Outcome {
        let call = FallbackCall(lookup: lookup, target: called, action: action, url: convention.url)
        let fromURL = convention.fromURL
        if let rule = fallbacks.rule {
            let outcome = withNameRef(rule.target) { t in
                withNameRef(rule.action) { a -> C.Outcome? in
                    // Where a URL call lands is admitted before anything there runs.
                    if fromURL, let refusal = landing(t, a) {
                        pins.unpin(record)
                        return convention.fail(refusal)
                    }
                    return answerFallback(rule.answer, record, args: args, call: call, target: t, action: a,
                                          via: convention)
                }
            }
            if let outcome { return outcome }
        }
        let noTargetAction = Names.noTargetAction.ref, response = Names.response.ref
        if fromURL, fallbacks.noTargetAction.hasTarget, let refusal = landing(noTargetAction, response) {
            pins.unpin(record)
            return convention.fail(refusal)
        }
        if let outcome = answerFallback(fallbacks.noTargetAction, record, args: args, call: call,
                                        target: noTargetAction, action: response, via: convention) {
            return outcome
        }
        if let handler = fallbacks.handler {
            // It answers for the call itself, which was admitted where it
            // landed (`planned`).
            return withNameRef("degrade handler") { t in
                withNameRef("") { a in
                    runFallback(handler, record, args: args, call: call, target: t, action: a, via: convention)
                }
            }
        }
        pins.unpin(record)
        return convention.fail(finalError(missing, lookup, action, via: convention))
    }

    /// One fallback's answer: runs what answers it; nil when nothing does
    /// (dropping that target's cached instance, as a call of it would).
    /// Pinned; unpinned when it returns an outcome.
    private func answerFallback<C: CallConvention>(_ answer: Plan.Answer, _ record: ThreadRecord, args: C.Args,
                                                   call: FallbackCall, target: NameRef, action: NameRef,
                                                   via convention: C) -> C.Outcome? {
        switch answer {
        case .action(let step), .notFound(let step):
            return runFallback(step, record, args: args, call: call, target: target, action: action, via: convention)
        case .missing(let miss):
            if let entry = miss.evicts { Borrowed(entry).read { evictCachedInstance(of: $0) } }
            return nil
        case .failed:
            return nil
        }
    }

    /// Runs a fallback's step with the fallback params, as `target`.`action`.
    /// Its instance is never cached for the call. Pinned on entry, unpinned
    /// on return.
    private func runFallback<C: CallConvention>(_ step: Step, _ record: ThreadRecord, args: C.Args,
                                                call: FallbackCall, target: NameRef, action: NameRef,
                                                via convention: C) -> C.Outcome {
        guard step.instanceOf != nil else {
            record.hold(owner: step.owner, instance: nil)
            pins.unpin(record)
            return convention.withFallbackArgs(origin: args, call: call) { args in
                let outcome = Borrowed(step.action).read {
                    convention.invoke($0, on: nil, args: args, target: target, action: action)
                }
                record.actionReturned()
                return outcome
            }
        }
        return runOnInstance(step, record, cache: false, via: convention) { instance in
            convention.withFallbackArgs(origin: args, call: call) { args in
                Borrowed(step.action).read { convention.invoke($0, on: instance, args: args, target: target, action: action) }
            }
        }
    }

    /// The error of a call nothing answers, for good: its message, with the
    /// closest names (built only now: a fallback that answers needs neither).
    func finalError<C: CallConvention>(_ missing: Missing, _ lookup: NameRef, _ action: NameRef,
                                       via convention: C) -> SwitchboardError {
        suggesting(missing.error(target: lookup, action: action), target: lookup, action: action,
                   fromSwift: C.self == SwiftConvention.self)
    }

    /// Why a URL call may not land on (`target`, `action`), or nil: the URL
    /// policy and the `native*` rule, checked where the call lands. A
    /// refusal is marked for the URL entry, which tells the observer.
    func landing(_ target: NameRef, _ action: NameRef) -> SwitchboardError? {
        guard let reason = urls.refusal(target: target, action: action) else { return nil }
        LocalRefusal.note()
        return .rejected(reason)
    }

    /// The instance a call of `entry`'s class runs on: the cached one if
    /// there is one (CTMediator reuses it even for an uncached call), else a
    /// new one, kept in the cache when `cache` asks, else `owned` by the
    /// call (released after it). Pinned; the constructor, user code, runs
    /// unpinned with the entry held.
    func instance(of entry: Unmanaged<TargetEntry>,
                  cache: Bool) -> Result<(instance: Unmanaged<TargetInstance>, owned: Bool), SwitchboardError> {
        let owner = entry.toOpaque()
        return Borrowed(entry).read { entry in
            let cached = entry.cache.slot.load(ordering: .acquiring)
            if cached != 0 { return .success((Borrowed<TargetInstance>(bits: cached).unmanaged, false)) }
            // Held in the instance's slot: the constructor is not the action,
            // and takes no completion (`Deferral.takeID` reads the owner's).
            pins.record().hold(owner: nil, instance: owner)
            let fresh: TargetInstance
            do throws(SwitchboardError) {
                // An instance is needed only for an entry that has a class.
                fresh = try pins.unpinned { () throws(SwitchboardError) in try entry.targetClass!.makeInstance() }
            } catch {
                return .failure(error)
            }
            let made = Unmanaged.passRetained(fresh)
            guard cache else { return .success((made, true)) }
            let (stored, winner) = entry.cache.slot.compareExchange(
                expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
            if stored { return .success((made, false)) }
            // Another thread cached one first: use that one, drop ours (its
            // destructor is user code too).
            pins.unpinned { made.release() }
            return .success((Borrowed<TargetInstance>(bits: winner).unmanaged, false))
        }
    }

    /// Drops the cached instance of `entry`, if it has one, as
    /// ``evict(target:)`` does: calls running on it keep it until
    /// they return. Returns whether there was one. Pinned.
    @discardableResult
    func evictCachedInstance(of entry: TargetEntry) -> Bool {
        let bits = entry.cache.slot.exchange(0, ordering: .acquiringAndReleasing)
        guard bits != 0 else { return false }
        epochs.retire(Borrowed<TargetInstance>(bits: bits).unmanaged)
        return true
    }
}
