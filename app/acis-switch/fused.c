/* SPDX-License-Identifier: BSD-3-Clause */
/* A worker's fused calls; see fused.h and doc/fused.md. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "fused.h"

/* The index: (ctx, seq) to call, open addressing with linear probing in
 * twice the calls' room; deletion shifts the probe run back, so lookups
 * never meet a tombstone. A table of its own, not an rte_hash: a fabric
 * of 512 logical switches has a table a worker each, and rte_hash takes
 * memzones, of which the EAL has a few thousand in all. */
#define IDX_BITS 9
#define IDX_N (1u << IDX_BITS)

struct acis_fused_sw {
	uint16_t idx[IDX_N];   /* 0: empty; else the call's slot + 1 */
	struct acis_fused_inst *call[ACIS_FUSED_CALLS];
	struct acis_fused_inst *spare[ACIS_FUSED_SPARE];
	uint32_t n_spare;
	uint32_t n_open;
	struct acis_fused_ws *ws; /* made at the first run */
	int socket;
};

static uint32_t
home(uint32_t ctx, uint32_t seq)
{
	return (uint32_t)((((uint64_t)ctx << 32 | seq) *
			   0x9e3779b97f4a7c15ull) >> (64 - IDX_BITS));
}

/* The index position of (ctx, seq), or IDX_N. */
static uint32_t
idx_find(const struct acis_fused_sw *t, uint32_t ctx, uint32_t seq)
{
	uint32_t i = home(ctx, seq);

	while (t->idx[i] != 0) {
		const struct acis_fused_inst *f = t->call[t->idx[i] - 1];

		if (f->ctx == ctx && f->seq == seq)
			return i;
		i = (i + 1) & (IDX_N - 1);
	}
	return IDX_N;
}

static void
idx_remove(struct acis_fused_sw *t, uint32_t i)
{
	uint32_t j = i;

	t->idx[i] = 0;
	for (;;) {
		const struct acis_fused_inst *f;
		uint32_t k;

		j = (j + 1) & (IDX_N - 1);
		if (t->idx[j] == 0)
			return;
		f = t->call[t->idx[j] - 1];
		k = home(f->ctx, f->seq);
		/* the entry at j may move to the hole at i unless its home
		 * lies cyclically in (i, j] */
		if (i <= j ? (k > i && k <= j) : (k > i || k <= j))
			continue;
		t->idx[i] = t->idx[j];
		t->idx[j] = 0;
		i = j;
	}
}

static void
inst_free(struct acis_fused_inst *f)
{
	uint32_t i;

	for (i = 0; i < f->rk_cap; i++)
		rte_free(f->rk[i].msg);
	rte_free(f->rk);
	rte_free(f->res);
	rte_free(f);
}

struct acis_fused_sw *
acis_fused_sw_new(int socket)
{
	struct acis_fused_sw *t;

	t = rte_zmalloc_socket("acis_fused", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       socket);
	if (t != NULL)
		t->socket = socket;
	return t;
}

void
acis_fused_sw_free(struct acis_fused_sw *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	for (i = 0; i < ACIS_FUSED_CALLS; i++)
		if (t->call[i] != NULL)
			acis_fused_sw_close(t, t->call[i]);
	while (t->n_spare != 0)
		inst_free(t->spare[--t->n_spare]);
	acis_fused_ws_free(t->ws);
	rte_free(t);
}

struct acis_fused_inst *
acis_fused_sw_find(struct acis_fused_sw *t, uint32_t ctx, uint32_t seq)
{
	uint32_t i = idx_find(t, ctx, seq);

	return i < IDX_N ? t->call[t->idx[i] - 1] : NULL;
}

struct acis_fused_inst *
acis_fused_sw_open(struct acis_fused_sw *t, uint32_t job, uint32_t ctx,
		   uint32_t seq, uint32_t size)
{
	struct acis_fused_inst *f;
	uint32_t i, h;

	for (i = 0; i < ACIS_FUSED_CALLS && t->call[i] != NULL; i++)
		;
	if (i == ACIS_FUSED_CALLS)
		return NULL;
	/* a spare call with room for size ranks, its buffers kept */
	f = NULL;
	while (t->n_spare != 0 && f == NULL) {
		f = t->spare[--t->n_spare];
		if (f->rk_cap < size) {
			inst_free(f);
			f = NULL;
		}
	}
	if (f == NULL) {
		f = rte_zmalloc_socket("acis_fused_call", sizeof(*f), 0,
				       t->socket);
		if (f == NULL)
			return NULL;
		f->rk = rte_zmalloc_socket("acis_fused_ranks",
					   (size_t)size * sizeof(*f->rk), 0,
					   t->socket);
		if (f->rk == NULL) {
			rte_free(f);
			return NULL;
		}
		f->rk_cap = size;
	} else {
		struct acis_fused_rank *rk = f->rk;
		uint8_t *res = f->res;
		uint32_t rk_cap = f->rk_cap, res_cap = f->res_cap;

		for (i = 0; i < rk_cap; i++) {
			uint8_t *m = rk[i].msg;
			uint64_t cap = rk[i].cap;

			memset(&rk[i], 0, sizeof(rk[i]));
			rk[i].msg = m;
			rk[i].cap = cap;
		}
		memset(f, 0, sizeof(*f));
		f->rk = rk;
		f->rk_cap = rk_cap;
		f->res = res;
		f->res_cap = res_cap;
	}
	f->job = job;
	f->ctx = ctx;
	f->seq = seq;
	f->size = size;
	t->call[i] = f;
	/* the index has twice the calls' room: a free place is there */
	for (h = home(ctx, seq); t->idx[h] != 0; h = (h + 1) & (IDX_N - 1))
		;
	t->idx[h] = (uint16_t)(i + 1);
	t->n_open++;
	return f;
}

void
acis_fused_sw_close(struct acis_fused_sw *t, struct acis_fused_inst *f)
{
	uint32_t i = idx_find(t, f->ctx, f->seq);

	if (i < IDX_N && t->call[t->idx[i] - 1] == f) {
		t->call[t->idx[i] - 1] = NULL;
		idx_remove(t, i);
	}
	for (i = 0; i < ACIS_FUSED_CALLS; i++) /* (not in the index: cannot be) */
		if (t->call[i] == f)
			t->call[i] = NULL;
	t->n_open--;
	if (t->n_spare < ACIS_FUSED_SPARE)
		t->spare[t->n_spare++] = f;
	else
		inst_free(f);
}

uint32_t
acis_fused_sw_open_count(const struct acis_fused_sw *t)
{
	return t->n_open;
}

struct acis_fused_inst *
acis_fused_sw_at(struct acis_fused_sw *t, uint32_t i)
{
	return i < ACIS_FUSED_CALLS ? t->call[i] : NULL;
}

int
acis_fused_sw_take(struct acis_fused_inst *f, uint32_t r, uint64_t msg_len,
		   uint32_t chunk, const uint8_t *p, uint32_t len)
{
	struct acis_fused_rank *k = &f->rk[r];

	if (k->got == 0 && k->len == 0) {
		k->cpr = (uint32_t)acis_n_chunks(msg_len, f->cs);
		if (k->cpr > ACIS_FUSED_CHUNKS_MAX)
			return -1;
		if (k->cap < msg_len || k->msg == NULL) {
			rte_free(k->msg);
			k->cap = 0;
			k->msg = rte_malloc_socket("acis_fused_msg",
						   msg_len != 0 ? msg_len : 1,
						   0, SOCKET_ID_ANY);
			if (k->msg == NULL)
				return -1;
			k->cap = msg_len != 0 ? msg_len : 1;
		}
		k->len = msg_len;
	}
	if (msg_len != k->len || chunk >= k->cpr)
		return -1;
	if (k->seen[chunk / 64] & UINT64_C(1) << chunk % 64)
		return 0;
	k->seen[chunk / 64] |= UINT64_C(1) << chunk % 64;
	memcpy(k->msg + (uint64_t)chunk * f->cs, p, len);
	if (++k->got == k->cpr)
		f->whole++;
	return 1;
}

int
acis_fused_sw_run(struct acis_fused_sw *t, struct acis_fused_inst *f,
		  acis_fused_map_fn map, void *arg)
{
	const uint8_t *msg[f->size];
	uint64_t len[f->size];
	struct acis_fused_call c = {
		.pattern = f->pattern, .dtype = f->dtype, .op = f->op,
		.root = f->root, .size = f->size, .msg = msg, .msg_len = len,
	};
	uint32_t r, total = 0, n;
	int rc;

	for (r = 0; r < f->size; r++) {
		msg[r] = f->rk[r].msg;
		len[r] = f->rk[r].len;
	}
	if (t->ws == NULL && (t->ws = acis_fused_ws_new()) == NULL) {
		/* once a worker, at its first fused call */
		f->state = ACIS_FUSED_FAILED;
		f->status = ACIS_S_FULL;
		snprintf(f->msg, sizeof(f->msg), "no memory for the fused "
			 "unit's workspace");
		return -1;
	}
	rc = acis_fused_run(t->ws, &c, map, arg, f->msg, sizeof(f->msg));
	if (rc != 0) {
		f->state = ACIS_FUSED_FAILED;
		f->status = rc == ACIS_FUSED_E_MAP ? ACIS_S_OP_FAULT :
			    rc == ACIS_FUSED_E_NOMEM ? ACIS_S_FULL :
						       ACIS_S_MISMATCH;
		return -1;
	}
	for (r = 0; r < f->size; r++) {
		acis_fused_result(t->ws, r, &n);
		total += n;
	}
	if (f->res_cap < total || f->res == NULL) {
		rte_free(f->res);
		f->res_cap = 0;
		f->res = rte_malloc_socket("acis_fused_res", total ? total : 1,
					   0, t->socket);
		if (f->res != NULL)
			f->res_cap = total ? total : 1;
	}
	if (f->res == NULL) {
		f->state = ACIS_FUSED_FAILED;
		f->status = ACIS_S_FULL;
		snprintf(f->msg, sizeof(f->msg), "no memory for the results");
		return -1;
	}
	total = 0;
	for (r = 0; r < f->size; r++) {
		const uint8_t *p = acis_fused_result(t->ws, r, &n);

		memcpy(f->res + total, p, n);
		f->rk[r].res_off = total;
		f->rk[r].res_len = n;
		f->rk[r].res_chunks = (uint32_t)acis_n_chunks(n, f->cs);
		total += n;
	}
	f->state = ACIS_FUSED_DONE;
	return 0;
}
