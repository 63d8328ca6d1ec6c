/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration: the real switch (pipeline file, ports, graph of stages) on
 * net_ring ports as an L2 switch and a host: learning, flooding, ARP, ICMP,
 * and what it drops and why. The harness (harness.h) owns both ends of
 * every port's rings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "acis_pipeline.h"
#include "acis_proto.h"
#include "frames.h"
#include "fault.h"
#include "harness.h"

/* ---- tests ---- */

static void
test_unknown_unicast_floods_then_learned_reply_is_unicast(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f1[128], f2[128];
	unsigned int l1, l2, p;

	(void)state;
	start_switch(NPORTS, NULL);
	l1 = tf_udp(f1, &b, &a, 1000, 2000, "hello", 5, -1);
	inject(0, f1, l1);
	run();
	for (p = 1; p < NPORTS; p++)
		expect_frame(p, f1, l1);
	expect_silent(0);
	/* b answers from port 2: a is known on port 0, so only port 0. */
	l2 = tf_udp(f2, &a, &b, 2000, 1000, "world!", 6, -1);
	inject(2, f2, l2);
	run();
	expect_frame(0, f2, l2);
	for (p = 1; p < NPORTS; p++)
		expect_silent(p);
	/* and now b is known too */
	inject(0, f1, l1);
	run();
	expect_frame(2, f1, l1);
	expect_silent(1);
	expect_silent(3);
	assert_int_equal(delta().flooded, 1);
	assert_int_equal(delta().flood_copies, NPORTS - 1);
	assert_int_equal(delta().learned, 2);
	assert_int_equal(delta().port_tx_pkts[2], 2);
	expect_no_leak();
	stop_switch();
}

static void
test_broadcast_floods_to_every_other_port(void **state)
{
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct tf_addr a = tf_host(10);
	uint8_t f[128];
	unsigned int l, p;

	(void)state;
	start_switch(NPORTS, NULL);
	l = tf_eth(f, bc, a.mac, 0x88b5, -1);
	memset(f + l, 0x5a, 46);
	l += 46;
	inject(3, f, l);
	run();
	for (p = 0; p < 3; p++)
		expect_frame(p, f, l);
	expect_silent(3);
	expect_no_leak();
	stop_switch();
}

static void
test_static_entry_forwards_without_flooding(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(0x42);
	uint8_t f[128];
	unsigned int l;

	(void)state;
	start_switch(NPORTS, "[l2]\nstatic = 02:00:00:00:00:42 p3\n");
	l = tf_udp(f, &b, &a, 1, 2, "x", 1, -1);
	inject(0, f, l);
	run();
	expect_frame(3, f, l);
	expect_silent(1);
	expect_silent(2);
	assert_int_equal(delta().flooded, 0);
	/* a station claiming the static MAC elsewhere does not move it */
	l = tf_udp(f, &a, &b, 2, 1, "y", 1, -1);
	inject(1, f, l);
	run();
	expect_frame(0, f, l);
	l = tf_udp(f, &b, &a, 1, 2, "z", 1, -1);
	inject(0, f, l);
	run();
	expect_frame(3, f, l);
	expect_silent(1);
	expect_no_leak();
	stop_switch();
}

static void
test_destination_on_ingress_port_is_filtered(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f[128];
	unsigned int l, p;

	(void)state;
	start_switch(NPORTS, NULL);
	l = tf_udp(f, &a, &b, 1, 2, "b", 1, -1); /* learn b on port 1 */
	inject(1, f, l);
	run();
	for (p = 0; p < NPORTS; p++)
		while (sent(p) != NULL)
			;
	rte_mempool_in_use_count(g_sw.pool);
	l = tf_udp(f, &b, &a, 2, 1, "a", 1, -1); /* a on port 1 too */
	inject(1, f, l);
	run();
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(drops(ACIS_DROP_L2_SAME_PORT), 1);
	stop_switch();
}

/* Known unicast is sent on by the RX stage (or the parse stage) itself;
 * once a frame of a burst needs the L2 stage (here an unknown destination,
 * flooded), the rest of the burst follows it there, so port 2 sends the
 * four frames in the order they came. Every frame counts at the L2 stage
 * either way. */
static void
test_burst_keeps_order_across_direct_and_flooded_frames(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11), c = tf_host(12);
	uint8_t f[4][128];
	unsigned int l[4], i;

	(void)state;
	start_switch(NPORTS, NULL);
	l[0] = tf_udp(f[0], &a, &c, 1, 2, "c", 1, -1); /* learn c on port 2 */
	inject(2, f[0], l[0]);
	run();
	for (i = 0; i < NPORTS; i++)
		if (i != 2)
			expect_frame(i, f[0], l[0]); /* a was unknown */
	l[0] = tf_udp(f[0], &c, &a, 2, 1, "1", 1, -1);
	l[1] = tf_udp(f[1], &b, &a, 2, 1, "2", 1, -1); /* b unknown */
	l[2] = tf_udp(f[2], &c, &a, 2, 1, "3", 1, -1);
	l[3] = tf_udp(f[3], &c, &a, 2, 1, "4", 1, -1);
	for (i = 0; i < 4; i++)
		inject(0, f[i], l[i]);
	run();
	for (i = 0; i < 4; i++)
		expect_frame(2, f[i], l[i]);
	expect_silent(2);
	expect_frame(1, f[1], l[1]);
	expect_frame(3, f[1], l[1]);
	expect_silent(1);
	expect_silent(3);
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_L2], 1 + 4);
	assert_int_equal(delta().flooded, 1 + 1);
	expect_no_leak();
	stop_switch();
}

/* Teach the switch where station src is: a frame from it to dst arrives
 * on port. The caller runs the switch and discards what it sent. Returns
 * the frame's length. */
static unsigned int
teach(unsigned int port, const struct tf_addr *src, const struct tf_addr *dst)
{
	uint8_t f[128];
	unsigned int len = tf_udp(f, dst, src, 1, 2, "t", 1, -1);

	inject(port, f, len);
	return len;
}

/* The parse stage remembers the header of the last frame it sent
 * straight to a port and sends a frame with the same header from the
 * same port the same way. That must not carry over to what the header
 * does not say: a frame cut short (forwarded by the L2 stage) or longer
 * than the MTU allows (dropped) with the same 14 bytes is judged on its
 * own, as is the same header arriving on another port (which also moves
 * its source there). */
static void
test_same_header_is_judged_again_on_length_and_port(void **state)
{
	struct tf_addr a = tf_host(10), c = tf_host(12);
	static uint8_t f[5][1700]; /* zeros: the long frame's payload */
	unsigned int l[5], i, p;

	(void)state;
	start_switch(NPORTS, NULL);
	teach(2, &c, &a);
	teach(0, &a, &c);
	run();
	discard_sent();
	l[0] = tf_udp(f[0], &c, &a, 2, 1, "1", 1, -1);
	memcpy(f[1], f[0], 20); /* the header, cut short */
	l[1] = 20;
	l[2] = tf_udp(f[2], &c, &a, 2, 1, "2", 1, -1);
	l[3] = tf_udp(f[3], &c, &a, 2, 1, f[4], 1600, -1); /* beyond MTU */
	l[4] = tf_udp(f[4], &c, &a, 2, 1, "4", 1, -1);
	for (i = 0; i < 5; i++)
		inject(0, f[i], l[i]);
	run();
	/* a passing frame's IPv4 header is not the switch's to check: the
	 * short one is forwarded (by the L2 stage, in order) */
	expect_frame(2, f[0], l[0]);
	expect_frame(2, f[1], l[1]);
	expect_frame(2, f[2], l[2]);
	expect_frame(2, f[4], l[4]);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(drops(ACIS_DROP_ETH_OVERSIZE), 1);
	/* the same header from port 1: a moves there, c is still on 2 */
	inject(0, f[0], l[0]);
	inject(1, f[2], l[2]);
	inject(0, f[4], l[4]);
	run();
	/* one burst: the RX stage reads port 0's queue, then port 1's */
	expect_frame(2, f[0], l[0]);
	expect_frame(2, f[4], l[4]);
	expect_frame(2, f[2], l[2]);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(delta().learned, 2 + 1); /* and a moved to port 1 */
	expect_no_leak();
	stop_switch();
}

/* The direct path remembers several flows of a burst (direct.h): frames
 * of flows taking turns, from two sources to two ports, all go straight
 * out, in order. A station that moves in the middle of a burst makes it
 * forget them all: a remembered flow to that station would otherwise go
 * on to the port it left. */
static void
test_a_move_forgets_the_flows_the_direct_path_remembers(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11), c = tf_host(12),
		       e = tf_host(14);
	enum { N = 6 };
	uint8_t f[N][128];
	unsigned int l[N], i, p;
	struct acis_lcore_stats d0, d;

	(void)state;
	start_switch(NPORTS, NULL);
	teach(1, &b, &a);
	teach(2, &c, &a);
	teach(0, &a, &b);
	teach(0, &e, &b);
	run();
	discard_sent();
	d0 = delta();
	assert_int_equal(d0.learned, 4);
	/* four flows taking turns: a->b, e->c, e->b, a->c, twice over, then
	 * a and e to b only (several flows, one port) */
	{
		static const unsigned int to[] = {1, 2, 1, 2, 1, 2, 1, 2,
						  1, 1, 1, 1};
		static const int from_a[] = {1, 0, 0, 1, 1, 0, 0, 1,
					     1, 0, 1, 0};
		enum { M = RTE_DIM(to) };
		static uint8_t g[M][128];
		unsigned int gl[M];

		for (i = 0; i < M; i++) {
			gl[i] = tf_udp(g[i], to[i] == 1 ? &b : &c,
				       from_a[i] ? &a : &e, 2, 1, &i,
				       sizeof(i), -1);
			inject(0, g[i], gl[i]);
		}
		run();
		for (i = 0; i < M; i++)
			expect_frame(to[i], g[i], gl[i]);
		for (p = 0; p < NPORTS; p++)
			expect_silent(p);
		d = delta();
		assert_int_equal(d.rx_direct - d0.rx_direct, M);
		assert_int_equal(d.port_tx_pkts[1] - d0.port_tx_pkts[1], 8);
		assert_int_equal(d.port_tx_pkts[2] - d0.port_tx_pkts[2], 4);
		assert_int_equal(d.learned, 4);
	}
	/* one burst on port 0: a->c (remembered: to port 2), then c itself
	 * from port 0 (it moved: to b on port 1), then a->c again, which
	 * must not go to port 2 (c is on the port it came from: dropped),
	 * and a->b */
	l[0] = tf_udp(f[0], &c, &a, 2, 1, "0", 1, -1);
	l[1] = tf_udp(f[1], &b, &c, 2, 1, "1", 1, -1);
	l[2] = tf_udp(f[2], &c, &a, 2, 1, "2", 1, -1);
	l[3] = tf_udp(f[3], &b, &a, 2, 1, "3", 1, -1);
	l[4] = tf_udp(f[4], &c, &a, 2, 1, "4", 1, -1);
	l[5] = tf_udp(f[5], &b, &a, 2, 1, "5", 1, -1);
	for (i = 0; i < N; i++)
		inject(0, f[i], l[i]);
	run();
	expect_frame(2, f[0], l[0]);
	expect_frame(1, f[1], l[1]);
	expect_frame(1, f[3], l[3]);
	expect_frame(1, f[5], l[5]);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	d = delta();
	assert_int_equal(d.learned, 4 + 1); /* c, now on port 0 */
	assert_int_equal(drops(ACIS_DROP_L2_SAME_PORT), 2);
	expect_no_leak();
	stop_switch();
}

static void
test_unknown_unicast_dropped_when_flooding_is_off(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f[128];
	unsigned int l, p;

	(void)state;
	start_switch(NPORTS, "[l2]\nflood = off\n");
	l = tf_udp(f, &b, &a, 1, 2, "b", 1, -1);
	inject(0, f, l);
	run();
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(drops(ACIS_DROP_L2_UNKNOWN_DST), 1);
	expect_no_leak();
	stop_switch();
}

static void
test_arp_request_for_switch_is_answered_on_ingress_port(void **state)
{
	struct tf_addr a = tf_host(10);
	uint8_t f[128];
	struct rte_mbuf *m;
	const uint8_t *r, *arp;
	unsigned int l, p;
	uint32_t ip = sw_ip();

	(void)state;
	start_switch(NPORTS, NULL);
	l = tf_arp_request(f, &a, ip);
	inject(2, f, l);
	run();
	m = sent(2);
	assert_non_null(m);
	r = rte_pktmbuf_mtod(m, const uint8_t *);
	arp = r + 14;
	assert_memory_equal(r, a.mac, 6);       /* to the asker */
	assert_memory_equal(r + 6, sw.mac, 6);  /* from the switch */
	assert_int_equal(arp[7], 2);            /* reply */
	assert_memory_equal(arp + 8, sw.mac, 6);
	assert_memory_equal(arp + 14, &ip, 4);
	assert_memory_equal(arp + 18, a.mac, 6);
	assert_memory_equal(arp + 24, &a.ip, 4);
	rte_pktmbuf_free(m);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p); /* answered, not flooded */
	assert_int_equal(delta().arp_replies, 1);
	/* ARP for someone else is an ordinary broadcast */
	l = tf_arp_request(f, &a, tf_host(99).ip);
	inject(2, f, l);
	run();
	expect_frame(0, f, l);
	expect_frame(1, f, l);
	expect_frame(3, f, l);
	expect_no_leak();
	stop_switch();
}

static void
test_icmp_echo_to_switch_gets_valid_reply(void **state)
{
	struct tf_addr a = tf_host(10), s = sw;
	uint8_t f[256];
	struct rte_mbuf *m;
	const uint8_t *r;
	unsigned int l;

	(void)state;
	s.ip = sw_ip();
	start_switch(2, NULL);
	l = tf_icmp_echo(f, &s, &a, 7, 1, 56);
	inject(1, f, l);
	run();
	m = sent(1);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_pkt_len(m), l);
	r = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(r, a.mac, 6);
	assert_memory_equal(r + 14 + 12, &s.ip, 4);   /* src: switch */
	assert_memory_equal(r + 14 + 16, &a.ip, 4);   /* dst: asker */
	assert_int_equal(acis_csum(r + 14, 20), 0);   /* IPv4 checksum */
	assert_int_equal(r[34], 0);                   /* echo reply */
	assert_int_equal(acis_csum(r + 34, l - 34), 0);
	assert_memory_equal(r + 38, f + 38, l - 38);  /* id, seq, data */
	rte_pktmbuf_free(m);
	expect_silent(0);
	assert_int_equal(delta().icmp_replies, 1);
	expect_no_leak();
	stop_switch();
}

static void
test_bad_acis_headers_are_counted_by_reason_and_not_forwarded(void **state)
{
	struct tf_addr a = tf_host(10), s = sw;
	uint8_t f[256], payload[64];
	struct acis_hdr h = {
		.version = 1, .type = ACIS_T_DATA,
		.opcode = ACIS_OPCODE(ACIS_C_ALLREDUCE, 0),
		.dtype = ACIS_FLOAT32, .op = ACIS_OP_SUM, .hdr_len = ACIS_HDR_LEN,
		.job = 1, .comm = 12345, .rank = 0, .root = ACIS_RANK_NONE,
		.msg_size = 8, .payload_len = 8, .chunk_size = 1416,
	};
	unsigned int l, p;

	(void)state;
	s.ip = sw_ip();
	start_switch(NPORTS, NULL);
	/* cut short */
	memset(payload, 0, sizeof(payload));
	l = tf_udp(f, &s, &a, 5000, ACIS_DEFAULT_UDP_PORT, payload, 20, -1);
	inject(0, f, l);
	/* a version we do not speak */
	h.version = 9;
	acis_hdr_encode(&h, payload);
	l = tf_udp(f, &s, &a, 5000, ACIS_DEFAULT_UDP_PORT, payload,
		   ACIS_HDR_LEN + 8, -1);
	inject(0, f, l);
	/* a bitwise op on floats */
	h.version = 1;
	h.op = ACIS_OP_BXOR;
	acis_hdr_encode(&h, payload);
	l = tf_udp(f, &s, &a, 5000, ACIS_DEFAULT_UDP_PORT, payload,
		   ACIS_HDR_LEN + 8, -1);
	inject(0, f, l);
	/* well formed, but for a communicator nobody created */
	h.op = ACIS_OP_SUM;
	acis_hdr_encode(&h, payload);
	l = tf_udp(f, &s, &a, 5000, ACIS_DEFAULT_UDP_PORT, payload,
		   ACIS_HDR_LEN + 8, -1);
	inject(0, f, l);
	run();
	/* the last is answered NACK NO_COMM (the sender is told at once);
	 * the malformed ones get nothing */
	{
		struct rte_mbuf *m = sent(0);
		struct acis_hdr r;

		assert_non_null(m);
		acis_hdr_decode(rte_pktmbuf_mtod(m, uint8_t *) +
				ACIS_UDP4_PAYLOAD_OFF, &r);
		assert_int_equal(r.type, ACIS_T_NACK);
		assert_int_equal(r.status, ACIS_S_NO_COMM);
		assert_int_equal(r.comm, 12345);
		rte_pktmbuf_free(m);
	}
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(drops(ACIS_DROP_ACIS_TRUNC), 1);
	assert_int_equal(drops(ACIS_DROP_ACIS_BAD_VERSION), 1);
	assert_int_equal(drops(ACIS_DROP_ACIS_BAD_OP), 1);
	assert_int_equal(drops(ACIS_DROP_ACIS_NO_COMM), 1);
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_COLL], 4);
	expect_no_leak();
	stop_switch();
}

static void
test_malformed_frames_are_dropped_with_their_reason(void **state)
{
	struct tf_addr a = tf_host(10), s = sw;
	static uint8_t big[4096];
	uint8_t f[256];
	unsigned int l, p;

	(void)state;
	s.ip = sw_ip();
	start_switch(NPORTS, NULL);
	/* runt */
	l = tf_udp(f, &s, &a, 1, ACIS_DEFAULT_UDP_PORT, "x", 1, -1);
	inject(0, f, 10);
	/* multicast source */
	l = tf_udp(f, &s, &a, 1, ACIS_DEFAULT_UDP_PORT, "x", 1, -1);
	f[6] |= 1;
	inject(0, f, l);
	/* bad IPv4 checksum to the switch */
	l = tf_udp(f, &s, &a, 1, ACIS_DEFAULT_UDP_PORT, "x", 1, -1);
	f[14 + 10] ^= 0xff;
	inject(0, f, l);
	/* UDP length lying about the payload */
	l = tf_udp(f, &s, &a, 1, ACIS_DEFAULT_UDP_PORT, "abcd", 4, -1);
	f[14 + 20 + 4] = 0x40;
	inject(0, f, l);
	/* oversize: 1600 bytes of payload over a 1500-byte MTU */
	l = tf_udp(big, &s, &a, 1, ACIS_DEFAULT_UDP_PORT, big + 1700, 1600, -1);
	inject(0, big, l);
	run();
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(drops(ACIS_DROP_ETH_RUNT), 1);
	assert_int_equal(drops(ACIS_DROP_ETH_BAD_SRC), 1);
	assert_int_equal(drops(ACIS_DROP_IPV4_BAD_CSUM), 1);
	assert_int_equal(drops(ACIS_DROP_UDP_BAD_LEN), 1);
	assert_int_equal(drops(ACIS_DROP_ETH_OVERSIZE), 1);
	expect_no_leak();
	stop_switch();
}

static void
test_garbage_to_other_hosts_is_forwarded_byte_identical(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f[128];
	unsigned int l;

	(void)state;
	start_switch(2, NULL);
	/* An L2 switch does not judge other people's IPv4 headers. */
	l = tf_udp(f, &b, &a, 1, 2, "zz", 2, -1);
	f[14] = 0x99;      /* version 9 */
	f[14 + 10] ^= 1;   /* and a wrong checksum */
	inject(0, f, l);
	run();
	expect_frame(1, f, l);
	/* VLAN-tagged frames keep their tag */
	l = tf_udp(f, &b, &a, 1, 2, "vv", 2, 100);
	inject(0, f, l);
	run();
	expect_frame(1, f, l);
	expect_no_leak();
	stop_switch();
}

static void
test_rx_lcore_hands_off_to_worker_lcore(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11), s = sw;
	uint8_t f[128];
	unsigned int l, i;
	struct acis_lcore_stats d;

	(void)state;
	if (rte_lcore_count() < 2)
		skip();
	s.ip = sw_ip();
	start_switch(2, "[lcore 0]\nrole = rx\nrx = p0 p1\n"
			"[lcore 1]\nrole = worker\n");
	assert_int_equal(g_sw.n_workers, 1);
	assert_int_equal(g_sw.lcores[0]->n_out, 1);
	assert_int_equal(g_sw.lcores[1]->n_in, 1);
	for (i = 0; i < 8; i++) {
		l = tf_udp(f, &b, &a, 1, (uint16_t)i, "h", 1, -1);
		inject(0, f, l);
	}
	l = tf_icmp_echo(f, &s, &a, 1, 1, 8);
	inject(1, f, l);
	run();
	for (i = 0; i < 8; i++) {
		l = tf_udp(f, &b, &a, 1, (uint16_t)i, "h", 1, -1);
		expect_frame(1, f, l); /* order kept through the ring */
	}
	d = delta();
	assert_int_equal(d.stage_pkts[ACIS_STAGE_HANDOFF], 9);
	assert_int_equal(d.stage_pkts[ACIS_STAGE_RING_RX], 9);
	assert_int_equal(d.icmp_replies, 1);
	{
		/* the echo reply went back out of port 1, after the others */
		struct rte_mbuf *m = sent(1);

		assert_non_null(m);
		assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[34], 0);
		rte_pktmbuf_free(m);
	}
	expect_silent(0);
	expect_no_leak();
	stop_switch();
}

/* ---- control message sources ---- */

static void
send_join(unsigned int port, unsigned int host)
{
	struct tf_addr h = tf_host(host), s = sw;
	struct acis_hdr q = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_CTRL,
		.opcode = ACIS_CTRL_JOIN, .hdr_len = ACIS_HDR_LEN, .job = 5,
		.rank = 0, .root = 2,
	};
	uint8_t msg[ACIS_HDR_LEN], f[256];
	unsigned int len;

	s.ip = sw_ip();
	acis_hdr_encode(&q, msg);
	len = tf_udp(f, &s, &h, 7000, 47000, msg, sizeof(msg), -1);
	inject(port, f, len);
	run();
}

static void
test_control_only_from_allowed_hosts_and_ports(void **state)
{
	unsigned int p;

	(void)state;
	start_switch(NPORTS, "[collective]\ncontrol_from = 10.77.0.12, "
		     "10.77.1.0/24\ncontrol_ports = p0 p2\n");
	send_join(0, 10);   /* allowed port, foreign address */
	assert_int_equal(drops(ACIS_DROP_CTRL_DENIED), 1);
	send_join(1, 12);   /* allowed address, foreign port */
	assert_int_equal(drops(ACIS_DROP_CTRL_DENIED), 2);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_COLL], 0);
	send_join(2, 12);   /* both allowed: the collective stage takes it */
	assert_int_equal(drops(ACIS_DROP_CTRL_DENIED), 2);
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_COLL], 1);
	discard_sent();
	expect_no_leak();
	stop_switch();
}

/* ---- the fault stage ---- */

#define FAULT_FRAMES 400

/* Send FAULT_FRAMES numbered frames a (port 0) -> b (port 1, learned);
 * seq[] gets the numbers port 1 sent, in order; returns how many. */
static unsigned int
fault_run(const char *extra, uint32_t *seq, struct acis_fault_counters *fc)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f[128];
	struct rte_mbuf *m;
	unsigned int len, i, n = 0;

	start_switch(NPORTS, extra);
	len = tf_udp(f, &a, &b, 1, 1, "x", 1, -1);
	inject(1, f, len); /* b is on port 1 */
	run();
	for (i = 0; i < NPORTS; i++)
		while ((m = sent(i)) != NULL)
			rte_pktmbuf_free(m);
	for (i = 0; i < FAULT_FRAMES; i++) {
		len = tf_udp(f, &b, &a, 1000, 2000, &i, sizeof(i), -1);
		inject(0, f, len);
		if (i % 32 == 31)
			run();
	}
	run();
	rte_delay_us_block(3000); /* held-back frames go after 1 ms */
	run();
	while ((m = sent(1)) != NULL) {
		assert_true(n < 2 * FAULT_FRAMES);
		memcpy(&seq[n++], rte_pktmbuf_mtod(m, uint8_t *) + 42, 4);
		rte_pktmbuf_free(m);
	}
	memset(fc, 0, sizeof(*fc));
	for (i = 0; i < g_sw.n_lcores; i++) {
		const struct acis_fault_lc *x = g_sw.lcores[i]->fault[1];

		if (x == NULL)
			continue;
		fc->frames += x->c.frames;
		fc->dropped += x->c.dropped;
		fc->duplicated += x->c.duplicated;
		fc->reordered += x->c.reordered;
		fc->corrupted += x->c.corrupted;
		assert_int_equal(x->n_held, 0);
	}
	expect_no_leak();
	stop_switch();
	return n;
}

static void
test_fault_stage_drops_duplicates_reorders_deterministically(void **state)
{
	static const char extra[] = "[fault p1]\ndrop = 0.1\nduplicate = 0.1\n"
				    "reorder = 0.2\nreorder_window = 5\nseed = 9\n";
	static uint32_t s1[2 * FAULT_FRAMES], s2[2 * FAULT_FRAMES];
	struct acis_fault_counters c1, c2;
	unsigned int n1, n2, i, out_of_order = 0;

	(void)state;
	n1 = fault_run(extra, s1, &c1);
	assert_int_equal(c1.frames, FAULT_FRAMES);
	assert_int_equal(n1, FAULT_FRAMES - c1.dropped + c1.duplicated);
	/* about 10 %, 10 % and 20 %: far from 0 and from all */
	assert_in_range(c1.dropped, 15, 70);
	assert_in_range(c1.duplicated, 15, 70);
	assert_in_range(c1.reordered, 40, 130);
	for (i = 1; i < n1; i++)
		out_of_order += s1[i] < s1[i - 1];
	assert_true(out_of_order > 0);
	/* the same seed and frames: the same faults, frame for frame */
	n2 = fault_run(extra, s2, &c2);
	assert_int_equal(n2, n1);
	assert_memory_equal(s1, s2, n1 * sizeof(uint32_t));
}

/* Station b learned on port 1, a on port 0; frames a -> b then go to
 * port 1 only. */
static void
learn_two(struct tf_addr *a, struct tf_addr *b)
{
	*a = tf_host(10);
	*b = tf_host(11);
	teach(1, b, a);
	teach(0, a, b);
	run();
	discard_sent();
}

static const struct acis_fault_lc *
fault_lc(unsigned int port)
{
	unsigned int i;

	for (i = 0; i < g_sw.n_lcores; i++)
		if (g_sw.lcores[i]->fault[port] != NULL)
			return g_sw.lcores[i]->fault[port];
	fail_msg("no fault state for port %u", port);
	return NULL;
}

static void
test_fault_stage_corrupts_exactly_one_bit_past_ethernet(void **state)
{
	struct tf_addr a, b;
	uint8_t f[256];
	unsigned int len, i, k, bits;
	struct rte_mbuf *m;
	uint64_t before;

	(void)state;
	start_switch(NPORTS, "[fault p1]\ncorrupt = 1\nseed = 3\n");
	learn_two(&a, &b);
	before = fault_lc(1)->c.corrupted; /* learning's frame to b */
	for (i = 0; i < 50; i++) {
		len = tf_udp(f, &b, &a, 1000, 2000, &i, sizeof(i), -1);
		inject(0, f, len);
		run();
		m = sent(1);
		assert_non_null(m);
		assert_int_equal(rte_pktmbuf_data_len(m), len);
		bits = 0;
		for (k = 0; k < len; k++) {
			uint8_t d = rte_pktmbuf_mtod(m, uint8_t *)[k] ^ f[k];

			if (d != 0)
				assert_true(k >= 14);
			bits += (unsigned int)__builtin_popcount(d);
		}
		assert_int_equal(bits, 1);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(fault_lc(1)->c.corrupted - before, 50);
	expect_no_leak();
	stop_switch();
}

static void
test_fault_stage_set_at_runtime(void **state)
{
	static uint32_t run1[64], run2[64];
	uint32_t *out[2] = {run1, run2};
	struct tf_addr a, b;
	uint8_t f[256];
	char msg[256];
	unsigned int len, i, r, n[2] = {0, 0};
	struct rte_mbuf *m;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	/* refused: no setting, a bad value, an unknown key or port */
	assert_true(acis_fault_set("p1", msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "expected PORT,off or PORT,KEY=VALUE"));
	assert_true(acis_fault_set("p1,reorder_window=1.5", msg,
				   sizeof(msg)) < 0);
	assert_string_equal(msg, "reorder_window: expected a whole number "
			    "from 1 to 64, found '1.5'");
	assert_true(acis_fault_set("p1,loss=1", msg, sizeof(msg)) < 0);
	assert_true(acis_fault_set("p9,drop=1", msg, sizeof(msg)) < 0);
	assert_string_equal(msg, "unknown port 'p9'");
	/* drop everything, then off again */
	assert_int_equal(acis_fault_set("p1,drop=1", msg, sizeof(msg)), 1);
	for (i = 0; i < 10; i++) {
		len = tf_udp(f, &b, &a, 1000, 2000, &i, sizeof(i), -1);
		inject(0, f, len);
	}
	run();
	expect_silent(1);
	assert_int_equal(fault_lc(1)->c.dropped, 10);
	assert_int_equal(acis_fault_set("p1,off", msg, sizeof(msg)), 1);
	inject(0, f, len);
	run();
	expect_frame(1, f, len);
	/* a setting restarts the stream from its seed: same faults again */
	for (r = 0; r < 2; r++) {
		assert_int_equal(acis_fault_set("p1,drop=0.5,seed=5", msg,
						sizeof(msg)), 1);
		for (i = 0; i < 64; i++) {
			len = tf_udp(f, &b, &a, 1000, 2000, &i, sizeof(i), -1);
			inject(0, f, len);
			run();
		}
		while ((m = sent(1)) != NULL) {
			memcpy(&out[r][n[r]++], rte_pktmbuf_mtod(m, uint8_t *) +
			       42, 4);
			rte_pktmbuf_free(m);
		}
	}
	assert_in_range(n[0], 16, 48);
	assert_int_equal(n[0], n[1]);
	assert_memory_equal(run1, run2, n[0] * sizeof(uint32_t));
	expect_no_leak();
	stop_switch();
}

static void
test_fault_stage_delays_every_frame(void **state)
{
	struct tf_addr a, b;
	uint8_t f[5][256];
	char msg[256];
	unsigned int len[5], i;
	uint64_t bytes = 0;
	struct acis_lcore_stats before;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	before = delta();
	/* a delay far beyond what one run() takes, even under ASan on a
	 * busy machine, so nothing can fall due during it */
	assert_int_equal(acis_fault_set("p1,delay_us=300000", msg,
					sizeof(msg)), 1);
	for (i = 0; i < 5; i++) {
		len[i] = tf_udp(f[i], &b, &a, 1000, 2000, &i, sizeof(i), -1);
		inject(0, f[i], len[i]);
	}
	run();
	expect_silent(1);
	assert_int_equal(fault_lc(1)->n_held, 5);
	assert_int_equal(fault_lc(1)->c.delayed, 5);
	rte_delay_us_block(310000);
	run();
	for (i = 0; i < 5; i++) {
		expect_frame(1, f[i], len[i]);
		bytes += len[i];
	}
	assert_int_equal(fault_lc(1)->n_held, 0);
	/* sent when due, by the fault stage's flush: counted as any frame */
	assert_int_equal(delta().port_tx_pkts[1] - before.port_tx_pkts[1], 5);
	assert_int_equal(delta().port_tx_bytes[1] - before.port_tx_bytes[1],
			 bytes);
	expect_no_leak();
	stop_switch();
}

/* The RX stage transmits a burst's leading direct frames run by run: to
 * several ports, each port's frames in the order they came, and the run
 * stops at a port whose fault stage is on — that port's frames and all
 * behind them take the graph, through the fault stage. Every frame counts
 * once at each stage, and the ports count their bytes. */
static void
test_rx_sends_direct_runs_in_order_and_stops_at_a_fault_port(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11), c = tf_host(12);
	static const unsigned int to[] = {1, 1, 2, 1, 2, 2, 1};
	enum { N = RTE_DIM(to) };
	uint8_t f[N][128];
	unsigned int l[N], i, p, ll, bytes[NPORTS] = {0}, in = 0;
	struct acis_lcore_stats d;
	char msg[256];

	(void)state;
	start_switch(NPORTS, NULL);
	ll = teach(1, &b, &a);
	teach(2, &c, &a); /* the same length */
	run();
	discard_sent();
	for (i = 0; i < N; i++) {
		l[i] = tf_udp(f[i], to[i] == 1 ? &b : &c, &a, 2, 1, &i,
			      sizeof(i), -1);
		inject(0, f[i], l[i]);
		bytes[to[i]] += l[i];
		in += l[i];
	}
	run();
	for (i = 0; i < N; i++)
		expect_frame(to[i], f[i], l[i]);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	d = delta();
	assert_int_equal(d.rx_direct, N); /* every one sent by the RX stage */
	assert_int_equal(d.port_rx_bytes[0], in);
	assert_int_equal(d.stage_pkts[ACIS_STAGE_PARSE], 2 + N);
	assert_int_equal(d.stage_pkts[ACIS_STAGE_L2], 2 + N);
	/* and each the other's learning frame, flooded (a was unknown) */
	assert_int_equal(d.port_tx_pkts[1], 4 + 1);
	assert_int_equal(d.port_tx_bytes[1] - bytes[1], ll);
	assert_int_equal(d.port_tx_pkts[2], 3 + 1);
	assert_int_equal(d.port_tx_bytes[2] - bytes[2], ll);

	/* port 2 with a fault stage that lets everything through but counts
	 * what it met: frames to port 1 ahead of the first to port 2 go at
	 * once, the rest through the graph, in order still */
	assert_int_equal(acis_fault_set("p2,drop=0", msg, sizeof(msg)), 2);
	for (i = 0; i < N; i++)
		inject(0, f[i], l[i]);
	run();
	for (i = 0; i < N; i++)
		expect_frame(to[i], f[i], l[i]);
	for (p = 0; p < NPORTS; p++)
		expect_silent(p);
	assert_int_equal(fault_lc(2)->c.frames, 3);
	d = delta();
	assert_int_equal(d.rx_direct, N + 2); /* the two ahead of port 2's */
	assert_int_equal(d.port_rx_bytes[0], 2 * in);
	assert_int_equal(d.stage_pkts[ACIS_STAGE_TX], 2 * (NPORTS - 1) + 2 * N);
	assert_int_equal(d.stage_pkts[ACIS_STAGE_L2], 2 + 2 * N);
	expect_no_leak();
	stop_switch();
}

/* A shaped port (here by its delay) holds at most `queue` frames per
 * worker: the ones beyond are dropped at the tail and counted
 * (queue_drops); the held frames follow when due, in the order they came.
 * (Reordered frames, on the other hand, are sent at once when their hold
 * is full, and counted as hold_full.) */
static void
test_fault_stage_drops_at_the_tail_when_the_shaper_queue_is_full(void **state)
{
	enum { QUEUE = 16, EXTRA = 10, N = QUEUE + EXTRA };
	static uint8_t f[N][128];
	static unsigned int len[N];
	struct tf_addr a, b;
	char msg[256];
	unsigned int i;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	assert_int_equal(acis_fault_set("p1,delay_us=100000,queue=16", msg,
					sizeof(msg)), 1);
	for (i = 0; i < N; i++) {
		len[i] = tf_udp(f[i], &b, &a, 1000, 2000, &i, sizeof(i), -1);
		inject(0, f[i], len[i]);
	}
	run();
	expect_silent(1);
	assert_int_equal(fault_lc(1)->n_held, QUEUE);
	assert_int_equal(fault_lc(1)->c.queue_drops, EXTRA);
	assert_int_equal(fault_lc(1)->c.shaped, QUEUE);
	assert_int_equal(fault_lc(1)->c.hold_full, 0);
	rte_delay_us_block(110000);
	run();
	for (i = 0; i < QUEUE; i++)
		expect_frame(1, f[i], len[i]);
	expect_silent(1);
	assert_int_equal(fault_lc(1)->n_held, 0);
	expect_no_leak();
	stop_switch();
}

/* Frames of i (i = 0, 1, ...) with a size-byte frame's payload; the
 * number sits right behind the UDP header. */
static unsigned int
numbered(uint8_t *f, const struct tf_addr *b, const struct tf_addr *a,
	 uint32_t i, unsigned int size)
{
	static uint8_t payload[1500];

	memset(payload, 0x5a, sizeof(payload));
	memcpy(payload, &i, sizeof(i));
	return tf_udp(f, b, a, 1000, 2000, payload, size - 42, -1);
}

static uint32_t
number_of(const struct rte_mbuf *m)
{
	uint32_t i;

	memcpy(&i, rte_pktmbuf_mtod(m, const uint8_t *) + 42, sizeof(i));
	return i;
}

/* TSC cycles a frame of bytes takes on the wire at rate_mbps, with its
 * preamble, FCS and gap, padded to 60 bytes as Ethernet pads it. */
static double
wire_cycles(unsigned int bytes, unsigned int rate_mbps)
{
	return (double)((bytes < 60 ? 60 : bytes) + 24) * 8.0 *
	       (double)g_sw.tsc_hz / (rate_mbps * 1e6);
}

/* The shaper's arithmetic, read off its queue: frames queued behind a
 * busy link fall due one wire time apart, short frames padded; and the
 * first when the link has sent it. No timing involved: at 1 Mbit/s the
 * first frame is due milliseconds after the test put it in. */
static void
test_fault_stage_shaper_spaces_frames_by_their_wire_time(void **state)
{
	static const unsigned int size[] = {43, 1000, 200, 60, 1514};
	enum { N = RTE_DIM(size) };
	const struct acis_fault_lc *x;
	struct tf_addr a, b;
	uint8_t f[1600];
	char msg[256];
	unsigned int i, len;
	uint64_t t0, t1, due[N];
	struct rte_mbuf *m;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	assert_int_equal(acis_fault_set("p1,rate_mbps=1", msg, sizeof(msg)),
			 1);
	for (i = 0; i < N; i++) {
		len = numbered(f, &b, &a, i, size[i]);
		assert_int_equal(len, size[i]);
		inject(0, f, len);
	}
	t0 = rte_rdtsc();
	run();
	t1 = rte_rdtsc();
	x = fault_lc(1);
	assert_int_equal(x->q_n, N);
	assert_int_equal(x->c.shaped, N);
	for (i = 0; i < N; i++)
		due[i] = x->q[(x->q_head + i) & (ACIS_FAULT_QUEUE - 1)].due_tsc;
	/* 43 bytes go as 60: 84 on the wire, 672 us at 1 Mbit/s */
	assert_true((double)(due[0] - t0) >= wire_cycles(size[0], 1) - 1);
	assert_true((double)(due[0] - t1) <= wire_cycles(size[0], 1) + 1);
	for (i = 1; i < N; i++) {
		double d = (double)(due[i] - due[i - 1]) -
			   wire_cycles(size[i], 1);

		if (d < -1.0 || d > 1.0)
			fail_msg("frame %u: due %.1f cycles off its wire time",
				 i, d);
	}
	/* all on the wire after 672 us + 8.2 + 1.8 + 0.7 + 12.3 ms */
	rte_delay_us_block(25000);
	run();
	for (i = 0; i < N; i++) {
		m = sent(1);
		assert_non_null(m);
		assert_int_equal(number_of(m), i);
		assert_int_equal(rte_pktmbuf_pkt_len(m), size[i]);
		rte_pktmbuf_free(m);
	}
	expect_silent(1);
	expect_no_leak();
	stop_switch();
}

/* A numbered frame b <- a to UDP port dport. */
static unsigned int
classed(uint8_t *f, const struct tf_addr *b, const struct tf_addr *a,
	uint32_t i, unsigned int size, uint16_t dport)
{
	static uint8_t payload[1500];

	memset(payload, 0x5a, sizeof(payload));
	memcpy(payload, &i, sizeof(i));
	return tf_udp(f, b, a, 1000, dport, payload, size - 42, -1);
}

/* The numbers of the frames port leaves within 2 s, up to max. */
static unsigned int
drain_numbers(unsigned int port, uint32_t *got, unsigned int max)
{
	uint64_t t0 = rte_rdtsc();
	unsigned int n = 0;
	struct rte_mbuf *m;

	while (n < max && rte_rdtsc() - t0 < 2 * g_sw.tsc_hz) {
		walk();
		while ((m = sent(port)) != NULL) {
			if (n < max)
				got[n++] = number_of(m);
			rte_pktmbuf_free(m);
		}
	}
	return n;
}

/* Priority classes on a shaped port (doc/faults.md): frames wait for the
 * link in their class; the highest class with frames goes first (ACiS
 * frames in class 0 by default, plain ones in the lowest), and within a
 * class the inputs take turns. 10 plain frames from two inputs (p0: 0-4,
 * p2: 10-14) and 3 ACiS frames from p0 (100-102) meet a 1 Mbit/s link
 * free for the first only: the ACiS frames overtake the plain ones
 * waiting, which then alternate between p2 and p0. */
static void
test_fault_stage_classes_strict_priority_round_robin(void **state)
{
	enum { SIZE = 200 };
	static const uint32_t want[] = {0, 100, 101, 102, 10, 1, 11, 2, 12,
					3, 13, 4, 14};
	enum { N = RTE_DIM(want) };
	const struct acis_fault_lc *x;
	struct tf_addr a, b, c;
	uint8_t f[SIZE];
	uint32_t got[N + 1];
	char msg[256];
	unsigned int i, n;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	c = tf_host(12);
	assert_int_equal(acis_fault_set("p1,rate_mbps=1,classes=4", msg,
					sizeof(msg)), 1);
	for (i = 0; i < 5; i++)
		inject(0, f, classed(f, &b, &a, i, SIZE, 2000));
	for (i = 0; i < 3; i++)
		inject(0, f, classed(f, &b, &a, 100 + i, SIZE,
				     g_sw.ccfg.udp_port));
	for (i = 0; i < 5; i++)
		inject(2, f, classed(f, &b, &c, 10 + i, SIZE, 2000));
	n = drain_numbers(1, got, N + 1);
	assert_int_equal(n, N);
	for (i = 0; i < N; i++)
		if (got[i] != want[i])
			fail_msg("frame %u out was %u, expected %u", i, got[i],
				 want[i]);
	x = fault_lc(1);
	assert_int_equal(x->cq[0].in, 3);
	assert_int_equal(x->cq[0].sent, 3);
	assert_int_equal(x->cq[3].in, 10);
	assert_int_equal(x->cq[3].sent, 10);
	assert_int_equal(x->cq_n, 0);
	expect_silent(1);
	expect_no_leak();
	stop_switch();
}

/* A class holds class_queue frames; beyond, its tail is dropped and
 * counted, and another class still takes its own. */
static void
test_fault_stage_class_tail_drops_alone(void **state)
{
	enum { SIZE = 200 };
	const struct acis_fault_lc *x;
	struct tf_addr a, b;
	uint8_t f[SIZE];
	uint32_t got[16];
	char msg[256];
	unsigned int i, n;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	assert_int_equal(acis_fault_set("p1,rate_mbps=1,classes=2,"
					"class_queue=3", msg, sizeof(msg)), 1);
	/* the first goes on the link, 3 wait, 3 are dropped */
	for (i = 0; i < 7; i++)
		inject(0, f, classed(f, &b, &a, i, SIZE, 2000));
	for (i = 0; i < 2; i++)
		inject(0, f, classed(f, &b, &a, 100 + i, SIZE,
				     g_sw.ccfg.udp_port));
	n = drain_numbers(1, got, 7);
	assert_int_equal(n, 6);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 100);
	assert_int_equal(got[2], 101);
	for (i = 3; i < 6; i++)
		assert_int_equal(got[i], i - 2);
	x = fault_lc(1);
	assert_int_equal(x->cq[1].drops, 3);
	assert_int_equal(x->cq[0].drops, 0);
	assert_int_equal(x->c.queue_drops, 3);
	assert_int_equal(x->cq[1].max, 3);
	expect_no_leak();
	stop_switch();
}

/* Shaping, measured: a burst of N 1000-byte frames on a 10 Mbit/s port
 * takes N wire times (52 ms) to come out, where without shaping it takes
 * a few graph walks. Only a lower bound (80 %) on the time, so a busy
 * machine cannot make it fail; the frames come out in order. */
static void
test_fault_stage_rate_limits_a_burst_to_its_line_rate(void **state)
{
	enum { N = 64, SIZE = 1000, RATE = 10 };
	struct tf_addr a, b;
	static uint8_t f[N][SIZE];
	char msg[256];
	unsigned int i, got = 0;
	uint64_t t0, last = 0, bytes = 0;
	struct acis_lcore_stats before;
	double want;
	struct rte_mbuf *m;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	before = delta();
	assert_int_equal(acis_fault_set("p1,rate_mbps=10", msg, sizeof(msg)),
			 1);
	for (i = 0; i < N; i++)
		bytes += numbered(f[i], &b, &a, i, SIZE);
	t0 = rte_rdtsc();
	for (i = 0; i < N; i++)
		inject(0, f[i], SIZE);
	while (got < N && rte_rdtsc() - t0 < 5 * g_sw.tsc_hz) {
		walk();
		while ((m = sent(1)) != NULL) {
			assert_int_equal(number_of(m), got);
			got++;
			last = rte_rdtsc();
			rte_pktmbuf_free(m);
		}
	}
	assert_int_equal(got, N);
	want = N * wire_cycles(SIZE, RATE);
	if ((double)(last - t0) < 0.8 * want)
		fail_msg("%u frames at %u Mbit/s in %.1f ms, expected at "
			 "least %.1f ms", N, RATE,
			 (double)(last - t0) * 1e3 / (double)g_sw.tsc_hz,
			 0.8 * want * 1e3 / (double)g_sw.tsc_hz);
	assert_int_equal(fault_lc(1)->c.shaped, N);
	assert_int_equal(fault_lc(1)->c.queue_drops, 0);
	assert_int_equal(delta().port_tx_pkts[1] - before.port_tx_pkts[1], N);
	assert_int_equal(delta().port_tx_bytes[1] - before.port_tx_bytes[1],
			 bytes);
	expect_no_leak();
	stop_switch();
}

/* The delay's jitter: Gaussian (mean the delay, the jitter's standard
 * deviation, 68 % within one), the same draws from the same stream,
 * sub-microsecond settings kept to the cycle, and a negative sum
 * clamped at 0. */
static void
test_fault_stage_jitter_is_gaussian_seeded_and_clamped(void **state)
{
	enum { DRAWS = 20000 };
	static struct acis_fault_lc x;
	static uint64_t d1[DRAWS], d2[DRAWS];
	const struct acis_fault_port *fp = &g_fault[1];
	double mean = 0, var = 0, want_d, want_j;
	unsigned int i, r, near = 0, zeros = 0;
	char msg[256];
	uint64_t *d[2] = {d1, d2};

	(void)state;
	start_switch(NPORTS, NULL);
	assert_int_equal(acis_fault_set("p1,delay_us=100,jitter_us=20", msg,
					sizeof(msg)), 1);
	want_d = 100e-6 * (double)g_sw.tsc_hz;
	want_j = 20e-6 * (double)g_sw.tsc_hz;
	for (r = 0; r < 2; r++) {
		memset(&x, 0, sizeof(x));
		x.rng = 12345;
		for (i = 0; i < DRAWS; i++)
			d[r][i] = acis_fault_draw_delay(&x, fp);
	}
	assert_memory_equal(d1, d2, sizeof(d1));
	for (i = 0; i < DRAWS; i++) {
		mean += (double)d1[i];
		near += fabs((double)d1[i] - want_d) <= want_j;
	}
	mean /= DRAWS;
	for (i = 0; i < DRAWS; i++)
		var += ((double)d1[i] - mean) * ((double)d1[i] - mean);
	var /= DRAWS - 1;
	/* standard errors: 0.14 % of the mean, 0.5 % of the deviation */
	assert_true(fabs(mean - want_d) < 0.01 * want_d);
	assert_true(fabs(sqrt(var) - want_j) < 0.03 * want_j);
	assert_in_range(near, DRAWS * 66 / 100, DRAWS * 71 / 100);
	/* a modelled link's 177 ns +- 12.4 ns, to the cycle (within one:
	 * on a clock where it falls on half a cycle, 0.177 x 1e-6 and
	 * 0.177e-6 may round either way) */
	assert_int_equal(acis_fault_set("p1,delay_us=0.177,jitter_us=0.0124",
					msg, sizeof(msg)), 1);
	assert_true(fabs((double)fp->delay_tsc -
			 0.177e-6 * (double)g_sw.tsc_hz) <= 1.0);
	assert_true(fabs(fp->jitter_tsc - 0.0124e-6 * (double)g_sw.tsc_hz) <
		    1e-6);
	/* 0.1 us +- 1 us: below 0 about 46 % of the time, sent as 0 */
	assert_int_equal(acis_fault_set("p1,delay_us=0.1,jitter_us=1", msg,
					sizeof(msg)), 1);
	memset(&x, 0, sizeof(x));
	x.rng = 99;
	for (i = 0; i < DRAWS; i++)
		zeros += acis_fault_draw_delay(&x, fp) == 0;
	assert_in_range(zeros, DRAWS * 43 / 100, DRAWS * 49 / 100);
	/* no jitter: no draw, the delay itself */
	assert_int_equal(acis_fault_set("p1,jitter_us=0", msg, sizeof(msg)),
			 1);
	memset(&x, 0, sizeof(x));
	x.rng = 7;
	assert_int_equal(acis_fault_draw_delay(&x, fp), fp->delay_tsc);
	assert_int_equal(x.rng, 7);
	stop_switch();
}

/* Jitter stretches a link and never reorders it: a frame is not due
 * before the one ahead (FIFO), whatever its own draw. */
static void
test_fault_stage_jitter_keeps_a_link_in_order(void **state)
{
	enum { N = 200 };
	const struct acis_fault_lc *x;
	struct tf_addr a, b;
	uint8_t f[128];
	char msg[256];
	unsigned int i, k, got = 0;
	uint64_t t0;
	struct rte_mbuf *m;

	(void)state;
	start_switch(NPORTS, NULL);
	learn_two(&a, &b);
	assert_int_equal(acis_fault_set("p1,delay_us=500,jitter_us=400,"
					"seed=4", msg, sizeof(msg)), 1);
	for (i = 0; i < N; i++) {
		inject(0, f, numbered(f, &b, &a, i, 64));
		if (i % 16 != 15)
			continue;
		run();
		/* due times never fall along the queue */
		x = fault_lc(1);
		for (k = 1; k < x->q_n; k++)
			assert_true(x->q[(x->q_head + k) &
					 (ACIS_FAULT_QUEUE - 1)].due_tsc >=
				    x->q[(x->q_head + k - 1) &
					 (ACIS_FAULT_QUEUE - 1)].due_tsc);
	}
	t0 = rte_rdtsc();
	while (got < N && rte_rdtsc() - t0 < 5 * g_sw.tsc_hz) {
		walk();
		while ((m = sent(1)) != NULL) {
			assert_int_equal(number_of(m), got);
			got++;
			rte_pktmbuf_free(m);
		}
	}
	assert_int_equal(got, N);
	assert_int_equal(fault_lc(1)->c.delayed, N);
	assert_int_equal(fault_lc(1)->c.reordered, 0);
	expect_no_leak();
	stop_switch();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_unknown_unicast_floods_then_learned_reply_is_unicast, teardown),
		cmocka_unit_test_teardown(test_broadcast_floods_to_every_other_port, teardown),
		cmocka_unit_test_teardown(test_static_entry_forwards_without_flooding, teardown),
		cmocka_unit_test_teardown(test_destination_on_ingress_port_is_filtered, teardown),
		cmocka_unit_test_teardown(test_burst_keeps_order_across_direct_and_flooded_frames, teardown),
		cmocka_unit_test_teardown(test_rx_sends_direct_runs_in_order_and_stops_at_a_fault_port, teardown),
		cmocka_unit_test_teardown(test_a_move_forgets_the_flows_the_direct_path_remembers, teardown),
		cmocka_unit_test_teardown(test_same_header_is_judged_again_on_length_and_port, teardown),
		cmocka_unit_test_teardown(test_unknown_unicast_dropped_when_flooding_is_off, teardown),
		cmocka_unit_test_teardown(test_arp_request_for_switch_is_answered_on_ingress_port, teardown),
		cmocka_unit_test_teardown(test_icmp_echo_to_switch_gets_valid_reply, teardown),
		cmocka_unit_test_teardown(test_bad_acis_headers_are_counted_by_reason_and_not_forwarded, teardown),
		cmocka_unit_test_teardown(test_malformed_frames_are_dropped_with_their_reason, teardown),
		cmocka_unit_test_teardown(test_garbage_to_other_hosts_is_forwarded_byte_identical, teardown),
		cmocka_unit_test_teardown(test_rx_lcore_hands_off_to_worker_lcore, teardown),
		cmocka_unit_test_teardown(test_fault_stage_drops_duplicates_reorders_deterministically, teardown),
		cmocka_unit_test_teardown(test_fault_stage_corrupts_exactly_one_bit_past_ethernet, teardown),
		cmocka_unit_test_teardown(test_fault_stage_set_at_runtime, teardown),
		cmocka_unit_test_teardown(test_fault_stage_delays_every_frame, teardown),
		cmocka_unit_test_teardown(test_fault_stage_drops_at_the_tail_when_the_shaper_queue_is_full, teardown),
		cmocka_unit_test_teardown(test_fault_stage_shaper_spaces_frames_by_their_wire_time, teardown),
		cmocka_unit_test_teardown(test_fault_stage_rate_limits_a_burst_to_its_line_rate, teardown),
		cmocka_unit_test_teardown(test_fault_stage_classes_strict_priority_round_robin, teardown),
		cmocka_unit_test_teardown(test_fault_stage_class_tail_drops_alone, teardown),
		cmocka_unit_test_teardown(test_fault_stage_jitter_is_gaussian_seeded_and_clamped, teardown),
		cmocka_unit_test_teardown(test_fault_stage_jitter_keeps_a_link_in_order, teardown),
		cmocka_unit_test_teardown(test_control_only_from_allowed_hosts_and_ports, teardown),
	};
	int rc;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("switch on net_ring ports", tests,
					 NULL, NULL);
	harness_eal_cleanup();
	return rc;
}
