/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fused collectives in the switch (doc/fused.md): a worker's table of the
 * fused calls open on its communicators. A call gathers every rank's
 * message (prefix, stage-1 block, inbound buffer) chunk by chunk, runs
 * lib/fused's unit once all are whole -- the op on this worker's CGRA
 * machine of that user op -- and keeps each rank's result until the rank
 * confirms it. One writer: the worker that owns the communicators' shard.
 */
#ifndef ACIS_SW_FUSED_H
#define ACIS_SW_FUSED_H

#include <stdint.h>

#include "acis_fused.h"

/** Fused calls a worker holds open at once. */
#define ACIS_FUSED_CALLS 256
/** Closed calls a worker keeps, with their memory, for the next ones: a
 * communicator calling again and again allocates nothing. */
#define ACIS_FUSED_SPARE 16
/** Chunks of a rank's message, at most (its prefix, a scatter root's
 * 64 KiB of blocks and a 16 KiB inbound buffer in chunks of 512 bytes). */
#define ACIS_FUSED_CHUNKS_MAX 192

enum acis_fused_state {
	ACIS_FUSED_OPEN = 0, /**< messages coming */
	ACIS_FUSED_DONE,     /**< results kept until confirmed */
	ACIS_FUSED_FAILED,   /**< the failure kept to answer late chunks */
};

struct acis_fused_rank {
	uint8_t *msg;       /**< the message's room (rte_malloc), or NULL */
	uint64_t cap;       /**< its bytes */
	uint64_t len;       /**< the message's, 0 until its first chunk */
	uint32_t cpr, got;  /**< chunks, and chunks taken */
	uint64_t seen[(ACIS_FUSED_CHUNKS_MAX + 63) / 64];
	uint32_t res_off, res_len; /**< its result in the call's res */
	uint32_t res_chunks;
	uint64_t confirmed; /**< result chunks confirmed, a bit each */
	uint8_t done;       /**< confirmed them all */
};

struct acis_fused_inst {
	uint32_t job, ctx, seq, size, root;
	uint8_t pattern, dtype, op, state;
	uint16_t status;    /**< FAILED: the NACK's status */
	uint16_t cs;        /**< the ranks' chunk size */
	uint32_t whole;     /**< ranks whose message is whole */
	uint32_t confirmed; /**< ranks that confirmed their result */
	uint64_t open_tsc, done_tsc;
	struct acis_fused_rank *rk; /**< [size] */
	uint32_t rk_cap;    /**< rk's room */
	uint8_t *res;       /**< the results */
	uint32_t res_cap;   /**< res's room */
	char msg[160];      /**< FAILED: why, sent with OP_FAULT */
};

struct acis_fused_sw;

/** A worker's table (at its shard's making), and its end. */
struct acis_fused_sw *acis_fused_sw_new(int socket);
void acis_fused_sw_free(struct acis_fused_sw *t);

/** The open call of (ctx, seq), or NULL. */
struct acis_fused_inst *acis_fused_sw_find(struct acis_fused_sw *t,
					   uint32_t ctx, uint32_t seq);
/** A new call of (ctx, seq) for size ranks; NULL when the table is full
 * or memory is short. */
struct acis_fused_inst *acis_fused_sw_open(struct acis_fused_sw *t,
					   uint32_t job, uint32_t ctx,
					   uint32_t seq, uint32_t size);
/** Close call f: its memory goes. */
void acis_fused_sw_close(struct acis_fused_sw *t, struct acis_fused_inst *f);

/**
 * Take chunk `chunk` (len bytes at p) of rank r's message of msg_len
 * bytes in chunks of cs. 1 when it was new, 0 a repeat, -1 when it
 * disagrees with what the rank sent before or memory is short.
 */
int acis_fused_sw_take(struct acis_fused_inst *f, uint32_t r, uint64_t msg_len,
		       uint32_t chunk, const uint8_t *p, uint32_t len);

/**
 * Every message is whole: run the call (the op through map on this
 * worker) and keep the results, or the failure. 0 done, else the call
 * is FAILED with status and msg set.
 */
int acis_fused_sw_run(struct acis_fused_sw *t, struct acis_fused_inst *f,
		      acis_fused_map_fn map, void *arg);

/** Open calls, for the sweep: call i, or NULL. */
struct acis_fused_inst *acis_fused_sw_at(struct acis_fused_sw *t, uint32_t i);
/** How many calls are open (the sweep walks the table only then). */
uint32_t acis_fused_sw_open_count(const struct acis_fused_sw *t);

#endif /* ACIS_SW_FUSED_H */
