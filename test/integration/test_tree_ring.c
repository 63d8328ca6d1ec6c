/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration: a fabric's tree at one switch, frame by frame
 * (doc/fabric.md, "Folding in the tree"; doc/wire-format.md). The real
 * switch runs on four net_ring ports; port 3 is a fabric link whose
 * other end -- the parent switch, or a child -- is the test itself, at
 * 10.77.0.250 (peer = in the pipeline). Hosts h0..h2 sit on ports 0..2.
 *
 *  - below the root: the test, as the root, installs a tree; the switch
 *    answers the INSTALL, folds its members' DATA in tree order into one
 *    PARTIAL up, sends it again while the result is late, sends the
 *    result on to every member from the root's address, passes a late
 *    member's repeat on to the root, and forgets the tree when told;
 *  - as the root: hosts 2 and 3 join from behind port 3; the switch
 *    installs their tree in the child before it answers any JOIN, folds
 *    the child's PARTIAL as ranks 2 and 3 and sends one RESULT down the
 *    link; a child that never answers is given up on, and its members
 *    fold at the root as its own.
 *
 * Every test ends with nothing unsent and every mbuf back in the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "acis_proto.h"
#include "acis_tree.h"
#include "frames.h"
#include "harness.h"

#define JOB 7
#define CTX 65536u        /* the root's context id (generation 1, index 0) */
#define SPORT_BASE 40000  /* host i sends from UDP port SPORT_BASE + i */
#define LINK 3            /* the fabric link */
#define PEER 250          /* the switch at its other end: tf_host(250) */
#define CHUNK 1416
#define PEER_LINE "peer = 10.77.0.250 02:00:00:00:00:fa\n"
#define EXTRA PEER_LINE "[collective]\nlinger_ms = 200\n"
/* Below the root: a partial's resend interval (linger_ms / 16) of 125 ms,
 * long beside a test's steps even under the sanitizers, so a resend
 * comes only where the test waits for one. */
#define EXTRA_BELOW PEER_LINE "[collective]\nlinger_ms = 2000\n"

/* A frame a port sent, its addresses and ACiS message. */
struct got {
	uint8_t dmac[6];
	uint32_t sip, dip;
	uint16_t dport;
	struct acis_hdr h;
	uint8_t payload[1500];
	uint8_t frame[2048];
	unsigned int len;
};

static struct tf_addr
host(unsigned int i)
{
	return tf_host(10 + i);
}

static struct tf_addr
peer(void)
{
	return tf_host(PEER);
}

/* An ACiS message from src (UDP sport) to dst, on port; the frame's
 * length (its bytes in f when f is not NULL). */
static unsigned int
send_msg(unsigned int port, const struct tf_addr *src, uint16_t sport,
	 const struct tf_addr *dst, const struct acis_hdr *h,
	 const void *payload, uint8_t *f)
{
	uint8_t msg[ACIS_HDR_LEN + 1500], buf[2048];
	unsigned int l;

	acis_hdr_encode(h, msg);
	if (h->payload_len != 0 && payload != NULL)
		memcpy(msg + ACIS_HDR_LEN, payload, h->payload_len);
	l = tf_udp(f != NULL ? f : buf, dst, src, sport, ACIS_DEFAULT_UDP_PORT,
		   msg, ACIS_HDR_LEN + h->payload_len, -1);
	inject(port, f != NULL ? f : buf, l);
	return l;
}

/* The next frame port sent, decoded; 0 when it sent nothing more. */
static int
next(unsigned int port, struct got *g)
{
	uint8_t *f = g->frame;

	g->len = sent_copy(port, f, sizeof(g->frame));
	if (g->len == 0)
		return 0;
	assert_true(g->len >= ACIS_FRAME_OVERHEAD);
	memcpy(g->dmac, f, 6);
	memcpy(&g->sip, f + 26, 4);
	memcpy(&g->dip, f + 30, 4);
	g->dport = (uint16_t)(f[36] << 8 | f[37]);
	assert_int_equal(acis_msg_parse(f + 42, g->len - 42, &g->h), ACIS_E_OK);
	memcpy(g->payload, f + ACIS_FRAME_OVERHEAD, g->h.payload_len);
	return 1;
}

static void
must_next(unsigned int port, struct got *g)
{
	if (!next(port, g))
		fail_msg("port %u sent nothing", port);
}

static struct acis_hdr
data_hdr(uint32_t rank, uint32_t seq, uint16_t len)
{
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_DATA,
		.opcode = ACIS_OPCODE(ACIS_C_ALLREDUCE, ACIS_A_DEFAULT),
		.flags = ACIS_F_LAST, .dtype = ACIS_FLOAT32, .op = ACIS_OP_SUM,
		.hdr_len = ACIS_HDR_LEN, .job = JOB, .comm = CTX,
		.rank = rank, .root = ACIS_RANK_NONE, .seq = seq, .chunk = 0,
		.msg_size = len, .chunk_size = CHUNK, .payload_len = len,
		.contributors = 1,
	};

	return h;
}

/* Float sums whose order shows: (a + b) + c is 1, a + (b + c) is 0. */
static const float vals[3][2] = {{1e8f, 2.0f}, {-1e8f, 3.0f}, {1.0f, 4.0f}};

/* The test, as the root, installs the tree of comm CTX (size 4) whose
 * ranks 0..2 are the hosts behind the switch. */
static void
install_from_root(void)
{
	struct tf_addr r = peer(), s = switch_addr();
	uint8_t entries[3 * ACIS_TREE_ENTRY_LEN];
	struct acis_hdr h = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_CTRL,
		.opcode = ACIS_CTRL_INSTALL, .hdr_len = ACIS_HDR_LEN,
		.job = JOB, .comm = CTX, .root = 4, .msg_size = 3, .chunk = 0,
		.payload_len = sizeof(entries),
	};
	unsigned int i;
	struct got g;

	h.rank = rte_be_to_cpu_32(r.ip);
	h.auth = acis_rd48(r.mac);
	for (i = 0; i < 3; i++) {
		struct acis_endpoint ep;
		struct tf_addr a = host(i);

		memset(&ep, 0, sizeof(ep));
		ep.ip = a.ip;
		ep.udp_port = rte_cpu_to_be_16((uint16_t)(SPORT_BASE + i));
		memcpy(ep.mac, a.mac, 6);
		acis_tree_entry_put(entries + i * ACIS_TREE_ENTRY_LEN, i, &ep);
	}
	send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h, entries, NULL);
	run();
	must_next(LINK, &g);
	assert_int_equal(g.h.type, ACIS_T_CTRL_ACK);
	assert_int_equal(g.h.opcode, ACIS_CTRL_INSTALL);
	assert_int_equal(g.h.status, ACIS_S_OK);
	assert_int_equal(g.dip, r.ip);
	assert_memory_equal(g.dmac, r.mac, 6);
	assert_int_equal(coll_stats().installs_taken, 1);
}

/* Host i's DATA of collective seq, to the root through the switch. */
static void
contribute(unsigned int i, uint32_t seq, uint8_t flags, uint8_t *f,
	   unsigned int *len)
{
	struct tf_addr a = host(i), r = peer();
	struct acis_hdr h = data_hdr(i, seq, sizeof(vals[i]));
	unsigned int l;

	h.flags |= flags;
	l = send_msg(i, &a, (uint16_t)(SPORT_BASE + i), &r, &h, vals[i], f);
	if (len != NULL)
		*len = l;
	run();
}

static void
test_below_the_root_the_switch_folds_its_members_into_one_partial(void **state)
{
	struct tf_addr r = peer(), s = switch_addr();
	uint8_t junk[64] = {0}, late[2048], f[2048];
	const float result[2] = {42.0f, 43.0f};
	unsigned int i, late_len, l;
	struct acis_hdr h;
	uint64_t up;
	struct got g;
	float sum[2];

	(void)state;
	start_switch(NPORTS, EXTRA_BELOW);
	/* the hosts' stations are learned from what they send (as their
	 * JOINs to the root teach it in a fabric) */
	for (i = 0; i < 3; i++) {
		struct tf_addr a = host(i);

		l = tf_udp(f, &r, &a, 9, 9, junk, sizeof(junk), -1);
		inject(i, f, l);
	}
	run();
	discard_sent();
	install_from_root();

	/* DATA arrive out of rank order; nothing goes to the members, one
	 * partial goes up, folded in rank order (tree order) */
	contribute(2, 1, 0, NULL, NULL);
	contribute(0, 1, 0, NULL, NULL);
	contribute(1, 1, 0, late, &late_len);
	for (i = 0; i < 3; i++)
		expect_silent(i);
	must_next(LINK, &g);
	assert_int_equal(g.h.type, ACIS_T_DATA);
	assert_true(g.h.flags & ACIS_F_PARTIAL);
	assert_int_equal(g.h.rank, 0);
	assert_int_equal(g.h.contributors, 3);
	assert_int_equal(g.h.seq, 1);
	assert_int_equal(g.sip, s.ip);  /* from the switch's own address */
	assert_int_equal(g.dip, r.ip);  /* to the root's, through its MAC */
	assert_memory_equal(g.dmac, r.mac, 6);
	memcpy(sum, g.payload, sizeof(sum));
	assert_true(sum[0] == 1.0f); /* (1e8 + -1e8) + 1 */
	assert_true(sum[1] == 9.0f);
	expect_silent(LINK);
	assert_int_equal(coll_stats().partials_up, 1);

	/* the result is late: the partial goes again on the switch's timer */
	run_for(200);
	must_next(LINK, &g);
	assert_true(g.h.flags & ACIS_F_PARTIAL);
	assert_true(g.h.flags & ACIS_F_RETRANS);
	discard_sent();
	assert_true(coll_stats().partials_resent >= 1);

	/* the result from the root goes on to every member, from the root's
	 * address */
	h = data_hdr(0, 1, sizeof(result));
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PARTIAL | ACIS_F_LAST | ACIS_F_MULTICAST;
	h.contributors = 3;
	send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h, result, NULL);
	run();
	for (i = 0; i < 3; i++) {
		struct tf_addr a = host(i);

		must_next(i, &g);
		assert_int_equal(g.h.type, ACIS_T_RESULT);
		assert_false(g.h.flags & ACIS_F_PARTIAL);
		assert_int_equal(g.sip, r.ip);
		assert_int_equal(g.dip, a.ip);
		assert_int_equal(g.dport, SPORT_BASE + i);
		assert_memory_equal(g.payload, result, sizeof(result));
		expect_silent(i);
	}
	expect_silent(LINK);
	assert_int_equal(coll_stats().results_from_parent, 1);

	/* a member that lost its result repeats its DATA: its part done,
	 * the switch passes it on to the root as it came */
	inject(1, late, late_len);
	run();
	must_next(LINK, &g);
	assert_int_equal(g.len, late_len);
	assert_memory_equal(g.frame, late, late_len);
	assert_int_equal(coll_stats().tree_passed, 1);

	/* the root removes the tree: DATA pass through unfolded */
	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = ACIS_T_CTRL;
	h.opcode = ACIS_CTRL_INSTALL;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = JOB;
	h.comm = CTX;
	h.root = 4;
	h.rank = rte_be_to_cpu_32(r.ip);
	send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h, NULL, NULL);
	run_for(20);
	expect_silent(LINK);
	up = coll_stats().partials_up;
	contribute(0, 2, 0, f, &l);
	must_next(LINK, &g);
	assert_memory_equal(g.frame, f, l);
	assert_int_equal(coll_stats().partials_up, up);
	assert_int_equal(acis_tree_count(g_sw.coll.trees), 0);
	run_for(20);
	discard_sent();
	expect_no_leak();
	stop_switch();
}

/* Hosts 0 and 1 join on their ports, 2 and 3 from behind the link; the
 * INSTALL the child is sent. */
static void
join_with_child(struct got *install)
{
	struct tf_addr s = switch_addr();
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct tf_addr a = host(i);
		struct acis_hdr h = {
			.version = ACIS_PROTO_VERSION, .type = ACIS_T_CTRL,
			.opcode = ACIS_CTRL_JOIN, .hdr_len = ACIS_HDR_LEN,
			.job = JOB, .rank = i, .root = 4,
		};

		send_msg(i < 2 ? i : LINK, &a, (uint16_t)(SPORT_BASE + i), &s,
			 &h, NULL, NULL);
		run();
	}
	/* no JOIN answered before the child has the tree */
	expect_silent(0);
	expect_silent(1);
	must_next(LINK, install);
	assert_int_equal(install->h.type, ACIS_T_CTRL);
	assert_int_equal(install->h.opcode, ACIS_CTRL_INSTALL);
	expect_silent(LINK);
}

static void
test_at_the_root_a_child_gets_the_tree_and_folds_for_its_ranks(void **state)
{
	struct tf_addr c = peer(), s = switch_addr();
	const float part[2] = {-1e8f + 1.0f, 7.0f}; /* ranks 2 and 3 */
	const float mine[2][2] = {{1e8f, 1.0f}, {1.0f, 2.0f}};
	struct acis_endpoint ep;
	struct acis_hdr h;
	unsigned int i;
	struct got g;
	float want[2];

	(void)state;
	start_switch(NPORTS, EXTRA);
	join_with_child(&g);
	/* the INSTALL: to the child, ranks 2 and 3 with their addresses,
	 * the root's address in rank and auth */
	assert_int_equal(g.dip, c.ip);
	assert_memory_equal(g.dmac, c.mac, 6);
	assert_int_equal(g.h.comm, CTX);
	assert_int_equal(g.h.root, 4);
	assert_int_equal(g.h.msg_size, 2);
	assert_int_equal(g.h.rank, rte_be_to_cpu_32(s.ip));
	assert_int_equal(g.h.auth, acis_rd48(sw.mac));
	assert_int_equal(g.h.payload_len, 2 * ACIS_TREE_ENTRY_LEN);
	assert_int_equal(acis_tree_entry_get(g.payload, &ep), 2);
	assert_int_equal(ep.ip, host(2).ip);
	assert_int_equal(acis_tree_entry_get(g.payload + ACIS_TREE_ENTRY_LEN,
					     &ep), 3);
	assert_int_equal(ep.udp_port, rte_cpu_to_be_16(SPORT_BASE + 3));

	/* the child takes it: every JOIN is answered */
	h = g.h;
	h.type = ACIS_T_CTRL_ACK;
	h.status = ACIS_S_OK;
	h.payload_len = 0;
	h.auth = 0;
	send_msg(LINK, &c, ACIS_DEFAULT_UDP_PORT, &s, &h, NULL, NULL);
	run();
	for (i = 0; i < 2; i++) {
		must_next(i, &g);
		assert_int_equal(g.h.type, ACIS_T_CTRL_ACK);
		assert_int_equal(g.h.opcode, ACIS_CTRL_JOIN);
		assert_int_equal(g.h.comm, CTX);
	}
	for (i = 2; i < 4; i++) {
		must_next(LINK, &g);
		assert_int_equal(g.h.opcode, ACIS_CTRL_JOIN);
		assert_int_equal(g.dip, host(g.h.rank).ip);
	}
	expect_silent(LINK);

	/* members 0 and 1, then the child's partial for 2 and 3 */
	for (i = 0; i < 2; i++) {
		struct tf_addr a = host(i);

		h = data_hdr(i, 1, sizeof(mine[i]));
		send_msg(i, &a, (uint16_t)(SPORT_BASE + i), &s, &h, mine[i],
			 NULL);
		run();
	}
	h = data_hdr(2, 1, sizeof(part));
	h.flags |= ACIS_F_PARTIAL;
	h.contributors = 2;
	send_msg(LINK, &c, ACIS_DEFAULT_UDP_PORT, &s, &h, part, NULL);
	run();
	/* tree order: member 0, member 1, then the child */
	want[0] = (mine[0][0] + mine[1][0]) + part[0];
	want[1] = (mine[0][1] + mine[1][1]) + part[1];
	for (i = 0; i < 2; i++) {
		must_next(i, &g);
		assert_int_equal(g.h.type, ACIS_T_RESULT);
		assert_memory_equal(g.payload, want, sizeof(want));
	}
	/* one result down the link, for both ranks behind it */
	must_next(LINK, &g);
	assert_int_equal(g.h.type, ACIS_T_RESULT);
	assert_true(g.h.flags & ACIS_F_PARTIAL);
	assert_int_equal(g.h.rank, 2);
	assert_int_equal(g.dip, c.ip);
	assert_int_equal(g.sip, s.ip);
	assert_memory_equal(g.payload, want, sizeof(want));
	expect_silent(LINK);
	assert_int_equal(coll_stats().partials_in, 1);
	assert_int_equal(coll_stats().results_down, 1);

	/* the child repeats its partial (its result was lost): it gets the
	 * result again, nothing is folded twice */
	send_msg(LINK, &c, ACIS_DEFAULT_UDP_PORT, &s, &h, part, NULL);
	run();
	must_next(LINK, &g);
	assert_int_equal(g.h.type, ACIS_T_RESULT);
	assert_memory_equal(g.payload, want, sizeof(want));
	assert_int_equal(coll_stats().partials_in, 1);
	run_for(300); /* (the members do not confirm: the slot lingers out) */
	discard_sent();
	expect_no_leak();
	stop_switch();
}

/* An INSTALL of more ranks than a frame holds comes in several frames, in
 * any order, and is answered once every entry is in; a hundred members
 * fold into one partial. */
static void
test_an_install_in_several_frames_and_a_hundred_members(void **state)
{
	enum { N = 100 };
	struct tf_addr r = peer(), s = switch_addr();
	uint32_t per = ACIS_MAX_PAYLOAD(1500) / ACIS_TREE_ENTRY_LEN, first, i;
	uint8_t junk[64] = {0}, f[2048];
	static uint8_t entries[N * ACIS_TREE_ENTRY_LEN];
	struct acis_hdr h;
	unsigned int l;
	struct got g;
	float one = 1.0f, sum;

	(void)state;
	assert_true(per < N);
	start_switch(NPORTS, EXTRA_BELOW);
	for (i = 0; i < N; i++) { /* host i behind port i % 3 */
		struct tf_addr a = host(i);
		struct acis_endpoint ep;

		l = tf_udp(f, &r, &a, 9, 9, junk, sizeof(junk), -1);
		inject(i % 3, f, l);
		memset(&ep, 0, sizeof(ep));
		ep.ip = a.ip;
		ep.udp_port = rte_cpu_to_be_16((uint16_t)(SPORT_BASE + i));
		memcpy(ep.mac, a.mac, 6);
		acis_tree_entry_put(entries + i * ACIS_TREE_ENTRY_LEN, i, &ep);
	}
	run();
	discard_sent();
	/* the second frame first: nothing answered until both are in */
	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = ACIS_T_CTRL;
	h.opcode = ACIS_CTRL_INSTALL;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = JOB;
	h.comm = CTX;
	h.root = N + 1; /* one more rank, elsewhere */
	h.msg_size = N;
	h.rank = rte_be_to_cpu_32(r.ip);
	h.auth = acis_rd48(r.mac);
	for (first = per;; first = 0) {
		h.chunk = first;
		h.payload_len = (uint16_t)(RTE_MIN(per, N - first) *
					   ACIS_TREE_ENTRY_LEN);
		send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h,
			 entries + first * ACIS_TREE_ENTRY_LEN, NULL);
		run();
		if (first == 0)
			break;
		expect_silent(LINK);
	}
	must_next(LINK, &g);
	assert_int_equal(g.h.type, ACIS_T_CTRL_ACK);
	assert_int_equal(g.h.status, ACIS_S_OK);
	expect_silent(LINK);
	/* a repeat of a frame (its answer lost) is answered again */
	send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h, entries, NULL);
	run();
	must_next(LINK, &g);
	assert_int_equal(g.h.status, ACIS_S_OK);
	/* every member's 1.0: one partial of 100 */
	for (i = 0; i < N; i++) {
		struct tf_addr a = host(i);

		h = data_hdr(i, 1, sizeof(one));
		h.root = ACIS_RANK_NONE;
		send_msg(i % 3, &a, (uint16_t)(SPORT_BASE + i), &r, &h, &one,
			 NULL);
		if (i % 16 == 0)
			run();
	}
	run();
	must_next(LINK, &g);
	assert_true(g.h.flags & ACIS_F_PARTIAL);
	assert_int_equal(g.h.contributors, N);
	memcpy(&sum, g.payload, sizeof(sum));
	assert_true(sum == (float)N);
	expect_silent(LINK);
	/* the result: to each of the hundred, on its own port */
	h = data_hdr(0, 1, sizeof(sum));
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PARTIAL | ACIS_F_LAST | ACIS_F_MULTICAST;
	h.root = ACIS_RANK_NONE;
	h.contributors = N;
	send_msg(LINK, &r, ACIS_DEFAULT_UDP_PORT, &s, &h, &sum, NULL);
	run();
	for (i = 0, l = 0; i < 3; i++)
		while (next(i, &g)) {
			assert_int_equal(g.h.type, ACIS_T_RESULT);
			assert_int_equal(g.dip, host(g.h.rank).ip);
			l++;
		}
	assert_int_equal(l, N);
	run_for(20);
	discard_sent();
	expect_no_leak();
	stop_switch();
}

static void
test_a_child_that_never_answers_is_given_up_on(void **state)
{
	struct tf_addr s = switch_addr();
	unsigned int i, installs = 1, acks = 0;
	struct got g;

	(void)state;
	start_switch(NPORTS, EXTRA);
	join_with_child(&g);
	/* INSTALL again every 50 ms, then given up on: the JOINs answered */
	run_for(1300);
	while (next(LINK, &g)) {
		if (g.h.type == ACIS_T_CTRL && g.h.opcode == ACIS_CTRL_INSTALL)
			installs++;
		else if (g.h.type == ACIS_T_CTRL_ACK)
			acks++;
	}
	assert_true(installs >= 5);
	assert_int_equal(acks, 2);
	for (i = 0; i < 2; i++) {
		must_next(i, &g);
		assert_int_equal(g.h.opcode, ACIS_CTRL_JOIN);
	}
	assert_int_equal(coll_stats().installs_refused, 1);
	/* ranks 2 and 3 now fold at the root as its own members */
	for (i = 0; i < 4; i++) {
		struct tf_addr a = host(i);
		struct acis_hdr h = data_hdr(i, 1, sizeof(vals[0]));

		send_msg(i < 2 ? i : LINK, &a, (uint16_t)(SPORT_BASE + i), &s,
			 &h, vals[i % 3], NULL);
		run();
	}
	for (i = 0; i < 2; i++) {
		must_next(i, &g);
		assert_int_equal(g.h.type, ACIS_T_RESULT);
	}
	for (i = 2; i < 4; i++) {
		must_next(LINK, &g);
		assert_int_equal(g.h.type, ACIS_T_RESULT);
		assert_false(g.h.flags & ACIS_F_PARTIAL);
	}
	assert_int_equal(coll_stats().partials_in, 0);
	run_for(300);
	discard_sent();
	expect_no_leak();
	stop_switch();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_below_the_root_the_switch_folds_its_members_into_one_partial, teardown),
		cmocka_unit_test_teardown(test_at_the_root_a_child_gets_the_tree_and_folds_for_its_ranks, teardown),
		cmocka_unit_test_teardown(test_an_install_in_several_frames_and_a_hundred_members, teardown),
		cmocka_unit_test_teardown(test_a_child_that_never_answers_is_given_up_on, teardown),
	};
	int rc;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	harness_eal_cleanup();
	return rc;
}
