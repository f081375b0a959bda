import Synchronization

/// The router: callers name a target and an action, the mediator finds who
/// answers and runs it with a params dictionary.
///
/// Thread-safe. `perform` and `call` take no lock and write no shared memory
/// on the way to an action; registration takes a lock that `perform` never
/// waits for. No lock is held while an action runs, so an action may itself
/// perform, register or release (re-entrancy), and a slow action never blocks
/// another call.
public final class Mediator: @unchecked Sendable {
    // @unchecked: mutable state is either atomic, behind `lock`, or published
    // through `targets` under the epoch scheme (see EpochDomain).

    /// The process-wide mediator. Never freed.
    public static let shared = Mediator()

    /// The params key that names the Swift module of the target for one call
    /// (CTMediator's `kCTMediatorParamsKeySwiftTargetModuleName`):
    /// `["switchboard.module": "ModuleA"]` finds `ModuleA.Target_<Name>`.
    /// The key stays in the params the action receives. An empty module
    /// names none (as in CTMediator), and CTMediator's own key,
    /// ``ctMediatorModuleKey``, is read as an alias when this one names none.
    /// Neither key can come from a URL.
    public static let moduleKey = "switchboard.module"

    /// CTMediator's literal module key, `kCTMediatorParamsKeySwiftTargetModuleName`,
    /// an alias of ``moduleKey`` so that ported callers keep their params.
    public static let ctMediatorModuleKey = "kCTMediatorParamsKeySwiftTargetModuleName"

    let epochs = EpochDomain.shared
    /// `epochs.pins`, kept here so a call pins without touching the domain object.
    let pins = EpochDomain.shared.pins
    /// Serializes writers (registration, discovery results, configuration).
    let lock = Lock()
    let targets: TargetTable
    /// Bumped whenever what discovery could find changes (module list,
    /// providers), so targets looked for in vain are looked for again.
    let discoveryGeneration = Atomic<UInt64>(1)
    /// Bumped by every change a plan depends on: the registry, discovery's
    /// settings, the hooks (see `changed`). A plan answers only while the
    /// generation it was made in is current (Calls/Plan.swift).
    let generation = Atomic<UInt64>(1)
    /// What the resolver decided for the pairs called lately (Calls/PlanCache.swift).
    let plans = PlanCache()
    /// False only in tests that compare calls planned afresh each time
    /// with calls that reuse plans (MissFastPathTests).
    let reusesPlans = Atomic<Bool>(true)
    /// Names the stable providers were asked for in vain (Registry/MissCache.swift).
    let misses = MissCache(epochs: EpochDomain.shared)
    /// How many providers are not ``TargetProvider/isStable`` (asked on every miss).
    let unstableProviders = Atomic<Int>(0)
    /// `modules` is not empty: a name without a dot may be a Swift type.
    let searchesModules: Atomic<Bool>
    /// Connectors, route patterns and the policy of the URL entry.
    let urls = URLRouter()
    /// Interceptors, observers, rules and the degrade handler. With none,
    /// a call reads one word of it and goes on (see Mediator+Hooks.swift).
    let hooks = HookState()
    /// Protocol-class services (Services/).
    let services = ServiceRegistry()

    /// Calls waiting for an interceptor's decision without a thread
    /// (Interception/Steering.swift): freeing the mediator ends them.
    let suspendedCalls = SuspendedCalls()

    /// Where the registered actions of a target came from, when a face said
    /// (a Lua file, ...): the catalogue shows it instead of "registered".
    /// Keyed by the name's bytes, as targets are (a String key would merge
    /// two spellings of "é"). Behind `lock`.
    var registrationOrigins: [[UInt8]: String] = [:]

    private var _modules: [String]
    private var _providers: [(id: UInt64, provider: any TargetProvider)] = []
    private var nextProviderID: UInt64 = 1

    /// A mediator that finds `Target_<Name>` classes in `modules`, in order.
    public init(modules: [String] = []) {
        _modules = modules
        searchesModules = Atomic(!modules.isEmpty)
        targets = TargetTable()
    }

    deinit {
        // What changes retired while calls were running (old hook snapshots,
        // unlinked entries) is released now if no call is pinned, so a freed
        // mediator's destructors have all run when sb_mediator_free returns.
        epochs.collect(wait: true)
    }

    /// The Swift modules searched, in order, for a `Target_<Name>` class when
    /// a call names a target that is not registered. Changing the list makes
    /// targets that were not found before findable again; targets already
    /// found stay until unregistered.
    public var modules: [String] {
        get { lock.withLock { _modules } }
        set {
            write {
                _modules = newValue
                searchesModules.store(!newValue.isEmpty, ordering: .relaxed)
                discoveryGeneration.add(1, ordering: .releasing)
            }
        }
    }

    var providers: [any TargetProvider] { lock.withLock { _providers.map(\.provider) } }

    /// Adds a source of targets consulted after Swift types (C plugins, Lua
    /// search paths). Providers are asked in the order they were added.
    /// Returns an id for ``removeProvider(_:)``.
    @_spi(Faces) @discardableResult
    public func addProvider(_ provider: any TargetProvider) -> UInt64 {
        write {
            discoveryGeneration.add(1, ordering: .releasing)
            let id = nextProviderID
            nextProviderID += 1
            _providers.append((id, provider))
            if !provider.isStable { unstableProviders.add(1, ordering: .relaxed) }
            return id
        }
    }

    /// Removes a provider. What it already provided stays registered.
    /// Returns false for an unknown id.
    @_spi(Faces) @discardableResult
    public func removeProvider(_ id: UInt64) -> Bool {
        write {
            guard let index = _providers.firstIndex(where: { $0.id == id }) else { return false }
            if !_providers[index].provider.isStable { unstableProviders.subtract(1, ordering: .relaxed) }
            _providers.remove(at: index)
            return true
        }
    }

    /// Says that what a provider can find has changed (a C plugin was
    /// loaded): names looked for in vain are looked for again.
    @_spi(Faces)
    public func providersChanged() {
        discoveryGeneration.add(1, ordering: .releasing)
        changed()
    }

    /// Makes a new generation: every plan made before is stale. Call after
    /// a change a plan depends on, before retiring what it unlinked.
    func changed() {
        generation.add(1, ordering: .sequentiallyConsistent)
    }

    /// Runs a registry change under the writer lock: the change, then a new
    /// generation, then retirement of what the change unlinked. That order
    /// lets a reader trust anything it resolved while the generation it read
    /// first is still current (plans rely on it). Objects are released after
    /// unlocking, because releasing may run user destructors that call back
    /// in.
    func write<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        defer { epochs.collect(wait: true) }
        lock.lock()
        defer {
            changed()
            for object in targets.unlinked { epochs.retire(object) }
            targets.unlinked.removeAll()
            lock.unlock()
        }
        return try body()
    }
}

/// A source of targets found by name at first use (the C face's plugins, the
/// Lua face's search path).
@_spi(Faces) public protocol TargetProvider: AnyObject, Sendable {
    /// The target class called `name`, or nil. Called with no mediator lock
    /// held; may be called from several threads at once. An error (a file
    /// that does not load) fails the call that triggered the search.
    func targetClass(named name: String) throws(SwitchboardError) -> ForeignTargetClass?

    /// True when its answer for a name changes only when the mediator is
    /// told (``Mediator/providersChanged()``, a new provider, new modules):
    /// a name it did not find is then not asked for again until then (C
    /// plugins). False (the default) for providers that may find a name
    /// later that they did not find before (discoverers): they are asked on
    /// every call that names an unknown target.
    var isStable: Bool { get }

    /// The targets it can provide, for listings (``Mediator/routes()``);
    /// empty when it cannot tell before being asked by name.
    func listedTargets() -> [ListedTarget]
}

extension TargetProvider {
    public func listedTargets() -> [ListedTarget] { [] }
    public var isStable: Bool { false }
}

/// A target as listings show it.
@_spi(Faces) public struct ListedTarget: Sendable {
    public var name: String
    public var origin: String
    public var actions: [String]
    /// Contracts of some of the actions, by name (bytes).
    public var contracts: [ExactName: Contract]

    public init(name: String, origin: String, actions: [String], contracts: [ExactName: Contract] = [:]) {
        self.name = name
        self.origin = origin
        self.actions = actions
        self.contracts = contracts
    }
}

/// A target class described by another face: named foreign actions, and how
/// to make and destroy an instance's state.
@_spi(Faces) public struct ForeignTargetClass: Sendable {
    public var origin: String
    public var actions: [(name: String, function: ForeignFunction)]
    /// Contracts of some of the actions, by name (bytes).
    public var contracts: [ExactName: Contract]
    public var create: @Sendable () throws(SwitchboardError) -> UnsafeMutableRawPointer?
    public var destroy: @Sendable (UnsafeMutableRawPointer?) -> Void
    /// Instances would hold nothing (no create, no destroy): actions get a
    /// nil state and no instance is ever made.
    public var stateless: Bool

    public init(origin: String, actions: [(name: String, function: ForeignFunction)],
                contracts: [ExactName: Contract] = [:],
                create: @escaping @Sendable () throws(SwitchboardError) -> UnsafeMutableRawPointer?,
                destroy: @escaping @Sendable (UnsafeMutableRawPointer?) -> Void, stateless: Bool = false) {
        self.origin = origin
        self.actions = actions
        self.contracts = contracts
        self.create = create
        self.destroy = destroy
        self.stateless = stateless
    }
}
