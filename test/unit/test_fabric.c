/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_fabric: the shipped topologies load; routes, the flooding tree and
 * aggregation trees are what the files' drawings say; every bad file is
 * refused naming its line and the form expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_conf.h"
#include "acis_fabric.h"
#include "acis_pipeline.h"
#include "acis_torus.h"

static char err[ACIS_CONF_ERR_LEN];

static struct acis_fabric *
load(const char *file)
{
	char path[512];
	struct acis_fabric *f;

	snprintf(path, sizeof(path), "%s/%s", TOPOLOGIES, file);
	f = acis_fabric_load(path, err);
	if (f == NULL)
		fail_msg("%s: %s", file, err);
	return f;
}

static int
sw(const struct acis_fabric *f, const char *name)
{
	int i = acis_fabric_switch_index(f, name);

	assert_true(i >= 0);
	return i;
}

static uint16_t
host(const struct acis_fabric *f, const char *name)
{
	int i = acis_fabric_host_index(f, name);

	assert_true(i >= 0);
	return (uint16_t)i;
}

/* Links of the flooding tree, each counted from both ends. */
static unsigned int
flood_links(const struct acis_fabric *f)
{
	unsigned int a, p, n = 0;

	for (a = 0; a < f->n_switches; a++)
		for (p = 0; p < f->sw[a].n_ports; p++)
			n += f->sw[a].ports[p].kind == ACIS_FABRIC_TO_SWITCH &&
			     f->flood[a * ACIS_FABRIC_MAX_PORTS + p];
	return n;
}

static void
test_leaf_spine(void **state)
{
	struct acis_fabric *f = load("leaf-spine.ini");
	struct acis_fabric_tree t;
	uint16_t m[4];
	unsigned int n, l0, l1, s0, i;

	(void)state;
	assert_int_equal(f->n_switches, 3);
	assert_int_equal(f->n_hosts, 4);
	assert_int_equal(f->n_links, 2);
	assert_int_equal(f->placement, ACIS_FABRIC_LOGICAL);
	n = f->n_switches;
	l0 = (unsigned int)sw(f, "leaf0");
	l1 = (unsigned int)sw(f, "leaf1");
	s0 = (unsigned int)sw(f, "spine0");
	assert_int_equal(f->next[l0 * n + l1], 2);
	assert_int_equal(f->hops[l0 * n + l1], 2);
	assert_int_equal(f->next[s0 * n + l1], 1);
	assert_int_equal(f->next[l0 * n + l0], ACIS_FABRIC_NONE);
	assert_int_equal(f->hosts[host(f, "h2")].sw, l1);
	assert_int_equal(f->hosts[host(f, "h2")].port, 0);
	/* no cycle: every link floods */
	assert_int_equal(flood_links(f), 2 * 2);
	/* a communicator of all four: the spine completes it, each leaf
	 * folds its two hosts and sends one partial up */
	for (i = 0; i < 4; i++)
		m[i] = (uint16_t)i;
	assert_int_equal(acis_fabric_tree(f, m, 4, &t), 0);
	assert_int_equal(t.root, s0);
	assert_int_equal(t.depth, 1);
	assert_int_equal(t.n_in, 3);
	assert_int_equal(t.up[l0], 2);
	assert_int_equal(t.up[s0], ACIS_FABRIC_NONE);
	assert_int_equal(t.children[s0], 2);
	assert_int_equal(t.local[l0], 2);
	assert_int_equal(t.local[s0], 0);
	acis_fabric_tree_free(&t);
	/* the two hosts of one leaf: that leaf alone */
	m[0] = host(f, "h0");
	m[1] = host(f, "h1");
	assert_int_equal(acis_fabric_tree(f, m, 2, &t), 0);
	assert_int_equal(t.root, l0);
	assert_int_equal(t.n_in, 1);
	assert_int_equal(t.depth, 0);
	acis_fabric_tree_free(&t);
	acis_fabric_free(f);
}

static void
test_fat_tree(void **state)
{
	struct acis_fabric *f = load("fat-tree.ini");
	struct acis_fabric_tree t;
	uint16_t m[8];
	unsigned int n, a, i, s0, s1;

	(void)state;
	assert_int_equal(f->n_switches, 6);
	assert_int_equal(f->n_hosts, 8);
	assert_int_equal(f->n_links, 8);
	n = f->n_switches;
	s0 = (unsigned int)sw(f, "spine0");
	s1 = (unsigned int)sw(f, "spine1");
	/* leaf to leaf: two hops, through spine0 (the lower port) */
	assert_int_equal(f->hops[(unsigned int)sw(f, "leaf0") * n +
				 (unsigned int)sw(f, "leaf3")], 2);
	assert_int_equal(f->next[(unsigned int)sw(f, "leaf0") * n +
				 (unsigned int)sw(f, "leaf3")], 2);
	assert_int_equal(f->hops[s0 * n + s1], 2);
	/* the flooding tree spans 6 switches with 5 of the 8 links */
	assert_int_equal(flood_links(f), 5 * 2);
	for (i = 0; i < 8; i++)
		m[i] = (uint16_t)i;
	assert_int_equal(acis_fabric_tree(f, m, 8, &t), 0);
	assert_int_equal(t.root, s0);
	assert_int_equal(t.n_in, 5);
	assert_int_equal(t.in[s1], 0);
	assert_int_equal(t.children[s0], 4);
	for (a = 0; a < n; a++)
		if (a != s0 && a != s1)
			assert_int_equal(t.up[a], 2);
	acis_fabric_tree_free(&t);
	acis_fabric_free(f);
}

static void
test_ring(void **state)
{
	struct acis_fabric *f = load("ring4.ini");
	struct acis_fabric_tree t;
	uint16_t m[4] = {0, 1, 2, 3};
	unsigned int n;

	(void)state;
	n = f->n_switches;
	assert_int_equal(f->n_links, 4);
	assert_int_equal(f->hops[0 * n + 2], 2);
	assert_int_equal(f->next[0 * n + 1], 1); /* clockwise */
	assert_int_equal(f->next[0 * n + 3], 2); /* counter-clockwise */
	/* a cycle: one of the four links does not flood */
	assert_int_equal(flood_links(f), 3 * 2);
	assert_int_equal(acis_fabric_tree(f, m, 4, &t), 0);
	/* every switch is two hops from its opposite: s0 roots it */
	assert_int_equal(t.root, 0);
	assert_int_equal(t.depth, 2);
	assert_int_equal(t.n_in, 4);
	assert_int_equal(t.children[0], 2);
	assert_int_equal(t.children[1] + t.children[3], 1);
	acis_fabric_tree_free(&t);
	/* a member that is no host */
	m[0] = 9;
	assert_int_equal(acis_fabric_tree(f, m, 4, &t), -1);
	acis_fabric_free(f);
}

#define TOP "[topology]\nname = t\n"
#define TWO "[switch a]\nports = 2\n[switch b]\nports = 2\n"

static void
expect_error(const char *text, const char *want)
{
	struct acis_fabric *f = acis_fabric_parse("t.ini", text, err);

	if (f != NULL) {
		acis_fabric_free(f);
		fail_msg("accepted: %s", text);
	}
	if (strcmp(err, want) != 0)
		fail_msg("got  '%s'\nwant '%s'", err, want);
}

static void
test_bad_files_name_the_line_and_the_form(void **state)
{
	(void)state;
	expect_error("[switch a]\nports = 1\n",
		     "t.ini:1: no [topology] section (name, placement)");
	expect_error(TOP, "t.ini:1: no [switch NAME] section");
	expect_error(TOP "placement = cloud\n[switch a]\nports = 1\n",
		     "t.ini:3: placement: expected logical (every switch in "
		     "one process), process (one process per switch) or "
		     "machine (one switch per machine), found 'cloud'");
	expect_error(TOP "[switch a]\nports = 65\n",
		     "t.ini:4: ports: expected a whole number from 1 to 64, "
		     "found '65'");
	expect_error(TOP "[switch a.b]\nports = 1\n",
		     "t.ini:3: [switch NAME]: expected a name of letters, "
		     "digits, '-' and '_', at most 31, found 'a.b'");
	expect_error(TOP "[switch a]\nports = 1\n[switch a]\nports = 1\n",
		     "t.ini:5: switch a declared twice");
	expect_error(TOP TWO "[links]\nlink = a:p1 c:p0\n",
		     "t.ini:8: link: unknown switch 'c' (declare it with "
		     "[switch c])");
	expect_error(TOP TWO "[links]\nlink = a:p2 b:p0\n",
		     "t.ini:8: link: switch a has ports p0..p1, not p2");
	expect_error(TOP TWO "[links]\nlink = a:1 b:p0\n",
		     "t.ini:8: link: expected SWITCH:pN (a switch and one of "
		     "its ports, p0, p1, ...), found 'a:1'");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1\nlink = a:p1 b:p0\n",
		     "t.ini:9: link: a:p1 is already taken (by a link)");
	expect_error(TOP TWO "[links]\nlink = a:p0 a:p1\n",
		     "t.ini:8: link: both ends on switch a");
	expect_error(TOP TWO "[links]\nlink = a:p1\n",
		     "t.ini:8: link: expected 'link = A:pN B:pM [KEY=VALUE ...]', found 'a:p1'");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1\n[hosts]\nh0 = a:p1\n",
		     "t.ini:10: h0: a:p1 is already taken (by a link)");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1\n[hosts]\nh0 = a:p0\n"
		     "h0 = b:p0\n", "t.ini:11: host h0 given twice");
	expect_error(TOP TWO "[hosts]\nh0 = a:p0\n",
		     "t.ini:1: switch a cannot reach switch b: the fabric is "
		     "not connected");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1\n[rings]\n",
		     "t.ini:9: unknown section [rings] (expected topology, "
		     "switch NAME, links, hosts)");
	expect_error(TOP "[switch a]\nports = 1\nspeed = 10\n",
		     "t.ini:5: switch a: unknown key 'speed' (expected ports, "
		     "ip, mac, coord or dev.pN)");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1 speed=10\n",
		     "t.ini:8: link: unknown key 'speed' (expected reliable "
		     "or one of: " ACIS_FAULT_KEYS ")");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1 rate_mbps\n",
		     "t.ini:8: link: expected KEY=VALUE after the two ends "
		     "(KEY one of: " ACIS_FAULT_KEYS "), found 'rate_mbps'");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1 jitter_us=-1\n",
		     "t.ini:8: link: jitter_us: expected microseconds from 0 "
		     "to 1000000 (e.g. 200 or 0.175), found '-1'");
	expect_error(TOP "[switch a]\nports = 1\nip = 10.0.0\n",
		     "t.ini:5: ip: expected an IPv4 address a.b.c.d, found "
		     "'10.0.0'");
	expect_error(TOP "[switch a]\nports = 1\nmac = 03:00:00:00:00:01\n",
		     "t.ini:5: mac: expected a unicast MAC xx:xx:xx:xx:xx:xx, "
		     "found '03:00:00:00:00:01'");
	expect_error(TOP "[switch a]\nports = 1\nip = 10.0.0.1\nip = 10.0.0.2\n",
		     "t.ini:6: ip: given twice");
	expect_error(TOP "colour = red\n[switch a]\nports = 1\n",
		     "t.ini:3: [topology]: unknown key 'colour'");
}

/* placement machine: each port may name its device. */
static void
test_devices_for_machine_placement(void **state)
{
	struct acis_fabric *f = acis_fabric_parse("t.ini",
		"[topology]\nname = two machines\nplacement = machine\n"
		"[switch a]\nports = 2\ndev.p0 = 0000:03:00.0\n"
		"ip = 192.168.1.2\nmac = 02:00:00:00:00:0a\n"
		"dev.p1 = net_af_xdp0,iface=eth1\n"
		"[switch b]\nports = 2\n"
		"[links]\nlink = a:p1 b:p1 rate_mbps=1600 delay_us=0.177 "
		"jitter_us=0.0124\n[hosts]\nh0 = a:p0\nh1 = b:p0\n",
		err);

	(void)state;
	if (f == NULL)
		fail_msg("%s", err);
	assert_int_equal(f->placement, ACIS_FABRIC_MACHINE);
	assert_string_equal(f->sw[0].ports[0].dev, "0000:03:00.0");
	assert_string_equal(f->sw[0].ports[1].dev, "net_af_xdp0,iface=eth1");
	assert_string_equal(f->sw[1].ports[0].dev, "");
	assert_string_equal(f->sw[0].ip, "192.168.1.2");
	assert_string_equal(f->sw[0].mac, "02:00:00:00:00:0a");
	assert_string_equal(f->sw[1].ip, "");
	/* a link's shaping, the same on both ends */
	assert_string_equal(f->sw[0].ports[1].shape,
			    "rate_mbps=1600 delay_us=0.177 jitter_us=0.0124");
	assert_string_equal(f->sw[1].ports[1].shape, f->sw[0].ports[1].shape);
	assert_string_equal(f->sw[0].ports[0].shape, "");
	assert_string_equal(acis_fabric_placement_name(f->placement),
			    "machine");
	acis_fabric_free(f);
}

/* [topology] torus = DIMS or mesh = DIMS, routing = ALGO: the switches'
 * coords are checked against the dimensions. */
static void
test_torus_keys(void **state)
{
	struct acis_fabric *f;
	const char *two = "[switch a]\nports = 3\ncoord = 0\n"
			  "[switch b]\nports = 3\ncoord = 1\n"
			  "[links]\nlink = a:p1 b:p2\nlink = a:p2 b:p1\n";
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "routing = rmr\n%s", two);
	f = acis_fabric_parse("t.ini", text, err);
	if (f == NULL)
		fail_msg("%s", err);
	assert_int_equal(f->direct_k[0], 2);
	assert_int_equal(f->direct_k[1], 1);
	assert_int_equal(f->direct_mesh, 0);
	assert_int_equal(f->routing, 2);
	acis_fabric_free(f);
	snprintf(text, sizeof(text), "[topology]\nname = t\nmesh = 2x1\n%s",
		 two);
	expect_error(text, "t.ini:3: mesh: expected K, KxK or KxKxK, each K "
		     "from 2 to 64, found '2x1'");
	snprintf(text, sizeof(text), "[topology]\nname = t\nrouting = dor\n%s",
		 two);
	expect_error(text, "t.ini:3: routing: only for a torus or a mesh "
		     "(torus = DIMS or mesh = DIMS)");
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "routing = west-first\n%s", two);
	expect_error(text, "t.ini:4: routing: expected dor, o1turn, rmr, rlb "
		     "or ccar, found 'west-first'");
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "mesh = 2\n%s", two);
	expect_error(text, "t.ini:4: mesh: the topology is a torus already "
		     "(line 3): one of torus = DIMS or mesh = DIMS");
	expect_error("[topology]\nname = t\ntorus = 2\n[switch a]\nports = 3\n"
		     "coord = 0\n[switch b]\nports = 3\ncoord = 2\n",
		     "t.ini:3: switch b: a torus or mesh needs every switch's "
		     "coord inside its dims (2x1x1)");
	expect_error("[topology]\nname = t\ntorus = 2\n[switch a]\nports = 3\n"
		     "coord = 0\n[switch b]\nports = 3\ncoord = 0\n",
		     "t.ini:3: switches a and b: the same coord");
}

/* The router keys: slots and arbitration, defaults and refusals. */
static void
test_router_keys(void **state)
{
	struct acis_fabric *f;
	const char *two = "[switch a]\nports = 3\ncoord = 0\n"
			  "[switch b]\nports = 3\ncoord = 1\n"
			  "[links]\nlink = a:p1 b:p2\nlink = a:p2 b:p1\n";
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n%s",
		 two);
	f = acis_fabric_parse("t.ini", text, err);
	if (f == NULL)
		fail_msg("%s", err);
	assert_int_equal(f->slots, ACIS_TORUS_SLOTS_DEFAULT);
	assert_int_equal(f->arbitration, ACIS_TORUS_OF);
	acis_fabric_free(f);
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "slots = 0\narbitration = FF\n%s", two);
	f = acis_fabric_parse("t.ini", text, err);
	if (f == NULL)
		fail_msg("%s", err);
	assert_int_equal(f->slots, 0);
	assert_int_equal(f->arbitration, ACIS_TORUS_FF);
	acis_fabric_free(f);
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "slots = 2.5\n%s", two);
	expect_error(text, "t.ini:4: slots: expected a whole number from 0 "
		     "to 16, found '2.5'");
	snprintf(text, sizeof(text), "[topology]\nname = t\nslots = 2\n%s",
		 two);
	expect_error(text, "t.ini:3: slots: only for a torus or a mesh "
		     "(torus = DIMS or mesh = DIMS)");
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "arbitration = random\n%s", two);
	expect_error(text, "t.ini:4: arbitration: expected ff, of or mix, "
		     "found 'random'");
	/* a link's own: both its ends; the other link keeps the topology's */
	f = acis_fabric_parse("t.ini", "[topology]\nname = t\ntorus = 2\n"
			      "[switch a]\nports = 3\ncoord = 0\n"
			      "[switch b]\nports = 3\ncoord = 1\n[links]\n"
			      "link = a:p1 b:p2 slots=2 arbitration=Mix "
			      "rate_mbps=100\nlink = a:p2 b:p1\n", err);
	if (f == NULL)
		fail_msg("%s", err);
	assert_int_equal(f->sw[0].ports[1].slots, 2);
	assert_int_equal(f->sw[1].ports[2].slots, 2);
	assert_int_equal(f->sw[0].ports[1].arbitration, ACIS_TORUS_MIX + 1);
	assert_int_equal(f->sw[1].ports[2].arbitration, ACIS_TORUS_MIX + 1);
	assert_int_equal(f->sw[0].ports[2].slots, 0);
	assert_int_equal(f->sw[0].ports[2].arbitration, 0);
	assert_string_equal(f->sw[0].ports[1].shape, "rate_mbps=100");
	acis_fabric_free(f);
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "[switch a]\nports = 3\ncoord = 0\n[switch b]\nports = 3\n"
		 "coord = 1\n[links]\nlink = a:p1 b:p2 slots=17\n");
	expect_error(text, "t.ini:11: link: slots: expected a whole number "
		     "from 1 to 16, found '17'");
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "[switch a]\nports = 3\ncoord = 0\n[switch b]\nports = 3\n"
		 "coord = 1\n[links]\nlink = a:p1 b:p2 arbitration=lifo\n");
	expect_error(text, "t.ini:11: link: arbitration: expected ff, of or "
		     "mix, found 'lifo'");
	snprintf(text, sizeof(text), "[topology]\nname = t\ntorus = 2\n"
		 "slots = 0\n[switch a]\nports = 3\ncoord = 0\n[switch b]\n"
		 "ports = 3\ncoord = 1\n[links]\nlink = a:p1 b:p2 slots=4\n");
	expect_error(text, "t.ini:12: link: slots: the routers have no "
		     "buffers (slots = 0 in [topology])");
	expect_error(TOP TWO "[links]\nlink = a:p1 b:p1 slots=4\n",
		     "t.ini:8: link: slots: only in a torus or a mesh (torus "
		     "= DIMS or mesh = DIMS in [topology])");
}

/* A torus or mesh as acis-fabric torus writes it (p0 the host's, p1..p6
 * X+ X- Y+ Y- Z+ Z-), into text. */
static void
torus_text(char *text, size_t len, unsigned int k, int mesh)
{
	size_t w = (size_t)snprintf(text, len, "[topology]\nname = t\n"
				    "%s = %ux%ux%u\n", mesh ? "mesh" : "torus",
				    k, k, k);
	unsigned int i, d;

	for (i = 0; i < k * k * k; i++)
		w += (size_t)snprintf(text + w, len - w, "[switch s%u]\nports = "
				      "7\ncoord = %u,%u,%u\n", i, i % k,
				      i / k % k, i / k / k);
	w += (size_t)snprintf(text + w, len - w, "[links]\n");
	for (i = 0; i < k * k * k; i++)
		for (d = 0; d < 3; d++) {
			unsigned int c[3] = {i % k, i / k % k, i / k / k};
			unsigned int m;

			if (mesh && c[d] == k - 1)
				continue;
			c[d] = (c[d] + 1) % k;
			m = c[0] + k * (c[1] + k * c[2]);
			w += (size_t)snprintf(text + w, len - w,
					      "link = s%u:p%u s%u:p%u\n", i,
					      1 + 2 * d, m, 2 + 2 * d);
		}
	w += (size_t)snprintf(text + w, len - w, "[hosts]\n");
	for (i = 0; i < k * k * k; i++)
		w += (size_t)snprintf(text + w, len - w, "h%u = s%u:p0\n", i, i);
	assert_true(w < len);
}

/*
 * On a torus or mesh a fabric's routes are DOR's: the port of switch a
 * toward b (the lowest on a shortest path) is the direction DOR takes,
 * so frames to a switch, and so a communicator's JOINs and its
 * aggregation tree, follow the union of the members' DOR paths to the
 * root: the tree of Algorithm 3 (acis_torus_cube_reduce()).
 */
static void
test_torus_routes_are_dor(void **state)
{
	static char text[64 * 1024];
	unsigned int k, mesh;

	(void)state;
	for (mesh = 0; mesh < 2; mesh++)
		for (k = 2; k <= 4; k++) {
			struct acis_torus t;
			struct acis_fabric *f;
			struct acis_fabric_tree tr;
			uint16_t members[64];
			unsigned int a, b, n = k * k * k;

			torus_text(text, sizeof(text), k, (int)mesh);
			f = acis_fabric_parse("t.ini", text, err);
			if (f == NULL)
				fail_msg("%s", err);
			acis_torus_init(&t, k, k, k, (int)mesh);
			for (a = 0; a < n; a++)
				for (b = 0; b < n; b++) {
					struct acis_torus_coord ca, cb;
					struct acis_torus_route r;
					int dir;

					if (a == b)
						continue;
					acis_torus_coord(&t, a, &ca);
					acis_torus_coord(&t, b, &cb);
					acis_torus_inject(&t, &ca, &cb,
							  ACIS_TORUS_DOR, NULL,
							  &r);
					dir = acis_torus_route(&t, &ca, &cb, &r,
							       ACIS_TORUS_DOR,
							       NULL, NULL);
					if (f->next[a * n + b] != dir)
						fail_msg("%s %ux%ux%u: s%u to "
							 "s%u: port p%u, DOR "
							 "p%d", mesh ? "mesh" :
							 "torus", k, k, k, a,
							 b, f->next[a * n + b],
							 dir);
				}
			for (a = 0; a < n; a++)
				members[a] = (uint16_t)a;
			assert_int_equal(acis_fabric_tree(f, members, n, &tr), 0);
			for (a = 0; a < n; a++)
				if (a != tr.root)
					assert_int_equal(tr.up[a],
							 f->next[a * n + tr.root]);
			/* ... which is the reduction tree of seed 000's
			 * Algorithm 3 toward the root, its radius the whole
			 * torus: at each switch the port up is the way the
			 * sum goes on, and the children's ports the inputs
			 * it waits for */
			for (a = 0; a < n; a++) {
				struct acis_torus_coord ca, cr;
				uint8_t wait = 0, kids = 0;
				int out;

				acis_torus_coord(&t, a, &ca);
				acis_torus_coord(&t, tr.root, &cr);
				out = acis_torus_cube_reduce(&t, &ca, &cr, k,
							     &wait);
				for (b = 0; b < n; b++)
					if (b != tr.root &&
					    f->sw[b].ports[tr.up[b]].peer == a)
						kids |= (uint8_t)
							ACIS_TORUS_DIR_BIT(
							f->sw[b].ports[tr.up[b]]
							.peer_port);
				assert_int_equal(out, a == tr.root ?
						 ACIS_TORUS_LOCAL : tr.up[a]);
				assert_int_equal(wait, kids);
			}
			acis_fabric_tree_free(&tr);
			acis_fabric_free(f);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine),
		cmocka_unit_test(test_fat_tree),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_bad_files_name_the_line_and_the_form),
		cmocka_unit_test(test_devices_for_machine_placement),
		cmocka_unit_test(test_torus_keys),
		cmocka_unit_test(test_router_keys),
		cmocka_unit_test(test_torus_routes_are_dor),
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
