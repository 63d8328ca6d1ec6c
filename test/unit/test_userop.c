/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/userop: the fold contract of user-defined reduction operators,
 * with the shipped example programs as ops: results against plain C,
 * the same bits in every order for an op that is commutative and
 * associative, the rank order a saturating sum needs, registers that do
 * not carry from one fold to the next, and every failure naming its op. */
#include <errno.h>
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
#include "acis_userop.h"

static char err[512];

static struct acis_userop *
make_src(const char *name, const char *src, const void *consts,
	 size_t consts_len, uint64_t budget)
{
	struct acis_userop_spec sp = {
		.name = name, .consts = consts, .consts_len = consts_len,
		.commutative = 1, .budget = budget,
	};
	struct acis_userop *op;
	uint32_t *w;
	size_t n;

	if (acis_cgra_asm(src, name, &w, &n, err, sizeof(err)) != 0)
		fail_msg("assembler: %s", err);
	sp.words = w;
	sp.n_words = n;
	if (acis_userop_create(&sp, &op, err, sizeof(err)) != 0)
		fail_msg("create: %s", err);
	free(w);
	return op;
}

static struct acis_userop *
make_example(const char *file, const void *consts, size_t consts_len)
{
	char path[512];
	uint8_t *buf;
	size_t len;
	struct acis_userop *op;

	snprintf(path, sizeof(path), "%s/%s", ACIS_EXAMPLES_DIR, file);
	if (acis_cgra_read_file(path, &buf, &len, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	op = make_src(file, (const char *)buf, consts, consts_len, 0);
	free(buf);
	return op;
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Four ranks' uint8 vectors folded in rank order by satsum_u8.s, and
 * int8 by satsum_i8.s: what a loop in C gives; a fold of a length
 * that is not whole words too. */
static void
test_saturating_sums_fold_in_rank_order_as_c_does(void **state)
{
	static uint8_t v[4][1501], acc[1501], want[1501];
	uint64_t s = 5;
	unsigned int k, r, i;

	(void)state;
	for (r = 0; r < 4; r++)
		for (i = 0; i < 1501; i++)
			v[r][i] = (uint8_t)rnd(&s);
	for (k = 0; k < 2; k++) {
		struct acis_userop *op = make_example(
			k ? "satsum_i8.s" : "satsum_u8.s", NULL, 0);

		memcpy(acc, v[0], sizeof(acc));
		memcpy(want, v[0], sizeof(want));
		for (r = 1; r < 4; r++) {
			assert_int_equal(acis_userop_fold(op, acc, v[r], 1501,
							  err, sizeof(err)), 0);
			for (i = 0; i < 1501; i++) {
				int x = k ? (int8_t)want[i] + (int8_t)v[r][i] :
					    want[i] + v[r][i];

				x = k ? (x > 127 ? 127 : x < -128 ? -128 : x) :
					(x > 255 ? 255 : x);
				want[i] = (uint8_t)x;
			}
		}
		assert_memory_equal(acc, want, sizeof(acc));
		acis_userop_free(op);
	}
	/* not associative: (100 + 100) - 100 clamps, 100 + (100 - 100)
	 * does not; the order is the caller's to fix (rank order) */
	{
		struct acis_userop *op = make_example("satsum_i8.s", NULL, 0);
		int8_t a[4] = {100, 0, 0, 0}, b[4] = {100, 0, 0, 0};
		int8_t c[4] = {-100, 0, 0, 0}, t[4];

		memcpy(t, a, 4);
		acis_userop_fold(op, t, b, 4, err, sizeof(err));
		acis_userop_fold(op, t, c, 4, err, sizeof(err));
		assert_int_equal(t[0], 27);
		memcpy(t, b, 4);
		acis_userop_fold(op, t, c, 4, err, sizeof(err));
		acis_userop_fold(op, t, a, 4, err, sizeof(err));
		assert_int_equal(t[0], 100);
		acis_userop_free(op);
	}
}

/* MAXLOC over five contributions with ties and NaNs: every one of the
 * 120 orders gives the same bits, the MPI answer. */
static void
test_maxloc_gives_the_same_bits_in_every_order(void **state)
{
	/* 3 pairs a contribution: value, index */
	static const uint32_t v[5][6] = {
		{0x40000000, 4, 0x7fc00000, 0, 0x80000000, 2},
		{0x40000000, 1, 0xbf800000, 3, 0x00000000, 2},
		{0x3f800000, 0, 0x7fc00001, 9, 0x80000000, 1},
		{0x40000000, 2, 0xc0000000, 8, 0x00000000, 7},
		{0xff800000, 3, 0x7fc00000, 5, 0x00000000, 0},
	};
	static const uint32_t want[6] = {0x40000000, 1, 0xbf800000, 3,
					 0x00000000, 0};
	struct acis_userop *op = make_example("maxloc.s", NULL, 0);
	unsigned int p[5], i, n = 0, a, b, c, d;
	uint32_t acc[6];

	(void)state;
	for (a = 0; a < 5; a++)
		for (b = 0; b < 5; b++)
			for (c = 0; c < 5; c++)
				for (d = 0; d < 5; d++) {
					unsigned int e = 10 - a - b - c - d;

					if (a == b || a == c || a == d ||
					    b == c || b == d || c == d ||
					    e > 4 || e == a || e == b ||
					    e == c || e == d)
						continue;
					p[0] = a, p[1] = b, p[2] = c, p[3] = d,
					p[4] = e;
					memcpy(acc, v[p[0]], sizeof(acc));
					for (i = 1; i < 5; i++)
						assert_int_equal(acis_userop_fold(
							op, acc, v[p[i]],
							sizeof(acc), err,
							sizeof(err)), 0);
					assert_memory_equal(acc, want,
							    sizeof(acc));
					n++;
				}
	assert_int_equal(n, 120);
	acis_userop_free(op);
}

/* madd.s with its factor as the op's constant: acc = fmaf(a, x, acc). */
static void
test_multiply_add_reads_its_constant(void **state)
{
	const float a = -0.75f;
	float acc[300], x[300], want[300];
	struct acis_userop *op = make_example("madd.s", &a, sizeof(a));
	unsigned int i, k;
	uint64_t s = 9;

	(void)state;
	for (i = 0; i < 300; i++)
		acc[i] = want[i] = (float)i / 3.0f;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 300; i++) {
			x[i] = (float)(rnd(&s) % 1000) / 9.0f;
			want[i] = fmaf(a, x[i], want[i]);
		}
		assert_int_equal(acis_userop_fold(op, acc, x, sizeof(x), err,
						  sizeof(err)), 0);
	}
	assert_memory_equal(acc, want, sizeof(acc));
	acis_userop_free(op);
}

/* A fold starts with the registers cleared: a program that adds to x5
 * and streams from there gives the same answer every time. */
static void
test_registers_do_not_carry_from_fold_to_fold(void **state)
{
	/* x5 += 4 (so 4 each fold, not 4, 8, ...); stream the 4 accumulator
	 * bytes at offset x5 - 4, i.e. 0 */
	struct acis_userop *op = make_src("carry",
		"addi x5, x5, 4\naddi x6, x5, -4\nvsetivli x0, 1, e32, m1\n"
		"vle32.v v1, (x6)\nvadd.i32 v1, sin\nstreamout.v v1\nwfi\n",
		NULL, 0, 0);
	uint32_t acc = 1, one = 1;
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++)
		assert_int_equal(acis_userop_fold(op, &acc, &one, 4, err,
						  sizeof(err)), 0);
	assert_int_equal(acc, 6);
	acis_userop_free(op);
}

/* Every failure says which op: a refused program, a fault, the budget,
 * a wrong length; the accumulator is left as it was. */
static void
test_failures_name_the_op_and_leave_the_accumulator(void **state)
{
	struct acis_userop_spec sp = {0};
	struct acis_userop *op;
	uint32_t acc[2] = {7, 7}, x[2] = {1, 1}, w[2] = {0x0000232b,
							   0x10500073};

	(void)state;
	sp.name = "nocfg";
	sp.words = w;
	sp.n_words = 2;
	assert_int_equal(acis_userop_create(&sp, &op, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_string_equal(err, "op nocfg: instruction 0 (vadd.i32): vector "
			    "instruction reached before any vsetivli (on some "
			    "path)");
	assert_null(op);
	sp.name = "";
	assert_int_equal(acis_userop_create(&sp, &op, err, sizeof(err)),
			 -EINVAL);
	sp.name = "x";
	sp.consts_len = ACIS_USEROP_CONST_MAX + 1;
	sp.consts = acc;
	assert_int_equal(acis_userop_create(&sp, &op, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "op x: its constants are more than 64 KiB");
	/* a load past bank 1 */
	op = make_src("far", "lui x5, 0x20\nvsetivli x0, 2, e32, m1\n"
		      "vle32.v v1, (x5)\nstreamout.v v1\nwfi\n", NULL, 0, 0);
	assert_int_equal(acis_userop_fold(op, acc, x, 8, err, sizeof(err)),
			 ACIS_CGRA_E_MEM);
	assert_string_equal(err, "op far: instruction 2 (vle32.v): bank 1 "
			    "bytes 131072..131080 (base 0) outside its 131072 "
			    "bytes");
	assert_int_equal(acc[0], 7);
	acis_userop_free(op);
	/* a loop that never ends, within a budget of 1000 */
	op = make_src("spin", "loop:\naddi x5, x5, 1\nbne x5, x0, loop\nwfi\n",
		      NULL, 0, 1000);
	assert_int_equal(acis_userop_fold(op, acc, x, 8, err, sizeof(err)),
			 ACIS_CGRA_E_BUDGET);
	assert_string_equal(err, "op spin: instruction 0 (addi): instruction "
			    "budget of 1000 exhausted");
	acis_userop_free(op);
	/* half the answer */
	op = make_src("half", "vsetivli x0, 1, e32, m1\nvle32.v v1, (x0)\n"
		      "streamout.v v1\nwfi\n", NULL, 0, 0);
	assert_int_equal(acis_userop_fold(op, acc, x, 8, err, sizeof(err)),
			 ACIS_CGRA_E_PKTLEN);
	assert_string_equal(err, "op half: the program answered 4 bytes for 8 "
			    "(a fold answers the accumulator's length)");
	assert_int_equal(acc[0], 7);
	{
		uint64_t folds, faults;

		acis_userop_counts(op, &folds, &faults);
		assert_int_equal(folds, 1);
		assert_int_equal(faults, 1);
	}
	assert_int_equal(acis_userop_fold(op, acc, x, 0, err, sizeof(err)),
			 -EINVAL);
	acis_userop_free(op);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_saturating_sums_fold_in_rank_order_as_c_does),
		cmocka_unit_test(test_maxloc_gives_the_same_bits_in_every_order),
		cmocka_unit_test(test_multiply_add_reads_its_constant),
		cmocka_unit_test(test_registers_do_not_carry_from_fold_to_fold),
		cmocka_unit_test(
			test_failures_name_the_op_and_leave_the_accumulator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
