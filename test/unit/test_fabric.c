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
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
