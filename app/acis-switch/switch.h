/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's runtime: ports, lcores, the graph of stages and the counters
 * they keep. A process runs one switch or several logical ones
 * (doc/fabric.md): each is a struct acis_switch, and a thread works on one
 * at a time, its current switch (acis_cur, read as g_sw). An lcore makes
 * each of its switches current before it walks that switch's graph; a
 * management command makes the switch it names current. The stage nodes
 * read it, the telemetry thread reads the counters, only start-up code
 * writes it.
 */
#ifndef ACIS_SWITCH_H
#define ACIS_SWITCH_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acis_xdp.h"
#include "acis_l2.h"
#include "coll.h"
#include "acis_pipeline.h"
#include "acis_pkt.h"

#define ACIS_VERSION "0.1.0"
#define ACIS_MAX_WORKERS 64
#define ACIS_MAX_RX_LCORES 64
/* logical switches one process runs */
#define ACIS_MAX_SWITCHES 512

/* Per-packet metadata, kept in the mbuf's private area. The parse stage
 * writes it for every frame it parses in full; a frame it sends on by the
 * direct path carries none (what is there is left from the mbuf's last
 * use), and no stage after it reads any. */
struct acis_mbuf_meta {
	struct acis_pkt_info pi;
	uint16_t in_port;   /**< port index (not ethdev id) */
	uint8_t cls;        /**< enum acis_class */
	uint8_t drop_reason;
	uint16_t owner;     /**< worker index that must process it */
	uint8_t la_rule;    /**< look-aside: index of its [lookaside] rule */
	uint32_t hold_rank; /**< collective: rank of a held contribution */
	struct rte_mbuf *hold_next; /**< collective: held list link */
} __rte_aligned(8);

#define ACIS_MBUF_PRIV_SIZE RTE_ALIGN(sizeof(struct acis_mbuf_meta), RTE_MBUF_PRIV_ALIGN)

static inline struct acis_mbuf_meta *
acis_meta(struct rte_mbuf *m)
{
	return (struct acis_mbuf_meta *)rte_mbuf_to_priv(m);
}

/* A plain frame: a direct, unshared, single-segment mbuf (every frame a
 * port delivers whole), its bytes this holder's alone. */
static inline int
acis_frame_plain(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 && RTE_MBUF_DIRECT(m) &&
	       rte_mbuf_refcnt_read(m) == 1;
}

/* Frees a frame. A plain one goes straight back to its pool:
 * rte_pktmbuf_free first reads m->next, in the mbuf's second cache line,
 * which nothing else on the switch's path reads, so it costs a miss per
 * frame; a single segment's next is NULL by the mbuf invariant. Anything
 * else (chains, clones, shared segments) takes the general path. */
static inline void
acis_frame_free(struct rte_mbuf *m)
{
	if (likely(acis_frame_plain(m)))
		rte_mbuf_raw_free(m);
	else
		rte_pktmbuf_free(m);
}

/* Frees n frames: the plain ones back to their pools in bulk, a run per
 * pool (as rte_pktmbuf_free_bulk, without reading m->next). */
static inline void
acis_frame_free_bulk(struct rte_mbuf **m, unsigned int n)
{
	struct rte_mempool *pool = NULL;
	void *run[64];
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *f = m[i];

		if (unlikely(!acis_frame_plain(f))) {
			rte_pktmbuf_free(f);
			continue;
		}
		if (k == RTE_DIM(run) || (k != 0 && f->pool != pool)) {
			rte_mempool_put_bulk(pool, run, k);
			k = 0;
		}
		pool = f->pool;
		run[k++] = f;
	}
	if (k != 0)
		rte_mempool_put_bulk(pool, run, k);
}

/* Stages, for per-stage counters. */
#define ACIS_STAGES(X)                                                        \
	X(RX, "rx")                                                           \
	X(PARSE, "parse")                                                     \
	X(HANDOFF, "handoff")                                                 \
	X(RING_RX, "ring_rx")                                                 \
	X(L2, "l2_forward")                                                   \
	X(LOCAL, "local")                                                     \
	X(COLL, "collective")                                                 \
	X(LOOKASIDE, "lookaside")                                             \
	X(TX, "tx")                                                           \
	X(DROP, "drop")

enum acis_stage {
#define ACIS_X_STAGE(e, n) ACIS_STAGE_##e,
	ACIS_STAGES(ACIS_X_STAGE)
#undef ACIS_X_STAGE
	ACIS_STAGE_MAX
};

extern const char *const acis_stage_names[ACIS_STAGE_MAX];

/* Edges shared by the nodes that dispatch on class. */
enum {
	ACIS_NEXT_DROP = 0,
	ACIS_NEXT_L2,
	ACIS_NEXT_LOCAL,
	ACIS_NEXT_COLL,
	ACIS_NEXT_LA,
	ACIS_NEXT_HANDOFF, /* parse only */
};
/* Nodes that transmit: edge ACIS_NEXT_TX_BASE + port index. */
#define ACIS_NEXT_TX_BASE 1
/* The parse stage sends passing frames it forwards itself (known unicast
 * destination) to edge ACIS_PARSE_TX_BASE + port index. */
#define ACIS_PARSE_TX_BASE (ACIS_NEXT_HANDOFF + 1)

/* Counters of one lcore; written only by that lcore. */
struct acis_lcore_stats {
	uint64_t stage_pkts[ACIS_STAGE_MAX];
	uint64_t drops[ACIS_DROP_MAX];
	uint64_t port_rx_pkts[ACIS_MAX_PORTS];
	uint64_t port_rx_bytes[ACIS_MAX_PORTS];
	uint64_t port_tx_pkts[ACIS_MAX_PORTS];
	uint64_t port_tx_bytes[ACIS_MAX_PORTS];
	uint64_t flooded;      /**< frames flooded (not copies) */
	uint64_t flood_copies; /**< copies sent by flooding */
	uint64_t learned;      /**< new or moved stations */
	uint64_t arp_replies;
	uint64_t arp_in;       /**< ARP replies to the switch, consumed */
	uint64_t icmp_replies;
	uint64_t polls;        /**< graph walks */
	uint64_t idle_polls;   /**< walks that found no packet */
	uint64_t rx_direct;    /**< frames the RX stage transmitted itself */
	/* ports with RX checksum offload, frames the parse stage classifies
	 * (forwarded ones too): L4 (UDP or TCP) checksums the device found
	 * good and bad; of those addressed to the switch, a good one is not
	 * verified again, a bad one is, in software */
	uint64_t port_csum_good[ACIS_MAX_PORTS];
	uint64_t port_csum_bad[ACIS_MAX_PORTS];
	/* collective answers a port's TX queue refused, kept to send at a
	 * later walk (acis_tx_hold), and those sent since */
	uint64_t port_tx_held[ACIS_MAX_PORTS];
	uint64_t port_tx_held_sent[ACIS_MAX_PORTS];
} __rte_cache_aligned;

/*
 * Collective answers a port's TX queue refused, kept by the worker to
 * send before anything else on that queue at its next walks, instead of
 * being dropped: a completion may owe more answers than a queue holds.
 * While a port holds some, the collective stage's fan-outs send it no
 * more (they keep their place and go on later). Frames that wait longer than
 * ACIS_TX_HOLD_MS without the queue taking any are dropped as tx_full,
 * and at once as tx_link_down once the port's link is down (a peer that
 * is gone); the switch's resends recover them.
 */
#define ACIS_TX_HOLD 1024
#define ACIS_TX_HOLD_MS 250

struct acis_tx_hold {
	uint16_t n;
	uint64_t since; /**< tsc when the queue last took one of these */
	struct rte_mbuf *m[ACIS_TX_HOLD];
};

/*
 * Frames a worker's collective stage may build in one walk for
 * completions, resends and control answers to many members; the rest
 * goes at the next walks (node_collective.c). It keeps what one walk
 * enqueues to a port's TX stage far below the graph's stream limit
 * (65535 objects a node in DPDK 22.11, an abort past it) and within what
 * a TX queue takes at once.
 */
#define ACIS_ANSWERS_PER_WALK 512

struct acis_fault_lc;

struct acis_rxq {
	uint16_t port; /**< port index */
	uint16_t port_id;
	uint16_t queue;
	struct rte_ring *ring; /**< a ring pair's inbound ring, else NULL */
};

struct acis_lcore_ctx {
	struct acis_switch *sw; /**< the switch whose graph this is */
	unsigned int lcore_id;
	unsigned int roles;
	unsigned int index; /**< in the pipeline's lcore list */
	int worker_index;   /**< -1 when not a worker; else its TX queue */
	char graph_name[RTE_GRAPH_NAMESIZE];
	struct rte_graph *graph;
	uint16_t n_rxq;
	struct acis_rxq rxq[ACIS_MAX_PORTS];
	/* lcores with the rx role: a ring to each worker but themselves,
	 * indexed by worker index (NULL for itself) */
	uint16_t n_out;
	struct rte_ring *out[ACIS_MAX_WORKERS];
	struct acis_coll_shard *shard; /**< workers: aggregation slots */
	/* workers: one ring from each other lcore with the rx role */
	uint16_t n_in;
	struct rte_ring *in[ACIS_MAX_RX_LCORES];
	uint16_t last_rx; /**< packets found by the last walk (for idle sleep) */
	uint64_t next_sweep; /**< tsc of the next collective deadline sweep */
	struct acis_fault_lc *fault[ACIS_MAX_PORTS]; /**< workers: per port */
	/** workers: answers a port's TX queue refused (acis_tx_hold), and
	 * the ports that hold some */
	struct acis_tx_hold *txh[ACIS_MAX_PORTS];
	uint32_t txh_ports;
	/** workers: answer frames this walk may still build */
	int32_t answer_budget;
	struct acis_lcore_stats stats;
} __rte_cache_aligned;

#define ACIS_PORT_XSK_MAX 16

/* The id a ring pair's port (no ethdev) has where an ethdev id goes: in
 * its frames' m->port and the port_index map. */
#define ACIS_RING_PORT_ID(idx) (RTE_MAX_ETHPORTS + (idx))

struct acis_port_rt {
	uint16_t port_id; /**< ethdev id, or ACIS_RING_PORT_ID */
	/** a ring pair's rings (doc/fabric.md), else NULL: the port is no
	 * ethdev, TX puts into ring_out, RX takes from ring_in */
	struct rte_ring *ring_out;
	struct rte_ring *ring_in;
	uint8_t ring_down; /**< a ring pair's link set down (port/link) */
	uint16_t n_rxq;
	uint16_t n_txq;
	uint8_t resolved; /**< port_id is ours to stop and close */
	/** the driver reads its link without a system call (memif): a TX
	 * queue's refusal is told apart as tx_link_down when the link is */
	uint8_t link_cheap;
	/** AF_XDP: the sockets the PMD made for this port (one a queue) */
	struct acis_xsk_ref xsk[ACIS_PORT_XSK_MAX];
	uint16_t n_xsk;
	char ethdev_name[RTE_ETH_NAME_MAX_LEN];
};

struct acis_la_state;
struct acis_fault_port;
struct acis_rel_port;

struct acis_switch {
	struct acis_pipeline *pl;
	/** its name ([switch] name, else the pipeline file's) and place in
	 * the process's list of switches */
	char name[ACIS_NAME_LEN];
	unsigned int index;
	/** its look-aside rules and fault stage (lookaside.h, fault.h) */
	struct acis_la_state *la;
	struct acis_fault_port *fault;
	struct acis_classify_cfg ccfg;
	struct rte_mempool *pool;
	struct acis_l2_table *l2;
	uint64_t tsc_hz;
	uint64_t start_tsc;
	unsigned int n_ports;
	int has_memif;           /**< a port is net_memif (populate its peers) */
	struct acis_port_rt ports[ACIS_MAX_PORTS];
	/** ethdev id (or ACIS_RING_PORT_ID) -> port index */
	uint16_t port_index[RTE_MAX_ETHPORTS + ACIS_MAX_PORTS];
	unsigned int n_lcores;
	struct acis_lcore_ctx *lcores[ACIS_MAX_LCORES];
	unsigned int n_workers;
	uint32_t idle_sleep_us; /**< sleep after this many idle walks; 0 never */
	uint8_t ctrl_restricted; /**< control_from or control_ports given */
	/** ports out of L2: attached FPGAs (no flooding to, no learning on) */
	uint32_t l2_excluded;
	/** ports whose device sends chained (multi-segment) frames: answers
	 * to several members there share one payload segment */
	uint32_t chain_ports;
	/** ports whose device verifies IPv4 header / UDP checksums on
	 * receive (RX offload on): their good verdicts are not checked again */
	uint32_t csum_ip_ports;
	uint32_t csum_l4_ports;
	/** mbufs each worker's aggregation slots may keep at once */
	uint32_t lend_max;
	/** contributions each worker may hold for rank order at once */
	uint32_t hold_max;
	/** the mbuf flag (a dynamic flag) of the collective stage's
	 * answers, which TX keeps when its queue refuses them; 0 if none */
	uint64_t answer_flag;
	struct acis_coll_state coll;
	/** reliable links' state, per port (rel.h); NULL for the others */
	struct acis_rel_port *rel[ACIS_MAX_PORTS];
	unsigned int n_rel;
	/** a node of a torus or mesh ([torus], torus.h); NULL otherwise */
	struct acis_torus_sw *torus;
};

/* The calling thread's current switch; the process's first switch until
 * the thread makes another current (acis_switch_enter). */
extern __thread struct acis_switch *acis_cur
	__attribute__((tls_model("initial-exec")));
#define g_sw (*acis_cur)

static inline void
acis_switch_enter(struct acis_switch *sw)
{
	acis_cur = sw;
}

/* The process's switches, in the order of their pipelines. */
extern struct acis_switch *acis_switches[ACIS_MAX_SWITCHES];
extern unsigned int acis_n_switches;
/* The switch named so, or NULL. */
struct acis_switch *acis_switch_by_name(const char *name);
/* A new switch object (its look-aside and fault state with it), added to
 * the list; the first is the process's static one. NULL when out of
 * memory or switches. */
struct acis_switch *acis_switch_new(void);
/* Every switch object but the first, freed (once they are finished). */
void acis_switches_release(void);

/* Set on SIGINT/SIGTERM (or --idle-exit): every lcore leaves its loop. */
extern volatile int acis_quit;

/* A ring pair hands the frame itself to the other switch, which writes
 * its metadata and may fold into its payload, perhaps on another lcore
 * at once: a frame shared with anyone else (a flood's copies, a payload
 * several answers carry) goes as a private copy; a plain one, the
 * common case, as it is. (The frame is left as it was when no mbuf is
 * free: it is then sent shared.) */
void acis_ring_pair_own(struct rte_mbuf **m, uint16_t n);

/* Transmit on queue q of port (an index): its ethdev's queue, or a ring
 * pair's outbound ring (none while its link is set down). */
static inline uint16_t
acis_port_tx_burst(uint16_t port, uint16_t q, struct rte_mbuf **m,
		   uint16_t n)
{
	const struct acis_port_rt *pr = &g_sw.ports[port];

	if (unlikely(pr->ring_out != NULL)) {
		if (pr->ring_down)
			return 0;
		acis_ring_pair_own(m, n);
		return (uint16_t)rte_ring_enqueue_burst(pr->ring_out,
							(void **)m, n, NULL);
	}
	return rte_eth_tx_burst(pr->port_id, q, m, n);
}

/* The checksums port (an index) verified in hardware and found good, as
 * ACIS_HW_*_CSUM_OK bits for acis_pkt_classify_hw; 0 on ports without RX
 * checksum offload, whatever the mbuf's flags say. Counts the port's L4
 * verdicts (UDP or TCP, of every frame classified). */
static inline unsigned int
acis_hw_csum(struct acis_lcore_stats *st, const struct rte_mbuf *m,
	     uint16_t port)
{
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	unsigned int hw = 0;

	if (likely(!((g_sw.csum_ip_ports | g_sw.csum_l4_ports) &
		     (1u << port))))
		return 0;
	if ((g_sw.csum_ip_ports & (1u << port)) &&
	    (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
	    RTE_MBUF_F_RX_IP_CKSUM_GOOD)
		hw |= ACIS_HW_IP_CSUM_OK;
	if (g_sw.csum_l4_ports & (1u << port)) {
		if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
			hw |= ACIS_HW_L4_CSUM_OK;
			st->port_csum_good[port]++;
		} else if (l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
			st->port_csum_bad[port]++;
		}
	}
	return hw;
}

/* Lcore whose graph is being created; node init callbacks read it. */
extern struct acis_lcore_ctx *acis_creating_lcore;

/* Format an error into err; returns rc if negative, else -EINVAL. */
int acis_errf(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Start-up and shutdown (switch.c). Returns 0 or a negative errno, with a
 * message in err. */
int acis_switch_init(struct acis_pipeline *pl, char *err, size_t errlen);
/* What one EAL lcore runs: an lcore context of each switch that names
 * it, walked in turn (acis_switch_run_lcores). */
struct acis_lcore_run {
	unsigned int n;
	struct acis_lcore_ctx *lc[ACIS_MAX_SWITCHES];
};
int acis_switch_run_lcores(void *arg);
/* The same for one lcore context (a struct acis_lcore_ctx *). */
int acis_switch_run_lcore(void *arg);
/* Free the rings of ring_pair links, once every switch is finished. */
void acis_switch_rings_free(void);
/* The pipeline device of one end of a link between two switches of the
 * process: ring_pair:LINK:a or ring_pair:LINK:b (doc/pipelines.md). */
#define ACIS_RING_PAIR "ring_pair:"
/* The most ports any switch of the process has: every switch's graphs
 * have that many TX edges (set before the switches start; 0 for one). */
extern unsigned int acis_graph_ports;
/* One pass of an lcore: a walk of its graph, then what a worker does
 * between walks (RCU quiescent state, look-aside mailboxes, held faulty
 * frames due). The lcore loop repeats it; tests call it directly. */
void acis_switch_walk(struct acis_lcore_ctx *lc);
void acis_switch_fini(void);
/* The current switch's mbuf pool, freed: by acis_switch_fini for a process
 * of one switch; for several, after every switch is finished. */
void acis_switch_pool_free(void);
/* Fault in the shared memory of memif peers that connected since the last
 * call (the supervisor's second), so their first frames do not. */
void acis_switch_populate_memif(void);

struct rte_tel_data;
/* Register a management command: it answers for the switch its first
 * parameter @SWITCH names, else the first (stats.c). */
int acis_tel_register(const char *cmd,
		      int (*fn)(const char *cmd, const char *params,
				struct rte_tel_data *d),
		      const char *help);
/* A management command's refusal: the reply {"error": "..."} (acisctl
 * exits non-zero on it). Returns 0, for the command to return. */
int acis_tel_error(struct rte_tel_data *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Counters summed over lcores (stats.c). */
void acis_stats_sum(struct acis_lcore_stats *out);
void acis_stats_print(FILE *f);
int acis_telemetry_register(void);

/* Seconds since start, for ageing (cheap: one rdtsc and a divide). */
static inline uint32_t
acis_now_sec(void)
{
	return (uint32_t)((rte_rdtsc() - g_sw.start_tsc) / g_sw.tsc_hz);
}

/* Learn a frame's source; shared by the l2 and local stages. 1 when the
 * table changed (a new station, or one that moved). */
static inline int
acis_learn(struct acis_lcore_ctx *lc, const uint8_t *src, uint16_t port,
	   uint32_t now)
{
	if (g_sw.pl->learning && !(g_sw.l2_excluded & (1u << port)) &&
	    acis_l2_learn(g_sw.l2, src, port, now) > 0) {
		lc->stats.learned++;
		return 1;
	}
	return 0;
}

/* The L2 decision of one burst. Frames of a burst mostly belong to few
 * conversations: the last source learned and the last destination looked
 * up are remembered, so a run of frames between the same stations costs
 * one table visit each way. Learning something new forgets the
 * destination, which may have been that very station. */
struct acis_l2_memo {
	uint64_t src, dst;
	uint32_t now;   /* the clock, read at the burst's first decision */
	uint16_t in;
	uint8_t learned; /* set when a decision changed the table */
	int out;
};

#define ACIS_L2_FLOOD (-2)

static inline void
acis_l2_memo_init(struct acis_l2_memo *c)
{
	/* no MAC reads as UINT64_MAX: the first decision learns and looks up */
	c->src = c->dst = UINT64_MAX;
	c->in = UINT16_MAX;
	c->out = -1;
	c->now = UINT32_MAX;
	c->learned = 0;
}

/* Learn the frame's source, then: its destination's port, -1 when
 * unknown, ACIS_L2_FLOOD for broadcast and multicast. */
static inline int
acis_l2_decide(struct acis_lcore_ctx *lc, struct acis_l2_memo *c,
	       const uint8_t *eth, uint16_t in)
{
	uint64_t k = acis_mac48(eth + 6);

	if (k != c->src || in != c->in) {
		/* a burst with no frame to decide reads no clock */
		if (c->now == UINT32_MAX)
			c->now = acis_now_sec();
		if (acis_learn(lc, eth + 6, in, c->now)) {
			c->dst = UINT64_MAX;
			c->learned = 1;
		}
		c->src = k;
		c->in = in;
	}
	if (unlikely(eth[0] & 1))
		return ACIS_L2_FLOOD;
	k = acis_mac48(eth);
	if (k != c->dst) {
		c->out = acis_l2_lookup(g_sw.l2, eth, c->now);
		c->dst = k;
	}
	return c->out;
}

/* Mark a packet dropped for a reason; it then goes to ACIS_NEXT_DROP. */
static inline void
acis_set_drop(struct rte_mbuf *m, enum acis_drop_reason r)
{
	acis_meta(m)->drop_reason = (uint8_t)r;
}

/* The drop reason of an ACiS header fault (acis_msg_parse): the reasons
 * acis_truncated .. acis_bad_chunk follow enum acis_hdr_error. */
static inline enum acis_drop_reason
acis_hdr_error_drop(enum acis_hdr_error e)
{
	RTE_BUILD_BUG_ON(ACIS_DROP_ACIS_BAD_CHUNK - ACIS_DROP_ACIS_TRUNC !=
			 ACIS_E_CHUNK - ACIS_E_TRUNCATED);
	RTE_BUILD_BUG_ON(ACIS_DROP_ACIS_BAD_VERSION - ACIS_DROP_ACIS_TRUNC !=
			 ACIS_E_VERSION - ACIS_E_TRUNCATED);
	return (enum acis_drop_reason)(ACIS_DROP_ACIS_TRUNC +
				       (e - ACIS_E_TRUNCATED));
}

/* Node context: every node keeps a pointer to its lcore. */
struct acis_node_ctx {
	struct acis_lcore_ctx *lc;
	uint16_t arg; /* node-specific (tx: port index) */
};

static inline struct acis_node_ctx *
acis_node_ctx(struct rte_node *node)
{
	return (struct acis_node_ctx *)node->ctx;
}

int acis_node_init_ctx(const struct rte_graph *graph, struct rte_node *node);



/*
 * Hand a processed vector on: nexts[i] is the edge of objs[i]. The common
 * case, every packet to one edge, moves the whole stream (a pointer swap);
 * otherwise runs of equal edges are enqueued in order.
 */
static inline void
acis_enqueue_runs(struct rte_graph *graph, struct rte_node *node, void **objs,
		  const uint16_t *nexts, uint16_t n)
{
	uint16_t i, start = 0;

	if (n == 0)
		return;
	for (i = 1; i < n; i++)
		if (nexts[i] != nexts[0])
			break;
	if (i == n && objs == node->objs && n == node->idx) {
		rte_node_next_stream_move(graph, node, nexts[0]);
		return;
	}
	for (i = 1; i <= n; i++) {
		if (i == n || nexts[i] != nexts[start]) {
			rte_node_enqueue(graph, node, nexts[start],
					 &objs[start], i - start);
			start = i;
		}
	}
}
#endif /* ACIS_SWITCH_H */
