/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliable links: each frame carried in a link header with a sequence
 * number and a CRC; go-back-N resends (rel.h, doc/faults.md).
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "fault.h"
#include "rel.h"
#include "switch.h"
#include "tx.h"

int
acis_rel_init(char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int p, i, pollers;

	for (p = 0; p < pl->n_ports; p++) {
		const struct acis_port_cfg *pc = &pl->ports[p];
		struct acis_rel_port *r;
		struct acis_lcore_ctx *poller = NULL;

		if (!pc->reliable)
			continue;
		/* one worker sends on the port and takes its frames: the
		 * streams' books need no sharing between lcores */
		pollers = 0;
		for (i = 0; i < g_sw.n_lcores; i++) {
			struct acis_lcore_ctx *lc = g_sw.lcores[i];
			unsigned int q;

			for (q = 0; q < lc->n_rxq; q++)
				if (lc->rxq[q].port == p) {
					pollers++;
					poller = lc;
				}
		}
		if (g_sw.n_workers != 1 || pollers != 1 ||
		    poller->worker_index != 0)
			return acis_errf(err, len, -EINVAL, "%s:%d: [port %s]: "
					 "reliable = on needs the port polled "
					 "by the one worker lcore of a pipeline "
					 "of one worker (it has %u workers, %u "
					 "lcores polling the port)", pl->path,
					 pc->line, pc->name, g_sw.n_workers,
					 pollers);
		r = rte_zmalloc("acis_rel", sizeof(*r), RTE_CACHE_LINE_SIZE);
		if (r == NULL)
			return acis_errf(err, len, -ENOMEM, "out of memory for "
					 "reliable port %s", pc->name);
		r->rto_tsc = g_sw.tsc_hz / 1000000 * pc->reliable_rto_us;
		r->tx.last_ack = rte_rdtsc();
		g_sw.rel[p] = r;
		g_sw.n_rel++;
		g_fault[p].rel = 1;
	}
	return 0;
}

static void
release_frame(void *frame, void *arg)
{
	RTE_SET_USED(arg);
	acis_frame_free(frame);
}

void
acis_rel_fini(void)
{
	unsigned int p;

	for (p = 0; p < ACIS_MAX_PORTS; p++) {
		struct acis_rel_port *r = g_sw.rel[p];

		if (r == NULL)
			continue;
		acis_link_tx_ack(&r->tx, r->tx.next, 0, release_frame, NULL);
		rte_free(r);
		g_sw.rel[p] = NULL;
	}
}

/* A new frame: the link header, then a copy of m's bytes (any segments). */
static struct rte_mbuf *
carry(const struct rte_mbuf *m, uint8_t stream, uint32_t seq)
{
	struct acis_link_hdr h = {.type = ACIS_LINK_DATA, .stream = stream,
				  .seq = seq};
	struct rte_mbuf *c = rte_pktmbuf_alloc(g_sw.pool);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const void *src;
	uint8_t *d;

	if (c == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(c, (uint16_t)(ACIS_LINK_HLEN + len));
	/* read copies a chained frame's bytes, and points at a single
	 * segment's own */
	src = d != NULL ? rte_pktmbuf_read(m, 0, len, d + ACIS_LINK_HLEN) :
			  NULL;
	if (src == NULL) {
		rte_pktmbuf_free(c);
		return NULL;
	}
	if (src != d + ACIS_LINK_HLEN)
		memcpy(d + ACIS_LINK_HLEN, src, len);
	acis_link_encode(d, g_sw.ccfg.mac, &h, d + ACIS_LINK_HLEN, len);
	return c;
}

/* Frames of the link (carried, or ACK/NAK) out of the port: through its
 * fault stage as the TX stage sends them. */
static void
wire(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf **pkts,
     uint16_t n)
{
	if (n == 0)
		return;
	if (acis_tx_fault_idle(lc, port))
		acis_tx_send(lc, port, pkts, n);
	else
		acis_tx_faulted(lc, port, pkts, n);
}

uint16_t
acis_rel_tx(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf **pkts,
	    uint16_t n)
{
	struct acis_rel_port *r = g_sw.rel[port];
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *c;

		if (unlikely(!acis_link_tx_room(&r->tx))) {
			r->c.window_full++;
			acis_frame_free(m);
			continue;
		}
		c = carry(m, (uint8_t)lc->worker_index, r->tx.next);
		if (unlikely(c == NULL)) {
			r->c.nombuf++;
			acis_frame_free(m);
			continue;
		}
		if (r->tx.next == r->tx.base)
			r->tx.last_ack = rte_rdtsc(); /* the timer starts */
		if (r->resend_at == r->tx.next)
			r->resend_at++; /* no resend in progress: none */
		acis_link_tx_keep(&r->tx, m);
		r->c.data_sent++;
		pkts[k++] = c;
	}
	return k;
}

/* Frames sent again at a time: the rest of a resend follows as the other
 * end acknowledges, so a loss in it costs a chunk, not the window. */
#define RESEND_CHUNK 32

/* The next chunk of a resend in progress, from resend_at. */
static void
resend_chunk(struct acis_lcore_ctx *lc, uint16_t port, struct acis_rel_port *r)
{
	struct rte_mbuf *out[RESEND_CHUNK];
	uint16_t k = 0;

	if (acis_link_before(r->resend_at, r->tx.base))
		r->resend_at = r->tx.base;
	while (r->resend_at != r->tx.next && k < RESEND_CHUNK) {
		struct rte_mbuf *c = carry(
			r->tx.frame[r->resend_at % ACIS_LINK_WINDOW],
			(uint8_t)lc->worker_index, r->resend_at);

		if (c == NULL) {
			r->c.nombuf++;
			break; /* the timer tries again */
		}
		out[k++] = c;
		r->c.resent++;
		r->resend_at++;
	}
	wire(lc, port, out, k);
	r->tx.last_ack = rte_rdtsc();
}

/* Go back: the unacknowledged frames again, from the oldest. */
static void
resend(struct acis_lcore_ctx *lc, uint16_t port, struct acis_rel_port *r)
{
	r->resend_at = r->tx.base;
	resend_chunk(lc, port, r);
}

/* An ACK or a NAK of the stream's seq, to the other end. */
static void
answer(struct acis_lcore_ctx *lc, uint16_t port, struct acis_rel_port *r,
       uint8_t type, uint8_t stream)
{
	struct acis_link_hdr h = {.type = type, .stream = stream,
				  .seq = r->rx.expected[stream]};
	struct rte_mbuf *c = rte_pktmbuf_alloc(g_sw.pool);
	uint8_t *d;

	if (c == NULL ||
	    (d = (uint8_t *)rte_pktmbuf_append(c, 60)) == NULL) {
		rte_pktmbuf_free(c);
		r->c.nombuf++;
		return;
	}
	memset(d, 0, 60);
	acis_link_encode(d, g_sw.ccfg.mac, &h, NULL, 0);
	rte_pktmbuf_trim(c, 60 - ACIS_LINK_HLEN);
	if (type == ACIS_LINK_ACK)
		r->c.acks_sent++;
	else
		r->c.naks_sent++;
	wire(lc, port, &c, 1);
}

uint16_t
acis_rel_rx(struct acis_lcore_ctx *lc, uint16_t port, void **pkts, uint16_t n)
{
	struct acis_rel_port *r = g_sw.rel[port];
	struct acis_link_hdr h;
	uint64_t acks = 0;
	uint16_t i, k = 0;
	unsigned int s;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		switch (acis_link_parse(rte_pktmbuf_mtod(m, const uint8_t *),
					rte_pktmbuf_data_len(m), &h)) {
		case ACIS_LINK_NOT_OURS:
			r->c.unwrapped++;
			pkts[k++] = m;
			continue;
		case ACIS_LINK_BAD:
			/* its fields are not to be trusted: the gap it
			 * leaves is asked for at the next good frame */
			r->c.crc_errors++;
			acis_frame_free(m);
			continue;
		case ACIS_LINK_OK:
			break;
		}
		if (h.type != ACIS_LINK_DATA) {
			/* our own stream: the other end's answers */
			int moved;

			if (h.stream == lc->worker_index &&
			    (moved = acis_link_tx_ack(&r->tx, h.seq, rte_rdtsc(),
						      release_frame, NULL)) >= 0) {
				if (h.type == ACIS_LINK_NAK) {
					r->c.naks_taken++;
					resend(lc, port, r);
				} else {
					r->c.acks_taken++;
					/* a resend goes on as the window
					 * moves */
					if (moved > 0 && r->resend_at != r->tx.next &&
					    acis_link_before(r->resend_at,
							     r->tx.next))
						resend_chunk(lc, port, r);
				}
			}
			acis_frame_free(m);
			continue;
		}
		switch (acis_link_rx_data(&r->rx, h.stream, h.seq)) {
		case ACIS_LINK_DELIVER:
			rte_pktmbuf_adj(m, ACIS_LINK_HLEN);
			r->c.delivered++;
			pkts[k++] = m;
			break;
		case ACIS_LINK_DUP:
			r->c.duplicates++;
			r->rx.ack_due[h.stream] = 1; /* it missed our ACK */
			acis_frame_free(m);
			break;
		case ACIS_LINK_GAP:
			r->c.out_of_order++;
			if (acis_link_rx_want_nak(&r->rx, h.stream))
				answer(lc, port, r, ACIS_LINK_NAK, h.stream);
			acis_frame_free(m);
			break;
		}
		acks |= 1ull << h.stream;
	}
	/* one cumulative ACK a stream and burst */
	for (s = 0; acks != 0; s++, acks >>= 1)
		if ((acks & 1) && r->rx.ack_due[s]) {
			r->rx.ack_due[s] = 0;
			answer(lc, port, r, ACIS_LINK_ACK, (uint8_t)s);
		}
	return k;
}

void
acis_rel_poll(struct acis_lcore_ctx *lc)
{
	uint64_t now = 0;
	unsigned int p;

	for (p = 0; p < g_sw.n_ports; p++) {
		struct acis_rel_port *r = g_sw.rel[p];

		if (r == NULL || r->tx.next == r->tx.base)
			continue;
		if (now == 0)
			now = rte_rdtsc();
		if (now - r->tx.last_ack < r->rto_tsc)
			continue;
		r->c.timeouts++;
		resend(lc, (uint16_t)p, r);
	}
}

/* /acis/links: every reliable port's counters */
static int
tel_links(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int p;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	for (p = 0; p < g_sw.n_ports; p++) {
		const struct acis_rel_port *r = g_sw.rel[p];
		struct rte_tel_data *e;

		if (r == NULL || (e = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(e);
#define X(f) rte_tel_data_add_dict_u64(e, #f, r->c.f)
		X(data_sent); X(resent); X(timeouts); X(naks_sent);
		X(naks_taken); X(acks_sent); X(acks_taken); X(delivered);
		X(crc_errors); X(duplicates); X(out_of_order);
		X(window_full); X(nombuf); X(unwrapped);
#undef X
		rte_tel_data_add_dict_u64(e, "unacked",
					  r->tx.next - r->tx.base);
		rte_tel_data_add_dict_u64(e, "rto_us", g_sw.pl->ports[p]
					  .reliable_rto_us);
		rte_tel_data_add_dict_container(d, g_sw.pl->ports[p].name, e,
						0);
	}
	return 0;
}

int
acis_rel_telemetry_register(void)
{
	return acis_tel_register("/acis/links", tel_links,
		"Reliable links' counters per port. No parameters");
}
