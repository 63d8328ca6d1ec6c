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
	/** router clock cycles a TSC tick, 2^32 fixed point */
	uint64_t cycles_per_tick;
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

/**
 * Route frame m that arrived on port in: for a torus frame the output
 * port index (the header added when the frame enters from its host,
 * taken off at its node, where the port is its host's); else
 * ACIS_TORUS_NOT_MINE (the L2 stage decides) or ACIS_TORUS_DROP.
 */
int acis_torus_forward(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
		       uint16_t in);

#endif /* ACIS_SWITCH_TORUS_H */
