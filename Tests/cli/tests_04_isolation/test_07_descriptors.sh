# A top level that uses every descriptor.
mkdir -p "$work/fds"
seq 1 10 > "$work/fds/data.txt"
cat > "$work/fds/exhaust.lua" <<'LUA'
files = {}
local dir = arg[0]:gsub("[^/]*$", "")
while true do local f = io.open(dir .. "data.txt") if not f then break end files[#files + 1] = f end
scenario("reads", function() expect(files[1]:read("l")).to_equal("1") end)
LUA
( ulimit -n 256; run exhaust run --junit "$work/fds/report.xml" "$work/fds/exhaust.lua" )
check "a top level that uses every descriptor: the runner says why its scenario cannot run; the JUnit report is still written" bash -c "
  grep -q 'could not tell that it runs one thread only (/proc/self/stat: Too many open files)' '$work/exhaust.err' \
    && grep -q 'cannot open .*exhaust.lua: Too many open files' '$work/exhaust.tap' \
    && grep -q 'testcase name=\"reads\"' '$work/fds/report.xml' || { cat '$work/exhaust.tap' '$work/exhaust.err'; exit 1; }"
row "Script's top level opens files until no descriptor is left (ulimit -n 256), with --junit" 1 \
  "each of its scenarios is an error saying so (no descriptor is left to run it), and stderr why; the JUnit report (open from the start) is written"
