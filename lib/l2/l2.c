/* SPDX-License-Identifier: BSD-3-Clause */
/* MAC learning table; see acis_l2.h for the concurrency contract. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acis_l2.h"

/* Entry word: bits 0-47 MAC, 48-57 port, 58 static, 59 valid. */
#define W_MAC_MASK ((1ull << 48) - 1)
#define W_PORT_SHIFT 48
#define W_PORT_MASK 0x3ffull
#define W_STATIC (1ull << 58)
#define W_VALID (1ull << 59)

struct l2_bucket {
	uint64_t word[ACIS_L2_WAYS];
	uint32_t seen[ACIS_L2_WAYS];
} __attribute__((aligned(64)));

struct acis_l2_table {
	struct l2_bucket *buckets;
	uint32_t mask; /* n_buckets - 1 */
	uint32_t age;
	struct acis_l2_stats stats;
};

static inline uint64_t
mac_key(const uint8_t m[6])
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 |
	       (uint64_t)m[2] << 24 | (uint64_t)m[3] << 16 |
	       (uint64_t)m[4] << 8 | (uint64_t)m[5];
}

static inline uint32_t
mac_hash(uint64_t k)
{
	/* Murmur-style finaliser: cheap and spreads vendor-prefix runs. */
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

static inline uint64_t
load_word(const uint64_t *w)
{
	return __atomic_load_n(w, __ATOMIC_RELAXED);
}

static inline void
store_word(uint64_t *w, uint64_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELAXED);
}

static inline int
is_live(const struct acis_l2_table *t, uint64_t w, uint32_t seen,
	uint32_t now)
{
	if (!(w & W_VALID))
		return 0;
	if ((w & W_STATIC) || t->age == 0)
		return 1;
	return (uint32_t)(now - seen) < t->age;
}

struct acis_l2_table *
acis_l2_create(uint32_t n_entries, uint32_t age_sec)
{
	struct acis_l2_table *t;
	uint32_t nb = 1;

	if (n_entries == 0 || n_entries > (1u << 26))
		return NULL;
	while (nb * ACIS_L2_WAYS < n_entries)
		nb <<= 1;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->buckets = aligned_alloc(64, (size_t)nb * sizeof(struct l2_bucket));
	if (t->buckets == NULL) {
		free(t);
		return NULL;
	}
	memset(t->buckets, 0, (size_t)nb * sizeof(struct l2_bucket));
	t->mask = nb - 1;
	t->age = age_sec;
	return t;
}

void
acis_l2_free(struct acis_l2_table *t)
{
	if (t == NULL)
		return;
	free(t->buckets);
	free(t);
}

uint32_t
acis_l2_capacity(const struct acis_l2_table *t)
{
	return (t->mask + 1) * ACIS_L2_WAYS;
}

int
acis_l2_add_static(struct acis_l2_table *t, const uint8_t mac[6],
		   uint16_t port)
{
	uint64_t k = mac_key(mac);
	struct l2_bucket *b = &t->buckets[mac_hash(k) & t->mask];
	int i, slot = -1, free_slot = -1, learned_slot = -1;

	if (port > ACIS_L2_MAX_PORT || (mac[0] & 1))
		return -EINVAL;
	for (i = 0; i < ACIS_L2_WAYS; i++) {
		uint64_t w = b->word[i];

		if ((w & W_VALID) && (w & W_MAC_MASK) == k) {
			if (w & W_STATIC)
				return -EEXIST;
			slot = i; /* replace the same station's learned entry */
			break;
		}
		if (free_slot < 0 && !(w & W_VALID))
			free_slot = i;
		if (learned_slot < 0 && (w & W_VALID) && !(w & W_STATIC))
			learned_slot = i;
	}
	if (slot < 0)
		slot = free_slot;
	if (slot < 0 && learned_slot >= 0) {
		/* A static entry outranks a learned one; it will relearn
		 * elsewhere if the bucket has room later. */
		slot = learned_slot;
		t->stats.evicted++;
	}
	if (slot < 0)
		return -ENOSPC;
	b->seen[slot] = 0;
	store_word(&b->word[slot], k | (uint64_t)port << W_PORT_SHIFT |
				       W_STATIC | W_VALID);
	return 0;
}

int
acis_l2_learn(struct acis_l2_table *t, const uint8_t mac[6], uint16_t port,
	      uint32_t now)
{
	uint64_t k = mac_key(mac);
	struct l2_bucket *b = &t->buckets[mac_hash(k) & t->mask];
	uint64_t nw = k | (uint64_t)port << W_PORT_SHIFT | W_VALID;
	int i, victim = -1;
	uint32_t oldest = 0;

	if (port > ACIS_L2_MAX_PORT)
		return -EINVAL;

	for (i = 0; i < ACIS_L2_WAYS; i++) {
		uint64_t w = load_word(&b->word[i]);

		if (!(w & W_VALID) || (w & W_MAC_MASK) != k)
			continue;
		if (w & W_STATIC) {
			if (((w >> W_PORT_SHIFT) & W_PORT_MASK) == port)
				return 0;
			t->stats.static_conflicts++;
			return -EPERM;
		}
		if (((w >> W_PORT_SHIFT) & W_PORT_MASK) == port &&
		    is_live(t, w, b->seen[i], now)) {
			/* Refresh at most once a second: keeps the line clean
			 * for readers on other lcores. */
			if (b->seen[i] != now)
				b->seen[i] = now;
			return 0;
		}
		if (is_live(t, w, b->seen[i], now))
			t->stats.moved++;
		else
			t->stats.learned++; /* aged out: a new entry */
		b->seen[i] = now;
		store_word(&b->word[i], nw);
		return 1;
	}
	/* New station: a free or aged slot, else the oldest learned one. */
	for (i = 0; i < ACIS_L2_WAYS; i++) {
		uint64_t w = load_word(&b->word[i]);
		uint32_t age;

		if (w & W_STATIC)
			continue;
		if (!is_live(t, w, b->seen[i], now)) {
			victim = i;
			oldest = UINT32_MAX;
			break;
		}
		age = now - b->seen[i];
		if (victim < 0 || age > oldest) {
			victim = i;
			oldest = age;
		}
	}
	if (victim < 0)
		return -ENOSPC; /* bucket full of static entries */
	if (oldest != UINT32_MAX)
		t->stats.evicted++;
	b->seen[victim] = now;
	store_word(&b->word[victim], nw);
	t->stats.learned++;
	return 1;
}

int
acis_l2_lookup(const struct acis_l2_table *t, const uint8_t mac[6],
	       uint32_t now)
{
	uint64_t k = mac_key(mac);
	const struct l2_bucket *b = &t->buckets[mac_hash(k) & t->mask];
	int i;

	for (i = 0; i < ACIS_L2_WAYS; i++) {
		uint64_t w = load_word(&b->word[i]);

		if ((w & W_MAC_MASK) == k && is_live(t, w, b->seen[i], now))
			return (int)((w >> W_PORT_SHIFT) & W_PORT_MASK);
	}
	return -1;
}

void
acis_l2_flush_port(struct acis_l2_table *t, uint16_t port)
{
	uint32_t bi;
	int i;

	for (bi = 0; bi <= t->mask; bi++) {
		struct l2_bucket *b = &t->buckets[bi];

		for (i = 0; i < ACIS_L2_WAYS; i++) {
			uint64_t w = load_word(&b->word[i]);

			if ((w & W_VALID) && !(w & W_STATIC) &&
			    ((w >> W_PORT_SHIFT) & W_PORT_MASK) == port)
				store_word(&b->word[i], 0);
		}
	}
}

unsigned int
acis_l2_walk(const struct acis_l2_table *t, uint32_t now,
	     int (*cb)(const struct acis_l2_entry_view *, void *), void *arg)
{
	unsigned int n = 0;
	uint32_t bi;
	int i, j;

	for (bi = 0; bi <= t->mask; bi++) {
		const struct l2_bucket *b = &t->buckets[bi];

		for (i = 0; i < ACIS_L2_WAYS; i++) {
			uint64_t w = load_word(&b->word[i]);
			struct acis_l2_entry_view v;

			if (!is_live(t, w, b->seen[i], now))
				continue;
			for (j = 0; j < 6; j++)
				v.mac[j] = (uint8_t)(w >> (40 - 8 * j));
			v.port = (uint16_t)((w >> W_PORT_SHIFT) & W_PORT_MASK);
			v.is_static = (w & W_STATIC) != 0;
			v.age = v.is_static ? 0 : now - b->seen[i];
			n++;
			if (cb != NULL && cb(&v, arg) != 0)
				return n;
		}
	}
	return n;
}

void
acis_l2_get_stats(const struct acis_l2_table *t, struct acis_l2_stats *s)
{
	*s = t->stats;
}
