/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dissector_frames: a pcap of ACiS frames described one per line on
 * stdin, their headers written by acis_hdr_encode() (lib/proto), so the
 * Wireshark dissector (tools/wireshark/acis.lua) is checked against the
 * codec the switch and libacis use. Used by dissector.sh.
 *
 * A line is `field=value` words over a default header (version 1,
 * hdr_len 54, root none, payload_len the payload's length):
 *   type opcode flags dtype op hdr_len version job comm rank root seq chunk
 *   msg_size payload_len chunk_size contributors status auth
 * and, besides the header,
 *   payload=HEX  the payload's first bytes
 *   size=N       payload bytes in all (zero-filled after payload=)
 *   cut=N        keep only the first N bytes of the message
 *   port=N       UDP destination port (47000)
 * Values take C notation (0x..); -1 is 0xffffffff; auth keeps its low 48
 * bits, as the encoder does. Blank lines and lines starting with '#' are
 * skipped.
 *
 * Usage: dissector_frames OUT.pcap < frames.txt
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_proto.h"

#define MAX_MSG 9000

struct frame {
	struct acis_hdr h;
	uint8_t payload[MAX_MSG];
	size_t payload_bytes; /* given by payload= */
	size_t size;	      /* size=, else payload_bytes */
	long cut;	      /* -1: whole message */
	int payload_len_set;
	uint16_t port;
};

static int
hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
parse_hex(const char *s, struct frame *f)
{
	size_t n = strlen(s), i;

	if (n % 2 != 0 || n / 2 > sizeof(f->payload))
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		f->payload[i] = (uint8_t)(hi << 4 | lo);
	}
	f->payload_bytes = n / 2;
	return 0;
}

/* The header fields a line may set, by name. */
#define HDR_FIELD(f)                                      \
	{                                                 \
#f, offsetof(struct acis_hdr, f),         \
			sizeof(((struct acis_hdr *)0)->f) \
	}
static const struct {
	const char *name;
	size_t off;
	size_t size;
} hdr_fields[] = {
	HDR_FIELD(type),	 HDR_FIELD(opcode),   HDR_FIELD(flags),
	HDR_FIELD(dtype),	 HDR_FIELD(op),	      HDR_FIELD(hdr_len),
	HDR_FIELD(version),	 HDR_FIELD(job),      HDR_FIELD(comm),
	HDR_FIELD(rank),	 HDR_FIELD(root),     HDR_FIELD(seq),
	HDR_FIELD(chunk),	 HDR_FIELD(msg_size), HDR_FIELD(chunk_size),
	HDR_FIELD(contributors), HDR_FIELD(status),   HDR_FIELD(auth),
};

static void
set_hdr_field(struct acis_hdr *h, size_t i, unsigned long long v)
{
	uint8_t *p = (uint8_t *)h + hdr_fields[i].off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;
	uint64_t v64 = v;

	switch (hdr_fields[i].size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	case 8:
		memcpy(p, &v64, 8);
		break;
	}
}

/* One field=value word into f; -1 if unknown or malformed. */
static int
set_field(struct frame *f, const char *key, const char *val)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (strcmp(key, "payload") == 0)
		return parse_hex(val, f);
	errno = 0;
	v = strcmp(val, "-1") == 0 ? 0xffffffffull : strtoull(val, &end, 0);
	if (errno != 0 || (val != end && *end != '\0') || val == end)
		return -1;
	for (i = 0; i < sizeof(hdr_fields) / sizeof(hdr_fields[0]); i++) {
		if (strcmp(key, hdr_fields[i].name) == 0) {
			set_hdr_field(&f->h, i, v);
			return 0;
		}
	}
	if (strcmp(key, "payload_len") == 0) {
		f->h.payload_len = (uint16_t)v;
		f->payload_len_set = 1;
	} else if (strcmp(key, "size") == 0 && v <= MAX_MSG) {
		f->size = v;
	} else if (strcmp(key, "cut") == 0) {
		f->cut = (long)v;
	} else if (strcmp(key, "port") == 0 && v <= 0xffff) {
		f->port = (uint16_t)v;
	} else {
		return -1;
	}
	return 0;
}

static void
w16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Ethernet / IPv4 / UDP (checksum 0) around msg, as a pcap record. */
static void
write_record(FILE *out, unsigned int n, uint16_t port, const uint8_t *msg,
	     size_t len)
{
	/* rank 0 of the testbed to the switch (acis_pcap.py's addresses) */
	static const uint8_t sw_mac[6] = {0x02, 0xac, 0x15, 0, 0, 0x01};
	static const uint8_t host_mac[6] = {0x02, 0xa0, 0, 0, 0, 0x10};
	uint8_t fr[14 + 20 + 8 + MAX_MSG + 60] = {0};
	uint8_t *ip = fr + 14, *udp = ip + 20;
	size_t flen = 14 + 20 + 8 + len;
	uint32_t rec[4];

	memcpy(fr, sw_mac, 6);
	memcpy(fr + 6, host_mac, 6);
	w16(fr + 12, 0x0800);
	ip[0] = 0x45;
	w16(ip + 2, (unsigned int)(20 + 8 + len));
	w16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (const uint8_t[]){10, 77, 0, 10}, 4);
	memcpy(ip + 16, (const uint8_t[]){10, 77, 0, 1}, 4);
	w16(ip + 10, ip_csum(ip, 20));
	w16(udp, 40000);
	w16(udp + 2, port);
	w16(udp + 4, (unsigned int)(8 + len));
	memcpy(udp + 8, msg, len);
	if (flen < 60)
		flen = 60; /* the Ethernet minimum, less the FCS */
	rec[0] = n;
	rec[1] = 0;
	rec[2] = rec[3] = (uint32_t)flen;
	fwrite(rec, sizeof(rec), 1, out);
	fwrite(fr, flen, 1, out);
}

/* The frame described by line into f; the bad word, or NULL when valid. */
static const char *
parse_line(char *line, struct frame *f)
{
	char *save = NULL, *w;

	memset(f, 0, sizeof(*f));
	f->h.version = ACIS_PROTO_VERSION;
	f->h.hdr_len = ACIS_HDR_LEN;
	f->h.root = ACIS_RANK_NONE;
	f->cut = -1;
	f->port = 47000;
	for (w = strtok_r(line, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '=');

		if (eq == NULL)
			return w;
		*eq = '\0';
		if (set_field(f, w, eq + 1) != 0) {
			*eq = '=';
			return w;
		}
	}
	if (f->size < f->payload_bytes)
		f->size = f->payload_bytes;
	if (!f->payload_len_set)
		f->h.payload_len = (uint16_t)f->size;
	return NULL;
}

int
main(int argc, char **argv)
{
	/* pcap file header: magic, version 2.4, zone, sigfigs, snaplen,
	 * Ethernet */
	static const uint32_t pcap_hdr[6] = {
		0xa1b2c3d4, 2 | 4 << 16, 0, 0, 65535, 1,
	};
	static struct frame f;
	static uint8_t msg[ACIS_HDR_LEN + MAX_MSG];
	char line[4 * MAX_MSG];
	unsigned int lineno = 0, n = 0;
	FILE *out;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUT.pcap < frames.txt\n", argv[0]);
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (out == NULL) {
		fprintf(stderr, "dissector_frames: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	fwrite(pcap_hdr, sizeof(pcap_hdr), 1, out);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		const char *bad;
		size_t len;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		bad = parse_line(line, &f);
		if (bad != NULL) {
			fprintf(stderr,
				"dissector_frames: stdin:%u: bad word '%s' "
				"(expected field=value, see "
				"dissector_frames.c)\n",
				lineno, bad);
			fclose(out);
			return 1;
		}
		acis_hdr_encode(&f.h, msg);
		memcpy(msg + ACIS_HDR_LEN, f.payload, f.size);
		len = ACIS_HDR_LEN + f.size;
		if (f.cut >= 0 && (size_t)f.cut < len)
			len = (size_t)f.cut;
		write_record(out, n++, f.port, msg, len);
	}
	if (fclose(out) != 0) {
		fprintf(stderr, "dissector_frames: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	return 0;
}
