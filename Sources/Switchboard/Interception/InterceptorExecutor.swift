#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where `async` interceptors run: one thread of their own, not Swift's
/// shared pool. A call waits for its interceptor synchronously; when that
/// call is itself made on a pool thread (from a task, or a test), and the
/// pool's few threads are all waiting like it, an interceptor queued on the
/// pool would never start and every such call would time out. Here it
/// starts whatever the pool is doing.
///
/// An interceptor that blocks this thread (by making a call that waits for
/// another async interceptor) delays the others until its timeout.
final class InterceptorExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is reached only under `mutex`; the thread and the
    // condition variable are used only through pthread calls.
    static let shared = InterceptorExecutor()

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []
    private var started = false

    private init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        ready.initialize(to: pthread_cond_t())
        pthread_cond_init(ready, nil)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        if !started { started = startThread() }
        pthread_cond_signal(ready)
        pthread_mutex_unlock(mutex)
    }

    /// Starts the thread (the first time a job arrives). The process keeps it.
    private func startThread() -> Bool {
        var thread = pthread_t()
        let me = Unmanaged.passUnretained(self).toOpaque()
        return pthread_create(&thread, nil, { me in
            Unmanaged<InterceptorExecutor>.fromOpaque(me!).takeUnretainedValue().run()
        }, me) == 0 && pthread_detach(thread) == 0
    }

    private func run() -> Never {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(ready, mutex) }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
