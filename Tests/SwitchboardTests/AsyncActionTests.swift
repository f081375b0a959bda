import Testing
import Synchronization
import Foundation
@_spi(Faces) @testable import Switchboard

/// Swift `async` actions called synchronously (issue 21): the caller waits on
/// its own thread, never on a thread of Swift's cooperative pool; the call's
/// timeout and cancellation end the wait and cancel the action's task.
@Suite struct AsyncActionTests {
    /// Runs `body` on a thread of its own (outside every Swift task) and
    /// returns what it returned. The test awaits it: blocking a thread of
    /// the cooperative pool here could starve the tasks the actions run on.
    static func onThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Polls without blocking a thread of the pool (the cancelled task needs one).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<5000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    static func mediator(_ started: Counter = Counter(), _ cancelled: Counter = Counter()) throws -> Mediator {
        let m = Mediator()
        try m.register(target: "Net", action: "double") { params async throws -> Value in
            started.increment()
            try await Task.sleep(for: .milliseconds(20))
            return .int((params["n"]?.int ?? 0) * 2)
        }
        try m.register(target: "Net", action: "hang") { _ async throws -> Value in
            started.increment()
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.increment()
                throw error
            }
            return .null
        }
        try m.register(target: "Net", action: "throws") { _ async throws -> Value in
            struct Broken: Error {}
            throw Broken()
        }
        return m
    }

    @Test func awaitsTheAnswerOffThePool() async throws {
        let m = try Self.mediator()
        let result = await Self.onThread { Result { () throws(SwitchboardError) in try m.callAndWait(target: "Net", action: "double", params: ["n": 21]) } }
        #expect(try result.get() == 42)
        // perform and a failing action, the same way.
        #expect(await Self.onThread { m.performAndWait(target: "Net", action: "double", params: ["n": 2]) } == 4)
        let failed = await Self.onThread { Result { () throws(SwitchboardError) in try m.callAndWait(target: "Net", action: "throws") } }
        #expect(throws: SwitchboardError.self) { try failed.get() }
        if case .failure(let error) = failed {
            #expect(error.code == .actionFailed)
            #expect(error.message.contains("Net.throws failed"))
        }
    }

    @Test func refusesToBlockATask() async throws {
        let started = Counter()
        let m = try Self.mediator(started)
        // This test runs in a task: a synchronous call would block the pool.
        // (A closure that is not async picks the synchronous `call`.)
        let callSynchronously = { () throws(SwitchboardError) -> Value in try m.callAndWait(target: "Net", action: "double") }
        #expect(throws: SwitchboardError.self) { try callSynchronously() }
        do {
            _ = try callSynchronously()
        } catch {
            #expect(error.code == .wouldBlock)
            #expect(error.message.contains("Net.double is asynchronous"))
        }
        #expect(started.value == 0) // refused before the action started
    }

    @Test func timeoutEndsTheWaitAndCancelsTheTask() async throws {
        let started = Counter(), cancelled = Counter()
        let m = try Self.mediator(started, cancelled)
        let options = CallOptions(timeout: .milliseconds(50))
        let result = await Self.onThread { Result { () throws(SwitchboardError) in try m.callAndWait(target: "Net", action: "hang", options: options) } }
        guard case .failure(let error) = result else { Issue.record("the call did not time out"); return }
        #expect(error.code == .timeout)
        #expect(error.message.contains("Net.hang did not complete"))
        #expect(await Self.eventually { cancelled.value == 1 }) // its task was cancelled
    }

    @Test func cancellationEndsTheWait() async throws {
        let cancelled = Counter()
        let m = try Self.mediator(Counter(), cancelled)
        let token = Cancellation()
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            token.cancel()
        }.start()
        let result = await Self.onThread {
            Result { () throws(SwitchboardError) in try m.callAndWait(target: "Net", action: "hang", options: CallOptions(cancellation: token)) }
        }
        guard case .failure(let error) = result else { Issue.record("the call was not cancelled"); return }
        #expect(error.code == .canceled)
        #expect(await Self.eventually { cancelled.value == 1 })
    }

    @Test func observersSeeTheEndAtCompletion() async throws {
        let m = try Self.mediator()
        let ended = Guarded<UInt64>(0)
        _ = try m.addObserver { event in
            if event.phase == .end { ended.withLock { $0 = event.duration } }
        }
        let value = await Self.onThread { m.performAndWait(target: "Net", action: "double", params: ["n": 3]) }
        #expect(value == 6)
        #expect(ended.withLock { $0 } >= 15_000_000) // the action slept 20 ms
    }

    @Test func theClosureOutlivesItsRegistrationWhileItRuns() async throws {
        let m = Mediator()
        let released = Counter()
        let gate = DispatchSemaphore(value: 0)
        let probe = DeinitProbe(released)
        try m.register(target: "Net", action: "slow") { _ async throws -> Value in
            _ = probe
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                Thread { gate.wait(); c.resume() }.start()
            }
            return 1
        }
        // On a thread of its own: unregister while the call waits, then let it answer.
        let (unregistered, keptWhileRunning, value) = await Self.onThread { () -> (Bool, Bool, Value) in
            let result = Guarded<Value?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread {
                result.withLock { $0 = m.performAndWait(target: "Net", action: "slow") }
                done.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.05)
            let unregistered = m.unregister(target: "Net", action: "slow")
            EpochDomain.shared.collect(wait: true)
            let kept = released.value == 0
            gate.signal()
            done.wait()
            return (unregistered, kept, result.withLock { $0 } ?? .null)
        }
        #expect(unregistered)
        #expect(keptWhileRunning)
        #expect(value == 1)
    }
}
