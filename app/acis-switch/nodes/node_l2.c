/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_l2: learning L2 forwarding. Learns each frame's source, looks up
 * its destination, and sends it to that port's TX stage; broadcast,
 * multicast and unknown unicast are flooded to every other port (the
 * same mbuf, reference-counted, not copied).
 */
#include "../switch.h"
#include "../torus.h"

#define NEXT_FLOOD UINT16_MAX
#define NEXT_TAKEN (UINT16_MAX - 1) /* a stage kept the frame */

static inline void
flood(struct rte_graph *graph, struct rte_node *node,
      struct acis_lcore_ctx *lc, struct rte_mbuf *m, uint16_t in_port)
{
	uint16_t n_ports = (uint16_t)g_sw.n_ports;
	/* every port but the ingress and those attached to an FPGA */
	uint32_t to = (uint32_t)((1ull << n_ports) - 1) & ~(1u << in_port) &
		      ~g_sw.l2_excluded;
	uint16_t p, copies = (uint16_t)__builtin_popcount(to);

	if (copies == 0) {
		acis_set_drop(m, ACIS_DROP_L2_FLOOD_EMPTY);
		rte_node_enqueue_x1(graph, node, ACIS_NEXT_DROP, m);
		return;
	}
	if (copies > 1)
		rte_pktmbuf_refcnt_update(m, (int16_t)(copies - 1));
	for (p = 0; p < n_ports; p++)
		if (to & (1u << p))
			rte_node_enqueue_x1(graph, node, ACIS_NEXT_TX_BASE + p,
					    m);
	lc->stats.flooded++;
	lc->stats.flood_copies += copies;
}

static uint16_t
l2_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE * 4];
	uint8_t do_flood = g_sw.pl->flood;
	struct acis_l2_memo memo;
	uint16_t i, done = 0;

	acis_l2_memo_init(&memo);
	while (done < cnt) {
		uint16_t n = RTE_MIN((uint16_t)(cnt - done),
				     (uint16_t)RTE_DIM(nexts));
		int floods = 0;

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = objs[done + i];
			const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
			uint16_t in = acis_meta(m)->in_port;
			int out;

			if (unlikely(g_sw.torus != NULL) &&
			    (out = acis_torus_forward(lc, m, in)) !=
			    ACIS_TORUS_NOT_MINE) {
				if (out == ACIS_TORUS_TAKEN) {
					/* the router keeps it */
					nexts[i] = NEXT_TAKEN;
					floods = 1;
					continue;
				}
				nexts[i] = out >= 0 ?
					(uint16_t)(ACIS_NEXT_TX_BASE + out) :
					ACIS_NEXT_DROP;
				continue;
			}
			/* (an unwrapped frame starts elsewhere) */
			eth = rte_pktmbuf_mtod(m, const uint8_t *);
			out = acis_l2_decide(lc, &memo, eth, in);

			if (out == ACIS_L2_FLOOD) {
				nexts[i] = NEXT_FLOOD;
				floods = 1;
				continue;
			}
			if (likely(out >= 0 && out != in)) {
				nexts[i] = (uint16_t)(ACIS_NEXT_TX_BASE + out);
			} else if (out == in) {
				acis_set_drop(m, ACIS_DROP_L2_SAME_PORT);
				nexts[i] = ACIS_NEXT_DROP;
			} else if (do_flood) {
				nexts[i] = NEXT_FLOOD;
				floods = 1;
			} else {
				acis_set_drop(m, ACIS_DROP_L2_UNKNOWN_DST);
				nexts[i] = ACIS_NEXT_DROP;
			}
		}
		if (!floods) {
			acis_enqueue_runs(graph, node, &objs[done], nexts, n);
		} else {
			/* Keep arrival order on every port (a frame a stage
			 * kept goes nowhere). */
			for (i = 0; i < n; i++) {
				struct rte_mbuf *m = objs[done + i];

				if (nexts[i] == NEXT_FLOOD)
					flood(graph, node, lc, m,
					      acis_meta(m)->in_port);
				else if (nexts[i] == NEXT_TAKEN)
					continue;
				else
					rte_node_enqueue_x1(graph, node,
							    nexts[i], m);
			}
		}
		done += n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_L2] += cnt;
	return cnt;
}

/* Edges to every port's TX stage are added at start-up (switch.c). */
static struct rte_node_register l2_node = {
	.name = "acis_l2",
	.process = l2_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(l2_node);
