/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cgra_bench: each example handler of examples/cgra on the acis_cgra
 * machine against the same computation written in plain C on the same
 * data, packet by packet. Prints per handler the time per packet of both,
 * their ratio (machine / C: 1.0 is parity, the goal is <= 1.5) and the
 * payload throughput of the machine in Gb/s.
 *
 * "The same computation" is a C packet handler that reads the same
 * packets and does the same arithmetic in the same order (so the results
 * are checked equal bit for bit), written the way one would in C: for the
 * GCN handlers a row-major feature matrix and 16-float rows, for dot the
 * matrix stored transposed so the 16 sums vectorise. For GCN the CSR
 * aggregation of the whole graph is timed too, for scale.
 *
 * Usage: cgra_bench [seconds per measurement, default 0.3] [gcn|vec]
 * Build: like the library, with -ffp-contract=off.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acis_cgra.h"
#include "gcn_host.h"

#ifndef ACIS_EXAMPLES_DIR
#error "ACIS_EXAMPLES_DIR must name examples/cgra"
#endif

#define F 16                 /* GCN features = VPEs */
#define OUT_CAP (8u << 20)

static double min_time = 0.3;
static uint8_t out_m[OUT_CAP], out_c[OUT_CAP];
static int failures;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
die(const char *what, const char *why)
{
	fprintf(stderr, "cgra_bench: %s: %s\n", what, why);
	exit(1);
}

static struct acis_cgra *
machine(unsigned int n_vpe, const char *example)
{
	struct acis_cgra_config c = { .n_vpe = n_vpe };
	struct acis_cgra *m = acis_cgra_create(&c);
	char path[512], err[1024];
	uint32_t *w;
	size_t n;

	if (m == NULL)
		die(example, "cannot create the machine");
	snprintf(path, sizeof(path), "%s/%s", ACIS_EXAMPLES_DIR, example);
	if (acis_cgra_read_program(path, &w, &n, err, sizeof(err)) != 0)
		die(example, err);
	if (acis_cgra_load(m, w, n, err, sizeof(err)) != 0)
		die(example, err);
	free(w);
	return m;
}

/* A batch of packets: contiguous data, start offsets. */
struct batch {
	const uint8_t *data;
	const size_t *start;
	size_t n;
	size_t bytes;
};

/* Run every packet of the batch through the machine, appending output. */
static size_t
run_machine(struct acis_cgra *m, const struct batch *b, uint64_t *cycles)
{
	struct acis_cgra_run_stats st;
	size_t i, total = 0, len;

	for (i = 0; i < b->n; i++) {
		if (acis_cgra_run(m, b->data + b->start[i],
				  b->start[i + 1] - b->start[i],
				  out_m + total, OUT_CAP - total, &len,
				  cycles != NULL ? &st : NULL) != 0)
			die("run", acis_cgra_last_error(m));
		total += len;
		if (cycles != NULL)
			*cycles += st.cycles;
	}
	return total;
}

typedef size_t (*c_handler)(const struct batch *b, void *ctx);

struct timing {
	double t_machine, t_c;
};

/* Seconds for reps batches. */
static double
time_machine(struct acis_cgra *m, const struct batch *b, size_t reps)
{
	double t0 = now();
	size_t r;

	for (r = 0; r < reps; r++)
		run_machine(m, b, NULL);
	return now() - t0;
}

static double
time_c(const struct batch *b, c_handler fn, void *ctx, size_t reps)
{
	double t0 = now();
	size_t r;

	for (r = 0; r < reps; r++)
		fn(b, ctx);
	return now() - t0;
}

/*
 * Seconds per batch of each. The machine is shared with other work, so
 * the two alternate in rounds of about min_time / 5 and each keeps its
 * best round: interference only ever adds time.
 */
static struct timing
measure(struct acis_cgra *m, const struct batch *b, c_handler fn, void *ctx)
{
	struct timing t = { 1e30, 1e30 };
	size_t reps_m = 1, reps_c = 1;
	double el;
	int round;

	/* warm up both, and check them against each other */
	size_t lm = run_machine(m, b, NULL), lc = fn(b, ctx);

	if (lm != lc || memcmp(out_m, out_c, lm) != 0) {
		printf("  MISMATCH between the machine and plain C\n");
		failures++;
	}
	while (time_machine(m, b, reps_m) < min_time / 5)
		reps_m *= 2;
	while (time_c(b, fn, ctx, reps_c) < min_time / 5)
		reps_c *= 2;
	for (round = 0; round < 5; round++) {
		el = time_machine(m, b, reps_m) / reps_m;
		if (el < t.t_machine)
			t.t_machine = el;
		el = time_c(b, fn, ctx, reps_c) / reps_c;
		if (el < t.t_c)
			t.t_c = el;
	}
	return t;
}

static void
report(const char *name, const struct batch *b, struct timing t,
       uint64_t cycles)
{
	printf("%-26s %6zu pkts %8.1f KiB  machine %9.2f us  C %9.2f us  "
	       "ratio %5.2f  %6.2f Gb/s  (%.1f model cycles/pkt)\n", name,
	       b->n, b->bytes / 1024.0, t.t_machine * 1e6, t.t_c * 1e6,
	       t.t_machine / t.t_c, b->bytes * 8 / t.t_machine / 1e9,
	       (double)cycles / (double)b->n);
}

/* ---- GCN ---- */

struct gcn_ctx {
	const float *x;       /* row-major N x F */
	float acc[GCN_R][F];
	int ws;
};

/* The C form of gcn_os.s / gcn_ws.s on the same packets. */
static size_t
gcn_c(const struct batch *b, void *ctx)
{
	struct gcn_ctx *g = ctx;
	size_t i, total = 0;

	for (i = 0; i < b->n; i++) {
		const uint32_t *w = (const uint32_t *)(b->data + b->start[i]);
		size_t words = (b->start[i + 1] - b->start[i]) / 4, k;
		uint32_t last = w[1], c;
		unsigned int p;

		for (k = 2; k + 1 + GCN_D <= words; k += 1 + GCN_D) {
			uint32_t head = w[k];

			for (c = 0; c < GCN_D; c++) {
				uint32_t idx = w[k + 1 + c];

				if (!g->ws) {
					/* acc[r] += X[col] */
					const float *xr;

					if (idx >= GCN_N)
						continue;
					xr = g->x + (size_t)idx * F;
					for (p = 0; p < F; p++)
						g->acc[head][p] += xr[p];
				} else {
					/* acc[row] += X[j] */
					const float *xr = g->x +
							  (size_t)head * F;

					if (idx >= GCN_R)
						continue;
					for (p = 0; p < F; p++)
						g->acc[idx][p] += xr[p];
				}
			}
		}
		if (last) {
			memcpy(out_c + total, g->acc, sizeof(g->acc));
			total += sizeof(g->acc);
			memset(g->acc, 0, sizeof(g->acc));
		}
	}
	return total;
}

static void
bench_gcn(int ws)
{
	const char *name = ws ? "gcn_ws (spvacc.vx)" : "gcn_os (spvacc.xv)";
	struct acis_cgra *m = machine(F, ws ? "gcn_ws.s" : "gcn_os.s");
	static struct gcn_ctx ctx;
	struct gcn_graph g;
	struct gcn_packets pk;
	struct batch b;
	struct timing t;
	uint64_t cycles = 0;
	float *x, *y;
	double t0, el;
	size_t reps, r, i;

	if (gcn_graph_make(&g, GCN_N, 42) != 0)
		die(name, "out of memory");
	x = malloc((size_t)GCN_N * F * sizeof(float));
	y = malloc((size_t)GCN_N * F * sizeof(float));
	if (x == NULL || y == NULL)
		die(name, "out of memory");
	gcn_features(x, GCN_N, F, 43);
	if ((ws ? gcn_pack_ws(&g, &pk) : gcn_pack_os(&g, &pk)) != 0 ||
	    gcn_load_features(m, x, GCN_N, F) != 0)
		die(name, "cannot set up");
	b.data = pk.data;
	b.start = pk.start;
	b.n = pk.n;
	b.bytes = pk.len;
	ctx.x = x;
	ctx.ws = ws;
	memset(ctx.acc, 0, sizeof(ctx.acc));
	t = measure(m, &b, gcn_c, &ctx);
	run_machine(m, &b, &cycles);
	report(name, &b, t, cycles);
	/* the whole-graph CSR aggregation, for scale (best of 5 rounds) */
	for (reps = 1;; reps *= 2) {
		t0 = now();
		for (r = 0; r < reps; r++)
			gcn_reference(&g, x, F, y);
		el = now() - t0;
		if (el >= min_time / 5)
			break;
	}
	for (i = 0; i < 4; i++) {
		double e;

		t0 = now();
		for (r = 0; r < reps; r++)
			gcn_reference(&g, x, F, y);
		e = now() - t0;
		if (e < el)
			el = e;
	}
	printf("  (%u nodes, %u nonzeros, %zu idle tiles skipped per pass; "
	       "CSR SpMM in C %.2f us: machine / CSR %.2f)\n", g.n, g.nnz,
	       (size_t)pk.skipped, el / reps * 1e6, t.t_machine / (el / reps));
	gcn_packets_free(&pk);
	gcn_graph_free(&g);
	free(x);
	free(y);
	acis_cgra_free(m);
}

/* ---- dot and axpy ---- */

#define VEC_MAX 16384
#define N_PKTS 64

/* Packets of len floats each; returns the batch over buf. */
static struct batch
vec_batch(uint8_t *buf, size_t *start, uint32_t len, uint64_t seed)
{
	struct batch b;
	uint64_t s = seed;
	size_t i, k;

	for (i = 0; i < N_PKTS; i++) {
		float *x = (float *)(buf + i * len * 4);

		start[i] = i * len * 4;
		for (k = 0; k < len; k++)
			x[k] = (float)(gcn_unit(&s) * 4.0 - 2.0);
	}
	start[N_PKTS] = (size_t)N_PKTS * len * 4;
	b.data = buf;
	b.start = start;
	b.n = N_PKTS;
	b.bytes = start[N_PKTS];
	return b;
}

struct dot_ctx {
	const float *wt;      /* [i][F]: W transposed */
};

static size_t
dot_c(const struct batch *b, void *ctx)
{
	const struct dot_ctx *d = ctx;
	size_t i, total = 0;

	for (i = 0; i < b->n; i++) {
		const float *x = (const float *)(b->data + b->start[i]);
		size_t len = (b->start[i + 1] - b->start[i]) / 4, k;
		float y[F] = {0};
		unsigned int p;

		for (k = 0; k < len; k++)
			for (p = 0; p < F; p++)
				y[p] = fmaf(x[k], d->wt[k * F + p], y[p]);
		memcpy(out_c + total, y, sizeof(y));
		total += sizeof(y);
	}
	return total;
}

struct axpy_ctx {
	const float *y;
	float a;
};

static size_t
axpy_c(const struct batch *b, void *ctx)
{
	const struct axpy_ctx *ax = ctx;
	size_t i, total = 0;

	for (i = 0; i < b->n; i++) {
		const float *x = (const float *)(b->data + b->start[i]);
		size_t len = (b->start[i + 1] - b->start[i]) / 4, k;
		float *o = (float *)(out_c + total);

		for (k = 0; k < len; k++)
			o[k] = fmaf(ax->a, x[k], ax->y[k]);
		total += len * 4;
	}
	return total;
}

static size_t
copy_c(const struct batch *b, void *ctx)
{
	size_t i, total = 0;

	(void)ctx;
	for (i = 0; i < b->n; i++) {
		size_t len = b->start[i + 1] - b->start[i];

		memcpy(out_c + total, b->data + b->start[i], len);
		total += len;
	}
	return total;
}

static void
bench_vectors(void)
{
	static const uint32_t lens[] = { 384, VEC_MAX };
	uint8_t *buf = malloc((size_t)N_PKTS * VEC_MAX * 4);
	float *w = malloc(VEC_MAX * sizeof(float));
	float *wt = malloc((size_t)VEC_MAX * F * sizeof(float));
	size_t start[N_PKTS + 1], li, k;
	struct acis_cgra *dot = machine(F, "dot.s");
	struct acis_cgra *axpy = machine(1, "axpy.s");
	struct acis_cgra *pass = machine(1, "passthrough.s");
	struct acis_cgra *mode = machine(1, "passthrough.s");
	struct dot_ctx dc = { .wt = wt };
	struct axpy_ctx ac = { .a = 0.75f };
	const float zero = 0.0f;
	uint64_t s = 3;
	unsigned int p;
	char name[64];

	if (buf == NULL || w == NULL || wt == NULL)
		die("vectors", "out of memory");
	for (p = 0; p < F; p++) {
		for (k = 0; k < VEC_MAX; k++)
			w[k] = wt[k * F + p] = (float)(gcn_unit(&s) - 0.5);
		acis_cgra_mem_write(dot, p + 1, 0, w, VEC_MAX * 4);
		acis_cgra_mem_write(dot, p + 1, 65536, &zero, 4);
	}
	/* axpy's y is the w of VPE 15, a at 65536 */
	acis_cgra_mem_write(axpy, 1, 0, w, VEC_MAX * 4);
	acis_cgra_mem_write(axpy, 1, 65536, &ac.a, 4);
	ac.y = w;
	acis_cgra_set_passthrough(mode, 1);
	for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		struct batch b = vec_batch(buf, start, lens[li], 11 + li);
		uint64_t cycles;

		cycles = 0;
		run_machine(dot, &b, &cycles);
		snprintf(name, sizeof(name), "dot x%u (%u B)", F, lens[li] * 4);
		report(name, &b, measure(dot, &b, dot_c, &dc), cycles);
		cycles = 0;
		run_machine(axpy, &b, &cycles);
		snprintf(name, sizeof(name), "axpy (%u B)", lens[li] * 4);
		report(name, &b, measure(axpy, &b, axpy_c, &ac), cycles);
		cycles = 0;
		run_machine(pass, &b, &cycles);
		snprintf(name, sizeof(name), "passthrough.s (%u B)",
			 lens[li] * 4);
		report(name, &b, measure(pass, &b, copy_c, NULL), cycles);
		snprintf(name, sizeof(name), "pass-through mode (%u B)",
			 lens[li] * 4);
		report(name, &b, measure(mode, &b, copy_c, NULL), 0);
	}
	acis_cgra_free(dot);
	acis_cgra_free(axpy);
	acis_cgra_free(pass);
	acis_cgra_free(mode);
	free(buf);
	free(w);
	free(wt);
}

/* ---- a running fold kept in the bank (the NGRA's vsadd.u8) ---- */

static uint8_t sat_sum[65536];

static size_t
satsum_c(const struct batch *b, void *ctx)
{
	size_t i, k, total = 0;

	(void)ctx;
	for (i = 0; i < b->n; i++) {
		const uint8_t *x = b->data + b->start[i];
		size_t len = b->start[i + 1] - b->start[i];

		for (k = 0; k < len; k++) {
			unsigned int v = sat_sum[k] + x[k];

			sat_sum[k] = (uint8_t)(v > 255 ? 255 : v);
		}
		memcpy(out_c + total, sat_sum, len);
		total += len;
	}
	return total;
}

static void
bench_folds(void)
{
	static const uint32_t lens[] = { 384, VEC_MAX };
	uint8_t *buf = malloc((size_t)N_PKTS * VEC_MAX * 4);
	size_t start[N_PKTS + 1], li;
	struct acis_cgra *m = machine(1, "satsum_u8.s");
	char name[64];

	if (buf == NULL)
		die("folds", "out of memory");
	for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		struct batch b = vec_batch(buf, start, lens[li], 21 + li);
		uint64_t cycles = 0;

		/* both from a zero sum, so the first batches agree */
		memset(sat_sum, 0, sizeof(sat_sum));
		acis_cgra_mem_write(m, 1, 0, sat_sum, sizeof(sat_sum));
		snprintf(name, sizeof(name), "satsum_u8 (%u B)", lens[li] * 4);
		{
			struct timing t = measure(m, &b, satsum_c, NULL);

			run_machine(m, &b, &cycles);
			report(name, &b, t, cycles);
		}
	}
	acis_cgra_free(m);
	free(buf);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		min_time = atof(argv[1]);
	if (min_time <= 0)
		min_time = 0.3;
	printf("machine time / plain C time per batch of packets; Gb/s of "
	       "payload through the machine\n");
	if (argc <= 2 || strcmp(argv[2], "gcn") == 0) {
		bench_gcn(0);
		bench_gcn(1);
	}
	if (argc <= 2 || strcmp(argv[2], "vec") == 0)
		bench_vectors();
	if (argc <= 2 || strcmp(argv[2], "fold") == 0)
		bench_folds();
	return failures != 0;
}
