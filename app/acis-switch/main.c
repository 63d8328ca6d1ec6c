/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-switch: a software ACiS smart switch on DPDK.
 *
 *   acis-switch [EAL args] -- --pipeline FILE [--pipeline FILE ...] [options]
 *
 * main() parses the options, reads the pipeline files, sets the switches
 * up (one per file: logical switches of one process, doc/fabric.md), runs
 * on each EAL lcore the graphs of every switch that names it until
 * SIGINT/SIGTERM (or --idle-exit), and prints the counters once on the
 * way out.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "acis_conf.h"
#include "capture.h"
#include "fault.h"
#include "lookaside.h"
#include "rel.h"
#include "torus.h"
#include "switch.h"

static struct {
	const char *pipeline[ACIS_MAX_SWITCHES];
	unsigned int n_pipelines;
	unsigned int stats_interval;
	unsigned int idle_exit;
	uint32_t idle_sleep_us;
	int check_only;
	int no_pdump;
} opt;

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: acis-switch [EAL options] -- --pipeline FILE [options]\n"
		"\n"
		"  -p, --pipeline FILE    pipeline file (ports, lcores, tables);\n"
		"                         see doc/pipelines.md. Given again, each\n"
		"                         file is a logical switch of this process\n"
		"                         (doc/fabric.md); their lcores are shared\n"
		"      --check            check the pipeline file and exit\n"
		"      --stats SEC        print counters every SEC seconds\n"
		"      --idle-exit SEC    exit once no packet has arrived for SEC\n"
		"                         seconds (for pcap-in/pcap-out runs)\n"
		"      --idle-sleep USEC  after 1024 empty polls, sleep USEC per\n"
		"                         poll (shares a core; default 0: busy poll)\n"
		"      --no-pdump         do not start DPDK's packet capture\n"
		"                         framework (dpdk-dumpcap, dpdk-pdump)\n"
		"  -V, --version          print the version\n"
		"  -h, --help             this text\n"
		"\n"
		"Live counters: dpdk-telemetry.py or acisctl, commands /acis/...\n");
}

static int
parse_uint(const char *name, const char *v, unsigned int max, unsigned int *out)
{
	uint32_t x;

	if (acis_conf_u32(v, &x) != 0 || x > max) {
		fprintf(stderr, "acis-switch: %s: expected a whole number from "
			"0 to %u, found '%s'\n", name, max, v);
		return -1;
	}
	*out = x;
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"pipeline", required_argument, NULL, 'p'},
		{"check", no_argument, NULL, 'c'},
		{"stats", required_argument, NULL, 's'},
		{"idle-exit", required_argument, NULL, 'i'},
		{"idle-sleep", required_argument, NULL, 'S'},
		{"no-pdump", no_argument, NULL, 'P'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned int v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (opt.n_pipelines == ACIS_MAX_SWITCHES) {
				fprintf(stderr, "acis-switch: at most %d "
					"--pipeline files\n", ACIS_MAX_SWITCHES);
				return -1;
			}
			opt.pipeline[opt.n_pipelines++] = optarg;
			break;
		case 'c':
			opt.check_only = 1;
			break;
		case 's':
			if (parse_uint("--stats", optarg, 86400,
				       &opt.stats_interval) != 0)
				return -1;
			break;
		case 'i':
			if (parse_uint("--idle-exit", optarg, 86400,
				       &opt.idle_exit) != 0)
				return -1;
			break;
		case 'S':
			if (parse_uint("--idle-sleep", optarg, 1000000, &v) != 0)
				return -1;
			opt.idle_sleep_us = v;
			break;
		case 'P':
			opt.no_pdump = 1;
			break;
		case 'V':
			printf("acis-switch %s\n", ACIS_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "acis-switch: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (opt.n_pipelines == 0) {
		fprintf(stderr, "acis-switch: --pipeline FILE is required\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	acis_quit = 1;
}

/* Application arguments are those after the first "--". */
static int
app_args_start(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return -1;
}

static uint64_t
rx_total(void)
{
	struct acis_lcore_stats s;
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < acis_n_switches; i++) {
		acis_switch_enter(acis_switches[i]);
		acis_stats_sum(&s);
		n += s.stage_pkts[ACIS_STAGE_RX];
	}
	return n;
}

/* Every switch's counters; named when there are several. */
static void
print_stats(void)
{
	unsigned int i;

	for (i = 0; i < acis_n_switches; i++) {
		acis_switch_enter(acis_switches[i]);
		if (acis_n_switches > 1)
			printf("== switch %s ==\n", g_sw.name);
		acis_stats_print(stdout);
	}
}

/* The main lcore's job when it has no stage to run, and the clock for
 * --stats and --idle-exit when it has. */
static void
supervise(void)
{
	uint64_t last_rx = rx_total();
	unsigned int since_rx = 0, since_stats = 0, tick = 0, i;

	while (!acis_quit) {
		/* a tenth of a second: memif peers that connect are
		 * populated before their first collectives are far along */
		usleep(100000);
		for (i = 0; i < acis_n_switches; i++) {
			acis_switch_enter(acis_switches[i]);
			acis_switch_populate_memif();
			acis_coll_housekeeping();
		}
		if (++tick < 10)
			continue;
		tick = 0;
		if (opt.stats_interval && ++since_stats >= opt.stats_interval) {
			since_stats = 0;
			print_stats();
			fflush(stdout);
		}
		if (opt.idle_exit) {
			uint64_t now = rx_total();

			since_rx = now == last_rx ? since_rx + 1 : 0;
			last_rx = now;
			if (since_rx >= opt.idle_exit) {
				printf("acis-switch: no packet for %u s, "
				       "exiting (--idle-exit)\n", opt.idle_exit);
				acis_quit = 1;
			}
		}
	}
}

static void *
supervise_thread(void *arg)
{
	RTE_SET_USED(arg);
	supervise();
	return NULL;
}

/*
 * A DPDK process already running on the EAL's --file-prefix (its
 * telemetry socket answers): a second switch there would start without
 * telemetry (the socket is taken) and acisctl would talk to the first.
 * 0, or 1 with the reason in msg.
 */
static int
prefix_in_use(char *msg, size_t len)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sa;
	char hello[256];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2",
			     acis_capture_runtime_dir()) >= sizeof(path))
		return 0;
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return 0; /* nobody there (or a stale socket file) */
	}
	/* the first message names the process: {"version": .., "pid": N, ..} */
	n = read(fd, hello, sizeof(hello) - 1);
	close(fd);
	hello[n > 0 ? n : 0] = '\0';
	{
		const char *p = strstr(hello, "\"pid\":");
		long pid = p != NULL ? strtol(p + 6, NULL, 10) : 0;

		snprintf(msg, len, "--file-prefix %s is in use: a DPDK process "
			 "(pid %ld) answers on %s; start this switch with "
			 "another --file-prefix (acisctl -f PREFIX names the "
			 "switch it talks to)", acis_capture_prefix(), pid,
			 path);
	}
	return 1;
}

/* Every switch set up so far, finished, last first. */
static void
fini_all(void)
{
	unsigned int i = acis_n_switches;

	while (i-- > 0) {
		acis_switch_enter(acis_switches[i]);
		acis_switch_fini();
	}
	if (acis_n_switches > 1)
		for (i = 0; i < acis_n_switches; i++) {
			acis_switch_enter(acis_switches[i]);
			acis_switch_pool_free();
		}
	acis_switch_rings_free();
	acis_switches_release();
}

/* Read every pipeline file (with the EAL's main lcore as the default, or
 * without the EAL for --check). 0, or 1 with the error printed. */
static int
load_pipelines(struct acis_pipeline **pls, unsigned int default_lcore)
{
	char err[ACIS_CONF_ERR_LEN];
	unsigned int k, j;

	for (k = 0; k < opt.n_pipelines; k++) {
		pls[k] = calloc(1, sizeof(*pls[k]));
		if (pls[k] == NULL) {
			fprintf(stderr, "acis-switch: out of memory\n");
			return 1;
		}
		if (acis_pipeline_load(opt.pipeline[k], default_lcore, pls[k],
				       err) != 0) {
			fprintf(stderr, "acis-switch: %s\n", err);
			return 1;
		}
		for (j = 0; j < k; j++)
			if (pls[k]->name[0] != '\0' &&
			    strcmp(pls[k]->name, pls[j]->name) == 0) {
				fprintf(stderr, "acis-switch: %s and %s both "
					"name their switch '%s' ([switch] name): "
					"the switches of a process need names "
					"of their own\n", pls[j]->path,
					pls[k]->path, pls[k]->name);
				return 1;
			}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct acis_pipeline *pls[ACIS_MAX_SWITCHES];
	static struct acis_lcore_run runs[RTE_MAX_LCORE];
	char err[ACIS_CONF_ERR_LEN];
	/* Without "--", every argument is the application's and the EAL
	 * runs with its defaults. */
	int sep = app_args_start(argc, argv);
	int app_argc = sep < 0 ? argc : argc - sep;
	char **app_argv = sep < 0 ? argv : argv + sep;
	struct acis_lcore_run *main_run = NULL;
	pthread_t sup;
	int sup_started = 0;
	unsigned int i, k;
	int rc, ret;

	if (sep >= 0)
		app_argv[0] = argv[0];
	if (parse_args(app_argc, app_argv) != 0)
		return 2;
	if (opt.check_only) {
		/* No EAL: what needs one (lcores, devices) is checked at run. */
		if (load_pipelines(pls, 0) != 0)
			return 1;
		for (k = 0; k < opt.n_pipelines; k++)
			printf("acis-switch: %s: ok (%u ports, %u lcores, %u "
			       "static entries)\n", pls[k]->path,
			       pls[k]->n_ports, pls[k]->n_lcores,
			       pls[k]->n_statics);
		return 0;
	}
	acis_capture_eal_args(sep < 0 ? 1 : sep, argv);
	if (prefix_in_use(err, sizeof(err))) {
		fprintf(stderr, "acis-switch: %s\n", err);
		return 1;
	}
	ret = rte_eal_init(sep < 0 ? 1 : sep, argv);
	if (ret < 0) {
		fprintf(stderr, "acis-switch: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (load_pipelines(pls, rte_get_main_lcore()) != 0) {
		rte_eal_cleanup();
		acis_capture_remove_files();
		return 1;
	}
	/* every switch's graphs get the TX edges of the widest */
	for (k = 0; k < opt.n_pipelines; k++)
		acis_graph_ports = RTE_MAX(acis_graph_ports, pls[k]->n_ports);
	for (k = 0; k < opt.n_pipelines; k++) {
		struct acis_switch *sw = k == 0 ? acis_switches[0] :
					 acis_switch_new();

		if (sw == NULL) {
			fprintf(stderr, "acis-switch: out of memory for switch "
				"%u\n", k);
			fini_all();
			rte_eal_cleanup();
			acis_capture_remove_files();
			return 1;
		}
		acis_switch_enter(sw);
		rc = acis_switch_init(pls[k], err, sizeof(err));
		if (rc == 0 && k > 0 && pls[k]->name[0] == '\0') {
			/* named after its file: that name may be taken */
			for (i = 0; i < k; i++)
				if (strcmp(acis_switches[i]->name, g_sw.name) == 0)
					rc = acis_errf(err, sizeof(err), -EEXIST,
						"%s: its switch would be named "
						"'%s' as %s's is: give it a "
						"[switch] name", pls[k]->path,
						g_sw.name, pls[i]->path);
		}
		if (rc != 0) {
			fprintf(stderr, "acis-switch: %s\n", err);
			fini_all();
			rte_eal_cleanup();
			acis_capture_remove_files();
			return 1;
		}
		g_sw.idle_sleep_us = opt.idle_sleep_us;
	}
	acis_switch_enter(acis_switches[0]);
	if (acis_capture_init(!opt.no_pdump, err, sizeof(err)) != 0) {
		fprintf(stderr, "acis-switch: %s\n", err);
		fini_all();
		rte_eal_cleanup();
		acis_capture_remove_files();
		return 1;
	}
	if (acis_telemetry_register() != 0 ||
	    acis_coll_telemetry_register() != 0 ||
	    acis_la_telemetry_register() != 0 ||
	    acis_fault_telemetry_register() != 0 ||
	    acis_rel_telemetry_register() != 0 ||
	    acis_torus_telemetry_register() != 0)
		printf("acis-switch: warning: telemetry commands not "
		       "registered (is telemetry disabled?)\n");
	for (k = 0; k < acis_n_switches; k++) {
		acis_switch_enter(acis_switches[k]);
		printf("acis-switch %s: %s%s%s: %u ports, %u lcores (%u "
		       "workers), ACiS UDP port %u\n", ACIS_VERSION,
		       acis_n_switches > 1 ? g_sw.name : "",
		       acis_n_switches > 1 ? " " : "", g_sw.pl->path,
		       g_sw.n_ports, g_sw.n_lcores, g_sw.n_workers,
		       g_sw.pl->udp_port);
		/* each EAL lcore walks the graphs of every switch naming it */
		for (i = 0; i < g_sw.n_lcores; i++) {
			struct acis_lcore_ctx *lc = g_sw.lcores[i];
			struct acis_lcore_run *r = &runs[lc->lcore_id];

			r->lc[r->n++] = lc;
		}
	}
	if (acis_n_switches > 1)
		printf("acis-switch: %u logical switches; acisctl -n SWITCH "
		       "reaches each\n", acis_n_switches);
	fflush(stdout);

	acis_la_set_running(1);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		if (runs[i].n == 0)
			continue;
		if (i == rte_get_main_lcore())
			main_run = &runs[i];
		else
			rte_eal_remote_launch(acis_switch_run_lcores, &runs[i],
					      i);
	}
	if (main_run != NULL) {
		/* The main lcore runs stages; the clock runs beside it. */
		/* a control thread: on the cores no lcore polls (the
		 * EAL's own threads' set), so its work (memif regions
		 * populated, stats printed) never takes an lcore's core */
		if (rte_ctrl_thread_create(&sup, "acis-supervise", NULL,
					   supervise_thread, NULL) == 0)
			sup_started = 1;
		acis_switch_run_lcores(main_run);
	} else {
		supervise();
	}
	acis_quit = 1;
	rte_eal_mp_wait_lcore();
	acis_la_set_running(0);
	if (sup_started)
		pthread_join(sup, NULL);

	print_stats();
	acis_capture_fini();
	fini_all();
	for (k = 0; k < opt.n_pipelines; k++)
		free(pls[k]);
	rte_eal_cleanup();
	acis_capture_remove_files();
	return 0;
}
