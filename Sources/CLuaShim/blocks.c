// The blocks of Lua states: small ones from size classes without headers, the rest from the
// C allocator.
//
// Lua tells its allocator the size of a block when it frees or resizes it, so a small
// block needs no header saying how large it is. glibc's `malloc` keeps one (8 bytes) and
// rounds each chunk up to 16 bytes, 32 at least: for a state's objects (strings, tables,
// closures, upvalues, 76 bytes on average) that is a fifth more than Lua asked for. Here,
// a block of up to LRT_SMALL_BLOCK_MAX bytes is rounded up to 8 bytes and comes from its
// class's slabs. A freed block goes on its class's free list, shared by every state of
// the process, so what one VU frees another reuses.
//
// Slabs are carved from one range of address space reserved up front, so that a block's
// address says whether it is a slab's or `malloc`'s. The range is inaccessible until a
// slab is carved from it, so only carved slabs count against a strict overcommit limit,
// and a slab's pages are taken as they are written. Slabs are never given back, and a
// class's free blocks serve no other class, so the slabs may grow only while they are at
// most twice the small bytes in use, plus an allowance: past that a small block comes from
// `malloc`. A script that fills one class and frees it, then another, pins at most that
// much, not its limit once per class. Without the reservation (an address-space limit)
// every block comes from `malloc`.
//
// A free block holds the next one's address mangled with its own (glibc's safe-linking),
// so that a stray write into a freed block does not hand out an arbitrary address.
//
// Under AddressSanitizer every block comes from `malloc`, so that it still sees the host's
// code (Swift, the shim) write past one; Debian's liblua is not instrumented either way.
// Under ThreadSanitizer too, so that a sanitized suite's states allocate as they did before
// the classes (each class's lock would be intercepted at every allocation); BlockTests ran
// under ThreadSanitizer with the classes, without a report, when they were written.
#include "internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LRT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LRT_SANITIZED 1
#endif

#ifdef LRT_SANITIZED
#define LRT_SMALL_BLOCK_MAX 0
#else
#define LRT_SMALL_BLOCK_MAX 256
#endif
#define LRT_BLOCK_GRAIN 8
#define LRT_SMALL_CLASSES (256 / LRT_BLOCK_GRAIN)
#define LRT_SLAB_BYTES ((size_t)16 << 10)
#define LRT_SHARED_RESERVE ((size_t)16 << 30)
#define LRT_SHARED_ALLOWANCE ((size_t)4 << 20)

/// One size class: its free blocks and what is left of its newest slab. Under its lock,
/// since states run on different threads; one cache line each.
typedef struct lrt_block_class {
    pthread_mutex_t lock;
    uintptr_t free;  ///< the first free block; each keeps its link to the next `mangled`
    char *unused;
    char *end;
} __attribute__((aligned(64))) lrt_block_class;

struct lrt_blocks {
    lrt_block_class classes[LRT_SMALL_CLASSES];
    size_t reserve_bytes, allowance_bytes;
    /// The reserved range, set before the blocks are used (NULL: none, all from `malloc`).
    char *reserved_start, *reserved_end;
    pthread_mutex_t slab_lock;
    char *carved_end;           ///< under `slab_lock`
    size_t small_bytes_in_use;  ///< atomic: the small blocks handed out from the slabs
};

static void init_blocks(lrt_blocks *blocks, size_t reserve_bytes, size_t allowance_bytes) {
    for (int index = 0; index < LRT_SMALL_CLASSES; index++) {
        pthread_mutex_init(&blocks->classes[index].lock, NULL);
        blocks->classes[index].free = 0;
        blocks->classes[index].unused = blocks->classes[index].end = NULL;
    }
    pthread_mutex_init(&blocks->slab_lock, NULL);
    blocks->reserve_bytes = reserve_bytes;
    blocks->allowance_bytes = allowance_bytes;
    blocks->small_bytes_in_use = 0;
    blocks->reserved_start = blocks->reserved_end = blocks->carved_end = NULL;
    void *start = mmap(NULL, reserve_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (start == MAP_FAILED) return;
    blocks->reserved_start = blocks->carved_end = start;
    blocks->reserved_end = blocks->reserved_start + reserve_bytes;
}

/// The blocks every Lua state of the process shares, reserved at their first use.
static lrt_blocks shared_blocks;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void init_shared(void) { init_blocks(&shared_blocks, LRT_SHARED_RESERVE, LRT_SHARED_ALLOWANCE); }

static lrt_blocks *shared(void) {
    pthread_once(&shared_once, init_shared);
    return &shared_blocks;
}

static inline int is_small(size_t bytes) { return bytes - 1 < LRT_SMALL_BLOCK_MAX; }

static inline size_t class_index(size_t bytes) { return (bytes - 1) / LRT_BLOCK_GRAIN; }

static inline size_t class_bytes(size_t index) { return (index + 1) * LRT_BLOCK_GRAIN; }

static inline int in_slabs(const lrt_blocks *blocks, const void *block) {
    return (const char *)block >= blocks->reserved_start && (const char *)block < blocks->reserved_end;
}

/// The link a free `block` keeps to `next`, mangled with the block's own address.
static inline uintptr_t mangled(const void *block, uintptr_t next) { return next ^ ((uintptr_t)block >> 12); }

/// A new slab, or NULL when the slabs may not grow (see above) or the range is used up.
static char *new_slab(lrt_blocks *blocks) {
    if (blocks->reserved_start == NULL) return NULL;
    size_t in_use = __atomic_load_n(&blocks->small_bytes_in_use, __ATOMIC_RELAXED);
    char *slab = NULL;
    pthread_mutex_lock(&blocks->slab_lock);
    size_t carved = (size_t)(blocks->carved_end - blocks->reserved_start);
    if (carved + LRT_SLAB_BYTES <= 2 * in_use + blocks->allowance_bytes &&
        (size_t)(blocks->reserved_end - blocks->carved_end) >= LRT_SLAB_BYTES &&
        mprotect(blocks->carved_end, LRT_SLAB_BYTES, PROT_READ | PROT_WRITE) == 0) {
        slab = blocks->carved_end;
        blocks->carved_end += LRT_SLAB_BYTES;
    }
    pthread_mutex_unlock(&blocks->slab_lock);
    return slab;
}

/// A block of `bytes`' class from the slabs, or NULL when the slabs may not grow.
static void *slab_block(lrt_blocks *blocks, size_t bytes) {
    size_t index = class_index(bytes), size = class_bytes(index);
    lrt_block_class *class = &blocks->classes[index];
    pthread_mutex_lock(&class->lock);
    void *block = (void *)class->free;
    if (block != NULL) {
        class->free = mangled(block, *(uintptr_t *)block);
    } else {
        if (class->unused == NULL || (size_t)(class->end - class->unused) < size) {
            char *slab = new_slab(blocks);
            if (slab == NULL) {
                pthread_mutex_unlock(&class->lock);
                return NULL;
            }
            class->unused = slab;
            class->end = slab + LRT_SLAB_BYTES;
        }
        block = class->unused;
        class->unused += size;
    }
    pthread_mutex_unlock(&class->lock);
    __atomic_fetch_add(&blocks->small_bytes_in_use, size, __ATOMIC_RELAXED);
    return block;
}

static void free_slab_block(lrt_blocks *blocks, void *block, size_t bytes) {
    size_t index = class_index(bytes);
    lrt_block_class *class = &blocks->classes[index];
    pthread_mutex_lock(&class->lock);
    *(uintptr_t *)block = mangled(block, class->free);
    class->free = (uintptr_t)block;
    pthread_mutex_unlock(&class->lock);
    __atomic_fetch_sub(&blocks->small_bytes_in_use, class_bytes(index), __ATOMIC_RELAXED);
}

void *lrt_blocks_alloc(lrt_blocks *blocks, size_t bytes) {
    if (is_small(bytes)) {
        void *block = slab_block(blocks, bytes);
        if (block != NULL) return block;
    }
    return malloc(bytes);
}

void lrt_blocks_free(lrt_blocks *blocks, void *block, size_t bytes) {
    if (block == NULL) return;
    if (is_small(bytes) && in_slabs(blocks, block)) free_slab_block(blocks, block, bytes);
    else free(block);
}

void *lrt_blocks_resize(lrt_blocks *blocks, void *block, size_t old_bytes, size_t new_bytes) {
    int from_slab = is_small(old_bytes) && in_slabs(blocks, block);
    if (!from_slab && !is_small(new_bytes)) return realloc(block, new_bytes);
    if (from_slab && is_small(new_bytes) && class_index(old_bytes) == class_index(new_bytes)) return block;
    void *moved = lrt_blocks_alloc(blocks, new_bytes);
    // A shrink that finds no room keeps its block, which is large enough (and is freed by
    // its address: a slab's, or `malloc`'s).
    if (moved == NULL) return new_bytes <= old_bytes ? block : NULL;
    memcpy(moved, block, old_bytes < new_bytes ? old_bytes : new_bytes);
    lrt_blocks_free(blocks, block, old_bytes);
    return moved;
}

size_t lrt_blocks_small_max(void) { return LRT_SMALL_BLOCK_MAX; }

size_t lrt_blocks_carved(lrt_blocks *blocks) {
    pthread_mutex_lock(&blocks->slab_lock);
    size_t carved = (size_t)(blocks->carved_end - blocks->reserved_start);
    pthread_mutex_unlock(&blocks->slab_lock);
    return carved;
}

lrt_blocks *lrt_blocks_new(size_t reserve_bytes, size_t allowance_bytes) {
    lrt_blocks *blocks = aligned_alloc(64, (sizeof(lrt_blocks) + 63) & ~(size_t)63);
    if (blocks != NULL) init_blocks(blocks, reserve_bytes, allowance_bytes);
    return blocks;
}

void lrt_blocks_destroy(lrt_blocks *blocks) {
    if (blocks->reserved_start != NULL) munmap(blocks->reserved_start, blocks->reserve_bytes);
    for (int index = 0; index < LRT_SMALL_CLASSES; index++) pthread_mutex_destroy(&blocks->classes[index].lock);
    pthread_mutex_destroy(&blocks->slab_lock);
    free(blocks);
}

void *lrt_block_alloc(size_t bytes) { return lrt_blocks_alloc(shared(), bytes); }

void lrt_block_free(void *block, size_t bytes) { lrt_blocks_free(shared(), block, bytes); }

void *lrt_block_resize(void *block, size_t old_bytes, size_t new_bytes) {
    return lrt_blocks_resize(shared(), block, old_bytes, new_bytes);
}
