/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Assembler and disassembler of the FLASH instruction set (syntax in
 * doc/cgra-isa.md). One line holds labels ("name:"), at most one
 * statement and a "#" comment. The assembler parses every line, keeps
 * branch references to labels for a fixup pass at the end, and stops at
 * the first error, which names file, line, column and what was expected.
 *
 * Program files are read here too (acis_cgra_read_program), so the
 * switch, the FPGA driver and the tools tell binary from text by one
 * rule: ".bin" is words, anything else is assembled.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acis_cgra.h"
#include "cgra_isa.h"

#define MAX_OPS 5

struct tok {
	const char *s;
	size_t len;
	unsigned int col;
};

struct label {
	char *name;
	size_t idx;
	unsigned int line, col;
};

struct fixup {
	char *name;
	size_t idx;
	unsigned int line, col;
};

struct asm_ctx {
	const char *fname;
	char *err;
	size_t errlen;
	unsigned int line;
	uint32_t *w;
	size_t n, cap;
	struct label *labels;
	size_t n_labels, cap_labels;
	struct fixup *fix;
	size_t n_fix, cap_fix;
};

static int
aerr_at(struct asm_ctx *a, unsigned int line, unsigned int col,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
aerr_at(struct asm_ctx *a, unsigned int line, unsigned int col,
	const char *fmt, ...)
{
	va_list ap;
	int len;

	if (a->err == NULL || a->errlen == 0)
		return -1;
	len = snprintf(a->err, a->errlen, "%s:%u:%u: error: ", a->fname, line,
		       col);
	if (len < 0 || (size_t)len >= a->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(a->err + len, a->errlen - len, fmt, ap);
	va_end(ap);
	return -1;
}

#define aerr(a, col, ...) aerr_at((a), (a)->line, (col), __VA_ARGS__)

static int
tok_is(const struct tok *t, const char *s)
{
	return strlen(s) == t->len && strncmp(t->s, s, t->len) == 0;
}

/* A token for messages: at most 40 characters, quoted by the caller. */
static const char *
tok_str(const struct tok *t, char *buf, size_t len)
{
	size_t n = t->len < len - 1 ? t->len : len - 1;

	memcpy(buf, t->s, n);
	buf[n] = '\0';
	return buf;
}

static int
is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '.';
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* Integer literal: [+-]decimal or [+-]0x hex; whole token. */
static int
parse_int(const struct tok *t, long long *v)
{
	char buf[48], *end;
	const char *p;

	if (t->len == 0 || t->len >= sizeof(buf))
		return -1;
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	p = buf;
	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		*v = strtoll(buf, &end, 16);
	else
		*v = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

/* "<prefix><decimal>" with the number in 0..max. */
static int
parse_numbered(const struct tok *t, char prefix, unsigned int max,
	       unsigned int *v)
{
	unsigned long n = 0;
	size_t i;

	if (t->len < 2 || t->len > 8 || t->s[0] != prefix)
		return -1;
	for (i = 1; i < t->len; i++) {
		if (!isdigit((unsigned char)t->s[i]))
			return -1;
		n = n * 10 + (unsigned long)(t->s[i] - '0');
	}
	/* no leading zeros: x05 is not canonical, refuse it */
	if (t->len > 2 && t->s[1] == '0')
		return -1;
	if (n > max)
		return -1;
	*v = (unsigned int)n;
	return 0;
}

static int
op_xreg(struct asm_ctx *a, const struct tok *t, uint8_t *r)
{
	unsigned int v;
	char b[48];

	if (parse_numbered(t, 'x', ACIS_CGRA_XREGS - 1, &v) != 0)
		return aerr(a, t->col, "expected a scalar register x0..x31, "
			    "got '%s'", tok_str(t, b, sizeof(b)));
	*r = (uint8_t)v;
	return 0;
}

static int
op_vreg(struct asm_ctx *a, const struct tok *t, uint16_t *r)
{
	unsigned int v;
	char b[48];

	if (parse_numbered(t, 'v', ACIS_CGRA_VREGS - 1, &v) != 0)
		return aerr(a, t->col, "expected a vector register "
			    "v0..v4095, got '%s'", tok_str(t, b, sizeof(b)));
	*r = (uint16_t)v;
	return 0;
}

static int
op_sin(struct asm_ctx *a, const struct tok *t)
{
	char b[48];

	if (!tok_is(t, "sin"))
		return aerr(a, t->col, "expected 'sin' (this operand is "
			    "hardwired to stream_in), got '%s'",
			    tok_str(t, b, sizeof(b)));
	return 0;
}

static int
op_imm(struct asm_ctx *a, const struct tok *t, long long lo, long long hi,
       int32_t *v)
{
	long long x;
	char b[48];

	if (parse_int(t, &x) != 0)
		return aerr(a, t->col, "expected an integer, got '%s'",
			    tok_str(t, b, sizeof(b)));
	if (x < lo || x > hi)
		return aerr(a, t->col, "immediate %lld out of range "
			    "%lld..%lld", x, lo, hi);
	*v = (int32_t)x;
	return 0;
}

/* "(xN)" with optional spaces inside the parentheses */
static int
op_mem(struct asm_ctx *a, const struct tok *t, uint8_t *r)
{
	struct tok in = *t;
	char b[48];

	if (t->len < 2 || t->s[0] != '(' || t->s[t->len - 1] != ')')
		return aerr(a, t->col, "expected an address '(xN)', got '%s'",
			    tok_str(t, b, sizeof(b)));
	in.s++;
	in.len -= 2;
	in.col++;
	while (in.len > 0 && isspace((unsigned char)in.s[0])) {
		in.s++;
		in.len--;
		in.col++;
	}
	while (in.len > 0 && isspace((unsigned char)in.s[in.len - 1]))
		in.len--;
	return op_xreg(a, &in, r);
}

static int
op_bank(struct asm_ctx *a, const struct tok *t, uint8_t *bank)
{
	unsigned int v;
	char b[48];

	if (parse_numbered(t, 'b', 31, &v) != 0 || v == 0)
		return aerr(a, t->col, "expected a bank b1..b31, got '%s'",
			    tok_str(t, b, sizeof(b)));
	*bank = (uint8_t)v;
	return 0;
}

static const struct {
	const char *name;
	unsigned int csr;
} csr_names[] = {
	{ "cycle", CSR_CYCLE },
	{ "packet_length", CSR_PACKET_LENGTH },
	{ "tile", CSR_TILE },
	{ "sin_word", CSR_SIN_WORD },
	{ "sin_left", CSR_SIN_LEFT },
};

static int
op_csr(struct asm_ctx *a, const struct tok *t, uint16_t *csr)
{
	long long v;
	size_t i;
	char b[48];

	for (i = 0; i < sizeof(csr_names) / sizeof(csr_names[0]); i++)
		if (tok_is(t, csr_names[i].name)) {
			*csr = (uint16_t)csr_names[i].csr;
			return 0;
		}
	if (parse_int(t, &v) == 0 && v >= 0 && v <= 0xfff) {
		*csr = (uint16_t)v;
		return 0;
	}
	return aerr(a, t->col, "expected a CSR (cycle, packet_length, tile, "
		    "sin_word, sin_left or 0..0xfff), got '%s'",
		    tok_str(t, b, sizeof(b)));
}

static int
add_word(struct asm_ctx *a, uint32_t w)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint32_t *p = realloc(a->w, cap * sizeof(*p));

		if (p == NULL)
			return aerr(a, 1, "out of memory");
		a->w = p;
		a->cap = cap;
	}
	a->w[a->n++] = w;
	return 0;
}

static char *
tok_dup(const struct tok *t)
{
	char *s = malloc(t->len + 1);

	if (s != NULL) {
		memcpy(s, t->s, t->len);
		s[t->len] = '\0';
	}
	return s;
}

static int
define_label(struct asm_ctx *a, const struct tok *t)
{
	struct label *l;
	size_t i;
	char b[48];

	for (i = 0; i < a->n_labels; i++)
		if (tok_is(t, a->labels[i].name))
			return aerr(a, t->col, "duplicate label '%s' (first "
				    "defined at line %u, column %u)",
				    tok_str(t, b, sizeof(b)),
				    a->labels[i].line, a->labels[i].col);
	if (a->n_labels == a->cap_labels) {
		size_t cap = a->cap_labels ? a->cap_labels * 2 : 16;

		l = realloc(a->labels, cap * sizeof(*l));
		if (l == NULL)
			return aerr(a, t->col, "out of memory");
		a->labels = l;
		a->cap_labels = cap;
	}
	l = &a->labels[a->n_labels];
	l->name = tok_dup(t);
	if (l->name == NULL)
		return aerr(a, t->col, "out of memory");
	l->idx = a->n;
	l->line = a->line;
	l->col = t->col;
	a->n_labels++;
	return 0;
}

/* bne's target: a label (fixed up at the end) or a byte offset. */
static int
op_target(struct asm_ctx *a, const struct tok *t, int32_t *off)
{
	struct fixup *f;
	size_t i;
	char b[48];

	if (t->len > 0 && !is_ident_start((unsigned char)t->s[0])) {
		if (op_imm(a, t, -4096, 4094, off) != 0)
			return -1;
		if (*off % 2 != 0)
			return aerr(a, t->col, "branch offset %d is odd",
				    *off);
		return 0;
	}
	for (i = 0; i < t->len; i++)
		if (!is_ident((unsigned char)t->s[i]))
			return aerr(a, t->col, "expected a label or a byte "
				    "offset, got '%s'",
				    tok_str(t, b, sizeof(b)));
	if (a->n_fix == a->cap_fix) {
		size_t cap = a->cap_fix ? a->cap_fix * 2 : 16;

		f = realloc(a->fix, cap * sizeof(*f));
		if (f == NULL)
			return aerr(a, t->col, "out of memory");
		a->fix = f;
		a->cap_fix = cap;
	}
	f = &a->fix[a->n_fix];
	f->name = tok_dup(t);
	if (f->name == NULL)
		return aerr(a, t->col, "out of memory");
	f->idx = a->n;
	f->line = a->line;
	f->col = t->col;
	a->n_fix++;
	*off = 0;
	return 0;
}

/* vsetivli's "e32" and "mN" */
static int
op_vtype(struct asm_ctx *a, const struct tok *e, const struct tok *mt,
	 uint8_t *lmul_log2)
{
	unsigned int v, k;
	char b[48];

	if (!tok_is(e, "e32"))
		return aerr(a, e->col, "expected element width 'e32' (the "
			    "PEs are FP32), got '%s'",
			    tok_str(e, b, sizeof(b)));
	if (parse_numbered(mt, 'm', 32768, &v) != 0 || v == 0 ||
	    (v & (v - 1)) != 0)
		return aerr(a, mt->col, "expected LMUL 'mN' with N a power "
			    "of two (m1..m2048), got '%s'",
			    tok_str(mt, b, sizeof(b)));
	for (k = 0; (1u << k) != v; k++)
		;
	*lmul_log2 = (uint8_t)k;
	return 0;
}

static const struct {
	const char *name;
	unsigned int op;
	int n_ops;
	const char *form;
} forms[] = {
	{ "lui", OP_LUI, 2, "lui rd, imm20" },
	{ "addi", OP_ADDI, 3, "addi rd, rs1, imm12" },
	{ "add", OP_ADD, 3, "add rd, rs1, rs2" },
	{ "bne", OP_BNE, 3, "bne rs1, rs2, label" },
	{ "csrrw", OP_CSRRW, 3, "csrrw rd, csr, rs1" },
	{ "wfi", OP_WFI, 0, "wfi" },
	{ "vsetivli", OP_VSETIVLI, 4, "vsetivli rd, avl, e32, mLMUL" },
	{ "vle32.v", OP_VLE, -2, "vle32.v vd, (rs1)[, bN]" },
	{ "vse32.v", OP_VSE, -2, "vse32.v vs3, (rs1)[, bN]" },
	{ "vfadd.vv", OP_VFADD, 3, "vfadd.vv vd, vs2, sin" },
	{ "vfmul.vv", OP_VFMUL, 3, "vfmul.vv vd, vs2, sin" },
	{ "vmacc.vx", OP_VMACC_VX, 3, "vmacc.vx vd, rs, sin" },
	{ "vmacc.xv", OP_VMACC_XV, 3, "vmacc.xv rs, vs2, sin" },
	{ "spvacc.vx", OP_SPVACC_VX, 3, "spvacc.vx vd, sin, rs" },
	{ "spvacc.xv", OP_SPVACC_XV, 3, "spvacc.xv rs, vs2, sin" },
	{ "streamout.v", OP_STREAMOUT, 1, "streamout.v vs|sin" },
};

/* The operand of an element-wise op: "sin" (rs = 0), or "xN", the
 * register holding the first element of a VRF group. x0 is refused: its
 * rs of 0 is the stream's, so it could not come back as written. */
static int
op_sin_or_xreg(struct asm_ctx *a, const struct tok *t, uint8_t *r)
{
	unsigned int v;
	char b[48];

	if (tok_is(t, "sin")) {
		*r = 0;
		return 0;
	}
	if (parse_numbered(t, 'x', ACIS_CGRA_XREGS - 1, &v) != 0)
		return aerr(a, t->col, "expected 'sin' or a scalar register "
			    "x1..x31 (holding the operand's first element), "
			    "got '%s'", tok_str(t, b, sizeof(b)));
	if (v == 0)
		return aerr(a, t->col, "x0 cannot hold the operand's first "
			    "element (rs = 0 encodes the stream: write "
			    "'sin', or use x1..x31)");
	*r = (uint8_t)v;
	return 0;
}

/* An NGRA extension (f->op, f->sub set): "NAME vd, sin", "NAME vd, rs",
 * "vmerge vd, sin, rs" or "vredNAME rs, vs". */
static int
ext_statement(struct asm_ctx *a, const struct tok *mn, struct tok *ops,
	      int n_ops, struct cgra_fields *f)
{
	const char *name = acis_cgra_isa_ext_name(f->op, f->sub);
	const char *form = f->op == OP_VRED ? "rs, vs" :
			   f->sub == VE_MERGE ? "vd, sin, rs" : "vd, sin|rs";
	int want = f->op == OP_VEXT && f->sub == VE_MERGE ? 3 : 2, rc;

	if (n_ops != want)
		return aerr(a, mn->col, "%s takes %d operands (%s %s), found "
			    "%d", name, want, name, form, n_ops);
	if (f->op == OP_VRED) {
		rc = op_xreg(a, &ops[0], &f->rs1);
		if (rc == 0)
			rc = op_vreg(a, &ops[1], &f->v);
	} else if (want == 3) {
		rc = op_vreg(a, &ops[0], &f->v);
		if (rc == 0)
			rc = op_sin(a, &ops[1]);
		if (rc == 0)
			rc = op_xreg(a, &ops[2], &f->rs1);
	} else {
		rc = op_vreg(a, &ops[0], &f->v);
		if (rc == 0)
			rc = op_sin_or_xreg(a, &ops[1], &f->rs1);
	}
	if (rc != 0)
		return rc;
	return add_word(a, acis_cgra_isa_encode(f));
}

static int
statement(struct asm_ctx *a, const struct tok *mn, struct tok *ops,
	  int n_ops)
{
	struct cgra_fields f;
	const int nf = sizeof(forms) / sizeof(forms[0]);
	int i, want, rc = 0;
	char b[48];

	memset(&f, 0, sizeof(f));
	if (tok_is(mn, ".word")) {
		long long v;

		if (n_ops != 1)
			return aerr(a, mn->col, ".word takes 1 operand, "
				    "found %d", n_ops);
		if (parse_int(&ops[0], &v) != 0 || v < -(1ll << 31) ||
		    v > 0xffffffffll)
			return aerr(a, ops[0].col, "expected a 32-bit value, "
				    "got '%s'", tok_str(&ops[0], b,
							sizeof(b)));
		return add_word(a, (uint32_t)v);
	}
	for (i = 0; i < nf; i++)
		if (tok_is(mn, forms[i].name))
			break;
	if (i == nf && acis_cgra_isa_ext_lookup(mn->s, mn->len, &f.op,
						&f.sub) == 0)
		return ext_statement(a, mn, ops, n_ops, &f);
	if (i == nf)
		return aerr(a, mn->col, "unknown mnemonic '%s'",
			    tok_str(mn, b, sizeof(b)));
	want = forms[i].n_ops;
	if (want < 0 ? (n_ops < -want || n_ops > -want + 1) : n_ops != want)
		return aerr(a, mn->col, "%s takes %s%d operand%s (%s), "
			    "found %d", forms[i].name,
			    want < 0 ? "2 or " : "", want < 0 ? 3 : want,
			    (want < 0 ? 3 : want) == 1 ? "" : "s",
			    forms[i].form, n_ops);
	f.op = (uint8_t)forms[i].op;
	switch (f.op) {
	case OP_LUI:
		rc = op_xreg(a, &ops[0], &f.rd);
		if (rc == 0)
			rc = op_imm(a, &ops[1], 0, 0xfffff, &f.imm);
		break;
	case OP_ADDI:
		rc = op_xreg(a, &ops[0], &f.rd);
		if (rc == 0)
			rc = op_xreg(a, &ops[1], &f.rs1);
		if (rc == 0)
			rc = op_imm(a, &ops[2], -2048, 2047, &f.imm);
		break;
	case OP_ADD:
		rc = op_xreg(a, &ops[0], &f.rd);
		if (rc == 0)
			rc = op_xreg(a, &ops[1], &f.rs1);
		if (rc == 0)
			rc = op_xreg(a, &ops[2], &f.rs2);
		break;
	case OP_BNE:
		rc = op_xreg(a, &ops[0], &f.rs1);
		if (rc == 0)
			rc = op_xreg(a, &ops[1], &f.rs2);
		if (rc == 0)
			rc = op_target(a, &ops[2], &f.imm);
		break;
	case OP_CSRRW:
		rc = op_xreg(a, &ops[0], &f.rd);
		if (rc == 0)
			rc = op_csr(a, &ops[1], &f.csr);
		if (rc == 0)
			rc = op_xreg(a, &ops[2], &f.rs1);
		break;
	case OP_WFI:
		break;
	case OP_VSETIVLI: {
		int32_t avl = 0;

		rc = op_xreg(a, &ops[0], &f.rd);
		if (rc == 0)
			rc = op_imm(a, &ops[1], 0, 0xffff, &avl);
		if (rc == 0)
			rc = op_vtype(a, &ops[2], &ops[3], &f.lmul_log2);
		f.avl = (uint16_t)avl;
		break;
	}
	case OP_VLE:
	case OP_VSE:
		rc = op_vreg(a, &ops[0], &f.v);
		if (rc == 0)
			rc = op_mem(a, &ops[1], &f.rs1);
		if (rc == 0 && n_ops == 3)
			rc = op_bank(a, &ops[2], &f.bank);
		break;
	case OP_VFADD:
	case OP_VFMUL:
		rc = op_vreg(a, &ops[0], &f.v);
		if (rc == 0)
			rc = op_vreg(a, &ops[1], &f.v2);
		if (rc == 0)
			rc = op_sin(a, &ops[2]);
		break;
	case OP_VMACC_VX:
		rc = op_vreg(a, &ops[0], &f.v);
		if (rc == 0)
			rc = op_xreg(a, &ops[1], &f.rs1);
		if (rc == 0)
			rc = op_sin(a, &ops[2]);
		break;
	case OP_VMACC_XV:
	case OP_SPVACC_XV:
		rc = op_xreg(a, &ops[0], &f.rs1);
		if (rc == 0)
			rc = op_vreg(a, &ops[1], &f.v);
		if (rc == 0)
			rc = op_sin(a, &ops[2]);
		break;
	case OP_SPVACC_VX:
		rc = op_vreg(a, &ops[0], &f.v);
		if (rc == 0)
			rc = op_sin(a, &ops[1]);
		if (rc == 0)
			rc = op_xreg(a, &ops[2], &f.rs1);
		break;
	case OP_STREAMOUT:
		if (tok_is(&ops[0], "sin"))
			f.op = OP_STREAMOUT_SIN;
		else if (ops[0].len > 0 && ops[0].s[0] == 'v')
			rc = op_vreg(a, &ops[0], &f.v);
		else
			rc = aerr(a, ops[0].col, "expected a vector register "
				  "v0..v4095 or 'sin', got '%s'",
				  tok_str(&ops[0], b, sizeof(b)));
		break;
	}
	if (rc != 0)
		return rc;
	return add_word(a, acis_cgra_isa_encode(&f));
}

/* One line: labels, then an optional statement; comments stripped. */
static int
line(struct asm_ctx *a, const char *s, size_t len)
{
	struct tok mn, ops[MAX_OPS + 1];
	size_t i = 0, j;
	int n_ops = 0;

	for (j = 0; j < len; j++)
		if (s[j] == '#')
			break;
	len = j;
	for (;;) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i == len)
			return 0;
		j = i;
		if (is_ident_start((unsigned char)s[i])) {
			size_t k;

			while (j < len && is_ident((unsigned char)s[j]))
				j++;
			k = j;
			while (k < len && isspace((unsigned char)s[k]))
				k++;
			if (k < len && s[k] == ':') {
				struct tok t = { s + i, j - i,
						 (unsigned int)i + 1 };

				if (define_label(a, &t) != 0)
					return -1;
				i = k + 1;
				continue;
			}
		}
		break;
	}
	/* the mnemonic */
	j = i;
	while (j < len && !isspace((unsigned char)s[j]))
		j++;
	mn.s = s + i;
	mn.len = j - i;
	mn.col = (unsigned int)i + 1;
	i = j;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	while (i < len) {
		size_t end = i, t;

		while (end < len && s[end] != ',')
			end++;
		t = end;
		while (t > i && isspace((unsigned char)s[t - 1]))
			t--;
		if (t == i)
			return aerr(a, (unsigned int)i + 1, "expected an "
				    "operand");
		if (n_ops == MAX_OPS)
			return aerr(a, (unsigned int)i + 1, "too many "
				    "operands");
		ops[n_ops].s = s + i;
		ops[n_ops].len = t - i;
		ops[n_ops].col = (unsigned int)i + 1;
		n_ops++;
		if (end == len)
			break;
		i = end + 1;
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i == len)
			return aerr(a, (unsigned int)i + 1, "expected an "
				    "operand after ','");
	}
	return statement(a, &mn, ops, n_ops);
}

static void
ctx_free(struct asm_ctx *a)
{
	size_t i;

	for (i = 0; i < a->n_labels; i++)
		free(a->labels[i].name);
	for (i = 0; i < a->n_fix; i++)
		free(a->fix[i].name);
	free(a->labels);
	free(a->fix);
}

int
acis_cgra_asm(const char *src, const char *fname, uint32_t **words,
	      size_t *n, char *err, size_t errlen)
{
	struct asm_ctx a = {0};
	const char *p = src;
	size_t i, k;
	int rc = 0;

	a.fname = fname != NULL ? fname : "<input>";
	a.err = err;
	a.errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	*words = NULL;
	*n = 0;
	while (rc == 0 && *p != '\0') {
		const char *e = strchr(p, '\n');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

		a.line++;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		rc = line(&a, p, len);
		if (e == NULL)
			break;
		p = e + 1;
	}
	for (i = 0; rc == 0 && i < a.n_fix; i++) {
		const struct fixup *f = &a.fix[i];
		struct cgra_fields fl;
		char why[96];
		long long off;

		for (k = 0; k < a.n_labels; k++)
			if (strcmp(a.labels[k].name, f->name) == 0)
				break;
		if (k == a.n_labels) {
			rc = aerr_at(&a, f->line, f->col, "unknown label "
				     "'%s'", f->name);
			break;
		}
		off = ((long long)a.labels[k].idx - (long long)f->idx) * 4;
		if (off < -4096 || off > 4094) {
			rc = aerr_at(&a, f->line, f->col, "label '%s' is %lld "
				     "bytes away, bne reaches -4096..4094",
				     f->name, off);
			break;
		}
		acis_cgra_isa_decode(a.w[f->idx], &fl, why, sizeof(why));
		fl.imm = (int32_t)off;
		a.w[f->idx] = acis_cgra_isa_encode(&fl);
	}
	ctx_free(&a);
	if (rc != 0) {
		free(a.w);
		return -1;
	}
	*words = a.w;
	*n = a.n;
	return 0;
}

/* ---- disassembler ---- */

/* Text of one decoded instruction; label >= 0 names bne's target. */
static int
dis_fields(const struct cgra_fields *f, long long label, char *buf,
	   size_t len)
{
	const char *mn = acis_cgra_isa_mnemonic(f->op);
	const char *csr;
	char bank[8] = "";

	switch (f->op) {
	case OP_LUI:
		return snprintf(buf, len, "lui x%u, 0x%x", f->rd,
				(unsigned int)f->imm);
	case OP_ADDI:
		return snprintf(buf, len, "addi x%u, x%u, %d", f->rd, f->rs1,
				f->imm);
	case OP_ADD:
		return snprintf(buf, len, "add x%u, x%u, x%u", f->rd, f->rs1,
				f->rs2);
	case OP_BNE:
		if (label >= 0)
			return snprintf(buf, len, "bne x%u, x%u, L%lld",
					f->rs1, f->rs2, label);
		return snprintf(buf, len, "bne x%u, x%u, %d", f->rs1, f->rs2,
				f->imm);
	case OP_CSRRW:
		csr = acis_cgra_isa_csr_name(f->csr);
		if (csr != NULL)
			return snprintf(buf, len, "csrrw x%u, %s, x%u", f->rd,
					csr, f->rs1);
		return snprintf(buf, len, "csrrw x%u, 0x%03x, x%u", f->rd,
				f->csr, f->rs1);
	case OP_WFI:
		return snprintf(buf, len, "wfi");
	case OP_VSETIVLI:
		return snprintf(buf, len, "vsetivli x%u, %u, e32, m%u", f->rd,
				f->avl, 1u << f->lmul_log2);
	case OP_VLE:
	case OP_VSE:
		if (f->bank != 0)
			snprintf(bank, sizeof(bank), ", b%u", f->bank);
		return snprintf(buf, len, "%s v%u, (x%u)%s", mn, f->v, f->rs1,
				bank);
	case OP_VFADD:
	case OP_VFMUL:
		return snprintf(buf, len, "%s v%u, v%u, sin", mn, f->v, f->v2);
	case OP_VMACC_VX:
		return snprintf(buf, len, "%s v%u, x%u, sin", mn, f->v, f->rs1);
	case OP_VMACC_XV:
	case OP_SPVACC_XV:
		return snprintf(buf, len, "%s x%u, v%u, sin", mn, f->rs1, f->v);
	case OP_SPVACC_VX:
		return snprintf(buf, len, "%s v%u, sin, x%u", mn, f->v, f->rs1);
	case OP_STREAMOUT:
		return snprintf(buf, len, "streamout.v v%u", f->v);
	case OP_STREAMOUT_SIN:
		return snprintf(buf, len, "streamout.v sin");
	case OP_VEXT:
		mn = acis_cgra_isa_ext_name(f->op, f->sub);
		if (f->sub == VE_MERGE)
			return snprintf(buf, len, "%s v%u, sin, x%u", mn, f->v,
					f->rs1);
		if (f->rs1 != 0)
			return snprintf(buf, len, "%s v%u, x%u", mn, f->v,
					f->rs1);
		return snprintf(buf, len, "%s v%u, sin", mn, f->v);
	case OP_VRED:
		return snprintf(buf, len, "%s x%u, v%u",
				acis_cgra_isa_ext_name(f->op, f->sub), f->rs1,
				f->v);
	}
	return snprintf(buf, len, "?");
}

int
acis_cgra_disasm_one(uint32_t word, char *buf, size_t len)
{
	struct cgra_fields f;
	char why[96];

	if (acis_cgra_isa_decode(word, &f, why, sizeof(why)) != 0)
		return snprintf(buf, len, ".word 0x%08x", (unsigned int)word);
	return dis_fields(&f, -1, buf, len);
}

/* Growing output text. */
struct text {
	char *s;
	size_t len, cap;
	int oom;
};

static void
text_add(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->oom)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		char *p;

		while (t->len + n + 1 > cap)
			cap *= 2;
		p = realloc(t->s, cap);
		if (p == NULL) {
			t->oom = 1;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n + 1);
	t->len += n;
}

/* Index of bne i's target if it is an instruction or the end, else -1 */
static long long
branch_target(const struct cgra_fields *f, size_t i, size_t n)
{
	long long target;

	if (f->op != OP_BNE || f->imm % 4 != 0)
		return -1;
	target = (long long)i + f->imm / 4;
	return target >= 0 && target <= (long long)n ? target : -1;
}

char *
acis_cgra_disasm(const uint32_t *words, size_t n)
{
	struct text t = {0};
	struct cgra_fields f;
	uint8_t *labelled;
	char line[96], why[96];
	size_t i;

	labelled = calloc(n + 1, 1);
	if (labelled == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		long long target;

		if (acis_cgra_isa_decode(words[i], &f, why, sizeof(why)) != 0)
			continue;
		target = branch_target(&f, i, n);
		if (target >= 0)
			labelled[target] = 1;
	}
	text_add(&t, "");
	for (i = 0; i <= n; i++) {
		if (labelled[i]) {
			snprintf(line, sizeof(line), "L%zu:\n", i);
			text_add(&t, line);
		}
		if (i == n)
			break;
		text_add(&t, "\t");
		if (acis_cgra_isa_decode(words[i], &f, why, sizeof(why)) != 0)
			snprintf(line, sizeof(line), ".word 0x%08x",
				 (unsigned int)words[i]);
		else
			dis_fields(&f, branch_target(&f, i, n), line,
				   sizeof(line));
		text_add(&t, line);
		text_add(&t, "\n");
	}
	free(labelled);
	if (t.oom) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* ---- program files ---- */

int
acis_cgra_read_file(const char *path, uint8_t **buf, size_t *len, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL, *nb;
	size_t cap, n = 0, r;
	struct stat sb;

	*buf = NULL;
	*len = 0;
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The size is a hint (the loop reads until end of file): room for
	 * the file, the NUL and the byte whose absence shows the end. */
	cap = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) ?
	      (size_t)sb.st_size + 2 : 4096;
	for (;;) {
		if (cap - n < 2 || b == NULL) {
			if (b != NULL)
				cap = cap < SIZE_MAX / 2 ? cap * 2 : 0;
			nb = cap != 0 ? realloc(b, cap) : NULL;
			if (nb == NULL) {
				snprintf(err, errlen, "%s: out of memory",
					 path);
				goto fail;
			}
			b = nb;
		}
		r = fread(b + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail:
	free(b);
	fclose(f);
	return -1;
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

int
acis_cgra_asm_file(const char *path, uint32_t **words, size_t *n, char *err,
		   size_t errlen)
{
	uint8_t *buf;
	size_t len;
	int rc;

	*words = NULL;
	*n = 0;
	if (acis_cgra_read_file(path, &buf, &len, err, errlen) != 0)
		return -1;
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: not assembler text (it holds NUL "
			 "bytes; binary programs must end in .bin)", path);
		free(buf);
		return -1;
	}
	rc = acis_cgra_asm((const char *)buf, path, words, n, err, errlen);
	free(buf);
	return rc;
}

int
acis_cgra_read_program(const char *path, uint32_t **words, size_t *n,
		       char *err, size_t errlen)
{
	uint8_t *buf;
	uint32_t *w;
	size_t len, i;

	*words = NULL;
	*n = 0;
	if (!ends_with(path, ".bin"))
		return acis_cgra_asm_file(path, words, n, err, errlen);
	if (acis_cgra_read_file(path, &buf, &len, err, errlen) != 0)
		return -1;
	if (len == 0 || len % 4 != 0) {
		snprintf(err, errlen, "%s: %zu bytes, expected a non-empty "
			 "multiple of 4 (whole 32-bit little-endian words)",
			 path, len);
		free(buf);
		return -1;
	}
	w = malloc(len);
	if (w == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(buf);
		return -1;
	}
	/* byte by byte: the file's order whatever the host's */
	for (i = 0; i < len / 4; i++)
		w[i] = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
		       (uint32_t)buf[4 * i + 2] << 16 |
		       (uint32_t)buf[4 * i + 3] << 24;
	free(buf);
	*words = w;
	*n = len / 4;
	return 0;
}
