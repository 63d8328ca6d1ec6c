/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-fused: the fused collectives of doc/fused.md from one rank -- the
 * thesis's Table 5.1 synthetic benchmarks -- each checked against a CPU
 * reference and timed against the same computation done as separate
 * collectives through the switch with the op on the hosts.
 *
 *   acis-fused --switch 10.77.0.1 --job 7 --rank R --size P
 *              [--patterns all|allreduce_op,allgather_op,...]
 *              [--programs DIR]  (the ops: DIR/gmres_norm.s,
 *               pagerank_mac.s, block_sum.s, is_counts.s; by default
 *               the source tree's examples/cgra/fused, or the installed
 *               copy when the tree is not there)
 *              [--iters N]  (time N calls of each after checking one;
 *               0: check only)
 *              [--op-program FILE --pattern NAME]  (run FILE as the op
 *               of pattern NAME once, with the benchmark's data: a
 *               faulting op's error is printed and the exit is 1)
 *
 * The benchmarks (every rank computes every rank's data, so each checks
 * its own result bit for bit):
 *   allreduce_op            512 int32 summed, then block_sum (Table 5.1's
 *                           accumulation after an allreduce, "sorting")
 *   allgather_op            128 float32 in all, gathered, then one row
 *                           of 128 float32 times them (PageRank's MAC)
 *   allreduce_op_allreduce  ||w||^2's shares summed, then each rank's
 *                           share of (w / ||w||) . v over 2 x 2048
 *                           float32 of inbound, summed (GMRES)
 *   scatter_op_reduce       the root's P blocks of 512 int32 scattered,
 *                           each summed, the sums reduced to the root
 *                           (master-slave accumulation)
 *   allreduce_op_alltoall   1024-bucket histograms summed, then each
 *                           rank's counts per 64-bucket group exchanged
 *                           all to all (NAS IS's key counts)
 * The float data of GMRES are small integers, so every sum is exact and
 * the reference need not follow the switch's order; PageRank's are not,
 * and its reference runs the fused multiply-adds in the op's order.
 *
 * Prints one line per pattern and "N passed, M failed"; exits 0 only when
 * nothing failed.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acis.h"
#include "acis_cgra.h"

static unsigned int passed, failed;

struct bench {
	unsigned int pattern;
	const char *program;   /* its op, in the programs' folder */
	enum acis_dtype dtype;
	enum acis_op op;
	const char *separate;  /* what the separate calls are */
};

static const struct bench benches[] = {
	{ACIS_FUSED_ALLREDUCE_OP, "block_sum", ACIS_INT32, ACIS_OP_SUM,
	 "allreduce + op on the host"},
	{ACIS_FUSED_ALLGATHER_OP, "pagerank_mac", ACIS_FLOAT32, ACIS_OP_NONE,
	 "allgather + op on the host"},
	{ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE, "gmres_norm", ACIS_FLOAT32,
	 ACIS_OP_SUM, "allreduce + op on the host + allreduce"},
	{ACIS_FUSED_SCATTER_OP_REDUCE, "block_sum", ACIS_INT32, ACIS_OP_SUM,
	 "scatter + op on the host + reduce"},
	{ACIS_FUSED_ALLREDUCE_OP_ALLTOALL, "is_counts", ACIS_INT32,
	 ACIS_OP_SUM, "allreduce + op on the host + alltoall"},
};

/* One call's data, for rank `me` of P (every rank's, for the reference). */
struct data {
	uint32_t P, me;
	size_t block, inbound, out; /* bytes */
	void **blk, **ib;           /* [P] */
	void *want;                 /* my result, by the reference */
	size_t want_len;
};

static uint32_t
mix(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t h = ((uint64_t)a << 40) ^ ((uint64_t)b << 20) ^ c;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return (uint32_t)(h ^ (h >> 33));
}

/* ---- the ops on the host: the separate calls' and the reference's ---- */

static int32_t
op_block_sum(const int32_t *b, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (uint32_t)b[i];
	return (int32_t)s;
}

static float
op_mac(const float *a, const float *x, size_t n)
{
	float s = 0.0f;
	size_t j;

	for (j = 0; j < n; j++)
		s = fmaf(x[j], a[j], s);
	return s;
}

/* inbound: pairs of 128-element chunks of w and v */
static float
op_gmres(const float *ib, size_t ib_bytes, float R)
{
	size_t pairs = ib_bytes / 1024, p, k;
	float d = 0.0f;

	for (p = 0; p < pairs; p++)
		for (k = 0; k < 128; k++)
			d += ib[p * 256 + k] * ib[p * 256 + 128 + k];
	return d / sqrtf(R);
}

static void
op_is_counts(const int32_t *L, size_t buckets, int32_t *out)
{
	size_t g, b;

	for (g = 0; g < buckets / 64; g++) {
		uint32_t s = 0;

		for (b = 0; b < 64; b++)
			s += (uint32_t)L[g * 64 + b];
		out[g] = (int32_t)s;
	}
}

/* the built-in sums, in rank order */
static void
sum_i32(int32_t *acc, const int32_t *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		acc[i] = (int32_t)((uint32_t)acc[i] + (uint32_t)x[i]);
}

/* ---- data and reference ---- */

static int
make(const struct bench *b, uint32_t P, uint32_t me, int root,
     struct data *d)
{
	uint32_t r;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->P = P;
	d->me = me;
	d->blk = calloc(P, sizeof(void *));
	d->ib = calloc(P, sizeof(void *));
	if (d->blk == NULL || d->ib == NULL)
		return -1;
	switch (b->pattern) {
	case ACIS_FUSED_ALLREDUCE_OP:
		d->block = 512 * 4;
		d->out = 4;
		break;
	case ACIS_FUSED_ALLGATHER_OP:
		d->block = (P < 128 ? 128 / P : 1) * 4;
		d->inbound = P * d->block;
		d->out = 4;
		break;
	case ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE:
		d->block = 4;
		d->inbound = 16384;
		d->out = 4;
		break;
	case ACIS_FUSED_SCATTER_OP_REDUCE:
		d->block = 512 * 4; /* a block; the root sends P */
		d->out = 4;
		break;
	case ACIS_FUSED_ALLREDUCE_OP_ALLTOALL: {
		size_t groups = 16 % P == 0 ? 16 : P;

		d->block = groups * 64 * 4; /* the histogram; the op reads it
					       as its own block */
		d->out = groups * 4;
		break;
	}
	}
	for (r = 0; r < P; r++) {
		size_t blen = b->pattern == ACIS_FUSED_SCATTER_OP_REDUCE ?
				      (r == (uint32_t)root ? P * d->block : 0) :
				      d->block;

		d->blk[r] = calloc(1, blen + 4);
		d->ib[r] = calloc(1, d->inbound + 4);
		if (d->blk[r] == NULL || d->ib[r] == NULL)
			return -1;
		for (i = 0; i < blen / 4; i++) {
			uint32_t h = mix(r, (uint32_t)i, b->pattern);

			if (b->dtype == ACIS_FLOAT32)
				((float *)d->blk[r])[i] =
					(float)(int32_t)(h % 2001) / 1000.0f - 1.0f;
			else if (b->pattern == ACIS_FUSED_ALLREDUCE_OP_ALLTOALL)
				((int32_t *)d->blk[r])[i] = (int32_t)(h % 100);
			else
				((int32_t *)d->blk[r])[i] = (int32_t)h;
		}
		for (i = 0; i < d->inbound / 4; i++) {
			uint32_t h = mix(r + 1000, (uint32_t)i, b->pattern);

			if (b->pattern == ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE)
				((float *)d->ib[r])[i] = (float)((int)(h % 9) - 4);
			else if (b->dtype == ACIS_FLOAT32)
				((float *)d->ib[r])[i] =
					(float)(int32_t)(h % 2001) / 1000.0f - 1.0f;
			else
				((int32_t *)d->ib[r])[i] = (int32_t)(h % 100);
		}
		if (b->pattern == ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE) {
			/* the block: this rank's share of ||w||^2 */
			const float *w = d->ib[r];
			float s = 0.0f;
			size_t p, k;

			for (p = 0; p < d->inbound / 1024; p++)
				for (k = 0; k < 128; k++)
					s += w[p * 256 + k] * w[p * 256 + k];
			((float *)d->blk[r])[0] = s;
		}
	}
	return 0;
}

static void
data_free(struct data *d)
{
	uint32_t r;

	for (r = 0; d->blk != NULL && r < d->P; r++) {
		free(d->blk[r]);
		free(d->ib[r]);
	}
	free(d->blk);
	free(d->ib);
	free(d->want);
}

/* Rank me's result, computed here; 0, or -1 (memory). */
static int
reference(const struct bench *b, struct data *d, int root)
{
	uint32_t P = d->P, r;
	size_t n = d->block / 4;
	int32_t *acc = NULL;

	d->want = calloc(1, d->out + 4);
	d->want_len = b->pattern == ACIS_FUSED_SCATTER_OP_REDUCE &&
				      d->me != (uint32_t)root ? 0 : d->out;
	if (d->want == NULL)
		return -1;
	switch (b->pattern) {
	case ACIS_FUSED_ALLREDUCE_OP:
		acc = calloc(n, 4);
		if (acc == NULL)
			return -1;
		for (r = 0; r < P; r++)
			sum_i32(acc, d->blk[r], n);
		((int32_t *)d->want)[0] = op_block_sum(acc, n);
		break;
	case ACIS_FUSED_ALLGATHER_OP: {
		float *x = malloc(P * d->block);

		if (x == NULL)
			return -1;
		for (r = 0; r < P; r++)
			memcpy((uint8_t *)x + r * d->block, d->blk[r], d->block);
		((float *)d->want)[0] = op_mac(d->ib[d->me], x, P * n);
		free(x);
		break;
	}
	case ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE: {
		float R = 0.0f, h = 0.0f;

		for (r = 0; r < P; r++)
			R += ((float *)d->blk[r])[0];
		for (r = 0; r < P; r++)
			h += op_gmres(d->ib[r], d->inbound, R);
		((float *)d->want)[0] = h;
		break;
	}
	case ACIS_FUSED_SCATTER_OP_REDUCE: {
		uint32_t s = 0;

		for (r = 0; r < P; r++)
			s += (uint32_t)op_block_sum(
				(const int32_t *)d->blk[root] + r * n, n);
		((int32_t *)d->want)[0] = (int32_t)s;
		break;
	}
	case ACIS_FUSED_ALLREDUCE_OP_ALLTOALL: {
		size_t groups = d->out / 4, q = groups / P;
		int32_t *o = malloc(d->out);

		if (o == NULL)
			return -1;
		/* rank r's counts; I get its q groups from q * me */
		for (r = 0; r < P; r++) {
			op_is_counts(d->blk[r], n, o);
			memcpy((int32_t *)d->want + r * q, o + q * d->me, q * 4);
		}
		free(o);
		break;
	}
	}
	free(acc);
	return 0;
}

/* ---- the calls ---- */

static int
fused_call(acis_comm_t *c, const struct bench *b, const struct data *d,
	   enum acis_op map, int root, void *res)
{
	struct acis_fused_args a = {
		.pattern = b->pattern, .dtype = b->dtype, .op = b->op,
		.map = map, .root = root,
		.block = d->blk[d->me],
		.block_bytes = b->pattern == ACIS_FUSED_SCATTER_OP_REDUCE ?
			(d->me == (uint32_t)root ? d->P * d->block : 0) :
			d->block,
		.inbound = d->ib[d->me], .inbound_bytes = d->inbound,
		.out_bytes = d->out, .result = res,
	};

	return acis_fused(c, &a);
}

/* The same computation as separate collectives, the op on this host. */
static int
separate_call(acis_comm_t *c, const struct bench *b, const struct data *d,
	      int root, void *tmp, void *res)
{
	uint32_t P = d->P, me = d->me;
	size_t n = d->block / 4;
	int rc;

	switch (b->pattern) {
	case ACIS_FUSED_ALLREDUCE_OP:
		rc = acis_allreduce(d->blk[me], tmp, n, ACIS_INT32, ACIS_OP_SUM,
				    c);
		if (rc == ACIS_OK)
			((int32_t *)res)[0] = op_block_sum(tmp, n);
		return rc;
	case ACIS_FUSED_ALLGATHER_OP:
		rc = acis_allgather(d->blk[me], tmp, n, ACIS_FLOAT32, c);
		if (rc == ACIS_OK)
			((float *)res)[0] = op_mac(d->ib[me], tmp, P * n);
		return rc;
	case ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE: {
		float R, share;

		rc = acis_allreduce(d->blk[me], &R, 1, ACIS_FLOAT32,
				    ACIS_OP_SUM, c);
		if (rc != ACIS_OK)
			return rc;
		share = op_gmres(d->ib[me], d->inbound, R);
		return acis_allreduce(&share, res, 1, ACIS_FLOAT32, ACIS_OP_SUM,
				      c);
	}
	case ACIS_FUSED_SCATTER_OP_REDUCE: {
		int32_t s;

		rc = acis_scatter(d->blk[root], tmp, n, ACIS_INT32, root, c);
		if (rc != ACIS_OK)
			return rc;
		s = op_block_sum(tmp, n);
		return acis_reduce(&s, res, 1, ACIS_INT32, ACIS_OP_SUM, root,
				   c);
	}
	case ACIS_FUSED_ALLREDUCE_OP_ALLTOALL: {
		int32_t *o = (int32_t *)tmp + n;

		rc = acis_allreduce(d->blk[me], tmp, n, ACIS_INT32, ACIS_OP_SUM,
				    c);
		if (rc != ACIS_OK)
			return rc;
		op_is_counts(d->blk[me], n, o);
		return acis_alltoall(o, res, d->out / 4 / P, ACIS_INT32, c);
	}
	}
	return ACIS_ERR_INVAL;
}

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *t, unsigned int n)
{
	qsort(t, n, sizeof(*t), cmp_d);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static enum acis_op
op_make(acis_ctx_t *ctx, const char *path, const char *name)
{
	char err[1024];
	enum acis_op op;
	uint32_t *w;
	size_t n;
	int rc;

	if (acis_cgra_read_program(path, &w, &n, err, sizeof(err)) != 0) {
		printf("FAIL %s\n", err);
		return ACIS_OP_NONE;
	}
	rc = acis_op_create(ctx, name, w, n, 0, &op);
	free(w);
	if (rc != ACIS_OK) {
		printf("FAIL op %s: %s\n", name, acis_last_error(ctx));
		return ACIS_OP_NONE;
	}
	return op;
}

static void
run(acis_ctx_t *ctx, const struct bench *b, const char *path,
    unsigned int iters)
{
	acis_comm_t *c = acis_comm_world(ctx);
	uint32_t P = acis_comm_size(c), me = acis_comm_rank(c);
	const char *name = acis_fused_name(b->pattern);
	const char *base = strrchr(path, '/');
	char opname[32];
	int root = b->pattern == ACIS_FUSED_SCATTER_OP_REDUCE ? (int)(P - 1) :
								-1;
	double *tf = NULL, *ts = NULL;
	uint8_t *res = NULL, *res2 = NULL, *tmp = NULL;
	enum acis_op map;
	struct data d;
	unsigned int i;
	int rc;

	snprintf(opname, sizeof(opname), "%s", base != NULL ? base + 1 : path);
	opname[strcspn(opname, ".")] = '\0';
	if (make(b, P, me, root, &d) != 0 || reference(b, &d, root) != 0 ||
	    (res = calloc(1, d.out + 4)) == NULL ||
	    (res2 = calloc(1, d.out + 4)) == NULL ||
	    (tmp = calloc(1, (size_t)P * d.block + d.block + d.out + 64)) ==
		    NULL) {
		printf("FAIL %s: out of memory\n", name);
		failed++;
		goto out;
	}
	map = op_make(ctx, path, opname);
	if (map == ACIS_OP_NONE) {
		failed++;
		goto out;
	}
	rc = fused_call(c, b, &d, map, root, res);
	if (rc != ACIS_OK) {
		printf("FAIL %s: %s\n", name, acis_last_error(ctx));
		failed++;
		goto free_op;
	}
	if (memcmp(res, d.want, d.want_len) != 0) {
		printf("FAIL %s: the result is not the reference's (first "
		       "word 0x%08x, want 0x%08x)\n", name,
		       ((uint32_t *)res)[0], ((uint32_t *)d.want)[0]);
		failed++;
		goto free_op;
	}
	rc = separate_call(c, b, &d, root, tmp, res2);
	if (rc != ACIS_OK || memcmp(res2, d.want, d.want_len) != 0) {
		printf("FAIL %s separately (%s): %s\n", name, b->separate,
		       rc != ACIS_OK ? acis_last_error(ctx) :
				       "not the reference's result");
		failed++;
		goto free_op;
	}
	passed++;
	if (iters == 0) {
		printf("ok %s (op %s): bit for bit as the CPU reference\n",
		       name, opname);
		goto free_op;
	}
	tf = calloc(iters, sizeof(double));
	ts = calloc(iters, sizeof(double));
	if (tf == NULL || ts == NULL)
		goto free_op;
	/* alternate, so both see the same machine */
	for (i = 0; i < iters; i++) {
		double t0 = now_us();

		if (fused_call(c, b, &d, map, root, res) != ACIS_OK)
			break;
		tf[i] = now_us() - t0;
		t0 = now_us();
		if (separate_call(c, b, &d, root, tmp, res2) != ACIS_OK)
			break;
		ts[i] = now_us() - t0;
	}
	if (i < iters) {
		printf("FAIL %s timing: %s\n", name, acis_last_error(ctx));
		failed++;
		passed--;
		goto free_op;
	}
	{
		double f = median(tf, iters), s = median(ts, iters);

		printf("ok %s (op %s): bit for bit as the CPU reference; "
		       "median of %u: fused %.1f us, separate %.1f us (%s), "
		       "%.2fx\n", name, opname, iters, f, s, b->separate,
		       s / f);
	}
free_op:
	acis_op_free(ctx, map);
out:
	free(tf);
	free(ts);
	free(res);
	free(res2);
	free(tmp);
	data_free(&d);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"switch", required_argument, NULL, 's'},
		{"job", required_argument, NULL, 'j'},
		{"rank", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 'n'},
		{"timeout-ms", required_argument, NULL, 't'},
		{"patterns", required_argument, NULL, 'p'},
		{"programs", required_argument, NULL, 'd'},
		{"iters", required_argument, NULL, 'i'},
		{"op-program", required_argument, NULL, 'o'},
		{"pattern", required_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	const char *patterns = "all", *dir = NULL;
	const char *op_program = NULL, *one = NULL;
	int wanted[ACIS_FUSED_MAX] = {0};
	struct acis_config cfg;
	unsigned int iters = 0, k;
	acis_ctx_t *ctx;
	int c, rc;

	acis_config_default(&cfg);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			cfg.switch_ip = optarg;
			break;
		case 'j':
			cfg.job = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			cfg.rank = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cfg.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			cfg.timeout_ms = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			patterns = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'i':
			iters = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			op_program = optarg;
			break;
		case 'P':
			one = optarg;
			break;
		default:
			fprintf(stderr, "usage: see the comment at the top of "
				"tools/acis-fused.c, or doc/fused.md\n");
			return 2;
		}
	}
	if ((op_program != NULL) != (one != NULL) ||
	    (one != NULL && acis_fused_parse(one) == 0)) {
		fprintf(stderr, "acis-fused: --op-program FILE goes with "
			"--pattern NAME (allreduce_op, allgather_op, "
			"allreduce_op_allreduce, scatter_op_reduce, "
			"allreduce_op_alltoall)\n");
		return 2;
	}
	if (one != NULL) {
		wanted[acis_fused_parse(one)] = 1;
	} else if (strcmp(patterns, "all") == 0) {
		for (k = 1; k < ACIS_FUSED_MAX; k++)
			wanted[k] = 1;
	} else {
		char *dup = strdup(patterns), *tok, *save = NULL;

		for (tok = dup != NULL ? strtok_r(dup, ",", &save) : NULL;
		     tok != NULL; tok = strtok_r(NULL, ",", &save)) {
			unsigned int p = acis_fused_parse(tok);

			if (p == 0) {
				fprintf(stderr, "acis-fused: unknown pattern "
					"'%s'\n", tok);
				free(dup);
				return 2;
			}
			wanted[p] = 1;
		}
		free(dup);
	}
	if (dir == NULL)
		dir = access(ACIS_FUSED_PROGRAMS "/gmres_norm.s", R_OK) == 0 ?
			      ACIS_FUSED_PROGRAMS : ACIS_FUSED_PROGRAMS_INSTALLED;
	rc = acis_init(&cfg, &ctx);
	if (rc != ACIS_OK) {
		fprintf(stderr, "rank %u: acis_init: %s\n", cfg.rank,
			acis_init_error());
		return 1;
	}
	for (k = 0; k < sizeof(benches) / sizeof(benches[0]); k++) {
		const struct bench *b = &benches[k];
		char path[4096];

		if (!wanted[b->pattern])
			continue;
		if (one != NULL) {
			run(ctx, b, op_program, 0);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s.s", dir, b->program);
		run(ctx, b, path, iters);
	}
	printf("%u passed, %u failed\n", passed, failed);
	acis_finalize(ctx);
	return failed == 0 ? 0 : 1;
}
