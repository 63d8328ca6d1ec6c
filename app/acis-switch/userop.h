/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User-defined reduction operators in the switch (doc/collectives.md,
 * "User-defined operators"): the table of ops jobs registered (CTRL
 * OP_CREATE), each a CGRA program under lib/userop's fold contract with
 * one machine per worker, and the fold the collective stage calls.
 * Control: under g_sw.coll.lock; entries are retired through RCU, so a
 * worker may hold one through a walk.
 */
#ifndef ACIS_SW_USEROP_H
#define ACIS_SW_USEROP_H

#include <stdint.h>

#include "acis_proto.h"
#include "acis_userop.h"
#include "switch.h"

/** Ops a switch holds at once: the numbers 128..255. */
#define ACIS_USEROPS (256 - ACIS_OP_USER_MIN)

struct acis_userop_entry {
	uint32_t job;
	uint8_t id;            /**< its op number, 128..255 */
	uint8_t commutative;
	uint32_t holders;      /**< makes not yet freed, over the ranks */
	uint32_t *held;        /**< [ranks] a world rank's makes not freed */
	uint32_t *last_seq;    /**< [ranks] its last request counted (a
				    repeat of a request is not counted) */
	uint32_t ranks;
	uint64_t hash;         /**< of name, commutative and words */
	char name[ACIS_OP_NAME_LEN];
	uint32_t n_words;
	/** one op (its machine) a worker, by worker index */
	struct acis_userop *w[ACIS_MAX_WORKERS];
	/** per worker: the last fault's message */
	char last_error[ACIS_MAX_WORKERS][160];
};

/** The entry of op for job, or NULL (a worker, inside a walk). */
static inline struct acis_userop_entry *
acis_userop_sw_get(struct acis_userop_entry *const *table, unsigned int op,
		   uint32_t job)
{
	struct acis_userop_entry *e;

	if (op < ACIS_OP_USER_MIN || op > 255)
		return NULL;
	e = __atomic_load_n(&table[op - ACIS_OP_USER_MIN], __ATOMIC_ACQUIRE);
	return e != NULL && e->job == job ? e : NULL;
}

/**
 * OP_CREATE from a rank of job (its request seq): the op with this name,
 * program and commutativity, made at the first such request and counted
 * once for every request after; a request that comes again (its answer
 * was lost) is not counted again. Under the control lock.
 *
 * @return its number (128..255), or -ENOSPC (every number taken),
 *   -EINVAL (a bad program: err says why, naming the op), -ENOMEM.
 */
int acis_userop_sw_create(uint32_t job, uint32_t rank, uint32_t seq,
			  const char *name, int commutative,
			  const uint32_t *words, uint32_t n_words,
			  char *err, size_t len);

/** OP_FREE from a rank (its request seq): the op goes once every make
 * was freed; a repeat, or a free by a rank that holds none, changes
 * nothing. 0, or -ENOENT (no such op for job). Under the control lock. */
int acis_userop_sw_free(uint32_t job, uint32_t rank, uint32_t seq,
			unsigned int op);

/** Ops whose job has ended go (the control plane's timer). Under the
 * control lock. */
void acis_userop_sw_purge(void);

/**
 * Fold on worker w: acc = op(acc, src), len bytes. 0, or a negative
 * code with the message (naming the op) kept in the entry for w.
 */
int acis_userop_sw_fold(struct acis_userop_entry *e, unsigned int w,
			void *acc, const void *src, size_t len);

/**
 * Map on worker w (a fused collective's op, doc/fused.md): the program
 * over stream in and inbound buffer inbound, its output in out (at most
 * cap bytes). 0, or a negative code with the message kept as for a fold.
 */
int acis_userop_sw_map(struct acis_userop_entry *e, unsigned int w,
		       const void *in, size_t in_len, const void *inbound,
		       size_t ib_len, const void *own, size_t own_len,
		       void *out, size_t cap, size_t *out_len);

/** Free every op (the switch's end). */
void acis_userop_sw_fini(void);

int acis_userop_sw_telemetry_register(void);

#endif /* ACIS_SW_USEROP_H */
