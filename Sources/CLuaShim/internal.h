// What the shim's C files share with each other (not part of the Swift API).
#ifndef CLUASHIM_INTERNAL_H
#define CLUASHIM_INTERNAL_H

#include "CLuaShim.h"

/// Counts `steps` of work done in C (matching steps) against the instruction budget of
/// the running slice and checks its wall-clock budget; past either, raises the state's
/// sticky kill exactly as the count hook does. Only from a C function called by Lua.
void lrt_charge(lua_State *L, long long steps);

/// Work done in C, counted in steps and charged (`lrt_charge`) every `check_steps` steps, so
/// the clock is read once per batch rather than at every step.
typedef struct lrt_meter {
    lua_State *L;
    long long check_steps;
    long long fuel;  ///< steps left before the next budget check
} lrt_meter;

static inline lrt_meter lrt_meter_start(lua_State *L, long long check_steps) {
    lrt_meter meter = {L, check_steps, check_steps};
    return meter;
}

/// Counts `steps`, and charges the batch when it is full (which may raise the kill).
static inline void lrt_meter_spend(lrt_meter *m, long long steps) {
    m->fuel -= steps;
    if (m->fuel > 0) return;
    long long spent = m->check_steps - m->fuel;
    m->fuel = m->check_steps;
    lrt_charge(m->L, spent);
}

/// Counts the steps since the last charge without checking (the next check sees them).
static inline void lrt_meter_finish(lrt_meter *m) {
    lrt_context_of(m->L)->instructions += m->check_steps - m->fuel;
    m->fuel = m->check_steps;
}

/// Installs the budgeted pattern functions over `find`, `match`, `gmatch` and `gsub` of
/// the string table (the string metatable's `__index`, so methods use them too).
void lrt_install_patterns(lua_State *L);

/// Installs the budgeted `string.rep`, `upper`, `lower`, `reverse` and `table.insert`,
/// `remove`, `move`, `concat`, `sort` (Sources/CLuaShim/library.c).
void lrt_install_library(lua_State *L);

#endif
