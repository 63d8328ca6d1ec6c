/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_conf: a small INI reader that remembers where every key came from.
 *
 * DPDK's rte_cfgfile parses INI but loses line numbers, and a user who
 * mistypes a pipeline file deserves "file:line: what was expected". This
 * parser keeps the file name and line of every section and key so that
 * later validation can name them.
 *
 * Syntax:
 *   # comment            ; comment
 *   [type]               [type argument]
 *   key = value          value may contain spaces; a trailing " # ..." or
 *                        " ; ..." is a comment
 *   ${NAME}, ${NAME:-default}   replaced by the environment variable
 * Keys may repeat inside a section (e.g. "static = ..." lines); whether a
 * repetition is allowed is the reader's business, not the parser's.
 */
#ifndef ACIS_CONF_H
#define ACIS_CONF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest error message produced by the parser and validators. */
#define ACIS_CONF_ERR_LEN 512

/** One "key = value" line. */
struct acis_conf_entry {
	char *key;   /**< key, trimmed */
	char *value; /**< value, trimmed, comment removed */
	int line;    /**< 1-based line number */
	int used;    /**< set by readers; unused keys are reported */
};

/** One "[type argument]" section and its entries, in file order. */
struct acis_conf_section {
	char *type; /**< first word of the header, e.g. "port" */
	char *arg;  /**< rest of the header, or "" */
	int line;
	unsigned int n_entries;
	unsigned int cap_entries;
	struct acis_conf_entry *entries;
};

/** A parsed file. */
struct acis_conf {
	char *path; /**< file name used in messages */
	unsigned int n_sections;
	unsigned int cap_sections;
	struct acis_conf_section *sections;
};

/**
 * Parse a file. On failure returns NULL and writes "path:line: reason" to
 * err (which must hold ACIS_CONF_ERR_LEN bytes).
 */
struct acis_conf *acis_conf_load(const char *path, char *err);

/** Parse text held in memory; name is used in messages in place of a path. */
struct acis_conf *acis_conf_parse(const char *name, const char *text,
				  char *err);

/** Release everything. NULL is accepted. */
void acis_conf_free(struct acis_conf *conf);

/** First section of the given type and argument (arg NULL: any), or NULL. */
struct acis_conf_section *acis_conf_section(const struct acis_conf *conf,
					    const char *type, const char *arg);

/**
 * The single entry of a key in a section, marking it used. Returns NULL
 * when absent. When the key is given more than once, returns NULL and, if
 * dup is non-NULL, sets *dup to the line of the second occurrence (else
 * *dup is 0).
 */
struct acis_conf_entry *acis_conf_get(struct acis_conf_section *sec,
				      const char *key, int *dup);

/**
 * A number at the start of s: decimal, or hexadecimal after 0x (a leading
 * zero is not octal), below 2^32; no sign, no leading blanks. 0 with the
 * value in *v and, if end is not NULL, where it stops in *end; -1 when s
 * does not start with a digit or the number does not fit.
 */
int acis_conf_u32_prefix(const char *s, uint32_t *v, const char **end);

/** The whole of s as acis_conf_u32_prefix's number: 0, or -1. */
int acis_conf_u32(const char *s, uint32_t *v);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_CONF_H */
