/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the look-aside CGRA (lib/cgra): the instruction loader,
 * the run loop and its kernels, the assembler and the disassembler.
 *
 * Input layout. Byte 0 configures the run:
 *   bit 0     0: binary program, 1: assembly text
 *   bits 1-2  VPEs: 1, 2, 3, 5 (VRF interleaves 1, 2, 4, 8)
 *   bits 3-4  VRF registers: 4096, 16, 256, 1024
 *   bit 5     data banks: one per VPE, or a single one
 *   bits 6-7  stream_out room: payload length, 0 (no buffer), 64 bytes,
 *             128 KiB
 * Binary: bytes 1-2 are the word count n (little endian, cut to what the
 * input holds), then n little-endian words, then the payload.
 * Text: the assembly source up to the first NUL, then the payload.
 *
 * A fresh machine per input (so a crash reproduces from the file alone)
 * with 128 KiB banks and a budget of 2000 instructions per run, so loops
 * end quickly. The program is loaded, the banks and VRFs are filled from
 * the payload (seed_state), the program runs twice on the payload
 * (registers, VRFs and banks persist between runs), then once in
 * pass-through mode.
 *
 * Invariants:
 *  - where the loader fused a sequence of the program, a machine that
 *    fuses nothing (ACIS_CGRA_F_NOFUSE) given the same program, state
 *    and payloads ends every run the same: result code, output bytes,
 *    counts, error message, registers, VRFs (a NaN may come out as
 *    another NaN);
 *  - disassembling any words and assembling the text gives the same
 *    words back (acis_cgra.h promises it); for assembled text too;
 *  - the assembler fails with "fuzz.s:LINE:COL: error: ..." and no words;
 *  - a refused load says why and leaves the machine not ready (a run
 *    answers E_NOTREADY);
 *  - a run returns 0 or a run-time error code, executes at most the
 *    budget, consumes at most the payload, on success writes at most
 *    out_cap bytes and raises AP_DONE, on failure says why;
 *  - pass-through copies the payload unchanged;
 *  - no access outside the machine's buffers (ASan), no UB (UBSan).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_cgra.h"
#include "cgra_internal.h" /* the decoded program: what was fused */
#include "fuzz_check.h"

#define BUDGET 2000
#define BANK_SIZE ((size_t)128 << 10)
#define ERRLEN 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* disasm(words) assembles back to the same words. */
static void
check_roundtrip(const uint32_t *w, size_t n)
{
	char *text = acis_cgra_disasm(w, n);
	char err[ERRLEN];
	uint32_t *w2 = NULL;
	size_t n2 = 0, i;
	int rc;

	FUZZ_CHECK(text != NULL);
	rc = acis_cgra_asm(text, "disasm.s", &w2, &n2, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "disassembly does not assemble: %s\n%s", err,
			text);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(n2 == n);
	for (i = 0; i < n; i++) {
		if (w2[i] != w[i])
			fprintf(stderr, "word %zu: 0x%08x -> 0x%08x\n%s", i,
				(unsigned int)w[i], (unsigned int)w2[i], text);
		FUZZ_CHECK(w2[i] == w[i]);
	}
	for (i = 0; i < n && i < 64; i++) {
		char small[12];
		int len = acis_cgra_disasm_one(w[i], small, sizeof(small));

		FUZZ_CHECK(len > 0);
		FUZZ_CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	}
	free(w2);
	free(text);
}

/* n bytes the same, except that a NaN word may be any other NaN: which
 * operand's NaN an operation passes on is not specified (doc/cgra-isa.md
 * §4), and the compiler may pick another form of the same fused
 * multiply-add in another kernel. */
static int
same_words(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		uint32_t u, v;

		memcpy(&u, x + i, 4);
		memcpy(&v, y + i, 4);
		if (u != v && !((u & 0x7fffffff) > 0x7f800000 &&
				(v & 0x7fffffff) > 0x7f800000))
			return 0;
	}
	return memcmp(x + i, y + i, n - i) == 0;
}

/* Whether the loader fused a sequence of m's program (vle32.v, vmacc.vx,
 * streamout.v): comparing with an unfused machine costs a second machine
 * and reading both VRFs, so it is done where it can find something. */
static int
fused(const struct acis_cgra *m)
{
	size_t i;

	for (i = 0; i < m->n_insns; i++)
		if (m->prog[i].op == XOP_VLE_MACC_OUT ||
		    m->prog[i].op == XOP_VLE_MACC_OUT_LOOP)
			return 1;
	return 0;
}

/* State a program finds at its first run, the same on every machine of
 * one input: each data bank starts with the payload (its first byte the
 * bank's number), VPE p's first VRF elements with the payload's words
 * plus p + 1, so banks and VPEs differ and v0 is not zero. */
static void
seed_state(struct acis_cgra *m, const uint8_t *in, size_t in_len)
{
	struct acis_cgra_config c;
	float v[64];
	size_t k, n = in_len < BANK_SIZE ? in_len : BANK_SIZE;
	unsigned int b, p;

	acis_cgra_get_config(m, &c);
	for (b = 1; b <= c.n_banks && n != 0; b++) {
		uint8_t first = (uint8_t)b;

		FUZZ_CHECK(acis_cgra_mem_write(m, b, 0, in, n) == 0);
		FUZZ_CHECK(acis_cgra_mem_write(m, b, 0, &first, 1) == 0);
	}
	k = in_len / 4 < 64 ? in_len / 4 : 64;
	if (k != 0)
		memcpy(v, in, k * 4);
	for (p = 0; p < c.n_vpe; p++) {
		size_t i;

		for (i = 0; i < k; i++)
			v[i] += 1.0f;
		FUZZ_CHECK(acis_cgra_vrf_write(m, p, 0, v, k) == 0);
	}
}

/*
 * u fuses nothing (ACIS_CGRA_F_NOFUSE) and has had what m had: after the
 * same run everything the host can see of the two must be the same
 * (results, counts, error messages, registers, VRFs; the banks differ
 * only through vse, which is not fused).
 */
static void
check_same(struct acis_cgra *m, struct acis_cgra *u, const uint8_t *in,
	   size_t in_len, const uint8_t *out, size_t out_cap, int rc,
	   size_t out_len, const struct acis_cgra_run_stats *st)
{
	static float vm[4096 * 16], vu[4096 * 16];
	struct acis_cgra_run_stats su;
	struct acis_cgra_config c;
	uint8_t *ou = out_cap != 0 ? malloc(out_cap) : NULL;
	size_t ul = (size_t)-1;
	unsigned int p, r;

	FUZZ_CHECK(out_cap == 0 || ou != NULL);
	if (ou != NULL)
		memset(ou, 0xa5, out_cap);
	FUZZ_CHECK(acis_cgra_run(u, in, in_len, ou, out_cap, &ul, &su) == rc);
	FUZZ_CHECK(ul == out_len);
	FUZZ_CHECK(memcmp(&su, st, sizeof(su)) == 0);
	FUZZ_CHECK(out_cap == 0 || same_words(ou, out, out_cap));
	FUZZ_CHECK(strcmp(acis_cgra_last_error(m),
			  acis_cgra_last_error(u)) == 0);
	for (r = 0; r < ACIS_CGRA_XREGS; r++)
		FUZZ_CHECK(acis_cgra_xreg(m, r) == acis_cgra_xreg(u, r));
	acis_cgra_get_config(m, &c);
	for (p = 0; p < c.n_vpe; p++) {
		FUZZ_CHECK(acis_cgra_vrf_read(m, p, 0, vm, c.vrf_regs * 16) ==
			   0);
		FUZZ_CHECK(acis_cgra_vrf_read(u, p, 0, vu, c.vrf_regs * 16) ==
			   0);
		FUZZ_CHECK(same_words(vm, vu,
				      c.vrf_regs * 16 * sizeof(float)));
	}
	free(ou);
}

static void
check_run(struct acis_cgra *m, struct acis_cgra *u, const uint8_t *in,
	  size_t in_len, uint8_t *out, size_t out_cap, int loaded)
{
	struct acis_cgra_run_stats st;
	size_t out_len = (size_t)-1;
	int rc;

	if (out_cap != 0)
		memset(out, 0xa5, out_cap);
	rc = acis_cgra_run(m, in, in_len, out, out_cap, &out_len, &st);
	if (u != NULL)
		check_same(m, u, in, in_len, out, out_cap, rc, out_len, &st);
	FUZZ_CHECK(acis_cgra_strerror(rc) != NULL);
	FUZZ_CHECK(acis_cgra_last_error(m) != NULL);
	if (!loaded) {
		FUZZ_CHECK(rc == ACIS_CGRA_E_NOTREADY);
		return;
	}
	FUZZ_CHECK(rc == 0 || rc == ACIS_CGRA_E_BUDGET ||
		   rc == ACIS_CGRA_E_MEM || rc == ACIS_CGRA_E_VRF ||
		   rc == ACIS_CGRA_E_OUTFULL || rc == ACIS_CGRA_E_PKTLEN);
	FUZZ_CHECK(st.instructions <= BUDGET);
	FUZZ_CHECK(st.vector_insns <= st.instructions);
	FUZZ_CHECK(st.in_consumed <= in_len);
	FUZZ_CHECK(acis_cgra_reg_read(m, ACIS_CGRA_REG_ERR) ==
		   (uint32_t)-rc);
	if (rc == 0) {
		FUZZ_CHECK(st.instructions >= 1); /* wfi at least */
		FUZZ_CHECK(out_len <= out_cap);
		FUZZ_CHECK(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
			   ACIS_CGRA_AP_DONE);
	} else {
		FUZZ_CHECK(out_len == 0);
		FUZZ_CHECK(acis_cgra_last_error(m)[0] != '\0');
		if (rc == ACIS_CGRA_E_BUDGET)
			FUZZ_CHECK(st.instructions == BUDGET);
	}
}

static void
run_machine(const uint8_t cfgb, const uint32_t *w, size_t n,
	    const uint8_t *in, size_t in_len)
{
	static const unsigned int vpes[4] = {1, 2, 3, 5};
	static const unsigned int vregs[4] = {4096, 16, 256, 1024};
	struct acis_cgra_config cfg;
	struct acis_cgra_counters cnt;
	struct acis_cgra *m, *u;
	char err[ERRLEN];
	size_t out_cap, out_len;
	uint8_t *out;
	int rc, loaded;

	memset(&cfg, 0, sizeof(cfg));
	cfg.n_vpe = vpes[cfgb >> 1 & 3];
	cfg.vrf_regs = vregs[cfgb >> 3 & 3];
	cfg.n_banks = cfgb & 0x20 ? 1 : cfg.n_vpe;
	cfg.bank_size = BANK_SIZE;
	cfg.insn_budget = BUDGET;
	m = acis_cgra_create(&cfg);
	FUZZ_CHECK(m != NULL);
	u = NULL;

	switch (cfgb >> 6) {
	case 0:
		out_cap = in_len;
		break;
	case 1:
		out_cap = 0;
		break;
	case 2:
		out_cap = 64;
		break;
	default:
		out_cap = (size_t)128 << 10;
		break;
	}
	/* exactly out_cap bytes, so ASan sees a write past the end; no
	 * buffer at all when there is no room (the API allows NULL) */
	out = out_cap != 0 ? malloc(out_cap) : NULL;
	FUZZ_CHECK(out_cap == 0 || out != NULL);
	if (in_len == 0)
		in = NULL;

	memset(err, 0x55, sizeof(err));
	rc = acis_cgra_load(m, w, n, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == ACIS_CGRA_E_LOAD);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	loaded = rc == 0;
	if (loaded && fused(m)) {
		cfg.flags = ACIS_CGRA_F_NOFUSE;
		u = acis_cgra_create(&cfg);
		FUZZ_CHECK(u != NULL);
		FUZZ_CHECK(acis_cgra_load(u, w, n, NULL, 0) == 0);
		FUZZ_CHECK(!fused(u));
		seed_state(u, in, in_len);
	}
	if (loaded)
		seed_state(m, in, in_len);
	if (loaded) {
		FUZZ_CHECK(err[0] == '\0');
		FUZZ_CHECK(n >= 1);
		FUZZ_CHECK(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
			   ACIS_CGRA_AP_READY);
	} else {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(!(acis_cgra_reg_read(m, ACIS_CGRA_REG_CTRL) &
			     ACIS_CGRA_AP_READY));
	}
	check_run(m, u, in, in_len, out, out_cap, loaded);
	check_run(m, u, in, in_len, out, out_cap, loaded);
	acis_cgra_get_counters(m, &cnt);
	if (loaded)
		FUZZ_CHECK(cnt.runs == 2);

	/* pass-through: the payload, unchanged, whatever is loaded */
	free(out);
	out = malloc(in_len + 1);
	FUZZ_CHECK(out != NULL);
	acis_cgra_set_passthrough(m, 1);
	out_len = (size_t)-1;
	rc = acis_cgra_run(m, in, in_len, out, in_len + 1, &out_len, NULL);
	FUZZ_CHECK(rc == 0 && out_len == in_len);
	FUZZ_CHECK(in_len == 0 || memcmp(out, in, in_len) == 0);
	acis_cgra_set_passthrough(m, 0);

	free(out);
	acis_cgra_free(m);
	acis_cgra_free(u);
}

static void
fuzz_binary(uint8_t cfgb, const uint8_t *data, size_t size)
{
	size_t n = 0, i;
	uint32_t *w;

	if (size >= 2) {
		n = (size_t)data[0] | (size_t)data[1] << 8;
		data += 2;
		size -= 2;
	}
	if (n > size / 4)
		n = size / 4;
	w = malloc(n * sizeof(*w) + 1);
	FUZZ_CHECK(w != NULL);
	for (i = 0; i < n; i++)
		w[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 |
		       (uint32_t)data[4 * i + 2] << 16 |
		       (uint32_t)data[4 * i + 3] << 24;
	check_roundtrip(w, n);
	run_machine(cfgb, n != 0 ? w : NULL, n, data + 4 * n, size - 4 * n);
	free(w);
}

static void
fuzz_text(uint8_t cfgb, const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t tlen = nul != NULL ? (size_t)(nul - data) : size;
	char err[ERRLEN];
	uint32_t sentinel, *w = &sentinel; /* the assembler must reset it */
	size_t n = 12345;
	char *text;
	int rc;

	text = malloc(tlen + 1);
	FUZZ_CHECK(text != NULL);
	memcpy(text, data, tlen);
	text[tlen] = '\0';
	memset(err, 0x55, sizeof(err));
	rc = acis_cgra_asm(text, "fuzz.s", &w, &n, err, sizeof(err));
	free(text);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1);
		FUZZ_CHECK(w == NULL && n == 0);
		FUZZ_CHECK(strncmp(err, "fuzz.s:", 7) == 0);
		FUZZ_CHECK(strstr(err, ": error: ") != NULL);
		return;
	}
	FUZZ_CHECK(n == 0 || w != NULL);
	check_roundtrip(w, n);
	if (nul != NULL) {
		data = nul + 1;
		size -= tlen + 1;
	} else {
		size = 0;
	}
	run_machine(cfgb, w, n, data, size);
	free(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t cfgb;

	if (size == 0)
		return 0;
	cfgb = data[0];
	if (cfgb & 1)
		fuzz_text(cfgb, data + 1, size - 1);
	else
		fuzz_binary(cfgb, data + 1, size - 1);
	return 0;
}
