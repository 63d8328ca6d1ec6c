/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault stage; see fault.h and doc/faults.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "fault.h"
#include "switch.h"
#include "tx.h"


_Static_assert((ACIS_FAULT_QUEUE & (ACIS_FAULT_QUEUE - 1)) == 0,
	       "the shaper's ring is indexed with a mask");

/* What a frame occupies the wire for beyond its bytes: preamble and SFD
 * (8), FCS (4), inter-frame gap (12); shorter frames are padded to 60. */
#define WIRE_EXTRA 24
#define WIRE_MIN 60

static uint32_t
threshold(double p)
{
	if (p <= 0.0)
		return 0;
	if (p >= 1.0)
		return UINT32_MAX;
	return (uint32_t)(p * 4294967296.0);
}

static double
prob(uint32_t t)
{
	return t == UINT32_MAX ? 1.0 : (double)t / 4294967296.0;
}

static void
port_set(struct acis_fault_port *fp, const struct acis_fault_cfg *c)
{
	fp->drop = threshold(c->drop);
	fp->dup = threshold(c->duplicate);
	fp->reorder = threshold(c->reorder);
	fp->corrupt = threshold(c->corrupt);
	fp->window = c->reorder_window ? c->reorder_window : 4;
	fp->rate_kbps = c->rate_kbps;
	fp->queue = c->queue != 0 && c->queue < ACIS_FAULT_QUEUE ?
		    c->queue : ACIS_FAULT_QUEUE;
	fp->classes = c->classes != 0 ? c->classes : 1;
	fp->class_queue = c->class_queue != 0 ? c->class_queue : 256;
	fp->acis_class = RTE_MIN(c->acis_class, fp->classes - 1);
	/* per-frame maths without a division: a byte's time as 32.32
	 * fixed point (1 kbit/s at 5 GHz: 2^35 cycles a byte, << 32) */
	fp->byte_tsc = c->rate_kbps == 0 ? 0 :
		(uint64_t)llround(8.0 * (double)g_sw.tsc_hz /
				  (c->rate_kbps * 1e3) * 4294967296.0);
	fp->delay_tsc = (uint64_t)llround(c->delay_us * 1e-6 *
					  (double)g_sw.tsc_hz);
	fp->jitter_tsc = c->jitter_us * 1e-6 * (double)g_sw.tsc_hz;
	fp->delay_us = c->delay_us;
	fp->jitter_us = c->jitter_us;
	fp->seed = c->seed;
	fp->gen++;
	fp->on = c->enabled;
}

int
acis_fault_init(const struct acis_pipeline *pl)
{
	unsigned int i, p;

	memset(g_fault, 0, sizeof(*g_fault) * ACIS_MAX_PORTS);
	for (p = 0; p < pl->n_ports; p++) {
		struct acis_fault_cfg c = pl->ports[p].fault;

		if (!c.enabled) {
			memset(&c, 0, sizeof(c));
			c.reorder_window = 4;
			c.queue = ACIS_FAULT_QUEUE;
			c.seed = 1;
		}
		port_set(&g_fault[p], &c);
	}
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc->worker_index < 0)
			continue;
		for (p = 0; p < pl->n_ports; p++) {
			lc->fault[p] = rte_zmalloc("acis_fault",
						   sizeof(*lc->fault[p]),
						   RTE_CACHE_LINE_SIZE);
			if (lc->fault[p] == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

void
acis_fault_fini(void)
{
	unsigned int i, p, k;

	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc == NULL)
			continue;
		for (p = 0; p < ACIS_MAX_PORTS; p++) {
			struct acis_fault_lc *f = lc->fault[p];

			if (f == NULL)
				continue;
			for (k = 0; k < f->n_reorder; k++)
				acis_frame_free(f->held[k].m);
			for (k = 0; k < f->q_n; k++)
				acis_frame_free(f->q[(f->q_head + k) &
						     (ACIS_FAULT_QUEUE - 1)].m);
			for (k = 0; k < ACIS_FAULT_CLASSES; k++) {
				unsigned int in;

				for (in = 0; in < ACIS_FAULT_INPUTS; in++) {
					struct rte_mbuf *m = f->cq[k].head[in];

					while (m != NULL) {
						struct rte_mbuf *nx =
							acis_meta(m)->hold_next;

						acis_frame_free(m);
						m = nx;
					}
				}
			}
			rte_free(f);
			lc->fault[p] = NULL;
		}
	}
}

/* splitmix64: a fresh, well-mixed value per call. */
static inline uint64_t
next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline int
chance(uint64_t *s, uint32_t t)
{
	return t != 0 && (uint32_t)next(s) < t;
}

/* A private copy when others share the data (flooded clones, results
 * whose payload segment several members' frames share). */
static struct rte_mbuf *
writable(struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (acis_frame_plain(m))
		return m;
	c = rte_pktmbuf_copy(m, g_sw.pool, 0, UINT32_MAX);
	acis_frame_free(m);
	return c;
}

static inline void
emit(struct acis_fault_lc *f, struct rte_mbuf *m, struct rte_mbuf **out,
     uint16_t *k, uint16_t cap)
{
	if (*k < cap) {
		out[(*k)++] = m;
		f->seq++;
	} else {
		/* out is sized for duplicates of a whole burst plus the
		 * hold queue, so this is a safety net */
		acis_frame_free(m);
		f->c.hold_full++;
	}
}

uint64_t
acis_fault_draw_delay(struct acis_fault_lc *f,
		      const struct acis_fault_port *fp)
{
	double d, z;

	if (fp->jitter_tsc == 0.0)
		return fp->delay_tsc;
	if (f->has_spare) {
		z = f->spare;
		f->has_spare = 0;
	} else {
		/* u in (0, 1] so log(u) is finite; v in [0, 1) */
		double u = (double)((next(&f->rng) >> 11) + 1) * 0x1p-53;
		double v = (double)(next(&f->rng) >> 11) * 0x1p-53;
		double r = sqrt(-2.0 * log(u));

		z = r * cos(2.0 * M_PI * v);
		f->spare = r * sin(2.0 * M_PI * v);
		f->has_spare = 1;
	}
	d = (double)fp->delay_tsc + fp->jitter_tsc * z;
	return d > 0.0 ? (uint64_t)(d + 0.5) : 0;
}

/* The shaper's settings for one burst; all 0 when the port is off, where
 * frames only queue behind those still held, so they keep their order. */
struct shaping {
	uint64_t byte_tsc;
	uint32_t queue;
	uint32_t delay; /* delay or jitter */
	uint32_t classes; /* > 1 with a line rate: frames wait by class */
	uint32_t class_queue;
	uint32_t acis_class;
};

/* A frame joins the shaper's FIFO, due when the link is free, has
 * serialised it, and its delay has passed; or is dropped at the tail. */
static inline void
commit(struct acis_fault_lc *f, const struct acis_fault_port *fp,
       const struct shaping *sh, struct rte_mbuf *m, uint64_t now)
{
	uint64_t due = now;

	if (sh->byte_tsc != 0) {
		/* 128 bits: a 64 KiB frame at 1 kbit/s is 2^62 cycles << 32 */
		unsigned __int128 t = (unsigned __int128)
			(RTE_MAX(m->pkt_len, (uint32_t)WIRE_MIN) + WIRE_EXTRA) *
			sh->byte_tsc;

		if (f->link_free > now)
			due = f->link_free;
		else
			f->link_frac = 0; /* idle: start on this cycle */
		t += f->link_frac;
		due += (uint64_t)(t >> 32);
		f->link_frac = (uint32_t)t;
		f->link_free = due;
	}
	if (sh->delay) {
		due += acis_fault_draw_delay(f, fp);
		f->c.delayed++;
	}
	if (due < f->last_due)
		due = f->last_due;
	f->last_due = due;
	f->q[(f->q_head + f->q_n) & (ACIS_FAULT_QUEUE - 1)] =
		(struct acis_fault_shaped){.m = m, .due_tsc = due};
	f->q_n++;
	f->seq++;
	f->c.shaped++;
}

static inline void
shape(struct acis_fault_lc *f, const struct acis_fault_port *fp,
      const struct shaping *sh, struct rte_mbuf *m, uint64_t now)
{
	if (unlikely(f->q_n >= sh->queue)) {
		f->c.queue_drops++;
		acis_frame_free(m);
		return;
	}
	commit(f, fp, sh, m, now);
}

/*
 * A frame's class: a VLAN tag's priority (PCP 7 the highest class, 0 the
 * lowest: class (7 - PCP) x classes / 8), an ACiS frame (IPv4/UDP to or
 * from the switch's ACiS port) acis_class, anything else the lowest.
 */
static inline unsigned int
frame_class(const struct rte_mbuf *m, const struct shaping *sh)
{
	const uint8_t *e = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), ihl;
	uint16_t port = rte_cpu_to_be_16(g_sw.ccfg.udp_port);

	if (len >= 18 && e[12] == 0x81 && e[13] == 0x00)
		return (7u - (e[14] >> 5)) * sh->classes / 8u;
	if (len >= 34 && e[12] == 0x08 && e[13] == 0x00 && e[23] == 17) {
		ihl = (e[14] & 0x0fu) * 4u;
		if (len >= 14 + ihl + 8 &&
		    (memcmp(e + 14 + ihl, &port, 2) == 0 ||
		     memcmp(e + 14 + ihl + 2, &port, 2) == 0))
			return sh->acis_class;
	}
	return sh->classes - 1;
}

/* A frame into its class, behind the frames of its input; or dropped at
 * the tail when the class holds class_queue. */
static inline void
enqueue_class(struct acis_fault_lc *f, const struct shaping *sh,
	      struct rte_mbuf *m)
{
	struct acis_fault_class *q = &f->cq[frame_class(m, sh)];
	unsigned int in = m->port < RTE_DIM(g_sw.port_index) ?
			  g_sw.port_index[m->port] : ACIS_MAX_PORTS;

	if (unlikely(q->n >= sh->class_queue)) {
		q->drops++;
		f->c.queue_drops++;
		acis_frame_free(m);
		return;
	}
	acis_meta(m)->hold_next = NULL;
	if (q->tail[in] != NULL) {
		acis_meta(q->tail[in])->hold_next = m;
	} else {
		q->head[in] = m;
		q->nonempty |= 1ull << in;
	}
	q->tail[in] = m;
	q->n++;
	q->in++;
	if (q->n > q->max)
		q->max = q->n;
	f->cq_n++;
}

/* Classes: while the link is free (or frees within 10 us, so it is kept
 * busy between walks), it takes the next frame of the highest class with
 * frames, its inputs served in turn. */
static void
serve(struct acis_fault_lc *f, const struct acis_fault_port *fp,
      const struct shaping *sh, uint64_t now)
{
	uint64_t ahead = now + g_sw.tsc_hz / 100000;

	while (f->cq_n != 0 && f->link_free <= ahead &&
	       f->q_n < ACIS_FAULT_QUEUE) {
		struct acis_fault_class *q = f->cq;
		uint64_t later;
		unsigned int in;
		struct rte_mbuf *m;

		while (q->n == 0)
			q++;
		later = q->rr + 1u < 64u ?
			q->nonempty & (~0ull << (q->rr + 1u)) : 0;
		in = (unsigned int)__builtin_ctzll(later != 0 ? later :
						    q->nonempty);
		m = q->head[in];
		q->head[in] = acis_meta(m)->hold_next;
		if (q->head[in] == NULL) {
			q->tail[in] = NULL;
			q->nonempty &= ~(1ull << in);
		}
		q->rr = (uint8_t)in;
		q->n--;
		q->sent++;
		f->cq_n--;
		commit(f, fp, sh, m, now);
	}
}

/* A frame past the reorder decision: to the shaper when the port shapes
 * (or the shaper still holds frames it must not overtake), else out. */
static inline void
pass(struct acis_fault_lc *f, const struct acis_fault_port *fp,
     const struct shaping *sh, struct rte_mbuf *m, uint64_t now,
     struct rte_mbuf **out, uint16_t *k, uint16_t cap)
{
	if (sh->classes > 1 && sh->byte_tsc != 0) {
		enqueue_class(f, sh, m);
		serve(f, fp, sh, now);
	} else if (sh->byte_tsc != 0 || sh->delay || f->q_n != 0 ||
		   f->cq_n != 0) {
		shape(f, fp, sh, m, now);
	} else {
		emit(f, m, out, k, cap);
	}
}

/* Reorder: hold a frame back; when the hold is full it goes on at once
 * (counted as hold_full), as before shaping existed. */
static inline void
hold(struct acis_fault_lc *f, const struct acis_fault_port *fp,
     const struct shaping *sh, struct rte_mbuf *m, uint64_t now,
     uint64_t due_tsc, uint64_t due_seq, struct rte_mbuf **out,
     uint16_t *k, uint16_t cap)
{
	if (f->n_reorder == ACIS_FAULT_HOLD) {
		f->c.hold_full++;
		pass(f, fp, sh, m, now, out, k, cap);
		return;
	}
	f->held[f->n_reorder].m = m;
	f->held[f->n_reorder].due_tsc = due_tsc;
	f->held[f->n_reorder].due_seq = due_seq;
	f->n_reorder++;
}

/* Release what is due: reordered frames in the order they were held (on
 * to the shaper when it is on), then the shaper's head. */
static void
release(struct acis_fault_lc *f, const struct acis_fault_port *fp,
	const struct shaping *sh, uint64_t now, struct rte_mbuf **out,
	uint16_t *k, uint16_t cap)
{
	uint16_t i, j = 0;

	for (i = 0; i < f->n_reorder; i++) {
		struct acis_fault_held *h = &f->held[i];

		if ((h->due_seq <= f->seq || h->due_tsc <= now) && *k < cap)
			pass(f, fp, sh, h->m, now, out, k, cap);
		else
			f->held[j++] = *h;
	}
	f->n_reorder = j;
	if (f->cq_n != 0)
		serve(f, fp, sh, now);
	while (f->q_n != 0 && *k < cap) {
		const struct acis_fault_shaped *q = &f->q[f->q_head];

		if (q->due_tsc > now)
			break;
		out[(*k)++] = q->m;
		f->q_head = (f->q_head + 1) & (ACIS_FAULT_QUEUE - 1);
		f->q_n--;
	}
	f->n_held = (uint16_t)RTE_MIN(f->n_reorder + f->q_n + f->cq_n,
				      (uint32_t)UINT16_MAX);
}

static inline void
shaping_of(const struct acis_fault_port *fp, struct shaping *sh)
{
	if (likely(fp->on)) {
		sh->byte_tsc = fp->byte_tsc;
		sh->queue = fp->queue;
		sh->delay = fp->delay_tsc != 0 || fp->jitter_tsc != 0.0;
		sh->classes = fp->classes;
		sh->class_queue = fp->class_queue;
		sh->acis_class = fp->acis_class;
	} else {
		sh->byte_tsc = 0;
		sh->queue = ACIS_FAULT_QUEUE;
		sh->delay = 0;
		sh->classes = 1;
		sh->class_queue = ACIS_FAULT_QUEUE;
		sh->acis_class = 0;
	}
}

uint16_t
acis_fault_apply(struct acis_lcore_ctx *lc, uint16_t port,
		 struct rte_mbuf **pkts, uint16_t n, struct rte_mbuf **out,
		 uint16_t cap)
{
	const struct acis_fault_port *fp = &g_fault[port];
	struct acis_fault_lc *f = lc->fault[port];
	uint64_t now = rte_rdtsc();
	/* a held-back frame goes after its window of later frames, or 1 ms
	 * after it was held, whichever comes first */
	uint64_t quiet = g_sw.tsc_hz / 1000;
	struct shaping sh;
	uint16_t i, k = 0;

	if (unlikely(f->gen != fp->gen)) {
		f->gen = fp->gen;
		f->rng = fp->seed * 0x9e3779b97f4a7c15ull ^
			 ((uint64_t)port << 32) ^ (uint64_t)lc->worker_index;
		f->has_spare = 0;
	}
	shaping_of(fp, &sh);
	if (unlikely(!fp->on)) {
		/* off, with frames still held: no faults, only the order */
		for (i = 0; i < n; i++)
			pass(f, fp, &sh, pkts[i], now, out, &k, cap);
		goto done;
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int copies = 1, c;

		f->c.frames++;
		if (chance(&f->rng, fp->drop)) {
			f->c.dropped++;
			acis_frame_free(m);
			continue;
		}
		if (chance(&f->rng, fp->corrupt) && m->data_len > 14) {
			m = writable(m);
			if (m == NULL) {
				f->c.nombuf++;
				continue;
			}
			rte_pktmbuf_mtod(m, uint8_t *)[14 + next(&f->rng) %
				(m->data_len - 14)] ^= (uint8_t)(1u << (next(&f->rng) & 7));
			f->c.corrupted++;
		}
		if (chance(&f->rng, fp->dup)) {
			/* every segment: a result's payload is a shared
			 * segment chained behind its headers */
			rte_pktmbuf_refcnt_update(m, 1);
			f->c.duplicated++;
			copies = 2;
		}
		for (c = 0; c < copies; c++) {
			if (chance(&f->rng, fp->reorder)) {
				f->c.reordered++;
				hold(f, fp, &sh, m, now, now + quiet,
				     f->seq + 1 + next(&f->rng) % fp->window,
				     out, &k, cap);
			} else {
				pass(f, fp, &sh, m, now, out, &k, cap);
			}
		}
	}
done:
	if (f->n_reorder != 0 || f->q_n != 0 || f->cq_n != 0)
		release(f, fp, &sh, now, out, &k, cap);
	else
		f->n_held = 0;
	return k;
}

int
acis_fault_holding(const struct acis_lcore_ctx *lc)
{
	unsigned int p;

	for (p = 0; p < g_sw.n_ports; p++)
		if (lc->fault[p] != NULL && lc->fault[p]->n_held != 0)
			return 1;
	return 0;
}

int
acis_fault_link_ready(const struct acis_lcore_ctx *lc, uint16_t port,
		      uint64_t now)
{
	const struct acis_fault_lc *f = lc->fault[port];

	if (!g_fault[port].on || g_fault[port].rate_kbps == 0 || f == NULL)
		return 1;
	/* free, or freeing within 10 us: kept busy between walks, as the
	 * class queues keep it (serve) */
	return f->cq_n == 0 && f->link_free <= now + g_sw.tsc_hz / 100000;
}

void
acis_fault_flush(struct acis_lcore_ctx *lc)
{
	/* at most a burst of this many per port and walk: what is due
	 * beyond goes on the next walk, microseconds later */
	struct rte_mbuf *out[ACIS_FAULT_HOLD];
	unsigned int p;
	uint64_t now = 0;

	for (p = 0; p < g_sw.n_ports; p++) {
		struct acis_fault_lc *f = lc->fault[p];
		struct shaping sh;
		uint16_t k = 0;

		if (f == NULL || f->n_held == 0)
			continue;
		if (now == 0)
			now = rte_rdtsc();
		/* the common case: a shaper whose head is not due yet, and
		 * no class waiting for a link that is free */
		if (f->n_reorder == 0 &&
		    (f->q_n == 0 || f->q[f->q_head].due_tsc > now) &&
		    (f->cq_n == 0 ||
		     f->link_free > now + g_sw.tsc_hz / 100000))
			continue;
		shaping_of(&g_fault[p], &sh);
		release(f, &g_fault[p], &sh, now, out, &k, RTE_DIM(out));
		if (k == 0)
			continue;
		acis_tx_send(lc, (uint16_t)p, out, k);
	}
}

/* ---- telemetry ---- */

static void
sum_counters(unsigned int port, struct acis_fault_counters *s,
	     unsigned int *held)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	*held = 0;
	for (i = 0; i < g_sw.n_lcores; i++) {
		const struct acis_fault_lc *f = g_sw.lcores[i]->fault[port];

		if (f == NULL)
			continue;
		s->frames += f->c.frames;
		s->dropped += f->c.dropped;
		s->duplicated += f->c.duplicated;
		s->reordered += f->c.reordered;
		s->corrupted += f->c.corrupted;
		s->delayed += f->c.delayed;
		s->hold_full += f->c.hold_full;
		s->nombuf += f->c.nombuf;
		s->shaped += f->c.shaped;
		s->queue_drops += f->c.queue_drops;
		*held += f->n_held;
	}
}

static void
port_dict(struct rte_tel_data *d, unsigned int p)
{
	const struct acis_fault_port *fp = &g_fault[p];
	struct acis_fault_counters s;
	unsigned int held;

	sum_counters(p, &s, &held);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "state", fp->on ? "on" : "off");
	rte_tel_data_add_dict_u64(d, "drop_ppm", (uint64_t)llround(prob(fp->drop) * 1e6));
	rte_tel_data_add_dict_u64(d, "duplicate_ppm", (uint64_t)llround(prob(fp->dup) * 1e6));
	rte_tel_data_add_dict_u64(d, "reorder_ppm", (uint64_t)llround(prob(fp->reorder) * 1e6));
	rte_tel_data_add_dict_u64(d, "corrupt_ppm", (uint64_t)llround(prob(fp->corrupt) * 1e6));
	rte_tel_data_add_dict_u64(d, "reorder_window", fp->window);
	rte_tel_data_add_dict_u64(d, "delay_us", (uint64_t)llround(fp->delay_us));
	rte_tel_data_add_dict_u64(d, "delay_ns", (uint64_t)llround(fp->delay_us * 1e3));
	rte_tel_data_add_dict_u64(d, "jitter_ns", (uint64_t)llround(fp->jitter_us * 1e3));
	rte_tel_data_add_dict_u64(d, "rate_mbps", fp->rate_kbps / 1000);
	rte_tel_data_add_dict_u64(d, "rate_kbps", fp->rate_kbps);
	rte_tel_data_add_dict_u64(d, "queue", fp->queue);
	rte_tel_data_add_dict_u64(d, "seed", fp->seed);
	rte_tel_data_add_dict_u64(d, "frames", s.frames);
	rte_tel_data_add_dict_u64(d, "dropped", s.dropped);
	rte_tel_data_add_dict_u64(d, "duplicated", s.duplicated);
	rte_tel_data_add_dict_u64(d, "reordered", s.reordered);
	rte_tel_data_add_dict_u64(d, "corrupted", s.corrupted);
	rte_tel_data_add_dict_u64(d, "delayed", s.delayed);
	rte_tel_data_add_dict_u64(d, "hold_full", s.hold_full);
	rte_tel_data_add_dict_u64(d, "nombuf", s.nombuf);
	rte_tel_data_add_dict_u64(d, "shaped", s.shaped);
	rte_tel_data_add_dict_u64(d, "queue_drops", s.queue_drops);
	rte_tel_data_add_dict_u64(d, "held_now", held);
	rte_tel_data_add_dict_u64(d, "classes", fp->classes);
	if (fp->classes > 1) {
		unsigned int c, i;

		rte_tel_data_add_dict_u64(d, "class_queue", fp->class_queue);
		rte_tel_data_add_dict_u64(d, "acis_class", fp->acis_class);
		/* each class: frames in, sent to the link, dropped at its
		 * tail, waiting, the most it held (workers summed) */
		for (c = 0; c < ACIS_FAULT_CLASSES; c++) {
			uint64_t v[5] = {0};
			char key[32];
			static const char *const what[] = {"in", "sent",
				"dropped", "waiting", "max"};

			for (i = 0; i < g_sw.n_lcores; i++) {
				const struct acis_fault_lc *f =
					g_sw.lcores[i]->fault[p];

				if (f == NULL)
					continue;
				v[0] += f->cq[c].in;
				v[1] += f->cq[c].sent;
				v[2] += f->cq[c].drops;
				v[3] += f->cq[c].n;
				v[4] = RTE_MAX(v[4], (uint64_t)f->cq[c].max);
			}
			if (c >= fp->classes && v[0] == 0)
				continue;
			for (i = 0; i < 5; i++) {
				snprintf(key, sizeof(key), "class%u_%s", c,
					 what[i]);
				rte_tel_data_add_dict_u64(d, key, v[i]);
			}
		}
	}
}

static int
tel_fault(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int p;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	for (p = 0; p < g_sw.n_ports; p++) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			return -ENOMEM;
		port_dict(c, p);
		rte_tel_data_add_dict_container(d, g_sw.pl->ports[p].name, c, 0);
	}
	return 0;
}

int
acis_fault_set(const char *params, char *msg, size_t len)
{
	struct acis_fault_cfg c;
	struct acis_fault_port *fp;
	char buf[512], *tok, *save = NULL;
	int port, n = 0;

	if (params == NULL || strlen(params) >= sizeof(buf))
		goto usage;
	strcpy(buf, params);
	tok = strtok_r(buf, ",", &save);
	port = tok ? acis_pipeline_port_index(g_sw.pl, tok) : -1;
	if (port < 0) {
		snprintf(msg, len, "unknown port '%s'", tok ? tok : "");
		return -ENOENT;
	}
	fp = &g_fault[port];
	memset(&c, 0, sizeof(c));
	c.drop = prob(fp->drop);
	c.duplicate = prob(fp->dup);
	c.reorder = prob(fp->reorder);
	c.corrupt = prob(fp->corrupt);
	c.reorder_window = fp->window;
	c.delay_us = fp->delay_us;
	c.jitter_us = fp->jitter_us;
	c.rate_kbps = fp->rate_kbps;
	c.classes = fp->classes;
	c.class_queue = fp->class_queue;
	c.acis_class = fp->acis_class;
	c.queue = fp->queue;
	c.seed = fp->seed;
	c.enabled = 1;
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		char *eq = strchr(tok, '=');

		n++;
		if (strcmp(tok, "off") == 0) {
			c.enabled = 0;
			continue;
		}
		if (eq == NULL)
			goto usage;
		*eq++ = '\0';
		if (acis_fault_cfg_set(&c, tok, eq, msg, len) != 0)
			return -EINVAL;
	}
	if (n == 0)
		goto usage;
	port_set(fp, &c);
	return port;
usage:
	/* the keys are too many for a telemetry string beside this: the
	 * telemetry answer lists them apart (tel_fault_set) */
	snprintf(msg, len, "expected PORT,off or PORT,KEY=VALUE,... (KEY: a "
		 "[fault PORT] key)");
	return -EINVAL;
}

/* /acis/fault/set,PORT,key=value,... (acis_fault_set). */
static int
tel_fault_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	int port;

	RTE_SET_USED(cmd);
	port = acis_fault_set(params, msg, sizeof(msg));
	if (port < 0) {
		acis_tel_error(d, "%s", msg);
		rte_tel_data_add_dict_string(d, "keys", ACIS_FAULT_KEYS);
		return 0;
	}
	port_dict(d, (unsigned int)port);
	return 0;
}

int
acis_fault_telemetry_register(void)
{
	int rc = 0;

	rc |= acis_tel_register("/acis/fault", tel_fault,
		"Fault injection per port: settings and counters. No parameters");
	rc |= acis_tel_register("/acis/fault/set", tel_fault_set,
		"Change a port's faults. Parameters: PORT,off or PORT,KEY=VALUE,...");
	return rc;
}
