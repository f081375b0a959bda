#!/usr/bin/env bash
# Checks that every function the public headers declare follows the naming
# rule stated in include/switchboard.h ("Names"):
#
#   sb_<noun>[_<verb or part>[_<detail>...]]
#
# The noun is what the function acts on or makes; it comes first so that a
# header sorted by name groups each thing's functions. The nouns and the
# words that may follow them are listed below: a new function whose name uses
# a new word fails here until the word is added on purpose (and reviewed).
#
# Usage: scripts/check-names.sh [--help]
# Prints each name that breaks the rule and exits 1; exits 0 when none does.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

case "${1:-}" in
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) sb_die "unknown argument: $1 (see --help)" ;;
esac

# Things the interface acts on. Longest first, so "url_pattern" wins over
# "url" and "routes" over "route".
nouns="abi_version degrade_handler url_converter url_fallback url_pattern cancellation completion interceptor
discoverer callback contract mediator observer version routes service pointer action
string status memory plugin double target scheme rules route array class error bytes
value queue call dict json bool null int lua url"

# What may follow a noun: verbs (what is done to it) and parts (what is read
# of it: sb_call_target is a call's target).
words="action add allow answer append at bind call caller cancelled check clear decode define
encode equal evict fail free get interceptor json message n new number open params
perform prepare proceed redirect register reject release remove request requested
require retain set shared sign string succeed tag take target type unregister url
count load name lookup build dispatch fd pending post queue"

# follows NAME: whether NAME is sb_<noun> or sb_<noun>_<word>[_...].
follows() {
  local rest=${1#sb_} noun tail
  [ "$rest" != "$1" ] || return 1
  # Lower-case words joined by single underscores: no sb_value_get_, no
  # sb_value__get, no sb_valueGet.
  [[ "$rest" =~ ^[a-z0-9]+(_[a-z0-9]+)*$ ]] || return 1
  for noun in $nouns; do
    if [ "$rest" = "$noun" ]; then return 0; fi
    if [ "${rest#"${noun}"_}" != "$rest" ]; then
      tail=${rest#"${noun}"_}
      grep -qwF -- "${tail%%_*}" <<< "$words" && return 0
      return 1
    fi
  done
  return 1
}

# The checker must be able to fail: names that break the rule are refused.
for bad in sb_perform sb_add_observer sb_get_int sb_free sb_open_url sb_frobnicate sb_value_frob \
           sb_value_get_ sb_value__get sb_value_getInt sb_Value_get; do
  if follows "$bad"; then sb_die "the checker accepts $bad, which breaks the rule"; fi
done

# Every SB_API line declares one function on that line: the name is the
# identifier before its first "(", whatever its case or prefix, so that a name
# without sb_ or in camelCase is checked (and refused) rather than skipped. A
# declaration whose name is not on its SB_API line is refused too: this
# script could not check it. luaopen_switchboard is named by Lua's rule.
unreadable=$(grep -hE '^SB_API' include/switchboard.h include/switchboard_lua.h |
  grep -vE '^SB_API [^(]*\b[A-Za-z_][A-Za-z_0-9]*\(' || true)
[ -z "$unreadable" ] || sb_die "a declaration whose name is not on its SB_API line (write it on one line): $unreadable"
declared=$(grep -hE '^SB_API' include/switchboard.h include/switchboard_lua.h |
  sed -E 's/^SB_API [^(]*\b([A-Za-z_][A-Za-z_0-9]*)\(.*/\1/' | grep -vx luaopen_switchboard | sort -u)
broken=""
for name in $declared; do follows "$name" || broken+="$name "; done
[ -z "$broken" ] || sb_die "these functions do not read sb_<noun>_<verb> (include/switchboard.h, \"Names\"): $broken"
echo "every public function follows the naming rule: $(wc -w <<< "$declared") functions"
