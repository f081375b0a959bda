// swift-tools-version:6.0
// libFuzzer targets for Switchboard. Built only by scripts/fuzz.sh, with
// `--sanitize=fuzzer --sanitize=address`: libFuzzer provides main(), so a
// plain `swift build` here would not link — which is why the fuzzers live in
// this package and not in the main one.
import PackageDescription

let package = Package(
    name: "SwitchboardFuzz",
    dependencies: [.package(name: "Switchboard", path: "../..")],
    targets: [
        .executableTarget(
            name: "URLFuzzer",
            dependencies: [.product(name: "SwitchboardC", package: "Switchboard")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        // Sequences of C API calls, checking invariants after each.
        .executableTarget(
            name: "CAPIFuzzer",
            dependencies: [.product(name: "SwitchboardC", package: "Switchboard")]),
        // One value model: dicts in every spelling and order, through C,
        // Swift (contracts, JSON), Lua and prepared routes, back identical.
        .executableTarget(
            name: "ValueOrderFuzzer",
            dependencies: [.product(name: "SwitchboardC", package: "Switchboard"),
                           .product(name: "SwitchboardLua", package: "Switchboard")]),
        // Lua tables to values and back, through the Lua module.
        .executableTarget(
            name: "LuaValueFuzzer",
            dependencies: [.product(name: "SwitchboardC", package: "Switchboard"),
                           .product(name: "SwitchboardLua", package: "Switchboard")]),
    ]
)
