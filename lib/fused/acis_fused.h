/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_fused: the fused collective unit (ACiS Type 3, thesis ch. 5;
 * doc/fused.md). A fused call is stage 1 (a collective), an op program
 * run once per rank on what stage 1 gave that rank and on the rank's
 * inbound buffer, then stage 2 (a collective over the op's outputs, or
 * none), with no hosts between the stages:
 *
 *   allreduce_op            allreduce, op; each rank gets its output
 *   allgather_op            allgather, op; each rank gets its output
 *   allreduce_op_allreduce  allreduce, op, allreduce of the outputs
 *   scatter_op_reduce       scatter from root, op, reduce to root
 *   allreduce_op_alltoall   allreduce, op, alltoall of the outputs
 *
 * Each rank's message (acis_proto.h, ACIS_FUSED_PREFIX) says its block,
 * inbound and output lengths and the op; the unit checks that the ranks
 * agree, runs the stages in rank order (the same bits whatever order the
 * messages came in) and leaves each rank's result in its workspace.
 *
 * What the op sees (the map contract): stream_in is four little-endian
 * words -- the rank, the communicator's size, the inbound buffer's
 * bytes, the stage-1 bytes that follow -- then what stage 1 gave the
 * rank; bank 1 from offset 0 holds the rank's inbound buffer, and from
 * offset 32768 (ACIS_USEROP_OWN_OFF) its own stage-1 block (none for
 * scatter_op_reduce); what the op streams out, exactly the output length
 * every rank named, is its output.
 *
 * Pure C: the switch calls it with the op run on its worker's CGRA, the
 * tools and tests with the op run on the host's.
 */
#ifndef ACIS_FUSED_H
#define ACIS_FUSED_H

#include <stddef.h>
#include <stdint.h>

#include "acis_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Words the op's stream starts with: rank, size, inbound bytes, the
 * stage-1 bytes. */
#define ACIS_FUSED_SIN_HDR 16

/** A rank's message prefix, decoded. */
struct acis_fused_prefix {
	uint32_t block;   /**< its stage-1 block's bytes */
	uint32_t inbound; /**< its inbound buffer's bytes */
	uint32_t out;     /**< the op's output bytes (the same every rank) */
	uint8_t map;      /**< the op's number (ACIS_OP_USER_MIN..255) */
};

/** Write p as the ACIS_FUSED_PREFIX bytes at msg. */
void acis_fused_prefix_write(uint8_t *msg, const struct acis_fused_prefix *p);

/** Read the prefix of a message of len bytes. 0, or -1 when the lengths
 * do not add up to len. */
int acis_fused_prefix_read(const uint8_t *msg, uint64_t len,
			   struct acis_fused_prefix *p);

/* (Pattern names: acis_fused_name, acis_fused_parse in acis_proto.h.) */
/** Whether the pattern's stage 1 is a scatter from a root (the only one
 * with a root) / has a reduction (its op must be defined on dtype). */
int acis_fused_has_root(unsigned int pattern);
int acis_fused_reduces(unsigned int pattern);

/** One call: every rank's whole message. */
struct acis_fused_call {
	unsigned int pattern, dtype, op; /**< op: the reductions' */
	uint32_t root;                   /**< scatter_op_reduce's */
	uint32_t size;                   /**< ranks */
	const uint8_t *const *msg;       /**< [size] */
	const uint64_t *msg_len;         /**< [size] */
};

/** Run the op for rank over its stream in (in_len bytes), inbound buffer
 * and own block (the rank's stage-1 block); its output to out (at most cap), the length to *out_len. 0, or
 * nonzero with the reason, naming the op, in err. */
typedef int (*acis_fused_map_fn)(void *arg, uint32_t rank, unsigned int map,
				 const void *in, size_t in_len,
				 const void *inbound, size_t ib_len,
				 const void *own, size_t own_len, void *out,
				 size_t cap, size_t *out_len, char *err,
				 size_t errlen);

/** Why a run failed. */
enum acis_fused_error {
	ACIS_FUSED_OK = 0,
	ACIS_FUSED_E_ARGS = -1, /**< the messages disagree or break a bound */
	ACIS_FUSED_E_MAP = -2,  /**< the op failed or answered another length */
	ACIS_FUSED_E_NOMEM = -3,
};

/** Scratch and results of runs: one per thread that runs. */
struct acis_fused_ws;

struct acis_fused_ws *acis_fused_ws_new(void);
void acis_fused_ws_free(struct acis_fused_ws *ws);

/**
 * Run call c: check the ranks' messages, stage 1, the op once per rank in
 * rank order, stage 2. On success rank r's result is
 * acis_fused_result(ws, r). On failure err says what, naming the rank and
 * the op where one is at fault.
 */
int acis_fused_run(struct acis_fused_ws *ws, const struct acis_fused_call *c,
		   acis_fused_map_fn map, void *arg, char *err, size_t errlen);

/** Rank r's result of the last successful run, its length in *len. */
const uint8_t *acis_fused_result(const struct acis_fused_ws *ws, uint32_t r,
				 uint32_t *len);

/** The result length rank r gets in a call of pattern with op outputs of
 * out bytes. */
uint32_t acis_fused_result_len(unsigned int pattern, uint32_t root,
			       uint32_t r, uint32_t out);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_FUSED_H */
