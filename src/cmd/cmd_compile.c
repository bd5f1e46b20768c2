// SPDX-License-Identifier: GPL-2.0
/*
 * fevent compile PROTO...: print the definitions; touch nothing.
 * Needs neither root nor tracefs.  All prototypes are compiled before any
 * line is printed, so a bad one leaves stdout empty.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compile.h"
#include "diag.h"
#include "kmodule.h"
#include "proto_render.h"
#include "tracepoint.h"
#include "kernel_caps.h"
#include <tracefs.h>

/*
 * The kernel whose capabilities compile answers for (docs/decisions.md,
 * "What the kernel can do"): --tracefs DIR's; another kernel's (--btf,
 * --vmlinux, --kallsyms) or --portable's (fe_compile_cli): none in
 * particular; else the running kernel's, through its mounted tracefs
 * (nothing is mounted, and as non-root it cannot be read: none), where it
 * has kprobe events: a machine without them prepares definitions for
 * another.
 */
static const struct fe_kcaps *compile_kcaps(const struct fe_dbg_args *d, const char *tracefs)
{
	const struct fe_kcaps *caps;
	char dir[PATH_MAX];

	if (tracefs)
		return fe_kcaps_at(tracefs);
	if (d->btf || d->vmlinux || d->kallsyms)
		return NULL;
	caps = fe_kcaps_mounted_dir(dir, sizeof(dir)) ? fe_kcaps_at(dir) : NULL;
	return fe_kcaps_can(caps, FE_CAP_KPROBE_EVENTS) ? caps : NULL;
}

void fe_dbg_args_opts(const struct fe_dbg_args *d, struct fe_compile_opts *opts)
{
	fe_compile_args_opts(&(const struct fe_compile_args){ .dbg = *d }, NULL, opts);
}

/* The compile options of a's, but the kernel they are for */
static void fill_opts(const struct fe_compile_args *a, const char *tracefs,
		      struct fe_compile_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->group = a->group;
	opts->event = a->event;
	opts->kallsyms = a->dbg.kallsyms;
	opts->btf = a->dbg.btf;
	opts->vmlinux = a->dbg.vmlinux;
	opts->kos = (const char *const *)a->dbg.kos.v;
	opts->nr_kos = a->dbg.kos.nr;
	opts->binary = a->dbg.binary;
	opts->want_return = a->want_return;
	opts->strict = a->strict;
	opts->max = a->max;
	opts->verbose = fe_verbose > 0;
	opts->tracefs = tracefs;
}

void fe_compile_args_opts(const struct fe_compile_args *a, const char *tracefs,
			  struct fe_compile_opts *opts)
{
	fill_opts(a, tracefs, opts);
	opts->kcaps = compile_kcaps(&a->dbg, tracefs);
}

static bool render_definition(const struct fe_compiled *it, struct fe_buf *b);
static bool render_portable(const struct fe_compiled *it, struct fe_buf *b);

/* Has an item before set->items[i] of its place said its error?  The
 * addresses of one line fail alike, and an SDT probe's sites that fail
 * alike say so in one error (fe_compile_merge_sdt_errors): say it once. */
static bool said_before(const struct fe_compile_set *set, int i)
{
	const struct fe_compiled *it = &set->items[i];
	int j, first = i - 1;

	if (it->has_site && it->site.kind == FE_SITE_SDT && !it->glob)
		first = i - it->site.index;
	for (j = first < 0 ? 0 : first; j < i; j++) {
		const struct fe_compiled *prev = &set->items[j];

		if (prev->failed && prev->file == it->file && prev->line == it->line &&
		    !strcmp(prev->text, it->text) &&
		    fe_compiled_error(prev)->col == fe_compiled_error(it)->col &&
		    !strcmp(fe_compiled_error(prev)->msg, fe_compiled_error(it)->msg))
			return true;
	}
	return false;
}

int fe_compile_cli(const struct fe_cmdline *cl, const struct fe_compile_job *job,
		   struct fe_compile_set *set)
{
	const struct fe_compile_args *a = job->args;
	struct fe_compile_opts opts;
	struct fe_error err = { 0 };
	const char *elf, *kallsyms;
	int i, failed, unloaded = 0;

	fill_opts(a, job->tracefs, &opts);
	opts.kcaps = job->portable ? NULL : compile_kcaps(&a->dbg, job->tracefs);
	opts.installs = cl->flags & FE_CMD_INSTALLS;
	/* compile renders a glob's functions as they are made (add keeps
	 * every item: it installs them) */
	if (!opts.installs)
		opts.render = job->portable ? render_portable : render_definition;
	/* add installs on the running kernel, whatever debug info it is
	 * given: that kernel's capabilities decide the definitions */
	if (opts.installs)
		opts.kcaps = fe_kcaps_at(job->tracefs ? job->tracefs : tracefs_tracing_dir());
	/* which kernel (none in particular: what every kernel takes) */
	if (fe_verbose && opts.kcaps)
		fprintf(stderr, "fevent: definitions for the kernel of the tracefs at %s\n",
			opts.kcaps->dir);
	memset(set, 0, sizeof(*set));
	/* a list streams as a glob does (one -n event is one prototype) */
	set->defer_lines = opts.render && !a->event;
	if (!opts.installs && job->tracefs && !job->portable && !opts.kcaps) {
		fe_say_error("cannot read %s/README: --tracefs names the tracefs of the kernel the definitions are for, or a directory with a copy of its README\n",
			     job->tracefs);
		return FE_EXIT_USAGE;
	}
	for (i = 0; i < cl->nr_args; i++) {
		if (fe_compile_add_text(set, cl->args[i], i + 1)) {
			fprintf(stderr, "fevent: out of memory\n");
			return FE_EXIT_FAIL;
		}
	}
	for (i = 0; i < a->files.nr; i++) {
		if (fe_compile_add_file(set, a->files.v[i])) {
			fe_say_error("cannot read prototypes from %s: %s\n",
				strcmp(a->files.v[i], "-") ? a->files.v[i] : "standard input",
				strerror(errno));
			return FE_EXIT_USAGE;
		}
	}
	if (set->nr == 0) {
		fe_say_error("no prototype given (see 'fevent %s --help')\n",
			cl->command);
		return FE_EXIT_USAGE;
	}
	if (a->event && set->nr > 1) {
		fe_say_error("-n names one event, but %d prototypes were given\n",
			set->nr);
		return FE_EXIT_USAGE;
	}

	failed = fe_compile_run(set, &opts, &err);
	if (failed < 0) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_USAGE;
	}
	fe_compile_symtabs(&opts, &elf, &kallsyms);
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (it->failed) {
			if (!said_before(set, i))
				fe_print_error(stderr, it);
			continue;
		}
		if (it->probe && it->probe->module_unloaded && !it->probe->module_waits &&
		    opts.installs) {
			char why[FE_ERR_MSG_MAX / 2];
			int col = it->proto->func_col - (int)strlen(it->probe->module) - 1;

			/*
			 * The kernel would take it and arm it when the module
			 * loads, but with no file of the module nothing can
			 * check the function until then: compile warns, add
			 * refuses.
			 */
			fe_kmod_not_loaded(it->probe->module, kallsyms, why, sizeof(why));
			fe_err(fe_compiled_err(it), col > 0 ? col : 0, "%s", why);
			fe_print_error(stderr, it);
			unloaded++;
			continue;
		}
		fe_print_warnings(stderr, it);
		/* compile keeps the probe of each item under -v */
		if (opts.verbose && it->probe)
			fprintf(stderr, "fevent: %s: probe on %s%s; %s%s\n", it->probe->func,
				it->probe->target,
				it->probe->syscall_wrapper ? " (system call wrapper: arguments in pt_regs)" : "",
				it->probe->described ? "types from " : "no debug info for it",
				it->probe->described && it->debug_info ? it->debug_info : "");
	}
	return failed ? FE_EXIT_USAGE : unloaded ? FE_EXIT_FAIL : FE_EXIT_OK;
}

/* An item's definition as compile and add print it */
static bool render_definition(const struct fe_compiled *it, struct fe_buf *b)
{
	const struct fe_definition *d = &it->def;

	fe_buf_printf(b, "%s\n", d->entry);
	if (d->filter && !d->filter_on_return && !d->filter_on_call)
		fe_buf_printf(b, "# filter %s/%s: %s\n", d->group, d->event, d->filter);
	if (d->ret)
		fe_buf_printf(b, "%s\n", d->ret);
	/* a comment to kprobe_events; the filter file takes it */
	if (d->filter && d->filter_on_return)
		fe_buf_printf(b, "# filter %s/%s: %s\n", d->group, d->ret_event, d->filter);
	/* over both events: no filter file takes it, fevent does */
	if (d->filter && d->filter_on_call)
		fe_buf_printf(b, "# call filter %s/%s: %s\n", d->group, d->event, d->filter);
	return !b->failed;
}

/*
 * --portable: each definition as a prototype of the kernel's own fetches
 * (TYPE NAME=FETCH at FUNC or FUNC+OFF), which compiles to the same
 * arguments with no debug info: a line or a member path resolved here
 * from DWARF, added with 'add -f' on a machine that has none.  false for
 * a uprobe (the printer says why) or out of memory.
 */
static bool render_portable(const struct fe_compiled *it, struct fe_buf *b)
{
	const struct fe_definition *d = &it->def;
	const char *sp = strchr(d->entry, ' ');
	const char *place_end = sp ? strchr(sp + 1, ' ') : NULL;
	char place[512], *entry = NULL, *ret = NULL;
	const char *rtype_end = NULL;

	if (d->uprobe)
		return false;
	if (!sp)
		return true;
	snprintf(place, sizeof(place), "%.*s",
		 (int)(place_end ? place_end - sp - 1 : (long)strlen(sp + 1)), sp + 1);
	entry = d->tracepoint ? fe_tp_render(d->target, d->entry_args) :
		fe_render_proto(d->event, place, d->entry_args, &it->site, true);
	if (d->ret)
		ret = fe_render_proto(d->event, place, d->ret_args ? d->ret_args : "",
				      &it->ret_site, true);
	if (!entry || (d->ret && !ret)) {
		free(entry);
		free(ret);
		return false;
	}
	/* the return event's rendering is "TYPE FUNC()": its type goes
	 * before the entry's prototype (void: a return without a value) */
	if (ret)
		rtype_end = strrchr(ret, '(') ? memrchr(ret, ' ', strrchr(ret, '(') - ret) : NULL;
	fe_buf_printf(b, "%.*s%s%s%s%s\n", rtype_end ? (int)(rtype_end - ret) : 0, ret ? ret : "",
		      rtype_end ? " " : ret ? "void " : "", entry, d->filter ? " if " : "",
		      d->filter ? d->filter : "");
	free(entry);
	free(ret);
	return !b->failed;
}

/*
 * Print the set's items and its streamed glob's thin functions (their
 * lines rendered as they were made), in order.  An item render cannot
 * take: --portable's uprobe, refused (exit 2); out of memory.
 */
static int print_set(const struct fe_compile_set *set,
		     bool (*render)(const struct fe_compiled *, struct fe_buf *), const char *what)
{
	struct fe_buf b = { 0 };
	const char *lines;
	int i = 0, t = 0, ret = FE_EXIT_OK;

	while (i < set->nr || t < set->nr_thin) {
		const struct fe_thin *th = t < set->nr_thin ? &set->thin[t] : NULL;

		if (th && th->dead) {
			t++;
		} else if (th && (i >= set->nr || th->seq < set->items[i].seq)) {
			lines = fe_compile_spooled(set, th->off, th->len, &b);
			if (!lines) {
				fe_say_error("reading the definitions back from a temporary file: %s\n",
					     strerror(errno));
				ret = FE_EXIT_FAIL;
				break;
			}
			fwrite(lines, 1, th->len, stdout);
			t++;
		} else if (b.len = 0, render(&set->items[i], &b)) {
			fwrite(b.s, 1, b.len, stdout);
			i++;
		} else {
			if (set->items[i].def.uprobe) {
				fe_say_error("--portable is for kprobes: on the target machine, compile a "
					     "binary's prototypes with -x\n");
				ret = FE_EXIT_USAGE;
			} else {
				fe_say_error("out of memory\n");
				ret = FE_EXIT_FAIL;
			}
			break;
		}
	}
	fe_buf_free(&b);
	if (ret)
		return ret;
	if (fflush(stdout) || ferror(stdout)) {
		fe_say_error("writing the %s: %s\n", what, strerror(errno));
		return FE_EXIT_FAIL;
	}
	return FE_EXIT_OK;
}

int fe_print_definitions(const struct fe_compile_set *set)
{
	return print_set(set, render_definition, "definitions");
}

/* compile's options */
struct compile_opts {
	struct fe_compile_args c;
	bool portable;		/* --portable */
	const char *tracefs;	/* --tracefs DIR */
};

static int cmd_compile(const struct fe_cmdline *cl, void *opts)
{
	const struct compile_opts *o = opts;
	struct fe_compile_job job = { &o->c, o->tracefs, o->portable };
	struct fe_compile_set set;
	int ret = fe_compile_cli(cl, &job, &set);

	if (ret == FE_EXIT_OK)
		ret = o->portable ? print_set(&set, render_portable, "prototypes") :
		      fe_print_definitions(&set);
	fe_compile_set_free(&set);
	return ret;
}

/* compile's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_compile = {
	"compile", cmd_compile,
	"fevent compile [-x BIN [-p PID]] [-r] [-g GROUP] [-n NAME] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-f FILE]... [--strict] [--max N] [--portable] [--tracefs DIR] [-v] [-q] PROTO...",
	"Print the kprobe_events definition of each prototype; touch nothing.\n"
	"Needs neither root nor tracefs.  A function the running kernel lacks\n"
	"(per /proc/kallsyms, or --kallsyms FILE) is a warning, not an error.\n"
	"The definitions are those add makes on the kernel whose tracefs README\n"
	"is read: the running kernel's (root), --tracefs DIR's; with none read,\n"
	"or for another kernel (--btf, --vmlinux, --kallsyms), what every kernel\n"
	"with kprobe events takes.\n",
	"fevent compile 'SyS_openat(int dfd, string path, x32 flags, x16 mode)'",
	0,
	{ FE_COMPILE_OPTS(struct compile_opts, c),
	  FE_OPTION(FE_OPT_PORTABLE, FLAG, struct compile_opts, portable, NULL),
	  FE_OPTION(FE_OPT_TRACEFS, STRING, struct compile_opts, tracefs,
		    "the tracefs of the kernel the definitions are for,\n"
		    "or a directory with a copy of its README"), FE_COMMON_OPTS },
	sizeof(struct compile_opts),
	NULL,	/* no checks */
};
