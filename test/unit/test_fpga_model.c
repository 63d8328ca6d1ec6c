/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the emulated FPGA's timing model, in-flight FIFO and
 * header work (drivers/net/acis_fpga/fpga_model.h, fpga_frame.h), with a
 * clock of the test's own: most tests tick in picoseconds (hz = 10^12) so
 * expected times read as plain arithmetic. The frame rewrites are
 * lib/pkt's on the offsets the driver finds; their checksums are checked
 * with a one's complement sum of this file's own, not lib/pkt's.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acis_pkt.h"
#include "fpga_frame.h"
#include "fpga_model.h"
#include "frames.h"

#define PS_HZ UINT64_C(1000000000000)

static struct acis_fpga_model
model(uint64_t hz, uint64_t rate_bps, uint64_t latency_ns, uint64_t proc_ns)
{
	struct acis_fpga_timing t = {
		.hz = hz,
		.rate_bps = rate_bps,
		.latency_ns = latency_ns,
		.proc_ns = proc_ns,
		.proc_hz = 250000000,
	};
	struct acis_fpga_model m;

	assert_int_equal(acis_fpga_model_init(&m, &t), 0);
	return m;
}

/* ---- timing ---- */

static void
test_one_frame_is_back_after_serialisation_and_latency(void **state)
{
	/* 100 Gb/s: 80 ps a byte; 64 B = 5120 ps, plus 440 ns */
	struct acis_fpga_model m = model(PS_HZ, UINT64_C(100000000000), 440, 0);

	(void)state;
	assert_int_equal(acis_fpga_model_admit(&m, 1000, 64, 0),
			 1000 + 5120 + 440000);
}

static void
test_back_to_back_frames_queue_for_the_link(void **state)
{
	struct acis_fpga_model m = model(PS_HZ, UINT64_C(100000000000), 440, 0);
	uint64_t i, r = 0;

	(void)state;
	/* 1000 frames of 1500 B offered at once: each waits for the last */
	for (i = 0; i < 1000; i++) {
		r = acis_fpga_model_admit(&m, 0, 1500, 0);
		assert_int_equal(r, (i + 1) * 1500 * 80 + 440000);
	}
	assert_int_equal(m.busy, 1000 * 1500 * 80);
	/* frame i waited i frames' time */
	assert_int_equal(m.wait, UINT64_C(1500) * 80 * (999 * 1000 / 2));
}

static void
test_an_idle_link_starts_a_frame_at_once(void **state)
{
	struct acis_fpga_model m = model(PS_HZ, UINT64_C(100000000000), 440, 0);

	(void)state;
	acis_fpga_model_admit(&m, 0, 1500, 0);    /* busy until 120000 */
	assert_int_equal(acis_fpga_model_admit(&m, 500000, 100, 0),
			 500000 + 8000 + 440000);
	assert_int_equal(m.wait, 0);
}

static void
test_the_rate_holds_for_small_frames_at_a_coarse_clock(void **state)
{
	/* 95.9 Gb/s at a 1 GHz clock: a 64 B frame is 5.3389 ticks; the
	 * fraction carried between frames keeps the sum exact */
	struct acis_fpga_model m = model(1000000000, UINT64_C(95900000000),
					 440, 0);
	uint64_t i, last = 0, n = 1000000;
	/* exact: n * 64 * 8 / 95.9 ns */
	uint64_t want = n * 64 * 8 * 10 / 959;

	(void)state;
	for (i = 0; i < n; i++)
		last = acis_fpga_model_admit(&m, 0, 64, 0);
	assert_true(m.link_free >= want - 1 && m.link_free <= want + 1);
	assert_int_equal(last, m.link_free + 440);
}

static void
test_wire_overhead_counts_toward_serialisation(void **state)
{
	struct acis_fpga_timing t = {
		.hz = PS_HZ, .rate_bps = UINT64_C(100000000000),
		.latency_ns = 0, .proc_hz = 1000000000, .overhead = 24,
	};
	struct acis_fpga_model m;

	(void)state;
	assert_int_equal(acis_fpga_model_init(&m, &t), 0);
	assert_int_equal(acis_fpga_model_admit(&m, 0, 64, 0), 88 * 80);
}

static void
test_processing_time_and_cycles_delay_the_frame(void **state)
{
	/* 1 us fixed, plus 500 cycles at 250 MHz = 2 us */
	struct acis_fpga_model m = model(PS_HZ, UINT64_C(100000000000), 440,
					 1000);

	(void)state;
	assert_int_equal(acis_fpga_model_admit(&m, 0, 64, 500),
			 5120 + 1000000 + 2000000 + 440000);
}

static void
test_a_slow_processor_paces_frames_not_the_link(void **state)
{
	/* 10 us per frame of processing: frames leave 10 us apart although
	 * the link takes them in 5 ns each */
	struct acis_fpga_model m = model(PS_HZ, UINT64_C(100000000000), 0,
					 10000);
	uint64_t i, r;

	(void)state;
	for (i = 0; i < 10; i++) {
		r = acis_fpga_model_admit(&m, 0, 64, 0);
		assert_int_equal(r, 5120 + (i + 1) * 10000000);
	}
	assert_int_equal(m.link_free, 10 * 5120);
}

static void
test_ready_times_never_go_backwards(void **state)
{
	struct acis_fpga_model m = model(3000000000u, UINT64_C(95900000000),
					 440, 7);
	uint64_t now = 0, prev = 0, r;
	unsigned int i, seed = 12345;

	(void)state;
	for (i = 0; i < 100000; i++) {
		seed = seed * 1103515245u + 12345u;
		now += (seed >> 16) % 200;   /* arrivals, sometimes bunched */
		r = acis_fpga_model_admit(&m, now, 60 + (seed >> 8) % 9000,
					  (seed >> 4) % 50);
		assert_true(r >= prev);
		assert_true(r > now);
		prev = r;
	}
}

static void
test_model_refuses_impossible_parameters(void **state)
{
	struct acis_fpga_timing t = {
		.hz = PS_HZ, .rate_bps = 0, .proc_hz = 1,
	};
	struct acis_fpga_model m;

	(void)state;
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
	t.rate_bps = 1000;
	t.hz = 0;
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
	/* 1 b/s at 1 THz: 8e12 ticks per byte, beyond the 32.32 format */
	t.hz = PS_HZ;
	t.rate_bps = 1;
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
	t.rate_bps = 1000000;
	t.proc_hz = 0;
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
	t.proc_hz = 1;   /* a cycle of 10^12 ticks */
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
	t.proc_hz = 1000000;
	assert_int_equal(acis_fpga_model_init(&m, &t), 0);
	t.latency_ns = UINT64_C(1) << 50;   /* 2^50 ns at 1 THz: too long */
	assert_int_equal(acis_fpga_model_init(&m, &t), -1);
}

static void
test_ticks_convert_to_ns_and_back(void **state)
{
	(void)state;
	assert_int_equal(acis_fpga_ticks_to_ns(3000, 3000000000u), 1000);
	assert_int_equal(acis_fpga_ns_to_ticks(440, 3000000000u), 1320);
	assert_int_equal(acis_fpga_ns_to_ticks(440, 2100000000u), 924);
}

/* ---- FIFO ---- */

static struct acis_fpga_fifo *
fifo(uint32_t depth)
{
	struct acis_fpga_fifo *f = aligned_alloc(64,
		(acis_fpga_fifo_size(depth) + 63) & ~UINT64_C(63));

	assert_non_null(f);
	acis_fpga_fifo_init(f, depth);
	return f;
}

static void
test_fifo_holds_at_most_its_depth(void **state)
{
	struct acis_fpga_fifo *f = fifo(5);   /* 8 slots, 5 usable */
	uint32_t i, n;

	(void)state;
	n = acis_fpga_fifo_room(f, 32);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		acis_fpga_fifo_put(f, i, (void *)(uintptr_t)(i + 1), i, 0);
	acis_fpga_fifo_publish(f, n);
	assert_int_equal(acis_fpga_fifo_room(f, 32), 0);
	assert_int_equal(acis_fpga_fifo_used(f), 5);
	/* two taken out: two places free */
	assert_int_equal(acis_fpga_fifo_count(f, 32), 5);
	acis_fpga_fifo_consume(f, 2);
	assert_int_equal(acis_fpga_fifo_room(f, 32), 2);
	assert_int_equal(acis_fpga_fifo_room(f, 1), 1);
	free(f);
}

static void
test_fifo_keeps_order_across_wraparound(void **state)
{
	struct acis_fpga_fifo *f = fifo(3);
	uintptr_t next_in = 1, next_out = 1;
	uint32_t round, i, n;

	(void)state;
	for (round = 0; round < 1000; round++) {
		n = acis_fpga_fifo_room(f, 1 + round % 3);
		for (i = 0; i < n; i++)
			acis_fpga_fifo_put(f, i, (void *)next_in++, round, 7);
		acis_fpga_fifo_publish(f, n);
		n = acis_fpga_fifo_count(f, 3);
		n = n > 1 + round % 2 ? 1 + round % 2 : n;
		for (i = 0; i < n; i++) {
			const struct acis_fpga_slot *s = acis_fpga_fifo_peek(f, i);

			assert_int_equal((uintptr_t)s->pkt, next_out++);
			assert_int_equal(s->gen, 7);
		}
		acis_fpga_fifo_consume(f, n);
	}
	assert_true(next_out > 1000);
	free(f);
}

#define SPSC_N 500000u

static void *
producer(void *arg)
{
	struct acis_fpga_fifo *f = arg;
	uintptr_t v = 1;
	uint32_t i, n;

	while (v <= SPSC_N) {
		n = acis_fpga_fifo_room(f, 32);
		if (n == 0)
			sched_yield();   /* two threads may share one core */
		if (n > SPSC_N + 1 - v)
			n = (uint32_t)(SPSC_N + 1 - v);
		for (i = 0; i < n; i++, v++)
			acis_fpga_fifo_put(f, i, (void *)v, v * 3, 0);
		acis_fpga_fifo_publish(f, n);
	}
	return NULL;
}

static void
test_fifo_between_two_threads_loses_and_reorders_nothing(void **state)
{
	struct acis_fpga_fifo *f = fifo(64);
	pthread_t t;
	uintptr_t want = 1;
	uint32_t i, n;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, producer, f), 0);
	while (want <= SPSC_N) {
		n = acis_fpga_fifo_count(f, 32);
		if (n == 0)
			sched_yield();
		for (i = 0; i < n; i++) {
			const struct acis_fpga_slot *s = acis_fpga_fifo_peek(f, i);

			if ((uintptr_t)s->pkt != want || s->ready != want * 3)
				fail_msg("slot %u: got %p/%lu, want %lu", i,
					 s->pkt, (unsigned long)s->ready,
					 (unsigned long)want);
			want++;
		}
		acis_fpga_fifo_consume(f, n);
	}
	pthread_join(t, NULL);
	assert_int_equal(acis_fpga_fifo_used(f), 0);
	free(f);
}

/* ---- headers ---- */

static const struct tf_addr *
addr(int n)
{
	static struct tf_addr a[4];

	a[n] = tf_host((unsigned int)(10 + n));
	return &a[n];
}

/* One's complement sum of big-endian 16-bit words, an odd last byte
 * padded with zero, folded; written apart from lib/pkt on purpose. */
static uint32_t
ref_sum(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += i % 2 == 0 ? (uint32_t)p[i] << 8 : p[i];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void
assert_checksums_valid(const uint8_t *f, unsigned int l3)
{
	unsigned int ihl = (f[l3] & 0xfu) * 4;
	const uint8_t *udp = f + l3 + ihl;
	uint32_t udp_len = (uint32_t)(udp[4] << 8 | udp[5]);

	assert_int_equal(ref_sum(f + l3, ihl, 0), 0xffff);
	/* pseudo header, header and payload of a right datagram sum to
	 * 0xffff */
	assert_int_equal(ref_sum(udp, udp_len,
				 ref_sum(f + l3 + 12, 8, 0) + 17 + udp_len),
			 0xffff);
	assert_int_not_equal(udp[6] << 8 | udp[7], 0);
}

static void
test_parse_finds_udp_behind_a_vlan_tag(void **state)
{
	uint8_t f[256], pl[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	struct acis_fpga_hdr h;
	unsigned int len;

	(void)state;
	len = tf_udp(f, addr(0), addr(1), 1234, 47000, pl, 10, 100);
	acis_fpga_frame_parse(f, len, &h);
	assert_int_equal(h.l3, 18);
	assert_int_equal(h.l4, 38);
	assert_int_equal(h.payload, 46);
	assert_int_equal(h.payload_len, 10);
	assert_int_equal(h.ip_end, len);
	/* cut short: no UDP, and never a read past the end */
	acis_fpga_frame_parse(f, len - 11, &h);
	assert_int_equal(h.l4, 0);
	assert_int_equal(h.l3, 0);
}

static void
test_parse_gives_no_udp_for_fragments_and_bad_lengths(void **state)
{
	uint8_t f[256], pl[20] = {0};
	struct acis_fpga_hdr h;
	unsigned int len;

	(void)state;
	len = tf_udp(f, addr(0), addr(1), 1, 2, pl, 20, -1);
	f[14 + 6] = 0x20;            /* more fragments */
	acis_fpga_frame_parse(f, len, &h);
	assert_int_equal(h.l3, 14);
	assert_int_equal(h.l4, 0);
	f[14 + 6] = 0x40;
	f[34 + 5] = 100;             /* UDP length beyond the datagram */
	acis_fpga_frame_parse(f, len, &h);
	assert_int_equal(h.l4, 0);
	f[34 + 5] = 7;               /* shorter than its header */
	acis_fpga_frame_parse(f, len, &h);
	assert_int_equal(h.l4, 0);
}

static void
test_swap_returns_the_frame_to_its_sender_with_valid_checksums(void **state)
{
	uint8_t f[256], pl[33];
	struct acis_fpga_hdr h;
	unsigned int len;

	(void)state;
	memset(pl, 0x5a, sizeof(pl));
	len = tf_udp(f, addr(0), addr(1), 1234, 47000, pl, 33, -1);
	acis_fpga_frame_parse(f, len, &h);
	acis_pkt_swap(f, h.l3, h.l4);
	assert_memory_equal(f, addr(1)->mac, 6);
	assert_memory_equal(f + 6, addr(0)->mac, 6);
	assert_memory_equal(f + 26, &addr(0)->ip, 4);
	assert_memory_equal(f + 30, &addr(1)->ip, 4);
	assert_int_equal(f[34] << 8 | f[35], 47000);
	assert_int_equal(f[36] << 8 | f[37], 1234);
	assert_checksums_valid(f, 14);
}

static void
test_new_payload_length_rebuilds_lengths_and_checksums(void **state)
{
	uint8_t f[2048], pl[100];
	struct acis_fpga_hdr h;
	struct acis_pkt_info pi;
	unsigned int len, i;
	uint32_t out;

	(void)state;
	for (i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)i;
	len = tf_udp(f, addr(0), addr(1), 5, 6, pl, 100, 7);
	acis_fpga_frame_parse(f, len, &h);
	pi = acis_fpga_frame_pkt_info(&h);
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.l4_off, 38);
	assert_int_equal(pi.payload_off, 46);
	/* grow to 1001 bytes (odd: the checksum's last byte is padded) and
	 * send back, as the CGRA mode does */
	for (i = 0; i < 1001; i++)
		f[h.payload + i] = (uint8_t)(i * 7);
	out = acis_udp4_finish(f, &pi, 1001, 1, NULL);
	assert_int_equal(out, 18 + 20 + 8 + 1001);
	assert_int_equal(f[18 + 2] << 8 | f[18 + 3], 20 + 8 + 1001);
	assert_int_equal(f[38 + 4] << 8 | f[38 + 5], 8 + 1001);
	assert_memory_equal(f, addr(1)->mac, 6);
	assert_memory_equal(f + 18 + 12, &addr(0)->ip, 4);
	assert_int_equal(f[38] << 8 | f[39], 6);
	assert_checksums_valid(f, 18);
	/* shrink to nothing */
	out = acis_udp4_finish(f, &pi, 0, 1, NULL);
	assert_int_equal(out, 18 + 28);
	assert_checksums_valid(f, 18);
	assert_int_equal(acis_fpga_frame_max_payload(&h), 65535 - 28);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_frame_is_back_after_serialisation_and_latency),
		cmocka_unit_test(test_back_to_back_frames_queue_for_the_link),
		cmocka_unit_test(test_an_idle_link_starts_a_frame_at_once),
		cmocka_unit_test(test_the_rate_holds_for_small_frames_at_a_coarse_clock),
		cmocka_unit_test(test_wire_overhead_counts_toward_serialisation),
		cmocka_unit_test(test_processing_time_and_cycles_delay_the_frame),
		cmocka_unit_test(test_a_slow_processor_paces_frames_not_the_link),
		cmocka_unit_test(test_ready_times_never_go_backwards),
		cmocka_unit_test(test_model_refuses_impossible_parameters),
		cmocka_unit_test(test_ticks_convert_to_ns_and_back),
		cmocka_unit_test(test_fifo_holds_at_most_its_depth),
		cmocka_unit_test(test_fifo_keeps_order_across_wraparound),
		cmocka_unit_test(test_fifo_between_two_threads_loses_and_reorders_nothing),
		cmocka_unit_test(test_parse_finds_udp_behind_a_vlan_tag),
		cmocka_unit_test(test_parse_gives_no_udp_for_fragments_and_bad_lengths),
		cmocka_unit_test(test_swap_returns_the_frame_to_its_sender_with_valid_checksums),
		cmocka_unit_test(test_new_payload_length_rebuilds_lengths_and_checksums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
