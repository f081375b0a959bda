@_spi(Faces) import Switchboard
import CSwitchboard

/// The signed-URL format (the core's SignedURLFormat) with the HMAC of the
/// system's libcrypto (hmac.c): what the C face signs and checks URLs with.
/// The Swift face's URLSigner computes the same HMAC with swift-crypto.
enum SystemSigning {
    /// A format for `key`. `.invalidArgument` for a key too short;
    /// `.actionFailed` when libcrypto cannot be loaded (the message says so).
    static func format(key: [UInt8]) throws(SwitchboardError) -> SignedURLFormat {
        // The caller's mistake before the system's: a short key is
        // SB_EINVAL whether or not libcrypto can be loaded.
        guard key.count >= SignedURLFormat.minimumKeyLength else {
            throw .invalidArgument("a URL signing key has at least \(SignedURLFormat.minimumKeyLength) bytes, not \(key.count)")
        }
        var why = [CChar](repeating: 0, count: 256)
        var probe = [UInt8](repeating: 0, count: 32)
        guard sb__hmac_sha256(key, key.count, key, 0, &probe, &why, why.count) == 0 else {
            throw .actionFailed(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                underlying: nil)
        }
        return try SignedURLFormat(key: key) { key, message in
            var mac = [UInt8](repeating: 0, count: 32)
            // libcrypto is loaded (above), so this fails only for a key over
            // INT_MAX bytes, which the C functions refuse; an empty MAC then
            // matches no signature and signs nothing.
            return sb__hmac_sha256(key, key.count, message, message.count, &mac, nil, 0) == 0 ? mac : []
        }
    }
}
