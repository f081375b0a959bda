/// What an action knows of the call running it: the mediator that called
/// it, the caller's tags, the deadline and the cancellation token. (A C
/// action asks the same of its thread: `sb_action_cancelled()`.)
///
/// An action that calls on makes its calls through ``mediator``, never
/// through `Mediator.shared`: code under test with a mediator of its own
/// (Swift Testing runs tests in parallel) then stays inside it.
///
///     try mediator.register(target: "Cart", action: "checkout") { params, call in
///         let user = try call.mediator.callAndWait(target: "Session", action: "user", options: call.options)
///         ...
///     }
///
/// Registered closures get one by taking a second argument; `Target`
/// classes list such actions in ``Target/contextActions``.
public struct CallContext: Sendable {
    /// The mediator running the call.
    public let mediator: Mediator
    /// The tags the caller attached (``CallOptions/tags``); empty for a
    /// call without them (calls do not inherit their caller's tags).
    public let tags: [String]
    /// When the call stops waiting for its answer: its own timeout or one
    /// of the calls it was made from, the sooner. Nil: no deadline.
    public let deadline: ContinuousClock.Instant?
    /// The call's cancellation token, its own or its caller's.
    public let cancellation: Cancellation?

    /// Whether the caller has cancelled the call.
    public var isCancelled: Bool { cancellation?.isCancelled ?? false }

    /// The time left until ``deadline`` (zero once it has passed); nil: none.
    public var timeRemaining: Duration? {
        deadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) }
    }

    /// Options for the calls the action makes that keep this call's
    /// deadline and token: pass them on where the calls would not inherit
    /// them (an `async` action's own task, another thread). Tags are the
    /// caller's words for this call and are not passed on.
    public var options: CallOptions {
        CallOptions(cancellation: cancellation, timeout: timeRemaining)
    }

    init(mediator: Mediator, _ snapshot: CurrentCall.Snapshot?) {
        self.mediator = mediator
        tags = snapshot?.tags ?? []
        cancellation = snapshot?.cancellation
        let deadline = snapshot?.deadline ?? .max
        if deadline == .max {
            self.deadline = nil
        } else {
            let now = Clock.now
            let left = deadline > now ? deadline - now : 0
            self.deadline = ContinuousClock.now.advanced(by: .nanoseconds(Int64(clamping: left)))
        }
    }

    /// The context of the call whose action runs on this thread now.
    static func ofThisThread(_ mediator: Mediator) -> CallContext {
        CallContext(mediator: mediator, CurrentCall.snapshot())
    }

    /// The context of the call whose `async` action runs on this task.
    static func ofThisTask(_ mediator: Mediator) -> CallContext {
        CallContext(mediator: mediator, CurrentCall.ofTask)
    }

    /// For a body that asks for its context when its mediator is gone
    /// (it cannot be: a call runs on a mediator its caller holds).
    static let mediatorGone = SwitchboardError.rejected("the mediator of this call no longer exists")
}
