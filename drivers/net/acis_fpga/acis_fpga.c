/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_acis_fpga: an emulated FPGA behind an ethdev (doc/fpga.md).
 *
 * What the application transmits on the port goes to the "FPGA": it is
 * processed (loopback, swap, or a look-aside CGRA program on the UDP
 * payload) and comes back on the port's RX side once the timing model
 * (fpga_model.h) says it is back. Frames are processed when they are
 * sent, in the sending lcore; each TX queue has its own bounded in-flight
 * FIFO, drained by RX queue (tx queue % RX queues). The link, the
 * processing element and the CGRA machine are one per device: with more
 * than one TX queue they are taken under a spinlock, once per burst.
 *
 * Frames come back in the mbufs they were sent in; a frame whose mbuf is
 * shared (reference count above one, or attached to another's buffer) is
 * first copied into an mbuf of the RX queue's pool, so that what the
 * application receives is its own to write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "acis_cgra.h"
#include "acis_pkt.h"
#include "fpga_frame.h"
#include "fpga_model.h"

#define FPGA_MAX_QUEUES 16
#define FPGA_MAX_PAYLOAD 65535

RTE_LOG_REGISTER(acis_fpga_logtype, pmd.net.acis_fpga, NOTICE);
#define FPGA_LOG(level, fmt, ...)                                             \
	rte_log(RTE_LOG_##level, acis_fpga_logtype, "net_acis_fpga: " fmt "\n", \
		##__VA_ARGS__)

enum fpga_mode { MODE_LOOPBACK, MODE_SWAP, MODE_CGRA };
static const char *const mode_names[] = {"loopback", "swap", "cgra"};

/* The device's own counters: name, meaning in doc/fpga.md. */
#define FPGA_XSTATS(X)                                                        \
	X(FRAMES_IN, "fpga_frames_in")                                        \
	X(BYTES_IN, "fpga_bytes_in")                                          \
	X(FRAMES_OUT, "fpga_frames_out")                                      \
	X(BYTES_OUT, "fpga_bytes_out")                                        \
	X(IN_FLIGHT, "fpga_in_flight")                                        \
	X(QUEUE_FULL, "fpga_queue_full")                                      \
	X(LINK_DOWN_REFUSED, "fpga_link_down_refused")                        \
	X(LOST_LINK_DOWN, "fpga_lost_link_down")                              \
	X(NO_RX_QUEUE, "fpga_no_rx_queue")                                    \
	X(COPIES, "fpga_copies")                                              \
	X(NOMBUF, "fpga_nombuf")                                              \
	X(NOT_UDP, "fpga_not_udp")                                            \
	X(CGRA_RUNS, "fpga_cgra_runs")                                        \
	X(CGRA_FAULTS, "fpga_cgra_faults")                                    \
	X(CGRA_TOO_LONG, "fpga_cgra_too_long")                                \
	X(CGRA_SEGMENTED, "fpga_cgra_segmented")                              \
	X(CGRA_INSNS, "fpga_cgra_instructions")                               \
	X(CGRA_CYCLES, "fpga_cgra_cycles")                                    \
	X(LINK_BUSY_NS, "fpga_link_busy_ns")                                  \
	X(LINK_WAIT_NS, "fpga_link_wait_ns")

enum {
#define X_ENUM(e, n) XS_##e,
	FPGA_XSTATS(X_ENUM)
#undef X_ENUM
	XS_MAX
};

static const char *const xstat_names[XS_MAX] = {
#define X_NAME(e, n) n,
	FPGA_XSTATS(X_NAME)
#undef X_NAME
};

struct fpga_dev;

/* Written by the one lcore that sends on it. */
struct fpga_txq {
	struct fpga_dev *p;
	struct acis_fpga_fifo *fifo;
	struct rte_mempool *pool;   /* of the RX queue it returns to */
	uint16_t qid;
	uint16_t has_rx;
	uint64_t c[XS_MAX];
	uint64_t base[XS_MAX];      /* c at the last reset (control path) */
} __rte_cache_aligned;

/* Written by the one lcore that polls it. */
struct fpga_rxq {
	struct fpga_dev *p;
	struct rte_mempool *pool;
	uint16_t qid;
	uint16_t port_id;
	uint16_t n_src;
	uint16_t next;              /* FIFO to look at first */
	struct acis_fpga_fifo *src[FPGA_MAX_QUEUES];
	uint64_t c[XS_MAX];
	uint64_t base[XS_MAX];      /* c at the last reset (control path) */
} __rte_cache_aligned;

struct fpga_params {
	enum fpga_mode mode;
	struct acis_fpga_timing t;
	uint32_t depth;
	int link_up;
	struct rte_ether_addr mac;
	int mac_set;
	char program[PATH_MAX];
	struct acis_cgra_config cgra;
	uint32_t cgra_mhz;
};

struct fpga_dev {
	struct fpga_params prm;
	struct rte_eth_dev *eth;
	struct rte_ether_addr mac;
	struct acis_fpga_model model;
	struct acis_cgra *cgra;
	uint8_t *scratch;          /* CGRA stream_out */
	int fault_logged;
	rte_spinlock_t lock;
	int shared;                /* more than one TX queue: lock */
	int started;
	int admin_up;
	int link_up;               /* started && admin_up, read per burst */
	uint32_t gen;              /* bumped when the link goes down */
	uint64_t lost_ctl;         /* frames dropped by the control path */
	/* at the last reset: the data path's counters are never written
	 * from here, a reset moves these instead */
	uint64_t base_lost_ctl, base_busy, base_wait;
	struct fpga_txq *txq[FPGA_MAX_QUEUES];
	struct fpga_rxq *rxq[FPGA_MAX_QUEUES];
};

/* ------------------------------------------------------------------ */
/* Data path                                                           */

/* An mbuf chain the receiver may write: no segment shared or attached. */
static inline int
mbuf_private(const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
			return 0;
	return 1;
}

static void
log_fault(struct fpga_dev *p, int rc)
{
	if (p->fault_logged)
		return;
	p->fault_logged = 1;
	FPGA_LOG(WARNING, "%s: CGRA handler fault: %s: %s (counted in "
		 "fpga_cgra_faults; logged once)", p->eth->data->name,
		 acis_cgra_strerror(rc), acis_cgra_last_error(p->cgra));
}

/* Run the CGRA program on the UDP payload and send the frame back to its
 * sender (thesis §4.3.2, §4.5.2). Returns the mbuf, or NULL when the frame
 * was dropped (freed and counted). Called with the device lock if shared. */
static struct rte_mbuf *
process_cgra(struct fpga_dev *p, struct fpga_txq *q, struct rte_mbuf *m,
	     uint64_t *cycles)
{
	struct acis_cgra_run_stats st;
	struct acis_fpga_hdr h;
	struct acis_pkt_info pi;
	uint8_t *f;
	size_t out_len = 0;
	uint32_t room, flen;
	int rc;

	if (unlikely(m->nb_segs != 1)) {
		q->c[XS_CGRA_SEGMENTED]++;
		goto drop;
	}
	f = rte_pktmbuf_mtod(m, uint8_t *);
	acis_fpga_frame_parse(f, m->data_len, &h);
	if (unlikely(h.l4 == 0)) {
		q->c[XS_NOT_UDP]++;
		goto drop;
	}
	rc = acis_cgra_run(p->cgra, f + h.payload, h.payload_len, p->scratch,
			   FPGA_MAX_PAYLOAD, &out_len, &st);
	q->c[XS_CGRA_RUNS]++;
	q->c[XS_CGRA_INSNS] += st.instructions;
	q->c[XS_CGRA_CYCLES] += st.cycles;
	*cycles = st.cycles;
	if (unlikely(rc != 0)) {
		q->c[XS_CGRA_FAULTS]++;
		log_fault(p, rc);
		goto drop;
	}
	room = (uint32_t)(m->buf_len - m->data_off);
	if (unlikely(out_len > acis_fpga_frame_max_payload(&h) ||
		     h.payload + out_len > room)) {
		q->c[XS_CGRA_TOO_LONG]++;
		goto drop;
	}
	memcpy(f + h.payload, p->scratch, out_len);
	pi = acis_fpga_frame_pkt_info(&h);
	flen = acis_udp4_finish(f, &pi, (uint32_t)out_len, 1, NULL);
	m->data_len = (uint16_t)flen;
	m->pkt_len = flen;
	return m;
drop:
	rte_pktmbuf_free(m);
	return NULL;
}

static uint16_t
fpga_tx(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct fpga_txq *q = queue;
	struct fpga_dev *p = q->p;
	struct acis_fpga_hdr h;
	uint32_t n, i, k = 0, gen;
	uint64_t now;

	if (unlikely(!__atomic_load_n(&p->link_up, __ATOMIC_ACQUIRE))) {
		q->c[XS_LINK_DOWN_REFUSED] += nb;
		return 0;
	}
	n = acis_fpga_fifo_room(q->fifo, nb);
	if (unlikely(n < nb))
		q->c[XS_QUEUE_FULL] += nb - n;
	if (unlikely(n == 0))
		return 0;
	gen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
	if (p->shared)
		rte_spinlock_lock(&p->lock);
	now = rte_get_tsc_cycles();
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *c;
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint64_t cycles = 0, ready;

		q->c[XS_FRAMES_IN]++;
		q->c[XS_BYTES_IN] += len;
		if (unlikely(!q->has_rx)) {
			/* back from the FPGA, but nobody receives */
			acis_fpga_model_admit(&p->model, now, len, 0);
			q->c[XS_NO_RX_QUEUE]++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(!mbuf_private(m))) {
			c = rte_pktmbuf_copy(m, q->pool, 0, UINT32_MAX);
			rte_pktmbuf_free(m);
			if (c == NULL) {
				acis_fpga_model_admit(&p->model, now, len, 0);
				q->c[XS_NOMBUF]++;
				continue;
			}
			q->c[XS_COPIES]++;
			m = c;
		}
		switch (p->prm.mode) {
		case MODE_LOOPBACK:
			break;
		case MODE_SWAP:
			acis_fpga_frame_parse(rte_pktmbuf_mtod(m, uint8_t *),
					      m->data_len, &h);
			if (likely(m->data_len >= RTE_ETHER_HDR_LEN))
				acis_pkt_swap(rte_pktmbuf_mtod(m, uint8_t *),
					      h.l3, h.l4);
			break;
		case MODE_CGRA:
			m = process_cgra(p, q, m, &cycles);
			break;
		}
		ready = acis_fpga_model_admit(&p->model, now, len, cycles);
		if (m != NULL)
			acis_fpga_fifo_put(q->fifo, k++, m, ready, gen);
	}
	if (p->shared)
		rte_spinlock_unlock(&p->lock);
	acis_fpga_fifo_publish(q->fifo, k);
	return (uint16_t)n;
}

static uint16_t
fpga_rx(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct fpga_rxq *q = queue;
	struct fpga_dev *p = q->p;
	uint32_t s, i, cnt, gen, up;
	uint16_t got = 0;
	uint64_t now = 0;

	up = __atomic_load_n(&p->link_up, __ATOMIC_ACQUIRE);
	gen = __atomic_load_n(&p->gen, __ATOMIC_ACQUIRE);
	for (s = 0; s < q->n_src && got < nb; s++) {
		struct acis_fpga_fifo *f = q->src[(q->next + s) % q->n_src];

		cnt = acis_fpga_fifo_count(f, nb - got);
		if (cnt == 0)
			continue;
		if (now == 0)
			now = rte_get_tsc_cycles();
		for (i = 0; i < cnt; i++) {
			const struct acis_fpga_slot *sl = acis_fpga_fifo_peek(f, i);
			struct rte_mbuf *m = sl->pkt;

			if (unlikely(!up || sl->gen != gen)) {
				/* sent before the link went down */
				rte_pktmbuf_free(m);
				q->c[XS_LOST_LINK_DOWN]++;
				continue;
			}
			if (sl->ready > now || got == nb)
				break;
			m->port = q->port_id;
			m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
			m->packet_type = 0;
			q->c[XS_FRAMES_OUT]++;
			q->c[XS_BYTES_OUT] += m->pkt_len;
			pkts[got++] = m;
		}
		acis_fpga_fifo_consume(f, i);
	}
	if (q->n_src > 1)
		q->next = (uint16_t)((q->next + 1) % q->n_src);
	return got;
}

/* ------------------------------------------------------------------ */
/* Control path                                                        */

static void
link_publish(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	struct rte_eth_link link = {
		.link_speed = (uint32_t)(p->prm.t.rate_bps / 1000000),
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = p->link_up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN,
	};

	rte_eth_linkstatus_set(dev, &link);
}

/* Recompute the link from started and admin state; tell LSC listeners. */
static void
link_change(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	int up = p->started && p->admin_up;

	if (up == p->link_up)
		return;
	if (!up) {
		__atomic_store_n(&p->link_up, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&p->gen, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&p->link_up, 1, __ATOMIC_RELEASE);
	}
	link_publish(dev);
	if (dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

static int
fpga_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	link_publish(dev);
	return 0;
}

static int
fpga_set_link_up(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;

	p->admin_up = 1;
	link_change(dev);
	return 0;
}

static int
fpga_set_link_down(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;

	p->admin_up = 0;
	link_change(dev);
	return 0;
}

static int
fpga_configure(struct rte_eth_dev *dev)
{
	if (dev->data->nb_tx_queues > FPGA_MAX_QUEUES ||
	    dev->data->nb_rx_queues > FPGA_MAX_QUEUES)
		return -EINVAL;
	return 0;
}

static int
fpga_infos_get(struct rte_eth_dev *dev __rte_unused,
	       struct rte_eth_dev_info *info)
{
	info->max_mac_addrs = 1;
	info->max_rx_pktlen = FPGA_MAX_PAYLOAD + RTE_ETHER_HDR_LEN + 8;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = FPGA_MAX_PAYLOAD;
	info->max_rx_queues = FPGA_MAX_QUEUES;
	info->max_tx_queues = FPGA_MAX_QUEUES;
	info->min_rx_bufsize = 0;
	info->rx_desc_lim.nb_max = UINT16_MAX;
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->speed_capa = RTE_ETH_LINK_SPEED_FIXED;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return 0;
}

/* Free what is in flight (the application no longer polls). */
static void
drain(struct fpga_dev *p, struct rte_eth_dev *dev)
{
	uint16_t i;
	uint32_t n, j;

	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct fpga_txq *q = p->txq[i];

		if (q == NULL)
			continue;
		n = acis_fpga_fifo_count(q->fifo, UINT32_MAX);
		for (j = 0; j < n; j++)
			rte_pktmbuf_free(acis_fpga_fifo_peek(q->fifo, j)->pkt);
		acis_fpga_fifo_consume(q->fifo, n);
		p->lost_ctl += n;
	}
}

static int
fpga_start(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	uint16_t nrx = dev->data->nb_rx_queues, ntx = dev->data->nb_tx_queues;
	uint16_t i;

	for (i = 0; i < nrx; i++)
		if (p->rxq[i] == NULL)
			return -EINVAL;
	for (i = 0; i < ntx; i++)
		if (p->txq[i] == NULL)
			return -EINVAL;
	for (i = 0; i < nrx; i++)
		p->rxq[i]->n_src = 0;
	/* TX queue i returns on RX queue i % nrx */
	for (i = 0; i < ntx; i++) {
		struct fpga_txq *q = p->txq[i];

		q->has_rx = nrx > 0;
		if (nrx > 0) {
			struct fpga_rxq *r = p->rxq[i % nrx];

			q->pool = r->pool;
			r->src[r->n_src++] = q->fifo;
		}
	}
	p->shared = ntx > 1;
	acis_fpga_model_reset(&p->model);
	for (i = 0; i < nrx; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < ntx; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	p->started = 1;
	link_change(dev);
	return 0;
}

static int
fpga_stop(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	uint16_t i;

	p->started = 0;
	link_change(dev);
	drain(p, dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

static int
fpga_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		    uint16_t nb_desc __rte_unused, unsigned int socket,
		    const struct rte_eth_rxconf *conf __rte_unused,
		    struct rte_mempool *pool)
{
	struct fpga_dev *p = dev->data->dev_private;
	struct fpga_rxq *q;

	q = rte_zmalloc_socket("acis_fpga_rxq", sizeof(*q),
			       RTE_CACHE_LINE_SIZE, (int)socket);
	if (q == NULL)
		return -ENOMEM;
	q->p = p;
	q->pool = pool;
	q->qid = qid;
	q->port_id = dev->data->port_id;
	rte_free(p->rxq[qid]);
	p->rxq[qid] = q;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
fpga_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		    uint16_t nb_desc __rte_unused, unsigned int socket,
		    const struct rte_eth_txconf *conf __rte_unused)
{
	struct fpga_dev *p = dev->data->dev_private;
	struct fpga_txq *q;

	q = rte_zmalloc_socket("acis_fpga_txq", sizeof(*q),
			       RTE_CACHE_LINE_SIZE, (int)socket);
	if (q == NULL)
		return -ENOMEM;
	q->fifo = rte_zmalloc_socket("acis_fpga_fifo",
				     acis_fpga_fifo_size(p->prm.depth),
				     RTE_CACHE_LINE_SIZE, (int)socket);
	if (q->fifo == NULL) {
		rte_free(q);
		return -ENOMEM;
	}
	acis_fpga_fifo_init(q->fifo, p->prm.depth);
	q->p = p;
	q->qid = qid;
	if (p->txq[qid] != NULL) {
		rte_free(p->txq[qid]->fifo);
		rte_free(p->txq[qid]);
	}
	p->txq[qid] = q;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static void
fpga_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct fpga_dev *p = dev->data->dev_private;

	rte_free(p->rxq[qid]);
	p->rxq[qid] = NULL;
	dev->data->rx_queues[qid] = NULL;
}

static void
fpga_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct fpga_dev *p = dev->data->dev_private;
	struct fpga_txq *q = p->txq[qid];
	uint32_t n, j;

	if (q == NULL)
		return;
	n = acis_fpga_fifo_count(q->fifo, UINT32_MAX);
	for (j = 0; j < n; j++)
		rte_pktmbuf_free(acis_fpga_fifo_peek(q->fifo, j)->pkt);
	rte_free(q->fifo);
	rte_free(q);
	p->txq[qid] = NULL;
	dev->data->tx_queues[qid] = NULL;
}

/* A queue's counter since the last reset. */
#define QC(q, k) ((q)->c[k] - (q)->base[k])

/* Every counter, summed over the queues, since the last reset. */
static void
counters(struct rte_eth_dev *dev, uint64_t v[XS_MAX])
{
	struct fpga_dev *p = dev->data->dev_private;
	uint64_t hz = p->prm.t.hz;
	unsigned int i, k;

	memset(v, 0, sizeof(uint64_t) * XS_MAX);
	for (i = 0; i < FPGA_MAX_QUEUES; i++) {
		for (k = 0; k < XS_MAX; k++) {
			if (p->txq[i] != NULL)
				v[k] += QC(p->txq[i], k);
			if (p->rxq[i] != NULL)
				v[k] += QC(p->rxq[i], k);
		}
		if (p->txq[i] != NULL)
			v[XS_IN_FLIGHT] += acis_fpga_fifo_used(p->txq[i]->fifo);
	}
	v[XS_LOST_LINK_DOWN] += p->lost_ctl - p->base_lost_ctl;
	v[XS_LINK_BUSY_NS] = acis_fpga_ticks_to_ns(p->model.busy -
						   p->base_busy, hz);
	v[XS_LINK_WAIT_NS] = acis_fpga_ticks_to_ns(p->model.wait -
						   p->base_wait, hz);
}

static int
fpga_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct fpga_dev *p = dev->data->dev_private;
	uint64_t v[XS_MAX];
	unsigned int i;

	counters(dev, v);
	st->ipackets = v[XS_FRAMES_OUT];
	st->ibytes = v[XS_BYTES_OUT];
	st->opackets = v[XS_FRAMES_IN];
	st->obytes = v[XS_BYTES_IN];
	st->imissed = v[XS_NO_RX_QUEUE];
	st->rx_nombuf = v[XS_NOMBUF];
	for (i = 0; i < RTE_ETHDEV_QUEUE_STAT_CNTRS && i < FPGA_MAX_QUEUES;
	     i++) {
		if (p->rxq[i] != NULL) {
			st->q_ipackets[i] = QC(p->rxq[i], XS_FRAMES_OUT);
			st->q_ibytes[i] = QC(p->rxq[i], XS_BYTES_OUT);
		}
		if (p->txq[i] != NULL) {
			st->q_opackets[i] = QC(p->txq[i], XS_FRAMES_IN);
			st->q_obytes[i] = QC(p->txq[i], XS_BYTES_IN);
		}
	}
	return 0;
}

static int
fpga_stats_reset(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	unsigned int i;

	for (i = 0; i < FPGA_MAX_QUEUES; i++) {
		if (p->txq[i] != NULL)
			memcpy(p->txq[i]->base, p->txq[i]->c,
			       sizeof(p->txq[i]->base));
		if (p->rxq[i] != NULL)
			memcpy(p->rxq[i]->base, p->rxq[i]->c,
			       sizeof(p->rxq[i]->base));
	}
	p->base_lost_ctl = p->lost_ctl;
	p->base_busy = p->model.busy;
	p->base_wait = p->model.wait;
	return 0;
}

static int
fpga_xstats_get_names(struct rte_eth_dev *dev __rte_unused,
		      struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int k;

	if (names == NULL || size < XS_MAX)
		return XS_MAX;
	for (k = 0; k < XS_MAX; k++)
		snprintf(names[k].name, sizeof(names[k].name), "%s",
			 xstat_names[k]);
	return XS_MAX;
}

static int
fpga_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		unsigned int n)
{
	uint64_t v[XS_MAX];
	unsigned int k;

	if (xs == NULL || n < XS_MAX)
		return XS_MAX;
	counters(dev, v);
	for (k = 0; k < XS_MAX; k++) {
		xs[k].id = k;
		xs[k].value = v[k];
	}
	return XS_MAX;
}

static int
fpga_mtu_set(struct rte_eth_dev *dev __rte_unused, uint16_t mtu __rte_unused)
{
	return 0; /* frames of any length the mbufs hold come back */
}

static int
fpga_mode_noop(struct rte_eth_dev *dev __rte_unused)
{
	return 0; /* the FPGA returns every frame: always promiscuous */
}

static int
fpga_mac_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac)
{
	struct fpga_dev *p = dev->data->dev_private;

	p->mac = *mac;
	return 0;
}

static int
fpga_close(struct rte_eth_dev *dev)
{
	struct fpga_dev *p = dev->data->dev_private;
	uint16_t i;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	for (i = 0; i < FPGA_MAX_QUEUES; i++) {
		if (p->txq[i] != NULL)
			fpga_tx_queue_release(dev, i);
		if (p->rxq[i] != NULL)
			fpga_rx_queue_release(dev, i);
	}
	acis_cgra_free(p->cgra);
	p->cgra = NULL;
	rte_free(p->scratch);
	p->scratch = NULL;
	dev->data->mac_addrs = NULL; /* part of dev_private */
	return 0;
}

static const struct eth_dev_ops fpga_ops = {
	.dev_configure = fpga_configure,
	.dev_start = fpga_start,
	.dev_stop = fpga_stop,
	.dev_close = fpga_close,
	.dev_set_link_up = fpga_set_link_up,
	.dev_set_link_down = fpga_set_link_down,
	.link_update = fpga_link_update,
	.dev_infos_get = fpga_infos_get,
	.rx_queue_setup = fpga_rx_queue_setup,
	.tx_queue_setup = fpga_tx_queue_setup,
	.rx_queue_release = fpga_rx_queue_release,
	.tx_queue_release = fpga_tx_queue_release,
	.stats_get = fpga_stats_get,
	.stats_reset = fpga_stats_reset,
	.xstats_get = fpga_xstats_get,
	.xstats_get_names = fpga_xstats_get_names,
	.xstats_reset = fpga_stats_reset,
	.mtu_set = fpga_mtu_set,
	.promiscuous_enable = fpga_mode_noop,
	.promiscuous_disable = fpga_mode_noop,
	.allmulticast_enable = fpga_mode_noop,
	.allmulticast_disable = fpga_mode_noop,
	.mac_addr_set = fpga_mac_set,
};

/* ------------------------------------------------------------------ */
/* Devargs                                                             */

#define DEVARGS_FORM                                                          \
	"mode=loopback|swap|cgra, latency_ns=N, rate_gbps=X, proc_ns=N, "      \
	"overhead=BYTES, depth=N, link=up|down, mac=XX:XX:XX:XX:XX:XX, "       \
	"program=FILE(.s|.bin), memory=[BANK:OFFSET:]FILE, vpes=N, banks=N, "  \
	"bank_size=BYTES, cgra_mhz=N, budget=N"

static const char *const valid_keys[] = {
	"mode", "latency_ns", "rate_gbps", "proc_ns", "overhead", "depth",
	"link", "mac", "program", "memory", "vpes", "banks", "bank_size",
	"cgra_mhz", "budget", NULL,
};

static int
parse_u64(const char *name, const char *key, const char *v, uint64_t lo,
	  uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || x < lo ||
	    x > hi) {
		FPGA_LOG(ERR, "%s: %s: expected an integer %" PRIu64
			 "..%" PRIu64 ", found '%s'", name, key, lo, hi, v);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

/* A decimal Gb/s with at most 6 fraction digits, to whole bits per
 * second without floating point. */
static int
parse_gbps(const char *name, const char *v, uint64_t *bps)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000;
	const char *s = v;
	int digits = 0;

	while (*s >= '0' && *s <= '9' && whole < 100000)
		whole = whole * 10 + (uint64_t)(*s++ - '0'), digits++;
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9' && scale > 1000) {
			scale /= 10;
			frac += (uint64_t)(*s++ - '0') * scale;
			digits++;
		}
	}
	*bps = whole * 1000000000 + frac;
	if (*s != '\0' || digits == 0 || *bps < 1000000 ||
	    *bps > UINT64_C(10000000000000)) {
		FPGA_LOG(ERR, "%s: rate_gbps: expected a rate in Gb/s from "
			 "0.001 to 10000 (e.g. 95.9), found '%s'", name, v);
		return -EINVAL;
	}
	return 0;
}

/* program=FILE: its words if FILE ends in .bin, else its text assembled
 * (acis_cgra_read_program: the same rule as the switch and acis-asm). */
static int
load_program(struct fpga_dev *p, const char *name)
{
	const char *path = p->prm.program;
	uint32_t *words;
	char err[PATH_MAX + 256];
	size_t nw;
	int rc;

	if (acis_cgra_read_program(path, &words, &nw, err, sizeof(err)) != 0) {
		FPGA_LOG(ERR, "%s: program: %s", name, err);
		return -EINVAL;
	}
	rc = acis_cgra_load(p->cgra, words, nw, err, sizeof(err));
	free(words);
	if (rc != 0) {
		FPGA_LOG(ERR, "%s: program: the CGRA loader refused '%s': %s",
			 name, path, err);
		return -EINVAL;
	}
	return 0;
}

/* memory=FILE (bank 1 at 0) or memory=BANK:OFFSET:FILE */
static int
load_memory(struct fpga_dev *p, const char *name, const char *spec)
{
	uint64_t bank = 1, off = 0;
	const char *path = spec, *c1 = strchr(spec, ':');
	uint8_t *buf;
	size_t len;
	char tmp[32], err[PATH_MAX + 256];
	int rc;

	if (c1 != NULL) {
		const char *c2 = strchr(c1 + 1, ':');

		if (c2 == NULL || (size_t)(c1 - spec) >= sizeof(tmp) ||
		    (size_t)(c2 - c1 - 1) >= sizeof(tmp)) {
			FPGA_LOG(ERR, "%s: memory: expected FILE or "
				 "BANK:OFFSET:FILE, found '%s'", name, spec);
			return -EINVAL;
		}
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(c1 - spec), spec);
		if (parse_u64(name, "memory (bank)", tmp, 1,
			      ACIS_CGRA_MAX_BANKS - 1, &bank) != 0)
			return -EINVAL;
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		if (parse_u64(name, "memory (offset)", tmp, 0, UINT32_MAX,
			      &off) != 0)
			return -EINVAL;
		path = c2 + 1;
	}
	if (acis_cgra_read_file(path, &buf, &len, err, sizeof(err)) != 0) {
		FPGA_LOG(ERR, "%s: memory: %s", name, err);
		return -EINVAL;
	}
	rc = acis_cgra_mem_write(p->cgra, (unsigned int)bank, off, buf, len);
	free(buf);
	if (rc != 0) {
		struct acis_cgra_config cfg;

		acis_cgra_get_config(p->cgra, &cfg);
		FPGA_LOG(ERR, "%s: memory: '%s' (%zu bytes) does not fit bank "
			 "%" PRIu64 " at offset %" PRIu64 " (the machine has "
			 "data banks 1..%u of %zu bytes)", name, path, len,
			 bank, off, cfg.n_banks, cfg.bank_size);
		return -EINVAL;
	}
	return 0;
}

static int
parse_mac(const char *name, const char *v, struct rte_ether_addr *mac)
{
	if (rte_ether_unformat_addr(v, mac) != 0 ||
	    !rte_is_unicast_ether_addr(mac) || rte_is_zero_ether_addr(mac)) {
		FPGA_LOG(ERR, "%s: mac: expected a unicast MAC "
			 "XX:XX:XX:XX:XX:XX, found '%s'", name, v);
		return -EINVAL;
	}
	return 0;
}

/* One key=value; memory= is applied later (it needs the machine). */
static int
parse_kv(struct fpga_params *prm, const char *name, const char *key,
	 const char *v, int *n_memory)
{
	uint64_t x = 0;
	int rc = 0;

	if (strcmp(key, "mode") == 0) {
		unsigned int i;

		for (i = 0; i < RTE_DIM(mode_names); i++)
			if (strcmp(v, mode_names[i]) == 0)
				break;
		if (i == RTE_DIM(mode_names)) {
			FPGA_LOG(ERR, "%s: mode: expected loopback, swap or "
				 "cgra, found '%s'", name, v);
			return -EINVAL;
		}
		prm->mode = (enum fpga_mode)i;
	} else if (strcmp(key, "latency_ns") == 0) {
		rc = parse_u64(name, key, v, 0, 1000000000, &prm->t.latency_ns);
	} else if (strcmp(key, "rate_gbps") == 0) {
		rc = parse_gbps(name, v, &prm->t.rate_bps);
	} else if (strcmp(key, "proc_ns") == 0) {
		rc = parse_u64(name, key, v, 0, 1000000000, &prm->t.proc_ns);
	} else if (strcmp(key, "overhead") == 0) {
		rc = parse_u64(name, key, v, 0, 1024, &x);
		prm->t.overhead = (uint32_t)x;
	} else if (strcmp(key, "depth") == 0) {
		rc = parse_u64(name, key, v, 1, ACIS_FPGA_MAX_DEPTH, &x);
		prm->depth = (uint32_t)x;
	} else if (strcmp(key, "link") == 0) {
		if (strcmp(v, "up") != 0 && strcmp(v, "down") != 0) {
			FPGA_LOG(ERR, "%s: link: expected up or down, found "
				 "'%s'", name, v);
			return -EINVAL;
		}
		prm->link_up = strcmp(v, "up") == 0;
	} else if (strcmp(key, "mac") == 0) {
		rc = parse_mac(name, v, &prm->mac);
		prm->mac_set = 1;
	} else if (strcmp(key, "program") == 0) {
		if (strlen(v) >= sizeof(prm->program)) {
			FPGA_LOG(ERR, "%s: program: path too long", name);
			return -EINVAL;
		}
		snprintf(prm->program, sizeof(prm->program), "%s", v);
	} else if (strcmp(key, "memory") == 0) {
		(*n_memory)++;
	} else if (strcmp(key, "vpes") == 0) {
		rc = parse_u64(name, key, v, 1, ACIS_CGRA_MAX_VPE, &x);
		prm->cgra.n_vpe = (unsigned int)x;
	} else if (strcmp(key, "banks") == 0) {
		rc = parse_u64(name, key, v, 1, ACIS_CGRA_MAX_BANKS - 1, &x);
		prm->cgra.n_banks = (unsigned int)x;
	} else if (strcmp(key, "bank_size") == 0) {
		rc = parse_u64(name, key, v, 4, UINT32_MAX, &x);
		prm->cgra.bank_size = (size_t)x;
	} else if (strcmp(key, "cgra_mhz") == 0) {
		rc = parse_u64(name, key, v, 1, 100000, &x);
		prm->cgra_mhz = (uint32_t)x;
	} else if (strcmp(key, "budget") == 0) {
		rc = parse_u64(name, key, v, 1, UINT64_C(1) << 40,
			       &prm->cgra.insn_budget);
	}
	return rc;
}

/* Walk "k=v,k=v": call fn on each pair, or with memory_only on the
 * memory= pairs only. Keys are checked against valid_keys, each may come
 * once except memory. */
static int
walk_devargs(const char *args, const char *name, struct fpga_params *prm,
	     struct fpga_dev *p, int memory_only, int *n_memory)
{
	char *copy, *tok, *save = NULL;
	uint32_t seen = 0;
	int rc = 0;

	if (args == NULL || *args == '\0')
		return 0;
	copy = strdup(args);
	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok != NULL && rc == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned int k;

		if (eq == NULL) {
			FPGA_LOG(ERR, "%s: devarg '%s': expected key=value "
				 "(%s)", name, tok, DEVARGS_FORM);
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		for (k = 0; valid_keys[k] != NULL; k++)
			if (strcmp(tok, valid_keys[k]) == 0)
				break;
		if (valid_keys[k] == NULL) {
			FPGA_LOG(ERR, "%s: unknown devarg '%s' (expected %s)",
				 name, tok, DEVARGS_FORM);
			rc = -EINVAL;
			break;
		}
		if (memory_only) {
			if (strcmp(tok, "memory") == 0)
				rc = load_memory(p, name, eq + 1);
			continue;
		}
		if (strcmp(tok, "memory") != 0 && (seen & (1u << k))) {
			FPGA_LOG(ERR, "%s: %s: given twice", name, tok);
			rc = -EINVAL;
			break;
		}
		seen |= 1u << k;
		rc = parse_kv(prm, name, tok, eq + 1, n_memory);
	}
	free(copy);
	return rc;
}

static int
fpga_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	const char *args = rte_vdev_device_args(vdev);
	struct fpga_params prm;
	struct rte_eth_dev *eth;
	struct fpga_dev *p;
	int n_memory = 0, rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		FPGA_LOG(ERR, "%s: secondary processes are not supported",
			 name);
		return -ENOTSUP;
	}
	memset(&prm, 0, sizeof(prm));
	prm.mode = MODE_LOOPBACK;
	prm.t.latency_ns = 440;              /* thesis Table 3.2 */
	prm.t.rate_bps = UINT64_C(95900000000); /* thesis Table 3.2 */
	prm.depth = 1024;
	prm.link_up = 1;
	prm.cgra_mhz = 250;                  /* thesis §4.6.2 */
	rc = walk_devargs(args, name, &prm, NULL, 0, &n_memory);
	if (rc != 0)
		return rc;
	if (prm.mode != MODE_CGRA &&
	    (prm.program[0] != '\0' || n_memory > 0 || prm.cgra.n_vpe ||
	     prm.cgra.n_banks || prm.cgra.bank_size ||
	     prm.cgra.insn_budget)) {
		FPGA_LOG(ERR, "%s: program, memory, vpes, banks, bank_size and "
			 "budget are for mode=cgra (mode is %s)", name,
			 mode_names[prm.mode]);
		return -EINVAL;
	}
	if (prm.mode == MODE_CGRA && prm.program[0] == '\0') {
		FPGA_LOG(ERR, "%s: mode=cgra needs program=FILE (CGRA assembly, "
			 "or its binary words in a file ending in .bin)",
			 name);
		return -EINVAL;
	}
	prm.t.hz = rte_get_tsc_hz();
	prm.t.proc_hz = (uint64_t)prm.cgra_mhz * 1000000;

	eth = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (eth == NULL)
		return -ENOMEM;
	p = eth->data->dev_private;
	p->prm = prm;
	p->eth = eth;
	rte_spinlock_init(&p->lock);
	p->admin_up = prm.link_up;
	if (acis_fpga_model_init(&p->model, &prm.t) != 0) {
		FPGA_LOG(ERR, "%s: latency_ns, proc_ns, rate_gbps and cgra_mhz "
			 "give times the model cannot hold at a %" PRIu64
			 " Hz clock", name, prm.t.hz);
		rc = -EINVAL;
		goto fail;
	}
	if (prm.mode == MODE_CGRA) {
		p->cgra = acis_cgra_create(&prm.cgra);
		p->scratch = rte_malloc("acis_fpga_scratch", FPGA_MAX_PAYLOAD,
					RTE_CACHE_LINE_SIZE);
		if (p->cgra == NULL || p->scratch == NULL) {
			FPGA_LOG(ERR, "%s: cannot create the CGRA machine with "
				 "vpes=%u, banks=%u, bank_size=%zu (0: the "
				 "default): out of memory", name,
				 prm.cgra.n_vpe, prm.cgra.n_banks,
				 prm.cgra.bank_size);
			rc = -ENOMEM;
			goto fail;
		}
		rc = walk_devargs(args, name, &prm, p, 1, &n_memory);
		if (rc == 0)
			rc = load_program(p, name);
		if (rc != 0)
			goto fail;
	}
	if (prm.mac_set) {
		p->mac = prm.mac;
	} else {
		/* locally administered, one per port */
		struct rte_ether_addr a = {{0x02, 0xac, 0xf9, 0x00,
					    (uint8_t)(eth->data->port_id >> 8),
					    (uint8_t)eth->data->port_id}};
		p->mac = a;
	}
	eth->data->mac_addrs = &p->mac;
	eth->data->promiscuous = 1;
	eth->data->all_multicast = 1;
	eth->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	eth->dev_ops = &fpga_ops;
	eth->rx_pkt_burst = fpga_rx;
	eth->tx_pkt_burst = fpga_tx;
	link_publish(eth);
	rte_eth_dev_probing_finish(eth);
	FPGA_LOG(INFO, "%s: mode %s, latency %" PRIu64 " ns, rate %" PRIu64
		 " Mb/s, depth %u%s%s", name, mode_names[prm.mode],
		 prm.t.latency_ns, prm.t.rate_bps / 1000000, prm.depth,
		 prm.mode == MODE_CGRA ? ", program " : "",
		 prm.mode == MODE_CGRA ? prm.program : "");
	return 0;
fail:
	acis_cgra_free(p->cgra);
	p->cgra = NULL;
	rte_free(p->scratch);
	p->scratch = NULL;
	rte_eth_dev_release_port(eth);
	return rc;
}

static int
fpga_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *eth;

	eth = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (eth == NULL)
		return 0;
	fpga_close(eth);
	rte_eth_dev_release_port(eth);
	return 0;
}

static struct rte_vdev_driver fpga_driver = {
	.probe = fpga_probe,
	.remove = fpga_remove,
};

RTE_PMD_REGISTER_VDEV(net_acis_fpga, fpga_driver);

/* Referenced with -Wl,-u by acis_fpga_pmd_dep, so that a static link keeps
 * this object and with it the constructor above. */
void acis_fpga_pmd_anchor(void);
void
acis_fpga_pmd_anchor(void)
{
}
RTE_PMD_REGISTER_PARAM_STRING(net_acis_fpga, DEVARGS_FORM);
