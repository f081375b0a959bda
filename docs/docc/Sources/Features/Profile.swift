// The feature code of the DocC article "Calling a Feature by Name"
// (Sources/Switchboard/Switchboard.docc/CallingByName.md shows it).
import Switchboard

// The Profile feature's entry point. No other module imports this one:
// callers name the target, "Profile", and its actions.
final class Target_Profile: Target {
    static let actions: Actions<Target_Profile> = [
        "show": { profile, params in
            try profile.show(user: params["user"]?.string ?? "")
        },
        // Answers for the actions this table does not have.
        "notFound": { _, _ in "Profile has no such action" },
    ]

    func show(user: String) throws -> Value {
        guard !user.isEmpty else {
            throw SwitchboardError(code: .badParams, message: "Profile.show needs a user")
        }
        return ["user": .string(user), "posts": 3]
    }
}
