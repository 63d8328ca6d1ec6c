/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmitting on a worker's own TX queue of a port, shared by every
 * stage that sends: the TX stage, the RX stage's direct frames and the
 * fault stage's held frames when they fall due; and the collective
 * answers a full queue refused, kept to send later (tx.c).
 */
#ifndef ACIS_TX_H
#define ACIS_TX_H

#include "fault.h"
#include "switch.h"

/* Whether a port's fault stage lets frames by: off, and nothing of this
 * lcore's held back for the port. */
static inline int
acis_tx_fault_idle(const struct acis_lcore_ctx *lc, uint16_t port)
{
	return !g_fault[port].on &&
	       (lc->fault[port] == NULL || lc->fault[port]->n_held == 0);
}

/* Whether a port's frames go straight to its queue: its fault stage
 * idle, and no link header to add (a reliable link, rel.h). */
static inline int
acis_tx_plain(const struct acis_lcore_ctx *lc, uint16_t port)
{
	return !g_fault[port].rel && acis_tx_fault_idle(lc, port);
}

struct rte_mbuf;
/* Frames dropped outside the graph: freed, counted under why (tx.c). */
void acis_drop_frames(struct acis_lcore_ctx *lc, struct rte_mbuf **m,
		      uint16_t n, enum acis_drop_reason why);
/* Frames to a port as its TX stage sends them: in a reliable link's
 * header when the link is one, through the fault stage when it is on,
 * then to the lcore's queue (tx.c). */
void acis_tx_port(struct acis_lcore_ctx *lc, uint16_t port,
		  struct rte_mbuf **pkts, uint16_t n);
/* Frames to a port through its fault stage, in chunks (duplicates and
 * released frames can outnumber what came in), then to its queue
 * (tx.c). */
void acis_tx_faulted(struct acis_lcore_ctx *lc, uint16_t port,
		     struct rte_mbuf **pkts, uint16_t n);

/* What a queue refused of a send (tx.c): collective answers are held
 * (acis_tx_hold) while there is room, the rest freed and counted
 * (tx_full, or tx_link_down for a port whose peer is gone, where the
 * driver can tell without a system call). Returns the bytes held or
 * freed. */
uint64_t acis_tx_refused(struct acis_lcore_ctx *lc, uint16_t port,
			 struct rte_mbuf **pkts, uint16_t n);
/* Send a port's held answers first, oldest first (tx.c). */
void acis_tx_hold_flush(struct acis_lcore_ctx *lc, uint16_t port);
/* Every port's held answers, once a walk (tx.c). */
void acis_tx_hold_flush_all(struct acis_lcore_ctx *lc);
/* Worker lcores' holds: made at start, freed with what they hold. */
int acis_tx_hold_init(void);
void acis_tx_hold_fini(void);
/* Held answers of every lcore, for tests and telemetry. */
unsigned int acis_tx_held_now(void);

/* Whether a port holds answers its queue refused: the collective stage
 * sends it no more until they are gone. */
static inline int
acis_tx_congested(const struct acis_lcore_ctx *lc, uint16_t port)
{
	return unlikely((lc->txh_ports >> port) & 1);
}

/* Transmit on the lcore's own queue of a port: cnt frames of bytes bytes
 * in all, after what the port holds. What the queue does not take is
 * held or freed and counted (acis_tx_refused), never retried in a loop
 * that would stall the other ports. */
static inline void
acis_tx_send_bytes(struct acis_lcore_ctx *lc, uint16_t port,
		   struct rte_mbuf **pkts, uint16_t cnt, uint64_t bytes)
{
	uint16_t sent;

	if (unlikely((lc->txh_ports >> port) & 1))
		acis_tx_hold_flush(lc, port);
	sent = acis_port_tx_burst(port, (uint16_t)lc->worker_index, pkts,
				  cnt);
	if (unlikely(sent < cnt))
		bytes -= acis_tx_refused(lc, port, &pkts[sent],
					 (uint16_t)(cnt - sent));
	lc->stats.port_tx_pkts[port] += sent;
	lc->stats.port_tx_bytes[port] += bytes;
}

static inline void
acis_tx_send(struct acis_lcore_ctx *lc, uint16_t port, struct rte_mbuf **pkts,
	     uint16_t cnt)
{
	uint64_t bytes = 0;
	uint16_t i;

	for (i = 0; i < cnt; i++)
		bytes += pkts[i]->pkt_len;
	acis_tx_send_bytes(lc, port, pkts, cnt, bytes);
}

#endif /* ACIS_TX_H */
