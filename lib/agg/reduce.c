/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction kernels of acis_reduce.h, every datatype x op.
 *
 * In this file, in order: scalar helpers and the float16/bfloat16
 * conversions; the scalar reference (one element at a time, plain
 * branches, no vectors); the vector kernels, written once as macros over
 * the vector width and stamped out for three instruction sets: 16-byte
 * "generic", 32-byte avx2 (x86-64-v3) and avx512 (x86-64-v4), whose folds
 * pick 64 or 32-byte vectors per call by the buffers' alignment; the
 * per-variant dispatch tables indexed [dtype][op]; and the choice of
 * variant when the program starts, by what the CPU can run, never by the
 * build's -march.
 *
 * The 8 and 16-bit integers accumulate in their own width, as the wider
 * ones do: their sums wrap modulo 2^8 and 2^16.
 *
 * The kernels use each variant's native vector width rather than one
 * 64-byte type everywhere: a vector wider than the target's registers is
 * split by GCC and, on stores, bounced through the stack.
 *
 * reduce_bench (bench/reduce_bench.c) times the folds against the plain
 * loop as GCC vectorises it for the same instruction set. The speeds in
 * the comments below were measured in alternating runs on an AMD EPYC
 * (Zen 4) guest.
 *
 * The environment variable ACIS_REDUCE_ISA ("generic", "avx2", "avx512")
 * asks for a narrower variant than the CPU could run, so the tests can
 * check every variant on one machine; a variant the CPU lacks is never
 * chosen.
 *
 * Float sum and prod return the canonical quiet NaN whenever the result is
 * a NaN, like min and max. Which input NaN x86 propagates depends on the
 * operand order of the add, and GCC may commute it differently in each
 * variant; canonical bits keep every variant, the scalar reference and
 * other architectures identical.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_proto.h"
#include "acis_reduce.h"

/* Payload elements are little endian and the kernels use them as they
 * lie in memory. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "acis_reduce assumes a little-endian machine"
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#define REDUCE_X86 1
#include <immintrin.h>
#endif

/* Canonical quiet NaNs of the accumulators. */
#define QNAN32 UINT32_C(0x7fc00000)
#define QNAN64 UINT64_C(0x7ff8000000000000)

/*
 * Scalar helpers.
 */

static inline uint32_t
f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float
bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint64_t
f64_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static inline double
bits_f64(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* Element i of an array that may be unaligned. */
static inline uint8_t
ld8(const void *p, size_t i)
{
	return ((const uint8_t *)p)[i];
}

static inline uint16_t
ld16(const void *p, size_t i)
{
	uint16_t v;

	memcpy(&v, (const uint8_t *)p + i * sizeof(v), sizeof(v));
	return v;
}

static inline uint32_t
ld32(const void *p, size_t i)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)p + i * sizeof(v), sizeof(v));
	return v;
}

static inline uint64_t
ld64(const void *p, size_t i)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + i * sizeof(v), sizeof(v));
	return v;
}

static inline void
st8(void *p, size_t i, uint8_t v)
{
	((uint8_t *)p)[i] = v;
}

static inline void
st16(void *p, size_t i, uint16_t v)
{
	memcpy((uint8_t *)p + i * sizeof(v), &v, sizeof(v));
}

static inline void
st32(void *p, size_t i, uint32_t v)
{
	memcpy((uint8_t *)p + i * sizeof(v), &v, sizeof(v));
}

static inline void
st64(void *p, size_t i, uint64_t v)
{
	memcpy((uint8_t *)p + i * sizeof(v), &v, sizeof(v));
}

/* Own copies of acis_dtype_size/acis_op_valid: this library does not link
 * the protocol codec. */
static unsigned int
elem_size(unsigned int dtype)
{
	switch (dtype) {
	case ACIS_INT8:
	case ACIS_UINT8:
		return 1;
	case ACIS_INT32:
	case ACIS_UINT32:
	case ACIS_FLOAT32:
		return 4;
	case ACIS_INT64:
	case ACIS_UINT64:
	case ACIS_FLOAT64:
		return 8;
	case ACIS_FLOAT16:
	case ACIS_BFLOAT16:
	case ACIS_INT16:
	case ACIS_UINT16:
		return 2;
	default:
		return 0;
	}
}

/* float16 and bfloat16: the types that accumulate wider (in float32). */
static int
is_half(unsigned int dtype)
{
	return dtype == ACIS_FLOAT16 || dtype == ACIS_BFLOAT16;
}

static int
is_float(unsigned int dtype)
{
	return dtype == ACIS_FLOAT32 || dtype == ACIS_FLOAT64 ||
	       dtype == ACIS_FLOAT16 || dtype == ACIS_BFLOAT16;
}

static int
pair_valid(unsigned int dtype, unsigned int op)
{
	if (elem_size(dtype) == 0 || op < ACIS_OP_SUM || op > ACIS_OP_BXOR)
		return 0;
	return !is_float(dtype) || op <= ACIS_OP_MAX;
}

unsigned int
acis_acc_size(unsigned int dtype)
{
	return is_half(dtype) ? 4 : elem_size(dtype);
}

int
acis_reduce_order_free(unsigned int dtype, unsigned int op)
{
	/* An invalid pair gets 0: folding in rank order is always safe. */
	if (!pair_valid(dtype, op))
		return 0;
	return !is_float(dtype) || op == ACIS_OP_MIN || op == ACIS_OP_MAX;
}

/*
 * float16 and bfloat16 conversions, integer arithmetic on the encodings so
 * the rounding does not depend on the FPU's mode.
 */

float
acis_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = h & 0x7c00;
	uint32_t man = h & 0x03ff;

	if (exp == 0x7c00) /* inf, NaN: payload kept, sNaN stays sNaN */
		return bits_f32(sign | 0x7f800000 | man << 13);
	if (exp == 0) /* zero, subnormal: man * 2^-24 is a normal float */
		return bits_f32(sign | f32_bits((float)man * 0x1p-24f));
	/* Rebias the exponent from 15 to 127. */
	return bits_f32(sign | (((uint32_t)(h & 0x7fff) << 13) + (112u << 23)));
}

/* q + 1 when the dropped bits rest (out of 2^bits) are above half, or
 * exactly half and q is odd: round to nearest, ties to even. */
static inline uint32_t
round_even(uint32_t q, uint32_t rest, unsigned int bits)
{
	uint32_t half = UINT32_C(1) << (bits - 1);

	return q + (rest > half || (rest == half && (q & 1)));
}

uint16_t
acis_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f);
	uint16_t sign = (x >> 16) & 0x8000;
	uint32_t a = x & 0x7fffffff;
	unsigned int shift;
	uint32_t man;

	if (a > 0x7f800000) /* NaN: set the quiet bit, keep the top payload */
		return sign | 0x7e00 | ((a >> 13) & 0x3ff);
	if (a >= 0x477ff000) /* 65520 and up round past 65504; inf */
		return sign | 0x7c00;
	if (a >= 0x38800000) { /* normal float16: rebias, drop 13 bits */
		a -= 112u << 23;
		return sign | round_even(a >> 13, a & 0x1fff, 13);
	}
	if (a <= 0x33000000) /* up to 2^-25, half the smallest subnormal */
		return sign;
	/* Subnormal float16: count units of 2^-24. The value is
	 * man * 2^(exp - 150), so shift man right by 126 - exp (14..24);
	 * rounding up from the largest subnormal gives 0x0400, correctly. */
	shift = 126 - (a >> 23);
	man = (a & 0x7fffff) | 0x800000;
	return sign | round_even(man >> shift,
				 man & ((UINT32_C(1) << shift) - 1), shift);
}

float
acis_bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

uint16_t
acis_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);

	if ((x & 0x7fffffff) > 0x7f800000)
		return (x >> 16) | 0x0040;
	/* Sign and magnitude: rounding the magnitude up is right for either
	 * sign, and carries into the exponent (up to inf) by itself. */
	return round_even(x >> 16, x & 0xffff, 16);
}

/*
 * Scalar reference: a switch per element, written for clarity.
 */

static uint32_t
ref_op32(unsigned int op, uint32_t a, uint32_t b, int is_signed)
{
	switch (op) {
	case ACIS_OP_SUM:
		return a + b;
	case ACIS_OP_PROD:
		return a * b;
	case ACIS_OP_MIN:
		if (is_signed)
			return (int32_t)a < (int32_t)b ? a : b;
		return a < b ? a : b;
	case ACIS_OP_MAX:
		if (is_signed)
			return (int32_t)a > (int32_t)b ? a : b;
		return a > b ? a : b;
	case ACIS_OP_BAND:
		return a & b;
	case ACIS_OP_BOR:
		return a | b;
	default:
		return a ^ b;
	}
}

static uint64_t
ref_op64(unsigned int op, uint64_t a, uint64_t b, int is_signed)
{
	switch (op) {
	case ACIS_OP_SUM:
		return a + b;
	case ACIS_OP_PROD:
		return a * b;
	case ACIS_OP_MIN:
		if (is_signed)
			return (int64_t)a < (int64_t)b ? a : b;
		return a < b ? a : b;
	case ACIS_OP_MAX:
		if (is_signed)
			return (int64_t)a > (int64_t)b ? a : b;
		return a > b ? a : b;
	case ACIS_OP_BAND:
		return a & b;
	case ACIS_OP_BOR:
		return a | b;
	default:
		return a ^ b;
	}
}

/* 8 and 16-bit integers (bits wide) through the 32-bit op, extended as
 * their signedness says: sum, prod and the bitwise ops keep the right low
 * bits either way, min and max compare the extended values. */
static uint32_t
ref_op_narrow(unsigned int op, uint32_t a, uint32_t b, unsigned int bits,
	      int is_signed)
{
	uint32_t sign = UINT32_C(1) << (bits - 1);

	if (is_signed) {
		a = (a ^ sign) - sign;
		b = (b ^ sign) - sign;
	}
	return ref_op32(op, a, b, is_signed);
}

/* Float op on encodings ab, bb of type FT (bits UT). Equal operands can
 * differ only as -0 and +0, where the sign bit decides. */
#define REF_FLOAT_OP(name, FT, UT, to_float, to_bits, QNAN, SIGN)	\
static UT								\
name(unsigned int op, UT ab, UT bb)					\
{									\
	FT a = to_float(ab), b = to_float(bb), r;			\
									\
	switch (op) {							\
	case ACIS_OP_SUM:						\
		r = a + b;						\
		return r != r ? QNAN : to_bits(r);			\
	case ACIS_OP_PROD:						\
		r = a * b;						\
		return r != r ? QNAN : to_bits(r);			\
	case ACIS_OP_MIN:						\
		if (a != a || b != b)					\
			return QNAN;					\
		if (a < b)						\
			return ab;					\
		if (b < a)						\
			return bb;					\
		return (ab & SIGN) ? ab : bb;				\
	default: /* ACIS_OP_MAX */					\
		if (a != a || b != b)					\
			return QNAN;					\
		if (a > b)						\
			return ab;					\
		if (b > a)						\
			return bb;					\
		return (ab & SIGN) ? bb : ab;				\
	}								\
}

REF_FLOAT_OP(ref_op_f32, float, uint32_t, bits_f32, f32_bits, QNAN32,
	     UINT32_C(0x80000000))
REF_FLOAT_OP(ref_op_f64, double, uint64_t, bits_f64, f64_bits, QNAN64,
	     UINT64_C(0x8000000000000000))

static uint32_t
widen_scalar(unsigned int dtype, uint16_t h)
{
	if (dtype == ACIS_FLOAT16)
		return f32_bits(acis_f16_to_f32(h));
	return f32_bits(acis_bf16_to_f32(h));
}

void
acis_reduce_init_scalar(unsigned int dtype, void *acc, const void *src,
			size_t n)
{
	size_t i;

	switch (elem_size(dtype)) {
	case 1:
		for (i = 0; i < n; i++)
			st8(acc, i, ld8(src, i));
		break;
	case 2:
		if (is_half(dtype)) {
			for (i = 0; i < n; i++)
				st32(acc, i, widen_scalar(dtype, ld16(src, i)));
			break;
		}
		for (i = 0; i < n; i++)
			st16(acc, i, ld16(src, i));
		break;
	case 4:
		for (i = 0; i < n; i++)
			st32(acc, i, ld32(src, i));
		break;
	case 8:
		for (i = 0; i < n; i++)
			st64(acc, i, ld64(src, i));
		break;
	default:
		break;
	}
}

void
acis_reduce_fold_scalar(unsigned int dtype, unsigned int op, void *acc,
			const void *src, size_t n)
{
	size_t i;

	if (!pair_valid(dtype, op))
		return;
	for (i = 0; i < n; i++) {
		switch (dtype) {
		case ACIS_INT8:
		case ACIS_UINT8:
			st8(acc, i, (uint8_t)ref_op_narrow(op, ld8(acc, i),
							   ld8(src, i), 8,
							   dtype == ACIS_INT8));
			break;
		case ACIS_INT16:
		case ACIS_UINT16:
			st16(acc, i, (uint16_t)ref_op_narrow(
					     op, ld16(acc, i), ld16(src, i), 16,
					     dtype == ACIS_INT16));
			break;
		case ACIS_INT32:
		case ACIS_UINT32:
			st32(acc, i, ref_op32(op, ld32(acc, i), ld32(src, i),
					      dtype == ACIS_INT32));
			break;
		case ACIS_INT64:
		case ACIS_UINT64:
			st64(acc, i, ref_op64(op, ld64(acc, i), ld64(src, i),
					      dtype == ACIS_INT64));
			break;
		case ACIS_FLOAT32:
			st32(acc, i, ref_op_f32(op, ld32(acc, i),
						ld32(src, i)));
			break;
		case ACIS_FLOAT64:
			st64(acc, i, ref_op_f64(op, ld64(acc, i),
						ld64(src, i)));
			break;
		default: /* float16, bfloat16 */
			st32(acc, i, ref_op_f32(op, ld32(acc, i),
						widen_scalar(dtype,
							     ld16(src, i))));
			break;
		}
	}
}

void
acis_reduce_finish_scalar(unsigned int dtype, void *dst, const void *acc,
			  size_t n)
{
	size_t i;

	switch (dtype) {
	case ACIS_FLOAT16:
		for (i = 0; i < n; i++)
			st16(dst, i, acis_f32_to_f16(bits_f32(ld32(acc, i))));
		break;
	case ACIS_BFLOAT16:
		for (i = 0; i < n; i++)
			st16(dst, i, acis_f32_to_bf16(bits_f32(ld32(acc, i))));
		break;
	default:
		/* The accumulator is the datatype: a copy. */
		acis_reduce_init_scalar(dtype, dst, acc, n);
		break;
	}
}

/*
 * Vector kernels.
 *
 * Vector types per width W in bytes; the float16/bfloat16 source vector
 * h16x holds as many 16-bit lanes as the 32-bit accumulator vector, in
 * W / 2.
 */
#define VECTOR_TYPES(W)							\
typedef uint16_t h16x_##W __attribute__((vector_size((W) / 2)));	\
typedef uint8_t u8x_##W __attribute__((vector_size(W)));		\
typedef int8_t i8x_##W __attribute__((vector_size(W)));		\
typedef uint16_t u16x_##W __attribute__((vector_size(W)));		\
typedef int16_t i16x_##W __attribute__((vector_size(W)));		\
typedef uint32_t u32x_##W __attribute__((vector_size(W)));		\
typedef int32_t i32x_##W __attribute__((vector_size(W)));		\
typedef uint64_t u64x_##W __attribute__((vector_size(W)));		\
typedef int64_t i64x_##W __attribute__((vector_size(W)));		\
typedef float f32x_##W __attribute__((vector_size(W)));		\
typedef double f64x_##W __attribute__((vector_size(W)));

VECTOR_TYPES(16)
#ifdef REDUCE_X86
VECTOR_TYPES(32)
VECTOR_TYPES(64)
#endif

/*
 * Element-wise ops on vectors, as statement expressions so that no
 * function takes or returns a vector wider than the baseline ABI's
 * registers (GCC warns about that, -Wpsabi). Comparisons yield lanes of
 * all ones or all zeros, which select by and/or: GCC's C front end has no
 * vector ?:. They work on vectors of any width.
 */
#define OP_ADD(a, b) ((a) + (b))
#define OP_MUL(a, b) ((a) * (b))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))

#define OP_IMIN(a, b) ({						\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a) _m = (__typeof__(_a))(_a < _b);			\
	(_a & _m) | (_b & ~_m);						\
})

#define OP_IMAX(a, b) ({						\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a) _m = (__typeof__(_a))(_a > _b);			\
	(_a & _m) | (_b & ~_m);						\
})

/* The canonical NaNs and the sign bits as the signed lanes of a mask. */
#define QNAN32_LANE INT32_C(0x7fc00000)
#define QNAN64_LANE INT64_C(0x7ff8000000000000)
#define SIGN32_LANE INT32_MIN
#define SIGN64_LANE INT64_MIN

/* Any NaN lane of r becomes the canonical NaN QNAN. */
#define CANON_NAN(r, QNAN) ({						\
	__typeof__(r) _r = (r);						\
	__typeof__(_r != _r) _n = _r != _r;				\
	(__typeof__(_r))(((__typeof__(_n))_r & ~_n) | ((QNAN) & _n));	\
})

/*
 * Float min and max. The select is x86's minps (a < b ? a : b, so b when
 * they are equal), then one bitwise op fixes the sign of zero: min ORs in
 * a's sign bit, which can only change b when both are zeros (b is
 * negative already when b < a < 0); max clears b's sign unless a has one.
 * Either operand NaN gives the canonical NaN.
 */
#define OP_FMIN(a, b, QNAN, SIGN) ({					\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a < _b) _lt = _a < _b;				\
	__typeof__(_lt) _un = (_a != _a) | (_b != _b);			\
	__typeof__(_lt) _ai = (__typeof__(_lt))_a;			\
	__typeof__(_lt) _bi = (__typeof__(_lt))_b;			\
	__typeof__(_lt) _r = (_ai & _lt) | (_bi & ~_lt) | (_ai & (SIGN)); \
	(__typeof__(_a))((_r & ~_un) | ((QNAN) & _un));			\
})

#define OP_FMAX(a, b, QNAN, SIGN) ({					\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a < _b) _gt = _a > _b;				\
	__typeof__(_gt) _un = (_a != _a) | (_b != _b);			\
	__typeof__(_gt) _ai = (__typeof__(_gt))_a;			\
	__typeof__(_gt) _bi = (__typeof__(_gt))_b;			\
	__typeof__(_gt) _r = ((_ai & _gt) | (_bi & ~_gt)) &		\
			     (_ai | ~(SIGN));				\
	(__typeof__(_a))((_r & ~_un) | ((QNAN) & _un));			\
})

#define OP_F32_MIN(a, b) OP_FMIN(a, b, QNAN32_LANE, SIGN32_LANE)
#define OP_F32_MAX(a, b) OP_FMAX(a, b, QNAN32_LANE, SIGN32_LANE)
#define OP_F64_MIN(a, b) OP_FMIN(a, b, QNAN64_LANE, SIGN64_LANE)
#define OP_F64_MAX(a, b) OP_FMAX(a, b, QNAN64_LANE, SIGN64_LANE)

#ifdef REDUCE_X86
/*
 * With AVX-512 DQ (and VL for 256 bits), float min and max are one
 * vrange, which orders -0 below +0 by itself, merged under the mask of
 * ordered pairs into the canonical NaN. vrange alone is no use for NaN:
 * it returns the number when the other operand is a quiet NaN. imm8:
 * bits 1:0 pick min (0) or max (1), bits 3:2 = 1 take the sign from the
 * comparison.
 */
#define RANGE_PS_64(a, b, imm) ({					\
	__m512 _ra = (__m512)(a), _rb = (__m512)(b);			\
	(__typeof__(a))_mm512_mask_range_ps(				\
		_mm512_castsi512_ps(_mm512_set1_epi32(QNAN32_LANE)),	\
		_mm512_cmp_ps_mask(_ra, _rb, _CMP_ORD_Q), _ra, _rb, (imm)); \
})

#define RANGE_PS_32(a, b, imm) ({					\
	__m256 _ra = (__m256)(a), _rb = (__m256)(b);			\
	(__typeof__(a))_mm256_mask_range_ps(				\
		_mm256_castsi256_ps(_mm256_set1_epi32(QNAN32_LANE)),	\
		_mm256_cmp_ps_mask(_ra, _rb, _CMP_ORD_Q), _ra, _rb, (imm)); \
})

#define RANGE_PD_64(a, b, imm) ({					\
	__m512d _ra = (__m512d)(a), _rb = (__m512d)(b);			\
	(__typeof__(a))_mm512_mask_range_pd(				\
		_mm512_castsi512_pd(_mm512_set1_epi64(QNAN64_LANE)),	\
		_mm512_cmp_pd_mask(_ra, _rb, _CMP_ORD_Q), _ra, _rb, (imm)); \
})

#define RANGE_PD_32(a, b, imm) ({					\
	__m256d _ra = (__m256d)(a), _rb = (__m256d)(b);			\
	(__typeof__(a))_mm256_mask_range_pd(				\
		_mm256_castsi256_pd(_mm256_set1_epi64x(QNAN64_LANE)),	\
		_mm256_cmp_pd_mask(_ra, _rb, _CMP_ORD_Q), _ra, _rb, (imm)); \
})

/* Integer min and max as single instructions: GCC makes a compare and a
 * blend of OP_IMIN. AVX2 has no 64-bit ones, AVX-512 VL has; 8 and 16-bit
 * ones of both signs are AVX2's (and, in 64 bytes, AVX-512 BW's). */
#define INTRIN(fn, M, a, b) ((__typeof__(a))fn((M)(a), (M)(b)))
#endif

/*
 * float16 lanes h (type H) to float32 lanes (type F, bits U), exactly. A
 * subnormal m * 2^-24 is built as the float 2^-14 * (1 + m / 1024) and
 * 2^-14 taken off: exact, and both operands are normal, so the result does
 * not depend on denormals-are-zero.
 */
#define WIDEN_F16(h, U, F) ({						\
	U _x = __builtin_convertvector((h), U);				\
	U _sign = (_x & 0x8000) << 16;					\
	U _exp = _x & 0x7c00;						\
	U _man = _x & 0x03ff;						\
	U _norm = ((_x & 0x7fff) << 13) + (112u << 23);			\
	U _special = (_man << 13) | 0x7f800000;				\
	U _sub = (U)((F)((_man << 13) | (113u << 23)) - 0x1p-14f);	\
	U _is_special = (U)(_exp == 0x7c00);				\
	U _is_sub = (U)(_exp == 0);					\
	(F)(_sign | (_norm & ~(_is_special | _is_sub)) |		\
	    (_special & _is_special) | (_sub & _is_sub));		\
})

#define WIDEN_BF16(h, U, F) ((F)(__builtin_convertvector((h), U) << 16))

/*
 * float32 encodings x (type U) to float16 in the low 16 bits of each lane,
 * round to nearest even, every case computed and the right one selected.
 * Same thresholds as acis_f32_to_f16; the subnormal shift is clamped to 31
 * in the lanes that do not use it so no lane shifts out of range (a
 * shift of 25..31 yields 0 there, which is right for tiny values too).
 */
#define NARROW_F16(x, U) ({						\
	U _x = (x);							\
	U _sign = (_x >> 16) & 0x8000;					\
	U _a = _x & 0x7fffffff;						\
	U _nan = ((_a >> 13) & 0x3ff) | 0x7e00;				\
	U _rb = _a - (112u << 23);					\
	U _norm = (_rb + 0xfff + ((_rb >> 13) & 1)) >> 13;		\
	U _sh = 126u - (_a >> 23);					\
	U _clamp = (U)(_sh > 31);					\
	U _m = (_a & 0x7fffff) | 0x800000;				\
	U _sub;								\
	U _is_nan = (U)(_a > 0x7f800000);				\
	U _is_big = (U)(_a >= 0x477ff000);				\
	U _is_norm = (U)(_a >= 0x38800000) & ~_is_big;			\
	_sh = (_sh & ~_clamp) | (31 & _clamp);				\
	_sub = (_m + ((((U){} + 1) << _sh) >> 1) - 1 +			\
		((_m >> _sh) & 1)) >> _sh;				\
	_sign | (_nan & _is_nan) | (0x7c00 & _is_big & ~_is_nan) |	\
		(_norm & _is_norm) | (_sub & ~(_is_big | _is_norm));	\
})

#define NARROW_BF16(x, U) ({						\
	U _x = (x);							\
	U _is_nan = (U)((_x & 0x7fffffff) > 0x7f800000);		\
	U _r = (_x + 0x7fff + ((_x >> 16) & 1)) >> 16;			\
	(_r & ~_is_nan) | (((_x >> 16) | 0x40) & _is_nan);		\
})

/*
 * Kernel bodies.
 *
 * Loads and stores are memcpy: src and acc may be unaligned, and GCC
 * makes them single unaligned vector moves.
 */
#define LOADV(V, p) ({							\
	V _v;								\
	memcpy(&_v, (p), sizeof(_v));					\
	_v;								\
})

#define STOREV(p, v) do {						\
	__typeof__(v) _sv = (v);					\
	memcpy((p), &_sv, sizeof(_sv));					\
} while (0)

/* A vector of source elements at p as accumulator lanes (type V, width
 * W): the same type, or float16/bfloat16 widened. */
#define SRC_SAME(V, W, p) LOADV(V, p)
#define SRC_F16(V, W, p)						\
	WIDEN_F16(LOADV(h16x_##W, p), u32x_##W, f32x_##W)
#define SRC_BF16(V, W, p)						\
	WIDEN_BF16(LOADV(h16x_##W, p), u32x_##W, f32x_##W)

/* The same for an accumulator vector VP of any width (a piece). */
#define SRCN_SAME(VP, p) LOADV(VP, p)
#define SRCN_F16(VP, p) ({						\
	typedef uint16_t _h __attribute__((vector_size(sizeof(VP) / 2))); \
	typedef uint32_t _u __attribute__((vector_size(sizeof(VP))));	\
	WIDEN_F16(LOADV(_h, p), _u, VP);				\
})
#define SRCN_BF16(VP, p) ({						\
	typedef uint16_t _h __attribute__((vector_size(sizeof(VP) / 2))); \
	typedef uint32_t _u __attribute__((vector_size(sizeof(VP))));	\
	WIDEN_BF16(LOADV(_h, p), _u, VP);				\
})

/*
 * Float sum and prod (CANON) leave NaN results as the hardware made them
 * in the loop and make them canonical after it, in a pass over acc that
 * runs only when the loop saw a NaN: the loop's check is cheaper than a
 * compare and a blend per vector.
 */
#define DEFINE_FIXUPS(isa, attr)					\
static __attribute__((noinline)) attr void				\
fix_nan32_##isa(void *acc, size_t n)					\
{									\
	uint8_t *a = acc;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		uint32_t u;						\
									\
		memcpy(&u, a + i * 4, 4);				\
		u = (u & 0x7fffffff) > 0x7f800000 ? QNAN32 : u;		\
		memcpy(a + i * 4, &u, 4);				\
	}								\
}									\
									\
static __attribute__((noinline)) attr void				\
fix_nan64_##isa(void *acc, size_t n)					\
{									\
	uint8_t *a = acc;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++) {					\
		uint64_t u;						\
									\
		memcpy(&u, a + i * 8, 8);				\
		u = (u << 1) > UINT64_C(0xffe0000000000000) ? QNAN64 : u; \
		memcpy(a + i * 8, &u, 8);				\
	}								\
}

/*
 * The loop of the variants without masks (generic, avx2): acc (T) = acc
 * OP src (source elements of TS bytes) in vectors V of W bytes, four an
 * iteration, then one at a time, up to element end. With CANON every
 * result is added into the watch t0/t1: a lane that was ever NaN stays
 * NaN there (inf - inf makes one too, which only costs the fix-up pass
 * for nothing).
 */
#define FOLD_LOOP4(T, TS, V, W, SRC, OP, CANON, end)			\
	for (; i + 4 * lanes <= (end); i += 4 * lanes) {		\
		V _a0 = LOADV(V, a + i * sizeof(T));			\
		V _a1 = LOADV(V, a + (i + lanes) * sizeof(T));		\
		V _a2 = LOADV(V, a + (i + 2 * lanes) * sizeof(T));	\
		V _a3 = LOADV(V, a + (i + 3 * lanes) * sizeof(T));	\
		V _r0 = OP(_a0, SRC(V, W, s + i * (TS)));		\
		V _r1 = OP(_a1, SRC(V, W, s + (i + lanes) * (TS)));	\
		V _r2 = OP(_a2, SRC(V, W, s + (i + 2 * lanes) * (TS)));	\
		V _r3 = OP(_a3, SRC(V, W, s + (i + 3 * lanes) * (TS)));	\
									\
		STOREV(a + i * sizeof(T), _r0);				\
		STOREV(a + (i + lanes) * sizeof(T), _r1);		\
		STOREV(a + (i + 2 * lanes) * sizeof(T), _r2);		\
		STOREV(a + (i + 3 * lanes) * sizeof(T), _r3);		\
		if (CANON) {						\
			t0 += _r0;					\
			t1 += _r1;					\
			t0 += _r2;					\
			t1 += _r3;					\
		}							\
	}								\
	for (; i + lanes <= (end); i += lanes) {			\
		V _r0 = OP(LOADV(V, a + i * sizeof(T)),			\
			   SRC(V, W, s + i * (TS)));			\
									\
		STOREV(a + i * sizeof(T), _r0);				\
		if (CANON)						\
			t0 += _r0;					\
	}

/* 1 if any lane of float vector t is NaN. */
#define ANY_NAN_generic(t) ({						\
	__typeof__(t) _t = (t);						\
	__typeof__(_t != _t) _m = _t != _t;				\
	uint64_t _w[sizeof(_m) / 8], _or = 0;				\
	size_t _j;							\
									\
	memcpy(_w, &_m, sizeof(_m));					\
	for (_j = 0; _j < sizeof(_m) / 8; _j++)				\
		_or |= _w[_j];						\
	_or != 0;							\
})

/*
 * A fold for the variants without masks (generic, avx2). The tail is the
 * last whole vector of the array, overlapping the one before it: computed
 * from the inputs before the loop writes any of them and stored after it,
 * so the overlap is written twice with the same values. Fewer elements
 * than a vector go to the scalar reference. No stack frame, no call on the
 * way through.
 */
#define KERNEL_FOLD_OVERLAP(name, attr, W, T, TS, V, SRC, MSRC, SRCN, OP, \
			    OPN, CANON, QL, FIX, ANY_NAN, DT, OPC)	\
static attr void							\
name(void *acc, const void *src, size_t n)				\
{									\
	const size_t lanes = sizeof(V) / sizeof(T);			\
	const size_t end = n - n % lanes;				\
	uint8_t *a = acc;						\
	const uint8_t *s = src;						\
	V t0 = {0}, t1 = {0}, last = {0};				\
	size_t i = 0;							\
									\
	if (n < lanes) {						\
		acis_reduce_fold_scalar(DT, OPC, acc, src, n);		\
		return;							\
	}								\
	if (end < n)							\
		last = OP(LOADV(V, a + (n - lanes) * sizeof(T)),	\
			  SRC(V, W, s + (n - lanes) * (TS)));		\
	FOLD_LOOP4(T, TS, V, W, SRC, OP, CANON, end)			\
	if (end < n) {							\
		STOREV(a + (n - lanes) * sizeof(T), last);		\
		if (CANON)						\
			t0 += last;					\
	}								\
	if (CANON && ANY_NAN(t0 + t1))					\
		FIX(acc, n);						\
}

#ifdef REDUCE_X86
#define ANY_NAN_avx2(t) ({						\
	__typeof__(t) _t = (t);						\
	_mm256_movemask_epi8((__m256i)(_t != _t)) != 0;			\
})

/* float16 by F16C's conversion: exact, and not subject to
 * denormals-are-zero, but it quiets a signalling NaN, so only folds use
 * it, whose NaN results become the canonical NaN anyway (init keeps a
 * NaN's bits). */
#define CVTPH_32 _mm256_cvtph_ps
#define CVTPH_64 _mm512_cvtph_ps
#define HALVES_32 __m128i
#define HALVES_64 __m256i
#define SRC_F16C(V, W, p) ((V)CVTPH_##W(LOADV(HALVES_##W, p)))

/* bfloat16 zero-extended by one instruction: GCC makes two halves and an
 * insert of WIDEN_BF16's __builtin_convertvector in 64-byte vectors
 * (bfloat16 sum: 20-25 % faster this way). */
#define ZX16_32 _mm256_cvtepu16_epi32
#define ZX16_64 _mm512_cvtepu16_epi32
#define SRC_BF16X(V, W, p)						\
	((V)((u32x_##W)ZX16_##W(LOADV(HALVES_##W, p)) << 16))

/*
 * AVX-512 masks, in 32 and 64-byte vectors (VL gives the 32-byte ones,
 * BW the 8 and 16-bit lanes): the first k lanes of a vector at p, the
 * others zero, and back; 16-bit source lanes; the lanes where r0 or r1 is
 * NaN, one compare for two vectors.
 */
#define MLOAD_32(T, V, k, p)						\
	(sizeof(T) == 1 ?						\
		 (V)_mm256_maskz_loadu_epi8((__mmask32)(k), (p)) :	\
	 sizeof(T) == 2 ?						\
		 (V)_mm256_maskz_loadu_epi16((__mmask16)(k), (p)) :	\
	 sizeof(T) == 4 ?						\
		 (V)_mm256_maskz_loadu_epi32((__mmask8)(k), (p)) :	\
		 (V)_mm256_maskz_loadu_epi64((__mmask8)(k), (p)))
#define MLOAD_64(T, V, k, p)						\
	(sizeof(T) == 1 ?						\
		 (V)_mm512_maskz_loadu_epi8((__mmask64)(k), (p)) :	\
	 sizeof(T) == 2 ?						\
		 (V)_mm512_maskz_loadu_epi16((__mmask32)(k), (p)) :	\
	 sizeof(T) == 4 ?						\
		 (V)_mm512_maskz_loadu_epi32((__mmask16)(k), (p)) :	\
		 (V)_mm512_maskz_loadu_epi64((__mmask8)(k), (p)))

#define MSTORE_32(T, p, k, v) do {					\
	if (sizeof(T) == 1)						\
		_mm256_mask_storeu_epi8((p), (__mmask32)(k), (__m256i)(v)); \
	else if (sizeof(T) == 2)					\
		_mm256_mask_storeu_epi16((p), (__mmask16)(k), (__m256i)(v)); \
	else if (sizeof(T) == 4)					\
		_mm256_mask_storeu_epi32((p), (__mmask8)(k), (__m256i)(v)); \
	else								\
		_mm256_mask_storeu_epi64((p), (__mmask8)(k), (__m256i)(v)); \
} while (0)
#define MSTORE_64(T, p, k, v) do {					\
	if (sizeof(T) == 1)						\
		_mm512_mask_storeu_epi8((p), (__mmask64)(k), (__m512i)(v)); \
	else if (sizeof(T) == 2)					\
		_mm512_mask_storeu_epi16((p), (__mmask32)(k), (__m512i)(v)); \
	else if (sizeof(T) == 4)					\
		_mm512_mask_storeu_epi32((p), (__mmask16)(k), (__m512i)(v)); \
	else								\
		_mm512_mask_storeu_epi64((p), (__mmask8)(k), (__m512i)(v)); \
} while (0)

#define MLOAD16_32(k, p) _mm_maskz_loadu_epi16((__mmask8)(k), (p))
#define MLOAD16_64(k, p) _mm256_maskz_loadu_epi16((__mmask16)(k), (p))

#define UNORD_32(r0, r1)						\
	(sizeof((r0)[0]) == 4 ?						\
		 _mm256_cmp_ps_mask((__m256)(r0), (__m256)(r1),		\
				    _CMP_UNORD_Q) :			\
		 _mm256_cmp_pd_mask((__m256d)(r0), (__m256d)(r1),	\
				    _CMP_UNORD_Q))
#define UNORD_64(r0, r1)						\
	(sizeof((r0)[0]) == 4 ?						\
		 _mm512_cmp_ps_mask((__m512)(r0), (__m512)(r1),		\
				    _CMP_UNORD_Q) :			\
		 _mm512_cmp_pd_mask((__m512d)(r0), (__m512d)(r1),	\
				    _CMP_UNORD_Q))

#define MSRC_SAME(V, W, k, p) MLOAD_##W(__typeof__(((V){})[0]), V, k, p)
#define MSRC_F16C(V, W, k, p) ((V)CVTPH_##W(MLOAD16_##W(k, p)))
#define MSRC_BF16(V, W, k, p)						\
	((V)((u32x_##W)ZX16_##W(MLOAD16_##W(k, p)) << 16))

/*
 * The avx512 loop: two vectors an iteration, each loaded, folded and
 * stored before the next, then one. With CANON the results' unordered
 * compare goes into the mask wk. (Against four vectors an iteration
 * with a float add per vector into a watch vector, as the variants
 * without masks do: float32 sum 256 B to 8 KiB as fast aligned, 5-10 %
 * faster with the accumulator 16 bytes into a line, alternating runs.)
 */
#define FOLD_ONE(T, TS, V, W, SRC, OP, j) ({				\
	V _r = OP(LOADV(V, a + (i + (j) * lanes) * sizeof(T)),		\
		  SRC(V, W, s + (i + (j) * lanes) * (TS)));		\
									\
	STOREV(a + (i + (j) * lanes) * sizeof(T), _r);			\
	_r;								\
})

#define FOLD_LOOP2(T, TS, V, W, SRC, OP, CANON, end)			\
	for (; i < ((end) & ~(2 * lanes - 1)); i += 2 * lanes) {	\
		V _r0 = FOLD_ONE(T, TS, V, W, SRC, OP, 0);		\
		V _r1 = FOLD_ONE(T, TS, V, W, SRC, OP, 1);		\
									\
		if (CANON)						\
			wk = _kor_mask16(wk, UNORD_##W(_r0, _r1));	\
	}								\
	if ((end) & lanes) {						\
		V _r0 = FOLD_ONE(T, TS, V, W, SRC, OP, 0);		\
									\
		if (CANON)						\
			wk = _kor_mask16(wk, UNORD_##W(_r0, _r0));	\
		i += lanes;						\
	}

/* One piece of PB bytes of acc (a power of two below the vector) at a,
 * in a vector of its own width, its NaN made canonical at once; a and s
 * move past it. A PB below the element size is never used (the element
 * size stands in for it so that the type is valid). */
#define FOLD_PIECE(T, TS, PB, SRCN, OPN, CANON, QL) do {		\
	typedef T _vp __attribute__((vector_size(			\
		(PB) > sizeof(T) ? (PB) : sizeof(T))));			\
	_vp _pr = OPN(LOADV(_vp, a), SRCN(_vp, s));			\
									\
	if (CANON)							\
		_pr = CANON_NAN(_pr, QL);				\
	STOREV(a, _pr);							\
	a += sizeof(_vp);						\
	s += sizeof(_vp) / sizeof(T) * (TS);				\
} while (0)

#ifndef PEEL_MIN
#define PEEL_MIN 2048
#endif

#define PEELS(a, T, n)							\
	(((a) & 63) != 0 && ((a) & (sizeof(T) - 1)) == 0 &&		\
	 (n) * sizeof(T) >= PEEL_MIN)

/*
 * A fold with AVX-512 masks, in vectors of W bytes. With PEEL, an
 * accumulator that starts inside a cache line is first brought to the
 * line's end in naturally aligned pieces (1, 2, 4, 8, 16, 32 bytes, from
 * the element size up), so that no load or store of acc in the loop
 * straddles two lines. The tail is one vector under a mask (masked-off
 * lanes load zeros, which are neither NaN nor stored); the mask is 64 bits
 * wide for the 64 byte lanes of 8-bit integers.
 */
#define KERNEL_FOLD_MASKED(name, attr, W, T, TS, V, SRC, MSRC, SRCN, OP, \
			   OPN, CANON, QL, FIX, PEEL, DT, OPC)		\
static attr void							\
name(void *acc, const void *src, size_t n)				\
{									\
	const size_t lanes = sizeof(V) / sizeof(T);			\
	uint8_t *a = acc;						\
	const uint8_t *s = src;						\
	__mmask16 wk = 0;						\
	size_t i = 0, m = n;						\
									\
	if (PEEL && PEELS((uintptr_t)a, T, m)) {			\
		size_t hb = 64 - ((uintptr_t)a & 63);			\
									\
		if (sizeof(T) < 2 && (hb & 1))				\
			FOLD_PIECE(T, TS, 1, SRCN, OPN, CANON, QL);	\
		if (sizeof(T) < 4 && (hb & 2))				\
			FOLD_PIECE(T, TS, 2, SRCN, OPN, CANON, QL);	\
		if (hb & 4)						\
			FOLD_PIECE(T, TS, 4, SRCN, OPN, CANON, QL);	\
		if (hb & 8)						\
			FOLD_PIECE(T, TS, 8, SRCN, OPN, CANON, QL);	\
		if (hb & 16)						\
			FOLD_PIECE(T, TS, 16, SRCN, OPN, CANON, QL);	\
		if (hb & 32)						\
			FOLD_PIECE(T, TS, 32, SRCN, OPN, CANON, QL);	\
		m -= hb / sizeof(T);					\
	}								\
	FOLD_LOOP2(T, TS, V, W, SRC, OP, CANON, m)			\
	if (m & (lanes - 1)) {						\
		uint64_t k = (UINT64_C(1) << (m & (lanes - 1))) - 1;	\
		V r = OP(MLOAD_##W(T, V, k, a + i * sizeof(T)),		\
			 MSRC(V, W, k, s + i * (TS)));			\
									\
		MSTORE_##W(T, a + i * sizeof(T), k, r);			\
		if (CANON)						\
			wk = _kor_mask16(wk, UNORD_##W(r, r));		\
	}								\
	if (CANON && !_kortestz_mask16_u8(wk, wk))			\
		FIX(acc, n);						\
}

/*
 * avx512's folds pick their vector width per call. Both pointers on a
 * cache line boundary: 64-byte vectors. Otherwise 32-byte ones, whose
 * loads and stores straddle a line half as often: with the pointers 16
 * bytes into a line, 32-byte vectors fold float32 sum 20-30 % faster at
 * 256 B to 1 KiB, and GCC's own loop in 32-byte vectors beats its
 * 64-byte one by as much; aligned, 64-byte vectors are 10-20 % faster.
 * From PEEL_MIN bytes an accumulator that starts inside a line is peeled
 * to the line's end first (FOLD_PIECE) and the rest takes 64-byte vectors
 * if the source then lies on a boundary too, as when both are frames'
 * payloads: 1.3-1.5 times as fast from 2 KiB, but slower below 1 KiB,
 * where the pieces cost more than the straddling saves.
 */
#define PICK_WIDTH(name, T)						\
static AVX512_ATTR void							\
name##_avx512(void *acc, const void *src, size_t n)			\
{									\
	uintptr_t a = (uintptr_t)acc, s = (uintptr_t)src;		\
									\
	if (((a | s) & 63) == 0 ||					\
	    (PEELS(a, T, n) && ((s + 64 - (a & 63)) & 63) == 0))	\
		name##_avx512z(acc, src, n);				\
	else								\
		name##_avx512y(acc, src, n);				\
}
#endif

/* acc (float32) = widen(src (16-bit)). */
#define KERNEL_INIT16(name, attr, H, U, F, WIDEN)			\
static attr void							\
name(void *acc, const void *src, size_t n)				\
{									\
	const size_t lanes = sizeof(F) / sizeof(float);			\
	uint8_t *a = acc;						\
	const uint8_t *s = src;						\
	size_t i;							\
									\
	for (i = 0; i + lanes <= n; i += lanes) {			\
		F va;							\
		H vh;							\
									\
		memcpy(&vh, s + i * 2, sizeof(H));			\
		va = WIDEN(vh, U, F);					\
		memcpy(a + i * 4, &va, sizeof(F));			\
	}								\
	if (i < n) {							\
		F va;							\
		H vh = {0};						\
									\
		memcpy(&vh, s + i * 2, (n - i) * 2);			\
		va = WIDEN(vh, U, F);					\
		memcpy(a + i * 4, &va, (n - i) * 4);			\
	}								\
}

/* dst (16-bit) = narrow(acc (float32)). */
#define KERNEL_FINISH16(name, attr, H, U, NARROW)			\
static attr void							\
name(void *dst, const void *acc, size_t n)				\
{									\
	const size_t lanes = sizeof(U) / sizeof(uint32_t);		\
	uint8_t *d = dst;						\
	const uint8_t *a = acc;						\
	size_t i;							\
									\
	for (i = 0; i + lanes <= n; i += lanes) {			\
		U va;							\
		H vh;							\
									\
		memcpy(&va, a + i * 4, sizeof(U));			\
		vh = __builtin_convertvector(NARROW(va, U), H);		\
		memcpy(d + i * 2, &vh, sizeof(H));			\
	}								\
	if (i < n) {							\
		U va = {0};						\
		H vh;							\
									\
		memcpy(&va, a + i * 4, (n - i) * 4);			\
		vh = __builtin_convertvector(NARROW(va, U), H);		\
		memcpy(d + i * 2, &vh, (n - i) * 2);			\
	}								\
}

/*
 * What differs between the variants: the fold's kernel, integer and float
 * min and max, the float16 widening. avx512z and avx512y are avx512's
 * 64 and 32-byte folds.
 */
#define FOLD_generic KERNEL_FOLD_OVERLAP
#define S8_MIN_generic OP_IMIN
#define S8_MAX_generic OP_IMAX
#define U8_MIN_generic OP_IMIN
#define U8_MAX_generic OP_IMAX
#define S16_MIN_generic OP_IMIN
#define S16_MAX_generic OP_IMAX
#define U16_MIN_generic OP_IMIN
#define U16_MAX_generic OP_IMAX
#define S32_MIN_generic OP_IMIN
#define S32_MAX_generic OP_IMAX
#define U32_MIN_generic OP_IMIN
#define U32_MAX_generic OP_IMAX
#define S64_MIN_generic OP_IMIN
#define S64_MAX_generic OP_IMAX
#define U64_MIN_generic OP_IMIN
#define U64_MAX_generic OP_IMAX
#define F32_MIN_generic OP_F32_MIN
#define F32_MAX_generic OP_F32_MAX
#define F64_MIN_generic OP_F64_MIN
#define F64_MAX_generic OP_F64_MAX
#define SRC_F16_generic SRC_F16
#define SRC_BF16_generic SRC_BF16
#define EXTRA_generic ANY_NAN_generic

#ifdef REDUCE_X86
#define FOLD_avx2 KERNEL_FOLD_OVERLAP
#define S8_MIN_avx2(a, b) INTRIN(_mm256_min_epi8, __m256i, a, b)
#define S8_MAX_avx2(a, b) INTRIN(_mm256_max_epi8, __m256i, a, b)
#define U8_MIN_avx2(a, b) INTRIN(_mm256_min_epu8, __m256i, a, b)
#define U8_MAX_avx2(a, b) INTRIN(_mm256_max_epu8, __m256i, a, b)
#define S16_MIN_avx2(a, b) INTRIN(_mm256_min_epi16, __m256i, a, b)
#define S16_MAX_avx2(a, b) INTRIN(_mm256_max_epi16, __m256i, a, b)
#define U16_MIN_avx2(a, b) INTRIN(_mm256_min_epu16, __m256i, a, b)
#define U16_MAX_avx2(a, b) INTRIN(_mm256_max_epu16, __m256i, a, b)
#define S32_MIN_avx2(a, b) INTRIN(_mm256_min_epi32, __m256i, a, b)
#define S32_MAX_avx2(a, b) INTRIN(_mm256_max_epi32, __m256i, a, b)
#define U32_MIN_avx2(a, b) INTRIN(_mm256_min_epu32, __m256i, a, b)
#define U32_MAX_avx2(a, b) INTRIN(_mm256_max_epu32, __m256i, a, b)
#define S64_MIN_avx2 OP_IMIN
#define S64_MAX_avx2 OP_IMAX
#define U64_MIN_avx2 OP_IMIN
#define U64_MAX_avx2 OP_IMAX
#define F32_MIN_avx2 OP_F32_MIN
#define F32_MAX_avx2 OP_F32_MAX
#define F64_MIN_avx2 OP_F64_MIN
#define F64_MAX_avx2 OP_F64_MAX
#define SRC_F16_avx2 SRC_F16C
#define SRC_BF16_avx2 SRC_BF16X
#define EXTRA_avx2 ANY_NAN_avx2

#define FOLD_avx512y KERNEL_FOLD_MASKED
#define S8_MIN_avx512y S8_MIN_avx2
#define S8_MAX_avx512y S8_MAX_avx2
#define U8_MIN_avx512y U8_MIN_avx2
#define U8_MAX_avx512y U8_MAX_avx2
#define S16_MIN_avx512y S16_MIN_avx2
#define S16_MAX_avx512y S16_MAX_avx2
#define U16_MIN_avx512y U16_MIN_avx2
#define U16_MAX_avx512y U16_MAX_avx2
#define S32_MIN_avx512y S32_MIN_avx2
#define S32_MAX_avx512y S32_MAX_avx2
#define U32_MIN_avx512y U32_MIN_avx2
#define U32_MAX_avx512y U32_MAX_avx2
#define S64_MIN_avx512y(a, b) INTRIN(_mm256_min_epi64, __m256i, a, b)
#define S64_MAX_avx512y(a, b) INTRIN(_mm256_max_epi64, __m256i, a, b)
#define U64_MIN_avx512y(a, b) INTRIN(_mm256_min_epu64, __m256i, a, b)
#define U64_MAX_avx512y(a, b) INTRIN(_mm256_max_epu64, __m256i, a, b)
#define F32_MIN_avx512y(a, b) RANGE_PS_32(a, b, 0x4)
#define F32_MAX_avx512y(a, b) RANGE_PS_32(a, b, 0x5)
#define F64_MIN_avx512y(a, b) RANGE_PD_32(a, b, 0x4)
#define F64_MAX_avx512y(a, b) RANGE_PD_32(a, b, 0x5)
#define EXTRA_avx512y 0

#define FOLD_avx512z KERNEL_FOLD_MASKED
#define S8_MIN_avx512z(a, b) INTRIN(_mm512_min_epi8, __m512i, a, b)
#define S8_MAX_avx512z(a, b) INTRIN(_mm512_max_epi8, __m512i, a, b)
#define U8_MIN_avx512z(a, b) INTRIN(_mm512_min_epu8, __m512i, a, b)
#define U8_MAX_avx512z(a, b) INTRIN(_mm512_max_epu8, __m512i, a, b)
#define S16_MIN_avx512z(a, b) INTRIN(_mm512_min_epi16, __m512i, a, b)
#define S16_MAX_avx512z(a, b) INTRIN(_mm512_max_epi16, __m512i, a, b)
#define U16_MIN_avx512z(a, b) INTRIN(_mm512_min_epu16, __m512i, a, b)
#define U16_MAX_avx512z(a, b) INTRIN(_mm512_max_epu16, __m512i, a, b)
#define S32_MIN_avx512z(a, b) INTRIN(_mm512_min_epi32, __m512i, a, b)
#define S32_MAX_avx512z(a, b) INTRIN(_mm512_max_epi32, __m512i, a, b)
#define U32_MIN_avx512z(a, b) INTRIN(_mm512_min_epu32, __m512i, a, b)
#define U32_MAX_avx512z(a, b) INTRIN(_mm512_max_epu32, __m512i, a, b)
#define S64_MIN_avx512z(a, b) INTRIN(_mm512_min_epi64, __m512i, a, b)
#define S64_MAX_avx512z(a, b) INTRIN(_mm512_max_epi64, __m512i, a, b)
#define U64_MIN_avx512z(a, b) INTRIN(_mm512_min_epu64, __m512i, a, b)
#define U64_MAX_avx512z(a, b) INTRIN(_mm512_max_epu64, __m512i, a, b)
#define F32_MIN_avx512z(a, b) RANGE_PS_64(a, b, 0x4)
#define F32_MAX_avx512z(a, b) RANGE_PS_64(a, b, 0x5)
#define F64_MIN_avx512z(a, b) RANGE_PD_64(a, b, 0x4)
#define F64_MAX_avx512z(a, b) RANGE_PD_64(a, b, 0x5)
#define EXTRA_avx512z 1

/* avx512's float16 and bfloat16 folds: always 64-byte vectors (their
 * source vectors are 32 bytes), peeled from PEEL_MIN. */
#define FOLD_avx512 KERNEL_FOLD_MASKED
#define F32_MIN_avx512 F32_MIN_avx512z
#define F32_MAX_avx512 F32_MAX_avx512z
#define SRC_F16_avx512 SRC_F16C
#define MSRC_F16_avx512 MSRC_F16C
#define SRC_BF16_avx512 SRC_BF16X
#define EXTRA_avx512 1
#endif

/* EXTRA is the NaN test of the folds without masks and whether the
 * masked ones peel (the 64-byte ones); only the masked ones use MSRC. */
#define MSRC_F16_generic MSRC_UNUSED
#define MSRC_F16_avx2 MSRC_UNUSED
#define MSRC_UNUSED(V, W, k, p)

/*
 * Folds of one variant: name, accumulator element T and vector V, the
 * variant's op and the vector-extension one, of the same semantics, for
 * pieces of any width; CANON for float sum and prod. Signed and unsigned
 * integers share sum, prod and the bitwise ops (computed unsigned:
 * wrapping, no signed overflow); only min and max compare signed.
 */
#define IFOLD(isa, fx, attr, W, name, T, V, OP, OPN, DT, OPC)		\
	FOLD_##isa(name##_##isa, attr, W, T, sizeof(T), V, SRC_SAME,	\
		   MSRC_SAME, SRCN_SAME, OP, OPN, 0, 0, fix_nan32_##fx,	\
		   EXTRA_##isa, DT, OPC)
#define FFOLD(isa, fx, attr, W, name, T, V, OP, OPN, CANON, QL, FIX, DT, \
	      OPC)							\
	FOLD_##isa(name##_##isa, attr, W, T, sizeof(T), V, SRC_SAME,	\
		   MSRC_SAME, SRCN_SAME, OP, OPN, CANON, QL,		\
		   FIX##_##fx, EXTRA_##isa, DT, OPC)
#define HFOLD(isa, fx, attr, W, name, SRC, MSRC, SRCN, OP, OPN, CANON,	\
	      DT, OPC)							\
	FOLD_##isa(name##_##isa, attr, W, float, 2, f32x_##W, SRC, MSRC, \
		   SRCN, OP, OPN, CANON, QNAN32_LANE, fix_nan32_##fx,	\
		   EXTRA_##isa, DT, OPC)

/* Integer folds of one width w (bits): sum, prod and the bitwise ops
 * (unsigned), min and max of either sign. S and U name the variant's
 * signed and unsigned min and max. */
#define DEFINE_INT_FOLDS(isa, fx, attr, W, w, S, U, DS, DU)		\
IFOLD(isa, fx, attr, W, fold_u##w##_sum, uint##w##_t, u##w##x_##W,	\
      OP_ADD, OP_ADD, DU, ACIS_OP_SUM)					\
IFOLD(isa, fx, attr, W, fold_u##w##_prod, uint##w##_t, u##w##x_##W,	\
      OP_MUL, OP_MUL, DU, ACIS_OP_PROD)					\
IFOLD(isa, fx, attr, W, fold_u##w##_band, uint##w##_t, u##w##x_##W,	\
      OP_AND, OP_AND, DU, ACIS_OP_BAND)					\
IFOLD(isa, fx, attr, W, fold_u##w##_bor, uint##w##_t, u##w##x_##W,	\
      OP_OR, OP_OR, DU, ACIS_OP_BOR)					\
IFOLD(isa, fx, attr, W, fold_u##w##_bxor, uint##w##_t, u##w##x_##W,	\
      OP_XOR, OP_XOR, DU, ACIS_OP_BXOR)					\
IFOLD(isa, fx, attr, W, fold_u##w##_min, uint##w##_t, u##w##x_##W,	\
      U##_MIN_##isa, OP_IMIN, DU, ACIS_OP_MIN)				\
IFOLD(isa, fx, attr, W, fold_u##w##_max, uint##w##_t, u##w##x_##W,	\
      U##_MAX_##isa, OP_IMAX, DU, ACIS_OP_MAX)				\
IFOLD(isa, fx, attr, W, fold_i##w##_min, int##w##_t, i##w##x_##W,	\
      S##_MIN_##isa, OP_IMIN, DS, ACIS_OP_MIN)				\
IFOLD(isa, fx, attr, W, fold_i##w##_max, int##w##_t, i##w##x_##W,	\
      S##_MAX_##isa, OP_IMAX, DS, ACIS_OP_MAX)

/* Folds whose source is the accumulator's type. */
#define DEFINE_SAME_FOLDS(isa, fx, attr, W)				\
DEFINE_INT_FOLDS(isa, fx, attr, W, 8, S8, U8, ACIS_INT8, ACIS_UINT8)	\
DEFINE_INT_FOLDS(isa, fx, attr, W, 16, S16, U16, ACIS_INT16,		\
		 ACIS_UINT16)						\
IFOLD(isa, fx, attr, W, fold_u32_sum, uint32_t, u32x_##W, OP_ADD,	\
      OP_ADD, ACIS_UINT32, ACIS_OP_SUM)					\
IFOLD(isa, fx, attr, W, fold_u32_prod, uint32_t, u32x_##W, OP_MUL,	\
      OP_MUL, ACIS_UINT32, ACIS_OP_PROD)				\
IFOLD(isa, fx, attr, W, fold_u32_band, uint32_t, u32x_##W, OP_AND,	\
      OP_AND, ACIS_UINT32, ACIS_OP_BAND)				\
IFOLD(isa, fx, attr, W, fold_u32_bor, uint32_t, u32x_##W, OP_OR, OP_OR,	\
      ACIS_UINT32, ACIS_OP_BOR)						\
IFOLD(isa, fx, attr, W, fold_u32_bxor, uint32_t, u32x_##W, OP_XOR,	\
      OP_XOR, ACIS_UINT32, ACIS_OP_BXOR)				\
IFOLD(isa, fx, attr, W, fold_u32_min, uint32_t, u32x_##W,		\
      U32_MIN_##isa, OP_IMIN, ACIS_UINT32, ACIS_OP_MIN)			\
IFOLD(isa, fx, attr, W, fold_u32_max, uint32_t, u32x_##W,		\
      U32_MAX_##isa, OP_IMAX, ACIS_UINT32, ACIS_OP_MAX)			\
IFOLD(isa, fx, attr, W, fold_i32_min, int32_t, i32x_##W, S32_MIN_##isa,	\
      OP_IMIN, ACIS_INT32, ACIS_OP_MIN)					\
IFOLD(isa, fx, attr, W, fold_i32_max, int32_t, i32x_##W, S32_MAX_##isa,	\
      OP_IMAX, ACIS_INT32, ACIS_OP_MAX)					\
IFOLD(isa, fx, attr, W, fold_u64_sum, uint64_t, u64x_##W, OP_ADD,	\
      OP_ADD, ACIS_UINT64, ACIS_OP_SUM)					\
IFOLD(isa, fx, attr, W, fold_u64_prod, uint64_t, u64x_##W, OP_MUL,	\
      OP_MUL, ACIS_UINT64, ACIS_OP_PROD)				\
IFOLD(isa, fx, attr, W, fold_u64_band, uint64_t, u64x_##W, OP_AND,	\
      OP_AND, ACIS_UINT64, ACIS_OP_BAND)				\
IFOLD(isa, fx, attr, W, fold_u64_bor, uint64_t, u64x_##W, OP_OR, OP_OR,	\
      ACIS_UINT64, ACIS_OP_BOR)						\
IFOLD(isa, fx, attr, W, fold_u64_bxor, uint64_t, u64x_##W, OP_XOR,	\
      OP_XOR, ACIS_UINT64, ACIS_OP_BXOR)				\
IFOLD(isa, fx, attr, W, fold_u64_min, uint64_t, u64x_##W,		\
      U64_MIN_##isa, OP_IMIN, ACIS_UINT64, ACIS_OP_MIN)			\
IFOLD(isa, fx, attr, W, fold_u64_max, uint64_t, u64x_##W,		\
      U64_MAX_##isa, OP_IMAX, ACIS_UINT64, ACIS_OP_MAX)			\
IFOLD(isa, fx, attr, W, fold_i64_min, int64_t, i64x_##W, S64_MIN_##isa,	\
      OP_IMIN, ACIS_INT64, ACIS_OP_MIN)					\
IFOLD(isa, fx, attr, W, fold_i64_max, int64_t, i64x_##W, S64_MAX_##isa,	\
      OP_IMAX, ACIS_INT64, ACIS_OP_MAX)					\
FFOLD(isa, fx, attr, W, fold_f32_sum, float, f32x_##W, OP_ADD, OP_ADD,	\
      1, QNAN32_LANE, fix_nan32, ACIS_FLOAT32, ACIS_OP_SUM)		\
FFOLD(isa, fx, attr, W, fold_f32_prod, float, f32x_##W, OP_MUL, OP_MUL,	\
      1, QNAN32_LANE, fix_nan32, ACIS_FLOAT32, ACIS_OP_PROD)		\
FFOLD(isa, fx, attr, W, fold_f32_min, float, f32x_##W, F32_MIN_##isa,	\
      OP_F32_MIN, 0, QNAN32_LANE, fix_nan32, ACIS_FLOAT32, ACIS_OP_MIN)	\
FFOLD(isa, fx, attr, W, fold_f32_max, float, f32x_##W, F32_MAX_##isa,	\
      OP_F32_MAX, 0, QNAN32_LANE, fix_nan32, ACIS_FLOAT32, ACIS_OP_MAX)	\
FFOLD(isa, fx, attr, W, fold_f64_sum, double, f64x_##W, OP_ADD, OP_ADD,	\
      1, QNAN64_LANE, fix_nan64, ACIS_FLOAT64, ACIS_OP_SUM)		\
FFOLD(isa, fx, attr, W, fold_f64_prod, double, f64x_##W, OP_MUL,	\
      OP_MUL, 1, QNAN64_LANE, fix_nan64, ACIS_FLOAT64, ACIS_OP_PROD)	\
FFOLD(isa, fx, attr, W, fold_f64_min, double, f64x_##W, F64_MIN_##isa,	\
      OP_F64_MIN, 0, QNAN64_LANE, fix_nan64, ACIS_FLOAT64, ACIS_OP_MIN)	\
FFOLD(isa, fx, attr, W, fold_f64_max, double, f64x_##W, F64_MAX_##isa,	\
      OP_F64_MAX, 0, QNAN64_LANE, fix_nan64, ACIS_FLOAT64, ACIS_OP_MAX)

/* Folds of float16 and bfloat16 into float32. */
#define DEFINE_HALF_FOLDS(isa, fx, attr, W)				\
HFOLD(isa, fx, attr, W, fold_f16_sum, SRC_F16_##isa, MSRC_F16_##isa,	\
      SRCN_F16, OP_ADD, OP_ADD, 1, ACIS_FLOAT16, ACIS_OP_SUM)		\
HFOLD(isa, fx, attr, W, fold_f16_prod, SRC_F16_##isa, MSRC_F16_##isa,	\
      SRCN_F16, OP_MUL, OP_MUL, 1, ACIS_FLOAT16, ACIS_OP_PROD)		\
HFOLD(isa, fx, attr, W, fold_f16_min, SRC_F16_##isa, MSRC_F16_##isa,	\
      SRCN_F16, F32_MIN_##isa, OP_F32_MIN, 0, ACIS_FLOAT16,		\
      ACIS_OP_MIN)							\
HFOLD(isa, fx, attr, W, fold_f16_max, SRC_F16_##isa, MSRC_F16_##isa,	\
      SRCN_F16, F32_MAX_##isa, OP_F32_MAX, 0, ACIS_FLOAT16,		\
      ACIS_OP_MAX)							\
HFOLD(isa, fx, attr, W, fold_bf16_sum, SRC_BF16_##isa, MSRC_BF16,	\
      SRCN_BF16, OP_ADD, OP_ADD, 1, ACIS_BFLOAT16, ACIS_OP_SUM)		\
HFOLD(isa, fx, attr, W, fold_bf16_prod, SRC_BF16_##isa, MSRC_BF16,	\
      SRCN_BF16, OP_MUL, OP_MUL, 1, ACIS_BFLOAT16, ACIS_OP_PROD)	\
HFOLD(isa, fx, attr, W, fold_bf16_min, SRC_BF16_##isa, MSRC_BF16,	\
      SRCN_BF16, F32_MIN_##isa, OP_F32_MIN, 0, ACIS_BFLOAT16,		\
      ACIS_OP_MIN)							\
HFOLD(isa, fx, attr, W, fold_bf16_max, SRC_BF16_##isa, MSRC_BF16,	\
      SRCN_BF16, F32_MAX_##isa, OP_F32_MAX, 0, ACIS_BFLOAT16,		\
      ACIS_OP_MAX)

#define DEFINE_FOLDS(isa, attr, W)					\
DEFINE_FIXUPS(isa, attr)						\
DEFINE_SAME_FOLDS(isa, isa, attr, W)					\
DEFINE_HALF_FOLDS(isa, isa, attr, W)

/* init and finish of the 16-bit floats. */
#define DEFINE_INIT_FINISH(isa, attr, W)				\
KERNEL_INIT16(init_f16_##isa, attr, h16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16)						\
KERNEL_INIT16(init_bf16_##isa, attr, h16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_BF16)						\
KERNEL_FINISH16(finish_f16_##isa, attr, h16x_##W, u32x_##W, NARROW_F16) \
KERNEL_FINISH16(finish_bf16_##isa, attr, h16x_##W, u32x_##W, NARROW_BF16)

/* The generic variant has no attribute: the compiler's own flags (on x86
 * without -march, SSE2). The others add the features they use to those
 * flags (a narrower target than the build's could not inline the
 * intrinsics); they are chosen by the x86-64 level that includes them. */
#define NO_ATTR
#define AVX2_ATTR __attribute__((target("avx2,f16c")))
#define AVX512_ATTR							\
	__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,f16c")))

DEFINE_FOLDS(generic, NO_ATTR, 16)
DEFINE_INIT_FINISH(generic, NO_ATTR, 16)
#ifdef REDUCE_X86
DEFINE_FOLDS(avx2, AVX2_ATTR, 32)
DEFINE_INIT_FINISH(avx2, AVX2_ATTR, 32)
DEFINE_FIXUPS(avx512, AVX512_ATTR)
DEFINE_SAME_FOLDS(avx512y, avx512, AVX512_ATTR, 32)
DEFINE_SAME_FOLDS(avx512z, avx512, AVX512_ATTR, 64)
DEFINE_HALF_FOLDS(avx512, avx512, AVX512_ATTR, 64)
DEFINE_INIT_FINISH(avx512, AVX512_ATTR, 64)
PICK_WIDTH(fold_u8_sum, uint8_t)
PICK_WIDTH(fold_u8_prod, uint8_t)
PICK_WIDTH(fold_u8_band, uint8_t)
PICK_WIDTH(fold_u8_bor, uint8_t)
PICK_WIDTH(fold_u8_bxor, uint8_t)
PICK_WIDTH(fold_u8_min, uint8_t)
PICK_WIDTH(fold_u8_max, uint8_t)
PICK_WIDTH(fold_i8_min, int8_t)
PICK_WIDTH(fold_i8_max, int8_t)
PICK_WIDTH(fold_u16_sum, uint16_t)
PICK_WIDTH(fold_u16_prod, uint16_t)
PICK_WIDTH(fold_u16_band, uint16_t)
PICK_WIDTH(fold_u16_bor, uint16_t)
PICK_WIDTH(fold_u16_bxor, uint16_t)
PICK_WIDTH(fold_u16_min, uint16_t)
PICK_WIDTH(fold_u16_max, uint16_t)
PICK_WIDTH(fold_i16_min, int16_t)
PICK_WIDTH(fold_i16_max, int16_t)
PICK_WIDTH(fold_u32_sum, uint32_t)
PICK_WIDTH(fold_u32_prod, uint32_t)
PICK_WIDTH(fold_u32_band, uint32_t)
PICK_WIDTH(fold_u32_bor, uint32_t)
PICK_WIDTH(fold_u32_bxor, uint32_t)
PICK_WIDTH(fold_u32_min, uint32_t)
PICK_WIDTH(fold_u32_max, uint32_t)
PICK_WIDTH(fold_i32_min, int32_t)
PICK_WIDTH(fold_i32_max, int32_t)
PICK_WIDTH(fold_u64_sum, uint64_t)
PICK_WIDTH(fold_u64_prod, uint64_t)
PICK_WIDTH(fold_u64_band, uint64_t)
PICK_WIDTH(fold_u64_bor, uint64_t)
PICK_WIDTH(fold_u64_bxor, uint64_t)
PICK_WIDTH(fold_u64_min, uint64_t)
PICK_WIDTH(fold_u64_max, uint64_t)
PICK_WIDTH(fold_i64_min, int64_t)
PICK_WIDTH(fold_i64_max, int64_t)
PICK_WIDTH(fold_f32_sum, float)
PICK_WIDTH(fold_f32_prod, float)
PICK_WIDTH(fold_f32_min, float)
PICK_WIDTH(fold_f32_max, float)
PICK_WIDTH(fold_f64_sum, double)
PICK_WIDTH(fold_f64_prod, double)
PICK_WIDTH(fold_f64_min, double)
PICK_WIDTH(fold_f64_max, double)
#endif

/* Init and finish of the types whose accumulator is the type itself.
 * memmove: finishing in place (dst == acc) is allowed. */
static void
copy1(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n);
}

static void
copy2(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n * 2);
}

static void
copy4(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n * 4);
}

static void
copy8(void *dst, const void *src, size_t n)
{
	memmove(dst, src, n * 8);
}

/*
 * Dispatch tables: one per variant, built by the compiler, so no call ever
 * sees a half-built table. Invalid pairs are NULL.
 */
typedef void (*reduce_fn)(void *dst, const void *src, size_t n);

struct reduce_kernels {
	const char *name;
	reduce_fn init[ACIS_DTYPE_MAX];
	reduce_fn finish[ACIS_DTYPE_MAX];
	reduce_fn fold[ACIS_DTYPE_MAX][ACIS_OP_MAX_];
};

#define INT_OPS(w, sign, isa) {						\
	[ACIS_OP_SUM] = fold_u##w##_sum_##isa,				\
	[ACIS_OP_PROD] = fold_u##w##_prod_##isa,			\
	[ACIS_OP_MIN] = fold_##sign##w##_min_##isa,			\
	[ACIS_OP_MAX] = fold_##sign##w##_max_##isa,			\
	[ACIS_OP_BAND] = fold_u##w##_band_##isa,			\
	[ACIS_OP_BOR] = fold_u##w##_bor_##isa,				\
	[ACIS_OP_BXOR] = fold_u##w##_bxor_##isa,			\
}

#define FLOAT_OPS(t, isa) {						\
	[ACIS_OP_SUM] = fold_##t##_sum_##isa,				\
	[ACIS_OP_PROD] = fold_##t##_prod_##isa,				\
	[ACIS_OP_MIN] = fold_##t##_min_##isa,				\
	[ACIS_OP_MAX] = fold_##t##_max_##isa,				\
}

#define KERNEL_TABLE(isa) {						\
	.name = #isa,							\
	.init = {							\
		[ACIS_INT32] = copy4, [ACIS_INT64] = copy8,		\
		[ACIS_UINT32] = copy4, [ACIS_UINT64] = copy8,		\
		[ACIS_FLOAT32] = copy4, [ACIS_FLOAT64] = copy8,		\
		[ACIS_FLOAT16] = init_f16_##isa,			\
		[ACIS_BFLOAT16] = init_bf16_##isa,			\
		[ACIS_INT8] = copy1, [ACIS_UINT8] = copy1,		\
		[ACIS_INT16] = copy2, [ACIS_UINT16] = copy2,		\
	},								\
	.finish = {							\
		[ACIS_INT32] = copy4, [ACIS_INT64] = copy8,		\
		[ACIS_UINT32] = copy4, [ACIS_UINT64] = copy8,		\
		[ACIS_FLOAT32] = copy4, [ACIS_FLOAT64] = copy8,		\
		[ACIS_FLOAT16] = finish_f16_##isa,			\
		[ACIS_BFLOAT16] = finish_bf16_##isa,			\
		[ACIS_INT8] = copy1, [ACIS_UINT8] = copy1,		\
		[ACIS_INT16] = copy2, [ACIS_UINT16] = copy2,		\
	},								\
	.fold = {							\
		[ACIS_INT32] = INT_OPS(32, i, isa),			\
		[ACIS_UINT32] = INT_OPS(32, u, isa),			\
		[ACIS_INT64] = INT_OPS(64, i, isa),			\
		[ACIS_UINT64] = INT_OPS(64, u, isa),			\
		[ACIS_FLOAT32] = FLOAT_OPS(f32, isa),			\
		[ACIS_FLOAT64] = FLOAT_OPS(f64, isa),			\
		[ACIS_FLOAT16] = FLOAT_OPS(f16, isa),			\
		[ACIS_BFLOAT16] = FLOAT_OPS(bf16, isa),			\
		[ACIS_INT8] = INT_OPS(8, i, isa),			\
		[ACIS_UINT8] = INT_OPS(8, u, isa),			\
		[ACIS_INT16] = INT_OPS(16, i, isa),			\
		[ACIS_UINT16] = INT_OPS(16, u, isa),			\
	},								\
}

static const struct reduce_kernels kernels_generic = KERNEL_TABLE(generic);
#ifdef REDUCE_X86
static const struct reduce_kernels kernels_avx2 = KERNEL_TABLE(avx2);
static const struct reduce_kernels kernels_avx512 = KERNEL_TABLE(avx512);
#endif

/* Starts as the variant every CPU runs, in case another constructor
 * reduces before ours has run. */
static const struct reduce_kernels *kernels = &kernels_generic;

static void __attribute__((constructor))
reduce_choose_variant(void)
{
#ifdef REDUCE_X86
	const char *want = getenv("ACIS_REDUCE_ISA");
	int avx512, avx2;

	__builtin_cpu_init();
	/* The levels the variants are compiled for; libgcc checks that the
	 * OS saves the wide registers too. */
	avx512 = __builtin_cpu_supports("x86-64-v4");
	avx2 = __builtin_cpu_supports("x86-64-v3");
	if (want != NULL && strcmp(want, "generic") == 0)
		kernels = &kernels_generic;
	else if (want != NULL && strcmp(want, "avx2") == 0 && avx2)
		kernels = &kernels_avx2;
	else if (avx512)
		kernels = &kernels_avx512;
	else if (avx2)
		kernels = &kernels_avx2;
	else
		kernels = &kernels_generic;
#endif
}

const char *
acis_reduce_isa(void)
{
	return kernels->name;
}

void
acis_reduce_init(unsigned int dtype, void *acc, const void *src, size_t n)
{
	reduce_fn fn;

	if (dtype >= ACIS_DTYPE_MAX)
		return;
	fn = kernels->init[dtype];
	if (fn != NULL)
		fn(acc, src, n);
}

void
acis_reduce_fold(unsigned int dtype, unsigned int op, void *acc,
		 const void *src, size_t n)
{
	reduce_fn fn;

	if (dtype >= ACIS_DTYPE_MAX || op >= ACIS_OP_MAX_)
		return;
	fn = kernels->fold[dtype][op];
	if (fn != NULL)
		fn(acc, src, n);
}

void
acis_reduce_finish(unsigned int dtype, void *dst, const void *acc, size_t n)
{
	reduce_fn fn;

	if (dtype >= ACIS_DTYPE_MAX)
		return;
	fn = kernels->finish[dtype];
	if (fn != NULL)
		fn(dst, acc, n);
}
