#!/usr/bin/env bash
# Switchboard as a Swift user gets it: a throwaway clone of this repository's
# committed HEAD, tagged with the version in switchboard.h, is depended on BY
# VERSION (`from:`) from a scratch package whose targets use every library
# product. SwiftPM refuses unsafe build flags in a versioned dependency's
# products unless that package's tools-version allows them (6.2): resolving
# the package graph is the check. Then the scratch app that imports only
# `Switchboard` is built, and must not have built swift-crypto.
#
#   scripts/check-swift-dependency.sh [--time]   (--time: print the app's build time)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)
git clone -q --no-local "$SB_ROOT" "$tmp/switchboard"
git -C "$tmp/switchboard" -c user.name=check -c user.email=check@localhost tag -a "$version" -m "$version"

mkdir -p "$tmp/app/Sources/App" "$tmp/app/Sources/UsesSigning" "$tmp/app/Sources/UsesCFace"
cat > "$tmp/app/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(url: "file://$tmp/switchboard", from: "$version")],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "Switchboard", package: "switchboard")]),
        .target(name: "UsesSigning", dependencies: [.product(name: "SwitchboardSigning", package: "switchboard")]),
        .target(name: "UsesCFace", dependencies: [
            .product(name: "switchboard", package: "switchboard"),
            .product(name: "SwitchboardC", package: "switchboard"),
            .product(name: "SwitchboardLua", package: "switchboard"),
        ]),
        // The command (an executable product) as a plugin's tool.
        .plugin(name: "UsesCommand", capability: .command(intent: .custom(verb: "scenarios", description: "runs scenarios")),
                dependencies: [.product(name: "switchboard-cli", package: "switchboard")]),
    ]
)
SWIFT
cat > "$tmp/app/Sources/App/main.swift" <<'SWIFT'
import Switchboard

let mediator = Mediator()
try mediator.register(target: "Greeter", action: "hello") { params in
    .string("Hello, \(params["name"]?.string ?? "world")!")
}
print(await mediator.perform(target: "Greeter", action: "hello", params: ["name": "Ada"]).string ?? "nothing")
SWIFT
cat > "$tmp/app/Sources/UsesSigning/Signing.swift" <<'SWIFT'
import Switchboard
import SwitchboardSigning

public func requireSignedURLs(on mediator: Mediator, key: [UInt8]) throws {
    mediator.urlSigner = try URLSigner(key: key)
}
SWIFT
echo 'import SwitchboardC' > "$tmp/app/Sources/UsesCFace/CFace.swift"
mkdir -p "$tmp/app/Plugins/UsesCommand"
cat > "$tmp/app/Plugins/UsesCommand/plugin.swift" <<'SWIFT'
import PackagePlugin

@main struct UsesCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        print(try context.tool(named: "switchboard-cli").url.path)
    }
}
SWIFT

cd "$tmp/app"
swift package resolve > "$tmp/resolve.log" 2>&1 || { cat "$tmp/resolve.log"; sb_die "the scratch package did not resolve switchboard from: $version"; }
# Loading the package graph is where SwiftPM refuses a versioned
# dependency's unsafe flags ("the target ... contains unsafe build flags").
graph=$(swift package show-dependencies 2>&1) || { echo "$graph"; sb_die "SwiftPM refused the versioned dependency's products"; }
start=$SECONDS
swift build --build-path "$tmp/build" --product App > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; sb_die "the scratch app did not build"; }
seconds=$((SECONDS - start))
out=$("$tmp/build/debug/App")
[ "$out" = 'Hello, Ada!' ] || sb_die "the scratch app printed: $out"
if find "$tmp/build" -name '*.o' -path '*Crypto*' | grep -q .; then
  sb_die "building an app that imports only Switchboard compiled swift-crypto"
fi
echo "a versioned dependency on switchboard $version resolved and planned every library product;" \
  "an app importing Switchboard built without swift-crypto and ran"
[ "${1:-}" = --time ] && echo "the app's first debug build: ${seconds}s" && echo "$graph"
exit 0
