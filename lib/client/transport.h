/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis's transport seam (internal: not installed). Everything above it
 * (chunking, windows, reliability, requests) is shared; a transport only
 * moves datagrams between this host and the switch:
 *
 *   udp.c    kernel UDP sockets (sendmmsg/recvmmsg, GSO): any host
 *   dpdk.c   a DPDK port (net_memif, net_af_xdp, a PCI NIC): kernel
 *            bypass, built as its own shared object (libacis-dpdk.so)
 *            and loaded only when chosen, so libacis needs no DPDK
 *   fault.c  fault injection: wraps another transport, dropping,
 *            duplicating and reordering what passes
 */
#ifndef ACIS_TRANSPORT_H
#define ACIS_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "acis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever anything below changes: the DPDK object refuses to be
 * loaded by a libacis of another version. */
#define ACIS_TRANSPORT_ABI 1

/* One datagram to the switch: hdr_len bytes at hdr, then len at data
 * (either may be empty). Both stay valid only during send. */
struct acis_tmsg {
	const void *hdr;
	size_t hdr_len;
	const void *data;
	size_t len;
};

/* A received datagram's UDP payload (len bytes at p) and its IPv4 source
 * address (network order). p is valid only during the call. */
typedef void (*acis_deliver_fn)(void *arg, const uint8_t *p, size_t len,
				uint32_t src_ip);

struct acis_transport;

struct acis_transport_ops {
	/* Send n datagrams, all of them (waiting out a full queue), or
	 * fail: a negative ACIS_ERR_* and t->err says why. */
	int (*send)(struct acis_transport *t, const struct acis_tmsg *m,
		    unsigned int n);
	/* Deliver what has arrived; wait up to wait_ms (0: not at all) for
	 * the first datagram. ACIS_OK, or a negative ACIS_ERR_*. */
	int (*recv)(struct acis_transport *t, int wait_ms, acis_deliver_fn fn,
		    void *arg);
	/* Release everything; t is gone. */
	void (*close)(struct acis_transport *t);
};

struct acis_transport {
	const struct acis_transport_ops *ops;
	const char *name;              /* "udp", "dpdk", "fault" */
	struct acis_client_stats *st;  /* the context's counters */
	char err[200];                 /* what went wrong last */
};

/* What a transport needs to know; addresses and ports in network order. */
struct acis_transport_cfg {
	uint32_t abi;           /* ACIS_TRANSPORT_ABI */
	uint32_t switch_ip;
	uint16_t switch_port;
	uint32_t host_ip;       /* 0: any (udp), required (dpdk) */
	uint16_t host_port;     /* 0: any (udp); dpdk picks one then */
	unsigned int mtu;
	unsigned int gso_segs;  /* udp */
	const char *dpdk_port;  /* dpdk: a vdev ("net_memif0,role=...") or
				 * a PCI address */
	const char *dpdk_eal;   /* dpdk: more EAL arguments, or NULL */
	const char *host_mac;   /* dpdk: our MAC, or NULL: the port's */
	const char *switch_mac; /* dpdk: the switch's MAC, or NULL: ARP */
	unsigned int poll_us;   /* dpdk: poll this long before napping */
	unsigned int rank;      /* to make names unique */
	struct acis_client_stats *st;
};

/* On failure each returns a negative ACIS_ERR_* and writes why to err. */
int acis_udp_open(const struct acis_transport_cfg *cfg,
		  struct acis_transport **out, char *err, size_t errlen);
/* Load the DPDK transport's shared object and open a port with it. */
int acis_dpdk_load(const struct acis_transport_cfg *cfg,
		   struct acis_transport **out, char *err, size_t errlen);

/* The entry point the DPDK object exports (looked up by this name). */
#define ACIS_DPDK_OPEN_SYM "acis_dpdk_transport_open"
typedef int (*acis_dpdk_open_fn)(const struct acis_transport_cfg *cfg,
				 struct acis_transport **out, char *err,
				 size_t errlen);

/* Fault injection around inner (which it owns from then on). */
struct acis_fault_cfg {
	double drop, dup, reorder;
	unsigned int window; /* 1..ACIS_FAULT_WINDOW_MAX */
	uint64_t seed;       /* already mixed with the rank */
};
#define ACIS_FAULT_WINDOW_MAX 64
int acis_fault_wrap(struct acis_transport *inner,
		    const struct acis_fault_cfg *cfg,
		    struct acis_transport **out, char *err, size_t errlen);

/* Monotonic time in ns: deadlines above the seam and below it. */
static inline uint64_t
acis_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Largest datagram a transport moves (a jumbo frame's payload, rounded). */
#define ACIS_TRANSPORT_MAX_DGRAM 9216

#ifdef __cplusplus
}
#endif

#endif /* ACIS_TRANSPORT_H */
