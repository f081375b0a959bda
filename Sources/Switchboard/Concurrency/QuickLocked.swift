import Synchronization

/// A value under a lock taken on a hot path, for short sections that never
/// block (OpenCompletions' table, which every asynchronous answer takes
/// three or four times).
///
/// One compare-and-swap takes the lock and one swap gives it back while
/// nobody waits: about a fifth of a pthread mutex's pair, and less than
/// `Guarded`, whose Mutex asks for the thread's id each time. A thread that
/// finds it taken sleeps in `Parking` (a mutex and a condition), never
/// spins: after Drepper's futex mutex ("Futexes Are Tricky"), with Parking
/// in the futex's place, which Swift cannot call.
///
/// ThreadSanitizer cannot see these atomics in an uninstrumented library,
/// so when the process has it, taking and giving tell it, as `Guarded` and
/// the C lock (lock.h) do.
final class QuickLocked<Value>: @unchecked Sendable {
    // @unchecked: `value` is reached only under the lock.
    /// 0: free; 1: taken, nobody waits; 2: taken, someone may wait.
    private let state = Atomic<UInt32>(0)
    @exclusivity(unchecked) private var value: Value
    private let annotations = SanitizerAnnotations.present

    init(_ value: Value) {
        self.value = value
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        if !state.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                  failureOrdering: .relaxed).exchanged {
            sleepUntilTaken()
        }
        if let annotations { annotations.acquire(place) }
        defer {
            if let annotations { annotations.release(place) }
            // Someone may sleep (2): wake them; one takes it at 2, so that
            // its giving wakes the next.
            if state.exchange(0, ordering: .sequentiallyConsistent) == 2 { Parking.wake(self) }
        }
        return body(&value)
    }

    /// Taken by another thread: marks that someone waits (2) and sleeps
    /// until the swap finds it free. Parking asks under its bucket's mutex,
    /// which a waking takes, so no wake-up is lost between the asking and
    /// the sleep.
    @inline(never)
    private func sleepUntilTaken() {
        _ = Parking.wait(on: self, until: .max) { state.exchange(2, ordering: .sequentiallyConsistent) == 0 }
    }

    /// The lock's identity for the sanitizer: this object's address.
    private var place: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }
}
