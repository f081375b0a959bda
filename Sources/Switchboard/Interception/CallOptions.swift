#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// How one call is made, beyond its target, action and params.
public struct CallOptions: Sendable {
    /// Words the caller attaches for interceptors and observers to read
    /// ("login-required", "from-push"). The mediator gives them no meaning.
    public var tags: [String]
    /// Skips every interceptor (ARouter's green channel), when
    /// ``Mediator/allowsBypass`` is on. Rules and observers still apply.
    public var bypassInterceptors: Bool
    /// Lets the caller, or anyone holding it, cancel the call in flight.
    public var cancellation: Cancellation?
    /// Keep the target instance the call makes (as `cacheTarget:`).
    public var cacheTarget: Bool
    /// How long the call waits for an action that answers later (an
    /// `async` action, a C action that returned `SB_PENDING`); past it the
    /// call fails with `.timeout`. Nil: as long as it takes. Calls made while
    /// this one runs wait no longer than it does.
    public var timeout: Duration?

    /// Options for one call; each default changes nothing.
    public init(tags: [String] = [], bypassInterceptors: Bool = false, cancellation: Cancellation? = nil,
                cacheTarget: Bool = false, timeout: Duration? = nil) {
        self.tags = tags
        self.bypassInterceptors = bypassInterceptors
        self.cancellation = cancellation
        self.cacheTarget = cacheTarget
        self.timeout = timeout
    }

    /// No tags, no cancellation, no timeout, no caching: a plain call.
    public static let none = CallOptions()

    /// Options that change nothing take the same path as a plain call.
    var isPlain: Bool { tags.isEmpty && !bypassInterceptors && cancellation == nil && timeout == nil }

    /// `timeout` from now, in monotonic nanoseconds; `.max` for none.
    var deadline: UInt64 {
        guard let timeout else { return .max }
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0 && attoseconds >= 0 else { return Clock.now }
        let nanoseconds = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let sum = Clock.now.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        guard !nanoseconds.overflow, !sum.overflow else { return .max }
        let deadline = sum.partialValue.addingReportingOverflow(nanoseconds.partialValue)
        return deadline.overflow ? .max : deadline.partialValue
    }
}

/// A flag the caller sets to cancel a call in flight. A cancelled call stops
/// waiting for interceptors (`.canceled`), is not started if it has not
/// reached its target, and a running target can ask ``Mediator/isCancelled``
/// to stop early. Cancelling is thread-safe and cannot be undone.
public final class Cancellation: @unchecked Sendable {
    // @unchecked: the flag is atomic, the watched calls behind a mutex.
    private let flag = Atomic<Bool>(false)

    /// A token not yet cancelled; pass it in the `cancellation` of the
    /// `CallOptions` of the calls it may cancel (one token may serve many).
    public init() {}

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Cancels every call made with this token: one waiting for an
    /// interceptor or for an answer fails with `.canceled`, one that has not
    /// reached its target never does, and a running action can see it
    /// (``Mediator/isCancelled``). Calling it again does nothing.
    public func cancel() {
        guard !flag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Parking.wakeAll() // calls waiting for an interceptor look again
        // Calls nobody waits for end here, on the cancelling thread, in the
        // order they were watched.
        let watched = detached.withLock { watched in
            defer { watched = Watched() }
            return watched.calls.values.sorted { $0.order < $1.order }
        }
        for call in watched { call.completion.giveUp(Completion.State.cancelled) }
    }

    /// Pending calls with this token that nobody waits for
    /// (`sb_action_perform_async`, `await`): `cancel` gives them up. Each
    /// leaves as it is delivered (`forget`), in constant time: a token may
    /// serve thousands of calls at once. No other lock is taken under this
    /// one, and a completion forgets itself outside its own lock: the two
    /// taken in both orders deadlocked once.
    private struct Watched {
        var calls: [ObjectIdentifier: (order: UInt64, completion: Completion)] = [:]
        var next: UInt64 = 0
    }
    private let detached = Guarded<Watched>(Watched())

    /// Stops watching `completion` (delivered).
    func forget(_ completion: Completion) {
        detached.withLock { _ = $0.calls.removeValue(forKey: ObjectIdentifier(completion)) }
    }

    /// Watches `completion` until it is delivered (`forget`); false if the
    /// token is cancelled already (the caller gives it up).
    func watch(_ completion: Completion) -> Bool {
        detached.withLock { watched in
            watched.calls[ObjectIdentifier(completion)] = (watched.next, completion)
            watched.next += 1
        }
        // Delivered meanwhile (its completer claims, then forgets it here,
        // and may have done so before the insertion): it leaves again, or
        // the token and the call would keep each other alive.
        if completion.isDelivered { forget(completion) }
        // After the insertion: a cancel that came before it took the calls already.
        return !isCancelled
    }
}

extension Mediator {
    /// Whether the call this thread is running (or one it was made from) has
    /// been cancelled. A long action polls it to stop early.
    public static var isCancelled: Bool { CurrentCall.cancellation?.isCancelled ?? false }
}

/// The cancellation, deadline and tags of the call running on this thread,
/// while it runs.
enum CurrentCall {
    /// What the innermost call with options set for the calls it runs.
    final class Frame {
        let cancellation: Cancellation?
        /// Monotonic nanoseconds; `.max` for none.
        let deadline: UInt64
        /// The call's own tags, for its action (``CallContext``): only the
        /// call at `level` has them; calls it makes inherit the rest.
        let tags: [String]
        let level: Int

        init(cancellation: Cancellation?, deadline: UInt64, tags: [String], level: Int) {
            self.cancellation = cancellation
            self.deadline = deadline
            self.tags = tags
            self.level = level
        }
    }

    private static var frame: Frame? {
        ThreadLocal.callFrame.value.map { Unmanaged<Frame>.fromOpaque($0).takeUnretainedValue() }
    }

    /// `frame` from this thread's record, looked up already.
    private static func frame(_ record: ThreadRecord) -> Frame? {
        record.local(.callFrame).pointee.map { Unmanaged<Frame>.fromOpaque($0).takeUnretainedValue() }
    }

    static var cancellation: Cancellation? { frame?.cancellation }

    /// `cancellation`, from this thread's record.
    static func cancellation(_ record: ThreadRecord) -> Cancellation? { frame(record)?.cancellation }

    /// When a call running here stops waiting for a deferred answer.
    static var deadline: UInt64 { frame?.deadline ?? .max }

    /// `deadline`, from this thread's record.
    static func deadline(_ record: ThreadRecord) -> UInt64 { frame(record)?.deadline ?? .max }

    /// Runs `body` with the cancellation and deadline of `options` as the
    /// current ones. A call inside keeps its caller's cancellation unless it
    /// has one, and never waits past its caller's deadline.
    static func with<R>(_ options: CallOptions, _ body: () -> R) -> R {
        guard options.cancellation != nil || options.timeout != nil || !options.tags.isEmpty else { return body() }
        let outer = frame
        let record = ThreadRecord.current
        let current = Frame(cancellation: options.cancellation ?? outer?.cancellation,
                            deadline: min(options.deadline, outer?.deadline ?? .max), tags: options.tags,
                            level: record.depth.pointee)
        let word = record.local(.callFrame)
        let previous = word.pointee
        word.pointee = Unmanaged.passUnretained(current).toOpaque()
        defer { word.pointee = previous }
        return withExtendedLifetime(current) { body() }
    }

    /// Runs `body`, the call whose `snapshot()` this is, in that frame
    /// again, and in no frame of the thread's own: a call that left its
    /// thread (Interception/Steering.swift) is not one of the calls running
    /// where it is taken up, which only happen to end its wait.
    static func restoring<R>(_ saved: Snapshot?, _ body: () -> R) -> R {
        let record = ThreadRecord.current
        let current = saved.map {
            Frame(cancellation: $0.cancellation, deadline: $0.deadline, tags: $0.tags, level: record.depth.pointee)
        }
        let word = record.local(.callFrame)
        let previous = word.pointee
        word.pointee = current.map { Unmanaged.passUnretained($0).toOpaque() }
        defer { word.pointee = previous }
        return withExtendedLifetime(current) { body() }
    }

    /// What an action may read of the call running it (``CallContext``),
    /// taken on the thread that runs the call.
    struct Snapshot: Sendable {
        let cancellation: Cancellation?
        /// Monotonic nanoseconds; `.max` for none.
        let deadline: UInt64
        let tags: [String]
    }

    /// The snapshot for the action of the call at this thread's current
    /// level: the tags are the call's own; cancellation and deadline may
    /// come from the calls it was made from. Nil when no call with options
    /// runs here (no tags, no deadline, no token).
    static func snapshot() -> Snapshot? {
        guard let frame else { return nil }
        let level = ThreadRecord.current.depth.pointee
        return Snapshot(cancellation: frame.cancellation, deadline: frame.deadline,
                        tags: frame.level == level ? frame.tags : [])
    }

    /// The snapshot an `async` action's task runs with (`Deferral.runBlocking`
    /// binds it: the calling thread's state does not reach the task).
    @TaskLocal static var ofTask: Snapshot?
}

/// The monotonic clock, in nanoseconds.
enum Clock {
    static var now: UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}
