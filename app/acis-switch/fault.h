/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault stage: seeded loss, duplication, reordering, corruption and
 * delay on the frames the switch sends on a port ([fault PORT] in the
 * pipeline, or `acisctl fault-set` at runtime). It sits in each port's TX
 * node; every worker lcore keeps its own random stream, hold queue and
 * counters per port, so nothing is shared on the packet path. With one
 * worker, the same seed and the same frames give the same faults.
 */
#ifndef ACIS_FAULT_H
#define ACIS_FAULT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "acis_pipeline.h"

#define ACIS_FAULT_HOLD 256 /* frames held back per port and worker */

/* A port's settings; written by control, read by the workers. */
struct acis_fault_port {
	volatile uint32_t on;
	volatile uint32_t drop;     /* probabilities as thresholds of 2^32 */
	volatile uint32_t dup;
	volatile uint32_t reorder;
	volatile uint32_t corrupt;
	volatile uint32_t window;
	volatile uint32_t delay_us;
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
	uint64_t hold_full;  /* sent at once: the hold queue was full */
	uint64_t nombuf;     /* lost: no mbuf for a private copy to corrupt */
};

struct acis_fault_held {
	struct rte_mbuf *m;
	uint64_t due_tsc;
	uint64_t due_seq;
};

/* Every port's settings, indexed by port index. */
extern struct acis_fault_port g_fault[ACIS_MAX_PORTS];

/* One worker's state for one port. */
struct acis_fault_lc {
	uint64_t rng;
	uint32_t gen;
	uint64_t seq;       /* frames handed to the queue */
	uint16_t n_held;
	struct acis_fault_held held[ACIS_FAULT_HOLD];
	struct acis_fault_counters c;
};

struct acis_lcore_ctx;

/* Settings from the pipeline; 0 or a negative errno. */
int acis_fault_init(const struct acis_pipeline *pl);
/* Free what the workers still hold (after the lcores stopped). */
void acis_fault_fini(void);

/*
 * Apply a port's faults to a burst about to be sent: pkts[0..n) in,
 * out[0..return) to send (at most cap; frames beyond are held or, when
 * the hold queue is full, freed and counted). Called only when on.
 */
uint16_t acis_fault_apply(struct acis_lcore_ctx *lc, uint16_t port,
			  struct rte_mbuf **pkts, uint16_t n,
			  struct rte_mbuf **out, uint16_t cap);

/* Between graph walks: send held frames that are due. */
void acis_fault_flush(struct acis_lcore_ctx *lc);

/*
 * Change a port's faults at runtime: "PORT,off" or "PORT,KEY=VALUE,..."
 * (the [fault PORT] keys); keys not given keep their values and the
 * random stream restarts from the seed. Returns the port index, or a
 * negative errno with the reason in msg.
 */
int acis_fault_set(const char *params, char *msg, size_t len);

int acis_fault_telemetry_register(void);

#endif /* ACIS_FAULT_H */
