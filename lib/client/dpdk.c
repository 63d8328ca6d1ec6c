/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis's kernel-bypass transport: the datagrams to and from the switch
 * go through a DPDK port of this process's own — net_memif to a switch on
 * the same machine (shared memory: the emulation of a host with a NIC),
 * net_af_xdp or a NIC's PCI address on real hosts — as the clients of
 * in-network aggregation systems that reach line rate do. Built as a
 * shared object of its own (libacis-dpdk.so) that libacis loads only when
 * a context chooses it (load.c).
 *
 * Inside an ordinary application process: the EAL is brought up once, by
 * the first context that needs it, in memory only (no hugepages, no
 * shared configuration, so several such processes run side by side), on
 * one lcore whose CPU affinity is given back to the calling thread
 * afterwards (the application's threads keep theirs), with no telemetry
 * socket and its log kept in memory (the library prints nothing; the last
 * lines go into the error message when something fails). Each context
 * plugs in its own port and unplugs it when it closes.
 *
 * The host is an IPv4 station of its own on that port: Ethernet/IPv4/UDP
 * headers built here (checksums in software unless the port offers to),
 * ARP for the switch's address and answers to ARP for its own, every
 * received frame checked by the switch's own parser (lib/pkt) from the
 * host's side. An idle host does not spin: it polls for poll_us, yielding
 * the core between polls, then naps in growing steps (20 µs to 1 ms).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "acis_pkt.h"
#include "transport.h"

#define BURST 32
#define RING_DESC 1024
#define POOL_MBUFS 4095
#define POOL_CACHE 0      /* the application's threads are no lcores */
#define LINEAR_MAX 16384  /* a chained frame gathered for the parser */
#define POLL_US_DEFAULT 200
#define NAP_MIN_NS 20000ull
#define NAP_MAX_NS 1000000ull
#define ARP_RESEND_NS 100000000ull /* 100 ms */
#define LINK_WAIT_MS 10000
#define TX_STALL_NS 1000000000ull  /* a port that takes nothing for 1 s */
#define EAL_LOG_KEEP 600

struct dpdk_transport {
	struct acis_transport t;
	uint16_t port;
	int hotplugged;
	char dev_name[64];
	struct rte_mempool *pool;
	struct acis_classify_cfg me; /* this host as the parser sees it */
	uint8_t sw_mac[6];
	int sw_mac_known;
	uint32_t sw_ip;
	uint16_t sw_port, my_port; /* host order */
	int rx_cksum;              /* the port verifies checksums */
	uint64_t poll_ns;
	uint8_t linear[LINEAR_MAX];
};

/* ---- the EAL, once per process ---------------------------------- */

static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;
static int eal_state; /* 0: not tried, 1: up, -1: failed */
static char eal_fail[400];
/* The tail of the EAL's and drivers' log, for error messages. */
static char eal_log[EAL_LOG_KEEP];
static size_t eal_log_len;
/* ACIS_DPDK_LOG=stderr: the whole log on standard error as well */
static int eal_log_stderr;

static ssize_t
log_write(void *c, const char *buf, size_t n)
{
	size_t k = n < sizeof(eal_log) - 1 ? n : sizeof(eal_log) - 1;

	(void)c;
	if (eal_log_stderr)
		(void)fwrite(buf, 1, n, stderr);
	if (eal_log_len + k >= sizeof(eal_log)) { /* keep the newest */
		size_t drop = eal_log_len + k - (sizeof(eal_log) - 1);

		memmove(eal_log, eal_log + drop, eal_log_len - drop);
		eal_log_len -= drop;
	}
	memcpy(eal_log + eal_log_len, buf + n - k, k);
	eal_log_len += k;
	eal_log[eal_log_len] = '\0';
	return (ssize_t)n;
}

/* The last line the EAL or a driver logged, for an error message. */
static const char *
log_last(void)
{
	static char line[160];
	size_t end = eal_log_len, start;

	while (end > 0 && (eal_log[end - 1] == '\n' || eal_log[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && eal_log[start - 1] != '\n')
		start--;
	snprintf(line, sizeof(line), "%.*s", (int)(end - start),
		 eal_log + start);
	return line;
}

static int
is_pci_addr(const char *s)
{
	unsigned int d, b, dev, f;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &f, &end) == 4 ||
	       sscanf(s, "%x:%x.%x%c", &b, &dev, &f, &end) == 3;
}

/* Bring the EAL up for this process; 0, or -1 with err set. */
static int
eal_up(const struct acis_transport_cfg *cfg, int pci, char *err,
       size_t errlen)
{
	static char args[1024], lcores[32], prefix[48];
	char *argv[64], *save = NULL, *tok;
	int argc = 0, rc, saved_optind = optind, saved_opterr = opterr;
	char *saved_optarg = optarg;
	cpu_set_t cpus;
	unsigned int cpu = 0;
	FILE *logf;
	cookie_io_functions_t io = {.write = log_write};

	pthread_mutex_lock(&eal_lock);
	if (eal_state != 0) {
		rc = eal_state > 0 ? 0 : -1;
		if (rc != 0)
			snprintf(err, errlen, "%s", eal_fail);
		pthread_mutex_unlock(&eal_lock);
		return rc;
	}
	/* the one lcore on a CPU this thread may use; its own affinity is
	 * given back below */
	if (pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcores, sizeof(lcores), "--lcores=0@%u", cpu);
	snprintf(prefix, sizeof(prefix), "--file-prefix=acis-host-%d",
		 (int)getpid());
	argv[argc++] = (char *)"acis-host";
	argv[argc++] = lcores;
	argv[argc++] = prefix;
	argv[argc++] = (char *)"--no-telemetry";
	if (pci) {
		/* a NIC needs memory it can reach by DMA: hugepages */
		argv[argc++] = (char *)"--in-memory";
		argv[argc++] = (char *)"-a";
		argv[argc++] = (char *)cfg->dpdk_port;
	} else {
		/* --no-huge is the EAL's legacy memory mode, which --in-memory
		 * refuses: --no-shconf keeps its files away instead */
		argv[argc++] = (char *)"--no-huge";
		argv[argc++] = (char *)"--no-shconf";
		argv[argc++] = (char *)"-m";
		argv[argc++] = (char *)"256";
		argv[argc++] = (char *)"--no-pci";
	}
	if (cfg->dpdk_eal != NULL) {
		snprintf(args, sizeof(args), "%s", cfg->dpdk_eal);
		for (tok = strtok_r(args, " \t", &save);
		     tok != NULL && argc < 62; tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
	}
	argv[argc] = NULL;
	eal_log_stderr = getenv("ACIS_DPDK_LOG") != NULL &&
			 strcmp(getenv("ACIS_DPDK_LOG"), "stderr") == 0;
	logf = fopencookie(NULL, "w", io);
	if (logf != NULL) {
		setvbuf(logf, NULL, _IOLBF, 0);
		rte_openlog_stream(logf);
	}
	optind = 1;
	rc = rte_eal_init(argc, argv);
	/* --no-shconf puts nothing in the EAL's runtime directory: leave no
	 * empty one behind (one that holds files stays) */
	rmdir(rte_eal_get_runtime_dir());
	optind = saved_optind;
	opterr = saved_opterr;
	optarg = saved_optarg;
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (rc < 0) {
		snprintf(eal_fail, sizeof(eal_fail), "transport dpdk: the EAL "
			 "did not start: %s (%s)", rte_strerror(rte_errno),
			 log_last());
		snprintf(err, errlen, "%s", eal_fail);
		eal_state = -1;
		pthread_mutex_unlock(&eal_lock);
		return -1;
	}
	eal_state = 1;
	pthread_mutex_unlock(&eal_lock);
	return 0;
}

/* ---- the port ---------------------------------------------------- */

static int
dfail(struct dpdk_transport *d, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
dfail(struct dpdk_transport *d, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->t.err, sizeof(d->t.err), fmt, ap);
	va_end(ap);
	return rc;
}

/* Frames that went nowhere (a port down, a ring full for a second) are
 * lost like frames on a wire: the protocol's recovery deals with them. */
static void
tx_all(struct dpdk_transport *d, struct rte_mbuf **m, uint16_t n)
{
	uint16_t sent = 0;
	uint64_t since = 0;

	while (sent < n) {
		uint16_t k = rte_eth_tx_burst(d->port, 0, m + sent, n - sent);

		if (k != 0) {
			sent += k;
			since = 0;
			d->t.st->send_batches++;
			continue;
		}
		if (since == 0) {
			since = acis_now_ns();
		} else if (acis_now_ns() - since > TX_STALL_NS) {
			d->t.st->transport_drops += n - sent;
			rte_pktmbuf_free_bulk(m + sent, n - sent);
			return;
		}
		sched_yield(); /* the switch may need this core to drain it */
	}
}

static void
send_arp_request(struct dpdk_transport *d)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->pool);
	uint8_t *f;

	if (m == NULL)
		return;
	f = (uint8_t *)rte_pktmbuf_append(m, 60); /* padded to the minimum */
	memset(f, 0, 60);
	acis_arp_request(f, d->me.mac, d->me.ip, d->sw_ip);
	tx_all(d, &m, 1);
}

static void
udp_cksum(uint8_t *f, uint32_t plen)
{
	uint8_t *ip = f + ACIS_ETH_HLEN;
	uint8_t *udp = ip + ACIS_IPV4_MIN_HLEN;
	uint16_t c = acis_udp4_csum(ip, udp, ACIS_UDP_HLEN + plen);

	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
}

static int
dpdk_send(struct acis_transport *t, const struct acis_tmsg *msgs,
	  unsigned int n)
{
	struct dpdk_transport *d = (struct dpdk_transport *)t;
	struct rte_mbuf *m[BURST];
	unsigned int off, i, k;

	for (off = 0; off < n; off += k) {
		k = n - off < BURST ? n - off : BURST;
		if (rte_pktmbuf_alloc_bulk(d->pool, m, k) != 0)
			return dfail(d, ACIS_ERR_NOMEM, "transport dpdk: no "
				     "mbufs left in the pool");
		for (i = 0; i < k; i++) {
			const struct acis_tmsg *x = &msgs[off + i];
			uint32_t plen = (uint32_t)(x->hdr_len + x->len);
			uint32_t flen = ACIS_UDP4_PAYLOAD_OFF + plen;
			uint8_t *f = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)flen);
			uint8_t *p;

			if (f == NULL) {
				rte_pktmbuf_free_bulk(m, k);
				return dfail(d, ACIS_ERR_INVAL, "transport dpdk: "
					     "a %u-byte frame does not fit an "
					     "mbuf", flen);
			}
			acis_udp4_headers(f, d->sw_mac, d->me.mac, d->me.ip,
					  d->sw_ip, d->my_port, d->sw_port, plen);
			p = f + ACIS_UDP4_PAYLOAD_OFF;
			if (x->hdr_len != 0)
				memcpy(p, x->hdr, x->hdr_len);
			if (x->len != 0)
				memcpy(p + x->hdr_len, x->data, x->len);
			/* in software: a port that would do it on the way out
			 * (a NIC) is rare among the hosts this serves, and the
			 * sum is one read of bytes just written */
			udp_cksum(f, plen);
		}
		tx_all(d, m, (uint16_t)k);
	}
	return ACIS_OK;
}

/* One frame in: ARP answered or learnt from, our datagrams delivered,
 * the rest counted and dropped. */
static void
rx_frame(struct dpdk_transport *d, struct rte_mbuf *m, acis_deliver_fn fn,
	 void *arg)
{
	struct acis_pkt_info pi;
	uint8_t reason;
	unsigned int hw = 0;
	struct rte_mbuf *c;
	uint8_t *f;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	enum acis_class cls;

	if (m->nb_segs == 1) {
		f = rte_pktmbuf_mtod(m, uint8_t *);
	} else if (len <= sizeof(d->linear)) {
		f = d->linear;
		rte_pktmbuf_read(m, 0, len, f);
	} else {
		d->t.st->transport_drops++;
		return;
	}
	if (d->rx_cksum) {
		if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_IP_CKSUM_GOOD)
			hw |= ACIS_HW_IP_CSUM_OK;
		if ((m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_L4_CKSUM_GOOD)
			hw |= ACIS_HW_L4_CSUM_OK;
	}
	cls = acis_pkt_classify_hw(&d->me, f, len, hw, &pi, &reason);
	if (cls == ACIS_CLASS_ACIS) {
		fn(arg, f + pi.payload_off, pi.payload_len, pi.src_ip);
		return;
	}
	if (cls == ACIS_CLASS_ARP) {
		const uint8_t *a = f + pi.l3_off;
		uint32_t spa;

		memcpy(&spa, a + 14, 4);
		if (a[7] == 2) { /* a reply to us */
			if (spa == d->sw_ip) {
				memcpy(d->sw_mac, a + 8, 6);
				d->sw_mac_known = 1;
			}
			return;
		}
		/* a request for us: answered from a copy (m is freed by
		 * the caller) */
		c = rte_pktmbuf_copy(m, d->pool, 0, UINT32_MAX);
		if (c != NULL && c->nb_segs == 1) {
			acis_arp_reply(rte_pktmbuf_mtod(c, uint8_t *), &pi,
				       d->me.mac, d->me.ip);
			tx_all(d, &c, 1);
		} else if (c != NULL) {
			rte_pktmbuf_free(c);
		}
		return;
	}
	d->t.st->transport_drops++;
}

/* Whatever the port has now; the number of frames. */
static unsigned int
rx_once(struct dpdk_transport *d, acis_deliver_fn fn, void *arg)
{
	struct rte_mbuf *m[BURST];
	unsigned int total = 0;
	uint16_t n, i;

	do {
		n = rte_eth_rx_burst(d->port, 0, m, BURST);
		if (n == 0)
			break;
		d->t.st->recv_batches++;
		for (i = 0; i < n; i++) {
			if (i + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(m[i + 1], void *));
			rx_frame(d, m[i], fn, arg);
		}
		rte_pktmbuf_free_bulk(m, n);
		total += n;
	} while (n == BURST);
	return total;
}

static void
nap(uint64_t ns)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};

	nanosleep(&ts, NULL);
}

/*
 * Adaptive polling: poll, yielding the core between polls, for poll_us;
 * then nap in steps that double from 20 µs to 1 ms, polling after each,
 * until something arrives or wait_ms ends. A host waiting for an answer
 * hears it within a poll while traffic flows and costs nothing while the
 * switch is quiet. Naps run with a timer slack of 1 µs (Linux adds 50 µs
 * to every sleep by default), the thread's own slack given back after.
 */
static int
dpdk_recv(struct acis_transport *t, int wait_ms, acis_deliver_fn fn, void *arg)
{
	struct dpdk_transport *d = (struct dpdk_transport *)t;
	uint64_t start, now, step = NAP_MIN_NS;
	long slack = -1;

	if (rx_once(d, fn, arg) != 0 || wait_ms <= 0)
		return ACIS_OK;
	start = acis_now_ns();
	for (;;) {
		now = acis_now_ns();
		if (now - start >= (uint64_t)wait_ms * 1000000ull)
			break;
		if (now - start < d->poll_ns) {
			sched_yield();
		} else {
			uint64_t left = (uint64_t)wait_ms * 1000000ull -
					(now - start);

			if (slack < 0) {
				slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
				prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
			}
			nap(step < left ? step : left);
			if (step < NAP_MAX_NS)
				step *= 2;
		}
		if (rx_once(d, fn, arg) != 0)
			break;
	}
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	return ACIS_OK;
}

static void
dpdk_close(struct acis_transport *t)
{
	struct dpdk_transport *d = (struct dpdk_transport *)t;

	if (d->port != RTE_MAX_ETHPORTS) {
		rte_eth_dev_stop(d->port);
		rte_eth_dev_close(d->port);
		if (d->hotplugged)
			rte_eal_hotplug_remove("vdev", d->dev_name);
	}
	rte_mempool_free(d->pool);
	free(d);
}

static const struct acis_transport_ops dpdk_ops = {
	.send = dpdk_send,
	.recv = dpdk_recv,
	.close = dpdk_close,
};

/* Plug the port in (a vdev) or find it (a PCI device probed at start). */
static int
port_find(struct dpdk_transport *d, const struct acis_transport_cfg *cfg,
	  int pci)
{
	const char *comma = strchr(cfg->dpdk_port, ',');
	size_t nl = comma != NULL ? (size_t)(comma - cfg->dpdk_port)
				  : strlen(cfg->dpdk_port);
	char args[512];
	int rc;

	if (nl == 0 || nl >= sizeof(d->dev_name))
		return dfail(d, ACIS_ERR_INVAL, "transport dpdk: port '%s': "
			     "expected a device name (net_memif0,...) or a "
			     "PCI address", cfg->dpdk_port);
	memcpy(d->dev_name, cfg->dpdk_port, nl);
	d->dev_name[nl] = '\0';
	if (!pci) {
		snprintf(args, sizeof(args), "%s", comma != NULL ? comma + 1 : "");
		/* memif: buffers that hold a whole frame of this MTU, and
		 * rings of 4096 (not 1024): a host napping for 1 ms while the
		 * switch answers a window of chunks from each of several
		 * requests must not find its ring overrun; unless the port
		 * says otherwise */
		if (strncmp(d->dev_name, "net_memif", 9) == 0) {
			size_t l = strlen(args);

			if (strstr(args, "bsize=") == NULL && cfg->mtu > 1500)
				l += (size_t)snprintf(args + l, sizeof(args) - l,
					"%sbsize=%u", l != 0 ? "," : "",
					(cfg->mtu + ACIS_ETH_HLEN + 127) & ~127u);
			if (strstr(args, "rsize=") == NULL && l < sizeof(args))
				snprintf(args + l, sizeof(args) - l,
					 "%srsize=12", l != 0 ? "," : "");
		}
		rc = rte_eal_hotplug_add("vdev", d->dev_name, args);
		if (rc != 0)
			return dfail(d, ACIS_ERR_SYS, "transport dpdk: cannot "
				     "create %s: %s (%s)", cfg->dpdk_port,
				     rte_strerror(-rc), log_last());
		d->hotplugged = 1;
	}
	if (rte_eth_dev_get_port_by_name(d->dev_name, &d->port) != 0) {
		d->port = RTE_MAX_ETHPORTS;
		return dfail(d, ACIS_ERR_SYS, "transport dpdk: no port %s "
			     "(%s)", d->dev_name, log_last());
	}
	return ACIS_OK;
}

/* rte_mempool_mem_iter's callback: one chunk of the pool faulted in */
static void
populate_chunk(struct rte_mempool *mp, void *opaque,
	       struct rte_mempool_memhdr *memhdr, unsigned int mem_idx)
{
	(void)mp;
	(void)opaque;
	(void)mem_idx;
#ifdef MADV_POPULATE_WRITE
	{
		uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
		uintptr_t lo = (uintptr_t)memhdr->addr & ~(pg - 1);
		uintptr_t hi = ((uintptr_t)memhdr->addr + memhdr->len + pg - 1) &
			       ~(pg - 1);

		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	}
#else
	(void)memhdr;
#endif
}

/*
 * Fault in memif's shared regions now, as the pool's. The driver maps them (memfd,
 * "memif_region_N") and leaves their pages to the first frames: a ring
 * of 4096 jumbo buffers is 37 MB of page faults, taken by the first
 * hundred-odd collectives of a run (a 256 KiB allreduce: 350 us a call
 * over the first 500, 130 us after). Regions already populated (another
 * context's) cost a walk of their page tables. Best effort: a kernel
 * without MADV_POPULATE_WRITE (before 5.14) leaves them as they were.
 */
static void
populate_memif_regions(void)
{
#ifdef MADV_POPULATE_WRITE
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (strstr(line, "memif_region") == NULL ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= lo)
			continue;
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	}
	fclose(f);
#endif
}

static int
port_start(struct dpdk_transport *d, const struct acis_transport_cfg *cfg)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	uint16_t nrx = RING_DESC, ntx = RING_DESC;
	uint32_t room = cfg->mtu + ACIS_ETH_HLEN + 2 * ACIS_VLAN_HLEN;
	uint64_t until;
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	if (room < RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_MBUF_DEFAULT_DATAROOM;
	snprintf(name, sizeof(name), "acis-host-%u", d->port);
	d->pool = rte_pktmbuf_pool_create(name, POOL_MBUFS, POOL_CACHE, 0,
					  (uint16_t)(room + RTE_PKTMBUF_HEADROOM),
					  (int)rte_socket_id());
	if (d->pool == NULL)
		return dfail(d, ACIS_ERR_NOMEM, "transport dpdk: no memory "
			     "for %u mbufs: %s", POOL_MBUFS,
			     rte_strerror(rte_errno));
	/* without hugepages the pool's pages are faulted in by the frames
	 * that first use them (the pool cycles through all of them): now
	 * instead, as memif's regions below */
	rte_mempool_mem_iter(d->pool, populate_chunk, NULL);
	memset(&conf, 0, sizeof(conf));
	if ((rc = rte_eth_dev_info_get(d->port, &info)) != 0)
		return dfail(d, ACIS_ERR_SYS, "transport dpdk: %s: %s",
			     d->dev_name, rte_strerror(-rc));
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_CHECKSUM;
		d->rx_cksum = 1;
	}
	/* a driver whose frames are not bound by an MTU of its own (memif
	 * chains its ring buffers; DPDK 22.11 reports 1518 for it) is left
	 * at its default: setting ours would be refused */
	if (info.max_mtu >= cfg->mtu && info.max_mtu != 0 &&
	    info.max_rx_pktlen >= room - 2 * ACIS_VLAN_HLEN)
		conf.rxmode.mtu = cfg->mtu;
	if ((rc = rte_eth_dev_configure(d->port, 1, 1, &conf)) != 0)
		return dfail(d, ACIS_ERR_SYS, "transport dpdk: configure %s: "
			     "%s (%s)", d->dev_name, rte_strerror(-rc),
			     log_last());
	rte_eth_dev_adjust_nb_rx_tx_desc(d->port, &nrx, &ntx);
	if ((rc = rte_eth_rx_queue_setup(d->port, 0, nrx,
					 rte_eth_dev_socket_id(d->port), NULL,
					 d->pool)) != 0 ||
	    (rc = rte_eth_tx_queue_setup(d->port, 0, ntx,
					 rte_eth_dev_socket_id(d->port),
					 NULL)) != 0)
		return dfail(d, ACIS_ERR_SYS, "transport dpdk: queues of %s: "
			     "%s (%s)", d->dev_name, rte_strerror(-rc),
			     log_last());
	if ((rc = rte_eth_dev_start(d->port)) != 0)
		return dfail(d, ACIS_ERR_SYS, "transport dpdk: start %s: %s "
			     "(%s)", d->dev_name, rte_strerror(-rc), log_last());
	/* a port that is not ours alone (af_xdp, a NIC) keeps frames for
	 * other MACs from us; a chosen MAC of our own needs them */
	if (cfg->host_mac != NULL)
		rte_eth_promiscuous_enable(d->port);
	/* memif's link comes up once the switch accepted the connection */
	until = acis_now_ns() + LINK_WAIT_MS * 1000000ull;
	for (;;) {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(d->port, &link);
		if (link.link_status == RTE_ETH_LINK_UP)
			break;
		if (acis_now_ns() > until)
			return dfail(d, ACIS_ERR_TIMEOUT, "transport dpdk: %s: "
				     "link still down after %u ms (is the "
				     "switch up, with this port's peer in its "
				     "pipeline?)", cfg->dpdk_port,
				     LINK_WAIT_MS);
		nap(1000000);
	}
	if (strcmp(info.driver_name, "net_memif") == 0)
		populate_memif_regions();
	return ACIS_OK;
}

static void
no_deliver(void *arg, const uint8_t *p, size_t len, uint32_t src_ip)
{
	(void)arg;
	(void)p;
	(void)len;
	(void)src_ip;
}

/* The switch's MAC, asked for with ARP until timeout_ms. */
static int
resolve_switch(struct dpdk_transport *d, unsigned int timeout_ms)
{
	uint64_t until = acis_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint64_t next = 0;
	char ip[INET_ADDRSTRLEN];

	while (!d->sw_mac_known) {
		uint64_t now = acis_now_ns();

		if (now > until) {
			inet_ntop(AF_INET, &d->sw_ip, ip, sizeof(ip));
			return dfail(d, ACIS_ERR_TIMEOUT, "transport dpdk: no "
				     "ARP answer from the switch at %s on %s "
				     "within %u ms", ip, d->dev_name,
				     timeout_ms);
		}
		if (now >= next) {
			send_arp_request(d);
			next = now + ARP_RESEND_NS;
		}
		/* nothing but ARP is expected yet: anything else is lost
		 * (and counted) */
		rx_once(d, no_deliver, NULL);
		nap(1000000);
	}
	return ACIS_OK;
}

int acis_dpdk_transport_open(const struct acis_transport_cfg *cfg,
			     struct acis_transport **out, char *err,
			     size_t errlen);

int
acis_dpdk_transport_open(const struct acis_transport_cfg *cfg,
			 struct acis_transport **out, char *err, size_t errlen)
{
	struct dpdk_transport *d;
	struct rte_ether_addr mac;
	int pci, rc;

	if (cfg->abi != ACIS_TRANSPORT_ABI) {
		snprintf(err, errlen, "transport dpdk: libacis-dpdk.so is of "
			 "another libacis (interface %u, libacis %u)",
			 ACIS_TRANSPORT_ABI, cfg->abi);
		return ACIS_ERR_INVAL;
	}
	if (cfg->dpdk_port == NULL) {
		snprintf(err, errlen, "transport dpdk: no port (ACIS_DPDK_PORT,"
			 " e.g. net_memif0,role=client,socket=/run/acis/h0.sock,"
			 "socket-abstract=no)");
		return ACIS_ERR_INVAL;
	}
	if (cfg->host_ip == 0) {
		snprintf(err, errlen, "transport dpdk: no address for this host "
			 "(ACIS_BIND=A.B.C.D): there is no kernel to know it");
		return ACIS_ERR_INVAL;
	}
	pci = is_pci_addr(cfg->dpdk_port);
	if (eal_up(cfg, pci, err, errlen) != 0)
		return ACIS_ERR_SYS;
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return ACIS_ERR_NOMEM;
	}
	d->t.ops = &dpdk_ops;
	d->t.name = "dpdk";
	d->t.st = cfg->st;
	d->port = RTE_MAX_ETHPORTS;
	d->sw_ip = cfg->switch_ip;
	d->sw_port = ntohs(cfg->switch_port);
	d->my_port = cfg->host_port != 0 ? ntohs(cfg->host_port)
					 : (uint16_t)(49152 + cfg->rank % 16384);
	d->poll_ns = (uint64_t)(cfg->poll_us != 0 ? cfg->poll_us
						  : POLL_US_DEFAULT) * 1000ull;
	d->me.ip = cfg->host_ip;
	d->me.udp_port = d->my_port;
	d->me.max_frame = cfg->mtu + ACIS_ETH_HLEN + 2 * ACIS_VLAN_HLEN;
	if ((rc = port_find(d, cfg, pci)) != ACIS_OK ||
	    (rc = port_start(d, cfg)) != ACIS_OK)
		goto fail;
	if (cfg->host_mac != NULL) {
		if (acis_parse_mac(cfg->host_mac, d->me.mac) != 0) {
			rc = dfail(d, ACIS_ERR_INVAL, "transport dpdk: host MAC "
				   "'%s': expected aa:bb:cc:dd:ee:ff",
				   cfg->host_mac);
			goto fail;
		}
	} else {
		rte_eth_macaddr_get(d->port, &mac);
		memcpy(d->me.mac, mac.addr_bytes, 6);
	}
	if (cfg->switch_mac != NULL) {
		if (acis_parse_mac(cfg->switch_mac, d->sw_mac) != 0) {
			rc = dfail(d, ACIS_ERR_INVAL, "transport dpdk: switch "
				   "MAC '%s': expected aa:bb:cc:dd:ee:ff",
				   cfg->switch_mac);
			goto fail;
		}
		d->sw_mac_known = 1;
	}
	if ((rc = resolve_switch(d, LINK_WAIT_MS)) != ACIS_OK)
		goto fail;
	*out = &d->t;
	return ACIS_OK;
fail:
	snprintf(err, errlen, "%s", d->t.err);
	dpdk_close(&d->t);
	return rc;
}
