// A call its face runs itself (C: sb__action_enter / sb__action_leave in
// switchboard_sys.h, which only the Lua module uses): when the call's plan
// would do nothing but call a foreign function — no hooks, the exact action, on no instance, no
// contract and no declared result — the mediator enters it (depth, the
// function held) and hands the function back; the face calls it in its own
// representation (the Lua module, a Lua action of its own state, copying the
// caller's table in Lua) and leaves. What answers is the plan's, as for any
// call: the face only asks.

extension Mediator {
    /// When the plan of a plain call of `target`.`action` now runs only a
    /// foreign function (see above) and the call is not too deep: enters it
    /// (one level of this thread's calls, what the plan's step needs held
    /// until `leaveDirect`) and returns the function, the level entered and
    /// the call's number on this thread (from 1, never reused), keeping the
    /// number and `note` with the level (`innermostDirectCall`). Else nil,
    /// nothing entered: the face makes the call the general way, which runs
    /// the same plan and reports what stood in the way.
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
        let found = plan(target, action, forURL: false, fallback: false).read { plan in
            plan.exactStep.flatMap { step -> (Unmanaged<ForeignFunction>, UnsafeMutableRawPointer)? in
                guard step.instanceOf == nil else { return nil }
                return Borrowed(step.action).read { a in
                    guard let function = a.foreign, a.contract == nil, a.declaredResult == nil else { return nil }
                    return (function, step.owner)
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
