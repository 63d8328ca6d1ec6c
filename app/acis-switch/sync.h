/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch side of acis_sync (doc/sync.md): the table of deadlines and
 * SSP barriers, kept in g_sw.coll.sync and written under the control
 * lock; the collective stage answers DEADLINE and SSP control messages
 * and its sweep sends the deadlines' signals (node_collective.c); this
 * file makes and frees the table, forgets communicators that are gone,
 * and shows it all in telemetry (/acis/sync).
 */
#ifndef ACIS_SW_SYNC_H
#define ACIS_SW_SYNC_H

int acis_sw_sync_init(void);
void acis_sw_sync_fini(void);
/** Housekeeping (control lock held): forget the deadlines and barriers
 * of communicators that no longer exist. */
void acis_sw_sync_purge(void);
int acis_sw_sync_telemetry_register(void);

#endif /* ACIS_SW_SYNC_H */
