/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce_bench: throughput of acis_reduce_fold for float32 sum on the
 * payload sizes a switch folds (256 B to 8 KiB, in L1), against a plain
 * scalar loop acc[i] += src[i] (vectorisation off) and the same loop as
 * GCC vectorises it by itself. GB/s counts source payload bytes folded.
 *
 * Usage: reduce_bench [seconds per measurement, default 0.2]. Set
 * ACIS_REDUCE_ISA=generic|avx2 to time a narrower kernel variant.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acis_proto.h"
#include "acis_reduce.h"

#define MAX_BYTES 8192

typedef void (*fold_fn)(float *acc, const float *src, size_t n);

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
fold_kernel(float *acc, const float *src, size_t n)
{
	acis_reduce_fold(ACIS_FLOAT32, ACIS_OP_SUM, acc, src, n);
}

/* The baseline: one element at a time. The optimize attribute is only
 * there to keep GCC from vectorising what is meant to stay scalar. */
static __attribute__((noinline, optimize("no-tree-vectorize"))) void
fold_scalar_loop(float *acc, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		acc[i] += src[i];
}

/* The same loop as GCC vectorises it without help (no NaN canonicalising,
 * so not the same semantics; shown for scale). */
static __attribute__((noinline)) void
fold_auto_loop(float *acc, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		acc[i] += src[i];
}

/* GB/s of source bytes folded by fn on n floats, over about secs. */
static double
measure(fold_fn fn, float *acc, const float *src, size_t n, double secs)
{
	double t0, t;
	uint64_t reps = 0, batch = 1 + (1u << 20) / (n * 4);
	uint64_t i;

	fn(acc, src, n); /* warm the caches */
	t0 = now();
	do {
		for (i = 0; i < batch; i++)
			fn(acc, src, n);
		reps += batch;
		t = now() - t0;
	} while (t < secs);
	return (double)reps * n * 4 / t / 1e9;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.2;
	float *acc = aligned_alloc(64, MAX_BYTES);
	float *src = aligned_alloc(64, MAX_BYTES);
	size_t bytes, i;

	if (acc == NULL || src == NULL || secs <= 0) {
		fprintf(stderr, "usage: reduce_bench [seconds > 0]\n");
		return 1;
	}
	/* Small values, so millions of folds stay far from overflow and
	 * never meet subnormals (which are slow on some CPUs). */
	srand(1);
	for (i = 0; i < MAX_BYTES / 4; i++) {
		src[i] = (float)(rand() % 1000) * 1e-6f;
		acc[i] = 0;
	}
	printf("float32 sum, kernel variant %s, GB/s of source bytes\n",
	       acis_reduce_isa());
	printf("%8s %10s %10s %10s %8s\n", "bytes", "fold", "scalar",
	       "gcc-vec", "fold/sc");
	for (bytes = 256; bytes <= MAX_BYTES; bytes *= 2) {
		size_t n = bytes / 4;
		double k = measure(fold_kernel, acc, src, n, secs);
		double s = measure(fold_scalar_loop, acc, src, n, secs);
		double a = measure(fold_auto_loop, acc, src, n, secs);

		printf("%8zu %10.2f %10.2f %10.2f %7.1fx\n", bytes, k, s, a,
		       k / s);
	}
	free(acc);
	free(src);
	return 0;
}
