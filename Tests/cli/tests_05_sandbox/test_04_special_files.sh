# Special files (a FIFO with no writer, /proc/self/maps, files that are not text) on every
# path the runner reads; --timeout and --grace bound the run that hung before.
special=$work/special
make_special_files "$special"
SB_SPECIAL_DIR=$special run special run --timeout 5 --grace 2 $scenarios/special_files.lua
check "FIFOs, /proc files and files that are not text are refused at once on every path; nothing is quoted" bash -c "
  [ \$(cat '$work/special.status') = 0 ] && [ \$(grep -c '^ok ' '$work/special.tap') = 7 ] \
    || { cat '$work/special.tap' '$work/special.err'; exit 1; }"
row "Scenario reads a special file: a FIFO with no writer (require, loadfile, dofile, io.open, io.lines, package.searchpath, sb.path), /proc/self/maps through sb.path, a file that is not text" 11 \
  "refused at once with an error naming the file; no content quoted; the run goes on"
# A name switched between a regular file and a FIFO by another process
# while io.lines and io.input open it: they read the descriptor they checked.
echo "swapped" > "$special/regular.txt"
ln -s regular.txt "$special/swap"
( end=$((SECONDS + 60)); cd "$special"
  while [ $SECONDS -lt $end ] && [ ! -e stop ]; do
    ln -sf fifo.lua swap.b && mv -T swap.b swap; ln -sf regular.txt swap.a && mv -T swap.a swap
  done ) &
swapper=$!
SB_SWAP=$special/swap run swapped run --timeout 10 --grace 2 $scenarios/swapped_names.lua
touch "$special/stop"; wait $swapper || true
check "io.lines and io.input on a name switched to a FIFO meanwhile never block" bash -c "
  [ \$(cat '$work/swapped.status') = 0 ] && grep -q '^ok 2 ' '$work/swapped.tap' || { cat '$work/swapped.tap'; exit 1; }"
row "Scenario opens a name with io.lines and io.input 20,000 times each while another process switches it between a regular file and a FIFO" 2 \
  "each opens the file once, checked by descriptor: a regular file is read, a FIFO refused; nothing blocks; the run goes on"
run special_script run "${load[@]}" --timeout 5 --grace 2 "$special/fifo.lua" $scenarios/isolation.lua
check "a script that is a FIFO is a usage error before anything runs (never opened)" bash -c "
  [ \$(cat '$work/special_script.status') = 64 ] && grep -q 'fifo.lua: not a regular file' '$work/special_script.err' \
    && [ ! -s '$work/special_script.tap' ] || { cat '$work/special_script.tap' '$work/special_script.err'; exit 1; }"
