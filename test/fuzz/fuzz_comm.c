/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the control handlers of the communicator table
 * (lib/comm/comm.c): join, leave, split, comm free, management create and
 * remove, and the data-path lookup.
 *
 * The input is a program: each operation is an opcode byte and a few
 * argument bytes mapped to small values (jobs 0..5, world sizes 0..9,
 * ranks 0..9, 16 endpoints, 4 colors, 4 keys, 4 sequence numbers), run
 * against a fresh table with small limits so that every "full" path is
 * reachable: 16 communicators, 4 jobs, 8 ranks, 64 members. Besides the
 * single requests there are "everyone" operations (every rank joins,
 * splits, frees, leaves) since a collective completes only when all
 * members asked. Context ids handed out are kept in a pool and reused,
 * also after they went stale. The retire hook destroys at once, so a
 * reader of a retired entry is a use after free for ASan.
 *
 * Invariants, after every operation:
 *  - acis_ct_lookup returns NULL or an entry whose id is the one asked;
 *  - counts stay within the limits: jobs, communicators, members (and
 *    members is the sum of the live communicators' sizes, comms is
 *    created - freed, every retire is of a freed comm or a gone job);
 *  - every live communicator is found by its id, belongs to a live job
 *    (jobp == acis_ct_job(job)), and maps its ranks to distinct world
 *    ranks of that job;
 *  - every job has joined == its valid endpoints, and its world is
 *    ACIS_CTX_NONE or a live communicator of that job;
 *  - outcomes: status is OK unless ERROR; ERROR carries a status; a DONE
 *    or REPEAT join has a live world; a DONE split gave every member its new
 *    communicator (color -> context, rank and size that agree with the
 *    new entry); a DONE free or a remove unpublished the entry;
 *  - nothing leaks when the table is freed (LeakSanitizer).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_comm.h"
#include "fuzz_check.h"

#define LIM_COMMS 16
#define LIM_JOBS 4
#define LIM_RANKS 8
#define LIM_MEMBERS 64

#define N_JOB_IDS 6   /* more ids than slots: FULL is reachable */
#define MAX_SIZE 10   /* world sizes 0..9: 0 and 9 are refused */
#define POOL 32
#define MAX_OPS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *p;
	size_t n;
};

static uint8_t
get8(struct input *in)
{
	uint8_t v;

	if (in->n == 0)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

struct state {
	struct acis_comm_table *ct;
	uint64_t retired;      /* retire hook calls */
	uint64_t jobs_gone;    /* jobs removed by a last leave */
	uint64_t now;          /* the clock joins are stamped with: +1 an op */
	uint32_t pool[POOL];   /* context ids seen, live or stale */
	unsigned int n_pool, next_pool;
};

static void
retire_now(void *obj, void (*destroy)(void *), void *arg)
{
	struct state *st = arg;

	st->retired++;
	destroy(obj);
}

static void
pool_add(struct state *st, uint32_t ctx)
{
	if (ctx == ACIS_CTX_NONE)
		return;
	st->pool[st->next_pool] = ctx;
	st->next_pool = (st->next_pool + 1) % POOL;
	if (st->n_pool < POOL)
		st->n_pool++;
}

/* A context id: one from the pool, or a raw one (none, stale, never). */
static uint32_t
pick_ctx(struct state *st, uint8_t b)
{
	if (st->n_pool != 0 && b < 0xf0)
		return st->pool[b % st->n_pool];
	switch (b & 3) {
	case 0:
		return ACIS_CTX_NONE;
	case 1:
		return b >> 2 & 0x3; /* generation 0 */
	case 2:
		return 1u << 16 | (b >> 2 & 0x3);
	default:
		return 0xfffeu << 16 | (b >> 2 & 0x3);
	}
}

static uint32_t
pick_job(uint8_t b)
{
	return b % N_JOB_IDS;
}

static struct acis_endpoint
pick_ep(uint8_t b)
{
	struct acis_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	ep.ip = htonl(0x0a4d0000u | (b & 7));
	ep.udp_port = htons((uint16_t)(40000 + (b >> 3 & 1)));
	ep.port = (uint16_t)(b & 3);
	ep.mac[0] = 0x02;
	ep.mac[5] = (uint8_t)(b & 0xf);
	return ep;
}

static uint32_t
pick_color(uint8_t b)
{
	return b % 5 == 4 ? ACIS_CTX_NONE : b % 5;
}

static void
check_outcome(enum acis_ct_outcome o, uint16_t status)
{
	FUZZ_CHECK(o >= ACIS_CT_ERROR && o <= ACIS_CT_REFUSED);
	FUZZ_CHECK(status < ACIS_S_MAX);
	if (o == ACIS_CT_ERROR || o == ACIS_CT_REFUSED)
		FUZZ_CHECK(status != ACIS_S_OK);
	else
		FUZZ_CHECK(status == ACIS_S_OK);
}

static const struct acis_comm *
lookup(struct state *st, uint32_t ctx)
{
	const struct acis_comm *c = acis_ct_lookup(st->ct, ctx);

	FUZZ_CHECK(c == NULL || c->id == ctx);
	return c;
}

/* ---- whole-table invariants ---- */

struct walk {
	struct state *st;
	uint64_t members;
	uint32_t comms, jobs;
};

static void
check_comm(const struct acis_comm *c, void *arg)
{
	struct walk *w = arg;
	const struct acis_job *j;
	uint32_t i, k;

	w->comms++;
	w->members += c->size;
	FUZZ_CHECK(c->id != ACIS_CTX_NONE);
	FUZZ_CHECK(lookup(w->st, c->id) == c);
	FUZZ_CHECK(c->size >= 1 && c->size <= LIM_RANKS);
	FUZZ_CHECK(c->n_partners <= ACIS_ALGO_MAX_PARTNERS);
	FUZZ_CHECK(c->ctl.count <= c->size);
	j = acis_ct_job(w->st->ct, c->job);
	FUZZ_CHECK(j != NULL && c->jobp == j);
	for (i = 0; i < c->size; i++) {
		FUZZ_CHECK(c->global[i] < j->size);
		for (k = 0; k < i; k++)
			FUZZ_CHECK(c->global[k] != c->global[i]);
		FUZZ_CHECK(acis_comm_rank_of(c, c->global[i]) == i);
		FUZZ_CHECK(acis_comm_ep(c, i) == &j->ep[c->global[i]]);
	}
	if (c->parent != ACIS_CTX_NONE)
		FUZZ_CHECK(c->parent != c->id);
}

static void
check_job(const struct acis_job *j, void *arg)
{
	struct walk *w = arg;
	uint32_t i, valid = 0;

	w->jobs++;
	FUZZ_CHECK(acis_ct_job(w->st->ct, j->id) == j);
	FUZZ_CHECK(j->size >= 1 && j->size <= LIM_RANKS);
	for (i = 0; i < j->size; i++)
		valid += j->ep[i].valid != 0;
	FUZZ_CHECK(j->joined == valid);
	if (j->world != ACIS_CTX_NONE) {
		const struct acis_comm *c = lookup(w->st, j->world);

		FUZZ_CHECK(c != NULL);
		FUZZ_CHECK(c->jobp == j);
	}
}

static void
check_table(struct state *st)
{
	struct acis_ct_stats s;
	struct walk w = {.st = st};
	unsigned int i;

	acis_ct_stats(st->ct, &s);
	FUZZ_CHECK(s.jobs <= LIM_JOBS);
	FUZZ_CHECK(s.comms <= LIM_COMMS);
	FUZZ_CHECK(s.members <= LIM_MEMBERS);
	FUZZ_CHECK(s.freed <= s.created && s.created - s.freed == s.comms);
	/* every freed communicator and every job gone is retired once */
	FUZZ_CHECK(st->retired == s.freed + st->jobs_gone + s.jobs_expired);
	acis_ct_foreach(st->ct, check_comm, &w);
	acis_ct_foreach_job(st->ct, check_job, &w);
	FUZZ_CHECK(w.comms == s.comms);
	FUZZ_CHECK(w.jobs == s.jobs);
	FUZZ_CHECK(w.members == s.members);
	for (i = 0; i < st->n_pool; i++)
		(void)lookup(st, st->pool[i]);
}

/* ---- operations ---- */

static enum acis_ct_outcome
do_join(struct state *st, uint32_t job, uint32_t size, uint32_t rank,
	const struct acis_endpoint *ep)
{
	uint16_t status = 0xffff;
	enum acis_ct_outcome o;
	const struct acis_job *j;

	o = acis_ct_join(st->ct, job, size, rank, ep, st->now, &status);
	check_outcome(o, status);
	if (o == ACIS_CT_ERROR)
		return o;
	j = acis_ct_job(st->ct, job);
	if (o == ACIS_CT_REFUSED) {
		/* refused to every rank: no world, every rank in */
		FUZZ_CHECK(j != NULL && j->refused == status &&
			   j->world == ACIS_CTX_NONE && j->joined == j->size);
		return o;
	}
	FUZZ_CHECK(j != NULL && j->size == size && rank < size);
	FUZZ_CHECK(j->ep[rank].valid);
	if (o == ACIS_CT_DONE || o == ACIS_CT_REPEAT) {
		const struct acis_comm *c = lookup(st, j->world);
		uint32_t i;

		/* A REPEAT may come after another rank left: the world
		 * stays, the job is no longer full. */
		FUZZ_CHECK(c != NULL && c->size == size && c->jobp == j);
		if (o == ACIS_CT_DONE) {
			FUZZ_CHECK(j->joined == j->size);
			for (i = 0; i < size; i++)
				FUZZ_CHECK(c->global[i] == i);
		}
		pool_add(st, j->world);
	}
	return o;
}

static void
do_leave(struct state *st, uint32_t job, uint32_t rank,
	 const struct acis_endpoint *ep)
{
	uint16_t status = 0xffff;
	enum acis_ct_outcome o;
	int existed = acis_ct_job(st->ct, job) != NULL;

	o = acis_ct_leave(st->ct, job, rank, ep, &status);
	check_outcome(o, status);
	FUZZ_CHECK(o == ACIS_CT_ERROR || o == ACIS_CT_DONE);
	if (o == ACIS_CT_DONE) {
		const struct acis_job *j = acis_ct_job(st->ct, job);

		FUZZ_CHECK(existed);
		if (j == NULL)
			st->jobs_gone++;
		else
			FUZZ_CHECK(!j->ep[rank].valid);
	}
}

static void
check_split_done(struct state *st, uint32_t ctx)
{
	const struct acis_comm *c = lookup(st, ctx);
	uint32_t r;

	FUZZ_CHECK(c != NULL);
	for (r = 0; r < c->size; r++) {
		const struct acis_comm *nc;

		if (c->ctl.color[r] == ACIS_CTX_NONE) {
			FUZZ_CHECK(c->ctl.new_ctx[r] == ACIS_CTX_NONE);
			FUZZ_CHECK(c->ctl.new_rank[r] == ACIS_RANK_NONE);
			FUZZ_CHECK(c->ctl.new_size[r] == 0);
			continue;
		}
		nc = lookup(st, c->ctl.new_ctx[r]);
		FUZZ_CHECK(nc != NULL);
		FUZZ_CHECK(nc->parent == c->id && nc->jobp == c->jobp);
		FUZZ_CHECK(nc->size == c->ctl.new_size[r]);
		FUZZ_CHECK(c->ctl.new_rank[r] < nc->size);
		FUZZ_CHECK(nc->global[c->ctl.new_rank[r]] == c->global[r]);
		pool_add(st, nc->id);
	}
}

static enum acis_ct_outcome
do_split(struct state *st, uint32_t ctx, uint32_t seq, uint32_t rank,
	 uint32_t color, uint64_t key)
{
	uint16_t status = 0xffff;
	enum acis_ct_outcome o;

	o = acis_ct_split(st->ct, ctx, seq, rank, color, key, &status);
	check_outcome(o, status);
	/* A REPEAT answers from the last outcome, whose communicators may
	 * have been freed since: only a fresh DONE is checked in full. */
	if (o == ACIS_CT_DONE)
		check_split_done(st, ctx);
	else if (o == ACIS_CT_REPEAT)
		FUZZ_CHECK(lookup(st, ctx) != NULL);
	return o;
}

static enum acis_ct_outcome
do_free(struct state *st, uint32_t ctx, uint32_t seq, uint32_t rank)
{
	uint16_t status = 0xffff;
	enum acis_ct_outcome o;

	o = acis_ct_comm_free(st->ct, ctx, seq, rank, &status);
	check_outcome(o, status);
	FUZZ_CHECK(o != ACIS_CT_REPEAT);
	if (o == ACIS_CT_DONE)
		FUZZ_CHECK(lookup(st, ctx) == NULL);
	else
		FUZZ_CHECK((lookup(st, ctx) != NULL) ==
			   (status != ACIS_S_NO_COMM));
	return o;
}

static void
do_create(struct state *st, struct input *in)
{
	uint32_t job = pick_job(get8(in)), n = get8(in) % MAX_SIZE;
	uint32_t global[MAX_SIZE], i, ctx;
	uint16_t status = 0xffff;

	for (i = 0; i < n; i++)
		global[i] = get8(in) % MAX_SIZE;
	ctx = acis_ct_comm_create(st->ct, job, n, global, &status);
	FUZZ_CHECK(status < ACIS_S_MAX);
	if (ctx == ACIS_CTX_NONE) {
		FUZZ_CHECK(status != ACIS_S_OK);
	} else {
		const struct acis_comm *c = lookup(st, ctx);

		FUZZ_CHECK(status == ACIS_S_OK);
		FUZZ_CHECK(c != NULL && c->size == n && c->job == job);
		FUZZ_CHECK(c->parent == ACIS_CTX_NONE);
		FUZZ_CHECK(memcmp(c->global, global, n * sizeof(*global)) ==
			   0);
		pool_add(st, ctx);
	}
}

static void
do_remove(struct state *st, uint32_t ctx)
{
	int had = lookup(st, ctx) != NULL;
	int rc = acis_ct_comm_remove(st->ct, ctx);

	FUZZ_CHECK(rc == (had ? 0 : -ENOENT));
	FUZZ_CHECK(lookup(st, ctx) == NULL);
}

/* Every rank of a world joins, from endpoints base + rank. */
static void
join_all(struct state *st, struct input *in)
{
	uint32_t job = pick_job(get8(in)), size = get8(in) % MAX_SIZE;
	uint8_t base = get8(in);
	uint32_t r;

	for (r = 0; r < size; r++) {
		struct acis_endpoint ep = pick_ep((uint8_t)(base + r));

		do_join(st, job, size, r, &ep);
	}
}

/* Every member of a communicator asks for a split in the same seq. */
static void
split_all(struct state *st, struct input *in)
{
	uint32_t ctx = pick_ctx(st, get8(in)), seq = get8(in) % 4;
	const struct acis_comm *c = lookup(st, ctx);
	uint32_t size = c != NULL ? c->size : 1, r;

	for (r = 0; r < size; r++) {
		uint8_t b = get8(in);

		do_split(st, ctx, seq, r, pick_color(b), b >> 4 & 3);
		if (acis_ct_lookup(st->ct, ctx) == NULL)
			break;
	}
}

static void
free_all(struct state *st, struct input *in)
{
	uint32_t ctx = pick_ctx(st, get8(in)), seq = get8(in) % 4;
	const struct acis_comm *c = lookup(st, ctx);
	uint32_t size = c != NULL ? c->size : 1, r;

	for (r = 0; r < size; r++)
		if (do_free(st, ctx, seq, r) != ACIS_CT_WAIT)
			break;
}

/* Every joined rank of a job leaves, from its own endpoint. */
static void
leave_all(struct state *st, struct input *in)
{
	uint32_t job = pick_job(get8(in)), r, size;
	const struct acis_job *j = acis_ct_job(st->ct, job);

	if (j == NULL) {
		struct acis_endpoint ep = pick_ep(0);

		do_leave(st, job, 0, &ep);
		return;
	}
	size = j->size;
	for (r = 0; r < size; r++) {
		struct acis_endpoint ep;

		j = acis_ct_job(st->ct, job);
		if (j == NULL)
			break;
		if (!j->ep[r].valid)
			continue;
		ep = j->ep[r];
		do_leave(st, job, r, &ep);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state st;
	struct acis_ct_limits lim;
	struct input in = {data, size};
	unsigned int ops = 0;

	memset(&st, 0, sizeof(st));
	memset(&lim, 0, sizeof(lim));
	lim.max_comms = LIM_COMMS;
	lim.max_jobs = LIM_JOBS;
	lim.max_ranks = LIM_RANKS;
	lim.max_members = LIM_MEMBERS;
	lim.max_jobs_per_host = 3;
	lim.retire = retire_now;
	lim.retire_arg = &st;
	st.ct = acis_ct_create(&lim);
	FUZZ_CHECK(st.ct != NULL);

	while (in.n > 0 && ops++ < MAX_OPS) {
		uint8_t op = get8(&in);

		st.now++;
		switch (op % 13) {
		case 0: {
			uint32_t job = pick_job(get8(&in));
			uint32_t sz = get8(&in) % MAX_SIZE;
			uint32_t rank = get8(&in) % MAX_SIZE;
			struct acis_endpoint ep = pick_ep(get8(&in));

			do_join(&st, job, sz, rank, &ep);
			break;
		}
		case 1: {
			uint32_t job = pick_job(get8(&in));
			uint32_t rank = get8(&in) % MAX_SIZE;
			struct acis_endpoint ep = pick_ep(get8(&in));

			do_leave(&st, job, rank, &ep);
			break;
		}
		case 2: {
			uint32_t ctx = pick_ctx(&st, get8(&in));
			uint32_t seq = get8(&in) % 4;
			uint32_t rank = get8(&in) % MAX_SIZE;
			uint8_t b = get8(&in);

			do_split(&st, ctx, seq, rank, pick_color(b),
				 b >> 4 & 3);
			break;
		}
		case 3: {
			uint32_t ctx = pick_ctx(&st, get8(&in));
			uint32_t seq = get8(&in) % 4;
			uint32_t rank = get8(&in) % MAX_SIZE;

			do_free(&st, ctx, seq, rank);
			break;
		}
		case 4:
			do_create(&st, &in);
			break;
		case 5:
			do_remove(&st, pick_ctx(&st, get8(&in)));
			break;
		case 6: {
			uint32_t ctx = pick_ctx(&st, get8(&in));
			const struct acis_comm *c = lookup(&st, ctx);

			if (c != NULL)
				FUZZ_CHECK(acis_ct_job(st.ct, c->job) ==
					   c->jobp);
			break;
		}
		case 7:
		case 8:
			join_all(&st, &in);
			break;
		case 9:
			split_all(&st, &in);
			break;
		case 10:
			free_all(&st, &in);
			break;
		case 12: {
			/* expire: complete jobs that were not refused stay */
			struct acis_ct_stats a, b;

			acis_ct_stats(st.ct, &a);
			acis_ct_expire_joins(st.ct, st.now, get8(&in) % 16,
					     get8(&in) % 4);
			acis_ct_stats(st.ct, &b);
			FUZZ_CHECK(b.jobs_expired - a.jobs_expired ==
				   a.jobs - b.jobs);
			break;
		}
		default:
			leave_all(&st, &in);
			break;
		}
		check_table(&st);
	}
	acis_ct_free(st.ct);
	return 0;
}
