// A contract's `-> type` is checked where the call is dispatched, whatever
// the path: a result of another kind fails the call with `.typeMismatch`
// (SB_ETYPE, "ETYPE"), naming the action and both types.
import Testing
@_spi(Faces) @testable import Switchboard

/// A Swift target class whose contract declares a result it does not keep.
final class Target_Results: Target {
    static let actions: Actions<Target_Results> = [
        "bad": { _, _ in .int(1) },
        "good": { _, _ in .dict(["ok": true]) },
    ]
    static let contracts: Contracts = ["bad": "-> dict", "good": "-> dict"]
}

@Suite("Declared results")
struct ResultTypeTests {
    private func mediator() throws -> Mediator {
        let m = Mediator(modules: ["SwitchboardTests"])
        try m.register(target: "R", action: "bad", contract: "-> dict") { _ in .int(1) }
        try m.register(target: "R", action: "good", contract: "-> dict") { _ in .dict([:]) }
        try m.register(target: "R", action: "none", contract: "-> dict") { _ in .null }
        try m.register(target: "R", action: "widened", contract: "-> double") { _ in .int(3) }
        try m.register(target: "R", action: "asBytes", contract: "-> bytes") { _ in "hi" }
        try m.register(target: "R", action: "anything", contract: "-> any") { _ in .int(1) }
        return m
    }

    private func mismatch(_ body: () throws(SwitchboardError) -> Value) -> String? {
        do {
            let value = try body()
            Issue.record("a mismatched result passed: \(value)")
            return nil
        } catch {
            #expect(error.code == .typeMismatch)
            return error.message
        }
    }

    @Test("a result of another kind fails the call, on every path")
    func mismatches() throws {
        let m = try mediator()
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "R", action: "bad") }
                == "R.bad: expected a dict result, got int")
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "R", action: "none") }
                == "R.none: expected a dict result, got null")
        #expect(m.performAndWait(target: "R", action: "bad") == .null)
        // A class's action, made for the call and cached.
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "Results", action: "bad") }
                == "Results.bad: expected a dict result, got int")
        #expect(mismatch { () throws(SwitchboardError) in
            try m.callAndWait(target: "Results", action: "bad", cacheTarget: true)
        } != nil)
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "Results", action: "bad") } != nil)
        #expect(try m.callAndWait(target: "Results", action: "good") == ["ok": true])
        // A prepared route, a URL, a call with an observer present.
        let route = try m.route(target: "R", action: "bad")
        #expect(mismatch { () throws(SwitchboardError) in try route.callAndWait() } != nil)
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(url: "app://R/bad") } != nil)
        _ = try m.addObserver { _ in }
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "R", action: "bad") } != nil)
        #expect(try m.callAndWait(target: "R", action: "good") == .dict([:]))
        robustnessRow("Action result of another kind than its contract's -> type (registered, class, cached, route, "
                      + "URL, with hooks, null)", cases: 8, "ETYPE naming the action and both types; nothing returned")
    }

    @Test("the answering action's contract decides: notFound and NoTargetAction are checked too")
    func fallbacks() throws {
        let m = try mediator()
        try m.register(target: "R", action: "notFound", contract: "-> string") { _ in .int(2) }
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "R", action: "missing") }
                == "R.notFound (for R.missing): expected a string result, got int")
        try m.register(target: "NoTargetAction", action: "response", contract: "-> dict") { _ in "sorry" }
        let seen = Failures()
        _ = try m.addObserver { event in
            if let error = event.error { seen.lock.withLock { seen.errors.append(error) } }
        }
        #expect(m.performAndWait(target: "Nowhere", action: "x") == .null)
        let failures = seen.lock.withLock { seen.errors }
        #expect(failures.map(\.code) == [.typeMismatch])
        #expect(failures.first?.message == "NoTargetAction.response: expected a dict result, got string")
    }

    @Test("an interceptor's answer stands in for the action's result and is checked as it would be")
    func interceptorAnswers() throws {
        let m = try mediator()
        try m.addInterceptor(named: "mock") { (call: Interception) -> Decision in
            switch call.action {
            case "bad", "good": return .answer(.int(7))
            case "widened": return .answer(.int(4))
            default: return .answer("free")
            }
        }
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(target: "R", action: "good") }
                == "R.good: expected a dict result, got int (the answer of interceptor \"mock\")")
        #expect(mismatch { () throws(SwitchboardError) in try m.callAndWait(url: "app://R/good") } != nil)
        #expect(mismatch { () throws(SwitchboardError) in
            try m.callAndWait(target: "Results", action: "good")
        } == "Results.good: expected a dict result, got int (the answer of interceptor \"mock\")")
        #expect(m.performAndWait(target: "R", action: "good") == .null)
        // Converted as the action's own result would be; undeclared, or no
        // such action, anything goes.
        #expect(try m.callAndWait(target: "R", action: "widened") == .double(4))
        #expect(try m.callAndWait(target: "R", action: "anything") == "free")
        #expect(try m.callAndWait(target: "Nobody", action: "x") == "free")
        robustnessRow("Interceptor answers of another kind than the action's -> type (registered, class, URL, "
                      + "perform; converted; undeclared; no such target)", cases: 7,
                      "ETYPE naming the action, both types and the interceptor; conversions as for results")
    }

    @Test("lossless conversions as for params; `any` and undeclared results pass anything")
    func conversions() throws {
        let m = try mediator()
        #expect(try m.callAndWait(target: "R", action: "widened") == .double(3))
        #expect(try m.callAndWait(target: "R", action: "asBytes") == .bytes(Array("hi".utf8)))
        #expect(try m.callAndWait(target: "R", action: "anything") == .int(1))
        try m.register(target: "R", action: "plain") { _ in .int(1) }
        #expect(try m.callAndWait(target: "R", action: "plain") == .int(1))
        robustnessRow("Declared result converted losslessly (int for double, string for bytes) or undeclared",
                      cases: 4, "converted value returned; any/undeclared untouched")
    }
}

private final class Failures: @unchecked Sendable {
    // @unchecked: `errors` is read and written under `lock`.
    let lock = Lock()
    var errors: [SwitchboardError] = []
}
