/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the ACiS header codec and validator (lib/proto/proto.c).
 *
 * The input is one UDP payload, as acis_msg_parse sees it on the switch
 * and in libacis.
 *
 * Invariants:
 *  - the result is a known ACIS_E_* value and has a name;
 *  - for ACIS_E_OK: version 1, a known type, hdr_len >= 54 and
 *    hdr_len + payload_len == len; encoding the header and decoding it
 *    again gives the same header; the encoding equals the input's 50
 *    meaningful bytes; the re-encoded message (encoded header, then the
 *    input's header extension and payload) parses to OK and the same
 *    header; DATA/RESULT chunks respect what check_data promises
 *    (known dtype, payload a whole number of elements, a valid op for
 *    reductions, a chunk no larger than chunk_size);
 *  - the name functions never return NULL, whatever the value.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_proto.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
hdr_eq(const struct acis_hdr *a, const struct acis_hdr *b)
{
	return a->version == b->version && a->type == b->type &&
	       a->opcode == b->opcode && a->flags == b->flags &&
	       a->dtype == b->dtype && a->op == b->op &&
	       a->hdr_len == b->hdr_len && a->job == b->job &&
	       a->comm == b->comm && a->rank == b->rank &&
	       a->root == b->root && a->seq == b->seq &&
	       a->chunk == b->chunk && a->msg_size == b->msg_size &&
	       a->payload_len == b->payload_len &&
	       a->chunk_size == b->chunk_size &&
	       a->contributors == b->contributors &&
	       a->status == b->status && a->auth == b->auth;
}

static void
check_names(unsigned int v)
{
	FUZZ_CHECK(acis_hdr_error_name(v) != NULL);
	FUZZ_CHECK(acis_dtype_name(v) != NULL);
	FUZZ_CHECK(acis_op_name(v) != NULL);
	FUZZ_CHECK(acis_coll_name(v) != NULL);
	/* A datatype has a size exactly when it has a name. */
	FUZZ_CHECK((acis_dtype_size(v) != 0) ==
		   (strcmp(acis_dtype_name(v), "unknown") != 0));
}

static void
check_ok(const uint8_t *data, size_t size, const struct acis_hdr *h)
{
	uint8_t enc[ACIS_HDR_LEN];
	struct acis_hdr h2, h3;
	unsigned int coll;
	uint8_t *msg;

	FUZZ_CHECK(h->version == ACIS_PROTO_VERSION);
	FUZZ_CHECK(h->type != 0 && h->type < ACIS_T_MAX);
	FUZZ_CHECK(h->hdr_len >= ACIS_HDR_LEN && h->hdr_len <= size);
	FUZZ_CHECK((size_t)h->hdr_len + h->payload_len == size);

	/* encode -> decode is the identity */
	acis_hdr_encode(h, enc);
	memset(&h2, 0xa5, sizeof(h2));
	acis_hdr_decode(enc, &h2);
	FUZZ_CHECK(hdr_eq(h, &h2));
	/* every byte of the header comes back, the auth field's six too */
	FUZZ_CHECK(memcmp(enc, data, ACIS_HDR_LEN) == 0);

	/* the re-encoded message parses the same */
	msg = malloc(size);
	FUZZ_CHECK(msg != NULL);
	memcpy(msg, enc, ACIS_HDR_LEN);
	memcpy(msg + ACIS_HDR_LEN, data + ACIS_HDR_LEN, size - ACIS_HDR_LEN);
	memset(&h3, 0x5a, sizeof(h3));
	FUZZ_CHECK(acis_msg_parse(msg, size, &h3) == ACIS_E_OK);
	FUZZ_CHECK(hdr_eq(h, &h3));
	free(msg);

	coll = ACIS_OPCODE_COLL(h->opcode);
	switch (h->type) {
	case ACIS_T_DATA:
	case ACIS_T_RESULT:
		FUZZ_CHECK(coll != 0 && coll < ACIS_C_MAX);
		FUZZ_CHECK(strcmp(acis_coll_name(coll), "unknown") != 0);
		if (coll == ACIS_C_FUSED) {
			/* bytes whatever the datatype; the pattern where the
			 * algorithm goes; a built-in op (none for
			 * allgather_op); the chunk inside the message */
			unsigned int pat = ACIS_OPCODE_ALGO(h->opcode);

			FUZZ_CHECK(pat != 0 && pat < ACIS_FUSED_MAX);
			FUZZ_CHECK(strcmp(acis_fused_name(pat), "unknown") != 0);
			FUZZ_CHECK(acis_dtype_size(h->dtype) != 0);
			if (pat == ACIS_FUSED_ALLGATHER_OP)
				FUZZ_CHECK(h->op == ACIS_OP_NONE);
			else
				FUZZ_CHECK(h->op < ACIS_OP_USER_MIN &&
					   acis_op_valid(h->op, h->dtype));
			FUZZ_CHECK(h->chunk_size != 0 && h->chunk_size % 8 == 0);
			FUZZ_CHECK(h->payload_len <= h->chunk_size);
			FUZZ_CHECK(h->payload_len <= h->msg_size ||
				   (h->msg_size == 0 && h->payload_len == 0));
			FUZZ_CHECK((uint64_t)h->chunk * h->chunk_size +
					   h->payload_len <= h->msg_size);
			break;
		}
		FUZZ_CHECK(ACIS_OPCODE_ALGO(h->opcode) < ACIS_A_MAX);
		if (coll == ACIS_C_BARRIER) {
			FUZZ_CHECK(h->payload_len == 0 && h->msg_size == 0);
			break;
		}
		FUZZ_CHECK(acis_dtype_size(h->dtype) != 0);
		FUZZ_CHECK(h->payload_len % acis_dtype_size(h->dtype) == 0);
		FUZZ_CHECK(h->msg_size <= ACIS_MAX_MSG_SIZE);
		FUZZ_CHECK(h->chunk_size != 0 && h->chunk_size % 8 == 0);
		if (coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
		    coll == ACIS_C_REDUCE_SCATTER)
			FUZZ_CHECK(acis_op_valid(h->op, h->dtype));
		else
			FUZZ_CHECK(h->op == ACIS_OP_NONE);
		if (!(h->flags & ACIS_F_PACKED)) {
			FUZZ_CHECK(h->payload_len <= h->chunk_size);
			FUZZ_CHECK(h->payload_len <= h->msg_size);
		}
		break;
	case ACIS_T_CTRL:
	case ACIS_T_CTRL_ACK:
		FUZZ_CHECK(h->opcode != 0 && h->opcode < ACIS_CTRL_MAX);
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acis_hdr h;
	enum acis_hdr_error e;

	memset(&h, 0, sizeof(h));
	e = acis_msg_parse(data, size, &h);
	FUZZ_CHECK((unsigned int)e < ACIS_E_MAX);
	FUZZ_CHECK(strcmp(acis_hdr_error_name(e), "unknown") != 0);
	if (size < ACIS_HDR_LEN)
		FUZZ_CHECK(e == ACIS_E_TRUNCATED);
	if (e == ACIS_E_OK)
		check_ok(data, size, &h);

	/* Name lookups on whatever the bytes hold, in and out of range. */
	if (size >= 6) {
		check_names(data[2]);
		check_names(data[4]);
		check_names(data[5]);
		check_names(ACIS_OPCODE_COLL(data[2]));
	}
	if (size >= 4) {
		uint32_t v;

		memcpy(&v, data, 4);
		check_names(v);
	}
	return 0;
}
