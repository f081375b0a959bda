// The awaitable form of every way of calling (issue 45): URLs, prepared
// routes and services, beside `call(target:action:)` and `perform` in
// Async/Mediator+Await.swift. Each runs its synchronous gate through
// `awaiting`, which suspends the task instead of blocking a thread while an
// action answers later: the same rules for every form — the call's timeout
// (`CallOptions.timeout`: `.timeout`), its cancellation token and the
// task's cancellation (`.canceled`), contracts checked when the answer
// comes.

extension Mediator {
    /// Opens `url` from async code and reports failures (`.badURL`,
    /// `.rejected`, and those of the call itself), awaiting an action that
    /// answers later without blocking a thread. `params` go beside the URL.
    public func call(url: String, params: Params = [:],
                     options: CallOptions = .none) async throws(SwitchboardError) -> Value {
        try await awaiting("the URL call " + RemoteURL.quoted(url)) {
            openURL(url, params: params, options: options)
        }.get()
    }

    /// Opens `url` from async code with CTMediator's semantics: never
    /// throws; `.null` when the call fails. The completion, if any, gets
    /// `["result": value]` or `["error": message, "code": name]` once the
    /// answer has come, on the awaiting task, one call level deeper than
    /// the caller (as the waiting form runs it inside the URL call).
    @discardableResult
    public func open(_ url: String, params: Params = [:], options: CallOptions = .none,
                     completion: (@Sendable (Value) -> Void)? = nil) async -> Value {
        let result = await awaiting("the URL call " + RemoteURL.quoted(url)) {
            openURL(url, params: params, options: options)
        }
        if let completion {
            let reply: Value = switch result {
            case .success(let value): ["result": value]
            case .failure(let error): ["error": .string(error.message), "code": .string(error.code.name)]
            }
            // A completion too deep to run is not run, as in the waiting form.
            try? CallDepth.entering("the completion of the URL call " + RemoteURL.quoted(url)) { completion(reply) }
        }
        return (try? result.get()) ?? .null
    }

    /// Performs `action` of the service `name` from async code, as
    /// ``callServiceAndWait(_:action:params:options:)`` does, awaiting an
    /// action that answers later; the interface's declared result is
    /// checked when it comes.
    public func callService(_ name: String, action: String, params: Params = [:],
                            options: CallOptions = .none) async throws(SwitchboardError) -> Value {
        let (service, params) = try serviceGate(name, action: action, params: params)
        let value = try await awaiting("the service call \(service.label)") {
            dispatchSwift(target: service.target, action: action, params: params, cache: options.cacheTarget,
                          fallback: false, options: options, namingModule: false)
        }.get()
        return try service.checkedResult(value)
    }
}

extension Route {
    /// Calls the prepared action from async code, awaiting an action that
    /// answers later without blocking a thread (see ``CallOptions`` for the
    /// timeout and cancellation).
    public func call(_ params: Params = [:], options: CallOptions = .none) async throws(SwitchboardError) -> Value {
        try await mediator.awaiting("the call to \(targetName).\(actionName)") {
            dispatch(params, options: options)
        }.get()
    }
}
