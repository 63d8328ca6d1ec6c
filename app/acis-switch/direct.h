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
 * The recent flows the direct path sent: per flow its first 14 bytes (the
 * Ethernet header), its port and its TX edge. A frame with the same
 * header from the same port passes and goes the same way, so a burst of
 * a few flows pays the passing test and the L2 decision once a flow, not
 * once a frame. ACIS_DIRECT_WAYS entries, one per hash of the header
 * (direct mapped: two flows of one hash take turns in their entry). Kept
 * for one burst, like the L2 memo, and used only where no look-aside rule
 * takes datagrams by UDP port or destination address (then the passing
 * test reads nothing past the header but the frame's length, which is
 * checked on every frame). It cannot outlive a move in the MAC table
 * this burst makes: the L2 decision that learns one forgets every entry,
 * as an entry may send to the station that moved. (The RX stage keeps it
 * over all its queues of one walk: an lcore polls at most one queue of a
 * port, so a queue's frames never match what an earlier queue
 * remembered.)
 */
#define ACIS_DIRECT_WAYS 32

struct acis_direct_memo {
	uint64_t w0, w1;
	uint16_t ethdev;   /* the port, as the RX stage set m->port */
	uint16_t next;
};

/* What the direct path keeps for one burst: both memories, and the
 * classifier's key and the FPGA ports, constant over it. */
struct acis_direct {
	struct acis_l2_memo l2;
	uint32_t valid;    /* entries of dm in use, a bit each */
	struct acis_direct_memo dm[ACIS_DIRECT_WAYS];
	struct acis_pass_key pk;
	uint32_t fpga_ports;
};

static inline void
acis_direct_init(struct acis_direct *d)
{
	RTE_BUILD_BUG_ON(ACIS_DIRECT_WAYS > 32 ||
			 !RTE_IS_POWER_OF_2(ACIS_DIRECT_WAYS));
	acis_l2_memo_init(&d->l2);
	d->valid = 0;
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

/* The entry of dm a header maps to: the top bits of a multiplicative
 * hash of both words. */
static inline unsigned int
acis_direct_way(uint64_t w0, uint64_t w1)
{
	return (unsigned int)(((w0 ^ (w1 << 5)) * 0x9e3779b97f4a7c15ull) >>
			      (64 - __builtin_ctz(ACIS_DIRECT_WAYS)));
}

/* The entry whose flow a frame belongs to: the same Ethernet header from
 * the same port, of a length the passing test accepts, with no look-aside
 * rule that could take it; NULL when none. */
static inline const struct acis_direct_memo *
acis_direct_hit(const struct acis_direct *d, const struct rte_mbuf *m,
		const uint8_t *eth, uint32_t len)
{
	const struct acis_direct_memo *e;
	unsigned int way;
	uint64_t w0, w1;

	if (len < ACIS_ETH_HLEN + 20 || len > d->pk.max_frame || d->pk.la)
		return NULL;
	acis_eth_words(eth, &w0, &w1);
	way = acis_direct_way(w0, w1);
	e = &d->dm[way];
	if (!(d->valid & (1u << way)) || w0 != e->w0 || w1 != e->w1 ||
	    m->port != e->ethdev)
		return NULL;
	return e;
}

/* Remember that a frame's flow goes to TX edge next (no look-aside rule:
 * nothing would hit it). */
static inline void
acis_direct_remember(struct acis_direct *d, const struct rte_mbuf *m,
		     const uint8_t *eth, uint16_t next)
{
	struct acis_direct_memo *e;
	unsigned int way;
	uint64_t w0, w1;

	acis_eth_words(eth, &w0, &w1);
	way = acis_direct_way(w0, w1);
	e = &d->dm[way];
	e->w0 = w0;
	e->w1 = w1;
	e->ethdev = m->port;
	e->next = next;
	d->valid |= 1u << way;
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
		const struct acis_direct_memo *hit;
		uint16_t port;
		int out;

		hit = acis_direct_hit(d, m, eth, len);
		if (hit != NULL) {
			nexts[i] = hit->next;
			continue;
		}
		/* the RX stage set the ethdev id */
		port = g_sw.port_index[m->port];
		if ((d->fpga_ports & (1u << port)) ||
		    !acis_pkt_passing_k(pk, eth, len))
			break;
		out = acis_l2_decide(lc, &d->l2, eth, port);
		if (unlikely(d->l2.learned)) {
			/* the table changed: an entry may send to a
			 * station that has just moved */
			d->valid = 0;
			d->l2.learned = 0;
		}
		if (unlikely(out < 0 || out == port)) {
			*via_l2 = 1;
			break;
		}
		nexts[i] = (uint16_t)(ACIS_PARSE_TX_BASE + out);
		if (!d->pk.la)
			acis_direct_remember(d, m, eth, nexts[i]);
	}
	return i;
}

#endif /* ACIS_DIRECT_H */
