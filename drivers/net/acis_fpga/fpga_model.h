/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated FPGA's timing and its in-flight queue, in plain C (no DPDK),
 * so that the unit tests drive them with a clock of their own.
 *
 * Timing: a frame handed to the FPGA at time `now` goes onto the link when
 * the link is free, takes (length + overhead) bytes at the link rate to
 * serialise, is then processed by the FPGA's one processing element (a
 * fixed time per frame plus, for the CGRA, the handler's cycles at the
 * CGRA's clock; frames queue for it one after the other) and is back
 * after the latency:
 *
 *   on_link = max(now, link_free)
 *   link_free = on_link + (len + overhead) * 8 / rate
 *   proc_start = max(link_free, proc_free)
 *   proc_free = proc_start + proc_time + cycles / proc_hz
 *   ready = proc_free + latency
 *
 * With no processing time this is ready = max(now, link_free) +
 * serialisation + latency. Times are in ticks of a clock of `hz` ticks per
 * second (the TSC in the driver); serialisation keeps a 32-bit fraction
 * of a tick, so back-to-back small frames add up to the exact rate.
 *
 * In-flight queue: a bounded single-producer single-consumer FIFO of
 * (frame, ready time, link generation). Ready times of one producer never
 * decrease, so the consumer delivers in order by taking the head while it
 * is ready.
 */
#ifndef ACIS_FPGA_MODEL_H
#define ACIS_FPGA_MODEL_H

#include <stdint.h>

/* Parameters of the model (from the devargs). */
struct acis_fpga_timing {
	uint64_t hz;          /* ticks per second of the clock */
	uint64_t rate_bps;    /* link rate, bits per second, > 0 */
	uint64_t latency_ns;  /* from the end of processing to back */
	uint64_t proc_ns;     /* fixed processing time per frame */
	uint64_t proc_hz;     /* clock of per-frame processing cycles, > 0 */
	uint32_t overhead;    /* bytes on the wire per frame beyond it */
};

struct acis_fpga_model {
	/* derived, constant */
	uint64_t byte_q32;    /* ticks per byte, 32.32 fixed point */
	uint64_t cycle_q32;   /* ticks per processing cycle, 32.32 */
	uint64_t latency;     /* ticks */
	uint64_t proc;        /* ticks */
	uint32_t overhead;
	/* state */
	uint64_t link_free;   /* tick at which the link is next free */
	uint32_t link_frac;   /* fraction of a tick of link_free */
	uint64_t proc_free;   /* tick at which the processor is next free */
	/* what happened, in ticks */
	uint64_t wait;        /* frames waiting for the link, summed */
	uint64_t busy;        /* link busy time, summed */
};

/* The largest latency or processing time in ticks; larger is refused. */
#define ACIS_FPGA_MAX_TICKS (UINT64_C(1) << 56)

/* 0, or -1 if a parameter is out of range: a zero rate or clock, a byte
 * or a cycle of 2^32 ticks or more, a time beyond ACIS_FPGA_MAX_TICKS.
 * Zeroes the state. */
int acis_fpga_model_init(struct acis_fpga_model *m,
			 const struct acis_fpga_timing *t);

/* Admit one frame of len bytes at now, processed for `cycles` cycles of
 * proc_hz; returns the tick at which it is back. */
uint64_t acis_fpga_model_admit(struct acis_fpga_model *m, uint64_t now,
			       uint32_t len, uint64_t cycles);

/* Forget the link and processor state (device restart). */
void acis_fpga_model_reset(struct acis_fpga_model *m);

/* Ticks to nanoseconds and back, for counters and tests. */
uint64_t acis_fpga_ticks_to_ns(uint64_t ticks, uint64_t hz);
uint64_t acis_fpga_ns_to_ticks(uint64_t ns, uint64_t hz);

/* ---- the in-flight FIFO ---- */

struct acis_fpga_slot {
	void *pkt;
	uint64_t ready;
	uint32_t gen;   /* link generation when admitted */
};

struct acis_fpga_fifo {
	uint32_t depth;   /* frames it holds at most */
	uint32_t mask;    /* slots - 1, slots a power of two >= depth */
	/* producer side */
	uint32_t head __attribute__((aligned(64)));
	uint32_t tail_cache;
	/* consumer side */
	uint32_t tail __attribute__((aligned(64)));
	uint32_t head_cache;
	struct acis_fpga_slot slots[] __attribute__((aligned(64)));
};

#define ACIS_FPGA_MAX_DEPTH (1u << 20)

/* Bytes a FIFO of `depth` frames needs (depth 1..ACIS_FPGA_MAX_DEPTH). */
uint64_t acis_fpga_fifo_size(uint32_t depth);
/* Initialise one in memory of acis_fpga_fifo_size(depth) bytes. */
void acis_fpga_fifo_init(struct acis_fpga_fifo *f, uint32_t depth);

/* Producer: room for how many frames (at most want). */
static inline uint32_t
acis_fpga_fifo_room(struct acis_fpga_fifo *f, uint32_t want)
{
	uint32_t used = f->head - f->tail_cache;

	if (f->depth - used < want) {
		f->tail_cache = __atomic_load_n(&f->tail, __ATOMIC_ACQUIRE);
		used = f->head - f->tail_cache;
	}
	return f->depth - used < want ? f->depth - used : want;
}

/* Producer: write slot i past the head (i < the room just asked for). */
static inline void
acis_fpga_fifo_put(struct acis_fpga_fifo *f, uint32_t i, void *pkt,
		   uint64_t ready, uint32_t gen)
{
	struct acis_fpga_slot *s = &f->slots[(f->head + i) & f->mask];

	s->pkt = pkt;
	s->ready = ready;
	s->gen = gen;
}

/* Producer: publish n slots written with acis_fpga_fifo_put. */
static inline void
acis_fpga_fifo_publish(struct acis_fpga_fifo *f, uint32_t n)
{
	__atomic_store_n(&f->head, f->head + n, __ATOMIC_RELEASE);
}

/* Consumer: frames waiting; reads the producer's side only when it knows
 * of fewer than want. */
static inline uint32_t
acis_fpga_fifo_count(struct acis_fpga_fifo *f, uint32_t want)
{
	uint32_t n = f->head_cache - f->tail;

	if (n < want) {
		f->head_cache = __atomic_load_n(&f->head, __ATOMIC_ACQUIRE);
		n = f->head_cache - f->tail;
	}
	return n;
}

/* Consumer: the i-th waiting slot (i < acis_fpga_fifo_count). */
static inline const struct acis_fpga_slot *
acis_fpga_fifo_peek(const struct acis_fpga_fifo *f, uint32_t i)
{
	return &f->slots[(f->tail + i) & f->mask];
}

/* Consumer: release n slots. */
static inline void
acis_fpga_fifo_consume(struct acis_fpga_fifo *f, uint32_t n)
{
	__atomic_store_n(&f->tail, f->tail + n, __ATOMIC_RELEASE);
}

/* Frames in the FIFO as seen from anywhere (a snapshot, for counters). */
static inline uint32_t
acis_fpga_fifo_used(const struct acis_fpga_fifo *f)
{
	return __atomic_load_n(&f->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&f->tail, __ATOMIC_ACQUIRE);
}

#endif /* ACIS_FPGA_MODEL_H */
