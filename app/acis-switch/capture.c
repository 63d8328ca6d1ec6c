/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capture with DPDK's tools (rte_pdump), and removal of the files of the
 * switch's --file-prefix on the way out. See capture.h.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

#include "capture.h"

static struct {
	char prefix[NAME_MAX];
	char huge_dir[PATH_MAX];   /* --huge-dir, else every hugetlbfs */
	char runtime_dir[PATH_MAX];
	int shared;                /* secondary processes can attach */
	int pdump;                 /* rte_pdump_init succeeded */
} cap = {.prefix = "rte", .shared = 1};

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: the value, else NULL. */
static const char *
opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (strcmp(argv[*i], opt) == 0 && *i + 1 < argc)
		return argv[++*i];
	if (strncmp(argv[*i], opt, n) == 0 && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return NULL;
}

void
acis_capture_eal_args(int argc, char **argv)
{
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		if ((v = opt_value(argc, argv, &i, "--file-prefix")) != NULL)
			snprintf(cap.prefix, sizeof(cap.prefix), "%s", v);
		else if ((v = opt_value(argc, argv, &i, "--huge-dir")) != NULL)
			snprintf(cap.huge_dir, sizeof(cap.huge_dir), "%s", v);
		else if (strcmp(argv[i], "--in-memory") == 0 ||
			 strcmp(argv[i], "--no-shconf") == 0 ||
			 strcmp(argv[i], "--no-huge") == 0)
			cap.shared = 0;
	}
	/* where the EAL makes it (eal_create_runtime_dir) */
	{
		const char *base = getuid() == 0 ? "/var/run" :
				   getenv("XDG_RUNTIME_DIR");

		snprintf(cap.runtime_dir, sizeof(cap.runtime_dir),
			 "%s/dpdk/%s", base != NULL ? base : "/tmp",
			 cap.prefix);
	}
}

const char *
acis_capture_prefix(void)
{
	return cap.prefix;
}

const char *
acis_capture_runtime_dir(void)
{
	return cap.runtime_dir;
}

int
acis_capture_init(int enable, char *err, size_t len)
{
	if (!enable) {
		printf("acis-switch: capture off (--no-pdump)\n");
		return 0;
	}
	if (!cap.shared) {
		printf("acis-switch: capture unavailable: with --in-memory, "
		       "--no-shconf or --no-huge no secondary process "
		       "(dpdk-dumpcap, dpdk-proc-info) can attach\n");
		return 0;
	}
	if (rte_pdump_init() != 0) {
		snprintf(err, len, "cannot start packet capture: %s (run "
			 "with --no-pdump to go without)",
			 rte_strerror(rte_errno));
		return -1;
	}
	cap.pdump = 1;
	printf("acis-switch: capture: dpdk-dumpcap --file-prefix=%s -i PORT "
	       "(--no-pdump: off)\n", cap.prefix);
	return 0;
}

void
acis_capture_fini(void)
{
	if (cap.pdump)
		rte_pdump_uninit();
	cap.pdump = 0;
}

/* Remove dir/<prefix>map_* (hugepage files of this prefix). */
static void
remove_hugepage_files(const char *dir)
{
	char name[NAME_MAX + 16], path[PATH_MAX + NAME_MAX + 2];
	struct dirent *e;
	DIR *d;
	size_t n;
	int fd;

	snprintf(name, sizeof(name), "%smap_", cap.prefix);
	n = strlen(name);
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, name, n) != 0 ||
		    strspn(e->d_name + n, "0123456789") !=
		    strlen(e->d_name + n) || e->d_name[n] == '\0')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* a file another process still maps holds the EAL's lock
		 * (the prefix's name is all this switch can tell by): keep
		 * it, as the EAL's own clear_hugedir does */
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			unlink(path);
		close(fd);
	}
	closedir(d);
}

/* Every hugetlbfs mount point (or --huge-dir). */
static void
remove_all_hugepage_files(void)
{
	char line[PATH_MAX + 256], dir[PATH_MAX], type[64];
	FILE *f;

	if (cap.huge_dir[0] != '\0') {
		remove_hugepage_files(cap.huge_dir);
		return;
	}
	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 &&
		    strcmp(type, "hugetlbfs") == 0)
			remove_hugepage_files(dir);
	fclose(f);
}

/* The runtime directory holds only the EAL's flat files and sockets. */
static void
remove_runtime_dir(const char *dir)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

void
acis_capture_remove_files(void)
{
	if (cap.shared)
		remove_all_hugepage_files();
	if (cap.runtime_dir[0] != '\0')
		remove_runtime_dir(cap.runtime_dir);
}
