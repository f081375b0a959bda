// Built with `.defaultIsolation(MainActor.self)` (Package.swift): every
// declaration here is main-actor isolated unless it says otherwise, as in an
// app module under Swift 6.2's approachable concurrency. The closures below
// use that state directly; nonisolated ones could not.
import Switchboard
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A row of docs/ROBUSTNESS.md (as the other suites' robustnessRow records it).
nonisolated func robustnessRow(_ fault: String, cases: Int, _ observed: String) {
    guard let path = getenv("SB_ROBUSTNESS_LOG").map({ String(cString: $0) }), !path.isEmpty,
          let file = fopen(path, "a") else { return }
    fputs("\(fault)\t\(cases)\t\(observed)\n", file)
    fclose(file)
}

/// Main-actor state, as an app's view model would be.
final class Screen {
    var shown: [String] = []
}

/// A Target class still compiles here: it conforms to a Sendable protocol,
/// so its code is not main-actor isolated, and it is found by name.
final class Target_Plain: Target {
    static let actions: Actions<Target_Plain> = [
        "echo": { _, params in params["v"] ?? .null },
    ]
}

/// Runs `body` on a thread of its own (not the main one, not a task) and
/// gives its result to the awaiting task.
nonisolated final class Job: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

nonisolated func onOtherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let job = Unmanaged.passRetained(Job { continuation.resume(returning: body()) }).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.run()
            return nil
        }, job)
        precondition(started == 0, "no thread")
        pthread_detach(thread)
    }
}

@Suite("main-actor isolation (issue 45)")
struct MainActorTests {
    @Test("a main-actor action uses main-actor state: at once on the main thread, on the main actor when awaited")
    func action() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "Screen", action: "show", isolation: MainActor.shared) { params in
            screen.shown.append(params["title"]?.string ?? "?")
            return .int(Int64(screen.shown.count))
        }
        let before = screen.shown.count
        // This test runs on the main actor: a waiting call runs it here and now.
        #expect(try m.callAndWait(target: "Screen", action: "show", params: ["title": "now"]) == .int(Int64(before + 1)))
        #expect(screen.shown.last == "now")
        // An awaited call starts off the main actor and hops back for it.
        #expect(try await m.call(target: "Screen", action: "show", params: ["title": "awaited"]) == .int(Int64(before + 2)))
        // Awaited from another task that is not on the main actor, too.
        let fromTask = try await Task.detached { try await m.call(target: "Screen", action: "show", params: ["title": "task"]) }.value
        #expect(fromTask == .int(Int64(before + 3)))
        #expect(screen.shown.suffix(3) == ["now", "awaited", "task"])
    }

    @Test("a waiting call on another thread is refused at once, before the action runs")
    func refusedOffMain() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "Screen", action: "show", isolation: MainActor.shared) { _ in
            screen.shown.append("must not run")
            return .null
        }
        let before = screen.shown.count
        let code = await onOtherThread { () -> SwitchboardError.Code? in
            do throws(SwitchboardError) {
                _ = try m.callAndWait(target: "Screen", action: "show")
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code == .wouldBlock)
        #expect(screen.shown.count == before)
        // perform says nothing, and runs nothing either.
        #expect(await onOtherThread { m.performAndWait(target: "Screen", action: "show") } == .null)
        #expect(screen.shown.count == before)
        robustnessRow("A main-actor action, callback or async interceptor waited for where it cannot run (another "
                      + "thread; the main actor itself for async code)", cases: 4,
                      "EWOULDBLOCK at once, before it runs; never a wait for ever or for the whole timeout")
    }

    @Test("a main-actor action gets its call's context")
    func context() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "Screen", action: "who", isolation: MainActor.shared) { _, call in
            screen.shown.append("context")
            return .array([.bool(call.mediator === m), .array(call.tags.map(Value.string))])
        }
        let answer = try await m.call(target: "Screen", action: "who", options: CallOptions(tags: ["from-push"]))
        #expect(answer == [true, ["from-push"]])
    }

    @Test("an async action isolated to the main actor: awaited it runs; a call waiting on the main thread is refused")
    func asyncAction() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "Screen", action: "load") { @MainActor params async throws -> Value in
            await Task.yield()
            screen.shown.append("loaded")
            return "loaded"
        }
        #expect(try await m.call(target: "Screen", action: "load") == "loaded")
        // Waiting for it here, on the main thread, would wait for ever.
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "Screen", action: "load") }
        do {
            _ = try m.callAndWait(target: "Screen", action: "load")
        } catch {
            #expect(error.code == .wouldBlock)
            #expect(error.message.contains("main actor"))
        }
        // The catalogue still lists it as asynchronous.
        let asyncActions = m.routes()["targets"]?.array?.first { $0["name"] == "Screen" }?["async"]
        #expect(asyncActions == ["load"])
    }

    @Test("a main-actor interceptor decides on the main thread, from a call on any thread")
    func interceptor() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "A", action: "echo") { params in params["v"] ?? .null }
        try m.addInterceptor(named: "screen", isolation: MainActor.shared) { call in
            screen.shown.append("intercepted \(call.action)")
            return call.params["v"] == "deny" ? .reject(.rejected("denied on the main actor")) : .proceed
        }
        #expect(try m.callAndWait(target: "A", action: "echo", params: ["v": 1]) == 1)
        let fromThread = await onOtherThread { try? m.callAndWait(target: "A", action: "echo", params: ["v": 2]) }
        #expect(fromThread == 2)
        let denied = await onOtherThread { () -> SwitchboardError.Code? in
            do throws(SwitchboardError) { _ = try m.callAndWait(target: "A", action: "echo", params: ["v": "deny"]); return nil } catch { return error.code }
        }
        #expect(denied == .rejected)
    }

    @Test("an async interceptor isolated to the main actor fails a call waiting on the main thread at once")
    func asyncInterceptor() async throws {
        let m = Mediator(), screen = Screen()
        try m.register(target: "A", action: "echo") { params in params["v"] ?? .null }
        // A timeout long enough that stalling for it would be ETIMEOUT, not EWOULDBLOCK.
        try m.addInterceptor(named: "login", timeout: .seconds(60)) { @MainActor call async throws -> Decision in
            await Task.yield()
            screen.shown.append("checked login")
            return .proceed
        }
        do {
            _ = try m.callAndWait(target: "A", action: "echo", params: ["v": 1])
            Issue.record("a call waiting on the main thread for a main-actor interceptor went through")
        } catch {
            #expect(error.code == .wouldBlock)
            #expect(error.message.contains("interceptor \"login\""))
        }
        // Awaited, the call waits off the main actor, and the interceptor runs.
        #expect(try await m.call(target: "A", action: "echo", params: ["v": 2]) == 2)
    }

    @Test("a main-actor observer is told on the main actor, of calls made on any thread")
    func observer() async throws {
        let m = Mediator()
        try m.register(target: "A", action: "echo") { params in params["v"] ?? .null }
        var ended: [Value] = []
        try m.addObserver(isolation: MainActor.shared) { event in
            if event.phase == .end { ended.append(event.value ?? .null) }
        }
        _ = try m.callAndWait(target: "A", action: "echo", params: ["v": 1]) // on the main thread: told at once
        #expect(ended == [1])
        _ = await onOtherThread { try? m.callAndWait(target: "A", action: "echo", params: ["v": 2]) }
        // Told later, when the main actor runs it: this test suspends until then.
        for _ in 0..<10_000 where ended.count < 2 { await Task.yield() }
        #expect(ended == [1, 2])
    }

    @Test("a main-actor callback runs when called on the main thread, and is refused on another")
    func callback() async throws {
        let screen = Screen()
        let callback = Callback(isolation: MainActor.shared) { value in
            screen.shown.append("callback")
            return value
        }
        #expect(try callback(7) == 7)
        let code = await onOtherThread { () -> SwitchboardError.Code? in
            do throws(SwitchboardError) { _ = try callback(8); return nil } catch { return error.code }
        }
        #expect(code == .wouldBlock)
    }

    @Test("a Target class is found by name in a main-actor module")
    func targetClass() throws {
        let m = Mediator(modules: ["SwitchboardIsolationTests"])
        #expect(try m.callAndWait(target: "Plain", action: "echo", params: ["v": "x"]) == "x")
    }
}
