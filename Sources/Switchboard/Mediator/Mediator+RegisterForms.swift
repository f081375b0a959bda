// Registering actions that read their call's context (``CallContext``) or
// declare their isolation (the main actor; Targets/Isolation.swift). Each
// form wraps its closure into a plain Swift action: nothing here changes how
// a call is planned or run.

extension Mediator {
    /// Registers a closure action that gets its call's context: the mediator
    /// running the call (call on through it, never `Mediator.shared`), the
    /// caller's tags, the deadline and the cancellation token. With a
    /// contract, the params are checked (and completed) before each call.
    public func register(target: String, action: String, contract: Contract? = nil,
                         _ body: @escaping @Sendable (Params, CallContext) throws -> Value) throws(SwitchboardError) {
        try registerSwift(target: target, action: action, contract: contract, body: { [weak self] _, params in
            guard let self else { throw CallContext.mediatorGone }
            return try body(params, .ofThisThread(self))
        })
    }

    /// Registers an asynchronous closure action that gets its call's
    /// context (see ``CallContext``; its ``CallContext/options`` carry the
    /// deadline and the token to the calls it makes from its own task).
    public func register(target: String, action: String, contract: Contract? = nil,
                         _ body: @escaping @isolated(any) @Sendable (Params, CallContext) async throws -> Value)
        throws(SwitchboardError) {
        if MainActorCode.isMain(body.isolation) {
            let label = "\(target).\(action)"
            return try registerSwift(target: target, action: action, contract: Self.answeringLater(contract),
                                     body: { [weak self] _, params in
                guard let self else { throw CallContext.mediatorGone }
                let context = CallContext.ofThisThread(self)
                return try MainActorCode.runAsyncAction(label) { try await body(params, context) }
            })
        }
        try Self.check(action, kind: "action")
        let contract = try contract?.validated(for: "\(target).\(action)")
        try add([ActionEntry(name: action, body: .swiftAsync { [weak self] _, params in
            guard let self else { throw CallContext.mediatorGone }
            return try await body(params, .ofThisTask(self))
        }, contract: contract)], to: target)
    }

    /// Registers a closure action isolated to the main actor (pass
    /// `MainActor.shared`): in a module whose code is main-actor isolated
    /// (Swift 6.2's `.defaultIsolation(MainActor.self)`), it may use that
    /// code directly. It runs at once when called on the main actor;
    /// a caller that awaits gets it run on the main actor; a caller that
    /// waits on another thread gets `.wouldBlock` at once, before it runs.
    public func register(target: String, action: String, contract: Contract? = nil, isolation: MainActor,
                         _ body: @escaping @MainActor @Sendable (Params) throws -> Value) throws(SwitchboardError) {
        let label = "\(target).\(action)"
        try registerSwift(target: target, action: action, contract: contract, body: { _, params in
            try MainActorCode.runAction(label) { try body(params) }
        })
    }

    /// A main-actor closure action (as the form above) that gets its call's
    /// context.
    public func register(target: String, action: String, contract: Contract? = nil, isolation: MainActor,
                         _ body: @escaping @MainActor @Sendable (Params, CallContext) throws -> Value)
        throws(SwitchboardError) {
        let label = "\(target).\(action)"
        try registerSwift(target: target, action: action, contract: contract, body: { [weak self] _, params in
            guard let self else { throw CallContext.mediatorGone }
            let context = CallContext.ofThisThread(self)
            return try MainActorCode.runAction(label) { try body(params, context) }
        })
    }

    /// Registers a Swift body under `target`.`action`, with a contract that
    /// is validated first.
    func registerSwift(target: String, action: String, contract: Contract?,
                       body: @escaping @Sendable (AnyObject?, Params) throws -> Value) throws(SwitchboardError) {
        try Self.check(action, kind: "action")
        let contract = try contract?.validated(for: "\(target).\(action)")
        try add([ActionEntry(name: action, body: .swift(body), contract: contract)], to: target)
    }

    /// `contract` saying the action answers later (for the catalogue and
    /// the wrapper generator), for an `async` action run through a plain
    /// Swift body.
    static func answeringLater(_ contract: Contract?) -> Contract {
        var contract = contract ?? Contract()
        contract.answersLater = true
        return contract
    }
}
