// SPDX-License-Identifier: GPL-2.0
/*
 * fevent funcs GLOB: traceable functions matching a glob.  For the running
 * kernel: the text symbols of /proc/kallsyms that the debug info also
 * describes, less what kprobes refuse (the blacklist; and, where
 * available_filter_functions is readable, what it does not list); loaded
 * modules' functions after the kernel's, as MOD:func, described by the
 * module's split BTF.  With --btf alone (another kernel): that BTF's
 * functions.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag.h"
#include "usdt.h"
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

/* kallsyms' functions: the kernel's into one list, modules' as MOD:func
 * (the form add takes) into another. */
struct kallsyms_names {
	struct names *kernel, *modules;
};

static int from_kallsyms(const char *name, const char *module, void *arg)
{
	struct kallsyms_names *kn = arg;
	const char *glob = kn->kernel->glob;
	char *key;
	int ret;

	if (!module)
		return fnmatch(glob, name, 0) ? 0 : add(kn->kernel, name);
	/* not modules: BPF programs and the kernel's own trampolines */
	if (!strcmp(module, "bpf") || !strncmp(module, "__builtin__", 11))
		return 0;
	if (asprintf(&key, "%s:%s", module, name) < 0) {
		kn->modules->failed = true;
		return 1;
	}
	/* 'binfmt_misc:*' picks a module; 'load_*' matches in every one */
	ret = fnmatch(glob, strchr(glob, ':') ? key : name, 0) ? 0 : add(kn->modules, key);
	free(key);
	return ret;
}

/* "mod:func" for each function of a module's BTF. */
struct module_funcs {
	struct names *ns;
	const char *module;
};

static int from_module_dbg(const char *name, void *arg)
{
	struct module_funcs *mf = arg;
	char *key;
	int ret;

	if (asprintf(&key, "%s:%s", mf->module, name) < 0) {
		mf->ns->failed = true;
		return 1;
	}
	ret = add(mf->ns, key);
	free(key);
	return ret;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(struct names *ns)
{
	int i, j = 0;

	if (!ns->n)
		return;	/* v may be NULL, which qsort must not get */
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
	return ns->n && bsearch(&name, ns->v, ns->n, sizeof(*ns->v), cmp) != NULL;
}

static void free_names(struct names *ns)
{
	int i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/*
 * The functions of the modules' BTF (/sys/kernel/btf/MOD, split on top of
 * base) for the modules names lists, as "mod:func".  A module without BTF
 * adds nothing: its functions are then not filtered (has_btf says which).
 */
static void module_btf_names(struct fe_dbg *base, const struct names *mods, struct names *out,
			     struct names *has_btf)
{
	int i;

	for (i = 0; i < mods->n; i++) {
		const char *colon = strchr(mods->v[i], ':');
		struct fe_error ignored;
		struct module_funcs mf = { out, NULL };
		struct fe_dbg *m;
		char *module;

		/* sorted: one module's functions are together */
		if (i && !strncmp(mods->v[i - 1], mods->v[i], colon - mods->v[i] + 1))
			continue;
		module = strndup(mods->v[i], colon - mods->v[i]);
		if (!module) {
			out->failed = true;
			return;
		}
		m = fe_dbg_open_btf_module(base, module, &ignored);
		if (m) {
			mf.module = module;
			fe_dbg_each_func(m, from_module_dbg, &mf);
			add(has_btf, module);
			fe_dbg_close(m);
		}
		free(module);
	}
	sort_unique(out);
	sort_unique(has_btf);
}

/* A module function the kernel has and, where its module has BTF, it
 * describes. */
static bool module_func_described(const struct names *btf_names, const struct names *has_btf,
				  const char *key)
{
	const char *colon = strchr(key, ':');
	char module[128];

	snprintf(module, sizeof(module), "%.*s", (int)(colon - key), key);
	return !has(has_btf, module) || has(btf_names, key);
}

/* -x BIN 'PROVIDER:*': the binary's SDT probes, each with its argument
 * specs, as 'PROVIDER:NAME(ARGS)' can name them. */
static int sdt_funcs(const struct fe_cli *cli)
{
	struct fe_usdt *u;
	struct fe_error err = { 0 };
	int n, i;

	if (fe_usdt_read(cli->binary, &u, &n, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		char *full = NULL;

		if (asprintf(&full, "%s:%s", u[i].provider, u[i].name) < 0) {
			fe_usdt_free(u, n);
			fe_say_error("out of memory\n");
			return FE_EXIT_FAIL;
		}
		if (!fnmatch(cli->args[0], full, 0))
			printf("%s  %s%s\n", full, u[i].spec, u[i].ref_ctr ? "  (semaphore)" : "");
		free(full);
	}
	fe_usdt_free(u, n);
	return FE_EXIT_OK;
}

int fe_cmd_funcs(const struct fe_cli *cli)
{
	struct fe_compile_opts opts;
	struct names dbg_names = { 0 }, sym_names = { 0 }, mod_names = { 0 };
	struct names mod_dbg_names = { 0 }, mods_with_btf = { 0 };
	struct kallsyms_names kn = { &sym_names, &mod_names };
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
	if (cli->binary && strchr(cli->args[0], ':'))
		return sdt_funcs(cli);
	dbg_names.glob = sym_names.glob = mod_names.glob = cli->args[0];
	if (fe_open_debug_info(&opts, &dbg, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_USAGE;
	}
	if (dbg) {
		fe_dbg_each_func(dbg, from_dbg, &dbg_names);
		sort_unique(&dbg_names);
	}
	if (use_kallsyms) {
		if (fe_ksyms_each(path, from_kallsyms, &kn) < 0) {
			fe_say_error("cannot read %s\n", path);
			ret = FE_EXIT_FAIL;
			goto out;
		}
		sort_unique(&sym_names);
		sort_unique(&mod_names);
		if (dbg)
			module_btf_names(dbg, &mod_names, &mod_dbg_names, &mods_with_btf);
	}
	if (dbg_names.failed || sym_names.failed || mod_names.failed || mod_dbg_names.failed ||
	    mods_with_btf.failed) {
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
		for (i = 0; i < mod_names.n; i++)
			if (module_func_described(&mod_dbg_names, &mods_with_btf, mod_names.v[i]) &&
			    !fe_kprobe_rules_refuse(rules, mod_names.v[i]))
				printf("%s\n", mod_names.v[i]);
		fe_kprobe_rules_free(rules);
	} else {
		for (i = 0; i < dbg_names.n; i++)
			printf("%s\n", dbg_names.v[i]);
	}
out:
	free_names(&dbg_names);
	free_names(&sym_names);
	free_names(&mod_names);
	free_names(&mod_dbg_names);
	free_names(&mods_with_btf);
	fe_dbg_close(dbg);
	return ret;
}
