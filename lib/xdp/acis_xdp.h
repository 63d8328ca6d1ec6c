/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_xdp: configure and read the XDP steering program (bpf/acis_steer)
 * on an interface the switch shares with the kernel.
 *
 * The program is attached by DPDK's af_xdp PMD (devarg xdp_prog= naming
 * acis_xdp_steer_object()); once the port has started, the switch writes
 * what is its into the program's configuration map. The map is found from
 * the interface: the XDP program attached to it, that program's maps, the
 * one named acis_steer_cfg. Nothing here runs per packet.
 *
 * Needs CAP_BPF/CAP_SYS_ADMIN (root), and the caller in the network
 * namespace of the interface.
 */
#ifndef ACIS_XDP_H
#define ACIS_XDP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What goes to the switch (doc/fpga.md, "XDP steering"). */
struct acis_xdp_steer {
	uint16_t udp_port;  /**< ACiS UDP port, host order; 0: 47000 */
	uint32_t ipv4;      /**< the switch's IPv4, network order; 0: none
			     *   (ARP and IPv4 for it stay with the kernel) */
	uint8_t mac[6];     /**< the switch's MAC; all zero, or the
			     *   interface's own MAC: frames are not steered
			     *   by MAC (the kernel owns its MAC) */
};

/* Frames per decision since the program was attached, summed over CPUs. */
struct acis_xdp_steer_stats {
	uint64_t udp;        /**< ACiS UDP -> switch */
	uint64_t arp;        /**< ARP for the switch's IPv4 -> switch */
	uint64_t ipv4;       /**< IPv4 to the switch's IPv4 -> switch */
	uint64_t mac;        /**< other frames to the switch's MAC -> switch */
	uint64_t kernel;     /**< everything else -> kernel */
	uint64_t no_socket;  /**< for the switch, but no AF_XDP socket on
			      *   the receiving queue -> kernel */
};

/**
 * Write the steering configuration of the program attached to ifname.
 * Returns 0, or -1 with err saying what is wrong: no such interface, no
 * XDP program on it, a program without the acis_steer_cfg map (another
 * program, or an object of another version), or no permission.
 * *mac_steered, if not NULL, is set to 1 when frames to cfg->mac are
 * steered and 0 when not (no MAC, or the interface's own).
 */
int acis_xdp_steer_configure(const char *ifname,
			     const struct acis_xdp_steer *cfg,
			     int *mac_steered, char *err, size_t errlen);

/** Read the program's counters; 0, or -1 with err as above. */
int acis_xdp_steer_stats(const char *ifname, struct acis_xdp_steer_stats *st,
			 char *err, size_t errlen);

/* The kernel's counters of AF_XDP sockets (XDP_STATISTICS), summed over
 * them. DPDK's af_xdp PMD reports only rx_dropped of these (as imissed);
 * the others are where the kernel counts frames it refused or could not
 * deliver. */
struct acis_xsk_stats {
	uint32_t sockets;          /**< sockets read */
	uint64_t rx_dropped;       /**< received, no room for them */
	uint64_t rx_invalid_descs; /**< fill ring entries refused */
	uint64_t tx_invalid_descs; /**< TX descriptors refused: not sent */
	uint64_t rx_ring_full;     /**< dropped: the RX ring was full */
	uint64_t fill_ring_empty;  /**< the fill ring had no buffer */
	uint64_t tx_ring_empty;    /**< wakeups that found nothing to send */
};

/* One AF_XDP socket of this process: its descriptor and the socket's
 * inode, so a descriptor closed and reused is not read for it. */
struct acis_xsk_ref {
	int fd;
	uint64_t ino;
};

/**
 * This process's AF_XDP sockets (an AF_XDP socket has no address that
 * names its interface: the caller tells them apart by when they were
 * made, e.g. before and after it starts a port). Fills up to max refs and
 * returns how many there are, or -1 when /proc/self/fd cannot be read.
 */
int acis_xdp_sockets(struct acis_xsk_ref *refs, int max);

/** Sum the counters of n sockets; returns how many could be read. */
int acis_xdp_socket_stats(const struct acis_xsk_ref *refs, int n,
			  struct acis_xsk_stats *st);

/**
 * Path of the steering program's object file: $ACIS_XDP_STEER_OBJ if set,
 * else the build tree's if it exists (running from the build tree), else
 * the installed one (ACIS_XDP_STEER_OBJ_INSTALLED).
 */
const char *acis_xdp_steer_object(void);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_XDP_H */
