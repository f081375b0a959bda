#!/usr/bin/env bash
# Switchboard as a Swift user gets it, from a throwaway clone of this
# repository's committed HEAD (its branch `main` at HEAD; tagged with
# SB_VERSION_STRING, as a release will be):
#
# 1. The README's dependency line, as written there (the `.package(url:` line
#    of its "Swift" section, the URL replaced by the clone's), in an app of
#    two modules that never import each other: Feature (a Target_ class) and
#    App (calls it by name). It must resolve OFFLINE with only Switchboard:
#    git here may fetch from the clone only, with an empty SwiftPM cache, so
#    naming swift-crypto or swift-argument-parser fails the resolution. The
#    same line without `traits: []` must fail there (it needs swift-crypto):
#    that proves the check can fail. Then App builds from clean and runs,
#    having compiled only Switchboard, Feature and App.
#    The switchboard-wrappers command plugin then writes App's typed wrapper
#    for Feature's Target_Greeter, from Feature's sources, still offline, by
#    the README's command (its block marked "plugin"); App calls
#    mediator.greeterHello(name:) and prints the typed result.
# 2. A versioned dependency (`from:` the header's version, default traits)
#    from a package whose targets use every product: SwiftPM loads the graph
#    (it refuses unsafe build flags in a versioned dependency's products
#    unless that package's tools-version allows them: 6.2).
# 3. Package@swift-6.0.swift (Swift 6.0 and 6.1) loaded as a package's only
#    manifest by this toolchain: the Switchboard product, no dependency.
# (The version numbers themselves: scripts/check-versions.sh.)
#
#   scripts/check-swift-dependency.sh [--time]   (--time: print the build time and graph)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
version=$(sed -nE 's/^#define SB_VERSION_STRING "([^"]+)"/\1/p' include/switchboard.h)

git clone -q --no-local "$SB_ROOT" "$tmp/switchboard"
git -C "$tmp/switchboard" checkout -q -B main
git -C "$tmp/switchboard" -c user.name=check -c user.email=check@localhost tag -a "$version" -m "$version"

# 1. The README's line, offline.
line=$(grep -m1 -E '^\.package\(url: "<this repository>"' README.md) \
  || sb_die "README.md has no '.package(url: \"<this repository>\"' line"
line="${line%%//*}"
line="${line/<this repository>/file://$tmp/switchboard}"
line="${line%"${line##*[![:space:]]}"}"
line="${line%,}"
mkdir -p "$tmp/app/Sources/Feature" "$tmp/app/Sources/App"
write_manifest() {  # write_manifest DEPENDENCY_LINE
  cat > "$tmp/app/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [$1],
    targets: [
        // A feature: its target is found by name; nothing imports it.
        .target(name: "Feature", dependencies: [.product(name: "Switchboard", package: "switchboard")]),
        // The app: links Feature (so its class is there to be found), never imports it.
        .executableTarget(name: "App", dependencies: ["Feature", .product(name: "Switchboard", package: "switchboard")]),
    ]
)
SWIFT
}
cat > "$tmp/app/Sources/Feature/Greeter.swift" <<'SWIFT'
import Switchboard

final class Target_Greeter: Target {
    static let actions: Actions<Target_Greeter> = [
        "hello": { _, params in .string("Hello, \(params["name"]?.string ?? "world")!") },
    ]
    static let contracts: Contracts = ["hello": "name: string? -- who is greeted\n-> string"]
}
SWIFT
cat > "$tmp/app/Sources/App/App.swift" <<'SWIFT'
import Switchboard

@main
struct App {
    static func main() async throws {
        let mediator = Mediator(modules: ["Feature"])
        let answer = try await mediator.call(target: "Greeter", action: "hello", params: ["name": "Ada"])
        print(answer.string ?? "no string")
    }
}
SWIFT
# Offline: no system git configuration (it maps github.com to local copies),
# only file:// fetches, an empty SwiftPM cache.
offline() {
  (cd "$tmp/app" && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_ALLOW_PROTOCOL=file GIT_TERMINAL_PROMPT=0 \
    "$@" --cache-path "$tmp/cache" --scratch-path "$tmp/build")
}
[[ "$line" == *', traits: []'* ]] || sb_die "README.md's line does not turn the traits off (traits: []): $line"
write_manifest "${line/, traits: \[\]/}"
if offline swift package resolve > "$tmp/resolve.log" 2>&1; then
  sb_die "the README's line without traits: [] resolved offline: this check would not see swift-crypto"
fi
grep -q 'swift-crypto\|swift-argument-parser' "$tmp/resolve.log" \
  || { cat "$tmp/resolve.log"; sb_die "without traits: [], resolving failed for another reason than swift-crypto"; }
rm -rf "$tmp/build" "$tmp/cache" "$tmp/app/Package.resolved"
write_manifest "$line"
offline swift package resolve > "$tmp/resolve.log" 2>&1 \
  || { cat "$tmp/resolve.log"; sb_die "the README's line did not resolve offline: $line"; }
checkouts=$(ls "$tmp/build/checkouts")
[ "$checkouts" = switchboard ] || sb_die "the README's line fetched more than switchboard: $checkouts"
start=$SECONDS
offline swift build --product App > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; sb_die "the app did not build"; }
seconds=$((SECONDS - start))
out=$("$tmp/build/debug/App")
[ "$out" = 'Hello, Ada!' ] || sb_die "the app printed: $out"
modules=$(cd "$tmp/build/debug/Modules" && ls -- *.swiftmodule | sed 's/\.swiftmodule$//' | sort | tr '\n' ' ')
[ "$modules" = "App Feature Switchboard " ] || sb_die "building the app compiled more than Switchboard: $modules"
echo "the README's line ($line) resolved offline with only switchboard;" \
  "an app of two modules importing only Switchboard built and ran"

# 1b. The command plugin, as the README runs it: App's typed wrappers, from
# Feature's sources (the offline options go before the plugin's arguments).
plugin_line=$(cd "$SB_ROOT" && sb_doc_block README.md plugin | head -1)
[[ "$plugin_line" == "swift package "* ]] || sb_die "README.md's plugin block does not start with swift package: $plugin_line"
read -ra plugin_args <<< "${plugin_line#swift package }"
(cd "$tmp/app" && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_ALLOW_PROTOCOL=file GIT_TERMINAL_PROMPT=0 \
  swift package --cache-path "$tmp/cache" --scratch-path "$tmp/build" "${plugin_args[@]}") > "$tmp/plugin.log" 2>&1 \
  || { cat "$tmp/plugin.log"; sb_die "the switchboard-wrappers plugin failed"; }
wrapper="$tmp/app/Sources/App/Generated/Switchboard/Mediator+Greeter.swift"
grep -q '^    func greeterHello(name: String? = nil,$' "$wrapper" \
  || { cat "$tmp/plugin.log" "$wrapper"; sb_die "the plugin did not write greeterHello(name:) into App"; }
sed -i 's/print(answer.string ?? "no string")/print(answer.string ?? "no string", try mediator.greeterHello(name: "Grace"))/' \
  "$tmp/app/Sources/App/App.swift"
offline swift build --product App > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; sb_die "the app did not build with its wrapper"; }
out=$("$tmp/build/debug/App")
[ "$out" = 'Hello, Ada! Hello, Grace!' ] || sb_die "the app with its wrapper printed: $out"
echo "the switchboard-wrappers plugin wrote App's typed wrapper from Feature's sources; App called it"

# 2. Every product, by version.
mkdir -p "$tmp/all/Sources/UsesCore" "$tmp/all/Sources/UsesSigning" "$tmp/all/Sources/UsesCFace" "$tmp/all/Plugins/UsesCommand"
cat > "$tmp/all/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "All",
    dependencies: [.package(url: "file://$tmp/switchboard", from: "$version")],
    targets: [
        .target(name: "UsesCore", dependencies: [.product(name: "Switchboard", package: "switchboard")]),
        .target(name: "UsesSigning", dependencies: [.product(name: "SwitchboardSigning", package: "switchboard")]),
        .target(name: "UsesCFace", dependencies: [
            .product(name: "SwitchboardSharedLibrary", package: "switchboard"),
            .product(name: "SwitchboardC", package: "switchboard"),
            .product(name: "SwitchboardLua", package: "switchboard"),
        ]),
        // The command (an executable product) as a plugin's tool.
        .plugin(name: "UsesCommand", capability: .command(intent: .custom(verb: "scenarios", description: "runs scenarios")),
                dependencies: [.product(name: "switchboard-cli", package: "switchboard")]),
    ]
)
SWIFT
echo 'import Switchboard' > "$tmp/all/Sources/UsesCore/Core.swift"
cat > "$tmp/all/Sources/UsesSigning/Signing.swift" <<'SWIFT'
import Switchboard
import SwitchboardSigning

public func requireSignedURLs(on mediator: Mediator, key: [UInt8]) throws {
    mediator.urlSigner = try URLSigner(key: key)
}
SWIFT
echo 'import SwitchboardC' > "$tmp/all/Sources/UsesCFace/CFace.swift"
cat > "$tmp/all/Plugins/UsesCommand/plugin.swift" <<'SWIFT'
import PackagePlugin

@main struct UsesCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        print(try context.tool(named: "switchboard-cli").url.path)
    }
}
SWIFT
cd "$tmp/all"
swift package resolve > "$tmp/resolve-all.log" 2>&1 || { cat "$tmp/resolve-all.log"; sb_die "a package did not resolve switchboard from: $version"; }
# Loading the package graph is where SwiftPM refuses a versioned
# dependency's unsafe flags ("the target ... contains unsafe build flags").
graph=$(swift package show-dependencies 2>&1) || { echo "$graph"; sb_die "SwiftPM refused the versioned dependency's products"; }
echo "a versioned dependency on switchboard $version (default traits) resolved and planned every product"

# 3. The manifest for Swift 6.0 and 6.1, as this toolchain reads it.
mkdir -p "$tmp/six/Sources"
cp "$SB_ROOT/Package@swift-6.0.swift" "$tmp/six/Package.swift"
ln -s "$SB_ROOT/Sources/Switchboard" "$tmp/six/Sources/Switchboard"
described=$(cd "$tmp/six" && swift package dump-package 2>&1) || { echo "$described"; sb_die "Package@swift-6.0.swift does not load"; }
python3 - "$described" <<'PY' || sb_die "Package@swift-6.0.swift is not the core alone"
import json, sys
p = json.loads(sys.argv[1])
assert p["toolsVersion"]["_version"] == "6.0.0", p["toolsVersion"]
assert [x["name"] for x in p["products"]] == ["Switchboard"], p["products"]
assert p["dependencies"] == [], p["dependencies"]
PY
echo "Package@swift-6.0.swift loads (tools version 6.0): the Switchboard product, no dependency (not built by a 6.0 or 6.1 toolchain here)"
if [ "${1:-}" = --time ]; then
  echo "the two-module app's clean debug build: ${seconds}s"
  echo "$graph"
fi
exit 0
