/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The torus traffic generator (doc/torus-traffic.md): each node of a
 * torus sends frames of a seed 000 pattern (lib/torus's patterns) into
 * its router's local input, in batch or continuous mode, and times the
 * frames that reach it, as the thesis's experiments do (§5.6): batch
 * (tail) latency, per-packet latency and delay ratio, throughput.
 *
 * A run is started, stopped and read over telemetry (/acis/torus/gen,
 * one switch of a fabric process by "@SWITCH"). The telemetry thread
 * hands a start or stop to the worker through a sequence-counted mailbox;
 * from then on only the worker lcore writes the generator's state and
 * counters (a buffered router is served by one lcore, and the generator
 * asks for one worker as well), and telemetry only reads them.
 *
 * A frame after its torus header, from the inner EtherType (0x88B5) on,
 * big-endian:
 *   0  magic "TGEN"      4  run id
 *   8  source node      10  flags (bit 0: sent in the warm-up)
 *  12  sequence         16  generation time, router cycles (64 bits)
 * and the rest of the frame's size, unwritten.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "switch.h"
#include "torus.h"

#define GEN_ETHERTYPE 0x88B5
#define GEN_MAGIC 0x5447454Eu /* "TGEN" */
#define GEN_PAYLOAD 24
/* bytes of a frame before its payload: MACs, torus header, EtherType */
#define GEN_HDR (12 + ACIS_TORUS_SHIM_LEN + 2)
#define GEN_SIZE_MIN (GEN_HDR + GEN_PAYLOAD)
#define GEN_FLAG_WARMUP 0x01
/* a flit of seed 000's router: 128 bits (§5.2.1) */
#define GEN_FLIT 16
/* frames a poll may offer: keeps one walk of the switch's graph short */
#define GEN_BURST 32
/* latency buckets: 4 to each power of two (a quarter octave), cycles */
#define GEN_LAT_BUCKETS 252
/* hops a frame may carry: the header's byte */
#define GEN_HOPS 256
/* destinations kept at start rather than found again each frame */
#define GEN_DEST_CACHE 128 /* (a cube of radius 2: 125) */
#define GEN_COUNT_MAX 1000000u

enum gen_mode { GEN_BATCH = 0, GEN_CONTINUOUS = 1 };
enum gen_state {
	GEN_IDLE = 0,    /* no run yet */
	GEN_ARMED,       /* configured, waiting for its start time */
	GEN_RUNNING,
	GEN_DONE,        /* sent all (batch) or its duration ended */
	GEN_STOPPED,     /* stopped by /acis/torus/gen,stop */
};
static const char *const state_names[] = {
	"idle", "armed", "running", "done", "stopped",
};

enum gen_cmd { GEN_CMD_START = 1, GEN_CMD_STOP = 2 };

/* How a message travels: unicasts of the pattern, or in the network
 * (seed 000 ch. 6 and 8; torus.h). */
enum gen_coll {
	GEN_UNICAST = 0,
	GEN_CUBE_MC,  /* one cube multicast of radius R a message */
	GEN_CUBE_RED, /* a contribution to each node of the R-cube, each
			 node's sum delivered to it */
	GEN_TABLE,    /* one table-routed frame, header word W */
};
static const char *const coll_names[] = {"none", "cube-mc", "cube-red",
					 "table"};

/* A run as /acis/torus/gen,start gives it. */
struct gen_cfg {
	struct acis_torus_pattern pat;
	uint8_t mode;
	uint16_t size;
	uint32_t count;       /* batch: frames to each destination */
	uint64_t gap_fp;      /* continuous: cycles between frames, 2^16 */
	uint64_t at;          /* start, router cycles */
	uint64_t duration;    /* continuous, router cycles */
	uint64_t warmup;      /* continuous, router cycles */
	uint64_t seed;
	uint32_t run;
	uint32_t ideal_base;  /* delay ratio's ideal latency, cycles: */
	uint32_t ideal_hop;   /* base + per hop x hops; 0 and 0: none */
	uint32_t ratio_milli; /* its threshold, thousandths */
	uint64_t expected;    /* batch, fixed patterns: frames due here */
	int8_t routing;       /* the run's algorithm; -1: the switch's */
	uint8_t coll;         /* enum gen_coll */
	uint8_t radius;       /* cube-mc, cube-red */
	uint32_t word;        /* table: the Fig. 8.2(a) word injected */
	uint32_t red_members; /* cube-red: contributions a sum holds here */
	uint64_t red_ids;     /* ... and their node numbers summed */
	char rate[24];        /* as given, for the report */
	char load[24];
	char ratio[24];
};

/* What the node sent. */
struct gen_tx {
	uint64_t planned;     /* batch: frames to send */
	uint64_t sent;        /* frames the router took */
	uint64_t sent_bytes;
	uint64_t stalls;      /* frames refused (queue full) and retried */
	uint64_t stall_cycles; /* their wait, generation to injection */
	uint64_t inject_errors; /* frames the stage refused outright */
	uint64_t no_mbuf;     /* polls that found the pool dry */
	uint64_t backlog;     /* continuous: due, not sent at the end */
	uint64_t first_gen;   /* the first frame's generation time */
	uint64_t last_inject;
};

/* What reached the node. */
struct gen_rx {
	uint64_t received;    /* frames of the run, warm-up ones too */
	uint64_t received_bytes;
	uint64_t warmup_rx;   /* ... of them sent in the warm-up */
	uint64_t window;      /* received between warm-up and the end */
	uint64_t window_hops; /* their hops */
	uint64_t other_run;   /* frames of another run */
	uint64_t malformed;   /* too short, not the generator's magic */
	uint64_t first_rx, last_rx;
	/* of the frames measured (not warm-up ones): */
	uint64_t measured;
	uint64_t lat_sum, lat_min, lat_max; /* generation to ejection */
	uint64_t hops_sum;
	uint64_t over;        /* delay ratio above the threshold */
	uint64_t ratio_sum;   /* delay ratios summed, 1/1024ths */
	uint64_t ratio_max;
	uint64_t lat_hist[GEN_LAT_BUCKETS];
	uint64_t hops_hist[GEN_HOPS];
	uint64_t lat_by_hops[GEN_HOPS]; /* latency summed by hop count */
	uint64_t red_results; /* cube-red: sums delivered here */
	uint64_t red_bad;     /* ... not every member's, or wrong */
};

struct acis_torus_gen {
	/* the mailbox: the telemetry threads write, under lock, with seq
	 * odd while they do; the worker copies when seq is even and new */
	rte_spinlock_t lock;
	uint32_t seq;
	uint8_t cmd;
	struct gen_cfg next;
	uint32_t seen;
	uint32_t last_run;

	/* the worker's */
	uint8_t state;
	struct gen_cfg cfg;
	struct acis_torus_rng rng;
	uint32_t ndest;       /* destinations of this node */
	uint32_t dest[GEN_DEST_CACHE];
	uint64_t j;           /* the next frame's number */
	uint64_t due_fp;      /* continuous: the next frame's time after
				 the start, 2^16 (relative: the clock's
				 count would overflow the fraction) */
	struct rte_mbuf *m;   /* a frame built, not yet taken */
	uint64_t m_gen;       /* its generation time */
	uint8_t m_stalled;
	uint32_t m_dest;
	struct rte_mbuf *stash[GEN_BURST]; /* mbufs allocated, unused */
	unsigned int n_stash;
	uint64_t thr[GEN_HOPS]; /* latency over it: ratio above threshold */
	uint64_t inv[GEN_HOPS]; /* 2^40 / ideal latency, by hops */
	struct gen_tx tx;
	struct gen_rx rx;
};

/* ---- the worker ---- */

static void
gen_release(struct acis_torus_gen *g)
{
	if (g->m != NULL) {
		rte_pktmbuf_free(g->m);
		g->m = NULL;
	}
	if (g->n_stash != 0) {
		rte_pktmbuf_free_bulk(g->stash, g->n_stash);
		g->n_stash = 0;
	}
}

/* Latency bucket of v cycles: below 4 exact, then four a power of two. */
static inline unsigned int
lat_bucket(uint64_t v)
{
	unsigned int e;

	if (v < 4)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return 4 * (e - 1) + (unsigned int)((v >> (e - 2)) & 3);
}

/* The lowest latency of bucket b. */
static uint64_t
lat_bucket_low(unsigned int b)
{
	if (b < 4)
		return b;
	return (uint64_t)(4 + b % 4) << (b / 4 - 1);
}

/* The nodes within r hops of this one in each dimension (a ring shorter
 * than 2r + 1 is refused at start; a mesh clips): into out if not NULL;
 * their count. */
static unsigned int
gen_cube(const struct acis_torus_sw *ts, unsigned int r, uint32_t *out)
{
	const struct acis_torus *t = &ts->t;
	int o[ACIS_TORUS_DIMS], lim[ACIS_TORUS_DIMS];
	unsigned int d, n = 0;

	for (d = 0; d < ACIS_TORUS_DIMS; d++)
		lim[d] = t->k[d] > 1 ? (int)r : 0;
	for (o[2] = -lim[2]; o[2] <= lim[2]; o[2]++)
		for (o[1] = -lim[1]; o[1] <= lim[1]; o[1]++)
			for (o[0] = -lim[0]; o[0] <= lim[0]; o[0]++) {
				struct acis_torus_coord c;
				int ok = 1;

				for (d = 0; d < ACIS_TORUS_DIMS; d++) {
					int v = ts->self.c[d] + o[d];

					if (t->mesh && (v < 0 || v >= t->k[d]))
						ok = 0;
					v = (v % t->k[d] + t->k[d]) % t->k[d];
					c.c[d] = (uint8_t)v;
				}
				if (!ok)
					continue;
				if (out != NULL)
					out[n] = (uint32_t)acis_torus_node(t,
									   &c);
				n++;
			}
	return n;
}

/* Messages a round of this node: a pattern's destinations, or one
 * in-network frame, or a contribution to each node of the cube. */
static uint32_t
gen_coll_count(const struct acis_torus_sw *ts, const struct gen_cfg *c)
{
	switch (c->coll) {
	case GEN_UNICAST:
		return acis_torus_pattern_count(&ts->t, &c->pat, ts->node);
	case GEN_CUBE_RED:
		return gen_cube(ts, c->radius, NULL);
	default:
		return 1;
	}
}

/* A start the worker takes from the mailbox: counters cleared, the
 * destinations and the delay ratio's tables made. */
static void
gen_apply_start(struct acis_torus_sw *ts, struct acis_torus_gen *g)
{
	unsigned int h, i;

	gen_release(g);
	memset(&g->tx, 0, sizeof(g->tx));
	memset(&g->rx, 0, sizeof(g->rx));
	g->rx.lat_min = UINT64_MAX;
	acis_torus_rng_seed(&g->rng, g->cfg.seed ^ ((uint64_t)ts->node << 40));
	g->ndest = gen_coll_count(ts, &g->cfg);
	if (g->cfg.coll == GEN_CUBE_RED)
		gen_cube(ts, g->cfg.radius, g->dest);
	else if (g->cfg.coll != GEN_UNICAST)
		g->dest[0] = ts->node;
	else if (!acis_torus_pattern_random(&g->cfg.pat) &&
		 g->ndest <= GEN_DEST_CACHE)
		for (i = 0; i < g->ndest; i++)
			g->dest[i] = (uint32_t)acis_torus_pattern_dest(
				&ts->t, &g->cfg.pat, ts->node, i, NULL);
	for (h = 0; h < GEN_HOPS; h++) {
		uint64_t ideal = g->cfg.ideal_base +
				 (uint64_t)g->cfg.ideal_hop * h;

		g->inv[h] = ideal != 0 ? (1ull << 40) / ideal : 0;
		g->thr[h] = ideal != 0 ? ideal * g->cfg.ratio_milli / 1000 :
					 UINT64_MAX;
	}
	g->tx.planned = g->cfg.mode == GEN_BATCH ?
			(uint64_t)g->cfg.count * g->ndest : 0;
	g->j = 0;
	g->due_fp = 0;
	__atomic_store_n(&g->state, GEN_ARMED, __ATOMIC_RELEASE);
}

/* The mailbox: a start or a stop the telemetry thread left. */
static void
gen_mailbox(struct acis_torus_sw *ts, struct acis_torus_gen *g, uint32_t s)
{
	struct gen_cfg next;
	uint8_t cmd;

	if (s & 1)
		return; /* being written */
	cmd = g->cmd;
	if (cmd == GEN_CMD_START)
		next = g->next;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&g->seq, __ATOMIC_RELAXED) != s)
		return; /* written meanwhile: next poll */
	g->seen = s;
	if (cmd == GEN_CMD_START) {
		g->cfg = next;
		gen_apply_start(ts, g);
	} else if (g->state == GEN_ARMED || g->state == GEN_RUNNING) {
		gen_release(g);
		__atomic_store_n(&g->state, GEN_STOPPED, __ATOMIC_RELEASE);
	}
}

/* Frame number j's destination; its message drawn at the first of it
 * (random multicast). */
static inline uint32_t
gen_dest(struct acis_torus_sw *ts, struct acis_torus_gen *g, uint64_t j)
{
	uint32_t i = (uint32_t)(j % g->ndest);

	if (g->cfg.coll != GEN_UNICAST)
		return g->dest[i];
	if (i == 0)
		acis_torus_pattern_draw(&g->cfg.pat, &g->rng);
	if (!acis_torus_pattern_random(&g->cfg.pat) &&
	    g->ndest <= GEN_DEST_CACHE)
		return g->dest[i];
	return (uint32_t)acis_torus_pattern_dest(&ts->t, &g->cfg.pat,
						 ts->node, i, &g->rng);
}

/* Build frame number j, generated at gen, into g->m; 0, or -1 with the
 * pool dry. */
static inline int
gen_build(struct acis_torus_sw *ts, struct acis_torus_gen *g, uint64_t j,
	  uint64_t gen)
{
	struct rte_mbuf *m;
	uint8_t *e;
	uint32_t dn;

	if (g->n_stash == 0) {
		if (rte_pktmbuf_alloc_bulk(g_sw.pool, g->stash,
					   GEN_BURST) != 0) {
			g->tx.no_mbuf++;
			return -1;
		}
		g->n_stash = GEN_BURST;
	}
	m = g->stash[--g->n_stash];
	dn = gen_dest(ts, g, j);
	m->data_len = (uint16_t)(g->cfg.size - ACIS_TORUS_SHIM_LEN);
	m->pkt_len = m->data_len;
	e = rte_pktmbuf_mtod(m, uint8_t *);
	/* locally administered MACs naming the nodes: 02:74:67:00:HH:LL */
	e[0] = 0x02, e[1] = 0x74, e[2] = 0x67, e[3] = 0;
	e[4] = (uint8_t)(dn >> 8), e[5] = (uint8_t)dn;
	e[6] = 0x02, e[7] = 0x74, e[8] = 0x67, e[9] = 0;
	e[10] = (uint8_t)(ts->node >> 8), e[11] = (uint8_t)ts->node;
	*(unaligned_uint16_t *)(e + 12) = rte_cpu_to_be_16(GEN_ETHERTYPE);
	e += 14;
	*(unaligned_uint32_t *)(e + 0) = rte_cpu_to_be_32(GEN_MAGIC);
	*(unaligned_uint32_t *)(e + 4) = rte_cpu_to_be_32(g->cfg.run);
	*(unaligned_uint16_t *)(e + 8) = rte_cpu_to_be_16((uint16_t)ts->node);
	e[10] = g->cfg.mode == GEN_CONTINUOUS &&
		gen < g->cfg.at + g->cfg.warmup ? GEN_FLAG_WARMUP : 0;
	e[11] = 0;
	*(unaligned_uint32_t *)(e + 12) = rte_cpu_to_be_32((uint32_t)j);
	*(unaligned_uint64_t *)(e + 16) = rte_cpu_to_be_64(gen);
	if (g->cfg.coll == GEN_CUBE_RED) {
		/* the words the switches sum: one contribution, its node's
		 * number; the rest 0 */
		memset(e + GEN_PAYLOAD, 0, g->cfg.size - GEN_SIZE_MIN);
		*(unaligned_uint32_t *)(e + GEN_PAYLOAD) = rte_cpu_to_be_32(1);
		*(unaligned_uint32_t *)(e + GEN_PAYLOAD + 4) =
			rte_cpu_to_be_32(ts->node);
	}
	g->m = m;
	g->m_gen = gen;
	g->m_stalled = 0;
	g->m_dest = dn;
	return 0;
}

/* Offer the frame built to the router: 1 taken (or refused for good,
 * counted), 0 refused for now (the injection queue full). */
static inline int
gen_offer(struct acis_lcore_ctx *lc, struct acis_torus_gen *g, uint64_t now)
{
	int rc;

	switch (g->cfg.coll) {
	case GEN_CUBE_MC:
		rc = acis_torus_sw_inject_coll(lc, g->m, ACIS_TORUS_T_CUBE_MC,
					       0, g->cfg.radius);
		break;
	case GEN_CUBE_RED:
		rc = acis_torus_sw_inject_coll(lc, g->m, ACIS_TORUS_T_CUBE_RED,
					       g->m_dest, g->cfg.radius);
		break;
	case GEN_TABLE:
		rc = acis_torus_sw_inject_coll(lc, g->m, ACIS_TORUS_T_TABLE,
					       g->cfg.word, 0);
		break;
	default:
		rc = acis_torus_sw_inject(lc, g->m, g->m_dest,
					  ACIS_TORUS_T_GEN, g->cfg.routing);
	}

	if (unlikely(rc == -ENOBUFS)) {
		g->tx.stalls += !g->m_stalled;
		g->m_stalled = 1;
		return 0;
	}
	if (unlikely(rc != 0)) {
		/* the mbuf is still ours: kept for the next frame */
		g->tx.inject_errors++;
		g->stash[g->n_stash++] = g->m;
	} else {
		g->tx.sent++;
		g->tx.sent_bytes += g->cfg.size;
		if (g->m_stalled)
			g->tx.stall_cycles += now - g->m_gen;
		g->tx.last_inject = now;
	}
	g->m = NULL;
	return 1;
}

void
acis_torus_gen_poll(struct acis_lcore_ctx *lc)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_gen *g = ts->gen;
	uint32_t s = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
	unsigned int n;
	uint64_t now;

	if (unlikely(s != g->seen))
		gen_mailbox(ts, g, s);
	if (likely(g->state != GEN_ARMED && g->state != GEN_RUNNING))
		return;
	now = acis_torus_now(ts);
	if (g->state == GEN_ARMED) {
		if (now < g->cfg.at)
			return;
		g->tx.first_gen = g->cfg.mode == GEN_BATCH ? now : g->cfg.at;
		__atomic_store_n(&g->state, GEN_RUNNING, __ATOMIC_RELEASE);
		if (g->ndest == 0) {
			/* nowhere to send from this node */
			__atomic_store_n(&g->state, GEN_DONE,
					 __ATOMIC_RELEASE);
			return;
		}
	}
	if (g->cfg.mode == GEN_BATCH) {
		/* every frame as soon as the injection queue takes it: its
		 * generation the moment the one before was taken */
		for (n = 0; n < GEN_BURST; n++) {
			if (g->m == NULL) {
				if (g->j == g->tx.planned) {
					gen_release(g);
					__atomic_store_n(&g->state, GEN_DONE,
							 __ATOMIC_RELEASE);
					return;
				}
				if (gen_build(ts, g, g->j, n == 0 ? now :
					      acis_torus_now(ts)) != 0)
					return;
				g->j++;
			}
			if (!gen_offer(lc, g, now))
				return;
		}
		return;
	}
	/* continuous: a frame each gap, generated when due whether or not
	 * the router takes it then (an open-loop source: its wait counts) */
	if (now >= g->cfg.at + g->cfg.duration) {
		uint64_t due = ((g->cfg.duration << 16) + g->cfg.gap_fp - 1) /
			       g->cfg.gap_fp;

		g->tx.backlog = due > g->tx.sent + g->tx.inject_errors ?
				due - g->tx.sent - g->tx.inject_errors : 0;
		gen_release(g);
		__atomic_store_n(&g->state, GEN_DONE, __ATOMIC_RELEASE);
		return;
	}
	for (n = 0; n < GEN_BURST; n++) {
		if (g->m == NULL) {
			uint64_t due = g->cfg.at + (g->due_fp >> 16);

			if (due > now)
				return;
			if (gen_build(ts, g, g->j, due) != 0)
				return;
			g->j++;
			g->due_fp += g->cfg.gap_fp;
		}
		if (!gen_offer(lc, g, now))
			return;
	}
}

void
acis_torus_gen_receive(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
		       const uint8_t *h)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_gen *g = ts->gen;
	struct gen_rx *rx = &g->rx;
	const uint8_t *p = h + ACIS_TORUS_SHIM_LEN + 2;
	uint64_t now, gen, lat;
	unsigned int hops = h[8];
	uint8_t state = g->state;

	RTE_SET_USED(lc);
	if (unlikely(rte_pktmbuf_data_len(m) < GEN_SIZE_MIN ||
		     *(const unaligned_uint32_t *)p !=
		     rte_cpu_to_be_32(GEN_MAGIC) ||
		     ((h[2] & 0x0f) != ACIS_TORUS_T_TABLE &&
		      *(const unaligned_uint16_t *)(p + 8) !=
		      *(const unaligned_uint16_t *)(h + 6)))) {
		rx->malformed++;
		goto free;
	}
	if (unlikely(state == GEN_IDLE ||
		     rte_be_to_cpu_32(*(const unaligned_uint32_t *)(p + 4)) !=
		     g->cfg.run)) {
		rx->other_run++;
		goto free;
	}
	now = acis_torus_now(ts);
	gen = rte_be_to_cpu_64(*(const unaligned_uint64_t *)(p + 16));
	lat = now > gen ? now - gen : 0;
	if (rx->received++ == 0)
		rx->first_rx = now;
	rx->last_rx = now;
	rx->received_bytes += rte_pktmbuf_pkt_len(m);
	if ((h[2] & 0x0f) == ACIS_TORUS_T_CUBE_RED) {
		/* a sum: every member's contribution, once */
		rx->red_results++;
		rx->red_bad += rte_pktmbuf_data_len(m) < GEN_SIZE_MIN + 8 ||
			rte_be_to_cpu_32(*(const unaligned_uint32_t *)
					 (p + GEN_PAYLOAD)) !=
			g->cfg.red_members ||
			rte_be_to_cpu_32(*(const unaligned_uint32_t *)
					 (p + GEN_PAYLOAD + 4)) !=
			(uint32_t)g->cfg.red_ids;
	}
	if (g->cfg.mode == GEN_CONTINUOUS &&
	    now >= g->cfg.at + g->cfg.warmup &&
	    now < g->cfg.at + g->cfg.duration) {
		rx->window++;
		rx->window_hops += hops;
	}
	if (p[10] & GEN_FLAG_WARMUP) {
		rx->warmup_rx++;
		goto free;
	}
	rx->measured++;
	rx->lat_sum += lat;
	if (lat < rx->lat_min)
		rx->lat_min = lat;
	if (lat > rx->lat_max)
		rx->lat_max = lat;
	rx->hops_sum += hops;
	rx->lat_hist[lat_bucket(lat)]++;
	rx->hops_hist[hops]++;
	rx->lat_by_hops[hops] += lat;
	if (g->inv[hops] != 0) {
		/* lat / ideal in 1/1024ths, by a multiply */
		uint64_t r = (uint64_t)(((unsigned __int128)lat *
					 g->inv[hops]) >> 30);

		rx->ratio_sum += r;
		if (r > rx->ratio_max)
			rx->ratio_max = r;
		rx->over += lat > g->thr[hops];
	}
free:
	acis_frame_free(m);
}

/* Whether a run is generating: the lcore should not sleep between its
 * frames (acis_torus_holding()). */
int acis_torus_gen_active(void);

int
acis_torus_gen_active(void)
{
	const struct acis_torus_sw *ts = g_sw.torus;
	uint8_t s;

	if (ts == NULL || ts->gen == NULL)
		return 0;
	s = __atomic_load_n(&ts->gen->state, __ATOMIC_RELAXED);
	return s == GEN_ARMED || s == GEN_RUNNING;
}

int
acis_torus_gen_init(char *err, size_t len)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_gen *g;

	if (ts == NULL)
		return 0;
	g = rte_zmalloc("acis_torus_gen", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL)
		return acis_errf(err, len, -ENOMEM, "out of memory for the "
				 "torus traffic generator");
	rte_spinlock_init(&g->lock);
	ts->gen = g;
	return 0;
}

void
acis_torus_gen_fini(void)
{
	struct acis_torus_sw *ts = g_sw.torus;

	if (ts == NULL || ts->gen == NULL)
		return;
	gen_release(ts->gen);
	rte_free(ts->gen);
	ts->gen = NULL;
}

/* ---- telemetry: /acis/torus/gen ---- */

/* The parameters of a start, and the form each expects. */
enum gen_key {
	K_PATTERN, K_MODE, K_SIZE, K_COUNT, K_RATE, K_LOAD, K_DURATION,
	K_WARMUP, K_SEED, K_RUN, K_IDEAL, K_RATIO, K_FANOUT, K_AT, K_COLL,
	K_RADIUS, K_WORD, K_ROUTING, K_N
};
static const struct {
	const char *key;
	const char *form;
} gen_keys[K_N] = {
	[K_PATTERN] = {"pattern", "pattern=nn, 3h-nn, cube-nn, bc, tran, "
		       "tor, all, rot, uniform, mcast or mcast:M"},
	[K_MODE] = {"mode", "mode=batch or mode=continuous"},
	[K_SIZE] = {"size", NULL}, /* its bounds are the switch's */
	[K_COUNT] = {"count", "count=N, frames to each destination in "
		     "batch mode, 0 (receive only) to 1000000"},
	[K_RATE] = {"rate", "rate=FRAMES_PER_S above 0, a node's"},
	[K_LOAD] = {"load", "load=FLITS_PER_CYCLE above 0, a node's (1: a "
		    "16-byte flit each router cycle)"},
	[K_DURATION] = {"duration_ms", "duration_ms=T, 1 to 3600000"},
	[K_WARMUP] = {"warmup_ms", "warmup_ms=T below duration_ms"},
	[K_SEED] = {"seed", "seed=S, an unsigned number"},
	[K_RUN] = {"run", "run=ID, 1 to 4294967295"},
	[K_IDEAL] = {"ideal", "ideal=BASE_CYCLES:PER_HOP_CYCLES, not both 0"},
	[K_RATIO] = {"ratio", "ratio=THRESHOLD above 0, a delay ratio "
		     "(e.g. 3)"},
	[K_FANOUT] = {"fanout", "fanout=M, random multicast's destinations "
		      "a message"},
	[K_AT] = {"at", "at=CYCLES, the start on the router clock (now: "
		  "/acis/torus/gen)"},
	[K_COLL] = {"coll", "coll=none, cube-mc, cube-red or table"},
	[K_RADIUS] = {"radius", "radius=R, 1 to 7 (cube-red: 1 or 2)"},
	[K_ROUTING] = {"routing", "routing=dor, o1turn, rmr, rlb or ccar (the "
		       "run's frames; the switch's by default)"},
	[K_WORD] = {"word", "word=multicast:I, unicast:I or reduce:I, I "
		    "below 4096"},
};

/* (a refusal is at most RTE_TEL_MAX_STRING_LEN - 1 characters: values
 * are cut to 16 in them) */
static const char gen_keys_list[] =
	"pattern mode size count rate load duration_ms warmup_ms seed run "
	"ideal ratio fanout at";

/* An unsigned number from min to max in v; 0, or -1. */
static int
parse_u64(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || *end != '\0' || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

/* A positive decimal up to max in v; 0, or -1. */
static int
parse_pos(const char *v, double max, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(x > 0) || x > max)
		return -1;
	*out = x;
	return 0;
}

/* "BASE:PER_HOP" in v; 0, or -1. */
static int
parse_ideal(const char *v, struct gen_cfg *c)
{
	char buf[48], *colon;
	uint64_t base, hop;

	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	colon = strchr(buf, ':');
	if (colon == NULL)
		return -1;
	*colon = '\0';
	if (parse_u64(buf, 0, UINT32_MAX, &base) != 0 ||
	    parse_u64(colon + 1, 0, UINT32_MAX, &hop) != 0 || base + hop == 0)
		return -1;
	c->ideal_base = (uint32_t)base;
	c->ideal_hop = (uint32_t)hop;
	return 0;
}

/* "TYPE:INDEX" in v: a table frame's first header; 0, or -1. */
static int
parse_word(const char *v, struct gen_cfg *c)
{
	static const char *const types[] = {"unicast", "multicast",
					    "reduce"};
	struct acis_torus_thdr h = {0};
	const char *colon = strchr(v, ':');
	uint64_t index;
	unsigned int i;

	if (colon == NULL ||
	    parse_u64(colon + 1, 0, ACIS_TORUS_TABLE_SIZE - 1, &index) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(types); i++)
		if (strlen(types[i]) == (size_t)(colon - v) &&
		    strncmp(v, types[i], (size_t)(colon - v)) == 0)
			break;
	if (i == RTE_DIM(types))
		return -1;
	h.type = (uint8_t)(ACIS_TORUS_PKT_UNICAST + i);
	h.next = (uint16_t)index;
	c->word = acis_torus_thdr_encode(&h);
	return 0;
}

/* Frames due at node self in a batch of the fixed pattern p: count for
 * each time self is a destination of another node. The neighbour
 * patterns, ALL and BC are symmetric (a node receives from those it
 * sends to); the others map each node to one, found by a scan. */
static uint64_t
gen_expected(const struct acis_torus *t, const struct acis_torus_pattern *p,
	     uint32_t self, uint32_t count)
{
	uint64_t due = 0;
	uint32_t s, i, n;

	if (p->kind != ACIS_TORUS_PAT_TRAN && p->kind != ACIS_TORUS_PAT_TOR &&
	    p->kind != ACIS_TORUS_PAT_ROT)
		return (uint64_t)count * acis_torus_pattern_count(t, p, self);
	for (s = 0; s < t->nodes; s++) {
		n = acis_torus_pattern_count(t, p, s);
		for (i = 0; i < n; i++)
			due += (uint32_t)acis_torus_pattern_dest(t, p, s, i,
								 NULL) == self;
	}
	return due * count;
}

/* The largest frame the generator may build: the pool's room, and the
 * longest frame the switch passes. */
static unsigned int
gen_size_max(void)
{
	unsigned int room = rte_pktmbuf_data_room_size(g_sw.pool) -
			    RTE_PKTMBUF_HEADROOM;

	return RTE_MIN(RTE_MIN(room, g_sw.ccfg.max_frame),
		       (unsigned int)UINT16_MAX);
}

/* What a start asked for beside the run's settings. */
struct gen_ask {
	double rate, load, ratio;
	uint64_t duration_ms, warmup_ms, fanout;
	int seed, run, at; /* given */
};

/* One KEY=VALUE of a start into c and a; 0, or -1 for a bad value. */
static int
gen_param(unsigned int k, const char *v, struct gen_cfg *c,
	  struct gen_ask *a)
{
	uint64_t x;

	switch (k) {
	case K_PATTERN:
		return acis_torus_pattern_parse(v, &c->pat) != 0 ? -1 : 0;
	case K_MODE:
		if (strcmp(v, "batch") != 0 && strcmp(v, "continuous") != 0)
			return -1;
		c->mode = v[0] == 'b' ? GEN_BATCH : GEN_CONTINUOUS;
		return 0;
	case K_SIZE:
		if (parse_u64(v, GEN_SIZE_MIN, gen_size_max(), &x) != 0)
			return -1;
		c->size = (uint16_t)x;
		return 0;
	case K_COUNT:
		if (parse_u64(v, 0, GEN_COUNT_MAX, &x) != 0)
			return -1;
		c->count = (uint32_t)x;
		return 0;
	case K_RATE:
		snprintf(c->rate, sizeof(c->rate), "%s", v);
		return parse_pos(v, 1e12, &a->rate);
	case K_LOAD:
		snprintf(c->load, sizeof(c->load), "%s", v);
		return parse_pos(v, 1e6, &a->load);
	case K_DURATION:
		return parse_u64(v, 1, 3600000, &a->duration_ms);
	case K_WARMUP:
		return parse_u64(v, 0, 3600000, &a->warmup_ms);
	case K_SEED:
		a->seed = 1;
		return parse_u64(v, 0, UINT64_MAX, &c->seed);
	case K_RUN:
		if (parse_u64(v, 1, UINT32_MAX, &x) != 0)
			return -1;
		c->run = (uint32_t)x;
		a->run = 1;
		return 0;
	case K_IDEAL:
		return parse_ideal(v, c);
	case K_RATIO:
		return parse_pos(v, 1e6, &a->ratio);
	case K_FANOUT:
		return parse_u64(v, 1, UINT16_MAX, &a->fanout);
	case K_AT:
		a->at = 1;
		return parse_u64(v, 0, UINT64_MAX >> 17, &c->at);
	case K_COLL:
		for (x = 0; x < RTE_DIM(coll_names); x++)
			if (strcmp(v, coll_names[x]) == 0) {
				c->coll = (uint8_t)x;
				return 0;
			}
		return -1;
	case K_RADIUS:
		if (parse_u64(v, 1, 7, &x) != 0)
			return -1;
		c->radius = (uint8_t)x;
		return 0;
	case K_WORD:
		return parse_word(v, c);
	case K_ROUTING: {
		int algo = acis_torus_algo_parse(v);

		if (algo < 0)
			return -1;
		c->routing = (int8_t)algo;
		return 0;
	}
	}
	return -1;
}

/* The pattern's fit to this torus; 1, or a refusal in d. */
static int
gen_check_pattern(const struct acis_torus_sw *ts, const struct gen_cfg *c,
		  struct rte_tel_data *d)
{
	const struct acis_torus *t = &ts->t;

	switch (acis_torus_pattern_check(t, &c->pat)) {
	case 0:
		return 1;
	case -EDOM:
		return acis_tel_error(d, "pattern=rot: the torus has %u nodes, "
				      "bit rotation needs a power of two",
				      t->nodes);
	case -ERANGE:
		return acis_tel_error(d, "pattern=mcast: fanout %u, expected "
				      "1 to %u (the other nodes)",
				      c->pat.fanout, t->nodes - 1);
	default:
		return acis_tel_error(d, "pattern=%s gives no node of this "
				      "%ux%ux%u %s a destination other than "
				      "itself",
				      acis_torus_pattern_name(c->pat.kind),
				      t->k[0], t->k[1], t->k[2],
				      t->mesh ? "mesh" : "torus");
	}
}

/* "KEY=VALUE,..." of a start into c; 1, or a refusal in d. */
static int
gen_parse(const struct acis_torus_sw *ts, char *args, struct gen_cfg *c,
	  struct rte_tel_data *d, uint32_t last_run)
{
	struct gen_ask a = {.ratio = 3.0, .duration_ms = 1000};
	char *save = NULL, *kv;
	uint64_t flits;
	unsigned int k;

	memset(c, 0, sizeof(*c));
	c->routing = -1;
	acis_torus_pattern_parse("uniform", &c->pat);
	c->size = 64;
	c->count = 1;
	for (kv = strtok_r(args, ",", &save); kv != NULL;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (v == NULL)
			return acis_tel_error(d, "'%.14s' has no '=': keys "
					      "%s", kv, gen_keys_list);
		*v++ = '\0';
		for (k = 0; k < K_N && strcmp(kv, gen_keys[k].key) != 0; k++)
			;
		if (k == K_N)
			return acis_tel_error(d, "unknown key '%.14s': %s", kv,
					      gen_keys_list);
		if (gen_param(k, v, c, &a) == 0)
			continue;
		if (k == K_SIZE)
			return acis_tel_error(d, "size=%.16s: expected "
					      "size=BYTES, %u (headers and the "
					      "generator's %u) to %u (the "
					      "switch's longest frame)",
					      v, GEN_SIZE_MIN, GEN_PAYLOAD,
					      gen_size_max());
		return acis_tel_error(d, "%s=%.16s: expected %s",
				      gen_keys[k].key, v, gen_keys[k].form);
	}
	if (a.fanout != 0) {
		if (c->pat.kind != ACIS_TORUS_PAT_MCAST)
			return acis_tel_error(d, "fanout=%" PRIu64 ": for "
					      "pattern=mcast only", a.fanout);
		c->pat.fanout = (uint16_t)a.fanout;
	}
	if (c->coll == GEN_UNICAST && gen_check_pattern(ts, c, d) != 1)
		return 0;
	if ((c->coll == GEN_CUBE_MC || c->coll == GEN_CUBE_RED) &&
	    c->radius == 0)
		c->radius = 1;
	if (c->coll != GEN_CUBE_MC && c->coll != GEN_CUBE_RED &&
	    c->radius != 0)
		return acis_tel_error(d, "radius=%u: for coll=cube-mc or "
				      "cube-red", c->radius);
	if ((c->coll == GEN_TABLE) != (c->word != 0))
		return acis_tel_error(d, "word= goes with coll=table, and "
				      "coll=table needs it");
	if (c->coll == GEN_CUBE_MC || c->coll == GEN_CUBE_RED) {
		unsigned int dm;

		if (c->coll == GEN_CUBE_RED && c->radius > ACIS_TORUS_RED_R_MAX)
			return acis_tel_error(d, "radius=%u: cube-red keeps "
					      "sums up to radius %u",
					      c->radius, ACIS_TORUS_RED_R_MAX);
		for (dm = 0; dm < ACIS_TORUS_DIMS; dm++)
			if (!ts->t.mesh && ts->t.k[dm] > 1 &&
			    ts->t.k[dm] < 2 * c->radius + 1)
				return acis_tel_error(d, "radius=%u: a ring of "
					"%u is shorter than the cube's %u",
					c->radius, ts->t.k[dm],
					2 * c->radius + 1);
		if (c->coll == GEN_CUBE_RED && c->size < GEN_SIZE_MIN + 8)
			return acis_tel_error(d, "coll=cube-red: size=%u, "
					      "expected %u or more (the words "
					      "summed)", c->size,
					      GEN_SIZE_MIN + 8);
	}
	flits = (c->size + GEN_FLIT - 1) / GEN_FLIT;
	if (c->mode == GEN_CONTINUOUS) {
		if ((a.rate > 0) == (a.load > 0))
			return acis_tel_error(d, "mode=continuous: give "
					      "rate=FRAMES_PER_S or "
					      "load=FLITS_PER_CYCLE (one of "
					      "them)");
		if (a.load > 0)
			a.rate = a.load * ts->clock_hz / (double)flits;
		if (a.rate > (double)ts->clock_hz * 65536.0 || a.rate < 1e-3)
			return acis_tel_error(d, "rate=%.6g frames a second: "
					      "expected 0.001 to 65536 a "
					      "router cycle", a.rate);
		if (a.warmup_ms >= a.duration_ms)
			return acis_tel_error(d, "warmup_ms=%" PRIu64 ": "
					      "expected below duration_ms=%"
					      PRIu64, a.warmup_ms,
					      a.duration_ms);
		c->gap_fp = (uint64_t)((double)ts->clock_hz * 65536.0 /
				       a.rate);
		c->duration = a.duration_ms * ts->clock_hz / 1000;
		c->warmup = a.warmup_ms * ts->clock_hz / 1000;
		if (c->load[0] == '\0')
			snprintf(c->load, sizeof(c->load), "%.6g",
				 a.rate * (double)flits / ts->clock_hz);
		if (c->rate[0] == '\0')
			snprintf(c->rate, sizeof(c->rate), "%.6g", a.rate);
	} else if (a.rate > 0 || a.load > 0) {
		return acis_tel_error(d, "mode=batch sends as fast as the "
				      "router takes: rate= and load= are for "
				      "mode=continuous");
	}
	if (!a.run)
		c->run = last_run + 1 != 0 ? last_run + 1 : 1;
	if (!a.seed)
		c->seed = c->run;
	if (!a.at)
		c->at = acis_torus_now(ts);
	c->ratio_milli = (uint32_t)(a.ratio * 1000 + 0.5);
	snprintf(c->ratio, sizeof(c->ratio), "%.6g", a.ratio);
	if (c->coll == GEN_CUBE_MC) {
		/* a copy from every other node of the cube (symmetric) */
		c->expected = (uint64_t)c->count *
			      (gen_cube(ts, c->radius, NULL) - 1);
	} else if (c->coll == GEN_CUBE_RED) {
		uint32_t m[ACIS_TORUS_RED_IDS];
		unsigned int i, n = gen_cube(ts, c->radius, m);

		c->red_members = n;
		for (i = 0; i < n; i++)
			c->red_ids += m[i];
		c->expected = c->count; /* one sum a round */
	} else if (c->coll == GEN_UNICAST && c->mode == GEN_BATCH &&
		   !acis_torus_pattern_random(&c->pat)) {
		c->expected = gen_expected(&ts->t, &c->pat, ts->node,
					   c->count);
	}
	return 1;
}

/* Hand cmd (and a start's c) to the worker. */
static void
gen_post(struct acis_torus_gen *g, uint8_t cmd, const struct gen_cfg *c)
{
	rte_spinlock_lock(&g->lock);
	__atomic_store_n(&g->seq, g->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	g->cmd = cmd;
	if (c != NULL) {
		g->next = *c;
		g->last_run = c->run;
	}
	__atomic_store_n(&g->seq, g->seq + 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&g->lock);
}

/* A sparse histogram as a dict: "key" (its lowest value) -> count. */
static void
tel_hist(struct rte_tel_data *d, const char *name, const uint64_t *h,
	 unsigned int n, int lat)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	unsigned int i;
	char key[24];

	if (c == NULL)
		return;
	rte_tel_data_start_dict(c);
	for (i = 0; i < n; i++)
		if (h[i] != 0) {
			snprintf(key, sizeof(key), "%" PRIu64,
				 lat ? lat_bucket_low(i) : (uint64_t)i);
			rte_tel_data_add_dict_u64(c, key, h[i]);
		}
	rte_tel_data_add_dict_container(d, name, c, 0);
}

static void
tel_report(struct rte_tel_data *d, const struct acis_torus_sw *ts,
	   const struct acis_torus_gen *g)
{
	const struct gen_cfg *c = &g->cfg;
	const struct gen_tx *tx = &g->tx;
	const struct gen_rx *rx = &g->rx;
	uint32_t seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
	uint8_t state = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE);
	char sbuf[32];

	rte_tel_data_add_dict_string(d, "state", seq != g->seen ? "pending" :
				     state_names[state]);
	rte_tel_data_add_dict_u64(d, "node", ts->node);
	rte_tel_data_add_dict_u64(d, "clock_hz", ts->clock_hz);
	rte_tel_data_add_dict_u64(d, "now", acis_torus_now(ts));
	if (state == GEN_IDLE)
		return;
	rte_tel_data_add_dict_u64(d, "run", c->run);
	if (c->pat.kind == ACIS_TORUS_PAT_MCAST)
		snprintf(sbuf, sizeof(sbuf), "mcast:%u", c->pat.fanout);
	else
		snprintf(sbuf, sizeof(sbuf), "%s",
			 acis_torus_pattern_name(c->pat.kind));
	rte_tel_data_add_dict_string(d, "pattern", sbuf);
	rte_tel_data_add_dict_string(d, "coll", coll_names[c->coll]);
	rte_tel_data_add_dict_string(d, "routing", acis_torus_algo_name(
		c->routing >= 0 ? (enum acis_torus_algo)c->routing :
		(enum acis_torus_algo)ts->algo));
	if (c->radius != 0)
		rte_tel_data_add_dict_u64(d, "radius", c->radius);
	if (c->coll == GEN_TABLE)
		rte_tel_data_add_dict_u64(d, "word", c->word);
	rte_tel_data_add_dict_string(d, "mode", c->mode == GEN_BATCH ?
				     "batch" : "continuous");
	rte_tel_data_add_dict_u64(d, "size", c->size);
	rte_tel_data_add_dict_u64(d, "flits", (c->size + GEN_FLIT - 1) /
				  GEN_FLIT);
	rte_tel_data_add_dict_u64(d, "destinations", g->ndest);
	if (c->mode == GEN_BATCH) {
		rte_tel_data_add_dict_u64(d, "count", c->count);
		if (c->coll == GEN_CUBE_MC || c->coll == GEN_CUBE_RED ||
		    (c->coll == GEN_UNICAST &&
		     !acis_torus_pattern_random(&c->pat)))
			rte_tel_data_add_dict_u64(d, "expected", c->expected);
	} else {
		rte_tel_data_add_dict_string(d, "rate", c->rate);
		rte_tel_data_add_dict_string(d, "load", c->load);
		rte_tel_data_add_dict_u64(d, "duration_cycles", c->duration);
		rte_tel_data_add_dict_u64(d, "warmup_cycles", c->warmup);
	}
	rte_tel_data_add_dict_u64(d, "seed", c->seed);
	rte_tel_data_add_dict_u64(d, "at", c->at);
	rte_tel_data_add_dict_u64(d, "ideal_base", c->ideal_base);
	rte_tel_data_add_dict_u64(d, "ideal_hop", c->ideal_hop);
	rte_tel_data_add_dict_string(d, "ratio", c->ratio);
#define X(f) rte_tel_data_add_dict_u64(d, #f, tx->f)
	X(planned); X(sent); X(sent_bytes); X(stalls); X(stall_cycles);
	X(inject_errors); X(no_mbuf); X(backlog); X(first_gen);
	X(last_inject);
#undef X
#define X(f) rte_tel_data_add_dict_u64(d, #f, rx->f)
	X(received); X(received_bytes); X(warmup_rx); X(window);
	X(window_hops); X(other_run); X(malformed); X(first_rx); X(last_rx);
	X(measured); X(lat_sum); X(lat_max); X(hops_sum); X(over);
	X(ratio_sum); X(ratio_max); X(red_results); X(red_bad);
#undef X
	rte_tel_data_add_dict_u64(d, "lat_min", rx->measured ? rx->lat_min :
				  0);
	rte_tel_data_add_dict_u64(d, "lat_min_ns", rx->measured ?
		acis_torus_cycles_to_ns(rx->lat_min, ts->clock_hz) : 0);
	rte_tel_data_add_dict_u64(d, "lat_max_ns",
		acis_torus_cycles_to_ns(rx->lat_max, ts->clock_hz));
	rte_tel_data_add_dict_u64(d, "lat_mean_ns", rx->measured ?
		acis_torus_cycles_to_ns(rx->lat_sum / rx->measured,
					ts->clock_hz) : 0);
	tel_hist(d, "lat_hist", rx->lat_hist, GEN_LAT_BUCKETS, 1);
	tel_hist(d, "hops_hist", rx->hops_hist, GEN_HOPS, 0);
	tel_hist(d, "lat_by_hops", rx->lat_by_hops, GEN_HOPS, 0);
}

/* /acis/torus/gen[,start,KEY=VALUE...|,stop] */
static int
tel_gen(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_gen *g;
	struct gen_cfg c;
	char buf[1024];

	RTE_SET_USED(cmd);
	if (ts == NULL || ts->gen == NULL)
		return acis_tel_error(d, "switch %s is no torus node (its "
				      "pipeline has no [torus])", g_sw.name);
	g = ts->gen;
	if (params != NULL && (strcmp(params, "start") == 0 ||
			       strncmp(params, "start,", 6) == 0)) {
		if (g_sw.n_workers != 1)
			return acis_tel_error(d, "the generator needs the "
					      "switch on one worker lcore; %s "
					      "has %u", g_sw.name,
					      g_sw.n_workers);
		if (strlen(params) >= sizeof(buf))
			return acis_tel_error(d, "parameters too long");
		snprintf(buf, sizeof(buf), "%s", params[5] ? params + 6 : "");
		if (gen_parse(ts, buf, &c, d, g->last_run) <= 0)
			return 0; /* the refusal is in d */
		gen_post(g, GEN_CMD_START, &c);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "state", "pending");
		rte_tel_data_add_dict_u64(d, "run", c.run);
		rte_tel_data_add_dict_u64(d, "at", c.at);
		rte_tel_data_add_dict_u64(d, "destinations",
					  gen_coll_count(ts, &c));
		if (c.mode == GEN_BATCH && c.coll != GEN_TABLE &&
		    (c.coll != GEN_UNICAST ||
		     !acis_torus_pattern_random(&c.pat)))
			rte_tel_data_add_dict_u64(d, "expected", c.expected);
		return 0;
	}
	if (params != NULL && strcmp(params, "stop") == 0) {
		gen_post(g, GEN_CMD_STOP, NULL);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "state", "pending");
		return 0;
	}
	if (params != NULL)
		return acis_tel_error(d, "'%.24s': expected no parameter, "
				      "stop or start,KEY=VALUE,...", params);
	rte_tel_data_start_dict(d);
	tel_report(d, ts, g);
	return 0;
}

int
acis_torus_gen_telemetry_register(void)
{
	/* DPDK refuses a help of 128 characters or more */
	return acis_tel_register("/acis/torus/gen", tel_gen,
		"The torus traffic generator: its run and results; "
		"start,KEY=VALUE,... a run; stop (doc/torus-traffic.md)");
}
