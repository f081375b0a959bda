# SVG and PNG through Graphviz's dot (the Debian package graphviz, which
# scripts/deps.sh installs), and a clear error where it is not installed.
run record run "${load[@]}" --trace "$work/trace.jsonl" $scenarios/graph_calls.lua

# dot missing: a PATH without it. The command is named by its full path. The
# script's scenario fails: had it run, the command would say so.
mkdir -p "$work/nodot"
echo 'scenario("fails", function() expect(1).to_equal(2) end)' > "$work/fails.lua"
PATH="$work/nodot" run nodot graph "${load[@]}" -o "$work/calls.svg" "$work/fails.lua"
check "dot not installed, -o FILE.svg: exit 1, naming the Debian package graphviz, before any scenario runs" bash -c "
  [ \$(cat '$work/nodot.status') = 1 ] && grep -q \"svg needs Graphviz's dot program, which is not on PATH: install the Debian package graphviz\" '$work/nodot.err' \
    && [ ! -e '$work/calls.svg' ] && ! grep -q 'run did not pass' '$work/nodot.err' || { cat '$work/nodot.err'; exit 1; }"
PATH="$work/nodot" run nodot_png graph --format png --from-trace "$work/trace.jsonl"
check "dot not installed, --format png: the same error" bash -c "
  [ \$(cat '$work/nodot_png.status') = 1 ] && grep -q 'png needs Graphviz' '$work/nodot_png.err' && [ ! -s '$work/nodot_png.tap' ]"
PATH="$work/nodot" run nodot_dot graph --from-trace "$work/trace.jsonl"
check "dot not installed, DOT asked for: written as ever" bash -c "[ \$(cat '$work/nodot_dot.status') = 0 ] && grep -q '^digraph' '$work/nodot_dot.tap'"

# A dot that fails: its status is the command's failure, and no file is left.
printf '#!/bin/sh\necho "dot: broken" >&2\nexit 2\n' > "$work/nodot/dot"
chmod +x "$work/nodot/dot"
PATH="$work/nodot" run broken_dot graph --from-trace "$work/trace.jsonl" -o "$work/broken.svg"
check "a dot that fails: exit 1, saying so, no output file" bash -c "
  [ \$(cat '$work/broken_dot.status') = 1 ] && grep -q 'dot: broken' '$work/broken_dot.err' \
    && grep -q 'dot -Tsvg exited with status 2' '$work/broken_dot.err' && [ ! -e '$work/broken.svg' ] \
    && [ -z \"\$(ls -A '$work' | grep '^\.broken')\" ] || { cat '$work/broken_dot.err'; ls -A '$work'; exit 1; }"

if command -v dot > /dev/null; then
  run svg graph "${load[@]}" -o "$work/calls.svg" $scenarios/graph_calls.lua
  check "dot installed, -o FILE.svg: an SVG drawing with the targets and the counts" bash -c "
    [ \$(cat '$work/svg.status') = 0 ] && grep -q '<svg' '$work/calls.svg' && grep -q '>Shop<' '$work/calls.svg' \
      && grep -q '>whatever 1× (fallback)<' '$work/calls.svg' && [ ! -s '$work/svg.tap' ] || { cat '$work/svg.err'; exit 1; }"
  run svg_stdout graph "${load[@]}" --format svg --from-trace "$work/trace.jsonl"
  check "--format svg without -o: the SVG on standard output, the same drawing" cmp "$work/calls.svg" "$work/svg_stdout.tap"
  run png graph "${load[@]}" --from-trace "$work/trace.jsonl" -o "$work/calls.png"
  check "-o FILE.png: a PNG image" bash -c "
    [ \$(cat '$work/png.status') = 0 ] && [ \"\$(head -c 8 '$work/calls.png' | od -An -tx1 | tr -d ' \n')\" = 89504e470d0a1a0a ]"
else
  echo "  skipped: the SVG and PNG checks: Graphviz's dot is not installed (scripts/deps.sh installs the Debian package graphviz)"
fi
