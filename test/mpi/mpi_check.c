/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_check: an ordinary MPI program (mpi.h only) that makes every
 * collective libacis-mpi intercepts, on every datatype and op it maps, at
 * several sizes, on several communicators (world, dup, split, split_type,
 * create), blocking and non-blocking (completed by MPI_Wait, Waitall,
 * Waitany, Testall and Testany on arrays that also hold the MPI library's
 * own point-to-point requests), in place and not, and compares each
 * result bit for bit with the same call made through the MPI library's
 * own PMPI_ entry point in the same run. It also makes the calls the
 * layer must leave to the library (a derived type, MPI_MAXLOC, a user
 * op, MPI_LAND, unequal reduce_scatter counts) and checks those too.
 *
 * Values are small integers (in floats too), so every summation order
 * gives the same bits: the switch folds in rank order, the MPI library in
 * its own.
 *
 *   mpirun -np 4 -x LD_PRELOAD=libacis-mpi-openmpi.so -x ACIS_SWITCH=IP \
 *       mpi_check [--expect-offload] [--max-count N] [--quick]
 *   mpi_check --soak N     N allreduces of 16 MiB on the world, for a
 *                          test that kills a rank on the way; each rank
 *                          writes its pid to $MPI_CHECK_PIDS/rankR.pid
 *
 * With libacis-mpi loaded (found with dlsym, nothing linked), rank 0 also
 * reports how many calls the switch took; --expect-offload fails the run
 * if it took none, or if the library is not loaded. Exit 0 when every
 * check passed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

struct dtype {
	MPI_Datatype t;
	const char *name;
	int size;
	int is_float;
	int is_signed;
};

static struct dtype types[32];
static int n_types;
static int me, P;
/* statuses nobody reads (MPI_STATUSES_IGNORE trips GCC 12's bounds
 * check through MPICH's prototypes) */
static MPI_Status st3[3];
static long checks, bad;
static int max_count = 5000;

static void
add_type(MPI_Datatype t, const char *name, int is_float, int is_signed)
{
	int size;

	MPI_Type_size(t, &size);
	types[n_types++] = (struct dtype){t, name, size, is_float, is_signed};
}

static void
fill(void *buf, const struct dtype *d, int count, int seed, MPI_Op op)
{
	unsigned char *b = buf;
	int i, k;

	for (i = 0; i < count; i++) {
		/* products stay small: 1 or 2; others small integers */
		long v = op == MPI_PROD ? 1 + ((i + seed) % 5 == 0) :
			 (long)((i * 7 + seed * 13) % 23) - (d->is_signed ||
							   d->is_float ? 11 : 0);

		if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
			v = (long)((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull >>
				   (seed % 7 + 3));
		if (d->is_float && d->size == 4) {
			float f = (float)v;
			memcpy(b + (size_t)i * 4, &f, 4);
		} else if (d->is_float && d->size == 8) {
			double f = (double)v;
			memcpy(b + (size_t)i * 8, &f, 8);
		} else {
			for (k = 0; k < d->size; k++)
				b[(size_t)i * d->size + k] =
					(unsigned char)((uint64_t)v >> (8 * k));
		}
	}
}

static void
check(int ok, const char *what, const char *tname, const char *opname,
      int count, MPI_Comm comm)
{
	int all = 0, csize;

	checks++;
	MPI_Comm_size(comm, &csize);
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!ok) {
		bad++;
		fprintf(stderr, "mpi_check: rank %d: MISMATCH %s %s %s count "
			"%d (comm of %d)\n", me, what, tname, opname, count,
			csize);
	}
}

static const struct {
	MPI_Op op;
	const char *name;
	int ints_only;
} ops[] = {
	{MPI_SUM, "sum", 0}, {MPI_PROD, "prod", 0}, {MPI_MIN, "min", 0},
	{MPI_MAX, "max", 0}, {MPI_BAND, "band", 1}, {MPI_BOR, "bor", 1},
	{MPI_BXOR, "bxor", 1},
};

/* the reductions on one communicator */
static void
reductions(MPI_Comm comm, const int *counts, int n_counts)
{
	int csize, crank, ti, oi, ci, root = 0;

	MPI_Comm_size(comm, &csize);
	MPI_Comm_rank(comm, &crank);
	for (ti = 0; ti < n_types; ti++)
		for (oi = 0; oi < (int)(sizeof(ops) / sizeof(ops[0])); oi++)
			for (ci = 0; ci < n_counts; ci++) {
				const struct dtype *d = &types[ti];
				int count = counts[ci];
				size_t nb = (size_t)count * (size_t)d->size;
				size_t all = nb * (size_t)csize;
				unsigned char *s, *r1, *r2, *ip;
				int *rc = malloc(sizeof(int) * (size_t)csize);
				MPI_Request q[3];
				int peer = (crank + 1) % csize, from =
					(crank + csize - 1) % csize, tok = crank, got = -1;
				int i, ok;

				/* MPI defines no bitwise ops on floats and
				 * only bitwise ones on MPI_BYTE */
				if ((ops[oi].ints_only && d->is_float) ||
				    (!ops[oi].ints_only && d->t == MPI_BYTE))
					continue;
				s = malloc(all + 1);
				r1 = malloc(all + 1);
				r2 = malloc(all + 1);
				ip = malloc(all + 1);
				fill(s, d, count * csize, crank + 1, ops[oi].op);
				/* allreduce, then in place */
				memset(r1, 0xa5, nb);
				memset(r2, 0x5a, nb);
				MPI_Allreduce(s, r1, count, d->t, ops[oi].op, comm);
				PMPI_Allreduce(s, r2, count, d->t, ops[oi].op, comm);
				check(memcmp(r1, r2, nb) == 0, "allreduce", d->name,
				      ops[oi].name, count, comm);
				memcpy(ip, s, nb);
				MPI_Allreduce(MPI_IN_PLACE, ip, count, d->t,
					      ops[oi].op, comm);
				check(memcmp(ip, r2, nb) == 0, "allreduce in place",
				      d->name, ops[oi].name, count, comm);
				/* reduce, the root turning */
				root = (root + 1) % csize;
				memset(r1, 0xa5, nb);
				MPI_Reduce(s, r1, count, d->t, ops[oi].op, root, comm);
				/* in place at root 0: MPICH 4.0.2's own
				 * MPI_Reduce in place at another root crashes
				 * (4099 floats, 4 ranks), and the check needs
				 * the library's answer */
				if (crank == 0) {
					memcpy(ip, s, nb);
					MPI_Reduce(MPI_IN_PLACE, ip, count, d->t,
						   ops[oi].op, 0, comm);
				} else {
					MPI_Reduce(s, ip, count, d->t, ops[oi].op,
						   0, comm);
				}
				check((crank != root || memcmp(r1, r2, nb) == 0) &&
				      (crank != 0 || memcmp(ip, r2, nb) == 0),
				      "reduce", d->name, ops[oi].name, count, comm);
				/* non-blocking allreduce in one array with the
				 * library's own ring exchange */
				memset(r1, 0xa5, nb);
				MPI_Iallreduce(s, r1, count, d->t, ops[oi].op, comm,
					       &q[0]);
				MPI_Irecv(&got, 1, MPI_INT, from, 7, comm, &q[1]);
				MPI_Isend(&tok, 1, MPI_INT, peer, 7, comm, &q[2]);
				MPI_Waitall(3, q, st3);
				check(memcmp(r1, r2, nb) == 0 && got == from,
				      "iallreduce+waitall", d->name, ops[oi].name,
				      count, comm);
				/* ireduce completed by Testany/Test loops */
				memset(r1, 0xa5, nb);
				MPI_Ireduce(s, r1, count, d->t, ops[oi].op, root,
					    comm, &q[0]);
				for (;;) {
					int idx, flag = 0;

					MPI_Testany(1, q, &idx, &flag,
						    MPI_STATUS_IGNORE);
					if (flag)
						break;
				}
				check(crank != root || memcmp(r1, r2, nb) == 0,
				      "ireduce+testany", d->name, ops[oi].name,
				      count, comm);
				/* reduce_scatter_block and equal reduce_scatter */
				for (i = 0; i < csize; i++)
					rc[i] = count;
				PMPI_Reduce_scatter_block(s, r2, count, d->t,
							  ops[oi].op, comm);
				memset(r1, 0xa5, nb);
				MPI_Reduce_scatter_block(s, r1, count, d->t,
							 ops[oi].op, comm);
				ok = memcmp(r1, r2, nb) == 0;
				memset(r1, 0xa5, nb);
				MPI_Reduce_scatter(s, r1, rc, d->t, ops[oi].op, comm);
				ok = ok && memcmp(r1, r2, nb) == 0;
				memcpy(ip, s, all);
				MPI_Reduce_scatter_block(MPI_IN_PLACE, ip, count,
							 d->t, ops[oi].op, comm);
				ok = ok && memcmp(ip, r2, nb) == 0;
				memset(r1, 0xa5, nb);
				MPI_Ireduce_scatter_block(s, r1, count, d->t,
							  ops[oi].op, comm, &q[0]);
				MPI_Wait(&q[0], MPI_STATUS_IGNORE);
				ok = ok && memcmp(r1, r2, nb) == 0;
				check(ok, "reduce_scatter(_block), in place, "
				      "non-blocking", d->name, ops[oi].name, count,
				      comm);
				free(s);
				free(r1);
				free(r2);
				free(ip);
				free(rc);
			}
}

/* bcast, scatter, gather, allgather on one communicator */
static void
movement(MPI_Comm comm, const int *counts, int n_counts)
{
	static const int ti_list[] = {0, 2, 5};
	int csize, crank, ci, k, root = 0;

	MPI_Comm_size(comm, &csize);
	MPI_Comm_rank(comm, &crank);
	for (k = 0; k < 3; k++)
		for (ci = 0; ci < n_counts; ci++) {
			const struct dtype *d = &types[ti_list[k] % n_types];
			int count = counts[ci];
			size_t nb = (size_t)count * (size_t)d->size;
			size_t all = nb * (size_t)csize;
			unsigned char *s = malloc(all + 1), *r1 = malloc(all + 1),
				      *r2 = malloc(all + 1), *ip = malloc(all + 1);
			MPI_Request q[2];
			int ok, idx;

			root = (root + 1) % csize;
			fill(s, d, count * csize, crank + 3, MPI_SUM);
			/* bcast, blocking and not */
			memcpy(r1, s, nb);
			memcpy(r2, s, nb);
			MPI_Bcast(r1, count, d->t, root, comm);
			PMPI_Bcast(r2, count, d->t, root, comm);
			ok = memcmp(r1, r2, nb) == 0;
			memcpy(r1, s, nb);
			MPI_Ibcast(r1, count, d->t, root, comm, &q[0]);
			q[1] = MPI_REQUEST_NULL;
			MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
			ok = ok && memcmp(r1, r2, nb) == 0;
			check(ok, "bcast, ibcast+waitany", d->name, "-", count,
			      comm);
			/* scatter, in place at the root */
			memset(r1, 0xa5, nb);
			PMPI_Scatter(s, count, d->t, r2, count, d->t, root, comm);
			MPI_Scatter(s, count, d->t, r1, count, d->t, root, comm);
			ok = memcmp(r1, r2, nb) == 0;
			if (crank == root) {
				memcpy(ip, s, all);
				MPI_Scatter(ip, count, d->t, MPI_IN_PLACE, count,
					    d->t, root, comm);
				ok = ok && memcmp(ip, s, all) == 0;
			} else {
				memset(r1, 0xa5, nb);
				MPI_Scatter(NULL, count, d->t, r1, count, d->t,
					    root, comm);
				ok = ok && memcmp(r1, r2, nb) == 0;
			}
			memset(r1, 0xa5, nb);
			MPI_Iscatter(s, count, d->t, r1, count, d->t, root, comm,
				     &q[0]);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			ok = ok && memcmp(r1, r2, nb) == 0;
			check(ok, "scatter, in place, iscatter", d->name, "-",
			      count, comm);
			/* gather, in place at the root */
			memset(r1, 0xa5, all);
			memset(r2, 0x5a, all);
			PMPI_Gather(s, count, d->t, r2, count, d->t, root, comm);
			MPI_Gather(s, count, d->t, r1, count, d->t, root, comm);
			ok = crank != root || memcmp(r1, r2, all) == 0;
			memset(ip, 0xa5, all);
			memcpy(ip + (size_t)crank * nb, s, nb);
			if (crank == root)
				MPI_Gather(MPI_IN_PLACE, count, d->t, ip, count,
					   d->t, root, comm);
			else
				MPI_Gather(s, count, d->t, NULL, count, d->t,
					   root, comm);
			ok = ok && (crank != root || memcmp(ip, r2, all) == 0);
			memset(r1, 0xa5, all);
			MPI_Igather(s, count, d->t, r1, count, d->t, root, comm,
				    &q[0]);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			ok = ok && (crank != root || memcmp(r1, r2, all) == 0);
			check(ok, "gather, in place, igather", d->name, "-",
			      count, comm);
			/* allgather, in place, non-blocking by Testall */
			memset(r1, 0xa5, all);
			PMPI_Allgather(s, count, d->t, r2, count, d->t, comm);
			MPI_Allgather(s, count, d->t, r1, count, d->t, comm);
			ok = memcmp(r1, r2, all) == 0;
			memset(ip, 0xa5, all);
			memcpy(ip + (size_t)crank * nb, s, nb);
			MPI_Allgather(MPI_IN_PLACE, count, d->t, ip, count, d->t,
				      comm);
			ok = ok && memcmp(ip, r2, all) == 0;
			memset(r1, 0xa5, all);
			MPI_Iallgather(s, count, d->t, r1, count, d->t, comm,
				       &q[0]);
			for (;;) {
				int flag = 0;

				MPI_Testall(1, q, &flag, st3);
				if (flag)
					break;
			}
			ok = ok && memcmp(r1, r2, all) == 0;
			check(ok, "allgather, in place, iallgather+testall",
			      d->name, "-", count, comm);
			/* alltoall: s holds csize blocks, one for each rank */
			memset(r1, 0xa5, all);
			memset(r2, 0x5a, all);
			PMPI_Alltoall(s, count, d->t, r2, count, d->t, comm);
			MPI_Alltoall(s, count, d->t, r1, count, d->t, comm);
			ok = memcmp(r1, r2, all) == 0;
			memcpy(ip, s, all);
			MPI_Alltoall(MPI_IN_PLACE, count, d->t, ip, count, d->t,
				     comm);
			ok = ok && memcmp(ip, r2, all) == 0;
			memset(r1, 0xa5, all);
			MPI_Ialltoall(s, count, d->t, r1, count, d->t, comm,
				      &q[0]);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			ok = ok && memcmp(r1, r2, all) == 0;
			check(ok, "alltoall, in place, ialltoall", d->name, "-",
			      count, comm);
			free(s);
			free(r1);
			free(r2);
			free(ip);
		}
	MPI_Barrier(comm);
	{
		MPI_Request q;

		MPI_Ibarrier(comm, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
	}
}

static void
user_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
	int i;

	(void)t;
	for (i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

/* MPI_MAXLOC on MPI_FLOAT_INT written as a user function: the op the
 * MPI library runs when the layer does not offload it. */
static void
maxloc_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
	struct fi { float v; int i; } *a = in, *b = inout;
	int k;

	(void)t;
	for (k = 0; k < *len; k++)
		if (a[k].v > b[k].v || (a[k].v == b[k].v && a[k].i < b[k].i))
			b[k] = a[k];
}

/* With MPI_CHECK_OP_BIN naming examples/cgra/maxloc.s assembled
 * (acis-asm) and libacis-mpi loaded: an MPI_Op_create op given that
 * program with acis_mpi_op_program (found with dlsym) goes to the
 * switch, and gives MPI_MAXLOC's result. 1 if it ran. */
static int
user_op_with_a_program(MPI_Comm comm)
{
	const char *path = getenv("MPI_CHECK_OP_BIN");
	int (*attach)(const void *, const char *, const uint32_t *, size_t);
	uint64_t (*offloaded)(void), before;
	struct { float v; int i; } x[4000], y[4000], z[4000];
	uint32_t w[256];
	size_t n = 0;
	int crank, i, ok;
	MPI_Op op;
	FILE *f;

	*(void **)&attach = dlsym(RTLD_DEFAULT, "acis_mpi_op_program");
	if (path == NULL || attach == NULL)
		return 0;
	f = fopen(path, "rb");
	if (f != NULL) {
		n = fread(w, 4, 256, f);
		fclose(f);
	}
	MPI_Comm_rank(comm, &crank);
	MPI_Op_create(maxloc_fn, 1, &op);
	ok = n != 0 && attach(&op, "maxloc", w, n) == 0;
	for (i = 0; i < 4000; i++) {
		x[i].v = (float)((i * 7 + crank * 3) % 5);
		x[i].i = crank;
	}
	*(void **)&offloaded = dlsym(RTLD_DEFAULT, "acis_mpi_offloaded");
	before = offloaded != NULL ? offloaded() : 0;
	MPI_Allreduce(x, y, 4000, MPI_FLOAT_INT, op, comm);
	/* the switch took it, not the library's maxloc_fn */
	ok = ok && offloaded != NULL && offloaded() == before + 1;
	PMPI_Allreduce(x, z, 4000, MPI_FLOAT_INT, MPI_MAXLOC, comm);
	ok = ok && memcmp(y, z, sizeof(y)) == 0;
	MPI_Op_free(&op);
	check(ok, "user op with a CGRA program (maxloc.s)", "float_int",
	      "maxloc", 4000, comm);
	return 1;
}

/* What the layer must leave to the MPI library: results as the library's. */
static void
fallbacks(MPI_Comm comm)
{
	int csize, crank, i, ok;
	int a[64], b[64], c[64], counts[16];
	struct { int v, i; } mx[8], my[8], mz[8];
	MPI_Datatype four;
	MPI_Op uop;

	MPI_Comm_size(comm, &csize);
	MPI_Comm_rank(comm, &crank);
	for (i = 0; i < 64; i++)
		a[i] = (i * 5 + crank * 3) % 17;
	/* a derived type */
	MPI_Type_contiguous(4, MPI_INT, &four);
	MPI_Type_commit(&four);
	memcpy(b, a, sizeof(b));
	memcpy(c, a, sizeof(c));
	MPI_Bcast(b, 4, four, csize - 1, comm);
	PMPI_Bcast(c, 4, four, csize - 1, comm);
	ok = memcmp(b, c, sizeof(b)) == 0;
	MPI_Type_free(&four);
	/* MPI_MAXLOC */
	for (i = 0; i < 8; i++)
		mx[i].v = (i + crank) % 5, mx[i].i = crank;
	MPI_Allreduce(mx, my, 8, MPI_2INT, MPI_MAXLOC, comm);
	PMPI_Allreduce(mx, mz, 8, MPI_2INT, MPI_MAXLOC, comm);
	ok = ok && memcmp(my, mz, sizeof(my)) == 0;
	/* a user op */
	MPI_Op_create(user_sum, 1, &uop);
	MPI_Allreduce(a, b, 64, MPI_INT, uop, comm);
	PMPI_Allreduce(a, c, 64, MPI_INT, MPI_SUM, comm);
	ok = ok && memcmp(b, c, sizeof(b)) == 0;
	MPI_Op_free(&uop);
	/* MPI_LAND */
	MPI_Allreduce(a, b, 64, MPI_INT, MPI_LAND, comm);
	PMPI_Allreduce(a, c, 64, MPI_INT, MPI_LAND, comm);
	ok = ok && memcmp(b, c, sizeof(b)) == 0;
	/* unequal reduce_scatter counts */
	for (i = 0; i < csize && i < 16; i++)
		counts[i] = 1 + i % 3;
	if (csize <= 16) {
		MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm);
		PMPI_Reduce_scatter(a, c, counts, MPI_INT, MPI_SUM, comm);
		ok = ok && memcmp(b, c, sizeof(int) * (size_t)counts[crank]) == 0;
	}
	check(ok, "fallbacks (derived, maxloc, user op, land, unequal "
	      "counts)", "-", "-", 0, comm);
}

static void
one_comm(MPI_Comm comm, const char *name, const int *counts, int n_counts)
{
	int csize;

	if (comm == MPI_COMM_NULL)
		return;
	MPI_Comm_size(comm, &csize);
	if (me == 0)
		printf("mpi_check: %s (%d ranks)\n", name, csize);
	reductions(comm, counts, n_counts);
	movement(comm, counts, n_counts);
	fallbacks(comm);
}

/* Allreduces of 16 MiB until n are done or one fails: the failure (a
 * rank killed on the way) comes back as an MPI error, said and exited
 * with 3, never a hang. */
static int
soak(int n)
{
	const int count = 4 << 20;
	float *a = malloc(sizeof(float) * (size_t)count);
	float *b = malloc(sizeof(float) * (size_t)count);
	const char *dir = getenv("MPI_CHECK_PIDS");
	int i, rc;

	if (dir != NULL) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/rank%d.pid", dir, me);
		f = fopen(path, "w");
		if (f != NULL) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (i = 0; i < count; i++)
		a[i] = (float)(i % 7);
	for (i = 0; i < n; i++) {
		rc = MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM,
				   MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS) {
			char msg[MPI_MAX_ERROR_STRING];
			int len = 0;

			MPI_Error_string(rc, msg, &len);
			printf("mpi_check: rank %d: allreduce %d failed: %s\n",
			       me, i, msg);
			fflush(stdout);
			exit(3);
		}
	}
	MPI_Finalize();
	return 0;
}

int
main(int argc, char **argv)
{
	int counts[] = {1, 7, 256, 1000, 4099}, n_counts = 5;
	int expect = 0, quick = 0, i, all_bad = 0;
	MPI_Comm dup, half, shared, created, none;
	MPI_Group wg, eg;
	long total_checks;
	uint64_t (*get)(void);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--soak") == 0 && i + 1 < argc)
			return soak(atoi(argv[i + 1]));
		if (strcmp(argv[i], "--expect-offload") == 0)
			expect = 1;
		else if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--max-count") == 0 && i + 1 < argc)
			max_count = atoi(argv[++i]);
	}
	for (i = 0; i < n_counts; i++)
		if (counts[i] > max_count)
			n_counts = i;
	add_type(MPI_FLOAT, "float", 1, 1);
	add_type(MPI_DOUBLE, "double", 1, 1);
	add_type(MPI_INT, "int", 0, 1);
	add_type(MPI_UNSIGNED, "unsigned", 0, 0);
	add_type(MPI_LONG, "long", 0, 1);
	add_type(MPI_BYTE, "byte", 0, 0);
	add_type(MPI_SHORT, "short", 0, 1);
	add_type(MPI_UNSIGNED_SHORT, "unsigned short", 0, 0);
	add_type(MPI_SIGNED_CHAR, "signed char", 0, 1);
	add_type(MPI_UNSIGNED_CHAR, "unsigned char", 0, 0);
	add_type(MPI_INT8_T, "int8_t", 0, 1);
	add_type(MPI_UINT16_T, "uint16_t", 0, 0);
	add_type(MPI_INT64_T, "int64_t", 0, 1);
	add_type(MPI_UINT64_T, "uint64_t", 0, 0);
	add_type(MPI_LONG_LONG, "long long", 0, 1);
	add_type(MPI_UNSIGNED_LONG, "unsigned long", 0, 0);
	if (quick)
		n_types = 6;

	one_comm(MPI_COMM_WORLD, "world", counts, n_counts);
	if (user_op_with_a_program(MPI_COMM_WORLD) && me == 0)
		printf("mpi_check: a user op with a CGRA program\n");
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	one_comm(dup, "dup of world", counts, quick ? 2 : n_counts);
	MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
	one_comm(half, "split by rank parity, reversed", counts,
		 quick ? 2 : n_counts);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me,
			    MPI_INFO_NULL, &shared);
	one_comm(shared, "split_type shared", counts, 2);
	/* ranks 1.. (rank 0 not in it), and a split everyone leaves */
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	{
		int ex = 0;

		MPI_Group_excl(wg, 1, &ex, &eg);
	}
	MPI_Comm_create(MPI_COMM_WORLD, eg, &created);
	one_comm(created, "create without rank 0", counts, 2);
	MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &none);
	if (none != MPI_COMM_NULL)
		bad++;
	MPI_Group_free(&eg);
	MPI_Group_free(&wg);
	if (created != MPI_COMM_NULL)
		MPI_Comm_free(&created);
	MPI_Comm_free(&shared);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);

	PMPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	total_checks = checks;
	*(void **)&get = dlsym(RTLD_DEFAULT, "acis_mpi_offloaded");
	if (me == 0) {
		long offl = get != NULL ? (long)get() : -1;

		printf("mpi_check: %d ranks, %ld checks, %d mismatches; "
		       "libacis-mpi %s, calls offloaded on rank 0: %ld\n", P,
		       total_checks, all_bad, get != NULL ? "loaded" :
		       "not loaded", offl);
		if (expect && offl <= 0) {
			printf("mpi_check: FAIL: --expect-offload, and the "
			       "switch took no call\n");
			all_bad++;
		}
	}
	PMPI_Bcast(&all_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return all_bad == 0 ? 0 : 1;
}
