/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collective stage's control side: set-up of the communicator table,
 * RCU reclamation of retired entries, the per-worker slot shards, and the
 * management commands (/acis/collectives, /acis/jobs, /acis/comms,
 * /acis/comm, /acis/comm_create, /acis/comm_free, /acis/job_free).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "acis_conf.h"
#include "acis_reduce.h"
#include "coll.h"
#include "switch.h"
#include "sync.h"
#include "fused.h"
#include "userop.h"

struct retired {
	void *obj;
	void (*destroy)(void *);
};

static uint64_t retire_overflow;

static void
reclaim_one(void *p, void *e, unsigned int n)
{
	struct retired *r = e;
	unsigned int i;

	RTE_SET_USED(p);
	for (i = 0; i < n; i++)
		r[i].destroy(r[i].obj);
}

/* The table's retire hook: destroy after every worker passed a quiescent
 * state. Called with the control lock held. */
static void
retire(void *obj, void (*destroy)(void *), void *arg)
{
	struct acis_coll_state *co = arg;
	struct retired r = {.obj = obj, .destroy = destroy};

	if (co->dq == NULL) { /* no readers (no workers yet / tests) */
		destroy(obj);
		return;
	}
	if (rte_rcu_qsbr_dq_enqueue(co->dq, &r) == 0)
		return;
	rte_rcu_qsbr_dq_reclaim(co->dq, UINT32_MAX, NULL, NULL, NULL);
	if (rte_rcu_qsbr_dq_enqueue(co->dq, &r) != 0)
		retire_overflow++; /* leak rather than free under a reader */
}

void
acis_coll_retire(void *obj, void (*destroy)(void *))
{
	retire(obj, destroy, &g_sw.coll);
}

/* A contribution's mbuf that held a slot's accumulator (acis_agg_lend),
 * back when the slot closes; the members' result frames that still carry
 * it as their payload segment hold their own references. */
static void
release_mbuf(void *m)
{
	acis_frame_free(m);
}

int
acis_coll_init(const struct acis_pipeline *pl, char *err, size_t len)
{
	struct acis_coll_state *co = &g_sw.coll;
	struct acis_ct_limits lim = {
		.max_comms = pl->max_comms,
		.max_jobs = pl->max_jobs,
		.max_ranks = pl->max_ranks,
		.max_members = pl->max_members,
		.max_jobs_per_host = pl->max_jobs_per_host,
		.retire = retire,
		.retire_arg = co,
	};
	struct rte_rcu_qsbr_dq_parameters dqp;
	char dq_name[RTE_RING_NAMESIZE];
	unsigned int i;
	size_t sz;

	memset(co, 0, sizeof(*co));
	rte_spinlock_init(&co->lock);
	co->max_payload = ACIS_MAX_PAYLOAD(pl->mtu);
	/* 16-bit floats accumulate in 32 bits: twice the payload. */
	co->acc_bytes = 2 * co->max_payload + 64;
	co->deadline_tsc = rte_get_tsc_hz() / 1000 * pl->deadline_ms;
	co->auth_required = pl->auth_required;
	co->linger_tsc = rte_get_tsc_hz() / 1000 * pl->linger_ms;
	co->join_wait_tsc = rte_get_tsc_hz() / 1000 * pl->join_timeout_ms;
	co->refused_tsc = rte_get_tsc_hz() * ACIS_REFUSED_KEEP_S;
	/* Sixteen tries within the linger time: a member whose answer or
	 * confirmation was lost is asked again long before its slot goes. */
	co->resend_tsc = RTE_MAX(co->linger_tsc / 16, rte_get_tsc_hz() / 1000);
	co->ct = acis_ct_create(&lim);
	if (co->ct == NULL) {
		snprintf(err, len, "%s: cannot create the communicator table "
			 "(check [collective] limits)", pl->path);
		return -ENOMEM;
	}
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX(g_sw.n_workers, 1u));
	co->qsbr = rte_zmalloc("acis_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (co->qsbr == NULL ||
	    rte_rcu_qsbr_init(co->qsbr, RTE_MAX(g_sw.n_workers, 1u)) != 0) {
		snprintf(err, len, "cannot set up RCU for %u workers",
			 g_sw.n_workers);
		return -ENOMEM;
	}
	memset(&dqp, 0, sizeof(dqp));
	/* its ring is named after it: one per switch of the process */
	snprintf(dq_name, sizeof(dq_name), "acis_retire%u", g_sw.index);
	dqp.name = dq_name;
	dqp.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE; /* under the control lock */
	dqp.size = 4 * (pl->max_comms + pl->max_jobs) + 64 +
		   2 * pl->max_comms; /* and trees */
	dqp.esize = sizeof(struct retired);
	dqp.trigger_reclaim_limit = 0;
	dqp.max_reclaim_size = dqp.size;
	dqp.free_fn = reclaim_one;
	dqp.v = co->qsbr;
	co->dq = rte_rcu_qsbr_dq_create(&dqp);
	if (co->dq == NULL) {
		snprintf(err, len, "cannot create the RCU defer queue");
		return -ENOMEM;
	}
	/* a fabric: ports whose peer folds with this switch */
	for (i = 0; pl->fold && i < pl->n_ports && i < 64; i++)
		if (pl->ports[i].has_peer)
			co->links |= 1ull << i;
	if (co->links != 0) {
		co->trees = acis_tree_table_create(2 * pl->max_comms);
		co->tctl = calloc(1, sizeof(*co->tctl));
		if (co->trees == NULL || co->tctl == NULL) {
			snprintf(err, len, "out of memory for the fabric's "
				 "trees");
			return -ENOMEM;
		}
		g_sw.ccfg.transit = 1;
	}
	for (i = 0; i < g_sw.n_lcores; i++) {
		struct acis_lcore_ctx *lc = g_sw.lcores[i];
		struct acis_coll_shard *sh;

		if (lc->worker_index < 0)
			continue;
		sh = rte_zmalloc("acis_shard", sizeof(*sh), RTE_CACHE_LINE_SIZE);
		if (sh != NULL) {
			sh->agg = acis_agg_create(pl->slots, pl->max_ranks,
						  co->acc_bytes);
			sh->act_mask = 63;
			while (sh->act_mask + 1 < pl->slots)
				sh->act_mask = sh->act_mask << 1 | 1;
			sh->act = rte_zmalloc("acis_activity",
					      (size_t)(sh->act_mask + 1) *
					      sizeof(*sh->act),
					      RTE_CACHE_LINE_SIZE);
		}
		if (sh == NULL || sh->agg == NULL || sh->act == NULL ||
		    (pl->fair_share &&
		     acis_agg_set_tenants(sh->agg, pl->max_jobs) != 0)) {
			if (sh != NULL) {
				acis_agg_free(sh->agg);
				rte_free(sh->act);
				rte_free(sh);
			}
			snprintf(err, len, "%s: cannot allocate %u aggregation "
				 "slots for lcore %u (lower [collective] slots "
				 "or max_ranks)", pl->path, pl->slots,
				 lc->lcore_id);
			return -ENOMEM;
		}
		acis_agg_on_release(sh->agg, release_mbuf);
		acis_agg_set_lend_max(sh->agg, g_sw.lend_max);
		if (co->links != 0) {
			sh->tagg = acis_agg_create(pl->slots, pl->max_ranks,
						   co->acc_bytes);
			if (sh->tagg == NULL) {
				snprintf(err, len, "%s: cannot allocate %u "
					 "tree slots for lcore %u (lower "
					 "[collective] slots or max_ranks)",
					 pl->path, pl->slots, lc->lcore_id);
				return -ENOMEM;
			}
			acis_agg_on_release(sh->tagg, release_mbuf);
			acis_agg_set_lend_max(sh->tagg, g_sw.lend_max);
		}
		sh->fused = acis_fused_sw_new((int)rte_lcore_to_socket_id(
						      lc->lcore_id));
		if (sh->fused == NULL) {
			snprintf(err, len, "cannot allocate the fused call "
				 "table for lcore %u", lc->lcore_id);
			return -ENOMEM;
		}
		co->shards[lc->worker_index] = sh;
		lc->shard = sh;
	}
	if (acis_sw_sync_init() != 0) {
		snprintf(err, len, "out of memory for the deadline and SSP "
			 "table");
		return -ENOMEM;
	}
	return 0;
}

void
acis_coll_fini(void)
{
	struct acis_coll_state *co = &g_sw.coll;
	unsigned int i;

	if (co->dq != NULL) {
		/* every worker is offline: everything is reclaimable */
		rte_rcu_qsbr_dq_delete(co->dq);
		co->dq = NULL;
	}
	acis_userop_sw_fini();
	acis_ct_free(co->ct);
	co->ct = NULL;
	for (i = 0; i < RTE_DIM(co->shards); i++) {
		struct acis_coll_shard *sh = co->shards[i];

		if (sh == NULL)
			continue;
		for (; sh->ctrl_n != 0; sh->ctrl_n--) {
			free(sh->ctrl_fan[sh->ctrl_head].d);
			sh->ctrl_head = (sh->ctrl_head + 1) % ACIS_CTRL_FANS;
		}
		acis_fused_sw_free(co->shards[i]->fused);
		acis_agg_free(co->shards[i]->agg);
		acis_agg_free(co->shards[i]->tagg);
		rte_free(co->shards[i]->act);
		rte_free(co->shards[i]);
		co->shards[i] = NULL;
	}
	rte_free(co->qsbr);
	co->qsbr = NULL;
	if (co->tctl != NULL) {
		for (i = 0; i < ACIS_TREE_INSTALLS; i++) {
			acis_tree_free(co->tctl->in[i].t);
			free(co->tctl->in[i].eps);
		}
		for (i = 0; i < ACIS_TREE_ASSEMBLIES; i++) {
			free(co->tctl->as[i].seen);
			free(co->tctl->as[i].eps);
		}
		free(co->tctl);
		co->tctl = NULL;
	}
	acis_tree_table_free(co->trees);
	co->trees = NULL;
	acis_sw_sync_fini();
}

void
acis_coll_housekeeping(void)
{
	struct acis_coll_state *co = &g_sw.coll;

	if (co->ct == NULL)
		return;
	rte_spinlock_lock(&co->lock);
	acis_ct_expire_joins(co->ct, rte_rdtsc(), co->join_wait_tsc,
			     co->refused_tsc);
	acis_sw_sync_purge();
	acis_userop_sw_purge();
	rte_spinlock_unlock(&co->lock);
}

void
acis_coll_online(const struct acis_lcore_ctx *lc)
{
	if (g_sw.coll.qsbr == NULL || lc->worker_index < 0)
		return;
	rte_rcu_qsbr_thread_register(g_sw.coll.qsbr, lc->worker_index);
	rte_rcu_qsbr_thread_online(g_sw.coll.qsbr, lc->worker_index);
}

void
acis_coll_offline(const struct acis_lcore_ctx *lc)
{
	if (g_sw.coll.qsbr == NULL || lc->worker_index < 0)
		return;
	rte_rcu_qsbr_thread_offline(g_sw.coll.qsbr, lc->worker_index);
	rte_rcu_qsbr_thread_unregister(g_sw.coll.qsbr, lc->worker_index);
}

void
acis_coll_quiescent(const struct acis_lcore_ctx *lc)
{
	rte_rcu_qsbr_quiescent(g_sw.coll.qsbr, lc->worker_index);
}

unsigned int
acis_coll_fanouts_pending(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_DIM(g_sw.coll.shards); i++) {
		const struct acis_coll_shard *sh = g_sw.coll.shards[i];

		if (sh != NULL)
			n += acis_agg_pending(sh->agg) + sh->ctrl_n;
	}
	return n;
}

void
acis_coll_stats_sum(struct acis_coll_stats *out, struct acis_agg_stats *agg)
{
	unsigned int i, k;

	memset(out, 0, sizeof(*out));
	memset(agg, 0, sizeof(*agg));
	for (i = 0; i < RTE_DIM(g_sw.coll.shards); i++) {
		const struct acis_coll_shard *sh = g_sw.coll.shards[i];
		struct acis_agg_stats a;
		const uint64_t *src;
		uint64_t *dst = (uint64_t *)out;

		if (sh == NULL)
			continue;
		src = (const uint64_t *)&sh->st;
		for (k = 0; k < sizeof(*out) / sizeof(uint64_t); k++)
			dst[k] += src[k];
		acis_agg_get_stats(sh->agg, &a);
		agg->opened += a.opened;
		agg->completed += a.completed;
		agg->busy += a.busy;
		agg->busy_share += a.busy_share;
		agg->expired += a.expired;
		agg->lingered += a.lingered;
		agg->stale += a.stale;
		agg->lend_refused += a.lend_refused;
		agg->lent += a.lent;
		agg->in_use += a.in_use;
		agg->capacity += a.capacity;
		agg->high_water += a.high_water;
	}
}

void
acis_coll_weigh(uint32_t job)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int i;

	for (i = 0; i < pl->n_weights; i++)
		if (pl->weights[i].job == job) {
			acis_ct_set_weight(g_sw.coll.ct, job,
					   pl->weights[i].weight);
			return;
		}
}

/* ---- telemetry ---- */

/* Slots the trees held below their root take now, every worker. */
static uint64_t
tree_slots_in_use(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(g_sw.coll.shards); i++) {
		const struct acis_coll_shard *sh = g_sw.coll.shards[i];
		struct acis_agg_stats a;

		if (sh == NULL || sh->tagg == NULL)
			continue;
		acis_agg_get_stats(sh->tagg, &a);
		n += a.in_use;
	}
	return n;
}

static int
tel_collectives(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_coll_stats s;
	struct acis_agg_stats a;
	struct acis_ct_stats c;
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	acis_coll_stats_sum(&s, &a);
	rte_spinlock_lock(&g_sw.coll.lock);
	acis_ct_stats(g_sw.coll.ct, &c);
	rte_spinlock_unlock(&g_sw.coll.lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "reduce_isa", acis_reduce_isa());
	rte_tel_data_add_dict_u64(d, "jobs", c.jobs);
	rte_tel_data_add_dict_u64(d, "comms", c.comms);
	rte_tel_data_add_dict_u64(d, "comm_members", c.members);
	rte_tel_data_add_dict_u64(d, "comms_created", c.created);
	rte_tel_data_add_dict_u64(d, "comms_freed", c.freed);
	rte_tel_data_add_dict_u64(d, "jobs_refused", c.jobs_refused);
	rte_tel_data_add_dict_u64(d, "jobs_expired", c.jobs_expired);
	rte_tel_data_add_dict_u64(d, "joins_limited", c.joins_limited);
	rte_tel_data_add_dict_string(d, "auth", g_sw.coll.auth_required ?
				     "required" : "optional");
	rte_tel_data_add_dict_u64(d, "auth_refused", s.auth_refused);
	rte_tel_data_add_dict_u64(d, "slots_capacity", a.capacity);
	rte_tel_data_add_dict_u64(d, "slots_in_use", a.in_use);
	rte_tel_data_add_dict_u64(d, "slots_high_water", a.high_water);
	rte_tel_data_add_dict_u64(d, "slots_opened", a.opened);
	rte_tel_data_add_dict_u64(d, "slots_completed", a.completed);
	rte_tel_data_add_dict_u64(d, "slots_busy", a.busy);
	rte_tel_data_add_dict_u64(d, "slots_busy_share", a.busy_share);
	rte_tel_data_add_dict_u64(d, "slots_expired", a.expired);
	rte_tel_data_add_dict_u64(d, "slots_lingered", a.lingered);
	rte_tel_data_add_dict_u64(d, "slots_stale", a.stale);
	rte_tel_data_add_dict_u64(d, "retrans_answered", s.retrans_answered);
	rte_tel_data_add_dict_u64(d, "resends", s.resends);
	rte_tel_data_add_dict_u64(d, "confirms", s.confirms);
	rte_tel_data_add_dict_u64(d, "answers_resent", s.answers_resent);
	rte_tel_data_add_dict_u64(d, "late_copies", s.late_copies);
	rte_tel_data_add_dict_u64(d, "late_receipts", s.late_receipts);
	rte_tel_data_add_dict_u64(d, "world_alias_msgs", s.world_alias);
	rte_tel_data_add_dict_u64(d, "no_comm_nacks", s.no_comm_nacks);
	rte_tel_data_add_dict_u64(d, "timeouts_resent", s.timeouts_resent);
	rte_tel_data_add_dict_u64(d, "userop_faults", s.userop_faults);
	rte_tel_data_add_dict_u64(d, "userop_refused", s.userop_refused);
	rte_tel_data_add_dict_u64(d, "fused_calls", s.fused_calls);
	rte_tel_data_add_dict_u64(d, "fused_failed", s.fused_failed);
	rte_tel_data_add_dict_u64(d, "fused_refused", s.fused_refused);
	rte_tel_data_add_dict_u64(d, "fused_unconfirmed", s.fused_unconfirmed);
	rte_tel_data_add_dict_u64(d, "data_msgs", s.data);
	rte_tel_data_add_dict_u64(d, "ctrl_msgs", s.ctrl);
	rte_tel_data_add_dict_u64(d, "payload_bytes", s.payload_bytes);
	rte_tel_data_add_dict_u64(d, "results_sent", s.results);
	rte_tel_data_add_dict_u64(d, "results_shared", s.results_shared);
	rte_tel_data_add_dict_u64(d, "zero_copy_slots", s.zero_copy);
	rte_tel_data_add_dict_u64(d, "zero_copy_refused", a.lend_refused);
	rte_tel_data_add_dict_u64(d, "mbufs_in_slots", a.lent);
	rte_tel_data_add_dict_u64(d, "mbufs_in_slots_max",
				  (uint64_t)g_sw.lend_max * g_sw.n_workers);
	rte_tel_data_add_dict_u64(d, "acks_sent", s.acks);
	rte_tel_data_add_dict_u64(d, "ack_chunks", s.ack_chunks);
	rte_tel_data_add_dict_u64(d, "nacks_sent", s.nacks);
	rte_tel_data_add_dict_u64(d, "ctrl_acks_sent", s.ctrl_acks);
	rte_tel_data_add_dict_u64(d, "blocks_forwarded", s.forwarded);
	rte_tel_data_add_dict_u64(d, "held_now", s.held);
	rte_tel_data_add_dict_u64(d, "held_total", s.held_total);
	rte_tel_data_add_dict_u64(d, "held_refused", s.held_refused);
	rte_tel_data_add_dict_u64(d, "held_max",
				  (uint64_t)g_sw.hold_max * g_sw.n_workers);
	rte_tel_data_add_dict_u64(d, "tx_nombuf", s.nombuf);
	rte_tel_data_add_dict_u64(d, "fanouts_deferred", s.fanouts_deferred);
	rte_tel_data_add_dict_u64(d, "fanouts_pending",
				  acis_coll_fanouts_pending());
	rte_tel_data_add_dict_u64(d, "answers_sent_late", s.answers_sent_late);
	rte_tel_data_add_dict_u64(d, "answers_dropped", s.answers_dropped);
	rte_tel_data_add_dict_u64(d, "trees",
				  g_sw.coll.trees != NULL ?
				  acis_tree_count(g_sw.coll.trees) : 0);
	rte_tel_data_add_dict_u64(d, "tree_slots_in_use", tree_slots_in_use());
	rte_tel_data_add_dict_u64(d, "partials_in", s.partials_in);
	rte_tel_data_add_dict_u64(d, "partials_up", s.partials_up);
	rte_tel_data_add_dict_u64(d, "partials_resent", s.partials_resent);
	rte_tel_data_add_dict_u64(d, "results_down", s.results_down);
	rte_tel_data_add_dict_u64(d, "results_from_parent",
				  s.results_from_parent);
	rte_tel_data_add_dict_u64(d, "tree_passed", s.tree_passed);
	rte_tel_data_add_dict_u64(d, "tree_late", s.tree_late);
	rte_tel_data_add_dict_u64(d, "installs_sent", s.installs_sent);
	rte_tel_data_add_dict_u64(d, "installs_taken", s.installs_taken);
	rte_tel_data_add_dict_u64(d, "installs_refused", s.installs_refused);
	rte_tel_data_add_dict_u64(d, "deadlines_set", s.deadlines_set);
	rte_tel_data_add_dict_u64(d, "deadline_signals", s.deadline_signals);
	/* the whole pool's, read without stopping the lcores (approximate
	 * while packets move; exact at rest): what held contributions, kept
	 * answers and packets in flight take, for leak checks */
	if (g_sw.pool != NULL)
		rte_tel_data_add_dict_u64(d, "mbufs_in_use",
					  rte_mempool_in_use_count(g_sw.pool));
	rte_tel_data_add_dict_u64(d, "retire_overflow", retire_overflow);
	for (i = 1; i < ACIS_C_MAX; i++) {
		char name[48];

		snprintf(name, sizeof(name), "completed_%s", acis_coll_name(i));
		rte_tel_data_add_dict_u64(d, name, s.completed[i]);
	}
	return 0;
}

static void
ip_str(uint32_t ip, char *buf, size_t len)
{
	const uint8_t *b = (const uint8_t *)&ip;

	snprintf(buf, len, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

/* One tree: "root=IP job=J size=P covered=N units=U up=pN children=
 * pN:IP:LEADER+COUNT,..." */
static void
tree_cb(const struct acis_tree *t, void *arg)
{
	struct rte_tel_data *d = arg;
	char name[48], val[RTE_TEL_MAX_STRING_LEN], ip[16], cip[16];
	size_t o;
	uint32_t k;

	const uint8_t *b = (const uint8_t *)&t->root_ip;

	ip_str(t->root_ip, ip, sizeof(ip));
	/* (a telemetry name takes letters, digits, '_' and '/' only) */
	snprintf(name, sizeof(name), "%u_%u_%u_%u_%u", t->ctx, b[0], b[1],
		 b[2], b[3]);
	o = (size_t)snprintf(val, sizeof(val),
			     "%s %s job=%u size=%u covered=%u units=%u ", ip,
			     t->is_root ? "root" : "below", t->job, t->size,
			     t->covered, acis_tree_units(t));
	if (!t->is_root)
		o += (size_t)snprintf(val + o, sizeof(val) - o, "up=p%u ",
				      t->up.port);
	o += (size_t)snprintf(val + o, sizeof(val) - o, "children=");
	for (k = 0; k < t->n_children && o + 40 < sizeof(val); k++) {
		ip_str(t->child[k].ep.ip, cip, sizeof(cip));
		o += (size_t)snprintf(val + o, sizeof(val) - o,
				      "%sp%u:%s:%u+%u", k ? "," : "",
				      t->child[k].port, cip, t->child[k].leader,
				      t->child[k].count);
	}
	if (t->n_children == 0 && o + 5 < sizeof(val))
		snprintf(val + o, sizeof(val) - o, "none");
	rte_tel_data_add_dict_string(d, name, val);
}

static int
tel_trees(struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	if (g_sw.coll.trees == NULL)
		return 0;
	rte_spinlock_lock(&g_sw.coll.lock);
	acis_tree_foreach(g_sw.coll.trees, tree_cb, d);
	rte_spinlock_unlock(&g_sw.coll.lock);
	return 0;
}

static void
job_cb(const struct acis_job *j, void *arg)
{
	struct rte_tel_data *d = arg;
	char name[32], val[96];

	snprintf(name, sizeof(name), "job%u", j->id);
	snprintf(val, sizeof(val), "size=%u joined=%u world=%s%u weight=%u",
		 j->size, j->joined, j->world == ACIS_CTX_NONE ? "none/" : "",
		 j->world == ACIS_CTX_NONE ? 0 : j->world,
		 j->weight != 0 ? j->weight : 1);
	rte_tel_data_add_dict_string(d, name, val);
}

static int
tel_jobs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&g_sw.coll.lock);
	acis_ct_foreach_job(g_sw.coll.ct, job_cb, d);
	rte_spinlock_unlock(&g_sw.coll.lock);
	return 0;
}

static void
partners_str(const uint32_t *p, uint32_t n, char *buf, size_t len)
{
	size_t o = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < n && o + 12 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? "," : "",
				      p[i]);
}

static void
comm_cb(const struct acis_comm *c, void *arg)
{
	struct rte_tel_data *d = arg;
	char name[32], val[RTE_TEL_MAX_STRING_LEN], ps[64];

	snprintf(name, sizeof(name), "%u", c->id);
	partners_str(c->partners, c->n_partners, ps, sizeof(ps));
	snprintf(val, sizeof(val), "job=%u size=%u parent=%d partners={%s}",
		 c->job, c->size,
		 c->parent == ACIS_CTX_NONE ? -1 : (int)c->parent, ps);
	rte_tel_data_add_dict_string(d, name, val);
}

/* /acis/comms, or /acis/comms,trees: a fabric's trees at this switch
 * (doc/fabric.md) -- the telemetry library takes only so many commands */
static int
tel_comms(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	if (params != NULL && strcmp(params, "trees") == 0)
		return tel_trees(d);
	if (params != NULL && *params != '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&g_sw.coll.lock);
	acis_ct_foreach(g_sw.coll.ct, comm_cb, d);
	rte_spinlock_unlock(&g_sw.coll.lock);
	return 0;
}

/* /acis/comm,CTX[:RANK] */
static int
tel_comm(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const algos[] = {"", "binomial",
		"recursive_doubling", "recursive_halving", "ring"};
	const struct acis_comm *c;
	uint32_t ctx, rank = 0;
	const char *end = "";
	char buf[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *m;
	unsigned int a, i;

	RTE_SET_USED(cmd);
	if (acis_conf_u32_prefix(params, &ctx, &end) != 0 ||
	    (*end == ':' && acis_conf_u32_prefix(end + 1, &rank, &end) != 0) ||
	    *end != '\0')
		return acis_tel_error(d, "expected CTX or CTX:RANK, numbers "
				      "below 2^32");
	m = rte_tel_data_alloc();
	if (m == NULL)
		return -ENOMEM;
	rte_spinlock_lock(&g_sw.coll.lock);
	c = acis_ct_lookup(g_sw.coll.ct, ctx);
	if (c == NULL || rank >= c->size) {
		rte_spinlock_unlock(&g_sw.coll.lock);
		rte_tel_data_free(m);
		return acis_tel_error(d, c == NULL ? "no communicator %u" :
				      "communicator %u has no rank %u", ctx,
				      rank);
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "id", c->id);
	rte_tel_data_add_dict_u64(d, "job", c->job);
	rte_tel_data_add_dict_u64(d, "size", c->size);
	rte_tel_data_add_dict_int(d, "parent",
		c->parent == ACIS_CTX_NONE ? -1 : (int)c->parent);
	rte_tel_data_add_dict_u64(d, "rank", rank);
	for (a = ACIS_A_BINOMIAL; a < ACIS_A_MAX; a++) {
		uint32_t set[ACIS_ALGO_MAX_PARTNERS];
		unsigned int n = acis_algo_partner_set(a, c->size,
					(uint32_t)rank, 0, set, RTE_DIM(set));
		char name[48];

		partners_str(set, n, buf, sizeof(buf));
		snprintf(name, sizeof(name), "partners_%s", algos[a]);
		rte_tel_data_add_dict_string(d, name, buf);
	}
	rte_tel_data_start_array(m, RTE_TEL_STRING_VAL);
	for (i = 0; i < c->size && i < RTE_TEL_MAX_ARRAY_ENTRIES; i++) {
		const struct acis_endpoint *ep = acis_comm_ep(c, i);
		char ip[INET_ADDRSTRLEN];
		struct in_addr in = {.s_addr = ep->ip};

		inet_ntop(AF_INET, &in, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "rank %u = world %u at %s:%u port %s",
			 i, c->global[i], ip, ntohs(ep->udp_port),
			 ep->port < g_sw.n_ports ?
				 g_sw.pl->ports[ep->port].name : "?");
		rte_tel_data_add_array_string(m, buf);
	}
	rte_spinlock_unlock(&g_sw.coll.lock);
	rte_tel_data_add_dict_container(d, "members", m, 0);
	return 0;
}

/* "0-3,5,7" into ranks[]; returns the count or -1. */
static int
parse_ranks(const char *s, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	while (*s != '\0') {
		const char *end;
		uint32_t a, b;
		uint64_t x;

		if (acis_conf_u32_prefix(s, &a, &end) != 0)
			return -1;
		b = a;
		if (*end == '-' &&
		    (acis_conf_u32_prefix(end + 1, &b, &end) != 0 || b < a))
			return -1;
		for (x = a; x <= b; x++) {
			if (n == max)
				return -1;
			out[n++] = (uint32_t)x;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return (int)n;
}

/* /acis/comm_create,JOB:RANKS (world ranks, e.g. 7:0-3 or 7:0,2,4) */
static int
tel_comm_create(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static uint32_t ranks[65536];
	const char *tree = NULL;
	unsigned int waited;
	uint32_t job;
	const char *end;
	int n;
	uint16_t status;
	uint32_t id;

	RTE_SET_USED(cmd);
	if (acis_conf_u32_prefix(params, &job, &end) != 0 || *end != ':')
		return acis_tel_error(d, "expected JOB:RANKS, e.g. 7:0-3, with "
				      "JOB below 2^32");
	rte_spinlock_lock(&g_sw.coll.lock);
	n = parse_ranks(end + 1, ranks, RTE_DIM(ranks));
	if (n <= 0) {
		rte_spinlock_unlock(&g_sw.coll.lock);
		return acis_tel_error(d, "RANKS: expected world ranks like 0-3 "
				      "or 0,2,4");
	}
	id = acis_ct_comm_create(g_sw.coll.ct, job, (uint32_t)n,
				 ranks, &status);
	/* in a fabric, its tree, as a split's: worker 0 installs it */
	if (id != ACIS_CTX_NONE && g_sw.coll.tctl != NULL &&
	    g_sw.coll.links != 0 && g_sw.coll.tctl->req == 0) {
		g_sw.coll.tctl->req_ctx = id;
		rte_atomic_thread_fence(__ATOMIC_RELEASE);
		g_sw.coll.tctl->req = 1;
		tree = "pending";
	}
	rte_spinlock_unlock(&g_sw.coll.lock);
	if (tree != NULL) {
		/* the reply waits for the tree, so the members' first
		 * collective folds (the children give up on a silent child
		 * in a second) */
		for (waited = 0; waited < 3000 && g_sw.coll.tctl->req != 0;
		     waited++)
			rte_delay_us_sleep(1000);
		if (g_sw.coll.tctl->req == 0)
			tree = acis_tree_find(g_sw.coll.trees, g_sw.ccfg.ip,
					      id) != NULL ? "installed" :
					      "none";
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "status", status);
	if (id != ACIS_CTX_NONE)
		rte_tel_data_add_dict_u64(d, "id", id);
	rte_tel_data_add_dict_u64(d, "size", (uint64_t)n);
	if (tree != NULL)
		rte_tel_data_add_dict_string(d, "tree", tree);
	return 0;
}

/* A removal by one number: "freed" 1 when remove found it. */
static int
tel_remove(const char *params, const char *what,
	   int (*remove)(struct acis_comm_table *, uint32_t),
	   struct rte_tel_data *d)
{
	uint32_t v;
	int rc;

	if (acis_conf_u32(params, &v) != 0)
		return acis_tel_error(d, "expected %s below 2^32", what);
	rte_spinlock_lock(&g_sw.coll.lock);
	rc = remove(g_sw.coll.ct, v);
	rte_spinlock_unlock(&g_sw.coll.lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "freed", rc == 0);
	return 0;
}

/* /acis/comm_free,CTX */
static int
tel_comm_free(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_remove(params, "a communicator id", acis_ct_comm_remove, d);
}

/* /acis/job_free,JOB: a job whose host died never has its last LEAVE;
 * its communicators and its ranks' table entries go at once (their slots
 * follow at the workers' next sweep). */
static int
tel_job_free(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_remove(params, "a job number", acis_ct_job_remove, d);
}

int
acis_coll_telemetry_register(void)
{
	int rc = 0;

	rc |= acis_sw_sync_telemetry_register();
	rc |= acis_userop_sw_telemetry_register();
	rc |= acis_tel_register("/acis/collectives", tel_collectives,
		"Aggregation slots, messages and completions. No parameters");
	rc |= acis_tel_register("/acis/jobs", tel_jobs,
		"Jobs: size, ranks joined, world communicator. No parameters");
	rc |= acis_tel_register("/acis/comms", tel_comms,
		"Communicators: job, size, parent, partners. Parameters: none, or 'trees' (a fabric's trees here)");
	rc |= acis_tel_register("/acis/comm", tel_comm,
		"One communicator: members and partner sets. Parameters: CTX[:RANK]");
	rc |= acis_tel_register("/acis/comm_create", tel_comm_create,
		"Make a communicator of world ranks. Parameters: JOB:RANKS (e.g. 7:0-3)");
	rc |= acis_tel_register("/acis/comm_free", tel_comm_free,
		"Free a communicator at once. Parameters: CTX");
	rc |= acis_tel_register("/acis/job_free", tel_job_free,
		"Remove a job and its communicators at once (a job whose host died). Parameters: JOB");
	return rc;
}
