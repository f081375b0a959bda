import Testing
import CSwitchboard
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// The plain URL call (Switchboard/URL/PlainURLCall.swift) against the
/// general path it stands in for: every URL of a generated set is opened
/// through `sb_url_open` twice, once as it is (the plain call is tried
/// first) and once with an empty params dict beside it (which always takes
/// the general path, and changes no params). Status, result, error message
/// and the URL observer's reports must be the same, on mediators configured
/// every way that changes what a URL may reach.
@Suite struct PlainURLCallTests {
    typealias Outcome = CallOutcome

    /// A C mediator with T.echo, T.nativeX, and (if `fallback`) a
    /// NoTargetAction that echoes its params (the URL among them), plus an
    /// observer writing to `log`.
    static func mediator(fallback: Bool, log: LineLog) -> OpaquePointer {
        let m = SwitchboardC.sb_mediator_new()!
        let echo: sb_fn = { _, args, out in
            out?.pointee = sb_value_retain(args)
            return SB_OK
        }
        #expect(sb_action_register(m, "T", "echo", echo, nil, nil) == SB_OK)
        #expect(sb_action_register(m, "T", "nativeX", echo, nil, nil) == SB_OK)
        #expect(sb_action_register(m, "t", "echo", echo, nil, nil) == SB_OK)
        if fallback { #expect(sb_action_register(m, "NoTargetAction", "response", echo, nil, nil) == SB_OK) }
        let observer: sb_fn = { userdata, args, _ in
            Unmanaged<LineLog>.fromOpaque(userdata!).takeUnretainedValue().lines.append(jsonText(args))
            return SB_OK
        }
        #expect(sb_url_set_observer(m, observer, Unmanaged.passUnretained(log).toOpaque(), nil) == SB_OK)
        return m
    }

    static func open(_ m: OpaquePointer, _ url: String, general: Bool, log: LineLog) -> Outcome {
        log.lines = []
        var out: OpaquePointer?
        let status: sb_status
        if general {
            let empty = SwitchboardC.sb_dict_new()
            defer { sb_value_release(empty) }
            var options = sb_url_options(version: SB_URL_OPTIONS_VERSION, params: empty, completion: nil,
                                         call: nil)
            status = sb_url_open(m, url, &options, &out)
        } else {
            status = sb_url_open(m, url, nil, &out)
        }
        defer { sb_value_release(out) }
        let message = status == SB_OK ? "" : String(cString: sb_error_message())
        return Outcome(status: status.rawValue, result: jsonText(out), message: message, logged: log.lines)
    }

    /// Whether the plain call answers `url` itself on `m` (it is tried
    /// alone, so this performs the URL once more).
    static func takesPlain(_ m: OpaquePointer, _ url: String) -> Bool {
        var out: OpaquePointer?
        defer { sb_value_release(out) }
        var bytes = Array(url.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            CMediator.borrow(m).takeUnretainedValue().mediator.openPlain(
                url: UnsafeBufferPointer(buffer), options: nil, out: &out, bridge: CBridge.self,
                params: CURLParams.self) != nil
        }
    }

    /// URLs made of pieces that matter to the rules (escapes of names,
    /// `native`, dots, user and port, repeated and module keys, literal
    /// bytes, bad UTF-8), then some mutated byte by byte. Deterministic.
    static func urls(count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func pick(_ items: [String]) -> String { items[Int(next() % UInt64(items.count))] }
        // Half the time a piece a plain call takes, so that many URLs are plain.
        func pick(_ items: [String], or usual: [String]) -> String { next() % 2 == 0 ? pick(usual) : pick(items) }
        let schemes = ["app", "APP", "aPp", "web", "other", "a+b", "1app", ""]
        let hosts = ["T", "t", "%54", "Missing", "NoTargetAction", "T%00", "%E4%B8%AD", "%C3%A9", "%FF", "[::1]",
                     "[::1%25en0]", ".", "..", "%2E", "%2e%2E", "u@T", "@T", "T:80", "T:", "T:99999999999999999999",
                     "p", "", "T]", "a.b-c_d~e"]
        let actions = ["echo", "nativeX", "NATIVEX", "%6Eativex", "na%74iveX", "%2Fecho", "ec%68o", "ech%6F", "echo/",
                       "echo//", "a/b", ".", "..", "%2e", "", "e%00", "%C3%A9cho", "e{x}", "e%7Bx%7D", "e|x", "missing",
                       "x%2Fy", String(repeating: "e", count: 300)]
        let queries = ["", "?", "?n=1", "?n=1&n=2", "?a&&b", "?=v", "?k=", "?k=%41", "?k=%00", "?k=%FF", "?%00=1",
                       "?switchboard.module=x", "?kCTMediatorParamsKeySwiftTargetModuleName=y",
                       "?sw%69tchboard.module=x", "?k={x}", "?k=%7Bx%7D&j={%41}", "?a=1&b=2&c=3&a=4", "?a=b=c",
                       "?+=%2B", "?k=%C3%A9", "?k=v#frag", "?&", "?k=1&K=2&k=3", "?" + (0..<40).map { "k\($0)=\($0)" }
                        .joined(separator: "&")]
        let fragments = ["", "", "", "#f", "#", "#a{b}"]
        let noise: [UInt8] = Array("%/?#[]@:&=.{} ~+-_!$'()*,;".utf8) + [0x7F, 0x80, 0xC3, 0xFF, 0x01, 0x20]
        var result: [String] = []
        for _ in 0..<count {
            var url = pick(schemes, or: ["app", "aPp"]) + "://" + pick(hosts, or: ["T", "t", "%54", "Missing"]) + "/"
                + pick(actions, or: ["echo", "ec%68o", "echo/", "missing"])
                + pick(queries, or: ["", "?n=1", "?a=1&b=%41", "?k=&&j"]) + pick(fragments)
            if next() % 8 == 0 { url = pick(schemes) + "://" + pick(hosts) + pick(queries) } // no path
            if next() % 4 == 0 {
                var bytes = Array(url.utf8)
                for _ in 0..<(1 + next() % 3) {
                    let at = Int(next() % UInt64(bytes.count + 1))
                    switch next() % 3 {
                    case 0: bytes.insert(noise[Int(next() % UInt64(noise.count))], at: at)
                    case 1 where at < bytes.count: bytes.remove(at: at)
                    default: if at < bytes.count { bytes[at] = noise[Int(next() % UInt64(noise.count))] }
                    }
                }
                // A C string: bytes that are not UTF-8 stay as they are.
                url = String(decoding: bytes, as: UTF8.self) // repairs: the C caller below gets the raw bytes
                result.append(url)
                continue
            }
            result.append(url)
        }
        return result
    }

    /// Each configuration: the plain call may take only what the general
    /// path would do the same way.
    nonisolated(unsafe) static let configurations: [(String, (OpaquePointer) -> Void)] = [
        ("default", { _ in }),
        ("policy lists targets", { m in
            let policy = try! Handle.from(["targets": ["T", "NoTargetAction"]]).pointer
            #expect(sb_url_set_policy(m, policy) == SB_OK)
            sb_value_release(policy)
        }),
        ("policy lists schemes", { m in
            #expect(sb_scheme_register(m, "other", nil, nil, nil) == SB_OK)
            let policy = try! Handle.from(["schemes": ["OTHER"]]).pointer
            #expect(sb_url_set_policy(m, policy) == SB_OK)
            sb_value_release(policy)
        }),
        ("a route pattern", { m in #expect(sb_url_pattern_add(m, "app://p/:id", "T", "echo") == SB_OK) }),
        ("a forward scheme and a second targets scheme", { m in
            let handler: sb_fn = { _, args, out in
                out?.pointee = sb_value_retain(args)
                return SB_OK
            }
            #expect(sb_scheme_register(m, "web", handler, nil, nil) == SB_OK)
            #expect(sb_scheme_register(m, "other", nil, nil, nil) == SB_OK)
        }),
        ("app disconnected", { m in #expect(sb_scheme_unregister(m, "app") == SB_OK) }),
    ]

    @Test(arguments: 0..<6, [true, false])
    func plainAnswersAsTheGeneralPath(configuration: Int, fallback: Bool) {
        let log = LineLog()
        let m = Self.mediator(fallback: fallback, log: log)
        defer { sb_mediator_free(m) }
        let (name, configure) = Self.configurations[configuration]
        configure(m)
        var plain = 0
        var checked = 0
        for url in Self.urls(count: 3_000, seed: UInt64(configuration * 2 + (fallback ? 1 : 0))) {
            let fast = Self.open(m, url, general: false, log: log)
            let general = Self.open(m, url, general: true, log: log)
            #expect(fast == general, "\(name): \(url)")
            if Self.takesPlain(m, url) { plain += 1 }
            checked += 1
        }
        // The comparison means something only if the plain call answered
        // many of them (where the configuration lets it).
        if configuration == 0 || configuration == 4 {
            #expect(plain > checked / 10, "\(name): the plain call took \(plain) of \(checked)")
        } else if configuration == 1 || configuration == 3 || configuration == 5 {
            #expect(plain == 0, "\(name): the plain call took \(plain) URLs it must leave")
        }
    }

    /// Hostile URLs, opened both ways: overlong, NUL inside (C stops
    /// there), bad UTF-8, escaped slashes and `native`, many and repeated
    /// keys.
    @Test func hostileURLsAnswerAsTheGeneralPath() {
        let log = LineLog()
        let m = Self.mediator(fallback: true, log: log)
        defer { sb_mediator_free(m) }
        let longQuery = (0..<16_000).map { "k\($0)=v" }.joined(separator: "&")
        let repeated = Array(repeating: "k=v", count: 16_000).joined(separator: "&")
        var urls = [
            "app://T/echo?" + longQuery,
            "app://T/echo?" + repeated,
            "app://T/echo?a=1&" + String(repeating: "%41", count: 20_000),
            "app://T/" + String(repeating: "e", count: 65_000),
            "app://T/" + String(repeating: "e", count: 65_530),
            "app://T/%6e%61%74%69%76%65X", "app://T/%4E%41TIVEX", "app://T/Native", "app://T/native",
            "app://T/echo%2F..%2FnativeX", "app://T%2Fecho/x", "app://%2E%2E/echo", "app://T/%2E",
            "app://T/echo?switchboard.module=Evil", "app://T/echo?%73witchboard.module=Evil",
            "app://T/echo?k=%C0%AF", "app://T/echo?k=%ED%A0%80", "app://T/echo?k=%F4%90%80%80", "app://T/ech%C3%B6",
        ]
        urls.append("app://T/echo?" + String(repeating: "x", count: RemoteURL.maximumLength)) // over the limit
        for url in urls {
            let fast = Self.open(m, url, general: false, log: log)
            let general = Self.open(m, url, general: true, log: log)
            #expect(fast == general, "\(url.prefix(80))")
        }
        // Raw bytes a Swift string cannot carry: bad UTF-8, and a NUL that
        // ends the C string early.
        for raw: [UInt8] in [Array("app://T/echo?k=".utf8) + [0xFF, 0xFE], Array("app://T/ec".utf8) + [0xC3],
                             Array("app://T/echo".utf8) + [0, 0x41], [0xE2, 0x82], Array("app://T/".utf8) + [0x80]] {
            var bytes = raw + [0]
            let outcomes = [false, true].map { general -> Outcome in
                log.lines = []
                var out: OpaquePointer?
                let status = bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                        if general {
                            let empty = SwitchboardC.sb_dict_new()
                            defer { sb_value_release(empty) }
                            var options = sb_url_options(version: SB_URL_OPTIONS_VERSION, params: empty,
                                                         completion: nil, call: nil)
                            return sb_url_open(m, text, &options, &out)
                        }
                        return sb_url_open(m, text, nil, &out)
                    }
                }
                defer { sb_value_release(out) }
                return Outcome(status: status.rawValue, result: jsonText(out),
                               message: status == SB_OK ? "" : String(cString: sb_error_message()), logged: log.lines)
            }
            #expect(outcomes[0] == outcomes[1], "\(raw)")
        }
    }

    /// The plain call itself, on the URL the benchmark opens: it answers,
    /// with the query as string params; a fallback is told the URL.
    @Test func plainCallAnswersWithTheQuery() {
        let log = LineLog()
        let m = Self.mediator(fallback: true, log: log)
        defer { sb_mediator_free(m) }
        #expect(Self.takesPlain(m, "app://T/echo?n=1"))
        #expect(Self.open(m, "app://T/echo?n=1&m=%41", general: false, log: log).result == #"{"n":"1","m":"A"}"#)
        let missing = Self.open(m, "app://Nobody/echo?n=1", general: false, log: log).result
        #expect(missing.contains(#""url":"app://Nobody/echo?n=1""#), "\(missing)")
        #expect(!Self.takesPlain(m, "app://T/nativeX"))
        #expect(Self.open(m, "app://T/nativeX", general: false, log: log).logged.count == 1)
        #expect(!Self.takesPlain(m, "app://T/echo?n=1&n=2"))
    }
}
