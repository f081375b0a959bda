/// Lua files embedded in the command, put together into one chunk: after
/// `preamble`, each part becomes the body of a function called with
/// `arguments` (a Lua expression list), in order; the last one's result is
/// what the chunk returns. Used by ScenarioAPI and ReplayChunk.
enum LuaChunk {
    static func join(preamble: String, folder: String, parts: [(name: String, source: [UInt8])],
                     arguments: String) -> [UInt8] {
        var text = Array(preamble.utf8)
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            text += Array("do local function part(...) -- \(folder)\(part.name).lua\n".utf8)
            text += part.source
            text += Array("\nend \(last ? "return " : "")part(\(arguments)) end\n".utf8)
        }
        return text
    }
}
