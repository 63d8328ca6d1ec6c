/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis's kernel transport: one UDP socket, datagrams sent in batches
 * (sendmmsg, and UDP generic segmentation offload where the kernel has
 * it) and received in batches (recvmmsg). Works on any host, needs no
 * privileges.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport.h"

#define BATCH 64
/* Generic segmentation offload: a segmented send's UDP payload fits one
 * IPv4 datagram's length field; the kernel takes at most 64 segments on
 * the oldest kernels that have UDP_SEGMENT (4.18). */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#define GSO_BYTES_MAX (65535u - 20 - 8)
#define GSO_SEGS_MAX 64

struct udp_transport {
	struct acis_transport t;
	int fd;
	struct sockaddr_in sw;
	unsigned int gso_segs; /* 1: each datagram its own send */
	struct mmsghdr rx_msgs[BATCH];
	struct iovec rx_iov[BATCH];
	struct sockaddr_in rx_from[BATCH];
	uint8_t *rx_bufs;
	/* rows adjoin: a run's iovecs are one array */
	struct iovec tx_iov[BATCH][2];
	struct mmsghdr tx_msgs[BATCH];
};

static int
udp_fail(struct udp_transport *u, int rc, const char *what)
{
	snprintf(u->t.err, sizeof(u->t.err), "%s: %s", what, strerror(errno));
	return rc;
}

/* Whether the kernel refused a segmented send for want of support (old
 * kernel, a route or device that cannot take it), not for a full socket
 * or a real fault. */
static int
gso_refused(const struct mmsghdr *m, int err)
{
	return m->msg_hdr.msg_controllen != 0 &&
	       (err == EIO || err == EINVAL || err == ENOPROTOOPT ||
		err == EOPNOTSUPP);
}

/* Send msgs[0..n), waiting out a full socket. A segmented send the kernel
 * refuses (gso_refused) stops the batch: *at is set to its index and 1
 * returned, nothing after it having gone. */
static int
send_batch(struct udp_transport *u, struct mmsghdr *msgs, unsigned int n,
	   unsigned int *at)
{
	unsigned int off = 0;

	while (off < n) {
		int k = sendmmsg(u->fd, &msgs[off], n - off, 0);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == ENOBUFS) {
				struct pollfd p = {.fd = u->fd, .events = POLLOUT};

				poll(&p, 1, 10);
				continue;
			}
			if (at != NULL && gso_refused(&msgs[off], errno)) {
				*at = off;
				return 1;
			}
			return udp_fail(u, ACIS_ERR_SYS, "sendmmsg");
		}
		u->t.st->send_batches++;
		off += (unsigned int)k;
	}
	return ACIS_OK;
}

/*
 * The datagrams with generic segmentation offload: each run of datagrams
 * of one length (its last may be shorter), header and payload each, goes
 * down the stack as one send that the kernel cuts into that run's
 * datagrams (UDP_SEGMENT), instead of one trip through the socket, IP and
 * route per datagram. The datagrams are those plain sends would make. If
 * the kernel refuses, every later datagram goes on its own.
 */
static int
send_segmented(struct udp_transport *u, unsigned int n_msgs,
	       const struct acis_tmsg *m)
{
	struct mmsghdr out[BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} cm[BATCH];
	unsigned int first[BATCH];
	unsigned int i = 0, n = 0, at;
	int rc;

	while (i < n_msgs) {
		size_t seg = m[i].hdr_len + m[i].len, total = seg, prev = seg;
		unsigned int j = i + 1;

		/* a run: whole-length members, each a header and a payload */
		while (m[i].len != 0 && m[i].hdr_len != 0 && j < n_msgs && j - i < u->gso_segs &&
		       prev == seg) {
			size_t l = m[j].hdr_len + m[j].len;

			if (m[j].len == 0 || m[j].hdr_len == 0 || l > seg || total + l > GSO_BYTES_MAX)
				break;
			total += l;
			prev = l;
			j++;
		}
		out[n] = u->tx_msgs[i];
		first[n] = i;
		if (j - i > 1) {
			struct msghdr *o = &out[n].msg_hdr;
			struct cmsghdr *c;
			uint16_t s = (uint16_t)seg;

			o->msg_iovlen = 2 * (size_t)(j - i);
			o->msg_control = cm[n].buf;
			o->msg_controllen = sizeof(cm[n].buf);
			c = CMSG_FIRSTHDR(o);
			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(s));
			memcpy(CMSG_DATA(c), &s, sizeof(s));
		}
		n++;
		i = j;
	}
	at = n;
	rc = send_batch(u, out, n, &at);
	for (i = 0; i < at; i++) /* those that went */
		u->t.st->gso_sends += out[i].msg_hdr.msg_controllen != 0;
	if (rc == 1) {
		u->gso_segs = 1;
		u->t.st->gso_refused = 1;
		rc = send_batch(u, &u->tx_msgs[first[at]], n_msgs - first[at],
				NULL);
	}
	return rc;
}

static int
udp_send(struct acis_transport *t, const struct acis_tmsg *m, unsigned int n)
{
	struct udp_transport *u = (struct udp_transport *)t;
	unsigned int off, i, k;
	int rc;

	for (off = 0; off < n; off += k) {
		k = n - off < BATCH ? n - off : BATCH;
		for (i = 0; i < k; i++) {
			const struct acis_tmsg *x = &m[off + i];
			struct msghdr *h = &u->tx_msgs[i].msg_hdr;
			unsigned int v = 0;

			memset(h, 0, sizeof(*h));
			if (x->hdr_len != 0)
				u->tx_iov[i][v++] = (struct iovec){
					(void *)(uintptr_t)x->hdr, x->hdr_len};
			if (x->len != 0)
				u->tx_iov[i][v++] = (struct iovec){
					(void *)(uintptr_t)x->data, x->len};
			h->msg_name = &u->sw;
			h->msg_namelen = sizeof(u->sw);
			h->msg_iov = u->tx_iov[i];
			h->msg_iovlen = v;
		}
		rc = u->gso_segs > 1 ? send_segmented(u, k, &m[off])
				     : send_batch(u, u->tx_msgs, k, NULL);
		if (rc != ACIS_OK)
			return rc;
	}
	return ACIS_OK;
}

static int
udp_recv(struct acis_transport *t, int wait_ms, acis_deliver_fn fn, void *arg)
{
	struct udp_transport *u = (struct udp_transport *)t;
	int n, i;

	if (wait_ms > 0) {
		struct pollfd p = {.fd = u->fd, .events = POLLIN};

		if (poll(&p, 1, wait_ms) <= 0)
			return ACIS_OK;
	}
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			u->rx_msgs[i].msg_hdr.msg_namelen = sizeof(u->rx_from[i]);
			u->rx_msgs[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(u->fd, u->rx_msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return ACIS_OK;
			return udp_fail(u, ACIS_ERR_SYS, "recvmmsg");
		}
		u->t.st->recv_batches++;
		for (i = 0; i < n; i++)
			fn(arg, u->rx_iov[i].iov_base, u->rx_msgs[i].msg_len,
			   u->rx_from[i].sin_addr.s_addr);
		if (n < BATCH)
			return ACIS_OK;
	}
}

static void
udp_close(struct acis_transport *t)
{
	struct udp_transport *u = (struct udp_transport *)t;

	if (u->fd >= 0)
		close(u->fd);
	free(u->rx_bufs);
	free(u);
}

static const struct acis_transport_ops udp_ops = {
	.send = udp_send,
	.recv = udp_recv,
	.close = udp_close,
};

int
acis_udp_open(const struct acis_transport_cfg *cfg,
	      struct acis_transport **out, char *err, size_t errlen)
{
	struct udp_transport *u;
	struct sockaddr_in me;
	int big = 64 << 20, zero = 0, i, rc;

	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return ACIS_ERR_NOMEM;
	u->t.ops = &udp_ops;
	u->t.name = "udp";
	u->t.st = cfg->st;
	u->fd = -1;
	u->rx_bufs = malloc((size_t)BATCH * ACIS_TRANSPORT_MAX_DGRAM);
	if (u->rx_bufs == NULL) {
		free(u);
		return ACIS_ERR_NOMEM;
	}
	for (i = 0; i < BATCH; i++) {
		u->rx_iov[i].iov_base = u->rx_bufs + (size_t)i * ACIS_TRANSPORT_MAX_DGRAM;
		u->rx_iov[i].iov_len = ACIS_TRANSPORT_MAX_DGRAM;
		u->rx_msgs[i].msg_hdr.msg_iov = &u->rx_iov[i];
		u->rx_msgs[i].msg_hdr.msg_iovlen = 1;
		u->rx_msgs[i].msg_hdr.msg_name = &u->rx_from[i];
	}
	u->sw.sin_family = AF_INET;
	u->sw.sin_addr.s_addr = cfg->switch_ip;
	u->sw.sin_port = cfg->switch_port;
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (u->fd < 0) {
		rc = udp_fail(u, ACIS_ERR_SYS, "socket");
		goto fail;
	}
	/* Room for a window of results from every peer. */
	if (setsockopt(u->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big,
		       sizeof(big)) != 0)
		setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (setsockopt(u->fd, SOL_SOCKET, SO_SNDBUFFORCE, &big,
		       sizeof(big)) != 0)
		setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	memset(&me, 0, sizeof(me));
	me.sin_family = AF_INET;
	me.sin_port = cfg->host_port;
	me.sin_addr.s_addr = cfg->host_ip;
	if (bind(u->fd, (struct sockaddr *)&me, sizeof(me)) != 0) {
		char a[INET_ADDRSTRLEN], what[64];

		inet_ntop(AF_INET, &me.sin_addr, a, sizeof(a));
		snprintf(what, sizeof(what), "bind %s:%u",
			 cfg->host_ip != 0 ? a : "*", ntohs(cfg->host_port));
		rc = udp_fail(u, ACIS_ERR_SYS, what);
		goto fail;
	}
	/* Segmented sends, where the kernel has them (a size of 0 asks
	 * nothing of this socket's own sends). */
	u->gso_segs = cfg->gso_segs == 0 || cfg->gso_segs > GSO_SEGS_MAX
			      ? GSO_SEGS_MAX : cfg->gso_segs;
	if (u->gso_segs > 1 &&
	    setsockopt(u->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) != 0) {
		u->gso_segs = 1;
		u->t.st->gso_refused = 1;
	}
	*out = &u->t;
	return ACIS_OK;
fail:
	snprintf(err, errlen, "%s", u->t.err);
	udp_close(&u->t);
	return rc;
}
