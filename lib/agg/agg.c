/* SPDX-License-Identifier: BSD-3-Clause */
/* Aggregation slot pool and its hash index; see acis_agg.h. */
#include <stdlib.h>
#include <string.h>

#include "acis_agg.h"

#define EMPTY UINT32_MAX

struct closed {
	struct acis_slot_key key;
	uint8_t valid;
	uint8_t flags;
	uint64_t when;
};

/* A collective (ctx, seq) one of whose slots closed, and when the newest
 * did. */
struct closed_coll {
	uint32_t ctx, seq;
	uint8_t valid;
	uint64_t when;
};

struct acis_agg {
	/* fair share (acis_agg_set_tenants): slots each tenant holds, its
	 * weight while it holds some, and the sum of those weights */
	uint32_t *tenant_used;
	uint32_t *tenant_w;
	uint32_t n_tenants;
	uint64_t active_w;
	uint32_t n_slots;
	uint32_t max_ranks;
	uint32_t words;      /* bitmap words per slot */
	uint32_t acc_bytes;
	struct acis_slot *slots;
	uint32_t *free_list; /* stack of free slot indexes */
	uint32_t n_free;
	uint32_t *index;     /* open addressing: slot index or EMPTY */
	uint32_t mask;
	uint8_t *used;       /* [n_slots] */
	uint64_t *bitmaps;
	uint64_t *done_maps;
	uint8_t *accs;
	struct closed *closed; /* recently closed keys, direct-mapped */
	uint32_t closed_mask;
	struct closed_coll *closed_coll; /* ... and their collectives */
	uint32_t closed_coll_mask;
	acis_agg_release_fn release; /* takes back lent accumulators */
	uint32_t max_lent;
	uint32_t pend_head, pend_tail, n_pend; /* pending list (acis_agg_pend) */
	struct acis_agg_stats st;
};

static inline uint32_t
key_hash(const struct acis_slot_key *k)
{
	uint64_t h = ((uint64_t)k->ctx << 32 | k->seq) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k->chunk * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (uint32_t)h;
}

static inline uint32_t
coll_hash(uint32_t ctx, uint32_t seq)
{
	uint64_t h = ((uint64_t)ctx << 32 | seq) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

static inline int
key_eq(const struct acis_slot_key *a, const struct acis_slot_key *b)
{
	return a->ctx == b->ctx && a->seq == b->seq && a->chunk == b->chunk;
}

struct acis_agg *
acis_agg_create(uint32_t n_slots, uint32_t max_ranks, uint32_t acc_bytes)
{
	struct acis_agg *a;
	uint32_t i, ib = 1, cb = 1, ccb = 1;

	if (n_slots == 0 || n_slots > (1u << 22) || max_ranks == 0 ||
	    acc_bytes == 0 || acc_bytes > (1u << 20))
		return NULL;
	while (ib < 2 * n_slots)
		ib <<= 1;
	while (cb < 4 * n_slots)
		cb <<= 1;
	while (ccb < n_slots)
		ccb <<= 1;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->n_slots = n_slots;
	a->max_ranks = max_ranks;
	a->words = (max_ranks + 63) / 64;
	a->acc_bytes = (acc_bytes + 63) & ~63u;
	a->slots = calloc(n_slots, sizeof(*a->slots));
	a->free_list = malloc(n_slots * sizeof(uint32_t));
	a->index = malloc(ib * sizeof(uint32_t));
	a->used = calloc(n_slots, 1);
	a->bitmaps = calloc((size_t)n_slots * a->words, sizeof(uint64_t));
	a->done_maps = calloc((size_t)n_slots * a->words, sizeof(uint64_t));
	a->accs = aligned_alloc(64, (size_t)n_slots * a->acc_bytes);
	a->closed = calloc(cb, sizeof(*a->closed));
	a->closed_mask = cb - 1;
	a->closed_coll = calloc(ccb, sizeof(*a->closed_coll));
	a->closed_coll_mask = ccb - 1;
	if (a->slots == NULL || a->free_list == NULL || a->index == NULL ||
	    a->used == NULL || a->bitmaps == NULL || a->done_maps == NULL ||
	    a->accs == NULL || a->closed == NULL || a->closed_coll == NULL) {
		acis_agg_free(a);
		return NULL;
	}
	a->mask = ib - 1;
	memset(a->index, 0xff, ib * sizeof(uint32_t));
	for (i = 0; i < n_slots; i++) {
		a->slots[i].index = i;
		a->slots[i].bitmap = &a->bitmaps[(size_t)i * a->words];
		a->slots[i].done_map = &a->done_maps[(size_t)i * a->words];
		a->slots[i].acc = &a->accs[(size_t)i * a->acc_bytes];
		a->free_list[i] = n_slots - 1 - i;
	}
	a->n_free = n_slots;
	a->pend_head = a->pend_tail = EMPTY;
	a->max_lent = UINT32_MAX;
	a->st.capacity = n_slots;
	return a;
}

/* The slot's accumulator back to its own memory in the pool. */
static void
acc_home(struct acis_agg *a, struct acis_slot *s)
{
	if (s->acc_buf != NULL) {
		a->release(s->acc_buf);
		a->st.lent--;
	}
	s->acc_buf = NULL;
	s->acc = &a->accs[(size_t)s->index * a->acc_bytes];
}

void
acis_agg_unlend(struct acis_agg *a, struct acis_slot *s)
{
	acc_home(a, s);
}

void
acis_agg_on_release(struct acis_agg *a, acis_agg_release_fn fn)
{
	a->release = fn;
}

void
acis_agg_set_lend_max(struct acis_agg *a, uint32_t max_lent)
{
	a->max_lent = max_lent;
}

int
acis_agg_lend(struct acis_agg *a, struct acis_slot *s, void *buf,
	      uint8_t *acc)
{
	if (a->release == NULL || a->st.lent >= a->max_lent) {
		a->st.lend_refused++;
		return 0;
	}
	s->acc_buf = buf;
	s->acc = acc;
	a->st.lent++;
	return 1;
}

void
acis_agg_free(struct acis_agg *a)
{
	uint32_t i;

	if (a == NULL)
		return;
	if (a->slots != NULL && a->used != NULL)
		for (i = 0; i < a->n_slots; i++)
			if (a->used[i] && a->slots[i].acc_buf != NULL)
				a->release(a->slots[i].acc_buf);
	free(a->slots);
	free(a->free_list);
	free(a->index);
	free(a->used);
	free(a->bitmaps);
	free(a->done_maps);
	free(a->accs);
	free(a->closed);
	free(a->closed_coll);
	free(a->tenant_used);
	free(a->tenant_w);
	free(a);
}

int
acis_agg_set_tenants(struct acis_agg *a, uint32_t n)
{
	uint32_t *u = n != 0 ? calloc(n, sizeof(*u)) : NULL;
	uint32_t *w = n != 0 ? calloc(n, sizeof(*w)) : NULL;

	if ((n != 0 && (u == NULL || w == NULL)) ||
	    a->st.in_use != 0) { /* only on an empty table */
		free(u);
		free(w);
		return -1;
	}
	free(a->tenant_used);
	free(a->tenant_w);
	a->tenant_used = u;
	a->tenant_w = w;
	a->n_tenants = n;
	a->active_w = 0;
	return 0;
}

struct acis_slot *
acis_agg_open_weighted(struct acis_agg *a, const struct acis_slot_key *key,
		       uint32_t size, uint32_t tenant, uint32_t weight)
{
	struct acis_slot *s;

	if (weight == 0)
		weight = 1;
	if (tenant < a->n_tenants && a->n_free < a->n_slots / 4) {
		/* the table is short: no tenant past its weighted share of
		 * it (slots x its weight / the weights of the tenants
		 * holding any), a newcomer counting itself */
		uint32_t used = a->tenant_used[tenant];
		uint32_t w = used != 0 ? a->tenant_w[tenant] : weight;
		uint64_t share = (uint64_t)a->n_slots * w /
				 (a->active_w + (used == 0 ? w : 0));

		if (used >= share) {
			a->st.busy_share++;
			return NULL;
		}
	}
	s = acis_agg_open(a, key, size);
	if (s == NULL || tenant >= a->n_tenants)
		return s;
	s->tenant = tenant;
	if (a->tenant_used[tenant]++ == 0) {
		/* its weight is the one it came with, until it holds none */
		a->tenant_w[tenant] = weight;
		a->active_w += weight;
	}
	return s;
}

struct acis_slot *
acis_agg_open_for(struct acis_agg *a, const struct acis_slot_key *key,
		  uint32_t size, uint32_t tenant)
{
	return acis_agg_open_weighted(a, key, size, tenant, 1);
}

struct acis_slot *
acis_agg_find(struct acis_agg *a, const struct acis_slot_key *key)
{
	uint32_t i = key_hash(key) & a->mask;

	for (;;) {
		uint32_t s = a->index[i];

		if (s == EMPTY)
			return NULL;
		if (key_eq(&a->slots[s].key, key))
			return &a->slots[s];
		i = (i + 1) & a->mask;
	}
}

struct acis_slot *
acis_agg_open(struct acis_agg *a, const struct acis_slot_key *key,
	      uint32_t size)
{
	struct acis_slot *s;
	uint32_t i, idx;

	if (a->n_free == 0 || size == 0 || size > a->max_ranks) {
		a->st.busy += a->n_free == 0;
		return NULL;
	}
	idx = a->free_list[--a->n_free];
	s = &a->slots[idx];
	memset(s->bitmap, 0, ((size + 63) / 64) * sizeof(uint64_t));
	memset(s->done_map, 0, ((size + 63) / 64) * sizeof(uint64_t));
	s->done = 0;
	s->fan = 0;
	s->fan_next = 0;
	s->pending = 0;
	s->forwarding = 0;
	s->owner = 0;
	s->sent_up = 0;
	s->wire = 0;
	s->by_retrans = 0;
	s->failed = 0;
	s->fail_status = 0;
	s->fail_len = 0;
	s->resend_tsc = 0;
	s->done_tsc = 0;
	s->delivered = 0;
	s->key = *key;
	s->size = size;
	s->arrived = 0;
	s->folded = 0;
	s->next_rank = 0;
	s->held = NULL;
	s->n_held = 0;
	s->tenant = UINT32_MAX;
	a->used[idx] = 1;
	for (i = key_hash(key) & a->mask; a->index[i] != EMPTY;
	     i = (i + 1) & a->mask)
		;
	a->index[i] = idx;
	a->st.opened++;
	a->st.in_use++;
	if (a->st.in_use > a->st.high_water)
		a->st.high_water = a->st.in_use;
	return s;
}

void
acis_agg_close(struct acis_agg *a, struct acis_slot *s, int how)
{
	uint32_t i = key_hash(&s->key) & a->mask, j;

	while (a->index[i] != s->index)
		i = (i + 1) & a->mask;
	/* Backward-shift deletion keeps every probe chain unbroken without
	 * tombstones. */
	a->index[i] = EMPTY;
	for (j = (i + 1) & a->mask; a->index[j] != EMPTY;
	     j = (j + 1) & a->mask) {
		uint32_t home = key_hash(&a->slots[a->index[j]].key) & a->mask;

		/* Move j back to i if its home is not in (i, j]. */
		if (((j - home) & a->mask) >= ((j - i) & a->mask)) {
			a->index[i] = a->index[j];
			a->index[j] = EMPTY;
			i = j;
		}
	}
	acis_agg_unpend(a, s);
	acc_home(a, s);
	if (s->tenant < a->n_tenants && --a->tenant_used[s->tenant] == 0)
		a->active_w -= a->tenant_w[s->tenant];
	a->used[s->index] = 0;
	a->free_list[a->n_free++] = s->index;
	a->st.in_use--;
	if (how == ACIS_SLOT_DELIVERED || how == ACIS_SLOT_LINGERED)
		a->st.completed++;
	if (how == ACIS_SLOT_LINGERED)
		a->st.lingered++;
	if (how == ACIS_SLOT_EXPIRED)
		a->st.expired++;
	if (how == ACIS_SLOT_STALE)
		a->st.stale++;
}

void
acis_agg_remember(struct acis_agg *a, const struct acis_slot_key *key,
		  uint8_t flags, uint64_t now)
{
	struct closed *e = &a->closed[key_hash(key) & a->closed_mask];
	struct closed_coll *c = &a->closed_coll[coll_hash(key->ctx, key->seq) &
						a->closed_coll_mask];

	e->key = *key;
	e->valid = 1;
	e->flags = flags;
	e->when = now;
	c->ctx = key->ctx;
	c->seq = key->seq;
	c->valid = 1;
	c->when = now;
}

int
acis_agg_recall(const struct acis_agg *a, const struct acis_slot_key *key,
		uint64_t now, uint64_t horizon, uint8_t *flags)
{
	const struct closed *e = &a->closed[key_hash(key) & a->closed_mask];

	if (!e->valid || !key_eq(&e->key, key) || now - e->when > horizon)
		return 0;
	*flags = e->flags;
	return 1;
}

int
acis_agg_recall_coll(const struct acis_agg *a, uint32_t ctx, uint32_t seq,
		     uint64_t now, uint64_t horizon)
{
	const struct closed_coll *c =
		&a->closed_coll[coll_hash(ctx, seq) & a->closed_coll_mask];

	return c->valid && c->ctx == ctx && c->seq == seq &&
	       now - c->when <= horizon;
}

void
acis_agg_unpend(struct acis_agg *a, struct acis_slot *s)
{
	if (!s->pending)
		return;
	if (s->pend_prev == EMPTY)
		a->pend_head = s->pend_next;
	else
		a->slots[s->pend_prev].pend_next = s->pend_next;
	if (s->pend_next == EMPTY)
		a->pend_tail = s->pend_prev;
	else
		a->slots[s->pend_next].pend_prev = s->pend_prev;
	s->pending = 0;
	a->n_pend--;
}

void
acis_agg_pend(struct acis_agg *a, struct acis_slot *s)
{
	acis_agg_unpend(a, s);
	s->pend_prev = a->pend_tail;
	s->pend_next = EMPTY;
	if (a->pend_tail == EMPTY)
		a->pend_head = s->index;
	else
		a->slots[a->pend_tail].pend_next = s->index;
	a->pend_tail = s->index;
	s->pending = 1;
	a->n_pend++;
}

struct acis_slot *
acis_agg_pend_first(struct acis_agg *a)
{
	return a->pend_head == EMPTY ? NULL : &a->slots[a->pend_head];
}

uint32_t
acis_agg_pending(const struct acis_agg *a)
{
	return a->n_pend;
}

struct acis_slot *
acis_agg_slot(struct acis_agg *a, uint32_t index)
{
	return index < a->n_slots && a->used[index] ? &a->slots[index] : NULL;
}

void
acis_agg_get_stats(const struct acis_agg *a, struct acis_agg_stats *s)
{
	*s = a->st;
}

uint32_t
acis_agg_max_ranks(const struct acis_agg *a)
{
	return a->max_ranks;
}
