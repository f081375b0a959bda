#!/usr/bin/env bash
# THE test command: installs what is missing, builds, and runs every suite.
#
#   scripts/test.sh            everything
#
# On a fresh Debian machine as root it installs the packages it needs first
# (scripts/deps.sh). It never measures time: speed is scripts/bench.sh's job.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb_run "Dependencies" scripts/deps.sh
sb_run "Swift tests (Swift Testing)" swift test
# A second build folder, so the sanitized build never replaces the plain one.
sb_run "Swift tests under ThreadSanitizer" \
  swift test --scratch-path .build-tsan --sanitize=thread
sb_summary
