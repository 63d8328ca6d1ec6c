/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: summed over lcores on demand (each lcore writes only its own),
 * printed at exit, and served live over DPDK telemetry under /acis/.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "acis_xdp.h"
#include "switch.h"

void
acis_stats_sum(struct acis_lcore_stats *out)
{
	unsigned int i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < g_sw.n_lcores; i++) {
		const uint64_t *src;
		uint64_t *dst = (uint64_t *)out;

		if (g_sw.lcores[i] == NULL)
			continue;
		src = (const uint64_t *)&g_sw.lcores[i]->stats;
		for (k = 0; k < sizeof(*out) / sizeof(uint64_t); k++)
			dst[k] += src[k];
	}
}

/* Which checksums port i's device verifies on receive. */
static const char *
csum_offload_name(unsigned int i)
{
	static const char *const names[] = {"software", "ipv4", "udp",
					    "ipv4,udp"};

	return names[((g_sw.csum_ip_ports >> i) & 1) |
		     ((g_sw.csum_l4_ports >> i) & 1) << 1];
}

static uint64_t
drops_total(const struct acis_lcore_stats *s)
{
	uint64_t t = 0;
	unsigned int r;

	for (r = 1; r < ACIS_DROP_MAX; r++)
		t += s->drops[r];
	return t;
}

/* A port's ethdev counters and link (either may be NULL); a ring pair,
 * no ethdev, has none but its link state. */
static void
port_eth(unsigned int i, struct rte_eth_stats *es, struct rte_eth_link *link)
{
	const struct acis_port_rt *pr = &g_sw.ports[i];

	if (es != NULL)
		memset(es, 0, sizeof(*es));
	if (link != NULL)
		memset(link, 0, sizeof(*link));
	if (pr->ring_out != NULL) {
		if (link != NULL)
			link->link_status = !pr->ring_down;
		return;
	}
	if (es != NULL)
		rte_eth_stats_get(pr->port_id, es);
	if (link != NULL)
		rte_eth_link_get_nowait(pr->port_id, link);
}

void
acis_stats_print(FILE *f)
{
	struct acis_lcore_stats s;
	unsigned int i;

	acis_stats_sum(&s);
	fprintf(f, "\n%-12s %-24s %12s %14s %12s %14s %10s\n", "port",
		"device", "rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes",
		"missed");
	for (i = 0; i < g_sw.n_ports; i++) {
		struct rte_eth_stats es;

		port_eth(i, &es, NULL);
		fprintf(f, "%-12s %-24s %12" PRIu64 " %14" PRIu64 " %12" PRIu64
			" %14" PRIu64 " %10" PRIu64 "\n",
			g_sw.pl->ports[i].name, g_sw.ports[i].ethdev_name,
			s.port_rx_pkts[i], s.port_rx_bytes[i],
			s.port_tx_pkts[i], s.port_tx_bytes[i], es.imissed);
	}
	fprintf(f, "\nstage packets:");
	for (i = 0; i < ACIS_STAGE_MAX; i++)
		fprintf(f, " %s=%" PRIu64, acis_stage_names[i],
			s.stage_pkts[i]);
	fprintf(f, "\nl2: flooded=%" PRIu64 " flood_copies=%" PRIu64
		" learned=%" PRIu64 "  local: arp_replies=%" PRIu64
		" icmp_replies=%" PRIu64 "\n", s.flooded, s.flood_copies,
		s.learned, s.arp_replies, s.icmp_replies);
	fprintf(f, "drops: total=%" PRIu64, drops_total(&s));
	for (i = 1; i < ACIS_DROP_MAX; i++)
		if (s.drops[i] != 0)
			fprintf(f, " %s=%" PRIu64, acis_drop_name(i),
				s.drops[i]);
	fprintf(f, "\n");
	if (g_sw.coll.ct != NULL) {
		struct acis_coll_stats c;
		struct acis_agg_stats a;
		uint64_t held = 0, held_sent = 0;

		acis_coll_stats_sum(&c, &a);
		for (i = 0; i < g_sw.n_ports; i++) {
			held += s.port_tx_held[i];
			held_sent += s.port_tx_held_sent[i];
		}
		/* every answer the collective stage owed: sent, or said
		 * here why not */
		fprintf(f, "collective: results=%" PRIu64 " acks=%" PRIu64
			" nacks=%" PRIu64 " ctrl_acks=%" PRIu64
			" answers_resent=%" PRIu64 " fanouts_deferred=%" PRIu64
			" fanouts_pending=%u answers_sent_late=%" PRIu64
			" answers_dropped=%" PRIu64 " tx_nombuf=%" PRIu64
			" tx_held=%" PRIu64 " tx_held_sent=%" PRIu64
			" held_refused=%" PRIu64 "\n",
			c.results, c.acks, c.nacks, c.ctrl_acks,
			c.answers_resent, c.fanouts_deferred,
			acis_coll_fanouts_pending(), c.answers_sent_late,
			c.answers_dropped, c.nombuf, held, held_sent,
			c.held_refused);
	}
}

/* ---- telemetry ---- */

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char buf[64];
	const uint8_t *m = g_sw.pl->mac;
	struct in_addr ip = {.s_addr = g_sw.pl->ip};

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", ACIS_VERSION);
	rte_tel_data_add_dict_string(d, "name", g_sw.name);
	rte_tel_data_add_dict_string(d, "pipeline", g_sw.pl->path);
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
		 m[2], m[3], m[4], m[5]);
	rte_tel_data_add_dict_string(d, "mac", buf);
	inet_ntop(AF_INET, &ip, buf, sizeof(buf));
	rte_tel_data_add_dict_string(d, "ip", buf);
	rte_tel_data_add_dict_u64(d, "udp_port", g_sw.pl->udp_port);
	rte_tel_data_add_dict_u64(d, "ports", g_sw.n_ports);
	rte_tel_data_add_dict_u64(d, "lcores", g_sw.n_lcores);
	rte_tel_data_add_dict_u64(d, "workers", g_sw.n_workers);
	rte_tel_data_add_dict_u64(d, "uptime_sec", acis_now_sec());
	rte_tel_data_add_dict_u64(d, "mbufs", g_sw.pool->size);
	rte_tel_data_add_dict_u64(d, "mbufs_in_use",
				  rte_mempool_in_use_count(g_sw.pool));
	return 0;
}

/* An AF_XDP port's sockets as the kernel counts them: what it refused
 * or could not deliver, which the PMD's counters do not show. */
static void
tel_xsk(struct rte_tel_data *p, const struct acis_port_rt *pr)
{
	struct acis_xsk_stats x;

	acis_xdp_socket_stats(pr->xsk, pr->n_xsk, &x);
	rte_tel_data_add_dict_u64(p, "xsk_sockets", x.sockets);
	rte_tel_data_add_dict_u64(p, "xsk_rx_dropped", x.rx_dropped);
	rte_tel_data_add_dict_u64(p, "xsk_rx_invalid_descs",
				  x.rx_invalid_descs);
	rte_tel_data_add_dict_u64(p, "xsk_tx_invalid_descs",
				  x.tx_invalid_descs);
	rte_tel_data_add_dict_u64(p, "xsk_rx_ring_full", x.rx_ring_full);
	rte_tel_data_add_dict_u64(p, "xsk_fill_ring_empty", x.fill_ring_empty);
	rte_tel_data_add_dict_u64(p, "xsk_tx_ring_empty", x.tx_ring_empty);
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_lcore_stats s;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	acis_stats_sum(&s);
	rte_tel_data_start_dict(d);
	for (i = 0; i < g_sw.n_ports; i++) {
		struct rte_tel_data *p = rte_tel_data_alloc();
		struct rte_eth_stats es;
		struct rte_eth_link link;

		if (p == NULL)
			return -ENOMEM;
		port_eth(i, &es, &link);
		rte_tel_data_start_dict(p);
		rte_tel_data_add_dict_string(p, "device",
					     g_sw.ports[i].ethdev_name);
		rte_tel_data_add_dict_u64(p, "port_id", g_sw.ports[i].port_id);
		rte_tel_data_add_dict_u64(p, "link_up", link.link_status);
		rte_tel_data_add_dict_u64(p, "rx_queues", g_sw.ports[i].n_rxq);
		rte_tel_data_add_dict_u64(p, "tx_queues", g_sw.ports[i].n_txq);
		rte_tel_data_add_dict_u64(p, "rx_pkts", s.port_rx_pkts[i]);
		rte_tel_data_add_dict_u64(p, "rx_bytes", s.port_rx_bytes[i]);
		rte_tel_data_add_dict_u64(p, "tx_pkts", s.port_tx_pkts[i]);
		rte_tel_data_add_dict_u64(p, "tx_bytes", s.port_tx_bytes[i]);
		rte_tel_data_add_dict_string(p, "rx_checksum",
			csum_offload_name(i));
		rte_tel_data_add_dict_u64(p, "rx_csum_good",
					  s.port_csum_good[i]);
		rte_tel_data_add_dict_u64(p, "rx_csum_bad", s.port_csum_bad[i]);
		rte_tel_data_add_dict_u64(p, "tx_held", s.port_tx_held[i]);
		rte_tel_data_add_dict_u64(p, "tx_held_sent",
					  s.port_tx_held_sent[i]);
		rte_tel_data_add_dict_u64(p, "eth_ipackets", es.ipackets);
		rte_tel_data_add_dict_u64(p, "eth_opackets", es.opackets);
		rte_tel_data_add_dict_u64(p, "eth_imissed", es.imissed);
		rte_tel_data_add_dict_u64(p, "eth_ierrors", es.ierrors);
		rte_tel_data_add_dict_u64(p, "eth_oerrors", es.oerrors);
		rte_tel_data_add_dict_u64(p, "eth_rx_nombuf", es.rx_nombuf);
		if (g_sw.ports[i].n_xsk != 0)
			tel_xsk(p, &g_sw.ports[i]);
		if (g_sw.ports[i].ring_in != NULL) {
			/* frames waiting in the link's rings, each way */
			rte_tel_data_add_dict_u64(p, "ring_in_waiting",
				rte_ring_count(g_sw.ports[i].ring_in));
			rte_tel_data_add_dict_u64(p, "ring_out_waiting",
				rte_ring_count(g_sw.ports[i].ring_out));
		}
		rte_tel_data_add_dict_container(d, g_sw.pl->ports[i].name, p, 0);
	}
	return 0;
}

static int
tel_stages(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_lcore_stats s;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	acis_stats_sum(&s);
	rte_tel_data_start_dict(d);
	for (i = 0; i < ACIS_STAGE_MAX; i++)
		rte_tel_data_add_dict_u64(d, acis_stage_names[i],
					  s.stage_pkts[i]);
	rte_tel_data_add_dict_u64(d, "l2_flooded", s.flooded);
	rte_tel_data_add_dict_u64(d, "l2_flood_copies", s.flood_copies);
	rte_tel_data_add_dict_u64(d, "l2_learned", s.learned);
	rte_tel_data_add_dict_u64(d, "local_arp_replies", s.arp_replies);
	rte_tel_data_add_dict_u64(d, "local_arp_in", s.arp_in);
	rte_tel_data_add_dict_u64(d, "local_icmp_replies", s.icmp_replies);
	return 0;
}

static int
tel_drops(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_lcore_stats s;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	acis_stats_sum(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "total", drops_total(&s));
	for (i = 1; i < ACIS_DROP_MAX; i++)
		rte_tel_data_add_dict_u64(d, acis_drop_name(i), s.drops[i]);
	return 0;
}

static int
tel_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	for (i = 0; i < g_sw.n_lcores; i++) {
		const struct acis_lcore_ctx *lc = g_sw.lcores[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[32];

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "role",
			lc->roles == (ACIS_ROLE_RX | ACIS_ROLE_WORKER) ?
			"rx worker" : lc->roles == ACIS_ROLE_RX ? "rx" :
			"worker");
		rte_tel_data_add_dict_u64(c, "rx_queues", lc->n_rxq);
		rte_tel_data_add_dict_u64(c, "handoff_out", lc->n_out);
		rte_tel_data_add_dict_u64(c, "handoff_in", lc->n_in);
		rte_tel_data_add_dict_u64(c, "rx_pkts",
					  lc->stats.stage_pkts[ACIS_STAGE_RX]);
		rte_tel_data_add_dict_u64(c, "tx_pkts",
					  lc->stats.stage_pkts[ACIS_STAGE_TX]);
		rte_tel_data_add_dict_u64(c, "rx_direct", lc->stats.rx_direct);
		rte_tel_data_add_dict_u64(c, "polls", lc->stats.polls);
		rte_tel_data_add_dict_u64(c, "idle_polls", lc->stats.idle_polls);
		snprintf(name, sizeof(name), "lcore%u", lc->lcore_id);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	return 0;
}

struct l2_walk_arg {
	struct rte_tel_data *d;
	unsigned int n;
};

static int
l2_entry(const struct acis_l2_entry_view *v, void *arg)
{
	struct l2_walk_arg *a = arg;
	char val[96];

	/* Telemetry arrays hold a bounded number of items; the walk stops
	 * there and entries_listed says how many were shown. MACs contain
	 * ':', which telemetry refuses in names, so entries are strings. */
	if (a->n >= RTE_TEL_MAX_ARRAY_ENTRIES)
		return 1;
	snprintf(val, sizeof(val), "%02x:%02x:%02x:%02x:%02x:%02x %s %s age=%u",
		 v->mac[0], v->mac[1], v->mac[2], v->mac[3], v->mac[4],
		 v->mac[5],
		 g_sw.pl->ports[v->port < g_sw.n_ports ? v->port : 0].name,
		 v->is_static ? "static" : "learned", v->age);
	rte_tel_data_add_array_string(a->d, val);
	a->n++;
	return 0;
}

static int
tel_l2(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_l2_stats st;
	struct rte_tel_data *t = rte_tel_data_alloc();
	struct l2_walk_arg a = {.d = t, .n = 0};
	unsigned int live;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (t == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(t, RTE_TEL_STRING_VAL);
	live = acis_l2_walk(g_sw.l2, acis_now_sec(), l2_entry, &a);
	acis_l2_get_stats(g_sw.l2, &st);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "capacity", acis_l2_capacity(g_sw.l2));
	rte_tel_data_add_dict_u64(d, "entries_listed", live);
	rte_tel_data_add_dict_u64(d, "age_sec", g_sw.pl->age);
	rte_tel_data_add_dict_u64(d, "learned", st.learned);
	rte_tel_data_add_dict_u64(d, "moved", st.moved);
	rte_tel_data_add_dict_u64(d, "evicted", st.evicted);
	rte_tel_data_add_dict_u64(d, "static_conflicts", st.static_conflicts);
	rte_tel_data_add_dict_container(d, "table", t, 0);
	return 0;
}

int
acis_tel_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

/* /acis/port/link,PORT,up|down: take a port's link down or up (e.g. to
 * see a proxy rule's fallback when the FPGA behind it goes away). */
static int
tel_port_link(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char buf[128];
	char *comma;
	struct rte_eth_link link;
	int idx, rc;

	RTE_SET_USED(cmd);
	if (params == NULL || strlen(params) >= sizeof(buf) ||
	    (comma = strchr(strcpy(buf, params), ',')) == NULL)
		return acis_tel_error(d, "expected PORT,up or PORT,down");
	*comma++ = '\0';
	idx = acis_pipeline_port_index(g_sw.pl, buf);
	if (idx < 0)
		return acis_tel_error(d, "unknown port '%.64s'", buf);
	if (strcmp(comma, "up") != 0 && strcmp(comma, "down") != 0)
		return acis_tel_error(d, "expected up or down after '%.64s'",
				      buf);
	if (g_sw.ports[idx].ring_out != NULL) {
		/* a ring pair: this end neither sends nor takes while down */
		g_sw.ports[idx].ring_down = comma[0] != 'u';
		rc = 0;
	} else {
		rc = comma[0] == 'u' ?
		     rte_eth_dev_set_link_up(g_sw.ports[idx].port_id) :
		     rte_eth_dev_set_link_down(g_sw.ports[idx].port_id);
	}
	if (rc != 0)
		return acis_tel_error(d, "%.32s: cannot set the link %.4s: "
				      "%.60s", buf, comma, rte_strerror(-rc));
	port_eth((unsigned int)idx, NULL, &link);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "port", buf);
	rte_tel_data_add_dict_string(d, "link", link.link_status ? "up" : "down");
	return 0;
}

/*
 * Every /acis command goes through one dispatcher, which makes the switch
 * the command names current: a first parameter "@SWITCH" names it
 * (acisctl -n SWITCH), else the process's first switch answers.
 */
#define TEL_CMDS_MAX 64

static struct {
	const char *cmd;
	telemetry_cb fn;
} tel_cmds[TEL_CMDS_MAX];
static unsigned int n_tel_cmds;

static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_switch *sw = acis_switches[0];
	char name[ACIS_NAME_LEN];
	unsigned int i;

	for (i = 0; i < n_tel_cmds; i++)
		if (strcmp(tel_cmds[i].cmd, cmd) == 0)
			break;
	if (i == n_tel_cmds)
		return -1;
	if (params != NULL && params[0] == '@') {
		size_t n = strcspn(params + 1, ",");

		if (n == 0 || n >= sizeof(name))
			return acis_tel_error(d, "expected @SWITCH, a switch's "
					      "name, as the first parameter");
		memcpy(name, params + 1, n);
		name[n] = '\0';
		sw = acis_switch_by_name(name);
		if (sw == NULL)
			return acis_tel_error(d, "no switch '%s' in this "
					      "process (/acis/switches lists "
					      "them)", name);
		params = params[1 + n] == ',' && params[2 + n] != '\0' ?
			 params + 2 + n : NULL;
	}
	acis_switch_enter(sw);
	return tel_cmds[i].fn(cmd, params, d);
}

int
acis_tel_register(const char *cmd, telemetry_cb fn, const char *help)
{
	if (n_tel_cmds == TEL_CMDS_MAX)
		return -ENOSPC;
	tel_cmds[n_tel_cmds].cmd = cmd;
	tel_cmds[n_tel_cmds].fn = fn;
	n_tel_cmds++;
	return rte_telemetry_register_cmd(cmd, tel_dispatch, help);
}

/* Switches one /acis/switches reply lists: DPDK's replies hold 16 KiB. */
#define TEL_SWITCHES_PAGE 100

/* /acis/switches[,FROM]: the process's switches, in the order they
 * started, from index FROM (0), a hundred a reply; "more" gives the
 * next reply's FROM when there are more. */
static int
tel_switches(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i, from = 0;
	char *end;

	RTE_SET_USED(cmd);
	if (params != NULL) {
		unsigned long v = strtoul(params, &end, 10);

		if (end == params || *end != '\0' || v >= acis_n_switches)
			return acis_tel_error(d, "expected FROM, a switch's "
					      "index below %u", acis_n_switches);
		from = (unsigned int)v;
	}
	rte_tel_data_start_dict(d);
	for (i = from; i < acis_n_switches; i++) {
		if (i == from + TEL_SWITCHES_PAGE) {
			rte_tel_data_add_dict_u64(d, "more", i);
			break;
		}
		const struct acis_switch *sw = acis_switches[i];
		struct rte_tel_data *e = rte_tel_data_alloc();
		struct in_addr ip = {.s_addr = sw->ccfg.ip};
		char buf[INET_ADDRSTRLEN];

		if (e == NULL || sw->pl == NULL) {
			rte_tel_data_free(e);
			continue;
		}
		rte_tel_data_start_dict(e);
		rte_tel_data_add_dict_u64(e, "index", i);
		inet_ntop(AF_INET, &ip, buf, sizeof(buf));
		rte_tel_data_add_dict_string(e, "ip", buf);
		rte_tel_data_add_dict_u64(e, "ports", sw->n_ports);
		rte_tel_data_add_dict_u64(e, "lcores", sw->n_lcores);
		rte_tel_data_add_dict_string(e, "pipeline", sw->pl->path);
		rte_tel_data_add_dict_container(d, sw->name, e, 0);
	}
	return 0;
}

int
acis_telemetry_register(void)
{
	int rc = 0;

	rc |= acis_tel_register("/acis/switches", tel_switches,
		"The process's switches (names for @SWITCH), 100 a reply; FROM: "
		"from that index (\"more\" gives the next)");
	rc |= acis_tel_register("/acis/info", tel_info,
		"Switch identity, pipeline and uptime. No parameters");
	rc |= acis_tel_register("/acis/ports", tel_ports,
		"Per-port packet and byte counters with ethdev stats. No parameters");
	rc |= acis_tel_register("/acis/port/link", tel_port_link,
		"Set a port's link. Parameters: PORT,up or PORT,down");
	rc |= acis_tel_register("/acis/stages", tel_stages,
		"Packets through each pipeline stage. No parameters");
	rc |= acis_tel_register("/acis/drops", tel_drops,
		"Dropped packets by reason. No parameters");
	rc |= acis_tel_register("/acis/lcores", tel_lcores,
		"Per-lcore role, queues and poll counters. No parameters");
	rc |= acis_tel_register("/acis/l2", tel_l2,
		"MAC table entries and learning counters. No parameters");
	return rc;
}
