/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The machine's internals shared by cgra.c (control block, loader, run
 * loop) and cgra_kern.c (vector kernels): the decoded instruction form of
 * the configuration tables and the machine state.
 *
 * VRF storage interleaves the VPEs: element e of VPE p is
 * vrf[e * P + p], P being n_vpe rounded up to a power of two. An
 * instruction then touches one contiguous P-float vector per element for
 * all VPEs at once, which is what lets the GCN gather of one feature row
 * (one element across 16 VPEs) be a single 64-byte load. Slots p >= n_vpe
 * are padding: loads fill them with zeros and nothing reads them out.
 */
#ifndef CGRA_INTERNAL_H
#define CGRA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "acis_cgra.h"
#include "cgra_isa.h"

#define XSINK 32   /* where writes to x0 go, so x0 stays zero */

/* Ops the loader makes of csrrw, one per CSR, so that the run loop never
 * looks at a CSR number. */
enum {
	XOP_CSR_CYCLE = OP_COUNT,
	XOP_CSR_PKTLEN,
	XOP_CSR_TILE,
	XOP_CSR_SIN_WORD,
	XOP_CSR_SIN_LEFT,
	/* vle32.v vd; vmacc.vx vd, x, sin; streamout.v vd in one pass, on
	 * the vle of the three (the loader's fusion; the two after it keep
	 * their own ops, for branches that land on them) */
	XOP_VLE_MACC_OUT,
	/* the same three as the body of a loop (axpy's; on one VPE only):
	 *   add; csrrw rt, sin_left, x0; bne back to the vle */
	XOP_VLE_MACC_OUT_LOOP,
	XOP_COUNT
};

/* One decoded instruction: no bit fields left, operands resolved. */
struct cgra_insn {
	uint8_t op;      /* enum cgra_op, an XOP_CSR_* for csrrw, or
			  * XOP_VLE_MACC_OUT(_LOOP) on the first of a fused
			  * three */
	uint8_t rd;      /* XSINK when the destination is x0 */
	uint8_t rs1;
	uint8_t rs2;
	uint8_t bank;    /* vle/vse: 0 = own bank */
	uint8_t sub;     /* vext, vred: the sub-op */
	uint32_t vl;     /* vector length in effect (static, see the loader) */
	uint32_t vlmax;  /* 16 * LMUL: bound of spvacc indices */
	uint32_t va;     /* first element of the vector operand (16 * v) */
	uint32_t vb;     /* vfadd/vfmul: first element of vs2 */
	int32_t imm;     /* lui/addi value, bne target index, csr number */
};

struct acis_cgra;
/* The run loop, one per VRF interleave P (cgra_kern_tmpl.h): executes
 * from instruction 0 to wfi or an error; counts what it executed. */
typedef int (*cgra_exec_fn)(struct acis_cgra *m, uint64_t *insns,
			    uint64_t *vinsns);

struct acis_cgra {
	struct acis_cgra_config cfg;
	unsigned int P;           /* VPE slots per element in vrf */
	uint32_t n_elems;         /* elements per VRF: 16 * vrf_regs */
	float *vrf;               /* [n_elems][P] */
	uint8_t *bank[ACIS_CGRA_MAX_BANKS];   /* 64-byte aligned, inside */
	void *bank_mem[ACIS_CGRA_MAX_BANKS];  /* the allocation (freed) */
	size_t bank_size[ACIS_CGRA_MAX_BANKS];
	uint32_t base[ACIS_CGRA_MAX_BANKS];
	uint32_t ctrl;            /* AP_DONE and AP_READY bits */
	uint32_t mode;
	uint32_t insn_count;
	int err;

	struct cgra_insn *prog;   /* the configuration tables */
	size_t n_insns;
	cgra_exec_fn exec;

	/* architectural state */
	uint32_t x[XSINK + 1];
	int32_t tile;
	uint32_t pktlen;
	int pktlen_written;

	/* per run */
	const uint8_t *sin;
	size_t sin_len;
	size_t sin_pos;
	uint8_t *sout;
	size_t sout_cap;
	size_t sout_pos;
	uint64_t cycles;          /* of vector instructions; the run loop adds
				   * one per other instruction at the end */
	uint64_t eops;
	uint64_t skipped;
	/* how often the fused paths ran (the tests check they did): the
	 * three in one pass, and iterations of the fused loop */
	uint64_t fused_runs;
	uint64_t loop_iters;
	uint64_t whole_loops;     /* loops run whole (stream_loop_whole) */
	size_t pc;                /* for fault messages */
	uint32_t *tail;           /* zero-padded copy of a short stream end */

	struct acis_cgra_counters cnt;
	char errmsg[256];
};

/* Set m->exec for m->P. */
void acis_cgra_kern_init(struct acis_cgra *m);

/* The NGRA extensions (cgra_ext.c): an element-wise op of the vext
 * family, a reduction of the vred family. 0 or a fault's code. */
int acis_cgra_k_vext(struct acis_cgra *m, const struct cgra_insn *in);
int acis_cgra_k_vred(struct acis_cgra *m, const struct cgra_insn *in);

/* The mnemonic of a decoded instruction, for messages. */
const char *acis_cgra_insn_name(const struct cgra_insn *in);

/* Record a run-time fault at m->pc; returns code. */
int acis_cgra_fault(struct acis_cgra *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The next n (<= vl) stream_in words for an instruction of length vl: n
 * is vl, or fewer at the end of the payload (a last partial word is
 * zero-extended). The cursor moves past them.
 */
static inline const uint8_t *
cgra_stream_take(struct acis_cgra *m, uint32_t vl, uint32_t *n)
{
	size_t left = m->sin_len - m->sin_pos;
	const uint8_t *p = m->sin + m->sin_pos;
	size_t words;

	if ((size_t)vl * 4 <= left) {
		*n = vl;
		m->sin_pos += (size_t)vl * 4;
		return p;
	}
	m->sin_pos = m->sin_len;
	words = (left + 3) / 4;
	*n = (uint32_t)words;
	if (left % 4 == 0)
		return p;
	m->tail[words - 1] = 0;
	__builtin_memcpy(m->tail, p, left);
	return (const uint8_t *)m->tail;
}

/* The kernel's view of bank k: len bytes at addr past its base, or NULL
 * when that is not all inside the bank. */
static inline uint8_t *
cgra_bank_span(struct acis_cgra *m, unsigned int k, uint32_t addr,
	       size_t len)
{
	size_t off = (size_t)m->base[k] + addr;

	if (off > m->bank_size[k] || len > m->bank_size[k] - off)
		return NULL;
	return m->bank[k] + off;
}

/* Cycles of a vector instruction over n elements: one to issue, one per
 * ACIS_CGRA_LANES of them. */
static inline uint64_t
cgra_cycles(uint64_t n)
{
	return 1 + (n + ACIS_CGRA_LANES - 1) / ACIS_CGRA_LANES;
}

/* Cost of a stream_out of words 32-bit words. */
static inline void
cgra_account_out(struct acis_cgra *m, uint64_t words)
{
	m->cycles += cgra_cycles(words);
	m->eops += words;
}

/* Cost of a vector instruction over n elements per VPE (lockstep). */
static inline void
cgra_account(struct acis_cgra *m, uint64_t n)
{
	m->cycles += cgra_cycles(n);
	m->eops += n * m->cfg.n_vpe;
}

#endif /* CGRA_INTERNAL_H */
