// Fuzzes the URL entry through the C API, with the raw bytes a C caller could
// pass: UTF-8 validation, strict parsing and decoding, the policy, scheme
// connectors and pattern matching. The first byte picks the mode:
//   even:      open the rest as a URL;
//   1 (mod 4): add the rest as a route pattern, open a URL made from it, remove it;
//   3 (mod 4): the URL builder against the matcher: the rest up to a tab is a
//              pattern, the bytes after it make a value of its type for each
//              placeholder (and a query value); when sb_url_build makes a URL,
//              looking it up in a mediator that has only that pattern must
//              find the pattern and give back every value (see buildRoundTrip).
// Invariants: no crash, no leak (ASan), nothing answers a native action,
// handlers answer only through their scheme or pattern, the registry does
// not grow, and a built URL matches back.
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
        } else if data[0] % 4 == 3 {
            buildRoundTrip(Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
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

/// Characters values are made of: ASCII that URLs reserve or forbid, and beyond.
private let alphabet = Array("ab09-._~ /?#[]@!$&'()*+,;=%:<>\"{}|\\^`éü中😀").map(String.init)

/// Values drawn from the fuzzer's bytes, in order (wrapping around).
private struct Source {
    let bytes: [UInt8]
    var at = 0

    mutating func next() -> UInt8 {
        guard !bytes.isEmpty else { return 0 }
        defer { at += 1 }
        return bytes[at % bytes.count]
    }

    mutating func text() -> String {
        let count = 1 + Int(next() % 6)
        let text = (0..<count).map { _ in alphabet[Int(next()) % alphabet.count] }.joined()
        return text == "." || text == ".." ? text + "x" : text
    }
}

/// The pattern's placeholders as (type, name): groups' too (a value for
/// each; the builder refuses what does not fit).
private func placeholders(_ pattern: String) -> [(type: String, name: String)] {
    let bytes = Array(pattern.utf8)
    guard let at = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0..<($0 + 3)].elementsEqual("://".utf8) }) else {
        return []
    }
    let body = String(decoding: bytes[(at + 3)...], as: UTF8.self)
    return body.filter { $0 != "(" && $0 != ")" }.split(separator: "/").compactMap { segment in
        if segment == "*" { return ("*", "*") }
        if segment.hasPrefix(":") { return ("string", String(segment.dropFirst())) }
        guard segment.hasPrefix("<"), segment.hasSuffix(">"), segment.count > 2 else { return nil }
        let inner = segment.dropFirst().dropLast()
        guard let colon = inner.firstIndex(of: ":") else { return ("string", String(inner)) }
        return (String(inner[..<colon]), String(inner[inner.index(after: colon)...]))
    }
}

/// Builds a URL from the pattern before the first tab and values made from
/// the bytes after it, then looks it up in a mediator holding only that
/// pattern: it must match the pattern and give every value back.
private func buildRoundTrip(_ input: [UInt8]) {
    let split = input.firstIndex(of: 9) ?? input.count
    guard let pattern = String(validating: input[..<split], as: UTF8.self), !pattern.contains("\0") else { return }
    var source = Source(bytes: Array(input[min(split + 1, input.count)...]))
    let params = sb_dict_new()!
    defer { sb_value_release(params) }
    var expected: [(String, OpaquePointer)] = []
    defer { expected.forEach { sb_value_release($0.1) } }
    /// `value` (ours) goes into the params (which take a reference of
    /// their own); `expect` (ours), or else `value`, is what must come back.
    func set(_ key: String, _ value: OpaquePointer, expect: OpaquePointer? = nil) {
        _ = sb_dict_set(params, key, value)
        if let expect {
            sb_value_release(value)
            expected.append((key, expect))
        } else {
            expected.append((key, value))
        }
    }
    let holders = placeholders(pattern)
    for (type, name) in holders {
        switch type {
        case "int":
            var n: Int64 = 0
            for _ in 0..<8 { n = n << 8 | Int64(source.next()) }
            set(name, sb_int(n))
        case "float":
            var bits: UInt64 = 0
            for _ in 0..<8 { bits = bits << 8 | UInt64(source.next()) }
            let d = Double(bitPattern: bits)
            set(name, sb_double(d.isFinite ? d : Double(bits % 1_000_000)))
        case "uuid":
            let hex = (0..<32).map { _ in String(source.next() % 16, radix: 16, uppercase: source.next() % 2 == 0) }.joined()
            let uuid = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
                String(hex.dropFirst(r.lowerBound).prefix(r.count)) }.joined(separator: "-")
            set(name, sb_string(uuid), expect: sb_string(uuid.lowercased()))
        case "path":
            set(name, sb_string((0...Int(source.next() % 3)).map { _ in source.text().replacingSlashes() }.joined(separator: "/")))
        case "*":
            let array = sb_array_new()!
            for _ in 0..<Int(source.next() % 4) { _ = sb_array_append_new(array, sb_string(source.text())) }
            set("*", array)
        default:
            set(name, sb_string(source.text()))
        }
    }
    if !holders.contains(where: { $0.name == "q" }) { set("q", sb_string(source.text())) }
    var url: UnsafeMutablePointer<CChar>?
    guard sb_url_build(mediator, pattern, params, &url) == SB_OK, let url else { return }
    defer { sb_memory_free(url) }
    let only = sb_mediator_new()!
    defer { sb_mediator_free(only) }
    precondition(sb_url_pattern_add(only, pattern, "T", "echo") == SB_OK, "a pattern the builder took was refused: \(pattern)")
    var found: OpaquePointer?
    let status = sb_url_lookup(only, url, &found)
    defer { sb_value_release(found) }
    precondition(status == SB_OK, "the built URL \(String(cString: url)) does not match \(pattern): \(String(cString: sb_error_message()))")
    let matched = String(cString: sb_value_get_string(sb_dict_get(found, "pattern"), nil))
    precondition(matched == pattern, "the built URL \(String(cString: url)) matched \(matched), not \(pattern)")
    let back = sb_dict_get(found, "params")
    for (key, value) in expected {
        precondition(sb_value_equal(sb_dict_get(back, key), value) != 0,
                     "the built URL \(String(cString: url)) gave \(key) back changed (pattern \(pattern))")
    }
}

private extension String {
    func replacingSlashes() -> String { String(map { $0 == "/" ? "x" : $0 }) }
}
