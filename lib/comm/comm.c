/* SPDX-License-Identifier: BSD-3-Clause */
/* Jobs, forwarding table and communicator table; see acis_comm.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acis_comm.h"

#define IDX_BITS 16
#define IDX_MASK ((1u << IDX_BITS) - 1)

struct acis_comm_table {
	struct acis_ct_limits lim;
	struct acis_comm **comms; /* [max_comms], published pointers */
	uint16_t *gen;            /* [max_comms] generation of each index */
	struct acis_job **jobs;   /* [max_jobs] */
	uint64_t members;
	uint64_t created, freed;
	uint64_t jobs_refused, jobs_expired, joins_limited;
	uint32_t next_idx;        /* round robin: reuse indexes late */
	/* job id -> world context id for the data path's alias
	 * (acis_ct_world): job << 32 | world, 0 when free; a job sits in
	 * one of WORLD_PROBES entries from its hash */
	uint64_t *world_map;
	uint32_t world_mask;
};

#define WORLD_PROBES 8

static inline void
publish(struct acis_comm **slot, struct acis_comm *c)
{
	__atomic_store_n(slot, c, __ATOMIC_RELEASE);
}

struct acis_comm_table *
acis_ct_create(const struct acis_ct_limits *lim)
{
	struct acis_comm_table *ct;

	if (lim->max_comms == 0 || lim->max_comms > IDX_MASK ||
	    lim->max_jobs == 0 || lim->max_ranks == 0 ||
	    lim->max_members < lim->max_ranks)
		return NULL;
	ct = calloc(1, sizeof(*ct));
	if (ct == NULL)
		return NULL;
	ct->lim = *lim;
	ct->comms = calloc(lim->max_comms, sizeof(*ct->comms));
	ct->gen = calloc(lim->max_comms, sizeof(*ct->gen));
	ct->jobs = calloc(lim->max_jobs, sizeof(*ct->jobs));
	ct->world_mask = 63;
	while (ct->world_mask + 1 < 4 * lim->max_jobs)
		ct->world_mask = ct->world_mask << 1 | 1;
	ct->world_map = calloc(ct->world_mask + 1, sizeof(*ct->world_map));
	if (ct->comms == NULL || ct->gen == NULL || ct->jobs == NULL ||
	    ct->world_map == NULL) {
		acis_ct_free(ct);
		return NULL;
	}
	return ct;
}

static void
job_destroy(struct acis_job *j)
{
	if (j == NULL)
		return;
	free(j->ep);
	free(j);
}

static void comm_destroy(struct acis_comm *c);

static void
destroy_comm_cb(void *p)
{
	comm_destroy(p);
}

static void
destroy_job_cb(void *p)
{
	job_destroy(p);
}

static void
retire(struct acis_comm_table *ct, void *obj, void (*destroy)(void *))
{
	if (ct->lim.retire != NULL)
		ct->lim.retire(obj, destroy, ct->lim.retire_arg);
	else
		destroy(obj);
}

static void
comm_destroy(struct acis_comm *c)
{
	if (c == NULL)
		return;
	free(c->global);
	free(c->ctl.heard);
	free(c->ctl.color);
	free(c->ctl.key);
	free(c->ctl.new_ctx);
	free(c->ctl.new_rank);
	free(c->ctl.new_size);
	free(c);
}

void
acis_ct_free(struct acis_comm_table *ct)
{
	uint32_t i;

	if (ct == NULL)
		return;
	for (i = 0; ct->comms && i < ct->lim.max_comms; i++)
		comm_destroy(ct->comms[i]);
	for (i = 0; ct->jobs && i < ct->lim.max_jobs; i++)
		job_destroy(ct->jobs[i]);
	free(ct->comms);
	free(ct->gen);
	free(ct->jobs);
	free(ct->world_map);
	free(ct);
}

static inline uint32_t
world_pos(const struct acis_comm_table *ct, uint32_t job, uint32_t probe)
{
	return ((uint32_t)((job * 0x9e3779b97f4a7c15ull) >> 32) + probe) &
	       ct->world_mask;
}

/* A world communicator made: its job's alias resolves to it. */
static void
world_map_set(struct acis_comm_table *ct, uint32_t job, uint32_t world)
{
	uint32_t p;

	for (p = 0; p < WORLD_PROBES; p++) {
		uint64_t *e = &ct->world_map[world_pos(ct, job, p)];

		if (*e == 0) {
			__atomic_store_n(e, (uint64_t)job << 32 | world,
					 __ATOMIC_RELEASE);
			return;
		}
	}
	/* all taken (4 entries a job: next to never): no alias for it */
}

static void
world_map_clear(struct acis_comm_table *ct, uint32_t job, uint32_t world)
{
	uint64_t want = (uint64_t)job << 32 | world;
	uint32_t p;

	for (p = 0; p < WORLD_PROBES; p++) {
		uint64_t *e = &ct->world_map[world_pos(ct, job, p)];

		if (*e == want)
			__atomic_store_n(e, 0, __ATOMIC_RELEASE);
	}
}

uint32_t
acis_ct_world(const struct acis_comm_table *ct, uint32_t job)
{
	uint32_t p;

	for (p = 0; p < WORLD_PROBES; p++) {
		uint64_t e = __atomic_load_n(
			&ct->world_map[world_pos(ct, job, p)],
			__ATOMIC_ACQUIRE);

		if (e != 0 && (uint32_t)(e >> 32) == job)
			return (uint32_t)e;
	}
	return ACIS_CTX_NONE;
}

const struct acis_comm *
acis_ct_lookup(const struct acis_comm_table *ct, uint32_t ctx)
{
	uint32_t idx = ctx & IDX_MASK;
	const struct acis_comm *c;

	if (idx >= ct->lim.max_comms)
		return NULL;
	c = __atomic_load_n(&ct->comms[idx], __ATOMIC_ACQUIRE);
	return c != NULL && c->id == ctx ? c : NULL;
}

static struct acis_job *
find_job(const struct acis_comm_table *ct, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < ct->lim.max_jobs; i++)
		if (ct->jobs[i] != NULL && ct->jobs[i]->id == id)
			return ct->jobs[i];
	return NULL;
}

const struct acis_job *
acis_ct_job(const struct acis_comm_table *ct, uint32_t job)
{
	return find_job(ct, job);
}

int
acis_ct_set_weight(struct acis_comm_table *ct, uint32_t job, uint16_t weight)
{
	struct acis_job *j = find_job(ct, job);

	if (j == NULL)
		return -ENOENT;
	j->weight = weight;
	return 0;
}

/* Build and publish a communicator over world ranks global[0..n-1]. */
static struct acis_comm *
comm_make(struct acis_comm_table *ct, const struct acis_job *j, uint32_t n,
	  const uint32_t *global, uint32_t parent, uint16_t *status)
{
	struct acis_comm *c;
	uint32_t i, idx = UINT32_MAX;

	if (n == 0 || n > ct->lim.max_ranks ||
	    ct->members + n > ct->lim.max_members) {
		*status = ACIS_S_FULL;
		return NULL;
	}
	for (i = 0; i < ct->lim.max_comms; i++) {
		uint32_t k = (ct->next_idx + i) % ct->lim.max_comms;

		if (ct->comms[k] == NULL) {
			idx = k;
			break;
		}
	}
	if (idx == UINT32_MAX) {
		*status = ACIS_S_FULL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		*status = ACIS_S_FULL;
		return NULL;
	}
	c->global = malloc(n * sizeof(*c->global));
	c->ctl.heard = calloc(n / 64 + 1, sizeof(uint64_t));
	c->ctl.color = calloc(n, sizeof(uint32_t));
	c->ctl.key = calloc(n, sizeof(uint64_t));
	c->ctl.new_ctx = calloc(n, sizeof(uint32_t));
	c->ctl.new_rank = calloc(n, sizeof(uint32_t));
	c->ctl.new_size = calloc(n, sizeof(uint32_t));
	if (c->global == NULL || c->ctl.heard == NULL ||
	    c->ctl.color == NULL || c->ctl.key == NULL ||
	    c->ctl.new_ctx == NULL || c->ctl.new_rank == NULL ||
	    c->ctl.new_size == NULL) {
		comm_destroy(c);
		*status = ACIS_S_FULL;
		return NULL;
	}
	memcpy(c->global, global, n * sizeof(*global));
	ct->gen[idx] = (uint16_t)(ct->gen[idx] + 1);
	if (ct->gen[idx] == 0 && idx == 0)
		ct->gen[idx] = 1; /* never hand out 0xffffffff-like ids */
	c->id = (uint32_t)ct->gen[idx] << IDX_BITS | idx;
	if (c->id == ACIS_CTX_NONE)
		c->id = (uint32_t)(++ct->gen[idx]) << IDX_BITS | idx;
	c->job = j->id;
	c->jobp = j;
	c->size = n;
	c->parent = parent;
	{
		uint32_t set[ACIS_ALGO_MAX_PARTNERS];

		c->n_partners = acis_algo_partner_set(ACIS_A_BINOMIAL, n, 0, 0,
						      set, ACIS_ALGO_MAX_PARTNERS);
		memcpy(c->partners, set, c->n_partners * sizeof(set[0]));
	}
	ct->members += n;
	ct->created++;
	ct->next_idx = (idx + 1) % ct->lim.max_comms;
	publish(&ct->comms[idx], c);
	return c;
}

/* Take a communicator out of the table and retire it. */
static void
unpublish(struct acis_comm_table *ct, struct acis_comm *c)
{
	world_map_clear(ct, c->job, c->id);
	publish(&ct->comms[c->id & IDX_MASK], NULL);
	ct->members -= c->size;
	ct->freed++;
	retire(ct, c, destroy_comm_cb);
}

static int
same_ep(const struct acis_endpoint *a, const struct acis_endpoint *b)
{
	return a->ip == b->ip && a->udp_port == b->udp_port &&
	       memcmp(a->auth, b->auth, sizeof(a->auth)) == 0;
}

/* Jobs begun by host ip and not yet ended. */
static uint32_t
jobs_of_host(const struct acis_comm_table *ct, uint32_t ip)
{
	uint32_t i, n = 0;

	for (i = 0; i < ct->lim.max_jobs; i++)
		n += ct->jobs[i] != NULL && ct->jobs[i]->creator == ip;
	return n;
}

enum acis_ct_outcome
acis_ct_join(struct acis_comm_table *ct, uint32_t job, uint32_t size,
	     uint32_t rank, const struct acis_endpoint *ep, uint64_t now,
	     uint16_t *status)
{
	struct acis_job *j = find_job(ct, job);
	uint32_t i;

	*status = ACIS_S_OK;
	if (j != NULL && j->refused != 0) {
		/* refused for everyone: a rank that missed it hears it */
		*status = j->refused;
		return ACIS_CT_ERROR;
	}
	if (size == 0 || size > ct->lim.max_ranks || rank >= size) {
		*status = ACIS_S_BAD_ARGS;
		return ACIS_CT_ERROR;
	}
	if (j == NULL) {
		if (ct->lim.max_jobs_per_host != 0 &&
		    jobs_of_host(ct, ep->ip) >= ct->lim.max_jobs_per_host) {
			ct->joins_limited++;
			*status = ACIS_S_LIMIT;
			return ACIS_CT_ERROR;
		}
		for (i = 0; i < ct->lim.max_jobs; i++)
			if (ct->jobs[i] == NULL)
				break;
		if (i == ct->lim.max_jobs) {
			*status = ACIS_S_FULL;
			return ACIS_CT_ERROR;
		}
		j = calloc(1, sizeof(*j));
		if (j == NULL || (j->ep = calloc(size, sizeof(*j->ep))) == NULL) {
			free(j);
			*status = ACIS_S_FULL;
			return ACIS_CT_ERROR;
		}
		j->id = job;
		j->index = i;
		j->size = size;
		j->world = ACIS_CTX_NONE;
		j->creator = ep->ip;
		j->since = now;
		ct->jobs[i] = j;
	}
	if (j->size != size) {
		*status = ACIS_S_SIZE_MISMATCH;
		return ACIS_CT_ERROR;
	}
	if (j->ep[rank].valid) {
		if (!same_ep(&j->ep[rank], ep)) {
			*status = ACIS_S_RANK_TAKEN;
			return ACIS_CT_ERROR;
		}
		return j->world != ACIS_CTX_NONE ? ACIS_CT_REPEAT : ACIS_CT_WAIT;
	}
	j->ep[rank] = *ep;
	j->ep[rank].valid = 1;
	j->joined++;
	if (j->world != ACIS_CTX_NONE)
		return ACIS_CT_REPEAT; /* back after a leave: the world stands */
	if (j->joined < j->size)
		return ACIS_CT_WAIT;
	{
		uint32_t *g = malloc(size * sizeof(*g));
		struct acis_comm *c = NULL;

		if (g == NULL) {
			*status = ACIS_S_FULL;
		} else {
			for (i = 0; i < size; i++)
				g[i] = i;
			c = comm_make(ct, j, size, g, ACIS_CTX_NONE, status);
			free(g);
		}
		if (c == NULL) {
			/* every rank is told, and told again when it asks,
			 * until the job expires (acis_ct_expire_joins) */
			j->refused = *status;
			j->since = now;
			ct->jobs_refused++;
			return ACIS_CT_REFUSED;
		}
		j->world = c->id;
		j->completed = 1;
		world_map_set(ct, job, c->id);
	}
	return ACIS_CT_DONE;
}

/* The job and its communicators go, retired communicators first since
 * they point at the job. */
static void
remove_job(struct acis_comm_table *ct, struct acis_job *j)
{
	uint32_t i;

	for (i = 0; i < ct->lim.max_comms; i++) {
		struct acis_comm *c = ct->comms[i];

		if (c != NULL && c->jobp == j)
			unpublish(ct, c);
	}
	for (i = 0; i < ct->lim.max_jobs; i++)
		if (ct->jobs[i] == j)
			ct->jobs[i] = NULL;
	retire(ct, j, destroy_job_cb);
}

uint32_t
acis_ct_expire_joins(struct acis_comm_table *ct, uint64_t now,
		     uint64_t max_wait, uint64_t max_refused)
{
	uint32_t i, n = 0;

	for (i = 0; i < ct->lim.max_jobs; i++) {
		struct acis_job *j = ct->jobs[i];

		/* a job that completed once (ranks may have left since, its
		 * world may be freed) lives until its last rank leaves */
		if (j == NULL || j->completed ||
		    (j->joined == j->size && j->refused == 0) ||
		    now - j->since <= (j->refused ? max_refused : max_wait))
			continue;
		remove_job(ct, j);
		n++;
	}
	ct->jobs_expired += n;
	return n;
}

enum acis_ct_outcome
acis_ct_leave(struct acis_comm_table *ct, uint32_t job, uint32_t rank,
	      const struct acis_endpoint *ep, uint16_t *status)
{
	struct acis_job *j = find_job(ct, job);

	*status = ACIS_S_OK;
	if (j == NULL) {
		*status = ACIS_S_NO_JOB;
		return ACIS_CT_ERROR;
	}
	if (rank >= j->size || !j->ep[rank].valid ||
	    !same_ep(&j->ep[rank], ep)) {
		*status = ACIS_S_NOT_MEMBER;
		return ACIS_CT_ERROR;
	}
	j->ep[rank].valid = 0;
	j->joined--;
	if (j->joined == 0)
		remove_job(ct, j); /* the last rank left */
	return ACIS_CT_DONE;
}

int
acis_ct_job_remove(struct acis_comm_table *ct, uint32_t job)
{
	struct acis_job *j = find_job(ct, job);

	if (j == NULL)
		return -ENOENT;
	remove_job(ct, j);
	return 0;
}

uint32_t
acis_comm_rank_of(const struct acis_comm *c, uint32_t world_rank)
{
	uint32_t i;

	for (i = 0; i < c->size; i++)
		if (c->global[i] == world_rank)
			return i;
	return ACIS_RANK_NONE;
}

static struct acis_comm *
writable(struct acis_comm_table *ct, uint32_t ctx)
{
	return (struct acis_comm *)acis_ct_lookup(ct, ctx);
}

/* Record that rank took part in control op/seq; 1 if new. */
static int
ctl_mark(struct acis_comm *c, uint8_t op, uint32_t seq, uint32_t rank)
{
	uint64_t bit = 1ull << (rank % 64);

	if (c->ctl.op != op || c->ctl.seq != seq || c->ctl.count == 0) {
		if (c->ctl.count != 0 && (c->ctl.op != op || c->ctl.seq != seq))
			return -1; /* another control collective is open */
		c->ctl.op = op;
		c->ctl.seq = seq;
		memset(c->ctl.heard, 0, (c->size / 64 + 1) * sizeof(uint64_t));
	}
	if (c->ctl.heard[rank / 64] & bit)
		return 0;
	c->ctl.heard[rank / 64] |= bit;
	c->ctl.count++;
	return 1;
}

static int
cmp_member(const void *a, const void *b, void *arg)
{
	const struct acis_comm *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (c->ctl.color[x] != c->ctl.color[y])
		return c->ctl.color[x] < c->ctl.color[y] ? -1 : 1;
	if (c->ctl.key[x] != c->ctl.key[y])
		return c->ctl.key[x] < c->ctl.key[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* All members have asked: make one communicator per color. */
static int
split_finish(struct acis_comm_table *ct, struct acis_comm *c,
	     uint16_t *status)
{
	uint32_t *order = malloc(c->size * sizeof(*order));
	uint32_t *g = malloc(c->size * sizeof(*g));
	uint32_t i, start;

	if (order == NULL || g == NULL) {
		free(order);
		free(g);
		*status = ACIS_S_FULL;
		return -1;
	}
	for (i = 0; i < c->size; i++)
		order[i] = i;
	qsort_r(order, c->size, sizeof(*order), cmp_member, c);
	for (start = 0; start < c->size;) {
		uint32_t color = c->ctl.color[order[start]];
		uint32_t end = start, k;
		struct acis_comm *nc = NULL;

		while (end < c->size && c->ctl.color[order[end]] == color)
			end++;
		if (color != ACIS_CTX_NONE) {
			for (k = start; k < end; k++)
				g[k - start] = c->global[order[k]];
			nc = comm_make(ct, c->jobp, end - start, g, c->id,
				       status);
			if (nc == NULL) {
				/* Undo the groups made so far: all or none. */
				for (k = 0; k < start; k++) {
					struct acis_comm *d;

					d = writable(ct, c->ctl.new_ctx[order[k]]);
					if (d != NULL && d->parent == c->id &&
					    c->ctl.new_rank[order[k]] == 0)
						unpublish(ct, d);
				}
				free(order);
				free(g);
				return -1;
			}
		}
		for (k = start; k < end; k++) {
			uint32_t r = order[k];

			c->ctl.new_ctx[r] = nc ? nc->id : ACIS_CTX_NONE;
			c->ctl.new_rank[r] = nc ? k - start : ACIS_RANK_NONE;
			c->ctl.new_size[r] = nc ? end - start : 0;
		}
		start = end;
	}
	free(order);
	free(g);
	return 0;
}

enum acis_ct_outcome
acis_ct_split(struct acis_comm_table *ct, uint32_t comm, uint32_t seq,
	      uint32_t rank, uint32_t color, uint64_t key, uint16_t *status)
{
	struct acis_comm *c = writable(ct, comm);
	int m;

	*status = ACIS_S_OK;
	if (c == NULL) {
		*status = ACIS_S_NO_COMM;
		return ACIS_CT_ERROR;
	}
	if (rank >= c->size) {
		*status = ACIS_S_NOT_MEMBER;
		return ACIS_CT_ERROR;
	}
	/* A finished split's seq is never reopened; its outcome stays in
	 * ctl.new_* until the next split completes. */
	if (c->ctl.done && c->ctl.done_seq == seq)
		return ACIS_CT_REPEAT;
	if (c->ctl.failed && c->ctl.fail_seq == seq) {
		/* refused for everyone: a member that missed it hears it */
		*status = c->ctl.fail_status;
		return ACIS_CT_ERROR;
	}
	m = ctl_mark(c, ACIS_CTRL_SPLIT, seq, rank);
	if (m < 0) {
		*status = ACIS_S_MISMATCH;
		return ACIS_CT_ERROR;
	}
	if (m == 0)
		return ACIS_CT_WAIT;
	c->ctl.color[rank] = color;
	c->ctl.key[rank] = key;
	if (c->ctl.count < c->size)
		return ACIS_CT_WAIT;
	c->ctl.count = 0;
	if (split_finish(ct, c, status) != 0) {
		c->ctl.done = 0;
		c->ctl.failed = 1;
		c->ctl.fail_seq = seq;
		c->ctl.fail_status = *status;
		return ACIS_CT_REFUSED;
	}
	c->ctl.done = 1;
	c->ctl.done_seq = seq;
	return ACIS_CT_DONE;
}

enum acis_ct_outcome
acis_ct_comm_free(struct acis_comm_table *ct, uint32_t comm, uint32_t seq,
		  uint32_t rank, uint16_t *status)
{
	struct acis_comm *c = writable(ct, comm);
	int m;

	*status = ACIS_S_OK;
	if (c == NULL) {
		/* Already freed (a repeat after the last member's request):
		 * the answer is the same. */
		*status = ACIS_S_NO_COMM;
		return ACIS_CT_ERROR;
	}
	if (rank >= c->size) {
		*status = ACIS_S_NOT_MEMBER;
		return ACIS_CT_ERROR;
	}
	m = ctl_mark(c, ACIS_CTRL_COMM_FREE, seq, rank);
	if (m < 0) {
		*status = ACIS_S_MISMATCH;
		return ACIS_CT_ERROR;
	}
	if (m == 0 || c->ctl.count < c->size)
		return ACIS_CT_WAIT;
	if (c->jobp->world == c->id)
		((struct acis_job *)c->jobp)->world = ACIS_CTX_NONE;
	unpublish(ct, c);
	return ACIS_CT_DONE;
}

uint32_t
acis_ct_comm_create(struct acis_comm_table *ct, uint32_t job, uint32_t n,
		    const uint32_t *global, uint16_t *status)
{
	struct acis_job *j = find_job(ct, job);
	struct acis_comm *c;
	uint32_t i;

	*status = ACIS_S_OK;
	if (j == NULL) {
		*status = ACIS_S_NO_JOB;
		return ACIS_CTX_NONE;
	}
	for (i = 0; i < n; i++) {
		uint32_t k;

		if (global[i] >= j->size) {
			*status = ACIS_S_BAD_ARGS;
			return ACIS_CTX_NONE;
		}
		for (k = 0; k < i; k++)
			if (global[k] == global[i]) {
				*status = ACIS_S_BAD_ARGS;
				return ACIS_CTX_NONE;
			}
	}
	c = comm_make(ct, j, n, global, ACIS_CTX_NONE, status);
	return c ? c->id : ACIS_CTX_NONE;
}

int
acis_ct_comm_remove(struct acis_comm_table *ct, uint32_t comm)
{
	struct acis_comm *c = writable(ct, comm);

	if (c == NULL)
		return -ENOENT;
	if (c->jobp->world == c->id)
		((struct acis_job *)c->jobp)->world = ACIS_CTX_NONE;
	unpublish(ct, c);
	return 0;
}

void
acis_ct_stats(const struct acis_comm_table *ct, struct acis_ct_stats *s)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ct->lim.max_jobs; i++)
		s->jobs += ct->jobs[i] != NULL;
	for (i = 0; i < ct->lim.max_comms; i++)
		s->comms += ct->comms[i] != NULL;
	s->members = ct->members;
	s->created = ct->created;
	s->freed = ct->freed;
	s->jobs_refused = ct->jobs_refused;
	s->jobs_expired = ct->jobs_expired;
	s->joins_limited = ct->joins_limited;
}

void
acis_ct_foreach(const struct acis_comm_table *ct,
		void (*cb)(const struct acis_comm *, void *), void *arg)
{
	uint32_t i;

	for (i = 0; i < ct->lim.max_comms; i++)
		if (ct->comms[i] != NULL)
			cb(ct->comms[i], arg);
}

void
acis_ct_foreach_job(const struct acis_comm_table *ct,
		    void (*cb)(const struct acis_job *, void *), void *arg)
{
	uint32_t i;

	for (i = 0; i < ct->lim.max_jobs; i++)
		if (ct->jobs[i] != NULL)
			cb(ct->jobs[i], arg);
}
