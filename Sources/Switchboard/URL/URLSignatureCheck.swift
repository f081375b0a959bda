/// What a mediator that requires signed URLs checks every URL with
/// (``Mediator/urlSigner``), before any interceptor, pattern or target sees
/// it. The project's own is `URLSigner` (HMAC-SHA256), in the module
/// `SwitchboardSigning`: it needs swift-crypto, which `import Switchboard`
/// alone does not build.
public protocol URLSignatureCheck: Sendable {
    /// The URL without its signature once it checks out; otherwise why it
    /// is refused (the mediator throws `.rejected` with the reason and tells
    /// the rejection observer).
    func verified(_ url: String) -> Result<String, URLSignatureRefusal>
}

/// Why a signed URL is refused.
public enum URLSignatureRefusal: Error, Sendable, Equatable {
    /// The URL carries no signature.
    case unsigned
    /// The signature's parameters are not where or what they must be.
    case malformed
    /// The signature does not match the URL (or was made with another key).
    case wrong
    /// The signature's `expires` time has passed.
    case expired

    /// The refusal as a sentence, for the `.rejected` error and observers.
    public var reason: String {
        switch self {
        case .unsigned: "the URL is not signed, and this mediator requires signed URLs"
        case .malformed: "the URL's signature is malformed (it ends with expires=<seconds>&signature=<64 hex digits>)"
        case .wrong: "the URL's signature does not match"
        case .expired: "the URL's signature has expired"
        }
    }
}
