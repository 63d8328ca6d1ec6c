/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TX slow paths: what a queue refused, and the collective answers
 * kept for later (acis_tx_hold in switch.h). A completion on a large
 * communicator owes more answers than a TX queue holds; dropped, they
 * would cost every member behind that port a resend interval, and with
 * no confirmations coming (a replayed capture) never arrive at all. Held,
 * they go out as the queue drains, and the collective stage waits for
 * the port before it sends more.
 */
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "rel.h"
#include "tx.h"

void
acis_drop_frames(struct acis_lcore_ctx *lc, struct rte_mbuf **m, uint16_t n,
		 enum acis_drop_reason why)
{
	if (n == 0)
		return;
	acis_frame_free_bulk(m, n);
	lc->stats.drops[why] += n;
	lc->stats.stage_pkts[ACIS_STAGE_DROP] += n;
}

static enum acis_drop_reason
refusal(uint16_t port)
{
	struct rte_eth_link link;

	if (g_sw.ports[port].ring_out != NULL)
		return g_sw.ports[port].ring_down ? ACIS_DROP_TX_LINK_DOWN :
		       ACIS_DROP_TX_FULL;
	if (g_sw.ports[port].link_cheap &&
	    rte_eth_link_get_nowait(g_sw.ports[port].port_id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_DOWN)
		return ACIS_DROP_TX_LINK_DOWN;
	return ACIS_DROP_TX_FULL;
}

void
acis_tx_faulted(struct acis_lcore_ctx *lc, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *out[2 * RTE_GRAPH_BURST_SIZE + ACIS_FAULT_HOLD];
	uint16_t done = 0;

	while (done < n) {
		uint16_t k = RTE_MIN((uint16_t)(n - done),
				     (uint16_t)RTE_GRAPH_BURST_SIZE);

		acis_tx_send(lc, port, out, acis_fault_apply(lc, port,
				&pkts[done], k, out, RTE_DIM(out)));
		done += k;
	}
}

void
acis_tx_port(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf **pkts,
	     uint16_t n)
{
	if (unlikely(g_fault[port].rel))
		n = acis_rel_tx(lc, port, pkts, n);
	if (likely(acis_tx_plain(lc, port)))
		acis_tx_send(lc, port, pkts, n);
	else
		acis_tx_faulted(lc, port, pkts, n);
}

uint64_t
acis_tx_refused(struct acis_lcore_ctx *lc, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n)
{
	struct acis_tx_hold *h = lc->txh[port];
	enum acis_drop_reason why = refusal(port);
	uint64_t bytes = 0;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		bytes += m->pkt_len;
		if (why == ACIS_DROP_TX_FULL && h != NULL &&
		    (m->ol_flags & g_sw.answer_flag) && h->n < ACIS_TX_HOLD) {
			if (h->n == 0) {
				h->since = rte_rdtsc();
				lc->txh_ports |= 1u << port;
			}
			h->m[h->n++] = m;
			lc->stats.port_tx_held[port]++;
			continue;
		}
		pkts[k++] = m; /* what cannot wait, packed to the front */
	}
	acis_drop_frames(lc, pkts, k, why);
	return bytes;
}

void
acis_tx_hold_flush(struct acis_lcore_ctx *lc, uint16_t port)
{
	struct acis_tx_hold *h = lc->txh[port];
	uint64_t bytes = 0, now = rte_rdtsc();
	uint16_t sent, i;

	if (refusal(port) == ACIS_DROP_TX_LINK_DOWN) {
		/* the peer went (a memif host that left): what it was owed
		 * goes, and the port is not sent to again and again while
		 * its driver tears the connection down (DPDK 22.11's memif
		 * unmaps a gone peer's regions beside a burst in flight) */
		acis_drop_frames(lc, h->m, h->n, ACIS_DROP_TX_LINK_DOWN);
		h->n = 0;
		lc->txh_ports &= ~(1u << port);
		return;
	}
	sent = acis_port_tx_burst(port, (uint16_t)lc->worker_index, h->m,
				  h->n);
	if (sent != 0) {
		for (i = 0; i < sent; i++)
			bytes += h->m[i]->pkt_len;
		h->n = (uint16_t)(h->n - sent);
		memmove(h->m, h->m + sent, h->n * sizeof(h->m[0]));
		h->since = now;
		lc->stats.port_tx_pkts[port] += sent;
		lc->stats.port_tx_bytes[port] += bytes;
		lc->stats.port_tx_held_sent[port] += sent;
	} else if (now - h->since > g_sw.tsc_hz / 1000 * ACIS_TX_HOLD_MS) {
		/* the queue took nothing for long: its peer is gone */
		acis_drop_frames(lc, h->m, h->n, refusal(port));
		h->n = 0;
	}
	if (h->n == 0)
		lc->txh_ports &= ~(1u << port);
}

void
acis_tx_hold_flush_all(struct acis_lcore_ctx *lc)
{
	uint32_t ports = lc->txh_ports;

	while (ports != 0) {
		uint16_t p = (uint16_t)__builtin_ctz(ports);

		ports &= ports - 1;
		acis_tx_hold_flush(lc, p);
	}
}

int
acis_tx_hold_init(void)
{
	unsigned int i, p;

	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc->worker_index < 0)
			continue;
		for (p = 0; p < g_sw.n_ports; p++) {
			lc->txh[p] = rte_zmalloc("acis_tx_hold",
						 sizeof(*lc->txh[p]),
						 RTE_CACHE_LINE_SIZE);
			if (lc->txh[p] == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

void
acis_tx_hold_fini(void)
{
	unsigned int i, p;

	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc == NULL)
			continue;
		for (p = 0; p < ACIS_MAX_PORTS; p++) {
			if (lc->txh[p] == NULL)
				continue;
			acis_frame_free_bulk(lc->txh[p]->m, lc->txh[p]->n);
			rte_free(lc->txh[p]);
			lc->txh[p] = NULL;
		}
		lc->txh_ports = 0;
	}
}

unsigned int
acis_tx_held_now(void)
{
	unsigned int i, p, n = 0;

	for (i = 0; i < g_sw.n_lcores; i++)
		for (p = 0; g_sw.lcores[i] != NULL && p < ACIS_MAX_PORTS; p++)
			if (g_sw.lcores[i]->txh[p] != NULL)
				n += g_sw.lcores[i]->txh[p]->n;
	return n;
}
