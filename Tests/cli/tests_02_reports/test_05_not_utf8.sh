# Text that is not UTF-8 in reports (issue 43, item 12).
run not_utf8 run --junit "$work/not_utf8.xml" $scenarios/not_utf8.lua
check "bytes that are not UTF-8 are shown as \\xHH in messages, errors and output (TAP and JUnit): \"\\xff\" and \"\\xfe\" differ" \
  $py "$here/not_utf8.py" "$work/not_utf8.tap" "$work/not_utf8.xml"
row "Expectation compares two strings that are not UTF-8 (\"\\xff\" against \"\\xfe\"); a scenario prints and raises bytes that are not UTF-8 (a lone byte, an overlong form, a surrogate)" 3 \
  "TAP and JUnit show each byte that is not part of a UTF-8 sequence as \\xHH, so the two sides differ visibly (both were U+FFFD); a long string is cut between characters"
