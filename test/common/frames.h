/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame builders shared by the unit, integration and fuzz tests: real
 * Ethernet/VLAN/IPv4/UDP/ICMP/ARP frames with correct lengths and
 * checksums, so a test breaks exactly the one field it means to.
 */
#ifndef ACIS_TEST_FRAMES_H
#define ACIS_TEST_FRAMES_H

#include <stdint.h>

struct tf_addr {
	uint8_t mac[6];
	uint32_t ip; /* network order */
};

/* Fill an address from a small host number: 02:00:00:00:00:NN, 10.77.0.NN */
struct tf_addr tf_host(unsigned int n);

/* Ethernet header (+ one VLAN tag when vlan >= 0). Returns header length. */
unsigned int tf_eth(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		    uint16_t ethertype, int vlan);

/* A whole IPv4/UDP frame. vlan < 0: untagged. Returns the frame length. */
unsigned int tf_udp(uint8_t *f, const struct tf_addr *dst,
		    const struct tf_addr *src, uint16_t sport, uint16_t dport,
		    const void *payload, unsigned int len, int vlan);

/* ICMP echo request with len payload bytes. */
unsigned int tf_icmp_echo(uint8_t *f, const struct tf_addr *dst,
			  const struct tf_addr *src, uint16_t id, uint16_t seq,
			  unsigned int len);

/* ARP request from src asking for target_ip (broadcast). */
unsigned int tf_arp_request(uint8_t *f, const struct tf_addr *src,
			    uint32_t target_ip);

/* Recompute the IPv4 header checksum at l3 offset. */
void tf_fix_ipv4_csum(uint8_t *f, unsigned int l3);

#endif
