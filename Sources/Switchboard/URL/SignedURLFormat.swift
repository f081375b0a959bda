#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The signed-URL format, apart from where HMAC-SHA256 comes from: the
/// Swift face's `URLSigner` (module SwitchboardSigning) computes it with
/// swift-crypto, the C face with the system's libcrypto, so that
/// libswitchboard.so does not carry a second copy of a crypto library.
///
/// A signed URL ends with `expires=<unix seconds>&signature=<hex>`, the
/// signature being HMAC-SHA256, under the key, of the URL's text up to (not
/// including) `&signature=`. The text is signed exactly as sent.
@_spi(Faces) public struct SignedURLFormat: URLSignatureCheck {
    /// HMAC-SHA256 of `message` under `key`: 32 bytes.
    public typealias MAC = @Sendable (_ key: [UInt8], _ message: [UInt8]) -> [UInt8]

    private let key: [UInt8]
    private let now: @Sendable () -> Int64
    private let mac: MAC

    /// The shortest key accepted, in bytes.
    public static let minimumKeyLength = 16

    public init(key: [UInt8], now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) },
                mac: @escaping MAC) throws(SwitchboardError) {
        guard key.count >= Self.minimumKeyLength else {
            throw .invalidArgument("a URL signing key has at least \(Self.minimumKeyLength) bytes, not \(key.count)")
        }
        self.key = key
        self.now = now
        self.mac = mac
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
        let text = Array(url.utf8)
        if let mark = text.firstIndex(of: UInt8(ascii: "?")),
           text[(mark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
               .contains(where: { $0.starts(with: "expires=".utf8) || $0.starts(with: "signature=".utf8) }) {
            throw .invalidArgument("the URL already has expires or signature: \(Self.quoted(url))")
        }
        let signed = url + (text.contains(UInt8(ascii: "?")) ? "&" : "?") + "expires=\(expires)"
        return signed + "&signature=" + Self.hex(mac(key, Array(signed.utf8)))
    }

    /// The URL without its `expires` and `signature` items, once they check
    /// out; otherwise the reason it is refused.
    public func verified(_ url: String) -> Result<String, URLSignatureRefusal> {
        // Bytes, not String searches: those would link the string-processing
        // library into libswitchboard.so for two lookups.
        let text = Array(url.utf8)
        guard let mark = Self.lastIndex(of: "&signature=", in: text[...]) else { return .failure(.unsigned) }
        let signed = text[..<mark]
        guard let digest = Self.bytes(hex: text[(mark + "&signature=".utf8.count)...]) else { return .failure(.malformed) }
        guard let expiresMark = Self.lastIndex(of: "expires=", in: signed), expiresMark > 0,
              signed[expiresMark - 1] == UInt8(ascii: "?") || signed[expiresMark - 1] == UInt8(ascii: "&"),
              let expires = Self.seconds(signed[(expiresMark + "expires=".utf8.count)...])
        else { return .failure(.malformed) }
        guard Self.same(digest, mac(key, Array(signed))) else { return .failure(.wrong) }
        guard expires > now() else { return .failure(.expired) }
        return .success(String(decoding: signed[..<(expiresMark - 1)], as: UTF8.self))
    }

    /// Where the last `needle` starts in `haystack`, or nil.
    private static func lastIndex(of needle: StaticString, in haystack: ArraySlice<UInt8>) -> Int? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard haystack.count >= pattern.count else { return nil }
        var start = haystack.endIndex - pattern.count
        while start >= haystack.startIndex {
            if haystack[start..<(start + pattern.count)].elementsEqual(pattern) { return start }
            start -= 1
        }
        return nil
    }

    /// Decimal seconds as Int64 parses them (an optional leading "-", no
    /// "+"), or nil.
    private static func seconds(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard digits.first != UInt8(ascii: "+") else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// Compares in time that depends only on the lengths, so that a caller
    /// cannot learn a correct signature byte by byte from how long refusals take.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// A URL in a message: quoted, cut at 120 characters (as RemoteURL's messages show URLs).
    private static func quoted(_ text: String) -> String {
        Value.string(text.utf8.count > 120 ? String(text.prefix(120)) + "…" : text).description
    }

    private static func hex(_ mac: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(mac.count * 2)
        for byte in mac { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// 32 bytes from 64 lower-case hex digits, or nil.
    private static func bytes(hex text: ArraySlice<UInt8>) -> [UInt8]? {
        let utf8 = Array(text)
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
