/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The torus stage (torus.h, doc/torus.md): host-to-host frames routed
 * hop by hop across a torus or mesh of switches with lib/torus.
 *
 * The header, after the frame's MAC addresses (12 bytes; the frame's
 * own EtherType follows it):
 *   0  EtherType 0x88B6
 *   2  version (high 4 bits) and type (low 4; 0 unicast)
 *   3  route: misc (bits 0-2: O1TURN's order, RLB's ways), dateline
 *      classes (bits 3-5)
 *   4  destination node (16 bits), 6 source node (16 bits)
 *   8  hops taken, 9 the algorithm chosen at injection
 *  10  injection time, router cycles (15 bits; oldest-first's stamp)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "switch.h"
#include "torus.h"

/* The router clock (seed 000): 160 MHz, 6.25 ns a cycle. */
#define ROUTER_HZ 160000000ull

static int
host_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
acis_torus_sw_init(char *err, size_t len)
{
	const struct acis_pipeline *pl = g_sw.pl;
	const struct acis_torus_cfg *tc = &pl->torus;
	struct acis_torus_sw *ts;
	unsigned int i, d, others = 0;
	int rc;

	g_sw.torus = NULL;
	if (!tc->on)
		return 0;
	ts = rte_zmalloc("acis_torus", sizeof(*ts), RTE_CACHE_LINE_SIZE);
	if (ts == NULL)
		return acis_errf(err, len, -ENOMEM, "out of memory for the "
				 "torus stage");
	rc = acis_torus_init(&ts->t, tc->k[0], tc->k[1], tc->k[2], tc->mesh);
	if (rc != 0) {
		rte_free(ts);
		return acis_errf(err, len, rc, "%s: [torus]: dims %ux%ux%u "
				 "refused", pl->path, tc->k[0], tc->k[1],
				 tc->k[2]);
	}
	memcpy(ts->self.c, tc->coord, 3);
	ts->node = (uint32_t)acis_torus_node(&ts->t, &ts->self);
	ts->algo = tc->routing;
	memcpy(ts->dir_port, tc->dir_port, sizeof(ts->dir_port));
	for (d = 1; d <= ACIS_TORUS_PORTS; d++)
		if (ts->dir_port[d] != UINT16_MAX)
			ts->port_dir[ts->dir_port[d]] = (uint8_t)d;
	ts->host_port = UINT16_MAX;
	for (i = 0; i < pl->n_ports; i++)
		if (ts->port_dir[i] == 0) {
			ts->host_port = (uint16_t)i;
			others++;
		}
	if (others != 1)
		ts->host_port = UINT16_MAX;
	for (i = 0; i < tc->n_hosts; i++) {
		struct acis_torus_coord c;

		memcpy(c.c, tc->hosts[i].coord, 3);
		ts->hosts[i].mac = acis_mac48(tc->hosts[i].mac);
		ts->hosts[i].node = (uint32_t)acis_torus_node(&ts->t, &c);
	}
	ts->n_hosts = tc->n_hosts;
	qsort(ts->hosts, ts->n_hosts, sizeof(ts->hosts[0]), host_cmp);
	for (i = 1; i < ts->n_hosts; i++)
		if (ts->hosts[i].mac == ts->hosts[i - 1].mac) {
			rte_free(ts);
			return acis_errf(err, len, -EINVAL, "%s: [torus]: a "
					 "host's MAC given twice", pl->path);
		}
	for (i = 0; i < ACIS_MAX_LCORES; i++)
		acis_torus_rng_seed(&ts->rng[i],
				    ((uint64_t)tc->seed << 32) ^
				    ((uint64_t)ts->node << 8) ^ i);
	ts->cycles_per_tick = (uint64_t)(((unsigned __int128)ROUTER_HZ << 32) /
					 rte_get_tsc_hz());
	g_sw.torus = ts;
	return 0;
}

void
acis_torus_sw_fini(void)
{
	rte_free(g_sw.torus);
	g_sw.torus = NULL;
}

/* The node host mac sits at, or -1. */
static inline int64_t
host_node(const struct acis_torus_sw *ts, uint64_t mac)
{
	unsigned int lo = 0, hi = ts->n_hosts;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ts->hosts[mid].mac == mac)
			return ts->hosts[mid].node;
		if (ts->hosts[mid].mac < mac)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Now on the router clock, 15 bits: TSC ticks times router cycles a
 * tick (2^32 fixed point, set at start-up), no division a frame. */
static inline uint16_t
router_stamp(const struct acis_torus_sw *ts)
{
	return (uint16_t)(((unsigned __int128)rte_rdtsc() *
			   ts->cycles_per_tick) >> 32) & ACIS_TORUS_STAMP_MASK;
}

/* Route a frame with its header at h one hop from this node: the output
 * port, or ACIS_TORUS_DROP. arrived: the direction it came in by (0:
 * from the host). */
static inline int
route(struct acis_torus_sw *ts, struct acis_torus_counters *c,
      struct acis_torus_rng *rng, struct rte_mbuf *m, uint8_t *h,
      unsigned int arrived)
{
	struct acis_torus_route r;
	struct acis_torus_coord dst;
	uint32_t dnode = rte_be_to_cpu_16(*(unaligned_uint16_t *)(h + 4));
	int dir;

	if (unlikely(h[9] >= ACIS_TORUS_ALGOS ||
		     acis_torus_coord(&ts->t, dnode, &dst) != 0)) {
		c->bad_header++;
		acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		return ACIS_TORUS_DROP;
	}
	r.misc = h[3] & 7;
	r.cls = (h[3] >> 3) & 7;
	r.prev = (uint8_t)(arrived ? acis_torus_dir_opposite(arrived) :
			   ACIS_TORUS_LOCAL);
	dir = acis_torus_route(&ts->t, &ts->self, &dst, &r,
			       (enum acis_torus_algo)h[9], NULL, rng);
	if (unlikely(dir < 0)) {
		if (dir == -EPERM) {
			c->illegal_turns++;
			acis_set_drop(m, ACIS_DROP_TORUS_ILLEGAL_TURN);
		} else {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		}
		return ACIS_TORUS_DROP;
	}
	if (unlikely(dir == ACIS_TORUS_LOCAL || ts->dir_port[dir] == UINT16_MAX)) {
		/* at its node already (a header naming this node), or a
		 * mesh's edge: neither is a frame this node should route */
		c->bad_header++;
		acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
		return ACIS_TORUS_DROP;
	}
	/* the wrap link between node k - 1 and node 0 of a ring */
	if (!ts->t.mesh) {
		unsigned int dim = acis_torus_dir_dim((unsigned int)dir);

		if (acis_torus_dir_neg((unsigned int)dir) ?
		    ts->self.c[dim] == 0 :
		    ts->self.c[dim] == ts->t.k[dim] - 1)
			c->dateline++;
	}
	h[3] = (uint8_t)((r.misc & 7) | ((r.cls & 7) << 3));
	h[8]++;
	c->out[dir - 1]++;
	return ts->dir_port[dir];
}

int
acis_torus_forward(struct acis_lcore_ctx *lc, struct rte_mbuf *m, uint16_t in)
{
	struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters *c = &ts->c[lc->index];
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned int arrived = ts->port_dir[in];
	uint8_t *h;

	if (rte_pktmbuf_data_len(m) >= 14 + ACIS_TORUS_SHIM_LEN &&
	    eth[12] == (ACIS_TORUS_ETHERTYPE >> 8) &&
	    eth[13] == (ACIS_TORUS_ETHERTYPE & 0xff)) {
		uint32_t dnode;

		h = eth + 12;
		if (unlikely((h[2] >> 4) != ACIS_TORUS_VERSION ||
			     (h[2] & 0x0f) != 0 || arrived == 0)) {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
			return ACIS_TORUS_DROP;
		}
		dnode = rte_be_to_cpu_16(*(unaligned_uint16_t *)(h + 4));
		if (dnode != ts->node) {
			c->transit++;
			return route(ts, c, &ts->rng[lc->index], m, h, arrived);
		}
		/* at its node: the header off, the frame to its host */
		c->ejected++;
		c->hops += h[8];
		if (h[8] > c->hops_max)
			c->hops_max = h[8];
		memmove(eth + ACIS_TORUS_SHIM_LEN, eth, 12);
		rte_pktmbuf_adj(m, ACIS_TORUS_SHIM_LEN);
		if (ts->host_port != UINT16_MAX)
			return ts->host_port;
		return ACIS_TORUS_NOT_MINE;
	}
	/* a host's unicast frame to a host of another node */
	if (arrived != 0 || (eth[0] & 1) || rte_pktmbuf_data_len(m) < 14) {
		return ACIS_TORUS_NOT_MINE;
	} else {
		int64_t dn = host_node(ts, acis_mac48(eth));
		struct acis_torus_route r;
		struct acis_torus_coord dst;

		if (dn < 0 || (uint32_t)dn == ts->node)
			return ACIS_TORUS_NOT_MINE;
		if (unlikely(!RTE_MBUF_DIRECT(m) ||
			     rte_mbuf_refcnt_read(m) != 1 ||
			     rte_pktmbuf_headroom(m) < ACIS_TORUS_SHIM_LEN)) {
			c->no_room++;
			acis_set_drop(m, ACIS_DROP_TORUS_NO_ROOM);
			return ACIS_TORUS_DROP;
		}
		acis_torus_coord(&ts->t, (uint32_t)dn, &dst);
		if (acis_torus_inject(&ts->t, &ts->self, &dst,
				      (enum acis_torus_algo)ts->algo,
				      &ts->rng[lc->index], &r) != 0) {
			c->bad_header++;
			acis_set_drop(m, ACIS_DROP_TORUS_BAD_HEADER);
			return ACIS_TORUS_DROP;
		}
		eth = (uint8_t *)rte_pktmbuf_prepend(m, ACIS_TORUS_SHIM_LEN);
		if (unlikely(eth == NULL)) {
			c->no_room++;
			acis_set_drop(m, ACIS_DROP_TORUS_NO_ROOM);
			return ACIS_TORUS_DROP;
		}
		memmove(eth, eth + ACIS_TORUS_SHIM_LEN, 12);
		h = eth + 12;
		h[0] = ACIS_TORUS_ETHERTYPE >> 8;
		h[1] = ACIS_TORUS_ETHERTYPE & 0xff;
		h[2] = ACIS_TORUS_VERSION << 4;
		h[3] = (uint8_t)(r.misc & 7);
		*(unaligned_uint16_t *)(h + 4) = rte_cpu_to_be_16((uint16_t)dn);
		*(unaligned_uint16_t *)(h + 6) =
			rte_cpu_to_be_16((uint16_t)ts->node);
		h[8] = 0;
		h[9] = ts->algo;
		*(unaligned_uint16_t *)(h + 10) =
			rte_cpu_to_be_16(router_stamp(ts));
		c->injected++;
		return route(ts, c, &ts->rng[lc->index], m, h, 0);
	}
}

/* /acis/torus: the node, its algorithm and every counter, summed over
 * the lcores */
static int
tel_torus(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct acis_torus_sw *ts = g_sw.torus;
	struct acis_torus_counters s;
	static const char *const dirs[] = {"out_xp", "out_xm", "out_yp",
					   "out_ym", "out_zp", "out_zm"};
	unsigned int i, k;
	char place[32];

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	if (ts == NULL) {
		rte_tel_data_add_dict_string(d, "torus", "off");
		return 0;
	}
	memset(&s, 0, sizeof(s));
	for (i = 0; i < ACIS_MAX_LCORES; i++) {
		const struct acis_torus_counters *c = &ts->c[i];

		s.injected += c->injected;
		s.transit += c->transit;
		s.ejected += c->ejected;
		s.hops += c->hops;
		s.hops_max = RTE_MAX(s.hops_max, c->hops_max);
		s.illegal_turns += c->illegal_turns;
		s.bad_header += c->bad_header;
		s.no_room += c->no_room;
		s.dateline += c->dateline;
		for (k = 0; k < ACIS_TORUS_PORTS; k++)
			s.out[k] += c->out[k];
	}
	snprintf(place, sizeof(place), "%u,%u,%u", ts->self.c[0],
		 ts->self.c[1], ts->self.c[2]);
	rte_tel_data_add_dict_string(d, "coord", place);
	snprintf(place, sizeof(place), "%ux%ux%u %s", ts->t.k[0], ts->t.k[1],
		 ts->t.k[2], ts->t.mesh ? "mesh" : "torus");
	rte_tel_data_add_dict_string(d, "dims", place);
	rte_tel_data_add_dict_u64(d, "node", ts->node);
	rte_tel_data_add_dict_string(d, "routing",
				     acis_torus_algo_name(ts->algo));
	rte_tel_data_add_dict_u64(d, "hosts", ts->n_hosts);
#define X(f) rte_tel_data_add_dict_u64(d, #f, s.f)
	X(injected); X(transit); X(ejected); X(hops); X(hops_max);
	X(illegal_turns); X(bad_header); X(no_room); X(dateline);
#undef X
	for (k = 0; k < ACIS_TORUS_PORTS; k++)
		rte_tel_data_add_dict_u64(d, dirs[k], s.out[k]);
	return 0;
}

int
acis_torus_telemetry_register(void)
{
	return acis_tel_register("/acis/torus", tel_torus,
		"The torus stage: the node, its routing, frames injected, "
		"routed on and delivered, hops, illegal turns. No parameters");
}
