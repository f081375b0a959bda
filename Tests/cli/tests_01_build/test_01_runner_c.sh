# The runner's C builds with the project's strict flags on its own (the
# package builds it with SwiftPM's).
for file in Sources/SwitchboardRunner/*.c; do
  check "$file compiles with -std=c99 -Wall -Wextra -Werror -pedantic" \
    cc -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -fsyntax-only -I include \
      -I Sources/SwitchboardRunner/include -I Sources/CSwitchboard/include -I Sources/SwitchboardLua/include $(pkg-config --cflags lua5.4) "$file"
done
