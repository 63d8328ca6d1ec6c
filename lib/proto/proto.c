/* SPDX-License-Identifier: BSD-3-Clause */
/* ACiS header codec and validation; layout in doc/wire-format.md. */
#include <string.h>

#include "acis_proto.h"

static inline void
w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
w32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void
acis_hdr_set_payload_len(uint8_t *p, uint16_t len)
{
	w16(p + ACIS_HOFF_PAYLOAD_LEN, len);
}

void
acis_hdr_encode(const struct acis_hdr *h, uint8_t *p)
{
	p[0] = h->version;
	p[1] = h->type;
	p[2] = h->opcode;
	p[3] = h->flags;
	p[4] = h->dtype;
	p[5] = h->op;
	w16(p + 6, h->hdr_len);
	w32(p + 8, h->job);
	w32(p + 12, h->comm);
	w32(p + 16, h->rank);
	w32(p + 20, h->root);
	w32(p + 24, h->seq);
	w32(p + 28, h->chunk);
	w32(p + 32, (uint32_t)(h->msg_size >> 32));
	w32(p + 36, (uint32_t)h->msg_size);
	w16(p + 40, h->payload_len);
	w16(p + 42, h->chunk_size);
	w16(p + 44, h->contributors);
	w16(p + 46, h->status);
	acis_wr48(p + ACIS_HOFF_AUTH, h->auth);
}

void
acis_hdr_decode(const uint8_t *p, struct acis_hdr *h)
{
	h->version = p[0];
	h->type = p[1];
	h->opcode = p[2];
	h->flags = p[3];
	h->dtype = p[4];
	h->op = p[5];
	h->hdr_len = acis_rd16(p + 6);
	h->job = acis_rd32(p + 8);
	h->comm = acis_rd32(p + 12);
	h->rank = acis_rd32(p + 16);
	h->root = acis_rd32(p + 20);
	h->seq = acis_rd32(p + 24);
	h->chunk = acis_rd32(p + 28);
	h->msg_size = (uint64_t)acis_rd32(p + 32) << 32 | acis_rd32(p + 36);
	h->payload_len = acis_rd16(p + 40);
	h->chunk_size = acis_rd16(p + 42);
	h->contributors = acis_rd16(p + 44);
	h->status = acis_rd16(p + 46);
	h->auth = acis_rd48(p + ACIS_HOFF_AUTH);
}

unsigned int
acis_dtype_size(unsigned int dtype)
{
	static const uint8_t size[ACIS_DTYPE_MAX] = {
		[ACIS_INT32] = 4, [ACIS_INT64] = 8, [ACIS_UINT32] = 4,
		[ACIS_UINT64] = 8, [ACIS_FLOAT32] = 4, [ACIS_FLOAT64] = 8,
		[ACIS_FLOAT16] = 2, [ACIS_BFLOAT16] = 2, [ACIS_INT8] = 1,
		[ACIS_UINT8] = 1, [ACIS_INT16] = 2, [ACIS_UINT16] = 2,
	};

	return dtype < ACIS_DTYPE_MAX ? size[dtype] : 0;
}

static int
is_float(unsigned int dtype)
{
	return dtype == ACIS_FLOAT32 || dtype == ACIS_FLOAT64 ||
	       dtype == ACIS_FLOAT16 || dtype == ACIS_BFLOAT16;
}

int
acis_op_valid(unsigned int op, unsigned int dtype)
{
	if (acis_dtype_size(dtype) == 0 || op == ACIS_OP_NONE)
		return 0;
	/* a user op folds the bytes as they are: not the widening floats */
	if (op >= ACIS_OP_USER_MIN && op <= 255)
		return dtype != ACIS_FLOAT16 && dtype != ACIS_BFLOAT16;
	if (op >= ACIS_OP_MAX_)
		return 0;
	if (op >= ACIS_OP_BAND && is_float(dtype))
		return 0;
	return 1;
}

static int
is_reduction(unsigned int coll)
{
	return coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
	       coll == ACIS_C_REDUCE_SCATTER;
}

/* A fused call's DATA (a rank's prefix, block and inbound) or RESULT:
 * bytes, whatever the datatype; a known pattern whose reductions' op is
 * a built-in one defined on the datatype (allgather_op has none); the
 * chunk inside the message. */
static enum acis_hdr_error
check_fused(const struct acis_hdr *h)
{
	unsigned int pat = ACIS_OPCODE_ALGO(h->opcode);
	uint64_t off, want;

	if (pat == 0 || pat >= ACIS_FUSED_MAX)
		return ACIS_E_OPCODE;
	if (acis_dtype_size(h->dtype) == 0)
		return ACIS_E_DTYPE;
	if (pat == ACIS_FUSED_ALLGATHER_OP ? h->op != ACIS_OP_NONE :
	    h->op >= ACIS_OP_MAX_ || !acis_op_valid(h->op, h->dtype))
		return ACIS_E_OP;
	if (h->msg_size > ACIS_MAX_MSG_SIZE || h->chunk_size == 0 ||
	    h->chunk_size % 8 != 0 ||
	    h->chunk >= acis_n_chunks(h->msg_size, h->chunk_size))
		return ACIS_E_CHUNK;
	off = (uint64_t)h->chunk * h->chunk_size;
	want = h->msg_size - off < h->chunk_size ? h->msg_size - off :
						   h->chunk_size;
	return h->payload_len == want ? ACIS_E_OK : ACIS_E_CHUNK;
}

/* Checks shared by DATA and RESULT: the chunk lies inside the message. */
static enum acis_hdr_error
check_data(const struct acis_hdr *h)
{
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);
	unsigned int ds;

	if (coll == 0 || coll >= ACIS_C_MAX ||
	    (coll != ACIS_C_FUSED &&
	     ACIS_OPCODE_ALGO(h->opcode) >= ACIS_A_MAX))
		return ACIS_E_OPCODE;
	if (coll == ACIS_C_FUSED)
		return check_fused(h);
	if (coll == ACIS_C_BARRIER) {
		if (h->msg_size != 0 || h->payload_len != 0 || h->chunk != 0)
			return ACIS_E_CHUNK;
		return ACIS_E_OK;
	}
	ds = acis_dtype_size(h->dtype);
	if (ds == 0)
		return ACIS_E_DTYPE;
	if (is_reduction(coll) ? !acis_op_valid(h->op, h->dtype) :
				 h->op != ACIS_OP_NONE)
		return ACIS_E_OP;
	if (h->msg_size > ACIS_MAX_MSG_SIZE || h->msg_size % ds != 0 ||
	    h->chunk_size == 0 || h->chunk_size % 8 != 0 ||
	    h->payload_len % ds != 0)
		return ACIS_E_CHUNK;
	if (h->flags & ACIS_F_PACKED)
		return ACIS_E_OK; /* whole-message results: checked by user */
	if (h->type == ACIS_T_RESULT && (h->flags & ACIS_F_PARTIAL) &&
	    h->payload_len == 0)
		return ACIS_E_OK; /* a fabric's result for a subtree its
				     receiver is not in: the header alone */
	{
		/* Scatter-like collectives index chunks rank-major: block
		 * chunk % per_rank of rank chunk / per_rank. */
		uint64_t per_rank = acis_n_chunks(h->msg_size, h->chunk_size);
		uint64_t c = h->chunk;
		uint64_t off, want;

		if (coll == ACIS_C_SCATTER || coll == ACIS_C_REDUCE_SCATTER ||
		    coll == ACIS_C_ALLTOALL)
			c %= per_rank;
		else if (c >= per_rank)
			return ACIS_E_CHUNK;
		off = c * h->chunk_size;
		want = h->msg_size - off < h->chunk_size ?
			       h->msg_size - off : h->chunk_size;
		if (h->payload_len != want)
			return ACIS_E_CHUNK;
	}
	return ACIS_E_OK;
}

enum acis_hdr_error
acis_msg_parse(const uint8_t *p, size_t len, struct acis_hdr *h)
{
	if (len < ACIS_HDR_LEN)
		return ACIS_E_TRUNCATED;
	acis_hdr_decode(p, h);
	if (h->version != ACIS_PROTO_VERSION)
		return ACIS_E_VERSION;
	if (h->hdr_len < ACIS_HDR_LEN || h->hdr_len > len)
		return ACIS_E_TRUNCATED;
	if (h->type == 0 || h->type >= ACIS_T_MAX)
		return ACIS_E_TYPE;
	if ((size_t)h->hdr_len + h->payload_len != len)
		return ACIS_E_LENGTH;
	switch (h->type) {
	case ACIS_T_DATA:
	case ACIS_T_RESULT:
		return check_data(h);
	case ACIS_T_CTRL:
	case ACIS_T_CTRL_ACK:
		if (h->opcode == 0 || h->opcode >= ACIS_CTRL_MAX)
			return ACIS_E_OPCODE;
		return ACIS_E_OK;
	default:
		return ACIS_E_OK;
	}
}

static const char *const hdr_error_names[ACIS_E_MAX] = {
	[ACIS_E_OK] = "ok",
	[ACIS_E_TRUNCATED] = "acis_truncated",
	[ACIS_E_VERSION] = "acis_bad_version",
	[ACIS_E_TYPE] = "acis_bad_type",
	[ACIS_E_OPCODE] = "acis_bad_opcode",
	[ACIS_E_DTYPE] = "acis_bad_dtype",
	[ACIS_E_OP] = "acis_bad_op",
	[ACIS_E_LENGTH] = "acis_bad_length",
	[ACIS_E_CHUNK] = "acis_bad_chunk",
};

const char *
acis_hdr_error_name(unsigned int e)
{
	return e < ACIS_E_MAX ? hdr_error_names[e] : "unknown";
}

const char *
acis_dtype_name(unsigned int d)
{
	static const char *const n[ACIS_DTYPE_MAX] = {
		[ACIS_INT32] = "int32", [ACIS_INT64] = "int64",
		[ACIS_UINT32] = "uint32", [ACIS_UINT64] = "uint64",
		[ACIS_FLOAT32] = "float32", [ACIS_FLOAT64] = "float64",
		[ACIS_FLOAT16] = "float16", [ACIS_BFLOAT16] = "bfloat16",
		[ACIS_INT8] = "int8", [ACIS_UINT8] = "uint8",
		[ACIS_INT16] = "int16", [ACIS_UINT16] = "uint16",
	};

	return d < ACIS_DTYPE_MAX && n[d] ? n[d] : "unknown";
}

const char *
acis_op_name(unsigned int op)
{
	static const char *const n[ACIS_OP_MAX_] = {
		[ACIS_OP_NONE] = "none", [ACIS_OP_SUM] = "sum",
		[ACIS_OP_PROD] = "prod", [ACIS_OP_MIN] = "min",
		[ACIS_OP_MAX] = "max", [ACIS_OP_BAND] = "band",
		[ACIS_OP_BOR] = "bor", [ACIS_OP_BXOR] = "bxor",
	};

	if (op >= ACIS_OP_USER_MIN && op <= 255)
		return "user";
	return op < ACIS_OP_MAX_ ? n[op] : "unknown";
}

const char *
acis_fused_name(unsigned int pattern)
{
	static const char *const n[ACIS_FUSED_MAX] = {
		[ACIS_FUSED_ALLREDUCE_OP] = "allreduce_op",
		[ACIS_FUSED_ALLGATHER_OP] = "allgather_op",
		[ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE] = "allreduce_op_allreduce",
		[ACIS_FUSED_SCATTER_OP_REDUCE] = "scatter_op_reduce",
		[ACIS_FUSED_ALLREDUCE_OP_ALLTOALL] = "allreduce_op_alltoall",
	};

	return pattern < ACIS_FUSED_MAX && n[pattern] ? n[pattern] : "unknown";
}

unsigned int
acis_fused_parse(const char *name)
{
	unsigned int p;

	for (p = 1; p < ACIS_FUSED_MAX; p++)
		if (strcmp(name, acis_fused_name(p)) == 0)
			return p;
	return 0;
}

const char *
acis_coll_name(unsigned int c)
{
	static const char *const n[ACIS_C_MAX] = {
		[ACIS_C_ALLREDUCE] = "allreduce", [ACIS_C_REDUCE] = "reduce",
		[ACIS_C_BCAST] = "bcast", [ACIS_C_SCATTER] = "scatter",
		[ACIS_C_GATHER] = "gather", [ACIS_C_ALLGATHER] = "allgather",
		[ACIS_C_REDUCE_SCATTER] = "reduce_scatter",
		[ACIS_C_BARRIER] = "barrier",
		[ACIS_C_ALLTOALL] = "alltoall",
		[ACIS_C_FUSED] = "fused",
	};

	return c < ACIS_C_MAX && n[c] ? n[c] : "unknown";
}
