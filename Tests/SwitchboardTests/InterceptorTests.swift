import Foundation
import Synchronization
import Testing
@_spi(Faces) @testable import Switchboard

/// A value behind a lock, shared by reference (a `Guarded` itself cannot be
/// captured by an escaping closure).
private final class Locked<T: Sendable>: Sendable {
    private let mutex: Guarded<T>
    init(_ value: T) { mutex = Guarded(value) }
    func withLock<R: Sendable>(_ body: (inout sending T) -> sending R) -> R { mutex.withLock(body) }
}

/// A thread-safe list of strings, for the order things ran in.
private final class Log: Sendable {
    private let entries = Guarded<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite("Interceptors, rules, observers, cancellation")
struct InterceptorTests {
    func mediator() throws -> Mediator {
        let m = Mediator()
        try m.register(target: "A", actions: [
            "echo": { params in .dict(params) },
            "name": { _ in "A" },
        ])
        try m.register(target: "B", action: "name") { _ in "B" }
        return m
    }

    @Test("interceptors run by priority, then registration order; removing one takes it out")
    func order() throws {
        let m = try mediator()
        let log = Log()
        let first = try m.addInterceptor(named: "p10-first", priority: 10) { _ in log.add("p10-first"); return .proceed }
        try m.addInterceptor(named: "p0", priority: 0) { _ in log.add("p0"); return .proceed }
        try m.addInterceptor(named: "p10-second", priority: 10) { _ in log.add("p10-second"); return .proceed }
        #expect(m.performAndWait(target: "A", action: "name") == "A")
        #expect(log.all == ["p10-first", "p10-second", "p0"])
        #expect(m.removeInterceptor(first))
        #expect(!m.removeInterceptor(first))
        m.performAndWait(target: "A", action: "name")
        #expect(log.all.suffix(2) == ["p10-second", "p0"])
    }

    @Test("each decision: rewrite, redirect, reject, answer; the interceptor sees the call")
    func decisions() throws {
        let m = try mediator()
        let seen = Locked<[String]>([])
        let id = try m.addInterceptor(named: "decider") { (call: Interception) -> Decision in
            let url: String = call.url ?? "-"
            let line: String = call.target + "." + call.action + " url=" + url + " tags=" + call.tags.joined(separator: ",")
            seen.withLock { $0.append(line) }
            switch call.params["do"]?.string {
            case "rewrite": return .rewrite(["rewritten": true])
            case "redirect": return .redirect(target: "B", action: "name", params: nil)
            case "reject": return .reject(.rejected("no entry"))
            case "answer": return .answer("mocked")
            default: return .proceed
            }
        }
        let rewritten: Value = .dict(["rewritten": .bool(true)])
        #expect(try m.callAndWait(target: "A", action: "echo", params: ["do": "rewrite"]) == rewritten)
        #expect(try m.callAndWait(target: "A", action: "name", params: ["do": "redirect"]) == "B")
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "A", action: "name", params: ["do": "reject"]) }
        #expect(try m.callAndWait(target: "A", action: "name", params: ["do": "answer"]) == "mocked")
        #expect(try m.callAndWait(target: "A", action: "name", options: CallOptions(tags: ["t1"])) == "A")
        #expect(try m.callAndWait(url: "app://A/name?x=1") == "A")
        let log = seen.withLock { $0 }
        #expect(log.contains("A.name url=- tags=t1"))
        #expect(log.contains("A.name url=app://A/name?x=1 tags="))
        // After a redirect the rest of the chain sees the new destination.
        m.removeInterceptor(id)
        try m.addInterceptor(named: "to-B", priority: 1) { (call: Interception) -> Decision in
            if call.target == "A" { return .redirect(target: "B", action: "name", params: nil) }
            return .proceed
        }
        try m.addInterceptor(named: "after") { (call: Interception) -> Decision in
            if call.target == "B" { return .answer(.string("saw B")) }
            return .proceed
        }
        #expect(try m.callAndWait(target: "A", action: "name") == "saw B")
    }

    @Test("an interceptor that throws fails the call with its name in the message")
    func failing() throws {
        let m = try mediator()
        struct Broken: Error {}
        try m.addInterceptor(named: "broken") { _ in throw Broken() }
        do {
            _ = try m.callAndWait(target: "A", action: "name")
            Issue.record("the call should fail")
        } catch {
            #expect(error.code == .actionFailed)
            #expect(error.message.contains("interceptor \"broken\" failed"))
        }
    }

    @Test("async interceptors: an answer later, a timeout naming it, a late or second decision ignored")
    func async() throws {
        let m = try mediator()
        let id = try m.addInterceptor(named: "later", timeout: .seconds(5)) { (call: Interception) async -> Decision in
            try? await Task.sleep(for: .milliseconds(5))
            return .answer("from async")
        }
        #expect(try m.callAndWait(target: "A", action: "name") == "from async")
        m.removeInterceptor(id)

        let stash = Locked<[Interception]>([])
        try m.addInterceptor(named: "silent", timeout: .milliseconds(20)) { call in stash.withLock { $0.append(call) } }
        do {
            _ = try m.callAndWait(target: "A", action: "name")
            Issue.record("the call should time out")
        } catch {
            #expect(error.code == .timeout)
            #expect(error.message.contains("interceptor \"silent\""))
        }
        let late = stash.withLock { $0[0] }
        #expect(!late.complete(.proceed))
        #expect(late.isAbandoned)
        let rows: [Value] = m.routes()["interceptors"]?.array ?? []
        let ignored: Int64? = rows.first?.dict?["ignored_decisions"]?.int
        #expect(ignored == 1)
    }

    @Test("async interceptors still start when every pool thread is a caller waiting for one")
    func asyncFromTasks() async throws {
        let m = try mediator()
        try m.addInterceptor(named: "later", timeout: .seconds(10)) { (_: Interception) async -> Decision in
            try? await Task.sleep(for: .milliseconds(1))
            return .answer("late")
        }
        // More tasks than the pool has threads, each blocking its thread in a call.
        let answers = await withTaskGroup(of: Value?.self) { group in
            for _ in 0..<16 { group.addTask { try? m.callAndWait(target: "A", action: "name") } }
            var all: [Value?] = []
            for await answer in group { all.append(answer) }
            return all
        }
        #expect(answers == Array(repeating: "late", count: 16))
    }

    @Test("an async interceptor may make a call that waits for another async interceptor")
    func nestedAsync() throws {
        let m = try mediator()
        try m.addInterceptor(named: "outer", timeout: .seconds(10)) { (call: Interception) async -> Decision in
            guard call.target == "A" else { return .proceed }
            // The inner call's interceptor needs a thread while this one
            // waits (the synchronous `call`: a closure that is not async).
            let inner = { try? m.callAndWait(target: "B", action: "name") }()
            return .answer(.string("outer saw " + (inner?.string ?? "nothing")))
        }
        try m.addInterceptor(named: "inner", timeout: .seconds(10)) { (call: Interception) async -> Decision in
            call.target == "B" ? .answer("inner") : .proceed
        }
        #expect(try m.callAndWait(target: "A", action: "name") == "outer saw inner")
    }

    @Test("an interceptor that never decides does not stop 1,000 later calls")
    func neverDecides() throws {
        let m = try mediator()
        let id = try m.addInterceptor(named: "stuck", timeout: .milliseconds(1)) { _ in }
        var timedOut = 0
        for _ in 0..<1000 {
            do {
                _ = try m.callAndWait(target: "A", action: "name")
            } catch {
                // Not `catch where`: with typed throws it hangs the Swift 6.3 compiler.
                if error.code == .timeout { timedOut += 1 }
            }
        }
        #expect(timedOut == 1000)
        m.removeInterceptor(id)
        #expect(try m.callAndWait(target: "A", action: "name") == "A")
    }

    @Test("cancellation: before the target, while an interceptor waits, and seen by the target")
    func cancellation() throws {
        let m = try mediator()
        let token = Cancellation()
        token.cancel()
        #expect(throws: SwitchboardError.self) {
            try m.callAndWait(target: "A", action: "name", options: CallOptions(cancellation: token))
        }
        // The target cancels its own call through the caller's token, then sees it.
        let own = Cancellation()
        try m.register(target: "C", action: "check") { _ in
            let before = Mediator.isCancelled
            own.cancel()
            return .array([.bool(before), .bool(Mediator.isCancelled)])
        }
        #expect(try m.callAndWait(target: "C", action: "check", options: CallOptions(cancellation: own)) == .array([false, true]))
        #expect(!Mediator.isCancelled)

        let waiting = Cancellation()
        try m.addInterceptor(named: "slow", timeout: .seconds(30)) { _ in }
        let canceller = Thread { usleep(20_000); waiting.cancel() }
        canceller.start()
        let started = Date()
        do {
            _ = try m.callAndWait(target: "A", action: "name", options: CallOptions(cancellation: waiting))
            Issue.record("the call should be cancelled")
        } catch {
            #expect(error.code == .canceled)
            #expect(error.message.contains("slow"))
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test("bypassing interceptors, unless the mediator forbids it")
    func bypass() throws {
        let m = try mediator()
        try m.addInterceptor(named: "gate") { _ in .reject(.rejected("closed")) }
        #expect(try m.callAndWait(target: "A", action: "name", options: CallOptions(bypassInterceptors: true)) == "A")
        m.allowsBypass = false
        #expect(throws: SwitchboardError.self) {
            try m.callAndWait(target: "A", action: "name", options: CallOptions(bypassInterceptors: true))
        }
    }

    @Test("rules rewrite URLs and calls, degrade what is missing, and are replaced whole")
    func rules() throws {
        let m = try mediator()
        try m.setRules(json: #"[{"from": "app://Old/*", "to": "app://B/$1"}, {"from": "Gone/*", "to": "A/$1"}]"#)
        #expect(try m.callAndWait(url: "app://Old/name") == "B")
        #expect(try m.callAndWait(target: "Gone", action: "name") == "A")
        #expect(throws: SwitchboardError.self) { try m.setRules(json: #"[{"from": "x"}]"#) }
        #expect(m.rules.count == 2) // the failed replacement changed nothing
        // A rewrite to a native action from a URL is still refused.
        m.rules = [RoutingRule(.rewrite(from: "app://X/*", to: "app://A/native$1"))]
        #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "app://X/Thing") }

        try m.register(target: "Web", action: "response") { params in .dict(params) }
        let payRule: Value = .dict(["target": .string("Pay"), "action": .string("*"), "degrade": .string("Web")])
        try m.setRules(Value.array([payRule]))
        let degraded: Value = m.performAndWait(target: "Pay", action: "charge", params: ["amount": 3])
        let origin: Value = .dict(["amount": .int(3)])
        let expected: Value = .dict(["originParams": origin, "targetString": .string("Target_Pay"),
                                     "selectorString": .string("Action_charge:"), "target": "Pay", "action": "charge"])
        #expect(degraded == expected)
        try m.setRules(Value.array([]))
        #expect(m.performAndWait(target: "Pay", action: "charge") == .null)
        m.setDegradeHandler { params in .dict(params) }
        let handled: Value = .dict(["originParams": [:], "targetString": .string("Target_Pay"),
                                    "selectorString": .string("Action_charge:"), "target": "Pay", "action": "charge"])
        #expect(m.performAndWait(target: "Pay", action: "charge") == handled)
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "Pay", action: "charge") }
    }

    @Test("redirect loops fail after SB_MAX_REDIRECTS, by rules or by interceptors")
    func loops() throws {
        let m = try mediator()
        try m.setRules(json: #"[{"from": "A/*", "to": "A/$1"}]"#)
        do {
            _ = try m.callAndWait(target: "A", action: "name")
            Issue.record("a loop should fail")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.message.contains("redirect loop"))
        }
        m.rules = []
        try m.addInterceptor(named: "ping") { (call: Interception) -> Decision in
            let next = call.target == "A" ? "B" : "A"
            return Decision.redirect(target: next, action: "name", params: nil)
        }
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "A", action: "name") }
        #expect(Mediator.maxRedirects == 8)
    }

    @Test("observers see start and end with status and duration, and cost nothing once removed")
    func observers() throws {
        let m = try mediator()
        let log = Log()
        let id = try m.addObserver { (event: CallEvent) in
            let status: String = event.error?.code.name ?? "OK"
            let phase: String = event.phase == .start ? "start" : "end"
            let target: String = event.target ?? "?"
            let action: String = event.action ?? "?"
            let shown: String = event.phase == .end ? status : ""
            log.add(phase + " " + target + "." + action + " " + shown)
            if event.phase == .end && event.error == nil && event.value == nil { log.add("no value") }
        }
        m.performAndWait(target: "A", action: "name")
        m.performAndWait(target: "Nobody", action: "x")
        #expect(log.all == ["start A.name ", "end A.name OK", "start Nobody.x ", "end Nobody.x ENOTARGET"])
        #expect(m.hasHooks)
        m.removeObserver(id)
        #expect(!m.hasHooks)
    }

    @Test("interceptors added and removed while 4 threads perform")
    func concurrency() throws {
        let m = try mediator()
        let failures = Counter()
        let stop = Counter() // > 0: stop (an Atomic cannot be captured by a closure)
        let threads = (0..<4).map { _ in
            Thread {
                var n = 0
                while n < 2000 || stop.value == 0 {
                    let expected: Value = .dict(["n": .int(Int64(n))])
                    let got: Value? = try? m.callAndWait(target: "A", action: "echo", params: ["n": .int(Int64(n))])
                    if got != expected {
                        failures.increment()
                    }
                    n += 1
                }
            }
        }
        for thread in threads { thread.start() }
        for i in 0..<300 {
            let id = try m.addInterceptor(named: "churn \(i)") { _ in .proceed }
            m.removeInterceptor(id)
        }
        stop.increment()
        let finished: Bool = eventually { threads.allSatisfy { $0.isFinished } }
        #expect(finished)
        #expect(failures.value == 0)
    }

    @Test("interceptor and observer ids are typed; each removes only its own kind")
    func typedIDs() throws {
        let m = Mediator()
        let interceptor: InterceptorID = try m.addInterceptor(named: "x") { _ in .proceed }
        let observer: ObserverID = try m.addObserver { _ in }
        #expect(interceptor.rawValue != observer.rawValue) // one counter: distinct numbers
        #expect(!m.removeObserver(ObserverID(rawValue: interceptor.rawValue)))
        #expect(m.removeInterceptor(interceptor))
        #expect(!m.removeInterceptor(interceptor))
        #expect(m.removeObserver(observer))
    }
}

