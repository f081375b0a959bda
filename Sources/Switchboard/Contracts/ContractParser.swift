// Reads the contract syntax (see `Contract`) or its JSON form.
//
//   contract := item (("," | newline) item)*
//   item     := name ":" type ["?" | "=" json] ["--" doc to end of line]
//             | [param] "->" type | "local" | "remote" | "async"

enum ContractParser {
    static func parse(_ text: String) throws(SwitchboardError) -> Contract {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.first == "{" { return try parse(json: Value(json: text)) }
        var contract = Contract()
        var declared = Declared()
        // Character.isNewline: "\r\n" is one Character, and a line break too.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let (items, doc) = try scan(line)
            for item in items where !item.isEmpty {
                try read(item, into: &contract, declared: &declared)
            }
            if let doc {
                // A doc runs to the end of its line and belongs to the line's last param.
                guard let last = items.last(where: { !$0.isEmpty }), !last.hasPrefix("->"), last.contains(":") else {
                    throw .invalidArgument("contract: a \"--\" doc must follow a param: \"\(String(line).trimmed)\"")
                }
                contract.params[contract.params.count - 1].doc = doc
            }
        }
        return contract
    }

    /// What a contract has said once already.
    private struct Declared {
        var result = false
        var exposure = false
        var answersLater = false
    }

    /// Splits a line into items at top-level commas and before a top-level
    /// "->", and takes a top-level "--" and the rest of the line as the doc.
    /// Inside a JSON default's strings and brackets these mean nothing.
    private static func scan(_ line: Substring) throws(SwitchboardError) -> (items: [String], doc: String?) {
        var items: [String] = []
        var current = ""
        var depth = 0
        var inString = false
        var escaped = false
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            let next = line.index(after: i)
            let following: Character? = next < line.endIndex ? line[next] : nil
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "[" || c == "{" {
                depth += 1
            } else if c == "]" || c == "}" {
                depth -= 1
            } else if depth == 0 && c == "-" && following == "-" {
                items.append(current.trimmed)
                return (items, String(line[line.index(after: next)...]).trimmed)
            } else if depth == 0 && c == "-" && following == ">" {
                items.append(current.trimmed)
                current = "->"
                i = line.index(after: next)
                continue
            } else if depth == 0 && c == "," {
                items.append(current.trimmed)
                current = ""
                i = next
                continue
            }
            current.append(c)
            i = next
        }
        guard !inString && depth == 0 else {
            throw .invalidArgument("contract: unbalanced quotes or brackets in \"\(String(line).trimmed)\"")
        }
        items.append(current.trimmed)
        return (items, nil)
    }

    private static func read(_ item: String, into contract: inout Contract,
                             declared: inout Declared) throws(SwitchboardError) {
        if item == "local" || item == "remote" {
            guard !declared.exposure else { throw .invalidArgument("contract: the exposure is given twice") }
            declared.exposure = true
            contract.exposure = Contract.Exposure(rawValue: item)!
            return
        }
        if item == "async" {
            guard !declared.answersLater else { throw .invalidArgument("contract: async is given twice") }
            declared.answersLater = true
            contract.answersLater = true
            return
        }
        if item.hasPrefix("->") {
            // "-> type", alone or after the last param ("c: int -> int").
            guard !declared.result else { throw .invalidArgument("contract: the result is given twice") }
            declared.result = true
            contract.result = try type(String(item.dropFirst(2)).trimmed, in: item)
            return
        }
        guard let colon = item.firstIndex(of: ":") else {
            throw .invalidArgument("contract: expected \"name: type\", \"-> type\", local, remote or async, not \"\(item)\"")
        }
        let name = String(item[..<colon]).trimmed
        var rest = String(item[item.index(after: colon)...]).trimmed
        var defaultValue: Value?
        var required = true
        if let equals = rest.firstIndex(of: "=") {
            let json = String(rest[rest.index(after: equals)...]).trimmed
            do throws(SwitchboardError) {
                defaultValue = try Value(json: json)
            } catch {
                throw .invalidArgument("contract: the default of \"\(name)\" is not a JSON value: \(json)")
            }
            rest = String(rest[..<equals]).trimmed
            if rest.hasSuffix("?") { rest = String(rest.dropLast()).trimmed } // "x: int? = 3" says it twice
            required = false
        } else if rest.hasSuffix("?") {
            rest = String(rest.dropLast()).trimmed
            required = false
        }
        contract.params.append(Contract.Param(name, try type(rest, in: item), required: required, default: defaultValue))
    }

    private static func type(_ word: String, in item: String) throws(SwitchboardError) -> ParamType {
        guard let type = ParamType(rawValue: word) else {
            throw .invalidArgument("contract: unknown type \"\(word)\" in \"\(item)\" (types: "
                                   + ParamType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return type
    }

    /// The JSON form, as the catalogue lists it.
    static func parse(json: Value) throws(SwitchboardError) -> Contract {
        guard case .dict(let object) = json else { throw .invalidArgument("contract: the JSON form is an object") }
        for key in object.keys where !["params", "result", "exposure", "async"].contains(key) {
            throw .invalidArgument("contract: unknown key \"\(key)\" (params, result, exposure, async)")
        }
        var contract = Contract()
        if let result = object["result"] {
            guard let word = result.string else { throw .invalidArgument("contract: \"result\" is a type name") }
            contract.result = try type(word, in: "result")
        }
        if let exposure = object["exposure"] {
            guard let word = exposure.string, let value = Contract.Exposure(rawValue: word) else {
                throw .invalidArgument("contract: \"exposure\" is \"local\" or \"remote\"")
            }
            contract.exposure = value
        }
        if let answersLater = object["async"] {
            guard let flag = answersLater.bool else { throw .invalidArgument("contract: \"async\" is true or false") }
            contract.answersLater = flag
        }
        guard case .array(let params) = object["params"] ?? .array([]) else {
            throw .invalidArgument("contract: \"params\" is an array")
        }
        for entry in params {
            guard case .dict(let p) = entry, let name = p["name"]?.string, let word = p["type"]?.string else {
                throw .invalidArgument("contract: each param is an object with \"name\" and \"type\"")
            }
            for key in p.keys where !["name", "type", "required", "default", "doc"].contains(key) {
                throw .invalidArgument("contract: unknown key \"\(key)\" in param \"\(name)\"")
            }
            if let given = p["required"], given.bool == nil {
                throw .invalidArgument("contract: \"required\" of param \"\(name)\" is true or false")
            }
            if let given = p["doc"], given.string == nil {
                throw .invalidArgument("contract: \"doc\" of param \"\(name)\" is a string")
            }
            if p["required"]?.bool == true && p["default"] != nil {
                throw .invalidArgument("contract: param \"\(name)\" is required and has a default")
            }
            contract.params.append(Contract.Param(name, try type(word, in: name),
                                                  required: p["required"]?.bool ?? true,
                                                  default: p["default"], doc: p["doc"]?.string ?? ""))
        }
        return contract
    }
}

extension Contract {
    /// The JSON form (see ``Contract``); `"async"` only when it is true, so
    /// a contract without it reads as before.
    public var json: Value {
        var object: Params = [
            "params": .array(params.map { param in
                var entry: Params = ["name": .string(param.name), "type": .string(param.type.rawValue),
                                     "required": .bool(param.required)]
                if let value = param.defaultValue { entry["default"] = value }
                if !param.doc.isEmpty { entry["doc"] = .string(param.doc) }
                return .dict(entry)
            }),
            "result": .string(result.rawValue),
            "exposure": .string(exposure.rawValue),
        ]
        if answersLater { object["async"] = true }
        return .dict(object)
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
