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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	/** 3 bits, bit i set once the packet has crossed dimension i's
	 * dateline; its class is their count (acis_torus_class_of()). */
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
 * prev set to it, and its dimension's bit of r->cls set when the hop
 * crosses the dateline (the wrap link between node k - 1 and node 0;
 * none in a mesh). So r->cls after the call holds the class bits the
 * packet has at the next node.
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

/* ---- the router's buffers (virtual cut-through, seed 000 §5.5) ---- */

/**
 * Classes of a link: a packet's class is the number of datelines it has
 * crossed, 0 to 3 (doc/torus.md, "Dateline classes"). Classes only
 * rise along a route, and within one class no packet crosses a
 * dateline, so a cycle of waits would have to close inside the mesh
 * the torus is without its wrap links, where the six forbidden turns
 * leave none: no deadlock for any of the five algorithms, whatever the
 * order of dimensions a packet takes.
 */
#define ACIS_TORUS_CLASSES 4

/** The class of a packet whose route state holds class bits cls. */
static inline unsigned int
acis_torus_class_of(uint8_t cls)
{
	return (unsigned int)__builtin_popcount(cls & 7u);
}
/** Frames a class may hold in one input of a router, at most. */
#define ACIS_TORUS_SLOTS_MAX 16
/** ... when a pipeline does not say. */
#define ACIS_TORUS_SLOTS_DEFAULT 8
/** Mix's age threshold when a pipeline does not say, router cycles. */
#define ACIS_TORUS_MIX_AGE_DEFAULT 4096
/** Credit back period when a pipeline does not say, router cycles
 * (seed 000 §5.6.4: 9 cycles). */
#define ACIS_TORUS_CBP_DEFAULT 9
/** A router's progress watchdog when a pipeline does not say. */
#define ACIS_TORUS_WATCHDOG_MS_DEFAULT 2000

/** "ff", "of", "mix"; NULL for another value. */
const char *acis_torus_policy_name(enum acis_torus_policy p);
/** The policy named s (any case). @return it, or -EINVAL. */
int acis_torus_policy_parse(const char *s);

/* ---- traffic patterns (seed 000 Tab. 5.3, §8.2) ---- */

/**
 * Where each node sends, as the seed's experiments do. The neighbour
 * patterns step over the dimensions present (k > 1): n = 1 to 3 of them;
 * a mesh has no neighbour past its edge. The others are computed modulo
 * each ring's size. A destination equal to the source is skipped, so a
 * node may have fewer destinations than the pattern lists.
 */
enum acis_torus_pattern_kind {
	ACIS_TORUS_PAT_NN = 0,      /**< the 2n face neighbours */
	ACIS_TORUS_PAT_3HNN = 1,    /**< the 2^n corners: +-1 in every
				         dimension */
	ACIS_TORUS_PAT_CUBENN = 2,  /**< the 3^n - 1 around: the cube */
	ACIS_TORUS_PAT_BC = 3,      /**< bit complement: k - 1 - c in each
				         dimension */
	ACIS_TORUS_PAT_TRAN = 4,    /**< transpose: (x,y,z) to (z,x,y), the
				         present coordinates rotated, each
				         modulo its new ring */
	ACIS_TORUS_PAT_TOR = 5,     /**< tornado: (x, y + ky/2 - 1, z); along
				         X when Y is absent */
	ACIS_TORUS_PAT_ALL = 6,     /**< every other node */
	ACIS_TORUS_PAT_ROT = 7,     /**< bit rotation: the node index rotated
				         right by one bit over log2(N) bits
				         (N a power of two) */
	ACIS_TORUS_PAT_UNIFORM = 8, /**< a random other node each packet */
	ACIS_TORUS_PAT_MCAST = 9,   /**< a random set of fanout other nodes
				         a message, as unicasts */
};
#define ACIS_TORUS_PATTERNS 10
/** Random multicast's fanout when its name gives none. */
#define ACIS_TORUS_MCAST_FANOUT_DEFAULT 8

/** A pattern, and for random multicast its message being sent. */
struct acis_torus_pattern {
	uint8_t kind;    /**< enum acis_torus_pattern_kind */
	uint16_t fanout; /**< MCAST: destinations a message (M) */
	uint64_t key;    /**< MCAST: the current message's draw
			      (acis_torus_pattern_draw()) */
};

/**
 * Whether p gives t's nodes something to do.
 *
 * @return 0; -EDOM for ROT when t's node count is not a power of two;
 *   -ERANGE for MCAST when fanout is 0 or above the other nodes;
 *   -ENOENT when no node has a destination (TRAN with one dimension,
 *   TOR on a ring of fewer than 4); -EINVAL for an unknown kind.
 */
int acis_torus_pattern_check(const struct acis_torus *t,
			     const struct acis_torus_pattern *p);

/** Destinations of node src (a message's, for MCAST; 1 for UNIFORM);
 * 0 for a node outside t or an unknown kind. */
unsigned int acis_torus_pattern_count(const struct acis_torus *t,
				      const struct acis_torus_pattern *p,
				      uint32_t src);

/**
 * The i-th destination of node src, i below
 * acis_torus_pattern_count(). UNIFORM draws from rng at each call; MCAST
 * gives the i-th of the message p->key chose (distinct for distinct i);
 * the others are fixed.
 *
 * @return the node index, or -EINVAL (i out of range, src outside t, no
 *   rng for UNIFORM).
 */
int acis_torus_pattern_dest(const struct acis_torus *t,
			    const struct acis_torus_pattern *p, uint32_t src,
			    unsigned int i, struct acis_torus_rng *rng);

/** Begin a new message: MCAST draws its set from rng into p->key; the
 * other kinds are left as they are. */
void acis_torus_pattern_draw(struct acis_torus_pattern *p,
			     struct acis_torus_rng *rng);

/** Whether p's destinations are drawn at random (UNIFORM, MCAST). */
static inline int
acis_torus_pattern_random(const struct acis_torus_pattern *p)
{
	return p->kind == ACIS_TORUS_PAT_UNIFORM ||
	       p->kind == ACIS_TORUS_PAT_MCAST;
}

/** "nn", "3h-nn", "cube-nn", "bc", "tran", "tor", "all", "rot",
 * "uniform", "mcast"; NULL for another value. */
const char *acis_torus_pattern_name(enum acis_torus_pattern_kind kind);

/**
 * The pattern named s, any case: a name as acis_torus_pattern_name()
 * spells it, or "mcast:M" for a fanout of M (1 to 65535; bare "mcast":
 * ACIS_TORUS_MCAST_FANOUT_DEFAULT). p->key is cleared.
 *
 * @return 0, or -EINVAL.
 */
int acis_torus_pattern_parse(const char *s, struct acis_torus_pattern *p);

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

/* ---- table routing (seed 000 §8.1; doc/torus-tables.md) ---- */

/** Entries of each kind (unicast, multicast, reduction) a node holds;
 * an index at or above it is refused. */
#define ACIS_TORUS_TABLE_SIZE 4096
/** Outputs of a multicast entry, at most: six ports, LOCAL among them. */
#define ACIS_TORUS_MCAST_CHILDREN 6
/** Arrivals a reduction entry may expect: six ports and the node's own
 * contribution (Fig. 8.2(c)'s 3-bit count). */
#define ACIS_TORUS_REDUCE_EXPECT_MAX 7
/** Room for a table parser's or walker's message. */
#define ACIS_TORUS_TABLE_ERR_LEN 512

/** The bit of direction d (not LOCAL) in a 6-bit mask of ports. */
#define ACIS_TORUS_DIR_BIT(d) (1u << ((d) - 1))

/** The table a packet is looked up in: Fig. 8.2(a)'s type field. */
enum acis_torus_ptype {
	ACIS_TORUS_PKT_UNICAST = 1,
	ACIS_TORUS_PKT_MULTICAST = 2,
	ACIS_TORUS_PKT_REDUCE = 3,
};

/**
 * The 32-bit header of a table-routed packet (Fig. 8.2(a)): [31:28]
 * type, [27:24] the port it left by, [23:8] its index in the next
 * node's table of that type, [7:0] priority.
 */
struct acis_torus_thdr {
	uint8_t type;  /**< enum acis_torus_ptype */
	uint8_t port;  /**< exit port; LOCAL: ejected here */
	uint16_t next; /**< table index at the node it goes to */
	uint8_t prio;  /**< farthest first: hops to its farthest eject */
};

/** The header h as a 32-bit word (type and port cut to 4 bits). */
static inline uint32_t
acis_torus_thdr_encode(const struct acis_torus_thdr *h)
{
	return (uint32_t)(h->type & 0xfu) << 28 |
	       (uint32_t)(h->port & 0xfu) << 24 | (uint32_t)h->next << 8 |
	       h->prio;
}

/** The fields of a 32-bit header word w. */
static inline void
acis_torus_thdr_decode(uint32_t w, struct acis_torus_thdr *h)
{
	h->type = (uint8_t)(w >> 28);
	h->port = (uint8_t)((w >> 24) & 0xfu);
	h->next = (uint16_t)(w >> 8);
	h->prio = (uint8_t)w;
}

/** A unicast entry: Fig. 8.2(a), the header the packet leaves with. */
struct acis_torus_uentry {
	uint8_t valid;
	uint8_t type; /**< UNICAST or MULTICAST: the next node's table */
	uint8_t port; /**< LOCAL: eject (type, next unused) */
	uint8_t prio;
	uint16_t next; /**< index in that table */
};

/** One output of a multicast entry. */
struct acis_torus_child {
	uint8_t port;  /**< LOCAL: eject a copy here (type, next unused) */
	uint8_t type;  /**< UNICAST or MULTICAST: the next node's table */
	uint16_t next; /**< index in that table */
};

/** A multicast entry: n copies (0: the entry is not set). */
struct acis_torus_mentry {
	uint8_t n;
	struct acis_torus_child c[ACIS_TORUS_MCAST_CHILDREN];
};

/**
 * A reduction entry: once expect packets have arrived (the children's
 * and, for a member, its own host's through LOCAL), one combined packet
 * leaves by port (LOCAL at the root: ejected to its host) into the next
 * node's reduction entry next. expect 0: the entry is not set.
 */
struct acis_torus_rentry {
	uint8_t expect;
	uint8_t port;
	uint16_t next;
};

/** One node's tables. Plain data: a switch swaps a new copy in whole. */
struct acis_torus_table {
	struct acis_torus_uentry uni[ACIS_TORUS_TABLE_SIZE];
	struct acis_torus_mentry mc[ACIS_TORUS_TABLE_SIZE];
	struct acis_torus_rentry red[ACIS_TORUS_TABLE_SIZE];
};

/** Unset every entry of tb. */
void acis_torus_table_clear(struct acis_torus_table *tb);

/**
 * Route a packet that arrived with header in by its node's tables: the
 * headers it leaves with, each with its exit port and the index it has
 * at the next node (§8.1.1's rewrite). A unicast entry gives one, with
 * the entry's type and priority; a multicast entry one per child, with in's
 * priority; a reduction entry the one combined packet that leaves once
 * the entry is complete (acis_torus_reduce_arrive()), with in's
 * priority. An output with port LOCAL is a copy to eject.
 *
 * @param out room for ACIS_TORUS_MCAST_CHILDREN headers.
 * @return the number of outputs (1 to ACIS_TORUS_MCAST_CHILDREN), or
 *   -EINVAL for an unknown type or an index at or above
 *   ACIS_TORUS_TABLE_SIZE, -ENOENT for an entry not set (or written
 *   into the struct with a port past Z-).
 */
int acis_torus_table_route(const struct acis_torus_table *tb,
			   const struct acis_torus_thdr *in,
			   struct acis_torus_thdr *out);

/** A reduction entry's progress: what arrived since its last reset. */
struct acis_torus_reduce_slot {
	uint8_t got;   /**< packets counted */
	uint8_t ports; /**< bit p for port p (LOCAL is bit 0) */
};

/** Every reduction entry's progress on one node. Zero it to start. */
struct acis_torus_reduce_state {
	struct acis_torus_reduce_slot s[ACIS_TORUS_TABLE_SIZE];
};

/**
 * Count a reduction packet that arrived on port (LOCAL: the node's own
 * contribution) for entry index. The entry stays complete, refusing
 * more, until acis_torus_reduce_reset(): reset it once the combined
 * packet has left.
 *
 * @return 1 if that was the last packet expected (send the combined
 *   packet), 0 if more are expected, -EINVAL (index or port out of
 *   range), -ENOENT (entry not set), -EALREADY (a second packet from
 *   the same port), -EOVERFLOW (the entry is already complete: an
 *   arrival beyond its expected count). An error leaves s unchanged.
 */
int acis_torus_reduce_arrive(struct acis_torus_reduce_state *s,
			     const struct acis_torus_table *tb,
			     unsigned int index, unsigned int port);

/** Start entry index over (no effect for an index out of range). */
void acis_torus_reduce_reset(struct acis_torus_reduce_state *s,
			     unsigned int index);

/**
 * Fill the tables of one node from the text of a table file
 * (doc/torus-tables.md). Every line of every node is checked, the
 * ports against t (a port with no link from its node is an error);
 * only node's entries are kept. tb is cleared first; after an error its
 * content is unspecified (load into a spare copy and swap).
 *
 * @param name the file's name in messages.
 * @param err receives "NAME:LINE: what was expected" on failure;
 *   ACIS_TORUS_TABLE_ERR_LEN bytes, or NULL.
 * @return 0, or -EINVAL with err set.
 */
int acis_torus_table_parse(const struct acis_torus *t, const char *name,
			   const char *text, size_t len, uint32_t node,
			   struct acis_torus_table *tb, char *err);

/** acis_torus_table_parse() for every node at once: tables holds
 * t->nodes tables, node i's at tables[i]. */
int acis_torus_table_parse_all(const struct acis_torus *t, const char *name,
			       const char *text, size_t len,
			       struct acis_torus_table *tables, char *err);

/** Read the table file at path (up to 16 MiB) and parse node's tables
 * from it. @return 0, -EINVAL (err set), or -errno of the read. */
int acis_torus_table_load(const struct acis_torus *t, const char *path,
			  uint32_t node, struct acis_torus_table *tb,
			  char *err);

/**
 * Write the set entries of every node's tables (t->nodes of them) in
 * the text form acis_torus_table_parse() reads: a [node X,Y,Z] section
 * for each node that has any.
 *
 * @return 0, or -EIO if writing failed.
 */
int acis_torus_table_print(FILE *f, const struct acis_torus *t,
			   const struct acis_torus_table *tables);

/** Where one node stands in a tree acis_torus_table_build() made. */
struct acis_torus_tree_node {
	uint8_t in_tree;    /**< on the path to some destination */
	uint8_t member;	    /**< a destination (or the root, if listed) */
	uint8_t children;   /**< directions to its children (bit d - 1) */
	uint8_t parent;	    /**< the direction to its parent; LOCAL at
				 the root */
	uint8_t mc_type;    /**< the table its multicast-side entry is in:
				 UNICAST for a single output, else MULTICAST */
	uint8_t height;	    /**< hops to its farthest destination below */
	uint16_t mc_index;  /**< that entry's index: at the root, the index
				 the host injects with (type mc_type) */
	uint16_t red_index; /**< its reduction entry: a member's host sends
				 its contribution there */
};

/**
 * Make a multicast tree from root to the nodes dsts[0..n) and its
 * reduction tree into every node's tables: the union of the DOR paths
 * from root (each node's children the distinct next hops of the paths
 * through it), reversed for the reduction (a node expects one packet
 * from each child, and one from its host if it is a member). A node
 * with one output gets a unicast entry, else a multicast entry; the
 * root ejects nothing (its host has the data) but counts as a member
 * of the reduction if listed. Each node's entries take the lowest free
 * index at or above base in their table.
 *
 * @param tables t->nodes tables, indexed by node.
 * @param tree t->nodes records, filled for every node.
 * @return 0, or -EINVAL (a node outside t, no destination other than
 *   the root), -ENOSPC (a node with no free index at or above base;
 *   no table is then changed).
 */
int acis_torus_table_build(const struct acis_torus *t, uint32_t root,
			   const uint32_t *dsts, unsigned int n, uint16_t base,
			   struct acis_torus_table *tables,
			   struct acis_torus_tree_node *tree);

/**
 * Follow a packet injected at node with header (type, index) through
 * every node's tables, as a test or tool would: each copy ejected is
 * counted at its node, with the hops it took.
 *
 * @param max_hops the longest path allowed (at most 1024); 0: twice the
 *   longest minimal path. Paths past it, or more than
 *   ACIS_TORUS_MCAST_CHILDREN x t->nodes x max_hops hops in all, count
 *   as a loop.
 * @param copies t->nodes counters, zeroed by the walk.
 * @param hops t->nodes: the hops of the last copy ejected at each node.
 * @param err receives where the walk failed; or NULL.
 * @return the copies ejected in all, or -ENOENT (an entry not set),
 *   -EINVAL (a bad type or index), -ENETUNREACH (a port with no link),
 *   -ELOOP, -EPROTO (a reduction entry reached).
 */
int acis_torus_table_walk_multicast(const struct acis_torus *t,
				    const struct acis_torus_table *tables,
				    uint32_t node, unsigned int type,
				    uint16_t index, unsigned int max_hops,
				    uint16_t *copies, uint16_t *hops,
				    char *err);

/** What a reduction walk saw. */
struct acis_torus_reduce_walk {
	uint32_t completions; /**< combined packets ejected (port LOCAL) */
	uint32_t node;	      /**< where the last was ejected */
	uint32_t total;	      /**< contributions it held */
	uint32_t hops;	      /**< most hops a contribution took */
	uint32_t pending;     /**< entries left with some but not all */
};

/** A reduction walk's scratch for one node; zero it before a walk. */
struct acis_torus_walk_node {
	struct acis_torus_reduce_state state;
	uint32_t held[ACIS_TORUS_TABLE_SIZE]; /**< contributions summed */
	uint16_t far[ACIS_TORUS_TABLE_SIZE];  /**< most hops one took */
};

/**
 * Follow a reduction: member m's host sends its contribution into
 * entry index[m] of node members[m], in turn; each entry that completes
 * sends its sum on by acis_torus_table_route().
 *
 * @param scratch t->nodes records, zeroed by the caller.
 * @return 0 with w filled, or a negative errno of
 *   acis_torus_reduce_arrive() or acis_torus_table_walk_multicast().
 */
int acis_torus_table_walk_reduce(const struct acis_torus *t,
				 const struct acis_torus_table *tables,
				 const uint32_t *members, const uint16_t *index,
				 unsigned int n, unsigned int max_hops,
				 struct acis_torus_walk_node *scratch,
				 struct acis_torus_reduce_walk *w, char *err);

/* ---- online cube multicast and reduction (seed 000 §6.3-6.4) ---- */

/** Largest radius: past 32 a cube covers every ring anyway. */
#define ACIS_TORUS_CUBE_R_MAX 32

/** Destination ids of a radius-r cube: (2r + 1)^3 (Eq. 6.4). */
static inline unsigned int
acis_torus_cube_ids(unsigned int r)
{
	return (2 * r + 1) * (2 * r + 1) * (2 * r + 1);
}

/**
 * Algorithm 2: what node cur does with a multicast of radius r from src
 * that arrived moving in direction arrived (LOCAL at src, injected).
 * The cube is every node within r hops of src in each dimension (on a
 * ring shorter than 2r + 1, the whole ring, once; in a mesh, clipped
 * at the edges); its tree goes along X from src, then along Y, then Z.
 *
 * @param mask receives the ports to send a copy on (ACIS_TORUS_DIR_BIT).
 * @return 1 if cur ejects a copy (every cube node but src), 0 if not;
 *   -EINVAL (r not 1 to ACIS_TORUS_CUBE_R_MAX, a place outside t),
 *   -ERANGE (cur outside the cube), -EPROTO (arrived is not the way the
 *   tree reaches cur: a copy that should not be here).
 */
int acis_torus_cube_multicast(const struct acis_torus *t,
			      const struct acis_torus_coord *src,
			      const struct acis_torus_coord *cur,
			      unsigned int arrived, unsigned int r,
			      uint8_t *mask);

/**
 * Eq. 6.1-6.4: the slot of destination dst at node cur,
 * (2r+1)^2 dz + (2r+1) dy + dx with dx = dst_x - cur_x + r (the offset
 * the shorter way round a ring), and so on.
 *
 * @return the id, from 0 to acis_torus_cube_ids(r) - 1, or -EINVAL
 *   (bad r or place), -ERANGE (dst outside cur's cube).
 */
int acis_torus_cube_dst_id(const struct acis_torus *t,
			   const struct acis_torus_coord *cur,
			   const struct acis_torus_coord *dst, unsigned int r);

/** The destination of slot id at node cur. @return 0, or -EINVAL, or
 * -ERANGE for an id acis_torus_cube_dst_id() never gives there (past
 * a mesh's edge, or the other spelling of a wrapped offset). */
int acis_torus_cube_dst(const struct acis_torus *t,
			const struct acis_torus_coord *cur, unsigned int r,
			unsigned int id, struct acis_torus_coord *dst);

/**
 * Algorithm 3: at node cur, for a reduction of radius r toward dst (each
 * node of dst's cube contributes once), the ports to wait for before
 * sending the combined packet on, and the way it goes: DOR, X, then Y,
 * then Z. Besides the ports, cur's own contribution is always awaited.
 *
 * @param wait receives the input ports (ACIS_TORUS_DIR_BIT): those whose
 *   neighbour sends toward dst through cur.
 * @return the output direction, LOCAL at dst; or -EINVAL, -ERANGE (cur
 *   outside dst's cube).
 */
int acis_torus_cube_reduce(const struct acis_torus *t,
			   const struct acis_torus_coord *cur,
			   const struct acis_torus_coord *dst, unsigned int r,
			   uint8_t *wait);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_TORUS_H */
