/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_xdp's socket counters: which of the process's
 * descriptors are AF_XDP sockets, and reading their kernel counters
 * (XDP_STATISTICS) only while a descriptor is still the socket it was.
 * An AF_XDP socket needs CAP_NET_RAW (root); the cases that make one are
 * skipped without it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis_xdp.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

static int
xsk_socket(void)
{
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0 && (errno == EPERM || errno == EACCES ||
		       errno == EAFNOSUPPORT))
		skip();
	assert_true(fd >= 0);
	return fd;
}

/* Other sockets (UDP, a socket pair) are not taken for AF_XDP ones. */
static void
test_only_af_xdp_sockets_are_listed(void **state)
{
	struct acis_xsk_ref r[8];
	int base = acis_xdp_sockets(r, 8), u, sp[2];

	(void)state;
	assert_true(base >= 0);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(u >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_int_equal(acis_xdp_sockets(r, 8), base);
	close(u);
	close(sp[0]);
	close(sp[1]);
}

/* A new AF_XDP socket is listed, its counters read (zero, unbound). */
static void
test_an_af_xdp_socket_is_found_and_read(void **state)
{
	struct acis_xsk_ref r[64], mine = {-1, 0};
	struct acis_xsk_stats st;
	int base = acis_xdp_sockets(r, 64), fd = xsk_socket(), n, i;

	(void)state;
	n = acis_xdp_sockets(r, 64);
	assert_int_equal(n, base + 1);
	for (i = 0; i < n; i++)
		if (r[i].fd == fd)
			mine = r[i];
	assert_int_equal(mine.fd, fd);
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(acis_xdp_socket_stats(&mine, 1, &st), 1);
	assert_int_equal(st.sockets, 1);
	assert_int_equal(st.tx_invalid_descs, 0);
	assert_int_equal(st.rx_invalid_descs, 0);
	assert_int_equal(st.rx_dropped, 0);
	close(fd);
}

/* A descriptor closed and given to another socket is not read for the
 * one it was; nor is a closed one. */
static void
test_a_reused_descriptor_is_not_read(void **state)
{
	struct acis_xsk_ref r[64], mine = {-1, 0};
	struct acis_xsk_stats st;
	int fd = xsk_socket(), n, i, again;

	(void)state;
	n = acis_xdp_sockets(r, 64);
	for (i = 0; i < n && i < 64; i++)
		if (r[i].fd == fd)
			mine = r[i];
	assert_int_equal(mine.fd, fd);
	close(fd);
	assert_int_equal(acis_xdp_socket_stats(&mine, 1, &st), 0);
	assert_int_equal(st.sockets, 0);
	again = xsk_socket(); /* the lowest free descriptor: the same */
	assert_int_equal(again, fd);
	assert_int_equal(acis_xdp_socket_stats(&mine, 1, &st), 0);
	close(again);
}

/* More sockets than room: all counted, as many listed as fit. */
static void
test_the_count_is_whole_when_the_list_is_short(void **state)
{
	struct acis_xsk_ref r[64], one[1];
	int base = acis_xdp_sockets(r, 64), a = xsk_socket(), b = xsk_socket();

	(void)state;
	one[0].fd = -1;
	assert_int_equal(acis_xdp_sockets(one, 1), base + 2);
	assert_true(one[0].fd >= 0);
	assert_int_equal(acis_xdp_sockets(NULL, 0), base + 2);
	close(a);
	close(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_af_xdp_sockets_are_listed),
		cmocka_unit_test(test_an_af_xdp_socket_is_found_and_read),
		cmocka_unit_test(test_a_reused_descriptor_is_not_read),
		cmocka_unit_test(test_the_count_is_whole_when_the_list_is_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
