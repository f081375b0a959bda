/// Why a call did not produce a value: a status ``code`` that programs act
/// on, a ``message`` for people, and the Swift error an action threw, if any.
///
/// A struct, not an enum, so that a new status (the README's "Versions"
/// promises them in minor releases) breaks no `switch`: switch on the code,
/// with a `default`, as on swift-nio's status types:
///
///     do { try await mediator.call(target: "A", action: "show") }
///     catch {
///         switch error.code {
///         case .noTarget, .noAction: showMissingFeature()
///         case .canceled: break
///         default: report(error.message)
///         }
///     }
///
/// (`switch error { case .noTarget: ... }` matches codes too.) The code is
/// the same number as the C face's `sb_status`.
public struct SwitchboardError: Error, Sendable {
    // One reference: every call's result is a Result<Value, SwitchboardError>,
    // which stays as small as a Value (a code, a string and an error inline
    // made it twice that, copied on every call).
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let underlying: (any Error)?

        init(code: Code, message: String, underlying: (any Error)?) {
            self.code = code
            self.message = message
            self.underlying = underlying
        }
    }

    private let storage: Storage

    /// What programs act on: the same number in every face.
    public var code: Code { storage.code }
    /// What people read; never empty for errors the mediator makes.
    public var message: String { storage.message }
    /// The Swift error an action, callback or interceptor threw, when the
    /// failure came from one; nil when it came from C or Lua as a message.
    public var underlying: (any Error)? { storage.underlying }

    /// An error to throw from an action (any code, as a C action may return
    /// any status); `underlying` keeps a Swift error it stands for.
    public init(code: Code, message: String, underlying: (any Error)? = nil) {
        storage = Storage(code: code, message: message, underlying: underlying)
    }

    /// Builds the error for a status and message that came from another face.
    public init(code: Code, message: String) {
        self.init(code: code, message: message, underlying: nil)
    }

    /// A status code shared by all three faces. The raw values are the
    /// `sb_status` values of `include/switchboard.h`, never renumbered or
    /// reused (a new code gets the next number; a test keeps them equal).
    /// New codes may come in minor releases: a `switch` over codes needs a
    /// `default`.
    public struct Code: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The `sb_status` number (1 and up; 0, success, is no code).
        public let rawValue: Int32

        /// The code of `rawValue`, or nil when no status has that number.
        public init?(rawValue: Int32) {
            guard Self.names.indices.contains(Int(rawValue)), rawValue > 0 else { return nil }
            self.rawValue = rawValue
        }

        private init(_ rawValue: Int32) { self.rawValue = rawValue }

        /// A caller passed something unusable: an empty name, a name with a NUL.
        public static let invalidArgument = Code(1)
        /// No target answers to the name (and no fallback did either).
        public static let noTarget = Code(2)
        /// The target exists but has neither the action nor `notFound`.
        public static let noAction = Code(3)
        /// The action (or callback) ran and failed.
        public static let actionFailed = Code(4)
        /// A value had the wrong kind for what was asked of it (a result
        /// against its contract), or a target is not of a service interface's kind.
        public static let typeMismatch = Code(5)
        /// A policy refused the call before any target code ran.
        public static let rejected = Code(6)
        /// A URL could not be parsed.
        public static let badURL = Code(7)
        /// An allocation failed.
        public static let outOfMemory = Code(8)
        /// The callee belongs to another thread (a Lua state) and was queued
        /// to run there later; there is no result for this call.
        public static let queued = Code(9)
        /// The call did not end within its timeout, or an interceptor did
        /// not decide within its own (the message names it).
        public static let timeout = Code(10)
        /// The caller cancelled the call (``Cancellation``, or the awaiting
        /// task), or the action threw Swift's `CancellationError`.
        public static let canceled = Code(11)
        /// The params broke the action's ``Contract``: a required key missing,
        /// a value of the wrong type (the message names the key and both types).
        public static let badParams = Code(12)
        /// Waiting for the call would block a thread that must not block (a
        /// thread of Swift's cooperative pool), or could never end (the main
        /// thread waiting for main-actor code): `await` the call instead.
        public static let wouldBlock = Code(13)
        /// A lookup that is not a call found nothing under the name or id:
        /// removing or describing what is not there, an unknown id, an
        /// undefined service, a completion that is not open. (A call that
        /// finds no target or action fails with `.noTarget` or `.noAction`.)
        public static let notFound = Code(14)

        /// Every status's name, by number (0 is success, which is no code).
        /// The one table of names: the C face's `sb_status_name` and the Lua
        /// module (through it) read these.
        private static let names: [StaticString] = [
            "OK", "EINVAL", "ENOTARGET", "ENOACTION", "EACTION", "ETYPE", "EREJECTED", "EBADURL", "ENOMEM",
            "EQUEUED", "ETIMEOUT", "ECANCELED", "EPARAMS", "EWOULDBLOCK", "ENOTFOUND",
        ]

        /// Every code this version knows, in number order.
        public static var allCases: [Code] { (1..<Int32(names.count)).map(Code.init) }

        /// The short name used in C (`SB_` + name) and Lua (`"ENOTARGET"`).
        public var name: String { staticName.description }

        /// `name` as static text (the C face hands out its bytes).
        @_spi(Faces) public var staticName: StaticString { Self.names[Int(rawValue)] }

        /// The short name, as `name`: "ENOTARGET".
        public var description: String { name }
    }

    /// Whether the call was cancelled (`.canceled`), as Swift's
    /// `CancellationError` says of a task.
    public var isCancellation: Bool { code == .canceled }

    /// Lets `switch error { case .noTarget: ... }` match codes.
    public static func ~= (pattern: Code, value: SwitchboardError) -> Bool { value.code == pattern }

    /// Wraps whatever an action or callback threw. A `SwitchboardError` passes
    /// through unchanged (an action may fail with any status, as in C); Swift's
    /// `CancellationError` becomes `.canceled`; any other error becomes
    /// `.actionFailed` naming `what` failed.
    static func wrapping(_ error: any Error, in what: @autoclosure () -> String) -> SwitchboardError {
        if let own = error as? SwitchboardError { return own }
        if error is CancellationError {
            return SwitchboardError(code: .canceled, message: "\(what()) was cancelled", underlying: error)
        }
        return .actionFailed("\(what()) failed: \(error)", underlying: error)
    }
}

// The 1.x spellings, which were enum cases: each makes the error of its code
// (`throw .noTarget("...")` still reads as before). Matching one with a
// binding (`case .noTarget(let message)`) is what changed: match the code
// (`case .noTarget:`, or `error.code == .noTarget`) and read `message`.
extension SwitchboardError {
    /// An error of code `.invalidArgument` saying `message`.
    public static func invalidArgument(_ message: String) -> SwitchboardError { .init(code: .invalidArgument, message: message) }
    /// An error of code `.noTarget` saying `message`.
    public static func noTarget(_ message: String) -> SwitchboardError { .init(code: .noTarget, message: message) }
    /// An error of code `.noAction` saying `message`.
    public static func noAction(_ message: String) -> SwitchboardError { .init(code: .noAction, message: message) }
    /// An error of code `.actionFailed` saying `message`, keeping the Swift
    /// error that caused it, if any.
    public static func actionFailed(_ message: String, underlying: (any Error)?) -> SwitchboardError {
        .init(code: .actionFailed, message: message, underlying: underlying)
    }
    /// An error of code `.typeMismatch` saying `message`.
    public static func typeMismatch(_ message: String) -> SwitchboardError { .init(code: .typeMismatch, message: message) }
    /// An error of code `.rejected` saying `message`.
    public static func rejected(_ message: String) -> SwitchboardError { .init(code: .rejected, message: message) }
    /// An error of code `.badURL` saying `message`.
    public static func badURL(_ message: String) -> SwitchboardError { .init(code: .badURL, message: message) }
    /// An error of code `.outOfMemory` saying `message`.
    public static func outOfMemory(_ message: String) -> SwitchboardError { .init(code: .outOfMemory, message: message) }
    /// An error of code `.queued` saying `message`.
    public static func queued(_ message: String) -> SwitchboardError { .init(code: .queued, message: message) }
    /// An error of code `.timeout` saying `message`.
    public static func timeout(_ message: String) -> SwitchboardError { .init(code: .timeout, message: message) }
    /// An error of code `.canceled` saying `message`.
    public static func canceled(_ message: String) -> SwitchboardError { .init(code: .canceled, message: message) }
    /// An error of code `.badParams` saying `message`.
    public static func badParams(_ message: String) -> SwitchboardError { .init(code: .badParams, message: message) }
    /// An error of code `.wouldBlock` saying `message`.
    public static func wouldBlock(_ message: String) -> SwitchboardError { .init(code: .wouldBlock, message: message) }
    /// An error of code `.notFound` saying `message`.
    public static func notFound(_ message: String) -> SwitchboardError { .init(code: .notFound, message: message) }
}

extension SwitchboardError: CustomStringConvertible {
    /// "ENOTARGET: no target named ...": the code's name and the message.
    public var description: String { "\(code.name): \(message)" }
}
