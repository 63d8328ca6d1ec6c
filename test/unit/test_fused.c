/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fused: the fused collective unit with the shipped ops of
 * examples/cgra/fused run on this host's CGRA (lib/userop's map), every
 * pattern against plain C, and every refusal and fault saying what and
 * naming the rank or the op. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_cgra.h"
#include "acis_fused.h"
#include "acis_userop.h"

#define P 4
#define MAP 130

static char err[512];
static struct acis_userop *op;

static int
host_map(void *arg, uint32_t rank, unsigned int map, const void *in,
	 size_t in_len, const void *inbound, size_t ib_len, const void *own,
	 size_t own_len, void *out, size_t cap, size_t *out_len, char *e,
	 size_t elen)
{
	(void)arg;
	(void)rank;
	(void)map;
	return acis_userop_map(op, in, in_len, inbound, ib_len, own, own_len,
			       out, cap, out_len, e, elen);
}

static void
load(const char *name, const char *src)
{
	char path[512];
	uint32_t *w;
	size_t n;
	struct acis_userop_spec sp = {.name = name};

	if (src == NULL) {
		snprintf(path, sizeof(path), "%s/%s.s", ACIS_EXAMPLES_DIR, name);
		assert_int_equal(acis_cgra_asm_file(path, &w, &n, err,
						    sizeof(err)), 0);
	} else {
		assert_int_equal(acis_cgra_asm(src, name, &w, &n, err,
					       sizeof(err)), 0);
	}
	sp.words = w;
	sp.n_words = n;
	acis_userop_free(op);
	assert_int_equal(acis_userop_create(&sp, &op, err, sizeof(err)), 0);
	free(w);
}

/* Messages: prefix, block, inbound, as the host library builds them. */
struct msgs {
	uint8_t *m[P];
	uint64_t len[P];
};

static void
build(struct msgs *ms, uint32_t r, const void *blk, uint32_t blen,
      const void *ib, uint32_t iblen, uint32_t out)
{
	struct acis_fused_prefix pre = {blen, iblen, out, MAP};

	ms->len[r] = ACIS_FUSED_PREFIX + blen + iblen;
	ms->m[r] = malloc(ms->len[r]);
	assert_non_null(ms->m[r]);
	acis_fused_prefix_write(ms->m[r], &pre);
	if (blen != 0)
		memcpy(ms->m[r] + ACIS_FUSED_PREFIX, blk, blen);
	if (iblen != 0)
		memcpy(ms->m[r] + ACIS_FUSED_PREFIX + blen, ib, iblen);
}

static int
run(unsigned int pattern, unsigned int dtype, unsigned int opc,
    uint32_t root, struct msgs *ms, struct acis_fused_ws *ws)
{
	struct acis_fused_call c = {
		.pattern = pattern, .dtype = dtype, .op = opc, .root = root,
		.size = P, .msg = (const uint8_t *const *)ms->m,
		.msg_len = ms->len,
	};

	err[0] = '\0';
	return acis_fused_run(ws, &c, host_map, NULL, err, sizeof(err));
}

static void
msgs_free(struct msgs *ms)
{
	for (int r = 0; r < P; r++)
		free(ms->m[r]);
	memset(ms, 0, sizeof(*ms));
}

static void
test_prefix(void **state)
{
	struct acis_fused_prefix a = {100, 20, 8, 200}, b;
	uint8_t m[ACIS_FUSED_PREFIX];

	(void)state;
	acis_fused_prefix_write(m, &a);
	assert_int_equal(acis_fused_prefix_read(m, 136, &b), 0);
	assert_int_equal(b.block, 100);
	assert_int_equal(b.inbound, 20);
	assert_int_equal(b.out, 8);
	assert_int_equal(b.map, 200);
	assert_int_equal(acis_fused_prefix_read(m, 137, &b), -1);
	m[14] = 1;
	assert_int_equal(acis_fused_prefix_read(m, 136, &b), -1);
	assert_string_equal(acis_fused_name(ACIS_FUSED_SCATTER_OP_REDUCE),
			    "scatter_op_reduce");
	assert_int_equal(acis_fused_parse("allreduce_op_alltoall"),
			 ACIS_FUSED_ALLREDUCE_OP_ALLTOALL);
	assert_int_equal(acis_fused_parse("allreduce"), 0);
}

/* allreduce_op_allreduce with gmres_norm: small-integer data, so every
 * sum is exact and only sqrt and the division round, once each. */
static void
test_gmres(void **state)
{
	struct acis_fused_ws *ws = *state;
	static float ib[P][4096];
	struct msgs ms = {0};
	float s[P], R = 0, h = 0;
	const uint8_t *res;
	uint32_t len;
	int r, j;

	load("gmres_norm", NULL);
	for (r = 0; r < P; r++) {
		s[r] = 0;
		for (j = 0; j < 4096; j++)
			ib[r][j] = (float)((r * 7 + j * 13) % 9 - 4);
		for (j = 0; j < 4096; j++)
			if (j % 256 < 128)
				s[r] += ib[r][j] * ib[r][j];
		R += s[r];
		build(&ms, r, &s[r], 4, ib[r], sizeof(ib[r]), 4);
	}
	for (r = 0; r < P; r++) {
		float d = 0;

		for (j = 0; j < 4096; j++)
			if (j % 256 < 128)
				d += ib[r][j] * ib[r][j + 128];
		h += d / sqrtf(R);
	}
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE, ACIS_FLOAT32,
			     ACIS_OP_SUM, ACIS_RANK_NONE, &ms, ws), 0);
	for (r = 0; r < P; r++) {
		res = acis_fused_result(ws, r, &len);
		assert_int_equal(len, 4);
		assert_memory_equal(res, &h, 4);
	}
	msgs_free(&ms);
}

/* allgather_op with pagerank_mac: fused multiply-adds in order. */
static void
test_pagerank(void **state)
{
	struct acis_fused_ws *ws = *state;
	float x[P][32], a[P][128];
	struct msgs ms = {0};
	const uint8_t *res;
	uint32_t len;
	int r, j;

	load("pagerank_mac", NULL);
	for (r = 0; r < P; r++) {
		for (j = 0; j < 32; j++)
			x[r][j] = (float)(r * 32 + j) / 7.0f - 9.0f;
		for (j = 0; j < 128; j++)
			a[r][j] = (float)((r + 3) * (j + 1) % 17) / 3.0f;
		build(&ms, r, x[r], sizeof(x[r]), a[r], sizeof(a[r]), 4);
	}
	assert_int_equal(run(ACIS_FUSED_ALLGATHER_OP, ACIS_FLOAT32,
			     ACIS_OP_NONE, ACIS_RANK_NONE, &ms, ws), 0);
	for (r = 0; r < P; r++) {
		const float *xs = &x[0][0];
		float want = 0;

		for (j = 0; j < 128; j++)
			want = fmaf(xs[j], a[r][j], want);
		res = acis_fused_result(ws, r, &len);
		assert_int_equal(len, 4);
		assert_memory_equal(res, &want, 4);
	}
	msgs_free(&ms);
}

/* scatter_op_reduce with block_sum: the root only gets the sum. */
static void
test_scatter_reduce(void **state)
{
	struct acis_fused_ws *ws = *state;
	static int32_t blocks[P * 500];
	struct msgs ms = {0};
	uint32_t want = 0, len;
	const uint8_t *res;
	int r, j;

	load("block_sum", NULL);
	for (j = 0; j < P * 500; j++) {
		blocks[j] = (int32_t)(j * 2654435761u);
		want += (uint32_t)blocks[j];
	}
	for (r = 0; r < P; r++)
		build(&ms, r, blocks, r == 2 ? sizeof(blocks) : 0, NULL, 0, 4);
	assert_int_equal(run(ACIS_FUSED_SCATTER_OP_REDUCE, ACIS_INT32,
			     ACIS_OP_SUM, 2, &ms, ws), 0);
	for (r = 0; r < P; r++) {
		res = acis_fused_result(ws, r, &len);
		assert_int_equal(len, r == 2 ? 4 : 0);
	}
	res = acis_fused_result(ws, 2, &len);
	assert_memory_equal(res, &want, 4);
	msgs_free(&ms);
}

/* allreduce_op_alltoall with is_counts: rank j gets group block j of
 * every rank's counts; allreduce_op with block_sum. */
static void
test_is_and_allreduce_op(void **state)
{
	struct acis_fused_ws *ws = *state;
	static int32_t L[P][1024], sum[512];
	struct msgs ms = {0};
	const uint8_t *res;
	uint32_t len, want;
	int r, j, g;

	load("is_counts", NULL);
	for (r = 0; r < P; r++) {
		for (j = 0; j < 1024; j++)
			L[r][j] = (r * 31 + j * 7) % 100;
		build(&ms, r, L[r], sizeof(L[r]), NULL, 0, 64);
	}
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP_ALLTOALL, ACIS_INT32,
			     ACIS_OP_SUM, ACIS_RANK_NONE, &ms, ws), 0);
	for (r = 0; r < P; r++) {
		const int32_t *got = (const int32_t *)acis_fused_result(ws, r,
									&len);

		assert_int_equal(len, 64);
		for (j = 0; j < P; j++)
			for (g = 0; g < 4; g++) {
				int32_t c = 0;
				int b;

				for (b = 0; b < 64; b++)
					c += L[j][(r * 4 + g) * 64 + b];
				assert_int_equal(got[j * 4 + g], c);
			}
	}
	msgs_free(&ms);

	load("block_sum", NULL);
	want = 0;
	for (r = 0; r < P; r++)
		build(&ms, r, L[r], 2048, NULL, 0, 4);
	for (j = 0; j < 512; j++) {
		sum[j] = 0;
		for (r = 0; r < P; r++)
			sum[j] += L[r][j];
		want += (uint32_t)sum[j];
	}
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_INT32, ACIS_OP_SUM,
			     ACIS_RANK_NONE, &ms, ws), 0);
	res = acis_fused_result(ws, 3, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(res, &want, 4);
	msgs_free(&ms);
}

/* What is refused, and what the op's failures say. */
static void
test_errors(void **state)
{
	struct acis_fused_ws *ws = *state;
	int32_t blk[64] = {0};
	struct msgs ms = {0};
	int r;

	load("block_sum", NULL);
	/* a rank naming another output length */
	for (r = 0; r < P; r++)
		build(&ms, r, blk, sizeof(blk), NULL, 0, r == 3 ? 8 : 4);
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_INT32, ACIS_OP_SUM,
			     ACIS_RANK_NONE, &ms, ws), ACIS_FUSED_E_ARGS);
	assert_non_null(strstr(err, "rank 3"));
	msgs_free(&ms);
	/* blocks of different lengths */
	for (r = 0; r < P; r++)
		build(&ms, r, blk, r == 1 ? 128 : 256, NULL, 0, 4);
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_INT32, ACIS_OP_SUM,
			     ACIS_RANK_NONE, &ms, ws), ACIS_FUSED_E_ARGS);
	assert_non_null(strstr(err, "rank 1's block is 128 bytes"));
	msgs_free(&ms);
	/* a scatter root whose bytes are not P blocks */
	for (r = 0; r < P; r++)
		build(&ms, r, blk, r == 0 ? 36 : 0, NULL, 0, 4);
	assert_int_equal(run(ACIS_FUSED_SCATTER_OP_REDUCE, ACIS_INT32,
			     ACIS_OP_SUM, 0, &ms, ws), ACIS_FUSED_E_ARGS);
	assert_non_null(strstr(err, "not 4 blocks"));
	msgs_free(&ms);
	/* a bitwise op on floats */
	for (r = 0; r < P; r++)
		build(&ms, r, blk, 16, NULL, 0, 4);
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_FLOAT32,
			     ACIS_OP_BXOR, ACIS_RANK_NONE, &ms, ws),
			 ACIS_FUSED_E_ARGS);
	/* the op answering another length than the call names */
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE, ACIS_INT32,
			     ACIS_OP_SUM, ACIS_RANK_NONE, &ms, ws), 0);
	msgs_free(&ms);
	for (r = 0; r < P; r++)
		build(&ms, r, blk, 16, NULL, 0, 8);
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_INT32, ACIS_OP_SUM,
			     ACIS_RANK_NONE, &ms, ws), ACIS_FUSED_E_MAP);
	assert_non_null(strstr(err, "rank 0: op 130 answered 4 bytes, the "
				    "call names 8"));
	msgs_free(&ms);
	/* an op that faults: its message names it */
	load("far", "\tlui x5, 0x40\n\tvsetivli x0, 4, e32, m1\n"
		    "\tvle32.v v1, (x5)\n\tstreamout.v v1\n\twfi\n");
	for (r = 0; r < P; r++)
		build(&ms, r, blk, 16, NULL, 0, 16);
	assert_int_equal(run(ACIS_FUSED_ALLREDUCE_OP, ACIS_INT32, ACIS_OP_SUM,
			     ACIS_RANK_NONE, &ms, ws), ACIS_FUSED_E_MAP);
	assert_non_null(strstr(err, "op far: instruction 2 (vle32.v)"));
	msgs_free(&ms);
}

static int
setup(void **state)
{
	*state = acis_fused_ws_new();
	return *state == NULL;
}

static int
teardown(void **state)
{
	acis_fused_ws_free(*state);
	acis_userop_free(op);
	op = NULL;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_gmres),
		cmocka_unit_test(test_pagerank),
		cmocka_unit_test(test_scatter_reduce),
		cmocka_unit_test(test_is_and_allreduce_op),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
