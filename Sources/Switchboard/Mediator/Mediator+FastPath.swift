// The common calls without the general dispatcher's bookkeeping: the action
// is a C or Lua function (for a foreign caller) or a Swift closure (for a
// Swift caller), and its target needs no instance or has a cached one. Everything else (discovery, making an instance, `notFound`, the
// fallback, a Swift action, an error, a call too deep) answers nil here and takes the general
// path in Mediator+Dispatch.swift, which resolves the same way.

extension Mediator {
    /// `performNative` for a call that resolves to a foreign function, or nil.
    @inline(__always)
    func performForeignFast(_ target: NameRef, _ action: NameRef, params: OpaquePointer?,
                            out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type) -> Int32? {
        let record = pins.pin()
        defer { pins.unpin(record) }
        guard !CallDepth.exceeded(record), let entry = targets.find(target) else { return nil }
        return entry._withUnsafeGuaranteedRef { entry -> Int32? in
            // Registered actions first, then the class's (as `lookup` does).
            if let registered = entry.registered.find(action) {
                return registered._withUnsafeGuaranteedRef {
                    Self.callForeign($0, on: nil, params: params, out: out, bridge: bridge, target: target)
                }
            }
            guard let found = entry.classActions?._withUnsafeGuaranteedRef({ $0.find(action) }) else { return nil }
            return found._withUnsafeGuaranteedRef {
                Self.callForeign($0, on: entry.classNeedsInstance ? entry : nil, params: params, out: out,
                                 bridge: bridge, target: target)
            }
        }
    }

    /// Calls `action` if it is foreign, its params fit its contract (if it
    /// has one) as they are, and, when it needs an instance of the class of
    /// `entry`, the target has a cached one; else nil. Pinned.
    @inline(__always)
    static func callForeign(_ action: ActionEntry, on entry: TargetEntry?, params: OpaquePointer?,
                            out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
                            target: @autoclosure () -> NameRef) -> Int32? {
        guard let function = action.foreign else { return nil }
        if let check = action.contract {
            return callForeignChecked(function, action, check, on: entry, params: params, out: out, bridge: bridge,
                                      target: target())
        }
        var state: UnsafeMutableRawPointer?
        if let entry {
            guard let instance = cachedInstance(of: entry) else { return nil }
            state = instance._withUnsafeGuaranteedRef { $0.state }
        }
        return function._withUnsafeGuaranteedRef { $0.callNative(params, state: state, out: out) }
    }

    /// `callForeign` for an action with a contract: the params must fit it
    /// as they are, and a declared result is checked after the call
    /// (`ForeignBridge.conformResult`). Out of line, so that calls without a
    /// contract stay as short as they were.
    @inline(never)
    static func callForeignChecked(_ function: Unmanaged<ForeignFunction>, _ action: ActionEntry,
                                   _ check: ContractCheck, on entry: TargetEntry?, params: OpaquePointer?,
                                   out: UnsafeMutablePointer<OpaquePointer?>, bridge: any ForeignBridge.Type,
                                   target: NameRef) -> Int32? {
        guard check.isUsable && bridge.fits(params, check) else { return nil }
        var state: UnsafeMutableRawPointer?
        if let entry {
            guard let instance = cachedInstance(of: entry) else { return nil }
            state = instance._withUnsafeGuaranteedRef { $0.state }
        }
        let status = function._withUnsafeGuaranteedRef { $0.callNative(params, state: state, out: out) }
        guard status == 0, let type = action.declaredResult, !bridge.resultFits(out.pointee, type) else { return status }
        return bridge.conformResult(of: action, to: type, out: out, target: target, action: action.name.ref)
    }

    /// `perform`/`call` for a Swift caller when the call resolves to a Swift
    /// closure, or nil.
    @inline(__always)
    func performSwiftFast(_ target: NameRef, _ action: NameRef, params: Params) -> Result<Value, SwitchboardError>? {
        let record = pins.pin()
        defer { pins.unpin(record) }
        guard !CallDepth.exceeded(record), let entry = targets.find(target) else { return nil }
        return entry._withUnsafeGuaranteedRef { entry -> Result<Value, SwitchboardError>? in
            if let registered = entry.registered.find(action) {
                return registered._withUnsafeGuaranteedRef {
                    Self.callSwift($0, on: nil, params: params, target: target, action: action)
                }
            }
            guard let found = entry.classActions?._withUnsafeGuaranteedRef({ $0.find(action) }) else { return nil }
            return found._withUnsafeGuaranteedRef {
                Self.callSwift($0, on: entry.classNeedsInstance ? entry : nil, params: params,
                               target: target, action: action)
            }
        }
    }

    /// Calls `action` if it is a Swift closure and, when it needs an instance
    /// of the class of `entry`, the target has a cached one; else nil. Pinned.
    @inline(__always)
    static func callSwift(_ action: ActionEntry, on entry: TargetEntry?, params: Params,
                          target: NameRef, action name: NameRef) -> Result<Value, SwitchboardError>? {
        guard let body = action.swift, action.contract == nil else { return nil }
        var instance: Unmanaged<TargetInstance>?
        if let entry {
            guard let cached = cachedInstance(of: entry) else { return nil }
            instance = cached
        }
        do {
            guard let instance else { return .success(try body(nil, params)) }
            return .success(try instance._withUnsafeGuaranteedRef { try body($0.object, params) })
        } catch {
            return .failure(.wrapping(error, in: "\(target.string).\(name.string)"))
        }
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
