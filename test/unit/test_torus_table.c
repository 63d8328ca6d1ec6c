/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/torus table routing (seed 000 §8.1) and the online cube multicast
 * and reduction (§6.3-6.4; doc/torus-tables.md). The references here
 * (ring offsets, DOR paths, the cube, Algorithms 2 and 3 as printed, the
 * Fig. 8.1 example) are written from the seed's text, not from the
 * library. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis_torus.h"

#define UNI ACIS_TORUS_PKT_UNICAST
#define MC ACIS_TORUS_PKT_MULTICAST
#define RED ACIS_TORUS_PKT_REDUCE
#define BIT(d) ACIS_TORUS_DIR_BIT(d)

struct geo {
	unsigned int k[3];
	int mesh;
};

static const int DIR_DIM[7] = {-1, 0, 0, 1, 1, 2, 2};
static const int DIR_SIGN[7] = {0, 1, -1, 1, -1, 1, -1};

static void
make(struct acis_torus *t, const struct geo *g)
{
	assert_int_equal(acis_torus_init(t, g->k[0], g->k[1], g->k[2], g->mesh),
			 0);
}

static struct acis_torus_coord
at(const struct geo *g, unsigned int node)
{
	struct acis_torus_coord c;

	c.c[0] = (uint8_t)(node % g->k[0]);
	c.c[1] = (uint8_t)(node / g->k[0] % g->k[1]);
	c.c[2] = (uint8_t)(node / (g->k[0] * g->k[1]));
	return c;
}

static unsigned int
index_of(const struct geo *g, const struct acis_torus_coord *c)
{
	return c->c[0] + g->k[0] * (c->c[1] + g->k[1] * c->c[2]);
}

/* The signed offset from a to b: along a line b - a; round a ring the
 * shorter way, half way round counting +. */
static int
ref_offset(const struct geo *g, unsigned int dim, int a, int b)
{
	int k = (int)g->k[dim], d;

	if (g->mesh)
		return b - a;
	d = ((b - a) % k + k) % k;
	return d > k / 2 ? d - k : d;
}

/* One hop from node along d: the node reached, or -1 with no link. */
static int
ref_step(const struct geo *g, unsigned int node, unsigned int d)
{
	struct acis_torus_coord c = at(g, node);
	int dim, k, x;

	if (d < 1 || d > 6)
		return -1;
	dim = DIR_DIM[d];
	k = (int)g->k[dim];
	x = c.c[dim] + DIR_SIGN[d];
	if (k == 1 || (g->mesh && (x < 0 || x >= k)))
		return -1;
	c.c[dim] = (uint8_t)((x + k) % k);
	return (int)index_of(g, &c);
}

/* DOR's first hop from a to b: X, Y, then Z, the shorter way. */
static unsigned int
ref_dor(const struct geo *g, unsigned int a, unsigned int b)
{
	struct acis_torus_coord ca = at(g, a), cb = at(g, b);
	unsigned int dim;
	int o;

	for (dim = 0; dim < 3; dim++) {
		o = ref_offset(g, dim, ca.c[dim], cb.c[dim]);
		if (o != 0)
			return 1 + 2 * dim + (o < 0);
	}
	return 0;
}

static unsigned int
ref_distance(const struct geo *g, unsigned int a, unsigned int b)
{
	struct acis_torus_coord ca = at(g, a), cb = at(g, b);
	unsigned int dim, sum = 0;

	for (dim = 0; dim < 3; dim++)
		sum += (unsigned int)abs(
			ref_offset(g, dim, ca.c[dim], cb.c[dim]));
	return sum;
}

/* Whether b is in a's radius-r cube: within r hops of a in every
 * dimension, the shorter way round a ring. */
static int
ref_in_cube(const struct geo *g, unsigned int a, unsigned int b, unsigned int r)
{
	struct acis_torus_coord ca = at(g, a), cb = at(g, b);
	unsigned int dim;

	for (dim = 0; dim < 3; dim++)
		if ((unsigned int)abs(
			    ref_offset(g, dim, ca.c[dim], cb.c[dim])) > r)
			return 0;
	return 1;
}

static struct acis_torus_table *
tables_new(const struct acis_torus *t)
{
	struct acis_torus_table *tb = calloc(t->nodes, sizeof(*tb));

	assert_non_null(tb);
	return tb;
}

/* A header from its fields, through the Fig. 8.2(a) word. */
static void
hdr(struct acis_torus_thdr *h, unsigned int type, unsigned int port,
    unsigned int next, unsigned int prio)
{
	acis_torus_thdr_decode(type << 28 | port << 24 | next << 8 | prio, h);
}

static void
assert_hdr(const struct acis_torus_thdr *h, unsigned int type,
	   unsigned int port, unsigned int next, unsigned int prio)
{
	assert_int_equal(h->type, type);
	assert_int_equal(h->port, port);
	assert_int_equal(h->next, next);
	assert_int_equal(h->prio, prio);
}

/* ---- the header and the lookups ---- */

/* Fig. 8.2(a): [31:28] type, [27:24] exit port, [23:8] next index,
 * [7:0] priority. */
static void
test_header_packs_the_fig_8_2a_fields(void **state)
{
	struct acis_torus_thdr h;
	struct acis_torus_rng rng;
	uint32_t w;
	unsigned int i;

	(void)state;
	hdr(&h, UNI, ACIS_TORUS_XP, 2, 7);
	assert_int_equal(acis_torus_thdr_encode(&h), 0x11000207u);
	hdr(&h, RED, ACIS_TORUS_ZM, 0xbeef, 0xa5);
	assert_int_equal(acis_torus_thdr_encode(&h), 0x36beefa5u);
	acis_torus_thdr_decode(0x25123480u, &h);
	assert_hdr(&h, MC, 5, 0x1234, 0x80);
	acis_torus_rng_seed(&rng, 1);
	for (i = 0; i < 10000; i++) {
		w = acis_torus_rng_next(&rng);
		acis_torus_thdr_decode(w, &h);
		assert_int_equal(acis_torus_thdr_encode(&h), w);
	}
}

static void
test_unicast_lookup_rewrites_the_next_index(void **state)
{
	struct acis_torus_table *tb = calloc(1, sizeof(*tb));
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN];

	(void)state;
	assert_non_null(tb);
	tb->uni[2] = (struct acis_torus_uentry){.valid = 1,
						.type = MC,
						.port = ACIS_TORUS_YP,
						.next = 9,
						.prio = 5};
	tb->uni[3] = (struct acis_torus_uentry){
		.valid = 1, .port = ACIS_TORUS_LOCAL, .prio = 1};
	hdr(&in, UNI, ACIS_TORUS_XP, 2, 200);
	assert_int_equal(acis_torus_table_route(tb, &in, out), 1);
	assert_hdr(&out[0], MC, ACIS_TORUS_YP, 9, 5);
	hdr(&in, UNI, ACIS_TORUS_XP, 3, 200);
	assert_int_equal(acis_torus_table_route(tb, &in, out), 1);
	assert_hdr(&out[0], UNI, ACIS_TORUS_LOCAL, 0, 1);
	free(tb);
}

static void
test_multicast_lookup_gives_a_header_per_child(void **state)
{
	struct acis_torus_table *tb = calloc(1, sizeof(*tb));
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN];
	struct acis_torus_mentry *m;

	(void)state;
	assert_non_null(tb);
	m = &tb->mc[4095];
	m->n = 3;
	m->c[0] = (struct acis_torus_child){.port = ACIS_TORUS_LOCAL};
	m->c[1] = (struct acis_torus_child){
		.port = ACIS_TORUS_ZM, .type = UNI, .next = 17};
	m->c[2] = (struct acis_torus_child){
		.port = ACIS_TORUS_XM, .type = MC, .next = 4000};
	hdr(&in, MC, ACIS_TORUS_YM, 4095, 33);
	assert_int_equal(acis_torus_table_route(tb, &in, out), 3);
	assert_hdr(&out[0], MC, ACIS_TORUS_LOCAL, 0, 33);
	assert_hdr(&out[1], UNI, ACIS_TORUS_ZM, 17, 33);
	assert_hdr(&out[2], MC, ACIS_TORUS_XM, 4000, 33);
	free(tb);
}

static void
test_lookup_refuses_unset_entries_and_bad_headers(void **state)
{
	struct acis_torus_table *tb = calloc(1, sizeof(*tb));
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN];
	unsigned int type;

	(void)state;
	assert_non_null(tb);
	for (type = UNI; type <= RED; type++) {
		hdr(&in, type, 0, 5, 0);
		assert_int_equal(acis_torus_table_route(tb, &in, out), -ENOENT);
		hdr(&in, type, 0, ACIS_TORUS_TABLE_SIZE, 0);
		assert_int_equal(acis_torus_table_route(tb, &in, out), -EINVAL);
	}
	tb->uni[5].valid = 1;
	for (type = 0; type < 16; type++) {
		if (type >= UNI && type <= RED)
			continue;
		hdr(&in, type, 0, 5, 0);
		assert_int_equal(acis_torus_table_route(tb, &in, out), -EINVAL);
	}
	/* written by hand into the struct: a count past the six slots, a
	 * port past Z- */
	tb->mc[6].n = ACIS_TORUS_MCAST_CHILDREN + 1;
	hdr(&in, MC, 0, 6, 0);
	assert_int_equal(acis_torus_table_route(tb, &in, out), -ENOENT);
	tb->mc[6].n = 1;
	tb->mc[6].c[0].port = 7;
	assert_int_equal(acis_torus_table_route(tb, &in, out), -ENOENT);
	tb->uni[5].port = 7;
	hdr(&in, UNI, 0, 5, 0);
	assert_int_equal(acis_torus_table_route(tb, &in, out), -ENOENT);
	tb->red[5] = (struct acis_torus_rentry){.expect = 1, .port = 15};
	hdr(&in, RED, 0, 5, 0);
	assert_int_equal(acis_torus_table_route(tb, &in, out), -ENOENT);
	free(tb);
}

/* A reduction entry completes on its expected count, refuses a second
 * packet from one port and anything past the count until reset. */
static void
test_reduce_entry_completes_once_on_its_expected_count(void **state)
{
	struct acis_torus_table *tb = calloc(1, sizeof(*tb));
	struct acis_torus_reduce_state *s = calloc(1, sizeof(*s));
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN];
	unsigned int round;

	(void)state;
	assert_non_null(tb);
	assert_non_null(s);
	tb->red[7] = (struct acis_torus_rentry){
		.expect = 3, .port = ACIS_TORUS_ZM, .next = 12};
	for (round = 0; round < 2; round++) {
		assert_int_equal(
			acis_torus_reduce_arrive(s, tb, 7, ACIS_TORUS_LOCAL),
			0);
		assert_int_equal(
			acis_torus_reduce_arrive(s, tb, 7, ACIS_TORUS_LOCAL),
			-EALREADY);
		assert_int_equal(
			acis_torus_reduce_arrive(s, tb, 7, ACIS_TORUS_XP), 0);
		assert_int_equal(
			acis_torus_reduce_arrive(s, tb, 7, ACIS_TORUS_YM), 1);
		assert_int_equal(
			acis_torus_reduce_arrive(s, tb, 7, ACIS_TORUS_ZP),
			-EOVERFLOW);
		assert_int_equal(s->s[7].got, 3);
		hdr(&in, RED, ACIS_TORUS_XM, 7, 9);
		assert_int_equal(acis_torus_table_route(tb, &in, out), 1);
		assert_hdr(&out[0], RED, ACIS_TORUS_ZM, 12, 9);
		acis_torus_reduce_reset(s, 7);
	}
	assert_int_equal(acis_torus_reduce_arrive(s, tb, 8, ACIS_TORUS_XP),
			 -ENOENT);
	assert_int_equal(acis_torus_reduce_arrive(s, tb, ACIS_TORUS_TABLE_SIZE,
						  ACIS_TORUS_XP),
			 -EINVAL);
	assert_int_equal(acis_torus_reduce_arrive(s, tb, 7, 7), -EINVAL);
	acis_torus_reduce_reset(s, ACIS_TORUS_TABLE_SIZE); /* ignored */
	free(s);
	free(tb);
}

/* ---- the Fig. 8.1 example ---- */

/*
 * Seed 000 §8.1.1, the paragraph under Fig. 8.2: node A's multicast
 * entry has two fan-outs. The first is a unicast packet to X+ with table
 * index 2 on the next node; it enters node B's X- port, B's unicast
 * entry 2 sends it Y+, it enters node D's Y- port and is ejected. The
 * second goes Y- to node C and is ejected there. A 3x3 mesh holds it:
 * A (0,1), B (1,1), D (1,2), C (0,0). The seed gives index 2 alone; the
 * others here are ours: A's multicast 1, D's unicast 5, C's unicast 3.
 */
static const char FIG_8_1[] = "# Fig. 8.1\n"
			      "[node 0,1]   # A\n"
			      "multicast 1 x+:unicast:2 y-:unicast:3\n"
			      "[node 1,1]   # B\n"
			      "unicast 2 y+:unicast:5\n"
			      "[node 1,2]   # D\n"
			      "unicast 5 local\n"
			      "[node 0,0,0] # C\n"
			      "unicast 3 local\n";

static void
test_fig_8_1_multicast_reaches_d_through_b_and_c(void **state)
{
	const struct geo g = {{3, 3, 1}, 1};
	const unsigned int A = 3, B = 4, D = 7, C = 0;
	struct acis_torus t;
	struct acis_torus_table *tb;
	struct acis_torus_thdr in, out[ACIS_TORUS_MCAST_CHILDREN], *toc;
	uint16_t copies[9], hops[9];
	char err[ACIS_TORUS_TABLE_ERR_LEN] = "";
	unsigned int i;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	assert_int_equal(acis_torus_table_parse_all(&t, "fig81.tbl", FIG_8_1,
						    sizeof(FIG_8_1) - 1, tb,
						    err),
			 0);

	/* hop by hop: A's two fan-outs, each a unicast with its index */
	hdr(&in, MC, ACIS_TORUS_LOCAL, 1, 0);
	assert_int_equal(acis_torus_table_route(&tb[A], &in, out), 2);
	assert_hdr(&out[0], UNI, ACIS_TORUS_XP, 2, 0);
	assert_int_equal(acis_torus_thdr_encode(&out[0]), 0x11000200u);
	assert_int_equal(ref_step(&g, A, out[0].port), (int)B);
	assert_int_equal(acis_torus_dir_opposite(out[0].port), ACIS_TORUS_XM);
	toc = &out[1];
	assert_hdr(toc, UNI, ACIS_TORUS_YM, 3, 0);
	assert_int_equal(ref_step(&g, A, toc->port), (int)C);
	in = out[0];
	assert_int_equal(acis_torus_table_route(&tb[B], &in, out), 1);
	assert_hdr(&out[0], UNI, ACIS_TORUS_YP, 5, 0);
	assert_int_equal(ref_step(&g, B, out[0].port), (int)D);
	assert_int_equal(acis_torus_dir_opposite(out[0].port), ACIS_TORUS_YM);
	in = out[0];
	assert_int_equal(acis_torus_table_route(&tb[D], &in, out), 1);
	assert_int_equal(out[0].port, ACIS_TORUS_LOCAL);
	hdr(&in, UNI, ACIS_TORUS_YM, 3, 0);
	assert_int_equal(acis_torus_table_route(&tb[C], &in, out), 1);
	assert_int_equal(out[0].port, ACIS_TORUS_LOCAL);

	/* the walk: D and C get a copy, 2 and 1 hops; no one else */
	assert_int_equal(acis_torus_table_walk_multicast(&t, tb, A, MC, 1, 0,
							 copies, hops, err),
			 2);
	for (i = 0; i < 9; i++)
		assert_int_equal(copies[i], i == D || i == C);
	assert_int_equal(hops[D], 2);
	assert_int_equal(hops[C], 1);

	/* B's switch loads B's section alone */
	assert_int_equal(acis_torus_table_parse(&t, "fig81.tbl", FIG_8_1,
						sizeof(FIG_8_1) - 1, B, &tb[0],
						err),
			 0);
	assert_true(tb[0].uni[2].valid);
	assert_int_equal(tb[0].uni[2].port, ACIS_TORUS_YP);
	assert_false(tb[0].uni[5].valid);
	assert_false(tb[0].uni[3].valid);
	assert_int_equal(tb[0].mc[1].n, 0);
	free(tb);
}

/* ---- the text format ---- */

struct bad_text {
	const char *text;
	const char *says;
};

/* A 4x4 mesh: node 0,0 has no X- or Y- link, and no Z at all. */
static const struct bad_text BAD[] = {
	{"unicast 1 local\n", "t.tbl:1: 'unicast' before any '[node X,Y,Z]'"},
	{"[node 1,0,0]\n\nunicast 4096 local\n",
	 "t.tbl:3: unicast: expected an INDEX from 0 to 4095, found '4096'"},
	{"[node 1,0,0]\nunicast\n", "t.tbl:2: unicast: expected an INDEX"},
	{"[node 0,0,0]\nunicast 1 x-:unicast:3\n",
	 "t.tbl:2: unicast 1: no link leaves node 0,0,0 by x- in the 4x4x1 "
	 "mesh"},
	{"[node 1,1]\nmulticast 1 z+:multicast:3\n",
	 "multicast 1: no link leaves node 1,1,0 by z+"},
	{"[node 4,0,0]\n", "t.tbl:1: node 4,0,0 is outside the 4x4x1 mesh"},
	{"[node 16]\n", "t.tbl:1: node 16: the 4x4x1 mesh has nodes 0 to 15"},
	{"[nod 1]\n", "expected '[node X,Y,Z]' or '[node INDEX]', found"},
	{"[node 1,0,0,0]\n", "expected '[node X,Y,Z]' or '[node INDEX]'"},
	{"[node 1,]\n", "expected '[node X,Y,Z]'"},
	{"[node 1\n", "expected '[node X,Y,Z]'"},
	{"[node 1]\nmulticast 2\n",
	 "t.tbl:2: multicast 2: expected 'multicast INDEX OUTPUT...'"},
	{"[node 1]\nmulticast 2 local x+:unicast:1 x-:unicast:1 "
	 "y+:unicast:1 local local local\n",
	 "more than 8 fields"},
	{"[node 1]\nmulticast 2 x+:unicast:1 x+:multicast:2\n",
	 "multicast 2: two outputs by x+"},
	{"[node 1]\nmulticast 2 x+:unicast:1 local local\n",
	 "two outputs by local"},
	{"[node 1]\nmulticast 2 x+:reduce:1\n",
	 "multicast 2: expected an output, local or DIR:TABLE:INDEX (DIR x+ "
	 "x- y+ y- z+ z-) with TABLE unicast or multicast and INDEX 0 to "
	 "4095, found 'x+:reduce:1'"},
	{"[node 1]\nmulticast 2 x+:unicast:4096\n", "found 'x+:unicast:4096'"},
	{"[node 1]\nmulticast 2 x+:unicast:\n", "found 'x+:unicast:'"},
	{"[node 1]\nmulticast 2 w+:unicast:1\n", "found 'w+:unicast:1'"},
	{"[node 1]\nmulticast 2 x+\n", "found 'x+'"},
	{"[node 1]\nreduce 1 expect=0 local\n",
	 "reduce 1: expect: expected a number from 1 to 7, found '0'"},
	{"[node 1]\nreduce 1 expect=8 local\n", "from 1 to 7, found '8'"},
	{"[node 1]\nreduce 1 local\n",
	 "reduce 1: no expect=N; the form is 'reduce INDEX expect=1-7 "
	 "OUTPUT'"},
	{"[node 1]\nreduce 1 expect=2\n", "reduce 1: no output"},
	{"[node 1]\nreduce 1 expect=2 x+:unicast:3\n", "with TABLE reduce"},
	{"[node 1]\nreduce 1 expect=2 local expect=3\n",
	 "reduce 1: 'expect=3' is one too many"},
	{"[node 1]\nunicast 1 x+:reduce:3\n",
	 "with TABLE unicast or multicast"},
	{"[node 1]\nunicast 1 local local\n",
	 "unicast 1: 'local' is one too many; the form is 'unicast INDEX "
	 "OUTPUT [prio=0-255]'"},
	{"[node 1]\nunicast 1 local prio=256\n",
	 "prio: expected a number from 0 to 255, found '256'"},
	{"[node 1]\nunicast 1 local prio=99999999999999999999\n",
	 "found '99999999999999999999'"},
	{"[node 1]\nunicast 1 local\n[node 2]\n[node 1,0]\nunicast 1 local\n",
	 "t.tbl:5: unicast 1 is set twice for node 1,0,0"},
	{"[node 1]\nfrob 1\n", "t.tbl:2: expected '[node X,Y,Z]' or '[node "
			       "INDEX]', 'unicast INDEX OUTPUT"},
	{"[node 1]\nunicast -1 local\n", "found '-1'"},
};

static void
test_bad_lines_name_file_line_and_form(void **state)
{
	const struct geo g = {{4, 4, 1}, 1};
	struct acis_torus t;
	struct acis_torus_table *tb;
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	unsigned int i;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	for (i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
		err[0] = '\0';
		assert_int_equal(acis_torus_table_parse_all(
					 &t, "t.tbl", BAD[i].text,
					 strlen(BAD[i].text), tb, err),
				 -EINVAL);
		if (strstr(err, BAD[i].says) == NULL)
			fail_msg("case %u: '%s' does not say '%s'", i, err,
				 BAD[i].says);
	}
	free(tb);
}

/* A line too long, a NUL byte, no text: errors, not a crash; an empty
 * file or a comment is an empty table. */
static void
test_odd_text_is_refused_or_empty(void **state)
{
	const struct geo g = {{4, 4, 1}, 0};
	struct acis_torus t;
	struct acis_torus_table *tb;
	char err[ACIS_TORUS_TABLE_ERR_LEN], *big;
	static const char nul[] = "[node 1]\nunicast 1\0 local\n";
	static const char crlf[] = "[NODE 1]\r\nUnicast 1 X+:Multicast:4\r\n";

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	big = malloc(3000);
	assert_non_null(big);
	memset(big, ' ', 3000);
	memcpy(big, "[node 1]\n", 9);
	assert_int_equal(
		acis_torus_table_parse_all(&t, "big", big, 3000, tb, err),
		-EINVAL);
	assert_non_null(strstr(err, "big:2: a line longer than 1024"));
	assert_int_equal(acis_torus_table_parse_all(&t, "nul", nul,
						    sizeof(nul) - 1, tb, err),
			 -EINVAL);
	assert_non_null(strstr(err, "nul:2: a NUL byte"));
	assert_int_equal(acis_torus_table_parse_all(&t, "e", NULL, 0, tb, err),
			 0);
	assert_int_equal(
		acis_torus_table_parse_all(&t, "e", "# x\r\n\n", 6, tb, err),
		0);
	assert_int_equal(acis_torus_table_parse(&t, "e", "", 0, 16, tb, err),
			 -EINVAL);
	assert_non_null(
		strstr(err, "e: node 16: the 4x4x1 torus has nodes 0 to 15"));
	/* CRLF line ends and upper case read as the rest */
	assert_int_equal(acis_torus_table_parse_all(&t, "crlf", crlf,
						    strlen(crlf), tb, err),
			 0);
	assert_true(tb[1].uni[1].valid);
	assert_int_equal(tb[1].uni[1].type, MC);
	free(big);
	free(tb);
}

/* The same entries (the type and index of an eject are not read). */
static void
assert_table_equal(const struct acis_torus_table *a,
		   const struct acis_torus_table *b)
{
	unsigned int i, j;

	for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++) {
		const struct acis_torus_uentry *ua = &a->uni[i],
					       *ub = &b->uni[i];
		const struct acis_torus_mentry *ma = &a->mc[i], *mb = &b->mc[i];
		const struct acis_torus_rentry *ra = &a->red[i],
					       *rb = &b->red[i];

		assert_int_equal(ua->valid, ub->valid);
		if (ua->valid) {
			assert_int_equal(ua->port, ub->port);
			assert_int_equal(ua->prio, ub->prio);
			if (ua->port != ACIS_TORUS_LOCAL) {
				assert_int_equal(ua->type, ub->type);
				assert_int_equal(ua->next, ub->next);
			}
		}
		assert_int_equal(ma->n, mb->n);
		for (j = 0; j < ma->n; j++) {
			assert_int_equal(ma->c[j].port, mb->c[j].port);
			if (ma->c[j].port == ACIS_TORUS_LOCAL)
				continue;
			assert_int_equal(ma->c[j].type, mb->c[j].type);
			assert_int_equal(ma->c[j].next, mb->c[j].next);
		}
		assert_int_equal(ra->expect, rb->expect);
		if (ra->expect != 0) {
			assert_int_equal(ra->port, rb->port);
			if (ra->port != ACIS_TORUS_LOCAL)
				assert_int_equal(ra->next, rb->next);
		}
	}
}

/* The printed tables read back the same. */
static char *
print_tables(const struct acis_torus *t, const struct acis_torus_table *tb,
	     size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	assert_int_equal(acis_torus_table_print(f, t, tb), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Random destination sets; the root is listed among them now and then. */
static unsigned int
random_set(const struct acis_torus *t, struct acis_torus_rng *rng,
	   uint32_t root, uint32_t *dsts)
{
	unsigned int n = 1 + acis_torus_rng_below(rng, t->nodes), i;

	for (i = 0; i < n; i++)
		dsts[i] = acis_torus_rng_below(rng, t->nodes);
	if (n == 1 || dsts[0] == root)
		dsts[0] = (root + 1) % t->nodes;
	return n;
}

static void
test_printed_tables_parse_back_the_same(void **state)
{
	const struct geo g = {{4, 4, 4}, 0};
	struct acis_torus t;
	struct acis_torus_table *tb, *back;
	struct acis_torus_tree_node *tree;
	struct acis_torus_rng rng;
	char err[ACIS_TORUS_TABLE_ERR_LEN] = "";
	uint32_t dsts[64];
	unsigned int i, n;
	size_t len;
	char *text;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	back = tables_new(&t);
	tree = calloc(t.nodes, sizeof(*tree));
	assert_non_null(tree);
	acis_torus_rng_seed(&rng, 7);
	for (i = 0; i < 20; i++) {
		uint32_t root = acis_torus_rng_below(&rng, t.nodes);

		n = random_set(&t, &rng, root, dsts);
		assert_int_equal(acis_torus_table_build(&t, root, dsts, n,
							(uint16_t)(i * 3), tb,
							tree),
				 0);
	}
	tb[5].uni[4000] = (struct acis_torus_uentry){
		.valid = 1, .type = UNI, .port = ACIS_TORUS_LOCAL, .prio = 255};
	text = print_tables(&t, tb, &len);
	assert_int_equal(
		acis_torus_table_parse_all(&t, "printed", text, len, back, err),
		0);
	for (i = 0; i < t.nodes; i++)
		assert_table_equal(&tb[i], &back[i]);
	/* one node's parse keeps that node's entries alone */
	assert_int_equal(acis_torus_table_parse(&t, "printed", text, len, 5,
						&back[0], err),
			 0);
	assert_table_equal(&tb[5], &back[0]);
	free(text);
	free(tree);
	free(back);
	free(tb);
}

/* Random damage to a good file: every parse ends in 0 or -EINVAL with a
 * message naming the file, and the sanitizers see no fault. */
static void
test_damaged_files_never_crash_the_parser(void **state)
{
	const struct geo g = {{4, 4, 4}, 1};
	struct acis_torus t;
	struct acis_torus_table *tb;
	struct acis_torus_tree_node *tree;
	struct acis_torus_rng rng;
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	static const char bytes[] =
		"[]#:=,+- \n\t\r0123456789xyzlocalmun\0\xff";
	uint32_t dsts[] = {1, 22, 63, 40, 9};
	unsigned int i, j, edits;
	size_t len, n;
	char *text, *buf;
	int rc;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	tree = calloc(t.nodes, sizeof(*tree));
	assert_non_null(tree);
	assert_int_equal(acis_torus_table_build(&t, 21, dsts, 5, 0, tb, tree),
			 0);
	text = print_tables(&t, tb, &len);
	buf = malloc(len + 64);
	assert_non_null(buf);
	acis_torus_rng_seed(&rng, 99);
	for (i = 0; i < 3000; i++) {
		memcpy(buf, text, len);
		n = len;
		edits = 1 + acis_torus_rng_below(&rng, 8);
		for (j = 0; j < edits && n > 0; j++) {
			size_t at = acis_torus_rng_below(&rng, (uint32_t)n);

			switch (acis_torus_rng_below(&rng, 3)) {
			case 0:
				buf[at] = bytes[acis_torus_rng_below(
					&rng, sizeof(bytes) - 1)];
				break;
			case 1:
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default:
				if (n < len + 63) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] =
						(char)acis_torus_rng_next(&rng);
					n++;
				}
			}
		}
		err[0] = '\0';
		rc = acis_torus_table_parse_all(&t, "dmg", buf, n, tb, err);
		assert_true(rc == 0 || rc == -EINVAL);
		if (rc != 0)
			assert_memory_equal(err, "dmg:", 4);
		rc = acis_torus_table_parse(&t, "dmg", buf, n,
					    acis_torus_rng_below(&rng, 64), tb,
					    err);
		assert_true(rc == 0 || rc == -EINVAL);
		assert_true(strlen(err) < ACIS_TORUS_TABLE_ERR_LEN);
	}
	free(buf);
	free(text);
	free(tree);
	free(tb);
}

static void
test_load_reads_a_file_and_names_it(void **state)
{
	const struct geo g = {{3, 3, 1}, 1};
	char path[] = "/tmp/acis-torus-tables-XXXXXX";
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	struct acis_torus t;
	struct acis_torus_table *tb;
	int fd;
	FILE *f;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(FIG_8_1, f);
	fputs("[node 2,2]\nunicast 1 x+:unicast:0\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(acis_torus_table_load(&t, path, 4, tb, err), -EINVAL);
	assert_memory_equal(err, path, strlen(path));
	assert_non_null(strstr(err, ":11: unicast 1: no link leaves node "
				    "2,2,0 by x+"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(acis_torus_table_load(&t, path, 4, tb, err), -ENOENT);
	assert_non_null(strstr(err, path));
	free(tb);
}

/* ---- the tree builder and the walks ---- */

static const struct geo TREE_GEOS[] = {
	{{4, 4, 4}, 0}, {{4, 4, 4}, 1}, {{8, 8, 1}, 0}, {{5, 3, 1}, 0},
	{{8, 1, 1}, 1}, {{3, 3, 3}, 0}, {{2, 2, 2}, 0}, {{1, 6, 5}, 1},
};
#define NTREE_GEOS (sizeof(TREE_GEOS) / sizeof(TREE_GEOS[0]))

/* Take up to three indices from base on at random in each node's
 * tables, so that a tree's entries sit at different indices on each
 * node and a wrong next index shows. */
static void
clutter(const struct acis_torus *t, struct acis_torus_table *tb,
	struct acis_torus_rng *rng, uint16_t base)
{
	unsigned int node, i;

	memset(tb, 0, sizeof(*tb) * t->nodes);
	for (node = 0; node < t->nodes; node++)
		for (i = base; i < base + 3u; i++) {
			if (acis_torus_rng_below(rng, 2))
				tb[node].uni[i].valid = 1;
			if (acis_torus_rng_below(rng, 2))
				tb[node].mc[i].n = 1;
			if (acis_torus_rng_below(rng, 2))
				tb[node].red[i].expect = 1;
		}
}

/* Build a tree into cluttered tables, then follow its multicast from
 * the root and its reduction from every member, against the DOR
 * distances. */
static void
check_tree(const struct geo *g, const struct acis_torus *t,
	   struct acis_torus_table *tb, struct acis_torus_tree_node *tree,
	   struct acis_torus_walk_node *scratch, uint32_t root,
	   const uint32_t *dsts, unsigned int n, struct acis_torus_rng *rng)
{
	const uint16_t base = 20;
	struct acis_torus_table *before = tables_new(t);
	uint16_t copies[512], hops[512], index[512];
	uint32_t members[512];
	uint8_t member[512] = {0};
	struct acis_torus_reduce_walk w;
	char err[ACIS_TORUS_TABLE_ERR_LEN] = "";
	unsigned int i, want = 0, nm = 0, far = 0;
	int rc;

	clutter(t, tb, rng, base);
	memcpy(before, tb, sizeof(*tb) * t->nodes);
	assert_int_equal(
		acis_torus_table_build(t, root, dsts, n, base, tb, tree), 0);
	for (i = 0; i < n; i++)
		member[dsts[i]] = 1;
	for (i = 0; i < t->nodes; i++) {
		if (!member[i])
			continue;
		members[nm] = i;
		index[nm++] = tree[i].red_index;
		want += i != root;
		if (ref_distance(g, root, i) > far)
			far = ref_distance(g, root, i);
	}
	rc = acis_torus_table_walk_multicast(t, tb, root, tree[root].mc_type,
					     tree[root].mc_index, 0, copies,
					     hops, err);
	if (rc < 0)
		fail_msg("multicast walk: %s", err);
	assert_int_equal(rc, (int)want);
	for (i = 0; i < t->nodes; i++) {
		assert_int_equal(copies[i], member[i] && i != root);
		if (copies[i])
			assert_int_equal(hops[i], ref_distance(g, root, i));
		/* the tree is the paths: the root, and nodes with a parent;
		 * a node off them gets no entry */
		assert_int_equal(tree[i].in_tree,
				 i == root || tree[i].parent != 0);
		if (!tree[i].in_tree)
			assert_memory_equal(&tb[i], &before[i], sizeof(*tb));
	}
	free(before);
	memset(scratch, 0, sizeof(*scratch) * t->nodes);
	rc = acis_torus_table_walk_reduce(t, tb, members, index, nm, 0, scratch,
					  &w, err);
	if (rc < 0)
		fail_msg("reduction walk: %s", err);
	assert_int_equal(w.completions, 1);
	assert_int_equal(w.node, root);
	assert_int_equal(w.total, nm);
	assert_int_equal(w.pending, 0);
	assert_int_equal(w.hops, far);
}

static void
test_tree_multicast_and_reduction_reach_every_member_once(void **state)
{
	struct acis_torus_rng rng;
	uint32_t dsts[600];
	unsigned int gi, i, n;

	(void)state;
	acis_torus_rng_seed(&rng, 2024);
	for (gi = 0; gi < NTREE_GEOS; gi++) {
		const struct geo *g = &TREE_GEOS[gi];
		struct acis_torus t;
		struct acis_torus_table *tb;
		struct acis_torus_tree_node *tree;
		struct acis_torus_walk_node *scratch;

		make(&t, g);
		tb = tables_new(&t);
		tree = calloc(t.nodes, sizeof(*tree));
		scratch = calloc(t.nodes, sizeof(*scratch));
		assert_non_null(tree);
		assert_non_null(scratch);
		for (i = 0; i < 12; i++) {
			uint32_t root = acis_torus_rng_below(&rng, t.nodes);

			n = random_set(&t, &rng, root, dsts);
			check_tree(g, &t, tb, tree, scratch, root, dsts, n,
				   &rng);
		}
		/* a broadcast to every node, the root among them */
		for (i = 0; i < t.nodes; i++)
			dsts[i] = i;
		check_tree(g, &t, tb, tree, scratch, t.nodes - 1, dsts, t.nodes,
			   &rng);
		free(scratch);
		free(tree);
		free(tb);
	}
}

/*
 * A 4x4 mesh, root (0,0), members (2,0), (2,1), (0,1):
 *
 *   (0,1)m          (2,1)m
 *     |               |
 *   (0,0)r -- (1,0) -- (2,0)m
 *
 * The root fans out (multicast), (1,0) relays (unicast), (2,0) ejects
 * and relays (multicast), the leaves eject (unicast). Reduction counts:
 * children, plus one for a member.
 */
static void
test_tree_entries_count_children_and_membership(void **state)
{
	const struct geo g = {{4, 4, 1}, 1};
	struct acis_torus t;
	struct acis_torus_table *tb;
	struct acis_torus_tree_node *tree;
	const uint32_t dsts[] = {2, 6, 4};
	const struct acis_torus_uentry *u;
	const struct acis_torus_mentry *m;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	tree = calloc(t.nodes, sizeof(*tree));
	assert_non_null(tree);
	assert_int_equal(acis_torus_table_build(&t, 0, dsts, 3, 10, tb, tree),
			 0);
	assert_int_equal(tree[0].mc_type, MC);
	assert_int_equal(tree[0].mc_index, 10);
	m = &tb[0].mc[10];
	assert_int_equal(m->n, 2);
	assert_int_equal(m->c[0].port, ACIS_TORUS_XP);
	assert_int_equal(m->c[0].type, UNI);
	assert_int_equal(m->c[1].port, ACIS_TORUS_YP);
	assert_int_equal(m->c[1].type, UNI);
	u = &tb[1].uni[10];
	assert_true(u->valid);
	assert_int_equal(u->port, ACIS_TORUS_XP);
	assert_int_equal(u->type, MC);
	assert_int_equal(u->prio, 2); /* farthest: (2,1), two hops on */
	m = &tb[2].mc[10];
	assert_int_equal(m->n, 2);
	assert_int_equal(m->c[0].port, ACIS_TORUS_LOCAL);
	assert_int_equal(m->c[1].port, ACIS_TORUS_YP);
	assert_int_equal(tb[6].uni[10].port, ACIS_TORUS_LOCAL);
	assert_int_equal(tb[4].uni[10].port, ACIS_TORUS_LOCAL);

	assert_int_equal(tb[0].red[10].expect, 2);
	assert_int_equal(tb[0].red[10].port, ACIS_TORUS_LOCAL);
	assert_int_equal(tb[1].red[10].expect, 1);
	assert_int_equal(tb[1].red[10].port, ACIS_TORUS_XM);
	assert_int_equal(tb[2].red[10].expect, 2);
	assert_int_equal(tb[2].red[10].port, ACIS_TORUS_XM);
	assert_int_equal(tb[6].red[10].expect, 1);
	assert_int_equal(tb[6].red[10].port, ACIS_TORUS_YM);
	assert_int_equal(tb[4].red[10].expect, 1);
	assert_int_equal(tb[4].red[10].port, ACIS_TORUS_YM);
	/* nothing on nodes off the tree */
	assert_false(tb[3].uni[10].valid);
	assert_int_equal(tb[5].red[10].expect, 0);
	free(tree);
	free(tb);
}

/* Trees built into the same tables take distinct free indices where
 * they meet, and each still walks right. */
static void
test_trees_share_tables_at_distinct_indices(void **state)
{
	const struct geo g = {{4, 4, 4}, 0};
	struct acis_torus t;
	struct acis_torus_table *tb;
	struct acis_torus_tree_node *tree[3];
	struct acis_torus_walk_node *scratch;
	const uint32_t roots[3] = {0, 0, 21};
	const uint32_t sets[3][4] = {
		{1, 5, 21, 63}, {2, 5, 42, 63}, {0, 5, 6, 63}};
	uint16_t copies[64], hops[64];
	unsigned int i, k;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	scratch = calloc(t.nodes, sizeof(*scratch));
	assert_non_null(scratch);
	for (i = 0; i < 3; i++) {
		tree[i] = calloc(t.nodes, sizeof(*tree[i]));
		assert_non_null(tree[i]);
		assert_int_equal(acis_torus_table_build(&t, roots[i], sets[i],
							4, 100, tb, tree[i]),
				 0);
	}
	for (k = 0; k < t.nodes; k++)
		for (i = 0; i < 3; i++) {
			unsigned int j;

			for (j = 0; j < i; j++) {
				if (!tree[i][k].in_tree || !tree[j][k].in_tree)
					continue;
				assert_int_not_equal(tree[i][k].red_index,
						     tree[j][k].red_index);
				if (tree[i][k].mc_type == tree[j][k].mc_type)
					assert_int_not_equal(
						tree[i][k].mc_index,
						tree[j][k].mc_index);
			}
		}
	assert_int_equal(tree[0][0].mc_index, 100);
	assert_int_equal(tree[1][0].mc_index, 101);
	for (i = 0; i < 3; i++) {
		uint32_t members[4];
		uint16_t index[4];
		struct acis_torus_reduce_walk w;
		unsigned int n = 0;

		assert_int_equal(acis_torus_table_walk_multicast(
					 &t, tb, roots[i],
					 tree[i][roots[i]].mc_type,
					 tree[i][roots[i]].mc_index, 0, copies,
					 hops, NULL),
				 sets[i][0] == roots[i] ? 3 : 4);
		for (k = 0; k < 4; k++) {
			assert_int_equal(copies[sets[i][k]],
					 sets[i][k] != roots[i]);
			members[n] = sets[i][k];
			index[n++] = tree[i][sets[i][k]].red_index;
		}
		memset(scratch, 0, sizeof(*scratch) * t.nodes);
		assert_int_equal(
			acis_torus_table_walk_reduce(&t, tb, members, index, n,
						     0, scratch, &w, NULL),
			0);
		assert_int_equal(w.completions, 1);
		assert_int_equal(w.node, roots[i]);
		assert_int_equal(w.total, 4);
	}
	for (i = 0; i < 3; i++)
		free(tree[i]);
	free(scratch);
	free(tb);
}

static void
test_build_refuses_bad_sets_and_full_tables(void **state)
{
	const struct geo g = {{4, 4, 1}, 0};
	struct acis_torus t;
	struct acis_torus_table *tb, *copy;
	struct acis_torus_tree_node *tree;
	const uint32_t dsts[] = {3, 5, 16};
	unsigned int i;

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	copy = tables_new(&t);
	tree = calloc(t.nodes, sizeof(*tree));
	assert_non_null(tree);
	assert_int_equal(acis_torus_table_build(&t, 16, dsts, 1, 0, tb, tree),
			 -EINVAL);
	assert_int_equal(acis_torus_table_build(&t, 0, dsts, 3, 0, tb, tree),
			 -EINVAL);
	assert_int_equal(acis_torus_table_build(&t, 0, dsts, 0, 0, tb, tree),
			 -EINVAL);
	assert_int_equal(acis_torus_table_build(&t, 3, dsts, 1, 0, tb, tree),
			 -EINVAL); /* the root alone */
	/* node 1 (on the way to 5) has no free reduction index from 4090 */
	for (i = 4090; i < ACIS_TORUS_TABLE_SIZE; i++)
		tb[1].red[i].expect = 1;
	memcpy(copy, tb, sizeof(*tb) * t.nodes);
	assert_int_equal(acis_torus_table_build(&t, 0, dsts, 2, 4090, tb, tree),
			 -ENOSPC);
	assert_memory_equal(copy, tb, sizeof(*tb) * t.nodes);
	assert_int_equal(acis_torus_table_build(&t, 0, dsts, 2, 4089, tb, tree),
			 0);
	assert_int_equal(tree[1].red_index, 4089);
	free(tree);
	free(copy);
	free(tb);
}

/* A loop, an unset entry, a port with no link, a count too high or too
 * low: each walk stops and says where. */
static void
test_walks_report_loops_and_broken_tables(void **state)
{
	const struct geo g = {{4, 1, 1}, 0};
	static const char ring[] = "[node 0]\nunicast 0 x+:unicast:0\n"
				   "[node 1]\nunicast 0 x+:unicast:0\n"
				   "[node 2]\nunicast 0 x+:unicast:0\n"
				   "[node 3]\nunicast 0 x+:unicast:0\n"
				   "multicast 1 local x+:unicast:1\n"
				   "reduce 0 expect=1 x+:reduce:0\n"
				   "[node 0]\nreduce 0 expect=1 local\n"
				   "[node 2]\nreduce 0 expect=2 x-:reduce:0\n"
				   "[node 1]\nreduce 0 expect=2 x-:reduce:0\n";
	struct acis_torus t;
	struct acis_torus_table *tb;
	struct acis_torus_walk_node *scratch;
	struct acis_torus_reduce_walk w;
	char err[ACIS_TORUS_TABLE_ERR_LEN];
	uint16_t copies[4], hops[4], index[4] = {0, 0, 0, 0};
	uint32_t members[4] = {3, 2, 2, 0};

	(void)state;
	make(&t, &g);
	tb = tables_new(&t);
	scratch = calloc(t.nodes, sizeof(*scratch));
	assert_non_null(scratch);
	assert_int_equal(acis_torus_table_parse_all(&t, "ring", ring,
						    sizeof(ring) - 1, tb, err),
			 0);
	assert_int_equal(acis_torus_table_walk_multicast(&t, tb, 0, UNI, 0, 0,
							 copies, hops, err),
			 -ELOOP);
	assert_non_null(strstr(err, "past the hop bound"));
	assert_int_equal(acis_torus_table_walk_multicast(&t, tb, 3, MC, 1, 0,
							 copies, hops, err),
			 -ENOENT);
	assert_non_null(strstr(err, "node 0,0,0: unicast 1 is not set"));
	assert_int_equal(acis_torus_table_walk_multicast(&t, tb, 3, RED, 0, 0,
							 copies, hops, err),
			 -EPROTO);
	tb[1].uni[0].port = ACIS_TORUS_YP; /* no Y in a ring */
	assert_int_equal(acis_torus_table_walk_multicast(&t, tb, 1, UNI, 0, 0,
							 copies, hops, err),
			 -ENETUNREACH);
	assert_non_null(strstr(err, "node 1,0,0: no link leaves by y+"));

	/* 3 -> 0 (root) completes at once; 2 expects two but its own
	 * contribution comes twice */
	assert_int_equal(acis_torus_table_walk_reduce(&t, tb, members, index, 4,
						      0, scratch, &w, err),
			 -EALREADY);
	assert_non_null(strstr(err, "node 2,0,0: reduce 0: two packets from "
				    "local"));
	assert_int_equal(w.completions, 1);
	/* without the repeat, 2 waits for what never comes */
	memset(scratch, 0, sizeof(*scratch) * t.nodes);
	assert_int_equal(acis_torus_table_walk_reduce(&t, tb, members, index, 2,
						      0, scratch, &w, err),
			 0);
	assert_int_equal(w.completions, 1);
	assert_int_equal(w.node, 0);
	assert_int_equal(w.total, 1);
	assert_int_equal(w.pending, 1);
	/* once the root completed, another packet is one too many */
	members[1] = 0;
	memset(scratch, 0, sizeof(*scratch) * t.nodes);
	assert_int_equal(acis_torus_table_walk_reduce(&t, tb, members, index, 2,
						      0, scratch, &w, err),
			 -EOVERFLOW);
	free(scratch);
	free(tb);
}

/* ---- the online cube multicast (Algorithm 2) ---- */

static const struct geo CUBE_GEOS[] = {
	{{4, 4, 4}, 0}, {{8, 8, 8}, 0}, {{4, 4, 4}, 1},
	{{5, 2, 3}, 0}, {{6, 6, 1}, 1}, {{7, 1, 1}, 0},
};
#define NCUBE_GEOS (sizeof(CUBE_GEOS) / sizeof(CUBE_GEOS[0]))

typedef void cube_check(const struct geo *g, const struct acis_torus *t,
			unsigned int node, unsigned int r);

/* check() on every node of every shape at R = 1 and 2, and on one node
 * with a radius past every ring (the cube is then the whole network). */
static void
each_cube(cube_check *check)
{
	unsigned int gi, node, r;

	for (gi = 0; gi < NCUBE_GEOS; gi++) {
		struct acis_torus t;

		make(&t, &CUBE_GEOS[gi]);
		for (r = 1; r <= 2; r++)
			for (node = 0; node < t.nodes; node++)
				check(&CUBE_GEOS[gi], &t, node, r);
		check(&CUBE_GEOS[gi], &t, t.nodes / 3, 9);
	}
}

/* Send a multicast of radius r from src hop by hop as switches would:
 * every cube node but src gets exactly one copy, no other node any,
 * every copy is one the tree expects, every turn is legal. */
static void
walk_cube(const struct geo *g, const struct acis_torus *t, unsigned int src,
	  unsigned int r)
{
	unsigned int qnode[1024], qfrom[1024], head = 0, tail = 0, i;
	unsigned int seen[512] = {0}, ejected[512] = {0}, links = 0, cube = 0;
	struct acis_torus_coord s = at(g, src);

	qnode[tail] = src;
	qfrom[tail++] = ACIS_TORUS_LOCAL;
	while (head < tail) {
		unsigned int node = qnode[head], from = qfrom[head++], d;
		struct acis_torus_coord c = at(g, node);
		uint8_t mask;
		int rc;

		rc = acis_torus_cube_multicast(t, &s, &c, from, r, &mask);
		if (rc < 0)
			fail_msg("src %u r %u: node %u from %u refused (%d)",
				 src, r, node, from, rc);
		seen[node]++;
		ejected[node] += (unsigned int)rc;
		for (d = 1; d <= 6; d++) {
			int next;

			if (!(mask & BIT(d)))
				continue;
			next = ref_step(g, node, d);
			assert_true(next >= 0);
			assert_true(acis_torus_turn_legal(from, d));
			assert_true(tail < 1024);
			qnode[tail] = (unsigned int)next;
			qfrom[tail++] = d;
			links++;
		}
	}
	for (i = 0; i < t->nodes; i++) {
		int in = ref_in_cube(g, src, i, r);

		cube += (unsigned int)in;
		if (seen[i] != (unsigned int)in ||
		    ejected[i] != (in && i != src))
			fail_msg("%ux%ux%u%s src %u r %u: node %u in cube %d "
				 "reached %u times, ejected %u",
				 g->k[0], g->k[1], g->k[2],
				 g->mesh ? " mesh" : "", src, r, i, in, seen[i],
				 ejected[i]);
	}
	assert_int_equal(links, cube - 1); /* a tree: no link used twice */
}

static void
test_cube_multicast_gives_each_cube_node_one_copy(void **state)
{
	(void)state;
	each_cube(walk_cube);
}

/* Algorithm 2 as printed, with cur - src unwrapped: a cube away from
 * the wrap links of an 8x8x8 torus, R = 1 and 2. */
static unsigned int
alg2(const int cur[3], const int src[3], int r)
{
	const unsigned int XP = BIT(1), XM = BIT(2), YP = BIT(3), YM = BIT(4),
			   ZP = BIT(5), ZM = BIT(6);

	if (cur[1] == src[1] && cur[2] == src[2]) {
		if (cur[0] == src[0])
			return XP | XM | YP | YM | ZP | ZM;
		else if (abs(cur[0] - src[0]) < r && cur[0] > src[0])
			return XP | YP | YM | ZP | ZM;
		else if (abs(cur[0] - src[0]) < r && cur[0] < src[0])
			return XM | YP | YM | ZP | ZM;
		else
			return YP | YM | ZP | ZM;
	} else if (cur[2] == src[2]) {
		if (abs(cur[1] - src[1]) < r && cur[1] > src[1])
			return YP | ZP | ZM;
		else if (abs(cur[1] - src[1]) < r && cur[1] < src[1])
			return YM | ZP | ZM;
		else
			return ZP | ZM;
	} else {
		if (abs(cur[2] - src[2]) < r && cur[2] > src[2])
			return ZP;
		else if (abs(cur[2] - src[2]) < r && cur[2] < src[2])
			return ZM;
		else
			return 0;
	}
}

static void
test_cube_multicast_is_algorithm_2_away_from_the_wrap(void **state)
{
	const struct geo g = {{8, 8, 8}, 0};
	struct acis_torus t;
	struct acis_torus_coord s = {{4, 3, 4}}, c;
	int src[3] = {4, 3, 4}, cur[3], r, x, y, z;
	uint8_t mask;

	(void)state;
	make(&t, &g);
	for (r = 1; r <= 2; r++)
		for (z = -r; z <= r; z++)
			for (y = -r; y <= r; y++)
				for (x = -r; x <= r; x++) {
					unsigned int from = 0;

					cur[0] = src[0] + x;
					cur[1] = src[1] + y;
					cur[2] = src[2] + z;
					c.c[0] = (uint8_t)cur[0];
					c.c[1] = (uint8_t)cur[1];
					c.c[2] = (uint8_t)cur[2];
					if (z != 0)
						from = z > 0 ? 5 : 6;
					else if (y != 0)
						from = y > 0 ? 3 : 4;
					else if (x != 0)
						from = x > 0 ? 1 : 2;
					assert_int_equal(
						acis_torus_cube_multicast(
							&t, &s, &c, from,
							(unsigned int)r, &mask),
						from != 0);
					assert_int_equal(mask,
							 alg2(cur, src, r));
				}
}

static void
test_cube_multicast_refuses_copies_it_should_not_see(void **state)
{
	const struct geo g = {{8, 8, 8}, 0};
	struct acis_torus t;
	struct acis_torus_coord s = {{0, 0, 0}}, c = {{7, 0, 0}};
	uint8_t mask = 0xff;

	(void)state;
	make(&t, &g);
	/* (7,0,0) is one hop X- round the ring: it came moving X- */
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM, 1, &mask),
		1);
	assert_int_equal(mask, BIT(3) | BIT(4) | BIT(5) | BIT(6));
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XP, 1, &mask),
		-EPROTO);
	assert_int_equal(mask, 0);
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &s, ACIS_TORUS_XP, 1, &mask),
		-EPROTO); /* back at the source: a loop */
	c.c[0] = 6;
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM, 1, &mask),
		-ERANGE);
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM, 2, &mask),
		1);
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM, 0, &mask),
		-EINVAL);
	assert_int_equal(acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM,
						   ACIS_TORUS_CUBE_R_MAX + 1,
						   &mask),
			 -EINVAL);
	c.c[2] = 8;
	assert_int_equal(
		acis_torus_cube_multicast(&t, &s, &c, ACIS_TORUS_XM, 1, &mask),
		-EINVAL);
}

/* ---- the online cube reduction (Algorithm 3, Eq. 6.1-6.4) ---- */

static void
test_cube_dst_id_is_eq_6_4_across_the_wrap(void **state)
{
	const struct geo g = {{4, 4, 4}, 0}, m = {{4, 4, 4}, 1};
	struct acis_torus t, tm;
	struct acis_torus_coord cur = {{0, 0, 0}}, dst, back;
	unsigned int id, used = 0;
	int rc;

	(void)state;
	make(&t, &g);
	make(&tm, &m);
	assert_int_equal(acis_torus_cube_ids(1), 27);
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &cur, 1), 13);
	dst = (struct acis_torus_coord){{1, 0, 0}};
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &dst, 1), 14);
	dst = (struct acis_torus_coord){{3, 3, 3}}; /* -1 each way */
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &dst, 1), 0);
	dst = (struct acis_torus_coord){{1, 3, 1}}; /* dx 2 dy 0 dz 2 */
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &dst, 1),
			 9 * 2 + 3 * 0 + 2);
	assert_int_equal(acis_torus_cube_dst_id(&tm, &cur, &dst, 1), -ERANGE);
	dst = (struct acis_torus_coord){{2, 0, 0}};
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &dst, 1), -ERANGE);
	/* R = 2 on a 4-ring: offset 2 is spelt +2, never -2 */
	assert_int_equal(acis_torus_cube_dst_id(&t, &cur, &dst, 2),
			 25 * 2 + 5 * 2 + 4);
	for (id = 0; id < acis_torus_cube_ids(2); id++) {
		rc = acis_torus_cube_dst(&t, &cur, 2, id, &back);
		if (rc == 0) {
			used++;
			assert_int_equal(
				acis_torus_cube_dst_id(&t, &cur, &back, 2),
				(int)id);
		} else {
			assert_int_equal(rc, -ERANGE);
		}
	}
	assert_int_equal(used, 64); /* every node once */
	/* a mesh corner has the 27 of R = 2 that lie inside */
	for (id = used = 0; id < acis_torus_cube_ids(2); id++)
		used += acis_torus_cube_dst(&tm, &cur, 2, id, &back) == 0;
	assert_int_equal(used, 27);
	assert_int_equal(acis_torus_cube_dst(&t, &cur, 2, 125, &back), -ERANGE);
	assert_int_equal(acis_torus_cube_dst(&t, &cur, 0, 0, &back), -EINVAL);
}

/* Every member of dst's cube sends its contribution to dst along DOR
 * (X, Y, then Z); at each node it arrives by the port facing the node
 * it came from. The wait set there must be exactly those ports, and
 * the output DOR's next hop. */
static void
check_wait_sets(const struct geo *g, const struct acis_torus *t,
		unsigned int dst, unsigned int r)
{
	uint8_t want[512] = {0}, wait;
	struct acis_torus_coord cd = at(g, dst);
	unsigned int m, node, hops;
	int rc;

	for (m = 0; m < t->nodes; m++) {
		if (!ref_in_cube(g, dst, m, r))
			continue;
		for (node = m, hops = 0; node != dst; hops++) {
			unsigned int d = ref_dor(g, node, dst);
			int next = ref_step(g, node, d);

			assert_true(next >= 0 && hops < 64);
			want[next] |= (uint8_t)BIT(1 + ((d - 1) ^ 1));
			node = (unsigned int)next;
		}
	}
	for (node = 0; node < t->nodes; node++) {
		struct acis_torus_coord c = at(g, node);

		rc = acis_torus_cube_reduce(t, &c, &cd, r, &wait);
		if (!ref_in_cube(g, dst, node, r)) {
			assert_int_equal(rc, -ERANGE);
			continue;
		}
		assert_int_equal(rc, (int)ref_dor(g, node, dst));
		if (wait != want[node])
			fail_msg("%ux%ux%u%s dst %u r %u node %u: waits %#x, "
				 "the paths bring %#x",
				 g->k[0], g->k[1], g->k[2],
				 g->mesh ? " mesh" : "", dst, r, node, wait,
				 want[node]);
	}
}

/* Switches at work: every cube member injects its contribution; each
 * node sends its sum on once every awaited port and its own have come.
 * dst completes once with every member's contribution exactly once; no
 * packet comes by a port not awaited, or twice by one. */
static void
run_reduction(const struct geo *g, const struct acis_torus *t, unsigned int dst,
	      unsigned int r)
{
	uint64_t held[512][8], all[8] = {0};
	uint8_t got[512] = {0}, ports[512] = {0}, done[512] = {0};
	unsigned int qn[1024], qp[1024], qsrc[1024], head = 0, tail = 0;
	unsigned int m, i, completions = 0;
	struct acis_torus_coord cd = at(g, dst);

	memset(held, 0, sizeof(held));
	for (m = 0; m < t->nodes; m++)
		if (ref_in_cube(g, dst, m, r)) {
			all[m / 64] |= 1ull << (m % 64);
			qn[tail] = m;
			qp[tail] = ACIS_TORUS_LOCAL;
			qsrc[tail++] = m;
		}
	while (head < tail) {
		unsigned int node = qn[head], port = qp[head],
			     from = qsrc[head];
		struct acis_torus_coord c = at(g, node);
		uint8_t wait;
		int out, next;

		head++;
		out = acis_torus_cube_reduce(t, &c, &cd, r, &wait);
		assert_true(out >= 0);
		assert_false(done[node]);
		assert_true(port == 0 || (wait & BIT(port)));
		assert_false(ports[node] & (1u << port));
		ports[node] |= (uint8_t)(1u << port);
		/* merge the arriving sum: no contribution twice */
		for (i = 0; i < 8; i++) {
			uint64_t add = port == 0 && i == from / 64
					       ? 1ull << (from % 64)
					       : 0;

			if (port != 0)
				add = held[from][i];
			assert_int_equal(held[node][i] & add, 0);
			held[node][i] |= add;
		}
		if (++got[node] < __builtin_popcount(wait) + 1)
			continue;
		done[node] = 1;
		if (out == ACIS_TORUS_LOCAL) {
			assert_int_equal(node, dst);
			assert_memory_equal(held[node], all, sizeof(all));
			completions++;
			continue;
		}
		next = ref_step(g, node, (unsigned int)out);
		assert_true(next >= 0 && tail < 1024);
		qn[tail] = (unsigned int)next;
		qp[tail] = 1 + (((unsigned int)out - 1) ^ 1);
		qsrc[tail++] = node;
	}
	assert_int_equal(completions, 1);
	for (m = 0; m < t->nodes; m++)
		assert_int_equal(done[m], ref_in_cube(g, dst, m, r));
}

static void
test_cube_reduction_waits_for_exactly_the_senders(void **state)
{
	(void)state;
	each_cube(check_wait_sets);
}

static void
test_cube_reduction_delivers_every_contribution_once(void **state)
{
	(void)state;
	each_cube(run_reduction);
}

/* Algorithm 3 as printed, away from the cube's faces (where nothing
 * comes from beyond) and from the wrap links. */
static unsigned int
alg3(const int cur[3], const int dst[3])
{
	const unsigned int XP = BIT(1), XM = BIT(2), YP = BIT(3), YM = BIT(4),
			   ZP = BIT(5), ZM = BIT(6);

	if (cur[0] != dst[0])
		return cur[0] > dst[0] ? XP : XM;
	if (cur[1] != dst[1])
		return XP | XM | (cur[1] > dst[1] ? YP : YM);
	if (cur[2] != dst[2])
		return XP | XM | YP | YM | (cur[2] > dst[2] ? ZP : ZM);
	return XP | XM | YP | YM | ZP | ZM;
}

static void
test_cube_reduction_is_algorithm_3_inside_the_cube(void **state)
{
	const struct geo g = {{8, 8, 8}, 0};
	struct acis_torus t;
	struct acis_torus_coord d = {{3, 4, 4}}, c;
	int dst[3] = {3, 4, 4}, cur[3], x, y, z, r = 2;
	unsigned int checked = 0;
	uint8_t wait;

	(void)state;
	make(&t, &g);
	for (z = -1; z <= 1; z++)
		for (y = -1; y <= 1; y++)
			for (x = -1; x <= 1; x++) {
				cur[0] = dst[0] + x;
				cur[1] = dst[1] + y;
				cur[2] = dst[2] + z;
				c.c[0] = (uint8_t)cur[0];
				c.c[1] = (uint8_t)cur[1];
				c.c[2] = (uint8_t)cur[2];
				assert_true(acis_torus_cube_reduce(
						    &t, &c, &d, (unsigned int)r,
						    &wait) >= 0);
				assert_int_equal(wait, alg3(cur, dst));
				checked++;
			}
	assert_int_equal(checked, 27);
	/* on the face x = dst + R nothing comes from X+ */
	c = (struct acis_torus_coord){{5, 4, 4}};
	assert_int_equal(acis_torus_cube_reduce(&t, &c, &d, 2, &wait),
			 ACIS_TORUS_XM);
	assert_int_equal(wait, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_packs_the_fig_8_2a_fields),
		cmocka_unit_test(test_unicast_lookup_rewrites_the_next_index),
		cmocka_unit_test(
			test_multicast_lookup_gives_a_header_per_child),
		cmocka_unit_test(
			test_lookup_refuses_unset_entries_and_bad_headers),
		cmocka_unit_test(
			test_reduce_entry_completes_once_on_its_expected_count),
		cmocka_unit_test(
			test_fig_8_1_multicast_reaches_d_through_b_and_c),
		cmocka_unit_test(test_bad_lines_name_file_line_and_form),
		cmocka_unit_test(test_odd_text_is_refused_or_empty),
		cmocka_unit_test(test_printed_tables_parse_back_the_same),
		cmocka_unit_test(test_damaged_files_never_crash_the_parser),
		cmocka_unit_test(test_load_reads_a_file_and_names_it),
		cmocka_unit_test(
			test_tree_multicast_and_reduction_reach_every_member_once),
		cmocka_unit_test(
			test_tree_entries_count_children_and_membership),
		cmocka_unit_test(test_trees_share_tables_at_distinct_indices),
		cmocka_unit_test(test_build_refuses_bad_sets_and_full_tables),
		cmocka_unit_test(test_walks_report_loops_and_broken_tables),
		cmocka_unit_test(
			test_cube_multicast_gives_each_cube_node_one_copy),
		cmocka_unit_test(
			test_cube_multicast_is_algorithm_2_away_from_the_wrap),
		cmocka_unit_test(
			test_cube_multicast_refuses_copies_it_should_not_see),
		cmocka_unit_test(test_cube_dst_id_is_eq_6_4_across_the_wrap),
		cmocka_unit_test(
			test_cube_reduction_waits_for_exactly_the_senders),
		cmocka_unit_test(
			test_cube_reduction_delivers_every_contribution_once),
		cmocka_unit_test(
			test_cube_reduction_is_algorithm_3_inside_the_cube),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
