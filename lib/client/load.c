/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading libacis's DPDK transport (dpdk.c, built as libacis-dpdk.so) when
 * a context asks for it, so that libacis itself, and every program linked
 * with it, needs no DPDK library at run time. Where it is looked for, in
 * order: $ACIS_DPDK_LIB; the build tree it was built in (a program run from
 * there); the installed module directory; the loader's own search path.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport.h"

#ifndef ACIS_DPDK_BUILD_PATH
#define ACIS_DPDK_BUILD_PATH ""
#endif
#ifndef ACIS_DPDK_INSTALL_PATH
#define ACIS_DPDK_INSTALL_PATH ""
#endif

int
acis_dpdk_load(const struct acis_transport_cfg *cfg,
	       struct acis_transport **out, char *err, size_t errlen)
{
	/* once loaded, kept: the EAL it brings up lives as long as the
	 * process (DPDK cannot set it up twice) */
	static void *handle;
	static acis_dpdk_open_fn open_fn;
	const char *env = getenv("ACIS_DPDK_LIB");
	const char *paths[] = {env, ACIS_DPDK_BUILD_PATH, ACIS_DPDK_INSTALL_PATH,
			       "libacis-dpdk.so"};
	char tried[160] = "";
	unsigned int i;

	for (i = 0; open_fn == NULL && i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i];

		if (p == NULL || *p == '\0')
			continue;
		/* an explicit path that is not there is the user's mistake */
		if (strchr(p, '/') != NULL && access(p, R_OK) != 0) {
			if (p == env) {
				snprintf(err, errlen, "ACIS_DPDK_LIB=%s: no such "
					 "file", p);
				return ACIS_ERR_INVAL;
			}
			continue;
		}
		handle = dlopen(p, RTLD_NOW | RTLD_LOCAL);
		if (handle == NULL) {
			snprintf(tried, sizeof(tried), "%s", dlerror());
			if (p == env)
				break;
			continue;
		}
		open_fn = (acis_dpdk_open_fn)dlsym(handle, ACIS_DPDK_OPEN_SYM);
		if (open_fn == NULL) {
			snprintf(tried, sizeof(tried), "%s has no %s", p,
				 ACIS_DPDK_OPEN_SYM);
			dlclose(handle);
			handle = NULL;
		}
	}
	if (open_fn == NULL) {
		snprintf(err, errlen, "transport dpdk: cannot load "
			 "libacis-dpdk.so (%s); is libacis built with DPDK, or "
			 "ACIS_DPDK_LIB set to the module?",
			 tried[0] != '\0' ? tried : "not found");
		return ACIS_ERR_SYS;
	}
	return open_fn(cfg, out, err, errlen);
}
