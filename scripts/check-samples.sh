#!/usr/bin/env bash
# Every code sample in README.md and docs/*.md runs, or says why it cannot.
# scripts/lib/samples.py says what each block may be (a file shown as it is,
# an excerpt of one, what a program prints, a block a script runs, a Lua
# doctest, or marked "not runnable: REASON") and checks that each is one.
# Then this script runs them:
#
#   <!-- output: FILE -->   FILE runs and prints exactly the block:
#     examples/c/NAME.c            built against the staged library, run
#     examples/porting/swift/X     .build/release/SwitchboardPorting X
#     examples/porting/c/NAME.c    built, run in a folder holding the porting
#                                  plugins (c/Target_<Name>.c as Target_<Name>.so)
#     examples/porting/lua/NAME    lua5.4 NAME.lua in examples/porting/lua
#   <!-- example: FILE -->  FILE is run: by an output marker, or, for Lua, as
#                           a doctest (its --> comments); Target_* and .h
#                           files are what the programs use
#   <!-- excerpt: FILE -->  scenario files run under `switchboard run`; files
#                           under Tests/ run in their suites
#   ```lua (unmarked)       doctests, from a folder holding module_a.so (as
#                           PREFIX/share/switchboard/examples does) and
#                           examples/lua/reference/
#   <!-- run: scripts/check-samples.sh ID -->   the blocks below (gen, replay)
#
# Needs scripts/build.sh first.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/examples.sh"
cd "$SB_ROOT"

docs=(README.md docs/*.md)
dist=.build/dist
[ -d "$dist/lib" ] || sb_die "no $dist: run scripts/build.sh first"
python3 scripts/lib/samples.py check "${docs[@]}"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export PKG_CONFIG_PATH="$SB_ROOT/$dist/lib/pkgconfig"
export LUA_CPATH="$SB_ROOT/$dist/lib/lua/5.4/?.so;;"
export PATH="$SB_ROOT/$dist/bin:$PATH"
flags="-std=c99 -Wall -Wextra -Werror -pedantic"

# A folder like PREFIX/share/switchboard/examples (module_a.so, targets/,
# scenarios/), plus the reference's own files: where Lua samples run.
fresh_examples() {
  rm -rf "$out/examples"
  cp -R "$dist/share/switchboard/examples" "$out/examples"
  cp examples/lua/reference/* "$out/examples/"
}

# Build: the porting samples (a no-op after scripts/build.sh unless they
# changed), their C plugins (linking nothing of Switchboard) and programs,
# and the README's C programs.
swift build "${SB_RELEASE_FLAGS[@]}" --product SwitchboardPorting > "$out/swift-build.log" 2>&1 ||
  { cat "$out/swift-build.log" >&2; sb_die "the Swift samples do not build"; }
mkdir -p "$out/porting" "$out/c"
for source in examples/porting/c/*.c; do
  name=$(basename "$source" .c)
  case "$name" in
    Target_*) cc $flags -shared -fPIC "$source" $(pkg-config --cflags switchboard) -o "$out/porting/$name.so" ;;
    *) cc $flags "$source" $(pkg-config --cflags --libs switchboard) -o "$out/porting/$name" ;;
  esac
done
for source in $(python3 scripts/lib/samples.py files output "${docs[@]}" | grep '^examples/c/.*\.c$' | sort -u); do
  cc $flags "$source" $(pkg-config --cflags --libs switchboard) -o "$out/c/$(basename "$source" .c)"
done

# run FILE: runs the program FILE as the table above says.
run() {
  local name
  name=$(basename "${1%.*}")
  case "$1" in
    examples/porting/swift/*.swift) .build/release/SwitchboardPorting "$name" ;;
    examples/porting/c/*.c) (cd "$out/porting" && "./$name") ;;
    examples/porting/lua/*.lua) (cd examples/porting/lua && lua5.4 "$name.lua") ;;
    examples/c/*.c) (cd "$out/c" && "./$name") ;;
    *) sb_die "a doc shows output for $1, which no runner here knows" ;;
  esac
}

# Every program with an output block prints exactly that block.
ran=""
for doc in "${docs[@]}"; do
  while IFS= read -r marker; do
    for file in $(sed -E 's/^<!-- output: (.+) -->$/\1/' <<< "$marker"); do
      status=0
      run "$file" > "$out/printed" 2>&1 || status=$?
      [ "$status" = 0 ] || { cat "$out/printed" >&2; sb_die "$file failed (exit $status)"; }
      if ! diff <(sb_block_after "$doc" "$marker") "$out/printed" > "$out/diff"; then
        cat "$out/diff" >&2
        sb_die "$file does not print what $doc shows (< the doc, > the program)"
      fi
      ran+="$file"$'\n'
    done
  done < <(grep -E '^<!-- output: .+ -->$' "$doc")
done

# Every file shown is run: by its output block, or as a Lua doctest; every
# porting sample is shown.
shown=$(python3 scripts/lib/samples.py files example "${docs[@]}")
for file in $shown; do
  case "$(basename "$file")" in Target_*|*.h) continue ;; esac
  grep -qxF "$file" <<< "$ran" && continue
  if [[ "$file" == *.lua ]] && grep -q -- '--> ' "$file"; then
    fresh_examples
    python3 scripts/lib/samples.py doctest-file "$file" "$out/examples"
    ran+="$file"$'\n'
    continue
  fi
  sb_die "$file is shown, but no output block or --> comment says what it prints"
done
while IFS= read -r file; do
  grep -qxF "$file" <<< "$shown" || sb_die "docs/porting-from-ctmediator.md does not show $file"
done < <(find examples/porting -type f ! -path '*/generated/*' ! -path examples/porting/swift/main.swift | sort)

# Scenario files quoted in the docs pass.
for file in $(python3 scripts/lib/samples.py files excerpt "${docs[@]}" | grep '^examples/scenarios/' | sort -u); do
  fresh_examples
  (cd "$out/examples" && switchboard run --plugin ./module_a.so --targets targets "$SB_ROOT/$file" > "$out/tap" 2>&1) ||
    { cat "$out/tap" >&2; sb_die "$file, quoted in the docs, does not pass"; }
  ran+="$file"$'\n'
done

# The Lua doctests.
for doc in "${docs[@]}"; do
  fresh_examples
  python3 scripts/lib/samples.py doctest "$doc" "$out/examples" > "$out/doctest.log" ||
    { cat "$out/doctest.log"; sb_die "a Lua sample of $doc does not print what it says"; }
  grep -v ': 0 Lua samples' "$out/doctest.log" || true
done

# The README's `switchboard gen` lines write the files their comments name.
fresh_examples
(cd "$out/examples" && bash -e <(sb_doc_block "$SB_ROOT/README.md" gen)) > "$out/gen.log" 2>&1 || { cat "$out/gen.log" >&2; sb_die "README's gen lines failed"; }
for f in Mediator+A.swift sb_a.h sb_a.lua; do
  [ -s "$out/examples/generated/$f" ] || sb_die "README's gen lines wrote no generated/$f"
done
# docs/scenarios.md's record-then-replay lines: the replay finds nothing that differs.
fresh_examples
(cd "$out/examples" && bash -e <(sb_doc_block "$SB_ROOT/docs/scenarios.md" replay)) > "$out/replay.log" 2>&1 ||
  { cat "$out/replay.log" >&2; sb_die "docs/scenarios.md's record and replay lines failed"; }

# The checks fail when they should: a doctored doc with a sample printing
# another line, the sb.target sample of old (its notFound read p.action,
# which it never gets: EACTION), one that raises, one that never ends (as
# the luv loop of old did; with a short limit), a shell block that nothing
# runs and one shown from a file it does not match.
fresh_examples
cat > "$out/doctored.md" <<'DOC'
```lua
print(sb.perform("Nobody", "here"))   --> nil  no target named "Nobody"  ENOACTION
```

```lua
sb.target("Greeter", { notFound = function(p) return "no such action: " .. p.action end })
print(sb.perform("Greeter", "wave"))  --> no such action: wave
```

```lua
error("a sample that raises")
```

```lua
while true do sb.poll() end
```

```sh
rm -rf /
```

<!-- example: examples/c/hello.c -->
```c
int main(void) { return 0; }
```
DOC
SB_SAMPLE_TIMEOUT=2 python3 scripts/lib/samples.py doctest "$out/doctored.md" "$out/examples" > "$out/doctored.out" 2>&1 &&
  sb_die "the doctest passed a doctored doc"
python3 scripts/lib/samples.py check "$out/doctored.md" >> "$out/doctored.out" 2>&1 && sb_die "the check passed a doctored doc"
for want in "doctored.md:1: output line 1 differs" "doctored.md:5: output line 1 differs" "doctored.md:10: exit 1" \
    "doctored.md:14: did not end within 2 s" "doctored.md:18: a \`\`\`sh block that nothing runs" \
    "doctored.md:23: does not show examples/c/hello.c as it is"; do
  grep -qF "$want" "$out/doctored.out" || { cat "$out/doctored.out"; sb_die "the doctored doc failed without: $want"; }
done

echo "README.md and docs/: every block accounted for; $(grep -c . <<< "$ran") programs and files printed what the docs show"
