// The common foreign call without the general dispatcher's bookkeeping: the
// action is a C or Lua function, and its target needs no instance or has a
// cached one. Everything else (discovery, making an instance, `notFound`, the
// fallback, a Swift action, an error) answers nil here and takes the general
// path in Mediator+Dispatch.swift, which resolves the same way.

extension Mediator {
    /// `performNative` for a call that resolves to a foreign function, or nil.
    @inline(__always)
    func performForeignFast(_ target: NameRef, _ action: NameRef, params: OpaquePointer?,
                            out: UnsafeMutablePointer<OpaquePointer?>) -> Int32? {
        let record = pins.pin()
        defer { pins.unpin(record) }
        guard let entry = targets.find(target) else { return nil }
        return entry._withUnsafeGuaranteedRef { entry -> Int32? in
            // Registered actions first, then the class's (as `lookup` does).
            if let registered = entry.registered.find(action) {
                return registered._withUnsafeGuaranteedRef {
                    Self.callForeign($0, on: nil, params: params, out: out)
                }
            }
            guard let found = entry.classActions?._withUnsafeGuaranteedRef({ $0.find(action) }) else { return nil }
            return found._withUnsafeGuaranteedRef {
                Self.callForeign($0, on: entry.classNeedsInstance ? entry : nil, params: params, out: out)
            }
        }
    }

    /// Calls `action` if it is foreign and, when it needs an instance of the
    /// class of `entry`, the target has a cached one; else nil. Pinned.
    @inline(__always)
    static func callForeign(_ action: ActionEntry, on entry: TargetEntry?, params: OpaquePointer?,
                            out: UnsafeMutablePointer<OpaquePointer?>) -> Int32? {
        guard let function = action.foreign else { return nil }
        var state: UnsafeMutableRawPointer?
        if let entry {
            // CTMediator reuses a cached instance even for an uncached call.
            let cached = entry.cache.slot.load(ordering: .acquiring)
            guard cached != 0 else { return nil }
            state = Unmanaged<TargetInstance>.fromOpaque(UnsafeRawPointer(bitPattern: cached)!)
                ._withUnsafeGuaranteedRef { $0.state }
        }
        return function._withUnsafeGuaranteedRef { $0.callNative(params, state: state, out: out) }
    }
}
