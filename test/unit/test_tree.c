/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/tree: a communicator's aggregation tree at one switch. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_tree.h"

#define NP ACIS_TREE_NO_PORT

/* The units of t in tree order, into u; how many. */
static uint32_t
units(const struct acis_tree *t, uint32_t *u)
{
	uint32_t n = 0, r;

	for (r = t->first; r != ACIS_RANK_NONE; r = t->next[r])
		u[n++] = r;
	return n;
}

/* leaf-spine.ini at the spine: ranks 0,1 behind port 0, 2,3 behind 1. */
static void
spine_of_leaf_spine(void **state)
{
	uint16_t port[4] = {0, 0, 1, 1};
	struct acis_tree *t = acis_tree_build(7, 3, 4, port, 0x3, NULL);
	uint32_t u[4];

	(void)state;
	assert_non_null(t);
	assert_true(t->is_root);
	assert_int_equal(t->covered, 4);
	assert_int_equal(t->n_children, 2);
	assert_int_equal(units(t, u), 2);
	assert_int_equal(u[0], 0);
	assert_int_equal(u[1], 2);
	assert_int_equal(t->child[0].leader, 0);
	assert_int_equal(t->child[0].count, 2);
	assert_int_equal(t->child[1].ranks[1], 3);
	assert_int_equal(acis_tree_unit(t, 3), 2);
	assert_true(acis_tree_is_unit(t, 2));
	assert_false(acis_tree_is_unit(t, 3));
	assert_int_equal(acis_tree_units(t), 2);
	acis_tree_free(t);
}

/* A leaf: its own members, the other ranks outside; interleaved ranks
 * and members beside a child keep the order of their lowest rank. */
static void
leaf_with_members_and_child(void **state)
{
	uint16_t port[7] = {3, 0, NP, 3, 1, NP, 0};
	struct acis_endpoint eps[7];
	struct acis_tree *t;
	uint32_t u[7], r;

	(void)state;
	memset(eps, 0, sizeof(eps));
	for (r = 0; r < 7; r++) {
		eps[r].valid = 1;
		eps[r].ip = 100 + r;
	}
	t = acis_tree_build(9, 1, 7, port, 1u << 3, eps);
	assert_non_null(t);
	assert_false(t->is_root);
	assert_int_equal(t->covered, 5);
	assert_int_equal(t->n_children, 1);
	/* units: child (leader 0, also 3), 1, 4, 6 */
	assert_int_equal(units(t, u), 4);
	assert_int_equal(u[0], 0);
	assert_int_equal(u[1], 1);
	assert_int_equal(u[2], 4);
	assert_int_equal(u[3], 6);
	assert_int_equal(t->child_of[2], ACIS_TREE_ABSENT);
	assert_int_equal(t->child_of[1], ACIS_TREE_LOCAL);
	assert_int_equal(acis_tree_unit(t, 5), ACIS_RANK_NONE);
	/* the view: endpoints of the subtree, the rest invalid */
	assert_int_equal(t->comm_view.size, 7);
	assert_int_equal(acis_comm_ep(&t->comm_view, 4)->ip, 104);
	assert_false(acis_comm_ep(&t->comm_view, 2)->valid);
	assert_true(acis_comm_ep(&t->comm_view, 3)->valid);
	acis_tree_free(t);
}

static void
no_link_is_a_plain_switch(void **state)
{
	uint16_t port[3] = {0, 1, 2};
	struct acis_tree *t = acis_tree_build(1, 1, 3, port, 0, NULL);
	uint32_t u[3];

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->n_children, 0);
	assert_int_equal(units(t, u), 3);
	assert_int_equal(u[2], 2);
	acis_tree_free(t);
}

static void
bad_arguments(void **state)
{
	uint16_t port[40] = {0};
	uint32_t r;

	(void)state;
	assert_null(acis_tree_build(1, 1, 0, port, 0, NULL));
	assert_null(acis_tree_build(1, 1, 4, NULL, 0, NULL));
	/* more children than a tree takes */
	for (r = 0; r < 40; r++)
		port[r] = (uint16_t)r;
	assert_null(acis_tree_build(1, 1, 40, port, ~0ull, NULL));
}

static void
entry_round_trip(void **state)
{
	struct acis_endpoint a, b;
	uint8_t p[ACIS_TREE_ENTRY_LEN];

	(void)state;
	memset(&a, 0, sizeof(a));
	a.ip = 0x0a4d000b;
	a.udp_port = 0x3412;
	memcpy(a.mac, "\x02\x00\x00\x00\x00\x07", 6);
	memcpy(a.auth, "\xde\xad\xbe\xef\x00\x01", 6);
	acis_tree_entry_put(p, 65537, &a);
	assert_int_equal(p[0], 1);
	assert_int_equal(p[2], 1);
	assert_int_equal(acis_tree_entry_get(p, &b), 65537);
	assert_int_equal(b.ip, a.ip);
	assert_int_equal(b.udp_port, a.udp_port);
	assert_memory_equal(b.mac, a.mac, 6);
	assert_memory_equal(b.auth, a.auth, 6);
	assert_true(b.valid);
}

static void
table(void **state)
{
	struct acis_tree_table *tt = acis_tree_table_create(2);
	uint16_t port[2] = {0, 1};
	struct acis_tree *a = acis_tree_build(5, 1, 2, port, 0, NULL);
	struct acis_tree *b = acis_tree_build(5, 1, 2, port, 0, NULL);
	struct acis_tree *c = acis_tree_build(6, 1, 2, port, 0, NULL);
	struct acis_tree *d = acis_tree_build(6, 1, 2, port, 0, NULL);

	(void)state;
	assert_non_null(tt);
	assert_null(acis_tree_table_create(0));
	a->root_ip = 10;
	b->root_ip = 11; /* same ctx, another root: another tree */
	c->root_ip = 10;
	d->root_ip = 10;
	assert_int_equal(acis_tree_add(tt, a), 0);
	assert_int_equal(acis_tree_add(tt, b), 0);
	assert_int_equal(acis_tree_add(tt, c), -ENOSPC);
	assert_ptr_equal(acis_tree_find(tt, 10, 5), a);
	assert_ptr_equal(acis_tree_find(tt, 11, 5), b);
	assert_null(acis_tree_find(tt, 10, 6));
	assert_int_equal(acis_tree_count(tt), 2);
	assert_ptr_equal(acis_tree_remove(tt, 10, 5), a);
	assert_null(acis_tree_remove(tt, 10, 5));
	acis_tree_free(a);
	assert_int_equal(acis_tree_add(tt, c), 0);
	assert_int_equal(acis_tree_add(tt, d), -EEXIST);
	acis_tree_free(d);
	assert_ptr_equal(acis_tree_find(tt, 10, 6), c);
	acis_tree_table_free(tt); /* frees b and c */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spine_of_leaf_spine),
		cmocka_unit_test(leaf_with_members_and_child),
		cmocka_unit_test(no_link_is_a_plain_switch),
		cmocka_unit_test(bad_arguments),
		cmocka_unit_test(entry_round_trip),
		cmocka_unit_test(table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
