/* SPDX-License-Identifier: BSD-3-Clause */
/* INI reader with line numbers; see acis_conf.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_conf.h"

/* Files larger than this are not pipeline files; refuse them early. */
#define CONF_MAX_BYTES (4u << 20)
#define CONF_MAX_LINE 4096

static void
set_err(char *err, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL)
		return;
	if (line > 0)
		n = snprintf(err, ACIS_CONF_ERR_LEN, "%s:%d: ", name, line);
	else
		n = snprintf(err, ACIS_CONF_ERR_LEN, "%s: ", name);
	if (n < 0 || n >= ACIS_CONF_ERR_LEN)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, ACIS_CONF_ERR_LEN - n, fmt, ap);
	va_end(ap);
}

static char *
trim(char *s)
{
	char *e;

	while (*s != '\0' && isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Cut a trailing comment: '#' or ';' at the start or after white space. */
static void
cut_comment(char *s)
{
	char *p;

	for (p = s; *p != '\0'; p++) {
		if ((*p == '#' || *p == ';') &&
		    (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static int
valid_word(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
		      *s == '.'))
			return 0;
	return 1;
}

/*
 * Expand ${NAME} and ${NAME:-default} from the environment into out, so one
 * pipeline file serves many runs (pcap paths, interface names).
 */
static int
expand_env(const char *in, char *out, size_t outlen, const char *name,
	   int line, char *err)
{
	size_t o = 0;

	while (*in != '\0') {
		const char *val = NULL, *end, *dflt;
		char var[128];
		size_t vl, n;

		if (in[0] != '$' || in[1] != '{') {
			if (o + 1 >= outlen)
				goto too_long;
			out[o++] = *in++;
			continue;
		}
		end = strchr(in + 2, '}');
		if (end == NULL) {
			set_err(err, name, line, "expected '}' closing '${'");
			return -EINVAL;
		}
		dflt = strstr(in + 2, ":-");
		if (dflt != NULL && dflt > end)
			dflt = NULL;
		vl = (size_t)((dflt ? dflt : end) - (in + 2));
		if (vl == 0 || vl >= sizeof(var)) {
			set_err(err, name, line, "expected ${NAME} or "
				"${NAME:-default}");
			return -EINVAL;
		}
		memcpy(var, in + 2, vl);
		var[vl] = '\0';
		val = getenv(var);
		if (val == NULL || *val == '\0') {
			if (dflt == NULL) {
				set_err(err, name, line, "${%s} is not set "
					"(export it, or write ${%s:-default})",
					var, var);
				return -EINVAL;
			}
			val = dflt + 2;
			n = (size_t)(end - val);
		} else {
			n = strlen(val);
		}
		if (o + n >= outlen)
			goto too_long;
		memcpy(out + o, val, n);
		o += n;
		in = end + 1;
	}
	out[o] = '\0';
	return 0;
too_long:
	set_err(err, name, line, "value longer than %d characters after "
		"expanding variables", CONF_MAX_LINE - 1);
	return -EINVAL;
}

static struct acis_conf_section *
add_section(struct acis_conf *c, const char *type, const char *arg, int line)
{
	struct acis_conf_section *s;

	if (c->n_sections == c->cap_sections) {
		unsigned int cap = c->cap_sections ? c->cap_sections * 2 : 8;
		s = realloc(c->sections, cap * sizeof(*s));
		if (s == NULL)
			return NULL;
		c->sections = s;
		c->cap_sections = cap;
	}
	s = &c->sections[c->n_sections];
	memset(s, 0, sizeof(*s));
	s->type = strdup(type);
	s->arg = strdup(arg);
	s->line = line;
	if (s->type == NULL || s->arg == NULL) {
		free(s->type);
		free(s->arg);
		return NULL;
	}
	c->n_sections++;
	return s;
}

static int
add_entry(struct acis_conf_section *s, const char *key, const char *value,
	  int line)
{
	struct acis_conf_entry *e;

	if (s->n_entries == s->cap_entries) {
		unsigned int cap = s->cap_entries ? s->cap_entries * 2 : 8;
		e = realloc(s->entries, cap * sizeof(*e));
		if (e == NULL)
			return -ENOMEM;
		s->entries = e;
		s->cap_entries = cap;
	}
	e = &s->entries[s->n_entries];
	e->key = strdup(key);
	e->value = strdup(value);
	e->line = line;
	e->used = 0;
	if (e->key == NULL || e->value == NULL) {
		free(e->key);
		free(e->value);
		return -ENOMEM;
	}
	s->n_entries++;
	return 0;
}

void
acis_conf_free(struct acis_conf *c)
{
	unsigned int i, j;

	if (c == NULL)
		return;
	for (i = 0; i < c->n_sections; i++) {
		struct acis_conf_section *s = &c->sections[i];

		for (j = 0; j < s->n_entries; j++) {
			free(s->entries[j].key);
			free(s->entries[j].value);
		}
		free(s->entries);
		free(s->type);
		free(s->arg);
	}
	free(c->sections);
	free(c->path);
	free(c);
}

static int
parse_line(struct acis_conf *c, struct acis_conf_section **cur, char *raw,
	   int line, char *err)
{
	char *s = trim(raw);
	char *eq, *key, *val;

	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;

	if (*s == '[') {
		char *end = strchr(s, ']');
		char *type, *arg;

		if (end == NULL) {
			set_err(err, c->path, line,
				"expected ']' closing the section header "
				"'[type]' or '[type name]'");
			return -EINVAL;
		}
		*end = '\0';
		cut_comment(end + 1);
		if (*trim(end + 1) != '\0') {
			set_err(err, c->path, line,
				"unexpected text after ']'");
			return -EINVAL;
		}
		type = trim(s + 1);
		arg = type;
		while (*arg != '\0' && !isspace((unsigned char)*arg))
			arg++;
		if (*arg != '\0')
			*arg++ = '\0';
		arg = trim(arg);
		if (!valid_word(type) || (*arg != '\0' && !valid_word(arg))) {
			set_err(err, c->path, line,
				"expected a section header '[type]' or "
				"'[type name]' with names of letters, digits, "
				"'_', '-' or '.'");
			return -EINVAL;
		}
		*cur = add_section(c, type, arg, line);
		if (*cur == NULL) {
			set_err(err, c->path, line, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}

	cut_comment(s);
	eq = strchr(s, '=');
	if (eq == NULL) {
		set_err(err, c->path, line,
			"expected 'key = value', a '[section]' header or a "
			"comment, found '%.64s'", s);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!valid_word(key)) {
		set_err(err, c->path, line,
			"expected a key of letters, digits, '_', '-' or '.' "
			"before '='");
		return -EINVAL;
	}
	if (*val == '\0') {
		set_err(err, c->path, line, "expected a value after '%s ='",
			key);
		return -EINVAL;
	}
	if (*cur == NULL) {
		set_err(err, c->path, line,
			"'%s' appears before any [section] header", key);
		return -EINVAL;
	}
	{
		char expanded[CONF_MAX_LINE];

		if (expand_env(val, expanded, sizeof(expanded), c->path, line,
			       err) != 0)
			return -EINVAL;
		if (expanded[0] == '\0') {
			set_err(err, c->path, line, "'%s = %s' is empty once "
				"its variables are expanded", key, val);
			return -EINVAL;
		}
		if (add_entry(*cur, key, expanded, line) != 0) {
			set_err(err, c->path, line, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (add_entry(*cur, key, val, line) != 0) {
		set_err(err, c->path, line, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

struct acis_conf *
acis_conf_parse(const char *name, const char *text, char *err)
{
	struct acis_conf *c;
	struct acis_conf_section *cur = NULL;
	char buf[CONF_MAX_LINE];
	const char *p = text;
	int line = 0;

	c = calloc(1, sizeof(*c));
	if (c == NULL || (c->path = strdup(name)) == NULL) {
		free(c);
		set_err(err, name, 0, "out of memory");
		return NULL;
	}
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		line++;
		if (len >= sizeof(buf)) {
			set_err(err, name, line,
				"line longer than %d characters",
				CONF_MAX_LINE - 1);
			goto fail;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (memchr(buf, '\0', len) != NULL) {
			set_err(err, name, line, "NUL byte in line");
			goto fail;
		}
		if (parse_line(c, &cur, buf, line, err) != 0)
			goto fail;
		p += len;
		if (*p == '\n')
			p++;
	}
	return c;
fail:
	acis_conf_free(c);
	return NULL;
}

struct acis_conf *
acis_conf_load(const char *path, char *err)
{
	FILE *f;
	char *text;
	size_t n;
	struct acis_conf *c;

	f = fopen(path, "r");
	if (f == NULL) {
		set_err(err, path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	text = malloc(CONF_MAX_BYTES + 1);
	if (text == NULL) {
		fclose(f);
		set_err(err, path, 0, "out of memory");
		return NULL;
	}
	errno = 0;
	n = fread(text, 1, CONF_MAX_BYTES + 1, f);
	if (ferror(f) || n > CONF_MAX_BYTES) {
		int e = errno;

		if (ferror(f))
			set_err(err, path, 0, "read error: %s",
				e != 0 ? strerror(e) : "unknown");
		else
			set_err(err, path, 0, "larger than %u bytes",
				CONF_MAX_BYTES);
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	if (strlen(text) != n) {
		set_err(err, path, 0, "contains a NUL byte (not a text file)");
		free(text);
		return NULL;
	}
	c = acis_conf_parse(path, text, err);
	free(text);
	return c;
}

struct acis_conf_section *
acis_conf_section(const struct acis_conf *c, const char *type,
		  const char *arg)
{
	unsigned int i;

	for (i = 0; i < c->n_sections; i++)
		if (strcmp(c->sections[i].type, type) == 0 &&
		    (arg == NULL || strcmp(c->sections[i].arg, arg) == 0))
			return &c->sections[i];
	return NULL;
}

struct acis_conf_entry *
acis_conf_get(struct acis_conf_section *s, const char *key, int *dup)
{
	struct acis_conf_entry *found = NULL;
	unsigned int i;

	if (dup != NULL)
		*dup = 0;
	for (i = 0; i < s->n_entries; i++) {
		if (strcmp(s->entries[i].key, key) != 0)
			continue;
		s->entries[i].used = 1;
		if (found != NULL) {
			if (dup != NULL)
				*dup = s->entries[i].line;
			return NULL;
		}
		found = &s->entries[i];
	}
	return found;
}

int
acis_conf_u32_prefix(const char *s, uint32_t *v, const char **end)
{
	unsigned long long x;
	char *e;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	x = strtoull(s, &e, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ?
		     16 : 10);
	if (errno != 0 || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	if (end != NULL)
		*end = e;
	return 0;
}

int
acis_conf_u32(const char *s, uint32_t *v)
{
	const char *end;
	uint32_t x;

	if (acis_conf_u32_prefix(s, &x, &end) != 0 || *end != '\0')
		return -1;
	*v = x;
	return 0;
}
