// swift-tools-version:6.2
// The DocC catalogue's package (scripts/check-docc.sh): it builds the
// documentation of the Switchboard module with swift-docc-plugin, and runs
// the Swift samples of its articles as tests. A package of its own, so that
// the plugin never becomes a dependency of Switchboard itself: an app that
// depends on Switchboard fetches nothing it does not use (issue 45).
import PackageDescription

let package = Package(
    name: "SwitchboardDocs",
    dependencies: [
        // The repository's package, with its traits off, as the README's
        // dependency line has it: Switchboard alone, nothing else fetched.
        .package(name: "switchboard", path: "../..", traits: []),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        // The articles' feature code: Target_ classes that callers name.
        .target(name: "Features", dependencies: [.product(name: "Switchboard", package: "switchboard")],
                swiftSettings: [.treatAllWarnings(as: .error)]),
        // The articles' calls, as tests. They link Features and never import it.
        // A warning in either fails the build: a sample compiles cleanly or not at all.
        .testTarget(name: "ArticleTests",
                    dependencies: ["Features", .product(name: "Switchboard", package: "switchboard")],
                    swiftSettings: [.treatAllWarnings(as: .error)]),
    ]
)
