/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_reduce: every vector kernel against the scalar
 * reference on random data (fixed seeds) at every length up to 200 (every
 * tail of every vector width) and at the alignments the kernels treat
 * apart (both pointers on a cache line, one or both inside a line, not
 * even element-aligned), and at lengths past the size from which avx512
 * peels a misaligned accumulator, at every start within a line; a NaN in
 * every position of short and long arrays, the tail and the peeled head
 * included, giving the canonical NaN there and nowhere else; hand-computed
 * results for the corners of the semantics (wrapping at every integer
 * width, signed and unsigned min and max, NaN, signed zeros,
 * float16/bfloat16 rounding); the conversions against exact value
 * formulas and, where the CPU has F16C, against the hardware; and the
 * small query functions.
 *
 * The binary runs once per kernel variant (ACIS_REDUCE_ISA, see
 * meson.build): each run checks the variant acis_reduce_isa() names.
 */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_proto.h"
#include "acis_reduce.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_F16C_CHECK 1
#endif

#define MAX_N 200
/* Enough room for MAX_N 8-byte elements, an offset and guard bytes. */
#define BUF_SIZE (MAX_N * 8 + 64)
#define GUARD 0xa5
/* Lanes in the hand-computed tests: two 64-byte vectors of 32-bit lanes
 * and a tail, so the vector body and the tail both produce the result
 * (the same 148 bytes in 8 and 16-bit lanes). */
#define LANES 37

static uint8_t src_buf[BUF_SIZE] __attribute__((aligned(64)));
static uint8_t vec_buf[BUF_SIZE] __attribute__((aligned(64)));
static uint8_t ref_buf[BUF_SIZE] __attribute__((aligned(64)));

/* (src, acc) byte offsets from 64-byte aligned buffers: both on a cache
 * line (avx512's 64-byte vectors), either or both inside one (its 32-byte
 * vectors), not element-aligned. */
static const size_t offsets[][2] = {
	{0, 0}, {16, 16}, {16, 0}, {0, 48}, {40, 8}, {1, 0}, {3, 1}, {2, 6},
};

static const char *const dtype_names[] = {
	[ACIS_INT32] = "int32", [ACIS_INT64] = "int64",
	[ACIS_UINT32] = "uint32", [ACIS_UINT64] = "uint64",
	[ACIS_FLOAT32] = "float32", [ACIS_FLOAT64] = "float64",
	[ACIS_FLOAT16] = "float16", [ACIS_BFLOAT16] = "bfloat16",
	[ACIS_INT8] = "int8", [ACIS_UINT8] = "uint8",
	[ACIS_INT16] = "int16", [ACIS_UINT16] = "uint16",
};

static const char *const op_names[] = {
	[ACIS_OP_SUM] = "sum", [ACIS_OP_PROD] = "prod", [ACIS_OP_MIN] = "min",
	[ACIS_OP_MAX] = "max", [ACIS_OP_BAND] = "band", [ACIS_OP_BOR] = "bor",
	[ACIS_OP_BXOR] = "bxor",
};

/* The test's own tables, not the library's. */
static size_t
src_size(unsigned int dtype)
{
	static const size_t size[ACIS_DTYPE_MAX] = {
		[ACIS_INT32] = 4, [ACIS_INT64] = 8, [ACIS_UINT32] = 4,
		[ACIS_UINT64] = 8, [ACIS_FLOAT32] = 4, [ACIS_FLOAT64] = 8,
		[ACIS_FLOAT16] = 2, [ACIS_BFLOAT16] = 2, [ACIS_INT8] = 1,
		[ACIS_UINT8] = 1, [ACIS_INT16] = 2, [ACIS_UINT16] = 2,
	};

	return size[dtype];
}

static int
is_float(unsigned int dtype)
{
	return dtype >= ACIS_FLOAT32 && dtype <= ACIS_BFLOAT16;
}

/* float16 and bfloat16, which accumulate in float32. */
static int
is_half(unsigned int dtype)
{
	return dtype == ACIS_FLOAT16 || dtype == ACIS_BFLOAT16;
}

static size_t
acc_size(unsigned int dtype)
{
	return is_half(dtype) ? 4 : src_size(dtype);
}

static int
valid_pair(unsigned int dtype, unsigned int op)
{
	return op >= ACIS_OP_SUM && op <= ACIS_OP_BXOR &&
	       (!is_float(dtype) || op <= ACIS_OP_MAX);
}

static uint64_t rng;

static void
seed(uint64_t s)
{
	rng = s * 0x9e3779b97f4a7c15ull + 1;
}

/* xorshift64*: fixed seeds, the same data on every run. */
static uint64_t
next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static uint32_t
f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float
bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Special values: zeros, infinities, quiet and signalling NaNs of either
 * sign, subnormals, extremes, and the float16 rounding thresholds. */
static const uint32_t f32_special[] = {
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
	0xffc00000, 0x7f800001, 0xffbfffff, 0x7fc12345, 0x00000001,
	0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000,
	0xbf800000, 0x477fe000, 0x477ff000, 0x477fefff, 0x33000000,
	0x33800000, 0x38800000, 0x387fc000, 0x387fe000, 0x3f808000,
};

static const uint64_t f64_special[] = {
	0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000,
	0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
	0x7ff0000000000001, 0xfff7ffffffffffff, 0x0000000000000001,
	0x800fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
	0xffefffffffffffff, 0x3ff0000000000000, 0xbff0000000000000,
};

static const uint16_t f16_special[] = {
	0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfdff,
	0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3c01,
};

static const uint16_t bf16_special[] = {
	0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xffbf,
	0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3f81,
};

static const uint64_t int_special[] = {
	0, 1, 2, UINT64_MAX, 0x7fffffffffffffff, 0x8000000000000000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x10000, 0x100000000,
	0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x100,
};

#define PICK(a) (a[next_random() % (sizeof(a) / sizeof(a[0]))])

/* A float32 encoding: special, moderate (to exercise rounding), or any. */
static uint32_t
random_f32(void)
{
	uint64_t r = next_random();

	switch (r & 7) {
	case 0:
	case 1:
		return PICK(f32_special);
	case 2:
	case 3: /* exponent within 2^-8..2^8, random sign and mantissa */
		return (uint32_t)(r >> 32 & 0x807fffff) |
		       (uint32_t)(119 + (r >> 8) % 17) << 23;
	default:
		return (uint32_t)(r >> 32);
	}
}

static uint64_t
random_f64(void)
{
	uint64_t r = next_random();

	switch (r & 7) {
	case 0:
	case 1:
		return PICK(f64_special);
	case 2:
	case 3:
		return (next_random() & 0x800fffffffffffffull) |
		       (uint64_t)(1015 + (r >> 8) % 17) << 52;
	default:
		return next_random();
	}
}

/* One source element of dtype at p. */
static void
random_src(unsigned int dtype, void *p)
{
	uint64_t r = next_random();
	uint64_t v;
	uint32_t v32;
	uint16_t v16;

	switch (dtype) {
	case ACIS_FLOAT32:
		v32 = random_f32();
		memcpy(p, &v32, 4);
		return;
	case ACIS_FLOAT64:
		v = random_f64();
		memcpy(p, &v, 8);
		return;
	case ACIS_FLOAT16:
		v16 = (r & 3) == 0 ? PICK(f16_special) : (uint16_t)(r >> 16);
		memcpy(p, &v16, 2);
		return;
	case ACIS_BFLOAT16:
		v16 = (r & 3) == 0 ? PICK(bf16_special) : (uint16_t)(r >> 16);
		memcpy(p, &v16, 2);
		return;
	default: /* integers, little endian */
		v = (r & 3) == 0 ? PICK(int_special) : next_random();
		if ((r & 12) == 0) /* small values, for min/max ties */
			v &= 7;
		memcpy(p, &v, src_size(dtype));
		return;
	}
}

/* One accumulator element of dtype at p: for the 16-bit types, half the
 * time a widened 16-bit value, else any float32. */
static void
random_acc(unsigned int dtype, void *p)
{
	uint16_t h;
	uint32_t v;

	if (!is_half(dtype)) {
		random_src(dtype, p);
		return;
	}
	if (next_random() & 1) {
		v = random_f32();
	} else {
		random_src(dtype, &h);
		v = f32_bits(dtype == ACIS_FLOAT16 ? acis_f16_to_f32(h) :
						     acis_bf16_to_f32(h));
	}
	memcpy(p, &v, 4);
}

static uint64_t
element(const uint8_t *p, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size); /* little endian */
	return v;
}

/* 1 when vec and ref (size bytes) are the same; else prints the first
 * element that differs (elements of esize bytes from byte off) and
 * returns 0. */
static int
same_arrays(const char *what, unsigned int dtype, unsigned int op, size_t n,
	    size_t src_off, size_t off, size_t esize, const uint8_t *vec,
	    const uint8_t *ref, size_t size)
{
	size_t i;

	if (memcmp(vec, ref, size) == 0)
		return 1;
	for (i = 0; i < size && vec[i] == ref[i]; i++)
		;
	if (i < off || i >= off + n * esize) {
		print_error("%s %s %s n=%zu src+%zu: byte %zu outside the "
			    "elements differs: %02x, reference %02x\n", what,
			    dtype_names[dtype], op ? op_names[op] : "", n,
			    src_off, i, vec[i], ref[i]);
		return 0;
	}
	i = (i - off) / esize;
	print_error("%s %s %s n=%zu src+%zu dst+%zu (%s): element %zu is "
		    "%#llx, reference %#llx\n", what, dtype_names[dtype],
		    op ? op_names[op] : "", n, src_off, off, acis_reduce_isa(),
		    i, (unsigned long long)element(vec + off + i * esize, esize),
		    (unsigned long long)element(ref + off + i * esize, esize));
	return 0;
}

static int
same_buffers(const char *what, unsigned int dtype, unsigned int op,
	     size_t n, size_t src_off, size_t off, size_t size)
{
	return same_arrays(what, dtype, op, n, src_off, off, size, vec_buf,
			   ref_buf, BUF_SIZE);
}

static int
fold_matches(unsigned int dtype, unsigned int op, size_t n, size_t src_off,
	     size_t acc_off)
{
	uint8_t *src = src_buf + src_off;
	size_t i;

	memset(vec_buf, GUARD, BUF_SIZE);
	for (i = 0; i < n; i++) {
		random_src(dtype, src + i * src_size(dtype));
		random_acc(dtype, vec_buf + acc_off + i * acc_size(dtype));
	}
	memcpy(ref_buf, vec_buf, BUF_SIZE);
	acis_reduce_fold(dtype, op, vec_buf + acc_off, src, n);
	acis_reduce_fold_scalar(dtype, op, ref_buf + acc_off, src, n);
	return same_buffers("fold", dtype, op, n, src_off, acc_off,
			    acc_size(dtype));
}

static void
check_folds(unsigned int dtype)
{
	unsigned int op, k;
	size_t n;

	seed(dtype);
	for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
		if (!valid_pair(dtype, op))
			continue;
		for (k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++)
			for (n = 0; n <= MAX_N; n++)
				assert_true(fold_matches(dtype, op, n,
							 offsets[k][0],
							 offsets[k][1]));
	}
}

static void
test_int32_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_INT32);
}

static void
test_int64_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_INT64);
}

static void
test_uint32_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_UINT32);
}

static void
test_uint64_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_UINT64);
}

static void
test_float32_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_FLOAT32);
}

static void
test_float64_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_FLOAT64);
}

static void
test_float16_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_FLOAT16);
}

static void
test_bfloat16_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_BFLOAT16);
}

static void
test_int8_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_INT8);
}

static void
test_uint8_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_UINT8);
}

static void
test_int16_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_INT16);
}

static void
test_uint16_folds_match_the_scalar_reference(void **state)
{
	(void)state;
	check_folds(ACIS_UINT16);
}

/*
 * Long arrays: from 2 KiB of accumulator avx512 peels an accumulator that
 * starts inside a cache line to the line's end in pieces, then takes
 * 64-byte vectors if the source lies on a line too, else 32-byte ones.
 * Every start within a line (in elements), the source at the same offset
 * and 16 bytes further, lengths from 2 KiB with every kind of tail.
 */
#define LONG_N 1200
#define LONG_SIZE (LONG_N * 8 + 128)

static uint8_t long_src[LONG_SIZE] __attribute__((aligned(64)));
static uint8_t long_vec[LONG_SIZE] __attribute__((aligned(64)));
static uint8_t long_ref[LONG_SIZE] __attribute__((aligned(64)));

static int
long_fold_matches(unsigned int dtype, unsigned int op, size_t n,
		  size_t src_off, size_t acc_off)
{
	uint8_t *src = long_src + src_off;
	size_t i;

	memset(long_vec, GUARD, LONG_SIZE);
	for (i = 0; i < n; i++) {
		random_src(dtype, src + i * src_size(dtype));
		random_acc(dtype, long_vec + acc_off + i * acc_size(dtype));
	}
	memcpy(long_ref, long_vec, LONG_SIZE);
	acis_reduce_fold(dtype, op, long_vec + acc_off, src, n);
	acis_reduce_fold_scalar(dtype, op, long_ref + acc_off, src, n);
	return same_arrays("long fold", dtype, op, n, src_off, acc_off,
			   acc_size(dtype), long_vec, long_ref, LONG_SIZE);
}

static void
test_long_folds_match_the_scalar_reference_at_every_start_in_a_line(
	void **state)
{
	static const size_t extra[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33};
	unsigned int dtype, op;
	size_t as, off, e;

	(void)state;
	seed(104);
	for (dtype = ACIS_INT32; dtype < ACIS_DTYPE_MAX; dtype++) {
		as = acc_size(dtype);
		for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
			if (!valid_pair(dtype, op))
				continue;
			for (off = 0; off < 64; off += as) {
				for (e = 0; e < sizeof(extra) / sizeof(extra[0]);
				     e++) {
					size_t n = 2048 / as + extra[e];

					assert_true(long_fold_matches(
						dtype, op, n, off, off));
					assert_true(long_fold_matches(
						dtype, op, n, (off + 16) % 64,
						off));
				}
			}
		}
	}
}

/* A finite value of moderate size of dtype (an accumulator's for
 * acc != 0), so that no sum or product of two is infinite or NaN. */
static void
moderate(unsigned int dtype, int acc, void *p)
{
	uint64_t r = next_random();
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	if (dtype == ACIS_FLOAT64) {
		v64 = (r & 0x800fffffffffffffull) |
		      (uint64_t)(1015 + (r >> 8) % 17) << 52;
		memcpy(p, &v64, 8);
		return;
	}
	if (acc || dtype == ACIS_FLOAT32) {
		v32 = (uint32_t)(r >> 32 & 0x807fffff) |
		      (uint32_t)(119 + (r >> 8) % 17) << 23;
		memcpy(p, &v32, 4);
		return;
	}
	/* float16: exponent 13..17 (2^-2..2^2); bfloat16: 119..135 */
	if (dtype == ACIS_FLOAT16)
		v16 = (uint16_t)((r & 0x83ff) | (13 + (r >> 16) % 5) << 10);
	else
		v16 = (uint16_t)((r & 0x807f) | (119 + (r >> 16) % 17) << 7);
	memcpy(p, &v16, 2);
}

/* NaN-making operands, by kind: a signalling NaN in the source, a
 * negative quiet NaN with a payload in the accumulator, infinities of
 * opposite signs (sum), zero times infinity (prod), a NaN in both. */
static void
put_nan(unsigned int dtype, unsigned int op, unsigned int kind, void *acc,
	void *src)
{
	static const uint64_t snan[ACIS_DTYPE_MAX] = {
		[ACIS_FLOAT32] = 0x7f800001, [ACIS_FLOAT64] = 0x7ff0000000000001,
		[ACIS_FLOAT16] = 0x7c01, [ACIS_BFLOAT16] = 0x7f81,
	};
	static const uint64_t inf[ACIS_DTYPE_MAX] = {
		[ACIS_FLOAT32] = 0x7f800000, [ACIS_FLOAT64] = 0x7ff0000000000000,
		[ACIS_FLOAT16] = 0x7c00, [ACIS_BFLOAT16] = 0x7f80,
	};
	uint64_t acc_nan = dtype == ACIS_FLOAT64 ? 0xfff8000000012345 :
						   0xffc12345;
	uint64_t acc_inf = dtype == ACIS_FLOAT64 ? 0x7ff0000000000000 :
						   0x7f800000;
	uint64_t neg = (uint64_t)1 << (src_size(dtype) * 8 - 1);
	uint64_t zero = 0;

	switch (kind) {
	case 0:
		memcpy(src, &snan[dtype], src_size(dtype));
		break;
	case 1:
		memcpy(acc, &acc_nan, acc_size(dtype));
		break;
	case 2:
		if (op == ACIS_OP_SUM) {
			uint64_t minus_inf = inf[dtype] | neg;

			memcpy(acc, &acc_inf, acc_size(dtype));
			memcpy(src, &minus_inf, src_size(dtype));
		} else if (op == ACIS_OP_PROD) {
			memcpy(acc, &acc_inf, acc_size(dtype));
			memcpy(src, &zero, src_size(dtype));
		} else {
			memcpy(acc, &acc_nan, acc_size(dtype));
		}
		break;
	default:
		memcpy(acc, &acc_nan, acc_size(dtype));
		memcpy(src, &snan[dtype], src_size(dtype));
		break;
	}
}

static int
is_nan_bits(unsigned int dtype, uint64_t v)
{
	if (dtype == ACIS_FLOAT64)
		return (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
	return (v & 0x7fffffff) > 0x7f800000;
}

/* Folds of n moderate elements with a NaN-making pair at position p:
 * like the scalar reference, the canonical NaN at p, no NaN elsewhere. */
static int
nan_lands_canonical(unsigned int dtype, unsigned int op, size_t n, size_t p,
		    unsigned int kind, size_t src_off, size_t acc_off)
{
	uint8_t *src = long_src + src_off;
	size_t as = acc_size(dtype), ss = src_size(dtype), i;
	uint64_t want = dtype == ACIS_FLOAT64 ? 0x7ff8000000000000 :
						0x7fc00000;

	memset(long_vec, GUARD, LONG_SIZE);
	for (i = 0; i < n; i++) {
		moderate(dtype, 0, src + i * ss);
		moderate(dtype, 1, long_vec + acc_off + i * as);
	}
	put_nan(dtype, op, kind, long_vec + acc_off + p * as, src + p * ss);
	memcpy(long_ref, long_vec, LONG_SIZE);
	acis_reduce_fold(dtype, op, long_vec + acc_off, src, n);
	acis_reduce_fold_scalar(dtype, op, long_ref + acc_off, src, n);
	if (!same_arrays("nan fold", dtype, op, n, src_off, acc_off, as,
			 long_vec, long_ref, LONG_SIZE))
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t v = element(long_vec + acc_off + i * as, as);

		if (i == p ? v != want : is_nan_bits(dtype, v)) {
			print_error("nan fold %s %s n=%zu kind %u at %zu: "
				    "element %zu is %#llx\n",
				    dtype_names[dtype], op_names[op], n, kind,
				    p, i, (unsigned long long)v);
			return 0;
		}
	}
	return 1;
}

static void
test_a_nan_in_any_position_gives_the_canonical_nan_there(void **state)
{
	static const size_t offs[][2] = {{0, 0}, {16, 16}, {16, 0}, {4, 44}};
	unsigned int dtype, op, k;
	size_t n, p;

	(void)state;
	seed(105);
	for (dtype = ACIS_FLOAT32; dtype <= ACIS_BFLOAT16; dtype++) {
		for (op = ACIS_OP_SUM; op <= ACIS_OP_MAX; op++) {
			for (k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
				/* every position of every short length: the
				 * loop, the tail, the scalar fallback */
				for (n = 1; n <= 40; n++)
					for (p = 0; p < n; p++)
						assert_true(nan_lands_canonical(
							dtype, op, n, p, p % 4,
							offs[k][0],
							offs[k][1]));
				/* a long one: the peeled head, the loop's
				 * first and last vectors, the tail */
				n = 3000 / acc_size(dtype);
				for (p = 0; p < n; p++)
					if (p < 40 || p >= n - 40 ||
					    p % 97 == 0)
						assert_true(nan_lands_canonical(
							dtype, op, n, p, p % 4,
							offs[k][0],
							offs[k][1]));
			}
		}
	}
}

static void
test_init_matches_the_scalar_reference_for_every_dtype(void **state)
{
	unsigned int dtype, k;
	size_t n, i;

	(void)state;
	seed(100);
	for (dtype = ACIS_INT32; dtype < ACIS_DTYPE_MAX; dtype++) {
		for (k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
			for (n = 0; n <= MAX_N; n++) {
				uint8_t *src = src_buf + offsets[k][0];
				size_t off = offsets[k][1];

				for (i = 0; i < n; i++)
					random_src(dtype,
						   src + i * src_size(dtype));
				memset(vec_buf, GUARD, BUF_SIZE);
				memset(ref_buf, GUARD, BUF_SIZE);
				acis_reduce_init(dtype, vec_buf + off, src, n);
				acis_reduce_init_scalar(dtype, ref_buf + off,
							src, n);
				assert_true(same_buffers("init", dtype, 0, n,
							 offsets[k][0], off,
							 acc_size(dtype)));
			}
		}
	}
}

static void
test_finish_matches_the_scalar_reference_for_every_dtype(void **state)
{
	unsigned int dtype, k;
	size_t n, i;

	(void)state;
	seed(101);
	for (dtype = ACIS_INT32; dtype < ACIS_DTYPE_MAX; dtype++) {
		for (k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
			for (n = 0; n <= MAX_N; n++) {
				/* the accumulator is the source here */
				uint8_t *acc = src_buf + offsets[k][0];
				size_t off = offsets[k][1];

				for (i = 0; i < n; i++)
					random_acc(dtype,
						   acc + i * acc_size(dtype));
				memset(vec_buf, GUARD, BUF_SIZE);
				memset(ref_buf, GUARD, BUF_SIZE);
				acis_reduce_finish(dtype, vec_buf + off, acc,
						   n);
				acis_reduce_finish_scalar(dtype, ref_buf + off,
							  acc, n);
				assert_true(same_buffers("finish", dtype, 0, n,
							 offsets[k][0], off,
							 src_size(dtype)));
			}
		}
	}
}

/* Five contributions, as the switch reduces them: init, four folds,
 * finish, vector and scalar side by side. */
static void
test_a_whole_reduction_matches_the_scalar_reference(void **state)
{
	static uint8_t vacc[BUF_SIZE], racc[BUF_SIZE];
	unsigned int dtype, op, c;
	size_t n, i, ss;

	(void)state;
	seed(102);
	for (dtype = ACIS_INT32; dtype < ACIS_DTYPE_MAX; dtype++) {
		ss = src_size(dtype);
		for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
			if (!valid_pair(dtype, op))
				continue;
			for (n = 0; n <= 70; n++) {
				for (c = 0; c < 5; c++) {
					for (i = 0; i < n; i++)
						random_src(dtype,
							   src_buf + 1 + i * ss);
					if (c == 0) {
						acis_reduce_init(dtype, vacc,
								 src_buf + 1, n);
						acis_reduce_init_scalar(
							dtype, racc,
							src_buf + 1, n);
						continue;
					}
					acis_reduce_fold(dtype, op, vacc,
							 src_buf + 1, n);
					acis_reduce_fold_scalar(dtype, op, racc,
								src_buf + 1, n);
				}
				memset(vec_buf, GUARD, BUF_SIZE);
				memset(ref_buf, GUARD, BUF_SIZE);
				acis_reduce_finish(dtype, vec_buf, vacc, n);
				acis_reduce_finish_scalar(dtype, ref_buf, racc,
							  n);
				assert_true(same_buffers("reduction", dtype,
							 op, n, 1, 0, ss));
			}
		}
	}
}

/* init on all 65536 encodings of a 16-bit type, from an odd address. */
static void
check_init_every_encoding(unsigned int dtype)
{
	uint16_t *enc = malloc(65536 * 2 + 2);
	uint8_t *vacc = malloc(65536 * 4);
	uint8_t *racc = malloc(65536 * 4);
	uint32_t i, v, r;

	assert_non_null(enc);
	assert_non_null(vacc);
	assert_non_null(racc);
	for (i = 0; i < 65536; i++) {
		uint16_t h = (uint16_t)i;

		memcpy((uint8_t *)enc + 1 + i * 2, &h, 2);
	}
	acis_reduce_init(dtype, vacc, (uint8_t *)enc + 1, 65536);
	acis_reduce_init_scalar(dtype, racc, (uint8_t *)enc + 1, 65536);
	for (i = 0; i < 65536; i++) {
		memcpy(&v, vacc + i * 4, 4);
		memcpy(&r, racc + i * 4, 4);
		if (v != r)
			print_error("%s %#x widens to %#x, reference %#x\n",
				    dtype_names[dtype], i, v, r);
		assert_int_equal(v, r);
	}
	free(enc);
	free(vacc);
	free(racc);
}

static void
test_init_widens_every_float16_encoding_like_the_scalar_reference(
	void **state)
{
	(void)state;
	check_init_every_encoding(ACIS_FLOAT16);
}

static void
test_init_widens_every_bfloat16_encoding_like_the_scalar_reference(
	void **state)
{
	(void)state;
	check_init_every_encoding(ACIS_BFLOAT16);
}

/* float32 encodings that stress narrowing: a sweep of the whole space,
 * every float16 midpoint and its neighbours, both signs. */
static uint32_t *
narrowing_cases(size_t *count)
{
	size_t cap = (1ull << 32) / 4099 + 65536 * 6 + 16, n = 0;
	uint32_t *x = malloc(cap * 4);
	uint64_t s;
	uint32_t h;
	int d;

	assert_non_null(x);
	for (s = 0; s < (1ull << 32); s += 4099)
		x[n++] = (uint32_t)s;
	for (h = 0; h < 0x7c00; h++) {
		float lo = acis_f16_to_f32((uint16_t)h);
		float hi = h == 0x7bff ? 65536.0f :
					 acis_f16_to_f32((uint16_t)(h + 1));
		uint32_t mid = f32_bits((lo + hi) / 2);

		for (d = -1; d <= 1; d++) {
			x[n++] = mid + (uint32_t)d;
			x[n++] = (mid + (uint32_t)d) | 0x80000000;
		}
	}
	assert_true(n <= cap);
	*count = n;
	return x;
}

static void
test_finish_narrows_a_float32_sweep_like_the_scalar_reference(void **state)
{
	static const unsigned int dtypes[] = {ACIS_FLOAT16, ACIS_BFLOAT16};
	size_t n, i, k;
	uint32_t *x = narrowing_cases(&n);
	uint16_t *vh = malloc(n * 2), *rh = malloc(n * 2);

	(void)state;
	assert_non_null(vh);
	assert_non_null(rh);
	for (k = 0; k < 2; k++) {
		acis_reduce_finish(dtypes[k], vh, x, n);
		acis_reduce_finish_scalar(dtypes[k], rh, x, n);
		for (i = 0; i < n; i++) {
			if (vh[i] != rh[i])
				print_error("%s: %#x narrows to %#x, "
					    "reference %#x\n",
					    dtype_names[dtypes[k]], x[i],
					    vh[i], rh[i]);
			assert_int_equal(vh[i], rh[i]);
		}
	}
	free(x);
	free(vh);
	free(rh);
}

static void
test_kernels_write_nothing_outside_their_elements(void **state)
{
	static const size_t lengths[] = {0, 1, 3, 4, 15, 16, 17, 33, 100};
	unsigned int dtype, op;
	size_t k, i, off = 5, as, ss;

	(void)state;
	seed(103);
	for (dtype = ACIS_INT32; dtype < ACIS_DTYPE_MAX; dtype++) {
		as = acc_size(dtype);
		ss = src_size(dtype);
		for (k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
			size_t n = lengths[k];

			for (i = 0; i < n * 8; i++)
				src_buf[i] = (uint8_t)next_random();
			memset(vec_buf, GUARD, BUF_SIZE);
			acis_reduce_init(dtype, vec_buf + off, src_buf, n);
			for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++)
				if (valid_pair(dtype, op))
					acis_reduce_fold(dtype, op,
							 vec_buf + off,
							 src_buf, n);
			for (i = 0; i < off; i++)
				assert_int_equal(vec_buf[i], GUARD);
			for (i = off + n * as; i < BUF_SIZE; i++)
				assert_int_equal(vec_buf[i], GUARD);
			memset(ref_buf, GUARD, BUF_SIZE);
			acis_reduce_finish(dtype, ref_buf + off,
					   vec_buf + off, n);
			for (i = 0; i < off; i++)
				assert_int_equal(ref_buf[i], GUARD);
			for (i = off + n * ss; i < BUF_SIZE; i++)
				assert_int_equal(ref_buf[i], GUARD);
		}
	}
}

/*
 * Hand-computed results. Each runs LANES equal lanes through the kernel
 * and the scalar reference and checks every lane of both.
 */

static void
expect_fold(unsigned int dtype, unsigned int op, uint64_t acc, uint64_t src,
	    uint64_t want)
{
	size_t size = src_size(dtype), i;
	size_t lanes = size < 4 ? LANES * 4 / size : LANES;
	uint8_t a[LANES * 8], r[LANES * 8], s[LANES * 8];

	for (i = 0; i < lanes; i++) {
		memcpy(a + i * size, &acc, size);
		memcpy(s + i * size, &src, size);
	}
	memcpy(r, a, sizeof(a));
	acis_reduce_fold(dtype, op, a, s, lanes);
	acis_reduce_fold_scalar(dtype, op, r, s, lanes);
	for (i = 0; i < lanes; i++) {
		if (element(a + i * size, size) != want ||
		    element(r + i * size, size) != want)
			print_error("%s %s %#llx, %#llx: lane %zu is %#llx "
				    "(reference %#llx), expected %#llx\n",
				    dtype_names[dtype], op_names[op],
				    (unsigned long long)acc,
				    (unsigned long long)src, i,
				    (unsigned long long)element(a + i * size,
								size),
				    (unsigned long long)element(r + i * size,
								size),
				    (unsigned long long)want);
		assert_int_equal(element(a + i * size, size), want);
		assert_int_equal(element(r + i * size, size), want);
	}
}

/* Fold both orders: the result must not depend on which came first. */
static void
expect_fold_both(unsigned int dtype, unsigned int op, uint64_t x, uint64_t y,
		 uint64_t want)
{
	expect_fold(dtype, op, x, y, want);
	expect_fold(dtype, op, y, x, want);
}

/* A 16-bit reduction of the contributions h[0..count): init, folds,
 * finish, on LANES lanes, vector and scalar. */
static void
expect_reduce16(unsigned int dtype, unsigned int op, const uint16_t *h,
		size_t count, uint16_t want)
{
	uint16_t s[LANES], v[LANES], r[LANES];
	uint32_t va[LANES], ra[LANES];
	size_t c, i;

	for (c = 0; c < count; c++) {
		for (i = 0; i < LANES; i++)
			s[i] = h[c];
		if (c == 0) {
			acis_reduce_init(dtype, va, s, LANES);
			acis_reduce_init_scalar(dtype, ra, s, LANES);
		} else {
			acis_reduce_fold(dtype, op, va, s, LANES);
			acis_reduce_fold_scalar(dtype, op, ra, s, LANES);
		}
	}
	acis_reduce_finish(dtype, v, va, LANES);
	acis_reduce_finish_scalar(dtype, r, ra, LANES);
	for (i = 0; i < LANES; i++) {
		if (v[i] != want || r[i] != want)
			print_error("%s %s: lane %zu is %#x (reference %#x), "
				    "expected %#x\n", dtype_names[dtype],
				    op_names[op], i, v[i], r[i], want);
		assert_int_equal(v[i], want);
		assert_int_equal(r[i], want);
	}
}

static void
expect_reduce16_2(unsigned int dtype, unsigned int op, uint16_t a,
		  uint16_t b, uint16_t want)
{
	const uint16_t h[2] = {a, b};

	expect_reduce16(dtype, op, h, 2, want);
}

static void
test_int32_sum_past_the_maximum_wraps_to_the_minimum(void **state)
{
	(void)state;
	expect_fold(ACIS_INT32, ACIS_OP_SUM, 0x7fffffff, 1, 0x80000000);
}

static void
test_int32_prod_of_the_minimum_and_minus_one_wraps_to_the_minimum(
	void **state)
{
	(void)state;
	expect_fold(ACIS_INT32, ACIS_OP_PROD, 0x80000000, 0xffffffff,
		    0x80000000);
}

static void
test_int64_sum_past_the_maximum_wraps_to_the_minimum(void **state)
{
	(void)state;
	expect_fold(ACIS_INT64, ACIS_OP_SUM, 0x7fffffffffffffff, 1,
		    0x8000000000000000);
}

static void
test_uint32_sum_wraps_modulo_2_to_the_32(void **state)
{
	(void)state;
	expect_fold(ACIS_UINT32, ACIS_OP_SUM, 0xffffffff, 2, 1);
}

static void
test_uint64_prod_wraps_modulo_2_to_the_64(void **state)
{
	(void)state;
	/* (2^32 + 1)^2 = 2^64 + 2^33 + 1 */
	expect_fold(ACIS_UINT64, ACIS_OP_PROD, 0x100000001, 0x100000001,
		    0x200000001);
	/* (2^64 - 1)^2 = 1 mod 2^64 */
	expect_fold(ACIS_UINT64, ACIS_OP_PROD, UINT64_MAX, UINT64_MAX, 1);
}

static void
test_int32_min_and_max_compare_as_signed(void **state)
{
	(void)state;
	expect_fold_both(ACIS_INT32, ACIS_OP_MIN, 0xffffffff, 1, 0xffffffff);
	expect_fold_both(ACIS_INT32, ACIS_OP_MAX, 0xffffffff, 1, 1);
	expect_fold_both(ACIS_INT32, ACIS_OP_MIN, 0x80000000, 0x7fffffff,
			 0x80000000);
}

static void
test_uint32_min_and_max_compare_as_unsigned(void **state)
{
	(void)state;
	expect_fold_both(ACIS_UINT32, ACIS_OP_MIN, 0xffffffff, 1, 1);
	expect_fold_both(ACIS_UINT32, ACIS_OP_MAX, 0xffffffff, 1, 0xffffffff);
}

static void
test_int64_min_and_max_compare_as_signed(void **state)
{
	(void)state;
	expect_fold_both(ACIS_INT64, ACIS_OP_MIN, UINT64_MAX, 1, UINT64_MAX);
	expect_fold_both(ACIS_INT64, ACIS_OP_MAX, UINT64_MAX, 1, 1);
	expect_fold_both(ACIS_INT64, ACIS_OP_MAX, 0x8000000000000000,
			 0x7fffffffffffffff, 0x7fffffffffffffff);
}

static void
test_uint64_min_and_max_compare_as_unsigned(void **state)
{
	(void)state;
	expect_fold_both(ACIS_UINT64, ACIS_OP_MIN, UINT64_MAX, 1, 1);
	expect_fold_both(ACIS_UINT64, ACIS_OP_MAX, 0x8000000000000000,
			 0x7fffffffffffffff, 0x8000000000000000);
}

static void
test_bitwise_ops_combine_the_bits(void **state)
{
	(void)state;
	expect_fold(ACIS_INT32, ACIS_OP_BAND, 0xff00ff00, 0x0ff00ff0,
		    0x0f000f00);
	expect_fold(ACIS_INT32, ACIS_OP_BOR, 0xff00ff00, 0x0ff00ff0,
		    0xfff0fff0);
	expect_fold(ACIS_INT32, ACIS_OP_BXOR, 0xff00ff00, 0x0ff00ff0,
		    0xf0f0f0f0);
	expect_fold(ACIS_UINT64, ACIS_OP_BAND, 0xffff0000ffff0000,
		    0x00ffff0000ffff00, 0x00ff000000ff0000);
	expect_fold(ACIS_UINT64, ACIS_OP_BOR, 0xffff0000ffff0000,
		    0x00ffff0000ffff00, 0xffffff00ffffff00);
	expect_fold(ACIS_UINT64, ACIS_OP_BXOR, 0xffff0000ffff0000,
		    0x00ffff0000ffff00, 0xff00ff00ff00ff00);
}

static void
test_int8_sum_past_the_maximum_wraps_to_the_minimum(void **state)
{
	(void)state;
	expect_fold(ACIS_INT8, ACIS_OP_SUM, 0x7f, 1, 0x80);
	expect_fold(ACIS_INT8, ACIS_OP_SUM, 0x80, 0xff, 0x7f);
}

static void
test_uint8_sum_wraps_modulo_2_to_the_8(void **state)
{
	(void)state;
	expect_fold(ACIS_UINT8, ACIS_OP_SUM, 0xff, 2, 1);
	expect_fold(ACIS_UINT8, ACIS_OP_SUM, 0x80, 0x80, 0);
}

static void
test_int16_sum_past_the_maximum_wraps_to_the_minimum(void **state)
{
	(void)state;
	expect_fold(ACIS_INT16, ACIS_OP_SUM, 0x7fff, 1, 0x8000);
	expect_fold(ACIS_INT16, ACIS_OP_SUM, 0x8000, 0xffff, 0x7fff);
}

static void
test_uint16_sum_wraps_modulo_2_to_the_16(void **state)
{
	(void)state;
	expect_fold(ACIS_UINT16, ACIS_OP_SUM, 0xffff, 2, 1);
	expect_fold(ACIS_UINT16, ACIS_OP_SUM, 0x8000, 0x8000, 0);
}

static void
test_8_and_16_bit_prod_wraps(void **state)
{
	(void)state;
	/* the minimum times -1 is the minimum again */
	expect_fold(ACIS_INT8, ACIS_OP_PROD, 0x80, 0xff, 0x80);
	expect_fold(ACIS_INT16, ACIS_OP_PROD, 0x8000, 0xffff, 0x8000);
	/* 16 * 16 = 2^8; 255 * 255 = 1 mod 2^8; -3 * 50 = -150 = 106 */
	expect_fold(ACIS_UINT8, ACIS_OP_PROD, 16, 16, 0);
	expect_fold(ACIS_UINT8, ACIS_OP_PROD, 0xff, 0xff, 1);
	expect_fold(ACIS_INT8, ACIS_OP_PROD, 0xfd, 50, 106);
	/* 2^8 * 2^8 = 2^16; 65535^2 = 1 mod 2^16; 300 * 300 = 90000 */
	expect_fold(ACIS_UINT16, ACIS_OP_PROD, 0x100, 0x100, 0);
	expect_fold(ACIS_UINT16, ACIS_OP_PROD, 0xffff, 0xffff, 1);
	expect_fold(ACIS_UINT16, ACIS_OP_PROD, 300, 300, 90000 - 65536);
	expect_fold(ACIS_INT16, ACIS_OP_PROD, 0xfffd, 300, 0x10000 - 900);
}

static void
test_int8_and_int16_min_and_max_compare_as_signed(void **state)
{
	(void)state;
	expect_fold_both(ACIS_INT8, ACIS_OP_MIN, 0xff, 1, 0xff);
	expect_fold_both(ACIS_INT8, ACIS_OP_MAX, 0xff, 1, 1);
	expect_fold_both(ACIS_INT8, ACIS_OP_MIN, 0x80, 0x7f, 0x80);
	expect_fold_both(ACIS_INT8, ACIS_OP_MAX, 0x80, 0x7f, 0x7f);
	expect_fold_both(ACIS_INT8, ACIS_OP_MIN, 0x80, 0xff, 0x80);
	expect_fold_both(ACIS_INT16, ACIS_OP_MIN, 0xffff, 1, 0xffff);
	expect_fold_both(ACIS_INT16, ACIS_OP_MAX, 0xffff, 1, 1);
	expect_fold_both(ACIS_INT16, ACIS_OP_MIN, 0x8000, 0x7fff, 0x8000);
	expect_fold_both(ACIS_INT16, ACIS_OP_MAX, 0x8000, 0x7fff, 0x7fff);
	/* 0x00ff is 255, above -1 and 0x0080 (128): no byte is a sign */
	expect_fold_both(ACIS_INT16, ACIS_OP_MAX, 0x00ff, 0x0080, 0x00ff);
	expect_fold_both(ACIS_INT16, ACIS_OP_MIN, 0x00ff, 0xff00, 0xff00);
}

static void
test_uint8_and_uint16_min_and_max_compare_as_unsigned(void **state)
{
	(void)state;
	expect_fold_both(ACIS_UINT8, ACIS_OP_MIN, 0xff, 1, 1);
	expect_fold_both(ACIS_UINT8, ACIS_OP_MAX, 0xff, 1, 0xff);
	expect_fold_both(ACIS_UINT8, ACIS_OP_MAX, 0x80, 0x7f, 0x80);
	expect_fold_both(ACIS_UINT8, ACIS_OP_MIN, 0x80, 0x7f, 0x7f);
	expect_fold_both(ACIS_UINT16, ACIS_OP_MIN, 0xffff, 1, 1);
	expect_fold_both(ACIS_UINT16, ACIS_OP_MAX, 0xffff, 1, 0xffff);
	expect_fold_both(ACIS_UINT16, ACIS_OP_MAX, 0x8000, 0x7fff, 0x8000);
	expect_fold_both(ACIS_UINT16, ACIS_OP_MIN, 0x00ff, 0xff00, 0x00ff);
}

static void
test_8_and_16_bit_bitwise_ops_combine_the_bits(void **state)
{
	(void)state;
	expect_fold(ACIS_INT8, ACIS_OP_BAND, 0xf0, 0x3c, 0x30);
	expect_fold(ACIS_UINT8, ACIS_OP_BOR, 0xf0, 0x3c, 0xfc);
	expect_fold(ACIS_INT8, ACIS_OP_BXOR, 0xf0, 0x3c, 0xcc);
	expect_fold(ACIS_UINT16, ACIS_OP_BAND, 0xff00, 0x0ff0, 0x0f00);
	expect_fold(ACIS_INT16, ACIS_OP_BOR, 0xff00, 0x0ff0, 0xfff0);
	expect_fold(ACIS_UINT16, ACIS_OP_BXOR, 0xff00, 0x0ff0, 0xf0f0);
}

/* What C's own arithmetic on the type gives for acc OP src: the test's
 * reference for the kernels and the library's scalar reference alike. */
static uint64_t
c_fold(unsigned int dtype, unsigned int op, uint64_t a, uint64_t b)
{
	int is_signed = dtype == ACIS_INT8 || dtype == ACIS_INT16;
	uint64_t mask = src_size(dtype) == 1 ? 0xff : 0xffff;
	int64_t sa = dtype == ACIS_INT8 ? (int8_t)a :
		     dtype == ACIS_INT16 ? (int16_t)a : (int64_t)a;
	int64_t sb = dtype == ACIS_INT8 ? (int8_t)b :
		     dtype == ACIS_INT16 ? (int16_t)b : (int64_t)b;

	switch (op) {
	case ACIS_OP_SUM:
		return (a + b) & mask;
	case ACIS_OP_PROD:
		return (a * b) & mask;
	case ACIS_OP_MIN:
		return is_signed ? (sa < sb ? a : b) : (a < b ? a : b);
	case ACIS_OP_MAX:
		return is_signed ? (sa > sb ? a : b) : (a > b ? a : b);
	case ACIS_OP_BAND:
		return a & b;
	case ACIS_OP_BOR:
		return a | b;
	default:
		return a ^ b;
	}
}

/* Every pair of 8-bit values (acc the low byte of the index, src the
 * high), and 65536 pairs of 16-bit ones, half of them random and half
 * around the signed and unsigned extremes, from odd addresses: the kernel
 * and the scalar reference give what C does. */
static void
check_every_pair(unsigned int dtype)
{
	static const uint16_t edge[] = {0, 1, 2, 0x7e, 0x7f, 0x80, 0x81, 0xff,
					0x100, 0x7ffe, 0x7fff, 0x8000, 0x8001,
					0xfffe, 0xffff, 0xff7f};
	size_t size = src_size(dtype), n = 65536, i;
	uint8_t *acc = malloc(n * size + 1), *vec = malloc(n * size + 1);
	uint8_t *ref = malloc(n * size + 1), *src = malloc(n * size + 1);
	unsigned int op;

	assert_non_null(acc);
	assert_non_null(vec);
	assert_non_null(ref);
	assert_non_null(src);
	seed(106 + dtype);
	for (i = 0; i < n; i++) {
		uint64_t a = i & 0xff, b = i >> 8;

		if (size == 2 && (i & 1)) {
			a = next_random() & 0xffff;
			b = next_random() & 0xffff;
		} else if (size == 2) {
			a = PICK(edge);
			b = PICK(edge);
		}
		memcpy(acc + 1 + i * size, &a, size);
		memcpy(src + 1 + i * size, &b, size);
	}
	for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
		memcpy(vec, acc, n * size + 1);
		memcpy(ref, acc, n * size + 1);
		acis_reduce_fold(dtype, op, vec + 1, src + 1, n);
		acis_reduce_fold_scalar(dtype, op, ref + 1, src + 1, n);
		for (i = 0; i < n; i++) {
			uint64_t a = element(acc + 1 + i * size, size);
			uint64_t b = element(src + 1 + i * size, size);
			uint64_t want = c_fold(dtype, op, a, b);
			uint64_t v = element(vec + 1 + i * size, size);
			uint64_t r = element(ref + 1 + i * size, size);

			if (v != want || r != want)
				print_error("%s %s %#llx, %#llx: %#llx "
					    "(reference %#llx), expected "
					    "%#llx\n", dtype_names[dtype],
					    op_names[op],
					    (unsigned long long)a,
					    (unsigned long long)b,
					    (unsigned long long)v,
					    (unsigned long long)r,
					    (unsigned long long)want);
			assert_int_equal(v, want);
			assert_int_equal(r, want);
		}
	}
	free(acc);
	free(vec);
	free(ref);
	free(src);
}

static void
test_int8_folds_of_every_pair_are_what_c_computes(void **state)
{
	(void)state;
	check_every_pair(ACIS_INT8);
}

static void
test_uint8_folds_of_every_pair_are_what_c_computes(void **state)
{
	(void)state;
	check_every_pair(ACIS_UINT8);
}

static void
test_int16_folds_of_edge_and_random_pairs_are_what_c_computes(void **state)
{
	(void)state;
	check_every_pair(ACIS_INT16);
}

static void
test_uint16_folds_of_edge_and_random_pairs_are_what_c_computes(
	void **state)
{
	(void)state;
	check_every_pair(ACIS_UINT16);
}

static void
test_float32_min_with_a_nan_gives_the_canonical_nan(void **state)
{
	(void)state;
	/* quiet, signalling, negative, with payloads; either side */
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0x3f800000, 0x7f800001,
			 0x7fc00000);
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0xff800000, 0xffc00123,
			 0x7fc00000);
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0x7fc00001, 0xffbfffff,
			 0x7fc00000);
}

static void
test_float32_max_with_a_nan_gives_the_canonical_nan(void **state)
{
	(void)state;
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MAX, 0x7f800000, 0x7f800001,
			 0x7fc00000);
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MAX, 0x00000000, 0xffc00000,
			 0x7fc00000);
}

static void
test_float64_min_and_max_with_a_nan_give_the_canonical_nan(void **state)
{
	(void)state;
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MIN, 0x3ff0000000000000,
			 0x7ff0000000000001, 0x7ff8000000000000);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MAX, 0xfff0000000000000,
			 0xfff8000000000123, 0x7ff8000000000000);
}

static void
test_min_of_signed_zeros_is_negative_zero_in_either_order(void **state)
{
	(void)state;
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0x00000000, 0x80000000,
			 0x80000000);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MIN, 0, 0x8000000000000000,
			 0x8000000000000000);
}

static void
test_max_of_signed_zeros_is_positive_zero_in_either_order(void **state)
{
	(void)state;
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MAX, 0x00000000, 0x80000000,
			 0x00000000);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MAX, 0, 0x8000000000000000, 0);
}

static void
test_float_min_and_max_order_infinities_and_subnormals(void **state)
{
	(void)state;
	/* -inf < smallest positive subnormal */
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0xff800000, 0x00000001,
			 0xff800000);
	/* smallest negative subnormal < -0 */
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MIN, 0x80000001, 0x80000000,
			 0x80000001);
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_MAX, 0x00000001, 0x00000000,
			 0x00000001);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MAX, 0x7ff0000000000000,
			 0x7fefffffffffffff, 0x7ff0000000000000);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_MIN, 0x8000000000000001,
			 0x0000000000000001, 0x8000000000000001);
}

static void
test_float32_sum_of_opposite_infinities_is_the_canonical_nan(void **state)
{
	(void)state;
	expect_fold(ACIS_FLOAT32, ACIS_OP_SUM, 0x7f800000, 0xff800000,
		    0x7fc00000);
}

static void
test_float64_prod_of_zero_and_infinity_is_the_canonical_nan(void **state)
{
	(void)state;
	expect_fold(ACIS_FLOAT64, ACIS_OP_PROD, 0, 0xfff0000000000000,
		    0x7ff8000000000000);
}

static void
test_float_sum_with_a_nan_operand_gives_the_canonical_nan(void **state)
{
	(void)state;
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_SUM, 0x3f800000, 0xffc00001,
			 0x7fc00000);
	expect_fold_both(ACIS_FLOAT32, ACIS_OP_PROD, 0x7f800001, 0xffc00002,
			 0x7fc00000);
	expect_fold_both(ACIS_FLOAT64, ACIS_OP_SUM, 0xfff8000000000001,
			 0x3ff0000000000000, 0x7ff8000000000000);
}

static void
test_float32_sum_rounds_ties_to_even(void **state)
{
	(void)state;
	/* 1 + 2^-24 is halfway between 1 and 1 + 2^-23: stays at 1 */
	expect_fold(ACIS_FLOAT32, ACIS_OP_SUM, 0x3f800000, 0x33800000,
		    0x3f800000);
	/* (1 + 2^-23) + 2^-24 is halfway to 1 + 2^-22: goes up, to even */
	expect_fold(ACIS_FLOAT32, ACIS_OP_SUM, 0x3f800001, 0x33800000,
		    0x3f800002);
}

static void
test_float16_one_plus_one_is_two(void **state)
{
	(void)state;
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0x3c00, 0x3c00, 0x4000);
}

static void
test_float16_largest_finite_doubled_overflows_to_infinity(void **state)
{
	(void)state;
	/* 65504 + 65504 */
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0x7bff, 0x7bff, 0x7c00);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0xfbff, 0xfbff, 0xfc00);
}

static void
test_float16_sum_of_subnormals_is_exact(void **state)
{
	(void)state;
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0x0001, 0x0001, 0x0002);
	/* largest subnormal + smallest = smallest normal */
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0x03ff, 0x0001, 0x0400);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_SUM, 0x8001, 0x0001, 0x0000);
}

static void
test_float16_sum_is_rounded_once_at_the_end(void **state)
{
	/* 1 + 2^-11 is a float16 tie and would round back to 1 at every
	 * step; in a float32 accumulator two of them make 1 + 2^-10. */
	static const uint16_t h[] = {0x3c00, 0x1000, 0x1000};

	(void)state;
	expect_reduce16(ACIS_FLOAT16, ACIS_OP_SUM, h, 3, 0x3c01);
}

static void
test_float16_min_and_max_of_signed_zeros_follow_the_sign(void **state)
{
	(void)state;
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MIN, 0x0000, 0x8000, 0x8000);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MIN, 0x8000, 0x0000, 0x8000);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MAX, 0x0000, 0x8000, 0x0000);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MAX, 0x8000, 0x0000, 0x0000);
}

static void
test_float16_nan_in_max_gives_the_canonical_quiet_nan(void **state)
{
	(void)state;
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MAX, 0x3c00, 0x7c01, 0x7e00);
	expect_reduce16_2(ACIS_FLOAT16, ACIS_OP_MAX, 0xfe01, 0x3c00, 0x7e00);
}

static void
test_bfloat16_ties_round_to_even(void **state)
{
	(void)state;
	/* 1 + 2^-8: halfway between 1 and 1 + 2^-7, 1 is even */
	assert_int_equal(acis_f32_to_bf16(1.00390625f), 0x3f80);
	/* 1 + 3 * 2^-8: halfway between 1 + 2^-7 (odd) and 1 + 2^-6 */
	assert_int_equal(acis_f32_to_bf16(1.01171875f), 0x3f82);
	/* the same through a reduction: 1 + 2^-8, (1 + 2^-7) + 2^-8 */
	expect_reduce16_2(ACIS_BFLOAT16, ACIS_OP_SUM, 0x3f80, 0x3b80, 0x3f80);
	expect_reduce16_2(ACIS_BFLOAT16, ACIS_OP_SUM, 0x3f81, 0x3b80, 0x3f82);
}

static void
test_bfloat16_just_above_a_tie_rounds_up(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x3f808001)), 0x3f81);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x3f807fff)), 0x3f80);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0xbf808001)), 0xbf81);
}

static void
test_bfloat16_overflow_rounds_to_infinity(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_bf16(FLT_MAX), 0x7f80);
	assert_int_equal(acis_f32_to_bf16(-FLT_MAX), 0xff80);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x7f7f7fff)), 0x7f7f);
	/* largest finite bfloat16 doubled */
	expect_reduce16_2(ACIS_BFLOAT16, ACIS_OP_SUM, 0x7f7f, 0x7f7f, 0x7f80);
}

static void
test_bfloat16_nan_narrows_to_a_quiet_nan_with_its_sign(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x7f800001)), 0x7fc0);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0xff800001)), 0xffc0);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x7fc12345)), 0x7fc1);
	/* a NaN's low bits must not round it into infinity or the sign */
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x7fffffff)), 0x7fff);
}

static void
test_bfloat16_subnormals_round_to_nearest_even(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x00008000)), 0x0000);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x00008001)), 0x0001);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x00018000)), 0x0002);
	assert_int_equal(acis_f32_to_bf16(bits_f32(0x807fffff)), 0x8080);
	assert_int_equal(f32_bits(acis_bf16_to_f32(0x0001)), 0x00010000);
}

static void
test_f32_to_f16_rounds_subnormals_to_nearest_even(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_f16(0x1p-24f), 0x0001);
	assert_int_equal(acis_f32_to_f16(-0x1p-24f), 0x8001);
	/* 2^-25 is halfway between 0 and the smallest subnormal: 0 */
	assert_int_equal(acis_f32_to_f16(0x1p-25f), 0x0000);
	assert_int_equal(acis_f32_to_f16(-0x1p-25f), 0x8000);
	assert_int_equal(acis_f32_to_f16(bits_f32(0x33000001)), 0x0001);
	/* 1.5 and 2.5 units of 2^-24 round to 2 */
	assert_int_equal(acis_f32_to_f16(1.5f * 0x1p-24f), 0x0002);
	assert_int_equal(acis_f32_to_f16(2.5f * 0x1p-24f), 0x0002);
	assert_int_equal(acis_f32_to_f16(1023.0f * 0x1p-24f), 0x03ff);
	/* halfway from the largest subnormal to the smallest normal */
	assert_int_equal(acis_f32_to_f16(1023.5f * 0x1p-24f), 0x0400);
	assert_int_equal(acis_f32_to_f16(1022.5f * 0x1p-24f), 0x03fe);
	/* float32 subnormals are far below float16's */
	assert_int_equal(acis_f32_to_f16(bits_f32(0x00000001)), 0x0000);
	assert_int_equal(acis_f32_to_f16(bits_f32(0x807fffff)), 0x8000);
}

static void
test_f32_to_f16_overflow_gives_infinity(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_f16(65504.0f), 0x7bff);
	/* 65520 is halfway to 65536, whose even side overflows */
	assert_int_equal(acis_f32_to_f16(65520.0f), 0x7c00);
	assert_int_equal(acis_f32_to_f16(bits_f32(0x477fefff)), 0x7bff);
	assert_int_equal(acis_f32_to_f16(-65520.0f), 0xfc00);
	assert_int_equal(acis_f32_to_f16(1e10f), 0x7c00);
	assert_int_equal(acis_f32_to_f16(bits_f32(0x7f800000)), 0x7c00);
	assert_int_equal(acis_f32_to_f16(bits_f32(0xff800000)), 0xfc00);
}

static void
test_f32_to_f16_nan_stays_a_quiet_nan_with_its_sign(void **state)
{
	(void)state;
	assert_int_equal(acis_f32_to_f16(bits_f32(0x7f800001)), 0x7e00);
	assert_int_equal(acis_f32_to_f16(bits_f32(0xff800001)), 0xfe00);
	assert_int_equal(acis_f32_to_f16(bits_f32(0x7fc02000)), 0x7e01);
	assert_int_equal(acis_f32_to_f16(bits_f32(0xffffffff)), 0xffff);
}

/* 2^k, exactly. */
static double
pow2(int k)
{
	double r = 1;

	for (; k > 0; k--)
		r *= 2;
	for (; k < 0; k++)
		r /= 2;
	return r;
}

static void
test_f16_to_f32_is_exact_for_every_finite_encoding(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 65536; h++) {
		unsigned int e = (h >> 10) & 0x1f, m = h & 0x3ff;
		double v;

		if (e == 0x1f)
			continue;
		v = e == 0 ? m * pow2(-24) : (1024 + m) * pow2((int)e - 25);
		if (h & 0x8000)
			v = -v;
		if (f32_bits((float)v) != f32_bits(acis_f16_to_f32(h)))
			print_error("%#x widens to %#x, expected %#x\n", h,
				    f32_bits(acis_f16_to_f32(h)),
				    f32_bits((float)v));
		assert_int_equal(f32_bits(acis_f16_to_f32(h)),
				 f32_bits((float)v));
	}
}

static void
test_f16_to_f32_keeps_infinities_and_nan_payloads(void **state)
{
	(void)state;
	assert_int_equal(f32_bits(acis_f16_to_f32(0x7c00)), 0x7f800000);
	assert_int_equal(f32_bits(acis_f16_to_f32(0xfc00)), 0xff800000);
	assert_int_equal(f32_bits(acis_f16_to_f32(0x7e00)), 0x7fc00000);
	assert_int_equal(f32_bits(acis_f16_to_f32(0xfe01)), 0xffc02000);
	/* exact: a signalling NaN stays signalling until an op quiets it */
	assert_int_equal(f32_bits(acis_f16_to_f32(0x7c01)), 0x7f802000);
}

static void
test_every_finite_f16_survives_a_round_trip(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 65536; h++) {
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0)
			continue; /* NaN */
		assert_int_equal(acis_f32_to_f16(acis_f16_to_f32(h)), h);
	}
}

static void
test_f16_midpoints_round_to_the_even_neighbour(void **state)
{
	uint32_t h, sign;

	(void)state;
	for (sign = 0; sign <= 0x8000; sign += 0x8000) {
		for (h = 0; h < 0x7c00; h++) {
			/* past the largest finite, 65536 stands for inf */
			float lo = acis_f16_to_f32(h);
			float hi = h == 0x7bff ? 65536.0f :
						 acis_f16_to_f32(h + 1);
			uint32_t mid = f32_bits((lo + hi) / 2);
			uint32_t even = (h & 1) ? h + 1 : h;

			mid |= sign << 16;
			assert_int_equal(acis_f32_to_f16(bits_f32(mid)),
					 even | sign);
			assert_int_equal(acis_f32_to_f16(bits_f32(mid - 1)),
					 h | sign);
			assert_int_equal(acis_f32_to_f16(bits_f32(mid + 1)),
					 (h + 1) | sign);
		}
	}
}

static void
test_every_finite_bf16_survives_a_round_trip(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 65536; h++) {
		if ((h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0)
			continue;
		assert_int_equal(f32_bits(acis_bf16_to_f32(h)), h << 16);
		assert_int_equal(acis_f32_to_bf16(acis_bf16_to_f32(h)), h);
	}
}

static void
test_bf16_midpoints_round_to_the_even_neighbour(void **state)
{
	uint32_t h, sign;

	(void)state;
	for (sign = 0; sign <= 0x8000; sign += 0x8000) {
		for (h = 0; h < 0x7f80; h++) {
			uint32_t mid = (h | sign) << 16 | 0x8000;
			uint32_t even = (h & 1) ? h + 1 : h;

			assert_int_equal(acis_f32_to_bf16(bits_f32(mid)),
					 even | sign);
			assert_int_equal(acis_f32_to_bf16(bits_f32(mid - 1)),
					 h | sign);
			assert_int_equal(acis_f32_to_bf16(bits_f32(mid + 1)),
					 (h + 1) | sign);
		}
	}
}

#ifdef HAVE_F16C_CHECK
static __attribute__((target("f16c"))) uint16_t
hw_f32_to_f16(float f)
{
	return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}

static __attribute__((target("f16c"))) float
hw_f16_to_f32(uint16_t h)
{
	return _cvtsh_ss(h);
}
#endif

static void
test_f32_to_f16_agrees_with_the_f16c_instruction(void **state)
{
#ifdef HAVE_F16C_CHECK
	size_t n, i;
	uint32_t *x;

	(void)state;
	if (!__builtin_cpu_supports("f16c"))
		skip();
	x = narrowing_cases(&n);
	for (i = 0; i < n; i++) {
		if (acis_f32_to_f16(bits_f32(x[i])) !=
		    hw_f32_to_f16(bits_f32(x[i])))
			print_error("%#x: %#x, F16C %#x\n", x[i],
				    acis_f32_to_f16(bits_f32(x[i])),
				    hw_f32_to_f16(bits_f32(x[i])));
		assert_int_equal(acis_f32_to_f16(bits_f32(x[i])),
				 hw_f32_to_f16(bits_f32(x[i])));
	}
	free(x);
	seed(104);
	for (i = 0; i < (1u << 22); i++) {
		float f = bits_f32((uint32_t)next_random());

		assert_int_equal(acis_f32_to_f16(f), hw_f32_to_f16(f));
	}
#else
	(void)state;
	skip();
#endif
}

static void
test_f16_to_f32_agrees_with_the_f16c_instruction(void **state)
{
#ifdef HAVE_F16C_CHECK
	uint32_t h, want;

	(void)state;
	if (!__builtin_cpu_supports("f16c"))
		skip();
	for (h = 0; h < 65536; h++) {
		want = f32_bits(hw_f16_to_f32(h));
		/* F16C quiets signalling NaNs; the library widens exactly */
		if ((h & 0x7e00) == 0x7c00 && (h & 0x1ff) != 0)
			want &= ~0x00400000u;
		assert_int_equal(f32_bits(acis_f16_to_f32(h)), want);
	}
#else
	(void)state;
	skip();
#endif
}

static void
test_order_free_is_true_except_for_float_sum_and_prod(void **state)
{
	/* ops:            none sum prod min max band bor bxor */
	static const int table[ACIS_DTYPE_MAX + 1][ACIS_OP_MAX_ + 1] = {
		[ACIS_INT32] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_INT64] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_UINT32] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_UINT64] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_FLOAT32] = {0, 0, 0, 1, 1, 0, 0, 0},
		[ACIS_FLOAT64] = {0, 0, 0, 1, 1, 0, 0, 0},
		[ACIS_FLOAT16] = {0, 0, 0, 1, 1, 0, 0, 0},
		[ACIS_BFLOAT16] = {0, 0, 0, 1, 1, 0, 0, 0},
		[ACIS_INT8] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_UINT8] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_INT16] = {0, 1, 1, 1, 1, 1, 1, 1},
		[ACIS_UINT16] = {0, 1, 1, 1, 1, 1, 1, 1},
	};
	unsigned int dtype, op;

	(void)state;
	for (dtype = 0; dtype <= ACIS_DTYPE_MAX; dtype++) {
		for (op = 0; op <= ACIS_OP_MAX_; op++) {
			if (acis_reduce_order_free(dtype, op) != table[dtype][op])
				print_error("order_free(%u, %u) = %d\n", dtype,
					    op, acis_reduce_order_free(dtype,
								       op));
			assert_int_equal(acis_reduce_order_free(dtype, op),
					 table[dtype][op]);
		}
	}
	assert_int_equal(acis_reduce_order_free(ACIS_INT32, 1000), 0);
	assert_int_equal(acis_reduce_order_free(1000, ACIS_OP_SUM), 0);
}

static void
test_acc_size_is_the_element_size_or_4_for_16_bit_floats(void **state)
{
	(void)state;
	assert_int_equal(acis_acc_size(ACIS_INT32), 4);
	assert_int_equal(acis_acc_size(ACIS_INT64), 8);
	assert_int_equal(acis_acc_size(ACIS_UINT32), 4);
	assert_int_equal(acis_acc_size(ACIS_UINT64), 8);
	assert_int_equal(acis_acc_size(ACIS_FLOAT32), 4);
	assert_int_equal(acis_acc_size(ACIS_FLOAT64), 8);
	assert_int_equal(acis_acc_size(ACIS_FLOAT16), 4);
	assert_int_equal(acis_acc_size(ACIS_BFLOAT16), 4);
	/* 16 bits wide, but integers: they accumulate in themselves */
	assert_int_equal(acis_acc_size(ACIS_INT8), 1);
	assert_int_equal(acis_acc_size(ACIS_UINT8), 1);
	assert_int_equal(acis_acc_size(ACIS_INT16), 2);
	assert_int_equal(acis_acc_size(ACIS_UINT16), 2);
	assert_int_equal(acis_acc_size(0), 0);
	assert_int_equal(acis_acc_size(ACIS_DTYPE_MAX), 0);
}

/* init and finish of a type that accumulates in itself move bits, never
 * values: signalling NaNs and -0 arrive unchanged. */
static void
test_init_and_finish_copy_all_but_the_16_bit_floats_exactly(void **state)
{
	static const unsigned int dtypes[] = {
		ACIS_INT32, ACIS_INT64, ACIS_UINT32, ACIS_UINT64,
		ACIS_FLOAT32, ACIS_FLOAT64, ACIS_INT8, ACIS_UINT8,
		ACIS_INT16, ACIS_UINT16,
	};
	uint8_t src[77 * 8 + 3], acc[77 * 8], dst[77 * 8];
	size_t k, i;

	(void)state;
	seed(105);
	for (k = 0; k < sizeof(dtypes) / sizeof(dtypes[0]); k++) {
		size_t size = src_size(dtypes[k]);

		for (i = 0; i < 77; i++)
			random_src(dtypes[k], src + 3 + i * size);
		memset(acc, 0, sizeof(acc));
		memset(dst, 0, sizeof(dst));
		acis_reduce_init(dtypes[k], acc, src + 3, 77);
		assert_memory_equal(acc, src + 3, 77 * size);
		acis_reduce_finish(dtypes[k], dst, acc, 77);
		assert_memory_equal(dst, src + 3, 77 * size);
	}
	/* the random data had these; make sure of two */
	{
		uint32_t snan = 0x7f800001, out;
		uint64_t negzero = 0x8000000000000000, out64;

		acis_reduce_finish(ACIS_FLOAT32, &out, &snan, 1);
		assert_int_equal(out, 0x7f800001);
		acis_reduce_finish(ACIS_FLOAT64, &out64, &negzero, 1);
		assert_int_equal(out64, 0x8000000000000000);
	}
}

static void
test_an_invalid_pair_leaves_the_accumulator_alone(void **state)
{
	uint32_t acc[20], src[20], before[20];
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++) {
		acc[i] = 0x3f800000 + (uint32_t)i;
		src[i] = 0xffffffff;
	}
	memcpy(before, acc, sizeof(acc));
	acis_reduce_fold(ACIS_FLOAT32, ACIS_OP_BXOR, acc, src, 20);
	acis_reduce_fold(ACIS_FLOAT16, ACIS_OP_BAND, acc, src, 20);
	acis_reduce_fold(ACIS_INT32, 0, acc, src, 20);
	acis_reduce_fold(ACIS_INT32, ACIS_OP_MAX_, acc, src, 20);
	acis_reduce_fold(0, ACIS_OP_SUM, acc, src, 20);
	acis_reduce_fold(1000, ACIS_OP_SUM, acc, src, 20);
	acis_reduce_fold_scalar(ACIS_FLOAT32, ACIS_OP_BOR, acc, src, 20);
	acis_reduce_fold_scalar(ACIS_DTYPE_MAX, ACIS_OP_SUM, acc, src, 20);
	assert_memory_equal(acc, before, sizeof(acc));
}

static void
test_isa_names_the_best_variant_allowed(void **state)
{
	const char *want = "generic";
	const char *env = getenv("ACIS_REDUCE_ISA");

	(void)state;
#if defined(__GNUC__) && defined(__x86_64__)
	/* the variants need the x86-64 levels v4 (AVX-512 F, BW, DQ, VL)
	 * and v3 (AVX2, F16C) */
	__builtin_cpu_init();
	if (__builtin_cpu_supports("x86-64-v4"))
		want = "avx512";
	else if (__builtin_cpu_supports("x86-64-v3"))
		want = "avx2";
	/* a request is honoured only when the CPU can run it */
	if (env != NULL && strcmp(env, "generic") == 0)
		want = "generic";
	else if (env != NULL && strcmp(env, "avx2") == 0 &&
		 __builtin_cpu_supports("x86-64-v3"))
		want = "avx2";
#else
	(void)env;
#endif
	print_message("kernel variant: %s\n", acis_reduce_isa());
	assert_string_equal(acis_reduce_isa(), want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int32_folds_match_the_scalar_reference),
		cmocka_unit_test(test_int64_folds_match_the_scalar_reference),
		cmocka_unit_test(test_uint32_folds_match_the_scalar_reference),
		cmocka_unit_test(test_uint64_folds_match_the_scalar_reference),
		cmocka_unit_test(test_float32_folds_match_the_scalar_reference),
		cmocka_unit_test(test_float64_folds_match_the_scalar_reference),
		cmocka_unit_test(test_float16_folds_match_the_scalar_reference),
		cmocka_unit_test(test_bfloat16_folds_match_the_scalar_reference),
		cmocka_unit_test(test_int8_folds_match_the_scalar_reference),
		cmocka_unit_test(test_uint8_folds_match_the_scalar_reference),
		cmocka_unit_test(test_int16_folds_match_the_scalar_reference),
		cmocka_unit_test(test_uint16_folds_match_the_scalar_reference),
		cmocka_unit_test(test_long_folds_match_the_scalar_reference_at_every_start_in_a_line),
		cmocka_unit_test(test_a_nan_in_any_position_gives_the_canonical_nan_there),
		cmocka_unit_test(test_init_matches_the_scalar_reference_for_every_dtype),
		cmocka_unit_test(test_finish_matches_the_scalar_reference_for_every_dtype),
		cmocka_unit_test(test_a_whole_reduction_matches_the_scalar_reference),
		cmocka_unit_test(test_init_widens_every_float16_encoding_like_the_scalar_reference),
		cmocka_unit_test(test_init_widens_every_bfloat16_encoding_like_the_scalar_reference),
		cmocka_unit_test(test_finish_narrows_a_float32_sweep_like_the_scalar_reference),
		cmocka_unit_test(test_kernels_write_nothing_outside_their_elements),
		cmocka_unit_test(test_int32_sum_past_the_maximum_wraps_to_the_minimum),
		cmocka_unit_test(test_int32_prod_of_the_minimum_and_minus_one_wraps_to_the_minimum),
		cmocka_unit_test(test_int64_sum_past_the_maximum_wraps_to_the_minimum),
		cmocka_unit_test(test_uint32_sum_wraps_modulo_2_to_the_32),
		cmocka_unit_test(test_uint64_prod_wraps_modulo_2_to_the_64),
		cmocka_unit_test(test_int32_min_and_max_compare_as_signed),
		cmocka_unit_test(test_uint32_min_and_max_compare_as_unsigned),
		cmocka_unit_test(test_int64_min_and_max_compare_as_signed),
		cmocka_unit_test(test_uint64_min_and_max_compare_as_unsigned),
		cmocka_unit_test(test_bitwise_ops_combine_the_bits),
		cmocka_unit_test(test_int8_sum_past_the_maximum_wraps_to_the_minimum),
		cmocka_unit_test(test_uint8_sum_wraps_modulo_2_to_the_8),
		cmocka_unit_test(test_int16_sum_past_the_maximum_wraps_to_the_minimum),
		cmocka_unit_test(test_uint16_sum_wraps_modulo_2_to_the_16),
		cmocka_unit_test(test_8_and_16_bit_prod_wraps),
		cmocka_unit_test(test_int8_and_int16_min_and_max_compare_as_signed),
		cmocka_unit_test(test_uint8_and_uint16_min_and_max_compare_as_unsigned),
		cmocka_unit_test(test_8_and_16_bit_bitwise_ops_combine_the_bits),
		cmocka_unit_test(test_int8_folds_of_every_pair_are_what_c_computes),
		cmocka_unit_test(test_uint8_folds_of_every_pair_are_what_c_computes),
		cmocka_unit_test(test_int16_folds_of_edge_and_random_pairs_are_what_c_computes),
		cmocka_unit_test(test_uint16_folds_of_edge_and_random_pairs_are_what_c_computes),
		cmocka_unit_test(test_float32_min_with_a_nan_gives_the_canonical_nan),
		cmocka_unit_test(test_float32_max_with_a_nan_gives_the_canonical_nan),
		cmocka_unit_test(test_float64_min_and_max_with_a_nan_give_the_canonical_nan),
		cmocka_unit_test(test_min_of_signed_zeros_is_negative_zero_in_either_order),
		cmocka_unit_test(test_max_of_signed_zeros_is_positive_zero_in_either_order),
		cmocka_unit_test(test_float_min_and_max_order_infinities_and_subnormals),
		cmocka_unit_test(test_float32_sum_of_opposite_infinities_is_the_canonical_nan),
		cmocka_unit_test(test_float64_prod_of_zero_and_infinity_is_the_canonical_nan),
		cmocka_unit_test(test_float_sum_with_a_nan_operand_gives_the_canonical_nan),
		cmocka_unit_test(test_float32_sum_rounds_ties_to_even),
		cmocka_unit_test(test_float16_one_plus_one_is_two),
		cmocka_unit_test(test_float16_largest_finite_doubled_overflows_to_infinity),
		cmocka_unit_test(test_float16_sum_of_subnormals_is_exact),
		cmocka_unit_test(test_float16_sum_is_rounded_once_at_the_end),
		cmocka_unit_test(test_float16_min_and_max_of_signed_zeros_follow_the_sign),
		cmocka_unit_test(test_float16_nan_in_max_gives_the_canonical_quiet_nan),
		cmocka_unit_test(test_bfloat16_ties_round_to_even),
		cmocka_unit_test(test_bfloat16_just_above_a_tie_rounds_up),
		cmocka_unit_test(test_bfloat16_overflow_rounds_to_infinity),
		cmocka_unit_test(test_bfloat16_nan_narrows_to_a_quiet_nan_with_its_sign),
		cmocka_unit_test(test_bfloat16_subnormals_round_to_nearest_even),
		cmocka_unit_test(test_f32_to_f16_rounds_subnormals_to_nearest_even),
		cmocka_unit_test(test_f32_to_f16_overflow_gives_infinity),
		cmocka_unit_test(test_f32_to_f16_nan_stays_a_quiet_nan_with_its_sign),
		cmocka_unit_test(test_f16_to_f32_is_exact_for_every_finite_encoding),
		cmocka_unit_test(test_f16_to_f32_keeps_infinities_and_nan_payloads),
		cmocka_unit_test(test_every_finite_f16_survives_a_round_trip),
		cmocka_unit_test(test_f16_midpoints_round_to_the_even_neighbour),
		cmocka_unit_test(test_every_finite_bf16_survives_a_round_trip),
		cmocka_unit_test(test_bf16_midpoints_round_to_the_even_neighbour),
		cmocka_unit_test(test_f32_to_f16_agrees_with_the_f16c_instruction),
		cmocka_unit_test(test_f16_to_f32_agrees_with_the_f16c_instruction),
		cmocka_unit_test(test_order_free_is_true_except_for_float_sum_and_prod),
		cmocka_unit_test(test_acc_size_is_the_element_size_or_4_for_16_bit_floats),
		cmocka_unit_test(test_init_and_finish_copy_all_but_the_16_bit_floats_exactly),
		cmocka_unit_test(test_an_invalid_pair_leaves_the_accumulator_alone),
		cmocka_unit_test(test_isa_names_the_best_variant_allowed),
	};

	return cmocka_run_group_tests_name("reduce", tests, NULL, NULL);
}
