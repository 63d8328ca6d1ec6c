/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the XDP program acis_steer.bpf.o and its users (lib/xdp) share: the
 * layout of its configuration map and the slots of its counters. Included
 * by the BPF program and by C on the host, so it uses only fixed-width
 * kernel types.
 */
#ifndef ACIS_STEER_H
#define ACIS_STEER_H

#include <linux/types.h>

/* Map names (the kernel keeps 15 characters of a map's name). xsks_map is
 * the name DPDK's af_xdp PMD looks up in a program given with xdp_prog=. */
#define ACIS_STEER_XSKS_MAP "xsks_map"
#define ACIS_STEER_CFG_MAP "acis_steer_cfg"
#define ACIS_STEER_CNT_MAP "acis_steer_cnt"

/* acis_steer_config.flags */
#define ACIS_STEER_F_CONFIGURED 0x1 /* written by a user: udp_port holds */
#define ACIS_STEER_F_IPV4 0x2       /* ARP and IPv4 for ipv4 go up */
#define ACIS_STEER_F_MAC 0x4        /* every frame to mac goes up */

/* The default ACiS UDP port, used until the map is written. */
#define ACIS_STEER_DEFAULT_PORT 47000

/* The one entry (key 0) of the configuration map. */
struct acis_steer_config {
	__u32 flags;
	__u32 ipv4;      /* the switch's IPv4 address, network order */
	__u16 udp_port;  /* ACiS UDP destination port, network order */
	__u8 mac[6];     /* the switch's MAC */
};

/* Slots of the per-CPU counter map: frames per decision. */
enum acis_steer_counter {
	ACIS_STEER_CNT_UDP = 0,   /* IPv4 UDP to the ACiS port -> switch */
	ACIS_STEER_CNT_ARP,       /* ARP for the switch's IPv4 -> switch */
	ACIS_STEER_CNT_IPV4,      /* other IPv4 to the switch's IPv4 -> switch */
	ACIS_STEER_CNT_MAC,       /* other frames to the switch's MAC -> switch */
	ACIS_STEER_CNT_KERNEL,    /* everything else -> kernel */
	ACIS_STEER_CNT_NO_SOCKET, /* for the switch, but no AF_XDP socket on
				   * that queue -> kernel */
	ACIS_STEER_CNT_MAX
};

#endif /* ACIS_STEER_H */
