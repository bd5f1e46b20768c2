// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "dbg_inline.h"
#include "dbg_lines.h"
#include "debuginfod.h"
#include "elf_target.h"
#include "usdt.h"
#include "event_filter.h"
#include "insn_boundary.h"
#include "fe_util.h"
#include "fetch_map_x86_64.h"
#include "fprobe.h"
#include "func_glob.h"
#include "kernel_caps.h"
#include "kmodule.h"
#include "ksyms.h"
#include "proto_render.h"
#include "tracepoint.h"

#define DEFAULT_KALLSYMS	"/proc/kallsyms"

static int add_item(struct fe_compile_set *set, const char *text, size_t len,
		    const char *file, int line)
{
	struct fe_compiled *items, *it;

	items = realloc(set->items, (set->nr + 1) * sizeof(*items));
	if (!items)
		return -1;
	set->items = items;
	it = &items[set->nr];
	memset(it, 0, sizeof(*it));
	it->text = strndup(text, len);
	if (!it->text)
		return -1;
	it->file = file;
	it->line = line;
	set->nr++;
	return 0;
}

int fe_compile_add_text(struct fe_compile_set *set, const char *text, int position)
{
	return add_item(set, text, strlen(text), NULL, position);
}

int fe_compile_add_file(struct fe_compile_set *set, const char *path)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int line = 0, ret = 0;

	if (!strcmp(path, "-"))
		f = stdin;
	else
		f = fopen(path, "re");
	if (!f)
		return -1;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		char *hash = memchr(buf, '#', n);
		size_t len = hash ? (size_t)(hash - buf) : (size_t)n;
		size_t i;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
			       buf[len - 1] == ' ' || buf[len - 1] == '\t'))
			len--;
		for (i = 0; i < len && (buf[i] == ' ' || buf[i] == '\t'); i++)
			;
		if (i == len)
			continue;
		/* keep leading blanks so columns match the file */
		if (add_item(set, buf, len, path, line)) {
			ret = -1;
			break;
		}
	}
	if (ferror(f))
		ret = -1;
	free(buf);
	if (f != stdin) {
		int saved = errno;

		fclose(f);
		errno = saved;
	}
	return ret;
}

/* The locator's view of the options: --ko FILEs, and whether the
 * modules are the running kernel's. */
static void locate_mod(const struct fe_compile_opts *opts, struct fe_locate_mod *lm)
{
	lm->kos = opts ? opts->kos : NULL;
	lm->nr_kos = opts ? opts->nr_kos : 0;
	lm->running = !opts || (!opts->btf && !opts->vmlinux && !opts->kallsyms);
}

struct fe_dbg *fe_module_dwarf(const struct fe_compile_opts *opts, const char *module,
			       struct fe_error *why)
{
	struct fe_locate_mod lm;

	locate_mod(opts, &lm);
	return fe_locate_module(&lm, module, why);
}

/* Modules' DWARF looked for so far in this run (each once: debuginfod is
 * not asked again per prototype), and why a module has none. */
static struct {
	char *name;
	struct fe_dbg *dbg;
	char *why;
} module_dwarfs[32];

static struct fe_dbg *module_dwarf(const struct fe_compile_opts *opts, const char *module,
				   const char **why)
{
	struct fe_error e = { 0 };
	size_t i, n = sizeof(module_dwarfs) / sizeof(module_dwarfs[0]);

	*why = NULL;
	for (i = 0; i < n && module_dwarfs[i].name; i++)
		if (!strcmp(module_dwarfs[i].name, module)) {
			*why = module_dwarfs[i].why;
			return module_dwarfs[i].dbg;
		}
	if (i == n) {
		*why = "more than 32 modules' DWARF at once";
		return NULL;
	}
	if (!(module_dwarfs[i].name = strdup(module))) {
		*why = "out of memory";
		return NULL;
	}
	module_dwarfs[i].dbg = fe_module_dwarf(opts, module, &e);
	if (!module_dwarfs[i].dbg)
		module_dwarfs[i].why = strdup(e.msg);
	*why = module_dwarfs[i].why ? module_dwarfs[i].why : module_dwarfs[i].dbg ? NULL :
	       "out of memory";
	return module_dwarfs[i].dbg;
}

static void module_dwarfs_close(void)
{
	size_t i;

	for (i = 0; i < sizeof(module_dwarfs) / sizeof(module_dwarfs[0]); i++) {
		fe_dbg_close(module_dwarfs[i].dbg);
		free(module_dwarfs[i].name);
		free(module_dwarfs[i].why);
		memset(&module_dwarfs[i], 0, sizeof(module_dwarfs[i]));
	}
}

/* Module BTF opened so far, closed before the base they split from. */
struct module_dbgs {
	char *names[32];
	struct fe_dbg *dbg[32];
	char *why[32];		/* why dbg[i] is NULL */
	bool dwarf[32];		/* dbg[i] is the module's DWARF (module_dwarfs') */
	int nr;
};

/*
 * The debug info for a prototype: a module's split BTF for MODULE:func.
 * Without it, it->dbg_why says why, for the resolver's errors.
 */
static struct fe_dbg *dbg_for(struct module_dbgs *mods, struct fe_dbg *dbg,
			      const struct fe_ksyms *ksyms, struct fe_compiled *it, bool running,
			      const struct fe_compile_opts *opts)
{
	const struct fe_proto *proto = it->proto;
	struct fe_warnings *w = &it->warnings;
	struct fe_error err = { 0 };
	char file[PATH_MAX];
	struct fe_dbg *m;
	const char *ko = NULL;
	int i, loaded;

	if (proto->module && !opts->binary) {
		struct fe_locate_mod lm;
		const char *dwhy;

		locate_mod(opts, &lm);
		/* --ko FILE: the module's DWARF asked for, as --vmlinux is
		 * the kernel's; a .ko as distributions ship it has none, but
		 * its BTF over the kernel's (below) */
		ko = fe_locate_ko(&lm, proto->module);
		if (ko) {
			m = module_dwarf(opts, proto->module, &dwhy);
			if (!m) {
				free(it->dbg_why);
				it->dbg_why = strdup(dwhy);
			}
			if (m || !dbg || strcmp(fe_dbg_kind(dbg), "BTF"))
				return m;
		}
	}
	if (!proto->module || !dbg)
		return dbg;
	/* not loaded: the running kernel's file of it (or --ko FILE) has
	 * its types, else the resolver says the module is not loaded */
	loaded = fe_ksyms_module_loaded(ksyms, proto->module);
	if (loaded == 0 && (!running || fe_kmod_builtin(proto->module) == 1 ||
			    (fe_kmod_file(proto->module, file, sizeof(file)) != 1 &&
			     (!ko || (size_t)snprintf(file, sizeof(file), "%s", ko) >= sizeof(file)))))
		return NULL;
	for (i = 0; i < mods->nr; i++)
		if (!strcmp(mods->names[i], proto->module)) {
			if (!mods->dbg[i] && mods->why[i]) {
				free(it->dbg_why);
				it->dbg_why = strdup(mods->why[i]);
			}
			return mods->dbg[i];
		}
	if (mods->nr == 32) {
		fe_warn(w, "more than 32 modules: '%s' is compiled without its BTF", proto->module);
		return NULL;
	}
	mods->names[mods->nr] = strdup(proto->module);
	if (!mods->names[mods->nr])
		return NULL;
	m = loaded ? fe_dbg_open_btf_module(dbg, proto->module, &err) :
		     fe_dbg_open_btf_module_file(dbg, proto->module, file, &err);
	/* no BTF (5.10's modules have none): the module's DWARF, when the
	 * kernel is this one */
	if (!m && running && loaded >= 0) {
		const char *dwhy;

		m = module_dwarf(opts, proto->module, &dwhy);
		mods->dwarf[mods->nr] = m != NULL;
		if (!m) {
			size_t len = strlen(err.msg);

			snprintf(err.msg + len, sizeof(err.msg) - len, "; %s", dwhy);
		}
	}
	/* a missing file may be a module not loaded; a bad one is not */
	if (!m) {
		fe_warn(w, "%s%s", err.msg,
			loaded < 0 && strstr(err.msg, strerror(ENOENT)) ? ": is it loaded?" : "");
		mods->why[mods->nr] = strdup(err.msg);
		free(it->dbg_why);
		it->dbg_why = strdup(err.msg);
	}
	mods->dbg[mods->nr++] = m;
	return m;
}

void fe_compile_symtabs(const struct fe_compile_opts *opts, const char **elf,
			const char **kallsyms)
{
	*elf = opts->binary ? opts->binary : opts->vmlinux;
	/* --btf or --vmlinux alone: this machine's kallsyms is not the target's */
	*kallsyms = opts->binary || ((opts->btf || opts->vmlinux) && !opts->kallsyms) ?
		    NULL : opts->kallsyms ? opts->kallsyms : DEFAULT_KALLSYMS;
}

int fe_compile_clone_of(const struct fe_compile_opts *opts, const char *func, char *clone,
			size_t size)
{
	struct fe_resolve_ctx ctx = { 0 };

	fe_compile_symtabs(opts, &ctx.symtab_elf, &ctx.kallsyms_path);
	return fe_resolve_clone_of(&ctx, func, clone, size);
}

static int compile_usdt(struct fe_compiled *it, const struct fe_compile_opts *opts);

/*
 * At an inlined copy's entry, a parameter the compiler kept no value for
 * there is left out of that copy's event, as perf probe leaves it out,
 * and each is said in one warning (DESIGN.md section 15); anywhere else
 * it is an error (emit says why).
 */
static int drop_lost(struct fe_compiled *it, const struct fe_place *places, struct fe_buf *lost,
		     struct fe_buf *why)
{
	struct fe_probe *p = it->probe;
	int i = 0;

	while (i < p->nr_fields) {
		const struct fe_field *f = &p->fields[i];
		const struct fe_place *pl = f->src == FE_SRC_PARAM && f->param >= 0 &&
					    f->param < p->nr_params ? &places[f->param] : NULL;

		if (!pl || pl->kind != FE_PLACE_NONE || pl->sse) {
			i++;
			continue;
		}
		fe_buf_printf(lost, "%s'%s'", lost->len ? ", " : "", f->label ? f->label : "?");
		fe_buf_printf(why, "%s%s: %s", why->len ? "; " : "", f->label ? f->label : "?",
			      pl->why ? pl->why : "it has no location");
		fe_probe_drop_field(p, i);
	}
	return lost->failed || why->failed ? fe_err(&it->err, 0, "out of memory") : 0;
}

static int find_sites(struct fe_compiled *it, struct fe_dbg *ldbg,
		      const struct fe_compile_opts *opts, struct fe_site **sites, int *nr);

/* A line or offset fe_compile_run did not expand: its first address. */
static int first_site(struct fe_compiled *it, struct fe_dbg *dbg,
		      const struct fe_compile_opts *opts)
{
	struct fe_site *sites;
	int nr;

	if (it->proto->at != FE_AT_OFFSET && (!dbg || strcmp(fe_dbg_kind(dbg), "DWARF")))
		return fe_err(&it->err, it->proto->at_col, "a line needs DWARF line tables");
	if (find_sites(it, dbg, opts, &sites, &nr))
		return -1;
	it->site = sites[0];
	it->site.count = nr;
	it->site_func = strdup(sites[0].func);
	it->site_inlined = sites[0].inlined ? strdup(sites[0].inlined) : NULL;
	if (!it->site_func || (sites[0].inlined && !it->site_inlined)) {
		free(sites);
		return fe_err(&it->err, 0, "out of memory");
	}
	free(sites);
	it->site.func = it->site_func;
	it->site.inlined = it->site_inlined;
	it->has_site = true;
	return 0;
}

/* The place a line's or offset's definition says it probes, as written. */
static int place_of(struct fe_compiled *it)
{
	const struct fe_proto *p = it->proto;
	int n = p->at == FE_AT_FILE_LINE ?
		asprintf(&it->def.place, "%s:%ld", p->file, p->line) :
		p->at == FE_AT_OFFSET ?
		asprintf(&it->def.place, "%s%s%s+%lu", p->module ? p->module : "",
			 p->module ? ":" : "", p->func, p->offset) :
		asprintf(&it->def.place, "%s%s%s:%ld", p->module ? p->module : "",
			 p->module ? ":" : "", p->func, p->line);

	if (n < 0) {
		it->def.place = NULL;
		return fe_err(&it->err, 0, "out of memory");
	}
	it->def.place_index = it->site.index;
	it->def.place_count = it->site.count ? it->site.count : 1;
	return 0;
}

/*
 * Where resolve reads it->proto: at a tracepoint, its site and a view of
 * the debug info that holds its arguments alone (*view, closed by the
 * caller); else at the item's site or the function's entry, with the
 * target's symbols, module and system call formats.
 */
static int resolve_at(struct fe_compiled *it, const struct fe_ksyms *ksyms, struct fe_dbg *dbg,
		      const struct fe_compile_opts *opts, struct fe_site *tp,
		      struct fe_dbg **view, struct fe_resolve_ctx *ctx)
{
	struct fe_locate_mod lm;

	memset(ctx, 0, sizeof(*ctx));
	ctx->warnings = &it->warnings;
	ctx->strict = opts->strict;
	if (fe_tp_named(it->proto, opts->binary, dbg, ksyms)) {
		if (fe_tp_site(it->proto, dbg, opts->kcaps, opts->want_return, tp, view,
			       &it->err))
			return -1;
		ctx->site = tp;
		ctx->dbg = *view;
		return 0;
	}
	ctx->ksyms = ksyms;
	ctx->dbg = dbg;
	ctx->want_return = opts->want_return;
	ctx->binary = opts->binary;
	ctx->in_glob = it->glob != 0;
	ctx->tracefs = opts->tracefs;
	ctx->other_kernel = opts->btf || opts->vmlinux || opts->kallsyms;
	ctx->dbg_why = it->dbg_why ? it->dbg_why : dbg ? NULL : fe_compile_dbg_why(opts);
	fe_compile_symtabs(opts, &ctx->symtab_elf, &ctx->kallsyms_path);
	locate_mod(opts, &lm);
	if (it->proto->module && !opts->binary)
		ctx->module_ko = fe_locate_ko(&lm, it->proto->module);
	if (it->proto->at != FE_AT_ENTRY && !it->has_site && first_site(it, dbg, opts))
		return -1;
	ctx->site = it->has_site ? &it->site : NULL;
	return 0;
}

/* Map and emit the resolved probe at its site. */
static int place_and_emit(struct fe_compiled *it, bool tracepoint,
			  const struct fe_compile_opts *opts)
{
	struct fe_emit_opts eopts = {
		.group = opts->group,
		.event = it->event ? it->event : opts->event,
		.ret_with_args = !tracepoint && fe_kcaps_can(opts->kcaps, FE_CAP_RETPROBE_ARGS),
	};
	struct fe_place *places;
	struct fe_buf lost = { 0 }, why = { 0 };
	int ret;

	places = calloc(it->probe->nr_params ? it->probe->nr_params : 1,
			sizeof(*places));
	if (!places)
		return fe_err(&it->err, 0, "out of memory");
	ret = tracepoint ? fe_tp_places(it->probe, it->proto->func, places, &it->err) :
	      fe_map_params(it->probe, places, &it->err);
	if (!ret && !tracepoint && it->has_site && it->site.copy_entry)
		ret = drop_lost(it, places, &lost, &why);
	if (!ret)
		ret = fe_emit(it->probe, places, &eopts, &it->def, &it->err);
	if (!ret && tracepoint)
		fe_tp_definition(&it->def);
	else if (!ret)
		it->def.module_waits = it->probe->module_waits;
	free(places);
	if (!ret && lost.len)
		fe_warn(&it->warnings,
			"event '%s' (the copy of '%s' inlined into %s+0x%lx) leaves out %s: the compiler kept no value for %s there (%s)",
			it->def.event, it->site.inlined, it->site.func, it->site.off, lost.s,
			strchr(lost.s, ',') ? "them" : "it", why.s);
	fe_buf_free(&lost);
	fe_buf_free(&why);
	return ret;
}

int fe_compile_one(struct fe_compiled *it, const struct fe_ksyms *ksyms,
		   struct fe_dbg *dbg, const struct fe_compile_opts *opts)
{
	struct fe_resolve_ctx ctx;
	struct fe_site tp;
	struct fe_dbg *view = NULL;
	bool tracepoint;
	int ret;

	if (resolve_at(it, ksyms, dbg, opts, &tp, &view, &ctx))
		return -1;
	tracepoint = ctx.site && ctx.site->kind == FE_SITE_TRACEPOINT;
	if (ctx.dbg)
		snprintf(it->debug_info, sizeof(it->debug_info), "%s %s", fe_dbg_kind(ctx.dbg),
			 fe_dbg_source(ctx.dbg));
	/* resolve's errors name the place themselves */
	if (fe_resolve(it->proto, &ctx, &it->probe, &it->err)) {
		if (tracepoint)
			fe_tp_resolve_error(&it->err, view, it->proto->func);
		fe_dbg_close(view);
		return -1;
	}
	ret = place_and_emit(it, tracepoint, opts);
	fe_dbg_close(view);
	if (!ret && it->has_site && it->proto->at != FE_AT_ENTRY)
		ret = place_of(it);
	/* a return event with the arguments has every field: the kernel
	 * filters the whole call there */
	if (!ret && it->proto->filter)
		ret = fe_filter_translate_values(it->proto->filter, it->proto->filter_col,
						 it->def.ret_has_args ? NULL : it->def.entry_args,
						 it->def.ret_args, it->def.entry_values,
						 it->def.ret_values, &it->def.filter,
						 &it->def.filter_on_return,
						 &it->def.filter_on_call, &it->err);
	/* an entry alone is an fprobe where the kernel has them: they cost
	 * the traced program less (docs/speed.md); what it cannot be stays */
	if (!ret && fe_kcaps_can(opts->kcaps, FE_CAP_FPROBE_EVENTS) &&
	    fe_fprobe_convert(&it->def) < 0)
		ret = fe_err(&it->err, 0, "out of memory");
	/* at an inlined copy's code: say which copy, and where */
	if (ret && !tracepoint && it->has_site && it->site.inlined && !strstr(it->err.msg, "inlined into")) {
		size_t len = strlen(it->err.msg);

		snprintf(it->err.msg + len, sizeof(it->err.msg) - len,
			 " (at the copy of '%s' inlined into %s+0x%lx)", it->site.inlined,
			 it->site.func, it->site.off);
	}
	return ret;
}

struct fe_dbg *fe_running_kernel_dwarf(struct fe_error *why)
{
	return fe_locate_kernel_dwarf(why);
}

/*
 * FUNC+OFF must start an instruction: decode the function from the
 * binary's, or the kernel's vmlinux, code.  Without the kernel's code at
 * hand the kernel judges (it refuses a split instruction with EILSEQ); a
 * module's FUNC+OFF likewise.
 */
static int check_offset(struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	const struct fe_proto *proto = it->proto;
	unsigned long before, after;
	unsigned char *code;
	char path[512];
	const char *file = opts->binary ? opts->binary : opts->vmlinux;
	uint64_t addr;
	size_t size;
	int ret;

	if (proto->module)
		return 0;
	if (!file && !opts->btf && !opts->kallsyms && fe_locate_kernel_vmlinux(path, sizeof(path)))
		file = path;
	if (!file)
		return 0;
	ret = fe_elf_func_code(file, proto->func, &addr, &code, &size, &it->err);
	if (ret <= 0) {
		/* no such function: the resolver says so, with suggestions */
		it->err.col = proto->at_col;
		return ret;
	}
	ret = fe_insn_boundary(code, size, addr, proto->offset, &before, &after, &it->err);
	free(code);
	if (ret < 0) {
		if (proto->offset >= size)
			fe_err(&it->err, proto->at_col, "offset %lu is past the end of '%s' (%zu bytes)",
			       proto->offset, proto->func, size);
		else
			it->err.col = proto->at_col;
		return -1;
	}
	if (ret == 0)
		return fe_err(&it->err, proto->at_col,
			      "offset %lu splits the instruction at %s+%lu (%lu bytes): the nearest instruction boundaries are %s+%lu and %s+%lu",
			      proto->offset, proto->func, before, after - before, proto->func, before,
			      proto->func, after);
	return 0;
}

const char *fe_compile_dbg_why(const struct fe_compile_opts *opts)
{
	const char *debugfile, *why;

	if (opts->binary)
		return fe_locate_elf(opts->binary, &debugfile, &why) == 1 ? NULL : why;
	if (opts->btf || opts->vmlinux || opts->kallsyms)
		return NULL;
	return fe_locate_kernel_why(false);
}

int fe_open_debug_info(const struct fe_compile_opts *opts, struct fe_dbg **dbg,
		       struct fe_error *err)
{
	struct fe_error ignored = { 0 };
	bool none;

	*dbg = NULL;
	if (opts->binary) {
		/* a binary without DWARF still takes typed slot reads (the
		 * locator keeps why it has none); one that cannot be read, or
		 * whose DWARF is malformed, is bad input */
		*dbg = fe_dbg_open_dwarf_if_any(opts->binary, &none, err);
		if (none)
			err->msg[0] = 0;
		return *dbg || none ? 0 : -1;
	}
	if (opts->vmlinux) {
		char id[128];

		/* add puts the probes on this kernel: another build's
		 * offsets would be wrong there */
		if (opts->installs && !fe_kernel_build_id(id, sizeof(id), &ignored) &&
		    fe_debug_file_check(opts->vmlinux, NULL, "the running kernel", id,
					FE_KERNEL_NOTES, &ignored))
			return fe_err(err, 0, "--vmlinux %s: add puts its probes on the running kernel ('fevent compile --vmlinux FILE' writes them for the kernel FILE is)",
				      ignored.msg);
		*dbg = fe_dbg_open_dwarf(opts->vmlinux, err);
		return *dbg ? 0 : -1;
	}
	if (opts->btf) {
		*dbg = fe_dbg_open_btf(opts->btf, err);
		return *dbg ? 0 : -1;
	}
	if (opts->kallsyms)
		return 0;	/* another machine: this one's debug info is not its */
	if (access(FE_RUNNING_KERNEL_BTF, R_OK) == 0)
		*dbg = fe_dbg_open_btf(FE_RUNNING_KERNEL_BTF, err);
	else
		*dbg = fe_running_kernel_dwarf(&ignored);
	return 0;
}

/* The line numbers near line that have code, for an error. */
static void near_lines(const struct fe_func_lines *fl, long line, struct fe_buf *b)
{
	int i, first = 0, shown = 0;

	/* an inlined callee declared earlier in the file has lines before
	 * the function's own: not the function's to offer */
	while (first < fl->nr_lines && fl->lines[first].line < fl->decl_line)
		first++;
	for (i = first; i < fl->nr_lines; i++)
		if (fl->lines[i].line - fl->decl_line < line)
			first = i;
	first = first > 2 ? first - 2 : 0;
	while (first < fl->nr_lines && fl->lines[first].line < fl->decl_line)
		first++;
	for (i = first; i < fl->nr_lines && shown < 6; i++, shown++)
		fe_buf_printf(b, "%s%d", shown ? ", " : "", fl->lines[i].line - fl->decl_line);
}

/*
 * The addresses of it's line or offset as sites: FUNC+OFF is one; a line
 * is every address the line table gives it (inlined copies, split
 * blocks), as perf probe puts one probe on each.
 */
static int find_sites(struct fe_compiled *it, struct fe_dbg *ldbg,
		      const struct fe_compile_opts *opts, struct fe_site **sites, int *nr)
{
	const struct fe_proto *proto = it->proto;
	struct fe_func_lines fl;
	struct fe_site *s;
	struct fe_buf near = { 0 };
	int i, ret;

	*sites = NULL;
	*nr = 0;
	if (proto->at == FE_AT_OFFSET) {
		if (check_offset(it, opts))
			return -1;
		s = fe_grow(sites, nr, sizeof(*s));
		if (!s)
			return fe_err(&it->err, 0, "out of memory");
		s->kind = FE_SITE_OFFSET;
		s->func = proto->func;
		s->off = proto->offset;
		snprintf(s->suffix, sizeof(s->suffix), "_%lu", proto->offset);
		return 0;
	}
	if (proto->at == FE_AT_FILE_LINE)
		return fe_dbg_file_line_sites(ldbg, proto->file, proto->line, sites, nr, &it->err) < 0 ?
		       (it->err.col = proto->func_col, -1) : 0;
	ret = fe_dbg_func_lines(ldbg, proto->func, &fl, &it->err);
	if (ret < 0) {
		it->err.col = proto->at_col;
		return -1;
	}
	if (ret == 0 && fe_dbg_inlined_only(ldbg, proto->func))
		return fe_err(&it->err, proto->func_col,
			      "'%s' is inlined everywhere in %s, and no copy of it has code left: its lines have no address",
			      proto->func, fe_dbg_source(ldbg));
	if (ret == 0)
		return fe_err(&it->err, proto->func_col, "no function '%s' in the DWARF of %s",
			      proto->func, fe_dbg_source(ldbg));
	for (i = 0; i < fl.nr_lines; i++) {
		const struct fe_src_line *l = &fl.lines[i];
		int k;

		if (l->line - fl.decl_line != proto->line)
			continue;
		for (k = 0; k < l->nr_offs; k++) {
			s = fe_grow(sites, nr, sizeof(*s));
			if (!s) {
				fe_func_lines_clear(&fl);
				return fe_err(&it->err, 0, "out of memory");
			}
			/* an address of an inlined copy is one of the
			 * function holding it, in the copy's scope */
			s->kind = FE_SITE_LINE;
			s->func = l->in[k] ? l->in[k] : proto->func;
			s->inlined = l->in[k] ? proto->func : NULL;
			s->off = l->offs[k];
			s->line = proto->line;
			if (k)
				snprintf(s->suffix, sizeof(s->suffix), "_L%ld_%d", proto->line, k);
			else
				snprintf(s->suffix, sizeof(s->suffix), "_L%ld", proto->line);
		}
	}
	if (!*nr) {
		near_lines(&fl, proto->line, &near);
		if (proto->line > fl.last_line - fl.decl_line)
			fe_err(&it->err, proto->at_col, "'%s' has %d lines (%s:%d-%d)", proto->func,
			       fl.last_line - fl.decl_line, fl.file, fl.decl_line, fl.last_line);
		else
			fe_err(&it->err, proto->at_col,
			       "line %ld of '%s' (%s:%ld) has no code of its own; lines near it that have: %s ('fevent lines %s' shows them all)",
			       proto->line, proto->func, fl.file, fl.decl_line + proto->line,
			       near.s ? near.s : "none", proto->func);
		fe_buf_free(&near);
	}
	fe_func_lines_clear(&fl);
	return *nr ? 0 : -1;
}

/* The DWARF for lines and locals: the debug info asked for if it is
 * DWARF, else the running kernel's where the locator finds it. */
static struct fe_dbg *line_dbg(struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			       struct fe_dbg **opened, const char *module)
{
	struct fe_error ignored = { 0 };

	/* a module's lines and locals are in its own DWARF, for the running
	 * kernel's modules (another kernel's are not at hand) */
	if (module && !opts->binary) {
		const char *why;

		return module_dwarf(opts, module, &why);
	}
	if (dbg && !strcmp(fe_dbg_kind(dbg), "DWARF"))
		return dbg;
	if (opts->binary || opts->btf || opts->kallsyms)
		return dbg;
	/* once: the locator keeps why there is none */
	if (!*opened && !fe_locate_kernel_why(true))
		*opened = fe_running_kernel_dwarf(&ignored);
	return *opened ? *opened : dbg;
}

/* Why there is no DWARF for lines and locals: the locator's places. */
static const char *no_dwarf_why(const struct fe_compile_opts *opts, const char *module,
				char *buf, size_t size)
{
	const char *why, *debugfile;

	if (module && !opts->binary) {
		if (!module_dwarf(opts, module, &why) && why)
			snprintf(buf, size, "%.900s", why);
		else
			snprintf(buf, size, "module '%s' has no DWARF", module);
	} else if (opts->binary) {
		if (fe_locate_elf(opts->binary, &debugfile, &why) == 1)
			snprintf(buf, size, "%s has no DWARF", opts->binary);	/* not reached */
		else
			snprintf(buf, size, "%.900s", why);
	} else if (!opts->vmlinux && (why = fe_locate_kernel_why(true))) {
		snprintf(buf, size, "%.900s", why);
	} else {
		snprintf(buf, size, "%sgive --vmlinux FILE (the kernel's DWARF vmlinux, e.g. from the linux-image-*-dbg package)",
			 opts->btf ? "BTF has none; " : "");
	}
	return buf;
}

/*
 * Replace each line or offset item by one item per address, in place;
 * an item whose place has no address fails with the reason.
 */
static int expand_sites(struct fe_compile_set *set, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts, struct fe_dbg **ldbg)
{
	int i, k;

	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];
		struct fe_dbg *d;
		struct fe_site *sites;
		struct fe_compiled *items;
		int nr;

		if (it->failed || !it->proto || it->proto->at == FE_AT_ENTRY)
			continue;
		d = line_dbg(dbg, opts, ldbg, it->proto->module);
		if (it->proto->at != FE_AT_OFFSET && (!d || strcmp(fe_dbg_kind(d), "DWARF"))) {
			char why[FE_ERR_MSG_MAX];

			fe_err(&it->err, it->proto->at_col, "a line needs DWARF line tables: %s",
			       no_dwarf_why(opts, it->proto->module, why, sizeof(why)));
			it->failed = true;
			continue;
		}
		if (find_sites(it, d, opts, &sites, &nr)) {
			it->failed = true;
			continue;
		}
		items = realloc(set->items, (set->nr + nr - 1) * sizeof(*items));
		if (!items) {
			free(sites);
			return -1;
		}
		set->items = items;
		it = &set->items[i];
		memmove(&items[i + nr], &items[i + 1], (set->nr - i - 1) * sizeof(*items));
		set->nr += nr - 1;
		for (k = 0; k < nr; k++) {
			struct fe_compiled *c = &items[i + k];

			if (k) {
				memset(c, 0, sizeof(*c));
				c->file = it->file;
				c->line = it->line;
				c->text = strdup(it->text);
				c->proto = fe_proto_dup(it->proto);
				if (!c->text || !c->proto) {
					free(sites);
					return -1;
				}
			}
			c->has_site = true;
			c->site = sites[k];
			c->site.index = k;
			c->site.count = nr;
			c->site_func = strdup(sites[k].func);
			c->site_inlined = sites[k].inlined ? strdup(sites[k].inlined) : NULL;
			if (!c->site_func || (sites[k].inlined && !c->site_inlined)) {
				free(sites);
				return -1;
			}
			c->site.func = c->site_func;
			c->site.inlined = c->site_inlined;
			if (k && opts->event && asprintf(&c->event, "%s_%d", opts->event, k) < 0) {
				c->event = NULL;
				free(sites);
				return -1;
			}
		}
		free(sites);
		i += nr - 1;
	}
	return 0;
}

/* "main+0x12, main+0x40" of the copies, the first 8 and how many more */
static void copies_text(const struct fe_site *s, int nr, struct fe_buf *b)
{
	int i;

	for (i = 0; i < nr && i < 8; i++)
		fe_buf_printf(b, "%s%s+0x%lx", i ? ", " : "", s[i].func, s[i].off);
	if (nr > 8)
		fe_buf_printf(b, " and %d more", nr - 8);
}

static struct fe_compiled *widen(struct fe_compile_set *set, int i, int n);

/*
 * The items of FUNC(...) for a function with inlined copies (DESIGN.md
 * section 15): the out-of-line copy's item, if there is one, then one per
 * inlined copy at its entry, named FUNC, FUNC_1, ...  A copy is not
 * called, so it does not return: a return event stays the out-of-line
 * copy's, a warning names the copies without one, and with no out-of-line
 * copy a return type is an error.  Returns how many items the one became.
 */
static int one_copies(struct fe_compile_set *set, int i, struct fe_dbg *d,
		      const struct fe_compile_opts *opts)
{
	struct fe_compiled *it = &set->items[i];
	const struct fe_proto *pr = it->proto;
	struct fe_site *all, *ok;
	struct fe_buf where = { 0 }, skipped = { 0 };
	char clone[256];
	int nr_all, nr_ok = 0, k, n, own, ret = 1;
	bool want_ret = opts->want_return || pr->rtype;

	if (fe_dbg_inline_copies(d, pr->func, &all, &nr_all, &it->err)) {
		it->failed = true;
		return 1;
	}
	if (!nr_all)
		return 1;
	ok = calloc(nr_all, sizeof(*ok));
	if (!ok)
		goto oom;
	for (k = 0; k < nr_all; k++) {
		if (all[k].skip)
			fe_buf_printf(&skipped, "%s%s+0x%lx (%s)", skipped.len ? ", " : "",
				      *all[k].func ? all[k].func : "?", all[k].off, all[k].skip);
		else
			ok[nr_ok++] = all[k];
	}
	own = fe_dbg_func_count(d, pr->func) > 0;
	copies_text(ok, nr_ok, &where);
	if (where.failed || skipped.failed)
		goto oom;
	if (!own && (!nr_ok || want_ret)) {
		fe_err(&it->err, want_ret && pr->rtype ? pr->rtype->col : pr->func_col,
		       "'%s' is inlined everywhere in %s (%d cop%s%s%s%s%s)%s%s", pr->func,
		       fe_dbg_source(d), nr_all, nr_all == 1 ? "y" : "ies",
		       nr_ok ? ": " : "", nr_ok ? where.s : "", skipped.len ? "; none at " : "",
		       skipped.len ? skipped.s : "",
		       !nr_ok ? ": no probe can go at any of its copies" :
		       ": an inlined copy is not called, so nothing returns from it and no return event can go there; ",
		       !nr_ok ? "" : pr->rtype ? "drop the return type to probe the copies' entries" :
		       "leave out -r to probe the copies' entries");
		it->failed = true;
		goto out;
	}
	if (skipped.len)
		fe_warn(&it->warnings, "no probe goes at %s: the inlined cop%s of '%s' there",
			skipped.s, nr_all - nr_ok == 1 ? "y" : "ies", pr->func);
	if (own && want_ret && nr_ok)
		fe_warn(&it->warnings,
			"only the out-of-line copy of '%s' returns: its %d inlined cop%s (%s) %s not called, so %s no return event",
			pr->func, nr_ok, nr_ok == 1 ? "y" : "ies", where.s, nr_ok == 1 ? "is" : "are",
			nr_ok == 1 ? "it has" : "they have");
	if (!own && fe_compile_clone_of(opts, pr->func, clone, sizeof(clone)))
		fe_warn(&it->warnings,
			"'%s' has its out-of-line code as the clone '%s', which is not probed here: probe it by that name",
			pr->func, clone);
	n = own + nr_ok;
	if (n == 1 && own)
		goto out;
	it = widen(set, i, n);
	if (!it)
		goto oom;
	for (k = 0; k < n; k++) {
		struct fe_compiled *c = &it[k];
		const struct fe_site *s;

		c->copies = i + 1;
		if (!k)
			c->copies_said = c->warnings.nr;
		if (k) {
			c->file = it->file;
			c->line = it->line;
			c->text = strdup(it->text);
			c->proto = fe_proto_dup(it->proto);
			if (!c->text || !c->proto)
				goto oom;
			if (opts->event && asprintf(&c->event, "%s_%d", opts->event, k) < 0) {
				c->event = NULL;
				goto oom;
			}
		}
		if (own && !k)
			continue;
		s = &ok[k - own];
		c->has_site = true;
		c->site = *s;
		c->site_func = strdup(s->func);
		c->site_inlined = strdup(s->inlined);
		if (!c->site_func || !c->site_inlined)
			goto oom;
		c->site.func = c->site_func;
		c->site.inlined = c->site_inlined;
		if (k)
			snprintf(c->site.suffix, sizeof(c->site.suffix), "_%d", k);
	}
	ret = n;
out:
	free(all);
	free(ok);
	fe_buf_free(&where);
	fe_buf_free(&skipped);
	return ret;
oom:
	free(all);
	free(ok);
	fe_buf_free(&where);
	fe_buf_free(&skipped);
	return -1;
}

/* Each FUNC(...) item of a function with inlined copies becomes one item
 * per copy; -1 only when out of memory.  Globs probe the functions they
 * name out of line only (a copy search per name costs a walk). */
static int expand_copies(struct fe_compile_set *set, struct fe_dbg *dbg,
			 const struct fe_compile_opts *opts, struct fe_dbg **ldbg)
{
	int i, n;

	for (i = 0; i < set->nr; i += n) {
		const struct fe_compiled *it = &set->items[i];
		struct fe_dbg *d;

		n = 1;
		if (it->failed || !it->proto || it->proto->at != FE_AT_ENTRY || it->glob ||
		    (it->proto->module && opts->binary) || it->proto->tracepoint || it->has_site)
			continue;
		d = line_dbg(dbg, opts, ldbg, it->proto->module);
		if (!d || strcmp(fe_dbg_kind(d), "DWARF"))
			continue;
		n = one_copies(set, i, d, opts);
		if (n < 0)
			return -1;
	}
	return 0;
}

/* Make room for n items in place of item i (n >= 1); the new ones after
 * it are zeroed.  NULL when out of memory. */
static struct fe_compiled *widen(struct fe_compile_set *set, int i, int n)
{
	struct fe_compiled *items = realloc(set->items, (set->nr + n - 1) * sizeof(*items));

	if (!items)
		return NULL;
	set->items = items;
	memmove(&items[i + n], &items[i + 1], (set->nr - i - 1) * sizeof(*items));
	memset(&items[i + 1], 0, (n - 1) * sizeof(*items));
	set->nr += n - 1;
	return &items[i];
}

/* The SDT probes of the binary a 'PROVIDER:NAME' glob names. */
static int usdt_glob(const char *binary, const char *glob, struct fe_func_names *out,
		     struct fe_error *err)
{
	struct fe_usdt *u;
	int n, i;

	out->nr = 0;
	if (fe_usdt_read(binary, &u, &n, err))
		return -1;
	out->v = calloc(n + 1, sizeof(*out->v));
	for (i = 0; out->v && i < n; i++) {
		char *full;

		if (asprintf(&full, "%s:%s", u[i].provider, u[i].name) < 0)
			break;
		if (fnmatch(glob, full, 0))
			free(full);
		else
			out->v[out->nr++] = full;
	}
	fe_usdt_free(u, n);
	if (!out->v || i < n) {
		fe_func_names_free(out);
		return fe_err(err, 0, "out of memory");
	}
	return 0;
}

/* Name the function of an item parsed from a glob's text: "func", or
 * "mod:func" (a module's, or an SDT probe's provider). */
static int name_function(struct fe_proto *proto, const char *name)
{
	const char *colon = strchr(name, ':');
	char *func = strdup(colon ? colon + 1 : name);
	char *module = colon ? strndup(name, colon - name) : NULL;

	if (!func || (colon && !module)) {
		free(func);
		free(module);
		return -1;
	}
	free(proto->func);
	free(proto->module);
	proto->func = func;
	proto->module = module;
	proto->is_glob = false;
	return 0;
}

/*
 * Replace each glob item by one item per function it names (DESIGN.md
 * section 12): the kernel's by funcs' rule, a binary's functions, or with
 * -x an SDT provider's probes.  -1 only when out of memory.
 */
static int expand_globs(struct fe_compile_set *set, struct fe_dbg *dbg,
			const struct fe_compile_opts *opts)
{
	int i, k, globs = 0;
	int max = opts->max > 0 ? opts->max : FE_GLOB_MAX_DEFAULT;

	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];
		struct fe_func_names names = { 0 };
		const char *elf, *kallsyms;
		char *glob;
		int ret;

		if (it->failed || !it->proto || !it->proto->is_glob)
			continue;
		if (it->proto->module) {
			if (asprintf(&glob, "%s:%s", it->proto->module, it->proto->func) < 0)
				return -1;
		} else if (!(glob = strdup(it->proto->func))) {
			return -1;
		}
		fe_compile_symtabs(opts, &elf, &kallsyms);
		if (opts->binary && it->proto->module)
			ret = usdt_glob(opts->binary, glob, &names, &it->err);
		else if (it->proto->tracepoint)
			ret = fe_tp_glob(dbg, glob, &names, &it->err);
		else
			ret = fe_func_glob(dbg, kallsyms, kallsyms && !opts->kallsyms, glob, &names,
					   &it->err);
		if (ret) {
			it->failed = true;
		} else if (!names.nr) {
			fe_err(&it->err, it->proto->func_col, "no %s matches '%s'%s",
			       opts->binary && it->proto->module ? "SDT probe" :
			       it->proto->tracepoint ? "tracepoint" : "function", glob,
			       opts->binary && it->proto->module ? "" :
			       it->proto->tracepoint ? " ('fevent funcs \"tp:GLOB\"' lists them)" :
			       opts->binary && !dbg ? ": the binary has no DWARF to list them from" :
			       " ('fevent funcs GLOB' lists what can be probed)");
			it->failed = true;
		} else if (names.nr > max) {
			fe_err(&it->err, it->proto->func_col,
			       "'%s' matches %d functions: more than %d needs --max N", glob,
			       names.nr, max);
			it->failed = true;
		} else if (opts->event && names.nr > 1) {
			fe_err(&it->err, it->proto->func_col,
			       "-n names one event, but '%s' matches %d functions", glob, names.nr);
			it->failed = true;
		}
		if (it->failed) {
			free(glob);
			fe_func_names_free(&names);
			continue;
		}
		it = widen(set, i, names.nr);
		if (!it) {
			free(glob);
			fe_func_names_free(&names);
			return -1;
		}
		globs++;
		for (k = 0; k < names.nr; k++) {
			struct fe_compiled *c = &it[k];

			if (k) {
				c->file = it->file;
				c->line = it->line;
				c->text = strdup(it->text);
				c->proto = fe_proto_dup(it->proto);
			}
			c->glob = globs;
			c->glob_name = strdup(glob);
			if (!c->glob_name || !c->text || !c->proto ||
			    name_function(c->proto, names.v[k])) {
				/* the rest stay zeroed: fe_compiled_clear takes them */
				free(glob);
				fe_func_names_free(&names);
				return -1;
			}
		}
		free(glob);
		fe_func_names_free(&names);
		i += k - 1;
	}
	return 0;
}

/*
 * The warnings of a glob's functions, on its first that compiled (good):
 * one line for them all, or each named by its function (verbose).
 */
static void gather_warnings(struct fe_compile_set *set, int from, int end, int good,
			    bool verbose)
{
	struct fe_warnings all = { 0 };
	int k, w, funcs = 0, nr = 0;

	for (k = from; k < end; k++) {
		struct fe_compiled *c = &set->items[k];

		if (c->failed)
			continue;
		funcs += c->warnings.nr > 0;
		for (w = 0; w < c->warnings.nr; w++, nr++)
			if (verbose)
				fe_warn(&all, "%s%s%s: %s", c->proto->module ? c->proto->module : "",
					c->proto->module ? ":" : "", c->proto->func,
					c->warnings.msgs[w]);
		fe_warnings_free(&c->warnings);
	}
	if (nr && !verbose)
		fe_warn(&all, "%d warning%s on %d of the functions '%s' names (-v shows them)", nr,
			nr == 1 ? "" : "s", funcs, set->items[good].glob_name);
	set->items[good].warnings = all;
}

/*
 * The same warning at many inlined copies of one function ('...' skips a
 * parameter the compiler dropped at most of them): one line naming the
 * copies' events, on the group's first item that compiled.
 */
static int gather_copy_warnings(struct fe_compile_set *set, int from, int end, bool verbose)
{
	struct fe_warnings all = { 0 };
	struct fe_buf evs = { 0 };
	int k, w, nr_copies = 0, first = -1;
	bool failed = false;

	for (k = from; k < end; k++) {
		nr_copies += set->items[k].has_site;
		if (first < 0 && !set->items[k].failed)
			first = k;
	}
	if (first < 0)
		return 0;
	for (k = from; k < end; k++) {
		struct fe_compiled *c = &set->items[k];

		for (w = k == from ? c->copies_said : 0;
		     !c->failed && c->has_site && w < c->warnings.nr; w++) {
			const char *msg = c->warnings.msgs[w];
			int j, v, n = 0, shown = 0;

			/* already about one copy, which it names */
			if (!msg || strstr(msg, "inlined into"))
				continue;
			failed |= evs.failed;
			fe_buf_free(&evs);
			/* this copy and every later one with the same text */
			for (j = k; j < end; j++) {
				struct fe_compiled *o = &set->items[j];

				for (v = j == from ? o->copies_said : 0;
				     !o->failed && o->has_site && v < o->warnings.nr; v++) {
					if (!o->warnings.msgs[v] || strcmp(o->warnings.msgs[v], msg))
						continue;
					if (verbose || shown < 8) {
						fe_buf_printf(&evs, "%s%s", shown ? ", " : "", o->def.event);
						shown++;
					}
					n++;
					if (o != c || v != w) {
						free(o->warnings.msgs[v]);
						o->warnings.msgs[v] = NULL;
					}
					break;
				}
			}
			if (n == 1)
				failed |= fe_warn(&all, "%s (event '%s', the copy of '%s' inlined into %s+0x%lx)",
						  msg, c->def.event, c->site.inlined, c->site.func,
						  c->site.off) != 0;
			else
				failed |= fe_warn(&all, "%s, at %d of the %d inlined copies (events %s%s)",
						  msg, n, nr_copies, evs.s ? evs.s : "",
						  n > shown ? "; -v names them all" : "") != 0;
			free(c->warnings.msgs[w]);
			c->warnings.msgs[w] = NULL;
		}
	}
	failed |= evs.failed;
	fe_buf_free(&evs);
	/* the first item's own warnings (the out-of-line copy's), then these */
	for (k = from; k < end; k++) {
		struct fe_compiled *c = &set->items[k];
		struct fe_warnings keep = { 0 };

		for (w = 0; w < c->warnings.nr; w++)
			if (c->warnings.msgs[w])
				failed |= fe_warn(&keep, "%s", c->warnings.msgs[w]) != 0;
		fe_warnings_free(&c->warnings);
		c->warnings = keep;
	}
	for (w = 0; w < all.nr; w++)
		failed |= fe_warn(&set->items[first].warnings, "%s", all.msgs[w]) != 0;
	fe_warnings_free(&all);
	return failed ? -1 : 0;
}

static int settle_copies(struct fe_compile_set *set, bool verbose)
{
	int i = 0, end;

	while (i < set->nr) {
		end = i + 1;
		while (set->items[i].copies && end < set->nr &&
		       set->items[end].copies == set->items[i].copies)
			end++;
		if (set->items[i].copies && gather_copy_warnings(set, i, end, verbose))
			return -1;
		i = end;
	}
	return 0;
}

/*
 * After compiling: a glob's functions that failed leave the set, said
 * once on its first function that compiled; when none did, the first
 * failure stays as the glob's error.  Returns how many failures remain.
 */
static int settle_globs(struct fe_compile_set *set, const struct fe_compile_opts *opts)
{
	int i = 0, out = 0, failed = 0, k;
	/* where each item went; and the globs an earlier prototype covers,
	 * said on the item that defines the first of their functions */
	int *moved = malloc((set->nr ? set->nr : 1) * sizeof(*moved));
	struct { int to; char *msg; } *covered = malloc((set->nr ? set->nr : 1) *
							 sizeof(*covered));
	int nr_covered = 0;

	if (!moved || !covered) {
		free(moved);
		free(covered);
		return -1;
	}
	while (i < set->nr) {
		int end = i, good = -1, nr_failed = 0, nr_named = 0, named = -1;

		while (end < set->nr && set->items[i].glob &&
		       set->items[end].glob == set->items[i].glob)
			end++;
		if (end == i) {
			failed += set->items[i].failed;
			moved[i] = out;
			set->items[out++] = set->items[i++];
			continue;
		}
		for (k = i; k < end; k++) {
			if (set->items[k].failed)
				nr_failed++;
			else if (set->items[k].named_by && nr_named++ == 0)
				named = k;
			else if (!set->items[k].named_by && good < 0)
				good = k;
		}
		if (good < 0 && nr_named) {
			/* earlier prototypes define all that it compiles
			 * (out of memory: nothing said) */
			if (asprintf(&covered[nr_covered].msg, "every function '%s' names that "
				     "compiles is named by an earlier prototype: it adds none",
				     set->items[named].glob_name) >= 0)
				covered[nr_covered++].to = set->items[named].named_by - 1;
			for (k = i; k < end; k++)
				fe_compiled_clear(&set->items[k]);
			i = end;
			continue;
		}
		if (good < 0) {
			struct fe_compiled *first = &set->items[i];
			char why[FE_ERR_MSG_MAX];

			snprintf(why, sizeof(why), "%s", first->err.msg);
			if (end - i > 1)
				fe_err(&first->err, first->err.col,
				       "none of the %d functions '%s' names compiles; the first, %s%s%s: %s",
				       end - i, first->glob_name,
				       first->proto->module ? first->proto->module : "",
				       first->proto->module ? ":" : "", first->proto->func, why);
			failed++;
			set->items[out++] = *first;
			for (k = i + 1; k < end; k++)
				fe_compiled_clear(&set->items[k]);
			i = end;
			continue;
		}
		if (end - i > 1)
			gather_warnings(set, i, end, good, opts->verbose);
		if (nr_failed) {
			struct fe_compiled *g = &set->items[good];

			fe_warn(&g->warnings,
				"%d of the %d functions '%s' names %s skipped: the prototype does not compile for %s%s",
				nr_failed, end - i, g->glob_name, nr_failed == 1 ? "is" : "are",
				nr_failed == 1 ? "it" : "them", opts->verbose ? "" : " (-v says why)");
			for (k = i; opts->verbose && k < end; k++)
				if (set->items[k].failed)
					fe_warn(&g->warnings, "skipped %s%s%s: %s",
						set->items[k].proto->module ?
						set->items[k].proto->module : "",
						set->items[k].proto->module ? ":" : "",
						set->items[k].proto->func, set->items[k].err.msg);
		}
		if (nr_named)
			fe_warn(&set->items[good].warnings,
				"%d of the %d functions '%s' names %s left to the earlier prototype "
				"that names %s too", nr_named, end - i, set->items[good].glob_name,
				nr_named == 1 ? "is" : "are", nr_named == 1 ? "it" : "them");
		for (k = i; k < end; k++) {
			if (set->items[k].failed || set->items[k].named_by) {
				fe_compiled_clear(&set->items[k]);
			} else {
				moved[k] = out;
				set->items[out++] = set->items[k];
			}
		}
		i = end;
	}
	for (k = 0; k < nr_covered; k++) {
		/* the defining item is earlier, so it has moved already */
		fe_warn(&set->items[moved[covered[k].to]].warnings, "%s", covered[k].msg);
		free(covered[k].msg);
	}
	free(covered);
	free(moved);
	set->nr = out;
	return failed;
}

static int by_event(const void *a, const void *b, void *arg)
{
	const struct fe_compiled *items = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(items[ia].def.event, items[ib].def.event);

	return c ? c : ia - ib;
}

/* Two items that define one event: the later says so (sorted, not
 * pairwise: a glob makes thousands).  A glob's function an earlier item
 * defines already is left to that item: globs that overlap ('vfs_*' and
 * '*_read') name each function once. */
static int warn_same_events(struct fe_compile_set *set)
{
	int *order = malloc((set->nr ? set->nr : 1) * sizeof(*order));
	int i, n = 0, first = 0;

	if (!order)
		return -1;
	for (i = 0; i < set->nr; i++)
		if (!set->items[i].failed && set->items[i].def.event)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_event, set->items);
	for (i = 1; i < n; i++) {
		struct fe_compiled *it = &set->items[order[i]];

		if (strcmp(set->items[order[first]].def.event, it->def.event)) {
			first = i;
			continue;
		}
		if (it->glob && it->glob != set->items[order[first]].glob)
			it->named_by = order[first] + 1;
		else
			fe_warn(&it->warnings,
				"event '%s' is also defined by an earlier prototype; only one can be added",
				it->def.event);
	}
	free(order);
	return 0;
}

int fe_compile_run(struct fe_compile_set *set, const struct fe_compile_opts *opts,
		   struct fe_error *err)
{
	struct fe_dbg *ldbg = NULL;
	struct fe_ksyms *ksyms;
	struct module_dbgs mods = { .nr = 0 };
	struct fe_dbg *dbg;
	bool dbg_is_running;
	int i, ret;

	dbg = opts->open_dbg;
	if (!dbg && fe_open_debug_info(opts, &dbg, err))
		return -1;
	dbg_is_running = dbg && !opts->btf && !opts->vmlinux && !opts->binary;
	ksyms = fe_ksyms_new();
	if (!ksyms) {
		if (dbg != opts->open_dbg)
			fe_dbg_close(dbg);
		fe_err(err, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		it->proto = fe_proto_parse(it->text, &it->err);
		if (!it->proto)
			it->failed = true;
		else
			fe_tp_take_prefix(it->proto, opts->binary);
	}
	if (expand_globs(set, dbg, opts))
		goto oom;
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (!it->failed &&
		    fe_resolve_want_symbols(it->proto, ksyms, dbg_is_running ? dbg : NULL)) {
			fe_err(&it->err, 0, "out of memory");
			it->failed = true;
		}
	}
	/*
	 * Another kernel's BTF without its kallsyms: the running kernel's
	 * symbols say nothing about it.  An unreadable kallsyms leaves every
	 * answer "unknown", and so no warnings.
	 */
	if (!opts->binary && ((!opts->btf && !opts->vmlinux) || opts->kallsyms))
		fe_ksyms_scan(ksyms, opts->kallsyms ? opts->kallsyms : DEFAULT_KALLSYMS);
	if (expand_sites(set, dbg, opts, &ldbg) || expand_copies(set, dbg, opts, &ldbg))
		goto oom;

	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (!it->failed && opts->binary && it->proto->module) {
			/* PROVIDER:NAME of a binary: an SDT probe */
			if (compile_usdt(it, opts))
				it->failed = true;
			continue;
		}
		struct fe_dbg *d = NULL;

		if (it->failed)
			continue;
		if (it->has_site)
			d = line_dbg(dbg, opts, &ldbg, it->proto->module);
		/* a module's FUNC+OFF without its DWARF: its BTF types the
		 * slots and says there are no locals */
		if (!it->has_site || (!d && it->proto->module))
			d = dbg_for(&mods, dbg, ksyms, it, dbg_is_running && !opts->kallsyms, opts);
		if (fe_compile_one(it, ksyms, d, opts))
			it->failed = true;
	}
	if (warn_same_events(set) || settle_copies(set, opts->verbose))
		goto oom;
	ret = settle_globs(set, opts);
	if (ret < 0)
		goto oom;
	goto out;
oom:
	fe_err(err, 0, "out of memory");
	ret = -1;
out:
	fe_ksyms_free(ksyms);
	for (i = 0; i < mods.nr; i++) {
		if (!mods.dwarf[i])
			fe_dbg_close(mods.dbg[i]);
		free(mods.names[i]);
		free(mods.why[i]);
	}
	fe_dbg_close(ldbg);
	if (dbg != opts->open_dbg)
		fe_dbg_close(dbg);
	module_dwarfs_close();
	return ret;
}

/* "s32", "u64": an SDT argument's type from its spec */
static void spec_type(const struct fe_usdt_arg *a, char *buf, size_t size)
{
	snprintf(buf, size, "%c%d", a->is_signed ? 's' : 'u', a->size * 8);
}

/*
 * PROVIDER:NAME(ARGS) with -x BIN: the SDT probe's note gives the place
 * and the arguments.  A slot is 'TYPE NAME' (string: the text the
 * argument points to), 'NAME' (typed by the spec's size and sign) or
 * NULL; '...' is every argument left, arg1..argN.
 */
static int compile_usdt(struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	const struct fe_proto *pr = it->proto;
	struct fe_usdt *all = NULL, *u = NULL;
	struct fe_buf args = { 0 }, names = { 0 };
	const char **cands = NULL;
	int n = 0, i, slot = 0, ret = -1;
	char loc[80];

	if (fe_usdt_read(opts->binary, &all, &n, &it->err))
		return -1;
	for (i = 0; i < n && !u; i++)
		if (!strcmp(all[i].provider, pr->module) && !strcmp(all[i].name, pr->func))
			u = &all[i];
	if (!u) {
		const char *near = NULL;

		cands = calloc(n > 0 ? (size_t)n : 1, sizeof(*cands));
		for (i = 0; cands && i < n; i++) {
			char *full = NULL;

			if (asprintf(&full, "%s:%s", all[i].provider, all[i].name) < 0)
				full = NULL;
			cands[i] = full;
		}
		fe_buf_printf(&names, "%s:%s", pr->module, pr->func);
		if (cands && names.s)
			near = fe_closest(names.s, cands, n);
		if (!n)
			fe_err(&it->err, pr->func_col - (int)strlen(pr->module) - 1,
			       "%s has no SDT probes (no .note.stapsdt); PROVIDER:NAME names one",
			       opts->binary);
		else
			fe_err(&it->err, pr->func_col - (int)strlen(pr->module) - 1,
			       "no SDT probe '%s:%s' in %s%s%s%s", pr->module, pr->func,
			       opts->binary, near ? "; did you mean '" : "", near ? near : "",
			       near ? "'?" : "");
		goto out;
	}
	if (pr->at != FE_AT_ENTRY) {
		fe_err(&it->err, pr->at_col, "an SDT probe is one place: no line or offset");
		goto out;
	}
	if (pr->rtype) {
		fe_err(&it->err, pr->rtype->col, "an SDT probe has no return value");
		goto out;
	}
	for (i = 0; i < pr->nr_args; i++) {
		const struct fe_arg *arg = &pr->args[i];
		const struct fe_alt *alt = arg->nr_alts ? &arg->alts[0] : NULL;
		const struct fe_usdt_arg *a;
		char type[32];

		if (arg->is_null) {
			slot++;
			continue;
		}
		if (arg->nr_alts != 1 ||
		    !(alt->kind == FE_ALT_SLOT || (alt->kind == FE_ALT_PATH && !alt->type &&
						   !alt->label && !alt->nr_steps)) ||
		    (alt->kind == FE_ALT_SLOT && (alt->nr_steps || alt->type->array))) {
			fe_err(&it->err, arg->col, "an SDT argument is read as 'TYPE NAME', 'NAME' or "
			       "'...': it has no C type to follow");
			goto out;
		}
		if (slot >= u->nr_args) {
			fe_err(&it->err, arg->col, "%s:%s has %d argument%s (%s)", u->provider,
			       u->name, u->nr_args, u->nr_args == 1 ? "" : "s", u->spec);
			goto out;
		}
		a = &u->args[slot++];
		if (a->why) {
			fe_err(&it->err, arg->col, "argument %d of %s:%s cannot be read: its spec is %s",
			       slot, u->provider, u->name, a->why);
			goto out;
		}
		snprintf(loc, sizeof(loc), "%s", a->fetch);
		if (alt->kind == FE_ALT_SLOT) {
			struct fe_tinfo ti;

			if (fe_tspec_info(alt->type, &ti, &it->err))
				goto out;
			if (ti.is_string)
				snprintf(loc, sizeof(loc), "+0(%s)", a->fetch);
			if (fe_ftype_name(&ti.ftype, false, true, type, sizeof(type)) < 0) {
				fe_err(&it->err, alt->type->col, "'%s' cannot be read as one value",
				       alt->type->text);
				goto out;
			}
		} else {
			spec_type(a, type, sizeof(type));
		}
		fe_buf_printf(&args, "%s%s=%s:%s", args.len ? " " : "", alt->name, loc, type);
	}
	if (pr->ellipsis) {
		for (; slot < u->nr_args; slot++) {
			const struct fe_usdt_arg *a = &u->args[slot];
			char type[32];

			if (a->why) {
				fe_warn(&it->warnings, "'...' skips arg%d: its spec is %s", slot + 1,
					a->why);
				continue;
			}
			spec_type(a, type, sizeof(type));
			fe_buf_printf(&args, "%sarg%d=%s:%s", args.len ? " " : "", slot + 1, a->fetch,
				      type);
		}
	}
	fe_buf_add(&args, "", 0);
	it->def.group = strdup(opts->group ? opts->group : FE_DEFAULT_GROUP);
	it->def.event = strdup(it->event ? it->event : opts->event ? opts->event : u->name);
	it->def.target = strdup(opts->binary);
	it->def.entry_args = fe_buf_take(&args);
	it->def.uprobe = true;
	it->def.offset = u->offset;
	it->def.ref_ctr = u->ref_ctr;
	if (!it->def.group || !it->def.event || !it->def.target || !it->def.entry_args) {
		fe_err(&it->err, 0, "out of memory");
		goto out;
	}
	if (u->ref_ctr)
		ret = asprintf(&it->def.entry, "p:%s/%s %s:0x%lx(0x%lx)%s%s", it->def.group,
			       it->def.event, opts->binary, u->offset, u->ref_ctr,
			       *it->def.entry_args ? " " : "", it->def.entry_args);
	else
		ret = asprintf(&it->def.entry, "p:%s/%s %s:0x%lx%s%s", it->def.group,
			       it->def.event, opts->binary, u->offset,
			       *it->def.entry_args ? " " : "", it->def.entry_args);
	if (ret < 0) {
		it->def.entry = NULL;
		fe_err(&it->err, 0, "out of memory");
		goto out;
	}
	/* what the commands ask of a compiled item's probe */
	it->probe = calloc(1, sizeof(*it->probe));
	if (!it->probe || !(it->probe->func = strdup(pr->func)) ||
	    !(it->probe->target = strdup(it->def.entry + strlen(it->def.group) +
					 strlen(it->def.event) + 4)) ||
	    !(it->probe->uprobe_file = strdup(opts->binary))) {
		fe_err(&it->err, 0, "out of memory");
		ret = -1;
		goto out;
	}
	*strchrnul(it->probe->target, ' ') = 0;
	it->probe->uprobe = true;
	it->probe->uprobe_offset = u->offset;
	ret = 0;
	if (pr->filter)
		ret = fe_filter_translate(pr->filter, pr->filter_col, it->def.entry_args, NULL,
					  &it->def.filter, &it->def.filter_on_return,
					  &it->def.filter_on_call, &it->err);
out:
	for (i = 0; cands && i < n; i++)
		free((char *)cands[i]);
	free(cands);
	fe_buf_free(&args);
	fe_buf_free(&names);
	fe_usdt_free(all, n);
	return ret;
}

/* Does text compile, under dbg and opts, to exactly args? */
static bool compiles_to(const char *text, struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			bool is_return, const char *args)
{
	struct fe_compiled it = { 0 };
	struct fe_dbg *ldbg = NULL;
	const char *got;
	bool same = false;

	it.text = strdup(text);
	if (!it.text)
		return false;
	it.proto = fe_proto_parse(it.text, &it.err);
	if (it.proto && !fe_compile_one(&it, NULL,
					it.proto->at != FE_AT_ENTRY ?
					line_dbg(dbg, opts, &ldbg, it.proto->module) : dbg,
					opts)) {
		got = is_return ? it.def.ret_args : it.def.entry_args;
		same = got && !strcmp(got, args);
	}
	fe_compiled_clear(&it);
	fe_dbg_close(ldbg);
	return same;
}

char *fe_compile_render(const char *event, const char *target, const char *args,
			bool is_return, struct fe_dbg *dbg, const struct fe_compile_opts *opts,
			bool *exact)
{
	char *text = fe_render_proto(event, target, args, is_return, false);

	*exact = false;
	if (!text)
		return NULL;
	if (compiles_to(text, dbg, opts, is_return, args)) {
		*exact = true;
		return text;
	}
	/* the slots mean other places under this debug info (a struct or
	 * a double before them), or the order cannot be kept: the kernel's
	 * own spelling, which no debug info reinterprets */
	free(text);
	text = fe_render_proto(event, target, args, is_return, true);
	if (text && compiles_to(text, dbg, opts, is_return, args))
		*exact = true;
	return text;
}

/* place's prototype reading one variable by name, as PLACE(NAME) parses:
 * a copy of the tree, not text parsed again.  NULL when out of memory. */
static struct fe_proto *read_var(const struct fe_proto *place, const char *name)
{
	struct fe_proto *pr = fe_proto_dup(place);
	struct fe_alt *alt;

	if (!pr)
		return NULL;
	pr->args = calloc(1, sizeof(*pr->args));
	alt = pr->args ? calloc(1, sizeof(*alt)) : NULL;
	if (!alt)
		goto oom;
	pr->nr_args = 1;
	pr->args[0].alts = alt;
	pr->args[0].nr_alts = 1;
	pr->args[0].col = place->end_col - 1;
	alt->kind = FE_ALT_PATH;
	alt->col = alt->name_col = pr->args[0].col;
	alt->name = strdup(name);
	if (!alt->name)
		goto oom;
	return pr;
oom:
	fe_proto_free(pr);
	return NULL;
}

/* The fetch a read of var by name compiles to at site, or why not. */
static int scope_var(const struct fe_proto *place, const struct fe_site *site,
		     struct fe_dbg *dbg, const struct fe_compile_opts *opts,
		     struct fe_scope_var *v)
{
	struct fe_compiled it = { 0 };
	const char *eq;
	int ret = 0;

	it.proto = read_var(place, v->name);
	if (!it.proto)
		return -1;
	it.has_site = true;
	it.site = *site;
	if (fe_compile_one(&it, NULL, dbg, opts)) {
		const char *why = it.err.msg;
		const char *colon = strstr(why, ": ");

		/* "'x' cannot be read: REASON": the reason */
		if (colon && strstr(why, "cannot be read"))
			why = colon + 2;
		v->why = strdup(why);
		ret = v->why ? 0 : -1;
	} else {
		eq = it.def.entry_args ? strchr(it.def.entry_args, '=') : NULL;
		v->fetch = strdup(eq ? eq + 1 : "");
		ret = v->fetch ? 0 : -1;
	}
	fe_compiled_clear(&it);
	return ret;
}

static int scope_at(const struct fe_proto *place, const struct fe_site *site, struct fe_dbg *dbg,
		    const struct fe_compile_opts *opts, struct fe_scope_at *at,
		    struct fe_error *err)
{
	struct fe_dfunc f;
	int i, ret = fe_dbg_scope(dbg, site->func, site->off, &f, err);

	if (ret <= 0)
		return ret < 0 ? -1 : fe_err(err, 0, "no function '%s' in %s", site->func,
					     fe_dbg_source(dbg));
	at->func = strdup(site->func);
	at->off = site->off;
	at->line = site->line;
	if (!at->func)
		goto oom;
	for (i = 0; i < f.nr_params + f.nr_locals; i++) {
		const struct fe_dparam *dp = i < f.nr_params ? &f.params[i] :
					     &f.locals[i - f.nr_params];
		struct fe_scope_var *v;
		char tname[256];

		if (!dp->name || dp->global)
			continue;
		v = fe_grow(&at->vars, &at->nr_vars, sizeof(*v));
		if (!v)
			goto oom;
		memset(v, 0, sizeof(*v));
		v->is_param = i < f.nr_params;
		if (fe_dbg_type_name(dbg, dp->type, tname, sizeof(tname)))
			snprintf(tname, sizeof(tname), "?");
		v->name = strdup(dp->name);
		v->type = strdup(tname);
		if (!v->name || !v->type || scope_var(place, site, dbg, opts, v))
			goto oom;
	}
	fe_dfunc_clear(&f);
	return 0;
oom:
	fe_dfunc_clear(&f);
	return fe_err(err, 0, "out of memory");
}

int fe_compile_scopes(const char *place, const struct fe_compile_opts *opts,
		      struct fe_scope_at **out, struct fe_error *err)
{
	struct fe_compile_set set = { 0 };
	struct fe_dbg *dbg = NULL, *ldbg = NULL, *d;
	struct fe_scope_at *all = NULL;
	char *text = NULL;
	int i, nr = 0;

	*out = NULL;
	if (asprintf(&text, "%s()", place) < 0)
		return fe_err(err, 0, "out of memory");
	if (fe_compile_add_text(&set, text, 1)) {
		free(text);
		return fe_err(err, 0, "out of memory");
	}
	free(text);
	if (fe_open_debug_info(opts, &dbg, err))
		goto fail;
	set.items[0].proto = fe_proto_parse(set.items[0].text, &set.items[0].err);
	if (!set.items[0].proto || set.items[0].proto->at == FE_AT_ENTRY) {
		if (set.items[0].proto)
			fe_err(&set.items[0].err, 1,
			       "expected a line or an offset: FUNC:N, FILE:N or FUNC+OFF");
		*err = set.items[0].err;
		goto fail;
	}
	if (expand_sites(&set, dbg, opts, &ldbg)) {
		fe_err(err, 0, "out of memory");
		goto fail;
	}
	d = line_dbg(dbg, opts, &ldbg, set.items[0].proto->module);
	for (i = 0; i < set.nr; i++) {
		struct fe_scope_at *at;

		if (set.items[i].failed) {
			*err = set.items[i].err;
			goto fail;
		}
		if (!d || strcmp(fe_dbg_kind(d), "DWARF")) {
			char why[FE_ERR_MSG_MAX];

			fe_err(err, 0, "the variables in scope come from DWARF: %s",
			       no_dwarf_why(opts, set.items[0].proto->module, why, sizeof(why)));
			goto fail;
		}
		at = fe_grow(&all, &nr, sizeof(*at));
		if (!at) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		memset(at, 0, sizeof(*at));
		if (scope_at(set.items[i].proto, &set.items[i].site, d, opts, at, err))
			goto fail;
		if (set.items[i].proto->module &&
		    !(at->module = strdup(set.items[i].proto->module))) {
			fe_err(err, 0, "out of memory");
			goto fail;
		}
		if (set.items[i].proto->at == FE_AT_OFFSET)
			at->line = -1;
	}
	fe_compile_set_free(&set);
	fe_dbg_close(ldbg);
	fe_dbg_close(dbg);
	module_dwarfs_close();
	*out = all;
	return nr;
fail:
	fe_scopes_free(all, nr);
	fe_compile_set_free(&set);
	fe_dbg_close(ldbg);
	fe_dbg_close(dbg);
	module_dwarfs_close();
	return -1;
}

void fe_scopes_free(struct fe_scope_at *s, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < s[i].nr_vars; j++) {
			free(s[i].vars[j].name);
			free(s[i].vars[j].type);
			free(s[i].vars[j].fetch);
			free(s[i].vars[j].why);
		}
		free(s[i].vars);
		free(s[i].module);
		free(s[i].func);
	}
	free(s);
}

void fe_compiled_clear(struct fe_compiled *it)
{
	free(it->site_func);
	free(it->site_inlined);
	free(it->glob_name);
	free(it->dbg_why);
	free(it->event);
	free(it->text);
	fe_proto_free(it->proto);
	fe_probe_free(it->probe);
	fe_definition_clear(&it->def);
	fe_warnings_free(&it->warnings);
}

void fe_compile_set_free(struct fe_compile_set *set)
{
	int i;

	for (i = 0; i < set->nr; i++)
		fe_compiled_clear(&set->items[i]);
	free(set->items);
	set->items = NULL;
	set->nr = 0;
}
