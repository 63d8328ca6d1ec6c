/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_torus: routing and output arbitration of a torus or mesh node
 * (seed 000, Chen Yang's FCC router, §5.2; doc/torus.md).
 *
 * A k-ary n-cube (n = 1 to 3, each k up to 64) with or without its wrap
 * links; the six directions numbered as acis-fabric torus numbers a
 * switch's ports; the five routing algorithms (DOR, O1TURN, RMR, RLB,
 * CCAR) with the dateline classes and the six forbidden turns that keep
 * them free of deadlock; the three arbitration policies (farthest
 * first, oldest first, mix) with a round-robin tie-break; and a virtual
 * router clock.
 *
 * Pure C, no allocation: the route state a packet carries is three
 * bytes, and routing one hop is a few compares.
 */
#ifndef ACIS_TORUS_H
#define ACIS_TORUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Dimensions at most. */
#define ACIS_TORUS_DIMS 3
/** Largest ring (or line) in one dimension. */
#define ACIS_TORUS_MAX_K 64
/** Network ports of a node: X+ X- Y+ Y- Z+ Z-. */
#define ACIS_TORUS_PORTS 6
/** Longest path any algorithm takes: k - 1 hops in each dimension. */
#define ACIS_TORUS_PATH_MAX (ACIS_TORUS_DIMS * (ACIS_TORUS_MAX_K - 1))

/**
 * Where a packet goes from a node. The value is the switch port of
 * acis-fabric torus: p0 the host's, p1 X+ ... p6 Z-. Direction d > 0
 * moves in dimension (d - 1) / 2, negatively when d is even.
 */
enum acis_torus_dir {
	ACIS_TORUS_LOCAL = 0, /**< eject to the host (p0); before injection,
				   the previous direction */
	ACIS_TORUS_XP = 1,
	ACIS_TORUS_XM = 2,
	ACIS_TORUS_YP = 3,
	ACIS_TORUS_YM = 4,
	ACIS_TORUS_ZP = 5,
	ACIS_TORUS_ZM = 6,
};

/** The dimension (0 X, 1 Y, 2 Z) direction d (not LOCAL) moves in. */
static inline unsigned int
acis_torus_dir_dim(unsigned int d)
{
	return (d - 1) / 2;
}

/** Whether direction d (not LOCAL) is a negative one. */
static inline unsigned int
acis_torus_dir_neg(unsigned int d)
{
	return (d - 1) & 1;
}

/** The direction along dimension dim, negative if neg. */
static inline unsigned int
acis_torus_dir_make(unsigned int dim, unsigned int neg)
{
	return 1 + 2 * dim + (neg ? 1 : 0);
}

/**
 * The opposite of direction d (not LOCAL). A packet that left a node
 * through d arrives on the next node's opposite port, so a switch knows
 * a packet's previous direction from its arrival port p:
 * acis_torus_dir_opposite(p).
 */
static inline unsigned int
acis_torus_dir_opposite(unsigned int d)
{
	return ((d - 1) ^ 1) + 1;
}

/** A torus or mesh. Made by acis_torus_init(); read-only after. */
struct acis_torus {
	uint8_t k[ACIS_TORUS_DIMS]; /**< nodes along X, Y, Z; 1 = absent */
	uint8_t mesh;		    /**< no wrap links, no dateline */
	uint8_t ndims;		    /**< dimensions with k > 1 */
	uint32_t nodes;		    /**< kx * ky * kz */
};

/** A node's place: c[0] = x, c[1] = y, c[2] = z; 0 where absent. */
struct acis_torus_coord {
	uint8_t c[ACIS_TORUS_DIMS];
};

/**
 * Make a kx x ky x kz torus (mesh != 0: a mesh). A dimension of size 1
 * is absent; at least one must be 2 or more.
 *
 * @return 0, or -EINVAL if a size is 0 or above ACIS_TORUS_MAX_K, or
 *   all are 1.
 */
int acis_torus_init(struct acis_torus *t, unsigned int kx, unsigned int ky,
		    unsigned int kz, int mesh);

/**
 * Read dimensions "K", "KxK" or "KxKxK" (each K from 2 to
 * ACIS_TORUS_MAX_K) into k, absent ones 1: the form of pipelines,
 * topologies and acis-fabric torus.
 * @return 0, -E2BIG for more than three, or -EINVAL.
 */
int acis_torus_dims_parse(const char *s, uint8_t k[ACIS_TORUS_DIMS]);

/** Whether c lies in t. */
static inline int
acis_torus_coord_valid(const struct acis_torus *t,
		       const struct acis_torus_coord *c)
{
	return c->c[0] < t->k[0] && c->c[1] < t->k[1] && c->c[2] < t->k[2];
}

/**
 * The index of the node at c: x + kx * (y + ky * z), acis-fabric's
 * numbering of switches.
 *
 * @return the index, or -EINVAL if c is outside t.
 */
int acis_torus_node(const struct acis_torus *t,
		    const struct acis_torus_coord *c);

/** The place of node index node. @return 0, or -EINVAL if out of t. */
int acis_torus_coord(const struct acis_torus *t, uint32_t node,
		     struct acis_torus_coord *c);

/**
 * Move c one hop along d.
 *
 * @return 0, or -ENETUNREACH if no link leaves c that way (an absent
 *   dimension, a mesh's edge, or d LOCAL or unknown).
 */
int acis_torus_step(const struct acis_torus *t, struct acis_torus_coord *c,
		    unsigned int d);

/** Hops of the shortest path from a to b (the sum over dimensions of
 * the shorter way round a ring, or along a line in a mesh). */
unsigned int acis_torus_distance(const struct acis_torus *t,
				 const struct acis_torus_coord *a,
				 const struct acis_torus_coord *b);

/* ---- routing ---- */

enum acis_torus_algo {
	ACIS_TORUS_DOR = 0,    /**< X, then Y, then Z; the shorter way */
	ACIS_TORUS_O1TURN = 1, /**< a dimension order drawn at injection */
	ACIS_TORUS_RMR = 2,    /**< a random minimal direction each hop */
	ACIS_TORUS_RLB = 3,    /**< each ring's way drawn at injection,
				    the long way with probability P/N */
	ACIS_TORUS_CCAR = 4,   /**< the minimal output with most credits */
};
#define ACIS_TORUS_ALGOS 5

/** O1TURN's orders, the value of its misc field. */
enum acis_torus_order {
	ACIS_TORUS_XYZ = 0,
	ACIS_TORUS_XZY = 1,
	ACIS_TORUS_YXZ = 2,
	ACIS_TORUS_YZX = 3,
	ACIS_TORUS_ZXY = 4,
	ACIS_TORUS_ZYX = 5,
};
#define ACIS_TORUS_ORDERS 6

/**
 * What a packet carries for routing (seed 000 §5.2.1 and §5.2.4). The
 * misc and class fields are the header's; prev need not travel (see
 * acis_torus_dir_opposite()).
 */
struct acis_torus_route {
	/** 3 bits. O1TURN: enum acis_torus_order. RLB: bit i set = go the
	 * negative way in dimension i. Others: 0. */
	uint8_t misc;
	/** 3 bits, bit i the dateline class in dimension i. */
	uint8_t cls;
	/** The direction of the last hop; LOCAL before the first. */
	uint8_t prev;
};

/** A small PRNG (xorshift64*) the caller owns, so runs repeat. */
struct acis_torus_rng {
	uint64_t s;
};

/** Seed r; every seed, 0 included, gives a usable state. */
void acis_torus_rng_seed(struct acis_torus_rng *r, uint64_t seed);
/** The next 32 random bits. */
uint32_t acis_torus_rng_next(struct acis_torus_rng *r);
/** A number from 0 to n - 1 (n from 1 to 2^16; bias below 2^-16). */
uint32_t acis_torus_rng_below(struct acis_torus_rng *r, uint32_t n);

/**
 * Begin a packet's route from src to dst: the choices made once at the
 * source (O1TURN's order, drawn among the orders that make no forbidden
 * turn for this packet; RLB's way round each ring) into r->misc, the
 * classes cleared, r->prev LOCAL.
 *
 * @param rng needed by O1TURN and RLB; may be NULL for the others.
 * @return 0, or -EINVAL (a place outside t, an unknown algo, no rng).
 */
int acis_torus_inject(const struct acis_torus *t,
		      const struct acis_torus_coord *src,
		      const struct acis_torus_coord *dst,
		      enum acis_torus_algo algo, struct acis_torus_rng *rng,
		      struct acis_torus_route *r);

/**
 * Route one hop: the direction a packet at cur bound for dst leaves by,
 * LOCAL once there. For a network direction r is updated for the hop:
 * prev set to it, and its dimension's class set when the hop turns into
 * that dimension (0 for +, 1 for -) and flipped when it crosses the
 * dateline (the wrap link between node k - 1 and node 0; none in a
 * mesh). So r->cls after the call is the class the packet has at the
 * next node.
 *
 * @param credits free credits of each output, credits[d - 1] for
 *   direction d; read by CCAR only, NULL counts them all equal.
 * @param rng needed by RMR; may be NULL for the others.
 * @return the direction, or -EINVAL (a place outside t, an unknown
 *   algo or misc value, no rng), or -EPERM if the route state allows no
 *   legal move (a forged state: the turn from r->prev would be
 *   forbidden); r is then unchanged.
 */
int acis_torus_route(const struct acis_torus *t,
		     const struct acis_torus_coord *cur,
		     const struct acis_torus_coord *dst,
		     struct acis_torus_route *r, enum acis_torus_algo algo,
		     const uint32_t *credits, struct acis_torus_rng *rng);

/**
 * Whether a packet that arrived moving in direction a may leave in
 * direction b. Forbidden: the six turns Y- to X+/X-, Z- to X+/X-, Z- to
 * Y+/Y- (seed 000 §5.2.4), and going back the way it came (b the
 * opposite of a). From or to LOCAL is always legal.
 */
int acis_torus_turn_legal(unsigned int a, unsigned int b);

/**
 * The class bits a packet at cur with route state r would have after
 * leaving through direction d (not LOCAL): what acis_torus_route()
 * stores, for a switch that needs a class's credits before it routes.
 */
uint8_t acis_torus_class_after(const struct acis_torus *t,
			       const struct acis_torus_coord *cur,
			       const struct acis_torus_route *r,
			       unsigned int d);

/**
 * Hops left on a packet's route from cur to dst: the shortest distance,
 * or for RLB in a torus the length of the ways r->misc chose. Farthest
 * first arbitrates on it.
 */
unsigned int acis_torus_hops_left(const struct acis_torus *t,
				  const struct acis_torus_coord *cur,
				  const struct acis_torus_coord *dst,
				  const struct acis_torus_route *r,
				  enum acis_torus_algo algo);

/**
 * Walk a packet from node src to node dst: inject, then route hop by
 * hop with the same credits at every node, as a tool or a test would.
 *
 * @param dirs if not NULL, receives the direction of each hop; room
 *   for max_hops entries.
 * @param max_hops the most hops allowed before the walk counts as a
 *   loop; 0 means the longest path of t (k - 1 a dimension), and
 *   dirs then needs room for ACIS_TORUS_PATH_MAX.
 * @return the hop count, or -ELOOP past max_hops, or a negative errno
 *   of acis_torus_inject() or acis_torus_route(), or -ENETUNREACH if a
 *   hop left by a port with no link.
 */
int acis_torus_path(const struct acis_torus *t, uint32_t src, uint32_t dst,
		    enum acis_torus_algo algo, struct acis_torus_rng *rng,
		    const uint32_t *credits, uint8_t *dirs,
		    unsigned int max_hops);

/** "dor", "o1turn", "rmr", "rlb", "ccar"; NULL for another value. */
const char *acis_torus_algo_name(enum acis_torus_algo algo);
/** The algorithm named s (as acis_torus_algo_name() spells it, any
 * case). @return it, or -EINVAL. */
int acis_torus_algo_parse(const char *s);

/* ---- output arbitration ---- */

/** Bits of an injection timestamp (P = 15, seed 000 §5.2.3). */
#define ACIS_TORUS_STAMP_BITS 15
#define ACIS_TORUS_STAMP_MASK ((1u << ACIS_TORUS_STAMP_BITS) - 1)

enum acis_torus_policy {
	ACIS_TORUS_FF = 0,  /**< farthest first: most hops left wins */
	ACIS_TORUS_OF = 1,  /**< oldest first: earliest timestamp wins */
	ACIS_TORUS_MIX = 2, /**< FF, but packets older than a threshold
				 first, the oldest of them */
};
#define ACIS_TORUS_POLICIES 3

/** A packet asking for an output. */
struct acis_torus_contender {
	uint16_t distance; /**< hops left (acis_torus_hops_left()) */
	uint16_t stamp;	   /**< injection time, in P-bit cycles */
	uint8_t input;	   /**< the port it waits at: the round-robin key */
};

/** One output's arbiter. Zero it, then set policy and threshold. */
struct acis_torus_arbiter {
	uint8_t policy;	    /**< enum acis_torus_policy */
	uint8_t rr;	    /**< the input favoured in a tie; moves past
				 each winner */
	uint16_t threshold; /**< MIX: an age above it wins first */
};

/**
 * Whether timestamp a is older than b, P = 15 bits wrapping: when they
 * differ by half the range (2^14) or more, the smaller has wrapped and
 * is the newer (the seed's extra MSB). Neither when they are equal.
 */
static inline int
acis_torus_stamp_older(uint16_t a, uint16_t b)
{
	uint16_t d;

	a &= ACIS_TORUS_STAMP_MASK;
	b &= ACIS_TORUS_STAMP_MASK;
	d = a > b ? a - b : b - a;
	if (d >= 1u << (ACIS_TORUS_STAMP_BITS - 1))
		return a > b;
	return a < b;
}

/** The age at now of a packet stamped stamp, modulo 2^15. */
static inline uint16_t
acis_torus_stamp_age(uint16_t now, uint16_t stamp)
{
	return (uint16_t)((now - stamp) & ACIS_TORUS_STAMP_MASK);
}

/**
 * Choose which of the n contenders c[0..n) an output serves. Ties go to
 * the first input at or after a->rr in cyclic order; a->rr then moves
 * past the winner's input.
 *
 * @param now the time, in the stamps' cycles (MIX's ages).
 * @return the winner's index in c, or -ENOENT if n is 0, or -EINVAL for
 *   an unknown policy.
 */
int acis_torus_arbitrate(struct acis_torus_arbiter *a,
			 const struct acis_torus_contender *c, unsigned int n,
			 uint16_t now);

/** "ff", "of", "mix"; NULL for another value. */
const char *acis_torus_policy_name(enum acis_torus_policy p);
/** The policy named s (any case). @return it, or -EINVAL. */
int acis_torus_policy_parse(const char *s);

/* ---- the virtual router clock ---- */

/** The router clock when none is given: 160 MHz, 6.25 ns a cycle. */
#define ACIS_TORUS_CLOCK_HZ 160000000u

/** Whole router cycles elapsed in ns nanoseconds at hz (0: the
 * default clock). */
uint64_t acis_torus_ns_to_cycles(uint64_t ns, uint32_t hz);
/** Nanoseconds (rounded down) that cycles router cycles take at hz
 * (0: the default clock). */
uint64_t acis_torus_cycles_to_ns(uint64_t cycles, uint32_t hz);

/** The P-bit timestamp of a time in router cycles. */
static inline uint16_t
acis_torus_stamp(uint64_t cycles)
{
	return (uint16_t)(cycles & ACIS_TORUS_STAMP_MASK);
}

#ifdef __cplusplus
}
#endif

#endif /* ACIS_TORUS_H */
