// Checking params against a contract, just before the action runs.
//
// Keys the contract does not name pass through (params carry others, such
// as `switchboard.module`). A key set to null counts as absent.

extension Contract {
    /// `params` made to fit: nil when they fit as they are, else a copy with
    /// defaults filled in and (for a URL call, whose query values are all
    /// strings) strings converted to the declared types. An int is accepted
    /// where a double is declared, and converted. Throws `.badParams` naming
    /// the key, what was expected and what came.
    func check(_ params: Params, fromURL: Bool, call: @autoclosure () -> String) throws(SwitchboardError) -> Params? {
        if let problem { throw .invalidArgument("\(call()): its contract is unusable: \(problem)") }
        var fixed: Params?
        for param in self.params {
            let given = params[param.name]
            guard let value = given, value != .null else {
                if let defaultValue = param.defaultValue {
                    if fixed == nil { fixed = params }
                    fixed![param.name] = defaultValue
                } else if param.required {
                    throw .badParams("\(call()): missing required param \"\(param.name)\" (\(param.type.rawValue))")
                }
                continue
            }
            if param.type.admits(value) { continue }
            guard let converted = param.type.converting(value, fromURL: fromURL) else {
                throw .badParams("\(call()): param \"\(param.name)\": expected \(param.type.rawValue), got "
                                 + Self.describe(value))
            }
            if fixed == nil { fixed = params }
            fixed![param.name] = converted
        }
        return fixed
    }

    /// The value for a message: its kind, and for a string its first 40
    /// scalars, escaped as JSON (a control byte is never copied raw).
    private static func describe(_ value: Value) -> String {
        guard case .string(let text) = value else { return "\(value.kind)" }
        return "string " + Value.string(text.clipped(toScalars: 40, marker: "…")).description
    }
}

extension ParamType {
    /// `value` as this type when a lossless conversion applies: an int for a
    /// double; a string for bytes (its UTF-8; Lua, for one, has one type for
    /// both); and, from a URL, the text of a bool, an int or a double.
    func converting(_ value: Value, fromURL: Bool) -> Value? {
        switch (self, value) {
        case (.double, .int(let n)) where Int64(exactly: Double(n)) == n:
            return .double(Double(n))
        case (.bytes, .string(let text)):
            return .bytes(Array(text.utf8))
        case (_, .string(let text)) where fromURL:
            switch self {
            case .int: return Int64(text).map(Value.int)
            case .double:
                guard let d = Double(text), d.isFinite else { return nil }
                return .double(d)
            case .bool:
                switch text {
                case "true", "1": return .bool(true)
                case "false", "0": return .bool(false)
                default: return nil
                }
            default: return nil
            }
        default:
            return nil
        }
    }
}

extension ParamType {
    /// `value` as a declared result of this type: itself, or converted
    /// losslessly as params are (an int for a double, a string for bytes);
    /// nil when it is of another kind.
    func result(_ value: Value) -> Value? {
        admits(value) ? value : converting(value, fromURL: false)
    }

    /// "an int", "a dict".
    var withArticle: String { self == .int || self == .array || self == .any ? "an \(rawValue)" : "a \(rawValue)" }
}

extension ActionEntry {
    /// A result of kind `got` where the contract declares `type`: the call
    /// fails, naming the action and both types.
    func wrongResult(_ type: ParamType, got: String, target: NameRef, action: NameRef) -> SwitchboardError {
        .typeMismatch("\(call(target: target, action: action)): expected \(type.withArticle) result, got \(got)")
    }

    /// A Swift result checked against the declared result (see
    /// `ContractCheck.result`), converted as `ParamType.result` converts.
    @inline(__always)
    func checkedResult(_ outcome: Result<Value, SwitchboardError>, target: NameRef,
                       action: NameRef) -> Result<Value, SwitchboardError> {
        guard let type = declaredResult, case .success(let value) = outcome else { return outcome }
        guard let fitted = type.result(value) else {
            return .failure(wrongResult(type, got: "\(value.kind)", target: target, action: action))
        }
        return .success(fitted)
    }

    /// `checkedResult` for an answer that comes later (a pending call whose
    /// caller does not wait): the same check, on the answer. The message is
    /// made now, while the names are borrowed.
    func resultCheck(_ type: ParamType, target: NameRef, action: NameRef) -> (Completion.Answer) -> Completion.Answer {
        let call = call(target: target, action: action)
        return Completion.resultCheck(type) { got in .typeMismatch("\(call): expected \(type.withArticle) result, got \(got)") }
    }

    /// After a call of this action returned `status`: when it is pending
    /// (its caller does not wait), the result it declares is checked when
    /// the answer comes. Every path that checks results on success calls it.
    @inline(__always)
    func checkLater(_ status: Int32, target: NameRef, action: NameRef) {
        if status == Deferral.pendingStatus, let type = declaredResult {
            Deferral.detachedHere?.then(resultCheck(type, target: target, action: action))
        }
    }

    /// Refuses a URL call to a `local` action.
    @inline(__always)
    func admit(fromURL: Bool, target: NameRef, action: NameRef) throws(SwitchboardError) {
        if fromURL, contract?.isLocal == true {
            LocalRefusal.note()
            throw .rejected(call(target: target, action: action) + " is local: URLs cannot reach it")
        }
    }

    /// Swift params checked against the contract (see `Contract.check`).
    func checked(_ params: Params, fromURL: Bool, target: NameRef, action: NameRef) throws(SwitchboardError) -> Params? {
        guard let contract else { return nil }
        try admit(fromURL: fromURL, target: target, action: action)
        return try contract.contract.check(params, fromURL: fromURL, call: call(target: target, action: action))
    }

    /// The call as check messages name it: "A.show", or, when this entry is
    /// the `notFound` that answers for a missing action, "A.notFound (for
    /// A.hide)", since the contract checked is notFound's. Failure paths only.
    func call(target: NameRef, action: NameRef) -> String {
        let asked = "\(target.string).\(action.string)"
        let answering = name.string
        return answering == action.string ? asked : "\(target.string).\(answering) (for \(asked))"
    }
}
