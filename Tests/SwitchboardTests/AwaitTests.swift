import Testing
import Synchronization
import Foundation
@_spi(Faces) @testable import Switchboard

/// Swift callers that await (issue 21): `try await call` and `await perform`
/// suspend the task instead of blocking a thread, for any action; task
/// cancellation and the call's timeout end the call.
@Suite struct AwaitTests {
    /// A gate async actions wait behind until the test opens it.
    final class Gate: Sendable {
        private let state = Guarded<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func pass() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let go = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiting.append(c)
                    return false
                }
                if go { c.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for c in waiting { c.resume() }
        }
    }

    static func mediator(gate: Gate = Gate(), started: Counter = Counter(),
                         cancelled: Counter = Counter()) throws -> Mediator {
        let m = Mediator()
        try m.register(target: "Net", action: "gated") { params async throws -> Value in
            started.increment()
            await gate.pass()
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
        try m.register(target: "Plain", action: "neg") { params in .int(-(params["n"]?.int ?? 0)) }
        return m
    }

    @Test func awaitsSynchronousAndAsynchronousActions() async throws {
        let gate = Gate()
        gate.open()
        let m = try Self.mediator(gate: gate)
        #expect(try await m.call(target: "Net", action: "gated", params: ["n": 21]) == 42)
        #expect(try await m.call(target: "Plain", action: "neg", params: ["n": 5]) == -5)
        #expect(await m.perform(target: "Net", action: "gated", params: ["n": 2]) == 4)
        // Failures: `call` throws them, `perform` falls back to null.
        await #expect(throws: SwitchboardError.self) { try await m.call(target: "Nobody", action: "x") }
        #expect(await m.perform(target: "Nobody", action: "x") == .null)
    }

    /// More awaiting calls than the pool has threads, each waiting for a gate
    /// opened only once all have started: if an awaiting call blocked its
    /// thread, the ones after it could never start and this would hang.
    @Test func manyCallsWaitWithoutBlockingThreads() async throws {
        let gate = Gate(), started = Counter()
        let m = try Self.mediator(gate: gate, started: started)
        let calls = 64
        let sum = await withTaskGroup(of: Int64.self) { group in
            for i in 0..<calls {
                group.addTask { (try? await m.call(target: "Net", action: "gated", params: ["n": .int(Int64(i))]))?.int ?? -1_000_000 }
            }
            for _ in 0..<5000 where started.value < calls { try? await Task.sleep(for: .milliseconds(2)) }
            #expect(started.value == calls)
            gate.open()
            var sum: Int64 = 0
            for await value in group { sum += value }
            return sum
        }
        #expect(sum == Int64(calls * (calls - 1))) // 2 * (0 + 1 + ... + 63)
    }

    @Test func taskCancellationCancelsTheCallAndTheActionsTask() async throws {
        let started = Counter(), cancelled = Counter()
        let m = try Self.mediator(started: started, cancelled: cancelled)
        let call = Task { () -> Result<Value, SwitchboardError> in
            do throws(SwitchboardError) { return .success(try await m.call(target: "Net", action: "hang")) } catch {
                return .failure(error)
            }
        }
        for _ in 0..<5000 where started.value == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        call.cancel()
        guard case .failure(let error) = await call.value else { Issue.record("the call was not cancelled"); return }
        #expect(error.code == .canceled)
        for _ in 0..<5000 where cancelled.value == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        #expect(cancelled.value == 1)

        // Cancelled before it starts: the action never runs.
        let before = Task { () -> SwitchboardError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(SwitchboardError) { _ = try await m.call(target: "Net", action: "hang") } catch { return error }
            return nil
        }
        #expect(await before.value?.code == .canceled)
        #expect(started.value == 1)
    }

    @Test func theTimeoutEndsTheCall() async throws {
        let cancelled = Counter()
        let m = try Self.mediator(cancelled: cancelled)
        await #expect {
            try await m.call(target: "Net", action: "hang", options: CallOptions(timeout: .milliseconds(30)))
        } throws: { error in
            (error as? SwitchboardError)?.code == .timeout
        }
        for _ in 0..<5000 where cancelled.value == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        #expect(cancelled.value == 1)
    }

    @Test func contractsAndObserversSeeTheAnswerWhenItComes() async throws {
        let gate = Gate()
        let m = try Self.mediator(gate: gate)
        try m.register(target: "Typed", action: "later", contract: "n: int -> string") { _ async throws -> Value in
            await gate.pass()
            return 1
        }
        let ends = Guarded<[String]>([])
        _ = try m.addObserver { event in
            if event.phase == .end { ends.withLock { $0.append(event.error.map { "\($0.code)" } ?? "ok") } }
        }
        let call = Task { try await m.call(target: "Typed", action: "later", params: ["n": 1]) }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(ends.withLock { $0 }.isEmpty) // not ended yet
        gate.open()
        await #expect(throws: SwitchboardError.self) { try await call.value }
        #expect(ends.withLock { $0 } == ["ETYPE"])
    }

    /// A token keeps the calls that use it only until they end: else the
    /// two would keep each other alive once the caller lets go of it.
    @Test func aTokenIsNotKeptAliveByTheCallsThatUsedIt() async throws {
        let gate = Gate()
        gate.open()
        let m = try Self.mediator(gate: gate)
        weak var weakToken: Cancellation?
        do {
            let token = Cancellation()
            weakToken = token
            let options = CallOptions(cancellation: token)
            #expect(try await m.call(target: "Net", action: "gated", params: ["n": 1], options: options) == 2)
        }
        for _ in 0..<500 where weakToken != nil {
            EpochDomain.shared.collect(wait: true)
            try? await Task.sleep(for: .milliseconds(2))
        }
        #expect(weakToken == nil)
    }

    @Test func targetClassesDeclareAsyncActions() async throws {
        let m = Mediator()
        try m.register(Target_Later.self, as: "Later")
        #expect(try await m.call(target: "Later", action: "later", params: ["n": 4]) == 5)
        #expect(try await m.call(target: "Later", action: "now") == 1)
        // A synchronous caller off the pool waits for it.
        let waited = await AsyncActionTests.onThread { m.performAndWait(target: "Later", action: "later", params: ["n": 1]) }
        #expect(waited == 2)
        // The async table wins over the synchronous one for a name in both.
        #expect(try await m.call(target: "Later", action: "both") == "async")
    }
}

final class Target_Later: Target {
    static let actions: Actions<Target_Later> = [
        "now": { _, _ in 1 },
        "both": { _, _ in "sync" },
    ]
    static let asyncActions: AsyncActions<Target_Later> = [
        "later": { target, params in try await target.addOne(params) },
        "both": { _, _ in "async" },
    ]

    func addOne(_ params: Params) async throws -> Value {
        try await Task.sleep(for: .milliseconds(5))
        return .int((params["n"]?.int ?? 0) + 1)
    }
}
