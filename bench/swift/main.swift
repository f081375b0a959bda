// The Swift benchmarks. Each case is timed against its baseline in the same
// run: REPS repetitions, alternating case and baseline, each over ITER calls;
// one JSON object per line with the medians in ns/call. scripts/bench.sh runs
// it (a release build).
//
//   SwitchboardBench ITER REPS            all cases
//   SwitchboardBench --one CASE ITER      one case, untimed, for callgrind:
//                                         direct, perform, route, parse, open
import Switchboard
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Found by name, like any `Target_<Name>` in a module the mediator searches.
final class Target_Bench: Target {
    static let actions: Actions<Target_Bench> = [
        "twice": { target, params in target.twice(params) },
        "show": { _, params in .int(Int64(params.count)) },
    ]

    /// What the action does; the direct-call baseline calls it too.
    @inline(never)
    func twice(_ params: Params) -> Value {
        .int((params["n"]?.int ?? 0) * 2)
    }
}

struct Options {
    var iterations = 0
    var reps = 0
    /// `--one`: the case to run untimed.
    var one: String?

    init() {
        var args = Array(CommandLine.arguments.dropFirst())
        if args.first == "--one", args.count == 3 {
            one = args[1]
            args = [args[2], "1"]
        }
        guard args.count == 2, let iterations = Int(args[0]), let reps = Int(args[1]),
              iterations > 0, (1...64).contains(reps) else {
            let usage = "usage: SwitchboardBench ITER REPS | SwitchboardBench --one CASE ITER\n"
            _ = usage.withCString { write(2, $0, strlen($0)) }
            exit(2)
        }
        self.iterations = iterations
        self.reps = reps
    }
}

func nowNanoseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let n = sorted.count
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}

/// Keeps results alive so the optimizer cannot drop the calls.
nonisolated(unsafe) var sink = 0

let options = Options()

/// Times `run` and `baseline` alternately; prints one JSON line.
func measure(id: String, name: String, baseline baselineName: String,
             _ run: () -> Void, against baseline: () -> Void) {
    run()
    baseline() // warm-up
    var runs: [Double] = [], bases: [Double] = []
    for _ in 0..<options.reps {
        let t0 = nowNanoseconds()
        baseline()
        let t1 = nowNanoseconds()
        run()
        let t2 = nowNanoseconds()
        bases.append((t1 - t0) / Double(options.iterations))
        runs.append((t2 - t1) / Double(options.iterations))
    }
    let ns = median(runs), base = median(bases)
    // Plain Double descriptions are valid JSON numbers; bench.sh rounds them.
    print("{\"id\": \"\(id)\", \"case\": \"\(name)\", \"baseline\": \"\(baselineName)\", \"ns\": \(ns), "
          + "\"baseline_ns\": \(base), \"ratio\": \(ns / base), \"above_ns\": \(ns - base), "
          + "\"reps\": \(options.reps), \"iterations\": \(options.iterations)}")
    fflush(nil)
}

let mediator = Mediator(modules: ["SwitchboardBench"])
let target = Target_Bench()
let params: Params = ["n": 21]
let url = "app://Bench/show?n=21&name=switchboard"

let route = try! mediator.route(target: "Bench", action: "twice", cacheTarget: true)

let runners: [String: () -> Void] = [
    "direct": { for _ in 0..<options.iterations { sink &+= Int(target.twice(params).int ?? 0) } },
    "perform": {
        for _ in 0..<options.iterations {
            sink &+= Int(mediator.performAndWait(target: "Bench", action: "twice", params: params, cacheTarget: true).int ?? 0)
        }
    },
    "route": { for _ in 0..<options.iterations { sink &+= Int((try? route.callAndWait(params))?.int ?? 0) } },
    "parse": { for _ in 0..<options.iterations { sink &+= (try? RemoteURL(url))?.segments.count ?? 0 } },
    "open": { for _ in 0..<options.iterations { sink &+= Int((try? mediator.callAndWait(url: url))?.int ?? 0) } },
]

if let one = options.one {
    guard let run = runners[one] else {
        _ = "SwitchboardBench: unknown case \(one)\n".withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    run()
    exit(0)
}

measure(id: "swift.perform", name: "Swift perform, cached target, 1 int param -> int",
        baseline: "direct Swift method call", runners["perform"]!, against: runners["direct"]!)
measure(id: "swift.route", name: "Swift prepared route, cached target", baseline: "direct Swift method call",
        runners["route"]!, against: runners["direct"]!)
measure(id: "swift.open_url", name: "open(url) (parse, route, perform)", baseline: "parsing the URL only",
        runners["open"]!, against: runners["parse"]!)

// Awaiting (issue 21): `try await call` of the same action against a plain
// Swift async function doing the same work, both awaited in a task.
@inline(never)
func twiceAsync(_ params: Params) async -> Value { target.twice(params) }

/// `measure` for async work: runs it in a task and waits for it here.
func measureAsync(id: String, name: String, baseline: String,
                  _ run: @escaping @Sendable () async -> Void, against base: @escaping @Sendable () async -> Void) {
    let timings = Mutex<(runs: [Double], bases: [Double])?>(nil)
    let reps = options.reps, iterations = Double(options.iterations)
    Task.detached {
        await run()
        await base()
        var runs: [Double] = [], bases: [Double] = []
        for _ in 0..<reps {
            let t0 = nowNanoseconds()
            await base()
            let t1 = nowNanoseconds()
            await run()
            let t2 = nowNanoseconds()
            bases.append((t1 - t0) / iterations)
            runs.append((t2 - t1) / iterations)
        }
        timings.withLock { $0 = (runs, bases) }
    }
    while timings.withLock({ $0 == nil }) { usleep(1000) }
    let (runs, bases) = timings.withLock { $0! }
    let ns = median(runs), base = median(bases)
    print("{\"id\": \"\(id)\", \"case\": \"\(name)\", \"baseline\": \"\(baseline)\", \"ns\": \(ns), "
          + "\"baseline_ns\": \(base), \"ratio\": \(ns / base), \"above_ns\": \(ns - base), "
          + "\"reps\": \(options.reps), \"iterations\": \(options.iterations)}")
    fflush(nil)
}

let awaitIterations = options.iterations
let awaitSink = Atomic<Int>(0)
measureAsync(id: "swift.await", name: "Swift try await call, 1 int param -> int (a synchronous action)",
             baseline: "a plain Swift async function call", {
    var total = 0
    for _ in 0..<awaitIterations {
        total &+= Int((try? await mediator.call(target: "Bench", action: "twice", params: params))?.int ?? 0)
    }
    awaitSink.add(total, ordering: .relaxed)
}, against: {
    var total = 0
    for _ in 0..<awaitIterations { total &+= Int(await twiceAsync(params).int ?? 0) }
    awaitSink.add(total, ordering: .relaxed)
})

if sink == 42 || awaitSink.load(ordering: .relaxed) == 42 { print("") } // reads the sinks
