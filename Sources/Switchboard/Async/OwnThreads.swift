#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads the library starts by itself: the watch that times out calls
/// nobody waits for (`DetachedWatch`, "sb-watch") and the threads that run
/// `async` interceptors (`InterceptorExecutor`, "sb-intercept").
///
/// A host that forks (the scenario runner isolates each scenario in a child
/// process) must be single-threaded to do it safely. The watch exits when it
/// has nothing pending; `settle` asks it to exit now if that is so.
@_spi(Faces) public enum OwnThreads {
    /// Asks the library's threads that have nothing to do to exit, waiting
    /// up to `milliseconds`. Returns how many still run (0: none).
    public static func settle(waitingUpTo milliseconds: UInt32) -> Int {
        (DetachedWatch.shared.settle(waitingUpTo: milliseconds) ? 0 : 1) + InterceptorExecutor.shared.threadCount
    }
}

extension OwnThreads {
    /// Called by the thread about to start one of the library's threads:
    /// makes the lazy globals those threads use (Parking's buckets) first,
    /// alone. In a forked child the thread that forked holds its parent's
    /// thread id in the Swift runtime's lock of a lazy global (the runtime
    /// keeps each thread's id per thread, and a fork copies it), so a new
    /// thread waiting for the global it is making never gets it: the child
    /// hung, both threads in swift_once (a scenario's first call with a
    /// timeout: the runner's check of the installed examples).
    static func prepareToStart() {
        Parking.prepare()
    }

    /// Names the calling thread (15 bytes at most) where /proc shows it, so
    /// that a host listing its threads can tell the library's apart.
    /// (pthread_setname_np needs _GNU_SOURCE, which Glibc's module lacks.)
    static func nameThisThread(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, min($0.count - 1, 15)) }
        close(fd)
        #endif
    }
}
