/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gcn_host.h: the host side of gcn_os.s and gcn_ws.s - a random graph
 * with a power-law degree distribution, its feature matrix, the resident
 * data and the packets each handler expects, and the plain-C aggregation
 * Y = A X they must reproduce. Header only (static functions), shared by
 * the unit tests and the benchmark.
 *
 * The packet formats are those in the handlers' header comments. The
 * reference sums each row of A in increasing column order starting from
 * +0.0f, which is the order both handlers add in, so results are equal
 * bit for bit, not just within a tolerance.
 */
#ifndef GCN_HOST_H
#define GCN_HOST_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_cgra.h"

/* The sizes assembled into gcn_os.s and gcn_ws.s */
#define GCN_N 4096            /* nodes */
#define GCN_R 64              /* rows per block (OS) / m tile (WS) */
#define GCN_TK 512            /* columns per k tile */
#define GCN_T (GCN_N / GCN_TK)
#define GCN_D 8               /* indices per chunk */
#define GCN_ZEROS 16384       /* bank offset of the R zeros */
#define GCN_PAD 0xffffffffu   /* padding index: >= VLMAX, adds nothing */
#define GCN_MAX_PAYLOAD 65536 /* UDP-sized packets */

struct gcn_graph {
	uint32_t n;
	uint32_t nnz;
	uint32_t *rowptr;  /* [n + 1] */
	uint32_t *cols;    /* [nnz], ascending within a row */
};

struct gcn_packets {
	uint8_t *data;
	size_t len, cap;
	size_t *start;     /* [n + 1]: packet i is data[start[i]..start[i+1]) */
	size_t n, cap_n;
	uint64_t skipped;  /* what the idle-tile counter should end at */
	size_t max_payload; /* a packet's payload stays within this */
	int oom;
};

static inline uint64_t
gcn_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double
gcn_unit(uint64_t *s)
{
	return (double)(gcn_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static inline int
gcn_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static inline void
gcn_graph_free(struct gcn_graph *g)
{
	free(g->rowptr);
	free(g->cols);
	memset(g, 0, sizeof(*g));
}

/*
 * n nodes; out-degrees Pareto distributed (shape 1.2, minimum 1, capped
 * at n / 4), so most rows have a few nonzeros and a few have hundreds.
 * Nine neighbours in ten are near the node (within +-256, as a graph
 * partitioned for locality has them), the rest anywhere, so many
 * (block, tile) pairs are empty: the idle tiles.
 */
static inline int
gcn_graph_make(struct gcn_graph *g, uint32_t n, uint64_t seed)
{
	uint64_t s = seed;
	uint8_t *seen;
	uint32_t i, k, cap = 0;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->rowptr = calloc(n + 1, sizeof(uint32_t));
	seen = calloc(n, 1);
	if (g->rowptr == NULL || seen == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		double u = 1.0 - gcn_unit(&s);
		uint32_t deg = (uint32_t)(1.0 / pow(u, 1.0 / 1.2));

		if (deg > n / 4)
			deg = n / 4;
		if (g->nnz + deg > cap) {
			uint32_t *p;

			cap = (g->nnz + deg) * 2;
			p = realloc(g->cols, (size_t)cap * sizeof(uint32_t));
			if (p == NULL)
				goto fail;
			g->cols = p;
		}
		for (k = 0; k < deg;) {
			uint32_t j;

			if (gcn_rand(&s) % 10 != 0)
				j = (i + n + (uint32_t)(gcn_rand(&s) % 513) -
				     256) % n;
			else
				j = (uint32_t)(gcn_rand(&s) % n);
			if (seen[j])
				continue;
			seen[j] = 1;
			g->cols[g->nnz + k++] = j;
		}
		for (k = 0; k < deg; k++)
			seen[g->cols[g->nnz + k]] = 0;
		qsort(g->cols + g->nnz, deg, sizeof(uint32_t), gcn_cmp_u32);
		g->nnz += deg;
		g->rowptr[i + 1] = g->nnz;
	}
	free(seen);
	return 0;
fail:
	free(seen);
	gcn_graph_free(g);
	return -1;
}

/* x[j * f + p]: feature p of node j, values of varied magnitude. */
static inline void
gcn_features(float *x, uint32_t n, unsigned int f, uint64_t seed)
{
	uint64_t s = seed;
	size_t i;

	for (i = 0; i < (size_t)n * f; i++)
		x[i] = (float)((gcn_unit(&s) * 2.0 - 1.0) *
			       ldexp(1.0, (int)(gcn_rand(&s) % 9) - 4));
}

/* y = A x, row by row in increasing column order from +0.0f */
static inline void
gcn_reference(const struct gcn_graph *g, const float *x, unsigned int f,
	      float *y)
{
	uint32_t i, k;
	unsigned int p;

	for (i = 0; i < g->n; i++) {
		float *yi = y + (size_t)i * f;

		for (p = 0; p < f; p++)
			yi[p] = 0.0f;
		for (k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
			const float *xj = x + (size_t)g->cols[k] * f;

			for (p = 0; p < f; p++)
				yi[p] += xj[p];
		}
	}
}

/* Resident data of both handlers: bank p + 1 gets feature p of every
 * node, then the zeros that clear the accumulators. */
static inline int
gcn_load_features(struct acis_cgra *m, const float *x, uint32_t n,
		  unsigned int f)
{
	static const float zeros[GCN_R];
	float *col = malloc((size_t)n * sizeof(float));
	unsigned int p;
	uint32_t j;
	int rc = 0;

	if (col == NULL)
		return -1;
	for (p = 0; p < f && rc == 0; p++) {
		for (j = 0; j < n; j++)
			col[j] = x[(size_t)j * f + p];
		rc = acis_cgra_mem_write(m, p + 1, 0, col, n * sizeof(float));
		if (rc == 0)
			rc = acis_cgra_mem_write(m, p + 1, GCN_ZEROS, zeros,
						 sizeof(zeros));
	}
	free(col);
	return rc;
}

static inline void
gcn_put(struct gcn_packets *pk, uint32_t w)
{
	if (pk->oom)
		return;
	if (pk->len + 4 > pk->cap) {
		size_t cap = pk->cap ? pk->cap * 2 : 1 << 20;
		uint8_t *p = realloc(pk->data, cap);

		if (p == NULL) {
			pk->oom = 1;
			return;
		}
		pk->data = p;
		pk->cap = cap;
	}
	memcpy(pk->data + pk->len, &w, 4);
	pk->len += 4;
}

/* Open a packet for tile t (its last flag cleared for now). */
static inline void
gcn_begin(struct gcn_packets *pk, uint32_t t)
{
	if (pk->oom)
		return;
	if (pk->n + 2 > pk->cap_n) {
		size_t cap = pk->cap_n ? pk->cap_n * 2 : 1024;
		size_t *p = realloc(pk->start, cap * sizeof(size_t));

		if (p == NULL) {
			pk->oom = 1;
			return;
		}
		pk->start = p;
		pk->cap_n = cap;
	}
	pk->start[pk->n++] = pk->len;
	pk->start[pk->n] = pk->len;
	gcn_put(pk, t);
	gcn_put(pk, 0);
}

static inline void
gcn_close(struct gcn_packets *pk)
{
	if (!pk->oom)
		pk->start[pk->n] = pk->len;
}

/* Chunks of head + up to D indices, padded; a packet that would pass
 * max_payload is closed and another opened for the same tile. */
static inline void
gcn_chunks(struct gcn_packets *pk, int *open, uint32_t t, uint32_t head,
	   const uint32_t *idx, uint32_t cnt, uint32_t sub)
{
	uint32_t k, c;

	for (k = 0; k < cnt; k += GCN_D) {
		if (*open && pk->len - pk->start[pk->n - 1] +
		    4 * (1 + GCN_D) > pk->max_payload) {
			gcn_close(pk);
			*open = 0;
		}
		if (!*open) {
			gcn_begin(pk, t);
			*open = 1;
		}
		gcn_put(pk, head);
		for (c = 0; c < GCN_D; c++)
			gcn_put(pk, k + c < cnt ? idx[k + c] - sub : GCN_PAD);
	}
}

/* Mark the last packet of a block and count the block's idle tiles. */
static inline void
gcn_end_block(struct gcn_packets *pk, size_t first, uint32_t tiles_sent)
{
	uint32_t one = 1;

	if (pk->n == first) {
		/* nothing at all: one empty packet still emits the rows */
		gcn_begin(pk, GCN_T - 1);
		gcn_close(pk);
		tiles_sent = 1;
	}
	if (pk->oom)
		return;
	memcpy(pk->data + pk->start[pk->n - 1] + 4, &one, 4);
	pk->skipped += GCN_T - tiles_sent;
}

/* Packets of gcn_os.s, payloads of at most max_payload bytes (at least
 * 8 + 4 * (1 + GCN_D)): row blocks, then k tiles, then rows. */
static inline int
gcn_pack_os_max(const struct gcn_graph *g, struct gcn_packets *pk,
		size_t max_payload)
{
	uint32_t pos[GCN_R], b, t, r;

	memset(pk, 0, sizeof(*pk));
	pk->max_payload = max_payload;
	for (b = 0; b < g->n / GCN_R; b++) {
		size_t first = pk->n;
		uint32_t sent = 0;

		for (r = 0; r < GCN_R; r++)
			pos[r] = g->rowptr[b * GCN_R + r];
		for (t = 0; t < GCN_T; t++) {
			int open = 0;

			for (r = 0; r < GCN_R; r++) {
				uint32_t end = g->rowptr[b * GCN_R + r + 1];
				uint32_t k = pos[r];

				while (k < end && g->cols[k] < (t + 1) * GCN_TK)
					k++;
				gcn_chunks(pk, &open, t, r, g->cols + pos[r],
					   k - pos[r], 0);
				pos[r] = k;
			}
			if (open) {
				gcn_close(pk);
				sent++;
			}
		}
		gcn_end_block(pk, first, sent);
	}
	return pk->oom ? -1 : 0;
}

static inline int
gcn_pack_os(const struct gcn_graph *g, struct gcn_packets *pk)
{
	return gcn_pack_os_max(g, pk, GCN_MAX_PAYLOAD);
}

/* Packets of gcn_ws.s, payloads of at most max_payload bytes: m tiles,
 * then k tiles, then columns. */
static inline int
gcn_pack_ws_max(const struct gcn_graph *g, struct gcn_packets *pk,
		size_t max_payload)
{
	uint32_t *colptr, *rows, *fill, *pos, i, k, mt, t, j;

	memset(pk, 0, sizeof(*pk));
	pk->max_payload = max_payload;
	colptr = calloc(g->n + 1, sizeof(uint32_t));
	rows = malloc(((size_t)g->nnz + 1) * sizeof(uint32_t));
	fill = calloc(g->n, sizeof(uint32_t));
	pos = calloc(g->n, sizeof(uint32_t));
	if (colptr == NULL || rows == NULL || fill == NULL || pos == NULL) {
		pk->oom = 1;
		goto out;
	}
	/* the transpose (CSC); rows come out ascending per column */
	for (k = 0; k < g->nnz; k++)
		colptr[g->cols[k] + 1]++;
	for (j = 0; j < g->n; j++)
		colptr[j + 1] += colptr[j];
	for (i = 0; i < g->n; i++)
		for (k = g->rowptr[i]; k < g->rowptr[i + 1]; k++) {
			j = g->cols[k];
			rows[colptr[j] + fill[j]++] = i;
		}
	for (j = 0; j < g->n; j++)
		pos[j] = colptr[j];
	for (mt = 0; mt < g->n / GCN_R; mt++) {
		size_t first = pk->n;
		uint32_t sent = 0;

		for (t = 0; t < GCN_T; t++) {
			int open = 0;

			for (j = t * GCN_TK; j < (t + 1) * GCN_TK; j++) {
				uint32_t end = colptr[j + 1];

				k = pos[j];
				while (k < end && rows[k] < (mt + 1) * GCN_R)
					k++;
				gcn_chunks(pk, &open, t, j, rows + pos[j],
					   k - pos[j], mt * GCN_R);
				pos[j] = k;
			}
			if (open) {
				gcn_close(pk);
				sent++;
			}
		}
		gcn_end_block(pk, first, sent);
	}
out:
	free(colptr);
	free(rows);
	free(fill);
	free(pos);
	return pk->oom ? -1 : 0;
}

static inline int
gcn_pack_ws(const struct gcn_graph *g, struct gcn_packets *pk)
{
	return gcn_pack_ws_max(g, pk, GCN_MAX_PAYLOAD);
}

static inline void
gcn_packets_free(struct gcn_packets *pk)
{
	free(pk->data);
	free(pk->start);
	memset(pk, 0, sizeof(*pk));
}

#endif /* GCN_HOST_H */
