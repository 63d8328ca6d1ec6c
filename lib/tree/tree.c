/* SPDX-License-Identifier: BSD-3-Clause */
/* acis_tree: a communicator's aggregation tree at one switch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acis_tree.h"

void
acis_tree_free(struct acis_tree *t)
{
	uint32_t k;

	if (t == NULL)
		return;
	for (k = 0; k < t->n_children; k++)
		free(t->child[k].ranks);
	free(t->next);
	free(t->child_of);
	free(t->job_view.ep);
	free(t->comm_view.global);
	free(t);
}

/* The child of port p, made if new; NULL when there are too many. */
static struct acis_tree_child *
child_of_port(struct acis_tree *t, uint16_t p, uint32_t *index)
{
	uint32_t k;

	for (k = 0; k < t->n_children; k++)
		if (t->child[k].port == p)
			break;
	if (k == t->n_children) {
		if (k == ACIS_TREE_MAX_CHILDREN)
			return NULL;
		t->n_children++;
		t->child[k].port = p;
		t->child[k].leader = ACIS_RANK_NONE;
	}
	*index = k;
	return &t->child[k];
}

static int
view(struct acis_tree *t, const struct acis_endpoint *eps)
{
	uint32_t r;

	t->job_view.ep = calloc(t->size, sizeof(*t->job_view.ep));
	t->comm_view.global = calloc(t->size, sizeof(uint32_t));
	if (t->job_view.ep == NULL || t->comm_view.global == NULL)
		return -1;
	for (r = 0; r < t->size; r++) {
		t->comm_view.global[r] = r;
		if (t->child_of[r] != ACIS_TREE_ABSENT)
			t->job_view.ep[r] = eps[r];
		else
			t->job_view.ep[r].valid = 0;
	}
	t->job_view.id = t->job;
	t->job_view.index = UINT32_MAX; /* no fair-share tenant */
	t->job_view.size = t->size;
	t->job_view.joined = t->size;
	t->job_view.world = t->ctx;
	t->job_view.completed = 1;
	t->job_view.weight = 1;
	t->comm_view.id = t->ctx;
	t->comm_view.job = t->job;
	t->comm_view.size = t->size;
	t->comm_view.parent = ACIS_CTX_NONE;
	t->comm_view.jobp = &t->job_view;
	return 0;
}

struct acis_tree *
acis_tree_build(uint32_t ctx, uint32_t job, uint32_t size,
		const uint16_t *port, uint64_t links,
		const struct acis_endpoint *eps)
{
	struct acis_tree *t;
	uint32_t r, k, last = ACIS_RANK_NONE;

	if (size == 0 || port == NULL)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->ctx = ctx;
	t->job = job;
	t->size = size;
	t->is_root = eps == NULL;
	t->first = ACIS_RANK_NONE;
	t->next = malloc((size_t)size * sizeof(uint32_t));
	t->child_of = malloc((size_t)size * sizeof(uint32_t));
	if (t->next == NULL || t->child_of == NULL)
		goto fail;
	/* who is where; each child's leader is its lowest rank */
	for (r = 0; r < size; r++) {
		struct acis_tree_child *c;

		t->next[r] = ACIS_RANK_NONE;
		if (port[r] == ACIS_TREE_NO_PORT) {
			t->child_of[r] = ACIS_TREE_ABSENT;
			continue;
		}
		t->covered++;
		if (port[r] >= 64 || !(links >> port[r] & 1)) {
			t->child_of[r] = ACIS_TREE_LOCAL;
			continue;
		}
		c = child_of_port(t, port[r], &k);
		if (c == NULL)
			goto fail;
		t->child_of[r] = k;
		if (c->leader == ACIS_RANK_NONE)
			c->leader = r;
		c->count++;
	}
	for (k = 0; k < t->n_children; k++) {
		t->child[k].ranks = malloc((size_t)t->child[k].count *
					   sizeof(uint32_t));
		if (t->child[k].ranks == NULL)
			goto fail;
		t->child[k].count = 0;
	}
	/* the units in tree order, and each child's ranks */
	for (r = 0; r < size; r++) {
		k = t->child_of[r];
		if (k == ACIS_TREE_ABSENT)
			continue;
		if (k != ACIS_TREE_LOCAL) {
			t->child[k].ranks[t->child[k].count++] = r;
			if (t->child[k].leader != r)
				continue;
		}
		if (last == ACIS_RANK_NONE)
			t->first = r;
		else
			t->next[last] = r;
		last = r;
	}
	if (eps != NULL && view(t, eps) != 0)
		goto fail;
	return t;
fail:
	acis_tree_free(t);
	return NULL;
}

uint32_t
acis_tree_units(const struct acis_tree *t)
{
	uint32_t n = 0, u;

	for (u = t->first; u != ACIS_RANK_NONE; u = t->next[u])
		n++;
	return n;
}

void
acis_tree_entry_put(uint8_t *p, uint32_t rank, const struct acis_endpoint *ep)
{
	p[0] = (uint8_t)rank;
	p[1] = (uint8_t)(rank >> 8);
	p[2] = (uint8_t)(rank >> 16);
	p[3] = (uint8_t)(rank >> 24);
	memcpy(p + 4, &ep->ip, 4);
	memcpy(p + 8, &ep->udp_port, 2);
	memcpy(p + 10, ep->mac, 6);
	memcpy(p + 16, ep->auth, 6);
	p[22] = 0;
	p[23] = 0;
}

uint32_t
acis_tree_entry_get(const uint8_t *p, struct acis_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	memcpy(&ep->ip, p + 4, 4);
	memcpy(&ep->udp_port, p + 8, 2);
	memcpy(ep->mac, p + 10, 6);
	memcpy(ep->auth, p + 16, 6);
	ep->valid = 1;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* ---- the table ---------------------------------------------------- */

struct acis_tree_table {
	uint32_t max;
	uint32_t n;
	uint32_t mask;
	struct acis_tree **bucket;
};

static inline uint32_t
bucket_of(const struct acis_tree_table *tt, uint32_t ip, uint32_t ctx)
{
	uint64_t h = ((uint64_t)ip << 32 | ctx) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & tt->mask;
}

struct acis_tree_table *
acis_tree_table_create(uint32_t max)
{
	struct acis_tree_table *tt;
	uint32_t nb = 1;

	if (max == 0 || max > (1u << 24))
		return NULL;
	while (nb < max)
		nb <<= 1;
	tt = calloc(1, sizeof(*tt));
	if (tt == NULL)
		return NULL;
	tt->bucket = calloc(nb, sizeof(*tt->bucket));
	if (tt->bucket == NULL) {
		free(tt);
		return NULL;
	}
	tt->max = max;
	tt->mask = nb - 1;
	return tt;
}

void
acis_tree_table_free(struct acis_tree_table *tt)
{
	uint32_t b;

	if (tt == NULL)
		return;
	for (b = 0; b <= tt->mask; b++) {
		struct acis_tree *t = tt->bucket[b];

		while (t != NULL) {
			struct acis_tree *n = t->hnext;

			acis_tree_free(t);
			t = n;
		}
	}
	free(tt->bucket);
	free(tt);
}

const struct acis_tree *
acis_tree_find(const struct acis_tree_table *tt, uint32_t root_ip,
	       uint32_t ctx)
{
	const struct acis_tree *t = __atomic_load_n(
		&tt->bucket[bucket_of(tt, root_ip, ctx)], __ATOMIC_ACQUIRE);

	while (t != NULL && (t->ctx != ctx || t->root_ip != root_ip))
		t = __atomic_load_n(&t->hnext, __ATOMIC_ACQUIRE);
	return t;
}

int
acis_tree_add(struct acis_tree_table *tt, struct acis_tree *t)
{
	struct acis_tree **b = &tt->bucket[bucket_of(tt, t->root_ip, t->ctx)];

	if (acis_tree_find(tt, t->root_ip, t->ctx) != NULL)
		return -EEXIST;
	if (tt->n == tt->max)
		return -ENOSPC;
	t->hnext = *b;
	__atomic_store_n(b, t, __ATOMIC_RELEASE);
	tt->n++;
	return 0;
}

struct acis_tree *
acis_tree_remove(struct acis_tree_table *tt, uint32_t root_ip, uint32_t ctx)
{
	struct acis_tree **pp = &tt->bucket[bucket_of(tt, root_ip, ctx)];

	for (; *pp != NULL; pp = &(*pp)->hnext) {
		struct acis_tree *t = *pp;

		if (t->ctx == ctx && t->root_ip == root_ip) {
			/* readers on t still see its hnext */
			__atomic_store_n(pp, t->hnext, __ATOMIC_RELEASE);
			tt->n--;
			return t;
		}
	}
	return NULL;
}

uint32_t
acis_tree_count(const struct acis_tree_table *tt)
{
	return tt->n;
}

void
acis_tree_foreach(const struct acis_tree_table *tt,
		  void (*cb)(const struct acis_tree *, void *), void *arg)
{
	uint32_t b;

	for (b = 0; b <= tt->mask; b++) {
		const struct acis_tree *t = tt->bucket[b];

		while (t != NULL) {
			const struct acis_tree *n = t->hnext;

			cb(t, arg);
			t = n;
		}
	}
}
