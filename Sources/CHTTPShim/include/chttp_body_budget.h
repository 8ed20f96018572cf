// The budget of request bodies sent without a token (signing in): bytes held in all, bytes
// held per address, and who loses their share when it is full: the oldest body still
// arriving once it is slow, else the largest still arriving that is larger than all the
// body asking wants; never a body that came at once. Time is the caller's (seconds
// on a monotonic clock), so that tests drive it by hand.
#ifndef CHTTP_BODY_BUDGET_H
#define CHTTP_BODY_BUDGET_H

#include <stddef.h>
#include <stdint.h>

typedef struct chttp_body_budget chttp_body_budget;

/// One body's part of the budget, from its request's headers until it is answered.
typedef struct chttp_body_share chttp_body_share;

/// A budget of `total_bytes` in all and `bytes_per_address` from one address (0: no limit
/// per address); a body still arriving `slow_after_seconds` after its headers is slow, and
/// gives its share up to one that needs room. NULL when out of memory.
chttp_body_budget *chttp_body_budget_create(size_t total_bytes, size_t bytes_per_address, double slow_after_seconds);

/// Frees the budget; every share must be closed first.
void chttp_body_budget_destroy(chttp_body_budget *budget);

/// A share of nothing yet for a body from `address` (IPv4, network order), opened at `now`.
/// `per_address` 0: the address is exempt from `bytes_per_address` (loopback, by policy).
/// `socket` is shut down when the share is evicted (-1: none). NULL when out of memory.
chttp_body_share *chttp_body_share_open(chttp_body_budget *budget, uint32_t address, int per_address, int socket,
                                        double now);

/// Grows the share to hold at least `bytes`: 1 when it does, 0 when there is no room (the
/// address or the whole budget is full even after evicting the bodies still arriving that
/// give way: slow ones, oldest first, then those larger than `bytes`, largest first; its
/// address's for the address's limit) or the share was evicted.
int chttp_body_share_grow(chttp_body_share *share, size_t bytes, double now);

/// The body is all in: its share is kept until it is closed, and is no longer evicted. 0
/// when it was evicted before (the body is then not to be used).
int chttp_body_share_complete(chttp_body_share *share);

/// Whether another body took this one's share (its socket was shut down then).
int chttp_body_share_evicted(chttp_body_share *share);

/// Gives the share's bytes back and frees it.
void chttp_body_share_close(chttp_body_share *share);

/// Bytes held by all shares together.
size_t chttp_body_budget_held(chttp_body_budget *budget);

/// Bytes held by the shares of `address` that count against the per-address limit.
size_t chttp_body_budget_held_by(chttp_body_budget *budget, uint32_t address);

/// Shares evicted so far.
uint64_t chttp_body_budget_evictions(chttp_body_budget *budget);

#endif
