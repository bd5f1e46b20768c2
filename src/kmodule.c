// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kmodule.h"

#define PROC_MODULES	"/proc/modules"
#define PROC_KALLSYMS	"/proc/kallsyms"

int fe_kmod_loaded(const char *module)
{
	char *line = NULL;
	size_t cap = 0, len = strlen(module);
	int found = 0;
	FILE *f = fopen(PROC_MODULES, "re");

	if (!f)
		return errno == ENOENT ? 0 : -1;	/* no CONFIG_MODULES */
	while (!found && getline(&line, &cap, f) > 0)
		found = !strncmp(line, module, len) && line[len] == ' ';
	free(line);
	fclose(f);
	return found;
}

/* Module names treat '-' and '_' alike; files may use either. */
static bool same_module(const char *a, size_t alen, const char *b)
{
	size_t i;

	if (strlen(b) != alen)
		return false;
	for (i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return false;
	}
	return true;
}

/*
 * Does a modules.dep or modules.builtin list module?  Each line starts
 * with a path ("kernel/fs/binfmt_misc.ko[.xz]", then ':' and the
 * dependencies in modules.dep).  1 yes, 0 no, -1 unreadable.
 */
static int listed_as(const char *path, const char *module, char *as, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) > 0) {
		char *end = line + strcspn(line, ":\n");
		char *base, *ko;

		*end = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		ko = strstr(base, ".ko");
		if (ko)
			found = same_module(base, ko - base, module);
		if (found && as)
			snprintf(as, size, "%s", line);
	}
	free(line);
	fclose(f);
	return found;
}

static int listed(const char *path, const char *module)
{
	return listed_as(path, module, NULL, 0);
}

static void modules_dir(char *buf, size_t size)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, size, "/lib/modules");
	else
		snprintf(buf, size, "/lib/modules/%s", u.release);
}

int fe_kmod_builtin(const char *module)
{
	char dir[320], path[400];

	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	return listed(path, module);
}

int fe_kmod_file(const char *module, char *buf, size_t size)
{
	char dir[320], path[400], rel[PATH_MAX];
	int found;

	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	found = listed_as(path, module, rel, sizeof(rel));
	if (found != 1)
		return found;
	/* modules.dep's paths are relative to its directory (older depmods
	 * wrote them whole) */
	if (rel[0] == '/')
		snprintf(buf, size, "%s", rel);
	else
		snprintf(buf, size, "%s/%s", dir, rel);
	return 1;
}

void fe_kmod_not_loaded(const char *module, const char *kallsyms, char *buf, size_t size)
{
	char dir[320], path[400];
	int dep;

	if (!kallsyms || strcmp(kallsyms, PROC_KALLSYMS)) {
		snprintf(buf, size, "module '%s' is not loaded (not in %s)", module,
			 kallsyms ? kallsyms : "the symbol table");
		return;
	}
	modules_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	if (listed(path, module) == 1) {
		/* a kprobe on "MODULE:f" waits for a module that never loads */
		snprintf(buf, size, "module '%s' is built into the kernel (%s): its functions are the kernel's, written without '%s:'",
			 module, path, module);
		return;
	}
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	dep = listed(path, module);
	if (dep == 1)
		snprintf(buf, size, "module '%s' is not loaded (not in %s): 'modprobe %s' loads it",
			 module, PROC_KALLSYMS, module);
	else if (dep == 0)
		snprintf(buf, size, "module '%s' is not loaded (not in %s), and this kernel has no module of that name (%s)",
			 module, PROC_KALLSYMS, path);
	else
		snprintf(buf, size, "module '%s' is not loaded (not in %s)", module, PROC_KALLSYMS);
}
