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
    /// function held until `leaveDirect`) and returns the function, the
    /// level entered and the call's number on this thread (from 1, never
    /// reused), keeping the number and `note` with the level
    /// (`innermostDirectCall`). Else nil, nothing entered: the general path
    /// resolves the same call the same way and reports what stood in the way.
    @_spi(Faces) public func enterDirect(_ target: UnsafePointer<CChar>, _ action: UnsafePointer<CChar>, note: UInt64)
        -> (function: Unmanaged<ForeignFunction>, level: Int, number: UInt64)? {
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
        let level = record.depth.pointee, number = record.nextDirectNumber()
        let kept = record.directCall(at: level)
        kept[0] = number
        kept[1] = note
        return (function, level, number)
    }

    /// The number and note `enterDirect` kept for this thread's innermost
    /// call in progress, when it is at `level` and `enterDirect` entered it
    /// (not a call sb_action_perform runs, which a stale ticket of the same
    /// level must not end); else nil.
    @_spi(Faces) public static func innermostDirectCall(level: Int) -> (number: UInt64, note: UInt64)? {
        let record = CallDepth.pins.record()
        let depth = record.depth.pointee
        guard depth == level, depth >= 0, depth < ThreadRecord.levels else { return nil }
        let kept = record.directCall(at: depth)
        return kept[0] == 0 ? nil : (kept[0], kept[1])
    }

    /// A number for the calling thread, distinct from every other running
    /// thread's (its thread record's `serial`): so that a direct call is
    /// left on the thread that entered it.
    @_spi(Faces) public static var threadSerial: UInt64 { CallDepth.pins.record().serial }

    /// Ends the call `enterDirect` entered (the innermost: `innermostDirectCall`).
    @_spi(Faces) public static func leaveDirect() {
        let record = CallDepth.pins.record()
        record.directCall(at: record.depth.pointee)[0] = 0
        CallDepth.pins.leaveCall(record)
    }
}
