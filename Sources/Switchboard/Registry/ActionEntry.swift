import Synchronization

/// One named action: what runs when a call resolves to it.
final class ActionEntry: @unchecked Sendable {
    // @unchecked: immutable after init; `body`'s payloads are Sendable.

    enum Body: Sendable {
        /// A Swift closure. The first argument is the target instance's object
        /// (a `Target` class instance), nil for closure-registered actions.
        case swift(@Sendable (AnyObject?, Params) throws -> Value)
        /// A Swift `async` closure: it answers later (Async/Deferral.swift).
        case swiftAsync(@Sendable (AnyObject?, Params) async throws -> Value)
        /// A C or Lua function, called in its own face's representation when
        /// the caller is in that face.
        case foreign(ForeignFunction)
    }

    let name: OwnedName
    let body: Body
    /// `body`'s foreign function, borrowed (`body` owns it). Calls go
    /// through this view: matching on `body` would retain and release the
    /// function on every call, and with several threads calling one action
    /// those writes to a shared reference count would contend.
    let foreign: Unmanaged<ForeignFunction>?
    /// `body`'s Swift closure, for the same reason: calls read this stored
    /// property instead of copying the enum's payload.
    let swift: (@Sendable (AnyObject?, Params) throws -> Value)?
    /// Checked before each call (Contracts/): a plan for an action that has
    /// one runs the check (`Plan`).
    let contract: ContractCheck?
    /// `contract`'s declared result (`ContractCheck.result`), stored here so
    /// that the executor reads one field of the entry after the call.
    let declaredResult: ParamType?
    /// When it was made, among all actions of the process: an action map
    /// lists its actions in this order (registration order, since an
    /// action is made by the call that registers it).
    let serial: UInt64

    /// Serial numbers for actions.
    private static let serials = Atomic<UInt64>(0)

    convenience init(name: String, body: Body, contract: Contract? = nil) {
        self.init(name: OwnedName(name), body: body, contract: contract)
    }

    /// With a name made by the caller (tests give one a chosen hash).
    init(name: OwnedName, body: Body, contract: Contract? = nil) {
        self.name = name
        self.body = body
        serial = Self.serials.wrappingAdd(1, ordering: .relaxed).oldValue
        self.contract = contract.map(ContractCheck.init)
        declaredResult = self.contract?.result
        switch body {
        case .foreign(let function):
            foreign = Unmanaged.passUnretained(function)
            swift = nil
        case .swift(let closure):
            foreign = nil
            swift = closure
        case .swiftAsync:
            foreign = nil
            swift = nil
        }
    }

    /// Whether it answers later, for listings: a Swift `async` closure, or
    /// a contract that says `async`.
    var answersLater: Bool {
        if case .swiftAsync = body { return true }
        return contract?.contract.answersLater == true
    }

    deinit { name.free() }
}
