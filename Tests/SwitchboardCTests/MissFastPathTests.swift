import Testing
import CSwitchboard
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A C call of a missing target that NoTargetAction answers, from a plan
/// the cache kept (what a call that repeats a miss runs: the fast path)
/// against the same call planned afresh (on a mediator that reuses no
/// plan: the general path). Every target, action and params of a set is
/// performed on mediators configured every way that changes who answers a
/// miss, twice each in turn: status, result, error message and what the
/// fallback and the discoverers saw must be the same.
@Suite(.serialized) struct MissFastPathTests {
    typealias Outcome = CallOutcome

    /// What a mediator has that changes who answers a miss.
    enum Setup: CaseIterable {
        case echo            // NoTargetAction.response: a C function, no contract
        case echoRetaining   // the same, answering with its params themselves
        case contract        // NoTargetAction.response with a contract (-> int)
        case swiftFallback   // NoTargetAction.response: a Swift closure
        case none            // no NoTargetAction: the miss fails
        case discoverer      // a discoverer that finds nothing (asked on every miss)
        case lateDiscoverer  // a discoverer that registers "Late" when asked
        case notFound        // the target "Known" has no such action but a notFound
        case discovererOnly  // a discoverer and no NoTargetAction: asked for it on every miss that falls back
    }

    static func mediator(_ setup: Setup, log: LineLog) -> (Pair, OpaquePointer) {
        let pair = Pair()
        let m = pair.handle
        let context = Unmanaged.passUnretained(log).toOpaque()
        let echo: sb_fn = { userdata, args, out in
            Unmanaged<LineLog>.fromOpaque(userdata!).takeUnretainedValue().lines.append("fallback " + jsonText(args))
            out?.pointee = SwitchboardC.sb_int(Int64(sb_value_count(args)))
            return SB_OK
        }
        let retaining: sb_fn = { userdata, args, out in
            Unmanaged<LineLog>.fromOpaque(userdata!).takeUnretainedValue().lines.append("fallback " + jsonText(args))
            out?.pointee = sb_value_retain(args)
            return SB_OK
        }
        let known: sb_fn = { _, _, out in
            out?.pointee = SwitchboardC.sb_string("known")
            return SB_OK
        }
        switch setup {
        case .echo, .discoverer, .lateDiscoverer, .notFound:
            #expect(sb_action_register(m, "NoTargetAction", "response", echo, context, nil) == SB_OK)
        case .echoRetaining:
            #expect(sb_action_register(m, "NoTargetAction", "response", retaining, context, nil) == SB_OK)
        case .contract:
            #expect(sb_action_register_contract(m, "NoTargetAction", "response", "-> string", echo, context, nil)
                == SB_OK)
        case .swiftFallback:
            #expect((try? pair.mediator.register(target: "NoTargetAction", action: "response") { params in
                .int(Int64(params.count))
            }) != nil)
        case .none, .discovererOnly:
            break
        }
        if setup == .discoverer || setup == .lateDiscoverer || setup == .discovererOnly {
            let discover: sb_discoverer_fn = { userdata, m, target in
                let log = Unmanaged<LineLog>.fromOpaque(userdata!).takeUnretainedValue()
                let name = String(cString: target!)
                log.lines.append("discover \(name)")
                guard name == "Late" else { return SB_ENOTARGET }
                let late: sb_fn = { _, _, out in
                    out?.pointee = SwitchboardC.sb_string("late")
                    return SB_OK
                }
                return sb_action_register(m, "Late", "act", late, nil, nil)
            }
            #expect(sb_discoverer_add(m, discover, context, nil, nil) == SB_OK)
        }
        #expect(sb_action_register(m, "Known", "act", known, nil, nil) == SB_OK)
        if setup == .notFound {
            #expect(sb_action_register(m, "Known", "notFound", echo, context, nil) == SB_OK)
        }
        return (pair, m)
    }

    /// `bytes` NUL-terminated, for a C name.
    static func cName(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    static func perform(_ pair: Pair, _ target: [UInt8], _ action: [UInt8], _ params: OpaquePointer?, general: Bool,
                        log: LineLog) -> Outcome {
        log.lines = []
        // The general path: a plan made for this call alone.
        pair.mediator.reusesPlans.store(!general, ordering: .relaxed)
        defer { pair.mediator.reusesPlans.store(true, ordering: .relaxed) }
        var out: OpaquePointer?
        let t = cName(target), a = cName(action)
        let status: UInt32 = t.withUnsafeBufferPointer { t in
            a.withUnsafeBufferPointer { a in
                sb_action_perform(pair.handle, t.baseAddress, a.baseAddress, params, 0, &out).rawValue
            }
        }
        defer { sb_value_release(out) }
        let message = status == SB_OK.rawValue ? "" : String(cString: sb_error_message())
        return Outcome(status: status, result: jsonText(out), message: message, logged: log.lines)
    }

    /// Whether the next call of the pair runs a plan the cache kept.
    static func takesFast(_ pair: Pair, _ target: [UInt8], _ action: [UInt8], _ params: OpaquePointer?) -> Bool {
        let t = cName(target), a = cName(action)
        return t.withUnsafeBufferPointer { t in
            a.withUnsafeBufferPointer { a in
                pair.mediator.hasCurrentPlan(NameRef(cString: t.baseAddress!), NameRef(cString: a.baseAddress!))
            }
        }
    }

    static let targets: [[UInt8]] = [
        Array("Missing".utf8), Array("M".utf8), Array("Mod.Missing".utf8), Array("Missing.".utf8),
        Array("Late".utf8), Array("Known".utf8), Array("NoTargetAction".utf8), Array("é".utf8),
        Array("Target_X".utf8), [0xFF, 0x41], [0x41, 0xC3], Array(String(repeating: "x", count: 127).utf8),
        Array(String(repeating: "y", count: 200).utf8), Array("a.b.c.d.e.f.g.h".utf8), Array("abcdefgh.".utf8),
    ]
    static let actions: [[UInt8]] = [Array("act".utf8), Array("response".utf8), Array("x".utf8), [0xE0, 0x80]]

    /// Params: none, empty, flat, holding a container, too deep to go in
    /// as originParams, naming a module.
    static func paramsSet() -> [OpaquePointer?] {
        let flat = SwitchboardC.sb_dict_new()!
        sb_dict_set_new(flat, "n", SwitchboardC.sb_int(1))
        let holding = SwitchboardC.sb_dict_new()!
        let inner = SwitchboardC.sb_array_new()!
        sb_array_append_new(inner, SwitchboardC.sb_int(2))
        sb_dict_set_new(holding, "list", inner)
        let deep = SwitchboardC.sb_dict_new()!
        var level = deep
        for _ in 2...Int(SB_MAX_DEPTH) {
            let next = SwitchboardC.sb_dict_new()!
            sb_dict_set_new(level, "c", next)
            level = next
        }
        let module = SwitchboardC.sb_dict_new()!
        sb_dict_set_new(module, SB_MODULE_KEY, SwitchboardC.sb_string("Mod"))
        return [nil, SwitchboardC.sb_dict_new(), flat, holding, deep, module]
    }

    @Test func fastPathMatchesGeneralPath() {
        let params = Self.paramsSet()
        defer { params.forEach { sb_value_release($0) } }
        var compared = 0, fast = 0
        for setup in Setup.allCases {
            // Two mediators with the same history, one called each way: a
            // call may change what the next finds (a discoverer registers,
            // a target's class is searched once per generation).
            let generalLog = LineLog(), performLog = LineLog()
            let (generalPair, _) = Self.mediator(setup, log: generalLog)
            let (performPair, _) = Self.mediator(setup, log: performLog)
            for target in Self.targets {
                for action in Self.actions {
                    for p in params {
                        for round in 0..<2 {
                            let general = Self.perform(generalPair, target, action, p, general: true, log: generalLog)
                            let viaPerform = Self.perform(performPair, target, action, p, general: false,
                                                          log: performLog)
                            #expect(general == viaPerform,
                                    "\(setup) \(target) \(action) \(jsonText(p).prefix(40)) round \(round)")
                            compared += 1
                        }
                        if Self.takesFast(performPair, target, action, p) { fast += 1 }
                    }
                }
            }
        }
        // Plans the cache kept answered many of them (so the comparison tested them).
        #expect(fast > 50)
        #expect(compared == Setup.allCases.count * Self.targets.count * Self.actions.count * params.count * 2)
    }

    /// A miss's plan is reused unless a provider may answer differently
    /// next time (a discoverer, asked on every miss); contracts, Swift
    /// fallbacks, qualified and long names are planned once like any call.
    /// A change anywhere (a registration, an observer added) makes every
    /// plan stale; the next call plans again and the plan is kept.
    @Test func plansReused() {
        func warmed(_ setup: Setup, _ target: String) -> Bool {
            let log = LineLog()
            let (pair, _) = Self.mediator(setup, log: log)
            _ = Self.perform(pair, Array(target.utf8), Array("act".utf8), nil, general: false, log: log)
            return Self.takesFast(pair, Array(target.utf8), Array("act".utf8), nil)
        }
        #expect(warmed(.echo, "Missing"))
        #expect(warmed(.echoRetaining, "Missing"))
        #expect(!warmed(.discoverer, "Missing"))
        #expect(warmed(.discoverer, "Known")) // found: no discoverer is asked
        #expect(warmed(.contract, "Missing"))
        #expect(warmed(.swiftFallback, "Missing"))
        #expect(warmed(.none, "Missing"))
        #expect(warmed(.echo, "Mod.Missing"))
        #expect(warmed(.echo, String(repeating: "y", count: 200)))
        // Not before a call has planned it.
        let log = LineLog()
        let (pair, m) = Self.mediator(.echo, log: log)
        let fresh = Array("Fresh".utf8), act = Array("act".utf8)
        #expect(!Self.takesFast(pair, fresh, act, nil))
        _ = Self.perform(pair, fresh, act, nil, general: false, log: log)
        #expect(Self.takesFast(pair, fresh, act, nil))
        // A registration anywhere makes the plan stale.
        let noop: sb_fn = { _, _, _ in SB_OK }
        #expect(sb_action_register(m, "Other", "act", noop, nil, nil) == SB_OK)
        #expect(!Self.takesFast(pair, fresh, act, nil))
        _ = Self.perform(pair, fresh, act, nil, general: false, log: log)
        #expect(Self.takesFast(pair, fresh, act, nil))
        // So does a hook; an intercepted call plans as any call does.
        let observer: sb_observer_fn = { _, _ in }
        #expect(sb_observer_add(m, observer, nil, nil, nil) == SB_OK)
        #expect(!Self.takesFast(pair, fresh, act, nil))
        _ = Self.perform(pair, fresh, act, nil, general: false, log: log)
        #expect(Self.takesFast(pair, fresh, act, nil))
    }

    /// NoTargetAction registered, replaced and unregistered between misses,
    /// and a discoverer added after the misses were cached: each call sees
    /// the registry as it is then, on both paths.
    @Test func changesBetweenCalls() {
        for general in [true, false] {
            let log = LineLog()
            let (pair, m) = Self.mediator(.none, log: log)
            let miss = { Self.perform(pair, Array("Gone".utf8), Array("act".utf8), nil, general: general, log: log) }
            for _ in 0..<3 { #expect(miss().status == SB_ENOTARGET.rawValue) }
            let one: sb_fn = { _, _, out in out?.pointee = SwitchboardC.sb_int(1); return SB_OK }
            let two: sb_fn = { _, _, out in out?.pointee = SwitchboardC.sb_int(2); return SB_OK }
            #expect(sb_action_register(m, "NoTargetAction", "response", one, nil, nil) == SB_OK)
            for _ in 0..<3 { #expect(miss().result == "1") }
            #expect(sb_action_register(m, "NoTargetAction", "response", two, nil, nil) == SB_OK)
            for _ in 0..<3 { #expect(miss().result == "2") }
            // A discoverer added now is asked on the next miss, and every one after.
            let discover: sb_discoverer_fn = { userdata, _, target in
                Unmanaged<LineLog>.fromOpaque(userdata!).takeUnretainedValue().lines.append("discover " + String(cString: target!))
                return SB_ENOTARGET
            }
            var id: UInt64 = 0
            #expect(sb_discoverer_add(m, discover, Unmanaged.passUnretained(log).toOpaque(), nil, &id) == SB_OK)
            for _ in 0..<3 {
                let outcome = miss()
                #expect(outcome.result == "2" && outcome.logged == ["discover Gone"])
            }
            #expect(sb_discoverer_remove(m, id) == SB_OK)
            for _ in 0..<3 { #expect(miss().logged == [] ) }
            #expect(sb_action_unregister(m, "NoTargetAction", "response") == SB_OK)
            for _ in 0..<3 { #expect(miss().status == SB_ENOTARGET.rawValue) }
            // Back, then with a contract its answer breaks, then back without:
            // a plan keeps what answers a miss for one generation, so each
            // change must reach the next miss.
            #expect(sb_action_register(m, "NoTargetAction", "response", one, nil, nil) == SB_OK)
            for _ in 0..<3 { #expect(miss().result == "1") }
            #expect(sb_action_register_contract(m, "NoTargetAction", "response", "-> string", two, nil, nil) == SB_OK)
            let broken = Self.perform(pair, Array("Gone".utf8), Array("act".utf8), nil, general: true, log: log)
            #expect(broken.status != SB_OK.rawValue)
            for _ in 0..<3 { #expect(miss() == broken) }
            #expect(sb_action_register(m, "NoTargetAction", "response", two, nil, nil) == SB_OK)
            for _ in 0..<3 { #expect(miss().result == "2") }
            // Another action of NoTargetAction changes nothing; the target gone does.
            #expect(sb_action_register(m, "NoTargetAction", "other", one, nil, nil) == SB_OK)
            for _ in 0..<3 { #expect(miss().result == "2") }
            #expect(sb_target_unregister(m, "NoTargetAction") == SB_OK)
            for _ in 0..<3 { #expect(miss().status == SB_ENOTARGET.rawValue) }
        }
    }

    /// One thread replaces NoTargetAction's function while others miss:
    /// every miss is answered by one of the functions registered or fails
    /// as a miss with no fallback, and once the replacing stops every miss
    /// gets the last. (Tests/c/hostile/miss_race.c checks each answer
    /// against the registration in force.)
    @Test func replacedWhileMissing() async {
        let log = LineLog()
        let (pair, m) = Self.mediator(.none, log: log)
        let functions: [sb_fn] = [
            { _, _, out in out?.pointee = SwitchboardC.sb_int(1); return SB_OK },
            { _, _, out in out?.pointee = SwitchboardC.sb_int(2); return SB_OK },
        ]
        #expect(sb_action_register(m, "NoTargetAction", "response", functions[0], nil, nil) == SB_OK)
        let handle = UInt(bitPattern: m)
        let bad = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                let m = OpaquePointer(bitPattern: handle)
                for i in 1...300 {
                    if i % 3 == 0 { _ = sb_action_unregister(m, "NoTargetAction", "response") }
                    _ = sb_action_register(m, "NoTargetAction", "response", functions[i % 2], nil, nil)
                }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    let m = OpaquePointer(bitPattern: handle)
                    var bad = 0
                    for _ in 0..<3_000 {
                        var out: OpaquePointer?
                        let status = sb_action_perform(m, "Gone", "act", nil, 0, &out)
                        var answer: Int64 = -1
                        _ = sb_value_get_int(out, &answer)
                        sb_value_release(out)
                        if !(status == SB_OK && (answer == 1 || answer == 2)) && status != SB_ENOTARGET { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(bad == 0)
        // The last registration (i = 300) was function 0.
        for _ in 0..<3 {
            #expect(Self.perform(pair, Array("Gone".utf8), Array("act".utf8), nil, general: false, log: log).result == "1")
        }
    }
}
