/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration: the collective stage of the real switch on four net_ring
 * ports (doc/wire-format.md). Four emulated hosts, host i on port i with
 * MAC 02:00:00:00:00:(10+i), IP 10.77.0.(10+i) and UDP source port
 * 40000+i, join job 7 and run collectives. Every frame the switch sends is
 * checked as a frame (addresses, IPv4 checksum, UDP checksum 0) and
 * decoded with the protocol's own parser before a test looks at its header
 * and payload.
 *
 * Arrival order is the test's to choose: a frame is injected and the graph
 * walked before the next one, since one walk polls the ports in index
 * order. Every test ends with nothing unsent, every mbuf back in the pool,
 * no aggregation slot open and no contribution held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "acis_cgra.h"
#include "acis_fused.h"
#include "acis_pipeline.h"
#include "acis_proto.h"
#include "acis_reduce.h"
#include "acis_userop.h"
#include "coll.h"
#include "fault.h"
#include "fused.h"
#include "frames.h"
#include "harness.h"

#define JOB 7
#define WORLD NPORTS      /* one rank per port */
#define HOST_BASE 10      /* host i is tf_host(HOST_BASE + i) */
#define SPORT_BASE 40000  /* host i sends from UDP port SPORT_BASE + i */
#define CHUNK 1416        /* chunk_size at MTU 1500 */
#define MAX_PAYLOAD ACIS_MAX_PAYLOAD(1500)
#define ORDERS 24         /* arrival orders of four ranks */
#define INBOX 64          /* messages one port may send between drains */
#define QNAN64 UINT64_C(0x7ff8000000000000)
/* Completed slots are kept until every member confirms or this long;
 * finish() waits it out, so every test ends with no slot left. */
#define LINGER_MS 200
#define LINGER "[collective]\nlinger_ms = 200\n"

/* What every DATA of one collective call carries. */
struct coll_spec {
	uint8_t coll;
	uint8_t dtype;
	uint8_t op;
	uint32_t root;
	uint64_t msg_size; /* one rank's block */
	uint16_t chunk_size;
};

/* A frame the switch sent, decoded. */
struct reply {
	struct acis_hdr h;
	uint16_t dport; /* UDP destination port, host order */
	uint8_t payload[MAX_PAYLOAD];
};

/* What each port sent since the last drain(): messages, an ACK that
 * lists several chunks counted as one ACK per chunk (listed), and the
 * frames they came in. */
static struct {
	unsigned int n, frames;
	struct reply r[INBOX];
	uint8_t listed[INBOX];
} inbox[NPORTS];

static struct tf_addr
host(unsigned int i)
{
	return tf_host(HOST_BASE + i);
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static const char *
type_name(unsigned int t)
{
	static const char *const names[ACIS_T_MAX] = {
		[ACIS_T_DATA] = "DATA", [ACIS_T_RESULT] = "RESULT",
		[ACIS_T_ACK] = "ACK", [ACIS_T_NACK] = "NACK",
		[ACIS_T_CTRL] = "CTRL", [ACIS_T_CTRL_ACK] = "CTRL_ACK",
		[ACIS_T_LOOKASIDE] = "LOOKASIDE",
	};

	return t < ACIS_T_MAX && names[t] != NULL ? names[t] : "?";
}

/* ---- sending ---- */

/* An ACiS message from src (on port, UDP port sport) to the switch,
 * behind VLAN tags (tag_len bytes: 0, one tag, or two) when asked. */
static void
send_tagged_from(unsigned int port, const struct tf_addr *src, uint16_t sport,
		 const struct acis_hdr *h, const void *payload,
		 const uint8_t *tags, unsigned int tag_len)
{
	static uint8_t msg[ACIS_HDR_LEN + MAX_PAYLOAD], f[2048];
	struct tf_addr s = sw;
	unsigned int l;

	assert_true(h->payload_len <= MAX_PAYLOAD);
	s.ip = sw_ip();
	acis_hdr_encode(h, msg);
	if (h->payload_len != 0 && payload != NULL)
		memcpy(msg + ACIS_HDR_LEN, payload, h->payload_len);
	l = tf_udp(f, &s, src, sport, ACIS_DEFAULT_UDP_PORT, msg,
		   ACIS_HDR_LEN + h->payload_len, -1);
	if (tag_len != 0) {
		memmove(f + 12 + tag_len, f + 12, l - 12);
		memcpy(f + 12, tags, tag_len);
		l += tag_len;
	}
	inject(port, f, l);
}

static void
send_from(unsigned int port, const struct tf_addr *src, uint16_t sport,
	  const struct acis_hdr *h, const void *payload)
{
	send_tagged_from(port, src, sport, h, payload, NULL, 0);
}

/* The cookie host i puts in what it sends (0: none, as most tests). */
static uint64_t cookie[NPORTS];

/* The end of a test that gave hosts cookies, passed or failed. */
static int
auth_teardown(void **state)
{
	memset(cookie, 0, sizeof(cookie));
	return teardown(state);
}

/* The same from host i, on its own port and UDP port, with its cookie. */
static void
send_as(unsigned int i, const struct acis_hdr *h, const void *payload)
{
	struct tf_addr a = host(i);
	struct acis_hdr c = *h;

	c.auth = cookie[i];
	send_from(i, &a, (uint16_t)(SPORT_BASE + i), &c, payload);
}

static struct acis_hdr
ctrl_hdr(uint8_t opcode, uint32_t comm, uint32_t rank, uint32_t seq)
{
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_CTRL,
		.opcode = opcode, .hdr_len = ACIS_HDR_LEN, .job = JOB,
		.comm = comm, .rank = rank, .root = ACIS_RANK_NONE, .seq = seq,
	};

	return h;
}

static void
send_join(unsigned int i, uint32_t size)
{
	struct acis_hdr h = ctrl_hdr(ACIS_CTRL_JOIN, 0, i, 0);

	h.root = size;
	send_as(i, &h, NULL);
}

static uint64_t
chunks_per_block(const struct coll_spec *o)
{
	return acis_n_chunks(o->msg_size, o->chunk_size);
}

static int
rank_major(const struct coll_spec *o)
{
	return o->coll == ACIS_C_SCATTER || o->coll == ACIS_C_REDUCE_SCATTER ||
	       o->coll == ACIS_C_ALLTOALL;
}

/* Where chunk starts in a rank's send buffer (P blocks when rank-major). */
static uint64_t
chunk_offset(const struct coll_spec *o, uint32_t chunk)
{
	uint64_t cpr = chunks_per_block(o);

	if (rank_major(o))
		return chunk / cpr * o->msg_size +
		       chunk % cpr * o->chunk_size;
	return (uint64_t)chunk * o->chunk_size;
}

/* Host i, rank `rank` of comm, sends chunk of its buffer buf. */
static void
contribute(unsigned int i, const struct coll_spec *o, uint32_t comm,
	   uint32_t rank, uint32_t seq, uint32_t chunk, const void *buf)
{
	uint64_t cpr = chunks_per_block(o);
	uint64_t c = rank_major(o) ? chunk % cpr : chunk;
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_DATA,
		.opcode = ACIS_OPCODE(o->coll, ACIS_A_DEFAULT),
		.dtype = o->dtype, .op = o->op, .hdr_len = ACIS_HDR_LEN,
		.job = JOB, .comm = comm, .rank = rank, .root = o->root,
		.seq = seq, .chunk = chunk, .msg_size = o->msg_size,
		.chunk_size = o->chunk_size, .contributors = 1,
	};

	if (o->msg_size != 0)
		h.payload_len = (uint16_t)RTE_MIN((uint64_t)o->chunk_size,
					o->msg_size - c * o->chunk_size);
	if (c == cpr - 1)
		h.flags = ACIS_F_LAST;
	send_as(i, &h, buf == NULL ? NULL :
		(const uint8_t *)buf + chunk_offset(o, chunk));
}

/* Host i, rank `rank` of comm, confirms it has the answers of slot keys
 * first..first+nkeys-1 of collective seq (a host ACK carrying the keys). */
static void
confirm_keys(unsigned int i, const struct coll_spec *o, uint32_t comm,
	     uint32_t rank, uint32_t seq, uint32_t first, uint32_t nkeys)
{
	uint32_t keys[128];
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_ACK,
		.opcode = ACIS_OPCODE(o->coll, ACIS_A_DEFAULT),
		.dtype = o->dtype, .op = o->op, .hdr_len = ACIS_HDR_LEN,
		.job = JOB, .comm = comm, .rank = rank, .root = o->root,
		.seq = seq, .chunk = nkeys, .msg_size = o->msg_size,
		.chunk_size = o->chunk_size,
		.payload_len = (uint16_t)(4 * nkeys),
	};
	uint32_t k;

	assert_true(nkeys <= RTE_DIM(keys));
	for (k = 0; k < nkeys; k++)
		keys[k] = rte_cpu_to_le_32(first + k);
	send_as(i, &h, keys);
}

/* The same for slot keys 0..nkeys-1. */
static void
confirm(unsigned int i, const struct coll_spec *o, uint32_t comm,
	uint32_t rank, uint32_t seq, uint32_t nkeys)
{
	confirm_keys(i, o, comm, rank, seq, 0, nkeys);
}

/* Host i asks the switch again for slot key of collective seq (a host
 * NACK). */
static void
ask_again(unsigned int i, const struct coll_spec *o, uint32_t comm,
	  uint32_t rank, uint32_t seq, uint32_t key)
{
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_NACK,
		.opcode = ACIS_OPCODE(o->coll, ACIS_A_DEFAULT),
		.dtype = o->dtype, .op = o->op, .hdr_len = ACIS_HDR_LEN,
		.job = JOB, .comm = comm, .rank = rank, .root = o->root,
		.seq = seq, .chunk = key, .msg_size = o->msg_size,
		.chunk_size = o->chunk_size,
	};

	send_as(i, &h, NULL);
}

/* ---- receiving ---- */

/*
 * Check that frame f of len bytes, sent on port, is an ACiS message from
 * the switch to the host on that port as doc/wire-format.md frames it,
 * and decode it into r.
 */
static void
decode_reply(unsigned int port, const uint8_t *f, uint32_t len,
	     struct reply *r)
{
	struct tf_addr a = host(port);
	uint32_t ip = sw_ip();

	assert_true(len >= ACIS_FRAME_OVERHEAD);
	assert_memory_equal(f, a.mac, 6);
	assert_memory_equal(f + 6, sw.mac, 6);
	assert_int_equal(rd16(f + 12), ACIS_ETHERTYPE_IPV4);
	assert_int_equal(f[14], 0x45);
	assert_int_equal(rd16(f + 16), len - 14);
	assert_int_equal(f[23], ACIS_IPPROTO_UDP);
	assert_int_equal(acis_csum(f + 14, 20), 0);
	assert_memory_equal(f + 26, &ip, 4);
	assert_memory_equal(f + 30, &a.ip, 4);
	assert_int_equal(rd16(f + 34), ACIS_DEFAULT_UDP_PORT);
	assert_int_equal(rd16(f + 38), len - 34);
	assert_int_equal(rd16(f + 40), 0); /* no UDP checksum */
	assert_int_equal(acis_msg_parse(f + 42, len - 42, &r->h), ACIS_E_OK);
	assert_int_equal(r->h.hdr_len, ACIS_HDR_LEN);
	assert_true(r->h.payload_len <= MAX_PAYLOAD);
	r->dport = rd16(f + 36);
	memcpy(r->payload, f + ACIS_FRAME_OVERHEAD, r->h.payload_len);
}

/* Into port's inbox: a message, or the ACK of each chunk a coalesced
 * ACK lists (`chunk` = their number, payload = little-endian uint32
 * chunks, doc/wire-format.md). */
static void
take_reply(unsigned int port, const struct reply *r)
{
	uint32_t i, n = 1, key;
	int list = r->h.type == ACIS_T_ACK && r->h.payload_len != 0;

	if (list) {
		n = r->h.chunk;
		assert_true(n >= 2);
		assert_int_equal(r->h.payload_len, 4 * n);
	}
	for (i = 0; i < n; i++) {
		struct reply *d;

		if (inbox[port].n == INBOX)
			fail_msg("port %u sent more than %u messages", port,
				 INBOX);
		inbox[port].listed[inbox[port].n] = (uint8_t)list;
		d = &inbox[port].r[inbox[port].n++];
		*d = *r;
		if (list) {
			memcpy(&key, r->payload + 4 * i, 4);
			d->h.chunk = rte_le_to_cpu_32(key);
			d->h.payload_len = 0;
		}
	}
}

/* Read everything every port sent into the (emptied) inboxes. */
static void
drain(void)
{
	static uint8_t f[2048];
	static struct reply one_reply;
	struct rte_mbuf *m;
	unsigned int p;
	uint32_t len;

	for (p = 0; p < NPORTS; p++) {
		inbox[p].n = 0;
		inbox[p].frames = 0;
		while ((m = sent(p)) != NULL) {
			/* Copy and free first: a failed check leaks nothing. */
			len = rte_pktmbuf_pkt_len(m);
			assert_true(len <= sizeof(f));
			assert_int_equal(rte_pktmbuf_data_len(m), len);
			memcpy(f, rte_pktmbuf_mtod(m, const uint8_t *), len);
			rte_pktmbuf_free(m);
			inbox[p].frames++;
			decode_reply(p, f, len, &one_reply);
			take_reply(p, &one_reply);
		}
	}
}

/* Nothing was sent on any port. */
static void
expect_quiet(void)
{
	unsigned int p;

	drain();
	for (p = 0; p < NPORTS; p++) {
		const struct acis_hdr *h = &inbox[p].r[0].h;

		if (inbox[p].n != 0)
			fail_msg("port %u sent %u frame(s) it should not have "
				 "(first: %s status %u seq %u chunk %u)", p,
				 inbox[p].n, type_name(h->type), h->status,
				 h->seq, h->chunk);
	}
}

/* Walk the graph; nothing may come out. */
static void
run_quiet(void)
{
	run();
	expect_quiet();
}

static void
expect_count(unsigned int port, unsigned int n)
{
	if (inbox[port].n != n)
		fail_msg("port %u sent %u message(s), expected %u", port,
			 inbox[port].n, n);
}

/* The one frame port sent, of type t, to its host's own UDP port. */
static const struct reply *
only(unsigned int port, uint8_t t)
{
	const struct reply *r = &inbox[port].r[0];

	expect_count(port, 1);
	if (r->h.type != t)
		fail_msg("port %u sent a %s, expected a %s", port,
			 type_name(r->h.type), type_name(t));
	assert_int_equal(r->dport, SPORT_BASE + port);
	assert_int_equal(r->h.job, JOB);
	return r;
}

/* The one frame of type t for chunk that port sent. */
static const struct reply *
one(unsigned int port, uint8_t t, uint32_t chunk)
{
	const struct reply *found = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < inbox[port].n; i++) {
		const struct reply *r = &inbox[port].r[i];

		if (r->h.type == t && r->h.chunk == chunk) {
			found = r;
			n++;
		}
	}
	if (n != 1)
		fail_msg("port %u sent %u %s(s) for chunk %u, expected one",
			 port, n, type_name(t), chunk);
	assert_int_equal(found->dport, SPORT_BASE + port);
	assert_int_equal(found->h.job, JOB);
	return found;
}

/* A RESULT of collective o on comm, seq, chunk, addressed as rank. */
static void
expect_result_hdr(const struct reply *r, const struct coll_spec *o,
		  uint32_t comm, uint32_t seq, uint32_t chunk, uint32_t rank)
{
	assert_int_equal(r->h.type, ACIS_T_RESULT);
	assert_int_equal(r->h.opcode, ACIS_OPCODE(o->coll, ACIS_A_DEFAULT));
	assert_int_equal(r->h.dtype, o->dtype);
	assert_int_equal(r->h.op, o->op);
	assert_int_equal(r->h.comm, comm);
	assert_int_equal(r->h.seq, seq);
	assert_int_equal(r->h.chunk, chunk);
	assert_int_equal(r->h.rank, rank);
	assert_int_equal(r->h.msg_size, o->msg_size);
	assert_int_equal(r->h.status, ACIS_S_OK);
}

/* port's DATA chunk of collective o on comm, seq was acknowledged. */
static void
expect_ack(unsigned int port, const struct coll_spec *o, uint32_t comm,
	   uint32_t seq, uint32_t chunk)
{
	const struct reply *r = one(port, ACIS_T_ACK, chunk);

	assert_int_equal(r->h.opcode, ACIS_OPCODE(o->coll, ACIS_A_DEFAULT));
	assert_int_equal(r->h.comm, comm);
	assert_int_equal(r->h.seq, seq);
	assert_int_equal(r->h.status, ACIS_S_OK);
	assert_int_equal(r->h.payload_len, 0);
}

static void
expect_payload(const struct reply *r, const void *want, uint16_t len)
{
	unsigned int i;

	assert_int_equal(r->h.payload_len, len);
	for (i = 0; i < len; i++)
		if (r->payload[i] != ((const uint8_t *)want)[i])
			fail_msg("%s seq %u chunk %u: payload byte %u is "
				 "0x%02x, expected 0x%02x",
				 type_name(r->h.type), r->h.seq, r->h.chunk, i,
				 r->payload[i],
				 ((const uint8_t *)want)[i]);
}

/* ---- switch state ---- */

/* The switch of these tests. Its own resends of unconfirmed answers are
 * off (the tests that check them turn them on): a frame comes out only
 * when a test's message asks for it. */
static void
start(const char *extra)
{
	start_switch(NPORTS, extra);
	g_sw.coll.resend_tsc = UINT64_MAX / 4;
}


/* The fused calls open on every worker. */
static unsigned int
fused_open(void)
{
	unsigned int w, i, n = 0;

	for (w = 0; w < RTE_DIM(g_sw.coll.shards); w++)
		for (i = 0; g_sw.coll.shards[w] != NULL && i < ACIS_FUSED_CALLS;
		     i++)
			n += acis_fused_sw_at(g_sw.coll.shards[w]->fused, i) !=
			     NULL;
	return n;
}

/* The end of every test: nothing more was sent, every mbuf is back in the
 * pool, no aggregation slot or fused call is open and no contribution is
 * held. */
static void
finish(void)
{
	unsigned int waited = 0;

	run_for(LINGER_MS + 30);
	/* the switch's timers count only the time it runs: a test process
	 * the machine stalled (a loaded CI host) gives its slots the stall
	 * on top, so wait for them a little longer before judging */
	while (slot_stats().in_use != 0 && waited < 3000) {
		run_for(50);
		waited += 50;
	}
	expect_quiet();
	expect_no_leak();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(coll_stats().held, 0);
	assert_int_equal(fused_open(), 0);
	stop_switch();
}

/* ---- jobs and communicators ---- */

/* Every host joins as world rank = its index; the world's context id. */
static uint32_t
join_all(void)
{
	uint32_t world;
	unsigned int p;

	for (p = 0; p < WORLD; p++)
		send_join(p, WORLD);
	run();
	drain();
	world = only(0, ACIS_T_CTRL_ACK)->h.comm;
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_JOIN);
		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.comm, world);
		assert_int_equal(r->h.rank, p);
	}
	return world;
}

/* The split every split test makes: color = world rank % 2, and keys
 * that order color 0 against parent rank order and tie color 1. */
static const uint64_t split_key[WORLD] = {5, 5, 1, 5};

/* Split the world (its collective seq 0); each world rank's new context
 * id and new rank, from its CTRL_ACK. */
static void
split_world(uint32_t world, uint32_t ctx[WORLD], uint32_t rank[WORLD])
{
	unsigned int p;

	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_SPLIT, world, p, 0);

		h.chunk = p % 2;
		h.msg_size = split_key[p];
		send_as(p, &h, NULL);
		run();
		if (p + 1 < WORLD)
			expect_quiet(); /* answered once everyone asked */
	}
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_SPLIT);
		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.comm, world);
		assert_int_equal(r->h.seq, 0);
		assert_int_equal(r->h.rank, p);
		assert_int_equal(r->h.root, 2); /* new size */
		assert_true(r->h.msg_size < ACIS_CTX_NONE);
		ctx[p] = (uint32_t)r->h.msg_size;
		rank[p] = r->h.chunk;
	}
}

/* The k-th (0..ORDERS-1) ordering of the ranks, lexicographically. */
static void
nth_order(unsigned int k, unsigned int order[WORLD])
{
	static const unsigned int fact[WORLD] = {1, 1, 2, 6};
	unsigned int left[WORLD] = {0, 1, 2, 3}, n = WORLD, i, at;

	for (i = 0; i < WORLD; i++) {
		at = k / fact[WORLD - 1 - i];
		k %= fact[WORLD - 1 - i];
		order[i] = left[at];
		memmove(&left[at], &left[at + 1],
			(n - at - 1) * sizeof(left[0]));
		n--;
	}
}

/*
 * One single-chunk allreduce of o per arrival order of the ranks, each
 * with its own seq from seq0: nothing may come out before the last
 * contribution, and then every rank gets one multicast RESULT whose
 * payload is want. Returns the world communicator.
 */
static uint32_t
allreduce_in_every_order_from(const struct coll_spec *o,
			      const void *const in[WORLD], const void *want,
			      uint32_t seq0)
{
	uint32_t world = join_all();
	unsigned int k, i, p, order[WORLD];
	struct acis_coll_stats cs0;
	struct acis_agg_stats as0;

	assert_true(o->msg_size <= o->chunk_size);
	acis_coll_stats_sum(&cs0, &as0);
	for (k = 0; k < ORDERS; k++) {
		unsigned int chained = chained_frames();

		nth_order(k, order);
		for (i = 0; i < WORLD; i++) {
			contribute(order[i], o, world, order[i], seq0 + k, 0,
				   in[order[i]]);
			run();
			if (i + 1 < WORLD)
				expect_quiet();
		}
		drain();
		for (p = 0; p < WORLD; p++) {
			const struct reply *r = only(p, ACIS_T_RESULT);

			expect_result_hdr(r, o, world, seq0 + k, 0, p);
			assert_true(r->h.flags & ACIS_F_MULTICAST);
			assert_false(r->h.flags & ACIS_F_PACKED);
			assert_int_equal(r->h.contributors, WORLD);
			expect_payload(r, want, (uint16_t)o->msg_size);
		}
		/* net_ring sends chained frames: the members' results
		 * shared one payload segment, and the switch says so */
		assert_int_equal(chained_frames() - chained, WORLD);
		{
			struct acis_coll_stats cs;
			struct acis_agg_stats as;

			acis_coll_stats_sum(&cs, &as);
			assert_int_equal(cs.results_shared - cs0.results_shared,
					 (k + 1) * WORLD);
			/* and that segment was the first contribution's own
			 * mbuf, folded into in place (float16 and bfloat16
			 * widen, and are copied instead) */
			assert_int_equal(cs.zero_copy - cs0.zero_copy,
					 o->dtype == ACIS_FLOAT16 ||
					 o->dtype == ACIS_BFLOAT16 ? 0 : k + 1);
		}
	}
	return world;
}

static void
allreduce_in_every_order(const struct coll_spec *o, const void *const in[WORLD],
			 const void *want)
{
	allreduce_in_every_order_from(o, in, want, 0);
}

/* ---- data ---- */

#define F32_N 300

/* Magnitudes that make float32 sums depend on the order of the adds:
 * 1e8 swallows 1.0 (its ulp is 8), and cancels against -1e8. */
static void
fill_f32(float in[WORLD][F32_N])
{
	unsigned int i;

	for (i = 0; i < F32_N; i++) {
		in[0][i] = 1e8f * (float)(1 + i % 5);
		in[1][i] = 1.0f + 0.75f * (float)(i % 7);
		in[2][i] = -1e8f * (float)(1 + (i + 2) % 5);
		in[3][i] = 3.25f * (float)((int)(i % 11) - 5);
	}
}

/* ((r0 + r1) + r2) + r3 in float32: the rank-order reduction. */
static void
sum_f32_rank_order(float in[WORLD][F32_N], float out[F32_N])
{
	unsigned int i;

	for (i = 0; i < F32_N; i++) {
		float acc = in[0][i];

		acc += in[1][i];
		acc += in[2][i];
		acc += in[3][i];
		out[i] = acc;
	}
}

static uint64_t
bits64(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double
from_bits64(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* ---- tests: joining ---- */

static void
test_join_is_answered_for_every_rank_once_the_last_rank_joins(void **state)
{
	uint32_t world;
	unsigned int p;

	(void)state;
	start(LINGER);
	for (p = 0; p + 1 < WORLD; p++) {
		send_join(p, WORLD);
		run_quiet();
	}
	send_join(WORLD - 1, WORLD);
	run();
	drain();
	world = only(0, ACIS_T_CTRL_ACK)->h.comm;
	assert_int_not_equal(world, ACIS_CTX_NONE);
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_JOIN);
		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.comm, world);
		assert_int_equal(r->h.rank, p);
	}
	finish();
}

static void
test_repeated_join_from_a_joined_rank_is_answered_again(void **state)
{
	const struct reply *r;
	uint32_t world;

	(void)state;
	start(LINGER);
	world = join_all();
	send_join(1, WORLD);
	run();
	drain();
	r = only(1, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.opcode, ACIS_CTRL_JOIN);
	assert_int_equal(r->h.status, ACIS_S_OK);
	assert_int_equal(r->h.comm, world);
	assert_int_equal(r->h.rank, 1);
	expect_count(0, 0);
	expect_count(2, 0);
	expect_count(3, 0);
	finish();
}

static void
test_join_for_a_held_rank_from_another_udp_port_is_refused_rank_taken(void **state)
{
	struct acis_hdr h = ctrl_hdr(ACIS_CTRL_JOIN, 0, 2, 0);
	struct tf_addr a = host(2);
	const struct reply *r;
	uint32_t world;

	(void)state;
	start(LINGER);
	world = join_all();
	h.root = WORLD;
	send_from(2, &a, SPORT_BASE + 1002, &h, NULL);
	run();
	drain();
	expect_count(2, 1);
	r = &inbox[2].r[0];
	assert_int_equal(r->dport, SPORT_BASE + 1002); /* to the asker */
	assert_int_equal(r->h.type, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.opcode, ACIS_CTRL_JOIN);
	assert_int_equal(r->h.status, ACIS_S_RANK_TAKEN);
	assert_int_equal(r->h.rank, 2);
	expect_count(0, 0);
	expect_count(1, 0);
	expect_count(3, 0);
	/* the holder keeps its rank */
	send_join(2, WORLD);
	run();
	drain();
	r = only(2, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.status, ACIS_S_OK);
	assert_int_equal(r->h.comm, world);
	finish();
}

static void
test_join_with_another_world_size_is_refused_size_mismatch(void **state)
{
	const struct reply *r;

	(void)state;
	start(LINGER);
	join_all();
	send_join(0, 2 * WORLD);
	run();
	drain();
	r = only(0, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.opcode, ACIS_CTRL_JOIN);
	assert_int_equal(r->h.status, ACIS_S_SIZE_MISMATCH);
	expect_count(1, 0);
	expect_count(2, 0);
	expect_count(3, 0);
	finish();
}

/* ---- tests: allreduce in every arrival order ---- */

static void
test_allreduce_float32_sum_is_the_rank_order_sum_in_every_arrival_order(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	unsigned int k, i, order[WORLD], differ = 0;

	(void)state;
	fill_f32(in);
	sum_f32_rank_order(in, want);
	/* The data must tell orders apart, or this test could not fail:
	 * summing in arrival order must give other bits for some orders. */
	for (k = 0; k < ORDERS; k++) {
		nth_order(k, order);
		for (i = 0; i < F32_N; i++) {
			float acc = in[order[0]][i];

			acc += in[order[1]][i];
			acc += in[order[2]][i];
			acc += in[order[3]][i];
			if (memcmp(&acc, &want[i], sizeof(acc)) != 0) {
				differ++;
				break;
			}
		}
	}
	assert_true(differ >= ORDERS / 2);
	start(LINGER);
	allreduce_in_every_order(&o, bufs, want);
	assert_true(coll_stats().held_total > 0); /* early ranks waited */
	finish();
}

/* The one CTRL_ACK port p sent, for job. */
static const struct reply *
ctrl_ack_for(unsigned int p, uint32_t job)
{
	const struct reply *r = &inbox[p].r[0];

	expect_count(p, 1);
	assert_int_equal(r->h.type, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.job, job);
	return r;
}

/* Host p's JOIN of job as rank r of size. */
static void
send_join_job(unsigned int p, uint32_t job, uint32_t r, uint32_t size)
{
	struct acis_hdr h = ctrl_hdr(ACIS_CTRL_JOIN, 0, r, 0);

	h.job = job;
	h.root = size;
	send_as(p, &h, NULL);
}

/* A split that cannot be made (no room for the new communicators) is
 * refused to every member, not only the last to ask; and a member that
 * asks again (its answer lost) hears the refusal again. */
static void
test_refused_split_reaches_every_member_also_on_resend(void **state)
{
	uint32_t world;
	unsigned int p;

	(void)state;
	start("[collective]\nmax_comms = 2\n"); /* the world and one more */
	world = join_all();
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_SPLIT, world, p, 0);

		h.chunk = p % 2; /* two colors: one communicator too many */
		send_as(p, &h, NULL);
	}
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_SPLIT);
		assert_int_equal(r->h.status, ACIS_S_FULL);
		assert_int_equal(r->h.rank, p);
	}
	{
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_SPLIT, world, 1, 0);

		h.chunk = 1;
		send_as(1, &h, NULL);
	}
	run();
	drain();
	assert_int_equal(only(1, ACIS_T_CTRL_ACK)->h.status, ACIS_S_FULL);
	finish();
}

/* A job whose world communicator cannot be made is refused to every rank
 * that joined, and again to a rank that asks again. */
static void
test_refused_join_reaches_every_rank_also_on_resend(void **state)
{
	unsigned int p;

	(void)state;
	start("[collective]\nmax_comms = 1\n");
	send_join_job(0, 20, 0, 2);
	send_join_job(1, 20, 1, 2); /* job 20 takes the only communicator */
	run();
	drain();
	send_join_job(2, 21, 0, 2);
	run();
	expect_quiet();
	send_join_job(3, 21, 1, 2);
	run();
	drain();
	for (p = 2; p < 4; p++)
		assert_int_equal(ctrl_ack_for(p, 21)->h.status, ACIS_S_FULL);
	send_join_job(2, 21, 0, 2);
	run();
	drain();
	assert_int_equal(ctrl_ack_for(2, 21)->h.status, ACIS_S_FULL);
	finish();
}

/* One host may begin max_jobs_per_host jobs; the next is refused LIMIT.
 * A job some rank never joins goes after join_timeout_ms. */
static void
test_jobs_per_host_are_limited_and_unfinished_joins_expire(void **state)
{
	struct acis_ct_stats cs;

	(void)state;
	start("[collective]\nmax_jobs_per_host = 1\njoin_timeout_ms = 100\n");
	send_join_job(0, 30, 0, 2); /* rank 1 never comes */
	run();
	expect_quiet();
	send_join_job(0, 31, 0, 1);
	run();
	drain();
	assert_int_equal(ctrl_ack_for(0, 31)->h.status, ACIS_S_LIMIT);
	usleep(150 * 1000);
	acis_coll_housekeeping();
	assert_null(acis_ct_job(g_sw.coll.ct, 30));
	acis_ct_stats(g_sw.coll.ct, &cs);
	assert_int_equal(cs.jobs_expired, 1);
	assert_int_equal(cs.joins_limited, 1);
	/* the host's job went: it may begin another */
	send_join_job(0, 31, 0, 1);
	run();
	drain();
	assert_int_equal(ctrl_ack_for(0, 31)->h.status, ACIS_S_OK);
	finish();
}

/* The tags host p sends behind on the VLAN tests: one 802.1Q tag of
 * VLAN 100 + p, and for host 3 QinQ (802.1ad VLAN 300 outside, 802.1Q
 * VLAN 103 inside). Their length. */
static unsigned int
tags_of(unsigned int p, uint8_t t[8])
{
	uint8_t q[4] = {0x81, 0x00, 0, (uint8_t)(100 + p)};

	if (p != 3) {
		memcpy(t, q, 4);
		return 4;
	}
	t[0] = 0x88;
	t[1] = 0xa8;
	t[2] = 0x01;
	t[3] = 0x2c; /* 300 */
	memcpy(t + 4, q, 4);
	return 8;
}

/* The one frame port p sent: behind host p's tags, an ACiS message of
 * type t to its host; its header. */
static struct acis_hdr
tagged_reply(unsigned int p, uint8_t t)
{
	struct rte_mbuf *m = sent(p);
	const uint8_t *f;
	struct acis_hdr h;
	uint8_t tags[8];
	unsigned int n = tags_of(p, tags);

	assert_non_null(m);
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(f + 12, tags, n);
	assert_int_equal(f[12 + n] << 8 | f[13 + n], 0x0800);
	acis_hdr_decode(f + n + ACIS_UDP4_PAYLOAD_OFF, &h);
	assert_int_equal(h.type, t);
	rte_pktmbuf_free(m);
	expect_silent(p);
	return h;
}

static void
send_tagged(unsigned int p, const struct acis_hdr *h, const void *payload)
{
	struct tf_addr a = host(p);
	uint8_t tags[8];
	unsigned int n = tags_of(p, tags);

	send_tagged_from(p, &a, (uint16_t)(SPORT_BASE + p), h, payload, tags,
			 n);
}

/* Hosts on VLANs: everything the switch sends them (the JOIN's answer,
 * results) carries the tags their JOIN came with, QinQ too. */
static void
test_answers_to_hosts_on_a_vlan_carry_their_tag(void **state)
{
	static int32_t in[WORLD][4];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world = 0;
	unsigned int p;

	(void)state;
	start(LINGER);
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_JOIN, 0, p, 0);

		h.root = WORLD;
		send_tagged(p, &h, NULL);
	}
	run();
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr r = tagged_reply(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r.status, ACIS_S_OK);
		world = r.comm;
	}
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = {
			.version = ACIS_PROTO_VERSION, .type = ACIS_T_DATA,
			.opcode = ACIS_OPCODE(o.coll, ACIS_A_DEFAULT),
			.dtype = o.dtype, .op = o.op, .hdr_len = ACIS_HDR_LEN,
			.job = JOB, .comm = world, .rank = p,
			.root = ACIS_RANK_NONE, .msg_size = o.msg_size,
			.chunk_size = o.chunk_size, .contributors = 1,
			.payload_len = (uint16_t)o.msg_size, .flags = ACIS_F_LAST,
		};

		in[p][0] = (int32_t)p;
		send_tagged(p, &h, in[p]);
	}
	run();
	for (p = 0; p < WORLD; p++)
		assert_int_equal(tagged_reply(p, ACIS_T_RESULT).comm, world);
	stop_switch();
}

/* Control changes jobs: without a UDP checksum (which IPv4 allows) one
 * flipped bit could turn a DATA into a valid LEAVE. The switch refuses
 * control messages that carry none, counts them, and answers nothing;
 * the same JOINs with their checksums are taken. */
static void
test_control_without_a_udp_checksum_is_refused(void **state)
{
	static uint8_t msg[ACIS_HDR_LEN], f[2048];
	struct tf_addr s = sw;
	unsigned int p, l;

	(void)state;
	start(NULL);
	s.ip = sw_ip();
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_JOIN, 0, p, 0);
		struct tf_addr a = host(p);

		h.root = WORLD;
		acis_hdr_encode(&h, msg);
		l = tf_udp(f, &s, &a, (uint16_t)(SPORT_BASE + p),
			   ACIS_DEFAULT_UDP_PORT, msg, ACIS_HDR_LEN, -1);
		f[ACIS_ETH_HLEN + ACIS_IPV4_MIN_HLEN + 6] = 0;
		f[ACIS_ETH_HLEN + ACIS_IPV4_MIN_HLEN + 7] = 0;
		inject(p, f, l);
	}
	run();
	expect_quiet();
	assert_int_equal(drops(ACIS_DROP_CTRL_NO_CSUM), WORLD);
	assert_null(acis_ct_job(g_sw.coll.ct, JOB));
	join_all();
	assert_int_equal(drops(ACIS_DROP_CTRL_NO_CSUM), WORLD);
	finish();
}

/* A recorded job replayed (what acis_pcap.py writes and pktgen loops):
 * JOIN, an allreduce on the world alias with its receipts, LEAVE. The
 * same messages again are a new job with a new world, whose collective
 * is answered again instead of dropped as a copy of a closed one; the
 * answers name the real id. A job that is not there has no world. */
static void
test_world_alias_makes_a_recorded_job_valid_when_replayed(void **state)
{
	static int32_t in[WORLD][64], want[64];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	uint32_t world[2];
	unsigned int pass, i, r;

	(void)state;
	for (i = 0; i < 64; i++) {
		want[i] = 0;
		for (r = 0; r < WORLD; r++) {
			in[r][i] = (int32_t)(r * 100 + i);
			want[i] += in[r][i];
		}
	}
	start(LINGER);
	for (pass = 0; pass < 2; pass++) {
		world[pass] = join_all();
		for (r = 0; r < WORLD; r++)
			contribute(r, &o, ACIS_CTX_WORLD, r, 0, 0, in[r]);
		run();
		drain();
		for (r = 0; r < WORLD; r++) {
			const struct reply *res = only(r, ACIS_T_RESULT);

			expect_result_hdr(res, &o, world[pass], 0, 0, r);
			expect_payload(res, want, sizeof(want));
		}
		for (r = 0; r < WORLD; r++)
			confirm(r, &o, ACIS_CTX_WORLD, r, 0, 1);
		run();
		expect_quiet();
		assert_int_equal(slot_stats().in_use, 0);
		for (r = 0; r < WORLD; r++) {
			struct acis_hdr h = ctrl_hdr(ACIS_CTRL_LEAVE, 0, r, 0);

			send_as(r, &h, NULL);
		}
		run();
		drain();
		for (r = 0; r < WORLD; r++)
			assert_int_equal(only(r, ACIS_T_CTRL_ACK)->h.status,
					 ACIS_S_OK);
	}
	assert_int_not_equal(world[0], world[1]);
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 0);
	assert_int_equal(coll_stats().late_copies, 0);
	assert_int_equal(coll_stats().world_alias, 2 * 2 * WORLD);
	contribute(0, &o, ACIS_CTX_WORLD, 0, 1, 0, in[0]);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_NACK)->h.status, ACIS_S_NO_COMM);
	assert_int_equal(only(0, ACIS_T_NACK)->h.comm, ACIS_CTX_WORLD);
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_COMM), 1);
	finish();
}

/* The fault stage's duplicate of a result whose payload is a shared,
 * chained segment: both copies carry the result, and the segment is
 * referenced once more for the copy (not only the headers), so every
 * mbuf returns to the pool once, at the end. */
static void
test_duplicated_shared_results_keep_their_payload(void **state)
{
	enum { N = 64 };
	static float in[WORLD][N], want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	char cmd[32], msg[128];
	uint32_t world;
	unsigned int i, p, k;

	(void)state;
	for (i = 0; i < N; i++) {
		want[i] = 0;
		for (p = 0; p < WORLD; p++) {
			in[p][i] = (float)(p * 100 + i);
			want[i] += in[p][i];
		}
	}
	start(LINGER);
	world = join_all();
	for (p = 0; p < NPORTS; p++) {
		snprintf(cmd, sizeof(cmd), "p%u,duplicate=1", p);
		assert_true(acis_fault_set(cmd, msg, sizeof(msg)) >= 0);
	}
	for (k = 0; k < 3; k++) {
		unsigned int chained = chained_frames();

		for (p = 0; p < WORLD; p++)
			contribute(p, &o, world, p, k, 0, in[p]);
		run();
		drain();
		for (p = 0; p < WORLD; p++) {
			expect_count(p, 2);
			for (i = 0; i < 2; i++) {
				const struct reply *r = &inbox[p].r[i];

				assert_int_equal(r->h.type, ACIS_T_RESULT);
				expect_result_hdr(r, &o, world, k, 0, p);
				expect_payload(r, want, sizeof(want));
			}
		}
		/* both copies chain the one payload segment */
		assert_int_equal(chained_frames() - chained, 2 * WORLD);
	}
	for (p = 0; p < NPORTS; p++) {
		snprintf(cmd, sizeof(cmd), "p%u,off", p);
		assert_true(acis_fault_set(cmd, msg, sizeof(msg)) >= 0);
	}
	finish();
}

static void
test_allreduce_int32_sum_wraps_in_every_arrival_order(void **state)
{
	enum { N = 64 };
	static int32_t in[WORLD][N];
	static uint32_t want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	unsigned int i, r, wrapped = 0;

	(void)state;
	for (i = 0; i < N; i++) {
		int64_t exact = 0;

		in[0][i] = INT32_MAX - (int32_t)i;
		in[1][i] = INT32_MAX / 2 + 3 * (int32_t)i;
		in[2][i] = INT32_MIN + 5 * (int32_t)i;
		in[3][i] = i % 2 ? INT32_MAX : -7 * (int32_t)i;
		want[i] = 0;
		for (r = 0; r < WORLD; r++) {
			want[i] += (uint32_t)in[r][i]; /* modulo 2^32 */
			exact += in[r][i];
		}
		wrapped += exact > INT32_MAX || exact < INT32_MIN;
	}
	assert_true(wrapped > 0);
	start(LINGER);
	allreduce_in_every_order(&o, bufs, want);
	finish();
}

/* With a worker's slots holding their share of the pool (here one mbuf),
 * a slot opened beyond it keeps its first contribution in its own memory
 * instead: the results are the same, the copies are counted, and every
 * mbuf comes back. */
static void
test_slots_beyond_their_share_of_the_pool_copy(void **state)
{
	enum { N = 3 * CHUNK / 4 };
	static int32_t in[WORLD][N], want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	struct acis_coll_stats cs;
	struct acis_agg_stats as;
	uint32_t world, c, cpr = (uint32_t)chunks_per_block(&o);
	unsigned int i, r, p;

	(void)state;
	assert_int_equal(cpr, 3);
	for (i = 0; i < N; i++) {
		want[i] = 0;
		for (r = 0; r < WORLD; r++) {
			in[r][i] = (int32_t)(i * 7) - (int32_t)(r * 1000);
			want[i] += in[r][i];
		}
	}
	start(LINGER);
	assert_non_null(g_sw.coll.shards[0]);
	acis_agg_set_lend_max(g_sw.coll.shards[0]->agg, 1);
	world = join_all();
	/* rank 0 opens the three slots: the first keeps its mbuf */
	for (r = 0; r < WORLD; r++)
		for (c = 0; c < cpr; c++)
			contribute(r, &o, world, r, 0, c, in[r]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		for (c = 0; c < cpr; c++) {
			const struct reply *rp = one(p, ACIS_T_RESULT, c);

			expect_result_hdr(rp, &o, world, 0, c, p);
			expect_payload(rp, (const uint8_t *)want + c * CHUNK,
				       (uint16_t)RTE_MIN((uint32_t)CHUNK,
						sizeof(want) - c * CHUNK));
		}
	acis_coll_stats_sum(&cs, &as);
	assert_int_equal(cs.zero_copy, 1);
	assert_int_equal(as.lend_refused, cpr - 1);
	assert_int_equal(as.lent, 1);
	for (p = 0; p < WORLD; p++)
		confirm(p, &o, world, p, 0, cpr);
	run();
	assert_int_equal(slot_stats().in_use, 0);
	acis_coll_stats_sum(&cs, &as);
	assert_int_equal(as.lent, 0);
	finish();
}

/* float16 accumulates in float32 and is rounded once at the end, so its
 * first contribution cannot be the accumulator: the sum must still be the
 * rank-order float32 sum rounded once, in every arrival order. */
static void
test_allreduce_float16_sum_is_rounded_once_in_every_arrival_order(void **state)
{
	enum { N = 48 };
	static uint16_t in[WORLD][N], want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT16, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	unsigned int i, r, once = 0;

	(void)state;
	for (i = 0; i < N; i++) {
		float acc, step;

		in[0][i] = acis_f32_to_f16(2048.0f + (float)i);
		in[1][i] = acis_f32_to_f16(0.5f * (float)(i % 3));
		in[2][i] = acis_f32_to_f16(0.25f + (float)i / 64.0f);
		in[3][i] = acis_f32_to_f16(-1.0f - (float)(i % 5));
		acc = acis_f16_to_f32(in[0][i]);
		step = acc;
		for (r = 1; r < WORLD; r++) {
			acc += acis_f16_to_f32(in[r][i]);
			/* rounding to float16 at every step instead */
			step = acis_f16_to_f32(acis_f32_to_f16(
				step + acis_f16_to_f32(in[r][i])));
		}
		want[i] = acis_f32_to_f16(acc);
		once += want[i] != acis_f32_to_f16(step);
	}
	assert_true(once > 0); /* the test tells one rounding from three */
	start(LINGER);
	allreduce_in_every_order(&o, bufs, want);
	finish();
}

static void
test_allreduce_float64_min_gives_the_same_bits_in_every_arrival_order(void **state)
{
	enum { N = 40 };
	static double in[WORLD][N], want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT64, ACIS_OP_MIN,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	unsigned int i, r;

	(void)state;
	for (i = 0; i < N; i++)
		for (r = 0; r < WORLD; r++)
			in[r][i] = (double)((i * 37 + r * 11) % 23) - 11.5;
	/* NaNs of every kind, from different ranks: the result is the
	 * canonical quiet NaN, whichever NaN came first */
	in[0][0] = from_bits64(UINT64_C(0x7ff0000000000001)); /* signalling */
	in[3][1] = from_bits64(UINT64_C(0xfff8000000000000)); /* negative */
	in[1][2] = from_bits64(UINT64_C(0x7ff800000000dead)); /* payload */
	in[2][2] = from_bits64(UINT64_C(0xfff0000000000002));
	/* -0 < +0, wherever the -0 comes from */
	for (r = 0; r < WORLD; r++) {
		in[r][3] = 0.0;
		in[r][4] = 0.0;
	}
	in[2][3] = -0.0;
	in[0][4] = -0.0;
	in[1][5] = from_bits64(UINT64_C(0xfff0000000000000)); /* -inf */
	for (i = 0; i < N; i++) {
		int any_nan = 0;
		double m = in[0][i];

		for (r = 0; r < WORLD; r++) {
			any_nan |= in[r][i] != in[r][i];
			if (in[r][i] < m || (in[r][i] == m &&
					     (bits64(in[r][i]) >> 63)))
				m = in[r][i];
		}
		want[i] = any_nan ? from_bits64(QNAN64) : m;
	}
	assert_int_equal(bits64(want[0]), QNAN64);
	assert_int_equal(bits64(want[3]), UINT64_C(0x8000000000000000));
	start(LINGER);
	allreduce_in_every_order(&o, bufs, want);
	finish();
}

/* a OP b for the 8 and 16-bit integers, from C's own arithmetic on the
 * type: sums and products keep the low bits, min and max compare the
 * values the bits stand for. */
static uint32_t
narrow_fold(unsigned int dtype, unsigned int op, uint32_t a, uint32_t b)
{
	uint32_t mask = dtype == ACIS_INT8 || dtype == ACIS_UINT8 ? 0xff :
								     0xffff;
	int32_t va = dtype == ACIS_INT8 ? (int8_t)a :
		     dtype == ACIS_INT16 ? (int16_t)a : (int32_t)a;
	int32_t vb = dtype == ACIS_INT8 ? (int8_t)b :
		     dtype == ACIS_INT16 ? (int16_t)b : (int32_t)b;

	switch (op) {
	case ACIS_OP_SUM:
		return (a + b) & mask;
	case ACIS_OP_PROD:
		return (a * b) & mask;
	case ACIS_OP_MIN:
		return va < vb ? a : b;
	case ACIS_OP_MAX:
		return va > vb ? a : b;
	case ACIS_OP_BAND:
		return a & b;
	case ACIS_OP_BOR:
		return a | b;
	default:
		return a ^ b;
	}
}

/* The element i of rank r's buffer (size bytes, little endian). */
static uint32_t
narrow_get(const uint8_t *buf, size_t size, unsigned int i)
{
	return size == 1 ? buf[i] : (uint32_t)(buf[2 * i] | buf[2 * i + 1] << 8);
}

static void
narrow_put(uint8_t *buf, size_t size, unsigned int i, uint32_t v)
{
	buf[size * i] = (uint8_t)v;
	if (size == 2)
		buf[2 * i + 1] = (uint8_t)(v >> 8);
}

/*
 * An 8 or 16-bit integer allreduce with every op, each in every arrival
 * order: sums and products wrap, min and max compare as the type's sign
 * says, and the first contribution's mbuf is the accumulator. 77 elements,
 * an odd count: vectors and a tail in every kernel variant. Every rank
 * confirms each result, so the slots close before the next op's.
 */
static void
allreduce_narrow_with_every_op(unsigned int dtype)
{
	enum { N = 77 };
	static uint8_t in[WORLD][2 * N], want[2 * N];
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	int is_signed = dtype == ACIS_INT8 || dtype == ACIS_INT16;
	size_t size = dtype == ACIS_INT8 || dtype == ACIS_UINT8 ? 1 : 2;
	uint32_t mask = size == 1 ? 0xff : 0xffff, top = (mask >> 1) + 1;
	/* the largest, the smallest, -1 (or the largest unsigned), 1 */
	const uint32_t edge[4] = {top - 1, top, mask, 1};
	/* int8 and uint8, int16 and uint16 are neighbours */
	unsigned int other_sign = is_signed ? dtype + 1 : dtype - 1;
	unsigned int op, i, r, k, p, wrapped = 0, sign_told = 0;
	uint32_t world, seq0 = 0;

	for (i = 0; i < N; i++) {
		int64_t exact = 0;

		for (r = 0; r < WORLD; r++) {
			uint32_t v = i % 5 == 0 ?
					     edge[(r + i / 5) % 4] :
					     ((i + 1) * 2654435761u ^
					      (r + 1) * 40503u * (i + 7)) >> 9;

			narrow_put(in[r], size, i, v & mask);
			exact += is_signed && (v & top) ?
					 (int64_t)(v & mask) - (mask + 1) :
					 (int64_t)(v & mask);
		}
		wrapped += exact > (int64_t)(is_signed ? top - 1 : mask) ||
			   exact < (is_signed ? -(int64_t)top : 0);
	}
	assert_true(wrapped > 0); /* sums that leave the type's range */
	start(LINGER);
	for (op = ACIS_OP_SUM; op <= ACIS_OP_BXOR; op++) {
		const struct coll_spec o = {ACIS_C_ALLREDUCE, (uint8_t)dtype,
					    (uint8_t)op, ACIS_RANK_NONE,
					    N * size, CHUNK};

		for (i = 0; i < N; i++) {
			uint32_t acc = narrow_get(in[0], size, i);
			uint32_t other = acc; /* min with the other sign */

			for (r = 1; r < WORLD; r++) {
				uint32_t v = narrow_get(in[r], size, i);

				acc = narrow_fold(dtype, op, acc, v);
				other = narrow_fold(other_sign, op, other, v);
			}
			narrow_put(want, size, i, acc);
			sign_told += op == ACIS_OP_MIN && acc != other;
		}
		world = allreduce_in_every_order_from(&o, bufs, want, seq0);
		for (k = 0; k < ORDERS; k++) {
			for (p = 0; p < WORLD; p++)
				confirm(p, &o, world, p, seq0 + k, 1);
			run_quiet();
		}
		assert_int_equal(slot_stats().in_use, 0);
		seq0 += ORDERS;
	}
	/* min of the signed type differs from the unsigned one's */
	assert_true(sign_told > 0);
	finish();
}

static void
test_allreduce_int8_with_every_op_in_every_arrival_order(void **state)
{
	(void)state;
	allreduce_narrow_with_every_op(ACIS_INT8);
}

static void
test_allreduce_uint8_with_every_op_in_every_arrival_order(void **state)
{
	(void)state;
	allreduce_narrow_with_every_op(ACIS_UINT8);
}

static void
test_allreduce_int16_with_every_op_in_every_arrival_order(void **state)
{
	(void)state;
	allreduce_narrow_with_every_op(ACIS_INT16);
}

static void
test_allreduce_uint16_with_every_op_in_every_arrival_order(void **state)
{
	(void)state;
	allreduce_narrow_with_every_op(ACIS_UINT16);
}

/* ---- tests: duplicates ---- */

static void
test_duplicate_contribution_is_dropped_and_not_added_twice(void **state)
{
	enum { N = 16 };
	static int32_t in[WORLD][N], want[N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	uint32_t world;
	unsigned int i, r;

	(void)state;
	for (i = 0; i < N; i++) {
		want[i] = 0;
		for (r = 0; r < WORLD; r++) {
			in[r][i] = (int32_t)((r + 1) * 1000 + i);
			want[i] += in[r][i];
		}
	}
	start(LINGER);
	world = join_all();
	contribute(0, &o, world, 0, 0, 0, in[0]);
	contribute(0, &o, world, 0, 0, 0, in[0]);
	run();
	drain();
	/* the repeat is answered PENDING: "have it, waiting for others" */
	assert_int_equal(only(0, ACIS_T_NACK)->h.status, ACIS_S_PENDING);
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 1);
	for (r = 1; r < WORLD; r++)
		contribute(r, &o, world, r, 0, 0, in[r]);
	run();
	drain();
	for (r = 0; r < WORLD; r++) {
		const struct reply *res = only(r, ACIS_T_RESULT);

		expect_result_hdr(res, &o, world, 0, 0, r);
		expect_payload(res, want, sizeof(want));
	}
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 1);
	finish();
}

static void
test_duplicate_of_a_held_contribution_is_dropped_and_not_folded_twice(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	static const unsigned int later[] = {3, 1, 0};
	uint32_t world;
	unsigned int i, r;

	(void)state;
	fill_f32(in);
	for (i = 0; i < F32_N; i++)
		in[2][i] += 0.5f; /* cannot vanish: -1e8 + 0.5 is not -1e8 */
	sum_f32_rank_order(in, want);
	start(LINGER);
	world = join_all();
	/* rank 2 is early: held until ranks 0 and 1 are folded */
	contribute(2, &o, world, 2, 0, 0, in[2]);
	run_quiet();
	contribute(2, &o, world, 2, 0, 0, in[2]);
	run();
	drain();
	assert_int_equal(only(2, ACIS_T_NACK)->h.status, ACIS_S_PENDING);
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 1);
	assert_int_equal(coll_stats().held, 1);
	for (i = 0; i < RTE_DIM(later); i++)
		contribute(later[i], &o, world, later[i], 0, 0, in[later[i]]);
	run();
	drain();
	for (r = 0; r < WORLD; r++)
		expect_payload(only(r, ACIS_T_RESULT), want, sizeof(want));
	finish();
}

/* ---- tests: the other collectives ---- */

static void
test_reduce_sends_the_result_to_the_root_and_acks_to_the_others(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_REDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    2, sizeof(want), CHUNK};
	static const unsigned int order[WORLD] = {3, 0, 2, 1};
	const struct reply *r;
	uint32_t world;
	unsigned int i, p;

	(void)state;
	fill_f32(in);
	sum_f32_rank_order(in, want);
	start(LINGER);
	world = join_all();
	for (i = 0; i < WORLD; i++) {
		contribute(order[i], &o, world, order[i], 0, 0, in[order[i]]);
		run();
		if (i + 1 < WORLD)
			expect_quiet();
	}
	drain();
	r = only(2, ACIS_T_RESULT);
	expect_result_hdr(r, &o, world, 0, 0, 2);
	assert_false(r->h.flags & ACIS_F_MULTICAST);
	expect_payload(r, want, sizeof(want));
	for (p = 0; p < WORLD; p++) {
		if (p == 2)
			continue;
		expect_count(p, 1);
		expect_ack(p, &o, world, 0, 0);
		assert_false(inbox[p].listed[0]); /* one chunk: a plain ACK */
	}
	finish();
}

static void
test_gather_of_small_blocks_sends_the_root_one_packed_result(void **state)
{
	static uint32_t in[WORLD][2];
	const struct coll_spec o = {ACIS_C_GATHER, ACIS_UINT32, ACIS_OP_NONE,
				    1, sizeof(in[0]), CHUNK};
	static const unsigned int order[WORLD] = {3, 1, 0, 2};
	const struct reply *r;
	uint32_t world;
	unsigned int i, p;

	(void)state;
	for (p = 0; p < WORLD; p++) {
		in[p][0] = 0xa0000000u | p << 8 | 1;
		in[p][1] = 0xb0000000u | p << 8 | 2;
	}
	start(LINGER);
	world = join_all();
	for (i = 0; i < WORLD; i++) {
		contribute(order[i], &o, world, order[i], 0, 0, in[order[i]]);
		run();
		if (i + 1 < WORLD)
			expect_quiet();
	}
	drain();
	r = only(1, ACIS_T_RESULT);
	assert_true(r->h.flags & ACIS_F_PACKED);
	assert_false(r->h.flags & ACIS_F_MULTICAST);
	assert_int_equal(r->h.comm, world);
	assert_int_equal(r->h.seq, 0);
	assert_int_equal(r->h.chunk, 0);
	expect_payload(r, in, sizeof(in)); /* every block, in rank order */
	for (p = 0; p < WORLD; p++) {
		if (p == 1)
			continue;
		expect_count(p, 1);
		expect_ack(p, &o, world, 0, 0);
	}
	finish();
}

static void
test_allgather_of_small_blocks_sends_everyone_one_packed_result(void **state)
{
	static uint32_t in[WORLD][2];
	const struct coll_spec o = {ACIS_C_ALLGATHER, ACIS_UINT32, ACIS_OP_NONE,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	static const unsigned int order[WORLD] = {2, 0, 3, 1};
	uint32_t world;
	unsigned int i, p;

	(void)state;
	for (p = 0; p < WORLD; p++) {
		in[p][0] = 0xc0000000u | p << 8 | 1;
		in[p][1] = 0xd0000000u | p << 8 | 2;
	}
	start(LINGER);
	world = join_all();
	for (i = 0; i < WORLD; i++) {
		contribute(order[i], &o, world, order[i], 0, 0, in[order[i]]);
		run();
		if (i + 1 < WORLD)
			expect_quiet();
	}
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_RESULT);

		assert_true(r->h.flags & ACIS_F_PACKED);
		assert_true(r->h.flags & ACIS_F_MULTICAST);
		assert_int_equal(r->h.comm, world);
		assert_int_equal(r->h.seq, 0);
		assert_int_equal(r->h.chunk, 0);
		expect_payload(r, in, sizeof(in));
	}
	assert_int_equal(chained_frames(), WORLD);
	finish();
}

static void
test_bcast_forwards_every_chunk_of_the_root_to_every_other_rank(void **state)
{
	enum { MSG = 3000 };
	static uint8_t msg[MSG];
	const struct coll_spec o = {ACIS_C_BCAST, ACIS_UINT32, ACIS_OP_NONE,
				    1, MSG, CHUNK};
	uint32_t world, c, cpr = (uint32_t)chunks_per_block(&o);
	unsigned int i, p;

	(void)state;
	assert_int_equal(cpr, 3); /* 1416 + 1416 + 168 */
	for (i = 0; i < MSG; i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	start(LINGER);
	world = join_all();
	for (c = 0; c < cpr; c++)
		contribute(1, &o, world, 1, 0, c, msg);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		expect_count(p, p == 1 ? 0 : cpr); /* the root waits */
		for (c = 0; c < cpr && p != 1; c++) {
			const struct reply *r;

			r = one(p, ACIS_T_RESULT, c);
			expect_result_hdr(r, &o, world, 0, c, p);
			assert_int_equal(r->h.root, 1);
			expect_payload(r, msg + c * CHUNK,
				       (uint16_t)RTE_MIN((uint32_t)CHUNK,
							 MSG - c * CHUNK));
		}
	}
	/* kept until every receiver confirms, in the root's own frames
	 * (every receiver's frame chains the block); then the root is
	 * answered */
	assert_int_equal(slot_stats().in_use, cpr);
	{
		struct acis_coll_stats cs;
		struct acis_agg_stats as;

		acis_coll_stats_sum(&cs, &as);
		assert_int_equal(cs.zero_copy, cpr);
		assert_int_equal(cs.results_shared, cpr * (WORLD - 1));
	}
	confirm(0, &o, world, 0, 0, cpr);
	confirm(2, &o, world, 2, 0, cpr);
	run_quiet();
	confirm(3, &o, world, 3, 0, cpr);
	run();
	drain();
	expect_count(1, cpr);
	for (c = 0; c < cpr; c++)
		expect_ack(1, &o, world, 0, c);
	/* the last receipts closed every chunk in one burst: one ACK frame
	 * lists them all */
	assert_int_equal(inbox[1].frames, 1);
	assert_true(inbox[1].listed[0]);
	{
		struct acis_coll_stats cs;
		struct acis_agg_stats as;

		acis_coll_stats_sum(&cs, &as);
		assert_int_equal(cs.acks, 1);
		assert_int_equal(cs.ack_chunks, cpr);
	}
	assert_int_equal(slot_stats().in_use, 0);
	finish();
}

static void
test_alltoall_routes_each_block_once_tagged_with_its_sender(void **state)
{
	/* 3000 bytes a block: 3 chunks (1416 + 1416 + 168); rank i's
	 * block j (bytes of value i * 16 + j, varying) goes to rank j */
	enum { MSG = 3000 };
	static uint8_t in[WORLD][WORLD * MSG];
	const struct coll_spec o = {ACIS_C_ALLTOALL, ACIS_UINT8, ACIS_OP_NONE,
				    ACIS_RANK_NONE, MSG, CHUNK};
	uint32_t world, c, cpr = (uint32_t)chunks_per_block(&o);
	unsigned int i, j, k, p;

	(void)state;
	assert_int_equal(cpr, 3);
	for (i = 0; i < WORLD; i++)
		for (k = 0; k < WORLD * MSG; k++)
			in[i][k] = (uint8_t)(i * 16 + k / MSG + k * 3);
	start(LINGER);
	world = join_all();
	/* every rank sends its blocks for the others, and one for itself,
	 * which is refused: a rank keeps its own block */
	for (i = 0; i < WORLD; i++)
		for (j = 0; j < WORLD; j++)
			for (c = 0; c < cpr; c++)
				contribute(i, &o, world, i, 0, j * cpr + c,
					   in[i]);
	run();
	drain();
	assert_int_equal(drops(ACIS_DROP_ACIS_BAD_CHUNK), WORLD * cpr);
	for (p = 0; p < WORLD; p++) {
		/* the blocks of the three others, no ACK yet */
		expect_count(p, (WORLD - 1) * cpr);
		for (k = 0; k < inbox[p].n; k++) {
			const struct reply *r = &inbox[p].r[k];

			i = r->h.rank; /* the sender */
			assert_true(i < WORLD && i != p);
			expect_result_hdr(r, &o, world, 0, r->h.chunk, i);
			assert_true(r->h.chunk < cpr);
			expect_payload(r, in[i] + (size_t)p * MSG +
					  r->h.chunk * CHUNK,
				       (uint16_t)RTE_MIN((uint32_t)CHUNK,
							 MSG - r->h.chunk * CHUNK));
		}
	}
	assert_int_equal(slot_stats().in_use, WORLD * (WORLD - 1) * cpr);
	/* rank 2 confirms what rank 0 sent it (keys (0 * P + 2) * cpr + c):
	 * rank 0 hears its block to 2 was delivered, chunk 2 * cpr + c */
	confirm_keys(2, &o, world, 2, 0, (0 * WORLD + 2) * cpr, cpr);
	run();
	drain();
	expect_count(0, cpr);
	for (c = 0; c < cpr; c++)
		expect_ack(0, &o, world, 0, 2 * cpr + c);
	for (p = 1; p < WORLD; p++)
		expect_count(p, 0);
	/* every other receipt: every sender gets the rest of its ACKs and
	 * every slot closes */
	for (p = 0; p < WORLD; p++)
		for (i = 0; i < WORLD; i++)
			if (i != p && !(p == 2 && i == 0))
				confirm_keys(p, &o, world, p, 0,
					     (i * WORLD + p) * cpr, cpr);
	run();
	drain();
	for (i = 0; i < WORLD; i++)
		for (j = 0; j < WORLD; j++)
			for (c = 0; c < cpr && j != i && !(i == 0 && j == 2);
			     c++)
				expect_ack(i, &o, world, 0, j * cpr + c);
	assert_int_equal(slot_stats().in_use, 0);
	finish();
}

/* Port p's one DEADLINE answer, beside any signals a slow walk sent
 * with it (a period of 100 us passes between two walks of a loaded
 * machine). */
static const struct reply *
answer_among_signals(unsigned int p)
{
	const struct reply *answer = NULL;
	unsigned int k;

	for (k = 0; k < inbox[p].n; k++) {
		const struct reply *a = &inbox[p].r[k];

		assert_int_equal(a->h.type, ACIS_T_CTRL_ACK);
		if (a->h.flags & ACIS_F_MULTICAST)
			continue;
		assert_null(answer);
		answer = a;
	}
	assert_non_null(answer);
	return answer;
}

/* The switch steering progress (doc/sync.md): refusals name the
 * problem; a deadline signals every member; an SSP barrier answers
 * continue to the members it releases. */
static void
test_deadline_and_ssp_answer_members_and_refuse_the_rest(void **state)
{
	struct acis_hdr h;
	const struct reply *r;
	uint32_t world;
	unsigned int p, signals;

	(void)state;
	start(LINGER);
	world = join_all();
	/* an unknown communicator, a sender that is not the rank it names,
	 * a period out of range */
	h = ctrl_hdr(ACIS_CTRL_DEADLINE, world + 1, 0, 0);
	h.msg_size = 1000;
	send_as(0, &h, NULL);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_CTRL_ACK)->h.status, ACIS_S_NO_COMM);
	h = ctrl_hdr(ACIS_CTRL_DEADLINE, world, 2, 0);
	h.msg_size = 1000;
	send_as(1, &h, NULL);
	run();
	drain();
	assert_int_equal(only(1, ACIS_T_CTRL_ACK)->h.status,
			 ACIS_S_NOT_MEMBER);
	h = ctrl_hdr(ACIS_CTRL_DEADLINE, world, 1, 0);
	h.msg_size = 50; /* below 100 us */
	send_as(1, &h, NULL);
	run();
	drain();
	assert_int_equal(only(1, ACIS_T_CTRL_ACK)->h.status, ACIS_S_BAD_ARGS);
	/* a 100 us period: every member hears epoch 1's signal */
	h.msg_size = 100;
	send_as(1, &h, NULL);
	run();
	drain();
	r = answer_among_signals(1);
	assert_int_equal(r->h.status, ACIS_S_OK);
	assert_int_equal(r->h.opcode, ACIS_CTRL_DEADLINE);
	run_for(2);
	drain();
	signals = 0;
	for (p = 0; p < WORLD; p++) {
		unsigned int k;
		uint32_t prev = 0;

		assert_true(inbox[p].n >= 1);
		for (k = 0; k < inbox[p].n; k++) {
			const struct acis_hdr *s = &inbox[p].r[k].h;

			assert_int_equal(s->type, ACIS_T_CTRL_ACK);
			assert_int_equal(s->opcode, ACIS_CTRL_DEADLINE);
			assert_true(s->flags & ACIS_F_MULTICAST);
			assert_int_equal(s->chunk, 2);
			assert_int_equal(s->comm, world);
			assert_int_equal(s->rank, p);
			/* epochs in order (a walk that came late names the
			 * epoch where time stands) */
			assert_true(s->seq > prev);
			prev = s->seq;
			signals++;
		}
	}
	/* stopped: no more signals (the walk that takes the stop may send
	 * one more first, on a slow machine: the period is 100 us) */
	h.msg_size = 0;
	send_as(1, &h, NULL);
	run();
	drain();
	assert_int_equal(answer_among_signals(1)->h.status, ACIS_S_OK);
	run_for(2);
	expect_quiet();
	/* a report of an epoch already signalled is late */
	h = ctrl_hdr(ACIS_CTRL_DEADLINE, world, 2, 1);
	h.chunk = 1;
	send_as(2, &h, NULL);
	run();
	drain();
	r = only(2, ACIS_T_CTRL_ACK);
	assert_int_equal(r->h.status, ACIS_S_OK);
	assert_int_equal(r->h.root, 1);
	/* SSP, staleness 0: nobody goes on until the last member is done */
	for (p = 0; p + 1 < WORLD; p++) {
		h = ctrl_hdr(ACIS_CTRL_SSP, world, p, 1);
		h.root = 0;
		h.chunk = 0;
		send_as(p, &h, NULL);
		run_quiet();
	}
	h = ctrl_hdr(ACIS_CTRL_SSP, world, WORLD - 1, 1);
	h.root = 0;
	h.chunk = 0;
	send_as(WORLD - 1, &h, NULL);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		r = only(p, ACIS_T_CTRL_ACK);
		assert_int_equal(r->h.opcode, ACIS_CTRL_SSP);
		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.seq, 1);
		assert_int_equal(r->h.rank, p);
	}
	/* iteration 0 is no iteration */
	h = ctrl_hdr(ACIS_CTRL_SSP, world, 0, 0);
	send_as(0, &h, NULL);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_CTRL_ACK)->h.status, ACIS_S_BAD_ARGS);
	{
		struct acis_sync_totals t;

		acis_sync_totals(g_sw.coll.sync, &t);
		/* and any a slow walk sent beside the answers */
		assert_true(t.signals >= signals &&
			    t.signals <= signals + 2 * WORLD);
		assert_int_equal(t.late, 1);
		assert_int_equal(t.continues, WORLD);
	}
	finish();
}

static void
test_reduce_scatter_sends_each_rank_only_its_own_block(void **state)
{
	/* Six int32 per block in chunks of 16 bytes: two chunks a block, the
	 * second short, so DATA chunk b * 2 + c is chunk c of block b. */
	enum { E = 6, CPR = 2 };
	static int32_t in[WORLD][WORLD * E], want[WORLD][E];
	const struct coll_spec o = {ACIS_C_REDUCE_SCATTER, ACIS_INT32,
				    ACIS_OP_SUM, ACIS_RANK_NONE,
				    E * sizeof(int32_t), 16};
	uint32_t world, b, c;
	unsigned int r, e, p;

	(void)state;
	assert_int_equal(chunks_per_block(&o), CPR);
	for (b = 0; b < WORLD; b++)
		for (e = 0; e < E; e++) {
			want[b][e] = 0;
			for (r = 0; r < WORLD; r++) {
				int32_t v = (int32_t)(r * 1000 + b * 100 + e);

				in[r][b * E + e] = v;
				want[b][e] += v;
			}
		}
	start(LINGER);
	world = join_all();
	for (r = 0; r < WORLD; r++) {
		for (b = 0; b < WORLD; b++)
			for (c = 0; c < CPR; c++)
				contribute(r, &o, world, r, 0, b * CPR + c,
					   in[r]);
		run();
		if (r + 1 < WORLD)
			expect_quiet();
	}
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *res;

		/* two RESULTs (its block) and an ACK per other block's chunk;
		 * the six ACKs of the burst in two frames, a 16-byte chunk
		 * holding four chunk numbers */
		expect_count(p, CPR + (WORLD - 1) * CPR);
		assert_int_equal(inbox[p].frames, CPR + 2);
		for (c = 0; c < CPR; c++) {
			res = one(p, ACIS_T_RESULT, c);
			expect_result_hdr(res, &o, world, 0, c, p);
			assert_false(res->h.flags & ACIS_F_MULTICAST);
			expect_payload(res, &want[p][c * 4],
				       (uint16_t)(c == 0 ? 16 : 8));
		}
		for (b = 0; b < WORLD; b++)
			for (c = 0; c < CPR && b != p; c++)
				expect_ack(p, &o, world, 0, b * CPR + c);
	}
	finish();
}

static void
test_barrier_completes_only_when_the_last_rank_arrives(void **state)
{
	const struct coll_spec o = {ACIS_C_BARRIER, 0, ACIS_OP_NONE,
				    ACIS_RANK_NONE, 0, CHUNK};
	static const unsigned int order[WORLD] = {1, 3, 0, 2};
	uint32_t world;
	unsigned int i, p;

	(void)state;
	start(LINGER);
	world = join_all();
	for (i = 0; i < WORLD; i++) {
		contribute(order[i], &o, world, order[i], 5, 0, NULL);
		run();
		if (i + 1 < WORLD)
			expect_quiet();
	}
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_RESULT);

		expect_result_hdr(r, &o, world, 5, 0, p);
		assert_true(r->h.flags & ACIS_F_MULTICAST);
		assert_int_equal(r->h.payload_len, 0);
	}
	finish();
}

/* ---- tests: refused contributions ---- */

static void
test_data_claiming_another_ranks_identity_is_dropped_not_member(void **state)
{
	static const int32_t v[2] = {1, 2};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(v), CHUNK};
	uint32_t world;

	(void)state;
	start(LINGER);
	world = join_all();
	contribute(0, &o, world, 1, 0, 0, v); /* host 0 says it is rank 1 */
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NOT_MEMBER), 1);
	assert_int_equal(slot_stats().opened, 0);
	finish();
}

/* A rank that joined with a cookie is held to it. Whatever comes from its
 * address and port without the cookie (a host that forges them knows
 * everything else) is dropped unanswered as acis_bad_auth: DATA, a
 * receipt, a NACK, a LEAVE, a JOIN. Everything the switch sends a rank
 * carries that rank's cookie, so the rank can tell the switch from a
 * forger too. */
static void
test_a_rank_is_held_to_the_cookie_it_joined_with(void **state)
{
	static const int32_t v[WORLD] = {1, 2, 3, 4};
	static const int32_t sum[1] = {10};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, 4, CHUNK};
	struct acis_hdr h;
	uint32_t world;
	unsigned int p;

	(void)state;
	start(LINGER);
	for (p = 0; p < WORLD; p++)
		cookie[p] = 0xc0c0a0000000ull + p * 0x10001;
	world = join_all();
	for (p = 0; p < WORLD; p++)
		assert_int_equal(only(p, ACIS_T_CTRL_ACK)->h.auth, cookie[p]);
	drain();
	/* host 0's address and port with a wrong cookie, then none */
	cookie[0] ^= 1;
	contribute(0, &o, world, 0, 0, 0, &v[0]);
	ask_again(0, &o, world, 0, 0, 0);
	confirm(0, &o, world, 0, 0, 1);
	h = ctrl_hdr(ACIS_CTRL_LEAVE, 0, 0, 0);
	send_as(0, &h, NULL);
	send_join(0, WORLD);
	cookie[0] = 0;
	contribute(0, &o, world, 0, 0, 0, &v[0]);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_BAD_AUTH), 6);
	assert_int_equal(slot_stats().opened, 0);
	/* rank 0 is still in, and the allreduce is the members' own */
	cookie[0] = 0xc0c0a0000000ull;
	for (p = 0; p < WORLD; p++) {
		contribute(p, &o, world, p, 0, 0, &v[p]);
		run();
	}
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_RESULT);

		expect_result_hdr(r, &o, world, 0, 0, p);
		expect_payload(r, sum, sizeof(sum));
		assert_int_equal(r->h.auth, cookie[p]);
	}
	for (p = 0; p < WORLD; p++)
		confirm(p, &o, world, p, 0, 1);
	run_quiet();
	for (p = 0; p < WORLD; p++) {
		h = ctrl_hdr(ACIS_CTRL_LEAVE, 0, p, 0);
		send_as(p, &h, NULL);
	}
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.auth, cookie[p]);
		cookie[p] = 0;
	}
	assert_int_equal(drops(ACIS_DROP_ACIS_BAD_AUTH), 6);
	finish();
}

/* [collective] auth = required: a JOIN without a cookie is refused AUTH
 * (counted auth_refused); with one it is taken. */
static void
test_auth_required_refuses_a_join_without_a_cookie(void **state)
{
	unsigned int p;

	(void)state;
	start(LINGER "auth = required\n");
	send_join(0, WORLD);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_CTRL_ACK)->h.status, ACIS_S_AUTH);
	assert_int_equal(coll_stats().auth_refused, 1);
	for (p = 0; p < WORLD; p++)
		cookie[p] = 0x77 + p;
	join_all();
	for (p = 0; p < WORLD; p++)
		cookie[p] = 0;
	assert_int_equal(coll_stats().auth_refused, 1);
	finish();
}

/* [collective] weights gives a job its weight in the fair share when it
 * joins; the others keep 1. */
static void
test_weights_give_a_job_its_share_weight(void **state)
{
	(void)state;
	start(LINGER "weights = 9:2, 7:3\n");
	join_all();
	assert_int_equal(acis_ct_job(g_sw.coll.ct, JOB)->weight, 3);
	finish();
	start(LINGER);
	join_all();
	assert_int_equal(acis_ct_job(g_sw.coll.ct, JOB)->weight, 0); /* 1 */
	finish();
}

/* DATA for a communicator the switch does not know is dropped and the
 * sender told at once (NACK NO_COMM: the switch lost or never had it),
 * so it fails now rather than at its timeout; a host's NACK too. A
 * receipt (ACK) needs no answer. */
static void
test_data_for_an_unknown_communicator_is_answered_no_comm(void **state)
{
	static const int32_t v[2] = {1, 2};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(v), CHUNK};
	uint32_t world, bad[2];
	unsigned int i;

	(void)state;
	start(LINGER);
	world = join_all();
	/* the world's index with the next generation, and an unused index */
	bad[0] = world + (1u << 16);
	bad[1] = world + 1;
	for (i = 0; i < 2; i++) {
		const struct reply *r;

		contribute(0, &o, bad[i], 0, 3, 0, v);
		run();
		drain();
		r = only(0, ACIS_T_NACK);
		assert_int_equal(r->h.status, ACIS_S_NO_COMM);
		assert_int_equal(r->h.comm, bad[i]);
		assert_int_equal(r->h.seq, 3);
	}
	ask_again(0, &o, bad[0], 0, 3, 0);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_NACK)->h.status, ACIS_S_NO_COMM);
	confirm(0, &o, bad[0], 0, 3, 1);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_COMM), 4);
	assert_int_equal(coll_stats().no_comm_nacks, 3);
	assert_int_equal(slot_stats().opened, 0);
	finish();
}

static void
test_contribution_disagreeing_with_its_slot_is_refused_nack_mismatch(void **state)
{
	static const float f[WORLD][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
	static const float want[2] = {16, 20};
	static const int32_t i32[2] = {3, 4};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(f[0]), CHUNK};
	struct coll_spec bad = o;
	const struct reply *r;
	uint32_t world;
	unsigned int p;

	(void)state;
	bad.dtype = ACIS_INT32;
	start(LINGER);
	world = join_all();
	contribute(0, &o, world, 0, 0, 0, f[0]);
	run_quiet();
	contribute(1, &bad, world, 1, 0, 0, i32);
	run();
	drain();
	r = only(1, ACIS_T_NACK);
	assert_int_equal(r->h.status, ACIS_S_MISMATCH);
	assert_int_equal(r->h.comm, world);
	assert_int_equal(r->h.seq, 0);
	assert_int_equal(r->h.chunk, 0);
	expect_count(0, 0);
	expect_count(2, 0);
	expect_count(3, 0);
	assert_int_equal(drops(ACIS_DROP_ACIS_MISMATCH), 1);
	/* the refused one was not counted: rank 1 can still contribute */
	for (p = 1; p < WORLD; p++)
		contribute(p, &o, world, p, 0, 0, f[p]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		expect_payload(only(p, ACIS_T_RESULT), want, sizeof(want));
	finish();
}

static void
test_full_slot_pool_answers_busy_until_a_slot_is_freed(void **state)
{
	/* 17 chunks of two int32; the pool has 16 slots */
	enum { SLOTS = 16, CHUNKS = SLOTS + 1, E = 2 * CHUNKS };
	static int32_t in[WORLD][E], want[E];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), 8};
	const struct reply *r;
	uint32_t world, c;
	unsigned int p, e;

	(void)state;
	for (e = 0; e < E; e++) {
		want[e] = 0;
		for (p = 0; p < WORLD; p++) {
			in[p][e] = (int32_t)(p * 100000 + e);
			want[e] += in[p][e];
		}
	}
	start("[collective]\nslots = 16\nlinger_ms = 200\n");
	world = join_all();
	assert_int_equal(slot_stats().capacity, SLOTS);
	for (c = 0; c < SLOTS; c++)
		contribute(0, &o, world, 0, 0, c, in[0]);
	run_quiet();
	assert_int_equal(slot_stats().in_use, SLOTS);
	/* no slot left for chunk 16 */
	contribute(0, &o, world, 0, 0, SLOTS, in[0]);
	run();
	drain();
	r = only(0, ACIS_T_NACK);
	assert_int_equal(r->h.status, ACIS_S_BUSY);
	assert_int_equal(r->h.chunk, SLOTS);
	assert_int_equal(r->h.seq, 0);
	assert_int_equal(r->h.comm, world);
	expect_count(1, 0);
	expect_count(2, 0);
	expect_count(3, 0);
	assert_int_equal(drops(ACIS_DROP_ACIS_BUSY), 1);
	/* chunk 0 completes; its slot is kept until every rank confirms */
	for (p = 1; p < WORLD; p++)
		contribute(p, &o, world, p, 0, 0, in[p]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		expect_payload(only(p, ACIS_T_RESULT), want, 8);
	assert_int_equal(slot_stats().in_use, SLOTS);
	for (p = 0; p < WORLD; p++)
		confirm(p, &o, world, p, 0, 1);
	run_quiet();
	assert_int_equal(slot_stats().in_use, SLOTS - 1);
	/* ... which the refused chunk, sent again, now takes */
	contribute(0, &o, world, 0, 0, SLOTS, in[0]);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_BUSY), 1);
	assert_int_equal(slot_stats().in_use, SLOTS);
	/* everyone else sends the rest, which completes every slot */
	for (p = 1; p < WORLD; p++)
		for (c = 1; c < CHUNKS; c++)
			contribute(p, &o, world, p, 0, c, in[p]);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		expect_count(p, CHUNKS - 1);
		for (c = 1; c < CHUNKS; c++)
			expect_payload(one(p, ACIS_T_RESULT, c), &want[c * 2],
				       8);
	}
	finish();
}

/* ---- tests: split communicators ---- */

static void
test_split_makes_one_communicator_per_color_ranked_by_key_then_rank(void **state)
{
	uint32_t world, ctx[WORLD], rank[WORLD];
	unsigned int p;

	(void)state;
	start(LINGER);
	world = join_all();
	split_world(world, ctx, rank);
	assert_int_equal(ctx[0], ctx[2]); /* color 0 */
	assert_int_equal(ctx[1], ctx[3]); /* color 1 */
	assert_int_not_equal(ctx[0], ctx[1]);
	for (p = 0; p < WORLD; p++)
		assert_int_not_equal(ctx[p], world);
	/* color 0: keys 5 (rank 0) and 1 (rank 2): rank 2 comes first */
	assert_int_equal(rank[2], 0);
	assert_int_equal(rank[0], 1);
	/* color 1: equal keys: parent rank order */
	assert_int_equal(rank[1], 0);
	assert_int_equal(rank[3], 1);
	finish();
}

static void
test_split_communicators_each_reduce_among_their_own_members(void **state)
{
	static const int32_t in[WORLD][4] = {
		{1, 2, 3, 4}, {10, 20, 30, 40},
		{100, 200, 300, 400}, {1000, 2000, 3000, 4000},
	};
	/* color 0 is world ranks 0 and 2, color 1 world ranks 1 and 3 */
	static const int32_t want[2][4] = {
		{101, 202, 303, 404}, {1010, 2020, 3030, 4040},
	};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world, ctx[WORLD], rank[WORLD];
	unsigned int p;

	(void)state;
	start(LINGER);
	world = join_all();
	split_world(world, ctx, rank);
	/* both communicators' seq 0, one member of each first */
	contribute(2, &o, ctx[2], rank[2], 0, 0, in[2]);
	contribute(1, &o, ctx[1], rank[1], 0, 0, in[1]);
	run_quiet();
	contribute(0, &o, ctx[0], rank[0], 0, 0, in[0]);
	contribute(3, &o, ctx[3], rank[3], 0, 0, in[3]);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_RESULT);

		expect_result_hdr(r, &o, ctx[p], 0, 0, rank[p]);
		expect_payload(r, want[p % 2], sizeof(want[0]));
	}
	finish();
}

static void
test_comm_free_by_every_member_retires_the_communicator(void **state)
{
	static const int32_t v[2] = {1, 2};
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(v), CHUNK};
	uint32_t world, ctx[WORLD], rank[WORLD];
	struct acis_hdr h;
	unsigned int p;

	(void)state;
	start(LINGER);
	world = join_all();
	split_world(world, ctx, rank);
	/* color 0 (world ranks 0 and 2) frees its communicator */
	h = ctrl_hdr(ACIS_CTRL_COMM_FREE, ctx[0], rank[0], 0);
	send_as(0, &h, NULL);
	run_quiet();
	h = ctrl_hdr(ACIS_CTRL_COMM_FREE, ctx[2], rank[2], 0);
	send_as(2, &h, NULL);
	run();
	drain();
	for (p = 0; p < WORLD; p += 2) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_COMM_FREE);
		assert_int_equal(r->h.status, ACIS_S_OK);
		assert_int_equal(r->h.comm, ctx[0]);
		assert_int_equal(r->h.seq, 0);
		assert_int_equal(r->h.rank, rank[p]);
	}
	expect_count(1, 0);
	expect_count(3, 0);
	contribute(2, &o, ctx[2], rank[2], 1, 0, v);
	run();
	drain();
	assert_int_equal(only(2, ACIS_T_NACK)->h.status, ACIS_S_NO_COMM);
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_COMM), 1);
	finish();
}

/* ---- reliability ---- */

static void
test_retransmission_after_completion_gets_the_kept_result_again(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	uint32_t world;
	unsigned int p;

	(void)state;
	fill_f32(in);
	sum_f32_rank_order(in, want);
	start(LINGER);
	world = join_all();
	for (p = 0; p < WORLD; p++)
		contribute(p, &o, world, p, 0, 0, in[p]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		expect_payload(only(p, ACIS_T_RESULT), want, sizeof(want));
	/* rank 2 lost its result and sends its contribution again, with
	 * different bytes: it is answered, never added again */
	in[2][0] += 1000.0f;
	contribute(2, &o, world, 2, 0, 0, in[2]);
	run();
	drain();
	expect_payload(only(2, ACIS_T_RESULT), want, sizeof(want));
	expect_count(0, 0);
	expect_count(1, 0);
	expect_count(3, 0);
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 1);
	assert_int_equal(coll_stats().retrans_answered, 1);
	/* a rank may also just ask for an answer again (host NACK) */
	ask_again(1, &o, world, 1, 0, 0);
	run();
	drain();
	expect_payload(only(1, ACIS_T_RESULT), want, sizeof(want));
	expect_count(0, 0);
	assert_int_equal(coll_stats().resends, 1);
	/* every member confirms: the kept result is released */
	for (p = 0; p < WORLD; p++)
		confirm(p, &o, world, p, 0, 1);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	finish();
}

static void
test_bcast_block_sent_again_reaches_only_receivers_that_lack_it(void **state)
{
	static uint8_t msg[2000];
	const struct coll_spec o = {ACIS_C_BCAST, ACIS_UINT32, ACIS_OP_NONE,
				    1, sizeof(msg), CHUNK};
	const struct reply *r;
	uint32_t world;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7);
	start(LINGER);
	world = join_all();
	contribute(1, &o, world, 1, 0, 1, msg);
	run();
	drain();
	/* ranks 0 and 2 confirm chunk 1 (slot key 1); rank 3 lost it */
	confirm(0, &o, world, 0, 0, 2);
	confirm(2, &o, world, 2, 0, 2);
	run_quiet();
	/* the root, still unanswered, sends it again: only rank 3 gets it */
	contribute(1, &o, world, 1, 0, 1, msg);
	run();
	drain();
	r = only(3, ACIS_T_RESULT);
	assert_int_equal(r->h.chunk, 1);
	assert_int_equal(r->h.rank, 3);
	expect_payload(r, msg + CHUNK, sizeof(msg) - CHUNK);
	expect_count(0, 0);
	expect_count(1, 0);
	expect_count(2, 0);
	assert_int_equal(coll_stats().retrans_answered, 1);
	confirm(3, &o, world, 3, 0, 2);
	run();
	drain();
	expect_ack(1, &o, world, 0, 1);
	assert_int_equal(slot_stats().in_use, 0);
	finish();
}

static void
test_slots_are_freed_once_every_member_confirms(void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_MAX,
				    ACIS_RANK_NONE, 2 * CHUNK, CHUNK};
	static float big[WORLD][2 * CHUNK / 4];
	uint32_t world;
	unsigned int p;

	(void)state;
	(void)in;
	for (p = 0; p < WORLD; p++)
		big[p][0] = (float)p;
	start(LINGER);
	world = join_all();
	for (p = 0; p < WORLD; p++) {
		contribute(p, &o, world, p, 0, 0, big[p]);
		contribute(p, &o, world, p, 0, 1, big[p]);
	}
	run();
	drain();
	assert_int_equal(slot_stats().in_use, 2);
	for (p = 0; p < WORLD - 1; p++)
		confirm(p, &o, world, p, 0, 2);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 2);
	confirm(3, &o, world, 3, 0, 2);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(slot_stats().lingered, 0);
	finish();
}

static void
test_ack_and_nack_naming_no_open_slot_are_dropped_as_no_slot(void **state)
{
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, 4 * F32_N, CHUNK};
	uint32_t world;
	unsigned int r;

	(void)state;
	start(LINGER);
	world = join_all();
	/* receipts and a request for collective 5, which never ran: no
	 * answer, each counted once */
	confirm(0, &o, world, 0, 5, 1);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 1);
	ask_again(1, &o, world, 1, 5, 0);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 2);
	confirm(2, &o, world, 2, 5, 3);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 3);
	for (r = 0; r < ACIS_DROP_MAX; r++)
		if (r != ACIS_DROP_ACIS_NO_SLOT)
			assert_int_equal(drops(r), 0);
	assert_int_equal(coll_stats().late_receipts, 0);
	assert_int_equal(coll_stats().resends, 0);
	assert_int_equal(slot_stats().opened, 0);
	finish();
}

/* All four ranks contribute to a one-chunk float32 sum allreduce (seq)
 * and each gets its RESULT. */
static void
allreduce_once(const struct coll_spec *o, uint32_t world, uint32_t seq,
	       float in[WORLD][F32_N])
{
	unsigned int p;

	for (p = 0; p < WORLD; p++)
		contribute(p, o, world, p, seq, 0, in[p]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		expect_result_hdr(only(p, ACIS_T_RESULT), o, world, seq, 0, p);
}

/* A switch whose world did one allreduce (seq 0) that every member
 * confirmed: its slot closed. The world's id. */
static uint32_t
allreduce_confirmed(const struct coll_spec *o, float in[WORLD][F32_N])
{
	uint32_t world;
	unsigned int p;

	start(LINGER);
	world = join_all();
	allreduce_once(o, world, 0, in);
	for (p = 0; p < WORLD; p++)
		confirm(p, o, world, p, 0, 1);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	return world;
}

static void
test_receipts_after_their_slot_closed_are_late_receipts_not_drops(
	void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world;

	(void)state;
	fill_f32(in);
	world = allreduce_confirmed(&o, in);
	/* rank 2 got its answer twice and confirms it again, as libacis
	 * does: routine, counted, not dropped, not answered */
	confirm(2, &o, world, 2, 0, 1);
	run_quiet();
	assert_int_equal(coll_stats().late_receipts, 1);
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 0);
	/* asking for that answer again: it is gone */
	ask_again(1, &o, world, 1, 0, 0);
	run_quiet();
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 1);
	assert_int_equal(coll_stats().late_receipts, 1);
	finish();
}

/* 80 chunks through 16 slots, 16 at a time: more keys than the memory
 * of closed keys holds (four per slot), so receipts for all of them
 * afterwards are known late by their collective. */
#define MANY_CHUNKS 80
#define FEW_SLOTS 16

static void
test_late_receipts_of_a_collective_longer_than_the_key_memory_are_late(
	void **state)
{
	static float in[WORLD][MANY_CHUNKS * CHUNK / 4];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world, c, first;
	unsigned int p;

	(void)state;
	start(LINGER "slots = 16\n");
	world = join_all();
	for (first = 0; first < MANY_CHUNKS; first += FEW_SLOTS) {
		for (p = 0; p < WORLD; p++)
			for (c = first; c < first + FEW_SLOTS; c++)
				contribute(p, &o, world, p, 0, c, in[p]);
		run();
		drain();
		for (p = 0; p < WORLD; p++) {
			expect_count(p, FEW_SLOTS);
			confirm_keys(p, &o, world, p, 0, first, FEW_SLOTS);
		}
		run_quiet();
		assert_int_equal(slot_stats().in_use, 0);
	}
	assert_int_equal(slot_stats().busy, 0);
	confirm_keys(1, &o, world, 1, 0, 0, MANY_CHUNKS);
	run_quiet();
	assert_int_equal(coll_stats().late_receipts, MANY_CHUNKS);
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_SLOT), 0);
	finish();
}

static void
test_unconfirmed_slots_are_freed_after_the_linger_time(void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world;

	(void)state;
	fill_f32(in);
	start(LINGER);
	world = join_all();
	allreduce_once(&o, world, 0, in);
	assert_int_equal(slot_stats().in_use, 1);
	run_for(LINGER_MS + 30);
	expect_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(slot_stats().lingered, 1);
	finish();
}

static void
test_unconfirmed_answers_are_sent_again_until_confirmed(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	uint32_t world;
	unsigned int p, i;

	(void)state;
	fill_f32(in);
	sum_f32_rank_order(in, want);
	start(LINGER);
	g_sw.coll.resend_tsc = rte_get_tsc_hz() / 1000 * 10; /* 10 ms */
	world = join_all();
	allreduce_once(&o, world, 0, in);
	/* ranks 0, 1 and 2 confirm; rank 3's answer (or its confirmation)
	 * was lost, and its host does not ask again */
	for (p = 0; p < WORLD - 1; p++)
		confirm(p, &o, world, p, 0, 1);
	run_quiet();
	run_for(35);
	drain();
	expect_count(0, 0);
	expect_count(1, 0);
	expect_count(2, 0);
	if (inbox[3].n < 2)
		fail_msg("rank 3 got its answer %u time(s) again in 35 ms, "
			 "expected one every 10 ms", inbox[3].n);
	for (i = 0; i < inbox[3].n; i++) {
		expect_result_hdr(&inbox[3].r[i], &o, world, 0, 0, 3);
		expect_payload(&inbox[3].r[i], want, sizeof(want));
	}
	assert_int_equal(coll_stats().answers_resent, inbox[3].n);
	/* its confirmation frees the slot before the linger time */
	confirm(3, &o, world, 3, 0, 1);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(slot_stats().lingered, 0);
	finish();
}

static void
test_late_copy_of_a_confirmed_chunk_opens_no_slot_and_is_not_answered(
	void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world;

	(void)state;
	fill_f32(in);
	world = allreduce_confirmed(&o, in);
	/* a copy of rank 1's contribution, delayed by the network: every
	 * member has its answer, so nobody needs anything */
	contribute(1, &o, world, 1, 0, 0, in[1]);
	run_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(slot_stats().opened, 1);
	assert_int_equal(coll_stats().late_copies, 1);
	assert_int_equal(drops(ACIS_DROP_ACIS_DUPLICATE), 1);
	finish();
}

static void
test_late_copy_of_a_delivered_bcast_block_is_acked_again(void **state)
{
	static uint8_t msg[1000];
	const struct coll_spec o = {ACIS_C_BCAST, ACIS_UINT32, ACIS_OP_NONE,
				    2, sizeof(msg), CHUNK};
	uint32_t world;
	unsigned int p;

	(void)state;
	memset(msg, 0x5a, sizeof(msg));
	start(LINGER);
	world = join_all();
	contribute(2, &o, world, 2, 0, 0, msg);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		if (p != 2)
			confirm(p, &o, world, p, 0, 1);
	run();
	drain();
	expect_ack(2, &o, world, 0, 0);
	assert_int_equal(slot_stats().in_use, 0);
	/* the root's ACK was lost: its repeat is acknowledged at once and
	 * not forwarded to receivers that all have the block */
	contribute(2, &o, world, 2, 0, 0, msg);
	run();
	drain();
	expect_ack(2, &o, world, 0, 0);
	expect_count(0, 0);
	expect_count(1, 0);
	expect_count(3, 0);
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(coll_stats().late_copies, 1);
	finish();
}

static void
test_repeat_after_its_slot_lingered_out_is_answered_gone(void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	const struct reply *r;
	uint32_t world;

	(void)state;
	fill_f32(in);
	start(LINGER);
	world = join_all();
	allreduce_once(&o, world, 0, in);
	run_for(LINGER_MS + 30);
	expect_quiet();
	assert_int_equal(slot_stats().lingered, 1);
	/* rank 2 never had its answer and asks again too late: it is told,
	 * instead of waiting in a slot nobody else will join */
	contribute(2, &o, world, 2, 0, 0, in[2]);
	run();
	drain();
	r = only(2, ACIS_T_NACK);
	assert_int_equal(r->h.status, ACIS_S_GONE);
	assert_int_equal(r->h.seq, 0);
	assert_int_equal(r->h.chunk, 0);
	expect_count(0, 0);
	assert_int_equal(slot_stats().in_use, 0);
	finish();
}

/* The deadline measures lack of progress: a slot waiting for a slow rank
 * is not failed while its collective still takes new contributions on
 * other chunks (a large collective under loss); once the whole
 * collective stands still that long, it fails. */
static void
test_deadline_spares_a_collective_that_still_moves(void **state)
{
	enum { CHUNKS = 40 };
	static int32_t in[WORLD][CHUNKS * CHUNK / 4];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world, c;
	unsigned int p;

	(void)state;
	start("[collective]\ndeadline_ms = 30\nlinger_ms = 200\n");
	world = join_all();
	/* chunk 0: rank 3 is slow */
	for (p = 0; p < 3; p++)
		contribute(p, &o, world, p, 0, 0, in[p]);
	run();
	/* meanwhile the collective moves on: a chunk every 10 ms from
	 * ranks 0..2 for 300 ms, ten deadlines, each answered later */
	for (c = 1; c < 31; c++) {
		for (p = 0; p < 3; p++)
			contribute(p, &o, world, p, 0, c, in[p]);
		run_for(10);
	}
	discard_sent();
	assert_int_equal(slot_stats().expired, 0);
	assert_int_equal(coll_stats().nacks, 0);
	/* rank 3 catches up: chunk 0 completes, nothing failed */
	contribute(3, &o, world, 3, 0, 0, in[3]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		assert_int_equal(only(p, ACIS_T_RESULT)->h.chunk, 0);
	/* then everything stands still: the open chunks fail, each told
	 * to ranks 0..2 naming rank 3, and to rank 3 nothing */
	run_for(60);
	assert_int_equal(slot_stats().expired, 0); /* failed, kept to say so */
	drain();
	for (p = 0; p < 3; p++) {
		expect_count(p, 30);
		for (c = 1; c < 31; c++) {
			const struct reply *r = one(p, ACIS_T_NACK, c);
			uint32_t missing;

			assert_int_equal(r->h.status, ACIS_S_TIMEOUT);
			assert_int_equal(r->h.payload_len, 4);
			memcpy(&missing, r->payload, 4);
			assert_int_equal(missing, 3);
		}
	}
	expect_count(3, 0);
	assert_int_equal(coll_stats().nacks, 90);
	finish();
}

static void
test_missing_rank_fails_the_slot_at_the_deadline_naming_it(void **state)
{
	static float in[WORLD][F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(in[0]), CHUNK};
	uint32_t world, missing;
	const struct reply *r;
	unsigned int p;

	(void)state;
	fill_f32(in);
	start("[collective]\ndeadline_ms = 20\nlinger_ms = 200\n");
	world = join_all();
	/* rank 2 never contributes; rank 3 is held waiting for it */
	contribute(0, &o, world, 0, 0, 0, in[0]);
	contribute(1, &o, world, 1, 0, 0, in[1]);
	contribute(3, &o, world, 3, 0, 0, in[3]);
	run_quiet();
	assert_int_equal(coll_stats().held, 1);
	assert_int_equal(slot_stats().lent, 1); /* rank 0's frame */
	run_for(50);
	drain();
	for (p = 0; p < WORLD; p++) {
		if (p == 2) {
			expect_count(p, 0);
			continue;
		}
		r = only(p, ACIS_T_NACK);
		assert_int_equal(r->h.status, ACIS_S_TIMEOUT);
		assert_int_equal(r->h.chunk, 0);
		assert_int_equal(r->h.payload_len, 4);
		memcpy(&missing, r->payload, 4);
		assert_int_equal(missing, 2);
	}
	assert_int_equal(coll_stats().held, 0);
	assert_int_equal(slot_stats().lent, 0); /* failed: nothing to keep */
	/* the failed slot is kept to say so again: rank 0 lost its NACK and
	 * repeats, and the late rank 2 hears it too */
	contribute(0, &o, world, 0, 0, 0, in[0]);
	contribute(2, &o, world, 2, 0, 0, in[2]);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		if (p == 1 || p == 3) {
			expect_count(p, 0);
			continue;
		}
		r = only(p, ACIS_T_NACK);
		assert_int_equal(r->h.status, ACIS_S_TIMEOUT);
		memcpy(&missing, r->payload, 4);
		assert_int_equal(missing, 2);
	}
	assert_int_equal(coll_stats().timeouts_resent, 2);
	assert_int_equal(slot_stats().in_use, 1);
	/* then it goes */
	run_for(LINGER_MS + 30);
	expect_quiet();
	assert_int_equal(slot_stats().in_use, 0);
	assert_int_equal(slot_stats().expired, 1);
	finish();
}

static void
test_a_pause_of_the_switch_does_not_count_toward_the_deadline(void **state)
{
	static float in[WORLD][F32_N], want[F32_N];
	const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_FLOAT32, ACIS_OP_SUM,
				    ACIS_RANK_NONE, sizeof(want), CHUNK};
	unsigned int p;
	uint32_t world;

	(void)state;
	fill_f32(in);
	sum_f32_rank_order(in, want);
	start("[collective]\ndeadline_ms = 20\nlinger_ms = 200\n");
	world = join_all();
	for (p = 0; p < WORLD - 1; p++)
		contribute(p, &o, world, p, 0, 0, in[p]);
	run_quiet();
	/* the switch does not run for five deadlines (descheduled); the
	 * last contribution waits in its RX queue meanwhile */
	usleep(100 * 1000);
	contribute(3, &o, world, 3, 0, 0, in[3]);
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		expect_payload(only(p, ACIS_T_RESULT), want, sizeof(want));
	assert_int_equal(slot_stats().expired, 0);
	finish();
}

/* ---- user-defined reduction operators (doc/collectives.md) ---- */

/* Host p's OP_CREATE of program w (n words) as name. */
static void
send_op_create(unsigned int p, const char *name, const uint32_t *w,
	       uint32_t n, uint32_t seq)
{
	static uint8_t pl[ACIS_OP_NAME_LEN + 4 * ACIS_OP_WORDS_MAX];
	struct acis_hdr h = ctrl_hdr(ACIS_CTRL_OP_CREATE, 0, p, seq);
	uint32_t i;

	memset(pl, 0, sizeof(pl));
	memcpy(pl, name, strlen(name));
	for (i = 0; i < n; i++) {
		pl[ACIS_OP_NAME_LEN + 4 * i] = (uint8_t)w[i];
		pl[ACIS_OP_NAME_LEN + 4 * i + 1] = (uint8_t)(w[i] >> 8);
		pl[ACIS_OP_NAME_LEN + 4 * i + 2] = (uint8_t)(w[i] >> 16);
		pl[ACIS_OP_NAME_LEN + 4 * i + 3] = (uint8_t)(w[i] >> 24);
	}
	h.root = 1;
	h.msg_size = n;
	h.payload_len = (uint16_t)(ACIS_OP_NAME_LEN + 4 * n);
	send_as(p, &h, pl);
}

/* Every rank makes op name from assembly src; the one number the switch
 * gives them all (or, refused, the status, the first's message in msg). */
static unsigned int
create_op_all(const char *name, const char *src, uint16_t want_status,
	      char *msg, size_t len)
{
	char err[256];
	uint32_t *w;
	size_t n;
	unsigned int p, op = 0;

	if (acis_cgra_asm(src, name, &w, &n, err, sizeof(err)) != 0)
		fail_msg("assembler: %s", err);
	for (p = 0; p < WORLD; p++)
		send_op_create(p, name, w, (uint32_t)n, 1);
	free(w);
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_CTRL_ACK);

		assert_int_equal(r->h.opcode, ACIS_CTRL_OP_CREATE);
		assert_int_equal(r->h.status, want_status);
		if (want_status != ACIS_S_OK) {
			if (p == 0 && msg != NULL)
				snprintf(msg, len, "%.*s", r->h.payload_len,
					 (const char *)r->payload);
			continue;
		}
		assert_true(r->h.op >= ACIS_OP_USER_MIN);
		if (p == 0)
			op = r->h.op;
		assert_int_equal(r->h.op, op);
	}
	return op;
}

static char *
example_src(const char *file)
{
	char path[512], err[512];
	uint8_t *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", ACIS_EXAMPLES_DIR, file);
	if (acis_cgra_read_file(path, &buf, &len, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return (char *)buf;
}

#define SAT_N 400

/* int8 vectors whose saturating sum depends on the order of the adds. */
static void
fill_sat(int8_t in[WORLD][SAT_N], int8_t want[SAT_N])
{
	unsigned int i, r;

	for (i = 0; i < SAT_N; i++) {
		in[0][i] = (int8_t)(100 - (int)(i % 7));
		in[1][i] = (int8_t)(90 + (int)(i % 5));
		in[2][i] = (int8_t)(-120 + (int)(i % 3));
		in[3][i] = (int8_t)((int)(i % 9) - 4);
	}
	for (i = 0; i < SAT_N; i++) {
		int acc = in[0][i];

		for (r = 1; r < WORLD; r++) {
			acc += in[r][i];
			acc = acc > 127 ? 127 : acc < -128 ? -128 : acc;
		}
		want[i] = (int8_t)acc;
	}
}

/* A user op (satsum_i8.s, not associative) through allreduce: every rank
 * gets the same number for it, and in all 24 arrival orders the result
 * is the rank-order fold; freed by every rank, the op is gone. */
static void
test_user_op_allreduce_folds_in_rank_order_in_every_arrival_order(void **state)
{
	static int8_t in[WORLD][SAT_N], want[SAT_N];
	const void *const bufs[WORLD] = {in[0], in[1], in[2], in[3]};
	char *src = example_src("satsum_i8.s");
	unsigned int op, p, k, differ = 0, i, order[WORLD];

	(void)state;
	fill_sat(in, want);
	/* the data tell orders apart, or this test could not fail */
	for (k = 0; k < ORDERS; k++) {
		nth_order(k, order);
		for (i = 0; i < SAT_N; i++) {
			int acc = in[order[0]][i];

			for (p = 1; p < WORLD; p++) {
				acc += in[order[p]][i];
				acc = acc > 127 ? 127 : acc < -128 ? -128 : acc;
			}
			if (acc != want[i]) {
				differ++;
				break;
			}
		}
	}
	assert_true(differ >= ORDERS / 2);
	start(LINGER);
	join_all();
	op = create_op_all("satsum_i8", src, ACIS_S_OK, NULL, 0);
	free(src);
	{
		const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_INT8,
					    (uint8_t)op, ACIS_RANK_NONE,
					    SAT_N, CHUNK};

		allreduce_in_every_order(&o, bufs, want);
	}
	assert_true(coll_stats().held_total > 0); /* early ranks waited */
	assert_int_equal(coll_stats().userop_faults, 0);
	for (p = 0; p < WORLD; p++) {
		struct acis_hdr h = ctrl_hdr(ACIS_CTRL_OP_FREE, 0, p, 2);

		h.op = (uint8_t)op;
		send_as(p, &h, NULL);
	}
	run();
	drain();
	for (p = 0; p < WORLD; p++)
		assert_int_equal(only(p, ACIS_T_CTRL_ACK)->h.status, ACIS_S_OK);
	assert_null(g_sw.coll.userops[op - ACIS_OP_USER_MIN]);
	finish();
}

/* A fold that faults fails the collective on every rank with the
 * switch's message naming the op: the contributors at once, the rest
 * when their DATA comes; a program the loader refuses is answered with
 * its message; DATA naming an op the job lacks is refused NO_OP. */
static void
test_user_op_fault_fails_the_collective_on_every_rank_naming_the_op(void **state)
{
	static uint8_t in[WORLD][64];
	const struct coll_spec bad = {ACIS_C_ALLREDUCE, ACIS_UINT8, 200,
				      ACIS_RANK_NONE, 64, CHUNK};
	unsigned int op, p;
	uint32_t world;
	char msg[200];

	(void)state;
	start(LINGER);
	world = join_all();
	op = create_op_all("far", "lui x5, 0x20\nvsetivli x0, 16, e32, m1\n"
			   "vle32.v v1, (x5)\nstreamout.v v1\nwfi\n", ACIS_S_OK,
			   NULL, 0);
	{
		const struct coll_spec o = {ACIS_C_ALLREDUCE, ACIS_UINT8,
					    (uint8_t)op, ACIS_RANK_NONE, 64,
					    CHUNK};

		/* ranks 0 and 1: the second's fold faults */
		contribute(0, &o, world, 0, 0, 0, in[0]);
		contribute(1, &o, world, 1, 0, 0, in[1]);
		run();
		drain();
		for (p = 0; p < 2; p++) {
			const struct reply *r = only(p, ACIS_T_NACK);

			assert_int_equal(r->h.status, ACIS_S_OP_FAULT);
			snprintf(msg, sizeof(msg), "%.*s", r->h.payload_len,
				 (const char *)r->payload);
			assert_string_equal(msg, "op far: instruction 2 "
					    "(vle32.v): bank 1 bytes "
					    "131072..131136 (base 0) outside "
					    "its 131072 bytes");
		}
		assert_int_equal(inbox[2].n, 0);
		assert_int_equal(inbox[3].n, 0);
		/* the others come later: told the same */
		contribute(2, &o, world, 2, 0, 0, in[2]);
		contribute(3, &o, world, 3, 0, 0, in[3]);
		run();
		drain();
		for (p = 2; p < WORLD; p++)
			assert_int_equal(only(p, ACIS_T_NACK)->h.status,
					 ACIS_S_OP_FAULT);
	}
	assert_int_equal(coll_stats().userop_faults, 1);
	/* refused by the loader: the message names the op */
	create_op_all("nocfg", "vadd.i32 v1, sin\nwfi\n", ACIS_S_BAD_ARGS, msg,
		      sizeof(msg));
	assert_string_equal(msg, "op nocfg: instruction 0 (vadd.i32): vector "
			    "instruction reached before any vsetivli (on some "
			    "path)");
	/* an op number nobody made */
	contribute(0, &bad, world, 0, 1, 0, in[0]);
	run();
	drain();
	assert_int_equal(only(0, ACIS_T_NACK)->h.status, ACIS_S_NO_OP);
	assert_int_equal(coll_stats().userop_refused, 1);
	finish();
}

/* ---- fused collectives (doc/fused.md) ---- */

/* Host p's fused message msg (len bytes) for pattern on comm, seq: chunk
 * `chunk`, or every chunk when chunk is -1. */
static void
fused_send(unsigned int p, unsigned int pattern, uint8_t dtype, uint8_t op,
	   uint32_t root, uint32_t comm, uint32_t seq, const uint8_t *msg,
	   uint64_t len, int chunk)
{
	uint64_t cpr = acis_n_chunks(len, CHUNK), c;

	for (c = 0; c < cpr; c++) {
		struct acis_hdr h = {
			.version = ACIS_PROTO_VERSION, .type = ACIS_T_DATA,
			.opcode = ACIS_OPCODE(ACIS_C_FUSED, pattern),
			.dtype = dtype, .op = op, .hdr_len = ACIS_HDR_LEN,
			.job = JOB, .comm = comm, .rank = p, .root = root,
			.seq = seq, .chunk = (uint32_t)c, .msg_size = len,
			.chunk_size = CHUNK, .contributors = 1,
		};

		if (chunk >= 0 && c != (uint64_t)chunk)
			continue;
		h.payload_len = (uint16_t)RTE_MIN((uint64_t)CHUNK,
						  len - c * CHUNK);
		send_as(p, &h, msg + c * CHUNK);
	}
}

/* Host p confirms result chunk 0 of fused call seq. */
static void
fused_confirm(unsigned int p, unsigned int pattern, uint32_t comm,
	      uint32_t seq)
{
	uint32_t key = 0;
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_ACK,
		.opcode = ACIS_OPCODE(ACIS_C_FUSED, pattern),
		.dtype = ACIS_FLOAT32, .op = ACIS_OP_SUM,
		.hdr_len = ACIS_HDR_LEN, .job = JOB, .comm = comm, .rank = p,
		.root = ACIS_RANK_NONE, .seq = seq, .chunk = 1,
		.chunk_size = CHUNK, .payload_len = 4,
	};

	send_as(p, &h, &key);
}

static struct acis_userop *fused_ref_op;

static int
fused_ref_map(void *arg, uint32_t rank, unsigned int map, const void *in,
	      size_t in_len, const void *inbound, size_t ib_len,
	      const void *own, size_t own_len, void *out, size_t cap,
	      size_t *out_len, char *err, size_t errlen)
{
	(void)arg;
	(void)rank;
	(void)map;
	return acis_userop_map(fused_ref_op, in, in_len, inbound, ib_len, own,
			       own_len, out, cap, out_len, err, errlen);
}

#define GM_IB 4096 /* floats of inbound: w and v, 2048 each */

/* allreduce_op_allreduce with gmres_norm.s on floats whose sums round
 * (the order of the folds shows): every rank gets one RESULT with the
 * bits lib/fused gives on this host, in all 24 orders the ranks' whole
 * messages (12 chunks each) can come in; a chunk sent again while the
 * call waits hears PENDING, one after it the result again; confirmed by
 * every rank, the call is gone. */
static void
test_fused_call_gives_the_same_bits_in_every_arrival_order(void **state)
{
	static uint8_t msg[WORLD][ACIS_FUSED_PREFIX + 4 + 4 * GM_IB];
	const uint64_t len = sizeof(msg[0]);
	char *src = example_src("fused/gmres_norm.s");
	const uint8_t *mp[WORLD] = {msg[0], msg[1], msg[2], msg[3]};
	const uint64_t lens[WORLD] = {len, len, len, len};
	struct acis_fused_call call = {
		.pattern = ACIS_FUSED_ALLREDUCE_OP_ALLREDUCE,
		.dtype = ACIS_FLOAT32, .op = ACIS_OP_SUM,
		.root = ACIS_RANK_NONE, .size = WORLD, .msg = mp,
		.msg_len = lens,
	};
	struct acis_userop_spec sp = {.name = "gmres_norm"};
	struct acis_fused_ws *ws = acis_fused_ws_new();
	unsigned int op, p, k, order[WORLD], i;
	uint8_t want[4];
	uint32_t world, wl;
	char err[256];
	uint32_t *w;
	size_t n;

	(void)state;
	assert_non_null(ws);
	start(LINGER);
	world = join_all();
	op = create_op_all("gmres_norm", src, ACIS_S_OK, NULL, 0);
	assert_int_equal(acis_cgra_asm(src, "gmres_norm", &w, &n, err,
				       sizeof(err)), 0);
	sp.words = w;
	sp.n_words = n;
	assert_int_equal(acis_userop_create(&sp, &fused_ref_op, err,
					    sizeof(err)), 0);
	free(w);
	free(src);
	for (p = 0; p < WORLD; p++) {
		struct acis_fused_prefix pre = {4, 4 * GM_IB, 4, (uint8_t)op};
		float *f = (float *)(msg[p] + ACIS_FUSED_PREFIX);

		acis_fused_prefix_write(msg[p], &pre);
		/* the share of ||w||^2: a sum that rounds */
		f[0] = 1.0f + (float)p / 3.0f + 1e-7f * (float)(p * 7919);
		for (i = 0; i < GM_IB; i++)
			f[1 + i] = (float)((p * 31 + i * 17) % 97) / 13.0f -
				   3.5f;
	}
	{
		/* the shares' sum in some order is not the rank order's, or
		 * this test could not tell an arrival-order fold */
		unsigned int differ = 0;

		for (k = 0; k < ORDERS; k++) {
			float a = 0.0f, b = 0.0f;

			nth_order(k, order);
			for (i = 0; i < WORLD; i++) {
				a += *(const float *)(msg[i] +
						      ACIS_FUSED_PREFIX);
				b += *(const float *)(msg[order[i]] +
						      ACIS_FUSED_PREFIX);
			}
			differ += memcmp(&a, &b, 4) != 0;
		}
		assert_true(differ > 0);
	}
	assert_int_equal(acis_fused_run(ws, &call, fused_ref_map, NULL, err,
					sizeof(err)), 0);
	memcpy(want, acis_fused_result(ws, 0, &wl), 4);
	assert_int_equal(wl, 4);
	for (k = 0; k < ORDERS; k++) {
		nth_order(k, order);
		for (i = 0; i < WORLD; i++) {
			fused_send(order[i], call.pattern, ACIS_FLOAT32,
				   ACIS_OP_SUM, ACIS_RANK_NONE, world, k,
				   msg[order[i]], len, -1);
			run();
			drain();
			if (i + 1 < WORLD) { /* no ACKs: the result answers */
				expect_quiet();
				/* a repeat while the call waits */
				fused_send(order[i], call.pattern,
					   ACIS_FLOAT32, ACIS_OP_SUM,
					   ACIS_RANK_NONE, world, k,
					   msg[order[i]], len, 3);
				run();
				drain();
				assert_int_equal(only(order[i],
						      ACIS_T_NACK)->h.status,
						 ACIS_S_PENDING);
			}
		}
		for (p = 0; p < WORLD; p++) {
			const struct reply *r = only(p, ACIS_T_RESULT);

			assert_int_equal(r->h.opcode,
					 ACIS_OPCODE(ACIS_C_FUSED, call.pattern));
			assert_int_equal(r->h.seq, k);
			assert_int_equal(r->h.rank, p);
			assert_int_equal(r->h.msg_size, 4);
			expect_payload(r, want, 4);
		}
		/* a rank that lost its result asks again by a chunk */
		fused_send(2, call.pattern, ACIS_FLOAT32, ACIS_OP_SUM,
			   ACIS_RANK_NONE, world, k, msg[2], len, 11);
		run();
		drain();
		expect_payload(only(2, ACIS_T_RESULT), want, 4);
		for (p = 0; p < WORLD; p++)
			fused_confirm(p, call.pattern, world, k);
		run_quiet();
		assert_int_equal(fused_open(), 0);
	}
	assert_int_equal(coll_stats().fused_calls, ORDERS);
	assert_int_equal(coll_stats().completed[ACIS_C_FUSED], ORDERS);
	acis_userop_free(fused_ref_op);
	fused_ref_op = NULL;
	acis_fused_ws_free(ws);
	assert_int_equal(coll_stats().fused_unconfirmed, 0);
	finish();
}

/* What fails a fused call fails it on every rank, saying why: ranks that
 * disagree (MISMATCH, naming the rank), an op that faults (OP_FAULT,
 * naming the op and the rank it ran for), a rank that never comes
 * (TIMEOUT, naming it); a call on a fabric's tree is refused elsewhere
 * (testbed); nothing is left open. */
static void
test_fused_failures_reach_every_rank_and_say_why(void **state)
{
	static uint8_t msg[WORLD][ACIS_FUSED_PREFIX + 64];
	const uint64_t len = sizeof(msg[0]);
	const unsigned int pat = ACIS_FUSED_ALLREDUCE_OP;
	unsigned int op, far, p;
	uint32_t world;
	char text[200];

	(void)state;
	start("[collective]\nlinger_ms = 200\ndeadline_ms = 20\n");
	world = join_all();
	{
		char *src = example_src("fused/block_sum.s");

		op = create_op_all("block_sum", src, ACIS_S_OK, NULL, 0);
		free(src);
	}
	far = create_op_all("far", "lui x5, 0x20\nvsetivli x0, 16, e32, m1\n"
			    "vle32.v v1, (x5)\nstreamout.v v1\nwfi\n",
			    ACIS_S_OK, NULL, 0);
	/* rank 2 names another output length */
	for (p = 0; p < WORLD; p++) {
		struct acis_fused_prefix pre = {64, 0, p == 2 ? 8 : 4,
						(uint8_t)op};

		acis_fused_prefix_write(msg[p], &pre);
		fused_send(p, pat, ACIS_INT32, ACIS_OP_SUM, ACIS_RANK_NONE,
			   world, 0, msg[p], len, -1);
	}
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_NACK);

		assert_int_equal(r->h.status, ACIS_S_MISMATCH);
		snprintf(text, sizeof(text), "%.*s", r->h.payload_len,
			 (const char *)r->payload);
		assert_non_null(strstr(text, "allreduce_op: rank 2 names op"));
	}
	/* the op faults: its message, naming the op and the rank */
	for (p = 0; p < WORLD; p++) {
		struct acis_fused_prefix pre = {64, 0, 4, (uint8_t)far};

		acis_fused_prefix_write(msg[p], &pre);
		fused_send(p, pat, ACIS_INT32, ACIS_OP_SUM, ACIS_RANK_NONE,
			   world, 1, msg[p], len, -1);
	}
	run();
	drain();
	for (p = 0; p < WORLD; p++) {
		const struct reply *r = only(p, ACIS_T_NACK);

		assert_int_equal(r->h.status, ACIS_S_OP_FAULT);
		snprintf(text, sizeof(text), "%.*s", r->h.payload_len,
			 (const char *)r->payload);
		assert_string_equal(text, "op far: instruction 2 (vle32.v): "
				    "bank 1 bytes 131072..131136 (base 0) "
				    "outside its 131072 bytes (on rank 0)");
	}
	/* a late repeat hears the same */
	fused_send(3, pat, ACIS_INT32, ACIS_OP_SUM, ACIS_RANK_NONE, world, 1,
		   msg[3], len, 0);
	run();
	drain();
	assert_int_equal(only(3, ACIS_T_NACK)->h.status, ACIS_S_OP_FAULT);
	/* rank 3 never comes: the others hear TIMEOUT naming it */
	for (p = 0; p < WORLD; p++) {
		struct acis_fused_prefix pre = {64, 0, 4, (uint8_t)op};

		acis_fused_prefix_write(msg[p], &pre);
	}
	for (p = 0; p < WORLD - 1; p++)
		fused_send(p, pat, ACIS_INT32, ACIS_OP_SUM, ACIS_RANK_NONE,
			   world, 2, msg[p], len, -1);
	run_quiet();
	run_for(60);
	drain();
	for (p = 0; p < WORLD - 1; p++) {
		const struct reply *r = only(p, ACIS_T_NACK);
		uint32_t missing;

		assert_int_equal(r->h.status, ACIS_S_TIMEOUT);
		assert_int_equal(r->h.payload_len, 4);
		memcpy(&missing, r->payload, 4);
		assert_int_equal(missing, 3);
	}
	assert_int_equal(coll_stats().fused_failed, 3);
	assert_int_equal(coll_stats().userop_faults, 1);
	finish();
}

/* A worker's table of fused calls: full (256 calls), every call found by
 * (ctx, seq) while others come and go in a scrambled order, none found
 * once closed, and a full table refuses a call. */
static void
test_fused_call_table_finds_every_open_call(void **state)
{
	struct acis_fused_sw *t;
	struct acis_fused_inst *f[ACIS_FUSED_CALLS];
	uint32_t i, j, open = ACIS_FUSED_CALLS;

	(void)state;
	start(LINGER);
	t = acis_fused_sw_new(SOCKET_ID_ANY);
	assert_non_null(t);
	for (i = 0; i < ACIS_FUSED_CALLS; i++) {
		/* keys that crowd a few home places */
		f[i] = acis_fused_sw_open(t, JOB, 65536 + i % 3, i * 7919, 4);
		assert_non_null(f[i]);
	}
	assert_int_equal(acis_fused_sw_open_count(t), ACIS_FUSED_CALLS);
	assert_null(acis_fused_sw_open(t, JOB, 1, 1, 4));
	for (j = 0; j < ACIS_FUSED_CALLS; j++) {
		uint32_t k = (j * 97 + 13) % ACIS_FUSED_CALLS; /* a permutation */

		acis_fused_sw_close(t, f[k]);
		f[k] = NULL;
		open--;
		for (i = 0; i < ACIS_FUSED_CALLS; i++)
			assert_ptr_equal(acis_fused_sw_find(t, 65536 + i % 3,
							    i * 7919), f[i]);
	}
	assert_int_equal(open, 0);
	assert_int_equal(acis_fused_sw_open_count(t), 0);
	acis_fused_sw_free(t);
	finish();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_join_is_answered_for_every_rank_once_the_last_rank_joins, teardown),
		cmocka_unit_test_teardown(test_user_op_allreduce_folds_in_rank_order_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_user_op_fault_fails_the_collective_on_every_rank_naming_the_op, teardown),
		cmocka_unit_test_teardown(test_fused_call_table_finds_every_open_call, teardown),
		cmocka_unit_test_teardown(test_fused_call_gives_the_same_bits_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_fused_failures_reach_every_rank_and_say_why, teardown),
		cmocka_unit_test_teardown(test_repeated_join_from_a_joined_rank_is_answered_again, teardown),
		cmocka_unit_test_teardown(test_join_for_a_held_rank_from_another_udp_port_is_refused_rank_taken, teardown),
		cmocka_unit_test_teardown(test_join_with_another_world_size_is_refused_size_mismatch, teardown),
		cmocka_unit_test_teardown(test_allreduce_float32_sum_is_the_rank_order_sum_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_world_alias_makes_a_recorded_job_valid_when_replayed, teardown),
		cmocka_unit_test_teardown(test_control_without_a_udp_checksum_is_refused, teardown),
		cmocka_unit_test_teardown(test_answers_to_hosts_on_a_vlan_carry_their_tag, teardown),
		cmocka_unit_test_teardown(test_refused_split_reaches_every_member_also_on_resend, teardown),
		cmocka_unit_test_teardown(test_refused_join_reaches_every_rank_also_on_resend, teardown),
		cmocka_unit_test_teardown(test_jobs_per_host_are_limited_and_unfinished_joins_expire, teardown),
		cmocka_unit_test_teardown(test_allreduce_int32_sum_wraps_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_slots_beyond_their_share_of_the_pool_copy, teardown),
		cmocka_unit_test_teardown(test_allreduce_float16_sum_is_rounded_once_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_allreduce_float64_min_gives_the_same_bits_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_allreduce_int8_with_every_op_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_allreduce_uint8_with_every_op_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_allreduce_int16_with_every_op_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_allreduce_uint16_with_every_op_in_every_arrival_order, teardown),
		cmocka_unit_test_teardown(test_duplicate_contribution_is_dropped_and_not_added_twice, teardown),
		cmocka_unit_test_teardown(test_duplicated_shared_results_keep_their_payload, teardown),
		cmocka_unit_test_teardown(test_duplicate_of_a_held_contribution_is_dropped_and_not_folded_twice, teardown),
		cmocka_unit_test_teardown(test_reduce_sends_the_result_to_the_root_and_acks_to_the_others, teardown),
		cmocka_unit_test_teardown(test_gather_of_small_blocks_sends_the_root_one_packed_result, teardown),
		cmocka_unit_test_teardown(test_allgather_of_small_blocks_sends_everyone_one_packed_result, teardown),
		cmocka_unit_test_teardown(test_bcast_forwards_every_chunk_of_the_root_to_every_other_rank, teardown),
		cmocka_unit_test_teardown(test_alltoall_routes_each_block_once_tagged_with_its_sender, teardown),
		cmocka_unit_test_teardown(test_deadline_and_ssp_answer_members_and_refuse_the_rest, teardown),
		cmocka_unit_test_teardown(test_reduce_scatter_sends_each_rank_only_its_own_block, teardown),
		cmocka_unit_test_teardown(test_barrier_completes_only_when_the_last_rank_arrives, teardown),
		cmocka_unit_test_teardown(test_data_claiming_another_ranks_identity_is_dropped_not_member, teardown),
		cmocka_unit_test_teardown(test_a_rank_is_held_to_the_cookie_it_joined_with, auth_teardown),
		cmocka_unit_test_teardown(test_auth_required_refuses_a_join_without_a_cookie, auth_teardown),
		cmocka_unit_test_teardown(test_weights_give_a_job_its_share_weight, teardown),
		cmocka_unit_test_teardown(test_data_for_an_unknown_communicator_is_answered_no_comm, teardown),
		cmocka_unit_test_teardown(test_contribution_disagreeing_with_its_slot_is_refused_nack_mismatch, teardown),
		cmocka_unit_test_teardown(test_full_slot_pool_answers_busy_until_a_slot_is_freed, teardown),
		cmocka_unit_test_teardown(test_split_makes_one_communicator_per_color_ranked_by_key_then_rank, teardown),
		cmocka_unit_test_teardown(test_split_communicators_each_reduce_among_their_own_members, teardown),
		cmocka_unit_test_teardown(test_comm_free_by_every_member_retires_the_communicator, teardown),
		cmocka_unit_test_teardown(test_retransmission_after_completion_gets_the_kept_result_again, teardown),
		cmocka_unit_test_teardown(test_bcast_block_sent_again_reaches_only_receivers_that_lack_it, teardown),
		cmocka_unit_test_teardown(test_slots_are_freed_once_every_member_confirms, teardown),
		cmocka_unit_test_teardown(test_ack_and_nack_naming_no_open_slot_are_dropped_as_no_slot,
					  teardown),
		cmocka_unit_test_teardown(test_receipts_after_their_slot_closed_are_late_receipts_not_drops,
					  teardown),
		cmocka_unit_test_teardown(test_late_receipts_of_a_collective_longer_than_the_key_memory_are_late,
					  teardown),
		cmocka_unit_test_teardown(test_unconfirmed_slots_are_freed_after_the_linger_time, teardown),
		cmocka_unit_test_teardown(test_unconfirmed_answers_are_sent_again_until_confirmed, teardown),
		cmocka_unit_test_teardown(test_late_copy_of_a_confirmed_chunk_opens_no_slot_and_is_not_answered, teardown),
		cmocka_unit_test_teardown(test_late_copy_of_a_delivered_bcast_block_is_acked_again, teardown),
		cmocka_unit_test_teardown(test_repeat_after_its_slot_lingered_out_is_answered_gone, teardown),
		cmocka_unit_test_teardown(test_deadline_spares_a_collective_that_still_moves, teardown),
		cmocka_unit_test_teardown(test_missing_rank_fails_the_slot_at_the_deadline_naming_it, teardown),
		cmocka_unit_test_teardown(test_a_pause_of_the_switch_does_not_count_toward_the_deadline, teardown),
	};
	int rc;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("collective stage on net_ring ports",
					 tests, NULL, NULL);
	harness_eal_cleanup();
	return rc;
}
