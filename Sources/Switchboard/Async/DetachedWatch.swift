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
final class DetachedWatch: @unchecked Sendable {
    // @unchecked: the heap is only reached under its mutex.
    static let shared = DetachedWatch()

    private struct Watched {
        var heap: [(deadline: UInt64, completion: Completion)] = []
        var started = false
        /// The process that started the thread: a forked child has none.
        var startedIn: pid_t = 0
        /// The deadline the thread sleeps until.
        var sleepsUntil = UInt64.max
        /// Heap size at which delivered calls are dropped next.
        var pruneAt = 1024
    }

    private let watched = Mutex(Watched())
    /// Set when an earlier deadline arrives, so the sleeping thread looks again.
    private let changed = Atomic<Bool>(false)

    /// Gives `completion` up at its deadline unless it is delivered first.
    func watch(_ completion: Completion) {
        let deadline = completion.deadline
        let (start, wake) = watched.withLock { state -> (Bool, Bool) in
            if state.started && state.startedIn != getpid() {
                // Forked: the parent's calls are not this process's to end.
                state = Watched()
            }
            if state.heap.count >= state.pruneAt {
                // Calls that ended keep their place until their deadline:
                // dropped in bulk as the heap doubles.
                state.heap = state.heap.filter { !$0.completion.isDelivered }
                Self.heapify(&state.heap)
                state.pruneAt = max(1024, state.heap.count * 2)
            }
            Self.push(&state.heap, (deadline, completion))
            defer { (state.started, state.startedIn) = (true, getpid()) }
            return (!state.started, deadline < state.sleepsUntil)
        }
        if start { return startThread() }
        if wake {
            changed.store(true, ordering: .sequentiallyConsistent)
            Parking.wake(self)
        }
    }

    private func startThread() {
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in DetachedWatch.shared.run() }, nil)
        precondition(started == 0, "Switchboard: cannot start the thread that times out asynchronous calls")
        pthread_detach(thread)
    }

    private func run() -> Never {
        while true {
            changed.store(false, ordering: .sequentiallyConsistent)
            let now = Clock.now
            var due: [Completion] = []
            let next = watched.withLock { state -> UInt64 in
                while let first = state.heap.first, first.deadline <= now {
                    due.append(Self.pop(&state.heap).completion)
                }
                state.sleepsUntil = state.heap.first?.deadline ?? .max
                return state.sleepsUntil
            }
            // Outside the lock: a callback may start another call.
            for completion in due { completion.giveUp(Completion.State.timedOut) }
            due.removeAll()
            _ = Parking.wait(on: self, until: next) { changed.load(ordering: .sequentiallyConsistent) }
        }
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
