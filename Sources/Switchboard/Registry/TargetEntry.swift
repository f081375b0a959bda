import Synchronization

/// A kind of target that has instances: a Swift `Target` class, a C plugin's
/// `Target_<Name>` table, a Lua `Target_<Name>.lua` file. CTMediator's
/// "target class".
final class TargetClass: Sendable {
    /// Where it came from, for listings: "Swift type M.Target_A", a plugin path.
    let origin: String
    let actions: ActionMap
    /// False for a class whose instances would hold nothing (a C plugin table
    /// without create or destroy): its actions run without one, so no call
    /// makes, caches or destroys an instance.
    let needsInstance: Bool
    /// Makes one instance (CTMediator's `[[cls alloc] init]`).
    let makeInstance: @Sendable () throws(SwitchboardError) -> TargetInstance
    /// For a Swift type found by discovery, its module (URLs reach it only
    /// while the mediator's `modules` lists it); nil otherwise.
    let discoveredModule: String?

    init(origin: String, actions: ActionMap, needsInstance: Bool = true, discoveredModule: String? = nil,
         makeInstance: @escaping @Sendable () throws(SwitchboardError) -> TargetInstance) {
        self.origin = origin
        self.actions = actions
        self.needsInstance = needsInstance
        self.discoveredModule = discoveredModule
        self.makeInstance = makeInstance
    }
}

/// One instance of a target class: a Swift object, or a foreign state pointer
/// that is destroyed with it.
final class TargetInstance: @unchecked Sendable {
    // @unchecked: immutable; `state` is owned by this instance and handed only
    // to the class's own actions, as their userdata.

    let object: AnyObject?
    let state: UnsafeMutableRawPointer?
    private let destroy: (@Sendable (UnsafeMutableRawPointer?) -> Void)?

    init(object: AnyObject) {
        self.object = object
        self.state = nil
        self.destroy = nil
    }

    init(state: UnsafeMutableRawPointer?, destroy: @escaping @Sendable (UnsafeMutableRawPointer?) -> Void) {
        self.object = nil
        self.state = state
        self.destroy = destroy
    }

    deinit { destroy?(state) }
}

/// Where a cached instance lives. Shared by every version of a target's
/// entry, so registering one more action keeps the cached instance.
final class CacheCell: Sendable {
    /// `Unmanaged<TargetInstance>` bits holding one strong reference, or 0.
    let slot = Atomic<UInt>(0)

    deinit {
        let bits = slot.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<TargetInstance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }
}

/// Everything the mediator knows under one target name. Immutable: a change
/// publishes a new entry and retires the old one.
final class TargetEntry: @unchecked Sendable {
    // @unchecked: immutable after init; `name` owns its bytes.

    let name: OwnedName
    /// Actions registered by name (closures, C functions, Lua functions).
    /// They are looked up before the class's own actions.
    let registered: ActionMap
    /// The discovered or registered class, if any.
    let targetClass: TargetClass?
    /// Its actions, borrowed (`targetClass` owns them): reading them through
    /// this view retains nothing on the way to an action.
    let classActions: Unmanaged<ActionMap>?
    /// `targetClass?.needsInstance`, read without touching the class.
    let classNeedsInstance: Bool
    /// The discovery generation in which a class was last looked for;
    /// 0 when it never was.
    let searchedAt: UInt64
    let cache: CacheCell

    init(name: OwnedName, registered: ActionMap, targetClass: TargetClass?, searchedAt: UInt64, cache: CacheCell) {
        self.name = name
        self.registered = registered
        self.targetClass = targetClass
        self.classActions = targetClass.map { Unmanaged.passUnretained($0.actions) }
        self.classNeedsInstance = targetClass?.needsInstance ?? false
        self.searchedAt = searchedAt
        self.cache = cache
    }

    convenience init(name: String, registered: ActionMap = .empty, targetClass: TargetClass? = nil, searchedAt: UInt64 = 0) {
        self.init(name: OwnedName(name), registered: registered, targetClass: targetClass,
                  searchedAt: searchedAt, cache: CacheCell())
    }

    /// A new version of this entry with other registrations; same cache.
    func with(registered: ActionMap) -> TargetEntry {
        TargetEntry(name: OwnedName(name.string), registered: registered, targetClass: targetClass,
                    searchedAt: searchedAt, cache: cache)
    }

    /// A new version with a class found by discovery; same cache.
    func with(targetClass: TargetClass?, searchedAt: UInt64) -> TargetEntry {
        TargetEntry(name: OwnedName(name.string), registered: registered, targetClass: targetClass,
                    searchedAt: searchedAt, cache: cache)
    }

    deinit { name.free() }
}
