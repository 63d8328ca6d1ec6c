/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis-mpi: the MPI profiling-interface layer (acis_mpi.h, doc/mpi.md).
 *
 * Every MPI_X defined here decides, from what every rank of the call has
 * alike (the communicator, the datatype, the op, the size), whether the
 * switch takes the call; if it does, libacis runs it, else the MPI
 * library's PMPI_X does, unchanged. A decision every rank makes the same
 * way is what keeps ranks from waiting on two different collectives.
 *
 * Communicators: MPI_COMM_WORLD is the job's world on the switch. Each
 * communicator made from one on the switch (dup, split, split_type,
 * create) is put on it at once, by the same collective call: every
 * member of the parent splits the parent's switch communicator with the
 * new one's first rank as color and its rank as key, then the members
 * agree (all succeeded, or none uses it). The switch communicator rides
 * on the MPI one as an attribute; MPI_Comm_free's attribute deletion
 * frees it on the switch.
 *
 * Non-blocking calls return generalized requests (MPI_Grequest_start),
 * which the MPI library's own MPI_Wait... complete; the wait and test
 * calls defined here progress the switch's requests among the array,
 * complete those that finished, and leave the rest to the library,
 * poking its progress engine (MPI_Iprobe) while they wait so that its own
 * requests move too.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "acis.h"
#include "acis_mpi.h"

/* ---- state ---------------------------------------------------------- */

/* what rides on an MPI communicator (attribute value) */
struct mcomm {
	acis_comm_t *ac;
	int world;               /* the job's world: never freed */
};

/* a non-blocking call's generalized request */
struct nbreq {
	struct nbreq *next, *prev;
	MPI_Request mreq;        /* what the program holds */
	acis_req_t *areq;        /* libacis's; NULL once finished */
	int err;                 /* MPI error class it finished with */
	int completed;           /* MPI_Grequest_complete done */
	enum acis_mpi_coll coll;
};

static struct {
	int on;                  /* offload at all */
	int strict;
	int stats_print;         /* 0 none, 1 rank 0, 2 every rank */
	int rank;
	acis_ctx_t *ctx;
	int keyval;
	struct mcomm world;
	uint64_t min_bytes[ACIS_MPI_COLL_MAX];
	struct acis_mpi_stats st;
	struct nbreq *nb;        /* outstanding non-blocking calls */
} g = {.keyval = MPI_KEYVAL_INVALID};

static const char *const coll_names[ACIS_MPI_COLL_MAX] = {
	"allreduce", "reduce", "bcast", "scatter", "gather", "allgather",
	"reduce_scatter_block", "reduce_scatter", "barrier", "alltoall",
};
static const char *const fb_names[ACIS_MPI_FB_MAX] = {
	"off", "comm", "datatype", "op", "small", "counts",
};

const char *
acis_mpi_coll_name(enum acis_mpi_coll c)
{
	return (unsigned int)c < ACIS_MPI_COLL_MAX ? coll_names[c] : "?";
}

const char *
acis_mpi_fallback_name(enum acis_mpi_fallback f)
{
	return (unsigned int)f < ACIS_MPI_FB_MAX ? fb_names[f] : "?";
}

void
acis_mpi_get_stats(struct acis_mpi_stats *s)
{
	*s = g.st;
}

uint64_t
acis_mpi_offloaded(void)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 0; k < ACIS_MPI_COLL_MAX; k++)
		n += g.st.coll[k].offloaded;
	return n;
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "libacis-mpi: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- what the switch can take ----------------------------------------- */

/* The switch's type for a predefined MPI type in a reduction; 0 if none.
 * C integer types by their size and signedness, as the MPI standard
 * defines them; MPI_CHAR has no reductions in MPI and stays the
 * library's (which says so). */
#define INT_OF(sz, sgn)                                                   \
	((sz) == 1 ? ((sgn) ? ACIS_INT8 : ACIS_UINT8) :                      \
	 (sz) == 2 ? ((sgn) ? ACIS_INT16 : ACIS_UINT16) :                    \
	 (sz) == 4 ? ((sgn) ? ACIS_INT32 : ACIS_UINT32) :                    \
	 (sz) == 8 ? ((sgn) ? ACIS_INT64 : ACIS_UINT64) : 0)

static int
reduce_dtype(MPI_Datatype t)
{
	if (t == MPI_FLOAT)
		return ACIS_FLOAT32;
	if (t == MPI_DOUBLE)
		return ACIS_FLOAT64;
	if (t == MPI_INT)
		return INT_OF(sizeof(int), 1);
	if (t == MPI_UNSIGNED)
		return INT_OF(sizeof(unsigned int), 0);
	if (t == MPI_LONG)
		return INT_OF(sizeof(long), 1);
	if (t == MPI_UNSIGNED_LONG)
		return INT_OF(sizeof(unsigned long), 0);
	if (t == MPI_LONG_LONG || t == MPI_LONG_LONG_INT)
		return INT_OF(sizeof(long long), 1);
	if (t == MPI_UNSIGNED_LONG_LONG)
		return INT_OF(sizeof(unsigned long long), 0);
	if (t == MPI_SHORT)
		return INT_OF(sizeof(short), 1);
	if (t == MPI_UNSIGNED_SHORT)
		return INT_OF(sizeof(unsigned short), 0);
	if (t == MPI_SIGNED_CHAR || t == MPI_INT8_T)
		return ACIS_INT8;
	if (t == MPI_UNSIGNED_CHAR || t == MPI_UINT8_T || t == MPI_BYTE)
		return ACIS_UINT8;
	if (t == MPI_INT16_T)
		return ACIS_INT16;
	if (t == MPI_UINT16_T)
		return ACIS_UINT16;
	if (t == MPI_INT32_T)
		return ACIS_INT32;
	if (t == MPI_UINT32_T)
		return ACIS_UINT32;
	if (t == MPI_INT64_T)
		return ACIS_INT64;
	if (t == MPI_UINT64_T)
		return ACIS_UINT64;
#ifdef MPIX_C_FLOAT16
	if (t == MPIX_C_FLOAT16)
		return ACIS_FLOAT16;
#endif
	return 0;
}

/* The switch's op, or 0 if none (or none for that type: MPI has the
 * bitwise ops only on integers and MPI_BYTE, arithmetic not on MPI_BYTE). */
static int
reduce_op(MPI_Op op, MPI_Datatype t, int dt)
{
	int is_float = dt == ACIS_FLOAT32 || dt == ACIS_FLOAT64 ||
		       dt == ACIS_FLOAT16 || dt == ACIS_BFLOAT16;

	if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {
		if (is_float)
			return 0;
		return op == MPI_BAND ? ACIS_OP_BAND :
		       op == MPI_BOR ? ACIS_OP_BOR : ACIS_OP_BXOR;
	}
	if (t == MPI_BYTE)
		return 0;
	if (op == MPI_SUM)
		return ACIS_OP_SUM;
	if (op == MPI_PROD)
		return ACIS_OP_PROD;
	if (op == MPI_MIN)
		return ACIS_OP_MIN;
	if (op == MPI_MAX)
		return ACIS_OP_MAX;
	return 0;
}

/* Bytes of count elements of a type the switch can move as bytes: a
 * predefined type without gaps. 0: not such a type. */
static int
plain_bytes(MPI_Datatype t, int count, size_t *bytes)
{
	int ni, na, nd, comb, size;
	MPI_Aint lb, extent;

	if (count < 0 ||
	    PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
	    comb != MPI_COMBINER_NAMED ||
	    PMPI_Type_size(t, &size) != MPI_SUCCESS ||
	    PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
	    lb != 0 || extent != size || size <= 0)
		return 0;
	*bytes = (size_t)count * (size_t)size;
	return 1;
}

static struct mcomm *
mcomm_of(MPI_Comm c)
{
	struct mcomm *m = NULL;
	int flag = 0;

	if (!g.on || c == MPI_COMM_NULL)
		return NULL;
	if (c == MPI_COMM_WORLD)
		return &g.world;
	if (PMPI_Comm_get_attr(c, g.keyval, &m, &flag) != MPI_SUCCESS || !flag)
		return NULL;
	return m;
}

/* The switch communicator for a call on c, or NULL with the reason
 * counted: the checks every call shares. */
static acis_comm_t *
take(MPI_Comm c, enum acis_mpi_coll k)
{
	struct mcomm *m;

	if (!g.on) {
		g.st.coll[k].fallback[ACIS_MPI_FB_OFF]++;
		return NULL;
	}
	m = mcomm_of(c);
	if (m == NULL || m->ac == NULL) {
		g.st.coll[k].fallback[ACIS_MPI_FB_COMM]++;
		return NULL;
	}
	return m->ac;
}

static int
fallback(enum acis_mpi_coll k, enum acis_mpi_fallback why)
{
	g.st.coll[k].fallback[why]++;
	return 0;
}

/* Under the crossover: every rank has the same byte count for these. */
static int
small(enum acis_mpi_coll k, size_t bytes)
{
	return bytes < g.min_bytes[k] ? fallback(k, ACIS_MPI_FB_SMALL) + 1 : 0;
}

/* A libacis error as the communicator's MPI error (its handler runs:
 * MPI_ERRORS_ARE_FATAL aborts the job, MPI_ERRORS_RETURN returns it). */
static int
failed(MPI_Comm c, enum acis_mpi_coll k, int rc)
{
	g.st.coll[k].failed++;
	if (g.rank >= 0)
		say("rank %d: %s through the switch failed: %s (%s)", g.rank,
		    coll_names[k], acis_strerror(rc), acis_last_error(g.ctx));
	PMPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

static void
done(enum acis_mpi_coll k, size_t bytes, uint64_t t0)
{
	g.st.coll[k].offloaded++;
	g.st.coll[k].bytes += bytes;
	g.st.coll[k].ns += now_ns() - t0;
}

static const void *
in_place(const void *sendbuf)
{
	return sendbuf == MPI_IN_PLACE ? ACIS_IN_PLACE : sendbuf;
}

/* ---- start and end ---------------------------------------------------- */

static int
attr_delete(MPI_Comm c, int keyval, void *val, void *extra)
{
	struct mcomm *m = val;

	(void)c;
	(void)keyval;
	(void)extra;
	if (m == NULL || m->world)
		return MPI_SUCCESS;
	/* MPI_Comm_free is collective: every member frees it on the switch
	 * too; a switch that cannot be reached leaves it to the job's end */
	if (m->ac != NULL && acis_comm_free(&m->ac) != ACIS_OK)
		acis_comm_detach(&m->ac);
	free(m);
	return MPI_SUCCESS;
}

static uint64_t
env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (v == NULL || *v == '\0')
		return dflt;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0') {
		say("%s=%s: want a number of bytes; %llu kept", name, v,
		    (unsigned long long)dflt);
		return dflt;
	}
	return x;
}

/* The crossovers: below them the MPI library is the faster
 * (doc/mpi.md). bcast: Open MPI's eager bcast of a few hundred bytes
 * beats a round trip through the switch's confirmations. */
static void
read_crossovers(void)
{
	static const uint64_t dflt[ACIS_MPI_COLL_MAX] = {
		[ACIS_MPI_BCAST] = 1024,
	};
	uint64_t all = env_u64("ACIS_MPI_MIN_BYTES", UINT64_MAX);
	char name[64];
	unsigned int k, i;

	for (k = 0; k < ACIS_MPI_COLL_MAX; k++) {
		snprintf(name, sizeof(name), "ACIS_MPI_MIN_BYTES_%s",
			 coll_names[k]);
		for (i = 0; name[i] != '\0'; i++)
			if (name[i] >= 'a' && name[i] <= 'z')
				name[i] = (char)(name[i] - 'a' + 'A');
		g.min_bytes[k] = env_u64(name, all != UINT64_MAX ? all :
					 dflt[k]);
	}
}

/* After the MPI library is up: join the switch as this job, every rank
 * or none. */
static void
start(int thread_required)
{
	struct acis_config cfg;
	const char *v = getenv("ACIS_MPI");
	int size, ok, all_ok = 0, rc = ACIS_OK;
	uint32_t job = 0;
	char why[240] = "";

	PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	g.strict = getenv("ACIS_MPI_STRICT") != NULL &&
		   strcmp(getenv("ACIS_MPI_STRICT"), "1") == 0;
	v = getenv("ACIS_MPI_STATS");
	g.stats_print = v == NULL ? 0 : strcmp(v, "all") == 0 ? 2 :
			strcmp(v, "0") != 0;
	read_crossovers();
	v = getenv("ACIS_MPI");
	if (v != NULL && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0))
		return; /* asked for: no word */
	/* the job's id on the switch: rank 0's draw, so two jobs at once
	 * never share one */
	if (g.rank == 0) {
		uint64_t x = now_ns() ^ ((uint64_t)getpid() << 32);

		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		x ^= x >> 32;
		job = 0x40000000u | (uint32_t)(x & 0x3fffffffu);
	}
	PMPI_Bcast(&job, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	acis_config_default(&cfg);
	cfg.job = job;
	cfg.rank = (uint32_t)g.rank;
	cfg.size = (uint32_t)size;
	if (thread_required == MPI_THREAD_MULTIPLE)
		snprintf(why, sizeof(why), "MPI_THREAD_MULTIPLE asked for: "
			 "a libacis context is one thread's at a time");
	else if (getenv("ACIS_SWITCH") == NULL || *getenv("ACIS_SWITCH") == '\0')
		/* named, never assumed (libacis's default is the testbed's):
		 * a program that did not ask for a switch waits for none */
		snprintf(why, sizeof(why), "no switch: set ACIS_SWITCH=IP");
	else if (size < 2)
		snprintf(why, sizeof(why), "one rank: nothing to offload");
	else if ((rc = acis_init(&cfg, &g.ctx)) != ACIS_OK)
		snprintf(why, sizeof(why), "cannot join the switch at %s as "
			 "job %u: %s", cfg.switch_ip, job, acis_init_error());
	ok = why[0] == '\0';
	/* every rank, or none: a rank that offloads while another does not
	 * would wait on a collective the other never joins */
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok) {
		if (g.ctx != NULL) {
			acis_finalize(g.ctx);
			g.ctx = NULL;
		}
		if (why[0] == '\0')
			snprintf(why, sizeof(why), "another rank could not "
				 "join the switch");
		if (g.strict) {
			say("rank %d: %s (ACIS_MPI_STRICT=1)", g.rank, why);
			/* the launcher forwards ranks' stderr on its own
			 * time and MPI_Abort kills them at once (MPICH's
			 * hydra lost the line now and then): a moment first */
			usleep(200000);
			PMPI_Abort(MPI_COMM_WORLD, 1);
		}
		/* once for the job, and from every rank whose own join
		 * failed (its reason is its own) */
		if (g.rank == 0 || rc != ACIS_OK)
			say("rank %d: collectives stay with the MPI library: "
			    "%s", g.rank, why);
		return;
	}
	PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, attr_delete,
				&g.keyval, NULL);
	g.world.ac = acis_comm_world(g.ctx);
	g.world.world = 1;
	g.on = 1;
	g.st.on = 1;
	g.st.job = job;
}

int
MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		start(MPI_THREAD_SINGLE);
	return rc;
}

int
MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		start(required);
	return rc;
}

static void print_stats(void);

int
MPI_Finalize(void)
{
	/* what the program left running finishes first */
	while (g.nb != NULL) {
		struct nbreq *r = g.nb;

		g.nb = r->next;
		if (r->areq != NULL)
			acis_wait(&r->areq);
		r->prev = r->next = NULL;
	}
	if (g.stats_print == 2 || (g.stats_print == 1 && g.rank == 0))
		print_stats();
	if (g.on) {
		g.on = 0;
		acis_finalize(g.ctx);
		g.ctx = NULL;
	}
	if (g.keyval != MPI_KEYVAL_INVALID)
		PMPI_Comm_free_keyval(&g.keyval);
	return PMPI_Finalize();
}

static void
print_stats(void)
{
	unsigned int k, f;

	fprintf(stderr, "libacis-mpi: rank %d, %s", g.rank,
		g.st.on ? "" : "offload off, ");
	if (g.st.on)
		fprintf(stderr, "job %u, %llu communicators on the switch, ",
			g.st.job, (unsigned long long)g.st.comms);
	fprintf(stderr, "calls by collective:\n");
	fprintf(stderr, "  %-20s %10s %14s %10s %7s", "collective",
		"offloaded", "bytes", "avg_us", "failed");
	for (f = 0; f < ACIS_MPI_FB_MAX; f++)
		fprintf(stderr, " %8s", fb_names[f]);
	fprintf(stderr, "\n");
	for (k = 0; k < ACIS_MPI_COLL_MAX; k++) {
		const struct acis_mpi_coll_stats *c = &g.st.coll[k];
		uint64_t fb = 0;

		for (f = 0; f < ACIS_MPI_FB_MAX; f++)
			fb += c->fallback[f];
		if (c->offloaded == 0 && fb == 0 && c->failed == 0)
			continue;
		fprintf(stderr, "  %-20s %10llu %14llu %10.1f %7llu",
			coll_names[k], (unsigned long long)c->offloaded,
			(unsigned long long)c->bytes,
			c->offloaded ? (double)c->ns / 1e3 / (double)c->offloaded
				     : 0.0,
			(unsigned long long)c->failed);
		for (f = 0; f < ACIS_MPI_FB_MAX; f++)
			fprintf(stderr, " %8llu",
				(unsigned long long)c->fallback[f]);
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "  (avg_us: blocking calls; the columns after failed "
		"count calls left to the MPI library, by reason)\n");
}

/* ---- communicators ---------------------------------------------------- */

/* After the MPI library made newcomm (or MPI_COMM_NULL here) from parent,
 * collectively over parent: put it on the switch. */
static void
follow(MPI_Comm parent, MPI_Comm newcomm)
{
	struct mcomm *pm = mcomm_of(parent), *m = NULL;
	acis_comm_t *ac = NULL;
	int color = ACIS_UNDEFINED, key = 0, ok, all_ok = 0, inter = 0;
	int rc;

	if (pm == NULL || pm->ac == NULL)
		return;
	if (newcomm != MPI_COMM_NULL) {
		MPI_Group ng, wg;
		int zero = 0, nsize = 0;

		PMPI_Comm_test_inter(newcomm, &inter);
		PMPI_Comm_size(newcomm, &nsize);
		if (!inter && nsize > 1) {
			PMPI_Comm_rank(newcomm, &key);
			PMPI_Comm_group(newcomm, &ng);
			PMPI_Comm_group(MPI_COMM_WORLD, &wg);
			PMPI_Group_translate_ranks(ng, 1, &zero, wg, &color);
			PMPI_Group_free(&ng);
			PMPI_Group_free(&wg);
		}
	}
	/* every member of the parent takes part, those without a new
	 * communicator (or with one of one rank) as ACIS_UNDEFINED */
	rc = acis_comm_split(pm->ac, color, key, &ac);
	if (newcomm == MPI_COMM_NULL || color == ACIS_UNDEFINED)
		return;
	ok = rc == ACIS_OK && ac != NULL;
	if (ok) {
		m = calloc(1, sizeof(*m));
		ok = m != NULL;
	}
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, newcomm);
	if (!all_ok) {
		if (ac != NULL)
			acis_comm_detach(&ac);
		free(m);
		if (g.rank >= 0 && rc != ACIS_OK)
			say("rank %d: a new communicator stays with the MPI "
			    "library: %s", g.rank, acis_last_error(g.ctx));
		return;
	}
	m->ac = ac;
	PMPI_Comm_set_attr(newcomm, g.keyval, m);
	g.st.comms++;
}

int
MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	int rc = PMPI_Comm_dup(comm, newcomm);

	if (rc == MPI_SUCCESS && g.on)
		follow(comm, *newcomm);
	return rc;
}

int
MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);

	if (rc == MPI_SUCCESS && g.on)
		follow(comm, *newcomm);
	return rc;
}

int
MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	int rc = PMPI_Comm_split(comm, color, key, newcomm);

	if (rc == MPI_SUCCESS && g.on)
		follow(comm, *newcomm);
	return rc;
}

int
MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
		    MPI_Comm *newcomm)
{
	int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);

	if (rc == MPI_SUCCESS && g.on)
		follow(comm, *newcomm);
	return rc;
}

int
MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	int rc = PMPI_Comm_create(comm, group, newcomm);

	if (rc == MPI_SUCCESS && g.on)
		follow(comm, *newcomm);
	return rc;
}

/* The info key acis_offload=false keeps a communicator's collectives
 * with the MPI library (MPI_Comm_set_info is collective: every member
 * stops at once). */
int
MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	int rc = PMPI_Comm_set_info(comm, info);
	char v[16];
	int flag = 0;

	if (rc != MPI_SUCCESS || !g.on || info == MPI_INFO_NULL)
		return rc;
	PMPI_Info_get(info, "acis_offload", (int)sizeof(v) - 1, v, &flag);
	if (flag && (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)) {
		struct mcomm *m = mcomm_of(comm);

		if (m != NULL && !m->world)
			PMPI_Comm_delete_attr(comm, g.keyval);
		else if (m != NULL)
			say("rank %d: acis_offload=false on MPI_COMM_WORLD: "
			    "use ACIS_MPI=off for the whole job", g.rank);
	}
	return rc;
}

/* ---- the checks each call makes before the switch takes it ------------
 * Each counts the reason it says no for, and answers 1 when the switch may
 * take the call, with its size in bytes (this rank's buffer or block). The
 * blocking and non-blocking forms of a collective share them. */

/* A reduction: a mapped type without gaps, an op the switch has for it. */
/* MPI ops with a CGRA program (acis_mpi_op_program), and their
 * numbers at the switch once made. */
#define USEROPS_MAX 64
static struct {
	MPI_Op op;
	char name[ACIS_OP_NAME_LEN];
	uint32_t *w;
	size_t n;
	int id;      /* 0: not made yet */
	int refused; /* the switch refused it: the library's function */
} uops[USEROPS_MAX];
static int n_uops;

int
acis_mpi_op_program(const void *mpi_op, const char *name,
		    const uint32_t *words, size_t n_words)
{
	MPI_Op op;
	int i;

	if (mpi_op == NULL || name == NULL || words == NULL ||
	    n_words == 0 || n_words > ACIS_OP_WORDS_MAX ||
	    strlen(name) == 0 || strlen(name) >= ACIS_OP_NAME_LEN)
		return -1;
	memcpy(&op, mpi_op, sizeof(op));
	for (i = 0; i < n_uops && uops[i].op != op; i++)
		;
	if (i == USEROPS_MAX)
		return -1;
	free(uops[i].w);
	uops[i].w = malloc(n_words * sizeof(*words));
	if (uops[i].w == NULL)
		return -1;
	memcpy(uops[i].w, words, n_words * sizeof(*words));
	uops[i].n = n_words;
	uops[i].op = op;
	uops[i].id = 0;
	uops[i].refused = 0;
	snprintf(uops[i].name, sizeof(uops[i].name), "%s", name);
	if (i == n_uops)
		n_uops++;
	return 0;
}

/* The switch's number of MPI op op, made at its first use here; 0 when
 * it has no program, or the switch refused it (said once). */
static int
user_op_id(MPI_Op op)
{
	enum acis_op id;
	int i;

	for (i = 0; i < n_uops && uops[i].op != op; i++)
		;
	if (i == n_uops || uops[i].refused)
		return 0;
	if (uops[i].id == 0) {
		if (acis_op_create(g.ctx, uops[i].name, uops[i].w, uops[i].n,
				   1, &id) != ACIS_OK) {
			uops[i].refused = 1;
			fprintf(stderr, "libacis-mpi: rank %d: op %s stays on "
				"the hosts: %s\n", g.rank, uops[i].name,
				acis_last_error(g.ctx));
			return 0;
		}
		uops[i].id = (int)id;
	}
	return uops[i].id;
}

/* MPI_Op_free: the program goes with the op (MPI may give its handle to
 * the next op made), and this rank is done with it at the switch. */
int
MPI_Op_free(MPI_Op *op)
{
	int i;

	for (i = 0; op != NULL && i < n_uops; i++) {
		if (uops[i].op != *op)
			continue;
		if (uops[i].id != 0 && g.ctx != NULL)
			acis_op_free(g.ctx, (enum acis_op)uops[i].id);
		free(uops[i].w);
		uops[i] = uops[--n_uops];
		memset(&uops[n_uops], 0, sizeof(uops[n_uops]));
		break;
	}
	return PMPI_Op_free(op);
}

static int
red_check(enum acis_mpi_coll k, MPI_Datatype datatype, MPI_Op op, int count,
	  int *dt, int *aop, size_t *bytes)
{
	int uid = n_uops != 0 ? user_op_id(op) : 0, size = 0;

	if (uid != 0) {
		/* a user op folds elements as bytes: a gapless named type
		 * of 1, 2, 4 or 8 bytes (MPI_2INT, MPI_FLOAT_INT, ...), so
		 * that no chunk splits one */
		if (!plain_bytes(datatype, count, bytes) ||
		    PMPI_Type_size(datatype, &size) != MPI_SUCCESS ||
		    (*dt = INT_OF(size, 0)) == 0)
			return fallback(k, ACIS_MPI_FB_DATATYPE);
		*aop = uid;
		return !small(k, *bytes);
	}
	if ((*dt = reduce_dtype(datatype)) == 0 ||
	    !plain_bytes(datatype, count, bytes))
		return fallback(k, ACIS_MPI_FB_DATATYPE);
	if ((*aop = reduce_op(op, datatype, *dt)) == 0)
		return fallback(k, ACIS_MPI_FB_OP);
	return !small(k, *bytes);
}

/* Bytes moved as they are: a predefined type without gaps. */
static int
move_check(enum acis_mpi_coll k, MPI_Datatype t, int count, size_t *bytes)
{
	if (!plain_bytes(t, count, bytes))
		return fallback(k, ACIS_MPI_FB_DATATYPE);
	return !small(k, *bytes);
}

/* A rooted block collective (scatter, gather): the block this rank names
 * (its own side; the root's other side if it is in place), and at the
 * root the P-block side of the same block size. */
static int
rooted_check(enum acis_mpi_coll k, int is_root, const void *mine, int count,
	     MPI_Datatype t, int ocount, MPI_Datatype ot, size_t *bytes)
{
	size_t ob;

	if (!plain_bytes(mine != MPI_IN_PLACE ? t : ot,
			 mine != MPI_IN_PLACE ? count : ocount, bytes) ||
	    (is_root && (!plain_bytes(ot, ocount, &ob) || ob != *bytes)))
		return fallback(k, ACIS_MPI_FB_DATATYPE);
	return !small(k, *bytes);
}

/* allgather and alltoall (k): every block the receive side's size, the
 * send side alike unless in place. */
static int
blocks_check(enum acis_mpi_coll k, const void *sendbuf, int sendcount,
	     MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
	     size_t *bytes)
{
	size_t sb;

	if (!plain_bytes(recvtype, recvcount, bytes) ||
	    (sendbuf != MPI_IN_PLACE &&
	     (!plain_bytes(sendtype, sendcount, &sb) || sb != *bytes)))
		return fallback(k, ACIS_MPI_FB_DATATYPE);
	return !small(k, *bytes);
}

/* ---- blocking collectives --------------------------------------------- */

int
MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
	      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_ALLREDUCE;
	acis_comm_t *ac = take(comm, k);
	int dt, aop, rc;
	size_t bytes;
	uint64_t t0;

	if (ac == NULL || !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op,
				      comm);
	t0 = now_ns();
	rc = acis_allreduce(in_place(sendbuf), recvbuf, (size_t)count,
			    (enum acis_dtype)dt, (enum acis_op)aop, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE;
	acis_comm_t *ac = take(comm, k);
	int dt, aop, rc;
	size_t bytes;
	uint64_t t0;

	if (ac == NULL || !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root,
				   comm);
	t0 = now_ns();
	rc = acis_reduce(in_place(sendbuf), recvbuf, (size_t)count,
			 (enum acis_dtype)dt, (enum acis_op)aop, root, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
	  MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_BCAST;
	acis_comm_t *ac = take(comm, k);
	size_t bytes;
	uint64_t t0;
	int rc;

	if (ac == NULL || !move_check(k, datatype, count, &bytes))
		return PMPI_Bcast(buffer, count, datatype, root, comm);
	t0 = now_ns();
	rc = acis_bcast(buffer, bytes, ACIS_UINT8, root, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	    MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_SCATTER;
	acis_comm_t *ac = take(comm, k);
	size_t bytes;
	uint64_t t0;
	int rc, me = ac != NULL ? acis_comm_rank(ac) : 0;

	if (ac == NULL || !rooted_check(k, me == root, recvbuf, recvcount,
					recvtype, sendcount, sendtype, &bytes))
		return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf,
				    recvcount, recvtype, root, comm);
	t0 = now_ns();
	/* MPI's in-place root keeps its block in the send buffer, which
	 * libacis's in-place scatter names as the receive side */
	if (me == root && recvbuf == MPI_IN_PLACE)
		rc = acis_scatter(ACIS_IN_PLACE, (void *)(uintptr_t)sendbuf,
				  bytes, ACIS_UINT8, root, ac);
	else
		rc = acis_scatter(sendbuf, recvbuf, bytes, ACIS_UINT8, root,
				  ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	   MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_GATHER;
	acis_comm_t *ac = take(comm, k);
	size_t bytes;
	uint64_t t0;
	int rc, me = ac != NULL ? acis_comm_rank(ac) : 0;

	if (ac == NULL || !rooted_check(k, me == root, sendbuf, sendcount,
					sendtype, recvcount, recvtype, &bytes))
		return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf,
				   recvcount, recvtype, root, comm);
	t0 = now_ns();
	rc = acis_gather(in_place(sendbuf), recvbuf, bytes, ACIS_UINT8, root,
			 ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

/* allgather and alltoall (k): blocks of the same bytes moved as bytes,
 * by the switch (acis) or, when it cannot, the library (pmpi). */
typedef int (*blocks_pmpi_fn)(const void *, int, MPI_Datatype, void *, int,
			      MPI_Datatype, MPI_Comm);
typedef int (*blocks_acis_fn)(const void *, void *, size_t, enum acis_dtype,
			      acis_comm_t *);

static int
blocks_call(enum acis_mpi_coll k, blocks_pmpi_fn pmpi, blocks_acis_fn acis,
	    const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	acis_comm_t *ac = take(comm, k);
	size_t bytes;
	uint64_t t0;
	int rc;

	if (ac == NULL || !blocks_check(k, sendbuf, sendcount, sendtype,
					recvcount, recvtype, &bytes))
		return pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount,
			    recvtype, comm);
	t0 = now_ns();
	rc = acis(in_place(sendbuf), recvbuf, bytes, ACIS_UINT8, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	      void *recvbuf, int recvcount, MPI_Datatype recvtype,
	      MPI_Comm comm)
{
	return blocks_call(ACIS_MPI_ALLGATHER, PMPI_Allgather, acis_allgather,
			   sendbuf, sendcount, sendtype, recvbuf, recvcount,
			   recvtype, comm);
}

int
MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	     void *recvbuf, int recvcount, MPI_Datatype recvtype,
	     MPI_Comm comm)
{
	return blocks_call(ACIS_MPI_ALLTOALL, PMPI_Alltoall, acis_alltoall,
			   sendbuf, sendcount, sendtype, recvbuf, recvcount,
			   recvtype, comm);
}

int
MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE_SCATTER_BLOCK;
	acis_comm_t *ac = take(comm, k);
	int dt, aop, rc;
	size_t bytes;
	uint64_t t0;

	if (ac == NULL || !red_check(k, datatype, op, recvcount, &dt, &aop,
				    &bytes))
		return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount,
						 datatype, op, comm);
	t0 = now_ns();
	rc = acis_reduce_scatter(in_place(sendbuf), recvbuf, (size_t)recvcount,
				 (enum acis_dtype)dt, (enum acis_op)aop, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

/* Equal counts (every rank has the same array): the count, else -1. */
static int
equal_counts(const int recvcounts[], acis_comm_t *ac)
{
	int n = acis_comm_size(ac), i;

	for (i = 1; i < n; i++)
		if (recvcounts[i] != recvcounts[0])
			return -1;
	return recvcounts[0];
}

int
MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
		   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE_SCATTER;
	acis_comm_t *ac = take(comm, k);
	int dt, aop, rc, count = -1;
	size_t bytes;
	uint64_t t0;

	if (ac != NULL && (count = equal_counts(recvcounts, ac)) < 0)
		fallback(k, ACIS_MPI_FB_COUNTS);
	if (ac == NULL || count < 0 ||
	    !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts,
					   datatype, op, comm);
	t0 = now_ns();
	rc = acis_reduce_scatter(in_place(sendbuf), recvbuf, (size_t)count,
				 (enum acis_dtype)dt, (enum acis_op)aop, ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, bytes, t0);
	return MPI_SUCCESS;
}

int
MPI_Barrier(MPI_Comm comm)
{
	const enum acis_mpi_coll k = ACIS_MPI_BARRIER;
	acis_comm_t *ac = take(comm, k);
	uint64_t t0;
	int rc;

	if (ac == NULL)
		return PMPI_Barrier(comm);
	t0 = now_ns();
	rc = acis_barrier(ac);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	done(k, 0, t0);
	return MPI_SUCCESS;
}

/* ---- non-blocking collectives ----------------------------------------- */

static int
gq_query(void *extra, MPI_Status *st)
{
	struct nbreq *r = extra;

	PMPI_Status_set_elements(st, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	st->MPI_ERROR = r->err;
	return r->err;
}

static int
gq_free(void *extra)
{
	struct nbreq *r = extra;

	if (r->prev != NULL)
		r->prev->next = r->next;
	else if (g.nb == r)
		g.nb = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	if (r->areq != NULL) /* freed unfinished (MPI_Finalize's way) */
		acis_wait(&r->areq);
	free(r);
	return MPI_SUCCESS;
}

static int
gq_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS; /* a collective cannot be cancelled (MPI 3.1) */
}

/* A started libacis request as the program's MPI_Request. */
static int
nb_start(enum acis_mpi_coll k, acis_req_t *areq, size_t bytes,
	 MPI_Request *request)
{
	struct nbreq *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		acis_wait(&areq);
		return MPI_ERR_NO_MEM;
	}
	r->areq = areq;
	r->coll = k;
	r->err = MPI_SUCCESS;
	PMPI_Grequest_start(gq_query, gq_free, gq_cancel, r, &r->mreq);
	r->next = g.nb;
	if (g.nb != NULL)
		g.nb->prev = r;
	g.nb = r;
	*request = r->mreq;
	g.st.coll[k].offloaded++;
	g.st.coll[k].bytes += bytes;
	return MPI_SUCCESS;
}

static struct nbreq *
nb_find(MPI_Request q)
{
	struct nbreq *r;

	if (q == MPI_REQUEST_NULL)
		return NULL;
	for (r = g.nb; r != NULL; r = r->next)
		if (r->mreq == q)
			return r;
	return NULL;
}

/* How many of reqs are ours. */
static int
nb_find_any(int n, MPI_Request reqs[])
{
	int i, k = 0;

	if (g.nb == NULL)
		return 0;
	for (i = 0; i < n; i++)
		k += nb_find(reqs[i]) != NULL;
	return k;
}

/* Progress one of ours once; complete it for the MPI library when it
 * finished. 1 when it is complete. */
static int
nb_poll(struct nbreq *r)
{
	int fin = 0, rc;

	if (r->completed)
		return 1;
	rc = acis_test(&r->areq, &fin);
	if (rc != ACIS_OK) {
		if (r->areq != NULL)
			acis_wait(&r->areq); /* frees it, the error again */
		g.st.coll[r->coll].failed++;
		say("rank %d: non-blocking %s through the switch failed: %s "
		    "(%s)", g.rank, coll_names[r->coll], acis_strerror(rc),
		    acis_last_error(g.ctx));
		r->err = MPI_ERR_OTHER;
		fin = 1;
	}
	if (fin) {
		r->completed = 1;
		PMPI_Grequest_complete(r->mreq);
	}
	return fin;
}

/* Progress ours among reqs once: how many of ours are still running. */
static int
nb_poll_all(int n, MPI_Request reqs[])
{
	int i, running = 0;
	struct nbreq *r;

	if (g.nb == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if ((r = nb_find(reqs[i])) != NULL && !nb_poll(r))
			running++;
	return running;
}

/* Between polls: the MPI library's own progress, then the core to
 * others (a host waiting must not spin). */
static void
nb_pause(void)
{
	int flag;

	PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
		    MPI_STATUS_IGNORE);
	sched_yield();
}

int
MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	struct nbreq *r = nb_find(*request);

	if (r != NULL)
		while (!nb_poll(r))
			nb_pause();
	return PMPI_Wait(request, status);
}

int
MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	struct nbreq *r = nb_find(*request);

	if (r != NULL)
		nb_poll(r);
	return PMPI_Test(request, flag, status);
}

int
MPI_Waitall(int count, MPI_Request array_of_requests[],
	    MPI_Status array_of_statuses[])
{
	while (nb_poll_all(count, array_of_requests) != 0)
		nb_pause();
	return PMPI_Waitall(count, array_of_requests, array_of_statuses);
}

int
MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
	    MPI_Status array_of_statuses[])
{
	nb_poll_all(count, array_of_requests);
	return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
}

int
MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
	    MPI_Status *status)
{
	int flag = 0, rc;

	if (nb_find_any(count, array_of_requests) == 0)
		return PMPI_Waitany(count, array_of_requests, index, status);
	for (;;) {
		nb_poll_all(count, array_of_requests);
		rc = PMPI_Testany(count, array_of_requests, index, &flag,
				  status);
		if (rc != MPI_SUCCESS || flag)
			return rc;
		nb_pause();
	}
}

int
MPI_Testany(int count, MPI_Request array_of_requests[], int *index,
	    int *flag, MPI_Status *status)
{
	nb_poll_all(count, array_of_requests);
	return PMPI_Testany(count, array_of_requests, index, flag, status);
}

int
MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
	     int array_of_indices[], MPI_Status array_of_statuses[])
{
	int rc;

	if (nb_find_any(incount, array_of_requests) == 0)
		return PMPI_Waitsome(incount, array_of_requests, outcount,
				     array_of_indices, array_of_statuses);
	for (;;) {
		nb_poll_all(incount, array_of_requests);
		rc = PMPI_Testsome(incount, array_of_requests, outcount,
				   array_of_indices, array_of_statuses);
		if (rc != MPI_SUCCESS || *outcount != 0)
			return rc;
		nb_pause();
	}
}

int
MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
	     int array_of_indices[], MPI_Status array_of_statuses[])
{
	nb_poll_all(incount, array_of_requests);
	return PMPI_Testsome(incount, array_of_requests, outcount,
			     array_of_indices, array_of_statuses);
}

/* The non-blocking forms: the blocking ones' checks, then a request. */

int
MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
	       MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_ALLREDUCE;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	int dt, aop, rc;
	size_t bytes;

	if (ac == NULL || !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op,
				       comm, request);
	rc = acis_iallreduce(in_place(sendbuf), recvbuf, (size_t)count,
			     (enum acis_dtype)dt, (enum acis_op)aop, ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
	    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
	    MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	int dt, aop, rc;
	size_t bytes;

	if (ac == NULL || !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root,
				    comm, request);
	rc = acis_ireduce(in_place(sendbuf), recvbuf, (size_t)count,
			  (enum acis_dtype)dt, (enum acis_op)aop, root, ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
	   MPI_Comm comm, MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_BCAST;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	size_t bytes;
	int rc;

	if (ac == NULL || !move_check(k, datatype, count, &bytes))
		return PMPI_Ibcast(buffer, count, datatype, root, comm,
				   request);
	rc = acis_ibcast(buffer, bytes, ACIS_UINT8, root, ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	     MPI_Comm comm, MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_SCATTER;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	size_t bytes;
	int rc, me = ac != NULL ? acis_comm_rank(ac) : 0;

	if (ac == NULL || !rooted_check(k, me == root, recvbuf, recvcount,
					recvtype, sendcount, sendtype, &bytes))
		return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf,
				     recvcount, recvtype, root, comm, request);
	if (me == root && recvbuf == MPI_IN_PLACE)
		rc = acis_iscatter(ACIS_IN_PLACE, (void *)(uintptr_t)sendbuf,
				   bytes, ACIS_UINT8, root, ac, &q);
	else
		rc = acis_iscatter(sendbuf, recvbuf, bytes, ACIS_UINT8, root,
				   ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	    MPI_Comm comm, MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_GATHER;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	size_t bytes;
	int rc, me = ac != NULL ? acis_comm_rank(ac) : 0;

	if (ac == NULL || !rooted_check(k, me == root, sendbuf, sendcount,
					sendtype, recvcount, recvtype, &bytes))
		return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf,
				    recvcount, recvtype, root, comm, request);
	rc = acis_igather(in_place(sendbuf), recvbuf, bytes, ACIS_UINT8, root,
			  ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

/* The same, non-blocking. */
typedef int (*iblocks_pmpi_fn)(const void *, int, MPI_Datatype, void *, int,
			       MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int (*iblocks_acis_fn)(const void *, void *, size_t, enum acis_dtype,
			       acis_comm_t *, acis_req_t **);

static int
iblocks_call(enum acis_mpi_coll k, iblocks_pmpi_fn pmpi, iblocks_acis_fn acis,
	     const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	     void *recvbuf, int recvcount, MPI_Datatype recvtype,
	     MPI_Comm comm, MPI_Request *request)
{
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	size_t bytes;
	int rc;

	if (ac == NULL || !blocks_check(k, sendbuf, sendcount, sendtype,
					recvcount, recvtype, &bytes))
		return pmpi(sendbuf, sendcount, sendtype, recvbuf, recvcount,
			    recvtype, comm, request);
	rc = acis(in_place(sendbuf), recvbuf, bytes, ACIS_UINT8, ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	       void *recvbuf, int recvcount, MPI_Datatype recvtype,
	       MPI_Comm comm, MPI_Request *request)
{
	return iblocks_call(ACIS_MPI_ALLGATHER, PMPI_Iallgather,
			    acis_iallgather, sendbuf, sendcount, sendtype,
			    recvbuf, recvcount, recvtype, comm, request);
}

int
MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	      void *recvbuf, int recvcount, MPI_Datatype recvtype,
	      MPI_Comm comm, MPI_Request *request)
{
	return iblocks_call(ACIS_MPI_ALLTOALL, PMPI_Ialltoall, acis_ialltoall,
			    sendbuf, sendcount, sendtype, recvbuf, recvcount,
			    recvtype, comm, request);
}

int
MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE_SCATTER_BLOCK;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	int dt, aop, rc;
	size_t bytes;

	if (ac == NULL || !red_check(k, datatype, op, recvcount, &dt, &aop,
				    &bytes))
		return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount,
						  datatype, op, comm, request);
	rc = acis_ireduce_scatter(in_place(sendbuf), recvbuf, (size_t)recvcount,
				  (enum acis_dtype)dt, (enum acis_op)aop, ac,
				  &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
		    const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
		    MPI_Comm comm, MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_REDUCE_SCATTER;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	int dt, aop, rc, count = -1;
	size_t bytes;

	if (ac != NULL && (count = equal_counts(recvcounts, ac)) < 0)
		fallback(k, ACIS_MPI_FB_COUNTS);
	if (ac == NULL || count < 0 ||
	    !red_check(k, datatype, op, count, &dt, &aop, &bytes))
		return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts,
					    datatype, op, comm, request);
	rc = acis_ireduce_scatter(in_place(sendbuf), recvbuf, (size_t)count,
				  (enum acis_dtype)dt, (enum acis_op)aop, ac,
				  &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, bytes, request);
}

int
MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	const enum acis_mpi_coll k = ACIS_MPI_BARRIER;
	acis_comm_t *ac = take(comm, k);
	acis_req_t *q = NULL;
	int rc;

	if (ac == NULL)
		return PMPI_Ibarrier(comm, request);
	rc = acis_ibarrier(ac, &q);
	if (rc != ACIS_OK)
		return failed(comm, k, rc);
	return nb_start(k, q, 0, request);
}
