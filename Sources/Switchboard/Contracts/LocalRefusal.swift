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
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread (on the refusal path only).
    static func note() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the calling thread was marked; clears the mark.
    static func take() -> Bool {
        guard pthread_getspecific(key) != nil else { return false }
        pthread_setspecific(key, nil)
        return true
    }
}
