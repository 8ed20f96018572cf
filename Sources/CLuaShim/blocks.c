// The blocks of Lua states: small ones from size classes without headers, the rest from the
// C allocator.
//
// Lua tells its allocator the size of a block when it frees or resizes it, so a small
// block needs no header saying how large it is. glibc's `malloc` keeps one (8 bytes) and
// rounds each chunk up to 16 bytes, 32 at least: for a state's objects (strings, tables,
// closures, upvalues, 76 bytes on average) that is a fifth more than Lua asked for. Here,
// a block of up to LRT_SMALL_BLOCK_MAX bytes is rounded up to 8 bytes and comes from its
// class's slabs, carved from the C allocator LRT_SLAB_BYTES at a time. A freed block goes
// on its class's free list, shared by every state of the process, so what one VU frees
// another reuses. Slabs are never given back: like the C allocator's arenas, the blocks
// keep the most the states held at once.
//
// Under AddressSanitizer every block comes from `malloc`, so that it still sees a state
// write past a block.
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LRT_ADDRESSES_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LRT_ADDRESSES_SANITIZED 1
#endif

#ifdef LRT_ADDRESSES_SANITIZED
#define LRT_SMALL_BLOCK_MAX 0
#else
#define LRT_SMALL_BLOCK_MAX 256
#endif
#define LRT_BLOCK_GRAIN 8
#define LRT_SLAB_BYTES (16 * 1024)
#define LRT_SMALL_CLASSES (256 / LRT_BLOCK_GRAIN)

/// One size class: its free blocks (each holds the next's address) and what is left of
/// its newest slab. Under its lock, since states run on different threads.
typedef struct lrt_block_class {
    pthread_mutex_t lock;
    void *free;
    char *unused;
    char *end;
} lrt_block_class;

static lrt_block_class block_classes[LRT_SMALL_CLASSES] = {
    [0 ... LRT_SMALL_CLASSES - 1] = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, NULL},
};

static inline int is_small(size_t bytes) { return bytes <= LRT_SMALL_BLOCK_MAX; }

static inline size_t class_index(size_t bytes) { return (bytes + LRT_BLOCK_GRAIN - 1) / LRT_BLOCK_GRAIN - 1; }

static void *small_block(size_t bytes) {
    size_t index = class_index(bytes);
    size_t size = (index + 1) * LRT_BLOCK_GRAIN;
    lrt_block_class *class = &block_classes[index];
    pthread_mutex_lock(&class->lock);
    void *block = class->free;
    if (block != NULL) {
        class->free = *(void **)block;
    } else {
        if (class->unused == NULL || (size_t)(class->end - class->unused) < size) {
            char *slab = malloc(LRT_SLAB_BYTES);
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
    return block;
}

static void free_small_block(void *block, size_t bytes) {
    lrt_block_class *class = &block_classes[class_index(bytes)];
    pthread_mutex_lock(&class->lock);
    *(void **)block = class->free;
    class->free = block;
    pthread_mutex_unlock(&class->lock);
}

void *lrt_block_alloc(size_t bytes) { return is_small(bytes) ? small_block(bytes) : malloc(bytes); }

void lrt_block_free(void *block, size_t bytes) {
    if (block == NULL) return;
    if (is_small(bytes)) free_small_block(block, bytes);
    else free(block);
}

void *lrt_block_resize(void *block, size_t old_bytes, size_t new_bytes) {
    if (!is_small(old_bytes) && !is_small(new_bytes)) return realloc(block, new_bytes);
    if (is_small(old_bytes) && is_small(new_bytes) && class_index(old_bytes) == class_index(new_bytes)) return block;
    void *moved = lrt_block_alloc(new_bytes);
    if (moved == NULL) return NULL;
    memcpy(moved, block, old_bytes < new_bytes ? old_bytes : new_bytes);
    lrt_block_free(block, old_bytes);
    return moved;
}
