// swift-tools-version:6.0
// Switchboard: a Target-Action mediator for Swift, C and Lua.
//
// Layers (one direction of dependency only; see ../shared/ARCHITECTURE.md):
//   Switchboard     Swift core: Mediator, Value, Target, errors. No C, no Lua.
//   (later) SwitchboardC, SwitchboardLua, the switchboard command.
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "Switchboard", targets: ["Switchboard"]),
    ],
    targets: [
        .target(name: "Switchboard"),

        // The CTMediator demo, in Swift.
        .executableTarget(name: "SwitchboardDemo", dependencies: ["Switchboard"], path: "examples/swift"),

        // Two modules of targets found only by name, for discovery tests.
        .target(name: "FixtureTargetsA", dependencies: ["Switchboard"], path: "Tests/Fixtures/FixtureTargetsA"),
        .target(name: "FixtureTargetsB", dependencies: ["Switchboard"], path: "Tests/Fixtures/FixtureTargetsB"),
        .testTarget(name: "SwitchboardTests",
                    dependencies: ["Switchboard", "FixtureTargetsA", "FixtureTargetsB"]),
    ]
)
