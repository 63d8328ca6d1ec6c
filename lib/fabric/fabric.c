/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_fabric: topology files and what is computed from them
 * (acis_fabric.h, doc/fabric.md).
 */
#include <stdarg.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_conf.h"
#include "acis_fabric.h"
#include "acis_pipeline.h"
#include "acis_torus.h"

struct ctx {
	struct acis_conf *conf;
	struct acis_fabric *f;
	char *err;
	int profile_line; /* [topology] profile's line, 0 if none */
	int direct_line;  /* [topology] torus or mesh's line, 0 if none */
};

static int
fail(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, ACIS_CONF_ERR_LEN, "%s:%d: ", c->conf->path, line);
	va_start(ap, fmt);
	vsnprintf(c->err + n, ACIS_CONF_ERR_LEN - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

const char *
acis_fabric_placement_name(unsigned int p)
{
	static const char *const n[] = {"logical", "process", "machine"};

	return p < 3 ? n[p] : "unknown";
}

int
acis_fabric_switch_index(const struct acis_fabric *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->n_switches; i++)
		if (strcmp(f->sw[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
acis_fabric_host_index(const struct acis_fabric *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->n_hosts; i++)
		if (strcmp(f->hosts[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* A switch or host name: letters, digits, '-' and '_', at most 31. */
static int
good_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= ACIS_FABRIC_NAME_LEN)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

/* "SWITCH:pN" into a switch and a port of it. */
static int
switch_port(struct ctx *c, int line, const char *what, const char *s,
	    uint16_t *sw, uint16_t *port)
{
	char name[ACIS_FABRIC_NAME_LEN];
	const char *colon = strchr(s, ':');
	uint32_t p;
	int i;

	if (colon == NULL || colon[1] != 'p' ||
	    (size_t)(colon - s) >= sizeof(name) ||
	    acis_conf_u32(colon + 2, &p) != 0)
		return fail(c, line, "%s: expected SWITCH:pN (a switch and one "
			    "of its ports, p0, p1, ...), found '%s'", what, s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = '\0';
	i = acis_fabric_switch_index(c->f, name);
	if (i < 0)
		return fail(c, line, "%s: unknown switch '%s' (declare it with "
			    "[switch %s])", what, name, name);
	if (p >= c->f->sw[i].n_ports)
		return fail(c, line, "%s: switch %s has ports p0..p%u, not p%u",
			    what, name, c->f->sw[i].n_ports - 1, p);
	if (c->f->sw[i].ports[p].kind != ACIS_FABRIC_UNUSED)
		return fail(c, line, "%s: %s:p%u is already taken (by a %s)",
			    what, name, p,
			    c->f->sw[i].ports[p].kind == ACIS_FABRIC_TO_HOST ?
				    "host" : "link");
	*sw = (uint16_t)i;
	*port = (uint16_t)p;
	return 0;
}

/* What a switch-to-switch link's words set besides its shaping. */
struct link_opts {
	uint8_t reliable;
	uint8_t slots;	     /* 0: the topology's */
	uint8_t arbitration; /* policy + 1; 0: the topology's */
};

static int link_shape(struct ctx *c, int line, const char *words, char *out,
		      struct link_opts *o);

/* A number of a profile or topology key, from lo to hi. */
static int
number(struct ctx *c, const struct acis_conf_entry *e, double lo, double hi,
       double *out)
{
	char *end = NULL;
	double v = 0.0;

	errno = 0;
	if (e->value[0] >= '0' && e->value[0] <= '9')
		v = strtod(e->value, &end);
	if (end == NULL || errno != 0 || *end != '\0' || v < lo || v > hi)
		return fail(c, e->line, "%s: expected a number from %g to %g, "
			    "found '%s'", e->key, lo, hi, e->value);
	*out = v;
	return 0;
}

/*
 * [topology] profile = NAME: the file profiles/NAME.ini beside the
 * topology file, one [profile] section: name, source (text), rate_mbps,
 * hop_us, jitter_us, host_us, dilation. Its faults name its own file.
 */
static int
read_profile(struct ctx *c, const struct acis_conf_entry *pe)
{
	static const char *const keys[] = {"rate_mbps", "hop_us", "jitter_us",
					   "host_us", "dilation"};
	struct acis_fabric *f = c->f;
	double *to[] = {&f->rate_mbps, &f->hop_us, &f->jitter_us,
			&f->host_us, &f->dilation};
	const double hi[] = {400000.0, 1000.0, 1000.0, 1000.0, 1e6};
	const char *slash = strrchr(c->conf->path, '/');
	struct acis_conf *top = c->conf, *pc;
	struct acis_conf_section *s;
	char path[600], why[ACIS_CONF_ERR_LEN];
	unsigned int i, k;
	int rc = 0;

	if (pe->value[0] == '\0' ||
	    strspn(pe->value, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
	    strlen(pe->value) || strlen(pe->value) >= sizeof(f->profile))
		return fail(c, pe->line, "profile: expected a profile's name "
			    "(lower-case letters, digits, '-', '_'; the file "
			    "profiles/NAME.ini beside this one), found '%s'",
			    pe->value);
	snprintf(path, sizeof(path), "%.*s/profiles/%s.ini",
		 slash != NULL ? (int)(slash - top->path) : 1,
		 slash != NULL ? top->path : ".", pe->value);
	pc = acis_conf_load(path, why);
	if (pc == NULL)
		return fail(c, pe->line, "profile %s: %s", pe->value, why);
	snprintf(f->profile, sizeof(f->profile), "%s", pe->value);
	f->dilation = 1.0;
	c->conf = pc;
	s = acis_conf_section(pc, "profile", NULL);
	if (s == NULL) {
		rc = fail(c, 1, "no [profile] section (rate_mbps, hop_us, "
			  "jitter_us, host_us, dilation)");
		goto out;
	}
	for (i = 0; i < pc->n_sections && rc == 0; i++)
		if (&pc->sections[i] != s)
			rc = fail(c, pc->sections[i].line, "unknown section "
				  "[%s] (a profile is one [profile])",
				  pc->sections[i].type);
	for (i = 0; i < s->n_entries && rc == 0; i++) {
		const struct acis_conf_entry *e = &s->entries[i];

		if (strcmp(e->key, "name") == 0)
			continue;
		if (strcmp(e->key, "source") == 0) {
			snprintf(f->profile_source, sizeof(f->profile_source),
				 "%s", e->value);
			continue;
		}
		for (k = 0; k < 5; k++)
			if (strcmp(e->key, keys[k]) == 0)
				break;
		if (k == 5) {
			rc = fail(c, e->line, "unknown key '%s' (expected name, "
				  "source, rate_mbps, hop_us, jitter_us, host_us "
				  "or dilation)", e->key);
			break;
		}
		rc = number(c, e, k == 4 ? 1.0 : 0.0, hi[k], to[k]);
	}
out:
	c->conf = top;
	acis_conf_free(pc);
	return rc;
}

/* Every port without shaping of its own gets the profile's, dilated: a
 * switch-to-switch link its line rate and hop, each end on its TX; a host
 * port both ends' host time on the switch's TX to the host, so a frame
 * from host to host meets the model's 2 T_a once. */
static int
apply_profile(struct ctx *c, int line)
{
	struct acis_fabric *f = c->f;
	double d = f->dilation;
	unsigned int a, p;

	for (a = 0; a < f->n_switches; a++)
		for (p = 0; p < f->sw[a].n_ports; p++) {
			struct acis_fabric_port *q = &f->sw[a].ports[p];
			char words[ACIS_FABRIC_SHAPE_LEN];
			double kbps = f->rate_mbps * 1000.0 / d;
			int n = 0;

			if (q->shape[0] != '\0' || q->kind == ACIS_FABRIC_UNUSED)
				continue;
			if (q->kind == ACIS_FABRIC_TO_SWITCH) {
				if (f->rate_mbps > 0 && kbps < 1.0)
					return fail(c, line, "profile %s: its %g "
						    "Mbit/s over dilation %g is "
						    "below 1 kbit/s", f->profile,
						    f->rate_mbps, d);
				if (f->rate_mbps > 0)
					n = snprintf(words, sizeof(words),
						     "rate_kbps=%.0f ", kbps);
				snprintf(words + n, sizeof(words) - (size_t)n,
					 "delay_us=%.6g jitter_us=%.6g",
					 f->hop_us * d, f->jitter_us * d);
			} else if (f->host_us > 0) {
				snprintf(words, sizeof(words), "delay_us=%.6g",
					 2 * f->host_us * d);
			} else {
				continue;
			}
			if (link_shape(c, line, words, q->shape, NULL) != 0)
				return -1;
		}
	return 0;
}

/* [topology] torus = DIMS or mesh = DIMS, and the routers' options:
 * routing = ALGO, arbitration = POLICY, slots = N. */
static int
read_direct(struct ctx *c, struct acis_conf_section *s)
{
	struct acis_conf_entry *t, *m, *e;
	int dup, a;
	double v;

	t = acis_conf_get(s, "torus", &dup);
	if (dup)
		return fail(c, dup, "torus: given twice");
	m = acis_conf_get(s, "mesh", &dup);
	if (dup)
		return fail(c, dup, "mesh: given twice");
	if (t != NULL && m != NULL)
		return fail(c, m->line, "mesh: the topology is a torus already "
			    "(line %d): one of torus = DIMS or mesh = DIMS",
			    t->line);
	e = acis_conf_get(s, "routing", &dup);
	if (dup)
		return fail(c, dup, "routing: given twice");
	c->f->routing = ACIS_TORUS_DOR;
	if (e != NULL) {
		if (t == NULL && m == NULL)
			return fail(c, e->line, "routing: only for a torus or a "
				    "mesh (torus = DIMS or mesh = DIMS)");
		if ((a = acis_torus_algo_parse(e->value)) < 0)
			return fail(c, e->line, "routing: expected dor, o1turn, "
				    "rmr, rlb or ccar, found '%s'", e->value);
		c->f->routing = (uint8_t)a;
	}
	e = acis_conf_get(s, "arbitration", &dup);
	if (dup)
		return fail(c, dup, "arbitration: given twice");
	c->f->arbitration = ACIS_TORUS_OF;
	if (e != NULL) {
		if (t == NULL && m == NULL)
			return fail(c, e->line, "arbitration: only for a torus "
				    "or a mesh (torus = DIMS or mesh = DIMS)");
		if ((a = acis_torus_policy_parse(e->value)) < 0)
			return fail(c, e->line, "arbitration: expected ff, of "
				    "or mix, found '%s'", e->value);
		c->f->arbitration = (uint8_t)a;
	}
	e = acis_conf_get(s, "slots", &dup);
	if (dup)
		return fail(c, dup, "slots: given twice");
	c->f->slots = ACIS_TORUS_SLOTS_DEFAULT;
	if (e != NULL) {
		if (t == NULL && m == NULL)
			return fail(c, e->line, "slots: only for a torus or a "
				    "mesh (torus = DIMS or mesh = DIMS)");
		if (number(c, e, 0, ACIS_TORUS_SLOTS_MAX, &v) != 0)
			return -1;
		if (v != (double)(int)v)
			return fail(c, e->line, "slots: expected a whole number "
				    "from 0 to %d, found '%s'",
				    ACIS_TORUS_SLOTS_MAX, e->value);
		c->f->slots = (uint8_t)v;
	}
	if (t == NULL && m == NULL)
		return 0;
	if (t == NULL)
		t = m;
	c->f->direct_mesh = m != NULL;
	a = acis_torus_dims_parse(t->value, c->f->direct_k);
	if (a == -E2BIG)
		return fail(c, t->line, "%s: at most three dimensions, found "
			    "'%s'", t->key, t->value);
	if (a != 0)
		return fail(c, t->line, "%s: expected K, KxK or KxKxK, each K "
			    "from 2 to %d, found '%s'", t->key,
			    ACIS_TORUS_MAX_K, t->value);
	c->direct_line = t->line;
	return 0;
}

static int
read_topology(struct ctx *c)
{
	struct acis_conf_section *s = acis_conf_section(c->conf, "topology",
							 NULL);
	struct acis_conf_entry *e;
	int dup;

	if (s == NULL)
		return fail(c, 1, "no [topology] section (name, placement)");
	e = acis_conf_get(s, "name", &dup);
	if (dup)
		return fail(c, dup, "name: given twice");
	snprintf(c->f->name, sizeof(c->f->name), "%s",
		 e != NULL ? e->value : "");
	e = acis_conf_get(s, "placement", &dup);
	if (dup)
		return fail(c, dup, "placement: given twice");
	if (e != NULL) {
		if (strcmp(e->value, "logical") == 0)
			c->f->placement = ACIS_FABRIC_LOGICAL;
		else if (strcmp(e->value, "process") == 0)
			c->f->placement = ACIS_FABRIC_PROCESS;
		else if (strcmp(e->value, "machine") == 0)
			c->f->placement = ACIS_FABRIC_MACHINE;
		else
			return fail(c, e->line, "placement: expected logical "
				    "(every switch in one process), process "
				    "(one process per switch) or machine (one "
				    "switch per machine), found '%s'", e->value);
	}
	c->f->dilation = 1.0;
	e = acis_conf_get(s, "profile", &dup);
	if (dup)
		return fail(c, dup, "profile: given twice");
	if (e != NULL && read_profile(c, e) != 0)
		return -1;
	c->profile_line = e != NULL ? e->line : 0;
	e = acis_conf_get(s, "dilation", &dup);
	if (dup)
		return fail(c, dup, "dilation: given twice");
	if (e != NULL && number(c, e, 1.0, 1e6, &c->f->dilation) != 0)
		return -1;
	return read_direct(c, s);
}

/* ip = a.b.c.d or mac = xx:xx:xx:xx:xx:xx of a switch, once each. */
static int
switch_addr(struct ctx *c, struct acis_fabric_switch *w,
	    struct acis_conf_entry *d)
{
	int is_ip = strcmp(d->key, "ip") == 0;
	char *to = is_ip ? w->ip : w->mac;
	struct in_addr a;
	unsigned int m[6];
	char extra;

	d->used = 1;
	if (to[0] != '\0')
		return fail(c, d->line, "%s: given twice", d->key);
	if (is_ip) {
		if (inet_pton(AF_INET, d->value, &a) != 1 || a.s_addr == 0)
			return fail(c, d->line, "ip: expected an IPv4 address "
				    "a.b.c.d, found '%s'", d->value);
	} else if (strlen(d->value) != 17 ||
		   sscanf(d->value, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1],
			  &m[2], &m[3], &m[4], &m[5], &extra) != 6 ||
		   (m[0] & 1)) {
		return fail(c, d->line, "mac: expected a unicast MAC "
			    "xx:xx:xx:xx:xx:xx, found '%s'", d->value);
	}
	snprintf(to, is_ip ? sizeof(w->ip) : sizeof(w->mac), "%s", d->value);
	return 0;
}

static int
read_switches(struct ctx *c)
{
	struct acis_fabric *f = c->f;
	unsigned int i, j;

	for (i = 0; i < c->conf->n_sections; i++) {
		struct acis_conf_section *s = &c->conf->sections[i];
		struct acis_fabric_switch *w;
		struct acis_conf_entry *e;
		uint32_t n;
		int dup;

		if (strcmp(s->type, "switch") != 0)
			continue;
		if (!good_name(s->arg))
			return fail(c, s->line, "[switch NAME]: expected a name "
				    "of letters, digits, '-' and '_', at most "
				    "%d, found '%s'", ACIS_FABRIC_NAME_LEN - 1,
				    s->arg);
		if (acis_fabric_switch_index(f, s->arg) >= 0)
			return fail(c, s->line, "switch %s declared twice",
				    s->arg);
		if (f->n_switches == ACIS_FABRIC_MAX_SWITCHES)
			return fail(c, s->line, "more than %d switches",
				    ACIS_FABRIC_MAX_SWITCHES);
		w = &f->sw[f->n_switches];
		snprintf(w->name, sizeof(w->name), "%s", s->arg);
		e = acis_conf_get(s, "ports", &dup);
		if (dup)
			return fail(c, dup, "ports: given twice");
		if (e == NULL)
			return fail(c, s->line, "switch %s: no ports = N",
				    s->arg);
		if (acis_conf_u32(e->value, &n) != 0 || n < 1 ||
		    n > ACIS_FABRIC_MAX_PORTS)
			return fail(c, e->line, "ports: expected a whole number "
				    "from 1 to %d, found '%s'",
				    ACIS_FABRIC_MAX_PORTS, e->value);
		w->n_ports = (uint16_t)n;
		f->n_switches++;
		for (j = 0; j < s->n_entries; j++) {
			struct acis_conf_entry *d = &s->entries[j];
			uint32_t p;

			if (strcmp(d->key, "ports") == 0)
				continue;
			if (strcmp(d->key, "coord") == 0) {
				const char *v = d->value;
				uint32_t x;

				d->used = 1;
				if (w->n_coord != 0)
					return fail(c, d->line, "coord: given "
						    "twice");
				while (w->n_coord < 3 &&
				       acis_conf_u32_prefix(v, &x, &v) == 0 &&
				       x < 65536) {
					w->coord[w->n_coord++] = (uint16_t)x;
					if (*v != ',')
						break;
					v++;
				}
				if (w->n_coord == 0 || *v != '\0')
					return fail(c, d->line, "coord: expected "
						    "x, x,y or x,y,z (whole "
						    "numbers below 65536), "
						    "found '%s'", d->value);
				continue;
			}
			if (strcmp(d->key, "ip") == 0 ||
			    strcmp(d->key, "mac") == 0) {
				if (switch_addr(c, w, d) != 0)
					return -1;
				continue;
			}
			if (strncmp(d->key, "dev.p", 5) != 0 ||
			    acis_conf_u32(d->key + 5, &p) != 0)
				return fail(c, d->line, "switch %s: unknown key "
					    "'%s' (expected ports, ip, mac, "
					    "coord or dev.pN)", s->arg, d->key);
			if (p >= n)
				return fail(c, d->line, "%s: switch %s has ports "
					    "p0..p%u", d->key, s->arg, n - 1);
			if (w->ports[p].dev[0] != '\0')
				return fail(c, d->line, "%s: given twice",
					    d->key);
			if (strlen(d->value) >= sizeof(w->ports[p].dev))
				return fail(c, d->line, "%s: longer than %zu "
					    "characters", d->key,
					    sizeof(w->ports[p].dev) - 1);
			snprintf(w->ports[p].dev, sizeof(w->ports[p].dev),
				 "%s", d->value);
			d->used = 1;
		}
	}
	if (f->n_switches == 0)
		return fail(c, 1, "no [switch NAME] section");
	return 0;
}

/*
 * A link's shaping and faults: KEY=VALUE words after its ends, the keys
 * and values of a pipeline's [fault PORT] (acis_fault_cfg_set checks
 * them), applied on both ends' TX. Kept as "KEY=VALUE ..." in out. With
 * o given (a link between switches), the words reliable=on|off
 * (per-hop reliability) and, in a torus or a mesh, slots=N and
 * arbitration=POLICY (the routers' buffers and arbitration at both
 * ends of this link) set o.
 */
static int
link_shape(struct ctx *c, int line, const char *words, char *out,
	   struct link_opts *o)
{
	char buf[ACIS_FABRIC_SHAPE_LEN], msg[256], *tok, *save = NULL;
	struct acis_fault_cfg scratch;
	size_t len = 0;

	out[0] = '\0';
	if (strlen(words) >= sizeof(buf))
		return fail(c, line, "link: its KEY=VALUE words are longer "
			    "than %zu characters", sizeof(buf) - 1);
	strcpy(buf, words);
	memset(&scratch, 0, sizeof(scratch));
	for (tok = strtok_r(buf, " \t", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		int rc;

		if (eq == NULL || eq == tok)
			return fail(c, line, "link: expected KEY=VALUE after "
				    "the two ends (KEY one of: "
				    ACIS_FAULT_KEYS "), found '%s'", tok);
		*eq = '\0';
		if (o != NULL && strcmp(tok, "reliable") == 0) {
			if (strcmp(eq + 1, "on") != 0 &&
			    strcmp(eq + 1, "off") != 0)
				return fail(c, line, "link: reliable: expected "
					    "on or off, found '%s'", eq + 1);
			o->reliable = eq[1] == 'o' && eq[2] == 'n';
			continue;
		}
		if (o != NULL && (strcmp(tok, "slots") == 0 ||
				  strcmp(tok, "arbitration") == 0)) {
			char *end;
			long v;
			int a;

			if (c->f->direct_k[0] == 0)
				return fail(c, line, "link: %s: only in a torus "
					    "or a mesh (torus = DIMS or mesh = "
					    "DIMS in [topology])", tok);
			if (tok[0] == 'a') {
				if ((a = acis_torus_policy_parse(eq + 1)) < 0)
					return fail(c, line, "link: arbitration: "
						    "expected ff, of or mix, "
						    "found '%s'", eq + 1);
				o->arbitration = (uint8_t)(a + 1);
				continue;
			}
			v = strtol(eq + 1, &end, 10);
			if (end == eq + 1 || *end != '\0' || v < 1 ||
			    v > ACIS_TORUS_SLOTS_MAX)
				return fail(c, line, "link: slots: expected a "
					    "whole number from 1 to %d, found "
					    "'%s'", ACIS_TORUS_SLOTS_MAX, eq + 1);
			if (c->f->slots == 0)
				return fail(c, line, "link: slots: the routers "
					    "have no buffers (slots = 0 in "
					    "[topology])");
			o->slots = (uint8_t)v;
			continue;
		}
		rc = acis_fault_cfg_set(&scratch, tok, eq + 1, msg,
					sizeof(msg));
		if (rc == -ENOENT)
			return fail(c, line, "link: unknown key '%s' (expected "
				    "%sone of: " ACIS_FAULT_KEYS ")", tok,
				    o == NULL ? "" :
				    c->f->direct_k[0] != 0 ?
				    "reliable, slots, arbitration or " :
				    "reliable or ");
		if (rc != 0)
			return fail(c, line, "link: %s", msg);
		*eq = '=';
		len += (size_t)snprintf(out + len, ACIS_FABRIC_SHAPE_LEN - len,
					"%s%s", len ? " " : "", tok);
	}
	return 0;
}

static int
read_links(struct ctx *c)
{
	struct acis_fabric *f = c->f;
	unsigned int i, j;

	for (i = 0; i < c->conf->n_sections; i++) {
		struct acis_conf_section *s = &c->conf->sections[i];

		if (strcmp(s->type, "links") != 0)
			continue;
		for (j = 0; j < s->n_entries; j++) {
			struct acis_conf_entry *e = &s->entries[j];
			char a[64], b[64], shape[ACIS_FABRIC_SHAPE_LEN];
			uint16_t sa, pa, sb, pb;
			int used = 0;
			struct link_opts o;

			if (strcmp(e->key, "link") != 0)
				return fail(c, e->line, "[links]: unknown key "
					    "'%s' (expected link = A:pN B:pM)",
					    e->key);
			e->used = 1;
			if (sscanf(e->value, "%63s %63s%n", a, b, &used) != 2)
				return fail(c, e->line, "link: expected "
					    "'link = A:pN B:pM [KEY=VALUE ...]', "
					    "found '%s'", e->value);
			memset(&o, 0, sizeof(o));
			if (link_shape(c, e->line, e->value + used, shape,
				       &o) != 0)
				return -1;
			if (switch_port(c, e->line, "link", a, &sa, &pa) != 0)
				return -1;
			/* mark the first end, so a link from a port to
			 * itself is caught as the port taken */
			f->sw[sa].ports[pa].kind = ACIS_FABRIC_TO_SWITCH;
			if (switch_port(c, e->line, "link", b, &sb, &pb) != 0)
				return -1;
			if (sa == sb)
				return fail(c, e->line, "link: both ends on "
					    "switch %s", f->sw[sa].name);
			f->sw[sa].ports[pa].peer = sb;
			f->sw[sa].ports[pa].peer_port = pb;
			f->sw[sb].ports[pb].kind = ACIS_FABRIC_TO_SWITCH;
			f->sw[sb].ports[pb].peer = sa;
			f->sw[sb].ports[pb].peer_port = pa;
			strcpy(f->sw[sa].ports[pa].shape, shape);
			strcpy(f->sw[sb].ports[pb].shape, shape);
			f->sw[sa].ports[pa].reliable = o.reliable;
			f->sw[sb].ports[pb].reliable = o.reliable;
			f->sw[sa].ports[pa].slots = o.slots;
			f->sw[sb].ports[pb].slots = o.slots;
			f->sw[sa].ports[pa].arbitration = o.arbitration;
			f->sw[sb].ports[pb].arbitration = o.arbitration;
			f->n_links++;
		}
	}
	return 0;
}

static int
read_hosts(struct ctx *c)
{
	struct acis_fabric *f = c->f;
	unsigned int i, j;

	for (i = 0; i < c->conf->n_sections; i++) {
		struct acis_conf_section *s = &c->conf->sections[i];

		if (strcmp(s->type, "hosts") != 0)
			continue;
		for (j = 0; j < s->n_entries; j++) {
			struct acis_conf_entry *e = &s->entries[j];
			struct acis_fabric_host *h;
			uint16_t sw, port;

			e->used = 1;
			if (!good_name(e->key))
				return fail(c, e->line, "[hosts]: expected "
					    "NAME = SWITCH:pN with a name of "
					    "letters, digits, '-' and '_', found "
					    "'%s'", e->key);
			if (acis_fabric_host_index(f, e->key) >= 0)
				return fail(c, e->line, "host %s given twice",
					    e->key);
			if (f->n_hosts == ACIS_FABRIC_MAX_HOSTS)
				return fail(c, e->line, "more than %d hosts",
					    ACIS_FABRIC_MAX_HOSTS);
			if (switch_port(c, e->line, e->key, e->value, &sw,
					&port) != 0)
				return -1;
			h = &f->hosts[f->n_hosts];
			snprintf(h->name, sizeof(h->name), "%s", e->key);
			h->sw = sw;
			h->port = port;
			f->sw[sw].ports[port].kind = ACIS_FABRIC_TO_HOST;
			f->sw[sw].ports[port].peer = f->n_hosts;
			f->n_hosts++;
		}
	}
	return 0;
}

/* Breadth-first from every switch: hops and the first port of a shortest
 * path, the lowest-numbered port among equals (ports are tried in order,
 * and a switch is reached first through the lowest first port). */
static int
routes(struct ctx *c)
{
	struct acis_fabric *f = c->f;
	unsigned int n = f->n_switches, a, i;
	uint16_t *queue = malloc(n * sizeof(*queue));

	f->next = malloc((size_t)n * n * sizeof(*f->next));
	f->hops = malloc((size_t)n * n * sizeof(*f->hops));
	f->flood = calloc((size_t)n * ACIS_FABRIC_MAX_PORTS, 1);
	if (queue == NULL || f->next == NULL || f->hops == NULL ||
	    f->flood == NULL) {
		free(queue);
		return fail(c, 1, "out of memory");
	}
	for (a = 0; a < n; a++) {
		uint16_t *next = &f->next[a * n], *hops = &f->hops[a * n];
		unsigned int head = 0, tail = 0;

		for (i = 0; i < n; i++) {
			next[i] = ACIS_FABRIC_NONE;
			hops[i] = ACIS_FABRIC_NONE;
		}
		hops[a] = 0;
		queue[tail++] = (uint16_t)a;
		while (head < tail) {
			unsigned int u = queue[head++], p;

			for (p = 0; p < f->sw[u].n_ports; p++) {
				const struct acis_fabric_port *q =
					&f->sw[u].ports[p];

				if (q->kind != ACIS_FABRIC_TO_SWITCH ||
				    hops[q->peer] != ACIS_FABRIC_NONE)
					continue;
				hops[q->peer] = (uint16_t)(hops[u] + 1);
				next[q->peer] = u == a ? (uint16_t)p : next[u];
				queue[tail++] = q->peer;
			}
		}
		for (i = 0; i < n; i++)
			if (hops[i] == ACIS_FABRIC_NONE) {
				free(queue);
				return fail(c, 1, "switch %s cannot reach switch "
					    "%s: the fabric is not connected",
					    f->sw[a].name, f->sw[i].name);
			}
	}
	free(queue);
	/* the spanning tree: each switch but 0 joins by its first port
	 * toward switch 0, and that link floods both ways */
	for (a = 1; a < n; a++) {
		uint16_t p = f->next[a * n + 0];
		const struct acis_fabric_port *q = &f->sw[a].ports[p];

		f->flood[a * ACIS_FABRIC_MAX_PORTS + p] = 1;
		f->flood[q->peer * ACIS_FABRIC_MAX_PORTS + q->peer_port] = 1;
	}
	for (a = 0; a < n; a++)
		for (i = 0; i < f->sw[a].n_ports; i++)
			if (f->sw[a].ports[i].kind == ACIS_FABRIC_TO_HOST)
				f->flood[a * ACIS_FABRIC_MAX_PORTS + i] = 1;
	return 0;
}

/* A torus's or mesh's switches: each at a place inside its dimensions,
 * no two at one. */
static int
check_direct(struct ctx *c)
{
	const struct acis_fabric *f = c->f;
	unsigned int a, b, d;

	if (f->direct_k[0] == 0)
		return 0;
	for (a = 0; a < f->n_switches; a++) {
		const struct acis_fabric_switch *w = &f->sw[a];

		for (d = 0; d < 3; d++)
			if ((d < w->n_coord ? w->coord[d] : 0) >= f->direct_k[d])
				break;
		if (w->n_coord == 0 || d < 3)
			return fail(c, c->direct_line, "switch %s: a torus or "
				    "mesh needs every switch's coord inside its "
				    "dims (%ux%ux%u)", w->name, f->direct_k[0],
				    f->direct_k[1], f->direct_k[2]);
		for (b = 0; b < a; b++) {
			const struct acis_fabric_switch *x = &f->sw[b];

			for (d = 0; d < 3; d++)
				if ((d < w->n_coord ? w->coord[d] : 0) !=
				    (d < x->n_coord ? x->coord[d] : 0))
					break;
			if (d == 3)
				return fail(c, c->direct_line, "switches %s and "
					    "%s: the same coord", x->name,
					    w->name);
		}
	}
	return 0;
}

static int
unused_keys(struct ctx *c)
{
	unsigned int i, j;

	for (i = 0; i < c->conf->n_sections; i++) {
		struct acis_conf_section *s = &c->conf->sections[i];

		if (strcmp(s->type, "topology") != 0 &&
		    strcmp(s->type, "switch") != 0 &&
		    strcmp(s->type, "links") != 0 &&
		    strcmp(s->type, "hosts") != 0)
			return fail(c, s->line, "unknown section [%s] (expected "
				    "topology, switch NAME, links, hosts)",
				    s->type);
		for (j = 0; j < s->n_entries; j++)
			if (!s->entries[j].used)
				return fail(c, s->entries[j].line, "[%s]: "
					    "unknown key '%s'", s->type,
					    s->entries[j].key);
	}
	return 0;
}

static struct acis_fabric *
build(struct acis_conf *conf, char *err)
{
	struct acis_fabric *f = calloc(1, sizeof(*f));
	struct ctx c = {conf, f, err};
	unsigned int i, n_sw = 1, n_h = 1;

	/* room for what the file declares, up to the limits (the readers
	 * refuse more) */
	for (i = 0; i < conf->n_sections; i++) {
		if (strcmp(conf->sections[i].type, "switch") == 0)
			n_sw++;
		else if (strcmp(conf->sections[i].type, "hosts") == 0)
			n_h += conf->sections[i].n_entries;
	}
	n_sw = n_sw < ACIS_FABRIC_MAX_SWITCHES ? n_sw : ACIS_FABRIC_MAX_SWITCHES;
	n_h = n_h < ACIS_FABRIC_MAX_HOSTS ? n_h : ACIS_FABRIC_MAX_HOSTS;
	if (f == NULL ||
	    (f->sw = calloc(n_sw, sizeof(*f->sw))) == NULL ||
	    (f->hosts = calloc(n_h, sizeof(*f->hosts))) == NULL) {
		snprintf(err, ACIS_CONF_ERR_LEN, "%s: out of memory",
			 conf->path);
		acis_fabric_free(f);
		acis_conf_free(conf);
		return NULL;
	}
	if (read_topology(&c) != 0 || read_switches(&c) != 0 ||
	    check_direct(&c) != 0 ||
	    read_links(&c) != 0 || read_hosts(&c) != 0 ||
	    (c.profile_line != 0 && apply_profile(&c, c.profile_line) != 0) ||
	    unused_keys(&c) != 0 || routes(&c) != 0) {
		acis_fabric_free(f);
		f = NULL;
	}
	acis_conf_free(conf);
	return f;
}

struct acis_fabric *
acis_fabric_load(const char *path, char *err)
{
	struct acis_conf *conf = acis_conf_load(path, err);

	return conf == NULL ? NULL : build(conf, err);
}

struct acis_fabric *
acis_fabric_parse(const char *name, const char *text, char *err)
{
	struct acis_conf *conf = acis_conf_parse(name, text, err);

	return conf == NULL ? NULL : build(conf, err);
}

void
acis_fabric_free(struct acis_fabric *f)
{
	if (f == NULL)
		return;
	free(f->sw);
	free(f->hosts);
	free(f->next);
	free(f->hops);
	free(f->flood);
	free(f);
}

void
acis_fabric_tree_free(struct acis_fabric_tree *t)
{
	free(t->up);
	free(t->children);
	free(t->local);
	free(t->in);
	memset(t, 0, sizeof(*t));
}

int
acis_fabric_tree(const struct acis_fabric *f, const uint16_t *members,
		 uint32_t n, struct acis_fabric_tree *t)
{
	unsigned int ns = f->n_switches, a, b;
	uint32_t i;
	uint16_t best = ACIS_FABRIC_NONE, best_far = ACIS_FABRIC_NONE;

	memset(t, 0, sizeof(*t));
	t->up = malloc(ns * sizeof(*t->up));
	t->children = calloc(ns, sizeof(*t->children));
	t->local = calloc(ns, sizeof(*t->local));
	t->in = calloc(ns, 1);
	if (t->up == NULL || t->children == NULL || t->local == NULL ||
	    t->in == NULL || n == 0) {
		acis_fabric_tree_free(t);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (members[i] >= f->n_hosts) {
			acis_fabric_tree_free(t);
			return -1;
		}
		t->local[f->hosts[members[i]].sw]++;
	}
	/* the root: the switch nearest to its farthest member switch */
	for (a = 0; a < ns; a++) {
		uint16_t far = 0;

		for (b = 0; b < ns; b++)
			if (t->local[b] != 0 && f->hops[a * ns + b] > far)
				far = f->hops[a * ns + b];
		if (far < best_far) {
			best_far = far;
			best = (uint16_t)a;
		}
	}
	if (best >= ns) { /* no switch: cannot be, the file had one */
		acis_fabric_tree_free(t);
		return -1;
	}
	t->root = best;
	t->depth = best_far;
	for (a = 0; a < ns; a++)
		t->up[a] = ACIS_FABRIC_NONE;
	t->in[best] = 1;
	t->n_in = 1;
	/* every member switch joins by its shortest path to the root; the
	 * paths of a breadth-first tree merge, never cross */
	for (a = 0; a < ns; a++) {
		unsigned int u = a;

		if (t->local[a] == 0)
			continue;
		while (u != best && t->up[u] == ACIS_FABRIC_NONE) {
			uint16_t p = f->next[u * ns + best];
			unsigned int parent = f->sw[u].ports[p].peer;

			t->up[u] = p;
			t->children[parent]++;
			if (!t->in[u]) {
				t->in[u] = 1;
				t->n_in++;
			}
			if (!t->in[parent]) {
				t->in[parent] = 1;
				t->n_in++;
			}
			u = parent;
		}
		if (!t->in[a]) {
			t->in[a] = 1;
			t->n_in++;
		}
	}
	return 0;
}
