/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of libacis against a switch played by a thread on loopback:
 * what a rank puts on the wire for ACIS_IN_PLACE calls (the bytes of every
 * DATA chunk the "switch" receives are checked), the 8 and 16-bit
 * integers' codes and sizes on the wire, the refusals of bad arguments and
 * bad ACIS_* variables, and a communicator that cannot be let go while a
 * request on it runs.
 *
 * The switch thread answers control requests, and DATA as the test's mode
 * says; it records every DATA chunk it is sent. The rank is rank 1 of a
 * job of 2, MTU 576 (chunks of 488 bytes); with a window of one chunk the
 * answers of one chunk arrive before the next chunk is sent.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis.h"
#include "acis_proto.h"

#define CS 488u            /* chunk bytes at MTU 576 */
#define CPR 3u             /* chunks in a block */
#define BLK (CS * CPR)     /* one rank's block */
#define MAX_REC 64

enum mode {
	M_SILENT,          /* DATA goes unanswered */
	M_ACK,             /* every DATA chunk ACKed (scatter's root) */
	M_ALLGATHER,       /* rank 0's whole block as RESULTs, then ACK */
	M_REDUCE_SCATTER,  /* block 1: RESULT; block 0: first copy lost */
	M_FORGOT,          /* a restarted switch: DATA answered NO_COMM */
	M_FORGED,          /* M_ALLGATHER after forgeries of each answer */
};

struct rec {
	uint32_t seq, chunk;
	uint64_t msg_size;
	uint16_t len;
	uint8_t retrans, dtype;
	uint8_t data[CS];
};

static struct {
	int fd;
	pthread_t thread;
	uint16_t port;
	pthread_mutex_t lock;
	enum mode mode;
	struct rec rec[MAX_REC];
	unsigned int n_rec;
	uint8_t lost[CPR];     /* block-0 chunks already lost once */
	uint64_t join_auth;    /* the cookie the last JOIN carried */
} sw = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void
sw_send(const struct acis_hdr *h, const void *payload,
	const struct sockaddr_in *to)
{
	uint8_t out[ACIS_HDR_LEN + CS];

	acis_hdr_encode(h, out);
	if (payload != NULL && h->payload_len != 0)
		memcpy(out + ACIS_HDR_LEN, payload, h->payload_len);
	(void)sendto(sw.fd, out, ACIS_HDR_LEN + h->payload_len, 0,
		     (const struct sockaddr *)to, sizeof(*to));
}

static void
sw_answer(struct acis_hdr h, uint8_t type, uint32_t rank, uint32_t chunk,
	  const void *payload, uint16_t len, const struct sockaddr_in *to)
{
	h.status = ACIS_S_OK;
	h.type = type;
	h.flags = 0;
	h.rank = rank;
	h.chunk = chunk;
	h.payload_len = len;
	h.contributors = type == ACIS_T_RESULT ? 1 : 0;
	sw_send(&h, payload, to);
}

static void
sw_data(const struct acis_hdr *h, const uint8_t *p,
	const struct sockaddr_in *from)
{
	uint8_t fill[CS];
	uint32_t c;

	if (sw.mode == M_FORGOT) {
		pthread_mutex_lock(&sw.lock);
		sw.n_rec++;
		pthread_mutex_unlock(&sw.lock);
		{
			struct acis_hdr n = *h;

			n.type = ACIS_T_NACK;
			n.status = ACIS_S_NO_COMM;
			n.flags = 0;
			n.payload_len = 0;
			n.contributors = 0;
			sw_send(&n, NULL, from);
		}
		return;
	}
	if (ACIS_OPCODE_COLL(h->opcode) == ACIS_C_BARRIER) {
		/* acis_finalize's: the other rank is here too */
		sw_answer(*h, ACIS_T_RESULT, 1, 0, NULL, 0, from);
		return;
	}
	pthread_mutex_lock(&sw.lock);
	if (sw.n_rec < MAX_REC) {
		struct rec *r = &sw.rec[sw.n_rec++];

		r->seq = h->seq;
		r->chunk = h->chunk;
		r->msg_size = h->msg_size;
		r->dtype = h->dtype;
		r->len = h->payload_len;
		r->retrans = (h->flags & ACIS_F_RETRANS) != 0;
		memcpy(r->data, p, h->payload_len);
	}
	pthread_mutex_unlock(&sw.lock);
	switch (sw.mode) {
	case M_SILENT:
	case M_FORGOT: /* answered above */
		break;
	case M_ACK:
		sw_answer(*h, ACIS_T_ACK, 1, h->chunk, NULL, 0, from);
		break;
	case M_FORGED:
		/* what a host that writes the switch's address sends first:
		 * results, an ACK and a NACK TIMEOUT without the rank's
		 * cookie (wrong, and none) */
		if (h->chunk == 0 && !(h->flags & ACIS_F_RETRANS)) {
			struct acis_hdr f = *h;

			memset(fill, 0x66, sizeof(fill));
			f.auth = h->auth ^ 1;
			for (c = 0; c < CPR; c++)
				sw_answer(f, ACIS_T_RESULT, 0, c, fill, CS,
					  from);
			f.auth = 0;
			sw_answer(f, ACIS_T_ACK, 1, 0, NULL, 0, from);
			f.type = ACIS_T_NACK;
			f.status = ACIS_S_TIMEOUT;
			f.payload_len = 0;
			sw_send(&f, NULL, from);
		}
		/* fall through */
	case M_ALLGATHER:
		/* all of rank 0's block the moment ours starts */
		memset(fill, 0xaa, sizeof(fill));
		if (h->chunk == 0 && !(h->flags & ACIS_F_RETRANS))
			for (c = 0; c < CPR; c++)
				sw_answer(*h, ACIS_T_RESULT, 0, c, fill, CS,
					  from);
		sw_answer(*h, ACIS_T_ACK, 1, h->chunk, NULL, 0, from);
		break;
	case M_REDUCE_SCATTER:
		if (h->chunk / CPR == 1) {
			/* my block's result, over block 0 of the input */
			memset(fill, 0x99, sizeof(fill));
			sw_answer(*h, ACIS_T_RESULT, 1, h->chunk % CPR, fill,
				  h->payload_len, from);
		} else if (sw.lost[h->chunk]++ == 0) {
			break; /* lost: comes again after the RTO */
		} else {
			sw_answer(*h, ACIS_T_ACK, 1, h->chunk, NULL, 0, from);
		}
		break;
	}
}

static void *
sw_main(void *arg)
{
	uint8_t buf[2048];

	(void)arg;
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(sw.fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &fl);
		struct acis_hdr h;

		if (n <= 0) /* shut down */
			return NULL;
		if (acis_msg_parse(buf, (size_t)n, &h) != ACIS_E_OK)
			continue;
		if (h.type == ACIS_T_CTRL) {
			h.type = ACIS_T_CTRL_ACK;
			h.status = ACIS_S_OK;
			if (h.opcode == ACIS_CTRL_JOIN) {
				h.comm = 1;
				pthread_mutex_lock(&sw.lock);
				sw.join_auth = h.auth;
				pthread_mutex_unlock(&sw.lock);
			}
			if (h.opcode == ACIS_CTRL_COMM_QUERY) {
				h.rank = 1; /* my rank in it */
				h.root = 2; /* its size */
			}
			h.payload_len = 0;
			sw_send(&h, NULL, &from);
		} else if (h.type == ACIS_T_DATA) {
			sw_data(&h, buf + h.hdr_len, &from);
		}
	}
}

static int
setup(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sw.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (sw.fd < 0 || bind(sw.fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(sw.fd, (struct sockaddr *)&a, &al) != 0)
		return -1;
	sw.port = ntohs(a.sin_port);
	return pthread_create(&sw.thread, NULL, sw_main, NULL);
}

static int
teardown(void **state)
{
	(void)state;
	shutdown(sw.fd, SHUT_RDWR);
	pthread_join(sw.thread, NULL);
	close(sw.fd);
	return 0;
}

static acis_ctx_t *
join(enum mode mode, unsigned int timeout_ms, unsigned int window)
{
	struct acis_config cfg;
	acis_ctx_t *ctx;

	pthread_mutex_lock(&sw.lock);
	sw.mode = mode;
	sw.n_rec = 0;
	memset(sw.lost, 0, sizeof(sw.lost));
	pthread_mutex_unlock(&sw.lock);
	acis_config_default(&cfg);
	cfg.switch_ip = "127.0.0.1";
	cfg.switch_port = sw.port;
	cfg.bind_ip = "127.0.0.1";
	cfg.job = 9;
	cfg.rank = 1;
	cfg.size = 2;
	cfg.mtu = 576;
	cfg.window = window;
	cfg.rto_ms = 20;
	cfg.timeout_ms = timeout_ms;
	assert_int_equal(acis_init(&cfg, &ctx), ACIS_OK);
	assert_string_equal(acis_init_error(), "");
	return ctx;
}

static void
leave(acis_ctx_t *ctx)
{
	assert_int_equal(acis_finalize(ctx), ACIS_OK);
}

/* Every DATA chunk recorded, checked against the bytes it should carry:
 * want(key) is the block the chunk key's bytes come from. */
static void
check_sent(const uint8_t *(*want)(uint32_t key, const void *arg),
	   const void *arg, unsigned int min_records)
{
	static struct rec rec[MAX_REC];
	unsigned int i, n;

	/* a copy: a failing check must not leave the lock held */
	pthread_mutex_lock(&sw.lock);
	n = sw.n_rec;
	memcpy(rec, sw.rec, sizeof(rec));
	pthread_mutex_unlock(&sw.lock);
	assert_true(n >= min_records);
	for (i = 0; i < n; i++) {
		const struct rec *r = &rec[i];
		const uint8_t *w = want(r->chunk, arg) + (r->chunk % CPR) * CS;

		assert_int_equal(r->len, CS);
		if (memcmp(r->data, w, CS) != 0)
			fail_msg("DATA chunk %u (%s) is not the input's bytes",
				 r->chunk, r->retrans ? "sent again" : "first");
	}
}

static void
pattern(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static const uint8_t *
block_of(uint32_t key, const void *arg)
{
	return (const uint8_t *)arg + (size_t)(key / CPR) * BLK;
}

static const uint8_t *
same_block(uint32_t key, const void *arg)
{
	(void)key;
	return arg;
}

/* Scatter, root 1 of 2, in place: the root's buffer holds both blocks;
 * block 0 goes out as it was, block 1 (the root's) stays where it is. */
static void
test_in_place_scatter_sends_each_block_and_leaves_the_roots(void **state)
{
	static uint8_t buf[2 * BLK], in[2 * BLK];
	acis_ctx_t *ctx = join(M_ACK, 5000, 1);

	(void)state;
	pattern(in, sizeof(in), 1);
	memcpy(buf, in, sizeof(buf));
	assert_int_equal(acis_scatter(ACIS_IN_PLACE, buf, BLK / 4,
				      ACIS_FLOAT32, 1, acis_comm_world(ctx)),
			 ACIS_OK);
	check_sent(block_of, in, CPR);
	assert_memory_equal(buf, in, sizeof(buf));
	leave(ctx);
}

/* Allgather, rank 1 of 2, in place: my block is block 1 of the buffer and
 * goes out from there, untouched by rank 0's block arriving first. */
static void
test_in_place_allgather_sends_my_block_not_what_arrives(void **state)
{
	static uint8_t buf[2 * BLK], mine[BLK], zero_blk[BLK];
	acis_ctx_t *ctx = join(M_ALLGATHER, 5000, 1);

	(void)state;
	pattern(mine, sizeof(mine), 3);
	memset(buf, 0, sizeof(buf));
	memcpy(buf + BLK, mine, BLK);
	assert_int_equal(acis_allgather(ACIS_IN_PLACE, buf, BLK / 4,
					ACIS_FLOAT32, acis_comm_world(ctx)),
			 ACIS_OK);
	check_sent(same_block, mine, CPR);
	memset(zero_blk, 0xaa, sizeof(zero_blk));
	assert_memory_equal(buf, zero_blk, BLK);
	assert_memory_equal(buf + BLK, mine, BLK);
	leave(ctx);
}

/* Answers in the switch's name without this rank's cookie (a host that
 * forges the switch's address knows everything else) are dropped and
 * counted; the switch's own, which carry it, are taken. */
static void
test_answers_without_the_cookie_are_rejected(void **state)
{
	static uint8_t buf[2 * BLK], mine[BLK], blk0[BLK];
	acis_ctx_t *ctx = join(M_FORGED, 5000, 1);
	struct acis_client_stats st;
	uint64_t cookie;

	(void)state;
	pthread_mutex_lock(&sw.lock);
	cookie = sw.join_auth;
	pthread_mutex_unlock(&sw.lock);
	assert_true(cookie != 0 && cookie <= ACIS_AUTH_MASK);
	pattern(mine, sizeof(mine), 4);
	memcpy(buf + BLK, mine, BLK);
	assert_int_equal(acis_allgather(ACIS_IN_PLACE, buf, BLK / 4,
					ACIS_FLOAT32, acis_comm_world(ctx)),
			 ACIS_OK);
	memset(blk0, 0xaa, sizeof(blk0)); /* the switch's, not 0x66 */
	assert_memory_equal(buf, blk0, BLK);
	assert_memory_equal(buf + BLK, mine, BLK);
	acis_get_stats(ctx, &st);
	assert_true(st.auth_rejected >= CPR + 2);
	leave(ctx);
	/* a new context, a new cookie */
	ctx = join(M_ALLGATHER, 5000, 1);
	pthread_mutex_lock(&sw.lock);
	assert_true(sw.join_auth != 0 && sw.join_auth != cookie);
	pthread_mutex_unlock(&sw.lock);
	leave(ctx);
}

/* ACIS_AUTH=off: no cookie sent, and answers without one are taken. */
static void
test_auth_off_sends_no_cookie(void **state)
{
	static uint8_t buf[2 * BLK];
	acis_ctx_t *ctx;
	struct acis_client_stats st;

	(void)state;
	setenv("ACIS_AUTH", "off", 1);
	ctx = join(M_ALLGATHER, 5000, 1);
	unsetenv("ACIS_AUTH");
	pthread_mutex_lock(&sw.lock);
	assert_int_equal(sw.join_auth, 0);
	pthread_mutex_unlock(&sw.lock);
	assert_int_equal(acis_allgather(ACIS_IN_PLACE, buf, BLK / 4,
					ACIS_FLOAT32, acis_comm_world(ctx)),
			 ACIS_OK);
	acis_get_stats(ctx, &st);
	assert_int_equal(st.auth_rejected, 0);
	leave(ctx);
}

/* Reduce_scatter, rank 1 of 2, in place, every chunk sent at once: my
 * block's result lands on block 0 of the input while block 0's chunks are
 * still to be sent again (each lost once): what is sent again is the
 * input, not the result. */
static void
test_in_place_reduce_scatter_sends_the_input_again(void **state)
{
	static uint8_t buf[2 * BLK], in[2 * BLK], res[BLK];
	acis_ctx_t *ctx = join(M_REDUCE_SCATTER, 5000, 8);
	unsigned int i, again = 0;

	(void)state;
	pattern(in, sizeof(in), 5);
	memcpy(buf, in, sizeof(buf));
	assert_int_equal(acis_reduce_scatter(ACIS_IN_PLACE, buf, BLK / 4,
					     ACIS_UINT32, ACIS_OP_SUM,
					     acis_comm_world(ctx)), ACIS_OK);
	check_sent(block_of, in, 2 * CPR + CPR);
	pthread_mutex_lock(&sw.lock);
	for (i = 0; i < sw.n_rec; i++)
		again += sw.rec[i].retrans;
	pthread_mutex_unlock(&sw.lock);
	assert_true(again >= CPR);
	memset(res, 0x99, sizeof(res));
	assert_memory_equal(buf, res, BLK);
	leave(ctx);
}

/* A scatter of each 8 and 16-bit integer type, root 1 of 2: block 0 goes
 * out under the type's code, msg_size its bytes; a code past them is
 * refused before anything is sent. */
static void
test_8_and_16_bit_integers_go_out_with_their_codes_and_sizes(void **state)
{
	static const enum acis_dtype types[] = {ACIS_INT8, ACIS_UINT8,
						ACIS_INT16, ACIS_UINT16};
	static const size_t sizes[] = {1, 1, 2, 2};
	static uint8_t in[2 * BLK], out[BLK];
	acis_ctx_t *ctx = join(M_ACK, 5000, 1);
	acis_comm_t *w = acis_comm_world(ctx);
	unsigned int i, k, n;

	(void)state;
	pattern(in, sizeof(in), 7);
	for (i = 0; i < 4; i++) {
		pthread_mutex_lock(&sw.lock);
		sw.n_rec = 0;
		pthread_mutex_unlock(&sw.lock);
		assert_int_equal(acis_scatter(in, out, BLK / sizes[i], types[i],
					      1, w), ACIS_OK);
		assert_memory_equal(out, in + BLK, BLK);
		check_sent(block_of, in, CPR);
		pthread_mutex_lock(&sw.lock);
		n = sw.n_rec;
		for (k = 0; k < n; k++) {
			if (sw.rec[k].dtype != types[i] ||
			    sw.rec[k].msg_size != BLK)
				break;
		}
		pthread_mutex_unlock(&sw.lock);
		if (k < n)
			fail_msg("%s: chunk %u went out wrong",
				 acis_dtype_name(types[i]), k);
	}
	assert_int_equal(acis_scatter(in, out, 10, ACIS_DTYPE_MAX, 1, w),
			 ACIS_ERR_INVAL);
	assert_non_null(strstr(acis_last_error(ctx), "unknown datatype"));
	leave(ctx);
}

/* A buffer the call needs may not be NULL; a refused i-call leaves no
 * request behind, and the context goes on working. */
static void
test_missing_buffers_are_refused_and_leave_nothing_running(void **state)
{
	static float in[100], out[100];
	acis_ctx_t *ctx = join(M_ACK, 2000, 1);
	acis_comm_t *w = acis_comm_world(ctx);
	acis_req_t *q = (acis_req_t *)&q;
	unsigned int n;
	uint32_t seq;

	(void)state;
	assert_int_equal(acis_allreduce(in, NULL, 100, ACIS_FLOAT32,
					ACIS_OP_SUM, w), ACIS_ERR_INVAL);
	assert_non_null(strstr(acis_last_error(ctx), "no receive buffer"));
	assert_int_equal(acis_iallreduce(NULL, out, 100, ACIS_FLOAT32,
					 ACIS_OP_SUM, w, &q), ACIS_ERR_INVAL);
	assert_null(q);
	assert_non_null(strstr(acis_last_error(ctx), "no send buffer"));
	assert_int_equal(acis_scatter(in, NULL, 10, ACIS_FLOAT32, 1, w),
			 ACIS_ERR_INVAL);
	assert_int_equal(acis_gather(in, (void *)(uintptr_t)ACIS_IN_PLACE, 10,
				     ACIS_FLOAT32, 1, w), ACIS_ERR_INVAL);
	/* the refused calls took no sequence number: this one goes through */
	assert_int_equal(acis_scatter(in, out, 10, ACIS_FLOAT32, 1, w),
			 ACIS_OK);
	pthread_mutex_lock(&sw.lock);
	n = sw.n_rec;
	seq = sw.rec[0].seq;
	pthread_mutex_unlock(&sw.lock);
	assert_int_equal(n, 1);
	assert_int_equal(seq, 0);
	leave(ctx);
}

/* A communicator with a request running cannot be detached or freed. */
static void
test_comm_with_a_running_request_is_not_let_go(void **state)
{
	static float in[100], out[100];
	acis_ctx_t *ctx = join(M_SILENT, 200, 1);
	acis_comm_t *c;
	acis_req_t *q;

	(void)state;
	assert_int_equal(acis_comm_attach(ctx, 65538, &c), ACIS_OK);
	assert_int_equal(acis_iallreduce(in, out, 100, ACIS_FLOAT32,
					 ACIS_OP_SUM, c, &q), ACIS_OK);
	assert_int_equal(acis_comm_detach(&c), ACIS_ERR_STATE);
	assert_non_null(c);
	assert_non_null(strstr(acis_last_error(ctx), "requests running"));
	assert_int_equal(acis_comm_free(&c), ACIS_ERR_STATE);
	assert_int_equal(acis_wait(&q), ACIS_ERR_TIMEOUT); /* none answers */
	assert_int_equal(acis_comm_detach(&c), ACIS_OK);
	assert_null(c);
	leave(ctx);
}

/* An ACIS_* variable that does not read as what it stands for stops
 * acis_init; acis_config_default reads them afresh each time. */
static void
test_bad_environment_variables_stop_init(void **state)
{
	static const char *const bad[][2] = {
		{"ACIS_RANK", "three"},
		{"ACIS_SIZE", "4294967296"},
		{"ACIS_SWITCH", "127.0.0.1:70000"},
		{"ACIS_SWITCH", "127.0.0.1:"},
		{"ACIS_MTU", "9100"},
		{"ACIS_TIMEOUT_MS", "5s"},
		{"ACIS_FAULT_DROP", "1.5"},
		{"ACIS_TRANSPORT", "rdma"},
		{"ACIS_BIND", "10.0.0.300"},
		{"ACIS_BIND", "127.0.0.1:0"},
		{"ACIS_POLL_US", "-1"},
		{"ACIS_AUTH", "mac"},
	};
	struct acis_config cfg;
	acis_ctx_t *ctx = NULL;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i][0], bad[i][1], 1);
		acis_config_default(&cfg);
		cfg.switch_ip = "127.0.0.1";
		cfg.switch_port = sw.port;
		cfg.size = 2;
		if (acis_init(&cfg, &ctx) != ACIS_ERR_INVAL)
			fail_msg("%s=%s accepted", bad[i][0], bad[i][1]);
		assert_null(ctx);
		/* the reason outlives the context, naming the variable */
		if (strstr(acis_init_error(), bad[i][0]) == NULL)
			fail_msg("%s=%s: acis_init_error() says '%s'",
				 bad[i][0], bad[i][1], acis_init_error());
		unsetenv(bad[i][0]);
	}
	setenv("ACIS_SWITCH", "127.0.0.1:4700", 1);
	setenv("ACIS_JOB", "010", 1);
	acis_config_default(&cfg);
	assert_int_equal(cfg.switch_port, 4700);
	assert_int_equal(cfg.job, 10); /* decimal, not octal */
	unsetenv("ACIS_SWITCH");
	unsetenv("ACIS_JOB");
}

/* The DPDK transport says what it is missing before anything is loaded:
 * a port, this host's address, a module where ACIS_DPDK_LIB points. */
static void
test_dpdk_transport_refuses_what_it_cannot_start_without(void **state)
{
	static const char *const env[][3][2] = {
		{{"ACIS_BIND", "127.0.0.1"}},                      /* no port */
		{{"ACIS_DPDK_PORT", "net_memif0,role=client"}},    /* no address */
		{{"ACIS_BIND", "127.0.0.1"},
		 {"ACIS_DPDK_PORT", "net_memif0,role=client"},
		 {"ACIS_DPDK_LIB", "/nonexistent/libacis-dpdk.so"}},
	};
	struct acis_config cfg;
	acis_ctx_t *ctx = NULL;
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		setenv("ACIS_TRANSPORT", "dpdk", 1);
		for (k = 0; k < 3 && env[i][k][0] != NULL; k++)
			setenv(env[i][k][0], env[i][k][1], 1);
		acis_config_default(&cfg);
		cfg.switch_ip = "127.0.0.1";
		cfg.switch_port = sw.port;
		cfg.size = 2;
		if (acis_init(&cfg, &ctx) != ACIS_ERR_INVAL)
			fail_msg("case %u started", i);
		assert_null(ctx);
		assert_true(acis_init_error()[0] != '\0');
		for (k = 0; k < 3 && env[i][k][0] != NULL; k++)
			unsetenv(env[i][k][0]);
		unsetenv("ACIS_TRANSPORT");
	}
}

/* A switch that lost the job (restarted) answers its DATA NO_COMM: the
 * collective fails at once, saying so, not at its timeout; and
 * acis_finalize returns at once, with no barrier. NO_COMM for another
 * communicator is that communicator's end only. */
static void
test_a_switch_that_lost_the_job_fails_calls_at_once(void **state)
{
	static float x[4];
	struct timespec t0, t1;
	acis_ctx_t *ctx;
	unsigned int sent;
	double took;

	(void)state;
	ctx = join(M_FORGOT, 10000, 8);
	/* a communicator made through management and freed so: that
	 * communicator is gone, the job is not */
	{
		acis_comm_t *c;

		assert_int_equal(acis_comm_attach(ctx, 5, &c), ACIS_OK);
		assert_int_equal(acis_allreduce(x, x, 4, ACIS_FLOAT32,
						ACIS_OP_SUM, c),
				 ACIS_ERR_REFUSED);
		if (strstr(acis_last_error(ctx), "freed through management") ==
		    NULL)
			fail_msg("last error: %s", acis_last_error(ctx));
		assert_int_equal(acis_comm_detach(&c), ACIS_OK);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(acis_allreduce(x, x, 4, ACIS_FLOAT32, ACIS_OP_SUM,
					acis_comm_world(ctx)),
			 ACIS_ERR_REFUSED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (took > 1.0)
		fail_msg("the failure took %.2f s", took);
	if (strstr(acis_last_error(ctx), "lost the job") == NULL)
		fail_msg("last error: %s", acis_last_error(ctx));
	pthread_mutex_lock(&sw.lock);
	sent = sw.n_rec;
	pthread_mutex_unlock(&sw.lock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(acis_finalize(ctx), ACIS_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (took > 0.2)
		fail_msg("acis_finalize took %.2f s", took);
	pthread_mutex_lock(&sw.lock);
	assert_int_equal(sw.n_rec, sent); /* no barrier */
	pthread_mutex_unlock(&sw.lock);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_in_place_scatter_sends_each_block_and_leaves_the_roots),
		cmocka_unit_test(
		    test_in_place_allgather_sends_my_block_not_what_arrives),
		cmocka_unit_test(
		    test_in_place_reduce_scatter_sends_the_input_again),
		cmocka_unit_test(test_answers_without_the_cookie_are_rejected),
		cmocka_unit_test(test_auth_off_sends_no_cookie),
		cmocka_unit_test(
		    test_8_and_16_bit_integers_go_out_with_their_codes_and_sizes),
		cmocka_unit_test(
		    test_missing_buffers_are_refused_and_leave_nothing_running),
		cmocka_unit_test(test_comm_with_a_running_request_is_not_let_go),
		cmocka_unit_test(test_bad_environment_variables_stop_init),
		cmocka_unit_test(
		    test_dpdk_transport_refuses_what_it_cannot_start_without),
		cmocka_unit_test(
		    test_a_switch_that_lost_the_job_fails_calls_at_once),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
