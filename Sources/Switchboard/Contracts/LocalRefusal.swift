#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the calling thread's URL call was just refused at dispatch:
/// because its action is `local`, or because where it landed (after a
/// degrade rule or a fallback) fails the URL policy or the `native*` rule
/// (`Mediator.landing`). The refusal happens at dispatch, far from the URL and its
/// observer; the URL entry takes this mark when the call fails, and reports
/// the refusal then. A per-thread mark, not the error's text: an action that
/// rethrows the refusal of a URL it opened itself must not be reported as
/// refused, since it passed the policy and ran.
enum LocalRefusal {
    /// Marks the calling thread (on the refusal path only).
    static func note() {
        ThreadLocal.refusal.value = UnsafeMutableRawPointer(bitPattern: 1)
    }

    /// Whether the calling thread was marked; clears the mark.
    static func take() -> Bool {
        guard ThreadLocal.refusal.value != nil else { return false }
        ThreadLocal.refusal.value = nil
        return true
    }
}
