#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A registered action's contract, laid out for checking on every call:
/// the param names as UTF-8 bytes with their types, in one block, so that a
/// face can confirm params that fit without converting them or copying
/// the contract's strings.
@_spi(Faces) public final class ContractCheck: @unchecked Sendable {
    // @unchecked: immutable after init; `keys` is freed only by deinit.
    public let contract: Contract
    /// The params a call must carry, by name, with their types.
    public let keys: UnsafeBufferPointer<Key>
    /// Whether the contract checks anything at all (see `Contract.usable`).
    public let isUsable: Bool
    let isLocal: Bool
    /// The declared result, checked after the action answers; nil when any
    /// result will do (`-> any`, or nothing declared).
    let result: ParamType?

    public struct Key {
        public let bytes: UnsafePointer<UInt8>
        public let count: Int
        public let type: ParamType
        /// Optional with no default: a call may leave it out as it is.
        public let mayBeAbsent: Bool
    }

    init(_ contract: Contract) {
        self.contract = contract
        isUsable = contract.isUsable
        isLocal = contract.exposure == .local
        result = contract.isUsable && contract.result != .any ? contract.result : nil
        let keys = UnsafeMutableBufferPointer<Key>.allocate(capacity: contract.params.count)
        for (i, param) in contract.params.enumerated() {
            let utf8 = Array(param.name.utf8)
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(utf8.count, 1))
            bytes.initialize(from: utf8, count: utf8.count)
            keys.baseAddress!.advanced(by: i).initialize(to: Key(bytes: bytes, count: utf8.count, type: param.type,
                                                                    mayBeAbsent: !param.required && param.defaultValue == nil))
        }
        self.keys = UnsafeBufferPointer(keys)
    }

    deinit {
        for key in keys { UnsafeMutablePointer(mutating: key.bytes).deallocate() }
        UnsafeMutableBufferPointer(mutating: keys).deallocate()
    }
}
