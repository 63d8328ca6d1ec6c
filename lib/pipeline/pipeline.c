/* SPDX-License-Identifier: BSD-3-Clause */
/* Pipeline file reader and checker; options in doc/pipelines.md. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "acis_pipeline.h"
#include "acis_torus.h"
#include "acis_pkt.h"

#define RTE_DIM_(a) (sizeof(a) / sizeof((a)[0]))

struct ctx {
	struct acis_conf *conf;
	struct acis_pipeline *p;
	char *err;
};

static int
fail(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (line > 0)
		n = snprintf(c->err, ACIS_CONF_ERR_LEN, "%s:%d: ",
			     c->conf->path, line);
	else
		n = snprintf(c->err, ACIS_CONF_ERR_LEN, "%s: ", c->conf->path);
	if (n > 0 && n < ACIS_CONF_ERR_LEN) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, ACIS_CONF_ERR_LEN - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *
sec_label(const struct acis_conf_section *s, char *buf, size_t len)
{
	if (s->arg[0] != '\0')
		snprintf(buf, len, "[%s %s]", s->type, s->arg);
	else
		snprintf(buf, len, "[%s]", s->type);
	return buf;
}

/* Fetch a key that may appear once; *e is NULL when absent. */
static int
get_once(struct ctx *c, struct acis_conf_section *s, const char *key,
	 struct acis_conf_entry **e)
{
	int dup;
	char lb[96];

	*e = acis_conf_get(s, key, &dup);
	if (dup)
		return fail(c, dup, "'%s' given twice in %s", key,
			    sec_label(s, lb, sizeof(lb)));
	return 0;
}

static int
get_uint(struct ctx *c, struct acis_conf_section *s, const char *key,
	 uint32_t lo, uint32_t hi, uint32_t *out)
{
	struct acis_conf_entry *e;
	uint32_t v;
	int rc = get_once(c, s, key, &e);

	if (rc != 0 || e == NULL)
		return rc;
	if (acis_conf_u32(e->value, &v) != 0 || v < lo || v > hi)
		return fail(c, e->line,
			    "%s: expected a whole number from %u to %u, "
			    "found '%s'", key, lo, hi, e->value);
	*out = v;
	return 0;
}

/* get_uint for a 16-bit field: *out keeps its value when the key is absent. */
static int
get_u16(struct ctx *c, struct acis_conf_section *s, const char *key,
	uint32_t lo, uint32_t hi, uint16_t *out)
{
	uint32_t v = *out;
	int rc = get_uint(c, s, key, lo, hi, &v);

	*out = (uint16_t)v;
	return rc;
}

static int
get_bool(struct ctx *c, struct acis_conf_section *s, const char *key,
	 uint8_t *out)
{
	static const char *const yes[] = {"on", "yes", "true", "1"};
	static const char *const no[] = {"off", "no", "false", "0"};
	struct acis_conf_entry *e;
	unsigned int i;
	int rc = get_once(c, s, key, &e);

	if (rc != 0 || e == NULL)
		return rc;
	for (i = 0; i < 4; i++) {
		if (strcasecmp(e->value, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(e->value, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return fail(c, e->line, "%s: expected on or off, found '%s'", key,
		    e->value);
}

/* Every key of a section must be known; names the first stranger. */
static int
check_keys(struct ctx *c, struct acis_conf_section *s, const char *known)
{
	unsigned int i;
	char lb[96];

	for (i = 0; i < s->n_entries; i++) {
		const char *k = s->entries[i].key;
		const char *p = known;
		size_t kl = strlen(k);
		int ok = 0;

		while ((p = strstr(p, k)) != NULL) {
			if ((p == known || p[-1] == ' ') &&
			    (p[kl] == '\0' || p[kl] == ' ')) {
				ok = 1;
				break;
			}
			p += kl;
		}
		if (!ok)
			return fail(c, s->entries[i].line,
				    "unknown key '%s' in %s (expected one of: "
				    "%s)", k, sec_label(s, lb, sizeof(lb)),
				    known);
	}
	return 0;
}

static int
read_switch(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_conf_entry *e;
	int rc;

	rc = check_keys(c, s, "name mac ip udp_port burst mtu mbufs "
			      "mbuf_cache mbuf_size ring_size");
	if (rc != 0)
		return rc;
	if ((rc = get_once(c, s, "name", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (strlen(e->value) >= sizeof(p->name))
			return fail(c, e->line, "name: longer than %zu "
				    "characters", sizeof(p->name) - 1);
		strcpy(p->name, e->value);
	}
	if ((rc = get_once(c, s, "mac", &e)) != 0)
		return rc;
	if (e == NULL)
		return fail(c, s->line, "[switch] needs the switch's own "
			    "address: mac = xx:xx:xx:xx:xx:xx");
	if (acis_parse_mac(e->value, p->mac) != 0 || (p->mac[0] & 1))
		return fail(c, e->line, "mac: expected a unicast MAC "
			    "xx:xx:xx:xx:xx:xx, found '%s'", e->value);
	if ((rc = get_once(c, s, "ip", &e)) != 0)
		return rc;
	if (e == NULL)
		return fail(c, s->line, "[switch] needs the switch's own "
			    "address: ip = a.b.c.d");
	if (acis_parse_ipv4(e->value, &p->ip) != 0 || p->ip == 0)
		return fail(c, e->line, "ip: expected an IPv4 address "
			    "a.b.c.d, found '%s'", e->value);
	if ((rc = get_u16(c, s, "udp_port", 1, 65535,
			   &p->udp_port)) != 0)
		return rc;
	if ((rc = get_u16(c, s, "burst", 1, ACIS_MAX_BURST,
			   &p->burst)) != 0)
		return rc;
	if ((rc = get_u16(c, s, "mtu", 68, 9600,
			   &p->mtu)) != 0)
		return rc;
	if ((rc = get_uint(c, s, "mbufs", 511, 16u << 20, &p->mbufs)) != 0)
		return rc;
	if ((rc = get_uint(c, s, "mbuf_cache", 0, 512, &p->mbuf_cache)) != 0)
		return rc;
	if ((rc = get_uint(c, s, "mbuf_size", 1024, 65000, &p->mbuf_size)) != 0)
		return rc;
	e = acis_conf_get(s, "ring_size", NULL);
	if ((rc = get_uint(c, s, "ring_size", 64, 65536, &p->ring_size)) != 0)
		return rc;
	if (p->ring_size & (p->ring_size - 1))
		return fail(c, e->line, "ring_size: expected a power of two "
			    "from 64 to 65536, found '%s'", e->value);
	return 0;
}

static int
read_l2(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	unsigned int i, j;
	int rc;

	rc = check_keys(c, s, "learning flood age table_size static");
	if (rc != 0)
		return rc;
	if ((rc = get_bool(c, s, "learning", &p->learning)) != 0 ||
	    (rc = get_bool(c, s, "flood", &p->flood)) != 0 ||
	    (rc = get_uint(c, s, "age", 0, 1000000, &p->age)) != 0 ||
	    (rc = get_uint(c, s, "table_size", 16, 1u << 24,
			   &p->table_size)) != 0)
		return rc;
	for (i = 0; i < s->n_entries; i++) {
		struct acis_conf_entry *e = &s->entries[i];
		struct acis_static_cfg *st;
		char mac[32], port[64], extra[2];
		int pi;

		if (strcmp(e->key, "static") != 0)
			continue;
		if (sscanf(e->value, "%31s %63s %1s", mac, port, extra) != 2)
			return fail(c, e->line, "static: expected 'static = "
				    "xx:xx:xx:xx:xx:xx PORTNAME', found '%s'",
				    e->value);
		if (p->n_statics == ACIS_MAX_STATIC)
			return fail(c, e->line, "more than %d static entries",
				    ACIS_MAX_STATIC);
		st = &p->statics[p->n_statics];
		if (acis_parse_mac(mac, st->mac) != 0 || (st->mac[0] & 1))
			return fail(c, e->line, "static: expected a unicast "
				    "MAC xx:xx:xx:xx:xx:xx, found '%s'", mac);
		pi = acis_pipeline_port_index(p, port);
		if (pi < 0)
			return fail(c, e->line, "static: unknown port '%s' "
				    "(declare it with [port %s])", port, port);
		st->port = (uint16_t)pi;
		st->line = e->line;
		for (j = 0; j < p->n_statics; j++)
			if (memcmp(p->statics[j].mac, st->mac, 6) == 0)
				return fail(c, e->line, "static: duplicate "
					    "entry for %s (first at line %d)",
					    mac, p->statics[j].line);
		p->n_statics++;
	}
	return 0;
}

/* A list of declared ports ("a b", "a,b") into a bitmask of indices. */
static int
port_set(struct ctx *c, const struct acis_conf_entry *e, uint32_t *mask)
{
	char buf[ACIS_CONF_ERR_LEN], *tok, *save = NULL;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", e->value) >= sizeof(buf))
		return fail(c, e->line, "%s: list longer than %zu characters",
			    e->key, sizeof(buf) - 1);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		int pi = acis_pipeline_port_index(c->p, tok);

		if (pi < 0)
			return fail(c, e->line, "%s: unknown port '%s' (declare "
				    "it with [port %s])", e->key, tok, tok);
		if (*mask & (1u << pi))
			return fail(c, e->line, "%s: port '%s' listed twice",
				    e->key, tok);
		*mask |= 1u << pi;
	}
	return 0;
}

/* weights = JOB:W [JOB:W ...] (spaces or commas): jobs' weights in the
 * fair share of slots. */
static int
read_weights(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_conf_entry *e;
	char buf[ACIS_MAX_WEIGHTS * 24], *tok, *save = NULL;
	unsigned int i;
	int rc;

	if ((rc = get_once(c, s, "weights", &e)) != 0 || e == NULL)
		return rc;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", e->value) >= sizeof(buf))
		return fail(c, e->line, "weights: list longer than %zu "
			    "characters", sizeof(buf) - 1);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		uint32_t job, w;
		const char *end = "";

		if (acis_conf_u32_prefix(tok, &job, &end) != 0 ||
		    *end != ':' ||
		    acis_conf_u32_prefix(end + 1, &w, &end) != 0 ||
		    *end != '\0' || w < 1 || w > 65535)
			return fail(c, e->line, "weights: expected JOB:WEIGHT "
				    "(a job id, a weight from 1 to 65535), "
				    "found '%s'", tok);
		if (p->n_weights == ACIS_MAX_WEIGHTS)
			return fail(c, e->line, "weights: more than %d jobs",
				    ACIS_MAX_WEIGHTS);
		for (i = 0; i < p->n_weights; i++)
			if (p->weights[i].job == job)
				return fail(c, e->line, "weights: job %u "
					    "listed twice", job);
		p->weights[p->n_weights].job = job;
		p->weights[p->n_weights].weight = (uint16_t)w;
		p->n_weights++;
	}
	return 0;
}

static int
read_collective(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_conf_entry *e;
	int rc;

	rc = check_keys(c, s, "slots max_ranks max_comms max_jobs "
			      "max_jobs_per_host join_timeout_ms max_members "
			      "deadline_ms linger_ms control_from "
			      "control_ports fair_share auth weights fold");
	if (rc != 0)
		return rc;
	if ((rc = get_bool(c, s, "fold", &p->fold)) != 0)
		return rc;
	if ((rc = get_uint(c, s, "slots", 16, 1u << 22, &p->slots)) != 0 ||
	    (rc = get_uint(c, s, "max_ranks", 2, 65536, &p->max_ranks)) != 0 ||
	    (rc = get_uint(c, s, "max_comms", 1, 65535, &p->max_comms)) != 0 ||
	    (rc = get_uint(c, s, "max_jobs", 1, 65536, &p->max_jobs)) != 0 ||
	    (rc = get_uint(c, s, "max_jobs_per_host", 0, 65536,
			   &p->max_jobs_per_host)) != 0 ||
	    (rc = get_uint(c, s, "join_timeout_ms", 100, 3600000,
			   &p->join_timeout_ms)) != 0 ||
	    (rc = get_uint(c, s, "max_members", 2, 1u << 28,
			   &p->max_members)) != 0 ||
	    (rc = get_uint(c, s, "deadline_ms", 10, ACIS_TIMER_MS_MAX,
			   &p->deadline_ms)) != 0 ||
	    (rc = get_uint(c, s, "linger_ms", 1, ACIS_TIMER_MS_MAX,
			   &p->linger_ms)) != 0)
		return rc;
	if ((rc = get_bool(c, s, "fair_share", &p->fair_share)) != 0)
		return rc;
	if ((rc = read_weights(c, s)) != 0)
		return rc;
	if ((rc = get_once(c, s, "auth", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (strcmp(e->value, "required") == 0)
			p->auth_required = 1;
		else if (strcmp(e->value, "optional") == 0)
			p->auth_required = 0;
		else
			return fail(c, e->line, "auth: expected optional (a "
				    "rank that joins with a cookie is held to "
				    "it) or required (every rank must join "
				    "with one), found '%s'", e->value);
	}
	if (p->max_members < p->max_ranks)
		return fail(c, s->line, "[collective] max_members (%u) must be "
			    "at least max_ranks (%u)", p->max_members,
			    p->max_ranks);
	if ((rc = get_once(c, s, "control_from", &e)) != 0)
		return rc;
	if (e != NULL) {
		/* room for ACIS_MAX_CTRL_NETS prefixes and their separators;
		 * a longer list is refused, never cut */
		char buf[ACIS_MAX_CTRL_NETS * 24], *tok, *save = NULL;
		size_t len = strlen(e->value);

		if (len >= sizeof(buf))
			return fail(c, e->line, "control_from: a list of %zu "
				    "characters, at most %zu (%d prefixes)", len,
				    sizeof(buf) - 1, ACIS_MAX_CTRL_NETS);
		memcpy(buf, e->value, len + 1);
		for (tok = strtok_r(buf, " ,", &save); tok != NULL;
		     tok = strtok_r(NULL, " ,", &save)) {
			struct acis_net_cfg *n;
			char *slash = strchr(tok, '/');
			uint32_t bits = 32;

			if (p->n_ctrl_nets == ACIS_MAX_CTRL_NETS)
				return fail(c, e->line, "control_from: more than "
					    "%d prefixes", ACIS_MAX_CTRL_NETS);
			n = &p->ctrl_nets[p->n_ctrl_nets];
			if (slash != NULL) {
				*slash = '\0';
				if (acis_conf_u32(slash + 1, &bits) != 0 ||
				    bits > 32 ||
				    acis_parse_ipv4(tok, &n->addr) != 0) {
					*slash = '/'; /* quote it whole */
					goto bad_net;
				}
			} else if (acis_parse_ipv4(tok, &n->addr) != 0) {
				goto bad_net;
			}
			n->mask = bits == 0 ? 0 : htonl(~0u << (32 - bits));
			n->addr &= n->mask;
			p->n_ctrl_nets++;
			continue;
bad_net:
			return fail(c, e->line, "control_from: expected IPv4 "
				    "addresses or prefixes a.b.c.d[/len], found "
				    "'%s'", tok);
		}
	}
	if ((rc = get_once(c, s, "control_ports", &e)) != 0)
		return rc;
	if (e != NULL && (rc = port_set(c, e, &p->ctrl_ports)) != 0)
		return rc;
	return 0;
}

int
acis_fault_cfg_set(struct acis_fault_cfg *f, const char *key,
		   const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} probs[] = {
		{"drop", offsetof(struct acis_fault_cfg, drop)},
		{"duplicate", offsetof(struct acis_fault_cfg, duplicate)},
		{"reorder", offsetof(struct acis_fault_cfg, reorder)},
		{"corrupt", offsetof(struct acis_fault_cfg, corrupt)},
	};
	static const struct {
		const char *key;
		uint32_t lo, hi;
		size_t off, size;
	} ints[] = {
#define FAULT_FIELD(m) offsetof(struct acis_fault_cfg, m), \
	sizeof(((struct acis_fault_cfg *)0)->m)
		{"reorder_window", 1, 64, FAULT_FIELD(reorder_window)},
		{"rate_kbps", 0, ACIS_FAULT_RATE_MAX * 1000u,
		 FAULT_FIELD(rate_kbps)},
		{"queue", 1, ACIS_FAULT_QUEUE_MAX, FAULT_FIELD(queue)},
		{"classes", 1, ACIS_FAULT_CLASSES, FAULT_FIELD(classes)},
		{"class_queue", 1, ACIS_FAULT_QUEUE_MAX,
		 FAULT_FIELD(class_queue)},
		{"acis_class", 0, ACIS_FAULT_CLASSES - 1,
		 FAULT_FIELD(acis_class)},
		{"seed", 0, UINT32_MAX, FAULT_FIELD(seed)},
#undef FAULT_FIELD
	};
	/* times in microseconds, fractions allowed: a modelled link's
	 * 175 ns is delay_us = 0.175 */
	static const struct {
		const char *key;
		size_t off;
	} times[] = {
		{"delay_us", offsetof(struct acis_fault_cfg, delay_us)},
		{"jitter_us", offsetof(struct acis_fault_cfg, jitter_us)},
	};
	unsigned int i;
	uint32_t u;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		char *end = (char *)value;
		double v = 0.0;

		if (strcmp(key, times[i].key) != 0)
			continue;
		errno = 0;
		/* a digit or a point first: no sign, space, inf or nan */
		if (isdigit((unsigned char)value[0]) || value[0] == '.')
			v = strtod(value, &end);
		if (errno != 0 || end == value || *end != '\0' ||
		    v > 1000000.0) {
			snprintf(err, errlen, "%s: expected microseconds from "
				 "0 to 1000000 (e.g. 200 or 0.175), found '%s'",
				 key, value);
			return -EINVAL;
		}
		*(double *)((char *)f + times[i].off) = v;
		return 0;
	}
	for (i = 0; i < sizeof(probs) / sizeof(probs[0]); i++) {
		char *end;
		double v;

		if (strcmp(key, probs[i].key) != 0)
			continue;
		errno = 0;
		v = strtod(value, &end);
		if (errno != 0 || end == value || *end != '\0' || !(v >= 0.0) ||
		    v > 1.0) {
			snprintf(err, errlen, "%s: expected a probability from "
				 "0 to 1 (e.g. 0.01), found '%s'", key, value);
			return -EINVAL;
		}
		*(double *)((char *)f + probs[i].off) = v;
		return 0;
	}
	if (strcmp(key, "rate_mbps") == 0) {
		/* whole Mbit/s; a slower or finer rate is rate_kbps */
		if (acis_conf_u32(value, &u) != 0 || u > ACIS_FAULT_RATE_MAX) {
			snprintf(err, errlen, "rate_mbps: expected a whole number "
				 "from 0 to %u (rate_kbps for finer rates), "
				 "found '%s'", ACIS_FAULT_RATE_MAX, value);
			return -EINVAL;
		}
		f->rate_kbps = u * 1000u;
		return 0;
	}
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (strcmp(key, ints[i].key) != 0)
			continue;
		if (acis_conf_u32(value, &u) != 0 || u < ints[i].lo ||
		    u > ints[i].hi) {
			snprintf(err, errlen, "%s: expected a whole number from "
				 "%u to %u, found '%s'", key, ints[i].lo,
				 ints[i].hi, value);
			return -EINVAL;
		}
		/* each field at its own width (hi fits it) */
		switch (ints[i].size) {
		case sizeof(uint64_t):
			*(uint64_t *)((char *)f + ints[i].off) = u;
			break;
		case sizeof(uint32_t):
			*(uint32_t *)((char *)f + ints[i].off) = u;
			break;
		case sizeof(uint16_t):
			*(uint16_t *)((char *)f + ints[i].off) = (uint16_t)u;
			break;
		default:
			*((uint8_t *)f + ints[i].off) = (uint8_t)u;
			break;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown fault key '%s' (keys: %s)", key,
		 ACIS_FAULT_KEYS);
	return -ENOENT;
}

static int
read_fault(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_fault_cfg *f;
	struct acis_conf_entry *e, *once;
	char why[ACIS_CONF_ERR_LEN];
	unsigned int i;
	int pi, rc;

	pi = acis_pipeline_port_index(p, s->arg);
	if (pi < 0)
		return fail(c, s->line, "expected '[fault PORT]' naming a "
			    "declared port, found '[fault %s]'", s->arg);
	f = &p->ports[pi].fault;
	if (f->line != 0)
		return fail(c, s->line, "duplicate [fault %s] (first at line "
			    "%d)", s->arg, f->line);
	rc = check_keys(c, s, ACIS_FAULT_KEYS);
	if (rc != 0)
		return rc;
	f->line = s->line;
	f->reorder_window = 4;
	f->queue = ACIS_FAULT_QUEUE_MAX;
	f->seed = 1;
	for (i = 0; i < s->n_entries; i++) {
		e = &s->entries[i];
		/* a key given twice is an error, not the last one winning */
		if ((rc = get_once(c, s, e->key, &once)) != 0)
			return rc;
		if (acis_fault_cfg_set(f, e->key, e->value, why,
				       sizeof(why)) != 0)
			return fail(c, e->line, "%s", why);
	}
	f->enabled = 1;
	return 0;
}

/* A path in the file, relative to the pipeline file's folder unless
 * absolute. */
static int
get_path(struct ctx *c, int line, const char *key, const char *v, char *out)
{
	const char *slash = strrchr(c->conf->path, '/');
	int n;

	if (v[0] == '\0')
		return fail(c, line, "%s: expected a file name", key);
	if (v[0] == '/' || slash == NULL)
		n = snprintf(out, ACIS_PATH_LEN, "%s", v);
	else
		n = snprintf(out, ACIS_PATH_LEN, "%.*s/%s",
			     (int)(slash - c->conf->path), c->conf->path, v);
	if (n < 0 || n >= ACIS_PATH_LEN)
		return fail(c, line, "%s: path longer than %d characters", key,
			    ACIS_PATH_LEN - 1);
	return 0;
}

/* The emulated FPGA's files (devargs program=FILE, memory=FILE or
 * memory=BANK:OFFSET:FILE) are relative to the pipeline file, as every
 * other file it names: rewrite dev's relative ones so. */
static int
fpga_dev_paths(struct ctx *c, int line, char *dev)
{
	char out[ACIS_DEV_LEN], path[ACIS_PATH_LEN], *save = NULL, *kv;
	char in[ACIS_DEV_LEN];
	size_t n = 0;
	int first = 1, rc;

	snprintf(in, sizeof(in), "%s", dev);
	for (kv = strtok_r(in, ",", &save); kv != NULL;
	     kv = strtok_r(NULL, ",", &save), first = 0) {
		const char *file = NULL;
		size_t keep = strlen(kv);
		int w;

		if (strncmp(kv, "program=", 8) == 0) {
			file = kv + 8;
		} else if (strncmp(kv, "memory=", 7) == 0) {
			const char *v = kv + 7, *p = v;

			file = v;
			/* BANK:OFFSET:FILE when it starts with two numbers */
			p += strspn(p, "0123456789xabcdefABCDEF");
			if (p > v && *p == ':') {
				const char *q = p + 1;

				q += strspn(q, "0123456789xabcdefABCDEF");
				if (q > p + 1 && *q == ':')
					file = q + 1;
			}
		}
		if (file != NULL && file[0] != '/' && file[0] != '\0') {
			if ((rc = get_path(c, line, "dev", file, path)) != 0)
				return rc;
			keep = (size_t)(file - kv);
		}
		w = snprintf(out + n, sizeof(out) - n, "%s%.*s%s",
			     first ? "" : ",", (int)keep, kv,
			     keep < strlen(kv) ? path : "");
		if (w < 0 || (size_t)w >= sizeof(out) - n)
			return fail(c, line, "dev: longer than %d characters "
				    "with its files' paths made relative to "
				    "the pipeline file", ACIS_DEV_LEN - 1);
		n += (size_t)w;
	}
	memcpy(dev, out, n + 1);
	return 0;
}

static int
read_lookaside(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_lookaside_cfg *la;
	struct acis_conf_entry *e;
	unsigned int i;
	uint32_t v;
	int rc;

	if (s->arg[0] == '\0' || strchr(s->arg, ' ') != NULL ||
	    strchr(s->arg, ',') != NULL)
		return fail(c, s->line, "expected '[lookaside NAME]' (one word, "
			    "no commas)");
	if (strlen(s->arg) >= ACIS_NAME_LEN)
		return fail(c, s->line, "look-aside name longer than %d "
			    "characters", ACIS_NAME_LEN - 1);
	for (i = 0; i < p->n_lookaside; i++)
		if (strcmp(p->lookaside[i].name, s->arg) == 0)
			return fail(c, s->line, "duplicate [lookaside %s] "
				    "(first at line %d)", s->arg,
				    p->lookaside[i].line);
	if (p->n_lookaside == ACIS_MAX_LOOKASIDE)
		return fail(c, s->line, "more than %d [lookaside] sections",
			    ACIS_MAX_LOOKASIDE);
	rc = check_keys(c, s, "match action program memory worker vpe banks "
			      "bank_size vrf_regs budget when_stopped fpga "
			      "fallback timeout_us framing link_src link_dst "
			      "fpga_mac job");
	if (rc != 0)
		return rc;
	la = &p->lookaside[p->n_lookaside];
	memset(la, 0, sizeof(*la));
	strcpy(la->name, s->arg);
	la->line = s->line;
	la->fpga_port = -1;
	la->fpga_timeout_us = 10000;
	la->link_src = 0x0100;
	la->link_dst = 0x0200;
	memset(la->fpga_mac, 0xff, 6);

	if ((rc = get_once(c, s, "match", &e)) != 0)
		return rc;
	if (e == NULL)
		return fail(c, s->line, "[lookaside %s] needs 'match = udp_port "
			    "N', 'match = acis_handler N', 'match = acis_type T "
			    "[opcode O]' or 'match = dst_ip A.B.C.D'", s->arg);
	{
		char what[32], num[32], w3[32], w4[32], extra[2];
		int nw = sscanf(e->value, "%31s %31s %31s %31s %1s", what, num,
				w3, w4, extra);

		if (nw == 4 && strcmp(what, "acis_type") == 0 &&
		    strcmp(w3, "opcode") == 0) {
			if (acis_conf_u32(num, &v) != 0 || v == 0 || v > 255)
				goto bad_match;
			la->acis_type = (uint8_t)v;
			if (acis_conf_u32(w4, &v) != 0 || v > 255)
				goto bad_match;
			la->match = ACIS_LA_MATCH_ACIS;
			la->handler = (uint8_t)v;
		} else if (nw != 2) {
			goto bad_match;
		} else if (strcmp(what, "acis_type") == 0) {
			if (acis_conf_u32(num, &v) != 0 || v == 0 || v > 255)
				goto bad_match;
			la->match = ACIS_LA_MATCH_ACIS;
			la->acis_type = (uint8_t)v;
			la->opcode_any = 1;
		} else if (strcmp(what, "dst_ip") == 0) {
			if (acis_parse_ipv4(num, &la->dst_ip) != 0 ||
			    la->dst_ip == 0)
				goto bad_match;
			if (la->dst_ip == p->ip)
				return fail(c, e->line, "match: dst_ip is the "
					    "switch's own address; select "
					    "datagrams to it by udp_port");
			la->match = ACIS_LA_MATCH_DST;
		} else if (strcmp(what, "udp_port") == 0) {
			if (acis_conf_u32(num, &v) != 0 || v == 0 || v > 65535)
				goto bad_match;
			if (v == p->udp_port)
				return fail(c, e->line, "match: udp_port %u is "
					    "the ACiS port of [switch]; select "
					    "ACiS requests with 'match = "
					    "acis_handler N'", v);
			la->match = ACIS_LA_MATCH_UDP;
			la->udp_port = (uint16_t)v;
		} else if (strcmp(what, "acis_handler") == 0) {
			if (acis_conf_u32(num, &v) != 0 || v == 0 || v > 255)
				goto bad_match;
			la->match = ACIS_LA_MATCH_ACIS;
			la->acis_type = 7; /* LOOKASIDE */
			la->handler = (uint8_t)v;
		} else {
			goto bad_match;
		}
		if (la->match == ACIS_LA_MATCH_ACIS &&
		    (rc = get_uint(c, s, "job", 0, UINT32_MAX, &la->job)) != 0)
			return rc;
		la->has_job = la->match == ACIS_LA_MATCH_ACIS &&
			      acis_conf_get(s, "job", NULL) != NULL;
		if (la->match != ACIS_LA_MATCH_ACIS &&
		    acis_conf_get(s, "job", NULL) != NULL)
			return fail(c, acis_conf_get(s, "job", NULL)->line,
				    "job: only with ACiS matches (acis_handler, "
				    "acis_type)");
		for (i = 0; i < p->n_lookaside; i++) {
			const struct acis_lookaside_cfg *o = &p->lookaside[i];

			if (o->match == la->match && o->udp_port == la->udp_port &&
			    o->handler == la->handler &&
			    o->acis_type == la->acis_type &&
			    o->opcode_any == la->opcode_any &&
			    o->dst_ip == la->dst_ip && o->has_job == la->has_job &&
			    o->job == la->job)
				return fail(c, e->line, "match: '%s' already "
					    "selected by [lookaside %s] at line "
					    "%d", e->value, o->name, o->line);
		}
	}
	if ((rc = get_once(c, s, "action", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (strcmp(e->value, "return") == 0)
			la->action = ACIS_LA_RETURN;
		else if (strcmp(e->value, "forward") == 0)
			la->action = ACIS_LA_FORWARD;
		else
			return fail(c, e->line, "action: expected return or "
				    "forward, found '%s'", e->value);
		if (la->action == ACIS_LA_FORWARD &&
		    la->match == ACIS_LA_MATCH_ACIS)
			return fail(c, e->line, "action: ACiS messages are "
				    "addressed to the switch, so their results "
				    "can only return to the sender");
	}
	if ((rc = get_once(c, s, "when_stopped", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (strcmp(e->value, "drop") == 0)
			la->passthrough_when_stopped = 0;
		else if (strcmp(e->value, "passthrough") == 0)
			la->passthrough_when_stopped = 1;
		else
			return fail(c, e->line, "when_stopped: expected drop or "
				    "passthrough, found '%s'", e->value);
	}
	if ((rc = get_once(c, s, "fpga", &e)) != 0)
		return rc;
	if (e != NULL) {
		la->fpga_port = acis_pipeline_port_index(p, e->value);
		if (la->fpga_port < 0)
			return fail(c, e->line, "fpga: unknown port '%s' (declare "
				    "it with [port %s])", e->value, e->value);
		if (la->action == ACIS_LA_FORWARD)
			return fail(c, e->line, "fpga: the attached FPGA returns "
				    "results by their headers; use action = "
				    "return");
	}
	if ((rc = get_once(c, s, "fallback", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (la->fpga_port < 0)
			return fail(c, e->line, "fallback: only with fpga = PORT");
		if (strcmp(e->value, "local") == 0)
			la->fpga_fallback_local = 1;
		else if (strcmp(e->value, "drop") != 0)
			return fail(c, e->line, "fallback: expected drop or local "
				    "(run the rule's own program), found '%s'",
				    e->value);
	}
	if ((rc = get_uint(c, s, "timeout_us", 1, 60000000,
			   &la->fpga_timeout_us)) != 0)
		return rc;
	{
		static const char *const fkeys[] = {"framing", "link_src",
						    "link_dst", "fpga_mac"};

		for (i = 0; i < RTE_DIM_(fkeys); i++) {
			e = acis_conf_get(s, fkeys[i], NULL);
			if (e != NULL && la->fpga_port < 0)
				return fail(c, e->line, "%s: only with fpga = "
					    "PORT", fkeys[i]);
		}
		if ((rc = get_once(c, s, "framing", &e)) != 0)
			return rc;
		if (e != NULL) {
			if (strcmp(e->value, "link") == 0)
				la->fpga_link = 1;
			else if (strcmp(e->value, "udp") != 0)
				return fail(c, e->line, "framing: expected udp "
					    "(frames as received) or link (the "
					    "raw link frame in Ethernet), found "
					    "'%s'", e->value);
		}
		if ((rc = get_u16(c, s, "link_src", 0, 65535,
				   &la->link_src)) != 0)
			return rc;
		if ((rc = get_u16(c, s, "link_dst", 0, 65535,
				   &la->link_dst)) != 0)
			return rc;
		if ((rc = get_once(c, s, "fpga_mac", &e)) != 0)
			return rc;
		if (e != NULL && acis_parse_mac(e->value, la->fpga_mac) != 0)
			return fail(c, e->line, "fpga_mac: expected a MAC "
				    "xx:xx:xx:xx:xx:xx, found '%s'", e->value);
	}
	if ((rc = get_once(c, s, "program", &e)) != 0)
		return rc;
	if (e != NULL && (rc = get_path(c, e->line, "program", e->value,
					la->program)) != 0)
		return rc;
	if ((rc = get_uint(c, s, "worker", 0, ACIS_MAX_LCORES - 1,
			   &la->worker)) != 0 ||
	    (rc = get_uint(c, s, "vpe", 1, 31, &la->vpe)) != 0 ||
	    (rc = get_uint(c, s, "banks", 1, 31, &la->banks)) != 0 ||
	    (rc = get_uint(c, s, "bank_size", 4096, 1u << 30,
			   &la->bank_size)) != 0 ||
	    (rc = get_uint(c, s, "vrf_regs", 16, 4096, &la->vrf_regs)) != 0 ||
	    (rc = get_uint(c, s, "budget", 16, UINT32_MAX, &la->budget)) != 0)
		return rc;
	if (la->vrf_regs & (la->vrf_regs - 1)) {
		e = acis_conf_get(s, "vrf_regs", NULL);
		return fail(c, e->line, "vrf_regs: expected a power of two from "
			    "16 to 4096, found '%s'", e->value);
	}
	for (i = 0; i < s->n_entries; i++) {
		struct acis_la_mem_cfg *mc;
		char bank[32], off[32];
		int n = 0, nb = 0, no = 0;

		e = &s->entries[i];
		if (strcmp(e->key, "memory") != 0)
			continue;
		e->used = 1;
		if (la->n_mem == ACIS_LA_MAX_MEM)
			return fail(c, e->line, "more than %d memory lines",
				    ACIS_LA_MAX_MEM);
		mc = &la->mem[la->n_mem];
		/* %n after each word: a word longer than its buffer is
		 * refused, not split in two */
		if (sscanf(e->value, "%31s%n %31s%n %n", bank, &nb, off, &no,
			   &n) != 2 || !isspace((unsigned char)e->value[nb]) ||
		    !isspace((unsigned char)e->value[no]) ||
		    e->value[n] == '\0' || acis_conf_u32(bank, &mc->bank) != 0 ||
		    mc->bank < 1 || mc->bank > 31 ||
		    acis_conf_u32(off, &mc->off) != 0)
			return fail(c, e->line, "memory: expected 'memory = BANK "
				    "OFFSET FILE' (BANK 1..31, OFFSET in bytes), "
				    "found '%s'", e->value);
		if ((rc = get_path(c, e->line, "memory", e->value + n,
				   mc->path)) != 0)
			return rc;
		mc->line = e->line;
		la->n_mem++;
	}
	p->n_lookaside++;
	return 0;
bad_match:
	return fail(c, e->line, "match: expected 'udp_port N' (1..65535), "
		    "'acis_handler N' (1..255), 'acis_type T [opcode O]' or "
		    "'dst_ip A.B.C.D', found '%s'", e->value);
}

static int
read_port(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_port_cfg *pc;
	struct acis_conf_entry *e;
	uint32_t v;
	unsigned int i;
	int rc;

	if (s->arg[0] == '\0')
		return fail(c, s->line, "expected '[port NAME]'");
	if (strlen(s->arg) >= ACIS_NAME_LEN)
		return fail(c, s->line, "port name longer than %d characters",
			    ACIS_NAME_LEN - 1);
	for (i = 0; i < p->n_ports; i++)
		if (strcmp(p->ports[i].name, s->arg) == 0)
			return fail(c, s->line, "duplicate [port %s] (first "
				    "at line %d)", s->arg, p->ports[i].line);
	if (p->n_ports == ACIS_MAX_PORTS)
		return fail(c, s->line, "more than %d ports", ACIS_MAX_PORTS);
	rc = check_keys(c, s, "dev rxd txd mtu promisc xdp_steer rx_checksum flood peer "
			"reliable reliable_rto_us");
	if (rc != 0)
		return rc;
	pc = &p->ports[p->n_ports];
	memset(pc, 0, sizeof(*pc));
	strcpy(pc->name, s->arg);
	pc->line = s->line;
	pc->rxd = 1024;
	pc->txd = 1024;
	pc->promisc = 1;
	pc->rx_checksum = 1;
	pc->flood = 1;
	if ((rc = get_once(c, s, "dev", &e)) != 0)
		return rc;
	if (e == NULL)
		return fail(c, s->line, "[port %s] needs 'dev = DEVICE' (a "
			    "PCI address like 0000:03:00.0, or a virtual "
			    "device like net_af_packet0,iface=veth0)", s->arg);
	if (strlen(e->value) >= ACIS_DEV_LEN)
		return fail(c, e->line, "dev: longer than %d characters",
			    ACIS_DEV_LEN - 1);
	strcpy(pc->dev, e->value);
	pc->dev_line = e->line;
	if (strncmp(pc->dev, "net_acis_fpga", 13) == 0 &&
	    (rc = fpga_dev_paths(c, e->line, pc->dev)) != 0)
		return rc;
	if (strncmp(pc->dev, "ring_pair:", 10) == 0) {
		/* one end of a link between logical switches of a process */
		const char *l = pc->dev + 10;
		size_t n = strspn(l, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

		if (n == 0 || n > 16 || l[n] != ':' ||
		    (l[n + 1] != 'a' && l[n + 1] != 'b') || l[n + 2] != '\0')
			return fail(c, e->line, "dev: expected ring_pair:LINK:a "
				    "or ring_pair:LINK:b (LINK 1 to 16 letters, "
				    "digits, '.', '-' or '_'; the other end of "
				    "the link in another pipeline of the same "
				    "process), found '%s'", pc->dev);
	}
	for (i = 0; i < p->n_ports; i++) {
		/* The device name is what precedes the first comma. */
		size_t a = strcspn(pc->dev, ",");
		size_t b = strcspn(p->ports[i].dev, ",");

		if (a == b && strncmp(pc->dev, p->ports[i].dev, a) == 0)
			return fail(c, e->line, "dev: device '%.*s' already "
				    "used by [port %s] at line %d", (int)a,
				    pc->dev, p->ports[i].name,
				    p->ports[i].dev_line);
	}
	if ((rc = get_u16(c, s, "rxd", 32, 16384,
			   &pc->rxd)) != 0)
		return rc;
	if ((rc = get_u16(c, s, "txd", 32, 16384,
			   &pc->txd)) != 0)
		return rc;
	v = 0;
	if ((rc = get_uint(c, s, "mtu", 68, 9600, &v)) != 0)
		return rc;
	pc->mtu = (uint16_t)v;
	if ((rc = get_bool(c, s, "promisc", &pc->promisc)) != 0)
		return rc;
	if ((rc = get_bool(c, s, "xdp_steer", &pc->xdp_steer)) != 0)
		return rc;
	if ((rc = get_bool(c, s, "rx_checksum", &pc->rx_checksum)) != 0)
		return rc;
	if ((rc = get_bool(c, s, "flood", &pc->flood)) != 0)
		return rc;
	pc->reliable_rto_us = 2000;
	if ((rc = get_bool(c, s, "reliable", &pc->reliable)) != 0 ||
	    (rc = get_uint(c, s, "reliable_rto_us", 10, 10000000,
			   &pc->reliable_rto_us)) != 0)
		return rc;
	if ((rc = get_once(c, s, "peer", &e)) != 0)
		return rc;
	if (e != NULL) {
		char ip[32], mac[32], more[2];

		if (sscanf(e->value, "%31s %31s %1s", ip, mac, more) != 2 ||
		    acis_parse_ipv4(ip, &pc->peer_ip) != 0 ||
		    pc->peer_ip == 0 || acis_parse_mac(mac, pc->peer_mac) != 0 ||
		    (pc->peer_mac[0] & 1))
			return fail(c, e->line, "peer: expected the switch at "
				    "the link's other end as 'a.b.c.d "
				    "xx:xx:xx:xx:xx:xx', found '%s'", e->value);
		pc->has_peer = 1;
	}
	if (pc->xdp_steer && (!acis_pipeline_port_af_xdp(pc) ||
			      strstr(pc->dev, "iface=") == NULL)) {
		e = acis_conf_get(s, "xdp_steer", NULL);
		return fail(c, e->line, "xdp_steer: only for AF_XDP ports (dev "
			    "= net_af_xdpN,iface=IFNAME), found dev = '%s'",
			    pc->dev);
	}
	p->n_ports++;
	return 0;
}

static int
read_lcore(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_pipeline *p = c->p;
	struct acis_lcore_cfg *lc;
	struct acis_conf_entry *e;
	uint32_t id;
	unsigned int i;
	char buf[ACIS_DEV_LEN * 4];
	char *tok, *save;
	int rc;

	if (acis_conf_u32(s->arg, &id) != 0 || id >= ACIS_MAX_LCORES)
		return fail(c, s->line, "expected '[lcore N]' with N from 0 "
			    "to %d", ACIS_MAX_LCORES - 1);
	for (i = 0; i < p->n_lcores; i++)
		if (p->lcores[i].id == id)
			return fail(c, s->line, "duplicate [lcore %u] (first "
				    "at line %d)", id, p->lcores[i].line);
	rc = check_keys(c, s, "role rx");
	if (rc != 0)
		return rc;
	lc = &p->lcores[p->n_lcores];
	memset(lc, 0, sizeof(*lc));
	lc->id = id;
	lc->line = s->line;
	lc->roles = ACIS_ROLE_RX | ACIS_ROLE_WORKER;

	if ((rc = get_once(c, s, "role", &e)) != 0)
		return rc;
	if (e != NULL) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s", e->value) >=
		    sizeof(buf))
			return fail(c, e->line, "role: value too long");
		lc->roles = 0;
		for (tok = strtok_r(buf, " ,+", &save); tok != NULL;
		     tok = strtok_r(NULL, " ,+", &save)) {
			if (strcmp(tok, "rx") == 0)
				lc->roles |= ACIS_ROLE_RX;
			else if (strcmp(tok, "worker") == 0)
				lc->roles |= ACIS_ROLE_WORKER;
			else
				return fail(c, e->line, "role: expected 'rx', "
					    "'worker' or 'rx worker', found "
					    "'%s'", tok);
		}
		if (lc->roles == 0)
			return fail(c, e->line, "role: expected 'rx', 'worker' "
				    "or 'rx worker', found '%s'", e->value);
	}
	if ((rc = get_once(c, s, "rx", &e)) != 0)
		return rc;
	if (e != NULL) {
		if (!(lc->roles & ACIS_ROLE_RX))
			return fail(c, e->line, "rx: [lcore %u] has no 'rx' "
				    "role, so it polls no ports", id);
		if ((rc = port_set(c, e, &lc->rx_ports)) != 0)
			return rc;
	}
	if ((lc->roles & ACIS_ROLE_RX) && lc->rx_ports == 0)
		return fail(c, s->line, "[lcore %u] has the rx role but polls "
			    "no port: add 'rx = PORT [PORT...]'", id);
	p->n_lcores++;
	return 0;
}

int
acis_pipeline_port_index(const struct acis_pipeline *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->n_ports; i++)
		if (strcmp(p->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}

unsigned int
acis_pipeline_n_workers(const struct acis_pipeline *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->n_lcores; i++)
		if (p->lcores[i].roles & ACIS_ROLE_WORKER)
			n++;
	return n;
}

int
acis_pipeline_port_af_xdp(const struct acis_port_cfg *pc)
{
	return strncmp(pc->dev, "net_af_xdp", 10) == 0;
}

unsigned int
acis_pipeline_port_rx_queues(const struct acis_pipeline *p, unsigned int port)
{
	unsigned int i, n = 0;

	if (port >= ACIS_MAX_PORTS)
		return 0;
	for (i = 0; i < p->n_lcores; i++)
		if (p->lcores[i].rx_ports & (1u << port))
			n++;
	return n;
}

static void
set_defaults(struct acis_pipeline *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "acis");
	p->udp_port = ACIS_DEFAULT_UDP_PORT;
	p->burst = 32;
	p->mtu = 1500;
	p->mbufs = 16383;
	p->mbuf_cache = 256;
	p->ring_size = 1024;
	p->learning = 1;
	p->flood = 1;
	p->age = 300;
	p->table_size = 4096;
	p->slots = 1024;
	p->fold = 1;
	p->max_ranks = 65536;
	p->max_comms = 1024;
	p->max_jobs = 64;
	p->max_jobs_per_host = 16;
	p->join_timeout_ms = 60000;
	p->fair_share = 1;
	p->max_members = 1u << 20;
	p->deadline_ms = ACIS_DEADLINE_MS_DEFAULT;
	p->linger_ms = ACIS_LINGER_MS_DEFAULT;
}

/* "X[,Y[,Z]]" (each below k of its dimension): a place in the torus. */
static int
torus_coord(const char *v, const uint8_t k[3], uint8_t out[3])
{
	const char *q = v, *end;
	unsigned int d;

	out[0] = out[1] = out[2] = 0;
	for (d = 0; d < 3; d++) {
		uint32_t x;

		if (acis_conf_u32_prefix(q, &x, &end) != 0 || x >= k[d])
			return -1;
		out[d] = (uint8_t)x;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		q = end + 1;
	}
	return -1;
}

/* [torus] slots_pD, arbitration_pD: one link's buffers (the input at
 * this end) and arbitration (the output onto it), over the switch's. */
static int
read_torus_links(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_torus_cfg *t = &c->p->torus;
	struct acis_conf_entry *e;
	unsigned int d;
	uint32_t v;
	char key[24];
	int rc, a;

	for (d = 1; d <= 6; d++) {
		snprintf(key, sizeof(key), "slots_p%u", d);
		if ((rc = get_once(c, s, key, &e)) != 0)
			return rc;
		if (e != NULL && t->dir_port[d] == UINT16_MAX)
			return fail(c, e->line, "%s: no link on p%u here (a "
				    "mesh's edge)", key, d);
		if (e != NULL && t->slots == 0)
			return fail(c, e->line, "%s: the router has no buffers "
				    "(slots = 0); give slots above 0 to set a "
				    "link's", key);
		v = 0;
		if ((rc = get_uint(c, s, key, 1, ACIS_TORUS_SLOTS_MAX, &v)) !=
		    0)
			return rc;
		t->link_slots[d] = (uint8_t)v;
		snprintf(key, sizeof(key), "arbitration_p%u", d);
		if ((rc = get_once(c, s, key, &e)) != 0)
			return rc;
		t->link_arbitration[d] = 0;
		if (e == NULL)
			continue;
		if (t->dir_port[d] == UINT16_MAX)
			return fail(c, e->line, "%s: no link on p%u here (a "
				    "mesh's edge)", key, d);
		if ((a = acis_torus_policy_parse(e->value)) < 0)
			return fail(c, e->line, "%s: expected ff, of or mix, "
				    "found '%s'", key, e->value);
		t->link_arbitration[d] = (uint8_t)(a + 1);
	}
	t->on = 1;
	return 0;
}

/* [torus]: dims, mesh, coord, routing, seed, the router's buffers and
 * arbitration (the switch's, and its links' own), host = MAC COORD
 * lines. */
static int
read_torus(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_torus_cfg *t = &c->p->torus;
	struct acis_conf_entry *e;
	unsigned int i, d;
	uint32_t v;
	char name[8];
	int rc, a;

	rc = check_keys(c, s, "dims mesh coord routing seed slots arbitration "
			"mix_age credit_period watchdog_ms clock_khz host "
			"slots_p1 slots_p2 slots_p3 slots_p4 slots_p5 slots_p6 "
			"arbitration_p1 arbitration_p2 arbitration_p3 "
			"arbitration_p4 arbitration_p5 arbitration_p6");
	if (rc != 0)
		return rc;
	if ((rc = get_once(c, s, "dims", &e)) != 0)
		return rc;
	if (e == NULL)
		return fail(c, s->line, "[torus] needs dims = K, KxK or KxKxK "
			    "(each K from 2 to %d)", ACIS_TORUS_MAX_K);
	rc = acis_torus_dims_parse(e->value, t->k);
	if (rc == -E2BIG)
		return fail(c, e->line, "dims: at most three dimensions, found "
			    "'%s'", e->value);
	if (rc != 0)
		return fail(c, e->line, "dims: expected K, KxK or KxKxK, "
			    "each K from 2 to %d, found '%s'",
			    ACIS_TORUS_MAX_K, e->value);
	if ((rc = get_bool(c, s, "mesh", &t->mesh)) != 0)
		return rc;
	if ((rc = get_once(c, s, "coord", &e)) != 0)
		return rc;
	if (e == NULL || torus_coord(e->value, t->k, t->coord) != 0)
		return fail(c, e != NULL ? e->line : s->line, "coord: expected "
			    "X[,Y[,Z]] inside dims (%ux%ux%u), found '%s'",
			    t->k[0], t->k[1], t->k[2],
			    e != NULL ? e->value : "nothing");
	if ((rc = get_once(c, s, "routing", &e)) != 0)
		return rc;
	t->routing = ACIS_TORUS_DOR;
	if (e != NULL) {
		if ((a = acis_torus_algo_parse(e->value)) < 0)
			return fail(c, e->line, "routing: expected dor, o1turn, "
				    "rmr, rlb or ccar, found '%s'", e->value);
		t->routing = (uint8_t)a;
	}
	t->seed = 1;
	if ((rc = get_uint(c, s, "seed", 0, UINT32_MAX, &t->seed)) != 0)
		return rc;
	v = ACIS_TORUS_SLOTS_DEFAULT;
	if ((rc = get_uint(c, s, "slots", 0, ACIS_TORUS_SLOTS_MAX, &v)) != 0)
		return rc;
	t->slots = (uint8_t)v;
	if ((rc = get_once(c, s, "arbitration", &e)) != 0)
		return rc;
	t->arbitration = ACIS_TORUS_OF;
	if (e != NULL) {
		if ((a = acis_torus_policy_parse(e->value)) < 0)
			return fail(c, e->line, "arbitration: expected ff, of "
				    "or mix, found '%s'", e->value);
		t->arbitration = (uint8_t)a;
	}
	v = ACIS_TORUS_MIX_AGE_DEFAULT;
	if ((rc = get_uint(c, s, "mix_age", 1, ACIS_TORUS_STAMP_MASK / 2,
			   &v)) != 0)
		return rc;
	t->mix_age = (uint16_t)v;
	t->credit_period = ACIS_TORUS_CBP_DEFAULT;
	if ((rc = get_uint(c, s, "credit_period", 0, 1000000000,
			   &t->credit_period)) != 0)
		return rc;
	t->watchdog_ms = ACIS_TORUS_WATCHDOG_MS_DEFAULT;
	if ((rc = get_uint(c, s, "watchdog_ms", 0, 3600000,
			   &t->watchdog_ms)) != 0)
		return rc;
	v = ACIS_TORUS_CLOCK_HZ / 1000;
	if ((rc = get_uint(c, s, "clock_khz", 1, 4000000, &v)) != 0)
		return rc;
	t->clock_hz = v * 1000u;
	for (i = 0; i < s->n_entries; i++) {
		char mac[24];
		const char *sp;

		e = &s->entries[i];
		if (strcmp(e->key, "host") != 0)
			continue;
		e->used = 1;
		if (t->n_hosts == ACIS_MAX_TORUS_HOSTS)
			return fail(c, e->line, "host: more than %d hosts",
				    ACIS_MAX_TORUS_HOSTS);
		sp = strchr(e->value, ' ');
		if (sp == NULL || (size_t)(sp - e->value) >= sizeof(mac))
			goto bad_host;
		memcpy(mac, e->value, (size_t)(sp - e->value));
		mac[sp - e->value] = '\0';
		while (*sp == ' ')
			sp++;
		if (acis_parse_mac(mac, t->hosts[t->n_hosts].mac) != 0 ||
		    torus_coord(sp, t->k, t->hosts[t->n_hosts].coord) != 0)
			goto bad_host;
		t->n_hosts++;
		continue;
bad_host:
		return fail(c, e->line, "host: expected MAC X[,Y[,Z]] (a "
			    "host's MAC and its switch's place inside dims), "
			    "found '%s'", e->value);
	}
	/* direction D is port pD; a torus has every link of its dimensions */
	for (d = 1; d <= 6; d++) {
		unsigned int dim = (d - 1) / 2;

		t->dir_port[d] = UINT16_MAX;
		snprintf(name, sizeof(name), "p%u", d);
		for (i = 0; i < c->p->n_ports; i++)
			if (strcmp(c->p->ports[i].name, name) == 0)
				t->dir_port[d] = (uint16_t)i;
		if (t->k[dim] < 2 || t->dir_port[d] != UINT16_MAX)
			continue;
		if (t->mesh && (((d - 1) & 1) ? t->coord[dim] == 0 :
				t->coord[dim] == t->k[dim] - 1))
			continue; /* a mesh's edge */
		return fail(c, s->line, "[torus]: no [port %s] for direction "
			    "%s%c of the %s (ports p1..p6 are X+ X- Y+ Y- "
			    "Z+ Z-)", name, (const char *[]){"X", "Y", "Z"}[dim],
			    ((d - 1) & 1) ? '-' : '+',
			    t->mesh ? "mesh" : "torus");
	}
	t->dir_port[0] = UINT16_MAX;
	return read_torus_links(c, s);
}

int
acis_pipeline_from_conf(struct acis_conf *conf, unsigned int default_lcore,
			struct acis_pipeline *p, char *err)
{
	struct ctx c = {.conf = conf, .p = p, .err = err};
	struct acis_conf_section *sw = NULL, *l2 = NULL, *coll = NULL;
	struct acis_conf_section *torus = NULL;
	unsigned int i;
	int rc;

	set_defaults(p);
	snprintf(p->path, sizeof(p->path), "%s", conf->path);
	/* Pass 1: section types, and the sections that must be unique. */
	for (i = 0; i < conf->n_sections; i++) {
		struct acis_conf_section *s = &conf->sections[i];

		if (strcmp(s->type, "switch") == 0) {
			if (sw != NULL)
				return fail(&c, s->line, "duplicate [switch] "
					    "(first at line %d)", sw->line);
			if (s->arg[0] != '\0')
				return fail(&c, s->line, "expected '[switch]' "
					    "with no name");
			sw = s;
		} else if (strcmp(s->type, "l2") == 0) {
			if (s->arg[0] != '\0')
				return fail(&c, s->line, "expected '[l2]' "
					    "with no name");
			if (l2 != NULL)
				return fail(&c, s->line, "duplicate [l2] "
					    "(first at line %d)", l2->line);
			l2 = s;
		} else if (strcmp(s->type, "collective") == 0) {
			if (s->arg[0] != '\0')
				return fail(&c, s->line, "expected "
					    "'[collective]' with no name");
			if (coll != NULL)
				return fail(&c, s->line, "duplicate "
					    "[collective] (first at line %d)",
					    coll->line);
			coll = s;
		} else if (strcmp(s->type, "torus") == 0) {
			if (s->arg[0] != '\0')
				return fail(&c, s->line, "expected '[torus]' "
					    "with no name");
			if (torus != NULL)
				return fail(&c, s->line, "duplicate [torus] "
					    "(first at line %d)", torus->line);
			torus = s;
		} else if (strcmp(s->type, "port") != 0 &&
			   strcmp(s->type, "lcore") != 0 &&
			   strcmp(s->type, "lookaside") != 0 &&
			   strcmp(s->type, "fault") != 0) {
			return fail(&c, s->line, "unknown section [%s] "
				    "(expected [switch], [l2], [collective], "
				    "[port NAME], [lcore N], [lookaside NAME], "
				    "[fault PORT] or [torus])", s->type);
		}
	}
	if (sw == NULL)
		return fail(&c, 0, "missing section [switch] (expected "
			    "[switch] with mac = ... and ip = ...)");
	if ((rc = read_switch(&c, sw)) != 0)
		return rc;
	/* Pass 2: ports first, since lcores and statics refer to them. */
	for (i = 0; i < conf->n_sections; i++)
		if (strcmp(conf->sections[i].type, "port") == 0 &&
		    (rc = read_port(&c, &conf->sections[i])) != 0)
			return rc;
	if (p->n_ports == 0)
		return fail(&c, 0, "no ports: declare at least one [port "
			    "NAME] with dev = DEVICE");
	if (l2 != NULL && (rc = read_l2(&c, l2)) != 0)
		return rc;
	for (i = 0; i < conf->n_sections; i++)
		if (strcmp(conf->sections[i].type, "fault") == 0 &&
		    (rc = read_fault(&c, &conf->sections[i])) != 0)
			return rc;
	if (coll != NULL && (rc = read_collective(&c, coll)) != 0)
		return rc;
	if (torus != NULL && (rc = read_torus(&c, torus)) != 0)
		return rc;
	for (i = 0; i < conf->n_sections; i++) {
		if (strcmp(conf->sections[i].type, "lcore") != 0)
			continue;
		if (p->n_lcores == ACIS_MAX_LCORES)
			return fail(&c, conf->sections[i].line,
				    "more than %d lcores", ACIS_MAX_LCORES);
		if ((rc = read_lcore(&c, &conf->sections[i])) != 0)
			return rc;
	}
	if (p->n_lcores == 0) {
		p->default_lcores = 1;
		p->n_lcores = 1;
		p->lcores[0].id = default_lcore;
		p->lcores[0].roles = ACIS_ROLE_RX | ACIS_ROLE_WORKER;
		p->lcores[0].rx_ports = (uint32_t)((1ull << p->n_ports) - 1);
	}
	if (acis_pipeline_n_workers(p) == 0)
		return fail(&c, p->lcores[0].line, "no lcore has the worker "
			    "role: packets polled by rx lcores would have "
			    "nowhere to go (add role = worker to an lcore)");
	for (i = 0; i < conf->n_sections; i++)
		if (strcmp(conf->sections[i].type, "lookaside") == 0 &&
		    (rc = read_lookaside(&c, &conf->sections[i])) != 0)
			return rc;
	for (i = 0; i < p->n_lookaside; i++) {
		const struct acis_lookaside_cfg *la = &p->lookaside[i];
		struct acis_conf_entry *e;
		struct acis_conf_section *s = acis_conf_section(conf,
						"lookaside", la->name);

		if (la->worker >= acis_pipeline_n_workers(p)) {
			e = acis_conf_get(s, "worker", NULL);
			return fail(&c, e->line, "worker: %u, but the pipeline "
				    "has %u worker lcore%s (workers count from "
				    "0 in [lcore] order)", la->worker,
				    acis_pipeline_n_workers(p),
				    acis_pipeline_n_workers(p) == 1 ? "" : "s");
		}
	}
	return 0;
}

int
acis_pipeline_load(const char *path, unsigned int default_lcore,
		   struct acis_pipeline *p, char *err)
{
	struct acis_conf *conf = acis_conf_load(path, err);
	int rc;

	if (conf == NULL)
		return -EINVAL;
	rc = acis_pipeline_from_conf(conf, default_lcore, p, err);
	acis_conf_free(conf);
	return rc;
}
