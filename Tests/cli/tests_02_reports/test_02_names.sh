# Scenario names that look like TAP or XML syntax.
run names run "${load[@]}" --junit "$work/names.xml" $scenarios/names.lua
check "names with #, \\, newlines and XML characters survive TAP and JUnit" $py "$here/names.py" "$work/names.tap" "$work/names.xml"
check "'#' is escaped even after a prepended mark: prove sees no TODO hiding a failure" bash -c "
  prove --exec '$sb run --tap-version 13' $scenarios/names.lua 2>&1 | grep -q 'Failed tests:  1-2'"
