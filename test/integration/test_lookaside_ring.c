/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration: the look-aside stage of the real switch on net_ring ports.
 * Example handlers (examples/cgra) with resident data from the pipeline's
 * memory lines: results returned to the sender with swapped addresses and
 * valid checksums, ACiS requests answered with their header, passing
 * traffic run through a handler and forwarded, and a program that runs
 * away or a rule with no program dropped and counted, nothing leaked.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "acis_proto.h"
#include "frames.h"
#include "harness.h"
#include "lookaside.h"

#define L 20 /* floats of x in a dot request */

static char tmpdir[64];
static char conf[2048];

/* Write w_p (p = 1, 2) into files and name them in memory lines. */
static float
weight(unsigned int p, unsigned int i)
{
	return (float)((int)(i * 7 + p * 3) % 11 - 5) * 0.375f;
}

static void
write_weights(void)
{
	unsigned int p, i;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/acis-la-ring.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	for (p = 1; p <= 2; p++) {
		char path[128];
		float w[L];
		FILE *f;

		for (i = 0; i < L; i++)
			w[i] = weight(p, i);
		snprintf(path, sizeof(path), "%s/w%u.bin", tmpdir, p);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(w, sizeof(w), 1, f), 1);
		fclose(f);
	}
}

static void
remove_weights(void)
{
	char path[128];
	unsigned int p;

	for (p = 1; p <= 3; p++) {
		snprintf(path, sizeof(path), "%s/w%u.bin", tmpdir, p);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/loop.s", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

/* The harness's teardown, and the test's files if a failed check left
 * them. */
static int
la_teardown(void **state)
{
	if (tmpdir[0] != '\0')
		remove_weights();
	return teardown(state);
}

static void
dot_payload(float *x)
{
	unsigned int i;

	for (i = 0; i < L; i++)
		x[i] = (float)i * 0.25f - 2.0f;
}

static void
expect_dot(const uint8_t *y)
{
	float x[L], want[2];
	unsigned int p, i;

	dot_payload(x);
	for (p = 0; p < 2; p++) {
		float acc = 0.0f;

		for (i = 0; i < L; i++)
			acc = fmaf(x[i], weight(p + 1, i), acc);
		want[p] = acc;
	}
	assert_memory_equal(y, want, sizeof(want));
}

static const char *
dot_rule(const char *match)
{
	snprintf(conf, sizeof(conf),
		 "[lookaside dot]\nmatch = %s\nvpe = 2\nbank_size = 131072\n"
		 "program = " ACIS_EXAMPLES_DIR "/dot.s\n"
		 "memory = 1 0 %s/w1.bin\nmemory = 2 0 %s/w2.bin\n",
		 match, tmpdir, tmpdir);
	return conf;
}

/* A rule's proxy counters, read as telemetry reads them: every request
 * sent is returned, lost or outstanding, whatever else is checked. */
static void
expect_fpga(const struct acis_la_rule *r, uint64_t sent, uint64_t returned,
	    uint64_t lost, uint64_t outstanding, uint64_t late)
{
	struct acis_la_fpga_counts c;

	acis_la_fpga_counts(r, &c);
	assert_int_equal(c.sent, c.returned + c.lost + c.outstanding);
	assert_int_equal(c.outstanding, r->fifo_n);
	assert_int_equal(c.sent, sent);
	assert_int_equal(c.returned, returned);
	assert_int_equal(c.lost, lost);
	assert_int_equal(c.outstanding, outstanding);
	assert_int_equal(c.late, late);
}

static void
test_udp_request_returns_the_result_to_its_sender(void **state)
{
	struct tf_addr h = tf_host(10), s;
	uint8_t f[256];
	float x[L];
	struct rte_mbuf *m;
	const uint8_t *r, *ip, *udp;
	unsigned int len;

	(void)state;
	write_weights();
	start_switch(NPORTS, dot_rule("udp_port 48000"));
	s = switch_addr();
	dot_payload(x);
	len = tf_udp(f, &s, &h, 5555, 48000, x, sizeof(x), -1);
	inject(2, f, len);
	run();
	m = sent(2);
	assert_non_null(m);
	r = rte_pktmbuf_mtod(m, const uint8_t *);
	ip = r + 14;
	udp = ip + 20;
	assert_int_equal(rte_pktmbuf_data_len(m), 14 + 20 + 8 + 8);
	assert_memory_equal(r, h.mac, 6);
	assert_memory_equal(r + 6, sw.mac, 6);
	assert_memory_equal(ip + 12, &s.ip, 4);
	assert_memory_equal(ip + 16, &h.ip, 4);
	assert_int_equal(udp[0] << 8 | udp[1], 48000);
	assert_int_equal(udp[2] << 8 | udp[3], 5555);
	assert_int_equal(acis_csum(ip, 20), 0);
	assert_int_equal(acis_csum_partial(udp, 16, acis_csum_partial(ip + 12,
				8, 0) + ACIS_IPPROTO_UDP + 16), 0xffff);
	expect_dot(udp + 8);
	rte_pktmbuf_free(m);
	expect_silent(0);
	expect_silent(1);
	expect_silent(3);
	assert_int_equal(g_la.rules[0].st.runs, 1);
	assert_int_equal(g_la.rules[0].st.pkts_out, 1);
	assert_int_equal(g_la.rules[0].st.bytes_in, sizeof(x));
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_LOOKASIDE], 1);
	expect_no_leak();
	stop_switch();
	remove_weights();
}

static void
test_acis_request_is_answered_with_its_header(void **state)
{
	struct tf_addr h = tf_host(11), s;
	struct acis_hdr q = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_LOOKASIDE,
		.opcode = 5, .hdr_len = ACIS_HDR_LEN, .job = 77,
		.payload_len = L * 4,
	}, a;
	uint8_t f[512], msg[ACIS_HDR_LEN + L * 4];
	const uint8_t *r;
	struct rte_mbuf *m;
	unsigned int len;

	(void)state;
	write_weights();
	start_switch(NPORTS, dot_rule("acis_handler 5"));
	s = switch_addr();
	acis_hdr_encode(&q, msg);
	{
		float x[L];

		dot_payload(x);
		memcpy(msg + ACIS_HDR_LEN, x, sizeof(x));
	}
	len = tf_udp(f, &s, &h, 6000, 47000, msg, sizeof(msg), -1);
	inject(1, f, len);
	/* a handler nobody has: dropped and counted */
	q.opcode = 6;
	acis_hdr_encode(&q, msg);
	len = tf_udp(f, &s, &h, 6000, 47000, msg, sizeof(msg), -1);
	inject(1, f, len);
	run();
	m = sent(1);
	assert_non_null(m);
	r = rte_pktmbuf_mtod(m, const uint8_t *) + 42;
	assert_int_equal(acis_msg_parse(r, rte_pktmbuf_data_len(m) - 42, &a),
			 ACIS_E_OK);
	assert_int_equal(a.type, ACIS_T_LOOKASIDE);
	assert_int_equal(a.opcode, 5);
	assert_int_equal(a.job, 77);
	assert_int_equal(a.payload_len, 8);
	expect_dot(r + ACIS_HDR_LEN);
	rte_pktmbuf_free(m);
	expect_silent(1);
	assert_int_equal(drops(ACIS_DROP_LA_NO_RULE), 1);
	expect_no_leak();
	stop_switch();
	remove_weights();
}

static void
test_passing_traffic_runs_through_a_handler_and_is_forwarded(void **state)
{
	struct tf_addr a = tf_host(10), b = tf_host(11);
	uint8_t f[1600], payload[1001];
	unsigned int len, i, p;

	(void)state;
	start_switch(NPORTS, "[lookaside fwd]\nmatch = udp_port 48001\n"
		     "action = forward\nvpe = 1\nbanks = 1\nbank_size = 4096\n"
		     "program = " ACIS_EXAMPLES_DIR "/passthrough.s\n");
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13);
	len = tf_udp(f, &b, &a, 4000, 48001, payload, sizeof(payload), 7);
	inject(0, f, len);
	run();
	/* b is unknown: flooded, byte for byte what a sent */
	for (p = 1; p < NPORTS; p++)
		expect_frame(p, f, len);
	expect_silent(0);
	assert_int_equal(g_la.rules[0].st.runs, 1);
	assert_int_equal(g_la.rules[0].st.bytes_out, sizeof(payload));
	expect_no_leak();
	stop_switch();
}

static void
test_runaway_and_unloaded_handlers_drop_and_count(void **state)
{
	struct tf_addr h = tf_host(10), s;
	uint8_t f[256];
	char path[128], text[1024];
	unsigned int len;
	FILE *fp;

	(void)state;
	write_weights();
	snprintf(path, sizeof(path), "%s/loop.s", tmpdir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("\taddi x1, x0, 1\nspin:\n\tbne x1, x0, spin\n\twfi\n", fp);
	fclose(fp);
	snprintf(text, sizeof(text),
		 "[lookaside spin]\nmatch = udp_port 48000\nvpe = 1\nbanks = 1\n"
		 "bank_size = 4096\nbudget = 1000\nprogram = %s\n"
		 "[lookaside idle]\nmatch = udp_port 48002\nvpe = 1\nbanks = 1\n"
		 "bank_size = 4096\n", path);
	start_switch(NPORTS, text);
	s = switch_addr();
	len = tf_udp(f, &s, &h, 5555, 48000, "abcd", 4, -1);
	inject(0, f, len);
	inject(0, f, len);
	len = tf_udp(f, &s, &h, 5555, 48002, "abcd", 4, -1);
	inject(0, f, len);
	run();
	expect_silent(0);
	assert_int_equal(drops(ACIS_DROP_LA_FAULT), 2);
	assert_int_equal(drops(ACIS_DROP_LA_NOT_READY), 1);
	assert_int_equal(g_la.rules[0].st.faults, 2);
	assert_int_equal(g_la.rules[0].last_rc, ACIS_CGRA_E_BUDGET);
	assert_true(g_la.rules[0].st.instructions >= 2000);
	expect_no_leak();
	stop_switch();
	remove_weights();
}

static void
test_fpga_proxy_sends_counts_times_out_and_falls_back(void **state)
{
	struct tf_addr h = tf_host(10), s;
	struct acis_la_rule *r;
	uint8_t f[256];
	unsigned int len;

	(void)state;
	start_switch(NPORTS, "[lookaside px]\nmatch = udp_port 48000\n"
		     "fpga = p3\ntimeout_us = 1000\nvpe = 1\nbanks = 1\n"
		     "bank_size = 4096\n");
	r = &g_la.rules[0];
	s = switch_addr();
	/* a request goes to the FPGA port as it came */
	len = tf_udp(f, &s, &h, 5555, 48000, "question", 8, -1);
	inject(0, f, len);
	run();
	expect_frame(3, f, len);
	expect_silent(0);
	/* the FPGA answers by headers: forwarded to the host */
	len = tf_udp(f, &h, &s, 48000, 5555, "answer", 6, -1);
	inject(3, f, len);
	run();
	expect_frame(0, f, len);
	expect_fpga(r, 1, 1, 0, 0, 0);
	/* unanswered: lost after timeout_us */
	len = tf_udp(f, &s, &h, 5555, 48000, "question", 8, -1);
	inject(0, f, len);
	run();
	expect_frame(3, f, len);
	expect_fpga(r, 2, 1, 0, 1, 0);
	rte_delay_us_block(2000);
	run();
	expect_fpga(r, 2, 1, 1, 0, 0);
	/* the FPGA port goes down: the rule's fallback (drop) */
	assert_int_equal(rte_eth_dev_set_link_down(g_sw.ports[3].port_id), 0);
	rte_delay_us_block(120000);
	run();
	assert_int_equal(r->fpga_up, 0);
	inject(0, f, len);
	run();
	expect_silent(3);
	assert_int_equal(drops(ACIS_DROP_LA_FPGA_DOWN), 1);
	assert_int_equal(r->st.fpga_down, 1);
	expect_no_leak();
	stop_switch();
}

static void
test_fpga_link_framing_wraps_and_answers_the_requester(void **state)
{
	static const uint8_t fmac[6] = {0x02, 0xfa, 0, 0, 0, 1};
	struct tf_addr h = tf_host(10), s;
	struct acis_la_rule *r;
	uint8_t f[256], a[64];
	const uint8_t *x, *ip, *udp;
	struct rte_mbuf *m;
	unsigned int len;

	(void)state;
	start_switch(NPORTS, "[lookaside lk]\nmatch = udp_port 48000\n"
		     "fpga = p3\nframing = link\nlink_src = 0x0105\n"
		     "link_dst = 0x0207\nfpga_mac = 02:fa:00:00:00:01\n"
		     "vpe = 1\nbanks = 1\nbank_size = 4096\n");
	r = &g_la.rules[0];
	s = switch_addr();
	len = tf_udp(f, &s, &h, 5555, 48000, "question-123", 12, -1);
	inject(0, f, len);
	run();
	m = sent(3);
	assert_non_null(m);
	x = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(rte_pktmbuf_data_len(m), 14 + 9 + 12);
	assert_memory_equal(x, fmac, 6);
	assert_memory_equal(x + 6, sw.mac, 6);
	assert_int_equal(x[12] << 8 | x[13], 0x88b5);
	assert_int_equal(x[14], 0xfb);
	assert_int_equal(x[15] << 8 | x[16], 0x0105);
	assert_int_equal(x[17] << 8 | x[18], 0x0207);
	assert_int_equal(x[19] << 8 | x[20], 0);      /* tag */
	assert_int_equal(x[21] << 8 | x[22], 12);     /* length */
	assert_memory_equal(x + 23, "question-123", 12);
	rte_pktmbuf_free(m);
	/* the FPGA answers "hello" in a padded minimum frame */
	memset(a, 0, sizeof(a));
	memcpy(a, sw.mac, 6);
	memcpy(a + 6, fmac, 6);
	a[12] = 0x88; a[13] = 0xb5; a[14] = 0xfb;
	a[15] = 0x02; a[16] = 0x07; a[17] = 0x01; a[18] = 0x05;
	a[19] = 0; a[20] = 0; a[21] = 0; a[22] = 5;
	memcpy(a + 23, "hello", 5);
	inject(3, a, 60);
	run();
	m = sent(0);
	assert_non_null(m);
	x = rte_pktmbuf_mtod(m, const uint8_t *);
	ip = x + 14;
	udp = ip + 20;
	assert_int_equal(rte_pktmbuf_data_len(m), 14 + 20 + 8 + 5);
	assert_memory_equal(x, h.mac, 6);
	assert_memory_equal(x + 6, sw.mac, 6);
	assert_memory_equal(ip + 12, &s.ip, 4);
	assert_memory_equal(ip + 16, &h.ip, 4);
	assert_int_equal(udp[0] << 8 | udp[1], 48000);
	assert_int_equal(udp[2] << 8 | udp[3], 5555);
	assert_int_equal(acis_csum(ip, 20), 0);
	assert_int_equal(acis_csum_partial(udp, 13, acis_csum_partial(ip + 12,
				8, 0) + ACIS_IPPROTO_UDP + 13), 0xffff);
	assert_memory_equal(udp + 8, "hello", 5);
	rte_pktmbuf_free(m);
	expect_fpga(r, 1, 1, 0, 0, 0);
	/* the same answer again: nothing outstanding, dropped as late */
	inject(3, a, 60);
	/* a link frame between ids no rule uses */
	a[16] = 0x99;
	inject(3, a, 60);
	run();
	expect_silent(0);
	expect_fpga(r, 1, 1, 0, 0, 1);
	assert_int_equal(r->st.fpga_link_bad, 0);
	assert_int_equal(drops(ACIS_DROP_LA_LINK_BAD), 2);
	expect_no_leak();
	stop_switch();
}

/* A link frame from the FPGA at ids 0x0207 -> 0x0105 (the rules' below),
 * answering tag with payload: the frame's length. */
static const uint8_t link_fmac[6] = {0x02, 0xfa, 0, 0, 0, 1};

static unsigned int
link_frame(uint8_t *a, uint16_t tag, const void *payload, uint16_t plen)
{
	memcpy(a, sw.mac, 6);
	memcpy(a + 6, link_fmac, 6);
	a[12] = 0x88; a[13] = 0xb5; a[14] = 0xfb;
	a[15] = 0x02; a[16] = 0x07; a[17] = 0x01; a[18] = 0x05;
	a[19] = (uint8_t)(tag >> 8); a[20] = (uint8_t)tag;
	a[21] = (uint8_t)(plen >> 8); a[22] = (uint8_t)plen;
	if (plen != 0)
		memcpy(a + 23, payload, plen);
	return 23u + plen;
}

#define LINK_RULE(name, port, extra)                                        \
	"[lookaside " name "]\nmatch = udp_port 48001\nfpga = " port "\n"   \
	"framing = link\nlink_src = 0x0105\nlink_dst = 0x0207\n"            \
	"fpga_mac = 02:fa:00:00:00:01\nvpe = 1\nbanks = 1\n"                \
	"bank_size = 4096\n" extra

static void
test_fpga_empty_answers_are_returned_in_both_framings(void **state)
{
	struct tf_addr h = tf_host(10), s;
	struct acis_la_rule *udp, *lk;
	uint8_t f[256], a[64];
	const uint8_t *x;
	struct rte_mbuf *m;
	unsigned int len;

	(void)state;
	start_switch(NPORTS, "[lookaside px]\nmatch = udp_port 48000\n"
		     "fpga = p3\ntimeout_us = 1000\nvpe = 1\nbanks = 1\n"
		     "bank_size = 4096\n"
		     LINK_RULE("lk", "p2", "timeout_us = 1000\n"));
	udp = &g_la.rules[0];
	lk = &g_la.rules[1];
	s = switch_addr();
	/* udp framing: the card answers a datagram with no payload, in a
	 * 42-byte frame (no Ethernet padding, as net_acis_fpga sends it) */
	len = tf_udp(f, &s, &h, 5555, 48000, "question", 8, -1);
	inject(0, f, len);
	run();
	expect_frame(3, f, len);
	len = tf_udp(f, &h, &s, 48000, 5555, NULL, 0, -1);
	assert_int_equal(len, 42);
	inject(3, f, len);
	run();
	expect_frame(0, f, len);
	expect_fpga(udp, 1, 1, 0, 0, 0);
	/* link framing: payload length 0, unpadded and padded */
	len = tf_udp(f, &s, &h, 5555, 48001, "question", 8, -1);
	inject(0, f, len);
	inject(0, f, len);
	run();
	for (len = 0; len < 2; len++) {
		m = sent(2);
		assert_non_null(m);
		rte_pktmbuf_free(m);
	}
	memset(a, 0, sizeof(a));
	inject(2, a, link_frame(a, 0, NULL, 0));
	link_frame(a, 1, NULL, 0);
	inject(2, a, 60);
	run();
	for (len = 0; len < 2; len++) {
		m = sent(0);
		assert_non_null(m);
		x = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_int_equal(rte_pktmbuf_data_len(m), 14 + 20 + 8);
		assert_memory_equal(x, h.mac, 6);
		assert_int_equal(x[14 + 20 + 4] << 8 | x[14 + 20 + 5], 8);
		assert_int_equal(acis_csum(x + 14, 20), 0);
		rte_pktmbuf_free(m);
	}
	expect_fpga(lk, 2, 2, 0, 0, 0);
	/* well past timeout_us: nothing was left to be counted lost */
	rte_delay_us_block(2000);
	run();
	expect_fpga(udp, 1, 1, 0, 0, 0);
	expect_fpga(lk, 2, 2, 0, 0, 0);
	expect_silent(0);
	assert_int_equal(drops(ACIS_DROP_LA_LINK_BAD), 0);
	expect_no_leak();
	stop_switch();
}

static void
test_fpga_cut_link_frames_are_counted_bad(void **state)
{
	struct tf_addr h = tf_host(10), s;
	struct acis_la_rule *r;
	uint8_t f[256], a[64];
	struct rte_mbuf *m;
	unsigned int len;

	(void)state;
	start_switch(NPORTS, LINK_RULE("lk", "p3", ""));
	r = &g_la.rules[0];
	s = switch_addr();
	len = tf_udp(f, &s, &h, 5555, 48001, "question", 8, -1);
	inject(0, f, len);
	run();
	rte_pktmbuf_free(sent(3));
	memset(a, 0, sizeof(a));
	link_frame(a, 0, "answer", 6);
	/* cut inside the ids, inside the control field, inside the length */
	inject(3, a, 14 + 3);
	inject(3, a, 14 + 6);
	inject(3, a, 14 + 8);
	/* a length beyond the frame: 6 bytes said, 5 there */
	inject(3, a, 23 + 5);
	/* not starting with 0xFB */
	a[14] = 0xfa;
	inject(3, a, 60);
	run();
	expect_silent(0);
	assert_int_equal(r->st.fpga_link_bad, 5);
	assert_int_equal(drops(ACIS_DROP_LA_LINK_BAD), 5);
	expect_fpga(r, 1, 0, 0, 1, 0);
	/* none of them answered the request: its own answer still does */
	a[14] = 0xfb;
	inject(3, a, 60);
	run();
	m = sent(0);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_data_len(m), 14 + 20 + 8 + 6);
	assert_memory_equal(rte_pktmbuf_mtod(m, const uint8_t *) + 42,
			    "answer", 6);
	rte_pktmbuf_free(m);
	expect_fpga(r, 1, 1, 0, 0, 0);
	assert_int_equal(r->st.fpga_link_bad, 5);
	expect_no_leak();
	stop_switch();
}

/* The emulated card, answering far later than the rule waits (50 ms
 * against 1 ms): each answer comes after its request was counted lost.
 * A name of its own per switch started, as ports are not removed. */
static void
late_answers(int link)
{
	static unsigned int card;
	struct tf_addr h = tf_host(10), s;
	struct acis_la_rule *r;
	char text[1024];
	uint8_t f[256];
	struct rte_mbuf *m;
	unsigned int len;

	snprintf(text, sizeof(text),
		 "[port fpga]\ndev = net_acis_fpga%u,mode=%s,"
		 "latency_ns=50000000\n"
		 "%s",
		 card++, link ? "loopback" : "swap",
		 link ? LINK_RULE("late", "fpga", "timeout_us = 1000\n") :
		 "[lookaside late]\nmatch = udp_port 48001\nfpga = fpga\n"
		 "timeout_us = 1000\nvpe = 1\nbanks = 1\nbank_size = 4096\n");
	start_switch(3, text);
	r = &g_la.rules[0];
	s = switch_addr();
	len = tf_udp(f, &s, &h, 5555, 48001, "question", 8, -1);
	inject(0, f, len);
	run();
	expect_fpga(r, 1, 0, 0, 1, 0);
	rte_delay_us_block(5000);
	run();
	expect_fpga(r, 1, 0, 1, 0, 0);
	rte_delay_us_block(60000);
	run();
	/* udp: the answer still goes to its requester, by its headers;
	 * link: it cannot be rebuilt, its request's headers are gone */
	m = sent(0);
	if (link) {
		assert_null(m);
		assert_int_equal(drops(ACIS_DROP_LA_LINK_BAD), 1);
	} else {
		assert_non_null(m);
		rte_pktmbuf_free(m);
	}
	expect_fpga(r, 1, 0, 1, 0, 1);
	assert_int_equal(r->st.fpga_link_bad, 0);
	/* the same later: nothing outstanding was taken for the answer */
	inject(0, f, len);
	run();
	rte_delay_us_block(5000);
	run();
	expect_fpga(r, 2, 0, 2, 0, 1);
	rte_delay_us_block(60000);
	run();
	discard_sent();
	expect_fpga(r, 2, 0, 2, 0, 2);
	expect_no_leak();
	stop_switch();
}

static void
test_fpga_late_answers_count_late_with_udp_framing(void **state)
{
	(void)state;
	late_answers(0);
}

static void
test_fpga_late_answers_count_late_with_link_framing(void **state)
{
	(void)state;
	late_answers(1);
}

static void
test_acis_type_job_and_dst_ip_rules(void **state)
{
	struct tf_addr h = tf_host(10), o = tf_host(11), s;
	struct acis_hdr q = {
		.version = ACIS_PROTO_VERSION, .type = ACIS_T_DATA,
		.opcode = ACIS_C_ALLREDUCE, .hdr_len = ACIS_HDR_LEN, .job = 33,
		.dtype = ACIS_FLOAT32, .op = ACIS_OP_SUM, .root = 0xffffffffu,
		.msg_size = 8, .payload_len = 8, .chunk_size = 8,
		.contributors = 1,
	};
	uint8_t msg[ACIS_HDR_LEN + 8] = {0}, f[256];
	unsigned int len;

	(void)state;
	start_switch(NPORTS, "[lookaside mpi]\nmatch = acis_type 1\njob = 33\n"
		     "fpga = p3\nvpe = 1\nbanks = 1\nbank_size = 4096\n"
		     "[lookaside to11]\nmatch = dst_ip 10.77.0.11\n"
		     "action = forward\nvpe = 1\nbanks = 1\nbank_size = 4096\n"
		     "program = " ACIS_EXAMPLES_DIR "/passthrough.s\n");
	s = switch_addr();
	/* job 33's contributions go to the FPGA's port as they came */
	acis_hdr_encode(&q, msg);
	len = tf_udp(f, &s, &h, 7000, 47000, msg, sizeof(msg), -1);
	inject(0, f, len);
	run();
	expect_frame(3, f, len);
	assert_int_equal(g_la.rules[0].st.fpga_sent, 1);
	/* another job's stay with the collective stage */
	q.job = 34;
	acis_hdr_encode(&q, msg);
	len = tf_udp(f, &s, &h, 7000, 47000, msg, sizeof(msg), -1);
	inject(0, f, len);
	run();
	assert_int_equal(g_la.rules[0].st.fpga_sent, 1);
	assert_int_equal(delta().stage_pkts[ACIS_STAGE_COLL], 1);
	discard_sent();
	/* UDP passing to 10.77.0.11, any port: through the handler, then
	 * flooded (11 is unknown) but never to the FPGA's port */
	len = tf_udp(f, &o, &h, 1234, 999, "to eleven", 9, -1);
	inject(0, f, len);
	run();
	expect_frame(1, f, len);
	expect_frame(2, f, len);
	expect_silent(3);
	assert_int_equal(g_la.rules[1].st.runs, 1);
	expect_no_leak();
	stop_switch();
}

static void
test_passthrough_no_route_and_oversize(void **state)
{
	struct tf_addr h = tf_host(10), s;
	uint8_t f[256], big[] = "\tvsetivli x0, 512, e32, m32\n"
				"\tstreamout.v v0\n\twfi\n";
	char path[128], text[1024];
	const uint8_t *x;
	struct rte_mbuf *m;
	unsigned int len;
	FILE *fp;

	(void)state;
	write_weights();
	snprintf(path, sizeof(path), "%s/loop.s", tmpdir); /* removed after */
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs((const char *)big, fp);
	fclose(fp);
	snprintf(text, sizeof(text),
		 "[lookaside idle]\nmatch = udp_port 48000\n"
		 "when_stopped = passthrough\nvpe = 1\nbanks = 1\n"
		 "bank_size = 4096\n"
		 "[lookaside fwd]\nmatch = udp_port 48001\naction = forward\n"
		 "vpe = 1\nbanks = 1\nbank_size = 4096\n"
		 "program = " ACIS_EXAMPLES_DIR "/passthrough.s\n"
		 "[lookaside big]\nmatch = udp_port 48002\nvpe = 1\nbanks = 1\n"
		 "bank_size = 4096\nprogram = %s\n", path);
	start_switch(NPORTS, text);
	s = switch_addr();
	/* stopped, passthrough: back to the sender, payload unchanged */
	len = tf_udp(f, &s, &h, 5555, 48000, "same bytes", 10, -1);
	inject(0, f, len);
	run();
	m = sent(0);
	assert_non_null(m);
	x = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(x, h.mac, 6);
	assert_memory_equal(x + 30, &h.ip, 4);
	assert_int_equal(rte_pktmbuf_data_len(m), len);
	assert_memory_equal(x + 42, "same bytes", 10);
	rte_pktmbuf_free(m);
	assert_int_equal(g_la.rules[0].st.passthrough, 1);
	assert_int_equal(g_la.rules[0].st.runs, 0);
	/* forward, but addressed to the switch: nowhere to go */
	len = tf_udp(f, &s, &h, 5555, 48001, "to me", 5, -1);
	inject(0, f, len);
	/* a result longer than the MTU */
	len = tf_udp(f, &s, &h, 5555, 48002, "grow", 4, -1);
	inject(0, f, len);
	run();
	expect_silent(0);
	assert_int_equal(drops(ACIS_DROP_LA_NO_ROUTE), 1);
	assert_int_equal(drops(ACIS_DROP_LA_OVERSIZE), 1);
	assert_int_equal(g_la.rules[2].st.oversize, 1);
	expect_no_leak();
	stop_switch();
	remove_weights();
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			test_udp_request_returns_the_result_to_its_sender,
			la_teardown),
		cmocka_unit_test_teardown(
			test_acis_request_is_answered_with_its_header, la_teardown),
		cmocka_unit_test_teardown(
			test_passing_traffic_runs_through_a_handler_and_is_forwarded,
			la_teardown),
		cmocka_unit_test_teardown(
			test_runaway_and_unloaded_handlers_drop_and_count,
			la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_proxy_sends_counts_times_out_and_falls_back,
			la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_link_framing_wraps_and_answers_the_requester,
			la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_empty_answers_are_returned_in_both_framings,
			la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_cut_link_frames_are_counted_bad, la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_late_answers_count_late_with_udp_framing,
			la_teardown),
		cmocka_unit_test_teardown(
			test_fpga_late_answers_count_late_with_link_framing,
			la_teardown),
		cmocka_unit_test_teardown(test_acis_type_job_and_dst_ip_rules,
					  la_teardown),
		cmocka_unit_test_teardown(test_passthrough_no_route_and_oversize,
					  la_teardown),
	};
	int rc;

	(void)argc;
	if (harness_eal_init(argv[0]) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	harness_eal_cleanup();
	return rc;
}
