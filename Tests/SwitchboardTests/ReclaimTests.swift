import Testing
import Synchronization
import Foundation
@_spi(Faces) @testable import Switchboard

/// A target whose constructor waits for the test (a dialog, a slow start).
final class Target_SlowStart: Target {
    static let entered = DispatchSemaphore(value: 0)
    static let gate = DispatchSemaphore(value: 0)
    init() {
        Target_SlowStart.entered.signal()
        Target_SlowStart.gate.wait()
    }
    static let actions: Actions<Target_SlowStart> = ["go": { _, _ in 5 }]
}

/// What registry changes retire is released while an unrelated call runs
/// (issue 27): a call holds only what it uses, never everything retired
/// since it began. (Tests/c/test_reclaim.c bounds resident memory; here the
/// count of live closures is exact, whatever other tests do meanwhile.)
@Suite struct ReclaimTests {
    /// Counts the closures' captured tokens that are still alive.
    final class Tokens: Sendable {
        let made = Atomic<Int>(0)
        let freed = Atomic<Int>(0)
        var alive: Int { made.load(ordering: .acquiring) - freed.load(ordering: .acquiring) }

        final class Token: Sendable {
            let tokens: Tokens
            init(_ tokens: Tokens) {
                self.tokens = tokens
                tokens.made.add(1, ordering: .relaxed)
            }
            deinit { tokens.freed.add(1, ordering: .releasing) }
        }

        func make() -> Token { Token(self) }
    }

    /// One call blocked in an action until `release`.
    final class BlockedCall: @unchecked Sendable {
        // @unchecked: `result` is written by the thread before `finished` signals.
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        var result: Result<Value, SwitchboardError>?

        init(in mediator: Mediator) throws {
            try mediator.register(target: "Blocker", action: "wait") { [entered, gate] _ in
                entered.signal()
                gate.wait()
                return 7
            }
            let thread = Thread { [self] in
                result = Result { () throws(SwitchboardError) in try mediator.callAndWait(target: "Blocker", action: "wait") }
                finished.signal()
            }
            thread.start()
            entered.wait()
        }

        func release() -> Result<Value, SwitchboardError>? {
            gate.signal()
            finished.wait()
            return result
        }
    }

    /// One change of kind `i % 14`; every second one undoes the one before.
    static func change(_ m: Mediator, _ i: Int, _ tokens: Tokens, _ ids: inout UInt64) throws {
        let token = tokens.make()
        switch i % 14 {
        case 0, 1: try m.register(target: "Churn", action: "a") { _ in _ = token; return 1 }
        case 2: ids = try m.addInterceptor(named: "pass") { _ in _ = token; return .proceed }.rawValue
        case 3: #expect(m.removeInterceptor(InterceptorID(rawValue: ids)))
        case 4: ids = try m.addObserver { _ in _ = token }.rawValue
        case 5: #expect(m.removeObserver(ObserverID(rawValue: ids)))
        case 6: try m.setRules(json: #"[{"from":"Old/*","to":"Churn/$1"}]"#)
        case 7: try m.setRules(json: "[]")
        case 8: m.urlPolicy = URLPolicy(schemes: ["app"], targets: ["Churn"])
        case 9: m.urlPolicy = URLPolicy()
        case 10: try m.addURLPattern("app://item/:id", target: "Churn", action: "a")
        case 11: #expect(m.removeURLPattern("app://item/:id"))
        case 12:
            try m.defineService("Answering", interface: "a")
            try m.bindService("Answering", to: "Churn")
        default:
            #expect(m.removeService("Answering"))
            try m.register(target: "T\(i / 14 % 64)", action: "a") { _ in _ = token; return 1 }
            #expect(m.unregister(target: "T\(i / 14 % 64)"))
            #expect(m.unregister(target: "Churn", action: "a"))
        }
    }

    /// Makes `changes` changes in `m` and returns the most closures alive
    /// at once, sampled every 14 changes.
    static func churn(_ m: Mediator, changes: Int, _ tokens: Tokens) throws -> Int {
        var ids: UInt64 = 0
        var most = 0
        for i in 0..<changes {
            try change(m, i, tokens, &ids)
            if i % 14 == 13 { most = max(most, tokens.alive) }
        }
        return most
    }

    static let changes = 56_000

    /// Whether every token is freed within a second. Other tests run beside
    /// these and pin the epoch for a moment; the returning call collects, and
    /// here the test collects again until their lookups are over.
    static func settles(_ tokens: Tokens) -> Bool {
        for _ in 0..<1_000 {
            if tokens.alive == 0 { return true }
            EpochDomain.shared.collect(wait: true)
            Thread.sleep(forTimeInterval: 0.001)
        }
        return tokens.alive == 0
    }

    @Test(arguments: [false, true])
    func aBlockedCallHoldsOnlyWhatItUses(blockedInAnotherMediator: Bool) throws {
        let m = Mediator()
        let blockedIn = blockedInAnotherMediator ? Mediator() : m
        let tokens = Tokens()
        let blocked = try BlockedCall(in: blockedIn)
        let most = try Self.churn(m, changes: Self.changes, tokens)
        // 32,000 closures were registered and dropped. Some wait for the
        // epoch a moment (other tests pin it too), none for the blocked call:
        // while it still waits, every one of them can be released.
        #expect(most < 1_000, "closures alive at once while a call was blocked: \(most)")
        #expect(Self.settles(tokens), "closures still alive while the call is blocked: \(tokens.alive)")
        #expect(try blocked.release()?.get() == 7)
        #expect(blockedIn.unregister(target: "Blocker"))
        #expect(Self.settles(tokens), "every closure released once the call returned")
    }

    /// The collector finds what calls hold in each thread's slots: the first
    /// 32 in a buffer it searches, more (a call 40 levels deep) through a
    /// dictionary. Either way the closure a blocked call runs stays, and
    /// what it does not use is released.
    @Test(arguments: [0, 40])
    func whatABlockedCallUsesStaysUntilItReturns(nestedIn depth: Int) throws {
        let m = Mediator()
        let held = Tokens() // the blocked action's closure's only
        let tokens = Tokens() // the changes' closures'
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        do {
            let token = held.make()
            try m.register(target: "Held", action: "wait") { _ in
                entered.signal()
                gate.wait()
                return .int(token.tokens.alive)
            }
        }
        // Nest.down with n calls itself with n - 1, and Held.wait at 1.
        try m.register(target: "Nest", action: "down") { params in
            let n = params["n"]?.int ?? 0
            if n <= 1 { return try m.callAndWait(target: "Held", action: "wait") }
            return try m.callAndWait(target: "Nest", action: "down", params: ["n": .int(n - 1)])
        }
        let result = Guarded<Value?>(nil)
        Thread {
            let value = depth == 0 ? try? m.callAndWait(target: "Held", action: "wait")
                : try? m.callAndWait(target: "Nest", action: "down", params: ["n": .int(depth)])
            result.withLock { $0 = value }
            finished.signal()
        }.start()
        entered.wait()
        // Unregistered and replaced while it runs: the running closure stays.
        #expect(m.unregister(target: "Held"))
        var ids: UInt64 = 0
        for i in 0..<1_400 { try Self.change(m, i, tokens, &ids) }
        EpochDomain.shared.collect(wait: true)
        #expect(held.alive == 1)
        #expect(tokens.alive < 1_000, "the changes' closures alive: \(tokens.alive)")
        gate.signal()
        finished.wait()
        #expect(result.withLock { $0 } == 1)
        // Its destructor runs once the call has returned: nothing else holds it.
        #expect(Self.settles(held))
        #expect(Self.settles(tokens))
    }

    /// A constructor is user code a lookup runs: while it waits, changes in
    /// any mediator are still released.
    @Test func aBlockedConstructorHoldsNothingBack() throws {
        let m = Mediator()
        try m.register(Target_SlowStart.self, as: "SlowStart")
        let finished = DispatchSemaphore(value: 0)
        let result = Guarded<Value?>(nil)
        Thread {
            let value = try? m.callAndWait(target: "SlowStart", action: "go")
            result.withLock { $0 = value }
            finished.signal()
        }.start()
        Target_SlowStart.entered.wait()
        let tokens = Tokens()
        _ = try Self.churn(Mediator(), changes: 14_000, tokens)
        #expect(Self.settles(tokens), "closures still alive while the constructor waits: \(tokens.alive)")
        Target_SlowStart.gate.signal()
        finished.wait()
        #expect(result.withLock { $0 } == 5)
    }
}
