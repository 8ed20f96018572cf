// The part of the Lua embedding that Swift cannot or must not do itself:
// Lua's function-like macros, the trampolines that raise and yield after the Swift
// frame has returned, the limited allocator and the count hook that enforces budgets.
#ifndef CLUASHIM_H
#define CLUASHIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>

/// Returned by a Swift function body: an error value is on top of the stack; raise it.
#define LRT_RAISE (-1)
/// Returned by a Swift function body: suspend the calling coroutine (async call pending).
#define LRT_YIELD (-2)

/// Why a state was stopped by its budgets.
typedef enum lrt_kill_reason {
    LRT_KILL_NONE = 0,
    LRT_KILL_INSTRUCTIONS = 1,
    LRT_KILL_TIME = 2,
    LRT_KILL_STOPPED = 3,       ///< the host asked the state to stop (lrt_request_stop)
} lrt_kill_reason;

/// The preallocated error values raised by the hook and the trampoline.
typedef enum lrt_limit_error {
    LRT_LIMIT_ERROR_INSTRUCTIONS = 0,
    LRT_LIMIT_ERROR_TIME = 1,
    LRT_LIMIT_ERROR_MEMORY = 2,
    LRT_LIMIT_ERROR_STOPPED = 3,
} lrt_limit_error;

/// Memory several states share a budget of (a run's VUs): the bytes they hold together,
/// counted by their allocators from any thread, and the most they may. An allocation a
/// state's Lua code asks for past `limit` is refused (Lua's "not enough memory") and
/// `exceeded` set.
typedef struct lrt_pool {
    size_t used;                ///< atomic
    size_t limit;               ///< 0: unlimited
    int exceeded;               ///< atomic; set once an allocation was refused
} lrt_pool;

/// Has the C allocator map every block of `bytes` or more for itself and give it back to the
/// system when freed (glibc's `M_MMAP_THRESHOLD`, fixed: by default it rises after each such
/// free, and what is freed then stays in the process). Once, before states are made.
void lrt_map_large_blocks(size_t bytes);
/// A block of `bytes` for a Lua state (Sources/CLuaShim/blocks.c): small ones from size
/// classes without headers, larger ones from `malloc`. NULL when there is no memory.
void *lrt_block_alloc(size_t bytes);
/// Frees a block `lrt_block_alloc` or `lrt_block_resize` made `bytes` large (NULL: nothing).
void lrt_block_free(void *block, size_t bytes);
/// The block resized from `old_bytes` to `new_bytes` (not 0), its contents kept up to the
/// smaller; possibly moved. A shrink always succeeds; a growth returns NULL when there is
/// no memory, and `block` is left as it was.
void *lrt_block_resize(void *block, size_t old_bytes, size_t new_bytes);

/// A set of blocks of its own, as the states' shared one is (`lrt_block_*` use that one):
/// slabs carved from `reserve_bytes` of address space while they are at most twice the
/// small bytes in use plus `allowance_bytes`. For tests. NULL when there is no memory.
typedef struct lrt_blocks lrt_blocks;
lrt_blocks *lrt_blocks_new(size_t reserve_bytes, size_t allowance_bytes);
/// Gives the range back; every block the set handed out must be freed first.
void lrt_blocks_destroy(lrt_blocks *blocks);
void *lrt_blocks_alloc(lrt_blocks *blocks, size_t bytes);
void lrt_blocks_free(lrt_blocks *blocks, void *block, size_t bytes);
void *lrt_blocks_resize(lrt_blocks *blocks, void *block, size_t old_bytes, size_t new_bytes);
/// The bytes of slabs carved so far.
size_t lrt_blocks_carved(lrt_blocks *blocks);
/// The largest block that comes from the slabs: 256, or 0 in a sanitized build (every
/// block from `malloc`, which AddressSanitizer and ThreadSanitizer watch).
size_t lrt_blocks_small_max(void);
/// The process's allocator keeps at most `most` arenas (at least one): `mallopt(M_ARENA_MAX)`.
void lrt_limit_arenas(int most);

/// The bytes a pool's states hold now (an atomic read).
static inline size_t lrt_pool_used(lrt_pool *pool) { return __atomic_load_n(&pool->used, __ATOMIC_RELAXED); }
/// Whether a pool refused an allocation (an atomic read).
static inline int lrt_pool_exceeded(lrt_pool *pool) { return __atomic_load_n(&pool->exceeded, __ATOMIC_RELAXED); }

/// Per-state bookkeeping shared by the allocator, the hook and the trampolines.
/// Its address is stored in the extra space of every thread of the state.
typedef struct lrt_context {
    size_t memory_used;
    size_t memory_limit;        ///< 0: unlimited
    size_t memory_peak;
    int memory_limit_hit;       ///< an allocation was refused since the last reset
    int host_active;            ///< 1 while Swift (not Lua) runs: allocations are never refused then
    long long instruction_limit;///< per slice between yields; 0: unlimited
    long long instructions;     ///< counted in the current slice
    double time_limit;          ///< seconds per slice; 0: unlimited
    double slice_started;       ///< clock seconds at the start of the slice
    double (*clock)(void *owner);///< the budget's clock, given the owner; NULL: CLOCK_MONOTONIC
    double (*now)(void *owner); ///< the time of os.time() and os.date(), in Unix seconds; NULL: time(NULL)
    int hook_interval;
    lrt_kill_reason killed;     ///< sticky once set
    int lua_depth;              ///< runs of Lua code in progress (nested calls from Swift count)
    void *owner;                ///< the Swift object owning the state (unretained)
    int stop_requested;         ///< set from any thread by lrt_request_stop, read atomically by the hook
    lrt_pool *pool;             ///< the budget shared with other states, or NULL
    size_t waiting_collected;   ///< bytes in use after the last collection made while waiting
} lrt_context;

/// A state of at most this many bytes is collected in full when an async call suspends it
/// and it has grown by a quarter since the last such collection: its garbage is freed
/// while it waits rather than carried until Lua's collector would start a cycle at twice
/// its size. Larger states are left to Lua's collector, so that no wait costs more than
/// marking this much.
#define LRT_WAITING_COLLECT_MAX (256 * 1024)

/// Asks the state to stop: its running Lua code raises the sticky "stopped" kill at the
/// next budget check. Safe from any thread.
void lrt_request_stop(lrt_context *context);

/// The single entry point through which Lua calls Swift: `box` is the function's box.
typedef int (*lrt_swift_dispatch)(lua_State *L, void *box);

/// Installs the Swift dispatcher (once per process).
void lrt_set_dispatch(lrt_swift_dispatch dispatch);

/// A new state using the limited allocator and the count hook of `context`.
lua_State *lrt_newstate(lrt_context *context);
lrt_context *lrt_context_of(lua_State *L);
double lrt_monotonic_seconds(void);
/// Installs the count hook on `L` with the context's interval (after the limits change).
void lrt_reset_hook(lua_State *L);
/// Resets the per-slice budgets (called before each run between yields).
void lrt_begin_slice(lua_State *L);

/// Pushes a C closure calling the Swift function `box` through the trampoline.
void lrt_push_swift_function(lua_State *L, void *box);
/// Light userdata that marks an async yield (also the registry key of the marker).
void *lrt_async_marker(void);

/// Runs `lua_resume` with limits enforced; `*nresults` receives the number of values.
int lrt_resume(lua_State *co, lua_State *from, int nargs, int *nresults);
/// `lua_pcall` with a traceback message handler and limits enforced.
int lrt_pcall(lua_State *L, int nargs, int nresults);
/// `luaL_tolstring` under protection: NULL (and nothing pushed) when a metamethod fails.
const char *lrt_tolstring(lua_State *L, int idx, size_t *len);
/// `luaL_traceback` of `co` with `message`, pushed on `L`; protected.
void lrt_traceback(lua_State *L, lua_State *co, const char *message, int level);
/// Loads a chunk in text mode only. Returns a Lua status; pushes the function or an error.
int lrt_load_text(lua_State *L, const char *source, size_t len, const char *chunkname);
/// Dumps the function on top of the stack as bytecode into a buffer from malloc, which the
/// caller frees: with its debug information (errors name lines) unless `strip`. Returns 0,
/// or non-zero when the dump failed (out of memory).
int lrt_dump(lua_State *L, char **bytes, size_t *len, int strip);
/// Loads bytecode that lrt_dump made, in binary mode only. Returns a Lua status; pushes the
/// function or an error.
int lrt_load_binary(lua_State *L, const char *bytes, size_t len, const char *chunkname);
/// A C function for `load`'s reader: calls its argument 1 until it returns nil or "",
/// counting the pieces against the budgets and their bytes against the memory limit.
/// Returns the chunk and true, or nil and false when a piece was not a string.
int lrt_read_chunk(lua_State *L);
/// Opens the libraries a confined state may use (no io, debug, package).
void lrt_open_safe_libs(lua_State *L);
/// Pops the value on top and keeps it as the error raised for `kind`.
void lrt_set_limit_error(lua_State *L, lrt_limit_error kind);
/// Pushes the environment (_ENV upvalue) of the function at stack level `level`, or nil.
void lrt_push_caller_env(lua_State *L, int level);
/// Source and line of the function at stack level `level`: 1 when found.
int lrt_caller_location(lua_State *L, int level, char *buffer, size_t size);

/// The trivial C function the benchmark compares Swift bindings against.
int lrt_bench_noop(lua_State *L);

// Macro wrappers.
static inline const char *lrt_lua_release(void) { return LUA_RELEASE; }
static inline void lrt_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void lrt_newtable(lua_State *L) { lua_newtable(L); }
static inline int lrt_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline int lrt_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline void lrt_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void lrt_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void lrt_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline int lrt_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }
static inline int lrt_getglobal_table(lua_State *L) { return lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS); }
static inline lua_Integer lrt_tointeger(lua_State *L, int idx, int *isnum) { return lua_tointegerx(L, idx, isnum); }
static inline lua_Number lrt_tonumber(lua_State *L, int idx, int *isnum) { return lua_tonumberx(L, idx, isnum); }
static inline void lrt_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcfunction(L, f); }
static inline int lrt_gc_count_bytes(lua_State *L) { return lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0); }
static inline void lrt_gc_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }

#endif
