// Fuzzes the URL entry through the C API, with the raw bytes a C caller could
// pass: UTF-8 validation, strict parsing and decoding, the policy, scheme
// connectors and pattern matching. The first byte picks the mode:
//   even: open the rest as a URL;
//   odd:  add the rest as a route pattern, open a URL made from it, remove it.
// Invariants: no crash, no leak (ASan), nothing answers a native action,
// handlers answer only through their scheme or pattern, and the registry
// does not grow.
import CSwitchboard
// The sb_ functions come from the SwitchboardC product, linked in; only the
// C declarations are imported (importing both would make every name ambiguous).

/// One mediator for the whole run, with targets, a pattern set and a forward
/// connector to route to.
// Set up once and never changed afterwards (libFuzzer calls in one thread).
private nonisolated(unsafe) let mediator: OpaquePointer = {
    let m = sb_mediator_new()!
    let echo: sb_fn = { _, args, out in
        out?.pointee = sb_value_retain(args)
        return SB_OK
    }
    let native: sb_fn = { _, _, _ in
        fatalError("a URL reached a native action")
    }
    _ = sb_action_register(m, "T", "echo", echo, nil, nil)
    _ = sb_action_register(m, "T", "nativeSecret", native, nil, nil)
    _ = sb_action_register(m, "NoTargetAction", "response", echo, nil, nil)
    // Handlers are reached through their scheme or pattern only (no name
    // spelled in a URL reaches them): the https handler sees https URLs,
    // the pattern's handler an int id.
    let https: sb_fn = { _, args, out in
        let url = String(cString: sb_value_get_string(sb_dict_get(args, "url"), nil))
        precondition(url.lowercased().hasPrefix("https:"), "the https handler was reached by \(url)")
        out?.pointee = sb_value_retain(args)
        return SB_OK
    }
    let typed: sb_fn = { _, args, out in
        precondition(sb_value_type(sb_dict_get(args, "id")) == SB_INT, "a handler of <int:id> got another id")
        out?.pointee = sb_value_retain(args)
        return SB_OK
    }
    _ = sb_scheme_register(m, "https", https, nil, nil)
    _ = sb_url_pattern_add_handler(m, "app://h/<int:id>", typed, nil, nil)
    for pattern in ["app://u/:id/profile", "app://i/<int:id>(/:tab)", "app://f/<path:rest>", "app://w/*",
                    "app://secret/*"] {
        _ = sb_url_pattern_add(m, pattern, "T", pattern.hasPrefix("app://secret") ? "nativeSecret" : "echo")
    }
    return m
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    var text = Array(UnsafeBufferPointer(start: data + 1, count: size - 1).prefix { $0 != 0 })
    text.append(0)
    text.withUnsafeBufferPointer { bytes in
        let string = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
        var out: OpaquePointer?
        if data[0] % 2 == 0 {
            _ = sb_url_open(mediator, string, nil, &out)
            sb_value_release(out)
        } else if sb_url_pattern_add(mediator, string, "T", "echo") == SB_OK {
            // A URL the pattern might match: its text with placeholders filled.
            let url = String(cString: string).replacingPlaceholders()
            _ = url.withCString { sb_url_open(mediator, $0, nil, &out) }
            sb_value_release(out)
            precondition(sb_url_pattern_remove(mediator, string) == SB_OK, "an added pattern could not be removed")
        }
    }
    return 0
}

private extension String {
    /// A URL a pattern could match: groups kept, placeholders filled in
    /// (`:x` → `1`, `<int:x>` → `2`, `<path:x>` → `a/b`, `*` → `w`).
    func replacingPlaceholders() -> String {
        filter { $0 != "(" && $0 != ")" }
            .split(separator: "/", omittingEmptySubsequences: false)
            .map { segment -> String in
                if segment.hasPrefix(":") { return "1" }
                if segment.hasPrefix("<int:") { return "2" }
                if segment.hasPrefix("<path:") { return "a/b" }
                if segment.hasPrefix("<") { return "s" }
                return segment == "*" ? "w" : String(segment)
            }
            .joined(separator: "/")
    }
}
