/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acisctl's side of DPDK telemetry: the socket, one request and its reply,
 * and a reply flattened into (object, key, value) entries, which is all
 * the shape the switch's /acis/ commands have. Shared by the one-shot
 * commands, `metrics` and `top`.
 */
#ifndef ACISCTL_TEL_H
#define ACISCTL_TEL_H

#include <stddef.h>
#include <stdint.h>

/* The largest reply read; DPDK's own output limit is far below. */
#define TEL_REPLY_MAX (1 << 20)

/*
 * Connect to the switch with EAL --file-prefix `prefix`, or at
 * `sock_path` when not NULL, and read the server's greeting. The file
 * descriptor, or -1 with a message printed and *rc set to the exit code
 * (2: a path that cannot be used, 1: no switch there).
 */
int tel_connect(const char *prefix, const char *sock_path, int *rc);

/*
 * Send `req` and read its reply into buf (cap bytes, NUL-terminated).
 * The reply's length, or -1 when the switch did not answer.
 */
long tel_request(int fd, const char *req, char *buf, size_t cap);

/* The switch of a process of several (acisctl -n) that requests name,
 * or NULL: the process's first. */
extern const char *tel_switch;

/* One leaf of a reply: {"/cmd": {KEY: v}} or {"/cmd": {OBJ: {KEY: v}}}. */
struct tel_kv {
	char obj[48];  /* "" for a leaf directly under the command */
	char key[48];
	char str[96];  /* the value as text, strings unquoted */
	uint64_t num;
	int is_num;    /* an unsigned integer: num holds it */
};

struct tel_set {
	struct tel_kv *kv;
	unsigned int n, cap;
};

/*
 * Flatten a reply into `out` (appended; arrays and deeper levels are
 * skipped). 0, or -1 on malformed JSON or no memory.
 */
int tel_parse(const char *json, struct tel_set *out);
void tel_set_clear(struct tel_set *s);
void tel_set_free(struct tel_set *s);
const struct tel_kv *tel_find(const struct tel_set *s, const char *obj,
			      const char *key);
/* A numeric leaf's value, 0 when absent. */
uint64_t tel_u64(const struct tel_set *s, const char *obj, const char *key);

/* A key of /acis/stages that is a counter of its own, not a stage. */
int tel_stage_extra(const char *key);

/* The switch's read-only commands that metrics and top sample. */
enum tel_cmd {
	TEL_INFO,
	TEL_PORTS,
	TEL_STAGES,
	TEL_DROPS,
	TEL_LCORES,
	TEL_L2,
	TEL_COLL,
	TEL_FAULT,
	TEL_CGRA,
	TEL_N
};

extern const char *const tel_cmd_names[TEL_N];

struct tel_sample {
	struct tel_set set[TEL_N];
	double t; /* CLOCK_MONOTONIC seconds when taken */
};

/* Every command in turn; a command the switch does not know leaves its
 * set empty. 0, or -1 when the switch stopped answering. */
int tel_sample_take(int fd, struct tel_sample *s, char *buf, size_t cap);
void tel_sample_free(struct tel_sample *s);

/*
 * acisctl metrics / acisctl top, given their words (argv[0] the
 * command's name) and where the switch is (as tel_connect). The
 * process's exit code.
 */
int acisctl_metrics(const char *prefix, const char *sock_path, int argc,
		    char **argv);
int acisctl_top(const char *prefix, const char *sock_path, int argc,
		char **argv);

#endif
