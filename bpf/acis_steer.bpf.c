/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_steer: an XDP program for a NIC that acis-switch shares with the
 * kernel. It sends the switch's traffic into the AF_XDP socket of the
 * receiving queue and passes everything else (SSH, the kernel's own ping,
 * ARP for the kernel's address) to the kernel. Load it with DPDK's af_xdp
 * PMD (net_af_xdp0,iface=eth0,xdp_prog=.../acis_steer.bpf.o), which
 * fills xsks_map; lib/xdp writes its configuration. The rules, in order
 * (doc/fpga.md, "XDP steering"):
 *
 *  1. IPv4 UDP whose destination port is the ACiS port (47000 until
 *     configured), unfragmented or a first fragment;
 *  2. with an address configured: ARP whose target is the switch's
 *     address, and IPv4 to it;
 *  3. with a MAC configured (one the kernel does not own): every frame to
 *     the switch's MAC;
 *  4. anything else: the kernel.
 *
 * Up to two VLAN tags are looked through.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "acis_steer.h"

#define MAX_QUEUES 256

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct acis_steer_config);
} acis_steer_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ACIS_STEER_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} acis_steer_cnt SEC(".maps");

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

struct arp_ipv4 {
	__be16 htype, ptype;
	__u8 hlen, plen;
	__be16 op;
	__u8 sha[6];
	__u8 spa[4];
	__u8 tha[6];
	__u8 tpa[4];
};

static __always_inline void
count(__u32 slot)
{
	__u64 *c = bpf_map_lookup_elem(&acis_steer_cnt, &slot);

	if (c)
		*c += 1;
}

/* To the switch: the AF_XDP socket of this queue, or the kernel if the
 * switch has none there (counted). */
static __always_inline int
to_switch(struct xdp_md *ctx, __u32 slot)
{
	int act = bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);

	count(act == XDP_REDIRECT ? slot : ACIS_STEER_CNT_NO_SOCKET);
	return act;
}

static __always_inline int
mac_eq(const __u8 *a, const __u8 *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] &&
	       a[3] == b[3] && a[4] == b[4] && a[5] == b[5];
}

SEC("xdp")
int
acis_steer(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct acis_steer_config *cfg;
	__u32 key = 0, off, flags = 0, ipv4 = 0;
	__be16 proto, port = bpf_htons(ACIS_STEER_DEFAULT_PORT);
	int i;

	cfg = bpf_map_lookup_elem(&acis_steer_cfg, &key);
	if (cfg && (cfg->flags & ACIS_STEER_F_CONFIGURED)) {
		flags = cfg->flags;
		port = cfg->udp_port;
		ipv4 = cfg->ipv4;
	}
	if ((void *)(eth + 1) > end)
		goto pass;
	proto = eth->h_proto;
	off = sizeof(*eth);
#pragma unroll
	for (i = 0; i < 2; i++) {
		struct vlan_hdr *v = data + off;

		if (proto != bpf_htons(ETH_P_8021Q) &&
		    proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(v + 1) > end)
			goto pass;
		proto = v->proto;
		off += sizeof(*v);
	}

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + off;
		struct udphdr *udp;

		if ((void *)(ip + 1) > end)
			goto pass;
		if (ip->protocol == IPPROTO_UDP && ip->ihl >= 5 &&
		    (ip->frag_off & bpf_htons(0x1fff)) == 0) {
			udp = (void *)ip + ip->ihl * 4;
			if ((void *)(udp + 1) <= end &&
			    udp->dest == port && port != 0)
				return to_switch(ctx, ACIS_STEER_CNT_UDP);
		}
		if ((flags & ACIS_STEER_F_IPV4) && ip->daddr == ipv4)
			return to_switch(ctx, ACIS_STEER_CNT_IPV4);
	} else if (proto == bpf_htons(ETH_P_ARP) &&
		   (flags & ACIS_STEER_F_IPV4)) {
		struct arp_ipv4 *arp = data + off;

		if ((void *)(arp + 1) > end)
			goto pass;
		if (arp->ptype == bpf_htons(ETH_P_IP) && arp->plen == 4 &&
		    arp->tpa[0] == (__u8)ipv4 &&
		    arp->tpa[1] == (__u8)(ipv4 >> 8) &&
		    arp->tpa[2] == (__u8)(ipv4 >> 16) &&
		    arp->tpa[3] == (__u8)(ipv4 >> 24))
			return to_switch(ctx, ACIS_STEER_CNT_ARP);
	}
	/* cfg is set whenever flags are */
	if ((flags & ACIS_STEER_F_MAC) && cfg && mac_eq(eth->h_dest, cfg->mac))
		return to_switch(ctx, ACIS_STEER_CNT_MAC);
pass:
	count(ACIS_STEER_CNT_KERNEL);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
