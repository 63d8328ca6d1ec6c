/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Invariant checks shared by the fuzz targets: a violated invariant names
 * itself on stderr and traps, so libFuzzer saves the input as a crash
 * artifact and the message says which property broke.
 */
#ifndef ACIS_FUZZ_CHECK_H
#define ACIS_FUZZ_CHECK_H

#include <stdio.h>

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant violated: %s\n", \
			__FILE__, __LINE__, #cond); \
		__builtin_trap(); \
	} \
} while (0)

#endif /* ACIS_FUZZ_CHECK_H */
