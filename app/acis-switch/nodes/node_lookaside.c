/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_lookaside: the look-aside CGRA beside the pipeline (ACiS Type 2,
 * thesis ch. 4). Each packet a [lookaside] rule selected reaches the
 * worker that owns the rule's machine; the packet handler runs with the
 * payload as stream_in (after the ACiS header for ACiS requests) and what
 * it emits becomes the new payload (thesis §4.5.2). The stage then fixes
 * the IPv4 and UDP lengths and checksums (and the ACiS payload_len) and
 * either returns the packet to its sender with addresses and ports
 * swapped, or forwards it to its own destination through the L2 stage. A
 * run that emits nothing consumes the packet.
 */
#include <rte_memcpy.h>

#include "../lookaside.h"
#include "../switch.h"
#include "acis_proto.h"

/* framing = link: wrap what the handler would get as stream_in in our
 * link frame (Ethernet, then start 0xFB, source and destination ids,
 * control = the request's tag, payload length), keeping the request's
 * headers in p to answer it. */
static void
link_wrap(struct acis_la_rule *r, struct rte_mbuf *m, uint32_t keep,
	  int to_us, struct acis_la_pending *p)
{
	const struct acis_lookaside_cfg *cfg = r->cfg;
	struct acis_mbuf_meta *meta = acis_meta(m);
	uint32_t hl = (uint32_t)meta->pi.payload_off + keep;
	uint32_t plen = meta->pi.payload_len - keep;
	uint8_t *f;

	memcpy(p->hdr, rte_pktmbuf_mtod(m, const uint8_t *), hl);
	p->hdr_len = (uint16_t)hl;
	p->keep = (uint16_t)keep;
	p->pi = meta->pi;
	p->in_port = meta->in_port;
	p->to_us = (uint8_t)to_us;
	p->tag = r->next_tag++;
	/* the trailing bytes past the datagram (Ethernet padding) go too */
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - hl - plen));
	f = (uint8_t *)rte_pktmbuf_adj(m, (uint16_t)(hl - 14 -
						     ACIS_LA_LINK_HLEN));
	RTE_ASSERT(f != NULL); /* hl - 14 - the link header: within */
	memcpy(f, cfg->fpga_mac, 6);
	rte_memcpy(f + 6, g_sw.ccfg.mac, 6);
	f[12] = ACIS_LA_LINK_ETHERTYPE >> 8;
	f[13] = ACIS_LA_LINK_ETHERTYPE & 0xff;
	f[14] = 0xfb;
	f[15] = (uint8_t)(cfg->link_src >> 8);
	f[16] = (uint8_t)cfg->link_src;
	f[17] = (uint8_t)(cfg->link_dst >> 8);
	f[18] = (uint8_t)cfg->link_dst;
	f[19] = (uint8_t)(p->tag >> 8);
	f[20] = (uint8_t)p->tag;
	f[21] = (uint8_t)(plen >> 8);
	f[22] = (uint8_t)plen;
}

/* A request to the FPGA: queued as outstanding (its send time; with
 * link framing its headers and tag) and counted sent, then sent out of
 * the FPGA's port, as it came or in a link frame. */
static uint16_t
fpga_send(struct acis_la_rule *r, struct rte_mbuf *m, uint32_t keep,
	  int to_us)
{
	const struct acis_lookaside_cfg *cfg = r->cfg;
	uint32_t slot;

	if (cfg->fpga_link &&
	    acis_meta(m)->pi.payload_off + keep > ACIS_LA_HDR_MAX) {
		r->st.oversize++;
		acis_set_drop(m, ACIS_DROP_LA_OVERSIZE);
		return ACIS_NEXT_DROP;
	}
	if (unlikely(r->fifo_n == ACIS_LA_FIFO)) {
		r->fifo_head = (r->fifo_head + 1) % ACIS_LA_FIFO;
		r->fifo_n--;
		acis_la_fpga_count_lost(r);
	}
	slot = (r->fifo_head + r->fifo_n) % ACIS_LA_FIFO;
	r->st.fpga_bytes += m->pkt_len;
	if (cfg->fpga_link)
		link_wrap(r, m, keep, to_us, &r->pend[slot]);
	r->fifo[slot] = rte_rdtsc();
	r->fifo_n++;
	r->st.fpga_sent++;
	return (uint16_t)(ACIS_NEXT_TX_BASE + cfg->fpga_port);
}

/* A link-framed answer from the FPGA: the request it answers (by tag, in
 * order), rebuilt around the new payload and returned to its sender. A
 * frame cut before the end of its link header, not starting with 0xFB,
 * or whose length runs past the frame, is no answer (fpga_link_bad). */
static uint16_t
link_answer(struct acis_la_rule *r, struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint32_t frame_len, plen;
	struct acis_la_pending *p;
	uint16_t tag;
	uint8_t *eth;

	if (len < 14 + ACIS_LA_LINK_HLEN || f[14] != 0xfb ||
	    len < 14 + ACIS_LA_LINK_HLEN + (uint32_t)(f[21] << 8 | f[22])) {
		r->st.fpga_link_bad++;
		acis_set_drop(m, ACIS_DROP_LA_LINK_BAD);
		return ACIS_NEXT_DROP;
	}
	tag = (uint16_t)(f[19] << 8 | f[20]);
	plen = (uint32_t)(f[21] << 8 | f[22]);
	/* Requests before the tag went unanswered; a tag before the oldest
	 * outstanding one answers a request already counted lost. */
	while (r->fifo_n != 0 &&
	       (int16_t)(tag - r->pend[r->fifo_head].tag) > 0) {
		r->fifo_head = (r->fifo_head + 1) % ACIS_LA_FIFO;
		r->fifo_n--;
		acis_la_fpga_count_lost(r);
	}
	if (r->fifo_n == 0 || r->pend[r->fifo_head].tag != tag) {
		r->st.fpga_late++;
		acis_set_drop(m, ACIS_DROP_LA_LINK_BAD);
		return ACIS_NEXT_DROP;
	}
	p = &r->pend[r->fifo_head];
	r->fifo_head = (r->fifo_head + 1) % ACIS_LA_FIFO;
	r->fifo_n--;
	acis_la_fpga_count_returned(r);
	frame_len = p->hdr_len + plen;
	if (frame_len > g_sw.ccfg.max_frame) {
		r->st.oversize++;
		acis_set_drop(m, ACIS_DROP_LA_OVERSIZE);
		return ACIS_NEXT_DROP;
	}
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_data_len(m) - 14 -
				       ACIS_LA_LINK_HLEN - plen));
	eth = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(p->hdr_len - 14 -
						ACIS_LA_LINK_HLEN));
	if (eth == NULL) {
		r->st.oversize++;
		acis_set_drop(m, ACIS_DROP_LA_OVERSIZE);
		return ACIS_NEXT_DROP;
	}
	memcpy(eth, p->hdr, p->hdr_len);
	if (p->keep != 0)
		acis_hdr_set_payload_len(eth + p->pi.payload_off,
					 (uint16_t)plen);
	frame_len = acis_udp4_finish(eth, &p->pi, p->keep + plen, 1,
				     p->to_us ? g_sw.ccfg.mac : NULL);
	RTE_ASSERT(frame_len == rte_pktmbuf_data_len(m));
	r->st.pkts_out++;
	r->st.bytes_out += plen;
	return (uint16_t)(ACIS_NEXT_TX_BASE + p->in_port);
}

/* One packet: returns its edge, or UINT16_MAX when it was consumed. */
static uint16_t
la_one(struct acis_lcore_ctx *lc, struct rte_mbuf *m)
{
	struct acis_mbuf_meta *meta = acis_meta(m);
	struct acis_la_rule *r = &g_la.rules[meta->la_rule &
					     ~ACIS_LA_RETURN_FLAG];
	const struct acis_lookaside_cfg *cfg = r->cfg;
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *payload = eth + meta->pi.payload_off;
	uint32_t keep = 0, new_len, frame_len;
	struct acis_cgra_run_stats rs;
	size_t out_len = 0;
	int to_us = meta->pi.dst_ip == g_sw.ccfg.ip, rc;

	if (meta->la_rule & ACIS_LA_RETURN_FLAG)
		return link_answer(r, m);
	if (cfg->match == ACIS_LA_MATCH_ACIS) {
		struct acis_hdr h;
		enum acis_hdr_error e = acis_msg_parse(payload,
						       meta->pi.payload_len, &h);

		if (e != ACIS_E_OK) {
			acis_set_drop(m, acis_hdr_error_drop(e));
			return ACIS_NEXT_DROP;
		}
		keep = h.hdr_len;
	}
	if (to_us)
		acis_learn(lc, eth + 6, meta->in_port, acis_now_sec());
	r->st.pkts_in++;
	if (cfg->fpga_port >= 0) {
		if (likely(r->fpga_up))
			return fpga_send(r, m, keep, to_us);
		if (!cfg->fpga_fallback_local) {
			r->st.fpga_down++;
			acis_set_drop(m, ACIS_DROP_LA_FPGA_DOWN);
			return ACIS_NEXT_DROP;
		}
		r->st.fpga_fallback++;
	}
	if (!r->started || r->passthrough) {
		if (!r->passthrough && !cfg->passthrough_when_stopped) {
			r->st.not_ready++;
			acis_set_drop(m, ACIS_DROP_LA_NOT_READY);
			return ACIS_NEXT_DROP;
		}
		/* Unchanged, but still sent where the rule sends results. */
		r->st.passthrough++;
		new_len = meta->pi.payload_len;
		goto send;
	}
	r->st.bytes_in += meta->pi.payload_len - keep;
	rc = acis_cgra_run(r->m, payload + keep, meta->pi.payload_len - keep,
			   r->scratch, r->scratch_len, &out_len, &rs);
	r->st.runs++;
	r->st.instructions += rs.instructions;
	r->st.element_ops += rs.element_ops;
	r->st.cycles += rs.cycles;
	r->st.tiles_skipped += rs.tiles_skipped;
	if (unlikely(rc != 0)) {
		r->st.faults++;
		r->last_rc = rc;
		snprintf(r->last_error, sizeof(r->last_error), "%s",
			 acis_cgra_last_error(r->m));
		acis_set_drop(m, ACIS_DROP_LA_FAULT);
		return ACIS_NEXT_DROP;
	}
	if (out_len == 0) {
		r->st.consumed++;
		acis_frame_free(m);
		return UINT16_MAX;
	}
	new_len = keep + (uint32_t)out_len;
	frame_len = (uint32_t)meta->pi.payload_off + new_len;
	if (frame_len > g_sw.ccfg.max_frame ||
	    frame_len > (uint32_t)rte_pktmbuf_data_room_size(g_sw.pool) -
			m->data_off) {
		r->st.oversize++;
		acis_set_drop(m, ACIS_DROP_LA_OVERSIZE);
		return ACIS_NEXT_DROP;
	}
	rte_memcpy(payload + keep, r->scratch, out_len);
	if (keep != 0)
		acis_hdr_set_payload_len(payload, (uint16_t)out_len);
	r->st.bytes_out += out_len;
send:
	if (cfg->action == ACIS_LA_FORWARD && to_us) {
		acis_set_drop(m, ACIS_DROP_LA_NO_ROUTE);
		return ACIS_NEXT_DROP;
	}
	frame_len = acis_udp4_finish(eth, &meta->pi, new_len,
				     cfg->action == ACIS_LA_RETURN,
				     to_us ? g_sw.ccfg.mac : NULL);
	m->data_len = (uint16_t)frame_len;
	m->pkt_len = frame_len;
	r->st.pkts_out++;
	if (cfg->action == ACIS_LA_FORWARD)
		return g_la.l2_edge;
	return (uint16_t)(ACIS_NEXT_TX_BASE + meta->in_port);
}

static uint16_t
la_process(struct rte_graph *graph, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct acis_lcore_ctx *lc = acis_node_ctx(node)->lc;
	void *keep[RTE_GRAPH_BURST_SIZE];
	uint16_t nexts[RTE_GRAPH_BURST_SIZE];
	uint16_t i, done = 0;

	while (done < cnt) {
		uint16_t n = RTE_MIN((uint16_t)(cnt - done),
				     (uint16_t)RTE_GRAPH_BURST_SIZE);
		uint16_t k = 0;

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = objs[done + i];
			uint16_t next = la_one(lc, m);

			if (next == UINT16_MAX)
				continue;
			keep[k] = m;
			nexts[k++] = next;
		}
		acis_enqueue_runs(graph, node, keep, nexts, k);
		done += n;
	}
	lc->stats.stage_pkts[ACIS_STAGE_LOOKASIDE] += cnt;
	return cnt;
}

/* Edges to every port's TX stage and to acis_l2 are added at start-up
 * (switch.c). */
static struct rte_node_register la_node = {
	.name = "acis_lookaside",
	.process = la_process,
	.init = acis_node_init_ctx,
	.nb_edges = 1,
	.next_nodes = {[ACIS_NEXT_DROP] = "acis_drop"},
};

RTE_NODE_REGISTER(la_node);
