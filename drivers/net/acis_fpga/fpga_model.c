/* SPDX-License-Identifier: BSD-3-Clause */
/* The emulated FPGA's timing model and in-flight FIFO (fpga_model.h). */
#include <string.h>

#include "fpga_model.h"

typedef unsigned __int128 u128;

/* a * b / c, rounded to nearest, or UINT64_MAX if it does not fit. */
static uint64_t
muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	u128 r = ((u128)a * b + c / 2) / c;

	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

uint64_t
acis_fpga_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return muldiv(ticks, 1000000000u, hz);
}

uint64_t
acis_fpga_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return muldiv(ns, hz, 1000000000u);
}

int
acis_fpga_model_init(struct acis_fpga_model *m,
		     const struct acis_fpga_timing *t)
{
	u128 q;

	memset(m, 0, sizeof(*m));
	if (t->hz == 0 || t->rate_bps == 0 || t->proc_hz == 0)
		return -1;
	/* ticks per byte = 8 hz / rate, kept with 32 fraction bits */
	/* ticks per byte and per cycle below 2^32: the 32.32 values fit */
	q = ((u128)t->hz * 8 << 32) / t->rate_bps;
	if (q > UINT64_MAX)
		return -1;
	m->byte_q32 = (uint64_t)q;
	q = ((u128)t->hz << 32) / t->proc_hz;
	if (q > UINT64_MAX)
		return -1;
	m->cycle_q32 = (uint64_t)q;
	m->latency = acis_fpga_ns_to_ticks(t->latency_ns, t->hz);
	m->proc = acis_fpga_ns_to_ticks(t->proc_ns, t->hz);
	if (m->latency > ACIS_FPGA_MAX_TICKS || m->proc > ACIS_FPGA_MAX_TICKS)
		return -1;
	m->overhead = t->overhead;
	return 0;
}

void
acis_fpga_model_reset(struct acis_fpga_model *m)
{
	m->link_free = 0;
	m->link_frac = 0;
	m->proc_free = 0;
}

uint64_t
acis_fpga_model_admit(struct acis_fpga_model *m, uint64_t now, uint32_t len,
		      uint64_t cycles)
{
	uint64_t start, wire, proc;
	u128 total;

	if (now >= m->link_free) {
		/* an idle link: a fraction left over from the last frame is
		 * idle time too */
		start = now;
		m->link_frac = 0;
	} else {
		start = m->link_free;
		m->wait += start - now;
	}
	total = (u128)((uint64_t)len + m->overhead) * m->byte_q32 +
		m->link_frac;
	wire = (uint64_t)(total >> 32);
	m->link_frac = (uint32_t)total;
	m->link_free = start + wire;
	m->busy += wire;

	proc = m->proc;
	if (cycles)
		proc += (uint64_t)(((u128)cycles * m->cycle_q32) >> 32);
	start = m->link_free > m->proc_free ? m->link_free : m->proc_free;
	m->proc_free = start + proc;
	return m->proc_free + m->latency;
}

uint64_t
acis_fpga_fifo_size(uint32_t depth)
{
	uint64_t slots = 1;

	while (slots < depth)
		slots <<= 1;
	return sizeof(struct acis_fpga_fifo) +
	       slots * sizeof(struct acis_fpga_slot);
}

void
acis_fpga_fifo_init(struct acis_fpga_fifo *f, uint32_t depth)
{
	uint32_t slots = 1;

	while (slots < depth)
		slots <<= 1;
	memset(f, 0, sizeof(*f));
	f->depth = depth;
	f->mask = slots - 1;
}
