/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_algo: the collective algorithms of the ACiS thesis, Table 3.1
 * (after MPICH, Thakur et al. 2005): which ranks a rank talks to.
 *
 * A communicator table entry keeps, per algorithm, the O(log P) partner set
 * of a rank instead of the whole group (thesis section 3.3.1): with P = 8,
 * rank 0 talks to {1, 2, 4} under binomial tree, recursive doubling and
 * recursive halving alike. Ranks are communicator ranks 0..P-1; tree
 * algorithms take a root and work on ranks relative to it.
 */
#ifndef ACIS_ALGO_H
#define ACIS_ALGO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most partners any rank has: 2*ceil(log2(65536))+2 covers every
 * algorithm here (recursive doubling on a non-power-of-two adds one). */
#define ACIS_ALGO_MAX_PARTNERS 40

/** A rank's place in an algorithm. Arrays list ranks in the order the
 * algorithm visits them (round by round). */
struct acis_partners {
	uint32_t parent;        /**< tree parent, ACIS_RANK_NONE at the root
				     or for non-tree algorithms */
	uint32_t n_children;    /**< tree children */
	uint32_t children[ACIS_ALGO_MAX_PARTNERS];
	uint32_t n_peers;       /**< exchange partners, round by round */
	uint32_t peers[ACIS_ALGO_MAX_PARTNERS];
	uint32_t rounds;        /**< communication rounds for this rank */
};

/**
 * Fill *out for rank of a communicator of size P under algo (enum
 * acis_algo from acis_proto.h), with root for tree algorithms.
 * Binomial tree: parent and children (MPICH binomial, relative to root).
 * Recursive doubling: the peers exchanged with in each round; for P not
 * a power of two, the extra ranks pair with a partner first (MPICH).
 * Recursive halving: the peers of reduce-scatter by halving, round by round.
 * Ring: peers = {left, right}.
 * Returns 0, or -EINVAL for P == 0, rank >= P, root >= P or an unknown algo.
 */
int acis_algo_partners(unsigned int algo, uint32_t P, uint32_t rank,
		       uint32_t root, struct acis_partners *out);

/** The union of a rank's partners under algo as a sorted set (no
 * duplicates); returns how many were written (at most max). */
unsigned int acis_algo_partner_set(unsigned int algo, uint32_t P,
				   uint32_t rank, uint32_t root,
				   uint32_t *set, unsigned int max);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_ALGO_H */
