/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run loop and the vector kernels of the machine: one instance of
 * cgra_kern_tmpl.h per VRF interleave P (1, 2, 4, 8, 16, 32), each a
 * threaded run loop over the decoded ops with the kernels inlined into it
 * (the fused ones called), plus what does not depend on P (CSRs,
 * streamout.v sin, the fused kernels' checks). acis_cgra_kern_init points
 * m->exec at the instance for the machine's P once, at creation.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#if defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <stdio.h>
#include <string.h>

#include "cgra_internal.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Payload and bank words need not be aligned. */
typedef float f32u __attribute__((aligned(1)));
typedef uint32_t u32u __attribute__((aligned(1)));

typedef float vf2 __attribute__((vector_size(8)));
typedef float vf4 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef float vf16 __attribute__((vector_size(64)));
typedef float vf32 __attribute__((vector_size(128)));

static int
cgra_mem_fault(struct acis_cgra *m, unsigned int bank, uint32_t addr,
	       size_t len)
{
	return acis_cgra_fault(m, ACIS_CGRA_E_MEM,
			  "bank %u bytes %u..%zu (base %u) outside its %zu "
			  "bytes", bank, addr, (size_t)addr + len,
			  m->base[bank], m->bank_size[bank]);
}

static int
cgra_vrf_fault(struct acis_cgra *m, uint32_t x)
{
	return acis_cgra_fault(m, ACIS_CGRA_E_VRF,
			  "v0[%u] is outside the VRF's %u elements", x,
			  m->n_elems);
}

static int
cgra_out_fault(struct acis_cgra *m, size_t len)
{
	return acis_cgra_fault(m, ACIS_CGRA_E_OUTFULL,
			  "stream_out needs %zu bytes at %zu, room for %zu",
			  len, m->sout_pos, m->sout_cap);
}

/*
 * Elementwise fused multiply-add of n floats. GCC has no generic vector
 * fma and does not vectorise an fmaf loop over vector elements that
 * carries a dependence (vmacc.xv's accumulator), so where the target has
 * FMA the intrinsics do it; elsewhere fmaf per element (correct, slow:
 * -Dmachine=generic builds are for portability, not speed). n is a
 * constant once inlined, so only the loop that fits is left.
 */
static inline __attribute__((always_inline)) void
fma_n(float *r, const float *a, const float *b, const float *c,
      unsigned int n)
{
	unsigned int k = 0;

#if defined(__AVX512F__)
	for (; k + 16 <= n; k += 16)
		_mm512_storeu_ps(r + k,
				 _mm512_fmadd_ps(_mm512_loadu_ps(a + k),
						 _mm512_loadu_ps(b + k),
						 _mm512_loadu_ps(c + k)));
#endif
#if defined(__FMA__)
	for (; k + 8 <= n; k += 8)
		_mm256_storeu_ps(r + k,
				 _mm256_fmadd_ps(_mm256_loadu_ps(a + k),
						 _mm256_loadu_ps(b + k),
						 _mm256_loadu_ps(c + k)));
	for (; k + 4 <= n; k += 4)
		_mm_storeu_ps(r + k, _mm_fmadd_ps(_mm_loadu_ps(a + k),
						  _mm_loadu_ps(b + k),
						  _mm_loadu_ps(c + k)));
#endif
	for (; k < n; k++)
		r[k] = fmaf(a[k], b[k], c[k]);
}

/* r = a * b + c on P-float vectors (r may be c) */
#define VFMA_VEC(r, a, b, c) do { \
	VT a__ = (a), b__ = (b), c__ = (c); \
	fma_n((float *)&(r), (const float *)&a__, (const float *)&b__, \
	      (const float *)&c__, P); \
} while (0)

static inline uint32_t
sin_pop(struct acis_cgra *m)
{
	size_t left = m->sin_len - m->sin_pos;
	uint32_t v = 0;

	if (left >= 4) {
		/* one 4-byte load: a variable-length copy would be bytes,
		 * and reading them back as a word stalls store forwarding */
		memcpy(&v, m->sin + m->sin_pos, 4);
		m->sin_pos += 4;
		return v;
	}
	/* a partial last word is zero-extended; past the end the stream
	 * reads as zero and stays where it is */
	memcpy(&v, m->sin + m->sin_pos, left);
	m->sin_pos += left;
	return v;
}

/* The tile CSR's write: the idle-tile control. Moving forward from tile
 * t to tile u passes over u - t - 1 tiles that had no packet. */
static inline void
tile_write(struct acis_cgra *m, uint32_t v)
{
	const int64_t cur = m->tile;

	if ((int32_t)v > cur)
		m->skipped += (uint64_t)((int32_t)v - cur - 1);
	m->tile = (int32_t)v;
}

/* Forward VL words of stream_in unchanged (bytes, so a last partial word
 * keeps its length). */
static inline int
k_streamout_sin(struct acis_cgra *m, const struct cgra_insn *in)
{
	size_t left = m->sin_len - m->sin_pos;
	size_t len = (size_t)in->vl * 4;

	if (len > left)
		len = left;
	if (len > m->sout_cap - m->sout_pos)
		return cgra_out_fault(m, len);
	memcpy(m->sout + m->sout_pos, m->sin + m->sin_pos, len);
	m->sout_pos += len;
	m->sin_pos += len;
	cgra_account_out(m, (len + 3) / 4);
	return 0;
}

/*
 * Can the fused three (vle32.v vd, (rs1); vmacc.vx vd, xk, sin;
 * streamout.v vd: in[0..2], see the loader) run in one pass, streaming
 * words * 4 bytes out? Returns the bank's chunk, or NULL when they must
 * run on their own instead: a check of theirs would fail (so the fault
 * names the right one), v0[x] lies in vd (the load changes it before the
 * multiply reads it), one bank per VPE on a machine of several, or
 * stream_in and stream_out overlap. XOP_VLE_MACC_OUT and each iteration
 * of XOP_VLE_MACC_OUT_LOOP ask the same, so both stand for the three
 * exactly where the three would have run.
 */
static inline __attribute__((always_inline)) const f32u *
fused_chunk(struct acis_cgra *m, const struct cgra_insn *in, size_t words)
{
	const uint32_t vl = in[0].vl, x = m->x[in[1].rs1];
	const size_t sin_left = m->sin_len - m->sin_pos;
	const size_t sin_bytes = sin_left < (size_t)vl * 4 ? sin_left :
				 (size_t)vl * 4;
	/* the caller's buffers, compared as addresses */
	const uintptr_t o8 = (uintptr_t)(m->sout + m->sout_pos);
	const uintptr_t s8 = (uintptr_t)(m->sin + m->sin_pos);

	if (in[0].bank == 0 && m->cfg.n_vpe != 1)
		return NULL;
	if (x >= m->n_elems || (x >= in[0].va && x - in[0].va < vl) ||
	    words * 4 > m->sout_cap - m->sout_pos ||
	    (o8 < s8 + sin_bytes && s8 < o8 + words * 4))
		return NULL;
	return (const f32u *)cgra_bank_span(m, in[0].bank != 0 ?
					    in[0].bank : 1,
					    m->x[in[0].rs1], (size_t)vl * 4);
}

#define P 1
#define VT float
#define BCAST(s) (s)
#define VFMA(r, a, b, c) ((r) = fmaf((a), (b), (c)))
#define KFN(name) name##_1
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef BCAST
#undef VFMA
#undef KFN

#define BCAST(s) ((VT){} + (s))

#define P 2
#define VT vf2
#define VFMA VFMA_VEC
#define KFN(name) name##_2
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef VFMA
#undef KFN

#define P 4
#define VT vf4
#define VFMA VFMA_VEC
#define KFN(name) name##_4
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef VFMA
#undef KFN

#define P 8
#define VT vf8
#define VFMA VFMA_VEC
#define KFN(name) name##_8
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef VFMA
#undef KFN

#define P 16
#define VT vf16
#define VFMA VFMA_VEC
#define KFN(name) name##_16
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef VFMA
#undef KFN

#define P 32
#define VT vf32
#define VFMA VFMA_VEC
#define KFN(name) name##_32
#include "cgra_kern_tmpl.h"
#undef P
#undef VT
#undef VFMA
#undef KFN

void
acis_cgra_kern_init(struct acis_cgra *m)
{
	switch (m->P) {
	case 1:
		m->exec = execute_1;
		break;
	case 2:
		m->exec = execute_2;
		break;
	case 4:
		m->exec = execute_4;
		break;
	case 8:
		m->exec = execute_8;
		break;
	case 16:
		m->exec = execute_16;
		break;
	default:
		m->exec = execute_32;
		break;
	}
}
