// The feature code of the DocC article "Awaiting Calls"
// (Sources/Switchboard/Switchboard.docc/AwaitingCalls.md shows it).
import Switchboard

final class Target_Weather: Target {
    static let actions: Actions<Target_Weather> = [:]
    // Actions that answer later: each call runs on a task of its own.
    static let asyncActions: AsyncActions<Target_Weather> = [
        "forecast": { weather, params in
            try await weather.forecast(city: params["city"]?.string ?? "nowhere")
        },
    ]

    func forecast(city: String) async throws -> Value {
        try await Task.sleep(for: .milliseconds(5))  // a network request, say
        return ["city": .string(city), "sky": "clear"]
    }
}
