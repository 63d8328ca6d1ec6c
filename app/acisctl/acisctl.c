/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acisctl: management client for a running acis-switch.
 *
 * Speaks DPDK's telemetry protocol (a SOCK_SEQPACKET socket under the
 * DPDK runtime directory): sends one command, prints the JSON reply
 * indented, exits 0 when the switch answered. The same commands work with
 * dpdk-telemetry.py; acisctl adds short names and needs no Python.
 * `metrics` and `top` (metrics.c, top.c) read several commands and turn
 * them into Prometheus text or a live view.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tel.h"

static const struct {
	const char *name;
	const char *cmd;
	const char *help;
} shortcuts[] = {
	{"info", "/acis/info", "switch identity, pipeline, uptime"},
	{"switches", "/acis/switches", "the process's switches (logical ones: names for -n)"},
	{"ports", "/acis/ports", "per-port counters and ethdev stats"},
	{"stages", "/acis/stages", "packets through each stage"},
	{"drops", "/acis/drops", "drops by reason"},
	{"lcores", "/acis/lcores", "per-lcore roles and poll counters"},
	{"l2", "/acis/l2", "MAC table and learning counters"},
	{"collectives", "/acis/collectives", "aggregation slots, messages, completions"},
	{"jobs", "/acis/jobs", "jobs: size, ranks joined, world communicator"},
	{"comms", "/acis/comms", "communicators: job, size, parent, partners"},
	{"comm", "/acis/comm", "one communicator (PARAMS: CTX[:RANK])"},
	{"trees", "/acis/comms,trees", "a fabric's trees at this switch: root or below, ranks, children"},
	{"comm-create", "/acis/comm_create", "make one (PARAMS: JOB:RANKS, e.g. 7:0-3)"},
	{"comm-free", "/acis/comm_free", "free one at once (PARAMS: CTX)"},
	{"job-free", "/acis/job_free", "remove a job and its communicators, e.g. of a dead host (PARAMS: JOB)"},
	{"port-link", "/acis/port/link", "set a port's link (PARAMS: PORT,up or PORT,down)"},
	{"fault", "/acis/fault", "fault injection per port: settings, counters"},
	{"links", "/acis/links", "reliable links per port: resends, CRC errors, ACKs"},
	{"torus", "/acis/torus", "a torus node: its place, routing, frames routed, hops, illegal turns"},
	{"torus-table", "/acis/torus/table", "a torus node's routing tables (PARAMS: load,FILE or clear; none: status)"},
	{"torus-gen", "/acis/torus/gen", "a torus node's traffic generator: run, results (PARAMS: start,KEY=VALUE,... or stop)"},
	{"sync", "/acis/sync", "deadlines and SSP barriers per communicator"},
	{"fault-set", "/acis/fault/set", "change a port's faults (PARAMS: PORT,KEY=VALUE,... or PORT,off)"},
	{"list", "/", "every telemetry command the process offers"},
};

static const char cgra_help[] =
	"  cgra [stats [RULE]]                 look-aside handlers and counters\n"
	"  cgra load RULE FILE                 load (.s or .bin) and start a program\n"
	"  cgra mem RULE BANK OFFSET FILE      write resident data into a bank\n"
	"  cgra read RULE BANK OFFSET LEN      read resident data (hex, LEN <= 256)\n"
	"  cgra start|stop RULE                restart the loaded program / stop it\n"
	"  cgra passthrough RULE on|off        forward unchanged without running\n";

/*
 * "cgra ..." to a telemetry request. File names become absolute, since
 * the switch opens them from its own working directory. 0, or -1 with a
 * message printed.
 */
static int
cgra_request(int argc, char **argv, char *req, size_t len)
{
	const char *sub = argc > 0 ? argv[0] : "stats";
	char abs_path[4096];
	int n, i, file_arg = -1, want = -1;

	if (strcmp(sub, "stats") == 0) {
		if (argc > 2)
			goto usage;
		n = snprintf(req, len, "/acis/cgra%s%s", argc == 2 ? "," : "",
			     argc == 2 ? argv[1] : "");
		return n < (int)len ? 0 : -1;
	}
	if (strcmp(sub, "load") == 0) {
		want = 3;
		file_arg = 2;
	} else if (strcmp(sub, "mem") == 0) {
		want = 5;
		file_arg = 4;
	} else if (strcmp(sub, "read") == 0) {
		want = 5;
	} else if (strcmp(sub, "start") == 0 || strcmp(sub, "stop") == 0) {
		want = 2;
	} else if (strcmp(sub, "passthrough") == 0) {
		want = 3;
	}
	if (want < 0 || argc != want)
		goto usage;
	n = snprintf(req, len, "/acis/cgra/ctl");
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (i == file_arg) {
			if (realpath(a, abs_path) == NULL) {
				fprintf(stderr, "acisctl: %s: %s\n", a,
					strerror(errno));
				return -1;
			}
			a = abs_path;
		}
		if (strchr(a, ',') != NULL) {
			fprintf(stderr, "acisctl: '%s': commas cannot be sent "
				"to the switch\n", a);
			return -1;
		}
		n += snprintf(req + n, len - (size_t)n, ",%s", a);
		if (n >= (int)len) {
			fprintf(stderr, "acisctl: request too long\n");
			return -1;
		}
	}
	return 0;
usage:
	fprintf(stderr, "acisctl: cgra: expected one of:\n%s", cgra_help);
	return -1;
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: acisctl [-f FILE_PREFIX | -s SOCKET] [-n SWITCH] "
		   "[--raw] COMMAND [PARAMS]\n\ncommands:\n");
	for (i = 0; i < sizeof(shortcuts) / sizeof(shortcuts[0]); i++)
		fprintf(f, "  %-12s %-18s %s\n", shortcuts[i].name,
			shortcuts[i].cmd, shortcuts[i].help);
	fprintf(f, "%s", cgra_help);
	fprintf(f, "  metrics                             every counter in "
		   "Prometheus text format\n"
		   "  top [-d SECONDS] [-n COUNT]         live rates: ports, "
		   "stages, collectives,\n"
		   "                                      slots, drops, lcores "
		   "(every second)\n");
	fprintf(f, "  /any/telemetry/command   sent as given\n\n"
		   "  -f, --file-prefix P  the switch's EAL --file-prefix "
		   "(default rte)\n"
		   "  -s, --socket PATH    telemetry socket path\n"
		   "  -n, --switch NAME    the switch, in a process of several "
		   "logical ones\n"
		   "                       (default: its first; switches lists "
		   "them)\n"
		   "  -r, --raw            print the reply as received\n");
}

/* Indent JSON for people; strings are copied untouched. */
static void
print_pretty(const char *s)
{
	int depth = 0, in_str = 0, esc = 0;

	for (; *s != '\0'; s++) {
		char c = *s;

		if (in_str) {
			putchar(c);
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			putchar(c);
			break;
		case '{':
		case '[':
			depth++;
			printf("%c\n%*s", c, depth * 2, "");
			break;
		case '}':
		case ']':
			depth--;
			printf("\n%*s%c", depth * 2, "", c);
			break;
		case ',':
			printf(",\n%*s", depth * 2, "");
			break;
		case ':':
			printf(": ");
			break;
		default:
			putchar(c);
		}
	}
	putchar('\n');
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"file-prefix", required_argument, NULL, 'f'},
		{"socket", required_argument, NULL, 's'},
		{"switch", required_argument, NULL, 'n'},
		{"raw", no_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *prefix = "rte", *sock_path = NULL, *cmd;
	char req[1024];
	char *reply;
	size_t i;
	int raw = 0, c, fd, n;

	/* '+': options end at COMMAND, whose own options (top -n) follow */
	while ((c = getopt_long(argc, argv, "+f:s:n:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			prefix = optarg;
			break;
		case 's':
			sock_path = optarg;
			break;
		case 'n':
			tel_switch = optarg;
			break;
		case 'r':
			raw = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "metrics") == 0)
		return acisctl_metrics(prefix, sock_path, argc - optind,
				       argv + optind);
	if (strcmp(cmd, "top") == 0)
		return acisctl_top(prefix, sock_path, argc - optind,
				   argv + optind);
	if (strcmp(cmd, "cgra") == 0) {
		if (cgra_request(argc - optind - 1, argv + optind + 1, req,
				 sizeof(req)) != 0)
			return 2;
		goto send;
	}
	for (i = 0; i < sizeof(shortcuts) / sizeof(shortcuts[0]); i++)
		if (strcmp(cmd, shortcuts[i].name) == 0)
			cmd = shortcuts[i].cmd;
	if (cmd[0] != '/') {
		fprintf(stderr, "acisctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	if (optind + 2 < argc) {
		/* one PARAMS word: parts go comma-separated, e.g. h1,drop=0.1 */
		fprintf(stderr, "acisctl: %s takes one PARAMS argument (join its "
			"parts with commas), found %d\n", argv[optind],
			argc - optind - 1);
		return 2;
	}
	if (optind + 1 < argc)
		n = snprintf(req, sizeof(req), "%s,%s", cmd, argv[optind + 1]);
	else
		n = snprintf(req, sizeof(req), "%s", cmd);
	if (n < 0 || (size_t)n >= sizeof(req)) {
		/* the switch reads no more than this either: a cut request
		 * would be another request */
		fprintf(stderr, "acisctl: request of %d characters, at most "
			"%zu\n", n, sizeof(req) - 1);
		return 2;
	}

send:
	fd = tel_connect(prefix, sock_path, &c);
	if (fd < 0)
		return c;
	reply = malloc(TEL_REPLY_MAX + 1);
	if (reply == NULL) {
		close(fd);
		return 1;
	}
	if (tel_request(fd, req, reply, TEL_REPLY_MAX + 1) < 0) {
		fprintf(stderr, "acisctl: no reply from the switch\n");
		free(reply);
		close(fd);
		return 1;
	}
	close(fd);
	if (raw)
		printf("%s\n", reply);
	else
		print_pretty(reply);
	/* Unknown commands come back as {"<cmd>": null}. */
	c = strstr(reply, "\":null}") != NULL ? 1 : 0;
	if (c)
		fprintf(stderr, "acisctl: the switch does not know '%s'\n", cmd);
	/* Management commands answer {"...": {"error": "why"}} on refusal. */
	if (!c && strstr(reply, "{\"error\":") != NULL)
		c = 1;
	free(reply);
	return c;
}
