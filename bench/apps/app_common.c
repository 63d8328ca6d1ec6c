/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference applications' options, clock, checks and report line
 * (app_common.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_common.h"

/* A whole number from MIN to MAX, or -1 after rank 0 said why. */
static long
want_long(const struct app *a, int opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < min || v > max) {
		if (a->me == 0)
			fprintf(stderr,
				"%s: -%c %s: want a whole number from "
				"%ld to %ld\n",
				a->def->name, opt, arg, min, max);
		return -1;
	}
	return v;
}

/* The options: -1 to run, else the exit code (0 after -h, 2 after a
 * bad option or size). */
static int
parse(struct app *a, const struct app_def *def, int argc, char **argv)
{
	char letters[64];
	long v;
	int o;

	memset(a, 0, sizeof(*a));
	a->def = def;
	a->n = def->n;
	a->iters = def->iters;
	a->warmup = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &a->me);
	MPI_Comm_size(MPI_COMM_WORLD, &a->ranks);
	snprintf(letters, sizeof(letters), ":n:i:w:h%s", def->extra);
	opterr = 0;
	while ((o = getopt(argc, argv, letters)) != -1) {
		switch (o) {
		case 'n':
			if ((v = want_long(a, o, optarg, 1, 1L << 30)) < 0)
				return 2;
			a->n = v;
			break;
		case 'i':
			if ((v = want_long(a, o, optarg, 1, 1000000)) < 0)
				return 2;
			a->iters = (int)v;
			break;
		case 'w':
			if ((v = want_long(a, o, optarg, 0, 1000000)) < 0)
				return 2;
			a->warmup = (int)v;
			break;
		case 'h':
			if (a->me == 0)
				fputs(def->usage, stdout);
			return 0;
		case ':':
		case '?':
			if (a->me == 0) {
				if (o == ':')
					fprintf(stderr,
						"%s: -%c wants a value\n",
						def->name, optopt);
				else
					fprintf(stderr, "%s: no option -%c\n",
						def->name, optopt);
				fputs(def->usage, stderr);
			}
			return 2;
		default:
			if (def->option(o, optarg, a->me == 0) < 0)
				return 2;
		}
	}
	if (optind < argc) {
		if (a->me == 0)
			fprintf(stderr, "%s: unexpected argument '%s'\n%s",
				def->name, argv[optind], def->usage);
		return 2;
	}
	return def->fits(a);
}

void
app_start(struct app *a, const struct app_def *def, int *argc, char ***argv)
{
	int rc;

	MPI_Init(argc, argv);
	rc = parse(a, def, *argc, *argv);
	if (rc >= 0) {
		MPI_Finalize();
		exit(rc);
	}
}

int
app_refuse(const struct app *a, const char *fmt, ...)
{
	va_list ap;

	if (a->me == 0) {
		fprintf(stderr, "%s: ", a->def->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return 2;
}

void *
app_alloc(const struct app *a, size_t bytes, const char *what)
{
	void *p = malloc(bytes ? bytes : 1);

	if (p == NULL) {
		fprintf(stderr,
			"%s: rank %d: cannot allocate %.1f MiB for %s\n",
			a->def->name, a->me, (double)bytes / (1 << 20), what);
		/* the others would wait for this rank for ever */
		MPI_Abort(MPI_COMM_WORLD, 2);
		exit(2);
	}
	return p;
}

void
app_clock_start(struct app *a)
{
	MPI_Barrier(MPI_COMM_WORLD);
	a->compute = a->comm = 0;
	a->start = a->lap = MPI_Wtime();
}

void
app_clock_stop(struct app *a)
{
	a->wall = MPI_Wtime() - a->start;
}

long
app_first_diff(const void *got, const void *want, size_t count,
	       size_t elem_size)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	if (memcmp(got, want, count * elem_size) == 0)
		return -1;
	for (i = 0; i < count; i++)
		if (memcmp(g + i * elem_size, w + i * elem_size, elem_size))
			return (long)i;
	return -1;
}

double
app_rand(uint64_t *state)
{
	/* splitmix64: cheap, and the same on every machine */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ull << 53);
}

int
app_finish(struct app *a, int ok, const char *extra)
{
	double mine[3] = {a->compute, a->comm, a->wall}, *all = NULL;
	double comm_sum = 0;
	uint64_t (*offloaded)(void);
	char offl[32] = "-";
	int r, slow = 0;

	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (a->me == 0)
		all = app_alloc(a, sizeof(mine) * a->ranks, "the clocks");
	MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (a->me != 0)
		return ok ? 0 : 1;
	/* the run takes as long as its slowest rank: its split is the
	 * run's (its laps tile its time, so the two add up to it) */
	for (r = 0; r < a->ranks; r++) {
		comm_sum += all[3 * r + 1];
		if (all[3 * r + 2] > all[3 * slow + 2])
			slow = r;
	}
	/* libacis-mpi's count, when it is loaded (nothing is linked) */
	*(void **)&offloaded = dlsym(RTLD_DEFAULT, "acis_mpi_offloaded");
	if (offloaded != NULL)
		snprintf(offl, sizeof(offl), "%llu",
			 (unsigned long long)offloaded());
	printf("app=%s ranks=%d n=%ld iters=%d warmup=%d%s%s compute_s=%.6f "
	       "comm_s=%.6f total_s=%.6f comm_mean_s=%.6f iter_ms=%.3f "
	       "check=%s offloaded=%s\n",
	       a->def->name, a->ranks, a->n, a->iters, a->warmup,
	       *extra ? " " : "", extra, all[3 * slow], all[3 * slow + 1],
	       all[3 * slow + 2], comm_sum / a->ranks,
	       all[3 * slow + 2] * 1e3 / a->iters, ok ? "ok" : "FAIL", offl);
	fflush(stdout);
	free(all);
	return ok ? 0 : 1;
}
