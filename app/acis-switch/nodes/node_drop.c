/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_drop: the one place packets die. Counts each under the reason the
 * stage that rejected it recorded, then frees the vector in bulk
 * (acis_frame_free_bulk).
 */
#include "../switch.h"

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	     uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint16_t i;

	RTE_SET_USED(graph);
	for (i = 0; i < cnt; i++) {
		uint8_t r = acis_meta(objs[i])->drop_reason;

		lc->stats.drops[r < ACIS_DROP_MAX ? r : ACIS_DROP_NONE]++;
	}
	acis_frame_free_bulk((struct rte_mbuf **)objs, cnt);
	lc->stats.stage_pkts[ACIS_STAGE_DROP] += cnt;
	return cnt;
}

static struct rte_node_register drop_node = {
	.name = "acis_drop",
	.process = drop_process,
	.init = acis_node_init_ctx,
	.nb_edges = 0,
};

RTE_NODE_REGISTER(drop_node);
