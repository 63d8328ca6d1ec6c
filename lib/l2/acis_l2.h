/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_l2: the MAC learning table.
 *
 * Lock-free by design. Every entry is one 64-bit word (MAC, port, flags)
 * written with a single atomic store, plus a 32-bit last-seen time. Any
 * lcore may learn and look up concurrently: two lcores learning into the
 * same empty slot at once can lose one of the two entries, which the next
 * frame from that station re-learns. That benign race is the price of no
 * locks and no atomics read-modify-write on the per-packet path.
 *
 * The table is set-associative: a MAC hashes to one bucket of
 * ACIS_L2_WAYS entries that fit one cache line. A full bucket evicts its
 * oldest learned entry; static entries are never evicted nor aged.
 * Time is passed in by the caller (seconds), so tests control it.
 */
#ifndef ACIS_L2_H
#define ACIS_L2_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_L2_WAYS 4
/** Largest port index the table can hold. */
#define ACIS_L2_MAX_PORT 1023

struct acis_l2_table;

/** Counters kept by the table (approximate under concurrency). */
struct acis_l2_stats {
	uint64_t learned;  /**< new entries */
	uint64_t moved;    /**< station seen on another port */
	uint64_t evicted;  /**< live entries pushed out of a full bucket */
	uint64_t static_conflicts; /**< frames whose source is a static MAC seen on another port */
};

/**
 * Create a table of at least n_entries entries (rounded up to a power of
 * two, minimum one bucket). age_sec 0 disables ageing.
 * Returns NULL on bad arguments or no memory.
 */
struct acis_l2_table *acis_l2_create(uint32_t n_entries, uint32_t age_sec);

void acis_l2_free(struct acis_l2_table *t);

/** Install a static entry. -EEXIST if the MAC has one, -ENOSPC if its
 * bucket holds only static entries, -EINVAL for a bad port or MAC. */
int acis_l2_add_static(struct acis_l2_table *t, const uint8_t mac[6],
		       uint16_t port);

/**
 * Learn (mac seen on port at time now). Returns 1 when a new entry was
 * made or a station moved, 0 when it only refreshed, <0 when refused
 * (static entry on another port).
 */
int acis_l2_learn(struct acis_l2_table *t, const uint8_t mac[6],
		  uint16_t port, uint32_t now);

/** Port of mac, or -1 when unknown or aged out. */
int acis_l2_lookup(const struct acis_l2_table *t, const uint8_t mac[6],
		   uint32_t now);

/** Forget every learned entry on a port (link down, port removed). */
void acis_l2_flush_port(struct acis_l2_table *t, uint16_t port);

/** One live entry, for listing. */
struct acis_l2_entry_view {
	uint8_t mac[6];
	uint16_t port;
	uint8_t is_static;
	uint32_t age; /**< seconds since last seen (0 for static) */
};

/** Call cb for each live entry; stops early when cb returns non-zero.
 * Returns the number of entries visited. */
unsigned int acis_l2_walk(const struct acis_l2_table *t, uint32_t now,
			  int (*cb)(const struct acis_l2_entry_view *, void *),
			  void *arg);

/** Capacity in entries. */
uint32_t acis_l2_capacity(const struct acis_l2_table *t);

/** Snapshot of the counters. */
void acis_l2_get_stats(const struct acis_l2_table *t, struct acis_l2_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_L2_H */
