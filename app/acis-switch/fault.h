/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault stage: seeded loss, duplication, reordering, corruption, and
 * shaping (line rate, delay, jitter, a bounded queue) of the frames the
 * switch sends on a port ([fault PORT] in the pipeline, or `acisctl
 * fault-set` at runtime). It sits in each port's TX node; every worker
 * lcore keeps its own random stream, hold queues and counters per port,
 * so nothing is shared on the packet path. With one worker, the same seed
 * and the same frames give the same faults and the same delays.
 */
#ifndef ACIS_FAULT_H
#define ACIS_FAULT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "acis_pipeline.h"
#include "switch.h"

#define ACIS_FAULT_HOLD 256 /* reordered frames held per port and worker */
/* Shaped frames held per port and worker: the `queue` key's bound. A
 * power of two (a ring); 16 B each. */
#define ACIS_FAULT_QUEUE ACIS_FAULT_QUEUE_MAX

/* A port's settings; written by control, read by the workers. */
struct acis_fault_port {
	volatile uint32_t on;
	uint32_t rel;               /* a reliable link (rel.h): set at start */
	volatile uint32_t drop;     /* probabilities as thresholds of 2^32 */
	volatile uint32_t dup;
	volatile uint32_t reorder;
	volatile uint32_t corrupt;
	volatile uint32_t window;
	volatile uint32_t rate_kbps;
	volatile uint32_t queue;    /* shaped frames held, 1..ACIS_FAULT_QUEUE */
	volatile uint32_t classes;  /* strict-priority classes, 1..8 */
	volatile uint32_t class_queue; /* frames a class holds */
	volatile uint32_t acis_class;  /* ACiS frames' class */
	volatile uint64_t byte_tsc; /* a byte on the wire, TSC cycles << 32 */
	volatile uint64_t delay_tsc;
	volatile double jitter_tsc; /* standard deviation, TSC cycles */
	volatile double delay_us;   /* as set, for telemetry and fault-set */
	volatile double jitter_us;
	volatile uint32_t gen;      /* bumped on every change: reseed */
	volatile uint64_t seed;
};

struct acis_fault_counters {
	uint64_t frames;     /* frames that met the stage */
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t corrupted;
	uint64_t delayed;
	uint64_t hold_full;  /* not held back: the reorder hold was full */
	uint64_t nombuf;     /* lost: no mbuf for a private copy to corrupt */
	uint64_t shaped;     /* frames that went through the shaper */
	uint64_t queue_drops; /* lost at the tail: the shaper held `queue` */
};

struct acis_fault_held {
	struct rte_mbuf *m;
	uint64_t due_tsc;
	uint64_t due_seq;
};

struct acis_fault_shaped {
	struct rte_mbuf *m;
	uint64_t due_tsc;
};

/* Inputs a class queue serves in turn: the ports, and the switch itself
 * (its answers and control frames). */
#define ACIS_FAULT_INPUTS (ACIS_MAX_PORTS + 1)

/* One strict-priority class of a shaped port: a FIFO per input, linked
 * through the frames' metadata (hold_next), served round robin. */
struct acis_fault_class {
	struct rte_mbuf *head[ACIS_FAULT_INPUTS];
	struct rte_mbuf *tail[ACIS_FAULT_INPUTS];
	uint64_t nonempty; /* inputs with frames, a bit each */
	uint16_t n;        /* frames waiting */
	uint8_t rr;        /* the input served last */
	uint64_t in, sent, drops; /* counters */
	uint16_t max;      /* most frames it held */
};

/* Every port's settings, indexed by port index. */
/* The current switch's ports' faults, ACIS_MAX_PORTS of them (switch.h). */
#define g_fault (g_sw.fault)

/*
 * One worker's state for one port. With classes, frames first wait in
 * their class (strict priority between classes, round robin between the
 * inputs of one), and the link takes the next when it is free. The
 * shaper is then a FIFO: a frame is due
 * when the link has serialised it and its delay has passed, but never
 * before the frame ahead of it, so jitter stretches a link's gaps and
 * never reorders it (reordering is the reorder key's job). Due times only
 * grow along the ring, so releasing looks at its head alone.
 */
struct acis_fault_lc {
	uint64_t rng;
	uint32_t gen;
	uint64_t seq;       /* frames handed on (sent or to the shaper) */
	uint16_t n_held;    /* both kinds; 0: TX may skip the stage (tx.h) */
	uint16_t n_reorder; /* held[0..n_reorder): reordered frames */
	uint16_t q_head;    /* q[]: shaped frames, q_n from q_head on */
	uint16_t q_n;
	uint32_t link_frac; /* link_free's fraction of a cycle, << 32 */
	uint64_t link_free; /* when the link has sent the last frame */
	uint64_t last_due;  /* the last shaped frame's due time */
	double spare;       /* Box-Muller's second deviate, if has_spare */
	uint32_t has_spare;
	struct acis_fault_counters c;
	struct acis_fault_held held[ACIS_FAULT_HOLD];
	struct acis_fault_shaped q[ACIS_FAULT_QUEUE];
	/* classes (classes > 1): frames wait here until the link is free;
	 * q[] is then the delay line behind the link */
	uint32_t cq_n;
	struct acis_fault_class cq[ACIS_FAULT_CLASSES];
};

struct acis_lcore_ctx;

/* Settings from the pipeline; 0 or a negative errno. */
int acis_fault_init(const struct acis_pipeline *pl);
/* Whether a port's link would start a frame now: no line rate set, or
 * the shaper's link free (or freeing within 10 us) with no class queue
 * waiting. The torus router arbitrates only for a ready link, so its
 * order is the wire's. */
int acis_fault_link_ready(const struct acis_lcore_ctx *lc, uint16_t port,
			  uint64_t now);
/* Free what the workers still hold (after the lcores stopped). */
void acis_fault_fini(void);

/*
 * Apply a port's faults to a burst about to be sent: pkts[0..n) in,
 * out[0..return) to send (at most cap; frames beyond are held or, when
 * the shaper's queue is full, freed and counted). Called when on, or when
 * frames are still held (tx.h): off, no faults, but frames still queue
 * behind those the shaper holds.
 */
uint16_t acis_fault_apply(struct acis_lcore_ctx *lc, uint16_t port,
			  struct rte_mbuf **pkts, uint16_t n,
			  struct rte_mbuf **out, uint16_t cap);

/* Between graph walks: send held frames that are due. */
void acis_fault_flush(struct acis_lcore_ctx *lc);

/* Whether the lcore's fault stage holds frames on some port (delayed,
 * shaped or reordered): an idle lcore does not sleep then, so they leave
 * when due, not a sleep later. Looked at only before an idle sleep. */
int acis_fault_holding(const struct acis_lcore_ctx *lc);

/*
 * The delay the next shaped frame gets, in TSC cycles: the port's delay
 * plus a Gaussian of its jitter (Box-Muller on the worker's stream, no
 * draw when jitter is 0), clamped at 0. Exposed for tests.
 */
uint64_t acis_fault_draw_delay(struct acis_fault_lc *f,
			       const struct acis_fault_port *fp);

/*
 * Change a port's faults at runtime: "PORT,off" or "PORT,KEY=VALUE,..."
 * (the [fault PORT] keys); keys not given keep their values and the
 * random stream restarts from the seed. Returns the port index, or a
 * negative errno with the reason in msg.
 */
int acis_fault_set(const char *params, char *msg, size_t len);

int acis_fault_telemetry_register(void);

#endif /* ACIS_FAULT_H */
