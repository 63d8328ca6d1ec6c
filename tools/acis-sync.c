/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-sync: the switch steering a job's progress (doc/sync.md), from one
 * rank: loops of work with a stale-synchronous barrier, with a plain
 * barrier to compare, and a deadline's signals.
 *
 *   acis-sync --switch IP --job J --rank R --size P [--timeout MS] MODE
 *
 *   ssp      --iters N --staleness S [--quorum Q]   work, then acis_ssp_done
 *   barrier  --iters N                               work, then acis_barrier
 *     work of an iteration: --work-us W, times a draw from an exponential
 *     of mean 1 scaled by --jitter F (W * (1 + F * Exp(1)), seeded by
 *     --seed and the rank); rank --slow-rank K stalls --stall-us U more
 *     every --stall-every M iterations. Prints the loop's time, the time
 *     spent waiting and the idle ratio (waiting / loop).
 *   deadline --period-us T --epochs N [--report] [--late-rank K
 *            --late-epoch E]
 *     rank 0 sets the deadline; every rank waits for N signals and
 *     prints how far each signal's interval was from T (mean, p99,
 *     largest); with --report each rank reports every epoch done at
 *     once, rank K reports epoch E only after E's signal (late).
 *
 * Each rank prints "ok ..." lines and exits 0, or "FAIL ..." and 1.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acis.h"

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Busy work for us microseconds (a compute phase: no sleeping, so the
 * loop's timing is the work's, not the scheduler's wake-ups). */
static void
work(double us)
{
	uint64_t end = now_ns() + (uint64_t)(us * 1000.0);

	while (now_ns() < end)
		;
}

static uint64_t rng;

static double
uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) * 0x1p-53;
}

struct opts {
	const char *mode;
	unsigned long iters, epochs;
	unsigned int staleness, quorum;
	double work_us, jitter, stall_us;
	unsigned long stall_every;
	long slow_rank, late_rank;
	unsigned long late_epoch;
	unsigned int period_us;
	int report;
	unsigned long seed;
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
loop(acis_ctx_t *ctx, const struct opts *o, uint32_t me, int ssp)
{
	acis_comm_t *w = acis_comm_world(ctx);
	uint64_t t0, waited = 0, t;
	unsigned long i;
	int rc;

	/* start together */
	if ((rc = acis_barrier(w)) != ACIS_OK) {
		printf("FAIL start barrier: %s\n", acis_last_error(ctx));
		return 1;
	}
	t0 = now_ns();
	for (i = 1; i <= o->iters; i++) {
		double us = o->work_us * (1.0 + o->jitter * -log(uniform()));

		if ((long)me == o->slow_rank && o->stall_every != 0 &&
		    i % o->stall_every == 0)
			us += o->stall_us;
		work(us);
		t = now_ns();
		rc = ssp ? acis_ssp_done(w, (uint32_t)i, o->staleness,
					 o->quorum) :
			   acis_barrier(w);
		waited += now_ns() - t;
		if (rc != ACIS_OK) {
			printf("FAIL %s iteration %lu: %s\n", o->mode, i,
			       acis_last_error(ctx));
			return 1;
		}
	}
	t = now_ns() - t0;
	printf("ok %s rank %u: %lu iterations in %.3f ms, waiting %.3f ms, "
	       "idle ratio %.3f\n", ssp ? "ssp" : "barrier", me, o->iters,
	       t / 1e6, waited / 1e6, (double)waited / (double)t);
	/* the same end for every rank before the job leaves */
	if (ssp && acis_barrier(w) != ACIS_OK) {
		printf("FAIL end barrier: %s\n", acis_last_error(ctx));
		return 1;
	}
	return 0;
}

static int
deadline(acis_ctx_t *ctx, const struct opts *o, uint32_t me)
{
	acis_comm_t *w = acis_comm_world(ctx);
	uint64_t *gap = calloc(o->epochs + 1, sizeof(*gap)), last, now;
	uint32_t epoch = 0, seen;
	unsigned long k, n = 0, jumps = 0, late = 0;
	double mean = 0, err;
	int rc, is_late;

	if (gap == NULL)
		return 1;
	if ((rc = acis_barrier(w)) != ACIS_OK)
		goto fail;
	if (me == 0 && (rc = acis_deadline_set(w, o->period_us)) != ACIS_OK)
		goto fail;
	/* the first signal starts the clock */
	if ((rc = acis_deadline_wait(w, 0, &seen)) != ACIS_OK)
		goto fail;
	last = now_ns();
	epoch = seen;
	for (k = 0; k < o->epochs; k++) {
		if (o->report) {
			/* the work of epoch + 1 is done at once, except the
			 * late rank's, reported after its signal */
			if ((long)me == o->late_rank && epoch + 1 == o->late_epoch &&
			    (rc = acis_deadline_wait(w, epoch + 1, NULL)) != ACIS_OK)
				goto fail;
			if ((rc = acis_deadline_report(w, epoch + 1, &is_late)) !=
			    ACIS_OK)
				goto fail;
			late += is_late;
		}
		if ((rc = acis_deadline_wait(w, epoch, &seen)) != ACIS_OK)
			goto fail;
		now = now_ns();
		jumps += seen - epoch - 1;
		gap[n++] = now - last;
		last = now;
		epoch = seen;
	}
	/* every rank has its signals before the deadline stops */
	if ((rc = acis_barrier(w)) != ACIS_OK ||
	    (me == 0 && (rc = acis_deadline_set(w, 0)) != ACIS_OK))
		goto fail;
	for (k = 0; k < n; k++)
		mean += fabs((double)gap[k] - o->period_us * 1000.0);
	mean /= (double)n;
	for (k = 0; k < n; k++) {
		err = fabs((double)gap[k] - o->period_us * 1000.0);
		gap[k] = (uint64_t)err;
	}
	qsort(gap, n, sizeof(*gap), cmp_u64);
	printf("ok deadline rank %u: %lu signals of period %u us, last epoch "
	       "%u, %lu skipped; interval error mean %.1f us, p99 %.1f us, "
	       "max %.1f us; late reports %lu\n", me, n, o->period_us, epoch,
	       jumps, mean / 1e3, gap[n * 99 / 100 < n ? n * 99 / 100 : n - 1] /
	       1e3, gap[n - 1] / 1e3, late);
	free(gap);
	return 0;
fail:
	printf("FAIL deadline: %s (%s)\n", acis_strerror(rc),
	       acis_last_error(ctx));
	free(gap);
	return 1;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"switch", required_argument, NULL, 's'},
		{"job", required_argument, NULL, 'j'},
		{"rank", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, 't'},
		{"iters", required_argument, NULL, 'i'},
		{"staleness", required_argument, NULL, 'S'},
		{"quorum", required_argument, NULL, 'Q'},
		{"work-us", required_argument, NULL, 'w'},
		{"jitter", required_argument, NULL, 'J'},
		{"slow-rank", required_argument, NULL, 'k'},
		{"stall-us", required_argument, NULL, 'u'},
		{"stall-every", required_argument, NULL, 'm'},
		{"seed", required_argument, NULL, 'x'},
		{"period-us", required_argument, NULL, 'p'},
		{"epochs", required_argument, NULL, 'e'},
		{"report", no_argument, NULL, 'R'},
		{"late-rank", required_argument, NULL, 'L'},
		{"late-epoch", required_argument, NULL, 'E'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {.iters = 100, .epochs = 20, .work_us = 200,
			 .slow_rank = -1, .late_rank = -1, .period_us = 10000,
			 .seed = 1};
	struct acis_config cfg;
	acis_ctx_t *ctx;
	int c, rc;

	acis_config_default(&cfg);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': cfg.switch_ip = optarg; break;
		case 'j': cfg.job = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': cfg.rank = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': cfg.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': cfg.timeout_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'i': o.iters = strtoul(optarg, NULL, 0); break;
		case 'S': o.staleness = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'Q': o.quorum = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w': o.work_us = strtod(optarg, NULL); break;
		case 'J': o.jitter = strtod(optarg, NULL); break;
		case 'k': o.slow_rank = strtol(optarg, NULL, 0); break;
		case 'u': o.stall_us = strtod(optarg, NULL); break;
		case 'm': o.stall_every = strtoul(optarg, NULL, 0); break;
		case 'x': o.seed = strtoul(optarg, NULL, 0); break;
		case 'p': o.period_us = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'e': o.epochs = strtoul(optarg, NULL, 0); break;
		case 'R': o.report = 1; break;
		case 'L': o.late_rank = strtol(optarg, NULL, 0); break;
		case 'E': o.late_epoch = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: see the comment in acis-sync.c\n");
			return 2;
		}
	}
	if (optind != argc - 1 || (strcmp(argv[optind], "ssp") != 0 &&
				   strcmp(argv[optind], "barrier") != 0 &&
				   strcmp(argv[optind], "deadline") != 0) ||
	    o.epochs == 0 || o.iters == 0) {
		fprintf(stderr, "acis-sync: expected one mode, ssp, barrier or "
			"deadline, after the options (see acis-sync.c)\n");
		return 2;
	}
	o.mode = argv[optind];
	rng = o.seed * 0x9e3779b97f4a7c15ull ^ cfg.rank;
	rc = acis_init(&cfg, &ctx);
	if (rc != ACIS_OK) {
		printf("FAIL rank %u: acis_init: %s\n", cfg.rank,
		       acis_init_error());
		return 1;
	}
	if (strcmp(o.mode, "deadline") == 0)
		rc = deadline(ctx, &o, cfg.rank);
	else
		rc = loop(ctx, &o, cfg.rank, strcmp(o.mode, "ssp") == 0);
	acis_finalize(ctx);
	return rc;
}
