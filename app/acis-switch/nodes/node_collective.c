/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_collective: the in-network collective stage (ACiS Type 1).
 *
 * Takes ACiS messages addressed to the switch on the worker that owns
 * them (the parse stage hashes (comm, seq, chunk) to a worker, so every
 * contribution to a slot meets on one lcore and no slot is ever shared).
 *
 *  - DATA of allreduce, reduce, reduce_scatter, barrier and small
 *    gathers goes through an aggregation slot: the contributor bitmap
 *    refuses duplicates, contributions are folded (float sum/prod in rank
 *    order, early arrivals held as mbufs until their turn), and when every
 *    rank is in the answers go out, exactly once;
 *  - DATA of bcast, scatter and large gathers is kept in a slot and
 *    forwarded at once; its sender is acknowledged once every receiver
 *    has confirmed it (end-to-end window, and a resend path);
 *  - a completed slot is kept with its result until every member has
 *    confirmed its answer (host ACK receipts), so a lost answer is sent
 *    again when a rank retransmits, and by the switch itself to members
 *    that stay silent; a closed slot's key is remembered, so a late copy
 *    does not open a slot nobody joins; slots whose collective has
 *    stood still for the deadline fail with NACK TIMEOUT naming the
 *    missing ranks, and say so again to
 *    whoever sends to them (doc/reliability.md);
 *  - CTRL (join, split, free, query) is handled on worker 0 under the
 *    control lock.
 * Every DATA chunk is answered by a RESULT or an ACK; a full slot pool
 * answers NACK BUSY (doc/wire-format.md).
 *
 * Answers to many members (a completion, the switch's resends, a
 * forwarded block, a deadline's NACKs, a finished JOIN, SPLIT or FREE)
 * are fan-outs: a walk sends at most ACIS_ANSWERS_PER_WALK frames of
 * them, none to a port whose TX queue is full, and stops at an empty
 * mbuf pool; what is left stays with its slot (a cursor, the slot on the
 * table's pending list) or in a copy of the control answers, and goes at
 * the next walks. A job of 65,536 ranks completes a slot with 65,536
 * answers: one walk enqueueing them all would pass the graph's limit of
 * 65,535 objects a stream and abort, and would need that many mbufs at
 * once.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>

#include "../switch.h"
#include "../fused.h"
#include "../tx.h"
#include "../userop.h"
#include "acis_reduce.h"

/* Everything a handler needs, gathered once per packet. */
struct cctx {
	struct rte_graph *graph;
	struct rte_node *node;
	struct acis_lcore_ctx *lc;
	struct acis_coll_stats *st;
	struct rte_mbuf *m;
	const uint8_t *eth;
	struct acis_pkt_info *pi;
	struct acis_hdr h;
	const uint8_t *payload;
	/* A completion answering several members through ports that send
	 * chained frames: the answer's payload, built once, then shared by
	 * every member's frame (each its own headers). */
	uint8_t fanout;
	struct rte_mbuf *shared;
	/* The fanout's frames built so far: they take their references to
	 * the shared payload in one update once all are built, a plain store
	 * while the completion holds the only one (the frames leave only when
	 * the walk reaches the TX stage), instead of an atomic update per
	 * member behind each frame's stores. */
	uint32_t chained;
	uint8_t n_ack; /* ACK batches open (ack_pend) */
	uint64_t now;  /* the TSC, read once a burst */
	uint8_t nombuf; /* the pool ran dry in this call: fan-outs wait */
	uint8_t late;   /* sending what earlier walks left (answers_sent_late) */
	/* A fabric's tree (doc/fabric.md): the communicator's tree at this
	 * switch, or NULL; the slot table of its scope (the shard's own, or
	 * its trees' below their root); the address frames go from (the
	 * switch's, or below the root the root's, so members see the switch
	 * they joined); whether answers go to members themselves rather
	 * than through the tree; whether the DATA is a member's own that
	 * came past the child switch its tree folds through. */
	const struct acis_tree *t;
	struct acis_agg *agg;
	uint32_t src_ip;
	uint8_t direct;
	uint8_t bypass;
	/* why a user op's fold failed (userop.h), for the NACKs */
	char op_err[160];
};

/* What a slot's fan-out (acis_slot.fan) still owes, from fan_next on. */
enum fan_mode {
	FAN_NONE = 0,
	FAN_COMPLETE, /* every member its answer: the slot completed */
	FAN_RESEND,   /* members that have not confirmed: the switch's resend */
	FAN_FORWARD,  /* a forwarded block's receivers that lack it */
	FAN_TIMEOUT,  /* contributors: the slot failed at its deadline */
};

static inline struct acis_coll_activity *
activity_of(const struct acis_coll_shard *sh, uint32_t ctx, uint32_t seq)
{
	uint64_t h = ((uint64_t)ctx << 32 | seq) * 0x9e3779b97f4a7c15ull;

	return &sh->act[(uint32_t)(h >> 40) & sh->act_mask];
}

/* Slot s took a new contribution: it and its collective moved. */
static inline void
progressed(struct cctx *x, struct acis_slot *s)
{
	struct acis_coll_activity *a =
		activity_of(x->lc->shard, s->key.ctx, s->key.seq);

	s->progress_tsc = x->now;
	a->ctx = s->key.ctx;
	a->seq = s->key.seq;
	a->tsc = x->now;
}

/* How long slot s's collective has stood still: since the later of the
 * slot's own last contribution and its collective's. */
static inline uint64_t
idle_for(const struct acis_coll_shard *sh, const struct acis_slot *s,
	 uint64_t now)
{
	const struct acis_coll_activity *a =
		activity_of(sh, s->key.ctx, s->key.seq);
	uint64_t last = s->progress_tsc;

	if (a->ctx == s->key.ctx && a->seq == s->key.seq && a->tsc > last)
		last = a->tsc;
	return now > last ? now - last : 0;
}

/*
 * ACKs of one burst, coalesced: the ACKs to one member for one request
 * (comm, seq) go out as one ACK listing their chunks (`chunk` = count,
 * payload = little-endian uint32 chunks, as a host's receipts), not a
 * frame each. A scatter's root or a reduce's non-roots get one frame per
 * burst instead of one per chunk, and the switch sends half the frames of
 * a scatter. A batch goes when full, when its place is needed, and at the
 * end of the burst (ack_flush); a batch of one is a plain ACK.
 */
#define ACK_BATCHES 8
#define ACK_KEYS_MAX 256u

struct ack_batch {
	const struct acis_comm *c;
	uint32_t r;
	uint32_t src_ip; /* from the cctx's, when the batch opened */
	uint16_t n, max;
	struct acis_hdr h; /* the first ACK's header */
	uint32_t keys[ACK_KEYS_MAX];
};

static RTE_DEFINE_PER_LCORE(struct ack_batch, ack_pend[ACK_BATCHES]);


static inline void
drop(struct cctx *x, struct rte_mbuf *m, enum acis_drop_reason r)
{
	acis_set_drop(m, r);
	rte_node_enqueue_x1(x->graph, x->node, ACIS_NEXT_DROP, m);
}

/* The tree a communicator of this switch's own folds through, for a
 * collective of opcode by op; NULL when it does not (no fabric, no
 * children, or a collective that crosses the fabric unfolded: a user
 * op's too). One lookup. */
static inline const struct acis_tree *
root_tree(uint32_t ctx, uint8_t opcode, uint8_t op)
{
	if (likely(g_sw.coll.trees == NULL) ||
	    !acis_coll_tree_folds(opcode, op))
		return NULL;
	return acis_tree_find(g_sw.coll.trees, g_sw.ccfg.ip, ctx);
}

/* Whether a forwarded block of opcode is replicated down a fabric's
 * tree (one copy a link): bcast and allgather, whose blocks go to many
 * members. */
static inline int
replicates(uint8_t opcode)
{
	unsigned int coll = ACIS_OPCODE_COLL(opcode);

	return coll == ACIS_C_BCAST || coll == ACIS_C_ALLGATHER;
}

/* The tree a slot of the switch's own communicators answers through:
 * a folding collective's, or a replicated block's. */
static inline const struct acis_tree *
slot_tree(const struct acis_slot *s)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	if (likely(g_sw.coll.trees == NULL) ||
	    !(acis_coll_tree_folds(s->opcode, s->op) ||
	      (s->forwarding && replicates(s->opcode)) ||
	      (!s->forwarding &&
	       (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER))))
		return NULL;
	return acis_tree_find(g_sw.coll.trees, g_sw.ccfg.ip, s->key.ctx);
}

/* Messages of the switch's own communicators, from its own address. */
static inline void
scope_own(struct cctx *x)
{
	x->t = NULL;
	x->agg = x->lc->shard->agg;
	x->src_ip = g_sw.ccfg.ip;
	x->direct = 0;
	x->bypass = 0;
}

/* Messages of tree t, held below its root. */
static inline void
scope_below(struct cctx *x, const struct acis_tree *t)
{
	x->t = t;
	x->agg = x->lc->shard->tagg;
	x->src_ip = t->root_ip;
	x->direct = 0;
	x->bypass = 0;
}

/* Enter the scope of slot s of table agg; its communicator, or NULL if
 * gone. */
static const struct acis_comm *
slot_scope(struct cctx *x, struct acis_agg *agg, const struct acis_slot *s)
{
	const struct acis_comm *c;
	const struct acis_tree *t;

	if (agg == x->lc->shard->agg) {
		scope_own(x);
		c = acis_ct_lookup(g_sw.coll.ct, s->key.ctx);
		if (c != NULL)
			x->t = slot_tree(s);
		return c;
	}
	t = acis_tree_find(g_sw.coll.trees, s->owner, s->key.ctx);
	if (t == NULL) {
		scope_own(x);
		x->agg = agg;
		return NULL;
	}
	scope_below(x, t);
	return &t->comm_view;
}

/*
 * A frame to endpoint ep: Ethernet/IPv4/UDP from the switch and the header
 * h, with room for len payload bytes after them in the frame itself, or
 * (tail) counted for a payload segment the caller chains on. NULL when no
 * mbuf is free.
 */
static struct rte_mbuf *
frame_to(struct cctx *x, const struct acis_endpoint *ep,
	 const struct acis_hdr *h, uint16_t len, uint16_t tail)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_sw.pool);
	uint8_t *f;

	if (unlikely(m == NULL)) {
		x->st->nombuf++;
		x->nombuf = 1;
		return NULL;
	}
	x->lc->answer_budget--;
	m->ol_flags |= g_sw.answer_flag; /* TX keeps it if its queue is full */
	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(ACIS_UDP4_PAYLOAD_OFF +
							ACIS_HDR_LEN + len));
	/* no UDP checksum (IPv4 allows it) */
	acis_udp4_headers(f, ep->mac, g_sw.ccfg.mac, x->src_ip, ep->ip,
			  g_sw.ccfg.udp_port, ntohs(ep->udp_port),
			  (uint16_t)(ACIS_HDR_LEN + len + tail));
	acis_hdr_encode(h, f + ACIS_UDP4_PAYLOAD_OFF);
	/* the receiver's cookie (or 0), whatever the template carried: only
	 * the switch and that rank know it */
	memcpy(f + ACIS_UDP4_PAYLOAD_OFF + ACIS_HOFF_AUTH, ep->auth,
	       sizeof(ep->auth));
	if (unlikely(ep->tag_len != 0)) {
		/* the host's VLAN tags (802.1Q, 802.1ad, QinQ) go back on
		 * what it is sent, as its frames carried them (the headroom
		 * takes them) */
		uint8_t *t = (uint8_t *)rte_pktmbuf_prepend(m, ep->tag_len);

		if (unlikely(t == NULL)) { /* no headroom: cannot be */
			rte_pktmbuf_free(m);
			x->st->nombuf++;
			x->nombuf = 1;
			return NULL;
		}
		memmove(t, t + ep->tag_len, 12);
		memcpy(t + 12, ep->tags, ep->tag_len);
	}
	acis_meta(m)->in_port = ep->port;
	return m;
}

/*
 * Build a frame to endpoint ep: Ethernet/IPv4/UDP from the switch, the
 * header h and len payload bytes, copied from src unless src is NULL (then
 * the caller fills them through the returned pointer). Returns NULL when
 * no mbuf is free.
 */
static uint8_t *
emit(struct cctx *x, const struct acis_endpoint *ep, const struct acis_hdr *h,
     const void *src, uint16_t len)
{
	struct rte_mbuf *m = frame_to(x, ep, h, len, 0);
	uint8_t *p;

	if (unlikely(m == NULL))
		return NULL;
	/* the payload ends the frame, tagged or not */
	p = rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len - len);
	if (src != NULL && len != 0)
		memcpy(p, src, len);
	rte_node_enqueue_x1(x->graph, x->node, ACIS_NEXT_TX_BASE + ep->port, m);
	return p;
}

static void
ack_send(struct cctx *x, struct ack_batch *b)
{
	struct acis_hdr h = b->h;
	uint16_t len = 0;
	uint32_t src;

	if (b->n == 0)
		return;
	if (b->n == 1) {
		h.chunk = rte_le_to_cpu_32(b->keys[0]);
	} else {
		h.chunk = b->n;
		len = (uint16_t)(4 * b->n);
	}
	h.payload_len = len;
	src = x->src_ip;
	x->src_ip = b->src_ip;
	if (emit(x, acis_comm_ep(b->c, b->r), &h, b->keys, len) != NULL) {
		x->st->acks++;
		x->st->ack_chunks += b->n;
	}
	x->src_ip = src;
	b->n = 0;
}

/* ACK h (its chunk) to rank r of c, with the other ACKs of this burst to
 * the same member and request. max: chunks that fit the member's frames. */
static void
ack_defer(struct cctx *x, const struct acis_comm *c, uint32_t r,
	  const struct acis_hdr *h, uint32_t max)
{
	struct ack_batch *b = RTE_PER_LCORE(ack_pend);
	unsigned int i;

	for (i = 0; i < x->n_ack; i++)
		if (b[i].c == c && b[i].r == r && b[i].h.seq == h->seq &&
		    b[i].src_ip == x->src_ip)
			break;
	if (i == x->n_ack) {
		if (x->n_ack == ACK_BATCHES) {
			i = 0; /* the first opened makes room */
			ack_send(x, &b[0]);
		} else {
			x->n_ack++;
		}
		b[i].c = c;
		b[i].r = r;
		b[i].src_ip = x->src_ip;
		b[i].h = *h;
		b[i].n = 0;
		b[i].max = (uint16_t)RTE_MAX(1u, RTE_MIN(max, ACK_KEYS_MAX));
	}
	b[i].keys[b[i].n++] = rte_cpu_to_le_32(h->chunk);
	if (b[i].n == b[i].max)
		ack_send(x, &b[i]);
}

/* The burst's open ACK batches go now. */
static void
ack_flush(struct cctx *x)
{
	struct ack_batch *b = RTE_PER_LCORE(ack_pend);
	unsigned int i;

	for (i = 0; i < x->n_ack; i++)
		ack_send(x, &b[i]);
	x->n_ack = 0;
}

/* Members whose frames may chain one payload segment: its references fit
 * its 16-bit reference count, and a fanout's in one signed update. */
#define SHARE_MAX INT16_MAX

/*
 * A RESULT to endpoint ep that carries a shared payload: the headers in a
 * frame of their own, the payload segment chained after them and
 * referenced once more. The segment is the slot's lent buffer, whose
 * bytes are the answer (lend), or else the completion's own, which the
 * first call builds with the finished reduction (reduced) or the slot's
 * bytes. Returns 0, or -1 when no mbuf is free.
 */
static int
emit_shared(struct cctx *x, const struct acis_endpoint *ep,
	    const struct acis_hdr *h, const struct acis_slot *s, uint16_t len,
	    int reduced)
{
	struct rte_mbuf *m, *seg = s->acc_buf;
	uint8_t *d;

	if (seg == NULL && x->shared == NULL) {
		x->shared = rte_pktmbuf_alloc(g_sw.pool);
		if (unlikely(x->shared == NULL)) {
			x->st->nombuf++;
			x->nombuf = 1;
			return -1;
		}
		d = (uint8_t *)rte_pktmbuf_append(x->shared, len);
		if (reduced)
			acis_reduce_finish(s->dtype, d, s->acc,
					   len / acis_dtype_size(s->dtype));
		else
			memcpy(d, s->acc, len);
	}
	if (seg == NULL)
		seg = x->shared;
	m = frame_to(x, ep, h, 0, len);
	if (unlikely(m == NULL))
		return -1;
	if (x->fanout)
		x->chained++;
	else
		rte_mbuf_refcnt_update(seg, 1);
	m->next = seg;
	m->nb_segs = 2;
	m->pkt_len += len;
	rte_node_enqueue_x1(x->graph, x->node, ACIS_NEXT_TX_BASE + ep->port, m);
	return 0;
}

/* A header-only answer (ACK, NACK, CTRL_ACK) to endpoint ep. 0, or -1
 * when no mbuf is free (counted as tx_nombuf). */
static int
answer(struct cctx *x, const struct acis_endpoint *ep, uint8_t type,
       uint16_t status, const struct acis_hdr *about)
{
	struct acis_hdr h = *about;

	h.type = type;
	h.status = status;
	h.payload_len = 0;
	h.hdr_len = ACIS_HDR_LEN;
	h.contributors = 0;
	if (emit(x, ep, &h, NULL, 0) == NULL)
		return -1;
	if (type == ACIS_T_ACK) {
		x->st->acks++;
		x->st->ack_chunks++;
	}
	else if (type == ACIS_T_NACK)
		x->st->nacks++;
	else
		x->st->ctrl_acks++;
	return 0;
}

/* Whether a fan-out may send another answer through port now: this
 * walk's budget is not spent, the pool gave an mbuf the last time, and
 * the port's TX queue took what it was given. */
static inline int
answer_room(const struct cctx *x, uint16_t port)
{
	return x->lc->answer_budget > 0 && !x->nombuf &&
	       !acis_tx_congested(x->lc, port);
}

/* The auth field of the message being handled (6 wire bytes). */
static inline const uint8_t *
msg_auth(const struct cctx *x)
{
	return x->eth + x->pi->payload_off + ACIS_HOFF_AUTH;
}

/* Whether the message comes from endpoint ep: 1 yes; else it is dropped,
 * counted acis_not_member (another address) or acis_bad_auth (the
 * address, without the rank's cookie), and 0. */
static inline int
from_member(struct cctx *x, const struct acis_endpoint *ep)
{
	int k = acis_ep_sender(ep, x->pi->src_ip, htons(x->pi->sport),
			       msg_auth(x));

	if (likely(k == 1))
		return 1;
	drop(x, x->m, k == 0 ? ACIS_DROP_ACIS_NOT_MEMBER :
			       ACIS_DROP_ACIS_BAD_AUTH);
	return 0;
}

/* The sender's endpoint as seen on this packet. */
static void
sender_ep(const struct cctx *x, struct acis_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->ip = x->pi->src_ip;
	ep->udp_port = htons(x->pi->sport);
	ep->port = acis_meta(x->m)->in_port;
	memcpy(ep->mac, x->eth + 6, 6);
	ep->valid = 1;
	/* the tags between the MAC addresses and the IPv4 EtherType */
	ep->tag_len = (uint8_t)RTE_MIN(x->pi->l3_off - ACIS_ETH_HLEN,
				       (int)sizeof(ep->tags));
	memcpy(ep->tags, x->eth + 12, ep->tag_len);
	/* an answer to the sender itself carries the cookie it sent */
	memcpy(ep->auth, msg_auth(x), sizeof(ep->auth));
}

/* A DATA or a host's NACK for a job or communicator the switch does not
 * know (it restarted, or the job was removed): tell the sender at once,
 * so it fails now instead of at its timeout. */
static void
no_comm(struct cctx *x)
{
	struct acis_endpoint ep;
	struct acis_hdr h = x->h;

	/* the comm as the sender wrote it (0 for an alias that names no
	 * world), so it knows its own message */
	h.comm = acis_rd32(x->eth + x->pi->payload_off + ACIS_HOFF_COMM);
	sender_ep(x, &ep);
	if (answer(x, &ep, ACIS_T_NACK, ACIS_S_NO_COMM, &h) == 0)
		x->st->no_comm_nacks++;
	drop(x, x->m, ACIS_DROP_ACIS_NO_COMM);
}

/* ------------------------------------------------------------------ */
/* Control                                                              */
/* ------------------------------------------------------------------ */

/* Where the members' answers of a finished control operation go: the
 * job's endpoints (JOIN), or the communicator's, with each member's new
 * communicator (SPLIT). */
struct ctrl_src {
	const struct acis_job *j;
	const struct acis_comm *c;
	uint8_t split;
};

static void
ctrl_dest_of(const struct ctrl_src *src, uint32_t r, struct acis_ctrl_dest *d)
{
	if (src->j != NULL) {
		d->ep = src->j->ep[r];
		return;
	}
	d->ep = *acis_comm_ep(src->c, r);
	if (src->split) {
		d->new_ctx = src->c->ctl.new_ctx[r];
		d->new_rank = src->c->ctl.new_rank[r];
		d->new_size = src->c->ctl.new_size[r];
	}
}

/* Member r's CTRL_ACK: the template t (its status included) addressed
 * to it. */
static int
ctrl_send(struct cctx *x, const struct acis_hdr *t, uint8_t split, uint32_t r,
	  const struct acis_ctrl_dest *d)
{
	struct acis_hdr h = *t;

	h.rank = r;
	if (split) {
		h.msg_size = d->new_ctx;
		h.chunk = d->new_rank;
		h.root = d->new_size;
	}
	return answer(x, &d->ep, ACIS_T_CTRL_ACK, t->status, &h);
}

/*
 * Members first..n-1 of a finished control operation are owed their
 * answers, and this walk can send no more: their answers go at the next
 * walks (ctrl_drain), from a copy of where they go, so the job or
 * communicator may change or go meanwhile (a freed one is reclaimed once
 * this walk ends). The copy is made on the control path, once for a whole
 * operation. Without room for it the answers are counted lost: each
 * member asks again every 100 ms and is answered on its own.
 */
static void
ctrl_defer(struct cctx *x, const struct acis_hdr *t, const struct ctrl_src *src,
	   uint32_t first, uint32_t n)
{
	struct acis_coll_shard *sh = x->lc->shard;
	struct acis_ctrl_dest *d = NULL;
	struct acis_ctrl_fan *f;
	uint32_t i;

	if (sh->ctrl_n < ACIS_CTRL_FANS)
		d = malloc((size_t)(n - first) * sizeof(*d));
	if (d == NULL) {
		x->st->answers_dropped += n - first;
		return;
	}
	for (i = first; i < n; i++)
		ctrl_dest_of(src, i, &d[i - first]);
	f = &sh->ctrl_fan[(sh->ctrl_head + sh->ctrl_n++) % ACIS_CTRL_FANS];
	f->h = *t;
	f->split = src->split;
	f->first = first;
	f->n = n - first;
	f->next = 0;
	f->d = d;
	x->st->fanouts_deferred++;
}

/* Answer every member 0..n-1 of a finished control operation: as many as
 * this walk may, the rest later. */
static void
ctrl_answer_all(struct cctx *x, const struct acis_hdr *t, uint32_t n,
		const struct ctrl_src *src)
{
	struct acis_ctrl_dest d;
	uint32_t r;

	for (r = 0; r < n; r++) {
		ctrl_dest_of(src, r, &d);
		if (!answer_room(x, d.ep.port) ||
		    ctrl_send(x, t, src->split, r, &d) != 0)
			break;
	}
	if (r < n)
		ctrl_defer(x, t, src, r, n);
}

/* The control answers earlier walks left, oldest operation first. */
static void
ctrl_drain(struct cctx *x)
{
	struct acis_coll_shard *sh = x->lc->shard;

	while (sh->ctrl_n != 0) {
		struct acis_ctrl_fan *f = &sh->ctrl_fan[sh->ctrl_head];

		for (; f->next < f->n; f->next++) {
			const struct acis_ctrl_dest *d = &f->d[f->next];

			if (!answer_room(x, d->ep.port) ||
			    ctrl_send(x, &f->h, f->split, f->first + f->next,
				      d) != 0)
				return;
			x->st->answers_sent_late++;
		}
		free(f->d);
		f->d = NULL;
		sh->ctrl_head = (sh->ctrl_head + 1) % ACIS_CTRL_FANS;
		sh->ctrl_n--;
	}
}

static struct acis_tree_install *install_find(uint32_t root_ip, uint32_t ctx);
static int tree_root_start(struct cctx *x, const struct acis_job *j,
			   const struct acis_hdr *h);
static int tree_split_start(struct cctx *x, const struct acis_comm *c,
			    const struct acis_hdr *h);
static int split_waiting(uint32_t parent, uint32_t seq);

static void
ctrl_join(struct cctx *x, const struct acis_endpoint *from)
{
	struct acis_comm_table *ct = g_sw.coll.ct;
	struct acis_hdr h = x->h;
	struct ctrl_src src = {0};
	const struct acis_job *j;
	uint16_t status;
	enum acis_ct_outcome o;

	if (g_sw.coll.auth_required && acis_rd48(from->auth) == 0) {
		x->st->auth_refused++;
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_AUTH, &h);
		return;
	}
	o = acis_ct_join(ct, h.job, h.root, h.rank, from, rte_rdtsc(),
			 &status);
	if (o != ACIS_CT_ERROR)
		acis_coll_weigh(h.job);
	h.type = ACIS_T_CTRL_ACK;
	h.status = ACIS_S_OK;
	if (o == ACIS_CT_ERROR) {
		answer(x, from, ACIS_T_CTRL_ACK, status, &h);
		return;
	}
	if (o == ACIS_CT_WAIT)
		return; /* the host asks again until everyone is in */
	j = acis_ct_job(ct, h.job);
	src.j = j;
	if (o == ACIS_CT_REFUSED) {
		/* no room for the world: every rank hears it, not only the
		 * last to join (the others would wait out their timeout);
		 * every rank has joined when this happens */
		h.status = status;
		ctrl_answer_all(x, &h, j->size, &src);
		return;
	}
	h.comm = j->world;
	if (o == ACIS_CT_REPEAT) {
		/* (while its tree is installed, the answers wait) */
		if (install_find(g_sw.ccfg.ip, j->world) == NULL)
			answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_OK, &h);
		return;
	}
	if (!tree_root_start(x, j, &h))
		ctrl_answer_all(x, &h, j->size, &src);
}

/* Members of comm c: is the sender rank h.rank of it? */
static int
is_member(const struct acis_comm *c, uint32_t rank,
	  const struct acis_endpoint *from)
{
	const struct acis_endpoint *ep;

	if (rank >= c->size)
		return 0;
	ep = acis_comm_ep(c, rank);
	return acis_ep_sender(ep, from->ip, from->udp_port, from->auth) == 1;
}

static void
ctrl_split(struct cctx *x, const struct acis_endpoint *from)
{
	struct acis_comm_table *ct = g_sw.coll.ct;
	const struct acis_comm *c = acis_ct_lookup(ct, x->h.comm);
	struct acis_hdr h = x->h;
	struct ctrl_src src = {.c = c, .split = 1};
	struct acis_ctrl_dest d;
	uint16_t status;
	enum acis_ct_outcome o;

	h.type = ACIS_T_CTRL_ACK;
	h.status = ACIS_S_OK;
	if (c == NULL || c->job != h.job) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NO_COMM, &h);
		return;
	}
	if (!is_member(c, h.rank, from)) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &h);
		return;
	}
	o = acis_ct_split(ct, h.comm, h.seq, h.rank, h.chunk, h.msg_size,
			  &status);
	if (o == ACIS_CT_WAIT)
		return;
	if (o == ACIS_CT_ERROR) {
		answer(x, from, ACIS_T_CTRL_ACK, status, &h);
		return;
	}
	if (o == ACIS_CT_REFUSED) {
		/* every member asked, and every member hears the refusal */
		h.status = status;
		h.msg_size = ACIS_CTX_NONE;
		src.split = 0;
		ctrl_answer_all(x, &h, c->size, &src);
		return;
	}
	/* msg_size = the new context id, chunk = the new rank, root = the
	 * new size */
	if (o == ACIS_CT_REPEAT) {
		/* (while its trees are installed, the answers wait) */
		if (!split_waiting(c->id, h.seq)) {
			ctrl_dest_of(&src, h.rank, &d);
			ctrl_send(x, &h, 1, h.rank, &d);
		}
		return;
	}
	if (!tree_split_start(x, c, &h))
		ctrl_answer_all(x, &h, c->size, &src);
}

static void
ctrl_free(struct cctx *x, const struct acis_endpoint *from)
{
	struct acis_comm_table *ct = g_sw.coll.ct;
	const struct acis_comm *c = acis_ct_lookup(ct, x->h.comm);
	struct acis_hdr h = x->h;
	struct ctrl_src src = {.c = c};
	uint16_t status;

	h.type = ACIS_T_CTRL_ACK;
	h.status = ACIS_S_OK;
	if (c == NULL || c->job != h.job) {
		/* gone: a repeat after the free completed, or never was */
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NO_COMM, &h);
		return;
	}
	if (!is_member(c, h.rank, from)) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &h);
		return;
	}
	switch (acis_ct_comm_free(ct, h.comm, h.seq, h.rank, &status)) {
	case ACIS_CT_DONE:
		/* c is retired but not reclaimed before this walk ends:
		 * what later walks send comes from a copy */
		ctrl_answer_all(x, &h, c->size, &src);
		break;
	case ACIS_CT_ERROR:
		answer(x, from, ACIS_T_CTRL_ACK, status, &h);
		break;
	default:
		break;
	}
}

static void
ctrl_query(struct cctx *x, const struct acis_endpoint *from)
{
	const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct, x->h.comm);
	const struct acis_job *j = acis_ct_job(g_sw.coll.ct, x->h.job);
	struct acis_hdr h = x->h;
	uint32_t r;

	h.type = ACIS_T_CTRL_ACK;
	h.status = ACIS_S_OK;
	if (j == NULL || x->h.rank >= j->size ||
	    acis_ep_sender(&j->ep[x->h.rank], from->ip, from->udp_port,
			   from->auth) != 1) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &h);
		return;
	}
	if (c == NULL || c->job != h.job) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NO_COMM, &h);
		return;
	}
	r = acis_comm_rank_of(c, x->h.rank);
	if (r == ACIS_RANK_NONE) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &h);
		return;
	}
	h.rank = r;
	h.root = c->size;
	answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_OK, &h);
}

/* Whether a control message comes from the address and port of the rank
 * it names without that rank's cookie: a forgery (or a restarted
 * process on a joined rank's port), dropped unanswered. JOIN, LEAVE and
 * QUERY name a world rank, SPLIT and FREE a rank of their communicator. */
static int
forged_ctrl(const struct cctx *x, const struct acis_endpoint *from)
{
	const struct acis_endpoint *ep = NULL;

	if (x->h.opcode == ACIS_CTRL_SPLIT ||
	    x->h.opcode == ACIS_CTRL_COMM_FREE ||
	    x->h.opcode == ACIS_CTRL_DEADLINE ||
	    x->h.opcode == ACIS_CTRL_SSP) {
		const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct,
							   x->h.comm);

		if (c != NULL && c->job == x->h.job && x->h.rank < c->size)
			ep = acis_comm_ep(c, x->h.rank);
	} else {
		const struct acis_job *j = acis_ct_job(g_sw.coll.ct, x->h.job);

		if (j != NULL && x->h.rank < j->size)
			ep = &j->ep[x->h.rank];
	}
	return ep != NULL &&
	       acis_ep_sender(ep, from->ip, from->udp_port, from->auth) < 0;
}

/*
 * DEADLINE and SSP (doc/sync.md): from a member of a communicator, about
 * that communicator. Its state in the sync table, made at the first;
 * NULL with the sender answered when it is no member, or no room.
 */
static struct acis_sync *
sync_of(struct cctx *x, const struct acis_endpoint *from,
	const struct acis_comm **cp)
{
	const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct, x->h.comm);
	struct acis_sync *e;

	if (c == NULL || c->job != x->h.job) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NO_COMM, &x->h);
		return NULL;
	}
	if (x->h.rank >= c->size ||
	    acis_ep_sender(acis_comm_ep(c, x->h.rank), from->ip,
			   from->udp_port, from->auth) != 1) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &x->h);
		return NULL;
	}
	e = acis_sync_get(g_sw.coll.sync, c->id, c->size);
	if (e == NULL)
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_FULL, &x->h);
	*cp = c;
	return e;
}

/* DEADLINE: chunk 0 sets the communicator's period (msg_size, us; 0
 * stops it), chunk 1 reports epoch seq done (root of the answer: 1 if
 * late). */
static void
ctrl_deadline(struct cctx *x, const struct acis_endpoint *from)
{
	const struct acis_comm *c = NULL;
	struct acis_sync *e = sync_of(x, from, &c);
	struct acis_hdr h = x->h;
	uint16_t status = ACIS_S_OK;

	if (e == NULL)
		return;
	h.flags = 0;
	if (h.chunk == 0) {
		if (h.msg_size > ACIS_SYNC_PERIOD_MAX_US ||
		    acis_sync_deadline_set(g_sw.coll.sync, e,
					   (uint32_t)h.msg_size, g_sw.tsc_hz,
					   rte_rdtsc()) != 0)
			status = ACIS_S_BAD_ARGS;
		else
			x->st->deadlines_set++;
	} else if (h.chunk == 1) {
		h.root = (uint32_t)acis_sync_deadline_report(e, h.seq);
	} else {
		status = ACIS_S_BAD_ARGS;
	}
	answer(x, from, ACIS_T_CTRL_ACK, status, &h);
}

/* SSP: the sender finished iteration seq (staleness bound in root,
 * quorum in chunk): "continue" (the CTRL_ACK, seq = the iteration) to
 * every member that may go on now, the sender or not. */
static void
ctrl_ssp(struct cctx *x, const struct acis_endpoint *from)
{
	const struct acis_comm *c = NULL;
	struct acis_sync *e = sync_of(x, from, &c);
	struct acis_hdr h = x->h;
	int i, n;

	if (e == NULL)
		return;
	n = acis_sync_ssp_done(e, h.rank, h.seq, h.root, h.chunk);
	if (n < 0) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, &h);
		return;
	}
	h.flags = 0;
	/* how far the quorum is: a member may go on up to reach + s without
	 * waiting for an answer (libacis sends those dones and goes on) */
	h.msg_size = e->reach;
	for (i = 0; i < n; i++) {
		const struct acis_endpoint *ep = acis_comm_ep(c, e->go[i]);

		h.rank = e->go[i];
		h.seq = e->go_iter[i];
		/* one that finds no room asks again (libacis: every 100 ms)
		 * and is answered then */
		if (!answer_room(x, ep->port) ||
		    answer(x, ep, ACIS_T_CTRL_ACK, ACIS_S_OK, &h) != 0)
			x->st->answers_dropped++;
	}
}

/* A deadline expired: its epoch's signal to every member. */
static void
deadline_signal(struct acis_sync *e, void *arg)
{
	struct cctx *x = arg;
	const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct, e->ctx);
	struct ctrl_src src = {.c = c};
	struct acis_hdr h;

	if (c == NULL || c->size != e->size)
		return; /* gone: the housekeeping forgets it */
	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = ACIS_T_CTRL_ACK;
	h.opcode = ACIS_CTRL_DEADLINE;
	h.flags = ACIS_F_MULTICAST;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = c->job;
	h.comm = c->id;
	h.seq = e->epoch;
	h.chunk = 2;
	h.root = ACIS_RANK_NONE;
	h.msg_size = e->period_us;
	ctrl_answer_all(x, &h, c->size, &src);
	x->st->deadline_signals += c->size;
}

/* ------------------------------------------------------------------ */
/* Trees: installing (doc/fabric.md)                                    */
/* ------------------------------------------------------------------ */

/* Unanswered INSTALLs go again this often, this many times; then the
 * child is given up on and its ranks fold where it hangs, as members
 * (the child, without the tree, forwards their DATA). */
#define INSTALL_RESEND_MS 50
#define INSTALL_TRIES 20
/* An INSTALL whose frames stop coming is forgotten after this long. */
#define ASSEMBLY_KEEP_S 5

static void
tree_destroy(void *p)
{
	acis_tree_free(p);
}

/* Child ch's address: the peer its link's port names. */
static void
child_ep(struct acis_tree_child *ch)
{
	const struct acis_port_cfg *pc = &g_sw.pl->ports[ch->port];

	memset(&ch->ep, 0, sizeof(ch->ep));
	ch->ep.valid = 1;
	ch->ep.ip = pc->peer_ip;
	memcpy(ch->ep.mac, pc->peer_mac, 6);
	ch->ep.port = ch->port;
	ch->ep.udp_port = htons(g_sw.ccfg.udp_port);
}

/* One INSTALL frame of tree t to child k: entries first..first+n-1 of
 * its ranks (n 0: "remove the tree"). Control goes with a UDP checksum.
 * 0, or -1 when no mbuf was free. */
static int
install_frame(struct cctx *x, const struct acis_tree *t, uint32_t k,
	      uint32_t first, uint32_t n, const struct acis_endpoint *eps)
{
	const struct acis_tree_child *ch = &t->child[k];
	uint16_t len = (uint16_t)(n * ACIS_TREE_ENTRY_LEN), v;
	struct acis_endpoint ep = ch->ep;
	struct acis_hdr h;
	uint8_t *p, *ip;
	uint32_t j;

	memcpy(ep.auth, t->root_mac, 6); /* the root's MAC rides in auth */
	memset(&h, 0, sizeof(h));
	h.version = ACIS_PROTO_VERSION;
	h.type = ACIS_T_CTRL;
	h.opcode = ACIS_CTRL_INSTALL;
	h.hdr_len = ACIS_HDR_LEN;
	h.job = t->job;
	h.comm = t->ctx;
	h.root = t->size;
	h.msg_size = n == 0 ? 0 : ch->count;
	h.chunk = first;
	h.rank = ntohl(t->root_ip);
	h.payload_len = len;
	p = emit(x, &ep, &h, NULL, len);
	if (p == NULL)
		return -1;
	for (j = 0; j < n; j++)
		acis_tree_entry_put(p + j * ACIS_TREE_ENTRY_LEN,
				    ch->ranks[first + j],
				    &eps[ch->ranks[first + j]]);
	ip = p - ACIS_HDR_LEN - ACIS_UDP4_PAYLOAD_OFF + ACIS_ETH_HLEN;
	v = acis_udp4_csum(ip, ip + ACIS_IPV4_MIN_HLEN,
			   ACIS_UDP_HLEN + ACIS_HDR_LEN + len);
	ip[ACIS_IPV4_MIN_HLEN + 6] = (uint8_t)(v >> 8);
	ip[ACIS_IPV4_MIN_HLEN + 7] = (uint8_t)v;
	x->st->installs_sent++;
	return 0;
}

/* The INSTALL of tree t to child k: its ranks, as many frames as the
 * MTU needs. */
static void
install_send(struct cctx *x, const struct acis_tree *t, uint32_t k,
	     const struct acis_endpoint *eps)
{
	uint32_t per = g_sw.coll.max_payload / ACIS_TREE_ENTRY_LEN, i, n;
	uint32_t count = t->child[k].count;

	for (i = 0; i < count; i += n) {
		n = RTE_MIN(per, count - i);
		if (install_frame(x, t, k, i, n, eps) != 0)
			return; /* the next try sends it */
	}
}

/* Tell tree t's children to remove it (best effort: a lost one leaves
 * a tree that a later INSTALL of the same key replaces). */
static void
uninstall_children(struct cctx *x, const struct acis_tree *t)
{
	uint32_t k;

	for (k = 0; k < t->n_children; k++)
		install_frame(x, t, k, 0, 0, NULL);
}

/* Retire tree t (already unpublished), telling its children. */
static void
tree_retire(struct cctx *x, struct acis_tree *t)
{
	uint32_t src = x->src_ip;

	x->src_ip = g_sw.ccfg.ip;
	uninstall_children(x, t);
	x->src_ip = src;
	acis_coll_retire(t, tree_destroy);
}

static struct acis_tree_install *
install_find(uint32_t root_ip, uint32_t ctx)
{
	struct acis_tree_ctl *tc = g_sw.coll.tctl;
	unsigned int i;

	for (i = 0; tc != NULL && i < ACIS_TREE_INSTALLS; i++)
		if (tc->in[i].used && tc->in[i].t->ctx == ctx &&
		    tc->in[i].t->root_ip == root_ip)
			return &tc->in[i];
	return NULL;
}

static struct acis_tree_install *
install_new(void)
{
	struct acis_tree_ctl *tc = g_sw.coll.tctl;
	unsigned int i;

	for (i = 0; i < ACIS_TREE_INSTALLS; i++)
		if (!tc->in[i].used) {
			memset(&tc->in[i], 0, sizeof(tc->in[i]));
			tc->in[i].used = 1;
			return &tc->in[i];
		}
	return NULL;
}

static void
install_end(struct acis_tree_install *in)
{
	acis_tree_free(in->t);
	free(in->eps);
	memset(in, 0, sizeof(*in));
}

/* Start installing t: its INSTALLs go to every child. */
static void
install_start(struct cctx *x, struct acis_tree_install *in,
	      struct acis_tree *t)
{
	uint32_t k;

	in->t = t;
	in->next_tsc = x->now + g_sw.tsc_hz / 1000 * INSTALL_RESEND_MS;
	for (k = 0; k < t->n_children; k++) {
		child_ep(&t->child[k]);
		install_send(x, t, k, in->eps);
	}
}

/*
 * Every child of in's tree answered, or was given up on: the tree is
 * published (without the children given up on: their ranks fold here),
 * and what waited for it goes: at the root, the members' JOIN answers;
 * below, the answer to the parent.
 */
static void
install_settle(struct cctx *x, struct acis_tree_install *in)
{
	struct acis_tree *t = in->t;
	uint32_t all = t->n_children >= 32 ? UINT32_MAX :
					      (1u << t->n_children) - 1;
	uint16_t status = ACIS_S_OK;

	if (((in->acked | in->failed) & all) != all)
		return;
	if (in->failed != 0) {
		uint64_t links = g_sw.coll.links;
		uint16_t *port = malloc((size_t)t->size * sizeof(*port));
		struct acis_tree *n = NULL;
		uint32_t r, k;

		for (k = 0; k < t->n_children; k++)
			if (in->failed >> k & 1) {
				links &= ~(1ull << t->child[k].port);
				x->st->installs_refused++;
			}
		if (in->below)
			links &= ~(1ull << t->up.port);
		if (port != NULL) {
			for (r = 0; r < t->size; r++)
				port[r] = t->child_of[r] == ACIS_TREE_ABSENT ?
						  ACIS_TREE_NO_PORT :
						  in->eps[r].port;
			n = acis_tree_build(t->ctx, t->job, t->size, port,
					    links, in->below ? in->eps : NULL);
			free(port);
		}
		if (n != NULL) {
			n->root_ip = t->root_ip;
			memcpy(n->root_mac, t->root_mac, 6);
			n->up = t->up;
			for (k = 0; k < n->n_children; k++)
				child_ep(&n->child[k]);
		}
		acis_tree_free(t);
		t = in->t = n;
	}
	if (t == NULL) {
		status = ACIS_S_FULL;
	} else if (in->below || t->n_children != 0) {
		if (acis_tree_add(g_sw.coll.trees, t) != 0) {
			uninstall_children(x, t);
			status = ACIS_S_FULL;
		} else {
			in->t = NULL; /* the table's now */
			x->st->installs_taken += in->below;
		}
	}
	if (in->mgmt) {
		g_sw.coll.tctl->req = 0;
	} else if (in->below) {
		answer(x, &in->parent, ACIS_T_CTRL_ACK, status, &in->h);
	} else if (in->split) {
		/* the split's answers, once its last new tree is in */
		struct acis_hdr h = in->h;
		uint32_t parent = in->parent_ctx;
		const struct acis_comm *c;

		install_end(in);
		if (split_waiting(parent, h.seq))
			return;
		c = acis_ct_lookup(g_sw.coll.ct, parent);
		if (c != NULL) {
			struct ctrl_src src = {.c = c, .split = 1};

			ctrl_answer_all(x, &h, c->size, &src);
		}
		return;
	} else {
		const struct acis_job *j = acis_ct_job(g_sw.coll.ct,
						       in->h.job);
		struct ctrl_src src = {.j = j};

		if (j != NULL && j->world == in->h.comm)
			ctrl_answer_all(x, &in->h, j->size, &src);
	}
	install_end(in);
}

/* Is a split of communicator parent (its collective seq) waiting for
 * a tree? */
static int
split_waiting(uint32_t parent, uint32_t seq)
{
	struct acis_tree_ctl *tc = g_sw.coll.tctl;
	unsigned int i;

	for (i = 0; tc != NULL && i < ACIS_TREE_INSTALLS; i++)
		if (tc->in[i].used && tc->in[i].split &&
		    tc->in[i].parent_ctx == parent && tc->in[i].h.seq == seq)
			return 1;
	return 0;
}

/*
 * At the root, when communicator c is made: if members sit behind
 * fabric links, its tree is built and installed, and the answers that
 * make it known (template h: the JOIN answers of a world, or a split's,
 * parent_split its parent) wait until it is (1); else 0, answer now.
 */
static int
tree_root_install(struct cctx *x, const struct acis_comm *c,
		  const struct acis_hdr *h, const struct acis_comm *parent)
{
	struct acis_tree_install *in;
	struct acis_tree *t;
	uint16_t *port;
	uint32_t r;
	int any = 0;

	for (r = 0; r < c->size && !any; r++)
		any = acis_comm_ep(c, r)->port < 64 &&
		      (g_sw.coll.links >> acis_comm_ep(c, r)->port & 1);
	if (!any)
		return 0;
	in = install_new();
	if (in == NULL) {
		x->st->installs_refused++; /* no room: it runs unfolded */
		return 0;
	}
	port = malloc((size_t)c->size * sizeof(*port));
	in->eps = malloc((size_t)c->size * sizeof(*in->eps));
	if (port == NULL || in->eps == NULL) {
		free(port);
		install_end(in);
		return 0;
	}
	for (r = 0; r < c->size; r++) {
		in->eps[r] = *acis_comm_ep(c, r);
		port[r] = in->eps[r].port;
	}
	t = acis_tree_build(c->id, c->job, c->size, port, g_sw.coll.links,
			    NULL);
	free(port);
	if (t == NULL) {
		install_end(in);
		return 0;
	}
	t->root_ip = g_sw.ccfg.ip;
	memcpy(t->root_mac, g_sw.ccfg.mac, 6);
	in->h = *h;
	if (parent != NULL) {
		in->split = 1;
		in->parent_ctx = parent->id;
	}
	install_start(x, in, t);
	return 1;
}

/* A job's world was made: its tree, before the JOIN answers. */
static int
tree_root_start(struct cctx *x, const struct acis_job *j,
		const struct acis_hdr *h)
{
	const struct acis_comm *c;

	if (g_sw.coll.trees == NULL ||
	    (c = acis_ct_lookup(g_sw.coll.ct, j->world)) == NULL)
		return 0;
	return tree_root_install(x, c, h, NULL);
}

/* Communicator c was split: each new communicator's tree, before the
 * split's answers. 1 if they wait. */
static int
tree_split_start(struct cctx *x, const struct acis_comm *c,
		 const struct acis_hdr *h)
{
	uint32_t r;
	int waiting = 0;

	if (g_sw.coll.trees == NULL)
		return 0;
	for (r = 0; r < c->size; r++) {
		const struct acis_comm *n;

		/* each new communicator once: by its rank 0 */
		if (c->ctl.new_ctx[r] == ACIS_CTX_NONE ||
		    c->ctl.new_rank[r] != 0 ||
		    (n = acis_ct_lookup(g_sw.coll.ct, c->ctl.new_ctx[r])) == NULL)
			continue;
		waiting |= tree_root_install(x, n, h, c);
	}
	return waiting;
}

/* A child's answer to an INSTALL (a CTRL_ACK; rank = the root). */
static void
install_answered(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	struct acis_tree_install *in = install_find(htonl(h->rank), h->comm);
	uint32_t k;

	if (in == NULL)
		return; /* settled already: a repeat */
	for (k = 0; k < in->t->n_children; k++)
		if (in->t->child[k].ep.ip == x->pi->src_ip &&
		    in->t->child[k].port == acis_meta(x->m)->in_port)
			break;
	if (k == in->t->n_children)
		return;
	if (h->status == ACIS_S_OK)
		in->acked |= 1u << k;
	else
		in->failed |= 1u << k;
	install_settle(x, in);
}

static void
assembly_end(struct acis_tree_assembly *a)
{
	free(a->seen);
	free(a->eps);
	memset(a, 0, sizeof(*a));
}

/* The INSTALL being received for (root_ip, h's comm), made if new; NULL
 * when there is no room. */
static struct acis_tree_assembly *
assembly_of(uint32_t root_ip, const struct acis_hdr *h, const uint8_t *mac,
	    uint64_t now)
{
	struct acis_tree_ctl *tc = g_sw.coll.tctl;
	struct acis_tree_assembly *a = NULL;
	unsigned int i;

	for (i = 0; i < ACIS_TREE_ASSEMBLIES; i++) {
		if (tc->as[i].used && tc->as[i].root_ip == root_ip &&
		    tc->as[i].ctx == h->comm)
			return &tc->as[i];
		if (!tc->as[i].used && a == NULL)
			a = &tc->as[i];
	}
	if (a == NULL)
		return NULL;
	a->seen = calloc(h->msg_size / 64 + 1, sizeof(uint64_t));
	a->eps = calloc(h->root, sizeof(*a->eps));
	if (a->seen == NULL || a->eps == NULL) {
		assembly_end(a);
		return NULL;
	}
	a->used = 1;
	a->root_ip = root_ip;
	a->ctx = h->comm;
	a->job = h->job;
	a->size = h->root;
	a->total = (uint32_t)h->msg_size;
	memcpy(a->root_mac, mac, 6);
	a->since = now;
	return a;
}

/* Below the root: every entry of an INSTALL is in. Each rank is found
 * behind a port (the L2 table learned it from the rank's JOIN); the
 * links with ranks behind them are children, sent the INSTALL in turn;
 * once they answer, so does this switch. */
static void
install_below(struct cctx *x, struct acis_tree_assembly *a,
	      const struct acis_endpoint *from)
{
	uint16_t up = from->port, *port;
	uint32_t r, now = acis_now_sec();
	struct acis_tree_install *in;
	struct acis_tree *t = NULL;
	uint16_t status = ACIS_S_OK;

	port = malloc((size_t)a->size * sizeof(*port));
	if (port == NULL) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_FULL, &x->h);
		return;
	}
	for (r = 0; r < a->size && status == ACIS_S_OK; r++) {
		int p;

		port[r] = ACIS_TREE_NO_PORT;
		if (!a->eps[r].valid)
			continue;
		p = acis_l2_lookup(g_sw.l2, a->eps[r].mac, now);
		if (p < 0 || p == up)
			status = ACIS_S_BAD_ARGS; /* not behind this switch */
		else
			port[r] = a->eps[r].port = (uint16_t)p;
	}
	if (status == ACIS_S_OK)
		t = acis_tree_build(a->ctx, a->job, a->size, port,
				    g_sw.coll.links & ~(1ull << up), a->eps);
	free(port);
	if (t == NULL) {
		x->st->installs_refused++;
		answer(x, from, ACIS_T_CTRL_ACK,
		       status == ACIS_S_OK ? ACIS_S_FULL : status, &x->h);
		return;
	}
	t->root_ip = a->root_ip;
	memcpy(t->root_mac, a->root_mac, 6);
	t->up.valid = 1;
	t->up.ip = a->root_ip;
	memcpy(t->up.mac, a->root_mac, 6); /* partials look like any DATA */
	t->up.port = up;
	t->up.udp_port = htons(g_sw.ccfg.udp_port);
	if (t->n_children == 0) {
		if (acis_tree_add(g_sw.coll.trees, t) != 0) {
			acis_tree_free(t);
			status = ACIS_S_FULL;
			x->st->installs_refused++;
		} else {
			x->st->installs_taken++;
		}
		answer(x, from, ACIS_T_CTRL_ACK, status, &x->h);
		return;
	}
	in = install_new();
	if (in == NULL) {
		acis_tree_free(t);
		x->st->installs_refused++;
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_FULL, &x->h);
		return;
	}
	in->below = 1;
	in->eps = a->eps;
	a->eps = NULL;
	in->h = x->h;
	in->parent = *from;
	install_start(x, in, t);
}

/* A parent's CTRL INSTALL: one frame of a tree's entries, or (no
 * entries) the tree's removal. */
static void
ctrl_install(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	uint32_t root_ip = htonl(h->rank), n, i;
	struct acis_tree_assembly *a;
	struct acis_endpoint from;
	struct acis_tree *t;

	sender_ep(x, &from);
	memset(from.auth, 0, sizeof(from.auth));
	if (g_sw.coll.trees == NULL) {
		/* fold = off, or no fabric link: the parent lets this
		 * switch forward */
		answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, h);
		return;
	}
	if (h->msg_size == 0) {
		t = (struct acis_tree *)(uintptr_t)acis_tree_find(
			g_sw.coll.trees, root_ip, h->comm);
		if (t != NULL && !t->is_root && t->up.port == from.port &&
		    acis_tree_remove(g_sw.coll.trees, root_ip, h->comm) != NULL)
			tree_retire(x, t);
		return;
	}
	n = h->payload_len / ACIS_TREE_ENTRY_LEN;
	if (root_ip == 0 || h->root == 0 || h->root > g_sw.pl->max_ranks ||
	    h->msg_size > h->root || n == 0 ||
	    h->payload_len % ACIS_TREE_ENTRY_LEN != 0 ||
	    h->chunk >= h->msg_size || h->msg_size - h->chunk < n ||
	    from.port >= 64) {
		x->st->installs_refused++;
		answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, h);
		return;
	}
	if (acis_tree_find(g_sw.coll.trees, root_ip, h->comm) != NULL) {
		/* a repeat: the answer was lost */
		answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_OK, h);
		return;
	}
	if (install_find(root_ip, h->comm) != NULL)
		return; /* its children are still answering */
	a = assembly_of(root_ip, h, msg_auth(x), x->now);
	if (a == NULL) {
		x->st->installs_refused++;
		answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_FULL, h);
		return;
	}
	if (a->size != h->root || a->total != h->msg_size ||
	    a->job != h->job) {
		assembly_end(a);
		x->st->installs_refused++;
		answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, h);
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t idx = h->chunk + i;
		struct acis_endpoint ep;
		uint32_t r = acis_tree_entry_get(
			x->payload + i * ACIS_TREE_ENTRY_LEN, &ep);

		if (r >= a->size) {
			assembly_end(a);
			x->st->installs_refused++;
			answer(x, &from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, h);
			return;
		}
		if (a->seen[idx >> 6] >> (idx & 63) & 1)
			continue;
		a->seen[idx >> 6] |= 1ull << (idx & 63);
		a->got++;
		a->eps[r] = ep;
	}
	if (a->got < a->total)
		return;
	install_below(x, a, &from);
	assembly_end(a);
}

struct gone {
	uint32_t n;
	uint32_t ctx[64];
};

static void
root_tree_gone(const struct acis_tree *t, void *arg)
{
	struct gone *g = arg;
	const struct acis_comm *c;

	if (!t->is_root || g->n == RTE_DIM(g->ctx))
		return;
	c = acis_ct_lookup(g_sw.coll.ct, t->ctx);
	if (c == NULL || c->job != t->job)
		g->ctx[g->n++] = t->ctx;
}

/* Worker 0's timers of the fabric's trees, under the control lock:
 * unanswered INSTALLs again (children given up on after their tries),
 * INSTALLs whose frames stopped, and the trees of this switch's
 * communicators that are gone (freed, or their job ended): removed,
 * their children told. */
/*
 * A communicator made through management (acisctl comm-create): its tree
 * as a split's would be, with no answers waiting for it; the request
 * ends when the install settles (or at once, when none is needed).
 */
static void
tree_mgmt_start(struct cctx *x, struct acis_tree_ctl *tc)
{
	const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct, tc->req_ctx);
	struct acis_tree_install *in;
	struct acis_hdr h;

	if (c == NULL || g_sw.coll.trees == NULL) {
		tc->req = 0;
		return;
	}
	memset(&h, 0, sizeof(h));
	h.job = c->job;
	h.comm = c->id; /* not a world: settling answers no one */
	if (!tree_root_install(x, c, &h, NULL) ||
	    (in = install_find(g_sw.ccfg.ip, c->id)) == NULL) {
		tc->req = 0;
		return;
	}
	in->mgmt = 1;
	tc->req = 2;
}

static void
tree_timers(struct cctx *x, uint64_t now)
{
	struct acis_tree_ctl *tc = g_sw.coll.tctl;
	uint64_t ms = g_sw.tsc_hz / 1000;
	struct gone g = {0};
	unsigned int i;
	uint32_t k;

	tc->next_check = now + 10 * ms;
	if (tc->req == 1)
		tree_mgmt_start(x, tc);
	for (i = 0; i < ACIS_TREE_INSTALLS; i++) {
		struct acis_tree_install *in = &tc->in[i];
		uint32_t all;

		if (!in->used || now < in->next_tsc)
			continue;
		all = in->t->n_children >= 32 ? UINT32_MAX :
			(1u << in->t->n_children) - 1;
		if (++in->tries >= INSTALL_TRIES) {
			in->failed |= all & ~in->acked;
			install_settle(x, in);
			continue;
		}
		for (k = 0; k < in->t->n_children; k++)
			if (!((in->acked | in->failed) >> k & 1))
				install_send(x, in->t, k, in->eps);
		in->next_tsc = now + INSTALL_RESEND_MS * ms;
	}
	for (i = 0; i < ACIS_TREE_ASSEMBLIES; i++)
		if (tc->as[i].used &&
		    now - tc->as[i].since > ASSEMBLY_KEEP_S * g_sw.tsc_hz)
			assembly_end(&tc->as[i]);
	acis_tree_foreach(g_sw.coll.trees, root_tree_gone, &g);
	for (i = 0; i < g.n; i++) {
		struct acis_tree *t = acis_tree_remove(g_sw.coll.trees,
						       g_sw.ccfg.ip, g.ctx[i]);

		if (t != NULL)
			tree_retire(x, t);
	}
}

/* Whether the CTRL comes from rank h.rank of its job, at that rank's
 * address: else answered (NO_JOB, NOT_MEMBER) and 0. */
static int
from_job_rank(struct cctx *x, const struct acis_endpoint *from)
{
	const struct acis_job *j = acis_ct_job(g_sw.coll.ct, x->h.job);

	if (j == NULL) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NO_JOB, &x->h);
		return 0;
	}
	if (x->h.rank >= j->size ||
	    acis_ep_sender(&j->ep[x->h.rank], from->ip, from->udp_port,
			   from->auth) != 1) {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_NOT_MEMBER, &x->h);
		return 0;
	}
	return 1;
}

/*
 * OP_CREATE (doc/collectives.md, "User-defined operators"): a rank's
 * user op, its name and program in the payload. The CTRL_ACK carries the
 * op's number; a program the CGRA's loader refuses is answered
 * BAD_ARGS with the loader's message, naming the op, as payload.
 */
static void
ctrl_op_create(struct cctx *x, const struct acis_endpoint *from)
{
	uint32_t words[ACIS_OP_WORDS_MAX];
	struct acis_hdr h = x->h;
	char name[ACIS_OP_NAME_LEN], err[200] = "";
	uint32_t i, n = (uint32_t)h.msg_size;
	int rc;

	if (!from_job_rank(x, from))
		return;
	if (h.msg_size == 0 || h.msg_size > ACIS_OP_WORDS_MAX ||
	    h.payload_len != ACIS_OP_NAME_LEN + 4 * n ||
	    memchr(x->payload, '\0', ACIS_OP_NAME_LEN) == NULL ||
	    x->payload[0] == '\0') {
		answer(x, from, ACIS_T_CTRL_ACK, ACIS_S_BAD_ARGS, &h);
		return;
	}
	memcpy(name, x->payload, ACIS_OP_NAME_LEN);
	for (i = 0; i < n; i++)
		words[i] = rte_le_to_cpu_32(*(const unaligned_uint32_t *)
					    (x->payload + ACIS_OP_NAME_LEN +
					     4 * i));
	rc = acis_userop_sw_create(h.job, h.rank, h.seq, name, h.root != 0,
				   words, n, err, sizeof(err));
	h.type = ACIS_T_CTRL_ACK;
	h.payload_len = 0;
	h.hdr_len = ACIS_HDR_LEN;
	h.contributors = 0;
	if (rc < 0) {
		h.status = rc == -EINVAL ? ACIS_S_BAD_ARGS : ACIS_S_NO_OP;
		h.payload_len = (uint16_t)strnlen(err, sizeof(err));
		if (emit(x, from, &h, err, h.payload_len) != NULL)
			x->st->ctrl_acks++;
		return;
	}
	h.op = (uint8_t)rc;
	h.status = ACIS_S_OK;
	if (emit(x, from, &h, NULL, 0) != NULL)
		x->st->ctrl_acks++;
}

/* OP_FREE: a rank is done with user op h.op. */
static void
ctrl_op_free(struct cctx *x, const struct acis_endpoint *from)
{
	if (!from_job_rank(x, from))
		return;
	answer(x, from, ACIS_T_CTRL_ACK,
	       acis_userop_sw_free(x->h.job, x->h.rank, x->h.seq,
				   x->h.op) == 0 ? ACIS_S_OK :
							   ACIS_S_NO_OP,
	       &x->h);
}

static void
handle_ctrl(struct cctx *x)
{
	struct acis_endpoint from;

	sender_ep(x, &from);
	x->st->ctrl++;
	rte_spinlock_lock(&g_sw.coll.lock);
	if (x->h.opcode == ACIS_CTRL_INSTALL) {
		/* switch to switch: no member, no cookie */
		ctrl_install(x);
		rte_spinlock_unlock(&g_sw.coll.lock);
		acis_frame_free(x->m);
		return;
	}
	if (unlikely(forged_ctrl(x, &from))) {
		rte_spinlock_unlock(&g_sw.coll.lock);
		drop(x, x->m, ACIS_DROP_ACIS_BAD_AUTH);
		return;
	}
	switch (x->h.opcode) {
	case ACIS_CTRL_JOIN:
		ctrl_join(x, &from);
		break;
	case ACIS_CTRL_LEAVE: {
		uint16_t status;
		struct acis_hdr h = x->h;

		acis_ct_leave(g_sw.coll.ct, h.job, h.rank, &from, &status);
		answer(x, &from, ACIS_T_CTRL_ACK, status, &h);
		break;
	}
	case ACIS_CTRL_SPLIT:
		ctrl_split(x, &from);
		break;
	case ACIS_CTRL_COMM_FREE:
		ctrl_free(x, &from);
		break;
	case ACIS_CTRL_COMM_QUERY:
		ctrl_query(x, &from);
		break;
	case ACIS_CTRL_DEADLINE:
		ctrl_deadline(x, &from);
		break;
	case ACIS_CTRL_SSP:
		ctrl_ssp(x, &from);
		break;
	case ACIS_CTRL_OP_CREATE:
		ctrl_op_create(x, &from);
		break;
	case ACIS_CTRL_OP_FREE:
		ctrl_op_free(x, &from);
		break;
	}
	rte_spinlock_unlock(&g_sw.coll.lock);
	acis_frame_free(x->m);
}

/* ------------------------------------------------------------------ */
/* Answers                                                              */
/* ------------------------------------------------------------------ */

static inline int
is_packed(unsigned int coll, uint32_t size, uint64_t msg_size,
	  uint32_t chunk_size)
{
	return (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER) &&
	       (uint64_t)size * msg_size <= chunk_size &&
	       (uint64_t)size * msg_size <= g_sw.coll.max_payload;
}

static void
slot_hdr(const struct acis_slot *s, struct acis_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = ACIS_PROTO_VERSION;
	h->opcode = s->opcode;
	h->dtype = s->dtype;
	h->op = s->op;
	h->hdr_len = ACIS_HDR_LEN;
	h->job = s->job;
	h->comm = s->key.ctx;
	h->seq = s->key.seq;
	h->root = s->root;
	h->msg_size = s->msg_size;
	h->chunk_size = s->chunk_size;
	h->contributors = (uint16_t)RTE_MIN(s->arrived, (uint32_t)UINT16_MAX);
}

/* The payload a folded slot's partial and results carry (a barrier's:
 * none). */
static inline uint16_t
tree_len(const struct acis_slot *s)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	if (coll == ACIS_C_BARRIER)
		return 0;
	if (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER)
		return (uint16_t)(s->size * s->msg_size); /* packed */
	return s->payload_len;
}

/* The one rank a completed slot's result is for (reduce, gather: the
 * root; reduce_scatter: the block's), or ACIS_RANK_NONE: every member.
 * A child switch without it below gets the result's header alone (its
 * members are owed ACKs). */
static inline uint32_t
result_receiver(const struct acis_slot *s)
{
	switch (ACIS_OPCODE_COLL(s->opcode)) {
	case ACIS_C_REDUCE:
	case ACIS_C_GATHER:
		return s->root;
	case ACIS_C_REDUCE_SCATTER:
		return (uint32_t)(s->key.chunk /
				  acis_n_chunks(s->msg_size, s->chunk_size));
	default:
		return ACIS_RANK_NONE;
	}
}

/* The payload tree t's child k (or, k ACIS_TREE_LOCAL, this switch's
 * own subtree) is owed of slot s's result. */
static inline uint16_t
tree_len_for(const struct acis_tree *t, const struct acis_slot *s, uint32_t k)
{
	uint32_t r = result_receiver(s);

	if (r != ACIS_RANK_NONE && r < t->size &&
	    (k == ACIS_TREE_LOCAL ? t->child_of[r] == ACIS_TREE_ABSENT :
				    t->child_of[r] != k))
		return 0;
	return tree_len(s);
}

/* Write slot s's finished result (len bytes) at dst: from *first when a
 * frame of this fan-out has it, else finished from the accumulator (or
 * as it is, when it came finished from the parent: s->wire). */
static inline void
tree_fill(const struct acis_slot *s, uint8_t *dst, uint16_t len,
	  const uint8_t **first)
{
	if (len == 0)
		return;
	if (first != NULL && *first != NULL) {
		memcpy(dst, *first, len);
		return;
	}
	if (s->wire || !acis_coll_folds(s->opcode)) /* (packed gathers) */
		memcpy(dst, s->acc, len);
	else
		acis_reduce_finish(s->dtype, dst, s->acc,
				   len / acis_dtype_size(s->dtype));
	if (first != NULL)
		*first = dst;
}

/*
 * Below the root: slot s has every contribution of this switch's
 * subtree; one DATA goes up, flagged PARTIAL, from this switch's address
 * to the root's, standing for every rank of the subtree (rank = the
 * lowest, contributors = how many). again: its result is late (a
 * member repeated its DATA, or the resend interval passed): the partial
 * goes again, flagged RETRANS. Until the result comes the sweep sends
 * it again every resend interval, so a partial lost on a link, or
 * refused by a parent short of room, is not left to the members'
 * back-off.
 */
static void
tree_send_up(struct cctx *x, struct acis_slot *s, int again)
{
	const struct acis_tree *t = x->t;
	uint16_t len = tree_len(s);
	struct acis_hdr h;
	uint8_t *dst;

	slot_hdr(s, &h);
	h.type = ACIS_T_DATA;
	h.flags = ACIS_F_PARTIAL | (again ? ACIS_F_RETRANS : 0);
	h.rank = t->first;
	h.chunk = s->key.chunk;
	h.payload_len = len;
	h.contributors = (uint16_t)RTE_MIN(t->covered, (uint32_t)UINT16_MAX);
	s->sent_up = 1; /* owed up from now on */
	s->resend_tsc = x->now + g_sw.coll.resend_tsc;
	x->src_ip = g_sw.ccfg.ip;
	dst = emit(x, &t->up, &h, NULL, len);
	x->src_ip = t->root_ip;
	if (dst == NULL)
		return; /* the sweep sends it */
	tree_fill(s, dst, len, NULL);
	x->st->partials_up++;
	x->st->partials_resent += again;
}

/* Slot s's result to child k of the tree: one RESULT, flagged PARTIAL,
 * from the root's address, that the child sends on to its members and
 * children. 1, or -1 when no mbuf was free. */
static int
tree_send_down(struct cctx *x, struct acis_slot *s, uint32_t k,
	       const uint8_t **first)
{
	const struct acis_tree_child *ch = &x->t->child[k];
	uint16_t len = tree_len_for(x->t, s, k);
	struct acis_hdr h;
	uint8_t *dst;
	uint32_t src = x->src_ip;
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	slot_hdr(s, &h);
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PARTIAL;
	if (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER)
		h.flags |= ACIS_F_PACKED; /* every rank's block */
	h.rank = ch->leader;
	h.chunk = s->key.chunk;
	h.payload_len = len;
	h.contributors = (uint16_t)RTE_MIN(ch->count, (uint32_t)UINT16_MAX);
	x->src_ip = x->t->root_ip;
	dst = emit(x, &ch->ep, &h, NULL, len);
	x->src_ip = src;
	if (dst == NULL)
		return -1;
	/* (the cached finished result is the whole one: only then) */
	tree_fill(s, dst, len, len == tree_len(s) ? first : NULL);
	x->st->results_down++;
	return 1;
}

static uint32_t wire_chunk(const struct acis_slot *s);

/* Forwarded block s (bcast, allgather) to child k of the tree: one
 * RESULT flagged PARTIAL, from the root's address (`rank` the block's
 * sender, `chunk` the wire's), that the child sends on to its members
 * and children. 1, or -1 when no mbuf was free. */
static int
tree_relay_down(struct cctx *x, struct acis_slot *s, uint32_t k)
{
	const struct acis_tree_child *ch = &x->t->child[k];
	struct acis_hdr h;
	uint32_t src = x->src_ip;
	uint8_t *dst;

	slot_hdr(s, &h);
	h.type = ACIS_T_RESULT;
	h.flags = ACIS_F_PARTIAL;
	h.rank = s->src;
	h.chunk = wire_chunk(s);
	h.payload_len = s->payload_len;
	h.contributors = (uint16_t)RTE_MIN(ch->count, (uint32_t)UINT16_MAX);
	x->src_ip = x->t->root_ip;
	dst = emit(x, &ch->ep, &h, s->acc, s->payload_len);
	x->src_ip = src;
	if (dst == NULL)
		return -1;
	x->st->results_down++;
	return 1;
}

/*
 * Send rank r what it is owed for the completed slot s: a RESULT, an ACK,
 * or nothing. The same function answers at completion, and again when a
 * rank retransmits or asks for a resend, so a lost answer is recovered
 * from the slot's kept result. *first caches the finished payload of this
 * completion (reductions finish once and copy). 1 when an answer went
 * (an ACK: joined its batch), 0 when r is owed nothing, -1 when no mbuf
 * was free.
 */
static int
send_answer(struct cctx *x, const struct acis_comm *c, struct acis_slot *s,
	    uint32_t r, const uint8_t **first)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);
	uint64_t cpr = acis_n_chunks(s->msg_size, s->chunk_size);
	uint32_t key = s->key.chunk, blk = r, chunk = key;
	int packed = is_packed(coll, s->size, s->msg_size, s->chunk_size);
	int result = 0, ack = 0, reduced = 0;
	uint16_t len = s->payload_len;
	struct acis_hdr h;
	uint8_t *dst;

	if (x->t != NULL && !x->direct) {
		/* through the tree: a child's ranks get one result, sent
		 * to the child for its leader; ranks outside this
		 * switch's subtree nothing */
		uint32_t k = x->t->child_of[r];

		if (k == ACIS_TREE_ABSENT)
			return 0;
		if (k != ACIS_TREE_LOCAL) {
			const struct acis_tree_child *ch = &x->t->child[k];

			if (s->forwarding) /* one copy, for its first receiver */
				return r == (ch->ranks[0] != s->src ? ch->ranks[0] :
					     ch->count > 1 ? ch->ranks[1] :
					     UINT32_MAX) ?
					       tree_relay_down(x, s, k) : 0;
			return r == ch->leader ?
				       tree_send_down(x, s, k, first) : 0;
		}
	}
	slot_hdr(s, &h);
	switch (coll) {
	case ACIS_C_ALLREDUCE:
		result = reduced = 1;
		h.flags |= ACIS_F_MULTICAST;
		break;
	case ACIS_C_BARRIER:
		result = 1;
		len = 0;
		h.flags |= ACIS_F_MULTICAST;
		break;
	case ACIS_C_REDUCE:
		result = reduced = r == s->root;
		ack = !result;
		break;
	case ACIS_C_REDUCE_SCATTER:
		if (r == key / cpr) {
			result = reduced = 1;
			blk = r;
			chunk = (uint32_t)(key % cpr);
		} else {
			ack = 1;
		}
		break;
	case ACIS_C_BCAST:
		ack = r == s->root;
		result = !ack;
		break;
	case ACIS_C_SCATTER:
		if (r == s->root) {
			ack = 1;
		} else if (r == key / cpr) {
			result = 1;
			chunk = (uint32_t)(key % cpr);
		}
		break;
	case ACIS_C_ALLTOALL: {
		/* key: (sender * P + receiver) * cpr + chunk */
		uint64_t pair = key / cpr;

		chunk = (uint32_t)(key % cpr);
		if (r == pair / s->size) {
			ack = 1; /* the sender: its wire chunk */
			chunk = (uint32_t)(pair % s->size * cpr + chunk);
		} else if (r == pair % s->size) {
			result = 1;
			blk = (uint32_t)(pair / s->size);
		}
		break;
	}
	case ACIS_C_GATHER:
	case ACIS_C_ALLGATHER:
		if (packed) {
			if (coll == ACIS_C_GATHER && r != s->root) {
				ack = 1;
				chunk = 0;
				break;
			}
			result = 1;
			len = (uint16_t)(s->size * s->msg_size);
			blk = ACIS_RANK_NONE;
			chunk = 0;
			h.flags |= ACIS_F_PACKED;
			if (coll == ACIS_C_ALLGATHER)
				h.flags |= ACIS_F_MULTICAST;
			break;
		}
		chunk = (uint32_t)(key % cpr);
		blk = (uint32_t)(key / cpr);
		if (r == blk)
			ack = 1;
		else if (coll == ACIS_C_ALLGATHER || r == s->root)
			result = 1;
		break;
	}
	if (ack) {
		h.type = ACIS_T_ACK;
		h.rank = r;
		h.chunk = chunk;
		h.payload_len = 0;
		ack_defer(x, c, r, &h, s->chunk_size / 4);
		return 1;
	}
	if (!result)
		return 0;
	if (s->wire)
		reduced = 0; /* finished by the root already */
	h.type = ACIS_T_RESULT;
	h.rank = blk;
	h.chunk = chunk;
	h.payload_len = len;
	/* behind a port that sends chained frames, the payload is a
	 * segment shared with the slot (lent) or the completion's others */
	if (len != 0 && (g_sw.chain_ports >> acis_comm_ep(c, r)->port & 1) &&
	    (x->fanout || (s->acc_buf != NULL && s->size <= SHARE_MAX))) {
		if (emit_shared(x, acis_comm_ep(c, r), &h, s, len, reduced) != 0)
			return -1;
		x->st->results++;
		x->st->results_shared++;
		return 1;
	}
	if (!reduced) {
		if (emit(x, acis_comm_ep(c, r), &h, len ? s->acc : NULL,
			 len) == NULL)
			return -1;
		x->st->results++;
		return 1;
	}
	dst = emit(x, acis_comm_ep(c, r), &h, first ? *first : NULL, len);
	if (dst == NULL)
		return -1;
	x->st->results++;
	if (first == NULL || *first == NULL) {
		acis_reduce_finish(s->dtype, dst, s->acc,
				   len / acis_dtype_size(s->dtype));
		if (first != NULL)
			*first = dst;
	}
	return 1;
}

/* Whether a completion's answers can share one payload segment: the
 * completions that send every member the same bytes (allreduce, packed
 * allgather), to two or more members (at most SHARE_MAX); each member
 * behind a port that sends chained frames takes it. (A bcast block is
 * forwarded, not completed: handle_forward.) */
static int
fanout_ok(const struct acis_slot *s)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	return s->size >= 2 && s->size <= SHARE_MAX &&
	       (coll == ACIS_C_ALLREDUCE ||
		(coll == ACIS_C_ALLGATHER &&
		 is_packed(coll, s->size, s->msg_size, s->chunk_size)));
}

/* The end of a pass over a completion's members: their frames take
 * their references to the shared payload in one update. */
static void
fanout_end(struct cctx *x, struct acis_slot *s)
{
	if (x->chained != 0) { /* every member's frame chains the payload */
		rte_mbuf_refcnt_update(s->acc_buf != NULL ? s->acc_buf :
				       x->shared, (int16_t)x->chained);
		x->chained = 0;
	}
	if (x->shared != NULL) {
		acis_frame_free(x->shared); /* the members' frames hold it */
		x->shared = NULL;
	}
	x->fanout = 0;
}

/* What the memory of closed slots keeps about one (acis_agg_remember). */
#define CLOSED_FORWARDED 0x01 /* a forwarded block: its sender was ACKed */
#define CLOSED_LINGERED 0x02  /* freed before every member confirmed */
#define CLOSED_TREE 0x04      /* below a tree's root: the result went on */

/* Every member has what it is owed: free the slot, and remember its key so
 * a late copy of one of its messages is not taken for a new one. */
static void
close_delivered(struct acis_agg *agg, struct acis_slot *s)
{
	acis_agg_remember(agg, &s->key, s->forwarding ? CLOSED_FORWARDED : 0,
			  rte_rdtsc());
	acis_agg_close(agg, s, ACIS_SLOT_DELIVERED);
}

/* Wire chunk index of the contribution a rank made to slot s: the slot key,
 * except for large gathers, whose key also names the block. */
static uint32_t
wire_chunk(const struct acis_slot *s)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	if (s->forwarding && (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER))
		return (uint32_t)(s->key.chunk %
				  acis_n_chunks(s->msg_size, s->chunk_size));
	if (coll == ACIS_C_ALLTOALL) /* the key also names the sender */
		return (uint32_t)(s->key.chunk %
				  ((uint64_t)s->size *
				   acis_n_chunks(s->msg_size, s->chunk_size)));
	return s->key.chunk;
}

/* Has rank r confirmed its answer of slot s? */
static inline int
confirmed(const struct acis_slot *s, uint32_t r)
{
	return (s->done_map[r >> 6] >> (r & 63)) & 1;
}

/* ------------------------------------------------------------------ */
/* Data                                                                 */
/* ------------------------------------------------------------------ */

static inline const uint8_t *
payload_of(struct rte_mbuf *m)
{
	struct acis_mbuf_meta *mt = acis_meta(m);

	return rte_pktmbuf_mtod(m, const uint8_t *) + mt->pi.payload_off +
	       ACIS_HDR_LEN;
}

/*
 * Let slot s keep its bytes in m, the frame whose payload is at src,
 * instead of a copy in the pool: the payload becomes the mbuf's only data,
 * so answers chain it behind their headers as it is (emit_shared), and the
 * slot gives it back when it closes. Only a direct, unshared, one-segment
 * mbuf, and while the worker's slots hold fewer than their share of the
 * pool (acis_agg_lend). 1 if lent: the slot owns m.
 */
static int
lend(struct cctx *x, struct acis_slot *s, struct rte_mbuf *m,
     const uint8_t *src)
{
	if (!acis_frame_plain(m) ||
	    !acis_agg_lend(x->agg, s, m, (uint8_t *)(uintptr_t)src))
		return 0;
	m->data_off += (uint16_t)(src - rte_pktmbuf_mtod(m, const uint8_t *));
	m->data_len = s->payload_len;
	m->pkt_len = s->payload_len;
	x->st->zero_copy++;
	return 1;
}

/* A user op's fold (userop.h), in rank order: on failure the slot's
 * fail_status says so and x->op_err why (op_fail answers it). */
static void
user_fold(struct cctx *x, struct acis_slot *s, const uint8_t *src)
{
	struct acis_userop_entry *e =
		acis_userop_sw_get(g_sw.coll.userops, s->op, s->job);
	unsigned int w = (unsigned int)x->lc->worker_index;

	if (s->fail_status != 0)
		return;
	if (e == NULL) {
		snprintf(x->op_err, sizeof(x->op_err), "op %u: freed while a "
			 "collective used it", s->op);
	} else if (acis_userop_sw_fold(e, w, s->acc, src,
				       s->payload_len) != 0) {
		snprintf(x->op_err, sizeof(x->op_err), "%s",
			 e->last_error[w]);
	} else {
		return;
	}
	s->fail_status = ACIS_S_OP_FAULT;
}

/* Fold contribution m (payload at src) into slot s. The first becomes the
 * accumulator in place when it has the accumulator's width (every datatype
 * but float16 and bfloat16, which widen): no copy in, none out. 1 if the
 * slot kept m, else the caller frees it. */
static inline int
fold_in(struct cctx *x, struct acis_slot *s, struct rte_mbuf *m,
	const uint8_t *src)
{
	size_t n = s->payload_len / acis_dtype_size(s->dtype);
	int kept = 0;

	if (s->folded != 0 && unlikely(s->op >= ACIS_OP_USER_MIN))
		user_fold(x, s, src);
	else if (s->folded != 0)
		acis_reduce_fold(s->dtype, s->op, s->acc, src, n);
	else if (acis_acc_size(s->dtype) == acis_dtype_size(s->dtype) &&
		 lend(x, s, m, src))
		kept = 1;
	else
		acis_reduce_init(s->dtype, s->acc, src, n);
	s->folded++;
	return kept;
}

/* The contribution due after rank r's: rank order, or in a fabric's
 * tree the next unit in tree order (a child's partial stands for every
 * rank behind it). */
static inline uint32_t
next_unit(const struct cctx *x, uint32_t r)
{
	return x->t != NULL ? x->t->next[r] : r + 1;
}

/* Contributions slot s completes with: P, or the ranks of this switch's
 * subtree. */
static inline uint32_t
expected(const struct cctx *x, const struct acis_slot *s)
{
	return x->t != NULL ? x->t->covered : s->size;
}

/* Mark every rank behind child k as contributed (its partial): 1, or 0
 * if its partial was in already. */
static int
tree_mark(struct acis_slot *s, const struct acis_tree_child *ch)
{
	uint32_t i;

	if (acis_slot_has(s, ch->leader))
		return 0;
	for (i = 0; i < ch->count; i++)
		acis_slot_mark(s, ch->ranks[i]);
	return 1;
}

/* Fold held contributions whose turn has come (rank order, or tree
 * order). */
static void
fold_held(struct cctx *x, struct acis_slot *s)
{
	struct rte_mbuf *m = s->held;

	while (m != NULL && acis_meta(m)->hold_rank == s->next_rank &&
	       s->fail_status == 0) {
		struct rte_mbuf *next = acis_meta(m)->hold_next;

		s->next_rank = next_unit(x, s->next_rank);
		s->n_held--;
		x->st->held--;
		if (!fold_in(x, s, m, payload_of(m)))
			acis_frame_free(m);
		m = next;
	}
	s->held = m;
}

static void
hold(struct cctx *x, struct acis_slot *s, struct rte_mbuf *m, uint32_t rank)
{
	struct rte_mbuf **pp = (struct rte_mbuf **)&s->held;

	acis_meta(m)->hold_rank = rank;
	while (*pp != NULL && acis_meta(*pp)->hold_rank < rank)
		pp = &acis_meta(*pp)->hold_next;
	acis_meta(m)->hold_next = *pp;
	*pp = m;
	s->n_held++;
	x->st->held++;
	x->st->held_total++;
}

/* Send rank r's contribution to slot s back: the host sends it again
 * on NACK BUSY, as for a full slot pool. */
static void
send_back(struct cctx *x, const struct acis_comm *c, struct acis_slot *s,
	  uint32_t r)
{
	const struct acis_endpoint *ep = acis_comm_ep(c, r);
	struct acis_hdr h;
	uint32_t k = x->t != NULL ? x->t->child_of[r] : ACIS_TREE_LOCAL;

	slot_hdr(s, &h);
	h.rank = r;
	h.chunk = s->key.chunk; /* the wire chunk of a reduction */
	if (k < ACIS_TREE_ABSENT) {
		/* a child's partial: the child sends it again when its
		 * members repeat theirs (the NACK tells it nothing more) */
		uint32_t i;

		for (i = 0; i < x->t->child[k].count; i++)
			acis_slot_unmark(s, x->t->child[k].ranks[i]);
		x->st->held_refused++;
		return;
	}
	acis_slot_unmark(s, r);
	answer(x, ep, ACIS_T_NACK, ACIS_S_BUSY, &h);
	x->st->held_refused++;
}

/*
 * Room to hold rank's early contribution to slot s: under the worker's
 * share of held contributions (hold_max), or made by sending back the
 * highest rank this slot holds, when that is above rank: the lowest
 * ranks are folded first, so the held ones are those whose turn comes
 * soonest, and a communicator of any size completes in rounds of the
 * hosts' BUSY back-off however its contributions arrive. 0 when there is
 * none: rank's own contribution is sent back.
 */
static int
hold_room(struct cctx *x, const struct acis_comm *c, struct acis_slot *s,
	  uint32_t rank)
{
	struct rte_mbuf **pp = (struct rte_mbuf **)&s->held, *m;

	if (likely(x->st->held < g_sw.hold_max))
		return 1;
	if (*pp == NULL)
		return 0;
	while (acis_meta(*pp)->hold_next != NULL) /* sorted: the last */
		pp = &acis_meta(*pp)->hold_next;
	m = *pp;
	if (acis_meta(m)->hold_rank < rank)
		return 0;
	*pp = NULL;
	s->n_held--;
	x->st->held--;
	send_back(x, c, s, acis_meta(m)->hold_rank);
	drop(x, m, ACIS_DROP_ACIS_BUSY);
	return 1;
}

static void
release_held(struct acis_coll_stats *st, struct acis_slot *s)
{
	struct rte_mbuf *m = s->held;

	while (m != NULL) {
		struct rte_mbuf *next = acis_meta(m)->hold_next;

		acis_frame_free(m);
		st->held--;
		m = next;
	}
	s->held = NULL;
	s->n_held = 0;
}

static int
agrees(const struct acis_slot *s, const struct acis_hdr *h)
{
	return s->opcode == h->opcode && s->dtype == h->dtype &&
	       s->op == h->op && s->root == h->root &&
	       s->msg_size == h->msg_size && s->chunk_size == h->chunk_size &&
	       s->payload_len == h->payload_len;
}

static struct acis_slot *
open_slot(struct cctx *x, const struct acis_comm *c, uint32_t key,
	  const struct acis_endpoint *from)
{
	const struct acis_hdr *h = &x->h;
	struct acis_slot_key k = {h->comm, h->seq, key};
	struct acis_slot *s;
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);

	if (unlikely(h->op >= ACIS_OP_USER_MIN) &&
	    acis_userop_sw_get(g_sw.coll.userops, h->op, h->job) == NULL) {
		/* no such op for this job */
		x->st->userop_refused++;
		answer(x, from, ACIS_T_NACK, ACIS_S_NO_OP, h);
		drop(x, x->m, ACIS_DROP_ACIS_BAD_OP);
		return NULL;
	}
	s = acis_agg_open_weighted(x->agg, &k, c->size, c->jobp->index,
				   c->jobp->weight);
	if (s == NULL) {
		if (!(h->flags & ACIS_F_PARTIAL)) /* (a child retries with
						     its members) */
			answer(x, from, ACIS_T_NACK, ACIS_S_BUSY, h);
		drop(x, x->m, ACIS_DROP_ACIS_BUSY);
		return NULL;
	}
	if (x->t != NULL) {
		s->next_rank = x->t->first;
		if (!x->t->is_root)
			s->owner = x->t->root_ip;
	}
	s->opcode = h->opcode;
	s->dtype = h->dtype;
	s->op = h->op;
	s->root = h->root;
	s->job = h->job;
	s->msg_size = h->msg_size;
	s->chunk_size = h->chunk_size;
	s->payload_len = h->payload_len;
	s->order_free = coll == ACIS_C_BARRIER ||
			(coll != ACIS_C_ALLREDUCE && coll != ACIS_C_REDUCE &&
			 coll != ACIS_C_REDUCE_SCATTER) ||
			acis_reduce_order_free(h->dtype, h->op);
	s->opened_tsc = rte_rdtsc();
	s->progress_tsc = s->opened_tsc;
	s->by_retrans = (h->flags & ACIS_F_RETRANS) != 0;
	return s;
}

/* Is rank r a receiver of forwarded slot s? */
static inline int
fwd_receiver(const struct acis_slot *s, uint32_t r)
{
	unsigned int coll = ACIS_OPCODE_COLL(s->opcode);

	switch (coll) {
	case ACIS_C_SCATTER:
		return r == s->key.chunk / acis_n_chunks(s->msg_size,
							 s->chunk_size);
	case ACIS_C_GATHER:
		return r == s->root;
	case ACIS_C_ALLTOALL:
		return r == s->key.chunk / acis_n_chunks(s->msg_size,
							 s->chunk_size) %
				    s->size;
	default: /* bcast, allgather */
		return r != s->src;
	}
}

/* The one receiver of a forwarded block that has one (scatter, gather,
 * alltoall), or UINT32_MAX: its fan-outs look at that member alone, not
 * at every member of the communicator. */
static inline uint32_t
fwd_one(const struct acis_slot *s)
{
	uint64_t cpr = acis_n_chunks(s->msg_size, s->chunk_size);

	switch (ACIS_OPCODE_COLL(s->opcode)) {
	case ACIS_C_SCATTER:
		return (uint32_t)(s->key.chunk / cpr);
	case ACIS_C_GATHER:
		return s->root;
	case ACIS_C_ALLTOALL:
		return (uint32_t)(s->key.chunk / cpr % s->size);
	default:
		return UINT32_MAX;
	}
}

/* A NACK TIMEOUT's payload fits any MTU: little-endian uint32 ranks. */
#define MISSING_MAX 350

/* The ranks slot s waited for in vain: contributors, or for a forwarded
 * block the receivers that never confirmed it. */
static uint32_t
missing_ranks(const struct acis_slot *s, uint32_t *missing)
{
	uint32_t n = 0, r;

	for (r = 0; r < s->size && n < MISSING_MAX; r++) {
		int absent = s->forwarding ?
			fwd_receiver(s, r) && !confirmed(s, r) :
			!acis_slot_has(s, r);

		if (absent)
			missing[n++] = rte_cpu_to_le_32(r);
	}
	return n;
}

/* Tell rank r that slot s failed at its deadline, naming the missing. The
 * chunk is the one rank r sent, so a host can tell which request failed.
 * 1, or -1 when no mbuf was free. */
static int
nack_timeout(struct cctx *x, const struct acis_comm *c,
	     const struct acis_slot *s, uint32_t r, const uint32_t *missing,
	     uint32_t n)
{
	struct acis_hdr h;

	slot_hdr(s, &h);
	h.type = ACIS_T_NACK;
	h.status = ACIS_S_TIMEOUT;
	h.rank = r;
	h.chunk = wire_chunk(s);
	h.payload_len = (uint16_t)(n * 4);
	if (s->fail_status != 0) {
		/* a user op's fault: its message, not the missing */
		h.status = s->fail_status;
		h.payload_len = s->fail_len;
		missing = (const uint32_t *)s->acc;
	}
	if (emit(x, acis_comm_ep(c, r), &h, missing, h.payload_len) == NULL)
		return -1;
	x->st->nacks++;
	return 1;
}

/* Does fan-out mode owe rank r of slot s an answer? */
static inline int
fan_owes(const struct acis_comm *c, const struct acis_slot *s, uint32_t r)
{
	switch (s->fan) {
	case FAN_COMPLETE:
		return 1;
	case FAN_RESEND:
		return !confirmed(s, r) && acis_comm_ep(c, r)->valid &&
		       (!s->forwarding || fwd_receiver(s, r));
	case FAN_FORWARD:
		return fwd_receiver(s, r) && !confirmed(s, r);
	case FAN_TIMEOUT:
		return acis_slot_has(s, r);
	default:
		return 0;
	}
}

/*
 * One pass of slot s's fan-out, from its cursor: the members it owes
 * their answers while this walk may send (answer_room). 1 when every
 * member has its answer, 0 when the pass stopped (the cursor keeps the
 * place: the member it stopped at is answered next).
 */
static int
fan_run(struct cctx *x, const struct acis_comm *c, struct acis_slot *s)
{
	uint32_t missing[MISSING_MAX], n_missing = UINT32_MAX, r;
	uint32_t end = s->size, one;
	const uint8_t *first = NULL;
	uint8_t direct = x->direct;
	/* a completion through a tree visits its units alone (own members,
	 * children's leaders), not every rank of the communicator: a leaf
	 * of a large communicator answers in the time of its own few */
	int units = s->fan == FAN_COMPLETE && x->t != NULL && !x->direct;
	int rc = 0;

	/* a block with one receiver owes that member alone */
	if (s->forwarding && s->fan != FAN_TIMEOUT &&
	    (one = fwd_one(s)) < s->size) {
		if (s->fan_next < one)
			s->fan_next = one;
		end = one + 1;
	}
	x->fanout = s->fan == FAN_COMPLETE && fanout_ok(s);
	/* the switch's own resends go to the members themselves, past the
	 * tree: end-to-end recovery (doc/fabric.md) */
	if (s->fan == FAN_RESEND)
		x->direct = 1;
	r = s->fan_next;
	if (units && r < end && !acis_tree_is_unit(x->t, r)) {
		/* the first unit at or after the cursor */
		uint32_t u = x->t->first;

		while (u < r)
			u = x->t->next[u];
		r = u;
	}
	for (; r < end; r = units ? x->t->next[r] : r + 1) {
		if (!fan_owes(c, s, r))
			continue;
		if (!answer_room(x, acis_comm_ep(c, r)->port))
			break;
		if (s->fan == FAN_TIMEOUT) {
			if (n_missing == UINT32_MAX) /* once a pass, if sent */
				n_missing = missing_ranks(s, missing);
			rc = nack_timeout(x, c, s, r, missing, n_missing);
		} else
			rc = send_answer(x, c, s, r,
					 s->forwarding ? NULL : &first);
		if (rc < 0)
			break;
		if (rc > 0 && s->fan == FAN_RESEND)
			x->st->answers_resent++;
		if (rc > 0 && x->late)
			x->st->answers_sent_late++;
	}
	s->fan_next = r;
	fanout_end(x, s);
	x->direct = direct;
	return r >= end;
}

/* Slot s's fan-out has reached every member it owes. Below the root, a
 * completion's is the slot's last act: its members and children have
 * the result, and a member that lost it gets it from the root itself
 * (its DATA passes on there: tree_pass_up). */
static void
fan_finished(struct cctx *x, struct acis_slot *s)
{
	uint8_t mode = s->fan;

	s->fan = FAN_NONE;
	acis_agg_unpend(x->agg, s);
	if ((mode == FAN_COMPLETE || mode == FAN_FORWARD) && s->owner != 0) {
		acis_agg_remember(x->agg, &s->key, CLOSED_TREE, x->now);
		acis_agg_close(x->agg, s, ACIS_SLOT_DELIVERED);
	}
}

/* Start answering every member slot s owes under mode (a mode already
 * running gives way to it): as many as this walk may, the rest later
 * from the table's pending list (fan_drain). */
static void
fan_start(struct cctx *x, const struct acis_comm *c, struct acis_slot *s,
	  uint8_t mode)
{
	struct acis_agg *agg = x->agg;

	s->fan = mode;
	s->fan_next = 0;
	if (fan_run(x, c, s)) {
		fan_finished(x, s);
		return;
	}
	if (!s->pending)
		x->st->fanouts_deferred++;
	acis_agg_pend(agg, s);
}

/* What earlier walks left: slots oldest first, then control answers. A
 * slot that cannot go on (its port's queue is full) goes to the back, so
 * the others still get their turn; an empty pool ends the drain. */
static void
fan_drain(struct cctx *x)
{
	struct acis_coll_shard *sh = x->lc->shard;
	struct acis_agg *tables[2] = {sh->agg, sh->tagg};
	unsigned int i;

	x->late = 1;
	for (i = 0; i < 2 && tables[i] != NULL; i++) {
		struct acis_agg *agg = tables[i];
		uint32_t n = acis_agg_pending(agg);

		while (n-- != 0 && x->lc->answer_budget > 0 && !x->nombuf) {
			struct acis_slot *s = acis_agg_pend_first(agg);
			const struct acis_comm *c = slot_scope(x, agg, s);

			if (c == NULL) {
				/* the communicator is gone (the sweep
				 * frees the slot) */
				s->fan = FAN_NONE;
				acis_agg_unpend(agg, s);
				continue;
			}
			if (fan_run(x, c, s)) {
				fan_finished(x, s);
				continue;
			}
			acis_agg_pend(agg, s);
		}
	}
	scope_own(x);
	if (x->lc->shard->ctrl_n != 0)
		ctrl_drain(x);
	ack_flush(x);
	x->late = 0;
}

/* The slot is complete: answer every member once; keep it (done) so a
 * lost answer can be sent again until every member confirms. */
static void
complete(struct cctx *x, const struct acis_comm *c, struct acis_slot *s)
{
	if (x->t == NULL && s->owner == 0)
		x->t = slot_tree(s); /* a packed gather's result goes down it */
	s->done = 1;
	s->done_tsc = rte_rdtsc();
	s->resend_tsc = s->done_tsc + g_sw.coll.resend_tsc;
	fan_start(x, c, s, FAN_COMPLETE);
	x->st->completed[ACIS_OPCODE_COLL(s->opcode)]++;
}

/*
 * bcast, scatter and large gathers: the block is kept in a slot and
 * forwarded to its receivers at once. The sender's ACK waits until every
 * receiver has confirmed it, so the sender's window is end to end and a
 * receiver that lost the block gets it again when the sender, unanswered,
 * sends it again.
 */
static void
handle_forward(struct cctx *x, const struct acis_comm *c, unsigned int coll,
	       struct acis_slot *s, uint32_t key)
{
	const struct acis_hdr *h = &x->h;
	int kept;

	if ((coll == ACIS_C_BCAST || coll == ACIS_C_SCATTER) ?
		    h->rank != h->root :
		    (coll == ACIS_C_GATHER && h->rank == h->root)) {
		/* (alltoall: any rank sends; handle_data checked the block) */
		drop(x, x->m, ACIS_DROP_ACIS_BAD_RANK);
		return;
	}
	if (s != NULL) {
		/* the sender had no ACK: send to whoever has not confirmed */
		if (!agrees(s, h) || s->src != h->rank) {
			drop(x, x->m, ACIS_DROP_ACIS_MISMATCH);
			return;
		}
		x->st->retrans_answered++;
		/* (to the receivers themselves, past any tree) */
		x->direct = 1;
		if (!s->pending) /* else its receivers are being sent it */
			fan_start(x, c, s, FAN_FORWARD);
		x->direct = 0;
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	s = open_slot(x, c, key, acis_comm_ep(c, h->rank));
	if (s == NULL)
		return;
	/* the block stays in its own frame (lend), or in a copy */
	kept = lend(x, s, x->m, x->payload);
	if (!kept)
		memcpy(s->acc, x->payload, h->payload_len);
	acis_slot_mark(s, h->rank);
	progressed(x, s);
	s->forwarding = 1;
	s->src = h->rank;
	s->resend_tsc = s->opened_tsc + g_sw.coll.resend_tsc;
	s->n_recv = coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER ||
				    coll == ACIS_C_ALLTOALL ?
			    1 : c->size - 1;
	x->st->payload_bytes += h->payload_len;
	x->st->forwarded++;
	x->t = slot_tree(s); /* one copy a link, where a tree is */
	fan_start(x, c, s, FAN_FORWARD);
	if (s->n_recv == 0) { /* a communicator of one */
		send_answer(x, c, s, s->src, NULL);
		close_delivered(x->agg, s);
	}
	if (!kept)
		acis_frame_free(x->m);
}

/*
 * A user op's program failed on slot s (x->op_err says how): the
 * collective fails for every rank. Those that contributed hear NACK
 * OP_FAULT with the message now; the others when their DATA comes (the
 * failed slot answers it, as one past its deadline).
 */
static void
op_fail(struct cctx *x, const struct acis_comm *c, struct acis_slot *s)
{
	size_t n = strnlen(x->op_err, sizeof(x->op_err) - 1);

	release_held(x->st, s);
	acis_agg_unlend(x->agg, s); /* acc is the slot's own again */
	memcpy(s->acc, x->op_err, n);
	s->fail_len = (uint8_t)n;
	s->fail_status = ACIS_S_OP_FAULT;
	x->st->userop_faults++;
	fan_start(x, c, s, FAN_TIMEOUT);
	s->failed = 1;
	s->done_tsc = rte_rdtsc();
}

static void
handle_slot(struct cctx *x, const struct acis_comm *c, struct acis_slot *s,
	    uint32_t key, int packed, const struct acis_endpoint *from)
{
	const struct acis_hdr *h = &x->h;
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);
	int partial = (h->flags & ACIS_F_PARTIAL) != 0;

	if (s == NULL) {
		s = open_slot(x, c, key, from);
		if (s == NULL)
			return;
	} else if (!agrees(s, h)) {
		answer(x, from, ACIS_T_NACK, ACIS_S_MISMATCH, h);
		drop(x, x->m, ACIS_DROP_ACIS_MISMATCH);
		return;
	}
	if (!(partial ? tree_mark(s, &x->t->child[x->t->child_of[h->rank]]) :
			acis_slot_mark(s, h->rank))) {
		/* a repeat while others are still missing: tell the sender
		 * we have it, so it backs off instead of repeating; below
		 * a tree's root, whose partial went up and whose result
		 * is late, the partial goes again */
		if (s->sent_up)
			tree_send_up(x, s, 1);
		if (!partial)
			answer(x, from, ACIS_T_NACK, ACIS_S_PENDING, h);
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	if (partial)
		x->st->partials_in++;
	if (!s->order_free && h->rank != s->next_rank &&
	    unlikely(!hold_room(x, c, s, h->rank))) {
		/* early, and no room to hold it: it comes again */
		send_back(x, c, s, h->rank);
		drop(x, x->m, ACIS_DROP_ACIS_BUSY);
		if (s->arrived == 0) /* it opened the slot */
			acis_agg_close(x->agg, s,
				       ACIS_SLOT_ABORTED);
		return;
	}
	if (!(h->flags & ACIS_F_RETRANS))
		s->by_retrans = 0;
	progressed(x, s);
	x->st->payload_bytes += h->payload_len;
	if (packed) {
		memcpy(s->acc + (size_t)h->rank * h->msg_size, x->payload,
		       h->payload_len);
		acis_frame_free(x->m);
	} else if (coll == ACIS_C_BARRIER) {
		acis_frame_free(x->m);
	} else if (s->order_free) {
		if (!fold_in(x, s, x->m, x->payload))
			acis_frame_free(x->m);
	} else if (h->rank == s->next_rank) {
		s->next_rank = next_unit(x, h->rank);
		if (!fold_in(x, s, x->m, x->payload))
			acis_frame_free(x->m);
		fold_held(x, s);
	} else {
		hold(x, s, x->m, h->rank);
	}
	if (unlikely(s->fail_status != 0)) {
		op_fail(x, c, s);
		return;
	}
	if (s->arrived == expected(x, s) && s->n_held == 0) {
		if (x->t != NULL && !x->t->is_root)
			tree_send_up(x, s, 0);
		else
			complete(x, c, s);
	}
}

/*
 * DATA for a key whose slot was closed: a retransmission that crossed its
 * answer, or a copy the network delayed. It must not open a slot nobody
 * else will join. If every member confirmed its answer, the sender needs
 * nothing, except the sender of a forwarded block, whose ACK (sent when
 * the slot closed) may be the thing that was lost: it gets its ACK again.
 * If the slot lingered out, the sender may be a member that never got its
 * answer: it hears NACK GONE (a host that has its answer ignores it), an
 * error instead of a wait for ranks that will not come again.
 */
static int
late_copy(struct cctx *x, const struct acis_endpoint *ep,
	  const struct acis_slot_key *k)
{
	uint8_t flags;
	struct acis_hdr a;

	if (!acis_agg_recall(x->agg, k, rte_rdtsc(),
			     g_sw.coll.deadline_tsc + g_sw.coll.linger_tsc,
			     &flags))
		return 0;
	x->st->late_copies++;
	a = x->h;
	a.flags = 0;
	/* (a child's partial resent across its result is owed nothing) */
	if (!(x->h.flags & ACIS_F_PARTIAL)) {
		if (flags & CLOSED_LINGERED)
			answer(x, ep, ACIS_T_NACK, ACIS_S_GONE, &a);
		else if (flags & CLOSED_FORWARDED)
			answer(x, ep, ACIS_T_ACK, ACIS_S_OK, &a);
	}
	drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
	return 1;
}

/*
 * The sender of a DATA of a communicator with a tree here: a child
 * switch's partial (its leader rank, from the child's address on its
 * link, standing for the child's ranks), or a member (its endpoint and
 * cookie), noting a member behind a child that came past it (x->bypass).
 * 1 with *ep the sender, else dropped and 0.
 */
static int
tree_sender(struct cctx *x, const struct acis_comm *c,
	    const struct acis_endpoint **ep)
{
	const struct acis_tree *t = x->t;
	const struct acis_hdr *h = &x->h;
	uint32_t k = t->child_of[h->rank];

	if (h->flags & ACIS_F_PARTIAL) {
		const struct acis_tree_child *ch;

		if (k >= ACIS_TREE_ABSENT) {
			drop(x, x->m, ACIS_DROP_ACIS_NOT_MEMBER);
			return 0;
		}
		ch = &t->child[k];
		if (ch->leader != h->rank ||
		    acis_meta(x->m)->in_port != ch->port ||
		    x->pi->src_ip != ch->ep.ip ||
		    h->contributors != RTE_MIN(ch->count,
					       (uint32_t)UINT16_MAX)) {
			drop(x, x->m, ACIS_DROP_ACIS_NOT_MEMBER);
			return 0;
		}
		*ep = &ch->ep;
		return 1;
	}
	if (k == ACIS_TREE_ABSENT) {
		drop(x, x->m, ACIS_DROP_ACIS_NOT_MEMBER);
		return 0;
	}
	*ep = acis_comm_ep(c, h->rank);
	if (!from_member(x, *ep))
		return 0;
	x->bypass = k != ACIS_TREE_LOCAL;
	return 1;
}

/* Below a tree's root: a member's DATA goes on to the root as it came
 * (addressed to the root already), out of the link up. */
static void
tree_pass_up(struct cctx *x)
{
	x->st->tree_passed++;
	rte_node_enqueue_x1(x->graph, x->node,
			    ACIS_NEXT_TX_BASE + x->t->up.port, x->m);
}

/*
 * Below a tree's root: a forwarded block (bcast, allgather) from the
 * parent, one copy for this switch's subtree: sent on to its members
 * that receive it and its children, from a slot that closes once it has
 * (receipts go to the root, which acknowledges the block's sender).
 */
static void
tree_relay(struct cctx *x, const struct acis_tree *t)
{
	const struct acis_hdr *h = &x->h;
	const struct acis_comm *c = &t->comm_view;
	uint64_t cpr = acis_n_chunks(h->msg_size, h->chunk_size);
	struct acis_slot_key k = {h->comm, h->seq, h->chunk};
	struct acis_slot *s;
	int kept;

	if (h->rank >= t->size) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_RANK);
		return;
	}
	if (ACIS_OPCODE_COLL(h->opcode) == ACIS_C_ALLGATHER)
		k.chunk = (uint32_t)(h->rank * cpr + h->chunk);
	if (acis_agg_find(x->agg, &k) != NULL) {
		x->st->tree_late++;
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	s = open_slot(x, c, k.chunk, &t->up);
	if (s == NULL)
		return;
	kept = lend(x, s, x->m, x->payload);
	if (!kept)
		memcpy(s->acc, x->payload, h->payload_len);
	s->forwarding = 1;
	s->src = h->rank;
	s->resend_tsc = UINT64_MAX; /* the root resends, not this switch */
	x->st->results_from_parent++;
	fan_start(x, c, s, FAN_FORWARD); /* (the slot may be closed after) */
	if (!kept)
		acis_frame_free(x->m);
}

/* Below a tree's root: the parent's result (finished, as the wire
 * carries it) becomes slot s's, and goes on to this switch's members and
 * children; the slot may be closed after. */
static void
take_result(struct cctx *x, const struct acis_tree *t, struct acis_slot *s)
{
	if (x->h.payload_len != 0)
		memcpy(s->acc, x->payload, x->h.payload_len);
	s->wire = 1;
	x->st->results_from_parent++;
	complete(x, &t->comm_view, s);
	acis_frame_free(x->m);
}

/*
 * Below a tree's root: a packed gather's or allgather's result (every
 * rank's block in one payload) from the parent, one copy for this
 * switch's subtree: sent on to its members (the block to whom it is
 * owed, ACKs to the others) and children, from a slot that closes once
 * it has. Its members' blocks went up to the root unfolded.
 */
static void
tree_relay_packed(struct cctx *x, const struct acis_tree *t)
{
	const struct acis_hdr *h = &x->h;
	struct acis_slot_key k = {h->comm, h->seq, 0};
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);
	struct acis_slot *s;

	if ((coll != ACIS_C_GATHER && coll != ACIS_C_ALLGATHER) ||
	    (uint64_t)t->size * h->msg_size > g_sw.coll.max_payload ||
	    (h->payload_len != 0 &&
	     h->payload_len != (uint64_t)t->size * h->msg_size)) {
		drop(x, x->m, ACIS_DROP_ACIS_MISMATCH);
		return;
	}
	if (acis_agg_find(x->agg, &k) != NULL) {
		x->st->tree_late++;
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	s = open_slot(x, &t->comm_view, 0, &t->up);
	if (s == NULL)
		return;
	s->payload_len = (uint16_t)h->msg_size; /* one rank's block */
	s->arrived = t->size;
	take_result(x, t, s);
}

/*
 * Below a tree's root: the result of a slot whose partial went up, from
 * the parent (a RESULT flagged PARTIAL, from the root's address, on the
 * link up). It goes on to this switch's members and children, and the
 * slot's part is done.
 */
static void
handle_tree_result(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	const struct acis_tree *t = NULL;
	struct acis_slot_key k = {h->comm, h->seq, h->chunk};
	struct acis_slot *s;

	if (g_sw.coll.trees != NULL && (h->flags & ACIS_F_PARTIAL))
		t = acis_tree_find(g_sw.coll.trees, x->pi->src_ip, h->comm);
	if (t == NULL || t->is_root || t->job != h->job ||
	    acis_meta(x->m)->in_port != t->up.port) {
		drop(x, x->m, ACIS_DROP_ACIS_UNEXPECTED);
		return;
	}
	scope_below(x, t);
	if (h->flags & ACIS_F_PACKED) {
		tree_relay_packed(x, t);
		return;
	}
	if (replicates(h->opcode)) {
		tree_relay(x, t);
		return;
	}
	s = acis_agg_find(x->agg, &k);
	if (s == NULL || !s->sent_up || s->done || s->failed) {
		/* answered already: a resend crossed the first */
		x->st->tree_late++;
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	if (h->opcode != s->opcode || h->dtype != s->dtype ||
	    h->op != s->op ||
	    h->payload_len != tree_len_for(t, s, ACIS_TREE_LOCAL)) {
		drop(x, x->m, ACIS_DROP_ACIS_MISMATCH);
		return;
	}
	take_result(x, t, s);
}

/* The receipts a host's ACK lists (payload: `chunk` little-endian
 * uint32 keys), counted as confirms; 0 when the list is malformed (the
 * frame is dropped). */
static uint32_t
receipt_count(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	uint32_t n = h->payload_len / 4;

	if (n == 0 || h->chunk != n || h->payload_len % 4 != 0) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_LENGTH);
		return 0;
	}
	x->st->confirms += n;
	return n;
}

/* ------------------------------------------------------------------ */
/* Fused collectives (doc/fused.md)                                     */
/* ------------------------------------------------------------------ */

/* The op between a fused call's stages, on this worker's machine of it. */
static int
fused_map(void *arg, uint32_t rank, unsigned int map, const void *in,
	  size_t in_len, const void *inbound, size_t ib_len, const void *own,
	  size_t own_len, void *out, size_t cap, size_t *out_len, char *err,
	  size_t errlen)
{
	struct cctx *x = arg;
	struct acis_userop_entry *e =
		acis_userop_sw_get(g_sw.coll.userops, map, x->h.job);
	unsigned int w = (unsigned int)x->lc->worker_index;

	if (e == NULL) {
		snprintf(err, errlen, "op %u: no such op for job %u "
			 "(acis_op_create), or freed", map, x->h.job);
		return -1;
	}
	if (acis_userop_sw_map(e, w, in, in_len, inbound, ib_len, own,
			       own_len, out, cap, out_len) != 0) {
		snprintf(err, errlen, "%s (on rank %u)", e->last_error[w],
			 rank);
		return -1;
	}
	return 0;
}

static void
fused_hdr(const struct acis_fused_inst *f, uint8_t type, uint32_t r,
	  struct acis_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = ACIS_PROTO_VERSION;
	h->type = type;
	h->opcode = ACIS_OPCODE(ACIS_C_FUSED, f->pattern);
	h->dtype = f->dtype;
	h->op = f->op;
	h->hdr_len = ACIS_HDR_LEN;
	h->job = f->job;
	h->comm = f->ctx;
	h->rank = r;
	h->root = f->root;
	h->seq = f->seq;
	h->chunk_size = f->cs;
}

/* Rank r's result chunks it has not confirmed. */
static void
fused_send(struct cctx *x, const struct acis_comm *c,
	   const struct acis_fused_inst *f, uint32_t r)
{
	const struct acis_fused_rank *k = &f->rk[r];
	const struct acis_endpoint *ep = acis_comm_ep(c, r);
	struct acis_hdr h;
	uint32_t i;

	fused_hdr(f, ACIS_T_RESULT, r, &h);
	h.msg_size = k->res_len;
	for (i = 0; i < k->res_chunks; i++) {
		uint32_t off = i * f->cs;
		uint32_t len = k->res_len - off < f->cs ? k->res_len - off :
							  f->cs;

		if (k->confirmed & UINT64_C(1) << i)
			continue;
		h.chunk = i;
		h.payload_len = (uint16_t)len;
		h.flags = i + 1 == k->res_chunks ? ACIS_F_LAST : 0;
		if (emit(x, ep, &h, f->res + k->res_off + off,
			 (uint16_t)len) == NULL)
			return; /* the rank asks again */
		x->st->results++;
	}
}

/* Tell rank r the call failed: the status, and why (OP_FAULT, MISMATCH:
 * the unit's message; TIMEOUT: the ranks that never came). */
static void
fused_nack(struct cctx *x, const struct acis_comm *c,
	   const struct acis_fused_inst *f, uint32_t r)
{
	uint32_t missing[MISSING_MAX], n = 0, i;
	struct acis_hdr h;
	const void *p = f->msg;

	fused_hdr(f, ACIS_T_NACK, r, &h);
	h.status = f->status;
	if (f->status == ACIS_S_TIMEOUT) {
		for (i = 0; i < f->size && n < MISSING_MAX; i++)
			if (f->rk[i].got == 0 ||
			    f->rk[i].got < f->rk[i].cpr)
				missing[n++] = i;
		p = missing;
		h.payload_len = (uint16_t)(n * 4);
	} else {
		h.payload_len = (uint16_t)strnlen(f->msg, sizeof(f->msg) - 1);
	}
	if (emit(x, acis_comm_ep(c, r), &h, p, h.payload_len) != NULL)
		x->st->nacks++;
}

/* Call f failed (status and msg set): every rank that sent a chunk hears
 * so now, the others when theirs come. */
static void
fused_failed(struct cctx *x, const struct acis_comm *c,
	     struct acis_fused_inst *f)
{
	uint32_t r;

	f->state = ACIS_FUSED_FAILED;
	f->done_tsc = x->now;
	x->st->fused_failed++;
	if (f->status == ACIS_S_OP_FAULT)
		x->st->userop_faults++;
	for (r = 0; r < f->size; r++)
		if (f->rk[r].got != 0)
			fused_nack(x, c, f, r);
}

/* A refusal of one fused chunk, with the reason as its payload. */
static void
fused_refuse(struct cctx *x, const struct acis_endpoint *ep, uint16_t status,
	     const char *why)
{
	struct acis_hdr h = x->h;

	h.type = ACIS_T_NACK;
	h.status = status;
	h.flags = 0;
	h.hdr_len = ACIS_HDR_LEN;
	h.payload_len = (uint16_t)strlen(why);
	if (emit(x, ep, &h, why, h.payload_len) != NULL)
		x->st->nacks++;
	x->st->fused_refused++;
	acis_frame_free(x->m);
}

/*
 * A chunk of a rank's fused message. Kept in the call of (comm, seq)
 * and acknowledged; once every rank's message is whole the unit runs and
 * every rank gets its result. A repeat after that gets the result again
 * (the rank lost some of it), or the failure.
 */
static void
handle_fused(struct cctx *x, const struct acis_comm *c,
	     const struct acis_endpoint *ep)
{
	const struct acis_hdr *h = &x->h;
	struct acis_fused_sw *t = x->lc->shard->fused;
	struct acis_fused_inst *f;
	char why[160];
	uint32_t r;
	int rc;

	if (h->chunk_size < 448 ||
	    h->msg_size > ACIS_FUSED_PREFIX + ACIS_FUSED_SIN_MAX +
				  ACIS_FUSED_BUF_MAX) {
		snprintf(why, sizeof(why), "fused: a message of %" PRIu64
			 " bytes in chunks of %u: at most %u bytes in chunks "
			 "of at least 448", h->msg_size, h->chunk_size,
			 ACIS_FUSED_PREFIX + ACIS_FUSED_SIN_MAX +
				 ACIS_FUSED_BUF_MAX);
		fused_refuse(x, ep, ACIS_S_BAD_ARGS, why);
		return;
	}
	f = acis_fused_sw_find(t, h->comm, h->seq);
	if (f == NULL) {
		f = acis_fused_sw_open(t, h->job, h->comm, h->seq, c->size);
		if (f == NULL) {
			/* the rank tries again after a back-off */
			x->st->fused_refused++;
			answer(x, ep, ACIS_T_NACK, ACIS_S_BUSY, h);
			acis_frame_free(x->m);
			return;
		}
		f->pattern = ACIS_OPCODE_ALGO(h->opcode);
		f->dtype = h->dtype;
		f->op = h->op;
		f->root = h->root;
		f->cs = h->chunk_size;
		f->open_tsc = x->now;
	}
	if (f->state == ACIS_FUSED_DONE) {
		x->st->retrans_answered++;
		fused_send(x, c, f, h->rank);
		acis_frame_free(x->m);
		return;
	}
	if (f->state == ACIS_FUSED_FAILED) {
		x->st->timeouts_resent++;
		fused_nack(x, c, f, h->rank);
		acis_frame_free(x->m);
		return;
	}
	if (f->pattern != ACIS_OPCODE_ALGO(h->opcode) ||
	    f->dtype != h->dtype || f->op != h->op || f->root != h->root ||
	    f->cs != h->chunk_size) {
		snprintf(f->msg, sizeof(f->msg), "fused on comm %u (seq %u): "
			 "rank %u calls %s on %s by %s, root %d; an earlier "
			 "rank %s on %s by %s, root %d", h->comm, h->seq,
			 h->rank, acis_fused_name(
				 ACIS_OPCODE_ALGO(h->opcode)),
			 acis_dtype_name(h->dtype), acis_op_name(h->op),
			 (int)h->root, acis_fused_name(f->pattern),
			 acis_dtype_name(f->dtype), acis_op_name(f->op),
			 (int)f->root);
		f->status = ACIS_S_MISMATCH;
		f->rk[h->rank].got += f->rk[h->rank].got == 0; /* told too */
		fused_failed(x, c, f);
		acis_frame_free(x->m);
		return;
	}
	rc = acis_fused_sw_take(f, h->rank, h->msg_size, h->chunk, x->payload,
				h->payload_len);
	if (rc < 0) {
		snprintf(f->msg, sizeof(f->msg), "fused on comm %u (seq %u): "
			 "rank %u's chunk %u of a %" PRIu64 "-byte message "
			 "disagrees with its earlier chunks, or is past %u "
			 "chunks", h->comm, h->seq, h->rank, h->chunk,
			 h->msg_size, ACIS_FUSED_CHUNKS_MAX);
		f->status = ACIS_S_MISMATCH;
		f->rk[h->rank].got += f->rk[h->rank].got == 0;
		fused_failed(x, c, f);
		acis_frame_free(x->m);
		return;
	}
	/* Every rank gets a RESULT, which answers all its chunks (as an
	 * allreduce's does): no ACK. A chunk sent again while the call
	 * waits for other ranks hears PENDING, which holds the sender's
	 * next repeat back. */
	if (rc == 0)
		answer(x, ep, ACIS_T_NACK, ACIS_S_PENDING, h);
	else
		x->st->payload_bytes += h->payload_len;
	acis_frame_free(x->m);
	if (f->whole < f->size)
		return;
	if (acis_fused_sw_run(t, f, fused_map, x) != 0) {
		fused_failed(x, c, f);
		return;
	}
	f->done_tsc = x->now;
	x->st->fused_calls++;
	x->st->completed[ACIS_C_FUSED]++;
	for (r = 0; r < f->size; r++)
		fused_send(x, c, f, r);
}

/* A host's receipts for fused results (ACK: result chunk indices), or its
 * request to send them again (NACK). The call goes once every rank has
 * confirmed its whole result. */
static void
fused_feedback(struct cctx *x, const struct acis_comm *c)
{
	const struct acis_hdr *h = &x->h;
	struct acis_fused_sw *t = x->lc->shard->fused;
	struct acis_fused_inst *f = acis_fused_sw_find(t, h->comm, h->seq);
	struct acis_fused_rank *k;
	uint32_t i, n, key;
	uint64_t all;

	if (f == NULL || f->state != ACIS_FUSED_DONE) {
		x->st->late_receipts++;
		acis_frame_free(x->m);
		return;
	}
	k = &f->rk[h->rank];
	if (h->type == ACIS_T_NACK) {
		x->st->resends++;
		fused_send(x, c, f, h->rank);
		acis_frame_free(x->m);
		return;
	}
	n = receipt_count(x);
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		memcpy(&key, x->payload + 4 * (size_t)i, 4);
		key = rte_le_to_cpu_32(key);
		if (key < k->res_chunks)
			k->confirmed |= UINT64_C(1) << key;
	}
	all = k->res_chunks >= 64 ? UINT64_MAX :
				    (UINT64_C(1) << k->res_chunks) - 1;
	if (!k->done && (k->confirmed & all) == all) {
		f->confirmed++;
		k->done = 1;
	}
	acis_frame_free(x->m);
	if (f->confirmed == f->size)
		acis_fused_sw_close(t, f);
}

/* The sweep of a worker's fused calls: one past the deadline fails, a
 * done or failed one goes at its linger time, one whose communicator
 * went goes with it. */
static void
fused_sweep(struct cctx *x, uint64_t now)
{
	const struct acis_coll_state *co = &g_sw.coll;
	struct acis_fused_sw *t = x->lc->shard->fused;
	uint32_t i;

	/* a fabric of hundreds of logical switches sweeps a table each */
	if (acis_fused_sw_open_count(t) == 0)
		return;
	for (i = 0; i < ACIS_FUSED_CALLS; i++) {
		struct acis_fused_inst *f = acis_fused_sw_at(t, i);
		const struct acis_comm *c;

		if (f == NULL)
			continue;
		c = acis_ct_lookup(co->ct, f->ctx);
		if (c == NULL || c->job != f->job || c->size != f->size) {
			acis_fused_sw_close(t, f);
			continue;
		}
		if (f->state == ACIS_FUSED_OPEN) {
			if (now - f->open_tsc > co->deadline_tsc) {
				f->status = ACIS_S_TIMEOUT;
				fused_failed(x, c, f);
			}
			continue;
		}
		if (now - f->done_tsc <= co->linger_tsc)
			continue;
		if (f->state == ACIS_FUSED_DONE)
			x->st->fused_unconfirmed++;
		acis_fused_sw_close(t, f);
	}
}

static void
handle_data(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);
	const struct acis_comm *c;
	const struct acis_endpoint *ep;
	struct acis_slot_key k;
	struct acis_slot *s;
	uint64_t cpr;
	uint8_t fl;
	int packed;

	x->st->data++;
	if (unlikely(x->pi->dst_ip != g_sw.ccfg.ip)) {
		/* passing through, for a tree held here below its root
		 * (the parse stage looked) */
		const struct acis_tree *t = acis_tree_find(
			g_sw.coll.trees, x->pi->dst_ip, h->comm);

		if (t == NULL || t->job != h->job) {
			drop(x, x->m, ACIS_DROP_ACIS_NO_TREE);
			return;
		}
		scope_below(x, t);
		c = &t->comm_view;
	} else {
		c = acis_ct_lookup(g_sw.coll.ct, h->comm);
		if (unlikely(c == NULL || c->job != h->job)) {
			no_comm(x);
			return;
		}
		x->t = root_tree(h->comm, h->opcode, h->op);
	}
	if (unlikely(h->rank >= c->size ||
		     (h->root != ACIS_RANK_NONE && h->root >= c->size))) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_RANK);
		return;
	}
	if (x->t != NULL) {
		if (unlikely(!tree_sender(x, c, &ep)))
			return;
	} else {
		ep = acis_comm_ep(c, h->rank);
		if (unlikely(!from_member(x, ep)))
			return;
	}
	if (unlikely(coll == ACIS_C_FUSED)) {
		handle_fused(x, c, ep);
		return;
	}
	if (unlikely((coll == ACIS_C_REDUCE || coll == ACIS_C_BCAST ||
		      coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER) &&
		     h->root == ACIS_RANK_NONE)) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_RANK);
		return;
	}
	cpr = acis_n_chunks(h->msg_size, h->chunk_size);
	packed = is_packed(coll, c->size, h->msg_size, h->chunk_size);
	/* the slot key: one key space per collective instance */
	k.ctx = h->comm;
	k.seq = h->seq;
	k.chunk = h->chunk;
	if ((coll == ACIS_C_SCATTER || coll == ACIS_C_REDUCE_SCATTER) &&
	    h->chunk / cpr >= c->size) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_CHUNK);
		return;
	}
	if ((coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER) && !packed)
		k.chunk = (uint32_t)(h->rank * cpr + h->chunk);
	if (coll == ACIS_C_ALLTOALL) {
		/* block chunk / cpr goes to that rank, never the sender's
		 * own; the key names the pair, a 32-bit space */
		uint64_t to = h->chunk / cpr;

		if (to >= c->size || to == h->rank ||
		    (uint64_t)c->size * c->size * cpr > UINT32_MAX ||
		    h->root != ACIS_RANK_NONE) {
			drop(x, x->m, ACIS_DROP_ACIS_BAD_CHUNK);
			return;
		}
		k.chunk = (uint32_t)(((uint64_t)h->rank * c->size + to) * cpr +
				     h->chunk % cpr);
	}
	s = acis_agg_find(x->agg, &k);
	if (x->t != NULL && !x->t->is_root && (s == NULL || x->bypass) &&
	    (x->bypass || acis_agg_recall(x->agg, &k, x->now,
					  g_sw.coll.deadline_tsc +
					  g_sw.coll.linger_tsc, &fl))) {
		/* below the root, after this switch's part was done: a
		 * member that lost its result; the root answers it */
		tree_pass_up(x);
		return;
	}
	if (unlikely(s == NULL && late_copy(x, ep, &k)))
		return;
	if (unlikely(s != NULL && s->failed)) {
		/* the slot failed at its deadline: say so again (the first
		 * NACK may be lost, or this rank came too late) */
		uint32_t missing[MISSING_MAX];
		uint32_t n = missing_ranks(s, missing);

		x->st->timeouts_resent++;
		if (h->flags & ACIS_F_PARTIAL) {
			/* to every rank behind the child */
			const struct acis_tree_child *ch =
				&x->t->child[x->t->child_of[h->rank]];
			uint32_t i;

			for (i = 0; i < ch->count; i++)
				nack_timeout(x, c, s, ch->ranks[i], missing, n);
		} else {
			nack_timeout(x, c, s, h->rank, missing, n);
		}
		acis_frame_free(x->m);
		return;
	}
	if (s != NULL && s->done && !s->forwarding) {
		/* A retransmission: its answer was lost. Send it again from
		 * the kept result; the contribution itself is not re-added.
		 * (A member behind a child switch, come past it, is
		 * answered itself; a child's repeated partial, through the
		 * child.) */
		x->st->retrans_answered++;
		x->direct = x->bypass;
		if (acis_slot_has(s, h->rank))
			send_answer(x, c, s, h->rank, NULL);
		x->direct = 0;
		drop(x, x->m, ACIS_DROP_ACIS_DUPLICATE);
		return;
	}
	if (unlikely(x->bypass)) {
		/* at the root, a member behind a child, past it, for a
		 * slot not done: its contribution comes in the child's
		 * partial */
		drop(x, x->m, ACIS_DROP_ACIS_TREE_BYPASS);
		return;
	}
	switch (coll) {
	case ACIS_C_BCAST:
	case ACIS_C_SCATTER:
	case ACIS_C_ALLTOALL:
		handle_forward(x, c, coll, s, k.chunk);
		return;
	case ACIS_C_GATHER:
	case ACIS_C_ALLGATHER:
		if (!packed) {
			handle_forward(x, c, coll, s, k.chunk);
			return;
		}
		/* fall through */
	default:
		handle_slot(x, c, s, k.chunk, packed, ep);
	}
}

/*
 * From a host: ACK = receipts, "I have the answers of these slot keys"
 * (payload: little-endian uint32 keys). A completed slot is freed once
 * every member has one; a forwarded block once every receiver has it, and
 * only then is its sender acknowledged. NACK = "send me the answer of slot
 * key `chunk` again".
 *
 * A receipt for a slot closed lately is routine: a host confirms every
 * answer it gets, and the switch's resends cross the receipts that
 * close the slot (late_receipts). Feedback naming no open slot, and no
 * slot closed lately either, is dropped as acis_no_slot; so is a NACK
 * for a closed slot, whose answer is gone (libacis sends none).
 */
static void
handle_host_feedback(struct cctx *x)
{
	const struct acis_hdr *h = &x->h;
	const struct acis_comm *c = acis_ct_lookup(g_sw.coll.ct, h->comm);
	struct acis_agg *agg = x->agg;
	const struct acis_endpoint *ep;
	struct acis_slot_key k = {h->comm, h->seq, h->chunk};
	struct acis_slot *s;
	uint32_t i, n, unknown = 0;
	uint64_t now = 0;
	uint64_t horizon = g_sw.coll.deadline_tsc + g_sw.coll.linger_tsc;

	if (c == NULL || c->job != h->job) {
		if (h->type == ACIS_T_NACK)
			no_comm(x); /* it waits for an answer: say why none */
		else
			drop(x, x->m, ACIS_DROP_ACIS_NO_COMM);
		return;
	}
	if (h->rank >= c->size) {
		drop(x, x->m, ACIS_DROP_ACIS_BAD_RANK);
		return;
	}
	ep = acis_comm_ep(c, h->rank);
	if (!from_member(x, ep))
		return;
	if (ACIS_OPCODE_COLL(h->opcode) == ACIS_C_FUSED) {
		fused_feedback(x, c);
		return;
	}
	if (h->type == ACIS_T_NACK) {
		s = acis_agg_find(agg, &k);
		if (s == NULL) {
			drop(x, x->m, ACIS_DROP_ACIS_NO_SLOT);
			return;
		}
		if (s->done && !s->forwarding) {
			x->st->resends++;
			send_answer(x, c, s, h->rank, NULL);
		}
		acis_frame_free(x->m);
		return;
	}
	n = receipt_count(x);
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		uint32_t key;
		uint8_t flags;

		memcpy(&key, x->payload + 4 * i, 4);
		k.chunk = rte_le_to_cpu_32(key);
		s = acis_agg_find(agg, &k);
		if (s == NULL) {
			if (now == 0)
				now = rte_rdtsc();
			if (acis_agg_recall(agg, &k, now, horizon, &flags) ||
			    acis_agg_recall_coll(agg, k.ctx, k.seq, now,
						 horizon))
				x->st->late_receipts++;
			else
				unknown++;
			continue;
		}
		if (s->failed)
			continue;
		if (s->forwarding) {
			if (!fwd_receiver(s, h->rank) ||
			    !acis_slot_deliver(s, h->rank))
				continue;
			progressed(x, s); /* a receiver has it: it moves */
			if (s->delivered < s->n_recv)
				continue;
			send_answer(x, c, s, s->src, NULL); /* the sender's ACK */
			x->st->completed[ACIS_OPCODE_COLL(s->opcode)]++;
			close_delivered(agg, s);
			continue;
		}
		if (s->done && acis_slot_deliver(s, h->rank) &&
		    s->delivered == s->size)
			close_delivered(agg, s);
	}
	if (unknown == n) {
		drop(x, x->m, ACIS_DROP_ACIS_NO_SLOT);
		return;
	}
	acis_frame_free(x->m);
}

static uint16_t
coll_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	     uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	struct cctx x = {.graph = graph, .node = node, .lc = lc};
	uint16_t i;

	x.st = &lc->shard->st;
	x.now = rte_rdtsc();
	for (i = 0; i < cnt; i++) {
		struct acis_mbuf_meta *mt;
		enum acis_hdr_error e;
		const uint8_t *udp_payload;

		x.m = objs[i];
		mt = acis_meta(x.m);
		x.pi = &mt->pi;
		x.eth = rte_pktmbuf_mtod(x.m, const uint8_t *);
		udp_payload = x.eth + mt->pi.payload_off;
		if (i + 2 < cnt) {
			const uint8_t *f = rte_pktmbuf_mtod(
				(struct rte_mbuf *)objs[i + 2], const uint8_t *);

			rte_prefetch0(f);
			rte_prefetch0(f + RTE_CACHE_LINE_SIZE);
		}
		e = acis_msg_parse(udp_payload, mt->pi.payload_len, &x.h);
		if (unlikely(e != ACIS_E_OK)) {
			drop(&x, x.m, acis_hdr_error_drop(e));
			continue;
		}
		x.payload = udp_payload + x.h.hdr_len;
		if (unlikely(x.h.comm == ACIS_CTX_WORLD &&
			     (x.h.type == ACIS_T_DATA ||
			      x.h.type == ACIS_T_ACK ||
			      x.h.type == ACIS_T_NACK))) {
			/* the job's world, named by alias (the parse stage
			 * placed it by the same id); answers name it by its
			 * id (unknown job: no communicator) */
			x.h.comm = acis_ct_world(g_sw.coll.ct, x.h.job);
			x.st->world_alias += x.h.comm != ACIS_CTX_NONE;
		}
		scope_own(&x);
		switch (x.h.type) {
		case ACIS_T_DATA:
			handle_data(&x);
			break;
		case ACIS_T_RESULT:
			handle_tree_result(&x);
			break;
		case ACIS_T_CTRL_ACK:
			if (x.h.opcode == ACIS_CTRL_INSTALL &&
			    g_sw.coll.trees != NULL) {
				rte_spinlock_lock(&g_sw.coll.lock);
				install_answered(&x);
				rte_spinlock_unlock(&g_sw.coll.lock);
				acis_frame_free(x.m);
			} else {
				drop(&x, x.m, ACIS_DROP_ACIS_UNEXPECTED);
			}
			break;
		case ACIS_T_ACK:
		case ACIS_T_NACK:
			handle_host_feedback(&x);
			break;
		case ACIS_T_CTRL:
			/* (the parse stage took only those with a UDP
			 * checksum, from where the pipeline allows) */
			ack_flush(&x); /* before a communicator can go */
			handle_ctrl(&x);
			break;
		case ACIS_T_LOOKASIDE:
			drop(&x, x.m, ACIS_DROP_ACIS_UNHANDLED);
			break;
		default:
			drop(&x, x.m, ACIS_DROP_ACIS_UNEXPECTED);
		}
	}
	ack_flush(&x);
	lc->stats.stage_pkts[ACIS_STAGE_COLL] += cnt;
	return cnt;
}

/* Edges to every port's TX stage are added at start-up (switch.c). */
static struct rte_node_register coll_node = {
	.name = "acis_collective",
	.process = coll_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(coll_node);

/* ------------------------------------------------------------------ */
/* Deadlines                                                            */
/* ------------------------------------------------------------------ */


/*
 * The switch's own retransmission: members that have not confirmed their
 * answer get it again (a forwarded block goes again to receivers that
 * have not confirmed it). A host that has its answer already confirms it
 * again, so a lost confirmation costs a resend interval, not the linger
 * time; a host that lost its answer gets it even if its own
 * retransmissions are lost too. Ranks that left the job are skipped.
 */
static void
resend_unconfirmed(struct cctx *x, const struct acis_comm *c,
		   struct acis_slot *s, uint64_t now)
{
	if (!s->pending) /* else its answers are still going out */
		fan_start(x, c, s, FAN_RESEND);
	s->resend_tsc = now + g_sw.coll.resend_tsc;
}

/* Move the times of slot s that lie before `before` on by shift. */
static inline void
shift_clock(struct acis_slot *s, uint64_t shift, uint64_t before)
{
	if (s->opened_tsc < before)
		s->opened_tsc += shift;
	if (s->progress_tsc < before)
		s->progress_tsc += shift;
	if (s->done_tsc != 0 && s->done_tsc < before)
		s->done_tsc += shift;
}

/*
 * Each worker's clock: every 10 ms, walk the slots:
 *  - a completed slot whose members have not all confirmed sends them
 *    their answers again every resend interval, and is freed after the
 *    linger time (its member died, or left) or at once if its
 *    communicator is gone;
 *  - a forwarded block sends itself again to receivers that have not
 *    confirmed it;
 *  - a slot opened by a retransmission nobody joins is dropped after the
 *    linger time (its original was freed before every member confirmed);
 *  - a slot whose collective took no new contribution for the deadline
 *    fails: its contributors get NACK TIMEOUT naming the missing ranks, held contributions are released,
 *    and the slot is kept the linger time to say so again to anyone who
 *    sends to it.
 * A source node, so it runs even when no packet arrives.
 */
static void sweep_table(struct cctx *x, struct acis_agg *agg, uint64_t now,
			uint64_t shift, uint64_t before);

static uint16_t
sweep_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	      uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	struct cctx x = {.graph = graph, .node = node, .lc = lc};
	const struct acis_coll_state *co = &g_sw.coll;
	uint64_t interval = g_sw.tsc_hz / 100;
	uint64_t now = rte_rdtsc(), late, shift, before;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	if (lc->shard == NULL)
		return 0;
	x.st = &lc->shard->st;
	x.now = now;
	scope_own(&x);
	if (acis_agg_pending(lc->shard->agg) != 0 || lc->shard->ctrl_n != 0 ||
	    (lc->shard->tagg != NULL && acis_agg_pending(lc->shard->tagg) != 0))
		fan_drain(&x);
	/* a fabric's installs (worker 0, with control) */
	if (lc->worker_index == 0 && co->tctl != NULL &&
	    now >= co->tctl->next_check) {
		rte_spinlock_lock(&g_sw.coll.lock);
		tree_timers(&x, now);
		rte_spinlock_unlock(&g_sw.coll.lock);
		scope_own(&x);
	}
	/* deadlines (worker 0, with control): one compare a walk until one
	 * is due */
	if (lc->worker_index == 0 && now >= co->sync->next_tsc) {
		rte_spinlock_lock(&g_sw.coll.lock);
		acis_sync_deadline_due(co->sync, now, deadline_signal, &x);
		rte_spinlock_unlock(&g_sw.coll.lock);
	}
	if (now < lc->next_sweep)
		return 0;
	/* Timers count the time this lcore runs: after a pause (descheduled,
	 * stopped) the slots' clocks move on by the pause, so the answers and
	 * contributions waiting in the RX queues are taken before anything
	 * is judged lost or late. */
	before = lc->next_sweep;
	late = now - lc->next_sweep;
	shift = late > 4 * interval ? late : 0;
	lc->next_sweep = now + interval;
	sweep_table(&x, lc->shard->agg, now, shift, before);
	fused_sweep(&x, now);
	if (lc->shard->tagg != NULL)
		sweep_table(&x, lc->shard->tagg, now, shift, before);
	ack_flush(&x);
	return 0;
}

/* The sweep of one slot table (the shard's own, or its trees'). */
static void
sweep_table(struct cctx *x, struct acis_agg *agg, uint64_t now,
	    uint64_t shift, uint64_t before)
{
	const struct acis_coll_state *co = &g_sw.coll;
	struct acis_lcore_ctx *lc = x->lc;
	uint32_t i, n_slots = g_sw.pl->slots;

	for (i = 0; i < n_slots; i++) {
		struct acis_slot *s = acis_agg_slot(agg, i);
		const struct acis_comm *c;

		if (s == NULL)
			continue;
		if (shift != 0)
			shift_clock(s, shift, before);
		if (s->failed) {
			if (now - s->done_tsc > co->linger_tsc)
				acis_agg_close(agg, s, ACIS_SLOT_EXPIRED);
			continue;
		}
		c = slot_scope(x, agg, s);
		if (s->done && s->owner != 0)
			continue; /* below a root: its fan-out closes it */
		if (s->sent_up && c != NULL && now >= s->resend_tsc &&
		    idle_for(lc->shard, s, now) <= co->deadline_tsc) {
			x->now = now;
			tree_send_up(x, s, 1); /* its result is late */
			continue;
		}
		if (s->done && !s->forwarding) {
			if (c == NULL || now - s->done_tsc > co->linger_tsc) {
				acis_agg_remember(agg, &s->key, CLOSED_LINGERED,
						  now);
				acis_agg_close(agg, s, ACIS_SLOT_LINGERED);
			} else if (now >= s->resend_tsc)
				resend_unconfirmed(x, c, s, now);
			continue;
		}
		if (s->by_retrans && !s->forwarding &&
		    now - s->opened_tsc > co->linger_tsc) {
			release_held(x->st, s);
			acis_agg_close(agg, s, ACIS_SLOT_STALE);
			continue;
		}
		if (idle_for(lc->shard, s, now) > co->deadline_tsc ||
		    c == NULL) {
			release_held(x->st, s);
			if (c == NULL) {
				acis_agg_close(agg, s, ACIS_SLOT_EXPIRED);
				continue;
			}
			/* every rank that did contribute hears it, naming
			 * the ranks that did not */
			fan_start(x, c, s, FAN_TIMEOUT);
			/* kept only to say so again: its bytes go now */
			acis_agg_unlend(agg, s);
			s->failed = 1;
			s->done_tsc = now;
			continue;
		}
		if (s->forwarding && now >= s->resend_tsc)
			resend_unconfirmed(x, c, s, now);
	}
	scope_own(x);
}

static struct rte_node_register sweep_node = {
	.name = "acis_coll_sweep",
	.flags = RTE_NODE_SOURCE_F,
	.process = sweep_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(sweep_node);
