@_spi(Faces) import Switchboard

/// The `Target_` classes of Swift source files, read without building or
/// running them: the catalogue their mediator would list (the shape of
/// `Mediator.routes()`'s "targets"), for ``WrapperTarget/all(in:only:)``.
///
/// A class counts as the mediator can find it by name: declared at the top
/// level of a file, not `private` or `fileprivate`, conforming to `Target`.
/// Its tables (`actions`, `asyncActions`, `contextActions`, `contracts`, in
/// the class or in an extension of it) must be dictionary literals whose keys
/// are string literals, and each contract a string literal, as the README's
/// examples write them; anything else (a table built by code, an
/// interpolated string) is refused with its file and line rather than
/// guessed at: generate from the catalogue of a running mediator instead.
package enum SwiftTargetSources {
    /// The names of a target's tables that hold actions, and the one that
    /// holds their contracts.
    static let actionTables: Set = ["actions", "asyncActions", "contextActions"]
    static let contractTable = "contracts"

    /// `files`: (path, text) pairs.
    package static func catalogue(of files: [(path: String, text: String)]) throws(WrapperError) -> Value {
        var classes: [String: ClassTables] = [:]
        var order: [String] = []
        for file in files {
            let tokens: [SwiftToken]
            do { tokens = try SwiftLexer.tokens(file.text) } catch {
                throw WrapperError("\(file.path):\(error.line): \(error.message)")
            }
            try read(tokens, path: file.path, into: &classes, order: &order)
        }
        var targets: [(key: [UInt8], value: Value)] = []
        for name in order {
            guard let tables = classes[name], let declared = tables.declaredAt else { continue }
            targets.append((Array(name.utf8), try entry(name, tables, declaredAt: declared)))
        }
        targets.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return ["targets": .array(targets.map(\.value))]
    }

    /// What one class declares, from its body and its extensions.
    struct ClassTables {
        var declaredAt: String?
        var tables: [String: (keys: [(String, line: Int)], values: [String?], at: String)] = [:]
    }

    private static func entry(_ className: String, _ tables: ClassTables, declaredAt: String) throws(WrapperError) -> Value {
        let name = String(className.dropFirst("Target_".count))
        var actions: [String] = []
        for table in ["actions", "contextActions", "asyncActions"] {
            actions += tables.tables[table]?.keys.map(\.0) ?? []
        }
        let answersLater = tables.tables["asyncActions"]?.keys.map(\.0) ?? []
        var contracts: [(String, Value)] = []
        if let table = tables.tables[contractTable] {
            for ((action, line), text) in zip(table.keys, table.values) {
                let place = "\(table.at.split(separator: ":").first ?? ""):\(line): \(className).contracts[\(Value.string(action))]"
                guard let text else {
                    throw WrapperError("\(place): not a string literal (interpolated, or an expression): generate from the catalogue of a running mediator instead (switchboard gen --catalogue)")
                }
                guard actions.contains(where: { $0.hasSameBytes(as: action) }) else {
                    throw WrapperError("\(place): \(className) has no action \(Value.string(action)) (its actions: \(actions.sortedByBytes().joined(separator: ", ")))")
                }
                let contract: Contract
                do { contract = try Contract(parsing: text) } catch {
                    throw WrapperError("\(place): \(error.message)")
                }
                contracts.removeAll { $0.0.hasSameBytes(as: action) }
                contracts.append((action, contract.json))
            }
        }
        if !contracts.isEmpty && tables.tables["actions"] == nil && tables.tables["asyncActions"] == nil
            && tables.tables["contextActions"] == nil {
            throw WrapperError("\(declaredAt): \(className) has contracts but no table of actions that can be read (a dictionary literal)")
        }
        return ["name": .string(name), "origin": .string("Swift source \(declaredAt)"),
                "actions": .array(distinct(actions).map(Value.string)),
                "async": .array(distinct(answersLater).map(Value.string)),
                "contracts": .dict(Params(distinctKeys: contracts.sorted {
                    $0.0.utf8.lexicographicallyPrecedes($1.0.utf8)
                }.map { (key: $0.0, value: $0.1) }))]
    }

    private static func distinct(_ names: [String]) -> [String] {
        var seen = Set<[UInt8]>()
        return names.filter { seen.insert(Array($0.utf8)).inserted }.sortedByBytes()
    }

    private static let modifiers: Set = [
        "public", "open", "internal", "package", "final", "private", "fileprivate", "nonisolated",
    ]

    /// Finds the top-level `Target_` classes and extensions of `tokens`, and
    /// the tables directly in their bodies.
    private static func read(_ t: [SwiftToken], path: String, into classes: inout [String: ClassTables],
                             order: inout [String]) throws(WrapperError) {
        var depth = 0
        var i = 0
        while i < t.count {
            let token = t[i]
            if token.isPunctuation("{") { depth += 1 }
            if token.isPunctuation("}") { depth -= 1 }
            guard depth == 0, let keyword = token.word, keyword == "class" || keyword == "extension",
                  i + 1 < t.count, let name = t[i + 1].word, name.hasPrefix("Target_"), name.count > 7 else {
                i += 1
                continue
            }
            // The declaration's head, up to its body.
            var j = i + 2
            var inherits: [String] = []
            while j < t.count, !t[j].isPunctuation("{") {
                if let w = t[j].word { inherits.append(w) }
                j += 1
            }
            guard j < t.count else { break }
            let place = "\(path):\(token.line)"
            if keyword == "class" {
                let mods = modifiersBefore(i, in: t)
                let found = !mods.contains("private") && !mods.contains("fileprivate") && inherits.contains("Target")
                if found {
                    if let earlier = classes[name]?.declaredAt {
                        throw WrapperError("\(place): \(name) is declared twice (first at \(earlier))")
                    }
                    if classes[name] == nil { order.append(name) }
                    classes[name, default: ClassTables()].declaredAt = place
                }
            } else if classes[name] == nil {
                order.append(name)
                classes[name] = ClassTables()
            }
            // The body: tables directly in it.
            let end = try closing(of: j, in: t, path: path)
            var k = j + 1
            while k < end {
                if let w = t[k].word, w == "static" || w == "class", k + 2 < end,
                   let kind = t[k + 1].word, kind == "let" || kind == "var", let table = t[k + 2].word,
                   actionTables.contains(table) || table == contractTable {
                    let at = "\(path):\(t[k].line)"
                    if let earlier = classes[name]?.tables[table]?.at {
                        throw WrapperError("\(at): \(name).\(table) is declared twice (first at \(earlier))")
                    }
                    let (keys, values, next) = try dictionary(after: k + 3, in: t, upTo: end,
                                                             what: "\(at): \(name).\(table)",
                                                             valuesAreStrings: table == contractTable)
                    classes[name, default: ClassTables()].tables[table] = (keys, values, at)
                    k = next
                    continue
                }
                if t[k].isPunctuation("{") { k = try closing(of: k, in: t, path: path) }
                k += 1
            }
            i = end + 1
        }
    }

    /// The words before `class`: modifiers, and attributes (`@MainActor`,
    /// `@available(...)`), back to the previous declaration.
    private static func modifiersBefore(_ i: Int, in t: [SwiftToken]) -> Set<String> {
        var mods: Set<String> = []
        var j = i - 1
        while j >= 0 {
            if t[j].isPunctuation(")") {
                var level = 0
                while j >= 0 {
                    if t[j].isPunctuation(")") { level += 1 }
                    if t[j].isPunctuation("(") { level -= 1; if level == 0 { break } }
                    j -= 1
                }
                j -= 1
                continue
            }
            guard let w = t[j].word else { break }
            if j > 0, t[j - 1].isPunctuation("@") {
                j -= 2
            } else if modifiers.contains(w) {
                mods.insert(w)
                j -= 1
            } else {
                break
            }
        }
        return mods
    }

    /// The index of the bracket closing the one at `open`.
    private static func closing(of open: Int, in t: [SwiftToken], path: String) throws(WrapperError) -> Int {
        var level = 0
        var k = open
        while k < t.count {
            switch t[k].kind {
            case .punctuation("{"), .punctuation("["), .punctuation("("): level += 1
            case .punctuation("}"), .punctuation("]"), .punctuation(")"): level -= 1
            default: break
            }
            if level == 0 { return k }
            k += 1
        }
        throw WrapperError("\(path):\(t[open].line): a bracket that is never closed")
    }

    /// After `static let NAME`: `: Type = [...]`, `= [...]` or `: Type { [...] }`
    /// (also `{ return [...] }`): the keys (string literals), the values when
    /// they are string literals, and the index after the declaration.
    private static func dictionary(after start: Int, in t: [SwiftToken], upTo end: Int, what: String,
                                   valuesAreStrings: Bool) throws(WrapperError)
        -> ([(String, line: Int)], [String?], Int) {
        var k = start
        while k < end, !t[k].isPunctuation("="), !t[k].isPunctuation("{") { k += 1 }
        guard k < end else { throw WrapperError("\(what): no value") }
        var close: Int?
        if t[k].isPunctuation("{") {
            close = try closing(of: k, in: t, path: what)
            k += 1
            if t[k].word == "return" { k += 1 }
        } else {
            k += 1
        }
        guard k < end, t[k].isPunctuation("[") else {
            throw WrapperError("\(what): not a dictionary literal: generate from the catalogue of a running mediator instead (switchboard gen --catalogue)")
        }
        let last = try closing(of: k, in: t, path: what)
        var keys: [(String, line: Int)] = []
        var values: [String?] = []
        var p = k + 1
        if t[p].isPunctuation(":"), p + 1 == last { p = last }
        while p < last {
            guard case .string(let key) = t[p].kind, let key, p + 1 < last, t[p + 1].isPunctuation(":") else {
                throw WrapperError("\(what): line \(t[p].line): a key that is not a string literal: generate from the catalogue of a running mediator instead (switchboard gen --catalogue)")
            }
            keys.append((key, line: t[p].line))
            // The value: to the next comma at this level.
            var q = p + 2
            let valueStart = q
            while q < last, !t[q].isPunctuation(",") {
                if t[q].isPunctuation("{") || t[q].isPunctuation("[") || t[q].isPunctuation("(") {
                    q = try closing(of: q, in: t, path: what)
                }
                q += 1
            }
            if valuesAreStrings {
                if q == valueStart + 1, case .string(let value) = t[valueStart].kind { values.append(value) } else { values.append(nil) }
            }
            p = q + 1
        }
        return (keys, values, (close ?? last) + 1)
    }
}
