#include "chttp_body_budget.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

/// One address's shares: the bytes they hold, and those still arriving, oldest first.
typedef struct address_shares {
    uint32_t address;
    size_t bytes;
    unsigned shares;                      // open shares: the entry goes with the last
    chttp_body_share *oldest, *newest;    // still arriving
    struct address_shares *next;          // in its bucket
} address_shares;

struct chttp_body_share {
    chttp_body_budget *budget;
    address_shares *owner;                // NULL: exempt from the per-address limit
    size_t bytes;
    double opened;
    int socket;
    int arriving;                         // in the arriving lists: may be evicted once slow
    int evicted;
    chttp_body_share *next, *previous;             // all arriving shares, oldest first
    chttp_body_share *next_here, *previous_here;   // its address's arriving shares
};

enum { BUDGET_BUCKETS = 1024 };

struct chttp_body_budget {
    pthread_mutex_t lock;
    size_t total_limit, address_limit;
    double slow_after;
    size_t held;
    uint64_t evictions;
    chttp_body_share *oldest, *newest;    // all shares still arriving
    address_shares *addresses[BUDGET_BUCKETS];
};

chttp_body_budget *chttp_body_budget_create(size_t total_bytes, size_t bytes_per_address, double slow_after_seconds) {
    chttp_body_budget *budget = calloc(1, sizeof(chttp_body_budget));
    if (!budget) return NULL;
    pthread_mutex_init(&budget->lock, NULL);
    budget->total_limit = total_bytes;
    budget->address_limit = bytes_per_address;
    budget->slow_after = slow_after_seconds > 0 ? slow_after_seconds : 0;
    return budget;
}

void chttp_body_budget_destroy(chttp_body_budget *budget) {
    if (!budget) return;
    for (size_t bucket = 0; bucket < BUDGET_BUCKETS; bucket++) {
        while (budget->addresses[bucket]) {
            address_shares *gone = budget->addresses[bucket];
            budget->addresses[bucket] = gone->next;
            free(gone);
        }
    }
    pthread_mutex_destroy(&budget->lock);
    free(budget);
}

/// Where the entry of `address` is, or would be inserted (lock held).
static address_shares **entry_slot(chttp_body_budget *budget, uint32_t address) {
    address_shares **slot = &budget->addresses[(address * 2654435761u) >> 22];
    while (*slot && (*slot)->address != address) slot = &(*slot)->next;
    return slot;
}

/// Takes a share off the arriving lists (lock held).
static void stop_arriving(chttp_body_budget *budget, chttp_body_share *share) {
    if (!share->arriving) return;
    if (share->previous) share->previous->next = share->next; else budget->oldest = share->next;
    if (share->next) share->next->previous = share->previous; else budget->newest = share->previous;
    address_shares *owner = share->owner;
    if (owner) {
        if (share->previous_here) share->previous_here->next_here = share->next_here; else owner->oldest = share->next_here;
        if (share->next_here) share->next_here->previous_here = share->previous_here; else owner->newest = share->previous_here;
    }
    share->next = share->previous = share->next_here = share->previous_here = NULL;
    share->arriving = 0;
}

/// Gives a share's bytes back (lock held).
static void give_back(chttp_body_budget *budget, chttp_body_share *share) {
    budget->held -= share->bytes;
    if (share->owner) share->owner->bytes -= share->bytes;
    share->bytes = 0;
}

chttp_body_share *chttp_body_share_open(chttp_body_budget *budget, uint32_t address, int per_address, int socket,
                                        double now) {
    chttp_body_share *share = calloc(1, sizeof(chttp_body_share));
    if (!share) return NULL;
    share->budget = budget;
    share->opened = now;
    share->socket = socket;
    pthread_mutex_lock(&budget->lock);
    if (per_address && budget->address_limit > 0) {
        address_shares **slot = entry_slot(budget, address);
        if (!*slot && (*slot = calloc(1, sizeof(address_shares)))) (*slot)->address = address;
        if (!*slot) {
            pthread_mutex_unlock(&budget->lock);
            free(share);
            return NULL;
        }
        share->owner = *slot;
        share->owner->shares++;
        share->previous_here = share->owner->newest;
        if (share->owner->newest) share->owner->newest->next_here = share; else share->owner->oldest = share;
        share->owner->newest = share;
    }
    share->previous = budget->newest;
    if (budget->newest) budget->newest->next = share; else budget->oldest = share;
    budget->newest = share;
    share->arriving = 1;
    pthread_mutex_unlock(&budget->lock);
    return share;
}

/// The body still arriving that gives way where room is short (lock held): the oldest, once
/// it is slow; else the largest (the oldest of those) that is larger than all the asking
/// body wants, so that a small body, such as a sign-in, is never kept out by larger ones
/// re-sent just faster than they become slow. `here`: among the address's bodies. NULL
/// when none may.
static chttp_body_share *victim(chttp_body_budget *budget, chttp_body_share *oldest, int here,
                                chttp_body_share *asking, size_t wanted, double now) {
    if (oldest && oldest != asking && now - oldest->opened >= budget->slow_after) return oldest;
    chttp_body_share *largest = NULL;
    for (chttp_body_share *share = oldest; share; share = here ? share->next_here : share->next) {
        if (share != asking && share->bytes > wanted && (!largest || share->bytes > largest->bytes)) largest = share;
    }
    return largest;
}

/// Evicts `share` (lock held): its bytes go back, its socket is shut down (its own thread
/// finds it evicted and the daemon closes the connection). 0 when there is none.
static int evict(chttp_body_budget *budget, chttp_body_share *share) {
    if (!share) return 0;
    stop_arriving(budget, share);
    give_back(budget, share);
    share->evicted = 1;
    budget->evictions++;
    if (share->socket >= 0) shutdown(share->socket, SHUT_RDWR);
    return 1;
}

int chttp_body_share_grow(chttp_body_share *share, size_t bytes, double now) {
    chttp_body_budget *budget = share->budget;
    pthread_mutex_lock(&budget->lock);
    int grown = !share->evicted;
    if (grown && bytes > share->bytes) {
        size_t more = bytes - share->bytes;
        address_shares *owner = share->owner;
        while (grown && owner && owner->bytes + more > budget->address_limit)
            grown = evict(budget, victim(budget, owner->oldest, 1, share, bytes, now));
        while (grown && budget->held + more > budget->total_limit)
            grown = evict(budget, victim(budget, budget->oldest, 0, share, bytes, now));
        if (grown) {
            budget->held += more;
            if (owner) owner->bytes += more;
            share->bytes = bytes;
        }
    }
    pthread_mutex_unlock(&budget->lock);
    return grown;
}

int chttp_body_share_complete(chttp_body_share *share) {
    pthread_mutex_lock(&share->budget->lock);
    stop_arriving(share->budget, share);
    int kept = !share->evicted;
    pthread_mutex_unlock(&share->budget->lock);
    return kept;
}

int chttp_body_share_evicted(chttp_body_share *share) {
    pthread_mutex_lock(&share->budget->lock);
    int evicted = share->evicted;
    pthread_mutex_unlock(&share->budget->lock);
    return evicted;
}

void chttp_body_share_close(chttp_body_share *share) {
    if (!share) return;
    chttp_body_budget *budget = share->budget;
    pthread_mutex_lock(&budget->lock);
    stop_arriving(budget, share);
    give_back(budget, share);
    address_shares *owner = share->owner;
    if (owner && --owner->shares == 0) {
        address_shares **slot = entry_slot(budget, owner->address);
        *slot = owner->next;
        free(owner);
    }
    pthread_mutex_unlock(&budget->lock);
    free(share);
}

size_t chttp_body_budget_held(chttp_body_budget *budget) {
    pthread_mutex_lock(&budget->lock);
    size_t held = budget->held;
    pthread_mutex_unlock(&budget->lock);
    return held;
}

size_t chttp_body_budget_held_by(chttp_body_budget *budget, uint32_t address) {
    pthread_mutex_lock(&budget->lock);
    address_shares *entry = *entry_slot(budget, address);
    size_t held = entry ? entry->bytes : 0;
    pthread_mutex_unlock(&budget->lock);
    return held;
}

uint64_t chttp_body_budget_evictions(chttp_body_budget *budget) {
    pthread_mutex_lock(&budget->lock);
    uint64_t evictions = budget->evictions;
    pthread_mutex_unlock(&budget->lock);
    return evictions;
}
