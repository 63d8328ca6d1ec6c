/* SPDX-License-Identifier: BSD-3-Clause */
/* Header work of the emulated FPGA (fpga_frame.h). */
#include <string.h>

#include "fpga_frame.h"

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define IPPROTO_UDP_ 17
#define UDP_HLEN 8

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
acis_fpga_frame_parse(const uint8_t *f, uint32_t len, struct acis_fpga_hdr *h)
{
	uint32_t off = 12, ihl, total, udp_len;
	uint16_t type;
	int tags;

	memset(h, 0, sizeof(*h));
	if (len < ETH_HLEN)
		return;
	type = rd16(f + off);
	for (tags = 0; tags < 2 && (type == ETHERTYPE_VLAN ||
				    type == ETHERTYPE_QINQ); tags++) {
		off += 4;
		if (off + 2 > len)
			return;
		type = rd16(f + off);
	}
	off += 2;
	if (type != ETHERTYPE_IPV4 || off + 20 > len)
		return;
	ihl = (uint32_t)(f[off] & 0x0f) * 4;
	total = rd16(f + off + 2);
	if ((f[off] >> 4) != 4 || ihl < 20 || total < ihl ||
	    off + total > len)
		return;
	h->l3 = (uint16_t)off;
	h->ip_end = (uint16_t)(off + total);
	/* a fragment's UDP header, if any, does not describe it */
	if (f[off + 9] != IPPROTO_UDP_ || (rd16(f + off + 6) & 0x3fff) != 0)
		return;
	if (total - ihl < UDP_HLEN)
		return;
	udp_len = rd16(f + off + ihl + 4);
	if (udp_len < UDP_HLEN || udp_len > total - ihl)
		return;
	h->l4 = (uint16_t)(off + ihl);
	h->payload = (uint16_t)(h->l4 + UDP_HLEN);
	h->payload_len = (uint16_t)(udp_len - UDP_HLEN);
}

static void
swap_bytes(uint8_t *a, uint8_t *b, uint32_t n)
{
	uint8_t t[6];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

void
acis_fpga_frame_swap(uint8_t *f, const struct acis_fpga_hdr *h)
{
	swap_bytes(f, f + 6, 6);
	if (h->l3)
		swap_bytes(f + h->l3 + 12, f + h->l3 + 16, 4);
	if (h->l4)
		swap_bytes(f + h->l4, f + h->l4 + 2, 2);
}

static uint32_t
sum16(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += rd16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t
fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t
acis_fpga_ipv4_cksum(const uint8_t *ip, uint32_t hlen)
{
	return (uint16_t)~fold(sum16(ip, hlen, 0));
}

/* Sum of a long buffer in 64-bit steps; big-endian 16-bit words. */
static uint64_t
sum_long(const uint8_t *p, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i = 0;

	for (; i + 4 <= n; i += 4)
		sum += (uint64_t)rd16(p + i) + rd16(p + i + 2);
	return sum + sum16(p + i, n - i, 0);
}

uint16_t
acis_fpga_udp_cksum(const uint8_t *ip, const uint8_t *udp, uint32_t udp_len)
{
	uint64_t sum;
	uint16_t c;

	sum = sum16(ip + 12, 8, 0) + IPPROTO_UDP_ + udp_len;
	sum += sum_long(udp, udp_len);
	c = (uint16_t)~fold(sum);
	return c == 0 ? 0xffff : c;
}

uint32_t
acis_fpga_frame_max_payload(const struct acis_fpga_hdr *h)
{
	return 65535u - (uint32_t)(h->payload - h->l3);
}

uint32_t
acis_fpga_frame_set_payload(uint8_t *f, const struct acis_fpga_hdr *h,
			    uint32_t new_len)
{
	uint8_t *ip = f + h->l3, *udp = f + h->l4;
	uint32_t ihl = (uint32_t)h->l4 - h->l3;
	uint32_t udp_len = UDP_HLEN + new_len;

	wr16(ip + 2, (uint16_t)(ihl + udp_len));
	wr16(ip + 10, 0);
	wr16(ip + 10, acis_fpga_ipv4_cksum(ip, ihl));
	wr16(udp + 4, (uint16_t)udp_len);
	wr16(udp + 6, 0);
	wr16(udp + 6, acis_fpga_udp_cksum(ip, udp, udp_len));
	return (uint32_t)h->l4 + udp_len;
}
