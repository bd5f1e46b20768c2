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
#include "fe_util.h"
#include "usdt.h"
#include "compile.h"
#include "dbg_inline.h"
#include "func_glob.h"
#include "proto_resolve.h"
#include "tracepoint.h"

/* " (semaphore)" of a probe whose sites (u[site[0..nr-1]]) each have
 * one, " (semaphore at site 2)" or " (semaphore at sites 1 and 3)" of
 * one whose notes say it of some, else nothing: as the notes say. */
static void print_semaphores(const struct fe_usdt *u, const int *site, int nr)
{
	int i, m = 0, k = 0;

	for (i = 0; i < nr; i++)
		m += u[site[i]].ref_ctr != 0;
	if (!m || m == nr) {
		fputs(m ? "  (semaphore)" : "", stdout);
		return;
	}
	printf("  (semaphore at site%s", m > 1 ? "s" : "");
	for (i = 0; i < nr; i++)
		if (u[site[i]].ref_ctr)
			printf("%s%d", !k++ ? " " : k == m ? " and " : ", ", i + 1);
	putchar(')');
}

/* -x BIN 'PROVIDER:*': the binary's SDT probes, each once with its
 * (first note's) argument specs, as 'PROVIDER:NAME(ARGS)' can name them,
 * its sites' semaphores, and how many sites one with several notes has
 * (each an event). */
static int sdt_funcs(const struct fe_dbg_args *d, const char *glob)
{
	struct fe_usdt *u;
	struct fe_error err = { 0 };
	int *order, *pos = NULL, n, i;

	if (fe_usdt_read(d->binary, &u, &n, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_FAIL;
	}
	/* the probes in note order; each one's sites together in order,
	 * from pos[its first note] */
	order = fe_usdt_order(u, n);
	if (order)
		pos = malloc((n ? n : 1) * sizeof(*pos));
	for (i = 0; pos && i < n; i++)
		pos[order[i]] = i;
	for (i = 0; pos && i < n; i++) {
		const struct fe_usdt *p = &u[i];
		char *full = NULL;

		if (p->site)
			continue;
		if (asprintf(&full, "%s:%s", p->provider, p->name) < 0)
			break;
		if (!fnmatch(glob, full, 0)) {
			printf("%s%s%s", full, *p->spec ? "  " : "", p->spec);
			print_semaphores(u, order + pos[i], p->nr_sites);
			if (p->nr_sites > 1)
				printf("  (%d sites)", p->nr_sites);
			putchar('\n');
		}
		free(full);
	}
	free(order);
	free(pos);
	fe_usdt_free(u, n);
	if (i < n) {
		fe_say_error("out of memory\n");
		return FE_EXIT_FAIL;
	}
	return FE_EXIT_OK;
}

/* 'tp:GLOB': the tracepoints BTF describes, as tp:NAME, sorted. */
static int tp_funcs(struct fe_dbg *dbg, const char *glob)
{
	struct fe_func_names names;
	struct fe_error err = { 0 };
	int i;

	if (fe_tp_glob(dbg, glob, &names, &err)) {
		fe_say_error("%s\n", err.msg);
		return dbg ? FE_EXIT_FAIL : FE_EXIT_USAGE;
	}
	for (i = 0; i < names.nr; i++)
		printf(FE_TP_PREFIX ":%s\n", names.v[i]);
	fe_func_names_free(&names);
	return FE_EXIT_OK;
}

struct inl_names {
	char **v;
	int nr;
};

static int take_name(const char *name, void *arg)
{
	struct inl_names *n = arg;
	char **p = fe_grow(&n->v, &n->nr, sizeof(*p));

	return !p || !(*p = strdup(name)) ? -1 : 0;
}

/*
 * The glob's names, those with inlined copies marked with how many
 * (DESIGN.md section 15), and the functions inlined everywhere among
 * them: "NAME  (inlined: N copies)".  DWARF only; over MAX_COUNTED
 * inlined names the copies are not counted (each count is a walk).
 */
#define MAX_COUNTED	500

static int print_marked(struct fe_dbg *dbg, struct fe_func_names *names, const char *glob)
{
	struct inl_names inl = { 0 };
	struct fe_error err = { 0 };
	int i = 0, j = 0, ret = 0;

	if (fe_dbg_inline_names(dbg, glob, take_name, &inl)) {
		ret = -1;
		goto out;
	}
	while (i < names->nr || j < inl.nr) {
		int c = i >= names->nr ? 1 : j >= inl.nr ? -1 : strcmp(names->v[i], inl.v[j]);
		const char *name = c <= 0 ? names->v[i] : inl.v[j];
		struct fe_site *sites = NULL;
		int nr = 0;

		if (c < 0) {
			printf("%s\n", name);
			i++;
			continue;
		}
		if (inl.nr <= MAX_COUNTED && fe_dbg_inline_copies(dbg, name, &sites, &nr, &err)) {
			ret = -1;
			goto out;
		}
		free(sites);
		if (inl.nr > MAX_COUNTED)
			printf("%s  (%s)\n", name, c ? "inlined" : "also inlined");
		else if (c == 0 && nr)
			printf("%s  (and %d inlined cop%s)\n", name, nr, nr == 1 ? "y" : "ies");
		else if (c == 0)
			printf("%s\n", name);
		else if (nr)
			printf("%s  (inlined: %d cop%s)\n", name, nr, nr == 1 ? "y" : "ies");
		i += c == 0;
		j++;
	}
out:
	for (i = 0; i < inl.nr; i++)
		free(inl.v[i]);
	free(inl.v);
	return ret;
}

/* funcs' options */
struct funcs_opts {
	struct fe_dbg_args d;
};

static int cmd_funcs(const struct fe_cmdline *cl, void *opts_)
{
	const struct fe_dbg_args *d = &((const struct funcs_opts *)opts_)->d;
	struct fe_compile_opts opts;
	struct fe_func_names names = { 0 };
	struct fe_error err = { 0 };
	struct fe_dbg *dbg = NULL;
	const char *elf, *kallsyms;
	int i, ret = FE_EXIT_OK;

	fe_dbg_args_opts(d, &opts);
	if (cl->nr_args != 1) {
		fe_say_error("give one glob, e.g. 'fevent funcs \"vfs_*\"'\n");
		return FE_EXIT_USAGE;
	}
	if (d->binary && strchr(cl->args[0], ':'))
		return sdt_funcs(d, cl->args[0]);
	/* funcs lists what the debug info describes without reading it:
	 * its units are checked whole here */
	if (fe_open_debug_info(&opts, &dbg, &err) || (dbg && fe_dbg_check_all(dbg, &err))) {
		fe_say_error("%s\n", err.msg);
		fe_dbg_close(dbg);
		return FE_EXIT_USAGE;
	}
	if (!d->binary && !strncmp(cl->args[0], FE_TP_PREFIX ":", strlen(FE_TP_PREFIX) + 1)) {
		ret = tp_funcs(dbg, cl->args[0] + strlen(FE_TP_PREFIX) + 1);
		goto out;
	}
	/* the same rule as a glob in a prototype (DESIGN 12) */
	fe_compile_symtabs(&opts, &elf, &kallsyms);
	if (fe_func_glob(dbg, kallsyms, kallsyms && !d->kallsyms, cl->args[0], &names, &err)) {
		fe_say_error("%s\n", err.msg);
		ret = FE_EXIT_FAIL;
		goto out;
	}
	if (dbg && !strcmp(fe_dbg_kind(dbg), "DWARF") && !strchr(cl->args[0], ':')) {
		if (print_marked(dbg, &names, cl->args[0])) {
			fe_say_error("out of memory\n");
			ret = FE_EXIT_FAIL;
		}
	} else {
		for (i = 0; i < names.nr; i++)
			printf("%s\n", names.v[i]);
	}
	fe_func_names_free(&names);
out:
	fe_dbg_close(dbg);
	return ret;
}

/* funcs's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_funcs = {
	"funcs", cmd_funcs,
	"fevent funcs [-x BIN [-p PID]] [--btf FILE|--vmlinux FILE] [--kallsyms FILE] [-v] [-q] GLOB",
	"List the traceable functions matching a shell glob: the running\n"
	"kernel's text symbols (/proc/kallsyms) that its BTF describes, then\n"
	"loaded modules' as MODULE:FUNC ('binfmt_misc:*' picks one module's);\n"
	"with --btf FILE alone, that BTF's functions.\n",
	"fevent funcs 'vfs_*'",
	0,
	{ FE_DEBUG_INFO_OPTS(struct funcs_opts, d), FE_COMMON_OPTS },
	sizeof(struct funcs_opts),
	NULL,	/* no checks */
};
