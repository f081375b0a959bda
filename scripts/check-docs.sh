#!/usr/bin/env bash
# The Swift package's public symbols, read from its symbol graph
# (`swift package dump-symbol-graph`), not from the sources:
# 1. every public symbol of Switchboard and SwitchboardSigning that has a
#    place in the sources has a doc comment, but those listed in
#    docs/undocumented-symbols.txt, a list that only shrinks: a new
#    undocumented symbol fails, and so does a listed one that is documented
#    or gone (write the list again with --write, and say why in the commit);
# 2. every public member of Mediator is one of the names generated Swift
#    wrappers avoid (SwiftWrappers.mediatorMembers), so no wrapper can take it.
#
#   scripts/check-docs.sh [--write]
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"
export LC_ALL=C  # comm and sort compare bytes, as the list is sorted

write=false
case "${1:-}" in
  --write) write=true ;;
  "") ;;
  *) sb_die "usage: scripts/check-docs.sh [--write]" ;;
esac

mkdir -p "$SB_ROOT/.build"
swift package dump-symbol-graph --skip-synthesized-members --skip-inherited-docs > "$SB_ROOT/.build/symbol-graph.log" 2>&1 \
  || { cat "$SB_ROOT/.build/symbol-graph.log"; sb_die "swift package dump-symbol-graph failed"; }
graphs=$(sed -nE 's/^Files written to (.*)$/\1/p' "$SB_ROOT/.build/symbol-graph.log" | tail -1)
[ -d "$graphs" ] || sb_die "dump-symbol-graph named no folder of symbol graphs"

list=docs/undocumented-symbols.txt
now=$(python3 scripts/lib/symbol-docs.py undocumented "$graphs" Switchboard SwitchboardSigning)
if $write; then
  { echo "# Public symbols without a doc comment (scripts/check-docs.sh): document them and take them off."
    [ -z "$now" ] || echo "$now"; } > "$list"
  echo "wrote $list: $(grep -vc '^#' "$list" || true) symbols"
else
  listed=$(grep -v '^#' "$list" | sort || true)
  new=$(comm -13 <(echo "$listed") <(echo "$now") | sed '/^$/d')
  done_=$(comm -23 <(echo "$listed") <(echo "$now") | sed '/^$/d')
  [ -z "$new" ] || sb_die "public symbols without a doc comment (write one):"$'\n'"$new"
  [ -z "$done_" ] || sb_die "$list lists symbols that are documented or gone: take them off (scripts/check-docs.sh --write):"$'\n'"$done_"
  echo "every public symbol has a doc comment but the $(echo "$now" | sed '/^$/d' | wc -l) that $list lists"
fi

members=$(python3 scripts/lib/symbol-docs.py members "$graphs" Mediator)
avoided=$(sed -n '/static let mediatorMembers/,/\]/p' Sources/SwitchboardWrappers/SwiftWrappers.swift | grep -oE '"[A-Za-z_]+"' | tr -d '"' | sort -u)
missing=$(comm -23 <(echo "$members") <(echo "$avoided") | sed '/^$/d')
[ -z "$missing" ] || sb_die "Mediator's public members that SwiftWrappers.mediatorMembers lacks (a wrapper could take them):"$'\n'"$missing"
echo "generated wrappers avoid all $(echo "$members" | wc -l) public member names of Mediator"
