// Signed remote calls (URLSigner): a mediator that requires them opens a URL
// only with a valid, unexpired HMAC-SHA256 signature, checked before any
// interceptor, pattern or target runs.
import Testing
@testable import Switchboard
import SwitchboardSigning

@Suite("Signed URLs")
struct SignedURLTests {
    static let key = Array("0123456789abcdef-switchboard".utf8)
    /// A fixed clock: the Unix time 1,000,000.
    static let now: Int64 = 1_000_000

    private func mediator(spy: Spy, seen: Counter, rejected: Counter) throws -> Mediator {
        let m = Mediator()
        try spy.install(on: m)
        m.urlSigner = try URLSigner(key: Self.key, now: { Self.now })
        try m.addInterceptor(named: "seen") { _ in seen.increment(); return .proceed }
        m.onRejectedURL = { _ in rejected.increment() }
        return m
    }

    @Test("a signed URL is opened, without its expires and signature items")
    func signed() throws {
        let spy = Spy(), seen = Counter(), rejected = Counter()
        let m = try mediator(spy: spy, seen: seen, rejected: rejected)
        let signer = try URLSigner(key: Self.key)
        let url = try signer.sign("app://A/show?id=42", expires: Self.now + 60)
        #expect(url.hasPrefix("app://A/show?id=42&expires=1000060&signature="))
        #expect(try m.callAndWait(url: url) == ["id": "42"])
        let bare = try signer.sign("app://A/show", expires: Self.now + 1)
        #expect(try m.callAndWait(url: bare) == [:])
        #expect(spy.calls.value == 2 && seen.value == 2 && rejected.value == 0)
        // Without a signer, URLs need no signature again.
        m.urlSigner = nil
        #expect(try m.callAndWait(url: "app://A/show?x=1") == ["x": "1"])
    }

    /// Each must be refused before the interceptor or the target runs.
    static func hostile() throws -> [(String, String)] {
        let signer = try URLSigner(key: Self.key)
        let good = try signer.sign("app://A/show?id=42", expires: now + 60)
        let signature = String(good.split(separator: "=").last!)
        let other = try URLSigner(key: Array("another key, 16+ bytes".utf8))
        return [
            ("app://A/show?id=42", "not signed"),
            (good.replacingFirst("id=42", with: "id=43"), "does not match"),
            (good.replacingFirst("show", with: "nativeSecret"), "does not match"),
            (good.replacingFirst("app://", with: "APP://"), "does not match"),
            (good.replacingFirst("expires=1000060", with: "expires=1000061"), "does not match"),
            (good + "&x=1", "malformed"),
            (good + "#frag", "malformed"),
            (good.replacingFirst(signature, with: signature.uppercased()), "malformed"),
            (good.replacingFirst(signature, with: String(signature.dropLast())), "malformed"),
            (good.replacingFirst(signature, with: String(signature.dropLast()) + "g"), "malformed"),
            (good.replacingFirst(signature, with: ""), "malformed"),
            (good.replacingFirst("&expires=1000060", with: ""), "malformed"),
            (good.replacingFirst("expires=1000060", with: "expires=+1000060"), "malformed"),
            (good.replacingFirst("expires=1000060", with: "expires=soon"), "malformed"),
            ("app://A/show?id=42&signature=" + signature + "&expires=1000060", "malformed"),
            (try other.sign("app://A/show?id=42", expires: now + 60), "does not match"),
            (try signer.sign("app://A/show?id=42", expires: now), "expired"),
            (try signer.sign("app://A/show?id=42", expires: -1), "expired"),
            (try signer.sign("app://A/nativeSecret", expires: Int64.min), "expired"),
        ]
    }

    @Test("bad, moved, tampered, foreign-key and expired signatures are refused before any code runs")
    func refused() throws {
        let spy = Spy(), seen = Counter(), rejected = Counter()
        let m = try mediator(spy: spy, seen: seen, rejected: rejected)
        let cases = try Self.hostile()
        for (url, reason) in cases {
            do {
                let value = try m.callAndWait(url: url)
                Issue.record("\(url) was answered: \(value)")
            } catch {
                #expect(error.code == .rejected, "\(url): \(error)")
                #expect(error.message.contains(reason), "\(url): \(error.message)")
            }
        }
        #expect(spy.calls.value == 0)
        #expect(seen.value == 0)
        #expect(rejected.value == cases.count)
        robustnessRow("Signed URLs: unsigned, tampered, moved, malformed, foreign-key and expired signatures "
                      + "(SignedURLTests.hostile)", cases: cases.count,
                      "refused (rejected) before any interceptor or target runs; the observer hears each")
    }

    @Test("keys are at least 16 bytes; sign refuses a fragment or an existing signature")
    func misuse() throws {
        #expect(throws: SwitchboardError.self) { try URLSigner(key: Array("short".utf8)) }
        let signer = try URLSigner(key: Self.key)
        #expect(throws: SwitchboardError.self) { try signer.sign("app://A/show#top", expires: 1) }
        #expect(throws: SwitchboardError.self) { try signer.sign("app://A/show?expires=5", expires: 1) }
        #expect(throws: SwitchboardError.self) { try signer.sign("app://A/show?a=1&signature=x", expires: 1) }
        // The same input signs the same way (the signature is a function of key and text).
        #expect(try signer.sign("app://A/show", expires: 9) == (try signer.sign("app://A/show", expires: 9)))
    }
}

private extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
