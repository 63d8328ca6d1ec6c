/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the reference applications (nbody.c, fft.c, mvm.c; doc/benchmarks.md,
 * Reference applications) share: their options, a clock that splits each
 * rank's time into computation and communication, the comparison with the
 * serial reference, and the one line each run prints.
 *
 * Plain MPI, nothing of acis: run with libacis-mpi preloaded (doc/mpi.md),
 * the collectives go through the switch; without it, through the MPI
 * library. Only the count of calls the switch took is looked up, with
 * dlsym, when the layer is there.
 */
#ifndef ACIS_APP_COMMON_H
#define ACIS_APP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

struct app;

/* An application: its options past the common ones (-n -i -w -h), the
 * letters for getopt and a handler that takes one and returns 0, or -1
 * after saying on stderr (rank 0) what was wrong; and the check of the
 * size against the ranks, which returns -1 when they fit, else
 * app_refuse's 2. */
struct app_def {
	const char *name;  /* "fft": the first word of every message */
	const char *usage; /* printed by -h and after a bad option */
	long n;		   /* default problem size */
	int iters;	   /* default timed iterations */
	const char *extra; /* getopt letters of its own, or "" */
	int (*option)(int opt, const char *arg, int say);
	int (*fits)(const struct app *a);
};

/* One run: who we are, the options, and the clock. */
struct app {
	const struct app_def *def;
	int me, ranks;
	long n;
	int iters, warmup;
	double compute, comm; /* this rank's seconds since app_clock_start */
	double lap;	      /* when the current lap began */
	double start, wall;   /* the timed iterations, start to end */
};

/*
 * MPI_Init, then the options (every rank parses the same argv; rank 0
 * alone speaks) and the size against the ranks. Returns when the run
 * goes on; after -h the process ends with exit code 0, after a bad
 * option or size with 2 (MPI_Finalize first, every rank alike).
 */
void app_start(struct app *a, const struct app_def *def, int *argc,
	       char ***argv);

/* Rank 0 says why the options cannot run (a size the ranks cannot
 * share): every rank calls it alike and returns its 2, the exit code. */
int app_refuse(const struct app *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* malloc, or the job ended (MPI_Abort) naming what was wanted. */
void *app_alloc(const struct app *a, size_t bytes, const char *what);

/* The timed part begins: all ranks together, both sums at zero. Called
 * at the first timed iteration, after the warm-up ones. */
void app_clock_start(struct app *a);
void app_clock_stop(struct app *a);

/* Close the current lap and charge it to computation or communication.
 * A lap that ends after a collective holds the wait for the slowest rank:
 * that is communication's, as a user would count it. */
static inline void
app_lap_compute(struct app *a)
{
	double t = MPI_Wtime();

	a->compute += t - a->lap;
	a->lap = t;
}

static inline void
app_lap_comm(struct app *a)
{
	double t = MPI_Wtime();

	a->comm += t - a->lap;
	a->lap = t;
}

/* The first element where two arrays differ in their bits, or -1. */
long app_first_diff(const void *got, const void *want, size_t count,
		    size_t elem_size);

/* A reproducible stream of numbers in [0, 1): every rank that seeds it
 * alike draws the same values. */
double app_rand(uint64_t *state);

/*
 * The end of a run: rank 0's verdict (ok: 1 when the result matched the
 * reference) goes to every rank, the ranks' clocks to rank 0, which
 * prints one line of key=value pairs:
 *
 *   app=fft ranks=4 n=262144 iters=10 warmup=1 EXTRA compute_s=...
 *   comm_s=... total_s=... comm_mean_s=... iter_ms=... check=ok
 *   offloaded=N
 *
 * compute_s and comm_s split the slowest rank's time over the timed
 * iterations (they add up to total_s: the run takes as long as that
 * rank), comm_mean_s is the ranks' mean communication, iter_ms total_s
 * per iteration; offloaded counts the calls the switch took on rank 0
 * ("-" without libacis-mpi). EXTRA (may be "") is the application's own
 * pairs.
 *
 * Returns the exit code: 0 when the check passed, 1 when not.
 */
int app_finish(struct app *a, int ok, const char *extra);

#endif /* ACIS_APP_COMMON_H */
