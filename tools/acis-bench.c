/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-bench: OSU-style latency and bandwidth of the libacis collectives
 * through an acis switch. Start one process per rank, every rank with the
 * same options; rank 0 prints the results.
 *
 *   acis-bench --switch 10.77.0.1 --job 7 --rank R --size P
 *              [--colls allreduce,reduce,bcast,scatter,gather,allgather,
 *                       reduce_scatter,alltoall,barrier]
 *              [--min-size 4] [--max-size 4194304] [--dtype float32]
 *              [--op sum | --op-program FILE.bin]
 *              [-i|--iterations N] [-w|--warmup N]
 *              [--format table|csv|json] [--output FILE]... [--timeout MS]
 *              [--settle MS]
 *
 * Method (as OSU's collective benchmarks): for each size, an untimed
 * barrier, the warm-up calls, then every timed call measured with
 * CLOCK_MONOTONIC on every rank, with an untimed barrier after each call
 * (warm-up or timed) so that a fast rank — a bcast root, say — cannot run
 * ahead and overlap calls. Each rank reduces its times to mean, min, max
 * and 99th percentile; rank 0 gathers them (acis_gather of float64) and
 * reports the slowest rank's mean as avg, as OSU reports its "Max
 * Latency". Iterations default to OSU's: 1000 timed after 200 warm-up up to
 * 8192 B, 100 after 10 above; --iterations and --warmup set every size.
 *
 * size is count x sizeof(dtype), the count argument of the call: the whole
 * vector for allreduce, reduce and bcast, each rank's block for scatter,
 * gather, allgather, reduce_scatter and alltoall. Bandwidth is NCCL's:
 * algbw = S / avg with S the size of the whole collective (size, or P x
 * size for the block collectives: alltoall's is a rank's send buffer, as
 * nccl-tests counts it), busbw = algbw x factor.
 *
 * stdout gets --format (table by default); every --output FILE gets the
 * format its name ends in (.csv, .json, else --format). A progress bar goes
 * to stderr when stderr is a terminal. A libacis error ends that size
 * (every rank says why on stderr) and the exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acis.h"
#ifndef ACIS_BENCH_MPI
#include "acis_cgra.h"
#endif

/* OSU micro-benchmarks' defaults (osu_coll.h / osu_util.h). */
#define OSU_ITERATIONS 1000
#define OSU_SKIP 200
#define OSU_ITERATIONS_LARGE 100
#define OSU_SKIP_LARGE 10
#define OSU_LARGE_MESSAGE_SIZE 8192

/* Built with bench/acis_over_mpi.c instead of libacis, the same
 * benchmark times MPI's collectives (doc/benchmarks.md). */
#ifdef ACIS_BENCH_MPI
#define BENCH_TRANSPORT "mpi"
#else
#define BENCH_TRANSPORT "acis"
#endif

#define MAX_OUTPUTS 8
#define MAX_SIZES 40 /* 1 B to 4 GiB, doubling */
#define N_STATS 6 /* per rank: status, timed calls, mean, min, max, p99 */

enum fmt { FMT_TABLE, FMT_CSV, FMT_JSON };

/* NCCL's bus bandwidth factors (nccl-tests doc/PERFORMANCE.md), except
 * that gather and scatter use 1 where nccl-tests uses (P-1)/P. */
enum bus_factor {
	BUS_NONE,      /* barrier: no data */
	BUS_ONE,       /* bcast, reduce, scatter, gather */
	BUS_RING,      /* allgather, reduce_scatter, alltoall: (P-1)/P */
	BUS_ALLREDUCE, /* 2(P-1)/P */
};

struct coll_desc {
	const char *name;
	enum acis_coll coll;
	int blocks; /* size is a per-rank block: S = P x size */
	enum bus_factor bus;
	const char *bus_text;
};

static const struct coll_desc colls[] = {
	{"allreduce", ACIS_C_ALLREDUCE, 0, BUS_ALLREDUCE, "2(P-1)/P"},
	{"reduce", ACIS_C_REDUCE, 0, BUS_ONE, "1"},
	{"bcast", ACIS_C_BCAST, 0, BUS_ONE, "1"},
	{"scatter", ACIS_C_SCATTER, 1, BUS_ONE, "1"},
	{"gather", ACIS_C_GATHER, 1, BUS_ONE, "1"},
	{"allgather", ACIS_C_ALLGATHER, 1, BUS_RING, "(P-1)/P"},
	{"reduce_scatter", ACIS_C_REDUCE_SCATTER, 1, BUS_RING, "(P-1)/P"},
	{"alltoall", ACIS_C_ALLTOALL, 1, BUS_RING, "(P-1)/P"},
	{"barrier", ACIS_C_BARRIER, 0, BUS_NONE, "none"},
};
#define N_COLLS (sizeof(colls) / sizeof(colls[0]))

struct output {
	FILE *f;
	enum fmt fmt;
	const char *path;
	unsigned int rows; /* rows written (JSON needs the commas) */
};

/* One result line: what rank 0 learned about one collective and size. */
struct row {
	const struct coll_desc *c;
	size_t size, count;
	double bw_bytes;      /* S, or 0 for barrier */
	unsigned long iters, warmup;
	double avg, min, max, p99, rank_mean;
	double algbw, busbw, factor; /* factor < 0: no bandwidth */
	int ok;
	char err[1024];
};

struct bench {
	struct acis_config cfg;
	acis_ctx_t *ctx;
	acis_comm_t *world;
	uint32_t P, me;
	const struct coll_desc *order[N_COLLS];
	unsigned int n_order;
	size_t min_size, max_size;
	enum acis_dtype dtype;
	enum acis_op op;
	const char *op_program;  /* --op-program: a user op's words */
	long iterations, warmup; /* < 0: OSU's by size */
	long settle_ms;          /* --settle: a pause before the first call */
	enum fmt fmt;
	struct output out[MAX_OUTPUTS + 1];
	unsigned int n_out;
	uint8_t *sbuf, *rbuf;
	double *t;       /* this rank's timed calls, µs */
	double *stats;   /* every rank's N_STATS numbers (rank 0) */
	int progress;
	unsigned int rows_done, rows_total; /* for the progress bar */
	unsigned int errors;
	uint64_t last_bar_ns;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double
bus_factor(const struct coll_desc *c, uint32_t P)
{
	switch (c->bus) {
	case BUS_ONE:
		return 1.0;
	case BUS_RING:
		return (double)(P - 1) / P;
	case BUS_ALLREDUCE:
		return 2.0 * (P - 1) / P;
	default:
		return -1.0;
	}
}

static void
iterations_for(const struct bench *b, size_t size, unsigned long *iters,
	       unsigned long *warm)
{
	int large = size > OSU_LARGE_MESSAGE_SIZE;

	*iters = b->iterations >= 0 ? (unsigned long)b->iterations :
		 large ? OSU_ITERATIONS_LARGE : OSU_ITERATIONS;
	*warm = b->warmup >= 0 ? (unsigned long)b->warmup :
		large ? OSU_SKIP_LARGE : OSU_SKIP;
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* CSV fields hold error messages: quote them, doubling quotes. */
static void
csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static void
iter_text(const struct bench *b, char *buf, size_t len)
{
	if (b->iterations < 0 && b->warmup < 0)
		snprintf(buf, len, "%d timed after %d warm-up up to %d B, "
			 "%d after %d above (OSU defaults)", OSU_ITERATIONS,
			 OSU_SKIP, OSU_LARGE_MESSAGE_SIZE, OSU_ITERATIONS_LARGE,
			 OSU_SKIP_LARGE);
	else {
		unsigned long i0, w0, i1, w1;

		iterations_for(b, 0, &i0, &w0);
		iterations_for(b, OSU_LARGE_MESSAGE_SIZE + 1, &i1, &w1);
		if (i0 == i1 && w0 == w1)
			snprintf(buf, len, "%lu timed after %lu warm-up at "
				 "every size", i0, w0);
		else
			snprintf(buf, len, "%lu timed after %lu warm-up up "
				 "to %d B, %lu after %lu above", i0, w0,
				 OSU_LARGE_MESSAGE_SIZE, i1, w1);
	}
}

static void
write_header(const struct bench *b, struct output *o)
{
	char host[256] = "?", date[64] = "?", iters[160];
	unsigned long i0, w0, i1, w1;
	unsigned int i;
	time_t now = time(NULL);
	struct tm tm;
	unsigned int mtu = b->cfg.mtu ? b->cfg.mtu : 1500;
	unsigned int window = b->cfg.window ? b->cfg.window : 128;
	unsigned int timeout = b->cfg.timeout_ms ? b->cfg.timeout_ms : 10000;
	unsigned int port = b->cfg.switch_port ? b->cfg.switch_port : 47000;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm) != NULL)
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	iter_text(b, iters, sizeof(iters));
	switch (o->fmt) {
	case FMT_TABLE:
#ifdef ACIS_BENCH_MPI
		fprintf(o->f, "# acis-bench: MPI collectives (the same method "
			"on MPI_Allreduce, MPI_Bcast, ...)\n");
#else
		fprintf(o->f, "# acis-bench: libacis collectives through the "
			"acis switch %s:%u\n", b->cfg.switch_ip, port);
#endif
		fprintf(o->f,
			"# %s on %s; job %u, %u ranks, %s %s, root 0, MTU %u, "
			"window %u, timeout %u ms\n"
			"# iterations: %s\n"
			"# latency: every call timed with CLOCK_MONOTONIC on "
			"every rank, untimed barrier between calls;\n"
			"#   avg = mean of the slowest rank, min/max = over all "
			"ranks' calls, p99 = highest rank's 99th percentile\n"
			"# size = count x sizeof(%s) per call (per-rank block "
			"for scatter, gather, allgather, reduce_scatter, "
			"alltoall)\n"
			"# algbw = S / avg, S = size (P x size for the block "
			"collectives); busbw = algbw x factor (NCCL):\n"
			"#   allreduce 2(P-1)/P; allgather, reduce_scatter, "
			"alltoall (P-1)/P; bcast, reduce, scatter, gather 1; "
			"barrier none. GB/s = 1e9 B/s\n",
			date, host, b->cfg.job, b->P,
			acis_dtype_name(b->dtype), acis_op_name(b->op), mtu,
			window, timeout, iters, acis_dtype_name(b->dtype));
		break;
	case FMT_CSV:
		fprintf(o->f, "collective,size_bytes,count,bw_bytes,ranks,"
			"dtype,op,iterations,warmup,avg_us,min_us,max_us,"
			"p99_us,rank_mean_us,algbw_GBps,busbw_GBps,"
			"busbw_factor,status,error\n");
		break;
	case FMT_JSON:
		fprintf(o->f, "{\n  \"benchmark\": \"acis-bench\",\n"
			"  \"transport\": \"%s\",\n"
			"  \"date\": \"%s\",\n  \"host\": ", BENCH_TRANSPORT,
			date);
		json_str(o->f, host);
		fprintf(o->f, ",\n  \"switch\": ");
		json_str(o->f, b->cfg.switch_ip);
		fprintf(o->f, ",\n  \"switch_port\": %u,\n  \"job\": %u,\n"
			"  \"ranks\": %u,\n  \"dtype\": \"%s\",\n"
			"  \"op\": \"%s\",\n  \"root\": 0,\n  \"mtu\": %u,\n"
			"  \"window\": %u,\n  \"timeout_ms\": %u,\n"
			"  \"collectives\": [", port, b->cfg.job, b->P,
			acis_dtype_name(b->dtype), acis_op_name(b->op), mtu,
			window, timeout);
		for (i = 0; i < b->n_order; i++)
			fprintf(o->f, "%s\"%s\"", i ? ", " : "",
				b->order[i]->name);
		iterations_for(b, 0, &i0, &w0);
		iterations_for(b, OSU_LARGE_MESSAGE_SIZE + 1, &i1, &w1);
		fprintf(o->f, "],\n  \"min_size\": %zu,\n  \"max_size\": %zu,\n"
			"  \"iterations\": {\"small\": %lu, \"warmup_small\": "
			"%lu, \"large\": %lu, \"warmup_large\": %lu, "
			"\"large_above_bytes\": %d, \"osu_defaults\": %s},\n"
			"  \"definitions\": {\n", b->min_size, b->max_size, i0,
			w0, i1, w1, OSU_LARGE_MESSAGE_SIZE,
			b->iterations < 0 && b->warmup < 0 ? "true" : "false");
		fprintf(o->f,
			"    \"size_bytes\": \"count x sizeof(dtype) per call: "
			"the vector (allreduce, reduce, bcast) or each rank's "
			"block (scatter, gather, allgather, reduce_scatter, "
			"alltoall)\",\n"
			"    \"avg_us\": \"mean over timed calls of the slowest "
			"rank (OSU's Max Latency)\",\n"
			"    \"rank_mean_us\": \"mean over ranks of each rank's "
			"mean (OSU's Avg Latency)\",\n"
			"    \"min_us\": \"fastest call on any rank\",\n"
			"    \"max_us\": \"slowest call on any rank\",\n"
			"    \"p99_us\": \"highest per-rank 99th percentile "
			"(nearest rank)\",\n"
			"    \"bw_bytes\": \"S: size, or ranks x size for the "
			"block collectives\",\n"
			"    \"algbw_GBps\": \"S / avg_us, 1e9 bytes/s\",\n"
			"    \"busbw_GBps\": \"algbw x busbw_factor: allreduce "
			"2(P-1)/P; allgather, reduce_scatter, alltoall "
			"(P-1)/P; bcast, reduce, scatter, gather 1; barrier "
			"none\"\n"
			"  },\n  \"results\": [");
		break;
	}
	fflush(o->f);
}

static void
write_row(struct bench *b, struct output *o, const struct row *r)
{
	int bw = r->ok && r->factor >= 0;

	switch (o->fmt) {
	case FMT_TABLE:
		if (!r->ok) {
			fprintf(o->f, "%12zu  ERROR: %s\n", r->size, r->err);
			break;
		}
		fprintf(o->f, "%12zu %10.2f %10.2f %10.2f %10.2f", r->size,
			r->avg, r->min, r->max, r->p99);
		if (bw)
			fprintf(o->f, " %11.4f %11.4f\n", r->algbw, r->busbw);
		else
			fprintf(o->f, " %11s %11s\n", "-", "-");
		break;
	case FMT_CSV:
		fprintf(o->f, "%s,%zu,%zu,", r->c->name, r->size, r->count);
		if (r->factor >= 0)
			fprintf(o->f, "%.0f", r->bw_bytes);
		fprintf(o->f, ",%u,%s,%s,%lu,%lu,", b->P,
			acis_dtype_name(b->dtype),
			r->c->coll == ACIS_C_ALLREDUCE ||
			r->c->coll == ACIS_C_REDUCE ||
			r->c->coll == ACIS_C_REDUCE_SCATTER ?
			acis_op_name(b->op) : "", r->iters, r->warmup);
		if (r->ok)
			fprintf(o->f, "%.3f,%.3f,%.3f,%.3f,%.3f,", r->avg,
				r->min, r->max, r->p99, r->rank_mean);
		else
			fprintf(o->f, ",,,,,");
		if (bw)
			fprintf(o->f, "%.6f,%.6f,%.6g,", r->algbw, r->busbw,
				r->factor);
		else
			fprintf(o->f, ",,,");
		fprintf(o->f, "%s,", r->ok ? "ok" : "error");
		csv_str(o->f, r->ok ? "" : r->err);
		fputc('\n', o->f);
		break;
	case FMT_JSON:
		fprintf(o->f, "%s\n    {\"collective\": \"%s\", "
			"\"size_bytes\": %zu, \"count\": %zu, ",
			o->rows ? "," : "", r->c->name, r->size, r->count);
		if (r->factor >= 0)
			fprintf(o->f, "\"bw_bytes\": %.0f, ", r->bw_bytes);
		else
			fprintf(o->f, "\"bw_bytes\": null, ");
		fprintf(o->f, "\"iterations\": %lu, \"warmup\": %lu, ",
			r->iters, r->warmup);
		if (r->ok)
			fprintf(o->f, "\"avg_us\": %.3f, \"min_us\": %.3f, "
				"\"max_us\": %.3f, \"p99_us\": %.3f, "
				"\"rank_mean_us\": %.3f, ", r->avg, r->min,
				r->max, r->p99, r->rank_mean);
		if (bw)
			fprintf(o->f, "\"algbw_GBps\": %.6f, \"busbw_GBps\": "
				"%.6f, \"busbw_factor\": %.6g, ", r->algbw,
				r->busbw, r->factor);
		else
			fprintf(o->f, "\"algbw_GBps\": null, \"busbw_GBps\": "
				"null, \"busbw_factor\": null, ");
		fprintf(o->f, "\"status\": \"%s\"", r->ok ? "ok" : "error");
		if (!r->ok) {
			fprintf(o->f, ", \"error\": ");
			json_str(o->f, r->err);
		}
		fputc('}', o->f);
		break;
	}
	o->rows++;
	fflush(o->f);
}

/* A table section per collective, as OSU prints one per benchmark. */
static void
write_section(struct bench *b, struct output *o, const struct coll_desc *c)
{
	if (o->fmt != FMT_TABLE)
		return;
	if (c->bus == BUS_NONE)
		fprintf(o->f, "\n# %s\n", c->name);
	else
		fprintf(o->f, "\n# %s, busbw factor %s = %.3f\n", c->name,
			c->bus_text, bus_factor(c, b->P));
	fprintf(o->f, "# %10s %10s %10s %10s %10s %11s %11s\n", "size(B)",
		"avg(us)", "min(us)", "max(us)", "p99(us)", "algbw(GB/s)",
		"busbw(GB/s)");
	fflush(o->f);
}

static void
write_footer(const struct bench *b, struct output *o, int complete)
{
	switch (o->fmt) {
	case FMT_TABLE:
		fprintf(o->f, "\n# %s, %u error%s\n", complete ? "done" :
			"stopped early", b->errors, b->errors == 1 ? "" : "s");
		break;
	case FMT_CSV:
		break;
	case FMT_JSON:
		fprintf(o->f, "\n  ],\n  \"errors\": %u,\n  \"complete\": %s\n}\n",
			b->errors, complete ? "true" : "false");
		break;
	}
	fflush(o->f);
}

/* ------------------------------------------------------------------ */
/* Measuring                                                            */
/* ------------------------------------------------------------------ */

static void
progress_bar(struct bench *b, const char *name, size_t size,
	     unsigned long done, unsigned long total, int force)
{
	static const char hashes[] = "##############################";
	const int width = sizeof(hashes) - 1;
	uint64_t now = now_ns();
	double frac;
	int k;

	/* A terminal redraw costs more than a small collective: at most
	 * ten a second, and never inside the timed region. */
	if (!force && now - b->last_bar_ns < 100000000ull)
		return;
	b->last_bar_ns = now;
	frac = (b->rows_done + (total ? (double)done / total : 1.0)) /
	       (b->rows_total ? b->rows_total : 1);
	k = (int)(frac * width);
	k = k > width ? width : k;
	fprintf(stderr, "\r[%.*s%*s] %u/%u  %s %zu B  %lu/%lu\033[K", k,
		hashes, width - k, "", b->rows_done + 1, b->rows_total, name,
		size, done, total);
	fflush(stderr);
}

static void
progress_clear(const struct bench *b)
{
	if (b->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static int
call(struct bench *b, const struct coll_desc *c, size_t count)
{
	acis_comm_t *w = b->world;

	switch (c->coll) {
	case ACIS_C_ALLREDUCE:
		return acis_allreduce(b->sbuf, b->rbuf, count, b->dtype, b->op,
				      w);
	case ACIS_C_REDUCE:
		return acis_reduce(b->sbuf, b->rbuf, count, b->dtype, b->op, 0,
				   w);
	case ACIS_C_BCAST:
		return acis_bcast(b->rbuf, count, b->dtype, 0, w);
	case ACIS_C_SCATTER:
		return acis_scatter(b->sbuf, b->rbuf, count, b->dtype, 0, w);
	case ACIS_C_GATHER:
		return acis_gather(b->sbuf, b->rbuf, count, b->dtype, 0, w);
	case ACIS_C_ALLGATHER:
		return acis_allgather(b->sbuf, b->rbuf, count, b->dtype, w);
	case ACIS_C_REDUCE_SCATTER:
		return acis_reduce_scatter(b->sbuf, b->rbuf, count, b->dtype,
					   b->op, w);
	case ACIS_C_ALLTOALL:
		return acis_alltoall(b->sbuf, b->rbuf, count, b->dtype, w);
	case ACIS_C_BARRIER:
		return acis_barrier(w);
	default:
		return ACIS_ERR_INVAL;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* mean, min, max and nearest-rank 99th percentile of t[0..n) (sorts t) */
static void
local_stats(double *t, unsigned long n, double *out)
{
	double sum = 0;
	unsigned long i, k;

	if (n == 0) {
		out[0] = out[1] = out[2] = out[3] = 0;
		return;
	}
	for (i = 0; i < n; i++)
		sum += t[i];
	qsort(t, n, sizeof(*t), cmp_double);
	k = (99 * n + 99) / 100; /* ceil(0.99 n) */
	out[0] = sum / (double)n;
	out[1] = t[0];
	out[2] = t[n - 1];
	out[3] = t[k - 1];
}

/*
 * One collective at one size; r gets rank 0's view. Returns 0, or -1 when
 * the statistics could not be exchanged (r then says why): the switch is
 * gone, or an earlier failure left the ranks out of step — the switch
 * numbers the collectives of a communicator, and a rank that gave up on a
 * call is one behind the others — so nothing more can be measured.
 */
static int
bench_size(struct bench *b, const struct coll_desc *c, size_t size,
	   size_t count, struct row *r)
{
	unsigned long iters, warm, i, total, timed = 0;
	double mine[N_STATS];
	char err[400] = "", failed[256] = "";
	int rc, step = 0;
	uint32_t q, n_failed = 0;

	iterations_for(b, size, &iters, &warm);
	total = iters + warm;
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->size = size;
	r->count = count;
	r->iters = iters;
	r->warmup = warm;
	r->factor = bus_factor(c, b->P);
	r->bw_bytes = r->factor < 0 ? 0 :
		      (double)size * (c->blocks ? b->P : 1);
	if (b->progress)
		progress_bar(b, c->name, size, 0, total, 1);
	rc = acis_barrier(b->world);
	for (i = 0; rc == ACIS_OK && i < total; i++) {
		uint64_t t0, t1;

		step = 1;
		t0 = now_ns();
		rc = call(b, c, count);
		t1 = now_ns();
		if (rc != ACIS_OK)
			break;
		if (i >= warm)
			b->t[timed++] = (double)(t1 - t0) / 1e3;
		if (b->progress)
			progress_bar(b, c->name, size, i + 1, total, 0);
		/* the barrier keeps calls from overlapping; barrier
		 * itself needs none */
		if (c->coll != ACIS_C_BARRIER) {
			step = 2;
			rc = acis_barrier(b->world);
		}
	}
	if (rc != ACIS_OK) {
		snprintf(err, sizeof(err), "%s %zu B, %s %lu of %lu: %s (%s)",
			 c->name, size, step == 0 ? "barrier before call" :
			 step == 1 ? "call" : "barrier after call", i + 1,
			 total, acis_strerror(rc), acis_last_error(b->ctx));
		progress_clear(b);
		fprintf(stderr, "acis-bench: rank %u: %s\n", b->me, err);
	}
	mine[0] = rc;
	mine[1] = (double)timed;
	local_stats(b->t, timed, &mine[2]);
	rc = acis_gather(mine, b->stats, N_STATS, ACIS_FLOAT64, 0, b->world);
	if (rc != ACIS_OK) {
		progress_clear(b);
		fprintf(stderr, "acis-bench: rank %u: %s %zu B: exchanging "
			"the statistics: %s (%s); stopping\n", b->me, c->name,
			size, acis_strerror(rc), acis_last_error(b->ctx));
		snprintf(r->err, sizeof(r->err), "%s%sexchanging the "
			 "statistics: %s; stopped here (the switch is gone, or "
			 "a failed call left the ranks out of step)", err,
			 err[0] ? "; " : "", acis_strerror(rc));
		b->errors++;
		return -1;
	}
	if (b->me != 0) {
		b->errors += err[0] != '\0';
		return 0;
	}
	/* rank 0: combine */
	r->ok = 1;
	for (q = 0; q < b->P; q++) {
		const double *st = &b->stats[(size_t)q * N_STATS];

		if (st[0] != 0 || st[1] != (double)iters) {
			size_t l = strlen(failed);

			snprintf(failed + l, sizeof(failed) - l, "%s%u",
				 l ? "," : "", q);
			n_failed++;
			r->ok = 0;
			continue;
		}
		if (q == 0 || st[2] > r->avg)
			r->avg = st[2];
		if (q == 0 || st[3] < r->min)
			r->min = st[3];
		if (q == 0 || st[4] > r->max)
			r->max = st[4];
		if (q == 0 || st[5] > r->p99)
			r->p99 = st[5];
		r->rank_mean += st[2] / b->P;
	}
	if (!r->ok) {
		/* rank 0 knows its own reason; the others print theirs */
		snprintf(r->err, sizeof(r->err), "%s%sfailed on rank%s %s%s",
			 err, err[0] ? "; " : "", n_failed > 1 ? "s" : "",
			 failed, err[0] && n_failed == 1 ? "" :
			 " (each says why on its stderr)");
		b->errors++;
		return 0;
	}
	if (r->factor >= 0 && r->avg > 0) {
		r->algbw = r->bw_bytes / (r->avg * 1e3); /* B/µs -> GB/s */
		r->busbw = r->algbw * r->factor;
	}
	return 0;
}

/* Every rank must run the same benchmark, or the switch would see
 * mismatched collectives and every rank would wait for a timeout. */
static int
same_options(struct bench *b)
{
	char desc[512];
	int64_t v[2], got[2];
	uint64_t h = 1469598103934665603ull;
	unsigned int i;
	size_t l;
	int rc;

	l = (size_t)snprintf(desc, sizeof(desc), "%zu %zu %d %d %ld %ld",
			     b->min_size, b->max_size, b->dtype, b->op,
			     b->iterations, b->warmup);
	for (i = 0; i < b->n_order && l < sizeof(desc) - 20; i++)
		l += (size_t)snprintf(desc + l, sizeof(desc) - l, " %s",
				      b->order[i]->name);
	for (i = 0; desc[i] != '\0'; i++)
		h = (h ^ (uint8_t)desc[i]) * 1099511628211ull;
	v[0] = (int64_t)(h >> 2);
	v[1] = -v[0];
	rc = acis_allreduce(v, got, 2, ACIS_INT64, ACIS_OP_MAX, b->world);
	if (rc != ACIS_OK) {
		fprintf(stderr, "acis-bench: rank %u: comparing options: %s "
			"(%s)\n", b->me, acis_strerror(rc),
			acis_last_error(b->ctx));
		return -1;
	}
	if (got[0] != -got[1]) {
		fprintf(stderr, "acis-bench: rank %u: the ranks were started "
			"with different options\n", b->me);
		return -1;
	}
	return 0;
}

/* Buffers hold ones of the datatype: sums and products stay finite over
 * any number of calls. */
static void
fill_ones(uint8_t *buf, size_t len, enum acis_dtype dt)
{
	unsigned int ds = acis_dtype_size(dt);
	uint8_t one[8] = {0};
	size_t i;

	switch (dt) {
	case ACIS_FLOAT32: {
		float f = 1.0f;

		memcpy(one, &f, 4);
		break;
	}
	case ACIS_FLOAT64: {
		double d = 1.0;

		memcpy(one, &d, 8);
		break;
	}
	case ACIS_FLOAT16:
		one[1] = 0x3c; /* little endian 0x3c00 */
		break;
	case ACIS_BFLOAT16:
		one[1] = 0x3f; /* 0x3f80 */
		one[0] = 0x80;
		break;
	default:
		one[0] = 1;
		break;
	}
	for (i = 0; i + ds <= len; i += ds)
		memcpy(buf + i, one, ds);
}

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

/* --op-program: the user op made from the file's program (acis-asm's
 * .bin, or its assembly text), named after the file; b->op becomes it.
 * 0, or -1 said. */
static int
user_op(struct bench *b)
{
#ifdef ACIS_BENCH_MPI
	/* over MPI (bench/acis_over_mpi.c): the host function of the
	 * program's name, given to MPI_Op_create */
	const char *base = strrchr(b->op_program, '/');
	char name[ACIS_OP_NAME_LEN];
	enum acis_op op;

	snprintf(name, sizeof(name), "%s", base != NULL ? base + 1 :
		 b->op_program);
	name[strcspn(name, ".")] = '\0';
	if (acis_op_create(b->ctx, name, NULL, 0, 1, &op) != ACIS_OK) {
		fprintf(stderr, "acis-bench: --op-program: %s\n",
			acis_last_error(b->ctx));
		return -1;
	}
	b->op = op;
	return 0;
#else
	const char *base = strrchr(b->op_program, '/');
	char name[ACIS_OP_NAME_LEN], err[1024];
	enum acis_op op;
	uint32_t *w;
	size_t n;
	int rc;

	if (acis_cgra_read_program(b->op_program, &w, &n, err,
				   sizeof(err)) != 0) {
		fprintf(stderr, "acis-bench: --op-program: %s\n", err);
		return -1;
	}
	snprintf(name, sizeof(name), "%s", base != NULL ? base + 1 :
		 b->op_program);
	name[strcspn(name, ".")] = '\0';
	rc = acis_op_create(b->ctx, name, w, n, 1, &op);
	free(w);
	if (rc != ACIS_OK) {
		fprintf(stderr, "acis-bench: rank %u: --op-program: %s\n",
			b->me, acis_last_error(b->ctx));
		return -1;
	}
	b->op = op;
	return 0;
#endif
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: acis-bench --switch IP --job N --rank R --size P "
		"[options]\n"
		"  --colls LIST         allreduce,reduce,bcast,scatter,gather,"
		"allgather,\n"
		"                       reduce_scatter,alltoall,barrier "
		"(default: all, in this\n"
		"                       order)\n"
		"  --min-size B         smallest size in bytes (default 4)\n"
		"  --max-size B         largest size in bytes (default 4194304);"
		" sizes double\n"
		"  --dtype T            int32 int64 uint32 uint64 float32 "
		"float64 float16\n"
		"                       bfloat16 int8 uint8 int16 uint16 "
		"(default float32)\n"
		"  --op OP              sum prod min max band bor bxor (default "
		"sum)\n"
		"  --op-program FILE    a user-defined op: a CGRA program "
		"(acis-asm's .bin, or .s),\n"
		"                       made with acis_op_create, named after "
		"the file\n"
		"  -i, --iterations N   timed calls per size (default: OSU's, %d "
		"up to %d B,\n"
		"                       %d above)\n"
		"  -w, --warmup N       untimed calls before them (default: "
		"OSU's, %d up to\n"
		"                       %d B, %d above)\n"
		"  --format F           table, csv or json on stdout (default "
		"table)\n"
		"  --output FILE        also write FILE (.csv, .json, else "
		"--format); repeatable\n"
		"  --timeout MS         a call fails after this long without\n"
		"                       progress (default 10000)\n"
		"  --settle MS          wait this long after joining, before "
		"the first call\n"
		"                       (a kernel-bypass port's first "
		"moments: default 0)\n"
		"The ACIS_* environment that libacis reads (ACIS_SWITCH, "
		"ACIS_JOB, ACIS_RANK,\nACIS_SIZE, ACIS_TIMEOUT_MS, ... see "
		"acis.h) gives the defaults. Only rank 0\nprints results.\n",
		OSU_ITERATIONS, OSU_LARGE_MESSAGE_SIZE, OSU_ITERATIONS_LARGE,
		OSU_SKIP, OSU_LARGE_MESSAGE_SIZE, OSU_SKIP_LARGE);
}

static int
parse_ulong(const char *opt, const char *s, unsigned long long min,
	    unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10); /* 010 is ten, not eight */
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' ||
	    *v < min || *v > max) {
		fprintf(stderr, "acis-bench: --%s %s: want a number from %llu "
			"to %llu\n", opt, s, min, max);
		return -1;
	}
	return 0;
}

static int
parse_fmt(const char *s, enum fmt *f)
{
	if (strcmp(s, "table") == 0)
		*f = FMT_TABLE;
	else if (strcmp(s, "csv") == 0)
		*f = FMT_CSV;
	else if (strcmp(s, "json") == 0)
		*f = FMT_JSON;
	else
		return -1;
	return 0;
}

static int
parse_colls(struct bench *b, char *list)
{
	char *tok, *save;
	unsigned int i, j;

	b->n_order = 0;
	for (tok = strtok_r(list, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < N_COLLS && strcmp(colls[i].name, tok); i++)
			;
		if (i == N_COLLS) {
			fprintf(stderr, "acis-bench: unknown collective '%s'\n",
				tok);
			return -1;
		}
		for (j = 0; j < b->n_order && b->order[j] != &colls[i]; j++)
			;
		if (j == b->n_order)
			b->order[b->n_order++] = &colls[i];
	}
	if (b->n_order == 0) {
		fprintf(stderr, "acis-bench: --colls names no collective\n");
		return -1;
	}
	return 0;
}

static int
parse_args(struct bench *b, int argc, char **argv,
	   const char *outputs[MAX_OUTPUTS], unsigned int *n_outputs)
{
	static const struct option lo[] = {
		{"switch", required_argument, NULL, 's'},
		{"job", required_argument, NULL, 'j'},
		{"rank", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 'n'},
		{"colls", required_argument, NULL, 'c'},
		{"min-size", required_argument, NULL, 'm'},
		{"max-size", required_argument, NULL, 'M'},
		{"dtype", required_argument, NULL, 'd'},
		{"op", required_argument, NULL, 'o'},
		{"op-program", required_argument, NULL, 'U'},
		{"iterations", required_argument, NULL, 'i'},
		{"warmup", required_argument, NULL, 'w'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'O'},
		{"timeout", required_argument, NULL, 't'},
		{"settle", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "hi:w:", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			b->cfg.switch_ip = optarg;
			break;
		case 'j':
			if (parse_ulong("job", optarg, 0, UINT32_MAX, &v))
				return -1;
			b->cfg.job = (uint32_t)v;
			break;
		case 'r':
			if (parse_ulong("rank", optarg, 0, UINT32_MAX, &v))
				return -1;
			b->cfg.rank = (uint32_t)v;
			break;
		case 'n':
			if (parse_ulong("size", optarg, 1, UINT32_MAX, &v))
				return -1;
			b->cfg.size = (uint32_t)v;
			break;
		case 'c':
			if (parse_colls(b, optarg))
				return -1;
			break;
		case 'm':
			if (parse_ulong("min-size", optarg, 1, 1ull << 32, &v))
				return -1;
			b->min_size = (size_t)v;
			break;
		case 'M':
			if (parse_ulong("max-size", optarg, 1, 1ull << 32, &v))
				return -1;
			b->max_size = (size_t)v;
			break;
		case 'd':
			for (i = 1; i < ACIS_DTYPE_MAX &&
				    strcmp(acis_dtype_name(i), optarg); i++)
				;
			if (i == ACIS_DTYPE_MAX) {
				fprintf(stderr, "acis-bench: unknown datatype "
					"'%s'\n", optarg);
				return -1;
			}
			b->dtype = (enum acis_dtype)i;
			break;
		case 'o':
			for (i = 1; i < ACIS_OP_MAX_ &&
				    strcmp(acis_op_name(i), optarg); i++)
				;
			if (i == ACIS_OP_MAX_) {
				fprintf(stderr, "acis-bench: unknown op '%s'\n",
					optarg);
				return -1;
			}
			b->op = (enum acis_op)i;
			break;
		case 'U':
			b->op_program = optarg;
			break;
		case 'i':
			if (parse_ulong("iterations", optarg, 1, 100000000, &v))
				return -1;
			b->iterations = (long)v;
			break;
		case 'w':
			if (parse_ulong("warmup", optarg, 0, 100000000, &v))
				return -1;
			b->warmup = (long)v;
			break;
		case 'S':
			if (parse_ulong("settle", optarg, 0, 600000, &v))
				return -1;
			b->settle_ms = (long)v;
			break;
		case 'f':
			if (parse_fmt(optarg, &b->fmt)) {
				fprintf(stderr, "acis-bench: --format: table, "
					"csv or json\n");
				return -1;
			}
			break;
		case 'O':
			if (*n_outputs == MAX_OUTPUTS) {
				fprintf(stderr, "acis-bench: at most %d "
					"--output\n", MAX_OUTPUTS);
				return -1;
			}
			outputs[(*n_outputs)++] = optarg;
			break;
		case 't':
			if (parse_ulong("timeout", optarg, 1, 3600000, &v))
				return -1;
			b->cfg.timeout_ms = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "acis-bench: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (b->min_size > b->max_size) {
		fprintf(stderr, "acis-bench: --min-size %zu is above "
			"--max-size %zu\n", b->min_size, b->max_size);
		return -1;
	}
	if (b->cfg.rank >= b->cfg.size) {
		fprintf(stderr, "acis-bench: rank %u is outside a job of %u\n",
			b->cfg.rank, b->cfg.size);
		return -1;
	}
	for (i = 0; i < b->n_order; i++) {
		enum acis_coll k = b->order[i]->coll;

		if ((k == ACIS_C_ALLREDUCE || k == ACIS_C_REDUCE ||
		     k == ACIS_C_REDUCE_SCATTER) && b->op_program == NULL &&
		    !acis_op_valid(b->op, b->dtype)) {
			fprintf(stderr, "acis-bench: op %s is not defined on "
				"%s\n", acis_op_name(b->op),
				acis_dtype_name(b->dtype));
			return -1;
		}
	}
	return 0;
}

static enum fmt
fmt_of_path(const char *path, enum fmt dflt)
{
	size_t l = strlen(path);

	if (l >= 4 && strcmp(path + l - 4, ".csv") == 0)
		return FMT_CSV;
	if (l >= 5 && strcmp(path + l - 5, ".json") == 0)
		return FMT_JSON;
	return dflt;
}

/* Whether every --output can be written, asked before joining, without
 * creating or emptying any: an existing file writable, or a new one's
 * directory. */
static int
outputs_writable(const char *outputs[], unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char dir[4096];
		int ok;

		if (access(outputs[i], F_OK) == 0) {
			ok = access(outputs[i], W_OK) == 0;
		} else if (errno != ENOENT) {
			ok = 0;
		} else {
			snprintf(dir, sizeof(dir), "%s", outputs[i]);
			ok = access(dirname(dir), W_OK) == 0;
		}
		if (!ok) {
			fprintf(stderr, "acis-bench: %s: %s\n", outputs[i],
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Rank 0's sinks: stdout and every --output. */
static int
open_outputs(struct bench *b, const char *outputs[], unsigned int n)
{
	unsigned int i;

	b->out[0].f = stdout;
	b->out[0].fmt = b->fmt;
	b->out[0].path = "stdout";
	b->n_out = 1;
	for (i = 0; i < n; i++) {
		struct output *o = &b->out[b->n_out];

		o->f = fopen(outputs[i], "w");
		if (o->f == NULL) {
			fprintf(stderr, "acis-bench: %s: %s\n", outputs[i],
				strerror(errno));
			return -1;
		}
		o->fmt = fmt_of_path(outputs[i], b->fmt);
		o->path = outputs[i];
		b->n_out++;
	}
	return 0;
}

static int
close_outputs(struct bench *b)
{
	unsigned int i;
	int rc = 0;

	for (i = 1; i < b->n_out; i++)
		if (fclose(b->out[i].f) != 0) {
			fprintf(stderr, "acis-bench: %s: %s\n", b->out[i].path,
				strerror(errno));
			rc = -1;
		}
	fflush(stdout);
	return rc;
}

/* ------------------------------------------------------------------ */

/* The sizes one collective runs at: doubling from --min-size, as whole
 * elements, without repeats; barrier runs once, at size 0. */
static unsigned int
sizes_of(const struct bench *b, const struct coll_desc *c, size_t *sizes)
{
	unsigned int ds = acis_dtype_size(b->dtype), n = 0;
	size_t s;

	if (c->coll == ACIS_C_BARRIER) {
		sizes[0] = 0;
		return 1;
	}
	for (s = b->min_size; s <= b->max_size && n < MAX_SIZES; s *= 2) {
		size_t size = s / ds * ds;

		if (size != 0 && (n == 0 || size != sizes[n - 1]))
			sizes[n++] = size;
	}
	return n;
}

static int
run(struct bench *b)
{
	size_t sizes[N_COLLS][MAX_SIZES];
	unsigned int n[N_COLLS], i, j, k;
	unsigned int ds = acis_dtype_size(b->dtype);
	struct row r;
	int rc;

	for (i = 0; i < b->n_order; i++) {
		n[i] = sizes_of(b, b->order[i], sizes[i]);
		b->rows_total += n[i];
	}
	for (i = 0; i < b->n_order; i++) {
		const struct coll_desc *c = b->order[i];

		if (b->me == 0)
			for (k = 0; k < b->n_out; k++)
				write_section(b, &b->out[k], c);
		for (j = 0; j < n[i]; j++) {
			rc = bench_size(b, c, sizes[i][j], sizes[i][j] / ds,
					&r);
			b->rows_done++;
			if (b->me == 0) {
				progress_clear(b);
				for (k = 0; k < b->n_out; k++)
					write_row(b, &b->out[k], &r);
			}
			if (rc != 0)
				return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct bench b;
	const char *outputs[MAX_OUTPUTS];
	unsigned int n_outputs = 0, i, blocks;
	unsigned long iters_max, w, i0, i1;
	size_t big;
	int rc, complete;
	char all[] = "allreduce,reduce,bcast,scatter,gather,allgather,"
		     "reduce_scatter,alltoall,barrier";

	memset(&b, 0, sizeof(b));
	acis_config_default(&b.cfg);
	b.min_size = 4;
	b.max_size = 4194304;
	b.dtype = ACIS_FLOAT32;
	b.op = ACIS_OP_SUM;
	b.iterations = -1;
	b.warmup = -1;
	b.fmt = FMT_TABLE;
	parse_colls(&b, all);
	if (parse_args(&b, argc, argv, outputs, &n_outputs) != 0)
		return 2;
	b.P = b.cfg.size;
	b.me = b.cfg.rank;

	/* Block collectives move P blocks through one buffer (alltoall
	 * through both). */
	for (i = 0; i < b.n_order && !b.order[i]->blocks; i++)
		;
	blocks = i < b.n_order ? b.P : 1;
	if (b.max_size > SIZE_MAX / blocks) {
		fprintf(stderr, "acis-bench: --max-size x ranks is too large\n");
		return 2;
	}
	big = b.max_size * blocks;
	iterations_for(&b, 0, &i0, &w);
	iterations_for(&b, SIZE_MAX, &i1, &w);
	iters_max = i0 > i1 ? i0 : i1;
	b.t = malloc(iters_max * sizeof(*b.t));
	b.stats = calloc((size_t)b.P * N_STATS, sizeof(*b.stats));
	if (posix_memalign((void **)&b.sbuf, 4096, big) != 0)
		b.sbuf = NULL;
	if (posix_memalign((void **)&b.rbuf, 4096, big) != 0)
		b.rbuf = NULL;
	if (b.t == NULL || b.stats == NULL || b.sbuf == NULL ||
	    b.rbuf == NULL) {
		fprintf(stderr, "acis-bench: rank %u: no memory for %zu-byte "
			"buffers\n", b.me, big);
		return 1;
	}
	/* touch every page now, not in the first timed calls */
	fill_ones(b.sbuf, big, b.dtype);
	fill_ones(b.rbuf, big, b.dtype);

	if (b.me == 0 && outputs_writable(outputs, n_outputs) != 0)
		return 2;
	b.progress = b.me == 0 && isatty(STDERR_FILENO);

	rc = acis_init(&b.cfg, &b.ctx);
	if (rc != ACIS_OK) {
		fprintf(stderr, "acis-bench: rank %u: joining job %u at %s: "
			"%s\n", b.me, b.cfg.job, b.cfg.switch_ip,
			acis_init_error());
		return 1;
	}
	b.world = acis_comm_world(b.ctx);
	if (b.op_program != NULL && user_op(&b) != 0) {
		acis_finalize(b.ctx);
		return 1;
	}
	if (same_options(&b) != 0) {
		acis_finalize(b.ctx);
		return 1;
	}
	/* A switch maps and faults in a new memif peer's memory in its first
	 * tenth of a second (doc/transports.md); what it costs the first
	 * calls is no collective's. */
	if (b.settle_ms > 0) {
		struct timespec ts = {b.settle_ms / 1000,
				      (b.settle_ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
	}
	/* opened (and emptied) only now: a run that could not start leaves
	 * the results of the last one as they were */
	if (b.me == 0 && open_outputs(&b, outputs, n_outputs) != 0) {
		acis_finalize(b.ctx);
		return 2;
	}
	if (b.me == 0)
		for (i = 0; i < b.n_out; i++)
			write_header(&b, &b.out[i]);
	complete = run(&b) == 0;
	progress_clear(&b);
	if (b.me == 0) {
		for (i = 0; i < b.n_out; i++)
			write_footer(&b, &b.out[i], complete);
		if (close_outputs(&b) != 0)
			b.errors++;
	}
	rc = acis_finalize(b.ctx);
	if (rc != ACIS_OK && complete)
		fprintf(stderr, "acis-bench: rank %u: leaving the job: %s\n",
			b.me, acis_strerror(rc));
	free(b.t);
	free(b.stats);
	free(b.sbuf);
	free(b.rbuf);
	return b.errors == 0 && complete ? 0 : 1;
}
