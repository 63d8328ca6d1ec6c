/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture with DPDK's own tools, and the files a switch leaves behind.
 *
 * DPDK's capture tools (dpdk-dumpcap, dpdk-pdump) and dpdk-proc-info are
 * secondary processes: they attach to the switch's memory through the
 * files its EAL keeps under the --file-prefix (hugepage files, the
 * runtime directory) and ask it, over the EAL's IPC socket, to copy what
 * its ports receive and send. The switch initialises the capture
 * framework unless told not to (--no-pdump); with --in-memory,
 * --no-shconf or --no-huge no secondary process can attach, and the
 * switch says so when it starts.
 *
 * On the way out the switch removes the files of its prefix, so a
 * stopped switch leaves neither hugepage files nor a runtime directory.
 */
#ifndef ACIS_CAPTURE_H
#define ACIS_CAPTURE_H

#include <stddef.h>

/** Remember the EAL options that decide whether secondary processes can
 * attach (--file-prefix, --huge-dir, --in-memory, --no-shconf,
 * --no-huge); argv[0 .. argc-1] are the EAL's arguments. */
void acis_capture_eal_args(int argc, char **argv);

/** The EAL's --file-prefix ("rte" by default) and its runtime directory
 * (where the EAL's telemetry and IPC sockets are). */
const char *acis_capture_prefix(void);
const char *acis_capture_runtime_dir(void);

/** After rte_eal_init: start the capture framework (unless off) and
 * print how to capture, or why no secondary process can attach. 0, or
 * -1 with the reason in err. */
int acis_capture_init(int enable, char *err, size_t len);

/** Stop the capture framework (before rte_eal_cleanup). */
void acis_capture_fini(void);

/** After rte_eal_cleanup: remove this switch's hugepage files and
 * runtime directory (nothing when they were never made). */
void acis_capture_remove_files(void);

#endif /* ACIS_CAPTURE_H */
