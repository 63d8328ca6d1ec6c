/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the INI reader (lib/conf/conf.c) and the pipeline checker
 * (lib/pipeline/pipeline.c), the code that reads a user's pipeline file.
 *
 * The input is the text of a file (a NUL-terminated copy of the bytes;
 * an embedded NUL ends it early, as acis_conf_parse's contract says).
 *
 * Invariants:
 *  - on failure acis_conf_parse and acis_pipeline_from_conf write an
 *    error that is non-empty, NUL-terminated inside ACIS_CONF_ERR_LEN
 *    and starts with the file name ("fuzz:");
 *  - a parsed file has sections with non-empty type words and lines in
 *    increasing order;
 *  - an accepted pipeline is consistent: 1..32 ports with non-empty
 *    names and devices, 1..128 lcores of which at least one worker,
 *    each with at least one role, every rx port and static entry naming
 *    a declared port, a power-of-two ring, a unicast switch MAC, a
 *    non-zero IP;
 *  - each [lcore] got exactly the roles and rx ports its values name
 *    (an oracle re-reads the whole values);
 *  - nothing leaks (LeakSanitizer).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acis_conf.h"
#include "acis_pipeline.h"
#include "fuzz_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The pipeline is large (4096 static entries); keep one, not on the
 * stack. acis_pipeline_from_conf resets it every time. */
static struct acis_pipeline pipeline;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* ${VAR} expansion reads the environment: give the seeds a set and
	 * an empty variable whatever the caller's environment holds. */
	setenv("ACIS_FUZZ_IFACE", "veth0", 1);
	setenv("ACIS_FUZZ_EMPTY", "", 1);
	setenv("ACIS_PCAP_DIR", "/tmp", 1); /* pipelines/pcap.ini, a seed */
	return 0;
}

static void
check_err(const char *err)
{
	FUZZ_CHECK(memchr(err, '\0', ACIS_CONF_ERR_LEN) != NULL);
	FUZZ_CHECK(err[0] != '\0');
	FUZZ_CHECK(strncmp(err, "fuzz:", 5) == 0);
}

static void
check_conf(const struct acis_conf *conf)
{
	unsigned int i, j;
	int last = 0;

	FUZZ_CHECK(strcmp(conf->path, "fuzz") == 0);
	FUZZ_CHECK(conf->n_sections <= conf->cap_sections);
	for (i = 0; i < conf->n_sections; i++) {
		const struct acis_conf_section *s = &conf->sections[i];

		FUZZ_CHECK(s->type != NULL && s->type[0] != '\0');
		FUZZ_CHECK(s->arg != NULL);
		FUZZ_CHECK(s->line > last);
		FUZZ_CHECK(s->n_entries <= s->cap_entries);
		last = s->line;
		for (j = 0; j < s->n_entries; j++) {
			const struct acis_conf_entry *e = &s->entries[j];

			FUZZ_CHECK(e->key != NULL && e->key[0] != '\0');
			FUZZ_CHECK(e->value != NULL);
			FUZZ_CHECK(e->line > last);
			last = e->line;
		}
	}
}

/* Roles and rx ports of an [lcore] section, from the whole values: an
 * oracle for what read_lcore made of them. */
static void
lcore_oracle(const struct acis_pipeline *p,
	     const struct acis_conf_section *s, unsigned int *roles,
	     uint32_t *rx)
{
	unsigned int i;

	*roles = ACIS_ROLE_RX | ACIS_ROLE_WORKER;
	*rx = 0;
	for (i = 0; i < s->n_entries; i++) {
		const struct acis_conf_entry *e = &s->entries[i];
		int is_role = strcmp(e->key, "role") == 0;
		char *v, *tok, *save;

		if (!is_role && strcmp(e->key, "rx") != 0)
			continue;
		v = strdup(e->value);
		FUZZ_CHECK(v != NULL);
		if (is_role)
			*roles = 0;
		for (tok = strtok_r(v, is_role ? " ,+" : " ,", &save);
		     tok != NULL; tok = strtok_r(NULL, is_role ? " ,+" : " ,",
						&save)) {
			int pi;

			if (is_role) {
				/* anything else would have been refused */
				FUZZ_CHECK(strcmp(tok, "rx") == 0 ||
					   strcmp(tok, "worker") == 0);
				*roles |= tok[0] == 'r' ? ACIS_ROLE_RX :
							  ACIS_ROLE_WORKER;
				continue;
			}
			pi = acis_pipeline_port_index(p, tok);
			FUZZ_CHECK(pi >= 0); /* else refused */
			*rx |= 1u << pi;
		}
		free(v);
	}
}

static void
check_pipeline(const struct acis_conf *conf, const struct acis_pipeline *p)
{
	unsigned int i, n, workers = 0;

	FUZZ_CHECK(strcmp(p->path, "fuzz") == 0);
	FUZZ_CHECK(memchr(p->name, '\0', sizeof(p->name)) != NULL);
	FUZZ_CHECK((p->mac[0] & 1) == 0);
	FUZZ_CHECK(p->ip != 0);
	FUZZ_CHECK(p->udp_port != 0);
	FUZZ_CHECK(p->burst >= 1 && p->burst <= 256);
	FUZZ_CHECK(p->mtu >= 68 && p->mtu <= 9600);
	FUZZ_CHECK(p->ring_size >= 64 && p->ring_size <= 65536 &&
		   (p->ring_size & (p->ring_size - 1)) == 0);
	FUZZ_CHECK(p->max_members >= p->max_ranks);
	FUZZ_CHECK(p->n_ports >= 1 && p->n_ports <= ACIS_MAX_PORTS);
	for (i = 0; i < p->n_ports; i++) {
		const struct acis_port_cfg *pc = &p->ports[i];

		FUZZ_CHECK(memchr(pc->name, '\0', sizeof(pc->name)) != NULL);
		FUZZ_CHECK(memchr(pc->dev, '\0', sizeof(pc->dev)) != NULL);
		FUZZ_CHECK(pc->name[0] != '\0');
		FUZZ_CHECK(acis_pipeline_port_index(p, pc->name) == (int)i);
		FUZZ_CHECK(pc->rxd >= 32 && pc->txd >= 32);
		FUZZ_CHECK(pc->mtu == 0 || (pc->mtu >= 68 && pc->mtu <= 9600));
	}
	FUZZ_CHECK(p->n_lcores >= 1 && p->n_lcores <= ACIS_MAX_LCORES);
	for (i = 0; i < p->n_lcores; i++) {
		const struct acis_lcore_cfg *lc = &p->lcores[i];

		FUZZ_CHECK(lc->roles != 0);
		FUZZ_CHECK((lc->roles &
			    ~(ACIS_ROLE_RX | ACIS_ROLE_WORKER)) == 0);
		if (p->n_ports < 32)
			FUZZ_CHECK((lc->rx_ports >> p->n_ports) == 0);
		if (lc->roles & ACIS_ROLE_RX)
			FUZZ_CHECK(lc->rx_ports != 0);
		else
			FUZZ_CHECK(lc->rx_ports == 0);
		workers += (lc->roles & ACIS_ROLE_WORKER) != 0;
	}
	FUZZ_CHECK(workers >= 1 && workers == acis_pipeline_n_workers(p));
	FUZZ_CHECK(p->n_statics <= ACIS_MAX_STATIC);
	for (i = 0; i < p->n_statics; i++) {
		FUZZ_CHECK(p->statics[i].port < p->n_ports);
		FUZZ_CHECK((p->statics[i].mac[0] & 1) == 0);
	}
	for (i = 0; i < ACIS_MAX_PORTS + 1; i++)
		FUZZ_CHECK((acis_pipeline_port_rx_queues(p, i) != 0) <=
			   (i < p->n_ports));

	/* Each [lcore] has exactly the roles and ports its values name,
	 * however long they are. */
	if (p->default_lcores) {
		FUZZ_CHECK(p->n_lcores == 1);
		FUZZ_CHECK(acis_conf_section(conf, "lcore", NULL) == NULL);
		return;
	}
	n = 0;
	for (i = 0; i < conf->n_sections; i++) {
		const struct acis_conf_section *s = &conf->sections[i];
		const struct acis_lcore_cfg *lc;
		unsigned int roles;
		uint32_t rx;

		if (strcmp(s->type, "lcore") != 0)
			continue;
		FUZZ_CHECK(n < p->n_lcores);
		lc = &p->lcores[n++];
		FUZZ_CHECK(lc->line == s->line);
		lcore_oracle(p, s, &roles, &rx);
		FUZZ_CHECK(lc->roles == roles);
		FUZZ_CHECK(lc->rx_ports == rx);
	}
	FUZZ_CHECK(n == p->n_lcores);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ACIS_CONF_ERR_LEN];
	struct acis_conf *conf;
	char *text;
	int rc;

	text = malloc(size + 1);
	FUZZ_CHECK(text != NULL);
	if (size != 0)
		memcpy(text, data, size);
	text[size] = '\0';

	memset(err, 0, sizeof(err));
	conf = acis_conf_parse("fuzz", text, err);
	free(text); /* the parsed file must not point into the text */
	if (conf == NULL) {
		check_err(err);
		return 0;
	}
	FUZZ_CHECK(err[0] == '\0');
	check_conf(conf);

	rc = acis_pipeline_from_conf(conf, 0, &pipeline, err);
	if (rc != 0) {
		FUZZ_CHECK(rc < 0);
		check_err(err);
	} else {
		check_pipeline(conf, &pipeline);
	}
	acis_conf_free(conf);
	return 0;
}
