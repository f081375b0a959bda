# --version, and every example in every --help works.
check "--version prints the library version" bash -c "[ \"\$('$sb' --version)\" = \"\$(sed -nE 's/^#define SB_VERSION_STRING \"([^\"]+)\"/\\1/p' include/switchboard.h)\" ]"
for command in "" run call replay routes gen graph; do
  "$sb" $command --help > "$work/help.txt"
  grep -E '^ +\$ switchboard ' "$work/help.txt" | sed -E 's/^ +\$ //' > "$work/examples.txt"
  check "switchboard $command --help shows an example" test -s "$work/examples.txt"
  # An example wrapped by the help formatter would go on in the next line.
  check "switchboard $command --help: no example is wrapped" awk '
    prev && $0 !~ /^ *$/ && $0 !~ /^ +\$ / { print "wrapped after: " prev; bad = 1 }
    { prev = ($0 ~ /^ +\$ switchboard /) ? $0 : "" }
    END { exit bad }' "$work/help.txt"
  while IFS= read -r example; do
    rm -rf "$work/examples" && cp -R "$examples" "$work/examples"
    check "the example works: $example" bash -c "cd '$work/examples' && PATH='$(dirname "$sb"):$PATH' $example > /dev/null"
  done < "$work/examples.txt"
done
