#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where calls wait for what answers later (an interceptor's decision, an
/// action's completion): a fixed set of buckets, each a mutex and a
/// condition, chosen by the address of what is waited on. A completion wakes
/// its bucket only, so N calls waiting on N completions that come over time
/// cost about N²/64 wake-ups in all, not N² (with one condition for the
/// process, 1,000 waiters answered 200 µs apart took 2.8-4.6 s; 1.1-2.1 s in
/// buckets: bench/c/herd.c). A cancellation may concern any waiter: it wakes
/// every bucket that has one. Nothing is allocated per call.
enum Parking {
    private final class Bucket: @unchecked Sendable {
        // @unchecked: pthread objects, only used through pthread calls; the count is atomic.
        let mutex: UnsafeMutablePointer<pthread_mutex_t>
        let condition: UnsafeMutablePointer<pthread_cond_t>
        /// Threads waiting here; a wake-up with none skips the lock.
        let waiters = Atomic<Int>(0)

        init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            condition = .allocate(capacity: 1)
            condition.initialize(to: pthread_cond_t())
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(condition, &attributes)
            pthread_condattr_destroy(&attributes)
            // Made by whichever thread first needs the buckets, and reached
            // by others through a lazy global's check, which
            // ThreadSanitizer cannot follow: it is told (`published`).
            SanitizerAnnotations.present?.release(place)
        }

        /// Before the mutex is used on a thread that may not have made it.
        func published() {
            SanitizerAnnotations.present?.acquire(place)
        }

        private var place: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

        func wake() {
            guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
            published()
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
    }

    private static let bucketCount = 64
    /// Made once, for the process's life: reached without counting
    /// references (every completion wakes its bucket).
    nonisolated(unsafe) private static let buckets: UnsafeMutablePointer<Borrowed<Bucket>> = {
        let buckets = UnsafeMutablePointer<Borrowed<Bucket>>.allocate(capacity: bucketCount)
        for i in 0..<bucketCount { (buckets + i).initialize(to: Borrowed(.passRetained(Bucket()))) }
        return buckets
    }()

    private static func bucket(_ object: AnyObject) -> Borrowed<Bucket> {
        // Objects are 16-byte aligned: the bits above those pick the bucket
        // (the address itself: hashing it would cost more than the wait's
        // bookkeeping).
        buckets[Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) % UInt(bucketCount))]
    }

    /// Makes the buckets now, if they are not yet (`OwnThreads.prepareToStart`).
    @inline(never)
    static func prepare() {
        _ = buckets
    }

    /// Wakes the calls waiting on `object`, to look at it again.
    static func wake(_ object: AnyObject) {
        bucket(object).read { $0.wake() }
    }

    /// Wakes every waiting call (a cancellation: any of them may hold it).
    static func wakeAll() {
        for i in 0..<bucketCount { buckets[i].read { $0.wake() } }
    }

    /// Waits until `done()` holds or the monotonic clock passes `deadline`
    /// (nanoseconds); `done` reads the state of `object`, which whoever
    /// changes it announces with `wake(object)` (or `wakeAll()`). Returns
    /// `done()`.
    static func wait(on object: AnyObject, until deadline: UInt64, _ done: () -> Bool) -> Bool {
        let bucket = bucket(object).unmanaged.takeUnretainedValue()
        bucket.waiters.add(1, ordering: .sequentiallyConsistent)
        defer { bucket.waiters.subtract(1, ordering: .sequentiallyConsistent) }
        bucket.published()
        pthread_mutex_lock(bucket.mutex)
        defer { pthread_mutex_unlock(bucket.mutex) }
        while !done() {
            guard Clock.now < deadline else { return false }
            var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            pthread_cond_timedwait(bucket.condition, bucket.mutex, &until)
        }
        return true
    }
}
