// The common calls without the general dispatcher's bookkeeping: the action
// is a C or Lua function (for a foreign caller) or a Swift closure (for a
// Swift caller), and its target needs no instance or has a cached one.
// Everything else (discovery, making an instance, `notFound`, the fallback, a
// Swift action for a foreign caller, params that do not fit a contract as
// they are, a call too deep) answers nil here and takes the general path in
// Mediator+Dispatch.swift, which resolves the same way.
//
// Each call is prepared pinned (a `FastCall`: borrowed references only),
// holds what it found, unpins, and runs.

/// A call found on a fast path: what it runs, and what it holds meanwhile.
protocol FastCall {
    /// The target entry owning the action.
    var owner: UnsafeMutableRawPointer { get }
    /// The cached instance it runs on, if any.
    var instance: UnsafeMutableRawPointer? { get }
}

extension Mediator {
    /// Enters one call, prepares it pinned, holds what it uses, unpins and
    /// runs it; nil (nothing run) when `prepare` finds no fast call or the
    /// call is too deep, so the general path reports that.
    @inline(__always)
    static func fastCall<P: FastCall, R>(_ pins: EpochPins, prepare: () -> P?, run: (P) -> R) -> R? {
        fastCall(pins, prepare: prepare, run: run) { record in
            pins.unpin(record)
            pins.leaveCall(record)
            return nil
        }
    }

    /// `fastCall`, where `unprepared` takes over, entered and pinned, when
    /// `prepare` finds nothing: it unpins, and leaves the call before it
    /// returns.
    @inline(__always)
    static func fastCall<P: FastCall, R>(_ pins: EpochPins, prepare: () -> P?, run: (P) -> R,
                                         unprepared: (ThreadRecord) -> R?) -> R? {
        // No `defer`: the compiler moves its body out of line, a call more.
        let record = pins.enterCall()
        guard !CallDepth.exceeded(record) else {
            pins.leaveCall(record)
            return nil
        }
        pins.pin(record)
        guard let call = prepare() else { return unprepared(record) }
        record.hold(owner: call.owner, instance: call.instance)
        pins.unpin(record)
        let result = run(call)
        pins.leaveCall(record)
        return result
    }

    /// `performNative` for a call that resolves to a foreign function, or nil.
    /// `fallback`: a target that is missing for good may be answered by
    /// NoTargetAction here (``performForeignMissing``).
    @inline(__always)
    func performForeignFast(_ target: NameRef, _ action: NameRef, params: OpaquePointer?,
                            out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
                            fallback: Bool) -> Int32? {
        // A target the registry does not have goes on in the same call and
        // pin (`absent`: set by `prepare`).
        var absent = false
        return Self.fastCall(pins) { () -> ForeignCall? in
            guard let entry = targets.find(target) else {
                absent = true
                return nil
            }
            return entry._withUnsafeGuaranteedRef { e -> ForeignCall? in
                // Registered actions first, then the class's (as `lookup` does).
                if let registered = e.registered.find(action) {
                    return ForeignCall(registered, on: nil, owner: entry.toOpaque(), params: params, bridge: bridge)
                }
                guard let found = e.classActions?._withUnsafeGuaranteedRef({ $0.find(action) }) else { return nil }
                return ForeignCall(found, on: e.classNeedsInstance ? e : nil, owner: entry.toOpaque(),
                                   params: params, bridge: bridge)
            }
        } run: {
            $0.run(params, out: out, bridge: bridge, target: target)
        } unprepared: { record in
            if fallback && absent {
                return performForeignMissing(record, target, action, params: params, out: out, bridge: bridge)
            }
            pins.unpin(record)
            pins.leaveCall(record)
            return nil
        }
    }

    /// `performForeignFast` for a target the registry does not have, entered
    /// and pinned: when the general path would find nothing either and hand
    /// the call to NoTargetAction's registered foreign `response` without a
    /// contract (no hooks, so no degrade rule or handler; discovery would
    /// end at once, ``searchEndsAtOnce``), runs that here with the fallback
    /// params, as `degrade` does; else nil (unpinned, left) and the general
    /// path resolves it. Every step is the general path's own check.
    @inline(never)
    func performForeignMissing(_ record: ThreadRecord, _ target: NameRef, _ action: NameRef, params: OpaquePointer?,
                               out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type) -> Int32? {
        guard let (function, owner) = missingAnsweredByNoTargetAction(target, action) else {
            pins.unpin(record)
            pins.leaveCall(record)
            return nil
        }
        record.hold(owner: owner, instance: nil)
        pins.unpin(record)
        let status: Int32
        do throws(SwitchboardError) {
            let args = try bridge.fallbackParams(origin: params,
                                                 call: FallbackCall(lookup: target, target: target, action: action,
                                                                    url: nil))
            status = function._withUnsafeGuaranteedRef { $0.callNative(args, state: nil, out: out) }
            bridge.releaseFallbackParams(args)
        } catch {
            out.pointee = nil
            bridge.report(error)
            status = error.code.rawValue
        }
        pins.leaveCall(record)
        return status
    }

    /// The function of NoTargetAction's `response` and the entry owning it,
    /// when (`target`, `action`) named no module, came from no URL, and the
    /// general path would find neither the target nor a degrade rule and
    /// would run that function as it is; else nil. Pinned.
    @inline(__always)
    private func missingAnsweredByNoTargetAction(_ target: NameRef, _ action: NameRef)
        -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)? {
        // performResolving: a name that is not UTF-8 fails there.
        guard target.isUTF8, action.isUTF8 else { return nil }
        // lookup: no entry (found absent by the caller), and discovery ends
        // at once with nothing: .noTarget.
        guard searchEndsAtOnce(target) else { return nil }
        // degrade: no hooks, so no rule and no degrade handler.
        guard hooks.pinned() == nil else { return nil }
        // resolve(NoTargetAction, response), as ForeignConvention.invoke
        // would run it (MissAnswer.swift).
        return missAnswer()
    }

    /// `perform`/`call` for a Swift caller when the call resolves to a Swift
    /// closure, or nil. The names need no check: one a caller may not use
    /// finds nothing, or an entry that is not `isCallable`.
    @inline(__always)
    func performSwiftFast(_ target: NameRef, _ action: NameRef, params: Params) -> Result<Value, SwitchboardError>? {
        Self.fastCall(pins) { () -> SwiftCall? in
            guard let entry = targets.find(target) else { return nil }
            return entry._withUnsafeGuaranteedRef { e -> SwiftCall? in
                guard e.name.isCallable else { return nil }
                if let registered = e.registered.find(action) {
                    return SwiftCall(registered, on: nil, owner: entry.toOpaque())
                }
                guard let found = e.classActions?._withUnsafeGuaranteedRef({ $0.find(action) }) else { return nil }
                return SwiftCall(found, on: e.classNeedsInstance ? e : nil, owner: entry.toOpaque())
            }
        } run: { $0.run(params, target: target, action: action) }
    }

    /// The cached instance of `entry`'s target, borrowed; CTMediator reuses
    /// it even for an uncached call. Pinned.
    @inline(__always)
    static func cachedInstance(of entry: TargetEntry) -> Unmanaged<TargetInstance>? {
        let cached = entry.cache.slot.load(ordering: .acquiring)
        guard cached != 0 else { return nil }
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: cached)!)
    }
}

/// A foreign function called in its own face's representation.
struct ForeignCall: FastCall {
    let action: Unmanaged<ActionEntry>
    let function: Unmanaged<ForeignFunction>
    let state: UnsafeMutableRawPointer?
    let instance: UnsafeMutableRawPointer?
    let owner: UnsafeMutableRawPointer
    /// The action declares a result, checked after the call.
    let declaresResult: Bool

    /// The call of `action` if it is foreign, its params fit its contract
    /// (if it has one) as they are, and, when it needs an instance of the
    /// class of `entry`, the target has a cached one; else nil. Pinned.
    @inline(__always)
    init?(_ action: Unmanaged<ActionEntry>, on entry: TargetEntry?, owner: UnsafeMutableRawPointer,
          params: OpaquePointer?, bridge: any ForeignBridge.Type) {
        guard let fields = action._withUnsafeGuaranteedRef({ a -> (Unmanaged<ForeignFunction>, Bool)? in
            guard let function = a.foreign else { return nil }
            if let check = a.contract, !Self.fits(params, check, bridge) { return nil }
            return (function, a.declaredResult != nil)
        }) else { return nil }
        var instance: Unmanaged<TargetInstance>?
        if let entry {
            guard let cached = Mediator.cachedInstance(of: entry) else { return nil }
            instance = cached
        }
        self.action = action
        (function, declaresResult) = fields
        state = instance?._withUnsafeGuaranteedRef { $0.state }
        self.instance = instance?.toOpaque()
        self.owner = owner
    }

    /// Out of line, so that calls without a contract stay as short as they were.
    @inline(never)
    private static func fits(_ params: OpaquePointer?, _ check: ContractCheck, _ bridge: any ForeignBridge.Type) -> Bool {
        check.isUsable && bridge.fits(params, check)
    }

    /// Runs the call; a declared result is checked after it
    /// (`ForeignBridge.conformResult`). Held, not pinned.
    @inline(__always)
    func run(_ params: OpaquePointer?, out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
             target: @autoclosure () -> NameRef) -> Int32 {
        let status = function._withUnsafeGuaranteedRef { $0.callNative(params, state: state, out: out) }
        guard declaresResult else { return status }
        if status == 0 { return Self.conform(action, out: out, bridge: bridge, target: target()) }
        Self.checkLater(action, status, target: target())
        return status
    }

    @inline(never)
    private static func checkLater(_ action: Unmanaged<ActionEntry>, _ status: Int32, target: NameRef) {
        action._withUnsafeGuaranteedRef { $0.checkLater(status, target: target, action: $0.name.ref) }
    }

    @inline(never)
    private static func conform(_ action: Unmanaged<ActionEntry>, out: UnsafeMutablePointer<OpaquePointer?>,
                                bridge: any ForeignBridge.Type, target: NameRef) -> Int32 {
        action._withUnsafeGuaranteedRef { a in
            guard let type = a.declaredResult, !bridge.resultFits(out.pointee, type) else { return 0 }
            return bridge.conformResult(of: a, to: type, out: out, target: target, action: a.name.ref)
        }
    }
}

/// A Swift closure called for a Swift caller.
struct SwiftCall: FastCall {
    let action: Unmanaged<ActionEntry>
    let cached: Unmanaged<TargetInstance>?
    let owner: UnsafeMutableRawPointer
    var instance: UnsafeMutableRawPointer? { cached?.toOpaque() }

    /// The call of `action` if it is a Swift closure without a contract and,
    /// when it needs an instance of the class of `entry`, the target has a
    /// cached one; else nil. Pinned.
    @inline(__always)
    init?(_ action: Unmanaged<ActionEntry>, on entry: TargetEntry?, owner: UnsafeMutableRawPointer) {
        guard action._withUnsafeGuaranteedRef({ $0.swift != nil && $0.contract == nil && $0.name.isCallable })
        else { return nil }
        if let entry {
            guard let cached = Mediator.cachedInstance(of: entry) else { return nil }
            self.cached = cached
        } else {
            cached = nil
        }
        self.action = action
        self.owner = owner
    }

    /// Runs the closure. Held, not pinned.
    @inline(__always)
    func run(_ params: Params, target: NameRef, action name: NameRef) -> Result<Value, SwitchboardError> {
        action._withUnsafeGuaranteedRef { entry in
            do {
                guard let cached else { return .success(try entry.swift!(nil, params)) }
                return .success(try cached._withUnsafeGuaranteedRef { try entry.swift!($0.object, params) })
            } catch {
                return .failure(.wrapping(error, in: "\(target.string).\(name.string)"))
            }
        }
    }
}
