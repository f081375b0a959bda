import Testing
@testable import Switchboard

/// A Swift target class with a contract on one of its actions.
final class Target_Contracted: Target {
    static let actions: Actions<Target_Contracted> = [
        "greet": { _, params in .string("hello " + (params["name"]?.string ?? "?")) },
        "free": { _, params in .dict(params) },
    ]
    static let contracts: Contracts = ["greet": "name: string"]
}

@Suite("Action contracts")
struct ContractTests {
    /// `A.show` with a contract of every kind of param.
    func mediator() throws -> Mediator {
        let m = Mediator()
        try m.register(target: "A", action: "show", contract: """
            message: string        -- the text to show, commas, and all
            count: int = 3
            ratio: double?, flag: bool = false
            tags: array = ["a", "b"]
            -> dict
            """) { params in .dict(params) }
        try m.register(target: "A", action: "secret", contract: "local") { _ in "secret" }
        return m
    }

    @Test("the contract syntax: required, optional, defaults, docs, result, exposure")
    func syntax() throws {
        let contract = try Contract(parsing: """
            message: string -- what to say, in full
            count: int = 3, ratio: double?
            -> bool
            local
            """)
        #expect(contract.params.map(\.name) == ["message", "count", "ratio"])
        #expect(contract.params.map(\.type) == [.string, .int, .double])
        #expect(contract.params.map(\.required) == [true, false, false])
        #expect(contract.params[0].doc == "what to say, in full")
        #expect(contract.params[1].defaultValue == .int(3))
        #expect(contract.result == .bool)
        #expect(contract.exposure == .local)
        // The JSON form, as the catalogue lists it, reads back the same.
        #expect(try ContractParser.parse(json: contract.json) == contract)
        #expect(try Contract(parsing: #"{"params": [{"name": "x", "type": "int"}]}"#).params == [Contract.Param("x", .int)])
        // "--" and "->" inside a default's string are text; CRLF ends lines too;
        // an int default of a double param becomes a double; "int? = 3" is allowed.
        let tricky = try Contract(parsing: "sep: string = \"--\" -- the separator\r\narrow: string = \"a->b\"\r\n"
                                  + "ratio: double = 1, n: int? = 3")
        #expect(tricky.params.map(\.name) == ["sep", "arrow", "ratio", "n"])
        #expect(tricky.params[0].defaultValue == "--")
        #expect(tricky.params[0].doc == "the separator")
        #expect(tricky.params[1].defaultValue == "a->b")
        let m = Mediator()
        try m.register(target: "T", action: "x", contract: tricky) { params in .dict(params) }
        #expect(try m.callAndWait(target: "T", action: "x").dict?["ratio"] == .double(1))
        #expect(try m.callAndWait(target: "T", action: "x").dict?["n"] == .int(3))
        let signature = try Contract(parsing: "a: int, b: int -> double")
        #expect(signature.params.map(\.name) == ["a", "b"])
        #expect(signature.result == .double)
    }

    @Test("a contract that does not parse or contradicts itself is refused when registered",
          arguments: ["x: integer", "x int", "x: int, x: string", "x: int = \"three\"", "x: int = [1,",
                      "-- a doc with no param", "exposure: local = ", "{\"params\": 3}", "x: int -> y",
                      "x: int -> int, -> string", "local, remote", "x: string = \"open", "async\nasync",
                      "x: async", "asynchronous", #"{"async": "yes"}"#, #"{"answersLater": true}"#,
                      #"{"params": [{"name": "x", "type": "int", "required": "no"}]}"#,
                      #"{"params": [{"name": "x", "type": "int", "required": true, "default": 1}]}"#])
    func refused(text: String) throws {
        let m = Mediator()
        let contract = Contract(stringLiteral: text)
        do {
            try m.register(target: "A", action: "x", contract: contract) { _ in .null }
            Issue.record("\(text) should be refused")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("contract"))
        }
        #expect(m.routes()["targets"]?.array?.isEmpty == true) // nothing registered
    }

    @Test("a missing required key, or a value of the wrong type, fails with EPARAMS naming it")
    func violations() throws {
        let m = try mediator()
        do {
            _ = try m.callAndWait(target: "A", action: "show", params: ["count": 1])
            Issue.record("a missing key should fail")
        } catch {
            #expect(error.code == .badParams)
            #expect(error.message == "A.show: missing required param \"message\" (string)")
        }
        do {
            _ = try m.callAndWait(target: "A", action: "show", params: ["message": "hi", "count": "7"])
            Issue.record("a string for an int should fail")
        } catch {
            #expect(error.code == .badParams)
            #expect(error.message == "A.show: param \"count\": expected int, got string \"7\"")
        }
        #expect(throws: SwitchboardError.self) {
            try m.callAndWait(target: "A", action: "show", params: ["message": "hi", "flag": 1])
        }
        // null is absent: required keys still fail, optional ones get their default.
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "A", action: "show", params: ["message": .null]) }
        #expect(SwitchboardError.Code.badParams.name == "EPARAMS")
    }

    @Test("a notFound's contract failure names notFound and the action asked for, from Swift and C")
    func notFoundContract() throws {
        let m = Mediator()
        try m.register(target: "A", action: "notFound", contract: "id: int") { params in .dict(params) }
        #expect(try m.callAndWait(target: "A", action: "hide", params: ["id": 3]) == ["id": 3])
        #expect { try m.callAndWait(target: "A", action: "hide") } throws: {
            ($0 as? SwitchboardError)?.message == "A.notFound (for A.hide): missing required param \"id\" (int)"
        }
        #expect { try m.callAndWait(target: "A", action: "notFound") } throws: {
            ($0 as? SwitchboardError)?.message == "A.notFound: missing required param \"id\" (int)"
        }
    }

    @Test("defaults are filled in, ints widen to doubles, other keys pass through")
    func completion() throws {
        let m = try mediator()
        let got = try m.callAndWait(target: "A", action: "show", params: ["message": "hi", "ratio": 2, "extra": "kept"])
        let expected: Value = .dict(["message": "hi", "count": 3, "ratio": .double(2), "flag": false,
                                     "tags": ["a", "b"], "extra": "kept"])
        #expect(got == expected)
        // A string passes for bytes, as its UTF-8; other kinds do not.
        try m.register(target: "B", action: "take", contract: "data: bytes") { .dict($0) }
        #expect(try m.callAndWait(target: "B", action: "take", params: ["data": "hé"]).dict?["data"]
                == .bytes([0x68, 0xc3, 0xa9]))
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "B", action: "take", params: ["data": 1]) }
    }

    @Test("URL query strings become the declared types; a bad number is EPARAMS")
    func urls() throws {
        let m = try mediator()
        let got = try m.callAndWait(url: "app://A/show?message=hi&count=42&ratio=0.5&flag=true")
        #expect(got.dict?["count"] == .int(42))
        #expect(got.dict?["ratio"] == .double(0.5))
        #expect(got.dict?["flag"] == .bool(true))
        #expect(got.dict?["message"] == "hi")
        for bad in ["count=4x2", "count=99999999999999999999", "ratio=nan", "flag=yes"] {
            do {
                _ = try m.callAndWait(url: "app://A/show?message=hi&" + bad)
                Issue.record("\(bad) should fail")
            } catch {
                #expect(error.code == .badParams)
            }
        }
        // A local perform of the same strings is not converted.
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "A", action: "show", params: ["message": "hi", "count": "42"]) }
    }

    @Test("a local action answers perform, not URLs, even after an interceptor's redirect")
    func exposure() throws {
        let m = try mediator()
        #expect(try m.callAndWait(target: "A", action: "secret") == "secret")
        do {
            _ = try m.callAndWait(url: "app://A/secret")
            Issue.record("a URL should not reach a local action")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.message.contains("local"))
        }
        try m.addInterceptor(named: "to-secret") { call in
            call.action == "show" ? .redirect(target: "A", action: "secret", params: nil) : .proceed
        }
        #expect(throws: SwitchboardError.self) { try m.callAndWait(url: "app://A/show?message=x") }
        #expect(try m.callAndWait(target: "A", action: "show", params: ["message": "x"]) == "secret")
    }

    @Test("async says the action answers later: in the contract, its JSON (only when set), and the catalogue")
    func answersLater() async throws {
        let contract = try Contract(parsing: "async\nid: int -> dict")
        #expect(contract.answersLater)
        #expect(contract.params.map(\.name) == ["id"])
        #expect(contract.json.dict?["async"] == true)
        #expect(try ContractParser.parse(json: contract.json) == contract)
        #expect(try Contract(parsing: "id: int, async, local").answersLater)
        #expect(try Contract(parsing: #"{"async": false}"#).answersLater == false)
        // Without it, the JSON has no "async" key: catalogues read as before.
        let plain = try Contract(parsing: "id: int -> dict")
        #expect(!plain.answersLater)
        #expect(plain.json.dict?["async"] == nil)
        #expect(plain != contract)

        let m = Mediator()
        // A C-style action that says async in its contract, a Swift async closure
        // (with or without a contract), and a plain one.
        try m.register(target: "T", action: "fetch", contract: "async, id: int") { _ in .null }
        try m.register(target: "T", action: "wait") { _ async throws -> Value in .null }
        try m.register(target: "T", action: "await", contract: "-> int") { _ async throws -> Value in 1 }
        try m.register(target: "T", action: "now") { _ in .null }
        try m.register(target: "U", action: "now") { _ in .null }
        let rows = m.routes()["targets"]?.array ?? []
        let t = rows.first { $0.dict?["name"] == "T" }?.dict
        #expect(t?["async"] == ["await", "fetch", "wait"])
        #expect(t?["actions"] == ["await", "fetch", "now", "wait"])
        #expect(t?["contracts"]?.dict?["fetch"]?.dict?["async"] == true)
        #expect(t?["contracts"]?.dict?["await"]?.dict?["async"] == nil) // the contract does not say it
        #expect(rows.first { $0.dict?["name"] == "U" }?.dict?["async"] == [])
        // Replacing an async action by a plain one takes it off the list.
        try m.register(target: "T", action: "wait") { _ in .null }
        let again = m.routes()["targets"]?.array?.first { $0.dict?["name"] == "T" }?.dict
        #expect(again?["async"] == ["await", "fetch"])
    }

    @Test("contracts hold on the intercepted path and for Target classes, and the catalogue lists them")
    func everywhere() throws {
        let m = try mediator()
        try m.addObserver { _ in }
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "A", action: "show") }
        try m.register(Target_Contracted.self, as: "C")
        #expect(try m.callAndWait(target: "C", action: "greet", params: ["name": "Ada"]) == "hello Ada")
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "C", action: "greet", params: ["name": 1]) }
        #expect(try m.callAndWait(target: "C", action: "free", params: ["name": 1]) == .dict(["name": 1]))

        let rows = m.routes()["targets"]?.array ?? []
        let a = rows.first { $0.dict?["name"] == "A" }?.dict
        let show = a?["contracts"]?.dict?["show"]
        #expect(show?.dict?["result"] == "dict")
        #expect(show?.dict?["params"]?.array?.count == 5)
        #expect(a?["contracts"]?.dict?["secret"]?.dict?["exposure"] == "local")
        let c = rows.first { $0.dict?["name"] == "C" }?.dict
        #expect(c?["contracts"]?.dict?.keys.sorted() == ["greet"])
    }

    final class Target_Misspelt: Target {
        static let actions: Actions<Target_Misspelt> = [
            "list": { _, _ in ["a", "b"] },
            "show": { _, params in params["id"] ?? .null },
        ]
        // "lsit" is no action: the contract meant for "list" would be dropped silently.
        static let contracts: Contracts = ["lsit": "limit: int -> array", "show": "id: int"]
    }

    @Test("a class whose contracts name an action it does not have refuses every call, naming it")
    func misspeltContractKey() throws {
        let m = Mediator()
        try m.register(Target_Misspelt.self, as: "Misspelt")
        for action in ["list", "show"] {
            #expect { try m.callAndWait(target: "Misspelt", action: action, params: ["id": 1]) } throws: { error in
                guard let error = error as? SwitchboardError else { return false }
                return error.code == .invalidArgument
                    && error.message.contains("its contract is unusable")
                    && error.message.contains("contracts names \"lsit\" (did you mean \"list\"?)")
                    && error.message.contains("not an action of Target_Misspelt")
            }
        }
        #expect(m.performAndWait(target: "Misspelt", action: "list") == .null)
        robustnessRow("A Target class whose contracts name an action it does not have (a misspelt key)", cases: 2,
                      "every action of the class refuses its calls with EINVAL naming the key and the closest action")
    }
}
