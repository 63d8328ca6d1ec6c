/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration harness: the real switch (pipeline text, ports, graph of
 * stages) on net_ring ports. The test owns both ends of every port's
 * rings: it puts frames on a port's RX ring, walks the lcore graphs on its
 * own thread, and reads what each port transmitted, frame by frame, with
 * the drop counters alongside. Nothing runs on another thread, so every
 * test is deterministic.
 *
 * The helpers assert with cmocka; a failed assertion leaves the test
 * early, and the teardown() given to cmocka stops the switch.
 */
#ifndef ACIS_TEST_HARNESS_H
#define ACIS_TEST_HARNESS_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "acis_pkt.h"
#include "frames.h"
#include "switch.h"

#define NPORTS 4
#define SW_MAC "02:ac:15:00:00:01"
#define SW_IP "10.77.0.1"

/* The switch's MAC; ip is 0 (sw_ip() gives it, parsed from SW_IP). */
extern const struct tf_addr sw;

/* SW_IP in network order. */
uint32_t sw_ip(void);

/* Create nports ring ports and start the switch on them, with extra
 * appended to the pipeline text (sections such as [l2] or [lcore N]). */
void start_switch(unsigned int nports, const char *extra);

/* The same with a pool of mbufs mbufs (at least what the ports' rings
 * and lcore caches need: 1184 for four ports). */
void start_switch_with(unsigned int nports, unsigned int mbufs,
		       const char *extra);

/* Stop the switch and free the rings; harmless when it is not running. */
void stop_switch(void);

/* Put a copy of frame on port's RX ring. */
void inject(unsigned int port, const uint8_t *frame, unsigned int len);

/* Walk every lcore's graph, in pipeline order, until every frame put on
 * the ports' RX rings and on the handoff rings has been taken in. */
void run(void);

/* Walk the graph for ms milliseconds, as a running switch does. Its
 * timers count only the time it runs: one walk after a long sleep is a
 * switch waking from a pause, which judges nothing late. */
void run_for(unsigned int ms);

/* The switch's address: its MAC and SW_IP. */
struct tf_addr switch_addr(void);

/* One walk of every lcore's graph, in pipeline order. */
void walk(void);

/* Whether frames still wait on an RX or handoff ring, or answers wait in
 * the collective stage (a fan-out a walk could not finish) or at TX (a
 * full queue refused them). */
int busy(void);

/* Take the next frame a port sent (the caller frees it); NULL when it sent
 * nothing more. */
struct rte_mbuf *sent(unsigned int port);

/* The next frame a port sent, copied into buf (cap bytes) and freed
 * (every segment, as a PMD frees what it sent): its length, or 0 when it
 * sent nothing more. Unlike sent(), it takes no mbuf from the pool, so
 * it reads what a switch with an empty pool sent. */
unsigned int sent_copy(unsigned int port, uint8_t *buf, unsigned int cap);

/* Free whatever every port has sent so far (frames a test does not
 * check, such as those of learning frames it flooded). */
void discard_sent(void);

/* How many frames sent() took were chained (payload shared with other
 * frames) since start_switch; sent() hands them over in one piece. */
unsigned int chained_frames(void);

/* The next frame port sent is exactly frame. */
void expect_frame(unsigned int port, const uint8_t *frame, unsigned int len);

/* Port sent nothing (more). */
void expect_silent(unsigned int port);

/* Drops for reason r since the switch started. */
uint64_t drops(enum acis_drop_reason r);

/* Every lcore counter summed, less its value when the switch started. */
struct acis_lcore_stats delta(void);

/* Every mbuf is back in the pool. */
void expect_no_leak(void);

/* The collective stage's counters and its slots' (every worker summed). */
struct acis_coll_stats coll_stats(void);
struct acis_agg_stats slot_stats(void);

/* cmocka teardown: stop the switch a failed test left running. */
int teardown(void **state);

/* Start the EAL the way every integration test runs it (two lcores, no
 * huge pages, no PCI); 0 on success. */
int harness_eal_init(const char *prog);
void harness_eal_cleanup(void);

#endif /* ACIS_TEST_HARNESS_H */
