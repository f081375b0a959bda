import Synchronization

extension Mediator {
    /// Prepares a call, like `sqlite3_prepare`: the names are resolved now,
    /// and each later call only checks that the registry has not changed.
    ///
    /// Throws `.noTarget` / `.noAction` if the pair does not resolve now. A
    /// route never falls back (no `notFound`, no `NoTargetAction`), and stays
    /// valid across registry changes: after its target is unregistered a call
    /// throws `.noTarget`; after re-registration it calls the new action.
    public func route(target: String, action: String, cacheTarget: Bool = false) throws(SwitchboardError) -> Route {
        try Self.check(target, kind: "target")
        try Self.check(action, kind: "action")
        let route = Route(mediator: self, target: target, action: action, cache: cacheTarget)
        try route.prepare()
        return route
    }
}

/// A prepared call (see ``Mediator/route(target:action:cacheTarget:)``).
/// May be called from several threads at once.
///
/// A route is a call by name whose names are made once: its plan is found
/// with their hashes computed already, and a route never falls back (no
/// `notFound`, no `NoTargetAction`): it runs only the exact action.
public final class Route: @unchecked Sendable {
    // @unchecked: its names own their bytes; `kept` is atomic and plans are
    // immutable.

    /// The mediator the route calls through (kept alive by the route).
    public let mediator: Mediator
    let target: OwnedName
    let action: OwnedName
    let cache: Bool
    /// The plan its last call ran (one reference, as the plan cache holds
    /// one), or 0: while its generation is the mediator's, the next call
    /// runs it without looking in the cache. The resolver made it; the route
    /// only keeps it, as the cache does.
    private let kept = Atomic<UInt>(0)

    init(mediator: Mediator, target: String, action: String, cache: Bool) {
        self.mediator = mediator
        self.target = OwnedName(target)
        self.action = OwnedName(action)
        self.cache = cache
    }

    deinit {
        let bits = kept.load(ordering: .acquiring)
        if bits != 0 { Borrowed<Plan>(bits: bits).unmanaged.release() }
        target.free()
        action.free()
    }

    /// The plan for the route's pair now: the one it kept, if current, else
    /// the mediator's (then kept). Pinned.
    @inline(__always)
    private func plan() -> Borrowed<Plan> {
        let generation = mediator.generation.load(ordering: .acquiring)
        let bits = kept.load(ordering: .acquiring)
        if bits != 0 {
            let plan = Borrowed<Plan>(bits: bits)
            if plan.read({ $0.generation == generation }) { return plan }
        }
        return keep(mediator.plan(target.ref, action.ref, forURL: false, fallback: false))
    }

    @inline(never)
    private func keep(_ plan: Borrowed<Plan>) -> Borrowed<Plan> {
        // A plan made for one call alone is not kept (it is retired already).
        guard plan.read({ $0.reusable }) else { return plan }
        let old = kept.exchange(UInt(bitPattern: plan.unmanaged.retain().toOpaque()), ordering: .acquiringAndReleasing)
        // Another thread may be reading the old one right now.
        if old != 0 { mediator.epochs.retire(Borrowed<Plan>(bits: old).unmanaged) }
        return plan
    }

    /// The target's name, as prepared.
    public var targetName: String { target.string }
    /// The action's name, as prepared.
    public var actionName: String { action.string }

    /// Calls the prepared action with `params` on this thread, waiting there
    /// for an action that answers later. In async code,
    /// `try await call(_:options:)`.
    public func callAndWait(_ params: Params = [:]) throws(SwitchboardError) -> Value {
        try dispatch(params, options: .none).get()
    }

    /// `callAndWait` with options (see ``CallOptions``): tags, skipping
    /// interceptors, cancellation, a timeout.
    public func callAndWait(_ params: Params = [:], options: CallOptions) throws(SwitchboardError) -> Value {
        try dispatch(params, options: options).get()
    }

    /// The Swift face's gate of a prepared call: hooks or options take the
    /// intercepted path (which still runs this route's plan), the rest runs
    /// the plan at once.
    @inline(__always)
    func dispatch(_ params: Params, options: CallOptions) -> Result<Value, SwitchboardError> {
        if mediator.hasHooks || !options.isPlain {
            return mediator.intercepted(.local(target: target.string, action: action.string), args: params,
                                        options: options, fallback: false, via: SwiftConvention(), prepared: self)
        }
        return run(args: params, via: SwiftConvention())
    }

    /// Calls the prepared action for another face (see `performNative`).
    @_spi(Faces) public func callNative(params: OpaquePointer?, out: UnsafeMutablePointer<OpaquePointer?>,
                                        bridge: any ForeignBridge.Type) -> Int32 {
        if mediator.hasHooks {
            return mediator.intercepted(.local(target: target.string, action: action.string), args: params,
                                        options: .none, fallback: false, via: ForeignConvention(bridge: bridge, out: out),
                                        prepared: self)
        }
        return run(args: params, via: ForeignConvention(bridge: bridge, out: out))
    }

    /// Resolves now, so that preparing fails for a pair that does not resolve.
    func prepare() throws(SwitchboardError) {
        // Resolving may run discoverers: user code, counted like a call.
        let record = mediator.pins.enterCall()
        defer { mediator.pins.leaveCall(record) }
        if CallDepth.exceeded(record) { throw CallDepth.error(record, target: target.ref, action: action.ref) }
        mediator.pins.pin(record)
        defer { mediator.pins.unpin(record) }
        let plan = plan()
        if let error = plan.read({ $0.exactStep == nil ? refusal(of: $0) : nil }) { throw error }
    }

    @inline(__always)
    private func run<C: CallConvention>(args: C.Args, via convention: C) -> C.Outcome {
        // No `defer`: the compiler moves its body out of line, a call more.
        let record = mediator.pins.enterCall()
        if CallDepth.exceeded(record) {
            let error = CallDepth.error(record, target: target.ref, action: action.ref)
            mediator.pins.leaveCall(record)
            return convention.fail(error)
        }
        let outcome = runEntered(record, args: args, via: convention)
        mediator.pins.leaveCall(record)
        return outcome
    }

    /// Runs the route for a caller that has entered the call (`record`) and
    /// checked the depth: gate, plan, execute, as any call by name.
    @inline(__always)
    func runEntered<C: CallConvention>(_ record: ThreadRecord, args: C.Args, via convention: C) -> C.Outcome {
        mediator.pins.pin(record)
        let plan = plan()
        if let step = plan.read({ $0.exactStep }) {
            return mediator.run(step, record, args: args, target: target.ref, action: action.ref, cache: cache,
                                via: convention)
        }
        return fail(plan, record, via: convention)
    }

    @inline(never)
    private func fail<C: CallConvention>(_ plan: Borrowed<Plan>, _ record: ThreadRecord, via convention: C) -> C.Outcome {
        let error = plan.read { refusal(of: $0) }
        mediator.pins.unpin(record)
        return convention.fail(mediator.suggesting(error, target: target.ref, action: action.ref,
                                                   fromSwift: C.self == SwiftConvention.self))
    }

    /// Why a plan without the exact action does not run this route.
    private func refusal(of plan: Plan) -> SwitchboardError {
        switch plan.answer {
        case .failed(let error): error
        case .missing(let miss) where miss.why == .noTarget: .noTarget("no target named \"\(target.string)\"")
        case .action, .notFound, .missing: .noAction("target \"\(target.string)\" has no action \"\(action.string)\"")
        }
    }
}

extension Plan {
    /// The step of the exact action (not `notFound`), if that answers.
    var exactStep: Step? { exact ? step : nil }
}
