/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acisctl top: a live view of a running switch. Two samples of the
 * telemetry counters an interval apart give the rates: per port, per
 * stage, collectives by kind, drops by reason, per lcore; plus the
 * aggregation slots' occupancy. The screen is redrawn with plain ANSI
 * (home, clear) when stdout is a terminal; otherwise frames follow one
 * another, for logs and tests.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tel.h"

#define TOP_DROPS 5

/* A rate for people: 3 significant digits and an SI suffix. */
static const char *
si(double v, char *buf, size_t len)
{
	static const char sfx[] = " KMGTP";
	unsigned int i = 0;

	while (v >= 999.5 && i + 1 < sizeof(sfx) - 1) {
		v /= 1000;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0,
			 v, sfx[i]);
	return buf;
}

struct view {
	const struct tel_sample *a, *b;
	double dt;
};

static double
rate(const struct view *w, enum tel_cmd c, const char *obj, const char *key)
{
	uint64_t x = tel_u64(&w->a->set[c], obj, key);
	uint64_t y = tel_u64(&w->b->set[c], obj, key);

	/* a counter that went back (a restart) has no rate this time */
	return y >= x && w->dt > 0 ? (double)(y - x) / w->dt : 0;
}

/* Calls fn for each object of a command's reply, in the switch's order. */
static void
for_each_obj(const struct tel_set *s,
	     void (*fn)(const struct view *, const char *),
	     const struct view *w)
{
	unsigned int i, j;

	for (i = 0; i < s->n; i++) {
		if (s->kv[i].obj[0] == '\0')
			continue;
		for (j = 0; j < i; j++)
			if (strcmp(s->kv[j].obj, s->kv[i].obj) == 0)
				break;
		if (j == i)
			fn(w, s->kv[i].obj);
	}
}

static void
port_line(const struct view *w, const char *port)
{
	const struct tel_kv *up = tel_find(&w->b->set[TEL_PORTS], port,
					   "link_up");
	char r1[16], r2[16], r3[16], r4[16];

	printf("%-14s %10s %10s %10s %10s  %s\n", port,
	       si(rate(w, TEL_PORTS, port, "rx_pkts"), r1, sizeof(r1)),
	       si(rate(w, TEL_PORTS, port, "rx_bytes"), r2, sizeof(r2)),
	       si(rate(w, TEL_PORTS, port, "tx_pkts"), r3, sizeof(r3)),
	       si(rate(w, TEL_PORTS, port, "tx_bytes"), r4, sizeof(r4)),
	       up == NULL ? "?" : up->num ? "up" : "down");
}

static void
lcore_line(const struct view *w, const char *lc)
{
	const struct tel_kv *role = tel_find(&w->b->set[TEL_LCORES], lc,
					     "role");
	double polls = rate(w, TEL_LCORES, lc, "polls");
	double idle = rate(w, TEL_LCORES, lc, "idle_polls");
	char r1[16], r2[16];

	/* busy: the share of polls that found packets */
	printf("%-14s %-10s %10s %10s %8.1f%%\n", lc, role ? role->str : "?",
	       si(rate(w, TEL_LCORES, lc, "rx_pkts"), r1, sizeof(r1)),
	       si(rate(w, TEL_LCORES, lc, "tx_pkts"), r2, sizeof(r2)),
	       polls > 0 ? 100.0 * (1.0 - idle / polls) : 0.0);
}

static void
show_collectives(const struct view *w)
{
	const struct tel_set *c = &w->b->set[TEL_COLL];
	double all = 0;
	uint64_t total = 0;
	unsigned int i, shown = 0;
	char r[16];

	printf("\n%-14s %10s %12s\n", "COLLECTIVES", "done/s", "total");
	for (i = 0; i < c->n; i++) {
		const struct tel_kv *kv = &c->kv[i];
		double v;

		if (!kv->is_num || strncmp(kv->key, "completed_", 10) != 0)
			continue;
		v = rate(w, TEL_COLL, "", kv->key);
		all += v;
		total += kv->num;
		if (kv->num == 0 && v == 0)
			continue;
		printf("%-14s %10s %12" PRIu64 "\n", kv->key + 10,
		       si(v, r, sizeof(r)), kv->num);
		shown++;
	}
	if (shown == 0)
		printf("(none yet)\n");
	else
		printf("%-14s %10s %12" PRIu64 "\n", "all",
		       si(all, r, sizeof(r)), total);
	printf("\n%-14s in use %" PRIu64 " / %" PRIu64 ", high water %"
	       PRIu64 ", opened/s %s, expired %" PRIu64 ", busy %" PRIu64
	       "\n", "SLOTS", tel_u64(c, "", "slots_in_use"),
	       tel_u64(c, "", "slots_capacity"),
	       tel_u64(c, "", "slots_high_water"),
	       si(rate(w, TEL_COLL, "", "slots_opened"), r, sizeof(r)),
	       tel_u64(c, "", "slots_expired"), tel_u64(c, "", "slots_busy"));
}

static void
show_drops(const struct view *w)
{
	const struct tel_set *d = &w->b->set[TEL_DROPS];
	const struct tel_kv *top[TOP_DROPS];
	double top_rate[TOP_DROPS];
	unsigned int i, j, n = 0;
	char r[16];

	/* the reasons with the highest rate, ties broken by their totals */
	for (i = 0; i < d->n; i++) {
		const struct tel_kv *kv = &d->kv[i];
		double v;

		if (!kv->is_num || kv->num == 0 || strcmp(kv->key, "total") == 0)
			continue;
		v = rate(w, TEL_DROPS, "", kv->key);
		for (j = n; j > 0; j--) {
			if (top_rate[j - 1] > v || (top_rate[j - 1] == v &&
			    top[j - 1]->num >= kv->num))
				break;
			if (j < TOP_DROPS) {
				top[j] = top[j - 1];
				top_rate[j] = top_rate[j - 1];
			}
		}
		if (j < TOP_DROPS) {
			top[j] = kv;
			top_rate[j] = v;
			if (n < TOP_DROPS)
				n++;
		}
	}
	printf("\n%-22s %10s %12s   (all: %s/s, %" PRIu64 ")\n", "DROPS",
	       "pkt/s", "total", si(rate(w, TEL_DROPS, "", "total"), r,
	       sizeof(r)), tel_u64(d, "", "total"));
	for (i = 0; i < n; i++)
		printf("%-22s %10s %12" PRIu64 "\n", top[i]->key,
		       si(top_rate[i], r, sizeof(r)), top[i]->num);
	if (n == 0)
		printf("(none)\n");
}

static void
show(const struct view *w, unsigned int frame, unsigned int count,
     double interval)
{
	const struct tel_set *info = &w->b->set[TEL_INFO];
	const struct tel_set *st = &w->b->set[TEL_STAGES];
	const struct tel_kv *name = tel_find(info, "", "name");
	const struct tel_kv *ver = tel_find(info, "", "version");
	unsigned int i;
	char r[16];

	printf("acis-switch %s (%s)  up %" PRIu64 " s  mbufs in use %" PRIu64
	       " / %" PRIu64 "  every %.1f s", name ? name->str : "?",
	       ver ? ver->str : "?", tel_u64(info, "", "uptime_sec"),
	       tel_u64(info, "", "mbufs_in_use"), tel_u64(info, "", "mbufs"),
	       interval);
	if (count != 0)
		printf("  [%u/%u]", frame, count);
	printf("\n\n%-14s %10s %10s %10s %10s  %s\n", "PORTS", "rx pkt/s",
	       "rx B/s", "tx pkt/s", "tx B/s", "link");
	for_each_obj(&w->b->set[TEL_PORTS], port_line, w);
	printf("\n%-14s %10s\n", "STAGES", "pkt/s");
	for (i = 0; i < st->n; i++)
		if (st->kv[i].is_num && st->kv[i].obj[0] == '\0' &&
		    !tel_stage_extra(st->kv[i].key))
			printf("%-14s %10s\n", st->kv[i].key,
			       si(rate(w, TEL_STAGES, "", st->kv[i].key), r,
				  sizeof(r)));
	show_collectives(w);
	show_drops(w);
	printf("\n%-14s %-10s %10s %10s %9s\n", "LCORES", "role", "rx pkt/s",
	       "tx pkt/s", "busy");
	for_each_obj(&w->b->set[TEL_LCORES], lcore_line, w);
}

static void
usage_top(FILE *f)
{
	fprintf(f, "usage: acisctl [-f FILE_PREFIX | -s SOCKET] top "
		   "[-d SECONDS] [-n COUNT]\n"
		   "  -d, --interval SECONDS  between refreshes (default 1)\n"
		   "  -n, --count COUNT       refresh COUNT times, then exit "
		   "(default: until interrupted)\n");
}

static void
sleep_for(double sec)
{
	struct timespec ts;

	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

int
acisctl_top(const char *prefix, const char *sock_path, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"interval", required_argument, NULL, 'd'},
		{"count", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct tel_sample smp[2];
	double interval = 1.0;
	unsigned long count = 0, frame;
	int tty = isatty(STDOUT_FILENO);
	char *buf, *end;
	int c, fd, rc;

	optind = 0; /* a new argument vector: GNU getopt starts afresh */
	while ((c = getopt_long(argc, argv, "d:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			interval = strtod(optarg, &end);
			if (*end != '\0' || !(interval >= 0.1 &&
			    interval <= 3600)) {
				fprintf(stderr, "acisctl: top: -d: expected "
					"seconds from 0.1 to 3600, found "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			count = strtoul(optarg, &end, 10);
			if (*end != '\0' || optarg[0] < '0' ||
			    optarg[0] > '9' || count == 0 || count > 1000000) {
				fprintf(stderr, "acisctl: top: -n: expected a "
					"count from 1, found '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage_top(stdout);
			return 0;
		default:
			usage_top(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "acisctl: top: unexpected '%s'\n", argv[optind]);
		usage_top(stderr);
		return 2;
	}
	fd = tel_connect(prefix, sock_path, &rc);
	if (fd < 0)
		return rc;
	memset(smp, 0, sizeof(smp));
	buf = malloc(TEL_REPLY_MAX);
	rc = 1;
	if (buf == NULL)
		goto out;
	if (tel_sample_take(fd, &smp[0], buf, TEL_REPLY_MAX) != 0)
		goto gone;
	for (frame = 1; count == 0 || frame <= count; frame++) {
		struct view w;

		sleep_for(interval);
		if (tel_sample_take(fd, &smp[frame & 1], buf,
				    TEL_REPLY_MAX) != 0)
			goto gone;
		w.a = &smp[(frame - 1) & 1];
		w.b = &smp[frame & 1];
		w.dt = w.b->t - w.a->t;
		if (tty)
			printf("\033[H\033[2J");
		else if (frame > 1)
			printf("\n");
		show(&w, (unsigned int)frame, (unsigned int)count, interval);
		fflush(stdout);
	}
	rc = 0;
	goto out;
gone:
	fprintf(stderr, "acisctl: top: the switch stopped answering\n");
out:
	free(buf);
	tel_sample_free(&smp[0]);
	tel_sample_free(&smp[1]);
	close(fd);
	return rc;
}
