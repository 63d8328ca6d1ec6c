/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-xdp-steer: set or show the XDP steering of an interface by hand
 * (the switch does the same itself for ports with xdp_steer = on).
 *
 *   acis-xdp-steer IFNAME [--port N] [--ip A.B.C.D] [--mac XX:XX:XX:XX:XX:XX]
 *   acis-xdp-steer IFNAME --stats      counters, one "name value" a line
 *   acis-xdp-steer --object            where the program's object file is
 *
 * Exit status: 0 done, 1 the interface or program refused, 2 bad usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_pkt.h"
#include "acis_xdp.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: acis-xdp-steer IFNAME [--port N] [--ip A.B.C.D] "
		"[--mac XX:XX:XX:XX:XX:XX]\n"
		"       acis-xdp-steer IFNAME --stats\n"
		"       acis-xdp-steer --object\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'},
		{"ip", required_argument, NULL, 'i'},
		{"mac", required_argument, NULL, 'm'},
		{"stats", no_argument, NULL, 's'},
		{"object", no_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct acis_xdp_steer cfg;
	struct acis_xdp_steer_stats st;
	char err[512], *end;
	int c, stats = 0, mac_steered = 0;
	unsigned long port;

	memset(&cfg, 0, sizeof(cfg));
	while ((c = getopt_long(argc, argv, "p:i:m:soh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || port == 0 ||
			    port > 65535) {
				fprintf(stderr, "acis-xdp-steer: --port: "
					"expected 1..65535, found '%s'\n",
					optarg);
				return 2;
			}
			cfg.udp_port = (uint16_t)port;
			break;
		case 'i':
			if (acis_parse_ipv4(optarg, &cfg.ipv4) != 0) {
				fprintf(stderr, "acis-xdp-steer: --ip: expected "
					"an IPv4 address A.B.C.D, found '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			/* the switch's own address: never a group */
			if (acis_parse_mac(optarg, cfg.mac) != 0 ||
			    (cfg.mac[0] & 1) != 0) {
				fprintf(stderr, "acis-xdp-steer: --mac: expected "
					"a unicast MAC XX:XX:XX:XX:XX:XX, "
					"found '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			stats = 1;
			break;
		case 'o':
			printf("%s\n", acis_xdp_steer_object());
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (stats) {
		if (acis_xdp_steer_stats(argv[optind], &st, err,
					 sizeof(err)) != 0) {
			fprintf(stderr, "acis-xdp-steer: %s\n", err);
			return 1;
		}
		printf("udp %" PRIu64 "\narp %" PRIu64 "\nipv4 %" PRIu64
		       "\nmac %" PRIu64 "\nkernel %" PRIu64
		       "\nno_socket %" PRIu64 "\n", st.udp, st.arp, st.ipv4,
		       st.mac, st.kernel, st.no_socket);
		return 0;
	}
	if (acis_xdp_steer_configure(argv[optind], &cfg, &mac_steered, err,
				     sizeof(err)) != 0) {
		fprintf(stderr, "acis-xdp-steer: %s\n", err);
		return 1;
	}
	printf("%s: UDP port %u%s%s%s\n", argv[optind],
	       cfg.udp_port ? cfg.udp_port : 47000,
	       cfg.ipv4 ? ", ARP and IPv4 for the switch's address" : "",
	       mac_steered ? ", frames to the switch's MAC" : "",
	       " to the switch; the rest to the kernel");
	return 0;
}
