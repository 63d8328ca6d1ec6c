/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-fabric: check a topology file and show what acis computes from it
 * (doc/fabric.md).
 *
 *   acis-fabric check FILE           the switches, links and hosts, or the
 *                                    first fault (file:line: ...), exit 1
 *   acis-fabric routes FILE          every switch's port toward every other
 *                                    and the hops, the flooding ports
 *   acis-fabric tree FILE HOST...    the aggregation tree of a communicator
 *                                    of those hosts (all: every host)
 *   acis-fabric list FILE            switches (name, address, MAC), hosts
 *                                    and links, one a line, for scripts
 *   acis-fabric torus DIMS [mesh] [hosts=N] [profile=NAME]
 *                                    a k-ary n-cube's topology file (e.g.
 *                                    4x4x4): switches at coordinates, six
 *                                    fabric ports and a host port each
 *   acis-fabric chain|binomial|star N [profile=NAME]
 *                                    a fabric shaped as one of the MPE's
 *                                    collective trees, a host a switch
 *   acis-fabric pipeline FILE SWITCH [PLACEMENT]
 *                                    the pipeline file of one switch, for
 *                                    the file's placement or the one given
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_conf.h"
#include "acis_fabric.h"
#include "acis_pipeline.h"
#include "acis_torus.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: acis-fabric check FILE\n"
		   "       acis-fabric routes FILE\n"
		   "       acis-fabric tree FILE HOST... | all\n"
		   "       acis-fabric fold FILE HOST... | all\n"
		   "       acis-fabric list FILE\n"
		   "       acis-fabric pipeline FILE SWITCH [logical|process|machine]\n"
		   "       acis-fabric torus DIMS [mesh] [hosts=N] [profile=NAME]\n"
		   "       acis-fabric chain|binomial|star N [profile=NAME]\n");
}

static void
show(const struct acis_fabric *f)
{
	unsigned int a, p;

	printf("%s: %u switches, %u links, %u hosts, placement %s\n",
	       f->name[0] ? f->name : "(no name)", f->n_switches, f->n_links,
	       f->n_hosts, acis_fabric_placement_name(f->placement));
	if (f->profile[0] != '\0')
		printf("  profile %s (%s): links %g Mbit/s, %g us a hop "
		       "(sd %g), %g us at each host; dilation %g: divide "
		       "measured times by %g for the platform's\n",
		       f->profile, f->profile_source[0] ? f->profile_source :
		       "no source given", f->rate_mbps, f->hop_us,
		       f->jitter_us, f->host_us, f->dilation, f->dilation);
	if (f->direct_k[0] != 0)
		printf("  %s %ux%ux%u: host to host frames routed %s, hop by "
		       "hop (doc/torus.md)\n", f->direct_mesh ? "mesh" : "torus",
		       f->direct_k[0], f->direct_k[1], f->direct_k[2],
		       acis_torus_algo_name(f->routing));
	for (a = 0; a < f->n_switches; a++) {
		const struct acis_fabric_switch *w = &f->sw[a];

		printf("  %s:", w->name);
		for (p = 0; p < w->n_ports; p++) {
			const struct acis_fabric_port *q = &w->ports[p];

			if (q->kind == ACIS_FABRIC_TO_HOST)
				printf(" p%u=%s", p, f->hosts[q->peer].name);
			else if (q->kind == ACIS_FABRIC_TO_SWITCH)
				printf(" p%u=%s:p%u", p, f->sw[q->peer].name,
				       q->peer_port);
			else
				printf(" p%u=-", p);
			if (q->dev[0] != '\0')
				printf("(%s)", q->dev);
			if (q->shape[0] != '\0')
				printf("[%s]", q->shape);
		}
		printf("\n");
	}
}

static void
routes(const struct acis_fabric *f)
{
	unsigned int n = f->n_switches, a, b, p;

	for (a = 0; a < n; a++) {
		printf("%s:", f->sw[a].name);
		for (b = 0; b < n; b++)
			if (b != a)
				printf(" %s via p%u (%u hop%s)", f->sw[b].name,
				       f->next[a * n + b], f->hops[a * n + b],
				       f->hops[a * n + b] == 1 ? "" : "s");
		printf("; floods on");
		for (p = 0; p < f->sw[a].n_ports; p++)
			if (f->flood[a * ACIS_FABRIC_MAX_PORTS + p])
				printf(" p%u", p);
		printf("\n");
	}
}

/* The hosts named (or all), in order: rank i is m[i]. NULL on a bad
 * name (said) or no memory. */
static uint16_t *
members(const struct acis_fabric *f, int argc, char **argv, unsigned int *np)
{
	uint16_t *m = malloc((f->n_hosts * (unsigned int)argc + 1) *
			     sizeof(*m));
	unsigned int n = 0, a;
	int i;

	if (m == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "all") == 0) {
			for (a = 0; a < f->n_hosts; a++)
				m[n++] = (uint16_t)a;
			continue;
		}
		int h = acis_fabric_host_index(f, argv[i]);

		if (h < 0) {
			fprintf(stderr, "acis-fabric: no host '%s' in the "
				"topology\n", argv[i]);
			free(m);
			return NULL;
		}
		m[n++] = (uint16_t)h;
	}
	*np = n;
	return m;
}

static int
tree(const struct acis_fabric *f, int argc, char **argv)
{
	struct acis_fabric_tree t;
	unsigned int n = 0, a;
	uint16_t *m = members(f, argc, argv, &n);

	if (m == NULL)
		return 1;
	if (acis_fabric_tree(f, m, n, &t) != 0) {
		fprintf(stderr, "acis-fabric: no tree for these hosts\n");
		free(m);
		return 1;
	}
	printf("root %s, depth %u, %u switch%s\n", f->sw[t.root].name, t.depth,
	       t.n_in, t.n_in == 1 ? "" : "es");
	for (a = 0; a < f->n_switches; a++) {
		if (!t.in[a])
			continue;
		printf("  %s: %u member%s, %u child switch%s, ", f->sw[a].name,
		       t.local[a], t.local[a] == 1 ? "" : "s", t.children[a],
		       t.children[a] == 1 ? "" : "es");
		if (t.up[a] == ACIS_FABRIC_NONE)
			printf("root\n");
		else
			printf("up p%u to %s\n", t.up[a],
			       f->sw[f->sw[a].ports[t.up[a]].peer].name);
	}
	acis_fabric_tree_free(&t);
	free(m);
	return 0;
}

/* The lowest rank at or below switch s of tree t (UINT32_MAX: none). */
static uint32_t
lowest(const struct acis_fabric *f, const struct acis_fabric_tree *t,
       const uint16_t *m, unsigned int n, unsigned int s)
{
	uint32_t low = UINT32_MAX, r;
	unsigned int c;

	for (r = 0; r < n; r++)
		if (f->hosts[m[r]].sw == s && r < low)
			low = r;
	for (c = 0; c < f->n_switches; c++)
		if (t->in[c] && t->up[c] != ACIS_FABRIC_NONE &&
		    f->sw[c].ports[t->up[c]].peer == s) {
			uint32_t l = lowest(f, t, m, n, c);

			if (l < low)
				low = l;
		}
	return low;
}

struct unit {
	uint32_t low;
	int sw; /* -1: a member, rank low */
};

static int
unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* Switch s's fold: its units (members, child switches) by lowest rank,
 * as acis-coll-check --fold reads it. */
static int
fold_of(const struct acis_fabric *f, const struct acis_fabric_tree *t,
	const uint16_t *m, unsigned int n, unsigned int s)
{
	struct unit *u = malloc((n + f->n_switches) * sizeof(*u));
	unsigned int k = 0, c, i;
	uint32_t r;

	if (u == NULL)
		return -1;
	for (r = 0; r < n; r++)
		if (f->hosts[m[r]].sw == s)
			u[k++] = (struct unit){r, -1};
	for (c = 0; c < f->n_switches; c++)
		if (t->in[c] && t->up[c] != ACIS_FABRIC_NONE &&
		    f->sw[c].ports[t->up[c]].peer == s) {
			uint32_t l = lowest(f, t, m, n, c);

			if (l != UINT32_MAX)
				u[k++] = (struct unit){l, (int)c};
		}
	qsort(u, k, sizeof(*u), unit_cmp);
	putchar('(');
	for (i = 0; i < k; i++) {
		if (i != 0)
			putchar(',');
		if (u[i].sw < 0)
			printf("%u", u[i].low);
		else if (fold_of(f, t, m, n, (unsigned int)u[i].sw) != 0)
			break;
	}
	putchar(')');
	free(u);
	return i == k ? 0 : -1;
}

/* The order a communicator of these hosts (rank i on the i-th) folds
 * in the tree (doc/fabric.md). */
static int
fold(const struct acis_fabric *f, int argc, char **argv)
{
	struct acis_fabric_tree t;
	unsigned int n = 0;
	uint16_t *m = members(f, argc, argv, &n);
	int rc;

	if (m == NULL)
		return 1;
	if (acis_fabric_tree(f, m, n, &t) != 0) {
		fprintf(stderr, "acis-fabric: no tree for these hosts\n");
		free(m);
		return 1;
	}
	rc = fold_of(f, &t, m, n, t.root);
	putchar('\n');
	acis_fabric_tree_free(&t);
	free(m);
	return rc != 0;
}

/* A switch's address and MAC: the file's, or numbered from its index
 * (10.77.0.(200+k), the testbed's network; 02:ac:15:01:KK:KK). */
static int
switch_ip(const struct acis_fabric *f, unsigned int k, char *ip, size_t len)
{
	if (f->sw[k].ip[0] != '\0') {
		snprintf(ip, len, "%s", f->sw[k].ip);
		return 0;
	}
	if (k > 54) {
		fprintf(stderr, "acis-fabric: switch %s: give it 'ip = a.b.c.d' "
			"(only the first 55 switches are numbered "
			"10.77.0.200 on)\n", f->sw[k].name);
		return -1;
	}
	snprintf(ip, len, "10.77.0.%u", 200 + k);
	return 0;
}

static void
switch_mac(const struct acis_fabric *f, unsigned int k, char *mac, size_t len)
{
	if (f->sw[k].mac[0] != '\0')
		snprintf(mac, len, "%s", f->sw[k].mac);
	else
		snprintf(mac, len, "02:ac:15:01:%02x:%02x", (k >> 8) & 0xff, k & 0xff);
}

static int
list(const struct acis_fabric *f)
{
	unsigned int a, p;
	char ip[16], mac[18];

	for (a = 0; a < f->n_switches; a++) {
		if (switch_ip(f, a, ip, sizeof(ip)) != 0)
			return 1;
		switch_mac(f, a, mac, sizeof(mac));
		printf("switch %s %s %s %u\n", f->sw[a].name, ip, mac,
		       f->sw[a].n_ports);
	}
	for (a = 0; a < f->n_hosts; a++)
		printf("host %s %s p%u\n", f->hosts[a].name,
		       f->sw[f->hosts[a].sw].name, f->hosts[a].port);
	for (a = 0; a < f->n_switches; a++)
		for (p = 0; p < f->sw[a].n_ports; p++) {
			const struct acis_fabric_port *q = &f->sw[a].ports[p];

			if (q->kind == ACIS_FABRIC_TO_SWITCH && q->peer > a)
				printf("link %s p%u %s p%u\n", f->sw[a].name,
				       p, f->sw[q->peer].name, q->peer_port);
		}
	return 0;
}

/* A timer of the switch's, dilated, within what the pipeline allows */
static double
dilated_ms(double ms, double dilation)
{
	ms *= dilation;
	return ms < ACIS_TIMER_MS_MAX ? ms : ACIS_TIMER_MS_MAX;
}

/*
 * The pipeline file of one switch of the fabric: a port pN for every
 * port of the topology that leads somewhere. A port's device is the
 * file's dev.pN when given (placement machine); else the testbed's:
 * - placement process: a host port is AF_PACKET on interface pN of the
 *   switch's namespace, a link a net_memif pair whose server is the
 *   switch of lower index, its socket SERVER-pM.sock in $ACIS_MEMIF_DIR;
 * - placement logical (every switch in one process): a host port is
 *   AF_PACKET on interface sKpN (switch K of the file) of the process's
 *   namespace, a link a ring pair named after its end on the switch of
 *   lower index (ring_pair:sKpN:a there, :b at the other end).
 * Links outside the flooding tree neither flood nor learn; a link of the
 * tree names the switch at its other end (peer), which communicators fold
 * through.
 */
static int
pipeline(const struct acis_fabric *f, const char *file, const char *name,
	 unsigned int placement)
{
	int k = acis_fabric_switch_index(f, name);
	const struct acis_fabric_switch *w;
	char ip[16], mac[18];
	unsigned int p;

	if (k < 0) {
		fprintf(stderr, "acis-fabric: no switch '%s' in %s\n", name,
			file);
		return 1;
	}
	w = &f->sw[k];
	if (switch_ip(f, (unsigned int)k, ip, sizeof(ip)) != 0)
		return 1;
	switch_mac(f, (unsigned int)k, mac, sizeof(mac));
	printf("# Switch %s of the fabric '%s' (%s), made by acis-fabric "
	       "pipeline.\n", w->name, f->name, file);
	printf("[switch]\nname = %s\nmac = %s\nip = %s\n"
	       "udp_port = 47000\nmtu = ${ACIS_MTU:-1500}\n"
	       "mbufs = ${ACIS_MBUFS:-16383}\n"
	       "mbuf_size = ${ACIS_MBUF_SIZE:-2048}\nburst = 32\n\n"
	       "[l2]\nlearning = on\nflood = on\nage = 300\n",
	       w->name, mac, ip);
	for (p = 0; p < w->n_ports; p++) {
		const struct acis_fabric_port *q = &w->ports[p];

		if (q->kind == ACIS_FABRIC_UNUSED)
			continue;
		printf("\n[port p%u]\n", p);
		if (q->dev[0] != '\0') {
			printf("dev = %s\n", q->dev);
		} else if (placement == ACIS_FABRIC_LOGICAL &&
			   q->kind == ACIS_FABRIC_TO_HOST) {
			printf("# host %s\ndev = net_af_packet_s%dp%u,"
			       "iface=s%dp%u${ACIS_AFP_ARGS:-}\n",
			       f->hosts[q->peer].name, k, p, k, p);
		} else if (placement == ACIS_FABRIC_LOGICAL) {
			int lower = q->peer > (unsigned int)k;

			printf("# link to %s:p%u\n", f->sw[q->peer].name,
			       q->peer_port);
			printf("dev = ring_pair:s%up%u:%c\n",
			       lower ? (unsigned int)k : q->peer,
			       lower ? p : q->peer_port, lower ? 'a' : 'b');
		} else if (q->kind == ACIS_FABRIC_TO_HOST) {
			printf("# host %s\ndev = net_af_packet%u,iface=p%u"
			       "${ACIS_AFP_ARGS:-}\n", f->hosts[q->peer].name,
			       p, p);
		} else {
			int server = q->peer > (unsigned int)k;

			printf("# link to %s:p%u\n", f->sw[q->peer].name,
			       q->peer_port);
			printf("dev = net_memif%u,role=%s,id=0,"
			       "socket=${ACIS_MEMIF_DIR:-/run/acis-memif}/"
			       "%s-p%u.sock,socket-abstract=no\n", p,
			       server ? "server" : "client",
			       server ? w->name : f->sw[q->peer].name,
			       server ? p : q->peer_port);
		}
		if (q->reliable)
			printf("reliable = on\n");
		if (!f->flood[(unsigned int)k * ACIS_FABRIC_MAX_PORTS + p]) {
			printf("flood = off\n");
		} else if (q->kind == ACIS_FABRIC_TO_SWITCH) {
			/* a tree link: the switch there folds with this one */
			char pip[16], pmac[18];

			if (switch_ip(f, q->peer, pip, sizeof(pip)) != 0)
				return 1;
			switch_mac(f, q->peer, pmac, sizeof(pmac));
			printf("peer = %s %s\n", pip, pmac);
		}
	}
	/* communicators fold in the tree ($ACIS_FOLD=off: the unicast
	 * baseline, every member's frames to the root) */
	printf("\n[collective]\nfold = ${ACIS_FOLD:-on}\n");
	/* Fidelity mode runs the platform D times slower: so do the
	 * switch's timers (a slot's deadline, and its linger time, whose
	 * sixteenth is the resend interval), or a collective that takes
	 * longer than 125 ms dilated is resent into the slow links it waits
	 * on. Capped at the hour the pipeline reader allows. */
	if (f->profile[0] != '\0' && f->dilation > 1.0)
		printf("# the switch's timers, dilated %g times\n"
		       "deadline_ms = %.0f\nlinger_ms = %.0f\n", f->dilation,
		       dilated_ms(ACIS_DEADLINE_MS_DEFAULT, f->dilation),
		       dilated_ms(ACIS_LINGER_MS_DEFAULT, f->dilation));
	/* a torus's or mesh's node: its place, the routing (ACIS_TORUS_ROUTING
	 * overrides the file's), and where every host is: host i has MAC
	 * 02:a0:00:00:00:(10+i), as scripts/fabric.sh gives it */
	if (f->direct_k[0] != 0) {
		unsigned int h, d;

		printf("\n[torus]\ndims = %u", f->direct_k[0]);
		for (d = 1; d < 3 && f->direct_k[d] > 1; d++)
			printf("x%u", f->direct_k[d]);
		printf("\nmesh = %s\ncoord = ", f->direct_mesh ? "on" : "off");
		for (d = 0; d < w->n_coord; d++)
			printf("%s%u", d ? "," : "", w->coord[d]);
		printf("\nrouting = ${ACIS_TORUS_ROUTING:-%s}\n",
		       acis_torus_algo_name(f->routing));
		/* the router: its buffers and arbitration ($ACIS_TORUS_SLOTS,
		 * $ACIS_TORUS_ARBITRATION override them); a dilated run's
		 * router clock runs as much slower, its watchdog longer */
		printf("slots = ${ACIS_TORUS_SLOTS:-%u}\n"
		       "arbitration = ${ACIS_TORUS_ARBITRATION:-%s}\n",
		       f->slots, acis_torus_policy_name(f->arbitration));
		/* links with their own (slots=N, arbitration=POLICY on
		 * the link line): port pD is direction D */
		for (d = 1; d <= 6 && d < w->n_ports; d++) {
			const struct acis_fabric_port *q = &w->ports[d];

			if (q->kind != ACIS_FABRIC_TO_SWITCH)
				continue;
			if (q->slots != 0)
				printf("slots_p%u = %u\n", d, q->slots);
			if (q->arbitration != 0)
				printf("arbitration_p%u = %s\n", d,
				       acis_torus_policy_name(
					       q->arbitration - 1));
		}
		if (f->profile[0] != '\0' && f->dilation > 1.0)
			printf("clock_khz = %.0f\n",
			       ACIS_TORUS_CLOCK_HZ / 1e3 / f->dilation < 1.0 ?
			       1.0 : ACIS_TORUS_CLOCK_HZ / 1e3 / f->dilation);
		printf("watchdog_ms = ${ACIS_TORUS_WATCHDOG_MS:-%.0f}\n",
		       f->profile[0] != '\0' && f->dilation > 1.0 ?
		       dilated_ms(ACIS_TORUS_WATCHDOG_MS_DEFAULT, f->dilation) :
		       (double)ACIS_TORUS_WATCHDOG_MS_DEFAULT);
		for (h = 0; h < f->n_hosts; h++) {
			const struct acis_fabric_switch *x =
				&f->sw[f->hosts[h].sw];

			printf("host = 02:a0:00:00:%02x:%02x ", (10 + h) >> 8,
			       (10 + h) & 0xff);
			for (d = 0; d < x->n_coord; d++)
				printf("%s%u", d ? "," : "", x->coord[d]);
			printf("\n");
		}
	}
	/* each link's shaping, on this end's TX */
	for (p = 0; p < w->n_ports; p++) {
		char buf[ACIS_FABRIC_SHAPE_LEN], *tok, *save = NULL;

		if (w->ports[p].shape[0] == '\0')
			continue;
		printf("\n[fault p%u]\n", p);
		strcpy(buf, w->ports[p].shape);
		for (tok = strtok_r(buf, " ", &save); tok != NULL;
		     tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '=');

			*eq = '\0';
			printf("%s = %s\n", tok, eq + 1);
		}
	}
	return 0;
}

/*
 * A torus (or, with mesh, a mesh) of the dimensions DIMS ("8", "4x4",
 * "4x4x4"; each 2 to 64): switch s_X[_Y[_Z]] at coord = X[,Y[,Z]], port
 * p0 its host's, then two ports a dimension: p1 X+, p2 X-, p3 Y+, p4 Y-,
 * p5 Z+, p6 Z-. Each switch's + port links to its neighbour's - port,
 * around the ring in a torus, not past the edge in a mesh. Hosts go on
 * hosts=N switches spread evenly (every switch by default; a process
 * reaches at most 32 hosts; 0: none, for the traffic generator alone),
 * addresses from 10.77.0.100 (more than 250 switches: 10.78.HH.LL, on
 * the hosts' link by the route scripts/fabric.sh gives them) and MACs
 * 02:ac:15:01:HH:LL.
 */
static int
torus(int argc, char **argv)
{
	unsigned int dim[3], nd, n, k, d, hosts, placed = 0;
	unsigned int stride;
	const char *profile = NULL;
	uint8_t k8[3];
	int mesh = 0, i;
	char *end;

	if (acis_torus_dims_parse(argv[0], k8) != 0)
		goto bad;
	for (nd = 0, d = 0; d < 3; d++) {
		dim[d] = k8[d];
		nd += k8[d] > 1;
	}
	n = dim[0] * dim[1] * dim[2];
	hosts = n;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "mesh") == 0) {
			mesh = 1;
		} else if (strncmp(argv[i], "hosts=", 6) == 0) {
			unsigned long v = strtoul(argv[i] + 6, &end, 10);

			if (end == argv[i] + 6 || *end != '\0' || v > n) {
				fprintf(stderr, "acis-fabric: %s: expected hosts=N, "
					"N from 0 to %u (the switches)\n",
					argv[i], n);
				return 2;
			}
			hosts = (unsigned int)v;
		} else if (strncmp(argv[i], "profile=", 8) == 0 &&
			   argv[i][8] != '\0') {
			profile = argv[i] + 8;
		} else {
			fprintf(stderr, "acis-fabric: torus: unknown word '%s' "
				"(expected mesh, hosts=N or profile=NAME)\n",
				argv[i]);
			return 2;
		}
	}
	if (n > ACIS_FABRIC_MAX_SWITCHES) {
		fprintf(stderr, "acis-fabric: torus: %u switches; a fabric "
			"has at most %u\n", n, ACIS_FABRIC_MAX_SWITCHES);
		return 2;
	}
	printf("# A %s of %s switches, made by acis-fabric torus: switch "
	       "s_X%s%s at\n# coord = X%s%s, p0 its host's, p1/p2 X+/X-%s%s.\n",
	       mesh ? "mesh" : "torus", argv[0], nd > 1 ? "_Y" : "",
	       nd > 2 ? "_Z" : "", nd > 1 ? ",Y" : "", nd > 2 ? ",Z" : "",
	       nd > 1 ? ", p3/p4 Y+/Y-" : "", nd > 2 ? ", p5/p6 Z+/Z-" : "");
	printf("[topology]\nname = %s %s\nplacement = logical\n%s = %s\n",
	       argv[0], mesh ? "mesh" : "torus", mesh ? "mesh" : "torus",
	       argv[0]);
	if (profile != NULL)
		printf("profile = %s\n", profile);
	for (k = 0; k < n; k++) {
		unsigned int c[3] = {k % dim[0], k / dim[0] % dim[1],
				     k / dim[0] / dim[1]};

		printf("\n[switch s");
		for (d = 0; d < nd; d++)
			printf("_%u", c[d]);
		printf("]\nports = %u\ncoord = ", 1 + 2 * nd);
		for (d = 0; d < nd; d++)
			printf("%s%u", d ? "," : "", c[d]);
		if (n <= 250)
			printf("\nip = 10.77.0.%u", 100 + k);
		else
			printf("\nip = 10.78.%u.%u", k >> 8, k & 0xff);
		printf("\nmac = 02:ac:15:01:%02x:%02x\n", k >> 8, k & 0xff);
	}
	printf("\n[links]\n");
	for (k = 0; k < n; k++) {
		unsigned int c[3] = {k % dim[0], k / dim[0] % dim[1],
				     k / dim[0] / dim[1]};

		for (d = 0; d < nd; d++) {
			unsigned int m[3] = {c[0], c[1], c[2]}, e;

			if (mesh && c[d] + 1 == dim[d])
				continue; /* the edge */
			m[d] = (c[d] + 1) % dim[d];
			printf("link = s");
			for (e = 0; e < nd; e++)
				printf("_%u", c[e]);
			printf(":p%u s", 1 + 2 * d);
			for (e = 0; e < nd; e++)
				printf("_%u", m[e]);
			printf(":p%u\n", 2 + 2 * d);
		}
	}
	printf("\n[hosts]\n");
	stride = hosts != 0 ? n / hosts : n;
	for (k = 0; k < n && placed < hosts; k += stride) {
		unsigned int c[3] = {k % dim[0], k / dim[0] % dim[1],
				     k / dim[0] / dim[1]};

		printf("h%u = s", placed++);
		for (d = 0; d < nd; d++)
			printf("_%u", c[d]);
		printf(":p0\n");
	}
	return 0;
bad:
	fprintf(stderr, "acis-fabric: torus: expected DIMS as K, KxK or KxKxK, "
		"each K from 2 to 64 (e.g. 4x4x4), found '%s'\n", argv[0]);
	return 2;
}

/*
 * A fabric shaped as a collective tree of N switches (2 to 250), a host
 * on port p0 of each, switch sI answering on 10.77.0.(100 + I): the
 * hardware MPE's trees (seed 001, section 4.2.2.4), which the switches'
 * aggregation tree follows when the hosts join s0.
 *   chain     s0 - s1 - ... : one parent, one child each (the MPE's linear)
 *   binomial  sI's parent is I without its highest bit: log2 N deep
 *   star      s0 joined by one link to a hub switch without a host, every
 *             other switch hanging off the hub: with [collective] fold =
 *             off, s0's one channel carries every member's frame
 */
static int
shape_tree(const char *kind, int argc, char **argv)
{
	unsigned int n, i, hub_ports, *ports;
	const char *profile = NULL;
	char *end;
	unsigned long v;
	int a;

	v = strtoul(argv[0], &end, 10);
	if (end == argv[0] || *end != '\0' || v < 2 || v > 250) {
		fprintf(stderr, "acis-fabric: %s: expected N from 2 to 250 "
			"(the switches), found '%s'\n", kind, argv[0]);
		return 2;
	}
	n = (unsigned int)v;
	for (a = 1; a < argc; a++) {
		if (strncmp(argv[a], "profile=", 8) == 0 && argv[a][8] != '\0') {
			profile = argv[a] + 8;
		} else {
			fprintf(stderr, "acis-fabric: %s: unknown word '%s' "
				"(expected profile=NAME)\n", kind, argv[a]);
			return 2;
		}
	}
	ports = calloc(n, sizeof(*ports));
	if (ports == NULL) {
		fprintf(stderr, "acis-fabric: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		ports[i] = 1; /* p0 is the host's */
	hub_ports = 0;
	printf("# A %s of %u switches, made by acis-fabric %s: host hI on "
	       "port p0 of sI.\n[topology]\nname = %s %u\nplacement = logical\n",
	       kind, n, kind, kind, n);
	if (profile != NULL)
		printf("profile = %s\n", profile);
	/* the links first, counting each switch's ports, then the switches */
	printf("\n[links]\n");
	for (i = 1; i < n; i++) {
		unsigned int parent;

		if (kind[0] == 's') {
			if (i == 1)
				printf("link = s0:p%u hub:p%u\n", ports[0]++,
				       hub_ports++);
			printf("link = hub:p%u s%u:p%u\n", hub_ports++, i,
			       ports[i]++);
			continue;
		}
		parent = kind[0] == 'c' ? i - 1 :
			 i - (1u << (31 - __builtin_clz(i)));
		printf("link = s%u:p%u s%u:p%u\n", parent, ports[parent]++, i,
		       ports[i]++);
	}
	printf("\n[hosts]\n");
	for (i = 0; i < n; i++)
		printf("h%u = s%u:p0\n", i, i);
	for (i = 0; i < n; i++)
		printf("\n[switch s%u]\nports = %u\nip = 10.77.0.%u\n"
		       "mac = 02:ac:15:02:%02x:%02x\n", i,
		       ports[i] < 2 ? 2 : ports[i], 100 + i, i >> 8, i & 0xff);
	if (hub_ports != 0)
		printf("\n[switch hub]\nports = %u\nip = 10.77.0.99\n"
		       "mac = 02:ac:15:02:ff:ff\n", hub_ports);
	free(ports);
	return 0;
}

int
main(int argc, char **argv)
{
	char err[ACIS_CONF_ERR_LEN];
	struct acis_fabric *f;
	int rc = 0;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "torus") == 0)
		return torus(argc - 2, argv + 2);
	if (argc >= 3 && (strcmp(argv[1], "chain") == 0 ||
			  strcmp(argv[1], "binomial") == 0 ||
			  strcmp(argv[1], "star") == 0))
		return shape_tree(argv[1], argc - 2, argv + 2);
	if (argc < 3 || (strcmp(argv[1], "check") != 0 &&
			 strcmp(argv[1], "routes") != 0 &&
			 strcmp(argv[1], "list") != 0 &&
			 strcmp(argv[1], "pipeline") != 0 &&
			 strcmp(argv[1], "tree") != 0 &&
			 strcmp(argv[1], "fold") != 0) ||
	    ((strcmp(argv[1], "tree") == 0 || strcmp(argv[1], "fold") == 0) &&
	     argc < 4) ||
	    (strcmp(argv[1], "pipeline") == 0 && argc != 4 && argc != 5) ||
	    (strcmp(argv[1], "tree") != 0 && strcmp(argv[1], "fold") != 0 &&
	     strcmp(argv[1], "pipeline") != 0 && argc != 3)) {
		usage(stderr);
		return 2;
	}
	f = acis_fabric_load(argv[2], err);
	if (f == NULL) {
		fprintf(stderr, "acis-fabric: %s\n", err);
		return 1;
	}
	if (strcmp(argv[1], "check") == 0)
		show(f);
	else if (strcmp(argv[1], "routes") == 0)
		routes(f);
	else if (strcmp(argv[1], "list") == 0)
		rc = list(f);
	else if (strcmp(argv[1], "pipeline") == 0) {
		unsigned int pl = f->placement;

		if (argc == 5) {
			for (pl = 0; pl < 3; pl++)
				if (strcmp(argv[4],
					   acis_fabric_placement_name(pl)) == 0)
					break;
			if (pl == 3) {
				fprintf(stderr, "acis-fabric: placement '%s': "
					"expected logical, process or "
					"machine\n", argv[4]);
				acis_fabric_free(f);
				return 2;
			}
		}
		rc = pipeline(f, argv[2], argv[3], pl);
	}
	else if (strcmp(argv[1], "fold") == 0)
		rc = fold(f, argc - 3, argv + 3);
	else
		rc = tree(f, argc - 3, argv + 3);
	acis_fabric_free(f);
	return rc;
}
