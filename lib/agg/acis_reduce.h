/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_reduce: element-wise reduction kernels, every datatype x op.
 *
 * A reduction keeps an accumulator per element: the datatype itself, except
 * float16 and bfloat16, which accumulate in float32 and are rounded once at
 * the end. The aggregation stage calls init with the first contribution it
 * folds, fold for each further one, and finish to produce the result.
 *
 * Semantics (doc/collectives.md):
 *  - integer sum and prod wrap modulo 2^bits (two's complement), 8 and
 *    16-bit ones too; integer min and max compare signed for the signed
 *    types, unsigned for the unsigned;
 *  - float sum and prod are IEEE-754 round-to-nearest in the accumulator
 *    type; their result depends on the order of folding, so the switch folds
 *    them in rank order (acis_reduce_order_free() says which pairs need it);
 *  - min and max of floats: NaN if either operand is NaN (the canonical
 *    quiet NaN, so the bits do not depend on which NaN came first);
 *    min(-0, +0) = -0 and max(-0, +0) = +0 in either order;
 *  - band, bor, bxor: integers only;
 *  - float16/bfloat16 widen exactly to float32; finish rounds to nearest
 *    even, overflow gives infinity, NaN stays a quiet NaN.
 * Payload elements are little endian (the machine's order on x86 and Arm).
 *
 * Kernels are vectorised (GCC vector extensions) and the best variant for
 * the CPU is chosen when the program starts; src may be unaligned, acc is
 * expected 64-byte aligned for speed but need not be.
 */
#ifndef ACIS_REDUCE_H
#define ACIS_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes per accumulator element of a datatype (4 for float16/bfloat16). */
unsigned int acis_acc_size(unsigned int dtype);

/** acc[i] = widen(src[i]) for n elements. */
void acis_reduce_init(unsigned int dtype, void *acc, const void *src,
		      size_t n);

/** acc[i] = acc[i] OP widen(src[i]) for n elements. dtype/op must be a
 * valid pair (acis_op_valid). */
void acis_reduce_fold(unsigned int dtype, unsigned int op, void *acc,
		      const void *src, size_t n);

/** dst[i] = narrow(acc[i]) for n elements (a copy unless 16-bit floats). */
void acis_reduce_finish(unsigned int dtype, void *dst, const void *acc,
			size_t n);

/** 1 when folding order cannot change the result bits (integers, bitwise,
 * min, max), 0 for float sum and prod. */
int acis_reduce_order_free(unsigned int dtype, unsigned int op);

/** The same three operations, one element at a time, no vectors: the
 * reference the tests and benchmarks compare against. */
void acis_reduce_init_scalar(unsigned int dtype, void *acc, const void *src,
			     size_t n);
void acis_reduce_fold_scalar(unsigned int dtype, unsigned int op, void *acc,
			     const void *src, size_t n);
void acis_reduce_finish_scalar(unsigned int dtype, void *dst,
			       const void *acc, size_t n);

/** float16 <-> float32, bfloat16 <-> float32 (round to nearest even). */
float acis_f16_to_f32(uint16_t h);
uint16_t acis_f32_to_f16(float f);
float acis_bf16_to_f32(uint16_t h);
uint16_t acis_f32_to_bf16(float f);

/** Name of the kernel variant in use ("avx512", "avx2", "generic"). */
const char *acis_reduce_isa(void);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_REDUCE_H */
