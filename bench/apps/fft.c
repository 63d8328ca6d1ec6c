/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A parallel FFT, decimation in frequency, as the MPE thesis's
 * (§4.3.1.1): rank 0 scatters the n points, each rank holding n/P in a
 * row; the first log2(P) stages pair ranks (partner = rank XOR the
 * stage's distance in blocks): the two exchange their blocks and each
 * computes its half of the butterflies (the lower rank the sums, the
 * upper the twiddled differences); the last log2(n/P) stages are the
 * rank's own. Rank 0 gathers the spectrum, in bit-reversed order as a
 * decimation in frequency leaves it.
 *
 * The exchanges are point to point (-e sendrecv, the default: one
 * MPI_Sendrecv, which libacis-mpi leaves to the MPI library) or a
 * collective (-e alltoall: an MPI_Alltoall on a communicator of the two
 * partners, made once per stage, which the switch takes).
 *
 * Rank 0 runs the same stages serially, with the same butterflies on the
 * same twiddles: the gathered spectrum must match it bit for bit. A few
 * bins are also summed directly (the DFT's definition), within 1e-9 of
 * the sum of |x|, so the reference itself is an FFT.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

struct cplx {
	double re, im;
};

static int use_alltoall;

static int
option(int opt, const char *arg, int say)
{
	(void)opt;
	if (strcmp(arg, "sendrecv") == 0 || strcmp(arg, "alltoall") == 0) {
		use_alltoall = arg[0] == 'a';
		return 0;
	}
	if (say)
		fprintf(stderr, "fft: -e %s: want sendrecv or alltoall\n", arg);
	return -1;
}

static int
log2_exact(long v)
{
	int k = 0;

	if (v < 1 || (v & (v - 1)) != 0)
		return -1;
	while ((1L << k) < v)
		k++;
	return k;
}

static int
fits(const struct app *a)
{
	if (log2_exact(a->ranks) < 0)
		return app_refuse(a, "%d ranks: want a power of two", a->ranks);
	if (log2_exact(a->n) < 1 || a->n < a->ranks || a->n > (1L << 26))
		return app_refuse(a,
				  "-n %ld: want a power of two from 2 and "
				  "the ranks (%d) to 67108864",
				  a->n, a->ranks);
	return -1;
}

static const struct app_def def = {
	.name = "fft",
	.usage =
		"usage: fft [-n POINTS] [-i ITER] [-w WARMUP] "
		"[-e sendrecv|alltoall] [-h]\n"
		"  A parallel FFT (decimation in frequency) of complex\n"
		"  doubles: rank 0 scatters them, log2(ranks) stages of\n"
		"  pairwise exchange and butterflies, the rest on each rank,\n"
		"  and rank 0 gathers the spectrum. Checked bit for bit\n"
		"  against the same stages run serially on rank 0.\n"
		"  -n POINTS   a power of two, at least 2 and the ranks\n"
		"              (default 262144)\n"
		"  -i ITER     timed transforms (default 10)\n"
		"  -w WARMUP   transforms before the timed ones (default 1)\n"
		"  -e HOW      the pairwise exchange: sendrecv (MPI_Sendrecv,\n"
		"              the default) or alltoall (MPI_Alltoall on the\n"
		"              pair's communicator)\n"
		"  The ranks must be a power of two. Prints one line:\n"
		"  app=fft ranks=... compute_s=... comm_s=...\n",
	.n = 262144,
	.iters = 10,
	.extra = "e:",
	.option = option,
	.fits = fits,
};

/* The two halves of a butterfly: every stage, serial or exchanged, goes
 * through these, so both round alike. */
static inline struct cplx
bfly_sum(struct cplx a, struct cplx b)
{
	return (struct cplx){a.re + b.re, a.im + b.im};
}

static inline struct cplx
bfly_diff(struct cplx a, struct cplx b, struct cplx w)
{
	double dr = a.re - b.re, di = a.im - b.im;

	return (struct cplx){dr * w.re - di * w.im, dr * w.im + di * w.re};
}

/* The stages from half-span h (stage s) down to 1 on len points whose
 * first one's global index is a multiple of 2h. */
static void
dif_stages(struct cplx *x, long len, long h, int s, const struct cplx *w)
{
	long blk, i;

	for (; h >= 1; h >>= 1, s++)
		for (blk = 0; blk < len; blk += 2 * h)
			for (i = 0; i < h; i++) {
				struct cplx a = x[blk + i], b = x[blk + i + h];

				x[blk + i] = bfly_sum(a, b);
				x[blk + i + h] = bfly_diff(a, b, w[i << s]);
			}
}

/* Stage s (half-span h) across two ranks: mine holds global points
 * base.., other the partner's block; the lower rank keeps the sums. */
static void
dif_exchanged(struct cplx *mine, const struct cplx *other, long m, int lower,
	      long base, long h, int s, const struct cplx *w)
{
	long i;

	if (lower)
		for (i = 0; i < m; i++)
			mine[i] = bfly_sum(mine[i], other[i]);
	else
		for (i = 0; i < m; i++)
			mine[i] = bfly_diff(other[i], mine[i],
					    w[((base + i) & (h - 1)) << s]);
}

static unsigned long
bit_reverse(unsigned long v, int bits)
{
	unsigned long r = 0;
	int k;

	for (k = 0; k < bits; k++, v >>= 1)
		r = (r << 1) | (v & 1);
	return r;
}

/* Bin k of the DFT of x, summed as its definition says. */
static struct cplx
dft_bin(const struct cplx *x, long n, long k, const struct cplx *w)
{
	struct cplx s = {0, 0};
	long j;

	for (j = 0; j < n; j++) {
		long e = (long)(((unsigned long)j * (unsigned long)k) % n);
		struct cplx t = e < n / 2 ? w[e]
					  : (struct cplx){-w[e - n / 2].re,
							  -w[e - n / 2].im};

		s.re += x[j].re * t.re - x[j].im * t.im;
		s.im += x[j].re * t.im + x[j].im * t.re;
	}
	return s;
}

/* Rank 0's verdict on the gathered spectrum: 1 when right. */
static int
check(const struct cplx *x, const struct cplx *got, long n, int bits,
      const struct cplx *w)
{
	struct cplx *ref = malloc(sizeof(*ref) * n);
	long bins[] = {0, 1, 2, n / 3, n / 2, n - 1}, i, bad;
	double norm = 0;
	int ok = 1;

	if (ref == NULL) {
		fprintf(stderr, "fft: no memory for the serial reference\n");
		return 0;
	}
	memcpy(ref, x, sizeof(*ref) * n);
	dif_stages(ref, n, n / 2, 0, w);
	bad = app_first_diff(got, ref, n, sizeof(*ref));
	if (bad >= 0) {
		fprintf(stderr,
			"fft: output %ld differs from the serial "
			"run's: %.17g%+.17gi, want %.17g%+.17gi\n",
			bad, got[bad].re, got[bad].im, ref[bad].re,
			ref[bad].im);
		ok = 0;
	}
	for (i = 0; i < n; i++)
		norm += hypot(x[i].re, x[i].im);
	for (i = 0; i < (long)(sizeof(bins) / sizeof(bins[0])); i++) {
		long k = bins[i] < n ? bins[i] : 0;
		struct cplx d = dft_bin(x, n, k, w);
		struct cplx f = ref[bit_reverse((unsigned long)k, bits)];

		if (hypot(f.re - d.re, f.im - d.im) > 1e-9 * norm) {
			fprintf(stderr,
				"fft: bin %ld is %.17g%+.17gi, the "
				"DFT's %.17g%+.17gi\n",
				k, f.re, f.im, d.re, d.im);
			ok = 0;
		}
	}
	free(ref);
	return ok;
}

/* The partner's block of stage s into a buffer, and where it is. */
static struct cplx *
exchange(struct cplx *mine, struct cplx *buf, long m, int partner, int lower,
	 MPI_Comm pair)
{
	int count = (int)(2 * m);

	if (!use_alltoall) {
		MPI_Sendrecv(mine, count, MPI_DOUBLE, partner, 0, buf, count,
			     MPI_DOUBLE, partner, 0, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		return buf;
	}
	/* in place on the pair (lower rank 0): block j goes to rank j and
	 * is replaced by rank j's; what a rank sends itself is not read */
	buf += lower ? m : 0;
	memcpy(buf, mine, sizeof(*mine) * m);
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf - (lower ? m : 0),
		     count, MPI_DOUBLE, pair);
	return buf;
}

int
main(int argc, char **argv)
{
	struct cplx *x = NULL, *out = NULL, *w, *mine, *buf, *other;
	MPI_Comm *pairs;
	uint64_t seed = 7;
	struct app a;
	int it, s, rc, ok = 1, bits, pbits;
	long m, i;

	app_start(&a, &def, &argc, &argv);
	bits = log2_exact(a.n);
	pbits = log2_exact(a.ranks);
	m = a.n / a.ranks;
	w = app_alloc(&a, sizeof(*w) * (a.n / 2), "twiddles");
	for (i = 0; i < a.n / 2; i++) {
		double t = -2 * M_PI * (double)i / (double)a.n;

		w[i] = (struct cplx){cos(t), sin(t)};
	}
	mine = app_alloc(&a, sizeof(*mine) * m, "the block");
	buf = app_alloc(&a, sizeof(*buf) * 2 * m, "the exchange");
	memset(buf, 0, sizeof(*buf) * 2 * m);
	/* the pairs of each stage, once: rank r with r XOR the distance */
	pairs = app_alloc(&a, sizeof(*pairs) * (pbits + 1), "communicators");
	for (s = 0; use_alltoall && s < pbits; s++) {
		int d = a.ranks >> (s + 1);

		MPI_Comm_split(MPI_COMM_WORLD, a.me & ~d, a.me, &pairs[s]);
	}
	if (a.me == 0) {
		x = app_alloc(&a, sizeof(*x) * a.n, "the input");
		out = app_alloc(&a, sizeof(*out) * a.n, "the spectrum");
		for (i = 0; i < a.n; i++)
			x[i] = (struct cplx){2 * app_rand(&seed) - 1,
					     2 * app_rand(&seed) - 1};
	}

	for (it = 0; it < a.warmup + a.iters; it++) {
		if (it == a.warmup)
			app_clock_start(&a);
		MPI_Scatter(x, (int)(2 * m), MPI_DOUBLE, mine, (int)(2 * m),
			    MPI_DOUBLE, 0, MPI_COMM_WORLD);
		app_lap_comm(&a);
		for (s = 0; s < pbits; s++) {
			int d = a.ranks >> (s + 1), lower = !(a.me & d);

			other = exchange(mine, buf, m, a.me ^ d, lower,
					 use_alltoall ? pairs[s]
						      : MPI_COMM_NULL);
			app_lap_comm(&a);
			dif_exchanged(mine, other, m, lower, a.me * m,
				      a.n >> (s + 1), s, w);
			app_lap_compute(&a);
		}
		dif_stages(mine, m, m / 2, pbits, w);
		app_lap_compute(&a);
		MPI_Gather(mine, (int)(2 * m), MPI_DOUBLE, out, (int)(2 * m),
			   MPI_DOUBLE, 0, MPI_COMM_WORLD);
		app_lap_comm(&a);
	}
	app_clock_stop(&a);

	if (a.me == 0)
		ok = check(x, out, a.n, bits, w);
	rc = app_finish(&a, ok,
			use_alltoall ? "exchange=alltoall"
				     : "exchange=sendrecv");
	for (s = 0; use_alltoall && s < pbits; s++)
		MPI_Comm_free(&pairs[s]);
	free(pairs);
	free(x);
	free(out);
	free(w);
	free(mine);
	free(buf);
	MPI_Finalize();
	return rc;
}
