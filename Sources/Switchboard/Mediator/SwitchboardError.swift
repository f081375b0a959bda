/// Why a call did not produce a value.
///
/// Every case carries a message for people; `code` is what programs act on,
/// and it is the same number as the C face's `sb_status`.
public enum SwitchboardError: Error, Sendable {
    /// A caller passed something unusable: an empty name, a name with a NUL.
    case invalidArgument(String)
    /// No target answers to the name (and no fallback did either).
    case noTarget(String)
    /// The target exists but has neither the action nor `notFound`.
    case noAction(String)
    /// The action (or callback) ran and failed. `underlying` is the Swift error
    /// it threw; it is nil when the failure came from C or Lua as a message.
    case actionFailed(String, underlying: (any Error)?)
    /// A value had the wrong kind for what was asked of it (a result against
    /// its contract), or a target is not of a service interface's kind.
    case typeMismatch(String)
    /// A policy refused the call before any target code ran.
    case rejected(String)
    /// A URL could not be parsed.
    case badURL(String)
    /// An allocation failed.
    case outOfMemory(String)
    /// The callee belongs to another thread (a Lua state) and was queued to
    /// run there later; there is no result for this call.
    case queued(String)
    /// An interceptor did not decide within its timeout (the message names it).
    case timeout(String)
    /// The caller cancelled the call (``Cancellation``).
    case canceled(String)
    /// The params broke the action's ``Contract``: a required key missing, a
    /// value of the wrong type (the message names the key and both types).
    case badParams(String)
    /// Waiting for the call would block a thread that must not block: a
    /// synchronous call of an asynchronous action from inside a Swift task
    /// (Swift's cooperative pool). `await` the call instead.
    case wouldBlock(String)
    /// A lookup that is not a call found nothing under the name or id:
    /// removing or describing what is not there, an unknown id, an
    /// undefined service, a completion that is not open. (A call that finds
    /// no target or action fails with `.noTarget` or `.noAction`.)
    case notFound(String)

    /// Status codes shared by all three faces. The raw values are the
    /// `sb_status` values of `include/switchboard.h`, never renumbered or
    /// reused (a new code gets the next number); a test keeps them equal.
    public enum Code: Int32, Sendable, CaseIterable {
        case invalidArgument = 1
        case noTarget = 2
        case noAction = 3
        case actionFailed = 4
        case typeMismatch = 5
        case rejected = 6
        case badURL = 7
        case outOfMemory = 8
        case queued = 9
        case timeout = 10
        case canceled = 11
        case badParams = 12
        case wouldBlock = 13
        case notFound = 14

        /// The short name used in C (`SB_` + name) and Lua (`"ENOTARGET"`).
        public var name: String {
            switch self {
            case .invalidArgument: "EINVAL"
            case .noTarget: "ENOTARGET"
            case .noAction: "ENOACTION"
            case .actionFailed: "EACTION"
            case .typeMismatch: "ETYPE"
            case .rejected: "EREJECTED"
            case .badURL: "EBADURL"
            case .outOfMemory: "ENOMEM"
            case .queued: "EQUEUED"
            case .timeout: "ETIMEOUT"
            case .canceled: "ECANCELED"
            case .badParams: "EPARAMS"
            case .wouldBlock: "EWOULDBLOCK"
            case .notFound: "ENOTFOUND"
            }
        }
    }

    /// Builds the error for a status and message that came from another face.
    public init(code: Code, message: String) {
        switch code {
        case .invalidArgument: self = .invalidArgument(message)
        case .noTarget: self = .noTarget(message)
        case .noAction: self = .noAction(message)
        case .actionFailed: self = .actionFailed(message, underlying: nil)
        case .typeMismatch: self = .typeMismatch(message)
        case .rejected: self = .rejected(message)
        case .badURL: self = .badURL(message)
        case .outOfMemory: self = .outOfMemory(message)
        case .queued: self = .queued(message)
        case .timeout: self = .timeout(message)
        case .canceled: self = .canceled(message)
        case .badParams: self = .badParams(message)
        case .wouldBlock: self = .wouldBlock(message)
        case .notFound: self = .notFound(message)
        }
    }

    public var code: Code {
        switch self {
        case .invalidArgument: .invalidArgument
        case .noTarget: .noTarget
        case .noAction: .noAction
        case .actionFailed: .actionFailed
        case .typeMismatch: .typeMismatch
        case .rejected: .rejected
        case .badURL: .badURL
        case .outOfMemory: .outOfMemory
        case .queued: .queued
        case .timeout: .timeout
        case .canceled: .canceled
        case .badParams: .badParams
        case .wouldBlock: .wouldBlock
        case .notFound: .notFound
        }
    }

    public var message: String {
        switch self {
        case .invalidArgument(let m), .noTarget(let m), .noAction(let m), .typeMismatch(let m),
             .rejected(let m), .badURL(let m), .outOfMemory(let m), .queued(let m), .timeout(let m), .canceled(let m),
             .badParams(let m), .wouldBlock(let m), .notFound(let m):
            m
        case .actionFailed(let m, _):
            m
        }
    }

    /// Wraps whatever an action or callback threw. A `SwitchboardError` passes
    /// through unchanged (an action may fail with any status, as in C); any
    /// other error becomes `.actionFailed` naming `what` failed.
    static func wrapping(_ error: any Error, in what: @autoclosure () -> String) -> SwitchboardError {
        if let own = error as? SwitchboardError { return own }
        return .actionFailed("\(what()) failed: \(error)", underlying: error)
    }
}

extension SwitchboardError: CustomStringConvertible {
    public var description: String { "\(code.name): \(message)" }
}
