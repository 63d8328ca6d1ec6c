/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_comm: jobs and their forwarding table, the
 * communicator table, the control collectives (join, split, free, leave)
 * and management (create, remove).
 *
 * Every table is made with a retire hook that records what it is given
 * and destroys it at once, as the switch's RCU does once readers are
 * gone: a test sees exactly which objects were retired and how often, and
 * ASan sees a double retire as a double free and a missing one as a leak.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_comm.h"

#define NONE ACIS_CTX_NONE
#define MAX_REC 256

struct retired {
	const void *obj;
	void (*destroy)(void *);
};

struct fixture {
	struct acis_comm_table *ct;
	struct retired rec[MAX_REC];
	unsigned int n_rec; /* recorded, at most MAX_REC */
	uint64_t n_retired; /* every call */
	uint64_t now;       /* the clock joins are stamped with */
};

static void
retire_hook(void *obj, void (*destroy)(void *), void *arg)
{
	struct fixture *f = arg;

	if (f->n_rec < MAX_REC) {
		f->rec[f->n_rec].obj = obj;
		f->rec[f->n_rec].destroy = destroy;
		f->n_rec++;
	}
	f->n_retired++;
	destroy(obj);
}

/* Times obj was retired. */
static unsigned int
retired_count(const struct fixture *f, const void *obj)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->n_rec; i++)
		n += f->rec[i].obj == obj;
	return n;
}

static void
make_table(struct fixture *f, uint32_t max_comms, uint32_t max_jobs,
	   uint32_t max_ranks, uint64_t max_members)
{
	struct acis_ct_limits lim = {
		.max_comms = max_comms,
		.max_jobs = max_jobs,
		.max_ranks = max_ranks,
		.max_members = max_members,
		.retire = retire_hook,
		.retire_arg = f,
	};

	acis_ct_free(f->ct);
	f->ct = acis_ct_create(&lim);
	assert_non_null(f->ct);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	make_table(f, 16, 4, 64, 256);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	acis_ct_free(f->ct);
	free(f);
	return 0;
}

/* World rank r of any job lives at 10.0.0.(10 + r), UDP port 40000 + r. */
static struct acis_endpoint
ep_of(uint32_t r)
{
	struct acis_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	ep.ip = 0x0a00000au + r;
	ep.udp_port = (uint16_t)(40000 + r);
	ep.port = (uint16_t)(r % 4);
	ep.mac[0] = 0x02;
	ep.mac[5] = (uint8_t)r;
	return ep;
}

static enum acis_ct_outcome
join(struct fixture *f, uint32_t job, uint32_t size, uint32_t rank,
     uint16_t *status)
{
	struct acis_endpoint ep = ep_of(rank);

	return acis_ct_join(f->ct, job, size, rank, &ep, f->now, status);
}

/* Join every rank of job in order; the world communicator's id. */
static uint32_t
join_all(struct fixture *f, uint32_t job, uint32_t size)
{
	uint16_t st = 0xffff;
	uint32_t r;

	for (r = 0; r + 1 < size; r++) {
		assert_int_equal(join(f, job, size, r, &st), ACIS_CT_WAIT);
		assert_int_equal(st, ACIS_S_OK);
	}
	assert_int_equal(join(f, job, size, size - 1, &st), ACIS_CT_DONE);
	assert_int_equal(st, ACIS_S_OK);
	assert_non_null(acis_ct_job(f->ct, job));
	return acis_ct_job(f->ct, job)->world;
}

static const struct acis_comm *
lookup(const struct fixture *f, uint32_t ctx)
{
	return acis_ct_lookup(f->ct, ctx);
}

/* Every member of comm asks for split seq in rank order (or reverse);
 * all but the last must wait. The outcome of the last. */
static enum acis_ct_outcome
split_all(struct fixture *f, uint32_t comm, uint32_t seq,
	  const uint32_t *color, const uint64_t *key, int reverse,
	  uint16_t *status)
{
	uint32_t size = lookup(f, comm)->size, i;

	for (i = 0; i + 1 < size; i++) {
		uint32_t r = reverse ? size - 1 - i : i;

		assert_int_equal(acis_ct_split(f->ct, comm, seq, r, color[r],
					       key[r], status),
				 ACIS_CT_WAIT);
		assert_int_equal(*status, ACIS_S_OK);
	}
	return acis_ct_split(f->ct, comm, seq, reverse ? 0 : size - 1,
			     color[reverse ? 0 : size - 1],
			     key[reverse ? 0 : size - 1], status);
}

static enum acis_ct_outcome
free_all(struct fixture *f, uint32_t comm, uint32_t seq, uint16_t *status)
{
	uint32_t size = lookup(f, comm)->size, r;

	for (r = 0; r + 1 < size; r++) {
		assert_int_equal(acis_ct_comm_free(f->ct, comm, seq, r, status),
				 ACIS_CT_WAIT);
		assert_int_equal(*status, ACIS_S_OK);
	}
	return acis_ct_comm_free(f->ct, comm, seq, size - 1, status);
}

static struct acis_ct_stats
stats(const struct fixture *f)
{
	struct acis_ct_stats s;

	acis_ct_stats(f->ct, &s);
	return s;
}

/* --- table --------------------------------------------------------------- */

static void
test_create_refuses_bad_limits(void **state)
{
	struct acis_ct_limits ok = {
		.max_comms = 16, .max_jobs = 4, .max_ranks = 64,
		.max_members = 256,
	};
	struct acis_ct_limits l;
	struct acis_comm_table *ct;

	(void)state;
	ct = acis_ct_create(&ok);
	assert_non_null(ct);
	acis_ct_free(ct);
	l = ok;
	l.max_comms = 0;
	assert_null(acis_ct_create(&l));
	l = ok;
	l.max_comms = 65536; /* the index is 16 bits, 0xffff kept for none */
	assert_null(acis_ct_create(&l));
	l = ok;
	l.max_jobs = 0;
	assert_null(acis_ct_create(&l));
	l = ok;
	l.max_ranks = 0;
	assert_null(acis_ct_create(&l));
	l = ok;
	l.max_members = l.max_ranks - 1;
	assert_null(acis_ct_create(&l));
}

/* --- join ---------------------------------------------------------------- */

static void
test_join_waits_until_the_last_rank_joins(void **state)
{
	struct fixture *f = *state;
	uint16_t st;
	uint32_t r;

	for (r = 0; r < 3; r++) {
		assert_int_equal(join(f, 7, 4, r, &st), ACIS_CT_WAIT);
		assert_int_equal(st, ACIS_S_OK);
		assert_int_equal(acis_ct_job(f->ct, 7)->joined, r + 1);
		assert_int_equal(acis_ct_job(f->ct, 7)->world, NONE);
	}
	assert_int_equal(stats(f).comms, 0);
}

static void
test_join_of_the_last_rank_publishes_the_world_comm(void **state)
{
	struct fixture *f = *state;
	const struct acis_comm *c;
	uint32_t world = join_all(f, 7, 4);

	assert_int_not_equal(world, NONE);
	c = lookup(f, world);
	assert_non_null(c);
	assert_int_equal(c->id, world);
	assert_int_equal(c->job, 7);
	assert_int_equal(c->size, 4);
	assert_int_equal(c->parent, NONE);
	assert_ptr_equal(c->jobp, acis_ct_job(f->ct, 7));
}

static void
test_world_comm_maps_rank_i_to_world_rank_i(void **state)
{
	struct fixture *f = *state;
	const struct acis_comm *c = lookup(f, join_all(f, 7, 13));
	uint32_t i;

	assert_int_equal(c->size, 13);
	for (i = 0; i < 13; i++)
		assert_int_equal(c->global[i], i);
}

static void
test_world_comm_of_8_has_partner_set_1_2_4(void **state)
{
	struct fixture *f = *state;
	const struct acis_comm *c = lookup(f, join_all(f, 7, 8));

	assert_int_equal(c->n_partners, 3);
	assert_int_equal(c->partners[0], 1);
	assert_int_equal(c->partners[1], 2);
	assert_int_equal(c->partners[2], 4);
}

static void
test_join_completes_on_the_last_rank_whatever_the_order(void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	assert_int_equal(join(f, 7, 3, 2, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 7, 3, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 7, 3, 1, &st), ACIS_CT_DONE);
	assert_non_null(lookup(f, acis_ct_job(f->ct, 7)->world));
}

static void
test_join_records_each_endpoint_in_the_forwarding_table(void **state)
{
	struct fixture *f = *state;
	const struct acis_comm *c = lookup(f, join_all(f, 7, 5));
	uint32_t r;

	for (r = 0; r < 5; r++) {
		const struct acis_endpoint *ep = acis_comm_ep(c, r);
		struct acis_endpoint want = ep_of(r);

		assert_int_equal(ep->valid, 1);
		assert_int_equal(ep->ip, want.ip);
		assert_int_equal(ep->udp_port, want.udp_port);
		assert_int_equal(ep->port, want.port);
		assert_memory_equal(ep->mac, want.mac, 6);
	}
}

static void
test_join_repeated_after_completion_is_a_repeat(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 4);
	uint16_t st = 0xffff;

	assert_int_equal(join(f, 7, 4, 1, &st), ACIS_CT_REPEAT);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(acis_ct_job(f->ct, 7)->world, world);
	assert_int_equal(stats(f).comms, 1);
}

static void
test_join_repeated_before_completion_waits_without_counting_twice(
	void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	assert_int_equal(join(f, 7, 3, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 7, 3, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
	assert_int_equal(join(f, 7, 3, 1, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 7, 3, 2, &st), ACIS_CT_DONE);
}

static void
test_join_of_a_taken_rank_from_another_ip_is_rank_taken(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(1);
	uint16_t st;

	assert_int_equal(join(f, 7, 4, 1, &st), ACIS_CT_WAIT);
	ep.ip ^= 0x01000000;
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &ep, f->now, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_RANK_TAKEN);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
}

static void
test_join_of_a_taken_rank_from_another_udp_port_is_rank_taken(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(1);
	uint16_t st;

	join_all(f, 7, 4);
	ep.udp_port++;
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &ep, f->now, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_RANK_TAKEN);
}

/* A rank that joined with a cookie is held to it: the same address and
 * port without it is another endpoint. */
static void
test_join_of_a_taken_rank_without_its_cookie_is_rank_taken(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(1), forged;
	uint16_t st;

	acis_wr48(ep.auth, 0x5eed5eed5eedull);
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &ep, f->now, &st),
			 ACIS_CT_WAIT);
	forged = ep;
	acis_wr48(forged.auth, 0x5eed5eed5eecull);
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &forged, f->now, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_RANK_TAKEN);
	acis_wr48(forged.auth, 0);
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &forged, f->now, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_RANK_TAKEN);
	/* the rank itself, asking again, is still in */
	assert_int_equal(acis_ct_join(f->ct, 7, 4, 1, &ep, f->now, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
	assert_int_equal(acis_rd48(acis_ct_job(f->ct, 7)->ep[1].auth),
			 0x5eed5eed5eedull);
}

/* acis_ep_sender tells a member, another address, and the member's
 * address without its cookie apart. */
static void
test_ep_sender_tells_member_stranger_and_forgery_apart(void **state)
{
	struct acis_endpoint ep = ep_of(2);
	uint8_t auth[6], none[6] = {0};

	(void)state;
	ep.valid = 1;
	acis_wr48(ep.auth, 0xa1b2c3d4e5f6ull);
	memcpy(auth, ep.auth, 6);
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, auth), 1);
	assert_int_equal(acis_ep_sender(&ep, ep.ip + 1, ep.udp_port, auth), 0);
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port + 1, auth), 0);
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, none), -1);
	auth[5] ^= 1;
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, auth), -1);
	/* a rank that joined without a cookie: only 0 is it */
	memset(ep.auth, 0, 6);
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, none), 1);
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, auth), -1);
	ep.valid = 0;
	assert_int_equal(acis_ep_sender(&ep, ep.ip, ep.udp_port, none), 0);
}

/* A LEAVE from a member's address without its cookie leaves it in. */
static void
test_leave_without_the_cookie_is_not_member(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep[2] = {ep_of(0), ep_of(1)}, forged;
	uint16_t st;
	uint32_t r;

	for (r = 0; r < 2; r++) {
		acis_wr48(ep[r].auth, 0x100 + r);
		acis_ct_join(f->ct, 7, 2, r, &ep[r], f->now, &st);
	}
	forged = ep[0];
	acis_wr48(forged.auth, 0x101);
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &forged, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NOT_MEMBER);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 2);
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &ep[0], &st),
			 ACIS_CT_DONE);
}

static void
test_join_with_another_world_size_is_size_mismatch(void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	assert_int_equal(join(f, 7, 4, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 7, 5, 1, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_SIZE_MISMATCH);
	assert_int_equal(acis_ct_job(f->ct, 7)->size, 4);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
}

static void
test_join_of_a_rank_beyond_the_world_size_is_bad_args(void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	assert_int_equal(join(f, 7, 4, 4, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_BAD_ARGS);
	assert_int_equal(join(f, 7, 0, 0, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_BAD_ARGS);
	assert_int_equal(join(f, 7, 65, 0, &st), ACIS_CT_ERROR); /* > 64 */
	assert_int_equal(st, ACIS_S_BAD_ARGS);
	assert_null(acis_ct_job(f->ct, 7));
}

static void
test_join_of_a_new_job_when_max_jobs_are_live_is_full(void **state)
{
	struct fixture *f = *state;
	uint16_t st;
	uint32_t job;

	for (job = 1; job <= 4; job++)
		assert_int_equal(join(f, job, 2, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 5, 2, 0, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_FULL);
	assert_null(acis_ct_job(f->ct, 5));
	/* The jobs already there still take their ranks. */
	assert_int_equal(join(f, 4, 2, 1, &st), ACIS_CT_DONE);
}

/*
 * The last rank's join is refused FULL when no communicator is free for
 * the world: refused for every rank (the caller tells them all), and each
 * rank that asks again hears it again, until the refusal expires; then
 * the job starts anew, and completes once there is room.
 */
static void
test_join_refused_full_for_the_world_comm_is_refused_to_every_rank(void **state)
{
	struct fixture *f = *state;
	uint32_t w7;
	uint16_t st;

	make_table(f, 1, 2, 4, 64);
	w7 = join_all(f, 7, 2); /* takes the only communicator */
	f->now = 100;
	assert_int_equal(join(f, 8, 2, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 8, 2, 1, &st), ACIS_CT_REFUSED);
	assert_int_equal(st, ACIS_S_FULL);
	assert_int_equal(stats(f).jobs_refused, 1);
	/* both ranks, asking again, hear it again; room changes nothing */
	assert_int_equal(acis_ct_comm_remove(f->ct, w7), 0);
	assert_int_equal(join(f, 8, 2, 0, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_FULL);
	assert_int_equal(join(f, 8, 2, 1, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_FULL);
	/* kept as long as asked for, then gone: the job starts anew */
	assert_int_equal(acis_ct_expire_joins(f->ct, 150, 1000, 50), 0);
	assert_int_equal(acis_ct_expire_joins(f->ct, 151, 1000, 50), 1);
	assert_null(acis_ct_job(f->ct, 8));
	assert_int_equal(join(f, 8, 2, 0, &st), ACIS_CT_WAIT);
	assert_int_equal(join(f, 8, 2, 1, &st), ACIS_CT_DONE);
	assert_int_equal(st, ACIS_S_OK);
	assert_non_null(lookup(f, acis_ct_job(f->ct, 8)->world));
}

/* A rank that left a job whose world still stands (others are in) and
 * joins again gets that world, not a second one. */
static void
test_rejoin_after_a_leave_gets_the_world_that_stands(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	struct acis_endpoint ep = ep_of(1);
	uint16_t st;

	assert_int_equal(acis_ct_leave(f->ct, 7, 1, &ep, &st), ACIS_CT_DONE);
	assert_int_equal(join(f, 7, 3, 1, &st), ACIS_CT_REPEAT);
	assert_int_equal(acis_ct_job(f->ct, 7)->world, world);
	assert_int_equal(stats(f).comms, 1);
}

/* A job some rank never joins goes after max_wait, endpoints and all; a
 * complete job never goes this way, however old. */
static void
test_jobs_that_never_complete_expire(void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	f->now = 10;
	join_all(f, 7, 2);
	assert_int_equal(join(f, 8, 3, 0, &st), ACIS_CT_WAIT);
	f->now = 500;
	assert_int_equal(join(f, 8, 3, 1, &st), ACIS_CT_WAIT);
	/* the age counts from the first join */
	assert_int_equal(acis_ct_expire_joins(f->ct, 1010, 1000, 5), 0);
	assert_int_equal(acis_ct_expire_joins(f->ct, 1011, 1000, 5), 1);
	assert_null(acis_ct_job(f->ct, 8));
	assert_non_null(acis_ct_job(f->ct, 7));
	assert_int_equal(acis_ct_expire_joins(f->ct, 1000000, 1000, 5), 0);
	assert_int_equal(stats(f).jobs_expired, 1);
	assert_int_equal(stats(f).jobs, 1);
	/* a complete job some ranks have left (finalized while another is
	 * still at work) is not pending: it stays */
	{
		struct acis_endpoint ep = ep_of(1);

		assert_int_equal(acis_ct_leave(f->ct, 7, 1, &ep, &st),
				 ACIS_CT_DONE);
	}
	assert_int_equal(acis_ct_expire_joins(f->ct, 10000000, 1000, 5), 0);
	assert_non_null(acis_ct_job(f->ct, 7));
	/* ... also once its world is freed (through management) */
	assert_int_equal(acis_ct_comm_remove(f->ct, acis_ct_job(f->ct, 7)->world),
			 0);
	assert_int_equal(acis_ct_expire_joins(f->ct, 20000000, 1000, 5), 0);
	assert_non_null(acis_ct_job(f->ct, 7));
}

/* One host may begin max_jobs_per_host jobs (it sent their first JOIN);
 * then it is refused LIMIT while others still join, until one ends. */
static void
test_jobs_per_host_are_limited(void **state)
{
	struct fixture *f = *state;
	struct acis_ct_limits lim = {
		.max_comms = 16, .max_jobs = 8, .max_ranks = 64,
		.max_members = 256, .max_jobs_per_host = 2,
	};
	struct acis_endpoint ep = ep_of(0), other = ep_of(1);
	uint16_t st;

	acis_ct_free(f->ct);
	f->ct = acis_ct_create(&lim);
	assert_non_null(f->ct);
	assert_int_equal(acis_ct_join(f->ct, 1, 1, 0, &ep, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(acis_ct_join(f->ct, 2, 2, 0, &ep, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_join(f->ct, 3, 1, 0, &ep, 0, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_LIMIT);
	assert_int_equal(stats(f).joins_limited, 1);
	/* another host begins jobs; it may join this host's too */
	assert_int_equal(acis_ct_join(f->ct, 3, 1, 0, &other, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(acis_ct_join(f->ct, 2, 2, 1, &other, 0, &st),
			 ACIS_CT_DONE);
	/* a job of the host ends: it may begin another */
	assert_int_equal(acis_ct_leave(f->ct, 1, 0, &ep, &st), ACIS_CT_DONE);
	assert_int_equal(acis_ct_join(f->ct, 4, 1, 0, &ep, 0, &st),
			 ACIS_CT_DONE);
}

static void
test_job_lookup_of_an_unknown_job_is_null(void **state)
{
	struct fixture *f = *state;

	join_all(f, 7, 2);
	assert_non_null(acis_ct_job(f->ct, 7));
	assert_null(acis_ct_job(f->ct, 8));
}

/* --- lookup and context ids ---------------------------------------------- */

static void
test_lookup_of_an_unknown_id_is_null(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);

	assert_non_null(lookup(f, world));
	assert_null(lookup(f, 0));
	assert_null(lookup(f, NONE));
	assert_null(lookup(f, (world & ~0xffffu) | 16)); /* index >= 16 */
	assert_null(lookup(f, world + 1));                /* free index */
	assert_null(lookup(f, world + 0x10000));          /* generation */
	assert_null(lookup(f, world - 0x10000));
}

static void
test_lookup_of_a_freed_id_is_null_when_its_index_is_reused(void **state)
{
	struct fixture *f = *state;
	uint32_t world, a, b;
	uint16_t st;
	const uint32_t g[] = {0};

	make_table(f, 2, 1, 4, 8);
	world = join_all(f, 7, 2);
	a = acis_ct_comm_create(f->ct, 7, 1, g, &st);
	assert_int_not_equal(a, NONE);
	assert_int_equal(acis_ct_comm_remove(f->ct, a), 0);
	b = acis_ct_comm_create(f->ct, 7, 1, g, &st);
	assert_int_not_equal(b, NONE);
	/* One free index: the same one, the next generation. */
	assert_int_equal(b & 0xffff, a & 0xffff);
	assert_int_not_equal(b, a);
	assert_null(lookup(f, a));
	assert_non_null(lookup(f, b));
	assert_non_null(lookup(f, world));
}

static void
test_context_ids_never_equal_ctx_none_across_a_generation_wrap(void **state)
{
	struct fixture *f = *state;
	uint32_t prev = NONE, id, i;
	uint16_t st;
	const uint32_t g[] = {1};

	/* One index, so every create takes the next generation of it. */
	make_table(f, 1, 1, 4, 8);
	assert_int_equal(join(f, 7, 2, 0, &st), ACIS_CT_WAIT);
	for (i = 0; i < 70000; i++) {
		id = acis_ct_comm_create(f->ct, 7, 1, g, &st);
		assert_int_not_equal(id, NONE);
		assert_int_not_equal(id, prev);
		assert_non_null(lookup(f, id));
		assert_int_equal(acis_ct_comm_remove(f->ct, id), 0);
		prev = id;
	}
	assert_int_equal(f->n_retired, 70000);
}

static void
test_lookup_of_ctx_none_is_null_in_the_largest_table(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0};
	uint16_t st;
	uint32_t i, id;

	make_table(f, 65535, 1, 1, 65535);
	assert_int_equal(join(f, 7, 1, 0, &st), ACIS_CT_DONE);
	for (i = 1; i < 65535; i++) {
		id = acis_ct_comm_create(f->ct, 7, 1, g, &st);
		assert_int_not_equal(id, NONE);
	}
	assert_int_equal(stats(f).comms, 65535);
	assert_null(lookup(f, NONE));
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 1, g, &st), NONE);
	assert_int_equal(st, ACIS_S_FULL);
}

/* --- split --------------------------------------------------------------- */

static void
test_split_waits_until_every_member_asked(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 4), r;
	uint16_t st;

	for (r = 0; r < 3; r++) {
		assert_int_equal(acis_ct_split(f->ct, world, 0, r, 0, 0, &st),
				 ACIS_CT_WAIT);
		assert_int_equal(st, ACIS_S_OK);
	}
	assert_int_equal(stats(f).comms, 1);
	assert_int_equal(acis_ct_split(f->ct, world, 0, 3, 0, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(stats(f).comms, 2);
}

/*
 * P = 6: colors {0, 1, 0, 1, 0, none}, keys {5, 0, 5, 0, 1, 7}.
 * Color 0 is ranks 4 (key 1), 0 and 2 (key 5, tie broken by rank);
 * color 1 is ranks 1 and 3; rank 5 gets no communicator.
 */
static const uint32_t ex_color[6] = {0, 1, 0, 1, 0, NONE};
static const uint64_t ex_key[6] = {5, 0, 5, 0, 1, 7};

static void
test_split_groups_by_color_ordered_by_key_then_parent_rank(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6);
	const struct acis_comm *p;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(st, ACIS_S_OK);
	p = lookup(f, world);
	assert_int_equal(p->ctl.new_rank[4], 0);
	assert_int_equal(p->ctl.new_rank[0], 1);
	assert_int_equal(p->ctl.new_rank[2], 2);
	assert_int_equal(p->ctl.new_size[0], 3);
	assert_int_equal(p->ctl.new_size[2], 3);
	assert_int_equal(p->ctl.new_size[4], 3);
	assert_int_equal(p->ctl.new_rank[1], 0);
	assert_int_equal(p->ctl.new_rank[3], 1);
	assert_int_equal(p->ctl.new_size[1], 2);
	assert_int_equal(p->ctl.new_size[3], 2);
	assert_int_equal(p->ctl.new_ctx[0], p->ctl.new_ctx[2]);
	assert_int_equal(p->ctl.new_ctx[0], p->ctl.new_ctx[4]);
	assert_int_equal(p->ctl.new_ctx[1], p->ctl.new_ctx[3]);
	assert_int_not_equal(p->ctl.new_ctx[0], p->ctl.new_ctx[1]);
	assert_int_not_equal(p->ctl.new_ctx[0], world);
	assert_int_not_equal(p->ctl.new_ctx[1], world);
}

static void
test_split_with_an_undefined_color_gives_no_comm(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6);
	const struct acis_comm *p;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	p = lookup(f, world);
	assert_int_equal(p->ctl.new_ctx[5], NONE);
	assert_int_equal(p->ctl.new_rank[5], ACIS_RANK_NONE);
	assert_int_equal(p->ctl.new_size[5], 0);
	assert_int_equal(stats(f).comms, 3); /* world and two colors */
}

static void
test_split_comms_map_to_the_right_world_ranks(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6);
	const struct acis_comm *p, *c0, *c1;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	p = lookup(f, world);
	c0 = lookup(f, p->ctl.new_ctx[0]);
	c1 = lookup(f, p->ctl.new_ctx[1]);
	assert_non_null(c0);
	assert_non_null(c1);
	assert_int_equal(c0->size, 3);
	assert_int_equal(c0->global[0], 4);
	assert_int_equal(c0->global[1], 0);
	assert_int_equal(c0->global[2], 2);
	assert_int_equal(c1->size, 2);
	assert_int_equal(c1->global[0], 1);
	assert_int_equal(c1->global[1], 3);
	assert_int_equal(c0->parent, world);
	assert_int_equal(c1->parent, world);
	assert_int_equal(c0->job, 7);
	assert_ptr_equal(c0->jobp, p->jobp);
}

static void
test_split_of_a_split_maps_to_world_ranks(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6), child;
	const uint32_t color[3] = {9, 9, 9};
	const uint64_t key[3] = {2, 1, 0}; /* reverse the child's order */
	const struct acis_comm *g;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	child = lookup(f, world)->ctl.new_ctx[0]; /* world ranks 4, 0, 2 */
	assert_int_equal(split_all(f, child, 0, color, key, 0, &st),
			 ACIS_CT_DONE);
	g = lookup(f, lookup(f, child)->ctl.new_ctx[0]);
	assert_non_null(g);
	assert_int_equal(g->parent, child);
	assert_int_equal(g->size, 3);
	assert_int_equal(g->global[0], 2);
	assert_int_equal(g->global[1], 0);
	assert_int_equal(g->global[2], 4);
}

static void
test_split_orders_by_the_whole_64_bit_key(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	const uint32_t color[3] = {0, 0, 0};
	/* Equal in the low 32 bits: only the high word orders them. */
	const uint64_t key[3] = {3ull << 32, 1ull << 32, 2ull << 32};
	const struct acis_comm *p;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, color, key, 0, &st),
			 ACIS_CT_DONE);
	p = lookup(f, world);
	assert_int_equal(p->ctl.new_rank[0], 2);
	assert_int_equal(p->ctl.new_rank[1], 0);
	assert_int_equal(p->ctl.new_rank[2], 1);
}

static uint64_t rng;

/* xorshift64*: fixed seeds, the same splits on every run. */
static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static void
test_split_matches_mpi_comm_split_for_random_colors_and_keys(void **state)
{
	struct fixture *f = *state;
	uint32_t world, trial;

	make_table(f, 64, 1, 64, 64 * 64);
	world = join_all(f, 7, 37);
	rng = 0x5eed5eed5eedull;
	for (trial = 0; trial < 20; trial++) {
		uint32_t color[37], order[37], i, k, seq = trial;
		uint64_t key[37];
		const struct acis_comm *p = lookup(f, world);
		uint16_t st;

		for (i = 0; i < 37; i++) {
			uint64_t r = rnd();

			color[i] = r % 5 == 4 ? NONE : (uint32_t)(r % 4) * 1000;
			key[i] = (r >> 8) % 4; /* few keys: many ties */
			order[i] = i;
		}
		/* Members ask in a random order. */
		for (i = 36; i > 0; i--) {
			uint32_t j = (uint32_t)(rnd() % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < 37; i++) {
			uint32_t r = order[i];
			enum acis_ct_outcome o;

			o = acis_ct_split(f->ct, world, seq, r, color[r],
					  key[r], &st);
			assert_int_equal(o, i < 36 ? ACIS_CT_WAIT :
						     ACIS_CT_DONE);
		}
		for (i = 0; i < 37; i++) {
			uint32_t rank = 0, size = 0;
			const struct acis_comm *c;

			for (k = 0; k < 37; k++) {
				if (color[k] != color[i])
					continue;
				size++;
				rank += key[k] < key[i] ||
					(key[k] == key[i] && k < i);
			}
			if (color[i] == NONE) {
				assert_int_equal(p->ctl.new_ctx[i], NONE);
				assert_int_equal(p->ctl.new_rank[i],
						 ACIS_RANK_NONE);
				assert_int_equal(p->ctl.new_size[i], 0);
				continue;
			}
			assert_int_equal(p->ctl.new_rank[i], rank);
			assert_int_equal(p->ctl.new_size[i], size);
			c = lookup(f, p->ctl.new_ctx[i]);
			assert_non_null(c);
			assert_int_equal(c->size, size);
			assert_int_equal(c->global[rank], i);
			for (k = 0; k < 37; k++)
				if (color[k] == color[i])
					assert_int_equal(p->ctl.new_ctx[k],
							 p->ctl.new_ctx[i]);
				else
					assert_int_not_equal(p->ctl.new_ctx[k],
							     p->ctl.new_ctx[i]);
		}
		/* Remove the children so the next trial has room. */
		for (i = 0; i < 37; i++)
			if (p->ctl.new_ctx[i] != NONE)
				acis_ct_comm_remove(f->ct, p->ctl.new_ctx[i]);
		assert_int_equal(stats(f).comms, 1);
	}
}

static void
test_split_repeated_after_completion_is_a_repeat(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6), ctx0;
	const struct acis_comm *p;
	uint16_t st = 0xffff;

	assert_int_equal(split_all(f, world, 3, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	p = lookup(f, world);
	ctx0 = p->ctl.new_ctx[0];
	assert_int_equal(acis_ct_split(f->ct, world, 3, 2, 0, 5, &st),
			 ACIS_CT_REPEAT);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(stats(f).comms, 3);
	assert_int_equal(p->ctl.new_ctx[0], ctx0);
	assert_int_equal(p->ctl.new_rank[2], 2);
}

static void
test_split_repeated_before_completion_waits_without_counting_twice(
	void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	uint16_t st;

	assert_int_equal(acis_ct_split(f->ct, world, 0, 0, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_split(f->ct, world, 0, 0, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(acis_ct_split(f->ct, world, 0, 1, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_split(f->ct, world, 0, 2, 0, 0, &st),
			 ACIS_CT_DONE);
}

static void
test_split_of_an_unknown_comm_is_no_comm(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(acis_ct_split(f->ct, world + 0x10000, 0, 0, 0, 0,
				       &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NO_COMM);
}

static void
test_split_by_a_rank_outside_the_comm_is_not_member(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(acis_ct_split(f->ct, world, 0, 2, 0, 0, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NOT_MEMBER);
}

static void
test_free_opened_during_a_split_is_mismatch(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	uint16_t st;

	assert_int_equal(acis_ct_split(f->ct, world, 4, 0, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_comm_free(f->ct, world, 4, 1, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_MISMATCH);
	/* The split is still open and completes. */
	assert_int_equal(acis_ct_split(f->ct, world, 4, 1, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_split(f->ct, world, 4, 2, 0, 0, &st),
			 ACIS_CT_DONE);
}

static void
test_split_with_another_seq_during_a_split_is_mismatch(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	uint16_t st;

	assert_int_equal(acis_ct_split(f->ct, world, 4, 0, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_split(f->ct, world, 5, 1, 0, 0, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_MISMATCH);
}

/*
 * A member whose reply to a finished split was lost sends the request
 * again, while the others, who got theirs, have moved on to the next
 * control collective on the comm: the switch must answer the repeat
 * (doc/wire-format.md: "answers a repeated request again").
 */
static void
test_split_repeated_while_the_next_control_op_is_open_is_a_repeat(
	void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6);
	uint16_t st;

	assert_int_equal(split_all(f, world, 3, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(acis_ct_comm_free(f->ct, world, 4, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_split(f->ct, world, 3, 5, NONE, 7, &st),
			 ACIS_CT_REPEAT);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(lookup(f, world)->ctl.new_ctx[5], NONE);
}

static void
test_split_that_runs_out_of_comms_makes_none(void **state)
{
	struct fixture *f = *state;
	const uint32_t color[4] = {0, 1, 2, 0};
	const uint64_t key[4] = {0, 0, 0, 0};
	uint32_t world;
	uint16_t st;

	make_table(f, 3, 1, 8, 64); /* world + 2: one short of 3 colors */
	world = join_all(f, 7, 4);
	assert_int_equal(split_all(f, world, 0, color, key, 0, &st),
			 ACIS_CT_REFUSED);
	assert_int_equal(st, ACIS_S_FULL);
	assert_int_equal(stats(f).comms, 1);
	assert_int_equal(stats(f).members, 4);
	assert_int_equal(f->n_retired, 2); /* the two it had made */
}

/* A split refused for every member (the caller tells them all): each
 * member asking the same split again hears the refusal again; the next
 * split (the next seq, as libacis numbers it) may succeed. */
static void
test_split_that_failed_is_refused_again_and_the_next_may_succeed(void **state)
{
	struct fixture *f = *state;
	const uint32_t color3[4] = {0, 1, 2, 0};
	const uint32_t color2[4] = {0, 1, 1, 0};
	const uint64_t key[4] = {0, 0, 0, 0};
	uint32_t world, r;
	uint16_t st;

	make_table(f, 3, 1, 8, 64);
	world = join_all(f, 7, 4);
	assert_int_equal(split_all(f, world, 0, color3, key, 0, &st),
			 ACIS_CT_REFUSED);
	for (r = 0; r < 4; r++) {
		st = ACIS_S_OK;
		assert_int_equal(acis_ct_split(f->ct, world, 0, r, color3[r],
					       key[r], &st), ACIS_CT_ERROR);
		assert_int_equal(st, ACIS_S_FULL);
	}
	assert_int_equal(split_all(f, world, 1, color2, key, 0, &st),
			 ACIS_CT_DONE);
	assert_int_equal(stats(f).comms, 3);
}

/* --- comm_free ----------------------------------------------------------- */

static void
test_free_waits_until_every_member_asked(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 4), r;
	uint16_t st;

	for (r = 0; r < 3; r++) {
		assert_int_equal(acis_ct_comm_free(f->ct, world, 0, r, &st),
				 ACIS_CT_WAIT);
		assert_int_equal(st, ACIS_S_OK);
		assert_non_null(lookup(f, world));
	}
	assert_int_equal(f->n_retired, 0);
	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 3, &st),
			 ACIS_CT_DONE);
	assert_int_equal(st, ACIS_S_OK);
}

static void
test_free_repeated_before_completion_waits_without_counting_twice(
	void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 0, &st),
			 ACIS_CT_WAIT);
	assert_non_null(lookup(f, world));
	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 1, &st),
			 ACIS_CT_DONE);
}

static void
test_free_unpublishes_and_retires_the_comm_once(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 6), child;
	const struct acis_comm *c;
	uint16_t st;

	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	child = lookup(f, world)->ctl.new_ctx[1];
	c = lookup(f, child);
	assert_int_equal(free_all(f, child, 1, &st), ACIS_CT_DONE);
	assert_null(lookup(f, child));
	assert_int_equal(f->n_retired, 1);
	assert_int_equal(retired_count(f, c), 1);
	/* Its parent and sibling stay. */
	assert_non_null(lookup(f, world));
	assert_non_null(lookup(f, lookup(f, world)->ctl.new_ctx[0]));
}

static void
test_free_of_the_world_comm_clears_the_job_world(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(free_all(f, world, 0, &st), ACIS_CT_DONE);
	assert_null(lookup(f, world));
	assert_int_equal(acis_ct_job(f->ct, 7)->world, NONE);
}

static void
test_free_repeated_after_completion_is_no_comm(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(free_all(f, world, 0, &st), ACIS_CT_DONE);
	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 1, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NO_COMM);
	assert_int_equal(f->n_retired, 1);
}

static void
test_free_by_a_rank_outside_the_comm_is_not_member(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);
	uint16_t st;

	assert_int_equal(acis_ct_comm_free(f->ct, world, 0, 2, &st),
			 ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NOT_MEMBER);
	assert_non_null(lookup(f, world));
}

/* --- management ---------------------------------------------------------- */

static void
test_comm_create_of_an_unknown_job_is_no_job(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0};
	uint16_t st;

	join_all(f, 7, 2);
	assert_int_equal(acis_ct_comm_create(f->ct, 8, 1, g, &st), NONE);
	assert_int_equal(st, ACIS_S_NO_JOB);
}

static void
test_comm_create_of_a_rank_beyond_the_job_is_bad_args(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0, 4};
	uint16_t st;

	join_all(f, 7, 4);
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 2, g, &st), NONE);
	assert_int_equal(st, ACIS_S_BAD_ARGS);
	assert_int_equal(stats(f).comms, 1);
}

static void
test_comm_create_with_a_duplicate_rank_is_bad_args(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {2, 1, 2};
	uint16_t st;

	join_all(f, 7, 4);
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 3, g, &st), NONE);
	assert_int_equal(st, ACIS_S_BAD_ARGS);
	assert_int_equal(stats(f).comms, 1);
}

static void
test_comm_create_with_no_ranks_makes_no_comm(void **state)
{
	struct fixture *f = *state;
	uint16_t st;

	join_all(f, 7, 4);
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 0, NULL, &st), NONE);
	assert_int_not_equal(st, ACIS_S_OK);
	assert_int_equal(stats(f).comms, 1);
}

static void
test_comm_create_maps_comm_ranks_to_the_given_world_ranks(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {5, 2, 7};
	const struct acis_comm *c;
	uint32_t id;
	uint16_t st = 0xffff;

	join_all(f, 7, 8);
	id = acis_ct_comm_create(f->ct, 7, 3, g, &st);
	assert_int_equal(st, ACIS_S_OK);
	c = lookup(f, id);
	assert_non_null(c);
	assert_int_equal(c->size, 3);
	assert_int_equal(c->job, 7);
	assert_int_equal(c->parent, NONE);
	assert_memory_equal(c->global, g, sizeof(g));
	/* Rank 1 of it is world rank 2, reached at world rank 2's address. */
	assert_int_equal(acis_comm_ep(c, 1)->ip, ep_of(2).ip);
}

static void
test_comm_create_beyond_max_comms_is_full(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0};
	uint16_t st;

	make_table(f, 2, 1, 4, 64);
	join_all(f, 7, 2);
	assert_int_not_equal(acis_ct_comm_create(f->ct, 7, 1, g, &st), NONE);
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 1, g, &st), NONE);
	assert_int_equal(st, ACIS_S_FULL);
}

static void
test_comm_create_beyond_max_members_is_full(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0, 1, 2};
	uint32_t id;
	uint16_t st;

	make_table(f, 16, 1, 8, 10);
	join_all(f, 7, 8); /* 8 of 10 members */
	assert_int_equal(acis_ct_comm_create(f->ct, 7, 3, g, &st), NONE);
	assert_int_equal(st, ACIS_S_FULL);
	id = acis_ct_comm_create(f->ct, 7, 2, g, &st);
	assert_int_not_equal(id, NONE);
	assert_int_equal(stats(f).members, 10);
	/* Members of a removed comm are free again. */
	assert_int_equal(acis_ct_comm_remove(f->ct, id), 0);
	assert_int_not_equal(acis_ct_comm_create(f->ct, 7, 2, g + 1, &st),
			     NONE);
}

static void
test_comm_remove_unpublishes_and_retires_once(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {1, 0};
	const struct acis_comm *c;
	uint32_t id;
	uint16_t st;

	join_all(f, 7, 2);
	id = acis_ct_comm_create(f->ct, 7, 2, g, &st);
	c = lookup(f, id);
	assert_non_null(c);
	assert_int_equal(acis_ct_comm_remove(f->ct, id), 0);
	assert_null(lookup(f, id));
	assert_int_equal(f->n_retired, 1);
	assert_int_equal(retired_count(f, c), 1);
}

static void
test_comm_remove_of_an_unknown_comm_is_enoent(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 2);

	assert_int_equal(acis_ct_comm_remove(f->ct, world + 1), -ENOENT);
	assert_int_equal(acis_ct_comm_remove(f->ct, world), 0);
	assert_int_equal(acis_ct_comm_remove(f->ct, world), -ENOENT);
	assert_int_equal(f->n_retired, 1);
}

/* --- leave --------------------------------------------------------------- */

static void
test_leave_of_a_rank_forgets_its_endpoint(void **state)
{
	struct fixture *f = *state;
	uint32_t world = join_all(f, 7, 3);
	struct acis_endpoint ep = ep_of(1);
	uint16_t st = 0xffff;

	assert_int_equal(acis_ct_leave(f->ct, 7, 1, &ep, &st), ACIS_CT_DONE);
	assert_int_equal(st, ACIS_S_OK);
	assert_int_equal(acis_ct_job(f->ct, 7)->ep[1].valid, 0);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 2);
	assert_non_null(lookup(f, world));
	assert_int_equal(f->n_retired, 0);
}

static void
test_leave_of_the_last_rank_retires_the_job_and_its_comms(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {2, 0};
	const void *comms[4], *job;
	void (*comm_destroy)(void *);
	uint32_t world, other, r, i;
	uint16_t st;

	world = join_all(f, 7, 6);
	other = join_all(f, 8, 2);
	assert_int_equal(split_all(f, world, 0, ex_color, ex_key, 0, &st),
			 ACIS_CT_DONE);
	comms[0] = lookup(f, world);
	comms[1] = lookup(f, lookup(f, world)->ctl.new_ctx[0]);
	comms[2] = lookup(f, lookup(f, world)->ctl.new_ctx[1]);
	comms[3] = lookup(f, acis_ct_comm_create(f->ct, 7, 2, g, &st));
	job = acis_ct_job(f->ct, 7);
	for (i = 0; i < 4; i++)
		assert_non_null(comms[i]);
	for (r = 0; r < 6; r++) {
		struct acis_endpoint ep = ep_of(r);

		assert_int_equal(acis_ct_leave(f->ct, 7, r, &ep, &st),
				 ACIS_CT_DONE);
		assert_int_equal(f->n_retired, r < 5 ? 0 : 5);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(retired_count(f, comms[i]), 1);
	/* The job last: its communicators point at it. */
	assert_ptr_equal(f->rec[4].obj, job);
	comm_destroy = f->rec[0].destroy;
	for (i = 1; i < 4; i++)
		assert_ptr_equal(f->rec[i].destroy, comm_destroy);
	assert_ptr_not_equal(f->rec[4].destroy, comm_destroy);
	assert_null(acis_ct_job(f->ct, 7));
	assert_int_equal(stats(f).comms, 1);
	assert_non_null(lookup(f, other));
}

/* --- the world alias (ACIS_CTX_WORLD) --------------------------------------- */

static void
test_world_of_a_job_follows_its_world_comm_through_leave_and_rejoin(void **state)
{
	struct fixture *f = *state;
	uint32_t first, second, r;
	uint16_t st;

	assert_int_equal(acis_ct_world(f->ct, 7), ACIS_CTX_NONE);
	join(f, 7, 3, 0, &st);
	/* not yet: the world communicator exists once every rank is in */
	assert_int_equal(acis_ct_world(f->ct, 7), ACIS_CTX_NONE);
	join(f, 7, 3, 1, &st);
	assert_int_equal(join(f, 7, 3, 2, &st), ACIS_CT_DONE);
	first = acis_ct_job(f->ct, 7)->world;
	assert_int_equal(acis_ct_world(f->ct, 7), first);
	assert_int_not_equal(first, ACIS_CTX_WORLD);
	for (r = 0; r < 3; r++) {
		struct acis_endpoint ep = ep_of(r);

		acis_ct_leave(f->ct, 7, r, &ep, &st);
	}
	assert_int_equal(acis_ct_world(f->ct, 7), ACIS_CTX_NONE);
	/* the same job again: a new world, and the alias names it */
	second = join_all(f, 7, 3);
	assert_int_not_equal(second, first);
	assert_int_equal(acis_ct_world(f->ct, 7), second);
}

static void
test_world_of_each_of_many_jobs_is_its_own(void **state)
{
	struct fixture *f = *state;
	uint32_t world[64], j;

	make_table(f, 256, 64, 4, 1024);
	/* job ids that share hash bits: neighbours and multiples */
	for (j = 0; j < 64; j++)
		world[j] = join_all(f, j * 65536 + (j & 1), 2);
	for (j = 0; j < 64; j++)
		assert_int_equal(acis_ct_world(f->ct, j * 65536 + (j & 1)),
				 world[j]);
	assert_int_equal(acis_ct_world(f->ct, 12345), ACIS_CTX_NONE);
}

static void
test_world_alias_ends_with_a_freed_or_removed_world_comm(void **state)
{
	struct fixture *f = *state;
	uint32_t w7 = join_all(f, 7, 2), w8 = join_all(f, 8, 2);
	uint16_t st;

	assert_int_equal(free_all(f, w7, 0, &st), ACIS_CT_DONE);
	assert_int_equal(acis_ct_world(f->ct, 7), ACIS_CTX_NONE);
	assert_int_equal(acis_ct_comm_remove(f->ct, w8), 0);
	assert_int_equal(acis_ct_world(f->ct, 8), ACIS_CTX_NONE);
}

static void
test_leave_of_an_unknown_job_is_no_job(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(0);
	uint16_t st;

	join_all(f, 7, 2);
	assert_int_equal(acis_ct_leave(f->ct, 8, 0, &ep, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NO_JOB);
}

static void
test_leave_from_another_endpoint_is_not_member(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(0);
	uint16_t st;

	join_all(f, 7, 2);
	ep.udp_port++;
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &ep, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NOT_MEMBER);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 2);
}

static void
test_leave_of_a_rank_that_left_is_not_member(void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(0);
	uint16_t st;

	join_all(f, 7, 2);
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &ep, &st), ACIS_CT_DONE);
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &ep, &st), ACIS_CT_ERROR);
	assert_int_equal(st, ACIS_S_NOT_MEMBER);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
}

static void
test_job_remove_retires_a_job_with_a_rank_still_in_and_its_comms(
	void **state)
{
	struct fixture *f = *state;
	struct acis_endpoint ep = ep_of(0);
	const void *job, *comm;
	uint32_t world, other;
	uint16_t st;

	/* rank 1 died: it never leaves, the others did */
	world = join_all(f, 7, 3);
	other = join_all(f, 8, 2);
	assert_int_equal(acis_ct_leave(f->ct, 7, 0, &ep, &st), ACIS_CT_DONE);
	ep = ep_of(2);
	assert_int_equal(acis_ct_leave(f->ct, 7, 2, &ep, &st), ACIS_CT_DONE);
	assert_int_equal(acis_ct_job(f->ct, 7)->joined, 1);
	job = acis_ct_job(f->ct, 7);
	comm = lookup(f, world);
	assert_non_null(comm);
	assert_int_equal(f->n_retired, 0);
	assert_int_equal(acis_ct_job_remove(f->ct, 7), 0);
	assert_null(acis_ct_job(f->ct, 7));
	assert_null(lookup(f, world));
	assert_int_equal(f->n_retired, 2);
	assert_ptr_equal(f->rec[0].obj, comm); /* its world communicator, */
	assert_ptr_equal(f->rec[1].obj, job); /* then the job */
	assert_int_equal(stats(f).jobs, 1);
	assert_non_null(lookup(f, other));
	assert_int_equal(acis_ct_job_remove(f->ct, 7), -ENOENT);
	assert_int_equal(f->n_retired, 2);
}

/* --- queries ------------------------------------------------------------- */

static void
test_rank_of_finds_a_world_rank_in_a_comm(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {5, 2, 7};
	const struct acis_comm *c;
	uint16_t st;

	join_all(f, 7, 8);
	c = lookup(f, acis_ct_comm_create(f->ct, 7, 3, g, &st));
	assert_int_equal(acis_comm_rank_of(c, 5), 0);
	assert_int_equal(acis_comm_rank_of(c, 2), 1);
	assert_int_equal(acis_comm_rank_of(c, 7), 2);
	assert_int_equal(acis_comm_rank_of(c, 3), ACIS_RANK_NONE);
	assert_int_equal(acis_comm_rank_of(c, 8), ACIS_RANK_NONE);
}

static void
test_stats_count_jobs_comms_members_created_and_freed(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {0, 1};
	struct acis_ct_stats s;
	uint32_t id;
	uint16_t st;

	s = stats(f);
	assert_int_equal(s.jobs, 0);
	assert_int_equal(s.comms, 0);
	join_all(f, 7, 4);
	assert_int_equal(join(f, 8, 3, 0, &st), ACIS_CT_WAIT);
	id = acis_ct_comm_create(f->ct, 7, 2, g, &st);
	s = stats(f);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.comms, 2);
	assert_int_equal(s.members, 6);
	assert_int_equal(s.created, 2);
	assert_int_equal(s.freed, 0);
	assert_int_equal(acis_ct_comm_remove(f->ct, id), 0);
	s = stats(f);
	assert_int_equal(s.comms, 1);
	assert_int_equal(s.members, 4);
	assert_int_equal(s.created, 2);
	assert_int_equal(s.freed, 1);
}

struct visit {
	uint32_t ids[16];
	unsigned int n;
};

static void
visit_comm(const struct acis_comm *c, void *arg)
{
	struct visit *v = arg;

	assert_true(v->n < 16);
	v->ids[v->n++] = c->id;
}

static void
visit_job(const struct acis_job *j, void *arg)
{
	struct visit *v = arg;

	assert_true(v->n < 16);
	v->ids[v->n++] = j->id;
}

static unsigned int
visited(const struct visit *v, uint32_t id)
{
	unsigned int i, n = 0;

	for (i = 0; i < v->n; i++)
		n += v->ids[i] == id;
	return n;
}

static void
test_foreach_visits_every_live_comm_once(void **state)
{
	struct fixture *f = *state;
	const uint32_t g[] = {1};
	struct visit v = {.n = 0};
	uint32_t w7, w8, a, b;
	uint16_t st;

	w7 = join_all(f, 7, 2);
	w8 = join_all(f, 8, 3);
	a = acis_ct_comm_create(f->ct, 7, 1, g, &st);
	b = acis_ct_comm_create(f->ct, 8, 1, g, &st);
	assert_int_equal(acis_ct_comm_remove(f->ct, a), 0);
	acis_ct_foreach(f->ct, visit_comm, &v);
	assert_int_equal(v.n, 3);
	assert_int_equal(visited(&v, w7), 1);
	assert_int_equal(visited(&v, w8), 1);
	assert_int_equal(visited(&v, b), 1);
}

static void
test_foreach_job_visits_every_job_once(void **state)
{
	struct fixture *f = *state;
	struct visit v = {.n = 0};
	struct acis_endpoint ep = ep_of(0);
	uint16_t st;

	join_all(f, 7, 2);
	assert_int_equal(join(f, 8, 3, 0, &st), ACIS_CT_WAIT);
	join_all(f, 9, 1);
	assert_int_equal(acis_ct_leave(f->ct, 9, 0, &ep, &st), ACIS_CT_DONE);
	acis_ct_foreach_job(f->ct, visit_job, &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(visited(&v, 7), 1);
	assert_int_equal(visited(&v, 8), 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_create_refuses_bad_limits),
		T(test_join_waits_until_the_last_rank_joins),
		T(test_join_of_the_last_rank_publishes_the_world_comm),
		T(test_world_comm_maps_rank_i_to_world_rank_i),
		T(test_world_comm_of_8_has_partner_set_1_2_4),
		T(test_join_completes_on_the_last_rank_whatever_the_order),
		T(test_join_records_each_endpoint_in_the_forwarding_table),
		T(test_join_repeated_after_completion_is_a_repeat),
		T(test_join_repeated_before_completion_waits_without_counting_twice),
		T(test_join_of_a_taken_rank_from_another_ip_is_rank_taken),
		T(test_join_of_a_taken_rank_from_another_udp_port_is_rank_taken),
		T(test_join_of_a_taken_rank_without_its_cookie_is_rank_taken),
		T(test_leave_without_the_cookie_is_not_member),
		cmocka_unit_test(test_ep_sender_tells_member_stranger_and_forgery_apart),
		T(test_join_with_another_world_size_is_size_mismatch),
		T(test_join_of_a_rank_beyond_the_world_size_is_bad_args),
		T(test_join_of_a_new_job_when_max_jobs_are_live_is_full),
		T(test_join_refused_full_for_the_world_comm_is_refused_to_every_rank),
		T(test_jobs_that_never_complete_expire),
		T(test_rejoin_after_a_leave_gets_the_world_that_stands),
		T(test_jobs_per_host_are_limited),
		T(test_job_lookup_of_an_unknown_job_is_null),
		T(test_lookup_of_an_unknown_id_is_null),
		T(test_lookup_of_a_freed_id_is_null_when_its_index_is_reused),
		T(test_context_ids_never_equal_ctx_none_across_a_generation_wrap),
		T(test_lookup_of_ctx_none_is_null_in_the_largest_table),
		T(test_split_waits_until_every_member_asked),
		T(test_split_groups_by_color_ordered_by_key_then_parent_rank),
		T(test_split_with_an_undefined_color_gives_no_comm),
		T(test_split_comms_map_to_the_right_world_ranks),
		T(test_split_of_a_split_maps_to_world_ranks),
		T(test_split_orders_by_the_whole_64_bit_key),
		T(test_split_matches_mpi_comm_split_for_random_colors_and_keys),
		T(test_split_repeated_after_completion_is_a_repeat),
		T(test_split_repeated_before_completion_waits_without_counting_twice),
		T(test_split_of_an_unknown_comm_is_no_comm),
		T(test_split_by_a_rank_outside_the_comm_is_not_member),
		T(test_free_opened_during_a_split_is_mismatch),
		T(test_split_with_another_seq_during_a_split_is_mismatch),
		T(test_split_repeated_while_the_next_control_op_is_open_is_a_repeat),
		T(test_split_that_runs_out_of_comms_makes_none),
		T(test_split_that_failed_is_refused_again_and_the_next_may_succeed),
		T(test_free_waits_until_every_member_asked),
		T(test_free_repeated_before_completion_waits_without_counting_twice),
		T(test_free_unpublishes_and_retires_the_comm_once),
		T(test_free_of_the_world_comm_clears_the_job_world),
		T(test_free_repeated_after_completion_is_no_comm),
		T(test_free_by_a_rank_outside_the_comm_is_not_member),
		T(test_comm_create_of_an_unknown_job_is_no_job),
		T(test_comm_create_of_a_rank_beyond_the_job_is_bad_args),
		T(test_comm_create_with_a_duplicate_rank_is_bad_args),
		T(test_comm_create_with_no_ranks_makes_no_comm),
		T(test_comm_create_maps_comm_ranks_to_the_given_world_ranks),
		T(test_comm_create_beyond_max_comms_is_full),
		T(test_comm_create_beyond_max_members_is_full),
		T(test_comm_remove_unpublishes_and_retires_once),
		T(test_comm_remove_of_an_unknown_comm_is_enoent),
		T(test_leave_of_a_rank_forgets_its_endpoint),
		T(test_leave_of_the_last_rank_retires_the_job_and_its_comms),
		T(test_world_of_a_job_follows_its_world_comm_through_leave_and_rejoin),
		T(test_world_of_each_of_many_jobs_is_its_own),
		T(test_world_alias_ends_with_a_freed_or_removed_world_comm),
		T(test_leave_of_an_unknown_job_is_no_job),
		T(test_leave_from_another_endpoint_is_not_member),
		T(test_leave_of_a_rank_that_left_is_not_member),
		T(test_job_remove_retires_a_job_with_a_rank_still_in_and_its_comms),
		T(test_rank_of_finds_a_world_rank_in_a_comm),
		T(test_stats_count_jobs_comms_members_created_and_freed),
		T(test_foreach_visits_every_live_comm_once),
		T(test_foreach_job_visits_every_job_once),
	};

	return cmocka_run_group_tests_name("comm", tests, NULL, NULL);
}
