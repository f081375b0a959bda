error("a Lua target is never run as a script")
