/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_handoff and acis_ring_rx: the bridge between lcores. The parse
 * stage names the worker that must process a packet (meta->owner); the
 * handoff stage puts it on the ring to that worker, one single-producer/
 * single-consumer ring per (rx lcore, worker) pair, so no two lcores ever
 * contend for a ring end. A worker polls its rings and dispatches each
 * packet by the class the parser stored.
 */
#include "../switch.h"

static uint16_t
handoff_process(struct rte_graph *graph, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	struct rte_mbuf *per[ACIS_MAX_WORKERS][64];
	uint16_t nper[ACIS_MAX_WORKERS];
	uint16_t w, i, done = 0;

	while (done < cnt) {
		uint16_t n = RTE_MIN((uint16_t)(cnt - done), (uint16_t)64);

		memset(nper, 0, sizeof(nper[0]) * lc->n_out);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = objs[done + i];

			w = acis_meta(m)->owner;
			per[w][nper[w]++] = m;
		}
		for (w = 0; w < lc->n_out; w++) {
			unsigned int sent;

			if (nper[w] == 0)
				continue;
			if (unlikely(lc->out[w] == NULL)) { /* cannot happen */
				for (i = 0; i < nper[w]; i++) {
					acis_set_drop(per[w][i],
						      ACIS_DROP_HANDOFF_FULL);
					rte_node_enqueue_x1(graph, node, 0,
							    per[w][i]);
				}
				continue;
			}
			sent = rte_ring_sp_enqueue_burst(lc->out[w],
					(void **)per[w], nper[w], NULL);
			for (i = (uint16_t)sent; i < nper[w]; i++) {
				acis_set_drop(per[w][i], ACIS_DROP_HANDOFF_FULL);
				rte_node_enqueue_x1(graph, node, 0, per[w][i]);
			}
		}
		done += n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_HANDOFF] += cnt;
	return cnt;
}

static struct rte_node_register handoff_node = {
	.name = "acis_handoff",
	.process = handoff_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {"acis_drop"},
};

RTE_NODE_REGISTER(handoff_node);

static const uint16_t class_next[ACIS_CLASS_MAX] = {
	[ACIS_CLASS_FORWARD] = ACIS_NEXT_L2,
	[ACIS_CLASS_ARP] = ACIS_NEXT_LOCAL,
	[ACIS_CLASS_ICMP] = ACIS_NEXT_LOCAL,
	[ACIS_CLASS_ACIS] = ACIS_NEXT_COLL,
	[ACIS_CLASS_LOOKASIDE] = ACIS_NEXT_LA,
	[ACIS_CLASS_DROP] = ACIS_NEXT_DROP,
};

static uint16_t
ring_rx_process(struct rte_graph *graph, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	struct rte_mbuf *pkts[RTE_GRAPH_BURST_SIZE];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t burst = RTE_MIN(g_sw.pl->burst, (uint16_t)RTE_GRAPH_BURST_SIZE);
	uint16_t r, i, total = 0;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	for (r = 0; r < lc->n_in; r++) {
		unsigned int n = rte_ring_sc_dequeue_burst(lc->in[r],
				(void **)pkts, burst, NULL);

		for (i = 0; i < n; i++)
			nexts[i] = class_next[acis_meta(pkts[i])->cls];
		acis_enqueue_runs(graph, node, (void **)pkts, nexts,
				  (uint16_t)n);
		total += (uint16_t)n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_RING_RX] += total;
	lc->last_rx += total;
	return total;
}

static struct rte_node_register ring_rx_node = {
	.name = "acis_ring_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = ring_rx_process,
	.init = acis_node_init_ctx,
	.nb_edges = 5,
	.next_nodes = {
		[ACIS_NEXT_DROP] = "acis_drop",
		[ACIS_NEXT_L2] = "acis_l2",
		[ACIS_NEXT_LOCAL] = "acis_local",
		[ACIS_NEXT_COLL] = "acis_collective",
		[ACIS_NEXT_LA] = "acis_lookaside",
	},
};

RTE_NODE_REGISTER(ring_rx_node);
