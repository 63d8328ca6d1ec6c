/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_rx: the poll-mode source. Each lcore polls its own RX queue of each
 * port it was given, a burst at a time, straight into the parse stage's
 * stream: no copy, and no per-packet work here but the port and byte
 * counts and, on an lcore that forwards, the direct path's test.
 *
 * On an lcore that forwards itself, the burst's leading frames that take
 * the direct path (direct.h) are transmitted here, one burst per port, on
 * the lcore's own TX queues; the rest of the burst goes to the parse stage as
 * before. A burst of one flow to a known station — what a switch mostly
 * sees — thus never enters the graph. Frames of one RX queue keep their
 * order: those sent here precede those behind them, which the graph
 * sends later in the same walk.
 */
#include "../rel.h"
#include "../direct.h"
#include "../tx.h"

/* Mark frames from..n-1 of a burst with their port; their bytes. Not
 * every PMD fills mbuf->port (net_ring does not): the parse stage reads
 * it, in the line it reads anyway. */
static inline uint64_t
rx_mark(void **pkts, uint16_t from, uint16_t n, uint16_t port_id)
{
	uint64_t bytes = 0;
	uint16_t i;

	for (i = from; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		m->port = port_id;
		bytes += m->pkt_len;
	}
	return bytes;
}

/* Transmit frames 0..k-1 of a burst, whose TX edges are nexts[]: one
 * burst per port, each port's frames in the order they came (order
 * matters only within a TX queue). The run ends at the first frame for a
 * port whose fault stage is on or holds frames: from there on the graph
 * sends them, through the fault stage. Returns how many were sent. Out
 * of line: a burst of more than one flow is the rarer case, and its
 * array would weigh on the common one's frame. */
static __rte_noinline uint16_t
rx_send_runs(struct acis_lcore_ctx *lc, void **pkts, const uint16_t *nexts,
	     uint16_t k)
{
	struct rte_mbuf *out[RTE_GRAPH_BURST_SIZE];
	uint32_t checked = 0, plain = 0, sent_ports = 0, bit;
	uint16_t i, j, cnt, port;
	int one_port = 1;

	/* each port's fault state once; several flows, one port: one
	 * burst, the frames as they are */
	for (i = 0; i < k; i++) {
		bit = 1u << (nexts[i] - ACIS_PARSE_TX_BASE);
		if (!(checked & bit)) {
			checked |= bit;
			if (acis_tx_plain(lc, nexts[i] - ACIS_PARSE_TX_BASE))
				plain |= bit;
		}
		if (unlikely(!(plain & bit)))
			break;
		one_port &= nexts[i] == nexts[0];
	}
	k = i;
	if (k != 0 && one_port) {
		acis_tx_send(lc, nexts[0] - ACIS_PARSE_TX_BASE,
			     (struct rte_mbuf **)pkts, k);
		return k;
	}
	for (i = 0; i < k; i++) {
		port = nexts[i] - ACIS_PARSE_TX_BASE;
		if (sent_ports & (1u << port))
			continue;
		sent_ports |= 1u << port;
		for (j = i, cnt = 0; j < k; j++)
			if (nexts[j] == nexts[i])
				out[cnt++] = pkts[j];
		acis_tx_send(lc, port, out, cnt);
	}
	return k;
}

/*
 * The frames from 1 on that go where frame 0 went, frame 0 having just
 * taken the direct path: marked and counted (*bytes) like rx_mark, up to
 * the first that does not follow. Returns that one's index (n when all
 * did). acis_direct_hit for a burst of one port and
 * one flow, frame 0's: the port is the burst's, and no look-aside rule
 * can take a frame, so what is left per frame is its length and its 14
 * header bytes, against frame 0's kept in registers.
 *
 * No software prefetch: the loop's exits are taken once a burst at most,
 * so the core runs ahead through several frames and their header loads
 * overlap by themselves. A prefetch of frame i + 4's header here (the
 * mbuf's address fields read to find it) cost 4-5 % of the forwarding
 * rate on net_memif and net_ring.
 */
static inline uint16_t
rx_follow(const struct acis_direct *d, void **pkts, uint16_t n,
	  uint16_t port_id, uint64_t *bytes)
{
	const uint32_t min = ACIS_ETH_HLEN + 20;
	const uint32_t span = d->pk.max_frame - min;
	uint64_t b = *bytes, w0, w1, x0, x1;
	uint16_t i;

	acis_eth_words(rte_pktmbuf_mtod((struct rte_mbuf *)pkts[0],
					const uint8_t *), &w0, &w1);
	for (i = 1; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *eth = rte_pktmbuf_mtod(m, const uint8_t *);

		/* min <= len <= max_frame, in one unsigned compare */
		if ((uint32_t)rte_pktmbuf_data_len(m) - min > span)
			break;
		acis_eth_words(eth, &x0, &x1);
		if ((x0 ^ w0) | (x1 ^ w1))
			break;
		m->port = port_id;
		b += m->pkt_len;
	}
	*bytes = b;
	return i;
}

/* Mark a burst (*bytes: its bytes) and transmit its leading direct
 * frames; returns how many. */
static inline uint16_t
rx_direct(struct acis_lcore_ctx *lc, struct acis_direct *d, void **pkts,
	  uint16_t n, uint16_t port_id, uint64_t *bytes)
{
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t i, k, port;
	int via_l2 = 0;

	RTE_BUILD_BUG_ON(RTE_GRAPH_BURST_SIZE < ACIS_MAX_BURST);
	/* The first frame takes the direct path's decision, which remembers
	 * its header; the frames behind it with that header go its way, found
	 * in the same pass that marks them. */
	*bytes = rx_mark(pkts, 0, 1, port_id);
	if (acis_direct_run(lc, d, pkts, nexts, 0, 1, &via_l2) == 0) {
		*bytes += rx_mark(pkts, 1, n, port_id);
		return 0;
	}
	/* with a look-aside rule nothing follows (acis_direct_hit) */
	i = d->pk.la ? 1 : rx_follow(d, pkts, n, port_id, bytes);
	port = nexts[0] - ACIS_PARSE_TX_BASE;
	if (i == n) { /* the whole burst, one way: the common case */
		if (unlikely(!acis_tx_plain(lc, port)))
			return 0;
		acis_tx_send_bytes(lc, port, (struct rte_mbuf **)pkts, n,
				   *bytes);
		return n;
	}
	/* frames 1..i-1 went frame 0's way; the rest from i */
	for (k = 1; k < i; k++)
		nexts[k] = nexts[0];
	*bytes += rx_mark(pkts, i, n, port_id);
	k = acis_direct_run(lc, d, pkts, nexts, i, n, &via_l2);
	return rx_send_runs(lc, pkts, nexts, k);
}

static uint16_t
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	uint16_t burst = g_sw.pl->burst;
	uint16_t i, n, total = 0, direct = 0;
	/* a torus node routes every forwarded frame in the L2 stage */
	int forwards = lc->worker_index >= 0 && g_sw.torus == NULL;
	struct acis_direct d;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	acis_direct_init(&d);
	for (i = 0; i < lc->n_rxq; i++) {
		const struct acis_rxq *q = &lc->rxq[i];
		void **to = rte_node_next_stream_get(graph, node, 0, burst);
		uint64_t bytes;
		uint16_t sent;

		if (likely(q->ring == NULL))
			n = rte_eth_rx_burst(q->port_id, q->queue,
					     (struct rte_mbuf **)to, burst);
		else if (g_sw.ports[q->port].ring_down)
			n = 0; /* a ring pair's link set down */
		else
			n = (uint16_t)rte_ring_dequeue_burst(q->ring, to,
							     burst, NULL);
		if (n == 0)
			continue;
		/* a reliable link: its frames taken apart, answered */
		if (unlikely(g_sw.rel[q->port] != NULL)) {
			lc->last_rx += n;
			n = acis_rel_rx(lc, q->port, to, n);
			if (n == 0)
				continue;
		}
		if (forwards) {
			sent = rx_direct(lc, &d, to, n, q->port_id, &bytes);
		} else {
			sent = 0;
			bytes = rx_mark(to, 0, n, q->port_id);
		}
		lc->stats.port_rx_pkts[q->port] += n;
		lc->stats.port_rx_bytes[q->port] += bytes;
		total += n;
		direct += sent;
		if (sent == n)
			continue;
		if (sent != 0)
			memmove(to, &to[sent], (size_t)(n - sent) * sizeof(*to));
		rte_node_next_stream_put(graph, node, 0, n - sent);
	}
	lc->stats.stage_pkts[ACIS_STAGE_RX] += total;
	/* the direct frames passed parse, the L2 decision and TX here */
	lc->stats.stage_pkts[ACIS_STAGE_PARSE] += direct;
	lc->stats.stage_pkts[ACIS_STAGE_L2] += direct;
	lc->stats.stage_pkts[ACIS_STAGE_TX] += direct;
	lc->stats.rx_direct += direct;
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
