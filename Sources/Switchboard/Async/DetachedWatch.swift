#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Ends the pending calls nobody waits for (`sb_perform_async`, `await`,
/// a Lua coroutine) at their deadline or when they are cancelled: no
/// caller's thread is there to notice. One thread, started by the first
/// such call with a deadline or a cancellation token; it sleeps until the
/// earliest deadline, and a cancellation wakes it (`Parking.wakeAll`).
/// What it gives up on is delivered on it (`Completion.giveUp`).
final class DetachedWatch: @unchecked Sendable {
    // @unchecked: the list is only reached under its mutex.
    static let shared = DetachedWatch()

    private let watched = Mutex<(list: [Completion], started: Bool)>(([], false))
    /// Set when the list changes, so a sleeping watch looks again.
    private let changed = Atomic<Bool>(false)

    /// Watches `completion` until it is delivered.
    func watch(_ completion: Completion) {
        let start = watched.withLock { state -> Bool in
            state.list.append(completion)
            defer { state.started = true }
            return !state.started
        }
        changed.store(true, ordering: .sequentiallyConsistent)
        if start { startThread() } else { Parking.wake(self) }
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
            var due: [(Completion, Int)] = []
            let earliest = watched.withLock { state -> UInt64 in
                var earliest = UInt64.max
                state.list.removeAll { completion in
                    if completion.isDelivered { return true }
                    if completion.isCancelled { due.append((completion, Completion.State.cancelled)); return true }
                    if completion.deadline <= now { due.append((completion, Completion.State.timedOut)); return true }
                    earliest = min(earliest, completion.deadline)
                    return false
                }
                return earliest
            }
            // Outside the lock: a consumer may start another call.
            for (completion, reason) in due { completion.giveUp(reason) }
            due.removeAll()
            _ = Parking.wait(on: self, until: earliest) {
                changed.load(ordering: .sequentiallyConsistent) || anyCancelled()
            }
        }
    }

    private func anyCancelled() -> Bool {
        watched.withLock { state in state.list.contains { $0.isCancelled } }
    }
}
