import Testing
import Foundation
import CSwitchboard
import LuaInteropHelpers
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// One process, three languages: a Swift mediator, C functions and a Lua
/// state bound to it (through the C API, as any host would).
final class World {
    let mediator = Mediator()
    let owner: CMediator
    let handle: OpaquePointer
    let lua: OpaquePointer

    init() throws {
        owner = CMediator(mediator)
        handle = OpaquePointer(Unmanaged.passUnretained(owner).toOpaque())
        lua = try #require(helper_lua_new(handle))
    }

    deinit { helper_lua_close(lua) }

    /// Runs a Lua chunk and returns its first result as a string.
    func lua(_ chunk: String) throws -> String {
        var error: UnsafeMutablePointer<CChar>?
        guard let result = helper_lua_run(lua, chunk, &error) else {
            defer { free(error) }
            throw LuaError(message: error.map { String(cString: $0) } ?? "?")
        }
        defer { free(result) }
        return String(cString: result)
    }

    struct LuaError: Error { let message: String }
}

/// Holds a callback a target was given (the tests are single-threaded).
final class Keeper: @unchecked Sendable {
    var kept: Callback?
}

@Suite("Swift, C and Lua in one process")
struct MatrixTests {
    static let targets = ["SwiftT": "swift", "CT": "c", "LuaT": "lua"]

    /// Registers the matrix's target in each language.
    func populate(_ world: World) throws {
        try world.mediator.register(target: "SwiftT", action: "run") { params in
            ["target": "swift", "callback": try params["cb"]!.callback!("swift")]
        }
        #expect(sb_action_register(world.handle, "CT", "run", helper_matrix_target, nil, nil) == SB_OK)
        _ = try world.lua("""
            sb.target("LuaT", { run = function(p) return { target = "lua", callback = p.cb("lua") } end })
            return true
            """)
    }

    func callFromSwift(_ world: World, _ target: String) throws -> String {
        let result = try world.mediator.callAndWait(target: target, action: "run", params: [
            "cb": .callback(Callback { arg in .string("swift got \(arg.string ?? "?")") }),
        ])
        return "target=\(result["target"]?.string ?? "?") callback=\(result["callback"]?.string ?? "?")"
    }

    func callFromC(_ world: World, _ target: String) throws -> String {
        guard let text = helper_matrix_call_from_c(world.handle, target) else {
            throw World.LuaError(message: String(cString: sb_error_message()))
        }
        defer { free(text) }
        return String(cString: text)
    }

    func callFromLua(_ world: World, _ target: String) throws -> String {
        try world.lua("""
            local r = assert(sb.perform("\(target)", "run", { cb = function(arg) return "lua got " .. arg end }))
            return "target=" .. r.target .. " callback=" .. r.callback
            """)
    }

    @Test("all nine caller × target pairs work, each with a callback the target calls",
          arguments: ["swift", "c", "lua"], ["SwiftT", "CT", "LuaT"])
    func pair(caller: String, target: String) throws {
        let world = try World()
        try populate(world)
        let described: String
        switch caller {
        case "swift": described = try callFromSwift(world, target)
        case "c": described = try callFromC(world, target)
        default: described = try callFromLua(world, target)
        }
        let tag = Self.targets[target]!
        #expect(described == "target=\(tag) callback=\(caller) got \(tag)")
    }

    @Test("a Lua callback kept by Swift after its state closed fails cleanly")
    func callbackOutlivesState() throws {
        let keeper = Keeper()
        let mediator: Mediator
        do {
            let world = try World()
            mediator = world.mediator
            try world.mediator.register(target: "Keeper", action: "keep") { params in
                keeper.kept = params["cb"]?.callback
                return true
            }
            _ = try world.lua("assert(sb.perform('Keeper', 'keep', { cb = function(x) return x end })) return 1")
            #expect(try keeper.kept?("alive") == "alive")
        }
        let callback = try #require(keeper.kept)
        #expect {
            try callback("too late")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .actionFailed && error.message.contains("closed")
        }
        _ = mediator
    }

    @Test("a Lua error inside a Lua target reaches Swift as actionFailed with a traceback")
    func luaErrorToSwift() throws {
        let world = try World()
        _ = try world.lua("sb.target('Bad', { run = function() error('lua says no') end }) return 1")
        #expect {
            try world.mediator.callAndWait(target: "Bad", action: "run")
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .actionFailed && error.message.contains("lua says no")
                && error.message.contains("stack traceback")
        }
    }

    @Test("a Swift target's error reaches Lua as nil, message, code")
    func swiftErrorToLua() throws {
        let world = try World()
        try world.mediator.register(target: "Strict", action: "run") { _ in
            throw SwitchboardError.rejected("swift refuses")
        }
        let described = try world.lua("""
            local r, m, c = sb.perform("Strict", "run")
            return tostring(r) .. "|" .. m .. "|" .. c
            """)
        #expect(described == "nil|swift refuses|EREJECTED")
    }
}
