/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up and shutdown of the switch: the mbuf pool, the ports, the
 * handoff rings, and one graph per lcore built from the stage nodes.
 * Every failure names the pipeline file and line it comes from.
 */
#include <rte_config.h>
/* rte_graph_walk, built with the library's per-node statistics, reads the
 * TSC twice around every stage on every walk: about a tenth of a
 * forwarding lcore's time. acis keeps its own per-stage counters, so the
 * walk here is the one without. (Before any DPDK header: the walk is
 * inline and reads this once, where it is defined.) */
#undef RTE_LIBRTE_GRAPH_STATS

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "acis_xdp.h"
#include "fault.h"
#include "lookaside.h"
#include "switch.h"
#include "rel.h"
#include "torus.h"
#include "tx.h"

#define errf acis_errf

/* The timer slack of an lcore that sleeps when idle (--idle-sleep). */
#define ACIS_IDLE_SLACK_NS 1000u

/* The first switch's state is static: a process of one switch (and the
 * tests that drive one) allocates none. */
static struct acis_la_state la0;
static struct acis_fault_port fault0[ACIS_MAX_PORTS];
static struct acis_switch sw0 = {.la = &la0, .fault = fault0};

__thread struct acis_switch *acis_cur = &sw0;
struct acis_switch *acis_switches[ACIS_MAX_SWITCHES] = {&sw0};
unsigned int acis_n_switches = 1;
volatile int acis_quit;
unsigned int acis_graph_ports;
struct acis_lcore_ctx *acis_creating_lcore;

struct acis_switch *
acis_switch_new(void)
{
	struct acis_switch *sw;

	if (acis_n_switches >= ACIS_MAX_SWITCHES)
		return NULL;
	sw = calloc(1, sizeof(*sw));
	if (sw == NULL)
		return NULL;
	sw->la = calloc(1, sizeof(*sw->la));
	sw->fault = calloc(ACIS_MAX_PORTS, sizeof(*sw->fault));
	if (sw->la == NULL || sw->fault == NULL) {
		free(sw->la);
		free(sw->fault);
		free(sw);
		return NULL;
	}
	sw->index = acis_n_switches;
	acis_switches[acis_n_switches++] = sw;
	return sw;
}

void
acis_switches_release(void)
{
	while (acis_n_switches > 1) {
		struct acis_switch *sw = acis_switches[--acis_n_switches];

		free(sw->la);
		free(sw->fault);
		free(sw);
		acis_switches[acis_n_switches] = NULL;
	}
	acis_cur = acis_switches[0];
}

struct acis_switch *
acis_switch_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < acis_n_switches; i++)
		if (strcmp(acis_switches[i]->name, name) == 0)
			return acis_switches[i];
	return NULL;
}

const char *const acis_stage_names[ACIS_STAGE_MAX] = {
#define ACIS_X_NAME(e, n) n,
	ACIS_STAGES(ACIS_X_NAME)
#undef ACIS_X_NAME
};

int
acis_node_init_ctx(const struct rte_graph *graph, struct rte_node *node)
{
	RTE_SET_USED(graph);
	RTE_BUILD_BUG_ON(sizeof(struct acis_node_ctx) > RTE_NODE_CTX_SZ);
	acis_node_ctx(node)->lc = acis_creating_lcore;
	return 0;
}

int
acis_errf(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : -EINVAL;
}

/* The longest frame an MTU admits: the IPv4 packet behind an Ethernet
 * header and up to two VLAN tags (no FCS: DPDK delivers frames without). */
static uint32_t
mtu_frame(uint32_t mtu)
{
	return mtu + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN;
}

/* Whether a port's device is one of DPDK's virtual devices ("net_...":
 * AF_XDP, AF_PACKET, ring, memif, null, tap, pcap, ...), which move frames
 * with the CPU; any other (a PCI address, an ethdev named on the EAL's
 * command line) may be a NIC that reads and writes mbufs by DMA. */
static int
port_virtual(const struct acis_port_cfg *pc)
{
	return strncmp(pc->dev, "net_", 4) == 0 ||
	       strncmp(pc->dev, ACIS_RING_PAIR, strlen(ACIS_RING_PAIR)) == 0;
}

/* The value of one of a port's devargs (",key=value"): 1 if given. */
static int
dev_arg(const struct acis_port_cfg *pc, const char *key, char *val, size_t len)
{
	char pat[32];
	const char *v;

	snprintf(pat, sizeof(pat), ",%s=", key);
	v = strstr(pc->dev, pat);
	if (v == NULL)
		return 0;
	v += strlen(pat);
	snprintf(val, len, "%.*s", (int)strcspn(v, ","), v);
	return 1;
}

#define XSK_SCAN_MAX 1024 /* AF_XDP sockets looked at: 32 ports' queues */

/* The AF_XDP sockets that came with port pr (those not among the n
 * before it started), for its kernel counters (/acis/ports). */
static void
own_xsks(struct acis_port_rt *pr, const struct acis_xsk_ref *before, int n)
{
	struct acis_xsk_ref now[XSK_SCAN_MAX];
	int k = acis_xdp_sockets(now, XSK_SCAN_MAX), i, j;

	n = RTE_MIN(n, XSK_SCAN_MAX);
	pr->n_xsk = 0;
	for (i = 0; i < RTE_MIN(k, XSK_SCAN_MAX); i++) {
		for (j = 0; j < n; j++)
			if (before[j].ino == now[i].ino)
				break;
		if (j >= n && pr->n_xsk < ACIS_PORT_XSK_MAX)
			pr->xsk[pr->n_xsk++] = now[i];
	}
}

/* Whether the pool's objects must each be contiguous in I/O addresses:
 * only for a port that may use DMA, and only when I/O addresses are
 * physical ones (with --iova-mode=va, virtually contiguous is enough). */
static int
pool_iova_contig(void)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int i;

	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return 0;
	for (i = 0; i < pl->n_ports; i++)
		if (!port_virtual(&pl->ports[i]))
			return 1;
	return 0;
}

/* Whether every port of the switch is a ring pair: no device reads its
 * mbufs' I/O addresses. */
static int
pool_rings_only(void)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int i;

	for (i = 0; i < pl->n_ports; i++)
		if (strncmp(pl->ports[i].dev, ACIS_RING_PAIR,
			    strlen(ACIS_RING_PAIR)) != 0)
			return 0;
	return pl->n_ports != 0;
}

static void
pool_heap_free(struct rte_mempool_memhdr *hdr, void *opaque)
{
	RTE_SET_USED(hdr);
	rte_free(opaque);
}

/*
 * A pool's objects in the malloc heap rather than a memzone of their
 * own, for a switch whose ports are all ring pairs: a logical switch
 * then takes four memzones (its pool's header and ring, its RCU queue's
 * ring, its graph), and an 8x8x8 torus's 512 fit DPDK's 2,560.
 */
static int
pool_populate_heap(struct rte_mempool *mp, uint32_t n)
{
	/* the objects end to end, and one more of room for alignment */
	size_t obj = (size_t)mp->header_size + mp->elt_size + mp->trailer_size;
	size_t len = obj * ((size_t)n + 1);
	void *mem;
	int rc;

	mem = rte_zmalloc_socket(mp->name, len, RTE_CACHE_LINE_SIZE,
				 (int)rte_socket_id());
	if (mem == NULL)
		return -ENOMEM;
	rc = rte_mempool_populate_virt(mp, mem, len, 0, pool_heap_free, mem);
	if (rc < 0 || (uint32_t)rc < n) {
		if (rc >= 0) /* too few: the heap's chunk freed with the pool */
			return -ENOMEM;
		rte_free(mem);
	}
	return rc;
}

/*
 * The switch's pool of mbufs, as rte_pktmbuf_pool_create makes it (which
 * takes no mempool flags), but with its objects laid end to end unless
 * they must be contiguous in I/O addresses (pool_iova_contig): an AF_XDP
 * port of DPDK 22.11 registers the pool with the kernel as UMEM, its size
 * reckoned as objects end to end, and an object pushed to the next
 * hugepage (as a pool whose objects must not cross pages lays them) lies
 * beyond that size at the pool's end, where the kernel takes its frames
 * for invalid descriptors and drops them, counted nowhere the PMD reports
 * (check_umem).
 */
static struct rte_mempool *
pool_create(uint32_t n, uint32_t cache, uint16_t data_room)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = data_room,
		.mbuf_priv_size = ACIS_MBUF_PRIV_SIZE,
	};
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (g_sw.index == 0)
		snprintf(name, sizeof(name), "acis_mbufs");
	else
		snprintf(name, sizeof(name), "acis_mbufs%u", g_sw.index);
	mp = rte_mempool_create_empty(name, n,
				      sizeof(struct rte_mbuf) +
				      ACIS_MBUF_PRIV_SIZE + data_room,
				      cache, sizeof(priv),
				      (int)rte_socket_id(),
				      pool_iova_contig() ? 0 :
				      RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
				       NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	if (pool_rings_only()) {
		if (pool_populate_heap(mp, n) < 0)
			goto fail;
	} else if (rte_mempool_populate_default(mp) < 0) {
		goto fail;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	if (rte_errno == 0)
		rte_errno = ENOMEM;
	return NULL;
}

struct umem_span {
	uintptr_t lo, hi; /* the UMEM an AF_XDP port registers */
	uint32_t outside;
};

static void
umem_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct umem_span *u = arg;
	const struct rte_mbuf *m = obj;
	uintptr_t end = (uintptr_t)m->buf_addr + m->buf_len;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if ((uintptr_t)m->buf_addr < u->lo || end > u->hi)
		u->outside++;
}

/*
 * With an AF_XDP port, every mbuf's buffer must lie in the UMEM the PMD
 * registers: from the page of the pool's first memory chunk, as many
 * bytes as the pool's objects end to end. A frame sent from a buffer
 * outside it is dropped by the kernel as an invalid descriptor (and its
 * mbuf never comes back); pool_create lays the pool out so none is.
 */
static int
check_umem(char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	struct rte_mempool *mp = g_sw.pool;
	struct rte_mempool_memhdr *mh = STAILQ_FIRST(&mp->mem_list);
	struct umem_span u = {0};
	unsigned int i;

	for (i = 0; i < pl->n_ports; i++)
		if (acis_pipeline_port_af_xdp(&pl->ports[i]))
			break;
	if (i == pl->n_ports || mh == NULL)
		return 0;
	u.lo = (uintptr_t)mh->addr & ~((uintptr_t)getpagesize() - 1);
	u.hi = (uintptr_t)mh->addr + (uintptr_t)mp->populated_size *
		rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL);
	rte_mempool_obj_iter(mp, umem_obj, &u);
	if (u.outside != 0)
		return errf(err, len, -EINVAL, "%s:%d: [port %s]: %u of the "
			    "pool's %u mbufs lie outside the UMEM an AF_XDP "
			    "port registers (objects end to end from the first "
			    "of the pool's %u memory chunks%s); the kernel "
			    "would drop frames sent from them", pl->path,
			    pl->ports[i].line, pl->ports[i].name, u.outside,
			    mp->populated_size, mp->nb_mem_chunks,
			    mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG ? "" :
			    ", kept within hugepages for the ports that may "
			    "use DMA: run with --iova-mode=va");
	return 0;
}

/* The rings of the process's ring_pair links: freed once every switch
 * has closed its ports (acis_switch_rings_free). */
static struct rte_ring **pair_rings;
static unsigned int n_pair_rings;

/*
 * A link's ring by name, made on first use. The rings are the process's
 * own (rte_zmalloc'd and rte_ring_init'ed, found in this list, not in
 * DPDK's named-ring list), so they take no memzone: an 8x8x8 torus's
 * 3,072 would pass DPDK's 2,560 (RTE_MAX_MEMZONE) alone.
 */
static struct rte_ring *
pair_ring(const char *name, unsigned int size, char *err, size_t len)
{
	struct rte_ring *r, **grown;
	ssize_t bytes;
	unsigned int i;
	int rc;

	for (i = 0; i < n_pair_rings; i++)
		if (strcmp(pair_rings[i]->name, name) == 0)
			return pair_rings[i];
	grown = realloc(pair_rings, (n_pair_rings + 1) * sizeof(*grown));
	if (grown == NULL) {
		errf(err, len, -ENOMEM, "out of memory for ring %s", name);
		return NULL;
	}
	pair_rings = grown;
	bytes = rte_ring_get_memsize(size);
	r = bytes < 0 ? NULL : rte_zmalloc_socket(name, (size_t)bytes,
						  RTE_CACHE_LINE_SIZE,
						  (int)rte_socket_id());
	if (r == NULL) {
		errf(err, len, -ENOMEM, "cannot create ring %s: out of memory",
		     name);
		return NULL;
	}
	/* several TX queues (one a worker) put, several RX queues take */
	rc = rte_ring_init(r, name, size, 0);
	if (rc != 0) {
		rte_free(r);
		errf(err, len, rc, "cannot create ring %s: %s", name,
		     rte_strerror(-rc));
		return NULL;
	}
	pair_rings[n_pair_rings++] = r;
	return r;
}

void
acis_ring_pair_own(struct rte_mbuf **m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *c;

		if (likely(acis_frame_plain(m[i])))
			continue;
		c = rte_pktmbuf_copy(m[i], g_sw.pool, 0, UINT32_MAX);
		if (c == NULL)
			continue;
		rte_pktmbuf_free(m[i]);
		m[i] = c;
	}
}

void
acis_switch_rings_free(void)
{
	while (n_pair_rings != 0)
		rte_free(pair_rings[--n_pair_rings]);
	free(pair_rings);
	pair_rings = NULL;
}

/*
 * One end of a link between two switches of this process: "ring_pair:
 * LINK:a" and "ring_pair:LINK:b" (the pipeline reader checked the form)
 * share two rings, crossed: what end a sends, end b receives, as mbuf
 * pointers (no copy). The port is no ethdev (DPDK 22.11 as Debian builds
 * it has 32 ethdevs a process, too few for a fabric's links): the RX
 * stage takes from the inbound ring and TX puts into the outbound one,
 * every lcore's queue alike (multi-producer, multi-consumer rings). The
 * port's id, what the RX stage marks its frames with, is
 * ACIS_RING_PORT_ID(idx), beyond every ethdev's.
 */
static int
setup_ring_pair(unsigned int idx, char *err, size_t len)
{
	const struct acis_port_cfg *pc = &g_sw.pl->ports[idx];
	struct acis_port_rt *pr = &g_sw.ports[idx];
	const char *link = pc->dev + strlen(ACIS_RING_PAIR);
	int nlink = (int)strcspn(link, ":");
	char end = link[nlink + 1];
	char rn[2][RTE_RING_NAMESIZE];
	unsigned int desc = RTE_MAX(pc->rxd, pc->txd);
	unsigned int size = rte_align32pow2(RTE_MAX(desc, 512u) * 2u);
	struct rte_ring *r[2];
	unsigned int q;

	snprintf(rn[0], sizeof(rn[0]), "rp_%.*s_ab", nlink, link);
	snprintf(rn[1], sizeof(rn[1]), "rp_%.*s_ba", nlink, link);
	for (q = 0; q < 2; q++) {
		r[q] = pair_ring(rn[q], size, err, len);
		if (r[q] == NULL)
			return -ENOMEM;
	}
	/* end a sends on ab and takes from ba; end b the other way */
	pr->ring_out = r[end == 'a' ? 0 : 1];
	pr->ring_in = r[end == 'a' ? 1 : 0];
	pr->port_id = (uint16_t)ACIS_RING_PORT_ID(idx);
	g_sw.port_index[pr->port_id] = (uint16_t)idx;
	pr->n_rxq = (uint16_t)acis_pipeline_port_rx_queues(g_sw.pl, idx);
	pr->n_txq = (uint16_t)g_sw.n_workers;
	/* the pipeline reader bounds the form: it fits */
	snprintf(pr->ethdev_name, sizeof(pr->ethdev_name), "%.*s",
		 (int)(sizeof(pr->ethdev_name) - 1), pc->dev);
	return 0;
}

/* Find or create the ethdev a [port] names. */
static int
resolve_port(const struct acis_port_cfg *pc, uint16_t *port_id, char *err,
	     size_t len)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(pc->dev, ",");
	int rc;


	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, pc->dev, n);
	name[n] = '\0';
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	rc = rte_dev_probe(pc->dev);
	if (rc < 0)
		return errf(err, len, rc,
			    "%s:%d: dev: cannot probe '%s': %s (is the "
			    "device name right, and its interface present?)",
			    g_sw.pl->path, pc->dev_line, pc->dev,
			    rte_strerror(-rc));
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0)
		return errf(err, len, -ENODEV,
			    "%s:%d: dev: '%s' probed but made no ethdev "
			    "named '%s'", g_sw.pl->path, pc->dev_line,
			    pc->dev, name);
	return 0;
}

/* where the kernel puts a frame in an AF_PACKET ring slot (TPACKET_V2) */
#define AF_PACKET_HDR ((unsigned int)TPACKET_ALIGN(TPACKET2_HDRLEN))

/* The room an AF_PACKET port's ring slot leaves a frame: its framesz=
 * (the PMD's default 2048) less the packet header the kernel writes
 * before the frame. */
static unsigned int
af_packet_frame_room(const struct acis_port_cfg *pc)
{
	char v[16];
	unsigned long fs = dev_arg(pc, "framesz", v, sizeof(v)) ?
			   strtoul(v, NULL, 0) : 2048;

	return fs > AF_PACKET_HDR ? (unsigned int)(fs - AF_PACKET_HDR) : 0;
}

/*
 * A port whose driver refused the MTU (rc, not -ENOTSUP: a driver with no
 * MTU to set passes frames of any length). DPDK 22.11's AF_PACKET driver
 * refuses every MTU above 1500 whatever its ring holds, so its ring slot
 * decides; AF_XDP's limit is its UMEM frame, real: both are errors when
 * the frame does not fit, since the frames it cannot hold would be
 * truncated or dropped and every collective sized to the MTU would time
 * out with nothing said. Any other driver is warned about.
 */
static int
check_mtu(const struct acis_port_cfg *pc, const struct rte_eth_dev_info *info,
	  uint16_t mtu, int rc, char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int frame = mtu_frame(mtu), room;

	if (strcmp(info->driver_name, "net_af_packet") == 0) {
		room = af_packet_frame_room(pc);
		if (room >= frame)
			return 0;
		return errf(err, len, -EINVAL, "%s:%d: [port %s]: MTU %u: "
			    "the AF_PACKET ring's slots hold frames of %u "
			    "bytes, not %u; give dev framesz=%u or more and "
			    "blocksz= a multiple of the page size at least as "
			    "large (pipelines/testbed-jumbo.ini)", pl->path,
			    pc->dev_line, pc->name, mtu, room, frame,
			    RTE_ALIGN_CEIL(frame + AF_PACKET_HDR, 1024u));
	}
	if (acis_pipeline_port_af_xdp(pc))
		return errf(err, len, rc, "%s:%d: [port %s]: MTU %u: the "
			    "AF_XDP port refuses it (%s): its frames are at "
			    "most %u bytes", pl->path, pc->line, pc->name, mtu,
			    rte_strerror(-rc), info->max_rx_pktlen);
	printf("acis-switch: warning: [port %s]: %s refuses MTU %u (%s): "
	       "frames longer than %u bytes may be lost on it\n", pc->name,
	       info->driver_name, mtu, rte_strerror(-rc), info->max_rx_pktlen);
	return 0;
}

static int
setup_port(unsigned int idx, char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	const struct acis_port_cfg *pc = &pl->ports[idx];
	struct acis_port_rt *pr = &g_sw.ports[idx];
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t rxd = pc->rxd, txd = pc->txd, q;
	uint16_t mtu = pc->mtu ? pc->mtu : pl->mtu;
	struct acis_port_cfg steer;
	char ifname[IF_NAMESIZE + 1];
	struct acis_xsk_ref before[XSK_SCAN_MAX];
	int rc, n_before = 0;

	if (strncmp(pc->dev, ACIS_RING_PAIR, strlen(ACIS_RING_PAIR)) == 0)
		return setup_ring_pair(idx, err, len);
	if (acis_pipeline_port_af_xdp(pc))
		/* none known when /proc/self/fd cannot be read (-1) */
		n_before = RTE_MAX(acis_xdp_sockets(before,
						    (int)RTE_DIM(before)), 0);
	if (pc->xdp_steer && strstr(pc->dev, "xdp_prog=") == NULL) {
		/* Our steering program instead of the PMD's catch-all. */
		steer = *pc;
		if (snprintf(steer.dev, sizeof(steer.dev), "%s,xdp_prog=%s",
			     pc->dev, acis_xdp_steer_object()) >=
		    (int)sizeof(steer.dev))
			return errf(err, len, -EINVAL, "%s:%d: [port %s]: dev "
				    "with xdp_prog= is too long", pl->path,
				    pc->dev_line, pc->name);
		rc = resolve_port(&steer, &pr->port_id, err, len);
	} else {
		rc = resolve_port(pc, &pr->port_id, err, len);
	}
	if (rc != 0)
		return rc;
	pr->resolved = 1;
	rte_eth_dev_get_name_by_port(pr->port_id, pr->ethdev_name);
	g_sw.port_index[pr->port_id] = (uint16_t)idx;
	rc = rte_eth_dev_info_get(pr->port_id, &info);
	if (rc != 0)
		return errf(err, len, rc, "%s:%d: [port %s]: cannot read "
			    "device info: %s", pl->path, pc->line, pc->name,
			    rte_strerror(-rc));
	if (strcmp(info.driver_name, "net_memif") == 0) {
		g_sw.has_memif = 1;
		pr->link_cheap = 1;
	}
	/* A port nobody polls gets no RX queue: a TX-only device is fine. */
	pr->n_rxq = (uint16_t)acis_pipeline_port_rx_queues(pl, idx);
	pr->n_txq = (uint16_t)g_sw.n_workers;
	if (pr->n_rxq > info.max_rx_queues)
		return errf(err, len, -ENOTSUP, "%s:%d: [port %s] (%s) has at "
			    "most %u RX queues but %u lcores poll it",
			    pl->path, pc->line, pc->name, pr->ethdev_name,
			    info.max_rx_queues, pr->n_rxq);
	if (pr->n_txq > info.max_tx_queues)
		return errf(err, len, -ENOTSUP, "%s:%d: [port %s] (%s) has at "
			    "most %u TX queues but the pipeline has %u worker "
			    "lcores, each with its own TX queue (give the "
			    "device more queues, e.g. qpairs=N for "
			    "net_af_packet, or use fewer workers)", pl->path,
			    pc->line, pc->name, pr->ethdev_name,
			    info.max_tx_queues, pr->n_txq);
	memset(&conf, 0, sizeof(conf));
	if (pr->n_rxq > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	}
	/* The device's checksum verdicts, where it gives them: a frame it
	 * found good is not verified again (acis_hw_csum). */
	if (pc->rx_checksum) {
		uint64_t want = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
				RTE_ETH_RX_OFFLOAD_UDP_CKSUM;

		conf.rxmode.offloads |= want & info.rx_offload_capa;
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
			g_sw.csum_ip_ports |= 1u << idx;
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_UDP_CKSUM)
			g_sw.csum_l4_ports |= 1u << idx;
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		g_sw.chain_ports |= 1u << idx;
	}
	rc = rte_eth_dev_configure(pr->port_id, pr->n_rxq, pr->n_txq, &conf);
	if (rc != 0)
		return errf(err, len, rc, "%s:%d: [port %s]: configure with "
			    "%u RX and %u TX queues failed: %s", pl->path,
			    pc->line, pc->name, pr->n_rxq, pr->n_txq,
			    rte_strerror(-rc));
	rte_eth_dev_adjust_nb_rx_tx_desc(pr->port_id, &rxd, &txd);
	for (q = 0; q < pr->n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(pr->port_id, q, rxd,
					    rte_eth_dev_socket_id(pr->port_id),
					    NULL, g_sw.pool);
		if (rc != 0)
			return errf(err, len, rc, "%s:%d: [port %s]: RX queue "
				    "%u setup failed: %s", pl->path, pc->line,
				    pc->name, q, rte_strerror(-rc));
	}
	for (q = 0; q < pr->n_txq; q++) {
		rc = rte_eth_tx_queue_setup(pr->port_id, q, txd,
					    rte_eth_dev_socket_id(pr->port_id),
					    NULL);
		if (rc != 0)
			return errf(err, len, rc, "%s:%d: [port %s]: TX queue "
				    "%u setup failed: %s", pl->path, pc->line,
				    pc->name, q, rte_strerror(-rc));
	}
	rc = rte_eth_dev_set_mtu(pr->port_id, mtu);
	if (rc != 0 && rc != -ENOTSUP) {
		rc = check_mtu(pc, &info, mtu, rc, err, len);
		if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_start(pr->port_id);
	if (rc != 0)
		return errf(err, len, rc, "%s:%d: [port %s]: start failed: %s",
			    pl->path, pc->line, pc->name, rte_strerror(-rc));
	if (acis_pipeline_port_af_xdp(pc))
		own_xsks(pr, before, n_before);
	if (pc->xdp_steer) {
		struct acis_xdp_steer cfg = {.udp_port = pl->udp_port,
					     .ipv4 = pl->ip};
		char why[256];

		/* the pipeline reader made sure of the iface */
		if (!dev_arg(pc, "iface", ifname, sizeof(ifname)))
			return errf(err, len, -EINVAL, "%s:%d: [port %s]: "
				    "xdp_steer: no iface= in dev", pl->path,
				    pc->dev_line, pc->name);
		memcpy(cfg.mac, pl->mac, 6);
		if (acis_xdp_steer_configure(ifname, &cfg, NULL, why,
					     sizeof(why)) != 0)
			return errf(err, len, -EINVAL, "%s:%d: [port %s]: "
				    "xdp_steer: %s", pl->path, pc->line,
				    pc->name, why);
	}
	if (pc->promisc) {
		rc = rte_eth_promiscuous_enable(pr->port_id);
		if (rc != 0 && rc != -ENOTSUP)
			printf("acis-switch: warning: [port %s]: cannot enable "
			       "promiscuous mode: %s\n", pc->name,
			       rte_strerror(-rc));
	}
	if (acis_pipeline_port_rx_queues(pl, idx) == 0)
		printf("acis-switch: warning: [port %s] is polled by no lcore; "
		       "it only transmits\n", pc->name);
	return 0;
}

static int
setup_lcores(char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	uint16_t next_rxq[ACIS_MAX_PORTS] = {0};
	unsigned int i, j, p, w = 0, n_rx_only = 0;

	for (i = 0; i < pl->n_lcores; i++) {
		const struct acis_lcore_cfg *c = &pl->lcores[i];
		struct acis_lcore_ctx *lc;

		if (!rte_lcore_is_enabled(c->id))
			return errf(err, len, -EINVAL, "%s:%d: [lcore %u]: "
				    "lcore %u is not enabled in the EAL (give "
				    "it with -l or --lcores; this run has %u "
				    "lcores, main %u)", pl->path, c->line,
				    c->id, c->id, rte_lcore_count(),
				    rte_get_main_lcore());
		lc = rte_zmalloc("acis_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE);
		if (lc == NULL)
			return errf(err, len, -ENOMEM, "out of memory for "
				    "lcore %u", c->id);
		lc->sw = acis_cur;
		lc->lcore_id = c->id;
		lc->roles = c->roles;
		lc->index = i;
		lc->worker_index = (c->roles & ACIS_ROLE_WORKER) ? (int)w++ : -1;
		if (g_sw.index == 0)
			snprintf(lc->graph_name, sizeof(lc->graph_name),
				 "acis-%u", c->id);
		else
			snprintf(lc->graph_name, sizeof(lc->graph_name),
				 "acis-%u-%u", g_sw.index, c->id);
		for (p = 0; p < pl->n_ports; p++) {
			if (!(c->rx_ports & (1u << p)))
				continue;
			lc->rxq[lc->n_rxq].port = (uint16_t)p;
			lc->rxq[lc->n_rxq].port_id = g_sw.ports[p].port_id;
			lc->rxq[lc->n_rxq].ring = g_sw.ports[p].ring_in;
			lc->rxq[lc->n_rxq].queue = next_rxq[p]++;
			lc->n_rxq++;
		}
		if (c->roles == ACIS_ROLE_RX)
			n_rx_only++;
		g_sw.lcores[i] = lc;
	}
	g_sw.n_lcores = pl->n_lcores;
	if (n_rx_only > ACIS_MAX_RX_LCORES || g_sw.n_workers > ACIS_MAX_WORKERS)
		return errf(err, len, -EINVAL, "%s: at most %d rx-only and %d "
			    "worker lcores", pl->path, ACIS_MAX_RX_LCORES,
			    ACIS_MAX_WORKERS);
	/* One SP/SC ring from every lcore with the rx role to every other
	 * worker: rx-only lcores hand everything off, and every rx lcore
	 * hands ACiS messages to the worker owning their slot. */
	if (g_sw.n_workers < 2 && n_rx_only == 0)
		return 0;
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *rx = g_sw.lcores[i];

		if (!(rx->roles & ACIS_ROLE_RX))
			continue;
		rx->n_out = (uint16_t)g_sw.n_workers;
		for (j = 0; j < g_sw.n_lcores; j++) {
			struct acis_lcore_ctx *wk = g_sw.lcores[j];
			char name[RTE_RING_NAMESIZE];
			struct rte_ring *r;

			if (wk->worker_index < 0 || wk == rx)
				continue;
			snprintf(name, sizeof(name), "acis_h%u_%u_%u",
				 g_sw.index, rx->lcore_id, wk->lcore_id);
			r = rte_ring_create(name, pl->ring_size, rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (r == NULL)
				return errf(err, len, -rte_errno, "cannot create "
					    "handoff ring %s: %s", name,
					    rte_strerror(rte_errno));
			rx->out[wk->worker_index] = r;
			wk->in[wk->n_in++] = r;
		}
	}
	return 0;
}

static int
setup_graphs(char *err, size_t len)
{
	rte_node_t tx_id = rte_node_from_name("acis_tx");
	const char *tx_names[ACIS_MAX_PORTS];
	char tx_store[ACIS_MAX_PORTS][RTE_NODE_NAMESIZE];
	unsigned int i;
	static const char *const senders[] = {"acis_l2", "acis_local",
					      "acis_collective",
					      "acis_coll_sweep",
					      "acis_lookaside"};
	const char *l2_name = "acis_l2";
	rte_node_t la_id;
	/* The nodes' edges are the process's, shared by every switch's
	 * graphs: as many TX edges as the switch with the most ports has,
	 * the look-aside stage's edge to L2 after them. */
	unsigned int n_tx = RTE_MAX(g_sw.n_ports, acis_graph_ports);

	if (tx_id == RTE_NODE_ID_INVALID)
		return errf(err, len, -ENOENT, "internal: node acis_tx missing");
	for (i = 0; i < n_tx; i++) {
		char suffix[16];

		snprintf(suffix, sizeof(suffix), "%u", i);
		snprintf(tx_store[i], sizeof(tx_store[i]), "acis_tx-%u", i);
		/* Clones persist for the process; reuse them on re-init. */
		if (rte_node_from_name(tx_store[i]) == RTE_NODE_ID_INVALID &&
		    rte_node_clone(tx_id, suffix) == RTE_NODE_ID_INVALID)
			return errf(err, len, -ENOMEM, "cannot clone TX node "
				    "for port %u", i);
		tx_names[i] = tx_store[i];
	}
	for (i = 0; i < RTE_DIM(senders); i++) {
		rte_node_t id = rte_node_from_name(senders[i]);

		/* Edge 0 is drop; edges 1..n are the ports in order. */
		/* A re-init (tests) rewrites the same edges in place. */
		rte_node_edge_update(id, 1, tx_names, (uint16_t)n_tx);
		if (rte_node_edge_count(id) < n_tx + 1)
			return errf(err, len, -EINVAL, "cannot link %s to the "
				    "TX nodes", senders[i]);
	}
	/* The parse stage forwards known unicast itself: the ports after
	 * its class edges. */
	{
		rte_node_t id = rte_node_from_name("acis_parse");

		rte_node_edge_update(id, ACIS_PARSE_TX_BASE, tx_names,
				     (uint16_t)n_tx);
		if (rte_node_edge_count(id) < ACIS_PARSE_TX_BASE + n_tx)
			return errf(err, len, -EINVAL, "cannot link acis_parse "
				    "to the TX nodes");
	}
	/* The look-aside stage forwards through L2: the edge after the
	 * ports. */
	la_id = rte_node_from_name("acis_lookaside");
	rte_node_edge_update(la_id, (rte_edge_t)(n_tx + 1), &l2_name, 1);
	if (rte_node_edge_count(la_id) < n_tx + 2)
		return errf(err, len, -EINVAL, "cannot link acis_lookaside to "
			    "acis_l2");
	g_la.l2_edge = (uint16_t)(n_tx + 1);
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];
		const char *patterns[3];
		struct rte_graph_param prm;
		uint16_t np = 0;
		rte_graph_t gid;

		if (lc->n_rxq > 0)
			patterns[np++] = "acis_rx";
		if (lc->n_in > 0)
			patterns[np++] = "acis_ring_rx";
		if (lc->worker_index >= 0 && np > 0)
			patterns[np++] = "acis_coll_sweep";
		if (np == 0)
			continue; /* a worker nobody feeds: nothing to run */
		memset(&prm, 0, sizeof(prm));
		prm.socket_id = (int)rte_lcore_to_socket_id(lc->lcore_id);
		prm.nb_node_patterns = np;
		prm.node_patterns = patterns;
		acis_creating_lcore = lc;
		gid = rte_graph_create(lc->graph_name, &prm);
		acis_creating_lcore = NULL;
		if (gid == RTE_GRAPH_ID_INVALID)
			return errf(err, len, -rte_errno, "cannot create the "
				    "stage graph for lcore %u: %s",
				    lc->lcore_id, rte_strerror(rte_errno));
		lc->graph = rte_graph_lookup(lc->graph_name);
	}
	return 0;
}

int
acis_switch_init(struct acis_pipeline *pl, char *err, size_t len)
{
	static const struct rte_mbuf_dynflag answer_flag = {
		.name = "acis_answer",
	};
	unsigned int i;
	uint32_t need;
	uint32_t max_frame = mtu_frame(pl->mtu);
	int rc;

	{
		/* what the switch object is, kept; its state starts afresh */
		struct acis_la_state *la = g_sw.la;
		struct acis_fault_port *fault = g_sw.fault;
		unsigned int index = g_sw.index;

		memset(&g_sw, 0, sizeof(g_sw));
		g_sw.la = la;
		g_sw.fault = fault;
		g_sw.index = index;
	}
	g_sw.pl = pl;
	if (pl->name[0] != '\0') {
		memcpy(g_sw.name, pl->name, sizeof(g_sw.name));
	} else {
		/* the file's name, less its folder and .ini */
		const char *b = strrchr(pl->path, '/');

		b = b != NULL ? b + 1 : pl->path;
		snprintf(g_sw.name, sizeof(g_sw.name), "%.*s",
			 (int)RTE_MIN(strcspn(b, "."), sizeof(g_sw.name) - 1),
			 b);
	}
	/* The collective stage's answers, which TX keeps when a queue
	 * refuses them (acis_tx_hold); without the flag they are dropped
	 * as every other frame is. */
	rc = rte_mbuf_dynflag_register(&answer_flag);
	g_sw.answer_flag = rc >= 0 ? 1ull << rc : 0;
	g_sw.tsc_hz = rte_get_tsc_hz();
	g_sw.start_tsc = rte_rdtsc();
	g_sw.n_ports = pl->n_ports;
	g_sw.n_workers = acis_pipeline_n_workers(pl);
	memcpy(g_sw.ccfg.mac, pl->mac, 6);
	g_sw.ccfg.ip = pl->ip;
	g_sw.ccfg.udp_port = pl->udp_port;
	for (i = 0; i < pl->n_ports; i++)
		if (pl->ports[i].mtu > pl->mtu)
			max_frame = mtu_frame(pl->ports[i].mtu);
	/* a torus's frames carry its header between switches */
	if (pl->torus.on)
		max_frame += ACIS_TORUS_SHIM_LEN;
	g_sw.ccfg.max_frame = max_frame;
	g_sw.ctrl_restricted = pl->n_ctrl_nets != 0 || pl->ctrl_ports != 0;
	for (i = 0; i < pl->n_lookaside; i++)
		if (pl->lookaside[i].match == ACIS_LA_MATCH_UDP)
			g_sw.ccfg.la_ports[g_sw.ccfg.n_la_ports++] =
				pl->lookaside[i].udp_port;
		else if (pl->lookaside[i].match == ACIS_LA_MATCH_DST)
			g_sw.ccfg.la_ips[g_sw.ccfg.n_la_ips++] =
				pl->lookaside[i].dst_ip;

	/* Enough mbufs to fill every descriptor, plus caches and bursts. */
	need = 0;
	for (i = 0; i < pl->n_ports; i++)
		/* a ring pair has no descriptors to fill: its frames are
		 * the sending switch's */
		if (strncmp(pl->ports[i].dev, ACIS_RING_PAIR,
			    strlen(ACIS_RING_PAIR)) != 0)
			need += pl->ports[i].rxd *
				acis_pipeline_port_rx_queues(pl, i) +
				pl->ports[i].txd * g_sw.n_workers;
	need += pl->n_lcores * (pl->mbuf_cache + 4u * pl->burst);
	if (pl->mbufs < need)
		return errf(err, len, -EINVAL, "%s: [switch] mbufs = %u is too "
			    "few for the ports' descriptors and lcore caches "
			    "(need at least %u)", pl->path, pl->mbufs, need);
	/* An open aggregation slot keeps its first contribution's mbuf as
	 * its accumulator, as a held contribution keeps its own. The slots
	 * may hold at most half the mbufs beyond the ports' (shared among
	 * the workers), so collectives that stall cannot take the pool from
	 * forwarding; a slot beyond that copies its first contribution into
	 * its own memory instead. */
	g_sw.lend_max = (pl->mbufs - need) / 2 /
			(g_sw.n_workers != 0 ? g_sw.n_workers : 1);
	/* Contributions held for rank order (float sum and prod) keep
	 * their mbufs too: at most a quarter of the mbufs beyond the
	 * ports', so early arrivals on a large communicator (up to P - 1 a
	 * chunk) cannot take the pool the ports and answers need; beyond
	 * it the highest ranks are sent back (NACK BUSY) and come again. */
	g_sw.hold_max = RTE_MAX((pl->mbufs - need) / 4 /
				(g_sw.n_workers != 0 ? g_sw.n_workers : 1), 16u);
	if ((uint64_t)pl->slots > g_sw.lend_max && g_sw.n_workers != 0)
		printf("acis-switch: warning: %s: [switch] mbufs = %u lets "
		       "%u of each worker's %u aggregation slots keep a "
		       "contribution's mbuf (half the %u beyond the ports' "
		       "%u); the others copy it (raise mbufs for zero "
		       "copy)\n", pl->path, pl->mbufs, g_sw.lend_max,
		       pl->slots, pl->mbufs - need, need);
	/* One segment holds a whole received frame, so stages never walk
	 * chains (the only chained frames are answers the collective stage
	 * builds for TX: headers, then a shared payload segment). */
	g_sw.pool = pool_create(pl->mbufs,
			RTE_MIN(pl->mbuf_cache, (uint32_t)RTE_MEMPOOL_CACHE_MAX_SIZE),
			(uint16_t)(RTE_MAX(RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_DATAROOM,
						   max_frame), pl->mbuf_size) +
				   RTE_PKTMBUF_HEADROOM));
	if (g_sw.pool == NULL)
		return errf(err, len, -rte_errno, "cannot create a pool of %u "
			    "mbufs: %s (reserve more hugepages or lower "
			    "[switch] mbufs)", pl->mbufs,
			    rte_strerror(rte_errno));
	rc = check_umem(err, len);
	if (rc != 0)
		return rc;
	g_sw.l2 = acis_l2_create(pl->table_size, pl->age);
	if (g_sw.l2 == NULL)
		return errf(err, len, -ENOMEM, "cannot create the L2 table");
	for (i = 0; i < pl->n_ports; i++) {
		rc = setup_port(i, err, len);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < pl->n_statics; i++) {
		rc = acis_l2_add_static(g_sw.l2, pl->statics[i].mac,
					pl->statics[i].port);
		if (rc != 0)
			return errf(err, len, rc, "%s:%d: static: cannot install "
				    "(%s)", pl->path, pl->statics[i].line,
				    rc == -ENOSPC ? "its table bucket is full of "
				    "static entries; raise [l2] table_size" :
				    strerror(-rc));
	}
	rc = setup_lcores(err, len);
	if (rc != 0)
		return rc;
	if (acis_tx_hold_init() != 0)
		return errf(err, len, -ENOMEM, "out of memory for the TX "
			    "stage's held answers");
	rc = acis_coll_init(pl, err, len);
	if (rc != 0)
		return rc;
	rc = acis_la_init(pl, err, len);
	if (rc != 0)
		return rc;
	/* ports attached to an FPGA, and fabric links outside the flooding
	 * tree ([port] flood = off): no floods out, nothing learned in */
	g_sw.l2_excluded = g_la.fpga_ports;
	for (i = 0; i < pl->n_ports; i++)
		if (!pl->ports[i].flood)
			g_sw.l2_excluded |= 1u << i;
	rc = acis_fault_init(pl);
	if (rc != 0)
		return errf(err, len, rc, "out of memory for the fault stage");
	rc = acis_rel_init(err, len);
	if (rc != 0)
		return rc;
	rc = acis_torus_sw_init(err, len);
	if (rc != 0)
		return rc;
	return setup_graphs(err, len);
}

void
acis_switch_walk(struct acis_lcore_ctx *lc)
{
	lc->answer_budget = ACIS_ANSWERS_PER_WALK;
	rte_graph_walk(lc->graph);
	if (lc->worker_index >= 0) {
		acis_coll_quiescent(lc);
		acis_la_poll(lc);
		acis_fault_flush(lc);
		if (unlikely(g_sw.n_rel != 0))
			acis_rel_poll(lc);
		if (unlikely(lc->txh_ports != 0))
			acis_tx_hold_flush_all(lc);
		if (unlikely(g_sw.torus != NULL))
			acis_torus_poll(lc);
	}
}

/*
 * An lcore's loop: a walk of each of its switches' graphs in turn, each
 * switch made current first, until the process quits. One lcore serves
 * any number of logical switches; a round that finds no packet anywhere
 * counts as idle.
 */
int
acis_switch_run_lcores(void *arg)
{
	struct acis_lcore_run *run = arg;
	uint32_t idle = 0, sleep_us = 0;
	unsigned int i;

	for (i = 0; i < run->n; i++) {
		struct acis_lcore_ctx *lc = run->lc[i];

		if (lc->graph == NULL)
			continue;
		acis_switch_enter(lc->sw);
		sleep_us = RTE_MAX(sleep_us, g_sw.idle_sleep_us);
		acis_coll_online(lc);
	}
	/* A thread's timer slack (50 us by default) is added to every sleep:
	 * nanosleep(50 us) lasted 130 us on a KVM guest, 88 us with a slack
	 * of 1 us. The sleep is the switch's wake-up latency when traffic
	 * resumes, so it should last what --idle-sleep asked. */
	if (sleep_us != 0 &&
	    prctl(PR_SET_TIMERSLACK, (unsigned long)ACIS_IDLE_SLACK_NS, 0, 0,
		  0) != 0)
		printf("acis-switch: warning: lcore %u: cannot set the timer "
		       "slack to %u ns (%s); its idle sleeps last longer\n",
		       rte_lcore_id(), ACIS_IDLE_SLACK_NS, strerror(errno));
	while (!acis_quit) {
		int busy = 0, holding = 0;

		for (i = 0; i < run->n; i++) {
			struct acis_lcore_ctx *lc = run->lc[i];

			if (lc->graph == NULL)
				continue;
			acis_switch_enter(lc->sw);
			lc->last_rx = 0;
			acis_switch_walk(lc);
			lc->stats.polls++;
			if (lc->last_rx != 0) {
				busy = 1;
				continue;
			}
			lc->stats.idle_polls++;
			holding |= acis_fault_holding(lc) |
				   acis_torus_holding();
		}
		if (busy) {
			idle = 0;
			continue;
		}
		/* Optional back-off for shared test machines: sleeping only
		 * after many empty rounds keeps the busy path syscall-free. */
		if (sleep_us != 0 && ++idle >= 1024 && !holding) {
			struct timespec ts = {0, (long)sleep_us * 1000};

			nanosleep(&ts, NULL);
			idle = 1023;
		}
	}
	for (i = 0; i < run->n; i++) {
		if (run->lc[i]->graph == NULL)
			continue;
		acis_switch_enter(run->lc[i]->sw);
		acis_coll_offline(run->lc[i]);
	}
	return 0;
}

int
acis_switch_run_lcore(void *arg)
{
	struct acis_lcore_run run = {.n = 1, .lc = {arg}};

	return acis_switch_run_lcores(&run);
}

/*
 * memif's regions belong to its clients: each connection maps the
 * client's (memfd, "memif_region_N") into the switch, and every page is
 * a fault when a frame first lands on it: 37 MB of them for a ring of
 * 4096 jumbo buffers, taken while the client's first hundred-odd
 * collectives wait. The supervisor calls this once a second; a region
 * is populated once (the last 64 remembered), off the lcores' path.
 */
void
acis_switch_populate_memif(void)
{
#ifdef MADV_POPULATE_WRITE
	static struct { unsigned long lo, hi; } done[64];
	static unsigned int n_done;
	char line[512];
	FILE *f;

	if (!g_sw.has_memif)
		return;
	f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;
		unsigned int i;

		if (strstr(line, "memif_region") == NULL ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= lo)
			continue;
		for (i = 0; i < RTE_MIN(n_done, RTE_DIM(done)); i++)
			if (done[i].lo == lo && done[i].hi == hi)
				break;
		if (i < RTE_MIN(n_done, RTE_DIM(done)))
			continue;
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
		done[n_done % RTE_DIM(done)].lo = lo;
		done[n_done % RTE_DIM(done)].hi = hi;
		n_done++;
	}
	fclose(f);
#endif
}

void
acis_switch_fini(void)
{
	unsigned int i, j;

	acis_tx_hold_fini();
	acis_rel_fini();
	acis_torus_sw_fini();
	acis_coll_fini();
	acis_la_fini();
	acis_fault_fini();
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];

		if (lc == NULL)
			continue;
		if (lc->graph != NULL)
			rte_graph_destroy(rte_graph_from_name(lc->graph_name));
		for (j = 0; j < lc->n_out; j++)
			rte_ring_free(lc->out[j]);
		lc->n_out = 0;
		rte_free(lc);
		g_sw.lcores[i] = NULL;
	}
	for (i = 0; i < g_sw.n_ports; i++) {
		uint16_t id = g_sw.ports[i].port_id;

		if (!g_sw.ports[i].resolved || !rte_eth_dev_is_valid_port(id))
			continue;
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
	}
	acis_l2_free(g_sw.l2);
	g_sw.l2 = NULL;
	/* Logical switches hold each other's mbufs (frames that crossed a
	 * ring pair): their pools go once every switch is finished. */
	if (acis_n_switches == 1)
		acis_switch_pool_free();
}

void
acis_switch_pool_free(void)
{
	rte_mempool_free(g_sw.pool);
	g_sw.pool = NULL;
}
