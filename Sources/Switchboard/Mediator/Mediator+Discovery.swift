#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// Finding targets that were never registered: Swift `Target_<Name>` classes by
// type name (the counterpart of CTMediator's NSClassFromString), then the
// providers other faces add (C plugins, Lua search paths). What is found is
// kept in the registry, so the search runs once per name.

extension Mediator {
    /// The entry for `key` after looking for its class, or nil when there is
    /// neither an entry nor a class. The caller is pinned; the search runs
    /// unpinned, so references borrowed before are stale after. A failed search
    /// (a provider's error) is not remembered.
    ///
    /// A search for `key` already in progress on this thread (a discoverer,
    /// or a Lua file being loaded, that performs the target it is asked
    /// for) is not started again: that call fails with `.rejected`. Without
    /// this, each level of the recursion would ask again, and so would the
    /// fallback of each level: work that doubles with every level.
    ///
    /// A name the stable providers (C plugins) were asked for in vain is not
    /// asked of them again until a generation changes (``MissCache``); when
    /// nothing else could find it (no Swift type to look for, no discoverer),
    /// the search ends there, without building anything; `absent`: the
    /// caller, pinned, has just found no entry for `key`, which is then not
    /// looked for again.
    func discoverEntry(_ key: NameRef, absent: Bool = false) -> Result<Unmanaged<TargetEntry>?, SwitchboardError> {
        // A handler's name is nothing to search for (and, with its NUL byte,
        // would reach a C discoverer cut short).
        if HandlerName.isHandler(key) { return .success(targets.find(key)) }
        let generation = discoveryGeneration.load(ordering: .acquiring)
        let stamp = MissCache.Stamp(discovery: generation, registry: self.generation.load(ordering: .acquiring))
        let stableMissed = misses.contains(key, stamp)
        let swiftTypes = mightBeSwiftType(key)
        if searchEndsAtOnce(stableMissed: stableMissed, swiftTypes: swiftTypes) {
            return .success(absent ? nil : targets.find(key))
        }
        let name = key.string
        if DiscoveriesInProgress.contains(self, name) {
            return .failure(.rejected("discovery loop: \(Value.string(name)) is being looked for on this thread "
                                      + "already (does a discoverer or a Target_ file perform the target it is "
                                      + "asked for?); its search does not start again"))
        }
        // Searched in vain already while the outermost search on this thread
        // runs: the fallback's NoTargetAction, asked at every level of a
        // discoverer's recursion, would otherwise start a search each time.
        if DiscoveriesInProgress.missed(self, name) { return .success(targets.find(key)) }
        // Searching may run user code (a Lua file), so no lock is held here,
        // and the thread is not pinned: a discoverer that runs for long
        // holds back no reclamation. (What the caller borrowed before is
        // read again after: see `lookup`.)
        let found: TargetClass?
        let complete: Bool
        do {
            (found, complete) = try pins.unpinned { () throws(SwitchboardError) -> (TargetClass?, Bool) in
                try DiscoveriesInProgress.with(self, name) { () throws(SwitchboardError) -> (TargetClass?, Bool) in
                    try searchClass(named: name, swiftTypes: swiftTypes, stableProviders: !stableMissed)
                }
            }
            if found == nil { DiscoveriesInProgress.recordMiss(self, name) }
        } catch {
            return .failure(error)
        }
        if found == nil {
            if complete && !stableMissed { misses.insert(key, stamp) }
            // Nothing to write: no class, and no entry whose search to note.
            if targets.find(key) == nil { return .success(nil) }
        }
        return .success(write {
            if let current = targets.find(key) {
                let entry = current.takeUnretainedValue()
                if entry.targetClass != nil || entry.searchedAt == generation { return current }
                let updated = entry.with(targetClass: found, searchedAt: generation)
                targets.put(updated)
                return Unmanaged.passUnretained(updated)
            }
            guard let found else { return nil }
            let entry = TargetEntry(name: name, targetClass: found, searchedAt: generation)
            targets.put(entry)
            return Unmanaged.passUnretained(entry)
        })
    }

    /// The stable providers were asked for the name in vain in this
    /// generation (`stableMissed`), no Swift type could have it
    /// (`swiftTypes` false), and no provider would be asked: none may
    /// answer differently now (a discoverer), and no search runs on this
    /// thread (whose misses `DiscoveriesInProgress` keeps).
    @inline(__always)
    private func searchEndsAtOnce(stableMissed: Bool, swiftTypes: Bool) -> Bool {
        stableMissed && !swiftTypes && unstableProviders.load(ordering: .acquiring) == 0
            && !DiscoveriesInProgress.anyOnThisThread
    }

    /// True when `entry` has no class and discovery might find one now (and
    /// is not looking for it on this thread already: the entry is what there
    /// is until that search ends).
    @inline(__always)
    func mightDiscoverClass(for entry: TargetEntry) -> Bool {
        entry.targetClass == nil && entry.searchedAt != discoveryGeneration.load(ordering: .relaxed)
            && !DiscoveriesInProgress.contains(self, entry.name.string)
    }

    /// Whether `key` could name a Swift `Target_<Name>` type: modules are
    /// searched, or the name is qualified (has a dot).
    @inline(__always)
    private func mightBeSwiftType(_ key: NameRef) -> Bool {
        searchesModules.load(ordering: .acquiring) || key.containsDot
    }

    /// The class called `name`: a Swift type (if `swiftTypes`), then what
    /// providers find (the stable ones only if `stableProviders`). `complete`:
    /// no provider registered the name on the way (a search that found
    /// nothing asked everyone it was to ask).
    private func searchClass(named name: String, swiftTypes: Bool,
                             stableProviders: Bool) throws(SwitchboardError) -> (TargetClass?, complete: Bool) {
        if swiftTypes, let (type, qualifiedName) = swiftTargetType(named: name) {
            let module = qualifiedName.utf8.firstIndex(of: UInt8(ascii: ".")).map { String(qualifiedName[..<$0]) }
            return (TargetClass(swiftType: type, origin: "Swift type \(qualifiedName)", discoveredModule: module,
                                for: self), true)
        }
        // A provider that registers what it finds itself (a C discoverer, the
        // Lua module's sb.path) ends the search as one that returns a class
        // does: a later one would replace what the first registered.
        let before = entryAddress(name)
        for provider in providers where stableProviders || !provider.isStable {
            if let foreign = try provider.targetClass(named: name) {
                return (TargetClass(foreign: foreign), true)
            }
            if entryAddress(name) != before { return (nil, false) }
        }
        return (nil, true)
    }

    /// The address of the entry under `name`, or nil: only compared, never
    /// followed. The search runs unpinned, so the table is read pinned here
    /// (a registration may grow it and retire the cells being read).
    private func entryAddress(_ name: String) -> UnsafeMutableRawPointer? {
        epochs.withPinned { withNameRef(name) { targets.find($0)?.toOpaque() } }
    }

    /// `Module.Target_<Name>` for each module in `modules`, or only the module
    /// a qualified name `Module.Name` gives.
    private func swiftTargetType(named name: String) -> (any Target.Type, String)? {
        let candidates: [String]
        if let dot = name.lastIndex(of: ".") {
            candidates = ["\(name[..<dot]).Target_\(name[name.index(after: dot)...])"]
        } else {
            candidates = modules.map { "\($0).Target_\(name)" }
        }
        for candidate in candidates where Self.isPlainTypePath(candidate) {
            if let type = _typeByName(candidate) as? any Target.Type {
                return (type, candidate)
            }
        }
        return nil
    }

    /// Only `Identifier.Identifier` reaches the runtime's type lookup: names
    /// can come from URLs, and the demangler has no business parsing them.
    private static func isPlainTypePath(_ path: String) -> Bool {
        let parts = path.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { part in
            guard let first = part.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return part.allSatisfy { byte in
                byte == UInt8(ascii: "_")
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
    }
}

/// The searches in progress on each thread: which mediator is looking for
/// which name (by its bytes), and which names were searched in vain since the
/// outermost of them began. Only searches that miss the registry come here.
enum DiscoveriesInProgress {
    private struct Key: Hashable {
        let mediator: ObjectIdentifier
        let name: ExactName
    }

    /// One per thread while a search runs on it; gone when the outermost ends.
    private final class Searches {
        var active = Set<Key>()
        var missed = Set<Key>()
    }

    private static var current: Searches? {
        ThreadLocal.discoveries.value.map { Unmanaged<Searches>.fromOpaque($0).takeUnretainedValue() }
    }

    /// How many threads have a search in progress. Mostly none: then no
    /// thread's key needs reading (a missed call asks on every call).
    private static let threadsSearching = Atomic<Int>(0)

    /// Whether any search is in progress on this thread. (Relaxed: a
    /// thread always sees its own count's changes.)
    static var anyOnThisThread: Bool {
        threadsSearching.load(ordering: .relaxed) != 0 && ThreadLocal.discoveries.value != nil
    }

    /// Whether `mediator` is looking for `name` on this thread.
    static func contains(_ mediator: Mediator, _ name: String) -> Bool {
        current?.active.contains(Key(mediator: ObjectIdentifier(mediator), name: ExactName(name))) ?? false
    }

    /// Whether `mediator` searched for `name` in vain on this thread since
    /// the outermost search in progress began.
    static func missed(_ mediator: Mediator, _ name: String) -> Bool {
        current?.missed.contains(Key(mediator: ObjectIdentifier(mediator), name: ExactName(name))) ?? false
    }

    /// Remembers a search that found nothing, while another search is in
    /// progress on this thread (after the outermost one, nothing is kept).
    static func recordMiss(_ mediator: Mediator, _ name: String) {
        current?.missed.insert(Key(mediator: ObjectIdentifier(mediator), name: ExactName(name)))
    }

    /// Runs `body` as the search of `mediator` for `name` on this thread.
    static func with<R>(_ mediator: Mediator, _ name: String,
                        _ body: () throws(SwitchboardError) -> R) throws(SwitchboardError) -> R {
        let outermost = current == nil
        let searches = current ?? Searches()
        if outermost {
            threadsSearching.add(1, ordering: .relaxed)
            ThreadLocal.discoveries.value = Unmanaged.passRetained(searches).toOpaque()
        }
        let search = Key(mediator: ObjectIdentifier(mediator), name: ExactName(name))
        searches.active.insert(search)
        defer {
            searches.active.remove(search)
            if outermost {
                ThreadLocal.discoveries.value = nil
                threadsSearching.subtract(1, ordering: .relaxed)
                Unmanaged.passUnretained(searches).release()
            }
        }
        return try body()
    }
}

extension TargetClass {
    /// The class another face describes. A repeated action name keeps its
    /// first definition, as a C table read top to bottom would.
    convenience init(foreign: ForeignTargetClass) {
        var seen = Set<ExactName>()
        let entries = foreign.actions.compactMap { action -> ActionEntry? in
            guard seen.insert(ExactName(action.name)).inserted else { return nil }
            return ActionEntry(name: action.name, body: .foreign(action.function),
                               contract: foreign.contracts[ExactName(action.name)]?.usable(for: action.name))
        }
        let create = foreign.create
        let destroy = foreign.destroy
        self.init(origin: foreign.origin, actions: ActionMap(entries),
                  needsInstance: !foreign.stateless) { () throws(SwitchboardError) -> TargetInstance in
            TargetInstance(state: try create(), destroy: destroy)
        }
    }
}
