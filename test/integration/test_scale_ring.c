/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration: jobs larger than what the switch can answer in one walk.
 * The real switch on net_ring ports; P ranks, each at its own IP:port
 * pair (10.64.r/256.r%256, UDP port 41000 + r % 3), spread over the
 * ports. A completion owes every member an answer at once; here the
 * packet pool, or a port's TX queue (its ring), holds far fewer than
 * that, and the test takes what the ports sent only every few walks, as
 * a slow peer would. Every answer must still arrive, exactly once, and
 * the counters must say which ones waited.
 *
 * The ports' rings are emptied by the test: a frame the switch sent stays
 * in its ring, holding its mbuf, until the test takes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "acis_proto.h"
#include "frames.h"
#include "harness.h"

#define JOB 9
#define P 4096            /* ranks */
#define CHUNK 64          /* bytes of a chunk: small frames */
#define ELEMS (CHUNK / 4) /* int32 elements a chunk */
#define CHUNKS 3
#define SPORT 41000
#define BATCH 256         /* messages injected between walks */
#define WALKS_MAX 100000

/* mbufs from_every_rank leaves the switch when it injects */
static unsigned int reserve;

/* What the hosts got, by kind of answer, rank and chunk. */
enum got_kind { G_JOIN, G_RESULT, G_BCAST, G_BCAST_ACK, G_RESEND, G_KINDS };

static struct {
	unsigned int nports;
	unsigned int n[G_KINDS];
	uint8_t got[G_KINDS][P][CHUNKS];
	unsigned int dups, wrong;
	uint32_t world;
	uint32_t sums[CHUNKS][ELEMS]; /* every chunk's expected sum */
	int floats;                   /* seq 0 is the float32 allreduce */
	float fsum[ELEMS];            /* its rank-order sum */
	uint32_t busy[P], n_busy;     /* ranks sent back with NACK BUSY */
} t;

static uint32_t
rank_ip(uint32_t r)
{
	return rte_cpu_to_be_32(0x0A400000u | r);
}

static uint16_t
rank_sport(uint32_t r)
{
	return (uint16_t)(SPORT + r % 3);
}

static unsigned int
rank_port(uint32_t r)
{
	return r % t.nports;
}

/* The value rank r contributes at element i of chunk c. */
static int32_t
value(uint32_t r, uint32_t c, uint32_t i)
{
	return (int32_t)((r * 7 + c * 131 + i) % 1000) - 500;
}

static void
send_msg(uint32_t r, const struct acis_hdr *h, const void *payload)
{
	static uint8_t msg[ACIS_HDR_LEN + CHUNK * 64], f[2048];
	struct tf_addr s = sw, a = {.mac = {0x02, 0xb0, 0, 0, 0, 0}};
	unsigned int l;

	s.ip = sw_ip();
	a.mac[5] = (uint8_t)rank_port(r); /* a router behind each port */
	a.ip = rank_ip(r);
	acis_hdr_encode(h, msg);
	if (h->payload_len != 0)
		memcpy(msg + ACIS_HDR_LEN, payload, h->payload_len);
	l = tf_udp(f, &s, &a, rank_sport(r), ACIS_DEFAULT_UDP_PORT, msg,
		   ACIS_HDR_LEN + h->payload_len, -1);
	inject(rank_port(r), f, l);
}

static struct acis_hdr
hdr(uint8_t type, uint8_t opcode, uint32_t r)
{
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = type, .opcode = opcode,
		.hdr_len = ACIS_HDR_LEN, .job = JOB, .comm = t.world,
		.rank = r, .root = ACIS_RANK_NONE,
	};

	return h;
}

/* Take every frame the ports sent and tally what it answers. */
static void
take_all(void)
{
	static uint8_t f[2048];
	unsigned int p;

	for (p = 0; p < t.nports; p++) {
		uint32_t len;

		while ((len = sent_copy(p, f, sizeof(f))) != 0) {
			uint32_t ip, r, c = 0;
			struct acis_hdr h;
			enum got_kind k;

			assert_true(len >= 42);
			memcpy(&ip, f + 30, 4);
			r = rte_be_to_cpu_32(ip) & 0xffff;
			assert_int_equal(acis_msg_parse(f + 42, len - 42, &h),
					 ACIS_E_OK);
			if (r >= P || ip != rank_ip(r) || rank_port(r) != p ||
			    (f[36] << 8 | f[37]) != rank_sport(r)) {
				t.wrong++;
				continue;
			}
			if (h.type == ACIS_T_CTRL_ACK &&
			    h.opcode == ACIS_CTRL_JOIN && h.status == 0 &&
			    h.rank == r) {
				k = G_JOIN;
				t.world = h.comm;
			} else if (h.type == ACIS_T_RESULT && h.seq == 0 &&
				   h.rank == r && h.chunk < CHUNKS) {
				k = G_RESULT;
				c = h.chunk;
				if (h.payload_len != CHUNK ||
				    memcmp(f + ACIS_FRAME_OVERHEAD,
					   t.floats ? (const void *)t.fsum :
						      (const void *)t.sums[c],
					   CHUNK) != 0)
					t.wrong++;
			} else if (h.type == ACIS_T_NACK &&
				   h.status == ACIS_S_BUSY && h.seq == 0 &&
				   h.rank == r && h.chunk == 0 && t.floats) {
				t.busy[t.n_busy++] = r;
				continue;
			} else if (h.type == ACIS_T_RESULT && h.seq == 1 &&
				   h.rank == r && h.chunk == 0) {
				k = G_BCAST;
			} else if (h.type == ACIS_T_ACK && h.seq == 1 &&
				   r == 0 && h.chunk == 0) {
				k = G_BCAST_ACK;
			} else if (h.type == ACIS_T_RESULT && h.seq == 2 &&
				   h.rank == r && h.chunk == 0) {
				k = G_RESEND;
			} else {
				t.wrong++;
				continue;
			}
			if (t.got[k][r][c] != 0 && k != G_RESEND)
				t.dups++;
			t.got[k][r][c]++;
			t.n[k]++;
		}
	}
}

/* Walk until the switch has nothing more to send, taking what the ports
 * sent only every `every` walks: in between, the pool and the ports'
 * rings fill up. */
static void
pump(unsigned int every)
{
	unsigned int w;

	for (w = 0; w < WALKS_MAX; w++) {
		walk();
		if (w % every == every - 1)
			take_all();
		if (w >= 4 && !busy()) {
			take_all();
			return;
		}
	}
	fail_msg("the switch still had answers to send after %u walks", w);
}

/* Each rank, in batches the input rings and the pool take, sends what
 * msg makes for it. */
static void
from_every_rank(void (*msg)(uint32_t r), unsigned int every)
{
	uint32_t r, n = 0;

	for (r = 0; r < P; r++) {
		if (n == BATCH ||
		    rte_mempool_avail_count(g_sw.pool) < reserve) {
			pump(every);
			n = 0;
		}
		msg(r);
		n++;
	}
	pump(every);
}

static void
join_msg(uint32_t r)
{
	struct acis_hdr h = hdr(ACIS_T_CTRL, ACIS_CTRL_JOIN, r);

	h.comm = 0;
	h.root = P;
	send_msg(r, &h, NULL);
}

static struct acis_hdr
data_hdr(uint8_t coll, uint32_t r, uint32_t seq, uint32_t chunk,
	 uint64_t msg_size)
{
	struct acis_hdr h = hdr(ACIS_T_DATA, ACIS_OPCODE(coll, ACIS_A_DEFAULT),
				r);

	h.dtype = ACIS_INT32;
	h.op = coll == ACIS_C_BCAST ? ACIS_OP_NONE : ACIS_OP_SUM;
	h.seq = seq;
	h.chunk = chunk;
	h.msg_size = msg_size;
	h.chunk_size = CHUNK;
	h.payload_len = CHUNK;
	h.contributors = 1;
	if (chunk == msg_size / CHUNK - 1)
		h.flags = ACIS_F_LAST;
	if (coll == ACIS_C_BCAST)
		h.root = 0;
	return h;
}

/* Each rank's chunks together, as a host sends them: the last rank's
 * complete all three slots in one burst. */
static void
allreduce_msg(uint32_t r)
{
	int32_t v[ELEMS];
	uint32_t c, i;

	for (c = 0; c < CHUNKS; c++) {
		struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, r, 0, c,
					     CHUNKS * CHUNK);

		for (i = 0; i < ELEMS; i++)
			v[i] = value(r, c, i);
		send_msg(r, &h, v);
	}
}

/* Rank r confirms keys 0..n-1 of collective seq. */
static void
confirm(uint32_t r, uint8_t coll, uint32_t seq, uint32_t n)
{
	struct acis_hdr h = hdr(ACIS_T_ACK, ACIS_OPCODE(coll, ACIS_A_DEFAULT),
				r);
	uint32_t keys[CHUNKS], k;

	h.seq = seq;
	h.chunk = n;
	h.payload_len = (uint16_t)(4 * n);
	for (k = 0; k < n; k++)
		keys[k] = rte_cpu_to_le_32(k);
	send_msg(r, &h, keys);
}

static void
confirm_allreduce(uint32_t r)
{
	confirm(r, ACIS_C_ALLREDUCE, 0, CHUNKS);
}

static void
confirm_allreduce_one(uint32_t r)
{
	confirm(r, ACIS_C_ALLREDUCE, 0, 1);
}

static void
confirm_bcast(uint32_t r)
{
	if (r != 0)
		confirm(r, ACIS_C_BCAST, 1, 1);
}

static void
resend_msg(uint32_t r)
{
	int32_t v[ELEMS] = {0};
	struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, r, 2, 0, CHUNK);

	send_msg(r, &h, v);
}

static void
confirm_even(uint32_t r)
{
	if (r % 2 == 0)
		confirm(r, ACIS_C_ALLREDUCE, 2, 1);
}

static void
confirm_odd(uint32_t r)
{
	if (r % 2 == 1)
		confirm(r, ACIS_C_ALLREDUCE, 2, 1);
}

/* Has every rank that did not confirm been sent its answer again? */
static int
odd_ranks_answered_again(void)
{
	uint32_t r;

	for (r = 1; r < P; r += 2)
		if (t.got[G_RESEND][r][0] < 2)
			return 0;
	return 1;
}

static void
expected_sums(void)
{
	uint32_t r, c, i;

	memset(t.sums, 0, sizeof(t.sums));
	for (c = 0; c < CHUNKS; c++)
		for (i = 0; i < ELEMS; i++)
			for (r = 0; r < P; r++)
				t.sums[c][i] += (uint32_t)value(r, c, i);
	for (c = 0; c < CHUNKS; c++)
		for (i = 0; i < ELEMS; i++)
			t.sums[c][i] = rte_cpu_to_le_32(t.sums[c][i]);
}

static uint32_t
slots_in_use(void)
{
	return slot_stats().in_use;
}

static uint64_t
all_drops(void)
{
	struct acis_lcore_stats s = delta();
	uint64_t n = 0;
	unsigned int i;

	for (i = 1; i < ACIS_DROP_MAX; i++)
		n += s.drops[i];
	return n;
}

static void
start(unsigned int nports, unsigned int mbufs)
{
	memset(&t, 0, sizeof(t));
	t.nports = nports;
	reserve = 16;
	expected_sums();
	/* no deadline or linger during the test; the switch resends only
	 * when the test says */
	start_switch_with(nports, mbufs, "[collective]\ndeadline_ms = 600000\n"
			  "linger_ms = 600000\n");
	g_sw.coll.resend_tsc = UINT64_MAX / 4;
}

/* JOIN, then a 3-chunk allreduce: every member gets every answer, once. */
static void
join_and_allreduce(unsigned int every)
{
	from_every_rank(join_msg, every);
	assert_int_equal(t.n[G_JOIN], P);
	assert_int_not_equal(t.world, 0);
	from_every_rank(allreduce_msg, every);
	assert_int_equal(t.n[G_RESULT], P * CHUNKS);
	from_every_rank(confirm_allreduce, every);
	assert_int_equal(slots_in_use(), 0);
}

/* A float32 value whose sums depend on the order of the adds. */
static float
fvalue(uint32_t r, uint32_t i)
{
	return (float)((int)((r * 7919 + i * 31) % 2001) - 1000) *
	       (float)(1u << (r % 24)) * 1e-3f;
}

static void
float_msg(uint32_t r, int retrans)
{
	struct acis_hdr h = data_hdr(ACIS_C_ALLREDUCE, r, 0, 0, CHUNK);
	float v[ELEMS];
	uint32_t i;

	h.dtype = ACIS_FLOAT32;
	if (retrans)
		h.flags |= ACIS_F_RETRANS;
	for (i = 0; i < ELEMS; i++)
		v[i] = fvalue(r, i);
	send_msg(r, &h, v);
}

/* Ranks from the highest down: every contribution but rank 0's is early. */
static void
float_msg_reversed(uint32_t r)
{
	float_msg(P - 1 - r, 0);
}

/* The end of every test: nothing waits anywhere, nothing was dropped,
 * nothing was wrong or sent twice, every mbuf is back. */
static void
finish(void)
{
	assert_int_equal(acis_coll_fanouts_pending(), 0);
	assert_int_equal(t.wrong, 0);
	assert_int_equal(t.dups, 0);
	/* but the contributions sent back to come again */
	assert_int_equal(all_drops() - coll_stats().held_refused, 0);
	assert_int_equal(slots_in_use(), 0);
	expect_no_leak();
	stop_switch();
}

/*
 * A pool of 1535 mbufs, of which what the rings and caches may take
 * leaves about 350 for answers, against 4096 JOIN answers and 12288
 * RESULTs owed at once, and 4095 forwarded copies of a bcast block: the
 * switch sends what the pool holds, goes on at the next walks as the
 * ports give mbufs back, and counts the fan-outs that waited and the
 * answers that went late. The switch's own resends to the members that
 * did not confirm go the same way.
 */
static void
test_answers_beyond_the_mbuf_pool_all_arrive_later_and_are_counted(void **state)
{
	struct acis_coll_stats cs;
	uint64_t t0;
	uint32_t r;

	(void)state;
	start(NPORTS, 1535);
	join_and_allreduce(4);
	/* a bcast of one chunk from rank 0: 4095 receivers */
	{
		int32_t v[ELEMS] = {7};
		struct acis_hdr h = data_hdr(ACIS_C_BCAST, 0, 1, 0, CHUNK);

		send_msg(0, &h, v);
		pump(4);
	}
	assert_int_equal(t.n[G_BCAST], P - 1);
	assert_int_equal(t.got[G_BCAST][0][0], 0);
	/* the root is acknowledged once every receiver has confirmed */
	assert_int_equal(t.n[G_BCAST_ACK], 0);
	from_every_rank(confirm_bcast, 4);
	assert_int_equal(t.n[G_BCAST_ACK], 1);
	/* an allreduce only half the members confirm: the switch sends the
	 * others their answers again, every 20 ms */
	g_sw.coll.resend_tsc = rte_get_tsc_hz() / 1000 * 20;
	from_every_rank(resend_msg, 4);
	assert_true(t.n[G_RESEND] >= P);
	from_every_rank(confirm_even, 4);
	t0 = rte_get_tsc_cycles();
	while (!odd_ranks_answered_again() &&
	       rte_get_tsc_cycles() - t0 < rte_get_tsc_hz() * 5) {
		usleep(2000);
		pump(4); /* a resend that started goes to its end */
	}
	g_sw.coll.resend_tsc = UINT64_MAX / 4;
	for (r = 0; r < P; r++)
		if (t.got[G_RESEND][r][0] < 1 + r % 2)
			fail_msg("rank %u got %u answers of the resent "
				 "allreduce", r, t.got[G_RESEND][r][0]);
	from_every_rank(confirm_odd, 4);
	cs = coll_stats();
	/* the pool ran dry, and the switch waited instead of losing them */
	assert_true(cs.nombuf > 0);
	assert_true(cs.fanouts_deferred >= 1 + CHUNKS + 1 + 1);
	assert_true(cs.answers_sent_late > 0);
	assert_int_equal(cs.answers_dropped, 0);
	assert_true(cs.answers_resent >= P / 2);
	print_message("# P=%u, 1535 mbufs: %" PRIu64 " fan-outs waited, %"
		      PRIu64 " answers sent late, the pool ran dry %" PRIu64
		      " times\n", P, cs.fanouts_deferred, cs.answers_sent_late,
		      cs.nombuf);
	finish();
}

/*
 * Every rank behind one port, whose TX queue (its ring) takes 1024
 * frames: 4096 JOIN answers and 12288 RESULTs at once do not fit. What
 * the queue refuses is held and sent as it drains, and the collective
 * stage waits for the port; nothing is dropped.
 */
static void
test_answers_beyond_a_full_tx_queue_are_held_and_sent_as_it_drains(void **state)
{
	struct acis_lcore_stats s;

	(void)state;
	start(1, 16383);
	join_and_allreduce(8);
	s = delta();
	assert_true(s.port_tx_held[0] > 0);
	assert_int_equal(s.port_tx_held_sent[0], s.port_tx_held[0]);
	assert_int_equal(s.drops[ACIS_DROP_TX_FULL], 0);
	assert_true(coll_stats().fanouts_deferred >= 1 + CHUNKS);
	print_message("# P=%u behind one port: %" PRIu64 " answers held at "
		      "TX, all sent later\n", P, s.port_tx_held[0]);
	finish();
}

/*
 * A float32 sum is folded in rank order, so a contribution that comes
 * before its turn is held, its mbuf with it: here every rank's but rank
 * 0's, 4095 of them, in a pool of 1535. The worker holds at most its
 * share (a quarter of the mbufs beyond the ports', 87 here), keeping the
 * lowest ranks and sending the others back with NACK BUSY; sent again,
 * as hosts do, they all get in, in rounds, and every member gets the
 * rank-order sum, bit for bit.
 */
static void
test_early_contributions_beyond_the_hold_share_are_sent_back_and_come_again(
	void **state)
{
	struct acis_coll_stats cs;
	uint32_t again[P], n, i, r, rounds = 0;

	(void)state;
	start(NPORTS, 1535);
	t.floats = 1;
	for (i = 0; i < ELEMS; i++) {
		float acc = fvalue(0, i);

		for (r = 1; r < P; r++)
			acc += fvalue(r, i);
		t.fsum[i] = acc;
	}
	/* this host has no retransmission timer: it sends a chunk again
	 * only when told BUSY, so every NACK must find an mbuf (the test
	 * takes what the ports sent every walk and leaves the switch room) */
	reserve = 256;
	from_every_rank(join_msg, 1);
	from_every_rank(float_msg_reversed, 1);
	while (t.n_busy != 0) {
		assert_true(++rounds < 200);
		n = t.n_busy;
		memcpy(again, t.busy, n * sizeof(again[0]));
		t.n_busy = 0;
		for (i = 0; i < n; i++) {
			if (rte_mempool_avail_count(g_sw.pool) < reserve)
				pump(1);
			float_msg(again[i], 1);
		}
		pump(1);
	}
	assert_int_equal(t.n[G_RESULT], P);
	cs = coll_stats();
	assert_true(cs.held_refused >= P - 1 - g_sw.hold_max);
	assert_int_equal(cs.held, 0);
	assert_int_equal(cs.nombuf, 0);
	assert_int_equal(delta().drops[ACIS_DROP_ACIS_BUSY], cs.held_refused);
	print_message("# P=%u, float32 sum in reverse rank order, %u held at "
		      "most: %" PRIu64 " sent back, all in after %u rounds\n",
		      P, g_sw.hold_max, cs.held_refused, rounds);
	from_every_rank(confirm_allreduce_one, 4);
	finish();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_answers_beyond_the_mbuf_pool_all_arrive_later_and_are_counted, teardown),
		cmocka_unit_test_teardown(test_answers_beyond_a_full_tx_queue_are_held_and_sent_as_it_drains, teardown),
		cmocka_unit_test_teardown(test_early_contributions_beyond_the_hold_share_are_sent_back_and_come_again, teardown),
	};
	int rc;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	harness_eal_cleanup();
	return rc;
}
