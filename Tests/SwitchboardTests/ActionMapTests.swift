import Testing
@testable import Switchboard

/// An action that answers its number.
private func action(_ name: String, _ value: Int) -> ActionEntry {
    ActionEntry(name: name, body: .swift { _, _ in .int(Int64(value)) })
}

/// What `map` answers for `name`: the action's number, or nil.
private func answer(_ map: ActionMap, _ name: String) -> Int? {
    guard let found = withNameRef(name, { map.find($0) }) else { return nil }
    return (try? found.takeUnretainedValue().swift?(nil, [:]))?.int.map(Int.init)
}

@Suite("Action maps: a registration copies one path")
struct ActionMapTests {
    /// The registered actions of `target`, as the mediator holds them now.
    private func registered(_ m: Mediator, _ target: String) -> ActionMap? {
        m.epochs.withPinned { withNameRef(target) { m.targets.find($0)?.takeUnretainedValue().registered } }
    }

    @Test("20,000 registrations on one target: each new map shares all but one path with the one before")
    func oneTargetGrows() throws {
        let m = Mediator()
        let total = 20_000
        var worst = 0
        for i in 0..<total {
            let before = i % 211 == 0 ? registered(m, "Big") : nil
            try m.register(target: "Big", action: "a\(i)") { _ in .int(Int64(i)) }
            if let before, let after = registered(m, "Big") {
                // Copying the whole map would make every node new (about
                // one for each 10 actions).
                worst = max(worst, after.nodesNotShared(with: before))
            }
        }
        // A path has at most ActionTrie.levels nodes and a list below them.
        #expect(worst <= ActionTrie.levels + 1, "a registration made \(worst) new nodes")
        let map = try #require(registered(m, "Big"))
        #expect(map.count == total)
        #expect(map.depth <= 10, "depth \(map.depth) for \(total) names")
        for i in stride(from: 0, to: total, by: 101) {
            #expect(try m.callAndWait(target: "Big", action: "a\(i)") == .int(Int64(i)))
        }
        #expect(map.names.prefix(3) == ["a0", "a1", "a2"] && map.names.last == "a\(total - 1)")

        // Removing is one path too, and the last removal takes the target.
        for i in 0..<total {
            let before = i % 211 == 0 ? registered(m, "Big") : nil
            #expect(m.unregister(target: "Big", action: "a\(i)"))
            if let before, let after = registered(m, "Big") {
                #expect(after.nodesNotShared(with: before) <= ActionTrie.levels + 1)
            }
        }
        #expect(registered(m, "Big") == nil)
        robustnessRow("20,000 actions registered on one target, then removed one by one",
                      cases: 2 * total, "each change copies one path of the action map (at most 17 nodes), not the map")
    }

    @Test("a map answers as a dictionary would through random adds, replacements and removals")
    func differential() {
        var generator = Seeded(state: 39)
        let pool = (0..<300).map { "n\($0)" }
        var map = ActionMap.empty
        var model: [String: Int] = [:]
        var order: [String] = [] // registration order, a replaced name moving last
        for step in 0..<6_000 {
            let name = generator.pick(pool)
            if generator.chance(35) {
                let removed = map.removing(name)
                #expect((removed != nil) == (model[name] != nil), "step \(step): removing \(name)")
                if let removed { map = removed }
                model[name] = nil
                order.removeAll { $0 == name }
            } else {
                map = map.replacing(action(name, step))
                model[name] = step
                order.removeAll { $0 == name }
                order.append(name)
            }
            if step % 97 == 0 || step == 5_999 {
                #expect(map.count == model.count)
                for name in pool where answer(map, name) != model[name] {
                    let got = String(describing: answer(map, name)), expected = String(describing: model[name])
                    Issue.record("step \(step): \(name) answers \(got), expected \(expected)")
                }
                #expect(map.names == order)
            }
        }
        for name in pool { map = map.removing(name) ?? map }
        // Removals collapse what they empty: nothing is left below the root.
        #expect(map.isEmpty && map.depth == 0)
    }

    @Test("an old version keeps its actions; the replaced one is freed with the last version that has it")
    func versions() throws {
        let released = Counter()
        var first: ActionMap? = ActionMap((0..<200).map { action("a\($0)", $0) })
        do {
            let probe = DeinitProbe(released)
            first = first!.replacing(ActionEntry(name: "a7", body: .swift { _, _ in _ = probe; return 7_000 }))
        }
        let second = first!.replacing(action("a7", 7)).removing("a8")!
        #expect(answer(first!, "a7") == 7_000 && answer(first!, "a8") == 8)
        #expect(answer(second, "a7") == 7 && answer(second, "a8") == nil)
        #expect(second.count == 199 && first!.count == 200)
        #expect(released.value == 0)
        first = nil
        #expect(released.value == 1)
        #expect(answer(second, "a100") == 100)
    }

    @Test("names whose whole 64-bit hashes are equal share a list below the last level")
    func equalHashes() {
        func named(_ name: String, hash: UInt64, _ value: Int) -> ActionEntry {
            ActionEntry(name: OwnedName(name, hash: hash), body: .swift { _, _ in .int(Int64(value)) })
        }
        let hash: UInt64 = 0x0123_4567_89ab_cdef
        var map = ActionMap.empty
        for (i, name) in ["x", "y", "z"].enumerated() { map = map.replacing(named(name, hash: hash, i)) }
        // Differs from them in the last four bits only: a cell of its own at the last level.
        map = map.replacing(named("w", hash: hash ^ 0xf, 3))
        #expect(map.count == 4 && map.depth == ActionTrie.levels)
        func find(_ name: String, _ hash: UInt64) -> Int? {
            let bytes = Array(name.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                guard let entry = map.find(NameRef(base: buffer.baseAddress!, count: buffer.count, hash: hash)) else {
                    return nil
                }
                return (try? entry.takeUnretainedValue().swift?(nil, [:]))?.int.map(Int.init)
            }
        }
        #expect(find("x", hash) == 0 && find("y", hash) == 1 && find("z", hash) == 2 && find("w", hash ^ 0xf) == 3)
        #expect(find("v", hash) == nil && find("x", hash ^ 0xf) == nil)
        map = map.replacing(named("y", hash: hash, 10))
        #expect(find("y", hash) == 10 && map.count == 4)
        #expect(map.names == ["x", "z", "w", "y"])
        // Removing by the name's own hash; what is left collapses upward.
        func remove(_ name: String, _ hash: UInt64) {
            let bytes = Array(name.utf8)
            let smaller = bytes.withUnsafeBufferPointer { buffer in
                map.removing(NameRef(base: buffer.baseAddress!, count: buffer.count, hash: hash))
            }
            #expect(smaller != nil, "removing \(name)")
            map = smaller ?? map
        }
        remove("x", hash)
        remove("z", hash)
        #expect(find("y", hash) == 10 && find("x", hash) == nil && map.count == 2)
        remove("w", hash ^ 0xf)
        #expect(find("y", hash) == 10 && map.count == 1 && map.depth == 0)
    }
}
