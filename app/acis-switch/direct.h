/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct path, shared by the stages that take it (RX and parse). A
 * frame that only passes through the switch (acis_pkt_passing_k) to a
 * station the MAC table knows on another port needs nothing but its TX
 * port: no parse result, no metadata. The parse stage sends such frames
 * straight to that port's TX stage; the RX stage, on an lcore that
 * forwards itself, transmits a burst's leading run of them at once, so the
 * common case of a burst of one flow never enters the graph.
 */
#ifndef ACIS_DIRECT_H
#define ACIS_DIRECT_H

#include "lookaside.h"
#include "switch.h"

/*
 * The last frame the direct path sent: its first 14 bytes (the Ethernet
 * header), its port and its TX edge. A frame with the same header from
 * the same port passes and goes the same way, so a burst of one flow pays
 * the passing test and the L2 decision once. Kept for one burst, like the
 * L2 memo, and used only where no look-aside rule takes datagrams by UDP
 * port or destination address (then the passing test reads nothing past
 * the header but the frame's length, which is checked on every frame).
 * It cannot outlive a move in the MAC table this burst makes: a frame
 * that teaches one has a new source or port, so it misses, takes the
 * L2 decision, and replaces the memory or ends the direct path. (The RX
 * stage keeps it over all its queues of one walk: an lcore polls at
 * most one queue of a port, so a queue's frames never match what an
 * earlier queue remembered.)
 */
struct acis_direct_memo {
	uint64_t w0, w1;
	uint16_t ethdev;   /* the port, as the RX stage set m->port */
	uint16_t next;
};

/* What the direct path keeps for one burst: both memories, and the
 * classifier's key and the FPGA ports, constant over it. */
struct acis_direct {
	struct acis_l2_memo l2;
	struct acis_direct_memo dm;
	struct acis_pass_key pk;
	uint32_t fpga_ports;
};

static inline void
acis_direct_init(struct acis_direct *d)
{
	acis_l2_memo_init(&d->l2);
	/* ethdev RTE_MAX_ETHPORTS: no frame matches it */
	d->dm = (struct acis_direct_memo){.ethdev = RTE_MAX_ETHPORTS};
	d->pk = acis_pass_key_of(&g_sw.ccfg);
	d->fpga_ports = g_la.fpga_ports;
}

/* bytes 0..7 and 8..13 of a frame */
static inline void
acis_eth_words(const uint8_t *eth, uint64_t *w0, uint64_t *w1)
{
	memcpy(w0, eth, 8);
	*w1 = acis_mac48(eth + 8);
}

/* Whether a frame goes where the last direct frame went: the same
 * Ethernet header from the same port, of a length the passing test
 * accepts, with no look-aside rule that could take it. */
static inline int
acis_direct_hit(const struct acis_direct *d, const struct rte_mbuf *m,
		const uint8_t *eth, uint32_t len)
{
	uint64_t w0, w1;

	if (len < ACIS_ETH_HLEN + 20 || len > d->pk.max_frame || d->pk.la)
		return 0;
	acis_eth_words(eth, &w0, &w1);
	return w0 == d->dm.w0 && w1 == d->dm.w1 && m->port == d->dm.ethdev;
}

/*
 * The direct path, over a run of frames from objs[i]: while a frame
 * passes through the switch and its destination is a known station on
 * another port, nexts[i] = ACIS_PARSE_TX_BASE + that port. Returns where
 * the run stopped; *via_l2 is set when it stopped at a passing frame the
 * L2 stage must see (flood, unknown, filtered). Kept apart from the full
 * parse loop so the compiler keeps this one in registers.
 */
static inline uint16_t
acis_direct_run(struct acis_lcore_ctx *lc, struct acis_direct *d,
		void **objs, uint16_t *nexts, uint16_t i, uint16_t n,
		int *via_l2)
{
	const struct acis_pass_key *pk = &d->pk;

	for (; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint32_t len = rte_pktmbuf_data_len(m);
		uint16_t port;
		int out;

		/* the header is all the direct path reads */
		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(
				(struct rte_mbuf *)objs[i + 4], void *));
		if (acis_direct_hit(d, m, eth, len)) {
			nexts[i] = d->dm.next;
			continue;
		}
		/* the RX stage set the ethdev id */
		port = g_sw.port_index[m->port];
		if ((d->fpga_ports & (1u << port)) ||
		    !acis_pkt_passing_k(pk, eth, len))
			break;
		out = acis_l2_decide(lc, &d->l2, eth, port);
		if (unlikely(out < 0 || out == port)) {
			*via_l2 = 1;
			break;
		}
		nexts[i] = (uint16_t)(ACIS_PARSE_TX_BASE + out);
		acis_eth_words(eth, &d->dm.w0, &d->dm.w1);
		d->dm.ethdev = m->port;
		d->dm.next = nexts[i];
	}
	return i;
}

#endif /* ACIS_DIRECT_H */
