#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where `async` interceptors run: threads of their own, not Swift's shared
/// pool. A call waits for its interceptor synchronously; when that call is
/// itself made on a pool thread (from a task, or a test), and the pool's few
/// threads are all waiting like it, an interceptor queued on the pool would
/// never start and every such call would time out. Here it starts whatever
/// the pool is doing.
///
/// One thread to begin with; another starts when a job arrives and every
/// thread is busy (an async interceptor making a call that waits for another
/// one, say), up to `maxThreads`. Past that, jobs wait their turn, and calls
/// waiting for them may time out. Threads stay for the process (named
/// "sb-intercept"; `OwnThreads` counts them). When none can be started,
/// jobs wait, and the calls waiting for them time out.
final class InterceptorExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `threads` and `idle` are reached only under
    // `mutex`; the condition variable is used only through pthread calls.
    static let shared = InterceptorExecutor()
    static let maxThreads = 16

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []
    private var threads = 0
    private var idle = 0

    private init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        ready.initialize(to: pthread_cond_t())
        pthread_cond_init(ready, nil)
    }

    /// Threads started so far.
    var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return threads
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        // More jobs waiting than threads free to take them: one more thread.
        if jobs.count > idle && threads < Self.maxThreads && startThread() { threads += 1 }
        pthread_cond_signal(ready)
        pthread_mutex_unlock(mutex)
    }

    private func startThread() -> Bool {
        var thread = pthread_t()
        let me = Unmanaged.passUnretained(self).toOpaque()
        OwnThreads.prepareToStart()
        guard pthread_create(&thread, nil, { me in
            Unmanaged<InterceptorExecutor>.fromOpaque(me!).takeUnretainedValue().run()
        }, me) == 0 else { return false }
        pthread_detach(thread)
        return true
    }

    private func run() -> Never {
        OwnThreads.nameThisThread("sb-intercept")
        while true {
            pthread_mutex_lock(mutex)
            idle += 1
            while jobs.isEmpty { pthread_cond_wait(ready, mutex) }
            idle -= 1
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
