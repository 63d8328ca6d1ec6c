/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_algo, the partners of a rank under binomial tree,
 * recursive doubling, recursive halving and ring (thesis Table 3.1).
 *
 * Structural properties are checked over whole ranges of P (every rank,
 * every root) rather than a few cases, because the non-power-of-two fold
 * is where these algorithms go wrong and each P folds differently.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "acis_algo.h"
#include "acis_proto.h"

#define NONE ACIS_RANK_NONE
#define MAX_P 64

static const unsigned int all_algos[] = {
	ACIS_A_BINOMIAL,
	ACIS_A_RECURSIVE_DOUBLING,
	ACIS_A_RECURSIVE_HALVING,
	ACIS_A_RING,
};

static unsigned int
log2_floor(uint32_t x)
{
	unsigned int l = 0;

	while (x >>= 1)
		l++;
	return l;
}

static unsigned int
log2_ceil(uint32_t x)
{
	unsigned int l = log2_floor(x);

	return (x & (x - 1)) ? l + 1 : l;
}

static int
is_pow2(uint32_t x)
{
	return (x & (x - 1)) == 0;
}

static struct acis_partners
partners(unsigned int algo, uint32_t P, uint32_t rank, uint32_t root)
{
	struct acis_partners p;

	assert_int_equal(acis_algo_partners(algo, P, rank, root, &p), 0);
	return p;
}

static void
assert_set(unsigned int algo, uint32_t P, uint32_t rank, uint32_t root,
	   const uint32_t *want, unsigned int n_want)
{
	uint32_t set[3 * ACIS_ALGO_MAX_PARTNERS];
	unsigned int i, n;

	n = acis_algo_partner_set(algo, P, rank, root, set,
				  3 * ACIS_ALGO_MAX_PARTNERS);
	assert_int_equal(n, n_want);
	for (i = 0; i < n; i++)
		assert_int_equal(set[i], want[i]);
}

static void
test_thesis_example_binomial_rank_0_of_8_talks_to_1_2_4(void **state)
{
	static const uint32_t want[] = {1, 2, 4};

	(void)state;
	assert_set(ACIS_A_BINOMIAL, 8, 0, 0, want, 3);
}

static void
test_thesis_example_doubling_rank_0_of_8_talks_to_1_2_4(void **state)
{
	static const uint32_t want[] = {1, 2, 4};

	(void)state;
	assert_set(ACIS_A_RECURSIVE_DOUBLING, 8, 0, 0, want, 3);
}

static void
test_thesis_example_halving_rank_0_of_8_talks_to_1_2_4(void **state)
{
	static const uint32_t want[] = {1, 2, 4};

	(void)state;
	assert_set(ACIS_A_RECURSIVE_HALVING, 8, 0, 0, want, 3);
}

static void
test_binomial_children_are_listed_by_increasing_distance(void **state)
{
	struct acis_partners p;

	(void)state;
	p = partners(ACIS_A_BINOMIAL, 16, 8, 0);
	assert_int_equal(p.parent, 0);
	assert_int_equal(p.n_children, 3);
	assert_int_equal(p.children[0], 9);
	assert_int_equal(p.children[1], 10);
	assert_int_equal(p.children[2], 12);
	assert_int_equal(p.rounds, 4);
	assert_int_equal(p.n_peers, 0);
}

static void
test_binomial_tree_is_relative_to_its_root(void **state)
{
	struct acis_partners p;

	(void)state;
	/* P = 8, root 3: rank 5 is relative rank 2, child of relative 0. */
	p = partners(ACIS_A_BINOMIAL, 8, 5, 3);
	assert_int_equal(p.parent, 3);
	assert_int_equal(p.n_children, 1);
	assert_int_equal(p.children[0], 6);
	/* Relative rank 5 = rank 0: parent relative 4 = rank 7, a leaf. */
	p = partners(ACIS_A_BINOMIAL, 8, 0, 3);
	assert_int_equal(p.parent, 7);
	assert_int_equal(p.n_children, 0);
	assert_int_equal(p.rounds, 1);
}

static void
test_binomial_root_has_no_parent_and_others_exactly_one(void **state)
{
	uint32_t P, root, r;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			for (r = 0; r < P; r++) {
				struct acis_partners p =
					partners(ACIS_A_BINOMIAL, P, r, root);

				if (r == root) {
					assert_int_equal(p.parent, NONE);
					continue;
				}
				assert_true(p.parent < P);
				assert_int_not_equal(p.parent, r);
			}
}

static void
test_binomial_parent_lists_the_rank_as_a_child(void **state)
{
	uint32_t P, root, r, i;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			for (r = 0; r < P; r++) {
				struct acis_partners p =
					partners(ACIS_A_BINOMIAL, P, r, root);
				struct acis_partners q;
				unsigned int found = 0;

				if (r == root)
					continue;
				q = partners(ACIS_A_BINOMIAL, P, p.parent,
					     root);
				for (i = 0; i < q.n_children; i++)
					found += q.children[i] == r;
				assert_int_equal(found, 1);
			}
}

static void
test_binomial_children_name_the_rank_as_their_parent(void **state)
{
	uint32_t P, root, r, i;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			for (r = 0; r < P; r++) {
				struct acis_partners p =
					partners(ACIS_A_BINOMIAL, P, r, root);

				for (i = 0; i < p.n_children; i++) {
					assert_true(p.children[i] < P);
					assert_int_equal(
						partners(ACIS_A_BINOMIAL, P,
							 p.children[i], root)
							.parent,
						r);
				}
			}
}

/* Breadth-first walk of the tree from root; returns the depth (edges to
 * the deepest rank) and fails if a rank is reached twice or not at all. */
static unsigned int
binomial_bfs_depth(uint32_t P, uint32_t root)
{
	uint32_t queue[MAX_P];
	unsigned int depth[MAX_P];
	unsigned int seen[MAX_P] = {0};
	unsigned int head = 0, tail = 0, max_depth = 0, i;

	queue[tail++] = root;
	depth[root] = 0;
	seen[root] = 1;
	while (head < tail) {
		uint32_t r = queue[head++];
		struct acis_partners p = partners(ACIS_A_BINOMIAL, P, r, root);

		if (depth[r] > max_depth)
			max_depth = depth[r];
		for (i = 0; i < p.n_children; i++) {
			uint32_t c = p.children[i];

			assert_true(c < P);
			assert_int_equal(seen[c], 0);
			seen[c] = 1;
			depth[c] = depth[r] + 1;
			queue[tail++] = c;
		}
	}
	assert_int_equal(tail, P);
	return max_depth;
}

static void
test_binomial_tree_from_root_reaches_every_rank_once(void **state)
{
	uint32_t P, root;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			binomial_bfs_depth(P, root);
}

static void
test_binomial_tree_is_floor_log2_p_deep(void **state)
{
	uint32_t P, root;

	(void)state;
	/* The deepest relative rank below P is the one with the most bits
	 * set: 2^floor(log2 P) - 1, so depth is floor, not ceil, of log2 P. */
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			assert_int_equal(binomial_bfs_depth(P, root),
					 log2_floor(P));
}

static void
test_binomial_root_takes_ceil_log2_p_rounds(void **state)
{
	uint32_t P, root;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++) {
			struct acis_partners p =
				partners(ACIS_A_BINOMIAL, P, root, root);

			assert_int_equal(p.n_children, log2_ceil(P));
			assert_int_equal(p.rounds, log2_ceil(P));
		}
}

static void
test_binomial_rounds_count_children_and_parent(void **state)
{
	uint32_t P, root, r;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (root = 0; root < P; root++)
			for (r = 0; r < P; r++) {
				struct acis_partners p =
					partners(ACIS_A_BINOMIAL, P, r, root);

				assert_int_equal(p.rounds,
						 p.n_children +
							 (p.parent != NONE));
			}
}

static void
test_doubling_peers_of_r_are_r_xor_1_2_4_for_powers_of_two(void **state)
{
	uint32_t P, r, k;

	(void)state;
	for (P = 1; P <= 1024; P <<= 1)
		for (r = 0; r < P; r++) {
			struct acis_partners p =
				partners(ACIS_A_RECURSIVE_DOUBLING, P, r, 0);

			assert_int_equal(p.parent, NONE);
			assert_int_equal(p.n_children, 0);
			assert_int_equal(p.n_peers, log2_floor(P));
			for (k = 0; k < p.n_peers; k++)
				assert_int_equal(p.peers[k], r ^ (1u << k));
		}
}

static void
test_halving_peers_of_r_are_r_xor_p_2_p_4_down_to_1(void **state)
{
	uint32_t P, r, k;

	(void)state;
	for (P = 1; P <= 1024; P <<= 1)
		for (r = 0; r < P; r++) {
			struct acis_partners p =
				partners(ACIS_A_RECURSIVE_HALVING, P, r, 0);

			assert_int_equal(p.parent, NONE);
			assert_int_equal(p.n_children, 0);
			assert_int_equal(p.n_peers, log2_floor(P));
			for (k = 0; k < p.n_peers; k++)
				assert_int_equal(p.peers[k],
						 r ^ (P >> (k + 1)));
		}
}

/* Every rank has the same rounds, n_peers == rounds, and round k pairs
 * ranks: if a's peer in round k is b, b's peer in round k is a. */
static void
assert_rounds_pair_ranks(unsigned int algo)
{
	static struct acis_partners p[MAX_P];
	uint32_t P, r, k;

	for (P = 1; P <= MAX_P; P++) {
		unsigned int rounds = log2_floor(P) + (is_pow2(P) ? 0 : 2);

		for (r = 0; r < P; r++) {
			p[r] = partners(algo, P, r, 0);
			assert_int_equal(p[r].rounds, rounds);
			assert_int_equal(p[r].n_peers, rounds);
		}
		for (r = 0; r < P; r++)
			for (k = 0; k < p[r].n_peers; k++) {
				uint32_t b = p[r].peers[k];

				if (b == NONE)
					continue;
				assert_true(b < P);
				assert_int_not_equal(b, r);
				assert_int_equal(p[b].peers[k], r);
			}
	}
}

static void
test_doubling_rounds_pair_ranks_symmetrically_for_p_1_to_64(void **state)
{
	(void)state;
	assert_rounds_pair_ranks(ACIS_A_RECURSIVE_DOUBLING);
}

static void
test_halving_rounds_pair_ranks_symmetrically_for_p_1_to_64(void **state)
{
	(void)state;
	assert_rounds_pair_ranks(ACIS_A_RECURSIVE_HALVING);
}

static void
test_doubling_on_6_folds_even_ranks_into_odd_ones(void **state)
{
	struct acis_partners p;

	(void)state;
	/* p2 = 4, rem = 2: pairs (0,1) (2,3); core ranks 1, 3, 4, 5. */
	p = partners(ACIS_A_RECURSIVE_DOUBLING, 6, 0, 0);
	assert_int_equal(p.n_peers, 4);
	assert_int_equal(p.peers[0], 1);
	assert_int_equal(p.peers[1], NONE);
	assert_int_equal(p.peers[2], NONE);
	assert_int_equal(p.peers[3], 1);

	p = partners(ACIS_A_RECURSIVE_DOUBLING, 6, 1, 0);
	assert_int_equal(p.peers[0], 0);
	assert_int_equal(p.peers[1], 3);
	assert_int_equal(p.peers[2], 4);
	assert_int_equal(p.peers[3], 0);

	p = partners(ACIS_A_RECURSIVE_DOUBLING, 6, 5, 0);
	assert_int_equal(p.peers[0], NONE);
	assert_int_equal(p.peers[1], 4);
	assert_int_equal(p.peers[2], 3);
	assert_int_equal(p.peers[3], NONE);
}

static void
test_halving_on_6_runs_the_core_from_the_far_peer_in(void **state)
{
	struct acis_partners p;

	(void)state;
	p = partners(ACIS_A_RECURSIVE_HALVING, 6, 1, 0);
	assert_int_equal(p.n_peers, 4);
	assert_int_equal(p.peers[0], 0);
	assert_int_equal(p.peers[1], 4);
	assert_int_equal(p.peers[2], 3);
	assert_int_equal(p.peers[3], 0);
}

/* Each rank starts knowing itself; in every round it and its peer swap
 * all they know. Returns 1 if every rank ends up knowing every rank. */
static int
everyone_learns_everything(unsigned int algo, uint32_t P)
{
	static struct acis_partners p[MAX_P];
	uint64_t known[MAX_P], next[MAX_P];
	uint64_t all = P == 64 ? ~0ull : (1ull << P) - 1;
	uint32_t r, k;

	for (r = 0; r < P; r++) {
		p[r] = partners(algo, P, r, 0);
		known[r] = 1ull << r;
	}
	for (k = 0; k < p[0].rounds; k++) {
		for (r = 0; r < P; r++) {
			uint32_t b = p[r].peers[k];

			next[r] = known[r] | (b == NONE ? 0 : known[b]);
		}
		memcpy(known, next, P * sizeof(known[0]));
	}
	for (r = 0; r < P; r++)
		if (known[r] != all)
			return 0;
	return 1;
}

static void
test_doubling_allgather_brings_every_block_to_every_rank(void **state)
{
	uint32_t P;

	(void)state;
	for (P = 1; P <= 33; P++)
		assert_true(everyone_learns_everything(
			ACIS_A_RECURSIVE_DOUBLING, P));
}

static void
test_halving_combines_every_rank_into_every_rank(void **state)
{
	uint32_t P;

	(void)state;
	for (P = 1; P <= 33; P++)
		assert_true(everyone_learns_everything(ACIS_A_RECURSIVE_HALVING,
						       P));
}

static void
test_ring_peers_are_left_then_right(void **state)
{
	struct acis_partners p;

	(void)state;
	p = partners(ACIS_A_RING, 5, 0, 0);
	assert_int_equal(p.parent, NONE);
	assert_int_equal(p.n_children, 0);
	assert_int_equal(p.n_peers, 2);
	assert_int_equal(p.peers[0], 4);
	assert_int_equal(p.peers[1], 1);
	assert_int_equal(p.rounds, 4);

	p = partners(ACIS_A_RING, 5, 4, 0);
	assert_int_equal(p.peers[0], 3);
	assert_int_equal(p.peers[1], 0);

	p = partners(ACIS_A_RING, 5, 2, 0);
	assert_int_equal(p.peers[0], 1);
	assert_int_equal(p.peers[1], 3);
}

static void
test_ring_of_two_has_one_peer_and_of_one_none(void **state)
{
	struct acis_partners p;

	(void)state;
	p = partners(ACIS_A_RING, 2, 1, 0);
	assert_int_equal(p.n_peers, 1);
	assert_int_equal(p.peers[0], 0);
	assert_int_equal(p.rounds, 1);

	p = partners(ACIS_A_RING, 1, 0, 0);
	assert_int_equal(p.n_peers, 0);
	assert_int_equal(p.rounds, 0);
}

static void
test_ring_left_neighbour_has_the_rank_on_its_right(void **state)
{
	uint32_t P, r;

	(void)state;
	for (P = 3; P <= MAX_P; P++)
		for (r = 0; r < P; r++) {
			struct acis_partners p = partners(ACIS_A_RING, P, r, 0);
			struct acis_partners l =
				partners(ACIS_A_RING, P, p.peers[0], 0);

			assert_int_equal(l.peers[1], r);
		}
}

static void
test_partner_set_is_the_sorted_union_without_self(void **state)
{
	static const uint32_t tree[] = {0, 5, 6};
	static const uint32_t fold[] = {1};
	static const uint32_t core[] = {0, 3, 4};
	static const uint32_t ring2[] = {0};

	(void)state;
	/* Binomial P = 8, root 0, rank 4: parent 0, children 5 then 6. */
	assert_set(ACIS_A_BINOMIAL, 8, 4, 0, tree, 3);
	/* Doubling on 6: rank 0 only ever talks to 1 (twice). */
	assert_set(ACIS_A_RECURSIVE_DOUBLING, 6, 0, 0, fold, 1);
	/* Rank 1 talks to 0 twice, then 3 and 4. */
	assert_set(ACIS_A_RECURSIVE_DOUBLING, 6, 1, 0, core, 3);
	assert_set(ACIS_A_RING, 2, 1, 0, ring2, 1);
	assert_set(ACIS_A_RING, 1, 0, 0, NULL, 0);
}

static void
test_partner_set_writes_at_most_max_smallest_first(void **state)
{
	uint32_t set[4] = {7, 7, 7, 7};

	(void)state;
	/* Root of 16 partners with {1, 2, 4, 8}. */
	assert_int_equal(
		acis_algo_partner_set(ACIS_A_BINOMIAL, 16, 0, 0, set, 2), 2);
	assert_int_equal(set[0], 1);
	assert_int_equal(set[1], 2);
	assert_int_equal(set[2], 7);
	assert_int_equal(
		acis_algo_partner_set(ACIS_A_BINOMIAL, 16, 0, 0, set, 0), 0);
	assert_int_equal(set[0], 1);
}

static void
test_partner_sets_stay_within_2_ceil_log2_p_plus_2_up_to_65536(void **state)
{
	static const uint32_t sizes[] = {
		1, 2, 3, 5, 7, 8, 100, 1000, 1023, 1025, 4097, 65535, 65536,
	};
	uint32_t set[3 * ACIS_ALGO_MAX_PARTNERS];
	unsigned int s, a, i, j, n;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t P = sizes[s];
		uint32_t ranks[] = {0, 1, 2, P / 3, P / 2, P - 2, P - 1};
		unsigned int bound = 2 * log2_ceil(P) + 2;

		for (a = 0; a < sizeof(all_algos) / sizeof(all_algos[0]); a++)
			for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
				for (j = 0;
				     j < sizeof(ranks) / sizeof(ranks[0]);
				     j++) {
					uint32_t r = ranks[i] % P;
					uint32_t root = ranks[j] % P;

					n = acis_algo_partner_set(
						all_algos[a], P, r, root, set,
						3 * ACIS_ALGO_MAX_PARTNERS);
					assert_true(n <= bound);
					assert_true(n <=
						    ACIS_ALGO_MAX_PARTNERS);
				}
	}
}

static void
test_partner_sets_are_strictly_increasing_ranks_other_than_self(void **state)
{
	uint32_t set[3 * ACIS_ALGO_MAX_PARTNERS];
	uint32_t P, r;
	unsigned int a, i, n;

	(void)state;
	for (P = 1; P <= MAX_P; P++)
		for (a = 0; a < sizeof(all_algos) / sizeof(all_algos[0]); a++)
			for (r = 0; r < P; r++) {
				n = acis_algo_partner_set(
					all_algos[a], P, r, P / 2, set,
					3 * ACIS_ALGO_MAX_PARTNERS);
				for (i = 0; i < n; i++) {
					assert_true(set[i] < P);
					assert_int_not_equal(set[i], r);
					if (i > 0)
						assert_true(set[i - 1] <
							    set[i]);
				}
			}
}

static void
test_largest_communicator_fits_the_partner_arrays(void **state)
{
	uint32_t P = UINT32_MAX, set[ACIS_ALGO_MAX_PARTNERS];
	struct acis_partners p;
	unsigned int a;

	(void)state;
	p = partners(ACIS_A_BINOMIAL, P, 0, 0);
	assert_int_equal(p.n_children, 32);
	assert_int_equal(p.children[31], 1u << 31);
	/* Root P - 1 puts rank r at relative rank r + 1, so mapping the
	 * children of 2^31 back sums past UINT32_MAX before the modulo. */
	p = partners(ACIS_A_BINOMIAL, P, (1u << 31) - 1, P - 1);
	assert_int_equal(p.parent, P - 1);
	assert_int_equal(p.n_children, 31);
	assert_int_equal(p.children[0], 1u << 31);
	assert_int_equal(p.children[30], (1u << 31) + (1u << 30) - 1);
	for (a = 0; a < sizeof(all_algos) / sizeof(all_algos[0]); a++) {
		p = partners(all_algos[a], P, P - 2, 5);
		assert_true(p.n_children <= ACIS_ALGO_MAX_PARTNERS);
		assert_true(p.n_peers <= ACIS_ALGO_MAX_PARTNERS);
		assert_true(acis_algo_partner_set(all_algos[a], P, 1, 0, set,
						  ACIS_ALGO_MAX_PARTNERS) <=
			    2 * 32 + 2);
	}
	p = partners(ACIS_A_RECURSIVE_DOUBLING, P, 1, 0);
	assert_int_equal(p.n_peers, 33);
}

static void
test_invalid_arguments_return_einval(void **state)
{
	struct acis_partners p;
	unsigned int a;

	(void)state;
	for (a = 0; a < sizeof(all_algos) / sizeof(all_algos[0]); a++) {
		assert_int_equal(acis_algo_partners(all_algos[a], 0, 0, 0, &p),
				 -EINVAL);
		assert_int_equal(acis_algo_partners(all_algos[a], 4, 4, 0, &p),
				 -EINVAL);
		assert_int_equal(acis_algo_partners(all_algos[a], 4, 0, 4, &p),
				 -EINVAL);
		assert_int_equal(
			acis_algo_partners(all_algos[a], 4, 0, NONE, &p),
			-EINVAL);
		assert_int_equal(
			acis_algo_partners(all_algos[a], 4, 0, 0, NULL),
			-EINVAL);
	}
	assert_int_equal(acis_algo_partners(ACIS_A_MAX, 4, 0, 0, &p), -EINVAL);
	assert_int_equal(acis_algo_partners(0xff, 4, 0, 0, &p), -EINVAL);
}

static void
test_default_algorithm_is_left_to_the_caller_to_resolve(void **state)
{
	struct acis_partners p;

	(void)state;
	assert_int_equal(acis_algo_partners(ACIS_A_DEFAULT, 4, 0, 0, &p),
			 -EINVAL);
}

static void
test_partner_set_of_invalid_arguments_is_empty(void **state)
{
	uint32_t set[4] = {7, 7, 7, 7};

	(void)state;
	assert_int_equal(
		acis_algo_partner_set(ACIS_A_BINOMIAL, 0, 0, 0, set, 4), 0);
	assert_int_equal(
		acis_algo_partner_set(ACIS_A_BINOMIAL, 4, 4, 0, set, 4), 0);
	assert_int_equal(acis_algo_partner_set(ACIS_A_RING, 4, 0, 4, set, 4),
			 0);
	assert_int_equal(acis_algo_partner_set(ACIS_A_MAX, 4, 0, 0, set, 4), 0);
	assert_int_equal(set[0], 7);
}
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thesis_example_binomial_rank_0_of_8_talks_to_1_2_4),
		cmocka_unit_test(test_thesis_example_doubling_rank_0_of_8_talks_to_1_2_4),
		cmocka_unit_test(test_thesis_example_halving_rank_0_of_8_talks_to_1_2_4),
		cmocka_unit_test(test_binomial_children_are_listed_by_increasing_distance),
		cmocka_unit_test(test_binomial_tree_is_relative_to_its_root),
		cmocka_unit_test(test_binomial_root_has_no_parent_and_others_exactly_one),
		cmocka_unit_test(test_binomial_parent_lists_the_rank_as_a_child),
		cmocka_unit_test(test_binomial_children_name_the_rank_as_their_parent),
		cmocka_unit_test(test_binomial_tree_from_root_reaches_every_rank_once),
		cmocka_unit_test(test_binomial_tree_is_floor_log2_p_deep),
		cmocka_unit_test(test_binomial_root_takes_ceil_log2_p_rounds),
		cmocka_unit_test(test_binomial_rounds_count_children_and_parent),
		cmocka_unit_test(test_doubling_peers_of_r_are_r_xor_1_2_4_for_powers_of_two),
		cmocka_unit_test(test_halving_peers_of_r_are_r_xor_p_2_p_4_down_to_1),
		cmocka_unit_test(test_doubling_rounds_pair_ranks_symmetrically_for_p_1_to_64),
		cmocka_unit_test(test_halving_rounds_pair_ranks_symmetrically_for_p_1_to_64),
		cmocka_unit_test(test_doubling_on_6_folds_even_ranks_into_odd_ones),
		cmocka_unit_test(test_halving_on_6_runs_the_core_from_the_far_peer_in),
		cmocka_unit_test(test_doubling_allgather_brings_every_block_to_every_rank),
		cmocka_unit_test(test_halving_combines_every_rank_into_every_rank),
		cmocka_unit_test(test_ring_peers_are_left_then_right),
		cmocka_unit_test(test_ring_of_two_has_one_peer_and_of_one_none),
		cmocka_unit_test(test_ring_left_neighbour_has_the_rank_on_its_right),
		cmocka_unit_test(test_partner_set_is_the_sorted_union_without_self),
		cmocka_unit_test(test_partner_set_writes_at_most_max_smallest_first),
		cmocka_unit_test(test_partner_sets_stay_within_2_ceil_log2_p_plus_2_up_to_65536),
		cmocka_unit_test(test_partner_sets_are_strictly_increasing_ranks_other_than_self),
		cmocka_unit_test(test_largest_communicator_fits_the_partner_arrays),
		cmocka_unit_test(test_invalid_arguments_return_einval),
		cmocka_unit_test(test_default_algorithm_is_left_to_the_caller_to_resolve),
		cmocka_unit_test(test_partner_set_of_invalid_arguments_is_empty),
	};

	return cmocka_run_group_tests_name("algo", tests, NULL, NULL);
}
