// SPDX-License-Identifier: GPL-2.0
/*
 * The driver (DESIGN.md section 6): parse each prototype once, expand
 * globs, lines and inlined copies into items that each carry a site, then
 * resolve, map and emit each item.  What it expands with lives beside it:
 * compile_dbg.c, compile_sites.c, compile_glob.c, compile_usdt.c and
 * compile_scope.c (compile_int.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "compile_int.h"
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

/*
 * Line line of the file, text[0..len-1], waiting as "LINE TEXT" in the
 * stream of item head, the file's first (set->defer_lines); made on its
 * first line.  Its names' room doubles.  -1 out of memory.
 */
static int defer_line(struct fe_compile_set *set, int head, const char *text, size_t len,
		      const char *file, int line)
{
	struct fe_compiled *it = &set->items[head];
	struct fe_func_names *names;
	char **v;

	if (!it->stream) {
		struct fe_glob_stream *st = realloc(set->streams,
						    (set->nr_streams + 1) * sizeof(*st));

		if (!st)
			return -1;
		set->streams = st;
		st = &st[set->nr_streams];
		memset(st, 0, sizeof(*st));
		st->file = file;
		/* names[0] is the head's */
		st->names.nr = 1;
		st->names.v = calloc(1, sizeof(*st->names.v));
		if (!st->names.v)
			return -1;
		it->stream = ++set->nr_streams;
	}
	names = &set->streams[it->stream - 1].names;
	if (!(names->nr & (names->nr - 1))) {
		v = realloc(names->v, names->nr * 2 * sizeof(*v));
		if (!v)
			return -1;
		names->v = v;
	}
	if (asprintf(&names->v[names->nr], "%d %.*s", line, (int)len, text) < 0)
		return -1;
	names->nr++;
	return 0;
}

int fe_compile_add_file(struct fe_compile_set *set, const char *path)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int line = 0, ret = 0, head = -1;

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
		if (head >= 0 && set->defer_lines ? defer_line(set, head, buf, len, path, line) :
		    add_item(set, buf, len, path, line)) {
			ret = -1;
			break;
		}
		if (head < 0)
			head = set->nr - 1;
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
	return lost->failed || why->failed ? fe_err(fe_compiled_err(it), 0, "out of memory") : 0;
}

/* A line or offset fe_compile_run did not expand: its first address. */
static int first_site(struct fe_compiled *it, struct fe_dbg *dbg,
		      const struct fe_compile_opts *opts)
{
	struct fe_site *sites;
	int nr;

	if (it->proto->at != FE_AT_OFFSET && (!dbg || strcmp(fe_dbg_kind(dbg), "DWARF")))
		return fe_err(fe_compiled_err(it), it->proto->at_col, "a line needs DWARF line tables");
	if (fe_compile_find_sites(it, dbg, opts, &sites, &nr))
		return -1;
	it->site = sites[0];
	it->site.count = nr;
	it->site_func = strdup(sites[0].func);
	it->site_inlined = sites[0].inlined ? strdup(sites[0].inlined) : NULL;
	if (!it->site_func || (sites[0].inlined && !it->site_inlined)) {
		free(sites);
		return fe_err(fe_compiled_err(it), 0, "out of memory");
	}
	free(sites);
	it->site.func = it->site_func;
	it->site.inlined = it->site_inlined;
	it->has_site = true;
	return 0;
}

/* The place a line's, an offset's or an inlined copy's definition says it
 * probes, as written. */
static int place_of(struct fe_compiled *it)
{
	const struct fe_proto *p = it->proto;
	int n = p->at == FE_AT_ENTRY ?
		asprintf(&it->def.place, "%s%s%s", p->module ? p->module : "",
			 p->module ? ":" : "", p->func) :
		p->at == FE_AT_FILE_LINE ?
		asprintf(&it->def.place, "%s:%ld", p->file, p->line) :
		p->at == FE_AT_OFFSET ?
		asprintf(&it->def.place, "%s%s%s+%lu", p->module ? p->module : "",
			 p->module ? ":" : "", p->func, p->offset) :
		asprintf(&it->def.place, "%s%s%s:%ld", p->module ? p->module : "",
			 p->module ? ":" : "", p->func, p->line);

	if (n < 0) {
		it->def.place = NULL;
		return fe_err(fe_compiled_err(it), 0, "out of memory");
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
	/* the item is where it stays now: its return site pairs with its
	 * site here (an inlined copy's item has none) */
	fe_compile_return_site(it, opts);
	ctx->warnings = &it->warnings;
	ctx->strict = opts->strict;
	if (fe_tp_named(it->proto, opts->binary, dbg, ksyms)) {
		if (fe_tp_site(it->proto, dbg, opts->kcaps, fe_compile_ret(it), tp, view,
			       fe_compiled_err(it)))
			return -1;
		ctx->site = tp;
		ctx->dbg = *view;
		return 0;
	}
	ctx->ksyms = ksyms;
	ctx->dbg = dbg;
	ctx->ret = fe_compile_ret(it);
	ctx->binary = opts->binary;
	ctx->in_glob = it->glob != 0;
	ctx->tracefs = opts->tracefs;
	ctx->other_kernel = opts->btf || opts->vmlinux || opts->kallsyms;
	ctx->dbg_why = it->dbg_why ? it->dbg_why : dbg ? NULL : fe_compile_dbg_why(opts);
	fe_compile_symtabs(opts, &ctx->symtab_elf, &ctx->kallsyms_path);
	fe_compile_locate_mod(opts, &lm);
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
		.ret = fe_compile_ret(it),
		.kcaps = opts->kcaps,
	};
	struct fe_place *places;
	struct fe_buf lost = { 0 }, why = { 0 };
	int ret;

	places = calloc(it->probe->nr_params ? it->probe->nr_params : 1,
			sizeof(*places));
	if (!places)
		return fe_err(fe_compiled_err(it), 0, "out of memory");
	ret = tracepoint ? fe_tp_places(it->probe, it->proto->func, places, fe_compiled_err(it)) :
	      fe_map_params(it->probe, places, fe_compiled_err(it));
	if (!ret && !tracepoint && it->has_site && it->site.copy_entry)
		ret = drop_lost(it, places, &lost, &why);
	if (!ret)
		ret = fe_emit(it->probe, places, &eopts, &it->def, fe_compiled_err(it));
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
	/* said under -v alone: the name is the same for thousands of items */
	if (ctx.dbg && opts->verbose && !it->debug_info &&
	    asprintf(&it->debug_info, "%s %s", fe_dbg_kind(ctx.dbg), fe_dbg_source(ctx.dbg)) < 0)
		it->debug_info = NULL;
	/* resolve's errors name the place themselves */
	if (fe_resolve(it->proto, &ctx, &it->probe, fe_compiled_err(it))) {
		if (tracepoint)
			fe_tp_resolve_error(fe_compiled_err(it), view, it->proto->func);
		fe_dbg_close(view);
		return -1;
	}
	/* a system call's arguments are user memory: its site says so to
	 * whoever asks after resolve (an entry without a site of its own),
	 * with its name and whether they are its wrapper's pt_regs */
	if (!it->has_site && it->probe->syscall) {
		it->site.kind = FE_SITE_SYSCALL;
		it->site.func = fe_probe_syscall_name(it->probe);
		it->site.regs = it->probe->syscall_wrapper;
	}
	ret = place_and_emit(it, tracepoint, opts);
	fe_dbg_close(view);
	/* a line, an offset or an inlined copy: what list shows beside the
	 * CALLER+OFF the definition's address renders as */
	if (!ret && it->has_site && (it->proto->at != FE_AT_ENTRY || it->site.copy_entry))
		ret = place_of(it);
	/* a return event with the arguments has every field: the kernel
	 * filters the whole call there */
	if (!ret && it->proto->filter)
		ret = fe_filter_translate_values(it->proto->filter, it->proto->filter_col,
						 it->def.ret_has_args ? NULL : it->def.entry_args,
						 it->def.ret_args, it->def.entry_values,
						 it->def.ret_values, &it->def.filter,
						 &it->def.filter_on_return,
						 &it->def.filter_on_call, fe_compiled_err(it));
	/* an entry alone is an fprobe where the kernel has them: they cost
	 * the traced program less (docs/speed.md); what it cannot be stays */
	if (!ret && fe_kcaps_can(opts->kcaps, FE_CAP_FPROBE_EVENTS) &&
	    fe_fprobe_convert(&it->def) < 0)
		ret = fe_err(fe_compiled_err(it), 0, "out of memory");
	/* at an inlined copy's code: say which copy, and where */
	if (ret && !tracepoint && it->has_site && it->site.inlined &&
	    !strstr(fe_compiled_error(it)->msg, "inlined into")) {
		struct fe_error *e = fe_compiled_err(it);
		size_t len = strlen(e->msg);

		snprintf(e->msg + len, sizeof(e->msg) - len,
			 " (at the copy of '%s' inlined into %s+0x%lx)", it->site.inlined,
			 it->site.func, it->site.off);
	}
	return ret;
}

static int by_event(const void *a, const void *b, void *arg)
{
	const struct fe_compiled *items = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = strcmp(items[ia].def.event, items[ib].def.event);

	return c ? c : ia - ib;
}

/*
 * Two items that define one event: the later says so (sorted, not
 * pairwise: a glob makes thousands).  A glob's function an earlier item
 * defines already is left to that item: globs that overlap ('vfs_*' and
 * '*_read') name each function once.  Two of one function are at one
 * address, which the kernel refuses (add undoes what it made); an SDT
 * probe's is another's address (pa:step and pb:step), which the kernel
 * takes into the same event, one that record cannot tell apart: add
 * refuses that itself, and compile, which answers as add does, with it.
 */
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
		if (it->glob && it->glob != set->items[order[first]].glob) {
			it->named_by = order[first] + 1;
		} else if (it->site.kind == FE_SITE_SDT ||
			   set->items[order[first]].site.kind == FE_SITE_SDT) {
			it->failed = true;
			fe_err(fe_compiled_err(it), 0,
			       "event '%s' is also defined by an earlier prototype, '%s': "
			       "name one with -n, or add them with -g in two groups",
			       it->def.event, set->items[order[first]].text);
		} else {
			fe_warn(&it->warnings,
				"event '%s' is also defined by an earlier prototype; only one can be added",
				it->def.event);
		}
	}
	free(order);
	return 0;
}

/*
 * What kind of place a prototype names, asked of its site from here on:
 * tp:NAME a tracepoint, PROVIDER:NAME of a binary an SDT probe (placed by
 * its note); else a function's entry, until a line, an offset or an
 * inlined copy gives the item its own site, or resolve finds a system call.
 */
void fe_compile_site_kind(struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	fe_tp_take_prefix(it->proto, opts->binary);
	if (opts->binary && it->proto->module)
		it->site.kind = FE_SITE_SDT;
	fe_compile_return_site(it, opts);
}

/* Each return site pairs with its item's entry where the items are now
 * (expanding and settling globs moved them). */
static void pair_returns(struct fe_compile_set *set)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (set->items[i].ret_site.kind == FE_SITE_RETURN)
			set->items[i].ret_site.entry = &set->items[i].site;
}

/*
 * A compiled item keeps its definition and what the command says of it;
 * the probe (a KB and its fields a function) and the error no one wrote
 * go as soon as the definition is made, so a compile of every function
 * of the kernel holds its definitions, not their makings (docs/speed.md).
 * -v says each probe's function and target, and add refuses a module not
 * loaded by the probe's: those keep the probe, less its fields and
 * parameters.  -1 out of memory.
 */
static int slim(struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	struct fe_probe *p = it->probe;

	free(it->err);
	it->err = NULL;
	if (opts->verbose || p->module_unloaded) {
		int i;

		while (p->nr_fields)
			fe_probe_drop_field(p, p->nr_fields - 1);
		free(p->fields);
		p->fields = NULL;
		for (i = 0; i < p->nr_params; i++) {
			free(p->params[i].name);
			free(p->params[i].label);
		}
		free(p->params);
		p->params = NULL;
		p->nr_params = 0;
		return 0;
	}
	/* a system call's site names it in the probe's target */
	if (it->site.kind == FE_SITE_SYSCALL && it->site.func && !it->site_func) {
		it->site_func = strdup(it->site.func);
		if (!it->site_func)
			return -1;
		it->site.func = it->site_func;
	}
	fe_probe_free(p);
	it->probe = NULL;
	return 0;
}

/*
 * A glob's function that fails is one line of its warning; without -v,
 * which says why for each, only the glob's first item keeps its error
 * (the glob's, should none compile): 1 KB each of thousands otherwise.
 */
static void drop_glob_error(struct fe_compile_set *set, int i,
			    const struct fe_compile_opts *opts)
{
	if (!opts->verbose && i > 0 && set->items[i].glob &&
	    set->items[i - 1].glob == set->items[i].glob) {
		free(set->items[i].err);
		set->items[i].err = NULL;
	}
}

int fe_compile_entry(struct fe_compiled *it, struct fe_compile_ctx *c)
{
	struct fe_dbg *d;

	/* an SDT probe is placed and typed by its note, not by debug info */
	if (it->site.kind == FE_SITE_SDT) {
		if (fe_compile_usdt(it, c)) {
			it->failed = true;
			return 1;
		}
		return slim(it, c->opts);
	}
	d = fe_compile_dbg_for(c->mods, c->dbg, c->ksyms, it,
			       c->dbg_is_running && !c->opts->kallsyms, c->opts);
	if (fe_compile_one(it, c->ksyms, d, c->opts)) {
		it->failed = true;
		return 1;
	}
	return slim(it, c->opts);
}

/* Compile item i of the set; -1 out of memory. */
static int compile_item(struct fe_compile_set *set, int i, struct fe_compile_ctx *c,
			struct fe_dbg **ldbg)
{
	struct fe_compiled *it = &set->items[i];
	const struct fe_compile_opts *opts = c->opts;
	struct fe_dbg *d = NULL;

	if (it->failed)
		return 0;
	if (!it->has_site || it->site.kind == FE_SITE_SDT) {
		if (fe_compile_entry(it, c) < 0)
			return -1;
		if (it->failed)
			drop_glob_error(set, i, opts);
		return 0;
	}
	d = fe_compile_line_dbg(c->dbg, opts, ldbg, it->proto->module);
	/* a module's FUNC+OFF without its DWARF: its BTF types the slots and
	 * says there are no locals */
	if (!d && it->proto->module)
		d = fe_compile_dbg_for(c->mods, c->dbg, c->ksyms, it,
				       c->dbg_is_running && !opts->kallsyms, opts);
	if (fe_compile_one(it, c->ksyms, d, opts)) {
		it->failed = true;
		drop_glob_error(set, i, opts);
		return 0;
	}
	return slim(it, opts);
}

int fe_compile_run(struct fe_compile_set *set, const struct fe_compile_opts *opts,
		   struct fe_error *err)
{
	struct fe_dbg *ldbg = NULL;
	struct fe_ksyms *ksyms;
	struct fe_module_dbgs mods = { .nr = 0 };
	struct fe_dbg *dbg;
	bool dbg_is_running;
	struct fe_compile_ctx c;
	struct fe_compiled *extra = NULL;
	int i, n, ret, seq = 0, nr_extra = 0;

	dbg = opts->open_dbg;
	if (!dbg && fe_open_debug_info(opts, &dbg, err))
		return -1;
	dbg_is_running = dbg && !opts->btf && !opts->vmlinux && !opts->binary;
	for (i = 0, n = set->nr; i < set->nr_streams; i++)
		n += set->streams[i].names.nr;
	fe_dbg_expect_funcs(dbg, n);
	ksyms = fe_ksyms_new();
	if (!ksyms) {
		if (dbg != opts->open_dbg)
			fe_dbg_close(dbg);
		fe_err(err, 0, "out of memory");
		return -1;
	}
	c = (struct fe_compile_ctx){ dbg, ksyms, &mods, dbg_is_running, opts, { 0 } };
	if (fe_compile_split_lists(set, &c, &ldbg))
		goto oom;
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];
		struct fe_error perr = { 0 };

		/* an item given as its tree (list's readback) is not
		 * parsed again; an item's error is made for the items
		 * that have one */
		if (!it->proto)
			it->proto = fe_proto_parse(it->text, &perr);
		if (!it->proto) {
			*fe_compiled_err(it) = perr;
			it->failed = true;
		} else {
			fe_compile_site_kind(it, opts);
		}
	}
	if (fe_compile_expand_globs(set, dbg, opts))
		goto oom;
	/* and a glob's functions, now that they are known */
	for (i = 0, n = set->nr; i < set->nr_streams; i++)
		n += set->streams[i].names.nr;
	fe_dbg_expect_funcs(dbg, n);
	for (i = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (!it->failed &&
		    fe_resolve_want_symbols(it->proto, ksyms, dbg_is_running ? dbg : NULL)) {
			fe_err(fe_compiled_err(it), 0, "out of memory");
			it->failed = true;
		}
	}
	if (fe_compile_stream_want(set, &c))
		goto oom;
	/*
	 * Another kernel's BTF without its kallsyms: the running kernel's
	 * symbols say nothing about it.  An unreadable kallsyms leaves every
	 * answer "unknown", and so no warnings.
	 */
	if (!opts->binary && ((!opts->btf && !opts->vmlinux) || opts->kallsyms))
		fe_ksyms_scan(ksyms, opts->kallsyms ? opts->kallsyms : DEFAULT_KALLSYMS);
	if (fe_compile_expand_sites(set, dbg, opts, &ldbg) ||
	    fe_compile_expand_copies(set, dbg, opts, &ldbg) || fe_compile_expand_sdt(set, &c))
		goto oom;

	for (i = 0; i < set->nr; i++) {
		set->items[i].seq = seq++;
		if (compile_item(set, i, &c, &ldbg) ||
		    (set->items[i].stream &&
		     fe_compile_stream_run(set, &set->items[i], &c, &seq, &extra, &nr_extra)))
			goto oom;
	}
	/* takes extra */
	ret = set->nr_streams ? fe_compile_stream_settle(set, &c, extra, nr_extra) : 0;
	extra = NULL;
	nr_extra = 0;
	if (ret || fe_compile_merge_sdt_errors(set))
		goto oom;
	fe_compile_settle_sdt(set);
	if (warn_same_events(set) || fe_compile_settle_copies(set, opts->verbose))
		goto oom;
	/* a site add refused as a second definition fails its probe's
	 * other sites */
	fe_compile_settle_sdt(set);
	ret = fe_compile_settle_globs(set, opts);
	if (ret < 0)
		goto oom;
	pair_returns(set);
	goto out;
oom:
	if (set->spool_errno)
		fe_err(err, 0, "reading back the definitions made, in a temporary file: %s",
		       strerror(set->spool_errno));
	else
		fe_err(err, 0, "out of memory");
	ret = -1;
out:
	for (i = 0; i < nr_extra; i++)
		fe_compiled_clear(&extra[i]);
	free(extra);
	fe_ksyms_free(ksyms);
	fe_compile_usdt_free(&c.usdt);
	for (i = 0; i < mods.nr; i++) {
		if (!mods.dwarf[i])
			fe_dbg_close(mods.dbg[i]);
		free(mods.names[i]);
		free(mods.why[i]);
	}
	fe_dbg_close(ldbg);
	if (dbg != opts->open_dbg)
		fe_dbg_close(dbg);
	fe_compile_module_dwarfs_close();
	return ret;
}

struct fe_error *fe_compiled_err(struct fe_compiled *it)
{
	static struct fe_error no_memory;

	if (!it->err)
		it->err = calloc(1, sizeof(*it->err));
	if (it->err)
		return it->err;
	/* whatever is written, the item fails: say why it does */
	fe_err(&no_memory, 0, "out of memory");
	return &no_memory;
}

void fe_compiled_clear(struct fe_compiled *it)
{
	free(it->err);
	free(it->debug_info);
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
	for (i = 0; i < set->nr_streams; i++) {
		struct fe_glob_stream *s = &set->streams[i];

		fe_proto_free(s->tmpl);
		free(s->text);
		free(s->glob_name);
		fe_func_names_free(&s->names);
		free(s->clash);
		free(s->ev);
	}
	free(set->streams);
	set->streams = NULL;
	set->nr_streams = 0;
	free(set->thin);
	free(set->kaddrs);
	set->kaddrs = NULL;
	set->nr_kaddrs = 0;
	set->thin = NULL;
	set->nr_thin = 0;
	fe_buf_free(&set->spool);
	if (set->spool_file)
		close(set->spool_fd);
	set->spool_file = false;
	set->spool_full = false;
	set->spool_fd = 0;
	set->spooled = 0;
}
