import Testing
@_spi(Faces) @testable import Switchboard
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `Guarded` under contention. Under ThreadSanitizer (scripts/test.sh runs
/// this suite so) a plain `Synchronization.Mutex` in its place makes the
/// sanitizer report a race here and the run fail: the second thread waits
/// in the kernel, where the sanitizer cannot see the lock handed over.
@Suite("Guarded: a lock ThreadSanitizer sees")
struct GuardedTests {
    /// What the threads share: `plain` is written only under `lock`, but is
    /// not part of its value, as a class's fields under its lock are not.
    final class Shared: @unchecked Sendable {
        // @unchecked: `plain` is only touched under `lock`.
        let lock = Guarded(0)
        var plain = 0
    }

    @Test("a value handed over under a contended lock is no race; every increment counts")
    func contendedHandOver() {
        let shared = Shared()
        let rounds = 50
        for _ in 0..<rounds {
            var thread = pthread_t()
            let started: Int32 = shared.lock.withLock { _ in
                let box = Unmanaged.passRetained(shared).toOpaque()
                let status = pthread_create(&thread, nil, { raw in
                    let shared = Unmanaged<Shared>.fromOpaque(raw!).takeRetainedValue()
                    shared.lock.withLock { count in
                        count += 1
                        shared.plain += 1
                    }
                    return nil
                }, box)
                if status != 0 { Unmanaged<Shared>.fromOpaque(box).release() }
                // Long enough for the other thread to block on the lock.
                usleep(1_000)
                shared.plain += 1
                return status
            }
            #expect(started == 0)
            if started == 0 { pthread_join(thread, nil) }
        }
        #expect(shared.plain == 2 * rounds)
        #expect(shared.lock.withLock { $0 } == rounds)
    }
}
