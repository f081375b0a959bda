// swift-tools-version:6.0
// Switchboard for Swift 6.0 and 6.1: the pure-Swift core alone.
//
// SwiftPM reads this manifest instead of Package.swift when its own version
// is older than Package.swift's tools version (6.2). Those versions cannot
// have the rest: the C library and the command carry linker flags that a
// versioned dependency may carry only from tools version 6.2 on, and package
// traits (which keep swift-crypto and swift-argument-parser away from an app
// that imports only Switchboard) come with 6.1's manifest API. So an app on
// Swift 6.0 or 6.1 gets the `Switchboard` product, with no dependency; the
// other products need Swift 6.2 or later.
//
// Checked here with Swift 6.3 only (scripts/check-swift-dependency.sh loads
// this manifest as a package's only manifest and builds its product); no
// Swift 6.0 or 6.1 toolchain has built it.
import PackageDescription

let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "Switchboard", targets: ["Switchboard"]),
    ],
    targets: [
        // No Foundation: URLs are parsed by the module's own single-pass parser.
        .target(name: "Switchboard"),
    ]
)
