// swift-tools-version:6.2
// Switchboard: a Target-Action mediator for Swift, C and Lua. License: MIT (LICENSE).
//
// Layers (one direction of dependency only; docs/internals.md says more):
//   Switchboard        Swift core: Mediator, Value, Target, errors. No C, no Lua,
//                      no swift-crypto.
//   SwitchboardSigning URLSigner: HMAC-SHA256 signed URLs (swift-crypto), a
//                      product of its own so `import Switchboard` stays light
//                      (package trait Signing)
//   CSwitchboard       the C header (include/switchboard.h) + C helpers inside the
//                      library (the C face's HMAC comes from the system's libcrypto,
//                      opened on first use: swift-crypto would bring BoringSSL and
//                      Foundation into libswitchboard.so and double its size)
//   SwitchboardC       @_cdecl exports implementing the header
//   SwitchboardLibrary the libswitchboard.so product (export list, SONAME)
//   SwitchboardLua     C glue: the Lua module, written against switchboard.h,
//                      switchboard_sys.h (the faces' entry points) and the Lua
//                      C API only (scripts/build.sh also builds it as
//                      switchboard.so for lua5.4)
//   SwitchboardRunner  C: fresh, limited, sandboxed Lua states for scenarios
//   SwitchboardCommand the `switchboard` command (swift-argument-parser;
//                      package trait Tools)
//   SwitchboardWrappers typed wrappers for Swift, C and Lua (`switchboard gen`),
//                      and the `switchboard-wrappers` command plugin, which
//                      reads Swift Target_ classes from their sources
//
// Traits: an app that needs only `Switchboard` depends with `traits: []`
// and resolves nothing else: swift-crypto and swift-argument-parser are
// used only by targets whose dependency on them is under a trait, and
// SwiftPM leaves out packages that no enabled target uses (docs/packaging.md,
// "A Swift user's dependency graph"). Both traits are on by default, so this
// repository's own builds and scripts need no flag. Package@swift-6.0.swift
// opens the core alone to Swift 6.0 and 6.1.
import PackageDescription
import Foundation

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

/// The ABI number in the SONAME; equals SB_ABI_VERSION in switchboard.h
/// (scripts/check-exports.sh checks it).
let abiVersion = 1

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "Switchboard", targets: ["Switchboard"]),
        // Signed URLs for Swift programs (URLSigner); the only product that
        // builds swift-crypto.
        .library(name: "SwitchboardSigning", targets: ["SwitchboardSigning"]),
        // libswitchboard.so for C programs, the Lua module and plugins.
        // Built for shipping by scripts/build.sh (release, static Swift runtime),
        // which stages libSwitchboardSharedLibrary.so as libswitchboard.so.
        // (Named `switchboard` before 2.0, a name that differed from the Swift
        // module's only in case.)
        .library(name: "SwitchboardSharedLibrary", type: .dynamic, targets: ["SwitchboardLibrary"]),
        // The C face and the Lua module linked into a program (the fuzzers in Tests/fuzz).
        .library(name: "SwitchboardC", targets: ["SwitchboardC", "CSwitchboard"]),
        .library(name: "SwitchboardLua", targets: ["SwitchboardLua"]),
        // The `switchboard` command (scripts/build.sh stages it as bin/switchboard).
        .executable(name: "switchboard-cli", targets: ["SwitchboardCommand"]),
        // `swift package switchboard-wrappers`: typed Swift wrappers for a
        // module's Target_ classes, from their sources (needs no trait).
        .plugin(name: "SwitchboardWrappersPlugin", targets: ["SwitchboardWrappersPlugin"]),
    ],
    traits: [
        .trait(name: "Signing", description: "SwitchboardSigning: signed URLs (brings swift-crypto)"),
        .trait(name: "Tools", description: "switchboard-cli, the switchboard command (brings swift-argument-parser)"),
        .default(enabledTraits: ["Signing", "Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // HMAC-SHA256 for signed URLs (URLSigner): HMAC<SHA256> and
        // SymmetricKey are in every release this range allows, so a package
        // that pins swift-crypto 3 can sit beside this one.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // No Foundation: URLs are parsed by the module's own single-pass parser.
        .target(name: "Switchboard", dependencies: ["CThreadRecord"]),
        // The calling thread's record in a thread-local variable (C: Swift has none).
        .target(name: "CThreadRecord"),
        .target(name: "SwitchboardSigning",
                dependencies: ["Switchboard", .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Signing"]))]),
        .target(name: "CSwitchboard", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "SwitchboardC", dependencies: ["Switchboard", "CSwitchboard"]),
        .target(
            name: "SwitchboardLibrary",
            dependencies: ["SwitchboardC"],
            exclude: ["exports.map"],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--version-script=\(root)/Sources/SwitchboardLibrary/exports.map",
                "-Xlinker", "-soname=libswitchboard.so.\(abiVersion)",
                // dlclose leaves it loaded: threads that used it run its
                // destructors when they exit, and the Swift runtime inside
                // cannot be unloaded (Tests/c/test_dlclose.c).
                "-Xlinker", "-z", "-Xlinker", "nodelete",
            ])]),

        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .target(
            name: "SwitchboardLua",
            dependencies: ["CSwitchboard", "CLua"],
            cSettings: [.define("_POSIX_C_SOURCE", to: "200809L")]),

        // The command: the runtime is linked in once and its sb_ functions are
        // exported (exports.list), so the plugins it loads bind to it.
        .target(
            name: "SwitchboardRunner",
            dependencies: ["CSwitchboard", "SwitchboardLua", "CLua"],
            cSettings: [.define("_POSIX_C_SOURCE", to: "200809L")]),
        // The wrapper generators (Swift, C, Lua) and the reader of Swift
        // Target_ classes: the core only, so the plugin's tool needs no trait.
        .target(name: "SwitchboardWrappers", dependencies: ["Switchboard"]),
        .executableTarget(name: "SwitchboardWrapperTool", dependencies: ["SwitchboardWrappers"]),
        .plugin(
            name: "SwitchboardWrappersPlugin",
            capability: .command(
                intent: .custom(verb: "switchboard-wrappers",
                                description: "Write typed Swift wrappers for the Target_ classes of a module"),
                permissions: [.writeToPackageDirectory(reason: "writes the generated wrappers into the package")]),
            dependencies: ["SwitchboardWrapperTool"]),
        .executableTarget(
            name: "SwitchboardCommand",
            dependencies: [
                "Switchboard", "SwitchboardC", "CSwitchboard", "SwitchboardRunner", "SwitchboardWrappers",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ],
            exclude: ["exports.list"],
            // The scenario API, a file per job (ScenarioAPI.swift puts them together).
            resources: ["show", "equality", "failures", "calls", "matchers", "scenarios", "output", "answers", "trace", "coverage",
                        "record", "control"]
                .map { .embedInCode("ScenarioAPI/\($0).lua") }
                // The replay's, in three parts (ReplayChunk.swift puts them together).
                + ["replay_values", "replay_steps", "replay"].map { .embedInCode("\($0).lua") },
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--dynamic-list=\(root)/Sources/SwitchboardCommand/exports.list",
            ])]),

        // The CTMediator demo, in Swift.
        .executableTarget(name: "SwitchboardDemo", dependencies: ["Switchboard"], path: "examples/swift"),
        // The Swift samples of docs/porting-from-ctmediator.md (scripts/check-samples.sh runs them).
        .executableTarget(name: "SwitchboardPorting", dependencies: ["Switchboard"], path: "examples/porting/swift"),
        // The Swift cases of scripts/bench.sh.
        .executableTarget(name: "SwitchboardBench", dependencies: ["Switchboard"], path: "bench/swift"),

        // Two modules of targets found only by name, for discovery tests.
        .target(name: "FixtureTargetsA", dependencies: ["Switchboard"], path: "Tests/Fixtures/FixtureTargetsA"),
        .target(name: "FixtureTargetsB", dependencies: ["Switchboard"], path: "Tests/Fixtures/FixtureTargetsB"),
        .testTarget(name: "SwitchboardTests",
                    dependencies: ["Switchboard", "SwitchboardSigning", "FixtureTargetsA", "FixtureTargetsB"]),
        // The rules of main-actor isolation, in a module whose code is
        // main-actor isolated by default (Swift 6.2's approachable concurrency).
        .testTarget(name: "SwitchboardIsolationTests", dependencies: ["Switchboard"],
                    swiftSettings: [.defaultIsolation(MainActor.self)]),
        // Top-level code picks the awaitable forms (scripts/test.sh runs it;
        // a warning fails its build).
        .executableTarget(name: "SwitchboardTopLevelAwait", dependencies: ["Switchboard"], path: "Tests/TopLevelAwait",
                          swiftSettings: [.treatAllWarnings(as: .error)]),

        // The C face from Swift: Swift targets and callbacks meeting C callers
        // and C functions in one process.
        .target(name: "CInteropHelpers", dependencies: ["CSwitchboard"], path: "Tests/CInteropHelpers"),
        .testTarget(name: "SwitchboardCTests",
                    dependencies: ["Switchboard", "SwitchboardC", "CSwitchboard", "CInteropHelpers", "SwitchboardSigning"]),
        // The stress run: threads mixing every kind of call, Swift and C.
        .executableTarget(
            name: "SwitchboardStress",
            dependencies: ["Switchboard", "SwitchboardC", "CSwitchboard", "CInteropHelpers",
                           .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "Tests/Stress"),
        // Swift, C and Lua in one process: the 3 × 3 matrix of callers and targets.
        .target(name: "LuaInteropHelpers", dependencies: ["CSwitchboard", "SwitchboardLua", "CLua"],
                path: "Tests/LuaInteropHelpers"),
        .testTarget(name: "SwitchboardLuaTests",
                    dependencies: ["Switchboard", "SwitchboardC", "CSwitchboard", "LuaInteropHelpers"]),

        // The reader of Swift Target_ classes and the Swift wrappers (names, access).
        .testTarget(name: "SwitchboardWrappersTests", dependencies: ["SwitchboardWrappers", "Switchboard"]),
    ]
)
