// Reads the contract syntax (see `Contract`) or its JSON form.
//
//   contract := item (("," | newline) item)*
//   item     := name ":" type ["?" | "=" json] ["--" doc to end of line]
//             | [param] "->" type | "local" | "remote"

enum ContractParser {
    static func parse(_ text: String) throws(SwitchboardError) -> Contract {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        if trimmed.first == "{" { return try parse(json: Value(json: text)) }
        var contract = Contract()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // A doc runs to the end of its line and belongs to the line's last param.
            var code = Substring(line)
            var doc: String?
            if let dashes = line.firstRange(of: "--") {
                code = line[..<dashes.lowerBound]
                doc = String(line[dashes.upperBound...]).trimmed
            }
            let items = try split(code)
            for item in items where !item.isEmpty {
                try read(item, into: &contract)
            }
            if let doc {
                guard !contract.params.isEmpty, let last = items.last(where: { !$0.isEmpty }), last.contains(":") else {
                    throw .invalidArgument("contract: a \"--\" doc must follow a param: \"\(line.trimmed)\"")
                }
                contract.params[contract.params.count - 1].doc = doc
            }
        }
        return contract
    }

    /// Splits at top-level commas: not inside a JSON default's brackets or strings.
    private static func split(_ code: Substring) throws(SwitchboardError) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        var inString = false
        var escaped = false
        for c in code {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "[" || c == "{" {
                depth += 1
            } else if c == "]" || c == "}" {
                depth -= 1
            } else if c == "," && depth == 0 {
                items.append(current.trimmed)
                current = ""
                continue
            }
            current.append(c)
        }
        guard !inString && depth == 0 else { throw .invalidArgument("contract: unbalanced default in \"\(code.trimmed)\"") }
        items.append(current.trimmed)
        return items
    }

    private static func read(_ item: String, into contract: inout Contract) throws(SwitchboardError) {
        if item == "local" || item == "remote" {
            contract.exposure = Contract.Exposure(rawValue: item)!
            return
        }
        if let arrow = item.firstRange(of: "->") {
            // "-> type" alone, or at the end of the last param: "c: int -> int".
            let before = String(item[..<arrow.lowerBound]).trimmed
            if !before.isEmpty { try read(before, into: &contract) }
            contract.result = try type(String(item[arrow.upperBound...]).trimmed, in: item)
            return
        }
        guard let colon = item.firstIndex(of: ":") else {
            throw .invalidArgument("contract: expected \"name: type\", \"-> type\", local or remote, not \"\(item)\"")
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
        for key in object.keys where !["params", "result", "exposure"].contains(key) {
            throw .invalidArgument("contract: unknown key \"\(key)\" (params, result, exposure)")
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
            contract.params.append(Contract.Param(name, try type(word, in: name),
                                                  required: p["required"]?.bool ?? true,
                                                  default: p["default"], doc: p["doc"]?.string ?? ""))
        }
        return contract
    }
}

extension Contract {
    /// The JSON form (see ``Contract``).
    public var json: Value {
        .dict([
            "params": .array(params.map { param in
                var entry: Params = ["name": .string(param.name), "type": .string(param.type.rawValue),
                                     "required": .bool(param.required)]
                if let value = param.defaultValue { entry["default"] = value }
                if !param.doc.isEmpty { entry["doc"] = .string(param.doc) }
                return .dict(entry)
            }),
            "result": .string(result.rawValue),
            "exposure": .string(exposure.rawValue),
        ])
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
