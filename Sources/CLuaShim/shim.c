#include "CLuaShim.h"
#include "internal.h"
#include <malloc.h>
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static lrt_swift_dispatch swift_dispatch = NULL;

// Unique addresses used as registry keys.
static char async_marker_key;
static char instruction_error_key;
static char time_error_key;
static char memory_error_key;
static char stopped_error_key;

void lrt_set_dispatch(lrt_swift_dispatch dispatch) { swift_dispatch = dispatch; }

void *lrt_async_marker(void) { return &async_marker_key; }

double lrt_monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

lrt_context *lrt_context_of(lua_State *L) { return *(lrt_context **)lua_getextraspace(L); }

// MARK: - Allocator

void lrt_map_large_blocks(size_t bytes) { mallopt(M_MMAP_THRESHOLD, (int)(bytes > (size_t)INT32_MAX ? INT32_MAX : bytes)); }

void lrt_limit_arenas(int most) { mallopt(M_ARENA_MAX, most < 1 ? 1 : most); }

static void *lrt_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lrt_context *c = (lrt_context *)ud;
    size_t old = ptr ? osize : 0;  // when ptr is NULL, osize is a type tag
    lrt_pool *pool = c->pool;
    if (nsize == 0) {
        lrt_block_free(ptr, old);
        c->memory_used -= old;
        if (pool) __atomic_fetch_sub(&pool->used, old, __ATOMIC_RELAXED);
        return NULL;
    }
    if (c->memory_limit && !c->host_active && nsize > old &&
        c->memory_used - old + nsize > c->memory_limit) {
        c->memory_limit_hit = 1;
        return NULL;
    }
    if (pool && pool->limit && !c->host_active && nsize > old &&
        __atomic_load_n(&pool->used, __ATOMIC_RELAXED) + (nsize - old) > pool->limit) {
        __atomic_store_n(&pool->exceeded, 1, __ATOMIC_RELAXED);
        c->memory_limit_hit = 1;
        return NULL;
    }
    void *p = ptr ? lrt_block_resize(ptr, old, nsize) : lrt_block_alloc(nsize);
    if (p == NULL) return NULL;
    c->memory_used = c->memory_used - old + nsize;
    if (c->memory_used > c->memory_peak) c->memory_peak = c->memory_used;
    if (pool) {
        if (nsize > old) __atomic_fetch_add(&pool->used, nsize - old, __ATOMIC_RELAXED);
        else __atomic_fetch_sub(&pool->used, old - nsize, __ATOMIC_RELAXED);
    }
    return p;
}

// MARK: - Budgets

static void raise_registry_error(lua_State *L, void *key, const char *fallback) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, key) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushstring(L, fallback);
    }
    lua_error(L);
}

// Adds `spent` instructions (or matching steps) to the slice and reads the clock: whether a
// budget has run out (the reason is kept in `killed`, sticky).
static int budget_exhausted(lrt_context *c, long long spent) {
    if (c->killed != LRT_KILL_NONE) return 1;
    if (__atomic_load_n(&c->stop_requested, __ATOMIC_RELAXED)) {
        c->killed = LRT_KILL_STOPPED;
        return 1;
    }
    c->instructions += spent;
    if (c->instruction_limit > 0 && c->instructions > c->instruction_limit) {
        c->killed = LRT_KILL_INSTRUCTIONS;
        return 1;
    }
    if (c->time_limit > 0) {
        double now = c->clock ? c->clock(c->owner) : lrt_monotonic_seconds();
        if (c->slice_started == 0) c->slice_started = now;
        if (now - c->slice_started > c->time_limit) {
            c->killed = LRT_KILL_TIME;
            return 1;
        }
    }
    return 0;
}

static void lrt_hook(lua_State *L, lua_Debug *ar);

// Raises the kill, and from now on every instruction of this thread raises again.
static void raise_kill(lua_State *L) {
    lua_sethook(L, lrt_hook, LUA_MASKCOUNT, 1);
    if (lrt_context_of(L)->killed == LRT_KILL_STOPPED) {
        raise_registry_error(L, &stopped_error_key, "the state was stopped");
    } else if (lrt_context_of(L)->killed == LRT_KILL_TIME) {
        raise_registry_error(L, &time_error_key, "time limit exceeded");
    } else {
        raise_registry_error(L, &instruction_error_key, "instruction limit exceeded");
    }
}

static void lrt_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lrt_context *c = lrt_context_of(L);
    if (budget_exhausted(c, c->killed == LRT_KILL_NONE ? c->hook_interval : 0)) raise_kill(L);
}

void lrt_charge(lua_State *L, long long steps) {
    if (budget_exhausted(lrt_context_of(L), steps)) raise_kill(L);
}

void lrt_request_stop(lrt_context *context) {
    __atomic_store_n(&context->stop_requested, 1, __ATOMIC_RELAXED);
}

void lrt_begin_slice(lua_State *L) {
    lrt_context *c = lrt_context_of(L);
    c->instructions = 0;
    c->slice_started = 0;  // the clock is read at the first check, keeping resumes cheap
}

void lrt_reset_hook(lua_State *L) {
    lrt_context *c = lrt_context_of(L);
    if (c->killed == LRT_KILL_NONE) lua_sethook(L, lrt_hook, LUA_MASKCOUNT, c->hook_interval);
}

lua_State *lrt_newstate(lrt_context *context) {
    context->host_active = 1;
    if (context->hook_interval <= 0) context->hook_interval = 1000;
    lua_State *L = lua_newstate(lrt_alloc, context);
    if (L == NULL) return NULL;
    *(lrt_context **)lua_getextraspace(L) = context;
    lua_sethook(L, lrt_hook, LUA_MASKCOUNT, context->hook_interval);
    return L;
}

// MARK: - Calling Swift

static int async_continue(lua_State *L, int status, lua_KContext base) {
    (void)status;
    int first = (int)base + 1;  // the resume values: ok flag, then results or the error
    if (!lua_toboolean(L, first)) {
        lua_pushvalue(L, first + 1);
        return lua_error(L);
    }
    return lua_gettop(L) - first;
}

/// Collects a small state that has grown by a quarter since it was last collected here
/// (LRT_WAITING_COLLECT_MAX), as it suspends on an async call.
static void collect_while_waiting(lua_State *L, lrt_context *c) {
    if (c->memory_used > LRT_WAITING_COLLECT_MAX) return;
    if (c->memory_used < c->waiting_collected) c->waiting_collected = c->memory_used;
    if (c->memory_used - c->waiting_collected < c->waiting_collected / 4) return;
    lua_gc(L, LUA_GCCOLLECT, 0);
    c->waiting_collected = c->memory_used;
}

static int trampoline(lua_State *L) {
    lrt_context *c = lrt_context_of(L);
    void *box = lua_touserdata(L, lua_upvalueindex(1));
    int saved = c->host_active;
    c->host_active = 1;
    int n = swift_dispatch(L, box);
    c->host_active = saved;
    if (c->memory_limit && c->memory_used > c->memory_limit && !saved) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        if (c->memory_used > c->memory_limit) {
            c->memory_limit_hit = 1;
            raise_registry_error(L, &memory_error_key, "not enough memory");
        }
    }
    if (n >= 0) return n;
    if (n == LRT_RAISE) return lua_error(L);
    collect_while_waiting(L, c);
    int base = lua_gettop(L);
    lua_pushlightuserdata(L, &async_marker_key);
    return lua_yieldk(L, 1, (lua_KContext)base, async_continue);
}

void lrt_push_swift_function(lua_State *L, void *box) {
    lua_pushlightuserdata(L, box);
    lua_pushcclosure(L, trampoline, 1);
}

// MARK: - Running Lua

int lrt_resume(lua_State *co, lua_State *from, int nargs, int *nresults) {
    lrt_context *c = lrt_context_of(co);
    int saved = c->host_active;
    c->host_active = 0;
    if (c->lua_depth++ == 0) lrt_begin_slice(co);  // a nested run shares its caller's budget
    int status = lua_resume(co, from, nargs, nresults);
    c->lua_depth--;
    c->host_active = saved;
    return status;
}

static int traceback_handler(lua_State *L) {
    // Keep structured (non-string) error values intact; tracebacks are taken separately.
    const char *message = lua_tostring(L, 1);
    if (message == NULL) return 1;
    luaL_traceback(L, L, message, 1);
    return 1;
}

int lrt_pcall(lua_State *L, int nargs, int nresults) {
    lrt_context *c = lrt_context_of(L);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    int saved = c->host_active;
    c->host_active = 0;
    if (c->lua_depth++ == 0) lrt_begin_slice(L);
    int status = lua_pcall(L, nargs, nresults, base);
    c->lua_depth--;
    c->host_active = saved;
    lua_remove(L, base);
    return status;
}

static int tolstring_body(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

const char *lrt_tolstring(lua_State *L, int idx, size_t *len) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, tolstring_body);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    return lua_tolstring(L, -1, len);
}

static int traceback_body(lua_State *L) {
    lua_State *co = (lua_State *)lua_touserdata(L, 1);
    const char *message = lua_tostring(L, 2);
    int level = (int)lua_tointeger(L, 3);
    luaL_traceback(L, co, message, level);
    return 1;
}

void lrt_traceback(lua_State *L, lua_State *co, const char *message, int level) {
    lua_pushcfunction(L, traceback_body);
    lua_pushlightuserdata(L, co);
    lua_pushstring(L, message);
    lua_pushinteger(L, level);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        lua_pushstring(L, message ? message : "");
    }
}

/// Loads a chunk in `mode` ("t" or "b") with the host's budget accounting paused.
static int load_in_mode(lua_State *L, const char *bytes, size_t len, const char *chunkname, const char *mode) {
    lrt_context *c = lrt_context_of(L);
    int saved = c->host_active;
    c->host_active = 0;
    int status = luaL_loadbufferx(L, bytes, len, chunkname, mode);
    c->host_active = saved;
    return status;
}

/// Bytes of source the parser gets at a time from `lrt_load_text`.
#define LRT_LOAD_PIECE 4096

typedef struct {
    const char *next;
    size_t left;
    int started;
} metered_source;

// Gives the parser the source a piece at a time, and before each piece but the first checks
// the budgets (`lrt_charge`: the clock, a stop request): compiling is not linear in the
// source (a chain of 100,000 `elseif`s takes seconds), and no instruction runs while it
// goes on. A kill raised here ends the load with the kill's error, sticky as ever.
static const char *metered_reader(lua_State *L, void *data, size_t *size) {
    metered_source *source = data;
    if (source->left == 0) {
        *size = 0;
        return NULL;
    }
    if (source->started) lrt_charge(L, LRT_LOAD_PIECE / 16);
    source->started = 1;
    size_t length = source->left < LRT_LOAD_PIECE ? source->left : LRT_LOAD_PIECE;
    const char *piece = source->next;
    source->next += length;
    source->left -= length;
    *size = length;
    return piece;
}

int lrt_load_text(lua_State *L, const char *source, size_t len, const char *chunkname) {
    lrt_context *c = lrt_context_of(L);
    int saved = c->host_active;
    c->host_active = 0;
    metered_source pieces = {source, len, 0};
    int status = lua_load(L, metered_reader, &pieces, chunkname, "t");
    c->host_active = saved;
    return status;
}

typedef struct {
    char *bytes;
    size_t len;
    size_t cap;
    int failed;
} lrt_dump_buffer;

static int dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    lrt_dump_buffer *buffer = ud;
    if (buffer->len + size > buffer->cap) {
        size_t cap = buffer->cap ? buffer->cap : 4096;
        while (cap < buffer->len + size) cap *= 2;
        char *grown = realloc(buffer->bytes, cap);
        if (!grown) {
            buffer->failed = 1;
            return 1;
        }
        buffer->bytes = grown;
        buffer->cap = cap;
    }
    memcpy(buffer->bytes + buffer->len, p, size);
    buffer->len += size;
    return 0;
}

int lrt_dump(lua_State *L, char **bytes, size_t *len, int strip) {
    lrt_dump_buffer buffer = {0};
    int status = lua_dump(L, dump_writer, &buffer, strip);
    if (status != 0 || buffer.failed) {
        free(buffer.bytes);
        *bytes = NULL;
        *len = 0;
        return 1;
    }
    *bytes = buffer.bytes;
    *len = buffer.len;
    return 0;
}

int lrt_load_binary(lua_State *L, const char *bytes, size_t len, const char *chunkname) {
    return load_in_mode(L, bytes, len, chunkname, "b");
}

// MARK: - Libraries

static void remove_fields(lua_State *L, const char *const *names) {
    for (; *names; names++) {
        lua_pushnil(L);
        lua_setfield(L, -2, *names);
    }
}

// MARK: - Protected calls

// A refused allocation reaches a protected call as Lua's own "not enough memory" string;
// the confined state's pcall and xpcall hand the state's memory limit error (a ccai.Error with
// code limit_exceeded) instead, as an uncaught one would be. Lua calls no message
// handler for memory errors, so xpcall's result is replaced the same way.
static int is_memory_error(lua_State *L, int status) {
    if (status == LUA_ERRMEM) return 1;
    if (!lrt_context_of(L)->memory_limit_hit || lua_type(L, -1) != LUA_TSTRING) return 0;
    return strcmp(lua_tostring(L, -1), "not enough memory") == 0;
}

static int finish_protected_call(lua_State *L, int status, lua_KContext first_result) {
    if (status == LUA_OK || status == LUA_YIELD) return lua_gettop(L) - (int)first_result;
    if (is_memory_error(L, status)) {  // the error value is on top
        lua_pop(L, 1);
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &memory_error_key) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushliteral(L, "not enough memory");
        }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

static int confined_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_protected_call);
    return finish_protected_call(L, status, 0);
}

static int confined_xpcall(lua_State *L) {
    int arguments = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);  // handler, true, function, arguments...
    int status = lua_pcallk(L, arguments - 2, LUA_MULTRET, 2, 2, finish_protected_call);
    return finish_protected_call(L, status, 2);
}

// os.time() with no table, and os.date() with no time, read the state's clock when the host
// gives one (a simulation's, a business clock); otherwise the stock functions (upvalue 1)
// run, and their errors read as theirs would: the caller's position, the function's name.
static int call_stock(lua_State *L, const char *name) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, 1, 0);
    if (status == LUA_OK) return 1;
    if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING) {
        luaL_gsub(L, lua_tostring(L, -1), "to '?'", name);
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int confined_os_time(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) return call_stock(L, "to 'time'");
    lrt_context *c = lrt_context_of(L);
    lua_pushinteger(L, (lua_Integer)floor(c->now(c->owner)));
    return 1;
}

static int confined_os_date(lua_State *L) {
    if (lua_isnoneornil(L, 2)) {
        lrt_context *c = lrt_context_of(L);
        lua_settop(L, 1);
        lua_pushinteger(L, (lua_Integer)floor(c->now(c->owner)));
    }
    return call_stock(L, "to 'date'");
}

static void wrap_field(lua_State *L, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, -2, name);
}

void lrt_open_safe_libs(lua_State *L) {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},         {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_TABLIBNAME, luaopen_table},   {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math},   {LUA_UTF8LIBNAME, luaopen_utf8},
        {LUA_OSLIBNAME, luaopen_os},       {NULL, NULL},
    };
    for (const luaL_Reg *lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    static const char *const base_removed[] = {"dofile", "loadfile", "load", "collectgarbage", "require", NULL};
    static const char *const os_removed[] = {"execute", "exit", "getenv", "remove", "rename", "tmpname", "setlocale", NULL};
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    remove_fields(L, base_removed);
    lua_getfield(L, -1, LUA_OSLIBNAME);
    remove_fields(L, os_removed);
    if (lrt_context_of(L)->now) {
        wrap_field(L, "time", confined_os_time);
        wrap_field(L, "date", confined_os_date);
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, confined_pcall);
    lua_setfield(L, -2, "pcall");
    lua_pushcfunction(L, confined_xpcall);
    lua_setfield(L, -2, "xpcall");
    lua_getfield(L, -1, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 2);
    lrt_install_patterns(L);
    lrt_install_library(L);
    // The shared string metatable: scripts may use it, never reach or change it.
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
}

void lrt_set_limit_error(lua_State *L, lrt_limit_error kind) {
    static void *const keys[] = {&instruction_error_key, &time_error_key, &memory_error_key, &stopped_error_key};
    lua_rawsetp(L, LUA_REGISTRYINDEX, keys[kind]);
}

void lrt_push_caller_env(lua_State *L, int level) {
    lua_Debug ar;
    if (!lua_getstack(L, level, &ar)) {
        lua_pushnil(L);
        return;
    }
    // A local _ENV in scope wins (the innermost one is the last active local).
    int found = 0;
    const char *local;
    for (int i = 1; (local = lua_getlocal(L, &ar, i)) != NULL; i++) {
        if (strcmp(local, "_ENV") == 0) {
            if (found) lua_remove(L, -2);
            found = 1;
        } else {
            lua_pop(L, 1);
        }
    }
    if (found) return;
    if (lua_getinfo(L, "f", &ar)) {
        for (int i = 1;; i++) {
            const char *name = lua_getupvalue(L, -1, i);
            if (name == NULL) break;
            if (strcmp(name, "_ENV") == 0) {
                lua_remove(L, -2);
                return;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
}

int lrt_caller_location(lua_State *L, int level, char *buffer, size_t size) {
    lua_Debug ar;
    for (; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar)) return 0;
        if (ar.currentline > 0) {
            snprintf(buffer, size, "%s:%d", ar.short_src, ar.currentline);
            return 1;
        }
    }
    return 0;
}

int lrt_bench_noop(lua_State *L) {
    (void)L;
    return 0;
}
