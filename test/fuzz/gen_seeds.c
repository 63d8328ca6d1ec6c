/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seed generator for the fuzz targets, run by build.sh:
 *
 *   gen_seeds REPO_ROOT OUT_DIR
 *
 * writes OUT_DIR/<target>/<name> for the binary inputs that are easier
 * to build than to keep: frames with correct checksums (the shared test
 * frame builders), encoded ACiS headers, communicator-table programs
 * and CGRA programs (the examples/cgra programs and a few inline ones,
 * assembled, in both the binary and the text form of fuzz_cgra's input).
 * Built from the library sources, the seeds follow any change of a
 * format.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef ACIS_FUZZ_CGRA
#include "acis_cgra.h"
#endif
#include "acis_pkt.h"
#include "acis_proto.h"
#include "frames.h"

static const char *out_dir;
static int failed;

static void
put(const char *target, const char *name, const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, target);
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		perror(path);
		failed = 1;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		failed = 1;
	}
}

/* ---- ACiS headers (fuzz_proto, and payloads of fuzz_pkt frames) ---- */

/* A valid message: header h (hdr_len, payload_len set here) + payload. */
static size_t
msg(uint8_t *buf, struct acis_hdr *h, unsigned int ext, size_t payload_len)
{
	size_t i;

	h->version = ACIS_PROTO_VERSION;
	h->hdr_len = (uint16_t)(ACIS_HDR_LEN + ext);
	h->payload_len = (uint16_t)payload_len;
	acis_hdr_encode(h, buf);
	for (i = 0; i < ext; i++)
		buf[ACIS_HDR_LEN + i] = 0;
	for (i = 0; i < payload_len; i++)
		buf[ACIS_HDR_LEN + ext + i] = (uint8_t)(i * 7);
	return ACIS_HDR_LEN + ext + payload_len;
}

static size_t
data_msg(uint8_t *buf, uint8_t type, uint8_t coll, uint8_t algo,
	 uint8_t dtype, uint8_t op, uint64_t msg_size, uint16_t chunk_size,
	 uint32_t chunk, uint8_t flags)
{
	struct acis_hdr h;
	uint64_t per_rank = acis_n_chunks(msg_size, chunk_size);
	uint64_t c = chunk, off;
	size_t pl;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.opcode = ACIS_OPCODE(coll, algo);
	h.flags = flags;
	h.dtype = dtype;
	h.op = op;
	h.job = 7;
	h.comm = 0x00010003;
	h.rank = 1;
	h.root = coll == ACIS_C_REDUCE || coll == ACIS_C_BCAST ?
		 0 : ACIS_RANK_NONE;
	h.seq = 42;
	h.chunk = chunk;
	h.msg_size = msg_size;
	h.chunk_size = chunk_size;
	h.contributors = 4;
	/* scatter-like collectives number chunks rank-major */
	if (coll == ACIS_C_SCATTER || coll == ACIS_C_REDUCE_SCATTER)
		c %= per_rank;
	off = c * chunk_size;
	pl = coll == ACIS_C_BARRIER || off >= msg_size ? 0 :
	     msg_size - off < chunk_size ? msg_size - off : chunk_size;
	return msg(buf, &h, 0, pl);
}

static size_t
ctrl_msg(uint8_t *buf, uint8_t type, uint8_t opcode, uint16_t status,
	 size_t payload_len)
{
	struct acis_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.opcode = opcode;
	h.job = 7;
	h.comm = ACIS_CTX_NONE;
	h.rank = 2;
	h.root = 4; /* join: world size */
	h.seq = 1;
	h.status = status;
	return msg(buf, &h, 0, payload_len);
}

static void
proto_seeds(void)
{
	uint8_t b[2048];
	struct acis_hdr h;
	size_t n;

	n = data_msg(b, ACIS_T_DATA, ACIS_C_ALLREDUCE, ACIS_A_DEFAULT,
		     ACIS_FLOAT32, ACIS_OP_SUM, 4096, 1024, 1, 0);
	put("fuzz_proto", "data_allreduce_f32", b, n);
	n = data_msg(b, ACIS_T_DATA, ACIS_C_ALLREDUCE, ACIS_A_RING,
		     ACIS_INT32, ACIS_OP_BXOR, 100, 64, 1, ACIS_F_LAST);
	put("fuzz_proto", "data_allreduce_ring_last", b, n);
	n = data_msg(b, ACIS_T_RESULT, ACIS_C_REDUCE_SCATTER,
		     ACIS_A_RECURSIVE_HALVING, ACIS_FLOAT64, ACIS_OP_MAX,
		     512, 128, 6, ACIS_F_MULTICAST);
	put("fuzz_proto", "result_reduce_scatter", b, n);
	n = data_msg(b, ACIS_T_DATA, ACIS_C_SCATTER, ACIS_A_BINOMIAL,
		     ACIS_BFLOAT16, ACIS_OP_NONE, 96, 64, 3, 0);
	put("fuzz_proto", "data_scatter_bf16", b, n);
	n = data_msg(b, ACIS_T_RESULT, ACIS_C_GATHER, ACIS_A_DEFAULT,
		     ACIS_UINT64, ACIS_OP_NONE, 64, 64, 0, ACIS_F_PACKED);
	put("fuzz_proto", "result_gather_packed", b, n);
	/* an odd count of bytes, the last chunk; 16-bit integers */
	n = data_msg(b, ACIS_T_DATA, ACIS_C_ALLREDUCE, ACIS_A_DEFAULT,
		     ACIS_INT8, ACIS_OP_MIN, 101, 64, 1, ACIS_F_LAST);
	put("fuzz_proto", "data_allreduce_i8_odd", b, n);
	n = data_msg(b, ACIS_T_RESULT, ACIS_C_REDUCE_SCATTER, ACIS_A_RING,
		     ACIS_UINT16, ACIS_OP_BAND, 96, 32, 4, 0);
	put("fuzz_proto", "result_reduce_scatter_u16", b, n);
	n = data_msg(b, ACIS_T_DATA, ACIS_C_BARRIER, ACIS_A_DEFAULT, 0, 0, 0,
		     8, 0, 0);
	put("fuzz_proto", "data_barrier", b, n);
	n = ctrl_msg(b, ACIS_T_CTRL, ACIS_CTRL_JOIN, ACIS_S_OK, 0);
	put("fuzz_proto", "ctrl_join", b, n);
	n = ctrl_msg(b, ACIS_T_CTRL, ACIS_CTRL_SPLIT, ACIS_S_OK, 12);
	put("fuzz_proto", "ctrl_split", b, n);
	n = ctrl_msg(b, ACIS_T_CTRL_ACK, ACIS_CTRL_COMM_QUERY, ACIS_S_OK, 8);
	put("fuzz_proto", "ctrl_ack_query", b, n);
	n = ctrl_msg(b, ACIS_T_NACK, 0, ACIS_S_BUSY, 0);
	put("fuzz_proto", "nack_busy", b, n);
	memset(&h, 0, sizeof(h));
	h.type = ACIS_T_LOOKASIDE;
	h.job = 1;
	n = msg(b, &h, 8, 64); /* with an 8-byte header extension */
	put("fuzz_proto", "lookaside_ext", b, n);
	n = data_msg(b, ACIS_T_DATA, ACIS_C_ALLREDUCE, ACIS_A_DEFAULT,
		     ACIS_FLOAT32, ACIS_OP_SUM, 4096, 1024, 1, 0);
	put("fuzz_proto", "truncated", b, 40);
}

/* ---- frames (fuzz_pkt) ---- */

static struct tf_addr
sw_addr(void)
{
	static const uint8_t sw_mac[6] = {0x02, 0xac, 0x15, 0x00, 0x00, 0x01};
	struct tf_addr a = tf_host(1); /* 10.77.0.1 */

	memcpy(a.mac, sw_mac, 6);
	return a;
}

static void
pkt_seeds(void)
{
	static uint8_t f[10000], m[9000];
	struct tf_addr sw = sw_addr(), h = tf_host(10), o = tf_host(11);
	size_t ml;
	unsigned int n;

	ml = data_msg(m, ACIS_T_DATA, ACIS_C_ALLREDUCE, ACIS_A_DEFAULT,
		      ACIS_FLOAT32, ACIS_OP_SUM, 256, 256, 0, ACIS_F_LAST);
	n = tf_udp(f, &sw, &h, 47000, 47000, m, (unsigned int)ml, -1);
	put("fuzz_pkt", "acis_data", f, n);
	n = tf_udp(f, &sw, &h, 47000, 47000, m, (unsigned int)ml, 100);
	put("fuzz_pkt", "acis_data_vlan", f, n);
	/* QinQ: an outer 802.1ad tag in front of the 802.1Q one */
	memmove(f + 16, f + 12, n - 12);
	f[12] = 0x88;
	f[13] = 0xa8;
	f[14] = 0x00;
	f[15] = 0x0a;
	put("fuzz_pkt", "acis_data_qinq", f, n + 4);

	ml = ctrl_msg(m, ACIS_T_CTRL, ACIS_CTRL_JOIN, ACIS_S_OK, 0);
	n = tf_udp(f, &sw, &h, 47000, 47000, m, (unsigned int)ml, -1);
	put("fuzz_pkt", "acis_ctrl_join", f, n);

	ml = data_msg(m, ACIS_T_DATA, ACIS_C_BCAST, ACIS_A_DEFAULT,
		      ACIS_FLOAT64, ACIS_OP_NONE, 1 << 20, 8192, 3, 0);
	n = tf_udp(f, &sw, &h, 47000, 47000, m, (unsigned int)ml, -1);
	put("fuzz_pkt", "acis_data_jumbo", f, n);

	n = tf_udp(f, &sw, &h, 47000, 5000, "hello", 5, -1);
	put("fuzz_pkt", "udp_other_port", f, n);
	n = tf_udp(f, &o, &h, 1234, 47000, "forward me", 10, -1);
	put("fuzz_pkt", "udp_forward", f, n);
	n = tf_icmp_echo(f, &sw, &h, 1, 1, 32);
	put("fuzz_pkt", "icmp_echo", f, n);
	n = tf_arp_request(f, &h, sw.ip);
	put("fuzz_pkt", "arp_request", f, n);
	n = tf_eth(f, sw.mac, h.mac, 0x86dd, -1);
	memset(f + n, 0x60, 40);
	put("fuzz_pkt", "ipv6_to_switch", f, n + 40);
}

/* ---- communicator table programs (fuzz_comm) ---- */

static void
comm_seeds(void)
{
	/* Opcodes as fuzz_comm.c decodes them (op % 12). */
	enum { JOIN = 0, LEAVE = 1, SPLIT = 2, FREE = 3, CREATE = 4,
	       REMOVE = 5, LOOKUP = 6, JOIN_ALL = 7, SPLIT_ALL = 9,
	       FREE_ALL = 10, LEAVE_ALL = 11 };
	/* job 1 of 4 ranks joins; the world splits by parity; a child is
	 * freed; a management comm is made and removed; everyone leaves */
	static const uint8_t life[] = {
		JOIN_ALL, 1, 4, 0,
		SPLIT_ALL, 0, 1, 0x00, 0x01, 0x10, 0x11,
		LOOKUP, 1,
		FREE_ALL, 1, 2,
		CREATE, 1, 3, 3, 1, 0,
		REMOVE, 3,
		LEAVE_ALL, 1,
	};
	/* single requests, a rank taken, a size mismatch, a bad leave */
	static const uint8_t single[] = {
		JOIN, 2, 2, 0, 5,
		JOIN, 2, 2, 0, 6,
		JOIN, 2, 3, 1, 7,
		JOIN, 2, 2, 1, 7,
		SPLIT, 0, 1, 0, 0x04,
		SPLIT, 0, 1, 1, 0x02,
		FREE, 0, 2, 0,
		FREE, 0, 2, 1,
		LEAVE, 2, 0, 6,
		LEAVE, 2, 0, 5,
		LEAVE, 2, 1, 7,
	};
	/* fill the table: jobs, members and communicators run out */
	static const uint8_t full[] = {
		JOIN_ALL, 0, 8, 0,
		JOIN_ALL, 1, 8, 8,
		JOIN_ALL, 2, 8, 16,
		JOIN_ALL, 3, 8, 24,
		JOIN_ALL, 4, 8, 32,
		SPLIT_ALL, 0, 0, 0, 1, 2, 3, 0, 1, 2, 3,
		CREATE, 0, 2, 0, 1,
		CREATE, 1, 2, 0, 1,
		LEAVE_ALL, 0,
		JOIN_ALL, 4, 2, 32,
	};

	put("fuzz_comm", "lifecycle", life, sizeof(life));
	put("fuzz_comm", "single_requests", single, sizeof(single));
	put("fuzz_comm", "table_full", full, sizeof(full));
}

/* ---- CGRA programs (fuzz_cgra) ---- */
#ifdef ACIS_FUZZ_CGRA

/* fuzz_cgra's byte 0 */
#define CFG_TEXT 0x01
#define CFG_VPE(i) ((i) << 1)    /* 1, 2, 3, 5 VPEs */
#define CFG_VREGS(i) ((i) << 3)  /* 4096, 16, 256, 1024 */
#define CFG_ONE_BANK 0x20
#define CFG_OUT(i) ((i) << 6)    /* in_len, 0, 64, 128 KiB */

#define PAYLOAD_LEN 64 /* 16 words */

/* Both forms of one program: text (cfg, source, NUL, payload) and
 * binary (cfg, count, words, payload). */
static void
cgra_seed(const char *name, const char *src, uint8_t cfg, int words)
{
	/* floats for the numeric handlers; for the GCN ones a packet of
	 * 32-bit words: tile 7 (the last), last 1, row 0, 8 columns */
	static const float floats[16] = {1, 2, 3, 4, 5, 6, 7, 8, -1, -2,
					 0.5f, 0.25f, 1e30f, -0.0f, 3, 7};
	static const uint32_t ints[16] = {7, 1, 0, 3585, 3600, 3700, 4000,
					  4095, 0xffffffff, 0xffffffff,
					  0xffffffff, 5, 3, 1, 2, 4};
	const void *payload = words ? (const void *)ints : (const void *)floats;
	char err[256], fname[256];
	uint32_t *w;
	size_t n, sl = strlen(src), len, i;
	uint8_t *b;

	if (acis_cgra_asm(src, name, &w, &n, err, sizeof(err)) != 0) {
		/* the assembler is under test too: warn, do not fail */
		fprintf(stderr, "gen_seeds: skipping %s: %s\n", name, err);
		return;
	}
	b = malloc(1 + sl + 1 + PAYLOAD_LEN + 2 + 4 * n);
	if (b == NULL) {
		failed = 1;
		free(w);
		return;
	}
	b[0] = (uint8_t)(cfg | CFG_TEXT);
	memcpy(b + 1, src, sl + 1);
	memcpy(b + 1 + sl + 1, payload, PAYLOAD_LEN);
	snprintf(fname, sizeof(fname), "%s.text", name);
	put("fuzz_cgra", fname, b, 1 + sl + 1 + PAYLOAD_LEN);

	len = 0;
	b[len++] = (uint8_t)(cfg & ~CFG_TEXT);
	b[len++] = (uint8_t)n;
	b[len++] = (uint8_t)(n >> 8);
	for (i = 0; i < n; i++) {
		b[len++] = (uint8_t)w[i];
		b[len++] = (uint8_t)(w[i] >> 8);
		b[len++] = (uint8_t)(w[i] >> 16);
		b[len++] = (uint8_t)(w[i] >> 24);
	}
	memcpy(b + len, payload, PAYLOAD_LEN);
	len += PAYLOAD_LEN;
	snprintf(fname, sizeof(fname), "%s.bin", name);
	put("fuzz_cgra", fname, b, len);
	free(b);
	free(w);
}

static void
cgra_seeds(const char *root)
{
	static const struct {
		const char *file;
		uint8_t cfg;
		int words; /* integer payload */
	} examples[] = {
		{"passthrough.s", CFG_VPE(0) | CFG_VREGS(0) | CFG_OUT(0), 0},
		{"axpy.s", CFG_VPE(0) | CFG_VREGS(0) | CFG_OUT(3), 0},
		{"dot.s", CFG_VPE(1) | CFG_VREGS(0) | CFG_OUT(3), 0},
		{"gcn_os.s", CFG_VPE(2) | CFG_VREGS(0) | CFG_OUT(3), 1},
		{"gcn_ws.s", CFG_VPE(3) | CFG_VREGS(0) | CFG_OUT(3), 1},
	};
	/* small handlers touching what the examples do not */
	static const struct {
		const char *name;
		const char *src;
		uint8_t cfg;
	} inline_progs[] = {
		{"csrs",
		 "\tcsrrw x1, cycle, x0\n"
		 "\tcsrrw x2, sin_word, x0\n"
		 "\tcsrrw x3, sin_left, x0\n"
		 "\taddi x4, x0, 3\n"
		 "\tcsrrw x5, tile, x4\n"
		 "\taddi x4, x4, 2\n"
		 "\tcsrrw x0, tile, x4\n"
		 "\tvsetivli x0, 4, e32, m1\n"
		 "\tstreamout.v sin\n"
		 "\taddi x6, x0, 8\n"
		 "\tcsrrw x0, packet_length, x6\n"
		 "\twfi\n",
		 CFG_VPE(1) | CFG_VREGS(1) | CFG_OUT(2)},
		{"vector_ops",
		 "\tvsetivli x7, 32, e32, m2\n"
		 "\tvle32.v v2, (x0), b1\n"
		 "\tvfadd.vv v4, v2, sin\n"
		 "\tvfmul.vv v6, v4, sin\n"
		 "\taddi x1, x0, 16\n"
		 "\tvmacc.vx v6, x1, sin\n"
		 "\tvmacc.xv x1, v6, sin\n"
		 "\tspvacc.vx v8, sin, x1\n"
		 "\tspvacc.xv x1, v8, sin\n"
		 "\tvse32.v v6, (x0)\n"
		 "\tvse32.v v6, (x0), b1\n"
		 "\tstreamout.v v6\n"
		 "\twfi\n",
		 CFG_VPE(2) | CFG_VREGS(2) | CFG_OUT(3)},
		{"loop",
		 "\taddi x1, x0, 5\n"
		 "back:\taddi x1, x1, -1\n"
		 "\tadd x2, x2, x1\n"
		 "\tlui x3, 0xfffff\n"
		 "\tbne x1, x0, back\n"
		 "\tbne x2, x0, end\n"
		 "\t.word 0x00000013\n"
		 "end:\twfi\n",
		 CFG_VPE(0) | CFG_VREGS(3) | CFG_OUT(1)},
		/* the fused vle/vmacc/streamout on several VPEs: v0[x]
		 * inside vd, own banks, a broadcast bank, a branch into the
		 * middle */
		{"fused",
		 "\tvsetivli x0, 8, e32, m1\n"
		 "\tvle32.v v0, (x0), b1\n"
		 "\taddi x1, x0, 2\n"
		 "again:\tvle32.v v0, (x0), b1\n"
		 "\tvmacc.vx v0, x1, sin\n"
		 "\tstreamout.v v0\n"
		 "\tvle32.v v1, (x2)\n"
		 "mid:\tvmacc.vx v1, x0, sin\n"
		 "\tstreamout.v v1\n"
		 "\tvle32.v v2, (x2), b1\n"
		 "\tvmacc.vx v2, x1, sin\n"
		 "\tstreamout.v v2\n"
		 "\taddi x2, x2, 4\n"
		 "\tcsrrw x3, sin_left, x0\n"
		 "\tbne x3, x0, again\n"
		 "\tbne x4, x0, end\n"
		 "\taddi x4, x0, 1\n"
		 "\tbne x4, x0, mid\n"
		 "end:\twfi\n",
		 CFG_VPE(2) | CFG_VREGS(0) | CFG_OUT(3)},
		{"budget",
		 "spin:\taddi x1, x1, 1\n"
		 "\tbne x1, x0, spin\n"
		 "\twfi\n",
		 CFG_VPE(0) | CFG_VREGS(1) | CFG_OUT(0)},
	};
	char path[4096], err[4096 + 256];
	size_t i, len;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		uint8_t *src;

		snprintf(path, sizeof(path), "%s/examples/cgra/%s", root,
			 examples[i].file);
		if (acis_cgra_read_file(path, &src, &len, err,
					sizeof(err)) != 0) {
			/* an example renamed or gone: not worth a failure */
			fprintf(stderr, "gen_seeds: skipping %s\n", err);
			continue;
		}
		cgra_seed(examples[i].file, (const char *)src,
			  examples[i].cfg, examples[i].words);
		free(src);
	}
	for (i = 0; i < sizeof(inline_progs) / sizeof(inline_progs[0]); i++)
		cgra_seed(inline_progs[i].name, inline_progs[i].src,
			  inline_progs[i].cfg, 0);
}
#endif /* ACIS_FUZZ_CGRA */

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s REPO_ROOT OUT_DIR\n", argv[0]);
		return 2;
	}
	out_dir = argv[2];
	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
		perror(out_dir);
		return 1;
	}
	proto_seeds();
	pkt_seeds();
	comm_seeds();
#ifdef ACIS_FUZZ_CGRA
	cgra_seeds(argv[1]);
#endif
	return failed;
}
