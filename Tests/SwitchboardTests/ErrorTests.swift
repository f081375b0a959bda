import Testing
@testable import Switchboard

/// SwitchboardError can grow (issue 45, item 7): a struct of a code, a
/// message and the error an action threw; and Swift's CancellationError is
/// `.canceled` both ways.
@Suite struct ErrorTests {
    @Test("the 1.x spellings make the error of their code; codes match in a switch")
    func spellings() {
        let error: SwitchboardError = .noTarget("no target named \"A\"")
        #expect(error.code == .noTarget)
        #expect(error.message == "no target named \"A\"")
        #expect(error.underlying == nil)
        let matched: String = switch error {
        case .noAction: "noAction"
        case .noTarget: "noTarget"
        default: "other"
        }
        #expect(matched == "noTarget")
        struct Boom: Error {}
        let failed = SwitchboardError.actionFailed("A.x failed", underlying: Boom())
        #expect(failed.underlying is Boom)
        #expect(SwitchboardError.Code(rawValue: 0) == nil)
        #expect(SwitchboardError.Code(rawValue: 99) == nil)
        #expect(SwitchboardError.Code(rawValue: 11) == .canceled)
        #expect("\(SwitchboardError.Code.canceled)" == "ECANCELED")
    }

    @Test("an action that throws CancellationError fails its call with .canceled, in Swift and C")
    func cancellationFromAction() async throws {
        let m = Mediator()
        try m.register(target: "A", action: "sync") { _ in throw CancellationError() }
        try m.register(target: "A", action: "async") { _ async throws -> Value in throw CancellationError() }
        for action in ["sync", "async"] {
            do {
                _ = try await m.call(target: "A", action: action)
                Issue.record("A.\(action) did not fail")
            } catch {
                #expect(error.code == .canceled, "A.\(action)")
                #expect(error.isCancellation)
                #expect(error.underlying is CancellationError)
                #expect(error.message == "A.\(action) was cancelled")
            }
        }
        // A callback and an interceptor that throw it, too.
        let callback = Callback { _ in throw CancellationError() }
        #expect { try callback() } throws: { ($0 as? SwitchboardError)?.code == .canceled }
        try m.addInterceptor(named: "stop") { _ in throw CancellationError() }
        #expect { try m.callAndWait(target: "A", action: "sync") } throws: {
            guard let error = $0 as? SwitchboardError else { return false }
            return error.code == .canceled && error.message.hasPrefix("interceptor \"stop\" failed")
        }
    }

    @Test("a cancelled task's call is .canceled, and reads as a cancellation")
    func cancellationToSwift() async throws {
        let m = try AwaitTests.mediator()
        let task = Task { () throws(SwitchboardError) -> Value in try await m.call(target: "Net", action: "hang") }
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("not cancelled")
            return
        }
        #expect((error as? SwitchboardError)?.isCancellation == true)
    }
}
