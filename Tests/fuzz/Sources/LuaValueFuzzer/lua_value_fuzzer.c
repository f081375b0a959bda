/*
 * Fuzzes Lua <-> value conversion through the Lua module. The input drives a
 * Lua script (below) that builds one Lua value: nested tables with integer,
 * sparse, negative, float, boolean, string (NUL, invalid UTF-8), table and
 * function keys; cycles and shared subtables; metatables; huge strings;
 * integer and float edge cases; functions (callbacks); chains deeper than
 * SB_MAX_DEPTH. It is sent as params through a C echo target and through a
 * Lua echo target (Lua -> value -> Lua, and back again).
 *
 * Invariants: a conversion either succeeds or fails with a message (an error
 * from sb.perform, never a crash); what came back converts again to the same
 * thing (conversion is stable on its own output); the mediator still answers
 * afterwards. ASan checks memory and leaks; a Lua state is made and closed
 * per input, so whatever the module holds per state is freed each time.
 */
#include <switchboard.h>
#include <switchboard_lua.h>

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

static const char driver[] =
    "local sb, input = ...\n"
    "local pos = 1\n"
    "local function byte() local b = input:byte(pos) or 0; pos = pos + 1; return b end\n"
    "local function text(max) local n = byte() % (max + 1); local s = input:sub(pos, pos + n - 1); pos = pos + n; return s end\n"
    "local specials = { 0/0, 1/0, -1/0, -0.0, 0.5, math.maxinteger, math.mininteger, 2^53, 2^63, -2^63, 1e308, 5e-324 }\n"
    "local made, reused = {}, 0 -- shared subtables: few, since conversion copies each one again\n"
    "local build\n"
    "local function key(depth)\n"
    "  local k = byte() % 8\n"
    "  if k == 0 then return byte() - 128 end\n"
    "  if k == 1 then return byte() * 1000 end\n"
    "  if k == 2 then return byte() / 4 end\n"
    "  if k == 3 then return byte() % 2 == 0 end\n"
    "  if k == 4 then return {} end\n"
    "  if k == 5 then return print end\n"
    "  return text(12)\n"
    "end\n"
    "build = function(depth)\n"
    "  local k = byte() % 14\n"
    "  if k == 0 then return nil end\n"
    "  if k == 1 then return byte() % 2 == 0 end\n"
    "  if k == 2 then return (byte() - 128) << (byte() % 64) end\n"
    "  if k == 3 then return specials[byte() % #specials + 1] end\n"
    "  if k == 4 then return text(40) end\n"
    "  if k == 5 then return string.rep(text(3), byte() * 256) end\n"
    "  if k == 6 then return function(x) return x end end\n"
    "  if k == 7 then return sb.null end\n"
    "  if k == 8 and #made > 0 and reused < 2 then reused = reused + 1; return made[byte() % #made + 1] end\n"
    "  if k == 9 then local t = {}; local v = t; for _ = 1, byte() do v[1] = {}; v = v[1] end; return t end\n"
    "  if k == 10 then return sb.array({}) end\n"
    "  if depth > 6 then return byte() end\n"
    "  local t = {}\n"
    "  made[#made + 1] = t\n"
    "  if k == 11 then for i = 1, byte() % 16 do t[i] = build(depth + 1) end return t end\n"
    "  if k == 12 then setmetatable(t, { __index = function() return 1 end, __len = function() return 3 end }) end\n"
    "  for _ = 1, byte() % 8 do local kk = key(depth); if kk ~= nil then t[kk] = build(depth + 1) end end\n"
    "  return t\n"
    "end\n"
    "local function same(a, b, seen)\n"
    "  if a ~= a and b ~= b then return true end\n"
    "  if type(a) ~= type(b) then return false end\n"
    "  if type(a) ~= 'table' then return a == b or type(a) == 'function' end\n"
    "  if seen[a] then return true end\n"
    "  seen[a] = true\n"
    "  for k, v in pairs(a) do if not same(v, rawget(b, k), seen) then return false end end\n"
    "  for k in pairs(b) do if rawget(a, k) == nil then return false end end\n"
    "  return true\n"
    "end\n"
    "local value = build(0)\n"
    "for _, target in ipairs({ 'CEcho', 'LuaEcho' }) do\n"
    "  local ok, result, message = pcall(sb.perform, target, 'value', { value = value })\n"
    "  assert(ok or type(result) == 'string', 'a conversion error that is not a message')\n"
    "  if ok and result ~= nil then\n"
    "    local again, problem = sb.perform(target, 'value', { value = result })\n"
    "    assert(problem == nil, problem)\n"
    "    assert(same(result, again, {}), 'converting a converted value changed it')\n"
    "  elseif ok and message ~= nil then\n"
    "    assert(type(message) == 'string')\n"
    "  end\n"
    "end\n"
    "assert(sb.perform('CEcho', 'value', { value = 42 }) == 42, 'the mediator stopped answering')\n";

static sb_status echo(void *u, const sb_value *args, sb_value **out) {
    (void)u;
    *out = sb_value_retain(sb_dict_get(args, "value"));
    return SB_OK;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    sb_mediator *m = sb_mediator_new();
    if (m == NULL || sb_action_register(m, "CEcho", "value", echo, NULL, NULL) != SB_OK) abort();
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    if (luaL_loadbuffer(L, driver, sizeof driver - 1, "=driver") != LUA_OK) abort();
    sb_lua_open(L, m);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "sb");
    if (luaL_dostring(L, "sb.target('LuaEcho', { value = function(p) return p.value end })") != LUA_OK) abort();
    lua_pushlstring(L, (const char *)data, size);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        fprintf(stderr, "invariant failed: %s\n", lua_tostring(L, -1));
        abort();
    }
    lua_close(L);
    sb_mediator_free(m);
    return 0;
}
