/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the emulated FPGA finds a frame's headers, in plain C: the IPv4
 * and UDP headers behind up to two VLAN tags, with no policy (unlike the
 * switch's classifier, nothing is refused; what is not there is 0).
 * Sending the frame back (acis_pkt_swap) and rebuilding its lengths and
 * checksums after a handler changed the payload (acis_udp4_finish) are
 * lib/pkt's, on the offsets found here.
 */
#ifndef ACIS_FPGA_FRAME_H
#define ACIS_FPGA_FRAME_H

#include <stdint.h>

#include "acis_pkt.h"

/* Where the headers are; an offset of 0 means "not there". */
struct acis_fpga_hdr {
	uint16_t l3;          /* IPv4 header */
	uint16_t l4;          /* UDP header: only for an unfragmented IPv4
			       * datagram whose lengths agree */
	uint16_t payload;     /* UDP payload */
	uint16_t payload_len;
	uint16_t ip_end;      /* end of the IPv4 datagram (padding after) */
};

/* Parse the headers in f[0..len). Never reads past len. */
void acis_fpga_frame_parse(const uint8_t *f, uint32_t len,
			   struct acis_fpga_hdr *h);

/* The largest UDP payload a datagram with these headers can carry. */
uint32_t acis_fpga_frame_max_payload(const struct acis_fpga_hdr *h);

/* A parsed UDP datagram (h->l4 set) as lib/pkt's acis_udp4_finish takes
 * it. */
static inline struct acis_pkt_info
acis_fpga_frame_pkt_info(const struct acis_fpga_hdr *h)
{
	struct acis_pkt_info pi = {
		.ethertype = ACIS_ETHERTYPE_IPV4,
		.ip_proto = ACIS_IPPROTO_UDP,
		.l3_off = h->l3,
		.l4_off = h->l4,
		.payload_off = h->payload,
		.payload_len = h->payload_len,
	};

	return pi;
}

#endif /* ACIS_FPGA_FRAME_H */
