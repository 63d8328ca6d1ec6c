/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_proto: the header codec, acis_msg_parse and the small
 * name and size helpers (doc/wire-format.md).
 *
 * The wire bytes are checked against a hand-written byte string laid out
 * from the document's table, not against the encoder, so a layout bug
 * cannot hide behind the same bug in decode. Each validation fault is one
 * crafted change to an otherwise valid message, so the test shows which
 * field the parser objects to; the valid message is parsed first so a
 * broken base cannot make a rejection test pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis_proto.h"

#define CS 1416 /* the chunk size hosts use at MTU 1500 */
#define MSG_MAX (ACIS_HDR_LEN + 64 + UINT16_MAX + 64)

static uint8_t msg[MSG_MAX];

static uint64_t rng;

/* xorshift64*: fixed seeds, the same headers on every run. */
static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static int
is_reduction(unsigned int coll)
{
	return coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
	       coll == ACIS_C_REDUCE_SCATTER;
}

static int
is_scatter_like(unsigned int coll)
{
	return coll == ACIS_C_SCATTER || coll == ACIS_C_REDUCE_SCATTER ||
	       coll == ACIS_C_ALLTOALL;
}

/* Bytes chunk c of a block of msg_size bytes carries, written out from the
 * document rather than from the library. */
static uint16_t
chunk_bytes(uint64_t msg_size, uint16_t chunk_size, uint64_t c)
{
	uint64_t off = c * chunk_size;

	if (off >= msg_size)
		return 0;
	return (uint16_t)(msg_size - off < chunk_size ? msg_size - off :
							 chunk_size);
}

/* A valid DATA header: chunk c of a block of msg_size bytes. */
static struct acis_hdr
data_hdr(unsigned int coll, unsigned int dtype, unsigned int op,
	 uint64_t msg_size, uint32_t c)
{
	struct acis_hdr h;

	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = ACIS_T_DATA;
	h.opcode = ACIS_OPCODE(coll, ACIS_A_DEFAULT);
	h.dtype = (uint8_t)dtype;
	h.op = (uint8_t)op;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = 42;
	h.comm = 0x00010002;
	h.rank = 1;
	h.root = is_reduction(coll) && coll != ACIS_C_REDUCE ?
			 ACIS_RANK_NONE : 0;
	h.seq = 7;
	h.chunk = c;
	h.msg_size = msg_size;
	h.chunk_size = CS;
	h.payload_len = chunk_bytes(msg_size, CS, c);
	h.contributors = 1;
	return h;
}

/* A valid float32 allreduce chunk: the base most fault tests change. */
static struct acis_hdr
allreduce_hdr(uint64_t msg_size, uint32_t c)
{
	return data_hdr(ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM, msg_size,
			c);
}

static struct acis_hdr
barrier_hdr(void)
{
	struct acis_hdr h = data_hdr(ACIS_C_BARRIER, 0, ACIS_OP_NONE, 0, 0);

	h.root = ACIS_RANK_NONE;
	return h;
}

static struct acis_hdr
ctrl_hdr(unsigned int type, unsigned int ctrl)
{
	struct acis_hdr h;

	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = (uint8_t)type;
	h.opcode = (uint8_t)ctrl;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = 42;
	h.rank = 3;
	h.root = 8;
	return h;
}

/* Encode h followed by its payload into msg; the message's length. */
static size_t
build(const struct acis_hdr *h)
{
	size_t hl = h->hdr_len < ACIS_HDR_LEN ? ACIS_HDR_LEN : h->hdr_len;
	size_t len = hl + h->payload_len;

	assert_true(len <= MSG_MAX);
	acis_hdr_encode(h, msg);
	/* Bytes an extended header adds, then the payload: not zero, so a
	 * parser that looked at them would see something. */
	memset(msg + ACIS_HDR_LEN, 0x5a, len - ACIS_HDR_LEN);
	return len;
}

/* Parse the first len bytes of h's message. */
static enum acis_hdr_error
parse_n(const struct acis_hdr *h, size_t len)
{
	struct acis_hdr out;

	build(h);
	return acis_msg_parse(msg, len, &out);
}

static enum acis_hdr_error
parse(const struct acis_hdr *h)
{
	struct acis_hdr out;
	size_t len = build(h);

	return acis_msg_parse(msg, len, &out);
}

static void
assert_hdr_equal(const struct acis_hdr *a, const struct acis_hdr *b)
{
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->opcode, b->opcode);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->dtype, b->dtype);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->hdr_len, b->hdr_len);
	assert_int_equal(a->job, b->job);
	assert_int_equal(a->comm, b->comm);
	assert_int_equal(a->rank, b->rank);
	assert_int_equal(a->root, b->root);
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->chunk, b->chunk);
	assert_int_equal(a->msg_size, b->msg_size);
	assert_int_equal(a->payload_len, b->payload_len);
	assert_int_equal(a->chunk_size, b->chunk_size);
	assert_int_equal(a->contributors, b->contributors);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->auth, b->auth);
}

/* Encode, decode and parse h: every field must come back unchanged. */
static void
assert_round_trip(const struct acis_hdr *h)
{
	struct acis_hdr dec, parsed;
	size_t len = build(h);

	acis_hdr_decode(msg, &dec);
	assert_hdr_equal(&dec, h);
	memset(&parsed, 0, sizeof(parsed));
	assert_int_equal(acis_msg_parse(msg, len, &parsed), ACIS_E_OK);
	assert_hdr_equal(&parsed, h);
}

/* --- codec --------------------------------------------------------------- */

/*
 * The header of the wire-format table with a distinct value in every
 * field, so a field at the wrong offset or in the wrong byte order shows.
 */
static const uint8_t known_bytes[ACIS_HDR_LEN] = {
	0x01,                   /* 0 version */
	0x01,                   /* 1 type DATA */
	0x47,                   /* 2 reduce_scatter (7) + ring (4) */
	0x06,                   /* 3 LAST | RETRANS */
	0x07,                   /* 4 float16 */
	0x01,                   /* 5 sum */
	0x00, 0x36,             /* 6 hdr_len 54 */
	0x0a, 0x0b, 0x0c, 0x0d, /* 8 job */
	0x00, 0x02, 0x00, 0x03, /* 12 comm */
	0x11, 0x22, 0x33, 0x44, /* 16 rank */
	0x21, 0x22, 0x23, 0x24, /* 20 root */
	0x55, 0x66, 0x77, 0x88, /* 24 seq */
	0x99, 0xaa, 0xbb, 0xcc, /* 28 chunk */
	0x01, 0x02, 0x03, 0x04, /* 32 msg_size */
	0x05, 0x06, 0x07, 0x08,
	0x05, 0x88,             /* 40 payload_len 1416 */
	0x05, 0x80,             /* 42 chunk_size 1408 */
	0x00, 0x03,             /* 44 contributors */
	0x00, 0x09,             /* 46 status FULL */
	0x12, 0x34, 0x56, 0x78, /* 48 auth (48 bits) */
	0x9a, 0xbc,
};

static struct acis_hdr
known_hdr(void)
{
	struct acis_hdr h;

	memset(&h, 0, sizeof(h));
	h.version = 1;
	h.type = ACIS_T_DATA;
	h.opcode = ACIS_OPCODE(ACIS_C_REDUCE_SCATTER, ACIS_A_RING);
	h.flags = ACIS_F_LAST | ACIS_F_RETRANS;
	h.dtype = ACIS_FLOAT16;
	h.op = ACIS_OP_SUM;
	h.hdr_len = 54;
	h.job = 0x0a0b0c0d;
	h.comm = 0x00020003;
	h.rank = 0x11223344;
	h.root = 0x21222324;
	h.seq = 0x55667788;
	h.chunk = 0x99aabbcc;
	h.msg_size = 0x0102030405060708ull;
	h.payload_len = 1416;
	h.chunk_size = 1408;
	h.contributors = 3;
	h.status = ACIS_S_FULL;
	h.auth = 0x123456789abcull;
	return h;
}

static void
test_encode_writes_the_documented_big_endian_layout(void **state)
{
	struct acis_hdr h = known_hdr();
	uint8_t out[ACIS_HDR_LEN];

	(void)state;
	memset(out, 0xee, sizeof(out));
	acis_hdr_encode(&h, out);
	assert_memory_equal(out, known_bytes, ACIS_HDR_LEN);
}

static void
test_set_payload_len_rewrites_only_that_field(void **state)
{
	struct acis_hdr h = known_hdr(), d;
	uint8_t out[ACIS_HDR_LEN], before[ACIS_HDR_LEN];

	(void)state;
	acis_hdr_encode(&h, out);
	memcpy(before, out, sizeof(out));
	acis_hdr_set_payload_len(out, 0xbeef);
	acis_hdr_decode(out, &d);
	assert_int_equal(d.payload_len, 0xbeef);
	assert_int_equal(out[40], 0xbe);
	assert_int_equal(out[41], 0xef);
	assert_memory_equal(out, before, 40);
	assert_memory_equal(out + 42, before + 42, ACIS_HDR_LEN - 42);
}

static void
test_auth_is_the_low_48_bits_of_the_field(void **state)
{
	struct acis_hdr h = known_hdr(), d;
	uint8_t out[ACIS_HDR_LEN];

	(void)state;
	h.auth = 0xffff000000000001ull; /* bits above 48 are not sent */
	acis_hdr_encode(&h, out);
	assert_int_equal(out[48], 0);
	assert_int_equal(out[53], 1);
	assert_int_equal(acis_rd48(out + ACIS_HOFF_AUTH), 1);
	acis_hdr_decode(out, &d);
	assert_int_equal(d.auth, 1);
	acis_wr48(out + ACIS_HOFF_AUTH, ACIS_AUTH_MASK);
	acis_hdr_decode(out, &d);
	assert_int_equal(d.auth, ACIS_AUTH_MASK);
	assert_int_equal(d.status, h.status); /* its neighbour untouched */
}

static void
test_encode_writes_exactly_54_bytes(void **state)
{
	struct acis_hdr h = known_hdr();
	uint8_t out[ACIS_HDR_LEN + 8];
	unsigned int i;

	(void)state;
	memset(out, 0xee, sizeof(out));
	acis_hdr_encode(&h, out);
	for (i = ACIS_HDR_LEN; i < sizeof(out); i++)
		assert_int_equal(out[i], 0xee);
}

static void
test_decode_reads_the_documented_big_endian_layout(void **state)
{
	struct acis_hdr want = known_hdr(), got;

	(void)state;
	memset(&got, 0, sizeof(got));
	acis_hdr_decode(known_bytes, &got);
	assert_hdr_equal(&got, &want);
}

static void
test_msg_size_above_4_gib_keeps_its_high_word(void **state)
{
	struct acis_hdr h = allreduce_hdr((1ull << 32) + 8, 0), got;

	(void)state;
	build(&h);
	/* 2^32 + 8: the high word 1 at 32..35, the low word 8 at 36..39. */
	assert_int_equal(msg[35], 1);
	assert_int_equal(msg[39], 8);
	acis_hdr_decode(msg, &got);
	assert_int_equal(got.msg_size, (1ull << 32) + 8);
}

/* Does a host or the switch send coll with dtype and op? Written from the
 * document, not with acis_op_valid, which is tested on its own. */
static int
valid_combo(unsigned int coll, unsigned int dtype, unsigned int op)
{
	int is_int = (dtype >= ACIS_INT32 && dtype <= ACIS_UINT64) ||
		     (dtype >= ACIS_INT8 && dtype <= ACIS_UINT16);

	if (coll == ACIS_C_BARRIER)
		return dtype == 0 && op == ACIS_OP_NONE;
	if (dtype == 0)
		return 0;
	if (!is_reduction(coll))
		return op == ACIS_OP_NONE;
	return op >= ACIS_OP_SUM && (op <= ACIS_OP_MAX || is_int);
}

/* Round-trip every valid (dtype, op) of coll and algo in a message of
 * type; n numbers the headers so each has its own field values. The
 * number of headers after them. */
static unsigned int
round_trip_dtypes_and_ops(unsigned int type, unsigned int coll,
			  unsigned int algo, unsigned int n)
{
	unsigned int dtype, op;

	for (dtype = 0; dtype < ACIS_DTYPE_MAX; dtype++) {
		for (op = 0; op < ACIS_OP_MAX_; op++) {
			struct acis_hdr h;
			uint64_t ms, cpr;

			if (!valid_combo(coll, dtype, op))
				continue;
			n++;
			if (coll == ACIS_C_BARRIER) {
				h = barrier_hdr();
			} else {
				/* Above 2^32 so the high word matters; the
				 * last chunk, so payload_len is computed. */
				ms = (1ull << 32) + 8ull * n;
				cpr = (ms + CS - 1) / CS;
				h = data_hdr(coll, dtype, op, ms,
					     (uint32_t)(cpr - 1));
				if (is_scatter_like(coll))
					h.chunk += (uint32_t)((n % 5) * cpr);
				assert_true(h.payload_len > 0);
			}
			h.type = (uint8_t)type;
			h.opcode = ACIS_OPCODE(coll, algo);
			h.flags = (uint8_t)(n & (ACIS_F_MULTICAST |
						 ACIS_F_LAST | ACIS_F_RETRANS));
			h.job = 0x80000000u | n;
			h.comm = n << 16 | (n & 0xffff);
			h.rank = 0xfffffffeu - n;
			h.root = 0x40000000u + n;
			h.seq = 0xdeadbeefu ^ n;
			h.contributors = (uint16_t)(0xfff0u ^ n);
			h.status = (uint16_t)(n % ACIS_S_MAX);
			assert_round_trip(&h);
		}
	}
	return n;
}

static void
test_round_trip_keeps_every_field_of_every_valid_data_and_result(void **state)
{
	static const unsigned int types[] = {ACIS_T_DATA, ACIS_T_RESULT};
	unsigned int t, coll, algo, n = 0;

	(void)state;
	/* (fused calls: test_parse_checks_fused_calls) */
	for (t = 0; t < 2; t++)
		for (coll = 1; coll < ACIS_C_FUSED; coll++)
			for (algo = 0; algo < ACIS_A_MAX; algo++)
				n = round_trip_dtypes_and_ops(types[t], coll,
							      algo, n);
	/* Reductions: 8 integer types x 7 ops + 4 float types x 4 ops;
	 * bcast, scatter, gather, allgather, alltoall: 12 types, op none;
	 * barrier: 1. */
	assert_int_equal(n,
			 2 * ACIS_A_MAX * (3 * (8 * 7 + 4 * 4) + 5 * 12 + 1));
}

/* Is oc an opcode of message type t? */
static int
valid_opcode(unsigned int t, unsigned int oc)
{
	if (t == ACIS_T_CTRL || t == ACIS_T_CTRL_ACK)
		return oc >= ACIS_CTRL_JOIN && oc <= ACIS_CTRL_COMM_QUERY;
	return ACIS_OPCODE_COLL(oc) >= ACIS_C_ALLREDUCE &&
	       ACIS_OPCODE_COLL(oc) <= ACIS_C_BARRIER &&
	       ACIS_OPCODE_ALGO(oc) <= ACIS_A_RING;
}

static void
test_round_trip_keeps_every_field_of_every_reply_and_control(void **state)
{
	unsigned int t, oc, status, n = 0;

	(void)state;
	for (t = ACIS_T_ACK; t < ACIS_T_MAX; t++) {
		for (oc = 0; oc < 256; oc++) {
			if (!valid_opcode(t, oc))
				continue;
			for (status = 0; status < ACIS_S_MAX; status++) {
				struct acis_hdr h = ctrl_hdr(t, oc);

				n++;
				h.status = (uint16_t)status;
				h.comm = 0x00030004u + n;
				h.seq = n * 2654435761u;
				h.chunk = 0xffffffffu - n;
				/* SPLIT: the key; its reply: the context id */
				h.msg_size = (1ull << 39) + n;
				h.flags = (uint8_t)(n & 0x0f);
				assert_round_trip(&h);
			}
		}
	}
	/* ACK, NACK, LOOKASIDE: 8 x 5 opcodes; CTRL, CTRL_ACK: 5. */
	assert_int_equal(n, ACIS_S_MAX * (3 * 8 * ACIS_A_MAX + 2 * 5));
}

static void
test_decode_inverts_encode_for_random_headers(void **state)
{
	unsigned int i;

	(void)state;
	rng = 0x1234567887654321ull;
	for (i = 0; i < 20000; i++) {
		struct acis_hdr h, got;
		uint8_t out[ACIS_HDR_LEN];
		uint64_t r = rnd();

		h.version = (uint8_t)r;
		h.type = (uint8_t)(r >> 8);
		h.opcode = (uint8_t)(r >> 16);
		h.flags = (uint8_t)(r >> 24);
		h.dtype = (uint8_t)(r >> 32);
		h.op = (uint8_t)(r >> 40);
		h.hdr_len = (uint16_t)(r >> 48);
		r = rnd();
		h.job = (uint32_t)r;
		h.comm = (uint32_t)(r >> 32);
		r = rnd();
		h.rank = (uint32_t)r;
		h.root = (uint32_t)(r >> 32);
		r = rnd();
		h.seq = (uint32_t)r;
		h.chunk = (uint32_t)(r >> 32);
		h.msg_size = rnd();
		r = rnd();
		h.payload_len = (uint16_t)r;
		h.chunk_size = (uint16_t)(r >> 16);
		h.contributors = (uint16_t)(r >> 32);
		h.status = (uint16_t)(r >> 48);
		h.auth = rnd() & ACIS_AUTH_MASK;
		acis_hdr_encode(&h, out);
		acis_hdr_decode(out, &got);
		assert_hdr_equal(&got, &h);
	}
}

/* --- acis_msg_parse: accepted messages ------------------------------------ */

static void
test_parse_accepts_a_header_longer_than_54_bytes(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0), out;
	size_t len;

	(void)state;
	h.hdr_len = ACIS_HDR_LEN + 10; /* a later version's extra fields */
	len = build(&h);
	assert_int_equal(len, ACIS_HDR_LEN + 10 + 64);
	assert_int_equal(acis_msg_parse(msg, len, &out), ACIS_E_OK);
	assert_int_equal(out.hdr_len, ACIS_HDR_LEN + 10);
}

static void
test_parse_accepts_an_empty_allreduce_as_one_empty_chunk(void **state)
{
	struct acis_hdr h = allreduce_hdr(0, 0);

	(void)state;
	assert_int_equal(h.payload_len, 0);
	assert_int_equal(parse(&h), ACIS_E_OK);
}

static void
test_parse_accepts_the_largest_message(void **state)
{
	uint64_t cpr = ACIS_MAX_MSG_SIZE / CS + 1;
	struct acis_hdr h = allreduce_hdr(ACIS_MAX_MSG_SIZE,
					  (uint32_t)(cpr - 1));

	(void)state;
	assert_int_equal(h.payload_len, ACIS_MAX_MSG_SIZE % CS);
	assert_int_equal(parse(&h), ACIS_E_OK);
}

static void
test_parse_accepts_replies_and_lookaside_without_collective_checks(
	void **state)
{
	static const unsigned int types[] = {ACIS_T_ACK, ACIS_T_NACK,
					     ACIS_T_LOOKASIDE};
	unsigned int i;

	(void)state;
	/* An ACK answers a chunk: its geometry is the switch's business. */
	for (i = 0; i < 3; i++) {
		struct acis_hdr h = ctrl_hdr(types[i], 0);

		h.payload_len = 8;
		assert_int_equal(parse(&h), ACIS_E_OK);
	}
}

/* --- acis_msg_parse: faults ---------------------------------------------- */

static void
test_parse_rejects_fewer_than_54_bytes_as_truncated(void **state)
{
	struct acis_hdr h = barrier_hdr();

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN - 1), ACIS_E_TRUNCATED);
	assert_int_equal(parse_n(&h, 0), ACIS_E_TRUNCATED);
}

static void
test_parse_rejects_hdr_len_below_54_as_truncated(void **state)
{
	struct acis_hdr h = barrier_hdr();

	(void)state;
	h.hdr_len = ACIS_HDR_LEN - 1;
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN - 1), ACIS_E_TRUNCATED);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN), ACIS_E_TRUNCATED);
	h.hdr_len = 0;
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN), ACIS_E_TRUNCATED);
}

static void
test_parse_rejects_hdr_len_beyond_the_buffer_as_truncated(void **state)
{
	struct acis_hdr h = barrier_hdr();

	(void)state;
	h.hdr_len = ACIS_HDR_LEN + 1;
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN + 1), ACIS_E_OK);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN), ACIS_E_TRUNCATED);
	h.hdr_len = UINT16_MAX;
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN + 100), ACIS_E_TRUNCATED);
}

static void
test_parse_rejects_a_version_other_than_1(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0);

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.version = 2;
	assert_int_equal(parse(&h), ACIS_E_VERSION);
	h.version = 0;
	assert_int_equal(parse(&h), ACIS_E_VERSION);
}

static void
test_parse_rejects_message_types_0_and_8(void **state)
{
	struct acis_hdr h = ctrl_hdr(ACIS_T_ACK, 0);

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.type = 0;
	assert_int_equal(parse(&h), ACIS_E_TYPE);
	h.type = 8;
	assert_int_equal(parse(&h), ACIS_E_TYPE);
	h.type = 255;
	assert_int_equal(parse(&h), ACIS_E_TYPE);
}

static void
test_parse_rejects_an_unknown_collective(void **state)
{
	static const unsigned int types[] = {ACIS_T_DATA, ACIS_T_RESULT};
	unsigned int t, coll;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct acis_hdr h = allreduce_hdr(64, 0);

		h.type = (uint8_t)types[t];
		assert_int_equal(parse(&h), ACIS_E_OK);
		h.opcode = ACIS_OPCODE(0, ACIS_A_DEFAULT);
		assert_int_equal(parse(&h), ACIS_E_OPCODE);
		for (coll = ACIS_C_MAX; coll < 16; coll++) {
			h.opcode = ACIS_OPCODE(coll, ACIS_A_DEFAULT);
			assert_int_equal(parse(&h), ACIS_E_OPCODE);
		}
	}
}

static void
test_parse_rejects_an_unknown_algorithm(void **state)
{
	static const unsigned int types[] = {ACIS_T_DATA, ACIS_T_RESULT};
	unsigned int t, algo;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct acis_hdr h = allreduce_hdr(64, 0);

		h.type = (uint8_t)types[t];
		h.opcode = ACIS_OPCODE(ACIS_C_ALLREDUCE, ACIS_A_RING);
		assert_int_equal(parse(&h), ACIS_E_OK);
		for (algo = ACIS_A_MAX; algo < 16; algo++) {
			h.opcode = ACIS_OPCODE(ACIS_C_ALLREDUCE, algo);
			assert_int_equal(parse(&h), ACIS_E_OPCODE);
		}
	}
}

/* A fused call's DATA and RESULT: bytes whatever the datatype, the
 * pattern in the opcode's high bits, a built-in op defined on the
 * datatype (none for allgather_op), the chunk inside the message. */
static void
test_parse_checks_fused_calls(void **state)
{
	static const unsigned int types[] = {ACIS_T_DATA, ACIS_T_RESULT};
	unsigned int t, pat;

	(void)state;
	for (t = 0; t < 2; t++) {
		/* 1001 bytes: not whole float32s, and fine */
		struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, ACIS_FLOAT32,
					     ACIS_OP_SUM, 1001, 0);

		h.type = (uint8_t)types[t];
		for (pat = 1; pat < ACIS_FUSED_MAX; pat++) {
			h.opcode = ACIS_OPCODE(ACIS_C_FUSED, pat);
			h.op = pat == ACIS_FUSED_ALLGATHER_OP ? ACIS_OP_NONE :
								ACIS_OP_SUM;
			assert_int_equal(parse(&h), ACIS_E_OK);
			h.op = pat == ACIS_FUSED_ALLGATHER_OP ? ACIS_OP_SUM :
								ACIS_OP_BXOR;
			assert_int_equal(parse(&h), ACIS_E_OP);
		}
		h.op = ACIS_OP_SUM;
		h.opcode = ACIS_OPCODE(ACIS_C_FUSED, 0);
		assert_int_equal(parse(&h), ACIS_E_OPCODE);
		h.opcode = ACIS_OPCODE(ACIS_C_FUSED, ACIS_FUSED_MAX);
		assert_int_equal(parse(&h), ACIS_E_OPCODE);
		/* a user op is no reduction op for the stages */
		h.opcode = ACIS_OPCODE(ACIS_C_FUSED,
				       ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE);
		h.op = ACIS_OP_USER_MIN;
		assert_int_equal(parse(&h), ACIS_E_OP);
		h.op = ACIS_OP_SUM;
		h.dtype = 0;
		assert_int_equal(parse(&h), ACIS_E_DTYPE);
		h.dtype = ACIS_FLOAT32;
		h.chunk = 1; /* past the only chunk */
		assert_int_equal(parse(&h), ACIS_E_CHUNK);
		h.chunk = 0;
		h.payload_len = 1000;
		assert_int_equal(parse(&h), ACIS_E_CHUNK);
	}
	assert_string_equal(acis_coll_name(ACIS_C_FUSED), "fused");
	assert_string_equal(acis_fused_name(ACIS_FUSED_ALLGATHER_OP),
			    "allgather_op");
	assert_string_equal(acis_fused_name(ACIS_FUSED_MAX), "unknown");
	assert_int_equal(acis_fused_parse("scatter_op_reduce"),
			 ACIS_FUSED_SCATTER_OP_REDUCE);
	assert_int_equal(acis_fused_parse("nope"), 0);
}

static void
test_parse_rejects_an_unknown_control_operation(void **state)
{
	static const unsigned int types[] = {ACIS_T_CTRL, ACIS_T_CTRL_ACK};
	unsigned int t, oc;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct acis_hdr h = ctrl_hdr(types[t], ACIS_CTRL_COMM_QUERY);

		assert_int_equal(parse(&h), ACIS_E_OK);
		h.opcode = 0;
		assert_int_equal(parse(&h), ACIS_E_OPCODE);
		for (oc = ACIS_CTRL_MAX; oc < 256; oc++) {
			h.opcode = (uint8_t)oc;
			assert_int_equal(parse(&h), ACIS_E_OPCODE);
		}
	}
}

static void
test_parse_rejects_an_unknown_datatype(void **state)
{
	static const unsigned int colls[] = {ACIS_C_BCAST, ACIS_C_GATHER};
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct acis_hdr h = data_hdr(colls[i], ACIS_INT32, ACIS_OP_NONE,
					     64, 0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		h.dtype = 0;
		assert_int_equal(parse(&h), ACIS_E_DTYPE);
		h.dtype = ACIS_DTYPE_MAX;
		assert_int_equal(parse(&h), ACIS_E_DTYPE);
		h.dtype = 255;
		assert_int_equal(parse(&h), ACIS_E_DTYPE);
	}
}

static void
test_parse_rejects_a_bitwise_op_on_a_float_type(void **state)
{
	static const unsigned int floats[] = {ACIS_FLOAT32, ACIS_FLOAT64,
					      ACIS_FLOAT16, ACIS_BFLOAT16};
	unsigned int i, op;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, floats[i],
					     ACIS_OP_MAX, 64, 0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		for (op = ACIS_OP_BAND; op <= ACIS_OP_BXOR; op++) {
			h.op = (uint8_t)op;
			assert_int_equal(parse(&h), ACIS_E_OP);
		}
	}
}

static void
test_parse_rejects_op_none_on_a_reduction(void **state)
{
	static const unsigned int colls[] = {ACIS_C_ALLREDUCE, ACIS_C_REDUCE,
					     ACIS_C_REDUCE_SCATTER};
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct acis_hdr h = data_hdr(colls[i], ACIS_INT64, ACIS_OP_SUM,
					     64, 0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		h.op = ACIS_OP_NONE;
		assert_int_equal(parse(&h), ACIS_E_OP);
	}
}

static void
test_parse_rejects_an_unknown_op_on_a_reduction(void **state)
{
	struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, ACIS_INT64, ACIS_OP_SUM,
				     64, 0);

	(void)state;
	h.op = ACIS_OP_MAX_;
	assert_int_equal(parse(&h), ACIS_E_OP);
	h.op = ACIS_OP_USER_MIN - 1;
	assert_int_equal(parse(&h), ACIS_E_OP);
	/* 128..255: user ops, any datatype but the widening floats (the
	 * switch checks the job made it) */
	h.op = 255;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.op = ACIS_OP_USER_MIN;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.dtype = ACIS_BFLOAT16;
	assert_int_equal(parse(&h), ACIS_E_OP);
}

static void
test_parse_rejects_an_op_on_a_collective_that_does_not_reduce(void **state)
{
	static const unsigned int colls[] = {ACIS_C_BCAST, ACIS_C_SCATTER,
					     ACIS_C_GATHER, ACIS_C_ALLGATHER,
					     ACIS_C_ALLTOALL};
	unsigned int i, op;

	(void)state;
	for (i = 0; i < 5; i++) {
		struct acis_hdr h = data_hdr(colls[i], ACIS_INT32, ACIS_OP_NONE,
					     64, 0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		for (op = ACIS_OP_SUM; op < ACIS_OP_MAX_; op++) {
			h.op = (uint8_t)op;
			assert_int_equal(parse(&h), ACIS_E_OP);
		}
	}
}

static void
test_parse_rejects_payload_len_that_disagrees_with_the_bytes(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0);

	(void)state;
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN + 64), ACIS_E_OK);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN + 63), ACIS_E_LENGTH);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN + 65), ACIS_E_LENGTH);
	assert_int_equal(parse_n(&h, ACIS_HDR_LEN), ACIS_E_LENGTH);
}

/* A fabric's result down a link whose subtree does not hold its
 * receiver (reduce's root): PARTIAL, the header alone. Only a RESULT
 * flagged PARTIAL may leave its payload out. */
static void
test_parse_takes_a_partial_result_without_payload(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0);

	(void)state;
	h.type = ACIS_T_RESULT;
	h.payload_len = 0;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.flags = ACIS_F_PARTIAL;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.type = ACIS_T_DATA;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_chunk_size_0(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0);

	(void)state;
	h.chunk_size = 0;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_chunk_size_not_a_multiple_of_8(void **state)
{
	struct acis_hdr h = allreduce_hdr(64, 0);

	(void)state;
	h.chunk_size = 64;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.chunk_size = 68;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.chunk_size = 1418; /* the MTU 1500 payload, not a chunk size */
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_msg_size_not_a_multiple_of_the_element(void **state)
{
	struct acis_hdr h = data_hdr(ACIS_C_BCAST, ACIS_FLOAT64, ACIS_OP_NONE,
				     64, 0);

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	/* 68 bytes: 17 float32 but 8.5 float64. */
	h.msg_size = 68;
	h.payload_len = 68;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.dtype = ACIS_FLOAT32;
	assert_int_equal(parse(&h), ACIS_E_OK);
}

static void
test_parse_takes_int8_messages_of_any_length(void **state)
{
	/* 1417 bytes: a full chunk and one byte, which is the last */
	struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, ACIS_INT8, ACIS_OP_MIN,
				     CS + 1, 1);

	(void)state;
	assert_int_equal(h.payload_len, 1);
	assert_int_equal(parse(&h), ACIS_E_OK);
	h = data_hdr(ACIS_C_SCATTER, ACIS_UINT8, ACIS_OP_NONE, 37, 0);
	assert_int_equal(parse(&h), ACIS_E_OK);
}

static void
test_parse_rejects_16_bit_integers_split_in_half(void **state)
{
	static const unsigned int types[] = {ACIS_INT16, ACIS_UINT16};
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, types[i],
					     ACIS_OP_BXOR, 74, 0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		/* 75 bytes: 37.5 elements */
		h.msg_size = 75;
		h.payload_len = 75;
		assert_int_equal(parse(&h), ACIS_E_CHUNK);
		/* the payload alone, in a PACKED result */
		h = data_hdr(ACIS_C_GATHER, types[i], ACIS_OP_NONE, 16, 0);
		h.type = ACIS_T_RESULT;
		h.flags = ACIS_F_PACKED;
		h.payload_len = 4 * 16 + 1;
		assert_int_equal(parse(&h), ACIS_E_CHUNK);
		h.payload_len = 4 * 16 + 2;
		assert_int_equal(parse(&h), ACIS_E_OK);
	}
}

static void
test_parse_accepts_every_op_on_the_8_and_16_bit_integers(void **state)
{
	static const unsigned int types[] = {ACIS_INT8, ACIS_UINT8,
					     ACIS_INT16, ACIS_UINT16};
	unsigned int i, op;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
			struct acis_hdr h = data_hdr(ACIS_C_REDUCE_SCATTER,
						     types[i], op, 64, 0);

			assert_int_equal(parse(&h), ACIS_E_OK);
		}
	}
}

static void
test_parse_rejects_msg_size_above_2_to_the_40(void **state)
{
	uint64_t ms = ACIS_MAX_MSG_SIZE + 8;
	struct acis_hdr h = allreduce_hdr(ms, (uint32_t)(ms / CS));

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_chunk_index_past_the_message(void **state)
{
	/* 3000 bytes: chunks 0, 1 (1416 each) and 2 (168). */
	struct acis_hdr h = allreduce_hdr(3000, 2);

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.chunk = 3;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.chunk = UINT32_MAX;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_last_chunk_with_the_wrong_payload_length(void **state)
{
	struct acis_hdr h = allreduce_hdr(3000, 2);

	(void)state;
	assert_int_equal(h.payload_len, 168);
	h.payload_len = 172;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.payload_len = 164;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.payload_len = CS;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_short_chunk_that_is_not_the_last(void **state)
{
	struct acis_hdr h = allreduce_hdr(3000, 1);

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.payload_len = 168;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_payload_not_a_multiple_of_the_element(void **state)
{
	/* A PACKED result skips the geometry, not the element size. */
	struct acis_hdr h = data_hdr(ACIS_C_GATHER, ACIS_INT64, ACIS_OP_NONE,
				     16, 0);

	(void)state;
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PACKED;
	h.payload_len = 4 * 16;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.payload_len = 4 * 16 + 4;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_barrier_with_a_payload(void **state)
{
	struct acis_hdr h = barrier_hdr();

	(void)state;
	assert_int_equal(parse(&h), ACIS_E_OK);
	h.payload_len = 8;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_rejects_a_barrier_with_a_size_or_chunk(void **state)
{
	struct acis_hdr h = barrier_hdr();

	(void)state;
	h.msg_size = 8;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.msg_size = 0;
	h.chunk = 1;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

static void
test_parse_takes_scatter_chunks_modulo_chunks_per_block(void **state)
{
	static const unsigned int colls[] = {ACIS_C_SCATTER,
					     ACIS_C_REDUCE_SCATTER,
					     ACIS_C_ALLTOALL};
	static const uint32_t blocks[] = {0, 1, 2, 7, 1000, 1000000};
	unsigned int i, b, c;

	(void)state;
	/* 3000 bytes a block: cpr 3, the last chunk 168 bytes. */
	for (i = 0; i < 3; i++) {
		unsigned int op = is_reduction(colls[i]) ? ACIS_OP_SUM :
							   ACIS_OP_NONE;

		for (b = 0; b < 6; b++) {
			for (c = 0; c < 3; c++) {
				struct acis_hdr h = data_hdr(colls[i],
							     ACIS_INT32, op,
							     3000, c);

				h.chunk = blocks[b] * 3 + c;
				assert_int_equal(parse(&h), ACIS_E_OK);
				/* The payload of chunk c of the block, and
				 * no other, is right. */
				h.payload_len = c == 2 ? CS : 168;
				assert_int_equal(parse(&h), ACIS_E_CHUNK);
			}
		}
	}
}

static void
test_parse_does_not_take_other_chunks_modulo(void **state)
{
	static const unsigned int colls[] = {ACIS_C_ALLREDUCE, ACIS_C_REDUCE,
					     ACIS_C_BCAST, ACIS_C_GATHER,
					     ACIS_C_ALLGATHER};
	unsigned int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		unsigned int op = is_reduction(colls[i]) ? ACIS_OP_SUM :
							   ACIS_OP_NONE;
		struct acis_hdr h = data_hdr(colls[i], ACIS_INT32, op, 3000,
					     0);

		assert_int_equal(parse(&h), ACIS_E_OK);
		h.chunk = 3; /* block 1 chunk 0, were it scatter */
		assert_int_equal(parse(&h), ACIS_E_CHUNK);
	}
}

static void
test_parse_skips_the_chunk_check_for_packed_results(void **state)
{
	/* A packed gather of P = 5 blocks of 24 bytes: 120 bytes, more
	 * than one block holds. */
	struct acis_hdr h = data_hdr(ACIS_C_GATHER, ACIS_INT32, ACIS_OP_NONE,
				     24, 0);

	(void)state;
	h.type = ACIS_T_RESULT;
	h.payload_len = 5 * 24;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
	h.flags = ACIS_F_PACKED | ACIS_F_MULTICAST;
	assert_int_equal(parse(&h), ACIS_E_OK);
}

static void
test_parse_still_checks_the_chunk_size_of_packed_results(void **state)
{
	struct acis_hdr h = data_hdr(ACIS_C_ALLGATHER, ACIS_INT32,
				     ACIS_OP_NONE, 24, 0);

	(void)state;
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PACKED;
	h.payload_len = 5 * 24;
	h.chunk_size = 0;
	assert_int_equal(parse(&h), ACIS_E_CHUNK);
}

/* --- truncation sweep ---------------------------------------------------- */

/*
 * Parse the first n bytes of a message placed so that the byte after them
 * is on an inaccessible page: any read past the end faults.
 */
struct guard {
	uint8_t *base;
	size_t page;
};

static void
guard_init(struct guard *g)
{
	g->page = (size_t)sysconf(_SC_PAGESIZE);
	g->base = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g->base != MAP_FAILED);
	assert_int_equal(mprotect(g->base + g->page, g->page, PROT_NONE), 0);
}

static void
guard_fini(struct guard *g)
{
	munmap(g->base, 2 * g->page);
}

static void
sweep_prefixes(const struct acis_hdr *h)
{
	struct guard g;
	struct acis_hdr out;
	size_t len = build(h), n;
	uint8_t *p;

	guard_init(&g);
	assert_true(len <= g.page);
	/* The whole message at the page end parses: the guard is sound. */
	p = g.base + g.page - len;
	memcpy(p, msg, len);
	assert_int_equal(acis_msg_parse(p, len, &out), ACIS_E_OK);
	for (n = 0; n < len; n++) {
		enum acis_hdr_error e;

		p = g.base + g.page - n;
		memcpy(p, msg, n);
		e = acis_msg_parse(p, n, &out);
		assert_int_not_equal(e, ACIS_E_OK);
		assert_true(e < ACIS_E_MAX);
	}
	guard_fini(&g);
}

static void
test_parse_rejects_every_prefix_of_a_data_message(void **state)
{
	struct acis_hdr h = allreduce_hdr(3000, 1);

	(void)state;
	sweep_prefixes(&h);
}

static void
test_parse_rejects_every_prefix_of_an_extended_header(void **state)
{
	struct acis_hdr h = allreduce_hdr(40, 0);

	(void)state;
	h.hdr_len = ACIS_HDR_LEN + 18;
	sweep_prefixes(&h);
}

static void
test_parse_rejects_every_prefix_of_a_control_message(void **state)
{
	struct acis_hdr h = ctrl_hdr(ACIS_T_CTRL, ACIS_CTRL_JOIN);

	(void)state;
	sweep_prefixes(&h);
}

/* --- names and sizes ----------------------------------------------------- */

typedef const char *(*name_fn)(unsigned int);

/* Names of [lo, hi) are non-empty, not "unknown" and pairwise distinct. */
static void
assert_names_unique(name_fn fn, unsigned int lo, unsigned int hi)
{
	unsigned int i, k;

	for (i = lo; i < hi; i++) {
		const char *n = fn(i);

		assert_non_null(n);
		assert_true(n[0] != '\0');
		assert_string_not_equal(n, "unknown");
		for (k = lo; k < i; k++)
			assert_string_not_equal(n, fn(k));
	}
}

static void
test_hdr_error_names_are_unique(void **state)
{
	(void)state;
	assert_names_unique(acis_hdr_error_name, 0, ACIS_E_MAX);
}

static void
test_hdr_error_names_are_the_documented_counter_names(void **state)
{
	(void)state;
	assert_string_equal(acis_hdr_error_name(ACIS_E_TRUNCATED),
			    "acis_truncated");
	assert_string_equal(acis_hdr_error_name(ACIS_E_VERSION),
			    "acis_bad_version");
	assert_string_equal(acis_hdr_error_name(ACIS_E_TYPE), "acis_bad_type");
	assert_string_equal(acis_hdr_error_name(ACIS_E_OPCODE),
			    "acis_bad_opcode");
	assert_string_equal(acis_hdr_error_name(ACIS_E_DTYPE),
			    "acis_bad_dtype");
	assert_string_equal(acis_hdr_error_name(ACIS_E_OP), "acis_bad_op");
	assert_string_equal(acis_hdr_error_name(ACIS_E_LENGTH),
			    "acis_bad_length");
	assert_string_equal(acis_hdr_error_name(ACIS_E_CHUNK),
			    "acis_bad_chunk");
}

static void
test_hdr_error_name_out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(acis_hdr_error_name(ACIS_E_MAX), "unknown");
	assert_string_equal(acis_hdr_error_name(UINT32_MAX), "unknown");
}

static void
test_dtype_names_are_unique(void **state)
{
	(void)state;
	assert_names_unique(acis_dtype_name, 1, ACIS_DTYPE_MAX);
	assert_string_equal(acis_dtype_name(ACIS_FLOAT32), "float32");
	assert_string_equal(acis_dtype_name(ACIS_BFLOAT16), "bfloat16");
	assert_string_equal(acis_dtype_name(ACIS_INT8), "int8");
	assert_string_equal(acis_dtype_name(ACIS_UINT8), "uint8");
	assert_string_equal(acis_dtype_name(ACIS_INT16), "int16");
	assert_string_equal(acis_dtype_name(ACIS_UINT16), "uint16");
}

static void
test_dtype_name_out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(acis_dtype_name(0), "unknown");
	assert_string_equal(acis_dtype_name(ACIS_DTYPE_MAX), "unknown");
	assert_string_equal(acis_dtype_name(UINT32_MAX), "unknown");
}

static void
test_op_names_are_unique(void **state)
{
	(void)state;
	assert_names_unique(acis_op_name, 0, ACIS_OP_MAX_);
	assert_string_equal(acis_op_name(ACIS_OP_NONE), "none");
	assert_string_equal(acis_op_name(ACIS_OP_BXOR), "bxor");
}

static void
test_op_name_out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(acis_op_name(ACIS_OP_MAX_), "unknown");
	assert_string_equal(acis_op_name(UINT32_MAX), "unknown");
}

static void
test_coll_names_are_unique(void **state)
{
	(void)state;
	assert_names_unique(acis_coll_name, 1, ACIS_C_MAX);
	assert_string_equal(acis_coll_name(ACIS_C_ALLREDUCE), "allreduce");
	assert_string_equal(acis_coll_name(ACIS_C_REDUCE_SCATTER),
			    "reduce_scatter");
}

static void
test_coll_name_out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(acis_coll_name(0), "unknown");
	assert_string_equal(acis_coll_name(ACIS_C_MAX), "unknown");
	assert_string_equal(acis_coll_name(UINT32_MAX), "unknown");
}

static void
test_dtype_size_is_the_element_width(void **state)
{
	(void)state;
	assert_int_equal(acis_dtype_size(ACIS_INT32), 4);
	assert_int_equal(acis_dtype_size(ACIS_INT64), 8);
	assert_int_equal(acis_dtype_size(ACIS_UINT32), 4);
	assert_int_equal(acis_dtype_size(ACIS_UINT64), 8);
	assert_int_equal(acis_dtype_size(ACIS_FLOAT32), 4);
	assert_int_equal(acis_dtype_size(ACIS_FLOAT64), 8);
	assert_int_equal(acis_dtype_size(ACIS_FLOAT16), 2);
	assert_int_equal(acis_dtype_size(ACIS_BFLOAT16), 2);
	assert_int_equal(acis_dtype_size(ACIS_INT8), 1);
	assert_int_equal(acis_dtype_size(ACIS_UINT8), 1);
	assert_int_equal(acis_dtype_size(ACIS_INT16), 2);
	assert_int_equal(acis_dtype_size(ACIS_UINT16), 2);
}

static void
test_dtype_size_of_an_unknown_type_is_0(void **state)
{
	(void)state;
	assert_int_equal(acis_dtype_size(0), 0);
	assert_int_equal(acis_dtype_size(ACIS_DTYPE_MAX), 0);
	assert_int_equal(acis_dtype_size(UINT32_MAX), 0);
}

static void
test_op_valid_follows_its_truth_table(void **state)
{
	/* Rows: op 0..8; columns: dtype 0..13 (0 and 13 unknown). Bitwise
	 * ops only on the eight integer types; none and unknown never. */
	static const uint8_t want[9][14] = {
		/*      ?  i32 i64 u32 u64 f32 f64 f16 bf16 i8 u8 i16 u16 ? */
		[0] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* none */
		[1] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, /* sum */
		[2] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, /* prod */
		[3] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, /* min */
		[4] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, /* max */
		[5] = {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0}, /* band */
		[6] = {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0}, /* bor */
		[7] = {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0}, /* bxor */
		[8] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* unknown */
	};
	unsigned int op, dt;

	(void)state;
	for (op = 0; op < 9; op++)
		for (dt = 0; dt < 14; dt++)
			assert_int_equal(!!acis_op_valid(op, dt), want[op][dt]);
	assert_int_equal(acis_op_valid(UINT32_MAX, ACIS_INT32), 0);
	assert_int_equal(acis_op_valid(ACIS_OP_SUM, UINT32_MAX), 0);
}

static void
test_n_chunks_of_an_empty_message_is_1(void **state)
{
	(void)state;
	assert_int_equal(acis_n_chunks(0, CS), 1);
	assert_int_equal(acis_n_chunks(0, 8), 1);
}

static void
test_n_chunks_of_an_exact_multiple_has_no_extra_chunk(void **state)
{
	(void)state;
	assert_int_equal(acis_n_chunks(CS, CS), 1);
	assert_int_equal(acis_n_chunks(3 * CS, CS), 3);
	assert_int_equal(acis_n_chunks(ACIS_MAX_MSG_SIZE, 8),
			 ACIS_MAX_MSG_SIZE / 8);
}

static void
test_n_chunks_of_one_byte_more_takes_one_more_chunk(void **state)
{
	(void)state;
	assert_int_equal(acis_n_chunks(1, CS), 1);
	assert_int_equal(acis_n_chunks(CS + 1, CS), 2);
	assert_int_equal(acis_n_chunks(3 * CS + 1, CS), 4);
	assert_int_equal(acis_n_chunks(ACIS_MAX_MSG_SIZE + 1, 8),
			 ACIS_MAX_MSG_SIZE / 8 + 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_writes_the_documented_big_endian_layout),
		cmocka_unit_test(test_auth_is_the_low_48_bits_of_the_field),
		cmocka_unit_test(test_set_payload_len_rewrites_only_that_field),
		cmocka_unit_test(test_encode_writes_exactly_54_bytes),
		cmocka_unit_test(test_decode_reads_the_documented_big_endian_layout),
		cmocka_unit_test(test_msg_size_above_4_gib_keeps_its_high_word),
		cmocka_unit_test(test_round_trip_keeps_every_field_of_every_valid_data_and_result),
		cmocka_unit_test(test_round_trip_keeps_every_field_of_every_reply_and_control),
		cmocka_unit_test(test_decode_inverts_encode_for_random_headers),
		cmocka_unit_test(test_parse_accepts_a_header_longer_than_54_bytes),
		cmocka_unit_test(test_parse_accepts_an_empty_allreduce_as_one_empty_chunk),
		cmocka_unit_test(test_parse_accepts_the_largest_message),
		cmocka_unit_test(test_parse_accepts_replies_and_lookaside_without_collective_checks),
		cmocka_unit_test(test_parse_rejects_fewer_than_54_bytes_as_truncated),
		cmocka_unit_test(test_parse_rejects_hdr_len_below_54_as_truncated),
		cmocka_unit_test(test_parse_rejects_hdr_len_beyond_the_buffer_as_truncated),
		cmocka_unit_test(test_parse_rejects_a_version_other_than_1),
		cmocka_unit_test(test_parse_rejects_message_types_0_and_8),
		cmocka_unit_test(test_parse_rejects_an_unknown_collective),
		cmocka_unit_test(test_parse_rejects_an_unknown_algorithm),
		cmocka_unit_test(test_parse_checks_fused_calls),
		cmocka_unit_test(test_parse_rejects_an_unknown_control_operation),
		cmocka_unit_test(test_parse_rejects_an_unknown_datatype),
		cmocka_unit_test(test_parse_rejects_a_bitwise_op_on_a_float_type),
		cmocka_unit_test(test_parse_rejects_op_none_on_a_reduction),
		cmocka_unit_test(test_parse_rejects_an_unknown_op_on_a_reduction),
		cmocka_unit_test(test_parse_rejects_an_op_on_a_collective_that_does_not_reduce),
		cmocka_unit_test(test_parse_rejects_payload_len_that_disagrees_with_the_bytes),
		cmocka_unit_test(test_parse_takes_a_partial_result_without_payload),
		cmocka_unit_test(test_parse_rejects_chunk_size_0),
		cmocka_unit_test(test_parse_rejects_chunk_size_not_a_multiple_of_8),
		cmocka_unit_test(test_parse_rejects_msg_size_not_a_multiple_of_the_element),
		cmocka_unit_test(test_parse_takes_int8_messages_of_any_length),
		cmocka_unit_test(test_parse_rejects_16_bit_integers_split_in_half),
		cmocka_unit_test(test_parse_accepts_every_op_on_the_8_and_16_bit_integers),
		cmocka_unit_test(test_parse_rejects_msg_size_above_2_to_the_40),
		cmocka_unit_test(test_parse_rejects_a_chunk_index_past_the_message),
		cmocka_unit_test(test_parse_rejects_a_last_chunk_with_the_wrong_payload_length),
		cmocka_unit_test(test_parse_rejects_a_short_chunk_that_is_not_the_last),
		cmocka_unit_test(test_parse_rejects_a_payload_not_a_multiple_of_the_element),
		cmocka_unit_test(test_parse_rejects_a_barrier_with_a_payload),
		cmocka_unit_test(test_parse_rejects_a_barrier_with_a_size_or_chunk),
		cmocka_unit_test(test_parse_takes_scatter_chunks_modulo_chunks_per_block),
		cmocka_unit_test(test_parse_does_not_take_other_chunks_modulo),
		cmocka_unit_test(test_parse_skips_the_chunk_check_for_packed_results),
		cmocka_unit_test(test_parse_still_checks_the_chunk_size_of_packed_results),
		cmocka_unit_test(test_parse_rejects_every_prefix_of_a_data_message),
		cmocka_unit_test(test_parse_rejects_every_prefix_of_an_extended_header),
		cmocka_unit_test(test_parse_rejects_every_prefix_of_a_control_message),
		cmocka_unit_test(test_hdr_error_names_are_unique),
		cmocka_unit_test(test_hdr_error_names_are_the_documented_counter_names),
		cmocka_unit_test(test_hdr_error_name_out_of_range_is_unknown),
		cmocka_unit_test(test_dtype_names_are_unique),
		cmocka_unit_test(test_dtype_name_out_of_range_is_unknown),
		cmocka_unit_test(test_op_names_are_unique),
		cmocka_unit_test(test_op_name_out_of_range_is_unknown),
		cmocka_unit_test(test_coll_names_are_unique),
		cmocka_unit_test(test_coll_name_out_of_range_is_unknown),
		cmocka_unit_test(test_dtype_size_is_the_element_width),
		cmocka_unit_test(test_dtype_size_of_an_unknown_type_is_0),
		cmocka_unit_test(test_op_valid_follows_its_truth_table),
		cmocka_unit_test(test_n_chunks_of_an_empty_message_is_1),
		cmocka_unit_test(test_n_chunks_of_an_exact_multiple_has_no_extra_chunk),
		cmocka_unit_test(test_n_chunks_of_one_byte_more_takes_one_more_chunk),
	};

	return cmocka_run_group_tests_name("proto", tests, NULL, NULL);
}
