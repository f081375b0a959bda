#!/usr/bin/env bash
# The Swift package's public symbols, read from its symbol graph
# (`swift package dump-symbol-graph`), not from the sources:
# 1. every public symbol of Switchboard and SwitchboardSigning that has a
#    place in the sources has a doc comment: one without fails, named;
# 2. every public member of Mediator is one of the names generated Swift
#    wrappers avoid (SwiftWrappers.mediatorMembers), so no wrapper can take it.
# (The DocC catalogue, whose links name these symbols: scripts/check-docc.sh.)
#
#   scripts/check-docs.sh
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"
export LC_ALL=C  # comm and sort compare bytes

[ $# = 0 ] || sb_die "usage: scripts/check-docs.sh"

# The reader sees a missing comment: a doctored graph with one public symbol
# documented, one not, one the compiler made (no place in the sources) and
# one internal; only the second is named.
doctored=$(mktemp -d)
trap 'rm -rf "$doctored"' EXIT
cat > "$doctored/Switchboard.symbols.json" <<'JSON'
{"symbols": [
 {"accessLevel": "public", "kind": {"identifier": "swift.property"}, "pathComponents": ["A", "said"],
  "location": {"uri": "file:///a.swift"}, "docComment": {"lines": [{"text": "Said."}]}},
 {"accessLevel": "public", "kind": {"identifier": "swift.property"}, "pathComponents": ["A", "unsaid"],
  "location": {"uri": "file:///a.swift"}},
 {"accessLevel": "public", "kind": {"identifier": "swift.init"}, "pathComponents": ["A", "init(rawValue:)"]},
 {"accessLevel": "internal", "kind": {"identifier": "swift.property"}, "pathComponents": ["A", "own"],
  "location": {"uri": "file:///a.swift"}}
]}
JSON
seen=$(python3 scripts/lib/symbol-docs.py undocumented "$doctored" Switchboard)
[ "$seen" = "Switchboard swift.property A.unsaid" ] || sb_die "the symbol graph reader missed the doctored graph's undocumented symbol: $seen"

mkdir -p "$SB_ROOT/.build"
swift package dump-symbol-graph --skip-synthesized-members --skip-inherited-docs > "$SB_ROOT/.build/symbol-graph.log" 2>&1 \
  || { cat "$SB_ROOT/.build/symbol-graph.log"; sb_die "swift package dump-symbol-graph failed"; }
graphs=$(sed -nE 's/^Files written to (.*)$/\1/p' "$SB_ROOT/.build/symbol-graph.log" | tail -1)
[ -d "$graphs" ] || sb_die "dump-symbol-graph named no folder of symbol graphs"

now=$(python3 scripts/lib/symbol-docs.py undocumented "$graphs" Switchboard SwitchboardSigning)
[ -z "$now" ] || sb_die "public symbols without a doc comment (write one):"$'\n'"$now"
count=$(python3 scripts/lib/symbol-docs.py count "$graphs" Switchboard SwitchboardSigning)
echo "all $count public symbols of Switchboard and SwitchboardSigning have a doc comment"

members=$(python3 scripts/lib/symbol-docs.py members "$graphs" Mediator)
avoided=$(sed -n '/static let mediatorMembers/,/\]/p' Sources/SwitchboardWrappers/SwiftWrappers.swift | grep -oE '"[A-Za-z_]+"' | tr -d '"' | sort -u)
missing=$(comm -23 <(echo "$members") <(echo "$avoided") | sed '/^$/d')
[ -z "$missing" ] || sb_die "Mediator's public members that SwiftWrappers.mediatorMembers lacks (a wrapper could take them):"$'\n'"$missing"
echo "generated wrappers avoid all $(echo "$members" | wc -l) public member names of Mediator"
