// SPDX-License-Identifier: GPL-2.0
/*
 * fevent funcs GLOB: traceable functions matching a glob.  For the running
 * kernel: the text symbols of /proc/kallsyms that the debug info also
 * describes, less what kprobes refuse (the blacklist; and, where
 * available_filter_functions is readable, what it does not list).  With
 * --btf alone (another kernel): that BTF's functions.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "compile.h"
#include "kprobe_rules.h"
#include "ksyms.h"

#define DEFAULT_KALLSYMS	"/proc/kallsyms"

struct names {
	char **v;
	int n, cap;
	const char *glob;
	bool failed;
};

static int add(struct names *ns, const char *name)
{
	if (ns->n == ns->cap) {
		int cap = ns->cap ? ns->cap * 2 : 256;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			goto oom;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	if (!ns->v[ns->n])
		goto oom;
	ns->n++;
	return 0;
oom:
	ns->failed = true;
	return 1;
}

static int from_dbg(const char *name, void *arg)
{
	struct names *ns = arg;

	return fnmatch(ns->glob, name, 0) ? 0 : add(ns, name);
}

static int from_kallsyms(const char *name, const char *module, void *arg)
{
	struct names *ns = arg;

	(void)module;
	return fnmatch(ns->glob, name, 0) ? 0 : add(ns, name);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(struct names *ns)
{
	int i, j = 0;

	qsort(ns->v, ns->n, sizeof(*ns->v), cmp);
	for (i = 0; i < ns->n; i++) {
		if (j && !strcmp(ns->v[j - 1], ns->v[i]))
			free(ns->v[i]);
		else
			ns->v[j++] = ns->v[i];
	}
	ns->n = j;
}

static bool has(const struct names *ns, const char *name)
{
	return bsearch(&name, ns->v, ns->n, sizeof(*ns->v), cmp) != NULL;
}

static void free_names(struct names *ns)
{
	int i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

int fe_cmd_funcs(const struct fe_cli *cli)
{
	struct fe_compile_opts opts;
	struct names dbg_names = { 0 }, sym_names = { 0 };
	struct fe_error err = { 0 };
	struct fe_dbg *dbg = NULL;
	const char *path = cli->kallsyms ? cli->kallsyms : DEFAULT_KALLSYMS;
	bool use_kallsyms = !cli->binary && ((!cli->btf && !cli->vmlinux) || cli->kallsyms);
	int i, ret = FE_EXIT_OK;

	fe_cli_compile_opts(cli, &opts);
	if (cli->nr_args != 1) {
		fe_say_error("give one glob, e.g. 'fevent funcs \"vfs_*\"'\n");
		return FE_EXIT_USAGE;
	}
	dbg_names.glob = sym_names.glob = cli->args[0];
	if (fe_open_debug_info(&opts, &dbg, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_USAGE;
	}
	if (dbg) {
		fe_dbg_each_func(dbg, from_dbg, &dbg_names);
		sort_unique(&dbg_names);
	}
	if (use_kallsyms) {
		if (fe_ksyms_each(path, from_kallsyms, &sym_names) < 0) {
			fe_say_error("cannot read %s\n", path);
			ret = FE_EXIT_FAIL;
			goto out;
		}
		sort_unique(&sym_names);
	}
	if (dbg_names.failed || sym_names.failed) {
		fprintf(stderr, "fevent: out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	if (use_kallsyms) {
		/* the running kernel: only what add can probe (DESIGN 12) */
		struct fe_kprobe_rules *rules = cli->kallsyms ? NULL : fe_kprobe_rules_load();

		for (i = 0; i < sym_names.n; i++)
			if ((!dbg || has(&dbg_names, sym_names.v[i])) &&
			    !fe_kprobe_rules_refuse(rules, sym_names.v[i]))
				printf("%s\n", sym_names.v[i]);
		fe_kprobe_rules_free(rules);
	} else {
		for (i = 0; i < dbg_names.n; i++)
			printf("%s\n", dbg_names.v[i]);
	}
out:
	free_names(&dbg_names);
	free_names(&sym_names);
	fe_dbg_close(dbg);
	return ret;
}
