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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_conf.h"
#include "acis_fabric.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: acis-fabric check FILE\n"
		   "       acis-fabric routes FILE\n"
		   "       acis-fabric tree FILE HOST... | all\n");
}

static void
show(const struct acis_fabric *f)
{
	unsigned int a, p;

	printf("%s: %u switches, %u links, %u hosts, placement %s\n",
	       f->name[0] ? f->name : "(no name)", f->n_switches, f->n_links,
	       f->n_hosts, acis_fabric_placement_name(f->placement));
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

static int
tree(const struct acis_fabric *f, int argc, char **argv)
{
	uint16_t *m = malloc((f->n_hosts + (unsigned int)argc) * sizeof(*m));
	struct acis_fabric_tree t;
	unsigned int n = 0, a;
	int i;

	if (m == NULL)
		return 1;
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
			return 1;
		}
		m[n++] = (uint16_t)h;
	}
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
	if (argc < 3 || (strcmp(argv[1], "check") != 0 &&
			 strcmp(argv[1], "routes") != 0 &&
			 strcmp(argv[1], "tree") != 0) ||
	    (strcmp(argv[1], "tree") == 0 && argc < 4) ||
	    (strcmp(argv[1], "tree") != 0 && argc != 3)) {
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
	else
		rc = tree(f, argc - 3, argv + 3);
	acis_fabric_free(f);
	return rc;
}
