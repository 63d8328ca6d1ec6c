/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis: run MPI-style collectives through an acis switch.
 *
 * A host process joins a job with its world rank, gets the world
 * communicator, splits communicators, and calls collectives with MPI's
 * argument order (send buffer, receive buffer, count, datatype, op, root,
 * communicator). The switch does the reduction, gathering and multicast;
 * each host sends its data once and receives the result once, a window of
 * chunks in flight. Two transports carry the datagrams (doc/transports.md):
 * kernel UDP sockets (the default: any host, no privileges, batched with
 * sendmmsg/recvmmsg and GSO) and a DPDK port (kernel bypass: net_memif to
 * a switch on the same machine, net_af_xdp or a NIC's PCI address), whose
 * code is a shared object of its own loaded only when chosen.
 *
 * Every call returns ACIS_OK (0) or a negative ACIS_ERR_* code;
 * acis_strerror() names it and acis_last_error() explains the last failure.
 * Every blocking call gives up once it has made no progress for the
 * configured timeout: no call waits forever, and none is failed while it
 * still advances. One acis_ctx per thread: the library takes no locks.
 *
 * Datatypes (ACIS_INT32 ... ACIS_UINT16) and ops (ACIS_OP_SUM ...) are
 * the wire protocol's codes from acis_proto.h.
 */
#ifndef ACIS_H
#define ACIS_H

#include <stddef.h>
#include <stdint.h>

#include "acis_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_OK 0
#define ACIS_ERR_INVAL (-1)   /**< bad argument */
#define ACIS_ERR_NOMEM (-2)   /**< out of memory */
#define ACIS_ERR_SYS (-3)     /**< a system call failed (errno kept) */
#define ACIS_ERR_TIMEOUT (-4) /**< no answer before the deadline */
#define ACIS_ERR_REFUSED (-5) /**< the switch refused (see acis_last_error) */
#define ACIS_ERR_STATE (-6)   /**< object not usable (freed, not joined) */

/** Split color meaning "not in any new communicator" (MPI_UNDEFINED). */
#define ACIS_UNDEFINED (-1)
/** Send buffer meaning "the receive buffer holds my contribution", placed
 * as MPI_IN_PLACE places it (gather's root and allgather: block `rank`;
 * scatter's root: all P blocks, its own left in place; reduce_scatter:
 * all P blocks in, the result out at the start). */
#define ACIS_IN_PLACE ((const void *)1)

typedef struct acis_ctx acis_ctx_t;
typedef struct acis_comm acis_comm_t;
typedef struct acis_req acis_req_t;

struct acis_config {
	const char *switch_ip;   /**< the switch's IPv4 address */
	uint16_t switch_port;    /**< ACiS UDP port; 0: 47000 */
	uint32_t job;            /**< job id shared by all ranks */
	uint32_t rank;           /**< my world rank */
	uint32_t size;           /**< world size */
	const char *bind_ip;     /**< local address; NULL: any */
	uint16_t bind_port;      /**< local UDP port; 0: any */
	/** A call fails after this long without progress (no chunk
	 * answered, no block received; control: no answer); 0: 10000 */
	unsigned int timeout_ms;
	unsigned int window;     /**< chunks in flight; 0: 128 */
	unsigned int mtu;        /**< IPv4 MTU toward the switch; 0: 1500 */
	unsigned int rto_ms;     /**< resend an unanswered chunk after; 0: 100 */
	/** Most messages handed to the kernel in one send that it cuts into
	 * datagrams (UDP generic segmentation offload, UDP_SEGMENT); 0: 64;
	 * 1: off, one send per message. Each datagram is still one whole
	 * message, so the switch sees no difference. */
	unsigned int gso_segs;
	/* Fault injection (testing): each message this host sends or
	 * receives is dropped with probability fault_drop, delivered twice
	 * with probability fault_dup, and held back with probability
	 * fault_reorder until 1..fault_window later messages have passed it
	 * (or the host waits for the network), all decided by a generator
	 * seeded with fault_seed (and the rank): the same seed gives the same
	 * decisions for the same traffic. */
	double fault_drop;
	double fault_dup;
	double fault_reorder;
	unsigned int fault_window; /**< 0: 8; at most 64 */
	uint64_t fault_seed;
	/** How datagrams reach the switch: NULL or "udp", kernel sockets;
	 * "dpdk", a DPDK port of this process's own (kernel bypass). The
	 * rest are the DPDK transport's, unused by "udp". */
	const char *transport;
	/** The port: a virtual device with its arguments
	 * ("net_memif0,role=client,socket=/run/acis/h0.sock,
	 * socket-abstract=no", "net_af_xdp0,iface=eth1") or a NIC's PCI
	 * address ("0000:03:00.0"). Required with "dpdk", as is bind_ip:
	 * there is no kernel to know this host's address. */
	const char *dpdk_port;
	/** More EAL arguments, space-separated (e.g. "--log-level=*:info"). */
	const char *dpdk_eal;
	/** This host's MAC ("02:a0:..."); NULL: the port's own. */
	const char *host_mac;
	/** The switch's MAC; NULL: asked for with ARP. */
	const char *switch_mac;
	/** Poll the port this long (µs) for an awaited answer, yielding the
	 * core between polls, before napping in steps up to 1 ms; 0: 200.
	 * An idle host does not spin. */
	unsigned int poll_us;
	/** Authentication: NULL or "cookie", a random 48-bit cookie of this
	 * rank's, given the switch at JOIN and carried by every message
	 * both ways, so no other host can send in its name or answer it in
	 * the switch's (doc/threat-model.md); "off", none. */
	const char *auth;
};

/**
 * Defaults, then the environment: ACIS_SWITCH (ip[:port]), ACIS_JOB,
 * ACIS_RANK, ACIS_SIZE, ACIS_TIMEOUT_MS, ACIS_WINDOW, ACIS_MTU,
 * ACIS_RTO_MS, ACIS_GSO_SEGS, ACIS_FAULT_DROP, ACIS_FAULT_DUP,
 * ACIS_FAULT_REORDER, ACIS_FAULT_WINDOW, ACIS_FAULT_SEED, ACIS_BIND
 * (ip[:port]), ACIS_TRANSPORT (udp or dpdk), ACIS_DPDK_PORT,
 * ACIS_DPDK_EAL, ACIS_HOST_MAC, ACIS_SWITCH_MAC, ACIS_POLL_US, ACIS_AUTH
 * (cookie or off).
 */
void acis_config_default(struct acis_config *cfg);

/** Join the job; returns when every rank has joined (or on timeout).
 * On failure there is no context: acis_init_error() says why. */
int acis_init(const struct acis_config *cfg, acis_ctx_t **ctx);
/** Why this thread's last acis_init failed, in words; "" if it did not. */
const char *acis_init_error(void);
/** Leave the job and release everything (comms included). Collective
 * over the world, like MPI_Finalize: a barrier first, so no rank leaves
 * while another still needs it to confirm an answer (skipped once a
 * collective of this context failed naming a missing rank, or found the
 * switch had lost the job). The LEAVE is sent either way; a switch that
 * no longer has the job answers it NO_JOB, taken as done. */
int acis_finalize(acis_ctx_t *ctx);

acis_comm_t *acis_comm_world(acis_ctx_t *ctx);
int acis_comm_rank(const acis_comm_t *comm);
int acis_comm_size(const acis_comm_t *comm);
/** The switch's context id of a communicator. */
uint32_t acis_comm_id(const acis_comm_t *comm);

/** Collective over comm, like MPI_Comm_split: ranks with one color form a
 * communicator, ordered by (key, rank). *newcomm is NULL for color
 * ACIS_UNDEFINED. */
int acis_comm_split(acis_comm_t *comm, int color, int key,
		    acis_comm_t **newcomm);
/** Use a communicator made through management (acisctl comm-create). */
int acis_comm_attach(acis_ctx_t *ctx, uint32_t id, acis_comm_t **comm);
/** Forget a communicator made through management without freeing it on
 * the switch (management frees it); *comm becomes NULL. ACIS_ERR_STATE
 * while a request on it runs (this and acis_comm_free). */
int acis_comm_detach(acis_comm_t **comm);
/** Collective free; *comm becomes NULL. The world cannot be freed. */
int acis_comm_free(acis_comm_t **comm);

/* ---- blocking collectives ---- */
int acis_allreduce(const void *sendbuf, void *recvbuf, size_t count,
		   enum acis_dtype dt, enum acis_op op, acis_comm_t *comm);
int acis_reduce(const void *sendbuf, void *recvbuf, size_t count,
		enum acis_dtype dt, enum acis_op op, int root,
		acis_comm_t *comm);
int acis_bcast(void *buf, size_t count, enum acis_dtype dt, int root,
	       acis_comm_t *comm);
/** count elements per rank; sendbuf (root) holds size * count. */
int acis_scatter(const void *sendbuf, void *recvbuf, size_t count,
		 enum acis_dtype dt, int root, acis_comm_t *comm);
/** count elements per rank; recvbuf (root) holds size * count, in rank order. */
int acis_gather(const void *sendbuf, void *recvbuf, size_t count,
		enum acis_dtype dt, int root, acis_comm_t *comm);
int acis_allgather(const void *sendbuf, void *recvbuf, size_t count,
		   enum acis_dtype dt, acis_comm_t *comm);
/** MPI_Reduce_scatter_block: sendbuf holds size * recvcount elements. */
int acis_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
			enum acis_dtype dt, enum acis_op op,
			acis_comm_t *comm);
int acis_barrier(acis_comm_t *comm);
/** MPI_Alltoall: count elements per pair of ranks; sendbuf holds size
 * blocks of count (block j for rank j), recvbuf receives size blocks
 * (block i from rank i). Each block crosses the switch once; a rank's
 * own block is copied. ACIS_IN_PLACE: recvbuf holds the blocks to send. */
int acis_alltoall(const void *sendbuf, void *recvbuf, size_t count,
		  enum acis_dtype dt, acis_comm_t *comm);

/* ---- non-blocking collectives: start now, finish in acis_wait/test ---- */
int acis_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
		    enum acis_dtype dt, enum acis_op op, acis_comm_t *comm,
		    acis_req_t **req);
int acis_ireduce(const void *sendbuf, void *recvbuf, size_t count,
		 enum acis_dtype dt, enum acis_op op, int root,
		 acis_comm_t *comm, acis_req_t **req);
int acis_ibcast(void *buf, size_t count, enum acis_dtype dt, int root,
		acis_comm_t *comm, acis_req_t **req);
int acis_iscatter(const void *sendbuf, void *recvbuf, size_t count,
		  enum acis_dtype dt, int root, acis_comm_t *comm,
		  acis_req_t **req);
int acis_igather(const void *sendbuf, void *recvbuf, size_t count,
		 enum acis_dtype dt, int root, acis_comm_t *comm,
		 acis_req_t **req);
int acis_iallgather(const void *sendbuf, void *recvbuf, size_t count,
		    enum acis_dtype dt, acis_comm_t *comm, acis_req_t **req);
int acis_ireduce_scatter(const void *sendbuf, void *recvbuf,
			 size_t recvcount, enum acis_dtype dt, enum acis_op op,
			 acis_comm_t *comm, acis_req_t **req);
int acis_ibarrier(acis_comm_t *comm, acis_req_t **req);
int acis_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
		   enum acis_dtype dt, acis_comm_t *comm, acis_req_t **req);

/* ---- the switch steering progress (ACiS Type 4, doc/sync.md) ---- */
/** Set comm's deadline: the switch signals every member each time a
 * period of period_us (100 us to 1 h) expires, epochs 1, 2, ...; 0 stops
 * it. Any member may set it; setting again restarts the periods from
 * now, the epochs counting on. */
int acis_deadline_set(acis_comm_t *comm, uint32_t period_us);
/** Wait (up to the context's timeout) for the signal of an epoch after
 * `after`; *epoch (may be NULL) gets the latest epoch signalled. */
int acis_deadline_wait(acis_comm_t *comm, uint32_t after, uint32_t *epoch);
/** The latest epoch signalled so far (0: none yet), without waiting;
 * signals are taken in while any call of the context runs. */
uint32_t acis_deadline_epoch(const acis_comm_t *comm);
/** Tell the switch this member finished epoch's work (epochs from 1);
 * *late (may be NULL) = 1 when the epoch had expired already. The switch
 * counts reports on time and late. */
int acis_deadline_report(acis_comm_t *comm, uint32_t epoch, int *late);
/** Stale-synchronous barrier: this member finished `iteration` (1, 2,
 * ...); returns once at least `quorum` members (0: all) have finished
 * iteration - staleness or more. staleness 0 is a barrier. Fails with
 * ACIS_ERR_TIMEOUT after the context's timeout. */
int acis_ssp_done(acis_comm_t *comm, uint32_t iteration, uint32_t staleness,
		  uint32_t quorum);

/* ---- user-defined reduction operators (doc/collectives.md) ---- */

/**
 * Register a reduction written as a CGRA program (acis_cgra_asm's words,
 * at most ACIS_OP_WORDS_MAX, keeping the fold contract of acis_userop.h)
 * under name (1 to 31 characters). Every rank of the job that uses it
 * makes it, with the same name and program; the switch gives them all
 * the same number, set in *op (128..255), which allreduce, reduce and
 * reduce_scatter take like a built-in op. The switch folds it in rank
 * order, commutative or not, so results are the same bits whatever
 * order contributions arrive in. A program the CGRA refuses fails with
 * ACIS_ERR_REFUSED and the loader's message in acis_last_error; a fold
 * that faults fails that collective on every rank, naming the op.
 */
int acis_op_create(acis_ctx_t *ctx, const char *name, const uint32_t *words,
		   size_t n_words, int commutative, enum acis_op *op);
/** This rank is done with a user op (the switch frees it once every
 * rank that made it has). */
int acis_op_free(acis_ctx_t *ctx, enum acis_op op);

/**
 * A fused collective (doc/fused.md; ACiS Type 3): stage 1, then `map`,
 * a user op (acis_op_create) the switch runs once per rank on what stage
 * 1 gave that rank and on the rank's inbound buffer, then stage 2 over
 * the op's outputs -- all in the switch, with no round trip to the hosts
 * between the stages. The patterns (acis_proto.h):
 *
 *  - ALLREDUCE_OP: allreduce of the blocks, the op; result: own output;
 *  - ALLGATHER_OP: allgather of the blocks, the op; result: own output;
 *  - ALLREDUCE_OP_ALLREDUCE: allreduce, the op, allreduce of the outputs;
 *  - SCATTER_OP_REDUCE: root's size blocks scattered, the op, the
 *    outputs reduced to root (its result; the others get none);
 *  - ALLREDUCE_OP_ALLTOALL: allreduce, the op, alltoall of the outputs
 *    (each output size equal blocks; result: block `rank` of each, in
 *    rank order).
 *
 * The op streams in four little-endian words (rank, size, inbound bytes,
 * the stage-1 bytes that follow) and the stage-1 data, finds the inbound
 * buffer in bank 1 from offset 0, and must stream out out_bytes. Blocks,
 * inbound buffers and outputs are at most ACIS_FUSED_BUF_MAX bytes; what
 * the op streams in at most ACIS_FUSED_SIN_MAX. Every rank names the same
 * pattern, dtype, op, map, root and out_bytes. Reductions fold in rank
 * order with a built-in op: the same bits whatever order ranks come in.
 * A fault of the op fails the call on every rank, naming the op.
 */
struct acis_fused_args {
	enum acis_fused_pattern pattern;
	enum acis_dtype dtype;   /**< the blocks' and the outputs' */
	enum acis_op op;         /**< the reductions': a built-in op
				      (ACIS_OP_NONE for ALLGATHER_OP) */
	enum acis_op map;        /**< the op between the stages */
	int root;                /**< SCATTER_OP_REDUCE's; else ignored */
	const void *block;       /**< this rank's stage-1 block (the root of
				      SCATTER_OP_REDUCE: size blocks; the
				      others: none) */
	size_t block_bytes;
	const void *inbound;     /**< this rank's inbound buffer, or NULL */
	size_t inbound_bytes;
	size_t out_bytes;        /**< the op's output, on every rank */
	void *result;            /**< out_bytes (SCATTER_OP_REDUCE: the
				      root's only) */
};

int acis_fused(acis_comm_t *comm, const struct acis_fused_args *a);
int acis_ifused(acis_comm_t *comm, const struct acis_fused_args *a,
		acis_req_t **req);

/** Wait for a request to finish; frees it and sets *req to NULL. */
int acis_wait(acis_req_t **req);
/** Progress; *done = 1 (and *req freed, NULL) when it finished. */
int acis_test(acis_req_t **req, int *done);
/** Wait for n requests; returns the first error, all are freed. */
int acis_waitall(size_t n, acis_req_t **reqs);

const char *acis_strerror(int err);
/** What went wrong last in this context, in words. */
const char *acis_last_error(const acis_ctx_t *ctx);

/** Counters of a context (for tools and tests). */
struct acis_client_stats {
	uint64_t msgs_sent, msgs_received, bytes_sent, bytes_received;
	uint64_t busy_retries;  /**< chunks sent again after NACK BUSY */
	uint64_t retransmits;   /**< chunks sent again after the RTO */
	uint64_t faults_dropped, faults_duplicated, faults_reordered; /**< injected */
	uint64_t ctrl_retries;  /**< control requests sent again */
	uint64_t stray;         /**< messages for no request (late, foreign) */
	uint64_t unexpected;    /**< results kept until their collective began */
	uint64_t late_receipts; /**< answers confirmed again after finishing */
	uint64_t send_batches, recv_batches;
	uint64_t gso_sends;     /**< sends the kernel cut into several datagrams */
	uint64_t gso_refused;   /**< 1 if the kernel refused to segment (then off) */
	/** DPDK transport: frames received that were not ours (not for
	 * this host, malformed, bad checksum) and frames a stalled port
	 * did not take */
	uint64_t transport_drops;
	/** messages from the switch's address without this rank's cookie
	 * (forged, or for an earlier process on this port): dropped */
	uint64_t auth_rejected;
};
void acis_get_stats(const acis_ctx_t *ctx, struct acis_client_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_H */
