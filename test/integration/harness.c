/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration harness: the switch on net_ring ports, driven from the test
 * thread; see harness.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acis_conf.h"
#include "acis_pipeline.h"
#include "harness.h"
#include "tx.h"

/* A bound on walks in one run(), far above what any test injects, so a
 * stage that never drains its input fails the test instead of hanging. */
#define RUN_MAX_ROUNDS 4096

static struct {
	unsigned int gen; /* makes ring and port names unique per test */
	unsigned int nports;
	struct rte_ring *in[NPORTS];  /* we enqueue: the port receives */
	struct rte_ring *out[NPORTS]; /* the port transmits: we dequeue */
	struct acis_pipeline pl;
	struct acis_lcore_stats base;
	int running;
	unsigned int chained; /* chained frames taken since start_switch */
} hs;

const struct tf_addr sw = {
	.mac = {0x02, 0xac, 0x15, 0, 0, 1},
	.ip = 0, /* sw_ip() */
};

uint32_t
sw_ip(void)
{
	uint32_t ip;

	acis_parse_ipv4(SW_IP, &ip);
	return ip;
}

void
start_switch(unsigned int nports, const char *extra)
{
	start_switch_with(nports, 4095, extra);
}

void
start_switch_with(unsigned int nports, unsigned int mbufs, const char *extra)
{
	char text[4096], name[64];
	char err[ACIS_CONF_ERR_LEN];
	struct acis_conf *conf;
	unsigned int i;
	int n;

	assert_true(nports <= NPORTS);
	hs.gen++;
	hs.nports = nports;
	n = snprintf(text, sizeof(text),
		     "[switch]\nmac = " SW_MAC "\nip = " SW_IP "\n"
		     "mbufs = %u\nmbuf_cache = 32\n", mbufs);
	for (i = 0; i < nports; i++) {
		snprintf(name, sizeof(name), "rin%u_%u", hs.gen, i);
		hs.in[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "rout%u_%u", hs.gen, i);
		hs.out[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		assert_non_null(hs.in[i]);
		assert_non_null(hs.out[i]);
		/* rte_eth_from_rings names the ethdev "net_ring_" + name */
		snprintf(name, sizeof(name), "t%u_%u", hs.gen, i);
		assert_true(rte_eth_from_rings(name, &hs.in[i], 1, &hs.out[i],
					       1, (unsigned int)rte_socket_id())
			    >= 0);
		snprintf(name, sizeof(name), "net_ring_t%u_%u", hs.gen, i);
		n += snprintf(text + n, sizeof(text) - n,
			      "[port p%u]\ndev = %s\nrxd = 128\ntxd = 128\n",
			      i, name);
	}
	snprintf(text + n, sizeof(text) - n, "%s", extra ? extra : "");
	conf = acis_conf_parse("test.ini", text, err);
	assert_non_null(conf);
	if (acis_pipeline_from_conf(conf, rte_get_main_lcore(), &hs.pl,
				    err) != 0)
		fail_msg("pipeline: %s", err);
	acis_conf_free(conf);
	if (acis_switch_init(&hs.pl, err, sizeof(err)) != 0)
		fail_msg("switch init: %s", err);
	acis_stats_sum(&hs.base);
	hs.chained = 0;
	hs.running = 1;
}

void
stop_switch(void)
{
	unsigned int i;

	if (!hs.running)
		return;
	hs.running = 0;
	acis_switch_fini();
	for (i = 0; i < hs.nports; i++) {
		rte_ring_free(hs.in[i]);
		rte_ring_free(hs.out[i]);
	}
}

void
run_for(unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_get_tsc_cycles() < end) {
		run();
		usleep(1000);
	}
	run();
}

struct tf_addr
switch_addr(void)
{
	struct tf_addr a = sw;

	a.ip = sw_ip();
	return a;
}

void
inject(unsigned int port, const uint8_t *frame, unsigned int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_sw.pool);

	assert_true(port < hs.nports);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	assert_int_equal(rte_ring_enqueue(hs.in[port], m), 0);
}

int
busy(void)
{
	unsigned int i, j;

	if (acis_coll_fanouts_pending() != 0 || acis_tx_held_now() != 0)
		return 1;
	for (i = 0; i < hs.nports; i++)
		if (rte_ring_count(hs.in[i]) != 0)
			return 1;
	for (i = 0; i < g_sw.n_lcores; i++)
		for (j = 0; j < g_sw.lcores[i]->n_out; j++)
			if (g_sw.lcores[i]->out[j] != NULL &&
			    rte_ring_count(g_sw.lcores[i]->out[j]) != 0)
				return 1;
	return 0;
}

void
walk(void)
{
	unsigned int i;

	for (i = 0; i < g_sw.n_lcores; i++) {
		if (g_sw.lcores[i]->graph == NULL)
			continue;
		acis_switch_walk(g_sw.lcores[i]);
	}
}

/* Walk every lcore's graph in pipeline order (rx lcores before the
 * workers they feed), on this one thread. One walk takes a burst per port
 * and carries it through every stage, so a few walks take in what a test
 * injects; more are made while input is still waiting. */
void
run(void)
{
	unsigned int round;

	for (round = 0; round < 4 || busy(); round++) {
		if (round == RUN_MAX_ROUNDS)
			fail_msg("frames still waiting after %u graph walks",
				 round);
		walk();
	}
}

struct rte_mbuf *
sent(unsigned int port)
{
	void *m;

	if (rte_ring_dequeue(hs.out[port], &m) != 0)
		return NULL;
	/* Answers to several members share their payload (a chained
	 * segment); the tests read every frame as one piece: a contiguous
	 * copy, and the frame itself freed as a PMD frees what it sent,
	 * every segment, so a reference count gone wrong shows. */
	if (!rte_pktmbuf_is_contiguous((struct rte_mbuf *)m)) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, g_sw.pool, 0,
						      UINT32_MAX);

		hs.chained++;
		assert_non_null(c);
		assert_true(rte_pktmbuf_is_contiguous(c));
		rte_pktmbuf_free(m);
		m = c;
	}
	return m;
}

unsigned int
sent_copy(unsigned int port, uint8_t *buf, unsigned int cap)
{
	struct rte_mbuf *m;
	unsigned int len;
	const void *p;

	if (rte_ring_dequeue(hs.out[port], (void **)&m) != 0)
		return 0;
	len = rte_pktmbuf_pkt_len(m);
	if (!rte_pktmbuf_is_contiguous(m))
		hs.chained++;
	if (len > cap) {
		rte_pktmbuf_free(m);
		fail_msg("port %u sent a %u-byte frame, more than %u", port,
			 len, cap);
	}
	p = rte_pktmbuf_read(m, 0, len, buf);
	if (p != buf)
		memcpy(buf, p, len);
	rte_pktmbuf_free(m);
	return len;
}

void
expect_frame(unsigned int port, const uint8_t *frame, unsigned int len)
{
	struct rte_mbuf *m = sent(port);

	if (m == NULL)
		fail_msg("port %u sent nothing; expected a %u-byte frame",
			 port, len);
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), frame, len);
	rte_pktmbuf_free(m);
}

void
discard_sent(void)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < hs.nports; p++)
		while ((m = sent(p)) != NULL)
			rte_pktmbuf_free(m);
}

void
expect_silent(unsigned int port)
{
	struct rte_mbuf *m = sent(port);

	if (m != NULL) {
		rte_pktmbuf_free(m);
		fail_msg("port %u sent a frame it should not have", port);
	}
}

uint64_t
drops(enum acis_drop_reason r)
{
	struct acis_lcore_stats s;

	acis_stats_sum(&s);
	return s.drops[r] - hs.base.drops[r];
}

unsigned int
chained_frames(void)
{
	return hs.chained;
}

struct acis_lcore_stats
delta(void)
{
	struct acis_lcore_stats s;
	uint64_t *a = (uint64_t *)&s;
	const uint64_t *b = (const uint64_t *)&hs.base;
	size_t k;

	acis_stats_sum(&s);
	for (k = 0; k < sizeof(s) / sizeof(uint64_t); k++)
		a[k] -= b[k];
	return s;
}

/* Every mbuf back in the pool, and each once: a frame freed twice makes
 * the count exceed the pool, which rte_mempool_avail_count would clamp,
 * so the pool's ring (the default ops) and the lcore caches are counted
 * here. */
void
expect_no_leak(void)
{
	const struct rte_mempool *mp = g_sw.pool;
	unsigned int n, i;

	assert_int_equal(strncmp(rte_mempool_get_ops(mp->ops_index)->name,
				 "ring", 4), 0);
	n = rte_ring_count((const struct rte_ring *)mp->pool_data);
	if (mp->cache_size != 0)
		for (i = 0; i < RTE_MAX_LCORE; i++)
			n += mp->local_cache[i].len;
	assert_int_equal(n, mp->size);
}

int
teardown(void **state)
{
	(void)state;
	stop_switch();
	return 0;
}

int
harness_eal_init(const char *prog)
{
	char *eal[] = {(char *)(uintptr_t)prog, "-l", "0-1", "--no-huge",
		       "-m", "512", "--no-pci", "--no-telemetry",
		       "--log-level", "error", "--no-shconf"};

	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return -1;
	}
	return 0;
}

void
harness_eal_cleanup(void)
{
	rte_eal_cleanup();
}

struct acis_coll_stats
coll_stats(void)
{
	struct acis_coll_stats cs;
	struct acis_agg_stats as;

	acis_coll_stats_sum(&cs, &as);
	return cs;
}

struct acis_agg_stats
slot_stats(void)
{
	struct acis_coll_stats cs;
	struct acis_agg_stats as;

	acis_coll_stats_sum(&cs, &as);
	return as;
}
