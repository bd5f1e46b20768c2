// SPDX-License-Identifier: GPL-2.0
/*
 * fevent add PROTO...: create the events, all or nothing.  A definition
 * the kernel refuses is shown with the kernel's own words and caret, and
 * with the prototype argument it came from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot_kept.h"
#include "commands.h"
#include "compile.h"
#include "diag.h"
#include "probe_install.h"

static void print_refusal(const struct fe_compile_set *set, const struct fe_refusal *r,
			  const struct fe_error *err)
{
	const struct fe_compiled *it = &set->items[r->def];
	const char *line = r->log;

	fe_say_error("%s:\n", err->msg);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		fprintf(stderr, "    %.*s\n", len, line);
		line = nl ? nl + 1 : NULL;
	}
	if (r->arg >= 0 && r->col > 0) {
		const char *name = it->def.entry_args + it->def.arg_pos[r->arg];
		const char *eq = strchr(name, '=');
		struct fe_compiled shown = *it;
		struct fe_error at = { .col = r->col };

		shown.err = &at;
		snprintf(at.msg, sizeof(at.msg),
			 "the caret is on field '%.*s', which comes from here",
			 eq ? (int)(eq - name) : 0, name);
		fe_print_error(stderr, &shown);
	}
}

/* add's options */
struct add_opts {
	struct fe_compile_args c;
	bool force;		/* --force */
	const char *tracefs;	/* --tracefs DIR */
};

static int cmd_add(const struct fe_cmdline *cl, void *opts)
{
	const struct add_opts *o = opts;
	struct fe_compile_job job = { &o->c, o->tracefs, false };
	struct fe_compile_set set;
	struct fe_definition **defs = NULL;
	struct fe_refusal refusal = { .def = -1, .arg = -1 };
	struct fe_error err = { 0 };
	bool kprobes = false, uprobes = false;
	int i, ret;

	/* add changes the kernel's state: it may keep what the kernel said
	 * for the boot, which compile and funcs then read (boot_kept.h) */
	fe_boot_kept_allow_write();
	ret = fe_compile_cli(cl, &job, &set);
	if (ret != FE_EXIT_OK)
		goto out;
	for (i = 0; i < set.nr; i++) {
		kprobes |= !set.items[i].def.uprobe && !set.items[i].def.tracepoint;
		uprobes |= set.items[i].def.uprobe;
	}
	i = fe_tracefs_ready(o->tracefs, kprobes, uprobes, &err);
	if (i) {
		fe_say_error("%s\n", err.msg);
		ret = i == -2 ? FE_EXIT_USAGE : FE_EXIT_FAIL;
		goto out;
	}
	fe_say_leftovers();
	defs = calloc(set.nr, sizeof(*defs));
	if (!defs) {
		fprintf(stderr, "fevent: out of memory\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < set.nr; i++)
		defs[i] = &set.items[i].def;
	if (fe_install(defs, set.nr, o->force, &refusal, &err)) {
		if (refusal.def >= 0 && refusal.log)
			print_refusal(&set, &refusal, &err);
		else
			fe_say_error("%s\n", err.msg);
		fprintf(stderr, "fevent: nothing was added\n");
		ret = FE_EXIT_FAIL;
		goto out;
	}
	ret = fe_quiet ? FE_EXIT_OK : fe_print_definitions(&set);
out:
	fe_refusal_clear(&refusal);
	free(defs);
	fe_compile_set_free(&set);
	return ret;
}

/* add's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_add = {
	"add", cmd_add,
	"fevent add [-x BIN [-p PID]] [-r] [-g GROUP] [-n NAME] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-f FILE]... [--strict] [--max N] [--force] [--tracefs DIR] [-v] [-q] PROTO...",
	"Create the events, all or nothing: if the kernel refuses one, none stay.\n"
	"Prints the definitions created.  Needs root; mounts tracefs if needed.\n",
	"fevent add 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'",
	FE_CMD_INSTALLS,
	{ FE_COMPILE_OPTS(struct add_opts, c),
	  FE_OPTION(FE_OPT_FORCE, FLAG, struct add_opts, force, NULL),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct add_opts, tracefs, NULL), FE_COMMON_OPTS },
	sizeof(struct add_opts),
	NULL,	/* no checks */
};
