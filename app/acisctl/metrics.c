/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acisctl metrics: every counter the switch's read-only commands export,
 * in Prometheus's text exposition format (version 0.0.4).
 *
 * Names follow the telemetry keys, so `acisctl ports` and the metrics
 * read alike: KEY of /acis/ports becomes acis_port_KEY_total{port="p0"}
 * (a counter) or acis_port_KEY (a gauge); string values of an object go
 * into one acis_..._info{...} 1 series. Keys the switch adds later come
 * out as counters without a change here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tel.h"

struct section {
	enum tel_cmd cmd;
	const char *prefix; /* of every metric name */
	const char *label;  /* the label naming the object; NULL: flat */
	const char *strip;  /* cut from object names ("lcore0" -> "0") */
	const char *const *gauges; /* the keys that are not counters */
	int all_gauges;
};

/* Present values, levels and settings; every other key only grows. */
static const char *const info_gauges[] = {NULL};
static const char *const port_gauges[] = {
	"port_id", "link_up", "rx_queues", "tx_queues", "xsk_sockets", NULL};
static const char *const lcore_gauges[] = {
	"rx_queues", "handoff_out", "handoff_in", NULL};
static const char *const l2_gauges[] = {
	"capacity", "entries_listed", "age_sec", NULL};
static const char *const coll_gauges[] = {
	"jobs", "comms", "comm_members", "slots_capacity", "slots_in_use",
	"slots_high_water", "held_now", "mbufs_in_slots",
	"mbufs_in_slots_max", "mbufs_in_use", "fanouts_pending", "held_max",
	NULL};
static const char *const fault_gauges[] = {
	"drop_ppm", "duplicate_ppm", "reorder_ppm", "corrupt_ppm",
	"reorder_window", "delay_us", "seed", "held_now", "rate_mbps", "rate_kbps",
	"delay_ns", "jitter_ns", "queue", NULL};
static const char *const cgra_gauges[] = {
	"worker", "vpe", "banks", "bank_size", "budget", "program_words",
	"fpga_outstanding", NULL};

static const struct section sections[] = {
	{TEL_INFO, "acis_switch_", NULL, NULL, info_gauges, 1},
	{TEL_PORTS, "acis_port_", "port", NULL, port_gauges, 0},
	{TEL_LCORES, "acis_lcore_", "lcore", "lcore", lcore_gauges, 0},
	{TEL_L2, "acis_l2_table_", NULL, NULL, l2_gauges, 0},
	{TEL_COLL, "acis_collectives_", NULL, NULL, coll_gauges, 0},
	{TEL_FAULT, "acis_fault_", "port", NULL, fault_gauges, 0},
	{TEL_CGRA, "acis_cgra_", "rule", NULL, cgra_gauges, 0},
};

struct series {
	char name[128];
	char labels[768];
	char help[192];
	int gauge;
	uint64_t v;
};

struct out {
	struct series *s;
	unsigned int n, cap;
};

static int
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

static struct series *
series_add(struct out *o)
{
	if (o->n == o->cap) {
		unsigned int cap = o->cap ? 2 * o->cap : 256;
		struct series *s = realloc(o->s, cap * sizeof(*s));

		if (s == NULL)
			return NULL;
		o->s = s;
		o->cap = cap;
	}
	memset(&o->s[o->n], 0, sizeof(o->s[0]));
	return &o->s[o->n++];
}

/* Metric names hold [a-zA-Z0-9_:]; the switch's keys already do. */
static void
set_name(struct series *s, const char *prefix, const char *key, int gauge)
{
	size_t i, len;
	const char *suffix = "";

	len = strlen(key);
	if (!gauge && (len < 6 || strcmp(key + len - 6, "_total") != 0))
		suffix = "_total";
	snprintf(s->name, sizeof(s->name), "%s%s%s", prefix, key, suffix);
	for (i = 0; s->name[i] != '\0'; i++) {
		char c = s->name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == ':'))
			s->name[i] = '_';
	}
	s->gauge = gauge;
}

/* Append name="value" to a label set, the value escaped. */
static void
add_label(struct series *s, const char *name, const char *value)
{
	size_t n = strlen(s->labels);
	size_t cap = sizeof(s->labels);

	if (n + strlen(name) + 4 >= cap)
		return;
	n += (size_t)snprintf(s->labels + n, cap - n, "%s%s=\"",
			      n ? "," : "", name);
	for (; *value != '\0' && n + 4 < cap; value++) {
		if (*value == '\\' || *value == '"') {
			s->labels[n++] = '\\';
			s->labels[n++] = *value;
		} else if (*value == '\n') {
			s->labels[n++] = '\\';
			s->labels[n++] = 'n';
		} else {
			s->labels[n++] = *value;
		}
	}
	s->labels[n++] = '"';
	s->labels[n] = '\0';
}

static const char *
label_value(const struct section *sec, const char *obj)
{
	size_t n = sec->strip ? strlen(sec->strip) : 0;

	if (n != 0 && strncmp(obj, sec->strip, n) == 0 && obj[n] != '\0')
		return obj + n;
	return obj;
}

/* Objects in the order the switch listed them. */
static int
seen_obj(const struct tel_set *set, unsigned int upto, const char *obj)
{
	unsigned int i;

	for (i = 0; i < upto; i++)
		if (strcmp(set->kv[i].obj, obj) == 0)
			return 1;
	return 0;
}

static int
add_section(struct out *o, const struct section *sec, const struct tel_set *set)
{
	const char *cmd = tel_cmd_names[sec->cmd];
	unsigned int i, k;

	for (i = 0; i < set->n; i++) {
		const struct tel_kv *kv = &set->kv[i];
		struct series *s;

		if (!kv->is_num)
			continue;
		if (sec->label == NULL && kv->obj[0] != '\0')
			continue;
		if (sec->label != NULL && kv->obj[0] == '\0')
			continue;
		s = series_add(o);
		if (s == NULL)
			return -1;
		set_name(s, sec->prefix, kv->key,
			 sec->all_gauges || in_list(sec->gauges, kv->key));
		if (sec->label != NULL) {
			add_label(s, sec->label, label_value(sec, kv->obj));
			snprintf(s->help, sizeof(s->help), "%s of each %s, "
				 "from %s", kv->key, sec->label, cmd);
		} else {
			snprintf(s->help, sizeof(s->help), "%s, from %s",
				 kv->key, cmd);
		}
		s->v = kv->num;
	}
	/* an object's strings (names, states) as one info series; the
	 * look-aside last_error is left out: a label that changes with
	 * every message would start a new series each time */
	for (i = 0; i < set->n; i++) {
		const struct tel_kv *kv = &set->kv[i];
		struct series *s;

		if (kv->is_num || strcmp(kv->key, "last_error") == 0 ||
		    seen_obj(set, i, kv->obj) ||
		    (sec->label == NULL && kv->obj[0] != '\0'))
			continue;
		s = NULL;
		for (k = i; k < set->n; k++) {
			const struct tel_kv *x = &set->kv[k];

			if (x->is_num || strcmp(x->obj, kv->obj) != 0 ||
			    strcmp(x->key, "last_error") == 0)
				continue;
			if (s == NULL) {
				s = series_add(o);
				if (s == NULL)
					return -1;
				set_name(s, sec->prefix, "info", 1);
				if (sec->label != NULL)
					add_label(s, sec->label,
						  label_value(sec, kv->obj));
				snprintf(s->help, sizeof(s->help), "text "
					 "values from %s as labels; always 1",
					 cmd);
				s->v = 1;
			}
			add_label(s, x->key, x->str);
		}
	}
	return 0;
}

/* One counter per labelled item: stages, drop reasons, collective kinds. */
static int
add_labelled(struct out *o, const char *name, const char *label,
	     const char *value, uint64_t v, const char *help)
{
	struct series *s = series_add(o);

	if (s == NULL)
		return -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	add_label(s, label, value);
	snprintf(s->help, sizeof(s->help), "%s", help);
	s->v = v;
	return 0;
}

static int
collect(struct out *o, const struct tel_sample *smp)
{
	const struct tel_set *st = &smp->set[TEL_STAGES];
	const struct tel_set *dr = &smp->set[TEL_DROPS];
	const struct tel_set *co = &smp->set[TEL_COLL];
	struct tel_set rest = {NULL, 0, 0};
	unsigned int i;
	int rc = 0;

	for (i = 0; i < st->n && rc == 0; i++) {
		const struct tel_kv *kv = &st->kv[i];

		if (!kv->is_num || kv->obj[0] != '\0')
			continue;
		if (tel_stage_extra(kv->key)) {
			struct series *s = series_add(o);

			if (s == NULL)
				return -1;
			set_name(s, "acis_", kv->key, 0);
			snprintf(s->help, sizeof(s->help), "%s, from %s",
				 kv->key, tel_cmd_names[TEL_STAGES]);
			s->v = kv->num;
			continue;
		}
		rc = add_labelled(o, "acis_stage_packets_total", "stage",
				  kv->key, kv->num,
				  "packets through each pipeline stage");
	}
	for (i = 0; i < dr->n && rc == 0; i++) {
		const struct tel_kv *kv = &dr->kv[i];

		/* the sum of the reasons: left to PromQL */
		if (!kv->is_num || strcmp(kv->key, "total") == 0)
			continue;
		rc = add_labelled(o, "acis_drops_total", "reason", kv->key,
				  kv->num, "packets dropped, by reason");
	}
	/* completed_KIND as one counter with a kind label; the other keys
	 * of /acis/collectives go through the section table */
	for (i = 0; i < co->n && rc == 0; i++) {
		const struct tel_kv *kv = &co->kv[i];

		if (kv->is_num && strncmp(kv->key, "completed_", 10) == 0) {
			rc = add_labelled(o,
				"acis_collectives_completed_total", "kind",
				kv->key + 10, kv->num,
				"collectives completed, by kind");
			continue;
		}
		if (rest.n == rest.cap) {
			unsigned int cap = rest.cap ? 2 * rest.cap : 64;
			struct tel_kv *k = realloc(rest.kv, cap * sizeof(*k));

			if (k == NULL) {
				rc = -1;
				break;
			}
			rest.kv = k;
			rest.cap = cap;
		}
		rest.kv[rest.n++] = *kv;
	}
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]) && rc == 0; i++)
		rc = add_section(o, &sections[i], sections[i].cmd == TEL_COLL ?
				 &rest : &smp->set[sections[i].cmd]);
	tel_set_free(&rest);
	return rc;
}

/* Every series of a family after its HELP and TYPE, as the format asks. */
static void
print_out(const struct out *o, FILE *f)
{
	unsigned int i, j;

	for (i = 0; i < o->n; i++) {
		const struct series *s = &o->s[i];

		for (j = 0; j < i; j++)
			if (strcmp(o->s[j].name, s->name) == 0)
				break;
		if (j < i)
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", s->name, s->help,
			s->name, s->gauge ? "gauge" : "counter");
		for (j = i; j < o->n; j++) {
			const struct series *x = &o->s[j];

			if (strcmp(x->name, s->name) != 0)
				continue;
			fprintf(f, "%s%s%s%s %" PRIu64 "\n", x->name,
				x->labels[0] ? "{" : "", x->labels,
				x->labels[0] ? "}" : "", x->v);
		}
	}
}

int
acisctl_metrics(const char *prefix, const char *sock_path, int argc,
		char **argv)
{
	struct tel_sample smp;
	struct out o = {NULL, 0, 0};
	char *buf;
	int fd, rc;

	if (argc != 1) {
		fprintf(stderr, "acisctl: metrics takes no arguments, found "
			"'%s'\n", argv[1]);
		return 2;
	}
	fd = tel_connect(prefix, sock_path, &rc);
	if (fd < 0)
		return rc;
	memset(&smp, 0, sizeof(smp));
	buf = malloc(TEL_REPLY_MAX);
	rc = 1;
	if (buf == NULL)
		goto out;
	if (tel_sample_take(fd, &smp, buf, TEL_REPLY_MAX) != 0) {
		fprintf(stderr, "acisctl: the switch stopped answering\n");
		goto out;
	}
	if (smp.set[TEL_INFO].n == 0) {
		fprintf(stderr, "acisctl: no /acis/info: is this an "
			"acis-switch?\n");
		goto out;
	}
	if (collect(&o, &smp) != 0) {
		fprintf(stderr, "acisctl: out of memory\n");
		goto out;
	}
	/* all or nothing: a scrape file is never half written by us */
	print_out(&o, stdout);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	free(o.s);
	free(buf);
	tel_sample_free(&smp);
	close(fd);
	return rc;
}
