import Testing
@testable import Switchboard

@Suite("Value")
struct ValueTests {
    @Test("literals make the kinds they spell")
    func literals() {
        let v: Value = ["n": 3, "x": 3.0, "s": "hi", "ok": true, "list": [1, "two"], "none": .null]
        #expect(v["n"] == .int(3))
        #expect(v["x"] == .double(3.0))
        #expect(v["s"] == .string("hi"))
        #expect(v["ok"] == .bool(true))
        #expect(v["list"] == .array([.int(1), .string("two")]))
        #expect(v["none"] == .null)
        #expect(v.kind == .dict)
    }

    @Test("int and double stay distinct: 3 is not 3.0")
    func intIsNotDouble() {
        #expect(Value.int(3) != Value.double(3))
        #expect(Value.int(3).double == nil)
        #expect(Value.double(3).int == nil)
        #expect(Value.int(3).int == 3)
        #expect(Value.double(2.5).double == 2.5)
    }

    @Test("accessors answer only for their own kind")
    func strictAccessors() {
        let bytes = Value.bytes([104, 105])
        #expect(bytes.string == nil)
        #expect(bytes.bytes == [104, 105])
        #expect(Value.string("hi").bytes == nil)
        #expect(Value.bool(true).int == nil)
        #expect(Value.null.isNull)
        #expect(!Value.int(0).isNull)
        #expect(Value.array([]).dict == nil)
        #expect(Value.dict([:]).array == nil)
    }

    @Test("subscripts never trap")
    func subscripts() {
        let a: Value = [10, 20]
        #expect(a[0] == .int(10))
        #expect(a[1] == .int(20))
        #expect(a[2] == nil)
        #expect(a[-1] == nil)
        #expect(a["key"] == nil)
        let d: Value = ["k": ["inner": 1]]
        #expect(d["k"]?["inner"] == .int(1))
        #expect(d["missing"] == nil)
        #expect(d[0] == nil)
    }

    @Test("callbacks and pointers compare by identity")
    func identity() {
        let f = Callback { $0 }
        let g = Callback { $0 }
        #expect(Value.callback(f) == Value.callback(f))
        #expect(Value.callback(f) != Value.callback(g))
        let p = Pointer(UnsafeMutableRawPointer(bitPattern: 0x1000))
        let q = Pointer(UnsafeMutableRawPointer(bitPattern: 0x1000))
        #expect(Value.pointer(p) == Value.pointer(p))
        #expect(Value.pointer(p) != Value.pointer(q))
    }

    @Test("NaN is a double and unequal to itself, as IEEE 754 says")
    func nan() {
        #expect(Value.double(.nan).kind == .double)
        #expect(Value.double(.nan) != Value.double(.nan))
    }

    @Test("description is JSON with keys in the dict's order, and doubles keep a fraction")
    func description() {
        let v: Value = ["b": [1, 2.0, "x"], "a": true, "n": .null]
        #expect(v.description == #"{"b":[1,2.0,"x"],"a":true,"n":null}"#)
        #expect(Value.double(1e100).description == "1e+100")
        #expect(Value.double(-0.5).description == "-0.5")
        #expect(Value.double(.infinity).description == "Infinity")
        #expect(Value.double(-.infinity).description == "-Infinity")
        #expect(Value.double(.nan).description == "NaN")
        #expect(Value.int(.min).description == "-9223372036854775808")
    }

    @Test("description escapes what JSON requires")
    func escaping() {
        #expect(Value.string("a\"b\\c\n\t\u{1}é").description == #""a\"b\\c\n\t\u0001é""#)
        #expect(Value.dict(["k\"": 1]).description == #"{"k\"":1}"#)
    }

    @Test("bytes, callbacks and pointers print as tagged objects")
    func taggedKinds() {
        #expect(Value.bytes([0, 15, 255]).description == #"{"$bytes":"000fff"}"#)
        #expect(Value.callback(Callback { $0 }).description.hasPrefix(#"{"$callback":"0x"#))
        #expect(Value.pointer(Pointer(nil)).description.hasPrefix(#"{"$pointer":"0x"#))
    }

    @Test("a repeated literal key keeps its last value, at its first position")
    func repeatedKey() {
        let v: Value = ["k": 1, "j": 0, "k": 2]
        #expect(v == ["k": 2, "j": 0])
        #expect(v.dict?.keys == ["k", "j"])
    }

    @Test("kind numbers match the C header's sb_type order")
    func kindOrder() {
        #expect(Value.Kind.allCases.map(\.rawValue) == Array(0...9))
        #expect(Value.Kind.pointer.rawValue == 9)
    }

    @Test("a pointer runs its destroy once, when the last value holding it goes")
    func pointerDestroy() {
        let destroyed = Counter()
        do {
            let p = Pointer(UnsafeMutableRawPointer(bitPattern: 0x42)) { address in
                #expect(address == UnsafeMutableRawPointer(bitPattern: 0x42))
                destroyed.increment()
            }
            let held: Value = ["p": .pointer(p), "again": .pointer(p)]
            #expect(held["p"]?.pointer?.address == UnsafeMutableRawPointer(bitPattern: 0x42))
            #expect(destroyed.value == 0)
        }
        #expect(destroyed.value == 1)
    }

    @Test("a pointer can carry a Swift object")
    func pointerObject() {
        let box = Counter()
        let p = Pointer(object: box)
        #expect(p.object === box)
        #expect(p.address == Unmanaged.passUnretained(box).toOpaque())
    }
}
