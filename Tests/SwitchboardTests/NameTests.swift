import Testing
@_spi(Faces) @testable import Switchboard

/// The registry compares names with word loads for short names; these check
/// every length across the word-size boundaries, and a difference at every
/// position.
@Suite("Names")
struct NameTests {
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
            #expect(try m.call(target: name, action: "who") == .string(name))
        }
        #expect(throws: SwitchboardError.self) { try m.call(target: "ABCF", action: "who") }
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
}
