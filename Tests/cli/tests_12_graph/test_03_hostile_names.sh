# Names in a trace that try to break out of DOT: every one stays a label, the
# DOT reads back to the same names, and Graphviz parses it to exactly the
# nodes and arrows meant.
$py "$here/hostile.py" write "$work/hostile.jsonl"
run hostile graph --from-trace "$work/hostile.jsonl"
check "hostile names: exit 0" status_is hostile 0
check "each name is one label, shown as it is (escapes visible, cut at 200 characters): 9 nodes, 9 arrows" \
  $py "$here/hostile.py" check "$work/hostile.tap"
if command -v dot > /dev/null && command -v gc > /dev/null; then
  check "Graphviz parses it (dot -Tsvg, no warning) to 9 nodes and 9 edges (gc): nothing injected" bash -c "
    dot -Tsvg '$work/hostile.tap' > '$work/hostile.svg' 2> '$work/dot.err' && [ ! -s '$work/dot.err' ] \
      && [ \"\$(gc -n -e '$work/hostile.tap' | awk '{print \$1, \$2}')\" = '9 9' ] \
      || { cat '$work/dot.err'; gc -n -e '$work/hostile.tap'; exit 1; }"
else
  echo "  skipped: Graphviz (dot, gc) is not installed; scripts/deps.sh installs the Debian package graphviz"
fi
row "switchboard graph over names that try to break out of DOT (quotes, backslashes, newlines, braces, DOT keywords, C0/C1 and bidi controls, bytes that are not UTF-8, 10,000 characters)" 10 \
  "each name one quoted label with visible escapes, cut at 200 characters; Graphviz reads exactly the nodes and edges meant"
