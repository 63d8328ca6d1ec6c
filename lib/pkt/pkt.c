/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame parser and classifier; see acis_pkt.h for the policy. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "acis_pkt.h"

static const char *const drop_names[] = {
#define ACIS_X_NAME(e, n, d) n,
	ACIS_DROP_REASONS(ACIS_X_NAME)
#undef ACIS_X_NAME
};

static const char *const drop_descs[] = {
#define ACIS_X_DESC(e, n, d) d,
	ACIS_DROP_REASONS(ACIS_X_DESC)
#undef ACIS_X_DESC
};

const char *
acis_drop_name(unsigned int r)
{
	return r < ACIS_DROP_MAX ? drop_names[r] : "unknown";
}

const char *
acis_drop_desc(unsigned int r)
{
	return r < ACIS_DROP_MAX ? drop_descs[r] : "unknown";
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* 16 native 32-bit words: one 64-byte block */
typedef uint32_t csum_vec __attribute__((vector_size(64)));

/*
 * The one's-complement sum does not depend on byte order (RFC 1071,
 * 2(B)): the buffer is summed as native 16-bit words and swapped once
 * into network order at the end. A 64-byte block is sixteen 32-bit lanes;
 * each lane's low and high halves are two 16-bit words, added into two
 * accumulators of sixteen 32-bit lanes (a vector add and a mask or shift
 * per block, whatever vector width the target has). A lane gains at most
 * 0xffff per block, so the lanes are emptied into a 64-bit sum every
 * 65536 blocks (4 MiB; a datagram is at most 64 KiB). The rest is summed
 * word by word.
 */
uint16_t
acis_csum_partial(const void *buf, uint32_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	csum_vec lo, hi, v;
	uint64_t s = 0;
	uint32_t w;
	uint16_t h;
	unsigned int k;

	while (len >= sizeof(v)) {
		uint32_t blocks = len / sizeof(v);

		if (blocks > 65536)
			blocks = 65536;
		lo = (csum_vec){0};
		hi = (csum_vec){0};
		for (; blocks > 0; blocks--, p += sizeof(v), len -= sizeof(v)) {
			memcpy(&v, p, sizeof(v));
			lo += v & 0xffff;
			hi += v >> 16;
		}
		for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			s += (uint64_t)lo[k] + hi[k];
	}
	for (; len >= 4; p += 4, len -= 4) {
		memcpy(&w, p, 4);
		s += w;
	}
	for (; len >= 2; p += 2, len -= 2) {
		memcpy(&h, p, 2);
		s += h;
	}
	if (len) { /* the odd last byte, padded with zero on the wire */
		uint8_t b[2] = {p[0], 0};

		memcpy(&h, b, 2);
		s += h;
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = (uint16_t)((s >> 8) | (s << 8));
#endif
	s += sum;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t
acis_csum(const void *buf, uint32_t len)
{
	return (uint16_t)~acis_csum_partial(buf, len, 0);
}

uint16_t
acis_udp4_csum(const uint8_t *ip, const uint8_t *udp, uint32_t udp_len)
{
	uint32_t sum;
	uint16_t c;

	sum = acis_csum_partial(ip + 12, 8, 0); /* src and dst address */
	sum += ACIS_IPPROTO_UDP + udp_len;
	c = (uint16_t)~acis_csum_partial(udp, udp_len, sum);
	return c == 0 ? 0xffff : c;
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
swap_bytes(uint8_t *a, uint8_t *b, uint32_t n)
{
	uint8_t t[6];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

void
acis_pkt_swap(uint8_t *f, uint16_t l3_off, uint16_t l4_off)
{
	swap_bytes(f, f + 6, 6);
	if (l3_off != 0)
		swap_bytes(f + l3_off + 12, f + l3_off + 16, 4);
	if (l4_off != 0)
		swap_bytes(f + l4_off, f + l4_off + 2, 2);
}

/* The checksum of the 20-byte header acis_udp4_headers writes, from its
 * fields (total length, addresses in host order) rather than read back
 * from the frame: a read of bytes just stored as smaller pieces waits
 * until they reach the cache, and a frame's buffer fresh from the pool
 * is often not in it yet. */
static inline uint16_t
ip4_csum20(uint16_t tot_len, uint32_t sip, uint32_t dip)
{
	uint32_t s = 0x4500u + tot_len + 0x4000u + (64u << 8 | ACIS_IPPROTO_UDP) +
		     (sip >> 16) + (sip & 0xffff) + (dip >> 16) + (dip & 0xffff);

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void
acis_udp4_headers(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6],
		  uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport,
		  uint32_t payload_len)
{
	uint8_t *ip = f + ACIS_ETH_HLEN;
	uint8_t *udp = ip + ACIS_IPV4_MIN_HLEN;
	uint16_t tot = (uint16_t)(ACIS_IPV4_MIN_HLEN + ACIS_UDP_HLEN +
				  payload_len);

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, ACIS_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 0;
	wr16(ip + 2, tot);
	wr16(ip + 4, 0);
	wr16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = ACIS_IPPROTO_UDP;
	memcpy(ip + 12, &sip, 4);
	memcpy(ip + 16, &dip, 4);
	wr16(ip + 10, ip4_csum20(tot, ntohl(sip), ntohl(dip)));
	wr16(udp, sport);
	wr16(udp + 2, dport);
	wr16(udp + 4, (uint16_t)(ACIS_UDP_HLEN + payload_len));
	wr16(udp + 6, 0);
}

void
acis_arp_reply(uint8_t *eth, const struct acis_pkt_info *pi,
	       const uint8_t mac[6], uint32_t ip)
{
	uint8_t *a = eth + pi->l3_off;
	uint8_t sha[6];
	uint32_t spa;

	memcpy(sha, a + 8, 6);
	memcpy(&spa, a + 14, 4);
	wr16(a + 6, 2);         /* op: reply */
	memcpy(a + 18, sha, 6); /* tha */
	memcpy(a + 24, &spa, 4); /* tpa */
	memcpy(a + 8, mac, 6);  /* sha */
	memcpy(a + 14, &ip, 4); /* spa */
	memcpy(eth, sha, 6);
	memcpy(eth + 6, mac, 6);
}

void
acis_arp_request(uint8_t *f, const uint8_t smac[6], uint32_t sip, uint32_t tip)
{
	uint8_t *a = f + ACIS_ETH_HLEN;

	memset(f, 0xff, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, ACIS_ETHERTYPE_ARP);
	wr16(a, 1);                   /* Ethernet */
	wr16(a + 2, ACIS_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, 1);               /* request */
	memcpy(a + 8, smac, 6);
	memcpy(a + 14, &sip, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, &tip, 4);
}

uint32_t
acis_udp4_finish(uint8_t *f, const struct acis_pkt_info *pi,
		 uint32_t payload_len, int swap, const uint8_t *src_mac)
{
	uint8_t *ip = f + pi->l3_off;
	uint8_t *udp = f + pi->l4_off;
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
	uint32_t udp_len = ACIS_UDP_HLEN + payload_len;

	if (swap)
		acis_pkt_swap(f, pi->l3_off, pi->l4_off);
	if (src_mac != NULL)
		memcpy(f + 6, src_mac, 6);
	wr16(ip + 2, (uint16_t)(ihl + udp_len));
	wr16(ip + 10, 0);
	wr16(ip + 10, acis_csum(ip, ihl));
	wr16(udp + 4, (uint16_t)udp_len);
	wr16(udp + 6, 0);
	wr16(udp + 6, acis_udp4_csum(ip, udp, udp_len));
	return (uint32_t)pi->payload_off + payload_len;
}

static enum acis_class
drop(uint8_t *reason, enum acis_drop_reason r)
{
	*reason = (uint8_t)r;
	return ACIS_CLASS_DROP;
}

static int
is_for_us_mac(const struct acis_classify_cfg *cfg, const uint8_t *dst)
{
	return memcmp(dst, cfg->mac, 6) == 0;
}

static enum acis_class
classify_arp(const struct acis_classify_cfg *cfg, const uint8_t *f,
	     uint32_t len, struct acis_pkt_info *pi, uint8_t *reason)
{
	const uint8_t *a = f + pi->l3_off;
	uint32_t tpa;

	/* Target protocol address sits at byte 24 of an Ethernet/IPv4 ARP. */
	if (len < (uint32_t)pi->l3_off + 28u) {
		if (is_for_us_mac(cfg, f))
			return drop(reason, ACIS_DROP_ARP_MALFORMED);
		return ACIS_CLASS_FORWARD;
	}
	memcpy(&tpa, a + 24, 4);
	if (tpa != cfg->ip)
		return is_for_us_mac(cfg, f) ?
			drop(reason, ACIS_DROP_NOT_ROUTED) : ACIS_CLASS_FORWARD;
	if (rd16(a) != 1 || rd16(a + 2) != ACIS_ETHERTYPE_IPV4 || a[4] != 6 ||
	    a[5] != 4)
		return drop(reason, ACIS_DROP_ARP_MALFORMED);
	/*
	 * A request for our address is answered by the switch and not
	 * flooded; a reply to the switch is accepted (and consumed). Gratuitous
	 * ARP from others claiming our address is forwarded like any frame.
	 */
	if (rd16(a + 6) == 1 || (rd16(a + 6) == 2 && is_for_us_mac(cfg, f)))
		return ACIS_CLASS_ARP;
	return is_for_us_mac(cfg, f) ? drop(reason, ACIS_DROP_LOCAL_UNSUPPORTED) :
				       ACIS_CLASS_FORWARD;
}

static int
is_la_port(const struct acis_classify_cfg *cfg, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < cfg->n_la_ports; i++)
		if (cfg->la_ports[i] == port)
			return 1;
	return 0;
}

/* A passing IPv4 datagram the look-aside stage takes: unfragmented UDP to
 * one of its ports. Only a loose look here; what it selects is then
 * checked as strictly as traffic to the switch, and what it does not is
 * forwarded untouched. */
static int
is_transit_la(const struct acis_classify_cfg *cfg, const uint8_t *f,
	      uint32_t len, uint32_t off)
{
	const uint8_t *ip = f + off;
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;

	uint32_t dst;
	unsigned int i;

	if ((cfg->n_la_ports == 0 && cfg->n_la_ips == 0) || (ip[0] >> 4) != 4 ||
	    ihl < 20 || ip[9] != ACIS_IPPROTO_UDP ||
	    (rd16(ip + 6) & 0x3fff) != 0 || len < off + ihl + ACIS_UDP_HLEN)
		return 0;
	if (is_la_port(cfg, rd16(ip + ihl + 2)))
		return 1;
	memcpy(&dst, ip + 16, 4);
	for (i = 0; i < cfg->n_la_ips; i++)
		if (cfg->la_ips[i] == dst)
			return 1;
	return 0;
}

/* A passing ACiS datagram a fabric switch takes (cfg->transit): UDP to
 * the ACiS port, unfragmented. Loose here, strict after. */
static int
is_transit_acis(const struct acis_classify_cfg *cfg, const uint8_t *f,
		uint32_t len, uint32_t off)
{
	const uint8_t *ip = f + off;
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;

	return cfg->transit && (ip[0] >> 4) == 4 && ihl >= 20 &&
	       ip[9] == ACIS_IPPROTO_UDP && (rd16(ip + 6) & 0x3fff) == 0 &&
	       len >= off + ihl + ACIS_UDP_HLEN &&
	       rd16(ip + ihl + 2) == cfg->udp_port;
}

/* Strict checks for IPv4 that the switch itself consumes. */
static enum acis_class
classify_local_ipv4(const struct acis_classify_cfg *cfg, const uint8_t *f,
		    uint32_t len, unsigned int hw, struct acis_pkt_info *pi,
		    uint8_t *reason)
{
	const uint8_t *ip = f + pi->l3_off;
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
	uint32_t tot = rd16(ip + 2);
	const uint8_t *l4;
	uint32_t l4_len;

	if (tot < ihl || (uint32_t)pi->l3_off + tot > len)
		return drop(reason, ACIS_DROP_IPV4_BAD_LEN);
	if (!(hw & ACIS_HW_IP_CSUM_OK) && acis_csum(ip, ihl) != 0)
		return drop(reason, ACIS_DROP_IPV4_BAD_CSUM);
	if ((rd16(ip + 6) & 0x3fff) != 0) /* MF set or offset non-zero */
		return drop(reason, ACIS_DROP_IPV4_FRAGMENT);

	l4 = ip + ihl;
	l4_len = tot - ihl;
	pi->l4_off = (uint16_t)(pi->l3_off + ihl);
	if (pi->ip_proto == ACIS_IPPROTO_ICMP) {
		if (l4_len < 8 || acis_csum(l4, l4_len) != 0)
			return drop(reason, ACIS_DROP_ICMP_MALFORMED);
		if (l4[0] == 8 && l4[1] == 0)
			return ACIS_CLASS_ICMP;
		return drop(reason, ACIS_DROP_LOCAL_UNSUPPORTED);
	}
	if (pi->ip_proto != ACIS_IPPROTO_UDP)
		return drop(reason, ACIS_DROP_LOCAL_UNSUPPORTED);
	if (l4_len < ACIS_UDP_HLEN)
		return drop(reason, ACIS_DROP_UDP_TRUNC);
	{
		uint32_t ulen = rd16(l4 + 4);
		uint16_t ck = rd16(l4 + 6);

		if (ulen < ACIS_UDP_HLEN || ulen > l4_len)
			return drop(reason, ACIS_DROP_UDP_BAD_LEN);
		if (ck != 0 && !(hw & ACIS_HW_L4_CSUM_OK) &&
		    acis_csum_partial(l4, ulen,
				acis_csum_partial(ip + 12, 8, 0) +
				ACIS_IPPROTO_UDP + ulen) != 0xffff)
			return drop(reason, ACIS_DROP_UDP_BAD_CSUM);
		pi->sport = rd16(l4);
		pi->dport = rd16(l4 + 2);
		pi->payload_off = (uint16_t)(pi->l4_off + ACIS_UDP_HLEN);
		pi->payload_len = (uint16_t)(ulen - ACIS_UDP_HLEN);
	}
	if (pi->dport == cfg->udp_port &&
	    (pi->dst_ip == cfg->ip ||
	     (cfg->transit && !is_la_port(cfg, pi->dport))))
		return ACIS_CLASS_ACIS;
	if (is_la_port(cfg, pi->dport) || pi->dst_ip != cfg->ip)
		return ACIS_CLASS_LOOKASIDE; /* a port, or a passing dst_ip */
	return drop(reason, ACIS_DROP_LOCAL_UNSUPPORTED);
}

enum acis_class
acis_pkt_classify_full(const struct acis_classify_cfg *cfg, const uint8_t *f,
		       uint32_t len, struct acis_pkt_info *pi, uint8_t *reason)
{
	return acis_pkt_classify_hw(cfg, f, len, 0, pi, reason);
}

enum acis_class
acis_pkt_classify_hw(const struct acis_classify_cfg *cfg, const uint8_t *f,
		     uint32_t len, unsigned int hw, struct acis_pkt_info *pi,
		     uint8_t *reason)
{
	uint32_t off = ACIS_ETH_HLEN;
	uint16_t et;
	const uint8_t *ip;
	int to_our_mac;

	memset(pi, 0, sizeof(*pi));
	*reason = ACIS_DROP_NONE;
	if (len < ACIS_ETH_HLEN)
		return drop(reason, ACIS_DROP_ETH_RUNT);
	if (len > cfg->max_frame)
		return drop(reason, ACIS_DROP_ETH_OVERSIZE);
	/* Multicast bit of the first octet, or the all-zero address. */
	if ((f[6] & 1) ||
	    (f[6] | f[7] | f[8] | f[9] | f[10] | f[11]) == 0)
		return drop(reason, ACIS_DROP_ETH_BAD_SRC);

	et = rd16(f + 12);
	if (et == ACIS_ETHERTYPE_VLAN || et == ACIS_ETHERTYPE_QINQ) {
		if (len < off + ACIS_VLAN_HLEN)
			return drop(reason, ACIS_DROP_VLAN_TRUNC);
		pi->has_vlan = 1;
		pi->vlan_tci = rd16(f + off);
		et = rd16(f + off + 2);
		off += ACIS_VLAN_HLEN;
		if (et == ACIS_ETHERTYPE_VLAN) { /* QinQ inner tag */
			if (len < off + ACIS_VLAN_HLEN)
				return drop(reason, ACIS_DROP_VLAN_TRUNC);
			et = rd16(f + off + 2);
			off += ACIS_VLAN_HLEN;
		}
	}
	pi->ethertype = et;
	to_our_mac = is_for_us_mac(cfg, f);

	if (et == ACIS_ETHERTYPE_ARP) {
		pi->l3_off = (uint16_t)off;
		return classify_arp(cfg, f, len, pi, reason);
	}
	if (et != ACIS_ETHERTYPE_IPV4) {
		if (to_our_mac)
			return drop(reason, ACIS_DROP_LOCAL_UNSUPPORTED);
		return ACIS_CLASS_FORWARD;
	}

	pi->l3_off = (uint16_t)off;
	if (len < off + ACIS_IPV4_MIN_HLEN) {
		if (to_our_mac)
			return drop(reason, ACIS_DROP_IPV4_TRUNC);
		return ACIS_CLASS_FORWARD;
	}
	ip = f + off;
	memcpy(&pi->src_ip, ip + 12, 4);
	memcpy(&pi->dst_ip, ip + 16, 4);
	pi->ip_proto = ip[9];
	if (pi->dst_ip != cfg->ip) {
		if (to_our_mac)
			return drop(reason, ACIS_DROP_NOT_ROUTED);
		if (is_transit_la(cfg, f, len, off) ||
		    is_transit_acis(cfg, f, len, off))
			return classify_local_ipv4(cfg, f, len, hw, pi, reason);
		return ACIS_CLASS_FORWARD;
	}
	if (!to_our_mac && !(f[0] & 1)) {
		/* Our IP behind someone else's MAC: not ours to take. */
		return ACIS_CLASS_FORWARD;
	}
	/* From here on the packet is for the switch: validate strictly. */
	if ((ip[0] >> 4) != 4 || (ip[0] & 0xf) < 5)
		return drop(reason, ACIS_DROP_IPV4_BAD_HDR);
	if (len < off + (uint32_t)(ip[0] & 0xf) * 4)
		return drop(reason, ACIS_DROP_IPV4_TRUNC);
	return classify_local_ipv4(cfg, f, len, hw, pi, reason);
}

int
acis_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int v[6];
	char tail;
	int i;

	if (strlen(s) != 17)
		return -1;
	for (i = 0; i < 17; i++) {
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return -1;
	}
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

int
acis_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = a.s_addr;
	return 0;
}
