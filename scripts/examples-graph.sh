#!/usr/bin/env bash
# The README's picture of who calls whom in the examples' run: the README's
# own lines (the block marked `run: scripts/examples-graph.sh draw`) run in
# a copy of the staged examples folder and make examples-graph.dot and .svg,
# which are committed as docs/images/examples-graph.dot and .svg.
#
#   scripts/examples-graph.sh           checks that the committed DOT is what
#                                       the lines make now, byte for byte, and
#                                       that the SVG is Graphviz's drawing of
#                                       that DOT (the same nodes, arrows and
#                                       texts; coordinates depend on fonts);
#                                       also runs docs/scenarios.md's graph
#                                       lines (`run: scripts/examples-graph.sh docs`)
#   scripts/examples-graph.sh --update  writes both files
#
# Needs scripts/build.sh first, and Graphviz's dot (scripts/deps.sh installs
# the Debian package graphviz).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

update=0
case "${1:-}" in
  "") ;;
  --update) update=1 ;;
  -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) sb_die "unknown option $1 (see --help)" ;;
esac

dist=.build/dist
[ -x "$dist/bin/switchboard" ] || sb_die "no $dist/bin/switchboard: run scripts/build.sh first"
command -v dot > /dev/null || sb_die "Graphviz's dot is not installed (the Debian package graphviz: scripts/deps.sh)"
export PATH="$SB_ROOT/$dist/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
images=docs/images

# fresh_examples: a copy of PREFIX/share/switchboard/examples to run lines in.
fresh_examples() {
  rm -rf "$tmp/examples"
  cp -R "$dist/share/switchboard/examples" "$tmp/examples"
}

fresh_examples
(cd "$tmp/examples" && bash -e <(sb_doc_block "$SB_ROOT/README.md" draw)) > "$tmp/draw.log" 2>&1 ||
  { cat "$tmp/draw.log" >&2; sb_die "README.md's graph lines failed"; }
for f in examples-graph.dot examples-graph.svg; do
  [ -s "$tmp/examples/$f" ] || sb_die "README.md's graph lines wrote no $f"
done

if [ $update = 1 ]; then
  mkdir -p "$images"
  cp "$tmp/examples/examples-graph.dot" "$tmp/examples/examples-graph.svg" "$images/"
  echo "wrote $images/examples-graph.dot and $images/examples-graph.svg"
  exit 0
fi

if ! diff -u "$images/examples-graph.dot" "$tmp/examples/examples-graph.dot" > "$tmp/dot.diff"; then
  cat "$tmp/dot.diff"
  sb_die "$images/examples-graph.dot is not what the examples' run draws now (- committed, + now): scripts/examples-graph.sh --update"
fi
# What an SVG shows, without where: its titles (node ids, "s1->n1_2") and texts.
shown() { python3 -c '
import re, sys, html
svg = open(sys.argv[1], encoding="utf-8").read()
for m in re.finditer(r"<(title|text)[^>]*>(.*?)</\1>", svg, re.S):
    print(m.group(1), html.unescape(m.group(2)))' "$1"; }
dot -Tsvg "$images/examples-graph.dot" > "$tmp/redrawn.svg"
if ! diff -u <(shown "$images/examples-graph.svg") <(shown "$tmp/redrawn.svg") > "$tmp/svg.diff"; then
  cat "$tmp/svg.diff"
  sb_die "$images/examples-graph.svg is not dot's drawing of $images/examples-graph.dot: scripts/examples-graph.sh --update"
fi

# docs/scenarios.md's lines: each writes what it says.
fresh_examples
(cd "$tmp/examples" && bash -e <(sb_doc_block "$SB_ROOT/docs/scenarios.md" docs)) > "$tmp/docs.log" 2>&1 ||
  { cat "$tmp/docs.log" >&2; sb_die "docs/scenarios.md's graph lines failed"; }
grep -q '^digraph calls {' "$tmp/examples/calls.dot" && grep -q '<svg' "$tmp/examples/calls.svg" &&
  grep -q 'label="Drafts' "$tmp/examples/lua_targets.dot" ||
  sb_die "docs/scenarios.md's graph lines did not write calls.dot, calls.svg and lua_targets.dot"

echo "$images/examples-graph.dot is what the examples' run draws; the SVG is its drawing; docs/scenarios.md's graph lines run"
