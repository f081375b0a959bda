#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex in stable heap memory.
///
/// For state a class guards with a lock it can also try (`tryLock`) or take
/// across calls; a value under a lock is `Guarded`'s. ThreadSanitizer
/// understands pthread mutexes. Only writers (registration, discovery) take
/// locks; `perform` never does.
@_spi(Faces) public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        // Many locks are made by whichever thread first needs a lazy global
        // (the epoch domain, the timeout watch) and reached by others
        // through its check, which ThreadSanitizer cannot follow in this
        // uninstrumented library: it is told that the mutex was published,
        // or it reports its first use elsewhere as a race.
        SanitizerAnnotations.present?.release(mutex)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func lock() {
        SanitizerAnnotations.present?.acquire(mutex)
        pthread_mutex_lock(mutex)
    }

    public func unlock() { pthread_mutex_unlock(mutex) }

    public func tryLock() -> Bool {
        SanitizerAnnotations.present?.acquire(mutex)
        return pthread_mutex_trylock(mutex) == 0
    }

    @inline(__always)
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
