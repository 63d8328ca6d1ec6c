/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis: the host side of the ACiS protocol (doc/wire-format.md).
 *
 * A request is one collective in progress. Its chunks go out in batches
 * (sendmmsg) while fewer than `window` of them wait for an answer; answers
 * (RESULT or ACK) and forwarded blocks come in in batches (recvmmsg) to
 * the context's receive buffers, and each payload is copied from there
 * to its place in the user's buffer. All requests progress
 * whenever the application is inside the library (wait, test, a blocking
 * call), as in MPI. Nothing waits without a deadline.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "acis.h"
#include "transport.h"

#define BATCH 64
#define CTRL_RESEND_MS 100
#define BUSY_BACKOFF_NS 200000ull /* 200 us */
#define RTO_MAX_MS 1000
/* Receipts per confirmation message, at most; fewer when the MTU's
 * payload holds fewer (576: 122). */
#define RCPT_MAX 256
/* Results that arrive before their collective was started here (the root
 * of a bcast can be ahead of us) wait in the unexpected-message queue, as
 * in MPI's UMQ; this bounds its memory. */
#define UMQ_MAX_BYTES (256ull << 20)

struct umsg {
	struct umsg *next;
	uint32_t comm, seq;
	size_t len;
	uint8_t data[];
};

struct acis_comm {
	acis_ctx_t *ctx;
	uint32_t id;
	uint32_t rank;
	uint32_t size;
	uint32_t seq; /* next collective sequence number */
	int is_world;
	uint32_t dl_epoch; /* the latest deadline epoch signalled */
	/* SSP: the iterations the quorum had finished, as the switch last
	 * said (it only grows), and a done sent without waiting that the
	 * switch has not answered yet (0: none) */
	uint32_t ssp_reach;
	uint32_t ssp_posted, ssp_s, ssp_q;
	uint64_t ssp_posted_at;
	struct acis_comm *next;
};

struct acis_req {
	acis_ctx_t *ctx;
	acis_comm_t *comm;
	struct acis_req *next;
	uint8_t coll, dtype, op, packed;
	uint8_t algo;      /* the opcode's high bits: a fused call's pattern */
	uint32_t root, seq;
	uint64_t recv_size; /* a fused call: the result's bytes */
	uint64_t msg_size; /* bytes of one rank's block */
	uint32_t cs;       /* chunk size */
	uint32_t cpr;      /* chunks per block */
	const uint8_t *sbuf;
	uint8_t *rbuf;
	uint8_t *sbuf_copy; /* in-place reduce_scatter: the input, kept */
	/* sending */
	uint32_t n_send, next_send, answered, outstanding;
	uint8_t *ans;      /* [n_send] 1 = answered */
	uint32_t *retry;   /* chunks refused BUSY, to send again */
	uint32_t n_retry;
	uint64_t retry_at;
	uint64_t *sent_at; /* [n_send] when chunk k was last sent */
	uint8_t *tries;    /* [n_send] times sent again: backs the RTO off */
	uint32_t low;      /* every send below is answered */
	uint64_t last_rto_scan;
	uint64_t last_rx;  /* when this request last got anything (progress:
			      a chunk answered, a block received) */
	uint32_t *rcpt;    /* slot keys whose answer arrived, to confirm */
	uint32_t n_rcpt;
	/* receiving */
	uint64_t n_recv, got;
	uint8_t *rcv;      /* [recv index space] 1 = received */
	uint64_t rcv_space;
	int status;
	int done;
};

struct acis_ctx {
	struct acis_transport *tp;
	struct sockaddr_in sw;
	struct acis_config cfg;
	uint32_t chunk_size;
	uint32_t rcpt_max; /* receipts a message holds: RCPT_MAX or the MTU's */
	acis_comm_t *world;
	acis_comm_t *comms;
	unsigned int ssp_posts; /* comms with an SSP done unanswered */
	acis_req_t *active;
	struct umsg *umq, **umq_tail;
	uint64_t umq_bytes;
	char err[256];
	struct acis_client_stats st;
	struct {
		int waiting, got;
		uint8_t opcode;
		uint32_t job, comm, seq;
		struct acis_hdr reply;
		char text[200]; /* the CTRL_ACK's payload, as text */
	} ctl;
	uint32_t op_seq;   /* OP_CREATE and OP_FREE requests made */
	uint32_t late_key; /* payload of a late receipt */
	int peer_missing;  /* a collective failed naming a missing rank */
	int switch_lost;   /* the switch said it knows not the job or comm */
	uint64_t rto_ns;
	uint64_t cookie;   /* this rank's 48-bit cookie; 0: no auth */
	struct acis_tmsg tx_msgs[BATCH];
	uint8_t tx_hdr[BATCH][ACIS_HDR_LEN];
	unsigned int tx_n;
};

static void
wr_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static int
fail(acis_ctx_t *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	if (ctx != NULL) {
		va_start(ap, fmt);
		vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *
acis_strerror(int err)
{
	switch (err) {
	case ACIS_OK:
		return "success";
	case ACIS_ERR_INVAL:
		return "invalid argument";
	case ACIS_ERR_NOMEM:
		return "out of memory";
	case ACIS_ERR_SYS:
		return "system call failed";
	case ACIS_ERR_TIMEOUT:
		return "timed out waiting for the switch or other ranks";
	case ACIS_ERR_REFUSED:
		return "refused by the switch";
	case ACIS_ERR_STATE:
		return "object not in a usable state";
	default:
		return "unknown error";
	}
}

const char *
acis_last_error(const acis_ctx_t *ctx)
{
	return ctx != NULL && ctx->err[0] ? ctx->err : "no error";
}

static const char *
status_name(unsigned int s)
{
	static const char *const n[ACIS_S_MAX] = {
		"ok", "busy", "unknown job", "unknown communicator",
		"not a member", "bad arguments", "mismatch with other ranks",
		"rank taken by another host", "world size mismatch",
		"switch table full", "deadline passed",
		"held, waiting for other ranks",
		"answer freed before this rank confirmed it",
		"this host began as many jobs as the switch allows one "
		"host ([collective] max_jobs_per_host)",
		"the switch requires a cookie ([collective] auth = "
		"required) and this rank has none (ACIS_AUTH=off)",
		"a user op's program failed in the switch",
		"no such user op for this job (acis_op_create), or no room "
		"for another",
	};

	return s < ACIS_S_MAX ? n[s] : "unknown status";
}

void
acis_get_stats(const acis_ctx_t *ctx, struct acis_client_stats *s)
{
	*s = ctx->st;
}

/* The first ACIS_* variable acis_config_default could not read, said
 * by acis_init, which refuses to start on it: a value taken wrongly (a
 * rank, a port) is worse than none. */
static char env_err[192];

static void
env_bad(const char *name, const char *v, const char *want)
{
	if (env_err[0] == '\0')
		snprintf(env_err, sizeof(env_err), "%s='%s': expected %s",
			 name, v, want);
}

static unsigned long
env_ul(const char *name, unsigned long dflt, unsigned long max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long x;

	if (v == NULL || *v == '\0')
		return dflt;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (*end != '\0' || errno != 0 || x > max || v[0] == '-') {
		char want[64];

		snprintf(want, sizeof(want), "a whole number from 0 to %lu",
			 max);
		env_bad(name, v, want);
		return dflt;
	}
	return x;
}

static double
env_prob(const char *name)
{
	const char *v = getenv(name);
	char *end;
	double x;

	if (v == NULL || *v == '\0')
		return 0;
	x = strtod(v, &end);
	if (*end != '\0' || !(x >= 0 && x <= 1)) {
		env_bad(name, v, "a probability from 0 to 1");
		return 0;
	}
	return x;
}

/* A variable's value, or NULL when unset or empty. */
static const char *
env_str(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* ACIS_BIND: this host's address and, optionally, UDP port. */
static void
env_bind(struct acis_config *cfg)
{
	static char ip[64];
	const char *v = env_str("ACIS_BIND");
	struct in_addr a;
	char *colon, *end;
	unsigned long port = 0;

	if (v == NULL)
		return;
	snprintf(ip, sizeof(ip), "%s", v);
	colon = strchr(ip, ':');
	if (colon != NULL) {
		*colon = '\0';
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (*end != '\0' || errno != 0 || port == 0 || port > 65535 ||
		    colon[1] < '0' || colon[1] > '9') {
			env_bad("ACIS_BIND", v, "A.B.C.D or A.B.C.D:PORT "
				"(PORT 1..65535)");
			return;
		}
	}
	if (inet_pton(AF_INET, ip, &a) != 1) {
		env_bad("ACIS_BIND", v, "A.B.C.D or A.B.C.D:PORT");
		return;
	}
	cfg->bind_ip = ip;
	cfg->bind_port = (uint16_t)port;
}

void
acis_config_default(struct acis_config *cfg)
{
	static char sw[64];
	const char *v = getenv("ACIS_SWITCH");

	env_err[0] = '\0';
	memset(cfg, 0, sizeof(*cfg));
	cfg->switch_ip = "10.77.0.1";
	if (v != NULL && *v != '\0') {
		char *colon, *end;
		unsigned long port;

		snprintf(sw, sizeof(sw), "%s", v);
		colon = strchr(sw, ':');
		if (colon != NULL) {
			*colon = '\0';
			port = strtoul(colon + 1, &end, 10);
			if (*end != '\0' || port == 0 || port > 65535 ||
			    colon[1] < '0' || colon[1] > '9')
				env_bad("ACIS_SWITCH", v, "A.B.C.D or "
					"A.B.C.D:PORT (PORT 1..65535)");
			else
				cfg->switch_port = (uint16_t)port;
		}
		cfg->switch_ip = sw;
	}
	cfg->job = (uint32_t)env_ul("ACIS_JOB", 1, UINT32_MAX);
	cfg->rank = (uint32_t)env_ul("ACIS_RANK", 0, UINT32_MAX);
	cfg->size = (uint32_t)env_ul("ACIS_SIZE", 1, UINT32_MAX);
	cfg->timeout_ms = (unsigned int)env_ul("ACIS_TIMEOUT_MS", 0, UINT32_MAX);
	cfg->window = (unsigned int)env_ul("ACIS_WINDOW", 0, UINT32_MAX);
	cfg->mtu = (unsigned int)env_ul("ACIS_MTU", 0, 9000);
	cfg->rto_ms = (unsigned int)env_ul("ACIS_RTO_MS", 0, UINT32_MAX);
	cfg->gso_segs = (unsigned int)env_ul("ACIS_GSO_SEGS", 0, UINT32_MAX);
	cfg->fault_drop = env_prob("ACIS_FAULT_DROP");
	cfg->fault_dup = env_prob("ACIS_FAULT_DUP");
	cfg->fault_reorder = env_prob("ACIS_FAULT_REORDER");
	cfg->fault_window = (unsigned int)env_ul("ACIS_FAULT_WINDOW", 0,
						 UINT32_MAX);
	cfg->fault_seed = env_ul("ACIS_FAULT_SEED", 1, ULONG_MAX);
	env_bind(cfg);
	cfg->transport = env_str("ACIS_TRANSPORT");
	if (cfg->transport != NULL && strcmp(cfg->transport, "udp") != 0 &&
	    strcmp(cfg->transport, "dpdk") != 0)
		env_bad("ACIS_TRANSPORT", cfg->transport, "udp or dpdk");
	cfg->dpdk_port = env_str("ACIS_DPDK_PORT");
	cfg->dpdk_eal = env_str("ACIS_DPDK_EAL");
	cfg->host_mac = env_str("ACIS_HOST_MAC");
	cfg->switch_mac = env_str("ACIS_SWITCH_MAC");
	cfg->poll_us = (unsigned int)env_ul("ACIS_POLL_US", 0, 1000000);
	cfg->auth = env_str("ACIS_AUTH");
	if (cfg->auth != NULL && strcmp(cfg->auth, "cookie") != 0 &&
	    strcmp(cfg->auth, "off") != 0)
		env_bad("ACIS_AUTH", cfg->auth, "cookie or off");
}

/* A random cookie for this rank, never 0 (0 is "none"). */
static int
new_cookie(uint64_t *cookie)
{
	uint64_t v = 0;

	do {
		if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
			return -1;
		v &= ACIS_AUTH_MASK;
	} while (v == 0);
	*cookie = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sending and receiving, through the transport (transport.h)           */
/* ------------------------------------------------------------------ */

/* The queued messages go to the transport. */
static int
flush(acis_ctx_t *ctx)
{
	unsigned int n = ctx->tx_n;
	int rc;

	ctx->tx_n = 0;
	if (n == 0)
		return ACIS_OK;
	rc = ctx->tp->ops->send(ctx->tp, ctx->tx_msgs, n);
	if (rc != ACIS_OK)
		return fail(ctx, rc, "%s", ctx->tp->err);
	return ACIS_OK;
}

/* Queue one message: header h, payload len bytes at data (not copied:
 * it must stay valid until the next flush). */
static int
queue_msg(acis_ctx_t *ctx, const struct acis_hdr *h, const void *data,
	  size_t len)
{
	unsigned int i;
	int rc;

	if (ctx->tx_n == BATCH && (rc = flush(ctx)) != ACIS_OK)
		return rc;
	i = ctx->tx_n++;
	acis_hdr_encode(h, ctx->tx_hdr[i]);
	acis_wr48(ctx->tx_hdr[i] + ACIS_HOFF_AUTH, ctx->cookie);
	ctx->tx_msgs[i] = (struct acis_tmsg){
		.hdr = ctx->tx_hdr[i],
		.hdr_len = ACIS_HDR_LEN,
		.data = data,
		.len = len,
	};
	ctx->st.msgs_sent++;
	ctx->st.bytes_sent += ACIS_HDR_LEN + len;
	return ACIS_OK;
}

static void
base_hdr(const acis_req_t *r, struct acis_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = ACIS_PROTO_VERSION;
	h->type = ACIS_T_DATA;
	h->opcode = ACIS_OPCODE(r->coll, r->algo);
	h->dtype = r->coll == ACIS_C_BARRIER ? 0 : r->dtype;
	h->op = r->op;
	h->hdr_len = ACIS_HDR_LEN;
	h->job = r->ctx->cfg.job;
	h->comm = r->comm->id;
	h->rank = r->comm->rank;
	h->root = r->root;
	h->seq = r->seq;
	h->msg_size = r->msg_size;
	h->chunk_size = (uint16_t)r->cs;
	h->contributors = 1;
}

/* Wire chunk index, payload and length of send index k. */
static void
send_chunk(const acis_req_t *r, uint32_t k, uint32_t *chunk,
	   const uint8_t **src, size_t *len)
{
	uint32_t b = 0, c = k;

	if (r->packed || r->coll == ACIS_C_BARRIER) {
		*chunk = 0;
		*src = r->sbuf;
		*len = r->msg_size;
		return;
	}
	if (r->coll == ACIS_C_SCATTER || r->coll == ACIS_C_ALLTOALL) {
		/* the blocks interleaved, chunk c of every receiver before
		 * chunk c + 1 of any: each receiver sees its block move from
		 * the start (one after the other, the last would hear nothing
		 * for most of the call, and time out under loss) */
		uint32_t nb = r->comm->size - 1;
		uint32_t own = r->coll == ACIS_C_SCATTER ? r->root :
						          r->comm->rank;

		b = k % nb;
		c = k / nb;
		if (b >= own)
			b++; /* the sender keeps its own block */
		*chunk = b * r->cpr + c;
	} else if (r->coll == ACIS_C_REDUCE_SCATTER) {
		b = k / r->cpr;
		c = k % r->cpr;
		*chunk = k;
	} else {
		*chunk = k;
	}
	*src = r->sbuf + (uint64_t)b * r->msg_size + (uint64_t)c * r->cs;
	*len = r->msg_size - (uint64_t)c * r->cs < r->cs ?
		       r->msg_size - (uint64_t)c * r->cs : r->cs;
}

/* Send index of a wire chunk index (for ACK and NACK), or UINT32_MAX. */
static uint32_t
send_index(const acis_req_t *r, uint32_t chunk)
{
	uint32_t k = chunk;

	if (r->coll == ACIS_C_SCATTER || r->coll == ACIS_C_ALLTOALL) {
		uint32_t b = chunk / r->cpr;
		uint32_t own = r->coll == ACIS_C_SCATTER ? r->root :
							   r->comm->rank;

		if (b == own || b >= r->comm->size)
			return UINT32_MAX;
		/* send_chunk's order: chunk-major over the receivers */
		k = chunk % r->cpr * (r->comm->size - 1) +
		    (b > own ? b - 1 : b);
	}
	return k < r->n_send ? k : UINT32_MAX;
}

static int
send_one(acis_req_t *r, uint32_t k, int retrans)
{
	struct acis_hdr h;
	const uint8_t *src;
	size_t len;

	base_hdr(r, &h);
	send_chunk(r, k, &h.chunk, &src, &len);
	h.payload_len = (uint16_t)len;
	if (retrans)
		h.flags |= ACIS_F_RETRANS;
	if (k + 1 == r->n_send)
		h.flags |= ACIS_F_LAST;
	r->sent_at[k] = acis_now_ns();
	return queue_msg(r->ctx, &h, src, len);
}

/* Slot key of receive index idx (what the switch files it under). */
static uint32_t
recv_key(const acis_req_t *r, uint64_t idx)
{
	if (r->packed || r->coll == ACIS_C_BARRIER)
		return 0;
	if (r->coll == ACIS_C_REDUCE_SCATTER || r->coll == ACIS_C_SCATTER)
		return (uint32_t)(r->comm->rank * r->cpr + idx);
	if (r->coll == ACIS_C_ALLTOALL) /* (sender * P + me) * cpr + chunk */
		return (uint32_t)(((uint64_t)(idx / r->cpr) * r->comm->size +
				   r->comm->rank) * r->cpr + idx % r->cpr);
	return (uint32_t)idx; /* chunk, or block * cpr + chunk for gathers */
}

/*
 * Loss recovery: a chunk unanswered for an RTO is sent again, at most a
 * window at a time. The switch answers a repeat from its kept result (or
 * forwards a block again to receivers that did not confirm it), never
 * adding a contribution twice. Receivers recover through the senders:
 * every answer they miss leaves some sender unanswered.
 */
static int
recover(acis_req_t *r, uint64_t now)
{
	acis_ctx_t *ctx = r->ctx;
	uint64_t rto = ctx->rto_ns;
	unsigned int budget = ctx->cfg.window;
	uint64_t i;
	int rc;

	if (now - r->last_rto_scan < rto / 2)
		return ACIS_OK;
	r->last_rto_scan = now;
	if (r->coll == ACIS_C_FUSED && r->answered == r->n_send &&
	    r->got < r->n_recv && r->n_send != 0) {
		/* every chunk taken, the result (or some of it) not here:
		 * the other ranks are late, or it was lost. The last chunk
		 * again draws it (or an ACK while the call waits), backed
		 * off like a chunk. */
		uint32_t k = r->n_send - 1;

		if (now - r->last_rx < rto << (r->tries[k] < 4 ? r->tries[k] : 4))
			return ACIS_OK;
		r->last_rx = now;
		if (r->tries[k] < 255)
			r->tries[k]++;
		ctx->st.retransmits++;
		return send_one(r, k, 1);
	}
	while (r->low < r->next_send && r->ans[r->low])
		r->low++;
	for (i = r->low; i < r->next_send && budget; i++) {
		/* exponential back-off: a slow rank is not a lost packet.
		 * A chunk sent after `now` was taken (this very round) is
		 * not due: unsigned, its age would wrap to "forever". */
		if (r->ans[i] || r->sent_at[i] >= now ||
		    now - r->sent_at[i] < rto << (r->tries[i] < 4 ? r->tries[i] : 4))
			continue;
		if ((rc = send_one(r, (uint32_t)i, 1)) != ACIS_OK)
			return rc;
		if (r->tries[i] < 255)
			r->tries[i]++;
		ctx->st.retransmits++;
		budget--;
	}
	return ACIS_OK;
}

/* Send what the window allows, and BUSY retries that are due. */
static int
pump(acis_req_t *r, uint64_t now)
{
	unsigned int window = r->ctx->cfg.window;
	int rc;

	if (r->n_retry && now >= r->retry_at) {
		uint32_t i;

		for (i = 0; i < r->n_retry; i++) {
			if (!r->ans[r->retry[i]] &&
			    (rc = send_one(r, r->retry[i], 1)) != ACIS_OK)
				return rc;
			r->ctx->st.busy_retries++;
		}
		r->n_retry = 0;
	}
	while (r->next_send < r->n_send && r->outstanding < window) {
		if ((rc = send_one(r, r->next_send, 0)) != ACIS_OK)
			return rc;
		r->next_send++;
		r->outstanding++;
	}
	return recover(r, now);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                            */
/* ------------------------------------------------------------------ */

static void
finish_if_done(acis_req_t *r)
{
	if (!r->done && r->answered == r->n_send && r->got == r->n_recv)
		r->done = 1;
}

/*
 * Confirm the answers that arrived (host ACK, payload = slot keys): the
 * switch keeps each answer until every member has confirmed it, and
 * acknowledges a forwarded block to its sender only then. A repeated
 * answer is confirmed again, in case the first confirmation was lost.
 */
static int
send_receipts(acis_req_t *r)
{
	struct acis_hdr h;
	int rc;

	if (r->n_rcpt == 0)
		return ACIS_OK;
	base_hdr(r, &h);
	h.type = ACIS_T_ACK;
	h.chunk = r->n_rcpt;
	h.payload_len = (uint16_t)(r->n_rcpt * 4);
	if ((rc = queue_msg(r->ctx, &h, r->rcpt, h.payload_len)) != ACIS_OK)
		return rc;
	/* the payload is this buffer: send before it is reused */
	rc = flush(r->ctx);
	r->n_rcpt = 0;
	return rc;
}

static void
receipt(acis_req_t *r, uint32_t key)
{
	if (r->n_rcpt == r->ctx->rcpt_max)
		send_receipts(r);
	r->rcpt[r->n_rcpt++] = htole32(key);
}

static void
answer_send(acis_req_t *r, uint32_t k)
{
	if (k == UINT32_MAX || r->ans[k])
		return;
	r->last_rx = acis_now_ns();
	r->ans[k] = 1;
	r->answered++;
	r->outstanding--;
}

/* Place a RESULT; returns 0 or -1 when it does not fit the request. */
static int
take_result(acis_req_t *r, const struct acis_hdr *h, const uint8_t *p)
{
	uint64_t idx, off;
	uint32_t me = r->comm->rank, P = r->comm->size;
	uint32_t ans = UINT32_MAX, c;
	size_t want;

	if (r->packed) {
		if (!(h->flags & ACIS_F_PACKED) ||
		    h->payload_len != r->msg_size * P)
			return -1;
		idx = 0;
		off = 0;
		ans = 0;
	} else if (r->coll == ACIS_C_BARRIER) {
		idx = 0;
		off = 0;
		ans = 0;
	} else if (r->coll == ACIS_C_FUSED) {
		/* the result, chunk by chunk, once every rank's message was
		 * whole; what the switch computed must be what this rank
		 * expects */
		if (h->msg_size != r->recv_size) {
			r->status = fail(r->ctx, ACIS_ERR_REFUSED, "fused %s on "
					 "comm %u (seq %u): the switch's result "
					 "is %" PRIu64 " bytes, this rank "
					 "expects %" PRIu64,
					 acis_fused_name(r->algo), h->comm,
					 h->seq, h->msg_size, r->recv_size);
			r->done = 1;
			return 0;
		}
		idx = h->chunk;
		off = (uint64_t)h->chunk * r->cs;
		if (idx >= r->n_recv)
			return -1;
		/* a result says every chunk was taken (an ACK may be lost) */
		for (c = 0; c < r->n_send; c++)
			answer_send(r, c);
		want = r->recv_size - off < r->cs ? r->recv_size - off : r->cs;
		if (h->payload_len != want)
			return -1;
	} else {
		uint32_t blk = h->rank, c = h->chunk;

		if (c >= r->cpr)
			return -1;
		switch (r->coll) {
		case ACIS_C_ALLREDUCE:
		case ACIS_C_REDUCE:
			idx = c;
			off = (uint64_t)c * r->cs;
			ans = c;
			break;
		case ACIS_C_REDUCE_SCATTER:
			if (blk != me)
				return -1;
			idx = c;
			off = (uint64_t)c * r->cs;
			ans = me * r->cpr + c;
			break;
		case ACIS_C_BCAST:
		case ACIS_C_SCATTER:
			if (blk != me)
				return -1;
			idx = c;
			off = (uint64_t)c * r->cs;
			break;
		default: /* gather, allgather, alltoall: rank-ordered blocks
			  * (alltoall: the block each rank sent this one) */
			if (blk >= P || blk == me)
				return -1;
			idx = (uint64_t)blk * r->cpr + c;
			off = (uint64_t)blk * r->msg_size + (uint64_t)c * r->cs;
		}
		want = r->msg_size - (uint64_t)c * r->cs < r->cs ?
			       r->msg_size - (uint64_t)c * r->cs : r->cs;
		if (h->payload_len != want)
			return -1;
	}
	if (idx >= r->rcv_space)
		return -1;
	receipt(r, recv_key(r, idx));
	if (!r->rcv[idx]) {
		r->rcv[idx] = 1;
		r->got++;
		r->last_rx = acis_now_ns();
		if (h->payload_len)
			memcpy(r->rbuf + off, p, h->payload_len);
	}
	if (ans != UINT32_MAX)
		answer_send(r, ans);
	return 0;
}

static acis_req_t *
find_req(acis_ctx_t *ctx, uint32_t comm, uint32_t seq)
{
	acis_req_t *r;

	for (r = ctx->active; r != NULL; r = r->next)
		if (r->comm->id == comm && r->seq == seq)
			return r;
	return NULL;
}

static acis_comm_t *
find_comm(acis_ctx_t *ctx, uint32_t id)
{
	acis_comm_t *c;

	for (c = ctx->comms; c != NULL; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

/* Keep a RESULT for a collective this rank has not started yet. */
static int
umq_stash(acis_ctx_t *ctx, const struct acis_hdr *h, const uint8_t *p,
	  size_t len)
{
	acis_comm_t *c = find_comm(ctx, h->comm);
	struct umsg *u;

	/* seq - c->seq as signed: ahead of us, within reason. A
	 * communicator not known yet is one whose JOIN or SPLIT answer came
	 * in the same receive as this, ahead of it, and is not taken in yet
	 * (its members started at once): kept too, the bytes bounded */
	if ((c != NULL && ((int32_t)(h->seq - c->seq) < 0 ||
			   (int32_t)(h->seq - c->seq) > (1 << 20))) ||
	    ctx->umq_bytes + len > UMQ_MAX_BYTES)
		return -1;
	u = malloc(sizeof(*u) + len);
	if (u == NULL)
		return -1;
	u->next = NULL;
	u->comm = h->comm;
	u->seq = h->seq;
	u->len = len;
	memcpy(u->data, p, len);
	if (ctx->umq == NULL)
		ctx->umq_tail = &ctx->umq;
	*ctx->umq_tail = u;
	ctx->umq_tail = &u->next;
	ctx->umq_bytes += len;
	ctx->st.unexpected++;
	return 0;
}

static void dispatch(acis_ctx_t *ctx, const uint8_t *p, size_t len,
		     uint32_t src_ip);

/*
 * Does an ACK of this collective come from a slot the switch keeps until
 * confirmed (its chunk is then the slot key)? Reduce, reduce_scatter and
 * packed gathers, yes. The ACK of a forwarded block (bcast, scatter, large
 * gathers) is sent when its slot is freed and names the chunk within the
 * sender's block, not a slot key: confirming it would confirm another
 * rank's block in this rank's name.
 */
static int
ack_from_kept_slot(unsigned int coll, int packed)
{
	return coll == ACIS_C_REDUCE || coll == ACIS_C_REDUCE_SCATTER ||
	       (coll == ACIS_C_GATHER && packed);
}

/* The chunks an ACK from the switch acknowledges: its `chunk`, or, with a
 * payload, the `chunk` chunks the payload lists (little-endian uint32, as
 * the receipts); 0 for a list of the wrong length. */
static uint32_t
ack_count(const struct acis_hdr *h)
{
	if (h->payload_len == 0)
		return 1;
	return h->payload_len == 4ull * h->chunk ? h->chunk : 0;
}

static uint32_t
ack_chunk(const struct acis_hdr *h, const uint8_t *payload, uint32_t i)
{
	uint32_t v;

	if (h->payload_len == 0)
		return h->chunk;
	memcpy(&v, payload + 4 * (size_t)i, 4);
	return le32toh(v);
}

/*
 * An answer for a collective this rank has already finished: the switch
 * sent it again because our confirmation was lost (a forwarded block's
 * sender waits for it). Confirm it again at once; the chunks an ACK lists
 * (payload) are the slot keys, confirmed in one receipt of the same list.
 */
static void
late_receipt(acis_ctx_t *ctx, const struct acis_hdr *h,
	     const uint8_t *payload)
{
	unsigned int coll = ACIS_OPCODE_COLL(h->opcode);
	uint64_t cpr = acis_n_chunks(h->msg_size, h->chunk_size ?
				     h->chunk_size : 1);
	struct acis_hdr a = *h;
	uint32_t key = h->chunk;
	acis_comm_t *c = find_comm(ctx, h->comm);

	if (c == NULL)
		return;
	if (h->type == ACIS_T_ACK &&
	    (!ack_from_kept_slot(coll, (uint64_t)c->size * h->msg_size <=
					       h->chunk_size) ||
	     ack_count(h) == 0)) {
		ctx->st.stray++;
		return;
	}
	if (h->type == ACIS_T_RESULT) {
		if ((h->flags & ACIS_F_PACKED) || coll == ACIS_C_BARRIER)
			key = 0;
		else if (coll == ACIS_C_REDUCE_SCATTER ||
			 coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER ||
			 coll == ACIS_C_ALLGATHER)
			key = (uint32_t)(h->rank * cpr + h->chunk);
		else if (coll == ACIS_C_ALLTOALL)
			key = (uint32_t)(((uint64_t)h->rank * c->size +
					  c->rank) * cpr + h->chunk);
	}
	ctx->late_key = htole32(key);
	a.version = ACIS_PROTO_VERSION;
	a.type = ACIS_T_ACK;
	a.hdr_len = ACIS_HDR_LEN;
	a.flags = 0;
	a.status = 0;
	a.rank = c->rank;
	a.chunk = 1;
	a.payload_len = 4;
	if (h->type == ACIS_T_ACK && h->payload_len != 0) { /* a list */
		a.chunk = h->chunk;
		a.payload_len = h->payload_len;
	} else {
		payload = (const uint8_t *)&ctx->late_key;
	}
	if (queue_msg(ctx, &a, payload, a.payload_len) == ACIS_OK)
		flush(ctx);
	ctx->st.late_receipts += a.chunk;
}

/* A request just started: hand it what came early, in arrival order. */
static void
umq_replay(acis_ctx_t *ctx, const acis_req_t *r)
{
	struct umsg **pp = &ctx->umq, *u;

	while ((u = *pp) != NULL) {
		if (u->comm != r->comm->id || u->seq != r->seq) {
			pp = &u->next;
			continue;
		}
		*pp = u->next;
		if (ctx->umq_tail == &u->next)
			ctx->umq_tail = pp;
		ctx->umq_bytes -= u->len;
		dispatch(ctx, u->data, u->len, ctx->sw.sin_addr.s_addr);
		free(u);
	}
}

static void
umq_clear(acis_ctx_t *ctx)
{
	while (ctx->umq != NULL) {
		struct umsg *u = ctx->umq;

		ctx->umq = u->next;
		free(u);
	}
	ctx->umq_bytes = 0;
}

static void
dispatch(acis_ctx_t *ctx, const uint8_t *p, size_t len, uint32_t src_ip)
{
	struct acis_hdr h;
	acis_req_t *r;
	uint32_t i, n;

	if (src_ip != ctx->sw.sin_addr.s_addr ||
	    acis_msg_parse(p, len, &h) != ACIS_E_OK) {
		ctx->st.stray++;
		return;
	}
	if (h.auth != ctx->cookie) {
		/* not the switch: anyone can write its address, only the
		 * switch knows this rank's cookie */
		ctx->st.auth_rejected++;
		return;
	}
	if (h.type == ACIS_T_CTRL_ACK && h.opcode == ACIS_CTRL_DEADLINE &&
	    (h.flags & ACIS_F_MULTICAST)) {
		/* a deadline's signal: its epoch, for acis_deadline_wait */
		acis_comm_t *c = h.job == ctx->cfg.job ?
					 find_comm(ctx, h.comm) : NULL;

		if (c == NULL)
			ctx->st.stray++;
		else if ((int32_t)(h.seq - c->dl_epoch) > 0)
			c->dl_epoch = h.seq;
		return;
	}
	if (h.type == ACIS_T_CTRL_ACK && h.opcode == ACIS_CTRL_SSP &&
	    h.status == ACIS_S_OK && h.job == ctx->cfg.job) {
		/* every continue says how far the quorum is: what lets later
		 * dones go without waiting (acis_ssp_done) */
		acis_comm_t *c = find_comm(ctx, h.comm);

		if (c != NULL) {
			if (h.msg_size > c->ssp_reach && h.msg_size <= UINT32_MAX)
				c->ssp_reach = (uint32_t)h.msg_size;
			if (c->ssp_posted != 0 &&
			    (int32_t)(h.seq - c->ssp_posted) >= 0)
				c->ssp_posted = 0;
		}
	}
	if (h.type == ACIS_T_CTRL_ACK) {
		if (ctx->ctl.waiting && !ctx->ctl.got &&
		    h.opcode == ctx->ctl.opcode && h.job == ctx->ctl.job &&
		    (h.opcode == ACIS_CTRL_JOIN || h.opcode == ACIS_CTRL_LEAVE ||
		     (h.comm == ctx->ctl.comm && h.seq == ctx->ctl.seq))) {
			size_t n = h.payload_len < sizeof(ctx->ctl.text) ?
				   h.payload_len : sizeof(ctx->ctl.text) - 1;

			memcpy(ctx->ctl.text, p + h.hdr_len, n);
			ctx->ctl.text[n] = '\0';
			ctx->ctl.reply = h;
			ctx->ctl.got = 1;
		} else {
			ctx->st.stray++;
		}
		return;
	}
	if (h.job != ctx->cfg.job) {
		ctx->st.stray++;
		return;
	}
	r = find_req(ctx, h.comm, h.seq);
	if (r == NULL || r->done) {
		acis_comm_t *c = find_comm(ctx, h.comm);

		if (r == NULL && h.type == ACIS_T_RESULT &&
		    umq_stash(ctx, &h, p, len) == 0)
			return;
		/* finished here: confirm again what the switch repeats */
		if (c != NULL && (h.type == ACIS_T_RESULT || h.type == ACIS_T_ACK) &&
		    (r != NULL || (int32_t)(h.seq - c->seq) < 0))
			late_receipt(ctx, &h, p + h.hdr_len);
		else
			ctx->st.stray++;
		return;
	}
	switch (h.type) {
	case ACIS_T_RESULT:
		if (ACIS_OPCODE_COLL(h.opcode) != r->coll ||
		    take_result(r, &h, p + h.hdr_len) != 0)
			ctx->st.stray++;
		break;
	case ACIS_T_ACK:
		n = ack_count(&h);
		if (n == 0)
			ctx->st.stray++;
		for (i = 0; i < n; i++) {
			uint32_t chunk = ack_chunk(&h, p + h.hdr_len, i);

			answer_send(r, send_index(r, chunk));
			if (ack_from_kept_slot(r->coll, r->packed))
				receipt(r, chunk);
		}
		break;
	case ACIS_T_NACK:
		if (h.status == ACIS_S_BUSY) {
			uint32_t k = send_index(r, h.chunk);

			if (k != UINT32_MAX && !r->ans[k] &&
			    r->n_retry < r->n_send) {
				r->retry[r->n_retry++] = k;
				r->retry_at = acis_now_ns() + BUSY_BACKOFF_NS;
			}
		} else if (h.status == ACIS_S_PENDING) {
			/* the switch has it and waits for others: wait a
			 * whole back-off from now (the repeat that drew this
			 * already lengthened it) */
			uint32_t k = send_index(r, h.chunk);

			if (k != UINT32_MAX && !r->ans[k])
				r->sent_at[k] = acis_now_ns();
		} else if (h.status == ACIS_S_TIMEOUT) {
			char ranks[160];
			size_t o = 0;
			uint32_t i, v, k = send_index(r, h.chunk);

			/* a late copy of an answered chunk opened a slot of
			 * its own, which failed: nothing of ours is lost */
			if (k != UINT32_MAX && r->ans[k]) {
				ctx->st.stray++;
				return;
			}
			ctx->peer_missing = 1;

			ranks[0] = '\0';
			for (i = 0; i + 4 <= h.payload_len && o + 12 < sizeof(ranks);
			     i += 4) {
				memcpy(&v, p + h.hdr_len + i, 4);
				o += (size_t)snprintf(ranks + o, sizeof(ranks) - o,
						      "%s%u", i ? ", " : "", v);
			}
			r->status = fail(ctx, ACIS_ERR_TIMEOUT, "%s on comm %u "
					 "(seq %u) failed at the switch's "
					 "deadline: rank%s %s never contributed",
					 acis_coll_name(r->coll), h.comm, h.seq,
					 h.payload_len > 4 ? "s" : "", ranks);
			r->done = 1;
		} else if (h.status == ACIS_S_OP_FAULT) {
			/* the switch's message names the op */
			r->status = fail(ctx, ACIS_ERR_REFUSED, "%s on comm %u "
					 "(seq %u) failed in the switch: %.*s",
					 acis_coll_name(r->coll), h.comm, h.seq,
					 (int)h.payload_len, p + h.hdr_len);
			r->done = 1;
		} else if (h.status == ACIS_S_GONE) {
			uint32_t k = send_index(r, h.chunk);

			/* a late copy of a chunk whose answer we have */
			if (k == UINT32_MAX || r->ans[k]) {
				ctx->st.stray++;
				return;
			}
			r->status = fail(ctx, ACIS_ERR_TIMEOUT, "%s on comm %u "
					 "(seq %u): the switch freed the answer "
					 "of chunk %u before this rank confirmed "
					 "it (unanswered past its linger time)",
					 acis_coll_name(r->coll), h.comm, h.seq,
					 h.chunk);
			r->done = 1;
		} else if (h.status == ACIS_S_NO_COMM ||
			   h.status == ACIS_S_NO_JOB) {
			/* the switch knows no such communicator: the job's
			 * world, it lost the job (restarted, or the job was
			 * removed through management); another one, that
			 * communicator only (freed through management) */
			int lost = h.status == ACIS_S_NO_JOB ||
				   r->comm == ctx->world;

			ctx->switch_lost |= lost;
			r->status = fail(ctx, ACIS_ERR_REFUSED, "the switch "
					 "does not know communicator %u of job "
					 "%u (%s on it, seq %u): %s",
					 h.comm, h.job, acis_coll_name(r->coll),
					 h.seq, lost ? "it lost the job, "
					 "restarted or removed it; acis_finalize "
					 "and acis_init again to join anew" :
					 "it was freed through management");
			r->done = 1;
		} else {
			r->status = fail(ctx, ACIS_ERR_REFUSED, "switch refused "
					 "%s chunk %u: %s%s%.*s",
					 acis_coll_name(r->coll), h.chunk,
					 status_name(h.status),
					 h.payload_len != 0 ? ": " : "",
					 (int)h.payload_len, p + h.hdr_len);
			r->done = 1;
		}
		return;
	default:
		ctx->st.stray++;
	}
	finish_if_done(r);
}

static void
deliver(void *arg, const uint8_t *p, size_t len, uint32_t src_ip)
{
	acis_ctx_t *ctx = arg;

	ctx->st.msgs_received++;
	ctx->st.bytes_received += len;
	dispatch(ctx, p, len, src_ip);
}

/* Receive whatever is there; wait up to wait_ms for the first message. */
static int
receive(acis_ctx_t *ctx, int wait_ms)
{
	int rc = ctx->tp->ops->recv(ctx->tp, wait_ms, deliver, ctx);

	if (rc != ACIS_OK)
		return fail(ctx, rc, "%s", ctx->tp->err);
	return ACIS_OK;
}

/*
 * For a request that receives blocks other ranks send through the switch
 * and timed out waiting for some: who did not send them (the switch never
 * heard of a collective whose sender died before sending, so it cannot
 * name them). Empty when this rank cannot tell.
 */
static void
senders_missing(const acis_req_t *r, char *buf, size_t len)
{
	uint32_t ranks[16], n = 0, b, last = UINT32_MAX, k;
	size_t o;
	uint64_t i;

	buf[0] = '\0';
	if (r->got == r->n_recv)
		return;
	if (r->coll == ACIS_C_BCAST || r->coll == ACIS_C_SCATTER) {
		snprintf(buf, len, ": nothing more came from the root, rank %u",
			 r->root);
		return;
	}
	if ((r->coll != ACIS_C_GATHER && r->coll != ACIS_C_ALLGATHER &&
	     r->coll != ACIS_C_ALLTOALL) || r->packed)
		return;
	for (i = 0; i < r->rcv_space && n < 16; i++) {
		b = (uint32_t)(i / r->cpr);
		if (!r->rcv[i] && b != r->comm->rank && b != last)
			ranks[n++] = last = b;
	}
	o = (size_t)snprintf(buf, len, ": blocks missing from rank%s",
			     n > 1 ? "s" : "");
	for (k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s %u", k ? "," : "",
				      ranks[k]);
}

/* One round of progress on every active request; waits up to wait_ms for
 * a message unless want (the request the caller waits for, or NULL) or an
 * awaited control answer is already there. */
static int ssp_repost(acis_ctx_t *ctx, uint64_t now);

static int
progress(acis_ctx_t *ctx, int wait_ms, const acis_req_t *want)
{
	uint64_t now;
	acis_req_t *r;
	int rc, pending = 0;

	/* Take what already arrived before judging anything lost: after a
	 * pause (this process descheduled) the answers are in the socket. */
	if ((rc = receive(ctx, 0)) != ACIS_OK)
		return rc;
	now = acis_now_ns();
	if (ctx->ssp_posts != 0 && (rc = ssp_repost(ctx, now)) != ACIS_OK)
		return rc;
	for (r = ctx->active; r != NULL; r = r->next) {
		if (r->done)
			continue;
		/* the timeout counts from the last progress, so a large
		 * collective under loss is never failed while it moves */
		if (now > r->last_rx && now - r->last_rx >
		    (uint64_t)ctx->cfg.timeout_ms * 1000000ull) {
			char who[128];

			senders_missing(r, who, sizeof(who));
			if (who[0] != '\0')
				ctx->peer_missing = 1;
			r->status = fail(ctx, ACIS_ERR_TIMEOUT, "%s on comm %u "
					 "(seq %u): %u of %u chunks answered, "
					 "%llu of %llu received, then nothing "
					 "for %u ms%s", acis_coll_name(r->coll),
					 r->comm->id, r->seq, r->answered,
					 r->n_send, (unsigned long long)r->got,
					 (unsigned long long)r->n_recv,
					 ctx->cfg.timeout_ms, who);
			r->done = 1;
			continue;
		}
		if ((rc = pump(r, now)) != ACIS_OK)
			return rc;
		pending |= r->n_retry != 0;
	}
	if ((rc = flush(ctx)) != ACIS_OK)
		return rc;
	/* What the caller waits for may have come in the first receive: then
	 * return to it instead of sleeping on the socket. */
	if ((want != NULL && want->done) || (ctx->ctl.waiting && ctx->ctl.got))
		pending = 1;
	if ((rc = receive(ctx, pending ? 0 : wait_ms)) != ACIS_OK)
		return rc;
	for (r = ctx->active; r != NULL; r = r->next)
		if (r->n_rcpt != 0 && (rc = send_receipts(r)) != ACIS_OK)
			return rc;
	return ACIS_OK;
}

/* ------------------------------------------------------------------ */
/* Requests                                                             */
/* ------------------------------------------------------------------ */

static void
req_free(acis_req_t *r)
{
	acis_req_t **pp;

	if (r == NULL)
		return;
	for (pp = &r->ctx->active; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	free(r->ans);
	free(r->retry);
	free(r->rcv);
	free(r->sent_at);
	free(r->rcpt);
	free(r->tries);
	free(r->sbuf_copy);
	free(r);
}

/* Requests of ctx still running on communicator c. */
static unsigned int
comm_pending(const acis_comm_t *c)
{
	const acis_req_t *r;
	unsigned int n = 0;

	for (r = c->ctx->active; r != NULL; r = r->next)
		n += r->comm == c;
	return n;
}

/*
 * Start a collective. A fused call (coll ACIS_C_FUSED) sends count bytes
 * of message (own: its buffer, the request's from now) under pattern
 * algo and receives recv_size bytes.
 */
static int
start_ex(acis_comm_t *comm, uint8_t coll, const void *sbuf, void *rbuf,
	 size_t count, enum acis_dtype dt, enum acis_op op, int root,
	 acis_req_t **out, uint8_t algo, uint64_t recv_size, uint8_t *own)
{
	acis_ctx_t *ctx;
	acis_req_t *r, **tail;
	uint32_t P, me;
	unsigned int ds;
	int in_place, rc;

	if (out == NULL || comm == NULL || comm->ctx == NULL) {
		free(own);
		return ACIS_ERR_INVAL;
	}
	*out = NULL;
	ctx = comm->ctx;
	P = comm->size;
	me = comm->rank;
	ds = coll == ACIS_C_BARRIER || coll == ACIS_C_FUSED ? 1 :
							      acis_dtype_size(dt);
	if (ds == 0 || acis_dtype_size(dt) == 0) {
		free(own);
		return fail(ctx, ACIS_ERR_INVAL, "unknown datatype %d", dt);
	}
	if ((coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
	     coll == ACIS_C_REDUCE_SCATTER) && !acis_op_valid(op, dt))
		return fail(ctx, ACIS_ERR_INVAL, "op %s is not defined on %s",
			    acis_op_name(op), acis_dtype_name(dt));
	if ((coll == ACIS_C_REDUCE || coll == ACIS_C_BCAST ||
	     coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER) &&
	    (root < 0 || (uint32_t)root >= P))
		return fail(ctx, ACIS_ERR_INVAL, "root %d outside 0..%u", root,
			    P - 1);
	if ((uint64_t)count > ACIS_MAX_MSG_SIZE / ds)
		return fail(ctx, ACIS_ERR_INVAL, "count %zu too large: at most "
			    "%" PRIu64 " bytes a rank", count,
			    (uint64_t)ACIS_MAX_MSG_SIZE);
	if (rbuf == ACIS_IN_PLACE)
		return fail(ctx, ACIS_ERR_INVAL, "ACIS_IN_PLACE is a send "
			    "buffer, not a receive buffer");
	in_place = sbuf == ACIS_IN_PLACE;
	if (in_place)
		sbuf = rbuf;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		free(own);
		return ACIS_ERR_NOMEM;
	}
	r->sbuf_copy = own;
	r->algo = algo;
	r->recv_size = recv_size;
	r->ctx = ctx;
	r->comm = comm;
	r->coll = coll;
	r->dtype = (uint8_t)dt;
	r->op = (uint8_t)(coll == ACIS_C_ALLREDUCE || coll == ACIS_C_REDUCE ||
			  coll == ACIS_C_REDUCE_SCATTER ||
			  coll == ACIS_C_FUSED ? op : ACIS_OP_NONE);
	r->root = (coll == ACIS_C_REDUCE || coll == ACIS_C_BCAST ||
		   coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER) ||
		  (coll == ACIS_C_FUSED && root >= 0) ?
			  (uint32_t)root : ACIS_RANK_NONE;
	r->msg_size = coll == ACIS_C_BARRIER ? 0 : (uint64_t)count * ds;
	r->cs = ctx->chunk_size;
	r->cpr = (uint32_t)acis_n_chunks(r->msg_size, r->cs);
	r->sbuf = sbuf;
	r->rbuf = rbuf;
	r->packed = (coll == ACIS_C_GATHER || coll == ACIS_C_ALLGATHER) &&
		    (uint64_t)P * r->msg_size <= r->cs;
	r->seq = comm->seq++;
	/* what this rank sends and receives */
	switch (coll) {
	case ACIS_C_ALLREDUCE:
		r->n_send = r->cpr;
		r->n_recv = r->rcv_space = r->cpr;
		break;
	case ACIS_C_REDUCE:
		r->n_send = r->cpr;
		r->n_recv = r->rcv_space = me == r->root ? r->cpr : 0;
		break;
	case ACIS_C_BCAST:
		r->sbuf = rbuf;
		r->n_send = me == r->root ? r->cpr : 0;
		r->n_recv = r->rcv_space = me == r->root ? 0 : r->cpr;
		break;
	case ACIS_C_SCATTER:
		r->n_send = me == r->root ? (P - 1) * r->cpr : 0;
		r->n_recv = r->rcv_space = me == r->root ? 0 : r->cpr;
		break;
	case ACIS_C_GATHER:
		if (r->packed) {
			r->n_send = 1;
			r->n_recv = r->rcv_space = me == r->root;
		} else {
			r->n_send = me == r->root ? 0 : r->cpr;
			r->n_recv = me == r->root ? (uint64_t)(P - 1) * r->cpr : 0;
			r->rcv_space = me == r->root ? (uint64_t)P * r->cpr : 0;
		}
		break;
	case ACIS_C_ALLGATHER:
		if (r->packed) {
			r->n_send = 1;
			r->n_recv = r->rcv_space = 1;
		} else {
			r->n_send = r->cpr;
			r->n_recv = (uint64_t)(P - 1) * r->cpr;
			r->rcv_space = (uint64_t)P * r->cpr;
		}
		break;
	case ACIS_C_REDUCE_SCATTER:
		r->n_send = P * r->cpr;
		r->n_recv = r->rcv_space = r->cpr;
		break;
	case ACIS_C_BARRIER:
		r->n_send = 1;
		r->n_recv = r->rcv_space = 1;
		break;
	case ACIS_C_ALLTOALL:
		r->n_send = (uint64_t)(P - 1) * r->cpr;
		r->n_recv = (uint64_t)(P - 1) * r->cpr;
		r->rcv_space = (uint64_t)P * r->cpr;
		break;
	case ACIS_C_FUSED:
		r->n_send = r->cpr;
		r->n_recv = r->rcv_space = acis_n_chunks(recv_size, r->cs);
		break;
	}
	if (r->msg_size != 0 && coll != ACIS_C_FUSED) {
		const char *bad = NULL; /* the buffer missing */
		uint64_t size = r->msg_size, cpr = r->cpr;

		/* a root of scatter or gather also copies its own block
		 * from the one to the other */
		int own = ((coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER) &&
			   me == r->root) || coll == ACIS_C_ALLTOALL;

		if ((r->n_send != 0 || own) && r->sbuf == NULL)
			bad = "send";
		else if ((r->rcv_space != 0 || own) && rbuf == NULL)
			bad = "receive";
		if (bad != NULL) {
			rc = fail(ctx, ACIS_ERR_INVAL, "%s of %" PRIu64
				  " bytes with no %s buffer",
				  acis_coll_name(coll), size, bad);
			goto refuse;
		}
		/* slot keys (b * cpr + c) and the counts of chunks sent
		 * and received are 32-bit */
		if ((coll == ACIS_C_SCATTER || coll == ACIS_C_GATHER ||
		     coll == ACIS_C_ALLGATHER ||
		     coll == ACIS_C_REDUCE_SCATTER) &&
		    (uint64_t)P * cpr >= UINT32_MAX) {
			rc = fail(ctx, ACIS_ERR_INVAL, "%s: %u ranks of %"
				  PRIu64 " chunks each is more than 2^32 "
				  "chunks", acis_coll_name(coll), P, cpr);
			goto refuse;
		}
		/* alltoall's keys name the pair of ranks: (s * P + r) * cpr */
		if (coll == ACIS_C_ALLTOALL &&
		    (uint64_t)P * P * cpr > UINT32_MAX) {
			rc = fail(ctx, ACIS_ERR_INVAL, "alltoall: %u ranks of "
				  "%u blocks of %" PRIu64 " chunks each is more "
				  "than 2^32 chunks", P, P, cpr);
			goto refuse;
		}
	}
	/*
	 * ACIS_IN_PLACE, as MPI's: where this rank's own block already lies
	 * in the receive buffer, it is sent from there and not copied; and
	 * nothing this rank still has to send is written over by what it
	 * receives.
	 *  - gather (root) and allgather: my block is block `me` of recvbuf;
	 *  - scatter (root): recvbuf holds all P blocks and mine stays where
	 *    it is, block `me` (nothing is copied to recvbuf's start);
	 *  - reduce_scatter: recvbuf holds the P blocks in; my result goes to
	 *    its start, over block 0 that may still be sent again (a loss, a
	 *    BUSY): the blocks are sent from a copy taken now.
	 * allreduce and reduce read chunk c only until its result, which
	 * needs it, arrives; bcast has one buffer anyway.
	 */
	if (in_place && r->msg_size != 0) {
		if ((coll == ACIS_C_GATHER && me == r->root) ||
		    coll == ACIS_C_ALLGATHER) {
			r->sbuf = (const uint8_t *)rbuf +
				  (uint64_t)me * r->msg_size;
			sbuf = r->sbuf;
		} else if (coll == ACIS_C_REDUCE_SCATTER ||
			   coll == ACIS_C_ALLTOALL) {
			/* (alltoall: the blocks received land where blocks
			 * still to send lie) */
			r->sbuf_copy = malloc((size_t)((uint64_t)P *
						       r->msg_size));
			if (r->sbuf_copy == NULL) {
				rc = ACIS_ERR_NOMEM;
				goto refuse;
			}
			memcpy(r->sbuf_copy, rbuf,
			       (size_t)((uint64_t)P * r->msg_size));
			r->sbuf = r->sbuf_copy;
			sbuf = r->sbuf;
		}
	}
	r->ans = calloc(r->n_send + 1, 1);
	r->retry = calloc(r->n_send + 1, sizeof(uint32_t));
	r->rcv = calloc(r->rcv_space + 1, 1);
	r->sent_at = calloc(r->n_send + 1, sizeof(uint64_t));
	r->rcpt = malloc(RCPT_MAX * sizeof(uint32_t));
	r->tries = calloc(r->n_send + 1, 1);
	if (r->ans == NULL || r->retry == NULL || r->rcv == NULL ||
	    r->sent_at == NULL || r->rcpt == NULL || r->tries == NULL) {
		rc = ACIS_ERR_NOMEM;
		goto refuse;
	}
	r->last_rx = acis_now_ns();
	/* Blocks a rank keeps for itself never cross the network. */
	if ((coll == ACIS_C_SCATTER && me == r->root) ||
	    coll == ACIS_C_ALLTOALL ||
	    (((coll == ACIS_C_GATHER && me == r->root) ||
	      coll == ACIS_C_ALLGATHER) && !r->packed)) {
		const uint8_t *own = coll == ACIS_C_SCATTER ||
					     coll == ACIS_C_ALLTOALL ?
			(const uint8_t *)sbuf + (uint64_t)me * r->msg_size : sbuf;
		uint8_t *dst = coll == ACIS_C_SCATTER ?
			(uint8_t *)rbuf : (uint8_t *)rbuf + (uint64_t)me * r->msg_size;

		if (r->msg_size != 0 && dst != own &&
		    !(in_place && coll == ACIS_C_SCATTER))
			memmove(dst, own, r->msg_size);
	}
	if (coll == ACIS_C_GATHER && me != r->root && !r->packed)
		r->rbuf = NULL;
	for (tail = &ctx->active; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = r;
	if (ctx->umq != NULL)
		umq_replay(ctx, r);
	finish_if_done(r);
	/* Get the first window out at once. A request whose first sends
	 * failed is not left running behind an error: the caller gets no
	 * request to wait for, so none is kept. */
	rc = progress(ctx, 0, NULL);
	if (rc != ACIS_OK) {
		req_free(r);
		return rc;
	}
	*out = r;
	return ACIS_OK;
refuse:
	/* not started: nothing sent, its sequence number given back */
	req_free(r);
	comm->seq--;
	return rc;
}

static int
start(acis_comm_t *comm, uint8_t coll, const void *sbuf, void *rbuf,
      size_t count, enum acis_dtype dt, enum acis_op op, int root,
      acis_req_t **out)
{
	return start_ex(comm, coll, sbuf, rbuf, count, dt, op, root, out,
			ACIS_A_DEFAULT, 0, NULL);
}

/* Release a finished request; send its confirmation now. */
static int
req_finish(acis_req_t **req)
{
	acis_req_t *r = *req;
	acis_ctx_t *ctx = r->ctx;
	int rc = r->status;

	send_receipts(r);
	req_free(r);
	*req = NULL;
	if (ctx->tx_n != 0)
		flush(ctx);
	return rc;
}

int
acis_test(acis_req_t **req, int *done)
{
	acis_req_t *r;
	int rc;

	if (req == NULL || *req == NULL || done == NULL)
		return ACIS_ERR_INVAL;
	r = *req;
	*done = 0;
	if (!r->done && (rc = progress(r->ctx, 0, r)) != ACIS_OK)
		return rc;
	if (!r->done)
		return ACIS_OK;
	*done = 1;
	return req_finish(req);
}

int
acis_wait(acis_req_t **req)
{
	acis_req_t *r;
	int rc;

	if (req == NULL || *req == NULL)
		return ACIS_ERR_INVAL;
	r = *req;
	while (!r->done) {
		if ((rc = progress(r->ctx, 5, r)) != ACIS_OK) {
			req_free(r);
			*req = NULL;
			return rc;
		}
	}
	return req_finish(req);
}

int
acis_waitall(size_t n, acis_req_t **reqs)
{
	size_t i;
	int rc, first = ACIS_OK;

	for (i = 0; i < n; i++) {
		if (reqs[i] == NULL)
			continue;
		rc = acis_wait(&reqs[i]);
		if (rc != ACIS_OK && first == ACIS_OK)
			first = rc;
	}
	return first;
}

static int
run(acis_comm_t *comm, uint8_t coll, const void *sbuf, void *rbuf,
    size_t count, enum acis_dtype dt, enum acis_op op, int root)
{
	acis_req_t *r;
	int rc = start(comm, coll, sbuf, rbuf, count, dt, op, root, &r);

	if (rc != ACIS_OK)
		return rc; /* start keeps no request behind an error */
	return acis_wait(&r);
}

int
acis_allreduce(const void *s, void *r, size_t n, enum acis_dtype dt,
	       enum acis_op op, acis_comm_t *c)
{
	return run(c, ACIS_C_ALLREDUCE, s, r, n, dt, op, 0);
}

int
acis_reduce(const void *s, void *r, size_t n, enum acis_dtype dt,
	    enum acis_op op, int root, acis_comm_t *c)
{
	return run(c, ACIS_C_REDUCE, s, r, n, dt, op, root);
}

int
acis_bcast(void *b, size_t n, enum acis_dtype dt, int root, acis_comm_t *c)
{
	return run(c, ACIS_C_BCAST, b, b, n, dt, ACIS_OP_NONE, root);
}

int
acis_scatter(const void *s, void *r, size_t n, enum acis_dtype dt, int root,
	     acis_comm_t *c)
{
	return run(c, ACIS_C_SCATTER, s, r, n, dt, ACIS_OP_NONE, root);
}

int
acis_gather(const void *s, void *r, size_t n, enum acis_dtype dt, int root,
	    acis_comm_t *c)
{
	return run(c, ACIS_C_GATHER, s, r, n, dt, ACIS_OP_NONE, root);
}

int
acis_allgather(const void *s, void *r, size_t n, enum acis_dtype dt,
	       acis_comm_t *c)
{
	return run(c, ACIS_C_ALLGATHER, s, r, n, dt, ACIS_OP_NONE, 0);
}

int
acis_reduce_scatter(const void *s, void *r, size_t n, enum acis_dtype dt,
		    enum acis_op op, acis_comm_t *c)
{
	return run(c, ACIS_C_REDUCE_SCATTER, s, r, n, dt, op, 0);
}

int
acis_alltoall(const void *s, void *r, size_t n, enum acis_dtype dt,
	      acis_comm_t *c)
{
	return run(c, ACIS_C_ALLTOALL, s, r, n, dt, ACIS_OP_NONE, 0);
}

int
acis_ifused(acis_comm_t *comm, const struct acis_fused_args *a,
	    acis_req_t **req)
{
	acis_ctx_t *ctx = comm != NULL ? comm->ctx : NULL;
	unsigned int pat = a != NULL ? (unsigned int)a->pattern : 0;
	int has_root = pat == ACIS_FUSED_SCATTER_OP_REDUCE;
	uint64_t want_block, recv;
	uint8_t *msg;
	size_t len;

	if (req == NULL || ctx == NULL || a == NULL)
		return ACIS_ERR_INVAL;
	*req = NULL;
	if (pat == 0 || pat >= ACIS_FUSED_MAX)
		return fail(ctx, ACIS_ERR_INVAL, "fused: unknown pattern %u",
			    pat);
	if (acis_dtype_size(a->dtype) == 0)
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: unknown datatype "
			    "%d", acis_fused_name(pat), a->dtype);
	if (pat == ACIS_FUSED_ALLGATHER_OP ? a->op != ACIS_OP_NONE :
	    a->op >= ACIS_OP_MAX_ || !acis_op_valid(a->op, a->dtype))
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: op %s on %s: the "
			    "reductions take a built-in op defined on the "
			    "datatype (allgather_op none)",
			    acis_fused_name(pat), acis_op_name(a->op),
			    acis_dtype_name(a->dtype));
	if (a->map < ACIS_OP_USER_MIN || a->map > 255)
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: map %d is not a "
			    "user op (acis_op_create)", acis_fused_name(pat),
			    a->map);
	if (has_root && (a->root < 0 || (uint32_t)a->root >= comm->size))
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: root %d outside "
			    "0..%u", acis_fused_name(pat), a->root,
			    comm->size - 1);
	want_block = has_root ? (comm->rank == (uint32_t)a->root ?
				 (uint64_t)comm->size * ACIS_FUSED_BUF_MAX : 0) :
				ACIS_FUSED_BUF_MAX;
	if (pat == ACIS_FUSED_SCATTER_OP_REDUCE &&
	    want_block > ACIS_FUSED_SIN_MAX)
		want_block = ACIS_FUSED_SIN_MAX;
	if (a->block_bytes > want_block ||
	    a->inbound_bytes > ACIS_FUSED_BUF_MAX ||
	    a->out_bytes > ACIS_FUSED_BUF_MAX)
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: block %zu, inbound "
			    "%zu, out %zu bytes: at most %" PRIu64 ", %u, %u",
			    acis_fused_name(pat), a->block_bytes,
			    a->inbound_bytes, a->out_bytes, want_block,
			    ACIS_FUSED_BUF_MAX, ACIS_FUSED_BUF_MAX);
	if ((a->block_bytes != 0 && a->block == NULL) ||
	    (a->inbound_bytes != 0 && a->inbound == NULL))
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: a buffer of bytes "
			    "given as NULL", acis_fused_name(pat));
	recv = has_root && comm->rank != (uint32_t)a->root ? 0 : a->out_bytes;
	if (recv != 0 && a->result == NULL)
		return fail(ctx, ACIS_ERR_INVAL, "fused %s: %" PRIu64 " bytes "
			    "of result and no result buffer",
			    acis_fused_name(pat), recv);
	len = ACIS_FUSED_PREFIX + a->block_bytes + a->inbound_bytes;
	msg = malloc(len);
	if (msg == NULL)
		return ACIS_ERR_NOMEM;
	/* the prefix (acis_proto.h), the block, the inbound buffer */
	memset(msg, 0, ACIS_FUSED_PREFIX);
	wr_le32(msg, (uint32_t)a->block_bytes);
	wr_le32(msg + 4, (uint32_t)a->inbound_bytes);
	wr_le32(msg + 8, (uint32_t)a->out_bytes);
	msg[12] = (uint8_t)a->map;
	if (a->block_bytes != 0)
		memcpy(msg + ACIS_FUSED_PREFIX, a->block, a->block_bytes);
	if (a->inbound_bytes != 0)
		memcpy(msg + ACIS_FUSED_PREFIX + a->block_bytes, a->inbound,
		       a->inbound_bytes);
	return start_ex(comm, ACIS_C_FUSED, msg, a->result, len, a->dtype,
			a->op, has_root ? a->root : -1, req, (uint8_t)pat,
			recv, msg);
}

int
acis_fused(acis_comm_t *comm, const struct acis_fused_args *a)
{
	acis_req_t *r;
	int rc = acis_ifused(comm, a, &r);

	if (rc != ACIS_OK)
		return rc;
	return acis_wait(&r);
}

int
acis_barrier(acis_comm_t *c)
{
	return run(c, ACIS_C_BARRIER, NULL, NULL, 0, ACIS_INT32, ACIS_OP_NONE,
		   0);
}

int
acis_iallreduce(const void *s, void *r, size_t n, enum acis_dtype dt,
		enum acis_op op, acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_ALLREDUCE, s, r, n, dt, op, 0, q);
}

int
acis_ireduce(const void *s, void *r, size_t n, enum acis_dtype dt,
	     enum acis_op op, int root, acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_REDUCE, s, r, n, dt, op, root, q);
}

int
acis_ibcast(void *b, size_t n, enum acis_dtype dt, int root, acis_comm_t *c,
	    acis_req_t **q)
{
	return start(c, ACIS_C_BCAST, b, b, n, dt, ACIS_OP_NONE, root, q);
}

int
acis_iscatter(const void *s, void *r, size_t n, enum acis_dtype dt, int root,
	      acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_SCATTER, s, r, n, dt, ACIS_OP_NONE, root, q);
}

int
acis_igather(const void *s, void *r, size_t n, enum acis_dtype dt, int root,
	     acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_GATHER, s, r, n, dt, ACIS_OP_NONE, root, q);
}

int
acis_iallgather(const void *s, void *r, size_t n, enum acis_dtype dt,
		acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_ALLGATHER, s, r, n, dt, ACIS_OP_NONE, 0, q);
}

int
acis_ireduce_scatter(const void *s, void *r, size_t n, enum acis_dtype dt,
		     enum acis_op op, acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_REDUCE_SCATTER, s, r, n, dt, op, 0, q);
}

int
acis_ialltoall(const void *s, void *r, size_t n, enum acis_dtype dt,
	       acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_ALLTOALL, s, r, n, dt, ACIS_OP_NONE, 0, q);
}

int
acis_ibarrier(acis_comm_t *c, acis_req_t **q)
{
	return start(c, ACIS_C_BARRIER, NULL, NULL, 0, ACIS_INT32,
		     ACIS_OP_NONE, 0, q);
}

/* ------------------------------------------------------------------ */
/* Control                                                              */
/* ------------------------------------------------------------------ */

static int ctrl_call_with(acis_ctx_t *ctx, struct acis_hdr *h,
			  const void *payload, uint16_t len,
			  struct acis_hdr *reply);

/* Send a control request until its CTRL_ACK arrives or time runs out. */
static int
ctrl_call(acis_ctx_t *ctx, struct acis_hdr *h, struct acis_hdr *reply)
{
	return ctrl_call_with(ctx, h, NULL, 0, reply);
}

/* The same with a payload. */
static int
ctrl_call_with(acis_ctx_t *ctx, struct acis_hdr *h, const void *payload,
	       uint16_t len, struct acis_hdr *reply)
{
	uint64_t deadline = acis_now_ns() + (uint64_t)ctx->cfg.timeout_ms * 1000000ull;
	uint64_t next = 0;
	int rc;

	ctx->ctl.waiting = 1;
	ctx->ctl.got = 0;
	ctx->ctl.text[0] = '\0';
	ctx->ctl.opcode = h->opcode;
	ctx->ctl.job = h->job;
	ctx->ctl.comm = h->comm;
	ctx->ctl.seq = h->seq;
	while (!ctx->ctl.got) {
		uint64_t now = acis_now_ns();

		if (now > deadline) {
			ctx->ctl.waiting = 0;
			return fail(ctx, ACIS_ERR_TIMEOUT, "no answer from the "
				    "switch at %s:%u to %s within %u ms",
				    inet_ntoa(ctx->sw.sin_addr),
				    ntohs(ctx->sw.sin_port),
				    h->opcode == ACIS_CTRL_JOIN ? "join (are all "
				    "ranks started, and the switch up?)" :
				    "a control request", ctx->cfg.timeout_ms);
		}
		if (now >= next) {
			if (next != 0)
				ctx->st.ctrl_retries++;
			if ((rc = queue_msg(ctx, h, payload, len)) != ACIS_OK ||
			    (rc = flush(ctx)) != ACIS_OK) {
				ctx->ctl.waiting = 0;
				return rc;
			}
			next = now + CTRL_RESEND_MS * 1000000ull;
		}
		if ((rc = progress(ctx, 10, NULL)) != ACIS_OK) {
			ctx->ctl.waiting = 0;
			return rc;
		}
	}
	ctx->ctl.waiting = 0;
	*reply = ctx->ctl.reply;
	if (reply->status != ACIS_S_OK)
		return fail(ctx, ACIS_ERR_REFUSED, "switch refused the request: "
			    "%s%s%s", status_name(reply->status),
			    ctx->ctl.text[0] != '\0' ? ": " : "",
			    ctx->ctl.text);
	return ACIS_OK;
}

static void
ctrl_hdr(acis_ctx_t *ctx, uint8_t opcode, struct acis_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = ACIS_PROTO_VERSION;
	h->type = ACIS_T_CTRL;
	h->opcode = opcode;
	h->hdr_len = ACIS_HDR_LEN;
	h->job = ctx->cfg.job;
	h->root = ACIS_RANK_NONE;
}

static acis_comm_t *
comm_new(acis_ctx_t *ctx, uint32_t id, uint32_t rank, uint32_t size)
{
	acis_comm_t *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ctx = ctx;
	c->id = id;
	c->rank = rank;
	c->size = size;
	c->next = ctx->comms;
	ctx->comms = c;
	return c;
}

static void
comm_unlink(acis_comm_t *c)
{
	acis_comm_t **pp;

	for (pp = &c->ctx->comms; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c);
}

/* The transport the configuration names, inside fault injection when a
 * fault knob is set. */
static int
open_transport(acis_ctx_t *ctx)
{
	const struct acis_config *c = &ctx->cfg;
	struct acis_transport_cfg tc = {
		.abi = ACIS_TRANSPORT_ABI,
		.switch_ip = ctx->sw.sin_addr.s_addr,
		.switch_port = ctx->sw.sin_port,
		.host_port = htons(c->bind_port),
		.mtu = c->mtu,
		.gso_segs = c->gso_segs,
		.dpdk_port = c->dpdk_port,
		.dpdk_eal = c->dpdk_eal,
		.host_mac = c->host_mac,
		.switch_mac = c->switch_mac,
		.poll_us = c->poll_us,
		.rank = c->rank,
		.st = &ctx->st,
	};
	int rc, dpdk;

	if (c->bind_ip != NULL &&
	    inet_pton(AF_INET, c->bind_ip, &tc.host_ip) != 1)
		return fail(ctx, ACIS_ERR_INVAL, "bad bind address '%s'",
			    c->bind_ip);
	dpdk = c->transport != NULL && strcmp(c->transport, "dpdk") == 0;
	if (c->transport != NULL && !dpdk && strcmp(c->transport, "udp") != 0)
		return fail(ctx, ACIS_ERR_INVAL, "transport '%s': expected "
			    "udp or dpdk", c->transport);
	/* what the DPDK transport cannot start without, said before its
	 * module (and DPDK) is loaded */
	if (dpdk && c->dpdk_port == NULL)
		return fail(ctx, ACIS_ERR_INVAL, "transport dpdk: no port "
			    "(ACIS_DPDK_PORT, e.g. net_memif0,role=client,"
			    "socket=/run/acis-memif/h0.sock,socket-abstract=no)");
	if (dpdk && tc.host_ip == 0)
		return fail(ctx, ACIS_ERR_INVAL, "transport dpdk: no address "
			    "for this host (ACIS_BIND=A.B.C.D): there is no "
			    "kernel to know it");
	rc = dpdk ? acis_dpdk_load(&tc, &ctx->tp, ctx->err, sizeof(ctx->err))
		  : acis_udp_open(&tc, &ctx->tp, ctx->err, sizeof(ctx->err));
	if (rc != ACIS_OK)
		return rc;
	if (c->fault_drop > 0 || c->fault_dup > 0 || c->fault_reorder > 0) {
		struct acis_fault_cfg fc = {
			.drop = c->fault_drop,
			.dup = c->fault_dup,
			.reorder = c->fault_reorder,
			.window = c->fault_window,
			.seed = c->fault_seed ^
				(0x9e3779b97f4a7c15ull * (c->rank + 1)),
		};
		struct acis_transport *f;

		rc = acis_fault_wrap(ctx->tp, &fc, &f, ctx->err,
				     sizeof(ctx->err));
		if (rc != ACIS_OK)
			return rc; /* acis_init closes ctx->tp */
		ctx->tp = f;
	}
	return ACIS_OK;
}

/* Why this thread's last acis_init failed (acis_init_error): its
 * context, and the context's message, are gone by then. The library
 * prints nothing; its callers say it. */
static __thread char init_err[256];

static void init_say(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* An acis_init failure, kept for acis_init_error. */
static void
init_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(init_err, sizeof(init_err), fmt, ap);
	va_end(ap);
}

const char *
acis_init_error(void)
{
	return init_err;
}

int
acis_init(const struct acis_config *cfg_in, acis_ctx_t **out)
{
	acis_ctx_t *ctx;
	struct acis_hdr h, reply;
	int rc;

	init_err[0] = '\0';
	if (cfg_in == NULL || out == NULL || cfg_in->switch_ip == NULL) {
		init_say("no %s", cfg_in == NULL ?
			"configuration" : out == NULL ? "place for the context" :
			"switch address");
		return ACIS_ERR_INVAL;
	}
	*out = NULL;
	if (env_err[0] != '\0') {
		init_say("%s", env_err);
		return ACIS_ERR_INVAL;
	}
	if (cfg_in->size == 0 || cfg_in->rank >= cfg_in->size) {
		init_say("rank %u of a job of size %u: expected a size of "
			 "1 or more and a rank below it",
			 cfg_in->rank, cfg_in->size);
		return ACIS_ERR_INVAL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		init_say("out of memory");
		return ACIS_ERR_NOMEM;
	}
	ctx->cfg = *cfg_in;
	if (ctx->cfg.switch_port == 0)
		ctx->cfg.switch_port = 47000;
	if (ctx->cfg.timeout_ms == 0)
		ctx->cfg.timeout_ms = 10000;
	if (ctx->cfg.window == 0)
		ctx->cfg.window = 128;
	if (ctx->cfg.mtu == 0)
		ctx->cfg.mtu = 1500;
	if (ctx->cfg.rto_ms == 0)
		ctx->cfg.rto_ms = 100;
	ctx->rto_ns = (uint64_t)(ctx->cfg.rto_ms < RTO_MAX_MS ? ctx->cfg.rto_ms : RTO_MAX_MS) * 1000000ull;
	if (ctx->cfg.fault_window == 0)
		ctx->cfg.fault_window = 8;
	if (ctx->cfg.fault_window > ACIS_FAULT_WINDOW_MAX)
		ctx->cfg.fault_window = ACIS_FAULT_WINDOW_MAX;
	if (ctx->cfg.mtu < 576 || ctx->cfg.mtu > 9000) {
		init_say("mtu %u outside 576..9000", ctx->cfg.mtu);
		free(ctx);
		return ACIS_ERR_INVAL;
	}
	if (ctx->cfg.auth != NULL && strcmp(ctx->cfg.auth, "off") != 0 &&
	    strcmp(ctx->cfg.auth, "cookie") != 0) {
		init_say("auth '%s': expected cookie or off", ctx->cfg.auth);
		free(ctx);
		return ACIS_ERR_INVAL;
	}
	if ((ctx->cfg.auth == NULL || strcmp(ctx->cfg.auth, "off") != 0) &&
	    new_cookie(&ctx->cookie) != 0) {
		init_say("no random bytes for this rank's cookie: %s",
			 strerror(errno));
		free(ctx);
		return ACIS_ERR_SYS;
	}
	ctx->chunk_size = ACIS_MAX_PAYLOAD(ctx->cfg.mtu) & ~7u;
	ctx->rcpt_max = ctx->chunk_size / 4 < RCPT_MAX ? ctx->chunk_size / 4
						       : RCPT_MAX;
	ctx->sw.sin_family = AF_INET;
	ctx->sw.sin_port = htons(ctx->cfg.switch_port);
	if (inet_pton(AF_INET, ctx->cfg.switch_ip, &ctx->sw.sin_addr) != 1) {
		rc = fail(ctx, ACIS_ERR_INVAL, "bad switch address '%s'",
			  ctx->cfg.switch_ip);
		goto out_free;
	}
	if ((rc = open_transport(ctx)) != ACIS_OK)
		goto out_free;
	ctrl_hdr(ctx, ACIS_CTRL_JOIN, &h);
	h.rank = ctx->cfg.rank;
	h.root = ctx->cfg.size;
	rc = ctrl_call(ctx, &h, &reply);
	if (rc != ACIS_OK)
		goto out_free;
	ctx->world = comm_new(ctx, reply.comm, ctx->cfg.rank, ctx->cfg.size);
	if (ctx->world == NULL) {
		rc = fail(ctx, ACIS_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	ctx->world->is_world = 1;
	*out = ctx;
	return ACIS_OK;
out_free:
	/* the context and its message go: say it while there is one */
	if (ctx->err[0] != '\0')
		init_say("%s", ctx->err);
	else
		init_say("%s", acis_strerror(rc));
	if (ctx->tp != NULL)
		ctx->tp->ops->close(ctx->tp);
	free(ctx);
	return rc;
}

int
acis_finalize(acis_ctx_t *ctx)
{
	struct acis_hdr h, reply;
	int rc, brc;

	if (ctx == NULL)
		return ACIS_ERR_INVAL;
	while (ctx->active != NULL)
		req_free(ctx->active);
	/* A rank that leaves no longer confirms what the switch sends it
	 * again, and the sender of a forwarded block waits for exactly that:
	 * leave only once every rank is here (a barrier completes only when
	 * every rank has finished what came before). A job that lost a rank
	 * cannot meet; its survivors just leave. */
	/* A switch that forgot the job has no one to meet: no barrier
	 * (the LEAVE below is answered NO_JOB at once, which is done). */
	brc = ctx->peer_missing || ctx->switch_lost ? ACIS_OK :
	      acis_barrier(ctx->world);
	if (ctx->switch_lost)
		brc = ACIS_OK; /* the barrier found the job gone: left */
	ctrl_hdr(ctx, ACIS_CTRL_LEAVE, &h);
	h.rank = ctx->cfg.rank;
	rc = ctrl_call(ctx, &h, &reply);
	/* the answer to our first LEAVE was lost: the repeat finds us (or
	 * the whole job) gone, which is what we asked for */
	if (rc == ACIS_ERR_REFUSED && (reply.status == ACIS_S_NOT_MEMBER ||
				       reply.status == ACIS_S_NO_JOB))
		rc = ACIS_OK;
	if (rc == ACIS_OK)
		rc = brc;
	while (ctx->comms != NULL)
		comm_unlink(ctx->comms);
	umq_clear(ctx);
	ctx->tp->ops->close(ctx->tp);
	free(ctx);
	return rc;
}

acis_comm_t *
acis_comm_world(acis_ctx_t *ctx)
{
	return ctx != NULL ? ctx->world : NULL;
}

int
acis_comm_rank(const acis_comm_t *c)
{
	return c != NULL ? (int)c->rank : ACIS_ERR_INVAL;
}

int
acis_comm_size(const acis_comm_t *c)
{
	return c != NULL ? (int)c->size : ACIS_ERR_INVAL;
}

uint32_t
acis_comm_id(const acis_comm_t *c)
{
	return c != NULL ? c->id : ACIS_CTX_NONE;
}

int
acis_comm_split(acis_comm_t *comm, int color, int key, acis_comm_t **newcomm)
{
	acis_ctx_t *ctx;
	struct acis_hdr h, reply;
	int rc;

	if (comm == NULL || newcomm == NULL || (color < 0 && color != ACIS_UNDEFINED))
		return ACIS_ERR_INVAL;
	ctx = comm->ctx;
	*newcomm = NULL;
	ctrl_hdr(ctx, ACIS_CTRL_SPLIT, &h);
	h.comm = comm->id;
	h.seq = comm->seq++;
	h.rank = comm->rank;
	h.chunk = color == ACIS_UNDEFINED ? ACIS_CTX_NONE : (uint32_t)color;
	/* keys order members; offset so negative keys sort first */
	h.msg_size = (uint64_t)((int64_t)key + (1ll << 31));
	rc = ctrl_call(ctx, &h, &reply);
	if (rc != ACIS_OK)
		return rc;
	if ((uint32_t)reply.msg_size == ACIS_CTX_NONE)
		return ACIS_OK;
	*newcomm = comm_new(ctx, (uint32_t)reply.msg_size, reply.chunk,
			    reply.root);
	return *newcomm != NULL ? ACIS_OK : ACIS_ERR_NOMEM;
}

int
acis_comm_attach(acis_ctx_t *ctx, uint32_t id, acis_comm_t **comm)
{
	struct acis_hdr h, reply;
	int rc;

	if (ctx == NULL || comm == NULL)
		return ACIS_ERR_INVAL;
	*comm = NULL;
	ctrl_hdr(ctx, ACIS_CTRL_COMM_QUERY, &h);
	h.comm = id;
	h.rank = ctx->cfg.rank;
	rc = ctrl_call(ctx, &h, &reply);
	if (rc != ACIS_OK)
		return rc;
	*comm = comm_new(ctx, id, reply.rank, reply.root);
	return *comm != NULL ? ACIS_OK : ACIS_ERR_NOMEM;
}

int
acis_comm_detach(acis_comm_t **comm)
{
	if (comm == NULL || *comm == NULL || (*comm)->is_world)
		return ACIS_ERR_INVAL;
	if (comm_pending(*comm) != 0)
		return fail((*comm)->ctx, ACIS_ERR_STATE, "comm %u has %u "
			    "requests running: wait for them first",
			    (*comm)->id, comm_pending(*comm));
	comm_unlink(*comm);
	*comm = NULL;
	return ACIS_OK;
}

int
acis_comm_free(acis_comm_t **comm)
{
	acis_comm_t *c;
	struct acis_hdr h, reply;
	int rc;

	if (comm == NULL || *comm == NULL)
		return ACIS_ERR_INVAL;
	c = *comm;
	if (c->is_world)
		return fail(c->ctx, ACIS_ERR_STATE, "the world communicator "
			    "cannot be freed");
	if (comm_pending(c) != 0)
		return fail(c->ctx, ACIS_ERR_STATE, "comm %u has %u requests "
			    "running: wait for them first", c->id,
			    comm_pending(c));
	ctrl_hdr(c->ctx, ACIS_CTRL_COMM_FREE, &h);
	h.comm = c->id;
	h.seq = c->seq++;
	h.rank = c->rank;
	rc = ctrl_call(c->ctx, &h, &reply);
	/* already gone means the free happened */
	if (rc == ACIS_ERR_REFUSED && reply.status == ACIS_S_NO_COMM)
		rc = ACIS_OK;
	comm_unlink(c);
	*comm = NULL;
	return rc;
}

/* ------------------------------------------------------------------ */
/* The switch steering progress: deadlines and SSP (doc/sync.md)        */
/* ------------------------------------------------------------------ */

static void
sync_hdr(acis_comm_t *c, uint8_t opcode, struct acis_hdr *h)
{
	ctrl_hdr(c->ctx, opcode, h);
	h->comm = c->id;
	h->rank = c->rank;
}

int
acis_deadline_set(acis_comm_t *comm, uint32_t period_us)
{
	struct acis_hdr h, reply;

	if (comm == NULL)
		return ACIS_ERR_INVAL;
	if (period_us != 0 && (period_us < 100 || period_us > 3600000000u))
		return fail(comm->ctx, ACIS_ERR_INVAL, "deadline period %u us: "
			    "expected 100 us to 1 hour, or 0 to stop",
			    period_us);
	sync_hdr(comm, ACIS_CTRL_DEADLINE, &h);
	h.chunk = 0;
	h.msg_size = period_us;
	return ctrl_call(comm->ctx, &h, &reply);
}

uint32_t
acis_deadline_epoch(const acis_comm_t *comm)
{
	return comm != NULL ? comm->dl_epoch : 0;
}

int
acis_deadline_wait(acis_comm_t *comm, uint32_t after, uint32_t *epoch)
{
	acis_ctx_t *ctx;
	uint64_t deadline;
	int rc;

	if (comm == NULL)
		return ACIS_ERR_INVAL;
	ctx = comm->ctx;
	deadline = acis_now_ns() + (uint64_t)ctx->cfg.timeout_ms * 1000000ull;
	while ((int32_t)(comm->dl_epoch - after) <= 0) {
		if (acis_now_ns() > deadline)
			return fail(ctx, ACIS_ERR_TIMEOUT, "no deadline signal "
				    "after epoch %u on comm %u within %u ms (is "
				    "a deadline set?)", after, comm->id,
				    ctx->cfg.timeout_ms);
		if ((rc = progress(ctx, 10, NULL)) != ACIS_OK)
			return rc;
	}
	if (epoch != NULL)
		*epoch = comm->dl_epoch;
	return ACIS_OK;
}

int
acis_deadline_report(acis_comm_t *comm, uint32_t epoch, int *late)
{
	struct acis_hdr h, reply;
	int rc;

	if (comm == NULL || epoch == 0)
		return comm == NULL ? ACIS_ERR_INVAL :
			fail(comm->ctx, ACIS_ERR_INVAL, "epochs count from 1");
	sync_hdr(comm, ACIS_CTRL_DEADLINE, &h);
	h.chunk = 1;
	h.seq = epoch;
	rc = ctrl_call(comm->ctx, &h, &reply);
	if (rc == ACIS_OK && late != NULL)
		*late = reply.root == 1;
	return rc;
}

/* An SSP done sent without waiting for its answer (the member knew it
 * may go on): sent again every CTRL_RESEND_MS until the switch answers,
 * by whatever call of the context runs next, so a lost one never leaves
 * the others waiting for this member. */
static int
ssp_post(acis_comm_t *c)
{
	struct acis_hdr h;
	int rc;

	sync_hdr(c, ACIS_CTRL_SSP, &h);
	h.seq = c->ssp_posted;
	h.root = c->ssp_s;
	h.chunk = c->ssp_q;
	c->ssp_posted_at = acis_now_ns();
	if ((rc = queue_msg(c->ctx, &h, NULL, 0)) != ACIS_OK)
		return rc;
	return flush(c->ctx);
}

static int
ssp_repost(acis_ctx_t *ctx, uint64_t now)
{
	acis_comm_t *c;
	unsigned int n = 0;
	int rc;

	for (c = ctx->comms; c != NULL; c = c->next) {
		if (c->ssp_posted == 0)
			continue;
		n++;
		if (now - c->ssp_posted_at < CTRL_RESEND_MS * 1000000ull)
			continue;
		ctx->st.ctrl_retries++;
		if ((rc = ssp_post(c)) != ACIS_OK)
			return rc;
	}
	ctx->ssp_posts = n;
	return ACIS_OK;
}

int
acis_ssp_done(acis_comm_t *comm, uint32_t iteration, uint32_t staleness,
	      uint32_t quorum)
{
	struct acis_hdr h, reply;
	int rc;

	if (comm == NULL)
		return ACIS_ERR_INVAL;
	if (iteration == 0 || staleness > 1000000u || quorum > comm->size)
		return fail(comm->ctx, ACIS_ERR_INVAL, "ssp: iteration %u, "
			    "staleness %u, quorum %u: expected iterations from "
			    "1, staleness up to 1000000, quorum up to %u (0: "
			    "all)", iteration, staleness, quorum, comm->size);
	if ((uint64_t)iteration <= (uint64_t)comm->ssp_reach + staleness) {
		/* allowed on already: tell the switch, do not wait */
		if ((int32_t)(iteration - comm->ssp_posted) > 0 ||
		    comm->ssp_posted == 0) {
			if (comm->ssp_posted == 0)
				comm->ctx->ssp_posts++;
			comm->ssp_posted = iteration;
			comm->ssp_s = staleness;
			comm->ssp_q = quorum;
			return ssp_post(comm);
		}
		return ACIS_OK;
	}
	sync_hdr(comm, ACIS_CTRL_SSP, &h);
	h.seq = iteration;
	h.root = staleness;
	h.chunk = quorum;
	rc = ctrl_call(comm->ctx, &h, &reply);
	if (rc == ACIS_OK && reply.msg_size > comm->ssp_reach &&
	    reply.msg_size <= UINT32_MAX)
		comm->ssp_reach = (uint32_t)reply.msg_size;
	return rc;
}

/* ------------------------------------------------------------------ */
/* User-defined reduction operators                                     */
/* ------------------------------------------------------------------ */

int
acis_op_create(acis_ctx_t *ctx, const char *name, const uint32_t *words,
	       size_t n_words, int commutative, enum acis_op *op)
{
	uint8_t pl[ACIS_OP_NAME_LEN + 4 * ACIS_OP_WORDS_MAX];
	struct acis_hdr h, reply;
	size_t nl, i;
	int rc;

	if (ctx == NULL || name == NULL || op == NULL ||
	    (words == NULL && n_words != 0))
		return ACIS_ERR_INVAL;
	nl = strlen(name);
	if (nl == 0 || nl >= ACIS_OP_NAME_LEN)
		return fail(ctx, ACIS_ERR_INVAL, "a user op's name is 1 to %d "
			    "characters, found '%s'", ACIS_OP_NAME_LEN - 1,
			    name);
	if (n_words == 0 || n_words > ACIS_OP_WORDS_MAX)
		return fail(ctx, ACIS_ERR_INVAL, "op %s: a program of 1 to %d "
			    "words, found %zu", name, ACIS_OP_WORDS_MAX,
			    n_words);
	memset(pl, 0, ACIS_OP_NAME_LEN);
	memcpy(pl, name, nl);
	for (i = 0; i < n_words; i++) {
		uint32_t w = words[i];

		pl[ACIS_OP_NAME_LEN + 4 * i] = (uint8_t)w;
		pl[ACIS_OP_NAME_LEN + 4 * i + 1] = (uint8_t)(w >> 8);
		pl[ACIS_OP_NAME_LEN + 4 * i + 2] = (uint8_t)(w >> 16);
		pl[ACIS_OP_NAME_LEN + 4 * i + 3] = (uint8_t)(w >> 24);
	}
	ctrl_hdr(ctx, ACIS_CTRL_OP_CREATE, &h);
	h.rank = ctx->cfg.rank;
	h.root = commutative != 0;
	h.msg_size = n_words;
	h.seq = ++ctx->op_seq;
	h.payload_len = (uint16_t)(ACIS_OP_NAME_LEN + 4 * n_words);
	rc = ctrl_call_with(ctx, &h, pl, h.payload_len, &reply);
	if (rc != ACIS_OK)
		return rc;
	if (reply.op < ACIS_OP_USER_MIN)
		return fail(ctx, ACIS_ERR_REFUSED, "op %s: the switch answered "
			    "op %u, not a user op's number", name, reply.op);
	*op = (enum acis_op)reply.op;
	return ACIS_OK;
}

int
acis_op_free(acis_ctx_t *ctx, enum acis_op op)
{
	struct acis_hdr h, reply;

	if (ctx == NULL || (unsigned int)op < ACIS_OP_USER_MIN ||
	    (unsigned int)op > 255)
		return ACIS_ERR_INVAL;
	ctrl_hdr(ctx, ACIS_CTRL_OP_FREE, &h);
	h.rank = ctx->cfg.rank;
	h.op = (uint8_t)op;
	h.seq = ++ctx->op_seq;
	return ctrl_call(ctx, &h, &reply);
}
