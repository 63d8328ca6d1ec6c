/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/torus's traffic patterns (seed 000 Tab. 5.3, §8.2;
 * doc/torus-traffic.md). The references here (neighbours found by
 * scanning every node's coordinates, the mappings written as the seed
 * prints them) are not the library's own code. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_torus.h"

#define MAXN 512

static void
make(struct acis_torus *t, unsigned int kx, unsigned int ky, unsigned int kz,
     int mesh)
{
	assert_int_equal(acis_torus_init(t, kx, ky, kz, mesh), 0);
}

static struct acis_torus_pattern
pat(unsigned int kind)
{
	struct acis_torus_pattern p = {.kind = (uint8_t)kind};

	return p;
}

static struct acis_torus_coord
at(const struct acis_torus *t, uint32_t n)
{
	struct acis_torus_coord c;

	assert_int_equal(acis_torus_coord(t, n, &c), 0);
	return c;
}

static uint32_t
node(const struct acis_torus *t, unsigned int x, unsigned int y,
     unsigned int z)
{
	struct acis_torus_coord c = {{(uint8_t)x, (uint8_t)y, (uint8_t)z}};

	return (uint32_t)acis_torus_node(t, &c);
}

/* The signed step from a to b along a ring of k (or a line, mesh):
 * -1, 0, +1, or 2 for anything farther. */
static int
step(const struct acis_torus *t, unsigned int dim, int a, int b)
{
	int k = t->k[dim], d = b - a;

	if (d == 0)
		return 0;
	if (d == 1 || (!t->mesh && d == 1 - k))
		return 1;
	if (d == -1 || (!t->mesh && d == k - 1))
		return -1;
	return 2;
}

/* Every destination of src, in order; their count. */
static unsigned int
dests(const struct acis_torus *t, const struct acis_torus_pattern *p,
      uint32_t src, uint32_t *out)
{
	unsigned int n = acis_torus_pattern_count(t, p, src), i;

	for (i = 0; i < n; i++) {
		int d = acis_torus_pattern_dest(t, p, src, i, NULL);

		assert_true(d >= 0 && (uint32_t)d < t->nodes);
		assert_int_not_equal(d, src);
		out[i] = (uint32_t)d;
	}
	assert_int_equal(acis_torus_pattern_dest(t, p, src, n, NULL), -EINVAL);
	return n;
}

/* The place of node src's one destination. */
static struct acis_torus_coord
only(const struct acis_torus *t, const struct acis_torus_pattern *p,
     uint32_t src)
{
	uint32_t d[2];

	assert_int_equal(dests(t, p, src, d), 1);
	return at(t, d[0]);
}

/* The node reached from src by following its one destination n times. */
static uint32_t
follow(const struct acis_torus *t, const struct acis_torus_pattern *p,
       uint32_t src, unsigned int n)
{
	uint32_t d[2];

	while (n-- > 0) {
		assert_int_equal(dests(t, p, src, d), 1);
		src = d[0];
	}
	return src;
}

/* The reference set of a neighbour pattern: every node whose step in each
 * present dimension is -1, 0 or +1, and (want) NN: exactly one non-zero;
 * 3H-NN: none zero; CUBE-NN: any but all zero. Marks seen[] and returns
 * the count. A ring of 2 or less is left out of the comparisons (its +1
 * and -1 are one node). */
static unsigned int
reference(const struct acis_torus *t, unsigned int kind, uint32_t src,
	  uint8_t *seen)
{
	struct acis_torus_coord a = at(t, src);
	unsigned int n, dim, total = 0;

	memset(seen, 0, t->nodes);
	for (n = 0; n < t->nodes; n++) {
		struct acis_torus_coord b = at(t, n);
		unsigned int nonzero = 0, far = 0, present = 0;

		for (dim = 0; dim < 3; dim++) {
			int s;

			if (t->k[dim] == 1)
				continue;
			present++;
			s = step(t, dim, a.c[dim], b.c[dim]);
			far |= s == 2;
			nonzero += s != 0;
		}
		if (far || nonzero == 0)
			continue;
		if ((kind == ACIS_TORUS_PAT_NN && nonzero != 1) ||
		    (kind == ACIS_TORUS_PAT_3HNN && nonzero != present))
			continue;
		seen[n] = 1;
		total++;
	}
	return total;
}

static void
neighbours_match_reference(unsigned int kind, unsigned int kx,
			   unsigned int ky, unsigned int kz, int mesh)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(kind);
	uint32_t d[32];
	uint8_t want[MAXN], got[MAXN];
	unsigned int s, n, i;

	make(&t, kx, ky, kz, mesh);
	for (s = 0; s < t.nodes; s++) {
		n = dests(&t, &p, s, d);
		assert_int_equal(n, reference(&t, kind, s, want));
		memset(got, 0, sizeof(got));
		for (i = 0; i < n; i++) {
			assert_false(got[d[i]]); /* each once */
			got[d[i]] = 1;
			assert_true(want[d[i]]);
		}
	}
}

static void
test_nn_sends_to_the_face_neighbours_at_distance_one(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_NN);
	uint32_t d[32];
	unsigned int s, i;

	(void)state;
	neighbours_match_reference(ACIS_TORUS_PAT_NN, 4, 4, 4, 0);
	neighbours_match_reference(ACIS_TORUS_PAT_NN, 4, 4, 4, 1);
	neighbours_match_reference(ACIS_TORUS_PAT_NN, 5, 3, 1, 0);
	neighbours_match_reference(ACIS_TORUS_PAT_NN, 3, 1, 6, 1);
	neighbours_match_reference(ACIS_TORUS_PAT_NN, 8, 1, 1, 0);
	make(&t, 4, 4, 4, 0);
	for (s = 0; s < t.nodes; s++) {
		struct acis_torus_coord a = at(&t, s), b;

		assert_int_equal(dests(&t, &p, s, d), 6);
		for (i = 0; i < 6; i++) {
			b = at(&t, d[i]);
			assert_int_equal(acis_torus_distance(&t, &a, &b), 1);
		}
	}
	/* a mesh's corner has one neighbour a dimension */
	make(&t, 4, 4, 4, 1);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 0), 3);
	assert_int_equal(acis_torus_pattern_count(&t, &p, node(&t, 1, 2, 3)),
			 5);
}

static void
test_3hnn_sends_to_the_eight_true_corners(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_3HNN);
	uint32_t d[32];
	unsigned int i, found = 0;

	(void)state;
	neighbours_match_reference(ACIS_TORUS_PAT_3HNN, 4, 4, 4, 0);
	neighbours_match_reference(ACIS_TORUS_PAT_3HNN, 5, 4, 3, 1);
	neighbours_match_reference(ACIS_TORUS_PAT_3HNN, 4, 4, 1, 0);
	make(&t, 4, 4, 4, 0);
	assert_int_equal(dests(&t, &p, node(&t, 1, 1, 1), d), 8);
	/* the corner Tab. 5.3's printed list leaves out: (x-1, y-1, z+1) */
	for (i = 0; i < 8; i++)
		found += d[i] == node(&t, 0, 0, 2);
	assert_int_equal(found, 1);
	/* two dimensions: the four corners */
	make(&t, 4, 4, 1, 0);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 5), 4);
	/* a mesh's corner node has one corner */
	make(&t, 4, 4, 4, 1);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 0), 1);
}

static void
test_cubenn_covers_exactly_the_26_around(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_CUBENN);
	uint32_t s;

	(void)state;
	neighbours_match_reference(ACIS_TORUS_PAT_CUBENN, 4, 4, 4, 0);
	neighbours_match_reference(ACIS_TORUS_PAT_CUBENN, 3, 5, 4, 0);
	neighbours_match_reference(ACIS_TORUS_PAT_CUBENN, 4, 4, 4, 1);
	neighbours_match_reference(ACIS_TORUS_PAT_CUBENN, 6, 5, 1, 1);
	make(&t, 4, 4, 4, 0);
	for (s = 0; s < t.nodes; s++)
		assert_int_equal(acis_torus_pattern_count(&t, &p, s), 26);
	make(&t, 4, 4, 4, 1);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 0), 7);
	assert_int_equal(acis_torus_pattern_count(&t, &p, node(&t, 1, 1, 1)),
			 26);
	make(&t, 4, 4, 1, 0);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 0), 8);
}

/* For the symmetric patterns, j is a destination of i exactly when i is
 * one of j's: each node receives what it sends. */
static void
test_symmetric_patterns_receive_what_they_send(void **state)
{
	static const unsigned int kinds[] = {
		ACIS_TORUS_PAT_NN, ACIS_TORUS_PAT_3HNN, ACIS_TORUS_PAT_CUBENN,
		ACIS_TORUS_PAT_ALL, ACIS_TORUS_PAT_BC,
	};
	static const unsigned int geos[][4] = {
		{4, 4, 4, 0}, {4, 4, 4, 1}, {5, 3, 2, 0}, {3, 3, 3, 1},
	};
	static uint8_t edge[MAXN][MAXN];
	uint32_t d[MAXN];
	unsigned int g, k, s, i, n;

	(void)state;
	for (g = 0; g < 4; g++)
		for (k = 0; k < 5; k++) {
			struct acis_torus t;
			struct acis_torus_pattern p = pat(kinds[k]);

			make(&t, geos[g][0], geos[g][1], geos[g][2],
			     (int)geos[g][3]);
			memset(edge, 0, sizeof(edge));
			for (s = 0; s < t.nodes; s++) {
				n = dests(&t, &p, s, d);
				for (i = 0; i < n; i++)
					edge[s][d[i]]++;
			}
			for (s = 0; s < t.nodes; s++)
				for (i = 0; i < t.nodes; i++)
					assert_int_equal(edge[s][i],
							 edge[i][s]);
		}
}

static void
test_bc_complements_each_coordinate_and_undoes_itself(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_BC);
	uint32_t s;

	(void)state;
	make(&t, 4, 4, 4, 0);
	for (s = 0; s < t.nodes; s++) {
		struct acis_torus_coord a = at(&t, s), b = only(&t, &p, s);

		assert_int_equal(b.c[0], 3 - a.c[0]);
		assert_int_equal(b.c[1], 3 - a.c[1]);
		assert_int_equal(b.c[2], 3 - a.c[2]);
		assert_int_equal(follow(&t, &p, s, 2), s);
	}
	/* odd rings: the centre is its own complement, skipped */
	make(&t, 5, 5, 5, 1);
	assert_int_equal(acis_torus_pattern_count(&t, &p, node(&t, 2, 2, 2)),
			 0);
	assert_int_equal(acis_torus_pattern_dest(&t, &p, node(&t, 2, 2, 2), 0,
						 NULL), -EINVAL);
	assert_int_equal(acis_torus_pattern_count(&t, &p, node(&t, 2, 2, 1)),
			 1);
	assert_int_equal(acis_torus_pattern_check(&t, &p), 0);
}

static void
test_tran_rotates_the_coordinates_with_order_three(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_TRAN);
	uint32_t s, d[2];

	(void)state;
	make(&t, 4, 4, 4, 0);
	for (s = 0; s < t.nodes; s++) {
		struct acis_torus_coord a = at(&t, s), b;

		if (a.c[0] == a.c[1] && a.c[1] == a.c[2]) {
			/* on the diagonal: itself, skipped */
			assert_int_equal(acis_torus_pattern_count(&t, &p, s),
					 0);
			continue;
		}
		b = only(&t, &p, s);
		/* (x, y, z) -> (z, x, y) */
		assert_int_equal(b.c[0], a.c[2]);
		assert_int_equal(b.c[1], a.c[0]);
		assert_int_equal(b.c[2], a.c[1]);
		assert_int_equal(follow(&t, &p, s, 3), s);
	}
	/* two dimensions: the transpose, order two */
	make(&t, 4, 4, 1, 0);
	assert_int_equal(dests(&t, &p, node(&t, 1, 3, 0), d), 1);
	assert_int_equal(d[0], node(&t, 3, 1, 0));
	/* unequal rings: each coordinate modulo the ring it moves to */
	make(&t, 4, 2, 3, 0);
	assert_int_equal(dests(&t, &p, node(&t, 3, 1, 2), d), 1);
	assert_int_equal(d[0], node(&t, 2 % 4, 3 % 2, 1 % 3));
	/* one dimension: every node is its own transpose */
	make(&t, 8, 1, 1, 0);
	assert_int_equal(acis_torus_pattern_check(&t, &p), -ENOENT);
}

static void
test_tor_goes_half_way_less_one_round_y(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_TOR);
	uint32_t s, d[2];

	(void)state;
	make(&t, 8, 8, 8, 0);
	for (s = 0; s < t.nodes; s++) {
		struct acis_torus_coord a = at(&t, s), b = only(&t, &p, s);

		assert_int_equal(b.c[0], a.c[0]);
		assert_int_equal(b.c[1], (a.c[1] + 3) % 8);
		assert_int_equal(b.c[2], a.c[2]);
	}
	make(&t, 4, 4, 4, 0);
	assert_int_equal(dests(&t, &p, node(&t, 2, 3, 1), d), 1);
	assert_int_equal(d[0], node(&t, 2, 0, 1));
	/* no Y: along X */
	make(&t, 8, 1, 1, 0);
	assert_int_equal(dests(&t, &p, 6, d), 1);
	assert_int_equal(d[0], 1);
	/* a ring of 3: y + 0, nowhere to go */
	make(&t, 4, 3, 4, 0);
	assert_int_equal(acis_torus_pattern_check(&t, &p), -ENOENT);
}

static void
test_all_sends_to_every_other_node_once(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_ALL);
	static uint32_t d[MAXN];
	uint8_t seen[MAXN];
	uint32_t s, i;

	(void)state;
	make(&t, 4, 4, 4, 0);
	for (s = 0; s < t.nodes; s++) {
		assert_int_equal(dests(&t, &p, s, d), 63);
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 63; i++) {
			assert_false(seen[d[i]]);
			seen[d[i]] = 1;
		}
	}
}

static void
test_rot_rotates_the_index_right_by_one_bit(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_ROT);
	uint32_t s, d[2];

	(void)state;
	make(&t, 4, 4, 4, 0); /* 64 nodes, 6 bits */
	assert_int_equal(acis_torus_pattern_check(&t, &p), 0);
	for (s = 0; s < t.nodes; s++) {
		uint32_t want = (s >> 1) | ((s & 1) << 5);

		if (want == s) {
			assert_true(s == 0 || s == 63);
			assert_int_equal(acis_torus_pattern_count(&t, &p, s),
					 0);
			continue;
		}
		assert_int_equal(dests(&t, &p, s, d), 1);
		assert_int_equal(d[0], want);
	}
	/* six rotations give the node back */
	assert_int_equal(follow(&t, &p, 0x2d, 6), 0x2d);
	make(&t, 8, 2, 1, 1);
	assert_int_equal(acis_torus_pattern_check(&t, &p), 0);
	make(&t, 4, 3, 1, 0);
	assert_int_equal(acis_torus_pattern_check(&t, &p), -EDOM);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 5), 0);
}

static void
test_uniform_covers_every_other_node_never_the_source(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_UNIFORM);
	struct acis_torus_rng rng;
	unsigned int hits[64] = {0}, i;
	const unsigned int draws = 63 * 400;

	(void)state;
	make(&t, 4, 4, 4, 0);
	acis_torus_rng_seed(&rng, 7);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 9), 1);
	assert_int_equal(acis_torus_pattern_dest(&t, &p, 9, 0, NULL), -EINVAL);
	for (i = 0; i < draws; i++) {
		int d = acis_torus_pattern_dest(&t, &p, 9, 0, &rng);

		assert_true(d >= 0 && d < 64);
		hits[d]++;
	}
	assert_int_equal(hits[9], 0);
	for (i = 0; i < 64; i++)
		if (i != 9) /* 400 expected; 5 sigma is 100 */
			assert_true(hits[i] > 300 && hits[i] < 500);
}

static void
test_mcast_draws_distinct_destinations_a_message(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p;
	struct acis_torus_rng rng;
	unsigned int hits[64] = {0}, msg, i, j;
	int d[63];

	(void)state;
	make(&t, 4, 4, 4, 0);
	acis_torus_rng_seed(&rng, 11);
	assert_int_equal(acis_torus_pattern_parse("mcast:8", &p), 0);
	assert_int_equal(acis_torus_pattern_check(&t, &p), 0);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 20), 8);
	for (msg = 0; msg < 2000; msg++) {
		acis_torus_pattern_draw(&p, &rng);
		for (i = 0; i < 8; i++) {
			d[i] = acis_torus_pattern_dest(&t, &p, 20, i, NULL);
			assert_true(d[i] >= 0 && d[i] < 64 && d[i] != 20);
			for (j = 0; j < i; j++)
				assert_int_not_equal(d[i], d[j]);
			hits[d[i]]++;
		}
		assert_int_equal(acis_torus_pattern_dest(&t, &p, 20, 8, NULL),
				 -EINVAL);
	}
	/* each other node in a message with probability 8/63: 254 of the
	 * 2000 expected, 5 sigma about 75 */
	for (i = 0; i < 64; i++)
		if (i != 20)
			assert_true(hits[i] > 179 && hits[i] < 329);
	/* a fanout of every other node: all of them */
	p.fanout = 63;
	acis_torus_pattern_draw(&p, &rng);
	memset(hits, 0, sizeof(hits));
	for (i = 0; i < 63; i++)
		hits[acis_torus_pattern_dest(&t, &p, 0, i, NULL)]++;
	for (i = 1; i < 64; i++)
		assert_int_equal(hits[i], 1);
	p.fanout = 64;
	assert_int_equal(acis_torus_pattern_check(&t, &p), -ERANGE);
	p.fanout = 0;
	assert_int_equal(acis_torus_pattern_check(&t, &p), -ERANGE);
}

static void
test_random_patterns_repeat_with_the_seed(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p, q;
	struct acis_torus_rng a, b;
	unsigned int i;

	(void)state;
	make(&t, 3, 3, 3, 0);
	acis_torus_rng_seed(&a, 99);
	acis_torus_rng_seed(&b, 99);
	assert_int_equal(acis_torus_pattern_parse("uniform", &p), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(acis_torus_pattern_dest(&t, &p, 4, 0, &a),
				 acis_torus_pattern_dest(&t, &p, 4, 0, &b));
	assert_int_equal(acis_torus_pattern_parse("mcast:5", &p), 0);
	q = p;
	acis_torus_pattern_draw(&p, &a);
	acis_torus_pattern_draw(&q, &b);
	for (i = 0; i < 5; i++)
		assert_int_equal(acis_torus_pattern_dest(&t, &p, 4, i, NULL),
				 acis_torus_pattern_dest(&t, &q, 4, i, NULL));
}

static void
test_bad_input_is_refused(void **state)
{
	struct acis_torus t;
	struct acis_torus_pattern p = pat(ACIS_TORUS_PAT_NN);

	(void)state;
	make(&t, 4, 4, 4, 0);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 64), 0);
	assert_int_equal(acis_torus_pattern_dest(&t, &p, 64, 0, NULL),
			 -EINVAL);
	assert_int_equal(acis_torus_pattern_dest(&t, &p, 0, 6, NULL), -EINVAL);
	p.kind = ACIS_TORUS_PATTERNS;
	assert_int_equal(acis_torus_pattern_check(&t, &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_count(&t, &p, 0), 0);
	assert_int_equal(acis_torus_pattern_dest(&t, &p, 0, 0, NULL), -EINVAL);
}

static void
test_names_round_trip(void **state)
{
	struct acis_torus_pattern p;
	unsigned int k;

	(void)state;
	for (k = 0; k < ACIS_TORUS_PATTERNS; k++) {
		assert_int_equal(acis_torus_pattern_parse(
				 acis_torus_pattern_name(k), &p), 0);
		assert_int_equal(p.kind, k);
	}
	assert_null(acis_torus_pattern_name(ACIS_TORUS_PATTERNS));
	assert_int_equal(acis_torus_pattern_parse("CUBE-NN", &p), 0);
	assert_int_equal(p.kind, ACIS_TORUS_PAT_CUBENN);
	assert_int_equal(acis_torus_pattern_parse("mcast", &p), 0);
	assert_int_equal(p.fanout, ACIS_TORUS_MCAST_FANOUT_DEFAULT);
	assert_int_equal(acis_torus_pattern_parse("mcast:12", &p), 0);
	assert_int_equal(p.kind, ACIS_TORUS_PAT_MCAST);
	assert_int_equal(p.fanout, 12);
	assert_int_equal(acis_torus_pattern_parse("mcast:0", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("mcast:", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("mcast:-3", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("mcast:65536", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("mcast:4x", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("nn:4", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("3hnn", &p), -EINVAL);
	assert_int_equal(acis_torus_pattern_parse("", &p), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_nn_sends_to_the_face_neighbours_at_distance_one),
		cmocka_unit_test(test_3hnn_sends_to_the_eight_true_corners),
		cmocka_unit_test(test_cubenn_covers_exactly_the_26_around),
		cmocka_unit_test(
			test_symmetric_patterns_receive_what_they_send),
		cmocka_unit_test(
			test_bc_complements_each_coordinate_and_undoes_itself),
		cmocka_unit_test(
			test_tran_rotates_the_coordinates_with_order_three),
		cmocka_unit_test(test_tor_goes_half_way_less_one_round_y),
		cmocka_unit_test(test_all_sends_to_every_other_node_once),
		cmocka_unit_test(test_rot_rotates_the_index_right_by_one_bit),
		cmocka_unit_test(
			test_uniform_covers_every_other_node_never_the_source),
		cmocka_unit_test(
			test_mcast_draws_distinct_destinations_a_message),
		cmocka_unit_test(test_random_patterns_repeat_with_the_seed),
		cmocka_unit_test(test_bad_input_is_refused),
		cmocka_unit_test(test_names_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
