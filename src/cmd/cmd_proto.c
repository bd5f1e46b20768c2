// SPDX-License-Identifier: GPL-2.0
/*
 * fevent proto FUNC...: the function's signature from debug info, ready to
 * edit and feed back to compile or add, with what it compiles to as
 * comments underneath.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dbg_inline.h"
#include "diag.h"
#include "usdt.h"
#include "compile.h"
#include "fe_util.h"
#include "kmodule.h"
#include "ksyms.h"
#include "syscall_args.h"
#include "tracepoint.h"


/* "const char *" + "name" -> "const char *name"; "int" + "x" -> "int x" */
static void declare(struct fe_buf *b, struct fe_dbg *dbg, fe_tid type, const char *name)
{
	char t[256];

	if (fe_dbg_type_name(dbg, type, t, sizeof(t)))
		snprintf(t, sizeof(t), "x64");
	fe_buf_printf(b, "%s%s%s", t, t[strlen(t) - 1] == '*' ? "" : " ", name);
}

static char *signature(struct fe_dbg *dbg, const struct fe_dfunc *f)
{
	struct fe_buf b = { 0 };
	int i;

	declare(&b, dbg, f->ret, f->name);
	fe_buf_printf(&b, "(");
	for (i = 0; i < f->nr_params; i++) {
		char anon[24];

		snprintf(anon, sizeof(anon), "arg%d", i + 1);
		if (i)
			fe_buf_printf(&b, ", ");
		declare(&b, dbg, f->params[i].type,
			f->params[i].name ? f->params[i].name : anon);
	}
	if (f->variadic)
		fe_buf_printf(&b, "%s...", f->nr_params ? ", " : "");
	else if (!f->nr_params)
		fe_buf_printf(&b, "void");
	fe_buf_printf(&b, ")");
	return fe_buf_take(&b);
}

/* A tracepoint's prototype: tp:NAME(its raw arguments), or NULL when BTF
 * has no such tracepoint (*found 0) or memory runs out. */
static char *tp_signature(struct fe_dbg *dbg, const char *name, int *found)
{
	struct fe_error err = { 0 };
	struct fe_buf b = { 0 };
	struct fe_dfunc f;
	int i;

	*found = fe_btf_tracepoint(dbg, name, &f, &err);
	if (*found != 1)
		return NULL;
	fe_buf_printf(&b, FE_TP_PREFIX ":%s(", name);
	for (i = 0; i < f.nr_params; i++) {
		char anon[24];

		/* BTF before __probestub_NAME (6.5) names none: slots */
		snprintf(anon, sizeof(anon), "arg%d", i + 1);
		if (i)
			fe_buf_printf(&b, ", ");
		declare(&b, dbg, f.params[i].type, f.params[i].name ? f.params[i].name : anon);
	}
	fe_buf_printf(&b, "%s)", f.nr_params ? "" : "void");
	fe_dfunc_clear(&f);
	return fe_buf_take(&b);
}

/* What text (by default "FUNC(...)" with its return) compiles to, as
 * comment lines. */
static void print_compiled(const struct fe_dbg_args *d, struct fe_dbg *dbg, const struct fe_dfunc *f,
			   const char *proto)
{
	struct fe_compile_opts opts;
	struct fe_compile_set set = { 0 };
	struct fe_error err = { 0 };
	char text[1024];

	fe_dbg_args_opts(d, &opts);
	opts.open_dbg = dbg;
	opts.event = NULL;
	opts.want_return = !proto;	/* void too: the return event times the call */
	snprintf(text, sizeof(text), "%s", proto ? proto : "");
	if (!proto)
		snprintf(text, sizeof(text), "%s(...)", f->name);
	for (;;) {
		if (fe_compile_add_text(&set, text, 1) || fe_compile_run(&set, &opts, &err) < 0)
			break;
		if (!set.items[0].failed) {
			int k;

			/* an inlined function's copies are items of their own */
			for (k = 0; k < set.nr; k++) {
				printf("#   %s\n", set.items[k].def.entry);
				if (set.items[k].def.ret)
					printf("#   %s\n", set.items[k].def.ret);
				/* what the definition leaves out, in compile's words;
				 * that inlined copies have no return event is said
				 * in the comment line above */
				fflush(stdout);
				fe_print_warnings_but(stderr, &set.items[k], "no return event");
			}
			break;
		}
		if (!opts.want_return) {
			printf("#   (does not compile: %s)\n", fe_compiled_error(&set.items[0])->msg);
			break;
		}
		/* a return value probes cannot read (floating point, a
		 * struct): say so and show the entry event alone */
		printf("#   (no return event: %s)\n", fe_compiled_error(&set.items[0])->msg);
		opts.want_return = false;
		fe_compile_set_free(&set);
	}
	fe_compile_set_free(&set);
}

/* "SyS_openat", "sys_openat" -> "openat", as compile understands them */
static const char *syscall_of(const char *name)
{
	if (!strncmp(name, "SyS_", 4) || !strncmp(name, "sys_", 4))
		return name[4] ? name + 4 : NULL;
	return NULL;
}

/* "long SyS_openat(int dfd, ...)" from the trace event's format */
static char *format_signature(const struct fe_sc_args *a, const char *name)
{
	struct fe_buf b = { 0 };
	int i;

	fe_buf_printf(&b, "long %s(", name);
	for (i = 0; i < a->nr; i++)
		fe_buf_printf(&b, "%s%s %s", i ? ", " : "", a->args[i].type, a->args[i].name);
	fe_buf_printf(&b, "%s)", a->nr ? "" : "void");
	return fe_buf_take(&b);
}

/*
 * A system call's signature, as compile reads its arguments by name
 * (proto_resolve.c): from the running kernel's syscall trace event format,
 * which names and types every argument on every kernel (BTF describes
 * only the wrapper __x64_sys_X(const struct pt_regs *)); from the debug
 * info's __do_sys_X (or __se_sys_X) where it kept one.  For another
 * kernel (--btf, --vmlinux, --kallsyms) its own debug info comes first.
 * NULL with why set if neither has it.
 */
static char *syscall_signature(const struct fe_dbg_args *d, struct fe_dbg *dbg, const char *name,
			       char *why, size_t why_size)
{
	static const char *const helpers[] = { "__do_sys_%s", "__se_sys_%s" };
	const char *sc = syscall_of(name);
	bool other = d->btf || d->vmlinux || d->kallsyms;
	struct fe_buf b = { 0 };
	struct fe_sc_args a;
	struct fe_dfunc f;
	char fn[128], wrapper[128];
	char *sig;
	size_t i;
	int pass;

	if (!sc || d->binary)
		return NULL;	/* a user binary's sys_x is no system call */
	snprintf(wrapper, sizeof(wrapper), "__x64_sys_%s", sc);
	for (pass = 0; pass < 2; pass++) {
		if (pass == other) {
			if (fe_sc_args_read(NULL, sc, &a, why, why_size) == 1) {
				sig = format_signature(&a, name);
				fe_sc_args_clear(&a);
				return sig;
			}
			continue;
		}
		for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
			struct fe_error err = { 0 };
			char *paren;

			snprintf(fn, sizeof(fn), helpers[i], sc);
			if (fe_dbg_func(dbg, fn, &f, &err) != 1 &&
			    fe_dbg_func_beside(dbg, fn, wrapper, &f, &err) != 1)
				continue;
			sig = signature(dbg, &f);
			fe_dfunc_clear(&f);
			paren = sig ? strchr(sig, '(') : NULL;
			if (paren)
				fe_buf_printf(&b, "long %s%s", name, paren);
			free(sig);
			return fe_buf_take(&b);
		}
	}
	return NULL;
}

/* A function's inlined copies (DESIGN.md section 15): 1 and *nr, and
 * with f its signature from the first copy's DWARF; 0 none. */
static int inlined_copies(struct fe_dbg *dbg, const char *name, struct fe_dfunc *f, int *nr,
			  struct fe_error *err)
{
	struct fe_site *sites;
	int ret = 0;

	if (!dbg || fe_dbg_inline_copies(dbg, name, &sites, nr, err) || !*nr)
		return 0;
	if (!f || fe_dbg_scope_in(dbg, sites[0].func, sites[0].off, sites[0].inlined, f, err) == 1)
		ret = 1;
	free(sites);
	return ret;
}

static void no_function(const struct fe_compile_opts *opts, struct fe_dbg *dbg,
			const char *name)
{
	struct fe_error ignored = { 0 };
	struct fe_dfunc f = { 0 };
	char near[256];
	/* BTF lists only functions with code: an inlined one is in DWARF */
	const char *hint = !opts->binary && !strcmp(fe_dbg_kind(dbg), "BTF") ?
			   " (if the compiler inlined it, its copies are found in the kernel's DWARF: give --vmlinux FILE, the vmlinux of the kernel's linux-image-*-dbg package; install that package; or set DEBUGINFOD_URLS to a debuginfod server)" :
			   "";

	/* the compiler's clone has the code: not "inlined everywhere", nor
	 * an edit-distance neighbour */
	if (fe_compile_clone_of(opts, name, near, sizeof(near))) {
		if (fe_dbg_func(dbg, near, &f, &ignored) == 1)
			fe_say_error("no function '%s' in %s, but its clone '%s' is: proto that\n",
				name, fe_dbg_source(dbg), near);
		else
			fe_say_error("no function '%s' in %s, nor its clone '%s', which has the code%s\n",
				name, fe_dbg_source(dbg), near,
				opts->binary ? "" : ": give --vmlinux FILE for its DWARF");
		fe_dfunc_clear(&f);
	} else if (fe_dbg_inlined_only(dbg, name))
		fe_say_error("'%s' is inlined everywhere in %s: it has no code of its own\n",
			name, fe_dbg_source(dbg));
	else if (fe_dbg_closest_func(dbg, name, near, sizeof(near)))
		fe_say_error("no function '%s' in %s; did you mean '%s'?%s\n",
			name, fe_dbg_source(dbg), near, hint);
	else
		fe_say_error("no function '%s' in %s%s\n", name, fe_dbg_source(dbg), hint);
}

/* A module's own DWARF, err's message extended with why there is none. */
static struct fe_dbg *module_dwarf(const struct fe_compile_opts *opts, const char *module,
				   struct fe_error *err)
{
	struct fe_error why = { 0 };
	struct fe_dbg *m = fe_module_dwarf(opts, module, &why);
	size_t len = strlen(err->msg);

	if (!m)
		snprintf(err->msg + len, sizeof(err->msg) - len, "; %s", why.msg);
	return m;
}

/*
 * MODULE:func: the module's split BTF over dbg's, or its DWARF, or NULL after saying
 * why not: the module is not loaded (as for an unknown function, a usage
 * error), or it is loaded without BTF.
 */
static struct fe_dbg *open_module(const struct fe_compile_opts *opts, struct fe_dbg *dbg,
				  const char *module, const char *func, int *ret)
{
	struct fe_error err = { 0 };
	const char *elf, *kallsyms;
	struct fe_ksyms *ks;
	struct fe_dbg *m;
	int loaded = -1, k;
	bool running;

	/* --ko FILE: the module's DWARF asked for; else (a .ko as
	 * distributions ship it) its BTF over the kernel's */
	for (k = 0; k < opts->nr_kos; k++)
		if (fe_ko_names(opts->kos[k], module)) {
			struct fe_error berr = { 0 };

			m = fe_module_dwarf(opts, module, &err);
			if (!m && dbg && !strcmp(fe_dbg_kind(dbg), "BTF"))
				m = fe_dbg_open_btf_module_file(dbg, module, opts->kos[k], &berr);
			if (!m) {
				fe_say_error("%s\n", err.msg);
				*ret = FE_EXIT_USAGE;
			}
			return m;
		}
	m = fe_dbg_open_btf_module(dbg, module, &err);
	if (m)
		return m;
	/* /sys/kernel/btf/MODULE is there only while the module is */
	fe_compile_symtabs(opts, &elf, &kallsyms);
	running = kallsyms && !strcmp(kallsyms, "/proc/kallsyms") && !opts->btf && !opts->vmlinux;
	ks = kallsyms ? fe_ksyms_new() : NULL;
	if (ks && !fe_ksyms_want(ks, func, module) && !fe_ksyms_scan(ks, kallsyms))
		loaded = fe_ksyms_module_loaded(ks, module);
	fe_ksyms_free(ks);
	if (loaded == 0) {
		char why[FE_ERR_MSG_MAX / 2], file[PATH_MAX];

		/* the running kernel's file of the module has its types */
		if (running && fe_kmod_builtin(module) != 1 &&
		    fe_kmod_file(module, file, sizeof(file)) == 1) {
			m = fe_dbg_open_btf_module_file(dbg, module, file, &err);
			if (m || (m = module_dwarf(opts, module, &err)))
				return m;
			fe_say_error("%s\n", err.msg);
			*ret = FE_EXIT_FAIL;
			return NULL;
		}
		fe_kmod_not_loaded(module, kallsyms, why, sizeof(why));
		fe_say_error("%s\n", why);
		*ret = FE_EXIT_USAGE;
	} else {
		/* loaded without BTF (5.10): its DWARF */
		if (running && loaded == 1 && (m = module_dwarf(opts, module, &err)))
			return m;
		fe_say_error("%s\n", err.msg);
		*ret = FE_EXIT_FAIL;
	}
	return NULL;
}

/* A function the loaded module lacks, its neighbour spelled the way
 * proto takes it back. */
static void no_module_function(struct fe_dbg *m, const char *module, const char *func)
{
	char near[256];

	if (fe_dbg_closest_func(m, func, near, sizeof(near)))
		fe_say_error("no function '%s' in module '%s' (%s); did you mean '%s:%s'?\n",
			     func, module, fe_dbg_source(m), module, near);
	else
		fe_say_error("no function '%s' in module '%s' (%s)\n", func, module,
			     fe_dbg_source(m));
}

/* Do sites a and b of one probe give argument j the same size and sign? */
static bool same_arg_type(const struct fe_usdt *a, const struct fe_usdt *b, int j)
{
	return a->args[j].size == b->args[j].size && a->args[j].is_signed == b->args[j].is_signed;
}

/* The first site of u[site[0..nr-1]] whose argument j a probe cannot
 * read, or -1 */
static int unread_at(const struct fe_usdt *u, const int *site, int nr, int j)
{
	int i;

	for (i = 0; i < nr; i++)
		if (u[site[i]].args[j].why)
			return i;
	return -1;
}

/* Why the prototype's NULL slots are NULL: the first site that cannot
 * read each, by its event's name (as compile names them) when several */
static void print_sdt_nulls(const struct fe_usdt *u, const int *site, int nr, int nr_args)
{
	int j, k;

	for (j = 0; j < nr_args; j++) {
		const struct fe_usdt *s;

		k = unread_at(u, site, nr, j);
		if (k < 0)
			continue;
		s = &u[site[k]];
		printf("#   arg%d is NULL: ", j + 1);
		if (nr > 1 && s->event_nr)
			printf("at %s_%d, ", s->name, s->event_nr);
		else if (nr > 1)
			printf("at %s, ", s->name);
		printf("its spec is %s\n", s->args[j].why);
	}
}

/*
 * The prototype of the SDT probe whose sites (notes) are u[site[0..nr-1]]:
 * each argument by a name and its spec's type, ready to edit.  The
 * arguments every site has; a slot the sites type apart is left untyped,
 * read at each as its note says, and '...' reads those only some have.
 * A slot one site cannot read is NULL, so that what is printed compiles
 * (a comment says why).
 */
static void print_sdt_proto(const struct fe_usdt *u, const int *site, int nr)
{
	const struct fe_usdt *first = &u[site[0]];
	int i, j, nr_args = first->nr_args;
	bool more = false;

	for (i = 1; i < nr; i++) {
		more |= u[site[i]].nr_args != nr_args;
		if (u[site[i]].nr_args < nr_args)
			nr_args = u[site[i]].nr_args;
	}
	printf("%s:%s(", first->provider, first->name);
	for (j = 0; j < nr_args; j++) {
		bool same = true;

		for (i = 1; i < nr; i++)
			same &= same_arg_type(first, &u[site[i]], j);
		if (unread_at(u, site, nr, j) >= 0)
			printf("%sNULL", j ? ", " : "");
		else if (same)
			printf("%s%c%d arg%d", j ? ", " : "", first->args[j].is_signed ? 's' : 'u',
			       first->args[j].size * 8, j + 1);
		else
			printf("%sarg%d", j ? ", " : "", j + 1);
	}
	printf("%s)\n", more ? nr_args ? ", ..." : "..." : "");
	print_sdt_nulls(u, site, nr, nr_args);
	if (nr == 1) {
		/* a probe of no arguments nor semaphore: nothing to say */
		if (*first->spec || first->ref_ctr)
			printf("#   %s%s\n", first->spec, !first->ref_ctr ? "" :
			       *first->spec ? "  (guarded by a semaphore)" : "(guarded by a semaphore)");
		return;
	}
	/* as compile names them: NAME, NAME_1, ... */
	printf("# %d sites, each an event at its own address, its arguments where its note says:\n",
	       nr);
	for (i = 0; i < nr; i++) {
		const struct fe_usdt *s = &u[site[i]];
		char event[256];

		if (s->event_nr)
			snprintf(event, sizeof(event), "%s_%d", s->name, s->event_nr);
		else
			snprintf(event, sizeof(event), "%s", s->name);
		printf("#   %s at 0x%lx:%s%s%s\n", event, s->offset, *s->spec ? " " : "", s->spec,
		       s->ref_ctr ? "  (guarded by a semaphore)" : "");
	}
}

/* -x BIN PROVIDER:NAME: the SDT probe's prototype, and its sites when it
 * has several notes; 1 if found, 0 if not. */
static int sdt_proto(const struct fe_dbg_args *d, const char *want, int *ret)
{
	struct fe_usdt *u;
	struct fe_error err = { 0 };
	int *site = NULL;
	int n, i, found = 0;

	if (fe_usdt_read(d->binary, &u, &n, &err)) {
		fe_say_error("%s\n", err.msg);
		*ret = FE_EXIT_FAIL;
		return 1;
	}
	for (i = 0; i < n; i++) {
		size_t pl = strlen(u[i].provider);

		if (strncmp(want, u[i].provider, pl) || want[pl] != ':' || strcmp(want + pl + 1, u[i].name))
			continue;
		if (!site && !(site = calloc(u[i].nr_sites, sizeof(*site)))) {
			fe_say_error("out of memory\n");
			*ret = FE_EXIT_FAIL;
			found = 1;
			break;
		}
		site[found++] = i;
	}
	if (site && found == u[site[0]].nr_sites)
		print_sdt_proto(u, site, found);
	free(site);
	fe_usdt_free(u, n);
	return found > 0;
}

/* The cmd_proto helpers' result: go on with the next name, or stop
 * (out of memory, said). */
#define PROTO_NEXT	0
#define PROTO_STOP	(-1)

/* -x BIN PROVIDER:NAME...: SDT probes need no debug info.  Whether every
 * name was one (then *ret says how they went). */
static bool proto_sdt(const struct fe_cmdline *cl, const struct fe_dbg_args *d, int *ret)
{
	int i;

	if (!d->binary)
		return false;
	for (i = 0; i < cl->nr_args; i++)
		if (!strchr(cl->args[i], ':'))
			return false;
	for (i = 0; i < cl->nr_args; i++)
		if (!sdt_proto(d, cl->args[i], ret)) {
			fe_say_error("no SDT probe '%s' in %s ('fevent funcs -x %s \"*:*\"' lists "
				     "them)\n", cl->args[i], d->binary, d->binary);
			*ret = FE_EXIT_USAGE;
		}
	return true;
}

static int proto_tracepoint(const struct fe_dbg_args *d, struct fe_dbg *dbg, const char *name,
			    int *ret)
{
	int found;
	char *sig = tp_signature(dbg, name, &found);

	if (sig) {
		printf("%s\n", sig);
		print_compiled(d, dbg, NULL, sig);
		free(sig);
		return PROTO_NEXT;
	}
	if (found == 1) {
		fprintf(stderr, "fevent: out of memory\n");
		*ret = FE_EXIT_FAIL;
		return PROTO_STOP;
	}
	fe_say_error("no tracepoint '%s' in %s (no typedef btf_trace_%s)\n", name,
		     fe_dbg_source(dbg), name);
	*ret = FE_EXIT_USAGE;
	return PROTO_NEXT;
}

/* MODULE:func, printed and compiled as such */
static int proto_module(const struct fe_dbg_args *d, const struct fe_compile_opts *opts,
			struct fe_dbg *dbg, const char *arg, const char *colon, int *ret)
{
	struct fe_error err = { 0 };
	struct fe_dfunc f;
	struct fe_dbg *m;
	char module[128], *sig;
	int found;

	snprintf(module, sizeof(module), "%.*s", (int)(colon - arg), arg);
	m = open_module(opts, dbg, module, colon + 1, ret);
	if (!m)
		return PROTO_NEXT;
	found = fe_dbg_func(m, colon + 1, &f, &err);
	if (found <= 0) {
		if (found < 0)
			fe_say_error("%s\n", err.msg);
		else
			no_module_function(m, module, colon + 1);
		*ret = FE_EXIT_USAGE;
		fe_dbg_close(m);
		return PROTO_NEXT;
	}
	f.name = arg;
	sig = signature(m, &f);
	if (sig) {
		printf("%s\n", sig);
		print_compiled(d, dbg, &f, NULL);
	}
	free(sig);
	fe_dfunc_clear(&f);
	fe_dbg_close(m);
	if (!sig) {
		fprintf(stderr, "fevent: out of memory\n");
		*ret = FE_EXIT_FAIL;
		return PROTO_STOP;
	}
	return PROTO_NEXT;
}

/* A system call no function of the debug info is named after (openat:
 * its SyS_ wrapper's arguments, from its trace event format). */
static void proto_syscall(const struct fe_dbg_args *d, const struct fe_compile_opts *opts,
			  struct fe_dbg *dbg, const char *arg, int *ret)
{
	struct fe_error err = { 0 };
	struct fe_dfunc f;
	char *sig, wrapper[128], why[512] = "";

	sig = syscall_signature(d, dbg, arg, why, sizeof(why));
	if (sig) {
		printf("%s\n", sig);
		print_compiled(d, dbg, NULL, sig);
		free(sig);
		return;
	}
	snprintf(wrapper, sizeof(wrapper), "__x64_sys_%s", syscall_of(arg));
	if (fe_dbg_func(dbg, wrapper, &f, &err) == 1) {
		fe_dfunc_clear(&f);
		fe_say_error("no arguments of the system call '%s' in %s (it describes only %s(const struct pt_regs *)), and its trace event format, which names them, is not at hand: %s%s\n",
			     arg, fe_dbg_source(dbg), wrapper, why,
			     d->btf || d->vmlinux || d->kallsyms ?
			     "; or give --vmlinux FILE (its DWARF describes __do_sys_X)" : "");
		*ret = FE_EXIT_FAIL;
	} else {
		no_function(opts, dbg, wrapper);
		*ret = FE_EXIT_USAGE;
	}
}

/* A function of the kernel's (or -x BIN's) debug info, a system call, or
 * one inlined everywhere. */
static int proto_function(const struct fe_dbg_args *d, const struct fe_compile_opts *opts,
			  struct fe_dbg *dbg, const char *arg, int *ret)
{
	struct fe_error err = { 0 };
	struct fe_dfunc f;
	int found, nr_copies = 0;
	char *sig;

	found = fe_dbg_func(dbg, arg, &f, &err);
	if (found == 0 && syscall_of(arg)) {
		proto_syscall(d, opts, dbg, arg, ret);
		return PROTO_NEXT;
	}
	if (found == 0 && inlined_copies(dbg, arg, &f, &nr_copies, &err) == 1) {
		/* inlined everywhere: its copies are what there is */
		char text[256];

		/* no return type: no copy returns */
		sig = signature(dbg, &f);
		if (sig && strchr(sig, '('))
			printf("%s%s\n# inlined everywhere: %d cop%s, each an event at its entry, none with a return event\n",
			       arg, strchr(sig, '('), nr_copies, nr_copies == 1 ? "y" : "ies");
		snprintf(text, sizeof(text), "%s(...)", arg);
		print_compiled(d, dbg, NULL, text);
		free(sig);
		fe_dfunc_clear(&f);
		return PROTO_NEXT;
	}
	if (found <= 0) {
		if (found < 0)
			fe_say_error("%s\n", err.msg);
		else
			no_function(opts, dbg, arg);
		*ret = FE_EXIT_USAGE;
		return PROTO_NEXT;
	}
	sig = signature(dbg, &f);
	if (!sig) {
		fprintf(stderr, "fevent: out of memory\n");
		fe_dfunc_clear(&f);
		*ret = FE_EXIT_FAIL;
		return PROTO_STOP;
	}
	printf("%s\n", sig);
	if (inlined_copies(dbg, arg, NULL, &nr_copies, &err) == 1)
		printf("# also inlined: %d cop%s, each an event at its entry, none with a return event\n",
		       nr_copies, nr_copies == 1 ? "y" : "ies");
	print_compiled(d, dbg, &f, NULL);
	free(sig);
	fe_dfunc_clear(&f);
	return PROTO_NEXT;
}

/* One name of the command line: a tracepoint, MODULE:func or a function. */
static int proto_one(const struct fe_dbg_args *d, const struct fe_compile_opts *opts,
		     struct fe_dbg *dbg, const char *arg, int *ret)
{
	const char *colon = d->binary ? NULL : strchr(arg, ':');
	bool tp = colon && (size_t)(colon - arg) == strlen(FE_TP_PREFIX) &&
		  !strncmp(arg, FE_TP_PREFIX, strlen(FE_TP_PREFIX));
	struct fe_dfunc f;
	int found = 1;

	/* tp:NAME, or a bare NAME that no function has: a tracepoint (as
	 * compile takes them) */
	if (!tp && !colon && !d->binary) {
		found = fe_dbg_func(dbg, arg, &f, NULL);
		fe_dfunc_clear(&f);
	}
	if (tp || (!found && fe_btf_tracepoint(dbg, arg, &f, NULL) == 1))
		return proto_tracepoint(d, dbg, tp ? colon + 1 : arg, ret);
	if (colon)
		return proto_module(d, opts, dbg, arg, colon, ret);
	return proto_function(d, opts, dbg, arg, ret);
}

/* proto's options */
struct proto_opts {
	struct fe_dbg_args d;
};

static int cmd_proto(const struct fe_cmdline *cl, void *opts_)
{
	const struct fe_dbg_args *d = &((const struct proto_opts *)opts_)->d;
	struct fe_compile_opts opts;
	struct fe_error err = { 0 };
	struct fe_dbg *dbg = NULL;
	int i, ret = FE_EXIT_OK;

	fe_dbg_args_opts(d, &opts);

	if (cl->nr_args == 0) {
		fe_say_error("name a function (see 'fevent proto --help')\n");
		return FE_EXIT_USAGE;
	}
	if (proto_sdt(cl, d, &ret))
		return ret;
	if (fe_open_debug_info(&opts, &dbg, &err)) {
		fe_say_error("%s\n", err.msg);
		return FE_EXIT_USAGE;
	}
	if (!dbg) {
		const char *why = fe_compile_dbg_why(&opts);

		/* the locator's places, as every command says them */
		if (why)
			fe_say_error("%s\n", why);
		else
			fe_say_error("no debug info: the running kernel has no %s; give --btf FILE or --vmlinux FILE\n",
				FE_RUNNING_KERNEL_BTF);
		return FE_EXIT_FAIL;
	}
	for (i = 0; i < cl->nr_args; i++)
		if (proto_one(d, &opts, dbg, cl->args[i], &ret) == PROTO_STOP)
			break;
	fe_dbg_close(dbg);
	return ret;
}

/* proto's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_proto = {
	"proto", cmd_proto,
	"fevent proto [-x BIN [-p PID]] [--btf FILE|--vmlinux FILE] [--ko FILE]... [--kallsyms FILE] [-v] [-q] FUNC...",
	"Print each function's signature from debug info as a ready-to-edit\n"
	"prototype, and what 'FUNC(...)' compiles to as '#' comments under it.\n"
	"MODULE:FUNC reads the module's BTF (/sys/kernel/btf/MODULE), or its\n"
	"DWARF (--ko FILE, the -dbg package's, debuginfod's); a module that is\n"
	"not loaded is typed from its file.\n",
	"fevent proto do_sys_openat2",
	0,
	{ FE_EXEC_OPTS(struct proto_opts, d),
	  FE_OPTION(FE_OPT_BTF, STRING, struct proto_opts, d.btf, NULL),
	  FE_OPTION(FE_OPT_VMLINUX, STRING, struct proto_opts, d.vmlinux, NULL),
	  FE_OPTION(FE_OPT_KO, STRINGS, struct proto_opts, d.kos, NULL),
	  FE_OPTION(FE_OPT_KALLSYMS, TEXT_FILE, struct proto_opts, d.kallsyms, NULL), FE_COMMON_OPTS },
	sizeof(struct proto_opts),
	NULL,	/* no checks */
};
