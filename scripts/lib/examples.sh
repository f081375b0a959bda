# Keeps a document's code samples true: each is a file, shown verbatim after a
# marker comment, and what it prints is shown after another. Source it after
# common.sh. Used by check-readme.sh and check-porting-guide.sh.
#
#   <!-- example: examples/c/hello.c -->     the next fenced block is that file
#   <!-- output: examples/c/hello.c ... -->  the next fenced block is what each
#                                            of those files prints when run

# sb_block_after DOC MARKER: the lines of the fenced block that opens on the
# line right after the line MARKER in DOC; nothing if no block opens there.
sb_block_after() {
  awk -v marker="$2" '
    state == 0 && $0 == marker { state = 1; next }
    state == 1 { if ($0 ~ /^```/) { state = 2; next } else exit }
    state == 2 && /^```/ { exit }
    state == 2 { print }' "$1"
}

# sb_shown DOC FILE: the block DOC shows as FILE.
sb_shown() {
  sb_block_after "$1" "<!-- example: $2 -->"
}

# sb_check_shown DOC FILE: fails unless DOC shows FILE exactly as it is.
sb_check_shown() {
  [ -f "$2" ] || sb_die "$1 shows $2, which does not exist"
  diff <(sb_shown "$1" "$2") "$2" > /dev/null || sb_die "$1 does not show $2 as it is (diff them)"
}

# sb_example_files DOC: the files DOC's example markers name, one a line.
sb_example_files() {
  sed -nE 's/^<!-- example: (.+) -->$/\1/p' "$1"
}

# sb_unmarked_blocks DOC LANG...: one line for each fenced block of a LANG
# that no example marker names, so none can be shown without being checked.
sb_unmarked_blocks() {
  local doc=$1
  shift
  awk -v langs=" $* " '
    /^```/ {
      if (!inside) {
        lang = substr($0, 4)
        if (lang != "" && index(langs, " " lang " ") && previous !~ /^<!-- example: .+ -->$/)
          printf "%s:%d: a ```%s block with no <!-- example: FILE --> marker above it\n", FILENAME, NR, lang
      }
      inside = !inside
    }
    { previous = $0 }' "$doc"
}

# sb_doc_block DOC ID: the block DOC marks `<!-- run: scripts/THIS ID -->`,
# THIS being the calling script (scripts/lib/samples.py checks that the
# script named in each such marker reads its block this way). Fails when
# DOC has no such block.
sb_doc_block() {
  local marker block
  marker="<!-- run: scripts/$(basename "$0") $2 -->"
  block=$(sb_block_after "$1" "$marker")
  [ -n "$block" ] || sb_die "$1 has no block marked $marker"
  printf '%s\n' "$block"
}
