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

        let outcome = CurrentCall.with(options) {
            steer(record, &call, hooks: hooks, module: module, options: options, fallback: fallback,
                  via: convention, prepared: prepared)
        }
        if observing {
            if convention.isPending(outcome), let completion = Deferral.detachedHere {
                // Its caller does not wait: the end event comes with the answer.
                let ended = call.summary
                completion.then { [self] answer in
                    let record = pins.record()
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

    /// Rules, interceptors and redirects, then the target.
    private func steer<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall, hooks: Hooks,
                                          module: String?,
                                          options: CallOptions, fallback: Bool, via convention: C,
                                          prepared: Route?) -> C.Outcome {
        // Where the call has been, for the loop message; built only once it
        // moves, so a call that goes straight through makes no strings.
        var hops: [String] = []
        var redirects = 0
        /// Records a redirect; the loop error once there are too many.
        func hop(from origin: @autoclosure () -> String, to next: String) -> SwitchboardError? {
            if hops.isEmpty { hops.append(origin()) }
            hops.append(next)
            redirects += 1
            guard redirects > Self.maxRedirects else { return nil }
            return .rejected("redirect loop: more than \(Self.maxRedirects) redirects ("
                             + hops.suffix(Self.maxRedirects + 1).joined(separator: " → ") + " → …)")
        }

        if let original = call.startURL {
            let extra = call.extra ?? [:]
            // Rules match the URL's normal form, so an escape (%4Fld for
            // Old) or the scheme's case does not slip past a rule; a rule
            // that lengthens the URL meets the length limit at each step.
            var text = hooks.rules.hasURLRules ? RemoteURL.normalized(original) : original
            while let rewritten = hooks.rules.rewrite(url: text) {
                if let loop = hop(from: original, to: rewritten) { return convention.fail(loop) }
                do throws(SwitchboardError) { try RemoteURL.checkLength(rewritten) } catch { return convention.fail(error) }
                text = RemoteURL.normalized(rewritten)
            }
            do throws(SwitchboardError) {
                let destination = try resolve(url: text)
                if let problem = destination.nameProblem {
                    throw .badURL(problem)
                }
                call.url = text
                call.target = destination.target
                call.action = destination.action
                call.carried = CallParams(destination.params.merging(extra))
            } catch {
                return convention.fail(error)
            }
            hops = []
        }
        guard var target = call.target, var action = call.action else { preconditionFailure("a call without a destination") }
        var redirected = false

        /// Moves the call to (`t`, `a`), checking names and, for a URL
        /// call, the URL policy again.
        func move(_ t: String, _ a: String, by whom: String) -> SwitchboardError? {
            if let problem = NameCheck.problem(with: t, kind: "target") ?? NameCheck.problem(with: a, kind: "action") {
                return .invalidArgument("\(whom) redirected \(target).\(action) to an invalid name: \(problem)")
            }
            if let loop = hop(from: "\(target).\(action)", to: "\(t).\(a)") { return loop }
            if let url = call.url {
                do throws(SwitchboardError) { try urls.admit(target: t, action: a, url: url) } catch { return error }
            }
            (target, action) = (t, a)
            (call.target, call.action) = (t, a)
            redirected = true
            return nil
        }

        let bypass = options.bypassInterceptors && self.hooks.allowsBypass.load(ordering: .relaxed)
        steering: while true {
            if let rewritten = hooks.rules.rewrite(target: target, action: action) {
                guard let (t, a) = RoutingRule.split(rewritten) else {
                    return convention.fail(.invalidArgument("a rule rewrote \(target)/\(action) to \"\(rewritten)\", which is not target/action"))
                }
                if let error = move(t, a, by: "a rule") { return convention.fail(error) }
                continue steering
            }
            guard !bypass else { break }
            for registration in hooks.interceptors {
                if call.cancellation?.isCancelled == true { return convention.fail(call.cancelled(before: registration.name)) }
                let decision: Decision
                switch decide(registration, &call, target: target, action: action) {
                case .success(let d): decision = d
                case .failure(let error): return convention.fail(error)
                }
                switch decision {
                case .proceed:
                    continue
                case .rewrite(let params):
                    call.carried = CallParams(params)
                case .redirect(let t, let a, let params):
                    if let params { call.carried = CallParams(params) }
                    if t.hasSameBytes(as: target) && a.hasSameBytes(as: action) { continue }
                    if let error = move(t, a, by: "interceptor \"\(registration.name)\"") { return convention.fail(error) }
                    continue steering
                case .reject(let error):
                    return convention.fail(error)
                case .answer(let value):
                    var lookup = target
                    if !redirected, let module {
                        do throws(SwitchboardError) { lookup = try Self.qualified(target, inModule: module) } catch {
                            return convention.fail(error)
                        }
                    }
                    return answer(record, value, by: registration.name, for: lookup, action,
                                  forURL: call.url != nil, via: convention)
                }
            }
            break
        }
        if call.cancellation?.isCancelled == true { return convention.fail(call.cancelled(before: nil)) }
        let args: C.Args
        switch convention.args(from: call.carried) {
        case .success(let a): args = a
        case .failure(let error): return convention.fail(error)
        }
        if let prepared, !redirected { return prepared.runEntered(record, args: args, via: convention) }
        // Plain lets: the vars `move` captures are checked for exclusive
        // access at run time in every closure that reads them.
        let (called, calledAction) = (target, action)
        var lookup = called
        if !redirected, let module {
            do throws(SwitchboardError) { lookup = try Self.qualified(called, inModule: module) } catch {
                return convention.fail(error)
            }
        }
        return withNameRef(lookup) { lookupRef in
            withNameRef(called) { calledRef in
                withNameRef(calledAction) { actionRef in
                    planned(record, lookupRef, as: calledRef, actionRef, args: args, cache: options.cacheTarget,
                                    fallback: fallback, via: convention)
                }
            }
        }
    }

    /// An interceptor's answer to a call of (`target`, `action`): it stands
    /// in for that action's result, so a result the action's contract
    /// declares is checked as the action's own would be (converted as
    /// `ParamType.result` converts; `.typeMismatch` naming the action and
    /// both types). The action is the one the call's plan runs (the exact
    /// action: a `notFound` declares nothing for it), read pinned: what is
    /// kept is its declared type and, for a mismatch, the message.
    private func answer<C: CallConvention>(_ record: ThreadRecord, _ value: Value, by interceptor: String,
                                           for target: String, _ action: String, forURL: Bool,
                                           via convention: C) -> C.Outcome {
        let wrong: SwitchboardError?, fitted: Value
        pins.pin(record)
        (wrong, fitted) = withNameRef(target) { t in
            withNameRef(action) { a in
                guard let step = plan(t, a, forURL: forURL, fallback: false).read({ $0.exactStep }) else {
                    return (nil, value)
                }
                return Borrowed(step.action).read { entry in
                    guard let type = entry.declaredResult else { return (nil, value) }
                    guard let fitted = type.result(value) else {
                        return (entry.wrongResult(type, got: "\(value.kind)", target: t, action: a), value)
                    }
                    return (nil, fitted)
                }
            }
        }
        pins.unpin(record)
        if let wrong {
            return convention.fail(.typeMismatch(wrong.message + " (the answer of interceptor \"\(interceptor)\")"))
        }
        return convention.answer(fitted)
    }

    /// Shows the call to one interceptor and waits for its decision.
    private func decide(_ registration: InterceptorRegistration, _ call: inout InterceptedCall,
                        target: String, action: String) -> Result<Decision, SwitchboardError> {
        let interception = Interception(target: target, action: action, url: call.url, tags: call.tags,
                                        carried: call.carried, cancellation: call.cancellation,
                                        registration: registration)
        let started = Clock.now
        registration.body(interception)
        if let decision = interception.decided { return .success(decision) }
        let deadline = started.addingReportingOverflow(registration.timeout)
        _ = Parking.wait(on: interception, until: deadline.overflow ? .max : deadline.partialValue) { interception.settled }
        if let decision = interception.decided ?? interception.abandon() { return .success(decision) }
        if interception.isCancelled { return .failure(call.cancelled(before: registration.name)) }
        let ms = Double(registration.timeout) / 1e6
        return .failure(.timeout("interceptor \"\(registration.name)\" did not decide within "
                                 + (ms >= 1 ? "\(Int(ms.rounded())) ms" : "\(registration.timeout / 1000) µs")
                                 + " (call to \(target).\(action))"))
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
