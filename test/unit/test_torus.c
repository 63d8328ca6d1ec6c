/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/torus: geometry, the five routing algorithms, dateline classes,
 * forbidden turns, arbitration and the router clock (doc/torus.md). The
 * references here (ring offsets, steps, the forbidden turns, the class
 * rule) are written from the seed's text, not from the library. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_torus.h"

struct geo {
	unsigned int k[3];
	int mesh;
};

/* The 4x4x4 torus and mesh every algorithm is checked on, and odd,
 * tiny, flat and one-dimensional shapes beside them. */
static const struct geo GEOS[] = {
	{{4, 4, 4}, 0}, {{4, 4, 4}, 1}, {{2, 2, 2}, 0},
	{{5, 3, 1}, 0}, {{3, 1, 6}, 0}, {{8, 1, 1}, 1},
	{{6, 5, 1}, 1}, {{2, 3, 4}, 1}, {{7, 1, 1}, 0},
};
#define NGEOS (sizeof(GEOS) / sizeof(GEOS[0]))

static const int DIR_DIM[7] = {-1, 0, 0, 1, 1, 2, 2};
static const int DIR_SIGN[7] = {0, 1, -1, 1, -1, 1, -1};

static void
make(struct acis_torus *t, const struct geo *g)
{
	assert_int_equal(acis_torus_init(t, g->k[0], g->k[1], g->k[2], g->mesh),
			 0);
}

static void
place(const struct geo *g, unsigned int node, int c[3])
{
	c[0] = (int)(node % g->k[0]);
	c[1] = (int)(node / g->k[0] % g->k[1]);
	c[2] = (int)(node / (g->k[0] * g->k[1]));
}

/* The shortest signed offset from a to b along a ring of k (a line in a
 * mesh): in (-k/2, k/2], so half way round counts as +. */
static int
ref_offset(const struct geo *g, unsigned int dim, int a, int b)
{
	int k = (int)g->k[dim], d;

	if (g->mesh)
		return b - a;
	d = ((b - a) % k + k) % k;
	return d > k / 2 ? d - k : d;
}

static unsigned int
ref_distance(const struct geo *g, const int a[3], const int b[3])
{
	unsigned int dim, sum = 0;

	for (dim = 0; dim < 3; dim++)
		sum += (unsigned int)abs(ref_offset(g, dim, a[dim], b[dim]));
	return sum;
}

/* One hop: 0, or -1 if no link leaves that way. */
static int
ref_step(const struct geo *g, int c[3], unsigned int d)
{
	int dim, k, x;

	if (d < 1 || d > 6)
		return -1;
	dim = DIR_DIM[d];
	k = (int)g->k[dim];
	x = c[dim] + DIR_SIGN[d];
	if (k == 1 || (g->mesh && (x < 0 || x >= k)))
		return -1;
	c[dim] = (x + k) % k;
	return 0;
}

/* Seed 000 §5.2.4's six forbidden turns, and going straight back. */
static int
ref_forbidden(unsigned int a, unsigned int b)
{
	static const unsigned int bad[][2] = {
		{ACIS_TORUS_YM, ACIS_TORUS_XP}, {ACIS_TORUS_YM, ACIS_TORUS_XM},
		{ACIS_TORUS_ZM, ACIS_TORUS_XP}, {ACIS_TORUS_ZM, ACIS_TORUS_XM},
		{ACIS_TORUS_ZM, ACIS_TORUS_YP}, {ACIS_TORUS_ZM, ACIS_TORUS_YM},
		{ACIS_TORUS_XP, ACIS_TORUS_XM}, {ACIS_TORUS_XM, ACIS_TORUS_XP},
		{ACIS_TORUS_YP, ACIS_TORUS_YM}, {ACIS_TORUS_YM, ACIS_TORUS_YP},
		{ACIS_TORUS_ZP, ACIS_TORUS_ZM}, {ACIS_TORUS_ZM, ACIS_TORUS_ZP},
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (bad[i][0] == a && bad[i][1] == b)
			return 1;
	return 0;
}

/* Follow dirs from src with our own steps: every hop must have a link
 * and the walk must end at dst. Returns the forbidden turns taken. */
static unsigned int
walk(const struct geo *g, unsigned int src, unsigned int dst,
     const uint8_t *dirs, int n)
{
	int c[3], want[3], i;
	unsigned int illegal = 0;

	place(g, src, c);
	place(g, dst, want);
	for (i = 0; i < n; i++) {
		if (ref_step(g, c, dirs[i]) != 0)
			fail_msg("%u->%u hop %d: no link that way (%u)", src,
				 dst, i, dirs[i]);
		if (i > 0 && ref_forbidden(dirs[i - 1], dirs[i]))
			illegal++;
	}
	if (memcmp(c, want, sizeof(c)) != 0)
		fail_msg("%u->%u: the walk ends at %d,%d,%d", src, dst, c[0],
			 c[1], c[2]);
	return illegal;
}

static void
to_coord(const struct geo *g, unsigned int node, struct acis_torus_coord *c)
{
	int p[3];

	place(g, node, p);
	c->c[0] = (uint8_t)p[0];
	c->c[1] = (uint8_t)p[1];
	c->c[2] = (uint8_t)p[2];
}

static void
test_bad_geometry_is_refused(void **state)
{
	struct acis_torus t;

	(void)state;
	assert_int_equal(acis_torus_init(&t, 0, 4, 4, 0), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 4, 0, 4, 0), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 4, 4, 0, 1), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 65, 4, 4, 0), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 4, 4, 65, 0), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 1, 1, 1, 0), -EINVAL);
	assert_int_equal(acis_torus_init(&t, 64, 64, 64, 0), 0);
	assert_int_equal(t.nodes, 262144);
	assert_int_equal(t.ndims, 3);
	assert_int_equal(acis_torus_init(&t, 1, 9, 1, 1), 0);
	assert_int_equal(t.ndims, 1);
	assert_int_equal(t.mesh, 1);
}

/* Node k is at (k % kx, k / kx % ky, k / kx / ky), as acis-fabric torus
 * numbers its switches, and the directions are its ports p1..p6. */
static void
test_nodes_and_ports_are_numbered_as_acis_fabric(void **state)
{
	const struct geo g = {{4, 3, 5}, 0};
	struct acis_torus t;
	struct acis_torus_coord c;
	unsigned int k, d;

	(void)state;
	make(&t, &g);
	for (k = 0; k < 60; k++) {
		assert_int_equal(acis_torus_coord(&t, k, &c), 0);
		assert_int_equal(c.c[0], k % 4);
		assert_int_equal(c.c[1], k / 4 % 3);
		assert_int_equal(c.c[2], k / 12);
		assert_int_equal(acis_torus_node(&t, &c), (int)k);
	}
	assert_int_equal(acis_torus_coord(&t, 60, &c), -EINVAL);
	c.c[1] = 3;
	assert_int_equal(acis_torus_node(&t, &c), -EINVAL);

	assert_int_equal(ACIS_TORUS_LOCAL, 0);
	assert_int_equal(ACIS_TORUS_XP, 1);
	assert_int_equal(ACIS_TORUS_XM, 2);
	assert_int_equal(ACIS_TORUS_YP, 3);
	assert_int_equal(ACIS_TORUS_YM, 4);
	assert_int_equal(ACIS_TORUS_ZP, 5);
	assert_int_equal(ACIS_TORUS_ZM, 6);
	for (d = 1; d <= 6; d++) {
		assert_int_equal(acis_torus_dir_dim(d), DIR_DIM[d]);
		assert_int_equal(acis_torus_dir_neg(d), DIR_SIGN[d] < 0);
		assert_int_equal(acis_torus_dir_make(acis_torus_dir_dim(d),
						     acis_torus_dir_neg(d)),
				 d);
		assert_int_equal(DIR_DIM[acis_torus_dir_opposite(d)],
				 DIR_DIM[d]);
		assert_int_equal(DIR_SIGN[acis_torus_dir_opposite(d)],
				 -DIR_SIGN[d]);
	}
}

/* Steps wrap in a torus, stop at a mesh's edge and an absent dimension. */
static void
test_steps_wrap_in_a_torus_and_stop_at_a_mesh_edge(void **state)
{
	struct acis_torus t;
	struct acis_torus_coord c = {{3, 0, 0}};

	(void)state;
	assert_int_equal(acis_torus_init(&t, 4, 4, 1, 0), 0);
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_XP), 0);
	assert_int_equal(c.c[0], 0);
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_YM), 0);
	assert_int_equal(c.c[1], 3);
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_ZP), -ENETUNREACH);
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_LOCAL),
			 -ENETUNREACH);
	assert_int_equal(acis_torus_init(&t, 4, 4, 1, 1), 0);
	c.c[0] = 3;
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_XP), -ENETUNREACH);
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_XM), 0);
	assert_int_equal(c.c[0], 2);
	c.c[1] = 0;
	assert_int_equal(acis_torus_step(&t, &c, ACIS_TORUS_YM), -ENETUNREACH);
}

static void
test_turn_legal_forbids_the_six_turns_and_going_back(void **state)
{
	unsigned int a, b, illegal = 0;

	(void)state;
	for (a = 0; a <= 6; a++)
		for (b = 0; b <= 6; b++) {
			int want = !ref_forbidden(a, b);

			assert_int_equal(acis_torus_turn_legal(a, b), want);
			illegal += !want;
		}
	assert_int_equal(illegal, 12);
	assert_false(acis_torus_turn_legal(7, ACIS_TORUS_XP));
	assert_false(acis_torus_turn_legal(ACIS_TORUS_XP, 7));
}

/* DOR: every X hop, then every Y hop, then every Z hop, each the shorter
 * way round (+ when both are k/2), so exactly the reference's path. */
static void
test_dor_goes_x_then_y_then_z_the_shorter_way(void **state)
{
	uint8_t dirs[ACIS_TORUS_PATH_MAX], want[ACIS_TORUS_PATH_MAX];
	unsigned int gi, s, dd, dim;

	(void)state;
	for (gi = 0; gi < NGEOS; gi++) {
		const struct geo *g = &GEOS[gi];
		struct acis_torus t;

		make(&t, g);
		for (s = 0; s < t.nodes; s++)
			for (dd = 0; dd < t.nodes; dd++) {
				int a[3], b[3], n = 0, i, h;

				place(g, s, a);
				place(g, dd, b);
				for (dim = 0; dim < 3; dim++) {
					int o = ref_offset(g, dim, a[dim],
							   b[dim]);

					for (i = 0; i < abs(o); i++)
						want[n++] =
							(uint8_t)(1 + 2 * dim +
								  (o < 0));
				}
				h = acis_torus_path(&t, s, dd, ACIS_TORUS_DOR,
						    NULL, NULL, dirs, 0);
				assert_int_equal(h, n);
				assert_int_equal(h, ref_distance(g, a, b));
				assert_memory_equal(dirs, want, (size_t)n);
				walk(g, s, dd, dirs, h);
			}
	}
}

static void
random_credits(struct acis_torus_rng *rng, uint32_t credits[6], uint32_t n)
{
	unsigned int i;

	for (i = 0; i < 6; i++)
		credits[i] = acis_torus_rng_below(rng, n);
}

/* One minimal path: the reference's length, each dimension's hops all
 * the shorter way. */
static void
check_minimal(const struct geo *g, const struct acis_torus *t,
	      enum acis_torus_algo algo, unsigned int s, unsigned int dd,
	      struct acis_torus_rng *rng)
{
	uint8_t dirs[ACIS_TORUS_PATH_MAX];
	uint32_t credits[6];
	int a[3], b[3], per[3] = {0}, h, i;

	random_credits(rng, credits, 4);
	place(g, s, a);
	place(g, dd, b);
	h = acis_torus_path(t, s, dd, algo, rng, credits, dirs, 0);
	assert_int_equal(h, ref_distance(g, a, b));
	walk(g, s, dd, dirs, h);
	for (i = 0; i < h; i++)
		per[DIR_DIM[dirs[i]]] += DIR_SIGN[dirs[i]];
	for (i = 0; i < 3; i++)
		assert_int_equal(per[i],
				 ref_offset(g, (unsigned)i, a[i], b[i]));
}

/* O1TURN, RMR and CCAR are minimal, for every pair, four draws each. */
static void
test_minimal_algorithms_take_a_shortest_path(void **state)
{
	static const enum acis_torus_algo algos[] = {
		ACIS_TORUS_O1TURN, ACIS_TORUS_RMR, ACIS_TORUS_CCAR};
	struct acis_torus_rng rng;
	unsigned int gi, ai, s, dd, seed;

	(void)state;
	acis_torus_rng_seed(&rng, 1);
	for (gi = 0; gi < NGEOS; gi++) {
		struct acis_torus t;

		make(&t, &GEOS[gi]);
		for (ai = 0; ai < 3; ai++)
			for (s = 0; s < t.nodes; s++)
				for (dd = 0; dd < t.nodes; dd++)
					for (seed = 0; seed < 4; seed++)
						check_minimal(&GEOS[gi], &t,
							      algos[ai], s, dd,
							      &rng);
	}
}

/* One path, walked: the forbidden turns it made. */
static unsigned int
illegal_turns(const struct geo *g, const struct acis_torus *t,
	      enum acis_torus_algo algo, unsigned int s, unsigned int dd,
	      struct acis_torus_rng *rng)
{
	uint8_t dirs[ACIS_TORUS_PATH_MAX];
	uint32_t credits[6];
	int h;

	random_credits(rng, credits, 3);
	h = acis_torus_path(t, s, dd, algo, rng, credits, dirs, 0);
	if (h < 0)
		fail_msg("%s %u->%u: %d", acis_torus_algo_name(algo), s, dd, h);
	return walk(g, s, dd, dirs, h);
}

/* No path of any algorithm, in any shape, with many seeds and random
 * credits, makes a forbidden turn or leaves by a port with no link. */
static void
test_no_algorithm_ever_makes_a_forbidden_turn(void **state)
{
	struct acis_torus_rng rng;
	unsigned int gi, algo, s, dd, seed, illegal = 0, paths = 0;

	(void)state;
	acis_torus_rng_seed(&rng, 2);
	for (gi = 0; gi < NGEOS; gi++) {
		struct acis_torus t;

		make(&t, &GEOS[gi]);
		for (algo = 0; algo < ACIS_TORUS_ALGOS; algo++)
			for (s = 0; s < t.nodes; s++)
				for (dd = 0; dd < t.nodes; dd++)
					for (seed = 0; seed < 8; seed++) {
						illegal += illegal_turns(
							&GEOS[gi], &t, algo, s,
							dd, &rng);
						paths++;
					}
	}
	assert_int_equal(illegal, 0);
	assert_true(paths > 5 * 8 * 2 * 4096);
}

/* The orders legal for a packet of these ways (doc/torus.md): XYZ
 * always; XZY, YZX and ZXY need Z+ (Z- before a turn to X or Y);
 * YXZ needs Y+; ZYX needs Y+ and Z+. */
static unsigned int
ref_legal_orders(int ysign, int zsign)
{
	unsigned int m = 1u << ACIS_TORUS_XYZ;

	if (zsign > 0)
		m |= 1u << ACIS_TORUS_XZY | 1u << ACIS_TORUS_YZX |
		     1u << ACIS_TORUS_ZXY;
	if (ysign > 0)
		m |= 1u << ACIS_TORUS_YXZ;
	if (ysign > 0 && zsign > 0)
		m |= 1u << ACIS_TORUS_ZYX;
	return m;
}

/* O1TURN draws each of the orders legal for the packet, and only those,
 * about equally often, and its path keeps to the drawn order. */
static void
test_o1turn_draws_only_the_orders_legal_for_the_packet(void **state)
{
	static const unsigned int order_dim[6][3] = {{0, 1, 2}, {0, 2, 1},
						     {1, 0, 2}, {1, 2, 0},
						     {2, 0, 1}, {2, 1, 0}};
	static const uint8_t dsts[][3] = {{1, 1, 1}, {1, 1, 3}, {1, 3, 1},
					  {1, 3, 3}, {3, 3, 3}, {2, 2, 2}};
	const struct geo g = {{4, 4, 4}, 0};
	struct acis_torus t;
	struct acis_torus_rng rng;
	unsigned int di, n, o;

	(void)state;
	make(&t, &g);
	acis_torus_rng_seed(&rng, 3);
	for (di = 0; di < sizeof(dsts) / sizeof(dsts[0]); di++) {
		const struct acis_torus_coord src = {{0, 0, 0}};
		struct acis_torus_coord dst = {
			{dsts[di][0], dsts[di][1], dsts[di][2]}};
		int ys = ref_offset(&g, 1, 0, dst.c[1]) > 0 ? 1 : -1;
		int zs = ref_offset(&g, 2, 0, dst.c[2]) > 0 ? 1 : -1;
		unsigned int legal = ref_legal_orders(ys, zs), seen[6] = {0};
		unsigned int nlegal = (unsigned int)__builtin_popcount(legal);

		for (n = 0; n < 1200; n++) {
			struct acis_torus_route r;
			struct acis_torus_coord c = src;
			unsigned int rank = 0;
			int d;

			assert_int_equal(acis_torus_inject(&t, &src, &dst,
							   ACIS_TORUS_O1TURN,
							   &rng, &r),
					 0);
			assert_true(r.misc < 6);
			if (!(legal & 1u << r.misc))
				fail_msg("to %u,%u,%u: order %u drawn",
					 dst.c[0], dst.c[1], dst.c[2], r.misc);
			seen[r.misc]++;
			o = r.misc;
			while ((d = acis_torus_route(&t, &c, &dst, &r,
						     ACIS_TORUS_O1TURN, NULL,
						     NULL)) > 0) {
				/* dimensions come in the order's sequence */
				while ((int)order_dim[o][rank] != DIR_DIM[d])
					assert_true(++rank < 3);
				assert_int_equal(
					acis_torus_step(&t, &c, (unsigned)d),
					0);
			}
			assert_int_equal(d, ACIS_TORUS_LOCAL);
			assert_memory_equal(&c, &dst, sizeof(c));
		}
		for (o = 0; o < 6; o++)
			if (legal & 1u << o) /* 1200 / nlegal each, +-40 % */
				assert_true(seen[o] * nlegal * 10 > 1200 * 6 &&
					    seen[o] * nlegal * 10 < 1200 * 14);
	}
}

/* One RLB path: X, then Y, then Z, each dimension's hops all one way,
 * the shorter or the longer; hops_left at the source (the same draw) is
 * its length; in a mesh it is DOR's path. Returns the long ways. */
static unsigned int
check_rlb(const struct geo *g, const struct acis_torus *t, unsigned int s,
	  unsigned int dd, struct acis_torus_rng *rng)
{
	uint8_t dirs[ACIS_TORUS_PATH_MAX], dor[ACIS_TORUS_PATH_MAX];
	struct acis_torus_rng keep = *rng;
	struct acis_torus_coord a, b;
	struct acis_torus_route r;
	int pa[3], pb[3], per[3] = {0}, h, i, lastdim = 0;
	unsigned int longs = 0;

	place(g, s, pa);
	place(g, dd, pb);
	h = acis_torus_path(t, s, dd, ACIS_TORUS_RLB, rng, NULL, dirs, 0);
	assert_true(h >= 0);
	walk(g, s, dd, dirs, h);
	for (i = 0; i < h; i++) {
		assert_true(DIR_DIM[dirs[i]] >= lastdim);
		lastdim = DIR_DIM[dirs[i]];
		per[lastdim] += DIR_SIGN[dirs[i]];
	}
	for (i = 0; i < 3; i++) {
		int o = ref_offset(g, (unsigned)i, pa[i], pb[i]);
		int k = (int)g->k[i];

		if (per[i] == o)
			continue;
		assert_false(g->mesh);
		assert_int_equal(per[i], o > 0 ? o - k : o + k);
		longs++;
	}
	to_coord(g, s, &a);
	to_coord(g, dd, &b);
	assert_int_equal(
		acis_torus_inject(t, &a, &b, ACIS_TORUS_RLB, &keep, &r), 0);
	assert_int_equal(acis_torus_hops_left(t, &a, &b, &r, ACIS_TORUS_RLB),
			 h);
	if (g->mesh) {
		assert_int_equal(acis_torus_path(t, s, dd, ACIS_TORUS_DOR, NULL,
						 NULL, dor, 0),
				 h);
		assert_memory_equal(dirs, dor, (size_t)h);
	}
	return longs;
}

static void
test_rlb_goes_the_short_or_long_way_round_each_ring(void **state)
{
	struct acis_torus_rng rng;
	unsigned int gi, s, dd, seed, longs = 0;

	(void)state;
	acis_torus_rng_seed(&rng, 4);
	for (gi = 0; gi < NGEOS; gi++) {
		struct acis_torus t;

		make(&t, &GEOS[gi]);
		for (s = 0; s < t.nodes; s++)
			for (dd = 0; dd < t.nodes; dd++)
				for (seed = 0; seed < 4; seed++)
					longs += check_rlb(&GEOS[gi], &t, s, dd,
							   &rng);
	}
	assert_true(longs > 1000);
}

/* Seed 000 §5.2.2: the long way with probability P/N in each dimension,
 * drawn independently; 20,000 draws, within 0.015 (over 4 standard
 * deviations). */
static void
test_rlb_takes_the_long_way_with_probability_p_over_n(void **state)
{
	static const struct {
		struct geo g;
		uint8_t dst[3];
	} cases[] = {
		{{{8, 8, 8}, 0}, {1, 2, 3}},   /* P/N 1/8, 2/8, 3/8 */
		{{{8, 8, 8}, 0}, {4, 7, 5}},   /* 4/8 (half way), 1/8, 3/8 */
		{{{64, 5, 1}, 0}, {20, 3, 0}}, /* 20/64, 2/5 */
	};
	const unsigned int draws = 20000;
	struct acis_torus_rng rng;
	unsigned int ci, n, dim;

	(void)state;
	acis_torus_rng_seed(&rng, 5);
	for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct geo *g = &cases[ci].g;
		const struct acis_torus_coord src = {{0, 0, 0}};
		const struct acis_torus_coord dst = {
			{cases[ci].dst[0], cases[ci].dst[1], cases[ci].dst[2]}};
		unsigned int longs[3] = {0}, both = 0;
		struct acis_torus t;

		make(&t, g);
		for (n = 0; n < draws; n++) {
			struct acis_torus_route r;
			unsigned int l = 0;

			assert_int_equal(acis_torus_inject(&t, &src, &dst,
							   ACIS_TORUS_RLB, &rng,
							   &r),
					 0);
			for (dim = 0; dim < 3; dim++) {
				int o = ref_offset(g, dim, 0, dst.c[dim]);
				unsigned int neg = (r.misc >> dim) & 1u;

				if (o == 0)
					continue;
				if (neg != (o < 0)) {
					longs[dim]++;
					l++;
				}
			}
			both += l >= 2;
		}
		for (dim = 0; dim < 3; dim++) {
			int o = abs(ref_offset(g, dim, 0, dst.c[dim]));
			double p = (double)o / g->k[dim];
			double got = (double)longs[dim] / draws;

			if (got < p - 0.015 || got > p + 0.015)
				fail_msg("case %u dim %u: long %.4f, P/N %.4f",
					 ci, dim, got, p);
		}
		/* independent: X and Y long together about P1/N1 * P2/N2 */
		if (ci == 2) {
			double p = 20.0 / 64 * 2.0 / 5;
			double got = (double)both / draws;

			assert_true(got > p - 0.015 && got < p + 0.015);
		}
	}
}

/* Whether the hop from c by d is a ring's wrap link: its dateline. */
static int
ref_dateline(const struct geo *g, const int c[3], unsigned int d)
{
	int dim = DIR_DIM[d], k = (int)g->k[dim];

	return !g->mesh && ((DIR_SIGN[d] > 0 && c[dim] == k - 1) ||
			    (DIR_SIGN[d] < 0 && c[dim] == 0));
}

/* Our own reading of the class rule (doc/torus.md): crossing the link
 * between node k - 1 and node 0 sets the dimension's bit for good; the
 * class is the count of bits set. */
static void
ref_class(const struct geo *g, const int c[3], unsigned int prev,
	  unsigned int d, unsigned int *cls)
{
	(void)prev;
	if (ref_dateline(g, c, d))
		*cls |= 1u << DIR_DIM[d];
}

/* Crafted walks on an 8x8 torus: + and - across the dateline, and a
 * turn that keeps the bit of the dimension it leaves. */
static void
test_dateline_crossing_sets_the_class(void **state)
{
	static const struct {
		uint8_t src[2], dst[2];
		uint8_t cls[3]; /* after each hop */
		int hops;
	} cases[] = {
		{{6, 0}, {1, 0}, {0, 1, 1}, 3}, /* X+ over 7->0 */
		{{1, 0}, {6, 0}, {0, 1, 1}, 3}, /* X- over 0->7 */
		{{6, 0}, {6, 3}, {0, 0, 0}, 3}, /* Y+ from 0, no dateline */
		{{7, 0}, {0, 6}, {1, 3, 3}, 3}, /* X+ 7->0; Y- 0->7 */
		{{7, 3}, {0, 1}, {1, 1, 1}, 3}, /* X+ 7->0; Y-, X's kept */
		{{5, 5}, {6, 6}, {0, 0}, 2},	/* X+ then Y+: all 0 */
		{{2, 5}, {1, 4}, {0, 0}, 2},	/* X- then Y-: all 0 */
	};
	const struct geo g = {{8, 8, 1}, 0};
	struct acis_torus t;
	unsigned int ci;
	int h;

	(void)state;
	make(&t, &g);
	for (ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		struct acis_torus_coord c = {
			{cases[ci].src[0], cases[ci].src[1], 0}};
		const struct acis_torus_coord dst = {
			{cases[ci].dst[0], cases[ci].dst[1], 0}};
		struct acis_torus_route r;
		int d;

		assert_int_equal(acis_torus_inject(&t, &c, &dst, ACIS_TORUS_DOR,
						   NULL, &r),
				 0);
		assert_int_equal(r.cls, 0);
		for (h = 0;
		     (d = acis_torus_route(&t, &c, &dst, &r, ACIS_TORUS_DOR,
					   NULL, NULL)) > 0;
		     h++) {
			if (r.cls != cases[ci].cls[h])
				fail_msg("case %u hop %d: class %u, want %u",
					 ci, h, r.cls, cases[ci].cls[h]);
			assert_int_equal(acis_torus_step(&t, &c, (unsigned)d),
					 0);
		}
		assert_int_equal(h, cases[ci].hops);
	}
	/* a mesh has no dateline: class 0 all the way */
	assert_int_equal(acis_torus_init(&t, 8, 8, 1, 1), 0);
	{
		struct acis_torus_coord c = {{0, 7, 0}};
		const struct acis_torus_coord dst = {{7, 0, 0}};
		struct acis_torus_route r;

		assert_int_equal(acis_torus_inject(&t, &c, &dst, ACIS_TORUS_DOR,
						   NULL, &r),
				 0);
		while (acis_torus_route(&t, &c, &dst, &r, ACIS_TORUS_DOR, NULL,
					NULL) > 0) {
			assert_int_equal(r.cls, 0);
			acis_torus_step(&t, &c, r.prev);
		}
		assert_int_equal(r.cls, 0);
	}
}

/* Route s to dd hop by hop: each hop leaves the class our rule gives,
 * and class_after said so beforehand. */
static void
check_classes(const struct geo *g, const struct acis_torus *t,
	      enum acis_torus_algo algo, unsigned int s, unsigned int dd,
	      struct acis_torus_rng *rng)
{
	const uint32_t credits[6] = {1, 2, 3, 3, 2, 1};
	struct acis_torus_coord c, dst;
	struct acis_torus_route r, before;
	unsigned int cls = 0, prev = 0, hops = 0;
	int p[3], d;

	to_coord(g, s, &c);
	to_coord(g, dd, &dst);
	place(g, s, p);
	assert_int_equal(acis_torus_inject(t, &c, &dst, algo, rng, &r), 0);
	for (;;) {
		before = r;
		d = acis_torus_route(t, &c, &dst, &r, algo, credits, rng);
		if (d <= 0)
			break;
		ref_class(g, p, prev, (unsigned)d, &cls);
		assert_int_equal(r.cls, cls);
		assert_int_equal(
			acis_torus_class_after(t, &c, &before, (unsigned)d),
			cls);
		assert_int_equal(r.prev, d);
		prev = (unsigned)d;
		ref_step(g, p, prev);
		assert_int_equal(acis_torus_step(t, &c, prev), 0);
		assert_true(++hops <= 9);
	}
	assert_int_equal(d, ACIS_TORUS_LOCAL);
}

/* Every hop of every algorithm, every pair, 4x4x4 torus and mesh. */
static void
test_every_hop_carries_the_class_the_rule_gives(void **state)
{
	struct acis_torus_rng rng;
	unsigned int gi, algo, s, dd;

	(void)state;
	acis_torus_rng_seed(&rng, 6);
	for (gi = 0; gi < 2; gi++) {
		struct acis_torus t;

		make(&t, &GEOS[gi]);
		for (algo = 0; algo < ACIS_TORUS_ALGOS; algo++)
			for (s = 0; s < t.nodes; s++)
				for (dd = 0; dd < t.nodes; dd++)
					check_classes(&GEOS[gi], &t, algo, s,
						      dd, &rng);
	}
}

/* ---- no cycle of waits: the channel dependency graph ---- */

/*
 * A router's buffers are its inputs' classes: a frame holds a slot of
 * class c in the input at the far end of the link it came by, and waits
 * for a slot of its next class in the input its next hop feeds (virtual
 * cut-through: one frame, one buffer). The network can deadlock only if
 * these waits can form a cycle. The graph below has an edge from each
 * buffer to each buffer a frame in it may wait for, over every route
 * every algorithm may take (every O1TURN order and RLB way the
 * injection may draw, every output RMR and CCAR may pick), and must have
 * no cycle. The seed's own rule (a bit a dimension, set by the way the
 * packet enters it, flipped at the dateline) is kept beside ours to show
 * the check finds the cycle it leaves to the algorithms that change the
 * order of dimensions.
 */
struct cdg {
	const struct geo *g;
	const struct acis_torus *t;
	unsigned int n;	 /* buffers: node x 6 directions x classes */
	uint8_t *edge;	 /* n x n */
	int seed_rule;	 /* classes by the seed's rule, not ours */
};

static unsigned int
cdg_buffer(unsigned int node, unsigned int d, unsigned int cls)
{
	return (node * 6u + d - 1u) * ACIS_TORUS_CLASSES + cls;
}

/* The seed's class bits after a hop by d from c (seed 000 §5.2.4, our
 * earlier rule): entering a dimension sets its bit, 0 for + and 1 for -;
 * the dateline flips it. The buffer's class is the dimension's bit. */
static unsigned int
seed_bits(const struct geo *g, const int c[3], unsigned int prev,
	  unsigned int d, unsigned int bits)
{
	unsigned int bit = 1u << DIR_DIM[d];

	if (prev == 0 || DIR_DIM[prev] != DIR_DIM[d])
		bits = DIR_SIGN[d] < 0 ? bits | bit : bits & ~bit;
	if (ref_dateline(g, c, d))
		bits ^= bit;
	return bits;
}

/* Every route from c (route state r, the seed's bits sbits) to dst,
 * the frame holding buffer held (-1: not yet in the network): each
 * wait an edge. record 0 only checks that the route gets there. */
static int
cdg_walk(struct cdg *G, enum acis_torus_algo algo,
	 const struct acis_torus_coord *c, const struct acis_torus_coord *dst,
	 const struct acis_torus_route *r, unsigned int sbits, int held,
	 int record)
{
	uint32_t credits[6];
	unsigned int tried = 0, i, choices = 1;
	int d, p[3];

	if (algo == ACIS_TORUS_RMR || algo == ACIS_TORUS_CCAR)
		choices = 6; /* CCAR led to each output by its credits */
	for (i = 0; i < choices; i++) {
		struct acis_torus_route nr = *r;
		struct acis_torus_coord nc = *c;
		unsigned int cls, nb = sbits;
		int node, b;

		memset(credits, 0, sizeof(credits));
		credits[i] = 1;
		d = acis_torus_route(G->t, c, dst, &nr,
				     choices > 1 ? ACIS_TORUS_CCAR : algo,
				     credits, NULL);
		if (d == ACIS_TORUS_LOCAL)
			return 0;
		if (d < 0)
			return d;
		if ((tried >> d) & 1)
			continue;
		tried |= 1u << d;
		p[0] = c->c[0];
		p[1] = c->c[1];
		p[2] = c->c[2];
		nb = seed_bits(G->g, p, r->prev, (unsigned int)d, sbits);
		cls = G->seed_rule ? (nb >> DIR_DIM[d]) & 1u :
				     acis_torus_class_of(nr.cls);
		node = acis_torus_node(G->t, c);
		assert_true(node >= 0);
		b = (int)cdg_buffer((unsigned int)node, (unsigned int)d, cls);
		if (record && held >= 0)
			G->edge[(size_t)held * G->n + (unsigned int)b] = 1;
		assert_int_equal(acis_torus_step(G->t, &nc, (unsigned int)d),
				 0);
		if (cdg_walk(G, algo, &nc, dst, &nr, nb, b, record) < 0)
			return -EPERM;
	}
	return 0;
}

/* Add every route of algo on G's network to its graph. */
static void
cdg_add(struct cdg *G, enum acis_torus_algo algo)
{
	unsigned int s, dd, m, draws;

	draws = algo == ACIS_TORUS_O1TURN ? ACIS_TORUS_ORDERS :
		algo == ACIS_TORUS_RLB	  ? 8 : 1;
	for (s = 0; s < G->t->nodes; s++)
		for (dd = 0; dd < G->t->nodes; dd++) {
			struct acis_torus_coord c, dst;

			if (s == dd)
				continue;
			acis_torus_coord(G->t, s, &c);
			acis_torus_coord(G->t, dd, &dst);
			for (m = 0; m < draws; m++) {
				struct acis_torus_route r = {
					.misc = (uint8_t)m,
					.prev = ACIS_TORUS_LOCAL};

				/* an O1TURN order with a forbidden turn is
				 * never drawn */
				if (cdg_walk(G, algo, &c, &dst, &r, 0, -1, 0) <
				    0) {
					assert_int_equal(algo,
							 ACIS_TORUS_O1TURN);
					continue;
				}
				cdg_walk(G, algo, &c, &dst, &r, 0, -1, 1);
			}
		}
}

/* Whether G's graph has a cycle: depth first, three colours. */
static int
cdg_cyclic(const struct cdg *G)
{
	uint8_t *colour = calloc(G->n, 1);
	unsigned int *stack = calloc(G->n, sizeof(*stack));
	unsigned int *next = calloc(G->n, sizeof(*next));
	unsigned int root, sp, found = 0;

	assert_non_null(colour);
	assert_non_null(stack);
	assert_non_null(next);
	for (root = 0; root < G->n && !found; root++) {
		if (colour[root] != 0)
			continue;
		sp = 0;
		stack[sp++] = root;
		colour[root] = 1;
		next[root] = 0;
		while (sp != 0 && !found) {
			unsigned int v = stack[sp - 1], w = next[v]++;

			if (w == G->n) {
				colour[v] = 2;
				sp--;
				continue;
			}
			if (!G->edge[(size_t)v * G->n + w])
				continue;
			if (colour[w] == 1)
				found = 1;
			else if (colour[w] == 0) {
				colour[w] = 1;
				next[w] = 0;
				stack[sp++] = w;
			}
		}
	}
	free(colour);
	free(stack);
	free(next);
	return (int)found;
}

/* The graph of algos (a bit each) on g, under our rule or the seed's. */
static int
cyclic(const struct geo *g, unsigned int algos, int seed_rule)
{
	struct acis_torus t;
	struct cdg G = {.g = g, .t = &t, .seed_rule = seed_rule};
	unsigned int a;
	int cyc;

	make(&t, g);
	G.n = t.nodes * 6u * ACIS_TORUS_CLASSES;
	G.edge = calloc((size_t)G.n * G.n, 1);
	assert_non_null(G.edge);
	for (a = 0; a < ACIS_TORUS_ALGOS; a++)
		if ((algos >> a) & 1)
			cdg_add(&G, (enum acis_torus_algo)a);
	cyc = cdg_cyclic(&G);
	free(G.edge);
	return cyc;
}

static void
test_no_cycle_of_waits_under_any_algorithm(void **state)
{
	static const struct geo more[] = {
		{{3, 3, 3}, 0}, {{5, 4, 1}, 0}, {{2, 2, 2}, 0},
		{{4, 4, 4}, 1}, {{6, 1, 1}, 0},
	};
	const unsigned int all = (1u << ACIS_TORUS_ALGOS) - 1;
	unsigned int i;

	(void)state;
	/* ours: every algorithm together (a class of traffic may route by
	 * its own), on the 4x4x4 torus and other shapes */
	assert_false(cyclic(&GEOS[0], all, 0));
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (cyclic(&more[i], all, 0))
			fail_msg("a cycle of waits on %ux%ux%u%s", more[i].k[0],
				 more[i].k[1], more[i].k[2],
				 more[i].mesh ? " mesh" : "");
	/* the seed's rule: right for the fixed order of DOR and RLB, a
	 * cycle once packets take the dimensions in other orders */
	assert_false(cyclic(&GEOS[0], 1u << ACIS_TORUS_DOR |
					       1u << ACIS_TORUS_RLB,
			    1));
	assert_true(cyclic(&GEOS[0], 1u << ACIS_TORUS_O1TURN, 1));
	assert_true(cyclic(&GEOS[0], 1u << ACIS_TORUS_CCAR, 1));
}

static int
route_from(const struct acis_torus *t, const uint8_t cur[3],
	   const uint8_t dst[3], unsigned int prev, const uint32_t *credits)
{
	const struct acis_torus_coord c = {{cur[0], cur[1], cur[2]}};
	const struct acis_torus_coord d = {{dst[0], dst[1], dst[2]}};
	struct acis_torus_route r = {.prev = (uint8_t)prev};

	return acis_torus_route(t, &c, &d, &r, ACIS_TORUS_CCAR, credits, NULL);
}

/* CCAR: the minimal output with most credits, never a non-minimal one
 * however many credits it has, never Y- or Z- while a dimension they
 * would shut off is left; the lowest direction on a tie, every time. */
static void
test_ccar_takes_the_legal_minimal_output_with_most_credits(void **state)
{
	static const uint8_t o[3] = {0, 0, 0}, ppp[3] = {1, 1, 1};
	static const uint8_t pmz[3] = {1, 3, 0}, zmm[3] = {0, 3, 3};
	/*                          X+  X-  Y+  Y-  Z+  Z- */
	const uint32_t zbest[6] = {5, 99, 3, 99, 9, 99};
	const uint32_t xzeq[6] = {9, 99, 3, 99, 9, 99};
	const uint32_t ybest[6] = {1, 99, 2, 50, 3, 99};
	const uint32_t zmbest[6] = {99, 99, 99, 1, 99, 50};
	const uint32_t yzeq[6] = {1, 1, 7, 1, 7, 1};
	const uint32_t none[6] = {0};
	struct acis_torus t;
	int i;

	(void)state;
	assert_int_equal(acis_torus_init(&t, 4, 4, 4, 0), 0);
	assert_int_equal(route_from(&t, o, ppp, 0, zbest), ACIS_TORUS_ZP);
	for (i = 0; i < 10; i++) {
		assert_int_equal(route_from(&t, o, ppp, 0, xzeq),
				 ACIS_TORUS_XP);
		assert_int_equal(route_from(&t, o, ppp, 0, yzeq),
				 ACIS_TORUS_YP);
		assert_int_equal(route_from(&t, o, ppp, 0, none),
				 ACIS_TORUS_XP);
		assert_int_equal(route_from(&t, o, ppp, 0, NULL),
				 ACIS_TORUS_XP);
	}
	/* to 1,3,0: X+ and Y-; Y- would forbid the X hop left */
	assert_int_equal(route_from(&t, o, pmz, 0, ybest), ACIS_TORUS_XP);
	/* to 0,3,3: Y- and Z-; Z- waits for Y */
	assert_int_equal(route_from(&t, o, zmm, 0, zmbest), ACIS_TORUS_YM);
	/* arrived moving Z+, X+ left too: Z+ to X+ is a legal turn */
	assert_int_equal(route_from(&t, o, ppp, ACIS_TORUS_ZP, zbest),
			 ACIS_TORUS_ZP);
	assert_int_equal(route_from(&t, o, ppp, ACIS_TORUS_ZP, xzeq),
			 ACIS_TORUS_XP);
	/* arrived moving Y-: only Y or Z may follow; X+ would be a
	 * forbidden turn, Y+ going back */
	assert_int_equal(route_from(&t, o, zmm, ACIS_TORUS_YM, zmbest),
			 ACIS_TORUS_YM);
}

/* A forged or broken route state is refused, never routed into a
 * forbidden turn; a packet at its destination goes LOCAL. */
static void
test_route_refuses_bad_input(void **state)
{
	const struct acis_torus_coord o = {{0, 0, 0}}, far = {{1, 2, 3}};
	const struct acis_torus_coord out = {{0, 4, 0}};
	struct acis_torus_route r = {0}, keep;
	struct acis_torus_rng rng;
	struct acis_torus t;
	unsigned int algo;

	(void)state;
	acis_torus_rng_seed(&rng, 7);
	assert_int_equal(acis_torus_init(&t, 4, 4, 4, 0), 0);
	assert_int_equal(
		acis_torus_route(&t, &out, &o, &r, ACIS_TORUS_DOR, NULL, NULL),
		-EINVAL);
	assert_int_equal(
		acis_torus_route(&t, &o, &out, &r, ACIS_TORUS_DOR, NULL, NULL),
		-EINVAL);
	assert_int_equal(acis_torus_route(&t, &o, &far, &r, 5, NULL, &rng),
			 -EINVAL);
	assert_int_equal(
		acis_torus_route(&t, &o, &far, &r, ACIS_TORUS_RMR, NULL, NULL),
		-EINVAL);
	assert_int_equal(
		acis_torus_inject(&t, &o, &far, ACIS_TORUS_O1TURN, NULL, &r),
		-EINVAL);
	assert_int_equal(
		acis_torus_inject(&t, &o, &far, ACIS_TORUS_RLB, NULL, &r),
		-EINVAL);
	assert_int_equal(
		acis_torus_inject(&t, &o, &out, ACIS_TORUS_DOR, NULL, &r),
		-EINVAL);
	r.misc = 6;
	assert_int_equal(acis_torus_route(&t, &o, &far, &r, ACIS_TORUS_O1TURN,
					  NULL, NULL),
			 -EINVAL);
	r.misc = 0;
	r.prev = 7;
	assert_int_equal(
		acis_torus_route(&t, &o, &far, &r, ACIS_TORUS_DOR, NULL, NULL),
		-EINVAL);
	/* arrived moving Y- with X still to go: every algorithm refuses */
	for (algo = 0; algo < ACIS_TORUS_ALGOS; algo++) {
		r.misc = 0;
		r.cls = 5;
		r.prev = ACIS_TORUS_YM;
		keep = r;
		assert_int_equal(
			acis_torus_route(&t, &o, &far, &r, algo, NULL, &rng),
			-EPERM);
		assert_memory_equal(&r, &keep, sizeof(r));
		assert_int_equal(
			acis_torus_route(&t, &far, &far, &r, algo, NULL, &rng),
			ACIS_TORUS_LOCAL);
	}
	/* O1TURN's ZXY for a Z- packet: refused at the forbidden turn */
	{
		const struct acis_torus_coord dst = {{1, 0, 3}}; /* X+, Z- */
		struct acis_torus_coord c = o;

		r = (struct acis_torus_route){.misc = ACIS_TORUS_ZXY};
		assert_int_equal(acis_torus_route(&t, &c, &dst, &r,
						  ACIS_TORUS_O1TURN, NULL,
						  NULL),
				 ACIS_TORUS_ZM);
		acis_torus_step(&t, &c, ACIS_TORUS_ZM);
		assert_int_equal(acis_torus_route(&t, &c, &dst, &r,
						  ACIS_TORUS_O1TURN, NULL,
						  NULL),
				 -EPERM);
	}
}

/* A walk longer than its bound is a loop; a bad node is refused. */
static void
test_path_longer_than_its_bound_is_a_loop(void **state)
{
	uint8_t dirs[8];
	struct acis_torus t;

	(void)state;
	assert_int_equal(acis_torus_init(&t, 4, 4, 4, 0), 0);
	/* 0,0,0 to 2,2,2: six hops */
	assert_int_equal(
		acis_torus_path(&t, 0, 42, ACIS_TORUS_DOR, NULL, NULL, dirs, 5),
		-ELOOP);
	assert_int_equal(
		acis_torus_path(&t, 0, 42, ACIS_TORUS_DOR, NULL, NULL, dirs, 6),
		6);
	assert_int_equal(
		acis_torus_path(&t, 0, 0, ACIS_TORUS_DOR, NULL, NULL, NULL, 1),
		0);
	assert_int_equal(
		acis_torus_path(&t, 0, 64, ACIS_TORUS_DOR, NULL, NULL, NULL, 0),
		-EINVAL);
	assert_int_equal(
		acis_torus_path(&t, 0, 1, ACIS_TORUS_RMR, NULL, NULL, NULL, 0),
		-EINVAL);
}

/* RMR: each hop a uniform draw among the minimal ways a legal turn
 * takes, Y- and Z- only once the dimensions before them are done. */
static void
test_rmr_draws_among_the_legal_minimal_ways(void **state)
{
	const struct acis_torus_coord o = {{0, 0, 0}}, ppp = {{1, 1, 1}};
	const struct acis_torus_coord pmm = {{1, 3, 3}};
	unsigned int seen[7] = {0}, n, d;
	struct acis_torus_rng rng;
	struct acis_torus t;

	(void)state;
	acis_torus_rng_seed(&rng, 8);
	assert_int_equal(acis_torus_init(&t, 4, 4, 4, 0), 0);
	for (n = 0; n < 3000; n++) {
		struct acis_torus_route r = {0};
		int h = acis_torus_route(&t, &o, &ppp, &r, ACIS_TORUS_RMR, NULL,
					 &rng);

		assert_true(h > 0);
		seen[h]++;
		/* to 1,3,3 only X+ may go first: Y- and Z- would wait */
		r = (struct acis_torus_route){0};
		assert_int_equal(acis_torus_route(&t, &o, &pmm, &r,
						  ACIS_TORUS_RMR, NULL, &rng),
				 ACIS_TORUS_XP);
	}
	for (d = 1; d <= 6; d++)
		if (d == ACIS_TORUS_XP || d == ACIS_TORUS_YP ||
		    d == ACIS_TORUS_ZP)
			assert_true(seen[d] > 850 && seen[d] < 1150);
		else
			assert_int_equal(seen[d], 0);
}

/* The same seed gives the same random paths; another seed others. */
static void
test_random_paths_repeat_with_the_seed(void **state)
{
	uint8_t a[ACIS_TORUS_PATH_MAX], b[ACIS_TORUS_PATH_MAX];
	struct acis_torus_rng r1, r2;
	struct acis_torus t;
	unsigned int dst, differ = 0;
	int h1, h2;

	(void)state;
	assert_int_equal(acis_torus_init(&t, 4, 4, 4, 0), 0);
	acis_torus_rng_seed(&r1, 11);
	acis_torus_rng_seed(&r2, 11);
	for (dst = 0; dst < 64; dst++) {
		h1 = acis_torus_path(&t, 0, dst, ACIS_TORUS_RMR, &r1, NULL, a,
				     0);
		h2 = acis_torus_path(&t, 0, dst, ACIS_TORUS_RMR, &r2, NULL, b,
				     0);
		assert_int_equal(h1, h2);
		assert_memory_equal(a, b, (size_t)h1);
	}
	acis_torus_rng_seed(&r2, 12);
	for (dst = 0; dst < 64; dst++) {
		h1 = acis_torus_path(&t, 0, dst, ACIS_TORUS_RMR, &r1, NULL, a,
				     0);
		h2 = acis_torus_path(&t, 0, dst, ACIS_TORUS_RMR, &r2, NULL, b,
				     0);
		differ += memcmp(a, b, (size_t)h1) != 0;
	}
	assert_true(differ > 0);
	acis_torus_rng_seed(&r1, 0);
	assert_true(r1.s != 0);
	for (dst = 0; dst < 1000; dst++)
		assert_true(acis_torus_rng_below(&r1, 7) < 7);
}

static int
arb(struct acis_torus_arbiter *a, const struct acis_torus_contender *c,
    unsigned int n, uint16_t now)
{
	return acis_torus_arbitrate(a, c, n, now);
}

static void
test_ff_serves_the_farthest(void **state)
{
	const struct acis_torus_contender c[] = {
		{.distance = 3, .stamp = 1, .input = 0},
		{.distance = 7, .stamp = 9, .input = 1},
		{.distance = 5, .stamp = 0, .input = 2},
	};
	struct acis_torus_arbiter a = {.policy = ACIS_TORUS_FF};

	(void)state;
	assert_int_equal(arb(&a, c, 3, 0), 1);
	assert_int_equal(a.rr, 2);
	assert_int_equal(arb(&a, c, 3, 0), 1);
	assert_int_equal(arb(&a, c, 0, 0), -ENOENT);
	a.policy = 3;
	assert_int_equal(arb(&a, c, 3, 0), -EINVAL);
}

/* Oldest first on 15-bit stamps: across the wrap, 0x7ff0 is older than
 * 0x0010; at half the range apart the smaller counts as wrapped. */
static void
test_of_serves_the_oldest_across_the_wrap(void **state)
{
	const struct acis_torus_contender c[] = {
		{.distance = 9, .stamp = 100, .input = 0},
		{.distance = 1, .stamp = 50, .input = 1},
		{.distance = 4, .stamp = 200, .input = 2},
	};
	const struct acis_torus_contender w[] = {
		{.distance = 9, .stamp = 0x0010, .input = 0},
		{.distance = 1, .stamp = 0x0100, .input = 1},
		{.distance = 4, .stamp = 0x7ff0, .input = 2},
		{.distance = 4, .stamp = 0x7000, .input = 3},
	};
	struct acis_torus_arbiter a = {.policy = ACIS_TORUS_OF};

	(void)state;
	assert_int_equal(arb(&a, c, 3, 0), 1);
	assert_int_equal(arb(&a, w, 3, 0), 2);
	assert_int_equal(arb(&a, w, 4, 0), 3);
	assert_true(acis_torus_stamp_older(0x7ff0, 0x0010));
	assert_false(acis_torus_stamp_older(0x0010, 0x7ff0));
	assert_true(acis_torus_stamp_older(0x4000, 0x0000));
	assert_false(acis_torus_stamp_older(0x0000, 0x4000));
	assert_true(acis_torus_stamp_older(0x0000, 0x3fff));
	assert_false(acis_torus_stamp_older(0x1234, 0x1234));
	/* bits above the 15 are not the stamp's */
	assert_false(acis_torus_stamp_older(0x8000 | 0x20, 0x10));
	assert_int_equal(acis_torus_stamp_age(0x0100, 0x7f00), 0x200);
}

/* Mix: farthest first, unless some packet is older than the threshold;
 * then the oldest of those. An age equal to the threshold is not over. */
static void
test_mix_serves_packets_past_the_threshold_first(void **state)
{
	const struct acis_torus_contender over[] = {
		{.distance = 9, .stamp = 4500, .input = 0}, /* age 500 */
		{.distance = 2, .stamp = 3000, .input = 1}, /* age 2000 */
		{.distance = 3, .stamp = 3900, .input = 2}, /* age 1100 */
	};
	const struct acis_torus_contender under[] = {
		{.distance = 2, .stamp = 4001, .input = 0}, /* age 999 */
		{.distance = 9, .stamp = 4500, .input = 1},
		{.distance = 3, .stamp = 4000, .input = 2}, /* age 1000 */
	};
	const struct acis_torus_contender wrap[] = {
		{.distance = 9, .stamp = 0x0080, .input = 0}, /* age 0x80 */
		{.distance = 1, .stamp = 0x7b00, .input = 1}, /* age 0x600 */
	};
	struct acis_torus_arbiter a = {.policy = ACIS_TORUS_MIX,
				       .threshold = 1000};

	(void)state;
	assert_int_equal(arb(&a, over, 3, 5000), 1);
	/* the one over the threshold beats a farther one */
	assert_int_equal(arb(&a, over, 2, 5000), 1);
	assert_int_equal(arb(&a, over + 1, 2, 5000), 0);
	assert_int_equal(arb(&a, under, 3, 5000), 1);
	assert_int_equal(arb(&a, wrap, 2, 0x0100), 1);
	a.threshold = 0x700;
	assert_int_equal(arb(&a, wrap, 2, 0x0100), 0);
}

/* Ties go round: inputs 1, 3, 5 equally far win in turn, whichever
 * order they are listed in; a clear winner moves the pointer too. */
static void
test_round_robin_tie_break_rotates(void **state)
{
	const struct acis_torus_contender c[] = {
		{.distance = 4, .stamp = 7, .input = 5},
		{.distance = 4, .stamp = 7, .input = 1},
		{.distance = 4, .stamp = 7, .input = 3},
	};
	const struct acis_torus_contender far[] = {
		{.distance = 4, .stamp = 7, .input = 1},
		{.distance = 6, .stamp = 7, .input = 4},
	};
	static const uint8_t want[] = {1, 3, 5, 1, 3, 5, 1};
	unsigned int p, i;

	(void)state;
	for (p = 0; p < ACIS_TORUS_POLICIES; p++) {
		struct acis_torus_arbiter a = {.policy = (uint8_t)p,
					       .threshold = 100};

		for (i = 0; i < sizeof(want); i++) {
			int w = arb(&a, c, 3, 20);

			assert_true(w >= 0);
			assert_int_equal(c[w].input, want[i]);
		}
		if (p == ACIS_TORUS_OF)
			continue; /* same stamps: a tie */
		assert_int_equal(far[arb(&a, far, 2, 20)].input, 4);
		assert_int_equal(a.rr, 5); /* so 5 is next among ties */
		assert_int_equal(c[arb(&a, c, 3, 20)].input, 5);
	}
}

static void
test_router_clock_at_160_mhz_and_others(void **state)
{
	(void)state;
	assert_int_equal(acis_torus_ns_to_cycles(1000, 0), 160);
	assert_int_equal(acis_torus_cycles_to_ns(160, 0), 1000);
	assert_int_equal(acis_torus_cycles_to_ns(1, 0), 6); /* 6.25 */
	assert_int_equal(acis_torus_cycles_to_ns(4, 0), 25);
	assert_int_equal(acis_torus_ns_to_cycles(6, 0), 0);
	assert_int_equal(acis_torus_ns_to_cycles(7, 0), 1);
	assert_int_equal(acis_torus_ns_to_cycles(1000, 200000000), 200);
	assert_int_equal(acis_torus_cycles_to_ns(3, 150000000), 20);
	/* an hour of cycles, no overflow on the way */
	assert_true(acis_torus_ns_to_cycles(3600000000000ull,
					    ACIS_TORUS_CLOCK_HZ) ==
		    576000000000ull);
	assert_true(acis_torus_cycles_to_ns(576000000000ull, 0) ==
		    3600000000000ull);
	assert_int_equal(acis_torus_stamp(0x12345), 0x2345);
	assert_int_equal(acis_torus_stamp(0x8000), 0);
}

static void
test_names_round_trip(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ACIS_TORUS_ALGOS; i++)
		assert_int_equal(acis_torus_algo_parse(acis_torus_algo_name(i)),
				 i);
	for (i = 0; i < ACIS_TORUS_POLICIES; i++)
		assert_int_equal(
			acis_torus_policy_parse(acis_torus_policy_name(i)), i);
	assert_int_equal(acis_torus_algo_parse("CCAR"), ACIS_TORUS_CCAR);
	assert_int_equal(acis_torus_algo_parse("xy"), -EINVAL);
	assert_int_equal(acis_torus_policy_parse(NULL), -EINVAL);
	assert_null(acis_torus_algo_name(ACIS_TORUS_ALGOS));
	assert_null(acis_torus_policy_name(ACIS_TORUS_POLICIES));
}

/* "K", "KxK", "KxKxK", each 2..64; absent dimensions 1. */
static void
test_dims_parse(void **state)
{
	uint8_t k[3];

	(void)state;
	assert_int_equal(acis_torus_dims_parse("8", k), 0);
	assert_int_equal(k[0], 8);
	assert_int_equal(k[1], 1);
	assert_int_equal(k[2], 1);
	assert_int_equal(acis_torus_dims_parse("4x2x64", k), 0);
	assert_int_equal(k[0], 4);
	assert_int_equal(k[1], 2);
	assert_int_equal(k[2], 64);
	assert_int_equal(acis_torus_dims_parse("2x2x2x2", k), -E2BIG);
	assert_int_equal(acis_torus_dims_parse("4x1", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("65", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("4x", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("x4", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("4 x4", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("", k), -EINVAL);
	assert_int_equal(acis_torus_dims_parse("-4", k), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_geometry_is_refused),
		cmocka_unit_test(
			test_nodes_and_ports_are_numbered_as_acis_fabric),
		cmocka_unit_test(
			test_steps_wrap_in_a_torus_and_stop_at_a_mesh_edge),
		cmocka_unit_test(
			test_turn_legal_forbids_the_six_turns_and_going_back),
		cmocka_unit_test(test_dor_goes_x_then_y_then_z_the_shorter_way),
		cmocka_unit_test(test_minimal_algorithms_take_a_shortest_path),
		cmocka_unit_test(test_no_algorithm_ever_makes_a_forbidden_turn),
		cmocka_unit_test(
			test_o1turn_draws_only_the_orders_legal_for_the_packet),
		cmocka_unit_test(
			test_rlb_goes_the_short_or_long_way_round_each_ring),
		cmocka_unit_test(
			test_rlb_takes_the_long_way_with_probability_p_over_n),
		cmocka_unit_test(test_dateline_crossing_sets_the_class),
		cmocka_unit_test(test_no_cycle_of_waits_under_any_algorithm),
		cmocka_unit_test(
			test_every_hop_carries_the_class_the_rule_gives),
		cmocka_unit_test(
			test_ccar_takes_the_legal_minimal_output_with_most_credits),
		cmocka_unit_test(test_route_refuses_bad_input),
		cmocka_unit_test(test_path_longer_than_its_bound_is_a_loop),
		cmocka_unit_test(test_rmr_draws_among_the_legal_minimal_ways),
		cmocka_unit_test(test_random_paths_repeat_with_the_seed),
		cmocka_unit_test(test_ff_serves_the_farthest),
		cmocka_unit_test(test_of_serves_the_oldest_across_the_wrap),
		cmocka_unit_test(
			test_mix_serves_packets_past_the_threshold_first),
		cmocka_unit_test(test_round_robin_tie_break_rotates),
		cmocka_unit_test(test_router_clock_at_160_mhz_and_others),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_dims_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
