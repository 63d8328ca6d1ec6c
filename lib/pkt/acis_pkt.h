/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_pkt: frame parsing and classification for the switch's first stage.
 *
 * Pure C over a byte buffer: no mbufs, no EAL, so unit tests and fuzzers
 * call it directly. The switch's parse node calls it once per frame on the
 * first segment and keeps the result in the mbuf's private area.
 *
 * Policy: the switch is an L2 switch first. A frame that is not addressed to
 * the switch itself is forwarded byte-identical whatever its L3 contents;
 * only frames the switch must understand (ARP for its IP, IPv4 to its IP,
 * ACiS messages) are validated strictly and dropped with a named reason
 * when they are malformed.
 */
#ifndef ACIS_PKT_H
#define ACIS_PKT_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_ETH_HLEN 14
#define ACIS_VLAN_HLEN 4
#define ACIS_IPV4_MIN_HLEN 20
#define ACIS_UDP_HLEN 8
#define ACIS_ETHERTYPE_IPV4 0x0800
#define ACIS_ETHERTYPE_ARP 0x0806
#define ACIS_ETHERTYPE_VLAN 0x8100
#define ACIS_ETHERTYPE_QINQ 0x88a8
#define ACIS_IPPROTO_ICMP 1
#define ACIS_IPPROTO_UDP 17
#define ACIS_MAX_LA_PORTS 16

/**
 * Drop reasons: every frame the switch discards is counted under exactly
 * one of these. X(enum suffix, counter name, description).
 */
#define ACIS_DROP_REASONS(X)                                                   \
	X(NONE, "none", "not dropped")                                         \
	X(ETH_RUNT, "eth_runt", "frame shorter than an Ethernet header")      \
	X(ETH_OVERSIZE, "eth_oversize", "frame longer than the MTU allows")   \
	X(ETH_BAD_SRC, "eth_bad_src", "multicast or all-zero source MAC")     \
	X(VLAN_TRUNC, "vlan_truncated", "VLAN tag cut short")                 \
	X(ARP_MALFORMED, "arp_malformed", "ARP for the switch, not Ethernet/IPv4 or cut short") \
	X(IPV4_TRUNC, "ipv4_truncated", "IPv4 header cut short")              \
	X(IPV4_BAD_HDR, "ipv4_bad_header", "IPv4 version is not 4 or header length below 20") \
	X(IPV4_BAD_LEN, "ipv4_bad_length", "IPv4 total length disagrees with the frame") \
	X(IPV4_BAD_CSUM, "ipv4_bad_checksum", "IPv4 header checksum wrong")   \
	X(IPV4_FRAGMENT, "ipv4_fragment", "fragment addressed to the switch (not reassembled)") \
	X(UDP_TRUNC, "udp_truncated", "UDP header cut short")                 \
	X(UDP_BAD_LEN, "udp_bad_length", "UDP length disagrees with the IPv4 length") \
	X(UDP_BAD_CSUM, "udp_bad_checksum", "UDP checksum wrong")             \
	X(ICMP_MALFORMED, "icmp_malformed", "ICMP to the switch cut short or checksum wrong") \
	X(LOCAL_UNSUPPORTED, "local_unsupported", "addressed to the switch, no service for it") \
	X(NOT_ROUTED, "not_routed", "to the switch's MAC but another IP; the switch does not route") \
	X(ACIS_UNHANDLED, "acis_unhandled", "ACiS message with no stage to handle it") \
	X(ACIS_TRUNC, "acis_truncated", "ACiS header cut short or header length beyond the message") \
	X(ACIS_BAD_VERSION, "acis_bad_version", "ACiS version is not 1") \
	X(ACIS_BAD_TYPE, "acis_bad_type", "unknown ACiS message type") \
	X(ACIS_BAD_OPCODE, "acis_bad_opcode", "unknown collective, algorithm or control operation") \
	X(ACIS_BAD_DTYPE, "acis_bad_dtype", "unknown datatype") \
	X(ACIS_BAD_OP, "acis_bad_op", "unknown op, or an op the datatype does not have") \
	X(ACIS_BAD_LENGTH, "acis_bad_length", "payload length disagrees with the message") \
	X(ACIS_BAD_CHUNK, "acis_bad_chunk", "chunk outside its message, or wrong size") \
	X(ACIS_NO_COMM, "acis_no_comm", "unknown communicator (context id)") \
	X(ACIS_NOT_MEMBER, "acis_not_member", "sender is not that rank of the communicator") \
	X(ACIS_BAD_AUTH, "acis_bad_auth", "from a rank's address and port without its cookie: forged, or an earlier process's") \
	X(ACIS_BAD_RANK, "acis_bad_rank", "rank or root outside the communicator, or the wrong sender for the collective") \
	X(ACIS_MISMATCH, "acis_mismatch", "contribution disagrees with the others of its chunk") \
	X(ACIS_DUPLICATE, "acis_duplicate", "contribution already counted (never added twice)") \
	X(ACIS_BUSY, "acis_busy", "no free aggregation slot: refused with NACK BUSY, sender retries") \
	X(ACIS_UNEXPECTED, "acis_unexpected", "message type a switch does not take (RESULT, CTRL_ACK) outside a fabric's trees") \
	X(ACIS_TREE_BYPASS, "acis_tree_bypass", "a member's DATA that came past the switch its communicator's tree folds through: only a lost answer is sent from here") \
	X(ACIS_NO_TREE, "acis_no_tree", "a DATA passing through for a communicator's tree the switch no longer holds") \
	X(ACIS_NO_SLOT, "acis_no_slot", "host ACK or NACK naming no open aggregation slot (receipts for a slot closed lately are late_receipts, not drops)") \
	X(L2_SAME_PORT, "l2_same_port", "destination is on the ingress port") \
	X(L2_UNKNOWN_DST, "l2_unknown_dst", "unknown unicast and flooding is off") \
	X(L2_FLOOD_EMPTY, "l2_flood_empty", "flooding found no other port")   \
	X(CTRL_DENIED, "ctrl_denied", "control message from a host or port the pipeline does not allow ([collective] control_from, control_ports)") \
	X(CTRL_NO_CSUM, "ctrl_no_checksum", "control message without a UDP checksum (one flipped bit must not make a valid LEAVE)") \
	X(LA_NO_RULE, "lookaside_no_rule", "look-aside request (ACiS type 7) naming no handler of the pipeline") \
	X(LA_NOT_READY, "lookaside_not_ready", "look-aside handler stopped or without a program, and its rule drops") \
	X(LA_FAULT, "lookaside_fault", "look-aside handler failed on the packet (budget, memory, stream; see acisctl cgra stats)") \
	X(LA_FPGA_DOWN, "lookaside_fpga_down", "the rule's FPGA port is down and its fallback is drop") \
	X(LA_LINK_BAD, "lookaside_link_bad", "link frame from the FPGA cut short, not starting with 0xFB, or answering no outstanding request") \
	X(LA_OVERSIZE, "lookaside_oversize", "look-aside result longer than the MTU or the buffer") \
	X(LA_NO_ROUTE, "lookaside_no_route", "look-aside result to forward, but the request was addressed to the switch") \
	X(HANDOFF_FULL, "handoff_full", "worker handoff ring full")           \
	X(TX_FULL, "tx_full", "port TX queue full")                           \
	X(TX_LINK_DOWN, "tx_link_down", "port's link down (a memif peer gone): its TX queue took nothing") \
	X(TORUS_BAD_HEADER, "torus_bad_header", "torus header not understood (version, type, node outside the torus, from a host port)") \
	X(TORUS_ILLEGAL_TURN, "torus_illegal_turn", "torus route refused: its state would make a forbidden turn") \
	X(TORUS_NO_ROOM, "torus_no_room", "no headroom (or a shared frame) for the torus header") \
	X(TORUS_INJECT_FULL, "torus_inject_full", "a host's frame, the torus router's injection queue full") \
	X(TORUS_OVERRUN, "torus_overrun", "a frame past a torus input's slots: the router upstream ignored its credits") \
	X(TORUS_DEADLOCK, "torus_deadlock", "queued in a torus router that made no progress for its watchdog period") \
	X(TORUS_NO_ENTRY, "torus_no_entry", "a table-routed torus frame, no table or no entry for its index at this node")

enum acis_drop_reason {
#define ACIS_X_ENUM(e, n, d) ACIS_DROP_##e,
	ACIS_DROP_REASONS(ACIS_X_ENUM)
#undef ACIS_X_ENUM
	ACIS_DROP_MAX
};

/** Counter name of a drop reason ("eth_runt"), or "unknown". */
const char *acis_drop_name(unsigned int reason);
/** One-line description of a drop reason. */
const char *acis_drop_desc(unsigned int reason);

/** Where a frame goes after classification. */
enum acis_class {
	ACIS_CLASS_FORWARD = 0, /**< L2 forwarding */
	ACIS_CLASS_ARP,         /**< ARP request or reply for the switch */
	ACIS_CLASS_ICMP,        /**< ICMP echo request to the switch */
	ACIS_CLASS_ACIS,        /**< ACiS message to the switch */
	ACIS_CLASS_LOOKASIDE,   /**< UDP on a look-aside port (to the switch or
				 *   passing through), or an ACiS LOOKASIDE
				 *   request (set by the switch's parse stage) */
	ACIS_CLASS_DROP,        /**< see the drop reason */
	ACIS_CLASS_MAX
};

/** What the parser learned about a frame. Offsets are from frame start. */
struct acis_pkt_info {
	uint16_t ethertype;   /**< inner ethertype, host order */
	uint16_t vlan_tci;    /**< outer VLAN TCI, host order, if has_vlan */
	uint8_t has_vlan;
	uint8_t ip_proto;     /**< IPv4 protocol, if l3_off != 0 */
	uint16_t l3_off;      /**< 0 when not IPv4/ARP */
	uint16_t l4_off;      /**< 0 when not UDP/ICMP over IPv4 */
	uint16_t payload_off; /**< UDP payload, 0 when not UDP */
	uint16_t payload_len; /**< UDP payload length (from the UDP header) */
	uint32_t src_ip;      /**< network order */
	uint32_t dst_ip;      /**< network order */
	uint16_t sport;       /**< UDP source port, host order */
	uint16_t dport;       /**< UDP destination port, host order */
};

/** The switch's own identity, as classification needs it. */
struct acis_classify_cfg {
	uint8_t mac[6];
	uint32_t ip;       /**< network order */
	uint16_t udp_port; /**< ACiS UDP port, host order */
	uint32_t max_frame; /**< longest accepted frame (MTU + L2 headers) */
	/** UDP destination ports taken by the look-aside stage, whether the
	 * datagram is addressed to the switch or passing through it */
	uint16_t la_ports[ACIS_MAX_LA_PORTS];
	uint8_t n_la_ports;
	/** ... and UDP datagrams passing through to these hosts */
	uint32_t la_ips[ACIS_MAX_LA_PORTS]; /* network order */
	uint8_t n_la_ips;
	/** ACiS datagrams passing through (to another switch's address,
	 * not our MAC) are taken too, checked as strictly as those to the
	 * switch: a fabric switch folds its trees' traffic (doc/fabric.md) */
	uint8_t transit;
};

/**
 * Parse and classify one frame of len bytes (contiguous), every case.
 * Returns the class; for ACIS_CLASS_DROP *reason names why.
 */
enum acis_class acis_pkt_classify_full(const struct acis_classify_cfg *cfg,
				       const uint8_t *frame, uint32_t len,
				       struct acis_pkt_info *pi,
				       uint8_t *reason);

/**
 * Checksums the receiving port verified in hardware and found good (its
 * RX checksum offload's verdict), which classification then does not
 * verify again. Only a good verdict counts: a frame the port found bad,
 * or did not check, is verified in software.
 */
#define ACIS_HW_IP_CSUM_OK 0x1 /**< the IPv4 header checksum */
#define ACIS_HW_L4_CSUM_OK 0x2 /**< the UDP checksum (not ICMP's) */

/**
 * acis_pkt_classify_full for a frame whose port verified some checksums
 * (hw: ACIS_HW_*_CSUM_OK bits); every other check is the same. With hw 0
 * it is acis_pkt_classify_full.
 */
enum acis_class acis_pkt_classify_hw(const struct acis_classify_cfg *cfg,
				     const uint8_t *frame, uint32_t len,
				     unsigned int hw, struct acis_pkt_info *pi,
				     uint8_t *reason);

/** Whether two parse results are the same, field by field. */
static inline int
acis_pkt_info_same(const struct acis_pkt_info *a,
		   const struct acis_pkt_info *b)
{
	return a->ethertype == b->ethertype && a->vlan_tci == b->vlan_tci &&
	       a->has_vlan == b->has_vlan && a->ip_proto == b->ip_proto &&
	       a->l3_off == b->l3_off && a->l4_off == b->l4_off &&
	       a->payload_off == b->payload_off &&
	       a->payload_len == b->payload_len && a->src_ip == b->src_ip &&
	       a->dst_ip == b->dst_ip && a->sport == b->sport &&
	       a->dport == b->dport;
}

/**
 * A MAC address as a 48-bit key, for equality and zero tests (one load;
 * the frame or buffer must hold 8 bytes from a).
 */
static inline uint64_t
acis_mac48(const uint8_t *a)
{
	uint64_t v;

	memcpy(&v, a, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return v >> 16;
#else
	return v & 0xffffffffffffull;
#endif
}

/**
 * What the passing-frame test needs of the switch's identity, in a form a
 * burst loop keeps in registers (acis_pass_key_of, once per burst).
 */
struct acis_pass_key {
	uint64_t mac;       /**< the switch's MAC, as acis_mac48 reads it */
	uint32_t ip;        /**< network order */
	uint32_t max_frame;
	uint8_t la;         /**< look-aside ports or hosts are configured */
};

static inline struct acis_pass_key
acis_pass_key_of(const struct acis_classify_cfg *cfg)
{
	struct acis_pass_key k;
	uint8_t m[8] = {0};

	memcpy(m, cfg->mac, 6);
	k.mac = acis_mac48(m);
	k.ip = cfg->ip;
	k.max_frame = cfg->max_frame;
	k.la = (cfg->n_la_ports | cfg->n_la_ips | cfg->transit) != 0;
	return k;
}

/**
 * Whether a frame is one that simply passes through the switch — an
 * untagged unicast frame between two stations, not to the switch's MAC,
 * not ARP, not taken by the look-aside stage — decided from its first
 * cache line without a call. Such a frame classifies ACIS_CLASS_FORWARD
 * (test_pkt and fuzz_pkt check it on every frame they make).
 */
static inline int
acis_pkt_passing_k(const struct acis_pass_key *k, const uint8_t *f,
		   uint32_t len)
{
	uint32_t dst_ip;
	uint16_t et;

	if (len < ACIS_ETH_HLEN + 20 || len > k->max_frame ||
	    ((f[0] | f[6]) & 1) || acis_mac48(f + 6) == 0 ||
	    acis_mac48(f) == k->mac)
		return 0;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == ACIS_ETHERTYPE_IPV4) {
		/* a passing datagram the look-aside stage may take */
		memcpy(&dst_ip, f + ACIS_ETH_HLEN + 16, 4);
		return dst_ip == k->ip || !k->la;
	}
	return et != ACIS_ETHERTYPE_VLAN && et != ACIS_ETHERTYPE_QINQ &&
	       et != ACIS_ETHERTYPE_ARP;
}

/** acis_pkt_passing_k for one frame. */
static inline int
acis_pkt_passing(const struct acis_classify_cfg *cfg, const uint8_t *f,
		 uint32_t len)
{
	struct acis_pass_key k = acis_pass_key_of(cfg);

	return acis_pkt_passing_k(&k, f, len);
}

/**
 * Parse and classify one frame: the same answer as acis_pkt_classify_hw
 * with the same hw for every frame (with hw 0, acis_pkt_classify_full's;
 * test_pkt and fuzz_pkt compare them). Passing frames
 * (acis_pkt_passing_k with k = acis_pass_key_of(cfg)), the case a switch
 * sees most, are decided inline; every other frame goes to
 * acis_pkt_classify_hw.
 */
static inline enum acis_class
acis_pkt_classify_k(const struct acis_classify_cfg *cfg,
		    const struct acis_pass_key *k, const uint8_t *f,
		    uint32_t len, unsigned int hw, struct acis_pkt_info *pi,
		    uint8_t *reason)
{
	const uint8_t *ip = f + ACIS_ETH_HLEN;
	uint16_t et;

	if (!acis_pkt_passing_k(k, f, len))
		return acis_pkt_classify_hw(cfg, f, len, hw, pi, reason);
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == ACIS_ETHERTYPE_IPV4) {
		*pi = (struct acis_pkt_info){
			.ethertype = et,
			.ip_proto = ip[9],
			.l3_off = ACIS_ETH_HLEN,
		};
		memcpy(&pi->src_ip, ip + 12, 4);
		memcpy(&pi->dst_ip, ip + 16, 4);
	} else {
		*pi = (struct acis_pkt_info){.ethertype = et};
	}
	*reason = ACIS_DROP_NONE;
	return ACIS_CLASS_FORWARD;
}

/** acis_pkt_classify_k for one frame (the key made here). */
static inline enum acis_class
acis_pkt_classify(const struct acis_classify_cfg *cfg, const uint8_t *f,
		  uint32_t len, struct acis_pkt_info *pi, uint8_t *reason)
{
	struct acis_pass_key k = acis_pass_key_of(cfg);

	return acis_pkt_classify_k(cfg, &k, f, len, 0, pi, reason);
}

/** Internet checksum (RFC 1071) of len bytes, folded, not complemented. */
uint16_t acis_csum_partial(const void *buf, uint32_t len, uint32_t sum);

/** Complemented internet checksum of a buffer (0 means valid when the
 * buffer includes its own checksum field). */
uint16_t acis_csum(const void *buf, uint32_t len);

/** UDP checksum over IPv4 pseudo header + UDP header and payload. */
uint16_t acis_udp4_csum(const uint8_t *ip, const uint8_t *udp, uint32_t udp_len);

/**
 * Send a frame back where it came from: exchange the Ethernet addresses,
 * and the IPv4 addresses (at l3_off) and UDP ports (at l4_off) where
 * those are not 0. Checksums stay valid: they are sums of the exchanged
 * words, and a sum does not depend on their order.
 */
void acis_pkt_swap(uint8_t *frame, uint16_t l3_off, uint16_t l4_off);

/** Where acis_udp4_headers puts the payload. */
#define ACIS_UDP4_PAYLOAD_OFF (ACIS_ETH_HLEN + ACIS_IPV4_MIN_HLEN + ACIS_UDP_HLEN)

/**
 * Write the headers of an untagged Ethernet / IPv4 (no options, DF, TTL
 * 64, header checksum) / UDP (checksum 0: none) datagram of payload_len
 * bytes; the payload goes at frame + ACIS_UDP4_PAYLOAD_OFF. Addresses in
 * network order, ports in host order.
 */
void acis_udp4_headers(uint8_t *frame, const uint8_t dmac[6],
		       const uint8_t smac[6], uint32_t sip, uint32_t dip,
		       uint16_t sport, uint16_t dport, uint32_t payload_len);

/**
 * Finish a UDP/IPv4 datagram whose payload (at pi->payload_off) now holds
 * payload_len bytes: IPv4 total length and header checksum, UDP length
 * and checksum. With swap, the Ethernet and IPv4 addresses and the UDP
 * ports are exchanged so the datagram returns to its sender, and src_mac
 * (if not NULL) becomes the Ethernet source. The frame must hold
 * pi->payload_off + payload_len bytes. Returns that frame length.
 */
uint32_t acis_udp4_finish(uint8_t *frame, const struct acis_pkt_info *pi,
			  uint32_t payload_len, int swap,
			  const uint8_t *src_mac);

/**
 * Rewrite an ARP request for ip (classified ACIS_CLASS_ARP, pi its parse)
 * into the reply from mac, in place: the frame goes back to the asker.
 */
void acis_arp_reply(uint8_t *frame, const struct acis_pkt_info *pi,
		    const uint8_t mac[6], uint32_t ip);

/** Length of the frame acis_arp_request writes. */
#define ACIS_ARP_FRAME_LEN (ACIS_ETH_HLEN + 28)

/** Write a broadcast ARP request from (smac, sip) asking for tip
 * (addresses in network order). */
void acis_arp_request(uint8_t *frame, const uint8_t smac[6], uint32_t sip,
		      uint32_t tip);

/** Parse "aa:bb:cc:dd:ee:ff"; returns 0 on success. */
int acis_parse_mac(const char *s, uint8_t mac[6]);

/** Parse a dotted IPv4 address into network order; returns 0 on success. */
int acis_parse_ipv4(const char *s, uint32_t *ip);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_PKT_H */
