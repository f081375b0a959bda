#!/usr/bin/env bash
# The main job: builds everything in release mode and runs the demo.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$SB_ROOT"

sb_step "Building (release)"
scripts/deps.sh
swift build -c release --product SwitchboardDemo

sb_step "The CTMediator demo, in Swift"
.build/release/SwitchboardDemo
