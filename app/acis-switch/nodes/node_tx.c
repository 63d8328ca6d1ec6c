/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_tx-<port>: one clone per port. Each worker lcore transmits on its
 * own TX queue of every port, so no queue is ever shared (acis_tx_send:
 * what the queue does not take is freed and counted). A port with faults
 * on ([fault PORT], acisctl fault-set) passes its frames through the
 * fault stage first.
 */
#include <stdlib.h>

#include "../tx.h"

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

	RTE_SET_USED(graph);
	lc->stats.stage_pkts[ACIS_STAGE_TX] += cnt;
	acis_tx_port(lc, port, pkts, cnt);
	return cnt;
}

static struct rte_node_register tx_node = {
	.name = "acis_tx",
	.process = tx_process,
	.init = tx_init,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(tx_node);
