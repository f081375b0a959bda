import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Protocol-class services (BeeHive's model), the third classic way to
// decouple modules beside URLs and Target-Action: a caller asks for an
// implementation of a Swift protocol and never names the type behind it.
//
//     protocol Payments: Sendable { func charge(_ cents: Int) -> Bool }
//     mediator.register(Payments.self) { StripePayments() }
//     mediator.service(Payments.self)?.charge(300)

/// How long a service's instance lives.
public enum ServiceLifetime: String, Sendable {
    /// One instance, made on first use and kept until the registration is
    /// replaced or removed.
    case singleton
    /// A new instance for each `service(_:)` call.
    case perCall
}

extension Mediator {
    /// Registers `make` as the implementation of `service` (usually a
    /// protocol: `Payments.self`). Replaces an earlier registration of the
    /// same type, and its singleton.
    public func register<S: Sendable>(_ service: S.Type, lifetime: ServiceLifetime = .singleton,
                                      _ make: @escaping @Sendable () -> S) {
        services.put(ServiceEntry(name: String(reflecting: service), lifetime: lifetime) { make() },
                     for: ObjectIdentifier(service))
    }

    /// An implementation of `service`, or nil if none is registered. A
    /// singleton is made on first use, outside any lock (so `make` may ask
    /// for other services); if two threads race to make it, one instance
    /// wins and both get it. A factory that asks, directly or through other
    /// factories, for the service it is making gets nil: a cycle has no
    /// answer, and asking again would recurse until the stack overflows. (A
    /// singleton made while a cycle answered nil is kept like any other.)
    public func service<S: Sendable>(_ service: S.Type) -> S? {
        guard let entry = services.entry(for: ObjectIdentifier(service)) else { return nil }
        return entry.instance() as? S
    }

    /// Removes the registration of `service`. Returns whether there was one.
    @discardableResult
    public func unregister<S>(_ service: S.Type) -> Bool {
        services.remove(ObjectIdentifier(service))
    }

    /// The catalogue's view, by name: Swift's typed services
    /// `{"name", "kind": "protocol", "lifetime", "made"}` and the named
    /// services of every face `{"name", "kind": "interface", "actions",
    /// "contracts", "target"}` (Mediator+Interfaces.swift).
    var servicesCatalogue: [Value] {
        let typed: [(name: String, value: Value)] = services.all.map { entry in
            (entry.name, ["name": .string(entry.name), "kind": "protocol", "lifetime": .string(entry.lifetime.rawValue),
                          "made": .bool(entry.isMade)])
        }
        return (typed + interfacesCatalogue).sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }.map(\.value)
    }
}

/// A mediator's services, by type.
final class ServiceRegistry: Sendable {
    private let entries = Guarded<[ObjectIdentifier: ServiceEntry]>([:])
    /// The named services (interfaces) of every face.
    let interfaces = ServiceInterfaceTable()

    func put(_ entry: ServiceEntry, for key: ObjectIdentifier) { entries.withLock { $0[key] = entry } }
    func entry(for key: ObjectIdentifier) -> ServiceEntry? { entries.withLock { $0[key] } }
    func remove(_ key: ObjectIdentifier) -> Bool { entries.withLock { $0.removeValue(forKey: key) != nil } }
    var all: [ServiceEntry] { entries.withLock { Array($0.values) } }
}

/// One registered service: how to make it, and its singleton once made.
final class ServiceEntry: Sendable {
    let name: String
    let lifetime: ServiceLifetime
    private let make: @Sendable () -> any Sendable
    private let made = Guarded<(any Sendable)?>(nil)
    /// The threads running `make` now, to tell a cycle from a race.
    private let makers = Guarded<Set<pthread_t>>([])

    init(name: String, lifetime: ServiceLifetime, make: @escaping @Sendable () -> any Sendable) {
        self.name = name
        self.lifetime = lifetime
        self.make = make
    }

    var isMade: Bool { made.withLock { $0 != nil } }

    /// The instance, or nil when this thread is already making one (a cycle).
    func instance() -> (any Sendable)? {
        if lifetime == .singleton, let existing = made.withLock({ $0 }) { return existing }
        let me = pthread_self()
        guard makers.withLock({ $0.insert(me).inserted }) else { return nil }
        let fresh = make()
        makers.withLock { _ = $0.remove(me) }
        guard lifetime == .singleton else { return fresh }
        return made.withLock { slot in
            if let winner = slot { return winner }
            slot = fresh
            return fresh
        }
    }
}
