/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The look-aside stage's state: one CGRA machine (lib/cgra) per
 * [lookaside NAME] rule of the pipeline, owned by the worker lcore the
 * rule names. Only that worker touches the machine: it runs the packet
 * handler on the rule's packets and, between graph walks, carries out the
 * management requests (load a program, write resident memory, start,
 * stop, pass-through) that the telemetry thread posts to the rule's
 * mailbox. So a program is swapped without locks on the packet path and
 * without stopping other traffic.
 */
#ifndef ACIS_LOOKASIDE_H
#define ACIS_LOOKASIDE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acis_cgra.h"
#include "acis_pipeline.h"
#include "acis_pkt.h"
#include "acis_proto.h"
#include "switch.h"

/* Counters of a rule; written by its worker only. */
struct acis_la_stats {
	uint64_t pkts_in;
	uint64_t bytes_in;      /**< stream_in bytes handed to the handler */
	uint64_t pkts_out;      /**< result packets sent on */
	uint64_t bytes_out;     /**< stream_out bytes */
	uint64_t consumed;      /**< runs that emitted nothing */
	uint64_t passthrough;   /**< packets sent on unchanged */
	uint64_t faults;        /**< runs that failed (budget, memory, ...) */
	uint64_t not_ready;     /**< dropped: stopped or no program */
	uint64_t oversize;      /**< dropped: result beyond MTU/buffer */
	uint64_t runs;
	uint64_t instructions;
	uint64_t element_ops;
	uint64_t cycles;
	uint64_t tiles_skipped;
	uint64_t fpga_sent;     /**< proxied to the attached FPGA */
	uint64_t fpga_bytes;
	uint64_t fpga_returned; /**< answers matched to a request */
	uint64_t fpga_lost;     /**< unanswered after timeout_us */
	uint64_t fpga_late;     /**< answers with no request outstanding */
	uint64_t fpga_link_bad; /**< link frames cut short or not 0xFB */
	uint64_t fpga_down;     /**< FPGA port down: dropped */
	uint64_t fpga_fallback; /**< FPGA port down: run here instead */
	uint64_t loads;         /**< programs loaded since start */
	uint64_t mem_writes;    /**< resident memory writes */
};

enum acis_la_op {
	ACIS_LA_OP_LOAD = 1,   /* words/n: write and start a program */
	ACIS_LA_OP_MEM,        /* bank/off/buf/len: write resident data */
	ACIS_LA_OP_READ,       /* bank/off/buf/len: read resident data */
	ACIS_LA_OP_START,      /* restart the program in bank 0 */
	ACIS_LA_OP_STOP,
	ACIS_LA_OP_PASSTHROUGH, /* on */
};

/* A management request, posted by the control side, run by the worker. */
struct acis_la_req {
	int op;
	const uint32_t *words;
	size_t n;
	uint32_t bank;
	size_t off;
	void *buf;
	size_t len;
	int on;
	int rc;                 /* set by the worker */
	char err[256];
	atomic_int done;
};

/* framing = link: what a request looked like, to answer its requester. */
#define ACIS_LA_HDR_MAX 144     /* Ethernet .. UDP (+ ACiS) header bytes */
#define ACIS_LA_LINK_ETHERTYPE 0x88b5 /* IEEE local experimental */
#define ACIS_LA_LINK_HLEN 9     /* start, src id, dst id, control, length */
struct acis_la_pending {
	struct acis_pkt_info pi;
	uint16_t hdr_len;       /* bytes before stream_in */
	uint16_t keep;          /* of which the ACiS header */
	uint16_t in_port;
	uint16_t tag;           /* the control field sent */
	uint8_t to_us;
	uint8_t hdr[ACIS_LA_HDR_MAX];
};

struct acis_la_rule {
	const struct acis_lookaside_cfg *cfg;
	struct acis_cgra *m;
	uint8_t *scratch;       /**< stream_out buffer */
	size_t scratch_len;
	int started;            /**< a program is loaded and running */
	int passthrough;
	char program[ACIS_PATH_LEN]; /**< where the running program came from */
	size_t program_words;
	int last_rc;            /**< last failed run's code, 0 if none */
	char last_error[160];   /**< ... and why */
	_Atomic(struct acis_la_req *) req; /**< mailbox: one request at a time */
	/* proxy to an attached FPGA (cfg->fpga_port >= 0); the worker's */
	int fpga_up;            /**< link state, checked every 100 ms */
	uint64_t next_link_check;
	uint64_t timeout_tsc;
	uint64_t *fifo;         /**< send times of outstanding requests */
	uint32_t fifo_head, fifo_n;
	uint64_t taken;         /**< of fpga_answers, those the worker has
				 * matched or counted late */
	struct acis_la_pending *pend; /**< framing = link: per fifo slot */
	uint16_t next_tag;
	uint64_t fpga_answers;  /**< framing = udp: answers seen on the FPGA
				 * port (parse stage, atomic adds), for
				 * the worker to match */
	struct acis_la_stats st;
} __attribute__((aligned(64)));

struct acis_la_state {
	unsigned int n_rules;
	struct acis_la_rule rules[ACIS_MAX_LOOKASIDE];
	/* ACiS message types some rule takes (bit per type) */
	uint32_t acis_types;
	uint16_t l2_edge;       /**< the look-aside node's edge to acis_l2 */
	uint32_t fpga_ports;    /**< ports some rule proxies to (bitmask) */
};

/* The current switch's (switch.h). */
#define g_la (*g_sw.la)

struct acis_lcore_ctx;

/* Create the machines and load what the pipeline names (program, memory
 * files). 0, or a negative errno with "file:line: why" in err. */
int acis_la_init(const struct acis_pipeline *pl, char *err, size_t len);
void acis_la_fini(void);

/* Whether the lcores run: management requests are then posted to the
 * rule's worker; before, they run on the caller's thread. */
void acis_la_set_running(int on);

/* Between graph walks on every worker: carry out posted requests. */
void acis_la_poll(const struct acis_lcore_ctx *lc);

/* Whether an ACiS message (header at a, at least 12 bytes) is a rule's. */
static inline int
acis_la_acis_match(const struct acis_lookaside_cfg *c, const uint8_t *a)
{
	uint32_t job = acis_rd32(a + ACIS_HOFF_JOB);

	return c->match == ACIS_LA_MATCH_ACIS && a[1] == c->acis_type &&
	       (c->opcode_any || a[2] == c->handler) &&
	       (!c->has_job || job == c->job);
}

/* The rule selecting a look-aside packet, or -1: ACiS messages to the
 * switch by type, opcode and job; other UDP by port, then by destination. */
static inline int
acis_la_rule_of(const uint8_t *eth, const struct acis_pkt_info *pi,
		uint16_t acis_port, uint32_t sw_ip)
{
	unsigned int i;

	if (pi->dport == acis_port && pi->dst_ip == sw_ip) {
		if (pi->payload_len < 12)
			return -1;
		for (i = 0; i < g_la.n_rules; i++)
			if (acis_la_acis_match(g_la.rules[i].cfg,
					       eth + pi->payload_off))
				return (int)i;
		return -1;
	}
	for (i = 0; i < g_la.n_rules; i++)
		if (g_la.rules[i].cfg->match == ACIS_LA_MATCH_UDP &&
		    g_la.rules[i].cfg->udp_port == pi->dport)
			return (int)i;
	for (i = 0; i < g_la.n_rules; i++)
		if (g_la.rules[i].cfg->match == ACIS_LA_MATCH_DST &&
		    g_la.rules[i].cfg->dst_ip == pi->dst_ip)
			return (int)i;
	return -1;
}

#define ACIS_LA_FIFO 4096 /* outstanding FPGA requests tracked per rule */

/*
 * The proxy's accounting, as telemetry shows it. Every request sent is,
 * at every moment, exactly one of returned (an answer was matched to it),
 * lost (unanswered after timeout_us, or pushed out of a full FIFO) or
 * outstanding:
 *
 *	sent == returned + lost + outstanding
 *
 * An answer that finds no request to match (its request already counted
 * lost, or none sent) is late, beside these.
 */
struct acis_la_fpga_counts {
	uint64_t sent, returned, lost, outstanding, late;
};

/* The worker's side: returned and lost are stored with release, after
 * the request's sent (an earlier graph walk), so a reader on another
 * thread never sees an answer or a loss before its request. */
static inline void
acis_la_fpga_count_returned(struct acis_la_rule *r)
{
	__atomic_store_n(&r->st.fpga_returned, r->st.fpga_returned + 1,
			 __ATOMIC_RELEASE);
}

static inline void
acis_la_fpga_count_lost(struct acis_la_rule *r)
{
	__atomic_store_n(&r->st.fpga_lost, r->st.fpga_lost + 1,
			 __ATOMIC_RELEASE);
}

/* Read while the worker runs: returned and lost first, then sent, all
 * only growing, so outstanding is what the worker has in its FIFO at
 * some moment in between and the identity holds in what is shown. */
static inline void
acis_la_fpga_counts(const struct acis_la_rule *r,
		    struct acis_la_fpga_counts *c)
{
	c->returned = __atomic_load_n(&r->st.fpga_returned, __ATOMIC_ACQUIRE);
	c->lost = __atomic_load_n(&r->st.fpga_lost, __ATOMIC_ACQUIRE);
	c->sent = __atomic_load_n(&r->st.fpga_sent, __ATOMIC_RELAXED);
	c->late = __atomic_load_n(&r->st.fpga_late, __ATOMIC_RELAXED);
	c->outstanding = c->sent - c->returned - c->lost;
}

/* A frame that came back from an FPGA port (pi: as the parse stage
 * classified it): a UDP answer is noted for its udp-framed rule, whose
 * worker matches it to the oldest outstanding request (fpga_poll). An
 * empty answer (no UDP payload) is an answer like any other. */
static inline void
acis_la_fpga_udp_answer(uint16_t port, const uint8_t *eth, uint32_t len,
			const struct acis_pkt_info *pi, uint16_t acis_port)
{
	const uint8_t *ip = eth + pi->l3_off, *udp;
	uint32_t ihl;
	uint16_t sport, dport;
	unsigned int i;

	if (pi->l3_off == 0 || pi->ethertype != ACIS_ETHERTYPE_IPV4 ||
	    pi->ip_proto != ACIS_IPPROTO_UDP)
		return;
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	if (len < pi->l3_off + ihl + ACIS_UDP_HLEN)
		return;
	udp = ip + ihl;
	sport = (uint16_t)(udp[0] << 8 | udp[1]);
	dport = (uint16_t)(udp[2] << 8 | udp[3]);
	for (i = 0; i < g_la.n_rules; i++) {
		struct acis_la_rule *r = &g_la.rules[i];
		const struct acis_lookaside_cfg *c = r->cfg;

		if (c->fpga_port != (int)port || c->fpga_link)
			continue;
		/* a LOOKASIDE answer names its handler in the ACiS header
		 * (type, opcode: the payload's bytes 1 and 2) */
		if (c->match == ACIS_LA_MATCH_UDP ?
		    (sport == c->udp_port || dport == c->udp_port) :
		    c->match == ACIS_LA_MATCH_DST ?
		    (memcmp(ip + 12, &c->dst_ip, 4) == 0 ||
		     memcmp(ip + 16, &c->dst_ip, 4) == 0) :
		    ((sport == acis_port || dport == acis_port) &&
		     (c->acis_type != 7 ||
		      (len >= pi->l3_off + ihl + ACIS_UDP_HLEN + 3 &&
		       udp[9] == 7 && udp[10] == c->handler)))) {
			__atomic_fetch_add(&r->fpga_answers, 1,
					   __ATOMIC_RELAXED);
			return;
		}
	}
}

#define ACIS_LA_RETURN_FLAG 0x80 /* meta la_rule: a link frame back */

/* A frame from an FPGA port in our link framing: the index of the rule
 * it answers, -1 for a link frame no rule sent, -2 when it is no link
 * frame at all. A frame cut before its ids end goes to the port's first
 * link-framed rule, which counts it bad (fpga_link_bad): it came from the
 * FPGA that rule talks to, whatever it was meant to say. */
static inline int
acis_la_link_rule(uint16_t port, const uint8_t *eth, uint32_t len)
{
	uint16_t src, dst;
	unsigned int i;

	if (len < 14 || eth[12] != (ACIS_LA_LINK_ETHERTYPE >> 8) ||
	    eth[13] != (ACIS_LA_LINK_ETHERTYPE & 0xff))
		return -2;
	if (len < 14 + 5) {
		for (i = 0; i < g_la.n_rules; i++)
			if (g_la.rules[i].cfg->fpga_port == (int)port &&
			    g_la.rules[i].cfg->fpga_link)
				return (int)i;
		return -1;
	}
	src = (uint16_t)(eth[15] << 8 | eth[16]);
	dst = (uint16_t)(eth[17] << 8 | eth[18]);
	for (i = 0; i < g_la.n_rules; i++) {
		const struct acis_lookaside_cfg *c = g_la.rules[i].cfg;

		if (c->fpga_port == (int)port && c->fpga_link &&
		    ((src == c->link_dst && dst == c->link_src) ||
		     (src == c->link_src && dst == c->link_dst)))
			return (int)i;
	}
	return -1;
}

int acis_la_telemetry_register(void);

#endif /* ACIS_LOOKASIDE_H */
