/* SPDX-License-Identifier: BSD-3-Clause */
/* Deadlines and SSP barriers: the table and its telemetry; see sync.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_telemetry.h>

#include "switch.h"
#include "sync.h"

int
acis_sw_sync_init(void)
{
	g_sw.coll.sync = malloc(sizeof(*g_sw.coll.sync));
	if (g_sw.coll.sync == NULL)
		return -ENOMEM;
	acis_sync_table_init(g_sw.coll.sync);
	return 0;
}

void
acis_sw_sync_fini(void)
{
	if (g_sw.coll.sync == NULL)
		return;
	acis_sync_table_fini(g_sw.coll.sync);
	free(g_sw.coll.sync);
	g_sw.coll.sync = NULL;
}

void
acis_sw_sync_purge(void)
{
	struct acis_sync_table *t = g_sw.coll.sync;
	unsigned int i;

	if (t == NULL || t->n == 0)
		return;
	for (i = 0; i < ACIS_SYNC_MAX; i++) {
		const struct acis_comm *c;

		if (t->e[i].ctx == 0)
			continue;
		c = acis_ct_lookup(g_sw.coll.ct, t->e[i].ctx);
		if (c == NULL || c->size != t->e[i].size)
			acis_sync_remove(t, t->e[i].ctx);
	}
}

/* /acis/sync: totals since the switch started, and each communicator's
 * deadline and barrier as "comm ID" (telemetry nests one level). */
static int
tel_sync(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct acis_sync_table *t = g_sw.coll.sync;
	struct acis_sync_totals tot;
	unsigned int i, armed = 0;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&g_sw.coll.lock);
	acis_sync_totals(t, &tot);
	for (i = 0; i < ACIS_SYNC_MAX; i++)
		armed += t->e[i].ctx != 0 && t->e[i].period_tsc != 0;
	rte_tel_data_add_dict_u64(d, "entries", t->n);
	rte_tel_data_add_dict_u64(d, "capacity", ACIS_SYNC_MAX);
	rte_tel_data_add_dict_u64(d, "deadlines", armed);
	rte_tel_data_add_dict_u64(d, "signals", tot.signals);
	rte_tel_data_add_dict_u64(d, "missed_epochs", tot.missed);
	rte_tel_data_add_dict_u64(d, "reports_on_time", tot.on_time);
	rte_tel_data_add_dict_u64(d, "reports_late", tot.late);
	rte_tel_data_add_dict_u64(d, "ssp_dones", tot.dones);
	rte_tel_data_add_dict_u64(d, "ssp_continues", tot.continues);
	rte_tel_data_add_dict_u64(d, "ssp_waits", tot.waits);
	for (i = 0; i < ACIS_SYNC_MAX; i++) {
		const struct acis_sync *e = &t->e[i];
		struct rte_tel_data *x;
		char name[32];

		if (e->ctx == 0 || (x = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(x);
		rte_tel_data_add_dict_u64(x, "size", e->size);
		rte_tel_data_add_dict_u64(x, "period_us", e->period_us);
		rte_tel_data_add_dict_u64(x, "epoch", e->epoch);
		rte_tel_data_add_dict_u64(x, "signals", e->signals);
		rte_tel_data_add_dict_u64(x, "missed_epochs", e->missed);
		rte_tel_data_add_dict_u64(x, "reports_on_time", e->on_time);
		rte_tel_data_add_dict_u64(x, "reports_late", e->late);
		rte_tel_data_add_dict_u64(x, "staleness", e->staleness);
		rte_tel_data_add_dict_u64(x, "quorum", e->quorum);
		rte_tel_data_add_dict_u64(x, "ssp_dones", e->dones);
		rte_tel_data_add_dict_u64(x, "ssp_continues", e->continues);
		rte_tel_data_add_dict_u64(x, "ssp_waits", e->waits);
		rte_tel_data_add_dict_u64(x, "ssp_spread", e->spread);
		snprintf(name, sizeof(name), "comm_%u", e->ctx);
		rte_tel_data_add_dict_container(d, name, x, 0);
	}
	rte_spinlock_unlock(&g_sw.coll.lock);
	return 0;
}

int
acis_sw_sync_telemetry_register(void)
{
	return acis_tel_register("/acis/sync", tel_sync,
		"Deadlines and SSP barriers per communicator. No parameters");
}
