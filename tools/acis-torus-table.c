/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-torus-table: a torus's routing tables (seed 000 ch. 8,
 * doc/torus-tables.md), made, checked and followed.
 *
 *   acis-torus-table build DIMS [mesh] ROOT DEST... [base=N]
 *   acis-torus-table check DIMS [mesh] FILE
 *   acis-torus-table walk DIMS [mesh] FILE NODE TYPE:INDEX
 *
 * build writes the tables of a multicast tree from ROOT to the DESTs
 * (X,Y,Z places or node numbers) and its reduction tree, the union of
 * their DOR paths, with the words the root and the members send with;
 * check reads a table file for every node; walk follows a packet
 * injected at NODE with the header TYPE:INDEX (unicast, multicast or
 * reduce) and says where its copies land. Load a file into a running
 * fabric with `acisctl -n SWITCH torus-table load,FILE` on each switch
 * (scripts/fabric.sh ctl).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_torus.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: acis-torus-table build DIMS [mesh] ROOT DEST... "
		   "[base=N]\n"
		   "       acis-torus-table check DIMS [mesh] FILE\n"
		   "       acis-torus-table walk DIMS [mesh] FILE NODE "
		   "TYPE:INDEX\n"
		   "DIMS K, KxK or KxKxK; a place X[,Y[,Z]] or a node "
		   "number; TYPE unicast, multicast or reduce "
		   "(doc/torus-tables.md)\n");
}

/* A node: "X,Y,Z" (fewer for fewer dimensions) or its number. */
static int
node_arg(const struct acis_torus *t, const char *s, uint32_t *node)
{
	struct acis_torus_coord c = {{0, 0, 0}};
	unsigned long v;
	unsigned int d = 0;
	char *end;

	if (strchr(s, ',') == NULL) {
		v = strtoul(s, &end, 10);
		if (end == s || *end != '\0' || v >= t->nodes)
			return -EINVAL;
		*node = (uint32_t)v;
		return 0;
	}
	for (;;) {
		v = strtoul(s, &end, 10);
		if (end == s || d == ACIS_TORUS_DIMS || v > 255)
			return -EINVAL;
		c.c[d++] = (uint8_t)v;
		if (*end == '\0')
			break;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
	if (!acis_torus_coord_valid(t, &c))
		return -EINVAL;
	*node = (uint32_t)acis_torus_node(t, &c);
	return 0;
}

/* DIMS [mesh]: the torus; how many words they took. */
static int
torus_arg(int argc, char **argv, struct acis_torus *t)
{
	uint8_t k[ACIS_TORUS_DIMS];
	int mesh;

	if (argc < 1 || acis_torus_dims_parse(argv[0], k) != 0) {
		fprintf(stderr, "acis-torus-table: expected DIMS as K, KxK or "
			"KxKxK, each K from 2 to %d, found '%s'\n",
			ACIS_TORUS_MAX_K, argc < 1 ? "nothing" : argv[0]);
		return -1;
	}
	mesh = argc > 1 && strcmp(argv[1], "mesh") == 0;
	acis_torus_init(t, k[0], k[1], k[2], mesh);
	return 1 + mesh;
}

static struct acis_torus_table *
tables_new(const struct acis_torus *t)
{
	struct acis_torus_table *tb = calloc(t->nodes, sizeof(*tb));
	uint32_t i;

	if (tb == NULL) {
		fprintf(stderr, "acis-torus-table: out of memory\n");
		exit(1);
	}
	for (i = 0; i < t->nodes; i++)
		acis_torus_table_clear(&tb[i]);
	return tb;
}

/* The file at path into every node's tables; 0 or 1 (said). */
static int
load_all(const struct acis_torus *t, const char *path,
	 struct acis_torus_table *tb)
{
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	FILE *f = fopen(path, "rb");
	char *text;
	long len;
	int rc;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "acis-torus-table: %s: %s\n", path,
			strerror(errno));
		if (f != NULL)
			fclose(f);
		return 1;
	}
	text = malloc((size_t)len + 1);
	if (text == NULL || fread(text, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "acis-torus-table: %s: cannot read it\n", path);
		free(text);
		fclose(f);
		return 1;
	}
	fclose(f);
	rc = acis_torus_table_parse_all(t, path, text, (size_t)len, tb, err);
	free(text);
	if (rc != 0) {
		fprintf(stderr, "acis-torus-table: %s\n", err);
		return 1;
	}
	return 0;
}

static const char *const ptype[] = {"", "unicast", "multicast", "reduce"};

static int
build(const struct acis_torus *t, int argc, char **argv)
{
	struct acis_torus_table *tb = tables_new(t);
	struct acis_torus_tree_node *tree = calloc(t->nodes, sizeof(*tree));
	uint32_t *dst = calloc((size_t)argc + 1, sizeof(*dst));
	uint32_t root, i;
	unsigned long base = 0;
	unsigned int n = 0;
	int a, rc;
	char *end;

	if (tree == NULL || dst == NULL) {
		fprintf(stderr, "acis-torus-table: out of memory\n");
		return 1;
	}
	if (argc < 2 || node_arg(t, argv[0], &root) != 0) {
		fprintf(stderr, "acis-torus-table: build: expected ROOT and at "
			"least one DEST, each X[,Y[,Z]] inside the torus or a "
			"node number\n");
		return 2;
	}
	for (a = 1; a < argc; a++) {
		if (strncmp(argv[a], "base=", 5) == 0) {
			base = strtoul(argv[a] + 5, &end, 10);
			if (end == argv[a] + 5 || *end != '\0' ||
			    base >= ACIS_TORUS_TABLE_SIZE) {
				fprintf(stderr, "acis-torus-table: %s: expected "
					"base=N, N below %d\n", argv[a],
					ACIS_TORUS_TABLE_SIZE);
				return 2;
			}
			continue;
		}
		if (node_arg(t, argv[a], &dst[n]) != 0) {
			fprintf(stderr, "acis-torus-table: build: '%s': "
				"expected a place X[,Y[,Z]] inside the torus or "
				"a node number\n", argv[a]);
			return 2;
		}
		n++;
	}
	rc = acis_torus_table_build(t, root, dst, n, (uint16_t)base, tb, tree);
	if (rc != 0) {
		fprintf(stderr, "acis-torus-table: build: %s\n",
			rc == -ENOSPC ? "a node has no free index at or "
			"above base" : "no destination other than the root");
		return 1;
	}
	printf("# a multicast from node %u to %u nodes and its reduction, the "
	       "union of DOR paths\n# (acis-torus-table build). The root "
	       "injects %s:%u; each member sends its\n# contribution as "
	       "reduce:INDEX:\n", root, n, ptype[tree[root].mc_type],
	       tree[root].mc_index);
	for (i = 0; i < t->nodes; i++)
		if (tree[i].member)
			printf("#   node %u: reduce:%u\n", i, tree[i].red_index);
	if (acis_torus_table_print(stdout, t, tb) != 0)
		return 1;
	free(tb);
	free(tree);
	free(dst);
	return 0;
}

static int
check(const struct acis_torus *t, const char *path)
{
	struct acis_torus_table *tb = tables_new(t);
	unsigned int k[3] = {0, 0, 0}, nodes = 0;
	uint32_t i, j;

	if (load_all(t, path, tb) != 0)
		return 1;
	for (i = 0; i < t->nodes; i++) {
		unsigned int any = 0;

		for (j = 0; j < ACIS_TORUS_TABLE_SIZE; j++) {
			k[0] += tb[i].uni[j].valid != 0;
			k[1] += tb[i].mc[j].n != 0;
			k[2] += tb[i].red[j].expect != 0;
			any |= tb[i].uni[j].valid || tb[i].mc[j].n ||
			       tb[i].red[j].expect;
		}
		nodes += any != 0;
	}
	printf("%s: %u nodes with entries: %u unicast, %u multicast, %u "
	       "reduce\n", path, nodes, k[0], k[1], k[2]);
	free(tb);
	return 0;
}

static int
walk(const struct acis_torus *t, const char *path, const char *at,
     const char *hdr)
{
	struct acis_torus_table *tb = tables_new(t);
	uint16_t *copies = calloc(t->nodes, sizeof(*copies));
	uint16_t *hops = calloc(t->nodes, sizeof(*hops));
	char err[ACIS_TORUS_TABLE_ERR_LEN] = "";
	unsigned int type;
	unsigned long index;
	uint32_t node, i;
	const char *colon = strchr(hdr, ':');
	char *end;
	int rc;

	if (copies == NULL || hops == NULL || load_all(t, path, tb) != 0)
		return 1;
	if (node_arg(t, at, &node) != 0) {
		fprintf(stderr, "acis-torus-table: walk: '%s': expected a place "
			"X[,Y[,Z]] inside the torus or a node number\n", at);
		return 2;
	}
	for (type = 1; type <= 3; type++)
		if (colon != NULL && strlen(ptype[type]) == (size_t)(colon - hdr) &&
		    strncmp(hdr, ptype[type], (size_t)(colon - hdr)) == 0)
			break;
	index = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
	if (type > 2 || colon == NULL || end == colon + 1 || *end != '\0' ||
	    index >= ACIS_TORUS_TABLE_SIZE) {
		fprintf(stderr, "acis-torus-table: walk: '%s': expected "
			"unicast:INDEX or multicast:INDEX, INDEX below %d\n",
			hdr, ACIS_TORUS_TABLE_SIZE);
		return 2;
	}
	rc = acis_torus_table_walk_multicast(t, tb, node, type,
					     (uint16_t)index, 0, copies, hops,
					     err);
	if (rc < 0) {
		fprintf(stderr, "acis-torus-table: walk: %s\n", err);
		return 1;
	}
	printf("%d copies\n", rc);
	for (i = 0; i < t->nodes; i++)
		if (copies[i] != 0) {
			struct acis_torus_coord c;

			acis_torus_coord(t, i, &c);
			printf("node %u (%u,%u,%u): %u cop%s, %u hops\n", i,
			       c.c[0], c.c[1], c.c[2], copies[i],
			       copies[i] == 1 ? "y" : "ies", hops[i]);
		}
	free(tb);
	free(copies);
	free(hops);
	return 0;
}

int
main(int argc, char **argv)
{
	struct acis_torus t;
	int used;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	used = torus_arg(argc - 2, argv + 2, &t);
	if (used < 0)
		return 2;
	argc -= 2 + used;
	if (strcmp(argv[1], "build") == 0)
		return build(&t, argc, argv + 2 + used);
	if (strcmp(argv[1], "check") == 0 && argc == 1)
		return check(&t, argv[2 + used]);
	if (strcmp(argv[1], "walk") == 0 && argc == 3)
		return walk(&t, argv[2 + used], argv[3 + used],
			    argv[4 + used]);
	usage(stderr);
	return 2;
}
