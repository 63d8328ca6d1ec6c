/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_userop: a reduction operator written as a program for the
 * look-aside CGRA (acis_cgra.h, doc/cgra-isa.md), and the fold contract
 * every such operator keeps (doc/collectives.md, "User-defined
 * operators"):
 *
 *  - a fold is one run of the program: the accumulator, len bytes, is in
 *    data bank 1 from offset 0; the contribution, len bytes, is
 *    stream_in; what the program streams out, exactly len bytes, is the
 *    new accumulator;
 *  - the op's constants (a multiply-add's factor, a table) are in bank 1
 *    from ACIS_USEROP_CONST_OFF, written once when the op is made;
 *  - every fold starts with the scalar registers cleared
 *    (ACIS_CGRA_F_STATELESS), so a fold's result depends on the
 *    accumulator, the contribution and the constants alone;
 *  - a fold that faults, runs past the op's instruction budget or
 *    answers another length fails, with a message naming the op.
 *
 * The examples examples/cgra/satsum_u8.s, satsum_i8.s, maxloc.s and
 * madd.s keep it. An op's machine is not thread safe: one op object per
 * thread that folds.
 */
#ifndef ACIS_USEROP_H
#define ACIS_USEROP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An accumulator's bytes, at most: bank 1 [0, 64 KiB). */
#define ACIS_USEROP_ACC_MAX 65536u
/** Where the op's constants start in bank 1, and their room. */
#define ACIS_USEROP_CONST_OFF 65536u
#define ACIS_USEROP_CONST_MAX 65536u
/** An op's name, with its NUL. */
#define ACIS_USEROP_NAME_LEN 32
/** Vector registers a fold program has (v0..v511): a switch holds a
 * machine an op a worker, so they are fewer than the CGRA's 4096. */
#define ACIS_USEROP_VREGS 512
/** Instructions a fold may run when the spec does not say. */
#define ACIS_USEROP_BUDGET_DEFAULT (1u << 20)

/** What makes an op. */
struct acis_userop_spec {
	const char *name;        /**< named in errors; 1 to 31 characters */
	const uint32_t *words;   /**< the program (acis_cgra_asm's words) */
	size_t n_words;
	const void *consts;      /**< bank 1 from ACIS_USEROP_CONST_OFF; may
				      be NULL */
	size_t consts_len;       /**< at most ACIS_USEROP_CONST_MAX */
	int commutative;         /**< as MPI_Op_create's commute */
	uint64_t budget;         /**< instructions a fold; 0: the default */
};

struct acis_userop;

/**
 * Make an op: a one-VPE machine with the program loaded and the
 * constants written.
 *
 * @return 0, or -EINVAL (a bad name, constants too long; err says) or
 *   -ENOMEM, or ACIS_CGRA_E_LOAD with "op NAME: instruction I (mn):
 *   reason" in err when the loader refuses the program.
 */
int acis_userop_create(const struct acis_userop_spec *spec,
		       struct acis_userop **op, char *err, size_t errlen);

/**
 * One fold: acc = op(acc, src), len bytes each (1 to
 * ACIS_USEROP_ACC_MAX). acc is left as it was unless the fold succeeds.
 *
 * @return 0, or a negative ACIS_CGRA_E_* code with "op NAME: ..." in
 *   err: the machine's fault (E_MEM, E_VRF, E_BUDGET, ...) with its
 *   instruction, or E_PKTLEN when the program answered another length
 *   than len; -EINVAL for a len out of range.
 */
int acis_userop_fold(struct acis_userop *op, void *acc, const void *src,
		     size_t len, char *err, size_t errlen);

/** Where a map finds the rank's own block in bank 1 (doc/fused.md). */
#define ACIS_USEROP_OWN_OFF 32768u
/** ... and the room for it and for the inbound buffer before it. */
#define ACIS_USEROP_OWN_MAX 32768u

/**
 * One map, the op between a fused collective's stages (doc/fused.md):
 * bank 1 from offset 0 holds inbound (ib_len bytes), from
 * ACIS_USEROP_OWN_OFF own (own_len bytes; each at most
 * ACIS_USEROP_OWN_MAX), stream_in is in (in_len bytes), and what the
 * program streams out, at most cap bytes, goes to out, its length to
 * *out_len. The scalar registers start cleared, as for a fold.
 *
 * @return 0, or a negative ACIS_CGRA_E_* code with "op NAME: ..." in
 *   err (the machine's fault with its instruction; E_OUTFULL for output
 *   past cap); -EINVAL for ib_len out of range.
 */
int acis_userop_map(struct acis_userop *op, const void *in, size_t in_len,
		    const void *inbound, size_t ib_len, const void *own,
		    size_t own_len, void *out, size_t cap, size_t *out_len,
		    char *err, size_t errlen);

/** The op's name. */
const char *acis_userop_name(const struct acis_userop *op);
/** Whether the op was made commutative. */
int acis_userop_commutative(const struct acis_userop *op);
/** Folds run and folds failed since the op was made. */
void acis_userop_counts(const struct acis_userop *op, uint64_t *folds,
			uint64_t *faults);

void acis_userop_free(struct acis_userop *op);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_USEROP_H */
