/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switch_bench: the real switch — pipeline text, ports, graph of stages,
 * the lcore loop of acis-switch (acis_switch_core) — on net_ring ports in
 * this process (fwd --memif: net_memif ports), fed from rings the
 * benchmark owns, against a reference measured in the same run on the
 * same cores.
 *
 *   switch_bench [EAL options] -- fwd [--frame B] [--seconds S]
 *                [--inflight N] [--flows F] [--io] [--memif] [--csv FILE]
 *   switch_bench [EAL options] -- agg [--ranks P] [--payload B]
 *                [--chunks C] [--workers W] [--round-mb M] [--rounds R]
 *                [--nic-checksums] [--free-on-main] [--csv FILE]
 *                [--only switch|floor|ceiling] [--floor-answers]
 *
 * fwd: L2 forwarding between two ports wired back to back (what port 0
 * sends, port 1 receives, and the other way), two stations A on port 0
 * and B on port 1 (static entries), N frames of B bytes in flight each
 * way. Every frame is forwarded by the switch (a burst of one flow is
 * sent by the RX stage itself, the direct path) and comes back round the
 * wire, as in testpmd's --tx-first loop. With --flows F, F pairs of
 * stations (A_j on port 0, B_j on port 1, all static) take turns frame
 * by frame, so no two frames in a row are of one flow: a burst's frames
 * go by the direct path's memory of the flows it met (up to 32 per
 * burst), and past what that memory holds each frame takes the L2
 * decision (at 64 flows, nearly every one). With --io, a plain
 * rx_burst/tx_burst loop (testpmd's io forwarding) on the same ports
 * instead of the switch. With --memif, the two ports are net_memif ports
 * of this process connected to each other instead of net_ring ports, so
 * every frame is copied through shared memory on its way round. Reports
 * forwarded Mpps on one lcore.
 *
 * agg: allreduce float32 sum of P ranks on P ports. Each round puts on
 * the ports' RX rings fresh copies of whole collectives of C chunks of B
 * bytes (every rank's contributions, then its receipts; UDP checksums as
 * hosts send them), starts the worker lcores, and takes the results
 * coming out; the round is timed from the launch to the drain that takes
 * its last result. The ceiling is a plain streaming sum (acc = r0; acc +=
 * r1; ...) over fresh copies of the same contributions, the same payload
 * bytes in the same order, on the same worker lcores. The floor is a bare
 * loop on the worker lcores that takes fresh copies of the round's frames
 * off the same RX queues and only verifies their checksums and folds
 * them (floor_lcore): no answers, no bookkeeping. The first result of
 * every round is checked bit for bit against that sum (the floor's, which
 * folds in arrival order, to within rounding). Reports contribution Gb/s
 * per worker lcore for the three, alternating, and the switch's and the
 * floor's ratios to the ceiling. With
 * --nic-checksums the frames arrive as from a NIC that verified their
 * checksums on receive (marked good, on ports taken to verify them), so
 * the switch does not verify them again; otherwise it verifies each UDP
 * checksum in software, as on ports without the offload. The main lcore
 * takes the results off the TX rings as a NIC's transmit side reads them
 * (their bytes, never their rte_mbuf: nic_frame), and hands them back to
 * the worker that sent them, which frees them the next time it
 * transmits on that queue (a TX callback), as a NIC's driver
 * frees the frames its NIC has sent; with --free-on-main the main lcore
 * frees them itself, and the worker's pool gets back mbufs last written
 * by the other core.
 * With --floor-answers (one worker), the floor also answers every member
 * of a finished chunk as the switch does, a frame of prebuilt headers
 * each with the sum chained behind, and its round is timed as the
 * switch's, to the drain of its last result (floor_answer): the least
 * that a switch answering by unicast must do.
 * With --auth, every rank joins with a cookie and every contribution
 * and receipt carries it, as libacis's do by default: the switch checks
 * each against the member's and writes the member's into every answer.
 * With --only, each round runs that one of the three measurements and
 * nothing else, so a profile of the worker lcore holds only it; it prints
 * that one's Gb/s and writes no CSV.
 *
 * The lcores the switch runs on are the EAL's lcores after the main one:
 * give the EAL -l or --lcores accordingly (the main lcore only samples).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "acis_conf.h"
#include "acis_pipeline.h"
#include "acis_proto.h"
#include "acis_reduce.h"
#include "switch.h"

#define MAX_PORTS 8
#define MAX_Q 4
#define SW_MAC "02:ac:15:00:00:01"
#define SW_IP_STR "10.77.0.1"
#define OFF_ACIS 42 /* Ethernet + IPv4 + UDP */
#define OFF_PAYLOAD (OFF_ACIS + ACIS_HDR_LEN)
#define JOB 4242
/* The switch's mbuf pool in agg with one worker: twice the default, so
 * results taken off the TX rings every 100 us never leave it short (with
 * several, agg_run sizes it for a whole round). (net_ring ports have no
 * descriptors: rxd and txd only size the pool check, so they are small.) */
#define SW_MBUFS 32767

static const uint8_t sw_mac[6] = {0x02, 0xac, 0x15, 0, 0, 1};

struct bport {
	uint16_t port_id;
	unsigned int nrx, ntx;
	struct rte_ring *rx[MAX_Q]; /* we enqueue: the port receives */
	struct rte_ring *tx[MAX_Q]; /* the port transmits: we dequeue */
	char ethdev[64];
};

static struct {
	unsigned int gen;
	unsigned int lcores[MAX_Q]; /* EAL lcores after the main one */
	unsigned int n_lcores;
	FILE *csv;
	const char *csv_path;
	struct acis_pipeline pl;
	int auth; /* --auth: rank r's cookie is AUTH_BASE + r */
} B;

#define AUTH_BASE 0xa5a5a5a50000ull

static void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "switch_bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double
tsc_sec(uint64_t d)
{
	return (double)d / (double)rte_get_tsc_hz();
}

static uint32_t
ip4(const char *s)
{
	uint32_t ip;

	if (acis_parse_ipv4(s, &ip) != 0)
		die("bad address %s", s);
	return ip;
}

static struct rte_ring *
make_ring(const char *what, unsigned int i, unsigned int q, unsigned int n)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "b%s%u_%u_%u", what, B.gen, i, q);
	r = rte_ring_create(name, rte_align32pow2(n + 1), SOCKET_ID_ANY,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		die("ring %s (%u slots): %s", name, n, rte_strerror(rte_errno));
	return r;
}

/* An ethdev over rings we own; rx[] and tx[] are set by the caller. */
static void
make_port(struct bport *p, unsigned int i)
{
	char name[32];
	int id;

	snprintf(name, sizeof(name), "b%u_%u", B.gen, i);
	id = rte_eth_from_rings(name, p->rx, p->nrx, p->tx, p->ntx,
				(unsigned int)rte_socket_id());
	if (id < 0)
		die("rte_eth_from_rings %s: %s", name, rte_strerror(rte_errno));
	p->port_id = (uint16_t)id;
	/* rte_eth_from_rings names the ethdev "net_ring_" + name */
	snprintf(p->ethdev, sizeof(p->ethdev), "net_ring_%s", name);
}

static void
free_port_rings(struct bport *p)
{
	unsigned int q;

	for (q = 0; q < p->nrx; q++)
		rte_ring_free(p->rx[q]);
	for (q = 0; q < p->ntx; q++)
		if (p->tx[q] != p->rx[0] || p->nrx == 0)
			rte_ring_free(p->tx[q]);
}

/* Parse pipeline text and start the switch on it. */
static void
switch_start(const char *text)
{
	char err[ACIS_CONF_ERR_LEN];
	struct acis_conf *conf;

	conf = acis_conf_parse("switch_bench.ini", text, err);
	if (conf == NULL)
		die("pipeline: %s", err);
	if (acis_pipeline_from_conf(conf, rte_get_main_lcore(), &B.pl, err))
		die("pipeline: %s", err);
	acis_conf_free(conf);
	if (acis_switch_init(&B.pl, err, sizeof(err)) != 0)
		die("switch: %s", err);
}

static void
lcores_launch(void)
{
	unsigned int i;

	acis_quit = 0;
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc->lcore_id == rte_get_main_lcore())
			die("the switch may not run on the main lcore");
		if (rte_eal_remote_launch(acis_switch_run_lcore, lc,
					  lc->lcore_id) != 0)
			die("lcore %u is busy", lc->lcore_id);
	}
}

static void
lcores_stop(void)
{
	acis_quit = 1;
	rte_eal_mp_wait_lcore();
	acis_quit = 0;
}

/* "[lcore N]" sections: the first n of our lcores, each rx and worker,
 * each polling every port. */
static int
lcore_sections(char *buf, size_t len, unsigned int n, unsigned int nports)
{
	unsigned int i, p;
	int k = 0;

	for (i = 0; i < n; i++) {
		k += snprintf(buf + k, len - k, "[lcore %u]\nrole = rx worker\n"
			      "rx =", B.lcores[i]);
		for (p = 0; p < nports; p++)
			k += snprintf(buf + k, len - k, " p%u", p);
		k += snprintf(buf + k, len - k, "\n");
	}
	return k;
}

static struct rte_mempool *
make_pool(const char *what, unsigned int n, unsigned int data_room)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "b%s%u", what, B.gen);
	mp = rte_pktmbuf_pool_create(name, n, 256, ACIS_MBUF_PRIV_SIZE,
				     (uint16_t)(RTE_PKTMBUF_HEADROOM +
						data_room),
				     (int)rte_socket_id());
	if (mp == NULL)
		die("mbuf pool of %u x %u B: %s (give the EAL more memory, "
		    "-m)", n, data_room, rte_strerror(rte_errno));
	return mp;
}

static void
csv_open(const char *header)
{
	long pos;

	if (B.csv_path == NULL)
		return;
	B.csv = fopen(B.csv_path, "a");
	if (B.csv == NULL)
		die("%s: %s", B.csv_path, strerror(errno));
	fseek(B.csv, 0, SEEK_END);
	pos = ftell(B.csv);
	if (pos == 0)
		fprintf(B.csv, "%s\n", header);
}

/* ------------------------------------------------------------------ */
/* fwd                                                                  */
/* ------------------------------------------------------------------ */

struct fwd_opts {
	unsigned int frame;
	double seconds;
	unsigned int inflight;
	unsigned int flows; /* station pairs, taking turns frame by frame */
	int io;
	int memif; /* net_memif ports wired to each other, not net_ring */
};

/* Two net_memif ports of this process connected to each other (server
 * and client of one id on one socket): what port 0 sends, port 1
 * receives, and the other way, every frame copied through the shared
 * memory as between two processes. */
static void
make_memif_pair(struct bport *ports)
{
	char name[32], args[160];
	unsigned int i;
	uint16_t id;

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "net_memif_b%u_%u", B.gen, i);
		snprintf(args, sizeof(args), "role=%s,id=0,socket-abstract=yes,"
			 "socket=/acis-bench-%d-%u.sock", i ? "client" : "server",
			 (int)getpid(), B.gen);
		if (rte_vdev_init(name, args) != 0 ||
		    rte_eth_dev_get_port_by_name(name, &id) != 0)
			die("cannot create %s (%s)", name, args);
		ports[i].port_id = id;
		snprintf(ports[i].ethdev, sizeof(ports[i].ethdev), "%s", name);
	}
}

/* Put the frames on the memif wire: A->B frames arrive on port 0, so port
 * 1 sends them, and the reverse. Waits for the pair to connect. */
static void
memif_preload(const struct bport *ports, struct rte_mbuf **m, unsigned int n)
{
	struct rte_eth_link l0, l1;
	unsigned int i, k;

	for (i = 0; i < 500; i++) {
		rte_eth_link_get_nowait(ports[0].port_id, &l0);
		rte_eth_link_get_nowait(ports[1].port_id, &l1);
		if (l0.link_status && l1.link_status)
			break;
		rte_delay_us_sleep(10000);
	}
	if (i == 500)
		die("the memif pair did not connect in 5 s");
	/* A memif receiver hands its peer the buffers to send into when
	 * it polls: poll each side once before anything is sent. */
	for (k = 0; k < 2; k++) {
		struct rte_mbuf *x[32];
		uint16_t got = rte_eth_rx_burst(ports[k].port_id, 0, x, 32);

		rte_pktmbuf_free_bulk(x, got);
	}
	for (k = 0; k < 2; k++) {
		struct rte_mbuf **f = m + (k ? n : 0);
		unsigned int sent = 0;

		for (i = 0; i < 2000 && sent < n; i++) {
			sent += rte_eth_tx_burst(ports[k ^ 1].port_id, 0,
						 f + sent, (uint16_t)(n - sent));
			if (sent < n)
				rte_delay_us_sleep(1000);
		}
		if (sent < n)
			die("the memif wire took %u of %u frames", sent, n);
	}
}

static volatile int io_quit;

/* testpmd's io forwarding: whatever port p receives goes out of p ^ 1. */
static int
io_loop(void *arg)
{
	const struct bport *ports = arg;
	struct rte_mbuf *pkts[32];
	uint16_t n, sent, p;

	while (!io_quit) {
		for (p = 0; p < 2; p++) {
			n = rte_eth_rx_burst(ports[p].port_id, 0, pkts, 32);
			if (n == 0)
				continue;
			sent = rte_eth_tx_burst(ports[p ^ 1].port_id, 0, pkts,
						n);
			if (unlikely(sent < n))
				rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		}
	}
	return 0;
}

static void
io_ports_start(struct bport *ports, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	unsigned int p;

	memset(&conf, 0, sizeof(conf));
	for (p = 0; p < 2; p++) {
		uint16_t id = ports[p].port_id;

		if (rte_eth_dev_configure(id, 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(id, 0, 1024, rte_socket_id(), NULL,
					   mp) != 0 ||
		    rte_eth_tx_queue_setup(id, 0, 1024, rte_socket_id(),
					   NULL) != 0 ||
		    rte_eth_dev_start(id) != 0)
			die("cannot start port %u", p);
	}
}

static uint64_t
fwd_tx_total(const struct bport *ports)
{
	struct rte_eth_stats st;
	uint64_t n = 0;
	unsigned int p;

	for (p = 0; p < 2; p++)
		if (rte_eth_stats_get(ports[p].port_id, &st) == 0)
			n += st.opackets;
	return n;
}

static void
fwd_run(const struct fwd_opts *o)
{
	struct bport ports[2];
	struct rte_mempool *mp;
	struct rte_ring *w[2];
	char text[8192];
	struct rte_mbuf **m;
	unsigned int i, k, n = o->inflight;
	uint64_t t0, t1, c0, c1;
	double mpps, sec;
	int len;

	memset(ports, 0, sizeof(ports));
	memset(w, 0, sizeof(w));
	B.gen++;
	if (o->memif) {
		make_memif_pair(ports);
	} else {
		/* w[1] carries A->B frames into port 0 and out of port 1
		 * back to port 0; w[0] carries B->A frames the other way */
		w[0] = make_ring("w", 0, 0, 4096);
		w[1] = make_ring("w", 1, 0, 4096);
		ports[0].rx[0] = w[1];
		ports[0].tx[0] = w[0];
		ports[1].rx[0] = w[0];
		ports[1].tx[0] = w[1];
		for (i = 0; i < 2; i++) {
			ports[i].nrx = ports[i].ntx = 1;
			make_port(&ports[i], i);
		}
	}
	mp = make_pool("f", 2 * n + 4096, RTE_ALIGN(o->frame, 64));
	m = calloc(2 * n, sizeof(*m));
	if (m == NULL || rte_pktmbuf_alloc_bulk(mp, m, 2 * n) != 0)
		die("no memory for %u frames", 2 * n);
	for (i = 0; i < 2 * n; i++) {
		int ab = i < n; /* A->B, else B->A */
		unsigned int j = i % o->flows;
		uint8_t mac_a[6] = {0x02, 0xa0, 0, 0, (uint8_t)j, 0x0a};
		uint8_t mac_b[6] = {0x02, 0xa0, 0, 0, (uint8_t)j, 0x0b};
		uint8_t *f = (uint8_t *)rte_pktmbuf_append(m[i],
							   (uint16_t)o->frame);

		memset(f, 0, o->frame);
		acis_udp4_headers(f, ab ? mac_b : mac_a, ab ? mac_a : mac_b,
				  ip4(ab ? "10.1.0.10" : "10.1.0.11"),
				  ip4(ab ? "10.1.0.11" : "10.1.0.10"), 1024, 9,
				  (uint16_t)(o->frame - OFF_ACIS));
	}
	if (!o->memif &&
	    (rte_ring_enqueue_bulk(w[1], (void **)m, n, NULL) != n ||
	     rte_ring_enqueue_bulk(w[0], (void **)(m + n), n, NULL) != n))
		die("cannot preload the wire");

	if (o->io) {
		io_ports_start(ports, mp);
		if (o->memif)
			memif_preload(ports, m, n);
		io_quit = 0;
		rte_eal_remote_launch(io_loop, ports, B.lcores[0]);
	} else {
		len = snprintf(text, sizeof(text),
			       "[switch]\nmac = " SW_MAC "\nip = " SW_IP_STR
			       "\nmtu = 1500\nburst = 32\nmbufs = 8191\n"
			       "[l2]\nlearning = on\nflood = on\n");
		for (i = 0; i < o->flows; i++)
			len += snprintf(text + len, sizeof(text) - len,
					"static = 02:a0:00:00:%02x:0a p0\n"
					"static = 02:a0:00:00:%02x:0b p1\n",
					i, i);
		for (i = 0; i < 2; i++)
			len += snprintf(text + len, sizeof(text) - len,
					"[port p%u]\ndev = %s\nrxd = 1024\n"
					"txd = 1024\n", i, ports[i].ethdev);
		lcore_sections(text + len, sizeof(text) - len, 1, 2);
		switch_start(text);
		if (o->memif)
			memif_preload(ports, m, n);
		lcores_launch();
	}
	free(m);
	rte_delay_ms(300); /* warm up */
	c0 = fwd_tx_total(ports);
	t0 = rte_rdtsc();
	rte_delay_us_sleep((unsigned int)(o->seconds * 1e6));
	c1 = fwd_tx_total(ports);
	t1 = rte_rdtsc();
	sec = tsc_sec(t1 - t0);
	mpps = (double)(c1 - c0) / sec / 1e6;

	if (o->io) {
		io_quit = 1;
		rte_eal_mp_wait_lcore();
	} else {
		struct acis_lcore_stats s;

		lcores_stop();
		acis_stats_sum(&s);
		k = 0;
		for (i = 0; i < ACIS_DROP_MAX; i++)
			k += s.drops[i] != 0;
		if (k != 0 || s.flooded != 0)
			die("the switch dropped or flooded frames: the run "
			    "does not measure forwarding");
	}
	printf("%-12s %-5s %6u B  %5u in flight each way  %2u flow%s  %8.3f "
	       "Mpps on 1 lcore (%.2f s)\n", o->io ? "io loop" : "acis-switch",
	       o->memif ? "memif" : "ring", o->frame, n, o->flows,
	       o->flows == 1 ? " " : "s", mpps, sec);
	csv_open("dut,ports,frame_bytes,inflight,flows,lcores,seconds,packets,"
		 "mpps");
	if (B.csv != NULL) {
		fprintf(B.csv, "%s,%s,%u,%u,%u,1,%.3f,%" PRIu64 ",%.4f\n",
			o->io ? "io-loop" : "acis-switch",
			o->memif ? "memif" : "ring", o->frame, n, o->flows, sec,
			c1 - c0, mpps);
		fclose(B.csv);
	}
	if (o->io) {
		for (i = 0; i < 2; i++) {
			rte_eth_dev_stop(ports[i].port_id);
			rte_eth_dev_close(ports[i].port_id);
		}
	} else {
		acis_switch_fini();
	}
	/* the frames are on the wire rings: free them with the rings (a
	 * memif wire is the ports' shared memory, gone with them) */
	for (i = 0; i < 2 && !o->memif; i++) {
		void *x = NULL;

		while (rte_ring_dequeue(w[i], &x) == 0)
			rte_pktmbuf_free(x);
		rte_ring_free(w[i]);
	}
	rte_mempool_free(mp);
}

/* ------------------------------------------------------------------ */
/* agg                                                                  */
/* ------------------------------------------------------------------ */

struct agg_opts {
	unsigned int ranks, payload, chunks, workers, rounds;
	double round_mb;
	int nic_csum; /* frames arrive with the port's "checksums good" */
	int free_on_main; /* results freed by the sampler, not the worker */
	int only;         /* ONLY_*: one of the three, for profiling */
	int floor_answers; /* the floor answers every member, as a switch */
	int auth;          /* ranks join with cookies, carried by every frame */
};

/* --only: the measurements a round runs */
enum { ONLY_ALL, ONLY_SWITCH, ONLY_FLOOR, ONLY_CEILING };

struct agg_run {
	const struct agg_opts *o;
	struct bport ports[MAX_PORTS];
	struct rte_mempool *gp; /* contributions and receipts */
	unsigned int n_coll;    /* collectives per round */
	unsigned int lag;       /* receipts follow this many collectives late */
	uint32_t comm;
	/* per (port, queue): the frames of one round, in ring order */
	struct rte_mbuf **q[MAX_PORTS][MAX_Q];
	unsigned int nq[MAX_PORTS][MAX_Q];
	/* the receipts of the last `lag` collectives, sent once the round's
	 * results are out (as hosts confirm what they received) */
	struct rte_mbuf **tq[MAX_PORTS][MAX_Q];
	unsigned int ntq[MAX_PORTS][MAX_Q];
	uint64_t results_per_round;
	float *ref; /* chunk 0 of collective 0, summed in rank order */
	float *mag; /* and the sum of its terms' magnitudes */
	uint8_t *scratch; /* a chained result's payload, gathered */
	struct rte_mbuf **contrib; /* [(s * C + c) * P + r] */
	struct rte_mbuf **copies;  /* a list's copies on their way in */
	struct rte_mbuf **ccopy;   /* the ceiling's copies of contrib */
	float *acc[MAX_Q];
	/* TX queue q's sent frames, back to the worker that sends on it */
	struct rte_ring *done[MAX_Q];
	double ceil_sec[MAX_Q];
	unsigned int ceil_lo[MAX_Q], ceil_hi[MAX_Q];
	/* the floor: per worker, each chunk's accumulator (its first
	 * contribution's frame) and how many have arrived */
	struct rte_mbuf **fl_acc[MAX_Q];
	uint8_t *fl_cnt[MAX_Q];
	uint32_t fl_base;       /* the seq of the floor round's collective 0 */
	double fl_sec[MAX_Q];
	int fl_checked;
	/* the drain compares collective 0 chunk 0 with the rank-order sum
	 * to within rounding (the floor's answers), not bit for bit */
	int drain_tol;
};

static const uint8_t *
rank_mac(unsigned int r)
{
	static uint8_t mac[MAX_PORTS][6];

	mac[r][0] = 0x02;
	mac[r][1] = 0xa0;
	mac[r][5] = (uint8_t)(0x10 + r);
	return mac[r];
}

static uint32_t
rank_ip(unsigned int r)
{
	return rte_cpu_to_be_32((10u << 24) | (77u << 16) | (10 + r));
}

/* The UDP checksum a host's kernel puts on its datagrams (the testbed's
 * hosts send them: ethtool tx off), which the switch verifies. */
static void
udp_csum(uint8_t *f)
{
	uint8_t *ip = f + ACIS_ETH_HLEN, *udp = ip + ACIS_IPV4_MIN_HLEN;
	uint16_t ulen = (uint16_t)(udp[4] << 8 | udp[5]), c;

	udp[6] = udp[7] = 0;
	c = acis_udp4_csum(ip, udp, ulen);
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
}

static struct rte_mbuf *
acis_frame(struct agg_run *a, unsigned int r, const struct acis_hdr *h,
	   const void *payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(a->gp);
	uint16_t len = (uint16_t)(OFF_PAYLOAD + h->payload_len);
	uint8_t *f;

	if (m == NULL)
		die("contribution pool empty");
	f = (uint8_t *)rte_pktmbuf_append(m, len);
	if (f == NULL)
		die("frame of %u B does not fit an mbuf", len);
	acis_udp4_headers(f, sw_mac, rank_mac(r), rank_ip(r), ip4(SW_IP_STR),
			  (uint16_t)(40000 + r), ACIS_DEFAULT_UDP_PORT,
			  (uint16_t)(ACIS_HDR_LEN + h->payload_len));
	acis_hdr_encode(h, f + OFF_ACIS);
	if (h->payload_len)
		memcpy(f + OFF_PAYLOAD, payload, h->payload_len);
	udp_csum(f);
	return m;
}

static void
base_hdr(struct acis_hdr *h, unsigned int type, unsigned int r)
{
	memset(h, 0, sizeof(*h));
	h->version = ACIS_PROTO_VERSION;
	h->type = (uint8_t)type;
	h->hdr_len = ACIS_HDR_LEN;
	h->job = JOB;
	h->rank = r;
	h->root = ACIS_RANK_NONE;
	h->auth = B.auth ? AUTH_BASE + r : 0;
}

/* The header of rank r's messages in allreduce seq (float32 sum, C
 * chunks of L bytes). */
static void
allreduce_hdr(const struct agg_run *a, struct acis_hdr *h, unsigned int type,
	      unsigned int r, uint32_t seq)
{
	base_hdr(h, type, r);
	h->opcode = ACIS_OPCODE(ACIS_C_ALLREDUCE, 0);
	h->dtype = ACIS_FLOAT32;
	h->op = ACIS_OP_SUM;
	h->comm = a->comm;
	h->seq = seq;
	h->msg_size = (uint64_t)a->o->chunks * a->o->payload;
	h->chunk_size = (uint16_t)a->o->payload;
}

/* Frames still owed: every TX ring's count. */
static uint64_t
tx_count(const struct agg_run *a)
{
	uint64_t n = 0;
	unsigned int p, q;

	for (p = 0; p < a->o->ranks; p++)
		for (q = 0; q < a->ports[p].ntx; q++)
			n += rte_ring_count(a->ports[p].tx[q]);
	return n;
}

/* Join the P ranks (the job's world communicator). */
static void
agg_join(struct agg_run *a)
{
	unsigned int r, p, q, n = 0;
	uint64_t t0 = rte_rdtsc();
	struct acis_hdr h;
	void *x;

	for (r = 0; r < a->o->ranks; r++) {
		struct rte_mbuf *m;

		base_hdr(&h, ACIS_T_CTRL, r);
		h.opcode = ACIS_CTRL_JOIN;
		h.root = a->o->ranks;
		m = acis_frame(a, r, &h, NULL);
		if (rte_ring_enqueue(a->ports[r].rx[0], m) != 0)
			die("join: ring full");
	}
	lcores_launch();
	while (tx_count(a) < a->o->ranks) {
		if (tsc_sec(rte_rdtsc() - t0) > 5)
			die("the ranks could not join (%" PRIu64 " answers)",
			    tx_count(a));
		rte_delay_us_sleep(100);
	}
	lcores_stop();
	for (p = 0; p < a->o->ranks; p++)
		for (q = 0; q < a->ports[p].ntx; q++)
			while (rte_ring_dequeue(a->ports[p].tx[q], &x) == 0) {
				const uint8_t *f =
					rte_pktmbuf_mtod((struct rte_mbuf *)x,
							 const uint8_t *);

				acis_hdr_decode(f + OFF_ACIS, &h);
				if (h.type != ACIS_T_CTRL_ACK || h.status != 0)
					die("join refused (status %u)",
					    h.status);
				a->comm = h.comm;
				n++;
				rte_pktmbuf_free(x);
			}
	if (n != a->o->ranks)
		die("join: %u answers for %u ranks", n, a->o->ranks);
}

/*
 * The frames of one round, in the order each (port, queue) ring gets
 * them. Rank r's frames of collective s arrive on port (r + s) % P, so
 * the ranks' arrival order turns with every collective and rank-order
 * folding has contributions to hold; they use RX queue r % workers, as a
 * NIC spreading by source would. A rank's receipts for collective s
 * follow its contributions `lag` collectives later, when the switch has
 * long answered s, and once more after the round.
 */
static void
agg_build(struct agg_run *a)
{
	const struct agg_opts *o = a->o;
	unsigned int P = o->ranks, C = o->chunks, L = o->payload;
	unsigned int nw = o->workers, s, c, r, p, q, i;
	size_t per_q;
	float *data;
	uint32_t *keys;
	struct acis_hdr h;
	struct rte_mbuf *m;

	data = malloc((size_t)P * C * L);
	a->contrib = malloc((size_t)a->n_coll * C * P * sizeof(*a->contrib));
	if (a->contrib == NULL)
		die("out of memory");
	keys = malloc(C * sizeof(*keys));
	a->ref = malloc(L);
	a->mag = malloc(L);
	a->scratch = malloc(L);
	if (data == NULL || keys == NULL || a->ref == NULL ||
	    a->mag == NULL || a->scratch == NULL)
		die("out of memory");
	/* small values: millions of sums stay finite and normal */
	srand(7);
	for (i = 0; i < (size_t)P * C * L / 4; i++)
		data[i] = (float)(rand() % 2000 - 1000) * 1e-4f;
	for (c = 0; c < C; c++)
		keys[c] = rte_cpu_to_le_32(c);
	for (i = 0; i < L / 4; i++) {
		float v = data[i], g = fabsf(data[i]);

		for (r = 1; r < P; r++) {
			v += data[(size_t)r * C * L / 4 + i];
			g += fabsf(data[(size_t)r * C * L / 4 + i]);
		}
		a->ref[i] = v;
		a->mag[i] = g;
	}
	per_q = ((size_t)a->n_coll * (C + 1) * P + nw - 1) / nw + P;
	for (p = 0; p < P; p++)
		for (q = 0; q < nw; q++) {
			a->q[p][q] = malloc(per_q * sizeof(struct rte_mbuf *));
			a->tq[p][q] = malloc(((size_t)a->n_coll * P + 1) *
					     sizeof(struct rte_mbuf *));
			if (a->q[p][q] == NULL || a->tq[p][q] == NULL)
				die("out of memory");
			a->nq[p][q] = 0;
			a->ntq[p][q] = 0;
		}
	a->copies = malloc(per_q * sizeof(*a->copies));
	a->ccopy = malloc((size_t)a->n_coll * C * P * sizeof(*a->ccopy));
	if (a->copies == NULL || a->ccopy == NULL)
		die("out of memory");
	for (s = 0; s < a->n_coll + a->lag; s++) {
		for (r = 0; r < P; r++) {
			unsigned int sd;

			q = r % nw;
			if (s < a->n_coll) {
				p = (r + s) % P;
				allreduce_hdr(a, &h, ACIS_T_DATA, r, s);
				h.payload_len = (uint16_t)L;
				h.contributors = 1;
				for (c = 0; c < C; c++) {
					h.chunk = c;
					h.flags = c == C - 1 ? ACIS_F_LAST : 0;
					m = acis_frame(a, r, &h,
						       (const uint8_t *)data +
						       ((size_t)r * C + c) * L);
					a->q[p][q][a->nq[p][q]++] = m;
					a->contrib[((size_t)s * C + c) * P +
						   r] = m;
				}
			}
			if (s < a->lag || s - a->lag >= a->n_coll)
				continue;
			sd = s - a->lag; /* receipts of an older collective */
			p = (r + sd) % P;
			allreduce_hdr(a, &h, ACIS_T_ACK, r, sd);
			h.chunk = C;
			h.payload_len = (uint16_t)(C * 4);
			if (s < a->n_coll)
				a->q[p][q][a->nq[p][q]++] =
					acis_frame(a, r, &h, keys);
			/* and once more after the round: a receipt that met
			 * its slot unfinished (lcores out of step) counts
			 * then, as a host confirms again */
			a->tq[p][q][a->ntq[p][q]++] = acis_frame(a, r, &h,
								 keys);
		}
	}
	free(data);
	free(keys);
	a->results_per_round = (uint64_t)a->n_coll * C * P;
}

/* A fresh copy of template frame m, as a NIC fills a new buffer: the
 * switch owns what it receives (it keeps a contribution's buffer as a
 * slot's accumulator, and writes into it) and frees it. */
static struct rte_mbuf *
fresh_copy(struct agg_run *a, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, a->gp, 0, UINT32_MAX);

	if (c == NULL)
		die("contribution pool empty");
	if (a->o->nic_csum)
		c->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			       RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	return c;
}

/* Number every frame of a list with its collective's sequence number
 * on the communicator (its UDP checksum kept right), and put fresh copies
 * of the frames on the RX rings. The lists stay the round's templates.
 * Untimed. */
static void
agg_load(struct agg_run *a, unsigned int round, int tail)
{
	unsigned int p, q, i;
	uint32_t base = round * a->n_coll;

	for (p = 0; p < a->o->ranks; p++)
		for (q = 0; q < a->o->workers; q++) {
			struct rte_mbuf **l = tail ? a->tq[p][q] : a->q[p][q];
			unsigned int n = tail ? a->ntq[p][q] : a->nq[p][q];

			for (i = 0; i < n; i++) {
				uint8_t *f = rte_pktmbuf_mtod(l[i], uint8_t *);
				uint32_t seq;

				/* seq: ACiS header bytes 24..27, big endian */
				memcpy(&seq, f + OFF_ACIS + 24, 4);
				seq = rte_cpu_to_be_32(base + (rte_be_to_cpu_32(
					seq) % a->n_coll));
				memcpy(f + OFF_ACIS + 24, &seq, 4);
				udp_csum(f);
				a->copies[i] = fresh_copy(a, l[i]);
			}
			if (rte_ring_enqueue_bulk(a->ports[p].rx[q],
						  (void **)a->copies, n,
						  NULL) != n)
				die("RX ring too small");
		}
}

/* The last receipts of a round, untimed: every slot must then be free. */
static void
agg_confirm(struct agg_run *a, unsigned int round)
{
	struct acis_coll_stats cs;
	struct acis_agg_stats as;
	uint64_t t0 = rte_rdtsc();

	agg_load(a, round, 1);
	lcores_launch();
	do {
		rte_delay_us_sleep(200);
		acis_coll_stats_sum(&cs, &as);
	} while (as.in_use != 0 && tsc_sec(rte_rdtsc() - t0) < 1);
	lcores_stop();
	if (as.in_use != 0)
		die("round %u: %u slots still open after every receipt",
		    round, as.in_use);
}

/*
 * Frames a TX queue has sent: to the worker that sends on queue q, which
 * frees them on its next transmit there (tx_complete), as a NIC's driver
 * frees what its NIC has sent; or freed here (--free-on-main).
 */
static void
tx_done(struct agg_run *a, unsigned int q, struct rte_mbuf **m, unsigned int k)
{
	unsigned int put = 0;

	if (!a->o->free_on_main)
		put = rte_ring_sp_enqueue_burst(a->done[q], (void **)m, k, NULL);
	if (put < k)
		rte_pktmbuf_free_bulk(m + put, k - put);
}

/* The TX callback of every (port, queue q): free what queue q has sent,
 * on the lcore that sends on it, before sending more. */
static uint16_t
tx_complete(uint16_t port, uint16_t queue, struct rte_mbuf **pkts,
	    uint16_t n, void *arg)
{
	void *done[64];
	unsigned int k = rte_ring_sc_dequeue_burst(arg, done, RTE_DIM(done),
						   NULL);

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(pkts);
	if (k != 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)done, k);
	return n;
}

/* What the workers left in the completion rings at a round's end. */
static void
done_flush(struct agg_run *a)
{
	void *x[64];
	unsigned int q, k;

	for (q = 0; q < a->o->workers; q++)
		while ((k = rte_ring_dequeue_burst(a->done[q], x, RTE_DIM(x),
						   NULL)) != 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)x, k);
}

/*
 * Where a frame's bytes start, as a NIC's transmit side finds them: at the
 * address its driver wrote into the descriptor, never in the rte_mbuf,
 * which the NIC does not read. The switch builds every result in a
 * direct mbuf of its pool, its headers at the default headroom (frame_to:
 * alloc and append), so that address follows from the mbuf's address and
 * its pool's layout (rte_mbuf_buf_addr reads neither the mbuf nor its
 * pool pointer); the frame agg_drain checks each round is found through
 * the rte_mbuf too, and the two must agree. (Reading each frame's
 * rte_mbuf here would share its first line with this lcore, and the
 * worker's free of it would wait to take the line back, a wait no NIC
 * causes: up to 15 % of the switch's rate, at 256 B to 2 KiB.)
 */
static const uint8_t *
nic_frame(struct rte_mbuf *m)
{
	return (const uint8_t *)rte_mbuf_buf_addr(m, g_sw.pool) +
	       RTE_PKTMBUF_HEADROOM;
}

/* A sum of collective 0 chunk 0 in arrival order against the rank-order
 * sum: equal to within 1e-5 of the sum of the magnitudes. */
static int
sum_near(const struct agg_run *a, const float *x)
{
	unsigned int e;

	for (e = 0; e < a->o->payload / 4; e++)
		if (fabsf(x[e] - a->ref[e]) > 1e-5f * a->mag[e])
			return 0;
	return 1;
}

/* A result's payload against the rank-order sum: bit for bit, or with
 * drain_tol to within rounding (sum_near). */
static int
sum_ok(const struct agg_run *a, const void *bytes)
{
	if (a->drain_tol)
		return sum_near(a, bytes);
	return memcmp(bytes, a->ref, a->o->payload) == 0;
}

/* Take what the switch sent so far, as a NIC's transmit side would (it
 * reads each frame's bytes, nic_frame), and give it back (tx_done); check
 * that every frame is a result and that the one of collective 0 chunk 0
 * is the rank-order sum. Returns the frames taken. */
static uint64_t
agg_drain(struct agg_run *a, unsigned int round, int *checked)
{
	struct rte_mbuf *m[64];
	unsigned int p, q, i, k;
	uint64_t n = 0;

	for (p = 0; p < a->o->ranks; p++)
		for (q = 0; q < a->ports[p].ntx; q++)
			while ((k = rte_ring_dequeue_burst(a->ports[p].tx[q],
							   (void **)m, 64,
							   NULL)) != 0) {
				for (i = 0; i < k; i++) {
					const uint8_t *f = nic_frame(m[i]);
					struct acis_hdr h;

					acis_hdr_decode(f + OFF_ACIS, &h);
					if (h.type != ACIS_T_RESULT)
						die("round %u: the switch sent "
						    "a frame of type %u "
						    "(status %u)", round,
						    h.type, h.status);
					if (*checked || h.chunk != 0 ||
					    h.seq != round * a->n_coll)
						continue;
					if (f != rte_pktmbuf_mtod(m[i],
							const uint8_t *))
						die("round %u: a result's bytes "
						    "are not where its mbuf's "
						    "layout puts them", round);
					/* results to several members share one
					 * payload segment (chained) */
					if (!sum_ok(a, rte_pktmbuf_read(m[i],
							OFF_PAYLOAD,
							a->o->payload,
							a->scratch)))
						die("round %u: the %s's sum "
						    "differs from the "
						    "rank-order sum", round,
						    a->drain_tol ? "floor" :
						    "switch");
					*checked = 1;
				}
				tx_done(a, q, m, k);
				n += k;
			}
	return n;
}

/* acc[i] += x[i], as the compiler vectorises it for the widest vector
 * unit the CPU has (the switch's reduce kernels choose theirs the same
 * way at start-up; DPDK's build flags alone would hold this loop to SSE). */
__attribute__((target_clones("avx512f", "avx2", "default"), noinline))
static void
stream_sum(float *restrict acc, const float *restrict x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		acc[i] += x[i];
}

/* The ceiling: a plain streaming sum (acc = r0; acc += r1; ...) over the
 * same mbufs' payload bytes, by collective, chunk and rank, for this
 * lcore's share of the collectives. */
static int
ceiling_lcore(void *arg)
{
	struct agg_run *a = arg;
	unsigned int P = a->o->ranks, C = a->o->chunks;
	size_t n = a->o->payload / 4;
	unsigned int k, s, c, r;
	uint64_t t0;
	float *acc;

	for (k = 0; k < a->o->workers; k++)
		if (B.lcores[k] == rte_lcore_id())
			break;
	acc = a->acc[k];
	t0 = rte_rdtsc();
	for (s = a->ceil_lo[k]; s < a->ceil_hi[k]; s++)
		for (c = 0; c < C; c++) {
			struct rte_mbuf **m = &a->ccopy[((size_t)s * C + c) *
							P];
			const float *x = (const float *)(rte_pktmbuf_mtod(
				m[0], const uint8_t *) + OFF_PAYLOAD);

			memcpy(acc, x, n * 4);
			for (r = 1; r < P; r++) {
				x = (const float *)(rte_pktmbuf_mtod(
					m[r], const uint8_t *) + OFF_PAYLOAD);
				stream_sum(acc, x, n);
			}
			if (s == 0 && c == 0 &&
			    memcmp(acc, a->ref, n * 4) != 0)
				die("the ceiling's sum differs from the "
				    "reference");
		}
	a->ceil_sec[k] = tsc_sec(rte_rdtsc() - t0);
	return 0;
}

/* Contribution Gb/s per lcore of the ceiling, all lcores at once. It
 * sums fresh copies of the round's contributions, made as the switch's
 * are (agg_load), so both read bytes just written the same way. */
static double
agg_ceiling(struct agg_run *a)
{
	unsigned int k, nw = a->o->workers;
	size_t j, n = (size_t)a->n_coll * a->o->chunks * a->o->ranks;
	double worst = 0;

	for (j = 0; j < n; j++)
		a->ccopy[j] = fresh_copy(a, a->contrib[j]);
	for (k = 0; k < nw; k++) {
		a->ceil_lo[k] = a->n_coll * k / nw;
		a->ceil_hi[k] = a->n_coll * (k + 1) / nw;
		rte_eal_remote_launch(ceiling_lcore, a, B.lcores[k]);
	}
	rte_eal_mp_wait_lcore();
	rte_pktmbuf_free_bulk(a->ccopy, (unsigned int)n);
	for (k = 0; k < nw; k++)
		if (a->ceil_sec[k] > worst)
			worst = a->ceil_sec[k];
	return (double)a->n_coll * a->o->chunks * a->o->ranks *
	       a->o->payload * 8 / worst / 1e9 / nw;
}

/* Big-endian fields of a frame. */
/* Ahead of the floor's frame i: frame i + 2's bytes, up to 4 KiB, every
 * line (as the switch's parse stage reads a datagram to it ahead), and
 * frame i + 4's mbuf. */
static inline void
floor_prefetch(struct rte_mbuf **m, unsigned int i, unsigned int n)
{
	if (i + 4 < n)
		rte_prefetch0(m[i + 4]);
	if (i + 2 < n) {
		const uint8_t *f = rte_pktmbuf_mtod(m[i + 2], const uint8_t *);
		uint32_t k, len = RTE_MIN(m[i + 2]->data_len, 4096u);

		for (k = 0; k < len; k += RTE_CACHE_LINE_SIZE)
			rte_prefetch0(f + k);
		rte_prefetch0(f + len - 1);
	}
}

/* The floor's sum of collective 0 chunk 0 against the rank-order sum. */
static void
floor_check(struct agg_run *a, const struct rte_mbuf *acc)
{
	if (!sum_near(a, rte_pktmbuf_mtod_offset(acc, const float *,
						 OFF_PAYLOAD)))
		die("floor: the sum differs from the rank-order sum");
	a->fl_checked = 1;
}

/*
 * The floor: what receiving and folding alone cost, on the switch's own
 * ports, frames and reduce kernel. A loop on each worker lcore takes the
 * round's frames off the RX queues the switch's worker would poll
 * (rte_eth_rx_burst, a burst from each port in turn, as the switch does)
 * and per frame does only what any switch must: check that it is a UDP
 * datagram to the switch's address and port, verify its IPv4 and UDP
 * checksums (or take the port's verdict, with --nic-checksums), read the
 * ACiS header's type, seq and chunk, and fold a DATA chunk into its
 * chunk's accumulator: the first contribution's own frame, kept, as the
 * switch keeps it; the others freed a burst at a time. A chunk's
 * accumulator is freed once its contributions are in. No membership, no
 * rank order (it folds in arrival order), no answers to build or send,
 * receipts freed unread, no loss recovery: everything the switch does
 * beyond this is its own cost, and the floor bounds what any switch could
 * reach on these frames. With several workers, each folds the ranks of
 * its queues into accumulators of its own (the switch hands the
 * contributions to one shard instead). The chunk of collective 0 chunk 0
 * is checked against the rank-order sum (to 1e-5 of the sum of the
 * magnitudes: arrival order rounds differently).
 */
/* What one worker of the floor keeps. */
struct floor_ctx {
	struct agg_run *a;
	struct rte_mbuf **acc; /* [s * C + c]: the chunk's first frame */
	uint8_t *cnt;          /* [s * C + c]: its contributions so far */
	unsigned int mine;     /* contributions a chunk gets on this worker */
	int nic;
	uint32_t sw_ip;
	struct rte_mbuf *out[64]; /* to free, a burst at a time */
	unsigned int nout;
	/* --floor-answers: each member's result headers, made once, and its
	 * results waiting for the end of the burst */
	unsigned int q;
	uint8_t tmpl[MAX_PORTS][OFF_PAYLOAD];
	struct rte_mbuf *ans[MAX_PORTS][32];
	unsigned int nans[MAX_PORTS];
};

/* --floor-answers: member r's RESULT headers from the switch, as the
 * switch writes them (allreduce, float32 sum, every member answered), but
 * for seq and chunk, which floor_answer writes. */
static void
floor_templates(struct floor_ctx *fc)
{
	const struct agg_run *a = fc->a;
	unsigned int r;
	struct acis_hdr h;

	for (r = 0; r < a->o->ranks; r++) {
		allreduce_hdr(a, &h, ACIS_T_RESULT, r, 0);
		h.flags = ACIS_F_MULTICAST;
		h.payload_len = (uint16_t)a->o->payload;
		h.contributors = (uint16_t)a->o->ranks;
		acis_udp4_headers(fc->tmpl[r], rank_mac(r), sw_mac,
				  ip4(SW_IP_STR), rank_ip(r),
				  ACIS_DEFAULT_UDP_PORT, (uint16_t)(40000 + r),
				  (uint16_t)(ACIS_HDR_LEN + h.payload_len));
		acis_hdr_encode(&h, fc->tmpl[r] + OFF_ACIS);
	}
}

/* Member r's results so far, to its port (where it joined) */
static void
floor_send(struct floor_ctx *fc, unsigned int r)
{
	uint16_t n = rte_eth_tx_burst(fc->a->ports[r].port_id,
				      (uint16_t)fc->q, fc->ans[r],
				      (uint16_t)fc->nans[r]);

	if (n != fc->nans[r])
		die("floor: port %u's TX ring is full", r);
	fc->nans[r] = 0;
}

/*
 * --floor-answers: a finished chunk answers every member, as the switch
 * does: a frame of headers each, from the switch's pool, with the
 * accumulator's frame, cut to its payload, chained behind them (the
 * members' frames hold its references; the floor gives up its own).
 */
static void
floor_answer(struct floor_ctx *fc, struct rte_mbuf *acc, uint32_t seq,
	     uint32_t c)
{
	const unsigned int P = fc->a->o->ranks, L = fc->a->o->payload;
	const uint32_t be_seq = rte_cpu_to_be_32(seq);
	const uint32_t be_c = rte_cpu_to_be_32(c);
	unsigned int r;

	rte_pktmbuf_adj(acc, OFF_PAYLOAD);
	rte_mbuf_refcnt_update(acc, (int16_t)(P - 1));
	for (r = 0; r < P; r++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(g_sw.pool);
		uint8_t *f;

		if (m == NULL)
			die("floor: the switch's pool is empty");
		f = (uint8_t *)rte_pktmbuf_append(m, OFF_PAYLOAD);
		memcpy(f, fc->tmpl[r], OFF_PAYLOAD);
		memcpy(f + OFF_ACIS + ACIS_HOFF_SEQ, &be_seq, 4);
		memcpy(f + OFF_ACIS + ACIS_HOFF_CHUNK, &be_c, 4);
		m->next = acc;
		m->nb_segs = 2;
		m->pkt_len += L;
		fc->ans[r][fc->nans[r]++] = m;
		if (fc->nans[r] == RTE_DIM(fc->ans[r]))
			floor_send(fc, r);
	}
}

/* The floor's work on one frame: check, verify, fold (floor_lcore). */
static inline void
floor_frame(struct floor_ctx *fc, struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + ACIS_ETH_HLEN;
	const uint8_t *udp = ip + ACIS_IPV4_MIN_HLEN;
	const uint8_t *h = udp + ACIS_UDP_HLEN;
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	const uint64_t mask = RTE_MBUF_F_RX_IP_CKSUM_MASK |
			      RTE_MBUF_F_RX_L4_CKSUM_MASK;
	const unsigned int C = fc->a->o->chunks, L = fc->a->o->payload;
	uint32_t ulen = acis_rd16(udp + 4), s, c, j;

	if (unlikely(acis_rd16(f + 12) != 0x0800 || ip[0] != 0x45 ||
		     ip[9] != ACIS_IPPROTO_UDP ||
		     memcmp(ip + 16, &fc->sw_ip, 4) != 0 ||
		     acis_rd16(udp + 2) != ACIS_DEFAULT_UDP_PORT ||
		     ulen < ACIS_UDP_HLEN + ACIS_HDR_LEN ||
		     ACIS_ETH_HLEN + ACIS_IPV4_MIN_HLEN + ulen > m->data_len))
		die("floor: not a datagram to the switch");
	if (fc->nic ? (m->ol_flags & mask) != good :
		      acis_csum(ip, ACIS_IPV4_MIN_HLEN) != 0 ||
		      acis_csum_partial(udp, ulen,
					acis_csum_partial(ip + 12, 8, 0) +
					ACIS_IPPROTO_UDP + ulen) != 0xffff)
		die("floor: a bad checksum");
	if (h[ACIS_HOFF_TYPE] != ACIS_T_DATA) { /* a receipt */
		fc->out[fc->nout++] = m;
		return;
	}
	s = acis_rd32(h + ACIS_HOFF_SEQ) - fc->a->fl_base;
	c = acis_rd32(h + ACIS_HOFF_CHUNK);
	if (unlikely(s >= fc->a->n_coll || c >= C ||
		     acis_rd16(h + ACIS_HOFF_PAYLOAD_LEN) != L))
		die("floor: collective %u chunk %u of %u B", s, c,
		    acis_rd16(h + ACIS_HOFF_PAYLOAD_LEN));
	j = s * C + c;
	if (fc->cnt[j]++ == 0) {
		fc->acc[j] = m;
	} else {
		acis_reduce_fold(ACIS_FLOAT32, ACIS_OP_SUM,
				 rte_pktmbuf_mtod_offset(fc->acc[j], void *,
							 OFF_PAYLOAD),
				 h + ACIS_HDR_LEN, L / 4);
		fc->out[fc->nout++] = m;
	}
	if (fc->cnt[j] == fc->mine) {
		if (j == 0 && fc->a->o->workers == 1)
			floor_check(fc->a, fc->acc[0]);
		if (fc->a->o->floor_answers)
			floor_answer(fc, fc->acc[j], s + fc->a->fl_base, c);
		else
			fc->out[fc->nout++] = fc->acc[j];
	}
}

static int
floor_lcore(void *arg)
{
	struct agg_run *a = arg;
	const unsigned int P = a->o->ranks, nw = a->o->workers;
	struct floor_ctx fc = {.a = a, .nic = a->o->nic_csum,
			       .sw_ip = ip4(SW_IP_STR)};
	unsigned int k, p, q, i, n, want = 0, take = 0;
	struct rte_mbuf *m[32];
	uint64_t t0;

	for (k = 0; k < nw; k++)
		if (B.lcores[k] == rte_lcore_id())
			break;
	q = k;
	fc.q = q;
	if (a->o->floor_answers)
		floor_templates(&fc);
	fc.acc = a->fl_acc[k];
	fc.cnt = a->fl_cnt[k];
	for (p = 0; p < P; p++) {
		want += a->nq[p][q];
		fc.mine += p % nw == q; /* ranks on this worker's queues */
	}
	t0 = rte_rdtsc();
	while (take < want)
		for (p = 0; p < P; p++) {
			n = rte_eth_rx_burst(a->ports[p].port_id, (uint16_t)q,
					     m, RTE_DIM(m));
			take += n;
			for (i = 0; i < n; i++) {
				floor_prefetch(m, i, n);
				floor_frame(&fc, m[i]);
				if (fc.nout > RTE_DIM(fc.out) - 2) {
					acis_frame_free_bulk(fc.out, fc.nout);
					fc.nout = 0;
				}
			}
			acis_frame_free_bulk(fc.out, fc.nout);
			fc.nout = 0;
			for (i = 0; i < P; i++)
				if (fc.nans[i] != 0)
					floor_send(&fc, i);
		}
	a->fl_sec[k] = tsc_sec(rte_rdtsc() - t0);
	for (i = 0; i < a->n_coll * a->o->chunks; i++)
		if (fc.cnt[i] != fc.mine)
			die("floor: chunk %u got %u contributions, not %u", i,
			    fc.cnt[i], fc.mine);
	return 0;
}

/* --floor-answers (one worker): the floor's round timed as the switch's
 * is (agg_round), from the launch to the drain that takes its last result,
 * the results taken off the TX rings and handed back the same way. */
static double
floor_answered(struct agg_run *a, unsigned int round)
{
	uint64_t total = a->results_per_round, t0, n = 0;
	int checked = 0;
	double sec;

	a->drain_tol = 1;
	t0 = rte_rdtsc();
	rte_eal_remote_launch(floor_lcore, a, B.lcores[0]);
	while (n < total) {
		if (tsc_sec(rte_rdtsc() - t0) > 60)
			die("floor: %" PRIu64 " of %" PRIu64 " results after 60 s",
			    n, total);
		rte_delay_us_sleep(100);
		n += agg_drain(a, round, &checked);
	}
	sec = tsc_sec(rte_rdtsc() - t0);
	rte_eal_mp_wait_lcore();
	done_flush(a);
	a->drain_tol = 0;
	if (n != total || !checked || !a->fl_checked)
		die("floor: %" PRIu64 " results (want %" PRIu64 ")%s", n, total,
		    checked ? "" : ", collective 0 chunk 0 not seen");
	return (double)a->n_coll * a->o->chunks * a->o->ranks *
	       a->o->payload * 8 / sec / 1e9;
}

/* Contribution Gb/s per lcore of the floor, all worker lcores at once, on
 * fresh copies of a round put on the RX rings as for the switch (agg_load),
 * numbered as round `round`, which the switch never sees. */
static double
agg_floor(struct agg_run *a, unsigned int round)
{
	unsigned int k, nw = a->o->workers;
	double worst = 0;

	a->fl_base = round * a->n_coll;
	a->fl_checked = 0;
	for (k = 0; k < nw; k++)
		memset(a->fl_cnt[k], 0, (size_t)a->n_coll * a->o->chunks);
	agg_load(a, round, 0);
	if (a->o->floor_answers)
		return floor_answered(a, round);
	for (k = 0; k < nw; k++)
		rte_eal_remote_launch(floor_lcore, a, B.lcores[k]);
	rte_eal_mp_wait_lcore();
	if (nw == 1 && !a->fl_checked)
		die("floor: collective 0 chunk 0 not seen");
	for (k = 0; k < nw; k++)
		if (a->fl_sec[k] > worst)
			worst = a->fl_sec[k];
	return (double)a->n_coll * a->o->chunks * a->o->ranks *
	       a->o->payload * 8 / worst / 1e9 / nw;
}

/* What the switch did that a round's count of results can tell of: its
 * answers sent again and why, slots in use and refused, frames dropped.
 * For a round that drew too few or too many results. */
static const char *
switch_state(void)
{
	static char buf[512];
	struct acis_coll_stats cs;
	struct acis_agg_stats as;
	struct acis_lcore_stats ls;
	uint64_t dropped = 0;
	unsigned int k;

	acis_coll_stats_sum(&cs, &as);
	acis_stats_sum(&ls);
	for (k = 0; k < ACIS_DROP_MAX; k++)
		dropped += ls.drops[k];
	snprintf(buf, sizeof(buf), "the switch so far: %" PRIu64
		 " retransmissions answered, %" PRIu64 " answers resent on "
		 "request, %" PRIu64 " by its timer, %" PRIu64 " late copies, %u "
		 "slots in use, %" PRIu64 " refused (busy), %" PRIu64 " frames "
		 "dropped, %" PRIu64 " without an mbuf", cs.retrans_answered,
		 cs.resends, cs.answers_resent, cs.late_copies, as.in_use,
		 as.busy, dropped, cs.nombuf);
	return buf;
}

/* One round through the switch: Gb/s of contributions per worker lcore,
 * from the launch of the worker lcores to the drain that took the round's
 * last result. The sampler takes the results off the TX rings every
 * 100 us, as a NIC's transmit side would. The whole round is timed: a
 * window inside it would be timed by a sampler that, beside a second
 * worker on its core, is preempted between reading the clock and reading
 * a count, and reads high. Start-up (microseconds) and the last drain's
 * lag (at most a sleep and a preemption) count against the switch. */
static double
agg_round(struct agg_run *a, unsigned int round)
{
	uint64_t total = a->results_per_round, t0, n = 0;
	int checked = 0;
	double sec;

	agg_load(a, round, 0);
	/* the clock starts before the launch: with a second worker on its
	 * core, the sampler may not run again until that worker yields */
	t0 = rte_rdtsc();
	lcores_launch();
	for (;;) {
		n += agg_drain(a, round, &checked);
		if (n >= total)
			break;
		if (tsc_sec(rte_rdtsc() - t0) > 60)
			die("round %u: %" PRIu64 " of %" PRIu64 " results after "
			    "60 s; %s", round, n, total, switch_state());
		rte_delay_us_sleep(100);
	}
	sec = tsc_sec(rte_rdtsc() - t0);
	lcores_stop();
	done_flush(a);
	if (n != total || !checked)
		die("round %u: %" PRIu64 " results (want %" PRIu64 ")%s; %s",
		    round, n, total, checked ? "" :
		    ", collective 0 chunk 0 not seen", switch_state());
	return (double)a->o->ranks * a->n_coll * a->o->chunks *
	       a->o->payload * 8 / sec / 1e9 / a->o->workers;
}

static int
cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static void
agg_run(const struct agg_opts *o)
{
	struct agg_run a;
	unsigned int P = o->ranks, C = o->chunks, L = o->payload;
	unsigned int nw = o->workers, p, q, k, mtu, slots, data_room, mbufs;
	uint64_t frames;
	char *text;
	size_t len = 0;
	double *sw, *ce, *fl, sw_best, ce_best, sw_med, ce_med, fl_best, fl_med;
	struct acis_coll_stats cs;
	struct acis_agg_stats as;
	struct acis_lcore_stats ls;
	uint64_t tail;

	memset(&a, 0, sizeof(a));
	a.o = o;
	a.n_coll = (unsigned int)(o->round_mb * 1048576.0 /
				  ((double)P * C * L));
	if (a.n_coll == 0)
		a.n_coll = 1;
	a.lag = (256 + C) / (C + 1);
	if (a.lag > a.n_coll)
		a.lag = a.n_coll;
	/* contributions, in-stream receipts and the receipts sent again */
	frames = (uint64_t)a.n_coll * (C + 2) * P;
	mtu = L + 20 + 8 + ACIS_HDR_LEN;
	if (mtu < 576)
		mtu = 576;
	if (mtu > 9600)
		die("--payload %u: the largest is %u", L,
		    9600 - 20 - 8 - ACIS_HDR_LEN);
	/* Nothing paces a preloaded round: with several workers, one may
	 * open every slot of the round before the others bring the rest of
	 * their contributions, so there is a slot for every chunk of the
	 * round. One worker takes the ports' rings in turn, a burst from
	 * each, and the receipts that free a collective's slots come lag
	 * collectives behind it: it holds at most about lag + 1 collectives'
	 * slots open, and gets room for twice as many, at least the switch's
	 * default of 1024. */
	if (nw == 1)
		slots = RTE_MAX(1024u, rte_align32pow2(2 * (a.lag + 1) * C + 64));
	else
		slots = rte_align32pow2(a.n_coll * C + 64);
	if (slots > 4194304)
		die("a round of %u collectives of %u chunks needs too many "
		    "slots: use a smaller --round-mb", a.n_coll, C);
	/* With several workers the sampler, which takes the results off
	 * the TX rings, shares a core with a busy worker and may get to
	 * them only every few milliseconds: room in the switch's pool and
	 * the TX rings for a whole round's results, or answers go unsent
	 * for want of an mbuf, the switch's timer sends them again, and the
	 * round draws more results than it sent contributions for. */
	mbufs = SW_MBUFS;
	if (nw > 1 && (uint64_t)a.n_coll * C * P + 8192 > mbufs)
		mbufs = a.n_coll * C * P + 8192;
	B.gen++;
	for (p = 0; p < P; p++) {
		struct bport *bp = &a.ports[p];

		bp->nrx = bp->ntx = nw;
		for (q = 0; q < nw; q++) {
			bp->rx[q] = make_ring("r", p, q,
					      (unsigned int)(frames / nw + 64));
			bp->tx[q] = make_ring("t", p, q, mbufs);
		}
		make_port(bp, p);
	}
	data_room = RTE_ALIGN(OFF_PAYLOAD + RTE_MAX(L, 4 * C), 64);
	/* the templates, and the copies of a round that the RX rings hold */
	a.gp = make_pool("g", (unsigned int)(2 * frames) + 4096, data_room);
	for (k = 0; k < nw; k++) {
		a.acc[k] = rte_zmalloc(NULL, L, 64);
		if (a.acc[k] == NULL)
			die("out of memory");
	}

	text = malloc(65536);
	if (text == NULL)
		die("out of memory");
	len += snprintf(text + len, 65536 - len,
			"[switch]\nmac = " SW_MAC "\nip = " SW_IP_STR "\n"
			"mtu = %u\nburst = 32\nmbufs = %u\nring_size = 65536\n"
			/* Receipts wait in the preloaded RX rings behind
			 * whatever a lagging worker has not reached yet (a
			 * second worker shares a core with the sampler): a
			 * linger of a minute keeps the switch's resends (every
			 * linger / 16) out of a throughput round. */
			"[collective]\nslots = %u\nlinger_ms = 60000\n",
			mtu, mbufs, slots);
	for (p = 0; p < P; p++)
		len += snprintf(text + len, 65536 - len,
				"[port p%u]\ndev = %s\nrxd = 128\ntxd = 128\n",
				p, a.ports[p].ethdev);
	lcore_sections(text + len, 65536 - len, nw, P);
	switch_start(text);
	if (o->nic_csum) /* ring ports standing for NICs that verify them */
		g_sw.csum_ip_ports = g_sw.csum_l4_ports = (1u << P) - 1;
	for (q = 0; q < nw; q++) {
		char name[32];

		snprintf(name, sizeof(name), "done%u_%u", B.gen, q);
		a.done[q] = rte_ring_create(name, rte_align32pow2(mbufs + 1),
					    (int)rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (a.done[q] == NULL)
			die("ring %s: %s", name, rte_strerror(rte_errno));
		for (p = 0; p < P; p++)
			if (rte_eth_add_tx_callback(a.ports[p].port_id,
						    (uint16_t)q, tx_complete,
						    a.done[q]) == NULL)
				die("TX callback on port %u queue %u: %s", p,
				    q, rte_strerror(rte_errno));
	}
	free(text);
	agg_join(&a);
	agg_build(&a);
	for (k = 0; k < nw; k++) {
		a.fl_acc[k] = malloc((size_t)a.n_coll * C * sizeof(**a.fl_acc));
		a.fl_cnt[k] = malloc((size_t)a.n_coll * C);
		if (a.fl_acc[k] == NULL || a.fl_cnt[k] == NULL)
			die("out of memory");
	}

	sw = calloc(o->rounds, sizeof(*sw));
	ce = calloc(o->rounds, sizeof(*ce));
	fl = calloc(o->rounds, sizeof(*fl));
	if (sw == NULL || ce == NULL || fl == NULL)
		die("out of memory");
	/* alternate, so that whatever else the machine does falls on all
	 * three; the floor's rounds are numbered after the switch's last,
	 * so the switch never meets their collectives */
	for (k = 0; k < o->rounds; k++) {
		if (o->only == ONLY_ALL || o->only == ONLY_CEILING)
			ce[k] = agg_ceiling(&a);
		if (o->only == ONLY_ALL || o->only == ONLY_FLOOR)
			fl[k] = agg_floor(&a, o->rounds + k);
		if (o->only == ONLY_ALL || o->only == ONLY_SWITCH) {
			sw[k] = agg_round(&a, k);
			agg_confirm(&a, k);
		}
	}
	acis_coll_stats_sum(&cs, &as);
	acis_stats_sum(&ls);
	/* the receipts sent again after each round (agg_confirm) name
	 * slots closed by their first copy: the switch's memory of closed
	 * slots is bounded, so those it no longer recalls are dropped as
	 * acis_no_slot, as a host's repeated receipt would be */
	for (p = 0, tail = 0; p < P; p++)
		for (q = 0; q < nw; q++)
			tail += a.ntq[p][q];
	if (ls.drops[ACIS_DROP_ACIS_NO_SLOT] <= tail * o->rounds) {
		if (ls.drops[ACIS_DROP_ACIS_NO_SLOT] != 0)
			printf("%" PRIu64 " of the %" PRIu64 " receipts sent "
			       "again after the rounds named slots the switch "
			       "no longer recalled (acis_no_slot)\n",
			       ls.drops[ACIS_DROP_ACIS_NO_SLOT],
			       tail * o->rounds);
		ls.drops[ACIS_DROP_ACIS_NO_SLOT] = 0;
	}
	for (k = 0, p = 0; k < ACIS_DROP_MAX; k++)
		if (ls.drops[k] != 0) {
			fprintf(stderr, "switch_bench: %" PRIu64 " dropped as "
				"%s\n", ls.drops[k], acis_drop_name(k));
			p++;
		}
	if (p != 0 || as.in_use != 0 || as.busy != 0 || as.expired != 0 ||
	    as.lingered != 0 || cs.nombuf != 0)
		die("the switch was not clean: %u drop reasons, %u slots in "
		    "use, %" PRIu64 " busy, %" PRIu64 " expired, %" PRIu64
		    " lingered, %" PRIu64 " nombuf", p, as.in_use, as.busy,
		    as.expired, as.lingered, cs.nombuf);
	qsort(sw, o->rounds, sizeof(*sw), cmp_dbl);
	qsort(ce, o->rounds, sizeof(*ce), cmp_dbl);
	qsort(fl, o->rounds, sizeof(*fl), cmp_dbl);
	sw_best = sw[o->rounds - 1];
	ce_best = ce[o->rounds - 1];
	fl_best = fl[o->rounds - 1];
	sw_med = sw[o->rounds / 2];
	ce_med = ce[o->rounds / 2];
	fl_med = fl[o->rounds / 2];
	if (o->only != ONLY_ALL) {
		static const char *const what[] = {
			[ONLY_SWITCH] = "switch", [ONLY_FLOOR] = "floor",
			[ONLY_CEILING] = "ceiling"};
		const double *v = o->only == ONLY_SWITCH ? sw :
				  o->only == ONLY_FLOOR ? fl : ce;

		printf("allreduce float32 sum, %u ranks, %5u B payload, %u "
		       "chunks, %u worker%s, checksums %s: %s%s alone %7.2f "
		       "Gb/s per core (best of %u rounds of %u collectives; "
		       "median %.2f)\n", P, L, C, nw, nw > 1 ? "s" : "",
		       o->nic_csum ? "by the NIC" : "in software",
		       what[o->only], o->only == ONLY_FLOOR &&
		       o->floor_answers ? " with answers" : "",
		       v[o->rounds - 1], o->rounds, a.n_coll,
		       v[o->rounds / 2]);
	} else
	printf("allreduce float32 sum, %u ranks, %5u B payload, %u chunks, "
	       "%u worker%s, checksums %s%s: switch %7.2f Gb/s per core, "
	       "ceiling %7.2f, ratio %.2f; floor%s %7.2f, ratio %.2f (best of "
	       "%u rounds of %u collectives; medians %.2f, %.2f, %.2f; %"
	       PRIu64 " held for rank order; results freed by %s)\n", P, L,
	       C, nw, nw > 1 ? "s" : "",
	       o->nic_csum ? "by the NIC" : "in software",
	       o->auth ? ", cookies" : "", sw_best, ce_best,
	       sw_best / ce_best, o->floor_answers ? " with answers" : "",
	       fl_best, fl_best / ce_best, o->rounds,
	       a.n_coll, sw_med, ce_med, fl_med, cs.held_total,
	       o->free_on_main ? "the main lcore" : "the worker");
	csv_open("ranks,payload_bytes,chunks,workers,rounds,collectives,"
		 "round_bytes,switch_gbps_core,ceiling_gbps_core,ratio,"
		 "switch_gbps_core_median,ceiling_gbps_core_median,"
		 "switch_mpps_core,held,checksums,freed_by,"
		 "floor_gbps_core,floor_gbps_core_median,floor_answers,auth");
	if (B.csv != NULL && o->only == ONLY_ALL) {
		fprintf(B.csv, "%u,%u,%u,%u,%u,%u,%" PRIu64 ",%.3f,%.3f,%.4f,"
			"%.3f,%.3f,%.4f,%" PRIu64 ",%s,%s,%.3f,%.3f,%d,%s\n", P, L,
			C, nw, o->rounds, a.n_coll,
			(uint64_t)a.n_coll * C * P * L, sw_best, ce_best,
			sw_best / ce_best, sw_med, ce_med,
			sw_best * 1e3 / 8 / L, cs.held_total,
			o->nic_csum ? "nic" : "software",
			o->free_on_main ? "main" : "worker", fl_best, fl_med,
			o->floor_answers, o->auth ? "cookie" : "off");
		fclose(B.csv);
	}

	/* the ports stopped and closed: no TX callback runs again */
	acis_switch_fini();
	for (q = 0; q < nw; q++)
		rte_ring_free(a.done[q]);
	for (p = 0; p < P; p++) {
		free_port_rings(&a.ports[p]);
		for (q = 0; q < nw; q++) {
			rte_pktmbuf_free_bulk(a.q[p][q], a.nq[p][q]);
			rte_pktmbuf_free_bulk(a.tq[p][q], a.ntq[p][q]);
			free(a.q[p][q]);
			free(a.tq[p][q]);
		}
	}
	rte_mempool_free(a.gp);
	for (k = 0; k < nw; k++) {
		rte_free(a.acc[k]);
		free(a.fl_acc[k]);
		free(a.fl_cnt[k]);
	}
	free(a.contrib);
	free(a.copies);
	free(a.ccopy);
	free(a.ref);
	free(a.mag);
	free(a.scratch);
	free(sw);
	free(ce);
	free(fl);
}

/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: switch_bench [EAL options] -- fwd [--frame B] "
		"[--seconds S] [--inflight N]\n"
		"                                         [--flows F] [--io] "
		"[--memif] [--csv FILE]\n"
		"       switch_bench [EAL options] -- agg [--ranks P] "
		"[--payload B] [--chunks C]\n"
		"                                         [--workers W] "
		"[--round-mb M] [--rounds R]\n"
		"                                         [--nic-checksums] "
		"[--free-on-main] [--csv FILE]\n"
		"                                         [--only switch|floor|"
		"ceiling] [--floor-answers] [--auth]\n"
		"The switch runs on the EAL lcores after the main one.\n");
}

static double
num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		die("--%s %s: want a number from %g to %g", opt, s, lo, hi);
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"frame", required_argument, NULL, 'f'},
		{"seconds", required_argument, NULL, 's'},
		{"inflight", required_argument, NULL, 'n'},
		{"flows", required_argument, NULL, 'W'},
		{"io", no_argument, NULL, 'i'},
		{"memif", no_argument, NULL, 'M'},
		{"ranks", required_argument, NULL, 'P'},
		{"payload", required_argument, NULL, 'L'},
		{"chunks", required_argument, NULL, 'C'},
		{"workers", required_argument, NULL, 'w'},
		{"round-mb", required_argument, NULL, 'm'},
		{"rounds", required_argument, NULL, 'r'},
		{"csv", required_argument, NULL, 'c'},
		{"nic-checksums", no_argument, NULL, 'k'},
		{"free-on-main", no_argument, NULL, 'F'},
		{"only", required_argument, NULL, 'o'},
		{"floor-answers", no_argument, NULL, 'A'},
		{"auth", no_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct fwd_opts fo = {.frame = 64, .seconds = 2, .inflight = 256,
			      .flows = 1};
	struct agg_opts ao = {.ranks = 4, .payload = 1024, .chunks = 16,
			      .workers = 1, .rounds = 5, .round_mb = 32};
	const char *mode;
	unsigned int lc;
	int n, c;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	argc -= n;
	argv += n;
	/* the sampler sleeps 100 us at a time: ask for no timer slack */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	argv[1] = argv[0];
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			fo.frame = (unsigned int)num("frame", optarg, 60, 1514);
			break;
		case 's':
			fo.seconds = num("seconds", optarg, 0.1, 3600);
			break;
		case 'n':
			fo.inflight = (unsigned int)num("inflight", optarg, 1,
							2048);
			break;
		case 'W': {
			double v = num("flows", optarg, 1, 64);

			fo.flows = (unsigned int)v;
			if (fo.flows != v)
				die("--flows %s: want a whole number", optarg);
			break;
		}
		case 'i':
			fo.io = 1;
			break;
		case 'M':
			fo.memif = 1;
			break;
		case 'P':
			ao.ranks = (unsigned int)num("ranks", optarg, 2,
						     MAX_PORTS);
			break;
		case 'L':
			ao.payload = (unsigned int)num("payload", optarg, 8,
						       9000);
			if (ao.payload % 8 != 0)
				die("--payload: a multiple of 8 bytes");
			break;
		case 'C':
			ao.chunks = (unsigned int)num("chunks", optarg, 1, 1024);
			break;
		case 'w':
			ao.workers = (unsigned int)num("workers", optarg, 1,
						       MAX_Q);
			break;
		case 'm':
			ao.round_mb = num("round-mb", optarg, 0.01, 65536);
			break;
		case 'r':
			ao.rounds = (unsigned int)num("rounds", optarg, 1, 1000);
			break;
		case 'c':
			B.csv_path = optarg;
			break;
		case 'k':
			ao.nic_csum = 1;
			break;
		case 'F':
			ao.free_on_main = 1;
			break;
		case 'A':
			ao.floor_answers = 1;
			break;
		case 'U':
			ao.auth = 1;
			B.auth = 1;
			break;
		case 'o':
			if (strcmp(optarg, "switch") == 0)
				ao.only = ONLY_SWITCH;
			else if (strcmp(optarg, "floor") == 0)
				ao.only = ONLY_FLOOR;
			else if (strcmp(optarg, "ceiling") == 0)
				ao.only = ONLY_CEILING;
			else
				die("--only %s: want switch, floor or ceiling",
				    optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (ao.floor_answers && ao.workers != 1)
		die("--floor-answers: one worker only (with several, each "
		    "worker's floor folds only the ranks of its own queues)");
	if (ao.only != ONLY_ALL && B.csv_path != NULL)
		die("--only runs one measurement, for profiling, and writes no "
		    "CSV (its ratios need all three): drop --csv or --only");
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (B.n_lcores < MAX_Q)
			B.lcores[B.n_lcores++] = lc;
	}
	if (strcmp(mode, "fwd") == 0) {
		if (B.n_lcores < 1)
			die("fwd needs an lcore besides the main one (-l 0-1)");
		fwd_run(&fo);
	} else if (strcmp(mode, "agg") == 0) {
		if (B.n_lcores < ao.workers)
			die("--workers %u needs %u lcores besides the main one",
			    ao.workers, ao.workers);
		agg_run(&ao);
	} else {
		usage(stderr);
		return 2;
	}
	rte_eal_cleanup();
	return 0;
}
