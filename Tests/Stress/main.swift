// The stress run of scripts/test.sh: threads mixing every kind of call on the
// shared mediator for a fixed time, Swift and C on both sides, every result
// checked, while one more thread holds a call open for the whole run (memory
// retired meanwhile must still be released); then the resident memory at the
// end is compared with the memory after a warm-up second.
//
//   swift run SwitchboardStress [--threads 8] [--seconds 10] [--rss-growth-mib 16]
//
// Exits 1 on any wrong result or if memory grew by more than the bound.
import ArgumentParser
import CInteropHelpers
import CSwitchboard
import Foundation
@_spi(Faces) import Switchboard
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A class target kept in the cache by some calls and released by others.
final class Target_StressCached: Target {
    init() {}
    static let actions: Actions<Target_StressCached> = [
        "triple": { _, params in .int((params["n"]?.int ?? 0) * 3) },
    ]
}

/// The C mediator and route, shared by the threads: switchboard.h documents
/// both as safe to call from several threads at once.
struct CHandles: @unchecked Sendable {
    let mediator: OpaquePointer?
    let route: OpaquePointer
}

/// How many times one operation ran.
final class Tally: Sendable {
    let count = Atomic<Int>(0)
}

/// The kinds of call mixed, each with how it checks its result.
enum Operation: String, CaseIterable {
    case swiftToSwift = "Swift perform of a Swift closure"
    case swiftToCWithCallback = "Swift perform of a C action calling a Swift callback"
    case cToSwiftWithCallback = "C perform of a Swift closure calling a C callback"
    case cToCWithCallback = "C perform of a C action calling a C callback"
    case cachedAndReleased = "cached perform of a class target, and release"
    case registerAndUnregister = "register, perform, unregister, perform again"
    case openURL = "URL open of a Swift closure"
    case preparedRoute = "prepared route call from C"
}

@main
struct SwitchboardStress: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mixes every kind of call from many threads; checks every result and the memory.")

    @Option(help: "Threads calling at once.") var threads = 8
    @Option(help: "How long they call, in seconds.") var seconds = 10.0
    @Option(help: "Allowed growth of resident memory after the first second, in MiB.") var rssGrowthMib = 16

    func run() throws {
        let m = Mediator.shared
        m.modules.append("SwitchboardStress") // where Target_StressCached is found
        let cm = sb_mediator_shared()
        try m.register(target: "StressSwift", action: "double") { params in
            let n = params["n"]?.int ?? Int64(params["n"]?.string ?? "") ?? 0
            return .int(n * 2)
        }
        try m.register(target: "StressSwift", action: "call") { params in
            guard case .callback(let cb)? = params["cb"] else { return .null }
            return try cb(params["arg"] ?? .null)
        }
        guard sb_action_register(cm, "StressC", "call", helper_call_param_callback, nil, nil) == SB_OK else {
            throw ValidationError("cannot register the C action: \(String(cString: sb_error_message()))")
        }
        var route: OpaquePointer?
        guard sb_route_prepare(cm, "StressC", "call", 0, &route) == SB_OK, let route else {
            throw ValidationError("cannot prepare the route")
        }
        defer { sb_route_free(route) }

        // A call that stays open for the whole run, as an app's main loop run
        // through the mediator would: it must not hold back reclamation.
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        try m.register(target: "StressHold", action: "wait") { _ in
            entered.signal()
            release.wait()
            return 42
        }
        let held = Guarded<Value?>(nil)
        let holder = Thread { held.withLock { $0 = try? m.callAndWait(target: "StressHold", action: "wait") } }
        holder.start()
        entered.wait()

        let c = CHandles(mediator: cm, route: route)
        let counts = Operation.allCases.map { _ in Tally() }
        let wrong = Atomic<Int>(0)
        let deadline = Date().addingTimeInterval(seconds)
        let workers = (0..<threads).map { worker in
            Thread {
                var random = SystemRandomNumberGenerator()
                var i: Int64 = 0
                while Date() < deadline {
                    for _ in 0..<256 {
                        i += 1
                        let operation = Operation.allCases.randomElement(using: &random)!
                        let ok = Self.perform(operation, n: i, worker: worker, m: m, c: c)
                        counts[Operation.allCases.firstIndex(of: operation)!].count.add(1, ordering: .relaxed)
                        if !ok { wrong.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        let started = Date()
        workers.forEach { $0.stackSize = 1 << 20; $0.start() }
        Thread.sleep(forTimeInterval: min(1, seconds / 4))
        let warm = residentBytes()
        while workers.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.05) }
        let end = residentBytes()
        release.signal()
        while !holder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        if held.withLock({ $0 }) != 42 { wrong.add(1, ordering: .relaxed) }

        let total = counts.reduce(0) { $0 + $1.count.load(ordering: .relaxed) }
        print("\(threads) threads, \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \(total) calls "
              + "(and one call held open throughout)")
        for (operation, count) in zip(Operation.allCases, counts) {
            print(String(format: "%9d  ", count.count.load(ordering: .relaxed)) + operation.rawValue)
        }
        let growth = (end - warm) / (1 << 20)
        print("resident memory: \(warm >> 20) MiB after warm-up, \(end >> 20) MiB at the end (bound: +\(rssGrowthMib) MiB)")
        let failures = wrong.load(ordering: .relaxed)
        print("wrong results: \(failures)")
        if failures > 0 || growth > rssGrowthMib { throw ExitCode.failure }
        recordRow("Stress: \(Operation.allCases.count) kinds of call mixed (Swift and C callers, targets and callbacks; "
                  + "cache and release; register and unregister; URLs; prepared routes) beside one call held open",
                  cases: "\(threads) threads × \(Int(seconds)) s",
                  "every result right; resident memory within +\(rssGrowthMib) MiB of the warm-up")
    }

    /// A row of docs/ROBUSTNESS.md (see scripts/robustness.sh).
    func recordRow(_ fault: String, cases: String, _ observed: String) {
        guard let path = ProcessInfo.processInfo.environment["SB_ROBUSTNESS_LOG"], !path.isEmpty,
              let file = fopen(path, "a") else { return }
        fputs("\(fault)\t\(cases)\t\(observed)\n", file)
        fclose(file)
    }

    /// Runs one operation and checks its result.
    static func perform(_ operation: Operation, n: Int64, worker: Int, m: Mediator, c: CHandles) -> Bool {
        let (cm, route) = (c.mediator, c.route)
        switch operation {
        case .swiftToSwift:
            return m.performAndWait(target: "StressSwift", action: "double", params: ["n": .int(n)]) == .int(2 * n)
        case .swiftToCWithCallback:
            let cb = Callback { .int(($0.int ?? 0) - 1) }
            return m.performAndWait(target: "StressC", action: "call", params: ["cb": .callback(cb), "arg": .int(n)]) == .int(n - 1)
        case .cToSwiftWithCallback:
            var result: Int64 = 0
            return helper_perform_with_c_callback(cm, "StressSwift", "call", n, &result) == SB_OK && result == n + 1
        case .cToCWithCallback:
            var result: Int64 = 0
            return helper_perform_with_c_callback(cm, "StressC", "call", n, &result) == SB_OK && result == n + 1
        case .cachedAndReleased:
            if n % 64 == 0 { m.evict(target: "StressCached") }
            return m.performAndWait(target: "StressCached", action: "triple", params: ["n": .int(n)],
                             cacheTarget: n % 2 == 0) == .int(3 * n)
        case .registerAndUnregister:
            let name = "StressTemp\(worker)"
            guard (try? m.register(target: name, action: "id", { _ in .int(n) })) != nil else { return false }
            let answered = m.performAndWait(target: name, action: "id") == .int(n)
            let gone = m.unregister(target: name) && (try? m.callAndWait(target: name, action: "id")) == nil
            return answered && gone
        case .openURL:
            return m.openAndWait("app://StressSwift/double?n=\(n)") == .int(2 * n)
        case .preparedRoute:
            let params = sb_dict_new()
            defer { sb_value_release(params) }
            sb_dict_set_new(params, "cb", sb_callback_new(helper_add_one, nil, nil))
            sb_dict_set_new(params, "arg", sb_int(n))
            var out: OpaquePointer?
            defer { sb_value_release(out) }
            var result: Int64 = 0
            return sb_route_call(route, params, &out) == SB_OK && sb_value_get_int(out, &result) == SB_OK && result == n + 1
        }
    }
}

/// The process's resident memory, from /proc/self/statm.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
