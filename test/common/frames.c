/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame builders for tests; see frames.h. */
#include <arpa/inet.h>
#include <string.h>

#include "acis_pkt.h"
#include "frames.h"

static void
w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

struct tf_addr
tf_host(unsigned int n)
{
	struct tf_addr a = {.mac = {0x02, 0, 0, 0, 0, (uint8_t)n}};

	a.ip = htonl(0x0a4d0000u | (n & 0xff));
	return a;
}

unsigned int
tf_eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t et,
       int vlan)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (vlan >= 0) {
		w16(f + 12, ACIS_ETHERTYPE_VLAN);
		w16(f + 14, (uint16_t)vlan);
		w16(f + 16, et);
		return 18;
	}
	w16(f + 12, et);
	return 14;
}

void
tf_fix_ipv4_csum(uint8_t *f, unsigned int l3)
{
	unsigned int ihl = (f[l3] & 0xfu) * 4;

	w16(f + l3 + 10, 0);
	w16(f + l3 + 10, acis_csum(f + l3, ihl));
}

static unsigned int
ipv4(uint8_t *ip, uint32_t src, uint32_t dst, uint8_t proto,
     unsigned int l4_len)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	w16(ip + 2, (uint16_t)(20 + l4_len));
	w16(ip + 4, 0x1234);
	w16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	w16(ip + 10, acis_csum(ip, 20));
	return 20;
}

unsigned int
tf_udp(uint8_t *f, const struct tf_addr *dst, const struct tf_addr *src,
       uint16_t sport, uint16_t dport, const void *payload, unsigned int len,
       int vlan)
{
	unsigned int l3 = tf_eth(f, dst->mac, src->mac, ACIS_ETHERTYPE_IPV4,
				 vlan);
	uint8_t *ip = f + l3;
	uint8_t *udp = ip + ipv4(ip, src->ip, dst->ip, ACIS_IPPROTO_UDP,
				 8 + len);

	w16(udp, sport);
	w16(udp + 2, dport);
	w16(udp + 4, (uint16_t)(8 + len));
	w16(udp + 6, 0);
	if (len)
		memcpy(udp + 8, payload, len);
	w16(udp + 6, acis_udp4_csum(ip, udp, 8 + len));
	return l3 + 20 + 8 + len;
}

unsigned int
tf_icmp_echo(uint8_t *f, const struct tf_addr *dst, const struct tf_addr *src,
	     uint16_t id, uint16_t seq, unsigned int len)
{
	unsigned int l3 = tf_eth(f, dst->mac, src->mac, ACIS_ETHERTYPE_IPV4,
				 -1);
	uint8_t *ip = f + l3;
	uint8_t *icmp = ip + ipv4(ip, src->ip, dst->ip, ACIS_IPPROTO_ICMP,
				  8 + len);
	unsigned int i;

	icmp[0] = 8;
	icmp[1] = 0;
	w16(icmp + 2, 0);
	w16(icmp + 4, id);
	w16(icmp + 6, seq);
	for (i = 0; i < len; i++)
		icmp[8 + i] = (uint8_t)i;
	w16(icmp + 2, acis_csum(icmp, 8 + len));
	return l3 + 20 + 8 + len;
}

unsigned int
tf_arp_request(uint8_t *f, const struct tf_addr *src, uint32_t target_ip)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	unsigned int l3 = tf_eth(f, bcast, src->mac, ACIS_ETHERTYPE_ARP, -1);
	uint8_t *a = f + l3;

	w16(a, 1);
	w16(a + 2, ACIS_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	w16(a + 6, 1);
	memcpy(a + 8, src->mac, 6);
	memcpy(a + 14, &src->ip, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, &target_ip, 4);
	/* pad to the 60-byte Ethernet minimum like a real stack */
	memset(a + 28, 0, 60 - l3 - 28);
	return 60;
}
