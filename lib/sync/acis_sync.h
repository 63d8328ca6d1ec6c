/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_sync: the switch steering its jobs' progress (ACiS Type 4, thesis
 * ch. 6; doc/sync.md). Two mechanisms, per communicator:
 *
 *  - a deadline: a member sets a period T; the switch counts epochs
 *    1, 2, ... and signals every member when each expires. A member may
 *    report it finished epoch k; a report after epoch k's signal went is
 *    late, and counted.
 *  - a stale-synchronous-parallel (SSP) barrier: members report "done"
 *    with the iteration they finished; the switch keeps each member's
 *    count and answers "continue" to a member that finished iteration i
 *    once at least `quorum` members (default all) have finished i - s or
 *    more (s: the staleness bound; s = 0 is a barrier).
 *
 * The table holds the state of the communicators that use either, found
 * by context id. Pure C, no EAL: the switch calls it on its control path
 * (one writer, under the control lock) and its timer path; unit tests
 * call it directly. Nothing here runs per data packet.
 */
#ifndef ACIS_SYNC_H
#define ACIS_SYNC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Communicators with a deadline or an SSP barrier at once. */
#define ACIS_SYNC_MAX 256
/** A deadline's shortest and longest period, microseconds. */
#define ACIS_SYNC_PERIOD_MIN_US 100u
#define ACIS_SYNC_PERIOD_MAX_US 3600000000u
/** SSP: the largest staleness bound. */
#define ACIS_SYNC_STALENESS_MAX 1000000u

struct acis_sync {
	uint32_t ctx;          /**< communicator context id; 0: free entry */
	uint32_t size;         /**< its members */
	/* deadline */
	uint64_t period_tsc;   /**< 0: no deadline */
	uint32_t period_us;
	uint64_t next_tsc;     /**< when epoch `epoch + 1` expires */
	uint32_t epoch;        /**< epochs expired (signals sent) */
	uint64_t signals;      /**< signals: epochs x members */
	uint64_t missed;       /**< epochs that expired while the switch
				    was not looking (each gets its signal) */
	uint64_t on_time, late; /**< epoch reports before / after expiry */
	/* SSP */
	uint32_t *done;        /**< [size] iterations each member finished */
	uint32_t *want;        /**< [size] iteration a member waits to
				    continue from (0: not waiting) */
	uint32_t *go;          /**< [size] acis_sync_ssp_done's answers: */
	uint32_t *go_iter;     /**< the members, and the iteration each */
	uint32_t *scratch;     /**< [size] */
	uint32_t staleness;
	uint32_t quorum;       /**< members that must be within reach */
	uint32_t reach;        /**< iterations the quorum had finished at
				    the last done: a member may go on to any
				    iteration up to reach + staleness */
	uint64_t dones, continues;
	uint64_t waits;        /**< dones that had to wait */
	uint32_t spread;       /**< most iterations the most advanced member
				    has been ahead of the least (at most
				    staleness + 1 with every member in the
				    quorum) */
};

/** What an entry counted, summed over the table's life (live entries,
 * and those removed). */
struct acis_sync_totals {
	uint64_t signals, missed, on_time, late, dones, continues, waits;
};

struct acis_sync_table {
	struct acis_sync e[ACIS_SYNC_MAX];
	uint32_t n;            /**< entries in use */
	struct acis_sync_totals gone; /**< counts of removed entries */
	uint64_t next_tsc;     /**< the earliest deadline armed (UINT64_MAX:
				    none): the timer path's one compare */
};

void acis_sync_table_init(struct acis_sync_table *t);
/** Free every entry's memory. */
void acis_sync_table_fini(struct acis_sync_table *t);

/** The entry of communicator ctx, or NULL. */
struct acis_sync *acis_sync_find(struct acis_sync_table *t, uint32_t ctx);
/** The entry of ctx (of size members), made if new; NULL when the table
 * is full or out of memory. */
struct acis_sync *acis_sync_get(struct acis_sync_table *t, uint32_t ctx,
				uint32_t size);
/** Forget ctx (its communicator was freed); its counts go on in the
 * totals. */
void acis_sync_remove(struct acis_sync_table *t, uint32_t ctx);
/** The counts of every entry, live or removed. */
void acis_sync_totals(const struct acis_sync_table *t,
		      struct acis_sync_totals *s);

/**
 * Set (period_us > 0) or stop (0) e's deadline at time now; tsc_hz turns
 * microseconds into the clock's cycles. Setting again restarts the epochs
 * from now, counting on from the last. 0, or -1 on a period outside
 * ACIS_SYNC_PERIOD_MIN_US..ACIS_SYNC_PERIOD_MAX_US.
 */
int acis_sync_deadline_set(struct acis_sync_table *t, struct acis_sync *e,
			   uint32_t period_us, uint64_t tsc_hz, uint64_t now);

/** A member finished epoch k: 1 if late (epoch k has expired), else 0. */
int acis_sync_deadline_report(struct acis_sync *e, uint32_t k);

/**
 * The deadlines due at now: for each, its epoch moves on by one and
 * signal(e, arg) is called (a deadline that expired several times while
 * nobody looked moves on by one each call, counting the rest as
 * missed, so no member gets a storm). Returns the entries signalled.
 */
unsigned int acis_sync_deadline_due(struct acis_sync_table *t, uint64_t now,
				    void (*signal)(struct acis_sync *e,
						   void *arg),
				    void *arg);

/**
 * Member rank of e finished iteration iter (>= 1), with staleness bound
 * s and quorum q (0: every member). The members that may continue now,
 * the sender among them or not, are e->go[0..n) with the iteration each
 * waited on in e->go_iter[0..n); returns n, each member at most once.
 * -1 when rank, iter, s or q is out of range. A late copy of an older
 * report changes nothing; a repeat of the one a member waits on is
 * answered again once it may go on (its answer may have been lost).
 */
int acis_sync_ssp_done(struct acis_sync *e, uint32_t rank, uint32_t iter,
		       uint32_t s, uint32_t q);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_SYNC_H */
