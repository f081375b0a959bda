/// The Lua side of `switchboard replay`: replay_values.lua (trace lines
/// read back, values written for comparison), replay_steps.lua (the steps
/// of a trace of format 2 done again) and replay.lua (the function each
/// line is handed to), embedded in the command (Package.swift) and put
/// together here into the one chunk replay.c loads. The chunk is called
/// with the trace's JSON writer, wait(fd) and the names of the steps a
/// trace records (ScenarioAPI/record.lua); each part is the body of a
/// function called with `replay` (what the parts share) and those two; the
/// last returns the function.
enum ReplayChunk {
    static let parts: [(name: String, source: [UInt8])] = [
        ("replay_values", PackageResources.replay_values_lua),
        ("replay_steps", PackageResources.replay_steps_lua),
        ("replay", PackageResources.replay_lua),
    ]

    static let source: [UInt8] = LuaChunk.join(preamble: """
            -- `switchboard replay`, put together from Sources/SwitchboardCommand/replay*.lua
            -- (ReplayChunk.swift).
            local json, wait, recorded = ...
            local replay = { json = json }

            """, folder: "", parts: parts, arguments: "replay, wait, recorded")
}
