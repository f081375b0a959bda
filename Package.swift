// swift-tools-version:6.2
// Switchboard: a Target-Action mediator for Swift, C and Lua. License: MIT (LICENSE).
//
// Layers (one direction of dependency only; docs/internals.md says more):
//   Switchboard        Swift core: Mediator, Value, Target, errors. No C, no Lua,
//                      no swift-crypto.
//   SwitchboardSigning URLSigner: HMAC-SHA256 signed URLs (swift-crypto), a
//                      product of its own so `import Switchboard` stays light
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
//   SwitchboardCommand the `switchboard` command (swift-argument-parser)
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
        // Built for shipping by scripts/build.sh (release, static Swift runtime).
        .library(name: "switchboard", type: .dynamic, targets: ["SwitchboardLibrary"]),
        // The C face and the Lua module linked into a program (the fuzzers in Tests/fuzz).
        .library(name: "SwitchboardC", targets: ["SwitchboardC", "CSwitchboard"]),
        .library(name: "SwitchboardLua", targets: ["SwitchboardLua"]),
        // The `switchboard` command (scripts/build.sh stages it as bin/switchboard).
        .executable(name: "switchboard-cli", targets: ["SwitchboardCommand"]),
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
        .target(name: "Switchboard"),
        .target(name: "SwitchboardSigning",
                dependencies: ["Switchboard", .product(name: "Crypto", package: "swift-crypto")]),
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
        .executableTarget(
            name: "SwitchboardCommand",
            dependencies: [
                "Switchboard", "SwitchboardC", "CSwitchboard", "SwitchboardRunner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["exports.list"],
            resources: [.embedInCode("scenario_api.lua"), .embedInCode("replay.lua")],
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
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tests/Stress"),
        // Swift, C and Lua in one process: the 3 × 3 matrix of callers and targets.
        .target(name: "LuaInteropHelpers", dependencies: ["CSwitchboard", "SwitchboardLua", "CLua"],
                path: "Tests/LuaInteropHelpers"),
        .testTarget(name: "SwitchboardLuaTests",
                    dependencies: ["Switchboard", "SwitchboardC", "CSwitchboard", "LuaInteropHelpers"]),
    ]
)
