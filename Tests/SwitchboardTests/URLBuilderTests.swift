// URLs built from patterns (Mediator.buildURL): what they encode, what they
// refuse, and the property that matters: matching a built URL gives the
// params back. The URL fuzzer (Tests/fuzz, scripts/fuzz.sh url) holds the
// builder to the same property on inputs it makes up.
import Testing
@testable import Switchboard

@Suite("URLs built from patterns")
struct URLBuilderTests {
    @Test("placeholders are filled and encoded; the other params become the query")
    func builds() throws {
        let m = Mediator()
        #expect(try m.buildURL(pattern: "app://user/:id/profile", params: ["id": "ada lovelace", "tab": "a&b=c+d"])
                == "app://user/ada%20lovelace/profile?tab=a%26b%3Dc%2Bd")
        #expect(try m.buildURL(pattern: "APP://i/<int:n>/<float:f>", params: ["n": -7, "f": 0.5]) == "app://i/-7/0.5")
        #expect(try m.buildURL(pattern: "app://u/<uuid:id>", params: ["id": "621425B8-42D1-4AB4-9A58-1E69D708A84B"])
                == "app://u/621425b8-42d1-4ab4-9a58-1e69d708a84b")
        #expect(try m.buildURL(pattern: "app://f/<path:rest>", params: ["rest": "a/b c/é"]) == "app://f/a/b%20c/%C3%A9")
        #expect(try m.buildURL(pattern: "app://w/*", params: ["*": ["x/y", "z"]]) == "app://w/x%2Fy/z")
        #expect(try m.buildURL(pattern: "app://w/*", params: ["*": []]) == "app://w")
        #expect(try m.buildURL(pattern: "https://<path:url>", params: ["url": "example.com/a"]) == "https://example.com/a")
        #expect(try m.buildURL(pattern: "app://q", params: ["k": ["1", "2"], "z": ""]) == "app://q?k=1&k=2&z=")
        #expect(try m.buildURL(pattern: "app://caf%C3%A9/x") == "app://caf%C3%A9/x")
        try m.addURLConverter("even") { Int64($0).flatMap { $0 % 2 == 0 ? .int($0) : nil } }
        #expect(try m.buildURL(pattern: "app://n/<even:n>", params: ["n": "4"]) == "app://n/4")
    }

    @Test("optional groups: those with values are written, those without left out, a half-given one refused")
    func groups() throws {
        let m = Mediator()
        let pattern = "app://path/:thing(/new)(/another/:other)"
        #expect(try m.buildURL(pattern: pattern, params: ["thing": "a"]) == "app://path/a")
        #expect(try m.buildURL(pattern: pattern, params: ["thing": "a", "other": "b"]) == "app://path/a/another/b")
        #expect(try m.buildURL(pattern: "app://(rest/)(v1/):object/:id", params: ["object": "o", "id": "1"]) == "app://o/1")
        let half = #expect(throws: SwitchboardError.self) {
            try m.buildURL(pattern: "app://x(/:a/:b)", params: ["a": "1"])
        }
        #expect(half?.code == .badParams && half?.message.contains("go together") == true)
        // Two groups that read alike: only b given would come back as a.
        let ambiguous = #expect(throws: SwitchboardError.self) {
            try m.buildURL(pattern: "app://x(/:a)(/:b)", params: ["b": "1"])
        }
        #expect(ambiguous?.code == .badParams && ambiguous?.message.contains("cannot give these params back") == true)
        #expect(try m.buildURL(pattern: "app://x(/:a)(/:b)", params: ["a": "1", "b": "2"]) == "app://x/1/2")
        // A value the literal of a group takes: "a/b" reads as the (a/) form with x = "b".
        #expect(throws: SwitchboardError.self) { try m.buildURL(pattern: "app://(a/):x(/:y)", params: ["x": "a", "y": "b"]) }
        #expect(try m.buildURL(pattern: "app://(a/):x/:y", params: ["x": "a", "y": "b"]) == "app://a/b")
    }

    @Test("missing and mistyped values are refused, naming the placeholder", arguments: [
        ("app://u/:id", [:], "needs a value for \"id\""),
        ("app://u/:id", ["id": 7], "needs a string, not the int 7"),
        ("app://u/:id", ["id": ""], "non-empty"),
        ("app://u/:id", ["id": "a\u{0}b"], "without NUL"),
        ("app://u/:id", ["id": ".."], "not \".\" or \"..\""),
        ("app://u/<path:p>", ["p": "a/../b"], "not \".\" or \"..\""),
        ("app://u/*", ["*": ["."]], "not \".\" or \"..\""),
        ("app://u/<int:id>", ["id": "7"], "needs an int"),
        ("app://u/<float:f>", ["f": 3], "needs a finite double, not the int 3"),
        ("app://u/<float:f>", ["f": .double(.infinity)], "finite"),
        ("app://u/<uuid:id>", ["id": "not-a-uuid"], "UUID"),
        ("app://u/<path:p>", ["p": "a//b"], "non-empty segments"),
        ("app://u/*", ["*": ["a", ""]], "non-empty strings"),
        ("app://u/*", ["*": "a"], "array"),
        ("app://*", ["*": []], "host"),
        ("app://u", ["k": 1], "string or an array of at least two strings"),
        ("app://u", ["k": ["only"]], "at least two"),
        ("app://u", ["": "v"], "query key is empty"),
        ("app://u", ["switchboard.module": "M"], "cannot go into a URL"),
        ("app://u", ["kCTMediatorParamsKeySwiftTargetModuleName": "M"], "cannot go into a URL"),
    ] as [(String, Params, String)])
    func refused(pattern: String, params: Params, mention: String) {
        let m = Mediator()
        let error = #expect(throws: SwitchboardError.self) { try m.buildURL(pattern: pattern, params: params) }
        #expect(error?.code == .badParams, "\(error?.message ?? "")")
        #expect(error?.message.contains(mention) == true, "\(error?.message ?? "")")
    }

    @Test("a malformed pattern, an unknown converter, a declining one, a URL over the limit")
    func otherRefusals() throws {
        let m = Mediator()
        #expect { try m.buildURL(pattern: "app://a//b") } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
        #expect { try m.buildURL(pattern: "app://a/<nope:x>", params: ["x": "1"]) } throws: {
            ($0 as? SwitchboardError)?.code == .invalidArgument
        }
        try m.addURLConverter("never") { _ in nil }
        #expect { try m.buildURL(pattern: "app://a/<never:x>", params: ["x": "1"]) } throws: {
            ($0 as? SwitchboardError)?.code == .badParams
        }
        // Percent-encoding triples a string: the limit is checked as the URL grows.
        let long = String(repeating: "é", count: 20_000)
        #expect { try m.buildURL(pattern: "app://a/:x", params: ["x": .string(long)]) } throws: {
            ($0 as? SwitchboardError)?.code == .badURL
        }
        // More segments than a URL may have.
        #expect { try m.buildURL(pattern: "app://a/*", params: ["*": .array((0..<70).map { .string("s\($0)") })]) } throws: {
            ($0 as? SwitchboardError)?.code == .badURL
        }
    }

    @Test("property: a built URL matched against its pattern gives the params back (8,000 generated cases)")
    func roundTrip() throws {
        var random = SplitMix(seed: 41)
        var built = 0
        for _ in 0..<8_000 {
            let (pattern, params) = PatternGenerator.make(&random)
            let m = try echoMediator()
            try m.addURLConverter("hex") { segment in
                segment.utf8.allSatisfy(URLGrammar.isHex) ? .string(segment.lowercased()) : nil
            }
            do {
                try m.route(pattern)
            } catch {
                Issue.record("the generated pattern \(pattern) was refused: \(error)")
                continue
            }
            let url: String
            do {
                url = try m.buildURL(pattern: pattern, params: params)
            } catch {
                // Only the refusals the builder documents: a group given part
                // of its values, or a URL that would read another way (which
                // takes a group); never a value the generator made well.
                #expect(error.code == .badParams && pattern.contains("("), "\(pattern) \(params): \(error)")
                continue
            }
            built += 1
            let found = try m.lookup(url: url)
            #expect(found.pattern == pattern, "\(pattern) \(params) -> \(url)")
            #expect(found.params.own == PatternGenerator.expected(params), "\(pattern) \(params) -> \(url)")
        }
        #expect(built > 6_000) // the generator mostly makes params the builder takes
        robustnessRow("URLs built from generated patterns (literals with any bytes, every placeholder type, optional "
                      + "groups, a converter) and params (strings with reserved and non-ASCII characters, ints, doubles, "
                      + "UUIDs, queries), matched back", cases: 8_000,
                      "every URL built matches its pattern with the params it was built from; refusals are EPARAMS or EBADURL")
    }
}

/// A seeded generator (SplitMix64), so a failing case can be made again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Patterns and params for the round trip.
enum PatternGenerator {
    /// Characters a value may hold: ASCII that URLs reserve or forbid, and beyond.
    static let alphabet = Array("ab09-._~ /?#[]@!$&'()*+,;=%:<>\"{}|\\^`éü中😀")

    static func text(_ random: inout SplitMix, length: ClosedRange<Int> = 1...6) -> String {
        let text = String((0..<Int.random(in: length, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        return text == "." || text == ".." ? text + "x" : text // no URL routes through a dot segment
    }

    /// `text` as a pattern literal: every byte but letters and digits escaped.
    static func literal(_ text: String) -> String {
        text.utf8.map { byte in
            ASCII.isIdentifier(byte) && byte != UInt8(ascii: "_") ? String(UnicodeScalar(byte))
                : "%" + String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    static func make(_ random: inout SplitMix) -> (String, Params) {
        var segments: [String] = []
        var params: Params = [:]
        var groups = 0
        let count = Int.random(in: 1...6, using: &random)
        for i in 0..<count {
            let name = "p\(i)"
            let last = i == count - 1
            var segment: String
            switch Int.random(in: 0..<(last ? 10 : 8), using: &random) {
            case 0, 1:
                segment = literal(text(&random))
            case 2:
                segment = ":" + name
                params[name] = .string(text(&random))
            case 3:
                segment = "<int:\(name)>"
                params[name] = .int(Int64.random(in: .min ... .max, using: &random))
            case 4:
                segment = "<float:\(name)>"
                var value = Double(bitPattern: random.next())
                if !value.isFinite { value = Double.random(in: -1e6...1e6, using: &random) }
                params[name] = .double(value)
            case 5:
                segment = "<uuid:\(name)>"
                let hex = (0..<32).map { _ in String(Int.random(in: 0..<16, using: &random), radix: 16, uppercase: Bool.random(using: &random)) }
                params[name] = .string([hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]]
                    .map { $0.joined() }.joined(separator: "-"))
            case 6:
                segment = "<hex:\(name)>"
                params[name] = .string(String((0..<Int.random(in: 1...8, using: &random)).map { _ in
                    "0123456789abcdefABCDEF".randomElement(using: &random)! }))
            case 7:
                segment = "<\(name)>"
                params[name] = .string(text(&random))
            case 8:
                segment = "<path:\(name)>"
                params[name] = .string((0..<Int.random(in: 1...3, using: &random)).map { _ in
                    String(text(&random).map { $0 == "/" ? "x" : $0 }) }.joined(separator: "/"))
            default:
                segment = "*"
                params["*"] = .array((0..<Int.random(in: (i == 0 ? 1 : 0)...3, using: &random)).map { _ in .string(text(&random)) })
            }
            // Some segments after the host go in a group, present or left out.
            if i > 0, groups < RoutePattern.maximumGroups, Int.random(in: 0..<4, using: &random) == 0 {
                groups += 1
                if segment.hasPrefix(":") || segment.hasPrefix("<"), Bool.random(using: &random) {
                    let key = segment.hasPrefix(":") ? String(segment.dropFirst())
                        : String(segment.dropFirst().dropLast().split(separator: ":").last!)
                    params.removeValue(forKey: key)
                }
                segment = "(/" + segment + ")"
                segments.append(segment)
                continue
            }
            segments.append(segment)
        }
        for k in 0..<Int.random(in: 0...2, using: &random) {
            params["q\(k)"] = Bool.random(using: &random) ? .string(text(&random, length: 0...5))
                : .array([.string(text(&random, length: 0...3)), .string(text(&random, length: 0...3))])
        }
        let pattern = "gen://" + segments.enumerated().map { i, s in i == 0 || s.hasPrefix("(") ? s : "/" + s }.joined()
        return (pattern, params)
    }

    /// What matching gives for `params`: UUIDs and the hex converter's values in lower case.
    static func expected(_ params: Params) -> Params {
        params.mapValues { value in
            guard let string = value.string, URLValueTypes.uuid(string) != nil || (!string.isEmpty && string.utf8.allSatisfy(URLGrammar.isHex))
            else { return value }
            return .string(string.lowercased())
        }
    }
}
