import Testing
import Synchronization
import Foundation
@_spi(Faces) @testable import Switchboard

/// An awaited call (a caller that does not wait) meeting an interceptor that
/// decides later leaves its thread there: it is pending, and the rest of it
/// runs where the interceptor decides (issue 40).
@Suite struct SuspendedInterceptionTests {
    /// The calls an interceptor keeps, to decide later.
    final class Kept: Sendable {
        private let calls = Guarded<[Interception]>([])
        func keep(_ call: Interception) { calls.withLock { $0.append(call) } }
        var count: Int { calls.withLock { $0.count } }
        var all: [Interception] { calls.withLock { $0 } }
    }

    static func mediator(_ kept: Kept, ran: Counter) throws -> Mediator {
        let m = Mediator()
        try m.register(target: "T", action: "twice") { params in
            ran.increment()
            return .int((params["n"]?.int ?? 0) * 2)
        }
        try m.addInterceptor(named: "keeper", timeout: .seconds(60), completing: { kept.keep($0) })
        return m
    }

    /// More awaited calls than the pool has threads, each kept by the
    /// interceptor until all of them are: a call that held its thread while
    /// its interceptor decided would keep the others from starting.
    @Test func awaitedCallsWaitForTheirInterceptorWithoutThreads() async throws {
        let kept = Kept(), ran = Counter()
        let m = try Self.mediator(kept, ran: ran)
        let calls = 64
        let sum = await withTaskGroup(of: Int64.self) { group in
            for i in 0..<calls {
                group.addTask {
                    (try? await m.call(target: "T", action: "twice", params: ["n": .int(Int64(i))]))?.int ?? -1_000_000
                }
            }
            for _ in 0..<5000 where kept.count < calls { try? await Task.sleep(for: .milliseconds(2)) }
            #expect(kept.count == calls)
            #expect(ran.value == 0)
            // Decided from another thread: even n go on to the action, odd n
            // are answered by the interceptor.
            let decider = Thread {
                for call in kept.all {
                    let n = call.params["n"]?.int ?? 0
                    call.complete(n % 2 == 0 ? .proceed : .answer(.int(-n)))
                }
            }
            decider.start()
            var sum: Int64 = 0
            for await value in group { sum += value }
            return sum
        }
        let evens = (0..<Int64(calls)).filter { $0 % 2 == 0 }.reduce(0, +)
        let odds = (0..<Int64(calls)).filter { $0 % 2 == 1 }.reduce(0, +)
        #expect(sum == 2 * evens - odds)
        #expect(ran.value == calls / 2)
    }

    /// The interceptor's timeout ends an awaited call it never decided, and
    /// a decision after that is ignored and counted.
    @Test func theInterceptorsTimeoutEndsAnAwaitedCall() async throws {
        let m = Mediator(), kept = Kept(), ran = Counter()
        try m.register(target: "T", action: "twice") { _ in
            ran.increment()
            return .null
        }
        try m.addInterceptor(named: "mute", timeout: .milliseconds(30), completing: { kept.keep($0) })
        await #expect {
            try await m.call(target: "T", action: "twice")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .timeout && error.message.contains("interceptor \"mute\" did not decide within 30 ms")
        }
        #expect(kept.all.first?.complete(.proceed) == false)
        #expect(ran.value == 0)
    }

    /// Redirected after it left its thread: the observers' end event tells
    /// of the call as it ended.
    @Test func theEndEventTellsOfTheCallAsItEnded() async throws {
        let m = Mediator(), kept = Kept(), ran = Counter()
        try m.register(target: "T", action: "twice") { _ in .int(1) }
        try m.register(target: "U", action: "other") { _ in
            ran.increment()
            return .int(2)
        }
        try m.addInterceptor(named: "mover", timeout: .seconds(60), completing: { call in
            if call.target == "T" { kept.keep(call) } else { call.complete(.proceed) }
        })
        let ends = Guarded<[String]>([])
        try m.addObserver { event in
            if event.phase == .end { ends.withLock { $0.append("\(event.target ?? "?").\(event.action ?? "?")") } }
        }
        async let answer = m.call(target: "T", action: "twice")
        for _ in 0..<5000 where kept.count == 0 { try? await Task.sleep(for: .milliseconds(2)) }
        kept.all.first?.complete(.redirect(target: "U", action: "other", params: nil))
        #expect(try await answer == 2)
        #expect(ends.withLock { $0 } == ["U.other"])
        #expect(ran.value == 1)
    }
}
