/* SPDX-License-Identifier: BSD-3-Clause */
/* Deadlines and SSP barriers in the switch; see acis_sync.h. */
#include <stdlib.h>
#include <string.h>

#include "acis_sync.h"

void
acis_sync_table_init(struct acis_sync_table *t)
{
	memset(t, 0, sizeof(*t));
	t->next_tsc = UINT64_MAX;
}

static void
entry_free(struct acis_sync *e)
{
	free(e->done);
	free(e->want);
	free(e->go);
	free(e->go_iter);
	free(e->scratch);
	memset(e, 0, sizeof(*e));
}

void
acis_sync_table_fini(struct acis_sync_table *t)
{
	unsigned int i;

	for (i = 0; i < ACIS_SYNC_MAX; i++)
		if (t->e[i].ctx != 0)
			entry_free(&t->e[i]);
	acis_sync_table_init(t);
}

/* The earliest armed deadline, after any change. */
static void
rearm(struct acis_sync_table *t)
{
	unsigned int i;

	t->next_tsc = UINT64_MAX;
	for (i = 0; i < ACIS_SYNC_MAX; i++)
		if (t->e[i].ctx != 0 && t->e[i].period_tsc != 0 &&
		    t->e[i].next_tsc < t->next_tsc)
			t->next_tsc = t->e[i].next_tsc;
}

struct acis_sync *
acis_sync_find(struct acis_sync_table *t, uint32_t ctx)
{
	unsigned int i;

	if (ctx == 0)
		return NULL;
	for (i = 0; i < ACIS_SYNC_MAX; i++)
		if (t->e[i].ctx == ctx)
			return &t->e[i];
	return NULL;
}

struct acis_sync *
acis_sync_get(struct acis_sync_table *t, uint32_t ctx, uint32_t size)
{
	struct acis_sync *e = acis_sync_find(t, ctx);
	unsigned int i;

	if (e != NULL)
		return e->size == size ? e : NULL;
	if (ctx == 0 || size == 0 || t->n == ACIS_SYNC_MAX)
		return NULL;
	for (i = 0; i < ACIS_SYNC_MAX && t->e[i].ctx != 0; i++)
		;
	e = &t->e[i];
	e->done = calloc(size, sizeof(*e->done));
	e->want = calloc(size, sizeof(*e->want));
	e->go = calloc(size, sizeof(*e->go));
	e->go_iter = calloc(size, sizeof(*e->go_iter));
	e->scratch = calloc(size, sizeof(*e->scratch));
	if (e->done == NULL || e->want == NULL || e->go == NULL ||
	    e->go_iter == NULL || e->scratch == NULL) {
		entry_free(e);
		return NULL;
	}
	e->ctx = ctx;
	e->size = size;
	e->quorum = size;
	t->n++;
	return e;
}

static void
add_counts(struct acis_sync_totals *s, const struct acis_sync *e)
{
	s->signals += e->signals;
	s->missed += e->missed;
	s->on_time += e->on_time;
	s->late += e->late;
	s->dones += e->dones;
	s->continues += e->continues;
	s->waits += e->waits;
}

void
acis_sync_totals(const struct acis_sync_table *t, struct acis_sync_totals *s)
{
	unsigned int i;

	*s = t->gone;
	for (i = 0; i < ACIS_SYNC_MAX; i++)
		if (t->e[i].ctx != 0)
			add_counts(s, &t->e[i]);
}

void
acis_sync_remove(struct acis_sync_table *t, uint32_t ctx)
{
	struct acis_sync *e = acis_sync_find(t, ctx);

	if (e == NULL)
		return;
	add_counts(&t->gone, e);
	entry_free(e);
	t->n--;
	rearm(t);
}

int
acis_sync_deadline_set(struct acis_sync_table *t, struct acis_sync *e,
		       uint32_t period_us, uint64_t tsc_hz, uint64_t now)
{
	if (period_us != 0 && (period_us < ACIS_SYNC_PERIOD_MIN_US ||
			       period_us > ACIS_SYNC_PERIOD_MAX_US))
		return -1;
	e->period_us = period_us;
	e->period_tsc = (uint64_t)((double)period_us * 1e-6 * (double)tsc_hz);
	e->next_tsc = period_us != 0 ? now + e->period_tsc : 0;
	rearm(t);
	return 0;
}

int
acis_sync_deadline_report(struct acis_sync *e, uint32_t k)
{
	if (k <= e->epoch) {
		e->late++;
		return 1;
	}
	e->on_time++;
	return 0;
}

unsigned int
acis_sync_deadline_due(struct acis_sync_table *t, uint64_t now,
		       void (*signal)(struct acis_sync *e, void *arg),
		       void *arg)
{
	unsigned int i, n = 0;

	if (now < t->next_tsc)
		return 0;
	for (i = 0; i < ACIS_SYNC_MAX; i++) {
		struct acis_sync *e = &t->e[i];
		uint64_t behind;

		if (e->ctx == 0 || e->period_tsc == 0 || now < e->next_tsc)
			continue;
		/* periods that passed unseen: their epochs count, one
		 * signal says where the deadline stands now */
		behind = (now - e->next_tsc) / e->period_tsc;
		e->missed += behind;
		e->epoch += (uint32_t)(behind + 1);
		e->next_tsc += (behind + 1) * e->period_tsc;
		e->signals += e->size;
		signal(e, arg);
		n++;
	}
	rearm(t);
	return n;
}

static int
cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

int
acis_sync_ssp_done(struct acis_sync *e, uint32_t rank, uint32_t iter,
		   uint32_t s, uint32_t q)
{
	uint32_t r, n = 0, reach;
	uint32_t *sorted = e->scratch, *go = e->go, *it = e->go_iter;

	if (rank >= e->size || iter == 0 || s > ACIS_SYNC_STALENESS_MAX ||
	    q > e->size)
		return -1;
	e->staleness = s;
	e->quorum = q != 0 ? q : e->size;
	e->dones++;
	if (iter > e->done[rank])
		e->done[rank] = iter;
	/* a late copy of an older report does not move the wait back */
	if (iter >= e->want[rank])
		e->want[rank] = iter;
	/* the quorum-th most advanced member: a member that finished
	 * iteration w may go on once it has finished w - s */
	memcpy(sorted, e->done, e->size * sizeof(*sorted));
	qsort(sorted, e->size, sizeof(*sorted), cmp_desc);
	reach = sorted[e->quorum - 1];
	e->reach = reach;
	if (sorted[0] - sorted[e->size - 1] > e->spread)
		e->spread = sorted[0] - sorted[e->size - 1];
	for (r = 0; r < e->size; r++) {
		uint32_t w = e->want[r];

		if (w == 0 || (uint64_t)w > (uint64_t)reach + s)
			continue;
		go[n] = r;
		it[n++] = w;
		e->want[r] = 0;
	}
	if (e->want[rank] != 0)
		e->waits++; /* the sender waits */
	e->continues += n;
	return (int)n;
}
