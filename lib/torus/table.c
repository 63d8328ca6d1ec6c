/* SPDX-License-Identifier: BSD-3-Clause */
/* Table-routed unicast, multicast and reduction (seed 000 §8.1): the
 * per-hop lookup, a reduction entry's arrival count, the table file
 * reader and writer, the tree builder and the walkers tools and tests
 * follow packets with (doc/torus-tables.md). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acis_torus.h"

/* Longest line of a table file; longer is an error, not a cut. */
#define LINE_MAX_CHARS 1024
/* A multicast line: the keyword, its index, six children. */
#define TOKENS_MAX (2 + ACIS_TORUS_MCAST_CHILDREN)
#define FILE_MAX_BYTES (16u << 20)
/* The deepest a multicast walk recurses, whatever the caller asks. */
#define WALK_HOPS_MAX 1024u

#define ALL_NODES UINT32_MAX

#define FORM_OUT "local or DIR:TABLE:INDEX (DIR x+ x- y+ y- z+ z-)"
#define FORM_UNICAST "'unicast INDEX OUTPUT [prio=0-255]'"
#define FORM_MULTICAST "'multicast INDEX OUTPUT...' (1 to 6 outputs)"
#define FORM_REDUCE "'reduce INDEX expect=1-7 OUTPUT'"
#define FORM_NODE "'[node X,Y,Z]' or '[node INDEX]'"

/* The tables a unicast or multicast entry's outputs may go into. */
#define TO_UNI_MC \
	(1u << ACIS_TORUS_PKT_UNICAST | 1u << ACIS_TORUS_PKT_MULTICAST)

static const char *const dir_names[ACIS_TORUS_ZM + 1] = {
	"local", "x+", "x-", "y+", "y-", "z+", "z-",
};

static const char *const type_names[] = {
	[ACIS_TORUS_PKT_UNICAST] = "unicast",
	[ACIS_TORUS_PKT_MULTICAST] = "multicast",
	[ACIS_TORUS_PKT_REDUCE] = "reduce",
};
#define TYPES (sizeof(type_names) / sizeof(type_names[0]))

static void
msg(char *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ACIS_TORUS_TABLE_ERR_LEN, fmt, ap);
	va_end(ap);
}

static unsigned int
popcount6(unsigned int m)
{
	return (unsigned int)__builtin_popcount(m & 0x3fu);
}

/* ---- lookup ---- */

static int
entry_set(const struct acis_torus_table *tb, unsigned int type, unsigned int i)
{
	if (type == ACIS_TORUS_PKT_UNICAST)
		return tb->uni[i].valid;
	if (type == ACIS_TORUS_PKT_MULTICAST)
		return tb->mc[i].n != 0;
	return tb->red[i].expect != 0;
}

void
acis_torus_table_clear(struct acis_torus_table *tb)
{
	memset(tb, 0, sizeof(*tb));
}

static void
hdr_set(struct acis_torus_thdr *h, unsigned int type, unsigned int port,
	unsigned int next, unsigned int prio)
{
	h->type = (uint8_t)type;
	h->port = (uint8_t)port;
	h->next = (uint16_t)next;
	h->prio = (uint8_t)prio;
}

int
acis_torus_table_route(const struct acis_torus_table *tb,
		       const struct acis_torus_thdr *in,
		       struct acis_torus_thdr *out)
{
	const struct acis_torus_uentry *u;
	const struct acis_torus_mentry *m;
	const struct acis_torus_rentry *r;
	unsigned int i;

	if (in->next >= ACIS_TORUS_TABLE_SIZE)
		return -EINVAL;
	switch (in->type) {
	case ACIS_TORUS_PKT_UNICAST:
		u = &tb->uni[in->next];
		if (!u->valid || u->port > ACIS_TORUS_ZM)
			return -ENOENT;
		if (u->port == ACIS_TORUS_LOCAL)
			hdr_set(&out[0], in->type, 0, 0, u->prio);
		else
			hdr_set(&out[0], u->type, u->port, u->next, u->prio);
		return 1;
	case ACIS_TORUS_PKT_MULTICAST:
		m = &tb->mc[in->next];
		/* a count past the slots or a port past Z- is a table
		 * written by hand wrong: no switch port to index with it */
		if (m->n == 0 || m->n > ACIS_TORUS_MCAST_CHILDREN)
			return -ENOENT;
		for (i = 0; i < m->n; i++) {
			const struct acis_torus_child *c = &m->c[i];

			if (c->port > ACIS_TORUS_ZM)
				return -ENOENT;
			if (c->port == ACIS_TORUS_LOCAL)
				hdr_set(&out[i], in->type, 0, 0, in->prio);
			else
				hdr_set(&out[i], c->type, c->port, c->next,
					in->prio);
		}
		return m->n;
	case ACIS_TORUS_PKT_REDUCE:
		r = &tb->red[in->next];
		if (r->expect == 0 || r->port > ACIS_TORUS_ZM)
			return -ENOENT;
		hdr_set(&out[0], ACIS_TORUS_PKT_REDUCE, r->port,
			r->port == ACIS_TORUS_LOCAL ? 0 : r->next, in->prio);
		return 1;
	default:
		return -EINVAL;
	}
}

/* ---- a reduction entry's arrivals ---- */

int
acis_torus_reduce_arrive(struct acis_torus_reduce_state *s,
			 const struct acis_torus_table *tb, unsigned int index,
			 unsigned int port)
{
	const struct acis_torus_rentry *e;
	struct acis_torus_reduce_slot *sl;

	if (index >= ACIS_TORUS_TABLE_SIZE || port > ACIS_TORUS_ZM)
		return -EINVAL;
	e = &tb->red[index];
	if (e->expect == 0)
		return -ENOENT;
	sl = &s->s[index];
	if (sl->got >= e->expect)
		return -EOVERFLOW;
	if (sl->ports & (1u << port))
		return -EALREADY;
	sl->ports |= (uint8_t)(1u << port);
	sl->got++;
	return sl->got == e->expect;
}

void
acis_torus_reduce_reset(struct acis_torus_reduce_state *s, unsigned int index)
{
	if (index < ACIS_TORUS_TABLE_SIZE) {
		s->s[index].got = 0;
		s->s[index].ports = 0;
	}
}

/* ---- the table file ---- */

struct parser {
	const struct acis_torus *t;
	const char *name;
	char *err;
	unsigned int line;
	uint32_t keep; /* the node whose entries are kept, or ALL_NODES */
	struct acis_torus_table *tables;
	int in_node;   /* a [node] section has begun */
	uint32_t node; /* the section's node */
	struct acis_torus_coord at;
	const char *tok[TOKENS_MAX];
	unsigned int ntok;
};

static int
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err == NULL)
		return -EINVAL;
	if (p->line > 0)
		n = snprintf(p->err, ACIS_TORUS_TABLE_ERR_LEN,
			     "%s:%u: ", p->name, p->line);
	else
		n = snprintf(p->err, ACIS_TORUS_TABLE_ERR_LEN, "%s: ", p->name);
	if (n < 0 || n >= ACIS_TORUS_TABLE_ERR_LEN)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, ACIS_TORUS_TABLE_ERR_LEN - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A decimal number up to max at s; *end after it. -1 for none or too
 * big (checked digit by digit, so no input overflows). */
static int
number(const char *s, const char **end, unsigned long max, unsigned long *v)
{
	unsigned long x = 0;
	const char *q = s;

	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++) {
		x = x * 10 + (unsigned long)(*q - '0');
		if (x > max)
			return -1;
	}
	*end = q;
	*v = x;
	return 0;
}

static int
whole_number(const char *s, unsigned long max, unsigned long *v)
{
	const char *end;

	return number(s, &end, max, v) == 0 && *end == '\0' ? 0 : -1;
}

static int
name_index(const char *const *names, unsigned int n, const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strlen(names[i]) == len &&
		    strncasecmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}

static const char *
shape(const struct acis_torus *t)
{
	return t->mesh ? "mesh" : "torus";
}

static const char *
node_text(const struct acis_torus_coord *c, char *buf, size_t len)
{
	snprintf(buf, len, "%u,%u,%u", c->c[0], c->c[1], c->c[2]);
	return buf;
}

/* "[node X,Y,Z]", "[node X,Y]" or "[node INDEX]" (one number is an
 * index, which in one dimension is x). */
static int
parse_section(struct parser *p, char *s)
{
	unsigned long v[ACIS_TORUS_DIMS] = {0, 0, 0};
	struct acis_torus_coord c;
	unsigned int n = 0;
	const char *q;
	size_t len = strlen(s);
	int node;

	if (len < 2 || s[len - 1] != ']')
		return fail(p, "expected %s, found '%s'", FORM_NODE, s);
	s[len - 1] = '\0';
	s++;
	while (isspace((unsigned char)*s))
		s++;
	if (strncasecmp(s, "node", 4) != 0 || !isspace((unsigned char)s[4]))
		return fail(p, "expected %s, found '[%s]'", FORM_NODE, s);
	q = s + 4;
	for (;;) {
		while (isspace((unsigned char)*q))
			q++;
		if (n == ACIS_TORUS_DIMS ||
		    number(q, &q,
			   ACIS_TORUS_MAX_K * ACIS_TORUS_MAX_K *
				   ACIS_TORUS_MAX_K,
			   &v[n]) != 0)
			return fail(p, "expected %s, found '[%s]'", FORM_NODE,
				    s);
		n++;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '\0')
			break;
		if (*q++ != ',')
			return fail(p, "expected %s, found '[%s]'", FORM_NODE,
				    s);
	}
	if (n == 1) {
		if (v[0] >= p->t->nodes)
			return fail(p,
				    "node %lu: the %ux%ux%u %s has nodes 0 "
				    "to %u",
				    v[0], p->t->k[0], p->t->k[1], p->t->k[2],
				    shape(p->t), p->t->nodes - 1);
		p->node = (uint32_t)v[0];
		acis_torus_coord(p->t, p->node, &p->at);
	} else {
		unsigned int d;

		for (d = 0; d < ACIS_TORUS_DIMS; d++)
			c.c[d] = (uint8_t)(v[d] > 255 ? 255 : v[d]);
		node = acis_torus_node(p->t, &c);
		if (node < 0)
			return fail(p,
				    "node %lu,%lu,%lu is outside the %ux%ux%u "
				    "%s",
				    v[0], v[1], v[2], p->t->k[0], p->t->k[1],
				    p->t->k[2], shape(p->t));
		p->node = (uint32_t)node;
		p->at = c;
	}
	p->in_node = 1;
	return 0;
}

/* One output: "local" or DIR:TABLE:INDEX. tables: the bits of the
 * TABLE values allowed. */
static int
parse_out(struct parser *p, const char *what, const char *tok,
	  unsigned int tables, struct acis_torus_child *c)
{
	const char *colon = strchr(tok, ':'), *colon2;
	struct acis_torus_coord to = p->at;
	unsigned long next;
	char where[16];
	int d, type;

	if (strcasecmp(tok, "local") == 0) {
		c->port = ACIS_TORUS_LOCAL;
		c->type = 0;
		c->next = 0;
		return 0;
	}
	colon2 = colon != NULL ? strchr(colon + 1, ':') : NULL;
	if (colon2 == NULL)
		return fail(p, "%s: expected an output, %s, found '%s'", what,
			    FORM_OUT, tok);
	d = name_index(dir_names, ACIS_TORUS_ZM + 1, tok,
		       (size_t)(colon - tok));
	type = name_index(type_names, TYPES, colon + 1,
			  (size_t)(colon2 - colon - 1));
	if (d <= 0 || type <= 0 || !(tables & (1u << type)) ||
	    whole_number(colon2 + 1, ACIS_TORUS_TABLE_SIZE - 1, &next) != 0)
		return fail(p,
			    "%s: expected an output, %s with TABLE %s and "
			    "INDEX 0 to %u, found '%s'",
			    what, FORM_OUT,
			    tables & (1u << ACIS_TORUS_PKT_REDUCE)
				    ? "reduce"
				    : "unicast or multicast",
			    ACIS_TORUS_TABLE_SIZE - 1, tok);
	if (acis_torus_step(p->t, &to, (unsigned int)d) != 0)
		return fail(p,
			    "%s: no link leaves node %s by %s in the "
			    "%ux%ux%u %s",
			    what, node_text(&p->at, where, sizeof(where)),
			    dir_names[d], p->t->k[0], p->t->k[1], p->t->k[2],
			    shape(p->t));
	c->port = (uint8_t)d;
	c->type = (uint8_t)type;
	c->next = (uint16_t)next;
	return 0;
}

/* "key=N" with N up to max. 1 if tok is that key, 0 if another, < 0 on
 * a bad value. */
static int
parse_key(struct parser *p, const char *what, const char *form, const char *tok,
	  const char *key, unsigned long min, unsigned long max,
	  unsigned long *v)
{
	size_t kl = strlen(key);

	if (strncasecmp(tok, key, kl) != 0 || tok[kl] != '=')
		return 0;
	if (whole_number(tok + kl + 1, max, v) != 0 || *v < min)
		return fail(p,
			    "%s: %s: expected a number from %lu to %lu, "
			    "found '%s'; the form is %s",
			    what, key, min, max, tok + kl + 1, form);
	return 1;
}

/* The tables the section's entries go to; NULL: check, do not keep. */
static struct acis_torus_table *
kept(struct parser *p)
{
	if (p->keep == ALL_NODES)
		return &p->tables[p->node];
	return p->keep == p->node ? p->tables : NULL;
}

/* The fields after a unicast or reduce line's INDEX: one output (into
 * a table of the bits tables) and key=N (min to max) at most once. */
static int
parse_out_key(struct parser *p, const char *what, const char *form,
	      unsigned int tables, struct acis_torus_child *out,
	      const char *key, unsigned long min, unsigned long max,
	      unsigned long *v)
{
	unsigned int i;
	int rc, have_out = 0, have_key = 0;

	for (i = 2; i < p->ntok; i++) {
		rc = parse_key(p, what, form, p->tok[i], key, min, max, v);
		if (rc < 0)
			return rc;
		if (rc > 0 ? have_key : have_out)
			return fail(p,
				    "%s: '%s' is one too many; the form "
				    "is %s",
				    what, p->tok[i], form);
		if (rc > 0) {
			have_key = 1;
			continue;
		}
		rc = parse_out(p, what, p->tok[i], tables, out);
		if (rc < 0)
			return rc;
		have_out = 1;
	}
	if (!have_out)
		return fail(p, "%s: no output; the form is %s", what, form);
	return have_key;
}

static int
parse_unicast(struct parser *p, struct acis_torus_table *tb, unsigned int index,
	      const char *what)
{
	struct acis_torus_uentry *u;
	struct acis_torus_child out;
	unsigned long prio = 0;
	int rc;

	rc = parse_out_key(p, what, FORM_UNICAST, TO_UNI_MC, &out, "prio", 0,
			   255, &prio);
	if (rc < 0 || tb == NULL)
		return rc < 0 ? rc : 0;
	u = &tb->uni[index];
	u->valid = 1;
	u->type = out.type;
	u->port = out.port;
	u->next = out.next;
	u->prio = (uint8_t)prio;
	return 0;
}

static int
parse_multicast(struct parser *p, struct acis_torus_table *tb,
		unsigned int index, const char *what)
{
	struct acis_torus_child c[ACIS_TORUS_MCAST_CHILDREN];
	unsigned int i, n = 0, ports = 0;
	int rc;

	for (i = 2; i < p->ntok; i++) {
		rc = parse_out(p, what, p->tok[i], TO_UNI_MC, &c[n]);
		if (rc < 0)
			return rc;
		if (ports & (1u << c[n].port))
			return fail(p,
				    "%s: two outputs by %s; each port "
				    "sends one copy",
				    what, dir_names[c[n].port]);
		ports |= 1u << c[n].port;
		n++;
	}
	if (n == 0)
		return fail(p, "%s: expected %s", what, FORM_MULTICAST);
	if (tb == NULL)
		return 0;
	tb->mc[index].n = (uint8_t)n;
	for (i = 0; i < n; i++)
		tb->mc[index].c[i] = c[i];
	return 0;
}

static int
parse_reduce(struct parser *p, struct acis_torus_table *tb, unsigned int index,
	     const char *what)
{
	struct acis_torus_rentry *r;
	struct acis_torus_child out;
	unsigned long expect = 0;
	int rc;

	rc = parse_out_key(p, what, FORM_REDUCE, 1u << ACIS_TORUS_PKT_REDUCE,
			   &out, "expect", 1, ACIS_TORUS_REDUCE_EXPECT_MAX,
			   &expect);
	if (rc == 0)
		return fail(p, "%s: no expect=N; the form is %s", what,
			    FORM_REDUCE);
	if (rc < 0 || tb == NULL)
		return rc < 0 ? rc : 0;
	r = &tb->red[index];
	r->expect = (uint8_t)expect;
	r->port = out.port;
	r->next = out.next;
	return 0;
}

static int
parse_entry(struct parser *p)
{
	struct acis_torus_table *tb;
	unsigned long index;
	char what[40], where[16];
	int type;

	type = name_index(type_names, TYPES, p->tok[0], strlen(p->tok[0]));
	if (type <= 0)
		return fail(p, "expected %s, %s, %s or %s, found '%s'",
			    FORM_NODE, FORM_UNICAST, FORM_MULTICAST,
			    FORM_REDUCE, p->tok[0]);
	if (!p->in_node)
		return fail(p, "'%s' before any %s section", p->tok[0],
			    FORM_NODE);
	if (p->ntok < 2 ||
	    whole_number(p->tok[1], ACIS_TORUS_TABLE_SIZE - 1, &index) != 0)
		return fail(p,
			    "%s: expected an INDEX from 0 to %u, found "
			    "'%s'",
			    type_names[type], ACIS_TORUS_TABLE_SIZE - 1,
			    p->ntok < 2 ? "" : p->tok[1]);
	snprintf(what, sizeof(what), "%s %lu", type_names[type], index);
	tb = kept(p);
	if (tb != NULL && entry_set(tb, (unsigned int)type, index))
		return fail(p, "%s is set twice for node %s", what,
			    node_text(&p->at, where, sizeof(where)));
	switch (type) {
	case ACIS_TORUS_PKT_UNICAST:
		return parse_unicast(p, tb, (unsigned int)index, what);
	case ACIS_TORUS_PKT_MULTICAST:
		return parse_multicast(p, tb, (unsigned int)index, what);
	default:
		return parse_reduce(p, tb, (unsigned int)index, what);
	}
}

/* Split s at blanks into p->tok. */
static int
tokenize(struct parser *p, char *s)
{
	p->ntok = 0;
	for (;;) {
		while (isspace((unsigned char)*s))
			*s++ = '\0';
		if (*s == '\0')
			return 0;
		if (p->ntok == TOKENS_MAX)
			return fail(p,
				    "more than %u fields; a line is one of "
				    "%s, %s, %s",
				    TOKENS_MAX, FORM_UNICAST, FORM_MULTICAST,
				    FORM_REDUCE);
		p->tok[p->ntok++] = s;
		while (*s != '\0' && !isspace((unsigned char)*s))
			s++;
	}
}

static int
parse_line(struct parser *p, char *s)
{
	char *hash = strchr(s, '#');
	int rc;

	if (hash != NULL)
		*hash = '\0';
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '[') {
		size_t len = strlen(s);

		while (len > 0 && isspace((unsigned char)s[len - 1]))
			s[--len] = '\0';
		return parse_section(p, s);
	}
	rc = tokenize(p, s);
	if (rc < 0 || p->ntok == 0)
		return rc;
	return parse_entry(p);
}

static int
parse_text(struct parser *p, const char *text, size_t len)
{
	char buf[LINE_MAX_CHARS + 1];
	size_t pos = 0, n;
	int rc;

	if (text == NULL && len > 0) {
		p->line = 0;
		return fail(p, "no text");
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);

		n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
		p->line++;
		if (n > LINE_MAX_CHARS)
			return fail(p, "a line longer than %u characters",
				    LINE_MAX_CHARS);
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		if (strlen(buf) != n)
			return fail(p, "a NUL byte; a table file is text");
		rc = parse_line(p, buf);
		if (rc < 0)
			return rc;
		pos += n + 1;
	}
	return 0;
}

static void
parser_init(struct parser *p, const struct acis_torus *t, const char *name,
	    uint32_t keep, struct acis_torus_table *tables, char *err)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->name = name != NULL ? name : "(tables)";
	p->keep = keep;
	p->tables = tables;
	p->err = err;
}

int
acis_torus_table_parse(const struct acis_torus *t, const char *name,
		       const char *text, size_t len, uint32_t node,
		       struct acis_torus_table *tb, char *err)
{
	struct parser p;

	parser_init(&p, t, name, node, tb, err);
	if (node >= t->nodes)
		return fail(&p, "node %u: the %ux%ux%u %s has nodes 0 to %u",
			    node, t->k[0], t->k[1], t->k[2], shape(t),
			    t->nodes - 1);
	acis_torus_table_clear(tb);
	return parse_text(&p, text, len);
}

int
acis_torus_table_parse_all(const struct acis_torus *t, const char *name,
			   const char *text, size_t len,
			   struct acis_torus_table *tables, char *err)
{
	struct parser p;
	uint32_t i;

	parser_init(&p, t, name, ALL_NODES, tables, err);
	for (i = 0; i < t->nodes; i++)
		acis_torus_table_clear(&tables[i]);
	return parse_text(&p, text, len);
}

int
acis_torus_table_load(const struct acis_torus *t, const char *path,
		      uint32_t node, struct acis_torus_table *tb, char *err)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int rc;

	if (f == NULL) {
		rc = -errno;
		msg(err, "%s: %s", path, strerror(errno));
		return rc;
	}
	text = malloc(FILE_MAX_BYTES + 1);
	if (text == NULL) {
		fclose(f);
		msg(err, "%s: no memory to read it", path);
		return -ENOMEM;
	}
	n = fread(text, 1, FILE_MAX_BYTES + 1, f);
	if (ferror(f)) {
		rc = -EIO;
		msg(err, "%s: read error", path);
	} else if (n > FILE_MAX_BYTES) {
		rc = -EFBIG;
		msg(err, "%s: larger than %u MiB; not a table file", path,
		    FILE_MAX_BYTES >> 20);
	} else {
		rc = acis_torus_table_parse(t, path, text, n, node, tb, err);
	}
	free(text);
	fclose(f);
	return rc;
}

static void
print_out(FILE *f, unsigned int port, unsigned int type, unsigned int next)
{
	if (port == ACIS_TORUS_LOCAL || port > ACIS_TORUS_ZM || type >= TYPES ||
	    type == 0)
		fprintf(f, " %s", port == ACIS_TORUS_LOCAL ? "local" : "?");
	else
		fprintf(f, " %s:%s:%u", dir_names[port], type_names[type],
			next);
}

static int
node_has_entries(const struct acis_torus_table *tb)
{
	unsigned int i;

	for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++)
		if (entry_set(tb, ACIS_TORUS_PKT_UNICAST, i) ||
		    entry_set(tb, ACIS_TORUS_PKT_MULTICAST, i) ||
		    entry_set(tb, ACIS_TORUS_PKT_REDUCE, i))
			return 1;
	return 0;
}

int
acis_torus_table_print(FILE *f, const struct acis_torus *t,
		       const struct acis_torus_table *tables)
{
	struct acis_torus_coord c;
	unsigned int i, j;
	uint32_t node;

	for (node = 0; node < t->nodes; node++) {
		const struct acis_torus_table *tb = &tables[node];

		if (!node_has_entries(tb))
			continue;
		acis_torus_coord(t, node, &c);
		fprintf(f, "\n[node %u,%u,%u]\t# %u\n", c.c[0], c.c[1], c.c[2],
			node);
		for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++) {
			const struct acis_torus_uentry *u = &tb->uni[i];

			if (!u->valid)
				continue;
			fprintf(f, "unicast %u", i);
			print_out(f, u->port, u->type, u->next);
			fprintf(f, " prio=%u\n", u->prio);
		}
		for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++) {
			const struct acis_torus_mentry *m = &tb->mc[i];

			if (m->n == 0)
				continue;
			fprintf(f, "multicast %u", i);
			for (j = 0; j < m->n && j < ACIS_TORUS_MCAST_CHILDREN;
			     j++)
				print_out(f, m->c[j].port, m->c[j].type,
					  m->c[j].next);
			fputc('\n', f);
		}
		for (i = 0; i < ACIS_TORUS_TABLE_SIZE; i++) {
			const struct acis_torus_rentry *r = &tb->red[i];

			if (r->expect == 0)
				continue;
			fprintf(f, "reduce %u expect=%u", i, r->expect);
			print_out(f, r->port, ACIS_TORUS_PKT_REDUCE, r->next);
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- building a tree ---- */

static int
neighbour(const struct acis_torus *t, uint32_t node, unsigned int d,
	  uint32_t *next)
{
	struct acis_torus_coord c;

	if (acis_torus_coord(t, node, &c) != 0 || acis_torus_step(t, &c, d))
		return -ENETUNREACH;
	*next = (uint32_t)acis_torus_node(t, &c);
	return 0;
}

/* Lowest index at or above base free in tb's table of kind type. */
static int
free_index(const struct acis_torus_table *tb, unsigned int type,
	   unsigned int base)
{
	unsigned int i;

	for (i = base; i < ACIS_TORUS_TABLE_SIZE; i++)
		if (!entry_set(tb, type, i))
			return (int)i;
	return -ENOSPC;
}

/* Mark the DOR path from root to dst in tree. */
static int
add_path(const struct acis_torus *t, uint32_t root, uint32_t dst,
	 struct acis_torus_tree_node *tree)
{
	uint8_t dirs[ACIS_TORUS_PATH_MAX];
	uint32_t cur = root, next;
	int hops, h;

	hops = acis_torus_path(t, root, dst, ACIS_TORUS_DOR, NULL, NULL, dirs,
			       0);
	if (hops < 0)
		return hops;
	for (h = 0; h < hops; h++) {
		if (neighbour(t, cur, dirs[h], &next) != 0)
			return -ENETUNREACH;
		tree[cur].children |= (uint8_t)ACIS_TORUS_DIR_BIT(dirs[h]);
		if (tree[cur].height < hops - h)
			tree[cur].height = (uint8_t)(hops - h);
		tree[next].in_tree = 1;
		tree[next].parent = (uint8_t)acis_torus_dir_opposite(dirs[h]);
		cur = next;
	}
	return 0;
}

/* The multicast-side output toward child direction d of node. */
static void
child_out(const struct acis_torus *t, uint32_t node, unsigned int d,
	  const struct acis_torus_tree_node *tree, struct acis_torus_child *c)
{
	uint32_t next = node;

	neighbour(t, node, d, &next);
	c->port = (uint8_t)d;
	c->type = tree[next].mc_type;
	c->next = tree[next].mc_index;
}

static void
fill_node(const struct acis_torus *t, uint32_t node, uint32_t root,
	  struct acis_torus_table *tables,
	  const struct acis_torus_tree_node *tree)
{
	const struct acis_torus_tree_node *me = &tree[node];
	struct acis_torus_child c[ACIS_TORUS_MCAST_CHILDREN];
	struct acis_torus_table *tb = &tables[node];
	unsigned int d, n = 0, i;
	uint32_t up;

	if (me->member && node != root) {
		c[n].port = ACIS_TORUS_LOCAL;
		c[n].type = 0;
		c[n++].next = 0;
	}
	for (d = ACIS_TORUS_XP; d <= ACIS_TORUS_ZM; d++)
		if (me->children & ACIS_TORUS_DIR_BIT(d))
			child_out(t, node, d, tree, &c[n++]);
	if (me->mc_type == ACIS_TORUS_PKT_UNICAST) {
		struct acis_torus_uentry *u = &tb->uni[me->mc_index];

		u->valid = 1;
		u->type = c[0].type;
		u->port = c[0].port;
		u->next = c[0].next;
		u->prio = me->height;
	} else {
		tb->mc[me->mc_index].n = (uint8_t)n;
		for (i = 0; i < n; i++)
			tb->mc[me->mc_index].c[i] = c[i];
	}
	tb->red[me->red_index].expect =
		(uint8_t)(popcount6(me->children) + me->member);
	tb->red[me->red_index].port = me->parent;
	tb->red[me->red_index].next = 0;
	if (node != root && neighbour(t, node, me->parent, &up) == 0)
		tb->red[me->red_index].next = tree[up].red_index;
}

int
acis_torus_table_build(const struct acis_torus *t, uint32_t root,
		       const uint32_t *dsts, unsigned int n, uint16_t base,
		       struct acis_torus_table *tables,
		       struct acis_torus_tree_node *tree)
{
	unsigned int i, others = 0, outs;
	uint32_t node;
	int rc;

	if (root >= t->nodes || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (dsts[i] >= t->nodes)
			return -EINVAL;
	memset(tree, 0, sizeof(*tree) * t->nodes);
	tree[root].in_tree = 1;
	for (i = 0; i < n; i++) {
		tree[dsts[i]].member = 1;
		if (dsts[i] == root)
			continue;
		others++;
		rc = add_path(t, root, dsts[i], tree);
		if (rc < 0)
			return rc;
	}
	if (others == 0)
		return -EINVAL;
	/* every index first, so that a full table changes nothing */
	for (node = 0; node < t->nodes; node++) {
		struct acis_torus_tree_node *me = &tree[node];

		if (!me->in_tree)
			continue;
		outs = popcount6(me->children) + (me->member && node != root);
		me->mc_type = outs == 1 ? ACIS_TORUS_PKT_UNICAST
					: ACIS_TORUS_PKT_MULTICAST;
		rc = free_index(&tables[node], me->mc_type, base);
		if (rc < 0)
			return rc;
		me->mc_index = (uint16_t)rc;
		rc = free_index(&tables[node], ACIS_TORUS_PKT_REDUCE, base);
		if (rc < 0)
			return rc;
		me->red_index = (uint16_t)rc;
	}
	for (node = 0; node < t->nodes; node++)
		if (tree[node].in_tree)
			fill_node(t, node, root, tables, tree);
	return 0;
}

/* ---- walking ---- */

struct mwalk {
	const struct acis_torus *t;
	const struct acis_torus_table *tables;
	uint16_t *copies;
	uint16_t *hops;
	char *err;
	unsigned int max_hops;
	unsigned long budget; /* hops left in all */
	int total;
};

static const char *
type_name(unsigned int type)
{
	return type < TYPES && type_names[type] != NULL ? type_names[type]
							: "type?";
}

static int
walk_fail(const struct acis_torus *t, char *err, uint32_t node,
	  const struct acis_torus_thdr *h, int rc)
{
	struct acis_torus_coord c = {{0, 0, 0}};
	char where[16];

	acis_torus_coord(t, node, &c);
	node_text(&c, where, sizeof(where));
	switch (rc) {
	case -ENOENT:
		msg(err, "node %s: %s %u is not set", where, type_name(h->type),
		    h->next);
		break;
	case -ENETUNREACH:
		msg(err, "node %s: no link leaves by %s", where,
		    h->port <= ACIS_TORUS_ZM ? dir_names[h->port] : "?");
		break;
	case -ELOOP:
		msg(err, "node %s: past the hop bound: a loop in the tables",
		    where);
		break;
	case -EPROTO:
		msg(err, "node %s: a multicast reached reduce %u", where,
		    h->next);
		break;
	case -EALREADY:
		msg(err, "node %s: reduce %u: two packets from %s", where,
		    h->next, dir_names[h->port]);
		break;
	case -EOVERFLOW:
		msg(err,
		    "node %s: reduce %u: a packet beyond the count "
		    "expected",
		    where, h->next);
		break;
	default:
		msg(err, "node %s: %s %u refused (%d)", where,
		    type_name(h->type), h->next, rc);
	}
	return rc;
}

static int
mwalk_from(struct mwalk *w, uint32_t node, const struct acis_torus_thdr *in,
	   unsigned int depth)
{
	struct acis_torus_thdr out[ACIS_TORUS_MCAST_CHILDREN];
	uint32_t next;
	int n, i, rc;

	if (in->type == ACIS_TORUS_PKT_REDUCE)
		return walk_fail(w->t, w->err, node, in, -EPROTO);
	n = acis_torus_table_route(&w->tables[node], in, out);
	if (n < 0)
		return walk_fail(w->t, w->err, node, in, n);
	for (i = 0; i < n; i++) {
		if (out[i].port == ACIS_TORUS_LOCAL) {
			if (w->copies[node] < UINT16_MAX)
				w->copies[node]++;
			w->hops[node] = (uint16_t)depth;
			w->total++;
			continue;
		}
		if (depth >= w->max_hops || w->budget == 0)
			return walk_fail(w->t, w->err, node, in, -ELOOP);
		w->budget--;
		if (neighbour(w->t, node, out[i].port, &next) != 0)
			return walk_fail(w->t, w->err, node, &out[i],
					 -ENETUNREACH);
		rc = mwalk_from(w, next, &out[i], depth + 1);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static unsigned int
hop_bound(const struct acis_torus *t, unsigned int max_hops)
{
	unsigned int dim;

	if (max_hops == 0)
		for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
			max_hops += 2u * (t->k[dim] - 1u);
	return max_hops < WALK_HOPS_MAX ? max_hops : WALK_HOPS_MAX;
}

int
acis_torus_table_walk_multicast(const struct acis_torus *t,
				const struct acis_torus_table *tables,
				uint32_t node, unsigned int type,
				uint16_t index, unsigned int max_hops,
				uint16_t *copies, uint16_t *hops, char *err)
{
	struct acis_torus_thdr in;
	struct mwalk w;
	int rc;

	if (node >= t->nodes) {
		msg(err, "node %u: the torus has nodes 0 to %u", node,
		    t->nodes - 1);
		return -EINVAL;
	}
	memset(copies, 0, sizeof(*copies) * t->nodes);
	memset(hops, 0, sizeof(*hops) * t->nodes);
	w.t = t;
	w.tables = tables;
	w.copies = copies;
	w.hops = hops;
	w.err = err;
	w.max_hops = hop_bound(t, max_hops);
	w.budget = (unsigned long)ACIS_TORUS_MCAST_CHILDREN * t->nodes *
		   w.max_hops;
	w.total = 0;
	hdr_set(&in, type, ACIS_TORUS_LOCAL, index, 0);
	rc = mwalk_from(&w, node, &in, 0);
	return rc < 0 ? rc : w.total;
}

int
acis_torus_table_walk_reduce(const struct acis_torus *t,
			     const struct acis_torus_table *tables,
			     const uint32_t *members, const uint16_t *index,
			     unsigned int n, unsigned int max_hops,
			     struct acis_torus_walk_node *scratch,
			     struct acis_torus_reduce_walk *w, char *err)
{
	struct acis_torus_thdr h, out[ACIS_TORUS_MCAST_CHILDREN];
	unsigned int m, hops;
	uint32_t node, carried, far;
	int rc;

	memset(w, 0, sizeof(*w));
	max_hops = hop_bound(t, max_hops);
	for (m = 0; m < n; m++) {
		node = members[m];
		if (node >= t->nodes) {
			msg(err, "member %u: node %u is outside the torus", m,
			    node);
			return -EINVAL;
		}
		hdr_set(&h, ACIS_TORUS_PKT_REDUCE, ACIS_TORUS_LOCAL, index[m],
			0);
		carried = 1;
		far = 0;
		for (hops = 0;; hops++, far++) {
			struct acis_torus_walk_node *s = &scratch[node];

			rc = acis_torus_reduce_arrive(&s->state, &tables[node],
						      h.next, h.port);
			if (rc < 0)
				return walk_fail(t, err, node, &h, rc);
			if (s->state.s[h.next].got == 1)
				w->pending++;
			s->held[h.next] += carried;
			if (s->far[h.next] < far)
				s->far[h.next] = (uint16_t)far;
			if (rc == 0)
				break;
			w->pending--;
			carried = s->held[h.next];
			far = s->far[h.next];
			acis_torus_table_route(&tables[node], &h, out);
			if (out[0].port == ACIS_TORUS_LOCAL) {
				w->completions++;
				w->node = node;
				w->total = carried;
				w->hops = far;
				break;
			}
			if (hops >= max_hops)
				return walk_fail(t, err, node, &h, -ELOOP);
			if (neighbour(t, node, out[0].port, &node) != 0)
				return walk_fail(t, err, node, &out[0],
						 -ENETUNREACH);
			h = out[0];
			h.port = (uint8_t)acis_torus_dir_opposite(out[0].port);
		}
	}
	return 0;
}
