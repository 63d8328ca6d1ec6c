/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-lookaside: a host of the switch's look-aside stage. It prepares
 * the resident data of the example handlers (examples/cgra), streams
 * their packets to the switch over UDP, and checks every result against
 * plain C on the same data, bit for bit.
 *
 *   acis-lookaside prep gcn|dot --dir DIR [--vpe F] [--seed S]
 *       writes DIR/bankK.bin for K = 1..F (DIR made if need be): what
 *       `acisctl cgra mem RULE K 0 DIR/bankK.bin` loads before the
 *       program starts.
 *   acis-lookaside run gcn|dot --to IP:PORT [--vpe F] [--seed S]
 *       [--form os|ws] [--handler N] [--mtu M] [--count C] [--len L]
 *       sends the packets and checks the answers; --handler N wraps each
 *       payload in an ACiS LOOKASIDE request for handler N.
 *
 * The graph and features come from the seed, so prep and run agree.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "acis_proto.h"
#include "gcn_host.h"

#define DOT_MAX 16384         /* floats of w_p resident (dot.s) */
#define DOT_ZERO_OFF 65536    /* bank offset of dot.s's 0.0f */

struct opts {
	const char *what;
	const char *dir;
	const char *to;
	unsigned int vpe;
	uint64_t seed;
	int ws;
	int handler;
	unsigned int mtu;
	unsigned int count;
	unsigned int len;
	unsigned int timeout_ms;
};

static int
die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "acis-lookaside: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
write_bank(const char *dir, unsigned int bank, const void *a, size_t alen,
	   size_t gap_to, const void *b, size_t blen)
{
	char path[4096];
	FILE *f;
	size_t i;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/bank%u.bin", dir, bank);
	f = fopen(path, "wb");
	if (f == NULL)
		return die("%s: %s", path, strerror(errno));
	if (fwrite(a, 1, alen, f) != alen)
		rc = 1;
	for (i = alen; i < gap_to && rc == 0; i++)
		if (fputc(0, f) == EOF)
			rc = 1;
	if (rc == 0 && blen && fwrite(b, 1, blen, f) != blen)
		rc = 1;
	if (fclose(f) != 0)
		rc = 1;
	return rc ? die("%s: write failed", path) : 0;
}

/* dot.s: w_p[i], varied magnitudes, and x of packet k. */
static float
dot_w(uint64_t seed, unsigned int p, unsigned int i)
{
	uint64_t s = seed ^ ((uint64_t)(p + 1) << 40) ^ i;

	return (float)((gcn_unit(&s) * 2.0 - 1.0) *
		       ldexp(1.0, (int)(gcn_rand(&s) % 7) - 3));
}

static float
dot_x(uint64_t seed, unsigned int k, unsigned int i)
{
	uint64_t s = ~seed ^ ((uint64_t)(k + 1) << 32) ^ i;

	return (float)(gcn_unit(&s) * 2.0 - 1.0);
}

static int
prep(const struct opts *o)
{
	unsigned int p;

	/* the folder itself, not its parents: a mistyped path stays an
	 * error */
	if (mkdir(o->dir, 0755) != 0 && errno != EEXIST)
		return die("%s: cannot make the folder: %s", o->dir,
			   strerror(errno));
	if (strcmp(o->what, "gcn") == 0) {
		static const float zeros[GCN_R];
		float *x = malloc((size_t)GCN_N * o->vpe * sizeof(float));
		float *col = malloc(GCN_N * sizeof(float));
		uint32_t j;

		if (x == NULL || col == NULL)
			return die("out of memory");
		gcn_features(x, GCN_N, o->vpe, o->seed);
		for (p = 0; p < o->vpe; p++) {
			for (j = 0; j < GCN_N; j++)
				col[j] = x[(size_t)j * o->vpe + p];
			if (write_bank(o->dir, p + 1, col, sizeof(float) * GCN_N,
				       GCN_ZEROS, zeros, sizeof(zeros)) != 0)
				return 1;
		}
		free(x);
		free(col);
		printf("gcn: %u banks of %u node features + %u zeros in %s\n",
		       o->vpe, GCN_N, GCN_R, o->dir);
		return 0;
	}
	for (p = 0; p < o->vpe; p++) {
		static float w[DOT_MAX];
		static const float zero;
		unsigned int i;

		for (i = 0; i < DOT_MAX; i++)
			w[i] = dot_w(o->seed, p, i);
		if (write_bank(o->dir, p + 1, w, sizeof(w), DOT_ZERO_OFF, &zero,
			       sizeof(zero)) != 0)
			return 1;
	}
	printf("dot: %u banks of %u weights in %s\n", o->vpe, DOT_MAX, o->dir);
	return 0;
}

struct link {
	int fd;
	struct sockaddr_in to;
	int handler;           /* > 0: ACiS LOOKASIDE requests */
	uint8_t buf[65536];
	uint64_t sent, bytes_sent, received;
};

static int
link_open(struct link *l, const struct opts *o)
{
	char host[64];
	const char *colon = strrchr(o->to, ':');
	struct timeval tv = {o->timeout_ms / 1000,
			     (o->timeout_ms % 1000) * 1000};
	int rcvbuf = 8 << 20;

	if (colon == NULL || (size_t)(colon - o->to) >= sizeof(host))
		return die("--to: expected IP:PORT, found '%s'", o->to);
	memcpy(host, o->to, (size_t)(colon - o->to));
	host[colon - o->to] = '\0';
	memset(&l->to, 0, sizeof(l->to));
	l->to.sin_family = AF_INET;
	l->to.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &l->to.sin_addr) != 1 ||
	    l->to.sin_port == 0)
		return die("--to: expected IP:PORT, found '%s'", o->to);
	l->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (l->fd < 0)
		return die("socket: %s", strerror(errno));
	setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(l->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	l->handler = o->handler;
	return 0;
}

static int
link_send(struct link *l, const void *payload, size_t len)
{
	size_t off = 0;

	if (l->handler > 0) {
		struct acis_hdr h = {
			.version = ACIS_PROTO_VERSION, .type = ACIS_T_LOOKASIDE,
			.opcode = (uint8_t)l->handler, .hdr_len = ACIS_HDR_LEN,
			.payload_len = (uint16_t)len, .root = 0xffffffffu,
		};

		acis_hdr_encode(&h, l->buf);
		off = ACIS_HDR_LEN;
	}
	memcpy(l->buf + off, payload, len);
	if (sendto(l->fd, l->buf, off + len, 0, (struct sockaddr *)&l->to,
		   sizeof(l->to)) < 0)
		return die("sendto %s: %s", inet_ntoa(l->to.sin_addr),
			   strerror(errno));
	l->sent++;
	l->bytes_sent += off + len;
	return 0;
}

/* The next answer's payload (the ACiS header checked and stripped);
 * its length, or -1 with a message. */
static ssize_t
link_recv(struct link *l, const uint8_t **payload, const char *what)
{
	ssize_t n = recv(l->fd, l->buf, sizeof(l->buf), 0);

	if (n < 0) {
		die("no answer for %s (%s): is the [lookaside] rule loaded and "
		    "running? see acisctl cgra stats and acisctl drops", what,
		    errno == EAGAIN ? "timed out" : strerror(errno));
		return -1;
	}
	l->received++;
	*payload = l->buf;
	if (l->handler > 0) {
		struct acis_hdr h;

		if (acis_msg_parse(l->buf, (size_t)n, &h) != ACIS_E_OK ||
		    h.type != ACIS_T_LOOKASIDE || h.opcode != l->handler) {
			die("answer for %s is not an ACiS LOOKASIDE reply of "
			    "handler %d", what, l->handler);
			return -1;
		}
		*payload = l->buf + h.hdr_len;
		return h.payload_len;
	}
	return n;
}

static size_t
max_payload(const struct opts *o)
{
	return o->mtu - 28 - (o->handler > 0 ? ACIS_HDR_LEN : 0);
}

static int
run_gcn(const struct opts *o, struct link *l)
{
	struct gcn_graph g;
	struct gcn_packets pk;
	size_t rows_bytes = (size_t)GCN_R * o->vpe * sizeof(float);
	float *x, *y;
	uint32_t b = 0, mismatches = 0;
	size_t i;
	double t0;

	if (rows_bytes > max_payload(o))
		return die("a block's result (%zu bytes for %u VPEs) exceeds "
			   "the MTU's payload (%zu): use fewer VPEs or a larger "
			   "--mtu", rows_bytes, o->vpe, max_payload(o));
	x = malloc((size_t)GCN_N * o->vpe * sizeof(float));
	y = malloc((size_t)GCN_N * o->vpe * sizeof(float));
	if (x == NULL || y == NULL || gcn_graph_make(&g, GCN_N, o->seed) != 0)
		return die("out of memory");
	gcn_features(x, GCN_N, o->vpe, o->seed);
	gcn_reference(&g, x, o->vpe, y);
	if ((o->ws ? gcn_pack_ws_max(&g, &pk, max_payload(o)) :
		     gcn_pack_os_max(&g, &pk, max_payload(o))) != 0)
		return die("out of memory");
	t0 = now_s();
	for (i = 0; i < pk.n; i++) {
		const uint8_t *p = pk.data + pk.start[i];
		size_t len = pk.start[i + 1] - pk.start[i];
		uint32_t last;
		const uint8_t *ans;
		ssize_t n;
		char what[64];

		if (link_send(l, p, len) != 0)
			return 1;
		memcpy(&last, p + 4, 4);
		if (!last)
			continue;
		/* A block's last packet: its R rows come back. */
		snprintf(what, sizeof(what), "block %u", b);
		n = link_recv(l, &ans, what);
		if (n < 0)
			return 1;
		if ((size_t)n != rows_bytes)
			return die("block %u: %zd bytes back, expected %zu", b,
				   n, rows_bytes);
		if (memcmp(ans, y + (size_t)b * GCN_R * o->vpe, rows_bytes) != 0)
			mismatches++;
		b++;
	}
	printf("gcn %s: %u nodes, %u nonzeros, %u features (VPEs): %zu packets "
	       "(%llu bytes) -> %u blocks of %u rows back in %.3f s; "
	       "%s\n", o->ws ? "ws" : "os", g.n, g.nnz, o->vpe, pk.n,
	       (unsigned long long)l->bytes_sent, b, GCN_R, now_s() - t0,
	       mismatches == 0 && b == GCN_N / GCN_R ?
	       "equal to the C reference, bit for bit" : "MISMATCH");
	if (mismatches)
		fprintf(stderr, "acis-lookaside: %u of %u blocks differ from "
			"the reference\n", mismatches, b);
	gcn_packets_free(&pk);
	gcn_graph_free(&g);
	free(x);
	free(y);
	return mismatches == 0 && b == GCN_N / GCN_R ? 0 : 1;
}

static int
run_dot(const struct opts *o, struct link *l)
{
	unsigned int k, i, p, bad = 0;
	float *xv = malloc(sizeof(float) * o->len);
	float want[ACIS_CGRA_MAX_VPE];
	double t0 = now_s();

	if (xv == NULL)
		return die("out of memory");
	if (o->len == 0 || o->len > DOT_MAX ||
	    o->len * sizeof(float) > max_payload(o))
		return die("--len %u: expected 1..%zu floats for this MTU",
			   o->len, (size_t)DOT_MAX < max_payload(o) / 4 ? (size_t)DOT_MAX : max_payload(o) / 4);
	for (k = 0; k < o->count; k++) {
		const uint8_t *ans;
		char what[32];
		ssize_t n;

		for (i = 0; i < o->len; i++)
			xv[i] = dot_x(o->seed, k, i);
		for (p = 0; p < o->vpe; p++) {
			float acc = 0.0f;

			for (i = 0; i < o->len; i++)
				acc = fmaf(xv[i], dot_w(o->seed, p, i), acc);
			want[p] = acc;
		}
		if (link_send(l, xv, o->len * sizeof(float)) != 0)
			return 1;
		snprintf(what, sizeof(what), "vector %u", k);
		n = link_recv(l, &ans, what);
		if (n < 0)
			return 1;
		if ((size_t)n != o->vpe * sizeof(float))
			return die("vector %u: %zd bytes back, expected %zu", k,
				   n, o->vpe * sizeof(float));
		if (memcmp(ans, want, (size_t)n) != 0)
			bad++;
	}
	printf("dot: %u vectors of %u floats against %u resident rows in "
	       "%.3f s: %s\n", o->count, o->len, o->vpe, now_s() - t0,
	       bad == 0 ? "equal to the C reference, bit for bit" :
	       "MISMATCH");
	free(xv);
	return bad == 0 ? 0 : die("%u of %u results differ", bad, o->count);
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: acis-lookaside prep gcn|dot --dir DIR [--vpe F] [--seed S]\n"
		"       acis-lookaside run gcn|dot --to IP:PORT [--vpe F] [--seed S]\n"
		"                      [--form os|ws] [--handler N] [--mtu M]\n"
		"                      [--count C] [--len L] [--timeout MS]\n"
		"\n"
		"  --vpe F       VPEs of the switch's rule (GCN features), default 4\n"
		"  --seed S      graph, features and vectors, default 1\n"
		"  --form os|ws  GCN handler: gcn_os.s or gcn_ws.s, default os\n"
		"  --handler N   send ACiS LOOKASIDE requests for handler N\n"
		"                (match = acis_handler N), else plain UDP\n"
		"  --mtu M       path MTU, default 1500\n"
		"  --count C     dot: vectors to send, default 64\n"
		"  --len L       dot: floats per vector, default 256\n"
		"  --timeout MS  wait for each answer, default 2000\n");
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"dir", required_argument, NULL, 'd'},
		{"to", required_argument, NULL, 't'},
		{"vpe", required_argument, NULL, 'v'},
		{"seed", required_argument, NULL, 's'},
		{"form", required_argument, NULL, 'f'},
		{"handler", required_argument, NULL, 'H'},
		{"mtu", required_argument, NULL, 'm'},
		{"count", required_argument, NULL, 'c'},
		{"len", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {.vpe = 4, .seed = 1, .mtu = 1500, .count = 64,
			 .len = 256, .timeout_ms = 2000};
	struct link *l;
	const char *mode;
	int c, rc;

	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	o.what = argv[2];
	optind = 3;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.dir = optarg; break;
		case 't': o.to = optarg; break;
		case 'v': o.vpe = (unsigned int)atoi(optarg); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'f':
			if (strcmp(optarg, "os") != 0 && strcmp(optarg, "ws") != 0)
				return die("--form: expected os or ws");
			o.ws = optarg[0] == 'w';
			break;
		case 'H': o.handler = atoi(optarg); break;
		case 'm': o.mtu = (unsigned int)atoi(optarg); break;
		case 'c': o.count = (unsigned int)atoi(optarg); break;
		case 'l': o.len = (unsigned int)atoi(optarg); break;
		case 'T': o.timeout_ms = (unsigned int)atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (strcmp(o.what, "gcn") != 0 && strcmp(o.what, "dot") != 0)
		return die("expected gcn or dot, found '%s'", o.what);
	if (o.vpe < 1 || o.vpe > ACIS_CGRA_MAX_VPE)
		return die("--vpe: expected 1..%d", ACIS_CGRA_MAX_VPE);
	if (o.handler < 0 || o.handler > 255)
		return die("--handler: expected 1..255 (0, the default: plain UDP)");
	if (o.mtu < 576 || o.mtu > 9000)
		return die("--mtu: expected 576..9000");
	if (strcmp(mode, "prep") == 0) {
		if (o.dir == NULL)
			return die("prep needs --dir DIR");
		return prep(&o);
	}
	if (strcmp(mode, "run") != 0) {
		usage(stderr);
		return 2;
	}
	if (o.to == NULL)
		return die("run needs --to IP:PORT (the switch's look-aside "
			   "port, or its ACiS port with --handler)");
	l = calloc(1, sizeof(*l));
	if (l == NULL || link_open(l, &o) != 0)
		return 1;
	rc = strcmp(o.what, "gcn") == 0 ? run_gcn(&o, l) : run_dot(&o, l);
	close(l->fd);
	free(l);
	return rc;
}
