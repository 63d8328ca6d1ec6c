/* SPDX-License-Identifier: BSD-3-Clause */
/* Torus geometry, the five routing algorithms with their dateline classes
 * and forbidden turns, output arbitration and the router clock. */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <strings.h>

#include "acis_torus.h"

/* O1TURN's orders, as dimensions (enum acis_torus_order). */
static const uint8_t order_dims[ACIS_TORUS_ORDERS][ACIS_TORUS_DIMS] = {
	{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0},
};

static const char *const algo_names[ACIS_TORUS_ALGOS] = {
	"dor", "o1turn", "rmr", "rlb", "ccar",
};

static const char *const policy_names[ACIS_TORUS_POLICIES] = {
	"ff",
	"of",
	"mix",
};

int
acis_torus_init(struct acis_torus *t, unsigned int kx, unsigned int ky,
		unsigned int kz, int mesh)
{
	const unsigned int k[ACIS_TORUS_DIMS] = {kx, ky, kz};
	unsigned int dim, ndims = 0;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
		if (k[dim] < 1 || k[dim] > ACIS_TORUS_MAX_K)
			return -EINVAL;
		ndims += k[dim] > 1;
	}
	if (ndims == 0)
		return -EINVAL;
	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
		t->k[dim] = (uint8_t)k[dim];
	t->mesh = mesh != 0;
	t->ndims = (uint8_t)ndims;
	t->nodes = kx * ky * kz;
	return 0;
}

int
acis_torus_node(const struct acis_torus *t, const struct acis_torus_coord *c)
{
	if (!acis_torus_coord_valid(t, c))
		return -EINVAL;
	return c->c[0] + t->k[0] * (c->c[1] + t->k[1] * c->c[2]);
}

int
acis_torus_coord(const struct acis_torus *t, uint32_t node,
		 struct acis_torus_coord *c)
{
	if (node >= t->nodes)
		return -EINVAL;
	c->c[0] = (uint8_t)(node % t->k[0]);
	c->c[1] = (uint8_t)(node / t->k[0] % t->k[1]);
	c->c[2] = (uint8_t)(node / t->k[0] / t->k[1]);
	return 0;
}

int
acis_torus_step(const struct acis_torus *t, struct acis_torus_coord *c,
		unsigned int d)
{
	unsigned int dim, k, x;

	if (d < ACIS_TORUS_XP || d > ACIS_TORUS_ZM)
		return -ENETUNREACH;
	dim = acis_torus_dir_dim(d);
	k = t->k[dim];
	x = c->c[dim];
	if (k == 1 || x >= k)
		return -ENETUNREACH;
	if (acis_torus_dir_neg(d)) {
		if (x == 0 && t->mesh)
			return -ENETUNREACH;
		x = x == 0 ? k - 1 : x - 1;
	} else {
		if (x == k - 1 && t->mesh)
			return -ENETUNREACH;
		x = x == k - 1 ? 0 : x + 1;
	}
	c->c[dim] = (uint8_t)x;
	return 0;
}

/* Hops from a to b along dimension dim the shorter way, *neg set when
 * that is the negative way. Half way round a ring goes + (doc/torus.md). */
static unsigned int
ring_short(const struct acis_torus *t, unsigned int dim, unsigned int a,
	   unsigned int b, unsigned int *neg)
{
	unsigned int k = t->k[dim], fwd, back;

	if (t->mesh) {
		*neg = b < a;
		return b < a ? a - b : b - a;
	}
	fwd = (b + k - a) % k;
	back = (k - fwd) % k;
	*neg = fwd > back;
	return *neg ? back : fwd;
}

/* Hops from a to b along a ring going one given way. */
static unsigned int
ring_way(unsigned int k, unsigned int a, unsigned int b, unsigned int neg)
{
	return neg ? (a + k - b) % k : (b + k - a) % k;
}

unsigned int
acis_torus_distance(const struct acis_torus *t,
		    const struct acis_torus_coord *a,
		    const struct acis_torus_coord *b)
{
	unsigned int dim, neg, sum = 0;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
		sum += ring_short(t, dim, a->c[dim], b->c[dim], &neg);
	return sum;
}

int
acis_torus_turn_legal(unsigned int a, unsigned int b)
{
	if (a > ACIS_TORUS_ZM || b > ACIS_TORUS_ZM)
		return 0;
	if (a == ACIS_TORUS_LOCAL || b == ACIS_TORUS_LOCAL)
		return 1;
	if (b == acis_torus_dir_opposite(a))
		return 0;
	/* Y- to X, Z- to X or Y: Z- is the last way a packet goes */
	return !(acis_torus_dir_neg(a) &&
		 acis_torus_dir_dim(b) < acis_torus_dir_dim(a));
}

/* Whether leaving by d leaves the rest of the route possible, left
 * holding a bit for each dimension still to travel: after Y- no turn to
 * X is allowed, after Z- none to X or Y, so those wait for them. */
static int
leaves_way_on(unsigned int d, unsigned int left)
{
	if (d == ACIS_TORUS_YM)
		return !(left & 1u);
	if (d == ACIS_TORUS_ZM)
		return !(left & 3u);
	return 1;
}

uint8_t
acis_torus_class_after(const struct acis_torus *t,
		       const struct acis_torus_coord *cur,
		       const struct acis_torus_route *r, unsigned int d)
{
	unsigned int dim = acis_torus_dir_dim(d), neg = acis_torus_dir_neg(d);

	/* the dateline: the wrap link between node k - 1 and node 0; once
	 * crossed, the dimension's bit stays set */
	if (!t->mesh && cur->c[dim] == (neg ? 0 : (unsigned int)t->k[dim] - 1))
		return (uint8_t)(r->cls | 1u << dim);
	return r->cls;
}

/* The way each dimension still to travel goes (0 where done): the
 * shorter way, or RLB's drawn way in a torus. Returns the dimensions
 * left as bits. */
static unsigned int
wanted(const struct acis_torus *t, const struct acis_torus_coord *cur,
       const struct acis_torus_coord *dst, const struct acis_torus_route *r,
       enum acis_torus_algo algo, unsigned int want[ACIS_TORUS_DIMS])
{
	unsigned int dim, neg, left = 0;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
		want[dim] = 0;
		if (cur->c[dim] == dst->c[dim])
			continue;
		if (algo == ACIS_TORUS_RLB && !t->mesh)
			neg = (r->misc >> dim) & 1u;
		else
			ring_short(t, dim, cur->c[dim], dst->c[dim], &neg);
		want[dim] = acis_torus_dir_make(dim, neg);
		left |= 1u << dim;
	}
	return left;
}

static int
args_valid(const struct acis_torus *t, const struct acis_torus_coord *a,
	   const struct acis_torus_coord *b, enum acis_torus_algo algo)
{
	return acis_torus_coord_valid(t, a) && acis_torus_coord_valid(t, b) &&
	       (unsigned int)algo < ACIS_TORUS_ALGOS;
}

int
acis_torus_inject(const struct acis_torus *t,
		  const struct acis_torus_coord *src,
		  const struct acis_torus_coord *dst, enum acis_torus_algo algo,
		  struct acis_torus_rng *rng, struct acis_torus_route *r)
{
	unsigned int want[ACIS_TORUS_DIMS], legal[ACIS_TORUS_ORDERS];
	unsigned int dim, o, i, n = 0, neg, p;

	if (!args_valid(t, src, dst, algo))
		return -EINVAL;
	if ((algo == ACIS_TORUS_O1TURN || algo == ACIS_TORUS_RLB) &&
	    rng == NULL)
		return -EINVAL;
	r->misc = 0;
	r->cls = 0;
	r->prev = ACIS_TORUS_LOCAL;
	if (algo == ACIS_TORUS_O1TURN) {
		/* the orders whose turns are all legal for this packet's
		 * ways; XYZ always is */
		wanted(t, src, dst, r, algo, want);
		for (o = 0; o < ACIS_TORUS_ORDERS; o++) {
			unsigned int prev = ACIS_TORUS_LOCAL, ok = 1;

			for (i = 0; i < ACIS_TORUS_DIMS; i++) {
				unsigned int d = want[order_dims[o][i]];

				if (d == 0)
					continue;
				ok &= acis_torus_turn_legal(prev, d);
				prev = d;
			}
			if (ok)
				legal[n++] = o;
		}
		r->misc = (uint8_t)legal[acis_torus_rng_below(rng, n)];
	} else if (algo == ACIS_TORUS_RLB && !t->mesh) {
		/* the long way with probability P/N: P of the N draws */
		for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
			p = ring_short(t, dim, src->c[dim], dst->c[dim], &neg);
			if (p == 0)
				continue;
			if (acis_torus_rng_below(rng, t->k[dim]) < p)
				neg = !neg;
			r->misc |= (uint8_t)(neg << dim);
		}
	}
	return 0;
}

int
acis_torus_route(const struct acis_torus *t, const struct acis_torus_coord *cur,
		 const struct acis_torus_coord *dst, struct acis_torus_route *r,
		 enum acis_torus_algo algo, const uint32_t *credits,
		 struct acis_torus_rng *rng)
{
	unsigned int want[ACIS_TORUS_DIMS], cand[ACIS_TORUS_DIMS];
	unsigned int dim, i, left, n = 0, d = 0;

	if (!args_valid(t, cur, dst, algo) || r->prev > ACIS_TORUS_ZM)
		return -EINVAL;
	if ((algo == ACIS_TORUS_O1TURN && r->misc >= ACIS_TORUS_ORDERS) ||
	    (algo == ACIS_TORUS_RMR && rng == NULL))
		return -EINVAL;
	left = wanted(t, cur, dst, r, algo, want);
	if (left == 0)
		return ACIS_TORUS_LOCAL;

	switch (algo) {
	case ACIS_TORUS_DOR:
	case ACIS_TORUS_RLB:
		for (dim = 0; d == 0; dim++)
			d = want[dim];
		break;
	case ACIS_TORUS_O1TURN:
		for (i = 0; d == 0; i++)
			d = want[order_dims[r->misc][i]];
		break;
	case ACIS_TORUS_RMR:
	case ACIS_TORUS_CCAR:
		/* the minimal ways a legal turn reaches that shut off no
		 * dimension still to travel, lowest direction first */
		for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
			if (want[dim] != 0 &&
			    acis_torus_turn_legal(r->prev, want[dim]) &&
			    leaves_way_on(want[dim], left))
				cand[n++] = want[dim];
		if (n == 0)
			return -EPERM;
		if (algo == ACIS_TORUS_RMR) {
			d = cand[acis_torus_rng_below(rng, n)];
			break;
		}
		d = cand[0]; /* most credits; the first (lowest) on a tie */
		for (i = 1; credits != NULL && i < n; i++)
			if (credits[cand[i] - 1] > credits[d - 1])
				d = cand[i];
		break;
	}
	if (!acis_torus_turn_legal(r->prev, d))
		return -EPERM;
	r->cls = acis_torus_class_after(t, cur, r, d);
	r->prev = (uint8_t)d;
	return (int)d;
}

unsigned int
acis_torus_hops_left(const struct acis_torus *t,
		     const struct acis_torus_coord *cur,
		     const struct acis_torus_coord *dst,
		     const struct acis_torus_route *r,
		     enum acis_torus_algo algo)
{
	unsigned int dim, sum = 0;

	if (algo != ACIS_TORUS_RLB || t->mesh)
		return acis_torus_distance(t, cur, dst);
	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
		sum += ring_way(t->k[dim], cur->c[dim], dst->c[dim],
				(r->misc >> dim) & 1u);
	return sum;
}

int
acis_torus_path(const struct acis_torus *t, uint32_t src, uint32_t dst,
		enum acis_torus_algo algo, struct acis_torus_rng *rng,
		const uint32_t *credits, uint8_t *dirs, unsigned int max_hops)
{
	struct acis_torus_coord cur, to;
	struct acis_torus_route r;
	unsigned int dim, hops = 0;
	int rc;

	if (acis_torus_coord(t, src, &cur) != 0 ||
	    acis_torus_coord(t, dst, &to) != 0)
		return -EINVAL;
	if (max_hops == 0)
		for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
			max_hops += t->k[dim] - 1u;
	rc = acis_torus_inject(t, &cur, &to, algo, rng, &r);
	if (rc != 0)
		return rc;
	for (;;) {
		rc = acis_torus_route(t, &cur, &to, &r, algo, credits, rng);
		if (rc <= 0)
			return rc < 0 ? rc : (int)hops;
		if (hops == max_hops)
			return -ELOOP;
		if (dirs != NULL)
			dirs[hops] = (uint8_t)rc;
		hops++;
		if (acis_torus_step(t, &cur, (unsigned int)rc) != 0)
			return -ENETUNREACH;
	}
}

static int
name_parse(const char *const *names, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; s != NULL && i < n; i++)
		if (strcasecmp(s, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
acis_torus_algo_name(enum acis_torus_algo algo)
{
	return (unsigned int)algo < ACIS_TORUS_ALGOS ? algo_names[algo] : NULL;
}

int
acis_torus_algo_parse(const char *s)
{
	return name_parse(algo_names, ACIS_TORUS_ALGOS, s);
}

const char *
acis_torus_policy_name(enum acis_torus_policy p)
{
	return (unsigned int)p < ACIS_TORUS_POLICIES ? policy_names[p] : NULL;
}

int
acis_torus_policy_parse(const char *s)
{
	return name_parse(policy_names, ACIS_TORUS_POLICIES, s);
}

/* ---- the PRNG ---- */

void
acis_torus_rng_seed(struct acis_torus_rng *r, uint64_t seed)
{
	/* splitmix64 spreads nearby seeds apart; xorshift needs s != 0 */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	r->s = z != 0 ? z : 0x9e3779b97f4a7c15ull;
}

uint32_t
acis_torus_rng_next(struct acis_torus_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

uint32_t
acis_torus_rng_below(struct acis_torus_rng *r, uint32_t n)
{
	return (uint32_t)(((uint64_t)acis_torus_rng_next(r) * n) >> 32);
}

/* ---- arbitration ---- */

/* > 0 if x is served before y, < 0 after, 0 for a tie. */
static int
arb_compare(const struct acis_torus_arbiter *a,
	    const struct acis_torus_contender *x,
	    const struct acis_torus_contender *y, uint16_t now)
{
	int of = acis_torus_stamp_older(x->stamp, y->stamp) -
		 acis_torus_stamp_older(y->stamp, x->stamp);
	int ff = (int)x->distance - (int)y->distance;
	int ux, uy;

	switch (a->policy) {
	case ACIS_TORUS_OF:
		return of;
	case ACIS_TORUS_MIX:
		ux = acis_torus_stamp_age(now, x->stamp) > a->threshold;
		uy = acis_torus_stamp_age(now, y->stamp) > a->threshold;
		if (ux != uy)
			return ux - uy;
		return ux ? of : ff;
	default:
		return ff;
	}
}

int
acis_torus_arbitrate(struct acis_torus_arbiter *a,
		     const struct acis_torus_contender *c, unsigned int n,
		     uint16_t now)
{
	unsigned int i, best = 0;
	int cmp;

	if (a->policy >= ACIS_TORUS_POLICIES)
		return -EINVAL;
	if (n == 0)
		return -ENOENT;
	for (i = 1; i < n; i++) {
		cmp = arb_compare(a, &c[i], &c[best], now);
		/* on a tie, the nearer input at or after rr, cyclically */
		if (cmp > 0 ||
		    (cmp == 0 && (uint8_t)(c[i].input - a->rr) <
					 (uint8_t)(c[best].input - a->rr)))
			best = i;
	}
	a->rr = (uint8_t)(c[best].input + 1);
	return (int)best;
}

/* ---- the router clock ---- */

#define NS_PER_S 1000000000ull

uint64_t
acis_torus_ns_to_cycles(uint64_t ns, uint32_t hz)
{
	uint64_t f = hz != 0 ? hz : ACIS_TORUS_CLOCK_HZ;

	return ns / NS_PER_S * f + ns % NS_PER_S * f / NS_PER_S;
}

uint64_t
acis_torus_cycles_to_ns(uint64_t cycles, uint32_t hz)
{
	uint64_t f = hz != 0 ? hz : ACIS_TORUS_CLOCK_HZ;

	return cycles / f * NS_PER_S + cycles % f * NS_PER_S / f;
}

int
acis_torus_dims_parse(const char *s, uint8_t k[ACIS_TORUS_DIMS])
{
	unsigned int d;

	k[0] = k[1] = k[2] = 1;
	for (d = 0; d < ACIS_TORUS_DIMS; d++) {
		unsigned long v;
		char *end;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = strtoul(s, &end, 10);
		if (v < 2 || v > ACIS_TORUS_MAX_K)
			return -EINVAL;
		k[d] = (uint8_t)v;
		if (*end == '\0')
			return 0;
		if (*end != 'x')
			return -EINVAL;
		s = end + 1;
	}
	return -E2BIG;
}
