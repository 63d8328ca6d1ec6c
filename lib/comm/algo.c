/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partners of a rank under the collective algorithms of the ACiS thesis,
 * Table 3.1, as MPICH runs them (Thakur, Rabenseifner & Gropp 2005).
 * Throughout, p2 is the largest power of two <= P and rem = P - p2.
 *
 * Binomial tree (reduce, bcast, scatter, gather), relative to root:
 *   vr = (rank - root + P) % P. The parent of vr != 0 is vr with its
 *   lowest set bit cleared; vr = 0 (the root) has none. The children of
 *   vr are vr + 2^k for every 2^k below the lowest set bit of vr (every
 *   2^k < P for vr = 0) that stays < P, listed by increasing 2^k. Ranks
 *   map back as (v + root) % P. rounds = n_children + (1 if a parent);
 *   the root has ceil(log2 P) children and the tree is floor(log2 P)
 *   deep. MPICH's bcast sends to the children in the reverse of this
 *   order; its reduce receives in this order.
 *
 * Recursive doubling (allreduce, allgather) and recursive halving
 * (reduce-scatter) share MPICH's fold for P not a power of two:
 *   round 0:  the first 2*rem ranks pair up as (2i, 2i+1): the even rank
 *             sends its data to the odd one and sits the core rounds out.
 *             The odd rank continues as core rank i; a rank r >= 2*rem
 *             continues as core rank r - rem.
 *   core:     log2(p2) rounds among the p2 core ranks. Core rank v talks
 *             to core rank v ^ d, with d = 1, 2, 4, ..., p2/2 for doubling
 *             and d = p2/2, p2/4, ..., 1 for halving. Core rank w is rank
 *             2w+1 when w < rem, else rank w + rem.
 *   last:     the odd rank of each pair sends the result back to the even
 *             one.
 *   So rounds = log2(p2), plus 2 (the fold and the unfold) when P is not
 *   a power of two; for P a power of two this is log2 P.
 *
 * For these two, peers[] is indexed by round, the same rounds for every
 * rank, so n_peers == rounds and peers[k] of a and b agree across ranks:
 * if peers[k] of a is b, then peers[k] of b is a. A rank idle in a round
 * (the even ranks during the core, ranks >= 2*rem during the fold and the
 * unfold) has ACIS_RANK_NONE there: keeping the slot is what lets a
 * caller line a round up with its partner's.
 *
 * Ring (ring allgather, reduce-scatter): peers = {left, right} =
 * {(rank-1+P)%P, (rank+1)%P}, a single peer when P = 2, none when P = 1;
 * rounds = P - 1, the steps of a ring pass.
 *
 * ACIS_A_DEFAULT is refused like an unknown algorithm: which algorithm
 * it means depends on the collective and the message size, which the
 * caller knows and this module does not.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "acis_algo.h"
#include "acis_proto.h"

/* The worst case over every uint32_t P: 32 root children (binomial) or
 * 31 core rounds plus fold and unfold (doubling, halving), so no check
 * against the array size is needed below. */
_Static_assert(ACIS_ALGO_MAX_PARTNERS >= 33,
	       "partner arrays too small for a 32-bit communicator");

/* floor(log2 x) for x >= 1. */
static inline unsigned int
log2_floor(uint32_t x)
{
	return 31u - (unsigned int)__builtin_clz(x);
}

/* Rank of core rank w of the fold (see top of file). */
static inline uint32_t
core_to_rank(uint32_t w, uint32_t rem)
{
	return w < rem ? 2 * w + 1 : w + rem;
}

static void
binomial(uint32_t P, uint32_t rank, uint32_t root, struct acis_partners *out)
{
	uint32_t vr = rank >= root ? rank - root : rank + (P - root);
	uint64_t low; /* lowest set bit of vr; the whole range for the root */
	uint64_t d;

	if (vr == 0) {
		low = (uint64_t)P;
	} else {
		low = vr & -vr;
		out->parent = (uint32_t)(((uint64_t)(vr - low) + root) % P);
		out->rounds = 1;
	}
	for (d = 1; d < low && vr + d < P; d <<= 1)
		out->children[out->n_children++] =
			(uint32_t)((vr + d + root) % P);
	out->rounds += out->n_children;
}

/* Recursive doubling (halving = 0) or halving (halving = 1). */
static void
recursive(uint32_t P, uint32_t rank, int halving, struct acis_partners *out)
{
	uint32_t p2 = 1u << log2_floor(P);
	uint32_t rem = P - p2;
	uint32_t pair = ACIS_RANK_NONE; /* fold partner */
	uint32_t core = ACIS_RANK_NONE; /* core rank, NONE if sitting out */
	unsigned int k, n_core = log2_floor(p2);

	if (rank < 2 * rem) {
		pair = rank ^ 1;
		if (rank & 1)
			core = rank / 2;
	} else {
		core = rank - rem;
	}

	if (rem != 0)
		out->peers[out->n_peers++] = pair;
	for (k = 0; k < n_core; k++) {
		uint32_t d = halving ? p2 >> (k + 1) : 1u << k;

		out->peers[out->n_peers++] =
			core == ACIS_RANK_NONE ? ACIS_RANK_NONE
					       : core_to_rank(core ^ d, rem);
	}
	if (rem != 0)
		out->peers[out->n_peers++] = pair;
	out->rounds = out->n_peers;
}

static void
ring(uint32_t P, uint32_t rank, struct acis_partners *out)
{
	uint32_t left = rank == 0 ? P - 1 : rank - 1;
	uint32_t right = rank == P - 1 ? 0 : rank + 1;

	if (P >= 2)
		out->peers[out->n_peers++] = left;
	if (P >= 3)
		out->peers[out->n_peers++] = right;
	out->rounds = P - 1;
}

int
acis_algo_partners(unsigned int algo, uint32_t P, uint32_t rank, uint32_t root,
		   struct acis_partners *out)
{
	if (out == NULL || P == 0 || rank >= P || root >= P)
		return -EINVAL;
	if (algo != ACIS_A_BINOMIAL && algo != ACIS_A_RECURSIVE_DOUBLING &&
	    algo != ACIS_A_RECURSIVE_HALVING && algo != ACIS_A_RING)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->parent = ACIS_RANK_NONE;
	switch (algo) {
	case ACIS_A_BINOMIAL:
		binomial(P, rank, root, out);
		break;
	case ACIS_A_RECURSIVE_DOUBLING:
		recursive(P, rank, 0, out);
		break;
	case ACIS_A_RECURSIVE_HALVING:
		recursive(P, rank, 1, out);
		break;
	default:
		ring(P, rank, out);
		break;
	}
	return 0;
}

/* No algorithm here names a rank as its own partner, so only the
 * ACIS_RANK_NONE of a missing parent or an idle round is left out. */
static void
add_partner(uint32_t *all, unsigned int *n, uint32_t r)
{
	if (r != ACIS_RANK_NONE)
		all[(*n)++] = r;
}

unsigned int
acis_algo_partner_set(unsigned int algo, uint32_t P, uint32_t rank,
		      uint32_t root, uint32_t *set, unsigned int max)
{
	uint32_t all[1 + 2 * ACIS_ALGO_MAX_PARTNERS];
	struct acis_partners p;
	unsigned int i, j, n = 0, u;

	if (set == NULL || acis_algo_partners(algo, P, rank, root, &p) < 0)
		return 0;

	add_partner(all, &n, p.parent);
	for (i = 0; i < p.n_children; i++)
		add_partner(all, &n, p.children[i]);
	for (i = 0; i < p.n_peers; i++)
		add_partner(all, &n, p.peers[i]);

	/* At most a few dozen entries: insertion sort beats qsort's calls. */
	for (i = 1; i < n; i++) {
		uint32_t v = all[i];

		for (j = i; j > 0 && all[j - 1] > v; j--)
			all[j] = all[j - 1];
		all[j] = v;
	}
	for (i = 0, u = 0; i < n && u < max; i++)
		if (u == 0 || all[i] != set[u - 1])
			set[u++] = all[i];
	return u;
}
