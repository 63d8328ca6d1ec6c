/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_collective: where ACiS messages addressed to the switch go. Until
 * a message type has a stage to handle it, it is counted and dropped
 * (acis_unhandled), never forwarded blindly.
 */
#include "../switch.h"

static uint16_t
coll_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	     uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint16_t i;

	for (i = 0; i < cnt; i++)
		acis_set_drop(objs[i], ACIS_DROP_ACIS_UNHANDLED);
	rte_node_next_stream_move(graph, node, ACIS_NEXT_DROP);
	lc->stats.stage_pkts[ACIS_STAGE_COLL] += cnt;
	return cnt;
}

static struct rte_node_register coll_node = {
	.name = "acis_collective",
	.process = coll_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(coll_node);
