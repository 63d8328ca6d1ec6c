/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_cgra, the look-aside CGRA (doc/cgra-isa.md): the
 * semantics of every instruction with their corners (VLMAX sentinels,
 * grouping limits, loops, streams that end mid-vector), every refusal of
 * the loader with its message, the run-time checks (budget, banks, VRF,
 * output room), the control block, pass-through, idle-tile counting, the
 * assembler's round trips and error messages, each example handler of
 * examples/cgra against plain C on generated data, and the reading of
 * program files (.bin words, else text).
 *
 * Floating-point results are compared bit for bit: the library and this
 * file are built with -ffp-contract=off and the references add and fuse
 * in the order the ISA defines.
 */
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
#include "cgra_internal.h" /* the decoded program: what was fused */
#include "gcn_host.h"

#ifndef ACIS_EXAMPLES_DIR
#error "ACIS_EXAMPLES_DIR must name examples/cgra"
#endif

#define OUT_CAP (1u << 20)

static uint8_t out_buf[OUT_CAP];

/* ---- helpers ---- */

static struct acis_cgra *
machine(unsigned int n_vpe)
{
	struct acis_cgra_config c = { .n_vpe = n_vpe };
	struct acis_cgra *m = acis_cgra_create(&c);

	assert_non_null(m);
	return m;
}

/* Assemble src; fails the test on an assembler error. */
static uint32_t *
assemble(const char *src, size_t *n)
{
	char err[256];
	uint32_t *w;

	if (acis_cgra_asm(src, "t.s", &w, n, err, sizeof(err)) != 0)
		fail_msg("assembler: %s", err);
	return w;
}

/* Load a program; fails the test if the loader refuses it. */
static void
load(struct acis_cgra *m, const char *src)
{
	char err[256];
	uint32_t *w;
	size_t n;
	int rc;

	w = assemble(src, &n);
	rc = acis_cgra_load(m, w, n, err, sizeof(err));
	free(w);
	if (rc != 0)
		fail_msg("loader: %s", err);
}

/* Load a program the loader must refuse; err gets the message. */
static void
load_refused(struct acis_cgra *m, const char *src, char *err, size_t len)
{
	uint32_t *w;
	size_t n;

	w = assemble(src, &n);
	assert_int_equal(acis_cgra_load(m, w, n, err, len), ACIS_CGRA_E_LOAD);
	free(w);
}

static void
assert_contains(const char *s, const char *part)
{
	if (strstr(s, part) == NULL)
		fail_msg("'%s' does not contain '%s'", s, part);
}

/* Run with no output expected to matter. */
static int
run(struct acis_cgra *m, const void *in, size_t len, size_t *out_len,
    struct acis_cgra_run_stats *st)
{
	size_t ol;

	return acis_cgra_run(m, in, len, out_buf, OUT_CAP,
			     out_len != NULL ? out_len : &ol, st);
}

static float
vrf(struct acis_cgra *m, unsigned int vpe, uint32_t elem)
{
	float v;

	assert_int_equal(acis_cgra_vrf_read(m, vpe, elem, &v, 1), 0);
	return v;
}

static void
set_vrf(struct acis_cgra *m, unsigned int vpe, uint32_t elem, float v)
{
	assert_int_equal(acis_cgra_vrf_write(m, vpe, elem, &v, 1), 0);
}

static uint32_t
fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static void
assert_float_bits(float got, float want)
{
	if (fbits(got) != fbits(want))
		fail_msg("got %a (0x%08x), want %a (0x%08x)", (double)got,
			 fbits(got), (double)want, fbits(want));
}

static char *
read_example(const char *name)
{
	char path[512], err[1024];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", ACIS_EXAMPLES_DIR, name);
	if (acis_cgra_read_file(path, &buf, &len, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return (char *)buf;
}

static void
load_example(struct acis_cgra *m, const char *name)
{
	char *src = read_example(name);

	load(m, src);
	free(src);
}

static const char *const examples[] = {
	"passthrough.s", "dot.s", "axpy.s", "gcn_os.s", "gcn_ws.s",
	"satsum_u8.s", "satsum_i8.s", "maxloc.s", "madd.s",
};

/* ---- scalar instructions ---- */

static void
test_lui_and_addi_build_a_32_bit_constant(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "lui x5, 0x12345\naddi x5, x5, -1\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 0x12344fff);
	acis_cgra_free(m);
}

static void
test_addi_sign_extends_and_add_wraps_modulo_2_32(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "addi x5, x0, -2048\naddi x6, x0, 2047\n"
	     "addi x7, x0, -1\naddi x8, x0, 1\nadd x9, x7, x8\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 0xfffff800);
	assert_int_equal(acis_cgra_xreg(m, 6), 2047);
	assert_int_equal(acis_cgra_xreg(m, 9), 0);
	acis_cgra_free(m);
}

static void
test_writes_to_x0_are_discarded(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "addi x0, x0, 5\nlui x0, 1\nadd x5, x0, x0\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 0), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 0);
	acis_cgra_free(m);
}

static void
test_bne_loop_runs_the_counted_iterations(void **state)
{
	struct acis_cgra *m = machine(1);
	struct acis_cgra_run_stats st;

	(void)state;
	load(m, "addi x5, x0, 10\naddi x6, x0, 0\n"
	     "loop:\naddi x6, x6, 3\naddi x5, x5, -1\nbne x5, x0, loop\n"
	     "wfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, &st), 0);
	assert_int_equal(acis_cgra_xreg(m, 6), 30);
	assert_int_equal(st.instructions, 2 + 3 * 10 + 1);
	acis_cgra_free(m);
}

static void
test_bne_backward_and_forward_offsets_reach_their_labels(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	/* forward over two instructions, then back once */
	load(m, "addi x5, x0, 1\nbne x5, x0, fwd\naddi x6, x0, 7\n"
	     "addi x6, x0, 8\nfwd:\naddi x7, x7, 1\n"
	     "addi x8, x7, -2\nbne x8, x0, fwd\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 6), 0);
	assert_int_equal(acis_cgra_xreg(m, 7), 2);
	acis_cgra_free(m);
}

static void
test_registers_persist_from_one_packet_to_the_next(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "addi x5, x5, 1\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 2);
	acis_cgra_free(m);
}

/* ---- CSRs ---- */

static void
test_packet_length_reads_the_incoming_length(void **state)
{
	struct acis_cgra *m = machine(1);
	uint8_t in[37] = {0};
	size_t out_len = 99;

	(void)state;
	load(m, "csrrw x5, packet_length, x0\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), &out_len, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 37);
	/* x0 as the source wrote nothing: the output is what was streamed */
	assert_int_equal(out_len, 0);
	acis_cgra_free(m);
}

static void
test_packet_length_write_cuts_the_output(void **state)
{
	struct acis_cgra *m = machine(1);
	uint8_t in[64];
	size_t out_len, i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 1);
	load(m, "vsetivli x0, 16, e32, m1\nstreamout.v sin\n"
	     "addi x5, x0, 10\ncsrrw x0, packet_length, x5\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), &out_len, NULL), 0);
	assert_int_equal(out_len, 10);
	assert_memory_equal(out_buf, in, 10);
	acis_cgra_free(m);
}

static void
test_packet_length_above_the_streamed_bytes_is_refused(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "addi x5, x0, 100\ncsrrw x0, packet_length, x5\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_PKTLEN);
	assert_contains(acis_cgra_last_error(m),
			"packet_length 100 is more than the 0 bytes");
	acis_cgra_free(m);
}

static void
test_cycle_reads_the_cost_model_so_far(void **state)
{
	struct acis_cgra *m = machine(2);
	struct acis_cgra_run_stats st;
	float in[32] = {0};

	(void)state;
	/* vsetivli 1, vfadd over 32 elements 1 + 32/16 = 3, csrrw 1, wfi 1 */
	load(m, "vsetivli x0, 32, e32, m2\nvfadd.vv v0, v2, sin\n"
	     "csrrw x5, cycle, x0\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, &st), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 4);
	assert_int_equal(st.cycles, 6);
	assert_int_equal(st.element_ops, 32 * 2);
	assert_int_equal(st.vector_insns, 1);
	acis_cgra_free(m);
}

static void
test_sin_word_pops_words_and_x0_destination_does_not(void **state)
{
	struct acis_cgra *m = machine(1);
	uint32_t in[3] = { 7, 8, 9 };

	(void)state;
	load(m, "csrrw x0, sin_word, x0\ncsrrw x5, sin_word, x0\n"
	     "csrrw x6, sin_word, x0\ncsrrw x7, sin_left, x0\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 7);
	assert_int_equal(acis_cgra_xreg(m, 6), 8);
	assert_int_equal(acis_cgra_xreg(m, 7), 4);
	acis_cgra_free(m);
}

static void
test_sin_word_zero_extends_a_partial_word_and_reads_zero_after(void **state)
{
	struct acis_cgra *m = machine(1);
	uint8_t in[6] = { 1, 2, 3, 4, 5, 6 };

	(void)state;
	load(m, "csrrw x5, sin_word, x0\ncsrrw x6, sin_word, x0\n"
	     "csrrw x7, sin_word, x0\ncsrrw x8, sin_left, x0\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 0x04030201);
	assert_int_equal(acis_cgra_xreg(m, 6), 0x0605);
	assert_int_equal(acis_cgra_xreg(m, 7), 0);
	assert_int_equal(acis_cgra_xreg(m, 8), 0);
	acis_cgra_free(m);
}

static void
test_tile_counts_the_tiles_it_moves_past(void **state)
{
	struct acis_cgra *m = machine(1);
	struct acis_cgra_run_stats st;
	struct acis_cgra_counters c;
	uint32_t in[5] = { 0, 3, 3, 7, 2 };

	(void)state;
	/* from -1: to 0 skips 0, to 3 skips 2, to 3 again 0, to 7 skips 3,
	 * back to 2 counts nothing */
	load(m, "loop:\ncsrrw x5, sin_word, x0\ncsrrw x0, tile, x5\n"
	     "csrrw x6, sin_left, x0\nbne x6, x0, loop\n"
	     "csrrw x7, tile, x0\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, &st), 0);
	assert_int_equal(st.tiles_skipped, 5);
	assert_int_equal(acis_cgra_xreg(m, 7), 2);
	acis_cgra_get_counters(m, &c);
	assert_int_equal(c.tiles_skipped, 5);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_SKIPPED), 5);
	acis_cgra_free(m);
}

/* ---- vector instructions ---- */

static void
test_vsetivli_writes_vl_to_rd(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "vsetivli x5, 20, e32, m2\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 20);
	acis_cgra_free(m);
}

static void
test_vle32_loads_each_vpe_from_its_own_bank(void **state)
{
	struct acis_cgra *m = machine(3);
	float data[32];
	unsigned int p, i;

	(void)state;
	for (p = 0; p < 3; p++) {
		for (i = 0; i < 32; i++)
			data[i] = (float)(p * 100 + i);
		assert_int_equal(acis_cgra_mem_write(m, p + 1, 0, data,
						     sizeof(data)), 0);
	}
	load(m, "addi x5, x0, 8\nvsetivli x0, 20, e32, m2\n"
	     "vle32.v v2, (x5)\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	for (p = 0; p < 3; p++)
		for (i = 0; i < 20; i++)
			assert_float_bits(vrf(m, p, 32 + i),
					  (float)(p * 100 + i + 2));
	/* VL 20 of a 32-element group: the rest is untouched */
	assert_float_bits(vrf(m, 1, 32 + 20), 0.0f);
	acis_cgra_free(m);
}

static void
test_vle32_from_a_named_bank_broadcasts_to_every_vpe(void **state)
{
	struct acis_cgra *m = machine(3);
	float data[4] = { 1.5f, -2.0f, 3.25f, 4.0f };
	unsigned int p, i;

	(void)state;
	assert_int_equal(acis_cgra_mem_write(m, 2, 0, data, sizeof(data)), 0);
	load(m, "vsetivli x0, 4, e32, m1\nvle32.v v1, (x0), b2\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	for (p = 0; p < 3; p++)
		for (i = 0; i < 4; i++)
			assert_float_bits(vrf(m, p, 16 + i), data[i]);
	acis_cgra_free(m);
}

static void
test_vse32_stores_each_vpe_to_its_own_bank(void **state)
{
	struct acis_cgra *m = machine(3);
	float got[5];
	unsigned int p, i;

	(void)state;
	for (p = 0; p < 3; p++)
		for (i = 0; i < 5; i++)
			set_vrf(m, p, 64 + i, (float)(p * 10 + i));
	load(m, "addi x5, x0, 12\nvsetivli x0, 5, e32, m4\n"
	     "vse32.v v4, (x5)\nwfi\n");
	/* the load reset the VRFs: write them again */
	for (p = 0; p < 3; p++)
		for (i = 0; i < 5; i++)
			set_vrf(m, p, 64 + i, (float)(p * 10 + i));
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	for (p = 0; p < 3; p++) {
		assert_int_equal(acis_cgra_mem_read(m, p + 1, 12, got,
						    sizeof(got)), 0);
		for (i = 0; i < 5; i++)
			assert_float_bits(got[i], (float)(p * 10 + i));
	}
	acis_cgra_free(m);
}

static void
test_vse32_to_a_named_bank_interleaves_the_vpes(void **state)
{
	struct acis_cgra *m = machine(3);
	float got[6];
	unsigned int p, i;

	(void)state;
	load(m, "vsetivli x0, 2, e32, m1\nvse32.v v3, (x0), b1\nwfi\n");
	for (p = 0; p < 3; p++)
		for (i = 0; i < 2; i++)
			set_vrf(m, p, 48 + i, (float)(p * 10 + i));
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_mem_read(m, 1, 0, got, sizeof(got)), 0);
	for (i = 0; i < 2; i++)
		for (p = 0; p < 3; p++)
			assert_float_bits(got[i * 3 + p],
					  (float)(p * 10 + i));
	acis_cgra_free(m);
}

/* vfadd and vfmul on n VPEs, VL 40 (not a multiple of 16) */
static void
check_vv(unsigned int n_vpe, int mul)
{
	struct acis_cgra *m = machine(n_vpe);
	float in[40];
	unsigned int p, i;

	for (i = 0; i < 40; i++)
		in[i] = (float)i * 0.25f - 3.0f;
	load(m, mul ? "vsetivli x0, 40, e32, m4\nvfmul.vv v8, v4, sin\nwfi\n"
		    : "vsetivli x0, 40, e32, m4\nvfadd.vv v8, v4, sin\nwfi\n");
	for (p = 0; p < n_vpe; p++)
		for (i = 0; i < 40; i++)
			set_vrf(m, p, 64 + i, (float)(p + 1) * 1.5f + i);
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	for (p = 0; p < n_vpe; p++)
		for (i = 0; i < 40; i++) {
			float t = (float)(p + 1) * 1.5f + i;

			assert_float_bits(vrf(m, p, 128 + i),
					  mul ? in[i] * t : in[i] + t);
		}
	acis_cgra_free(m);
}

static void
test_vfadd_adds_stream_in_to_a_group_on_every_vpe(void **state)
{
	(void)state;
	check_vv(1, 0);
	check_vv(3, 0);
	check_vv(16, 0);
	check_vv(31, 0);
}

static void
test_vfmul_multiplies_stream_in_by_a_group_on_every_vpe(void **state)
{
	(void)state;
	check_vv(1, 1);
	check_vv(3, 1);
	check_vv(16, 1);
	check_vv(31, 1);
}

static void
test_each_arithmetic_instruction_consumes_vl_stream_elements(void **state)
{
	struct acis_cgra *m = machine(2);
	struct acis_cgra_run_stats st;
	float in[12];
	unsigned int i;

	(void)state;
	for (i = 0; i < 12; i++)
		in[i] = (float)(i + 1);
	load(m, "vsetivli x0, 5, e32, m1\nvfadd.vv v1, v0, sin\n"
	     "vfadd.vv v2, v0, sin\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, &st), 0);
	for (i = 0; i < 5; i++) {
		assert_float_bits(vrf(m, 1, 16 + i), in[i]);
		assert_float_bits(vrf(m, 1, 32 + i), in[5 + i]);
	}
	assert_int_equal(st.in_consumed, 40);
	acis_cgra_free(m);
}

static void
test_a_stream_shorter_than_vl_leaves_the_tail_undisturbed(void **state)
{
	struct acis_cgra *m = machine(3);
	uint8_t in[21 * 4 + 2];
	unsigned int p, i;

	(void)state;
	for (i = 0; i < 21; i++) {
		float f = (float)i + 0.5f;

		memcpy(in + 4 * i, &f, 4);
	}
	/* a partial word: 2 bytes, zero-extended to 0x00000202 */
	in[84] = 2;
	in[85] = 2;
	load(m, "vsetivli x0, 37, e32, m4\nvfadd.vv v4, v0, sin\nwfi\n");
	for (p = 0; p < 3; p++)
		for (i = 0; i < 37; i++)
			set_vrf(m, p, 64 + i, 99.0f);
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	for (p = 0; p < 3; p++) {
		float partial;
		uint32_t w = 0x0202;

		for (i = 0; i < 21; i++)
			assert_float_bits(vrf(m, p, 64 + i), (float)i + 0.5f);
		memcpy(&partial, &w, 4);
		assert_float_bits(vrf(m, p, 64 + 21), partial + 0.0f);
		for (i = 22; i < 37; i++)
			assert_float_bits(vrf(m, p, 64 + i), 99.0f);
	}
	acis_cgra_free(m);
}

static void
test_vmacc_vx_fuses_with_v0_at_x_as_the_fixed_operand(void **state)
{
	struct acis_cgra *m = machine(2);
	const float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
	float in[3] = { a, a, 2.0f };
	unsigned int p;

	(void)state;
	/* a * a + c is 2^-24 exactly; rounding a * a first would give 0 */
	assert_true(fmaf(a, a, c) != 0.0f);
	load(m, "addi x5, x0, 7\nvsetivli x0, 3, e32, m1\n"
	     "vmacc.vx v2, x5, sin\nwfi\n");
	for (p = 0; p < 2; p++) {
		set_vrf(m, p, 7, p == 0 ? a : 3.0f);
		set_vrf(m, p, 32, c);
		set_vrf(m, p, 33, 1.0f);
		set_vrf(m, p, 34, 1.0f);
	}
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_float_bits(vrf(m, 0, 32), 0x1p-24f);
	assert_float_bits(vrf(m, 0, 33), fmaf(a, a, 1.0f));
	assert_float_bits(vrf(m, 0, 34), 2.0f * a + 1.0f);
	assert_float_bits(vrf(m, 1, 32), fmaf(3.0f, a, c));
	assert_float_bits(vrf(m, 1, 34), 7.0f);
	acis_cgra_free(m);
}

static void
test_vmacc_xv_accumulates_a_fused_dot_product_into_v0_at_x(void **state)
{
	struct acis_cgra *m = machine(3);
	float in[19], want;
	unsigned int p, i;

	(void)state;
	for (i = 0; i < 19; i++)
		in[i] = 1.0f / (float)(i + 3);
	load(m, "addi x4, x0, 200\nvsetivli x0, 19, e32, m2\n"
	     "vmacc.xv x4, v2, sin\nwfi\n");
	for (p = 0; p < 3; p++) {
		set_vrf(m, p, 200, (float)p);
		for (i = 0; i < 19; i++)
			set_vrf(m, p, 32 + i, (float)(i + p) / 7.0f);
	}
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	for (p = 0; p < 3; p++) {
		want = (float)p;
		for (i = 0; i < 19; i++)
			want = fmaf(in[i], (float)(i + p) / 7.0f, want);
		assert_float_bits(vrf(m, p, 200), want);
	}
	acis_cgra_free(m);
}

static void
test_spvacc_xv_gathers_and_skips_indices_at_or_above_vlmax(void **state)
{
	struct acis_cgra *m = machine(3);
	uint32_t in[6] = { 3, 31, 32, 0xffffffffu, 5, 1000 };
	unsigned int p, i;

	(void)state;
	/* LMUL 2: the table v2..v3 holds 32 elements, VLMAX 32 */
	load(m, "addi x4, x0, 9\nvsetivli x0, 6, e32, m2\n"
	     "spvacc.xv x4, v2, sin\nwfi\n");
	for (p = 0; p < 3; p++) {
		for (i = 0; i < 64; i++)
			set_vrf(m, p, 32 + i, (float)(1u << (i % 24)) + p);
		set_vrf(m, p, 9, 0.5f);
	}
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	for (p = 0; p < 3; p++) {
		float want = 0.5f;

		want += (float)(1u << 3) + p;
		want += (float)(1u << (31 % 24)) + p;
		want += (float)(1u << 5) + p;
		assert_float_bits(vrf(m, p, 9), want);
	}
	acis_cgra_free(m);
}

static void
test_spvacc_vx_scatters_v0_at_x_and_skips_sentinels(void **state)
{
	struct acis_cgra *m = machine(2);
	uint32_t in[5] = { 1, 1, 40, 31, 32 };
	unsigned int p, i;

	(void)state;
	load(m, "addi x4, x0, 3\nvsetivli x0, 5, e32, m2\n"
	     "spvacc.vx v4, sin, x4\nwfi\n");
	for (p = 0; p < 2; p++)
		set_vrf(m, p, 3, 1.25f * (float)(p + 1));
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	for (p = 0; p < 2; p++) {
		float a = 1.25f * (float)(p + 1);

		for (i = 0; i < 40; i++) {
			float want = i == 1 ? a + a : i == 31 ? a : 0.0f;

			assert_float_bits(vrf(m, p, 64 + i), want);
		}
	}
	acis_cgra_free(m);
}

static void
test_the_sentinel_bound_follows_lmul(void **state)
{
	struct acis_cgra *m = machine(1);
	uint32_t in[1] = { 20 };

	(void)state;
	/* index 20: past VLMAX 16 with LMUL 1, inside VLMAX 32 with LMUL 2 */
	load(m, "vsetivli x0, 1, e32, m1\nspvacc.xv x0, v2, sin\nwfi\n");
	set_vrf(m, 0, 32 + 20, 4.0f);
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_float_bits(vrf(m, 0, 0), 0.0f);
	load(m, "vsetivli x0, 1, e32, m2\nspvacc.xv x0, v2, sin\nwfi\n");
	set_vrf(m, 0, 32 + 20, 4.0f);
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_float_bits(vrf(m, 0, 0), 4.0f);
	acis_cgra_free(m);
}

static void
test_lmul_2048_loads_32768_elements_with_one_vle32(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 2, .bank_size = 1u << 18 };
	struct acis_cgra *m = acis_cgra_create(&c);
	struct acis_cgra_run_stats st;
	float *data = malloc(32768 * sizeof(float));
	unsigned int p, i;

	(void)state;
	assert_non_null(m);
	assert_non_null(data);
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 32768; i++)
			data[i] = (float)(i + p);
		assert_int_equal(acis_cgra_mem_write(m, p + 1, 0, data,
						     32768 * 4), 0);
	}
	load(m, "vsetivli x0, 32768, e32, m2048\nvle32.v v2048, (x0)\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, &st), 0);
	assert_int_equal(st.element_ops, 32768 * 2);
	for (p = 0; p < 2; p++) {
		assert_float_bits(vrf(m, p, 2048 * 16), (float)p);
		assert_float_bits(vrf(m, p, 4096 * 16 - 1),
				  (float)(32767 + p));
	}
	free(data);
	acis_cgra_free(m);
}

static void
test_streamout_emits_element_by_element_across_vpes(void **state)
{
	struct acis_cgra *m = machine(3);
	size_t out_len;
	float got[15];
	unsigned int p, i;

	(void)state;
	load(m, "vsetivli x0, 5, e32, m1\nstreamout.v v6\nwfi\n");
	for (p = 0; p < 3; p++)
		for (i = 0; i < 5; i++)
			set_vrf(m, p, 96 + i, (float)(p * 10 + i));
	assert_int_equal(run(m, NULL, 0, &out_len, NULL), 0);
	assert_int_equal(out_len, sizeof(got));
	memcpy(got, out_buf, sizeof(got));
	for (i = 0; i < 5; i++)
		for (p = 0; p < 3; p++)
			assert_float_bits(got[i * 3 + p], (float)(p * 10 + i));
	acis_cgra_free(m);
}

static void
test_streamout_sin_forwards_bytes_including_a_partial_word(void **state)
{
	struct acis_cgra *m = machine(1);
	uint8_t in[23];
	size_t out_len, i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(0xa0 + i);
	/* 4 words, then the remaining 7 bytes */
	load(m, "vsetivli x0, 4, e32, m1\nstreamout.v sin\n"
	     "vsetivli x0, 16, e32, m1\nstreamout.v sin\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), &out_len, NULL), 0);
	assert_int_equal(out_len, sizeof(in));
	assert_memory_equal(out_buf, in, sizeof(in));
	acis_cgra_free(m);
}

/* ---- run-time checks ---- */

static void
test_an_exhausted_instruction_budget_ends_the_run(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 1, .insn_budget = 1000 };
	struct acis_cgra *m = acis_cgra_create(&c);
	struct acis_cgra_run_stats st;

	(void)state;
	assert_non_null(m);
	load(m, "addi x5, x0, 1\nloop:\nbne x5, x0, loop\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, &st), ACIS_CGRA_E_BUDGET);
	assert_int_equal(st.instructions, 1000);
	assert_contains(acis_cgra_last_error(m),
			"instruction 1 (bne): instruction budget of 1000");
	/* no ap_done for a run that did not reach wfi */
	assert_false(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		     ACIS_CGRA_AP_DONE);
	acis_cgra_free(m);
}

static void
test_vle32_past_the_end_of_a_bank_is_refused(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 2, .bank_size = 4096 };
	struct acis_cgra *m = acis_cgra_create(&c);

	(void)state;
	assert_non_null(m);
	/* 16 words at 4084: the last 3 past the end */
	load(m, "addi x5, x0, 2047\naddi x5, x5, 2037\n"
	     "vsetivli x0, 16, e32, m1\nvle32.v v0, (x5)\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_MEM);
	assert_contains(acis_cgra_last_error(m),
			"instruction 3 (vle32.v): bank 1 bytes 4084..4148");
	acis_cgra_free(m);
}

static void
test_vse32_past_the_end_of_a_bank_is_refused(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 2, .bank_size = 4096 };
	struct acis_cgra *m = acis_cgra_create(&c);

	(void)state;
	assert_non_null(m);
	/* a huge address must not wrap around the check */
	load(m, "lui x5, 0xfffff\nvsetivli x0, 16, e32, m1\n"
	     "vse32.v v0, (x5), b2\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_MEM);
	assert_contains(acis_cgra_last_error(m), "vse32.v): bank 2");
	acis_cgra_free(m);
}

static void
test_a_base_register_moves_the_kernels_view_of_a_bank(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 1, .bank_size = 256 };
	struct acis_cgra *m = acis_cgra_create(&c);
	float v = 6.5f;

	(void)state;
	assert_non_null(m);
	assert_int_equal(acis_cgra_mem_write(m, 1, 192, &v, 4), 0);
	load(m, "vsetivli x0, 16, e32, m1\nvle32.v v0, (x0)\nwfi\n");
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_BASE(1), 192),
			 0);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_BASE(1)), 192);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_float_bits(vrf(m, 0, 0), 6.5f);
	/* from base 200, 64 bytes no longer fit in 256 */
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_BASE(1), 200),
			 0);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_MEM);
	/* a base beyond the bank itself is refused at once */
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_BASE(1), 257),
			 ACIS_CGRA_E_INVAL);
	acis_cgra_free(m);
}

static void
test_v0_at_an_element_beyond_the_vrf_is_refused(void **state)
{
	struct acis_cgra *m = machine(1);
	uint32_t in[1] = { 0 };

	(void)state;
	load(m, "lui x4, 0x10\nvsetivli x0, 1, e32, m1\n"
	     "spvacc.xv x4, v0, sin\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), ACIS_CGRA_E_VRF);
	assert_contains(acis_cgra_last_error(m),
			"v0[65536] is outside the VRF's 65536 elements");
	acis_cgra_free(m);
}

static void
test_stream_out_beyond_the_output_buffer_is_refused(void **state)
{
	struct acis_cgra *m = machine(2);
	uint8_t small[100];
	size_t out_len = 1;

	(void)state;
	load(m, "vsetivli x0, 16, e32, m1\nstreamout.v v0\nwfi\n");
	assert_int_equal(acis_cgra_run(m, NULL, 0, small, sizeof(small),
				       &out_len, NULL), ACIS_CGRA_E_OUTFULL);
	assert_int_equal(out_len, 0);
	assert_contains(acis_cgra_last_error(m), "needs 128 bytes");
	acis_cgra_free(m);
}

static void
test_running_without_a_program_is_refused(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_NOTREADY);
	acis_cgra_free(m);
}

/* ---- the loader ---- */

static void
test_loader_refuses_an_unknown_opcode(void **state)
{
	struct acis_cgra *m = machine(1);
	const uint32_t w[2] = { 0x10500073, 0x0000007f };
	char err[256];

	(void)state;
	assert_int_equal(acis_cgra_load(m, w, 2, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_string_equal(err, "instruction 1 (0x0000007f): unknown "
			    "opcode 0x7f");
	acis_cgra_free(m);
}

static void
test_loader_refuses_reserved_bits(void **state)
{
	struct acis_cgra *m = machine(1);
	/* spvacc.xv with bit 31 set */
	const uint32_t w[2] = { 0x8000012b | (3u << 7), 0x10500073 };
	char err[256];

	(void)state;
	assert_int_equal(acis_cgra_load(m, w, 2, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_contains(err, "instruction 0 (0x800001ab): reserved bits");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_branch_target_outside_the_program(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "addi x5, x0, 1\nbne x5, x0, 400\nwfi\n", err,
		     sizeof(err));
	assert_string_equal(err, "instruction 1 (bne): branch target 101 "
			    "is outside the program (instructions 0..2)");
	load_refused(m, "bne x5, x0, -4\nwfi\n", err, sizeof(err));
	assert_contains(err, "branch target -1 is outside");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_branch_offset_that_is_not_whole_words(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "bne x5, x0, 6\nwfi\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (bne): branch offset 6 is "
			    "not a multiple of 4");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_program_without_wfi(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "addi x5, x0, 1\n", err, sizeof(err));
	assert_string_equal(err, "the program has no wfi (a kernel ends "
			    "with wfi)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_path_that_runs_past_the_end(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "bne x5, x0, skip\nwfi\nskip:\naddi x6, x0, 1\n",
		     err, sizeof(err));
	assert_string_equal(err, "instruction 2 (addi): execution can run "
			    "past the end of the program (end the kernel "
			    "with wfi)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_lmul_above_2048(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "vsetivli x0, 1, e32, m4096\nwfi\n", err,
		     sizeof(err));
	assert_string_equal(err, "instruction 0 (vsetivli): LMUL 4096 "
			    "exceeds 2048");
	acis_cgra_free(m);
}

static void
test_loader_refuses_lmul_above_a_smaller_vrf(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 1, .vrf_regs = 64 };
	struct acis_cgra *m = acis_cgra_create(&c);
	char err[256];

	(void)state;
	assert_non_null(m);
	load_refused(m, "vsetivli x0, 1, e32, m128\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (vsetivli): LMUL 128 "
			    "exceeds the VRF's 64 registers");
	acis_cgra_free(m);
}

static void
test_loader_refuses_avl_above_vlmax(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "vsetivli x0, 17, e32, m1\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (vsetivli): AVL 17 exceeds "
			    "VLMAX 16 of LMUL 1");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_vector_instruction_before_vsetivli(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "bne x5, x0, go\nvsetivli x0, 4, e32, m1\n"
		     "go:\nvfadd.vv v0, v1, sin\nwfi\n", err, sizeof(err));
	/* one path sets the configuration, the other does not */
	assert_string_equal(err, "instruction 2 (vfadd.vv): vector "
			    "instruction reached before any vsetivli (on "
			    "some path)");
	load_refused(m, "streamout.v sin\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (streamout.v): vector "
			    "instruction reached before any vsetivli (on "
			    "some path)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_paths_that_disagree_on_vl(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "vsetivli x0, 4, e32, m1\nbne x5, x0, go\n"
		     "vsetivli x0, 8, e32, m1\ngo:\nvfadd.vv v0, v1, sin\n"
		     "wfi\n", err, sizeof(err));
	assert_contains(err, "instruction 3 (vfadd.vv): reached with "
			"different vector configurations");
	acis_cgra_free(m);
}

static void
test_loader_accepts_paths_that_agree_on_the_configuration(void **state)
{
	struct acis_cgra *m = machine(1);
	float in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	(void)state;
	load(m, "vsetivli x0, 4, e32, m1\nbne x5, x0, go\n"
	     "vsetivli x0, 4, e32, m1\ngo:\nvfadd.vv v1, v0, sin\n"
	     "addi x6, x6, 1\naddi x7, x6, -2\nbne x7, x0, go\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL), 0);
	assert_float_bits(vrf(m, 0, 16), 5.0f);
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_misaligned_register_group(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "vsetivli x0, 64, e32, m4\nvfadd.vv v4, v2, sin\n"
		     "wfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 1 (vfadd.vv): v2 is not a "
			    "multiple of LMUL 4 (register groups are "
			    "aligned)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_register_beyond_a_smaller_vrf(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 1, .vrf_regs = 64 };
	struct acis_cgra *m = acis_cgra_create(&c);
	char err[256];

	(void)state;
	assert_non_null(m);
	load_refused(m, "vsetivli x0, 1, e32, m1\nvle32.v v100, (x0)\n"
		     "wfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 1 (vle32.v): register v100 is "
			    "beyond the VRF's 64 registers");
	acis_cgra_free(m);
}

static void
test_loader_refuses_an_unknown_csr(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "csrrw x5, 0x123, x0\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (csrrw): unknown CSR 0x123");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_write_to_a_read_only_csr(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load_refused(m, "csrrw x0, cycle, x5\nwfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 0 (csrrw): writes read-only "
			    "CSR cycle (read it with x0 as the source)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_bank_that_does_not_exist(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 2, .n_banks = 2 };
	struct acis_cgra *m = acis_cgra_create(&c);
	char err[256];

	(void)state;
	assert_non_null(m);
	load_refused(m, "vsetivli x0, 1, e32, m1\nvle32.v v0, (x0), b5\n"
		     "wfi\n", err, sizeof(err));
	assert_string_equal(err, "instruction 1 (vle32.v): bank 5 does not "
			    "exist (data banks 1..2)");
	acis_cgra_free(m);
}

static void
test_loader_refuses_own_bank_access_with_fewer_banks_than_vpes(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 4, .n_banks = 2 };
	struct acis_cgra *m = acis_cgra_create(&c);
	char err[256];

	(void)state;
	assert_non_null(m);
	load_refused(m, "vsetivli x0, 1, e32, m1\nvse32.v v0, (x0)\nwfi\n",
		     err, sizeof(err));
	assert_string_equal(err, "instruction 1 (vse32.v): own-bank access "
			    "needs 4 data banks (one per VPE), the machine "
			    "has 2");
	acis_cgra_free(m);
}

static void
test_loader_refuses_an_empty_program(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	assert_int_equal(acis_cgra_load(m, NULL, 0, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_string_equal(err, "empty program: no instructions");
	acis_cgra_free(m);
}

static void
test_loader_refuses_a_program_larger_than_bank_0(void **state)
{
	struct acis_cgra_config c = { .n_vpe = 1, .insn_bank_size = 16 };
	struct acis_cgra *m = acis_cgra_create(&c);
	const uint32_t w[5] = { 0x10500073, 0x10500073, 0x10500073,
				0x10500073, 0x10500073 };
	char err[256];

	(void)state;
	assert_non_null(m);
	assert_int_equal(acis_cgra_load(m, w, 5, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_string_equal(err, "5 instructions at base 0 do not fit bank "
			    "0 (16 bytes)");
	assert_int_equal(acis_cgra_load(m, w, 4, err, sizeof(err)), 0);
	acis_cgra_free(m);
}

static void
test_a_refused_load_unloads_the_previous_program(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256];

	(void)state;
	load(m, "wfi\n");
	load_refused(m, "addi x5, x0, 1\n", err, sizeof(err));
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_NOTREADY);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_ERR),
			 (uint32_t)-ACIS_CGRA_E_NOTREADY);
	acis_cgra_free(m);
}

/* ---- control block ---- */

static void
test_ap_start_runs_the_loader_on_bank_0_and_raises_ready(void **state)
{
	struct acis_cgra *m = machine(1);
	uint32_t *w;
	size_t n;

	(void)state;
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL),
			 ACIS_CGRA_AP_IDLE);
	w = assemble("addi x5, x0, 42\nwfi\n", &n);
	/* the program lives at 256 in bank 0, BASE[0] points at it */
	assert_int_equal(acis_cgra_mem_write(m, 0, 256, w, n * 4), 0);
	free(w);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_BASE(0), 256),
			 0);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_INSN_COUNT,
					     (uint32_t)n), 0);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_CTRL,
					     ACIS_CGRA_AP_START), 0);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL),
			 ACIS_CGRA_AP_READY | ACIS_CGRA_AP_IDLE);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_xreg(m, 5), 42);
	acis_cgra_free(m);
}

static void
test_wfi_raises_ap_done_which_clears_on_read(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "wfi\n");
	assert_false(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		     ACIS_CGRA_AP_DONE);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_true(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		    ACIS_CGRA_AP_DONE);
	assert_false(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		     ACIS_CGRA_AP_DONE);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_RUNS), 1);
	acis_cgra_free(m);
}

static void
test_a_refused_start_sets_err_and_leaves_ready_low(void **state)
{
	struct acis_cgra *m = machine(1);
	const uint32_t w = 0x0000007f;

	(void)state;
	assert_int_equal(acis_cgra_mem_write(m, 0, 0, &w, 4), 0);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_INSN_COUNT, 1),
			 0);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_CTRL,
					     ACIS_CGRA_AP_START),
			 ACIS_CGRA_E_LOAD);
	assert_int_equal(acis_cgra_reg_read(m, ACIS_CGRA_REG_ERR),
			 (uint32_t)-ACIS_CGRA_E_LOAD);
	assert_false(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		     ACIS_CGRA_AP_READY);
	assert_contains(acis_cgra_last_error(m), "unknown opcode 0x7f");
	acis_cgra_free(m);
}

static void
test_stop_unloads_and_a_reload_runs_the_new_program(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	load(m, "addi x5, x0, 1\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_CTRL,
					     ACIS_CGRA_AP_STOP), 0);
	assert_false(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
		     ACIS_CGRA_AP_READY);
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_NOTREADY);
	load(m, "addi x6, x0, 2\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
	/* a load starts from fresh registers */
	assert_int_equal(acis_cgra_xreg(m, 5), 0);
	assert_int_equal(acis_cgra_xreg(m, 6), 2);
	acis_cgra_free(m);
}

static void
test_a_load_clears_registers_vrfs_and_the_tile(void **state)
{
	struct acis_cgra *m = machine(2);
	uint32_t in[1] = { 5 };
	struct acis_cgra_run_stats st;

	(void)state;
	load(m, "addi x5, x0, 3\ncsrrw x6, sin_word, x0\n"
	     "csrrw x0, tile, x6\nwfi\n");
	set_vrf(m, 1, 100, 2.0f);
	assert_int_equal(run(m, in, sizeof(in), NULL, &st), 0);
	assert_int_equal(st.tiles_skipped, 5);
	load(m, "csrrw x6, sin_word, x0\ncsrrw x7, tile, x6\nwfi\n");
	assert_float_bits(vrf(m, 1, 100), 0.0f);
	assert_int_equal(acis_cgra_xreg(m, 5), 0);
	assert_int_equal(run(m, in, sizeof(in), NULL, &st), 0);
	assert_int_equal(acis_cgra_xreg(m, 7), 0xffffffff);
	assert_int_equal(st.tiles_skipped, 5);
	acis_cgra_free(m);
}

static void
test_an_unknown_control_register_is_refused(void **state)
{
	struct acis_cgra *m = machine(1);

	(void)state;
	assert_int_equal(acis_cgra_reg_write(m, 0x200, 1), ACIS_CGRA_E_INVAL);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_ERR, 1),
			 ACIS_CGRA_E_INVAL);
	assert_int_equal(acis_cgra_reg_write(m, ACIS_CGRA_REG_BASE(5), 0),
			 ACIS_CGRA_E_INVAL);
	acis_cgra_free(m);
}

/* ---- pass-through ---- */

static void
fill_random(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t s = seed;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)gcn_rand(&s);
}

static void
test_passthrough_mode_forwards_packets_unchanged(void **state)
{
	struct acis_cgra *m = machine(16);
	static uint8_t in[1001];
	struct acis_cgra_counters c;
	size_t out_len;

	(void)state;
	fill_random(in, sizeof(in), 1);
	/* signalling-NaN patterns must survive too */
	memcpy(in, (uint32_t[]){ 0x7f800001 }, 4);
	acis_cgra_set_passthrough(m, 1);
	/* no program is needed */
	assert_int_equal(run(m, in, sizeof(in), &out_len, NULL), 0);
	assert_int_equal(out_len, sizeof(in));
	assert_memory_equal(out_buf, in, sizeof(in));
	acis_cgra_get_counters(m, &c);
	assert_int_equal(c.passthrough, 1);
	acis_cgra_set_passthrough(m, 0);
	assert_int_equal(run(m, in, sizeof(in), &out_len, NULL),
			 ACIS_CGRA_E_NOTREADY);
	acis_cgra_free(m);
}

static void
test_the_passthrough_program_forwards_packets_unchanged(void **state)
{
	static const size_t lens[] = { 0, 1, 3, 4, 64, 1001, 65536, 70003 };
	struct acis_cgra *m = machine(16);
	uint8_t *in = malloc(70003);
	size_t i, out_len;

	(void)state;
	assert_non_null(in);
	load_example(m, "passthrough.s");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		fill_random(in, lens[i], 100 + i);
		assert_int_equal(run(m, in, lens[i], &out_len, NULL), 0);
		assert_int_equal(out_len, lens[i]);
		assert_memory_equal(out_buf, in, lens[i]);
	}
	free(in);
	acis_cgra_free(m);
}

/* ---- assembler ---- */

static void
assert_asm_error(const char *src, const char *want)
{
	char err[256];
	uint32_t *w = NULL;
	size_t n;

	assert_int_equal(acis_cgra_asm(src, "prog.s", &w, &n, err,
				       sizeof(err)), -1);
	assert_null(w);
	assert_string_equal(err, want);
}

static void
test_assembler_names_an_unknown_mnemonic_with_line_and_column(void **state)
{
	(void)state;
	assert_asm_error("wfi\n# comment\n  vadd.vv v0, v1, sin\n",
			 "prog.s:3:3: error: unknown mnemonic 'vadd.vv'");
}

static void
test_assembler_names_a_bad_register(void **state)
{
	(void)state;
	assert_asm_error("addi x32, x0, 1\n", "prog.s:1:6: error: expected "
			 "a scalar register x0..x31, got 'x32'");
	assert_asm_error("vfadd.vv v4096, v0, sin\n", "prog.s:1:10: error: "
			 "expected a vector register v0..v4095, got 'v4096'");
	assert_asm_error("vfadd.vv v0, v1, v2\n", "prog.s:1:18: error: "
			 "expected 'sin' (this operand is hardwired to "
			 "stream_in), got 'v2'");
}

static void
test_assembler_names_an_immediate_out_of_range(void **state)
{
	(void)state;
	assert_asm_error("\taddi x1, x0, 2048\n", "prog.s:1:15: error: "
			 "immediate 2048 out of range -2048..2047");
	assert_asm_error("lui x1, -1\n", "prog.s:1:9: error: immediate -1 "
			 "out of range 0..1048575");
	assert_asm_error("addi x1, x0, 12abc\n", "prog.s:1:14: error: "
			 "expected an integer, got '12abc'");
}

static void
test_assembler_names_an_unknown_label(void **state)
{
	(void)state;
	assert_asm_error("top:\nbne x1, x0, top\nbne x1, x0, nowhere\nwfi\n",
			 "prog.s:3:13: error: unknown label 'nowhere'");
}

static void
test_assembler_names_a_duplicate_label(void **state)
{
	(void)state;
	assert_asm_error("loop: wfi\n  loop:\nwfi\n", "prog.s:2:3: error: "
			 "duplicate label 'loop' (first defined at line 1, "
			 "column 1)");
}

static void
test_assembler_names_a_wrong_operand_count(void **state)
{
	(void)state;
	assert_asm_error("add x1, x2\n", "prog.s:1:1: error: add takes 3 "
			 "operands (add rd, rs1, rs2), found 2");
	assert_asm_error("add x1, , x2\n", "prog.s:1:9: error: expected an "
			 "operand");
	assert_asm_error("vsetivli x0, 4, e32, m3\n", "prog.s:1:22: error: "
			 "expected LMUL 'mN' with N a power of two "
			 "(m1..m2048), got 'm3'");
}

static void
test_assembler_takes_labels_comments_and_crlf(void **state)
{
	const char *src = "a: b:\tvsetivli x0, 4, e32, m1 # set VL\r\n"
			  "# only a comment\r\n"
			  "c: bne x1, x0, a\r\n\r\nwfi";
	uint32_t *w;
	size_t n;
	char *text;

	(void)state;
	w = assemble(src, &n);
	assert_int_equal(n, 3);
	text = acis_cgra_disasm(w, n);
	assert_non_null(text);
	assert_string_equal(text, "L0:\n\tvsetivli x0, 4, e32, m1\n"
			    "\tbne x1, x0, L0\n\twfi\n");
	free(text);
	free(w);
}

static void
test_every_example_round_trips_through_the_disassembler(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		char *src = read_example(examples[i]), *text, *text2;
		uint32_t *w, *w2;
		size_t n, n2;

		w = assemble(src, &n);
		text = acis_cgra_disasm(w, n);
		assert_non_null(text);
		w2 = assemble(text, &n2);
		assert_int_equal(n2, n);
		assert_memory_equal(w2, w, n * 4);
		/* the disassembly is canonical: a fixed point */
		text2 = acis_cgra_disasm(w2, n2);
		assert_string_equal(text2, text);
		free(text2);
		free(w2);
		free(text);
		free(w);
		free(src);
	}
}

/* bne rs1, rs2, off in RV32I's B format */
static uint32_t
bne_word(uint32_t rs1, uint32_t rs2, int32_t off)
{
	uint32_t imm = (uint32_t)off;

	return ((imm >> 12) & 1) << 31 | ((imm >> 5) & 0x3f) << 25 |
	       rs2 << 20 | rs1 << 15 | 1u << 12 | ((imm >> 1) & 0xf) << 8 |
	       ((imm >> 11) & 1) << 7 | 0x63;
}

static void
test_any_words_survive_disassembly_and_reassembly(void **state)
{
	const size_t n = 20000;
	uint32_t *w = malloc(n * 4), *w2;
	static const uint32_t opc[] = { 0x37, 0x13, 0x33, 0x63, 0x73, 0x0b,
					0x2b, 0x5b, 0x7b };
	uint64_t s = 7;
	size_t i, n2;
	char *text;

	(void)state;
	assert_non_null(w);
	/* random words, most given one of our opcodes so that they decode,
	 * and some bne within reach, so that labels are made */
	for (i = 0; i < n; i++) {
		w[i] = (uint32_t)gcn_rand(&s);
		if (i % 4 != 0)
			w[i] = (w[i] & ~0x7fu) | opc[gcn_rand(&s) % 9];
		if (i % 8 == 1)
			w[i] = bne_word((uint32_t)gcn_rand(&s) & 31, 0,
					((int32_t)(gcn_rand(&s) % 65) - 32) *
					(i % 16 == 1 ? 4 : 2));
	}
	text = acis_cgra_disasm(w, n);
	assert_non_null(text);
	w2 = assemble(text, &n2);
	assert_int_equal(n2, n);
	for (i = 0; i < n; i++)
		if (w2[i] != w[i])
			fail_msg("word %zu: 0x%08x came back as 0x%08x", i,
				 w[i], w2[i]);
	free(w2);
	free(text);
	free(w);
}

static void
test_disasm_one_shows_a_branch_offset_and_unknown_words(void **state)
{
	char buf[64];

	(void)state;
	acis_cgra_disasm_one(0xfe029ee3, buf, sizeof(buf));
	assert_string_equal(buf, "bne x5, x0, -4");
	acis_cgra_disasm_one(0xffffffff, buf, sizeof(buf));
	assert_string_equal(buf, ".word 0xffffffff");
	acis_cgra_disasm_one(0x10500073, buf, sizeof(buf));
	assert_string_equal(buf, "wfi");
}

/* ---- the example handlers ---- */

static void
run_gcn(const char *prog, int ws)
{
	struct acis_cgra *m = machine(16);
	struct gcn_graph g;
	struct gcn_packets pk;
	struct acis_cgra_counters c;
	float *x, *ref, *got;
	size_t i, got_len = 0, out_len;
	const size_t bytes = (size_t)GCN_N * 16 * sizeof(float);

	assert_int_equal(gcn_graph_make(&g, GCN_N, 42), 0);
	x = malloc(bytes);
	ref = malloc(bytes);
	got = malloc(bytes);
	assert_non_null(x);
	assert_non_null(ref);
	assert_non_null(got);
	gcn_features(x, GCN_N, 16, 43);
	gcn_reference(&g, x, 16, ref);
	assert_int_equal(ws ? gcn_pack_ws(&g, &pk) : gcn_pack_os(&g, &pk), 0);
	/* the data has idle tiles and rows heavy enough to split */
	assert_true(pk.skipped > 0);
	assert_int_equal(gcn_load_features(m, x, GCN_N, 16), 0);
	load_example(m, prog);
	for (i = 0; i < pk.n; i++) {
		size_t len = pk.start[i + 1] - pk.start[i];
		int rc;

		assert_true(len <= GCN_MAX_PAYLOAD);
		rc = acis_cgra_run(m, pk.data + pk.start[i], len,
				   (uint8_t *)got + got_len, bytes - got_len,
				   &out_len, NULL);
		if (rc != 0)
			fail_msg("packet %zu: %s", i, acis_cgra_last_error(m));
		got_len += out_len;
	}
	assert_int_equal(got_len, bytes);
	for (i = 0; i < (size_t)GCN_N * 16; i++)
		if (fbits(got[i]) != fbits(ref[i]))
			fail_msg("Y[%zu][%zu] = %a, reference %a", i / 16,
				 i % 16, (double)got[i], (double)ref[i]);
	acis_cgra_get_counters(m, &c);
	assert_int_equal(c.tiles_skipped, pk.skipped);
	assert_int_equal(c.runs, pk.n);
	gcn_packets_free(&pk);
	gcn_graph_free(&g);
	free(x);
	free(ref);
	free(got);
	acis_cgra_free(m);
}

static void
test_gcn_os_matches_the_csr_aggregation_bit_for_bit(void **state)
{
	(void)state;
	run_gcn("gcn_os.s", 0);
}

static void
test_gcn_ws_matches_the_csr_aggregation_bit_for_bit(void **state)
{
	(void)state;
	run_gcn("gcn_ws.s", 1);
}

static void
test_the_graph_generator_is_power_law_with_heavy_rows(void **state)
{
	struct gcn_graph g;
	uint32_t i, ones = 0, max = 0;

	(void)state;
	assert_int_equal(gcn_graph_make(&g, GCN_N, 42), 0);
	for (i = 0; i < g.n; i++) {
		uint32_t d = g.rowptr[i + 1] - g.rowptr[i];

		ones += d == 1;
		max = d > max ? d : max;
	}
	/* Pareto(1.2): P(degree 1) = 1 - 2^-1.2 = 56%; a tail past D */
	assert_true(ones > g.n / 2 && ones < g.n * 2 / 3);
	assert_true(max > 8 * GCN_D);
	gcn_graph_free(&g);
}

static void
test_dot_matches_sequential_fmaf_on_every_vpe(void **state)
{
	static const uint32_t lens[] = { 1, 15, 16, 17, 1000, 16384 };
	struct acis_cgra *m = machine(16);
	float *w = malloc(16384 * sizeof(float)), x[16384];
	float *wt = malloc((size_t)16 * 16384 * sizeof(float));
	const float zero = 0.0f;
	uint64_t s = 5;
	size_t i, out_len;
	unsigned int p;

	(void)state;
	assert_non_null(w);
	assert_non_null(wt);
	for (p = 0; p < 16; p++) {
		for (i = 0; i < 16384; i++)
			w[i] = wt[(size_t)p * 16384 + i] =
				(float)(gcn_unit(&s) - 0.5);
		assert_int_equal(acis_cgra_mem_write(m, p + 1, 0, w,
						     16384 * 4), 0);
		assert_int_equal(acis_cgra_mem_write(m, p + 1, 65536, &zero,
						     4), 0);
	}
	load_example(m, "dot.s");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		float y[16];
		uint32_t k;

		for (k = 0; k < lens[i]; k++)
			x[k] = (float)(gcn_unit(&s) * 4.0 - 2.0);
		assert_int_equal(run(m, x, lens[i] * 4, &out_len, NULL), 0);
		assert_int_equal(out_len, sizeof(y));
		memcpy(y, out_buf, sizeof(y));
		for (p = 0; p < 16; p++) {
			float want = 0.0f;

			for (k = 0; k < lens[i]; k++)
				want = fmaf(x[k], wt[(size_t)p * 16384 + k],
					    want);
			assert_float_bits(y[p], want);
		}
	}
	free(w);
	free(wt);
	acis_cgra_free(m);
}

static void
test_axpy_matches_fmaf_for_any_length(void **state)
{
	static const uint32_t lens[] = { 0, 1, 255, 256, 257, 4000, 16384 };
	struct acis_cgra *m = machine(1);
	static float y[16384], x[16384];
	const float a = -1.75f;
	uint64_t s = 9;
	size_t i, out_len;
	uint32_t k;

	(void)state;
	for (k = 0; k < 16384; k++)
		y[k] = (float)(gcn_unit(&s) * 100.0 - 50.0);
	assert_int_equal(acis_cgra_mem_write(m, 1, 0, y, sizeof(y)), 0);
	assert_int_equal(acis_cgra_mem_write(m, 1, 65536, &a, 4), 0);
	load_example(m, "axpy.s");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (k = 0; k < lens[i]; k++)
			x[k] = (float)(gcn_unit(&s) * 8.0 - 4.0);
		assert_int_equal(run(m, x, lens[i] * 4, &out_len, NULL), 0);
		assert_int_equal(out_len, lens[i] * 4);
		for (k = 0; k < lens[i]; k++) {
			float got;

			memcpy(&got, out_buf + 4 * k, 4);
			assert_float_bits(got, fmaf(a, x[k], y[k]));
		}
	}
	acis_cgra_free(m);
}

/*
 * The loader fuses vle32.v vd; vmacc.vx vd, x, sin; streamout.v vd into
 * one pass. A machine that fuses nothing must do the same in every case:
 * one VPE, several (VRF interleave equal to and above the VPE count),
 * a broadcast bank and own banks (each holding other data), payloads
 * ending mid-chunk and mid-word, v0[x] inside vd, a branch into the
 * middle of a fused three, too little output room, a load outside the
 * bank, budgets ending between the three, stream_out at an odd address
 * and stream_out overlapping stream_in. On one VPE the loop around the
 * three (add; csrrw rt, sin_left; bne back) runs as a whole: the same
 * cases apply, stopping in any iteration, and loops whose registers
 * overlap (a step that is the last sin_left, a v0[x] index that is).
 */
enum { LAYOUT_APART, LAYOUT_ODD_OUT, LAYOUT_OVERLAP };

/* The fusing machine's fused_runs and loop_iters, summed over run_both's
 * runs: the tests check the fused paths did run, not only agree. */
static uint64_t fused_seen, loops_seen, whole_seen;

static void
run_both(const char *src, unsigned int n_vpe, uint64_t budget,
	 const void *in, size_t len, size_t out_cap, int layout, int *rc_out)
{
	static uint8_t buf[2][8192];
	struct acis_cgra *m[2];
	struct acis_cgra_run_stats st[2];
	size_t ol[2];
	float y[256];
	int rc[2], f, r, fused[2] = {0, 0}, loops = 0;
	unsigned int k, p;

	for (f = 0; f < 2; f++) {
		struct acis_cgra_config c = {
			.n_vpe = n_vpe, .bank_size = 4096, .vrf_regs = 16,
			.insn_budget = budget,
			.flags = f ? ACIS_CGRA_F_NOFUSE : 0,
		};

		m[f] = acis_cgra_create(&c);
		assert_non_null(m[f]);
		for (p = 1; p <= n_vpe; p++) {
			for (k = 0; k < 256; k++)
				y[k] = (float)k * 0.25f - 7.0f * (float)p;
			assert_int_equal(acis_cgra_mem_write(m[f], p, 0, y,
							     sizeof(y)), 0);
		}
		load(m[f], src);
		/* after the load, which clears the VRFs: a per VPE */
		for (p = 0; p < n_vpe; p++)
			set_vrf(m[f], p, 3, 1.5f + (float)p);
		for (k = 0; k < m[f]->n_insns; k++) {
			fused[f] += m[f]->prog[k].op == XOP_VLE_MACC_OUT ||
				    m[f]->prog[k].op == XOP_VLE_MACC_OUT_LOOP;
			loops += m[f]->prog[k].op == XOP_VLE_MACC_OUT_LOOP;
		}
	}
	assert_true(fused[0] > 0);
	assert_int_equal(fused[1], 0);
	/* the loop, on one VPE only */
	assert_int_equal(loops, n_vpe == 1 ? 1 : 0);
	/* twice: registers and VRFs carry over to the next run */
	for (r = 0; r < 2; r++) {
		for (f = 0; f < 2; f++) {
			uint8_t *b = buf[f], *o = b;
			const void *i = in;

			memset(b, 0x5a, sizeof(buf[f]));
			if (layout == LAYOUT_ODD_OUT) {
				o = b + 1;
			} else if (layout == LAYOUT_OVERLAP) {
				/* the payload at b, stream_out from b + 4 */
				memcpy(b, in, len);
				i = b;
				o = b + 4;
			}
			rc[f] = acis_cgra_run(m[f], i, len, o, out_cap,
					      &ol[f], &st[f]);
		}
		assert_int_equal(rc[0], rc[1]);
		assert_int_equal(ol[0], ol[1]);
		assert_memory_equal(&st[0], &st[1], sizeof(st[0]));
		assert_memory_equal(buf[0], buf[1], sizeof(buf[0]));
		assert_string_equal(acis_cgra_last_error(m[0]),
				    acis_cgra_last_error(m[1]));
		for (k = 0; k < ACIS_CGRA_XREGS; k++)
			assert_int_equal(acis_cgra_xreg(m[0], k),
					 acis_cgra_xreg(m[1], k));
		for (p = 0; p < n_vpe; p++)
			for (k = 0; k < 256; k++)
				assert_int_equal(fbits(vrf(m[0], p, k)),
						 fbits(vrf(m[1], p, k)));
	}
	*rc_out = rc[0];
	fused_seen += m[0]->fused_runs;
	loops_seen += m[0]->loop_iters;
	whole_seen += m[0]->whole_loops;
	assert_int_equal(m[1]->fused_runs + m[1]->loop_iters +
			 m[1]->whole_loops, 0);
	acis_cgra_free(m[0]);
	acis_cgra_free(m[1]);
}

static void
test_fused_sequence_runs_as_its_three_instructions(void **state)
{
	/* %u: v0[x]'s element; %u: the bank step; %s: the vle's bank;
	 * %s: the loop's step and sin_left registers; %s: the second vle's
	 * bank */
	static const char loop[] =
		"\taddi x1, x0, %u\n"
		"\tvsetivli x0, 24, e32, m2\n"
		"\taddi x9, x0, %u\n"
		"again:\tvle32.v v2, (x7)%s\n"
		"\tvmacc.vx v2, x1, sin\n"
		"\tstreamout.v v2\n"
		"%s"
		/* the second run branches into the middle of a fused
		 * three, the first runs it from its vle */
		"\tbne x6, x0, mid\n"
		"\taddi x6, x0, 1\n"
		"\tvle32.v v4, (x0)%s\n"
		"mid:\tvmacc.vx v4, x0, sin\n"
		"\tstreamout.v v4\n"
		"\twfi\n";
	static const struct {
		unsigned int n_vpe;
		const char *bank;
		unsigned int x;     /* 35: inside v2 (elements 32..55); 300:
				     * beyond the VRF's 256 */
		unsigned int step;  /* bytes; 2000: the fourth chunk is off
				     * the bank */
		const char *tail;   /* NULL: add x7, x7, x9; x5 = sin_left */
		int whole;          /* the loop may run whole: one axpy over
				     * contiguous y (stream_loop_whole) */
	} cases[] = {
		{1, "", 3, 96, NULL, 1}, {1, ", b1", 3, 96, NULL, 1},
		{4, ", b2", 3, 96, NULL}, {3, ", b1", 3, 96, NULL},
		{3, "", 3, 96, NULL}, {4, "", 3, 96, NULL},
		{1, "", 35, 96, NULL}, {3, ", b3", 35, 96, NULL},
		{1, "", 300, 96, NULL}, {4, ", b1", 300, 96, NULL},
		{1, "", 3, 2000, NULL}, {4, ", b1", 3, 2000, NULL},
		/* the step is the previous sin_left (x5 starts at 0) */
		{1, "", 3, 96, "\tadd x7, x7, x5\n"
			       "\tcsrrw x5, sin_left, x0\n"
			       "\tbne x5, x0, again\n"},
		/* sin_left is the step, and the branch tests another
		 * register (zero): one iteration */
		{1, ", b1", 3, 0, "\tadd x7, x7, x9\n"
				  "\tcsrrw x9, sin_left, x0\n"
				  "\tbne x5, x0, again\n"},
		/* sin_left is v0[x]'s index: after the first chunk, inside
		 * v2 (136 bytes: 40), beyond the VRF (400 bytes: 304) or in
		 * neither */
		{1, "", 3, 8, "\tadd x7, x7, x9\n"
			      "\tcsrrw x1, sin_left, x0\n"
			      "\tbne x1, x0, again\n"},
		/* the branch's operands the other way round */
		{1, "", 3, 96, "\tadd x7, x9, x7\n"
			       "\tcsrrw x5, sin_left, x0\n"
			       "\tbne x0, x5, again\n", 1},
	};
	static const char step_tail[] = "\tadd x7, x7, x9\n"
					"\tcsrrw x5, sin_left, x0\n"
					"\tbne x5, x0, again\n";
	static const size_t lens[] = {0, 5, 60, 96, 97, 136, 300, 400};
	static const size_t caps[] = {4096, 100};
	struct acis_cgra_config bad = {.flags = 0x4};
	char src[1024];
	float in[128];
	size_t c, l, o;
	uint64_t b;
	int rc, layout, fused_runs = 0;

	(void)state;
	assert_null(acis_cgra_create(&bad)); /* an unknown flag */
	for (c = 0; c < 128; c++)
		in[c] = (float)c * 1.25f - 33.0f;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t fused0 = fused_seen, loops0 = loops_seen;
		uint64_t whole0 = whole_seen;

		snprintf(src, sizeof(src), loop, cases[c].x, cases[c].step,
			 cases[c].bank,
			 cases[c].tail != NULL ? cases[c].tail : step_tail,
			 cases[c].bank);
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
			for (o = 0; o < sizeof(caps) / sizeof(caps[0]); o++)
				for (layout = LAYOUT_APART;
				     layout <= LAYOUT_OVERLAP; layout++) {
					run_both(src, cases[c].n_vpe, 0, in,
						 lens[l], caps[o], layout,
						 &rc);
					fused_runs += rc == 0;
				}
		/* every budget up to the whole run: some end between the
		 * three fused instructions */
		for (b = 1; b <= 40; b++)
			run_both(src, cases[c].n_vpe, b, in, 300, 4096,
				 LAYOUT_APART, &rc);
		/* the whole loop ran where it may, and only there */
		if (cases[c].whole)
			assert_true(whole_seen > whole0);
		else
			assert_int_equal(whole_seen, whole0);
		/* with v0[x] outside vd and the VRF, the fused paths ran:
		 * the loop on one VPE, the three on several with one bank */
		if (cases[c].x < 32 || (cases[c].x >= 56 && cases[c].x < 256)) {
			if (cases[c].n_vpe == 1)
				assert_true(loops_seen > loops0);
			else if (cases[c].bank[0] != '\0')
				assert_true(fused_seen > fused0);
		}
	}
	/* VL 0 (AVL 0 is allowed): no iteration takes anything from
	 * stream_in, so the loop ends only with the budget, and never runs
	 * whole, though its step (x9 = 0) is one chunk of none */
	{
		uint64_t whole0 = whole_seen;

		run_both("\tvsetivli x0, 0, e32, m2\n"
			 "again:\tvle32.v v2, (x7)\n"
			 "\tvmacc.vx v2, x1, sin\n"
			 "\tstreamout.v v2\n"
			 "\tadd x7, x7, x9\n"
			 "\tcsrrw x5, sin_left, x0\n"
			 "\tbne x5, x0, again\n"
			 "\twfi\n", 1, 200, in, 96, 4096, LAYOUT_APART, &rc);
		assert_int_equal(rc, ACIS_CGRA_E_BUDGET);
		assert_int_equal(whole_seen, whole0);
	}
	assert_true(fused_runs > 0);
	assert_true(fused_seen > 0 && loops_seen > 0 && whole_seen > 0);
}

/* ---- program files ---- */

static char tmpdir[] = "/tmp/acis_test_cgra_XXXXXX";

/* A file of the test's temporary directory holding len bytes of data. */
static const char *
write_tmp(const char *name, const void *data, size_t len)
{
	static char path[sizeof(tmpdir) + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void
test_read_file_gives_every_byte_and_a_nul_after_them(void **state)
{
	static const uint8_t data[5] = {'a', 0, 0xff, 'b', '\n'};
	char err[256];
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(acis_cgra_read_file(write_tmp("data", data, 5), &buf,
					     &len, err, sizeof(err)), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, data, 5);
	assert_int_equal(buf[5], 0);
	free(buf);
	assert_int_equal(acis_cgra_read_file(write_tmp("empty", "", 0), &buf,
					     &len, err, sizeof(err)), 0);
	assert_int_equal(len, 0);
	assert_int_equal(buf[0], 0);
	free(buf);
	/* a file whose size stat does not know is read to its end */
	assert_int_equal(acis_cgra_read_file("/proc/self/status", &buf, &len,
					     err, sizeof(err)), 0);
	assert_true(len > 0);
	assert_int_equal(strlen((const char *)buf), len);
	assert_non_null(strstr((const char *)buf, "\nPid:"));
	free(buf);
}

static void
test_read_file_names_a_missing_file_and_why(void **state)
{
	char err[256], path[sizeof(tmpdir) + 32];
	uint8_t *buf = (uint8_t *)"x";
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/nowhere/p.bin", tmpdir);
	assert_int_equal(acis_cgra_read_file(path, &buf, &len, err,
					     sizeof(err)), -1);
	assert_null(buf);
	assert_string_equal(err + strlen(tmpdir),
			    "/nowhere/p.bin: No such file or directory");
	assert_memory_equal(err, tmpdir, strlen(tmpdir));
	/* a directory opens, but is no file */
	assert_int_equal(acis_cgra_read_file(tmpdir, &buf, &len, err,
					     sizeof(err)), -1);
	assert_null(buf);
	assert_contains(err, ": Is a directory");
}

static void
test_read_program_decodes_bin_as_little_endian_words(void **state)
{
	static const uint8_t bytes[8] = {0x01, 0x02, 0x03, 0x04,
					 0xfe, 0xdc, 0xba, 0x98};
	char err[256];
	uint32_t *w;
	size_t n;

	(void)state;
	assert_int_equal(acis_cgra_read_program(write_tmp("p.bin", bytes, 8),
						&w, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(w[0], 0x04030201);
	assert_int_equal(w[1], 0x98badcfe);
	free(w);
}

static void
test_read_program_assembles_any_name_but_bin(void **state)
{
	const char *src = "\taddi x1, x0, 5\n\twfi\n";
	uint32_t *w, *want;
	size_t n, n_want;
	char err[256];
	const char *names[] = {"p.s", "p", "p.bin.txt", "p.asm"};
	size_t i;

	(void)state;
	want = assemble(src, &n_want);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(acis_cgra_read_program(
			write_tmp(names[i], src, strlen(src)), &w, &n, err,
			sizeof(err)), 0);
		assert_int_equal(n, n_want);
		assert_memory_equal(w, want, 4 * n);
		free(w);
	}
	free(want);
	/* assembler errors name the file, line and column */
	src = "\twfi\n\tfrobnicate x1\n";
	assert_int_equal(acis_cgra_read_program(
		write_tmp("bad.s", src, strlen(src)), &w, &n, err,
		sizeof(err)), -1);
	assert_null(w);
	assert_contains(err, "/bad.s:2:2: error: unknown mnemonic");
}

static void
test_read_program_refuses_bin_not_whole_words(void **state)
{
	char err[256];
	uint32_t *w;
	size_t n;
	const char *p;

	(void)state;
	p = write_tmp("odd.bin", "abcdef", 6);
	assert_int_equal(acis_cgra_read_program(p, &w, &n, err, sizeof(err)),
			 -1);
	assert_null(w);
	assert_int_equal(n, 0);
	assert_string_equal(err + strlen(p), ": 6 bytes, expected a non-empty "
			    "multiple of 4 (whole 32-bit little-endian words)");
	p = write_tmp("empty.bin", "", 0);
	assert_int_equal(acis_cgra_read_program(p, &w, &n, err, sizeof(err)),
			 -1);
	assert_null(w);
	assert_contains(err, "/empty.bin: 0 bytes, expected a non-empty");
	/* text that happens to be whole words is words all the same */
	p = write_tmp("text.bin", "wfi\n", 4);
	assert_int_equal(acis_cgra_read_program(p, &w, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(w[0], 0x0a696677);
	free(w);
}

static void
test_read_program_refuses_text_holding_nul(void **state)
{
	static const uint8_t words[8] = {0x73, 0x00, 0x50, 0x10,
					 0x13, 0x00, 0x00, 0x00};
	char err[256];
	uint32_t *w;
	size_t n;
	const char *p;

	(void)state;
	p = write_tmp("words.s", words, 8);
	assert_int_equal(acis_cgra_read_program(p, &w, &n, err, sizeof(err)),
			 -1);
	assert_null(w);
	assert_string_equal(err + strlen(p), ": not assembler text (it holds "
			    "NUL bytes; binary programs must end in .bin)");
	p = write_tmp("nul_after.s", "\twfi\n\0", 6);
	assert_int_equal(acis_cgra_read_program(p, &w, &n, err, sizeof(err)),
			 -1);
	assert_contains(err, "binary programs must end in .bin");
}

static int
setup_tmpdir(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown_tmpdir(void **state)
{
	char cmd[sizeof(tmpdir) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- the NGRA extensions (doc/cgra-isa.md §4.1) ---- */

/* Words with edges: zeros of both signs, infinities, NaNs, denormals,
 * integer extremes, bytes and halves at their limits. */
static const uint32_t EDGE[] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
	0xff800000, 0x7fc00000, 0x7fa00001, 0xffc12345, 0x00000001,
	0x807fffff, 0x7f7fffff, 0x4f000000, 0xcf000001, 0x7fffffff,
	0x80000001, 0xffffffff, 0x7f7f7f7f, 0x80808080, 0x01ff7f80,
	0x7fff8000, 0xffff0001, 0x40490fdb, 0xc2f6e979, 0x3e99999a,
	0x12345678, 0xdeadbeef, 0x00010001, 0x4b800001, 0xcb7fffff,
	0x00800000, 0x3f000000, 0x40000000, 0xc0000000, 0x447a0000,
	0x80000000, 0x00000000, 0xc47a0000, 0x7f800001, 0x00000003,
};
#define NEDGE (sizeof(EDGE) / sizeof(EDGE[0]))

static float
bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static int
nan_bits(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* Our reading of max and min: a NaN operand gives 0x7fc00000; -0 is
 * below +0; otherwise the larger (smaller) value. */
static uint32_t
ref_fmax(uint32_t a, uint32_t b, int max)
{
	float x = bitsf(a), y = bitsf(b);

	if (nan_bits(a) || nan_bits(b))
		return 0x7fc00000u;
	if (x == y && x == 0.0f) /* two zeros: by sign */
		return max ? (a == 0x80000000u ? b : a) :
			     (a == 0x80000000u ? a : b);
	if (x == y)
		return a;
	return (x > y) == max ? a : b;
}

static uint32_t
ref_sat(uint32_t a, uint32_t b, unsigned int bits, int sign)
{
	uint32_t r = 0, mask = (1u << bits) - 1;
	unsigned int k;

	for (k = 0; k < 32; k += bits) {
		long x = (long)((a >> k) & mask), y = (long)((b >> k) & mask);
		long lo = 0, hi = (long)mask, v;

		if (sign) {
			if (x > hi / 2)
				x -= hi + 1;
			if (y > hi / 2)
				y -= hi + 1;
			lo = -(hi / 2) - 1;
			hi = hi / 2;
		}
		v = x + y;
		v = v < lo ? lo : v > hi ? hi : v;
		r |= ((uint32_t)v & mask) << k;
	}
	return r;
}

/* FP32 a + b, a - b or a * b, rounded once: volatile operands and
 * result, so that it is one single-precision operation that the compiler
 * can neither fuse with another nor keep wider. */
static uint32_t
ref_farith(char op, uint32_t a, uint32_t b)
{
	volatile float x = bitsf(a), y = bitsf(b), r;

	r = op == '+' ? x + y : op == '-' ? x - y : x * y;
	return fbits(r);
}

/* The reference result of element-wise sub-op name on stream word a and
 * register word b; *any_nan set when only NaN-ness is specified. */
static uint32_t
ref_vext(const char *name, uint32_t a, uint32_t b, int *any_nan)
{
	double x = bitsf(a);

	*any_nan = 0;
	if (!strcmp(name, "vadd.i32"))
		return a + b;
	if (!strcmp(name, "vmul.i32"))
		return (uint32_t)((uint64_t)a * b);
	if (!strcmp(name, "vand"))
		return a & b;
	if (!strcmp(name, "vor"))
		return a | b;
	if (!strcmp(name, "vxor"))
		return a ^ b;
	if (!strcmp(name, "vmax.i32"))
		return (int32_t)a >= (int32_t)b ? a : b;
	if (!strcmp(name, "vmin.i32"))
		return (int32_t)a <= (int32_t)b ? a : b;
	if (!strcmp(name, "vmax.u32"))
		return a >= b ? a : b;
	if (!strcmp(name, "vmin.u32"))
		return a <= b ? a : b;
	if (!strcmp(name, "vfmax.f32"))
		return ref_fmax(a, b, 1);
	if (!strcmp(name, "vfmin.f32"))
		return ref_fmax(a, b, 0);
	if (!strcmp(name, "vsadd.i8"))
		return ref_sat(a, b, 8, 1);
	if (!strcmp(name, "vsadd.u8"))
		return ref_sat(a, b, 8, 0);
	if (!strcmp(name, "vsadd.i16"))
		return ref_sat(a, b, 16, 1);
	if (!strcmp(name, "vsadd.u16"))
		return ref_sat(a, b, 16, 0);
	if (!strcmp(name, "vfdiv.f32")) {
		*any_nan = 1;
		return fbits((float)(x / (double)bitsf(b)));
	}
	if (!strcmp(name, "vfsqrt.f32")) {
		*any_nan = 1;
		return fbits((float)sqrt(x));
	}
	if (!strcmp(name, "vfcvt.f.x"))
		return fbits((float)(int32_t)a);
	if (!strcmp(name, "vfcvt.x.f")) {
		if (nan_bits(a))
			return 0;
		if (x >= 2147483648.0)
			return 0x7fffffffu;
		if (x < -2147483648.0)
			return 0x80000000u;
		return (uint32_t)(int32_t)trunc(x);
	}
	if (!strcmp(name, "vmflt.f32"))
		return x < (double)bitsf(b) ? 0xffffffffu : 0;
	if (!strcmp(name, "vfadd.f32")) {
		*any_nan = 1;
		return ref_farith('+', a, b);
	}
	if (!strcmp(name, "vfsub.f32")) {
		*any_nan = 1;
		return ref_farith('-', a, b);
	}
	if (!strcmp(name, "vfmul.f32")) {
		*any_nan = 1;
		return ref_farith('*', a, b);
	}
	fail_msg("no reference for %s", name);
	return 0;
}

/* The element-wise ops that ref_vext knows (all but the pairs and
 * vmerge). */
static const char *const vext_names[] = {
	"vadd.i32", "vmul.i32", "vand", "vor", "vxor", "vmax.i32",
	"vmin.i32", "vmax.u32", "vmin.u32", "vfmax.f32", "vfmin.f32",
	"vsadd.i8", "vsadd.u8", "vsadd.i16", "vsadd.u16",
	"vfdiv.f32", "vfsqrt.f32", "vfcvt.f.x", "vfcvt.x.f",
	"vmflt.f32", "vfadd.f32", "vfsub.f32", "vfmul.f32",
};

/* Every element-wise op on every pair of edge words (each stream word
 * against each register word, on every VPE), bit for bit. */
static void
test_ngra_elementwise_ops_match_the_reference(void **state)
{
	static const unsigned int vpes[] = { 1, 3, 16 };
	unsigned int k, vi, p, i, j;
	char src[128];

	(void)state;
	for (k = 0; k < sizeof(vext_names) / sizeof(vext_names[0]); k++)
		for (vi = 0; vi < 3; vi++) {
			struct acis_cgra *m = machine(vpes[vi]);

			snprintf(src, sizeof(src), "vsetivli x0, %zu, e32, m4\n"
				 "%s v8, sin\nwfi\n", NEDGE, vext_names[k]);
			load(m, src);
			for (j = 0; j < NEDGE; j++) {
				/* register word j (rotated by VPE) against
				 * every stream word */
				for (p = 0; p < vpes[vi]; p++)
					for (i = 0; i < NEDGE; i++)
						set_vrf(m, p, 128 + i, bitsf(
							EDGE[(j + p) % NEDGE]));
				assert_int_equal(run(m, EDGE, sizeof(EDGE),
						     NULL, NULL), 0);
				for (p = 0; p < vpes[vi]; p++)
					for (i = 0; i < NEDGE; i++) {
						uint32_t b = EDGE[(j + p) %
								  NEDGE];
						int any;
						uint32_t want = ref_vext(
							vext_names[k], EDGE[i],
							b, &any);
						uint32_t got =
							fbits(vrf(m, p, 128 + i));

						if (got == want ||
						    (any && nan_bits(got) &&
						     nan_bits(want)))
							continue;
						fail_msg("%s 0x%08x, 0x%08x "
							 "(vpe %u): 0x%08x, "
							 "want 0x%08x",
							 vext_names[k],
							 EDGE[i], b, p, got,
							 want);
					}
			}
			acis_cgra_free(m);
		}
}

/* Fails unless got is the reference of op name on words a and b. */
static void
check_vext(const char *name, uint32_t a, uint32_t b, uint32_t got,
	   unsigned int vpe, uint32_t elem)
{
	int any;
	uint32_t want = ref_vext(name, a, b, &any);

	if (got == want || (any && nan_bits(got) && nan_bits(want)))
		return;
	fail_msg("%s 0x%08x, 0x%08x (vpe %u, element %u): 0x%08x, want "
		 "0x%08x", name, a, b, vpe, elem, got, want);
}

/* The register form: a[i] is element x[rs] + i of each VPE's own VRF
 * (here from 301, not a register's first element), on every pair of edge
 * words, bit for bit; the stream is neither read nor moved (sin_left
 * after it is the whole payload), and the cost is the stream form's with
 * all VL words there. */
static void
test_ngra_register_operand_reads_the_vrf_not_the_stream(void **state)
{
	static const unsigned int vpes[] = { 1, 3, 16 };
	static const uint8_t payload[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct acis_cgra_run_stats st;
	unsigned int k, vi, p, i, j;
	char src[160];

	(void)state;
	for (k = 0; k < sizeof(vext_names) / sizeof(vext_names[0]); k++)
		for (vi = 0; vi < 3; vi++) {
			const unsigned int n = vpes[vi];
			struct acis_cgra *m = machine(n);

			snprintf(src, sizeof(src), "vsetivli x0, %zu, e32, m4\n"
				 "addi x9, x0, 301\n%s v8, x9\n"
				 "csrrw x10, sin_left, x0\nwfi\n", NEDGE,
				 vext_names[k]);
			load(m, src);
			for (j = 0; j < NEDGE; j++) {
				/* a[i] edge word i + p, b[i] word i + j:
				 * over the j, every pair on every VPE */
				for (p = 0; p < n; p++)
					for (i = 0; i < NEDGE; i++) {
						set_vrf(m, p, 301 + i, bitsf(
							EDGE[(i + p) % NEDGE]));
						set_vrf(m, p, 128 + i, bitsf(
							EDGE[(i + j) % NEDGE]));
					}
				assert_int_equal(run(m, payload,
						     sizeof(payload), NULL,
						     &st), 0);
				assert_int_equal(acis_cgra_xreg(m, 10),
						 sizeof(payload));
				assert_int_equal(st.in_consumed, 0);
				assert_int_equal(st.element_ops, NEDGE * n);
				/* four scalar and configuration
				 * instructions, then 1 + ceil(40 / 16) */
				assert_int_equal(st.cycles, 4 + 1 + 3);
				for (p = 0; p < n; p++)
					for (i = 0; i < NEDGE; i++) {
						uint32_t a = EDGE[(i + p) %
								  NEDGE];

						check_vext(vext_names[k], a,
							   EDGE[(i + j) %
								NEDGE],
							   fbits(vrf(m, p,
								     128 + i)),
							   p, 128 + i);
						assert_int_equal(
							fbits(vrf(m, p,
								  301 + i)),
							a);
					}
			}
			acis_cgra_free(m);
		}
}

/* A word of VPE p at element e for the overlap cases: distinct, both
 * signs, finite. */
static uint32_t
overlap_word(unsigned int p, unsigned int e)
{
	return (0x3f800000u + e * 0x13579u + p * 0x10001u) ^
	       (e % 3 == 0 ? 0x80000000u : 0);
}

/* An operand group that overlaps vd gives what reading all of it first
 * gives: at vd's own offset, behind vd, ahead of it, adjacent, on one
 * VPE (its array loops and, for vfmax and vfsqrt, the element loop) and
 * on several; nothing outside vd changes. vxor of a group with itself
 * zeroes it. */
static void
test_ngra_register_operand_overlapping_vd_reads_before_writing(void **state)
{
	static const char *const ops[] = {
		"vadd.i32", "vfsub.f32", "vfmul.f32", "vfmax.f32",
		"vsadd.i8", "vfsqrt.f32",
	};
	/* vd is elements 128..167 */
	static const unsigned int offs[] = { 128, 120, 136, 97, 167, 88,
					     168 };
	static const unsigned int vpes[] = { 1, 3, 16 };
	enum { LO = 64, HI = 224 }; /* the elements filled and checked */
	unsigned int k, o, vi, p, e;
	char src[160];

	(void)state;
	for (vi = 0; vi < 3; vi++) {
		const unsigned int n = vpes[vi];
		struct acis_cgra *m = machine(n);

		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
				const unsigned int x = offs[o];

				snprintf(src, sizeof(src), "vsetivli x0, 40, "
					 "e32, m4\naddi x9, x0, %u\n"
					 "%s v8, x9\nwfi\n", x, ops[k]);
				load(m, src);
				for (p = 0; p < n; p++)
					for (e = LO; e < HI; e++)
						set_vrf(m, p, e, bitsf(
							overlap_word(p, e)));
				assert_int_equal(run(m, NULL, 0, NULL, NULL),
						 0);
				for (p = 0; p < n; p++)
					for (e = LO; e < HI; e++) {
						uint32_t got =
							fbits(vrf(m, p, e));

						if (e < 128 || e >= 168) {
							assert_int_equal(got,
								overlap_word(
									p, e));
							continue;
						}
						check_vext(ops[k],
							   overlap_word(p,
								x + e - 128),
							   overlap_word(p, e),
							   got, p, e);
					}
			}
		/* x5 = 64, v4's first element: v4 ^= v4 */
		load(m, "vsetivli x0, 40, e32, m4\naddi x5, x0, 64\n"
			"vxor v4, x5\nwfi\n");
		for (p = 0; p < n; p++)
			for (e = LO; e < HI; e++)
				set_vrf(m, p, e, bitsf(overlap_word(p, e)));
		assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
		for (p = 0; p < n; p++)
			for (e = LO; e < HI; e++)
				assert_int_equal(fbits(vrf(m, p, e)),
						 e < 104 ? 0 :
						 overlap_word(p, e));
		acis_cgra_free(m);
	}
}

/* The register form's bounds (the group must end inside the VRF, checked
 * at run time: E_VRF, vd untouched), the stream op after it reading the
 * stream's first words, and the pairs from a register group. */
static void
test_ngra_register_operand_bounds_and_the_stream_after_it(void **state)
{
	static const unsigned int vpes[] = { 1, 3 };
	static const float s[4] = { 0.5f, -3.0f, 1e-3f, 7.0f };
	/* vmaxloc's pairs: (a0, a1) beats (b0, b1), (b2, b3) beats
	 * (a2, a3) */
	static const float a[4] = { 2.0f, 5.0f, 1.0f, 1.0f };
	static const float b[4] = { 1.0f, 3.0f, 3.0f, 0.0f };
	unsigned int vi, p, i;

	(void)state;
	for (vi = 0; vi < 2; vi++) {
		const unsigned int n = vpes[vi];
		struct acis_cgra *m = machine(n);

		/* x5 = 65533: elements 65533..65536, one past the end */
		load(m, "vsetivli x0, 4, e32, m1\nlui x5, 0x10\n"
			"addi x5, x5, -3\nvfadd.f32 v8, x5\nwfi\n");
		for (p = 0; p < n; p++)
			for (i = 0; i < 4; i++) {
				set_vrf(m, p, 65532 + i, 2.0f + (float)i);
				set_vrf(m, p, 128 + i, 1.0f);
			}
		assert_int_equal(run(m, s, sizeof(s), NULL, NULL),
				 ACIS_CGRA_E_VRF);
		assert_string_equal(acis_cgra_last_error(m),
				    "instruction 3 (vfadd.f32): operand "
				    "v0[65533..65536] is outside the VRF's "
				    "65536 elements");
		for (p = 0; p < n; p++)
			for (i = 0; i < 4; i++)
				assert_float_bits(vrf(m, p, 128 + i), 1.0f);
		/* x5 = 65532: the VRF's last four elements */
		load(m, "vsetivli x0, 4, e32, m1\nlui x5, 0x10\n"
			"addi x5, x5, -4\nvfadd.f32 v8, x5\nwfi\n");
		for (p = 0; p < n; p++)
			for (i = 0; i < 4; i++) {
				set_vrf(m, p, 65532 + i, 2.0f + (float)i);
				set_vrf(m, p, 128 + i, 1.0f);
			}
		assert_int_equal(run(m, s, sizeof(s), NULL, NULL), 0);
		for (p = 0; p < n; p++)
			for (i = 0; i < 4; i++)
				assert_float_bits(vrf(m, p, 128 + i),
						  3.0f + (float)i);
		/* a register x above 2^31 is past the end, not wrapped */
		load(m, "vsetivli x0, 4, e32, m1\naddi x5, x0, -1\n"
			"vmul.i32 v8, x5\nwfi\n");
		assert_int_equal(run(m, s, sizeof(s), NULL, NULL),
				 ACIS_CGRA_E_VRF);
		assert_contains(acis_cgra_last_error(m),
				"operand v0[4294967295..4294967298]");
		/* vfmul from the VRF, then vfadd from the stream: the
		 * stream op takes words 0..3; the pairs of vmaxloc from
		 * elements 32..35 */
		load(m, "vsetivli x0, 4, e32, m1\naddi x9, x0, 32\n"
			"vfmul.f32 v8, x9\nvfadd.f32 v12, sin\n"
			"vmaxloc.f32 v16, x9\nwfi\n");
		for (p = 0; p < n; p++)
			for (i = 0; i < 4; i++) {
				set_vrf(m, p, 32 + i, a[i] + (float)p);
				set_vrf(m, p, 128 + i, -1.5f);
				set_vrf(m, p, 192 + i, 0.25f);
				set_vrf(m, p, 256 + i, b[i] + (float)p);
			}
		assert_int_equal(run(m, s, sizeof(s), NULL, NULL), 0);
		for (p = 0; p < n; p++) {
			for (i = 0; i < 4; i++) {
				assert_int_equal(fbits(vrf(m, p, 128 + i)),
						 ref_farith('*', fbits(a[i] +
							(float)p),
							fbits(-1.5f)));
				assert_int_equal(fbits(vrf(m, p, 192 + i)),
						 ref_farith('+', fbits(s[i]),
							    fbits(0.25f)));
			}
			/* pair (2 + p, 5 + p) beats (1 + p, 3 + p); pair
			 * (1 + p, 1 + p) loses to (3 + p, p) */
			assert_float_bits(vrf(m, p, 256), 2.0f + (float)p);
			assert_float_bits(vrf(m, p, 257), 5.0f + (float)p);
			assert_float_bits(vrf(m, p, 258), 3.0f + (float)p);
			assert_float_bits(vrf(m, p, 259), (float)p);
		}
		acis_cgra_free(m);
	}
}

/* Fold words into an accumulator one run at a time, in the order perm
 * gives; the accumulator's bits. */
static uint32_t
fold_words(struct acis_cgra *m, const uint32_t *w, const unsigned int *perm,
	   unsigned int n, unsigned int width)
{
	unsigned int i, e;

	for (e = 0; e < width; e++)
		set_vrf(m, 0, 128 + e, bitsf(w[perm[0] * width + e]));
	for (i = 1; i < n; i++)
		assert_int_equal(run(m, w + perm[i] * width, width * 4, NULL,
				     NULL), 0);
	return fbits(vrf(m, 0, 128)) ^ fbits(vrf(m, 0, 129)) * 31u;
}

static int
next_perm(unsigned int *a, unsigned int n)
{
	unsigned int i = n - 1, j, t;

	while (i > 0 && a[i - 1] >= a[i])
		i--;
	if (i == 0) { /* the last: back to the first */
		for (j = n - 1; i < j; i++, j--)
			t = a[i], a[i] = a[j], a[j] = t;
		return 0;
	}
	j = n - 1;
	while (a[j] <= a[i - 1])
		j--;
	t = a[i - 1], a[i - 1] = a[j], a[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = a[i], a[i] = a[j], a[j] = t;
	return 1;
}

/* (value, index) pairs: the larger value, the smaller index between
 * equals, a number over a NaN, -0 below +0; and the folds of a commutative
 * op give the same bits in every order (all 720 orders of six
 * contributions holding ties, NaNs and both zeros). */
static void
test_ngra_maxloc_minloc_pairs_give_the_same_bits_in_any_order(void **state)
{
	/* value, index: pairs 1 and 4 tie on 2.0, 2 is a NaN, 3 and 5
	 * are the two zeros */
	static const uint32_t pairs[] = {
		0x40000000, 7, 0x7fc00001, 1, 0x80000000, 9,
		0x40000000, 3, 0x00000000, 9, 0xbf800000, 2,
	};
	static const uint32_t fm[] = {
		0x7fc00001, 5, 0x80000000, 4, 0x00000000, 4, 0xff800000, 0,
		0x7f800000, 9, 0xffc00000, 1,
	};
	struct acis_cgra *m = machine(1);
	unsigned int perm[6] = { 0, 1, 2, 3, 4, 5 };
	uint32_t first = 0, firstm = 0, firstf = 0, h;
	int n = 0;

	(void)state;
	load(m, "vsetivli x0, 2, e32, m1\nvmaxloc.f32 v8, sin\nwfi\n");
	fold_words(m, pairs, perm, 6, 2);
	/* the max: 2.0 at index 3 (the smaller of 7 and 3) */
	assert_int_equal(fbits(vrf(m, 0, 128)), 0x40000000);
	assert_int_equal(fbits(vrf(m, 0, 129)), 3);
	do {
		h = fold_words(m, pairs, perm, 6, 2);
		if (n++ == 0)
			first = h;
		else if (h != first)
			fail_msg("vmaxloc: order %u%u%u%u%u%u gives other bits",
				 perm[0], perm[1], perm[2], perm[3], perm[4],
				 perm[5]);
	} while (next_perm(perm, 6));
	assert_int_equal(n, 720);
	load(m, "vsetivli x0, 2, e32, m1\nvminloc.f32 v8, sin\nwfi\n");
	n = 0;
	do {
		h = fold_words(m, pairs, perm, 6, 2);
		if (n++ == 0)
			firstm = h;
		else if (h != firstm)
			fail_msg("vminloc: an order gives other bits");
	} while (next_perm(perm, 6));
	assert_int_equal(n, 720);
	/* the min: -1.0 at 2 */
	fold_words(m, pairs, perm, 6, 2);
	assert_int_equal(fbits(vrf(m, 0, 128)), 0xbf800000);
	assert_int_equal(fbits(vrf(m, 0, 129)), 2);
	/* only NaNs and zeros: -0 below +0, the smaller index between
	 * equal indices' NaNs */
	load(m, "vsetivli x0, 2, e32, m1\nvminloc.f32 v8, sin\nwfi\n");
	fold_words(m, (const uint32_t[]){0x00000000, 4, 0x80000000, 4,
					 0x7fc00001, 0},
		   (const unsigned int[]){0, 1, 2}, 3, 2);
	assert_int_equal(fbits(vrf(m, 0, 128)), 0x80000000);
	/* vfmax over the same orders: canonical NaN once any is NaN */
	load(m, "vsetivli x0, 2, e32, m1\nvfmax.f32 v8, sin\nwfi\n");
	n = 0;
	do {
		h = fold_words(m, fm, perm, 6, 2);
		if (n++ == 0)
			firstf = h;
		else if (h != firstf)
			fail_msg("vfmax: an order gives other bits");
	} while (next_perm(perm, 6));
	assert_int_equal(n, 720);
	/* a NaN among them: the canonical NaN; the other lane's max */
	assert_int_equal(fbits(vrf(m, 0, 128)), 0x7fc00000);
	assert_int_equal(fbits(vrf(m, 0, 129)), 9);
	acis_cgra_free(m);
}

/* Partial predication: a compare makes the mask, a merge selects by it
 * (both paths computed, one kept); a mask past the VRF is a fault. */
static void
test_ngra_vmflt_and_vmerge_select_by_a_mask(void **state)
{
	struct acis_cgra *m = machine(3);
	const float in[4] = { 1.0f, -2.0f, 5.0f, 0.5f };
	const float other[4] = { 10.0f, 20.0f, 30.0f, 40.0f };
	unsigned int p, i;
	char err[256];

	(void)state;
	/* mask (v4) = stream < v4; then v8 = mask ? stream : v8 */
	load(m, "vsetivli x0, 4, e32, m1\nvmflt.f32 v4, sin\n"
		"addi x5, x0, 64\nvmerge v8, sin, x5\nwfi\n");
	for (p = 0; p < 3; p++)
		for (i = 0; i < 4; i++) {
			set_vrf(m, p, 64 + i, (float)p); /* threshold */
			set_vrf(m, p, 128 + i, other[i]);
		}
	/* the stream twice: once for the compare, once for the merge */
	{
		float two[8];

		memcpy(two, in, sizeof(in));
		memcpy(two + 4, in, sizeof(in));
		assert_int_equal(run(m, two, sizeof(two), NULL, NULL), 0);
	}
	for (p = 0; p < 3; p++)
		for (i = 0; i < 4; i++)
			assert_float_bits(vrf(m, p, 128 + i),
					  in[i] < (float)p ? in[i] : other[i]);
	load(m, "vsetivli x0, 4, e32, m1\nlui x5, 0x10\n"
		"vmerge v8, sin, x5\nwfi\n");
	assert_int_equal(run(m, in, sizeof(in), NULL, NULL),
			 ACIS_CGRA_E_VRF);
	assert_string_equal(acis_cgra_last_error(m),
			    "instruction 2 (vmerge): mask v0[65536..65539] is "
			    "outside the VRF's 65536 elements");
	(void)err;
	acis_cgra_free(m);
}

/* Our reading of the tree: level by level, element 2js + s onto 2js. */
static uint32_t
ref_tree(const uint32_t *w, unsigned int n, uint32_t (*op)(uint32_t,
							    uint32_t))
{
	uint32_t t[64];
	unsigned int s, j;

	memcpy(t, w, n * 4);
	for (s = 1; s < n; s *= 2)
		for (j = 0; j + s < n; j += 2 * s)
			t[j] = op(t[j], t[j + s]);
	return t[0];
}

static uint32_t
add_f(uint32_t a, uint32_t b)
{
	return fbits(bitsf(a) + bitsf(b));
}

static uint32_t
max_i(uint32_t a, uint32_t b)
{
	return (int32_t)a > (int32_t)b ? a : b;
}

static uint32_t
max_f(uint32_t a, uint32_t b)
{
	return ref_fmax(a, b, 1);
}

/* The cross-lane reduction tree: v0[x] gets the group reduced in the
 * tree's order (float sums whose grouping shows), on every VPE, for
 * lengths that are and are not powers of two. */
static void
test_ngra_reductions_fold_a_group_in_tree_order(void **state)
{
	static const unsigned int lens[] = { 1, 2, 3, 7, 16, 33, 40 };
	struct acis_cgra *m = machine(3);
	uint32_t w[3][40];
	unsigned int li, p, i;
	char src[160];

	(void)state;
	for (p = 0; p < 3; p++)
		for (i = 0; i < 40; i++)
			w[p][i] = i % 5 == 0 ? fbits(1e8f * (float)(p + 1)) :
				  i % 5 == 1 ? fbits(-1e8f) :
				  fbits(1.0f + (float)i / 8.0f);
	for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		unsigned int n = lens[li];

		snprintf(src, sizeof(src), "vsetivli x0, %u, e32, m4\n"
			 "addi x5, x0, 1000\nvredsum.f32 x5, v8\n"
			 "addi x6, x0, 1001\nvredmax.i32 x6, v8\n"
			 "addi x7, x0, 1002\nvredmax.f32 x7, v8\nwfi\n", n);
		load(m, src);
		for (p = 0; p < 3; p++)
			for (i = 0; i < n; i++)
				set_vrf(m, p, 128 + i, bitsf(w[p][i]));
		assert_int_equal(run(m, NULL, 0, NULL, NULL), 0);
		for (p = 0; p < 3; p++) {
			assert_int_equal(fbits(vrf(m, p, 1000)),
					 ref_tree(w[p], n, add_f));
			assert_int_equal(fbits(vrf(m, p, 1001)),
					 ref_tree(w[p], n, max_i));
			assert_int_equal(fbits(vrf(m, p, 1002)),
					 ref_tree(w[p], n, max_f));
		}
	}
	/* a destination past the VRF is a fault */
	load(m, "vsetivli x0, 4, e32, m1\nlui x5, 0x10\n"
		"vredsum.i32 x5, v8\nwfi\n");
	assert_int_equal(run(m, NULL, 0, NULL, NULL), ACIS_CGRA_E_VRF);
	assert_contains(acis_cgra_last_error(m), "(vredsum.i32)");
	acis_cgra_free(m);
}

/* What the loader and the decoder refuse, and the text forms. */
static void
test_ngra_encodings_and_refusals(void **state)
{
	struct acis_cgra *m = machine(1);
	char err[256], buf[64];
	uint32_t *w;
	size_t n;

	(void)state;
	load_refused(m, "vsetivli x0, 3, e32, m1\nvmaxloc.f32 v8, sin\nwfi\n",
		     err, sizeof(err));
	assert_string_equal(err, "instruction 1 (vmaxloc.f32): vmaxloc.f32 "
			    "works on (value, index) pairs: VL 3 is odd");
	/* sub-op 31 of each family, and 26, the first past vfmul.f32 */
	acis_cgra_disasm_one(0xf800032b, buf, sizeof(buf));
	assert_string_equal(buf, ".word 0xf800032b");
	acis_cgra_disasm_one(0xf80003ab, buf, sizeof(buf));
	assert_string_equal(buf, ".word 0xf80003ab");
	acis_cgra_disasm_one(0xd000032b, buf, sizeof(buf));
	assert_string_equal(buf, ".word 0xd000032b");
	assert_int_equal(acis_cgra_load(m, (const uint32_t[]){0xd000032b,
				0x10500073}, 2, err, sizeof(err)),
			 ACIS_CGRA_E_LOAD);
	assert_contains(err, "unknown element-wise sub-op 26 (0..25)");
	/* an x field in an element-wise op is its register operand */
	acis_cgra_disasm_one(0x0040232b, buf, sizeof(buf));
	assert_string_equal(buf, "vadd.i32 v8, x1");
	load(m, "vsetivli x0, 4, e32, m1\nvadd.i32 v8, x1\nwfi\n");
	/* each form assembles to its word and comes back as written */
	w = assemble("vsadd.i8 v8, sin\nvmerge v4, sin, x5\n"
		     "vredmin.i32 x7, v16\nvfadd.f32 v8, sin\n"
		     "vfsub.f32 v8, x1\nvfmul.f32 v8, x9\n"
		     "vfmul.f32 v4095, x31\nvxor v4, x5\n"
		     "vmaxloc.f32 v2, x3\n", &n);
	assert_int_equal(n, 9);
	{
		static const char *const text[] = {
			"vsadd.i8 v8, sin", "vmerge v4, sin, x5",
			"vredmin.i32 x7, v16", "vfadd.f32 v8, sin",
			"vfsub.f32 v8, x1", "vfmul.f32 v8, x9",
			"vfmul.f32 v4095, x31", "vxor v4, x5",
			"vmaxloc.f32 v2, x3",
		};
		size_t i;

		for (i = 0; i < n; i++) {
			acis_cgra_disasm_one(w[i], buf, sizeof(buf));
			assert_string_equal(buf, text[i]);
		}
	}
	/* sub-op 23, 24, 25 in 31:27; rs in 26:22 */
	assert_int_equal(w[3], 0xb800232b);
	assert_int_equal(w[4], 0xc040232b);
	assert_int_equal(w[5], 0xca40232b);
	assert_int_equal(w[6], 0xcfffff2b);
	free(w);
	assert_int_not_equal(acis_cgra_asm("vsadd.i8 v8, sin, x1\n", "t.s",
					   &w, &n, err, sizeof(err)), 0);
	assert_contains(err, "vsadd.i8 takes 2 operands (vsadd.i8 vd, "
			"sin|rs)");
	/* x0 cannot name the operand: its rs = 0 is the stream's */
	assert_int_not_equal(acis_cgra_asm("vfmul.f32 v8, x0\n", "t.s", &w,
					   &n, err, sizeof(err)), 0);
	assert_string_equal(err, "t.s:1:15: error: x0 cannot hold the "
			    "operand's first element (rs = 0 encodes the "
			    "stream: write 'sin', or use x1..x31)");
	assert_int_not_equal(acis_cgra_asm("vfadd.f32 v8, v9\n", "t.s", &w,
					   &n, err, sizeof(err)), 0);
	assert_contains(err, "expected 'sin' or a scalar register x1..x31");
	/* vmerge keeps its form: the mask is its rs */
	assert_int_not_equal(acis_cgra_asm("vmerge v8, x5\n", "t.s", &w, &n,
					   err, sizeof(err)), 0);
	assert_contains(err, "vmerge takes 3 operands (vmerge vd, sin, rs)");
	acis_cgra_free(m);
}

/* The running folds of examples/cgra (the sum kept in bank 1): each
 * packet's reply and the bank after it are what C computes. */
static void
test_fold_examples_keep_their_result_in_the_bank(void **state)
{
	static uint8_t pkt[3][1600], want[65536], got[65536];
	struct acis_cgra *m = machine(1);
	uint64_t s = 11;
	size_t len, i, k;

	(void)state;
	/* saturating byte sums, a payload that ends in a partial word */
	for (k = 0; k < 2; k++) {
		const int sgn = k == 1;

		load_example(m, sgn ? "satsum_i8.s" : "satsum_u8.s");
		memset(want, 0, sizeof(want));
		assert_int_equal(acis_cgra_mem_write(m, 1, 0, want, 65536), 0);
		for (i = 0; i < 3 * 1501; i++)
			pkt[i / 1501][i % 1501] = (uint8_t)gcn_rand(&s);
		for (int p = 0; p < 3; p++) {
			assert_int_equal(run(m, pkt[p], 1501, &len, NULL), 0);
			assert_int_equal(len, 1501);
			for (i = 0; i < 1501; i++) {
				int v = sgn ? (int8_t)want[i] + (int8_t)pkt[p][i] :
					      want[i] + pkt[p][i];

				v = sgn ? (v > 127 ? 127 : v < -128 ? -128 : v) :
					  (v > 255 ? 255 : v);
				want[i] = (uint8_t)v;
			}
			assert_memory_equal(out_buf, want, 1501);
			assert_int_equal(acis_cgra_mem_read(m, 1, 0, got, 1504),
					 0);
			assert_memory_equal(got, want, 1501);
		}
	}
	/* MAXLOC: the same best pairs whatever order three packets come
	 * in (values drawn from few, so that ties on the value are many) */
	{
		static const unsigned int orders[6][3] = {
			{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
			{1, 2, 0}, {2, 0, 1}, {2, 1, 0},
		};
		uint32_t best[200], init[200];
		unsigned int o;

		for (i = 0; i < 100; i++) {
			init[2 * i] = 0xff800000u; /* -inf */
			init[2 * i + 1] = 0x7fffffffu;
		}
		for (k = 0; k < 3; k++)
			for (i = 0; i < 100; i++) {
				float v = (float)(gcn_rand(&s) % 4) - 1.5f;
				uint32_t idx = (uint32_t)(gcn_rand(&s) % 50);

				memcpy(pkt[k] + 8 * i, &v, 4);
				memcpy(pkt[k] + 8 * i + 4, &idx, 4);
			}
		memcpy(best, init, sizeof(best));
		for (k = 0; k < 3; k++)
			for (i = 0; i < 100; i++) {
				float v, b;
				uint32_t idx;

				memcpy(&v, pkt[k] + 8 * i, 4);
				memcpy(&idx, pkt[k] + 8 * i + 4, 4);
				memcpy(&b, &best[2 * i], 4);
				if (v > b || (v == b && (int32_t)idx <
							(int32_t)best[2 * i + 1])) {
					memcpy(&best[2 * i], &v, 4);
					best[2 * i + 1] = idx;
				}
			}
		load_example(m, "maxloc.s");
		for (o = 0; o < 6; o++) {
			assert_int_equal(acis_cgra_mem_write(m, 1, 0, init,
							     sizeof(init)), 0);
			for (k = 0; k < 3; k++)
				assert_int_equal(run(m, pkt[orders[o][k]], 800,
						     &len, NULL), 0);
			assert_int_equal(len, 800);
			assert_memory_equal(out_buf, best, 800);
		}
	}
	/* multiply-add: acc = fmaf(a, x, acc), packet after packet */
	{
		float acc[300], x[300], a = 1.5f;

		load_example(m, "madd.s");
		for (i = 0; i < 300; i++)
			acc[i] = (float)i * 0.125f;
		assert_int_equal(acis_cgra_mem_write(m, 1, 0, acc, sizeof(acc)),
				 0);
		assert_int_equal(acis_cgra_mem_write(m, 1, 65536, &a, 4), 0);
		for (k = 0; k < 2; k++) {
			for (i = 0; i < 300; i++) {
				x[i] = (float)(gcn_rand(&s) % 1000) / 7.0f;
				acc[i] = fmaf(a, x[i], acc[i]);
			}
			assert_int_equal(run(m, x, sizeof(x), &len, NULL), 0);
			assert_int_equal(len, sizeof(x));
			assert_memory_equal(out_buf, acc, sizeof(acc));
		}
	}
	acis_cgra_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lui_and_addi_build_a_32_bit_constant),
		cmocka_unit_test(
			test_addi_sign_extends_and_add_wraps_modulo_2_32),
		cmocka_unit_test(test_writes_to_x0_are_discarded),
		cmocka_unit_test(test_bne_loop_runs_the_counted_iterations),
		cmocka_unit_test(
			test_bne_backward_and_forward_offsets_reach_their_labels),
		cmocka_unit_test(
			test_registers_persist_from_one_packet_to_the_next),
		cmocka_unit_test(test_packet_length_reads_the_incoming_length),
		cmocka_unit_test(test_packet_length_write_cuts_the_output),
		cmocka_unit_test(
			test_packet_length_above_the_streamed_bytes_is_refused),
		cmocka_unit_test(test_cycle_reads_the_cost_model_so_far),
		cmocka_unit_test(
			test_sin_word_pops_words_and_x0_destination_does_not),
		cmocka_unit_test(
			test_sin_word_zero_extends_a_partial_word_and_reads_zero_after),
		cmocka_unit_test(test_tile_counts_the_tiles_it_moves_past),
		cmocka_unit_test(test_vsetivli_writes_vl_to_rd),
		cmocka_unit_test(test_vle32_loads_each_vpe_from_its_own_bank),
		cmocka_unit_test(
			test_vle32_from_a_named_bank_broadcasts_to_every_vpe),
		cmocka_unit_test(test_vse32_stores_each_vpe_to_its_own_bank),
		cmocka_unit_test(
			test_vse32_to_a_named_bank_interleaves_the_vpes),
		cmocka_unit_test(
			test_vfadd_adds_stream_in_to_a_group_on_every_vpe),
		cmocka_unit_test(
			test_vfmul_multiplies_stream_in_by_a_group_on_every_vpe),
		cmocka_unit_test(
			test_each_arithmetic_instruction_consumes_vl_stream_elements),
		cmocka_unit_test(
			test_a_stream_shorter_than_vl_leaves_the_tail_undisturbed),
		cmocka_unit_test(
			test_vmacc_vx_fuses_with_v0_at_x_as_the_fixed_operand),
		cmocka_unit_test(
			test_vmacc_xv_accumulates_a_fused_dot_product_into_v0_at_x),
		cmocka_unit_test(
			test_spvacc_xv_gathers_and_skips_indices_at_or_above_vlmax),
		cmocka_unit_test(
			test_spvacc_vx_scatters_v0_at_x_and_skips_sentinels),
		cmocka_unit_test(test_the_sentinel_bound_follows_lmul),
		cmocka_unit_test(
			test_lmul_2048_loads_32768_elements_with_one_vle32),
		cmocka_unit_test(
			test_streamout_emits_element_by_element_across_vpes),
		cmocka_unit_test(
			test_streamout_sin_forwards_bytes_including_a_partial_word),
		cmocka_unit_test(
			test_an_exhausted_instruction_budget_ends_the_run),
		cmocka_unit_test(test_vle32_past_the_end_of_a_bank_is_refused),
		cmocka_unit_test(test_vse32_past_the_end_of_a_bank_is_refused),
		cmocka_unit_test(
			test_a_base_register_moves_the_kernels_view_of_a_bank),
		cmocka_unit_test(
			test_v0_at_an_element_beyond_the_vrf_is_refused),
		cmocka_unit_test(
			test_stream_out_beyond_the_output_buffer_is_refused),
		cmocka_unit_test(test_running_without_a_program_is_refused),
		cmocka_unit_test(test_loader_refuses_an_unknown_opcode),
		cmocka_unit_test(test_loader_refuses_reserved_bits),
		cmocka_unit_test(
			test_loader_refuses_a_branch_target_outside_the_program),
		cmocka_unit_test(
			test_loader_refuses_a_branch_offset_that_is_not_whole_words),
		cmocka_unit_test(test_loader_refuses_a_program_without_wfi),
		cmocka_unit_test(
			test_loader_refuses_a_path_that_runs_past_the_end),
		cmocka_unit_test(test_loader_refuses_lmul_above_2048),
		cmocka_unit_test(test_loader_refuses_lmul_above_a_smaller_vrf),
		cmocka_unit_test(test_loader_refuses_avl_above_vlmax),
		cmocka_unit_test(
			test_loader_refuses_a_vector_instruction_before_vsetivli),
		cmocka_unit_test(test_loader_refuses_paths_that_disagree_on_vl),
		cmocka_unit_test(
			test_loader_accepts_paths_that_agree_on_the_configuration),
		cmocka_unit_test(
			test_loader_refuses_a_misaligned_register_group),
		cmocka_unit_test(
			test_loader_refuses_a_register_beyond_a_smaller_vrf),
		cmocka_unit_test(test_loader_refuses_an_unknown_csr),
		cmocka_unit_test(
			test_loader_refuses_a_write_to_a_read_only_csr),
		cmocka_unit_test(
			test_loader_refuses_a_bank_that_does_not_exist),
		cmocka_unit_test(
			test_loader_refuses_own_bank_access_with_fewer_banks_than_vpes),
		cmocka_unit_test(test_loader_refuses_an_empty_program),
		cmocka_unit_test(
			test_loader_refuses_a_program_larger_than_bank_0),
		cmocka_unit_test(
			test_a_refused_load_unloads_the_previous_program),
		cmocka_unit_test(
			test_ap_start_runs_the_loader_on_bank_0_and_raises_ready),
		cmocka_unit_test(test_wfi_raises_ap_done_which_clears_on_read),
		cmocka_unit_test(
			test_a_refused_start_sets_err_and_leaves_ready_low),
		cmocka_unit_test(
			test_stop_unloads_and_a_reload_runs_the_new_program),
		cmocka_unit_test(
			test_a_load_clears_registers_vrfs_and_the_tile),
		cmocka_unit_test(
			test_an_unknown_control_register_is_refused),
		cmocka_unit_test(
			test_passthrough_mode_forwards_packets_unchanged),
		cmocka_unit_test(
			test_the_passthrough_program_forwards_packets_unchanged),
		cmocka_unit_test(
			test_assembler_names_an_unknown_mnemonic_with_line_and_column),
		cmocka_unit_test(test_assembler_names_a_bad_register),
		cmocka_unit_test(
			test_assembler_names_an_immediate_out_of_range),
		cmocka_unit_test(test_assembler_names_an_unknown_label),
		cmocka_unit_test(test_assembler_names_a_duplicate_label),
		cmocka_unit_test(test_assembler_names_a_wrong_operand_count),
		cmocka_unit_test(
			test_assembler_takes_labels_comments_and_crlf),
		cmocka_unit_test(
			test_every_example_round_trips_through_the_disassembler),
		cmocka_unit_test(
			test_any_words_survive_disassembly_and_reassembly),
		cmocka_unit_test(
			test_disasm_one_shows_a_branch_offset_and_unknown_words),
		cmocka_unit_test(
			test_gcn_os_matches_the_csr_aggregation_bit_for_bit),
		cmocka_unit_test(
			test_gcn_ws_matches_the_csr_aggregation_bit_for_bit),
		cmocka_unit_test(
			test_the_graph_generator_is_power_law_with_heavy_rows),
		cmocka_unit_test(test_dot_matches_sequential_fmaf_on_every_vpe),
		cmocka_unit_test(test_axpy_matches_fmaf_for_any_length),
		cmocka_unit_test(
			test_fused_sequence_runs_as_its_three_instructions),
		cmocka_unit_test(
			test_read_file_gives_every_byte_and_a_nul_after_them),
		cmocka_unit_test(test_ngra_elementwise_ops_match_the_reference),
		cmocka_unit_test(
			test_ngra_register_operand_reads_the_vrf_not_the_stream),
		cmocka_unit_test(
			test_ngra_register_operand_overlapping_vd_reads_before_writing),
		cmocka_unit_test(
			test_ngra_register_operand_bounds_and_the_stream_after_it),
		cmocka_unit_test(
			test_ngra_maxloc_minloc_pairs_give_the_same_bits_in_any_order),
		cmocka_unit_test(test_ngra_vmflt_and_vmerge_select_by_a_mask),
		cmocka_unit_test(test_ngra_reductions_fold_a_group_in_tree_order),
		cmocka_unit_test(test_ngra_encodings_and_refusals),
		cmocka_unit_test(test_fold_examples_keep_their_result_in_the_bank),
		cmocka_unit_test(test_read_file_names_a_missing_file_and_why),
		cmocka_unit_test(
			test_read_program_decodes_bin_as_little_endian_words),
		cmocka_unit_test(test_read_program_assembles_any_name_but_bin),
		cmocka_unit_test(test_read_program_refuses_bin_not_whole_words),
		cmocka_unit_test(test_read_program_refuses_text_holding_nul),
	};

	return cmocka_run_group_tests(tests, setup_tmpdir, teardown_tmpdir);
}
