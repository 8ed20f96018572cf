// What the shim's C files share with each other (not part of the Swift API).
#ifndef CLUASHIM_INTERNAL_H
#define CLUASHIM_INTERNAL_H

#include <lua5.4/lua.h>

/// Counts `steps` of work done in C (matching steps) against the instruction budget of
/// the running slice and checks its wall-clock budget; past either, raises the state's
/// sticky kill exactly as the count hook does. Only from a C function called by Lua.
void lrt_charge(lua_State *L, long long steps);

/// Installs the budgeted pattern functions over `find`, `match`, `gmatch` and `gsub` of
/// the string table (the string metatable's `__index`, so methods use them too).
void lrt_install_patterns(lua_State *L);

#endif
