/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_link: per-hop reliability on a fabric link (CusComNet section
 * III-C, doc/faults.md "Reliable links"). Each frame a switch sends on a
 * reliable port goes inside a link header: a stream (the sending
 * worker), a sequence number and a CRC-32C over the header and the
 * frame. The receiver delivers each stream's frames once and in order,
 * acknowledges them, and asks for a resend (NAK) at a gap or a bad CRC;
 * the sender keeps what is unacknowledged and sends it again, from the
 * first missing frame (go-back-N), on a NAK or when no acknowledgement
 * came for a timeout.
 *
 * Pure C: the header's bytes, the CRC and the two ends' bookkeeping; the
 * switch keeps the frames.
 */
#ifndef ACIS_LINK_H
#define ACIS_LINK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The outer frame's EtherType (IEEE 802 local experimental 1). */
#define ACIS_LINK_ETHERTYPE 0x88b5
/** Outer Ethernet header and link header, before the carried frame. */
#define ACIS_LINK_HLEN 26
/** Streams a link carries (one a sending worker). */
#define ACIS_LINK_STREAMS 64
/** Frames a stream may have unacknowledged. */
#define ACIS_LINK_WINDOW 1024

enum acis_link_type {
	ACIS_LINK_DATA = 1, /**< a carried frame */
	ACIS_LINK_ACK = 2,  /**< every frame before seq received */
	ACIS_LINK_NAK = 3,  /**< the same, and send again from seq */
};

struct acis_link_hdr {
	uint8_t type;   /**< enum acis_link_type */
	uint8_t stream; /**< below ACIS_LINK_STREAMS */
	uint32_t seq;
};

/** CRC-32C (Castagnoli) of n bytes after crc (0 to start): the CPU's
 * instruction where it has one, picked at the first call. */
uint32_t acis_link_crc(uint32_t crc, const void *p, size_t n);

/**
 * Write the outer Ethernet and link headers (ACIS_LINK_HLEN bytes) at
 * out, for inner[0..inner_len) behind them (none for ACK and NAK); the
 * outer destination is the link-local 01:80:c2:00:00:0e, never
 * forwarded.
 */
void acis_link_encode(uint8_t *out, const uint8_t src_mac[6],
		      const struct acis_link_hdr *h, const uint8_t *inner,
		      uint32_t inner_len);

/** What a received frame is. */
enum acis_link_parse {
	ACIS_LINK_OK = 0,
	ACIS_LINK_NOT_OURS = -1, /**< another EtherType: not a link frame */
	ACIS_LINK_BAD = -2,      /**< truncated, unknown type or stream,
				      or its CRC does not match */
};

/** Parse frame[0..len): its header into h, the carried frame after
 * ACIS_LINK_HLEN bytes. */
enum acis_link_parse acis_link_parse(const uint8_t *frame, uint32_t len,
				     struct acis_link_hdr *h);

/** Sequence numbers in order, modulo 2^32: a before b. */
static inline int
acis_link_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* ---- the receiving end ---- */

struct acis_link_rx {
	uint32_t expected[ACIS_LINK_STREAMS]; /**< next in-order seq */
	/** a NAK for expected[s] was sent (one until it arrives) */
	uint8_t nak_sent[ACIS_LINK_STREAMS];
	/** a frame was delivered since the last ACK */
	uint8_t ack_due[ACIS_LINK_STREAMS];
};

enum acis_link_verdict {
	ACIS_LINK_DELIVER, /**< the next in order: carry it up */
	ACIS_LINK_DUP,     /**< had already: drop, acknowledge again */
	ACIS_LINK_GAP,     /**< one before it is missing: drop, NAK */
};

/** A DATA frame of stream s, sequence seq, arrived (its CRC good). */
enum acis_link_verdict acis_link_rx_data(struct acis_link_rx *r, uint8_t s,
					 uint32_t seq);
/** Whether to send a NAK for stream s now (after a gap or a bad CRC):
 * once for each frame awaited. */
int acis_link_rx_want_nak(struct acis_link_rx *r, uint8_t s);

/* ---- the sending end (one stream) ---- */

struct acis_link_tx {
	uint32_t base;      /**< oldest unacknowledged */
	uint32_t next;      /**< the next new frame's seq */
	uint64_t last_ack;  /**< when the window last moved (or began) */
	void *frame[ACIS_LINK_WINDOW]; /**< [seq % WINDOW]: kept frames */
};

/** Room for another frame in the window. */
static inline int
acis_link_tx_room(const struct acis_link_tx *t)
{
	return t->next - t->base < ACIS_LINK_WINDOW;
}

/** Keep frame as the next sequence number (room checked); returns it. */
uint32_t acis_link_tx_keep(struct acis_link_tx *t, void *frame);

/**
 * An ACK or NAK for seq: every frame before seq is acknowledged, passed
 * to release() (the caller frees them) and forgotten. Returns how many;
 * a seq outside [base, next] is stale and changes nothing (-1).
 */
int acis_link_tx_ack(struct acis_link_tx *t, uint32_t seq, uint64_t now,
		     void (*release)(void *frame, void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_LINK_H */
