/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The part of libacis's API that acis-bench calls, done with MPI, so that
 * one benchmark source measures both: linked with tools/acis-bench.c
 * instead of libacis, acis-bench times MPI_Allreduce, MPI_Bcast, ... with
 * exactly the method, iterations, statistics and output it uses for the
 * switch (doc/benchmarks.md).
 *
 *   mpicc -O2 -DACIS_BENCH_MPI -Ilib/client -Ilib/proto \
 *       tools/acis-bench.c bench/acis_over_mpi.c lib/proto/proto.c
 *   mpirun -np P ./acis-bench-mpi [acis-bench options]
 *
 * The rank and size come from MPI (acis_config_default initialises MPI);
 * --switch, --job and --timeout are accepted and ignored: MPI has no
 * per-call timeout, its errors abort the job.
 *
 * --op-program FILE names a user op: over MPI it is the host function of
 * FILE's base name (satsum_u8, satsum_i8, maxloc: what the example CGRA
 * programs compute), registered with MPI_Op_create, as an MPI program
 * gives MPI a user function; the program's words are not read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "acis.h"

struct acis_ctx {
	int dummy;
};

struct acis_comm {
	MPI_Comm comm;
};

static struct acis_ctx the_ctx;
static struct acis_comm world;
static char last_error[MPI_MAX_ERROR_STRING + 64];

void
acis_config_default(struct acis_config *cfg)
{
	int inited = 0, rank = 0, size = 1;

	memset(cfg, 0, sizeof(*cfg));
	MPI_Initialized(&inited);
	if (!inited)
		MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	cfg->switch_ip = "(MPI)";
	cfg->rank = (uint32_t)rank;
	cfg->size = (uint32_t)size;
}

int
acis_init(const struct acis_config *cfg, acis_ctx_t **ctx)
{
	int rank, size;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (cfg->rank != (uint32_t)rank || cfg->size != (uint32_t)size) {
		/* acis-bench prints it (acis_init_error) */
		snprintf(last_error, sizeof(last_error), "--rank/--size %u/%u "
			 "disagree with MPI's %d/%d; leave them out",
			 cfg->rank, cfg->size, rank, size);
		return ACIS_ERR_INVAL;
	}
	/* return codes instead of aborting, so acis-bench reports them */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	world.comm = MPI_COMM_WORLD;
	*ctx = &the_ctx;
	return ACIS_OK;
}

const char *
acis_init_error(void)
{
	return last_error;
}

int
acis_finalize(acis_ctx_t *ctx)
{
	(void)ctx;
	return MPI_Finalize() == MPI_SUCCESS ? ACIS_OK : ACIS_ERR_SYS;
}

acis_comm_t *
acis_comm_world(acis_ctx_t *ctx)
{
	(void)ctx;
	return &world;
}

static MPI_Datatype
mpi_type(enum acis_dtype dt)
{
	switch (dt) {
	case ACIS_INT32:
		return MPI_INT32_T;
	case ACIS_INT64:
		return MPI_INT64_T;
	case ACIS_UINT32:
		return MPI_UINT32_T;
	case ACIS_UINT64:
		return MPI_UINT64_T;
	case ACIS_FLOAT32:
		return MPI_FLOAT;
	case ACIS_FLOAT64:
		return MPI_DOUBLE;
	case ACIS_INT8:
		return MPI_INT8_T;
	case ACIS_UINT8:
		return MPI_UINT8_T;
	case ACIS_INT16:
		return MPI_INT16_T;
	case ACIS_UINT16:
		return MPI_UINT16_T;
	default: /* float16 and bfloat16 have no MPI type */
		return MPI_DATATYPE_NULL;
	}
}

/* ---- user ops: the host functions an MPI program would write ---- */

static void
satsum_u8_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const uint8_t *a = in;
	uint8_t *b = inout;
	int i, n = *len;

	(void)dt;
	for (i = 0; i < n; i++) {
		unsigned int v = (unsigned int)a[i] + b[i];

		b[i] = (uint8_t)(v > 255 ? 255 : v);
	}
}

static void
satsum_i8_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const int8_t *a = in;
	int8_t *b = inout;
	int i, n = *len;

	(void)dt;
	for (i = 0; i < n; i++) {
		int v = a[i] + b[i];

		b[i] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
	}
}

/* (float value, int32 index) pairs, 8 bytes each (acis-bench runs maxloc
 * on uint64): MPI_MAXLOC's rule as a user writes it (larger value;
 * between equal values the smaller index) */
static void
maxloc_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const unsigned char *a = in;
	unsigned char *b = inout;
	int i, n = *len;

	(void)dt;
	for (i = 0; i < n; i++, a += 8, b += 8) {
		float av, bv;
		int32_t ai, bi;

		memcpy(&av, a, 4);
		memcpy(&ai, a + 4, 4);
		memcpy(&bv, b, 4);
		memcpy(&bi, b + 4, 4);
		if (av > bv || (av == bv && ai < bi))
			memcpy(b, a, 8);
	}
}

static const struct {
	const char *name;
	MPI_User_function *fn;
} host_fns[] = {
	{"satsum_u8", satsum_u8_fn},
	{"satsum_i8", satsum_i8_fn},
	{"maxloc", maxloc_fn},
};

static MPI_Op user_ops[256 - ACIS_OP_USER_MIN];
static unsigned int n_user_ops;

int
acis_op_create(acis_ctx_t *ctx, const char *name, const uint32_t *words,
	       size_t n_words, int commutative, enum acis_op *op)
{
	size_t k;

	(void)ctx;
	(void)words;
	(void)n_words;
	for (k = 0; k < sizeof(host_fns) / sizeof(host_fns[0]); k++)
		if (strcmp(name, host_fns[k].name) == 0)
			break;
	if (k == sizeof(host_fns) / sizeof(host_fns[0])) {
		snprintf(last_error, sizeof(last_error), "over MPI, a user op "
			 "is a host function: satsum_u8, satsum_i8 or maxloc, "
			 "not '%s'", name);
		return ACIS_ERR_INVAL;
	}
	if (n_user_ops == sizeof(user_ops) / sizeof(user_ops[0]))
		return ACIS_ERR_NOMEM;
	if (MPI_Op_create(host_fns[k].fn, commutative,
			  &user_ops[n_user_ops]) != MPI_SUCCESS)
		return ACIS_ERR_SYS;
	*op = (enum acis_op)(ACIS_OP_USER_MIN + n_user_ops++);
	return ACIS_OK;
}

int
acis_op_free(acis_ctx_t *ctx, enum acis_op op)
{
	(void)ctx;
	if (op < ACIS_OP_USER_MIN || op - ACIS_OP_USER_MIN >= (int)n_user_ops)
		return ACIS_ERR_INVAL;
	return MPI_Op_free(&user_ops[op - ACIS_OP_USER_MIN]) == MPI_SUCCESS ?
		       ACIS_OK : ACIS_ERR_SYS;
}

static MPI_Op
mpi_op(enum acis_op op)
{
	if (op >= ACIS_OP_USER_MIN && op - ACIS_OP_USER_MIN < (int)n_user_ops)
		return user_ops[op - ACIS_OP_USER_MIN];
	switch (op) {
	case ACIS_OP_SUM:
		return MPI_SUM;
	case ACIS_OP_PROD:
		return MPI_PROD;
	case ACIS_OP_MIN:
		return MPI_MIN;
	case ACIS_OP_MAX:
		return MPI_MAX;
	case ACIS_OP_BAND:
		return MPI_BAND;
	case ACIS_OP_BOR:
		return MPI_BOR;
	case ACIS_OP_BXOR:
		return MPI_BXOR;
	default:
		return MPI_OP_NULL;
	}
}

static int
rc(int e, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (e == MPI_SUCCESS)
		return ACIS_OK;
	MPI_Error_string(e, s, &len);
	snprintf(last_error, sizeof(last_error), "%s: %s", what, s);
	return ACIS_ERR_SYS;
}

static int
type_ok(enum acis_dtype dt)
{
	if (mpi_type(dt) != MPI_DATATYPE_NULL)
		return 1;
	snprintf(last_error, sizeof(last_error), "%s has no MPI datatype",
		 acis_dtype_name(dt));
	return 0;
}

/* counts above INT_MAX do not occur: acis-bench stops at 4 GiB of bytes
 * and MPI's int counts take up to 2^31 - 1 elements */
int
acis_allreduce(const void *sendbuf, void *recvbuf, size_t count,
	       enum acis_dtype dt, enum acis_op op, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Allreduce(sendbuf, recvbuf, (int)count, mpi_type(dt),
				mpi_op(op), comm->comm), "MPI_Allreduce");
}

int
acis_reduce(const void *sendbuf, void *recvbuf, size_t count,
	    enum acis_dtype dt, enum acis_op op, int root, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Reduce(sendbuf, recvbuf, (int)count, mpi_type(dt),
			     mpi_op(op), root, comm->comm), "MPI_Reduce");
}

int
acis_bcast(void *buf, size_t count, enum acis_dtype dt, int root,
	   acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Bcast(buf, (int)count, mpi_type(dt), root, comm->comm),
		  "MPI_Bcast");
}

int
acis_scatter(const void *sendbuf, void *recvbuf, size_t count,
	     enum acis_dtype dt, int root, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Scatter(sendbuf, (int)count, mpi_type(dt), recvbuf,
			      (int)count, mpi_type(dt), root, comm->comm),
		  "MPI_Scatter");
}

int
acis_gather(const void *sendbuf, void *recvbuf, size_t count,
	    enum acis_dtype dt, int root, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Gather(sendbuf, (int)count, mpi_type(dt), recvbuf,
			     (int)count, mpi_type(dt), root, comm->comm),
		  "MPI_Gather");
}

int
acis_allgather(const void *sendbuf, void *recvbuf, size_t count,
	       enum acis_dtype dt, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Allgather(sendbuf, (int)count, mpi_type(dt), recvbuf,
				(int)count, mpi_type(dt), comm->comm),
		  "MPI_Allgather");
}

int
acis_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount,
		    enum acis_dtype dt, enum acis_op op, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Reduce_scatter_block(sendbuf, recvbuf, (int)recvcount,
					   mpi_type(dt), mpi_op(op),
					   comm->comm),
		  "MPI_Reduce_scatter_block");
}

int
acis_alltoall(const void *sendbuf, void *recvbuf, size_t count,
	      enum acis_dtype dt, acis_comm_t *comm)
{
	if (!type_ok(dt))
		return ACIS_ERR_INVAL;
	return rc(MPI_Alltoall(sendbuf, (int)count, mpi_type(dt), recvbuf,
			       (int)count, mpi_type(dt), comm->comm),
		  "MPI_Alltoall");
}

int
acis_barrier(acis_comm_t *comm)
{
	return rc(MPI_Barrier(comm->comm), "MPI_Barrier");
}

const char *
acis_strerror(int err)
{
	switch (err) {
	case ACIS_OK:
		return "ok";
	case ACIS_ERR_INVAL:
		return "invalid argument";
	default:
		return "MPI error";
	}
}

const char *
acis_last_error(const acis_ctx_t *ctx)
{
	(void)ctx;
	return last_error;
}
