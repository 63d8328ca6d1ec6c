/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_local: the switch's own address. Answers ARP requests for its IP
 * and ICMP echo requests to it, rewriting the frame in place and sending
 * it back out of the port it came in on. Rare traffic, so clarity wins
 * over vector tricks here.
 */
#include <rte_byteorder.h>

#include "../switch.h"

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Rewrite an echo request into the echo reply, in place. */
static void
icmp_reply(uint8_t *eth, const struct acis_pkt_info *pi)
{
	uint8_t *ip = eth + pi->l3_off;
	uint8_t *icmp = eth + pi->l4_off;
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
	uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);

	/* back where it came from, from the switch's own MAC whatever the
	 * request was addressed to */
	acis_pkt_swap(eth, pi->l3_off, 0);
	memcpy(eth + 6, g_sw.ccfg.mac, 6);
	ip[8] = 64; /* fresh TTL */
	put16(ip + 10, 0);
	put16(ip + 10, acis_csum(ip, ihl));
	icmp[0] = 0; /* echo reply */
	put16(icmp + 2, 0);
	put16(icmp + 2, acis_csum(icmp, tot - ihl));
}

static uint16_t
local_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	      uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint32_t now = acis_now_sec();
	uint16_t i;

	for (i = 0; i < cnt; i++) {
		struct rte_mbuf *m = objs[i];
		struct acis_mbuf_meta *meta = acis_meta(m);
		uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
		const uint8_t *a = eth + meta->pi.l3_off;

		acis_learn(lc, eth + 6, meta->in_port, now);
		if (meta->cls == ACIS_CLASS_ARP) {
			if (a[7] == 2) { /* a reply to us: nothing to do */
				lc->stats.arp_in++;
				acis_frame_free(m);
				continue;
			}
			acis_arp_reply(eth, &meta->pi, g_sw.ccfg.mac, g_sw.ccfg.ip);
			lc->stats.arp_replies++;
		} else {
			icmp_reply(eth, &meta->pi);
			lc->stats.icmp_replies++;
		}
		rte_node_enqueue_x1(graph, node,
				    ACIS_NEXT_TX_BASE + meta->in_port, m);
	}
	lc->stats.stage_pkts[ACIS_STAGE_LOCAL] += cnt;
	return cnt;
}

static struct rte_node_register local_node = {
	.name = "acis_local",
	.process = local_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(local_node);
