# Keeps a document's code samples true: a block is a file, shown verbatim
# after a marker comment, and what it prints is shown after another; or a
# script reads it by its marker and runs it. Source it after common.sh.
# scripts/lib/samples.py says what every marker means and checks them all;
# scripts/check-samples.sh runs the samples.
#
#   <!-- example: examples/c/hello.c -->     the next fenced block is that file
#   <!-- output: examples/c/hello.c ... -->  the next fenced block is what each
#                                            of those files prints when run
#   <!-- run: scripts/check-install.sh host -->   the next block is code that
#                                            script runs (sb_doc_block DOC host)

# sb_block_after DOC MARKER: the lines of the fenced block that opens on the
# line right after the line MARKER in DOC; nothing if no block opens there.
sb_block_after() {
  awk -v marker="$2" '
    state == 0 && $0 == marker { state = 1; next }
    state == 1 { if ($0 ~ /^```/) { state = 2; next } else exit }
    state == 2 && /^```/ { exit }
    state == 2 { print }' "$1"
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
