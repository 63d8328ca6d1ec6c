/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * copy_bench: what moving a message's bytes costs one core on this
 * machine, the floor under the host side of every transport
 * (doc/benchmarks.md §3, "the floors").
 *
 * A message of S bytes (default 4 MiB, as an application's buffer: cold,
 * other messages' buffers touched between calls) is cut into chunks of C
 * bytes (default 8912, a chunk at MTU 9000) and each chunk is
 *
 *   out   copied into the next slot of a ring of R slots of B bytes
 *         (default 4096 slots of 9088 bytes, libacis's memif ring), as a
 *         transport puts a frame where the other side reads it;
 *   sum   summed for its UDP checksum where it lies in the ring;
 *   in    copied from the ring's next slot back into a message buffer,
 *         as a received chunk goes to the application.
 *
 * Each pass is timed on its own, over rounds of M messages (default 8,
 * so buffers and ring exceed the caches as four hosts' do), by the
 * thread's CPU time; the median round of each is printed in GB/s and in
 * microseconds per message. A transport that copies a byte k times and
 * sums it j times costs at least k × (out or in) + j × sum per message.
 *
 * Usage: copy_bench [-s bytes] [-c chunk] [-r slots] [-b slot bytes]
 *                   [-m messages] [-n rounds]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acis_pkt.h"

#define MAX_ROUNDS 99

static double
cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
get_size(const char *opt, const char *s, size_t lo, size_t hi, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "copy_bench: %s %s: want a number from %zu to "
			"%zu\n", opt, s, lo, hi);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

int
main(int argc, char **argv)
{
	size_t S = 4u << 20, C = 8912, R = 4096, B = 9088, M = 8, N = 9;
	double t_out[MAX_ROUNDS], t_sum[MAX_ROUNDS], t_in[MAX_ROUNDS];
	volatile uint32_t sink = 0;
	uint8_t *msg, *ring;
	size_t slot = 0, k, m, o;
	int c;

	while ((c = getopt(argc, argv, "s:c:r:b:m:n:h")) != -1) {
		int rc = 0;

		switch (c) {
		case 's': rc = get_size("-s", optarg, 64, 1u << 30, &S); break;
		case 'c': rc = get_size("-c", optarg, 64, 65536, &C); break;
		case 'r': rc = get_size("-r", optarg, 16, 1u << 20, &R); break;
		case 'b': rc = get_size("-b", optarg, 64, 65536, &B); break;
		case 'm': rc = get_size("-m", optarg, 1, 64, &M); break;
		case 'n': rc = get_size("-n", optarg, 1, MAX_ROUNDS, &N); break;
		case 'h':
			printf("usage: copy_bench [-s bytes] [-c chunk] [-r slots] "
			       "[-b slot bytes] [-m messages] [-n rounds]\n");
			return 0;
		default:
			return 2;
		}
		if (rc != 0)
			return 2;
	}
	if (C > B) {
		fprintf(stderr, "copy_bench: a chunk of %zu bytes does not fit "
			"a slot of %zu\n", C, B);
		return 2;
	}
	msg = aligned_alloc(64, ((S * M + 63) / 64) * 64);
	ring = aligned_alloc(64, ((R * B + 63) / 64) * 64);
	if (msg == NULL || ring == NULL) {
		fprintf(stderr, "copy_bench: no memory for %zu messages of %zu "
			"bytes and %zu slots of %zu\n", M, S, R, B);
		return 1;
	}
	memset(msg, 1, S * M);
	memset(ring, 2, R * B);
	for (k = 0; k < N; k++) {
		double t0;

		t0 = cpu_now();
		for (m = 0; m < M; m++)
			for (o = 0; o < S; o += C, slot++)
				memcpy(ring + (slot % R) * B, msg + m * S + o,
				       S - o < C ? S - o : C);
		t_out[k] = cpu_now() - t0;
		slot -= M * ((S + C - 1) / C);
		t0 = cpu_now();
		for (m = 0; m < M; m++)
			for (o = 0; o < S; o += C, slot++)
				sink += acis_csum_partial(ring + (slot % R) * B,
							  (uint32_t)(S - o < C ? S - o : C),
							  0);
		t_sum[k] = cpu_now() - t0;
		slot -= M * ((S + C - 1) / C);
		t0 = cpu_now();
		for (m = 0; m < M; m++)
			for (o = 0; o < S; o += C, slot++)
				memcpy(msg + (M - 1 - m) * S + o,
				       ring + (slot % R) * B,
				       S - o < C ? S - o : C);
		t_in[k] = cpu_now() - t0;
	}
	qsort(t_out, N, sizeof(double), cmp_double);
	qsort(t_sum, N, sizeof(double), cmp_double);
	qsort(t_in, N, sizeof(double), cmp_double);
	printf("# copy_bench: %zu-byte messages in %zu-byte chunks, ring of "
	       "%zu x %zu bytes, %zu messages a round, median of %zu rounds "
	       "(thread CPU time)\n", S, C, R, B, M, N);
	printf("%-5s %10s %14s\n", "pass", "GB/s", "us/message");
	printf("%-5s %10.2f %14.1f\n", "out", (double)(S * M) / t_out[N / 2] / 1e9,
	       t_out[N / 2] / (double)M * 1e6);
	printf("%-5s %10.2f %14.1f\n", "sum", (double)(S * M) / t_sum[N / 2] / 1e9,
	       t_sum[N / 2] / (double)M * 1e6);
	printf("%-5s %10.2f %14.1f\n", "in", (double)(S * M) / t_in[N / 2] / 1e9,
	       t_in[N / 2] / (double)M * 1e6);
	(void)sink;
	free(msg);
	free(ring);
	return 0;
}
