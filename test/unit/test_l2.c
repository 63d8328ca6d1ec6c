/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_l2, the MAC learning table: learning, moves, ageing,
 * static entries, eviction, flush and walk. Time is passed explicitly.
 *
 * acis_l2_create(ACIS_L2_WAYS, ...) makes a table of exactly one bucket,
 * so every MAC lands in it and tests can fill it on purpose.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "acis_l2.h"

/* A locally administered unicast address that differs in its last two
 * bytes, so a test can make as many distinct stations as it needs. */
#define MAC(n) ((const uint8_t[6]){0x02, 0x00, 0x5e, 0x00, \
				   (uint8_t)((n) >> 8), (uint8_t)(n)})

static struct acis_l2_table *
one_bucket(uint32_t age)
{
	struct acis_l2_table *t = acis_l2_create(ACIS_L2_WAYS, age);

	assert_non_null(t);
	assert_int_equal(acis_l2_capacity(t), ACIS_L2_WAYS);
	return t;
}

static void
test_learned_mac_is_found_on_its_port(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 100), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 100), 3);
	acis_l2_free(t);
}

static void
test_unknown_mac_is_not_found(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), -1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 0), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 0), -1);
	acis_l2_free(t);
}

static void
test_all_zero_mac_is_not_found_in_an_empty_table(void **state)
{
	/* An empty slot is an all-zero word: it must not match 00:..:00. */
	struct acis_l2_table *t = one_bucket(0);
	static const uint8_t zero[6];

	(void)state;
	assert_int_equal(acis_l2_lookup(t, zero, 0), -1);
	acis_l2_free(t);
}

static void
test_learning_a_known_station_again_only_refreshes(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 10), 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 11), 0);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.learned, 1);
	assert_int_equal(st.moved, 0);
	acis_l2_free(t);
}

static void
test_station_move_updates_port_and_counts_a_move(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 10), 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 5, 12), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 12), 5);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.learned, 1);
	assert_int_equal(st.moved, 1);
	acis_l2_free(t);
}

static void
test_refresh_keeps_entry_alive_past_its_first_age(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 100), 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 108), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 115), 3);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 117), 3);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 118), -1);
	acis_l2_free(t);
}

static void
test_entry_ages_out_after_age_seconds(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 100), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 109), 3);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 110), -1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 5000), -1);
	acis_l2_free(t);
}

static void
test_ageing_survives_clock_wraparound(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, UINT32_MAX - 2), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 5), 3);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 8), -1);
	acis_l2_free(t);
}

static void
test_age_zero_never_ages(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 0);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 1), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 1000000), 3);
	assert_int_equal(acis_l2_lookup(t, MAC(1), UINT32_MAX), 3);
	acis_l2_free(t);
}

static void
test_aged_station_learned_again_is_a_new_entry_not_a_move(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 100), 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 3, 200), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 205), 3);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.moved, 0);
	assert_int_equal(st.learned, 2);
	acis_l2_free(t);
}

static void
test_static_entry_is_found_and_never_ages(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), 7), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), 7);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 1000000), 7);
	acis_l2_free(t);
}

static void
test_learning_a_static_mac_on_another_port_is_refused(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), 7), 0);
	assert_true(acis_l2_learn(t, MAC(1), 2, 10) < 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 10), 7);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.static_conflicts, 1);
	assert_int_equal(st.moved, 0);
	assert_int_equal(st.learned, 0);
	acis_l2_free(t);
}

static void
test_learning_a_static_mac_on_its_own_port_changes_nothing(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), 7), 0);
	assert_int_equal(acis_l2_learn(t, MAC(1), 7, 10), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 1000), 7);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.static_conflicts, 0);
	assert_int_equal(st.learned, 0);
	acis_l2_free(t);
}

static void
test_duplicate_static_is_refused_with_eexist(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), 7), 0);
	assert_int_equal(acis_l2_add_static(t, MAC(1), 8), -EEXIST);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), 7);
	acis_l2_free(t);
}

static void
test_static_replaces_a_learned_entry_for_the_same_mac(void **state)
{
	struct acis_l2_table *t = one_bucket(10);
	struct acis_l2_entry_view v;
	unsigned int n;

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 2, 0), 1);
	assert_int_equal(acis_l2_add_static(t, MAC(1), 7), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 1000), 7);
	/* Replaced, not duplicated: one entry left for the MAC. */
	n = acis_l2_walk(t, 5, NULL, &v);
	assert_int_equal(n, 1);
	acis_l2_free(t);
}

static void
test_add_static_refuses_a_multicast_mac(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);
	static const uint8_t mc[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	(void)state;
	assert_int_equal(acis_l2_add_static(t, mc, 1), -EINVAL);
	assert_int_equal(acis_l2_add_static(t, bc, 1), -EINVAL);
	assert_int_equal(acis_l2_lookup(t, mc, 0), -1);
	acis_l2_free(t);
}

static void
test_add_static_refuses_a_port_above_the_maximum(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), ACIS_L2_MAX_PORT + 1),
			 -EINVAL);
	assert_int_equal(acis_l2_add_static(t, MAC(2), ACIS_L2_MAX_PORT), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 0), ACIS_L2_MAX_PORT);
	acis_l2_free(t);
}

static void
test_learn_refuses_a_port_above_the_maximum(void **state)
{
	/*
	 * The port shares a 64-bit word with the flags; a port the table
	 * cannot hold must be refused, not spill into the static bit.
	 */
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_true(acis_l2_learn(t, MAC(1), ACIS_L2_MAX_PORT + 1, 0) < 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), -1);
	acis_l2_free(t);
}

static void
test_learn_accepts_the_maximum_port(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), ACIS_L2_MAX_PORT, 0), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), ACIS_L2_MAX_PORT);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 10), -1);
	acis_l2_free(t);
}

static void
test_full_bucket_evicts_its_oldest_learned_entry(void **state)
{
	struct acis_l2_table *t = one_bucket(1000);
	struct acis_l2_stats st;

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 1), 1);
	assert_int_equal(acis_l2_learn(t, MAC(2), 1, 2), 1);
	assert_int_equal(acis_l2_learn(t, MAC(3), 1, 3), 1);
	assert_int_equal(acis_l2_learn(t, MAC(4), 1, 4), 1);
	/* Refresh the first two so the oldest sits in the middle. */
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 5), 0);
	assert_int_equal(acis_l2_learn(t, MAC(2), 1, 6), 0);
	assert_int_equal(acis_l2_learn(t, MAC(5), 2, 20), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(3), 20), -1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 20), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 20), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(4), 20), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(5), 20), 2);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.evicted, 1);
	assert_int_equal(st.learned, 5);
	acis_l2_free(t);
}

static void
test_refreshed_entry_is_not_the_one_evicted(void **state)
{
	struct acis_l2_table *t = one_bucket(1000);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 1), 1);
	assert_int_equal(acis_l2_learn(t, MAC(2), 1, 2), 1);
	assert_int_equal(acis_l2_learn(t, MAC(3), 1, 3), 1);
	assert_int_equal(acis_l2_learn(t, MAC(4), 1, 4), 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 9), 0);
	assert_int_equal(acis_l2_learn(t, MAC(5), 1, 10), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 10), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 10), -1);
	acis_l2_free(t);
}

static void
test_eviction_never_takes_a_static_entry(void **state)
{
	struct acis_l2_table *t = one_bucket(1000);

	(void)state;
	assert_int_equal(acis_l2_add_static(t, MAC(1), 1), 0);
	assert_int_equal(acis_l2_add_static(t, MAC(2), 1), 0);
	assert_int_equal(acis_l2_add_static(t, MAC(3), 1), 0);
	assert_int_equal(acis_l2_learn(t, MAC(4), 2, 100), 1);
	assert_int_equal(acis_l2_learn(t, MAC(5), 3, 200), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 200), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 200), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(3), 200), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(4), 200), -1);
	assert_int_equal(acis_l2_lookup(t, MAC(5), 200), 3);
	acis_l2_free(t);
}

static void
test_aged_slot_is_reused_without_counting_an_eviction(void **state)
{
	struct acis_l2_table *t = one_bucket(10);
	struct acis_l2_stats st;
	int i;

	(void)state;
	for (i = 1; i <= ACIS_L2_WAYS; i++)
		assert_int_equal(acis_l2_learn(t, MAC(i), 1, 0), 1);
	assert_int_equal(acis_l2_learn(t, MAC(9), 1, 50), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(9), 50), 1);
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.evicted, 0);
	acis_l2_free(t);
}

static void
test_bucket_full_of_statics_refuses_another_static_with_enospc(void **state)
{
	struct acis_l2_table *t = one_bucket(300);
	int i;

	(void)state;
	for (i = 1; i <= ACIS_L2_WAYS; i++)
		assert_int_equal(acis_l2_add_static(t, MAC(i), 1), 0);
	assert_int_equal(acis_l2_add_static(t, MAC(99), 1), -ENOSPC);
	assert_int_equal(acis_l2_lookup(t, MAC(99), 0), -1);
	acis_l2_free(t);
}

static void
test_bucket_full_of_statics_refuses_learning(void **state)
{
	struct acis_l2_table *t = one_bucket(300);
	int i;

	(void)state;
	for (i = 1; i <= ACIS_L2_WAYS; i++)
		assert_int_equal(acis_l2_add_static(t, MAC(i), 1), 0);
	assert_true(acis_l2_learn(t, MAC(99), 2, 0) < 0);
	assert_int_equal(acis_l2_lookup(t, MAC(99), 0), -1);
	for (i = 1; i <= ACIS_L2_WAYS; i++)
		assert_int_equal(acis_l2_lookup(t, MAC(i), 0), 1);
	acis_l2_free(t);
}

static void
test_static_takes_a_learned_slot_when_the_bucket_is_full(void **state)
{
	struct acis_l2_table *t = one_bucket(300);
	int i;

	(void)state;
	for (i = 1; i <= ACIS_L2_WAYS; i++)
		assert_int_equal(acis_l2_learn(t, MAC(i), 1, 0), 1);
	assert_int_equal(acis_l2_add_static(t, MAC(99), 2), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(99), 0), 2);
	acis_l2_free(t);
}

static void
test_static_uses_a_free_slot_before_displacing_a_learned_one(void **state)
{
	/* The bucket has room: no live learned station may be lost. */
	struct acis_l2_table *t = one_bucket(300);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 0), 1);
	assert_int_equal(acis_l2_add_static(t, MAC(2), 2), 0);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 0), 2);
	acis_l2_free(t);
}

static void
test_flush_port_removes_only_learned_entries_of_that_port(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 0), 1);
	assert_int_equal(acis_l2_learn(t, MAC(2), 1, 0), 1);
	assert_int_equal(acis_l2_learn(t, MAC(3), 2, 0), 1);
	assert_int_equal(acis_l2_add_static(t, MAC(4), 1), 0);
	acis_l2_flush_port(t, 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 0), -1);
	assert_int_equal(acis_l2_lookup(t, MAC(2), 0), -1);
	assert_int_equal(acis_l2_lookup(t, MAC(3), 0), 2);
	assert_int_equal(acis_l2_lookup(t, MAC(4), 0), 1);
	acis_l2_free(t);
}

static void
test_flushed_station_is_learned_again_as_new(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 300);

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 0), 1);
	acis_l2_flush_port(t, 1);
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 1), 1);
	assert_int_equal(acis_l2_lookup(t, MAC(1), 1), 1);
	acis_l2_free(t);
}

#define MAX_SEEN 16

struct seen {
	unsigned int n;
	struct acis_l2_entry_view v[MAX_SEEN];
};

static int
collect(const struct acis_l2_entry_view *v, void *arg)
{
	struct seen *s = arg;

	if (s->n < MAX_SEEN)
		s->v[s->n] = *v;
	s->n++;
	return 0;
}

static const struct acis_l2_entry_view *
find_view(const struct seen *s, const uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < s->n && i < MAX_SEEN; i++)
		if (memcmp(s->v[i].mac, mac, 6) == 0)
			return &s->v[i];
	return NULL;
}

static void
test_walk_visits_live_entries_with_port_static_flag_and_age(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 100);
	const struct acis_l2_entry_view *v;
	struct seen s = {0};

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 4, 10), 1);
	assert_int_equal(acis_l2_learn(t, MAC(0x1234), 5, 30), 1);
	assert_int_equal(acis_l2_add_static(t, MAC(3), 6), 0);
	assert_int_equal(acis_l2_walk(t, 40, collect, &s), 3);
	assert_int_equal(s.n, 3);

	v = find_view(&s, MAC(1));
	assert_non_null(v);
	assert_int_equal(v->port, 4);
	assert_int_equal(v->is_static, 0);
	assert_int_equal(v->age, 30);

	v = find_view(&s, MAC(0x1234));
	assert_non_null(v);
	assert_int_equal(v->port, 5);
	assert_int_equal(v->age, 10);

	v = find_view(&s, MAC(3));
	assert_non_null(v);
	assert_int_equal(v->port, 6);
	assert_int_equal(v->is_static, 1);
	assert_int_equal(v->age, 0);
	acis_l2_free(t);
}

static void
test_walk_skips_aged_and_flushed_entries(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 10);
	struct seen s = {0};

	(void)state;
	assert_int_equal(acis_l2_learn(t, MAC(1), 1, 0), 1);
	assert_int_equal(acis_l2_learn(t, MAC(2), 2, 0), 1);
	assert_int_equal(acis_l2_learn(t, MAC(3), 3, 15), 1);
	acis_l2_flush_port(t, 2);
	assert_int_equal(acis_l2_walk(t, 16, collect, &s), 1);
	assert_int_equal(s.n, 1);
	assert_memory_equal(s.v[0].mac, MAC(3), 6);
	acis_l2_free(t);
}

static int
stop_at_second(const struct acis_l2_entry_view *v, void *arg)
{
	unsigned int *calls = arg;

	(void)v;
	return ++*calls == 2;
}

static void
test_walk_stops_when_the_callback_returns_nonzero(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 0);
	unsigned int calls = 0;
	int i;

	(void)state;
	for (i = 1; i <= 5; i++)
		assert_int_equal(acis_l2_learn(t, MAC(i), 1, 0), 1);
	assert_int_equal(acis_l2_walk(t, 0, stop_at_second, &calls), 2);
	assert_int_equal(calls, 2);
	acis_l2_free(t);
}

static void
test_walk_without_callback_counts_live_entries(void **state)
{
	struct acis_l2_table *t = acis_l2_create(1024, 0);
	int i;

	(void)state;
	assert_int_equal(acis_l2_walk(t, 0, NULL, NULL), 0);
	for (i = 1; i <= 5; i++)
		assert_int_equal(acis_l2_learn(t, MAC(i), 1, 0), 1);
	assert_int_equal(acis_l2_walk(t, 0, NULL, NULL), 5);
	acis_l2_free(t);
}

static void
test_lookup_finds_every_learned_station_not_evicted(void **state)
{
	struct acis_l2_table *t = acis_l2_create(4096, 0);
	struct acis_l2_stats st;
	unsigned int found = 0;
	int i;

	(void)state;
	for (i = 0; i < 3000; i++)
		assert_int_equal(acis_l2_learn(t, MAC(i), i % 16, 0), 1);
	for (i = 0; i < 3000; i++) {
		int port = acis_l2_lookup(t, MAC(i), 0);

		if (port >= 0) {
			assert_int_equal(port, i % 16);
			found++;
		}
	}
	acis_l2_get_stats(t, &st);
	assert_int_equal(st.learned, 3000);
	assert_int_equal(found, 3000 - st.evicted);
	assert_int_equal(acis_l2_walk(t, 0, NULL, NULL), found);
	acis_l2_free(t);
}

static void
test_capacity_is_rounded_up_to_a_power_of_two_of_buckets(void **state)
{
	static const struct {
		uint32_t asked, capacity;
	} cases[] = {
		{1, 4}, {4, 4}, {5, 8}, {8, 8}, {9, 16}, {1000, 1024},
		{1024, 1024}, {1025, 2048},
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct acis_l2_table *t = acis_l2_create(cases[i].asked, 0);

		assert_non_null(t);
		assert_int_equal(acis_l2_capacity(t), cases[i].capacity);
		acis_l2_free(t);
	}
}

static void
test_create_with_zero_entries_returns_null(void **state)
{
	(void)state;
	assert_null(acis_l2_create(0, 300));
}

static void
test_free_accepts_null(void **state)
{
	(void)state;
	acis_l2_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learned_mac_is_found_on_its_port),
		cmocka_unit_test(test_unknown_mac_is_not_found),
		cmocka_unit_test(test_all_zero_mac_is_not_found_in_an_empty_table),
		cmocka_unit_test(test_learning_a_known_station_again_only_refreshes),
		cmocka_unit_test(test_station_move_updates_port_and_counts_a_move),
		cmocka_unit_test(test_refresh_keeps_entry_alive_past_its_first_age),
		cmocka_unit_test(test_entry_ages_out_after_age_seconds),
		cmocka_unit_test(test_ageing_survives_clock_wraparound),
		cmocka_unit_test(test_age_zero_never_ages),
		cmocka_unit_test(test_aged_station_learned_again_is_a_new_entry_not_a_move),
		cmocka_unit_test(test_static_entry_is_found_and_never_ages),
		cmocka_unit_test(test_learning_a_static_mac_on_another_port_is_refused),
		cmocka_unit_test(test_learning_a_static_mac_on_its_own_port_changes_nothing),
		cmocka_unit_test(test_duplicate_static_is_refused_with_eexist),
		cmocka_unit_test(test_static_replaces_a_learned_entry_for_the_same_mac),
		cmocka_unit_test(test_add_static_refuses_a_multicast_mac),
		cmocka_unit_test(test_add_static_refuses_a_port_above_the_maximum),
		cmocka_unit_test(test_learn_refuses_a_port_above_the_maximum),
		cmocka_unit_test(test_learn_accepts_the_maximum_port),
		cmocka_unit_test(test_full_bucket_evicts_its_oldest_learned_entry),
		cmocka_unit_test(test_refreshed_entry_is_not_the_one_evicted),
		cmocka_unit_test(test_eviction_never_takes_a_static_entry),
		cmocka_unit_test(test_aged_slot_is_reused_without_counting_an_eviction),
		cmocka_unit_test(test_bucket_full_of_statics_refuses_another_static_with_enospc),
		cmocka_unit_test(test_bucket_full_of_statics_refuses_learning),
		cmocka_unit_test(test_static_takes_a_learned_slot_when_the_bucket_is_full),
		cmocka_unit_test(test_static_uses_a_free_slot_before_displacing_a_learned_one),
		cmocka_unit_test(test_flush_port_removes_only_learned_entries_of_that_port),
		cmocka_unit_test(test_flushed_station_is_learned_again_as_new),
		cmocka_unit_test(test_walk_visits_live_entries_with_port_static_flag_and_age),
		cmocka_unit_test(test_walk_skips_aged_and_flushed_entries),
		cmocka_unit_test(test_walk_stops_when_the_callback_returns_nonzero),
		cmocka_unit_test(test_walk_without_callback_counts_live_entries),
		cmocka_unit_test(test_lookup_finds_every_learned_station_not_evicted),
		cmocka_unit_test(test_capacity_is_rounded_up_to_a_power_of_two_of_buckets),
		cmocka_unit_test(test_create_with_zero_entries_returns_null),
		cmocka_unit_test(test_free_accepts_null),
	};

	return cmocka_run_group_tests_name("l2", tests, NULL, NULL);
}
