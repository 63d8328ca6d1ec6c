/* SPDX-License-Identifier: BSD-3-Clause */
/* User-defined reduction operators on the look-aside CGRA; see
 * acis_userop.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_cgra.h"
#include "acis_userop.h"

struct acis_userop {
	char name[ACIS_USEROP_NAME_LEN];
	int commutative;
	struct acis_cgra *m;
	uint64_t folds, faults;
	uint8_t out[ACIS_USEROP_ACC_MAX]; /* the answer, before it is acc */
};

static int
say(char *err, size_t len, int rc, const char *fmt, const char *name,
    const char *what)
{
	if (err != NULL && len != 0)
		snprintf(err, len, fmt, name, what);
	return rc;
}

int
acis_userop_create(const struct acis_userop_spec *spec,
		   struct acis_userop **op, char *err, size_t errlen)
{
	struct acis_cgra_config c = {
		.n_vpe = 1,
		.n_banks = 1,
		.bank_size = ACIS_USEROP_CONST_OFF + ACIS_USEROP_CONST_MAX,
		.insn_budget = spec->budget != 0 ? spec->budget :
			       ACIS_USEROP_BUDGET_DEFAULT,
		.vrf_regs = ACIS_USEROP_VREGS,
		.flags = ACIS_CGRA_F_STATELESS,
	};
	struct acis_userop *o;
	char why[256];
	size_t nl;

	*op = NULL;
	nl = spec->name != NULL ? strlen(spec->name) : 0;
	if (nl == 0 || nl >= ACIS_USEROP_NAME_LEN)
		return say(err, errlen, -EINVAL, "an op's name is 1 to 31 "
			   "characters, found '%s'%s",
			   spec->name != NULL ? spec->name : "", "");
	if (spec->consts_len > ACIS_USEROP_CONST_MAX ||
	    (spec->consts == NULL && spec->consts_len != 0))
		return say(err, errlen, -EINVAL, "op %s: %s", spec->name,
			   "its constants are more than 64 KiB");
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->m = acis_cgra_create(&c);
	if (o->m == NULL) {
		free(o);
		return -ENOMEM;
	}
	memcpy(o->name, spec->name, nl + 1);
	o->commutative = spec->commutative != 0;
	if (acis_cgra_load(o->m, spec->words, spec->n_words, why,
			   sizeof(why)) != 0) {
		acis_userop_free(o);
		return say(err, errlen, ACIS_CGRA_E_LOAD, "op %s: %s",
			   spec->name, why);
	}
	if (spec->consts_len != 0)
		acis_cgra_mem_write(o->m, 1, ACIS_USEROP_CONST_OFF,
				    spec->consts, spec->consts_len);
	*op = o;
	return 0;
}

int
acis_userop_fold(struct acis_userop *op, void *acc, const void *src,
		 size_t len, char *err, size_t errlen)
{
	size_t out_len = 0;
	char n[32];
	int rc;

	if (len == 0 || len > ACIS_USEROP_ACC_MAX)
		return say(err, errlen, -EINVAL, "op %s: %s", op->name,
			   "a fold is 1 to 65536 bytes");
	op->folds++;
	acis_cgra_mem_write(op->m, 1, 0, acc, len);
	rc = acis_cgra_run(op->m, src, len, op->out, sizeof(op->out),
			   &out_len, NULL);
	if (rc != 0) {
		op->faults++;
		return say(err, errlen, rc, "op %s: %s", op->name,
			   acis_cgra_last_error(op->m));
	}
	if (out_len != len) {
		op->faults++;
		snprintf(n, sizeof(n), "%zu bytes for %zu", out_len, len);
		return say(err, errlen, ACIS_CGRA_E_PKTLEN, "op %s: the "
			   "program answered %s (a fold answers the "
			   "accumulator's length)", op->name, n);
	}
	memcpy(acc, op->out, len);
	return 0;
}

int
acis_userop_map(struct acis_userop *op, const void *in, size_t in_len,
		const void *inbound, size_t ib_len, const void *own,
		size_t own_len, void *out, size_t cap, size_t *out_len,
		char *err, size_t errlen)
{
	int rc;

	*out_len = 0;
	if (ib_len > ACIS_USEROP_OWN_MAX || own_len > ACIS_USEROP_OWN_MAX)
		return say(err, errlen, -EINVAL, "op %s: %s", op->name,
			   "an inbound buffer or own block is at most 32768 "
			   "bytes");
	op->folds++;
	if (ib_len != 0)
		acis_cgra_mem_write(op->m, 1, 0, inbound, ib_len);
	if (own_len != 0)
		acis_cgra_mem_write(op->m, 1, ACIS_USEROP_OWN_OFF, own,
				    own_len);
	rc = acis_cgra_run(op->m, in, in_len, out, cap, out_len, NULL);
	if (rc != 0) {
		op->faults++;
		return say(err, errlen, rc, "op %s: %s", op->name,
			   acis_cgra_last_error(op->m));
	}
	return 0;
}

const char *
acis_userop_name(const struct acis_userop *op)
{
	return op->name;
}

int
acis_userop_commutative(const struct acis_userop *op)
{
	return op->commutative;
}

void
acis_userop_counts(const struct acis_userop *op, uint64_t *folds,
		   uint64_t *faults)
{
	*folds = op->folds;
	*faults = op->faults;
}

void
acis_userop_free(struct acis_userop *op)
{
	if (op == NULL)
		return;
	acis_cgra_free(op->m);
	free(op);
}
