/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the emulated FPGA finds a frame's headers (fpga_frame.h). */
#include <string.h>

#include "fpga_frame.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
acis_fpga_frame_parse(const uint8_t *f, uint32_t len, struct acis_fpga_hdr *h)
{
	uint32_t off = 12, ihl, total, udp_len;
	uint16_t type;
	int tags;

	memset(h, 0, sizeof(*h));
	if (len < ACIS_ETH_HLEN)
		return;
	type = rd16(f + off);
	for (tags = 0; tags < 2 && (type == ACIS_ETHERTYPE_VLAN ||
				    type == ACIS_ETHERTYPE_QINQ); tags++) {
		off += 4;
		if (off + 2 > len)
			return;
		type = rd16(f + off);
	}
	off += 2;
	if (type != ACIS_ETHERTYPE_IPV4 || off + 20 > len)
		return;
	ihl = (uint32_t)(f[off] & 0x0f) * 4;
	total = rd16(f + off + 2);
	if ((f[off] >> 4) != 4 || ihl < 20 || total < ihl ||
	    off + total > len)
		return;
	h->l3 = (uint16_t)off;
	h->ip_end = (uint16_t)(off + total);
	/* a fragment's UDP header, if any, does not describe it */
	if (f[off + 9] != ACIS_IPPROTO_UDP || (rd16(f + off + 6) & 0x3fff) != 0)
		return;
	if (total - ihl < ACIS_UDP_HLEN)
		return;
	udp_len = rd16(f + off + ihl + 4);
	if (udp_len < ACIS_UDP_HLEN || udp_len > total - ihl)
		return;
	h->l4 = (uint16_t)(off + ihl);
	h->payload = (uint16_t)(h->l4 + ACIS_UDP_HLEN);
	h->payload_len = (uint16_t)(udp_len - ACIS_UDP_HLEN);
}

uint32_t
acis_fpga_frame_max_payload(const struct acis_fpga_hdr *h)
{
	return 65535u - (uint32_t)(h->payload - h->l3);
}
