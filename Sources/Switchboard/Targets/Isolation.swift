#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

// Main-actor isolation for actions, interceptors, observers and callbacks
// (issue 45). Code that declares it runs on the main actor and nowhere else:
//
// - on the main actor's thread, at once (nothing else of the main actor can
//   run meanwhile);
// - for a caller that does not wait (`await`, `sb_action_perform_async`),
//   on the main actor when it next runs: the call answers then;
// - for a caller that waits on another thread, an action or callback fails
//   at once with `.wouldBlock`: hopping there and waiting could wait
//   forever for a main actor that waits for this thread. An interceptor,
//   whose call waits only up to the interceptor's timeout, is run on the
//   main actor and waited for; an observer, which answers nothing, is told
//   there.
//
// And a call that waits on the main actor's thread for main-actor code that
// must suspend there (an `async` action or interceptor isolated to the main
// actor) fails at once with `.wouldBlock` instead of stalling for its timeout.

/// Whether this thread runs the main actor now.
///
/// The main actor's jobs run on the main dispatch queue. On Darwin that
/// queue is drained by the main thread; on Linux, once the program runs its
/// main queue (`dispatchMain`, an `async` main), by a thread of dispatch's
/// pool while the main thread sleeps: so the queue is asked (a value set on
/// it reads back only on the thread running it). (The concurrency runtime's
/// own check, `MainActor.assumeIsolated`, traps where the answer is no; its
/// form that does not trap is not public.) A program that never runs its
/// main queue (a C host) runs none of those jobs, and its main thread is then
/// where main-actor code may run without meeting any.
enum MainActorThread {
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil || isMainThread }

    #if canImport(Darwin)
    private static var isMainThread: Bool { pthread_main_np() != 0 }
    #else
    private typealias GetTID = @convention(c) () -> pid_t
    /// glibc's and musl's `gettid` (`syscall` cannot be called from Swift).
    private static let gettid: GetTID? = dlsym(nil, "gettid").map { unsafeBitCast($0, to: GetTID.self) }
    private static var isMainThread: Bool { gettid.map { $0() == getpid() } ?? false }
    #endif
}

enum MainActorCode {
    /// Whether `isolation` is the main actor's.
    static func isMain(_ isolation: (any Actor)?) -> Bool {
        guard let isolation else { return false }
        return ObjectIdentifier(isolation) == ObjectIdentifier(MainActor.shared)
    }

    /// Runs `body` at once if this thread runs the main actor; nil otherwise.
    static func onMainActor<R>(_ body: @MainActor () throws -> R) rethrows -> R? {
        guard MainActorThread.isCurrent else { return nil }
        // MainActor.assumeIsolated would trap on the main thread of a
        // program that does not run its main queue (a C host); that thread
        // is as safe (see MainActorThread). Synchronous main-actor code has
        // a plain function's calling convention: no isolation at run time.
        return try withoutActuallyEscaping(body) { body in
            try unsafeBitCast(body, to: (() throws -> R).self)()
        }
    }

    /// The level of the call whose action runs on this thread now.
    private static var level: Int { ThreadRecord.current.depth.pointee }

    /// Runs a main-actor action for the call at this thread's level: at
    /// once on the main actor; deferred to the main actor when the caller
    /// does not wait (throws ``Deferral/pending``, as a C action returns
    /// `SB_PENDING`); else `.wouldBlock`.
    static func runAction(_ label: String, _ body: @escaping @MainActor @Sendable () throws -> Value) throws -> Value {
        if let value = try onMainActor(body) { return value }
        guard !Deferral.callerWaits(level: level) else {
            throw SwitchboardError.wouldBlock(
                "\(label) is isolated to the main actor and its caller waits on a thread that does not run it: "
                + "await the call (try await mediator.call), or make it on the main actor")
        }
        return try Deferral.runBlocking({ _, _ in try await MainActor.run(body: body) }, on: nil, [:],
                                        label: label).get()
    }

    /// Runs an `async` action isolated to the main actor: as any `async`
    /// action, except that a caller waiting on the main actor, which that
    /// action needs, is refused at once.
    static func runAsyncAction(_ label: String,
                               _ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        if MainActorThread.isCurrent && Deferral.callerWaits(level: level) {
            throw SwitchboardError.wouldBlock(
                "\(label) is isolated to the main actor, and its caller waits for it on the main actor, where it "
                + "would run: await the call (try await mediator.call), or make it from another thread")
        }
        return try Deferral.runBlocking({ _, _ in try await body() }, on: nil, [:], label: label).get()
    }
}
