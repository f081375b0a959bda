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
    /// Checked before each call (Contracts/); the fast paths leave actions
    /// that have one to the general path.
    let contract: ContractCheck?
    /// `contract`'s declared result (`ContractCheck.result`), stored here so
    /// that a fast path reads one field of the entry after the call.
    let declaredResult: ParamType?

    init(name: String, body: Body, contract: Contract? = nil) {
        self.name = OwnedName(name)
        self.body = body
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

/// An immutable name → action table. Changing a target's actions builds a
/// new map, so readers never see one half-updated.
final class ActionMap: @unchecked Sendable {
    // @unchecked: immutable after init; `cells` points into memory owned here.

    static let empty = ActionMap([])

    /// The actions in registration order; holds the strong references.
    let entries: [ActionEntry]
    private let mask: Int
    /// Open addressing, load factor ≤ 1/2; unowned references into `entries`.
    private let cells: UnsafeMutablePointer<Unmanaged<ActionEntry>?>

    /// `entries` must have distinct names.
    init(_ entries: [ActionEntry]) {
        self.entries = entries
        var capacity = 4
        while capacity < entries.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        cells = .allocate(capacity: capacity)
        cells.initialize(repeating: nil, count: capacity)
        for entry in entries {
            var i = Int(truncatingIfNeeded: entry.name.hash ^ (entry.name.hash >> 29)) & mask
            while cells[i] != nil { i = (i + 1) & mask }
            cells[i] = Unmanaged.passUnretained(entry)
        }
    }

    deinit { cells.deallocate() }

    var isEmpty: Bool { entries.isEmpty }

    @inline(__always)
    func find(_ key: NameRef) -> Unmanaged<ActionEntry>? {
        var i = key.slot(mask: mask)
        while let cell = cells[i] {
            if cell._withUnsafeGuaranteedRef({ $0.name.matches(key) }) { return cell }
            i = (i + 1) & mask
        }
        return nil
    }

    /// A copy with `entry` added, replacing any action of the same name.
    func replacing(_ entry: ActionEntry) -> ActionMap {
        ActionMap(entries.filter { !$0.name.matches(entry.name.ref) } + [entry])
    }

    /// A copy without the action `name`, or nil if there is no such action.
    func removing(_ name: String) -> ActionMap? {
        let kept = withNameRef(name) { key in entries.filter { !$0.name.matches(key) } }
        return kept.count == entries.count ? nil : ActionMap(kept)
    }

    var names: [String] { entries.map(\.name.string) }
}
