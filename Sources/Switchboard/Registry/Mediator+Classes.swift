// Target classes another face defines at run time (C's sb_register_class, the
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
}
