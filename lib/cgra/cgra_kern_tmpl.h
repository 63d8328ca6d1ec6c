/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vector kernels for one VRF interleave P (see cgra_internal.h).
 * cgra_kern.c includes this once per P with P, VT (P floats: a GCC vector,
 * or float when P is 1), BCAST(s) (s in every slot), VFMA(r, a, b, c)
 * (r = a * b + c rounded once, per slot) and KFN(name) defined.
 *
 * Each kernel is one loop over the elements of the instruction (the
 * fused loop's, one such loop per iteration); per element it handles all
 * VPEs with one P-float vector. When P is 1 the
 * element loops are plain float loops that GCC vectorises along the
 * elements instead. Operand groups were checked by the loader; only
 * run-time addresses (banks, v0[x]) and stream_out room are checked here.
 */

static inline __attribute__((always_inline)) int
KFN(k_vle)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t vl = in->vl, n = m->cfg.n_vpe;
	const uint32_t addr = m->x[in->rs1];
	const size_t bytes = (size_t)vl * 4;
	float *d = m->vrf + (size_t)in->va * P;
	const f32u *s;
	uint32_t e, p;

	if (in->bank != 0) {
		/* one bank for every VPE: broadcast */
		s = (const f32u *)cgra_bank_span(m, in->bank, addr, bytes);
		if (s == NULL)
			return cgra_mem_fault(m, in->bank, addr, bytes);
		for (e = 0; e < vl; e++)
			*(VT *)(d + (size_t)e * P) = BCAST(s[e]);
		cgra_account(m, vl);
		return 0;
	}
	for (p = 0; p < n; p++)
		if (cgra_bank_span(m, p + 1, addr, bytes) == NULL)
			return cgra_mem_fault(m, p + 1, addr, bytes);
	for (p = 0; p < n; p++) {
		s = (const f32u *)cgra_bank_span(m, p + 1, addr, bytes);
		for (e = 0; e < vl; e++)
			d[(size_t)e * P + p] = s[e];
	}
	for (p = n; p < P; p++)
		for (e = 0; e < vl; e++)
			d[(size_t)e * P + p] = 0;
	cgra_account(m, vl);
	return 0;
}

static inline __attribute__((always_inline)) int
KFN(k_vse)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t vl = in->vl, n = m->cfg.n_vpe;
	const uint32_t addr = m->x[in->rs1];
	const float *d = m->vrf + (size_t)in->va * P;
	size_t bytes;
	f32u *o;
	uint32_t e, p;

	if (in->bank != 0) {
		/* one bank for every VPE: interleaved like stream_out */
		bytes = (size_t)vl * n * 4;
		o = (f32u *)cgra_bank_span(m, in->bank, addr, bytes);
		if (o == NULL)
			return cgra_mem_fault(m, in->bank, addr, bytes);
		if (P == n)
			memcpy(o, d, bytes);
		else
			for (e = 0; e < vl; e++)
				for (p = 0; p < n; p++)
					o[(size_t)e * n + p] =
						d[(size_t)e * P + p];
		cgra_account(m, vl);
		return 0;
	}
	bytes = (size_t)vl * 4;
	for (p = 0; p < n; p++)
		if (cgra_bank_span(m, p + 1, addr, bytes) == NULL)
			return cgra_mem_fault(m, p + 1, addr, bytes);
	for (p = 0; p < n; p++) {
		o = (f32u *)cgra_bank_span(m, p + 1, addr, bytes);
		for (e = 0; e < vl; e++)
			o[e] = d[(size_t)e * P + p];
	}
	cgra_account(m, vl);
	return 0;
}

static inline __attribute__((always_inline)) int
KFN(k_vfadd)(struct acis_cgra *m, const struct cgra_insn *in)
{
	float *d = m->vrf + (size_t)in->va * P;
	const float *t = m->vrf + (size_t)in->vb * P;
	const f32u *s;
	uint32_t e, cnt;

	s = (const f32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++)
		*(VT *)(d + (size_t)e * P) =
			BCAST(s[e]) + *(const VT *)(t + (size_t)e * P);
	cgra_account(m, cnt);
	return 0;
}

static inline __attribute__((always_inline)) int
KFN(k_vfmul)(struct acis_cgra *m, const struct cgra_insn *in)
{
	float *d = m->vrf + (size_t)in->va * P;
	const float *t = m->vrf + (size_t)in->vb * P;
	const f32u *s;
	uint32_t e, cnt;

	s = (const f32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++)
		*(VT *)(d + (size_t)e * P) =
			BCAST(s[e]) * *(const VT *)(t + (size_t)e * P);
	cgra_account(m, cnt);
	return 0;
}

/* vd[i] += v0[x] * stream[i], fused */
static inline __attribute__((always_inline)) int
KFN(k_vmacc_vx)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t x = m->x[in->rs1];
	float *d = m->vrf + (size_t)in->va * P;
	const f32u *s;
	uint32_t e, cnt;
	VT a;

	if (x >= m->n_elems)
		return cgra_vrf_fault(m, x);
	a = *(const VT *)(m->vrf + (size_t)x * P);
	s = (const f32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++) {
		VT *r = (VT *)(d + (size_t)e * P);
		VT b = BCAST(s[e]);

		VFMA(*r, a, b, *r);
	}
	cgra_account(m, cnt);
	return 0;
}

/* v0[x] += sum_i stream[i] * vs2[i], fused, in element order */
static inline __attribute__((always_inline)) int
KFN(k_vmacc_xv)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t x = m->x[in->rs1];
	const float *t = m->vrf + (size_t)in->va * P;
	const f32u *s;
	uint32_t e, cnt;
	VT acc;

	if (x >= m->n_elems)
		return cgra_vrf_fault(m, x);
	acc = *(const VT *)(m->vrf + (size_t)x * P);
	s = (const f32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++) {
		VT b = BCAST(s[e]);

		VFMA(acc, b, *(const VT *)(t + (size_t)e * P), acc);
	}
	*(VT *)(m->vrf + (size_t)x * P) = acc;
	cgra_account(m, cnt);
	return 0;
}

/* vd[stream[i]] += v0[x], indices >= VLMAX skipped */
static inline __attribute__((always_inline)) int
KFN(k_spvacc_vx)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t x = m->x[in->rs1], vlmax = in->vlmax;
	float *d = m->vrf + (size_t)in->va * P;
	const u32u *s;
	uint32_t e, cnt;
	VT a;

	if (x >= m->n_elems)
		return cgra_vrf_fault(m, x);
	a = *(const VT *)(m->vrf + (size_t)x * P);
	s = (const u32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++) {
		uint32_t idx = s[e];

		if (idx < vlmax)
			*(VT *)(d + (size_t)idx * P) += a;
	}
	cgra_account(m, cnt);
	return 0;
}

/* v0[x] += sum_i vs2[stream[i]], indices >= VLMAX skipped, in order */
static inline __attribute__((always_inline)) int
KFN(k_spvacc_xv)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t x = m->x[in->rs1], vlmax = in->vlmax;
	const float *t = m->vrf + (size_t)in->va * P;
	const u32u *s;
	uint32_t e, cnt;
	VT acc;

	if (x >= m->n_elems)
		return cgra_vrf_fault(m, x);
	acc = *(const VT *)(m->vrf + (size_t)x * P);
	s = (const u32u *)cgra_stream_take(m, in->vl, &cnt);
	for (e = 0; e < cnt; e++) {
		uint32_t idx = s[e];

		if (idx < vlmax)
			acc += *(const VT *)(t + (size_t)idx * P);
	}
	*(VT *)(m->vrf + (size_t)x * P) = acc;
	cgra_account(m, cnt);
	return 0;
}

/* The n VPEs' slots of VL elements from d, element by element, VPE 0
 * first, to stream_out (room checked by the caller), and their cost. */
static inline __attribute__((always_inline)) void
KFN(out_elems)(struct acis_cgra *m, const float *d, uint32_t vl)
{
	const uint32_t n = m->cfg.n_vpe;
	const size_t words = (size_t)vl * n;
	f32u *o = (f32u *)(m->sout + m->sout_pos);
	uint32_t e, p;

	if (P == n)
		memcpy(o, d, words * 4);
	else
		for (e = 0; e < vl; e++)
			for (p = 0; p < n; p++)
				o[(size_t)e * n + p] = d[(size_t)e * P + p];
	m->sout_pos += words * 4;
	cgra_account_out(m, words);
}

/* VL elements of every VPE, element by element, VPE 0 first */
static inline __attribute__((always_inline)) int
KFN(k_streamout)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const size_t words = (size_t)in->vl * m->cfg.n_vpe;

	if (words * 4 > m->sout_cap - m->sout_pos)
		return cgra_out_fault(m, words * 4);
	KFN(out_elems)(m, m->vrf + (size_t)in->va * P, in->vl);
	return 0;
}

/*
 * The fused sequence XOP_VLE_MACC_OUT (see the loader):
 *   vle32.v vd, (rs1)   ; vmacc.vx vd, xk, sin   ; streamout.v vd
 * in one pass over the elements instead of three: each element is loaded
 * from the bank, multiplied in from stream_in, written to the VRF and to
 * stream_out while it is in a register. The result, the VRF, the stream
 * positions and the counts are those of the three on their own. Returns 0
 * when they must run on their own instead (fused_chunk says when).
 */
static __attribute__((noinline)) int
KFN(k_vle_macc_out)(struct acis_cgra *m, const struct cgra_insn *in)
{
	const uint32_t vl = in[0].vl, n = m->cfg.n_vpe;
	const uint32_t x = m->x[in[1].rs1];
	const size_t words = (size_t)vl * n;
	float *d = m->vrf + (size_t)in[0].va * P;
	const f32u *y = fused_chunk(m, in, words), *s;
	uint32_t e, cnt;
	VT a, r;

	if (y == NULL)
		return 0;
	a = *(const VT *)(m->vrf + (size_t)x * P);
	s = (const f32u *)cgra_stream_take(m, vl, &cnt);
	if (P == 1) {
		/* plain float loops, which GCC vectorises along elements;
		 * stream_out is at any byte address */
		f32u *o = (f32u *)(m->sout + m->sout_pos);
		float af;

		__builtin_memcpy(&af, &a, sizeof(af));
		for (e = 0; e < cnt; e++)
			o[e] = d[e] = fmaf(af, s[e], y[e]);
		for (; e < vl; e++)
			o[e] = d[e] = y[e];
		m->sout_pos += words * 4;
		cgra_account_out(m, words);
	} else {
		for (e = 0; e < vl; e++) {
			r = BCAST(y[e]);
			if (e < cnt)
				VFMA(r, a, BCAST(s[e]), r);
			*(VT *)(d + (size_t)e * P) = r;
		}
		KFN(out_elems)(m, d, vl);
	}
	cgra_account(m, vl);
	cgra_account(m, cnt);
	return 1;
}

/* o[e] = a s[e] + y[e] for e < cnt, y[e] up to vl: o is the caller's
 * buffer, apart from stream_in (checked) and from the bank. */
static inline __attribute__((always_inline)) void
KFN(axpy_out)(f32u *restrict o, float a, const f32u *restrict s,
	      const f32u *restrict y, uint32_t cnt, uint32_t vl)
{
	uint32_t e;

	for (e = 0; e < cnt; e++)
		o[e] = fmaf(a, s[e], y[e]);
	for (; e < vl; e++)
		o[e] = y[e];
}

/*
 * All iterations of XOP_VLE_MACC_OUT_LOOP (below) in one pass, when they
 * are one axpy over contiguous memory: the add steps the vle's address
 * register by exactly one chunk (vl words), the branch leaves when
 * sin_left is zero, and no register the loop writes is read by it
 * otherwise (the step, v0[x]'s index); and VL is not 0 (then no
 * iteration takes anything from stream_in, and only the budget ends the
 * loop). The loop then runs until stream_in is empty:
 * n = ceil(sin_left / chunk) iterations, one if it already is,
 * over y[0, n vl) from the address register, stream_in whole, stream_out
 * n vl words. It runs only when all n can (budget room, the bank, output
 * room, no overlap of stream_in and stream_out, stream_in whole words);
 * otherwise returns 0 and the loop goes iteration by iteration. Registers,
 * streams, VRF (vd: the last chunk) and counts end as after the n.
 */
static __attribute__((noinline)) uint32_t
KFN(stream_loop_whole)(struct acis_cgra *m, const struct cgra_insn *in,
		       uint64_t room)
{
	const uint32_t vl = in[0].vl, ra = in[0].rs1, rt = in[4].rd;
	const uint32_t rs = in[3].rs1 == ra ? in[3].rs2 : in[3].rs1;
	const uint32_t rx = in[1].rs1;
	const size_t chunk = (size_t)vl * 4;
	const size_t left = m->sin_len - m->sin_pos;
	uint32_t *const x = m->x;
	size_t n, words, bytes, body;
	uintptr_t o8, s8;
	const f32u *y;
	float *const d = m->vrf + in[0].va;
	f32u *o;
	float a;

	if (vl == 0 || in[3].rd != ra ||
	    (in[3].rs1 != ra && in[3].rs2 != ra) ||
	    rs == ra || rs == rt || x[rs] != chunk || rt == XSINK ||
	    rt == ra || rx == ra || rx == rt ||
	    !((in[5].rs1 == rt && in[5].rs2 == 0) ||
	      (in[5].rs1 == 0 && in[5].rs2 == rt)) ||
	    left % 4 != 0 || x[rx] >= m->n_elems ||
	    (x[rx] >= in[0].va && x[rx] - in[0].va < vl))
		return 0;
	/* n = ceil(left / chunk), at least 1, without a division */
	for (n = 1, bytes = chunk; bytes < left; n++)
		bytes += chunk;
	if (room < 6 * n - 1 || bytes > m->sout_cap - m->sout_pos)
		return 0;
	o8 = (uintptr_t)(m->sout + m->sout_pos);
	s8 = (uintptr_t)(m->sin + m->sin_pos);
	if (o8 < s8 + left && s8 < o8 + bytes)
		return 0;
	y = (const f32u *)cgra_bank_span(m, in[0].bank != 0 ? in[0].bank : 1,
					 x[ra], bytes);
	if (y == NULL)
		return 0;
	words = left / 4;
	body = (n - 1) * vl;
	a = m->vrf[x[rx]];
	o = (f32u *)o8;
	KFN(axpy_out)(o, a, (const f32u *)s8, y, (uint32_t)words,
		      (uint32_t)(bytes / 4));
	memcpy(d, o + body, chunk);
	/* as cgra_account and cgra_account_out would count them: per
	 * iteration a vle and a streamout of vl and a vmacc of vl, the last
	 * iteration's vmacc of what was left */
	m->cycles += (3 * n - 1) * cgra_cycles(vl) + cgra_cycles(words - body);
	m->eops += 2 * n * vl + words;
	m->sin_pos = m->sin_len;
	m->sout_pos += bytes;
	x[ra] += (uint32_t)bytes;
	x[rt] = 0;
	m->whole_loops++;
	return (uint32_t)n;
}

/*
 * XOP_VLE_MACC_OUT_LOOP: the fused three, then
 *   add; csrrw rt, sin_left, x0; bne back to the vle
 * (axpy's loop, marked by the loader on one VPE only), whole iterations
 * of the six in one call: no dispatch between them, the checks once per
 * iteration, and vd written once, at the end, instead of every iteration
 * (nothing in the loop reads it, and each iteration's load overwrites
 * all vl elements, so only the last one's values can be seen; on one
 * VPE they are the bytes that iteration streamed out). An iteration runs
 * only when all of it can: the fused three's checks pass and room
 * (instructions left in the budget after this one's vle, already counted)
 * holds its six. Returns how many ran; *done is set when the last one's
 * branch fell through. With none run, the caller runs the three alone,
 * which then fault or decline as they would.
 */
static __attribute__((noinline)) uint32_t
KFN(k_stream_loop)(struct acis_cgra *m, const struct cgra_insn *in,
		   uint64_t room, int *done)
{
	const uint32_t vl = in[0].vl;
	const size_t bytes = (size_t)vl * 4;
	uint32_t *const x = m->x;
	const f32u *last = NULL;
	uint32_t it = 0, cnt;
	uint64_t need = 5; /* the first vle is counted */

	*done = 0;
	if (P != 1 || m->cfg.n_vpe != 1)
		return 0;
	it = KFN(stream_loop_whole)(m, in, room);
	if (it != 0) {
		*done = 1;
		return it;
	}
	while (room >= need) {
		const f32u *y = fused_chunk(m, in, vl), *s;
		f32u *o;
		float a;

		if (y == NULL)
			break;
		a = m->vrf[x[in[1].rs1]];
		o = (f32u *)(m->sout + m->sout_pos);
		s = (const f32u *)cgra_stream_take(m, vl, &cnt);
		KFN(axpy_out)(o, a, s, y, cnt, vl);
		last = o;
		m->sout_pos += bytes;
		cgra_account(m, vl);
		cgra_account(m, cnt);
		cgra_account_out(m, vl);
		x[in[3].rd] = x[in[3].rs1] + x[in[3].rs2];
		x[in[4].rd] = (uint32_t)(m->sin_len - m->sin_pos);
		room -= need;
		need = 6;
		it++;
		if (x[in[5].rs1] == x[in[5].rs2]) {
			*done = 1;
			break;
		}
	}
	if (last != NULL)
		memcpy(m->vrf + in[0].va, last, bytes);
	return it;
}

/*
 * The run loop: decoded instructions only, threaded (each instruction
 * ends with its own indirect jump to the next one's code, which predicts
 * better than one shared switch), scalar instructions in line, vector
 * ones through the kernels above, inlined (the two fused kernels are
 * called: in line they changed how the compiler built the rest of the
 * loop, and the other kernels slowed). Every instruction but a vector one costs a
 * cycle; those are counted at the end as count - vcount.
 *
 * csrrw, one op per CSR: rd = x0 does not read (no pop from sin_word),
 * rs1 = x0 does not write (only csrrw exists, so it takes RISC-V's csrrs
 * rule; the loader refused writes to read-only CSRs).
 */
#define DISPATCH() do { \
	if (unlikely(count == budget)) \
		goto budget_out; \
	count++; \
	goto *labels[in->op]; \
} while (0)

#define NEXT() do { \
	in++; \
	DISPATCH(); \
} while (0)

/* m->pc names the instruction in fault messages */
#define VECTOR(KERNEL) do { \
	m->pc = (size_t)(in - prog); \
	vcount++; \
	rc = KERNEL(m, in); \
	if (unlikely(rc != 0)) \
		goto out; \
	NEXT(); \
} while (0)

static int
KFN(execute)(struct acis_cgra *m, uint64_t *insns, uint64_t *vinsns)
{
	static const void *const labels[XOP_COUNT] = {
		[OP_LUI] = &&l_addi,
		[OP_ADDI] = &&l_addi,
		[OP_ADD] = &&l_add,
		[OP_BNE] = &&l_bne,
		[OP_CSRRW] = &&l_wfi,   /* never: the loader splits csrrw */
		[OP_WFI] = &&l_wfi,
		[OP_VSETIVLI] = &&l_vsetivli,
		[OP_VLE] = &&l_vle,
		[OP_VSE] = &&l_vse,
		[OP_VFADD] = &&l_vfadd,
		[OP_VFMUL] = &&l_vfmul,
		[OP_VMACC_VX] = &&l_vmacc_vx,
		[OP_VMACC_XV] = &&l_vmacc_xv,
		[OP_SPVACC_VX] = &&l_spvacc_vx,
		[OP_SPVACC_XV] = &&l_spvacc_xv,
		[OP_STREAMOUT] = &&l_streamout,
		[OP_STREAMOUT_SIN] = &&l_streamout_sin,
		[OP_VEXT] = &&l_vext,
		[OP_VRED] = &&l_vred,
		[XOP_CSR_CYCLE] = &&l_cycle,
		[XOP_CSR_PKTLEN] = &&l_pktlen,
		[XOP_CSR_TILE] = &&l_tile,
		[XOP_CSR_SIN_WORD] = &&l_sin_word,
		[XOP_CSR_SIN_LEFT] = &&l_sin_left,
		[XOP_VLE_MACC_OUT] = &&l_vle_macc_out,
		[XOP_VLE_MACC_OUT_LOOP] = &&l_stream_loop,
	};
	const struct cgra_insn *const prog = m->prog;
	const struct cgra_insn *in = prog;
	const uint64_t budget = m->cfg.insn_budget;
	uint32_t *const x = m->x;
	uint64_t count = 0, vcount = 0;
	uint32_t old;
	int rc = 0;

	DISPATCH();
l_addi:
	x[in->rd] = x[in->rs1] + (uint32_t)in->imm;
	NEXT();
l_add:
	x[in->rd] = x[in->rs1] + x[in->rs2];
	NEXT();
l_bne:
	in = x[in->rs1] != x[in->rs2] ? prog + in->imm : in + 1;
	DISPATCH();
l_vsetivli:
	x[in->rd] = in->vl;
	NEXT();
l_cycle:
	/* the cycles of the instructions before this one */
	x[in->rd] = (uint32_t)(m->cycles + (count - 1 - vcount));
	NEXT();
l_pktlen:
	old = m->pktlen;
	if (in->rs1 != 0) {
		m->pktlen = x[in->rs1];
		m->pktlen_written = 1;
	}
	x[in->rd] = old;
	NEXT();
l_tile:
	old = (uint32_t)m->tile;
	if (in->rs1 != 0)
		tile_write(m, x[in->rs1]);
	x[in->rd] = old;
	NEXT();
l_sin_word:
	if (in->rd != XSINK)
		x[in->rd] = sin_pop(m);
	NEXT();
l_sin_left:
	x[in->rd] = (uint32_t)(m->sin_len - m->sin_pos);
	NEXT();
l_vle:
	VECTOR(KFN(k_vle));
l_vse:
	VECTOR(KFN(k_vse));
l_vfadd:
	VECTOR(KFN(k_vfadd));
l_vfmul:
	VECTOR(KFN(k_vfmul));
l_vmacc_vx:
	VECTOR(KFN(k_vmacc_vx));
l_vmacc_xv:
	VECTOR(KFN(k_vmacc_xv));
l_spvacc_vx:
	VECTOR(KFN(k_spvacc_vx));
l_spvacc_xv:
	VECTOR(KFN(k_spvacc_xv));
l_streamout:
	VECTOR(KFN(k_streamout));
l_streamout_sin:
	VECTOR(k_streamout_sin);
l_vext:
	VECTOR(acis_cgra_k_vext);
l_vred:
	VECTOR(acis_cgra_k_vred);
l_stream_loop:
	/* whole iterations of the loop; its branch, when it falls
	 * through, leaves for the instruction after it */
	{
		int done;
		uint32_t it = KFN(k_stream_loop)(m, in, budget - count, &done);

		if (it != 0) {
			m->loop_iters += it;
			count += (uint64_t)it * 6 - 1;
			vcount += (uint64_t)it * 3;
			if (done)
				in += 6;
			DISPATCH();
		}
	}
	/* fall through: the three on their own */
l_vle_macc_out:
	/* the three count as three, and the budget may end between them */
	if (likely(budget - count >= 2) && KFN(k_vle_macc_out)(m, in)) {
		m->fused_runs++;
		count += 2;
		vcount += 3;
		in += 3;
		DISPATCH();
	}
	goto l_vle; /* the vle on its own */
budget_out:
	m->pc = (size_t)(in - prog);
	rc = acis_cgra_fault(m, ACIS_CGRA_E_BUDGET, "instruction budget of %"
			PRIu64 " exhausted", budget);
	goto out;
l_wfi:
	m->pc = (size_t)(in - prog);
	rc = 0;
out:
	m->cycles += count - vcount;
	*insns = count;
	*vinsns = vcount;
	return rc;
}

#undef DISPATCH
#undef NEXT
#undef VECTOR
