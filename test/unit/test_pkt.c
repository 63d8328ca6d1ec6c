/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_pkt: the frame classifier, checksum helpers, address
 * parsers and drop reason names.
 *
 * Frames are built byte by byte here, with checksums computed by a
 * reference implementation independent of the library, so a checksum bug
 * in the library cannot hide behind the same bug in the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis_pkt.h"

#define FRAME_MAX 2048
#define MAX_FRAME 1522 /* 1500 + Ethernet header + one tag + FCS room */
#define ACIS_PORT 47000

static const uint8_t SW_MAC[6] = {0x02, 0xac, 0x15, 0x00, 0x00, 0x01};
static const uint8_t HOST_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
static const uint8_t OTHER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t ZERO_MAC[6];

#define TCI_OUTER 0x2064 /* PCP 1, VLAN 100 */
#define TCI_INNER 0x00c8 /* VLAN 200 */

/* An IPv4 address in network order, without trusting htonl in tests. */
static uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const uint8_t bytes[4] = {a, b, c, d};
	uint32_t v;

	memcpy(&v, bytes, 4);
	return v;
}

#define SW_IP ip4(10, 0, 0, 1)
#define HOST_IP ip4(10, 0, 0, 10)
#define OTHER_IP ip4(10, 0, 0, 11)

static struct acis_classify_cfg
sw_cfg(void)
{
	struct acis_classify_cfg c;

	memset(&c, 0, sizeof(c));
	memcpy(c.mac, SW_MAC, 6);
	c.ip = SW_IP;
	c.udp_port = ACIS_PORT;
	c.max_frame = MAX_FRAME;
	return c;
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Reference RFC 1071 sum: 32-bit accumulator, folded, not complemented. */
static uint32_t
ref_sum(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += rd16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void
fix_ipv4_csum(uint8_t *ip)
{
	uint32_t hlen = (ip[0] & 0xf) * 4u;

	wr16(ip + 10, 0);
	wr16(ip + 10, (uint16_t)~ref_sum(ip, hlen, 0));
}

/* UDP checksum from the lengths written in the headers. */
static void
fix_udp_csum(uint8_t *ip, uint8_t *udp)
{
	uint16_t ulen = rd16(udp + 4);
	uint32_t sum;
	uint16_t ck;

	wr16(udp + 6, 0);
	sum = ref_sum(ip + 12, 8, 0) + ACIS_IPPROTO_UDP + ulen;
	ck = (uint16_t)~ref_sum(udp, ulen, sum);
	wr16(udp + 6, ck == 0 ? 0xffff : ck);
}

static void
fix_icmp_csum(uint8_t *icmp, uint32_t len)
{
	wr16(icmp + 2, 0);
	wr16(icmp + 2, (uint16_t)~ref_sum(icmp, len, 0));
}

/* Offset of L3 behind an Ethernet header with tags VLAN tags. */
#define L3(tags) (ACIS_ETH_HLEN + ACIS_VLAN_HLEN * (tags))

/*
 * Ethernet header with 0 tags, one 802.1Q tag, or QinQ (802.1ad outer,
 * 802.1Q inner). Returns the L3 offset.
 */
static uint32_t
put_eth(uint8_t *buf, const uint8_t *dst, const uint8_t *src, int tags,
	uint16_t ethertype)
{
	uint32_t off = 12;

	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	if (tags == 2) {
		wr16(buf + off, ACIS_ETHERTYPE_QINQ);
		wr16(buf + off + 2, TCI_OUTER);
		wr16(buf + off + 4, ACIS_ETHERTYPE_VLAN);
		wr16(buf + off + 6, TCI_INNER);
		off += 8;
	} else if (tags == 1) {
		wr16(buf + off, ACIS_ETHERTYPE_VLAN);
		wr16(buf + off + 2, TCI_OUTER);
		off += 4;
	}
	wr16(buf + off, ethertype);
	return off + 2;
}

/* IPv4 header of hlen bytes (options are NOPs) carrying l4_len bytes, DF
 * set as most stacks do. Returns hlen. */
static uint32_t
put_ipv4(uint8_t *ip, uint32_t hlen, uint8_t proto, uint32_t src,
	 uint32_t dst, uint32_t l4_len)
{
	memset(ip, 0, hlen);
	ip[0] = (uint8_t)(0x40 | hlen / 4);
	wr16(ip + 2, (uint16_t)(hlen + l4_len));
	wr16(ip + 4, 0x1234);
	wr16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	memset(ip + 20, 1, hlen - 20);
	fix_ipv4_csum(ip);
	return hlen;
}

static struct {
	const uint8_t *dmac;
	const uint8_t *smac;
	uint32_t dip;
	int tags;
	uint32_t ip_hlen;
	uint16_t sport;
	uint16_t dport;
	uint32_t plen;
} spec;

/* Start a frame description: from the host to the switch, untagged. */
static void
spec_reset(void)
{
	spec.dmac = SW_MAC;
	spec.smac = HOST_MAC;
	spec.dip = SW_IP;
	spec.tags = 0;
	spec.ip_hlen = 20;
	spec.sport = 5555;
	spec.dport = ACIS_PORT;
	spec.plen = 12;
}

/* IPv4/UDP frame from spec, payload bytes 0, 1, 2, ... Returns length. */
static uint32_t
build_udp(uint8_t *buf)
{
	uint32_t l3 = put_eth(buf, spec.dmac, spec.smac, spec.tags,
			      ACIS_ETHERTYPE_IPV4);
	uint32_t ulen = ACIS_UDP_HLEN + spec.plen;
	uint8_t *ip = buf + l3;
	uint8_t *udp = ip + put_ipv4(ip, spec.ip_hlen, ACIS_IPPROTO_UDP,
				     HOST_IP, spec.dip, ulen);
	uint32_t i;

	wr16(udp, spec.sport);
	wr16(udp + 2, spec.dport);
	wr16(udp + 4, (uint16_t)ulen);
	for (i = 0; i < spec.plen; i++)
		udp[ACIS_UDP_HLEN + i] = (uint8_t)i;
	fix_udp_csum(ip, udp);
	return l3 + spec.ip_hlen + ulen;
}

/* IPv4/ICMP frame from spec with the given type. Returns length. */
static uint32_t
build_icmp(uint8_t *buf, uint8_t type)
{
	uint32_t l3 = put_eth(buf, spec.dmac, spec.smac, spec.tags,
			      ACIS_ETHERTYPE_IPV4);
	uint32_t ilen = 8 + spec.plen;
	uint8_t *icmp = buf + l3 + put_ipv4(buf + l3, spec.ip_hlen,
					    ACIS_IPPROTO_ICMP, HOST_IP,
					    spec.dip, ilen);
	uint32_t i;

	icmp[0] = type;
	icmp[1] = 0;
	wr16(icmp + 4, 0x4242); /* identifier */
	wr16(icmp + 6, 7);      /* sequence */
	for (i = 0; i < spec.plen; i++)
		icmp[8 + i] = (uint8_t)(0xa0 + i);
	fix_icmp_csum(icmp, ilen);
	return l3 + spec.ip_hlen + ilen;
}

/* Ethernet/IPv4 ARP from the host asking for (or answering) tpa. */
static uint32_t
build_arp(uint8_t *buf, uint16_t op, uint32_t tpa)
{
	uint32_t l3 = put_eth(buf, spec.dmac, spec.smac, spec.tags,
			      ACIS_ETHERTYPE_ARP);
	uint8_t *a = buf + l3;
	uint32_t spa = HOST_IP;

	wr16(a, 1);
	wr16(a + 2, ACIS_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, op);
	memcpy(a + 8, HOST_MAC, 6);
	memcpy(a + 14, &spa, 4);
	if (op == 2)
		memcpy(a + 18, spec.dmac, 6);
	else
		memset(a + 18, 0, 6);
	memcpy(a + 24, &tpa, 4);
	return l3 + 28;
}

static uint8_t f[FRAME_MAX];
static struct acis_pkt_info pi;
static uint8_t reason;

static enum acis_class
classify(uint32_t len)
{
	struct acis_classify_cfg c = sw_cfg();

	return acis_pkt_classify(&c, f, len, &pi, &reason);
}

/* Frame f of len bytes must be dropped for the named reason. A macro so
 * that failures point at the test. */
#define expect_drop(len, name)                                          \
	do {                                                            \
		assert_int_equal(classify(len), ACIS_CLASS_DROP);       \
		assert_string_equal(acis_drop_name(reason), name);      \
	} while (0)

#define expect_class(len, cls)                                          \
	do {                                                            \
		assert_int_equal(classify(len), cls);                   \
		assert_string_equal(acis_drop_name(reason), "none");    \
	} while (0)

static int
setup(void **state)
{
	(void)state;
	spec_reset();
	memset(f, 0, sizeof(f));
	memset(&pi, 0xa5, sizeof(pi));
	reason = 0xff;
	return 0;
}

/* --- plain forwarding ---------------------------------------------------- */

static void
test_classify_forwards_udp_to_another_host(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_FORWARD);
	assert_int_equal(pi.ethertype, ACIS_ETHERTYPE_IPV4);
	assert_int_equal(pi.l3_off, ACIS_ETH_HLEN);
	assert_int_equal(pi.dst_ip, OTHER_IP);
	assert_int_equal(pi.src_ip, HOST_IP);
}

static void
test_classify_forwards_acis_port_udp_to_another_host(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.dport = ACIS_PORT;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_FORWARD);
}

static void
test_classify_forwards_non_ipv4_ethertype_with_garbage_payload(void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, OTHER_MAC, HOST_MAC, 0, 0x86dd);
	memset(f + l3, 0xee, 40);
	expect_class(l3 + 40, ACIS_CLASS_FORWARD);
	assert_int_equal(pi.ethertype, 0x86dd);
	assert_int_equal(pi.l3_off, 0);
}

static void
test_classify_forwards_garbage_ipv4_to_another_mac(void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, OTHER_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	memset(f + l3, 0xee, 46); /* version 14, wrong checksum, lengths */
	expect_class(l3 + 46, ACIS_CLASS_FORWARD);
}

static void
test_classify_forwards_garbage_ipv4_broadcast_to_another_ip(void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, BCAST, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	memset(f + l3, 0xee, 46);
	expect_class(l3 + 46, ACIS_CLASS_FORWARD);
}

static void
test_classify_forwards_truncated_ipv4_to_another_mac(void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, OTHER_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	expect_class(l3 + 10, ACIS_CLASS_FORWARD);
}

static void
test_classify_forwards_bare_ethernet_header(void **state)
{
	(void)state;
	put_eth(f, OTHER_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	expect_class(ACIS_ETH_HLEN, ACIS_CLASS_FORWARD);
}

static void
test_classify_forwards_ipv4_for_switch_ip_behind_another_mac(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	len = build_udp(f);
	f[ACIS_ETH_HLEN + 10] ^= 0xff; /* not ours to validate either */
	expect_class(len, ACIS_CLASS_FORWARD);
}

/* --- Ethernet checks ----------------------------------------------------- */

static void
test_classify_drops_runt_frame_as_eth_runt(void **state)
{
	(void)state;
	put_eth(f, OTHER_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	expect_drop(ACIS_ETH_HLEN - 1, "eth_runt");
}

static void
test_classify_drops_empty_frame_as_eth_runt(void **state)
{
	(void)state;
	expect_drop(0, "eth_runt");
}

static void
test_classify_accepts_frame_of_exactly_max_frame(void **state)
{
	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.plen = MAX_FRAME - ACIS_ETH_HLEN - 20 - ACIS_UDP_HLEN;
	assert_int_equal(build_udp(f), MAX_FRAME);
	expect_class(MAX_FRAME, ACIS_CLASS_FORWARD);
}

static void
test_classify_drops_frame_over_max_frame_as_eth_oversize(void **state)
{
	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.plen = MAX_FRAME + 1 - ACIS_ETH_HLEN - 20 - ACIS_UDP_HLEN;
	assert_int_equal(build_udp(f), MAX_FRAME + 1);
	expect_drop(MAX_FRAME + 1, "eth_oversize");
}

static void
test_classify_drops_multicast_source_as_eth_bad_src(void **state)
{
	static const uint8_t mc[6] = {0x01, 0x00, 0x5e, 0x01, 0x02, 0x03};
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.smac = mc;
	spec.dip = OTHER_IP;
	len = build_udp(f);
	expect_drop(len, "eth_bad_src");
}

static void
test_classify_drops_broadcast_source_as_eth_bad_src(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.smac = BCAST;
	len = build_udp(f);
	expect_drop(len, "eth_bad_src");
}

static void
test_classify_drops_zero_source_as_eth_bad_src(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.smac = ZERO_MAC;
	spec.dip = OTHER_IP;
	len = build_udp(f);
	expect_drop(len, "eth_bad_src");
}

static void
test_classify_clears_previous_info(void **state)
{
	(void)state;
	expect_drop(3, "eth_runt");
	assert_int_equal(pi.l3_off, 0);
	assert_int_equal(pi.l4_off, 0);
	assert_int_equal(pi.payload_off, 0);
	assert_int_equal(pi.has_vlan, 0);
	assert_int_equal(pi.dst_ip, 0);
}

static void
test_classify_drops_other_ethertype_to_switch_as_local_unsupported(
	void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, SW_MAC, HOST_MAC, 0, 0x86dd);
	memset(f + l3, 0, 40);
	expect_drop(l3 + 40, "local_unsupported");
}

/* --- VLAN ---------------------------------------------------------------- */

static void
test_classify_parses_vlan_tagged_acis_frame_with_offsets_shifted_by_4(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.tags = 1;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(pi.has_vlan, 1);
	assert_int_equal(pi.vlan_tci, TCI_OUTER);
	assert_int_equal(pi.ethertype, ACIS_ETHERTYPE_IPV4);
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.l4_off, 38);
	assert_int_equal(pi.payload_off, 46);
	assert_int_equal(pi.payload_len, spec.plen);
}

static void
test_classify_parses_qinq_acis_frame_with_offsets_shifted_by_8(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.tags = 2;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(pi.has_vlan, 1);
	assert_int_equal(pi.vlan_tci, TCI_OUTER);
	assert_int_equal(pi.ethertype, ACIS_ETHERTYPE_IPV4);
	assert_int_equal(pi.l3_off, 22);
	assert_int_equal(pi.l4_off, 42);
	assert_int_equal(pi.payload_off, 50);
}

static void
test_classify_forwards_vlan_tagged_frame_to_another_host(void **state)
{
	uint32_t len;

	(void)state;
	spec.tags = 1;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_FORWARD);
	assert_int_equal(pi.has_vlan, 1);
	assert_int_equal(pi.vlan_tci, TCI_OUTER);
	assert_int_equal(pi.l3_off, 18);
}

static void
test_classify_drops_truncated_vlan_tag_as_vlan_truncated(void **state)
{
	(void)state;
	put_eth(f, OTHER_MAC, HOST_MAC, 1, ACIS_ETHERTYPE_IPV4);
	expect_drop(ACIS_ETH_HLEN + 2, "vlan_truncated");
}

static void
test_classify_drops_truncated_inner_qinq_tag_as_vlan_truncated(
	void **state)
{
	(void)state;
	put_eth(f, OTHER_MAC, HOST_MAC, 2, ACIS_ETHERTYPE_IPV4);
	expect_drop(ACIS_ETH_HLEN + 4 + 3, "vlan_truncated");
}

/* --- ARP ----------------------------------------------------------------- */

static void
test_classify_sends_arp_request_for_switch_ip_to_arp(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, SW_IP);
	expect_class(len, ACIS_CLASS_ARP);
	assert_int_equal(pi.ethertype, ACIS_ETHERTYPE_ARP);
	assert_int_equal(pi.l3_off, ACIS_ETH_HLEN);
}

static void
test_classify_sends_vlan_tagged_arp_request_for_switch_ip_to_arp(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	spec.tags = 1;
	len = build_arp(f, 1, SW_IP);
	expect_class(len, ACIS_CLASS_ARP);
	assert_int_equal(pi.l3_off, 18);
}

static void
test_classify_sends_padded_arp_request_for_switch_ip_to_arp(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, SW_IP);
	assert_true(len < 60);
	expect_class(60, ACIS_CLASS_ARP);
}

static void
test_classify_forwards_arp_request_for_another_ip(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, OTHER_IP);
	expect_class(len, ACIS_CLASS_FORWARD);
}

static void
test_classify_does_not_forward_arp_to_switch_mac_for_another_ip(
	void **state)
{
	/*
	 * Addressed to the switch itself, so not forwarded (as IPv4 to the
	 * switch's MAC for another IP is not_routed); the reason is the
	 * library's choice.
	 */
	uint32_t len;

	(void)state;
	len = build_arp(f, 1, OTHER_IP);
	assert_int_equal(classify(len), ACIS_CLASS_DROP);
	assert_string_not_equal(acis_drop_name(reason), "none");
}

static void
test_classify_sends_arp_reply_to_switch_to_arp(void **state)
{
	uint32_t len;

	(void)state;
	len = build_arp(f, 2, SW_IP);
	expect_class(len, ACIS_CLASS_ARP);
}

static void
test_classify_drops_truncated_arp_to_switch_as_arp_malformed(void **state)
{
	uint32_t len;

	(void)state;
	len = build_arp(f, 1, SW_IP);
	expect_drop(len - 1, "arp_malformed");
}

static void
test_classify_forwards_truncated_broadcast_arp(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, SW_IP);
	expect_class(len - 1, ACIS_CLASS_FORWARD);
}

static void
test_classify_drops_non_ethernet_arp_for_switch_as_arp_malformed(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, SW_IP);
	wr16(f + ACIS_ETH_HLEN, 6); /* IEEE 802 hardware type */
	expect_drop(len, "arp_malformed");
}

/* --- IPv4 to the switch -------------------------------------------------- */

static void
test_classify_sends_icmp_echo_to_switch_to_icmp_with_offsets(void **state)
{
	uint32_t len;

	(void)state;
	len = build_icmp(f, 8);
	expect_class(len, ACIS_CLASS_ICMP);
	assert_int_equal(pi.ip_proto, ACIS_IPPROTO_ICMP);
	assert_int_equal(pi.l3_off, ACIS_ETH_HLEN);
	assert_int_equal(pi.l4_off, ACIS_ETH_HLEN + 20);
	assert_int_equal(pi.src_ip, HOST_IP);
	assert_int_equal(pi.dst_ip, SW_IP);
	assert_int_equal(pi.payload_off, 0);
}

static void
test_classify_sends_broadcast_icmp_echo_to_switch_ip_to_icmp(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_icmp(f, 8);
	expect_class(len, ACIS_CLASS_ICMP);
}

static void
test_classify_drops_icmp_echo_reply_to_switch_as_local_unsupported(
	void **state)
{
	uint32_t len;

	(void)state;
	len = build_icmp(f, 0);
	expect_drop(len, "local_unsupported");
}

static void
test_classify_drops_icmp_with_bad_checksum_as_icmp_malformed(void **state)
{
	uint32_t len;

	(void)state;
	len = build_icmp(f, 8);
	f[len - 1] ^= 0x01;
	expect_drop(len, "icmp_malformed");
}

static void
test_classify_drops_icmp_shorter_than_8_bytes_as_icmp_malformed(
	void **state)
{
	uint8_t *ip = f + ACIS_ETH_HLEN;
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, SW_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	put_ipv4(ip, 20, ACIS_IPPROTO_ICMP, HOST_IP, SW_IP, 4);
	ip[20] = 8;
	ip[21] = 0;
	fix_icmp_csum(ip + 20, 4);
	expect_drop(l3 + 24, "icmp_malformed");
}

static void
test_classify_drops_tcp_to_switch_as_local_unsupported(void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, SW_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	put_ipv4(f + l3, 20, 6, HOST_IP, SW_IP, 20);
	expect_drop(l3 + 40, "local_unsupported");
}

static void
test_classify_drops_bad_ipv4_checksum_to_switch(void **state)
{
	uint32_t len;

	(void)state;
	len = build_udp(f);
	f[ACIS_ETH_HLEN + 10] ^= 0x40;
	expect_drop(len, "ipv4_bad_checksum");
}

/* A checksum the port verified and found good is not verified again (a
 * frame whose checksum is wrong but flagged good shows it); every other
 * check still holds, and only the named checksum is spared. */
static void
test_classify_hw_verdict_spares_only_the_checksum_it_names(void **state)
{
	struct acis_classify_cfg c = sw_cfg();
	uint32_t len;

	(void)state;
	len = build_udp(f);
	f[len - 1] ^= 0x10; /* UDP checksum now wrong */
	assert_int_equal(acis_pkt_classify_hw(&c, f, len, ACIS_HW_L4_CSUM_OK,
					      &pi, &reason), ACIS_CLASS_ACIS);
	assert_int_equal(pi.payload_len, spec.plen);
	assert_int_equal(acis_pkt_classify_hw(&c, f, len, ACIS_HW_IP_CSUM_OK,
					      &pi, &reason), ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "udp_bad_checksum");
	assert_int_equal(acis_pkt_classify_hw(&c, f, len, 0, &pi, &reason),
			 ACIS_CLASS_DROP);

	len = build_udp(f);
	f[ACIS_ETH_HLEN + 10] ^= 0x40; /* IPv4 header checksum now wrong */
	assert_int_equal(acis_pkt_classify_hw(&c, f, len, ACIS_HW_IP_CSUM_OK,
					      &pi, &reason), ACIS_CLASS_ACIS);
	assert_int_equal(acis_pkt_classify_hw(&c, f, len, ACIS_HW_L4_CSUM_OK,
					      &pi, &reason), ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "ipv4_bad_checksum");

	/* a good verdict does not excuse a bad length */
	len = build_udp(f);
	wr16(f + ACIS_ETH_HLEN + 20 + 4, (uint16_t)(len - ACIS_ETH_HLEN));
	assert_int_equal(acis_pkt_classify_hw(&c, f, len,
					      ACIS_HW_IP_CSUM_OK |
					      ACIS_HW_L4_CSUM_OK, &pi, &reason),
			 ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "udp_bad_length");

	/* nor spare ICMP's checksum (a port's L4 verdict is for UDP/TCP) */
	len = build_icmp(f, 8);
	f[len - 1] ^= 0x01;
	assert_int_equal(acis_pkt_classify_hw(&c, f, len,
					      ACIS_HW_IP_CSUM_OK |
					      ACIS_HW_L4_CSUM_OK, &pi, &reason),
			 ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "icmp_malformed");
}

static void
test_classify_drops_total_length_beyond_frame_as_ipv4_bad_length(
	void **state)
{
	uint32_t len;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	len = build_udp(f);
	wr16(ip + 2, (uint16_t)(rd16(ip + 2) + 1));
	fix_ipv4_csum(ip);
	expect_drop(len, "ipv4_bad_length");
}

static void
test_classify_drops_total_length_below_header_as_ipv4_bad_length(
	void **state)
{
	uint32_t len;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	len = build_udp(f);
	wr16(ip + 2, 19);
	fix_ipv4_csum(ip);
	expect_drop(len, "ipv4_bad_length");
}

static void
test_classify_drops_ipv4_version_6_to_switch_as_ipv4_bad_header(
	void **state)
{
	uint32_t len;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	len = build_udp(f);
	ip[0] = 0x65;
	fix_ipv4_csum(ip);
	expect_drop(len, "ipv4_bad_header");
}

static void
test_classify_drops_ipv4_header_length_below_20_as_ipv4_bad_header(
	void **state)
{
	uint32_t len;

	(void)state;
	len = build_udp(f);
	f[ACIS_ETH_HLEN] = 0x44;
	expect_drop(len, "ipv4_bad_header");
}

static void
test_classify_drops_short_ipv4_header_to_switch_as_ipv4_truncated(
	void **state)
{
	(void)state;
	build_udp(f);
	expect_drop(ACIS_ETH_HLEN + 19, "ipv4_truncated");
}

static void
test_classify_drops_cut_ipv4_options_to_switch_as_ipv4_truncated(
	void **state)
{
	(void)state;
	spec.ip_hlen = 28;
	build_udp(f);
	expect_drop(ACIS_ETH_HLEN + 24, "ipv4_truncated");
}

static void
test_classify_drops_more_fragments_to_switch_as_ipv4_fragment(void **state)
{
	uint32_t len;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	len = build_udp(f);
	wr16(ip + 6, 0x2000);
	fix_ipv4_csum(ip);
	expect_drop(len, "ipv4_fragment");
}

static void
test_classify_drops_fragment_offset_to_switch_as_ipv4_fragment(
	void **state)
{
	uint32_t len;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	len = build_udp(f);
	wr16(ip + 6, 0x0001);
	fix_ipv4_csum(ip);
	expect_drop(len, "ipv4_fragment");
}

static void
test_classify_drops_ipv4_to_switch_mac_for_another_ip_as_not_routed(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.dip = OTHER_IP;
	len = build_udp(f);
	expect_drop(len, "not_routed");
}

/* --- UDP / ACiS ---------------------------------------------------------- */

static void
test_classify_sends_udp_to_acis_port_to_acis_with_payload(void **state)
{
	uint32_t len;

	(void)state;
	spec.sport = 40001;
	spec.plen = 33;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(pi.ethertype, ACIS_ETHERTYPE_IPV4);
	assert_int_equal(pi.has_vlan, 0);
	assert_int_equal(pi.ip_proto, ACIS_IPPROTO_UDP);
	assert_int_equal(pi.l3_off, 14);
	assert_int_equal(pi.l4_off, 34);
	assert_int_equal(pi.payload_off, 42);
	assert_int_equal(pi.payload_len, 33);
	assert_int_equal(pi.sport, 40001);
	assert_int_equal(pi.dport, ACIS_PORT);
	assert_int_equal(pi.src_ip, HOST_IP);
	assert_int_equal(pi.dst_ip, SW_IP);
}

static void
test_classify_finds_acis_payload_after_ipv4_options(void **state)
{
	uint32_t len;

	(void)state;
	spec.ip_hlen = 24;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(pi.l4_off, 38);
	assert_int_equal(pi.payload_off, 46);
	assert_int_equal(pi.payload_len, spec.plen);
}

static void
test_classify_takes_payload_length_from_udp_not_ethernet_padding(
	void **state)
{
	uint32_t len;

	(void)state;
	spec.plen = 2;
	len = build_udp(f);
	assert_true(len < 60);
	expect_class(60, ACIS_CLASS_ACIS);
	assert_int_equal(pi.payload_len, 2);
}

static void
test_classify_drops_udp_to_another_port_as_local_unsupported(void **state)
{
	uint32_t len;

	(void)state;
	spec.dport = 53;
	len = build_udp(f);
	expect_drop(len, "local_unsupported");
}

static void
test_classify_drops_bad_udp_checksum_as_udp_bad_checksum(void **state)
{
	uint32_t len;

	(void)state;
	len = build_udp(f);
	f[len - 1] ^= 0x10;
	expect_drop(len, "udp_bad_checksum");
}

static void
test_classify_accepts_udp_checksum_zero_as_none(void **state)
{
	uint32_t len;

	(void)state;
	len = build_udp(f);
	wr16(f + ACIS_ETH_HLEN + 20 + 6, 0);
	f[len - 1] ^= 0x10; /* nothing checks the payload now */
	expect_class(len, ACIS_CLASS_ACIS);
}

static void
test_classify_accepts_udp_checksum_ffff_for_a_zero_sum(void **state)
{
	uint8_t *udp = f + ACIS_ETH_HLEN + 20;
	uint32_t len;
	int w;

	(void)state;
	spec.plen = 2;
	len = build_udp(f);
	/* Find the payload word that makes the computed checksum 0. */
	for (w = 0; w <= 0xffff; w++) {
		wr16(udp + 8, (uint16_t)w);
		fix_udp_csum(f + ACIS_ETH_HLEN, udp);
		if (rd16(udp + 6) == 0xffff)
			break;
	}
	assert_true(w <= 0xffff);
	expect_class(len, ACIS_CLASS_ACIS);
}

static void
test_classify_drops_udp_length_beyond_ip_payload_as_udp_bad_length(
	void **state)
{
	uint8_t *udp = f + ACIS_ETH_HLEN + 20;
	uint32_t len;

	(void)state;
	len = build_udp(f);
	/* The frame has a spare byte, the IPv4 length does not cover it. */
	wr16(udp + 4, (uint16_t)(rd16(udp + 4) + 1));
	expect_drop(len + 1, "udp_bad_length");
}

static void
test_classify_drops_udp_length_below_header_as_udp_bad_length(
	void **state)
{
	uint32_t len;

	(void)state;
	len = build_udp(f);
	wr16(f + ACIS_ETH_HLEN + 20 + 4, 7);
	expect_drop(len, "udp_bad_length");
}

static void
test_classify_drops_ip_payload_shorter_than_udp_header_as_udp_truncated(
	void **state)
{
	uint32_t l3;

	(void)state;
	l3 = put_eth(f, SW_MAC, HOST_MAC, 0, ACIS_ETHERTYPE_IPV4);
	put_ipv4(f + l3, 20, ACIS_IPPROTO_UDP, HOST_IP, SW_IP, 6);
	expect_drop(l3 + 26, "udp_truncated");
}

static void
test_classify_checks_udp_checksum_over_udp_length_only(void **state)
{
	uint8_t *ip = f + ACIS_ETH_HLEN;
	uint32_t len;

	(void)state;
	/* IPv4 carries 4 bytes beyond the UDP datagram: they are not UDP. */
	len = build_udp(f);
	wr16(ip + 2, (uint16_t)(rd16(ip + 2) + 4));
	fix_ipv4_csum(ip);
	memset(f + len, 0x77, 4);
	expect_class(len + 4, ACIS_CLASS_ACIS);
	assert_int_equal(pi.payload_len, spec.plen);
}

/* --- truncation sweep ---------------------------------------------------- */

/*
 * Classify the first n bytes of frame placed so that the byte after them
 * is on an inaccessible page: any read past the end faults.
 */
struct guard {
	uint8_t *base;
	size_t page;
};

static void
guard_init(struct guard *g)
{
	g->page = (size_t)sysconf(_SC_PAGESIZE);
	g->base = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g->base != MAP_FAILED);
	assert_int_equal(mprotect(g->base + g->page, g->page, PROT_NONE), 0);
}

static void
guard_fini(struct guard *g)
{
	munmap(g->base, 2 * g->page);
}

/* Every strict prefix of frame must classify sanely; returns how many of
 * them were not dropped. */
static unsigned int
sweep_prefixes(const uint8_t *frame, uint32_t len)
{
	struct acis_classify_cfg c = sw_cfg();
	struct guard g;
	unsigned int kept = 0;
	uint32_t n;

	guard_init(&g);
	for (n = 0; n < len; n++) {
		uint8_t *p = g.base + g.page - n;
		enum acis_class cls;

		memcpy(p, frame, n);
		cls = acis_pkt_classify(&c, p, n, &pi, &reason);
		assert_true(cls < ACIS_CLASS_MAX);
		if (cls == ACIS_CLASS_DROP) {
			assert_true(reason != ACIS_DROP_NONE);
			assert_true(reason < ACIS_DROP_MAX);
		} else {
			assert_int_equal(reason, ACIS_DROP_NONE);
			kept++;
		}
		assert_true(pi.l3_off <= n);
		assert_true(pi.l4_off <= n);
		assert_true((uint32_t)pi.payload_off + pi.payload_len <= n);
	}
	guard_fini(&g);
	return kept;
}

static void
test_classify_drops_every_truncation_of_an_acis_frame(void **state)
{
	uint32_t len;

	(void)state;
	spec.ip_hlen = 24;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(sweep_prefixes(f, len), 0);
}

static void
test_classify_drops_every_truncation_of_a_qinq_acis_frame(void **state)
{
	uint32_t len;

	(void)state;
	spec.tags = 2;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_ACIS);
	assert_int_equal(sweep_prefixes(f, len), 0);
}

static void
test_classify_drops_every_truncation_of_an_icmp_echo(void **state)
{
	uint32_t len;

	(void)state;
	spec.tags = 1;
	len = build_icmp(f, 8);
	expect_class(len, ACIS_CLASS_ICMP);
	assert_int_equal(sweep_prefixes(f, len), 0);
}

static void
test_classify_survives_every_truncation_of_an_arp_request(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = BCAST;
	len = build_arp(f, 1, SW_IP);
	expect_class(len, ACIS_CLASS_ARP);
	/* A cut broadcast ARP cannot be known to be for us: forwarded. */
	assert_int_equal(sweep_prefixes(f, len), len - ACIS_ETH_HLEN);
}

static void
test_classify_survives_every_truncation_of_a_forwarded_frame(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.tags = 2;
	len = build_udp(f);
	expect_class(len, ACIS_CLASS_FORWARD);
	/* Only the cut tags are dropped; the rest is forwarded as is. */
	assert_int_equal(sweep_prefixes(f, len), len - L3(2));
}

/* --- drop reasons -------------------------------------------------------- */

static void
test_drop_name_is_unique_and_non_empty_for_every_reason(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ACIS_DROP_MAX; i++) {
		const char *n = acis_drop_name(i);

		assert_non_null(n);
		assert_true(n[0] != '\0');
		assert_string_not_equal(n, "unknown");
		for (j = 0; j < i; j++)
			assert_string_not_equal(n, acis_drop_name(j));
	}
}

static void
test_drop_name_is_a_counter_name(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ACIS_DROP_MAX; i++) {
		const char *n = acis_drop_name(i);

		assert_true(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
			    strlen(n));
	}
	assert_string_equal(acis_drop_name(ACIS_DROP_NONE), "none");
	assert_string_equal(acis_drop_name(ACIS_DROP_ETH_RUNT), "eth_runt");
	assert_string_equal(acis_drop_name(ACIS_DROP_TX_FULL), "tx_full");
}

static void
test_drop_name_out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(acis_drop_name(ACIS_DROP_MAX), "unknown");
	assert_string_equal(acis_drop_name(255), "unknown");
	assert_string_equal(acis_drop_name(~0u), "unknown");
}

static void
test_drop_desc_is_non_empty_for_every_reason(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ACIS_DROP_MAX; i++) {
		assert_non_null(acis_drop_desc(i));
		assert_true(acis_drop_desc(i)[0] != '\0');
	}
	assert_string_equal(acis_drop_desc(ACIS_DROP_MAX), "unknown");
}

/* --- checksums ----------------------------------------------------------- */

/* RFC 1071 section 3 example. */
static const uint8_t rfc1071[8] = {0x00, 0x01, 0xf2, 0x03,
				   0xf4, 0xf5, 0xf6, 0xf7};

/* A real IPv4 header whose checksum is 0xb861. */
static const uint8_t ipv4_vector[20] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

static void
test_csum_partial_matches_rfc1071_example(void **state)
{
	(void)state;
	assert_int_equal(acis_csum_partial(rfc1071, 8, 0), 0xddf2);
	assert_int_equal(acis_csum(rfc1071, 8), 0x220d);
}

/* RFC 1071 as written: big-endian 16-bit words, one at a time. */
static uint16_t
csum_reference(const uint8_t *p, uint32_t len, uint32_t sum)
{
	uint64_t s = sum;

	for (; len >= 2; p += 2, len -= 2)
		s += (uint32_t)p[0] << 8 | p[1];
	if (len)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The word-parallel sum equals the reference for every length 0..9000,
 * at odd and even buffer addresses, with carried-in sums, on random
 * bytes and on all-0xff (the most carries). */
static void
test_csum_partial_matches_the_reference_on_every_length(void **state)
{
	static uint8_t buf[9001 + 1];
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint32_t len, i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	for (len = 0; len <= 9000; len++) {
		uint32_t sum = (uint32_t)(x >> (len % 48)) & 0x1ffff;

		assert_int_equal(acis_csum_partial(buf, len, sum),
				 csum_reference(buf, len, sum));
		assert_int_equal(acis_csum_partial(buf + 1, len, 0),
				 csum_reference(buf + 1, len, 0));
	}
	memset(buf, 0xff, sizeof(buf));
	for (len = 0; len <= 9000; len += 7)
		assert_int_equal(acis_csum_partial(buf, len, 0xffff),
				 csum_reference(buf, len, 0xffff));
}

/* Past 4 MiB the vector lanes are emptied into the wide sum before they
 * can overflow: all-0xfe words (a lane's largest gain that does not fold
 * to zero) over 9 MiB + 3 bytes, and random bytes. */
static void
test_csum_partial_matches_the_reference_beyond_4_mib(void **state)
{
	const uint32_t len = (9u << 20) + 3;
	uint8_t *buf = malloc(len);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint32_t i;

	(void)state;
	assert_non_null(buf);
	memset(buf, 0xfe, len);
	assert_int_equal(acis_csum_partial(buf, len, 0),
			 csum_reference(buf, len, 0));
	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	assert_int_equal(acis_csum_partial(buf, len, 0x1234),
			 csum_reference(buf, len, 0x1234));
	free(buf);
}

static void
test_csum_partial_pads_an_odd_byte_with_zero(void **state)
{
	static const uint8_t odd[3] = {0x12, 0x34, 0x56};

	(void)state;
	assert_int_equal(acis_csum_partial(odd, 3, 0), 0x1234 + 0x5600);
	assert_int_equal(acis_csum_partial(odd, 1, 0), 0x1200);
	assert_int_equal(acis_csum_partial(odd, 0, 0), 0);
}

static void
test_csum_partial_folds_the_initial_sum_and_carries(void **state)
{
	static const uint8_t ff[4] = {0xff, 0xff, 0xff, 0xff};

	(void)state;
	assert_int_equal(acis_csum_partial(ff, 4, 0), 0xffff);
	assert_int_equal(acis_csum_partial(rfc1071, 8, 0x10000), 0xddf3);
	assert_int_equal(acis_csum_partial(rfc1071, 4, 0), 0xf204);
	assert_int_equal(acis_csum_partial(rfc1071 + 4, 4,
					   acis_csum_partial(rfc1071, 4, 0)),
			 0xddf2);
}

static void
test_csum_of_ipv4_header_matches_known_vector(void **state)
{
	uint8_t h[20];

	(void)state;
	memcpy(h, ipv4_vector, 20);
	assert_int_equal(acis_csum(h, 20), 0);
	h[10] = 0;
	h[11] = 0;
	assert_int_equal(acis_csum(h, 20), 0xb861);
}

static void
test_udp4_csum_matches_known_vector(void **state)
{
	/* 192.168.0.1:1234 -> 192.168.0.199:47000 "hello", sum 0x7d7e. */
	static const uint8_t udp[13] = {0x04, 0xd2, 0xb7, 0x98, 0x00, 0x0d,
					0x00, 0x00, 'h', 'e', 'l', 'l', 'o'};

	(void)state;
	assert_int_equal(acis_udp4_csum(ipv4_vector, udp, 13), 0x7d7e);
}

static void
test_udp4_csum_never_returns_zero(void **state)
{
	/* The payload word 0xc156 makes the one's complement sum 0xffff. */
	static const uint8_t udp[10] = {0x04, 0xd2, 0xb7, 0x98, 0x00, 0x0a,
					0x00, 0x00, 0xc1, 0x56};

	(void)state;
	assert_int_equal(acis_udp4_csum(ipv4_vector, udp, 10), 0xffff);
}

static void
test_udp4_csum_agrees_with_the_frame_builder(void **state)
{
	uint8_t *ip = f + ACIS_ETH_HLEN;
	uint8_t *udp = ip + 20;
	uint32_t len;
	uint16_t ck;

	(void)state;
	spec.plen = 101;
	len = build_udp(f);
	ck = rd16(udp + 6);
	wr16(udp + 6, 0);
	assert_int_equal(acis_udp4_csum(ip, udp, len - ACIS_ETH_HLEN - 20), ck);
}

/* --- address parsers ----------------------------------------------------- */

static void
test_parse_mac_reads_lower_and_upper_case(void **state)
{
	static const uint8_t want[6] = {0x02, 0xab, 0xcd, 0xef, 0x00, 0x9f};
	uint8_t m[6];

	(void)state;
	assert_int_equal(acis_parse_mac("02:ab:cd:ef:00:9f", m), 0);
	assert_memory_equal(m, want, 6);
	memset(m, 0, 6);
	assert_int_equal(acis_parse_mac("02:AB:Cd:eF:00:9F", m), 0);
	assert_memory_equal(m, want, 6);
}

static void
test_parse_mac_refuses_malformed_text(void **state)
{
	static const char *const bad[] = {
		"",
		"02:ab:cd:ef:00",
		"02:ab:cd:ef:00:9f:",
		"02:ab:cd:ef:00:9f0",
		"02-ab-cd-ef-00-9f",
		"02:ab:cd:ef:00:9g",
		"2:ab:cd:ef:00:9f",
		"02:ab:cd:ef:00: f",
		" 02:ab:cd:ef:00:9f",
		"02:ab:cd:ef:00:9f ",
		"0x2:ab:cd:ef:00:9",
		"02ab:cd:ef:00:9f:0",
	};
	uint8_t m[6];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (acis_parse_mac(bad[i], m) == 0)
			fail_msg("accepted '%s'", bad[i]);
}

static void
test_parse_ipv4_gives_network_order(void **state)
{
	uint32_t ip = 0;

	(void)state;
	assert_int_equal(acis_parse_ipv4("10.0.0.1", &ip), 0);
	assert_int_equal(ip, ip4(10, 0, 0, 1));
	assert_int_equal(acis_parse_ipv4("255.254.253.0", &ip), 0);
	assert_int_equal(ip, ip4(255, 254, 253, 0));
}

static void
test_parse_ipv4_refuses_malformed_text(void **state)
{
	static const char *const bad[] = {
		"", "10.0.0", "10.0.0.1.2", "256.0.0.1", "10.0.0.-1",
		"a.b.c.d", "10.0.0.1 ", " 10.0.0.1", "10..0.1", "::1",
	};
	uint32_t ip;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (acis_parse_ipv4(bad[i], &ip) == 0)
			fail_msg("accepted '%s'", bad[i]);
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

/* --- look-aside ports and the result's headers --------------------------- */

#define LA_PORT 48000

static enum acis_class
classify_la(uint32_t len)
{
	struct acis_classify_cfg c = sw_cfg();

	c.la_ports[0] = 9;
	c.la_ports[1] = LA_PORT;
	c.n_la_ports = 2;
	return acis_pkt_classify(&c, f, len, &pi, &reason);
}

static void
test_classify_la_port_to_the_switch_is_lookaside(void **state)
{
	uint32_t len;

	(void)state;
	spec.dport = LA_PORT;
	len = build_udp(f);
	assert_int_equal(classify_la(len), ACIS_CLASS_LOOKASIDE);
	assert_int_equal(pi.dport, LA_PORT);
	assert_int_equal(pi.payload_off, ACIS_ETH_HLEN + 20 + ACIS_UDP_HLEN);
	assert_int_equal(pi.payload_len, spec.plen);
	/* not a look-aside port: the switch has no service there */
	spec.dport = LA_PORT + 1;
	len = build_udp(f);
	assert_int_equal(classify_la(len), ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "local_unsupported");
}

static void
test_classify_la_port_passing_through_is_lookaside_and_checked(void **state)
{
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.dport = LA_PORT;
	spec.tags = 1;
	len = build_udp(f);
	assert_int_equal(classify_la(len), ACIS_CLASS_LOOKASIDE);
	assert_int_equal(pi.dst_ip, OTHER_IP);
	/* selected, so checked as strictly as traffic to the switch */
	f[len - 1] ^= 0x40;
	assert_int_equal(classify_la(len), ACIS_CLASS_DROP);
	assert_string_equal(acis_drop_name(reason), "udp_bad_checksum");
	/* other ports and fragments pass untouched */
	spec.dport = 5000;
	len = build_udp(f);
	assert_int_equal(classify_la(len), ACIS_CLASS_FORWARD);
	spec.dport = LA_PORT;
	len = build_udp(f);
	wr16(f + L3(1) + 6, 0x2000); /* more fragments */
	fix_ipv4_csum(f + L3(1));
	assert_int_equal(classify_la(len), ACIS_CLASS_FORWARD);
}

static void
test_classify_la_dst_ip_selects_passing_udp_to_that_host(void **state)
{
	struct acis_classify_cfg c = sw_cfg();
	uint32_t len;

	(void)state;
	c.la_ips[0] = OTHER_IP;
	c.n_la_ips = 1;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.dport = ACIS_PORT; /* any port, even the ACiS one, when passing */
	len = build_udp(f);
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_LOOKASIDE);
	assert_int_equal(pi.dst_ip, OTHER_IP);
	/* to another host: untouched */
	c.la_ips[0] = HOST_IP;
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_FORWARD);
}

/* A fabric switch (transit): ACiS datagrams passing through to another
 * switch's address are taken, checked as strictly as its own; other
 * passing UDP is not, nor is anything without transit. */
static void
test_classify_transit_takes_passing_acis(void **state)
{
	struct acis_classify_cfg c = sw_cfg();
	uint32_t len;

	(void)state;
	spec.dmac = OTHER_MAC;
	spec.dip = OTHER_IP;
	spec.dport = ACIS_PORT;
	len = build_udp(f);
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_FORWARD);
	c.transit = 1;
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_ACIS);
	assert_int_equal(pi.dst_ip, OTHER_IP);
	assert_int_equal(pi.dport, ACIS_PORT);
	spec.dport = 5000;
	len = build_udp(f);
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_FORWARD);
	/* a bad UDP checksum on a datagram taken: dropped, as the switch's */
	spec.dport = ACIS_PORT;
	len = build_udp(f);
	f[len - 1] ^= 0x55;
	assert_int_equal(acis_pkt_classify(&c, f, len, &pi, &reason),
			 ACIS_CLASS_DROP);
	assert_int_equal(reason, ACIS_DROP_UDP_BAD_CSUM);
}

static void
test_udp4_headers_build_a_datagram_the_classifier_takes(void **state)
{
	uint32_t sip = HOST_IP, dip = SW_IP;
	uint8_t *ip = f + ACIS_ETH_HLEN;

	(void)state;
	memset(f, 0xee, 200);
	acis_udp4_headers(f, SW_MAC, HOST_MAC, sip, dip, 5555, ACIS_PORT, 7);
	memcpy(f + ACIS_UDP4_PAYLOAD_OFF, "payload", 7);
	assert_int_equal(classify(ACIS_UDP4_PAYLOAD_OFF + 7), ACIS_CLASS_ACIS);
	assert_int_equal(pi.payload_off, ACIS_UDP4_PAYLOAD_OFF);
	assert_int_equal(pi.payload_len, 7);
	assert_int_equal(pi.sport, 5555);
	assert_int_equal(pi.src_ip, HOST_IP);
	assert_int_equal(ref_sum(ip, 20, 0), 0xffff);
	assert_int_equal(ip[8], 64);
	assert_int_equal(rd16(ip + 6), 0x4000);
	assert_int_equal(rd16(ip + 26), 0); /* no UDP checksum */
}

static void
test_udp4_finish_returns_to_sender_with_valid_checksums(void **state)
{
	uint32_t len, l3 = L3(1), ihl = 24, n;
	uint8_t *ip, *udp;
	uint32_t a;

	(void)state;
	spec.dport = LA_PORT;
	spec.tags = 1;
	spec.ip_hlen = ihl;
	len = build_udp(f);
	assert_int_equal(classify_la(len), ACIS_CLASS_LOOKASIDE);
	ip = f + l3;
	udp = ip + ihl;
	/* the handler emitted 301 bytes (odd, longer than what came) */
	for (n = 0; n < 301; n++)
		udp[ACIS_UDP_HLEN + n] = (uint8_t)(n * 7);
	len = acis_udp4_finish(f, &pi, 301, 1, SW_MAC);
	assert_int_equal(len, l3 + ihl + ACIS_UDP_HLEN + 301);
	assert_memory_equal(f, HOST_MAC, 6);
	assert_memory_equal(f + 6, SW_MAC, 6);
	memcpy(&a, ip + 12, 4);
	assert_int_equal(a, SW_IP);
	memcpy(&a, ip + 16, 4);
	assert_int_equal(a, HOST_IP);
	assert_int_equal(rd16(udp), LA_PORT);
	assert_int_equal(rd16(udp + 2), 5555);
	assert_int_equal(rd16(ip + 2), ihl + ACIS_UDP_HLEN + 301);
	assert_int_equal(rd16(udp + 4), ACIS_UDP_HLEN + 301);
	assert_int_equal(ref_sum(ip, ihl, 0), 0xffff);
	assert_int_equal(ref_sum(udp, ACIS_UDP_HLEN + 301,
				 ref_sum(ip + 12, 8, 0) + ACIS_IPPROTO_UDP +
				 ACIS_UDP_HLEN + 301), 0xffff);
	/* forwarding keeps addresses; shrinking works as well */
	memcpy(f, OTHER_MAC, 6);
	len = acis_udp4_finish(f, &pi, 3, 0, NULL);
	assert_int_equal(len, l3 + ihl + ACIS_UDP_HLEN + 3);
	assert_memory_equal(f, OTHER_MAC, 6);
	assert_int_equal(rd16(udp), LA_PORT);
	assert_int_equal(ref_sum(ip, ihl, 0), 0xffff);
	assert_int_equal(ref_sum(udp, ACIS_UDP_HLEN + 3,
				 ref_sum(ip + 12, 8, 0) + ACIS_IPPROTO_UDP +
				 ACIS_UDP_HLEN + 3), 0xffff);
}

/* The inline path decides passing frames itself: on frames near the
 * cases it takes (addresses, EtherType, IPv4 destination and length
 * changed at random, with and without look-aside ports and hosts) it
 * agrees with the full classifier on class, reason and every field, and
 * it did take a good share of them. */
static void
test_classify_inline_path_agrees_with_full(void **state)
{
	static const uint8_t other[6] = {0x02, 0xee, 0, 0, 0, 7};
	struct acis_classify_cfg cfgs[4];
	uint8_t f[MAX_FRAME + 8];
	unsigned int i, inline_taken = 0, k;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	cfgs[0] = cfgs[1] = cfgs[2] = cfgs[3] = sw_cfg();
	cfgs[1].la_ports[cfgs[1].n_la_ports++] = 9000;
	cfgs[2].la_ips[cfgs[2].n_la_ips++] = ip4(10, 77, 0, 9);
	cfgs[3].transit = 1;
	for (i = 0; i < 60000; i++) {
		struct acis_pkt_info a, b;
		uint8_t ra = 0xff, rb = 0xee;
		uint32_t len;
		enum acis_class ca;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		spec_reset();
		spec.dmac = (x & 3) ? other : SW_MAC;
		spec.dip = (x & 4) ? SW_IP : ip4(10, 77, 0, 9);
		spec.dport = (x & 8) ? 9000 : ACIS_PORT;
		spec.tags = (x >> 4) % 7 == 0;
		len = build_udp(f);
		for (k = 0; k < ((x >> 8) & 3); k++) /* a few bytes at random */
			f[(x >> (12 + 6 * k)) % 40] ^= (uint8_t)(x >> (32 + 8 * k));
		if ((x >> 40) % 5 == 0)
			len = (uint32_t)((x >> 44) % (len + 1));
		if ((x >> 50) % 9 == 0)
			len = MAX_FRAME + 1;
		ca = acis_pkt_classify(&cfgs[i % 4], f, len, &a, &ra);
		assert_int_equal(ca, acis_pkt_classify_full(&cfgs[i % 4], f,
							    len, &b, &rb));
		assert_int_equal(ra, rb);
		assert_true(acis_pkt_info_same(&a, &b));
		inline_taken += acis_pkt_passing(&cfgs[i % 4], f, len);
	}
	assert_true(inline_taken > 10000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_classify_inline_path_agrees_with_full),
		T(test_csum_partial_matches_the_reference_on_every_length),
		T(test_csum_partial_matches_the_reference_beyond_4_mib),
		T(test_classify_la_port_to_the_switch_is_lookaside),
		T(test_classify_la_port_passing_through_is_lookaside_and_checked),
		T(test_udp4_finish_returns_to_sender_with_valid_checksums),
		T(test_classify_transit_takes_passing_acis),
		T(test_udp4_headers_build_a_datagram_the_classifier_takes),
		T(test_classify_la_dst_ip_selects_passing_udp_to_that_host),
		T(test_classify_forwards_udp_to_another_host),
		T(test_classify_forwards_acis_port_udp_to_another_host),
		T(test_classify_forwards_non_ipv4_ethertype_with_garbage_payload),
		T(test_classify_forwards_garbage_ipv4_to_another_mac),
		T(test_classify_forwards_garbage_ipv4_broadcast_to_another_ip),
		T(test_classify_forwards_truncated_ipv4_to_another_mac),
		T(test_classify_forwards_bare_ethernet_header),
		T(test_classify_forwards_ipv4_for_switch_ip_behind_another_mac),
		T(test_classify_drops_runt_frame_as_eth_runt),
		T(test_classify_drops_empty_frame_as_eth_runt),
		T(test_classify_accepts_frame_of_exactly_max_frame),
		T(test_classify_drops_frame_over_max_frame_as_eth_oversize),
		T(test_classify_drops_multicast_source_as_eth_bad_src),
		T(test_classify_drops_broadcast_source_as_eth_bad_src),
		T(test_classify_drops_zero_source_as_eth_bad_src),
		T(test_classify_clears_previous_info),
		T(test_classify_drops_other_ethertype_to_switch_as_local_unsupported),
		T(test_classify_parses_vlan_tagged_acis_frame_with_offsets_shifted_by_4),
		T(test_classify_parses_qinq_acis_frame_with_offsets_shifted_by_8),
		T(test_classify_forwards_vlan_tagged_frame_to_another_host),
		T(test_classify_drops_truncated_vlan_tag_as_vlan_truncated),
		T(test_classify_drops_truncated_inner_qinq_tag_as_vlan_truncated),
		T(test_classify_sends_arp_request_for_switch_ip_to_arp),
		T(test_classify_sends_vlan_tagged_arp_request_for_switch_ip_to_arp),
		T(test_classify_sends_padded_arp_request_for_switch_ip_to_arp),
		T(test_classify_forwards_arp_request_for_another_ip),
		T(test_classify_does_not_forward_arp_to_switch_mac_for_another_ip),
		T(test_classify_sends_arp_reply_to_switch_to_arp),
		T(test_classify_drops_truncated_arp_to_switch_as_arp_malformed),
		T(test_classify_forwards_truncated_broadcast_arp),
		T(test_classify_drops_non_ethernet_arp_for_switch_as_arp_malformed),
		T(test_classify_sends_icmp_echo_to_switch_to_icmp_with_offsets),
		T(test_classify_sends_broadcast_icmp_echo_to_switch_ip_to_icmp),
		T(test_classify_drops_icmp_echo_reply_to_switch_as_local_unsupported),
		T(test_classify_drops_icmp_with_bad_checksum_as_icmp_malformed),
		T(test_classify_hw_verdict_spares_only_the_checksum_it_names),
		T(test_classify_drops_icmp_shorter_than_8_bytes_as_icmp_malformed),
		T(test_classify_drops_tcp_to_switch_as_local_unsupported),
		T(test_classify_drops_bad_ipv4_checksum_to_switch),
		T(test_classify_drops_total_length_beyond_frame_as_ipv4_bad_length),
		T(test_classify_drops_total_length_below_header_as_ipv4_bad_length),
		T(test_classify_drops_ipv4_version_6_to_switch_as_ipv4_bad_header),
		T(test_classify_drops_ipv4_header_length_below_20_as_ipv4_bad_header),
		T(test_classify_drops_short_ipv4_header_to_switch_as_ipv4_truncated),
		T(test_classify_drops_cut_ipv4_options_to_switch_as_ipv4_truncated),
		T(test_classify_drops_more_fragments_to_switch_as_ipv4_fragment),
		T(test_classify_drops_fragment_offset_to_switch_as_ipv4_fragment),
		T(test_classify_drops_ipv4_to_switch_mac_for_another_ip_as_not_routed),
		T(test_classify_sends_udp_to_acis_port_to_acis_with_payload),
		T(test_classify_finds_acis_payload_after_ipv4_options),
		T(test_classify_takes_payload_length_from_udp_not_ethernet_padding),
		T(test_classify_drops_udp_to_another_port_as_local_unsupported),
		T(test_classify_drops_bad_udp_checksum_as_udp_bad_checksum),
		T(test_classify_accepts_udp_checksum_zero_as_none),
		T(test_classify_accepts_udp_checksum_ffff_for_a_zero_sum),
		T(test_classify_drops_udp_length_beyond_ip_payload_as_udp_bad_length),
		T(test_classify_drops_udp_length_below_header_as_udp_bad_length),
		T(test_classify_drops_ip_payload_shorter_than_udp_header_as_udp_truncated),
		T(test_classify_checks_udp_checksum_over_udp_length_only),
		T(test_classify_drops_every_truncation_of_an_acis_frame),
		T(test_classify_drops_every_truncation_of_a_qinq_acis_frame),
		T(test_classify_drops_every_truncation_of_an_icmp_echo),
		T(test_classify_survives_every_truncation_of_an_arp_request),
		T(test_classify_survives_every_truncation_of_a_forwarded_frame),
		T(test_drop_name_is_unique_and_non_empty_for_every_reason),
		T(test_drop_name_is_a_counter_name),
		T(test_drop_name_out_of_range_is_unknown),
		T(test_drop_desc_is_non_empty_for_every_reason),
		T(test_csum_partial_matches_rfc1071_example),
		T(test_csum_partial_pads_an_odd_byte_with_zero),
		T(test_csum_partial_folds_the_initial_sum_and_carries),
		T(test_csum_of_ipv4_header_matches_known_vector),
		T(test_udp4_csum_matches_known_vector),
		T(test_udp4_csum_never_returns_zero),
		T(test_udp4_csum_agrees_with_the_frame_builder),
		T(test_parse_mac_reads_lower_and_upper_case),
		T(test_parse_mac_refuses_malformed_text),
		T(test_parse_ipv4_gives_network_order),
		T(test_parse_ipv4_refuses_malformed_text),
	};

	return cmocka_run_group_tests_name("pkt", tests, NULL, NULL);
}
