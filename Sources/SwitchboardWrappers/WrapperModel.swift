@_spi(Faces) import Switchboard

/// Why wrappers cannot be generated: a message for the person who asked.
package struct WrapperError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The targets and contracts that `switchboard gen` writes wrappers for,
/// read from the catalogue (`sb_routes_json`), or from Swift sources
/// (``SwiftTargetSources``), which make the same catalogue.
package struct WrapperTarget {
    package struct Action {
        let name: String
        let params: [Param]
        /// "any" when the contract declares no result.
        let result: String
        let local: Bool
        /// It answers later (listed under the target's "async", or its
        /// contract says `async`): its wrappers do not wait for it.
        let answersLater: Bool
    }

    package struct Param {
        let name: String
        /// One of the contract types: bool, int, double, string, bytes, array, dict, callback, any.
        let type: String
        let required: Bool
        /// The default as the catalogue prints it, if there is one.
        let defaultText: String?
        let doc: String?
        /// May the caller leave it out? (The mediator fills in a default.)
        var optional: Bool { !required }
    }

    static let knownTypes: Set = ["bool", "int", "double", "string", "bytes", "array", "dict", "callback", "any"]

    package let name: String
    /// Actions with a contract, by name; actions without one get no wrapper.
    package let actions: [Action]
    package let uncontracted: [String]

    /// Every target in `catalogue` with at least one contract, or the ones
    /// named in `only` (each must exist and have a contract).
    package static func all(in catalogue: Value, only: [String]) throws(WrapperError) -> [WrapperTarget] {
        let targets = (catalogue["targets"]?.array ?? []).compactMap(WrapperTarget.init)
        // The catalogue may come from a file: only the nine types reach the generators.
        for target in targets {
            for action in target.actions {
                for type in action.params.map(\.type) + [action.result] where !knownTypes.contains(type) {
                    throw WrapperError("\(target.name).\(action.name): unknown type \(Value.string(type)) in the catalogue")
                }
            }
        }
        guard !only.isEmpty else { return targets.filter { !$0.actions.isEmpty } }
        return try only.map { name throws(WrapperError) in
            guard let target = targets.first(where: { $0.name.hasSameBytes(as: name) }) else {
                throw WrapperError("no target named \(name) in the catalogue (loaded: \(targets.map(\.name).joined(separator: ", ")))")
            }
            guard !target.actions.isEmpty else {
                throw WrapperError("target \(name) has no action with a contract, so there is nothing to generate")
            }
            return target
        }
    }

    private init?(_ entry: Value) {
        guard let name = entry["name"]?.string else { return nil }
        self.name = name
        let contracts = entry["contracts"]?.dict ?? [:]
        let listed = (entry["actions"]?.array ?? []).compactMap(\.string)
        let later = (entry["async"]?.array ?? []).compactMap(\.string)
        actions = contracts.keys.sortedByBytes().map { action in
            let contract = contracts[action] ?? .null
            let params = (contract["params"]?.array ?? []).map { p in
                Param(name: p["name"]?.string ?? "", type: p["type"]?.string ?? "any",
                      required: p["required"]?.bool ?? false, defaultText: p["default"].map { "\($0)" },
                      doc: p["doc"]?.string)
            }
            return Action(name: action, params: params, result: contract["result"]?.string ?? "any",
                          local: contract["exposure"]?.string == "local",
                          answersLater: contract["async"]?.bool == true
                              || later.contains { $0.hasSameBytes(as: action) })
        }
        uncontracted = listed.filter { contracts[$0] == nil }
    }
}

/// Turning contract names (any UTF-8 text) into identifiers of the three languages.
enum Identifier {
    /// Splits "showAlert", "URLPage", "answer-id", "cell_2" into lower-case words.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let scalars = Array(name.unicodeScalars)
        for (i, c) in scalars.enumerated() {
            guard c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) else {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            let upper = c.properties.isUppercase
            let previousLower = i > 0 && (scalars[i - 1].properties.isLowercase || ("0"..."9").contains(scalars[i - 1]))
            let nextLower = i + 1 < scalars.count && scalars[i + 1].properties.isLowercase
            let previousUpper = i > 0 && scalars[i - 1].properties.isUppercase
            if upper, !current.isEmpty, previousLower || (previousUpper && nextLower) {
                words.append(current)
                current = ""
            }
            current += String(c).lowercased()
        }
        if !current.isEmpty { words.append(current) }
        return words.isEmpty ? ["x"] : words
    }

    /// show_alert, native_fetch_detail_view_controller.
    static func snake(_ name: String) -> String {
        prefixDigit(words(name).joined(separator: "_"))
    }

    /// showAlert, answerId: names that are already lower camel case stay as they are.
    static func camel(_ name: String) -> String {
        if let first = name.unicodeScalars.first, first.isASCII, first.properties.isLowercase,
           name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
            return name
        }
        let w = words(name)
        return prefixDigit(w[0] + w.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined())
    }

    private static func prefixDigit(_ s: String) -> String {
        s.first?.isNumber == true ? "_" + s : s
    }

    /// Makes each name distinct from the others, and from the names in
    /// `taken`, by adding "_" (two actions "show-alert" and "showAlert" would
    /// otherwise get one name; target "dict", action "new" would be
    /// switchboard.h's sb_dict_new).
    static func distinct(_ names: [String], avoiding taken: Set<String> = []) -> [String] {
        var used = taken
        return names.map { name in
            var n = name
            while used.contains(n) { n += "_" }
            used.insert(n)
            return n
        }
    }
}

/// The languages `switchboard gen` writes.
package enum WrapperLanguage: String, CaseIterable, Sendable {
    case swift, c, lua

    /// `text` as a string literal. Swift source is UTF-8 text, so scalars
    /// stay as they are; C gets octal escapes for other bytes (and `\?`, so
    /// nothing reads as a trigraph), Lua decimal ones.
    func literal(_ text: String) -> String {
        var out = "\""
        if self == .swift {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"", "\\": out += "\\" + String(scalar)
                case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += "\\" + String(UnicodeScalar(byte))
            case UInt8(ascii: "?") where self == .c: out += "\\?"
            case 0x20..<0x7f: out += String(UnicodeScalar(byte))
            default: out += "\\" + padded(String(byte, radix: self == .c ? 8 : 10))
            }
        }
        return out + "\""
    }

    private func padded(_ digits: String) -> String {
        String(repeating: "0", count: Swift.max(0, 3 - digits.count)) + digits
    }
}

/// One line of prose for a comment: no line breaks, nothing that ends or
/// opens a C comment, no C trigraph (`??/` at the end would join the next line).
/// Read by Unicode scalars, as a C compiler reads bytes: a combining mark
/// after `*/` must not hide it (Characters would).
func commentText(_ text: String) -> String {
    // A line break is always a Character of its own, so splitting on
    // Characters finds every one.
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    var out = String.UnicodeScalarView()
    var previous: Unicode.Scalar?
    for scalar in line.unicodeScalars {
        switch (previous, scalar) {
        case ("*", "/"), ("/", "*"), ("?", "?"): out.append(" ")
        default: break
        }
        out.append(scalar)
        previous = scalar
    }
    return String(out)
}

/// `head(a, b, c) {` with the arguments wrapped to stay within 100 columns,
/// continuation lines aligned after the parenthesis.
func wrappedSignature(_ head: String, _ arguments: [String], tail: String) -> [String] {
    let indent = String(repeating: " ", count: head.count + 1)
    var lines = [head + "("]
    for (i, argument) in arguments.enumerated() {
        let piece = argument + (i == arguments.count - 1 ? ")" + tail : ",")
        if lines[lines.count - 1].count + 1 + piece.count > 100, lines[lines.count - 1] != head + "(" {
            lines.append(indent + piece)
        } else {
            let last = lines[lines.count - 1]
            lines[lines.count - 1] = last + (last.hasSuffix("(") ? "" : " ") + piece
        }
    }
    return lines
}

extension GeneratedFile {
    /// `files` (one per target of `targets`, in order), refused when two
    /// would be written to one name.
    package static func distinct(_ files: [GeneratedFile], of targets: [WrapperTarget]) throws(WrapperError) -> [GeneratedFile] {
        for (i, file) in files.enumerated() {
            if let j = files[..<i].firstIndex(where: { $0.name == file.name }) {
                throw WrapperError("targets \(targets[j].name) and \(targets[i].name) would both be written to \(file.name): generate them into separate directories with --target")
            }
        }
        return files
    }
}
