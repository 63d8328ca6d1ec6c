/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic patterns of seed 000's experiments (Tab. 5.3, §8.2): where
 * each node of a torus or mesh sends (doc/torus-traffic.md). Pure C, no
 * allocation: a destination is a few compares, at most a scan of the 26
 * offsets of the cube around a node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acis_torus.h"

static const char *const pattern_names[ACIS_TORUS_PATTERNS] = {
	"nn", "3h-nn", "cube-nn", "bc", "tran", "tor", "all", "rot",
	"uniform", "mcast",
};

/* The dimensions present (k > 1), in order; their count. */
static unsigned int
present(const struct acis_torus *t, unsigned int pd[ACIS_TORUS_DIMS])
{
	unsigned int dim, n = 0;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
		if (t->k[dim] > 1)
			pd[n++] = dim;
	return n;
}

/* Offsets of the neighbour patterns over n present dimensions: entry j
 * of the list, each of its n digits -1, 0 or +1. NN: +, - in each
 * dimension (the ports' order); 3H-NN: the 2^n sign patterns; CUBE-NN:
 * the 3^n - 1 non-zero digit strings. Returns the list's length. */
static unsigned int
offsets_len(unsigned int kind, unsigned int n)
{
	unsigned int cube = 1, j;

	switch (kind) {
	case ACIS_TORUS_PAT_NN:
		return 2 * n;
	case ACIS_TORUS_PAT_3HNN:
		return 1u << n;
	default:
		for (j = 0; j < n; j++)
			cube *= 3;
		return cube - 1;
	}
}

static void
offset(unsigned int kind, unsigned int n, unsigned int j,
       int off[ACIS_TORUS_DIMS])
{
	unsigned int d;

	memset(off, 0, sizeof(int) * ACIS_TORUS_DIMS);
	switch (kind) {
	case ACIS_TORUS_PAT_NN:
		off[j / 2] = j & 1 ? -1 : 1;
		break;
	case ACIS_TORUS_PAT_3HNN:
		for (d = 0; d < n; d++)
			off[d] = (j >> d) & 1 ? -1 : 1;
		break;
	default:
		/* j + 1 in base 3, digit 1 is +1 and 2 is -1: zero skipped */
		j++;
		for (d = 0; d < n; d++, j /= 3)
			off[d] = j % 3 == 0 ? 0 : j % 3 == 1 ? 1 : -1;
	}
}

/* Node src moved by offset off over the present dimensions pd, or -1
 * past a mesh's edge (or back at src: a ring of 2 or 1 has none). */
static int
moved(const struct acis_torus *t, const unsigned int *pd, unsigned int n,
      const struct acis_torus_coord *src, const int *off)
{
	struct acis_torus_coord c = *src;
	unsigned int d;
	int node;

	for (d = 0; d < n; d++) {
		int k = t->k[pd[d]], x = src->c[pd[d]] + off[d];

		if (t->mesh && (x < 0 || x >= k))
			return -1;
		c.c[pd[d]] = (uint8_t)((x + k) % k);
	}
	node = acis_torus_node(t, &c);
	return node == acis_torus_node(t, src) ? -1 : node;
}

/* The neighbour pattern's destinations of src: the i-th if want, else
 * how many (want < 0). */
static int
neighbour(const struct acis_torus *t, unsigned int kind,
	  const struct acis_torus_coord *src, int want)
{
	unsigned int pd[ACIS_TORUS_DIMS], n = present(t, pd), len, j;
	int off[ACIS_TORUS_DIMS], found = 0, node;

	len = offsets_len(kind, n);
	for (j = 0; j < len; j++) {
		offset(kind, n, j, off);
		node = moved(t, pd, n, src, off);
		if (node < 0)
			continue;
		if (found == want)
			return node;
		found++;
	}
	return want < 0 ? found : -EINVAL;
}

static int
is_pow2(uint32_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* The fixed patterns' one destination of src (which may be src). */
static uint32_t
mapped(const struct acis_torus *t, unsigned int kind, uint32_t src,
       const struct acis_torus_coord *c)
{
	struct acis_torus_coord d = *c;
	unsigned int pd[ACIS_TORUS_DIMS], n = present(t, pd), j, b;

	switch (kind) {
	case ACIS_TORUS_PAT_BC:
		for (j = 0; j < ACIS_TORUS_DIMS; j++)
			d.c[j] = (uint8_t)(t->k[j] - 1 - c->c[j]);
		break;
	case ACIS_TORUS_PAT_TRAN:
		/* present coordinate j takes the one before it, cyclically:
		 * (x,y,z) -> (z,x,y); (x,y) -> (y,x) */
		for (j = 0; j < n; j++)
			d.c[pd[j]] = (uint8_t)(c->c[pd[(j + n - 1) % n]] %
					       t->k[pd[j]]);
		break;
	case ACIS_TORUS_PAT_TOR:
		j = t->k[1] > 1 ? 1 : pd[0];
		d.c[j] = (uint8_t)((c->c[j] + t->k[j] / 2 - 1) % t->k[j]);
		break;
	case ACIS_TORUS_PAT_ROT:
		for (b = 0; (1u << b) < t->nodes; b++)
			;
		return (src >> 1) | ((src & 1) << (b - 1));
	}
	return (uint32_t)acis_torus_node(t, &d);
}

/* The node among src's others (every node but src) at place j. */
static inline uint32_t
other(uint32_t src, uint32_t j)
{
	return j < src ? j : j + 1;
}

static uint32_t
mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/*
 * A permutation of 0 .. n - 1 chosen by key: a four-round Feistel
 * network over the smallest even bit count covering n, walked again
 * while it lands at or above n (at most four tries expected). Distinct
 * i give distinct results, so a message's fanout destinations are
 * distinct with no memory of those drawn before.
 */
static uint32_t
permute(uint32_t i, uint32_t n, uint64_t key)
{
	unsigned int half = 1, round;
	uint32_t mask;

	while ((1ull << (2 * half)) < n)
		half++;
	mask = (1u << half) - 1;
	do {
		uint32_t l = i >> half, r = i & mask;

		for (round = 0; round < 4; round++) {
			uint32_t f = mix32(r ^ (uint32_t)(key >> (16 * round)) ^
					   round * 0x9e3779b9u) & mask;
			uint32_t x = l ^ f;

			l = r;
			r = x;
		}
		i = l << half | r;
	} while (i >= n);
	return i;
}

int
acis_torus_pattern_check(const struct acis_torus *t,
			 const struct acis_torus_pattern *p)
{
	uint32_t s;

	if (p->kind >= ACIS_TORUS_PATTERNS)
		return -EINVAL;
	if (p->kind == ACIS_TORUS_PAT_ROT && !is_pow2(t->nodes))
		return -EDOM;
	if (p->kind == ACIS_TORUS_PAT_MCAST &&
	    (p->fanout == 0 || p->fanout > t->nodes - 1))
		return -ERANGE;
	for (s = 0; s < t->nodes; s++)
		if (acis_torus_pattern_count(t, p, s) != 0)
			return 0;
	return -ENOENT;
}

unsigned int
acis_torus_pattern_count(const struct acis_torus *t,
			 const struct acis_torus_pattern *p, uint32_t src)
{
	struct acis_torus_coord c;

	if (acis_torus_coord(t, src, &c) != 0)
		return 0;
	switch (p->kind) {
	case ACIS_TORUS_PAT_NN:
	case ACIS_TORUS_PAT_3HNN:
	case ACIS_TORUS_PAT_CUBENN:
		return (unsigned int)neighbour(t, p->kind, &c, -1);
	case ACIS_TORUS_PAT_ROT:
		if (!is_pow2(t->nodes))
			return 0;
		/* fall through */
	case ACIS_TORUS_PAT_BC:
	case ACIS_TORUS_PAT_TRAN:
	case ACIS_TORUS_PAT_TOR:
		return mapped(t, p->kind, src, &c) != src;
	case ACIS_TORUS_PAT_ALL:
		return t->nodes - 1;
	case ACIS_TORUS_PAT_UNIFORM:
		return 1;
	case ACIS_TORUS_PAT_MCAST:
		return p->fanout < t->nodes ? p->fanout : t->nodes - 1;
	}
	return 0;
}

int
acis_torus_pattern_dest(const struct acis_torus *t,
			const struct acis_torus_pattern *p, uint32_t src,
			unsigned int i, struct acis_torus_rng *rng)
{
	struct acis_torus_coord c;

	if (acis_torus_coord(t, src, &c) != 0)
		return -EINVAL;
	switch (p->kind) {
	case ACIS_TORUS_PAT_NN:
	case ACIS_TORUS_PAT_3HNN:
	case ACIS_TORUS_PAT_CUBENN:
		return neighbour(t, p->kind, &c, (int)i);
	case ACIS_TORUS_PAT_BC:
	case ACIS_TORUS_PAT_TRAN:
	case ACIS_TORUS_PAT_TOR:
	case ACIS_TORUS_PAT_ROT:
		if (i != 0 || acis_torus_pattern_count(t, p, src) == 0)
			return -EINVAL;
		return (int)mapped(t, p->kind, src, &c);
	case ACIS_TORUS_PAT_ALL:
		return i < t->nodes - 1 ? (int)other(src, i) : -EINVAL;
	case ACIS_TORUS_PAT_UNIFORM:
		if (i != 0 || rng == NULL)
			return -EINVAL;
		return (int)other(src, acis_torus_rng_below(rng,
							    t->nodes - 1));
	case ACIS_TORUS_PAT_MCAST:
		if (i >= acis_torus_pattern_count(t, p, src))
			return -EINVAL;
		return (int)other(src, permute(i, t->nodes - 1, p->key));
	}
	return -EINVAL;
}

void
acis_torus_pattern_draw(struct acis_torus_pattern *p,
			struct acis_torus_rng *rng)
{
	if (p->kind == ACIS_TORUS_PAT_MCAST)
		p->key = (uint64_t)acis_torus_rng_next(rng) << 32 |
			 acis_torus_rng_next(rng);
}

const char *
acis_torus_pattern_name(enum acis_torus_pattern_kind kind)
{
	return (unsigned int)kind < ACIS_TORUS_PATTERNS ? pattern_names[kind] :
							 NULL;
}

int
acis_torus_pattern_parse(const char *s, struct acis_torus_pattern *p)
{
	unsigned int k;

	memset(p, 0, sizeof(*p));
	if (strncasecmp(s, "mcast:", 6) == 0) {
		char *end;
		unsigned long m = strtoul(s + 6, &end, 10);

		if (end == s + 6 || *end != '\0' || s[6] == '-' || m == 0 ||
		    m > UINT16_MAX)
			return -EINVAL;
		p->kind = ACIS_TORUS_PAT_MCAST;
		p->fanout = (uint16_t)m;
		return 0;
	}
	for (k = 0; k < ACIS_TORUS_PATTERNS; k++)
		if (strcasecmp(s, pattern_names[k]) == 0) {
			p->kind = (uint8_t)k;
			p->fanout = k == ACIS_TORUS_PAT_MCAST ?
				    ACIS_TORUS_MCAST_FANOUT_DEFAULT : 0;
			return 0;
		}
	return -EINVAL;
}
