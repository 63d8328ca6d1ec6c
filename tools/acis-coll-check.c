/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-coll-check: run every collective through the switch from one host
 * (one rank) and check each result against a reference computed locally.
 *
 * Every rank can compute every other rank's contribution (a function of
 * rank, element index and datatype), so each rank checks its own result
 * bit for bit: reductions are folded in rank order with the scalar
 * reference kernels, exactly the order the switch promises.
 *
 *   acis-coll-check --switch 10.77.0.1 --job 7 --rank R --size P
 *                   [--sizes 4,64,4096] [--colls allreduce,bcast,...]
 *                   [--dtypes float32,int32] [--split] [--nonblocking]
 *                   [--in-place]  (each collective again with
 *                    ACIS_IN_PLACE, the data placed as MPI places it)
 *                   [--show]   (print results beside the reference)
 *                   [--times]  (print how long each collective took)
 *                   [--repeat N]  (run the whole list N times: soak)
 *                   [--keep-going]  (repeat after a failure too: the
 *                    ranks must stay in step, so one failure does not
 *                    fail what comes after; after a failure, a line
 *                    before the counts says how many rounds on the world
 *                    passed after the last one, and the most in a row
 *                    after any)
 *                   [--fold EXPR]  (the world's reductions fold in a
 *                    fabric's tree: the reference folds as the tree
 *                    does, e.g. "((0,1),(2,3))" for two leaves of two
 *                    members each; acis-fabric fold prints it; a
 *                    split's reference folds in the same tree,
 *                    restricted to its members)
 *                   [--attach FILE]  (after joining, wait for FILE to
 *                    hold "ID RANKS" of a communicator made through
 *                    management, e.g. "65538 0,2", and run on it too)
 *                   [--op-program FILE [--op-name NAME]]  (the
 *                    reductions by a user-defined op: FILE's CGRA
 *                    program, registered with acis_op_create under NAME
 *                    (the file's base name); the reference folds it in
 *                    rank order on this host under the same fold
 *                    contract, lib/userop, in 64 KiB pieces (a
 *                    program folding elements where they lie, as the
 *                    switch's chunks do); float16 and bfloat16 are
 *                    skipped)
 *
 * Prints one line per failure and "N passed, M failed" at the end; exits
 * 0 only when nothing failed.
 */
#include <getopt.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis.h"
#include "acis_cgra.h"
#include "acis_reduce.h"
#include "acis_userop.h"

static unsigned int passed, failed;
/* --op-program: the user op's number, and the same program here for
 * the reference */
static unsigned int user_op;
static struct acis_userop *user_ref;
static int keep_going;                 /* --keep-going */
static unsigned int passes_since_fail; /* whole rounds since a failure */
static unsigned int best_after_fail;   /* most rounds in a row passed
					  after some failure */
static int show;
static int times;   /* print how long each collective took */
static struct timespec t_start;

static double
elapsed_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t_start.tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t_start.tv_nsec) / 1e6;
}
static unsigned int show_dtype;

/* A few elements of a buffer, for people. */
static void
print_elems(const char *label, const void *buf, size_t len)
{
	size_t i, n = len / acis_dtype_size(show_dtype);

	printf("    %-9s [", label);
	for (i = 0; i < n && i < 4; i++) {
		if (show_dtype == ACIS_FLOAT32)
			printf("%s%.6g", i ? ", " : "", ((const float *)buf)[i]);
		else if (show_dtype == ACIS_INT32)
			printf("%s%d", i ? ", " : "", ((const int32_t *)buf)[i]);
		else
			printf("%s0x%02x", i ? ", " : "", ((const uint8_t *)buf)[i]);
	}
	printf("%s] (%zu elements)\n", n > 4 ? ", ..." : "", n);
}

static void
value(unsigned int dt, uint32_t rank, uint64_t i, void *out)
{
	uint64_t x = (rank + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0xc2b2ae3d27d4eb4full);
	float f;
	double d;

	x ^= x >> 31;
	switch (dt) {
	case ACIS_INT32:
	case ACIS_UINT32: {
		uint32_t v = (uint32_t)x;

		memcpy(out, &v, 4);
		break;
	}
	case ACIS_INT64:
	case ACIS_UINT64:
		memcpy(out, &x, 8);
		break;
	case ACIS_INT8:
	case ACIS_UINT8: {
		/* any byte: a few ranks' sums and products leave the range
		 * and wrap, which the reference does too */
		uint8_t v = (uint8_t)x;

		memcpy(out, &v, 1);
		break;
	}
	case ACIS_INT16:
	case ACIS_UINT16: {
		uint16_t v = (uint16_t)x;

		memcpy(out, &v, 2);
		break;
	}
	case ACIS_FLOAT32:
		/* many magnitudes, so rounding order matters */
		f = (float)((int64_t)(x % 2000001) - 1000000) /
		    (float)(1u << (x >> 60));
		memcpy(out, &f, 4);
		break;
	case ACIS_FLOAT64:
		d = (double)((int64_t)(x % 2000000001) - 1000000000) /
		    (double)(1ull << (x >> 58));
		memcpy(out, &d, 8);
		break;
	case ACIS_FLOAT16: {
		uint16_t h = acis_f32_to_f16((float)((int)(x % 2001) - 1000) / 64.0f);

		memcpy(out, &h, 2);
		break;
	}
	case ACIS_BFLOAT16: {
		uint16_t h = acis_f32_to_bf16((float)((int)(x % 20001) - 10000) / 16.0f);

		memcpy(out, &h, 2);
		break;
	}
	}
}

static void
fill(unsigned int dt, uint32_t rank, uint64_t first, size_t n, uint8_t *buf)
{
	unsigned int ds = acis_dtype_size(dt);
	size_t i;

	for (i = 0; i < n; i++)
		value(dt, rank, first + i, buf + i * ds);
}

/*
 * A fabric's fold order (--fold): a group is a switch of the tree, its
 * units its own members (ranks) and its child switches (groups), folded
 * in the order of their lowest rank; a child's partial reaches its
 * parent finished, as the wire carries it (doc/fabric.md).
 */
#define FOLD_NODES 4096

struct fold_node {
	int rank;          /* >= 0: a member; -1: a group */
	int kid, next;     /* first unit, next sibling (-1: none) */
	uint32_t low;      /* lowest rank below */
};

static struct fold_node fold_pool[FOLD_NODES];
static int fold_n, fold_root = -1;
static uint32_t fold_ranks; /* ranks the expression names */
static int fold_active;     /* a communicator with a fold order runs */
/* its members: world rank -> its rank (-1: not in it), and how many */
static int32_t *fold_map;
static uint32_t fold_members;

static int
fold_parse(const char **p)
{
	int me, last = -1;

	while (**p == ' ')
		(*p)++;
	if (fold_n == FOLD_NODES)
		return -1;
	me = fold_n++;
	fold_pool[me].kid = fold_pool[me].next = -1;
	if (**p != '(') {
		char *end;
		unsigned long r = strtoul(*p, &end, 10);

		if (end == *p || r > 65535)
			return -1;
		*p = end;
		fold_pool[me].rank = (int)r;
		fold_pool[me].low = (uint32_t)r;
		fold_ranks++;
		return me;
	}
	(*p)++;
	fold_pool[me].rank = -1;
	fold_pool[me].low = UINT32_MAX;
	for (;;) {
		int k = fold_parse(p), *pp;

		if (k < 0)
			return -1;
		/* keep the units sorted by their lowest rank */
		for (pp = &fold_pool[me].kid;
		     *pp >= 0 && fold_pool[*pp].low < fold_pool[k].low;
		     pp = &fold_pool[*pp].next)
			;
		fold_pool[k].next = *pp;
		*pp = k;
		if (fold_pool[k].low < fold_pool[me].low)
			fold_pool[me].low = fold_pool[k].low;
		last = k;
		while (**p == ' ')
			(*p)++;
		if (**p == ')') {
			(*p)++;
			return last < 0 ? -1 : me;
		}
		if (**p != ',')
			return -1;
		(*p)++;
	}
}

/* Parse --fold: 0, or -1 with the expression not a tree of ranks
 * 0..n-1, each once. */
static int
fold_load(const char *text)
{
	const char *p = text;
	uint8_t *seen;
	uint32_t i;
	int k, ok = 1;

	fold_root = fold_parse(&p);
	while (*p == ' ')
		p++;
	if (fold_root < 0 || *p != '\0' || fold_pool[fold_root].rank >= 0)
		return -1;
	seen = calloc(fold_ranks, 1);
	if (seen == NULL)
		return -1;
	for (k = 0; k < fold_n; k++) {
		int r = fold_pool[k].rank;

		if (r < 0)
			continue;
		if ((uint32_t)r >= fold_ranks || seen[r])
			ok = 0;
		else
			seen[r] = 1;
	}
	for (i = 0; i < fold_ranks; i++)
		ok &= seen[i];
	free(seen);
	fold_map = ok ? malloc(fold_ranks * sizeof(*fold_map)) : NULL;
	return ok && fold_map != NULL ? 0 : -1;
}

/* The lowest rank, in the communicator of fold_map, below node k (-1:
 * none of its members). */
static int32_t
fold_low(int k)
{
	int32_t low = -1;
	int u;

	if (fold_pool[k].rank >= 0)
		return fold_map[fold_pool[k].rank];
	for (u = fold_pool[k].kid; u >= 0; u = fold_pool[u].next) {
		int32_t l = fold_low(u);

		if (l >= 0 && (low < 0 || l < low))
			low = l;
	}
	return low;
}

/* Node k's value of elements [first, first+n), as the wire has it, for
 * the communicator of fold_map: the world's tree restricted to its
 * members, each switch folding its units by their lowest rank in it, as
 * the switches build its own tree. 0, or -1 when none of its members is
 * below k. */
static int
fold_value(int k, unsigned int dt, unsigned int op, uint64_t first, size_t n,
	   uint8_t *out)
{
	unsigned int ds = acis_dtype_size(dt), as = acis_acc_size(dt);
	int32_t last = -1;
	uint8_t *acc, *tmp;
	int any = 0;

	if (fold_pool[k].rank >= 0) {
		int32_t me = fold_map[fold_pool[k].rank];

		if (me < 0)
			return -1;
		fill(dt, (uint32_t)me, first, n, out);
		return 0;
	}
	acc = malloc(n * as + 8);
	tmp = malloc(n * ds + 8);
	for (;;) {
		/* the unit with the next lowest rank */
		int32_t best = -1, l;
		int u, pick = -1;

		for (u = fold_pool[k].kid; u >= 0; u = fold_pool[u].next) {
			l = fold_low(u);
			if (l > last && (best < 0 || l < best)) {
				best = l;
				pick = u;
			}
		}
		if (pick < 0)
			break;
		last = best;
		fold_value(pick, dt, op, first, n, tmp);
		if (!any)
			acis_reduce_init_scalar(dt, acc, tmp, n);
		else
			acis_reduce_fold_scalar(dt, op, acc, tmp, n);
		any = 1;
	}
	if (any)
		acis_reduce_finish_scalar(dt, out, acc, n);
	free(acc);
	free(tmp);
	return any ? 0 : -1;
}

/* The communicator about to run: world rank w is its rank map[w] (NULL:
 * the world). */
static void
fold_use(const int32_t *map)
{
	uint32_t w;

	fold_members = 0;
	for (w = 0; w < fold_ranks && fold_map != NULL; w++) {
		fold_map[w] = map != NULL ? map[w] : (int32_t)w;
		fold_members += fold_map[w] >= 0;
	}
	fold_active = fold_map != NULL;
}

/* Rank-order reduction of elements [first, first+n) of every rank (on
 * the world with --fold, the fabric's tree order). */
static void
reference_reduce(unsigned int dt, unsigned int op, uint32_t P, uint64_t first,
		 size_t n, uint8_t *out)
{
	unsigned int ds = acis_dtype_size(dt), as = acis_acc_size(dt);
	uint8_t *acc, *tmp;
	uint32_t r;

	if (op >= ACIS_OP_USER_MIN) {
		/* the user op's program, in rank order, as the switch
		 * folds it */
		char err[256];

		size_t off, len;

		tmp = malloc(n * ds + 8);
		fill(dt, 0, first, n, out);
		for (r = 1; r < P; r++) {
			fill(dt, r, first, n, tmp);
			/* in pieces a fold takes (64 KiB; whole elements,
			 * as the switch's chunks are) */
			for (off = 0; off < n * ds; off += len) {
				len = n * ds - off < ACIS_USEROP_ACC_MAX ?
				      n * ds - off : ACIS_USEROP_ACC_MAX;
				if (acis_userop_fold(user_ref, out + off,
						     tmp + off, len, err,
						     sizeof(err)) != 0) {
					printf("FAIL the reference's fold: "
					       "%s\n", err);
					failed++;
					r = P;
					break;
				}
			}
		}
		free(tmp);
		return;
	}
	if (fold_active && fold_root >= 0 && P == fold_members) {
		fold_value(fold_root, dt, op, first, n, out);
		return;
	}
	acc = malloc(n * as + 8);
	tmp = malloc(n * ds + 8);

	for (r = 0; r < P; r++) {
		fill(dt, r, first, n, tmp);
		if (r == 0)
			acis_reduce_init_scalar(dt, acc, tmp, n);
		else
			acis_reduce_fold_scalar(dt, op, acc, tmp, n);
	}
	acis_reduce_finish_scalar(dt, out, acc, n);
	free(acc);
	free(tmp);
}

static void
check(const char *what, int rc, const void *got, const void *want, size_t len,
      acis_ctx_t *ctx)
{
	if (times) {
		printf("time %s: %.1f ms\n", what, elapsed_ms());
		clock_gettime(CLOCK_MONOTONIC, &t_start);
	}
	if (rc != ACIS_OK) {
		printf("FAIL %s: %s (%s)\n", what, acis_strerror(rc),
		       acis_last_error(ctx));
		failed++;
		return;
	}
	if (show && len != 0) {
		printf("%s:\n", what);
		print_elems("result", got, len);
		print_elems("reference", want, len);
	}
	if (len != 0 && memcmp(got, want, len) != 0) {
		size_t i;

		for (i = 0; i < len && ((const uint8_t *)got)[i] ==
					       ((const uint8_t *)want)[i]; i++)
			;
		printf("FAIL %s: result differs from the reference at byte "
		       "%zu of %zu\n", what, i, len);
		failed++;
		return;
	}
	passed++;
}

struct opts {
	const char *colls;
	const char *dtypes;
	size_t sizes[64];
	unsigned int n_sizes;
	int split;
	int nonblocking;
	int in_place;
	const char *attach;
	unsigned long repeat;
};

static int
want(const char *list, const char *name)
{
	const char *p = list;
	size_t n = strlen(name);

	if (list == NULL)
		return 1;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

/* The op of the k-th run: integers take turns through sum, bxor, max,
 * prod and min (signed or unsigned as the type is), floats through the
 * ops defined on them. */
static unsigned int
op_for(unsigned int dt, unsigned int k)
{
	static const unsigned int int_ops[] = {ACIS_OP_SUM, ACIS_OP_BXOR,
					       ACIS_OP_MAX, ACIS_OP_PROD,
					       ACIS_OP_MIN};
	static const unsigned int fp_ops[] = {ACIS_OP_SUM, ACIS_OP_MIN,
					      ACIS_OP_PROD};

	if (user_op != 0)
		return user_op;
	if (dt == ACIS_FLOAT32 || dt == ACIS_FLOAT64 || dt == ACIS_FLOAT16 ||
	    dt == ACIS_BFLOAT16)
		return fp_ops[k % 3];
	return int_ops[k % 5];
}

/*
 * The collectives again with ACIS_IN_PLACE, each rank's data where MPI's
 * MPI_IN_PLACE puts it: allreduce and reduce, the contribution in the
 * result buffer; scatter, the root's P blocks in its buffer, its own left
 * where it is; gather (root) and allgather, my block at block `me`;
 * reduce_scatter, the P blocks in, my result out at the start;
 * alltoall, the P blocks to send in, the P received out. g and w hold P
 * blocks.
 */
static void
run_in_place(acis_ctx_t *ctx, acis_comm_t *comm, const struct opts *o,
	     unsigned int dt, size_t n, unsigned int op, uint32_t root,
	     const char *tag, uint8_t *g, uint8_t *w)
{
	unsigned int ds = acis_dtype_size(dt);
	uint32_t P = (uint32_t)acis_comm_size(comm);
	uint32_t me = (uint32_t)acis_comm_rank(comm), r;
	size_t blk = n * ds, big = blk * P;
	char what[160];
	int rc;

#define WHAT_IP(c) snprintf(what, sizeof(what), "%s %s in place %s %zu B", \
			    tag, c, acis_dtype_name(dt), blk)
	if (want(o->colls, "allreduce")) {
		WHAT_IP("allreduce");
		fill(dt, me, 0, n, g);
		reference_reduce(dt, op, P, 0, n, w);
		rc = acis_allreduce(ACIS_IN_PLACE, g, n, dt, op, comm);
		check(what, rc, g, w, blk, ctx);
	}
	if (want(o->colls, "reduce")) {
		WHAT_IP("reduce");
		fill(dt, me, 0, n, g);
		reference_reduce(dt, op, P, 0, n, w);
		rc = acis_reduce(ACIS_IN_PLACE, g, n, dt, op, (int)root, comm);
		if (me != root) /* its contribution, untouched */
			fill(dt, me, 0, n, w);
		check(what, rc, g, w, blk, ctx);
	}
	if (want(o->colls, "scatter")) {
		WHAT_IP("scatter");
		memset(g, 0, big);
		if (me == root)
			fill(dt, root, 0, n * P, g);
		rc = acis_scatter(ACIS_IN_PLACE, g, n, dt, (int)root, comm);
		if (me == root) /* every block where it was */
			fill(dt, root, 0, n * P, w);
		else
			fill(dt, root, (uint64_t)me * n, n, w);
		check(what, rc, g, w, me == root ? big : blk, ctx);
	}
	if (want(o->colls, "gather")) {
		WHAT_IP("gather");
		memset(g, 0xa5, big);
		fill(dt, me, 0, n, me == root ? g + (size_t)me * blk : g);
		for (r = 0; r < P; r++)
			fill(dt, r, 0, n, w + (size_t)r * blk);
		rc = acis_gather(ACIS_IN_PLACE, g, n, dt, (int)root, comm);
		check(what, rc, g, w, me == root ? big : 0, ctx);
	}
	if (want(o->colls, "allgather")) {
		WHAT_IP("allgather");
		memset(g, 0xa5, big);
		fill(dt, me, 0, n, g + (size_t)me * blk);
		for (r = 0; r < P; r++)
			fill(dt, r, 0, n, w + (size_t)r * blk);
		rc = acis_allgather(ACIS_IN_PLACE, g, n, dt, comm);
		check(what, rc, g, w, big, ctx);
	}
	if (want(o->colls, "reduce_scatter")) {
		WHAT_IP("reduce_scatter");
		fill(dt, me, 0, n * P, g);
		reference_reduce(dt, op, P, (uint64_t)me * n, n, w);
		rc = acis_reduce_scatter(ACIS_IN_PLACE, g, n, dt, op, comm);
		check(what, rc, g, w, blk, ctx);
	}
	if (want(o->colls, "alltoall")) {
		WHAT_IP("alltoall");
		fill(dt, me, 0, n * P, g);
		for (r = 0; r < P; r++)
			fill(dt, r, (uint64_t)me * n, n, w + (size_t)r * blk);
		rc = acis_alltoall(ACIS_IN_PLACE, g, n, dt, comm);
		check(what, rc, g, w, big, ctx);
	}
#undef WHAT_IP
}

/* All collectives at one size and datatype on comm; world ranks of the
 * comm's members are comm ranks * stride + offset (for split comms). */
static void
run_size(acis_ctx_t *ctx, acis_comm_t *comm, const struct opts *o,
	 unsigned int dt, size_t bytes, unsigned int k, const char *tag)
{
	unsigned int ds = acis_dtype_size(dt);
	size_t n = bytes / ds ? bytes / ds : 1;
	uint32_t P = (uint32_t)acis_comm_size(comm);
	uint32_t me = (uint32_t)acis_comm_rank(comm);
	uint32_t root = (k + 1) % P, r;
	unsigned int op = op_for(dt, k);
	size_t big = n * ds * P;
	uint8_t *s = malloc(big + 64), *g = malloc(big + 64),
		*w = malloc(big + 64);
	char what[160];
	int rc;

	show_dtype = dt;
	fill(dt, me, 0, n, s);
#define WHAT(c) snprintf(what, sizeof(what), "%s %s %s %zu B%s", tag, c, \
			 acis_dtype_name(dt), n * ds, "")
	if (want(o->colls, "allreduce")) {
		WHAT("allreduce");
		reference_reduce(dt, op, P, 0, n, w);
		memset(g, 0xa5, n * ds);
		if (o->nonblocking) {
			acis_req_t *q[2];
			uint8_t *g2 = malloc(n * ds + 8);

			rc = acis_iallreduce(s, g, n, dt, op, comm, &q[0]);
			if (rc == ACIS_OK)
				rc = acis_iallreduce(s, g2, n, dt, op, comm, &q[1]);
			if (rc == ACIS_OK)
				rc = acis_waitall(2, q);
			if (rc == ACIS_OK && memcmp(g, g2, n * ds) != 0)
				rc = ACIS_ERR_STATE;
			free(g2);
		} else {
			rc = acis_allreduce(s, g, n, dt, op, comm);
		}
		check(what, rc, g, w, n * ds, ctx);
	}
	if (want(o->colls, "reduce")) {
		WHAT("reduce");
		reference_reduce(dt, op, P, 0, n, w);
		rc = acis_reduce(s, g, n, dt, op, (int)root, comm);
		check(what, rc, g, w, me == root ? n * ds : 0, ctx);
	}
	if (want(o->colls, "bcast")) {
		WHAT("bcast");
		fill(dt, root, 0, n, w);
		if (me == root)
			memcpy(g, w, n * ds);
		else
			memset(g, 0, n * ds);
		rc = acis_bcast(g, n, dt, (int)root, comm);
		check(what, rc, g, w, n * ds, ctx);
	}
	if (want(o->colls, "scatter")) {
		WHAT("scatter");
		if (me == root)
			fill(dt, root, 0, n * P, w);
		rc = acis_scatter(w, g, n, dt, (int)root, comm);
		fill(dt, root, (uint64_t)me * n, n, w);
		check(what, rc, g, w, n * ds, ctx);
	}
	if (want(o->colls, "gather")) {
		WHAT("gather");
		for (r = 0; r < P; r++)
			fill(dt, r, 0, n, w + (size_t)r * n * ds);
		memset(g, 0, big);
		rc = acis_gather(s, g, n, dt, (int)root, comm);
		check(what, rc, g, w, me == root ? big : 0, ctx);
	}
	if (want(o->colls, "allgather")) {
		WHAT("allgather");
		for (r = 0; r < P; r++)
			fill(dt, r, 0, n, w + (size_t)r * n * ds);
		memset(g, 0, big);
		rc = acis_allgather(s, g, n, dt, comm);
		check(what, rc, g, w, big, ctx);
	}
	if (want(o->colls, "reduce_scatter")) {
		uint8_t *s2 = malloc(big + 64);

		WHAT("reduce_scatter");
		fill(dt, me, 0, n * P, s2);
		reference_reduce(dt, op, P, (uint64_t)me * n, n, w);
		rc = acis_reduce_scatter(s2, g, n, dt, op, comm);
		check(what, rc, g, w, n * ds, ctx);
		free(s2);
	}
	if (want(o->colls, "alltoall")) {
		/* rank i sends block j of its sequence to rank j: I get
		 * elements [me * n, me * n + n) of every rank's, in rank order */
		uint8_t *s2 = malloc(big + 64);

		WHAT("alltoall");
		fill(dt, me, 0, n * P, s2);
		for (r = 0; r < P; r++)
			fill(dt, r, (uint64_t)me * n, n, w + (size_t)r * n * ds);
		memset(g, 0, big);
		if (o->nonblocking) {
			acis_req_t *q;

			rc = acis_ialltoall(s2, g, n, dt, comm, &q);
			if (rc == ACIS_OK)
				rc = acis_wait(&q);
		} else {
			rc = acis_alltoall(s2, g, n, dt, comm);
		}
		check(what, rc, g, w, big, ctx);
		free(s2);
	}
	if (o->in_place)
		run_in_place(ctx, comm, o, dt, n, op, root, tag, g, w);
	if (want(o->colls, "barrier")) {
		WHAT("barrier");
		check(what, acis_barrier(comm), NULL, NULL, 0, ctx);
	}
	free(s);
	free(g);
	free(w);
}

static void
run_all(acis_ctx_t *ctx, acis_comm_t *comm, const struct opts *o,
	const char *tag)
{
	static const unsigned int dts[] = {ACIS_FLOAT32, ACIS_INT32,
		ACIS_FLOAT64, ACIS_INT64, ACIS_UINT32, ACIS_UINT64,
		ACIS_FLOAT16, ACIS_BFLOAT16, ACIS_INT8, ACIS_UINT8,
		ACIS_INT16, ACIS_UINT16};
	unsigned int i, d, k = 0;

	for (d = 0; d < sizeof(dts) / sizeof(dts[0]); d++) {
		if (!want(o->dtypes, acis_dtype_name(dts[d])))
			continue;
		if (user_op != 0 && (dts[d] == ACIS_FLOAT16 ||
				     dts[d] == ACIS_BFLOAT16))
			continue; /* a user op folds bytes: no widening */
		for (i = 0; i < o->n_sizes; i++)
			run_size(ctx, comm, o, dts[d], o->sizes[i], k++, tag);
	}
}

/* Wait for the management-made communicator named in the file, then use
 * it if this world rank is a member. */
static void
run_attached(acis_ctx_t *ctx, const struct acis_config *cfg,
	     const struct opts *o)
{
	char ranks[4096], *tok, *save;
	unsigned int id = 0;
	int32_t *map = NULL;
	uint32_t k;
	int member = 0, tries, rc;
	acis_comm_t *c = NULL;
	FILE *f = NULL;

	for (tries = 0; tries < 300 && f == NULL; tries++) {
		f = fopen(o->attach, "r");
		if (f == NULL) {
			struct timespec ts = {0, 100000000};

			nanosleep(&ts, NULL);
		}
	}
	if (f == NULL || fscanf(f, "%u %4095s", &id, ranks) != 2) {
		printf("FAIL attach: no communicator in %s\n", o->attach);
		failed++;
		if (f != NULL)
			fclose(f);
		return;
	}
	fclose(f);
	/* with --fold, the reference folds as the communicator's own tree:
	 * the world's restricted to its members, ranked in the file's order */
	map = calloc(cfg->size, sizeof(*map));
	for (k = 0; map != NULL && k < cfg->size; k++)
		map[k] = -1;
	k = 0;
	for (tok = strtok_r(ranks, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t w = (uint32_t)strtoul(tok, NULL, 10);

		member |= w == cfg->rank;
		if (map != NULL && w < cfg->size)
			map[w] = (int32_t)k;
		k++;
	}
	rc = acis_comm_attach(ctx, id, &c);
	if (!member) {
		/* the switch must say we are not in it */
		check("attach as a non-member is refused",
		      rc == ACIS_ERR_REFUSED ? ACIS_OK : ACIS_ERR_STATE, NULL,
		      NULL, 0, ctx);
		free(map);
		return;
	}
	check("attach to the management-made communicator", rc, NULL, NULL,
	      0, ctx);
	if (rc == ACIS_OK) {
		fold_use(map);
		run_all(ctx, c, o, "attached");
		fold_use(NULL);
	}
	free(map);
	/* the management side frees it; the handle is ours to drop */
	acis_comm_detach(&c);
}

/* --op-program: the op made at the switch (every rank the same) and
 * here, for the reference. 0, or -1 with the failure said. */
static int
user_op_make(acis_ctx_t *ctx, const char *path, const char *name)
{
	struct acis_userop_spec sp = {.commutative = 1};
	char err[1024], base[ACIS_OP_NAME_LEN];
	const char *b = strrchr(path, '/');
	enum acis_op op;
	uint32_t *w;
	size_t n;
	int rc;

	if (acis_cgra_read_program(path, &w, &n, err, sizeof(err)) != 0) {
		printf("FAIL --op-program: %s\n", err);
		failed++;
		return -1;
	}
	if (name == NULL) {
		snprintf(base, sizeof(base), "%s", b != NULL ? b + 1 : path);
		base[strcspn(base, ".")] = '\0';
		name = base;
	}
	sp.name = name;
	sp.words = w;
	sp.n_words = n;
	if (acis_userop_create(&sp, &user_ref, err, sizeof(err)) != 0) {
		printf("FAIL the reference's op: %s\n", err);
		failed++;
		free(w);
		return -1;
	}
	rc = acis_op_create(ctx, name, w, n, 1, &op);
	free(w);
	check("op create", rc, NULL, NULL, 0, ctx);
	if (rc != ACIS_OK)
		return -1;
	user_op = (unsigned int)op;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"switch", required_argument, NULL, 's'},
		{"job", required_argument, NULL, 'j'},
		{"rank", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 'n'},
		{"sizes", required_argument, NULL, 'z'},
		{"colls", required_argument, NULL, 'c'},
		{"dtypes", required_argument, NULL, 'd'},
		{"timeout", required_argument, NULL, 't'},
		{"split", no_argument, NULL, 'S'},
		{"nonblocking", no_argument, NULL, 'N'},
		{"in-place", no_argument, NULL, 'I'},
		{"show", no_argument, NULL, 'V'},
		{"times", no_argument, NULL, 'T'},
		{"attach", required_argument, NULL, 'A'},
		{"repeat", required_argument, NULL, 'R'},
		{"keep-going", no_argument, NULL, 'K'},
		{"fold", required_argument, NULL, 'F'},
		{"op-program", required_argument, NULL, 'P'},
		{"op-name", required_argument, NULL, 'O'},
		{NULL, 0, NULL, 0},
	};
	struct acis_config cfg;
	struct opts o = {.colls = NULL, .dtypes = "float32,int32"};
	const char *op_program = NULL, *op_name = NULL;
	acis_ctx_t *ctx;
	int c, rc;
	char *tok, *save;

	acis_config_default(&cfg);
	o.sizes[0] = 4;
	o.sizes[1] = 4096;
	o.n_sizes = 2;
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
		case 'z':
			o.n_sizes = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && o.n_sizes < 64;
			     tok = strtok_r(NULL, ",", &save))
				o.sizes[o.n_sizes++] = strtoull(tok, NULL, 0);
			break;
		case 'c':
			o.colls = optarg;
			break;
		case 'd':
			o.dtypes = optarg;
			break;
		case 'S':
			o.split = 1;
			break;
		case 'N':
			o.nonblocking = 1;
			break;
		case 'I':
			o.in_place = 1;
			break;
		case 'V':
			show = 1;
			break;
		case 'T':
			times = 1;
			break;
		case 'A':
			o.attach = optarg;
			break;
		case 'R':
			o.repeat = strtoul(optarg, NULL, 0);
			break;
		case 'K':
			keep_going = 1;
			break;
		case 'F':
			if (fold_load(optarg) != 0) {
				fprintf(stderr, "acis-coll-check: --fold: "
					"expected a tree of the ranks 0..P-1, "
					"each once, like ((0,1),(2,3)); found "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case 'P':
			op_program = optarg;
			break;
		case 'O':
			op_name = optarg;
			break;
		default:
			fprintf(stderr, "usage: see the comment in acis-coll-check.c\n");
			return 2;
		}
	}
	rc = acis_init(&cfg, &ctx);
	if (rc != ACIS_OK) {
		fprintf(stderr, "rank %u: acis_init: %s\n", cfg.rank,
			acis_init_error());
		printf("0 passed, 1 failed\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	if (op_program != NULL &&
	    user_op_make(ctx, op_program, op_name) != 0) {
		acis_finalize(ctx);
		printf("%u passed, %u failed\n", passed, failed);
		return 1;
	}
	do {
		unsigned int f0 = failed;

		fold_use(NULL);
		run_all(ctx, acis_comm_world(ctx), &o, "world");
		fold_active = 0;
		passes_since_fail = failed != f0 ? 0 : passes_since_fail + 1;
		if (failed != 0 && passes_since_fail > best_after_fail)
			best_after_fail = passes_since_fail;
	} while (o.repeat > 1 && --o.repeat > 0 &&
		 (failed == 0 || keep_going));
	if (o.attach != NULL)
		run_attached(ctx, &cfg, &o);
	if (o.split && cfg.size >= 2) {
		acis_comm_t *half = NULL, *none = NULL;

		/* Even and odd world ranks, reversed order by key. */
		rc = acis_comm_split(acis_comm_world(ctx), (int)(cfg.rank % 2),
				     -(int)cfg.rank, &half);
		check("split even/odd", rc, NULL, NULL, 0, ctx);
		if (rc == ACIS_OK && half != NULL) {
			uint32_t want_size = (cfg.size + 1 - cfg.rank % 2) / 2;

			if ((uint32_t)acis_comm_size(half) != want_size) {
				printf("FAIL split size %d, want %u\n",
				       acis_comm_size(half), want_size);
				failed++;
			}
			if (fold_map != NULL) {
				/* its ranks: the world's of my parity, by key
				 * -rank (the highest first) */
				int32_t *map = malloc(cfg.size * sizeof(*map));
				uint32_t w, i = 0;

				for (w = cfg.size; map != NULL && w-- > 0;)
					map[w] = w % 2 == cfg.rank % 2 ?
							 (int32_t)i++ : -1;
				if (map != NULL && fold_ranks == cfg.size)
					fold_use(map);
				free(map);
			}
			run_all(ctx, half, &o, cfg.rank % 2 ? "odd" : "even");
			fold_active = 0;
			check("comm free", acis_comm_free(&half), NULL, NULL,
			      0, ctx);
		}
		/* Only rank 0 gets a communicator; the rest get none. */
		rc = acis_comm_split(acis_comm_world(ctx),
				     cfg.rank == 0 ? 5 : ACIS_UNDEFINED, 0, &none);
		check("split with undefined color", rc, NULL, NULL, 0, ctx);
		if (rc == ACIS_OK && (cfg.rank == 0) != (none != NULL)) {
			printf("FAIL undefined color gave the wrong comm\n");
			failed++;
		}
		if (none != NULL) {
			check("single-rank allreduce", acis_allreduce(
				      (int32_t[]){7}, (int32_t[]){0}, 1, ACIS_INT32,
				      ACIS_OP_SUM, none), NULL, NULL, 0, ctx);
			acis_comm_free(&none);
		}
	}
	{
		struct acis_client_stats st;

		acis_get_stats(ctx, &st);
		printf("messages sent %llu, received %llu, retransmitted %llu, "
		       "segmented sends %llu%s, "
		       "faults injected: %llu dropped, %llu duplicated, "
		       "%llu reordered, forged answers rejected %llu\n",
		       (unsigned long long)st.msgs_sent,
		       (unsigned long long)st.msgs_received,
		       (unsigned long long)st.retransmits,
		       (unsigned long long)st.gso_sends,
		       st.gso_refused ? " (refused by the kernel)" : "",
		       (unsigned long long)st.faults_dropped,
		       (unsigned long long)st.faults_duplicated,
		       (unsigned long long)st.faults_reordered,
		       (unsigned long long)st.auth_rejected);
	}
	if (user_op != 0) {
		check("op free", acis_op_free(ctx, (enum acis_op)user_op), NULL,
		      NULL, 0, ctx);
		acis_userop_free(user_ref);
	}
	rc = acis_finalize(ctx);
	if (rc != ACIS_OK && failed == 0) {
		/* a job that already failed may not meet for the last barrier */
		printf("FAIL finalize: %s\n", acis_strerror(rc));
		failed++;
	}
	if (keep_going && failed != 0)
		printf("%u rounds on the world passed after the last failure, "
		       "%u in a row at most after a failure\n",
		       passes_since_fail, best_after_fail);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
