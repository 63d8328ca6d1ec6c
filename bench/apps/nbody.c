/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * N-body, the application of CusComNet (§VI-B): every rank owns a block
 * of the particles; each step it computes the gravitational pull of all
 * particles on its block, moves its block (velocity, then position), and
 * the blocks' new positions go to every rank: an MPI_Allgather a step.
 * CusComNet sent them as one unicast to each other node and noted that a
 * broadcast would do better; in the switch the allgather is one.
 *
 * Every rank starts from the same particles (a seeded generator). Rank 0
 * then runs the same steps serially, with the same function in the same
 * order for each particle, and the positions must match bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define DT 0.001f
#define SOFTENING2 0.01f /* keeps close pairs finite */

static int
fits(const struct app *a)
{
	if (a->n % a->ranks != 0)
		return app_refuse(a,
				  "-n %ld: the particles must split evenly "
				  "over the %d ranks",
				  a->n, a->ranks);
	return -1;
}

static const struct app_def def = {
	.name = "nbody",
	.usage = "usage: nbody [-n PARTICLES] [-i STEPS] [-w WARMUP] [-h]\n"
		 "  N-body: each rank pulls its block of the particles by all\n"
		 "  of them, moves it, and the new positions are gathered to\n"
		 "  every rank (MPI_Allgather). Checked bit for bit against "
		 "the\n"
		 "  same steps run serially on rank 0.\n"
		 "  -n PARTICLES  a multiple of the ranks (default 4096)\n"
		 "  -i STEPS      timed steps (default 10)\n"
		 "  -w WARMUP     steps before the timed ones (default 1)\n"
		 "  Prints one line: app=nbody ranks=... compute_s=... "
		 "comm_s=...\n",
	.n = 4096,
	.iters = 10,
	.extra = "",
	.fits = fits,
};

struct bodies {
	float *pos;  /* x, y, z of every particle */
	float *vel;  /* x, y, z of every particle (a rank moves its own) */
	float *mass; /* every particle's */
	float *acc;  /* x, y, z of a block's, one step's */
};

static void
bodies_init(const struct app *a, struct bodies *b, long n)
{
	uint64_t seed = 2024;
	long i;

	b->pos = app_alloc(a, sizeof(float) * 3 * n, "positions");
	b->vel = app_alloc(a, sizeof(float) * 3 * n, "velocities");
	b->mass = app_alloc(a, sizeof(float) * n, "masses");
	b->acc = app_alloc(a, sizeof(float) * 3 * n, "accelerations");
	for (i = 0; i < 3 * n; i++) {
		b->pos[i] = (float)(2 * app_rand(&seed) - 1);
		b->vel[i] = (float)(0.1 * (2 * app_rand(&seed) - 1));
	}
	for (i = 0; i < n; i++)
		b->mass[i] = (float)((0.5 + app_rand(&seed)) / (double)n);
}

static void
bodies_free(struct bodies *b)
{
	free(b->pos);
	free(b->vel);
	free(b->mass);
	free(b->acc);
}

/* One step of particles lo..hi-1 of n: the pull of all n on each, then
 * their velocities and positions. Every position read is the step's old
 * one: the block's own are written only once all its pulls are known. */
static void
step(struct bodies *b, long n, long lo, long hi)
{
	const float *p = b->pos, *m = b->mass;
	long i, j;

	for (i = lo; i < hi; i++) {
		float xi = p[3 * i], yi = p[3 * i + 1], zi = p[3 * i + 2];
		float ax = 0, ay = 0, az = 0;

		for (j = 0; j < n; j++) {
			float dx = p[3 * j] - xi, dy = p[3 * j + 1] - yi;
			float dz = p[3 * j + 2] - zi;
			float r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
			float s = m[j] / (r2 * sqrtf(r2));

			ax += dx * s;
			ay += dy * s;
			az += dz * s;
		}
		b->acc[3 * i] = ax;
		b->acc[3 * i + 1] = ay;
		b->acc[3 * i + 2] = az;
	}
	for (i = 3 * lo; i < 3 * hi; i++) {
		b->vel[i] += b->acc[i] * DT;
		b->pos[i] += b->vel[i] * DT;
	}
}

int
main(int argc, char **argv)
{
	struct bodies b, ref;
	struct app a;
	long block, lo, bad;
	int it, rc, ok = 1;

	app_start(&a, &def, &argc, &argv);
	block = a.n / a.ranks;
	lo = a.me * block;
	bodies_init(&a, &b, a.n);
	for (it = 0; it < a.warmup + a.iters; it++) {
		if (it == a.warmup)
			app_clock_start(&a);
		step(&b, a.n, lo, lo + block);
		app_lap_compute(&a);
		MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.pos,
			      (int)(3 * block), MPI_FLOAT, MPI_COMM_WORLD);
		app_lap_comm(&a);
	}
	app_clock_stop(&a);

	if (a.me == 0) {
		bodies_init(&a, &ref, a.n);
		for (it = 0; it < a.warmup + a.iters; it++)
			step(&ref, a.n, 0, a.n);
		bad = app_first_diff(b.pos, ref.pos, 3 * a.n, sizeof(float));
		if (bad >= 0) {
			fprintf(stderr,
				"nbody: particle %ld's position differs "
				"from the serial run's: %.9g, want %.9g\n",
				bad / 3, b.pos[bad], ref.pos[bad]);
			ok = 0;
		}
		bodies_free(&ref);
	}
	rc = app_finish(&a, ok, "");
	bodies_free(&b);
	MPI_Finalize();
	return rc;
}
