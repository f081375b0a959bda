// HMAC-SHA256 URL signing, in a module of its own (product
// SwitchboardSigning) so that `import Switchboard` does not build swift-crypto.
import Crypto
import Switchboard

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Signed remote calls: when a mediator has a signer (``Mediator/urlSigner``),
/// every URL it opens must end with `expires=<unix seconds>&signature=<hex>`,
/// where the signature is HMAC-SHA256, under the signer's key, of the URL's
/// text up to (not including) `&signature=`. The check runs before any
/// interceptor, pattern or target sees the URL; a missing, malformed, wrong
/// or expired signature is `.rejected`. The two items are taken off the URL
/// before it is routed, so targets never see them.
///
/// The text is signed exactly as sent (no canonical rewriting to get wrong):
/// sign the URL in the form it will be opened.
public struct URLSigner: URLSignatureCheck {
    /// The key's bytes: swift-crypto's SymmetricKey is Sendable only from
    /// version 4, and this module accepts 3 too, so it is made at each use.
    private let key: [UInt8]
    private let now: @Sendable () -> Int64

    /// The shortest key accepted, in bytes.
    public static let minimumKeyLength = 16

    /// `now` gives the current time in Unix seconds (tests pass a fixed one).
    public init(key: [UInt8], now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) throws(SwitchboardError) {
        guard key.count >= Self.minimumKeyLength else {
            throw .invalidArgument("a URL signing key has at least \(Self.minimumKeyLength) bytes, not \(key.count)")
        }
        self.key = key
        self.now = now
    }

    /// `url` with `expires` and `signature` appended. `.invalidArgument` for
    /// a URL with a fragment (it would follow the signature) or one that
    /// already carries `expires` or `signature`.
    public func sign(_ url: String, expires: Int64) throws(SwitchboardError) -> String {
        // The limit first, before any work that reads the whole text: a URL
        // too long to be opened once signed is not signed.
        let signedLength = url.utf8.count + "?expires=&signature=".utf8.count + String(expires).utf8.count + 64
        guard signedLength <= RemoteURL.maximumLength else {
            throw .invalidArgument("the URL would be \(signedLength) bytes once signed; the limit is \(RemoteURL.maximumLength)")
        }
        guard !url.utf8.contains(UInt8(ascii: "#")) else { throw .invalidArgument("a signed URL has no #fragment: \(Self.quoted(url))") }
        if let query = url.firstIndex(of: "?").map({ url[url.index(after: $0)...] }),
           query.split(separator: "&").contains(where: { $0.hasPrefix("expires=") || $0.hasPrefix("signature=") }) {
            throw .invalidArgument("the URL already has expires or signature: \(Self.quoted(url))")
        }
        let signed = url + (url.contains("?") ? "&" : "?") + "expires=\(expires)"
        return signed + "&signature=" + Self.hex(HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: SymmetricKey(data: key)))
    }

    /// The URL without its `expires` and `signature` items, once they check
    /// out; otherwise the reason it is refused.
    public func verified(_ url: String) -> Result<String, URLSignatureRefusal> {
        guard let mark = url.ranges(of: "&signature=").last else { return .failure(.unsigned) }
        let signed = url[..<mark.lowerBound]
        guard let digest = Self.bytes(hex: url[mark.upperBound...]) else { return .failure(.malformed) }
        guard let expiresMark = signed.ranges(of: "expires=").last,
              let separator = signed.index(expiresMark.lowerBound, offsetBy: -1, limitedBy: signed.startIndex),
              signed[separator] == "?" || signed[separator] == "&",
              let expires = Int64(signed[expiresMark.upperBound...]), !signed[expiresMark.upperBound...].hasPrefix("+")
        else { return .failure(.malformed) }
        guard HMAC<SHA256>.isValidAuthenticationCode(digest, authenticating: Array(signed.utf8), using: SymmetricKey(data: key)) else {
            return .failure(.wrong)
        }
        guard expires > now() else { return .failure(.expired) }
        return .success(String(signed[..<separator]))
    }

    /// A URL in a message: quoted, cut at 120 characters (as RemoteURL's messages show URLs).
    private static func quoted(_ text: String) -> String {
        Value.string(text.utf8.count > 120 ? String(text.prefix(120)) + "…" : text).description
    }

    private static func hex(_ mac: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in mac { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// 32 bytes from 64 lower-case hex digits, or nil.
    private static func bytes(hex text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
