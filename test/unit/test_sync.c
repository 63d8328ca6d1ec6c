/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/sync: deadlines and SSP barriers (doc/sync.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_sync.h"

#define HZ 1000000000ull /* a clock of 1 ns cycles */

static struct acis_sync_table t;

static int
setup(void **state)
{
	(void)state;
	acis_sync_table_init(&t);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	acis_sync_table_fini(&t);
	return 0;
}

static unsigned int signalled;
static uint32_t last_epoch;

static void
count_signal(struct acis_sync *e, void *arg)
{
	(void)arg;
	signalled++;
	last_epoch = e->epoch;
}

static void
test_entries_are_found_made_and_removed(void **state)
{
	struct acis_sync *e;

	(void)state;
	assert_null(acis_sync_find(&t, 7));
	e = acis_sync_get(&t, 7, 4);
	assert_non_null(e);
	assert_ptr_equal(acis_sync_get(&t, 7, 4), e);
	assert_null(acis_sync_get(&t, 7, 5)); /* another size: not it */
	assert_null(acis_sync_get(&t, 0, 4));
	assert_int_equal(t.n, 1);
	acis_sync_remove(&t, 7);
	assert_null(acis_sync_find(&t, 7));
	assert_int_equal(t.n, 0);
}

static void
test_table_full_refuses_a_new_entry(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 1; i <= ACIS_SYNC_MAX; i++)
		assert_non_null(acis_sync_get(&t, i, 2));
	assert_null(acis_sync_get(&t, ACIS_SYNC_MAX + 1, 2));
	assert_non_null(acis_sync_find(&t, ACIS_SYNC_MAX));
}

static void
test_deadline_signals_once_per_period(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 9, 3);
	uint64_t now = 1000;

	(void)state;
	signalled = 0;
	assert_int_equal(acis_sync_deadline_set(&t, e, 50, 1, now), -1);
	assert_int_equal(acis_sync_deadline_set(&t, e, 1000, HZ, now), 0);
	assert_int_equal(t.next_tsc, now + 1000000);
	/* nothing before the period */
	assert_int_equal(acis_sync_deadline_due(&t, now + 999999,
						count_signal, NULL), 0);
	assert_int_equal(acis_sync_deadline_due(&t, now + 1000000,
						count_signal, NULL), 1);
	assert_int_equal(last_epoch, 1);
	assert_int_equal(acis_sync_deadline_due(&t, now + 1500000,
						count_signal, NULL), 0);
	assert_int_equal(acis_sync_deadline_due(&t, now + 2000001,
						count_signal, NULL), 1);
	assert_int_equal(last_epoch, 2);
	assert_int_equal(e->signals, 2 * 3);
	/* three periods unseen: one signal, the epoch where time is */
	assert_int_equal(acis_sync_deadline_due(&t, now + 5000000,
						count_signal, NULL), 1);
	assert_int_equal(last_epoch, 5);
	assert_int_equal(e->missed, 2);
	assert_int_equal(t.next_tsc, now + 6000000);
	/* stopped: no more */
	assert_int_equal(acis_sync_deadline_set(&t, e, 0, HZ, now), 0);
	assert_int_equal(t.next_tsc, UINT64_MAX);
	assert_int_equal(acis_sync_deadline_due(&t, now + 90000000,
						count_signal, NULL), 0);
	assert_int_equal(signalled, 3);
}

static void
test_reports_after_their_epoch_expired_are_late(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 9, 2);

	(void)state;
	acis_sync_deadline_set(&t, e, 1000, HZ, 0);
	assert_int_equal(acis_sync_deadline_report(e, 1), 0);
	acis_sync_deadline_due(&t, 1000000, count_signal, NULL);
	assert_int_equal(acis_sync_deadline_report(e, 1), 1); /* expired */
	assert_int_equal(acis_sync_deadline_report(e, 2), 0);
	assert_int_equal(e->on_time, 2);
	assert_int_equal(e->late, 1);
	/* the counts outlive the communicator */
	acis_sync_remove(&t, 9);
	{
		struct acis_sync_totals s;

		acis_sync_totals(&t, &s);
		assert_int_equal(s.late, 1);
		assert_int_equal(s.on_time, 2);
		assert_int_equal(s.signals, 2);
	}
}

static void
test_the_earliest_of_several_deadlines_is_armed(void **state)
{
	struct acis_sync *a = acis_sync_get(&t, 1, 2), *b = acis_sync_get(&t, 2, 2);

	(void)state;
	acis_sync_deadline_set(&t, a, 5000, HZ, 0);
	acis_sync_deadline_set(&t, b, 2000, HZ, 0);
	assert_int_equal(t.next_tsc, 2000000);
	acis_sync_remove(&t, 2);
	assert_int_equal(t.next_tsc, 5000000);
}

/* done(rank, iter, s, q): the members that may go on, as a bitmask; each
 * waited on an iteration it finished */
static uint32_t
done(struct acis_sync *e, uint32_t rank, uint32_t iter, uint32_t s,
     uint32_t q)
{
	uint32_t mask = 0;
	int n, i;

	n = acis_sync_ssp_done(e, rank, iter, s, q);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		assert_true(e->go_iter[i] >= 1 &&
			    e->go_iter[i] <= e->done[e->go[i]]);
		assert_false(mask & 1u << e->go[i]); /* once each */
		mask |= 1u << e->go[i];
	}
	return mask;
}

static void
test_ssp_with_staleness_0_is_a_barrier(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 3, 4);

	(void)state;
	assert_int_equal(done(e, 0, 1, 0, 0), 0);
	assert_int_equal(done(e, 2, 1, 0, 0), 0);
	assert_int_equal(done(e, 3, 1, 0, 0), 0);
	/* the last one releases all four */
	assert_int_equal(done(e, 1, 1, 0, 0), 0xf);
	assert_int_equal(e->waits, 3);
	assert_int_equal(e->continues, 4);
	/* a repeat (its continue was lost) is answered again at once */
	assert_int_equal(done(e, 2, 1, 0, 0), 1u << 2);
	/* a late copy of an older report moves no wait back */
	assert_int_equal(done(e, 0, 2, 0, 0), 0);
	assert_int_equal(done(e, 0, 1, 0, 0), 0);
	assert_int_equal(e->want[0], 2);
}

static void
test_ssp_lets_fast_members_run_ahead_by_the_bound(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 3, 3);
	uint32_t i;

	(void)state;
	/* rank 2 is slow: ranks 0 and 1 run 2 iterations ahead, then wait */
	for (i = 1; i <= 2; i++) {
		assert_int_equal(done(e, 0, i, 2, 0), 1u << 0);
		assert_int_equal(done(e, 1, i, 2, 0), 1u << 1);
	}
	assert_int_equal(done(e, 0, 3, 2, 0), 0);  /* 3 - 2 > 0 done by 2 */
	assert_int_equal(done(e, 1, 3, 2, 0), 0);
	/* rank 2 finishing iteration 1 lets both go on from 3, and itself */
	assert_int_equal(done(e, 2, 1, 2, 0), 0x7);
	assert_int_equal(e->done[2], 1);
	/* ahead by at most the bound and one: 3 done against none */
	assert_int_equal(e->spread, 3);
	/* every member has finished 1: any may go on up to 1 + 2 */
	assert_int_equal(e->reach, 1);
}

static void
test_ssp_quorum_waits_for_enough_members_only(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 3, 4);

	(void)state;
	/* 3 of 4 suffice: the fourth member never holds the others */
	assert_int_equal(done(e, 0, 1, 0, 3), 0);
	assert_int_equal(done(e, 1, 1, 0, 3), 0);
	assert_int_equal(done(e, 2, 1, 0, 3), 0x7);
	assert_int_equal(done(e, 0, 2, 0, 3), 0);
}

static void
test_ssp_refuses_what_is_out_of_range(void **state)
{
	struct acis_sync *e = acis_sync_get(&t, 3, 2);

	(void)state;
	assert_int_equal(acis_sync_ssp_done(e, 2, 1, 0, 0), -1);
	assert_int_equal(acis_sync_ssp_done(e, 0, 0, 0, 0), -1);
	assert_int_equal(acis_sync_ssp_done(e, 0, 1, ACIS_SYNC_STALENESS_MAX + 1,
					    0), -1);
	assert_int_equal(acis_sync_ssp_done(e, 0, 1, 0, 3), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_entries_are_found_made_and_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full_refuses_a_new_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline_signals_once_per_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reports_after_their_epoch_expired_are_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_earliest_of_several_deadlines_is_armed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ssp_with_staleness_0_is_a_barrier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ssp_lets_fast_members_run_ahead_by_the_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ssp_quorum_waits_for_enough_members_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ssp_refuses_what_is_out_of_range, setup, teardown),
	};

	return cmocka_run_group_tests_name("sync", tests, NULL, NULL);
}
