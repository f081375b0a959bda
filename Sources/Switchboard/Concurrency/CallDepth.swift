#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How deeply calls may nest on one thread: a re-entrant perform that never
/// stops gets a clear error (`.rejected`) instead of a stack overflow.
///
/// Every call in progress is one level of its thread's record
/// (`EpochPins.enterCall`), counted across all mediators (they share the
/// stack). A call is refused when it would be deeper than
/// ``Mediator/maxCallDepth``, or when less than a reserve of the thread's
/// stack is left: a quarter of it, at most 256 KiB, for the refused call's
/// caller to unwind and for actions that need more stack than ours.
enum CallDepth {
    /// The most calls in progress on one thread (`SB_MAX_CALL_DEPTH` in C).
    static let limit = 1000

    /// Shallower calls are not checked: the stack test costs a little, and a
    /// few dozen frames fit on any thread.
    static let checkedFrom = 32

    /// Whether the call that `record` has just entered is too deep.
    @inline(__always)
    static func exceeded(_ record: ThreadRecord) -> Bool {
        let depth = record.depth.pointee
        guard depth > checkedFrom else { return false }
        if depth > limit { return true }
        // Only inside the thread's own stack: code running on another stack
        // (a fiber, a signal stack) is not checked against this one's end.
        let here = stackAddress()
        return here < record.stackFloor.pointee && here >= record.stackLow.pointee
    }

    /// `exceeded` at any depth: for a call taken up inside other code (a
    /// decision that resumes a suspended call, Interception/Steering.swift),
    /// whose levels cost more stack than a plain call's, so that a chain of
    /// them meets the stack's reserve before the first checked depth.
    static func exceededAtAnyDepth(_ record: ThreadRecord) -> Bool {
        if record.depth.pointee > limit { return true }
        let here = stackAddress()
        return here < record.stackFloor.pointee && here >= record.stackLow.pointee
    }

    /// The error for a call that `exceeded` refused.
    static func error(_ record: ThreadRecord, target: NameRef, action: NameRef) -> SwitchboardError {
        error(record, call: "\(target.string).\(action.string)")
    }

    /// Runs user code that is not a call's own target (a callback, a URL
    /// call's completion) as one more call in progress on this thread:
    /// whatever it performs is one level deeper. Refused with the depth
    /// error, `body` not run, when that level is too deep; so code that
    /// re-enters through it stops at the limit like a re-entrant perform.
    @inline(__always)
    static func entering<R>(_ what: @autoclosure () -> String,
                            _ body: () throws(SwitchboardError) -> R) throws(SwitchboardError) -> R {
        let record = pins.enterCall()
        defer { pins.leaveCall(record) }
        if exceeded(record) { throw error(record, call: what()) }
        return try body()
    }

    /// `EpochDomain.shared.pins`, without touching the domain object.
    static let pins = EpochDomain.shared.pins

    /// The error for user code that `exceeded` refused, named by `call`.
    static func error(_ record: ThreadRecord, call: String) -> SwitchboardError {
        if record.depth.pointee > limit {
            return .rejected("call depth limit: \(call) would be call \(record.depth.pointee) in progress "
                             + "on this thread (at most \(limit)); is a re-entrant perform recursing without end?")
        }
        return .rejected("call depth limit: \(call) refused at depth \(record.depth.pointee): "
                         + "this thread's stack is nearly used up")
    }

    /// An address in the caller's stack frame.
    @inline(never)
    private static func stackAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    /// The reserve at the end of the calling thread's stack, where no call
    /// may start: (its lowest address, that plus the reserve); (0, 0), no
    /// stack check, where unknown.
    static func stackReserveOfCallingThread() -> (low: UInt, floor: UInt) {
        #if os(Linux)
        var attributes = pthread_attr_t()
        guard let getattr = getattrNP, getattr(pthread_self(), &attributes) == 0 else { return (0, 0) }
        defer { pthread_attr_destroy(&attributes) }
        var low: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &low, &size) == 0, let low else { return (0, 0) }
        return (UInt(bitPattern: low), UInt(bitPattern: low) + UInt(min(256 << 10, size / 4)))
        #else
        return (0, 0)
        #endif
    }

    #if os(Linux)
    /// glibc's `pthread_getattr_np`, which the Glibc module hides (it is a GNU
    /// extension); the only way to learn the bounds of a thread's stack.
    private static let getattrNP: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self)
    }()
    #endif
}

extension Mediator {
    /// The most calls that may be in progress on one thread, across all
    /// mediators; a deeper call fails with `.rejected` (as it does when the
    /// thread's stack is nearly used up) before any target code runs.
    /// Every way user code re-enters counts: actions, callbacks, interceptors,
    /// observers (a refused call is not shown to them), the URL observer,
    /// completions, discoverers and the degrade handler run as part of a call
    /// in progress, so what they perform is one level deeper.
    public static var maxCallDepth: Int { CallDepth.limit }
}
