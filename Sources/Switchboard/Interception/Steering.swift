// Steering: the rules and interceptors between a call and its target, in
// the order Mediator+Intercepted.swift gives. A call whose caller does not
// wait leaves its steering at an interceptor that decides later instead of
// holding its thread: it is pending from then on, and the thread that
// decides takes it up where it was (`SuspendedCall`), through the rest of
// the interceptors to the target, and completes it.

/// Where a call is on its way to its target: what steering keeps from one
/// step to the next, so that the call can leave and be taken up again.
struct Course {
    var target: String
    var action: String
    /// A rule or an interceptor moved the call (the caller's module no
    /// longer qualifies the target).
    var redirected = false
    var hops = Hops()
}

/// Where a call has been, for the loop message; built only once it moves,
/// so a call that goes straight through makes no strings.
struct Hops {
    var places: [String] = []
    var count = 0

    /// Records a redirect; the loop error once there are too many.
    mutating func hop(from origin: @autoclosure () -> String, to next: String) -> SwitchboardError? {
        if places.isEmpty { places.append(origin()) }
        places.append(next)
        count += 1
        guard count > Mediator.maxRedirects else { return nil }
        return .rejected("redirect loop: more than \(Mediator.maxRedirects) redirects ("
                         + places.suffix(Mediator.maxRedirects + 1).joined(separator: " → ") + " → …)")
    }
}

/// What observers are told at the end of a call that left its steering:
/// the call as its last steering left it (redirects after a suspension
/// move it). Each steering that leaves the call, and the one that ends it,
/// sets it; one that was left again meanwhile does not (the later one
/// knows better).
final class SteeredSummary: @unchecked Sendable {
    // @unchecked: reached only under its lock.
    private let latest = Guarded<(summary: CallSummary?, suspensions: Int)>((nil, 0))

    /// The call leaves its steering, as it is now.
    func left(_ summary: CallSummary) { latest.withLock { $0 = (summary, $0.suspensions + 1) } }

    var suspensions: Int { latest.withLock { $0.suspensions } }

    /// A steering taken up after `suspensions` ended, as the call is now.
    func ended(_ summary: CallSummary, after suspensions: Int) {
        latest.withLock { if $0.suspensions == suspensions { $0.summary = summary } }
    }

    var summary: CallSummary? { latest.withLock { $0.summary } }
}

extension Mediator {
    /// Rules, interceptors and redirects, then the target. `steered` gets
    /// the summary a call that leaves its steering keeps up to date.
    func steer<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall, hooks: Hooks,
                                  module: String?, options: CallOptions, fallback: Bool, via convention: C,
                                  prepared: Route?, steered: inout SteeredSummary?) -> C.Outcome {
        var hops = Hops()
        if let original = call.startURL {
            let extra = call.extra ?? [:]
            // Rules match the URL's normal form, so an escape (%4Fld for
            // Old) or the scheme's case does not slip past a rule; a rule
            // that lengthens the URL meets the length limit at each step.
            var text = hooks.rules.hasURLRules ? RemoteURL.normalized(original) : original
            while let rewritten = hooks.rules.rewrite(url: text) {
                if let loop = hops.hop(from: original, to: rewritten) { return convention.fail(loop) }
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
            hops.places = []
        }
        guard let target = call.target, let action = call.action else { preconditionFailure("a call without a destination") }
        var course = Course(target: target, action: action, hops: hops)
        return steer(record, &call, &course, from: nil, hooks: hooks, module: module, options: options,
                     fallback: fallback, via: convention, prepared: prepared, steered: &steered)
    }

    /// Steers the call on from where `course` is: the rules first (`next`
    /// nil), or interceptor `next` of `hooks` (the call left before it).
    func steer<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall, _ course: inout Course,
                                  from next: Int?, hooks: Hooks, module: String?, options: CallOptions,
                                  fallback: Bool, via convention: C, prepared: Route?,
                                  steered: inout SteeredSummary?) -> C.Outcome {
        let bypass = options.bypassInterceptors && self.hooks.allowsBypass.load(ordering: .relaxed)
        var resumeAt = next
        steering: while true {
            var index = 0
            if let at = resumeAt {
                index = at
                resumeAt = nil
            } else {
                if let rewritten = hooks.rules.rewrite(target: course.target, action: course.action) {
                    guard let (t, a) = RoutingRule.split(rewritten) else {
                        return convention.fail(.invalidArgument(
                            "a rule rewrote \(course.target)/\(course.action) to \"\(rewritten)\", which is not target/action"))
                    }
                    if let error = move(&call, &course, to: t, a, by: "a rule") { return convention.fail(error) }
                    continue steering
                }
                guard !bypass else { break }
            }
            while index < hooks.interceptors.count {
                let registration = hooks.interceptors[index]
                index += 1
                if call.cancellation?.isCancelled == true { return convention.fail(call.cancelled(before: registration.name)) }
                // Shown to the interceptor, which decides now or later.
                let interception = Interception(target: course.target, action: course.action, url: call.url,
                                                tags: call.tags, carried: call.carried, cancellation: call.cancellation,
                                                registration: registration, level: record.depth.pointee)
                let started = Clock.now
                registration.body(interception)
                let decision: Decision
                if let decided = interception.decided {
                    decision = decided
                } else {
                    // Later: a caller that does not wait leaves it here.
                    if !interception.callerWaits,
                       let pending = suspend(record, &call, course, at: interception, registration, shown: started,
                                             next: index, hooks: hooks, module: module, options: options,
                                             fallback: fallback, via: convention, prepared: prepared,
                                             steered: &steered) {
                        return pending
                    }
                    switch awaitDecision(interception, registration, &call, started: started,
                                         target: course.target, action: course.action) {
                    case .success(let d): decision = d
                    case .failure(let error): return convention.fail(error)
                    }
                }
                switch apply(decision, of: registration, record, &call, &course, module: module, via: convention) {
                case .onward: continue
                case .again: continue steering
                case .end(let outcome): return outcome
                }
            }
            break
        }
        return arrive(record, &call, course, module: module, options: options, fallback: fallback,
                      via: convention, prepared: prepared)
    }

    /// What an interceptor's decision does to the call.
    private enum Turn<Outcome> {
        /// On to the next interceptor.
        case onward
        /// Moved: steering starts again at the rules.
        case again
        /// The call ends here.
        case end(Outcome)
    }

    @inline(__always)
    private func apply<C: CallConvention>(_ decision: Decision, of registration: InterceptorRegistration,
                                          _ record: ThreadRecord, _ call: inout InterceptedCall,
                                          _ course: inout Course, module: String?, via convention: C) -> Turn<C.Outcome> {
        switch decision {
        case .proceed:
            return .onward
        case .rewrite(let params):
            call.carried = CallParams(params)
            return .onward
        case .redirect(let t, let a, let params):
            if let params { call.carried = CallParams(params) }
            if t.hasSameBytes(as: course.target) && a.hasSameBytes(as: course.action) { return .onward }
            if let error = move(&call, &course, to: t, a, by: "interceptor \"\(registration.name)\"") {
                return .end(convention.fail(error))
            }
            return .again
        case .reject(let error):
            return .end(convention.fail(error))
        case .answer(let value):
            var lookup = course.target
            if !course.redirected, let module {
                do throws(SwitchboardError) { lookup = try Self.qualified(course.target, inModule: module) } catch {
                    return .end(convention.fail(error))
                }
            }
            return .end(answer(record, value, by: registration.name, for: lookup, course.action,
                               forURL: call.url != nil, via: convention))
        }
    }

    /// Moves the call to (`t`, `a`), checking names and, for a URL call,
    /// the URL policy again.
    private func move(_ call: inout InterceptedCall, _ course: inout Course, to t: String, _ a: String,
                      by whom: String) -> SwitchboardError? {
        if let problem = NameCheck.problem(with: t, kind: "target") ?? NameCheck.problem(with: a, kind: "action") {
            return .invalidArgument("\(whom) redirected \(course.target).\(course.action) to an invalid name: \(problem)")
        }
        if let loop = course.hops.hop(from: "\(course.target).\(course.action)", to: "\(t).\(a)") { return loop }
        if let url = call.url {
            do throws(SwitchboardError) { try urls.admit(target: t, action: a, url: url) } catch { return error }
        }
        (course.target, course.action) = (t, a)
        (call.target, call.action) = (t, a)
        course.redirected = true
        return nil
    }

    /// The call has passed its rules and interceptors: the target. Not
    /// inlined: the whole path to the action inlines here, and a copy of it
    /// inside steering made the library 430 KiB larger (for ~150
    /// instructions a call, bench/budgets.tsv's c.intercepted).
    @inline(never)
    private func arrive<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall, _ course: Course,
                                           module: String?, options: CallOptions, fallback: Bool, via convention: C,
                                           prepared: Route?) -> C.Outcome {
        if call.cancellation?.isCancelled == true { return convention.fail(call.cancelled(before: nil)) }
        let args: C.Args
        switch convention.args(from: call.carried) {
        case .success(let a): args = a
        case .failure(let error): return convention.fail(error)
        }
        if let prepared, !course.redirected { return prepared.runEntered(record, args: args, via: convention) }
        let (called, calledAction) = (course.target, course.action)
        var lookup = called
        if !course.redirected, let module {
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

    /// Waits here for an interceptor's decision, up to its timeout.
    private func awaitDecision(_ interception: Interception, _ registration: InterceptorRegistration,
                               _ call: inout InterceptedCall, started: UInt64,
                               target: String, action: String) -> Result<Decision, SwitchboardError> {
        let deadline = started.addingReportingOverflow(registration.timeout)
        _ = Parking.wait(on: interception, until: deadline.overflow ? .max : deadline.partialValue) { interception.settled }
        if let decision = interception.decided ?? interception.abandon() { return .success(decision) }
        if interception.isCancelled { return .failure(call.cancelled(before: registration.name)) }
        return .failure(Self.undecided(registration, target: target, action: action))
    }

    static func undecided(_ registration: InterceptorRegistration, target: String, action: String) -> SwitchboardError {
        let ms = Double(registration.timeout) / 1e6
        return .timeout("interceptor \"\(registration.name)\" did not decide within "
                        + (ms >= 1 ? "\(Int(ms.rounded())) ms" : "\(registration.timeout / 1000) µs")
                        + " (call to \(target).\(action))")
    }

    /// Leaves the call at an interceptor that decides later, its caller not
    /// waiting: the call is pending from now on (the returned outcome), and
    /// whoever decides takes it up (`SuspendedCall`). Nil when it cannot
    /// leave (the caller waits after all): then it waits here.
    private func suspend<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall, _ course: Course,
                                            at interception: Interception, _ registration: InterceptorRegistration,
                                            shown: UInt64, next: Int, hooks: Hooks, module: String?, options: CallOptions,
                                            fallback: Bool, via convention: C, prepared: Route?,
                                            steered: inout SteeredSummary?) -> C.Outcome? {
        guard let completion = Deferral.suspendHere(label: "\(course.target).\(course.action)") else { return nil }
        let summary = steered ?? SteeredSummary()
        steered = summary
        let suspended = SuspendedCall(
            mediator: self, call: call.copy(), course: course, next: next, interception: interception,
            registration: registration, hooks: hooks, module: module, options: options, fallback: fallback,
            convention: convention.suspended(), prepared: prepared, completion: completion, summary: summary,
            frame: CurrentCall.snapshot())
        suspended.wait(shown: shown)
        return convention.pending
    }

    /// Takes up a call that left its steering: its interceptor's decision
    /// (or why none came), then the rest of its steering and its target,
    /// as a new call on this thread whose caller does not wait. Gives the
    /// call's answer, or nil with this thread's `Deferral.detachedHere` the
    /// completion it is pending on again.
    fileprivate func resume<C: CallConvention>(_ suspended: SuspendedCall<C>,
                                               _ verdict: Result<Decision, SwitchboardError>) -> Completion.Answer? {
        suspended.convention.resuming { convention in
            let record = pins.enterCall()
            defer { pins.leaveCall(record) }
            let suspensions = suspended.summary.suspensions
            let ended: C.Outcome
            if CallDepth.exceededAtAnyDepth(record) {
                ended = convention.fail(CallDepth.error(record, call: "\(suspended.course.target).\(suspended.course.action)"))
            } else {
                pins.pin(record)
                record.hold(hooks: Unmanaged.passUnretained(suspended.hooks).toOpaque())
                pins.unpin(record)
                ended = CurrentCall.restoring(suspended.frame) {
                    suspended.steerOn(record, verdict, via: convention)
                }
            }
            suspended.summary.ended(suspended.call.summary, after: suspensions)
            return ended
        }
    }
}

/// A call that left its steering at an interceptor deciding later, until
/// the decision (or the interceptor's timeout, or a cancellation) takes it
/// up again on that thread. What waits does not depend on the caller's
/// face; `SuspendedCall` carries the rest.
private class Suspension: @unchecked Sendable {
    // @unchecked: made by the suspending thread, then used by the one
    // thread that takes the call up (`Interception.whenSettled` runs once);
    // `reason` is reached under its lock.
    let interception: Interception
    let registration: InterceptorRegistration
    /// What the call is pending on: its caller's answer.
    let completion: Completion
    /// The mediator's list of such calls, which it is on while it waits.
    private let list: SuspendedCalls
    /// Gives up waiting for the decision at the interceptor's timeout, or
    /// when the call is cancelled (`DetachedWatch` and the token watch it).
    private let timer: Completion
    /// Why the wait ended without a decision, when neither the timeout nor
    /// the token says it (no watch thread; the mediator freed).
    private let reason = Guarded<SwitchboardError?>(nil)

    init(interception: Interception, registration: InterceptorRegistration, completion: Completion,
         cancellation: Cancellation?, list: SuspendedCalls) {
        self.interception = interception
        self.registration = registration
        self.completion = completion
        self.list = list
        timer = Completion(level: 0, cancellation: cancellation, callerWaits: false)
    }

    /// Waits, without a thread, for the decision or the timer (the
    /// interceptor's timeout from when it was `shown` the call), or the
    /// caller giving up (its own timeout, its queue freed). The timer first:
    /// until `whenSettled` no other thread can take the call up.
    func wait(shown: UInt64) {
        let listed = list.add(self)
        let deadline = shown.addingReportingOverflow(registration.timeout)
        timer.label = "interceptor \"\(registration.name)\""
        timer.deadline = deadline.overflow ? .max : deadline.partialValue
        timer.deliver { [self] answer in
            guard case .failure(let error) = answer else { return }
            if error.code != .timeout && error.code != .canceled { reason.withLock { $0 = error } }
            interception.giveUp()
        }
        // A decision that comes after the caller stopped waiting is ignored,
        // and said so to the interceptor, as one after the timeout.
        completion.whenGivenUp { [interception] why in
            interception.giveUp(cancelled: why == Completion.State.cancelled)
        }
        interception.whenSettled { self.takeUp() }
        if !listed { endAsFreed() }
    }

    /// Ends the wait now, unless a decision came first: the call fails with
    /// `.canceled`, its mediator being freed.
    func endAsFreed() {
        reason.withLock {
            $0 = .canceled("the call to \(interception.target).\(interception.action) was cancelled: its mediator "
                           + "was freed while it waited for interceptor \"\(registration.name)\"")
        }
        interception.giveUp(cancelled: true)
    }

    /// Once: the decision came, or the wait for it ended.
    private func takeUp() {
        list.remove(self)
        timer.complete(.value(.null)) // no longer watched (refused if it gave up)
        // The caller stopped waiting meanwhile (the call's own timeout, a
        // cancellation): nothing is left to run for it.
        guard !completion.isAbandoned else { return }
        let verdict: Result<Decision, SwitchboardError>
        if let decision = interception.decided {
            verdict = .success(decision)
        } else if let error = reason.withLock({ $0 }) {
            verdict = .failure(error)
        } else {
            verdict = .failure(undecided())
        }
        let (answer, pending) = Deferral.detaching { resume(verdict) }
        if let answer {
            completion.complete(answer)
        } else if let pending {
            pending.deliver { [completion] in completion.complete($0) }
            // Pending again (on another interceptor, or its action): a caller
            // that gives up lets that know too.
            completion.whenGivenUp { _ in pending.giveUp() }
        } else {
            completion.complete(.failure(.actionFailed("the call returned pending without an answer to come",
                                                       underlying: nil)))
        }
    }

    /// Why no decision came: cancelled, or the interceptor's timeout.
    func undecided() -> SwitchboardError { preconditionFailure("SuspendedCall overrides undecided") }

    /// The rest of the call, with the verdict: its answer, or nil with
    /// this thread's `Deferral.detachedHere` what it is pending on again.
    func resume(_ verdict: Result<Decision, SwitchboardError>) -> Completion.Answer? {
        preconditionFailure("SuspendedCall overrides resume")
    }
}

/// The calls of one mediator that wait for an interceptor's decision.
final class SuspendedCalls: @unchecked Sendable {
    // @unchecked: `calls` is reached only under its lock.
    /// The calls; nil once the mediator is freed.
    private let calls = Guarded<[ObjectIdentifier: Suspension]?>([:])

    /// Adds `call`; false when the mediator is freed (or being freed): a
    /// call that suspends from then on (its decision came as the free ran,
    /// or a `done` the free ran made it) is ended at once instead.
    fileprivate func add(_ call: Suspension) -> Bool {
        calls.withLock { calls in
            guard calls != nil else { return false }
            calls![ObjectIdentifier(call)] = call
            return true
        }
    }

    fileprivate func remove(_ call: Suspension) { _ = calls.withLock { $0?.removeValue(forKey: ObjectIdentifier(call)) } }

    /// Ends every one with `.canceled`, here, and every one that suspends
    /// later: their callers get their answers now, and a later decision is
    /// ignored.
    func endAll() {
        let all = calls.withLock { calls -> [Suspension] in
            defer { calls = nil }
            return calls.map { Array($0.values) } ?? []
        }
        for call in all { call.endAsFreed() }
    }
}

extension Mediator {
    /// Ends the calls that wait for an interceptor's decision without a
    /// thread, each with `.canceled`, their callers' answers coming now, on
    /// this thread: the mediator is being freed, and nothing may run on it
    /// later (`sb_mediator_free`).
    @_spi(Faces) public func endSuspendedCalls() { suspendedCalls.endAll() }
}

/// The call itself, in its caller's face (`C`).
private final class SuspendedCall<C: CallConvention>: Suspension, @unchecked Sendable {
    let mediator: Mediator
    var call: InterceptedCall
    var course: Course
    /// The interceptor after the one that left the call undecided.
    let next: Int
    let hooks: Hooks
    let module: String?
    let options: CallOptions
    let fallback: Bool
    let convention: C
    let prepared: Route?
    let summary: SteeredSummary
    let frame: CurrentCall.Snapshot?

    init(mediator: Mediator, call: consuming InterceptedCall, course: Course, next: Int, interception: Interception,
         registration: InterceptorRegistration, hooks: Hooks, module: String?, options: CallOptions,
         fallback: Bool, convention: C, prepared: Route?, completion: Completion, summary: SteeredSummary,
         frame: CurrentCall.Snapshot?) {
        let cancellation = call.cancellation
        let list = mediator.suspendedCalls
        self.mediator = mediator
        self.call = call
        self.course = course
        self.next = next
        self.hooks = hooks
        self.module = module
        self.options = options
        self.fallback = fallback
        self.convention = convention
        self.prepared = prepared
        self.summary = summary
        self.frame = frame
        super.init(interception: interception, registration: registration, completion: completion,
                   cancellation: cancellation, list: list)
    }

    override func wait(shown: UInt64) {
        summary.left(call.summary)
        super.wait(shown: shown)
    }

    override func undecided() -> SwitchboardError {
        if interception.isCancelled { return call.cancelled(before: registration.name) }
        return Mediator.undecided(registration, target: course.target, action: course.action)
    }

    override func resume(_ verdict: Result<Decision, SwitchboardError>) -> Completion.Answer? {
        mediator.resume(self, verdict)
    }

    /// The rest of the steering, with the interceptor's verdict.
    func steerOn(_ record: ThreadRecord, _ verdict: Result<Decision, SwitchboardError>, via convention: C) -> C.Outcome {
        var steered: SteeredSummary? = summary
        return mediator.steerResumed(record, &call, &course, verdict, of: registration, next: next, hooks: hooks,
                                     module: module, options: options, fallback: fallback, via: convention,
                                     prepared: prepared, steered: &steered)
    }
}

extension Mediator {
    /// `steer` of a call taken up after its interceptor decided.
    fileprivate func steerResumed<C: CallConvention>(_ record: ThreadRecord, _ call: inout InterceptedCall,
                                                     _ course: inout Course, _ verdict: Result<Decision, SwitchboardError>,
                                                     of registration: InterceptorRegistration, next: Int, hooks: Hooks,
                                                     module: String?, options: CallOptions, fallback: Bool,
                                                     via convention: C, prepared: Route?,
                                                     steered: inout SteeredSummary?) -> C.Outcome {
        let decision: Decision
        switch verdict {
        case .success(let d): decision = d
        case .failure(let error): return convention.fail(error)
        }
        let from: Int?
        switch apply(decision, of: registration, record, &call, &course, module: module, via: convention) {
        case .onward: from = next
        case .again: from = nil
        case .end(let outcome): return outcome
        }
        return steer(record, &call, &course, from: from, hooks: hooks, module: module, options: options,
                     fallback: fallback, via: convention, prepared: prepared, steered: &steered)
    }
}
