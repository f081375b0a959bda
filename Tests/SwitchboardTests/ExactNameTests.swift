import Testing
@_spi(Faces) @testable import Switchboard

/// Names that Swift's `String ==` merges: é two ways, and ASCII "K" with
/// KELVIN SIGN (U+212A), whose canonical form is "K".
private let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
private let kelvin = "\u{212A}iosk", ascii = "Kiosk"

/// Every place a name is compared compares bytes: registration, removal,
/// redirects, rules, patterns, contracts, the catalogue.
@Suite("Names are bytes")
struct ExactNameTests {
    @Test("registering one spelling keeps the other; unregistering one leaves the other")
    func registration() throws {
        let m = Mediator()
        for name in [composed, decomposed, ascii, kelvin] {
            try m.register(target: "T", action: name) { _ in .string(name) }
        }
        for name in [composed, decomposed, ascii, kelvin] {
            #expect(try m.callAndWait(target: "T", action: name).string?.hasSameBytes(as: name) == true)
        }
        #expect(m.unregister(target: "T", action: decomposed))
        #expect(!m.unregister(target: "T", action: decomposed))
        #expect(try m.callAndWait(target: "T", action: composed) == .string(composed))
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "T", action: decomposed) }
        #expect(m.routes()["targets"]?[0]?["actions"]?.array?.count == 3)
    }

    @Test("several actions at once keep both spellings, in the order written")
    func registerMany() throws {
        let m = Mediator()
        try m.register(target: "T", actions: [composed: { _ in 1 }, decomposed: { _ in 2 }])
        #expect(try m.callAndWait(target: "T", action: composed) == 1)
        #expect(try m.callAndWait(target: "T", action: decomposed) == 2)
    }

    @Test("an interceptor's redirect to another spelling moves the call")
    func redirect() throws {
        let m = Mediator()
        try m.register(target: composed, action: "go") { _ in "composed" }
        try m.register(target: decomposed, action: "go") { _ in "decomposed" }
        try m.addInterceptor(named: "move") { call in
            call.target.hasSameBytes(as: composed) ? .redirect(target: decomposed, action: "go", params: nil) : .proceed
        }
        #expect(try m.callAndWait(target: composed, action: "go") == "decomposed")
    }

    @Test("a pattern's literal matches a segment with the same bytes only")
    func patterns() throws {
        let m = Mediator()
        try m.register(target: "P", action: "hit") { _ in "pattern" }
        try m.register(target: "NoTargetAction", action: "response") { _ in "no pattern" }
        try m.addURLPattern("app://caf%C3%A9/go", target: "P", action: "hit")
        try m.addURLPattern("app://Kiosk/open", target: "P", action: "hit")
        #expect(try m.callAndWait(url: "app://caf%C3%A9/go") == "pattern")
        #expect(try m.callAndWait(url: "app://Kiosk/open") == "pattern")
        #expect(m.openAndWait("app://cafe%CC%81/go") == "no pattern")
        #expect(m.openAndWait("app://%E2%84%AAiosk/open") == "no pattern")
        // Another spelling of a pattern is another pattern.
        try m.addURLPattern("app://cafe%CC%81/go", target: "P", action: "hit")
        #expect(m.removeURLPattern("app://cafe%CC%81/go"))
        #expect(try m.callAndWait(url: "app://caf%C3%A9/go") == "pattern")
        #expect(m.openAndWait("app://cafe%CC%81/go") == "no pattern")
        // A scheme is ASCII: KELVIN SIGN is not "k".
        #expect(throws: SwitchboardError.self) { try m.addURLPattern("\u{212A}app://x/y", target: "P", action: "hit") }
        try m.connect(scheme: "kapp")
        #expect(!m.disconnect(scheme: "\u{212A}app")) // lowercased(), it was "kapp"
        #expect(m.disconnect(scheme: "kapp"))
        #expect(URLPolicy(schemes: ["\u{212A}app"]).schemes == ["\u{212A}app"])
    }

    @Test("a contract's param is present only under its own bytes")
    func contracts() throws {
        let m = Mediator()
        try m.register(target: "C", action: "need", contract: Contract(stringLiteral: "\(composed): int")) { .dict($0) }
        #expect(try m.callAndWait(target: "C", action: "need", params: [composed: 1]) == [composed: 1])
        #expect { try m.callAndWait(target: "C", action: "need", params: [decomposed: 1]) } throws: {
            ($0 as? SwitchboardError)?.code == .badParams
        }
        // Two params whose names are two spellings are two params.
        #expect(throws: Never.self) { try Contract(parsing: "\(composed): int, \(decomposed): string").validated(for: "x") }
    }

    @Test("a Target class keeps both spellings of an action and of a contract")
    func targetClass() throws {
        let m = Mediator()
        try m.register(Target_Spellings.self, as: "S")
        #expect(try m.callAndWait(target: "S", action: composed, params: ["n": 1]) == "composed")
        #expect(try m.callAndWait(target: "S", action: decomposed) == "decomposed")
        #expect { try m.callAndWait(target: "S", action: composed) } throws: { ($0 as? SwitchboardError)?.code == .badParams }
    }

    @Test("rules read *, / and $n as bytes and ASCII digits")
    func rules() throws {
        let m = Mediator()
        try m.register(target: "New", action: "\u{301}x") { _ in "moved" }
        try m.register(target: "New", action: "3") { _ in "three" }
        m.rules = [RoutingRule(.rewrite(from: "Old/*", to: "New/$1")),
                   RoutingRule(.rewrite(from: "Odd/*", to: "New/$\u{663}"))]
        #expect(try m.callAndWait(target: "Old", action: "\u{301}x") == "moved")
        // "$" and ARABIC-INDIC DIGIT THREE is not a reference: no such target.
        #expect(throws: SwitchboardError.self) { try m.callAndWait(target: "Odd", action: "y") }
    }

    @Test("ExactName, hasSameBytes and the native* prefix read bytes")
    func helpers() {
        #expect(composed == decomposed)
        #expect(!composed.hasSameBytes(as: decomposed))
        #expect(ExactName(composed) != ExactName(decomposed))
        #expect(Set([ExactName(composed), ExactName(decomposed), ExactName(ascii), ExactName(kelvin)]).count == 4)
        #expect("native\u{301}Secret".hasASCIIPrefixIgnoringCase("native"))
        #expect("NaTiVe\u{200D}x".hasASCIIPrefixIgnoringCase("native"))
        #expect(!"nativ".hasASCIIPrefixIgnoringCase("native"))
        #expect(!"\u{FF4E}ative".hasASCIIPrefixIgnoringCase("native")) // FULLWIDTH n
        #expect("\u{212A}APP".asciiLowercased == "\u{212A}app")
    }
}

final class Target_Spellings: Target {
    static let actions: Actions<Target_Spellings> = [
        "caf\u{E9}": { _, _ in "composed" },
        "cafe\u{301}": { _, _ in "decomposed" },
    ]
    static let contracts: Contracts = ["caf\u{E9}": "n: int"]
}
