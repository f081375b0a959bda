import Testing
import Foundation
@_spi(Faces) @testable import Switchboard

/// A row of docs/ROBUSTNESS.md (see scripts/robustness.sh), appended to
/// $SB_ROBUSTNESS_LOG. Call it after the test's checks: unlike the C
/// harness it cannot tell whether they passed, but a failing test stops
/// scripts/test.sh before the table is checked.
func robustnessRow(_ fault: String, cases: Int, _ observed: String) {
    guard let path = ProcessInfo.processInfo.environment["SB_ROBUSTNESS_LOG"], !path.isEmpty,
          let file = fopen(path, "a") else { return }
    fputs("\(fault)\t\(cases)\t\(observed)\n", file)
    fclose(file)
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "broken on purpose" }
}

@Suite("Faults")
struct FaultTests {
    /// The mediator still answers a normal call.
    private func intact(_ m: Mediator) throws -> Bool {
        try m.register(target: "Healthy", action: "echo") { $0["v"] ?? .null }
        return try m.callAndWait(target: "Healthy", action: "echo", params: ["v": 7]) == 7
    }

    @Test("an action that throws: any error, or a SwitchboardError of every code")
    func throwingActions() throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        var errors: [any Error] = [Broken(), CocoaError(.fileNoSuchFile)]
        errors += SwitchboardError.Code.allCases.map { SwitchboardError(code: $0, message: "fault \($0.name)") }
        for error in errors {
            try m.register(target: "Thrower", action: "go") { _ in throw error }
            let expected = (error as? SwitchboardError)?.code ?? .actionFailed
            #expect { try m.callAndWait(target: "Thrower", action: "go") } throws: { thrown in
                guard let thrown = thrown as? SwitchboardError else { return false }
                return thrown.code == expected && (error is SwitchboardError || thrown.message.contains("Thrower.go"))
            }
            #expect(m.performAndWait(target: "Thrower", action: "go") == .null)
            #expect(try intact(m))
        }
        robustnessRow("Swift action throws (any Error, a SwitchboardError of each code)", cases: errors.count,
                      "call throws the code (any other error is .actionFailed naming target.action); perform gives .null")
    }

    @Test("a re-entrant call without end is refused at Mediator.maxCallDepth, and every level unwinds")
    func endlessRecursion() throws {
        let m = Mediator()
        let deepest = Counter()
        try m.register(target: "Deep", action: "down") { [unowned m] params in
            _ = deepest.increment()
            return try m.callAndWait(target: "Deep", action: "down", params: params)
        }
        // On a thread with room for every level, so the depth limit (not the
        // stack reserve, which sanitizers' larger frames reach first) refuses.
        let firstError = onLargeStack { () -> SwitchboardError? in
            do throws(SwitchboardError) { _ = try m.callAndWait(target: "Deep", action: "down"); return nil } catch { return error }
        }
        #expect(firstError?.code == .rejected)
        #expect(firstError?.message.contains("call depth limit") == true)
        #expect(firstError?.message.contains("Deep.down") == true)
        #expect(deepest.value == Mediator.maxCallDepth)

        // Exactly maxCallDepth nested calls succeed.
        let limit = Int64(Mediator.maxCallDepth)
        let fresh = Counter()
        try m.register(target: "Deep", action: "down") { [unowned m] params in
            let depth = fresh.increment()
            if depth >= limit { return .int(Int64(depth)) }
            return try m.callAndWait(target: "Deep", action: "down", params: params)
        }
        let nested = onLargeStack { () -> Value? in try? m.callAndWait(target: "Deep", action: "down") }
        #expect(nested == .int(limit))
        #expect(try intact(m))
        robustnessRow("Re-entrant Swift call without end", cases: 2,
                      ".rejected \"call depth limit\" at call 1001; 1,000 nested calls succeed")
    }

    @Test("Interceptors and observers past their bound are refused, and the mediator still answers")
    func hookBound() throws {
        let m = Mediator()
        var ids: [UInt64] = []
        for _ in 0..<Mediator.maxObservers { ids.append(try m.addObserver { _ in }.rawValue) }
        for _ in 0..<Mediator.maxInterceptors { ids.append(try m.addInterceptor(named: "pass") { _ in .proceed }.rawValue) }
        #expect(throws: SwitchboardError.self) { try m.addObserver { _ in } }
        #expect(throws: SwitchboardError.self) { try m.addInterceptor(named: "one more") { _ in .proceed } }
        #expect(try intact(m))
        m.removeObserver(ObserverID(rawValue: ids[0]))
        #expect(throws: Never.self) { try m.addObserver { _ in } }
        robustnessRow("Swift interceptors and observers added past their bound (1,024 each)", cases: 2,
                      ".rejected naming the bound; removing one makes room")
    }

    @Test("Swift user code re-entering through an observer, a callback, an open completion is bounded")
    func hooksReenter() throws {
        let m = Mediator()
        #expect(try intact(m))
        // An observer that performs on every event sees only the caller's call.
        let observed = Counter()
        let id = try m.addObserver { [unowned m] _ in
            observed.increment()
            _ = m.performAndWait(target: "Healthy", action: "echo")
        }
        #expect(onLargeStack { m.performAndWait(target: "Healthy", action: "echo", params: ["v": 7]) } == 7)
        #expect(observed.value == 2)
        m.removeObserver(id)

        // A callback that calls itself: refused at the limit.
        let runs = Counter()
        let slot = CallbackSlot()
        slot.callback = Callback { args in
            runs.increment()
            return try slot.callback!(args)
        }
        let refused = onLargeStack { () -> SwitchboardError? in
            do throws(SwitchboardError) { _ = try slot.callback!(.null); return nil } catch { return error }
        }
        #expect(refused?.code == .rejected && refused?.message.contains("call depth limit") == true)
        #expect(runs.value == Mediator.maxCallDepth)
        slot.callback = nil

        // A completion that opens the URL again with itself.
        let completions = Counter()
        let reopen = CompletionSlot()
        reopen.body = { [unowned m] _ in
            completions.increment()
            m.openAndWait("app://Healthy/echo", completion: reopen.body)
        }
        _ = onLargeStack { m.openAndWait("app://Healthy/echo", completion: reopen.body) }
        #expect(completions.value == Mediator.maxCallDepth)
        reopen.body = nil
        #expect(try intact(m))
        robustnessRow("Swift user code re-entering without end (an observer performing on every event, a Callback "
                      + "calling itself, an open completion opening again)", cases: 3,
                      "bounded by Mediator.maxCallDepth (.rejected at the limit); an observer's own calls are not observed")
    }

    @Test("a provider that performs the target it is asked for is asked a bounded number of times")
    func discoveryLoop() throws {
        let m = Mediator()
        let provider = PerformingProvider()
        provider.mediator = m
        m.addProvider(provider)
        let error = onLargeStack { () -> SwitchboardError? in
            do throws(SwitchboardError) { _ = try m.callAndWait(target: "Ghost", action: "x"); return nil } catch { return error }
        }
        #expect(error?.code == .noTarget)
        #expect(provider.asked.value <= 1)
        #expect(provider.loops.value == 1)
        provider.asked.reset()
        #expect(onLargeStack { m.performAndWait(target: "Ghost", action: "x") } == .null) // with the fallback
        #expect(provider.asked.value >= 2 && provider.asked.value <= 3)
        #expect(try intact(m))
        robustnessRow("Swift target provider that performs the target it is asked for", cases: 2,
                      "not asked again for that name on the thread: the nested call fails .rejected \"discovery loop\"")
    }
}

/// Where a self-calling callback finds itself.
private final class CallbackSlot: @unchecked Sendable {
    var callback: Callback?
}

private final class CompletionSlot: @unchecked Sendable {
    var body: (@Sendable (Value) -> Void)?
}

/// Performs whatever it is asked for (stopping after 10,000 asks, so that an
/// unbounded search ends and fails the count).
private final class PerformingProvider: TargetProvider, @unchecked Sendable {
    let asked = ResettableCounter()
    let loops = ResettableCounter()
    weak var mediator: Mediator?

    func targetClass(named name: String) throws(SwitchboardError) -> ForeignTargetClass? {
        guard asked.increment() <= 10_000, let mediator else { return nil }
        do throws(SwitchboardError) {
            _ = try mediator.callAndWait(target: name, action: "x")
        } catch {
            if error.code == .rejected && error.message.contains("discovery loop") { loops.increment() }
        }
        return nil
    }
}

private final class ResettableCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    @discardableResult func increment() -> Int { lock.withLock { count += 1; return count } }
    func reset() { lock.withLock { count = 0 } }
}

/// Runs `body` on a new thread with a 256 MiB stack and returns its result.
private func onLargeStack<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
    let slot = ResultSlot<R>()
    let thread = Thread {
        slot.value = body()
        slot.done.signal()
    }
    thread.stackSize = 256 << 20
    thread.start()
    slot.done.wait()
    return slot.value!
}

/// A result handed from one thread to another: written once before `done`
/// is signalled, read after waiting for it.
private final class ResultSlot<R: Sendable>: @unchecked Sendable {
    var value: R?
    let done = DispatchSemaphore(value: 0)
}
