/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_comm: jobs, the forwarding table and the communicator table
 * (ACiS thesis section 3.3).
 *
 * A job is a set of hosts with world ranks 0..size-1. When a host joins,
 * its endpoint (switch port, MAC, IP, UDP port) becomes the forwarding
 * entry of its world rank. A communicator (context id -> job, size, comm
 * rank -> world rank, and the O(log P) partner set of the thesis' table)
 * is made when a job completes (its world), by splitting another one, or
 * through management; it is freed collectively.
 *
 * Concurrency: one writer at a time (the caller serialises control
 * operations); any number of lock-free readers call acis_ct_lookup on the
 * data path. An entry is fully built before it is published with a release
 * store; a retired communicator or job is unpublished first and handed to
 * the table's retire hook, which destroys it once no reader can still hold
 * it (the switch defers with DPDK's QSBR RCU; tests destroy at once).
 */
#ifndef ACIS_COMM_H
#define ACIS_COMM_H

#include <stdint.h>

#include "acis_algo.h"
#include "acis_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where a rank lives: everything needed to send it a frame. */
struct acis_endpoint {
	uint32_t ip;       /**< network order */
	uint16_t udp_port; /**< network order */
	uint16_t port;     /**< switch port index */
	uint8_t mac[6];
	uint8_t valid;
	uint8_t tag_len;   /**< bytes of VLAN tags the host's frames carry
			        (0, 4, or 8 for QinQ) ... */
	uint8_t tags[8];   /**< ... as they were: answers carry them too */
	/** the rank's cookie as its JOIN carried it (the wire's 48 bits,
	 * big endian; all 0: none): what it sends must carry it, and so
	 * does everything it is sent */
	uint8_t auth[6];
	uint8_t pad[2];
};

/** Whether endpoint ep is the sender of a message from ip:udp_port
 * (network order) that carried the auth field at auth (6 wire bytes):
 * 1 yes, 0 another address, -1 the address without the cookie. */
static inline int
acis_ep_sender(const struct acis_endpoint *ep, uint32_t ip, uint16_t udp_port,
	       const uint8_t *auth)
{
	if (!ep->valid || ep->ip != ip || ep->udp_port != udp_port)
		return 0;
	return acis_rd48(ep->auth) == acis_rd48(auth) ? 1 : -1;
}

struct acis_job {
	uint32_t id;
	uint32_t index;    /**< its place in the table, below max_jobs (a
			        dense id: per-job counters, fair share) */
	uint32_t size;     /**< world size */
	uint32_t joined;   /**< ranks joined so far */
	uint32_t world;    /**< context id of the world comm: ACIS_CTX_NONE
			        until complete, and again once it is freed */
	uint8_t completed; /**< every rank joined once and the world was made
			        (ranks may have left since) */
	uint32_t creator;  /**< IP (network order) of the first rank to join */
	uint16_t refused;  /**< the status every rank was refused with when
			        the job could not be completed; 0: none */
	uint16_t weight;   /**< its weight in the fair share of slots
			        (acis_ct_set_weight); 0: 1 */
	uint64_t since;    /**< the caller's clock at the first join */
	struct acis_endpoint *ep; /**< [size], the forwarding table */
};

struct acis_comm {
	uint32_t id;      /**< context id: generation << 16 | index */
	uint32_t job;
	uint32_t size;
	uint32_t parent;  /**< context id split from, or ACIS_CTX_NONE */
	const struct acis_job *jobp;
	uint32_t *global; /**< [size] comm rank -> world rank */
	/** Binomial-tree partner set of rank 0 (thesis: {1,2,4} for P=8). */
	uint32_t n_partners;
	uint32_t partners[ACIS_ALGO_MAX_PARTNERS];
	/* Control state, touched only by the (single) control writer. */
	struct {
		uint8_t op;        /**< ACIS_CTRL_SPLIT or _FREE in progress */
		uint32_t seq;
		uint32_t count;    /**< members heard from */
		uint64_t *heard;   /**< [size/64+1] bitmap */
		uint32_t *color;   /**< [size] */
		uint64_t *key;     /**< [size] */
		/* outcome of the last finished split, to answer repeats */
		uint32_t done_seq;
		uint8_t done;
		/* the last split refused for every member, to answer its
		 * repeats with the same status */
		uint8_t failed;
		uint16_t fail_status;
		uint32_t fail_seq;
		uint32_t *new_ctx; /**< [size] */
		uint32_t *new_rank;
		uint32_t *new_size;
	} ctl;
};

/** Destroy obj with destroy(obj) once no data-path reader can hold it. */
typedef void (*acis_ct_retire_fn)(void *obj, void (*destroy)(void *),
				  void *arg);

/** Limits of a table. */
struct acis_ct_limits {
	uint32_t max_comms;   /**< communicators at once (<= 65535) */
	uint32_t max_jobs;    /**< jobs at once */
	uint32_t max_ranks;   /**< largest world or communicator */
	uint64_t max_members; /**< sum of all communicator sizes */
	/** jobs a host (the IP of a job's first rank) may have begun and
	 * not yet ended; 0: no limit */
	uint32_t max_jobs_per_host;
	acis_ct_retire_fn retire; /**< NULL: destroy at once */
	void *retire_arg;
};

struct acis_comm_table;

/** Create a table; NULL on bad limits or no memory. */
struct acis_comm_table *acis_ct_create(const struct acis_ct_limits *lim);
/** Free the table and every entry (no readers may remain). */
void acis_ct_free(struct acis_comm_table *ct);

/** Data path: the communicator with this context id, or NULL. */
const struct acis_comm *acis_ct_lookup(const struct acis_comm_table *ct,
				       uint32_t ctx);

/** Endpoint of a comm rank (rank < c->size). */
static inline const struct acis_endpoint *
acis_comm_ep(const struct acis_comm *c, uint32_t rank)
{
	return &c->jobp->ep[c->global[rank]];
}

/** Data path: the context id of the world communicator of job (what
 * ACIS_CTX_WORLD in a DATA, ACK or NACK stands for), or ACIS_CTX_NONE.
 * Constant time; the caller checks the communicator it names with
 * acis_ct_lookup, which may find it gone. */
uint32_t acis_ct_world(const struct acis_comm_table *ct, uint32_t job);

/** The job with this id, or NULL. */
const struct acis_job *acis_ct_job(const struct acis_comm_table *ct,
				   uint32_t job);

/** Control: the job's weight in the fair share of slots (1 to 65535; 0
 * is taken as 1). -ENOENT if the job is unknown. */
int acis_ct_set_weight(struct acis_comm_table *ct, uint32_t job,
		       uint16_t weight);

/* ---- control operations (single writer) ---- */

/** Outcome of a control request. */
enum acis_ct_outcome {
	ACIS_CT_ERROR = -1,  /**< refused: answer the sender with *status */
	ACIS_CT_WAIT = 0,    /**< recorded; others have yet to send */
	ACIS_CT_DONE = 1,    /**< this request completed it: answer everyone */
	ACIS_CT_REPEAT = 2,  /**< already done: answer this sender again */
	ACIS_CT_REFUSED = 3, /**< this request completed it, and it was
				  refused for everyone: answer every member
				  (every joined rank, for a join) with
				  *status; repeats get ACIS_CT_ERROR with it */
};

/** A host joins job with world rank and size from endpoint ep; now is
 * the caller's clock (any unit), kept for acis_ct_expire_joins. A job
 * whose world communicator cannot be made is refused for every rank
 * (ACIS_CT_REFUSED, then ACIS_CT_ERROR to each repeat) until it expires. */
enum acis_ct_outcome acis_ct_join(struct acis_comm_table *ct, uint32_t job,
				  uint32_t size, uint32_t rank,
				  const struct acis_endpoint *ep, uint64_t now,
				  uint16_t *status);

/** Remove, with their endpoints, the jobs begun more than max_wait
 * before now that never completed (a rank that never came), and those
 * refused more than max_refused before now; returns how many. A job that
 * completed once is never removed this way, even once some ranks have
 * left or its world was freed. */
uint32_t acis_ct_expire_joins(struct acis_comm_table *ct, uint64_t now,
			      uint64_t max_wait, uint64_t max_refused);

/** A host leaves; the job is removed when its last rank leaves. */
enum acis_ct_outcome acis_ct_leave(struct acis_comm_table *ct, uint32_t job,
				   uint32_t rank, const struct acis_endpoint *ep,
				   uint16_t *status);

/** Split: comm rank of comm asks for (color, key) in collective seq.
 * On DONE every member's outcome is in c->ctl.new_*. */
enum acis_ct_outcome acis_ct_split(struct acis_comm_table *ct, uint32_t comm,
				   uint32_t seq, uint32_t rank, uint32_t color,
				   uint64_t key, uint16_t *status);

/** Free: rank of comm asks to free it in collective seq. On DONE the
 * entry is unpublished and retired. A request for a comm already gone
 * answers ERROR with NO_COMM (a repeat after the last member's). */
enum acis_ct_outcome acis_ct_comm_free(struct acis_comm_table *ct,
				       uint32_t comm, uint32_t seq,
				       uint32_t rank, uint16_t *status);

/** Management: make a communicator of world ranks global[0..n-1] of job
 * (comm rank i is global[i]). Returns its context id or ACIS_CTX_NONE. */
uint32_t acis_ct_comm_create(struct acis_comm_table *ct, uint32_t job,
			     uint32_t n, const uint32_t *global,
			     uint16_t *status);

/** Management: free at once (no collective). -ENOENT if unknown. */
int acis_ct_comm_remove(struct acis_comm_table *ct, uint32_t comm);

/** Management: remove a job and every communicator of it at once, whatever
 * ranks are still in (a job whose host died never has its last LEAVE).
 * -ENOENT if unknown. */
int acis_ct_job_remove(struct acis_comm_table *ct, uint32_t job);

/** Comm rank of world rank in comm, or ACIS_RANK_NONE. */
uint32_t acis_comm_rank_of(const struct acis_comm *c, uint32_t world_rank);


/** Counts, for telemetry. */
struct acis_ct_stats {
	uint32_t jobs;
	uint32_t comms;
	uint64_t members;
	uint64_t created;
	uint64_t freed;
	uint64_t jobs_refused;  /**< jobs refused for every rank (no room
				     for the world communicator) */
	uint64_t jobs_expired;  /**< removed by acis_ct_expire_joins */
	uint64_t joins_limited; /**< joins refused LIMIT (per host) */
};
void acis_ct_stats(const struct acis_comm_table *ct, struct acis_ct_stats *s);

/** Visit every job (control thread only). */
void acis_ct_foreach_job(const struct acis_comm_table *ct,
			 void (*cb)(const struct acis_job *, void *),
			 void *arg);

/** Visit every live communicator (control thread only). */
void acis_ct_foreach(const struct acis_comm_table *ct,
		     void (*cb)(const struct acis_comm *, void *), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_COMM_H */
