#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Ends the pending calls nobody waits for (`sb_action_perform_async`, `await`, a
/// Lua coroutine) at their deadline: no caller's thread is there to notice.
/// (A cancellation ends them on the cancelling thread: `Cancellation`.) One
/// thread, started by the first such call with a deadline; it sleeps until
/// the earliest deadline, kept first in a heap, and is woken only by an
/// earlier one. What it gives up on is delivered on it, so a callback that
/// blocks there delays other calls' timeouts (the header says so).
///
/// The thread exits when it has nothing left to watch, and the next call
/// with a deadline starts another: a process that made one such call does
/// not keep a thread of the library's for good (a forking host, such as the
/// scenario runner, needs to be single-threaded; `settle` lets it ask).
/// When no thread can be started, the call fails with `.outOfMemory`.
final class DetachedWatch: @unchecked Sendable {
    // @unchecked: the state is only reached under its lock.
    static let shared = DetachedWatch()

    /// The thread's name in /proc/self/task/*/comm (15 bytes at most).
    static let threadName = "sb-watch"

    private struct Watched {
        var heap: [(deadline: UInt64, completion: Completion)] = []
        /// A thread runs `run` (it may be about to exit: `running` is
        /// cleared under the lock before it does).
        var running = false
        /// The thread that ran last, to be joined: one that exited, or
        /// the one running.
        var thread: pthread_t?
        /// The process that started the thread: a forked child has none,
        /// and never joins the parent's (its handle may name a thread of
        /// the child's by now: glibc reuses a dead thread's descriptor).
        var startedIn: pid_t = 0
        /// The exit and fork handlers are registered (once per process
        /// image: a forked child inherits them, and this).
        var handlersRegistered = false
        /// The deadline the thread sleeps until.
        var sleepsUntil = UInt64.max
        /// Heap size at which delivered calls are dropped next.
        var pruneAt = 1024
        /// `settle` asks the thread to drop what was delivered, and to exit
        /// if nothing else is left.
        var settling = false
    }

    /// A pthread mutex (`Lock`), which ThreadSanitizer understands: the
    /// thread is started under it and takes it at once.
    private let lock = Lock()
    private var watched = Watched()

    private func locked<R>(_ body: (inout Watched) -> R) -> R {
        lock.withLock { body(&watched) }
    }
    /// Set when an earlier deadline arrives (or `settle` asks), so the
    /// sleeping thread looks again.
    private let changed = Atomic<Bool>(false)
    /// `Watched.running`, for `settle` to wait on without the mutex (a
    /// waiter holds its parking bucket's lock while it looks).
    private let threadRuns = Atomic<Bool>(false)
    /// `reapAtExit` began: the process is exiting, and nobody will join a
    /// thread started or ending from here on, so each detaches (read
    /// without the lock, which exit may not get).
    private let exiting = Atomic<Bool>(false)

    /// In a forked child, forgets the parent's calls and thread: they are
    /// not this process's.
    private func forgetParent(_ state: inout Watched) {
        guard state.startedIn != 0, state.startedIn != getpid() else { return }
        state = Watched(handlersRegistered: state.handlersRegistered)
        threadRuns.store(false, ordering: .sequentiallyConsistent)
    }

    /// Gives `completion` up at its deadline unless it is delivered first.
    /// Returns why it cannot be watched (no thread could be started), or nil.
    func watch(_ completion: Completion) -> SwitchboardError? {
        let deadline = completion.deadline
        let outcome = locked { state -> Result<Bool, SwitchboardError> in
            forgetParent(&state)
            if !state.running {
                // Joined here, not by the thread that exits: it has left
                // the lock, and takes no time to finish.
                if let old = state.thread { pthread_join(old, nil) }
                state.thread = nil
                OwnThreads.prepareToStart()
                var thread = pthread_t()
                let status = pthread_create(&thread, nil, { _ in
                    DetachedWatch.shared.run()
                    return nil
                }, nil)
                guard status == 0 else {
                    return .failure(.outOfMemory("cannot start the thread that times out asynchronous calls: "
                                                 + String(cString: strerror(status))))
                }
                if exiting.load(ordering: .sequentiallyConsistent) {
                    // Started by another exit handler: nobody will join it.
                    pthread_detach(thread)
                    (state.running, state.thread, state.startedIn) = (true, nil, getpid())
                } else {
                    (state.running, state.thread, state.startedIn) = (true, thread, getpid())
                }
                if !state.handlersRegistered {
                    state.handlersRegistered = true
                    atexit { DetachedWatch.shared.reapAtExit() }
                    pthread_atfork({ DetachedWatch.shared.reapBeforeFork() }, nil, nil)
                }
                threadRuns.store(true, ordering: .sequentiallyConsistent)
                state.sleepsUntil = .max
            }
            if state.heap.count >= state.pruneAt { Self.prune(&state) }
            Self.push(&state.heap, (deadline, completion))
            return .success(deadline < state.sleepsUntil)
        }
        switch outcome {
        case .failure(let error):
            return error
        case .success(let wake):
            if wake { wakeThread() }
            return nil
        }
    }

    /// Asks the thread to exit if it watches nothing that is still pending,
    /// and waits for it up to `milliseconds`. Returns whether no thread of
    /// this watch runs now.
    func settle(waitingUpTo milliseconds: UInt32) -> Bool {
        let deadline = Clock.now + UInt64(milliseconds) * 1_000_000
        let ask = locked { state -> Bool in
            forgetParent(&state)
            if state.running { state.settling = true }
            return state.running
        }
        if ask {
            wakeThread()
            _ = Parking.wait(on: self, until: deadline) { !threadRuns.load(ordering: .sequentiallyConsistent) }
        }
        return locked { state -> Bool in
            guard !state.running else { return false }
            if let old = state.thread { pthread_join(old, nil) }
            state.thread = nil
            return true
        }
    }

    /// At exit, joins a thread that exited idle and that nobody joined
    /// since, and detaches one still watching: a finished thread left
    /// unjoined keeps its stack until the process ends, and thread checkers
    /// report it as leaked — one still watching may finish during exit (its
    /// deadline passes while later exit handlers, or a checker's own exit
    /// wait, run). Exit never blocks here: the lock is tried for a moment
    /// only (a call pruning a large heap holds it for milliseconds, and a
    /// forked child may have inherited it held). Without it, `exiting` has
    /// the thread detach itself as it ends, and whoever holds the lock now
    /// joins one that ended already (`watch`, `settle`).
    private func reapAtExit() {
        exiting.store(true, ordering: .sequentiallyConsistent)
        guard Self.tryLock(lock, forNanoseconds: 10_000_000) else { return }
        defer { lock.unlock() }
        guard watched.startedIn == getpid(), let old = watched.thread else { return }
        if watched.running { pthread_detach(old) } else { pthread_join(old, nil) }
        watched.thread = nil
    }

    /// Before a fork (pthread_atfork), joins a thread that exited idle, so
    /// that the child inherits no finished thread that nobody can join
    /// (a checker reports it at the child's exit). Never waits for the lock.
    private func reapBeforeFork() {
        guard lock.tryLock() else { return }
        defer { lock.unlock() }
        guard !watched.running, watched.startedIn == getpid(), let old = watched.thread else { return }
        pthread_join(old, nil)
        watched.thread = nil
    }

    private static func tryLock(_ lock: Lock, forNanoseconds budget: UInt64) -> Bool {
        let giveUpAt = Clock.now + budget
        while !lock.tryLock() {
            guard Clock.now < giveUpAt else { return false }
            sched_yield()
        }
        return true
    }

    private func wakeThread() {
        changed.store(true, ordering: .sequentiallyConsistent)
        Parking.wake(self)
    }

    private func run() {
        OwnThreads.nameThisThread(Self.threadName)
        while true {
            changed.store(false, ordering: .sequentiallyConsistent)
            let now = Clock.now
            var due: [Completion] = []
            let next = locked { state -> UInt64? in
                while let first = state.heap.first, first.deadline <= now {
                    due.append(Self.pop(&state.heap).completion)
                }
                if state.settling {
                    state.settling = false
                    Self.prune(&state)
                }
                if state.heap.isEmpty && due.isEmpty {
                    // Nothing left: exit (`watch` starts another thread).
                    // No user code runs on this thread from here on, so
                    // whoever joins it next (`watch`, `settle`) waits for
                    // nothing but its exit. During the process's exit
                    // nobody may: it detaches itself (unless `reapAtExit`
                    // detached it already, and forgot its handle).
                    if exiting.load(ordering: .sequentiallyConsistent), state.thread != nil {
                        pthread_detach(pthread_self())
                        state.thread = nil
                    }
                    state.running = false
                    threadRuns.store(false, ordering: .sequentiallyConsistent)
                    return nil
                }
                state.sleepsUntil = state.heap.first?.deadline ?? .max
                return state.sleepsUntil
            }
            guard let next else {
                Parking.wake(self) // `settle` may wait for this
                return
            }
            // Outside the lock: a callback may start another call.
            for completion in due { completion.giveUp(Completion.State.timedOut) }
            if !due.isEmpty { continue } // look again: there may be nothing left
            _ = Parking.wait(on: self, until: next) { changed.load(ordering: .sequentiallyConsistent) }
        }
    }

    /// Drops the calls that ended already (they keep their place until
    /// their deadline otherwise).
    private static func prune(_ state: inout Watched) {
        state.heap = state.heap.filter { !$0.completion.isDelivered }
        heapify(&state.heap)
        state.pruneAt = max(1024, state.heap.count * 2)
    }

    // A binary min-heap on the deadline.

    private static func push(_ heap: inout [(deadline: UInt64, completion: Completion)],
                             _ item: (deadline: UInt64, completion: Completion)) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func pop(_ heap: inout [(deadline: UInt64, completion: Completion)])
        -> (deadline: UInt64, completion: Completion) {
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        siftDown(&heap, from: 0)
        return first
    }

    private static func siftDown(_ heap: inout [(deadline: UInt64, completion: Completion)], from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count && heap[left].deadline < heap[least].deadline { least = left }
            if right < heap.count && heap[right].deadline < heap[least].deadline { least = right }
            guard least != parent else { return }
            heap.swapAt(parent, least)
            parent = least
        }
    }

    private static func heapify(_ heap: inout [(deadline: UInt64, completion: Completion)]) {
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(&heap, from: index) }
    }
}
