import Testing
@testable import Switchboard

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@Suite("notFound, NoTargetAction and errors")
struct FallbackTests {
    /// A mediator with a closure target "B" and a NoTargetAction that echoes
    /// what it was given.
    func mediatorWithFallback() throws -> Mediator {
        let m = Mediator()
        try m.register(target: "B", action: "ok") { _ in "ok" }
        try m.register(target: "NoTargetAction", action: "response") { params in .dict(params) }
        return m
    }

    @Test("a missing action is answered by the target's notFound, with the same params")
    func notFound() throws {
        let m = Mediator()
        try m.register(target: "B", actions: [
            "ok": { _ in "ok" },
            "notFound": { params in ["notFound": .dict(params)] },
        ])
        #expect(try m.callAndWait(target: "B", action: "missing", params: ["x": 1]) == ["notFound": ["x": 1]])
        #expect(m.performAndWait(target: "B", action: "missing") == ["notFound": [:]])
        #expect(try m.callAndWait(target: "B", action: "ok") == "ok")
    }

    @Test("a missing target reaches NoTargetAction.response with CTMediator's forms and the bare names")
    func noTargetFallback() throws {
        let m = try mediatorWithFallback()
        let result = m.performAndWait(target: "Nowhere", action: "go", params: ["k": "v"])
        #expect(result == [
            "originParams": ["k": "v"],
            "targetString": "Target_Nowhere",
            "selectorString": "Action_go:",
            "target": "Nowhere",
            "action": "go",
        ])
        // In that order, as CTMediator's ported Action_response: reads them.
        #expect(result.dict?.keys == ["originParams", "targetString", "selectorString", "target", "action"])
    }

    @Test("a missing action without notFound also reaches NoTargetAction")
    func noActionFallback() throws {
        let m = try mediatorWithFallback()
        let result = m.performAndWait(target: "B", action: "absent")
        #expect(result == ["originParams": [:], "targetString": "Target_B", "selectorString": "Action_absent:",
                           "target": "B", "action": "absent"])
    }

    @Test("targetString is the class CTMediator looked for: Module.Target_X with the module key; target stays as called")
    func fallbackReportsModule() throws {
        let m = try mediatorWithFallback()
        var result = m.performAndWait(target: "Ghost", action: "x", params: [Mediator.moduleKey: "Nope"])
        #expect(result["targetString"] == "Nope.Target_Ghost")
        #expect(result["target"] == "Ghost")
        result = m.performAndWait(target: "Ghost", action: "x", params: [Mediator.ctMediatorModuleKey: "Nope"])
        #expect(result["targetString"] == "Nope.Target_Ghost")
        // A qualified name is the module's class too; an empty module names none.
        #expect(m.performAndWait(target: "Nope.Ghost", action: "x")["targetString"] == "Nope.Target_Ghost")
        #expect(m.performAndWait(target: "Ghost", action: "x", params: [Mediator.moduleKey: ""])["targetString"]
                == "Target_Ghost")
        robustnessRow("Fallback params of a call nothing answers (plain, module key, its CTMediator alias, "
                      + "qualified name, empty module, URL, degrade rule, degrade handler)", cases: 8,
                      "CTMediator's targetString/selectorString forms, plus target, action and url (URL calls only)")
    }

    @Test("a local call's fallback params have no url; a URL call's have the URL as opened")
    func fallbackURL() throws {
        let m = try mediatorWithFallback()
        #expect(m.performAndWait(target: "Ghost", action: "x")["url"] == nil)
        let result = try m.callAndWait(url: "app://Ghost/boo?k=v")
        #expect(result == ["originParams": ["k": "v"], "targetString": "Target_Ghost", "selectorString": "Action_boo:",
                           "target": "Ghost", "action": "boo", "url": "app://Ghost/boo?k=v"])
        // With hooks the URL call takes the intercepted path: the same params.
        _ = try m.addObserver { _ in }
        #expect(try m.callAndWait(url: "app://Ghost/boo?k=v") == result)
        // A degrade rule's target and the degrade handler are told the same.
        try m.register(target: "Web", action: "response") { .dict($0) }
        try m.setRules(json: #"[{"target": "Ghost", "action": "*", "degrade": "Web"}]"#)
        #expect(try m.callAndWait(url: "app://Ghost/boo?k=v") == result)
        m.rules = []
        #expect(m.unregister(target: "NoTargetAction"))
        m.setDegradeHandler { .dict($0) }
        #expect(try m.callAndWait(url: "app://Ghost/boo?k=v") == result)
        #expect(m.performAndWait(target: "Ghost", action: "boo")["url"] == nil)
    }

    @Test("with no NoTargetAction either, perform gives null")
    func nothingAnswers() {
        let m = Mediator()
        #expect(m.performAndWait(target: "Nowhere", action: "go") == .null)
    }

    @Test("call reports noTarget and noAction instead of falling back")
    func callReports() throws {
        let m = try mediatorWithFallback()
        #expect {
            try m.callAndWait(target: "Nowhere", action: "go")
        } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
        #expect {
            try m.callAndWait(target: "B", action: "absent")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .noAction && error.message.contains("absent") && error.message.contains("\"B\"")
        }
    }

    @Test("an action's error comes back as actionFailed with the underlying error")
    func actionFailed() throws {
        let m = Mediator()
        try m.register(target: "B", action: "fail") { _ in throw Boom() }
        do {
            _ = try m.callAndWait(target: "B", action: "fail")
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .actionFailed)
            #expect(error.underlying is Boom)
            #expect(error.message.contains("B.fail"))
            #expect(error.message.contains("boom"))
        }
        #expect(m.performAndWait(target: "B", action: "fail") == .null)
    }

    @Test("a SwitchboardError thrown by an action passes through unchanged")
    func passThrough() throws {
        let m = Mediator()
        try m.register(target: "B", action: "reject") { _ in throw SwitchboardError.rejected("not today") }
        #expect {
            try m.callAndWait(target: "B", action: "reject")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .rejected && error.message == "not today"
        }
    }

    @Test("empty names and names with NUL are invalid arguments",
          arguments: [("", "a"), ("t", ""), ("t\0x", "a"), ("t", "a\0")])
    func invalidNames(target: String, action: String) throws {
        let m = try mediatorWithFallback()
        #expect {
            try m.callAndWait(target: target, action: action)
        } throws: { ($0 as? SwitchboardError)?.code == .invalidArgument }
        #expect(m.performAndWait(target: target, action: action) == .null)
    }

    @Test("an error message names its status")
    func errorDescription() {
        #expect(SwitchboardError.noTarget("no target named \"A\"").description == "ENOTARGET: no target named \"A\"")
        #expect(SwitchboardError(code: .badURL, message: "m").code == .badURL)
        for code in SwitchboardError.Code.allCases {
            #expect(SwitchboardError(code: code, message: "m").code == code)
            #expect(SwitchboardError(code: code, message: "m").message == "m")
        }
    }

    @Test("status codes keep the numbers of the C header's sb_status")
    func codeNumbers() {
        let expected: [(SwitchboardError.Code, Int32, String)] = [
            (.invalidArgument, 1, "EINVAL"), (.noTarget, 2, "ENOTARGET"), (.noAction, 3, "ENOACTION"),
            (.actionFailed, 4, "EACTION"), (.typeMismatch, 5, "ETYPE"), (.rejected, 6, "EREJECTED"),
            (.badURL, 7, "EBADURL"), (.outOfMemory, 8, "ENOMEM"), (.queued, 9, "EQUEUED"),
            (.timeout, 10, "ETIMEOUT"), (.canceled, 11, "ECANCELED"), (.badParams, 12, "EPARAMS"),
            (.wouldBlock, 13, "EWOULDBLOCK"), (.notFound, 14, "ENOTFOUND"),
        ]
        #expect(expected.count == SwitchboardError.Code.allCases.count)
        for (code, number, name) in expected {
            #expect(code.rawValue == number)
            #expect(code.name == name)
        }
    }

    @Test("a Swift callback's errors come back as SwitchboardError")
    func callbackErrors() throws {
        let ok = Callback { args in ["got": args] }
        #expect(try ok(5) == ["got": 5])
        let failing = Callback { _ in throw Boom() }
        #expect {
            try failing()
        } throws: { ($0 as? SwitchboardError)?.code == .actionFailed }
    }
}
