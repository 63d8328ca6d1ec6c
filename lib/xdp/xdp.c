/* SPDX-License-Identifier: BSD-3-Clause */
/* Configure and read the XDP steering program (acis_xdp.h). */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>

#include "acis_steer.h"
#include "acis_xdp.h"

#ifndef ACIS_XDP_STEER_OBJ_BUILD
#error "ACIS_XDP_STEER_OBJ_BUILD must name the object in the build tree"
#endif
#ifndef ACIS_XDP_STEER_OBJ_INSTALLED
#error "ACIS_XDP_STEER_OBJ_INSTALLED must name the installed object"
#endif

static int
errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *
acis_xdp_steer_object(void)
{
	const char *env = getenv("ACIS_XDP_STEER_OBJ");

	if (env != NULL && *env != '\0')
		return env;
	if (access(ACIS_XDP_STEER_OBJ_BUILD, R_OK) == 0)
		return ACIS_XDP_STEER_OBJ_BUILD;
	return ACIS_XDP_STEER_OBJ_INSTALLED;
}

/* An fd of the map named `name` of the XDP program on ifname, checked to
 * have values of value_size bytes; -1 with err otherwise. */
static int
steer_map(const char *ifname, const char *name, uint32_t value_size,
	  char *err, size_t len)
{
	struct bpf_prog_info pinfo;
	struct bpf_map_info minfo;
	uint32_t prog_id = 0, ilen, i, n_maps, ids[64];
	int ifindex, pfd, mfd, rc;

	ifindex = (int)if_nametoindex(ifname);
	if (ifindex == 0)
		return errf(err, len, "%s: no such interface (in this network "
			    "namespace)", ifname);
	rc = bpf_xdp_query_id(ifindex, 0, &prog_id);
	if (rc != 0)
		return errf(err, len, "%s: cannot query its XDP program: %s",
			    ifname, strerror(-rc));
	if (prog_id == 0)
		return errf(err, len, "%s: no XDP program attached (start the "
			    "port with net_af_xdp and xdp_prog=%s)", ifname,
			    acis_xdp_steer_object());
	pfd = bpf_prog_get_fd_by_id(prog_id);
	if (pfd < 0)
		return errf(err, len, "%s: cannot open XDP program %u: %s "
			    "(root needed)", ifname, prog_id, strerror(errno));
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.nr_map_ids = (uint32_t)(sizeof(ids) / sizeof(ids[0]));
	pinfo.map_ids = (uint64_t)(uintptr_t)ids;
	ilen = sizeof(pinfo);
	rc = bpf_obj_get_info_by_fd(pfd, &pinfo, &ilen);
	close(pfd);
	if (rc != 0)
		return errf(err, len, "%s: cannot read XDP program %u: %s",
			    ifname, prog_id, strerror(errno));
	n_maps = pinfo.nr_map_ids < 64 ? pinfo.nr_map_ids : 64;
	for (i = 0; i < n_maps; i++) {
		mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		memset(&minfo, 0, sizeof(minfo));
		ilen = sizeof(minfo);
		if (bpf_obj_get_info_by_fd(mfd, &minfo, &ilen) == 0 &&
		    strncmp(minfo.name, name, sizeof(minfo.name) - 1) == 0) {
			if (minfo.value_size != value_size) {
				close(mfd);
				return errf(err, len, "%s: map %s of XDP "
					    "program '%s' has %u-byte values, "
					    "this library writes %u: the object "
					    "is of another version", ifname,
					    name, pinfo.name, minfo.value_size,
					    value_size);
			}
			return mfd;
		}
		close(mfd);
	}
	return errf(err, len, "%s: XDP program '%s' (id %u) has no map %s: "
		    "not acis_steer (load %s with xdp_prog=)", ifname,
		    pinfo.name, prog_id, name, acis_xdp_steer_object());
}

/* The interface's own MAC; 0, or -1 if it cannot be read. */
static int
if_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (rc != 0)
		return -1;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

int
acis_xdp_steer_configure(const char *ifname, const struct acis_xdp_steer *cfg,
			 int *mac_steered, char *err, size_t errlen)
{
	static const uint8_t zero[6];
	struct acis_steer_config c;
	uint8_t own[6];
	uint32_t key = 0;
	int fd, rc;

	if (ifname == NULL || cfg == NULL)
		return errf(err, errlen, "no interface or configuration");
	fd = steer_map(ifname, ACIS_STEER_CFG_MAP, sizeof(c), err, errlen);
	if (fd < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.flags = ACIS_STEER_F_CONFIGURED;
	c.udp_port = htons(cfg->udp_port ? cfg->udp_port :
					   ACIS_STEER_DEFAULT_PORT);
	if (cfg->ipv4 != 0) {
		c.flags |= ACIS_STEER_F_IPV4;
		c.ipv4 = cfg->ipv4;
	}
	/* the kernel's own MAC stays the kernel's: steering it would take
	 * SSH and everything else away from it */
	if (memcmp(cfg->mac, zero, 6) != 0 &&
	    (if_mac(ifname, own) != 0 || memcmp(own, cfg->mac, 6) != 0)) {
		c.flags |= ACIS_STEER_F_MAC;
		memcpy(c.mac, cfg->mac, 6);
	}
	rc = bpf_map_update_elem(fd, &key, &c, BPF_ANY);
	close(fd);
	if (rc != 0)
		return errf(err, errlen, "%s: cannot write map %s: %s",
			    ifname, ACIS_STEER_CFG_MAP, strerror(errno));
	if (mac_steered != NULL)
		*mac_steered = (c.flags & ACIS_STEER_F_MAC) != 0;
	return 0;
}

int
acis_xdp_steer_stats(const char *ifname, struct acis_xdp_steer_stats *st,
		     char *err, size_t errlen)
{
	uint64_t sum[ACIS_STEER_CNT_MAX] = {0}, *v;
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	uint32_t k;

	if (ncpu <= 0)
		return errf(err, errlen, "cannot count the CPUs: %s",
			    strerror(-ncpu));
	fd = steer_map(ifname, ACIS_STEER_CNT_MAP, sizeof(uint64_t), err,
		       errlen);
	if (fd < 0)
		return -1;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (v == NULL) {
		close(fd);
		return errf(err, errlen, "out of memory");
	}
	for (k = 0; k < ACIS_STEER_CNT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v) != 0) {
			free(v);
			close(fd);
			return errf(err, errlen, "%s: cannot read map %s: %s",
				    ifname, ACIS_STEER_CNT_MAP,
				    strerror(errno));
		}
		for (c = 0; c < ncpu; c++)
			sum[k] += v[c];
	}
	free(v);
	close(fd);
	st->udp = sum[ACIS_STEER_CNT_UDP];
	st->arp = sum[ACIS_STEER_CNT_ARP];
	st->ipv4 = sum[ACIS_STEER_CNT_IPV4];
	st->mac = sum[ACIS_STEER_CNT_MAC];
	st->kernel = sum[ACIS_STEER_CNT_KERNEL];
	st->no_socket = sum[ACIS_STEER_CNT_NO_SOCKET];
	return 0;
}

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static int
xsk_read(int fd, struct xdp_statistics *xs)
{
	socklen_t l = sizeof(*xs);

	memset(xs, 0, sizeof(*xs));
	return getsockopt(fd, SOL_XDP, XDP_STATISTICS, xs, &l);
}

int
acis_xdp_sockets(struct acis_xsk_ref *refs, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		struct xdp_statistics xs;
		struct stat sb;
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end != '\0' || fd < 0 || fd == dirfd(d) ||
		    fstat((int)fd, &sb) != 0 || !S_ISSOCK(sb.st_mode) ||
		    xsk_read((int)fd, &xs) != 0)
			continue;
		if (n < max) {
			refs[n].fd = (int)fd;
			refs[n].ino = (uint64_t)sb.st_ino;
		}
		n++;
	}
	closedir(d);
	return n;
}

int
acis_xdp_socket_stats(const struct acis_xsk_ref *refs, int n,
		      struct acis_xsk_stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		struct xdp_statistics xs;
		struct stat sb;

		if (fstat(refs[i].fd, &sb) != 0 ||
		    (uint64_t)sb.st_ino != refs[i].ino ||
		    xsk_read(refs[i].fd, &xs) != 0)
			continue;
		st->sockets++;
		st->rx_dropped += xs.rx_dropped;
		st->rx_invalid_descs += xs.rx_invalid_descs;
		st->tx_invalid_descs += xs.tx_invalid_descs;
		st->rx_ring_full += xs.rx_ring_full;
		st->fill_ring_empty += xs.rx_fill_ring_empty_descs;
		st->tx_ring_empty += xs.tx_ring_empty_descs;
	}
	return (int)st->sockets;
}
