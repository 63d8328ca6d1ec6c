/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collective stage's state: the communicator table (shared, one
 * control writer at a time, lock-free readers reclaimed with QSBR RCU) and
 * one shard of aggregation slots per worker lcore (owned, lock-free).
 */
#ifndef ACIS_COLL_H
#define ACIS_COLL_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "acis_agg.h"
#include "acis_comm.h"
#include "acis_sync.h"
#include "acis_proto.h"
#include "acis_tree.h"

struct acis_coll_stats {
	uint64_t data;          /**< DATA messages taken */
	uint64_t ctrl;          /**< CTRL messages taken */
	uint64_t results;       /**< RESULT frames sent */
	uint64_t acks;          /**< ACK frames sent */
	uint64_t ack_chunks;    /**< chunks those ACKs acknowledge (an ACK
				    lists the chunks of a burst to one member) */
	uint64_t nacks;         /**< NACK frames sent */
	uint64_t ctrl_acks;     /**< CTRL_ACK frames sent */
	uint64_t forwarded;     /**< blocks forwarded (bcast/scatter/gather) */
	uint64_t held;          /**< contributions held for rank order now */
	uint64_t held_total;    /**< ... ever */
	uint64_t nombuf;        /**< frames not sent: mbuf pool empty */
	uint64_t completed[ACIS_C_MAX];
	uint64_t payload_bytes; /**< contribution payload folded */
	uint64_t retrans_answered; /**< retransmitted DATA answered again */
	uint64_t resends;       /**< answers resent on a host's request */
	uint64_t confirms;      /**< hosts' "collective finished" messages */
	uint64_t answers_resent; /**< answers sent again to members that had
				    not confirmed (the switch's own timer) */
	uint64_t no_comm_nacks; /**< NACK NO_COMM sent to DATA and NACKs
				    for a job or communicator not known */
	uint64_t world_alias;   /**< DATA, ACK, NACK naming their job's
				    world as ACIS_CTX_WORLD */
	uint64_t late_copies;   /**< DATA of a slot already closed with every
				    member served: dropped (forwarded: ACKed) */
	uint64_t late_receipts; /**< receipts (slot keys) of hosts' ACKs for
				    slots closed lately: routine, not drops */
	uint64_t timeouts_resent; /**< NACK TIMEOUT sent again to DATA of a
				     slot that failed at its deadline */
	uint64_t userop_faults; /**< collectives a user op's program failed
				     (NACK OP_FAULT to every rank) */
	uint64_t fused_calls;   /**< fused calls run (doc/fused.md) */
	uint64_t fused_failed;  /**< ... failed: the ranks disagreed, the op
				     faulted, or a rank never came */
	uint64_t fused_refused; /**< fused DATA refused: on a fabric's tree,
				     chunks too small, messages past the
				     bounds, or no room for another call */
	uint64_t fused_unconfirmed; /**< fused results freed unconfirmed at
					 their linger time */
	uint64_t userop_refused; /**< DATA naming a user op its job does not
				      have: NACK NO_OP */
	uint64_t results_shared; /**< RESULT frames that chain a payload
				    segment they share, reference-counted,
				    with other members' frames or the slot
				    (instead of a copy of their own) */
	uint64_t zero_copy;     /**< slots whose bytes stayed in a
				    contribution's own mbuf (no copy in;
				    none out to members behind ports that
				    send chained frames) */
	uint64_t fanouts_deferred; /**< answers to many members (completion,
				    resend, forward, deadline, control) that
				    one walk could not finish: the walk's
				    budget, no mbuf, a full TX queue */
	uint64_t answers_sent_late; /**< answers of those sent at a later walk */
	uint64_t answers_dropped; /**< control answers neither sent nor kept
				     (no memory for the copy): each member
				     is answered when it asks again */
	uint64_t auth_refused;  /**< JOINs without a cookie refused (AUTH)
				    under [collective] auth = required */
	uint64_t held_refused;  /**< early contributions sent back (NACK
				    BUSY) with the worker's share of held
				    contributions taken: the host sends
				    them again */
	/* a fabric's trees (doc/fabric.md) */
	uint64_t partials_in;   /**< partials folded from child switches */
	uint64_t partials_up;   /**< partials sent to the parent switch */
	uint64_t partials_resent; /**< ... of them sent again: the result was
				    late (a member's repeat, or the switch's
				    resend interval) */
	uint64_t results_down;  /**< results sent to child switches */
	uint64_t results_from_parent; /**< results taken from the parent and
				    sent on to members and children */
	uint64_t tree_passed;   /**< members' DATA passed on to the root
				    unfolded (their slot here had closed:
				    the root answers them itself) */
	uint64_t tree_late;     /**< results from the parent for a slot no
				    longer waiting (answered already) */
	uint64_t installs_sent; /**< INSTALL frames sent to child switches */
	uint64_t installs_taken; /**< trees installed by a parent */
	uint64_t installs_refused; /**< INSTALLs refused, or children given
				    up on (their ranks then fold here) */
	uint64_t deadlines_set; /**< DEADLINE periods set or stopped */
	uint64_t deadline_signals; /**< deadline signals sent (a member each) */
} __rte_cache_aligned;

/* When a collective (comm, seq) last took a new contribution: its slots
 * fail at the deadline only once the whole collective has stood still
 * that long, not when one slot has been open that long. Direct-mapped,
 * per worker (a collective lives on one worker); an entry taken by
 * another collective makes a slot fall back to its own progress. */
struct acis_coll_activity {
	uint32_t ctx;
	uint32_t seq;
	uint64_t tsc;
};

/* Where one member's answer of a finished control operation goes, and
 * what its SPLIT answer says. */
struct acis_ctrl_dest {
	struct acis_endpoint ep;
	uint32_t new_ctx;
	uint32_t new_rank;
	uint32_t new_size;
};

/* A finished control operation's answers still to send: members
 * first..first+n-1, from next on (node_collective.c, ctrl_defer). */
struct acis_ctrl_fan {
	struct acis_hdr h;      /**< the answer, but rank (and SPLIT fields) */
	uint8_t split;
	uint32_t first, n, next;
	struct acis_ctrl_dest *d; /**< [n], malloc'd */
};

/* Control operations whose answers may wait at once; beyond, answers are
 * counted lost and given again when members repeat their requests. */
#define ACIS_CTRL_FANS 64

struct acis_fused_sw;

struct acis_coll_shard {
	struct acis_agg *agg;
	struct acis_fused_sw *fused; /**< this worker's fused calls */
	/* slots of the trees this switch holds below their root, keyed by
	 * the root's context ids (NULL without fabric links) */
	struct acis_agg *tagg;
	struct acis_coll_activity *act; /* [act_mask + 1] */
	uint32_t act_mask;
	struct acis_coll_stats st;
	/* control answers left for later walks (the control worker's) */
	uint32_t ctrl_head, ctrl_n;
	struct acis_ctrl_fan ctrl_fan[ACIS_CTRL_FANS];
} __rte_cache_aligned;

/* A tree being installed (doc/fabric.md): built, published once every
 * child switch answered its INSTALL (or was given up on). At the root
 * the members' JOIN answers wait for it; below, the parent's answer. */
struct acis_tree_install {
	uint8_t used;
	uint8_t below;           /**< installed by a parent */
	uint8_t split;           /**< the root's, of a communicator made by
				      split: the split's answers wait for
				      every new communicator's tree */
	uint32_t parent_ctx;     /**< split: the communicator split */
	uint8_t mgmt;            /**< the root's, of a communicator made
				      through management: settling ends
				      the request (acis_tree_ctl.req) */
	struct acis_tree *t;
	struct acis_endpoint *eps; /**< [t->size] the ranks' endpoints */
	uint32_t acked, failed;  /**< children, a bit per child index */
	uint32_t tries;
	uint64_t next_tsc;       /**< when unanswered INSTALLs go again */
	struct acis_hdr h;       /**< root: the JOIN or SPLIT answer;
				      below: the INSTALL, for its answer */
	struct acis_endpoint parent;
};

/* An INSTALL arriving in several frames. */
struct acis_tree_assembly {
	uint8_t used;
	uint32_t root_ip, ctx, job, size, total, got;
	uint8_t root_mac[6];
	uint64_t since;
	uint64_t *seen;            /**< [total / 64 + 1] entries taken */
	struct acis_endpoint *eps; /**< [size] */
};

#define ACIS_TREE_INSTALLS 64
#define ACIS_TREE_ASSEMBLIES 16

struct acis_tree_ctl {
	struct acis_tree_install in[ACIS_TREE_INSTALLS];
	struct acis_tree_assembly as[ACIS_TREE_ASSEMBLIES];
	uint64_t next_check;     /**< when root trees are checked for their
				      communicators */
	/** a communicator made through management wants its tree: the
	 * telemetry thread sets req_ctx and req = 1 under the control
	 * lock; worker 0 starts the install (req = 2) and, once it
	 * settles or none is needed, sets req = 0 */
	uint32_t req_ctx;
	volatile uint32_t req;
};

struct acis_coll_state {
	struct acis_comm_table *ct;
	rte_spinlock_t lock; /* control writers: control lcore, telemetry */
	struct rte_rcu_qsbr *qsbr;
	struct rte_rcu_qsbr_dq *dq;
	uint32_t acc_bytes;
	uint64_t deadline_tsc; /**< an open slot whose collective took no new
				    contribution this long fails */
	uint64_t linger_tsc;   /**< a done slot older than this is freed */
	uint64_t resend_tsc;   /**< unconfirmed answers are sent again this often */
	uint64_t join_wait_tsc; /**< a job not complete this long is removed */
	uint64_t refused_tsc;  /**< a job refused to every rank is kept this
				    long, to tell ranks that ask again */
	uint32_t max_payload; /**< largest ACiS payload for the MTU */
	uint8_t auth_required; /**< [collective] auth = required */
	struct acis_coll_shard *shards[64];
	/** deadlines and SSP barriers (sync.h), under the lock */
	struct acis_sync_table *sync;
	/** communicators' trees (doc/fabric.md): this switch's as root
	 * and those a parent installed; NULL when no port has a peer or
	 * [collective] fold = off. Written under the lock. */
	struct acis_tree_table *trees;
	uint64_t links;        /**< ports whose peer folds (bit per port) */
	struct acis_tree_ctl *tctl; /**< installs under way (node_collective.c) */
	/** user-defined ops 128..255 (userop.h); written under the lock,
	 * read by workers, retired through RCU */
	struct acis_userop_entry *userops[128];
};

/* Whether the collective of opcode folds in a fabric's tree: the
 * reductions and barrier (the others cross the fabric unfolded). */
static inline int
acis_coll_folds(uint8_t opcode)
{
	unsigned int coll = ACIS_OPCODE_COLL(opcode);

	return coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
	       coll == ACIS_C_REDUCE_SCATTER || coll == ACIS_C_BARRIER;
}

/* Whether a collective of opcode by op folds in a fabric's tree: a
 * folding collective by a built-in op. A user op folds at the root alone,
 * in rank order as on one switch (the switches below hold no machine of
 * it): its members' DATA pass through them to the root, its answers come
 * back the same way (doc/fabric.md). */
static inline int
acis_coll_tree_folds(uint8_t opcode, uint8_t op)
{
	return acis_coll_folds(opcode) && op < ACIS_OP_USER_MIN;
}

/* Destroy obj with destroy(obj) once no worker can hold it (QSBR RCU);
 * under the control lock. */
void acis_coll_retire(void *obj, void (*destroy)(void *));

/* A job refused to every rank (no room for its world) answers their
 * repeated JOINs this long, then goes (libacis asks again every 100 ms). */
#define ACIS_REFUSED_KEEP_S 2

struct acis_pipeline;
struct acis_lcore_ctx;

int acis_coll_init(const struct acis_pipeline *pl, char *err, size_t len);
void acis_coll_fini(void);
/** Called by each worker after every graph walk (RCU quiescent state). */
void acis_coll_quiescent(const struct acis_lcore_ctx *lc);
void acis_coll_online(const struct acis_lcore_ctx *lc);
void acis_coll_offline(const struct acis_lcore_ctx *lc);
int acis_coll_telemetry_register(void);
/** The control plane's timers, called every 100 ms: jobs that never
 * completed ([collective] join_timeout_ms) or were refused go. */
void acis_coll_housekeeping(void);
void acis_coll_stats_sum(struct acis_coll_stats *out,
			 struct acis_agg_stats *agg);
/** Control path, under the control lock: give a job its weight in the
 * fair share ([collective] weights), once it is in the table. */
void acis_coll_weigh(uint32_t job);
/** Fan-outs still to finish on every worker (slots and control
 * operations whose answers wait for a later walk). */
unsigned int acis_coll_fanouts_pending(void);

#endif /* ACIS_COLL_H */
