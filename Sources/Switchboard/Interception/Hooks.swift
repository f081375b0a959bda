import Synchronization

/// An interceptor as registered.
final class InterceptorRegistration: @unchecked Sendable {
    // @unchecked: immutable but for the atomic counter.
    let id: UInt64
    let name: String
    let priority: Int
    /// How long a call waits for a decision, in nanoseconds.
    let timeout: UInt64
    let origin: String
    /// Runs the interceptor; it decides through `Interception.complete`.
    let body: @Sendable (Interception) -> Void
    /// Decisions ignored because they came too late or twice.
    let ignored = Atomic<Int>(0)

    init(id: UInt64, name: String, priority: Int, timeout: UInt64, origin: String,
         body: @escaping @Sendable (Interception) -> Void) {
        self.id = id
        self.name = name
        self.priority = priority
        self.timeout = timeout
        self.origin = origin
        self.body = body
    }
}

/// An observer as registered.
struct ObserverRegistration: Sendable {
    let id: UInt64
    let body: @Sendable (CallEvent) -> Void
}

/// Everything that can watch or change calls on their way, as one immutable
/// snapshot. A mediator with none publishes no snapshot, and calls never
/// look further than that (see `Mediator.hooks`). A change publishes a new
/// snapshot; the old one is retired under the epoch scheme, so a call reads
/// the one it started with without a lock or a reference count.
final class Hooks: Sendable {
    /// In call order: priority (higher first), then registration order.
    let interceptors: [InterceptorRegistration]
    let observers: [ObserverRegistration]
    let rules: RuleSet
    /// Answers what nothing else answered (after `NoTargetAction`).
    let degrade: ActionEntry?

    init(interceptors: [InterceptorRegistration], observers: [ObserverRegistration], rules: RuleSet,
         degrade: ActionEntry?) {
        self.interceptors = interceptors.sorted {
            $0.priority != $1.priority ? $0.priority > $1.priority : $0.id < $1.id
        }
        self.observers = observers
        self.rules = rules
        self.degrade = degrade
    }

    static let empty = Hooks(interceptors: [], observers: [], rules: .empty, degrade: nil)

    var isEmpty: Bool { interceptors.isEmpty && observers.isEmpty && rules.isEmpty && degrade == nil }

    func with(interceptors: [InterceptorRegistration]? = nil, observers: [ObserverRegistration]? = nil,
              rules: RuleSet? = nil, degrade: ActionEntry?? = nil) -> Hooks {
        Hooks(interceptors: interceptors ?? self.interceptors, observers: observers ?? self.observers,
              rules: rules ?? self.rules, degrade: degrade ?? self.degrade)
    }
}

/// The hooks' side of the mediator: their snapshot, and the writer lock
/// (registration of hooks never waits for the registry's writers).
final class HookState: @unchecked Sendable {
    // @unchecked: `published` is atomic; the rest is behind `lock`.

    /// `Unmanaged<Hooks>` bits holding one reference, or 0 when there are
    /// no hooks: the one word every call reads.
    let published = Atomic<UInt>(0)
    let lock = Lock()
    private var current = Hooks.empty
    /// Hook ids count across every mediator of the process, so that an id
    /// one mediator gave never names another's hook: removing it there is
    /// refused (false, `SB_ENOTFOUND`) instead of removing a stranger.
    private static let nextID = Atomic<UInt64>(1)
    /// Whether a call may skip interceptors (``CallOptions/bypassInterceptors``).
    let allowsBypass = Atomic<Bool>(true)

    deinit {
        let bits = published.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Hooks>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// The current snapshot, borrowed: valid while the caller stays pinned.
    @inline(__always)
    func pinned() -> Hooks? {
        let bits = published.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged<Hooks>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Applies `change` to the snapshot and publishes the result; then
    /// `changed` makes a new generation (plans name the degrade handler and
    /// what rules decide) before the old snapshot is retired.
    func update<R>(_ epochs: EpochDomain, changed: () -> Void, _ change: (Hooks, () -> UInt64) -> (Hooks, R)) -> R {
        defer { epochs.collect(wait: true) }
        return lock.withLock {
            let (next, result) = change(current, { Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue })
            current = next
            let bits = next.isEmpty ? 0 : UInt(bitPattern: Unmanaged.passRetained(next).toOpaque())
            let old = published.exchange(bits, ordering: .acquiringAndReleasing)
            changed()
            if old != 0 { epochs.retire(Borrowed<Hooks>(bits: old).unmanaged) }
            return result
        }
    }

    var snapshot: Hooks { lock.withLock { current } }
}
