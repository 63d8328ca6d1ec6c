/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The XDP steering program of the attached-FPGA work (bpf/acis_steer.bpf.o)
 * run by the kernel on frames built here (BPF_PROG_TEST_RUN), with its
 * configuration map written as lib/xdp writes it. With no AF_XDP socket in
 * xsks_map, a frame the program sends to the switch falls back to the
 * kernel and is counted in no_socket; a frame it leaves to the kernel is
 * counted in kernel: the counters tell the two decisions apart.
 *
 * Needs root (loading BPF programs); skipped otherwise.
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "acis_steer.h"
#include "frames.h"

#ifndef ACIS_STEER_OBJ
#error "ACIS_STEER_OBJ must name the built acis_steer.bpf.o"
#endif

static struct bpf_object *obj;
static int prog_fd = -1, cfg_fd = -1, cnt_fd = -1;
static int ncpu;

static const uint8_t SW_MAC[6] = {0x02, 0xac, 0x15, 0x00, 0x00, 0x01};

enum verdict { KERNEL, SWITCH };

static uint64_t
counter(uint32_t slot)
{
	uint64_t v[512], sum = 0;
	int c;

	assert_true(ncpu <= 512);
	assert_int_equal(bpf_map_lookup_elem(cnt_fd, &slot, v), 0);
	for (c = 0; c < ncpu; c++)
		sum += v[c];
	return sum;
}

/* Run the program on a frame; which way did it go? */
static enum verdict
run(const uint8_t *f, unsigned int len)
{
	uint8_t out[2048];
	uint64_t k0 = counter(ACIS_STEER_CNT_KERNEL);
	uint64_t s0 = counter(ACIS_STEER_CNT_NO_SOCKET);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out),
		    .repeat = 1);
	int k, s;

	assert_int_equal(bpf_prog_test_run_opts(prog_fd, &o), 0);
	assert_int_equal(o.retval, XDP_PASS);
	k = (int)(counter(ACIS_STEER_CNT_KERNEL) - k0);
	s = (int)(counter(ACIS_STEER_CNT_NO_SOCKET) - s0);
	assert_int_equal(k + s, 1);
	return s ? SWITCH : KERNEL;
}

static void
configure(uint16_t port, const char *ip, int with_mac)
{
	struct acis_steer_config c;
	uint32_t key = 0;

	memset(&c, 0, sizeof(c));
	c.flags = ACIS_STEER_F_CONFIGURED;
	c.udp_port = htons(port);
	if (ip != NULL) {
		c.flags |= ACIS_STEER_F_IPV4;
		inet_pton(AF_INET, ip, &c.ipv4);
	}
	if (with_mac) {
		c.flags |= ACIS_STEER_F_MAC;
		memcpy(c.mac, SW_MAC, 6);
	}
	assert_int_equal(bpf_map_update_elem(cfg_fd, &key, &c, BPF_ANY), 0);
}

static void
unconfigure(void)
{
	struct acis_steer_config c;
	uint32_t key = 0;

	memset(&c, 0, sizeof(c));
	assert_int_equal(bpf_map_update_elem(cfg_fd, &key, &c, BPF_ANY), 0);
}

static struct tf_addr
host(const char *ip, uint8_t last)
{
	struct tf_addr a = {.mac = {0x02, 0, 0, 0, 0, last}};

	inet_pton(AF_INET, ip, &a.ip);
	return a;
}

static unsigned int
udp_to(uint8_t *f, const char *dst_ip, const uint8_t *dst_mac,
       uint16_t dport, int vlan)
{
	struct tf_addr d = host(dst_ip, 2), s = host("10.0.0.9", 9);
	uint8_t pl[16] = {0};

	if (dst_mac != NULL)
		memcpy(d.mac, dst_mac, 6);
	return tf_udp(f, &d, &s, 1234, dport, pl, sizeof(pl), vlan);
}

static unsigned int
arp_for(uint8_t *f, const char *target)
{
	struct tf_addr s = host("10.0.0.9", 9);
	uint32_t t;

	inet_pton(AF_INET, target, &t);
	return tf_arp_request(f, &s, t);
}

/* ---- tests ---- */

static void
test_unconfigured_only_udp_47000_goes_to_the_switch(void **state)
{
	uint8_t f[256];

	(void)state;
	unconfigure();
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 47000, -1)),
			 SWITCH);
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 47001, -1)),
			 KERNEL);
	assert_int_equal(run(f, arp_for(f, "10.0.0.1")), KERNEL);
	assert_int_equal(run(f, udp_to(f, "10.0.0.1", SW_MAC, 22, -1)),
			 KERNEL);
}

static void
test_the_configured_port_replaces_the_default(void **state)
{
	uint8_t f[256];

	(void)state;
	configure(5000, NULL, 0);
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 5000, -1)),
			 SWITCH);
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 47000, -1)),
			 KERNEL);
}

static void
test_udp_is_found_behind_one_or_two_vlan_tags(void **state)
{
	uint8_t f[256], g[260];
	unsigned int len;

	(void)state;
	configure(5000, NULL, 0);
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 5000, 100)),
			 SWITCH);
	/* QinQ: an 802.1ad tag ahead of the 802.1Q one */
	len = udp_to(f, "10.0.0.2", NULL, 5000, 100);
	memcpy(g, f, 12);
	g[12] = 0x88;
	g[13] = 0xa8;
	g[14] = 0x00;
	g[15] = 0x07;
	memcpy(g + 16, f + 12, len - 12);
	assert_int_equal(run(g, len + 4), SWITCH);
	/* a third tag is not looked through */
	memmove(g + 16, g + 12, len - 8);
	g[12] = 0x81;
	g[13] = 0x00;
	g[14] = 0x00;
	g[15] = 0x08;
	assert_int_equal(run(g, len + 8), KERNEL);
}

static void
test_only_first_fragments_match_the_port(void **state)
{
	uint8_t f[256];
	unsigned int len;

	(void)state;
	configure(5000, NULL, 0);
	len = udp_to(f, "10.0.0.2", NULL, 5000, -1);
	f[14 + 6] = 0x20;            /* more fragments, offset 0 */
	assert_int_equal(run(f, len), SWITCH);
	f[14 + 6] = 0x00;
	f[14 + 7] = 0x10;            /* at byte 128: no UDP header here */
	assert_int_equal(run(f, len), KERNEL);
}

static void
test_ip_options_do_not_hide_the_udp_port(void **state)
{
	uint8_t f[256], g[260];
	unsigned int len;

	(void)state;
	configure(5000, NULL, 0);
	len = udp_to(f, "10.0.0.2", NULL, 5000, -1);
	/* IHL 6: four bytes of options (NOPs) between IPv4 and UDP */
	memcpy(g, f, 34);
	g[14] = 0x46;
	memset(g + 34, 1, 4);
	memcpy(g + 38, f + 34, len - 34);
	assert_int_equal(run(g, len + 4), SWITCH);
}

static void
test_arp_and_ipv4_for_the_switch_go_to_it_the_kernels_stay(void **state)
{
	uint8_t f[256];
	struct tf_addr sw = host("10.0.0.1", 1), k = host("10.0.0.2", 2);
	struct tf_addr h = host("10.0.0.9", 9);

	(void)state;
	configure(47000, "10.0.0.1", 0);
	assert_int_equal(run(f, arp_for(f, "10.0.0.1")), SWITCH);
	assert_int_equal(run(f, arp_for(f, "10.0.0.2")), KERNEL);
	assert_int_equal(run(f, tf_icmp_echo(f, &sw, &h, 1, 1, 8)), SWITCH);
	assert_int_equal(run(f, tf_icmp_echo(f, &k, &h, 1, 1, 8)), KERNEL);
	/* SSH to the kernel's address */
	assert_int_equal(run(f, udp_to(f, "10.0.0.2", NULL, 22, -1)), KERNEL);
	/* without the address configured, ARP for it is the kernel's */
	configure(47000, NULL, 0);
	assert_int_equal(run(f, arp_for(f, "10.0.0.1")), KERNEL);
}

static void
test_frames_to_the_switch_mac_go_to_it_when_asked(void **state)
{
	uint8_t f[256];
	struct tf_addr sw = host("10.0.0.7", 1), h = host("10.0.0.9", 9);

	(void)state;
	memcpy(sw.mac, SW_MAC, 6);
	configure(47000, NULL, 1);
	assert_int_equal(run(f, tf_icmp_echo(f, &sw, &h, 1, 1, 8)), SWITCH);
	assert_int_equal(run(f, udp_to(f, "10.0.0.7", NULL, 22, -1)), KERNEL);
	configure(47000, NULL, 0);
	assert_int_equal(run(f, tf_icmp_echo(f, &sw, &h, 1, 1, 8)), KERNEL);
}

static void
test_runts_go_to_the_kernel(void **state)
{
	uint8_t f[256];

	(void)state;
	configure(5000, "10.0.0.1", 1);
	udp_to(f, "10.0.0.1", SW_MAC, 5000, -1);
	/* cut inside the UDP header: still the switch's by address */
	assert_int_equal(run(f, 14 + 20 + 4), SWITCH);
	/* cut inside the IPv4 header, to another MAC: the kernel's */
	udp_to(f, "10.0.0.2", NULL, 5000, -1);
	assert_int_equal(run(f, 14 + 10), KERNEL);
	/* an Ethernet header and nothing else (the kernel runs XDP on no
	 * less) */
	assert_int_equal(run(f, 14), KERNEL);
}

static int
setup_all(void **state)
{
	struct bpf_program *p;

	(void)state;
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(ACIS_STEER_OBJ, NULL);
	if (obj == NULL || bpf_object__load(obj) != 0) {
		fprintf(stderr, "cannot load %s: %s\n", ACIS_STEER_OBJ,
			strerror(errno));
		return -1;
	}
	p = bpf_object__next_program(obj, NULL);
	prog_fd = p ? bpf_program__fd(p) : -1;
	cfg_fd = bpf_object__find_map_fd_by_name(obj, ACIS_STEER_CFG_MAP);
	cnt_fd = bpf_object__find_map_fd_by_name(obj, ACIS_STEER_CNT_MAP);
	ncpu = libbpf_num_possible_cpus();
	if (prog_fd < 0 || cfg_fd < 0 || cnt_fd < 0 || ncpu <= 0 ||
	    bpf_object__find_map_by_name(obj, ACIS_STEER_XSKS_MAP) == NULL) {
		fprintf(stderr, "%s lacks its program or maps\n",
			ACIS_STEER_OBJ);
		return -1;
	}
	return 0;
}

static int
teardown_all(void **state)
{
	(void)state;
	bpf_object__close(obj);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unconfigured_only_udp_47000_goes_to_the_switch),
		cmocka_unit_test(test_the_configured_port_replaces_the_default),
		cmocka_unit_test(test_udp_is_found_behind_one_or_two_vlan_tags),
		cmocka_unit_test(test_only_first_fragments_match_the_port),
		cmocka_unit_test(test_ip_options_do_not_hide_the_udp_port),
		cmocka_unit_test(test_arp_and_ipv4_for_the_switch_go_to_it_the_kernels_stay),
		cmocka_unit_test(test_frames_to_the_switch_mac_go_to_it_when_asked),
		cmocka_unit_test(test_runts_go_to_the_kernel),
	};

	if (geteuid() != 0) {
		printf("skip: loading BPF programs needs root\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
