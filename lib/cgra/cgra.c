/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FLASH machine: creation, the AXI-Lite control block, host access to
 * the banks, the instruction loader (decode and check once into the
 * configuration tables) and the run loop that executes a packet handler.
 * Vector kernels are in cgra_kern.c; see acis_cgra.h and doc/cgra-isa.md.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgra_internal.h"

#define DEFAULT_VPE 16
#define DEFAULT_BANK_SIZE ((size_t)1 << 20)
#define DEFAULT_INSN_BANK ((size_t)64 << 10)
#define DEFAULT_BUDGET ((uint64_t)1 << 26)
/* Kernel addresses are 32-bit registers, so a bank larger than 4 GiB
 * could not be addressed in full. */
#define MAX_BANK_SIZE ((size_t)UINT32_MAX)

#define LMUL_LOG2_MAX 11   /* LMUL 2048 */

const char *
acis_cgra_insn_name(const struct cgra_insn *in)
{
	if (in->op == XOP_VLE_MACC_OUT || in->op == XOP_VLE_MACC_OUT_LOOP)
		return acis_cgra_isa_mnemonic(OP_VLE);
	if (in->op >= OP_COUNT)
		return "csrrw";
	if (in->op == OP_VEXT || in->op == OP_VRED)
		return acis_cgra_isa_ext_name(in->op, in->sub);
	return acis_cgra_isa_mnemonic(in->op);
}

int
acis_cgra_fault(struct acis_cgra *m, int code, const char *fmt, ...)
{
	const struct cgra_insn *in = &m->prog[m->pc];
	va_list ap;
	int len;

	len = snprintf(m->errmsg, sizeof(m->errmsg), "instruction %zu (%s): ",
		       m->pc, acis_cgra_insn_name(in));
	if (len < 0 || (size_t)len >= sizeof(m->errmsg))
		return code;
	va_start(ap, fmt);
	vsnprintf(m->errmsg + len, sizeof(m->errmsg) - len, fmt, ap);
	va_end(ap);
	return code;
}

static int
fill_config(struct acis_cgra_config *c)
{
	if (c->n_vpe == 0)
		c->n_vpe = DEFAULT_VPE;
	if (c->n_banks == 0)
		c->n_banks = c->n_vpe;
	if (c->bank_size == 0)
		c->bank_size = DEFAULT_BANK_SIZE;
	if (c->insn_bank_size == 0)
		c->insn_bank_size = DEFAULT_INSN_BANK;
	if (c->vrf_regs == 0)
		c->vrf_regs = ACIS_CGRA_VREGS;
	if (c->insn_budget == 0)
		c->insn_budget = DEFAULT_BUDGET;
	if (c->n_vpe > ACIS_CGRA_MAX_VPE ||
	    c->n_banks > ACIS_CGRA_MAX_BANKS - 1 ||
	    c->bank_size > MAX_BANK_SIZE ||
	    c->insn_bank_size > MAX_BANK_SIZE ||
	    c->vrf_regs < 16 || c->vrf_regs > ACIS_CGRA_VREGS ||
	    (c->vrf_regs & (c->vrf_regs - 1)) != 0 ||
	    (c->flags & ~(unsigned int)(ACIS_CGRA_F_NOFUSE |
					ACIS_CGRA_F_STATELESS)) != 0)
		return -1;
	return 0;
}

struct acis_cgra *
acis_cgra_create(const struct acis_cgra_config *cfg)
{
	struct acis_cgra_config c = {0};
	struct acis_cgra *m;
	size_t vrf_bytes, max_vl;
	unsigned int k;

	if (cfg != NULL)
		c = *cfg;
	if (fill_config(&c) != 0)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->cfg = c;
	m->P = 1;
	while (m->P < c.n_vpe)
		m->P <<= 1;
	m->n_elems = c.vrf_regs * ACIS_CGRA_LANES;
	vrf_bytes = (size_t)m->n_elems * m->P * sizeof(float);
	/* 128: the alignment of the 32-float vectors of P = 32 */
	m->vrf = aligned_alloc(128, vrf_bytes);
	max_vl = (size_t)ACIS_CGRA_LANES *
		 (c.vrf_regs < ACIS_CGRA_MAX_LMUL ? c.vrf_regs :
		  ACIS_CGRA_MAX_LMUL);
	m->tail = malloc(max_vl * sizeof(uint32_t));
	m->bank_size[0] = c.insn_bank_size;
	for (k = 1; k <= c.n_banks; k++)
		m->bank_size[k] = c.bank_size;
	for (k = 0; k <= c.n_banks; k++) {
		/* calloc(0) may return NULL; a bank always has a byte.
		 * Aligned to a cache line, so the kernels' vector loads of
		 * aligned addresses do not straddle two (calloc keeps a
		 * large bank's pages untouched until used). */
		m->bank_mem[k] = calloc(1, m->bank_size[k] + 1 + 63);
		if (m->bank_mem[k] == NULL)
			break;
		m->bank[k] = (uint8_t *)(((uintptr_t)m->bank_mem[k] + 63) &
					 ~(uintptr_t)63);
	}
	if (m->vrf == NULL || m->tail == NULL || k <= c.n_banks) {
		acis_cgra_free(m);
		return NULL;
	}
	memset(m->vrf, 0, vrf_bytes);
	m->tile = -1;
	acis_cgra_kern_init(m);
	return m;
}

void
acis_cgra_free(struct acis_cgra *m)
{
	unsigned int k;

	if (m == NULL)
		return;
	for (k = 0; k < ACIS_CGRA_MAX_BANKS; k++)
		free(m->bank_mem[k]);
	free(m->vrf);
	free(m->tail);
	free(m->prog);
	free(m);
}

void
acis_cgra_get_config(const struct acis_cgra *m, struct acis_cgra_config *c)
{
	*c = m->cfg;
}

/* ---- the instruction loader ---- */

/* Dataflow states of the vector configuration before an instruction,
 * from top to bottom: unvisited, known (one VL and LMUL), conflict (paths
 * set different ones), unset (some path has no vsetivli). */
#define VT_UNVISITED 0
#define VT_UNSET 1
#define VT_CONFLICT 2
#define VT_KNOWN(lmul_log2, avl) (3 + ((uint32_t)(avl) << 4 | (lmul_log2)))
#define VT_LMUL(s) (1u << (((s) - 3) & 0xf))
#define VT_AVL(s) (((s) - 3) >> 4)

struct loader {
	struct acis_cgra *m;
	const uint32_t *w;
	struct cgra_fields *f;
	size_t n;
};

static int
refuse(struct loader *l, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
refuse(struct loader *l, size_t i, const char *fmt, ...)
{
	char *msg = l->m->errmsg;
	size_t cap = sizeof(l->m->errmsg);
	va_list ap;
	int len;

	if (i == SIZE_MAX)
		len = 0;
	else
		len = snprintf(msg, cap, "instruction %zu (%s): ", i,
			       l->f[i].op == OP_VEXT || l->f[i].op == OP_VRED ?
			       acis_cgra_isa_ext_name(l->f[i].op,
						      l->f[i].sub) :
			       acis_cgra_isa_mnemonic(l->f[i].op));
	if (len < 0 || (size_t)len >= cap)
		return ACIS_CGRA_E_LOAD;
	va_start(ap, fmt);
	vsnprintf(msg + len, cap - len, fmt, ap);
	va_end(ap);
	return ACIS_CGRA_E_LOAD;
}

/* Checks that need only the instruction itself. */
static int
check_static(struct loader *l, size_t i)
{
	const struct acis_cgra_config *c = &l->m->cfg;
	struct cgra_fields *f = &l->f[i];
	long long target;
	unsigned int lmul;

	switch (f->op) {
	case OP_BNE:
		if (f->imm % 4 != 0)
			return refuse(l, i, "branch offset %d is not a "
				      "multiple of 4", f->imm);
		target = (long long)i + f->imm / 4;
		if (target < 0 || target >= (long long)l->n)
			return refuse(l, i, "branch target %lld is outside "
				      "the program (instructions 0..%zu)",
				      target, l->n - 1);
		return 0;
	case OP_CSRRW:
		if (acis_cgra_isa_csr_name(f->csr) == NULL)
			return refuse(l, i, "unknown CSR 0x%03x", f->csr);
		if (acis_cgra_isa_csr_readonly(f->csr) && f->rs1 != 0)
			return refuse(l, i, "writes read-only CSR %s (read "
				      "it with x0 as the source)",
				      acis_cgra_isa_csr_name(f->csr));
		return 0;
	case OP_VSETIVLI:
		if (f->lmul_log2 > LMUL_LOG2_MAX)
			return refuse(l, i, "LMUL %u exceeds %u",
				      1u << f->lmul_log2, ACIS_CGRA_MAX_LMUL);
		lmul = 1u << f->lmul_log2;
		if (lmul > c->vrf_regs)
			return refuse(l, i, "LMUL %u exceeds the VRF's %u "
				      "registers", lmul, c->vrf_regs);
		if (f->avl > lmul * ACIS_CGRA_LANES)
			return refuse(l, i, "AVL %u exceeds VLMAX %u of "
				      "LMUL %u", f->avl,
				      lmul * ACIS_CGRA_LANES, lmul);
		return 0;
	case OP_VLE:
	case OP_VSE:
		if (f->bank > c->n_banks)
			return refuse(l, i, "bank %u does not exist (data "
				      "banks 1..%u)", f->bank, c->n_banks);
		if (f->bank == 0 && c->n_vpe > c->n_banks)
			return refuse(l, i, "own-bank access needs %u data "
				      "banks (one per VPE), the machine has "
				      "%u", c->n_vpe, c->n_banks);
		break;
	case OP_VFADD:
	case OP_VFMUL:
		if (f->v2 >= c->vrf_regs)
			return refuse(l, i, "register v%u is beyond the "
				      "VRF's %u registers", f->v2,
				      c->vrf_regs);
		break;
	default:
		break;
	}
	if (f->op >= OP_VLE && f->op != OP_STREAMOUT_SIN &&
	    f->v >= c->vrf_regs)
		return refuse(l, i, "register v%u is beyond the VRF's %u "
			      "registers", f->v, c->vrf_regs);
	return 0;
}

static uint32_t
meet(uint32_t a, uint32_t b)
{
	if (a == VT_UNVISITED || a == b)
		return b;
	if (a == VT_UNSET || b == VT_UNSET)
		return VT_UNSET;
	return VT_CONFLICT;
}

static int
check_group(struct loader *l, size_t i, unsigned int v, unsigned int lmul)
{
	if (v % lmul != 0)
		return refuse(l, i, "v%u is not a multiple of LMUL %u "
			      "(register groups are aligned)", v, lmul);
	if (v + lmul > l->m->cfg.vrf_regs)
		return refuse(l, i, "group v%u..v%u is beyond the VRF's %u "
			      "registers", v, v + lmul - 1,
			      l->m->cfg.vrf_regs);
	return 0;
}

/*
 * Walk the control flow from instruction 0 carrying the vector
 * configuration (VL, LMUL) that vsetivli set, so that every vector
 * instruction gets one static VL and LMUL: the run loop never looks them
 * up and register groups are checked here, once.
 */
static int
check_flow(struct loader *l, uint32_t *state)
{
	size_t *stack, top = 0, i, fall = SIZE_MAX;
	int rc = 0;

	stack = malloc((l->n * 3 + 1) * sizeof(*stack));
	if (stack == NULL)
		return refuse(l, SIZE_MAX, "out of memory");
	state[0] = VT_UNSET;
	stack[top++] = 0;
	while (top > 0) {
		const struct cgra_fields *f;
		size_t succ[2], ns = 0, s;
		uint32_t out, m;

		i = stack[--top];
		f = &l->f[i];
		out = f->op == OP_VSETIVLI ?
		      VT_KNOWN(f->lmul_log2, f->avl) : state[i];
		if (f->op == OP_WFI)
			continue;
		if (f->op == OP_BNE)
			succ[ns++] = i + f->imm / 4;
		succ[ns++] = i + 1;
		for (s = 0; s < ns; s++) {
			size_t j = succ[s];

			if (j == l->n) {
				if (fall == SIZE_MAX || i < fall)
					fall = i;
				continue;
			}
			m = meet(state[j], out);
			if (m == state[j])
				continue;
			/* states only move down, three steps at most, so
			 * nothing is pushed more than three times */
			state[j] = m;
			stack[top++] = j;
		}
	}
	free(stack);
	/* Every instruction but wfi has a fall-through edge, so a path that
	 * never meets wfi runs off the end: refusing that also guarantees a
	 * wfi is reachable from everywhere (no loop without an exit). */
	if (fall != SIZE_MAX)
		return refuse(l, fall, "execution can run past the end of "
			      "the program (end the kernel with wfi)");
	for (i = 0; i < l->n && rc == 0; i++) {
		const struct cgra_fields *f = &l->f[i];
		unsigned int lmul;

		if (state[i] == VT_UNVISITED || f->op < OP_VLE)
			continue;
		if (state[i] == VT_UNSET)
			return refuse(l, i, "vector instruction reached "
				      "before any vsetivli (on some path)");
		if (state[i] == VT_CONFLICT)
			return refuse(l, i, "reached with different vector "
				      "configurations (the vsetivli on "
				      "every path must agree)");
		lmul = VT_LMUL(state[i]);
		if (f->op != OP_STREAMOUT_SIN)
			rc = check_group(l, i, f->v, lmul);
		if (rc == 0 && (f->op == OP_VFADD || f->op == OP_VFMUL))
			rc = check_group(l, i, f->v2, lmul);
		if (rc == 0 && f->op == OP_VEXT &&
		    (f->sub == VE_MAXLOC || f->sub == VE_MINLOC) &&
		    VT_AVL(state[i]) % 2 != 0)
			return refuse(l, i, "%s works on (value, index) pairs: "
				      "VL %u is odd",
				      acis_cgra_isa_ext_name(f->op, f->sub),
				      VT_AVL(state[i]));
	}
	return rc;
}

/*
 * Fusion: sequences that a kernel does in one pass, marked on their first
 * instruction. vle32.v vd; vmacc.vx vd, x, sin; streamout.v vd (load a
 * chunk, multiply-add the stream into it, send it: axpy's loop) becomes
 * XOP_VLE_MACC_OUT; on a machine of one VPE, when the three are the body
 * of axpy's loop (then add; csrrw rt, sin_left; bne back to the vle), it
 * becomes XOP_VLE_MACC_OUT_LOOP, whose iterations run in one call. The
 * instructions after the first keep their ops, so a branch into the
 * middle runs them on their own, and the run loop falls back to the vle
 * when the fused kernel declines (cgra_kern_tmpl.h).
 */
static void
fuse(struct cgra_insn *prog, size_t n, unsigned int n_vpe)
{
	size_t i;

	for (i = 0; i + 2 < n; i++) {
		const struct cgra_insn *a = &prog[i];

		if (a->op == OP_VLE && prog[i + 1].op == OP_VMACC_VX &&
		    prog[i + 2].op == OP_STREAMOUT &&
		    prog[i + 1].va == a->va && prog[i + 2].va == a->va &&
		    prog[i + 1].vl == a->vl && prog[i + 2].vl == a->vl)
			prog[i].op = XOP_VLE_MACC_OUT;
		/* on one VPE, the three as the body of a loop that steps
		 * through stream_in: add; csrrw rt, sin_left; bne back */
		if (prog[i].op == XOP_VLE_MACC_OUT && n_vpe == 1 &&
		    i + 5 < n && prog[i + 3].op == OP_ADD &&
		    prog[i + 4].op == XOP_CSR_SIN_LEFT &&
		    prog[i + 5].op == OP_BNE &&
		    prog[i + 5].imm == (int32_t)i)
			prog[i].op = XOP_VLE_MACC_OUT_LOOP;
	}
}

/* Decode and check words into configuration tables; NULL and errmsg set
 * if the program is refused. */
static struct cgra_insn *
build_tables(struct acis_cgra *m, const uint32_t *w, size_t n)
{
	struct loader l = { .m = m, .w = w, .n = n };
	struct cgra_insn *prog = NULL;
	uint32_t *state = NULL;
	char why[128];
	size_t i, wfis = 0;
	int rc = 0;

	if (n == 0) {
		snprintf(m->errmsg, sizeof(m->errmsg),
			 "empty program: no instructions");
		return NULL;
	}
	l.f = calloc(n, sizeof(*l.f));
	state = calloc(n, sizeof(*state));
	prog = calloc(n, sizeof(*prog));
	if (l.f == NULL || state == NULL || prog == NULL) {
		snprintf(m->errmsg, sizeof(m->errmsg), "out of memory");
		rc = -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (acis_cgra_isa_decode(w[i], &l.f[i], why,
					 sizeof(why)) != 0) {
			snprintf(m->errmsg, sizeof(m->errmsg),
				 "instruction %zu (0x%08x): %s", i,
				 (unsigned int)w[i], why);
			rc = -1;
			break;
		}
		rc = check_static(&l, i);
		wfis += l.f[i].op == OP_WFI;
	}
	if (rc == 0 && wfis == 0)
		rc = refuse(&l, SIZE_MAX, "the program has no wfi (a kernel "
			    "ends with wfi)");
	if (rc == 0)
		rc = check_flow(&l, state);
	for (i = 0; i < n && rc == 0; i++) {
		const struct cgra_fields *f = &l.f[i];
		struct cgra_insn *in = &prog[i];

		in->op = f->op;
		in->rd = f->rd == 0 ? XSINK : f->rd;
		in->rs1 = f->rs1;
		in->rs2 = f->rs2;
		in->bank = f->bank;
		in->sub = f->sub;
		in->va = (uint32_t)f->v * ACIS_CGRA_LANES;
		in->vb = (uint32_t)f->v2 * ACIS_CGRA_LANES;
		switch (f->op) {
		case OP_LUI:
			/* lui is addi from x0 of the shifted value */
			in->rs1 = 0;
			in->imm = (int32_t)((uint32_t)f->imm << 12);
			break;
		case OP_ADDI:
			in->imm = f->imm;
			break;
		case OP_BNE:
			in->imm = (int32_t)i + f->imm / 4;
			break;
		case OP_CSRRW:
			in->imm = f->csr;
			in->op = f->csr == CSR_CYCLE ? XOP_CSR_CYCLE :
				 f->csr == CSR_PACKET_LENGTH ? XOP_CSR_PKTLEN :
				 f->csr == CSR_TILE ? XOP_CSR_TILE :
				 f->csr == CSR_SIN_WORD ? XOP_CSR_SIN_WORD :
				 XOP_CSR_SIN_LEFT;
			break;
		case OP_VSETIVLI:
			in->vl = f->avl;
			break;
		default:
			if (f->op >= OP_VLE && state[i] >= 3) {
				in->vl = VT_AVL(state[i]);
				in->vlmax = VT_LMUL(state[i]) *
					    ACIS_CGRA_LANES;
			}
			break;
		}
	}
	free(l.f);
	free(state);
	if (rc != 0) {
		free(prog);
		return NULL;
	}
	if (!(m->cfg.flags & ACIS_CGRA_F_NOFUSE))
		fuse(prog, n, m->cfg.n_vpe);
	return prog;
}

/* Fresh architectural state for a newly loaded kernel. */
static void
reset_state(struct acis_cgra *m)
{
	memset(m->x, 0, sizeof(m->x));
	memset(m->vrf, 0, (size_t)m->n_elems * m->P * sizeof(float));
	m->tile = -1;
	m->pktlen = 0;
	memset(&m->cnt, 0, sizeof(m->cnt));
}

/* ap_start: the instruction loader. */
static int
start(struct acis_cgra *m)
{
	const size_t n = m->insn_count;
	struct cgra_insn *prog;
	uint32_t *words;

	m->ctrl &= ~(ACIS_CGRA_AP_READY | ACIS_CGRA_AP_DONE);
	free(m->prog);
	m->prog = NULL;
	m->n_insns = 0;
	m->errmsg[0] = '\0';
	if (n * 4 > m->bank_size[0] - m->base[0]) {
		snprintf(m->errmsg, sizeof(m->errmsg),
			 "%zu instructions at base %u do not fit bank 0 "
			 "(%zu bytes)", n, m->base[0], m->bank_size[0]);
		m->err = ACIS_CGRA_E_LOAD;
		return ACIS_CGRA_E_LOAD;
	}
	words = malloc(n * 4 + 4);
	if (words == NULL) {
		m->err = ACIS_CGRA_E_NOMEM;
		return ACIS_CGRA_E_NOMEM;
	}
	/* HBM is little endian, like the hosts this runs on */
	memcpy(words, m->bank[0] + m->base[0], n * 4);
	prog = build_tables(m, words, n);
	free(words);
	if (prog == NULL) {
		m->err = ACIS_CGRA_E_LOAD;
		return ACIS_CGRA_E_LOAD;
	}
	m->prog = prog;
	m->n_insns = n;
	reset_state(m);
	m->err = 0;
	m->ctrl |= ACIS_CGRA_AP_READY;
	return 0;
}

int
acis_cgra_load(struct acis_cgra *m, const uint32_t *words, size_t n,
	       char *err, size_t errlen)
{
	int rc;

	if (m == NULL || (words == NULL && n != 0))
		return ACIS_CGRA_E_INVAL;
	if (n > (m->bank_size[0] - m->base[0]) / 4) {
		snprintf(m->errmsg, sizeof(m->errmsg),
			 "%zu instructions at base %u do not fit bank 0 "
			 "(%zu bytes)", n, m->base[0], m->bank_size[0]);
		m->ctrl &= ~ACIS_CGRA_AP_READY;
		rc = ACIS_CGRA_E_LOAD;
	} else {
		if (n != 0)
			memcpy(m->bank[0] + m->base[0], words, n * 4);
		m->insn_count = (uint32_t)n;
		rc = start(m);
	}
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", rc == 0 ? "" : m->errmsg);
	return rc;
}

/* ---- host access ---- */

int
acis_cgra_mem_write(struct acis_cgra *m, unsigned int bank, size_t off,
		    const void *buf, size_t len)
{
	if (m == NULL || bank >= ACIS_CGRA_MAX_BANKS || m->bank[bank] == NULL ||
	    off > m->bank_size[bank] || len > m->bank_size[bank] - off ||
	    (buf == NULL && len != 0))
		return ACIS_CGRA_E_INVAL;
	if (len != 0)
		memcpy(m->bank[bank] + off, buf, len);
	return 0;
}

int
acis_cgra_mem_read(const struct acis_cgra *m, unsigned int bank, size_t off,
		   void *buf, size_t len)
{
	if (m == NULL || bank >= ACIS_CGRA_MAX_BANKS || m->bank[bank] == NULL ||
	    off > m->bank_size[bank] || len > m->bank_size[bank] - off ||
	    (buf == NULL && len != 0))
		return ACIS_CGRA_E_INVAL;
	if (len != 0)
		memcpy(buf, m->bank[bank] + off, len);
	return 0;
}

uint32_t
acis_cgra_reg_read(struct acis_cgra *m, uint32_t addr)
{
	uint32_t v;

	switch (addr) {
	case ACIS_CGRA_REG_CTRL:
		/* AP_DONE is clear-on-read, as in Vitis RTL kernels */
		v = m->ctrl | ACIS_CGRA_AP_IDLE;
		m->ctrl &= ~ACIS_CGRA_AP_DONE;
		return v;
	case ACIS_CGRA_REG_MODE:
		return m->mode;
	case ACIS_CGRA_REG_INSN_COUNT:
		return m->insn_count;
	case ACIS_CGRA_REG_ERR:
		return (uint32_t)-m->err;
	case ACIS_CGRA_REG_RUNS:
		return (uint32_t)m->cnt.runs;
	case ACIS_CGRA_REG_SKIPPED:
		return (uint32_t)m->cnt.tiles_skipped;
	}
	if (addr >= ACIS_CGRA_REG_BASE(0) &&
	    addr < ACIS_CGRA_REG_BASE(ACIS_CGRA_MAX_BANKS) && addr % 4 == 0)
		return m->base[(addr - ACIS_CGRA_REG_BASE(0)) / 4];
	return 0;
}

int
acis_cgra_reg_write(struct acis_cgra *m, uint32_t addr, uint32_t val)
{
	unsigned int k;

	switch (addr) {
	case ACIS_CGRA_REG_CTRL:
		if (val & ACIS_CGRA_AP_STOP) {
			m->ctrl &= ~ACIS_CGRA_AP_READY;
			free(m->prog);
			m->prog = NULL;
			m->n_insns = 0;
		}
		if (val & ACIS_CGRA_AP_START)
			return start(m);
		return 0;
	case ACIS_CGRA_REG_MODE:
		m->mode = val & ACIS_CGRA_MODE_PASSTHROUGH;
		return 0;
	case ACIS_CGRA_REG_INSN_COUNT:
		m->insn_count = val;
		return 0;
	}
	if (addr >= ACIS_CGRA_REG_BASE(0) &&
	    addr < ACIS_CGRA_REG_BASE(ACIS_CGRA_MAX_BANKS) && addr % 4 == 0) {
		k = (addr - ACIS_CGRA_REG_BASE(0)) / 4;
		if (m->bank[k] == NULL || val > m->bank_size[k])
			return ACIS_CGRA_E_INVAL;
		m->base[k] = val;
		return 0;
	}
	return ACIS_CGRA_E_INVAL;
}

void
acis_cgra_set_passthrough(struct acis_cgra *m, int on)
{
	acis_cgra_reg_write(m, ACIS_CGRA_REG_MODE,
			    on ? ACIS_CGRA_MODE_PASSTHROUGH : 0);
}

/* ---- execution ---- */

int
acis_cgra_run(struct acis_cgra *m, const void *in, size_t in_len, void *out,
	      size_t out_cap, size_t *out_len, struct acis_cgra_run_stats *st)
{
	uint64_t insns = 0, vinsns = 0;
	int rc;

	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if (out_len != NULL)
		*out_len = 0;
	if (m == NULL || (in == NULL && in_len != 0) ||
	    (out == NULL && out_cap != 0))
		return ACIS_CGRA_E_INVAL;
	m->errmsg[0] = '\0';
	if (m->mode & ACIS_CGRA_MODE_PASSTHROUGH) {
		if (in_len > out_cap) {
			snprintf(m->errmsg, sizeof(m->errmsg),
				 "pass-through: %zu bytes, room for %zu",
				 in_len, out_cap);
			m->err = ACIS_CGRA_E_OUTFULL;
			return ACIS_CGRA_E_OUTFULL;
		}
		if (in_len != 0)
			memcpy(out, in, in_len);
		if (out_len != NULL)
			*out_len = in_len;
		if (st != NULL)
			st->in_consumed = in_len;
		m->cnt.passthrough++;
		return 0;
	}
	if (!(m->ctrl & ACIS_CGRA_AP_READY)) {
		snprintf(m->errmsg, sizeof(m->errmsg), "no program loaded "
			 "(start the loader first)");
		m->err = ACIS_CGRA_E_NOTREADY;
		return ACIS_CGRA_E_NOTREADY;
	}
	{
		/* Empty buffers may be NULL; point at something so the
		 * kernels never do arithmetic on a null pointer. */
		static uint8_t none[4];

		m->sin = in != NULL ? in : none;
		m->sout = out != NULL ? out : none;
	}
	if (m->cfg.flags & ACIS_CGRA_F_STATELESS) {
		memset(m->x, 0, sizeof(m->x));
		m->tile = -1;
	}
	m->sin_len = in_len;
	m->sin_pos = 0;
	m->sout_cap = out_cap;
	m->sout_pos = 0;
	m->pktlen = in_len > UINT32_MAX ? UINT32_MAX : (uint32_t)in_len;
	m->pktlen_written = 0;
	m->cycles = 0;
	m->eops = 0;
	m->skipped = 0;
	rc = m->exec(m, &insns, &vinsns);
	if (rc == 0 && m->pktlen_written && m->pktlen > m->sout_pos)
		rc = acis_cgra_fault(m, ACIS_CGRA_E_PKTLEN,
				"packet_length %u is more than the %zu bytes "
				"streamed out", m->pktlen, m->sout_pos);
	if (rc == 0) {
		if (out_len != NULL)
			*out_len = m->pktlen_written ? m->pktlen :
				   m->sout_pos;
		m->ctrl |= ACIS_CGRA_AP_DONE;
	}
	if (st != NULL) {
		st->instructions = insns;
		st->vector_insns = vinsns;
		st->element_ops = m->eops;
		st->cycles = m->cycles;
		st->tiles_skipped = m->skipped;
		st->in_consumed = m->sin_pos;
	}
	m->cnt.runs++;
	m->cnt.instructions += insns;
	m->cnt.cycles += m->cycles;
	m->cnt.tiles_skipped += m->skipped;
	m->err = rc;
	m->sin = NULL;
	m->sout = NULL;
	return rc;
}

void
acis_cgra_get_counters(const struct acis_cgra *m,
		       struct acis_cgra_counters *c)
{
	*c = m->cnt;
}

uint32_t
acis_cgra_xreg(const struct acis_cgra *m, unsigned int r)
{
	return r < ACIS_CGRA_XREGS ? m->x[r] : 0;
}

int
acis_cgra_vrf_read(const struct acis_cgra *m, unsigned int vpe,
		   uint32_t elem, float *buf, size_t n)
{
	size_t i;

	if (vpe >= m->cfg.n_vpe || elem > m->n_elems ||
	    n > m->n_elems - elem)
		return ACIS_CGRA_E_INVAL;
	for (i = 0; i < n; i++)
		buf[i] = m->vrf[(size_t)(elem + i) * m->P + vpe];
	return 0;
}

int
acis_cgra_vrf_write(struct acis_cgra *m, unsigned int vpe, uint32_t elem,
		    const float *buf, size_t n)
{
	size_t i;

	if (vpe >= m->cfg.n_vpe || elem > m->n_elems ||
	    n > m->n_elems - elem)
		return ACIS_CGRA_E_INVAL;
	for (i = 0; i < n; i++)
		m->vrf[(size_t)(elem + i) * m->P + vpe] = buf[i];
	return 0;
}

const char *
acis_cgra_strerror(int err)
{
	switch (err) {
	case ACIS_CGRA_OK:
		return "success";
	case ACIS_CGRA_E_INVAL:
		return "invalid argument";
	case ACIS_CGRA_E_NOTREADY:
		return "no program loaded";
	case ACIS_CGRA_E_LOAD:
		return "program refused by the loader";
	case ACIS_CGRA_E_BUDGET:
		return "instruction budget exceeded";
	case ACIS_CGRA_E_MEM:
		return "memory access outside a bank region";
	case ACIS_CGRA_E_VRF:
		return "VRF element out of range";
	case ACIS_CGRA_E_OUTFULL:
		return "stream_out larger than the output buffer";
	case ACIS_CGRA_E_PKTLEN:
		return "packet_length above the bytes streamed out";
	case ACIS_CGRA_E_NOMEM:
		return "out of memory";
	}
	return "unknown error";
}

const char *
acis_cgra_last_error(const struct acis_cgra *m)
{
	return m->errmsg;
}
