/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction kernels of acis_reduce.h, every datatype x op.
 *
 * In this file, in order: scalar helpers and the float16/bfloat16
 * conversions; the scalar reference (one element at a time, plain
 * branches, no vectors); the vector kernels, written once as macros over
 * the vector width and stamped out for three instruction sets (16-byte
 * "generic", 32-byte avx2, 64-byte avx512); the per-variant dispatch tables
 * indexed [dtype][op]; and the choice of variant when the program starts.
 *
 * The kernels use each variant's native vector width rather than one
 * 64-byte type everywhere: a vector wider than the target's registers is
 * split by GCC and, on stores, bounced through the stack.
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

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define REDUCE_X86 1
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
		return 2;
	default:
		return 0;
	}
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
	unsigned int size = elem_size(dtype);

	return size == 2 ? 4 : size;
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
	case 2:
		for (i = 0; i < n; i++)
			st32(acc, i, widen_scalar(dtype, ld16(src, i)));
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
 * holds as many 16-bit lanes as the 32-bit accumulator vector, in W / 2.
 */
#define VECTOR_TYPES(W)							\
typedef uint16_t u16x_##W __attribute__((vector_size((W) / 2)));	\
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
 * vector ?:.
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

/* Any NaN result becomes the canonical NaN (see the file comment). */
#define CANON(r, QNAN) ({						\
	__typeof__(r) _r = (r);						\
	__typeof__(_r != _r) _n = _r != _r;				\
	(__typeof__(_r))(((__typeof__(_n))_r & ~_n) | ((QNAN) & _n));	\
})

/* The four cases are exclusive: a < b, b < a, a == b (-0 and +0 included),
 * unordered. Equal operands differ only in the sign of zero: or-ing the
 * encodings keeps -0 for min, and-ing them keeps +0 for max. */
#define OP_FMIN(a, b, QNAN) ({						\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a < _b) _lt = _a < _b, _gt = _b < _a, _eq = _a == _b; \
	__typeof__(_lt) _ai = (__typeof__(_lt))_a;			\
	__typeof__(_lt) _bi = (__typeof__(_lt))_b;			\
	(__typeof__(_a))((_ai & _lt) | (_bi & _gt) | ((_ai | _bi) & _eq) | \
			 ((QNAN) & ~(_lt | _gt | _eq)));		\
})

#define OP_FMAX(a, b, QNAN) ({						\
	__typeof__(a) _a = (a), _b = (b);				\
	__typeof__(_a < _b) _lt = _a < _b, _gt = _b < _a, _eq = _a == _b; \
	__typeof__(_lt) _ai = (__typeof__(_lt))_a;			\
	__typeof__(_lt) _bi = (__typeof__(_lt))_b;			\
	(__typeof__(_a))((_ai & _gt) | (_bi & _lt) | ((_ai & _bi) & _eq) | \
			 ((QNAN) & ~(_lt | _gt | _eq)));		\
})

/* The constants are the canonical NaNs as the signed lanes of a mask. */
#define OP_F32_SUM(a, b) CANON((a) + (b), INT32_C(0x7fc00000))
#define OP_F32_PROD(a, b) CANON((a) * (b), INT32_C(0x7fc00000))
#define OP_F32_MIN(a, b) OP_FMIN(a, b, INT32_C(0x7fc00000))
#define OP_F32_MAX(a, b) OP_FMAX(a, b, INT32_C(0x7fc00000))
#define OP_F64_SUM(a, b) CANON((a) + (b), INT64_C(0x7ff8000000000000))
#define OP_F64_PROD(a, b) CANON((a) * (b), INT64_C(0x7ff8000000000000))
#define OP_F64_MIN(a, b) OP_FMIN(a, b, INT64_C(0x7ff8000000000000))
#define OP_F64_MAX(a, b) OP_FMAX(a, b, INT64_C(0x7ff8000000000000))

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
 * Kernel bodies. Whole vectors first; the tail, if any, goes through one
 * vector padded with zeros, so it is computed by the same code (the zero
 * lanes are thrown away). Loads and stores are memcpy: src and acc may be
 * unaligned, and GCC makes them single unaligned vector moves.
 */

/* acc (T) = acc OP src (T), vector type V. Unrolled because with one
 * vector per iteration the loop overhead is a fair share of a fold that
 * runs from L1 (float32 sum at 8 KiB: 15-25% faster in avx2 and generic). */
#define KERNEL_FOLD(name, attr, T, V, OP)				\
static attr void							\
name(void *acc, const void *src, size_t n)				\
{									\
	const size_t lanes = sizeof(V) / sizeof(T);			\
	uint8_t *a = acc;						\
	const uint8_t *s = src;						\
	size_t i;							\
									\
	_Pragma("GCC unroll 4")						\
	for (i = 0; i + lanes <= n; i += lanes) {			\
		V va, vs;						\
									\
		memcpy(&va, a + i * sizeof(T), sizeof(V));		\
		memcpy(&vs, s + i * sizeof(T), sizeof(V));		\
		va = OP(va, vs);					\
		memcpy(a + i * sizeof(T), &va, sizeof(V));		\
	}								\
	if (i < n) {							\
		V va = {0}, vs = {0};					\
		size_t len = (n - i) * sizeof(T);			\
									\
		memcpy(&va, a + i * sizeof(T), len);			\
		memcpy(&vs, s + i * sizeof(T), len);			\
		va = OP(va, vs);					\
		memcpy(a + i * sizeof(T), &va, len);			\
	}								\
}

/* acc (float32) = acc OP widen(src (16-bit)). */
#define KERNEL_FOLD16(name, attr, H, U, F, WIDEN, OP)			\
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
		memcpy(&va, a + i * 4, sizeof(F));			\
		memcpy(&vh, s + i * 2, sizeof(H));			\
		va = OP(va, WIDEN(vh, U, F));				\
		memcpy(a + i * 4, &va, sizeof(F));			\
	}								\
	if (i < n) {							\
		F va = {0};						\
		H vh = {0};						\
									\
		memcpy(&va, a + i * 4, (n - i) * 4);			\
		memcpy(&vh, s + i * 2, (n - i) * 2);			\
		va = OP(va, WIDEN(vh, U, F));				\
		memcpy(a + i * 4, &va, (n - i) * 4);			\
	}								\
}

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
 * Every kernel of one variant: name suffix isa, function attribute attr,
 * vector width W. Signed and unsigned integers share sum, prod and the
 * bitwise ops (computed unsigned: wrapping, no signed overflow); only min
 * and max compare signed.
 */
#define DEFINE_KERNELS(isa, attr, W)					\
KERNEL_FOLD(fold_u32_sum_##isa, attr, uint32_t, u32x_##W, OP_ADD)	\
KERNEL_FOLD(fold_u32_prod_##isa, attr, uint32_t, u32x_##W, OP_MUL)	\
KERNEL_FOLD(fold_u32_band_##isa, attr, uint32_t, u32x_##W, OP_AND)	\
KERNEL_FOLD(fold_u32_bor_##isa, attr, uint32_t, u32x_##W, OP_OR)	\
KERNEL_FOLD(fold_u32_bxor_##isa, attr, uint32_t, u32x_##W, OP_XOR)	\
KERNEL_FOLD(fold_u32_min_##isa, attr, uint32_t, u32x_##W, OP_IMIN)	\
KERNEL_FOLD(fold_u32_max_##isa, attr, uint32_t, u32x_##W, OP_IMAX)	\
KERNEL_FOLD(fold_i32_min_##isa, attr, int32_t, i32x_##W, OP_IMIN)	\
KERNEL_FOLD(fold_i32_max_##isa, attr, int32_t, i32x_##W, OP_IMAX)	\
KERNEL_FOLD(fold_u64_sum_##isa, attr, uint64_t, u64x_##W, OP_ADD)	\
KERNEL_FOLD(fold_u64_prod_##isa, attr, uint64_t, u64x_##W, OP_MUL)	\
KERNEL_FOLD(fold_u64_band_##isa, attr, uint64_t, u64x_##W, OP_AND)	\
KERNEL_FOLD(fold_u64_bor_##isa, attr, uint64_t, u64x_##W, OP_OR)	\
KERNEL_FOLD(fold_u64_bxor_##isa, attr, uint64_t, u64x_##W, OP_XOR)	\
KERNEL_FOLD(fold_u64_min_##isa, attr, uint64_t, u64x_##W, OP_IMIN)	\
KERNEL_FOLD(fold_u64_max_##isa, attr, uint64_t, u64x_##W, OP_IMAX)	\
KERNEL_FOLD(fold_i64_min_##isa, attr, int64_t, i64x_##W, OP_IMIN)	\
KERNEL_FOLD(fold_i64_max_##isa, attr, int64_t, i64x_##W, OP_IMAX)	\
KERNEL_FOLD(fold_f32_sum_##isa, attr, float, f32x_##W, OP_F32_SUM)	\
KERNEL_FOLD(fold_f32_prod_##isa, attr, float, f32x_##W, OP_F32_PROD)	\
KERNEL_FOLD(fold_f32_min_##isa, attr, float, f32x_##W, OP_F32_MIN)	\
KERNEL_FOLD(fold_f32_max_##isa, attr, float, f32x_##W, OP_F32_MAX)	\
KERNEL_FOLD(fold_f64_sum_##isa, attr, double, f64x_##W, OP_F64_SUM)	\
KERNEL_FOLD(fold_f64_prod_##isa, attr, double, f64x_##W, OP_F64_PROD)	\
KERNEL_FOLD(fold_f64_min_##isa, attr, double, f64x_##W, OP_F64_MIN)	\
KERNEL_FOLD(fold_f64_max_##isa, attr, double, f64x_##W, OP_F64_MAX)	\
KERNEL_FOLD16(fold_f16_sum_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16, OP_F32_SUM)					\
KERNEL_FOLD16(fold_f16_prod_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16, OP_F32_PROD)					\
KERNEL_FOLD16(fold_f16_min_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16, OP_F32_MIN)					\
KERNEL_FOLD16(fold_f16_max_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16, OP_F32_MAX)					\
KERNEL_FOLD16(fold_bf16_sum_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_BF16, OP_F32_SUM)					\
KERNEL_FOLD16(fold_bf16_prod_##isa, attr, u16x_##W, u32x_##W, f32x_##W, \
	      WIDEN_BF16, OP_F32_PROD)					\
KERNEL_FOLD16(fold_bf16_min_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_BF16, OP_F32_MIN)					\
KERNEL_FOLD16(fold_bf16_max_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_BF16, OP_F32_MAX)					\
KERNEL_INIT16(init_f16_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_F16)						\
KERNEL_INIT16(init_bf16_##isa, attr, u16x_##W, u32x_##W, f32x_##W,	\
	      WIDEN_BF16)						\
KERNEL_FINISH16(finish_f16_##isa, attr, u16x_##W, u32x_##W, NARROW_F16) \
KERNEL_FINISH16(finish_bf16_##isa, attr, u16x_##W, u32x_##W, NARROW_BF16)

/* The variants need no attribute beyond the compiler's own flags for the
 * generic one (with -march=native it uses whatever the build machine has,
 * in 16-byte vectors). */
#define NO_ATTR

DEFINE_KERNELS(generic, NO_ATTR, 16)
#ifdef REDUCE_X86
DEFINE_KERNELS(avx2, __attribute__((target("avx2"))), 32)
DEFINE_KERNELS(avx512, __attribute__((target("avx512f"))), 64)
#endif

/* Init and finish of the types whose accumulator is the type itself.
 * memmove: finishing in place (dst == acc) is allowed. */
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
	},								\
	.finish = {							\
		[ACIS_INT32] = copy4, [ACIS_INT64] = copy8,		\
		[ACIS_UINT32] = copy4, [ACIS_UINT64] = copy8,		\
		[ACIS_FLOAT32] = copy4, [ACIS_FLOAT64] = copy8,		\
		[ACIS_FLOAT16] = finish_f16_##isa,			\
		[ACIS_BFLOAT16] = finish_bf16_##isa,			\
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
	/* libgcc checks that the OS saves the wide registers too. */
	avx512 = __builtin_cpu_supports("avx512f");
	avx2 = __builtin_cpu_supports("avx2");
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
