/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce_bench: throughput of acis_reduce_fold, the kernel the switch
 * calls for every contribution after a chunk's first, against the plain
 * loop (acc[i] = acc[i] OP src[i]) as GCC vectorises it by itself, on the
 * payload sizes a switch folds (64 B to 8 KiB, in L1).
 *
 * The plain loop is compiled for the same instruction set as the kernel
 * variant in use (target attributes, the variant picked when the program
 * starts, not the build's -march): x86-64-v4 for avx512, both with 512-bit
 * vectors and with the 256-bit ones GCC prefers when tuning for Intel's
 * AVX-512 cores; x86-64-v3 for avx2; the baseline for generic. The loop
 * has none of the kernel's semantics (no canonical NaN, no ordered signed
 * zeros, no exact float16 widening): it is the speed to reach.
 *
 * Four layouts, as the switch's buffers lie: both 64-byte aligned (a
 * slot's accumulator in its pool, a payload copied there); the
 * accumulator aligned and the contribution 16 bytes into a cache line
 * (where a frame's payload starts with the switch's 48-byte mbuf private
 * area: the 128-byte mbuf header, that area and the 128-byte headroom put
 * the frame at byte 48 of a line, and the payload follows 96 bytes of
 * Ethernet, IPv4, UDP and ACiS headers); both at byte 16 (the first
 * contribution kept in its frame as the accumulator); both at byte 42
 * (not even element-aligned, the general case). The contribution lies
 * 2 KiB past the accumulator modulo 4 KiB, so that no load of one shares
 * the low 12 address bits with a recent store to the other.
 *
 * Each row alternates the kernel and the loops for a number of rounds,
 * timing each by the thread's CPU time, and prints the medians in GB/s of
 * source bytes folded (2 bytes an element for float16 and bfloat16, whose
 * accumulator is float32) and the median of the rounds' ratios of the
 * kernel to the faster loop. The absolute figures move with whatever else
 * the machine runs; the ratio, taken round by round, is the figure.
 *
 * Usage: reduce_bench [-b bytes] [-t seconds per measurement] [-r rounds]
 * [case...], cases named as printed ("float32-sum"), -b one of the sizes
 * printed (all by default); ACIS_REDUCE_ISA=avx2 or generic times a
 * narrower kernel variant against its own plain loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acis_proto.h"
#include "acis_reduce.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define BENCH_X86 1
#endif

#define MAX_BYTES 8192
#define FRAME_OFF 16
#define MAX_ROUNDS 31

/* Elements that may lie at any address, as payloads do. */
typedef float uf32 __attribute__((aligned(1)));
typedef double uf64 __attribute__((aligned(1)));
typedef uint32_t uu32 __attribute__((aligned(1)));
typedef int32_t ui32 __attribute__((aligned(1)));
typedef uint16_t uu16 __attribute__((aligned(1)));
typedef int16_t ui16 __attribute__((aligned(1)));
#ifdef BENCH_X86
typedef _Float16 uf16 __attribute__((aligned(1)));
#endif

typedef void (*loop_fn)(void *restrict acc, const void *restrict src,
			size_t n);

/*
 * The plain loops, stamped out once per instruction set. bfloat16 widens
 * by a shift, as anyone would write it; float16 by a _Float16 cast (GCC 12
 * does not vectorise it: the scalar conversion instruction per element).
 */
#define LOOP(name, attr, TA, TS, STMT)					\
static __attribute__((noinline)) attr void				\
name(void *restrict acc, const void *restrict src, size_t n)		\
{									\
	TA *a = acc;							\
	const TS *s = src;						\
	size_t i;							\
									\
	for (i = 0; i < n; i++)						\
		STMT;							\
}

/* A macro, not a function: a function of the build's target would not be
 * inlined into the loops' narrower or wider ones. */
#define BF16_WIDEN(h) ({						\
	uint32_t _u = (uint32_t)(h) << 16;				\
	float _f;							\
									\
	memcpy(&_f, &_u, sizeof(_f));					\
	_f;								\
})

#ifdef BENCH_X86
#define LOOP_F16(isa, attr)						\
LOOP(f16_sum_##isa, attr, uf32, uf16, a[i] += (float)s[i])
#else
#define LOOP_F16(isa, attr)
#endif

#define LOOPS(isa, attr)						\
LOOP(f32_sum_##isa, attr, uf32, uf32, a[i] += s[i])			\
LOOP(f32_prod_##isa, attr, uf32, uf32, a[i] *= s[i])			\
LOOP(f32_min_##isa, attr, uf32, uf32, a[i] = s[i] < a[i] ? s[i] : a[i]) \
LOOP(f32_max_##isa, attr, uf32, uf32, a[i] = s[i] > a[i] ? s[i] : a[i]) \
LOOP(f64_sum_##isa, attr, uf64, uf64, a[i] += s[i])			\
LOOP(f64_min_##isa, attr, uf64, uf64, a[i] = s[i] < a[i] ? s[i] : a[i]) \
LOOP(i32_sum_##isa, attr, uu32, uu32, a[i] += s[i])			\
LOOP(i32_min_##isa, attr, ui32, ui32, a[i] = s[i] < a[i] ? s[i] : a[i]) \
LOOP(i32_max_##isa, attr, ui32, ui32, a[i] = s[i] > a[i] ? s[i] : a[i]) \
LOOP(bf16_sum_##isa, attr, uf32, uu16, a[i] += BF16_WIDEN(s[i]))	\
LOOP(i8_sum_##isa, attr, uint8_t, uint8_t, a[i] += s[i])		\
LOOP(i8_min_##isa, attr, int8_t, int8_t, a[i] = s[i] < a[i] ? s[i] : a[i]) \
LOOP(u8_max_##isa, attr, uint8_t, uint8_t,				\
     a[i] = s[i] > a[i] ? s[i] : a[i])					\
LOOP(i16_sum_##isa, attr, uu16, uu16, a[i] += s[i])			\
LOOP(i16_min_##isa, attr, ui16, ui16, a[i] = s[i] < a[i] ? s[i] : a[i]) \
LOOP(u16_max_##isa, attr, uu16, uu16, a[i] = s[i] > a[i] ? s[i] : a[i]) \
LOOP_F16(isa, attr)

LOOPS(base, )
#ifdef BENCH_X86
LOOPS(v3, __attribute__((target("arch=x86-64-v3"))))
LOOPS(v4y, __attribute__((target("arch=x86-64-v4,"
				 "prefer-vector-width=256"))))
LOOPS(v4z, __attribute__((target("arch=x86-64-v4,"
				 "prefer-vector-width=512"))))
#endif

/* The loops' instruction sets, a column each. */
enum { L_BASE, L_V3, L_V4Y, L_V4Z, N_LOOPS };

static const char *const loop_names[N_LOOPS] = {
	[L_BASE] = "loop", [L_V3] = "loop-v3",
	[L_V4Y] = "loop-ymm", [L_V4Z] = "loop-zmm",
};

#ifdef BENCH_X86
#define LOOP_SET(t) {							\
	[L_BASE] = t##_base, [L_V3] = t##_v3,				\
	[L_V4Y] = t##_v4y, [L_V4Z] = t##_v4z,				\
}
#else
#define LOOP_SET(t) { [L_BASE] = t##_base }
#endif

struct fold_case {
	const char *name;
	unsigned int dtype;
	unsigned int op;
	size_t src_size;
	loop_fn loop[N_LOOPS];
};

static const struct fold_case cases[] = {
	{"float32-sum", ACIS_FLOAT32, ACIS_OP_SUM, 4, LOOP_SET(f32_sum)},
	{"float32-prod", ACIS_FLOAT32, ACIS_OP_PROD, 4, LOOP_SET(f32_prod)},
	{"float32-min", ACIS_FLOAT32, ACIS_OP_MIN, 4, LOOP_SET(f32_min)},
	{"float32-max", ACIS_FLOAT32, ACIS_OP_MAX, 4, LOOP_SET(f32_max)},
	{"int32-sum", ACIS_INT32, ACIS_OP_SUM, 4, LOOP_SET(i32_sum)},
	{"int32-min", ACIS_INT32, ACIS_OP_MIN, 4, LOOP_SET(i32_min)},
	{"int32-max", ACIS_INT32, ACIS_OP_MAX, 4, LOOP_SET(i32_max)},
	{"float64-sum", ACIS_FLOAT64, ACIS_OP_SUM, 8, LOOP_SET(f64_sum)},
	{"float64-min", ACIS_FLOAT64, ACIS_OP_MIN, 8, LOOP_SET(f64_min)},
#ifdef BENCH_X86
	{"float16-sum", ACIS_FLOAT16, ACIS_OP_SUM, 2, LOOP_SET(f16_sum)},
#endif
	{"bfloat16-sum", ACIS_BFLOAT16, ACIS_OP_SUM, 2, LOOP_SET(bf16_sum)},
	{"int8-sum", ACIS_INT8, ACIS_OP_SUM, 1, LOOP_SET(i8_sum)},
	{"int8-min", ACIS_INT8, ACIS_OP_MIN, 1, LOOP_SET(i8_min)},
	{"uint8-max", ACIS_UINT8, ACIS_OP_MAX, 1, LOOP_SET(u8_max)},
	{"int16-sum", ACIS_INT16, ACIS_OP_SUM, 2, LOOP_SET(i16_sum)},
	{"int16-min", ACIS_INT16, ACIS_OP_MIN, 2, LOOP_SET(i16_min)},
	{"uint16-max", ACIS_UINT16, ACIS_OP_MAX, 2, LOOP_SET(u16_max)},
};

/* Payload sizes: powers of two and a 1500-byte MTU's payload (1418 B)
 * rounded down to whole float64s, which leaves a tail in every variant. */
static const size_t sizes[] = {64, 256, 512, 1024, 1416, 2048, 4096, 8192};

/* -b: only this payload size. */
static size_t only_bytes;

/* (accumulator, source) byte offsets from 64-byte aligned buffers. */
static const struct {
	const char *name;
	size_t acc_off;
	size_t src_off;
} layouts[] = {
	{"aligned", 0, 0},
	{"src+16", 0, FRAME_OFF},
	{"both+16", FRAME_OFF, FRAME_OFF},
	{"both+42", 42, 42},
};

/* The thread's CPU time: whatever else shares the core (the machine runs
 * other benchmarks) counts against neither side. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Calls per clock reading: about 1 MiB of source between readings. */
static uint64_t
batch_of(size_t bytes)
{
	return 1 + (1u << 20) / bytes;
}

/* GB/s of source bytes: the kernel through the library's entry point, as
 * the switch calls it. */
static double
time_kernel(const struct fold_case *c, void *acc, const void *src, size_t n,
	    double secs)
{
	uint64_t reps = 0, batch = batch_of(n * c->src_size), i;
	double t0, t;

	acis_reduce_fold(c->dtype, c->op, acc, src, n); /* warm */
	t0 = now();
	do {
		for (i = 0; i < batch; i++)
			acis_reduce_fold(c->dtype, c->op, acc, src, n);
		reps += batch;
		t = now() - t0;
	} while (t < secs);
	return (double)reps * n * c->src_size / t / 1e9;
}

static double
time_loop(loop_fn fn, size_t src_size, void *acc, const void *src, size_t n,
	  double secs)
{
	uint64_t reps = 0, batch = batch_of(n * src_size), i;
	double t0, t;

	fn(acc, src, n);
	t0 = now();
	do {
		for (i = 0; i < batch; i++)
			fn(acc, src, n);
		reps += batch;
		t = now() - t0;
	} while (t < secs);
	return (double)reps * n * src_size / t / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Values that keep every fold at full speed for millions of repetitions:
 * sums of small positive numbers (far from overflow, never subnormal),
 * products by one, min and max of anything finite.
 */
static void
fill(const struct fold_case *c, uint8_t *acc, uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)rand();
		float f = (float)(r % 1000 + 1) * 1e-6f;
		double d = f;
		uint16_t h;

		if (c->op == ACIS_OP_PROD)
			f = 1.0f;
		switch (c->dtype) {
		case ACIS_FLOAT32:
			memcpy(src + i * 4, &f, 4);
			memcpy(acc + i * 4, &f, 4);
			break;
		case ACIS_FLOAT64:
			memcpy(src + i * 8, &d, 8);
			memcpy(acc + i * 8, &d, 8);
			break;
		case ACIS_FLOAT16: /* 2^-14 .. 2^-7, normal */
			h = (uint16_t)(0x0400 + r % 0x1c00);
			memcpy(src + i * 2, &h, 2);
			memcpy(acc + i * 4, &f, 4);
			break;
		case ACIS_BFLOAT16:
			h = (uint16_t)(0x3800 + r % 0x400);
			memcpy(src + i * 2, &h, 2);
			memcpy(acc + i * 4, &f, 4);
			break;
		default: /* integers, accumulated in themselves */
			memcpy(src + i * c->src_size, &r, c->src_size);
			memcpy(acc + i * c->src_size, &r, c->src_size);
			break;
		}
	}
}

/* The loops to compare with: the instruction set of the kernel variant in
 * use, at each vector width GCC might pick for it. */
static void
loops_for_variant(int use[N_LOOPS])
{
	const char *isa = acis_reduce_isa();

	memset(use, 0, N_LOOPS * sizeof(use[0]));
	if (strcmp(isa, "avx512") == 0) {
		use[L_V4Z] = 1;
		use[L_V4Y] = 1;
	} else if (strcmp(isa, "avx2") == 0) {
		use[L_V3] = 1;
	} else {
		use[L_BASE] = 1;
	}
}

static void
bench_case(const struct fold_case *c, uint8_t *acc_buf, uint8_t *src_buf,
	   const int use[N_LOOPS], double secs, unsigned int rounds)
{
	size_t s, l;
	unsigned int k, r;

	printf("\n%s (kernel %s), GB/s of source bytes, median of %u "
	       "rounds\n", c->name, acis_reduce_isa(), rounds);
	printf("%6s %-8s %9s", "bytes", "layout", "kernel");
	for (k = 0; k < N_LOOPS; k++)
		if (use[k])
			printf(" %9s", loop_names[k]);
	printf(" %12s\n", "kernel/loop");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s] / c->src_size;

		if (only_bytes != 0 && sizes[s] != only_bytes)
			continue;
		for (l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
			uint8_t *acc = acc_buf + layouts[l].acc_off;
			uint8_t *src = src_buf + layouts[l].src_off;
			double kern[MAX_ROUNDS], loop[N_LOOPS][MAX_ROUNDS];
			double ratio[MAX_ROUNDS], tmp[MAX_ROUNDS];
			double med[N_LOOPS] = {0};
			unsigned int best = 0;

			fill(c, acc, src, n);
			for (r = 0; r < rounds; r++) {
				kern[r] = time_kernel(c, acc, src, n, secs);
				for (k = 0; k < N_LOOPS; k++)
					if (use[k])
						loop[k][r] = time_loop(
							c->loop[k], c->src_size,
							acc, src, n, secs);
			}
			/* The ratio is against the loop that was faster
			 * over the rounds, taken round by round. */
			for (k = 0; k < N_LOOPS; k++) {
				if (!use[k])
					continue;
				memcpy(tmp, loop[k], rounds * sizeof(tmp[0]));
				med[k] = median(tmp, rounds);
				if (med[k] > med[best] || !use[best])
					best = k;
			}
			for (r = 0; r < rounds; r++)
				ratio[r] = kern[r] / loop[best][r];
			printf("%6zu %-8s %9.1f", sizes[s], layouts[l].name,
			       median(kern, rounds));
			for (k = 0; k < N_LOOPS; k++)
				if (use[k])
					printf(" %9.1f", med[k]);
			printf(" %11.2fx\n", median(ratio, rounds));
			fflush(stdout);
		}
	}
}

static int
usage(void)
{
	size_t i;

	fprintf(stderr, "usage: reduce_bench [-b bytes] [-t seconds > 0] "
		"[-r rounds 1..%d] [case...]\ncases:", MAX_ROUNDS);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	return 2;
}

int
main(int argc, char **argv)
{
	double secs = 0.02;
	unsigned int rounds = 5;
	/* The accumulator (up to twice MAX_BYTES: float16 sources widen)
	 * at the start of a page, the contribution 2 KiB into another. */
	uint8_t *buf = aligned_alloc(4096, 8 * MAX_BYTES);
	uint8_t *acc = buf;
	uint8_t *src = buf == NULL ? NULL : buf + 4 * MAX_BYTES + 2048;
	int use[N_LOOPS], opt, found = 0;
	size_t i;

	while ((opt = getopt(argc, argv, "b:t:r:h")) != -1) {
		switch (opt) {
		case 'b':
			only_bytes = (size_t)atol(optarg);
			break;
		case 't':
			secs = atof(optarg);
			if (secs <= 0)
				return usage();
			break;
		case 'r':
			rounds = (unsigned int)atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (acc == NULL || src == NULL) {
		fprintf(stderr, "reduce_bench: out of memory\n");
		return 1;
	}
	loops_for_variant(use);
	srand(1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int want = optind == argc;
		int a;

		for (a = optind; a < argc; a++)
			want |= strcmp(argv[a], cases[i].name) == 0;
		if (!want)
			continue;
		found++;
		bench_case(&cases[i], acc, src, use, secs, rounds);
	}
	free(buf);
	if (found == 0)
		return usage();
	return 0;
}
