# --coverage and --coverage-json.
run coverage run "${load[@]}" --coverage --coverage-json "$work/coverage.json" --junit "$work/coverage.xml" $examples/scenarios/*.lua
check "--coverage lists the actions no scenario called and those reached only through a fallback: TAP comments, JSON, JUnit" \
  $py "$here/coverage.py" "$work/coverage.tap" "$work/coverage.json" "$work/coverage.xml" "$work/coverage.status"
run coverage_json run --coverage-json "$work/x.json" $scenarios/isolation.lua
check "--coverage-json without --coverage is a usage error" status_is coverage_json 64

# A copy: a target file that does not load is added to it, then removed.
cp -R Tests/cli/targets/evil "$work/evil_targets"
run evil_coverage run --targets "$work/evil_targets" --coverage --coverage-json "$work/evil_coverage.json" $scenarios/evil_coverage.lua
check "--coverage: action names with tabs, newlines, CR and Unicode twins neither forge TAP lines nor each other's status" \
  $py "$here/evil_coverage.py" "$work/evil_coverage.tap" "$work/evil_coverage.json" "$work/evil_coverage.status"
row "Coverage of a Lua target whose action names hold tabs, newlines with TAP lines after them, a CR, and Unicode twins (NFC, NFD)" 8 \
  "names travel escaped and are compared as bytes: each action gets its own status; TAP comments escape them (no forged line)"
printf 'error("boom at load")\n' > "$work/evil_targets/Target_Broken.lua"
run coverage_broken run --targets "$work/evil_targets" --coverage $scenarios/evil_coverage.lua
check "--coverage that cannot list the catalogue says so after the summary and exits 1" bash -c "
  [ \$(cat '$work/coverage_broken.status') = 1 ] && grep -q '^# 1 passed, 0 failed' '$work/coverage_broken.tap' \
    && grep -q '^# coverage: not made: .*boom at load' '$work/coverage_broken.tap' || { cat '$work/coverage_broken.tap'; exit 1; }"
rm "$work/evil_targets/Target_Broken.lua"
