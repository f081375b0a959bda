// Targets that tests reach only by name: nothing imports these types.
import Switchboard

/// Answers "B" — module A has a class of the same name that answers "A".
public final class Target_Shared: Target {
    public init() {}
    public static let actions: Actions<Target_Shared> = [
        "whoami": { _, _ in "FixtureTargetsB" },
    ]
}

/// Only in this module.
public final class Target_OnlyB: Target {
    public init() {}
    public static let actions: Actions<Target_OnlyB> = [
        "add": { _, params in
            guard let a = params["a"]?.int, let b = params["b"]?.int else {
                throw SwitchboardError.invalidArgument("add needs int params a and b")
            }
            return .int(a + b)
        },
    ]
}

/// A class with the right name that is not a Target: discovery must skip it.
public final class Target_NotATarget {
    public init() {}
}
