/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The torus stage: a switch that is a node of a torus or mesh ([torus]
 * in its pipeline, doc/torus.md) routes host-to-host frames hop by hop
 * with lib/torus's algorithms. A frame from a host to a host of another
 * node gets a torus header (EtherType 0x88B6) after its MAC addresses,
 * carrying the destination and source nodes, the route state (O1TURN's
 * order or RLB's ways, the dateline classes), the hops taken and the
 * injection time; each node routes it by that header; the destination
 * node takes the header off and delivers the frame to its host. Every
 * other frame (broadcast, to a switch, to an unknown host) takes the L2
 * stage as before. The L2 stage calls acis_torus_forward() first.
 */
#ifndef ACIS_SWITCH_TORUS_H
#define ACIS_SWITCH_TORUS_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "acis_pipeline.h"
#include "acis_torus.h"

struct acis_lcore_ctx;

/** The torus header: EtherType, then 10 bytes, then the frame's own
 * EtherType. */
#define ACIS_TORUS_ETHERTYPE 0x88B6
#define ACIS_TORUS_SHIM_LEN 12
#define ACIS_TORUS_VERSION 1

/** Torus header types (the low 4 bits of byte 2). */
enum acis_torus_type {
	ACIS_TORUS_T_UNICAST = 0, /**< a host's frame */
	ACIS_TORUS_T_CREDIT = 1,  /**< a router's free slots, one link back */
	ACIS_TORUS_T_GEN = 2,     /**< the traffic generator's (torusgen.c) */
	ACIS_TORUS_T_CUBE_MC = 3, /**< a cube multicast (seed 000 §6.3):
				       radius in misc, source node */
	ACIS_TORUS_T_CUBE_RED = 4, /**< a cube reduction (§6.4): radius in
					misc, destination node */
	ACIS_TORUS_T_TABLE = 5,   /**< table-routed (§8.1): bytes 4-7 the
				       Fig. 8.2(a) word */
};
#define ACIS_TORUS_T_MAX ACIS_TORUS_T_TABLE

/** A reduction (cube or table) sums the 32-bit big-endian words of its
 * frames from this many bytes after the torus header to the frame's
 * end (after the generator's EtherType and 24-byte header); the bytes
 * before are the first arrival's. */
#define ACIS_TORUS_SUM_OFF 26
/** Cube reductions: the largest radius a node keeps slots for. */
#define ACIS_TORUS_RED_R_MAX 2
#define ACIS_TORUS_RED_IDS 125 /* (2 x 2 + 1)^3 */

/** One lcore's torus counters. */
struct acis_torus_counters {
	uint64_t injected; /**< frames from a host, given a header */
	uint64_t transit;  /**< frames routed on toward their node */
	uint64_t ejected;  /**< frames delivered at their node */
	uint64_t hops;     /**< hops of the frames ejected, summed */
	uint64_t hops_max;
	uint64_t out[ACIS_TORUS_PORTS]; /**< frames sent by direction */
	uint64_t illegal_turns; /**< routes refused: a forbidden turn */
	uint64_t bad_header;    /**< torus headers not understood */
	uint64_t no_room;       /**< no headroom for the header */
	uint64_t dateline;      /**< hops across a ring's wrap link */
} __rte_cache_aligned;

/* ---- the router's buffers: virtual cut-through (doc/torus.md) ---- */

/** Inputs of a router: the local injection (0) and the six links. */
#define ACIS_TORUS_INPUTS (1 + ACIS_TORUS_PORTS)

/** A queued frame: what arbitration reads without touching the frame. */
struct acis_torus_slot {
	struct rte_mbuf *m;
	uint16_t distance; /**< hops left from here (farthest first) */
	uint16_t stamp;    /**< injection time (oldest first) */
	uint8_t in_cls;    /**< the class it holds in its input */
};

/** Room of one (input, output, downstream class) queue: two of an
 * input's classes may wait for one output and class (a frame keeps its
 * class or, crossing a dateline, takes the next). */
#define ACIS_TORUS_FIFO (2 * ACIS_TORUS_SLOTS_MAX)

/** One (input, output, downstream class) queue, a ring. */
struct acis_torus_fifo {
	uint8_t head, n;
	struct acis_torus_slot s[ACIS_TORUS_FIFO];
};

/** A multicast's one stored copy (seed 000 §6.3): the outputs still to
 * serve; a table multicast's header word for each. */
struct acis_torus_mslot {
	struct rte_mbuf *m;
	uint32_t word[ACIS_TORUS_PORTS + 1]; /**< table: by direction */
	uint16_t distance;
	uint16_t stamp;
	uint8_t mask;   /**< outputs left (ACIS_TORUS_DIR_BIT) */
	uint8_t obits[ACIS_TORUS_PORTS + 1]; /**< class bits after a hop
						  by d */
	uint8_t in_cls;
};

/** Room of an input's multicast queue: every class of the input. */
#define ACIS_TORUS_MFIFO (ACIS_TORUS_CLASSES * ACIS_TORUS_SLOTS_MAX)

/** An input's multicast queue: Design 3's eleventh available queue. */
struct acis_torus_mfifo {
	uint8_t head, n;
	struct acis_torus_mslot s[ACIS_TORUS_MFIFO];
};

/** The router's counters (one lcore serves a buffered router). */
struct acis_torus_vct_counters {
	uint64_t queued_max;    /**< most frames held at once */
	uint64_t grants;        /**< frames arbitration sent on */
	uint64_t grants_local;  /**< ... of them injected here */
	uint64_t credit_waits;  /**< outputs with frames but no credit, a
				     round */
	uint64_t link_waits;    /**< outputs with frames, the link busy */
	uint64_t credits_tx;    /**< credit frames sent */
	uint64_t credits_tx_bytes;
	uint64_t credits_rx;    /**< credit frames taken */
	uint64_t credits_lost;  /**< credit frames a link refused */
	uint64_t inject_full;   /**< host frames refused: injection full */
	uint64_t overruns;      /**< frames past an input's slots: an
				     upstream router that ignored credits */
	uint64_t deadlocks;     /**< watchdog reports */
	uint64_t deadlock_drops; /**< frames dropped after a report */
};

/** A buffered router's state: queues, credits both ways, arbiters. */
struct acis_torus_vct {
	/** a class's frames each input may hold: its link's slots */
	uint8_t slots[ACIS_TORUS_INPUTS];
	uint8_t inject_slots;    /**< the local input's, every class */
	uint32_t queued;         /**< frames in every queue */
	/** bit (i * ACIS_TORUS_CLASSES + c) of want[o]: fifo[i][o][c]
	 * holds frames */
	uint32_t want[ACIS_TORUS_PORTS + 1];
	uint8_t occ[ACIS_TORUS_INPUTS][ACIS_TORUS_CLASSES];
	/* receiving: frames freed of each link input, cumulative; what the
	 * last credit frame said; when it went */
	uint32_t freed[ACIS_TORUS_INPUTS][ACIS_TORUS_CLASSES];
	uint32_t told[ACIS_TORUS_INPUTS][ACIS_TORUS_CLASSES];
	uint64_t told_tsc[ACIS_TORUS_INPUTS];
	uint64_t rx_since[ACIS_TORUS_INPUTS]; /**< frames in since then */
	uint8_t dirty;           /**< inputs whose credits changed */
	/* sending: frames sent on each output, cumulative; the downstream
	 * router's freed count and slots, as its last credit frame said */
	uint32_t sent[ACIS_TORUS_PORTS + 1][ACIS_TORUS_CLASSES];
	uint32_t down_freed[ACIS_TORUS_PORTS + 1][ACIS_TORUS_CLASSES];
	uint8_t down_slots[ACIS_TORUS_PORTS + 1];
	struct acis_torus_arbiter arb[ACIS_TORUS_PORTS + 1];
	uint64_t cbp_tsc;        /**< credit period, TSC ticks */
	uint64_t refresh_tsc;    /**< credits again after this, if frames
				    came */
	uint64_t watchdog_tsc;   /**< 0: off */
	uint64_t progress_tsc;   /**< the last grant, or queues empty */
	uint64_t out_grants[ACIS_TORUS_PORTS + 1];
	struct acis_torus_vct_counters c;
	struct acis_torus_fifo fifo[ACIS_TORUS_INPUTS][ACIS_TORUS_PORTS + 1]
				   [ACIS_TORUS_CLASSES];
	uint8_t mwant; /**< inputs whose multicast queue holds frames */
	struct acis_torus_mfifo mfifo[ACIS_TORUS_INPUTS];
};

/** In-network multicast and reduction: cube (ch. 6) and tables (ch. 8). */
struct acis_torus_coll_counters {
	uint64_t mc_in;       /**< multicast frames met (cube or table) */
	uint64_t mc_copies;   /**< copies sent on toward children */
	uint64_t mc_ejected;  /**< copies delivered here */
	uint64_t red_in;      /**< reduction frames met (own included) */
	uint64_t red_done;    /**< combined frames sent on or delivered */
	uint64_t red_ejected; /**< ... of them delivered here */
	uint64_t table_in;    /**< table-routed frames met */
	uint64_t table_miss;  /**< no table, or no entry: dropped */
	uint64_t deferred;    /**< reduction frames kept for the next round
				   of their partial */
	uint64_t errors;      /**< a frame the tree does not expect here
				   (outside its cube, a second arrival of a
				   port, lengths that differ): dropped */
	uint64_t nombuf;      /**< a copy not made: no mbuf (tried again) */
	uint64_t tables_loaded;
};

/** A reduction's partial at a node: the first arrival, the others'
 * words summed into it. */
struct acis_torus_acc {
	struct rte_mbuf *m;
	uint8_t got;  /**< bit d - 1 port d, bit 6 this node's own */
	uint8_t hops; /**< the most hops of an arrival */
	uint8_t done; /**< a table entry counted its last */
	uint16_t n_defer;
	/** arrivals for the next round (their port already gave to this
	 * one), in order, linked through hold_next */
	struct rte_mbuf *defer, *defer_tail;
};

struct acis_torus_coll {
	struct acis_torus_acc cube[ACIS_TORUS_RED_IDS]; /**< by dst id */
	struct acis_torus_table *table;         /**< the worker's; NULL */
	struct acis_torus_table *pending;       /**< loaded, not yet taken */
	struct acis_torus_table *spare;         /**< the worker's old one */
	struct acis_torus_reduce_state rstate;
	struct acis_torus_acc tacc[ACIS_TORUS_TABLE_SIZE];
	struct acis_torus_coll_counters c;
};

struct acis_torus_gen;

/** A switch's torus: its place, its algorithm, where the hosts are. */
struct acis_torus_sw {
	struct acis_torus t;
	struct acis_torus_coord self;
	uint32_t node;
	uint8_t algo;
	uint16_t dir_port[7];   /**< direction -> port index (UINT16_MAX) */
	uint8_t port_dir[ACIS_MAX_PORTS]; /**< port index -> direction
					       (0: not a torus link) */
	uint16_t host_port;     /**< the one port that is no torus link,
				   where ejected frames go; UINT16_MAX if
				   there are several (the L2 table says) */
	unsigned int n_hosts;
	struct {
		uint64_t mac;   /**< acis_mac48 of the host's MAC */
		uint32_t node;
	} hosts[ACIS_MAX_TORUS_HOSTS]; /**< sorted by mac */
	uint32_t clock_hz;      /**< the router clock */
	/** router clock cycles a TSC tick, 2^32 fixed point */
	uint64_t cycles_per_tick;
	struct acis_torus_vct *vct; /**< the buffers; NULL: slots = 0 */
	struct acis_torus_coll *coll; /**< multicast, reduction, tables */
	struct acis_torus_gen *gen; /**< the traffic generator (torusgen.c) */
	struct acis_torus_rng rng[ACIS_MAX_LCORES];        /**< by lcore index */
	struct acis_torus_counters c[ACIS_MAX_LCORES];     /**< by lcore index */
};

/** The switch's torus from its pipeline's [torus]; none without one. */
int acis_torus_sw_init(char *err, size_t len);
void acis_torus_sw_fini(void);
int acis_torus_telemetry_register(void);

/** ACIS_TORUS_NOT_MINE: not a torus frame, the L2 stage decides. */
#define ACIS_TORUS_NOT_MINE (-1)
/** ACIS_TORUS_DROP: dropped, the mbuf's drop reason set. */
#define ACIS_TORUS_DROP (-2)
/** ACIS_TORUS_TAKEN: the stage keeps the frame (queued in the router's
 * buffers, or a credit frame read). */
#define ACIS_TORUS_TAKEN (-3)

/**
 * Route frame m that arrived on port in: for a torus frame the output
 * port index (the header added when the frame enters from its host,
 * taken off at its node, where the port is its host's); else
 * ACIS_TORUS_NOT_MINE (the L2 stage decides) or ACIS_TORUS_DROP.
 */
int acis_torus_forward(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
		       uint16_t in);

/**
 * Once a walk: the router's arbitration (frames out of the buffers as
 * credits and links allow), its credit frames, its watchdog, and the
 * traffic generator. Nothing to do without buffers or a generator.
 */
void acis_torus_poll(struct acis_lcore_ctx *lc);

/** Whether the router holds frames that wait for time alone (a busy
 * link), so the lcore must not sleep. */
int acis_torus_holding(void);

/** Now on the router clock, in cycles (the full count, not the 15-bit
 * stamp). */
uint64_t acis_torus_now(const struct acis_torus_sw *ts);

/**
 * Inject frame m from this node (the traffic generator's way in; hosts'
 * frames come through acis_torus_forward()): m is an Ethernet frame
 * (destination and source MACs, EtherType, payload) with room for the
 * torus header before it. The header goes in after the MACs, of type
 * type, toward node dnode, routed at every node by algo (enum
 * acis_torus_algo; -1: the switch's), and queued at the local input (or
 * sent at once without buffers): a class of traffic may have its own
 * routing.
 *
 * @return 0 (m is the stage's now), -ENOBUFS (the injection queue is
 *   full: m is still the caller's, as it was), -EINVAL (dnode is this
 *   node or outside the torus, or no headroom; m still the caller's).
 */
int acis_torus_sw_inject(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
			 uint32_t dnode, enum acis_torus_type type, int algo);

/**
 * Inject a multicast or reduction frame from this node (the traffic
 * generator's): as acis_torus_sw_inject(), of type CUBE_MC (arg unused;
 * to the cube of radius r around this node), CUBE_RED (this node's
 * contribution to node arg's cube of radius r, r up to
 * ACIS_TORUS_RED_R_MAX) or TABLE (arg the Fig. 8.2(a) word: the table
 * and index at this node). A reduction's summed words start
 * ACIS_TORUS_SUM_OFF bytes after the header, all its frames one length.
 *
 * @return 0 (taken: queued, or a reduction held for its partners),
 *   -ENOBUFS (the injection queue is full; m the caller's as it was),
 *   -EINVAL (a bad radius, node or word; m the caller's).
 */
int acis_torus_sw_inject_coll(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
			      enum acis_torus_type type, uint32_t arg,
			      unsigned int r);

/* The traffic generator (torusgen.c): a frame of type ACIS_TORUS_T_GEN
 * (or a multicast's copy, a reduction's result, a table-routed frame)
 * at its node, the torus header still on (h); the generator takes m. */
void acis_torus_gen_receive(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
			    const uint8_t *h);
/* Once a walk, from acis_torus_poll(). */
void acis_torus_gen_poll(struct acis_lcore_ctx *lc);
/* At start-up, after acis_torus_sw_init(); at the end, before its fini. */
int acis_torus_gen_init(char *err, size_t len);
void acis_torus_gen_fini(void);
int acis_torus_gen_telemetry_register(void);

#endif /* ACIS_SWITCH_TORUS_H */
