/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The emulated FPGA PMD (net_acis_fpga) driven through rte_eth_* as an
 * application drives it: devices made with rte_vdev_init from devargs, in
 * an EAL without hugepages. Frames are sent on the TX side and read back
 * on the RX side; checksums are checked with DPDK's own functions and
 * CGRA results with plain C built like the CGRA library.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "acis_cgra.h"
#include "frames.h"

#ifndef ACIS_EXAMPLES_DIR
#error "ACIS_EXAMPLES_DIR must name examples/cgra"
#endif

#define BURST 32

static struct rte_mempool *pool;
static char tmpdir[] = "/tmp/acis-fpga-test-XXXXXX";

/* ---- helpers ---- */

/* Capture what the EAL logs, while a device is made or a burst is sent,
 * to check messages. */
static char logbuf[8192];
static FILE *logmem;

static void
log_capture(void)
{
	memset(logbuf, 0, sizeof(logbuf));
	logmem = fmemopen(logbuf, sizeof(logbuf) - 1, "w");
	assert_non_null(logmem);
	rte_openlog_stream(logmem);
}

static void
log_release(void)
{
	rte_openlog_stream(NULL);
	fclose(logmem);
	logmem = NULL;
}

static int
make_dev(const char *name, const char *args)
{
	int rc;

	log_capture();
	rc = rte_vdev_init(name, args);
	log_release();
	return rc;
}

static uint16_t
start_port(const char *name, const char *args, uint16_t nrx, uint16_t ntx,
	   int lsc)
{
	struct rte_eth_conf conf;
	uint16_t port, q;
	int rc;

	rc = make_dev(name, args);
	if (rc != 0)
		fail_msg("%s,%s: probe failed: %s", name, args, logbuf);
	assert_int_equal(rte_eth_dev_get_port_by_name(name, &port), 0);
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = lsc ? 1 : 0;
	assert_int_equal(rte_eth_dev_configure(port, nrx, ntx, &conf), 0);
	for (q = 0; q < nrx; q++)
		assert_int_equal(rte_eth_rx_queue_setup(port, q, 512,
							SOCKET_ID_ANY, NULL,
							pool), 0);
	for (q = 0; q < ntx; q++)
		assert_int_equal(rte_eth_tx_queue_setup(port, q, 512,
							SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);
	return port;
}

static void
stop_port(const char *name, uint16_t port)
{
	assert_int_equal(rte_eth_dev_stop(port), 0);
	assert_int_equal(rte_eth_dev_close(port), 0);
	assert_int_equal(rte_vdev_uninit(name), 0);
}

static struct rte_mbuf *
mbuf_of(const uint8_t *f, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	return m;
}

/* A UDP frame from host 1 to host 2 with payload pl. */
static unsigned int
udp_frame(uint8_t *f, const void *pl, unsigned int len)
{
	struct tf_addr a = tf_host(1), b = tf_host(2);

	return tf_udp(f, &b, &a, 1111, 47000, pl, len, -1);
}

/* Poll queue q until n frames came, or ms milliseconds passed. */
static unsigned int
recv_n(uint16_t port, uint16_t q, struct rte_mbuf **out, unsigned int n,
       unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	unsigned int got = 0;

	while (got < n && rte_get_tsc_cycles() < end)
		got += rte_eth_rx_burst(port, q, out + got,
					(uint16_t)(n - got < BURST ? n - got : BURST));
	return got;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		fail_msg("no xstat %s", name);
	assert_int_equal(rte_eth_xstats_get_by_id(port, &id, &v, 1), 1);
	return v;
}

static void
assert_checksums_valid(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
		m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	struct rte_ipv4_hdr c = *ip;

	/* DPDK computes the header checksum over a zeroed field */
	c.hdr_checksum = 0;
	assert_int_equal(rte_ipv4_cksum(&c), ip->hdr_checksum);
	assert_int_not_equal(udp->dgram_cksum, 0);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, udp), 0);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length),
			 m->pkt_len - sizeof(struct rte_ether_hdr));
	assert_int_equal(rte_be_to_cpu_16(udp->dgram_len),
			 m->pkt_len - sizeof(struct rte_ether_hdr) -
				 sizeof(*ip));
}

static char *
write_tmp(const char *base, const void *data, size_t len)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, 256, "%s/%s", tmpdir, base);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return p;
}

/* An example program as acis-asm -o writes it: its words, little-endian,
 * in a file ending in .bin. */
static char *
write_bin_of(const char *example)
{
	char path[512], err[1024], base[64];
	uint32_t *w;
	uint8_t *b;
	size_t n, i;
	char *p;

	snprintf(path, sizeof(path), "%s/%s", ACIS_EXAMPLES_DIR, example);
	if (acis_cgra_read_program(path, &w, &n, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	b = malloc(4 * n);
	assert_non_null(b);
	for (i = 0; i < 4 * n; i++)
		b[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
	snprintf(base, sizeof(base), "%s.bin", example);
	p = write_tmp(base, b, 4 * n);
	free(b);
	free(w);
	return p;
}

/* ---- loopback and timing ---- */

static void
test_loopback_returns_frames_unchanged_in_order_after_the_latency(void **state)
{
	/* 20 ms of latency: long enough to see that nothing is back early */
	uint16_t port = start_port("net_acis_fpga_lb",
				   "latency_ns=20000000", 1, 1, 0);
	struct rte_mbuf *tx[BURST], *rx[BURST];
	uint8_t f[BURST][256], pl[64];
	unsigned int len[BURST], i, n;
	uint64_t t0, dt;

	(void)state;
	for (i = 0; i < BURST; i++) {
		memset(pl, (int)i, sizeof(pl));
		len[i] = udp_frame(f[i], pl, 20 + i);
		tx[i] = mbuf_of(f[i], len[i]);
	}
	t0 = rte_get_tsc_cycles();
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, BURST), BURST);
	/* nothing before its time (unless this thread slept 20 ms); what
	 * came then may be part of the burst only */
	n = rte_eth_rx_burst(port, 0, rx, BURST);
	if (n != 0)
		assert_true(rte_get_tsc_cycles() - t0 >= rte_get_tsc_hz() / 50);
	n += recv_n(port, 0, rx + n, BURST - n, 2000);
	assert_int_equal(n, BURST);
	dt = rte_get_tsc_cycles() - t0;
	assert_true(dt >= rte_get_tsc_hz() / 50);   /* >= 20 ms */
	for (i = 0; i < BURST; i++) {
		assert_int_equal(rx[i]->pkt_len, len[i]);
		assert_int_equal(rx[i]->port, port);
		assert_memory_equal(rte_pktmbuf_mtod(rx[i], void *), f[i],
				    len[i]);
		rte_pktmbuf_free(rx[i]);
	}
	assert_int_equal(xstat(port, "fpga_in_flight"), 0);
	stop_port("net_acis_fpga_lb", port);
}

static void
test_the_link_rate_paces_returning_frames(void **state)
{
	/* 1 Gb/s, no latency: 100 frames of 1250 B take 1 ms on the wire */
	uint16_t port = start_port("net_acis_fpga_rate",
				   "rate_gbps=1,latency_ns=0,depth=256", 1, 1,
				   0);
	struct rte_mbuf *tx[100], *rx[100];
	uint8_t f[1300], pl[1250 - 42];
	unsigned int i, got = 0;
	uint64_t t0, first = 0, last = 0, hz = rte_get_tsc_hz();

	(void)state;
	memset(pl, 1, sizeof(pl));
	assert_int_equal(udp_frame(f, pl, sizeof(pl)), 1250);
	for (i = 0; i < 100; i++)
		tx[i] = mbuf_of(f, 1250);
	t0 = rte_get_tsc_cycles();
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, 100), 100);
	while (got < 100 && rte_get_tsc_cycles() - t0 < hz) {
		unsigned int n = rte_eth_rx_burst(port, 0, rx + got, 100 - got);

		if (n > 0 && got == 0)
			first = rte_get_tsc_cycles();
		got += n;
		if (got == 100)
			last = rte_get_tsc_cycles();
	}
	assert_int_equal(got, 100);
	/* the first is back after one frame time (10 us), the last after
	 * 100 (1 ms), never sooner */
	assert_true(first - t0 >= hz / 100000);
	assert_true(last - t0 >= hz / 1000);
	assert_int_equal(xstat(port, "fpga_link_busy_ns"), 1000000);
	/* one burst, one clock reading: frame i waited for the i before
	 * it, 10 us * (0 + 1 + ... + 99), less under a TSC tick each */
	assert_in_range(xstat(port, "fpga_link_wait_ns"), 49500000 - 100,
			49500000);
	for (i = 0; i < 100; i++)
		rte_pktmbuf_free(rx[i]);
	stop_port("net_acis_fpga_rate", port);
}

/* ns in TSC ticks, rounded down */
static uint64_t
ns_ticks(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * rte_get_tsc_hz() /
			  1000000000u);
}

/*
 * Send the n frames in one burst and receive them, checking that frame k
 * is back when the model of doc/fpga.md (Timing) says: back_ns[k] after
 * the burst was sent. The driver reads the clock once for the burst,
 * between t0 and t1 around rte_eth_tx_burst, and a poll hands out the
 * frames whose time its own clock reading has reached. A frame returned
 * by a poll that ended at ta, when the poll before it had begun at tb,
 * was therefore ready in (tb, ta]; the model puts it in [t0 + back,
 * t1 + back]. The two must meet: ta >= t0 + back (not early) and
 * tb < t1 + back (not late). A poller that is descheduled only widens
 * (tb, ta], so this holds on a loaded machine, and it is as sharp as the
 * poll loop while it runs. The model rounds to TSC ticks per frame (the
 * link keeps the fraction; proc_ns and cycles do not): frame k is given
 * k + 2 ticks either way.
 */
static void
assert_back_when_modelled(uint16_t port, struct rte_mbuf **tx, unsigned int n,
			  const uint64_t *back_ns, struct rte_mbuf **rx)
{
	uint64_t t0, t1, tb, ta, prev = 0, back, end;
	double tick_ns = 1e9 / (double)rte_get_tsc_hz();
	unsigned int got = 0, k, r;

	t0 = rte_get_tsc_cycles();
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, (uint16_t)n), n);
	t1 = rte_get_tsc_cycles();
	end = t1 + ns_ticks(back_ns[n - 1]) + rte_get_tsc_hz();
	while (got < n) {
		tb = rte_get_tsc_cycles();
		r = rte_eth_rx_burst(port, 0, rx + got, (uint16_t)(n - got));
		ta = rte_get_tsc_cycles();
		for (k = got; k < got + r; k++) {
			back = ns_ticks(back_ns[k]);
			if (ta + k + 2 < t0 + back)
				fail_msg("frame %u back %.0f ns after it was "
					 "sent, the model says %" PRIu64, k,
					 (double)(ta - t0) * tick_ns,
					 back_ns[k]);
			if (prev >= t1 + back + k + 2)
				fail_msg("frame %u still not back %.0f ns "
					 "after it was sent, the model says %"
					 PRIu64, k,
					 (double)(prev - t1) * tick_ns,
					 back_ns[k]);
		}
		got += r;
		prev = tb;
		if (got < n && ta > end)
			fail_msg("%u of %u frames back a second after the "
				 "model's time", got, n);
	}
}

static void
test_overhead_is_on_the_wire_with_every_frame(void **state)
{
	/* 10 Mb/s: a byte takes 800 ns, and a frame 24 B more than its
	 * length (the 100 GbE line model's FCS, preamble and gap) */
	static const unsigned int pl[] = {18, 58, 0, 958, 158, 1458};
	enum { N = RTE_DIM(pl), OVERHEAD = 24, BYTE_NS = 800 };
	uint16_t port = start_port("net_acis_fpga_ovh",
				   "rate_gbps=0.01,overhead=24,latency_ns=0",
				   1, 1, 0);
	struct rte_mbuf *tx[N], *rx[N];
	uint64_t back[N], busy = 0, wait = 0;
	uint8_t f[1600], p[1500];
	unsigned int len[N], k;

	(void)state;
	memset(p, 0x3c, sizeof(p));
	for (k = 0; k < N; k++) {
		len[k] = udp_frame(f, p, pl[k]);
		tx[k] = mbuf_of(f, len[k]);
		/* one burst: frame k waits for the link until the frames
		 * before it are through, and is back when it is through */
		wait += busy;
		busy += (uint64_t)(len[k] + OVERHEAD) * BYTE_NS;
		back[k] = busy;
	}
	/* 60, 100, 42, 1000, 200 and 1500 B */
	assert_int_equal(busy, (uint64_t)(2902 + N * OVERHEAD) * BYTE_NS);
	assert_back_when_modelled(port, tx, N, back, rx);
	for (k = 0; k < N; k++) {
		assert_int_equal(rx[k]->pkt_len, len[k]);
		rte_pktmbuf_free(rx[k]);
	}
	/* the counters are in ns, from the link's ticks: each tick may
	 * lose under a ns */
	assert_in_range(xstat(port, "fpga_link_busy_ns"), busy - 1, busy);
	assert_in_range(xstat(port, "fpga_link_wait_ns"), wait - N, wait);
	assert_int_equal(xstat(port, "fpga_bytes_in"), 2902);
	stop_port("net_acis_fpga_ovh", port);
}

static void
test_proc_ns_is_spent_on_each_frame_in_turn(void **state)
{
	/* 8 Gb/s: a byte takes 1 ns. 100 B frames are on the link for
	 * 100 ns, processed for 2 ms one after the other, back 1 ms later */
	enum { N = 5, LEN = 100, PROC_NS = 2000000, LAT_NS = 1000000 };
	uint16_t port = start_port("net_acis_fpga_proc",
				   "rate_gbps=8,proc_ns=2000000,"
				   "latency_ns=1000000", 1, 1, 0);
	struct rte_mbuf *tx[N], *rx[N];
	uint64_t back[N];
	uint8_t f[256], p[LEN - 42];
	unsigned int k;

	(void)state;
	memset(p, 0x5a, sizeof(p));
	assert_int_equal(udp_frame(f, p, sizeof(p)), LEN);
	for (k = 0; k < N; k++) {
		tx[k] = mbuf_of(f, LEN);
		/* the first starts when it is off the link, the others
		 * when the one before is processed */
		back[k] = LEN + (uint64_t)(k + 1) * PROC_NS + LAT_NS;
	}
	assert_back_when_modelled(port, tx, N, back, rx);
	for (k = 0; k < N; k++)
		rte_pktmbuf_free(rx[k]);
	/* processing is not link time: the link was busy 5 x 100 ns, and
	 * the frames waited 0 + 100 + ... + 400 ns for it */
	assert_in_range(xstat(port, "fpga_link_busy_ns"), N * LEN - 1,
			N * LEN);
	assert_in_range(xstat(port, "fpga_link_wait_ns"), 1000 - N, 1000);
	stop_port("net_acis_fpga_proc", port);
}

static void
test_a_full_in_flight_queue_refuses_and_counts(void **state)
{
	uint16_t port = start_port("net_acis_fpga_full",
				   "depth=8,latency_ns=1000000", 1, 1, 0);
	struct rte_mbuf *tx[BURST], *rx[BURST];
	uint8_t f[128];
	unsigned int len = udp_frame(f, "x", 1), i, n;

	(void)state;
	for (i = 0; i < BURST; i++)
		tx[i] = mbuf_of(f, len);
	n = rte_eth_tx_burst(port, 0, tx, BURST);
	assert_int_equal(n, 8);
	assert_int_equal(xstat(port, "fpga_queue_full"), BURST - 8);
	assert_int_equal(xstat(port, "fpga_in_flight"), 8);
	assert_int_equal(rte_eth_tx_burst(port, 0, tx + 8, BURST - 8), 0);
	assert_int_equal(recv_n(port, 0, rx, 8, 2000), 8);
	/* drained: room again */
	assert_int_equal(rte_eth_tx_burst(port, 0, tx + 8, BURST - 8), 8);
	assert_int_equal(recv_n(port, 0, rx + 8, 8, 2000), 8);
	for (i = 0; i < 16; i++)
		rte_pktmbuf_free(rx[i]);
	for (i = 16; i < BURST; i++)
		rte_pktmbuf_free(tx[i]);
	stop_port("net_acis_fpga_full", port);
}

static void
test_two_tx_queues_return_on_one_rx_queue(void **state)
{
	uint16_t port = start_port("net_acis_fpga_mq", "latency_ns=0", 1, 2,
				   0);
	struct rte_mbuf *tx[2], *rx[4];
	uint8_t f[128];
	unsigned int len = udp_frame(f, "ab", 2);

	(void)state;
	tx[0] = mbuf_of(f, len);
	tx[1] = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, 1), 1);
	assert_int_equal(rte_eth_tx_burst(port, 1, tx + 1, 1), 1);
	assert_int_equal(recv_n(port, 0, rx, 2, 1000), 2);
	rte_pktmbuf_free(rx[0]);
	rte_pktmbuf_free(rx[1]);
	stop_port("net_acis_fpga_mq", port);
}

/* ---- swap ---- */

static void
test_swap_sends_frames_back_to_their_sender_with_valid_checksums(
	void **state)
{
	uint16_t port = start_port("net_acis_fpga_swap",
				   "mode=swap,latency_ns=0", 1, 1, 0);
	struct tf_addr a = tf_host(1), b = tf_host(2);
	struct rte_mbuf *m, *rx[1];
	uint8_t f[256], pl[77];
	unsigned int len;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	(void)state;
	memset(pl, 0xa5, sizeof(pl));
	len = udp_frame(f, pl, sizeof(pl));
	m = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
	assert_int_equal(recv_n(port, 0, rx, 1, 1000), 1);
	m = rx[0];
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), a.mac, 6);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *) + 6, b.mac, 6);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	udp = (struct rte_udp_hdr *)(ip + 1);
	assert_int_equal(ip->src_addr, b.ip);
	assert_int_equal(ip->dst_addr, a.ip);
	assert_int_equal(rte_be_to_cpu_16(udp->src_port), 47000);
	assert_int_equal(rte_be_to_cpu_16(udp->dst_port), 1111);
	assert_memory_equal(udp + 1, pl, sizeof(pl));
	assert_checksums_valid(m);
	rte_pktmbuf_free(m);
	stop_port("net_acis_fpga_swap", port);
}

static void
test_a_shared_mbuf_is_copied_not_written(void **state)
{
	uint16_t port = start_port("net_acis_fpga_shared",
				   "mode=swap,latency_ns=0", 1, 1, 0);
	struct rte_mbuf *m, *rx[1];
	uint8_t f[128];
	unsigned int len = udp_frame(f, "hello", 5);

	(void)state;
	m = mbuf_of(f, len);
	rte_mbuf_refcnt_update(m, 1);        /* someone else holds it too */
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
	assert_int_equal(recv_n(port, 0, rx, 1, 1000), 1);
	assert_ptr_not_equal(rx[0], m);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), f, len);
	assert_memory_equal(rte_pktmbuf_mtod(rx[0], uint8_t *), f + 6, 6);
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
	assert_int_equal(xstat(port, "fpga_copies"), 1);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(rx[0]);
	stop_port("net_acis_fpga_shared", port);
}

/* ---- cgra ---- */

static void
test_cgra_runs_axpy_on_the_udp_payload(void **state)
{
	enum { L = 200 };
	static float y[16384 + 1];
	float a = 1.5f, x[L], out[L];
	uint8_t f[2048];
	struct rte_mbuf *m, *rx[4];
	char args[1024];
	unsigned int i, len, k;
	uint16_t port;

	(void)state;
	for (i = 0; i < 16384; i++)
		y[i] = (float)i * 0.25f - 7.0f;
	y[16384] = a;                        /* a at byte 65536 */
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,latency_ns=0,"
		 "program=%s/axpy.s,memory=%s", ACIS_EXAMPLES_DIR,
		 write_tmp("axpy-bank1.bin", y, sizeof(y)));
	port = start_port("net_acis_fpga_axpy", args, 1, 1, 0);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < L; i++)
			x[i] = (float)(i + k) / 3.0f;
		len = udp_frame(f, x, sizeof(x));
		m = mbuf_of(f, len);
		assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
		assert_int_equal(recv_n(port, 0, rx, 1, 1000), 1);
		assert_int_equal(rx[0]->pkt_len, len);
		assert_checksums_valid(rx[0]);
		/* back to host 1, from host 2 */
		assert_memory_equal(rte_pktmbuf_mtod(rx[0], uint8_t *),
				    tf_host(1).mac, 6);
		/* the payload sits at offset 42: not float-aligned */
		memcpy(out, rte_pktmbuf_mtod_offset(rx[0], void *, 42),
		       sizeof(out));
		for (i = 0; i < L; i++)
			if (out[i] != fmaf(a, x[i], y[i]))
				fail_msg("frame %u element %u: %a, want %a", k,
					 i, out[i], fmaf(a, x[i], y[i]));
		rte_pktmbuf_free(rx[0]);
	}
	assert_int_equal(xstat(port, "fpga_cgra_runs"), 3);
	assert_int_equal(xstat(port, "fpga_cgra_faults"), 0);
	assert_true(xstat(port, "fpga_cgra_cycles") > 0);
	assert_true(xstat(port, "fpga_cgra_instructions") > 0);
	stop_port("net_acis_fpga_axpy", port);
}

static void
test_cgra_shrinking_output_rebuilds_lengths(void **state)
{
	/* dot.s on 2 VPEs: L floats in, 2 floats out (y[p] = w_p . x) */
	enum { L = 300 };
	static float w[2][16384 + 1];
	float x[L], want[2], out[2];
	uint8_t f[2048];
	struct rte_mbuf *m, *rx[1];
	char args[1024];
	unsigned int i, p, len;
	uint16_t port;

	(void)state;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 16384; i++)
			w[p][i] = (float)((i * 7 + p * 3) % 11) - 5.0f;
		w[p][16384] = 0.0f;
	}
	for (i = 0; i < L; i++)
		x[i] = (float)(i % 13) * 0.5f;
	for (p = 0; p < 2; p++) {
		want[p] = 0.0f;
		for (i = 0; i < L; i++)
			want[p] = fmaf(x[i], w[p][i], want[p]);
	}
	/* the program as binary words this time (axpy's test gives text) */
	snprintf(args, sizeof(args), "mode=cgra,vpes=2,latency_ns=0,"
		 "program=%s,memory=1:0:%s,memory=2:0:%s", write_bin_of("dot.s"),
		 write_tmp("w0.bin", w[0], sizeof(w[0])),
		 write_tmp("w1.bin", w[1], sizeof(w[1])));
	port = start_port("net_acis_fpga_dot", args, 1, 1, 0);
	len = udp_frame(f, x, sizeof(x));
	m = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
	assert_int_equal(recv_n(port, 0, rx, 1, 1000), 1);
	assert_int_equal(rx[0]->pkt_len, 42 + 8);
	assert_checksums_valid(rx[0]);
	memcpy(out, rte_pktmbuf_mtod_offset(rx[0], void *, 42), sizeof(out));
	assert_true(out[0] == want[0]);
	assert_true(out[1] == want[1]);
	rte_pktmbuf_free(rx[0]);
	stop_port("net_acis_fpga_dot", port);
}

static void
test_cgra_faults_and_non_udp_frames_are_dropped_and_counted(void **state)
{
	/* loads 64 bytes at 0xfffff000 of a 4 KiB bank: a memory fault */
	static const char bad[] = "\tlui x6, 0xfffff\n"
				  "\tvsetivli x0, 16, e32, m1\n"
				  "\tvle32.v v0, (x6)\n"
				  "\twfi\n";
	uint16_t port;
	struct rte_mbuf *m[3], *rx[3];
	uint8_t f[256];
	char args[512];
	struct tf_addr a = tf_host(1), b = tf_host(2);
	unsigned int len;

	(void)state;
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,bank_size=4096,"
		 "latency_ns=0,program=%s", write_tmp("bad.s", bad,
						      sizeof(bad) - 1));
	port = start_port("net_acis_fpga_fault", args, 1, 1, 0);
	len = udp_frame(f, "abcd", 4);
	m[0] = mbuf_of(f, len);
	m[1] = mbuf_of(f, len);
	len = tf_icmp_echo(f, &b, &a, 1, 1, 8);
	m[2] = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, m, 3), 3);
	assert_int_equal(recv_n(port, 0, rx, 3, 50), 0);
	assert_int_equal(xstat(port, "fpga_cgra_faults"), 2);
	assert_int_equal(xstat(port, "fpga_cgra_runs"), 2);
	assert_int_equal(xstat(port, "fpga_not_udp"), 1);
	assert_int_equal(xstat(port, "fpga_frames_in"), 3);
	assert_int_equal(xstat(port, "fpga_frames_out"), 0);
	stop_port("net_acis_fpga_fault", port);
}

/* A handler of 2000 cycles that streams nothing out: 1 + 999 x 2 + 1 under
 * the cost model (doc/cgra-isa.md §8), all of them scalar. */
static const char count_down[] = "\taddi x1, x0, 999\n"
				 "loop:\n"
				 "\taddi x1, x1, -1\n"
				 "\tbne x1, x0, loop\n"
				 "\twfi\n";
enum { COUNT_DOWN_CYCLES = 2000 };

/* N frames of 100 B through count_down at cgra_mhz, proc_ns on top: each
 * frame is processed for proc_ns + 2000 cycles / cgra_mhz, one after the
 * other, once off the 8 Gb/s link (100 ns). */
static void
cgra_timed(const char *name, unsigned int mhz, unsigned int proc_ns)
{
	enum { N = 4, LEN = 100 };
	uint64_t each = proc_ns + (uint64_t)COUNT_DOWN_CYCLES * 1000 / mhz;
	struct rte_mbuf *tx[N], *rx[N];
	uint64_t back[N];
	uint8_t f[256], p[LEN - 42];
	char args[1024];
	unsigned int k;
	uint16_t port;

	snprintf(args, sizeof(args), "mode=cgra,vpes=1,bank_size=4096,"
		 "rate_gbps=8,latency_ns=0,cgra_mhz=%u,proc_ns=%u,program=%s",
		 mhz, proc_ns, write_tmp("count_down.s", count_down,
					 sizeof(count_down) - 1));
	port = start_port(name, args, 1, 1, 0);
	memset(p, 7, sizeof(p));
	assert_int_equal(udp_frame(f, p, sizeof(p)), LEN);
	for (k = 0; k < N; k++) {
		tx[k] = mbuf_of(f, LEN);
		back[k] = LEN + (k + 1) * each;
	}
	assert_back_when_modelled(port, tx, N, back, rx);
	for (k = 0; k < N; k++) {
		assert_int_equal(rx[k]->pkt_len, 42);   /* nothing out */
		assert_checksums_valid(rx[k]);
		rte_pktmbuf_free(rx[k]);
	}
	assert_int_equal(xstat(port, "fpga_cgra_runs"), N);
	assert_int_equal(xstat(port, "fpga_cgra_cycles"),
			 N * COUNT_DOWN_CYCLES);
	assert_int_equal(xstat(port, "fpga_cgra_instructions"),
			 N * COUNT_DOWN_CYCLES);
	assert_int_equal(xstat(port, "fpga_cgra_faults"), 0);
	stop_port(name, port);
}

static void
test_cgra_mhz_is_the_clock_of_the_handlers_cycles(void **state)
{
	(void)state;
	/* 2000 cycles: 2 ms at 1 MHz, a quarter of that at 4 MHz */
	cgra_timed("net_acis_fpga_mhz1", 1, 0);
	cgra_timed("net_acis_fpga_mhz4", 4, 0);
	/* and proc_ns is added to them */
	cgra_timed("net_acis_fpga_mhz4p", 4, 250000);
}

static void
test_a_handler_over_its_budget_is_stopped_and_its_frame_dropped(void **state)
{
	static const char spin[] = "\taddi x1, x0, 1\n"
				   "spin:\n"
				   "\tbne x1, x0, spin\n"
				   "\twfi\n";
	enum { N = 4 };
	unsigned int avail = rte_mempool_avail_count(pool), k, len;
	struct rte_mbuf *m[N], *rx[N];
	uint8_t f[128];
	char args[512];
	uint16_t port;

	(void)state;
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,bank_size=4096,"
		 "latency_ns=0,budget=16,program=%s",
		 write_tmp("spin.s", spin, sizeof(spin) - 1));
	port = start_port("net_acis_fpga_budget", args, 1, 1, 0);
	len = udp_frame(f, "spin", 4);
	for (k = 0; k < N; k++)
		m[k] = mbuf_of(f, len);
	/* taken, run, stopped after 16 instructions (the addi and 15
	 * times the bne), dropped; the first fault is logged */
	log_capture();
	k = rte_eth_tx_burst(port, 0, m, N);
	log_release();
	assert_int_equal(k, N);
	if (strstr(logbuf, "CGRA handler fault: instruction budget exceeded: "
		   "instruction 1 (bne): instruction budget of 16 "
		   "exhausted") == NULL)
		fail_msg("the budget's fault is not logged:\n%s", logbuf);
	assert_int_equal(recv_n(port, 0, rx, N, 50), 0);
	assert_int_equal(xstat(port, "fpga_cgra_runs"), N);
	assert_int_equal(xstat(port, "fpga_cgra_faults"), N);
	assert_int_equal(xstat(port, "fpga_cgra_instructions"), N * 16);
	assert_int_equal(xstat(port, "fpga_frames_in"), N);
	assert_int_equal(xstat(port, "fpga_frames_out"), 0);
	assert_int_equal(xstat(port, "fpga_in_flight"), 0);
	/* the dropped frames' mbufs are back in the pool */
	assert_int_equal(rte_mempool_avail_count(pool), avail);
	stop_port("net_acis_fpga_budget", port);
	assert_int_equal(rte_mempool_avail_count(pool), avail);
}

/* ---- link ---- */

static int lsc_events;

static int
on_lsc(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	(void)port;
	(void)arg;
	(void)ret;
	if (ev == RTE_ETH_EVENT_INTR_LSC)
		lsc_events++;
	return 0;
}

static void
test_a_stopped_link_refuses_frames_and_loses_those_in_flight(void **state)
{
	uint16_t port = start_port("net_acis_fpga_link",
				   "latency_ns=5000000", 1, 1, 1);
	struct rte_eth_link link;
	struct rte_mbuf *m[4], *rx[4];
	uint8_t f[128];
	unsigned int len = udp_frame(f, "zz", 2), i;

	(void)state;
	lsc_events = 0;
	assert_int_equal(rte_eth_dev_callback_register(port,
		RTE_ETH_EVENT_INTR_LSC, on_lsc, NULL), 0);
	assert_int_equal(rte_eth_link_get_nowait(port, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_UP);
	assert_int_equal(link.link_speed, 95900);
	for (i = 0; i < 4; i++)
		m[i] = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, m, 2), 2);   /* in flight */
	assert_int_equal(rte_eth_dev_set_link_down(port), 0);
	assert_int_equal(rte_eth_link_get_nowait(port, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_DOWN);
	assert_int_equal(lsc_events, 1);
	assert_int_equal(rte_eth_tx_burst(port, 0, m + 2, 2), 0);
	assert_int_equal(xstat(port, "fpga_link_down_refused"), 2);
	/* back up before the two would have returned: they are gone */
	assert_int_equal(rte_eth_dev_set_link_up(port), 0);
	assert_int_equal(lsc_events, 2);
	assert_int_equal(recv_n(port, 0, rx, 2, 20), 0);
	assert_int_equal(xstat(port, "fpga_lost_link_down"), 2);
	/* and new frames go through again */
	assert_int_equal(rte_eth_tx_burst(port, 0, m + 2, 2), 2);
	assert_int_equal(recv_n(port, 0, rx, 2, 1000), 2);
	rte_pktmbuf_free(rx[0]);
	rte_pktmbuf_free(rx[1]);
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_INTR_LSC, on_lsc,
					NULL);
	stop_port("net_acis_fpga_link", port);
}

static void
test_link_down_in_devargs_starts_the_port_down(void **state)
{
	uint16_t port = start_port("net_acis_fpga_down", "link=down", 1, 1, 0);
	struct rte_eth_link link;
	struct rte_mbuf *m;
	uint8_t f[128];
	unsigned int len = udp_frame(f, "q", 1);

	(void)state;
	assert_int_equal(rte_eth_link_get_nowait(port, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_DOWN);
	m = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 0);
	rte_pktmbuf_free(m);
	stop_port("net_acis_fpga_down", port);
}

/* ---- counters ---- */

static void
test_stats_and_xstats_agree_and_reset(void **state)
{
	uint16_t port = start_port("net_acis_fpga_stats", "latency_ns=0", 1, 1,
				   0);
	struct rte_eth_stats st;
	struct rte_mbuf *m[5], *rx[5];
	uint8_t f[256];
	unsigned int len = udp_frame(f, "0123456789", 10), i;
	int n;

	(void)state;
	for (i = 0; i < 5; i++)
		m[i] = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, m, 5), 5);
	assert_int_equal(recv_n(port, 0, rx, 5, 1000), 5);
	assert_int_equal(rte_eth_stats_get(port, &st), 0);
	assert_int_equal(st.opackets, 5);
	assert_int_equal(st.obytes, 5 * len);
	assert_int_equal(st.ipackets, 5);
	assert_int_equal(st.ibytes, 5 * len);
	assert_int_equal(xstat(port, "fpga_frames_in"), 5);
	assert_int_equal(xstat(port, "fpga_bytes_in"), 5 * len);
	assert_int_equal(xstat(port, "fpga_frames_out"), 5);
	assert_int_equal(xstat(port, "fpga_bytes_out"), 5 * len);
	/* the ethdev's own names are there too */
	assert_int_equal(xstat(port, "tx_good_packets"), 5);
	n = rte_eth_xstats_get_names(port, NULL, 0);
	assert_true(n > 20);
	assert_int_equal(rte_eth_stats_reset(port), 0);
	assert_int_equal(xstat(port, "fpga_frames_in"), 0);
	assert_int_equal(xstat(port, "fpga_bytes_out"), 0);
	assert_int_equal(rte_eth_stats_get(port, &st), 0);
	assert_int_equal(st.opackets, 0);
	assert_int_equal(st.q_opackets[0], 0);
	assert_int_equal(st.q_ipackets[0], 0);
	/* and count again from there */
	assert_int_equal(rte_eth_tx_burst(port, 0, rx, 2), 2);
	assert_int_equal(recv_n(port, 0, rx, 2, 1000), 2);
	assert_int_equal(rte_eth_stats_get(port, &st), 0);
	assert_int_equal(st.opackets, 2);
	assert_int_equal(st.q_opackets[0], 2);
	assert_int_equal(st.q_ibytes[0], 2 * len);
	assert_int_equal(xstat(port, "fpga_frames_out"), 2);
	/* 2 frames of 52 B at 95.9 Gb/s since the reset: 8.7 ns */
	assert_in_range(xstat(port, "fpga_link_busy_ns"), 8, 9);
	for (i = 0; i < 5; i++)
		rte_pktmbuf_free(rx[i]);
	stop_port("net_acis_fpga_stats", port);
}

/* ---- devargs ---- */

static void
refused(const char *args, const char *says)
{
	int rc = make_dev("net_acis_fpga_bad", args);

	if (rc == 0) {
		rte_vdev_uninit("net_acis_fpga_bad");
		fail_msg("'%s' was accepted", args);
	}
	if (strstr(logbuf, says) == NULL)
		fail_msg("'%s': log does not say '%s':\n%s", args, says, logbuf);
}

static void
test_bad_devargs_are_refused_naming_the_key(void **state)
{
	char args[512];

	(void)state;
	refused("latency_ns=abc", "latency_ns: expected an integer 0..");
	refused("latency_ns=-1", "latency_ns: expected an integer");
	refused("rate_gbps=0", "rate_gbps: expected a rate in Gb/s");
	refused("rate_gbps=fast", "rate_gbps: expected a rate in Gb/s");
	refused("depth=0", "depth: expected an integer 1..");
	refused("mode=turbo", "mode: expected loopback, swap or cgra");
	refused("link=sideways", "link: expected up or down");
	refused("mac=01:00:00:00:00:01", "mac: expected a unicast MAC");
	refused("colour=blue", "unknown devarg 'colour'");
	refused("latency_ns", "devarg 'latency_ns': expected key=value");
	refused("depth=4,depth=8", "depth: given twice");
	refused("program=x.s", "are for mode=cgra");
	refused("mode=cgra", "mode=cgra needs program=FILE");
	refused("mode=cgra,program=/nonexistent/p.s",
		"program: /nonexistent/p.s: No such file or directory");
	refused("mode=cgra,vpes=40,program=x.s", "vpes: expected an integer 1..31");
	snprintf(args, sizeof(args), "mode=cgra,program=%s",
		 write_tmp("syntax.s", "\tfrobnicate x1\n", 14));
	refused(args, "unknown mnemonic");
	snprintf(args, sizeof(args), "mode=cgra,program=%s",
		 write_tmp("odd.bin", "abcdef", 6));
	refused(args, "whole 32-bit little-endian words");
	/* binary words in a file not named .bin are not taken for text */
	snprintf(args, sizeof(args), "mode=cgra,program=%s",
		 write_tmp("dot.img", "\x13\x00\x00\x00", 4));
	refused(args, "binary programs must end in .bin");
	snprintf(args, sizeof(args), "mode=cgra,program=%s/passthrough.s,"
		 "memory=2:0:/nonexistent/w.bin", ACIS_EXAMPLES_DIR);
	refused(args, "memory: /nonexistent/w.bin: No such file or directory");
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,bank_size=16,"
		 "program=%s/passthrough.s,memory=%s", ACIS_EXAMPLES_DIR,
		 write_tmp("big.bin", "0123456789abcdefX", 17));
	refused(args, "does not fit bank 1 at offset 0");
	snprintf(args, sizeof(args), "mode=cgra,program=%s/passthrough.s,"
		 "memory=1:zero:x", ACIS_EXAMPLES_DIR);
	refused(args, "memory (offset): expected an integer");
}

static void
accepted(const char *args)
{
	if (make_dev("net_acis_fpga_ok", args) != 0)
		fail_msg("'%s' was refused:\n%s", args, logbuf);
	assert_int_equal(rte_vdev_uninit("net_acis_fpga_ok"), 0);
}

static void
test_timing_and_cgra_devargs_out_of_range_are_refused(void **state)
{
	char args[512];

	(void)state;
	refused("proc_ns=-1",
		"proc_ns: expected an integer 0..1000000000, found '-1'");
	refused("proc_ns=1000000001",
		"proc_ns: expected an integer 0..1000000000, found "
		"'1000000001'");
	refused("proc_ns=2us",
		"proc_ns: expected an integer 0..1000000000, found '2us'");
	refused("overhead=2000",
		"overhead: expected an integer 0..1024, found '2000'");
	refused("overhead=-24",
		"overhead: expected an integer 0..1024, found '-24'");
	refused("cgra_mhz=0",
		"cgra_mhz: expected an integer 1..100000, found '0'");
	refused("cgra_mhz=100001",
		"cgra_mhz: expected an integer 1..100000, found '100001'");
	refused("mode=cgra,banks=32,program=x.s",
		"banks: expected an integer 1..31, found '32'");
	refused("mode=cgra,banks=0,program=x.s",
		"banks: expected an integer 1..31, found '0'");
	refused("mode=cgra,budget=0,program=x.s",
		"budget: expected an integer 1..1099511627776, found '0'");
	refused("mode=cgra,budget=1099511627777,program=x.s",
		"budget: expected an integer 1..1099511627776, found "
		"'1099511627777'");
	refused("proc_ns=5,proc_ns=6", "proc_ns: given twice");
	/* banks and budget are the CGRA's; cgra_mhz is taken in any mode */
	refused("banks=2", "are for mode=cgra (mode is loopback)");
	refused("mode=swap,budget=16", "are for mode=cgra (mode is swap)");
	/* the ends of each range are in it */
	accepted("proc_ns=0,overhead=0,cgra_mhz=1");
	accepted("proc_ns=1000000000,overhead=1024,cgra_mhz=100000");
	accepted("mode=swap,cgra_mhz=250");
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,banks=31,bank_size=4,"
		 "budget=1099511627776,program=%s/passthrough.s",
		 ACIS_EXAMPLES_DIR);
	accepted(args);
	snprintf(args, sizeof(args), "mode=cgra,banks=1,budget=1,"
		 "program=%s/passthrough.s", ACIS_EXAMPLES_DIR);
	accepted(args);
}

static void
test_banks_is_the_number_of_data_banks_of_the_machine(void **state)
{
	static const char data[64] = "bank one";
	struct rte_mbuf *m, *rx[1];
	char args[1024], says[1024], *w;
	uint8_t f[128];
	unsigned int len;
	uint16_t port;

	(void)state;
	w = write_tmp("bank.bin", data, sizeof(data));
	/* one VPE with its one bank: a machine, data in bank 1 */
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,banks=1,"
		 "bank_size=4096,latency_ns=0,program=%s/passthrough.s,"
		 "memory=1:0:%s", ACIS_EXAMPLES_DIR, w);
	port = start_port("net_acis_fpga_bank1", args, 1, 1, 0);
	len = udp_frame(f, "through", 7);
	m = mbuf_of(f, len);
	assert_int_equal(rte_eth_tx_burst(port, 0, &m, 1), 1);
	assert_int_equal(recv_n(port, 0, rx, 1, 1000), 1);
	assert_int_equal(rx[0]->pkt_len, len);
	assert_memory_equal(rte_pktmbuf_mtod_offset(rx[0], void *, 42),
			    "through", 7);
	rte_pktmbuf_free(rx[0]);
	assert_int_equal(xstat(port, "fpga_cgra_runs"), 1);
	stop_port("net_acis_fpga_bank1", port);
	/* it has no bank 2 */
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,banks=1,"
		 "bank_size=4096,program=%s/passthrough.s,memory=2:0:%s",
		 ACIS_EXAMPLES_DIR, w);
	snprintf(says, sizeof(says), "memory: '%s' (64 bytes) does not fit "
		 "bank 2 at offset 0 (the machine has data banks 1..1 of 4096 "
		 "bytes)", w);
	refused(args, says);
	/* with banks=2 it has, though one VPE would have one */
	snprintf(args, sizeof(args), "mode=cgra,vpes=1,banks=2,"
		 "bank_size=4096,program=%s/passthrough.s,memory=2:0:%s",
		 ACIS_EXAMPLES_DIR, w);
	accepted(args);
	/* two VPEs each on their own bank need two: the loader says so */
	snprintf(args, sizeof(args), "mode=cgra,vpes=2,banks=1,"
		 "bank_size=4096,program=%s/dot.s", ACIS_EXAMPLES_DIR);
	refused(args, "own-bank access needs 2 data banks (one per VPE), "
		"the machine has 1");
}

static int
setup_all(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	pool = rte_pktmbuf_pool_create("fpga_test", 4095, 128, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
teardown_all(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		return -1;
	/* every mbuf came back: nothing leaked in the driver */
	if (rte_mempool_avail_count(pool) != 4095) {
		fprintf(stderr, "mbufs leaked: %u of 4095 free\n",
			rte_mempool_avail_count(pool));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal[] = {argv[0], "-l", "0", "--no-huge", "-m", "256",
		       "--no-pci", "--no-telemetry", "--no-shconf",
		       "--log-level", "pmd.net.acis_fpga:info"};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_returns_frames_unchanged_in_order_after_the_latency),
		cmocka_unit_test(test_the_link_rate_paces_returning_frames),
		cmocka_unit_test(test_overhead_is_on_the_wire_with_every_frame),
		cmocka_unit_test(test_proc_ns_is_spent_on_each_frame_in_turn),
		cmocka_unit_test(test_a_full_in_flight_queue_refuses_and_counts),
		cmocka_unit_test(test_two_tx_queues_return_on_one_rx_queue),
		cmocka_unit_test(test_swap_sends_frames_back_to_their_sender_with_valid_checksums),
		cmocka_unit_test(test_a_shared_mbuf_is_copied_not_written),
		cmocka_unit_test(test_cgra_runs_axpy_on_the_udp_payload),
		cmocka_unit_test(test_cgra_shrinking_output_rebuilds_lengths),
		cmocka_unit_test(test_cgra_faults_and_non_udp_frames_are_dropped_and_counted),
		cmocka_unit_test(test_cgra_mhz_is_the_clock_of_the_handlers_cycles),
		cmocka_unit_test(test_a_handler_over_its_budget_is_stopped_and_its_frame_dropped),
		cmocka_unit_test(test_a_stopped_link_refuses_frames_and_loses_those_in_flight),
		cmocka_unit_test(test_link_down_in_devargs_starts_the_port_down),
		cmocka_unit_test(test_stats_and_xstats_agree_and_reset),
		cmocka_unit_test(test_bad_devargs_are_refused_naming_the_key),
		cmocka_unit_test(test_timing_and_cgra_devargs_out_of_range_are_refused),
		cmocka_unit_test(test_banks_is_the_number_of_data_banks_of_the_machine),
	};
	int rc;

	(void)argc;
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, setup_all, teardown_all);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
