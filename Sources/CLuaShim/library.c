// The standard-library C functions of a confined state whose work is not bounded by the
// size of their input: `string.rep`, `table.insert`, `remove`, `move`, `concat` and `sort`
// loop as many times as their arguments (or a `__len` metamethod) say, and a count hook
// never fires inside a C function. These versions count their work as they go (one step
// per element or per 64 bytes, whichever is more) and charge it to the state's budgets
// every LIB_CHECK_STEPS steps (`lrt_charge`), so a loop in C ends with the same sticky
// kill, time limit or stop request as a loop of instructions. `string.upper`, `lower` and
// `reverse` charge their bytes, and `lrt_read_chunk` reads `load`'s pieces into the state's
// own (limited) memory. Results and error messages are those of the stock functions:
// Tests/LuaRuntimeTests/LibraryBudgetTests.swift runs the same calls in both.

#include "CLuaShim.h"
#include "internal.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

/// Steps between two budget checks.
#define LIB_CHECK_STEPS 1024
/// Bytes of work counted as one step.
#define LIB_BYTES_PER_STEP 64
/// The longest string `string.rep` makes (stock Lua's limit).
#define LIB_MAX_REP ((size_t)INT_MAX)

// MARK: - Metering

typedef lrt_meter lib_meter;

static lib_meter meter_start(lua_State *L) { return lrt_meter_start(L, LIB_CHECK_STEPS); }
static void meter_spend(lib_meter *m, long long steps) { lrt_meter_spend(m, steps); }
static void meter_finish(lib_meter *m) { lrt_meter_finish(m); }

static long long byte_steps(size_t bytes) {
    long long steps = (long long)(bytes / LIB_BYTES_PER_STEP);
    return steps > 0 ? steps : 1;
}

// MARK: - Tables

enum { TABLE_READ = 1, TABLE_WRITE = 2, TABLE_LENGTH = 4 };

static int has_metafield(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    int found = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 1);
    return found;
}

/// Argument `arg` is a table, or a value whose metatable has the metamethods `needs` asks
/// for (raw fields, so no metamethod runs).
static void check_table_like(lua_State *L, int arg, int needs) {
    if (lua_type(L, arg) == LUA_TTABLE) return;
    int fits = 0;
    if (lua_getmetatable(L, arg)) {
        fits = (!(needs & TABLE_READ) || has_metafield(L, "__index")) &&
               (!(needs & TABLE_WRITE) || has_metafield(L, "__newindex")) &&
               (!(needs & TABLE_LENGTH) || has_metafield(L, "__len"));
        lua_pop(L, 1);
    }
    if (!fits) luaL_checktype(L, arg, LUA_TTABLE);
}

static lua_Integer length_of(lua_State *L, int arg, int needs) {
    check_table_like(L, arg, needs | TABLE_LENGTH);
    return luaL_len(L, arg);
}

/// t[to] = t[from] for the table at stack index 1.
static void copy_element(lib_meter *m, lua_Integer from, lua_Integer to) {
    meter_spend(m, 1);
    lua_geti(m->L, 1, from);
    lua_seti(m->L, 1, to);
}

static int lib_insert(lua_State *L) {
    lua_Integer first_empty = luaL_intop(+, length_of(L, 1, TABLE_READ | TABLE_WRITE), 1);
    lua_Integer position = first_empty;
    switch (lua_gettop(L)) {
        case 2:
            break;
        case 3: {
            position = luaL_checkinteger(L, 2);
            luaL_argcheck(L, (lua_Unsigned)position - 1u < (lua_Unsigned)first_empty, 2, "position out of bounds");
            lib_meter meter = meter_start(L);
            for (lua_Integer i = first_empty; i > position; i--) copy_element(&meter, i - 1, i);
            meter_finish(&meter);
            break;
        }
        default:
            return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, position);
    return 0;
}

static int lib_remove(lua_State *L) {
    lua_Integer size = length_of(L, 1, TABLE_READ | TABLE_WRITE);
    lua_Integer position = luaL_optinteger(L, 2, size);
    if (position != size) {
        // Lua 5.4.4 names argument 1 here; so does this, to give the same message.
        luaL_argcheck(L, (lua_Unsigned)position - 1u <= (lua_Unsigned)size, 1, "position out of bounds");
    }
    lua_geti(L, 1, position);
    lib_meter meter = meter_start(L);
    for (; position < size; position++) copy_element(&meter, position + 1, position);
    meter_finish(&meter);
    lua_pushnil(L);
    lua_seti(L, 1, position);
    return 1;
}

static int lib_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2);
    lua_Integer last = luaL_checkinteger(L, 3);
    lua_Integer target = luaL_checkinteger(L, 4);
    int destination = lua_isnoneornil(L, 5) ? 1 : 5;
    check_table_like(L, 1, TABLE_READ);
    check_table_like(L, destination, TABLE_WRITE);
    if (last >= first) {
        luaL_argcheck(L, first > 0 || last < LUA_MAXINTEGER + first, 3, "too many elements to move");
        lua_Integer count = last - first + 1;
        luaL_argcheck(L, target <= LUA_MAXINTEGER - count + 1, 4, "destination wrap around");
        // Upwards unless the ranges overlap in the same table with the target inside.
        int upwards = target > last || target <= first || (destination != 1 && !lua_compare(L, 1, destination, LUA_OPEQ));
        lib_meter meter = meter_start(L);
        for (lua_Integer k = 0; k < count; k++) {
            lua_Integer offset = upwards ? k : count - 1 - k;
            meter_spend(&meter, 1);
            lua_geti(L, 1, first + offset);
            lua_seti(L, destination, target + offset);
        }
        meter_finish(&meter);
    }
    lua_pushvalue(L, destination);
    return 1;
}

static void add_element(lib_meter *m, luaL_Buffer *buffer, lua_Integer i) {
    lua_State *L = m->L;
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1), (LUAI_UACINT)i);
    }
    size_t length;
    lua_tolstring(L, -1, &length);
    meter_spend(m, byte_steps(length));
    luaL_addvalue(buffer);
}

static int lib_concat(lua_State *L) {
    lua_Integer last = length_of(L, 1, TABLE_READ);
    size_t separator_length;
    const char *separator = luaL_optlstring(L, 2, "", &separator_length);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    lib_meter meter = meter_start(L);
    for (; i < last; i++) {
        add_element(&meter, &buffer, i);
        luaL_addlstring(&buffer, separator, separator_length);
    }
    if (i == last) add_element(&meter, &buffer, i);
    meter_finish(&meter);
    luaL_pushresult(&buffer);
    return 1;
}

// MARK: - Sorting

// A quicksort over t[lo..up] (t at stack index 1, the order function or nil at index 2):
// the median of three elements is the pivot, and the two scans of a partition stop at the
// range's ends, so an order function that is not a strict order ends in an error instead
// of a scan past the range.

typedef struct lib_sorter {
    lib_meter meter;
    int has_order;
} lib_sorter;

/// Whether the value at stack index `a` sorts before the one at `b` (absolute indices).
static int sorts_before(lib_sorter *s, int a, int b) {
    lua_State *L = s->meter.L;
    meter_spend(&s->meter, 1);
    if (!s->has_order) return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a);
    lua_pushvalue(L, b);
    lua_call(L, 2, 1);
    int before = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return before;
}

static void push_element(lib_sorter *s, lua_Integer i) {
    meter_spend(&s->meter, 1);
    lua_geti(s->meter.L, 1, i);
}

/// Stores the top value in t[i] and the one below it in t[j] (both popped).
static void store_two(lua_State *L, lua_Integer i, lua_Integer j) {
    lua_seti(L, 1, i);
    lua_seti(L, 1, j);
}

/// Puts t[i] and t[j] in order (i < j).
static void order_pair(lib_sorter *s, lua_Integer i, lua_Integer j) {
    lua_State *L = s->meter.L;
    push_element(s, i);
    push_element(s, j);
    int top = lua_gettop(L);
    if (sorts_before(s, top, top - 1)) {
        store_two(L, i, j);
    } else {
        lua_pop(L, 2);
    }
}

/// Partitions t[lo..up] around the pivot on top of the stack, which is also at t[up - 1],
/// with t[lo] and t[up] already on the correct sides. Returns the pivot's final place; the
/// pivot is popped.
static lua_Integer partition(lib_sorter *s, lua_Integer lo, lua_Integer up) {
    lua_State *L = s->meter.L;
    int pivot = lua_gettop(L);
    lua_Integer i = lo, j = up - 1;
    for (;;) {
        for (;;) {
            push_element(s, ++i);
            if (!sorts_before(s, pivot + 1, pivot)) break;
            if (i == up - 1) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        for (;;) {
            push_element(s, --j);
            if (!sorts_before(s, pivot, pivot + 2)) break;
            if (j < i) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        if (j < i) {
            lua_pop(L, 1);                // t[j]
            store_two(L, up - 1, i);      // t[up - 1] = t[i], t[i] = pivot
            return i;
        }
        store_two(L, i, j);  // t[i] = t[j], t[j] = t[i]
    }
}

static void sort_range(lib_sorter *s, lua_Integer lo, lua_Integer up) {
    lua_State *L = s->meter.L;
    while (lo < up) {
        order_pair(s, lo, up);
        if (up - lo == 1) return;
        lua_Integer middle = lo + (up - lo) / 2;
        push_element(s, middle);
        push_element(s, lo);
        int top = lua_gettop(L);
        if (sorts_before(s, top - 1, top)) {
            store_two(L, middle, lo);
        } else {
            lua_pop(L, 1);
            push_element(s, up);
            if (sorts_before(s, top, top - 1)) {
                store_two(L, middle, up);
            } else {
                lua_pop(L, 2);
            }
        }
        if (up - lo == 2) return;
        push_element(s, middle);       // the pivot
        lua_pushvalue(L, -1);
        push_element(s, up - 1);
        store_two(L, middle, up - 1);  // t[middle] = t[up - 1], t[up - 1] = pivot
        lua_Integer p = partition(s, lo, up);
        // The smaller side recursively (a depth of at most log2 of the length), the larger
        // in this loop.
        if (p - lo < up - p) {
            sort_range(s, lo, p - 1);
            lo = p + 1;
        } else {
            sort_range(s, p + 1, up);
            up = p - 1;
        }
    }
}

static int lib_sort(lua_State *L) {
    lua_Integer length = length_of(L, 1, TABLE_READ | TABLE_WRITE);
    if (length > 1) {
        luaL_argcheck(L, length < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        luaL_checkstack(L, 40, "too many nested sorts");
        lib_sorter sorter = {meter_start(L), !lua_isnil(L, 2)};
        sort_range(&sorter, 1, length);
        meter_finish(&sorter.meter);
    }
    return 0;
}

// MARK: - Strings

static int lib_rep(lua_State *L) {
    size_t length, separator_length;
    const char *text = luaL_checklstring(L, 1, &length);
    lua_Integer count = luaL_checkinteger(L, 2);
    const char *separator = luaL_optlstring(L, 3, "", &separator_length);
    size_t unit = length + separator_length;
    if (count <= 0 || unit == 0) {  // an empty unit repeats to "" at once
        lua_pushliteral(L, "");
        return 1;
    }
    if (unit < length || unit > LIB_MAX_REP / (lua_Unsigned)count) {
        return luaL_error(L, "resulting string too large");
    }
    size_t total = (size_t)count * length + (size_t)(count - 1) * separator_length;
    luaL_Buffer buffer;
    char *out = luaL_buffinitsize(L, &buffer, total);  // within the memory limit, so the copy is bounded
    lib_meter meter = meter_start(L);
    meter_spend(&meter, byte_steps(total));
    meter_finish(&meter);
    for (lua_Integer k = 0; k < count; k++) {
        memcpy(out, text, length);
        out += length;
        if (k + 1 < count && separator_length > 0) {
            memcpy(out, separator, separator_length);
            out += separator_length;
        }
    }
    luaL_pushresultsize(&buffer, total);
    return 1;
}

/// Argument 1's bytes, `transform`ed one by one into a new string of the same length (its
/// bytes counted against the budgets). `reversed` writes them in reverse order.
static int copy_string(lua_State *L, int (*transform)(int), int reversed) {
    size_t length;
    const char *text = luaL_checklstring(L, 1, &length);
    lib_meter meter = meter_start(L);
    meter_spend(&meter, byte_steps(length));
    meter_finish(&meter);
    luaL_Buffer buffer;
    char *out = luaL_buffinitsize(L, &buffer, length);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[reversed ? length - 1 - i : i];
        out[i] = (char)(transform ? transform(c) : c);
    }
    luaL_pushresultsize(&buffer, length);
    return 1;
}

static int lib_upper(lua_State *L) { return copy_string(L, toupper, 0); }
static int lib_lower(lua_State *L) { return copy_string(L, tolower, 0); }
static int lib_reverse(lua_State *L) { return copy_string(L, NULL, 1); }

// MARK: - load's reader

int lrt_read_chunk(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    lib_meter meter = meter_start(L);
    for (;;) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pushnil(L);
            lua_pushboolean(L, 0);
            return 2;
        }
        size_t length;
        lua_tolstring(L, -1, &length);
        if (length == 0) {
            lua_pop(L, 1);
            break;
        }
        meter_spend(&meter, byte_steps(length));
        luaL_addvalue(&buffer);
    }
    meter_finish(&meter);
    luaL_pushresult(&buffer);
    lua_pushboolean(L, 1);
    return 2;
}

// MARK: - Installing

void lrt_install_library(lua_State *L) {
    static const luaL_Reg string_functions[] = {
        {"rep", lib_rep}, {"upper", lib_upper}, {"lower", lib_lower}, {"reverse", lib_reverse}, {NULL, NULL},
    };
    static const luaL_Reg table_functions[] = {
        {"insert", lib_insert}, {"remove", lib_remove}, {"move", lib_move},
        {"concat", lib_concat}, {"sort", lib_sort},     {NULL, NULL},
    };
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, LUA_STRLIBNAME);
    luaL_setfuncs(L, string_functions, 0);
    lua_pop(L, 1);
    lua_getfield(L, -1, LUA_TABLIBNAME);
    luaL_setfuncs(L, table_functions, 0);
    lua_pop(L, 2);
}
