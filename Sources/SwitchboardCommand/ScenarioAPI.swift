/// The scenario API of `switchboard run` (scenario, step, expect and the
/// matchers), loaded into every scenario's Lua state before the script: Lua
/// source in ScenarioAPI/, a file per job, embedded in the command
/// (Package.swift) and put together here into the one chunk the runner
/// loads (sbr_config.prelude).
///
/// The chunk is called with the runner's helpers (now, wallclock, trace,
/// script, wait, coverage, file_methods) and returns the control table the
/// runner drives (Sources/SwitchboardRunner/runner.c). Each part is the body
/// of a function called with `api` (what the parts share: `api.state`, and
/// what each exports) and `helpers`, in the order below: a part uses what
/// the parts before it export. Every part captures the globals it uses when
/// it loads, before the script runs, so a script that replaces a global or
/// a string method cannot break the report.
enum ScenarioAPI {
    static let parts: [(name: String, source: [UInt8])] = [
        ("show", PackageResources.show_lua),           // values as Lua source, for messages
        ("equality", PackageResources.equality_lua),   // deep equality and differences
        ("failures", PackageResources.failures_lua),   // expectations that did not hold, where
        ("calls", PackageResources.calls_lua),         // sb.perform and sb.open: how the last call ended
        ("matchers", PackageResources.matchers_lua),   // expect(...) and the matchers
        ("scenarios", PackageResources.scenarios_lua), // scenario(), step()
        ("output", PackageResources.output_lua),       // print, io.write, the standard streams
        ("answers", PackageResources.answers_lua),     // what answered a call (--trace)
        ("trace", PackageResources.trace_lua),         // --trace
        ("coverage", PackageResources.coverage_lua),   // --coverage
        ("record", PackageResources.record_lua),       // --trace: what the script does, for replay
        ("control", PackageResources.control_lua),     // the runner's side; returns the control table
    ]

    static let source: [UInt8] = LuaChunk.join(preamble: """
            -- The scenario API of `switchboard run`, put together from
            -- Sources/SwitchboardCommand/ScenarioAPI/*.lua (ScenarioAPI.swift).
            local helpers = ...
            local api = { state = { scenarios = {} }, NAME_LIMIT = 1024 }
            -- As lua5.4 sets it: scripts find their fixtures next to themselves.
            arg = { [0] = helpers.script }

            """, folder: "ScenarioAPI/", parts: parts, arguments: "api, helpers")
}
