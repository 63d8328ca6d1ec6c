/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_agg: aggregation slots (thesis section 3.4.3: the gather/reduction
 * tables with count, counter and a contributor bitmap).
 *
 * A slot holds one chunk of one collective in progress: its key (context
 * id, collective sequence number, chunk index), what every contribution
 * must agree on, a bitmap of the ranks that contributed (so a duplicate is
 * never added twice), the accumulator, and for rank-ordered folding the
 * next rank due. Slots come from a fixed pool: when it is empty the caller
 * refuses the contribution with BUSY and the sender tries again, so a full
 * pool slows senders down instead of losing data.
 *
 * A slot's accumulator is its own memory in the pool, or a buffer the
 * caller lends it (acis_agg_lend): the switch lends the first
 * contribution's packet buffer, so that contribution is folded without a
 * copy and the result leaves the switch from the same bytes. A lent buffer
 * goes back through the table's release function when the slot closes.
 *
 * One table per worker lcore (a shard), touched only by that lcore: no
 * locks, no atomics. Pure C; the switch's collective stage drives it.
 */
#ifndef ACIS_AGG_H
#define ACIS_AGG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct acis_slot_key {
	uint32_t ctx;
	uint32_t seq;
	uint32_t chunk;
};

struct acis_slot {
	struct acis_slot_key key;
	/* what every contribution must agree on */
	uint8_t opcode;
	uint8_t dtype;
	uint8_t op;
	uint8_t order_free;  /**< fold on arrival (else in rank order) */
	uint16_t chunk_size;
	uint16_t payload_len;
	uint32_t root;
	uint64_t msg_size;
	uint32_t size;       /**< contributions expected (P) */
	uint32_t arrived;    /**< distinct contributors seen */
	uint32_t folded;     /**< contributions folded into acc */
	uint32_t next_rank;  /**< rank-ordered folding: next rank due */
	void *held;          /**< caller's list of early contributions */
	uint32_t n_held;
	uint32_t index;      /**< in the pool */
	uint64_t opened_tsc; /**< when the first contribution arrived */
	uint64_t progress_tsc; /**< caller's clock: the last new contribution */
	uint64_t done_tsc;   /**< when it completed (0: still open) */
	uint32_t job;
	uint8_t done;        /**< result sent; kept to answer retransmissions */
	uint8_t forwarding;  /**< a forwarded block, kept until received */
	uint8_t by_retrans;  /**< opened by a retransmission (maybe stale) */
	uint8_t failed;      /**< deadline passed: kept to answer NACK TIMEOUT */
	uint8_t fail_status; /**< caller's: why it failed, when not the
			      * deadline (0); set before failed */
	uint8_t fail_len;    /**< caller's: bytes of acc that say why */
	uint32_t tenant;     /**< acis_agg_open_for's; UINT32_MAX: none */
	uint64_t resend_tsc; /**< caller's clock: when to send answers again */
	uint8_t fan;         /**< caller's: which answers are still to send
			      * (0: none); see acis_agg_pend */
	uint8_t pending;     /**< on the table's pending list */
	uint32_t fan_next;   /**< caller's: next member those answers reach */
	uint32_t pend_prev;  /**< pending list links (pool indexes) */
	uint32_t pend_next;
	uint32_t src;        /**< forwarding: the rank that sent the block */
	uint32_t owner;      /**< caller's: whose communicator key.ctx names
			      * (a fabric switch keeps its trees' slots
			      * apart: the root's address) */
	uint8_t sent_up;     /**< caller's: its partial went up the tree,
			      * its result is awaited */
	uint8_t wire;        /**< caller's: acc holds the finished result
			      * as the wire carries it (from the tree) */
	uint32_t n_recv;     /**< forwarding: receivers that must confirm */
	uint32_t delivered;  /**< members that confirmed receiving its answer */
	uint64_t *bitmap;    /**< [ceil(max_ranks/64)] contributors */
	uint64_t *done_map;  /**< [ceil(max_ranks/64)] members confirmed */
	uint8_t *acc;        /**< accumulator: the pool's acc_bytes, 64-byte
			      * aligned, or bytes of the lent buffer */
	void *acc_buf;       /**< the lent buffer holding acc, or NULL */
};

/** Gives a lent accumulator buffer back (acis_agg_on_release). */
typedef void (*acis_agg_release_fn)(void *buf);

struct acis_agg;

/** Counters of one table. */
struct acis_agg_stats {
	uint64_t opened;
	uint64_t completed;
	uint64_t busy;       /**< refused: pool empty */
	uint64_t busy_share; /**< refused: the tenant held its share of a
				  short table (acis_agg_open_for) */
	uint64_t expired;    /**< open past the deadline: failed */
	uint64_t lingered;   /**< done, freed by age before every member confirmed */
	uint64_t stale;      /**< opened by a late retransmission, dropped */
	uint64_t lend_refused; /**< buffers not taken: the lend limit held */
	uint32_t in_use;
	uint32_t capacity;
	uint32_t high_water;
	uint32_t lent;       /**< slots whose accumulator is a lent buffer */
};

/**
 * Create a table of n_slots slots, each with a bitmap for max_ranks
 * contributors and acc_bytes of accumulator. NULL on bad sizes or no memory.
 */
struct acis_agg *acis_agg_create(uint32_t n_slots, uint32_t max_ranks,
				 uint32_t acc_bytes);
void acis_agg_free(struct acis_agg *a);

/**
 * Fair share: the table's slots are shared by n tenants (0: no sharing,
 * the default). Once fewer than a quarter of the slots are free, a
 * tenant that holds its share is refused more (acis_agg_open_for returns
 * NULL, busy_share), so one tenant opening slots as fast as it can
 * cannot keep the others out. A tenant's share is the slots times its
 * weight over the weights of the tenants holding any (a newcomer
 * counting itself): equal shares with the weight 1 of acis_agg_open_for.
 * Only on an empty table; 0 or -1 (no memory, or slots open).
 */
int acis_agg_set_tenants(struct acis_agg *a, uint32_t n);

/** The function that takes back a buffer lent to a slot, called when the
 * slot closes and, for slots still open, by acis_agg_free. */
void acis_agg_on_release(struct acis_agg *a, acis_agg_release_fn fn);

/** How many lent buffers the table holds at most (acis_agg_lend refuses
 * more, so the lender's pool keeps room for the rest of its work); no
 * limit until set. */
void acis_agg_set_lend_max(struct acis_agg *a, uint32_t max_lent);

/** The open slot for key, or NULL. */
struct acis_slot *acis_agg_find(struct acis_agg *a,
				const struct acis_slot_key *key);

/** Open a slot for key (which must not be open) expecting size
 * contributions; NULL when the pool is empty (counted as busy). */
struct acis_slot *acis_agg_open(struct acis_agg *a,
				const struct acis_slot_key *key, uint32_t size);
/** acis_agg_open for tenant (below n of acis_agg_set_tenants; any other
 * value: none), within its fair share of a short table. */
struct acis_slot *acis_agg_open_for(struct acis_agg *a,
				    const struct acis_slot_key *key,
				    uint32_t size, uint32_t tenant);
/** acis_agg_open_for with the tenant's weight (0 is taken as 1): the
 * weight it opens its first slot with holds until it holds none. */
struct acis_slot *acis_agg_open_weighted(struct acis_agg *a,
					 const struct acis_slot_key *key,
					 uint32_t size, uint32_t tenant,
					 uint32_t weight);

/** Why a slot is returned to the pool (for the counters). */
enum acis_slot_end {
	ACIS_SLOT_ABORTED = 0,   /**< given up without a result */
	ACIS_SLOT_DELIVERED = 1, /**< completed, every member confirmed */
	ACIS_SLOT_LINGERED = 2,  /**< completed, freed by age */
	ACIS_SLOT_EXPIRED = 3,   /**< never completed: deadline passed */
	ACIS_SLOT_STALE = 4,     /**< a late retransmission's, nobody joined */
};

/** Return a slot to the pool (its key is forgotten; a lent accumulator
 * buffer goes back through the release function). */
void acis_agg_close(struct acis_agg *a, struct acis_slot *s, int how);

/** Mark rank as having confirmed the collective; 1 if new. */
static inline int
acis_slot_deliver(struct acis_slot *s, uint32_t rank)
{
	uint64_t bit = 1ull << (rank & 63);
	uint64_t *w = &s->done_map[rank >> 6];

	if (*w & bit)
		return 0;
	*w |= bit;
	s->delivered++;
	return 1;
}

/** Mark rank as a contributor; 1 if new, 0 if it had contributed. */
static inline int
acis_slot_mark(struct acis_slot *s, uint32_t rank)
{
	uint64_t bit = 1ull << (rank & 63);
	uint64_t *w = &s->bitmap[rank >> 6];

	if (*w & bit)
		return 0;
	*w |= bit;
	s->arrived++;
	return 1;
}

/** Forget rank's contribution (it was sent back to be sent again). */
static inline void
acis_slot_unmark(struct acis_slot *s, uint32_t rank)
{
	uint64_t bit = 1ull << (rank & 63);
	uint64_t *w = &s->bitmap[rank >> 6];

	if (*w & bit) {
		*w &= ~bit;
		s->arrived--;
	}
}

/** Let the slot's accumulator live in buf, at acc (the caller's bytes,
 * kept until the slot closes). Only on a slot that has folded nothing and
 * has no lent buffer yet, on a table with a release function. Returns 1
 * if the slot took buf, 0 if the table already holds its limit of lent
 * buffers (the slot then keeps its accumulator in its own memory). */
int acis_agg_lend(struct acis_agg *a, struct acis_slot *s, void *buf,
		  uint8_t *acc);

/** Give a slot's lent buffer back now (the slot's accumulator returns to
 * its own memory, its bytes not kept): for a slot kept only to answer
 * that it failed. Nothing if it holds none. */
void acis_agg_unlend(struct acis_agg *a, struct acis_slot *s);

/** Has rank contributed? */
static inline int
acis_slot_has(const struct acis_slot *s, uint32_t rank)
{
	return (s->bitmap[rank >> 6] >> (rank & 63)) & 1;
}

/**
 * Remember that key was closed with every member served, so a copy that
 * arrives later (a retransmission that crossed the answer, a duplicate the
 * network delayed) is known for what it is instead of opening a slot that
 * nobody else will join. flags is the caller's (e.g. "was forwarded"),
 * now its clock. The memory is direct-mapped, four keys per slot of the
 * pool: a key is forgotten when a newer one takes its place.
 */
void acis_agg_remember(struct acis_agg *a, const struct acis_slot_key *key,
		       uint8_t flags, uint64_t now);

/**
 * Was key closed with every member served no longer than horizon ago
 * (same clock as acis_agg_remember)? 1 and *flags if so, else 0.
 */
int acis_agg_recall(const struct acis_agg *a, const struct acis_slot_key *key,
		    uint64_t now, uint64_t horizon, uint8_t *flags);

/**
 * Was a slot of collective (ctx, seq) remembered (acis_agg_remember) no
 * longer than horizon ago? The memory keeps each collective's newest
 * close beside the keys, direct-mapped with an entry per slot of the
 * pool: a collective of many slots, whose older keys newer closes have
 * pushed out of the memory of keys, is still known as recently closed.
 */
int acis_agg_recall_coll(const struct acis_agg *a, uint32_t ctx, uint32_t seq,
			 uint64_t now, uint64_t horizon);

/**
 * The pending list: slots whose answers are not all sent yet (a fan-out
 * to more members than one pass may answer, or one that ran out of
 * buffers), oldest first, so the caller sends the rest in later passes
 * without walking the pool. acis_agg_pend puts s at the tail (a slot
 * already on the list moves there); acis_agg_unpend takes it off (nothing
 * if it is not on it); closing a slot takes it off too.
 */
void acis_agg_pend(struct acis_agg *a, struct acis_slot *s);
void acis_agg_unpend(struct acis_agg *a, struct acis_slot *s);
/** The oldest slot on the pending list, or NULL. */
struct acis_slot *acis_agg_pend_first(struct acis_agg *a);
/** Slots on the pending list. */
uint32_t acis_agg_pending(const struct acis_agg *a);

/** Slot by pool index (for walking), NULL if free. */
struct acis_slot *acis_agg_slot(struct acis_agg *a, uint32_t index);

void acis_agg_get_stats(const struct acis_agg *a, struct acis_agg_stats *s);

/** Largest contributor count a slot can track. */
uint32_t acis_agg_max_ranks(const struct acis_agg *a);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_AGG_H */
