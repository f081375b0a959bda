// The path a call takes when the mediator has hooks (interceptors,
// observers, rules, a degrade handler) or the call has options. Without
// them a call reads one word (`hooks.published`) and never comes here.
//
// Order, for one call:
//   observers: start
//   URL calls: URL rules rewrite the text; the URL resolves (policy checks)
//   rules rewrite target/action            \  a rewrite or an interceptor's
//   interceptors, by priority, each decides  }  redirect starts again here,
//   the target (then degrade rules, NoTargetAction, the degrade handler)
//   observers: end, with the status and the duration

/// Where an intercepted call starts.
enum CallStart {
    case local(target: String, action: String)
    /// A URL, with the params passed beside it (they win over the URL's).
    case url(String, extra: Params)
}

extension Mediator {
    /// Whether calls must take the intercepted path. One relaxed load.
    @inline(__always)
    var hasHooks: Bool { hooks.published.load(ordering: .relaxed) != 0 }

    /// Runs a call through the hooks. `args` are the caller's params for a
    /// local call (ignored for a URL). `module` qualifies the target's
    /// lookup (``moduleKey``) unless the call is redirected. A `prepared`
    /// route answers when the call still goes to its target and action.
    func intercepted<C: CallConvention>(_ start: CallStart, args: C.Args, module: String? = nil,
                                        options: CallOptions, fallback: Bool, via convention: C,
                                        prepared: Route? = nil) -> C.Outcome {
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        // Before any user code (observers included): a call refused for its
        // depth reaches no observer, which could only re-enter again.
        if CallDepth.exceeded(record) {
            let call: String
            switch start {
            case .local(let target, let action): call = "\(target).\(action)"
            case .url(let url, _): call = "the URL call " + RemoteURL.quoted(url)
            }
            return convention.fail(CallDepth.error(record, call: call))
        }
        return interceptedEntered(record, start, args: args, module: module, options: options, fallback: fallback,
                                  via: convention, prepared: prepared)
    }

    /// `intercepted` for a caller that has entered the call (`record`) and
    /// checked the depth. The call holds the hook snapshot it starts with
    /// until it returns; observers, interceptors and the target run unpinned.
    func interceptedEntered<C: CallConvention>(_ record: ThreadRecord, _ start: CallStart, args: C.Args,
                                               module: String? = nil, options: CallOptions, fallback: Bool,
                                               via convention: C, prepared: Route? = nil) -> C.Outcome {
        pins.pin(record)
        let hooks = self.hooks.pinned() ?? .empty
        record.hold(hooks: Unmanaged.passUnretained(hooks).toOpaque())
        pins.unpin(record)
        var call = InterceptedCall(start: start, tags: options.tags, cancellation: options.cancellation,
                                   carried: { convention.carry(args) })
        // A call an observer makes is not shown to observers: each event
        // would start another call with two events of its own, work that
        // doubles with every level. It runs, and counts against the depth.
        let observing = !hooks.observers.isEmpty && record.observing.pointee == 0
        let began = observing ? Clock.now : 0
        if observing { notify(hooks, call.event(.start, error: nil, result: nil, duration: 0), record) }

        // Set when the call leaves its steering at an interceptor deciding
        // later (Steering.swift): the end event tells of the call as it ends.
        var steered: SteeredSummary?
        let outcome = CurrentCall.with(options) {
            steer(record, &call, hooks: hooks, module: module, options: options, fallback: fallback,
                  via: convention, prepared: prepared, steered: &steered)
        }
        if observing {
            if convention.isPending(outcome), let completion = Deferral.detachedHere {
                // Its caller does not wait: the end event comes with the answer.
                let summary = call.summary, steered = steered
                completion.then { [self] answer in
                    let record = pins.record()
                    let ended = steered?.summary ?? summary
                    switch answer {
                    case .value(let value):
                        notify(hooks, ended.event(.end, error: nil, result: .swift(value), duration: Clock.now &- began), record)
                    case .native(let native, let face):
                        notify(hooks, ended.event(.end, error: nil, result: .native(native, face),
                                                  duration: Clock.now &- began), record)
                    case .failure(let error):
                        notify(hooks, ended.event(.end, error: error, result: nil, duration: Clock.now &- began), record)
                    }
                    return answer
                }
            } else {
                notify(hooks, call.event(.end, error: convention.failure(of: outcome),
                                         result: convention.result(of: outcome), duration: Clock.now &- began), record)
            }
        }
        return outcome
    }

    private func notify(_ hooks: Hooks, _ event: CallEvent, _ record: ThreadRecord) {
        record.observing.pointee += 1
        defer { record.observing.pointee -= 1 }
        for observer in hooks.observers { observer.body(event) }
    }
}

/// One intercepted call as it moves. Not copyable: a copy cost every call
/// a copy and a second destroy of all its fields (callgrind, c.intercepted).
struct InterceptedCall: ~Copyable {
    /// A URL call's URL as the caller gave it, and the params passed beside
    /// it. Not the `CallStart` itself: copying that enum cost every call
    /// several outlined copies and destroys; nil optionals cost nothing.
    let startURL: String?
    let extra: Params?
    let tags: [String]
    let cancellation: Cancellation?
    var target: String?
    var action: String?
    var url: String?
    var carried: CallParams

    /// `carried` makes a local call's params; a URL call's come once it resolves.
    init(start: CallStart, tags: [String], cancellation: Cancellation?, carried: () -> CallParams) {
        self.tags = tags
        self.cancellation = cancellation
        switch start {
        case .local(let t, let a):
            (target, action) = (t, a)
            (startURL, extra) = (nil, nil)
            self.carried = carried()
        case .url(let u, let e):
            url = u
            (startURL, extra) = (u, e)
            self.carried = CallParams([:])
        }
    }

    func event(_ phase: CallEvent.Phase, error: SwitchboardError?, result: CallResult?, duration: UInt64) -> CallEvent {
        summary.event(phase, error: error, result: result, duration: duration)
    }

    /// What observers are told of the call as it is now, kept by a pending
    /// call's end event.
    var summary: CallSummary {
        CallSummary(target: target, action: action, url: startURL ?? url, tags: tags, carried: carried)
    }

    /// A copy, for a call that leaves its thread (Steering.swift).
    func copy() -> InterceptedCall { InterceptedCall(copying: self) }

    private init(copying other: borrowing InterceptedCall) {
        startURL = other.startURL
        extra = other.extra
        tags = other.tags
        cancellation = other.cancellation
        target = other.target
        action = other.action
        url = other.url
        carried = other.carried
    }

    func cancelled(before interceptor: String?) -> SwitchboardError {
        let call = "\(target ?? "?").\(action ?? "?")"
        guard let interceptor else { return .canceled("the call to \(call) was cancelled") }
        return .canceled("the call to \(call) was cancelled (at interceptor \"\(interceptor)\")")
    }
}

/// An intercepted call as observers see it.
struct CallSummary {
    let target: String?
    let action: String?
    let url: String?
    let tags: [String]
    let carried: CallParams

    func event(_ phase: CallEvent.Phase, error: SwitchboardError?, result: CallResult?, duration: UInt64) -> CallEvent {
        CallEvent(phase: phase, target: target, action: action, url: url, tags: tags, error: error,
                  duration: duration, carried: carried, result: result)
    }
}
