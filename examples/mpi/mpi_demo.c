/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An ordinary MPI program: nothing of acis in it. Each rank contributes a
 * vector; allreduce, bcast and reduce_scatter_block run on the world and
 * on a split of it; rank 0 checks the results and prints them. Built with
 * plain mpicc; run with libacis-mpi preloaded, its collectives go through
 * the switch (doc/mpi.md, make demo).
 *
 *   mpicc -O2 mpi_demo.c -o mpi_demo
 *   mpirun -np 4 -x LD_PRELOAD=.../libacis-mpi-openmpi.so \
 *       -x ACIS_SWITCH=10.77.0.1 ./mpi_demo
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N (1 << 18) /* 1 MiB of floats */

int
main(int argc, char **argv)
{
	float *v = malloc(sizeof(float) * N), *sum = malloc(sizeof(float) * N);
	int me, P, i, bad = 0, half_rank;
	double t0, t_allreduce, e5;
	MPI_Comm half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &P);
	for (i = 0; i < N; i++)
		v[i] = (float)(me + 1) * (float)(i % 16);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	MPI_Allreduce(v, sum, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	t_allreduce = MPI_Wtime() - t0;
	/* every element: (1 + 2 + ... + P) * (i % 16) */
	for (i = 0; i < N; i++)
		bad += sum[i] != (float)(P * (P + 1) / 2) * (float)(i % 16);
	e5 = sum[5];
	MPI_Bcast(sum, 1024, MPI_FLOAT, P - 1, MPI_COMM_WORLD);
	MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
	MPI_Comm_rank(half, &half_rank);
	MPI_Reduce_scatter_block(v, sum, N / 4, MPI_FLOAT, MPI_MAX, half);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("mpi_demo: %d ranks; allreduce of %d floats in %.2f ms: "
		       "element 5 = %g (expected %g); %d wrong elements\n", P, N,
		       t_allreduce * 1e3, e5, (double)(P * (P + 1) / 2) * 5, bad);
	MPI_Comm_free(&half);
	MPI_Finalize();
	free(v);
	free(sum);
	return bad != 0;
}
