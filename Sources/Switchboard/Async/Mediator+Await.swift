import Synchronization

// Swift callers that await: the call runs on the awaiting task's thread as
// any call does; if its action answers later (a Swift `async` action, a C
// or Lua action that deferred), the task is suspended instead of a thread
// blocked, and resumes when the answer comes (Deferral.detaching).

extension Mediator {
    /// `call` for async code: awaits any action, synchronous or
    /// asynchronous, without blocking a thread. Cancelling the task cancels
    /// the call (`.canceled`; an `async` action's own task is cancelled).
    public func call(target: String, action: String, params: Params = [:],
                     options: CallOptions = .none) async throws(SwitchboardError) -> Value {
        try await awaitCall(target: target, action: action, params: params, options: options, fallback: false).get()
    }

    /// `perform` for async code: as `try await call(target:action:params:options:)`
    /// with CTMediator's fallbacks; `.null` when the call fails.
    @discardableResult
    public func perform(target: String, action: String, params: Params = [:],
                        options: CallOptions = .none) async -> Value {
        (try? await awaitCall(target: target, action: action, params: params, options: options,
                              fallback: true).get()) ?? .null
    }

    private func awaitCall(target: String, action: String, params: Params, options: CallOptions,
                           fallback: Bool) async -> Result<Value, SwitchboardError> {
        await awaiting("the call to \(target).\(action)") {
            dispatchSwift(target: target, action: action, params: params, cache: options.cacheTarget,
                          fallback: fallback, options: options)
        }
    }

    /// Runs `call`, a synchronous gate of the Swift face, for a task that
    /// awaits it: the call starts on this task's thread, and if its action
    /// answers later the task is suspended until the answer comes, instead
    /// of a thread blocked. Cancelling the task cancels the call. `what`
    /// names the call in the message of a task cancelled before it starts.
    func awaiting(_ what: @autoclosure () -> String,
                  _ call: () -> Result<Value, SwitchboardError>) async -> Result<Value, SwitchboardError> {
        let awaited = AwaitedCall()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, SwitchboardError>, Never>) in
                if Task.isCancelled {
                    return continuation.resume(returning: .failure(.canceled("\(what()) was cancelled")))
                }
                let (outcome, pending) = Deferral.detaching(call)
                guard let pending, case .failure(let error) = outcome, error.code == .wouldBlock else {
                    pending?.giveUp()
                    return continuation.resume(returning: outcome)
                }
                pending.deliver { answer in continuation.resume(returning: answer.takeValue()) }
                awaited.started(pending)
            }
        } onCancel: {
            awaited.cancel()
        }
    }
}

/// Between an awaiting task's cancellation handler and its pending call,
/// which may start before or after the task is cancelled.
private final class AwaitedCall: Sendable {
    private let state = Guarded<(completion: Completion?, cancelled: Bool)>((nil, false))

    func started(_ completion: Completion) {
        let cancelled = state.withLock { state in
            state.completion = completion
            return state.cancelled
        }
        if cancelled { completion.giveUp() }
    }

    func cancel() {
        let completion = state.withLock { state in
            state.cancelled = true
            return state.completion
        }
        completion?.giveUp()
    }
}
