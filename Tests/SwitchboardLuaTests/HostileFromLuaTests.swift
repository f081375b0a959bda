import Testing
import Foundation
import CSwitchboard
import LuaInteropHelpers
@testable import SwitchboardC
@_spi(Faces) @testable import Switchboard

/// A Lua script calling a Swift action that decodes its params into a
/// Codable type, with what a script naturally sends: one string type for
/// text and bytes, `{}` for an empty array, floats where ints are meant,
/// tables nested too deep, and tags the action reads from its CallContext.
@Suite("Hostile Swift face: typed Swift actions called from Lua")
struct HostileCodableFromLuaTests {
    struct Upload: Codable {
        var name: String
        var count: Int
        var ratio: Float
        var payload: [UInt8]
        var tags: [String]
    }

    /// A world whose Swift action `Files.upload` decodes an `Upload` and
    /// answers with what it got (or throws the decoding error).
    func world() throws -> World {
        let world = try World()
        try world.mediator.register(target: "Files", action: "upload") { params, call in
            let upload = try params.decode(Upload.self)
            return ["payload": .bytes(upload.payload), "count": .int(upload.count), "tags": .array(call.tags.map(Value.string))]
        }
        return world
    }

    /// `sb.perform("Files", "upload", <params>, <opts>)` as "ok <payload bytes> <count>" or "<code>|<message>".
    func upload(_ world: World, _ params: String, opts: String = "nil") throws -> String {
        try world.lua("""
            local r, m, c = sb.perform("Files", "upload", \(params), \(opts))
            if r == nil then return c .. "|" .. m end
            return "ok " .. #r.payload .. " " .. r.count .. " " .. table.concat(r.tags, ",")
            """)
    }

    @Test("a script's text and bytes, ints and floats, empty tables and tags, into a typed Swift action")
    func fromLua() throws {
        let world = try world()
        let good = #"name = "n", count = 2, ratio = 0.5, tags = {"a"}"#
        // A Lua string is a string when it is UTF-8: it still fills [UInt8].
        #expect(try upload(world, "{ \(good), payload = \"abc\" }", opts: "{ tags = {\"from-lua\"} }")
                == "ok 3 2 from-lua")
        #expect(try upload(world, "{ \(good), payload = \"\\xff\\x00\" }") == "ok 2 2 ")
        // Non-UTF-8 for a String field: refused, naming the key.
        let bytesForName = try upload(world, #"{ name = "\xff", count = 1, ratio = 1, payload = "", tags = {"a"} }"#)
        #expect(bytesForName.hasPrefix("EPARAMS|") && bytesForName.contains("\"name\": expected string, got bytes"))
        // A float for an int is refused (3 and 3.0 stay different in every face).
        let float = try upload(world, #"{ name = "n", count = 2.0, ratio = 1, payload = "", tags = {"a"} }"#)
        #expect(float.hasPrefix("EPARAMS|") && float.contains("\"count\": expected int, got double 2.0"))
        // math.huge fits a Float (infinity); 1e300 does not.
        #expect(try upload(world, #"{ name = "n", count = 1, ratio = math.huge, payload = "", tags = {"a"} }"#)
                == "ok 0 1 ")
        let huge = try upload(world, #"{ name = "n", count = 1, ratio = 1e300, payload = "", tags = {"a"} }"#)
        #expect(huge.hasPrefix("EPARAMS|") && huge.contains("does not fit in Float"))
        // `{}` is an empty dict in Lua's conversion: an array field needs sb.array{}.
        let emptyTable = try upload(world, #"{ name = "n", count = 1, ratio = 1, payload = "", tags = {} }"#)
        #expect(emptyTable.hasPrefix("EPARAMS|") && emptyTable.contains("\"tags\": expected array, got dict"))
        #expect(try upload(world, #"{ name = "n", count = 1, ratio = 1, payload = "", tags = sb.array{} }"#)
                == "ok 0 1 ")
        // math.maxinteger fits Int; a missing key is named.
        #expect(try upload(world, #"{ name = "n", count = math.maxinteger, ratio = 1, payload = "", tags = {"a"} }"#)
                == "ok 0 \(Int.max) ")
        #expect(try upload(world, #"{ name = "n", ratio = 1, payload = "", tags = {"a"} }"#)
                .contains("\"count\" is missing"))
    }

    struct Chain: Codable { var next: [Chain] }

    @Test("tables nested to the conversion's limit decode; deeper ones are refused before the action (a Lua error)")
    func nestedFromLua() throws {
        let world = try World()
        try world.mediator.register(target: "Deep", action: "take") { params in
            _ = try params.decode(Chain.self)
            return true
        }
        // 200 containers in all: the params dict, then 99 × (array, dict) levels, the last array empty.
        let result = try world.lua("""
            local function chain(levels)
              local t = { next = sb.array{} }
              for _ = 1, levels do t = { next = { t } } end
              return t
            end
            local ok = sb.perform("Deep", "take", chain(99))
            local called, err = pcall(sb.perform, "Deep", "take", chain(150))
            return tostring(ok) .. "|" .. tostring(called) .. "|" .. tostring(err):match("nest deeper than SB_MAX_DEPTH")
            """)
        #expect(result == "true|false|nest deeper than SB_MAX_DEPTH")
    }
}

/// Hook ids a Lua script did not get from its own state: the host's
/// interceptor (an auth check, say) is not the script's to remove.
@Suite("Hostile Swift face: hook ids tried from Lua")
struct HostileHookIDsFromLuaTests {
    @Test("sb.unintercept and sb.unobserve of the host's hooks are ENOTFOUND, and the hooks keep running")
    func hostHooks() throws {
        let world = try World()
        try world.mediator.register(target: "Pay", action: "charge") { _ in "charged" }
        let auth = try world.mediator.addInterceptor(named: "auth") { call in
            call.params["user"] == nil ? .reject(.rejected("log in first")) : .proceed
        }
        let audit = try world.mediator.addObserver { _ in }
        let result = try world.lua("""
            local r1, m1, c1 = sb.unintercept(\(auth.rawValue))
            local r2, m2, c2 = sb.unobserve(\(audit.rawValue))
            -- Guessing every small number does no better.
            local removed = 0
            for id = 1, 10000 do
              if sb.unintercept(id) then removed = removed + 1 end
              if sb.unobserve(id) then removed = removed + 1 end
            end
            local own = sb.intercept(0, function() end)
            local r, m, c = sb.perform("Pay", "charge")
            return table.concat({ tostring(r1), tostring(c1), tostring(r2), tostring(c2), removed, tostring(r), tostring(c),
                                  tostring(sb.unintercept(own)) }, "|")
            """)
        #expect(result == "nil|ENOTFOUND|nil|ENOTFOUND|0|nil|EREJECTED|true")
        #expect(world.mediator.removeInterceptor(auth) && world.mediator.removeObserver(audit))
    }
}
