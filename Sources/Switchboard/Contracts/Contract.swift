/// What an action promises about its params and result, checked before the
/// action runs: the keys it needs, their types, defaults, and whether URLs
/// may reach it.
///
/// Write one in the contract syntax (C and Lua use the same text):
///
///     let contract: Contract = """
///         message: string       -- the text to show
///         confirm: callback?    -- called with the user's answer
///         times: int = 1
///         -> bool
///         """
///
/// Items are separated by commas or new lines:
/// - `name: type` is a required param; `name: type?` an optional one;
///   `name: type = default` an optional one with a default (a JSON value);
/// - `-- doc` documents the param before it, to the end of the line;
/// - `-> type` declares the result (alone, or after the last param:
///   `a: int, b: int -> int`); `local` makes the action unreachable from
///   URLs (`remote`, the default, leaves it to the URL policy);
/// - `async` says the action answers later (a C action that returns
///   `SB_PENDING`, a Lua one that completes later): the catalogue lists it
///   among the target's asynchronous actions and `switchboard gen` writes
///   wrappers that do not wait for it. It changes nothing in how calls run.
///   A Swift `async` closure is asynchronous whether its contract says so
///   or not.
///
/// Types: bool, int, double, string, bytes, array, dict, callback, any. A
/// JSON object (`{"params": [{"name", "type", "required", "default", "doc"}],
/// "result", "exposure", "async"?}`, as ``Mediator/routes()`` lists contracts;
/// `"async": true` only for an action that answers later) is read too.
public struct Contract: Sendable, Equatable, ExpressibleByStringLiteral {
    /// The declared params, in the order written. Keys a contract does not
    /// name pass through unchecked.
    public var params: [Param]
    /// The result's type; `.any` when not declared.
    public var result: ParamType
    /// Whether URLs may reach the action (`remote`, the default) or only
    /// calls by name and routes (`local`).
    public var exposure: Exposure
    /// The action answers later (the `async` item): a listing and a
    /// generator's hint, not a check.
    public var answersLater: Bool
    /// Why a string literal did not parse; registering the contract reports it.
    let problem: String?
    /// Whether calls can be checked against it (see `usable(for:)`).
    @_spi(Faces) public var isUsable: Bool { problem == nil }

    /// One declared param: `name: type`, `name: type?` or
    /// `name: type = default`, with its `-- doc`.
    public struct Param: Sendable, Equatable {
        /// The params key, compared by its bytes.
        public var name: String
        /// The type the value must have; a call with another kind fails with
        /// `.badParams` unless a lossless conversion applies (an int for a
        /// double, a string for bytes, and from a URL the text of a bool,
        /// an int or a double).
        public var type: ParamType
        /// A call without the key (or with it set to null) fails with
        /// `.badParams`. Never true when there is a default.
        public var required: Bool
        /// Filled in when the caller leaves the param out (implies optional).
        public var defaultValue: Value?
        /// What the param means, for listings (`routes()`) and generated
        /// wrappers; empty when not written.
        public var doc: String

        /// A param named `name` of type `type`; a default makes it optional
        /// whatever `required` says. Registering the contract checks the
        /// default against the type.
        public init(_ name: String, _ type: ParamType, required: Bool = true, default defaultValue: Value? = nil,
                    doc: String = "") {
            self.name = name
            self.type = type
            self.required = required && defaultValue == nil
            self.defaultValue = defaultValue
            self.doc = doc
        }
    }

    /// Which callers may reach an action: the `local` item of the syntax.
    public enum Exposure: String, Sendable {
        /// Reachable from URLs, subject to the URL policy.
        case remote
        /// Reachable by perform and routes only; a URL call to it is rejected.
        case local
    }

    /// A contract built from its parts rather than parsed. Registering it
    /// checks it (params named twice, defaults of the wrong type).
    public init(params: [Param] = [], result: ParamType = .any, exposure: Exposure = .remote,
                answersLater: Bool = false) {
        self.params = params
        self.result = result
        self.exposure = exposure
        self.answersLater = answersLater
        problem = nil
    }

    /// Reads a contract in the contract syntax or as a JSON object.
    public init(parsing text: String) throws(SwitchboardError) {
        self = try ContractParser.parse(text)
    }

    /// A literal that does not parse makes registration fail with the reason.
    public init(stringLiteral text: String) {
        do {
            self = try ContractParser.parse(text)
        } catch {
            self.init(params: [], result: .any, exposure: .remote, problem: error.message)
        }
    }

    private init(params: [Param], result: ParamType, exposure: Exposure, answersLater: Bool = false,
                 problem: String?) {
        self.params = params
        self.result = result
        self.exposure = exposure
        self.answersLater = answersLater
        self.problem = problem
    }

    /// Throws when the contract cannot be used: it did not parse, names a
    /// param twice, or has a default of the wrong type or one that is not
    /// data. An int default of a double param becomes a double. `action`
    /// names it in messages (nil: "contract: ...").
    @_spi(Faces) public func validated(for action: String?) throws(SwitchboardError) -> Contract {
        let label = action.map { "contract of \($0)" } ?? "contract"
        if let problem { throw .invalidArgument("\(label): \(problem.dropPrefix("contract: "))") }
        var contract = self
        for i in contract.params.indices {
            guard let value = contract.params[i].defaultValue, !contract.params[i].type.admits(value) else { continue }
            if let widened = contract.params[i].type.converting(value, fromURL: false) {
                contract.params[i].defaultValue = widened
            }
        }
        try contract.checkParams(label)
        return contract
    }

    /// This contract made unusable: every call of its action fails naming
    /// `why`, as for a contract that does not parse.
    func refused(because why: String) -> Contract {
        Contract(params: [], result: .any, exposure: exposure, answersLater: answersLater, problem: why)
    }

    /// The contract, or one whose every check fails with why it is unusable
    /// (for a Target class, which is found when called and cannot throw earlier).
    func usable(for action: String?) -> Contract {
        do throws(SwitchboardError) {
            return try validated(for: action)
        } catch {
            return Contract(params: [], result: .any, exposure: exposure, answersLater: answersLater,
                            problem: error.message)
        }
    }

    private func checkParams(_ label: String) throws(SwitchboardError) {
        var seen = Set<ExactName>()
        for param in params {
            if let issue = NameCheck.problem(with: param.name, kind: "param") {
                throw .invalidArgument("\(label): \(issue)")
            }
            guard seen.insert(ExactName(param.name)).inserted else {
                throw .invalidArgument("\(label): param \"\(param.name)\" is declared twice")
            }
            guard let value = param.defaultValue else { continue }
            switch value {
            case .callback, .pointer:
                throw .invalidArgument("\(label): the default of \"\(param.name)\" must be data, not \(value.kind == .int || value.kind == .array ? "an" : "a") \(value.kind)")
            default:
                guard param.type.admits(value) else {
                    throw .invalidArgument("\(label): the default of \"\(param.name)\" is "
                                           + "\(value.kind), not \(param.type.rawValue)")
                }
            }
        }
    }

    /// Two contracts are equal when they declare the same params, result,
    /// exposure and `async`, and fail to parse for the same reason, if any.
    public static func == (a: Contract, b: Contract) -> Bool {
        a.params == b.params && a.result == b.result && a.exposure == b.exposure && a.answersLater == b.answersLater
            && a.problem == b.problem
    }
}

/// The type of a declared param or result.
public enum ParamType: String, Sendable, CaseIterable {
    /// `true` or `false`; from a URL, also the text `true`, `false`, `1`, `0`.
    case bool
    /// A 64-bit integer; from a URL, also its decimal text.
    case int
    /// A double; an int that converts exactly is accepted and converted, and
    /// from a URL the text of a finite number.
    case double
    /// UTF-8 text.
    case string
    /// Raw bytes; a string is accepted as its UTF-8.
    case bytes
    /// An array of values.
    case array
    /// A dict of values (`Value.Dict`).
    case dict
    /// A callable value (``Callback``).
    case callback
    /// Any value: nothing is checked.
    case any

    /// Whether `value` is of this type as it stands (an int is not a double).
    func admits(_ value: Value) -> Bool {
        switch (self, value) {
        case (.any, _), (.bool, .bool), (.int, .int), (.double, .double), (.string, .string), (.bytes, .bytes),
             (.array, .array), (.dict, .dict), (.callback, .callback):
            true
        default:
            false
        }
    }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> Substring {
        hasPrefix(prefix) ? dropFirst(prefix.count) : Substring(self)
    }
}
