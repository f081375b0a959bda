import Testing
import Foundation
@testable import Switchboard

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
        return try m.call(target: "Healthy", action: "echo", params: ["v": 7]) == 7
    }

    @Test("an action that throws: any error, or a SwitchboardError of every code")
    func throwingActions() throws {
        let m = Mediator(modules: ["SwitchboardTests"])
        var errors: [any Error] = [Broken(), CocoaError(.fileNoSuchFile)]
        errors += SwitchboardError.Code.allCases.map { SwitchboardError(code: $0, message: "fault \($0.name)") }
        for error in errors {
            try m.register(target: "Thrower", action: "go") { _ in throw error }
            let expected = (error as? SwitchboardError)?.code ?? .actionFailed
            #expect { try m.call(target: "Thrower", action: "go") } throws: { thrown in
                guard let thrown = thrown as? SwitchboardError else { return false }
                return thrown.code == expected && (error is SwitchboardError || thrown.message.contains("Thrower.go"))
            }
            #expect(m.perform(target: "Thrower", action: "go") == .null)
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
            return try m.call(target: "Deep", action: "down", params: params)
        }
        // On a thread with room for every level, so the depth limit (not the
        // stack reserve, which sanitizers' larger frames reach first) refuses.
        let firstError = onLargeStack { () -> SwitchboardError? in
            do throws(SwitchboardError) { _ = try m.call(target: "Deep", action: "down"); return nil } catch { return error }
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
            return try m.call(target: "Deep", action: "down", params: params)
        }
        let nested = onLargeStack { () -> Value? in try? m.call(target: "Deep", action: "down") }
        #expect(nested == .int(limit))
        #expect(try intact(m))
        robustnessRow("Re-entrant Swift call without end", cases: 2,
                      ".rejected \"call depth limit\" at call 1001; 1,000 nested calls succeed")
    }
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
