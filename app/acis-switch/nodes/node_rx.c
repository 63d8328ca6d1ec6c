/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_rx: the poll-mode source. Each lcore polls its own RX queue of each
 * port it was given, a burst at a time, straight into the parse stage's
 * stream: no copy, no per-packet work here.
 */
#include "../switch.h"

static uint16_t
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint16_t burst = g_sw.pl->burst;
	uint16_t i, j, n, total = 0;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	for (i = 0; i < lc->n_rxq; i++) {
		const struct acis_rxq *q = &lc->rxq[i];
		void **to = rte_node_next_stream_get(graph, node, 0, burst);
		uint64_t bytes = 0;

		n = rte_eth_rx_burst(q->port_id, q->queue,
				     (struct rte_mbuf **)to, burst);
		if (n == 0)
			continue;
		/* Not every PMD fills mbuf->port (net_ring does not): the
		 * parse stage reads it, in the line it reads anyway. */
		for (j = 0; j < n; j++) {
			struct rte_mbuf *m = to[j];

			m->port = q->port_id;
			bytes += m->pkt_len;
		}
		rte_node_next_stream_put(graph, node, 0, n);
		lc->stats.port_rx_pkts[q->port] += n;
		lc->stats.port_rx_bytes[q->port] += bytes;
		total += n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_RX] += total;
	lc->last_rx += total;
	return total;
}

static struct rte_node_register rx_node = {
	.name = "acis_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = rx_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {"acis_parse"},
};

RTE_NODE_REGISTER(rx_node);
