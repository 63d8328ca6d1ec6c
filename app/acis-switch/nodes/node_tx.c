/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_tx-<port>: one clone per port. Each worker lcore transmits on its
 * own TX queue of every port, so no queue is ever shared. What the queue
 * does not take is freed and counted (tx_full), never retried in a loop
 * that would stall the other ports.
 */
#include <stdlib.h>

#include "../switch.h"

static int
tx_init(const struct rte_graph *graph, struct rte_node *node)
{
	const char *dash = strrchr(node->name, '-');

	acis_node_init_ctx(graph, node);
	/* The parent node "acis_tx" itself is never in a graph. */
	acis_node_ctx(node)->arg = dash ? (uint16_t)atoi(dash + 1) : 0;
	return 0;
}

static uint16_t
tx_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct acis_node_ctx *c = acis_node_ctx(node);
	struct acis_lcore_ctx *lc = c->lc;
	uint16_t port = c->arg;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint64_t bytes = 0;
	uint16_t i, sent;

	RTE_SET_USED(graph);
	for (i = 0; i < cnt; i++)
		bytes += pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(g_sw.ports[port].port_id,
				(uint16_t)lc->worker_index, pkts, cnt);
	if (unlikely(sent < cnt)) {
		for (i = sent; i < cnt; i++)
			bytes -= pkts[i]->pkt_len;
		rte_pktmbuf_free_bulk(&pkts[sent], cnt - sent);
		lc->stats.drops[ACIS_DROP_TX_FULL] += cnt - sent;
		lc->stats.stage_pkts[ACIS_STAGE_DROP] += cnt - sent;
	}
	lc->stats.port_tx_pkts[port] += sent;
	lc->stats.port_tx_bytes[port] += bytes;
	lc->stats.stage_pkts[ACIS_STAGE_TX] += cnt;
	return cnt;
}

static struct rte_node_register tx_node = {
	.name = "acis_tx",
	.process = tx_process,
	.init = tx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(tx_node);
