import Testing
import CSwitchboard
import LuaInteropHelpers
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A Lua state's converters and unmatched-URL fallbacks go with it: closing
/// the state removes what is still its own, and nothing another owner put
/// there since (as for its scheme and pattern handlers).
@Suite("Lua URL converters and fallbacks at close")
struct URLRoutingLuaTests {
    @Test("closing the state removes its converter and its fallbacks")
    func closing() throws {
        let mediator: Mediator
        do {
            let world = try World()
            mediator = world.mediator
            _ = try world.lua("""
                assert(sb.converter("luaword", function(s) return s:upper() end))
                assert(sb.unmatched("shop", function(p) return "shop fallback" end))
                assert(sb.unmatched(nil, function(p) return "every fallback" end))
                assert(sb.url_pattern("p://w/<luaword:w>", function(p) return p.w end))
                return true
                """)
            #expect(try mediator.callAndWait(url: "p://w/abc") == "ABC")
            #expect(try mediator.callAndWait(url: "shop://x") == "shop fallback")
            #expect(try mediator.callAndWait(url: "other://x") == "every fallback")
            #expect(mediator.routes()["url_converters"] == ["luaword"])
        }
        #expect(mediator.routes()["url_converters"] == [])
        #expect(mediator.routes()["url_fallbacks"] == [])
        #expect { try mediator.callAndWait(url: "shop://x") } throws: { ($0 as? SwitchboardError)?.code == .noTarget }
    }

    @Test("what another owner put there since stays")
    func othersStay() throws {
        let mediator: Mediator
        do {
            let world = try World()
            mediator = world.mediator
            _ = try world.lua("""
                assert(sb.converter("luaword", function(s) return s end))
                assert(sb.unmatched("shop", function(p) return "lua" end))
                return true
                """)
            try mediator.addURLConverter("luaword") { .string("swift " + $0) }
            try mediator.setURLFallback(target: "Swift", action: "miss", scheme: "shop")
        }
        #expect(mediator.routes()["url_converters"] == ["luaword"])
        #expect(mediator.routes()["url_fallbacks"] == [["scheme": "shop", "target": "Swift", "action": "miss"]])
        try mediator.register(target: "T", action: "echo") { .dict($0) }
        try mediator.addURLPattern("p://w/<luaword:w>", target: "T", action: "echo")
        #expect(try mediator.callAndWait(url: "p://w/x")["w"] == "swift x")
    }
}
