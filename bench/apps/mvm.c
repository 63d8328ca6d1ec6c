/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A row-wise matrix-vector multiply, as the MPE thesis's (§4.3.2.1),
 * looped as a power iteration: rank 0 scatters the n x n matrix A by
 * rows, broadcasts the vector x, each rank multiplies its rows, rank 0
 * gathers y = A x and scales it by its largest element into the next x.
 * The thesis's loop sends A each time; with -k it is scattered once,
 * before the timed iterations, and the ranks keep their rows (as an
 * iterative solver would), so that only x and y travel.
 *
 * Rank 0 runs the same iterations serially, each row's dot product in
 * the same order: the last x must match bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

static int keep_rows;

static int
option(int opt, const char *arg, int say)
{
	(void)opt;
	(void)arg;
	(void)say;
	keep_rows = 1;
	return 0;
}

static int
fits(const struct app *a)
{
	if (a->n % a->ranks != 0 || a->n > 32768)
		return app_refuse(a,
				  "-n %ld: want a multiple of the ranks (%d) "
				  "up to 32768",
				  a->n, a->ranks);
	return -1;
}

static const struct app_def def = {
	.name = "mvm",
	.usage =
		"usage: mvm [-n ROWS] [-i ITER] [-w WARMUP] [-k] [-h]\n"
		"  Row-wise matrix-vector multiply of floats, looped as a\n"
		"  power iteration: rank 0 scatters A by rows, broadcasts x,\n"
		"  each rank multiplies its rows, rank 0 gathers y = A x and\n"
		"  scales it into the next x. Checked bit for bit against the\n"
		"  same iterations run serially on rank 0.\n"
		"  -n ROWS    A is ROWS x ROWS, ROWS a multiple of the ranks\n"
		"             (default 2048)\n"
		"  -i ITER    timed iterations (default 10)\n"
		"  -w WARMUP  iterations before the timed ones (default 1)\n"
		"  -k         scatter A once, before the iterations (the\n"
		"             ranks keep their rows); by default every\n"
		"             iteration scatters it, as the thesis's loop\n"
		"  Prints one line: app=mvm ranks=... compute_s=... "
		"comm_s=...\n",
	.n = 2048,
	.iters = 10,
	.extra = "k",
	.option = option,
	.fits = fits,
};

/* y[r] = row r of a (n columns) times x, for rows rows; each dot product
 * summed in column order, here and in the serial reference alike */
static void
multiply(const float *a, const float *x, long rows, long n, float *y)
{
	long r, c;

	for (r = 0; r < rows; r++) {
		const float *row = a + r * n;
		float s = 0;

		for (c = 0; c < n; c++)
			s += row[c] * x[c];
		y[r] = s;
	}
}

/* x = y over y's largest magnitude (power iteration's next vector) */
static void
rescale(const float *y, long n, float *x)
{
	float big = 0;
	long i;

	for (i = 0; i < n; i++)
		big = fabsf(y[i]) > big ? fabsf(y[i]) : big;
	if (big == 0)
		big = 1;
	for (i = 0; i < n; i++)
		x[i] = y[i] / big;
}

static void
start_vector(float *x, long n)
{
	long i;

	for (i = 0; i < n; i++)
		x[i] = 1.0f;
}

int
main(int argc, char **argv)
{
	float *a_all = NULL, *y = NULL, *rows, *x, *part;
	uint64_t seed = 11;
	struct app a;
	long m, i, bad;
	int it, rc, ok = 1;

	app_start(&a, &def, &argc, &argv);
	m = a.n / a.ranks;
	rows = app_alloc(&a, sizeof(float) * m * a.n, "the rows");
	x = app_alloc(&a, sizeof(float) * a.n, "x");
	part = app_alloc(&a, sizeof(float) * m, "the rows' y");
	if (a.me == 0) {
		a_all = app_alloc(&a, sizeof(float) * a.n * a.n, "A");
		y = app_alloc(&a, sizeof(float) * a.n, "y");
		for (i = 0; i < a.n * a.n; i++)
			a_all[i] = (float)app_rand(&seed);
		start_vector(x, a.n);
	}
	if (keep_rows)
		MPI_Scatter(a_all, (int)(m * a.n), MPI_FLOAT, rows,
			    (int)(m * a.n), MPI_FLOAT, 0, MPI_COMM_WORLD);

	for (it = 0; it < a.warmup + a.iters; it++) {
		if (it == a.warmup)
			app_clock_start(&a);
		if (!keep_rows)
			MPI_Scatter(a_all, (int)(m * a.n), MPI_FLOAT, rows,
				    (int)(m * a.n), MPI_FLOAT, 0,
				    MPI_COMM_WORLD);
		MPI_Bcast(x, (int)a.n, MPI_FLOAT, 0, MPI_COMM_WORLD);
		app_lap_comm(&a);
		multiply(rows, x, m, a.n, part);
		app_lap_compute(&a);
		MPI_Gather(part, (int)m, MPI_FLOAT, y, (int)m, MPI_FLOAT, 0,
			   MPI_COMM_WORLD);
		app_lap_comm(&a);
		if (a.me == 0) {
			rescale(y, a.n, x);
			app_lap_compute(&a);
		}
	}
	app_clock_stop(&a);

	if (a.me == 0) {
		float *xr = app_alloc(&a, sizeof(float) * a.n, "the reference");

		start_vector(xr, a.n);
		for (it = 0; it < a.warmup + a.iters; it++) {
			multiply(a_all, xr, a.n, a.n, y);
			rescale(y, a.n, xr);
		}
		bad = app_first_diff(x, xr, a.n, sizeof(float));
		if (bad >= 0) {
			fprintf(stderr,
				"mvm: x[%ld] differs from the serial "
				"run's: %.9g, want %.9g\n",
				bad, x[bad], xr[bad]);
			ok = 0;
		}
		free(xr);
	}
	rc = app_finish(&a, ok, keep_rows ? "rows=kept" : "rows=scattered");
	free(a_all);
	free(y);
	free(rows);
	free(x);
	free(part);
	MPI_Finalize();
	return rc;
}
