import Testing
import Switchboard

@Suite("Reading JSON")
struct JSONReadingTests {
    @Test("every kind of data reads back from its own description")
    func roundTrip() throws {
        let values: [Value] = [
            .null, true, false, 0, -1, .int(.max), .int(.min), 3.0, -0.5, 1e300, .double(-.infinity),
            "", "plain", "quote \" backslash \\ newline \n tab \t control \u{01} nul \u{0}", "é, 漢字, 🎉",
            .bytes([]), .bytes([0, 1, 0xab, 0xff]), [], [1, [2, [3]]],
            ["a": 1, "b": ["c": [true, .null]], "": "empty key", "$bytes": "not hex"],
        ]
        for value in values {
            let text = value.description
            #expect(try Value(json: text) == value, "\(text)")
        }
        // NaN is unequal to itself: check its kind instead.
        #expect(try Value(json: Value.double(.nan).description).double?.isNaN == true)
    }

    @Test("numbers: ints without fraction or exponent, doubles otherwise")
    func numbers() throws {
        #expect(try Value(json: "3") == .int(3))
        #expect(try Value(json: "3.0") == .double(3))
        #expect(try Value(json: "1e2") == .double(100))
        #expect(try Value(json: "-0") == .int(0))
        #expect(try Value(json: "9223372036854775807") == .int(.max))
        #expect(try Value(json: "9223372036854775808") == .double(9223372036854775808))
        #expect(try Value(json: "  [ 1 , 2.5 ]\n") == [1, 2.5])
    }

    @Test("escapes, surrogate pairs and raw UTF-8 read as the characters they name")
    func strings() throws {
        #expect(try Value(json: #""\u00e9\ud83c\udf89\/\b\f""#) == "é🎉/\u{8}\u{c}")
        #expect(try Value(json: "\"漢字\"") == "漢字")
    }

    @Test("malformed JSON is refused with the place of the problem", arguments: [
        ("", "end of text"), ("[1,]", "a value was expected"), ("{\"a\":1,}", "object key"),
        ("[1 2]", "',' or ']'"), ("01", "start with 0"), ("1.", "after '.'"), ("1e", "exponent"),
        ("\"abc", "unterminated"), ("\"a\u{1}b\"", "control character"), (#""\x""#, "unknown escape"),
        (#""\ud800""#, "lone surrogate"), (#""\udc00""#, "lone surrogate"), (#""\u12""#, "four hex"),
        ("tru", "unexpected"), ("nul", "unexpected"), ("1 2", "after the value"), ("// c\n1", "unexpected"),
        ("{\"a\":1,\"a\":2}", "appears twice"), ("{1:2}", "object key"), ("[1,\n 2,\n x]", "line 3, column 2"),
    ])
    func malformed(text: String, expected: String) {
        #expect {
            _ = try Value(json: text)
        } throws: { error in
            guard let error = error as? SwitchboardError, error.code == .invalidArgument else { return false }
            return error.message.contains(expected)
        }
    }

    @Test("nesting is limited, so deep input cannot exhaust the stack")
    func depth() throws {
        let ok = String(repeating: "[", count: Value.maximumJSONDepth) + String(repeating: "]", count: Value.maximumJSONDepth)
        #expect(throws: Never.self) { try Value(json: ok) }
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: SwitchboardError.self) { try Value(json: deep) }
        let deepObjects = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: SwitchboardError.self) { try Value(json: deepObjects) }
    }

    @Test("a $bytes object with bad hex stays a dict")
    func notBytes() throws {
        #expect(try Value(json: #"{"$bytes":"abc"}"#) == ["$bytes": "abc"])
        #expect(try Value(json: #"{"$bytes":"zz"}"#) == ["$bytes": "zz"])
        #expect(try Value(json: #"{"$bytes":"00","x":1}"#) == ["$bytes": "00", "x": 1])
    }
}
