/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libacis-mpi: MPI programs' collectives through an acis switch, with no
 * change to the program or the MPI library (doc/mpi.md).
 *
 * The library defines MPI_Allreduce, MPI_Bcast, ... (the MPI standard's
 * profiling interface): a program picks it up with LD_PRELOAD or by
 * linking it before the MPI library. Each call it can offload goes to the
 * switch through libacis; every other call goes to the MPI library's own
 * PMPI_ entry point unchanged. It is built once per MPI library, since
 * their ABIs differ: libacis-mpi-openmpi.so and libacis-mpi-mpich.so.
 *
 * A program needs nothing of this header. It is for tools that want the
 * library's counters while the program runs (acis_mpi_get_stats) and
 * names the environment the library reads:
 *
 *   ACIS_SWITCH=IP[:PORT]   the switch (required to offload anything)
 *   ACIS_MPI=off            offload nothing (every call to the MPI library)
 *   ACIS_MPI_STRICT=1       a switch that cannot be joined is an error at
 *                           MPI_Init (MPI_Abort), not a warning
 *   ACIS_MPI_STATS=1        a per-collective table on rank 0 at MPI_Finalize
 *                           (=all: on every rank)
 *   ACIS_MPI_MIN_BYTES=N    offload calls of N bytes and more (every
 *                           collective); ACIS_MPI_MIN_BYTES_BCAST=N and so
 *                           on per collective (defaults in doc/mpi.md)
 * and every ACIS_* variable libacis reads (ACIS_TRANSPORT, ACIS_BIND,
 * ACIS_TIMEOUT_MS, ...; the job, rank and size come from MPI).
 */
#ifndef ACIS_MPI_H
#define ACIS_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The collectives the library counts, blocking and non-blocking alike. */
enum acis_mpi_coll {
	ACIS_MPI_ALLREDUCE,
	ACIS_MPI_REDUCE,
	ACIS_MPI_BCAST,
	ACIS_MPI_SCATTER,
	ACIS_MPI_GATHER,
	ACIS_MPI_ALLGATHER,
	ACIS_MPI_REDUCE_SCATTER_BLOCK,
	ACIS_MPI_REDUCE_SCATTER,
	ACIS_MPI_BARRIER,
	ACIS_MPI_ALLTOALL,
	ACIS_MPI_COLL_MAX
};

/** Why a call went to the MPI library instead of the switch. */
enum acis_mpi_fallback {
	ACIS_MPI_FB_OFF,      /**< offload off: no switch, refused, ACIS_MPI=off */
	ACIS_MPI_FB_COMM,     /**< communicator not on the switch (intercomm,
				   size 1, made without a parent on it, opted
				   out with the info key acis_offload=false) */
	ACIS_MPI_FB_DATATYPE, /**< derived, non-contiguous or unmapped type */
	ACIS_MPI_FB_OP,       /**< user op, MPI_MAXLOC/MINLOC, logical ops,
				   or an op the type has none of */
	ACIS_MPI_FB_SMALL,    /**< under the collective's crossover */
	ACIS_MPI_FB_COUNTS,   /**< MPI_Reduce_scatter with unequal counts */
	ACIS_MPI_FB_MAX
};

struct acis_mpi_coll_stats {
	uint64_t offloaded;      /**< calls that went to the switch */
	uint64_t bytes;          /**< their bytes (this rank's buffer) */
	uint64_t ns;             /**< time in the blocking ones */
	uint64_t failed;         /**< offloaded calls that returned an error */
	uint64_t fallback[ACIS_MPI_FB_MAX];
};

struct acis_mpi_stats {
	int on;                  /**< this job offloads */
	uint32_t job;            /**< its job id on the switch */
	uint64_t comms;          /**< communicators put on the switch */
	struct acis_mpi_coll_stats coll[ACIS_MPI_COLL_MAX];
};

/** This process's counters so far. */
void acis_mpi_get_stats(struct acis_mpi_stats *s);

/** Calls the switch took in this process so far, every collective (for a
 * program that looks the symbol up with dlsym, needing no header). */
uint64_t acis_mpi_offloaded(void);

/**
 * Offload an MPI_Op_create op (doc/mpi.md, "User ops"): the switch folds
 * it with this CGRA program (acis-asm's words, the fold contract of
 * doc/collectives.md, "User-defined operators") under name, in rank
 * order. mpi_op is the address of the MPI_Op (&op: MPI_Op is a pointer
 * in Open MPI, an int in MPICH, so the header takes neither). Every rank
 * attaches the same program; the op is made at the switch at its first
 * offloaded use. The MPI library's function stays the fallback: calls
 * the layer does not offload (another type, too small, no switch) run
 * it. Call after MPI_Init; a program that looks the function up with
 * dlsym runs unchanged without the library.
 *
 * @return 0, or -1: a bad argument, or more than 64 ops attached.
 */
int acis_mpi_op_program(const void *mpi_op, const char *name,
			const uint32_t *words, size_t n_words);

/** Names for tables: "allreduce", ...; "off", "comm", ... */
const char *acis_mpi_coll_name(enum acis_mpi_coll c);
const char *acis_mpi_fallback_name(enum acis_mpi_fallback f);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_MPI_H */
