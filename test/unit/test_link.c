/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/link: the link header, its CRC-32C, and both ends' books. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "acis_link.h"

static const uint8_t MAC[6] = {0x02, 0xac, 0x15, 0x01, 0x00, 0x01};

/* The standard check value: CRC-32C of "123456789" is 0xe3069283, in
 * one call and in pieces, whichever implementation the CPU picked. */
static void
test_crc32c_check_value(void **state)
{
	(void)state;
	assert_int_equal(acis_link_crc(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(acis_link_crc(acis_link_crc(0, "1234", 4),
				       "56789", 5), 0xe3069283u);
}

/* A carried frame comes back whole; every single flipped bit after the
 * outer Ethernet header is caught (the CRC covers header and frame). */
static void
test_encode_parse_and_every_bit_flip_caught(void **state)
{
	struct acis_link_hdr h = {.type = ACIS_LINK_DATA, .stream = 3,
				  .seq = 0xfffffffeu}, got;
	uint8_t f[ACIS_LINK_HLEN + 100];
	unsigned int i, b;

	(void)state;
	for (i = 0; i < 100; i++)
		f[ACIS_LINK_HLEN + i] = (uint8_t)(i * 7);
	acis_link_encode(f, MAC, &h, f + ACIS_LINK_HLEN, 100);
	assert_int_equal(f[12], 0x88);
	assert_int_equal(f[13], 0xb5);
	assert_int_equal(f[0], 0x01); /* link-local, never forwarded */
	assert_int_equal(acis_link_parse(f, sizeof(f), &got), ACIS_LINK_OK);
	assert_int_equal(got.type, ACIS_LINK_DATA);
	assert_int_equal(got.stream, 3);
	assert_int_equal(got.seq, 0xfffffffeu);
	for (i = 14; i < sizeof(f); i++)
		for (b = 0; b < 8; b++) {
			f[i] ^= (uint8_t)(1u << b);
			if (acis_link_parse(f, sizeof(f), &got) != ACIS_LINK_BAD)
				fail_msg("byte %u bit %u flipped, not caught",
					 i, b);
			f[i] ^= (uint8_t)(1u << b);
		}
	/* cut short, or another EtherType */
	assert_int_equal(acis_link_parse(f, ACIS_LINK_HLEN - 1, &got),
			 ACIS_LINK_BAD);
	assert_int_equal(acis_link_parse(f, sizeof(f) - 1, &got),
			 ACIS_LINK_BAD);
	f[13] = 0x00;
	assert_int_equal(acis_link_parse(f, sizeof(f), &got),
			 ACIS_LINK_NOT_OURS);
}

/* ACK and NAK carry nothing; a stream past the last, or an ACK with a
 * payload, is refused even with its CRC right. */
static void
test_answers_and_bad_fields(void **state)
{
	struct acis_link_hdr h = {.type = ACIS_LINK_NAK, .stream = 0,
				  .seq = 9}, got;
	uint8_t f[ACIS_LINK_HLEN + 4] = {0};

	(void)state;
	acis_link_encode(f, MAC, &h, NULL, 0);
	assert_int_equal(acis_link_parse(f, ACIS_LINK_HLEN, &got), ACIS_LINK_OK);
	assert_int_equal(got.type, ACIS_LINK_NAK);
	assert_int_equal(got.seq, 9);
	acis_link_encode(f, MAC, &h, f + ACIS_LINK_HLEN, 4);
	assert_int_equal(acis_link_parse(f, sizeof(f), &got), ACIS_LINK_BAD);
	h.type = ACIS_LINK_DATA;
	h.stream = ACIS_LINK_STREAMS;
	acis_link_encode(f, MAC, &h, NULL, 0);
	assert_int_equal(acis_link_parse(f, ACIS_LINK_HLEN, &got), ACIS_LINK_BAD);
	h.stream = 0;
	h.type = 4;
	acis_link_encode(f, MAC, &h, NULL, 0);
	assert_int_equal(acis_link_parse(f, ACIS_LINK_HLEN, &got), ACIS_LINK_BAD);
}

/* In order: delivered once; again: a duplicate; ahead: a gap, with one
 * NAK until the awaited frame comes; across 2^32. */
static void
test_receiver_delivers_once_in_order(void **state)
{
	static struct acis_link_rx r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.expected[2] = 0xffffffffu;
	assert_int_equal(acis_link_rx_data(&r, 2, 0xffffffffu), ACIS_LINK_DELIVER);
	assert_int_equal(r.ack_due[2], 1);
	assert_int_equal(acis_link_rx_data(&r, 2, 0xffffffffu), ACIS_LINK_DUP);
	assert_int_equal(acis_link_rx_data(&r, 2, 1), ACIS_LINK_GAP);
	assert_int_equal(acis_link_rx_want_nak(&r, 2), 1);
	assert_int_equal(acis_link_rx_data(&r, 2, 2), ACIS_LINK_GAP);
	assert_int_equal(acis_link_rx_want_nak(&r, 2), 0);
	assert_int_equal(acis_link_rx_data(&r, 2, 0), ACIS_LINK_DELIVER);
	assert_int_equal(acis_link_rx_data(&r, 2, 1), ACIS_LINK_DELIVER);
	assert_int_equal(r.expected[2], 2);
	/* a new gap gets its own NAK */
	assert_int_equal(acis_link_rx_data(&r, 2, 5), ACIS_LINK_GAP);
	assert_int_equal(acis_link_rx_want_nak(&r, 2), 1);
	/* streams are apart */
	assert_int_equal(acis_link_rx_data(&r, 3, 0), ACIS_LINK_DELIVER);
}

static unsigned int released;

static void
count_release(void *frame, void *arg)
{
	(void)arg;
	assert_non_null(frame);
	released++;
}

/* The window: frames kept in sequence; an ACK releases those before its
 * seq, once; a stale or future ACK changes nothing; it fills at WINDOW. */
static void
test_sender_window(void **state)
{
	static struct acis_link_tx t;
	static int frames[ACIS_LINK_WINDOW];
	unsigned int i;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.base = t.next = 0xfffffff0u;
	for (i = 0; i < ACIS_LINK_WINDOW; i++) {
		assert_true(acis_link_tx_room(&t));
		assert_int_equal(acis_link_tx_keep(&t, &frames[i]),
				 0xfffffff0u + i);
	}
	assert_false(acis_link_tx_room(&t));
	released = 0;
	assert_int_equal(acis_link_tx_ack(&t, 0xfffffff0u + 20, 7,
					  count_release, NULL), 20);
	assert_int_equal(released, 20);
	assert_int_equal(t.last_ack, 7);
	assert_true(acis_link_tx_room(&t));
	/* stale (before base) and beyond next: nothing */
	assert_int_equal(acis_link_tx_ack(&t, 0xfffffff0u + 5, 9,
					  count_release, NULL), -1);
	assert_int_equal(acis_link_tx_ack(&t, t.next + 1, 9, count_release,
					  NULL), -1);
	assert_int_equal(released, 20);
	/* the same ACK again: nothing more */
	assert_int_equal(acis_link_tx_ack(&t, 0xfffffff0u + 20, 9,
					  count_release, NULL), 0);
	assert_int_equal(acis_link_tx_ack(&t, t.next, 9, count_release,
					  NULL), ACIS_LINK_WINDOW - 20);
	assert_int_equal(released, ACIS_LINK_WINDOW);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_encode_parse_and_every_bit_flip_caught),
		cmocka_unit_test(test_answers_and_bad_fields),
		cmocka_unit_test(test_receiver_delivers_once_in_order),
		cmocka_unit_test(test_sender_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
