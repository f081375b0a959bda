// A call is gate -> plan -> execute (docs/internals.md). This file is the
// middle word: what the resolver (Planner.swift) decided answers a pair of
// names, kept by the plan cache (PlanCache.swift) for the generation it was
// made in, and run by the executor (Executor.swift) for every face.

/// What answers calls of one (target, action) pair, as the resolver decided
/// it in one generation of the mediator: run this action (on an instance of
/// this target's class, or on none), or the target's `notFound`, or nothing
/// answers — then why, and which fallback answers a call that falls back —,
/// or looking failed. Immutable.
///
/// Its references are borrowed. Every change a plan depends on (the
/// registry, discovery's settings, the hooks) makes a new generation before
/// it retires what it unlinked, so what a reader finds in a plan of the
/// current generation lives while it stays pinned, and after that while its
/// call holds it (`ThreadRecord.hold`).
///
/// Per call, the executor still checks what a plan cannot fix: the
/// action's contract and declared result, a URL call's admission where it
/// lands, the depth limit; and it makes or reuses the target instance.
final class Plan: @unchecked Sendable {
    // @unchecked: immutable after init; the names own their bytes.

    /// The mediator's `generation` when the resolver began: the plan answers
    /// only while that is still the current one.
    let generation: UInt64
    /// The pair as looked up (the target module-qualified when the call
    /// named a module).
    let target: OwnedName
    let action: OwnedName
    /// `PlanCache.key` of the pair.
    let key: UInt64
    /// Made as a URL call sees the registry (`Mediator.lookup(_:_:forURL:)`).
    let forURL: Bool
    /// What the resolver decided, and its parts as the executor reads them
    /// (plain fields: reading an enum with a payload that is not trivial
    /// would copy it through a witness on every call).
    let answer: Answer
    let step: Step?
    /// `step` is the action itself, not the target's `notFound`.
    let exact: Bool
    let miss: Miss?
    /// For `.missing`: what answers a call that falls back; nil when the
    /// plan was made for a call that does not (finding the fallbacks may run
    /// discovery, which such a call must not cause).
    let fallbacks: Fallbacks?
    /// The usual case of `fallbacks`, read without copying them: no degrade
    /// rule, not a URL call (no admission to check on the way), and
    /// `NoTargetAction` answers (its `response`, or its `notFound`).
    let noTargetAction: Step?
    /// May answer later calls of its generation. False for a plan made for
    /// one call: one made while a discovery runs on its thread, a miss
    /// (of the target, or of a fallback's) that a provider may answer
    /// differently next time (a discoverer), or one read again because the
    /// registry or the hooks changed while it was being made.
    let reusable: Bool

    enum Answer {
        /// The action itself.
        case action(Step)
        /// The target's `notFound` action, with the same params.
        case notFound(Step)
        /// Nothing on the target answers.
        case missing(Miss)
        /// Looking failed: a discoverer's error, a discovery loop, a name no
        /// call may use.
        case failed(SwitchboardError)
    }

    init(generation: UInt64, target: NameRef, action: NameRef, forURL: Bool, answer: Answer,
         fallbacks: Fallbacks?, reusable: Bool) {
        self.generation = generation
        self.target = OwnedName(target.string)
        self.action = OwnedName(action.string)
        key = PlanCache.key(target, action)
        self.forURL = forURL
        self.answer = answer
        step = answer.step
        if case .action = answer { exact = true } else { exact = false }
        if case .missing(let miss) = answer { self.miss = miss } else { miss = nil }
        self.fallbacks = fallbacks
        noTargetAction = fallbacks.flatMap { f in f.rule == nil && !forURL ? f.noTargetAction.step : nil }
        self.reusable = reusable
    }

    deinit {
        target.free()
        action.free()
    }

    /// Whether this plan is for `target`.`action` as a call `forURL` or not sees it.
    @inline(__always)
    func matches(_ target: NameRef, _ action: NameRef, key: UInt64, forURL: Bool) -> Bool {
        self.key == key && self.forURL == forURL && self.target.matches(target) && self.action.matches(action)
    }
}

/// One action a plan runs, and what running it needs.
struct Step {
    let action: Unmanaged<ActionEntry>
    /// What keeps `action` alive: its target entry, or the hook snapshot of
    /// the degrade handler. The call holds it while the action runs.
    let owner: UnsafeMutableRawPointer
    /// The entry whose class's instance the action runs on (its cached one,
    /// or one made for the call); nil when it runs on none.
    let instanceOf: Unmanaged<TargetEntry>?
}

/// Why nothing answers a pair.
struct Miss {
    let why: Mediator.Missing
    /// A target whose cached instance every such call drops: CTMediator
    /// removes a target from its cache when a call finds neither the action
    /// nor `notFound` on it.
    let evicts: Unmanaged<TargetEntry>?
}

/// What answers a call nothing answered, in the order they are tried
/// (Executor.swift: `fallBack`), each as the resolver resolves a pair (an
/// action, its target's `notFound`, or nothing: a target whose cached
/// instance such a call drops). Each answers with the fallback params
/// (``FallbackCall``).
struct Fallbacks {
    /// A degrade rule's destination for the pair, and what answers there. A
    /// URL call may not land there if the policy refuses it.
    let rule: (target: String, action: String, answer: Plan.Answer)?
    /// What answers `NoTargetAction`.`response`. A URL call the policy keeps
    /// from `NoTargetAction`, when that target is there, fails rather than
    /// going on to the degrade handler.
    let noTargetAction: Plan.Answer
    /// The degrade handler, owned by the hook snapshot.
    let handler: Step?
}
