import Testing
@_spi(Faces) @testable import Switchboard

/// The registry compares names with word loads for short names; these check
/// every length across the word-size boundaries, and a difference at every
/// position.
/// A target whose table declares names no caller may use.
final class Target_OddNames: Target {
    static let actions: Actions<Target_OddNames> = [
        "": { _, _ in "empty" },
        "a\u{0}b": { _, _ in "nul" },
        "ok": { _, _ in "ok" },
    ]
}

@Suite("Names")
struct NameTests {
    /// `isUTF8` and `containsDot` read a word at a time (overlapping loads
    /// for short names); against a byte-by-byte oracle: every length up to
    /// 40, a dot or a high byte at every position, and random names, each
    /// read from the end of a buffer so that a load past the name would
    /// read what the test put there (a dot, a high byte).
    @Test("isUTF8 and containsDot agree with a byte-by-byte reading")
    func wordChecksAgreeWithBytes() {
        func check(_ name: [UInt8], _ note: String) {
            // The name, followed by bytes that would change both answers if read.
            let padded = name + [UInt8(ascii: "."), 0xFF, UInt8(ascii: "."), 0xFF, 0, 0, 0, 0]
            padded.withUnsafeBufferPointer { buffer in
                let key = NameRef(UnsafeBufferPointer(rebasing: buffer[..<name.count]))
                #expect(key.isUTF8 == (String(validating: name, as: UTF8.self) != nil), "isUTF8 \(note) \(name)")
                #expect(key.containsDot == name.contains(UInt8(ascii: ".")), "containsDot \(note) \(name)")
            }
        }
        for length in 0...40 {
            let plain = (0..<length).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
            check(plain, "plain")
            for position in 0..<length {
                var dotted = plain
                dotted[position] = UInt8(ascii: ".")
                check(dotted, "dot at \(position)")
                for high: UInt8 in [0x80, 0xC3, 0xFF, 0xAE] {
                    var bad = plain
                    bad[position] = high
                    check(bad, "byte \(high) at \(position)")
                }
                // Bytes whose xor with dots looks like a zero byte's neighbours.
                var near = plain
                near[position] = UInt8(ascii: ".") ^ 0x01
                check(near, "near dot at \(position)")
            }
        }
        var random = Seeded(state: 23)
        let alphabet: [UInt8] = Array("aZ09_.-/".utf8) + [0x2D, 0x2F, 0x00, 0x01, 0x7F, 0x80, 0xBF, 0xC3, 0xA9, 0xE4, 0xB8, 0xAD,
                                                          0xF0, 0x9F, 0x98, 0x80, 0xFF]
        for _ in 0..<5_000 {
            let name = (0..<random.below(30)).map { _ in random.pick(alphabet) }
            check(name, "random")
        }
        // Valid multi-byte names, which the word check sends to validation.
        for text in ["é", "中文名", "a.é", "Target_é.x", "😀😀😀"] { check(Array(text.utf8), text) }
    }

    /// A C caller's name is measured and hashed in one pass, four bytes a
    /// turn; it must find what a Swift caller's bytes find: the same count
    /// and hash at every length (every place the NUL can fall in a turn).
    @Test("a C string hashes and measures as its bytes do")
    func cStringMatchesBytes() {
        var random = Seeded(state: 41)
        for length in 0...40 {
            for _ in 0..<20 {
                let name = (0..<length).map { _ in UInt8(1 + random.below(255)) }
                // Non-zero bytes after the NUL: a read past it would change the hash.
                let cString = (name + [0] + [UInt8](repeating: 0x41, count: 4)).map { CChar(bitPattern: $0) }
                cString.withUnsafeBufferPointer { c in
                    name.withUnsafeBufferPointer { bytes in
                        let fromC = NameRef(cString: c.baseAddress!), fromBytes = NameRef(bytes)
                        #expect(fromC.count == length && fromC.hash == fromBytes.hash, "\(name)")
                    }
                }
            }
        }
    }

    @Test("equal bytes compare equal at every length up to 40")
    func equalAtEveryLength() {
        for length in 0...40 {
            let a = Array((0..<length).map { UInt8(ascii: "a") &+ UInt8($0 % 26) })
            let b = a
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    #expect(bytesEqual(a.baseAddress ?? UnsafePointer(bitPattern: 1)!,
                                       b.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: length),
                            "length \(length)")
                }
            }
        }
    }

    @Test("a difference at any position is seen, at every length up to 40")
    func differenceAtEveryPosition() {
        for length in 1...40 {
            let a = Array((0..<length).map { UInt8(ascii: "a") &+ UInt8($0 % 26) })
            for position in 0..<length {
                var b = a
                b[position] ^= 0x20
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        #expect(!bytesEqual(a.baseAddress!, b.baseAddress!, count: length),
                                "length \(length), position \(position)")
                    }
                }
            }
        }
    }

    @Test("targets whose names differ in one byte, or share a prefix, stay apart")
    func similarNames() throws {
        let m = Mediator()
        let names = ["A", "B", "AB", "ABC", "ABCD", "ABCE", "Target0123456", "Target0123457",
                     "LongTargetName0123456789", "LongTargetName0123456788", "LongTargetName012345678"]
        for name in names {
            try m.register(target: name, action: "who") { _ in .string(name) }
        }
        for name in names {
            #expect(try m.callAndWait(target: name, action: "who") == .string(name))
        }
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "ABCF", action: "who") }
    }

    @Test("the module key's length constant matches the key; the key is found in small and large params")
    func moduleKey() {
        #expect(Mediator.moduleKeyLength == Mediator.moduleKey.utf8.count)
        #expect(Mediator.ctMediatorModuleKeyLength == Mediator.ctMediatorModuleKey.utf8.count)
        #expect(Mediator.module(in: ["switchboard.module": "M", "n": 1]) == "M")
        #expect(Mediator.module(in: ["switchboard.modulX": "M"]) == nil)
        var many: Params = ["switchboard.module": "Big"]
        for i in 0..<20 { many["k\(i)"] = .int(Int64(i)) }
        #expect(Mediator.module(in: many) == "Big")
    }

    @Test("a name no caller may use is refused on the fast path as on the general one, even when a table declares it")
    func invalidNamesNeverRun() throws {
        let m = Mediator()
        try m.register(Target_OddNames.self, as: "Odd")
        // Cached, so that the plain fast path finds the instance.
        #expect(m.performAndWait(target: "Odd", action: "ok", cacheTarget: true) == "ok")
        func refusals() -> [String] {
            ["", "a\u{0}b"].map { action in
                do {
                    let value = try m.callAndWait(target: "Odd", action: action)
                    return "ran: \(value)"
                } catch {
                    return "\(error)"
                }
            } + [m.performAndWait(target: "Odd", action: "").description, m.performAndWait(target: "Odd", action: "a\u{0}b").description]
        }
        let plain = refusals()
        #expect(plain[0].contains("action name is empty"), "\(plain)")
        #expect(plain[1].contains("action name contains a NUL byte"), "\(plain)")
        #expect(plain[2] == Value.null.description && plain[3] == Value.null.description, "\(plain)")
        // The general path (an observer makes every call take it) says the same.
        _ = try m.addObserver { _ in }
        #expect(refusals() == plain)
        robustnessRow("Swift names no caller may use, declared in a Target's table (\"\", a NUL byte), on the fast and the general path",
                      cases: 4, "refused with the name's problem on both paths; the action never runs")
    }
}
