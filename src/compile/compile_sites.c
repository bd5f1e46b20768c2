// SPDX-License-Identifier: GPL-2.0
/*
 * Places with many addresses: a line or an offset becomes one item per
 * address, FUNC(...) one item per inlined copy (DESIGN.md sections 8 and
 * 15); each item carries a copy of the parsed prototype and its site.
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

void fe_compile_return_site(struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	memset(&it->ret_site, 0, sizeof(it->ret_site));
	/* an inlined copy is not called, so nothing returns from it: the
	 * copies' warning says which have no return event */
	if (!it->proto || (it->has_site && it->site.copy_entry) ||
	    (!opts->want_return && !it->proto->rtype))
		return;
	it->ret_site.kind = FE_SITE_RETURN;
	it->ret_site.func = it->proto->func;
	it->ret_site.entry = &it->site;
	it->ret_site.rtype = it->proto->rtype;
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
	ret = fe_elf_func_code(file, proto->func, &addr, &code, &size, fe_compiled_err(it));
	if (ret <= 0) {
		/* no such function: the resolver says so, with suggestions */
		fe_compiled_err(it)->col = proto->at_col;
		return ret;
	}
	ret = fe_insn_boundary(code, size, addr, proto->offset, &before, &after, fe_compiled_err(it));
	free(code);
	if (ret < 0) {
		if (proto->offset >= size)
			fe_err(fe_compiled_err(it), proto->at_col, "offset %lu is past the end of '%s' (%zu bytes)",
			       proto->offset, proto->func, size);
		else
			fe_compiled_err(it)->col = proto->at_col;
		return -1;
	}
	if (ret == 0)
		return fe_err(fe_compiled_err(it), proto->at_col,
			      "offset %lu splits the instruction at %s+%lu (%lu bytes): the nearest instruction boundaries are %s+%lu and %s+%lu",
			      proto->offset, proto->func, before, after - before, proto->func, before,
			      proto->func, after);
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
int fe_compile_find_sites(struct fe_compiled *it, struct fe_dbg *ldbg,
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
			return fe_err(fe_compiled_err(it), 0, "out of memory");
		s->kind = FE_SITE_OFFSET;
		s->func = proto->func;
		s->off = proto->offset;
		snprintf(s->suffix, sizeof(s->suffix), "_%lu", proto->offset);
		return 0;
	}
	if (proto->at == FE_AT_FILE_LINE)
		return fe_dbg_file_line_sites(ldbg, proto->file, proto->line, sites, nr,
					      fe_compiled_err(it)) < 0 ?
		       (fe_compiled_err(it)->col = proto->func_col, -1) : 0;
	ret = fe_dbg_func_lines(ldbg, proto->func, &fl, fe_compiled_err(it));
	if (ret < 0) {
		fe_compiled_err(it)->col = proto->at_col;
		return -1;
	}
	if (ret == 0 && fe_dbg_inlined_only(ldbg, proto->func))
		return fe_err(fe_compiled_err(it), proto->func_col,
			      "'%s' is inlined everywhere in %s, and no copy of it has code left: its lines have no address",
			      proto->func, fe_dbg_source(ldbg));
	if (ret == 0)
		return fe_err(fe_compiled_err(it), proto->func_col, "no function '%s' in the DWARF of %s",
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
				return fe_err(fe_compiled_err(it), 0, "out of memory");
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
			fe_err(fe_compiled_err(it), proto->at_col, "'%s' has %d lines (%s:%d-%d)", proto->func,
			       fl.last_line - fl.decl_line, fl.file, fl.decl_line, fl.last_line);
		else
			fe_err(fe_compiled_err(it), proto->at_col,
			       "line %ld of '%s' (%s:%ld) has no code of its own; lines near it that have: %s ('fevent lines %s' shows them all)",
			       proto->line, proto->func, fl.file, fl.decl_line + proto->line,
			       near.s ? near.s : "none", proto->func);
		fe_buf_free(&near);
	}
	fe_func_lines_clear(&fl);
	return *nr ? 0 : -1;
}

/*
 * Replace each line or offset item by one item per address, in place;
 * an item whose place has no address fails with the reason.
 */
int fe_compile_expand_sites(struct fe_compile_set *set, struct fe_dbg *dbg,
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
		d = fe_compile_line_dbg(dbg, opts, ldbg, it->proto->module);
		if (it->proto->at != FE_AT_OFFSET && (!d || strcmp(fe_dbg_kind(d), "DWARF"))) {
			char why[FE_ERR_MSG_MAX];

			fe_err(fe_compiled_err(it), it->proto->at_col, "a line needs DWARF line tables: %s",
			       fe_compile_no_dwarf_why(opts, it->proto->module, why, sizeof(why)));
			it->failed = true;
			continue;
		}
		if (fe_compile_find_sites(it, d, opts, &sites, &nr)) {
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

/*
 * Items i..i+n-1 for FUNC(...)'s copies: the out-of-line copy's first
 * (own), then one at each inlined copy's entry (ok), each a copy of the
 * parsed prototype with its site.  -1 when out of memory.
 */
static int copy_items(struct fe_compile_set *set, int i, int n, bool own,
		      const struct fe_site *ok, const struct fe_compile_opts *opts)
{
	struct fe_compiled *it = fe_compile_widen(set, i, n);
	int k;

	if (!it)
		return -1;
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
				return -1;
			if (opts->event && asprintf(&c->event, "%s_%d", opts->event, k) < 0) {
				c->event = NULL;
				return -1;
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
			return -1;
		c->site.func = c->site_func;
		c->site.inlined = c->site_inlined;
		/* which copy: list shows 'FUNC, address K of N' beside the
		 * CALLER+OFF it renders, as for a line's addresses */
		c->site.index = k;
		c->site.count = n;
		if (k)
			snprintf(c->site.suffix, sizeof(c->site.suffix), "_%d", k);
	}
	return 0;
}

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
	const struct fe_site *rs = fe_compile_ret(it);
	bool want_ret = rs != NULL;

	if (fe_dbg_inline_copies(d, pr->func, &all, &nr_all, fe_compiled_err(it))) {
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
		fe_err(fe_compiled_err(it), want_ret && rs->rtype ? rs->rtype->col : pr->func_col,
		       "'%s' is inlined everywhere in %s (%d cop%s%s%s%s%s)%s%s", pr->func,
		       fe_dbg_source(d), nr_all, nr_all == 1 ? "y" : "ies",
		       nr_ok ? ": " : "", nr_ok ? where.s : "", skipped.len ? "; none at " : "",
		       skipped.len ? skipped.s : "",
		       !nr_ok ? ": no probe can go at any of its copies" :
		       ": an inlined copy is not called, so nothing returns from it and no return event can go there; ",
		       !nr_ok ? "" : rs->rtype ? "drop the return type to probe the copies' entries" :
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
	if (copy_items(set, i, n, own, ok, opts))
		goto oom;
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
int fe_compile_expand_copies(struct fe_compile_set *set, struct fe_dbg *dbg,
			 const struct fe_compile_opts *opts, struct fe_dbg **ldbg)
{
	int i, n;

	for (i = 0; i < set->nr; i += n) {
		const struct fe_compiled *it = &set->items[i];
		struct fe_dbg *d;

		n = 1;
		if (it->failed || !it->proto || it->proto->at != FE_AT_ENTRY || it->glob ||
		    it->site.kind == FE_SITE_SDT || it->proto->tracepoint || it->has_site)
			continue;
		d = fe_compile_line_dbg(dbg, opts, ldbg, it->proto->module);
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
struct fe_compiled *fe_compile_widen(struct fe_compile_set *set, int i, int n)
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

int fe_compile_settle_copies(struct fe_compile_set *set, bool verbose)
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
