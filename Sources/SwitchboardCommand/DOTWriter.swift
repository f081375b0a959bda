/// A CallGraph as Graphviz DOT. Deterministic: everything is sorted by the
/// bytes of its names, so the same trace and catalogue give the same text.
/// Safe with any name: node and cluster identifiers are made here (n1_2,
/// cluster_1), never taken from a name, so a target called `node`, `edge`
/// or `subgraph` is only a label; every name goes into a quoted string with
/// quotes and backslashes escaped and control characters written as visible
/// escapes, so no name can end its string, start a line or add an attribute.
enum DOTWriter {
    typealias Name = CallGraph.Name

    static func dot(_ graph: CallGraph) -> String {
        let statuses = graph.statuses()
        let byTarget = graph.actionsByTarget
        let targets = byTarget.keys.sorted(by: bytesFirst)
        let scripts = graph.scripts.sorted(by: bytesFirst)
        let urls = graph.urlNodes.sorted(by: bytesFirst)

        // Identifiers and the order of every node.
        var ids: [CallGraph.Node: (id: String, order: Int)] = [:]
        for (i, script) in scripts.enumerated() { ids[.script(script)] = ("s\(i + 1)", ids.count) }
        var actionsOf: [[Name]] = []
        for (t, target) in targets.enumerated() {
            let actions = byTarget[target]!.sorted(by: bytesFirst)
            actionsOf.append(actions)
            for (a, action) in actions.enumerated() {
                ids[.action(target: target, action: action)] = ("n\(t + 1)_\(a + 1)", ids.count)
            }
        }
        for (i, url) in urls.enumerated() { ids[.url(url)] = ("u\(i + 1)", ids.count) }

        var lines = [
            "// Who calls whom: drawn by switchboard graph (docs/scenarios.md, \"A picture of who calls whom\").",
            "digraph calls {",
            "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=10, nodesep=0.2, ranksep=0.8, labelloc=b, labeljust=l,",
            "         label=\(legend(hasCatalogue: graph.catalogue != nil))];",
            "  node [fontname=\"Helvetica\", fontsize=11, shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#475569\"];",
            "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#334155\", fontcolor=\"#334155\", arrowsize=0.7];",
        ]
        for script in scripts {
            lines.append("  \(ids[.script(script)]!.id) [label=\(quoted(script)), shape=note, fillcolor=\"#e0e7ff\"];")
        }
        for (t, target) in targets.enumerated() {
            let statusesHere = actionsOf[t].map { statuses[.action(target: target, action: $0)] ?? .called }
            let declared = graph.catalogue?[target]
            var label = quoted(target, closing: false)
            if let declared {
                label += "\\n" + escaped(Array(shortOrigin(declared.origin).utf8)) + "\""
            } else if statusesHere.allSatisfy({ $0 == .missing }) {
                label += "\\n(no such target)\""
            } else if graph.catalogue != nil {
                label += "\\n(registered at run time)\""
            } else {
                label += "\""
            }
            let missing = declared == nil && statusesHere.allSatisfy { $0 == .missing }
            lines.append("  subgraph cluster_\(t + 1) {")
            lines.append("    label=\(label); labelloc=t; style=\"rounded\(missing ? ",dashed" : "")\"; "
                         + "color=\"\(missing ? "#dc2626" : "#94a3b8")\"; fontcolor=\"\(missing ? "#dc2626" : "#0f172a")\";")
            for (action, status) in zip(actionsOf[t], statusesHere) {
                let id = ids[.action(target: target, action: action)]!.id
                lines.append("    \(id) [label=\(quoted(action))\(style(status))];")
            }
            lines.append("  }")
        }
        for url in urls {
            lines.append("  \(ids[.url(url)]!.id) [label=\(quoted(url)), shape=cds, fillcolor=\"#f1f5f9\"];")
        }
        let edges = graph.edges.sorted { a, b in
            let (fa, ta, fb, tb) = (ids[a.key.from]!.order, ids[a.key.to]!.order, ids[b.key.from]!.order, ids[b.key.to]!.order)
            if fa != fb { return fa < fb }
            if ta != tb { return ta < tb }
            if a.key.isOpen != b.key.isOpen { return !a.key.isOpen }
            return bytesFirst(a.key.asked.map { [1] + $0 } ?? [0], b.key.asked.map { [1] + $0 } ?? [0])
        }
        for (key, count) in edges {
            lines.append("  \(ids[key.from]!.id) -> \(ids[key.to]!.id) [\(attributes(key, count))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func style(_ status: CallGraph.Status) -> String {
        switch status {
        case .called: ""
        case .fallbackOnly: ", fillcolor=\"#ffedd5\""
        case .notCalled: ", style=\"rounded,filled,dashed\", fillcolor=\"#e5e7eb\", fontcolor=\"#6b7280\", color=\"#9ca3af\""
        case .missing: ", style=\"rounded,dashed\", color=\"#dc2626\", fontcolor=\"#dc2626\""
        }
    }

    /// An arrow's label and look: how many calls, the name a fallback was
    /// asked for, the failures by code.
    private static func attributes(_ key: CallGraph.EdgeKey, _ count: CallGraph.EdgeCount) -> String {
        var label = key.isOpen ? "open " : ""
        if let asked = key.asked, !asked.isEmpty { label = escaped(asked) + " " + label }
        label += "\(count.calls)×"
        if key.asked != nil { label += asked(key) }
        if count.failed > 0 {
            let codes = count.failures.sorted { bytesFirst($0.key, $1.key) }
            let each = codes.map { codes.count == 1 ? escaped($0.key) : "\($0.value) \(escaped($0.key))" }
            label += "\\n\(count.failed) failed: " + each.joined(separator: ", ")
        }
        var parts = ["label=\"\(label)\""]
        if count.calls > 1 { parts.append("penwidth=\(min(4, 1 + (Int.bitWidth - count.calls.leadingZeroBitCount - 1)))") }
        if key.asked != nil {
            parts.append("style=dashed, color=\"#c2410c\", fontcolor=\"#c2410c\"")
        } else if count.failed == count.calls {
            parts.append("color=\"#dc2626\", fontcolor=\"#dc2626\"")
        } else if count.failed > 0 {
            parts.append("fontcolor=\"#dc2626\"")
        }
        return parts.joined(separator: ", ")
    }

    private static func asked(_ key: CallGraph.EdgeKey) -> String {
        (key.asked ?? []).isEmpty ? " (fallback: a rule or the degrade handler)" : " (fallback)"
    }

    private static func legend(hasCatalogue: Bool) -> String {
        let grey = hasCatalogue ? "grey, dashed: an action the plugins and Lua targets loaded declare that nothing called"
                                : "(no catalogue: with --plugin and --targets, the actions nothing called are shown in grey)"
        return "\"" + [
            "caller → the action that answered; a script stands for its scenarios' own calls, an action for the calls made while it answered",
            "N×: calls (a thicker arrow: more); red: failures, by code",
            "orange, dashed: answered by a fallback (the name asked for, answered by the target's notFound or NoTargetAction's response)",
            grey,
            "red, dashed: asked for but not there (ENOTARGET, ENOACTION)",
        ].map { $0 + "\\l" }.joined() + "\""
    }

    /// "plugin module_a.so" for "plugin /path/to/module_a.so" (and "Lua
    /// file Target_X.lua" for a Lua file's): where a target comes from,
    /// without the folders, which differ between machines and runs.
    static func shortOrigin(_ origin: String) -> String {
        for kind in ["plugin ", "Lua file "] where origin.hasPrefix(kind) {
            let path = origin.dropFirst(kind.count)
            return kind + String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? path)
        }
        return origin
    }

    // MARK: Names

    static func bytesFirst(_ a: Name, _ b: Name) -> Bool { a.lexicographicallyPrecedes(b) }

    /// The longest part of a name shown; past it, "…".
    static let shownLimit = 200

    /// A DOT quoted string showing `name` (`closing: false` leaves it open, for more lines).
    static func quoted(_ name: Name, closing: Bool = true) -> String {
        "\"" + escaped(name) + (closing ? "\"" : "")
    }

    /// `name` for the inside of a DOT quoted string that is a label: `"`
    /// and `\` escaped (a label reads `\\` as one backslash, so `\n`, `\l`
    /// or `\N` in a name stay text); C0, DEL, C1, and the characters that
    /// reorder or hide text (line and paragraph separators, BOM, bidi
    /// controls) as visible escapes (`\x1b`, `\u{202e}`); bytes that are not
    /// UTF-8 as `\xff`. Cut at `shownLimit` characters.
    static func escaped(_ name: Name) -> String {
        var out = ""
        var shown = 0
        func add(_ scalar: Unicode.Scalar) {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where hidden(scalar):
                let hex = String(scalar.value, radix: 16)
                out += scalar.value < 0x80 ? "\\\\x" + (hex.count < 2 ? "0" : "") + hex : "\\\\u{" + hex + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if let text = String(validating: name, as: UTF8.self) {
            for scalar in text.unicodeScalars {
                if shown == shownLimit { out += "…"; break }
                add(scalar)
                shown += 1
            }
        } else {
            for byte in name {
                if shown == shownLimit { out += "…"; break }
                if byte < 0x80 { add(Unicode.Scalar(byte)) } else { out += "\\\\x" + String(byte, radix: 16) }
                shown += 1
            }
        }
        return out
    }

    private static func hidden(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xFEFF
            || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
