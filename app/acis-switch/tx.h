/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmitting on a worker's own TX queue of a port, shared by every
 * stage that sends: the TX stage, the RX stage's direct frames and the
 * fault stage's held frames when they fall due.
 */
#ifndef ACIS_TX_H
#define ACIS_TX_H

#include "fault.h"
#include "switch.h"

/* Whether a port's frames go straight to its queue: no fault stage on
 * it, and nothing of this lcore's held back for it. */
static inline int
acis_tx_plain(const struct acis_lcore_ctx *lc, uint16_t port)
{
	return !g_fault[port].on &&
	       (lc->fault[port] == NULL || lc->fault[port]->n_held == 0);
}

/* Transmit on the lcore's own queue of a port: cnt frames of bytes bytes
 * in all. What the queue does not take is freed and counted (tx_full, or
 * tx_link_down for a port whose peer is gone, where the driver can tell
 * without a system call), never retried in a loop that would stall the
 * other ports. */
static inline void
acis_tx_send_bytes(struct acis_lcore_ctx *lc, uint16_t port,
		   struct rte_mbuf **pkts, uint16_t cnt, uint64_t bytes)
{
	uint16_t i, sent;

	sent = rte_eth_tx_burst(g_sw.ports[port].port_id,
				(uint16_t)lc->worker_index, pkts, cnt);
	if (unlikely(sent < cnt)) {
		enum acis_drop_reason why = ACIS_DROP_TX_FULL;
		struct rte_eth_link link;

		for (i = sent; i < cnt; i++)
			bytes -= pkts[i]->pkt_len;
		acis_frame_free_bulk(&pkts[sent], cnt - sent);
		if (g_sw.ports[port].link_cheap &&
		    rte_eth_link_get_nowait(g_sw.ports[port].port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN)
			why = ACIS_DROP_TX_LINK_DOWN;
		lc->stats.drops[why] += cnt - sent;
		lc->stats.stage_pkts[ACIS_STAGE_DROP] += cnt - sent;
	}
	lc->stats.port_tx_pkts[port] += sent;
	lc->stats.port_tx_bytes[port] += bytes;
}

static inline void
acis_tx_send(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf **pkts,
	     uint16_t cnt)
{
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < cnt; i++)
		bytes += pkts[i]->pkt_len;
	acis_tx_send_bytes(lc, port, pkts, cnt, bytes);
}

#endif /* ACIS_TX_H */
