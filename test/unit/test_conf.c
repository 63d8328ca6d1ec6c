/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of acis_conf, the INI reader: what it keeps from a file and
 * the "name:line:" prefix of every error it reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "acis_conf.h"

static char err[ACIS_CONF_ERR_LEN];

static struct acis_conf *
parse_ok(const char *text)
{
	struct acis_conf *c;

	err[0] = '\0';
	c = acis_conf_parse("t.conf", text, err);
	if (c == NULL)
		fail_msg("unexpected parse error: %s", err);
	return c;
}

/*
 * Parse text that must be refused, and check the message names the file
 * and line and says what was expected.
 */
static void
parse_fails(const char *text, int line, const char *hint)
{
	char prefix[64];
	struct acis_conf *c;

	memset(err, 0, sizeof(err));
	c = acis_conf_parse("t.conf", text, err);
	assert_null(c);
	snprintf(prefix, sizeof(prefix), "t.conf:%d: ", line);
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("expected prefix '%s', got '%s'", prefix, err);
	if (strstr(err, hint) == NULL)
		fail_msg("expected '%s' in '%s'", hint, err);
}

static void
test_section_without_argument_has_empty_arg(void **state)
{
	struct acis_conf *c = parse_ok("[switch]\n");

	(void)state;
	assert_int_equal(c->n_sections, 1);
	assert_string_equal(c->sections[0].type, "switch");
	assert_string_equal(c->sections[0].arg, "");
	assert_int_equal(c->sections[0].line, 1);
	acis_conf_free(c);
}

static void
test_section_with_argument_splits_type_and_arg(void **state)
{
	struct acis_conf *c = parse_ok("\n[ port  p0 ]\n");

	(void)state;
	assert_int_equal(c->n_sections, 1);
	assert_string_equal(c->sections[0].type, "port");
	assert_string_equal(c->sections[0].arg, "p0");
	assert_int_equal(c->sections[0].line, 2);
	acis_conf_free(c);
}

static void
test_sections_are_kept_in_file_order(void **state)
{
	struct acis_conf *c = parse_ok("[a]\n[b x]\n[a y]\n");

	(void)state;
	assert_int_equal(c->n_sections, 3);
	assert_string_equal(c->sections[0].type, "a");
	assert_string_equal(c->sections[1].type, "b");
	assert_string_equal(c->sections[1].arg, "x");
	assert_string_equal(c->sections[2].type, "a");
	assert_string_equal(c->sections[2].arg, "y");
	acis_conf_free(c);
}

static void
test_key_and_value_are_trimmed_and_inner_spaces_kept(void **state)
{
	struct acis_conf *c = parse_ok("[s]\n  name\t=   my  switch \t\n");

	(void)state;
	assert_int_equal(c->sections[0].n_entries, 1);
	assert_string_equal(c->sections[0].entries[0].key, "name");
	assert_string_equal(c->sections[0].entries[0].value, "my  switch");
	assert_int_equal(c->sections[0].entries[0].line, 2);
	assert_int_equal(c->sections[0].entries[0].used, 0);
	acis_conf_free(c);
}

static void
test_value_keeps_equals_signs_after_the_first(void **state)
{
	struct acis_conf *c =
		parse_ok("[port p0]\ndev = net_af_packet0,iface=veth0\n");

	(void)state;
	assert_string_equal(c->sections[0].entries[0].key, "dev");
	assert_string_equal(c->sections[0].entries[0].value,
			    "net_af_packet0,iface=veth0");
	acis_conf_free(c);
}

static void
test_trailing_hash_comment_is_cut_from_value(void **state)
{
	struct acis_conf *c = parse_ok("[s]\nburst = 32   # frames per poll\n");

	(void)state;
	assert_string_equal(c->sections[0].entries[0].value, "32");
	acis_conf_free(c);
}

static void
test_trailing_semicolon_comment_is_cut_from_value(void **state)
{
	struct acis_conf *c = parse_ok("[s]\nburst = 32 ; frames per poll\n");

	(void)state;
	assert_string_equal(c->sections[0].entries[0].value, "32");
	acis_conf_free(c);
}

static void
test_comment_character_inside_a_word_is_kept(void **state)
{
	struct acis_conf *c = parse_ok("[s]\ndev = eth#1;x\n");

	(void)state;
	assert_string_equal(c->sections[0].entries[0].value, "eth#1;x");
	acis_conf_free(c);
}

static void
test_comment_and_blank_lines_are_ignored_but_counted(void **state)
{
	struct acis_conf *c = parse_ok("# top\n\n   ; also\n[s]\n\t\n"
				       "  # indented\nk = v\n");

	(void)state;
	assert_int_equal(c->n_sections, 1);
	assert_int_equal(c->sections[0].line, 4);
	assert_int_equal(c->sections[0].n_entries, 1);
	assert_int_equal(c->sections[0].entries[0].line, 7);
	acis_conf_free(c);
}

static void
test_comment_after_section_header_is_allowed(void **state)
{
	struct acis_conf *c = parse_ok("[port p0] # uplink\n[l2]; table\n");

	(void)state;
	assert_int_equal(c->n_sections, 2);
	assert_string_equal(c->sections[0].arg, "p0");
	assert_string_equal(c->sections[1].type, "l2");
	acis_conf_free(c);
}

static void
test_repeated_keys_are_all_kept_in_order(void **state)
{
	struct acis_conf *c = parse_ok("[l2]\nstatic = a p0\nage = 5\n"
				       "static = b p1\n");
	struct acis_conf_section *s;

	(void)state;
	s = &c->sections[0];
	assert_int_equal(s->n_entries, 3);
	assert_string_equal(s->entries[0].value, "a p0");
	assert_int_equal(s->entries[0].line, 2);
	assert_string_equal(s->entries[2].key, "static");
	assert_string_equal(s->entries[2].value, "b p1");
	assert_int_equal(s->entries[2].line, 4);
	acis_conf_free(c);
}

static void
test_many_sections_and_entries_are_all_kept(void **state)
{
	/* More than the initial allocation of both arrays. */
	char text[8192];
	struct acis_conf *c;
	size_t n = 0;
	int i, j;

	(void)state;
	for (i = 0; i < 20; i++) {
		n += snprintf(text + n, sizeof(text) - n, "[s %d]\n", i);
		for (j = 0; j < 20; j++)
			n += snprintf(text + n, sizeof(text) - n,
				      "k%d = %d\n", j, i * 100 + j);
	}
	c = parse_ok(text);
	assert_int_equal(c->n_sections, 20);
	assert_string_equal(c->sections[19].arg, "19");
	assert_int_equal(c->sections[19].n_entries, 20);
	assert_string_equal(c->sections[19].entries[19].value, "1919");
	assert_int_equal(c->sections[19].entries[19].line, 20 * 21);
	acis_conf_free(c);
}

static void
test_crlf_line_endings_are_accepted(void **state)
{
	struct acis_conf *c = parse_ok("[s a]\r\nk = v\r\n");

	(void)state;
	assert_string_equal(c->sections[0].arg, "a");
	assert_string_equal(c->sections[0].entries[0].value, "v");
	acis_conf_free(c);
}

static void
test_last_line_without_newline_is_read(void **state)
{
	struct acis_conf *c = parse_ok("[s]\nk = v");

	(void)state;
	assert_int_equal(c->sections[0].n_entries, 1);
	assert_string_equal(c->sections[0].entries[0].value, "v");
	acis_conf_free(c);
}

static void
test_empty_text_gives_no_sections(void **state)
{
	struct acis_conf *c = parse_ok("");

	(void)state;
	assert_int_equal(c->n_sections, 0);
	assert_string_equal(c->path, "t.conf");
	acis_conf_free(c);
}

static void
test_key_before_any_section_is_an_error_on_its_line(void **state)
{
	(void)state;
	parse_fails("# header\n\nmac = 02:00:00:00:00:01\n[switch]\n", 3,
		    "before any [section]");
}

static void
test_line_without_equals_is_an_error_on_its_line(void **state)
{
	(void)state;
	parse_fails("[switch]\nmac 02:00:00:00:00:01\n", 2,
		    "expected 'key = value'");
}

static void
test_missing_closing_bracket_is_an_error_on_its_line(void **state)
{
	(void)state;
	parse_fails("[switch]\nk = v\n[port p0\ndev = x\n", 3,
		    "expected ']'");
}

static void
test_empty_value_is_an_error_naming_the_key(void **state)
{
	(void)state;
	parse_fails("[switch]\nmac =   # nothing\n", 2,
		    "expected a value after 'mac ='");
}

/* ${NAME} and ${NAME:-default} are expanded; a value that expands to
 * nothing is refused like an empty one, not kept empty. */
static void
test_variables_expand_and_an_empty_expansion_is_an_error(void **state)
{
	struct acis_conf *c;

	(void)state;
	setenv("ACIS_TEST_CONF_MTU", "9000", 1);
	unsetenv("ACIS_TEST_CONF_NONE");
	c = parse_ok("[switch]\nmtu = ${ACIS_TEST_CONF_MTU}\n"
		     "name = x${ACIS_TEST_CONF_NONE:-sw}y\n");
	assert_string_equal(c->sections[0].entries[0].value, "9000");
	assert_string_equal(c->sections[0].entries[1].value, "xswy");
	acis_conf_free(c);
	parse_fails("[switch]\nname = ${ACIS_TEST_CONF_NONE}\n", 2,
		    "${ACIS_TEST_CONF_NONE} is not set");
	parse_fails("[switch]\nname = ${ACIS_TEST_CONF_NONE:-}\n", 2,
		    "'name = ${ACIS_TEST_CONF_NONE:-}' is empty once its "
		    "variables are expanded");
	setenv("ACIS_TEST_CONF_NONE", "", 1);
	parse_fails("[switch]\nname = ${ACIS_TEST_CONF_NONE:-}\n", 2,
		    "is empty once");
	unsetenv("ACIS_TEST_CONF_MTU");
	unsetenv("ACIS_TEST_CONF_NONE");
}

static void
test_section_name_with_bad_characters_is_an_error(void **state)
{
	(void)state;
	parse_fails("[switch]\n[port p/0]\n", 2, "expected a section header");
}

static void
test_section_with_three_words_is_an_error(void **state)
{
	(void)state;
	parse_fails("[port a b]\n", 1, "expected a section header");
}

static void
test_empty_section_header_is_an_error(void **state)
{
	(void)state;
	parse_fails("[s]\n[ ]\n", 2, "expected a section header");
}

static void
test_text_after_closing_bracket_is_an_error(void **state)
{
	(void)state;
	parse_fails("[s]\nk = v\n[port p0] dev = x\n", 3,
		    "unexpected text after ']'");
}

static void
test_key_with_bad_characters_is_an_error(void **state)
{
	(void)state;
	parse_fails("[s]\nmy key = v\n", 2, "expected a key");
}

static void
test_missing_key_before_equals_is_an_error(void **state)
{
	(void)state;
	parse_fails("[s]\n = v\n", 2, "expected a key");
}

static void
test_overlong_line_is_an_error_on_its_line(void **state)
{
	char *text = malloc(10000);

	(void)state;
	assert_non_null(text);
	strcpy(text, "[s]\nk = ");
	memset(text + strlen(text), 'x', 5000);
	strcpy(text + 8 + 5000, "\n");
	parse_fails(text, 2, "line longer than");
	free(text);
}

static void
test_get_returns_the_single_entry_and_marks_it_used(void **state)
{
	struct acis_conf *c = parse_ok("[s]\na = 1\nb = 2\n");
	struct acis_conf_entry *e;
	int dup = -1;

	(void)state;
	e = acis_conf_get(&c->sections[0], "b", &dup);
	assert_non_null(e);
	assert_string_equal(e->value, "2");
	assert_int_equal(e->line, 3);
	assert_int_equal(e->used, 1);
	assert_int_equal(dup, 0);
	assert_int_equal(c->sections[0].entries[0].used, 0);
	acis_conf_free(c);
}

static void
test_get_returns_null_for_an_absent_key(void **state)
{
	struct acis_conf *c = parse_ok("[s]\na = 1\n");
	int dup = -1;

	(void)state;
	assert_null(acis_conf_get(&c->sections[0], "b", &dup));
	assert_int_equal(dup, 0);
	acis_conf_free(c);
}

static void
test_get_reports_the_line_of_a_duplicate_key(void **state)
{
	struct acis_conf *c = parse_ok("[s]\na = 1\nb = 2\n\na = 3\n");
	int dup = 0;

	(void)state;
	assert_null(acis_conf_get(&c->sections[0], "a", &dup));
	assert_int_equal(dup, 5);
	acis_conf_free(c);
}

static void
test_get_accepts_null_dup_pointer(void **state)
{
	struct acis_conf *c = parse_ok("[s]\na = 1\na = 2\nb = 3\n");

	(void)state;
	assert_null(acis_conf_get(&c->sections[0], "a", NULL));
	assert_non_null(acis_conf_get(&c->sections[0], "b", NULL));
	acis_conf_free(c);
}

static void
test_section_lookup_matches_type_and_argument(void **state)
{
	struct acis_conf *c = parse_ok("[port p0]\n[port p1]\n[l2]\n");

	(void)state;
	assert_ptr_equal(acis_conf_section(c, "port", "p1"), &c->sections[1]);
	assert_ptr_equal(acis_conf_section(c, "port", NULL), &c->sections[0]);
	assert_ptr_equal(acis_conf_section(c, "l2", ""), &c->sections[2]);
	assert_null(acis_conf_section(c, "port", "p2"));
	assert_null(acis_conf_section(c, "switch", NULL));
	acis_conf_free(c);
}

static void
test_load_of_missing_file_names_the_path(void **state)
{
	const char *path = "/nonexistent-dir/acis-test/none.conf";

	(void)state;
	memset(err, 0, sizeof(err));
	assert_null(acis_conf_load(path, err));
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_int_equal(err[strlen(path)], ':');
	assert_non_null(strstr(err, "cannot open"));
}

/* Write text to a fresh temporary file; path must hold 64 bytes. */
static void
write_temp(char *path, const char *text)
{
	int fd;
	ssize_t n;

	snprintf(path, 64, "/tmp/acis-test-conf-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	n = write(fd, text, strlen(text));
	assert_int_equal(n, (ssize_t)strlen(text));
	close(fd);
}

static void
test_load_reads_a_file_and_remembers_its_path(void **state)
{
	char path[64];
	struct acis_conf *c;

	(void)state;
	write_temp(path, "[switch]\nmac = 02:00:00:00:00:01\n");
	c = acis_conf_load(path, err);
	unlink(path);
	assert_non_null(c);
	assert_string_equal(c->path, path);
	assert_int_equal(c->n_sections, 1);
	assert_string_equal(c->sections[0].entries[0].value,
			    "02:00:00:00:00:01");
	acis_conf_free(c);
}

static void
test_load_error_names_the_path_and_line(void **state)
{
	char path[64], prefix[80];
	struct acis_conf *c;

	(void)state;
	write_temp(path, "[switch]\n\nbroken line\n");
	memset(err, 0, sizeof(err));
	c = acis_conf_load(path, err);
	unlink(path);
	assert_null(c);
	snprintf(prefix, sizeof(prefix), "%s:3: ", path);
	assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
}

static void
test_load_refuses_a_file_with_a_nul_byte(void **state)
{
	char path[64];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/acis-test-conf-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[s]\nk = v\0w\n", 12), 12);
	close(fd);
	memset(err, 0, sizeof(err));
	assert_null(acis_conf_load(path, err));
	unlink(path);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_non_null(strstr(err, "NUL"));
}

static void
test_free_accepts_null(void **state)
{
	(void)state;
	acis_conf_free(NULL);
}

/* Numbers in pipeline files and management parameters: decimal or 0x
 * hex below 2^32, a leading zero not octal, nothing around them. */
static void
test_u32_reads_decimal_and_hex_below_2_to_the_32(void **state)
{
	static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "x1",
					  "4294967296", "0x100000000", "1.5",
					  "99999999999999999999999"};
	const char *end;
	uint32_t v;
	size_t i;

	(void)state;
	assert_int_equal(acis_conf_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(acis_conf_u32("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(acis_conf_u32("0x1F", &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(acis_conf_u32("4294967295", &v), 0);
	assert_int_equal(v, UINT32_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(acis_conf_u32(bad[i], &v), -1);
		assert_int_equal(v, 7);
	}
	assert_int_equal(acis_conf_u32(NULL, &v), -1);
	assert_int_equal(acis_conf_u32_prefix("12:3", &v, &end), 0);
	assert_int_equal(v, 12);
	assert_string_equal(end, ":3");
	assert_int_equal(acis_conf_u32_prefix("4294967296:3", &v, &end), -1);
	assert_int_equal(acis_conf_u32_prefix(":3", &v, &end), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_section_without_argument_has_empty_arg),
		cmocka_unit_test(test_section_with_argument_splits_type_and_arg),
		cmocka_unit_test(test_sections_are_kept_in_file_order),
		cmocka_unit_test(test_key_and_value_are_trimmed_and_inner_spaces_kept),
		cmocka_unit_test(test_value_keeps_equals_signs_after_the_first),
		cmocka_unit_test(test_trailing_hash_comment_is_cut_from_value),
		cmocka_unit_test(test_trailing_semicolon_comment_is_cut_from_value),
		cmocka_unit_test(test_comment_character_inside_a_word_is_kept),
		cmocka_unit_test(test_comment_and_blank_lines_are_ignored_but_counted),
		cmocka_unit_test(test_comment_after_section_header_is_allowed),
		cmocka_unit_test(test_repeated_keys_are_all_kept_in_order),
		cmocka_unit_test(test_many_sections_and_entries_are_all_kept),
		cmocka_unit_test(test_crlf_line_endings_are_accepted),
		cmocka_unit_test(test_last_line_without_newline_is_read),
		cmocka_unit_test(test_empty_text_gives_no_sections),
		cmocka_unit_test(test_key_before_any_section_is_an_error_on_its_line),
		cmocka_unit_test(test_line_without_equals_is_an_error_on_its_line),
		cmocka_unit_test(test_missing_closing_bracket_is_an_error_on_its_line),
		cmocka_unit_test(test_empty_value_is_an_error_naming_the_key),
		cmocka_unit_test(
			test_variables_expand_and_an_empty_expansion_is_an_error),
		cmocka_unit_test(test_section_name_with_bad_characters_is_an_error),
		cmocka_unit_test(test_section_with_three_words_is_an_error),
		cmocka_unit_test(test_empty_section_header_is_an_error),
		cmocka_unit_test(test_text_after_closing_bracket_is_an_error),
		cmocka_unit_test(test_key_with_bad_characters_is_an_error),
		cmocka_unit_test(test_missing_key_before_equals_is_an_error),
		cmocka_unit_test(test_overlong_line_is_an_error_on_its_line),
		cmocka_unit_test(test_get_returns_the_single_entry_and_marks_it_used),
		cmocka_unit_test(test_get_returns_null_for_an_absent_key),
		cmocka_unit_test(test_get_reports_the_line_of_a_duplicate_key),
		cmocka_unit_test(test_get_accepts_null_dup_pointer),
		cmocka_unit_test(test_section_lookup_matches_type_and_argument),
		cmocka_unit_test(test_load_of_missing_file_names_the_path),
		cmocka_unit_test(test_load_reads_a_file_and_remembers_its_path),
		cmocka_unit_test(test_load_error_names_the_path_and_line),
		cmocka_unit_test(test_load_refuses_a_file_with_a_nul_byte),
		cmocka_unit_test(test_free_accepts_null),
		cmocka_unit_test(test_u32_reads_decimal_and_hex_below_2_to_the_32),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
