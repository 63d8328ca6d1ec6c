/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-hop reliability: the link header, CRC-32C, the two ends' books. */
#include <string.h>

#include "acis_link.h"

static uint32_t crc_table[256];

static uint32_t
crc_soft(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t
crc_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = ~crc;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	while (n-- > 0)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return ~crc;
}
#endif

static uint32_t (*crc_fn)(uint32_t, const uint8_t *, size_t);

static void
crc_pick(void)
{
	uint32_t i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
	crc_fn = crc_soft;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2"))
		crc_fn = crc_sse42;
#endif
}

uint32_t
acis_link_crc(uint32_t crc, const void *p, size_t n)
{
	if (__builtin_expect(crc_fn == NULL, 0))
		crc_pick();
	return crc_fn(crc, p, n);
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void
acis_link_encode(uint8_t *out, const uint8_t src_mac[6],
		 const struct acis_link_hdr *h, const uint8_t *inner,
		 uint32_t inner_len)
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
	uint32_t crc;

	memcpy(out, dst, 6);
	memcpy(out + 6, src_mac, 6);
	out[12] = ACIS_LINK_ETHERTYPE >> 8;
	out[13] = ACIS_LINK_ETHERTYPE & 0xff;
	out[14] = h->type;
	out[15] = h->stream;
	out[16] = 0;
	out[17] = 0;
	put32(out + 18, h->seq);
	crc = acis_link_crc(0, out + 14, 8);
	if (inner_len != 0)
		crc = acis_link_crc(crc, inner, inner_len);
	put32(out + 22, crc);
}

enum acis_link_parse
acis_link_parse(const uint8_t *frame, uint32_t len, struct acis_link_hdr *h)
{
	uint32_t crc;

	if (len < 14 || frame[12] != (ACIS_LINK_ETHERTYPE >> 8) ||
	    frame[13] != (ACIS_LINK_ETHERTYPE & 0xff))
		return ACIS_LINK_NOT_OURS;
	if (len < ACIS_LINK_HLEN)
		return ACIS_LINK_BAD;
	crc = acis_link_crc(0, frame + 14, 8);
	crc = acis_link_crc(crc, frame + ACIS_LINK_HLEN, len - ACIS_LINK_HLEN);
	if (crc != get32(frame + 22))
		return ACIS_LINK_BAD;
	h->type = frame[14];
	h->stream = frame[15];
	h->seq = get32(frame + 18);
	if (h->type < ACIS_LINK_DATA || h->type > ACIS_LINK_NAK ||
	    h->stream >= ACIS_LINK_STREAMS || frame[16] != 0 ||
	    frame[17] != 0 ||
	    (h->type != ACIS_LINK_DATA && len != ACIS_LINK_HLEN))
		return ACIS_LINK_BAD;
	return ACIS_LINK_OK;
}

enum acis_link_verdict
acis_link_rx_data(struct acis_link_rx *r, uint8_t s, uint32_t seq)
{
	if (seq == r->expected[s]) {
		r->expected[s]++;
		r->nak_sent[s] = 0;
		r->ack_due[s] = 1;
		return ACIS_LINK_DELIVER;
	}
	if (acis_link_before(seq, r->expected[s]))
		return ACIS_LINK_DUP;
	return ACIS_LINK_GAP;
}

int
acis_link_rx_want_nak(struct acis_link_rx *r, uint8_t s)
{
	if (r->nak_sent[s])
		return 0;
	r->nak_sent[s] = 1;
	return 1;
}

uint32_t
acis_link_tx_keep(struct acis_link_tx *t, void *frame)
{
	uint32_t seq = t->next++;

	t->frame[seq % ACIS_LINK_WINDOW] = frame;
	return seq;
}

int
acis_link_tx_ack(struct acis_link_tx *t, uint32_t seq, uint64_t now,
		 void (*release)(void *frame, void *arg), void *arg)
{
	int n = 0;

	if (acis_link_before(seq, t->base) || acis_link_before(t->next, seq))
		return -1;
	while (t->base != seq) {
		void **f = &t->frame[t->base % ACIS_LINK_WINDOW];

		release(*f, arg);
		*f = NULL;
		t->base++;
		n++;
	}
	if (n != 0)
		t->last_ack = now;
	return n;
}
