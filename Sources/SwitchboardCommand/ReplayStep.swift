import ArgumentParser
import CSwitchboard

/// A step of a trace of format 2 (ScenarioAPI/record.lua writes them), checked
/// before anything is replayed: what replay_steps.lua reads is there and of
/// its type.
///
///     {"trace":2,"time":...,"script":...,"scenario":...,"seq":4,"in":3,
///      "op":"perform","args":["A","cell",{"identifier":"Row"},{"cache":true}],
///      "form":"coroutine","returns":[{"cell":"cell 1"}]}
///
/// `seq` orders the steps as they started; `in` names the step (a call of
/// a function of the script's, "op":"invoked", with its `fn` number) the
/// step was taken in; a step has `returns` (what the function returned)
/// or `raised`.
enum ReplayStep {
    /// The step's name for the report; a problem (a usage error naming the line) if it is not one.
    static func check(_ value: OpaquePointer?, _ problem: (String) -> ValidationError) throws -> String {
        func field(_ key: String) -> OpaquePointer? { sb_dict_get(value, key) }
        func string(_ v: OpaquePointer?) -> String? {
            guard let v, sb_value_type(v) == SB_STRING, let text = sb_value_get_string(v, nil) else { return nil }
            return String(cString: text)
        }
        func positive(_ key: String) -> Bool {
            guard let v = field(key), sb_value_type(v) == SB_INT else { return false }
            var n: Int64 = 0
            _ = sb_value_get_int(v, &n)
            return n >= 1
        }
        guard let op = string(field("op")), !op.isEmpty, op.utf8.count <= 64,
              op.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }) else {
            throw problem("\"op\" must be the name of a function of the module (lower-case letters and _)")
        }
        guard positive("seq") else { throw problem("a step needs \"seq\", an integer of 1 or more") }
        if field("in") != nil && !positive("in") { throw problem("\"in\" must be an integer of 1 or more") }
        guard let args = field("args"), sb_value_type(args) == SB_ARRAY else { throw problem("a step needs \"args\", an array") }
        if let returns = field("returns") {
            guard sb_value_type(returns) == SB_ARRAY else { throw problem("\"returns\" must be an array") }
        } else if field("raised") == nil {
            throw problem("a step needs \"returns\" or \"raised\"")
        }
        if let form = field("form"), string(form) != "coroutine" { throw problem("\"form\" must be \"coroutine\"") }
        func arg(_ i: Int) -> String? { string(sb_array_get(args, i)) }
        switch op {
        case "invoked":
            guard positive("fn") else { throw problem("an \"invoked\" step needs \"fn\", an integer of 1 or more") }
            return "a function of the script's"
        case "perform", "perform_async":
            if let target = arg(0), let action = arg(1) { return "\(target).\(action)" }
        case "open":
            if let url = arg(0) { return "open \(url)" }
        default:
            break
        }
        return "sb.\(op)" + (arg(0).map { " \($0)" } ?? "")
    }
}
