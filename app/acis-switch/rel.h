/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliable links, the switch side (lib/link, doc/faults.md "Reliable
 * links"): on a port with [port] reliable = on, the TX stage carries each
 * frame inside a link header and keeps the original until the other end
 * acknowledges it; the RX stage takes the link's frames apart, delivers
 * each stream's data once and in order, answers ACK and NAK, and resends
 * what the other end asks for; between walks, what stayed unacknowledged
 * for reliable_rto_us goes again. The fault stage acts on the carried
 * frames, so a lossy link below is lossless above.
 */
#ifndef ACIS_REL_H
#define ACIS_REL_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "acis_link.h"

struct acis_lcore_ctx;

struct acis_rel_counters {
	uint64_t data_sent;     /**< frames carried, first sends */
	uint64_t resent;        /**< frames sent again */
	uint64_t timeouts;      /**< resends for want of an ACK */
	uint64_t naks_sent;     /**< resend requests sent */
	uint64_t naks_taken;    /**< resend requests received */
	uint64_t acks_sent;
	uint64_t acks_taken;
	uint64_t delivered;     /**< carried frames passed up, once each */
	uint64_t crc_errors;    /**< frames whose CRC did not match */
	uint64_t duplicates;    /**< frames already delivered, dropped */
	uint64_t out_of_order;  /**< frames after a missing one, dropped */
	uint64_t window_full;   /**< frames dropped: the window was full */
	uint64_t nombuf;        /**< no mbuf to carry or answer a frame */
	uint64_t unwrapped;     /**< plain frames on the port, passed up */
};

/* One reliable port's state (its one worker's: doc/faults.md). */
struct acis_rel_port {
	uint64_t rto_tsc;
	/* a resend in progress: the next seq to send again (== tx.next
	 * when none); it goes a chunk at a time, the next as ACKs come */
	uint32_t resend_at;
	struct acis_link_rx rx;
	struct acis_link_tx tx; /* the worker's stream */
	struct acis_rel_counters c;
};

/* State for the pipeline's reliable ports; 0 or a negative errno with
 * "file:line: why" in err. */
int acis_rel_init(char *err, size_t len);
void acis_rel_fini(void);

/* TX: pkts[0..n) to the link, carried and kept; returns how many of the
 * carried frames are in pkts (the rest dropped and counted). */
uint16_t acis_rel_tx(struct acis_lcore_ctx *lc, uint16_t port,
		     struct rte_mbuf **pkts, uint16_t n);

/* RX: the link's frames of a burst taken apart; returns how many carried
 * frames remain in pkts[], in order, to go up. */
uint16_t acis_rel_rx(struct acis_lcore_ctx *lc, uint16_t port, void **pkts,
		     uint16_t n);

/* Between walks: resend what waited longer than the port's timeout. */
void acis_rel_poll(struct acis_lcore_ctx *lc);

int acis_rel_telemetry_register(void);

#endif /* ACIS_REL_H */
