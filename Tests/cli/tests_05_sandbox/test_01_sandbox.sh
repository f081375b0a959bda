# What the sandbox refuses, and --allow-os.
run sandbox run "${load[@]}" $scenarios/sandbox.lua
check "the sandbox refuses os.execute, io.popen, os.exit, loadlib, debug, load_plugin, binary chunks" status_is sandbox 0
run allow run --allow-os $scenarios/allow_os.lua
check "--allow-os lets a scenario run a command" status_is allow 0
run denied run $scenarios/allow_os.lua
check "... which is refused without it" has denied.tap 'os.execute is not available in scenarios (run with --allow-os'
