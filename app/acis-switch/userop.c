/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User-defined reduction operators: the switch's table of the ops jobs
 * made, their machines (one a worker), the fold, /acis/userops. See
 * userop.h and doc/collectives.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "coll.h"
#include "switch.h"
#include "userop.h"

static uint64_t
op_hash(const char *name, int commutative, const uint32_t *w, uint32_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	h = (h ^ (uint64_t)(commutative != 0)) * 1099511628211ull;
	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 1099511628211ull;
	return h ^ n;
}

static void
entry_free(void *p)
{
	struct acis_userop_entry *e = p;
	unsigned int i;

	for (i = 0; i < ACIS_MAX_WORKERS; i++)
		acis_userop_free(e->w[i]);
	free(e->held);
	free(e->last_seq);
	free(e);
}

/* Take entry k out of the table; freed once no worker can hold it. */
static void
entry_retire(unsigned int k)
{
	struct acis_userop_entry *e = g_sw.coll.userops[k];

	__atomic_store_n(&g_sw.coll.userops[k], NULL, __ATOMIC_RELEASE);
	if (e != NULL)
		acis_coll_retire(e, entry_free);
}

/* Rank r's hold of e from request seq: counted once, however often the
 * request comes (a lost answer makes a host ask again). 1 when counted,
 * 0 for a repeat, -ENOMEM. */
static int
hold(struct acis_userop_entry *e, uint32_t r, uint32_t seq, int delta)
{
	if (r >= e->ranks) {
		uint32_t n = r + 1 > 2 * e->ranks ? r + 1 : 2 * e->ranks;
		uint32_t *h = realloc(e->held, n * sizeof(*h));
		uint32_t *q;

		if (h == NULL)
			return -ENOMEM;
		e->held = h;
		q = realloc(e->last_seq, n * sizeof(*q));
		if (q == NULL)
			return -ENOMEM;
		e->last_seq = q;
		memset(h + e->ranks, 0, (n - e->ranks) * sizeof(*h));
		memset(q + e->ranks, 0xff, (n - e->ranks) * sizeof(*q));
		e->ranks = n;
	}
	if (e->last_seq[r] == seq)
		return 0;
	if (delta < 0 && e->held[r] == 0)
		return 0; /* freed more often than made: nothing held */
	e->last_seq[r] = seq;
	e->held[r] += (uint32_t)delta;
	e->holders += (uint32_t)delta;
	return 1;
}

int
acis_userop_sw_create(uint32_t job, uint32_t rank, uint32_t seq,
		      const char *name, int commutative,
		      const uint32_t *words, uint32_t n_words, char *err,
		      size_t len)
{
	struct acis_userop_spec sp = {
		.name = name, .words = words, .n_words = n_words,
		.commutative = commutative,
	};
	uint64_t h = op_hash(name, commutative, words, n_words);
	struct acis_userop_entry *e;
	unsigned int k, free_k = ACIS_USEROPS, i;
	int rc;

	for (k = 0; k < ACIS_USEROPS; k++) {
		e = g_sw.coll.userops[k];
		if (e == NULL) {
			if (free_k == ACIS_USEROPS)
				free_k = k;
			continue;
		}
		if (e->job == job && e->hash == h && e->n_words == n_words &&
		    strcmp(e->name, name) == 0)
			return hold(e, rank, seq, 1) < 0 ? -ENOMEM : e->id;
	}
	if (free_k == ACIS_USEROPS) {
		snprintf(err, len, "op %s: all %u user ops are taken", name,
			 ACIS_USEROPS);
		return -ENOSPC;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	for (i = 0; i < g_sw.n_workers && i < ACIS_MAX_WORKERS; i++) {
		rc = acis_userop_create(&sp, &e->w[i], err, len);
		if (rc != 0) {
			entry_free(e);
			return rc == -ENOMEM ? -ENOMEM : -EINVAL;
		}
	}
	e->job = job;
	e->id = (uint8_t)(ACIS_OP_USER_MIN + free_k);
	e->commutative = commutative != 0;
	e->hash = h;
	if (hold(e, rank, seq, 1) < 0) {
		entry_free(e);
		return -ENOMEM;
	}
	e->n_words = n_words;
	snprintf(e->name, sizeof(e->name), "%s", name);
	__atomic_store_n(&g_sw.coll.userops[free_k], e, __ATOMIC_RELEASE);
	return e->id;
}

int
acis_userop_sw_free(uint32_t job, uint32_t rank, uint32_t seq,
		    unsigned int op)
{
	struct acis_userop_entry *e =
		acis_userop_sw_get(g_sw.coll.userops, op, job);

	if (e == NULL)
		return -ENOENT;
	if (hold(e, rank, seq, -1) > 0 && e->holders == 0)
		entry_retire(op - ACIS_OP_USER_MIN);
	return 0;
}

void
acis_userop_sw_purge(void)
{
	unsigned int k;

	for (k = 0; k < ACIS_USEROPS; k++) {
		const struct acis_userop_entry *e = g_sw.coll.userops[k];

		if (e != NULL && acis_ct_job(g_sw.coll.ct, e->job) == NULL)
			entry_retire(k);
	}
}

int
acis_userop_sw_fold(struct acis_userop_entry *e, unsigned int w, void *acc,
		    const void *src, size_t len)
{
	if (w >= ACIS_MAX_WORKERS || e->w[w] == NULL) {
		snprintf(e->last_error[w % ACIS_MAX_WORKERS],
			 sizeof(e->last_error[0]), "op %s: no machine on "
			 "worker %u", e->name, w);
		return -EINVAL;
	}
	return acis_userop_fold(e->w[w], acc, src, len, e->last_error[w],
				sizeof(e->last_error[w]));
}

int
acis_userop_sw_map(struct acis_userop_entry *e, unsigned int w,
		   const void *in, size_t in_len, const void *inbound,
		   size_t ib_len, const void *own, size_t own_len, void *out,
		   size_t cap, size_t *out_len)
{
	if (w >= ACIS_MAX_WORKERS || e->w[w] == NULL) {
		snprintf(e->last_error[w % ACIS_MAX_WORKERS],
			 sizeof(e->last_error[0]), "op %s: no machine on "
			 "worker %u", e->name, w);
		return -EINVAL;
	}
	return acis_userop_map(e->w[w], in, in_len, inbound, ib_len, own,
			       own_len, out, cap, out_len, e->last_error[w],
			       sizeof(e->last_error[w]));
}

void
acis_userop_sw_fini(void)
{
	unsigned int k;

	for (k = 0; k < ACIS_USEROPS; k++) {
		if (g_sw.coll.userops[k] != NULL) {
			entry_free(g_sw.coll.userops[k]);
			g_sw.coll.userops[k] = NULL;
		}
	}
}

/* /acis/userops: every op: number, job, name, makers, size, folds and
 * faults over the workers, the last fault's message. */
static int
tel_userops(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int k, i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&g_sw.coll.lock);
	for (k = 0; k < ACIS_USEROPS; k++) {
		const struct acis_userop_entry *e = g_sw.coll.userops[k];
		struct rte_tel_data *o;
		uint64_t folds = 0, faults = 0, f, x;
		const char *last = "";
		char key[8];

		if (e == NULL)
			continue;
		o = rte_tel_data_alloc();
		if (o == NULL)
			break;
		for (i = 0; i < ACIS_MAX_WORKERS; i++) {
			if (e->w[i] == NULL)
				continue;
			acis_userop_counts(e->w[i], &f, &x);
			folds += f;
			faults += x;
			if (e->last_error[i][0] != '\0')
				last = e->last_error[i];
		}
		rte_tel_data_start_dict(o);
		rte_tel_data_add_dict_u64(o, "job", e->job);
		rte_tel_data_add_dict_string(o, "name", e->name);
		rte_tel_data_add_dict_u64(o, "commutative", e->commutative);
		rte_tel_data_add_dict_u64(o, "holders", e->holders);
		rte_tel_data_add_dict_u64(o, "words", e->n_words);
		rte_tel_data_add_dict_u64(o, "folds", folds);
		rte_tel_data_add_dict_u64(o, "faults", faults);
		rte_tel_data_add_dict_string(o, "last_error", last);
		snprintf(key, sizeof(key), "%u", e->id);
		rte_tel_data_add_dict_container(d, key, o, 0);
	}
	rte_spinlock_unlock(&g_sw.coll.lock);
	return 0;
}

int
acis_userop_sw_telemetry_register(void)
{
	return acis_tel_register("/acis/userops", tel_userops,
		"User-defined reduction ops: job, name, makers, folds, faults. No parameters");
}
