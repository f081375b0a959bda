#!/usr/bin/env bash
# The DocC catalogue of the Switchboard module
# (Sources/Switchboard/Switchboard.docc: a landing page and an article per
# main task), built and checked from docs/docc, a package of its own that
# depends on this one by path (traits off) and on swift-docc-plugin, so the
# plugin never becomes a dependency of Switchboard (issue 45: an app that
# depends on Switchboard fetches nothing it does not use):
# 1. every Swift block of the articles is an excerpt of a file under
#    docs/docc (scripts/lib/samples.py check), and
# 2. those files build and pass as the docs package's tests (swift test):
#    the articles' code runs against the public API, as an app's would;
# 3. swift-docc-plugin builds the documentation with warnings treated as
#    errors, so a symbol link that does not resolve (in an article or in a
#    doc comment) fails.
# The plugin resolves from this machine's copy (git reads github.com from
# local folders), so nothing here needs the network.
#
#   scripts/check-docc.sh     (the archive: .build-docc/plugins/Swift-DocC/outputs/Switchboard.doccarchive)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

[ $# = 0 ] || sb_die "usage: scripts/check-docc.sh"
catalogue=Sources/Switchboard/Switchboard.docc
articles=("$catalogue"/*.md)
scratch="$SB_ROOT/.build-docc"
log="$SB_ROOT/.build/docc.log"
mkdir -p "$SB_ROOT/.build"
docs() { swift package --package-path docs/docc --scratch-path "$scratch" "$@"; }

# 1. Every Swift block is marked as an excerpt of a file the tests run.
python3 scripts/lib/samples.py check "${articles[@]}"
for doc in "${articles[@]}"; do
  while IFS= read -r file; do
    case "$file" in
      docs/docc/Sources/*|docs/docc/Tests/*) ;;
      *) sb_die "$doc quotes $file: the articles' code comes from docs/docc, whose tests run it" ;;
    esac
  done < <(python3 scripts/lib/samples.py files excerpt "$doc")
done

# 2. The articles' code, as tests (Swift Testing). Git may fetch from local
# folders only: the packages resolve without the network, and Switchboard
# (traits off) brings nothing but itself.
GIT_ALLOW_PROTOCOL=file GIT_TERMINAL_PROMPT=0 docs resolve > "$log" 2>&1 || { cat "$log"; sb_die "docs/docc did not resolve"; }
checkouts=$(ls "$scratch/checkouts" | tr '\n' ' ')
[ "$checkouts" = "swift-docc-plugin swift-docc-symbolkit " ] || sb_die "docs/docc fetched other packages: $checkouts"
swift test --package-path docs/docc --scratch-path "$scratch" > "$log" 2>&1 ||
  { cat "$log"; sb_die "the articles' samples failed (docs/docc/Tests)"; }
grep -E '^✔ Test run with [0-9]+ tests' "$log" || { cat "$log"; sb_die "the articles' tests ran no test"; }

# 3. The documentation, warnings as errors.
start=$SECONDS
docs generate-documentation --product Switchboard --warnings-as-errors > "$log" 2>&1 ||
  { cat "$log"; sb_die "the documentation did not build (warnings are errors: a broken link, say)"; }
archive="$scratch/plugins/Swift-DocC/outputs/Switchboard.doccarchive"
for page in callingbyname awaitingcalls declaringcontracts openingurls providingservices testingwithyourownmediator; do
  [ -s "$archive/data/documentation/switchboard/$page.json" ] || sb_die "the archive has no article $page"
done
echo "the DocC catalogue built in $((SECONDS - start)) s with no warning: ${#articles[@]} pages," \
  "$(find "$archive/data/documentation/switchboard" -name '*.json' | wc -l) pages of symbols and articles in $archive"
