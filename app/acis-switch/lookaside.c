/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The look-aside stage's machines, their management and telemetry.
 *
 * Management (acisctl cgra ...) arrives on a telemetry thread. It reads
 * files and assembles programs there, then posts one request to the
 * rule's mailbox and waits; the rule's worker carries it out between two
 * graph walks (acis_la_poll), so the machine has a single user and the
 * packet path takes no lock. Requests from several management clients
 * are serialised by a mutex on the control side only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "lookaside.h"
#include "switch.h"


static pthread_mutex_t la_ctl_lock = PTHREAD_MUTEX_INITIALIZER;

/* Longest stream_out: a jumbo frame's UDP payload. */
#define LA_SCRATCH (64 * 1024)
/* How long management waits for the rule's worker. */
#define LA_REQ_TIMEOUT_MS 3000

/* The worker's side of a request. */
static void
la_execute(struct acis_la_rule *r, struct acis_la_req *q)
{
	int rc = 0;

	q->err[0] = '\0';
	switch (q->op) {
	case ACIS_LA_OP_LOAD:
		rc = acis_cgra_load(r->m, q->words, q->n, q->err,
				    sizeof(q->err));
		r->started = rc == 0;
		if (rc == 0) {
			r->program_words = q->n;
			r->st.loads++;
		}
		break;
	case ACIS_LA_OP_MEM:
		rc = acis_cgra_mem_write(r->m, q->bank, q->off, q->buf, q->len);
		if (rc == 0)
			r->st.mem_writes++;
		break;
	case ACIS_LA_OP_READ:
		rc = acis_cgra_mem_read(r->m, q->bank, q->off, q->buf, q->len);
		break;
	case ACIS_LA_OP_START:
		if (r->program_words == 0) {
			rc = ACIS_CGRA_E_NOTREADY;
			snprintf(q->err, sizeof(q->err), "no program was ever "
				 "loaded (acisctl cgra load RULE FILE)");
			break;
		}
		rc = acis_cgra_reg_write(r->m, ACIS_CGRA_REG_INSN_COUNT,
					 (uint32_t)r->program_words);
		if (rc == 0)
			rc = acis_cgra_reg_write(r->m, ACIS_CGRA_REG_CTRL,
						 ACIS_CGRA_AP_START);
		if (rc != 0)
			snprintf(q->err, sizeof(q->err), "%s",
				 acis_cgra_last_error(r->m));
		r->started = rc == 0;
		break;
	case ACIS_LA_OP_STOP:
		rc = acis_cgra_reg_write(r->m, ACIS_CGRA_REG_CTRL,
					 ACIS_CGRA_AP_STOP);
		r->started = 0;
		break;
	case ACIS_LA_OP_PASSTHROUGH:
		acis_cgra_set_passthrough(r->m, q->on);
		r->passthrough = q->on;
		break;
	default:
		rc = ACIS_CGRA_E_INVAL;
	}
	if (rc != 0 && q->err[0] == '\0')
		snprintf(q->err, sizeof(q->err), "%s", acis_cgra_strerror(rc));
	q->rc = rc;
	atomic_store_explicit(&q->done, 1, memory_order_release);
}

/* The proxy's bookkeeping, by the rule's worker: the FPGA port's link,
 * UDP answers matched to outstanding requests in order (an attached
 * accelerator answers in order; link-framed answers are matched by tag
 * in the look-aside stage), and requests unanswered too long. Answers
 * are matched before requests expire, so one that came in time is
 * never taken for late. */
static void
fpga_poll(struct acis_la_rule *r)
{
	uint64_t now = rte_rdtsc();
	uint64_t answers = __atomic_load_n(&r->fpga_answers, __ATOMIC_RELAXED);

	if (now >= r->next_link_check) {
		struct rte_eth_link link;

		if (rte_eth_link_get_nowait(g_sw.ports[r->cfg->fpga_port].port_id,
					    &link) == 0)
			r->fpga_up = link.link_status == RTE_ETH_LINK_UP;
		r->next_link_check = now + g_sw.tsc_hz / 10;
	}
	for (; r->taken < answers; r->taken++) {
		if (r->fifo_n == 0) {
			/* its request was counted lost, or never sent */
			r->st.fpga_late++;
			continue;
		}
		r->fifo_head = (r->fifo_head + 1) % ACIS_LA_FIFO;
		r->fifo_n--;
		acis_la_fpga_count_returned(r);
	}
	while (r->fifo_n != 0 && r->fifo[r->fifo_head] + r->timeout_tsc < now) {
		r->fifo_head = (r->fifo_head + 1) % ACIS_LA_FIFO;
		r->fifo_n--;
		acis_la_fpga_count_lost(r);
	}
}

void
acis_la_poll(const struct acis_lcore_ctx *lc)
{
	unsigned int i;

	for (i = 0; i < g_la.n_rules; i++) {
		struct acis_la_rule *r = &g_la.rules[i];
		struct acis_la_req *q;

		if ((int)r->cfg->worker != lc->worker_index)
			continue;
		if (r->cfg->fpga_port >= 0)
			fpga_poll(r);
		q = atomic_load_explicit(&r->req, memory_order_acquire);
		if (q == NULL)
			continue;
		la_execute(r, q);
		atomic_store_explicit(&r->req, NULL, memory_order_release);
	}
}

/* Post a request and wait for the worker; while the switch is not running
 * its lcores (start-up), run it here. */
static int
la_submit(struct acis_la_rule *r, struct acis_la_req *q, int running)
{
	struct acis_la_req *expect = NULL;
	struct timespec ts = {0, 100000};
	unsigned int waited = 0;

	atomic_store(&q->done, 0);
	if (!running) {
		la_execute(r, q);
		return q->rc;
	}
	if (!atomic_compare_exchange_strong(&r->req, &expect, q)) {
		snprintf(q->err, sizeof(q->err), "another request is pending");
		return -EBUSY;
	}
	while (!atomic_load_explicit(&q->done, memory_order_acquire)) {
		nanosleep(&ts, NULL);
		if (++waited == LA_REQ_TIMEOUT_MS * 10) {
			expect = q;
			/* Withdraw it unless the worker has just taken it. */
			if (atomic_compare_exchange_strong(&r->req, &expect,
							   NULL)) {
				snprintf(q->err, sizeof(q->err), "worker %u did "
					 "not answer in %d ms", r->cfg->worker,
					 LA_REQ_TIMEOUT_MS);
				return -ETIMEDOUT;
			}
		}
	}
	return q->rc;
}

static int la_running; /* set once the lcores run */

static int
la_load_file(struct acis_la_rule *r, const char *path, char *err,
	     size_t errlen)
{
	struct acis_la_req q = {.op = ACIS_LA_OP_LOAD};
	uint32_t *words;
	size_t n;
	int rc;

	if (acis_cgra_read_program(path, &words, &n, err, errlen) != 0)
		return -EINVAL;
	q.words = words;
	q.n = n;
	rc = la_submit(r, &q, la_running);
	free(words);
	if (rc != 0) {
		snprintf(err, errlen, "%s", q.err);
		return rc < 0 ? rc : -EINVAL;
	}
	snprintf(r->program, sizeof(r->program), "%s", path);
	return 0;
}

static int
la_mem_file(struct acis_la_rule *r, uint32_t bank, size_t off,
	    const char *path, char *err, size_t errlen)
{
	struct acis_la_req q = {.op = ACIS_LA_OP_MEM, .bank = bank, .off = off};
	uint8_t *buf;
	size_t len;
	int rc;

	if (acis_cgra_read_file(path, &buf, &len, err, errlen) != 0)
		return -EINVAL;
	q.buf = buf;
	q.len = len;
	rc = la_submit(r, &q, la_running);
	free(buf);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %zu bytes at bank %u offset %zu: %s",
			 path, len, bank, off,
			 rc == ACIS_CGRA_E_MEM || rc == ACIS_CGRA_E_INVAL ?
			 "outside the bank (see the rule's banks and "
			 "bank_size)" : q.err);
		return rc < 0 ? rc : -EINVAL;
	}
	return 0;
}

int
acis_la_init(const struct acis_pipeline *pl, char *err, size_t len)
{
	unsigned int i, j;
	char why[512];
	int rc;

	memset(&g_la, 0, sizeof(g_la));
	la_running = 0;
	for (i = 0; i < pl->n_lookaside; i++) {
		const struct acis_lookaside_cfg *c = &pl->lookaside[i];
		struct acis_la_rule *r = &g_la.rules[i];
		struct acis_cgra_config mc = {
			.n_vpe = c->vpe, .n_banks = c->banks,
			.bank_size = c->bank_size, .vrf_regs = c->vrf_regs,
			.insn_budget = c->budget,
		};

		r->cfg = c;
		g_la.n_rules = i + 1;
		r->m = acis_cgra_create(&mc);
		if (r->m == NULL)
			return acis_errf(err, len, -ENOMEM, "%s:%d: [lookaside %s]: "
				    "cannot create the machine (out of memory, "
				    "or banks beyond vpe)", pl->path, c->line,
				    c->name);
		r->scratch_len = LA_SCRATCH;
		r->scratch = rte_malloc("acis_la_out", LA_SCRATCH,
					RTE_CACHE_LINE_SIZE);
		if (r->scratch == NULL)
			return acis_errf(err, len, -ENOMEM, "out of memory for "
				    "[lookaside %s]", c->name);
		if (c->match == ACIS_LA_MATCH_ACIS && c->acis_type < 32)
			g_la.acis_types |= 1u << c->acis_type;
		if (c->fpga_port >= 0) {
			struct rte_eth_link link;

			r->fifo = rte_zmalloc("acis_la_fifo", ACIS_LA_FIFO *
					      sizeof(uint64_t), 0);
			if (c->fpga_link)
				r->pend = rte_zmalloc("acis_la_pend",
						      ACIS_LA_FIFO *
						      sizeof(*r->pend), 0);
			if (r->fifo == NULL || (c->fpga_link && r->pend == NULL))
				return acis_errf(err, len, -ENOMEM, "out of memory "
						 "for [lookaside %s]", c->name);
			r->timeout_tsc = (uint64_t)c->fpga_timeout_us *
					 (rte_get_tsc_hz() / 1000000);
			g_la.fpga_ports |= 1u << c->fpga_port;
			if (rte_eth_link_get_nowait(
				g_sw.ports[c->fpga_port].port_id, &link) == 0)
				r->fpga_up = link.link_status == RTE_ETH_LINK_UP;
		}
		for (j = 0; j < c->n_mem; j++) {
			rc = la_mem_file(r, c->mem[j].bank, c->mem[j].off,
					 c->mem[j].path, why, sizeof(why));
			if (rc != 0)
				return acis_errf(err, len, rc, "%s:%d: memory: %s",
					    pl->path, c->mem[j].line, why);
		}
		if (c->program[0] != '\0') {
			rc = la_load_file(r, c->program, why, sizeof(why));
			if (rc != 0)
				return acis_errf(err, len, rc, "%s:%d: [lookaside %s] "
					    "program refused: %s", pl->path,
					    c->line, c->name, why);
		}
	}
	return 0;
}

void
acis_la_set_running(int on)
{
	la_running = on;
}

void
acis_la_fini(void)
{
	unsigned int i;

	la_running = 0;
	for (i = 0; i < g_la.n_rules; i++) {
		acis_cgra_free(g_la.rules[i].m);
		rte_free(g_la.rules[i].scratch);
		rte_free(g_la.rules[i].fifo);
		rte_free(g_la.rules[i].pend);
	}
	memset(&g_la, 0, sizeof(g_la));
}

/* ---- telemetry ---- */

static struct acis_la_rule *
rule_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < g_la.n_rules; i++)
		if (strcmp(g_la.rules[i].cfg->name, name) == 0)
			return &g_la.rules[i];
	return NULL;
}

/* Split "a,b,c" into at most max fields (in place). */
static int
split(char *s, char **f, int max)
{
	int n = 0;

	while (s != NULL && n < max) {
		f[n++] = s;
		s = strchr(s, ',');
		if (s != NULL)
			*s++ = '\0';
	}
	return s == NULL ? n : -1;
}

static void
rule_dict(struct rte_tel_data *c, const struct acis_la_rule *r)
{
	const struct acis_lookaside_cfg *cfg = r->cfg;
	struct acis_cgra_config mc;
	char s[64];

	acis_cgra_get_config(r->m, &mc);
	rte_tel_data_start_dict(c);
	if (cfg->match == ACIS_LA_MATCH_UDP)
		snprintf(s, sizeof(s), "udp_port %u", cfg->udp_port);
	else if (cfg->match == ACIS_LA_MATCH_DST)
		snprintf(s, sizeof(s), "dst_ip %u.%u.%u.%u",
			 ((const uint8_t *)&cfg->dst_ip)[0],
			 ((const uint8_t *)&cfg->dst_ip)[1],
			 ((const uint8_t *)&cfg->dst_ip)[2],
			 ((const uint8_t *)&cfg->dst_ip)[3]);
	else if (cfg->acis_type == 7)
		snprintf(s, sizeof(s), "acis_handler %u", cfg->handler);
	else if (cfg->opcode_any)
		snprintf(s, sizeof(s), "acis_type %u", cfg->acis_type);
	else
		snprintf(s, sizeof(s), "acis_type %u opcode %u",
			 cfg->acis_type, cfg->handler);
	if (cfg->has_job)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), " job %u",
			 cfg->job);
	rte_tel_data_add_dict_string(c, "match", s);
	rte_tel_data_add_dict_string(c, "action",
		cfg->action == ACIS_LA_FORWARD ? "forward" : "return");
	rte_tel_data_add_dict_string(c, "state",
		r->passthrough ? "passthrough" :
		r->started ? "running" : "stopped");
	rte_tel_data_add_dict_u64(c, "worker", cfg->worker);
	rte_tel_data_add_dict_u64(c, "vpe", mc.n_vpe);
	rte_tel_data_add_dict_u64(c, "banks", mc.n_banks);
	rte_tel_data_add_dict_u64(c, "bank_size", mc.bank_size);
	rte_tel_data_add_dict_u64(c, "budget", mc.insn_budget);
	rte_tel_data_add_dict_u64(c, "program_words", r->program_words);
	rte_tel_data_add_dict_string(c, "program",
		r->program[0] ? r->program : "-");
#define U(f) rte_tel_data_add_dict_u64(c, #f, r->st.f)
	U(pkts_in); U(bytes_in); U(pkts_out); U(bytes_out); U(consumed);
	U(passthrough); U(faults); U(not_ready); U(oversize); U(runs);
	U(instructions); U(element_ops); U(cycles); U(tiles_skipped);
	U(loads); U(mem_writes);
	if (cfg->fpga_port >= 0) {
		struct acis_la_fpga_counts fc;

		rte_tel_data_add_dict_string(c, "fpga_port",
			g_sw.pl->ports[cfg->fpga_port].name);
		rte_tel_data_add_dict_string(c, "fpga_link",
			r->fpga_up ? "up" : "down");
		acis_la_fpga_counts(r, &fc);
		rte_tel_data_add_dict_u64(c, "fpga_sent", fc.sent);
		rte_tel_data_add_dict_u64(c, "fpga_returned", fc.returned);
		rte_tel_data_add_dict_u64(c, "fpga_lost", fc.lost);
		rte_tel_data_add_dict_u64(c, "fpga_outstanding", fc.outstanding);
		rte_tel_data_add_dict_u64(c, "fpga_late", fc.late);
		U(fpga_bytes); U(fpga_down); U(fpga_fallback); U(fpga_link_bad);
		rte_tel_data_add_dict_string(c, "framing",
			cfg->fpga_link ? "link" : "udp");
	}
#undef U
	rte_tel_data_add_dict_string(c, "last_error",
		r->last_error[0] ? r->last_error : "-");
}

static int
tel_cgra(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0') {
		struct acis_la_rule *r = rule_by_name(params);

		if (r == NULL)
			return acis_tel_error(d, "no [lookaside %s] in the "
					   "pipeline", params);
		rule_dict(d, r);
		return 0;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < g_la.n_rules; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			return -ENOMEM;
		rule_dict(c, &g_la.rules[i]);
		rte_tel_data_add_dict_container(d, g_la.rules[i].cfg->name, c, 0);
	}
	return 0;
}

static int
parse_size(const char *s, size_t *v)
{
	char *end;
	unsigned long long x;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return -1;
	*v = (size_t)x;
	return 0;
}

/* /acis/cgra/ctl,OP,RULE[,ARGS...]: one management operation. */
static int
tel_cgra_ctl(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char buf[1024], why[512];
	char *f[6];
	struct acis_la_rule *r;
	size_t bank, off, n;
	int nf, rc = 0;

	RTE_SET_USED(cmd);
	if (params == NULL || strlen(params) >= sizeof(buf))
		return acis_tel_error(d, "expected OP,RULE[,ARGS]");
	strcpy(buf, params);
	nf = split(buf, f, 6);
	if (nf < 2)
		return acis_tel_error(d, "expected OP,RULE[,ARGS] with OP one of "
				   "load, mem, read, start, stop, passthrough");
	r = rule_by_name(f[1]);
	if (r == NULL)
		return acis_tel_error(d, "no [lookaside %s] in the pipeline", f[1]);
	pthread_mutex_lock(&la_ctl_lock);
	if (strcmp(f[0], "load") == 0 && nf == 3) {
		rc = la_load_file(r, f[2], why, sizeof(why));
	} else if (strcmp(f[0], "mem") == 0 && nf == 5) {
		if (parse_size(f[2], &bank) != 0 || parse_size(f[3], &off) != 0) {
			pthread_mutex_unlock(&la_ctl_lock);
			return acis_tel_error(d, "mem: expected RULE,BANK,OFFSET,"
					   "FILE with numbers");
		}
		rc = la_mem_file(r, (uint32_t)bank, off, f[4], why,
				 sizeof(why));
	} else if (strcmp(f[0], "read") == 0 && nf == 5) {
		struct acis_la_req q = {.op = ACIS_LA_OP_READ};
		uint8_t data[256];
		char line[2 * 32 + 1];
		struct rte_tel_data *a;
		size_t i;

		if (parse_size(f[2], &bank) != 0 || parse_size(f[3], &off) != 0 ||
		    parse_size(f[4], &n) != 0 || n == 0 || n > sizeof(data)) {
			pthread_mutex_unlock(&la_ctl_lock);
			return acis_tel_error(d, "read: expected RULE,BANK,OFFSET,"
					   "LEN with LEN 1..%zu", sizeof(data));
		}
		q.bank = (uint32_t)bank;
		q.off = off;
		q.buf = data;
		q.len = n;
		rc = la_submit(r, &q, la_running);
		pthread_mutex_unlock(&la_ctl_lock);
		if (rc != 0)
			return acis_tel_error(d, "read: %s", q.err);
		/* Telemetry strings hold 127 characters: 32 bytes a line. */
		a = rte_tel_data_alloc();
		if (a == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		for (i = 0; i < n; i++) {
			snprintf(line + 2 * (i % 32), 3, "%02x", data[i]);
			if ((i % 32 == 31 || i + 1 == n) &&
			    rte_tel_data_add_array_string(a, line) != 0) {
				rte_tel_data_free(a);
				return acis_tel_error(d, "read: reply too long");
			}
		}
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "bank", bank);
		rte_tel_data_add_dict_u64(d, "offset", off);
		rte_tel_data_add_dict_u64(d, "len", n);
		rte_tel_data_add_dict_container(d, "hex", a, 0);
		return 0;
	} else if ((strcmp(f[0], "start") == 0 || strcmp(f[0], "stop") == 0) &&
		   nf == 2) {
		struct acis_la_req q = {.op = f[0][2] == 'a' ? ACIS_LA_OP_START :
						  ACIS_LA_OP_STOP};

		rc = la_submit(r, &q, la_running);
		snprintf(why, sizeof(why), "%s", q.err);
	} else if (strcmp(f[0], "passthrough") == 0 && nf == 3 &&
		   (strcmp(f[2], "on") == 0 || strcmp(f[2], "off") == 0)) {
		struct acis_la_req q = {.op = ACIS_LA_OP_PASSTHROUGH,
					.on = strcmp(f[2], "on") == 0};

		rc = la_submit(r, &q, la_running);
		snprintf(why, sizeof(why), "%s", q.err);
	} else {
		pthread_mutex_unlock(&la_ctl_lock);
		return acis_tel_error(d, "unknown operation '%s' or wrong "
				   "arguments (load RULE FILE | mem RULE BANK "
				   "OFFSET FILE | read RULE BANK OFFSET LEN | "
				   "start RULE | stop RULE | passthrough RULE "
				   "on|off)", f[0]);
	}
	pthread_mutex_unlock(&la_ctl_lock);
	if (rc != 0)
		return acis_tel_error(d, "%s: %s", f[0], why);
	rule_dict(d, r);
	return 0;
}

int
acis_la_telemetry_register(void)
{
	int rc = 0;

	rc |= acis_tel_register("/acis/cgra", tel_cgra,
		"Look-aside handlers: state, program, counters. Parameters: [RULE]");
	rc |= acis_tel_register("/acis/cgra/ctl", tel_cgra_ctl,
		"Manage a look-aside handler. Parameters: OP,RULE[,ARGS]; "
		"OP load, mem, read, start, stop, passthrough");
	return rc;
}
