// Target classes another face defines at run time (C's sb_class_register, the
// Lua module's Target_<Name>.lua files that return a constructor): what a
// plugin's Target_<Name> table is, registered by name instead of found.

extension Mediator {
    /// Registers `foreign` as the class of `name`, as ``register(_:as:)``
    /// does for a Swift `Target` type: it replaces a class registered or
    /// discovered under that name (and its cached instance), and the actions
    /// registered by name stay, found first.
    @_spi(Faces) public func register(foreignClass foreign: ForeignTargetClass, as name: String) throws(SwitchboardError) {
        try Self.check(name, kind: "target")
        guard !foreign.actions.isEmpty else { throw .invalidArgument("target class \(name) has no actions") }
        for action in foreign.actions { try Self.check(action.name, kind: "action") }
        let targetClass = TargetClass(foreign: foreign)
        write {
            let registered = withNameRef(name) { targets.find($0) }?.takeUnretainedValue().registered ?? .empty
            targets.put(TargetEntry(name: name, registered: registered, targetClass: targetClass, searchedAt: .max))
        }
    }

    /// Removes the class of `target` only if it is still the caller's:
    /// `isMine` is shown the foreign function of the class's first action
    /// (under the registry's lock: it must only compare). Registered actions
    /// stay; a discoverable target is looked for again on its next use.
    /// Returns false if `target` has no class, or not the caller's.
    @_spi(Faces) public func unregisterClass(target: String, ifOwned isMine: (ForeignFunction) -> Bool) -> Bool {
        guard !HandlerName.isHandler(target) else { return false }
        return write {
            withNameRef(target) { key in
                guard let entry = targets.find(key)?.takeUnretainedValue(),
                      let first = entry.targetClass?.actions.entries.first?.foreign,
                      isMine(first.takeUnretainedValue()) else { return false }
                if entry.registered.isEmpty {
                    targets.remove(key)
                } else {
                    // A new cache cell: the class's cached instance goes with the old entry.
                    targets.put(TargetEntry(name: target, registered: entry.registered))
                }
                return true
            }
        }
    }
}
