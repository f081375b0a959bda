import ArgumentParser

/// What every subcommand loads: C plugins and Lua target directories. Each
/// path is checked before anything runs, so a wrong one is a usage error
/// (exit 64) naming the option, not a failure of every script.
struct LoadOptions: ParsableArguments {
    @Option(name: .customLong("plugin"), help: ArgumentHelp(
        "A C plugin (a shared object exporting Target_<Name> tables) to load. Repeatable.",
        valueName: "path"))
    var plugins: [String] = []

    @Option(name: .customLong("targets"), help: ArgumentHelp(
        "A directory of Lua targets (Target_<Name>.lua files), found by name on first use. Repeatable.",
        valueName: "dir"))
    var targetDirectories: [String] = []

    func validate() throws {
        guard DeferredValidation.now else { return }
        for path in plugins { try PathCheck.sharedObject(path, option: "--plugin") }
        for path in targetDirectories { try PathCheck.directory(path, option: "--targets") }
    }
}

/// What the limits apply to, in each subcommand's help.
protocol LimitSubject {
    /// "a scenario": the subject of "Seconds ... may run".
    static var subject: String { get }
    /// What --grace ends.
    static var graceEnds: String { get }
}

enum ScenarioLimits: LimitSubject {
    static var subject: String { "a scenario" }
    static var graceEnds: String {
        "a scenario's own process (reported as a limit), or the whole run with exit status 3 (a script's top level)"
    }
}

enum CallLimits: LimitSubject {
    static var subject: String { "the --setup script, and the Lua code the call runs," }
    static var graceEnds: String { "the command, with exit status 3" }
}

enum LoadingLimits: LimitSubject {
    static var subject: String { "the --setup script, and the Lua targets loaded," }
    static var graceEnds: String { "the command, with exit status 3" }
}

/// The limits for scripts that may be untrusted. Each has a default, so an
/// unattended run always ends. Generic only for the help texts: `call` runs
/// no scenario, and its help says so.
struct LimitOptions<Subject: LimitSubject>: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Seconds \(Subject.subject) may run (0: no limit).",
        valueName: "seconds"))
    var timeout: Double = 60

    @Option(help: ArgumentHelp("Lua VM instructions \(Subject.subject) may run (0: no limit).", valueName: "count"))
    var maxInstructions: UInt64 = 1_000_000_000

    @Option(help: ArgumentHelp("MiB of memory the Lua state of \(Subject.subject) may use (0: no limit).", valueName: "MiB"))
    var maxMemory: Int = 256

    @Option(help: ArgumentHelp(
        "Seconds past --timeout before code stuck in C (where no limit can interrupt it) ends \(Subject.graceEnds).",
        valueName: "seconds"))
    var grace: Double = 10

    @Flag(help: "Lift the sandbox: os.execute, io.popen, os.exit, package.loadlib, C modules, sb.load_plugin, writing files, the debug library (docs/scenarios.md).")
    var allowOS = false

    init() {}

    func validate() throws {
        guard DeferredValidation.now else { return }
        guard timeout >= 0, timeout <= 1e6 else { throw ValidationError("--timeout must be between 0 and 1e6 seconds") }
        guard grace > 0, grace <= 1e6 else { throw ValidationError("--grace must be more than 0 and at most 1e6 seconds") }
        guard maxMemory >= 0, maxMemory <= 1 << 30 else { throw ValidationError("--max-memory must be between 0 and 2^30 MiB") }
    }
}

/// What `call` and `routes` may run before they act.
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A Lua file to run first, to register targets, schemes, route patterns or a policy.",
        valueName: "file"))
    var setup: String?

    func validate() throws {
        guard DeferredValidation.now else { return }
        if let setup { try PathCheck.readableFile(setup, what: "--setup \(setup)") }
    }
}

/// Which scenarios a run runs (run, graph): name patterns and tags.
struct SelectionOptions: ParsableArguments {
    @Option(name: .customLong("filter"), help: ArgumentHelp(
        "Run only the scenarios whose name or script path matches this regular expression (case-insensitive). Repeatable: any may match.",
        valueName: "regex"))
    var filters: [String] = []

    @Option(name: .customLong("filter-out"), help: ArgumentHelp(
        "Leave out the scenarios whose name or script path matches this regular expression (case-insensitive). Repeatable.",
        valueName: "regex"))
    var filtersOut: [String] = []

    @Option(name: .customLong("tag"), help: ArgumentHelp(
        "Run only the scenarios with this tag (scenario(name, {tags = {...}}, fn)). Repeatable, or several separated by commas: any may match.",
        valueName: "tag"))
    var tags: [String] = []

    @Option(name: .customLong("exclude-tag"), help: ArgumentHelp(
        "Leave out the scenarios with this tag. Repeatable, or several separated by commas.",
        valueName: "tag"))
    var excludedTags: [String] = []

    /// Whether any option was given.
    var given: Bool { !(filters.isEmpty && filtersOut.isEmpty && tags.isEmpty && excludedTags.isEmpty) }

    func selection() throws -> Selection {
        try Selection(filters: filters, filtersOut: filtersOut, tags: tags, excludedTags: excludedTags)
    }
}
