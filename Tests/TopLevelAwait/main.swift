// Top-level code ranks overloads as if it were synchronous: with a blocking
// and an awaitable form under one name, `try await m.call(...)` here ran the
// blocking one (issue 45). This file is built with -warnings-as-errors ("no
// 'async' operations occur within 'await'" would fail it) and run by
// scripts/test.sh: every awaited line must reach the `async` action, which
// a blocking call from this task refuses with EWOULDBLOCK.
import Switchboard

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let m = Mediator()
try m.register(target: "Net", action: "fetch", contract: "n: int = 0 -> int") { (params: Params) async throws -> Value in
    await Task.yield()
    return .int((params["n"]?.int ?? 0) + 1)
}
try m.defineService("Fetching", interface: "fetch(n: int = 0 -> int)")
try m.bindService("Fetching", to: "Net")

nonisolated(unsafe) var failures = 0
func expect(_ got: Value, _ wanted: Value, _ what: String) {
    guard got != wanted else { return }
    print("top-level await: \(what) gave \(got), not \(wanted)")
    failures += 1
}

expect(try await m.call(target: "Net", action: "fetch", params: ["n": 1]), 2, "call(target:action:)")
expect(await m.perform(target: "Net", action: "fetch", params: ["n": 2]), 3, "perform(target:action:)")
expect(try await m.call(url: "app://Net/fetch?n=3"), 4, "call(url:)") // the contract makes the query's "3" an int
expect(await m.open("app://Net/fetch", params: ["n": 4]), 5, "open(_:)")
expect(try await m.route(target: "Net", action: "fetch").call(["n": 5]), 6, "Route.call(_:)")
expect(try await m.callService("Fetching", action: "fetch", params: ["n": 6]), 7, "callService(_:action:)")
// The blocking form, named apart, still refuses to block this task.
do {
    _ = try m.callAndWait(target: "Net", action: "fetch")
    print("top-level await: callAndWait of an async action from a task did not refuse")
    failures += 1
} catch {
    expect(.string(error.code.name), "EWOULDBLOCK", "callAndWait(target:action:)")
}
if failures > 0 { exit(1) }
print("top-level await: every awaited form reached the async action")
