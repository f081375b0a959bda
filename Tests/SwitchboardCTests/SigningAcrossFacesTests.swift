// The C face signs and checks URLs with the system's libcrypto, the Swift
// face with swift-crypto: the two must make the same signatures, and each
// must accept what the other signed and refuse what it did not.
import Testing
import CSwitchboard
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard
import SwitchboardSigning
#if canImport(Glibc)
import Glibc
#endif

@Suite("Signed URLs across faces")
struct SigningAcrossFacesTests {
    static let key = Array("0123456789abcdef-across-faces".utf8)

    /// sb_url_sign's text, or nil with the library's error.
    private func cSigned(_ url: String, expires: Int64, key: [UInt8] = Self.key) -> String? {
        guard let signed = sb_url_sign(key, key.count, url, expires) else { return nil }
        defer { free(signed) }
        return String(cString: signed)
    }

    @Test("C and Swift make the same signature for the same key, URL and time")
    func sameSignatures() throws {
        let swift = try URLSigner(key: Self.key)
        for url in ["app://A/show", "app://A/show?id=42", "app://A/show?q=%20x&r=1", "x://é/ü?k=ñ"] {
            for expires: Int64 in [0, 1, 1_000_000, Int64.max] {
                let expected = try swift.sign(url, expires: expires)
                #expect(cSigned(url, expires: expires) == expected)
            }
        }
        // A different key gives a different signature.
        var other = Self.key
        other[0] ^= 1
        #expect(cSigned("app://A/show", expires: 5, key: other) != (try swift.sign("app://A/show", expires: 5)))
    }

    @Test("a mediator that requires signatures from C opens what Swift signed, and only that")
    func cChecksSwiftSignatures() throws {
        let pair = Pair()
        try pair.mediator.register(target: "A", action: "show") { params in .dict(params) }
        #expect(sb_url_require_signature(pair.handle, Self.key, Self.key.count) == SB_OK)
        let url = try URLSigner(key: Self.key).sign("app://A/show?id=7", expires: Int64(time(nil)) + 600)
        var out: OpaquePointer?
        #expect(sb_url_open(pair.handle, url, nil, &out) == SB_OK)
        #expect(try Handle(out!).toValue() == ["id": "7"])
        Handle(out!).release()
        // One digit changed: refused.
        var tampered = Array(url.utf8)
        tampered[tampered.count - 1] = tampered[tampered.count - 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        out = nil
        #expect(sb_url_open(pair.handle, String(decoding: tampered, as: UTF8.self), nil, &out) == SB_EREJECTED)
        #expect(out == nil)
        // A key shorter than the minimum is refused, as in Swift.
        #expect(sb_url_require_signature(pair.handle, Self.key, 15) == SB_EINVAL)
    }

    @Test("a Swift URLSigner accepts what C signed")
    func swiftChecksCSignatures() throws {
        let signed = try #require(cSigned("app://A/show?id=9", expires: 2_000_000))
        let signer = try URLSigner(key: Self.key, now: { 1_000_000 })
        #expect(signer.verified(signed) == .success("app://A/show?id=9"))
        let late = try URLSigner(key: Self.key, now: { 2_000_000 })
        #expect(late.verified(signed) == .failure(.expired))
    }
}
