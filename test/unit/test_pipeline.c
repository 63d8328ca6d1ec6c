/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_pipeline: what a pipeline file turns into (defaults
 * included) and every error it can report, each checked for its
 * "file:line:" prefix and the form it tells the user to write.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include "acis_conf.h"
#include "acis_pipeline.h"
#include "acis_torus.h"

#define NAME "t.conf"

/* Lines 1-3. */
#define SWITCH "[switch]\nmac = 02:ac:15:00:00:01\nip = 10.0.0.1\n"
/* Lines 4-5 after SWITCH. */
#define PORT_P0 "[port p0]\ndev = net_null0\n"

/* Large: keep it out of the stack. */
static struct acis_pipeline pl;
static char err[ACIS_CONF_ERR_LEN];

static int
load(const char *text, unsigned int default_lcore)
{
	struct acis_conf *c;
	int rc;

	memset(err, 0, sizeof(err));
	c = acis_conf_parse(NAME, text, err);
	if (c == NULL)
		fail_msg("the INI text itself does not parse: %s", err);
	rc = acis_pipeline_from_conf(c, default_lcore, &pl, err);
	acis_conf_free(c);
	return rc;
}

static void
load_ok(const char *text)
{
	int rc = load(text, 0);

	if (rc != 0)
		fail_msg("unexpected error %d: %s", rc, err);
}

/*
 * The file must be refused with a message that starts "t.conf:LINE: "
 * (line 0: "t.conf: ", for errors about the whole file) and contains hint.
 */
static void
expect_error(const char *text, int line, const char *hint)
{
	char prefix[64];
	int rc = load(text, 0);

	if (rc >= 0)
		fail_msg("accepted, expected an error at line %d", line);
	if (line > 0)
		snprintf(prefix, sizeof(prefix), NAME ":%d: ", line);
	else
		snprintf(prefix, sizeof(prefix), NAME ": ");
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("expected prefix '%s', got '%s'", prefix, err);
	if (strstr(err, hint) == NULL)
		fail_msg("expected '%s' in '%s'", hint, err);
}

/* --- what a valid file gives ----------------------------------------------- */

/* An emulated card's files in its dev line are relative to the pipeline
 * file, as the file's other file names are; absolute ones stay. */
static void
test_emulated_fpga_files_are_relative_to_the_pipeline_file(void **state)
{
	struct acis_conf *c;

	(void)state;
	c = acis_conf_parse("/etc/acis/x.ini", SWITCH
		"[port f]\ndev = net_acis_fpga0,mode=cgra,program=p.s,"
		"memory=1:0:rows.bin,memory=/abs.bin,memory=r.bin,vpes=4\n"
		"[port g]\ndev = net_pcap0,rx_pcap=in.pcap\n", err);
	assert_non_null(c);
	assert_int_equal(acis_pipeline_from_conf(c, 0, &pl, err), 0);
	acis_conf_free(c);
	assert_string_equal(pl.ports[0].dev,
		"net_acis_fpga0,mode=cgra,program=/etc/acis/p.s,"
		"memory=1:0:/etc/acis/rows.bin,memory=/abs.bin,"
		"memory=/etc/acis/r.bin,vpes=4");
	/* other devices' arguments are the PMD's business */
	assert_string_equal(pl.ports[1].dev, "net_pcap0,rx_pcap=in.pcap");
}

/* reliable = on, with its timeout; the timeout's bounds named. */
static void
test_reliable_port_keys(void **state)
{
	(void)state;
	assert_int_equal(load(SWITCH "[port p0]\ndev = net_null0\n"
			      "reliable = on\nreliable_rto_us = 500\n", 0), 0);
	assert_int_equal(pl.ports[0].reliable, 1);
	assert_int_equal(pl.ports[0].reliable_rto_us, 500);
	assert_int_equal(load(SWITCH PORT_P0, 0), 0);
	assert_int_equal(pl.ports[0].reliable, 0);
	assert_int_equal(pl.ports[0].reliable_rto_us, 2000);
	expect_error(SWITCH "[port p0]\ndev = net_null0\nreliable_rto_us = 5\n",
		     6, "reliable_rto_us");
	expect_error(SWITCH "[port p0]\ndev = net_null0\nreliable = maybe\n",
		     6, "reliable");
}

/* [torus]: a node of a torus or mesh; ports pD are its directions. */
#define TORUS_PORTS "[port p0]\ndev = net_null0\n[port p1]\ndev = net_null1\n" \
	"[port p2]\ndev = net_null2\n[port p3]\ndev = net_null3\n" \
	"[port p4]\ndev = net_null4\n"
static void
test_torus_section(void **state)
{
	(void)state;
	/* lines: 1-3 switch, 4-13 ports, 14 [torus], 15.. keys */
	assert_int_equal(load(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\n"
			      "coord = 3,1\nrouting = RLB\nseed = 7\n"
			      "host = 02:a0:00:00:00:0a 0,0\n"
			      "host = 02:a0:00:00:00:0b 3,1\n", 0), 0);
	assert_int_equal(pl.torus.on, 1);
	assert_int_equal(pl.torus.k[0], 4);
	assert_int_equal(pl.torus.k[1], 2);
	assert_int_equal(pl.torus.k[2], 1);
	assert_int_equal(pl.torus.coord[0], 3);
	assert_int_equal(pl.torus.coord[1], 1);
	assert_int_equal(pl.torus.routing, 3);
	assert_int_equal(pl.torus.seed, 7);
	assert_int_equal(pl.torus.n_hosts, 2);
	assert_int_equal(pl.torus.hosts[1].mac[5], 0x0b);
	assert_int_equal(pl.torus.hosts[1].coord[0], 3);
	assert_int_equal(pl.torus.dir_port[1], 1);
	assert_int_equal(pl.torus.dir_port[4], 4);
	assert_int_equal(pl.torus.dir_port[5], UINT16_MAX);
	/* the router's defaults: buffers on, oldest first, 160 MHz */
	assert_int_equal(pl.torus.slots, ACIS_TORUS_SLOTS_DEFAULT);
	assert_int_equal(pl.torus.arbitration, ACIS_TORUS_OF);
	assert_int_equal(pl.torus.mix_age, ACIS_TORUS_MIX_AGE_DEFAULT);
	assert_int_equal(pl.torus.credit_period, ACIS_TORUS_CBP_DEFAULT);
	assert_int_equal(pl.torus.watchdog_ms, ACIS_TORUS_WATCHDOG_MS_DEFAULT);
	assert_int_equal(pl.torus.clock_hz, 160000000);
	assert_int_equal(load(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\n"
			      "coord = 0,0\nslots = 1\narbitration = Mix\n"
			      "mix_age = 100\ncredit_period = 0\n"
			      "watchdog_ms = 0\nclock_khz = 1600\n", 0), 0);
	assert_int_equal(pl.torus.slots, 1);
	assert_int_equal(pl.torus.arbitration, ACIS_TORUS_MIX);
	assert_int_equal(pl.torus.mix_age, 100);
	assert_int_equal(pl.torus.credit_period, 0);
	assert_int_equal(pl.torus.watchdog_ms, 0);
	assert_int_equal(pl.torus.clock_hz, 1600000);
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "slots = 17\n", 17, "slots");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "arbitration = lifo\n", 17, "arbitration: expected ff, of or mix");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "clock_khz = 0\n", 17, "clock_khz");
	/* a link's own slots and arbitration */
	assert_int_equal(load(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\n"
			      "coord = 0,0\nslots_p3 = 2\n"
			      "arbitration_p1 = ff\n", 0), 0);
	assert_int_equal(pl.torus.link_slots[3], 2);
	assert_int_equal(pl.torus.link_slots[1], 0);
	assert_int_equal(pl.torus.link_arbitration[1], ACIS_TORUS_FF + 1);
	assert_int_equal(pl.torus.link_arbitration[3], 0);
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "slots_p2 = 0\n", 17, "slots_p2: expected a whole number "
		     "from 1 to 16");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "arbitration_p4 = lifo\n", 17, "arbitration_p4: expected "
		     "ff, of or mix");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "slots = 0\nslots_p1 = 4\n", 18, "slots_p1: the router has "
		     "no buffers (slots = 0)");
	expect_error(SWITCH "[port p1]\ndev = net_null1\n"
		     "[port p3]\ndev = net_null3\n[torus]\n"
		     "dims = 2x2\nmesh = on\ncoord = 0,0\narbitration_p2 = of\n",
		     12, "arbitration_p2: no link on p2 here");
	/* no [torus]: off */
	assert_int_equal(load(SWITCH PORT_P0, 0), 0);
	assert_int_equal(pl.torus.on, 0);
	/* a mesh's edge needs no port: node 0,0 of a 2x2 mesh has X+ and Y+ */
	assert_int_equal(load(SWITCH "[port p1]\ndev = net_null1\n"
			      "[port p3]\ndev = net_null3\n[torus]\n"
			      "dims = 2x2\nmesh = on\ncoord = 0,0\n", 0), 0);
	assert_int_equal(pl.torus.dir_port[2], UINT16_MAX);
	expect_error(SWITCH "[port p1]\ndev = net_null1\n"
		     "[port p3]\ndev = net_null3\n[torus]\n"
		     "dims = 2x2\ncoord = 0,0\n", 8, "no [port p2] for direction X-");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x65\ncoord = 0,0\n",
		     15, "dims: expected K, KxK or KxKxK");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 2x2x2x2\ncoord = 0,0\n",
		     15, "at most three dimensions");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 4,0\n",
		     16, "coord: expected X[,Y[,Z]] inside dims (4x2x1)");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "routing = adaptive\n", 17, "routing: expected dor, o1turn");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "host = 02:a0:00:00:00:0a 9,9\n", 17, "host: expected MAC X[,Y[,Z]]");
	expect_error(SWITCH TORUS_PORTS "[torus]\ncoord = 0,0\n", 14,
		     "[torus] needs dims");
	expect_error(SWITCH TORUS_PORTS "[torus]\ndims = 4x2\ncoord = 0,0\n"
		     "[torus]\n", 17, "duplicate [torus]");
}

/* A link between logical switches: ring_pair:LINK:a|b, checked here so a
 * mistyped end is named with its line, not a probe failure at start. */
static void
test_ring_pair_ends_are_checked(void **state)
{
	(void)state;
	assert_int_equal(load(SWITCH "[port p0]\ndev = ring_pair:l-0.x:b\n",
			      0), 0);
	assert_string_equal(pl.ports[0].dev, "ring_pair:l-0.x:b");
	expect_error(SWITCH "[port p0]\ndev = ring_pair:l0:c\n", 5,
		     "expected ring_pair:LINK:a or ring_pair:LINK:b");
	expect_error(SWITCH "[port p0]\ndev = ring_pair::a\n", 5,
		     "found 'ring_pair::a'");
	expect_error(SWITCH "[port p0]\ndev = ring_pair:l0:a,x=1\n", 5,
		     "LINK 1 to 16 letters");
	expect_error(SWITCH "[port p0]\ndev = ring_pair:"
		     "abcdefghijklmnopq:a\n", 5, "ring_pair:LINK:a");
}

static void
test_minimal_file_gets_documented_switch_defaults(void **state)
{
	static const uint8_t mac[6] = {0x02, 0xac, 0x15, 0x00, 0x00, 0x01};
	static const uint8_t ip[4] = {10, 0, 0, 1};

	(void)state;
	load_ok(SWITCH PORT_P0);
	assert_string_equal(pl.path, NAME);
	assert_string_equal(pl.name, "acis");
	assert_memory_equal(pl.mac, mac, 6);
	assert_memory_equal(&pl.ip, ip, 4);
	assert_int_equal(pl.udp_port, ACIS_DEFAULT_UDP_PORT);
	assert_int_equal(ACIS_DEFAULT_UDP_PORT, 47000);
	assert_int_equal(pl.burst, 32);
	assert_int_equal(pl.mtu, 1500);
	assert_int_equal(pl.ring_size, 1024);
	assert_int_equal(pl.n_statics, 0);
}

static void
test_minimal_file_gets_documented_l2_defaults(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0);
	assert_int_equal(pl.learning, 1);
	assert_int_equal(pl.flood, 1);
	assert_int_equal(pl.age, 300);
}

static void
test_minimal_file_gets_documented_port_defaults(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0);
	assert_int_equal(pl.n_ports, 1);
	assert_string_equal(pl.ports[0].name, "p0");
	assert_string_equal(pl.ports[0].dev, "net_null0");
	assert_int_equal(pl.ports[0].line, 4);
	assert_int_equal(pl.ports[0].dev_line, 5);
	assert_int_equal(pl.ports[0].rxd, 1024);
	assert_int_equal(pl.ports[0].txd, 1024);
	assert_int_equal(pl.ports[0].mtu, 0);
	assert_int_equal(pl.ports[0].promisc, 1);
	assert_int_equal(pl.ports[0].rx_checksum, 1);
}

static void
test_file_without_lcores_gets_one_lcore_polling_every_port(void **state)
{
	(void)state;
	assert_int_equal(load(SWITCH PORT_P0
			      "[port p1]\ndev = net_null1\n"
			      "[port p2]\ndev = net_null2\n", 5), 0);
	assert_int_equal(pl.default_lcores, 1);
	assert_int_equal(pl.n_lcores, 1);
	assert_int_equal(pl.lcores[0].id, 5);
	assert_int_equal(pl.lcores[0].roles,
			 ACIS_ROLE_RX | ACIS_ROLE_WORKER);
	assert_int_equal(pl.lcores[0].rx_ports, 0x7);
	assert_int_equal(acis_pipeline_n_workers(&pl), 1);
	assert_int_equal(acis_pipeline_port_rx_queues(&pl, 2), 1);
}

static void
test_default_lcore_polls_all_32_ports(void **state)
{
	char text[4096];
	size_t n;
	int i;

	(void)state;
	n = snprintf(text, sizeof(text), "%s", SWITCH);
	for (i = 0; i < ACIS_MAX_PORTS; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "[port p%d]\ndev = net_null%d\n", i, i);
	load_ok(text);
	assert_int_equal(pl.n_ports, ACIS_MAX_PORTS);
	assert_int_equal(pl.lcores[0].rx_ports, 0xffffffffu);
}

/* Every setting given, sections in an unusual order. */
static const char full[] =
	"# full pipeline\n"                           /* 1 */
	"[switch]\n"                                  /* 2 */
	"name = edge1\n"                              /* 3 */
	"mac = 02:ac:15:00:00:01\n"                   /* 4 */
	"ip = 192.168.7.1\n"                          /* 5 */
	"udp_port = 47001\n"                          /* 6 */
	"burst = 64\n"                                /* 7 */
	"mtu = 9000\n"                                /* 8 */
	"mbufs = 65535\n"                             /* 9 */
	"mbuf_cache = 128\n"                          /* 10 */
	"ring_size = 4096\n"                          /* 11 */
	"\n"                                          /* 12 */
	"[l2]\n"                                      /* 13 */
	"learning = off\n"                            /* 14 */
	"flood = no\n"                                /* 15 */
	"age = 60\n"                                  /* 16 */
	"table_size = 65536\n"                        /* 17 */
	"static = 02:00:00:00:00:aa p1\n"             /* 18 */
	"static = 02:00:00:00:00:BB p0   # server\n"  /* 19 */
	"\n"                                          /* 20 */
	"[lcore 2]\n"                                 /* 21 */
	"role = rx\n"                                 /* 22 */
	"rx = p0 p1\n"                                /* 23 */
	"\n"                                          /* 24 */
	"[port p0]\n"                                 /* 25 */
	"dev = 0000:03:00.0\n"                        /* 26 */
	"rxd = 2048\n"                                /* 27 */
	"txd = 512\n"                                 /* 28 */
	"mtu = 1500\n"                                /* 29 */
	"promisc = off\n"                             /* 30 */
	"\n"                                          /* 31 */
	"[port p1]\n"                                 /* 32 */
	"dev = net_af_packet0,iface=veth0\n"          /* 33 */
	"\n"                                          /* 34 */
	"[lcore 3]\n"                                 /* 35 */
	"role = worker\n"                             /* 36 */
	"\n"                                          /* 37 */
	"[lcore 4]\n"                                 /* 38 */
	"role = rx worker\n"                          /* 39 */
	"rx = p1\n";                                  /* 40 */

static void
test_full_file_reads_every_switch_setting(void **state)
{
	static const uint8_t ip[4] = {192, 168, 7, 1};

	(void)state;
	load_ok(full);
	assert_string_equal(pl.name, "edge1");
	assert_memory_equal(&pl.ip, ip, 4);
	assert_int_equal(pl.udp_port, 47001);
	assert_int_equal(pl.burst, 64);
	assert_int_equal(pl.mtu, 9000);
	assert_int_equal(pl.mbufs, 65535);
	assert_int_equal(pl.mbuf_cache, 128);
	assert_int_equal(pl.ring_size, 4096);
}

static void
test_full_file_reads_every_l2_setting(void **state)
{
	(void)state;
	load_ok(full);
	assert_int_equal(pl.learning, 0);
	assert_int_equal(pl.flood, 0);
	assert_int_equal(pl.age, 60);
	assert_int_equal(pl.table_size, 65536);
}

static void
test_full_file_reads_statics_naming_ports_declared_later(void **state)
{
	static const uint8_t aa[6] = {0x02, 0, 0, 0, 0, 0xaa};
	static const uint8_t bb[6] = {0x02, 0, 0, 0, 0, 0xbb};

	(void)state;
	load_ok(full);
	assert_int_equal(pl.n_statics, 2);
	assert_memory_equal(pl.statics[0].mac, aa, 6);
	assert_int_equal(pl.statics[0].port, 1);
	assert_int_equal(pl.statics[0].line, 18);
	assert_memory_equal(pl.statics[1].mac, bb, 6);
	assert_int_equal(pl.statics[1].port, 0);
	assert_int_equal(pl.statics[1].line, 19);
}

static void
test_full_file_reads_every_port_setting(void **state)
{
	(void)state;
	load_ok(full);
	assert_int_equal(pl.n_ports, 2);
	assert_string_equal(pl.ports[0].name, "p0");
	assert_string_equal(pl.ports[0].dev, "0000:03:00.0");
	assert_int_equal(pl.ports[0].rxd, 2048);
	assert_int_equal(pl.ports[0].txd, 512);
	assert_int_equal(pl.ports[0].mtu, 1500);
	assert_int_equal(pl.ports[0].promisc, 0);
	assert_int_equal(pl.ports[0].line, 25);
	assert_int_equal(pl.ports[0].dev_line, 26);
	assert_string_equal(pl.ports[1].dev, "net_af_packet0,iface=veth0");
	assert_int_equal(pl.ports[1].promisc, 1);
	assert_int_equal(pl.ports[1].line, 32);
}

static void
test_full_file_reads_lcores_with_roles_and_rx_lists(void **state)
{
	(void)state;
	load_ok(full);
	assert_int_equal(pl.default_lcores, 0);
	assert_int_equal(pl.n_lcores, 3);
	assert_int_equal(pl.lcores[0].id, 2);
	assert_int_equal(pl.lcores[0].roles, ACIS_ROLE_RX);
	assert_int_equal(pl.lcores[0].rx_ports, 0x3);
	assert_int_equal(pl.lcores[0].line, 21);
	assert_int_equal(pl.lcores[1].id, 3);
	assert_int_equal(pl.lcores[1].roles, ACIS_ROLE_WORKER);
	assert_int_equal(pl.lcores[1].rx_ports, 0);
	assert_int_equal(pl.lcores[2].id, 4);
	assert_int_equal(pl.lcores[2].roles,
			 ACIS_ROLE_RX | ACIS_ROLE_WORKER);
	assert_int_equal(pl.lcores[2].rx_ports, 0x2);
	assert_int_equal(pl.lcores[2].line, 38);
}

static void
test_full_file_counts_workers_and_rx_queues_per_port(void **state)
{
	(void)state;
	load_ok(full);
	assert_int_equal(acis_pipeline_n_workers(&pl), 2);
	assert_int_equal(acis_pipeline_port_rx_queues(&pl, 0), 1);
	assert_int_equal(acis_pipeline_port_rx_queues(&pl, 1), 2);
}

static void
test_port_index_finds_ports_by_name(void **state)
{
	(void)state;
	load_ok(full);
	assert_int_equal(acis_pipeline_port_index(&pl, "p0"), 0);
	assert_int_equal(acis_pipeline_port_index(&pl, "p1"), 1);
	assert_int_equal(acis_pipeline_port_index(&pl, "p2"), -1);
	assert_int_equal(acis_pipeline_port_index(&pl, "p"), -1);
}

static void
test_lcore_without_role_polls_and_works(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0 "[lcore 7]\nrx = p0\n");
	assert_int_equal(pl.n_lcores, 1);
	assert_int_equal(pl.lcores[0].id, 7);
	assert_int_equal(pl.lcores[0].roles,
			 ACIS_ROLE_RX | ACIS_ROLE_WORKER);
	assert_int_equal(pl.lcores[0].rx_ports, 1);
}

static void
test_role_words_may_come_in_any_order(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0 "[lcore 1]\nrole = worker rx\nrx = p0\n");
	assert_int_equal(pl.lcores[0].roles,
			 ACIS_ROLE_RX | ACIS_ROLE_WORKER);
}

static void
test_rx_list_accepts_commas_and_spaces(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0 "[port p1]\ndev = n1\n[port p2]\ndev = n2\n"
		"[lcore 1]\nrx = p2,p0 ,  p1\n");
	assert_int_equal(pl.lcores[0].rx_ports, 0x7);
}

static void
test_booleans_accept_on_off_yes_no_true_false_1_0(void **state)
{
	static const struct {
		const char *word;
		int value;
	} cases[] = {
		{"on", 1}, {"ON", 1}, {"yes", 1}, {"true", 1}, {"1", 1},
		{"off", 0}, {"Off", 0}, {"no", 0}, {"false", 0}, {"0", 0},
	};
	char text[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), SWITCH PORT_P0
			 "[l2]\nflood = %s\n", cases[i].word);
		load_ok(text);
		assert_int_equal(pl.flood, cases[i].value);
	}
}

static void
test_devices_differing_only_in_prefix_length_are_distinct(void **state)
{
	(void)state;
	/* The longer name first: its prefix must not match the shorter. */
	load_ok(SWITCH "[port p0]\ndev = net_null01\n"
		"[port p1]\ndev = net_null0,x=1\n");
	assert_int_equal(pl.n_ports, 2);
}

static void
test_numbers_accept_the_edges_of_their_range(void **state)
{
	(void)state;
	load_ok("[switch]\nmac = 02:00:00:00:00:01\nip = 10.0.0.1\n"
		"burst = 256\nudp_port = 65535\nring_size = 65536\n"
		"mtu = 68\n" PORT_P0);
	assert_int_equal(pl.burst, 256);
	assert_int_equal(pl.udp_port, 65535);
	assert_int_equal(pl.ring_size, 65536);
	assert_int_equal(pl.mtu, 68);
}

static void
test_numbers_with_a_leading_zero_are_decimal(void **state)
{
	/* "mtu = 01500" must not silently become octal 832. */
	(void)state;
	load_ok(SWITCH "mtu = 01500\nburst = 010\n" PORT_P0);
	assert_int_equal(pl.mtu, 1500);
	assert_int_equal(pl.burst, 10);
}

static void
test_load_reads_a_file_from_disk(void **state)
{
	char path[64];
	int fd;
	ssize_t len = (ssize_t)strlen(SWITCH PORT_P0);

	(void)state;
	snprintf(path, sizeof(path), "/tmp/acis-test-pipeline-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, SWITCH PORT_P0, len), len);
	close(fd);
	memset(err, 0, sizeof(err));
	assert_int_equal(acis_pipeline_load(path, 1, &pl, err), 0);
	unlink(path);
	assert_string_equal(pl.path, path);
	assert_int_equal(pl.lcores[0].id, 1);
}

/* --- errors --------------------------------------------------------------- */

static void
test_load_of_missing_file_names_the_path(void **state)
{
	const char *path = "/nonexistent-dir/acis-test/pipeline.conf";

	(void)state;
	memset(err, 0, sizeof(err));
	assert_true(acis_pipeline_load(path, 0, &pl, err) < 0);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_int_equal(err[strlen(path)], ':');
}

static void
test_missing_switch_section_is_an_error_for_the_file(void **state)
{
	(void)state;
	expect_error(PORT_P0, 0,
		     "missing section [switch] (expected [switch] with "
		     "mac = ... and ip = ...)");
}

static void
test_missing_mac_is_an_error_at_the_switch_header(void **state)
{
	(void)state;
	expect_error("\n[switch]\nip = 10.0.0.1\n" PORT_P0, 2,
		     "mac = xx:xx:xx:xx:xx:xx");
}

static void
test_malformed_mac_is_an_error_at_its_line(void **state)
{
	(void)state;
	expect_error("[switch]\nmac = 02:ac:15:00:01\nip = 10.0.0.1\n"
		     PORT_P0, 2,
		     "mac: expected a unicast MAC xx:xx:xx:xx:xx:xx, found "
		     "'02:ac:15:00:01'");
}

static void
test_multicast_mac_is_an_error_at_its_line(void **state)
{
	(void)state;
	expect_error("[switch]\nip = 10.0.0.1\nmac = 01:00:5e:00:00:01\n"
		     PORT_P0, 3, "expected a unicast MAC xx:xx:xx:xx:xx:xx");
}

static void
test_missing_ip_is_an_error_at_the_switch_header(void **state)
{
	(void)state;
	expect_error("[switch]\nmac = 02:ac:15:00:00:01\n" PORT_P0, 1,
		     "ip = a.b.c.d");
}

static void
test_malformed_ip_is_an_error_at_its_line(void **state)
{
	(void)state;
	expect_error("[switch]\nmac = 02:ac:15:00:00:01\nip = 10.0.0.256\n"
		     PORT_P0, 3,
		     "ip: expected an IPv4 address a.b.c.d, found "
		     "'10.0.0.256'");
}

static void
test_zero_ip_is_an_error_at_its_line(void **state)
{
	(void)state;
	expect_error("[switch]\nmac = 02:ac:15:00:00:01\nip = 0.0.0.0\n"
		     PORT_P0, 3, "expected an IPv4 address a.b.c.d");
}

static void
test_unknown_switch_key_is_an_error_listing_expected_keys(void **state)
{
	(void)state;
	expect_error(SWITCH "mtus = 9000\n" PORT_P0, 4,
		     "unknown key 'mtus' in [switch] (expected one of: name "
		     "mac ip udp_port burst mtu mbufs mbuf_cache mbuf_size ring_size)");
}

static void
test_unknown_port_key_is_an_error_listing_expected_keys(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "rx = 4\n", 6,
		     "unknown key 'rx' in [port p0] (expected one of: dev "
		     "rxd txd mtu promisc xdp_steer rx_checksum flood peer "
		     "reliable reliable_rto_us)");
}

static void
test_unknown_lcore_key_is_an_error_listing_expected_keys(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrx = p0\nroles = rx\n", 8,
		     "unknown key 'roles' in [lcore 1] (expected one of: "
		     "role rx)");
}

static void
test_unknown_l2_key_is_an_error_listing_expected_keys(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nageing = 10\n", 7,
		     "unknown key 'ageing' in [l2] (expected one of: "
		     "learning flood age table_size static)");
}

static void
test_key_that_is_part_of_a_known_key_is_unknown(void **state)
{
	(void)state;
	expect_error(SWITCH "mbuf = 4096\n" PORT_P0, 4,
		     "unknown key 'mbuf' in [switch]");
}

static void
test_unknown_section_type_is_an_error_at_its_header(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[ports p1]\ndev = x\n", 6,
		     "unknown section [ports] (expected [switch], [l2], "
		     "[collective], [port NAME], [lcore N], [lookaside NAME], "
		     "[fault PORT] or [torus])");
}

static void
test_duplicate_switch_section_names_the_first(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[switch]\n", 6,
		     "duplicate [switch] (first at line 1)");
}

static void
test_switch_section_with_a_name_is_an_error(void **state)
{
	(void)state;
	expect_error("[switch s1]\nmac = 02:ac:15:00:00:01\nip = 10.0.0.1\n"
		     PORT_P0, 1, "expected '[switch]' with no name");
}

static void
test_duplicate_l2_section_names_the_first(void **state)
{
	(void)state;
	expect_error(SWITCH "[l2]\n" PORT_P0 "[l2]\n", 7,
		     "duplicate [l2] (first at line 4)");
}

static void
test_duplicate_port_names_the_first(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[port p0]\ndev = net_null1\n", 6,
		     "duplicate [port p0] (first at line 4)");
}

static void
test_duplicate_device_names_the_port_using_it(void **state)
{
	(void)state;
	expect_error(SWITCH "[port p0]\ndev = net_af_packet0,iface=veth0\n"
		     "[port p1]\n\ndev = net_af_packet0,iface=veth1\n", 8,
		     "dev: device 'net_af_packet0' already used by [port p0] "
		     "at line 5");
}

static void
test_port_without_dev_is_an_error_at_its_header(void **state)
{
	(void)state;
	expect_error(SWITCH "[port p0]\nrxd = 512\n", 4,
		     "[port p0] needs 'dev = DEVICE'");
}

static void
test_port_without_name_is_an_error_at_its_header(void **state)
{
	(void)state;
	expect_error(SWITCH "[port]\ndev = net_null0\n", 4,
		     "expected '[port NAME]'");
}

static void
test_port_name_longer_than_31_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "[port p2345678901234567890123456789012]\n"
		     "dev = x\n", 4, "port name longer than 31 characters");
}

static void
test_more_than_32_ports_is_an_error_at_the_33rd(void **state)
{
	char text[4096];
	size_t n;
	int i;

	(void)state;
	n = snprintf(text, sizeof(text), "%s", SWITCH);
	for (i = 0; i <= ACIS_MAX_PORTS; i++)
		n += snprintf(text + n, sizeof(text) - n,
			      "[port p%d]\ndev = net_null%d\n", i, i);
	expect_error(text, 4 + 2 * ACIS_MAX_PORTS, "more than 32 ports");
}

static void
test_no_ports_is_an_error_for_the_file(void **state)
{
	(void)state;
	expect_error(SWITCH, 0,
		     "no ports: declare at least one [port NAME] with dev = "
		     "DEVICE");
}

static void
test_duplicate_lcore_names_the_first(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrx = p0\n[lcore 1]\nrx = p0\n",
		     8, "duplicate [lcore 1] (first at line 6)");
}

static void
test_lcore_without_a_number_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore main]\nrx = p0\n", 6,
		     "expected '[lcore N]' with N from 0 to 127");
}

static void
test_lcore_number_above_127_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 128]\nrx = p0\n", 6,
		     "expected '[lcore N]' with N from 0 to 127");
}

static void
test_lcore_rx_naming_an_unknown_port_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrx = p0 p9\n", 7,
		     "rx: unknown port 'p9' (declare it with [port p9]");
}

static void
test_lcore_rx_naming_a_port_twice_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrx = p0, p0\n", 7,
		     "rx: port 'p0' listed twice");
}

static void
test_rx_list_on_a_worker_only_lcore_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrole = worker\nrx = p0\n", 8,
		     "rx: [lcore 1] has no 'rx' role, so it polls no ports");
}

static void
test_rx_role_without_ports_is_an_error_at_the_lcore(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrole = rx worker\nrx = p0\n"
		     "[lcore 2]\nrole = rx\n", 9,
		     "[lcore 2] has the rx role but polls no port: add "
		     "'rx = PORT [PORT...]'");
}

static void
test_lcore_with_default_roles_and_no_rx_list_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "\n[lcore 3]\n", 7,
		     "[lcore 3] has the rx role but polls no port");
}

static void
test_unknown_role_word_is_an_error_naming_it(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrole = rx tx\nrx = p0\n", 7,
		     "role: expected 'rx', 'worker' or 'rx worker', found "
		     "'tx'");
}

static void
test_no_worker_lcore_is_an_error_at_the_first_lcore(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[port p1]\ndev = n1\n"
		     "[lcore 1]\nrole = rx\nrx = p0\n"
		     "[lcore 2]\nrole = rx\nrx = p1\n", 8,
		     "no lcore has the worker role");
}

static void
test_static_naming_an_unknown_port_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nstatic = 02:00:00:00:00:09 p9\n",
		     7, "static: unknown port 'p9' (declare it with "
		     "[port p9])");
}

static void
test_duplicate_static_mac_names_the_first_line(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nstatic = 02:00:00:00:00:0a p0\n"
		     "age = 5\nstatic = 02:00:00:00:00:0A p0\n", 9,
		     "static: duplicate entry for 02:00:00:00:00:0A (first "
		     "at line 7)");
}

static void
test_static_without_port_is_an_error_showing_the_form(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nstatic = 02:00:00:00:00:09\n", 7,
		     "static: expected 'static = xx:xx:xx:xx:xx:xx PORTNAME', "
		     "found '02:00:00:00:00:09'");
}

static void
test_static_with_extra_words_is_an_error_showing_the_form(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nstatic = 02:00:00:00:00:09 p0 x\n",
		     7, "static: expected 'static = xx:xx:xx:xx:xx:xx "
		     "PORTNAME'");
}

static void
test_static_with_multicast_mac_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nstatic = 01:00:00:00:00:09 p0\n",
		     7, "static: expected a unicast MAC xx:xx:xx:xx:xx:xx, "
		     "found '01:00:00:00:00:09'");
}

static void
test_ring_size_not_a_power_of_two_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "ring_size = 1000\n" PORT_P0, 4,
		     "ring_size: expected a power of two from 64 to 65536, "
		     "found '1000'");
}

static void
test_ring_size_out_of_range_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "ring_size = 32\n" PORT_P0, 4,
		     "ring_size: expected a whole number from 64 to 65536, "
		     "found '32'");
}

static void
test_burst_of_zero_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "burst = 0\n" PORT_P0, 4,
		     "burst: expected a whole number from 1 to 256, found "
		     "'0'");
}

static void
test_burst_above_256_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "burst = 257\n" PORT_P0, 4,
		     "burst: expected a whole number from 1 to 256, found "
		     "'257'");
}

static void
test_burst_with_trailing_text_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "burst = 32x\n" PORT_P0, 4,
		     "burst: expected a whole number from 1 to 256");
}

static void
test_negative_number_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "rxd = -512\n", 6,
		     "rxd: expected a whole number from 32 to 16384");
}

static void
test_number_beyond_32_bits_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nage = 4294967297\n", 7,
		     "age: expected a whole number from 0 to 1000000");
}

static void
test_udp_port_zero_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "udp_port = 0\n" PORT_P0, 4,
		     "udp_port: expected a whole number from 1 to 65535");
}

static void
test_bad_boolean_is_an_error_showing_on_or_off(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[l2]\nlearning = maybe\n", 7,
		     "learning: expected on or off, found 'maybe'");
}

static void
test_switch_name_longer_than_31_is_an_error(void **state)
{
	(void)state;
	expect_error(SWITCH "name = n2345678901234567890123456789012\n"
		     PORT_P0, 4, "name: longer than 31 characters");
}

static void
test_key_given_twice_is_an_error_at_the_second(void **state)
{
	(void)state;
	expect_error(SWITCH "burst = 16\n\nburst = 32\n" PORT_P0, 6,
		     "'burst' given twice in [switch]");
}

static void
test_ring_size_given_twice_is_an_error_at_the_second(void **state)
{
	(void)state;
	expect_error(SWITCH "ring_size = 512\nring_size = 2048\n" PORT_P0, 5,
		     "'ring_size' given twice in [switch]");
}

static void
test_mac_given_twice_is_an_error_at_the_second(void **state)
{
	(void)state;
	expect_error(SWITCH "mac = 02:ac:15:00:00:02\n" PORT_P0, 4,
		     "'mac' given twice in [switch]");
}

static void
test_dev_given_twice_is_an_error_naming_the_port(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "dev = net_null1\n", 6,
		     "'dev' given twice in [port p0]");
}

static void
test_role_given_twice_is_an_error_naming_the_lcore(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lcore 1]\nrole = rx\nrx = p0\n"
		     "role = worker\n", 9, "'role' given twice in [lcore 1]");
}

/* --- [lookaside NAME] ------------------------------------------------------ */

#define LA(body) SWITCH PORT_P0 "[lookaside h]\n" body

static void
test_lookaside_udp_rule_gets_its_fields_and_defaults(void **state)
{
	(void)state;
	load_ok(LA("match = udp_port 48000\nvpe = 4\nbudget = 1000\n"));
	assert_int_equal(pl.n_lookaside, 1);
	assert_string_equal(pl.lookaside[0].name, "h");
	assert_int_equal(pl.lookaside[0].match, ACIS_LA_MATCH_UDP);
	assert_int_equal(pl.lookaside[0].udp_port, 48000);
	assert_int_equal(pl.lookaside[0].action, ACIS_LA_RETURN);
	assert_int_equal(pl.lookaside[0].passthrough_when_stopped, 0);
	assert_int_equal(pl.lookaside[0].vpe, 4);
	assert_int_equal(pl.lookaside[0].budget, 1000);
	assert_int_equal(pl.lookaside[0].worker, 0);
	assert_string_equal(pl.lookaside[0].program, "");
}

static void
test_lookaside_paths_are_relative_to_the_pipeline_file(void **state)
{
	(void)state;
	struct acis_conf *c;

	c = acis_conf_parse("dir/sub/p.ini", LA("match = acis_handler 3\n"
		"program = ../prog.s\nmemory = 2 0x100 /abs/data.bin\n"
		"memory = 1 0 rel.bin\nwhen_stopped = passthrough\n"), err);
	assert_non_null(c);
	assert_int_equal(acis_pipeline_from_conf(c, 0, &pl, err), 0);
	acis_conf_free(c);
	assert_int_equal(pl.lookaside[0].match, ACIS_LA_MATCH_ACIS);
	assert_int_equal(pl.lookaside[0].handler, 3);
	assert_string_equal(pl.lookaside[0].program, "dir/sub/../prog.s");
	assert_int_equal(pl.lookaside[0].n_mem, 2);
	assert_int_equal(pl.lookaside[0].mem[0].bank, 2);
	assert_int_equal(pl.lookaside[0].mem[0].off, 0x100);
	assert_string_equal(pl.lookaside[0].mem[0].path, "/abs/data.bin");
	assert_string_equal(pl.lookaside[0].mem[1].path, "dir/sub/rel.bin");
	assert_int_equal(pl.lookaside[0].passthrough_when_stopped, 1);
}

static void
test_lookaside_errors_name_line_and_form(void **state)
{
	(void)state;
	expect_error(SWITCH PORT_P0 "[lookaside]\nmatch = udp_port 1\n", 6,
		     "expected '[lookaside NAME]'");
	expect_error(LA("action = return\n"), 6, "needs 'match = udp_port N', "
		     "'match = acis_handler N', 'match = acis_type T [opcode O]' "
		     "or 'match = dst_ip A.B.C.D'");
	expect_error(LA("match = tcp_port 80\n"), 7, "match: expected "
		     "'udp_port N' (1..65535), 'acis_handler N' (1..255), "
		     "'acis_type T [opcode O]' or 'dst_ip A.B.C.D'");
	expect_error(LA("match = acis_handler 256\n"), 7, "acis_handler N' "
		     "(1..255)");
	expect_error(LA("match = acis_type 1 opcode 300\n"), 7,
		     "match: expected");
	expect_error(LA("match = dst_ip 10.0.0.1\n"), 7, "dst_ip is the "
		     "switch's own address");
	expect_error(LA("match = udp_port 9\njob = 3\n"), 8, "job: only with "
		     "ACiS matches");
	load_ok(LA("match = acis_type 1 opcode 0x11\njob = 12\n"));
	assert_int_equal(pl.lookaside[0].match, ACIS_LA_MATCH_ACIS);
	assert_int_equal(pl.lookaside[0].acis_type, 1);
	assert_int_equal(pl.lookaside[0].handler, 0x11);
	assert_int_equal(pl.lookaside[0].opcode_any, 0);
	assert_int_equal(pl.lookaside[0].has_job, 1);
	assert_int_equal(pl.lookaside[0].job, 12);
	load_ok(LA("match = acis_type 1\n"));
	assert_int_equal(pl.lookaside[0].opcode_any, 1);
	assert_int_equal(pl.lookaside[0].has_job, 0);
	load_ok(LA("match = dst_ip 10.0.0.9\naction = forward\n"));
	assert_int_equal(pl.lookaside[0].match, ACIS_LA_MATCH_DST);
	assert_int_equal(pl.lookaside[0].dst_ip, htonl(0x0a000009));
	expect_error(LA("match = udp_port 47000\n"), 7, "is the ACiS port of "
		     "[switch]");
	expect_error(LA("match = acis_handler 1\naction = forward\n"), 8,
		     "can only return to the sender");
	expect_error(LA("match = udp_port 9\naction = bounce\n"), 8,
		     "action: expected return or forward");
	expect_error(LA("match = udp_port 9\nwhen_stopped = hold\n"), 8,
		     "when_stopped: expected drop or passthrough");
	expect_error(LA("match = udp_port 9\nvpe = 32\n"), 8,
		     "vpe: expected a whole number from 1 to 31");
	expect_error(LA("match = udp_port 9\nvrf_regs = 100\n"), 8,
		     "vrf_regs: expected a power of two");
	expect_error(LA("match = udp_port 9\nmemory = 0 0 f.bin\n"), 8,
		     "memory: expected 'memory = BANK OFFSET FILE'");
	expect_error(LA("match = udp_port 9\nmemory = 1 0\n"), 8,
		     "memory: expected 'memory = BANK OFFSET FILE'");
	/* a word longer than the parser reads is refused, not split */
	expect_error(LA("match = udp_port 9\nmemory = "
			"00000000000000000000000000000015 f.bin\n"), 8,
		     "memory: expected 'memory = BANK OFFSET FILE'");
	{
		/* a path too long is refused, as program's is, not cut */
		char text[1024];

		snprintf(text, sizeof(text), "%s/%0300d\n",
			 LA("match = udp_port 9\nmemory = 1 0 "), 7);
		expect_error(text, 8, "memory: path longer than 255");
	}
	expect_error(LA("match = udp_port 9\nworker = 1\n"), 8,
		     "worker: 1, but the pipeline has 1 worker lcore");
	expect_error(LA("match = udp_port 9\nprogramme = x.s\n"), 8,
		     "unknown key 'programme' in [lookaside h]");
	expect_error(LA("match = udp_port 9\nfpga = px\n"), 8,
		     "fpga: unknown port 'px'");
	expect_error(LA("match = udp_port 9\naction = forward\nfpga = p0\n"),
		     9, "fpga: the attached FPGA returns results by their "
		     "headers");
	expect_error(LA("match = udp_port 9\nfallback = local\n"), 8,
		     "fallback: only with fpga = PORT");
	expect_error(LA("match = udp_port 9\nfpga = p0\nfallback = retry\n"),
		     9, "fallback: expected drop or local");
	expect_error(LA("match = udp_port 9\nframing = link\n"), 8,
		     "framing: only with fpga = PORT");
	expect_error(LA("match = udp_port 9\nfpga = p0\nframing = raw\n"), 9,
		     "framing: expected udp (frames as received) or link");
	expect_error(LA("match = udp_port 9\nfpga = p0\nlink_src = 70000\n"),
		     9, "link_src: expected a whole number from 0 to 65535");
	expect_error(LA("match = udp_port 9\nfpga = p0\nfpga_mac = 1:2\n"), 9,
		     "fpga_mac: expected a MAC");
	load_ok(LA("match = udp_port 9\nfpga = p0\nframing = link\n"
		   "link_src = 0x0102\n"));
	assert_int_equal(pl.lookaside[0].fpga_link, 1);
	assert_int_equal(pl.lookaside[0].link_src, 0x0102);
	assert_int_equal(pl.lookaside[0].link_dst, 0x0200);
	load_ok(LA("match = udp_port 9\nfpga = p0\nfallback = local\n"
		   "timeout_us = 500\n"));
	assert_int_equal(pl.lookaside[0].fpga_port, 0);
	assert_int_equal(pl.lookaside[0].fpga_fallback_local, 1);
	assert_int_equal(pl.lookaside[0].fpga_timeout_us, 500);
	expect_error(LA("match = udp_port 9\n") "[lookaside h]\n"
		     "match = udp_port 10\n", 8, "duplicate [lookaside h]");
	expect_error(LA("match = udp_port 9\n") "[lookaside g]\n"
		     "match = udp_port 9\n", 9, "match: 'udp_port 9' already "
		     "selected by [lookaside h] at line 6");
}

static void
test_fault_and_control_sections(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0 "[port p1]\ndev = net_null1\n[fault p1]\n"
		"drop = 0.05\nduplicate = 0.01\nreorder = 0.2\n"
		"reorder_window = 8\ncorrupt = 0\ndelay_us = 100\nseed = 42\n"
		"[collective]\ncontrol_from = 10.0.0.0/8 192.168.1.7\n"
		"control_ports = p1\n");
	assert_int_equal(pl.ports[0].fault.enabled, 0);
	assert_int_equal(pl.ports[1].fault.enabled, 1);
	assert_true(pl.ports[1].fault.drop == 0.05);
	assert_true(pl.ports[1].fault.reorder == 0.2);
	assert_int_equal(pl.ports[1].fault.reorder_window, 8);
	assert_int_equal(pl.ports[1].fault.delay_us, 100);
	assert_int_equal(pl.ports[1].fault.seed, 42);
	assert_int_equal(pl.n_ctrl_nets, 2);
	assert_int_equal(pl.ctrl_nets[0].mask, htonl(0xff000000u));
	assert_int_equal(pl.ctrl_nets[1].mask, 0xffffffffu);
	assert_int_equal(pl.ctrl_ports, 2);
	load_ok(SWITCH PORT_P0 "rx_checksum = off\n");
	assert_int_equal(pl.ports[0].rx_checksum, 0);
	assert_int_equal(pl.ports[0].flood, 1);
	load_ok(SWITCH PORT_P0 "flood = off\n");
	assert_int_equal(pl.ports[0].flood, 0);
	expect_error(SWITCH PORT_P0 "flood = blocked\n", 6,
		     "flood: expected on or off, found 'blocked'");
	/* a fabric link's peer, and folding in the tree */
	assert_int_equal(pl.ports[0].has_peer, 0);
	assert_int_equal(pl.fold, 1);
	load_ok(SWITCH PORT_P0 "peer = 10.77.0.202 02:ac:15:01:00:02\n"
		"[collective]\nfold = off\n");
	assert_int_equal(pl.ports[0].has_peer, 1);
	assert_int_equal(pl.ports[0].peer_ip, htonl(0x0a4d00ca));
	assert_int_equal(pl.ports[0].peer_mac[5], 2);
	assert_int_equal(pl.fold, 0);
	expect_error(SWITCH PORT_P0 "peer = 10.77.0.202\n", 6,
		     "peer: expected the switch at the link's other end as "
		     "'a.b.c.d xx:xx:xx:xx:xx:xx', found '10.77.0.202'");
	expect_error(SWITCH PORT_P0 "peer = 10.77.0.202 03:00:00:00:00:01\n",
		     6, "peer: expected the switch at the link's other end as "
		     "'a.b.c.d xx:xx:xx:xx:xx:xx', found '10.77.0.202 "
		     "03:00:00:00:00:01'");
	expect_error(SWITCH PORT_P0 "[collective]\nfold = maybe\n", 7,
		     "fold: expected on or off, found 'maybe'");
	expect_error(SWITCH PORT_P0 "rx_checksum = hw\n", 6,
		     "rx_checksum: expected on or off, found 'hw'");
	load_ok(SWITCH "[port x]\ndev = net_af_xdp0,iface=eth1\nxdp_steer = on\n");
	assert_int_equal(pl.ports[0].xdp_steer, 1);
	expect_error(SWITCH PORT_P0 "xdp_steer = on\n", 6,
		     "xdp_steer: only for AF_XDP ports (dev = "
		     "net_af_xdpN,iface=IFNAME), found dev = 'net_null0'");
	expect_error(SWITCH PORT_P0 "[fault p9]\ndrop = 0.1\n", 6,
		     "expected '[fault PORT]' naming a declared port");
	expect_error(SWITCH PORT_P0 "[fault p0]\ndrop = 1.5\n", 7,
		     "drop: expected a probability from 0 to 1 (e.g. 0.01), "
		     "found '1.5'");
	expect_error(SWITCH PORT_P0 "[fault p0]\nloss = 0.1\n", 7,
		     "unknown key 'loss' in [fault p0]");
	expect_error(SWITCH PORT_P0 "[fault p0]\n[fault p0]\n", 7,
		     "duplicate [fault p0] (first at line 6)");
	expect_error(SWITCH PORT_P0 "[collective]\ncontrol_from = 10.0.0/33\n",
		     7, "control_from: expected IPv4 addresses or prefixes");
	expect_error(SWITCH PORT_P0 "[collective]\ncontrol_from = "
		     "10.0.0.0/33\n", 7, "found '10.0.0.0/33'");
	{
		/* 32 full-length prefixes, the most allowed: none cut */
		char text[2048];
		int i, n = snprintf(text, sizeof(text), "%s",
				    SWITCH PORT_P0 "[collective]\n"
				    "control_from = ");

		for (i = 0; i < 32; i++)
			n += snprintf(text + n, sizeof(text) - (size_t)n,
				      "%s192.168.100.%d/32", i ? ", " : "",
				      100 + i);
		snprintf(text + n, sizeof(text) - (size_t)n, "\n");
		load_ok(text);
		assert_int_equal(pl.n_ctrl_nets, 32);
		assert_int_equal(pl.ctrl_nets[31].mask, 0xffffffffu);
		assert_int_equal(pl.ctrl_nets[31].addr,
				 htonl(0xc0a86483u)); /* 192.168.100.131 */
		/* a list too long to hold is refused, never cut */
		memset(text, ' ', 900);
		memcpy(text, SWITCH PORT_P0 "[collective]\ncontrol_from = "
		       "10.0.0.1", strlen(SWITCH PORT_P0 "[collective]\n"
					  "control_from = 10.0.0.1"));
		memcpy(text + 890, ",10.0.0.2\n", 11);
		expect_error(text, 7, "control_from: a list of");
	}
	expect_error(SWITCH PORT_P0 "[collective]\ncontrol_ports = p0 px\n",
		     7, "control_ports: unknown port 'px'");
	expect_error(SWITCH PORT_P0 "[collective]\ncontrol_ports = p0,p0\n",
		     7, "control_ports: port 'p0' listed twice");
	expect_error(SWITCH PORT_P0 "[fault p0]\nreorder_window = 1.5\n", 7,
		     "reorder_window: expected a whole number from 1 to 64, "
		     "found '1.5'");
	expect_error(SWITCH PORT_P0 "[fault p0]\ndrop = 0.1\ndrop = 0.2\n", 8,
		     "'drop' given twice in [fault p0]");
}

/* Shaping keys in [fault PORT]: a line rate, a delay and jitter in
 * microseconds with fractions (a modelled link's 177 ns +- 12.4 ns), a
 * queue bound; their defaults when not given. */
static void
test_fault_shaping_keys_take_rates_and_fractional_microseconds(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0 "[fault p0]\nrate_mbps = 100000\n"
		"delay_us = 0.177\njitter_us = 0.0124\nqueue = 64\n");
	assert_int_equal(pl.ports[0].fault.enabled, 1);
	assert_int_equal(pl.ports[0].fault.rate_kbps, 100000000);
	assert_true(pl.ports[0].fault.delay_us == 0.177);
	assert_true(pl.ports[0].fault.jitter_us == 0.0124);
	assert_int_equal(pl.ports[0].fault.queue, 64);
	/* the bounds themselves, and whole microseconds as before */
	load_ok(SWITCH PORT_P0 "[fault p0]\nrate_mbps = 400000\n"
		"delay_us = 1000000\njitter_us = 0\nqueue = 1\n");
	assert_int_equal(pl.ports[0].fault.rate_kbps,
			 ACIS_FAULT_RATE_MAX * 1000u);
	assert_true(pl.ports[0].fault.delay_us == 1000000.0);
	assert_int_equal(pl.ports[0].fault.queue, 1);
	/* none given: unlimited, no delay, the largest queue */
	load_ok(SWITCH PORT_P0 "[fault p0]\ndrop = 0.5\n");
	assert_int_equal(pl.ports[0].fault.rate_kbps, 0);
	assert_true(pl.ports[0].fault.delay_us == 0.0);
	assert_true(pl.ports[0].fault.jitter_us == 0.0);
	assert_int_equal(pl.ports[0].fault.queue, ACIS_FAULT_QUEUE_MAX);
	assert_int_equal(pl.ports[0].fault.reorder_window, 4);
	assert_int_equal(pl.ports[0].fault.seed, 1);
}

/* Each bad shaping value is refused naming the key, the form it takes
 * and what was found. */
static void
test_fault_shaping_keys_refuse_bad_values_naming_the_form(void **state)
{
	static const struct {
		const char *text, *hint;
	} bad[] = {
		{"rate_mbps = 400001", "rate_mbps: expected a whole number "
		 "from 0 to 400000 (rate_kbps for finer rates), found "
		 "'400001'"},
		{"rate_mbps = -1", "rate_mbps: expected a whole number from 0 "
		 "to 400000 (rate_kbps for finer rates), found '-1'"},
		{"rate_kbps = 1.5", "rate_kbps: expected a whole number from 0 "
		 "to 400000000, found '1.5'"},
		{"rate_mbps = fast", "found 'fast'"},
		{"rate_mbps = 2.5", "found '2.5'"},
		{"delay_us = -1", "delay_us: expected microseconds from 0 to "
		 "1000000 (e.g. 200 or 0.175), found '-1'"},
		{"delay_us = abc", "delay_us: expected microseconds"},
		{"delay_us = 1000000.5", "found '1000000.5'"},
		{"delay_us = 5us", "found '5us'"},
		{"delay_us = nan", "found 'nan'"},
		{"delay_us = inf", "found 'inf'"},
		{"delay_us = .", "found '.'"},
		{"jitter_us = -0.0124", "jitter_us: expected microseconds from 0 "
		 "to 1000000 (e.g. 200 or 0.175), found '-0.0124'"},
		{"jitter_us = x", "jitter_us: expected microseconds"},
		{"queue = 0", "queue: expected a whole number from 1 to 1024, "
		 "found '0'"},
		{"queue = 1025", "found '1025'"},
		{"queue = -3", "queue: expected a whole number"},
	};
	char text[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s[fault p0]\n%s\n",
			 SWITCH PORT_P0, bad[i].text);
		expect_error(text, 7, bad[i].hint);
	}
}

/* acis_fault_cfg_set, as acisctl fault-set uses it: the new keys and the
 * old ones alike, a refusal leaving the setting as it was. */
static void
test_fault_cfg_set_takes_every_key_and_keeps_a_refused_one(void **state)
{
	struct acis_fault_cfg f;
	char e[256];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(acis_fault_cfg_set(&f, "rate_mbps", "25000", e,
					    sizeof(e)), 0);
	assert_int_equal(acis_fault_cfg_set(&f, "delay_us", "0.177", e,
					    sizeof(e)), 0);
	assert_int_equal(acis_fault_cfg_set(&f, "jitter_us", "0.0124", e,
					    sizeof(e)), 0);
	assert_int_equal(acis_fault_cfg_set(&f, "queue", "128", e,
					    sizeof(e)), 0);
	assert_int_equal(f.rate_kbps, 25000000);
	assert_true(f.delay_us == 0.177);
	assert_true(f.jitter_us == 0.0124);
	assert_int_equal(f.queue, 128);
	/* the existing keys still work */
	assert_int_equal(acis_fault_cfg_set(&f, "delay_us", "200", e,
					    sizeof(e)), 0);
	assert_true(f.delay_us == 200.0);
	assert_int_equal(acis_fault_cfg_set(&f, "drop", "0.25", e,
					    sizeof(e)), 0);
	assert_true(f.drop == 0.25);
	assert_int_equal(acis_fault_cfg_set(&f, "reorder_window", "9", e,
					    sizeof(e)), 0);
	assert_int_equal(f.reorder_window, 9);
	assert_int_equal(acis_fault_cfg_set(&f, "seed", "77", e,
					    sizeof(e)), 0);
	assert_int_equal(f.seed, 77);
	/* refused: the value stays */
	assert_int_equal(acis_fault_cfg_set(&f, "rate_mbps", "500000", e,
					    sizeof(e)), -EINVAL);
	assert_string_equal(e, "rate_mbps: expected a whole number from 0 "
			    "to 400000 (rate_kbps for finer rates), found "
			    "'500000'");
	/* finer: kbit/s, for slow or dilated links (doc/fidelity.md) */
	assert_int_equal(acis_fault_cfg_set(&f, "rate_kbps", "1565", e,
					    sizeof(e)), 0);
	assert_int_equal(f.rate_kbps, 1565);
	assert_int_equal(acis_fault_cfg_set(&f, "rate_kbps", "400000001", e,
					    sizeof(e)), -EINVAL);
	assert_int_equal(acis_fault_cfg_set(&f, "rate_mbps", "25000", e,
					    sizeof(e)), 0);
	assert_int_equal(f.rate_kbps, 25000000);
	assert_int_equal(acis_fault_cfg_set(&f, "jitter_us", "-1", e,
					    sizeof(e)), -EINVAL);
	assert_true(f.jitter_us == 0.0124);
	assert_int_equal(acis_fault_cfg_set(&f, "queue", "2000", e,
					    sizeof(e)), -EINVAL);
	assert_int_equal(f.queue, 128);
	assert_int_equal(acis_fault_cfg_set(&f, "rate", "10", e, sizeof(e)),
			 -ENOENT);
	assert_non_null(strstr(e, "unknown fault key 'rate'"));
	assert_non_null(strstr(e, "rate_mbps"));
}

/* The [collective] keys of jobs, joins and fair share: their defaults
 * (doc/pipelines.md), values read, and ranges refused naming the key. */
static void
test_collective_job_keys(void **state)
{
	(void)state;
	load_ok(SWITCH PORT_P0);
	assert_int_equal(pl.max_jobs_per_host, 16);
	assert_int_equal(pl.join_timeout_ms, 60000);
	assert_int_equal(pl.fair_share, 1);
	assert_int_equal(pl.deadline_ms, 5000);
	load_ok(SWITCH PORT_P0 "[collective]\nmax_jobs_per_host = 0\n"
		"join_timeout_ms = 100\nfair_share = off\n");
	assert_int_equal(pl.max_jobs_per_host, 0); /* any number */
	assert_int_equal(pl.join_timeout_ms, 100);
	assert_int_equal(pl.fair_share, 0);
	load_ok(SWITCH PORT_P0 "[collective]\nmax_jobs_per_host = 65536\n"
		"join_timeout_ms = 3600000\nfair_share = on\n");
	assert_int_equal(pl.max_jobs_per_host, 65536);
	assert_int_equal(pl.join_timeout_ms, 3600000);
	assert_int_equal(pl.fair_share, 1);
	expect_error(SWITCH PORT_P0 "[collective]\nmax_jobs_per_host = 65537\n",
		     7, "max_jobs_per_host: expected a whole number from 0 to "
		     "65536");
	expect_error(SWITCH PORT_P0 "[collective]\njoin_timeout_ms = 99\n", 7,
		     "join_timeout_ms: expected a whole number from 100 to "
		     "3600000");
	expect_error(SWITCH PORT_P0 "[collective]\nfair_share = equal\n", 7,
		     "fair_share: expected on or off, found 'equal'");
	assert_int_equal(pl.auth_required, 0);
	load_ok(SWITCH PORT_P0 "[collective]\nauth = required\n");
	assert_int_equal(pl.auth_required, 1);
	load_ok(SWITCH PORT_P0 "[collective]\nauth = optional\n");
	assert_int_equal(pl.auth_required, 0);
	expect_error(SWITCH PORT_P0 "[collective]\nauth = on\n", 7,
		     "auth: expected optional (a rank that joins with a cookie "
		     "is held to it) or required (every rank must join with "
		     "one), found 'on'");
	assert_int_equal(pl.n_weights, 0);
	load_ok(SWITCH PORT_P0 "[collective]\nweights = 7:3, 4294967295:65535 9:1\n");
	assert_int_equal(pl.n_weights, 3);
	assert_int_equal(pl.weights[0].job, 7);
	assert_int_equal(pl.weights[0].weight, 3);
	assert_int_equal(pl.weights[1].job, 4294967295u);
	assert_int_equal(pl.weights[1].weight, 65535);
	assert_int_equal(pl.weights[2].job, 9);
	expect_error(SWITCH PORT_P0 "[collective]\nweights = 7:0\n", 7,
		     "weights: expected JOB:WEIGHT (a job id, a weight from 1 "
		     "to 65535), found '7:0'");
	expect_error(SWITCH PORT_P0 "[collective]\nweights = 7\n", 7,
		     "weights: expected JOB:WEIGHT (a job id, a weight from 1 "
		     "to 65535), found '7'");
	expect_error(SWITCH PORT_P0 "[collective]\nweights = 7:2 7:3\n", 7,
		     "weights: job 7 listed twice");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_file_gets_documented_switch_defaults),
		cmocka_unit_test(test_emulated_fpga_files_are_relative_to_the_pipeline_file),
		cmocka_unit_test(test_ring_pair_ends_are_checked),
		cmocka_unit_test(test_torus_section),
		cmocka_unit_test(test_reliable_port_keys),
		cmocka_unit_test(test_minimal_file_gets_documented_l2_defaults),
		cmocka_unit_test(test_minimal_file_gets_documented_port_defaults),
		cmocka_unit_test(test_file_without_lcores_gets_one_lcore_polling_every_port),
		cmocka_unit_test(test_default_lcore_polls_all_32_ports),
		cmocka_unit_test(test_full_file_reads_every_switch_setting),
		cmocka_unit_test(test_full_file_reads_every_l2_setting),
		cmocka_unit_test(test_full_file_reads_statics_naming_ports_declared_later),
		cmocka_unit_test(test_full_file_reads_every_port_setting),
		cmocka_unit_test(test_full_file_reads_lcores_with_roles_and_rx_lists),
		cmocka_unit_test(test_full_file_counts_workers_and_rx_queues_per_port),
		cmocka_unit_test(test_port_index_finds_ports_by_name),
		cmocka_unit_test(test_lcore_without_role_polls_and_works),
		cmocka_unit_test(test_role_words_may_come_in_any_order),
		cmocka_unit_test(test_rx_list_accepts_commas_and_spaces),
		cmocka_unit_test(test_booleans_accept_on_off_yes_no_true_false_1_0),
		cmocka_unit_test(test_devices_differing_only_in_prefix_length_are_distinct),
		cmocka_unit_test(test_numbers_accept_the_edges_of_their_range),
		cmocka_unit_test(test_numbers_with_a_leading_zero_are_decimal),
		cmocka_unit_test(test_load_reads_a_file_from_disk),
		cmocka_unit_test(test_load_of_missing_file_names_the_path),
		cmocka_unit_test(test_missing_switch_section_is_an_error_for_the_file),
		cmocka_unit_test(test_missing_mac_is_an_error_at_the_switch_header),
		cmocka_unit_test(test_malformed_mac_is_an_error_at_its_line),
		cmocka_unit_test(test_multicast_mac_is_an_error_at_its_line),
		cmocka_unit_test(test_missing_ip_is_an_error_at_the_switch_header),
		cmocka_unit_test(test_malformed_ip_is_an_error_at_its_line),
		cmocka_unit_test(test_zero_ip_is_an_error_at_its_line),
		cmocka_unit_test(test_unknown_switch_key_is_an_error_listing_expected_keys),
		cmocka_unit_test(test_unknown_port_key_is_an_error_listing_expected_keys),
		cmocka_unit_test(test_unknown_lcore_key_is_an_error_listing_expected_keys),
		cmocka_unit_test(test_unknown_l2_key_is_an_error_listing_expected_keys),
		cmocka_unit_test(test_key_that_is_part_of_a_known_key_is_unknown),
		cmocka_unit_test(test_unknown_section_type_is_an_error_at_its_header),
		cmocka_unit_test(test_duplicate_switch_section_names_the_first),
		cmocka_unit_test(test_switch_section_with_a_name_is_an_error),
		cmocka_unit_test(test_duplicate_l2_section_names_the_first),
		cmocka_unit_test(test_duplicate_port_names_the_first),
		cmocka_unit_test(test_duplicate_device_names_the_port_using_it),
		cmocka_unit_test(test_port_without_dev_is_an_error_at_its_header),
		cmocka_unit_test(test_port_without_name_is_an_error_at_its_header),
		cmocka_unit_test(test_port_name_longer_than_31_is_an_error),
		cmocka_unit_test(test_more_than_32_ports_is_an_error_at_the_33rd),
		cmocka_unit_test(test_no_ports_is_an_error_for_the_file),
		cmocka_unit_test(test_duplicate_lcore_names_the_first),
		cmocka_unit_test(test_lcore_without_a_number_is_an_error),
		cmocka_unit_test(test_lcore_number_above_127_is_an_error),
		cmocka_unit_test(test_lcore_rx_naming_an_unknown_port_is_an_error),
		cmocka_unit_test(test_lcore_rx_naming_a_port_twice_is_an_error),
		cmocka_unit_test(test_rx_list_on_a_worker_only_lcore_is_an_error),
		cmocka_unit_test(test_rx_role_without_ports_is_an_error_at_the_lcore),
		cmocka_unit_test(test_lcore_with_default_roles_and_no_rx_list_is_an_error),
		cmocka_unit_test(test_unknown_role_word_is_an_error_naming_it),
		cmocka_unit_test(test_no_worker_lcore_is_an_error_at_the_first_lcore),
		cmocka_unit_test(test_static_naming_an_unknown_port_is_an_error),
		cmocka_unit_test(test_duplicate_static_mac_names_the_first_line),
		cmocka_unit_test(test_static_without_port_is_an_error_showing_the_form),
		cmocka_unit_test(test_static_with_extra_words_is_an_error_showing_the_form),
		cmocka_unit_test(test_static_with_multicast_mac_is_an_error),
		cmocka_unit_test(test_ring_size_not_a_power_of_two_is_an_error),
		cmocka_unit_test(test_ring_size_out_of_range_is_an_error),
		cmocka_unit_test(test_burst_of_zero_is_an_error),
		cmocka_unit_test(test_burst_above_256_is_an_error),
		cmocka_unit_test(test_burst_with_trailing_text_is_an_error),
		cmocka_unit_test(test_negative_number_is_an_error),
		cmocka_unit_test(test_number_beyond_32_bits_is_an_error),
		cmocka_unit_test(test_udp_port_zero_is_an_error),
		cmocka_unit_test(test_bad_boolean_is_an_error_showing_on_or_off),
		cmocka_unit_test(test_switch_name_longer_than_31_is_an_error),
		cmocka_unit_test(test_key_given_twice_is_an_error_at_the_second),
		cmocka_unit_test(test_ring_size_given_twice_is_an_error_at_the_second),
		cmocka_unit_test(test_mac_given_twice_is_an_error_at_the_second),
		cmocka_unit_test(test_dev_given_twice_is_an_error_naming_the_port),
		cmocka_unit_test(test_role_given_twice_is_an_error_naming_the_lcore),
		cmocka_unit_test(test_lookaside_udp_rule_gets_its_fields_and_defaults),
		cmocka_unit_test(test_lookaside_paths_are_relative_to_the_pipeline_file),
		cmocka_unit_test(test_lookaside_errors_name_line_and_form),
		cmocka_unit_test(test_fault_and_control_sections),
		cmocka_unit_test(test_fault_shaping_keys_take_rates_and_fractional_microseconds),
		cmocka_unit_test(test_fault_shaping_keys_refuse_bad_values_naming_the_form),
		cmocka_unit_test(test_fault_cfg_set_takes_every_key_and_keeps_a_refused_one),
		cmocka_unit_test(test_collective_job_keys),
	};

	return cmocka_run_group_tests_name("pipeline", tests, NULL, NULL);
}
