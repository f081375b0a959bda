// HMAC-SHA256 URL signing for Swift programs, in a module of its own
// (product SwitchboardSigning) so that `import Switchboard` does not build
// swift-crypto. The format is the core's (SignedURLFormat), shared with the C
// face, which computes the same HMAC with the system's libcrypto.
#if Signing
import Crypto
#else
#error("SwitchboardSigning needs the package trait Signing: .package(url: ..., traits: [\"Signing\"])")
#endif
@_spi(Faces) import Switchboard

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
    private let format: SignedURLFormat

    /// The shortest key accepted, in bytes.
    public static let minimumKeyLength = SignedURLFormat.minimumKeyLength

    /// `now` gives the current time in Unix seconds (tests pass a fixed one).
    public init(key: [UInt8], now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) throws(SwitchboardError) {
        // The key's bytes, not a SymmetricKey: swift-crypto's SymmetricKey is
        // Sendable only from version 4, and this module accepts 3 too.
        format = try SignedURLFormat(key: key, now: now) { key, message in
            Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        }
    }

    /// `url` with `expires` and `signature` appended. `.invalidArgument` for
    /// a URL with a fragment (it would follow the signature) or one that
    /// already carries `expires` or `signature`.
    public func sign(_ url: String, expires: Int64) throws(SwitchboardError) -> String {
        try format.sign(url, expires: expires)
    }

    /// The URL without its `expires` and `signature` items, once they check
    /// out; otherwise the reason it is refused.
    public func verified(_ url: String) -> Result<String, URLSignatureRefusal> {
        format.verified(url)
    }
}
