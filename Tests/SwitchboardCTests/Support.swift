import CSwitchboard

// Helpers shared by the suites that compare a fast path with the general one.

/// Lines a C callback appends (reached through its userdata), for a test to compare.
final class LineLog { var lines: [String] = [] }

/// `value` as JSON text, or "<none>" for NULL or a value JSON cannot spell.
func jsonText(_ value: OpaquePointer?) -> String {
    guard let value, let text = sb_json_encode(value) else { return "<none>" }
    defer { sb_memory_free(text) }
    return String(cString: text)
}

/// What one call did, as its caller and its callbacks saw it: the status,
/// the result as JSON, the error message ("" on success) and the lines the
/// callbacks (fallbacks, discoverers, observers) logged.
struct CallOutcome: Equatable, CustomStringConvertible {
    var status: UInt32
    var result: String
    var message: String
    var logged: [String]
    var description: String { "\(status) \(result) \(message) \(logged)" }
}
