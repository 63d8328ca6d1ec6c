/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis's fault injection (testing): a transport around another that
 * drops each datagram it passes with probability drop, delivers it twice
 * with probability dup, and holds it back with probability reorder until
 * 1..window later datagrams have passed it (or the host waits for the
 * network), both ways. A generator seeded with the seed decides: the same
 * seed gives the same decisions for the same traffic, whatever transport
 * is inside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

/* A datagram held back (reordering). */
struct held {
	uint32_t left; /* datagrams still to pass it; 0: slot free */
	uint32_t len;
	uint32_t src_ip;
	int busy;      /* in the batch being sent, or being delivered */
	uint8_t *buf;
};

struct fault_transport {
	struct acis_transport t;
	struct acis_transport *inner;
	struct acis_fault_cfg cfg;
	uint64_t rng;
	struct held tx_held[ACIS_FAULT_WINDOW_MAX], rx_held[ACIS_FAULT_WINDOW_MAX];
	uint8_t *held_bufs;
	/* outbound after the faults: every input twice, plus the held */
	struct acis_tmsg out[2 * 64 + ACIS_FAULT_WINDOW_MAX];
	/* the caller's receiver, while recv runs */
	acis_deliver_fn fn;
	void *arg;
};

/* xorshift64*: a deterministic stream. */
static double
rnd(struct fault_transport *f)
{
	uint64_t x = f->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->rng = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

/* Hold a datagram back: copy it (its buffers are the caller's) and let
 * 1..window later ones pass it. 0 if every hold slot is taken. */
static int
hold(struct fault_transport *f, struct held *set, const void *a, size_t alen,
     const void *b, size_t blen, uint32_t src_ip)
{
	unsigned int i;

	for (i = 0; i < f->cfg.window; i++)
		if (set[i].left == 0 && !set[i].busy)
			break;
	if (i == f->cfg.window || alen + blen > ACIS_TRANSPORT_MAX_DGRAM)
		return 0;
	if (alen != 0)
		memcpy(set[i].buf, a, alen);
	if (blen != 0)
		memcpy(set[i].buf + alen, b, blen);
	set[i].len = (uint32_t)(alen + blen);
	set[i].left = 1 + (uint32_t)(rnd(f) * f->cfg.window);
	set[i].src_ip = src_ip;
	f->t.st->faults_reordered++;
	return 1;
}

/* One more datagram passed held one h: whether it is due now (always
 * when drain), its slot then freed. */
static int
due(struct held *h, int drain)
{
	if (h->left == 0 || (--h->left != 0 && !drain))
		return 0;
	h->left = 0;
	return 1;
}

/* One more datagram passed the held ones (all of them when drain):
 * append those now due to out[] and return the new count. */
static unsigned int
release_tx(struct fault_transport *f, unsigned int n, int drain)
{
	unsigned int i;

	for (i = 0; i < f->cfg.window && f->held_bufs != NULL; i++) {
		struct held *h = &f->tx_held[i];

		if (!due(h, drain))
			continue;
		h->busy = 1;
		f->out[n++] = (struct acis_tmsg){.hdr = h->buf, .hdr_len = h->len};
	}
	return n;
}

static int
send_out(struct fault_transport *f, unsigned int n)
{
	unsigned int i;
	int rc = n == 0 ? ACIS_OK : f->inner->ops->send(f->inner, f->out, n);

	for (i = 0; i < ACIS_FAULT_WINDOW_MAX; i++)
		f->tx_held[i].busy = 0;
	if (rc != ACIS_OK)
		memcpy(f->t.err, f->inner->err, sizeof(f->t.err));
	return rc;
}

/* The host is about to wait: what is held back outbound goes now (a
 * reordered datagram is late, not lost). */
static int
drain_tx(struct fault_transport *f)
{
	return send_out(f, release_tx(f, 0, 1));
}

static int
fault_send(struct acis_transport *t, const struct acis_tmsg *m, unsigned int n)
{
	struct fault_transport *f = (struct fault_transport *)t;
	unsigned int i, k = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (rnd(f) < f->cfg.drop) {
			f->t.st->faults_dropped++;
			continue;
		}
		if (rnd(f) < f->cfg.reorder &&
		    hold(f, f->tx_held, m[i].hdr, m[i].hdr_len, m[i].data,
			 m[i].len, 0))
			continue;
		f->out[k++] = m[i];
		if (rnd(f) < f->cfg.dup) {
			f->out[k++] = m[i];
			f->t.st->faults_duplicated++;
		}
		k = release_tx(f, k, 0);
		/* out[] holds two of each plus the window: send when full */
		if (k + 2 + ACIS_FAULT_WINDOW_MAX > sizeof(f->out) / sizeof(f->out[0])) {
			if ((rc = send_out(f, k)) != ACIS_OK)
				return rc;
			k = 0;
		}
	}
	return send_out(f, k);
}

/* One more datagram came past the held ones (all of them when drain):
 * deliver those now due. */
static void
release_rx(struct fault_transport *f, int drain)
{
	unsigned int i;

	for (i = 0; i < f->cfg.window && f->held_bufs != NULL; i++) {
		struct held *h = &f->rx_held[i];

		if (!due(h, drain))
			continue;
		/* in use while delivered: hold() must not take it */
		h->busy = 1;
		f->fn(f->arg, h->buf, h->len, h->src_ip);
		h->busy = 0;
	}
}

static void
fault_deliver(void *arg, const uint8_t *p, size_t len, uint32_t src_ip)
{
	struct fault_transport *f = arg;

	if (rnd(f) < f->cfg.drop) {
		f->t.st->faults_dropped++;
		return;
	}
	if (rnd(f) < f->cfg.reorder &&
	    hold(f, f->rx_held, p, len, NULL, 0, src_ip))
		return;
	f->fn(f->arg, p, len, src_ip);
	if (rnd(f) < f->cfg.dup) {
		f->t.st->faults_duplicated++;
		f->fn(f->arg, p, len, src_ip);
	}
	release_rx(f, 0);
}

static int
fault_recv(struct acis_transport *t, int wait_ms, acis_deliver_fn fn, void *arg)
{
	struct fault_transport *f = (struct fault_transport *)t;
	int rc;

	f->fn = fn;
	f->arg = arg;
	if (wait_ms > 0 && f->held_bufs != NULL) {
		/* about to wait: what is held goes now */
		if ((rc = drain_tx(f)) != ACIS_OK)
			return rc;
		release_rx(f, 1);
	}
	rc = f->inner->ops->recv(f->inner, wait_ms, fault_deliver, f);
	if (rc != ACIS_OK)
		memcpy(f->t.err, f->inner->err, sizeof(f->t.err));
	return rc;
}

static void
fault_close(struct acis_transport *t)
{
	struct fault_transport *f = (struct fault_transport *)t;

	drain_tx(f);
	f->inner->ops->close(f->inner);
	free(f->held_bufs);
	free(f);
}

static const struct acis_transport_ops fault_ops = {
	.send = fault_send,
	.recv = fault_recv,
	.close = fault_close,
};

int
acis_fault_wrap(struct acis_transport *inner, const struct acis_fault_cfg *cfg,
		struct acis_transport **out, char *err, size_t errlen)
{
	struct fault_transport *f;
	unsigned int i;

	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		snprintf(err, errlen, "out of memory");
		return ACIS_ERR_NOMEM;
	}
	f->t.ops = &fault_ops;
	f->t.name = inner->name;
	f->t.st = inner->st;
	f->inner = inner;
	f->cfg = *cfg;
	f->rng = cfg->seed | 1;
	if (cfg->reorder > 0) {
		f->held_bufs = malloc((size_t)2 * ACIS_FAULT_WINDOW_MAX *
				      ACIS_TRANSPORT_MAX_DGRAM);
		if (f->held_bufs == NULL) {
			free(f);
			snprintf(err, errlen, "out of memory");
			return ACIS_ERR_NOMEM;
		}
		for (i = 0; i < ACIS_FAULT_WINDOW_MAX; i++) {
			f->tx_held[i].buf = f->held_bufs +
					    (size_t)i * ACIS_TRANSPORT_MAX_DGRAM;
			f->rx_held[i].buf = f->held_bufs +
					    (size_t)(ACIS_FAULT_WINDOW_MAX + i) *
						    ACIS_TRANSPORT_MAX_DGRAM;
		}
	}
	*out = &f->t;
	return ACIS_OK;
}
