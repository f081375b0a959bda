/* Debian's liblua5.4-dev, through pkg-config lua5.4. */
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
