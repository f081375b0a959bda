import Testing
import Synchronization
import CSwitchboard
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A main-actor Swift action called from C (issue 45, item 3): a caller that
/// does not wait (`sb_action_perform_async`) gets its answer once the main
/// actor has run it; a caller that waits on another thread is refused at
/// once with SB_EWOULDBLOCK, before the action runs.
@Suite struct MainActorFromCTests {
    /// What `done` got, reached through its userdata.
    final class Ended: Sendable {
        let answer = Guarded<(status: UInt32, value: Int64?)?>(nil)
    }

    /// The C handle, carried to another thread (the mediator is thread-safe).
    struct Handle: @unchecked Sendable { let pointer: OpaquePointer }

    static func mediator() throws -> Pair {
        let pair = Pair()
        try pair.mediator.register(target: "UI", action: "next", isolation: MainActor.shared) { params in
            .int((params["n"]?.int ?? 0) + 1)
        }
        return pair
    }

    @Test("sb_action_perform_async from another thread: pending, then the answer the main actor gave")
    func asyncCaller() async throws {
        let pair = try Self.mediator()
        let handle = Handle(pointer: pair.handle)
        let ended = Ended()
        let status: UInt32 = await Task.detached {
            // A thread of the pool: it does not run the main actor.
            var params: OpaquePointer?
            _ = sb_json_decode("{\"n\": 41}", &params)
            defer { sb_value_release(params) }
            let context = Unmanaged.passRetained(ended).toOpaque()
            return sb_action_perform_async(handle.pointer, "UI", "next", params, nil, { userdata, status, result in
                let ended = Unmanaged<Ended>.fromOpaque(userdata!).takeRetainedValue()
                ended.answer.withLock { $0 = (status.rawValue, intOf(result)) }
                sb_value_release(result)
            }, context).rawValue
        }.value
        #expect(status == SB_PENDING.rawValue) // the main actor had not run it yet
        for _ in 0..<10_000 where ended.answer.withLock({ $0 == nil }) { await Task.yield() }
        let answer = ended.answer.withLock { $0 }
        #expect(answer?.status == SB_OK.rawValue)
        #expect(answer?.value == 42)
        withExtendedLifetime(pair) {}
    }

    @Test("sb_action_perform from another thread is refused at once with SB_EWOULDBLOCK")
    func waitingCaller() async throws {
        let pair = try Self.mediator()
        let handle = Handle(pointer: pair.handle)
        let status: UInt32 = await Task.detached {
            var out: OpaquePointer?
            let status = sb_action_perform(handle.pointer, "UI", "next", nil, 0, &out)
            sb_value_release(out)
            return status.rawValue
        }.value
        #expect(status == SB_EWOULDBLOCK.rawValue)
        withExtendedLifetime(pair) {}
    }
}
