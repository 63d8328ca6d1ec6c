/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_agg: the aggregation slot pool, its contributor
 * bitmaps, its open-addressing hash index and its memory of closed keys.
 *
 * The index deletes by backward shift instead of tombstones, which is
 * where such tables go wrong: a shifted entry left behind its home breaks
 * a probe chain and a live key is no longer found. The churn tests run
 * thousands of random opens, closes and finds (fixed seeds) against a
 * plain list of what should be open, on tables small enough that probe
 * chains wrap around the end of the index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_agg.h"

static uint64_t rng;

static void
seed(uint64_t s)
{
	rng = s * 0x9e3779b97f4a7c15ull + 1;
}

/* xorshift64*: fixed seeds, the same operations on every run. */
static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static struct acis_slot_key
key(uint32_t ctx, uint32_t seq, uint32_t chunk)
{
	struct acis_slot_key k = {.ctx = ctx, .seq = seq, .chunk = chunk};

	return k;
}

static struct acis_agg_stats
stats(const struct acis_agg *a)
{
	struct acis_agg_stats s;

	acis_agg_get_stats(a, &s);
	return s;
}

/* --- create -------------------------------------------------------------- */

static void
test_create_refuses_bad_sizes(void **state)
{
	(void)state;
	assert_null(acis_agg_create(0, 64, 1024));
	assert_null(acis_agg_create((1u << 22) + 1, 64, 1024));
	assert_null(acis_agg_create(8, 0, 1024));
	assert_null(acis_agg_create(8, 64, 0));
	assert_null(acis_agg_create(8, 64, (1u << 20) + 1));
}

static void
test_create_accepts_the_smallest_and_largest_sizes(void **state)
{
	struct acis_agg *a;

	(void)state;
	a = acis_agg_create(1, 1, 1);
	assert_non_null(a);
	assert_int_equal(stats(a).capacity, 1);
	acis_agg_free(a);
	a = acis_agg_create(2, 65536, 1u << 20);
	assert_non_null(a);
	assert_int_equal(acis_agg_max_ranks(a), 65536);
	acis_agg_free(a);
}

static void
test_acc_of_every_slot_is_64_byte_aligned_and_acc_bytes_long(void **state)
{
	struct acis_agg *a = acis_agg_create(7, 64, 100);
	struct acis_slot *s[7];
	uint32_t i;

	(void)state;
	assert_non_null(a);
	for (i = 0; i < 7; i++) {
		s[i] = acis_agg_open(a, &(struct acis_slot_key){1, 0, i}, 4);
		assert_non_null(s[i]);
		assert_int_equal((uintptr_t)s[i]->acc % 64, 0);
		/* Fill it all: ASan sees an overrun into the next one. */
		memset(s[i]->acc, (int)i + 1, 100);
	}
	for (i = 0; i < 7; i++) {
		uint32_t b;

		for (b = 0; b < 100; b++)
			assert_int_equal(s[i]->acc[b], i + 1);
	}
	acis_agg_free(a);
}

/* A buffer lent to a slot goes back through the release function exactly
 * once: when its slot closes, or when the table is freed with the slot
 * still open; the slot's accumulator is then its own memory again. */
static void *released[8];
static unsigned int n_released;

static void
release(void *buf)
{
	assert_true(n_released < 8);
	released[n_released++] = buf;
}

static void
test_a_lent_accumulator_is_released_once_when_its_slot_closes(void **state)
{
	struct acis_agg *a = acis_agg_create(4, 64, 64);
	uint8_t buf1[64], buf2[64], buf3[64];
	struct acis_slot *s, *t, *u;
	struct acis_agg_stats st;
	uint8_t *home;

	(void)state;
	n_released = 0;
	/* no release function: nothing is taken */
	s = acis_agg_open(a, &(struct acis_slot_key){1, 9, 0}, 4);
	home = s->acc;
	assert_int_equal(acis_agg_lend(a, s, buf1, buf1), 0);
	assert_ptr_equal(s->acc, home);
	assert_null(s->acc_buf);
	acis_agg_close(a, s, ACIS_SLOT_ABORTED);
	/* at most two lent at once */
	acis_agg_on_release(a, release);
	acis_agg_set_lend_max(a, 2);
	s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 4);
	home = s->acc;
	assert_int_equal(acis_agg_lend(a, s, buf1, buf1 + 3), 1);
	assert_ptr_equal(s->acc, buf1 + 3);
	assert_ptr_equal(s->acc_buf, buf1);
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.lent, 1);
	acis_agg_close(a, s, ACIS_SLOT_DELIVERED);
	assert_int_equal(n_released, 1);
	assert_ptr_equal(released[0], buf1);
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.lent, 0);
	/* the slot comes back with its own accumulator and nothing lent */
	t = acis_agg_open(a, &(struct acis_slot_key){1, 1, 0}, 4);
	assert_ptr_equal(t, s);
	assert_ptr_equal(t->acc, home);
	assert_null(t->acc_buf);
	acis_agg_close(a, t, ACIS_SLOT_ABORTED);
	assert_int_equal(n_released, 1);
	/* two lent, the third refused and left in its own memory */
	s = acis_agg_open(a, &(struct acis_slot_key){1, 2, 0}, 4);
	assert_int_equal(acis_agg_lend(a, s, buf2, buf2), 1);
	t = acis_agg_open(a, &(struct acis_slot_key){1, 2, 1}, 4);
	assert_int_equal(acis_agg_lend(a, t, buf3, buf3), 1);
	u = acis_agg_open(a, &(struct acis_slot_key){1, 2, 2}, 4);
	home = u->acc;
	assert_int_equal(acis_agg_lend(a, u, buf1, buf1), 0);
	assert_ptr_equal(u->acc, home);
	assert_null(u->acc_buf);
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.lent, 2);
	assert_int_equal(st.lend_refused, 2);
	/* one back, and the limit has room again */
	acis_agg_close(a, t, ACIS_SLOT_DELIVERED);
	assert_int_equal(n_released, 2);
	assert_ptr_equal(released[1], buf3);
	acis_agg_close(a, u, ACIS_SLOT_ABORTED);
	u = acis_agg_open(a, &(struct acis_slot_key){1, 3, 0}, 4);
	assert_int_equal(acis_agg_lend(a, u, buf1, buf1), 1);
	/* open slots holding lent buffers when the table goes */
	acis_agg_free(a);
	assert_int_equal(n_released, 4);
	assert_true((released[2] == buf2 && released[3] == buf1) ||
		    (released[2] == buf1 && released[3] == buf2));
}

/* --- open, find, close --------------------------------------------------- */

static void
test_open_gives_a_slot_that_find_returns(void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot_key k = key(0x10002, 5, 3);
	struct acis_slot *s;

	(void)state;
	s = acis_agg_open(a, &k, 4);
	assert_non_null(s);
	assert_int_equal(s->key.ctx, k.ctx);
	assert_int_equal(s->key.seq, k.seq);
	assert_int_equal(s->key.chunk, k.chunk);
	assert_int_equal(s->size, 4);
	assert_int_equal(s->arrived, 0);
	assert_ptr_equal(acis_agg_find(a, &k), s);
	acis_agg_free(a);
}

static void
test_find_tells_keys_apart_by_every_field(void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot_key k = key(0x10002, 5, 3);

	(void)state;
	assert_non_null(acis_agg_open(a, &k, 4));
	assert_null(acis_agg_find(a, &(struct acis_slot_key){0x10003, 5, 3}));
	assert_null(acis_agg_find(a, &(struct acis_slot_key){0x10002, 6, 3}));
	assert_null(acis_agg_find(a, &(struct acis_slot_key){0x10002, 5, 4}));
	assert_null(acis_agg_find(a, &(struct acis_slot_key){3, 5, 0x10002}));
	acis_agg_free(a);
}

static void
test_find_of_a_closed_key_is_null(void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot_key k = key(1, 2, 3);
	struct acis_slot *s;

	(void)state;
	s = acis_agg_open(a, &k, 4);
	acis_agg_close(a, s, 1);
	assert_null(acis_agg_find(a, &k));
	acis_agg_free(a);
}

static void
test_open_when_the_pool_is_empty_is_null_and_counts_busy(void **state)
{
	struct acis_agg *a = acis_agg_create(3, 64, 64);
	struct acis_slot *s;
	uint32_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct acis_slot_key k = key(1, 0, i);

		assert_non_null(acis_agg_open(a, &k, 4));
	}
	assert_null(acis_agg_open(a, &(struct acis_slot_key){1, 0, 3}, 4));
	assert_null(acis_agg_open(a, &(struct acis_slot_key){1, 0, 4}, 4));
	assert_int_equal(stats(a).busy, 2);
	assert_int_equal(stats(a).in_use, 3);
	/* A slot returned to the pool is handed out again. */
	acis_agg_close(a, acis_agg_find(a, &(struct acis_slot_key){1, 0, 1}),
		       1);
	s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 3}, 4);
	assert_non_null(s);
	assert_int_equal(stats(a).busy, 2);
	acis_agg_free(a);
}

static void
test_open_refuses_size_0_or_above_max_ranks_without_counting_busy(
	void **state)
{
	struct acis_agg *a = acis_agg_create(3, 64, 64);

	(void)state;
	assert_null(acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 0));
	assert_null(acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 65));
	assert_non_null(acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 64));
	assert_int_equal(stats(a).busy, 0);
	assert_int_equal(stats(a).in_use, 1);
	acis_agg_free(a);
}

static void
test_reopened_slot_starts_with_fresh_counts(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 64, 64);
	struct acis_slot *s;
	int held;

	(void)state;
	s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 4);
	acis_slot_mark(s, 0);
	s->folded = 1;
	s->next_rank = 1;
	s->held = &held;
	s->n_held = 2;
	acis_agg_close(a, s, 0);
	s = acis_agg_open(a, &(struct acis_slot_key){1, 1, 0}, 3);
	assert_non_null(s);
	assert_int_equal(s->size, 3);
	assert_int_equal(s->arrived, 0);
	assert_int_equal(s->folded, 0);
	assert_int_equal(s->next_rank, 0);
	assert_null(s->held);
	assert_int_equal(s->n_held, 0);
	acis_agg_free(a);
}

/* --- contributor bitmap -------------------------------------------------- */

static void
test_mark_counts_a_new_rank_as_arrived(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 200, 64);
	struct acis_slot *s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0},
					    200);
	static const uint32_t ranks[] = {0, 1, 63, 64, 65, 127, 128, 199};
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		assert_int_equal(acis_slot_mark(s, ranks[i]), 1);
		assert_int_equal(s->arrived, i + 1);
	}
	acis_agg_free(a);
}

static void
test_mark_refuses_a_rank_that_already_contributed(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 200, 64);
	struct acis_slot *s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0},
					    200);

	(void)state;
	assert_int_equal(acis_slot_mark(s, 130), 1);
	assert_int_equal(acis_slot_mark(s, 2), 1);
	assert_int_equal(acis_slot_mark(s, 130), 0);
	assert_int_equal(acis_slot_mark(s, 2), 0);
	assert_int_equal(s->arrived, 2);
	/* Same bit in another word is another rank. */
	assert_int_equal(acis_slot_mark(s, 66), 1);
	assert_int_equal(s->arrived, 3);
	acis_agg_free(a);
}

static void
test_bitmap_is_cleared_when_a_slot_is_reused(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 64, 64);
	struct acis_slot *s;
	uint32_t r, idx;

	(void)state;
	s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 64);
	idx = s->index;
	for (r = 0; r < 64; r++)
		assert_int_equal(acis_slot_mark(s, r), 1);
	acis_agg_close(a, s, 1);
	s = acis_agg_open(a, &(struct acis_slot_key){1, 1, 0}, 64);
	assert_int_equal(s->index, idx); /* the same slot, reused */
	for (r = 0; r < 64; r++)
		assert_int_equal(acis_slot_mark(s, r), 1);
	assert_int_equal(s->arrived, 64);
	acis_agg_free(a);
}

static void
test_bitmap_is_cleared_on_reuse_beyond_64_ranks(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 1000, 64);
	struct acis_slot *s;
	uint32_t r, round;

	(void)state;
	for (round = 0; round < 3; round++) {
		struct acis_slot_key k = key(1, round, 0);

		s = acis_agg_open(a, &k, 1000);
		assert_non_null(s);
		for (r = 0; r < 1000; r++)
			assert_int_equal(acis_slot_mark(s, r), 1);
		for (r = 0; r < 1000; r += 37)
			assert_int_equal(acis_slot_mark(s, r), 0);
		assert_int_equal(s->arrived, 1000);
		acis_agg_close(a, s, 1);
	}
	acis_agg_free(a);
}

static void
test_bitmaps_of_different_slots_are_independent(void **state)
{
	struct acis_agg *a = acis_agg_create(4, 130, 64);
	struct acis_slot *s[4];
	uint32_t i, r;

	(void)state;
	for (i = 0; i < 4; i++)
		s[i] = acis_agg_open(a, &(struct acis_slot_key){1, 0, i}, 130);
	/* Slot i takes the ranks r with r % 4 == i, up to the last word. */
	for (r = 0; r < 130; r++)
		assert_int_equal(acis_slot_mark(s[r % 4], r), 1);
	for (r = 0; r < 130; r++)
		for (i = 0; i < 4; i++)
			assert_int_equal(acis_slot_mark(s[i], r), i != r % 4);
	acis_agg_free(a);
}

/* --- slot by index ------------------------------------------------------- */

static void
test_slot_by_index_is_the_open_slot_or_null(void **state)
{
	struct acis_agg *a = acis_agg_create(4, 64, 64);
	struct acis_slot *s, *t;
	uint32_t i, open = 0;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_null(acis_agg_slot(a, i));
	s = acis_agg_open(a, &(struct acis_slot_key){1, 0, 0}, 4);
	t = acis_agg_open(a, &(struct acis_slot_key){1, 0, 1}, 4);
	assert_ptr_equal(acis_agg_slot(a, s->index), s);
	assert_ptr_equal(acis_agg_slot(a, t->index), t);
	for (i = 0; i < 4; i++)
		open += acis_agg_slot(a, i) != NULL;
	assert_int_equal(open, 2);
	acis_agg_close(a, s, 1);
	assert_null(acis_agg_slot(a, s->index));
	assert_null(acis_agg_slot(a, 4));
	assert_null(acis_agg_slot(a, UINT32_MAX));
	acis_agg_free(a);
}

/* --- stats --------------------------------------------------------------- */

static void
test_stats_count_opened_completed_in_use_and_high_water(void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot *s[5];
	struct acis_agg_stats st;
	uint32_t i;

	(void)state;
	st = stats(a);
	assert_int_equal(st.capacity, 8);
	assert_int_equal(st.opened, 0);
	for (i = 0; i < 5; i++)
		s[i] = acis_agg_open(a, &(struct acis_slot_key){1, 0, i}, 4);
	acis_agg_close(a, s[0], 1);
	acis_agg_close(a, s[1], 0); /* abandoned, not completed */
	acis_agg_close(a, s[2], 1);
	s[0] = acis_agg_open(a, &(struct acis_slot_key){1, 1, 0}, 4);
	st = stats(a);
	assert_int_equal(st.opened, 6);
	assert_int_equal(st.completed, 2);
	assert_int_equal(st.in_use, 3);
	assert_int_equal(st.high_water, 5);
	assert_int_equal(st.busy, 0);
	assert_int_equal(st.capacity, 8);
	acis_agg_free(a);
}

static void
test_max_ranks_is_the_created_bitmap_size(void **state)
{
	struct acis_agg *a = acis_agg_create(2, 300, 64);

	(void)state;
	assert_int_equal(acis_agg_max_ranks(a), 300);
	acis_agg_free(a);
}

/* --- hash index under churn ---------------------------------------------- */

/* What should be open: key -> the slot open returned. */
struct ref {
	struct acis_slot_key *keys;
	struct acis_slot **slots;
	uint32_t n;
};

static void
ref_init(struct ref *r, uint32_t cap)
{
	r->keys = calloc(cap, sizeof(*r->keys));
	r->slots = calloc(cap, sizeof(*r->slots));
	assert_non_null(r->keys);
	assert_non_null(r->slots);
	r->n = 0;
}

static void
ref_fini(struct ref *r)
{
	free(r->keys);
	free(r->slots);
}

static int
key_eq(const struct acis_slot_key *a, const struct acis_slot_key *b)
{
	return a->ctx == b->ctx && a->seq == b->seq && a->chunk == b->chunk;
}

static int
ref_has(const struct ref *r, const struct acis_slot_key *k)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (key_eq(&r->keys[i], k))
			return 1;
	return 0;
}

static void
ref_remove(struct ref *r, uint32_t i)
{
	r->keys[i] = r->keys[r->n - 1];
	r->slots[i] = r->slots[r->n - 1];
	r->n--;
}

static void
assert_all_found(struct acis_agg *a, const struct ref *r)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		assert_ptr_equal(acis_agg_find(a, &r->keys[i]), r->slots[i]);
}

/*
 * Keys the way collectives make them: a few communicators, consecutive
 * sequence numbers and chunk indexes, so many keys differ in a single
 * low bit of a single field.
 */
static struct acis_slot_key
random_key(void)
{
	uint64_t x = rnd();

	return key((uint32_t)(x % 3) << 16 | 1, (uint32_t)(x >> 8) % 16,
		   (uint32_t)(x >> 16) % 64);
}

static void
test_index_finds_every_open_key_after_closing_a_random_half(void **state)
{
	const uint32_t n = 1000;
	struct acis_agg *a = acis_agg_create(n, 8, 64);
	struct acis_slot_key *closed = calloc(n, sizeof(*closed));
	uint32_t i, n_closed = 0;
	struct ref r;

	(void)state;
	assert_non_null(closed);
	ref_init(&r, n);
	seed(1);
	/* Every slot open: the index at its highest load. */
	for (i = 0; i < n; i++) {
		struct acis_slot_key k = key(0x10001 + i % 4, i / 64, i % 64);

		r.keys[r.n] = k;
		r.slots[r.n] = acis_agg_open(a, &k, 4);
		assert_non_null(r.slots[r.n]);
		r.n++;
	}
	assert_all_found(a, &r);
	while (r.n > n / 2) {
		uint32_t v = (uint32_t)(rnd() % r.n);

		/* Still found after the closes so far: checked before the
		 * close, which would search for it forever if it were lost. */
		assert_ptr_equal(acis_agg_find(a, &r.keys[v]), r.slots[v]);
		closed[n_closed++] = r.keys[v];
		acis_agg_close(a, r.slots[v], 1);
		ref_remove(&r, v);
	}
	assert_all_found(a, &r);
	for (i = 0; i < n_closed; i++)
		assert_null(acis_agg_find(a, &closed[i]));
	free(closed);
	ref_fini(&r);
	acis_agg_free(a);
}

/* Random opens, closes and finds on a table of n_slots, checked against
 * the reference after every operation when the table is small. Opens
 * outnumber closes, so the pool fills and opens are refused at times. */
static void
churn(uint32_t n_slots, uint32_t ops, uint64_t s)
{
	struct acis_agg *a = acis_agg_create(n_slots, 8, 64);
	uint32_t op, full_every = n_slots <= 64 ? 1 : 97;
	uint64_t opens = 0, closes = 0, refused = 0;
	struct ref r;

	assert_non_null(a);
	ref_init(&r, n_slots);
	seed(s);
	for (op = 0; op < ops; op++) {
		uint64_t what = rnd() % 8;
		struct acis_slot_key k;
		struct acis_slot *sl;

		if (what < 4 && r.n == n_slots) {
			/* A full pool refuses, and changes nothing. */
			do
				k = random_key();
			while (ref_has(&r, &k));
			assert_null(acis_agg_open(a, &k, 4));
			assert_null(acis_agg_find(a, &k));
			refused++;
		} else if (what < 4) {
			/* Open a key not already open. */
			do
				k = random_key();
			while (ref_has(&r, &k));
			sl = acis_agg_open(a, &k, 4);
			assert_non_null(sl);
			assert_true(key_eq(&sl->key, &k));
			r.keys[r.n] = k;
			r.slots[r.n] = sl;
			r.n++;
			opens++;
		} else if (what < 7 && r.n > 0) {
			uint32_t v = (uint32_t)(rnd() % r.n);

			k = r.keys[v];
			assert_ptr_equal(acis_agg_find(a, &k), r.slots[v]);
			acis_agg_close(a, r.slots[v], (int)(what & 1));
			ref_remove(&r, v);
			assert_null(acis_agg_find(a, &k));
			closes++;
		} else {
			k = random_key();
			sl = acis_agg_find(a, &k);
			if (ref_has(&r, &k)) {
				assert_non_null(sl);
				assert_true(key_eq(&sl->key, &k));
			} else {
				assert_null(sl);
			}
		}
		if (op % full_every == 0)
			assert_all_found(a, &r);
		assert_int_equal(stats(a).in_use, r.n);
	}
	assert_all_found(a, &r);
	/* Both paths ran often, and the pool filled up at times. */
	assert_true(opens > ops / 4);
	assert_true(closes > ops / 4);
	assert_true(refused > 0);
	assert_int_equal(stats(a).busy, refused);
	ref_fini(&r);
	acis_agg_free(a);
}

static void
test_index_survives_churn_on_a_table_of_3_slots(void **state)
{
	(void)state;
	churn(3, 20000, 2);
}

static void
test_index_survives_churn_on_a_table_of_8_slots(void **state)
{
	(void)state;
	churn(8, 20000, 3);
}

static void
test_index_survives_churn_on_a_table_of_64_slots(void **state)
{
	(void)state;
	churn(64, 20000, 4);
}

static void
test_index_survives_churn_on_a_table_of_1000_slots(void **state)
{
	(void)state;
	churn(1000, 50000, 5);
}

/* --- memory of closed keys ------------------------------------------------- */

static void
test_a_remembered_key_is_recalled_with_its_flags_within_the_horizon(
	void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot_key k = key(0x10002, 5, 3);
	uint8_t flags = 0;

	(void)state;
	assert_non_null(a);
	assert_int_equal(acis_agg_recall(a, &k, 1000, 100, &flags), 0);
	acis_agg_remember(a, &k, 0x02, 1000);
	assert_int_equal(acis_agg_recall(a, &k, 1000, 100, &flags), 1);
	assert_int_equal(flags, 0x02);
	assert_int_equal(acis_agg_recall(a, &k, 1100, 100, &flags), 1);
	assert_int_equal(acis_agg_recall(a, &k, 1101, 100, &flags), 0);
	acis_agg_free(a);
}

static void
test_recall_tells_keys_apart_by_every_field(void **state)
{
	struct acis_agg *a = acis_agg_create(8, 64, 64);
	struct acis_slot_key k = key(0x10002, 5, 3), o;
	uint8_t flags;

	(void)state;
	acis_agg_remember(a, &k, 0, 10);
	o = key(0x10003, 5, 3);
	assert_int_equal(acis_agg_recall(a, &o, 10, 100, &flags), 0);
	o = key(0x10002, 6, 3);
	assert_int_equal(acis_agg_recall(a, &o, 10, 100, &flags), 0);
	o = key(0x10002, 5, 4);
	assert_int_equal(acis_agg_recall(a, &o, 10, 100, &flags), 0);
	acis_agg_free(a);
}

static void
test_memory_keeps_the_newest_key_of_a_bucket_and_never_recalls_a_stranger(
	void **state)
{
	/* one slot: four buckets, so 64 keys collide; the last remembered
	 * is always recalled, at most four are, and keys never remembered
	 * are never recalled */
	struct acis_agg *a = acis_agg_create(1, 64, 64);
	unsigned int i, recalled = 0;
	uint8_t flags;

	(void)state;
	for (i = 0; i < 64; i++) {
		struct acis_slot_key k = key(1, i, 0);

		acis_agg_remember(a, &k, (uint8_t)i, 100 + i);
		assert_int_equal(acis_agg_recall(a, &k, 100 + i, 1000, &flags),
				 1);
		assert_int_equal(flags, (uint8_t)i);
	}
	for (i = 0; i < 64; i++) {
		struct acis_slot_key k = key(1, i, 0), never = key(2, i, 0);

		recalled += (unsigned int)acis_agg_recall(a, &k, 200, 1000,
							  &flags);
		assert_int_equal(acis_agg_recall(a, &never, 200, 1000, &flags),
				 0);
	}
	assert_true(recalled >= 1 && recalled <= 4);
	acis_agg_free(a);
}

static void
test_a_collective_is_recalled_after_newer_closes_push_out_its_keys(
	void **state)
{
	/* one slot: four buckets of keys, one of collectives; a collective
	 * of 64 chunks forgets most of its keys but not itself, until
	 * another collective's close takes its place or the horizon passes */
	struct acis_agg *a = acis_agg_create(1, 64, 64);
	struct acis_slot_key k;
	unsigned int i, recalled = 0;
	uint8_t flags;

	(void)state;
	assert_int_equal(acis_agg_recall_coll(a, 7, 3, 100, 1000), 0);
	for (i = 0; i < 64; i++) {
		k = key(7, 3, i);
		acis_agg_remember(a, &k, 0, 100 + i);
	}
	for (i = 0; i < 64; i++) {
		k = key(7, 3, i);
		recalled += (unsigned int)acis_agg_recall(a, &k, 200, 1000,
							  &flags);
	}
	assert_true(recalled <= 4);
	assert_int_equal(acis_agg_recall_coll(a, 7, 3, 200, 1000), 1);
	/* the horizon runs from the newest close (at 163) */
	assert_int_equal(acis_agg_recall_coll(a, 7, 3, 1163, 1000), 1);
	assert_int_equal(acis_agg_recall_coll(a, 7, 3, 1164, 1000), 0);
	/* by every field: another seq, another communicator */
	assert_int_equal(acis_agg_recall_coll(a, 7, 4, 200, 1000), 0);
	assert_int_equal(acis_agg_recall_coll(a, 8, 3, 200, 1000), 0);
	k = key(9, 1, 0);
	acis_agg_remember(a, &k, 0, 300);
	assert_int_equal(acis_agg_recall_coll(a, 9, 1, 300, 1000), 1);
	assert_int_equal(acis_agg_recall_coll(a, 7, 3, 300, 1000), 0);
	acis_agg_free(a);
}

static void
test_a_failed_slot_is_reopened_clean(void **state)
{
	struct acis_agg *a = acis_agg_create(1, 64, 64);
	struct acis_slot_key k = key(1, 0, 0);
	struct acis_slot *s = acis_agg_open(a, &k, 4);

	(void)state;
	s->failed = 1;
	s->resend_tsc = 77;
	acis_agg_close(a, s, ACIS_SLOT_EXPIRED);
	s = acis_agg_open(a, &k, 4);
	assert_non_null(s);
	assert_int_equal(s->failed, 0);
	assert_int_equal(s->resend_tsc, 0);
	assert_int_equal(stats(a).expired, 1);
	acis_agg_free(a);
}

static void
test_pending_list_keeps_slots_oldest_first_once_each(void **state)
{
	struct acis_agg *a = acis_agg_create(4, 64, 64);
	struct acis_slot_key k0 = key(1, 0, 0), k1 = key(1, 0, 1),
			     k2 = key(1, 0, 2);
	struct acis_slot *s0 = acis_agg_open(a, &k0, 4);
	struct acis_slot *s1 = acis_agg_open(a, &k1, 4);
	struct acis_slot *s2 = acis_agg_open(a, &k2, 4);

	(void)state;
	assert_null(acis_agg_pend_first(a));
	assert_int_equal(acis_agg_pending(a), 0);
	acis_agg_pend(a, s0);
	acis_agg_pend(a, s1);
	acis_agg_pend(a, s2);
	assert_int_equal(acis_agg_pending(a), 3);
	assert_ptr_equal(acis_agg_pend_first(a), s0);
	/* pending again moves it to the tail: the others get their turn */
	acis_agg_pend(a, s0);
	assert_int_equal(acis_agg_pending(a), 3);
	assert_ptr_equal(acis_agg_pend_first(a), s1);
	acis_agg_unpend(a, s1);
	acis_agg_unpend(a, s1); /* not on it: nothing */
	assert_int_equal(acis_agg_pending(a), 2);
	assert_ptr_equal(acis_agg_pend_first(a), s2);
	acis_agg_unpend(a, s2);
	assert_ptr_equal(acis_agg_pend_first(a), s0);
	acis_agg_unpend(a, s0);
	assert_null(acis_agg_pend_first(a));
	assert_int_equal(acis_agg_pending(a), 0);
	acis_agg_free(a);
}

static void
test_closing_a_pending_slot_takes_it_off_the_list(void **state)
{
	struct acis_agg *a = acis_agg_create(3, 64, 64);
	struct acis_slot_key k0 = key(1, 0, 0), k1 = key(1, 0, 1),
			     k2 = key(1, 0, 2);
	struct acis_slot *s0 = acis_agg_open(a, &k0, 4);
	struct acis_slot *s1 = acis_agg_open(a, &k1, 4);
	struct acis_slot *s2 = acis_agg_open(a, &k2, 4);

	(void)state;
	acis_agg_pend(a, s0);
	acis_agg_pend(a, s1);
	acis_agg_pend(a, s2);
	s1->fan = 3;
	s1->fan_next = 9;
	acis_agg_close(a, s1, ACIS_SLOT_LINGERED); /* from the middle */
	assert_int_equal(acis_agg_pending(a), 2);
	assert_ptr_equal(acis_agg_pend_first(a), s0);
	acis_agg_unpend(a, s0);
	assert_ptr_equal(acis_agg_pend_first(a), s2);
	acis_agg_close(a, s2, ACIS_SLOT_LINGERED); /* the last */
	assert_null(acis_agg_pend_first(a));
	/* the slot comes back off the list, with no answers to send */
	s1 = acis_agg_open(a, &k1, 4);
	assert_non_null(s1);
	assert_int_equal(s1->pending, 0);
	assert_int_equal(s1->fan, 0);
	assert_int_equal(s1->fan_next, 0);
	acis_agg_pend(a, s1);
	assert_ptr_equal(acis_agg_pend_first(a), s1);
	acis_agg_free(a);
}

static void
test_unmark_forgets_a_contribution_so_it_counts_when_it_comes_again(
	void **state)
{
	struct acis_agg *a = acis_agg_create(1, 128, 64);
	struct acis_slot_key k = key(1, 0, 0);
	struct acis_slot *s = acis_agg_open(a, &k, 100);

	(void)state;
	assert_int_equal(acis_slot_mark(s, 70), 1);
	assert_int_equal(acis_slot_mark(s, 3), 1);
	acis_slot_unmark(s, 70);
	assert_int_equal(s->arrived, 1);
	assert_false(acis_slot_has(s, 70));
	assert_true(acis_slot_has(s, 3));
	acis_slot_unmark(s, 70); /* not there: nothing */
	assert_int_equal(s->arrived, 1);
	assert_int_equal(acis_slot_mark(s, 70), 1);
	assert_int_equal(s->arrived, 2);
	acis_agg_free(a);
}

/* Fair share: alone, a tenant may fill the table; once the table is
 * short (under a quarter free), a tenant at its equal share is refused
 * while another still opens, and the refused one opens again once its
 * slots close. */
static void
test_tenants_share_a_short_table_equally(void **state)
{
	struct acis_agg *a = acis_agg_create(16, 8, 64);
	struct acis_slot *s[16];
	struct acis_agg_stats st;
	uint32_t i, n0 = 0, n1 = 0;

	(void)state;
	assert_non_null(a);
	assert_int_equal(acis_agg_set_tenants(a, 2), 0);
	/* tenant 0 alone: all but one slot */
	for (i = 0; i < 15; i++) {
		struct acis_slot_key k = {1, 0, i};

		s[n0++] = acis_agg_open_for(a, &k, 4, 0);
		assert_non_null(s[n0 - 1]);
	}
	/* 1 free: short. Tenant 1 comes: it holds none, under its share
	 * (16 / 2 tenants holding any, itself counted) */
	{
		struct acis_slot_key k = {2, 0, 0};

		assert_non_null(acis_agg_open_for(a, &k, 4, 1));
		n1++;
	}
	/* tenant 0 closes some; while it holds 8 or more and the table is
	 * short, it is refused and tenant 1 is not */
	for (i = 0; i < 6; i++)
		acis_agg_close(a, s[--n0], ACIS_SLOT_DELIVERED);
	/* 9 + 1 open, 6 free: not short (short is under 4 free) */
	{
		struct acis_slot_key k = {2, 0, 1};

		assert_non_null(acis_agg_open_for(a, &k, 4, 1));
		n1++;
	}
	for (i = 2; n0 + n1 < 14; i++) {
		struct acis_slot_key k = {2, 0, i};

		assert_non_null(acis_agg_open_for(a, &k, 4, 1));
		n1++;
	}
	/* 2 free: short. Tenant 0 holds 9 >= 8: refused; tenant 1 (5): not */
	{
		struct acis_slot_key k0 = {1, 0, 100}, k1 = {2, 0, 100};

		assert_null(acis_agg_open_for(a, &k0, 4, 0));
		assert_non_null(acis_agg_open_for(a, &k1, 4, 1));
	}
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.busy_share, 1);
	assert_int_equal(st.busy, 0);
	/* tenant 0 below its share again: it opens */
	acis_agg_close(a, s[--n0], ACIS_SLOT_DELIVERED);
	acis_agg_close(a, s[--n0], ACIS_SLOT_DELIVERED);
	{
		struct acis_slot_key k0 = {1, 0, 101};

		assert_non_null(acis_agg_open_for(a, &k0, 4, 0));
	}
	/* the tenants change only on an empty table */
	assert_int_equal(acis_agg_set_tenants(a, 0), -1); /* slots open */
	acis_agg_free(a);
}

/* Weighted shares: a tenant of weight 3 beside one of weight 1 holds up
 * to three quarters of a short table, the other a quarter. */
static void
test_tenants_share_a_short_table_by_weight(void **state)
{
	struct acis_agg *a = acis_agg_create(16, 8, 64);
	struct acis_agg_stats st;
	uint32_t i, n0 = 0, n1 = 0;

	(void)state;
	assert_non_null(a);
	assert_int_equal(acis_agg_set_tenants(a, 2), 0);
	/* tenant 1 (weight 1) takes 4; tenant 0 (weight 3) all it may */
	for (i = 0; i < 4; i++) {
		struct acis_slot_key k = {2, 0, i};

		assert_non_null(acis_agg_open_weighted(a, &k, 4, 1, 1));
		n1++;
	}
	for (i = 0; i < 16; i++) {
		struct acis_slot_key k = {1, 0, i};

		if (acis_agg_open_weighted(a, &k, 4, 0, 3) == NULL)
			break;
		n0++;
	}
	/* its share: 16 x 3 / (3 + 1) = 12, and the table had 12 left */
	assert_int_equal(n0, 12);
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.busy_share + st.busy, 1);
	acis_agg_free(a);

	/* the other way round: weight 1 holds 4 of a short table beside 3 */
	a = acis_agg_create(16, 8, 64);
	assert_non_null(a);
	assert_int_equal(acis_agg_set_tenants(a, 2), 0);
	n0 = n1 = 0;
	{
		struct acis_slot_key k = {1, 0, 100};

		assert_non_null(acis_agg_open_weighted(a, &k, 4, 0, 3));
		n0++;
	}
	for (i = 0; i < 16; i++) {
		struct acis_slot_key k = {2, 0, i};

		if (acis_agg_open_weighted(a, &k, 4, 1, 1) == NULL)
			break;
		n1++;
	}
	/* tenant 1's share once short: 16 x 1 / (3 + 1) = 4; the table is
	 * short from 13 open, so it got 12 before it was held to 4 */
	assert_int_equal(n1, 12);
	acis_agg_get_stats(a, &st);
	assert_int_equal(st.busy_share, 1);
	/* tenant 0 (weight 3, holding 1) still opens in the short table */
	{
		struct acis_slot_key k = {1, 0, 101};

		assert_non_null(acis_agg_open_weighted(a, &k, 4, 0, 3));
	}
	acis_agg_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refuses_bad_sizes),
		cmocka_unit_test(test_create_accepts_the_smallest_and_largest_sizes),
		cmocka_unit_test(test_acc_of_every_slot_is_64_byte_aligned_and_acc_bytes_long),
		cmocka_unit_test(test_a_lent_accumulator_is_released_once_when_its_slot_closes),
		cmocka_unit_test(test_open_gives_a_slot_that_find_returns),
		cmocka_unit_test(test_find_tells_keys_apart_by_every_field),
		cmocka_unit_test(test_find_of_a_closed_key_is_null),
		cmocka_unit_test(test_open_when_the_pool_is_empty_is_null_and_counts_busy),
		cmocka_unit_test(test_open_refuses_size_0_or_above_max_ranks_without_counting_busy),
		cmocka_unit_test(test_reopened_slot_starts_with_fresh_counts),
		cmocka_unit_test(test_mark_counts_a_new_rank_as_arrived),
		cmocka_unit_test(test_mark_refuses_a_rank_that_already_contributed),
		cmocka_unit_test(test_bitmap_is_cleared_when_a_slot_is_reused),
		cmocka_unit_test(test_bitmap_is_cleared_on_reuse_beyond_64_ranks),
		cmocka_unit_test(test_bitmaps_of_different_slots_are_independent),
		cmocka_unit_test(test_slot_by_index_is_the_open_slot_or_null),
		cmocka_unit_test(test_stats_count_opened_completed_in_use_and_high_water),
		cmocka_unit_test(test_max_ranks_is_the_created_bitmap_size),
		cmocka_unit_test(test_index_finds_every_open_key_after_closing_a_random_half),
		cmocka_unit_test(test_index_survives_churn_on_a_table_of_3_slots),
		cmocka_unit_test(test_index_survives_churn_on_a_table_of_8_slots),
		cmocka_unit_test(test_index_survives_churn_on_a_table_of_64_slots),
		cmocka_unit_test(test_index_survives_churn_on_a_table_of_1000_slots),
		cmocka_unit_test(test_a_remembered_key_is_recalled_with_its_flags_within_the_horizon),
		cmocka_unit_test(test_recall_tells_keys_apart_by_every_field),
		cmocka_unit_test(test_memory_keeps_the_newest_key_of_a_bucket_and_never_recalls_a_stranger),
		cmocka_unit_test(test_a_collective_is_recalled_after_newer_closes_push_out_its_keys),
		cmocka_unit_test(test_a_failed_slot_is_reopened_clean),
		cmocka_unit_test(test_pending_list_keeps_slots_oldest_first_once_each),
		cmocka_unit_test(test_closing_a_pending_slot_takes_it_off_the_list),
		cmocka_unit_test(test_unmark_forgets_a_contribution_so_it_counts_when_it_comes_again),
		cmocka_unit_test(test_tenants_share_a_short_table_equally),
		cmocka_unit_test(test_tenants_share_a_short_table_by_weight),
	};

	return cmocka_run_group_tests_name("agg", tests, NULL, NULL);
}
