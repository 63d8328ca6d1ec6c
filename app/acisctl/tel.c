/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry socket and a reader for the JSON the switch answers with.
 * The reader knows only what DPDK telemetry writes: dicts, arrays,
 * strings, numbers, true/false/null, no surprises in between.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tel.h"

const char *const tel_cmd_names[TEL_N] = {
	[TEL_INFO] = "/acis/info",
	[TEL_PORTS] = "/acis/ports",
	[TEL_STAGES] = "/acis/stages",
	[TEL_DROPS] = "/acis/drops",
	[TEL_LCORES] = "/acis/lcores",
	[TEL_L2] = "/acis/l2",
	[TEL_COLL] = "/acis/collectives",
	[TEL_FAULT] = "/acis/fault",
	[TEL_CGRA] = "/acis/cgra",
};

int
tel_stage_extra(const char *key)
{
	/* what tel_stages in app/acis-switch/stats.c adds after the stages;
	 * a prefix would not do: the stage "l2_forward" starts with l2_ */
	static const char *const extras[] = {
		"l2_flooded", "l2_flood_copies", "l2_learned",
		"local_arp_replies", "local_arp_in", "local_icmp_replies",
	};
	unsigned int i;

	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
		if (strcmp(extras[i], key) == 0)
			return 1;
	return 0;
}

int
tel_connect(const char *prefix, const char *sock_path, int *rc)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char greeting[1024];
	struct sockaddr_un sun;
	int n, fd;

	*rc = 2;
	if (sock_path == NULL) {
		const char *run = getuid() == 0 ? "/var/run" :
						  getenv("XDG_RUNTIME_DIR");

		n = snprintf(path, sizeof(path), "%s/dpdk/%s/dpdk_telemetry.v2",
			     run ? run : "/tmp", prefix);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			fprintf(stderr, "acisctl: socket path %s/dpdk/%s/"
				"dpdk_telemetry.v2 is longer than %zu "
				"characters (give a shorter --file-prefix, or "
				"the socket with -s)\n", run ? run : "/tmp",
				prefix, sizeof(path) - 1);
			return -1;
		}
		sock_path = path;
	}
	if (strlen(sock_path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "acisctl: socket path %s is longer than %zu "
			"characters\n", sock_path, sizeof(sun.sun_path) - 1);
		return -1;
	}
	*rc = 1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("acisctl: socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		fprintf(stderr, "acisctl: cannot reach a switch at %s: %s "
			"(is acis-switch running, with this --file-prefix?)\n",
			sock_path, strerror(errno));
		close(fd);
		return -1;
	}
	/* The server greets first with its version and output limit. */
	if (read(fd, greeting, sizeof(greeting)) <= 0) {
		fprintf(stderr, "acisctl: no reply from %s\n", sock_path);
		close(fd);
		return -1;
	}
	*rc = 0;
	return fd;
}

const char *tel_switch;

long
tel_request(int fd, const char *req, char *buf, size_t cap)
{
	char named[2048];
	ssize_t n;

	if (tel_switch != NULL && strncmp(req, "/acis/", 6) == 0) {
		/* the switch's commands take it as their first parameter */
		size_t c = strcspn(req, ",");
		int k = snprintf(named, sizeof(named), "%.*s,@%s%s%s", (int)c,
				 req, tel_switch, req[c] == ',' ? "," : "",
				 req[c] == ',' ? req + c + 1 : "");

		if (k < 0 || (size_t)k >= sizeof(named))
			return -1;
		req = named;
	}
	if (write(fd, req, strlen(req)) < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

/* ---- the reply, flattened ---- */

struct reader {
	const char *p;
	const char *path[3]; /* command, then object or key, then key */
	size_t path_len[3];
	struct tel_set *out;
};

static void
skip_ws(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
		r->p++;
}

/* A string's body, escapes kept undecoded except \" and \\ (the switch's
 * names and values are plain ASCII); cut to fit `len`. */
static int
read_string(struct reader *r, char *buf, size_t len)
{
	size_t n = 0;

	if (*r->p != '"')
		return -1;
	for (r->p++; *r->p != '"'; r->p++) {
		char c = *r->p;

		if (c == '\0')
			return -1;
		if (c == '\\') {
			r->p++;
			if (*r->p == '\0')
				return -1;
			c = *r->p;
		}
		if (n + 1 < len)
			buf[n++] = c;
	}
	r->p++;
	if (len > 0)
		buf[n] = '\0';
	return 0;
}

static int
add_leaf(struct reader *r, int depth, const char *text, int quoted)
{
	struct tel_set *s = r->out;
	struct tel_kv *kv;
	char *end;

	/* depth 2: {"/cmd": {KEY: v}}; depth 3: {"/cmd": {OBJ: {KEY: v}}} */
	if (depth != 2 && depth != 3)
		return 0;
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : 64;
		struct tel_kv *k = realloc(s->kv, cap * sizeof(*k));

		if (k == NULL)
			return -1;
		s->kv = k;
		s->cap = cap;
	}
	kv = &s->kv[s->n++];
	memset(kv, 0, sizeof(*kv));
	if (depth == 3)
		snprintf(kv->obj, sizeof(kv->obj), "%s", r->path[1]);
	snprintf(kv->key, sizeof(kv->key), "%s", r->path[depth - 1]);
	snprintf(kv->str, sizeof(kv->str), "%s", text);
	if (!quoted && text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		kv->num = strtoull(text, &end, 10);
		kv->is_num = errno == 0 && *end == '\0';
	}
	return 0;
}

/* One value at `depth` (the number of enclosing keys). */
static int
read_value(struct reader *r, int depth)
{
	char key[sizeof(((struct tel_kv *)0)->key)];
	char text[sizeof(((struct tel_kv *)0)->str)];
	size_t n;

	skip_ws(r);
	if (*r->p == '{' || *r->p == '[') {
		int is_dict = *r->p == '{';
		char close = is_dict ? '}' : ']';

		r->p++;
		skip_ws(r);
		if (*r->p == close) {
			r->p++;
			return 0;
		}
		for (;;) {
			int d = depth;

			skip_ws(r);
			if (is_dict) {
				if (read_string(r, key, sizeof(key)) != 0)
					return -1;
				skip_ws(r);
				if (*r->p++ != ':')
					return -1;
				if (depth < 3)
					r->path[depth] = key;
				d = depth + 1;
			} else {
				d = 99; /* array items are not recorded */
			}
			if (read_value(r, d) != 0)
				return -1;
			skip_ws(r);
			if (*r->p == ',') {
				r->p++;
				continue;
			}
			if (*r->p++ != close)
				return -1;
			return 0;
		}
	}
	if (*r->p == '"') {
		if (read_string(r, text, sizeof(text)) != 0)
			return -1;
		return add_leaf(r, depth, text, 1);
	}
	for (n = 0; (*r->p >= '0' && *r->p <= '9') || (*r->p >= 'a' &&
	     *r->p <= 'z') || *r->p == '-' || *r->p == '+' || *r->p == '.' ||
	     *r->p == 'E'; r->p++)
		if (n + 1 < sizeof(text))
			text[n++] = *r->p;
	if (n == 0)
		return -1;
	text[n] = '\0';
	return add_leaf(r, depth, text, 0);
}

int
tel_parse(const char *json, struct tel_set *out)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.p = json;
	r.out = out;
	if (read_value(&r, 0) != 0)
		return -1;
	skip_ws(&r);
	return *r.p == '\0' ? 0 : -1;
}

void
tel_set_clear(struct tel_set *s)
{
	s->n = 0;
}

void
tel_set_free(struct tel_set *s)
{
	free(s->kv);
	memset(s, 0, sizeof(*s));
}

const struct tel_kv *
tel_find(const struct tel_set *s, const char *obj, const char *key)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->kv[i].obj, obj) == 0 &&
		    strcmp(s->kv[i].key, key) == 0)
			return &s->kv[i];
	return NULL;
}

uint64_t
tel_u64(const struct tel_set *s, const char *obj, const char *key)
{
	const struct tel_kv *kv = tel_find(s, obj, key);

	return kv != NULL && kv->is_num ? kv->num : 0;
}

int
tel_sample_take(int fd, struct tel_sample *s, char *buf, size_t cap)
{
	struct timespec ts;
	unsigned int i;

	for (i = 0; i < TEL_N; i++) {
		tel_set_clear(&s->set[i]);
		if (tel_request(fd, tel_cmd_names[i], buf, cap) < 0)
			return -1;
		/* an unknown command is {"cmd": null}: an empty set */
		if (tel_parse(buf, &s->set[i]) != 0)
			tel_set_clear(&s->set[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return 0;
}

void
tel_sample_free(struct tel_sample *s)
{
	unsigned int i;

	for (i = 0; i < TEL_N; i++)
		tel_set_free(&s->set[i]);
}
