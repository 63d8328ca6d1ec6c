/* SPDX-License-Identifier: BSD-3-Clause */
/* The fused collective unit; see acis_fused.h and doc/fused.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_fused.h"
#include "acis_reduce.h"

struct acis_fused_ws {
	uint32_t ranks;          /* rank room of outs, res, res_len */
	uint8_t *sin;            /* ACIS_FUSED_SIN_HDR + ACIS_FUSED_SIN_MAX */
	uint8_t *acc;            /* a reduction's accumulator */
	uint8_t *outs;           /* [ranks][ACIS_FUSED_BUF_MAX] the op's */
	uint8_t *res;            /* [ranks][ACIS_FUSED_BUF_MAX] stage 2's */
	const uint8_t **res_ptr; /* [ranks] each rank's result */
	uint32_t *res_len;       /* [ranks] */
};

/* a widened accumulator is at most this many times its data */
#define ACC_WIDEN 4

int
acis_fused_has_root(unsigned int pattern)
{
	return pattern == ACIS_FUSED_SCATTER_OP_REDUCE;
}

int
acis_fused_reduces(unsigned int pattern)
{
	return pattern != ACIS_FUSED_ALLGATHER_OP;
}

static void
wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void
acis_fused_prefix_write(uint8_t *msg, const struct acis_fused_prefix *p)
{
	memset(msg, 0, ACIS_FUSED_PREFIX);
	wr32(msg, p->block);
	wr32(msg + 4, p->inbound);
	wr32(msg + 8, p->out);
	msg[12] = p->map;
}

int
acis_fused_prefix_read(const uint8_t *msg, uint64_t len,
		       struct acis_fused_prefix *p)
{
	if (len < ACIS_FUSED_PREFIX)
		return -1;
	p->block = rd32(msg);
	p->inbound = rd32(msg + 4);
	p->out = rd32(msg + 8);
	p->map = msg[12];
	if (msg[13] != 0 || msg[14] != 0 || msg[15] != 0)
		return -1;
	return (uint64_t)ACIS_FUSED_PREFIX + p->block + p->inbound == len ? 0 :
										  -1;
}

uint32_t
acis_fused_result_len(unsigned int pattern, uint32_t root, uint32_t r,
		      uint32_t out)
{
	if (pattern == ACIS_FUSED_SCATTER_OP_REDUCE && r != root)
		return 0;
	return out;
}

struct acis_fused_ws *
acis_fused_ws_new(void)
{
	struct acis_fused_ws *ws = calloc(1, sizeof(*ws));

	if (ws == NULL)
		return NULL;
	ws->sin = malloc(ACIS_FUSED_SIN_HDR + ACIS_FUSED_SIN_MAX);
	ws->acc = malloc((size_t)ACC_WIDEN * ACIS_FUSED_BUF_MAX);
	if (ws->sin == NULL || ws->acc == NULL) {
		acis_fused_ws_free(ws);
		return NULL;
	}
	return ws;
}

void
acis_fused_ws_free(struct acis_fused_ws *ws)
{
	if (ws == NULL)
		return;
	free(ws->sin);
	free(ws->acc);
	free(ws->outs);
	free(ws->res);
	free(ws->res_ptr);
	free(ws->res_len);
	free(ws);
}

/* Room for n ranks: grown to the largest communicator run, never per
 * call after that. */
static int
reserve(struct acis_fused_ws *ws, uint32_t n)
{
	uint8_t *o, *r;
	const uint8_t **rp;
	uint32_t *rl;

	if (n <= ws->ranks)
		return 0;
	o = realloc(ws->outs, (size_t)n * ACIS_FUSED_BUF_MAX);
	if (o != NULL)
		ws->outs = o;
	r = realloc(ws->res, (size_t)n * ACIS_FUSED_BUF_MAX);
	if (r != NULL)
		ws->res = r;
	rp = realloc(ws->res_ptr, (size_t)n * sizeof(*rp));
	if (rp != NULL)
		ws->res_ptr = rp;
	rl = realloc(ws->res_len, (size_t)n * sizeof(*rl));
	if (rl != NULL)
		ws->res_len = rl;
	if (o == NULL || r == NULL || rp == NULL || rl == NULL)
		return -1;
	ws->ranks = n;
	return 0;
}

static int
say(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len != 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Fold n-byte blocks src[0..k) in order, as the datatype's op, into dst:
 * the same kernels and order as a slot's rank-order fold. */
static void
fold_blocks(struct acis_fused_ws *ws, const struct acis_fused_call *c,
	    const uint8_t *const *src, uint32_t k, uint32_t n, uint8_t *dst)
{
	size_t elems = n / acis_dtype_size(c->dtype);
	uint32_t i;

	acis_reduce_init(c->dtype, ws->acc, src[0], elems);
	for (i = 1; i < k; i++)
		acis_reduce_fold(c->dtype, c->op, ws->acc, src[i], elems);
	acis_reduce_finish(c->dtype, dst, ws->acc, elems);
}

/* Check the ranks' prefixes against one another and the bounds. */
static int
check(const struct acis_fused_call *c, struct acis_fused_prefix *pre,
      char *err, size_t errlen)
{
	const uint32_t P = c->size;
	unsigned int ds = acis_dtype_size(c->dtype);
	struct acis_fused_prefix q;
	uint32_t r, want;

	if (c->pattern == 0 || c->pattern >= ACIS_FUSED_MAX || ds == 0 ||
	    P == 0)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "fused: pattern %u, "
			   "datatype %u, %u ranks: not a fused call",
			   c->pattern, c->dtype, P);
	if (acis_fused_has_root(c->pattern) && c->root >= P)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: root %u of %u "
			   "ranks", acis_fused_name(c->pattern),
			   c->root, P);
	if (acis_fused_reduces(c->pattern) &&
	    (c->op >= ACIS_OP_MAX_ || !acis_op_valid(c->op, c->dtype)))
		return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: op %s is not "
			   "a built-in op on %s",
			   acis_fused_name(c->pattern),
			   acis_op_name(c->op), acis_dtype_name(c->dtype));
	for (r = 0; r < P; r++) {
		if (acis_fused_prefix_read(c->msg[r], c->msg_len[r], &q) != 0)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: rank "
				   "%u's prefix does not add up to its %llu "
				   "bytes", acis_fused_name(c->pattern),
				   r, (unsigned long long)c->msg_len[r]);
		if (r == 0)
			*pre = q;
		if (q.map != pre->map || q.out != pre->out)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: rank "
				   "%u names op %u with %u bytes out, rank 0 op "
				   "%u with %u", acis_fused_name(
					   c->pattern), r, q.map, q.out,
				   pre->map, pre->out);
		if (q.inbound > ACIS_FUSED_BUF_MAX)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: rank "
				   "%u's inbound buffer is %u bytes, more than "
				   "%u", acis_fused_name(c->pattern),
				   r, q.inbound, ACIS_FUSED_BUF_MAX);
		want = c->pattern == ACIS_FUSED_SCATTER_OP_REDUCE ?
			       (r == c->root ? q.block : 0) : pre->block;
		if (q.block != want)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: rank "
				   "%u's block is %u bytes, %u expected",
				   acis_fused_name(c->pattern), r,
				   q.block, want);
	}
	if (pre->map < ACIS_OP_USER_MIN)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: op %u is not a "
			   "user op (%u..255)",
			   acis_fused_name(c->pattern), pre->map,
			   ACIS_OP_USER_MIN);
	if (pre->out > ACIS_FUSED_BUF_MAX)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: the op's output "
			   "is %u bytes, more than %u",
			   acis_fused_name(c->pattern), pre->out,
			   ACIS_FUSED_BUF_MAX);
	switch (c->pattern) {
	case ACIS_FUSED_ALLGATHER_OP:
		if ((uint64_t)P * pre->block > ACIS_FUSED_SIN_MAX ||
		    pre->block > ACIS_FUSED_BUF_MAX)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "allgather_op:"
				   " %u blocks of %u bytes are more than the "
				   "op's %u-byte stream", P, pre->block,
				   ACIS_FUSED_SIN_MAX);
		break;
	case ACIS_FUSED_SCATTER_OP_REDUCE:
		q = *pre;
		acis_fused_prefix_read(c->msg[c->root], c->msg_len[c->root], &q);
		if (q.block % P != 0 || q.block / P % ds != 0 ||
		    q.block / P > ACIS_FUSED_BUF_MAX)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "scatter_op_"
				   "reduce: the root's %u bytes are not %u "
				   "blocks of whole %s of at most %u bytes",
				   q.block, P, acis_dtype_name(c->dtype),
				   ACIS_FUSED_BUF_MAX);
		break;
	default:
		if (pre->block == 0 || pre->block % ds != 0 ||
		    pre->block > ACIS_FUSED_BUF_MAX)
			return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: a block "
				   "of %u bytes is not 1 to %u bytes of whole %s",
				   acis_fused_name(c->pattern),
				   pre->block, ACIS_FUSED_BUF_MAX,
				   acis_dtype_name(c->dtype));
	}
	if ((c->pattern == ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE ||
	     c->pattern == ACIS_FUSED_SCATTER_OP_REDUCE) && pre->out % ds != 0)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "%s: the op's %u "
			   "bytes out are not whole %s",
			   acis_fused_name(c->pattern), pre->out,
			   acis_dtype_name(c->dtype));
	if (c->pattern == ACIS_FUSED_ALLREDUCE_OP_ALLTOALL && pre->out % P != 0)
		return say(err, errlen, ACIS_FUSED_E_ARGS, "allreduce_op_"
			   "alltoall: the op's %u bytes out are not %u equal "
			   "blocks", pre->out, P);
	return 0;
}

int
acis_fused_run(struct acis_fused_ws *ws, const struct acis_fused_call *c,
	       acis_fused_map_fn map, void *arg, char *err, size_t errlen)
{
	const uint32_t P = c->size;
	struct acis_fused_prefix pre;
	const uint8_t **blocks;
	uint8_t *data = ws->sin + ACIS_FUSED_SIN_HDR;
	uint32_t r, i, dlen = 0, q;
	int rc;

	if ((rc = check(c, &pre, err, errlen)) != 0)
		return rc;
	if (reserve(ws, P) != 0)
		return say(err, errlen, ACIS_FUSED_E_NOMEM, "fused: no memory "
			   "for %u ranks", P);
	/* the blocks' addresses, in the results' room until stage 2 */
	blocks = ws->res_ptr;
	for (r = 0; r < P; r++)
		blocks[r] = c->msg[r] + ACIS_FUSED_PREFIX;
	/* stage 1: what every rank streams in (scatter: filled per rank) */
	switch (c->pattern) {
	case ACIS_FUSED_ALLGATHER_OP:
		for (r = 0; r < P; r++)
			memcpy(data + (size_t)r * pre.block, blocks[r],
			       pre.block);
		dlen = P * pre.block;
		break;
	case ACIS_FUSED_SCATTER_OP_REDUCE:
		dlen = (uint32_t)((c->msg_len[c->root] - ACIS_FUSED_PREFIX -
				   rd32(c->msg[c->root] + 4)) / P);
		break;
	default:
		fold_blocks(ws, c, blocks, P, pre.block, data);
		dlen = pre.block;
	}
	/* the op, once per rank, in rank order */
	for (r = 0; r < P; r++) {
		uint32_t ib = rd32(c->msg[r] + 4);
		uint8_t *out = ws->outs + (size_t)r * ACIS_FUSED_BUF_MAX;
		size_t olen = 0;

		if (c->pattern == ACIS_FUSED_SCATTER_OP_REDUCE)
			memcpy(data, blocks[c->root] + (size_t)r * dlen, dlen);
		wr32(ws->sin, r);
		wr32(ws->sin + 4, P);
		wr32(ws->sin + 8, ib);
		wr32(ws->sin + 12, dlen);
		if (map(arg, r, pre.map, ws->sin, ACIS_FUSED_SIN_HDR + dlen,
			blocks[r] + (c->msg_len[r] - ACIS_FUSED_PREFIX - ib),
			ib, blocks[r],
			c->pattern == ACIS_FUSED_SCATTER_OP_REDUCE ? 0 :
								     pre.block,
			out, ACIS_FUSED_BUF_MAX, &olen, err, errlen) != 0)
			return ACIS_FUSED_E_MAP;
		if (olen != pre.out) {
			char what[128];

			snprintf(what, sizeof(what), "%s on rank %u: op %u "
				 "answered %zu bytes",
				 acis_fused_name(c->pattern), r,
				 pre.map, olen);
			return say(err, errlen, ACIS_FUSED_E_MAP, "%s, the call "
				   "names %u", what, pre.out);
		}
	}
	/* stage 2 */
	for (r = 0; r < P; r++) {
		ws->res_ptr[r] = ws->outs + (size_t)r * ACIS_FUSED_BUF_MAX;
		ws->res_len[r] = acis_fused_result_len(c->pattern, c->root, r,
						       pre.out);
	}
	switch (c->pattern) {
	case ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE:
	case ACIS_FUSED_SCATTER_OP_REDUCE:
		/* res_ptr holds the outputs' addresses just now */
		if (pre.out != 0)
			fold_blocks(ws, c, ws->res_ptr, P, pre.out, ws->res);
		for (r = 0; r < P; r++)
			ws->res_ptr[r] = ws->res;
		break;
	case ACIS_FUSED_ALLREDUCE_OP_ALLTOALL:
		/* rank j gets block j of every rank's output, rank order */
		q = pre.out / P;
		for (r = 0; r < P; r++) {
			uint8_t *dst = ws->res + (size_t)r * ACIS_FUSED_BUF_MAX;

			for (i = 0; i < P; i++)
				memcpy(dst + (size_t)i * q,
				       ws->outs + (size_t)i * ACIS_FUSED_BUF_MAX +
					       (size_t)r * q, q);
			ws->res_ptr[r] = dst;
		}
		break;
	default:
		break;
	}
	return 0;
}

const uint8_t *
acis_fused_result(const struct acis_fused_ws *ws, uint32_t r, uint32_t *len)
{
	*len = ws->res_len[r];
	return ws->res_ptr[r];
}
