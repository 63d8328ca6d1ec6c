/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the frame classifier (lib/pkt/pkt.c, acis_pkt_classify).
 *
 * The input is one frame, as the switch's parse node would see it. The
 * switch identity is fixed (the one the pipelines and seeds use), so the
 * fuzzer can reach the strict "addressed to the switch" paths. Frames the
 * switch takes as ACiS messages also go through the header parser, as
 * they do on the data path.
 *
 * Invariants:
 *  - reason < ACIS_DROP_MAX and class < ACIS_CLASS_MAX;
 *  - a frame that is not dropped has reason 0 (NONE), a dropped one a
 *    reason other than NONE;
 *  - every offset the parser sets lies inside the frame, and the UDP
 *    payload (payload_off + payload_len) ends inside it;
 *  - ARP frames hold the whole 28-byte ARP body, ICMP ones an 8-byte
 *    ICMP header, ACiS ones a UDP header right before the payload and
 *    the switch's UDP port as destination;
 *  - the name and description of every reason are non-NULL;
 *  - the inline fast path (acis_pkt_classify) and the full classifier
 *    give the same class, reason and parse result, with and without
 *    look-aside ports and hosts configured.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acis_pkt.h"
#include "acis_proto.h"
#include "fuzz_check.h"

/* Switch identity: 02:ac:15:00:00:01, 10.77.0.1, UDP 47000; frames up
 * to a 9600-byte MTU with two VLAN tags. */
#define FUZZ_MAX_FRAME (9600 + ACIS_ETH_HLEN + 2 * ACIS_VLAN_HLEN)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Both classifiers on one frame under one configuration. */
static void
check_same(const struct acis_classify_cfg *c, const uint8_t *data,
	   uint32_t len)
{
	struct acis_pkt_info a, b;
	uint8_t ra = 0xff, rb = 0xee;

	struct acis_pass_key k = acis_pass_key_of(c);
	const unsigned int hw = ACIS_HW_IP_CSUM_OK | ACIS_HW_L4_CSUM_OK;
	enum acis_class sw, with_hw;

	sw = acis_pkt_classify(c, data, len, &a, &ra);
	FUZZ_CHECK(sw == acis_pkt_classify_full(c, data, len, &b, &rb));
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(acis_pkt_info_same(&a, &b));
	/* with a port's good checksum verdicts: the inline path agrees, and
	 * a verdict never turns away a frame that software accepts */
	with_hw = acis_pkt_classify_k(c, &k, data, len, hw, &a, &ra);
	FUZZ_CHECK(with_hw == acis_pkt_classify_hw(c, data, len, hw, &b, &rb));
	FUZZ_CHECK(ra == rb);
	FUZZ_CHECK(acis_pkt_info_same(&a, &b));
	FUZZ_CHECK(sw == ACIS_CLASS_DROP || with_hw == sw);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t sw_mac[6] = {0x02, 0xac, 0x15, 0x00, 0x00, 0x01};
	static const uint8_t sw_ip[4] = {10, 77, 0, 1};
	struct acis_classify_cfg c;
	struct acis_pkt_info pi;
	uint8_t reason = 0xff;
	enum acis_class cls;
	uint32_t len;

	if (size > UINT32_MAX)
		return 0;
	len = (uint32_t)size;
	memset(&c, 0, sizeof(c));
	memcpy(c.mac, sw_mac, 6);
	memcpy(&c.ip, sw_ip, 4); /* network order on any host */
	c.udp_port = 47000;
	c.max_frame = FUZZ_MAX_FRAME;

	cls = acis_pkt_classify(&c, data, len, &pi, &reason);
	check_same(&c, data, len);
	{
		struct acis_classify_cfg la = c;

		la.la_ports[la.n_la_ports++] = 9000;
		check_same(&la, data, len);
		la.n_la_ports = 0;
		la.la_ips[la.n_la_ips++] = c.ip ^ 0x01000000u;
		check_same(&la, data, len);
	}

	FUZZ_CHECK(reason < ACIS_DROP_MAX);
	FUZZ_CHECK((unsigned int)cls < ACIS_CLASS_MAX);
	if (cls != ACIS_CLASS_DROP)
		FUZZ_CHECK(reason == ACIS_DROP_NONE);
	else
		FUZZ_CHECK(reason != ACIS_DROP_NONE);
	FUZZ_CHECK(acis_drop_name(reason) != NULL);
	FUZZ_CHECK(acis_drop_desc(reason) != NULL);

	/* Offsets, when set, are inside the frame. */
	if (pi.l3_off != 0)
		FUZZ_CHECK(pi.l3_off >= ACIS_ETH_HLEN && pi.l3_off <= len);
	if (pi.l4_off != 0) {
		FUZZ_CHECK(pi.l3_off != 0);
		FUZZ_CHECK(pi.l4_off >= pi.l3_off + ACIS_IPV4_MIN_HLEN);
		FUZZ_CHECK(pi.l4_off <= len);
	}
	if (pi.payload_off != 0) {
		FUZZ_CHECK(pi.l4_off != 0);
		FUZZ_CHECK(pi.payload_off == pi.l4_off + ACIS_UDP_HLEN);
		FUZZ_CHECK((uint32_t)pi.payload_off + pi.payload_len <= len);
	}
	if (pi.has_vlan)
		FUZZ_CHECK(len >= ACIS_ETH_HLEN + ACIS_VLAN_HLEN);

	switch (cls) {
	case ACIS_CLASS_ARP:
		FUZZ_CHECK(pi.ethertype == ACIS_ETHERTYPE_ARP);
		FUZZ_CHECK(pi.l3_off != 0 && (uint32_t)pi.l3_off + 28 <= len);
		break;
	case ACIS_CLASS_ICMP:
		FUZZ_CHECK(pi.ethertype == ACIS_ETHERTYPE_IPV4);
		FUZZ_CHECK(pi.ip_proto == ACIS_IPPROTO_ICMP);
		FUZZ_CHECK(pi.l4_off != 0 && (uint32_t)pi.l4_off + 8 <= len);
		FUZZ_CHECK(pi.dst_ip == c.ip);
		break;
	case ACIS_CLASS_ACIS: {
		struct acis_hdr h;
		enum acis_hdr_error e;

		FUZZ_CHECK(pi.ethertype == ACIS_ETHERTYPE_IPV4);
		FUZZ_CHECK(pi.ip_proto == ACIS_IPPROTO_UDP);
		FUZZ_CHECK(pi.payload_off != 0);
		FUZZ_CHECK(pi.dport == c.udp_port);
		FUZZ_CHECK(pi.dst_ip == c.ip);
		/* What the switch does next with the UDP payload. */
		e = acis_msg_parse(data + pi.payload_off, pi.payload_len, &h);
		FUZZ_CHECK((unsigned int)e < ACIS_E_MAX);
		FUZZ_CHECK(acis_hdr_error_name(e) != NULL);
		break;
	}
	case ACIS_CLASS_FORWARD:
		/* Forwarded frames are taken as they are: no payload. */
		FUZZ_CHECK(pi.payload_off == 0);
		break;
	default:
		break;
	}
	return 0;
}
