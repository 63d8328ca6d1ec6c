/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The torus stage (torus.h, doc/torus.md): host-to-host frames routed
 * hop by hop across a torus or mesh of switches with lib/torus.
 *
 * The header, after the frame's MAC addresses (12 bytes; the frame's
 * own EtherType follows it):
 *   0  EtherType 0x88B6
 *   2  version (high 4 bits) and type (low 4; 0 unicast)
 *   3  route: misc (bits 0-2: O1TURN's order, RLB's ways), dateline
 *      classes (bits 3-5)
 *   4  destination node (16 bits), 6 source node (16 bits)
 *   8  hops taken, 9 the algorithm chosen at injection
 *  10  injection time, router cycles (15 bits; oldest-first's stamp)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "switch.h"
#include "torus.h"
#include "tx.h"

/* A credit frame's bytes from its MACs on (credit_send); credits again
 * after CREDIT_REFRESH_MS if frames came since, and every hundred times
 * that on a link that carried some. */
#define CREDIT_LEN 28
#define CREDIT_REFRESH_MS 10

static int
host_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t vct_empty(struct acis_torus_vct *v,
			  struct acis_lcore_ctx *lc);

/* A partial's frames gone: its sum and what it kept. */
static void
acc_clear(struct acis_torus_acc *a)
{
	struct rte_mbuf *m = a->defer;

	while (m != NULL) {
		struct rte_mbuf *next = acis_meta(m)->hold_next;

		rte_pktmbuf_free(m);
		m = next;
	}
	rte_pktmbuf_free(a->m);
	memset(a, 0, sizeof(*a));
}

/* Partial reductions dropped (a new table, or the end). */
static void
coll_partials_free(struct acis_torus_coll *co)
{
	unsigned int i;

	for (i = 0; i < ACIS_TORUS_RED_IDS; i++)
		acc_clear(&co->cube[i]);
	for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++)
		acc_clear(&co->tacc[i]);
	memset(&co->rstate, 0, sizeof(co->rstate));
}

static void
coll_free(struct acis_torus_coll *co)
{
	if (co == NULL)
		return;
	coll_partials_free(co);
	rte_free(co->table);
	rte_free(co->pending);
	rte_free(co->spare);
	rte_free(co);
}

/* The worker takes a table management loaded: the old one becomes the
 * spare (management's to reuse), table reductions start over. */
static void
coll_take_table(struct acis_torus_coll *co)
{
	struct acis_torus_table *t =
		__atomic_exchange_n(&co->pending, NULL, __ATOMIC_ACQUIRE);
	struct acis_torus_table *old = co->table;
	unsigned int i;

	co->table = t;
	for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++)
		acc_clear(&co->tacc[i]);
	memset(&co->rstate, 0, sizeof(co->rstate));
	rte_free(__atomic_exchange_n(&co->spare, old, __ATOMIC_RELEASE));
	co->c.tables_loaded++;
}

/* The router's buffers, for a switch on one worker lcore (its queues and
 * credits are that lcore's alone). */
static int
vct_init(struct acis_torus_sw *ts, const struct acis_torus_cfg *tc,
	 char *err, size_t len)
{
	struct acis_torus_vct *v;
	uint64_t hz = rte_get_tsc_hz();
	unsigned int d;

	if (g_sw.n_workers != 1)
		return acis_errf(err, len, -EINVAL, "%s: [torus]: slots = %u "
				 "needs the switch on one worker lcore, found "
				 "%u (slots = 0 turns the router's buffers "
				 "off)", g_sw.pl->path, tc->slots,
				 g_sw.n_workers);
	v = rte_zmalloc("acis_torus_vct", sizeof(*v), RTE_CACHE_LINE_SIZE);
	if (v == NULL)
		return acis_errf(err, len, -ENOMEM, "out of memory for the "
				 "torus router's buffers");
	v->inject_slots = (uint8_t)(2 * tc->slots);
	for (d = 0; d <= ACIS_TORUS_PORTS; d++) {
		/* a link's own slots and arbitration (slots_pD,
		 * arbitration_pD), else the switch's */
		v->slots[d] = tc->link_slots[d] ? tc->link_slots[d] :
						  tc->slots;
		v->down_slots[d] = v->slots[d];
		v->arb[d].policy = tc->link_arbitration[d] ?
			(uint8_t)(tc->link_arbitration[d] - 1) :
			tc->arbitration;
		v->arb[d].threshold = tc->mix_age;
	}
	v->cbp_tsc = (uint64_t)((unsigned __int128)tc->credit_period * hz /
				tc->clock_hz);
	v->refresh_tsc = hz * CREDIT_REFRESH_MS / 1000;
	v->watchdog_tsc = hz * tc->watchdog_ms / 1000;
	ts->vct = v;
	return 0;
}

int
acis_torus_sw_init(char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	const struct acis_torus_cfg *tc = &pl->torus;
	struct acis_torus_sw *ts;
	unsigned int i, d, others = 0;
	int rc;

	g_sw.torus = NULL;
	if (!tc->on)
		return 0;
	ts = rte_zmalloc("acis_torus", sizeof(*ts), RTE_CACHE_LINE_SIZE);
	if (ts == NULL)
		return acis_errf(err, len, -ENOMEM, "out of memory for the "
				 "torus stage");
	rc = acis_torus_init(&ts->t, tc->k[0], tc->k[1], tc->k[2], tc->mesh);
	if (rc != 0) {
		rte_free(ts);
		return acis_errf(err, len, rc, "%s: [torus]: dims %ux%ux%u "
				 "refused", pl->path, tc->k[0], tc->k[1],
				 tc->k[2]);
	}
	memcpy(ts->self.c, tc->coord, 3);
	ts->node = (uint32_t)acis_torus_node(&ts->t, &ts->self);
	ts->algo = tc->routing;
	memcpy(ts->dir_port, tc->dir_port, sizeof(ts->dir_port));
	for (d = 1; d <= ACIS_TORUS_PORTS; d++)
		if (ts->dir_port[d] != UINT16_MAX)
			ts->port_dir[ts->dir_port[d]] = (uint8_t)d;
	ts->host_port = UINT16_MAX;
	for (i = 0; i < pl->n_ports; i++)
		if (ts->port_dir[i] == 0) {
			ts->host_port = (uint16_t)i;
			others++;
		}
	if (others != 1)
		ts->host_port = UINT16_MAX;
	for (i = 0; i < tc->n_hosts; i++) {
		struct acis_torus_coord c;

		memcpy(c.c, tc->hosts[i].coord, 3);
		ts->hosts[i].mac = acis_mac48(tc->hosts[i].mac);
		ts->hosts[i].node = (uint32_t)acis_torus_node(&ts->t, &c);
	}
	ts->n_hosts = tc->n_hosts;
	qsort(ts->hosts, ts->n_hosts, sizeof(ts->hosts[0]), host_cmp);
	for (i = 1; i < ts->n_hosts; i++)
		if (ts->hosts[i].mac == ts->hosts[i - 1].mac) {
			rte_free(ts);
			return acis_errf(err, len, -EINVAL, "%s: [torus]: a "
					 "host's MAC given twice", pl->path);
		}
	for (i = 0; i < ACIS_MAX_LCORES; i++)
		acis_torus_rng_seed(&ts->rng[i],
				    ((uint64_t)tc->seed << 32) ^
				    ((uint64_t)ts->node << 8) ^ i);
	ts->clock_hz = tc->clock_hz;
	ts->cycles_per_tick = (uint64_t)(((unsigned __int128)tc->clock_hz <<
					  32) / rte_get_tsc_hz());
	if (tc->slots != 0) {
		rc = vct_init(ts, tc, err, len);
		if (rc != 0) {
			rte_free(ts);
			return rc;
		}
	}
	ts->coll = rte_zmalloc("acis_torus_coll", sizeof(*ts->coll),
			       RTE_CACHE_LINE_SIZE);
	if (ts->coll == NULL) {
		rte_free(ts->vct);
		rte_free(ts);
		return acis_errf(err, len, -ENOMEM, "out of memory for the "
				 "torus stage's multicast and reduction");
	}
	g_sw.torus = ts;
	rc = acis_torus_gen_init(err, len);
	if (rc != 0)
		acis_torus_sw_fini();
	return rc;
}

void
acis_torus_sw_fini(void)
{
	struct acis_torus_sw *ts = g_sw.torus;

	if (ts == NULL)
		return;
	acis_torus_gen_fini();
	if (ts->vct != NULL) {
		vct_empty(ts->vct, NULL);
		rte_free(ts->vct);
	}
	coll_free(ts->coll);
	rte_free(ts);
	g_sw.torus = NULL;
}

/* The node host mac sits at, or -1. */
static inline int64_t
host_node(const struct acis_torus_sw *ts, uint64_t mac)
{
	unsigned int lo = 0, hi = ts->n_hosts;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ts->hosts[mid].mac == mac)
			return ts->hosts[mid].node;
		if (ts->hosts[mid].mac < mac)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Now on the router clock, 15 bits: TSC ticks times router cycles a
 * tick (2^32 fixed point, set at start-up), no division a frame. */
static inline uint16_t
router_stamp(const struct acis_torus_sw *ts)
{
	return (uint16_t)(((unsigned __int128)rte_rdtsc() *
			   ts->cycles_per_tick) >> 32) & ACIS_TORUS_STAMP_MASK;
}

/* Route a frame with its header at h one hop from this node: the
 * direction it leaves by, or ACIS_TORUS_DROP (its drop reason set).
 * arrived: the direction it came in by (0: from the host). credits: each
 * output's free slots for CCAR, NULL without buffers. */
static inline int
route(struct acis_torus_sw *ts, struct acis_torus_counters *c,
      struct acis_torus_rng *rng, struct rte_mbuf *m, uint8_t *h,
      unsigned int arrived, const uint32_t *credits)
{
	struct acis_torus_route r;
	struct acis_torus_coord dst;
	uint32_t dnode = rte_be_to_cpu_16(*(unaligned_uint16_t *)(h + 4));
	int dir;

	if (unlikely(h[9] >= ACIS_TORUS_ALGOS ||
		     acis_torus_coord(&ts->t, dnode, &dst) != 0)) {
		c->bad_header++;
		acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		return ACIS_TORUS_DROP;
	}
	r.misc = h[3] & 7;
	r.cls = (h[3] >> 3) & 7;
	r.prev = (uint8_t)(arrived ? acis_torus_dir_opposite(arrived) :
			   ACIS_TORUS_LOCAL);
	dir = acis_torus_route(&ts->t, &ts->self, &dst, &r,
			       (enum acis_torus_algo)h[9], credits, rng);
	if (unlikely(dir < 0)) {
		if (dir == -EPERM) {
			c->illegal_turns++;
			acis_set_drop(m, ACIS_DROP_TORUS_ILLEGAL_TURN);
		} else {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		}
		return ACIS_TORUS_DROP;
	}
	if (unlikely(dir == ACIS_TORUS_LOCAL || ts->dir_port[dir] == UINT16_MAX)) {
		/* at its node already (a header naming this node), or a
		 * mesh's edge: neither is a frame this node should route */
		c->bad_header++;
		acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		return ACIS_TORUS_DROP;
	}
	/* the wrap link between node k - 1 and node 0 of a ring */
	if (!ts->t.mesh) {
		unsigned int dim = acis_torus_dir_dim((unsigned int)dir);

		if (acis_torus_dir_neg((unsigned int)dir) ?
		    ts->self.c[dim] == 0 :
		    ts->self.c[dim] == ts->t.k[dim] - 1)
			c->dateline++;
	}
	h[3] = (uint8_t)((r.misc & 7) | ((r.cls & 7) << 3));
	h[8]++;
	return dir;
}

/* ---- the router's buffers ---- */

/* The class a frame whose header is h holds: the datelines it has
 * crossed (its input's class as it arrived, its output's once routed
 * for the hop). */
static inline unsigned int
frame_class(const uint8_t *h)
{
	return acis_torus_class_of((uint8_t)(h[3] >> 3));
}

/* Frames output d may still send of class cls: the slots the router
 * downstream said it has, less what is on the way to them. */
static inline uint32_t
avail(const struct acis_torus_vct *v, unsigned int d, unsigned int cls)
{
	uint32_t inflight = v->sent[d][cls] - v->down_freed[d][cls];

	return inflight >= v->down_slots[d] ? 0 : v->down_slots[d] - inflight;
}

/* CCAR's credits: each output's, for the class the frame would have
 * after the hop. */
static void
ccar_credits(const struct acis_torus_sw *ts, const uint8_t *h,
	     unsigned int arrived, uint32_t credits[ACIS_TORUS_PORTS])
{
	struct acis_torus_route r = {
		.misc = h[3] & 7, .cls = (h[3] >> 3) & 7,
		.prev = (uint8_t)(arrived ? acis_torus_dir_opposite(arrived) :
				  ACIS_TORUS_LOCAL),
	};
	unsigned int d;

	for (d = 1; d <= ACIS_TORUS_PORTS; d++) {
		uint8_t cls = acis_torus_class_after(&ts->t, &ts->self, &r, d);

		credits[d - 1] = ts->dir_port[d] == UINT16_MAX ? 0 :
			avail(ts->vct, d, acis_torus_class_of(cls));
	}
}

/* Whether input in has room for one more frame of class cls (the local
 * input: of either). */
static inline int
vct_room(const struct acis_torus_vct *v, unsigned int in, unsigned int cls)
{
	return in == 0 ? v->occ[0][0] < v->inject_slots :
			 v->occ[in][cls] < v->slots[in];
}

/* Queue a routed frame (header h, leaving by dir) in its input's queue
 * for dir and the class it will have there; room checked. */
static inline void
vct_queue(struct acis_torus_sw *ts, struct rte_mbuf *m, const uint8_t *h,
	  unsigned int in, unsigned int in_cls, unsigned int dir)
{
	struct acis_torus_vct *v = ts->vct;
	unsigned int ocls = frame_class(h);
	struct acis_torus_fifo *f = &v->fifo[in][dir][ocls];
	struct acis_torus_slot *sl =
		&f->s[(f->head + f->n) & (ACIS_TORUS_FIFO - 1)];
	struct acis_torus_route r = {.misc = h[3] & 7};
	struct acis_torus_coord dst = {{0, 0, 0}};

	acis_torus_coord(&ts->t,
			 rte_be_to_cpu_16(*(const unaligned_uint16_t *)(h + 4)),
			 &dst);
	sl->m = m;
	/* hops left from here: farthest first's measure (RLB's ways); a
	 * table frame's is its priority (Fig. 8.2(a), the word's low byte) */
	if ((h[2] & 0x0f) == ACIS_TORUS_T_TABLE)
		sl->distance = h[7];
	else
		sl->distance = (uint16_t)acis_torus_hops_left(&ts->t, &ts->self,
			&dst, &r, (enum acis_torus_algo)h[9]);
	sl->stamp = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(h + 10));
	sl->in_cls = (uint8_t)in_cls;
	f->n++;
	v->want[dir] |= 1u << (in * ACIS_TORUS_CLASSES + ocls);
	v->occ[in][in ? in_cls : 0]++;
	if (++v->queued > v->c.queued_max)
		v->c.queued_max = v->queued;
}

/* A frame of input in (class in_cls) leaves the router's queues: its
 * slot free, the credit owed upstream (a link input's). */
static inline void
slot_free(struct acis_torus_vct *v, unsigned int in, unsigned int in_cls)
{
	if (in == 0) {
		v->occ[0][0]--;
	} else {
		v->occ[in][in_cls]--;
		v->freed[in][in_cls]++;
		v->dirty |= (uint8_t)(1u << in);
	}
	v->queued--;
}

/* Take the head of queue (in, dir, cls): its slot freed, the credit owed
 * upstream. */
static inline struct rte_mbuf *
vct_pop(struct acis_torus_vct *v, unsigned int in, unsigned int dir,
	unsigned int cls)
{
	struct acis_torus_fifo *f = &v->fifo[in][dir][cls];
	struct acis_torus_slot *sl = &f->s[f->head];

	f->head = (uint8_t)((f->head + 1) & (ACIS_TORUS_FIFO - 1));
	if (--f->n == 0)
		v->want[dir] &= ~(1u << (in * ACIS_TORUS_CLASSES + cls));
	slot_free(v, in, sl->in_cls);
	return sl->m;
}

/* who[] of an arbitration: an input's multicast head, not a queue */
#define WHO_MC 0x80

/* The copy of a multicast frame at h leaving by direction d: its class
 * bits for the hop (cls, as acis_torus_class_after() gives them), a
 * hop more, a table frame's word for that child. */
static inline void
mc_header(uint8_t *h, uint8_t cls, uint32_t word)
{
	h[3] = (uint8_t)((h[3] & 7) | ((cls & 7) << 3));
	h[8]++;
	if ((h[2] & 0x0f) == ACIS_TORUS_T_TABLE)
		*(unaligned_uint32_t *)(h + 4) = rte_cpu_to_be_32(word);
}

/* Store a multicast frame once (header h, came in by input in, moving
 * prev) with the outputs it owes copies, mask, a table multicast's
 * words, and farthest first's measure; room checked. */
static void
mq_queue(struct acis_torus_sw *ts, struct rte_mbuf *m, const uint8_t *h,
	 unsigned int in, unsigned int in_cls, unsigned int prev,
	 uint8_t mask, const uint32_t *words, uint16_t distance)
{
	struct acis_torus_vct *v = ts->vct;
	struct acis_torus_mfifo *f = &v->mfifo[in];
	struct acis_torus_mslot *ms =
		&f->s[(f->head + f->n) & (ACIS_TORUS_MFIFO - 1)];
	struct acis_torus_route r = {.cls = (h[3] >> 3) & 7,
				     .prev = (uint8_t)prev};
	unsigned int d;

	ms->m = m;
	ms->mask = mask;
	ms->distance = distance;
	ms->stamp = rte_be_to_cpu_16(*(const unaligned_uint16_t *)(h + 10));
	ms->in_cls = (uint8_t)in_cls;
	for (d = 1; d <= ACIS_TORUS_PORTS; d++) {
		if (!(mask & ACIS_TORUS_DIR_BIT(d)))
			continue;
		ms->obits[d] = acis_torus_class_after(&ts->t, &ts->self, &r,
						      d);
		ms->word[d] = words != NULL ? words[d] : 0;
	}
	f->n++;
	v->mwant |= (uint8_t)(1u << in);
	v->occ[in][in ? in_cls : 0]++;
	if (++v->queued > v->c.queued_max)
		v->c.queued_max = v->queued;
}

/* Input in's stored multicast head leaves the queue: its slot free,
 * the credit owed upstream (the frame is the caller's). */
static void
mq_free_head(struct acis_torus_vct *v, unsigned int in)
{
	struct acis_torus_mfifo *f = &v->mfifo[in];
	const struct acis_torus_mslot *ms = &f->s[f->head];

	f->head = (uint8_t)((f->head + 1) & (ACIS_TORUS_MFIFO - 1));
	if (--f->n == 0)
		v->mwant &= (uint8_t)~(1u << in);
	slot_free(v, in, ms->in_cls);
}

/* A copy of input in's stored multicast head for output d; once every
 * output has had its copy the frame leaves the queue and its slot is
 * free. cls receives the class the copy holds downstream. NULL when no
 * mbuf is free (the grant waits). */
static struct rte_mbuf *
mq_copy(struct acis_torus_sw *ts, struct acis_torus_vct *v, unsigned int in,
	unsigned int d, unsigned int *cls)
{
	struct acis_torus_mfifo *f = &v->mfifo[in];
	struct acis_torus_mslot *ms = &f->s[f->head];
	struct rte_mbuf *copy;
	uint8_t *h;

	*cls = acis_torus_class_of(ms->obits[d]);
	ms->mask &= (uint8_t)~ACIS_TORUS_DIR_BIT(d);
	if (ms->mask == 0) {
		copy = ms->m; /* the last: the frame itself */
	} else {
		copy = rte_pktmbuf_copy(ms->m, g_sw.pool, 0, UINT32_MAX);
		if (unlikely(copy == NULL)) {
			ms->mask |= (uint8_t)ACIS_TORUS_DIR_BIT(d);
			ts->coll->c.nombuf++;
			return NULL;
		}
	}
	h = rte_pktmbuf_mtod(copy, uint8_t *) + 12;
	mc_header(h, ms->obits[d], ms->word[d]);
	ts->coll->c.mc_copies++;
	if (ms->mask == 0)
		mq_free_head(v, in);
	return copy;
}

/* A queued frame the router lets go: dropped and counted by lc (the
 * watchdog), or freed (lc NULL: the end). */
static inline void
vct_gone(struct acis_lcore_ctx *lc, struct rte_mbuf *m)
{
	if (lc != NULL)
		acis_drop_frames(lc, &m, 1, ACIS_DROP_TORUS_DEADLOCK);
	else
		rte_pktmbuf_free(m);
}

/* Every queued frame out of the router: dropped and counted by lc
 * (the watchdog), or freed (lc NULL: the end). How many. */
static uint64_t
vct_empty(struct acis_torus_vct *v, struct acis_lcore_ctx *lc)
{
	unsigned int in, d, cl;
	uint64_t n = 0;

	for (in = 0; in < ACIS_TORUS_INPUTS; in++) {
		for (d = 1; d <= ACIS_TORUS_PORTS; d++)
			for (cl = 0; cl < ACIS_TORUS_CLASSES; cl++)
				while (v->fifo[in][d][cl].n != 0) {
					vct_gone(lc, vct_pop(v, in, d, cl));
					n++;
				}
		while (v->mfifo[in].n != 0) {
			struct rte_mbuf *m =
				v->mfifo[in].s[v->mfifo[in].head].m;

			mq_free_head(v, in);
			vct_gone(lc, m);
			n++;
		}
	}
	return n;
}

/* Send a frame the router has done with on port. */
static inline void
send_one(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf *m)
{
	acis_tx_port(lc, port, &m, 1);
}

/* Rounds of arbitration a poll may run: each moves at most a frame per
 * output and grants each input at most one output (its one read port). */
#define VCT_ROUNDS 32

/* The outputs in the order a round arbitrates them (seed 000 §5.5). */
static const uint8_t vct_order[ACIS_TORUS_PORTS] = {
	ACIS_TORUS_XP, ACIS_TORUS_YP, ACIS_TORUS_ZP,
	ACIS_TORUS_XM, ACIS_TORUS_YM, ACIS_TORUS_ZM,
};

/*
 * Arbitration: round after round, each output with frames waiting, a
 * free link and credit for their class serves one, chosen by the
 * switch's policy among the heads of the inputs not yet served this
 * round; frames passing through win over the host's injection (seed 000
 * §5.3.5: injection takes a link bypass traffic leaves free). Frames for
 * plain links go out in a burst a link at the end; for a shaped link at
 * once, so the next grant sees the link busy.
 */
static void
vct_arbitrate(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	      uint64_t now)
{
	struct acis_torus_vct *v = ts->vct;
	struct acis_torus_counters *c = &ts->c[lc->index];
	struct rte_mbuf *out[ACIS_TORUS_PORTS + 1][VCT_ROUNDS];
	uint16_t n_out[ACIS_TORUS_PORTS + 1] = {0};
	uint16_t stamp = router_stamp(ts);
	unsigned int round, k;

	for (round = 0; round < VCT_ROUNDS && v->queued != 0; round++) {
		uint32_t served = 0;
		int moved = 0;

		for (k = 0; k < ACIS_TORUS_PORTS; k++) {
			struct acis_torus_contender ct[ACIS_TORUS_INPUTS *
						       (ACIS_TORUS_CLASSES + 1)];
			uint8_t who[RTE_DIM(ct)];
			unsigned int d = vct_order[k], n = 0, nt = 0, i;
			uint16_t port = ts->dir_port[d];
			uint32_t w = v->want[d], starved = 0;
			int win;

			if (w == 0 && (v->mwant & ~served) == 0)
				continue;
			if (!acis_fault_link_ready(lc, port, now)) {
				v->c.link_waits += round == 0;
				continue;
			}
			while (w != 0) {
				unsigned int b = (unsigned int)__builtin_ctz(w);
				unsigned int in = b / ACIS_TORUS_CLASSES;
				unsigned int cls = b % ACIS_TORUS_CLASSES;
				const struct acis_torus_fifo *f =
					&v->fifo[in][d][cls];
				const struct acis_torus_slot *sl =
					&f->s[f->head];

				w &= w - 1;
				if ((served >> in) & 1)
					continue;
				if (avail(v, d, cls) == 0) {
					starved = 1;
					continue;
				}
				ct[n].distance = sl->distance;
				ct[n].stamp = sl->stamp;
				ct[n].input = (uint8_t)in;
				who[n++] = (uint8_t)b;
				nt += in != 0;
			}
			/* multicast copies: an input's stored head, while it
			 * still owes this output one */
			for (w = v->mwant & ~served; w != 0; w &= w - 1) {
				unsigned int in = (unsigned int)__builtin_ctz(w);
				const struct acis_torus_mslot *ms =
					&v->mfifo[in].s[v->mfifo[in].head];

				if (!(ms->mask & ACIS_TORUS_DIR_BIT(d)))
					continue;
				if (avail(v, d, acis_torus_class_of(ms->obits[d])) ==
				    0) {
					starved = 1;
					continue;
				}
				ct[n].distance = ms->distance;
				ct[n].stamp = ms->stamp;
				ct[n].input = (uint8_t)in;
				who[n++] = (uint8_t)(WHO_MC | in);
				nt += in != 0;
			}
			if (n == 0) {
				v->c.credit_waits += starved && round == 0;
				continue;
			}
			if (nt != 0 && nt != n) {
				/* bypass first: the local input waits */
				unsigned int j = 0;

				for (i = 0; i < n; i++)
					if (ct[i].input != 0) {
						ct[j] = ct[i];
						who[j++] = who[i];
					}
				n = j;
			}
			win = acis_torus_arbitrate(&v->arb[d], ct, n, stamp);
			if (unlikely(win < 0))
				continue;
			{
				unsigned int in = who[win] / ACIS_TORUS_CLASSES;
				unsigned int cls = who[win] % ACIS_TORUS_CLASSES;
				struct rte_mbuf *m;

				if (who[win] & WHO_MC) {
					in = who[win] & ~WHO_MC;
					m = mq_copy(ts, v, in, d, &cls);
					if (m == NULL)
						continue; /* no mbuf: later */
				} else {
					m = vct_pop(v, in, d, cls);
				}
				served |= 1u << in;
				v->sent[d][cls]++;
				v->out_grants[d]++;
				v->c.grants++;
				v->c.grants_local += in == 0;
				c->out[d - 1]++;
				if (g_fault[port].on && g_fault[port].rate_kbps)
					send_one(lc, port, m);
				else
					out[d][n_out[d]++] = m;
			}
			moved = 1;
		}
		if (!moved)
			break;
		v->progress_tsc = now;
	}
	for (k = 1; k <= ACIS_TORUS_PORTS; k++)
		if (n_out[k] != 0)
			acis_tx_port(lc, ts->dir_port[k], out[k], n_out[k]);
}
/*
 * Credit frames: each link input's freed slots a class, cumulative, back
 * to the router upstream, at most once a credit period a link; again
 * after CREDIT_REFRESH_MS if frames came since (a credit a full link
 * refused), and every 100 x CREDIT_REFRESH_MS on a link that ever
 * carried any.
 * Cumulative counts make a lost or repeated credit frame harmless.
 *
 * After the MACs: EtherType 0x88B6, version and type (1), a byte 0, the
 * sender's slots a class (16 bits), its node (16 bits), then the freed
 * counts of classes 0 to 3 (32 bits each); all big-endian.
 */

static void
credit_send(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	    unsigned int in, uint64_t now)
{
	struct acis_torus_vct *v = ts->vct;
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_sw.pool);
	uint8_t *e;
	unsigned int cl;

	if (unlikely(m == NULL)) {
		v->c.credits_lost++;
		return;
	}
	e = (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN -
					  RTE_ETHER_CRC_LEN);
	if (unlikely(e == NULL)) {
		rte_pktmbuf_free(m);
		v->c.credits_lost++;
		return;
	}
	memset(e, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memset(e, 0xff, 6);
	memcpy(e + 6, g_sw.pl->mac, 6);
	e[12] = ACIS_TORUS_ETHERTYPE >> 8;
	e[13] = ACIS_TORUS_ETHERTYPE & 0xff;
	e[14] = (uint8_t)(ACIS_TORUS_VERSION << 4 | ACIS_TORUS_T_CREDIT);
	*(unaligned_uint16_t *)(e + 16) = rte_cpu_to_be_16(v->slots[in]);
	*(unaligned_uint16_t *)(e + 18) = rte_cpu_to_be_16((uint16_t)ts->node);
	for (cl = 0; cl < ACIS_TORUS_CLASSES; cl++) {
		*(unaligned_uint32_t *)(e + 20 + 4 * cl) =
			rte_cpu_to_be_32(v->freed[in][cl]);
		v->told[in][cl] = v->freed[in][cl];
	}
	v->told_tsc[in] = now;
	v->rx_since[in] = 0;
	v->dirty &= (uint8_t)~(1u << in);
	v->c.credits_tx++;
	v->c.credits_tx_bytes += m->pkt_len;
	send_one(lc, ts->dir_port[in], m);
}

static void
credits_due(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts, uint64_t now)
{
	struct acis_torus_vct *v = ts->vct;
	unsigned int in;

	for (in = 1; in <= ACIS_TORUS_PORTS; in++) {
		uint64_t since = now - v->told_tsc[in];

		if (ts->dir_port[in] == UINT16_MAX || since < v->cbp_tsc)
			continue;
		if (((v->dirty >> in) & 1) ||
		    (v->rx_since[in] != 0 && since >= v->refresh_tsc) ||
		    (v->told_tsc[in] != 0 && since >= 100 * v->refresh_tsc))
			credit_send(lc, ts, in, now);
	}
}

/* A credit frame from the router behind direction d. */
static void
credit_take(struct acis_torus_sw *ts, const uint8_t *e, unsigned int d)
{
	struct acis_torus_vct *v = ts->vct;
	unsigned int cl;

	for (cl = 0; cl < ACIS_TORUS_CLASSES; cl++) {
		uint32_t f = rte_be_to_cpu_32(
			*(const unaligned_uint32_t *)(e + 20 + 4 * cl));

		/* newer than what we know (a late or repeated one is not) */
		if ((int32_t)(f - v->down_freed[d][cl]) > 0)
			v->down_freed[d][cl] = f;
	}
	v->down_slots[d] = (uint8_t)RTE_MIN(
		rte_be_to_cpu_16(*(const unaligned_uint16_t *)(e + 16)),
		ACIS_TORUS_SLOTS_MAX);
	v->c.credits_rx++;
}

/*
 * The watchdog: frames queued and none moved for watchdog_ms. A network
 * without a cycle of waits never gets here (the dateline classes and the
 * forbidden turns see to it, and a slow link moves a frame in far less),
 * so this is a deadlock, or a neighbour that stopped returning credits
 * (frames lost on a link that went down): said on the console, counted,
 * the queued frames dropped and the credits owed forgotten, so the
 * network runs again rather than hang.
 */
static void
watchdog(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts, uint64_t now)
{
	static const char *const dn[] = {"local", "X+", "X-", "Y+", "Y-",
					 "Z+", "Z-"};
	struct acis_torus_vct *v = ts->vct;
	char what[256];
	size_t w = 0;
	unsigned int d, cl;

	if (v->queued == 0 || v->watchdog_tsc == 0) {
		v->progress_tsc = now;
		return;
	}
	if (now - v->progress_tsc < v->watchdog_tsc)
		return;
	for (d = 1; d <= ACIS_TORUS_PORTS && w < sizeof(what) - 64; d++)
		if (v->want[d] != 0)
			w += (size_t)snprintf(what + w, sizeof(what) - w,
					      " %s (credits %u/%u/%u/%u)",
					      dn[d], avail(v, d, 0),
					      avail(v, d, 1), avail(v, d, 2),
					      avail(v, d, 3));
	printf("acis-switch: %s: torus node %u,%u,%u: no frame moved for %u "
	       "ms with %u queued, waiting for%s: deadlock; dropping them\n",
	       g_sw.name, ts->self.c[0], ts->self.c[1], ts->self.c[2],
	       g_sw.pl->torus.watchdog_ms, v->queued, what);
	fflush(stdout);
	v->c.deadlocks++;
	/* what it waited for is forgotten: each output's credits full
	 * again (a neighbour still full counts the excess as overruns) */
	for (d = 1; d <= ACIS_TORUS_PORTS; d++)
		for (cl = 0; cl < ACIS_TORUS_CLASSES; cl++)
			v->sent[d][cl] = v->down_freed[d][cl];
	v->c.deadlock_drops += vct_empty(v, lc);
	v->progress_tsc = now;
}

void
acis_torus_poll(struct acis_lcore_ctx *lc)
{
	struct acis_torus_sw *ts = g_sw.torus;
	uint64_t now;

	if (unlikely(__atomic_load_n(&ts->coll->pending, __ATOMIC_RELAXED) !=
		     NULL))
		coll_take_table(ts->coll);
	if (ts->gen != NULL)
		acis_torus_gen_poll(lc);
	if (ts->vct == NULL)
		return;
	now = rte_rdtsc();
	if (ts->vct->queued != 0)
		vct_arbitrate(lc, ts, now);
	credits_due(lc, ts, now);
	watchdog(lc, ts, now);
}

int
acis_torus_holding(void)
{
	const struct acis_torus_sw *ts = g_sw.torus;

	return ts != NULL && ts->vct != NULL && ts->vct->queued != 0;
}

uint64_t
acis_torus_now(const struct acis_torus_sw *ts)
{
	return (uint64_t)(((unsigned __int128)rte_rdtsc() *
			   ts->cycles_per_tick) >> 32);
}

/* A frame at its node: the host's, header off, to the host port; the
 * generator's to the generator. */
static int
eject(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
      struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *eth)
{
	uint8_t *h = eth + 12;

	c->ejected++;
	c->hops += h[8];
	if (h[8] > c->hops_max)
		c->hops_max = h[8];
	if ((h[2] & 0x0f) == ACIS_TORUS_T_GEN) {
		if (ts->gen == NULL) {
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
			c->bad_header++;
			return ACIS_TORUS_DROP;
		}
		acis_torus_gen_receive(lc, m, h);
		return ACIS_TORUS_TAKEN;
	}
	memmove(eth + ACIS_TORUS_SHIM_LEN, eth, 12);
	rte_pktmbuf_adj(m, ACIS_TORUS_SHIM_LEN);
	if (ts->host_port != UINT16_MAX)
		return ts->host_port;
	return ACIS_TORUS_NOT_MINE;
}

/* A frame routed out of this node by dir, having come in by direction
 * arrived (0: injected here) with class in_cls: queued in the router's
 * buffers, or with none, its port now. */
static inline int
onward(struct acis_torus_sw *ts, struct acis_torus_counters *c,
       struct rte_mbuf *m, const uint8_t *h, unsigned int arrived,
       unsigned int in_cls, int dir)
{
	if (dir < 0)
		return dir;
	if (ts->vct == NULL) {
		c->out[dir - 1]++;
		return ts->dir_port[dir];
	}
	vct_queue(ts, m, h, arrived, in_cls, (unsigned int)dir);
	return ACIS_TORUS_TAKEN;
}

/* Write the header for a frame from this node to node dn at eth (the
 * MACs already moved before it) and route it: a direction or a drop. */
static inline int
inject(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
       struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *eth,
       uint32_t dn, const struct acis_torus_route *r, unsigned int type,
       unsigned int algo)
{
	uint32_t credits[ACIS_TORUS_PORTS];
	uint8_t *h = eth + 12;

	h[0] = ACIS_TORUS_ETHERTYPE >> 8;
	h[1] = ACIS_TORUS_ETHERTYPE & 0xff;
	h[2] = (uint8_t)(ACIS_TORUS_VERSION << 4 | type);
	h[3] = (uint8_t)(r->misc & 7);
	*(unaligned_uint16_t *)(h + 4) = rte_cpu_to_be_16((uint16_t)dn);
	*(unaligned_uint16_t *)(h + 6) = rte_cpu_to_be_16((uint16_t)ts->node);
	h[8] = 0;
	h[9] = (uint8_t)algo;
	*(unaligned_uint16_t *)(h + 10) = rte_cpu_to_be_16(router_stamp(ts));
	c->injected++;
	if (ts->vct != NULL && algo == ACIS_TORUS_CCAR) {
		ccar_credits(ts, h, 0, credits);
		return route(ts, c, &ts->rng[lc->index], m, h, 0, credits);
	}
	return route(ts, c, &ts->rng[lc->index], m, h, 0, NULL);
}


/* ---- in-network multicast and reduction: cube (seed 000 ch. 6) and
 * tables (ch. 8) ---- */

#define OWN_BIT 0x40 /* a reduction partial's bit for this node's own */

/* A multicast copy, a reduction's result or a table frame delivered
 * here: to the traffic generator, which made every such frame. */
static int
coll_eject(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	   struct acis_torus_counters *c, struct rte_mbuf *m)
{
	uint8_t *h = rte_pktmbuf_mtod(m, uint8_t *) + 12;

	c->ejected++;
	c->hops += h[8];
	if (h[8] > c->hops_max)
		c->hops_max = h[8];
	if (ts->gen == NULL) {
		ts->coll->c.errors++;
		acis_drop_frames(lc, &m, 1, ACIS_DROP_TORUS_BAD_HEADER);
		return ACIS_TORUS_TAKEN;
	}
	acis_torus_gen_receive(lc, m, h);
	return ACIS_TORUS_TAKEN;
}

/* A frame dropped by the collective paths: counted, freed. */
static int
coll_drop(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	  struct rte_mbuf *m, enum acis_drop_reason why)
{
	ts->coll->c.errors += why == ACIS_DROP_TORUS_BAD_HEADER;
	acis_drop_frames(lc, &m, 1, why);
	return ACIS_TORUS_TAKEN;
}

/* A link input's slot, given back at once: the frame did not stay in
 * the input's buffer (ejected, or taken by the reduction unit). */
static inline void
slot_back(struct acis_torus_vct *v, unsigned int arrived, unsigned int cls)
{
	if (v == NULL || arrived == 0)
		return;
	v->freed[arrived][cls]++;
	v->dirty |= (uint8_t)(1u << arrived);
}

/* Fan a multicast frame (header h, from input in, moving prev) out: a
 * copy delivered here if eject, one to each output of mask (a table
 * frame's words by direction). With buffers the frame is stored once
 * and each output copies it when it wins; without, copied out now. */
static int
coll_fanout(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	    struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	    unsigned int in, unsigned int in_cls, unsigned int prev, int eject,
	    uint8_t mask, const uint32_t *words, uint16_t distance)
{
	struct acis_torus_vct *v = ts->vct;
	struct acis_torus_coll *co = ts->coll;
	unsigned int d;

	co->c.mc_in++;
	if (eject) {
		struct rte_mbuf *e = mask == 0 ? m :
			rte_pktmbuf_copy(m, g_sw.pool, 0, UINT32_MAX);

		co->c.mc_ejected++;
		if (e == NULL)
			co->c.nombuf++;
		else
			coll_eject(lc, ts, c, e);
	}
	if (mask == 0) {
		if (!eject)
			rte_pktmbuf_free(m);
		slot_back(v, in, in_cls);
		return ACIS_TORUS_TAKEN;
	}
	if (v != NULL) {
		mq_queue(ts, m, h, in, in_cls, prev, mask, words, distance);
		return ACIS_TORUS_TAKEN;
	}
	for (d = 1; d <= ACIS_TORUS_PORTS; d++) {
		struct acis_torus_route r = {.cls = (h[3] >> 3) & 7,
					     .prev = (uint8_t)prev};
		struct rte_mbuf *o;

		if (!(mask & ACIS_TORUS_DIR_BIT(d)))
			continue;
		mask &= (uint8_t)~ACIS_TORUS_DIR_BIT(d);
		o = mask == 0 ? m :
			rte_pktmbuf_copy(m, g_sw.pool, 0, UINT32_MAX);
		if (o == NULL) {
			co->c.nombuf++;
			continue;
		}
		mc_header(rte_pktmbuf_mtod(o, uint8_t *) + 12,
			  acis_torus_class_after(&ts->t, &ts->self, &r, d),
			  words != NULL ? words[d] : 0);
		co->c.mc_copies++;
		c->out[d - 1]++;
		send_one(lc, ts->dir_port[d], o);
	}
	return ACIS_TORUS_TAKEN;
}

/* A frame (header h) sent on by direction d as if injected here: the
 * reduction unit's combined frames (store and forward, seed 000 §6.4)
 * and table unicasts. in and prev: the input it waits in (0: the local
 * one, past the host's room) and the way it moved. */
static int
coll_onward(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	    struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	    unsigned int d, unsigned int in, unsigned int in_cls,
	    unsigned int prev)
{
	struct acis_torus_vct *v = ts->vct;
	struct acis_torus_route r = {.cls = (h[3] >> 3) & 7,
				     .prev = (uint8_t)prev};
	uint8_t cls = acis_torus_class_after(&ts->t, &ts->self, &r, d);

	if (ts->dir_port[d] == UINT16_MAX)
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_BAD_HEADER);
	h[3] = (uint8_t)((h[3] & 7) | ((cls & 7) << 3));
	h[8]++;
	if (v == NULL) {
		c->out[d - 1]++;
		send_one(lc, ts->dir_port[d], m);
		return ACIS_TORUS_TAKEN;
	}
	if (v->fifo[in][d][frame_class(h)].n >= ACIS_TORUS_FIFO)
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_INJECT_FULL);
	vct_queue(ts, m, h, in, in_cls, d);
	return ACIS_TORUS_TAKEN;
}


/* Fold reduction frame m (arrival bit; fold_ok) into partial a: the
 * first kept, the others' words summed into it and freed. */
static void
fold(struct acis_torus_acc *a, struct rte_mbuf *m, uint8_t bit)
{
	const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *) + 12;
	uint32_t i;

	if (a->m == NULL) {
		a->m = m;
		a->hops = h[8];
	} else {
		uint8_t *acc = rte_pktmbuf_mtod(a->m, uint8_t *);
		const uint8_t *add = rte_pktmbuf_mtod(m, const uint8_t *);

		for (i = 12 + ACIS_TORUS_SHIM_LEN + ACIS_TORUS_SUM_OFF;
		     i + 4 <= rte_pktmbuf_data_len(m); i += 4)
			*(unaligned_uint32_t *)(acc + i) = rte_cpu_to_be_32(
				rte_be_to_cpu_32(*(unaligned_uint32_t *)(acc + i)) +
				rte_be_to_cpu_32(
					*(const unaligned_uint32_t *)(add + i)));
		a->hops = RTE_MAX(a->hops, h[8]);
		rte_pktmbuf_free(m);
	}
	a->got |= bit;
}

/* Reduction frames a partial keeps for its next rounds, at most. */
#define DEFER_MAX 1024

/*
 * Add reduction frame m, arrived by the port of bit, to partial a: folded
 * in; or, its port having given to this round already (the next round's,
 * come early: the unit is store and forward), kept in order for the
 * next. A table entry (tb) counts the arrival first. 0; or the negative
 * errno of the refusal (one segment, the partial's length, the entry's
 * count), m still the caller's.
 */
static int
red_add(struct acis_torus_coll *co, const struct acis_torus_table *tb,
	unsigned int index, struct acis_torus_acc *a, struct rte_mbuf *m,
	uint8_t bit)
{
	int rc;

	if (m->nb_segs != 1 || (a->m != NULL && rte_pktmbuf_data_len(m) !=
				rte_pktmbuf_data_len(a->m)))
		return -EINVAL;
	if ((a->got & bit) || a->done) {
		if (a->n_defer >= DEFER_MAX)
			return -ENOBUFS;
		acis_meta(m)->hold_rank = bit;
		acis_meta(m)->hold_next = NULL;
		if (a->defer_tail != NULL)
			acis_meta(a->defer_tail)->hold_next = m;
		else
			a->defer = m;
		a->defer_tail = m;
		a->n_defer++;
		co->c.deferred++;
		return 0;
	}
	if (tb != NULL) {
		rc = acis_torus_reduce_arrive(&co->rstate, tb, index,
					      bit == OWN_BIT ? ACIS_TORUS_LOCAL :
					      (unsigned int)__builtin_ctz(bit) +
					      1);
		if (rc < 0)
			return rc;
		a->done = rc == 1;
	}
	fold(a, m, bit);
	return 0;
}

/* A partial started over: the frames kept for it added again, in their
 * order (those of a port that gave already kept again). */
static void
red_replay(struct acis_lcore_ctx *lc, struct acis_torus_coll *co,
	   const struct acis_torus_table *tb, unsigned int index,
	   struct acis_torus_acc *a)
{
	struct rte_mbuf *m = a->defer;

	a->defer = a->defer_tail = NULL;
	a->n_defer = 0;
	while (m != NULL) {
		struct rte_mbuf *next = acis_meta(m)->hold_next;

		co->c.deferred--;
		if (red_add(co, tb, index, a, m,
			    (uint8_t)acis_meta(m)->hold_rank) < 0) {
			co->c.errors++;
			acis_drop_frames(lc, &m, 1, ACIS_DROP_TORUS_BAD_HEADER);
		}
		m = next;
	}
}

/* A partial complete: its frame, the most hops of its arrivals, the
 * partial empty again. */
static struct rte_mbuf *
fold_take(struct acis_torus_acc *a, uint8_t **h)
{
	struct rte_mbuf *m = a->m;

	*h = rte_pktmbuf_mtod(m, uint8_t *) + 12;
	(*h)[8] = a->hops;
	a->m = NULL;
	a->got = 0;
	a->done = 0;
	return m;
}

/* A cube multicast (type 3) at this node. */
static int
cube_mc(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	unsigned int arrived, unsigned int in_cls)
{
	unsigned int prev = arrived ? acis_torus_dir_opposite(arrived) :
				      ACIS_TORUS_LOCAL;
	unsigned int r = h[3] & 7;
	struct acis_torus_coord src;
	uint8_t mask = 0;
	int rc;

	if (acis_torus_coord(&ts->t, rte_be_to_cpu_16(
			*(unaligned_uint16_t *)(h + 6)), &src) != 0 ||
	    (rc = acis_torus_cube_multicast(&ts->t, &src, &ts->self, prev, r,
					    &mask)) < 0) {
		slot_back(ts->vct, arrived, in_cls);
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_BAD_HEADER);
	}
	return coll_fanout(lc, ts, c, m, h, arrived, in_cls, prev, rc, mask,
			   NULL, (uint16_t)(3 * r));
}

/* A cube reduction (type 4) at this node: folded into the partial of
 * its destination; once every input the tree sends through here and
 * this node's own have come, the sum goes on toward the destination. */
static int
cube_red(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	 struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	 unsigned int arrived, unsigned int in_cls)
{
	struct acis_torus_coll *co = ts->coll;
	unsigned int r = h[3] & 7;
	struct acis_torus_coord dst;
	struct acis_torus_acc *a;
	uint8_t wait = 0, bit;
	int id, out;

	slot_back(ts->vct, arrived, in_cls); /* store and forward */
	co->c.red_in++;
	if (r < 1 || r > ACIS_TORUS_RED_R_MAX ||
	    acis_torus_coord(&ts->t, rte_be_to_cpu_16(
			*(unaligned_uint16_t *)(h + 4)), &dst) != 0 ||
	    (id = acis_torus_cube_dst_id(&ts->t, &ts->self, &dst, r)) < 0 ||
	    (out = acis_torus_cube_reduce(&ts->t, &ts->self, &dst, r,
					  &wait)) < 0 ||
	    (arrived != 0 && !(wait & ACIS_TORUS_DIR_BIT(arrived))))
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_BAD_HEADER);
	a = &co->cube[id];
	bit = arrived ? (uint8_t)ACIS_TORUS_DIR_BIT(arrived) : OWN_BIT;
	if (red_add(co, NULL, 0, a, m, bit) < 0)
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_BAD_HEADER);
	/* complete: the sum on (or here); the next round's, kept, added */
	while (a->m != NULL && a->got == (uint8_t)(wait | OWN_BIT)) {
		m = fold_take(a, &h);
		co->c.red_done++;
		if (out == ACIS_TORUS_LOCAL) {
			co->c.red_ejected++;
			coll_eject(lc, ts, c, m);
		} else {
			coll_onward(lc, ts, c, m, h, (unsigned int)out, 0, 0,
				    ACIS_TORUS_LOCAL);
		}
		red_replay(lc, co, NULL, 0, a);
	}
	return ACIS_TORUS_TAKEN;
}

/* A table-routed frame (type 5) at this node: its word looked up in the
 * node's tables (acis_torus_table_route), the index rewritten for the
 * next node. */
static int
table_in(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	 struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	 unsigned int arrived, unsigned int in_cls)
{
	struct acis_torus_coll *co = ts->coll;
	const struct acis_torus_table *tb = co->table;
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN];
	unsigned int prev = arrived ? acis_torus_dir_opposite(arrived) :
				      ACIS_TORUS_LOCAL;
	uint32_t words[ACIS_TORUS_PORTS + 1] = {0};
	uint8_t mask = 0;
	int n, i, eject = 0;

	co->c.table_in++;
	acis_torus_thdr_decode(rte_be_to_cpu_32(*(unaligned_uint32_t *)(h + 4)),
			       &in);
	if (tb == NULL) {
		co->c.table_miss++;
		slot_back(ts->vct, arrived, in_cls);
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_NO_ENTRY);
	}
	if (in.type == ACIS_TORUS_PKT_REDUCE) {
		struct acis_torus_acc *a;
		uint8_t bit;
		int rc;

		slot_back(ts->vct, arrived, in_cls);
		co->c.red_in++;
		if (in.next >= ACIS_TORUS_TABLE_SIZE) {
			co->c.table_miss++;
			return coll_drop(lc, ts, m, ACIS_DROP_TORUS_NO_ENTRY);
		}
		a = &co->tacc[in.next];
		bit = arrived ? (uint8_t)ACIS_TORUS_DIR_BIT(arrived) : OWN_BIT;
		rc = red_add(co, tb, in.next, a, m, bit);
		if (rc < 0) {
			co->c.table_miss += rc == -ENOENT;
			return coll_drop(lc, ts, m, rc == -ENOENT ?
					 ACIS_DROP_TORUS_NO_ENTRY :
					 ACIS_DROP_TORUS_BAD_HEADER);
		}
		while (a->done) {
			n = acis_torus_table_route(tb, &in, out);
			m = fold_take(a, &h);
			acis_torus_reduce_reset(&co->rstate, in.next);
			co->c.red_done++;
			if (n < 1) {
				coll_drop(lc, ts, m, ACIS_DROP_TORUS_NO_ENTRY);
			} else {
				*(unaligned_uint32_t *)(h + 4) = rte_cpu_to_be_32(
					acis_torus_thdr_encode(&out[0]));
				if (out[0].port == ACIS_TORUS_LOCAL) {
					co->c.red_ejected++;
					coll_eject(lc, ts, c, m);
				} else {
					coll_onward(lc, ts, c, m, h, out[0].port,
						    0, 0, ACIS_TORUS_LOCAL);
				}
			}
			red_replay(lc, co, tb, in.next, a);
		}
		return ACIS_TORUS_TAKEN;
	}
	n = acis_torus_table_route(tb, &in, out);
	if (n < 1) {
		co->c.table_miss++;
		slot_back(ts->vct, arrived, in_cls);
		return coll_drop(lc, ts, m, ACIS_DROP_TORUS_NO_ENTRY);
	}
	for (i = 0; i < n; i++) {
		if (out[i].port == ACIS_TORUS_LOCAL) {
			eject = 1;
			continue;
		}
		mask |= (uint8_t)ACIS_TORUS_DIR_BIT(out[i].port);
		words[out[i].port] = acis_torus_thdr_encode(&out[i]);
	}
	if (in.type == ACIS_TORUS_PKT_UNICAST && !eject) {
		/* one way on: the input's queue for it, as any unicast */
		*(unaligned_uint32_t *)(h + 4) =
			rte_cpu_to_be_32(words[out[0].port]);
		return coll_onward(lc, ts, c, m, h, out[0].port, arrived,
				   in_cls, prev);
	}
	if (in.type == ACIS_TORUS_PKT_UNICAST) {
		slot_back(ts->vct, arrived, in_cls);
		return coll_eject(lc, ts, c, m);
	}
	return coll_fanout(lc, ts, c, m, h, arrived, in_cls, prev, eject, mask,
			   words, in.prio);
}

/* A collective frame (types 3 to 5) that came in by direction arrived
 * (0: injected here) with class in_cls. */
static int
coll_in(struct acis_lcore_ctx *lc, struct acis_torus_sw *ts,
	struct acis_torus_counters *c, struct rte_mbuf *m, uint8_t *h,
	unsigned int arrived, unsigned int in_cls)
{
	switch (h[2] & 0x0f) {
	case ACIS_TORUS_T_CUBE_MC:
		return cube_mc(lc, ts, c, m, h, arrived, in_cls);
	case ACIS_TORUS_T_CUBE_RED:
		return cube_red(lc, ts, c, m, h, arrived, in_cls);
	default:
		return table_in(lc, ts, c, m, h, arrived, in_cls);
	}
}

int
acis_torus_sw_inject_coll(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
			  enum acis_torus_type type, uint32_t arg,
			  unsigned int r)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters *c = &ts->c[lc->index];
	struct acis_torus_coord dst;
	uint8_t *eth, *h;

	if ((type != ACIS_TORUS_T_CUBE_MC && type != ACIS_TORUS_T_CUBE_RED &&
	     type != ACIS_TORUS_T_TABLE) ||
	    (type != ACIS_TORUS_T_TABLE && (r < 1 || r > 7)) ||
	    (type == ACIS_TORUS_T_CUBE_RED &&
	     (r > ACIS_TORUS_RED_R_MAX ||
	      acis_torus_coord(&ts->t, arg, &dst) != 0)) ||
	    rte_pktmbuf_headroom(m) < ACIS_TORUS_SHIM_LEN ||
	    rte_pktmbuf_data_len(m) < 12 || m->nb_segs != 1)
		return -EINVAL;
	if (ts->vct != NULL && !vct_room(ts->vct, 0, 0))
		return -ENOBUFS;
	eth = (uint8_t *)rte_pktmbuf_prepend(m, ACIS_TORUS_SHIM_LEN);
	if (unlikely(eth == NULL))
		return -EINVAL;
	memmove(eth, eth + ACIS_TORUS_SHIM_LEN, 12);
	h = eth + 12;
	h[0] = ACIS_TORUS_ETHERTYPE >> 8;
	h[1] = ACIS_TORUS_ETHERTYPE & 0xff;
	h[2] = (uint8_t)(ACIS_TORUS_VERSION << 4 | type);
	h[3] = (uint8_t)(type == ACIS_TORUS_T_TABLE ? 0 : r);
	if (type == ACIS_TORUS_T_TABLE)
		*(unaligned_uint32_t *)(h + 4) = rte_cpu_to_be_32(arg);
	else
		*(unaligned_uint16_t *)(h + 4) = rte_cpu_to_be_16(
			(uint16_t)(type == ACIS_TORUS_T_CUBE_RED ? arg :
				   ts->node));
	if (type != ACIS_TORUS_T_TABLE)
		*(unaligned_uint16_t *)(h + 6) =
			rte_cpu_to_be_16((uint16_t)ts->node);
	h[8] = 0;
	h[9] = ACIS_TORUS_DOR;
	*(unaligned_uint16_t *)(h + 10) = rte_cpu_to_be_16(router_stamp(ts));
	c->injected++;
	coll_in(lc, ts, c, m, h, 0, 0);
	return 0;
}

int
acis_torus_sw_inject(struct acis_lcore_ctx *lc, struct rte_mbuf *m,
		     uint32_t dnode, enum acis_torus_type type, int algo)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters *c = &ts->c[lc->index];
	struct acis_torus_route r;
	struct acis_torus_coord dst;
	uint8_t *eth;
	int dir;

	if (algo < 0)
		algo = ts->algo;
	if (dnode == ts->node || acis_torus_coord(&ts->t, dnode, &dst) != 0 ||
	    algo >= ACIS_TORUS_ALGOS ||
	    rte_pktmbuf_headroom(m) < ACIS_TORUS_SHIM_LEN ||
	    rte_pktmbuf_data_len(m) < 12)
		return -EINVAL;
	if (ts->vct != NULL && !vct_room(ts->vct, 0, 0))
		return -ENOBUFS;
	if (acis_torus_inject(&ts->t, &ts->self, &dst,
			      (enum acis_torus_algo)algo,
			      &ts->rng[lc->index], &r) != 0)
		return -EINVAL;
	eth = (uint8_t *)rte_pktmbuf_prepend(m, ACIS_TORUS_SHIM_LEN);
	if (unlikely(eth == NULL))
		return -EINVAL;
	memmove(eth, eth + ACIS_TORUS_SHIM_LEN, 12);
	dir = onward(ts, c, m, eth + 12, 0, 0,
		     inject(lc, ts, c, m, eth, dnode, &r, type,
			    (unsigned int)algo));
	if (dir == ACIS_TORUS_DROP)
		acis_drop_frames(lc, &m, 1, (enum acis_drop_reason)
				 acis_meta(m)->drop_reason);
	else if (dir >= 0)
		send_one(lc, (uint16_t)dir, m);
	return 0;
}

int
acis_torus_forward(struct acis_lcore_ctx *lc, struct rte_mbuf *m, uint16_t in)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters *c = &ts->c[lc->index];
	struct acis_torus_vct *v = ts->vct;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned int arrived = ts->port_dir[in];
	uint32_t credits[ACIS_TORUS_PORTS];
	uint8_t *h;

	if (rte_pktmbuf_data_len(m) >= 14 + ACIS_TORUS_SHIM_LEN &&
	    eth[12] == (ACIS_TORUS_ETHERTYPE >> 8) &&
	    eth[13] == (ACIS_TORUS_ETHERTYPE & 0xff)) {
		unsigned int type, in_cls;

		h = eth + 12;
		type = h[2] & 0x0f;
		if (unlikely((h[2] >> 4) != ACIS_TORUS_VERSION ||
			     arrived == 0 || type > ACIS_TORUS_T_MAX)) {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
			return ACIS_TORUS_DROP;
		}
		if (type == ACIS_TORUS_T_CREDIT) {
			if (unlikely(v == NULL ||
				     rte_pktmbuf_data_len(m) < CREDIT_LEN)) {
				c->bad_header++;
				acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
				return ACIS_TORUS_DROP;
			}
			credit_take(ts, eth, arrived);
			acis_frame_free(m);
			return ACIS_TORUS_TAKEN;
		}
		in_cls = frame_class(h);
		if (type >= ACIS_TORUS_T_CUBE_MC) {
			if (v != NULL) {
				v->rx_since[arrived]++;
				if (unlikely(!vct_room(v, arrived, in_cls))) {
					v->c.overruns++;
					acis_set_drop(m, ACIS_DROP_TORUS_OVERRUN);
					return ACIS_TORUS_DROP;
				}
			}
			c->transit++;
			return coll_in(lc, ts, c, m, h, arrived, in_cls);
		}
		if (rte_be_to_cpu_16(*(unaligned_uint16_t *)(h + 4)) ==
		    ts->node) {
			/* ejected at once: the slot the sender counted on is
			 * free again */
			if (v != NULL) {
				v->rx_since[arrived]++;
				v->freed[arrived][in_cls]++;
				v->dirty |= (uint8_t)(1u << arrived);
			}
			return eject(lc, ts, c, m, eth);
		}
		c->transit++;
		if (v != NULL) {
			v->rx_since[arrived]++;
			if (unlikely(!vct_room(v, arrived, in_cls))) {
				v->c.overruns++;
				acis_set_drop(m, ACIS_DROP_TORUS_OVERRUN);
				return ACIS_TORUS_DROP;
			}
			if (h[9] == ACIS_TORUS_CCAR) {
				ccar_credits(ts, h, arrived, credits);
				return onward(ts, c, m, h, arrived, in_cls,
					      route(ts, c, &ts->rng[lc->index],
						    m, h, arrived, credits));
			}
		}
		return onward(ts, c, m, h, arrived, in_cls,
			      route(ts, c, &ts->rng[lc->index], m, h, arrived,
				    NULL));
	}
	/* a host's unicast frame to a host of another node */
	if (arrived != 0 || (eth[0] & 1) || rte_pktmbuf_data_len(m) < 14) {
		return ACIS_TORUS_NOT_MINE;
	} else {
		int64_t dn = host_node(ts, acis_mac48(eth));
		struct acis_torus_route r;
		struct acis_torus_coord dst;

		if (dn < 0 || (uint32_t)dn == ts->node)
			return ACIS_TORUS_NOT_MINE;
		if (unlikely(!RTE_MBUF_DIRECT(m) ||
			     rte_mbuf_refcnt_read(m) != 1 ||
			     rte_pktmbuf_headroom(m) < ACIS_TORUS_SHIM_LEN)) {
			c->no_room++;
			acis_set_drop(m, ACIS_DROP_TORUS_NO_ROOM);
			return ACIS_TORUS_DROP;
		}
		if (v != NULL && !vct_room(v, 0, 0)) {
			v->c.inject_full++;
			acis_set_drop(m, ACIS_DROP_TORUS_INJECT_FULL);
			return ACIS_TORUS_DROP;
		}
		acis_torus_coord(&ts->t, (uint32_t)dn, &dst);
		if (acis_torus_inject(&ts->t, &ts->self, &dst,
				      (enum acis_torus_algo)ts->algo,
				      &ts->rng[lc->index], &r) != 0) {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
			return ACIS_TORUS_DROP;
		}
		eth = (uint8_t *)rte_pktmbuf_prepend(m, ACIS_TORUS_SHIM_LEN);
		if (unlikely(eth == NULL)) {
			c->no_room++;
			acis_set_drop(m, ACIS_DROP_TORUS_NO_ROOM);
			return ACIS_TORUS_DROP;
		}
		memmove(eth, eth + ACIS_TORUS_SHIM_LEN, 12);
		return onward(ts, c, m, eth + 12, 0, 0,
			      inject(lc, ts, c, m, eth, (uint32_t)dn, &r,
				     ACIS_TORUS_T_UNICAST, ts->algo));
	}
}

/* The router's buffers in /acis/torus: settings, occupancy, credits,
 * arbitration and the watchdog. */
static void
tel_vct(struct rte_tel_data *d, const struct acis_torus_sw *ts)
{
	static const char *const dn[] = {"local", "xp", "xm", "yp", "ym",
					 "zp", "zm"};
	const struct acis_torus_vct *v = ts->vct;
	const struct acis_torus_cfg *tc = &g_sw.pl->torus;
	struct rte_tel_data *cr = rte_tel_data_alloc();
	struct rte_tel_data *oc = rte_tel_data_alloc();
	struct rte_tel_data *ls = rte_tel_data_alloc();
	struct rte_tel_data *la = rte_tel_data_alloc();
	unsigned int i, cl, held;
	char key[16];

	rte_tel_data_add_dict_u64(d, "slots", tc->slots);
	rte_tel_data_add_dict_u64(d, "inject_slots", v->inject_slots);
	rte_tel_data_add_dict_string(d, "arbitration",
				     acis_torus_policy_name(tc->arbitration));
	rte_tel_data_add_dict_u64(d, "mix_age", tc->mix_age);
	rte_tel_data_add_dict_u64(d, "credit_period", tc->credit_period);
	rte_tel_data_add_dict_u64(d, "watchdog_ms", tc->watchdog_ms);
	rte_tel_data_add_dict_u64(d, "queued", v->queued);
#define X(f) rte_tel_data_add_dict_u64(d, #f, v->c.f)
	X(queued_max); X(grants); X(grants_local); X(credit_waits);
	X(link_waits); X(credits_tx); X(credits_tx_bytes); X(credits_rx);
	X(credits_lost); X(inject_full); X(overruns); X(deadlocks);
	X(deadlock_drops);
#undef X
	if (cr == NULL || oc == NULL || ls == NULL || la == NULL) {
		rte_tel_data_free(cr);
		rte_tel_data_free(oc);
		rte_tel_data_free(ls);
		rte_tel_data_free(la);
		return;
	}
	/* each output's credits a class; each input's frames held; each
	 * link's slots (its input's) and arbitration (its output's) */
	rte_tel_data_start_dict(cr);
	rte_tel_data_start_dict(oc);
	rte_tel_data_start_dict(ls);
	rte_tel_data_start_dict(la);
	for (i = 0; i <= ACIS_TORUS_PORTS; i++) {
		if (i != 0 && ts->dir_port[i] != UINT16_MAX) {
			for (cl = 0; cl < ACIS_TORUS_CLASSES; cl++) {
				snprintf(key, sizeof(key), "%s_c%u", dn[i], cl);
				rte_tel_data_add_dict_u64(cr, key,
							  avail(v, i, cl));
			}
			rte_tel_data_add_dict_u64(ls, dn[i], v->slots[i]);
			rte_tel_data_add_dict_string(la, dn[i],
				acis_torus_policy_name(v->arb[i].policy));
		}
		if (i == 0 || ts->dir_port[i] != UINT16_MAX) {
			for (cl = 0, held = 0; cl < ACIS_TORUS_CLASSES; cl++)
				held += v->occ[i][cl];
			rte_tel_data_add_dict_u64(oc, dn[i], held);
		}
	}
	rte_tel_data_add_dict_container(d, "credits", cr, 0);
	rte_tel_data_add_dict_container(d, "held", oc, 0);
	rte_tel_data_add_dict_container(d, "link_slots", ls, 0);
	rte_tel_data_add_dict_container(d, "link_arbitration", la, 0);
}

/* /acis/torus: the node, its algorithm and every counter, summed over
 * the lcores */
static int
tel_torus(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters s;
	static const char *const dirs[] = {"out_xp", "out_xm", "out_yp",
					   "out_ym", "out_zp", "out_zm"};
	unsigned int i, k;
	char place[32];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	if (ts == NULL) {
		rte_tel_data_add_dict_string(d, "torus", "off");
		return 0;
	}
	memset(&s, 0, sizeof(s));
	for (i = 0; i < ACIS_MAX_LCORES; i++) {
		const struct acis_torus_counters *c = &ts->c[i];

		s.injected += c->injected;
		s.transit += c->transit;
		s.ejected += c->ejected;
		s.hops += c->hops;
		s.hops_max = RTE_MAX(s.hops_max, c->hops_max);
		s.illegal_turns += c->illegal_turns;
		s.bad_header += c->bad_header;
		s.no_room += c->no_room;
		s.dateline += c->dateline;
		for (k = 0; k < ACIS_TORUS_PORTS; k++)
			s.out[k] += c->out[k];
	}
	snprintf(place, sizeof(place), "%u,%u,%u", ts->self.c[0],
		 ts->self.c[1], ts->self.c[2]);
	rte_tel_data_add_dict_string(d, "coord", place);
	snprintf(place, sizeof(place), "%ux%ux%u %s", ts->t.k[0], ts->t.k[1],
		 ts->t.k[2], ts->t.mesh ? "mesh" : "torus");
	rte_tel_data_add_dict_string(d, "dims", place);
	rte_tel_data_add_dict_u64(d, "node", ts->node);
	rte_tel_data_add_dict_string(d, "routing",
				     acis_torus_algo_name(ts->algo));
	rte_tel_data_add_dict_u64(d, "hosts", ts->n_hosts);
#define X(f) rte_tel_data_add_dict_u64(d, #f, s.f)
	X(injected); X(transit); X(ejected); X(hops); X(hops_max);
	X(illegal_turns); X(bad_header); X(no_room); X(dateline);
#undef X
	for (k = 0; k < ACIS_TORUS_PORTS; k++)
		rte_tel_data_add_dict_u64(d, dirs[k], s.out[k]);
	rte_tel_data_add_dict_u64(d, "clock_hz", ts->clock_hz);
#define X(f) rte_tel_data_add_dict_u64(d, #f, ts->coll->c.f)
	X(mc_in); X(mc_copies); X(mc_ejected); X(red_in); X(red_done);
	X(red_ejected); X(deferred); X(table_in); X(table_miss); X(errors);
	X(nombuf);
	X(tables_loaded);
#undef X
	rte_tel_data_add_dict_string(d, "table", ts->coll->table != NULL ?
				     "loaded" : "none");
	if (ts->vct != NULL)
		tel_vct(d, ts);
	else
		rte_tel_data_add_dict_u64(d, "slots", 0);
	return 0;
}

/* Entries set in a node's tables, of each kind. */
static void
table_count(const struct acis_torus_table *t, unsigned int n[3])
{
	unsigned int i;

	n[0] = n[1] = n[2] = 0;
	for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++) {
		n[0] += t->uni[i].valid != 0;
		n[1] += t->mc[i].n != 0;
		n[2] += t->red[i].expect != 0;
	}
}

/* /acis/torus/table[,load,PATH | ,clear]: the node's routing tables
 * (doc/torus-tables.md), loaded from a file at runtime or cleared; the
 * worker takes the new tables between two walks. */
static int
tel_table(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_coll *co;
	struct acis_torus_table *t;
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	unsigned int n[3];
	int rc;

	RTE_SET_USED(cmd);
	if (ts == NULL)
		return acis_tel_error(d, "not a torus node (no [torus] in "
				      "its pipeline)");
	co = ts->coll;
	if (params == NULL) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "table", co->table != NULL ?
					     "loaded" : "none");
		if (co->table != NULL) {
			table_count(co->table, n);
			rte_tel_data_add_dict_u64(d, "unicast", n[0]);
			rte_tel_data_add_dict_u64(d, "multicast", n[1]);
			rte_tel_data_add_dict_u64(d, "reduce", n[2]);
		}
		rte_tel_data_add_dict_u64(d, "loads", co->c.tables_loaded);
		return 0;
	}
	if (strcmp(params, "clear") != 0 && strncmp(params, "load,", 5) != 0)
		return acis_tel_error(d, "expected load,PATH or clear");
	if (__atomic_load_n(&co->pending, __ATOMIC_ACQUIRE) != NULL)
		return acis_tel_error(d, "the last tables are not taken yet "
				      "(is the switch running?); try again");
	t = __atomic_exchange_n(&co->spare, NULL, __ATOMIC_ACQUIRE);
	if (t == NULL)
		t = rte_malloc("acis_torus_table", sizeof(*t), 0);
	if (t == NULL)
		return acis_tel_error(d, "out of memory for a table");
	if (params[0] == 'c') {
		acis_torus_table_clear(t);
	} else {
		rc = acis_torus_table_load(&ts->t, params + 5, ts->node, t,
					   err);
		if (rc != 0) {
			rte_free(__atomic_exchange_n(&co->spare, t,
						     __ATOMIC_RELEASE));
			return acis_tel_error(d, "%.400s", rc == -EINVAL ? err :
					      strerror(-rc));
		}
	}
	table_count(t, n);
	__atomic_store_n(&co->pending, t, __ATOMIC_RELEASE);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "table", params[0] == 'c' ?
				     "cleared" : params + 5);
	rte_tel_data_add_dict_u64(d, "node", ts->node);
	rte_tel_data_add_dict_u64(d, "unicast", n[0]);
	rte_tel_data_add_dict_u64(d, "multicast", n[1]);
	rte_tel_data_add_dict_u64(d, "reduce", n[2]);
	return 0;
}

int
acis_torus_telemetry_register(void)
{
	return acis_tel_register("/acis/torus", tel_torus,
		"The torus stage: node, routing, frames routed, hops, "
		"illegal turns; the router's buffers, credits, watchdog") |
	       acis_tel_register("/acis/torus/table", tel_table,
		"A torus node's routing tables: none (status), load,PATH, "
		"or clear") |
	       acis_torus_gen_telemetry_register();
}
