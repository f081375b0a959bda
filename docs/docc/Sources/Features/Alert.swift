// The feature code of the DocC article "Declaring Contracts"
// (Sources/Switchboard/Switchboard.docc/DeclaringContracts.md shows it).
import Switchboard

final class Target_Alert: Target {
    static let actions: Actions<Target_Alert> = [
        // The contract below has checked the params: "message" is a string
        // and "times" an int (1 when the caller left it out).
        "show": { _, params in
            let message = params["message"]?.string ?? ""
            let times = params["times"]?.intValue ?? 0
            return .string(Array(repeating: message, count: times).joined(separator: " "))
        },
    ]
    static let contracts: Contracts = [
        "show": """
            message: string   -- the text to show
            times: int = 1    -- how often to show it
            -> string
            """,
    ]
}
