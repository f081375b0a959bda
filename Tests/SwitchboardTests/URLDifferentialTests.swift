import Testing
import Foundation
@_spi(Faces) @testable import Switchboard

/// The URL parser against `URLComponents`, the general RFC 3986 parser it
/// replaced: the oracle is the old way, URLComponents plus the strict
/// checks on top of it, kept here and only here.
///
/// Foundation is loaded in this process, so URLComponents sends a host with
/// characters RFC 3986 does not allow through IDNA, which refuses them: the
/// parser refuses them too. (A process with FoundationEssentials alone, as
/// libswitchboard.so was, let `app://A]/x` through as target "A]".)
private enum Oracle {
    struct Parts: Equatable {
        var scheme: String
        var host: String
        var segments: [String]
        var query: Params
        var hasUserOrPort: Bool
    }

    /// The old RemoteURL.init, on URLComponents; nil where it threw.
    static func parse(_ string: String) -> Parts? {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty, bytes.count <= RemoteURL.maximumLength else { return nil }
        for (i, byte) in bytes.enumerated() {
            if byte <= 0x20 || byte >= 0x7F { return nil }
            if byte == UInt8(ascii: "%"), !(i + 2 < bytes.count && hex(bytes[i + 1]) != nil && hex(bytes[i + 2]) != nil) {
                return nil
            }
        }
        guard let parts = URLComponents(string: string), let scheme = parts.scheme, !scheme.isEmpty,
              let encodedHost = parts.percentEncodedHost, !encodedHost.isEmpty,
              let host = decode(Array(encodedHost.utf8)[...]) else { return nil }
        var segments: [String] = []
        let path = Array(parts.percentEncodedPath.utf8)
        if !path.isEmpty && path != [UInt8(ascii: "/")] {
            var pieces = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            if pieces.count > 1, pieces.last!.isEmpty { pieces.removeLast() }
            guard pieces.count <= RemoteURL.maximumSegments else { return nil }
            for piece in pieces {
                guard !piece.isEmpty, let segment = decode(piece) else { return nil }
                segments.append(segment)
            }
        }
        // Keys in order of first appearance, each with its values (by bytes).
        var keys: [String] = []
        var values: [ExactName: [Value]] = [:]
        for pair in Array((parts.percentEncodedQuery ?? "").utf8).split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let key = decode(pair[..<(equals ?? pair.endIndex)]),
                  let value = decode(equals.map { pair[($0 + 1)...] } ?? []) else { return nil }
            if values[ExactName(key)] == nil { keys.append(key) }
            values[ExactName(key), default: []].append(.string(value))
        }
        var query = Params()
        for key in keys {
            let all = values[ExactName(key)]!
            query[key] = all.count == 1 ? all[0] : .array(all)
        }
        return Parts(scheme: scheme.lowercased(), host: host, segments: segments, query: query,
                     hasUserOrPort: parts.percentEncodedUser != nil || parts.percentEncodedPassword != nil
                         || parts.port != nil)
    }

    private static func decode(_ encoded: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        var i = encoded.startIndex
        while i < encoded.endIndex {
            if encoded[i] == UInt8(ascii: "%") {
                guard i + 2 < encoded.endIndex, let h = hex(encoded[i + 1]), let l = hex(encoded[i + 2]) else { return nil }
                bytes.append(h << 4 | l)
                i += 3
            } else {
                bytes.append(encoded[i])
                i += 1
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }
}

/// SplitMix64: the same inputs on every run (HashFloodTests uses it too).
struct Seeded {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Hostile URL strings, built from parts and then damaged.
private struct HostileURLs {
    var random: Seeded

    static let schemes = ["app", "APP", "aPp", "a", "a+b-c.d", "1app", "", "ap_p", "addressbook", "https", "x%41",
                          "ap@p", "a[b", "my.app", "A"]
    static let separators = ["://", "://", "://", "://", ":", ":/", ":///", "//", "::", ":\\\\"]
    static let userinfos = ["u@", "u:p@", "@", ":@", "a@b@", "u%41:p%42@", "u:p:q@", "u{@", "%00@", "u%3A@"]
    static let hosts = ["A", "E", "Tar%20get", "%E4%B8%AD", "[::1]", "[v1.x]", "[::1%25en0]", "[::1%25%41]", "[zz]",
                        "[", "]", "A]", "a\"b", "", ".", "..", "%2E%2E", "%00", "%FF", "native", "Caf%C3%A9", "a:b",
                        "[::1]x", "[::1]:", "[a\"b]", "[%25]", "[::1%]", "x.y-z_~!$&'()*+,;=", "%6Eative", "h%2Fx",
                        "A|B", "A^", "A{", "A<", "A\\", "A`", "[]"]
    static let ports = [":80", ":", ":0080", ":99999999999999999999", ":x", ":+1", ":8a", ":9223372036854775807",
                        ":9223372036854775808"]
    static let pieces = ["echo", "show", "", ".", "..", "%2F", "%2f", "%6Eative", "nat%69ve", "nativeX", "a%20b",
                         "%E2%80%AE", "%C3%A9", "%FF", "%00", "%25", "%2541", ":x", "x:y", "@", "a@b", "[", "]",
                         "{x}", "\"q\"", "a|b", "a\\b", "^", "`", "<>", "~", "!$&'()*+,;=", "%", "%4", "%G1"]
    static let plain = ["echo", "show", "n", "1", "k", "v", "x%41", "%E4%B8%AD", "a+b", "id", "42", "a.b", "~u", "-"]
    static let alphabet: [String] = (0x21...0x7E).map { String(UnicodeScalar(UInt8($0))) }
        + ["%41", "%2f", "%25", "%00", "%C3%A9", "%FF", "%e2%80%ae", "%E4%B8", "%80", "%c0%af", "%ED%A0%80"]
    static let damage = ["\u{0}", "\u{1}", "\t", "\n", "\r", " ", "\u{7F}", "é", "中", "\u{301}", "%", "#", "?", "[",
                         "]", "@", ":", "/", "//", "&", "=", "%2", "%%", "\u{FEFF}"]

    mutating func text(_ length: Int) -> String {
        var out = ""
        for _ in 0..<length { out += random.pick(Self.alphabet) }
        return out
    }

    mutating func piece() -> String {
        random.chance(40) ? random.pick(Self.pieces) : random.chance(60) ? random.pick(Self.plain) : text(random.below(6))
    }

    mutating func next() -> String {
        // Mostly well-formed up to the path, so that many reach the decoding.
        var url = (random.chance(70) ? "app" : random.pick(Self.schemes)) + (random.chance(85) ? "://" : random.pick(Self.separators))
        if random.chance(12) { url += random.pick(Self.userinfos) }
        url += random.chance(50) ? "A" : random.chance(70) ? random.pick(Self.hosts) : text(random.below(5))
        if random.chance(12) { url += random.pick(Self.ports) }
        for _ in 0..<random.below(5) { url += "/" + piece() }
        if random.chance(15) { url += "/" }
        if random.chance(60) {
            url += "?"
            for i in 0..<random.below(5) {
                url += (i > 0 ? "&" : "") + piece()
                if random.chance(70) { url += "=" + piece() }
            }
        }
        if random.chance(15) { url += "#" + text(random.below(6)) + (random.chance(30) ? "#?/" : "") }
        // Damage: inserted bytes, cuts, doubled parts.
        for _ in 0..<(random.chance(25) ? random.below(3) + 1 : 0) {
            var scalars = Array(url.unicodeScalars)
            let at = random.below(scalars.count + 1)
            switch random.below(3) {
            case 0: scalars.insert(contentsOf: random.pick(Self.damage).unicodeScalars, at: at)
            case 1: if at < scalars.count { scalars.remove(at: at) }
            default: scalars = Array(scalars[..<at]) + Array(scalars[(at / 2)...])
            }
            url = String(String.UnicodeScalarView(scalars))
        }
        return url
    }
}

@Suite("The URL parser against URLComponents")
struct URLDifferentialTests {
    /// Inputs the parser refuses although URLComponents took them, by kind:
    /// each a documented place where the grammar is stricter.
    static func stricterBecause(_ url: String) -> String? {
        let lower = url.lowercased()
        // A port that is not digits: URLComponents ignores it for one scheme.
        if lower.hasPrefix("addressbook:") { return "addressbook port" }
        // An IPv6 literal with a "%": one that is not "%25" and a zone of
        // unreserved characters is refused; URLComponents escapes whatever
        // follows the "%" when the literal is invalid, and does not look again.
        if url.contains("[") && url.contains("%") { return "IP literal with a %" }
        return nil
    }

    @Test("thousands of hostile URLs: every URL both accept splits the same; every URL URLComponents refuses is refused")
    func differential() throws {
        var generator = HostileURLs(random: Seeded(state: 0x5EED_0023))
        var inputs: [String] = []
        for _ in 0..<30_000 { inputs.append(generator.next()) }
        // Overlong ones: at the limit, one past it, many segments, 1 MB.
        let long = "app://A/show?x=" + String(repeating: "%41", count: 21_840)
        inputs += [long, long + "a", "app://A/" + String(repeating: "x/", count: 64) + "y",
                   "app://A/" + String(repeating: "x/", count: 63) + "y", "app://A/" + String(repeating: "a", count: 1 << 20),
                   "app://A/show?" + String(repeating: "k=%6E&", count: 10_000)]

        var bothAccept = 0, bothRefuse = 0, urlComponentsRefuse = 0
        var stricter: [String: Int] = [:]
        for url in inputs {
            let oracle = Oracle.parse(url)
            let parsed: RemoteURL?
            do {
                parsed = try RemoteURL(url)
            } catch {
                #expect(error.code == .badURL && !error.message.isEmpty, "\(url.debugDescription): \(error)")
                parsed = nil
            }
            if url.utf8.count <= RemoteURL.maximumLength, URLComponents(string: url) == nil {
                urlComponentsRefuse += 1
                #expect(parsed == nil, "URLComponents refuses \(url.debugDescription), the parser took it")
            }
            switch (oracle, parsed) {
            case (let old?, let new?):
                bothAccept += 1
                #expect(new.scheme == old.scheme, "scheme of \(url.debugDescription)")
                #expect(new.host.utf8.elementsEqual(old.host.utf8), "host of \(url.debugDescription)")
                #expect(new.segments.count == old.segments.count
                        && zip(new.segments, old.segments).allSatisfy { $0.utf8.elementsEqual($1.utf8) },
                        "path of \(url.debugDescription): \(new.segments) against \(old.segments)")
                #expect(new.query == old.query && new.query.keys.elementsEqual(old.query.keys) { $0.utf8.elementsEqual($1.utf8) },
                        "query of \(url.debugDescription): \(new.query) against \(old.query)")
                #expect(new.hasUserOrPort == old.hasUserOrPort, "user or port of \(url.debugDescription)")
            case (nil, nil):
                bothRefuse += 1
            case (nil, _?):
                Issue.record("the parser took \(url.debugDescription), which the old way refused")
            case (_?, nil):
                if let kind = Self.stricterBecause(url) {
                    stricter[kind, default: 0] += 1
                } else {
                    Issue.record("the parser refused \(url.debugDescription), which the old way took")
                }
            }
        }
        // The generator must reach every outcome in numbers, or it proves little.
        #expect(bothAccept > 5_000 && bothRefuse > 5_000 && urlComponentsRefuse > 100,
                "accepted \(bothAccept), refused \(bothRefuse), URLComponents refused \(urlComponentsRefuse)")
        robustnessRow("Hostile URLs, differential: \(inputs.count) generated URLs (escapes, non-ASCII, userinfo, ports, "
                      + "IPv6 literals, empty parts, // ? # in odd places, control bytes, 1 MB) against URLComponents "
                      + "plus the old strict checks", cases: inputs.count,
                      "same scheme, host, segments, query and user/port on the \(bothAccept) both accept; "
                      + "the \(urlComponentsRefuse) URLComponents refuses are EBADURL, and the "
                      + "\(stricter.values.reduce(0, +)) only this parser refuses are documented kinds")
    }

    @Test("the places where the grammar is stricter than URLComponents, each refused with EBADURL")
    func stricter() {
        for url in ["addressbook://A:zz/x", "app://[a\"b%25x]/show", "app://A]/show", "app://A{/show", "app://A\\B/show"] {
            #expect { try RemoteURL(url) } throws: { ($0 as? SwitchboardError)?.code == .badURL }
        }
    }

    @Test("a path or query with characters RFC 3986 leaves out is taken literally, escapes included, as before")
    func literalParts() throws {
        let url = try RemoteURL("app://A/x%41{y}?json={\"a\":%201}&k=%41")
        #expect(url.segments == ["x%41{y}"])
        #expect(url.query == ["json": "{\"a\":%201}", "k": "%41"])
        let clean = try RemoteURL("app://A/x%41?k=%41#frag{}")
        #expect(clean.segments == ["xA"])
        #expect(clean.query == ["k": "A"])
        #expect(try RemoteURL("app://[::1%25en0]:80/x").host == "[::1%en0]")
        #expect(try RemoteURL("app://[::1%25en0]:80/x").hasUserOrPort)
        #expect(try !RemoteURL("app://A:99999999999999999999/x").hasUserOrPort)
        #expect(try RemoteURL("app://@A/x").hasUserOrPort)
        #expect(try !RemoteURL("app://A:/x").hasUserOrPort)
    }
}
