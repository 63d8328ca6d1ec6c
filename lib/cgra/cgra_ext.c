/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NGRA extensions of the machine (doc/cgra-isa.md §4.1, thesis
 * §5.5.2): the element-wise ops of the typed PEs (integer and logic,
 * packed saturating adds, FP add, subtract, multiply, max, min, division,
 * square root, conversions, (value, index) pairs), whose first operand
 * is the stream or, with rs != 0, a group of the VRF (the PEs' wide
 * input MUXes); partial predication (a compare that makes a mask, a
 * merge that selects by one) and the cross-lane reduction tree. Every op
 * is exact and independent of the host: words are moved as bits
 * (memcpy), the FP ops are single IEEE operations (never contracted:
 * the library is built with -ffp-contract=off), and max, min and the
 * pairs order -0 below +0 and give one canonical NaN, so that folding
 * the same words in any grouping of a commutative op gives the same
 * bits. Plain loops over the interleaved VRF (cgra_internal.h): one
 * switch per instruction (per VPE for an overlapping register operand),
 * not per element.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cgra_internal.h"

#define CANON_NAN 0x7fc00000u

static inline float
as_f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint32_t
as_u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline int
is_nan(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* A signed key in the order of the floats, -0 below +0 (not NaN). */
static inline int32_t
fkey(uint32_t u)
{
	return (int32_t)(u ^ ((uint32_t)((int32_t)u >> 31) >> 1));
}

static inline uint32_t
fmax_u(uint32_t a, uint32_t b)
{
	if (is_nan(a) || is_nan(b))
		return CANON_NAN;
	return fkey(a) >= fkey(b) ? a : b;
}

static inline uint32_t
fmin_u(uint32_t a, uint32_t b)
{
	if (is_nan(a) || is_nan(b))
		return CANON_NAN;
	return fkey(a) <= fkey(b) ? a : b;
}

/* Saturating add of the packed lanes of two words, lanes of bits (8 or
 * 16), signed or not. */
static inline uint32_t
sadd(uint32_t a, uint32_t b, unsigned int bits, int sign)
{
	const int32_t mask = (int32_t)((1u << bits) - 1);
	const int32_t hi = sign ? mask >> 1 : mask, lo = sign ? -hi - 1 : 0;
	uint32_t r = 0, k;

	for (k = 0; k < 32; k += bits) {
		int32_t x = (int32_t)(a >> k) & mask, y = (int32_t)(b >> k) & mask;
		int32_t v;

		if (sign) { /* sign-extend the lanes */
			x = x > hi ? x - mask - 1 : x;
			y = y > hi ? y - mask - 1 : y;
		}
		v = x + y;
		v = v > hi ? hi : v < lo ? lo : v;
		r |= ((uint32_t)v & (uint32_t)mask) << k;
	}
	return r;
}

/* Float to int32: toward zero, saturating, NaN to 0. */
static inline uint32_t
cvt_x_f(uint32_t u)
{
	float f = as_f(u);

	if (is_nan(u))
		return 0;
	if (f >= 2147483648.0f)
		return INT32_MAX;
	if (f < -2147483648.0f)
		return (uint32_t)INT32_MIN;
	return (uint32_t)(int32_t)f;
}

/* Whether pair a (value av, index ai) wins over pair b: the larger
 * value for max (the smaller for min), a number over a NaN, the smaller
 * index between equals; the smaller value bits between two equal
 * indices, so the choice never depends on which is which. */
static inline int
pair_wins(uint32_t av, uint32_t ai, uint32_t bv, uint32_t bi, int max)
{
	int an = is_nan(av), bn = is_nan(bv);

	if (an != bn)
		return bn;
	if (!an && fkey(av) != fkey(bv))
		return max ? fkey(av) > fkey(bv) : fkey(av) < fkey(bv);
	if (ai != bi)
		return (int32_t)ai < (int32_t)bi;
	return av <= bv;
}

/* For each element e below cnt and each VPE p from p0 to p1: a the
 * operand's word at s + e * ss + p * ps (the stream's: ss 4, ps 0; a VRF
 * group's: ss 4P, ps 4), b vd's, vd's word set to EXPR. */
#define EACH(EXPR) do { \
	for (e = 0; e < cnt; e++) { \
		const uint8_t *ae = s + e * ss; \
		for (p = p0; p < p1; p++) { \
			float *dp = d + (size_t)e * P + p; \
			uint32_t a, b, r; \
			memcpy(&a, ae + p * ps, 4); \
			memcpy(&b, dp, 4); \
			r = (EXPR); \
			memcpy(dp, &r, 4); \
			(void)a; \
			(void)b; \
		} \
	} \
} while (0)

/* One VPE (P = 1): the group and the stream are each one run of words,
 * so the loops are over arrays, which GCC vectorises; the packed
 * saturating adds are byte and half-word loops (its saturating vector
 * adds). 0 if the op is not done here. */
typedef uint32_t u32u __attribute__((aligned(1), may_alias));
typedef uint16_t u16u __attribute__((aligned(1), may_alias));
typedef uint32_t u32a __attribute__((may_alias)); /* a VRF's floats */
typedef uint16_t u16a __attribute__((may_alias));

#define EACH1(EXPR) do { \
	for (e = 0; e < cnt; e++) { \
		uint32_t a = s[e], b = d[e]; \
		d[e] = (EXPR); \
		(void)b; \
	} \
} while (0)

static int
vext_one(unsigned int sub, u32a *restrict d, const u32u *restrict s,
	 uint32_t cnt)
{
	uint8_t *d8 = (uint8_t *)d;
	const uint8_t *s8 = (const uint8_t *)s;
	u16a *d16 = (u16a *)d;
	const u16u *s16 = (const u16u *)s;
	uint32_t e;

	switch (sub) {
	case VE_ADD_I32:
		EACH1(a + b);
		return 1;
	case VE_MUL_I32:
		EACH1(a * b);
		return 1;
	case VE_AND:
		EACH1(a & b);
		return 1;
	case VE_OR:
		EACH1(a | b);
		return 1;
	case VE_XOR:
		EACH1(a ^ b);
		return 1;
	case VE_MAX_I32:
		EACH1((int32_t)a > (int32_t)b ? a : b);
		return 1;
	case VE_MIN_I32:
		EACH1((int32_t)a < (int32_t)b ? a : b);
		return 1;
	case VE_MAX_U32:
		EACH1(a > b ? a : b);
		return 1;
	case VE_MIN_U32:
		EACH1(a < b ? a : b);
		return 1;
	case VE_FADD:
		EACH1(as_u(as_f(a) + as_f(b)));
		return 1;
	case VE_FSUB:
		EACH1(as_u(as_f(a) - as_f(b)));
		return 1;
	case VE_FMUL:
		EACH1(as_u(as_f(a) * as_f(b)));
		return 1;
	case VE_SADD_U8:
		for (e = 0; e < 4 * cnt; e++) {
			unsigned int v = (unsigned int)d8[e] + s8[e];

			d8[e] = (uint8_t)(v > 255 ? 255 : v);
		}
		return 1;
	case VE_SADD_I8:
		for (e = 0; e < 4 * cnt; e++) {
			int v = (int8_t)d8[e] + (int8_t)s8[e];

			d8[e] = (uint8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
		}
		return 1;
	case VE_SADD_U16:
		for (e = 0; e < 2 * cnt; e++) {
			unsigned int v = (unsigned int)d16[e] + s16[e];

			d16[e] = (uint16_t)(v > 65535 ? 65535 : v);
		}
		return 1;
	case VE_SADD_I16:
		for (e = 0; e < 2 * cnt; e++) {
			int v = (int16_t)d16[e] + (int16_t)s16[e];

			d16[e] = (uint16_t)(v > 32767 ? 32767 :
					    v < -32768 ? -32768 : v);
		}
		return 1;
	}
	return 0;
}

#undef EACH1

/* Sub-op sub on elements 0..cnt-1 of VPEs p0..p1-1 of the interleaved
 * group d: the operand as EACH reads it, mk vmerge's mask. One switch per
 * call, not per element. */
static void
vext_each(unsigned int sub, unsigned int P, float *d, const uint8_t *s,
	  size_t ss, size_t ps, const float *mk, uint32_t cnt,
	  unsigned int p0, unsigned int p1)
{
	size_t e;
	unsigned int p;

	switch (sub) {
	case VE_ADD_I32:
		EACH(a + b);
		break;
	case VE_MUL_I32:
		EACH(a * b);
		break;
	case VE_AND:
		EACH(a & b);
		break;
	case VE_OR:
		EACH(a | b);
		break;
	case VE_XOR:
		EACH(a ^ b);
		break;
	case VE_MAX_I32:
		EACH((int32_t)a > (int32_t)b ? a : b);
		break;
	case VE_MIN_I32:
		EACH((int32_t)a < (int32_t)b ? a : b);
		break;
	case VE_MAX_U32:
		EACH(a > b ? a : b);
		break;
	case VE_MIN_U32:
		EACH(a < b ? a : b);
		break;
	case VE_FMAX:
		EACH(fmax_u(a, b));
		break;
	case VE_FMIN:
		EACH(fmin_u(a, b));
		break;
	case VE_SADD_I8:
		EACH(sadd(a, b, 8, 1));
		break;
	case VE_SADD_U8:
		EACH(sadd(a, b, 8, 0));
		break;
	case VE_SADD_I16:
		EACH(sadd(a, b, 16, 1));
		break;
	case VE_SADD_U16:
		EACH(sadd(a, b, 16, 0));
		break;
	case VE_FDIV:
		EACH(as_u(as_f(a) / as_f(b)));
		break;
	case VE_FSQRT:
		EACH(as_u(sqrtf(as_f(a))));
		break;
	case VE_FCVT_F_X:
		EACH(as_u((float)(int32_t)a));
		break;
	case VE_FCVT_X_F:
		EACH(cvt_x_f(a));
		break;
	case VE_MFLT:
		EACH(as_f(a) < as_f(b) ? 0xffffffffu : 0u);
		break;
	case VE_FADD:
		EACH(as_u(as_f(a) + as_f(b)));
		break;
	case VE_FSUB:
		EACH(as_u(as_f(a) - as_f(b)));
		break;
	case VE_FMUL:
		EACH(as_u(as_f(a) * as_f(b)));
		break;
	case VE_MERGE:
		for (e = 0; e < cnt; e++) {
			uint32_t a, c;

			for (p = p0; p < p1; p++) {
				memcpy(&a, s + e * ss + p * ps, 4);
				memcpy(&c, mk + (size_t)e * P + p, 4);
				if (c != 0)
					memcpy(d + (size_t)e * P + p, &a, 4);
			}
		}
		break;
	case VE_MAXLOC:
	case VE_MINLOC:
		/* (value, index) pairs; a lone last word of a short
		 * stream leaves its pair as it was */
		for (e = 0; e + 1 < cnt; e += 2) {
			uint32_t av, ai, bv, bi;

			for (p = p0; p < p1; p++) {
				float *dv = d + (size_t)e * P + p;
				float *di = dv + P;

				memcpy(&av, s + e * ss + p * ps, 4);
				memcpy(&ai, s + (e + 1) * ss + p * ps, 4);
				memcpy(&bv, dv, 4);
				memcpy(&bi, di, 4);
				if (pair_wins(av, ai, bv, bi,
					      sub == VE_MAXLOC)) {
					memcpy(dv, &av, 4);
					memcpy(di, &ai, 4);
				}
			}
		}
		break;
	}
}

/*
 * The register form (rs != 0, not vmerge): a[i] is element x[rs] + i of
 * the VPE's own VRF. Every element is active and the stream is not read.
 * The result is as if all a were read before any of vd is written. A
 * group that overlaps vd at the same offset is safe element by element
 * (element i reads a[i] and b[i] before writing d[i]), but the one-VPE
 * loops take restrict pointers, and at another offset d[i] would land on
 * an a[j] not yet read; so an overlapping group is copied first, into
 * m->tail (VL words fit: it is sized for VLMAX), one VPE at a time.
 */
static int
vext_reg(struct acis_cgra *m, const struct cgra_insn *in, float *d)
{
	const unsigned int P = m->P, n = m->cfg.n_vpe;
	const uint32_t x = m->x[in->rs1], vl = in->vl;
	const float *g;
	uint32_t *t = m->tail;
	unsigned int p;
	uint32_t e;
	int ovl;

	if (x > m->n_elems || vl > m->n_elems - x)
		return acis_cgra_fault(m, ACIS_CGRA_E_VRF,
				       "operand v0[%u..%llu] is outside the "
				       "VRF's %u elements", x,
				       (unsigned long long)x + vl - 1,
				       m->n_elems);
	g = m->vrf + (size_t)x * P;
	ovl = x < in->va + vl && in->va < x + vl;
	if (P == 1) {
		const uint32_t *a = (const uint32_t *)g;

		if (ovl) {
			memcpy(t, g, (size_t)vl * 4);
			a = t;
		}
		if (!vext_one(in->sub, (u32a *)d, (const u32u *)a, vl))
			vext_each(in->sub, 1, d, (const uint8_t *)a, 4, 0,
				  NULL, vl, 0, 1);
	} else if (ovl && x != in->va) {
		for (p = 0; p < n; p++) {
			for (e = 0; e < vl; e++)
				memcpy(&t[e], g + (size_t)e * P + p, 4);
			vext_each(in->sub, P, d, (const uint8_t *)t, 4, 0,
				  NULL, vl, p, p + 1);
		}
	} else {
		vext_each(in->sub, P, d, (const uint8_t *)g,
			  (size_t)P * 4, 4, NULL, vl, 0, n);
	}
	/* costs as the stream form would with all VL words there */
	cgra_account(m, vl);
	return 0;
}

int
acis_cgra_k_vext(struct acis_cgra *m, const struct cgra_insn *in)
{
	const unsigned int P = m->P, n = m->cfg.n_vpe;
	float *d = m->vrf + (size_t)in->va * P;
	const float *mk = NULL;
	const uint8_t *s;
	uint32_t cnt;

	if (in->sub == VE_MERGE) {
		uint32_t x = m->x[in->rs1];

		if (x > m->n_elems || in->vl > m->n_elems - x)
			return acis_cgra_fault(m, ACIS_CGRA_E_VRF,
					       "mask v0[%u..%u] is outside the "
					       "VRF's %u elements", x,
					       x + in->vl - 1, m->n_elems);
		mk = m->vrf + (size_t)x * P;
	} else if (in->rs1 != 0) {
		return vext_reg(m, in, d);
	}
	s = cgra_stream_take(m, in->vl, &cnt);
	if (P == 1 && vext_one(in->sub, (u32a *)d, (const u32u *)s, cnt)) {
		cgra_account(m, cnt);
		return 0;
	}
	vext_each(in->sub, P, d, s, 4, 0, mk, cnt, 0, n);
	cgra_account(m, cnt);
	return 0;
}

#undef EACH

static inline uint32_t
red_op(unsigned int sub, uint32_t a, uint32_t b)
{
	switch (sub) {
	case VR_SUM_F32:
		return as_u(as_f(a) + as_f(b));
	case VR_MAX_F32:
		return fmax_u(a, b);
	case VR_MIN_F32:
		return fmin_u(a, b);
	case VR_SUM_I32:
		return a + b;
	case VR_MAX_I32:
		return (int32_t)a > (int32_t)b ? a : b;
	default: /* VR_MIN_I32 */
		return (int32_t)a < (int32_t)b ? a : b;
	}
}

/*
 * The tree: at each level, elements 2j·s and 2j·s + s combine (s = 1,
 * 2, 4, ...), an element without a partner going up as it is; the left
 * operand is always the lower-numbered. Built in one pass with a stack
 * of complete subtrees (a binary counter): a new element goes on as
 * level 0, two of a level make one of the next; at the end the stack is
 * folded from the top, each lower entry the left operand.
 */
int
acis_cgra_k_vred(struct acis_cgra *m, const struct cgra_insn *in)
{
	const unsigned int P = m->P, n = m->cfg.n_vpe;
	const uint32_t x = m->x[in->rs1], vl = in->vl;
	const float *t = m->vrf + (size_t)in->va * P;
	uint32_t stk[17][ACIS_CGRA_MAX_VPE], r;
	uint8_t lvl[17];
	unsigned int top = 0, e, p;

	if (x >= m->n_elems)
		return acis_cgra_fault(m, ACIS_CGRA_E_VRF,
				       "v0[%u] is outside the VRF's %u "
				       "elements", x, m->n_elems);
	if (vl == 0)
		return 0;
	for (e = 0; e < vl; e++) {
		for (p = 0; p < n; p++)
			memcpy(&stk[top][p], t + (size_t)e * P + p, 4);
		lvl[top++] = 0;
		while (top >= 2 && lvl[top - 1] == lvl[top - 2]) {
			for (p = 0; p < n; p++)
				stk[top - 2][p] = red_op(in->sub,
							 stk[top - 2][p],
							 stk[top - 1][p]);
			lvl[top - 2]++;
			top--;
		}
	}
	for (p = 0; p < n; p++) {
		unsigned int j = top - 1;

		r = stk[j][p];
		while (j-- > 0)
			r = red_op(in->sub, stk[j][p], r);
		memcpy(m->vrf + (size_t)x * P + p, &r, 4);
	}
	/* a pass over the elements and the 16-lane tree's four levels */
	cgra_account(m, vl);
	m->cycles += 4;
	return 0;
}
