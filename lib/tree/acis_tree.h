/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_tree: a communicator's aggregation tree, as one switch of a fabric
 * holds it (doc/fabric.md, "Folding in the tree").
 *
 * The switch a communicator's hosts address is its root. When the
 * communicator is made, the root groups the members by the port their
 * JOIN came in on; each port that is a fabric link becomes a child: the
 * switch behind it is sent the ranks behind that link (an INSTALL), and
 * does the same on its own links. A switch's tree says, for every rank
 * of the communicator, whether it is its own member (behind a host
 * port), behind one of its children, or outside its subtree; and the
 * order it folds in (tree order): its units -- each own member, and each
 * child as one unit standing for every rank behind it -- in the order of
 * their lowest rank. The order depends on the tree alone, never on what
 * arrives first, so floating-point results are the same whatever the
 * timing.
 *
 * A switch below the root also keeps a view of the communicator that
 * the collective stage uses like its own communicators: size, rank ->
 * endpoint (every rank of its subtree; the others invalid).
 *
 * The tree table maps (root address, context id) to a tree. One writer
 * (the control path), lock-free readers (the data path): an entry is
 * fully built before it is published, and a removed one is handed to the
 * caller to destroy once no reader can hold it.
 *
 * INSTALL encoding: a CTRL INSTALL carries entries of ACIS_TREE_ENTRY_LEN
 * bytes, one per rank behind the link (acis_tree_entry_put/_get).
 *
 * Pure C: unit tests and fuzzers call it directly.
 */
#ifndef ACIS_TREE_H
#define ACIS_TREE_H

#include <stdint.h>

#include "acis_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** child_of[] values that are not a child's index. */
#define ACIS_TREE_LOCAL 0xffffffffu  /**< the switch's own member */
#define ACIS_TREE_ABSENT 0xfffffffeu /**< outside the switch's subtree */

/** A port value for a rank outside the subtree (acis_tree_build). */
#define ACIS_TREE_NO_PORT 0xffffu

/** Children a switch may have in one tree: one per fabric link. */
#define ACIS_TREE_MAX_CHILDREN 32

struct acis_tree_child {
	uint16_t port;     /**< the link it is behind */
	uint32_t leader;   /**< lowest rank behind it: its unit */
	uint32_t count;    /**< ranks behind it */
	uint32_t *ranks;   /**< [count], ascending */
	struct acis_endpoint ep; /**< the child switch (its IP and MAC:
				      results go there) */
};

struct acis_tree {
	uint32_t ctx;      /**< the communicator's context id (the root's) */
	uint32_t job;
	uint32_t size;     /**< communicator size P */
	uint32_t root_ip;  /**< the root switch (network order): what every
			        DATA of the communicator is addressed to */
	uint8_t root_mac[6];
	uint8_t is_root;
	uint32_t covered;  /**< ranks in this switch's subtree */
	uint32_t first;    /**< first unit in tree order (ACIS_RANK_NONE:
			        none) */
	uint32_t *next;    /**< [size]: the unit after unit r */
	uint32_t *child_of; /**< [size]: child index, _LOCAL or _ABSENT */
	uint32_t n_children;
	struct acis_tree_child child[ACIS_TREE_MAX_CHILDREN];
	/** where partials go (below the root): the parent's port and MAC,
	 * the root's IP and UDP port */
	struct acis_endpoint up;
	/** below the root: the communicator as the collective stage sees it
	 * (rank r -> endpoint r; ranks outside the subtree invalid) */
	struct acis_job job_view;
	struct acis_comm comm_view;
	struct acis_tree *hnext; /**< the table's chain */
};

/**
 * Build the tree of a communicator of size P at one switch: port[r] is
 * the switch port rank r is behind (ACIS_TREE_NO_PORT: outside this
 * switch's subtree); links has bit p set for each port p that is a
 * fabric link whose switch folds (a child). With eps non-NULL (below the
 * root), eps[r] are the endpoints of the subtree's ranks and the tree
 * keeps a copy as its communicator view. NULL on bad arguments (P 0,
 * more than ACIS_TREE_MAX_CHILDREN children, a port above 63 in links)
 * or no memory.
 */
struct acis_tree *acis_tree_build(uint32_t ctx, uint32_t job, uint32_t size,
				  const uint16_t *port, uint64_t links,
				  const struct acis_endpoint *eps);
void acis_tree_free(struct acis_tree *t);

/** The unit rank r belongs to (itself if local; its child's leader),
 * or ACIS_RANK_NONE outside the subtree. */
static inline uint32_t
acis_tree_unit(const struct acis_tree *t, uint32_t r)
{
	uint32_t k = t->child_of[r];

	if (k == ACIS_TREE_LOCAL)
		return r;
	if (k == ACIS_TREE_ABSENT)
		return ACIS_RANK_NONE;
	return t->child[k].leader;
}

/** Whether rank r heads a unit (an own member or a child's leader). */
static inline int
acis_tree_is_unit(const struct acis_tree *t, uint32_t r)
{
	return r < t->size && acis_tree_unit(t, r) == r;
}

/** Units in this tree (own members plus children). */
uint32_t acis_tree_units(const struct acis_tree *t);

/* ---- INSTALL entries --------------------------------------------- */

/** Bytes of one entry: rank (LE32), IPv4 and UDP port (network order),
 * MAC, cookie, 2 reserved. */
#define ACIS_TREE_ENTRY_LEN 24u

void acis_tree_entry_put(uint8_t *p, uint32_t rank,
			 const struct acis_endpoint *ep);
/** Decode an entry: its rank, and *ep (valid, port 0). */
uint32_t acis_tree_entry_get(const uint8_t *p, struct acis_endpoint *ep);

/* ---- the table ---------------------------------------------------- */

struct acis_tree_table;

/** A table of at most max trees; NULL on max 0 or no memory. */
struct acis_tree_table *acis_tree_table_create(uint32_t max);
/** Frees the table and every tree in it (no reader may remain). */
void acis_tree_table_free(struct acis_tree_table *tt);

/** Data path: the tree of (root_ip, ctx), or NULL. */
const struct acis_tree *acis_tree_find(const struct acis_tree_table *tt,
				       uint32_t root_ip, uint32_t ctx);
/** Publish t (keyed by its root_ip and ctx). -EEXIST if the key has a
 * tree, -ENOSPC when the table holds max. */
int acis_tree_add(struct acis_tree_table *tt, struct acis_tree *t);
/** Unpublish the tree of (root_ip, ctx) and return it for the caller to
 * free once no reader can hold it; NULL if none. */
struct acis_tree *acis_tree_remove(struct acis_tree_table *tt,
				   uint32_t root_ip, uint32_t ctx);
/** Trees in the table. */
uint32_t acis_tree_count(const struct acis_tree_table *tt);
/** Visit every tree (control path only). */
void acis_tree_foreach(const struct acis_tree_table *tt,
		       void (*cb)(const struct acis_tree *, void *),
		       void *arg);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_TREE_H */
