// SPDX-License-Identifier: BSD-3-Clause
//
// mpi_check_cxx: a C++ MPI program (mpi.h's C API, as C++ programs use
// it; nothing of acis) whose collectives libacis-mpi takes when preloaded:
// allreduce, reduce, bcast, allgather and a non-blocking allreduce on
// std::vector buffers, on the world and on a split, each compared with
// the MPI library's own PMPI_ call. Rank 0 prints a summary line; exit 0
// when every result matched and, with --expect-offload, the switch took
// calls (acis_mpi_offloaded, looked up with dlsym).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <mpi.h>

namespace {

int bad = 0, checks = 0;

template <typename T>
void
expect_same(const std::vector<T> &a, const std::vector<T> &b, const char *what,
	    MPI_Comm comm)
{
	int ok = a.size() == b.size() &&
		 std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
	int all = 0;

	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	checks++;
	if (!ok) {
		bad++;
		std::fprintf(stderr, "mpi_check_cxx: MISMATCH %s\n", what);
	}
}

void
run(MPI_Comm comm, int n)
{
	int rank, size;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	std::vector<double> x(n), y(n), z(n);
	std::vector<int> xi(n), yi(n), zi(n);
	for (int i = 0; i < n; i++) {
		x[i] = (i * 3 + rank) % 11;
		xi[i] = (i * 7 + rank * 5) % 101 - 50;
	}
	MPI_Allreduce(x.data(), y.data(), n, MPI_DOUBLE, MPI_SUM, comm);
	PMPI_Allreduce(x.data(), z.data(), n, MPI_DOUBLE, MPI_SUM, comm);
	expect_same(y, z, "allreduce double sum", comm);
	MPI_Reduce(xi.data(), yi.data(), n, MPI_INT, MPI_MAX, size - 1, comm);
	PMPI_Reduce(xi.data(), zi.data(), n, MPI_INT, MPI_MAX, size - 1, comm);
	if (rank != size - 1)
		yi = zi;
	expect_same(yi, zi, "reduce int max", comm);
	y = x;
	z = x;
	MPI_Bcast(y.data(), n, MPI_DOUBLE, 0, comm);
	PMPI_Bcast(z.data(), n, MPI_DOUBLE, 0, comm);
	expect_same(y, z, "bcast double", comm);
	std::vector<int> ga(static_cast<size_t>(n) * size), gb(ga.size());
	MPI_Allgather(xi.data(), n, MPI_INT, ga.data(), n, MPI_INT, comm);
	PMPI_Allgather(xi.data(), n, MPI_INT, gb.data(), n, MPI_INT, comm);
	expect_same(ga, gb, "allgather int", comm);
	MPI_Request q;
	MPI_Iallreduce(xi.data(), yi.data(), n, MPI_INT, MPI_BXOR, comm, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	PMPI_Allreduce(xi.data(), zi.data(), n, MPI_INT, MPI_BXOR, comm);
	expect_same(yi, zi, "iallreduce int bxor", comm);
}

} // namespace

int
main(int argc, char **argv)
{
	int rank, size, all = 0;
	bool expect = argc > 1 && std::strcmp(argv[1], "--expect-offload") == 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int n : {1, 100, 3000})
		run(MPI_COMM_WORLD, n);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	run(half, 1000);
	MPI_Comm_free(&half);
	PMPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	auto offloaded = reinterpret_cast<uint64_t (*)()>(
		dlsym(RTLD_DEFAULT, "acis_mpi_offloaded"));
	long off = offloaded != nullptr ? static_cast<long>(offloaded()) : -1;
	if (rank == 0) {
		std::printf("mpi_check_cxx: %d ranks, %d checks, %d mismatches; "
			    "calls offloaded on rank 0: %ld\n", size, checks, all,
			    off);
		if (expect && off <= 0)
			all++;
	}
	PMPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return all == 0 ? 0 : 1;
}
