/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the emulated FPGA does to a frame's headers, in plain C: find the
 * IPv4 and UDP headers (behind up to two VLAN tags), send the frame back
 * where it came from (swap the Ethernet and IPv4 addresses and the UDP
 * ports), and rebuild the lengths and checksums when a handler changed the
 * UDP payload's length.
 */
#ifndef ACIS_FPGA_FRAME_H
#define ACIS_FPGA_FRAME_H

#include <stdint.h>

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

/* Swap the source and destination MACs, and where parsed the IPv4
 * addresses and UDP ports. Checksums stay valid: both are sums of the
 * swapped words, which addition does not order. */
void acis_fpga_frame_swap(uint8_t *f, const struct acis_fpga_hdr *h);

/* After the UDP payload (at h->payload) was replaced by new_len bytes:
 * set the IPv4 total length and checksum and the UDP length and checksum
 * (always computed). Returns the new frame length (the datagram's end; any
 * Ethernet padding is gone). h must have l4 set and new_len must keep the
 * datagram within 65535 bytes (acis_fpga_frame_max_payload). */
uint32_t acis_fpga_frame_set_payload(uint8_t *f, const struct acis_fpga_hdr *h,
				     uint32_t new_len);

/* The largest UDP payload a datagram with these headers can carry. */
uint32_t acis_fpga_frame_max_payload(const struct acis_fpga_hdr *h);

/* The Internet checksum of an IPv4 header (its checksum field counted as
 * is: 0 over a valid header). */
uint16_t acis_fpga_ipv4_cksum(const uint8_t *ip, uint32_t hlen);
/* The UDP checksum of a datagram (ip: its IPv4 header; udp: udp_len bytes
 * of header and payload, the checksum field counted as is); 0 comes out
 * as 0xffff, as on the wire. */
uint16_t acis_fpga_udp_cksum(const uint8_t *ip, const uint8_t *udp,
			     uint32_t udp_len);

#endif /* ACIS_FPGA_FRAME_H */
