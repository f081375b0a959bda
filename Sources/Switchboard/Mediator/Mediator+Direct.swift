// A call its face runs itself (C: sb_action_enter / sb_action_leave): when
// the call would do nothing but call a registered foreign function, the
// mediator enters it (depth, the function held) and hands the function back;
// the face calls it in its own representation (the Lua module, a Lua action
// of its own state, copying the caller's table in Lua) and leaves.

extension Mediator {
    /// When a plain call of `target`.`action` now would run only a foreign
    /// function registered by name — no hooks, both names registered (no
    /// discovery), no contract — and is not too deep: enters it as
    /// `performForeignFast` would (one level of this thread's calls, the
    /// function held until `leaveDirect`) and returns the function and the
    /// level entered. Else nil, nothing entered: the general path resolves
    /// the same call the same way and reports what stood in the way.
    @_spi(Faces) public func enterDirect(_ target: UnsafePointer<CChar>, _ action: UnsafePointer<CChar>)
        -> (function: Unmanaged<ForeignFunction>, level: Int)? {
        guard !hasHooks else { return nil }
        let target = NameRef(cString: target), action = NameRef(cString: action)
        let record = pins.enterCall()
        guard !CallDepth.exceeded(record) else {
            pins.leaveCall(record)
            return nil
        }
        pins.pin(record)
        let found = targets.find(target).flatMap { entry in
            entry._withUnsafeGuaranteedRef { e -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)? in
                guard let registered = e.registered.find(action) else { return nil }
                return registered._withUnsafeGuaranteedRef { a in
                    guard let function = a.foreign, a.contract == nil, a.declaredResult == nil else { return nil }
                    return (function, entry.toOpaque())
                }
            }
        }
        guard let (function, owner) = found else {
            pins.unpin(record)
            pins.leaveCall(record)
            return nil
        }
        record.hold(owner: owner, instance: nil)
        pins.unpin(record)
        record.setDirect(true, at: record.depth.pointee)
        return (function, record.depth.pointee)
    }

    /// Whether this thread's innermost call in progress is at `level` and
    /// was entered by `enterDirect` (not a call sb_action_perform runs: a
    /// stale ticket of the same level must not end that one).
    @_spi(Faces) public static func isInnermostCall(level: Int) -> Bool {
        let record = CallDepth.pins.record()
        let depth = record.depth.pointee
        return depth == level && depth >= 0 && depth < ThreadRecord.levels && record.isDirect(at: depth)
    }

    /// A number for the calling thread, distinct from every other running
    /// thread's (its thread record's `serial`): so that a direct call is
    /// left on the thread that entered it.
    @_spi(Faces) public static var threadSerial: UInt64 { CallDepth.pins.record().serial }

    /// Ends the call `enterDirect` entered (the innermost: `isInnermostCall`).
    @_spi(Faces) public static func leaveDirect() {
        let record = CallDepth.pins.record()
        record.setDirect(false, at: record.depth.pointee)
        CallDepth.pins.leaveCall(record)
    }
}
