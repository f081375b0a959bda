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
public final class Route: @unchecked Sendable {
    // @unchecked: `snapshot` is atomic and its objects are immutable.

    public let mediator: Mediator
    /// The mediator's `pins`: calls pin without touching an object.
    private let pins: EpochPins
    let target: OwnedName
    let action: OwnedName
    let cache: Bool

    /// The current resolution: `Unmanaged<Snapshot>` bits holding one strong
    /// reference, or 0 before the first resolution.
    private let snapshot = Atomic<UInt>(0)

    /// What the names resolved to in one registry generation. The references
    /// are unowned: while the registry generation still equals `generation`
    /// (checked pinned), nothing they point to has been unlinked, so nothing
    /// has been reclaimed.
    final class Snapshot: @unchecked Sendable {
        let generation: UInt64
        let entry: Unmanaged<TargetEntry>
        let action: Unmanaged<ActionEntry>
        let onClass: Bool

        init(generation: UInt64, entry: Unmanaged<TargetEntry>, action: Unmanaged<ActionEntry>, onClass: Bool) {
            self.generation = generation
            self.entry = entry
            self.action = action
            self.onClass = onClass
        }
    }

    init(mediator: Mediator, target: String, action: String, cache: Bool) {
        self.mediator = mediator
        self.pins = mediator.pins
        self.target = OwnedName(target)
        self.action = OwnedName(action)
        self.cache = cache
    }

    deinit {
        let bits = snapshot.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Snapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        target.free()
        action.free()
    }

    public var targetName: String { target.string }
    public var actionName: String { action.string }

    /// Calls the prepared action with `params`.
    public func call(_ params: Params = [:]) throws(SwitchboardError) -> Value {
        if mediator.hasHooks {
            return try mediator.intercepted(.local(target: target.string, action: action.string), args: params,
                                            options: .none, fallback: false, via: SwiftConvention(), prepared: self).get()
        }
        if let result = callSwiftFast(params: params) { return try result.get() }
        return try dispatch(args: params, via: SwiftConvention()).get()
    }

    /// Calls the prepared action for another face (see `performNative`).
    @_spi(Faces) public func callNative(params: OpaquePointer?, out: UnsafeMutablePointer<OpaquePointer?>,
                                        bridge: any ForeignBridge.Type) -> Int32 {
        if mediator.hasHooks {
            return mediator.intercepted(.local(target: target.string, action: action.string), args: params,
                                        options: .none, fallback: false, via: ForeignConvention(bridge: bridge, out: out),
                                        prepared: self)
        }
        if let status = callForeignFast(params: params, out: out, bridge: bridge) { return status }
        return dispatch(args: params, via: ForeignConvention(bridge: bridge, out: out))
    }

    /// The common cases without the general path's bookkeeping: the
    /// snapshot is current and its action is foreign, or Swift for a Swift
    /// caller (see Mediator+FastPath.swift).
    @inline(__always)
    private func callForeignFast(params: OpaquePointer?, out: UnsafeMutablePointer<OpaquePointer?>,
                                 bridge: any ForeignBridge.Type) -> Int32? {
        Mediator.fastCall(pins) {
            currentSnapshot { action, entry, owner in
                ForeignCall(action, on: entry, owner: owner, params: params, bridge: bridge)
            }
        } run: { $0.run(params, out: out, bridge: bridge, target: target.ref) }
    }

    @inline(__always)
    private func callSwiftFast(params: Params) -> Result<Value, SwitchboardError>? {
        Mediator.fastCall(pins) {
            currentSnapshot { action, entry, owner in SwiftCall(action, on: entry, owner: owner) }
        } run: { $0.run(params, target: target.ref, action: self.action.ref) }
    }

    /// `body` with the snapshot's action, its entry if the action needs an
    /// instance, and the entry that owns the action; nil when there is no
    /// current snapshot. Pinned.
    @inline(__always)
    private func currentSnapshot<R>(_ body: (Unmanaged<ActionEntry>, TargetEntry?, UnsafeMutableRawPointer) -> R?) -> R? {
        let generation = mediator.registryGeneration.load(ordering: .acquiring)
        let bits = snapshot.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<Snapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef { s in
            guard s.generation == generation else { return nil }
            let owner = s.entry.toOpaque()
            return s.onClass ? s.entry._withUnsafeGuaranteedRef { body(s.action, $0, owner) } : body(s.action, nil, owner)
        }
    }

    /// Resolves now, so that preparing fails for a pair that does not resolve.
    func prepare() throws(SwitchboardError) {
        // Resolving may run discoverers: user code, counted like a call.
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        if CallDepth.exceeded(record) { throw CallDepth.error(record, target: target.ref, action: action.ref) }
        pins.pin(record)
        defer { pins.unpin(record) }
        if case .failure(let error) = current() { throw error }
    }

    private func dispatch<C: CallConvention>(args: C.Args, via convention: C) -> C.Outcome {
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        if CallDepth.exceeded(record) {
            return convention.fail(CallDepth.error(record, target: target.ref, action: action.ref))
        }
        return dispatchEntered(record, args: args, via: convention)
    }

    /// `dispatch` for a caller that has entered the call (`record`) and
    /// checked the depth.
    func dispatchEntered<C: CallConvention>(_ record: ThreadRecord, args: C.Args, via convention: C) -> C.Outcome {
        pins.pin(record)
        let resolution: Result<Mediator.Resolved, SwitchboardError>
        switch current() {
        case .success(let snapshot):
            resolution = snapshot._withUnsafeGuaranteedRef { s in
                guard s.onClass else {
                    return .success(Mediator.Resolved(action: s.action, instance: nil, ownsInstance: false,
                                                      owner: s.entry.toOpaque()))
                }
                switch mediator.instance(for: s.entry, action: s.action, cache: cache) {
                case .found(let r): return .success(r)
                case .failed(let error): return .failure(error)
                case .missing(let missing): return .failure(missing.error(target: target.ref, action: action.ref))
                }
            }
        case .failure(let error):
            resolution = .failure(error)
        }
        if case .success(let resolved) = resolution { record.hold(resolved) }
        pins.unpin(record)
        switch resolution {
        case .success(let resolved):
            return mediator.run(resolved, args: args, target: target.ref, action: action.ref, via: convention)
        case .failure(let error):
            return convention.fail(mediator.suggesting(error, target: target.ref, action: action.ref, fromSwift: C.self == SwiftConvention.self))
        }
    }

    /// The snapshot for the current registry generation, resolving again if
    /// the registry changed since the last one. Pinned.
    private func current() -> Result<Unmanaged<Snapshot>, SwitchboardError> {
        // Read the generation first: a change racing with the lookup below
        // leaves a snapshot that is already stale, never one that is wrong.
        let generation = mediator.registryGeneration.load(ordering: .acquiring)
        let bits = snapshot.load(ordering: .acquiring)
        if bits != 0 {
            let existing = Unmanaged<Snapshot>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            if existing._withUnsafeGuaranteedRef({ $0.generation == generation }) { return .success(existing) }
        }
        let fresh: Snapshot
        switch mediator.lookup(target.ref, action.ref) {
        case .found(let entry, let action, let onClass):
            fresh = Snapshot(generation: generation, entry: entry, action: action, onClass: onClass)
        case .noTarget:
            return .failure(.noTarget("no target named \"\(target.string)\""))
        case .noAction:
            return .failure(.noAction("target \"\(target.string)\" has no action \"\(action.string)\""))
        case .failed(let error):
            return .failure(error)
        }
        let made = Unmanaged.passRetained(fresh)
        let old = snapshot.exchange(UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if old != 0 {
            // Another thread may be reading the old snapshot right now.
            mediator.epochs.retire(Unmanaged<Snapshot>.fromOpaque(UnsafeRawPointer(bitPattern: old)!))
        }
        return .success(made)
    }
}
