/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_parse: parse Ethernet/VLAN/IPv4/UDP(/ACiS) and classify.
 *
 * On an lcore that forwards itself, a passing frame (acis_pkt_passing_k)
 * to a known station on another port takes the direct path: it goes
 * straight to that port's TX stage with nothing written in its mbuf.
 *
 * Every other frame is parsed in full; the result lives in the mbuf's
 * private area so later stages, possibly on another lcore, do not parse
 * again. It then goes to its class's stage here, or through the handoff
 * stage to the worker that must see it: ACiS messages to the owner of
 * their aggregation slot (control to worker 0), other traffic of an
 * rx-only lcore to a worker chosen by flow.
 */
#include "../direct.h"

static const uint16_t class_next[ACIS_CLASS_MAX] = {
	[ACIS_CLASS_FORWARD] = ACIS_NEXT_L2,
	[ACIS_CLASS_ARP] = ACIS_NEXT_LOCAL,
	[ACIS_CLASS_ICMP] = ACIS_NEXT_LOCAL,
	[ACIS_CLASS_ACIS] = ACIS_NEXT_COLL,
	[ACIS_CLASS_LOOKASIDE] = ACIS_NEXT_LA,
	[ACIS_CLASS_DROP] = ACIS_NEXT_DROP,
};

static inline uint32_t
flow_hash(const uint8_t *eth)
{
	uint64_t a, b;

	/* Destination and source MAC: a conversation stays on one worker,
	 * so the frames of a flow keep their order. */
	memcpy(&a, eth, 8);
	memcpy(&b, eth + 4, 8);
	a ^= b * 0x9e3779b97f4a7c15ull;
	a *= 0xff51afd7ed558ccdull;
	return (uint32_t)(a >> 32);
}

/* The worker owning an ACiS message: one per collective instance (comm,
 * seq), so all its slots, contributions and confirmations meet on one
 * lcore; control goes to worker 0. */
static inline uint16_t
acis_owner(const uint8_t *eth, const struct acis_pkt_info *pi,
	   uint32_t n_workers)
{
	const uint8_t *a = eth + pi->payload_off;
	uint32_t comm;
	uint8_t type;
	uint64_t h;

	if (n_workers == 1 || pi->payload_len < 32)
		return 0;
	type = a[ACIS_HOFF_TYPE];
	if (type != ACIS_T_DATA && type != ACIS_T_ACK && type != ACIS_T_NACK &&
	    type != ACIS_T_RESULT) /* (a fabric tree's, to its slot) */
		return 0;
	comm = acis_rd32(a + ACIS_HOFF_COMM);
	if (unlikely(comm == ACIS_CTX_WORLD))
		/* the world alias lands where the real id does (the
		 * collective stage resolves it the same way) */
		comm = acis_ct_world(g_sw.coll.ct, acis_rd32(a + ACIS_HOFF_JOB));
	h = ((uint64_t)comm << 32 | acis_rd32(a + ACIS_HOFF_SEQ)) *
	    0x9e3779b97f4a7c15ull;
	h ^= h >> 32;
	return (uint16_t)(((h & 0xffffffffu) * n_workers) >> 32);
}

/*
 * An ACiS datagram passing through a fabric switch (ccfg.transit): a
 * DATA of a collective that folds in trees (by a built-in op), for a
 * communicator whose tree this
 * switch holds below the root it is addressed to, is folded here; every
 * other passes on (L2).
 */
static enum acis_class
transit(const struct acis_mbuf_meta *meta, const uint8_t *eth)
{
	const uint8_t *a = eth + meta->pi.payload_off;

	if (meta->pi.payload_len < ACIS_HDR_LEN ||
	    a[ACIS_HOFF_TYPE] != ACIS_T_DATA ||
	    !acis_coll_tree_folds(a[ACIS_HOFF_OPCODE], a[ACIS_HOFF_OP]) ||
	    acis_tree_find(g_sw.coll.trees, meta->pi.dst_ip,
			   acis_rd32(a + ACIS_HOFF_COMM)) == NULL)
		return ACIS_CLASS_FORWARD;
	return ACIS_CLASS_ACIS;
}

/* Whether a control message may come from this sender and port
 * ([collective] control_from, control_ports). */
static inline int
ctrl_allowed(const struct acis_mbuf_meta *meta)
{
	const struct acis_pipeline *pl = g_sw.pl;
	unsigned int i;

	if (pl->ctrl_ports != 0 && !(pl->ctrl_ports & (1u << meta->in_port)))
		return 0;
	if (pl->n_ctrl_nets == 0)
		return 1;
	for (i = 0; i < pl->n_ctrl_nets; i++)
		if ((meta->pi.src_ip & pl->ctrl_nets[i].mask) ==
		    pl->ctrl_nets[i].addr)
			return 1;
	return 0;
}

/* A frame from a port some rule proxies to: a UDP answer is noted for
 * its rule's worker (and then forwarded by its headers); a link-framed
 * answer, or a link frame cut short, goes to its rule's worker (la_rule
 * flagged), which matches or counts it. */
static inline enum acis_class
fpga_frame(struct acis_mbuf_meta *meta, const uint8_t *eth, uint32_t len,
	   uint16_t port, enum acis_class cls)
{
	int r = acis_la_link_rule(port, eth, len);

	meta->la_rule = 0;
	if (r == -2) {
		acis_la_fpga_udp_answer(port, eth, len, &meta->pi,
					g_sw.ccfg.udp_port);
		return cls;
	}
	if (r < 0) {
		meta->drop_reason = ACIS_DROP_LA_LINK_BAD;
		return ACIS_CLASS_DROP;
	}
	meta->la_rule = (uint8_t)(r | ACIS_LA_RETURN_FLAG);
	meta->drop_reason = ACIS_DROP_NONE;
	return ACIS_CLASS_LOOKASIDE;
}

/* A look-aside packet: the rule that takes it, or a drop. */
static enum acis_class
la_select(struct acis_mbuf_meta *meta, const uint8_t *eth)
{
	int r = acis_la_rule_of(eth, &meta->pi, g_sw.ccfg.udp_port,
				g_sw.ccfg.ip);

	if (r < 0) {
		/* An ACiS message of a type a rule takes, but not that rule's
		 * opcode or job, goes on to its stage; only a look-aside
		 * request nobody handles is dropped. */
		if (meta->pi.dport == g_sw.ccfg.udp_port &&
		    meta->pi.dst_ip == g_sw.ccfg.ip &&
		    eth[meta->pi.payload_off + 1] != ACIS_T_LOOKASIDE)
			return ACIS_CLASS_ACIS;
		meta->drop_reason = ACIS_DROP_LA_NO_RULE;
		return ACIS_CLASS_DROP;
	}
	meta->la_rule = (uint8_t)r;
	return ACIS_CLASS_LOOKASIDE;
}

/* Read the frames ahead: frame i + 6's first line; and once that line is
 * in (three frames later), the rest of its first 4 KiB when it is addressed
 * to the switch's MAC — the UDP checksum of a datagram to the switch reads
 * it whole, where a frame passing through is read no further than its
 * headers. Every line it touches: a frame need not start at a line's
 * start (in the switch's pool the mbuf, its metadata and the headroom
 * put it mid-line), so its last bytes may lie a line beyond the last
 * 64-byte step. The RX stage has just read every mbuf's header, and on
 * a lcore that forwards, the Ethernet header of the frames it tried for
 * the direct path. */
static inline void
prefetch_ahead(void **objs, uint16_t i, uint16_t n, uint64_t mac)
{
	if (i + 6 < n) {
		rte_prefetch0(rte_pktmbuf_mtod((struct rte_mbuf *)objs[i + 6],
					       void *));
		rte_prefetch0_write(acis_meta(objs[i + 6]));
	}
	if (i + 3 < n) {
		const struct rte_mbuf *a = objs[i + 3];
		const uint8_t *f = rte_pktmbuf_mtod(a, const uint8_t *);
		uint32_t k, len = RTE_MIN(a->data_len, 4096u);

		if (len > RTE_CACHE_LINE_SIZE && acis_mac48(f) == mac) {
			for (k = RTE_CACHE_LINE_SIZE; k < len;
			     k += RTE_CACHE_LINE_SIZE)
				rte_prefetch0(f + k);
			rte_prefetch0(f + len - 1);
		}
	}
}

static uint16_t
parse_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	      uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	int rx_only = lc->worker_index < 0;
	uint32_t n_workers = g_sw.n_workers;
	uint16_t self = (uint16_t)lc->worker_index;
	uint16_t nexts[RTE_GRAPH_BURST_SIZE * 4];
	uint16_t i, done = 0, fused = 0;
	struct acis_direct d;
	/* Once one frame of the burst needed the L2 stage (flood, unknown,
	 * drop), the rest go there too, so no frame overtakes another. */
	int via_l2 = rx_only || g_sw.torus != NULL; /* (a torus routes in L2) */

	acis_direct_init(&d);
	while (done < cnt) {
		uint16_t n = RTE_MIN((uint16_t)(cnt - done),
				     (uint16_t)RTE_DIM(nexts));

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m;
			struct acis_mbuf_meta *meta;
			const uint8_t *eth;
			enum acis_class cls;
			uint16_t port;

			if (!via_l2) {
				uint16_t j = acis_direct_run(lc, &d,
							     &objs[done], nexts,
							     i, n, &via_l2);

				fused += j - i;
				i = j;
				if (i == n)
					break;
			}
			m = objs[done + i];
			eth = rte_pktmbuf_mtod(m, const uint8_t *);
			port = g_sw.port_index[m->port];
			prefetch_ahead(&objs[done], i, n, d.pk.mac);
			/* straight into the metadata (its line prefetched for
			 * writing): a copy would read back the classifier's
			 * narrow stores as wide loads, which the store buffer
			 * cannot forward */
			meta = acis_meta(m);
			cls = acis_pkt_classify_k(&g_sw.ccfg, &d.pk, eth,
						  rte_pktmbuf_data_len(m),
						  acis_hw_csum(&lc->stats, m,
							       port),
						  &meta->pi, &meta->drop_reason);
			meta->in_port = port;
			if (unlikely(cls == ACIS_CLASS_ACIS &&
				     meta->pi.dst_ip != g_sw.ccfg.ip))
				cls = transit(meta, eth);
			if (unlikely(g_la.fpga_ports & (1u << port)) &&
			    (cls = fpga_frame(meta, eth,
					      rte_pktmbuf_data_len(m), port,
					      cls)) == ACIS_CLASS_LOOKASIDE &&
			    (meta->la_rule & ACIS_LA_RETURN_FLAG))
				; /* an FPGA's link-framed answer, routed */
			else if (unlikely(cls == ACIS_CLASS_LOOKASIDE ||
				     (cls == ACIS_CLASS_ACIS &&
				      g_la.acis_types != 0 &&
				      meta->pi.payload_len >= 2 &&
				      eth[meta->pi.payload_off + 1] < 32 &&
				      (g_la.acis_types & (1u <<
				       eth[meta->pi.payload_off + 1])))))
				cls = la_select(meta, eth);
			else if (unlikely(cls == ACIS_CLASS_ACIS &&
					  meta->pi.payload_len >= 2 &&
					  eth[meta->pi.payload_off + 1] ==
					  ACIS_T_CTRL)) {
				/* control changes jobs: only from where the
				 * pipeline allows, and with a UDP checksum,
				 * so that corruption cannot forge it (IPv4
				 * allows a datagram without one) */
				if (g_sw.ctrl_restricted && !ctrl_allowed(meta)) {
					meta->drop_reason = ACIS_DROP_CTRL_DENIED;
					cls = ACIS_CLASS_DROP;
				} else if ((eth[meta->pi.l4_off + 6] |
					    eth[meta->pi.l4_off + 7]) == 0) {
					meta->drop_reason = ACIS_DROP_CTRL_NO_CSUM;
					cls = ACIS_CLASS_DROP;
				}
			}
			meta->cls = (uint8_t)cls;
			nexts[i] = class_next[cls];
			/* a frame forwarded by the L2 stage (a runt, a tagged
			 * frame, ...): the direct frames after it must not
			 * overtake it */
			if (nexts[i] == ACIS_NEXT_L2)
				via_l2 = 1;
			if (cls == ACIS_CLASS_DROP || (!rx_only && n_workers == 1))
				continue;
			if (cls == ACIS_CLASS_LOOKASIDE)
				meta->owner = (uint16_t)g_la.rules[meta->la_rule &
					~ACIS_LA_RETURN_FLAG].cfg->worker;
			else if (cls == ACIS_CLASS_ACIS)
				meta->owner = acis_owner(eth, &meta->pi,
							 n_workers);
			else if (rx_only)
				meta->owner = (uint16_t)(((uint64_t)flow_hash(eth) *
							  n_workers) >> 32);
			else
				continue;
			if (meta->owner != self)
				nexts[i] = ACIS_NEXT_HANDOFF;
		}
		acis_enqueue_runs(graph, node, &objs[done], nexts, n);
		done += n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_PARSE] += cnt;
	lc->stats.stage_pkts[ACIS_STAGE_L2] += fused;
	return cnt;
}

static struct rte_node_register parse_node = {
	.name = "acis_parse",
	.process = parse_process,
	.init = acis_node_init_ctx,
	.nb_edges = 6,
	.next_nodes = {
		[ACIS_NEXT_DROP] = "acis_drop",
		[ACIS_NEXT_L2] = "acis_l2",
		[ACIS_NEXT_LOCAL] = "acis_local",
		[ACIS_NEXT_COLL] = "acis_collective",
		[ACIS_NEXT_LA] = "acis_lookaside",
		[ACIS_NEXT_HANDOFF] = "acis_handoff",
		/* then the TX stages of the ports, added at start-up */
	},
};

RTE_NODE_REGISTER(parse_node);
