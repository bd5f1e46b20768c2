// SPDX-License-Identifier: GPL-2.0
/*
 * Globs (DESIGN.md section 12): one item per function, tracepoint or SDT
 * probe a glob names, and the one warning for those that do not compile.
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

/* The SDT probes of the binary a 'PROVIDER:NAME' glob names, each once
 * (its sites are its items: fe_compile_expand_sdt). */
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

		/* a probe's further notes are its sites, not names */
		if (u[i].site)
			continue;
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

/* What a glob item's glob names, for what is said of them: an SDT
 * probe, a tracepoint is no function */
static const char *glob_names(const struct fe_compiled *it)
{
	return it->site.kind == FE_SITE_SDT ? "SDT probes" :
	       it->proto && it->proto->tracepoint ? "tracepoints" : "functions";
}

/* ... and one of them */
static const char *glob_name_one(const struct fe_compiled *it)
{
	return it->site.kind == FE_SITE_SDT ? "SDT probe" :
	       it->proto && it->proto->tracepoint ? "tracepoint" : "function";
}

/* The names of inlined-only functions a glob matched, for its error */
struct inl_only {
	const struct fe_func_names *out_of_line;
	struct fe_buf text;
	char first[128];
	int nr;
};

static int take_inl_only(const char *name, void *arg)
{
	struct inl_only *o = arg;
	int i;

	for (i = 0; i < o->out_of_line->nr; i++)
		if (!strcmp(o->out_of_line->v[i], name))
			return 0;
	if (!o->nr)
		snprintf(o->first, sizeof(o->first), "%s", name);
	if (o->nr++ < 3)
		fe_buf_printf(&o->text, "%s%s", o->nr > 1 ? ", " : "", name);
	return 0;
}

/*
 * A glob over DWARF that matches no function out of line, where funcs
 * lists functions inlined everywhere ("NAME  (inlined: N copies)"): say
 * them, and how to probe them.  A glob probes functions, not every copy
 * of each (docs/decisions.md); walking the inlined copies costs a DWARF
 * walk, paid here on the error's path only.
 */
static bool no_match_inlined(struct fe_compiled *it, struct fe_dbg *dbg, const char *glob,
			     const struct fe_func_names *names)
{
	struct inl_only o = { .out_of_line = names };
	bool said = false;

	if (!dbg || it->site.kind == FE_SITE_SDT || it->proto->tracepoint ||
	    fe_dbg_inline_names(dbg, glob, take_inl_only, &o) || !o.nr || o.text.failed)
		goto out;
	fe_err(fe_compiled_err(it), it->proto->func_col,
	       "no function matches '%s' out of line; inlined everywhere: %s%s (a glob probes "
	       "out-of-line functions: name one, '%s(...)', to probe each of its copies)",
	       glob, o.text.s, o.nr > 3 ? ", ..." : "", o.first);
	said = true;
out:
	fe_buf_free(&o.text);
	return said;
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

struct fe_glob_stream *fe_compile_glob_stream(const struct fe_compile_set *set, int glob)
{
	int i;

	for (i = 0; glob && i < set->nr_streams; i++)
		if (set->streams[i].glob == glob)
			return &set->streams[i];
	return NULL;
}

int fe_compile_stream_item(const struct fe_glob_stream *s, const char *name,
			   struct fe_compiled *it, const struct fe_compile_opts *opts)
{
	memset(it, 0, sizeof(*it));
	it->file = s->file;
	if (!s->tmpl) {
		/* a list's line: parsed when split, it parses again */
		struct fe_error perr = { 0 };
		char *text;

		it->line = strtol(name, &text, 10);
		it->text = strdup(text + 1);
		it->proto = it->text ? fe_proto_parse(it->text, &perr) : NULL;
		if (!it->proto)
			return -1;
		fe_compile_site_kind(it, opts);
		return 0;
	}
	it->line = s->line;
	it->site.kind = s->kind;
	it->glob = s->glob;
	it->text = strdup(s->text);
	it->proto = fe_proto_dup(s->tmpl);
	it->glob_name = strdup(s->glob_name);
	if (!it->text || !it->proto || !it->glob_name || name_function(it->proto, name))
		return -1;
	return 0;
}

/*
 * compile (opts->render) streams a glob of the kernel's or a binary's
 * functions' entries, tracepoints or SDT probes (compile_stream.c): not
 * -v, which says each function's probe.
 */
static bool streamed(const struct fe_compiled *it, const struct fe_compile_opts *opts, int nr)
{
	return opts->render && !opts->verbose && nr > 1 && it->proto->at == FE_AT_ENTRY;
}

/* Item it becomes the glob's first function, the rest its stream (names
 * taken); -1 out of memory (names left). */
static int stream_glob(struct fe_compile_set *set, struct fe_compiled *it, const char *glob,
		       int nr_glob, struct fe_func_names *names)
{
	struct fe_glob_stream *st, *streams;

	streams = realloc(set->streams, (set->nr_streams + 1) * sizeof(*streams));
	if (!streams)
		return -1;
	set->streams = streams;
	st = &streams[set->nr_streams];
	memset(st, 0, sizeof(*st));
	st->file = it->file;
	st->line = it->line;
	st->glob = nr_glob;
	st->kind = it->site.kind;
	st->tmpl = fe_proto_dup(it->proto);
	st->text = strdup(it->text);
	st->glob_name = strdup(glob);
	it->glob_name = strdup(glob);
	if (!st->tmpl || !st->text || !st->glob_name || !it->glob_name ||
	    name_function(it->proto, names->v[0])) {
		fe_proto_free(st->tmpl);
		free(st->text);
		free(st->glob_name);
		return -1;
	}
	st->names = *names;
	memset(names, 0, sizeof(*names));
	it->glob = nr_glob;
	it->stream = ++set->nr_streams;
	return 0;
}

/*
 * Replace each glob item by one item per function it names (DESIGN.md
 * section 12): the kernel's by funcs' rule, a binary's functions, or with
 * -x an SDT provider's probes.  -1 only when out of memory.
 */
int fe_compile_expand_globs(struct fe_compile_set *set, struct fe_dbg *dbg,
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
		if (it->site.kind == FE_SITE_SDT)
			ret = usdt_glob(opts->binary, glob, &names, fe_compiled_err(it));
		else if (it->proto->tracepoint)
			ret = fe_tp_glob(dbg, glob, &names, fe_compiled_err(it));
		else
			ret = fe_func_glob(dbg, kallsyms, kallsyms && !opts->kallsyms, glob, &names,
					   fe_compiled_err(it));
		if (ret) {
			it->failed = true;
		} else if (!names.nr && no_match_inlined(it, dbg, glob, &names)) {
			it->failed = true;
		} else if (!names.nr) {
			fe_err(fe_compiled_err(it), it->proto->func_col, "no %s matches '%s'%s",
			       glob_name_one(it), glob,
			       it->site.kind == FE_SITE_SDT ? "" :
			       it->proto->tracepoint ? " ('fevent funcs \"tp:GLOB\"' lists them)" :
			       opts->binary && !dbg ? ": the binary has no DWARF to list them from" :
			       " ('fevent funcs GLOB' lists what can be probed)");
			it->failed = true;
		} else if (names.nr > max) {
			fe_err(fe_compiled_err(it), it->proto->func_col,
			       "'%s' matches %d %s: more than %d needs --max N", glob,
			       names.nr, glob_names(it), max);
			it->failed = true;
		} else if (opts->event && names.nr > 1) {
			fe_err(fe_compiled_err(it), it->proto->func_col,
			       "-n names one event, but '%s' matches %d %s", glob, names.nr,
			       glob_names(it));
			it->failed = true;
		}
		if (!it->failed && streamed(it, opts, names.nr)) {
			ret = stream_glob(set, it, glob, ++globs, &names);
			free(glob);
			fe_func_names_free(&names);
			if (ret)
				return -1;
			continue;
		}
		if (it->failed) {
			free(glob);
			fe_func_names_free(&names);
			continue;
		}
		it = fe_compile_widen(set, i, names.nr);
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
			c->site.kind = it->site.kind;
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
	bool counted = false;	/* its name: an SDT probe's sites are one */

	for (k = from; k < end; k++) {
		struct fe_compiled *c = &set->items[k];

		if (fe_compile_a_name(c))
			counted = false;
		if (c->failed)
			continue;
		if (c->warnings.nr && !counted) {
			funcs++;
			counted = true;
		}
		for (w = 0; w < c->warnings.nr; w++, nr++)
			if (verbose)
				fe_warn(&all, "%s%s%s: %s", c->proto->module ? c->proto->module : "",
					c->proto->module ? ":" : "", c->proto->func,
					c->warnings.msgs[w]);
		fe_warnings_free(&c->warnings);
	}
	if (nr && !verbose)
		fe_warn(&all, "%d warning%s on %d of the %s '%s' names (-v shows them)", nr,
			nr == 1 ? "" : "s", funcs, glob_names(&set->items[good]),
			set->items[good].glob_name);
	set->items[good].warnings = all;
}

/* None of the glob's functions (items i..end-1) compiles: the first's
 * error becomes the glob's, and the others are cleared. */
static void none_compiles(struct fe_compile_set *set, int i, int end, int total)
{
	struct fe_compiled *first = &set->items[i];
	char why[FE_ERR_MSG_MAX];
	int k;

	snprintf(why, sizeof(why), "%s", fe_compiled_error(first)->msg);
	if (total > 1)
		fe_err(fe_compiled_err(first), fe_compiled_error(first)->col,
		       "none of the %d %s '%s' names compiles; the first, %s%s%s: %s",
		       total, glob_names(first), first->glob_name,
		       first->proto->module ? first->proto->module : "",
		       first->proto->module ? ":" : "", first->proto->func, why);
	for (k = i + 1; k < end; k++)
		fe_compiled_clear(&set->items[k]);
}

/* On the glob's first function that compiled (good): how many it skipped
 * (each with why under verbose) and how many an earlier prototype names. */
static void skipped_warnings(struct fe_compile_set *set, int i, int end, int total, int good,
			     int nr_failed, int nr_named, bool verbose)
{
	struct fe_compiled *g = &set->items[good];
	int k;

	if (nr_failed) {
		fe_warn(&g->warnings,
			"%d of the %d %s '%s' names %s skipped: the prototype does not compile for %s%s",
			nr_failed, total, glob_names(g), g->glob_name, nr_failed == 1 ? "is" : "are",
			nr_failed == 1 ? "it" : "them", verbose ? "" : " (-v says why)");
		for (k = i; verbose && k < end; k++)
			if (set->items[k].failed && fe_compile_a_name(&set->items[k]))
				fe_warn(&g->warnings, "skipped %s%s%s: %s",
					set->items[k].proto->module ?
					set->items[k].proto->module : "",
					set->items[k].proto->module ? ":" : "",
					set->items[k].proto->func, fe_compiled_error(&set->items[k])->msg);
	}
	if (nr_named)
		fe_warn(&g->warnings,
			"%d of the %d %s '%s' names %s left to the earlier prototype "
			"that names %s too", nr_named, total, glob_names(g), g->glob_name,
			nr_named == 1 ? "is" : "are", nr_named == 1 ? "it" : "them");
}

/* A function's entry, the address the kernel keys a probe by: a uprobe's
 * file and offset, a kprobe's address in kallsyms (file ""; 0 where it
 * is not known).  A line or SDT probe has its own place. */
struct akey {
	const char *file;
	unsigned long long addr;
};

static bool an_entry(const struct fe_compiled *it)
{
	return !it->failed && !it->has_site && it->site.kind != FE_SITE_SDT &&
	       !it->def.tracepoint && it->def.target && it->proto &&
	       it->proto->at == FE_AT_ENTRY;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Would the two items' events read the same? */
static bool same_reads(const struct fe_compiled *a, const struct fe_compiled *b)
{
	return a->def.fprobe == b->def.fprobe &&
	       same_text(a->def.entry_args, b->def.entry_args) &&
	       !a->def.ret == !b->def.ret && same_text(a->def.ret_args, b->def.ret_args) &&
	       same_text(a->def.filter, b->def.filter) &&
	       a->def.filter_on_return == b->def.filter_on_return &&
	       a->def.filter_on_call == b->def.filter_on_call &&
	       same_text(a->def.entry_values, b->def.entry_values) &&
	       same_text(a->def.ret_values, b->def.ret_values);
}

static bool same_address(const struct akey *a, const struct akey *b)
{
	return !strcmp(a->file, b->file) && a->addr == b->addr;
}

static int by_address(const void *a, const void *b, void *arg)
{
	const struct akey *keys = arg;
	const struct akey *x = &keys[*(const int *)a], *y = &keys[*(const int *)b];
	int c = strcmp(x->file, y->file);

	if (!c)
		c = x->addr < y->addr ? -1 : x->addr > y->addr;
	return c ? c : *(const int *)a - *(const int *)b;
}

/* Where kallsyms puts the kernel's functions the kprobe items probe
 * ("MODULE:FUNC" or "FUNC"), in one pass over it; a name it has twice
 * has no one address (0).  Unreadable: no address known, nothing merged.
 * 0, or -1 when out of memory. */
static int kallsyms_keys(struct fe_compile_set *set, const char *kallsyms, struct akey *keys)
{
	struct fe_ksym_addr *q = calloc(set->nr, sizeof(*q));
	char **mods = calloc(set->nr, sizeof(*mods));
	int *item = calloc(set->nr, sizeof(*item));
	int i, n = 0, ret = -1;

	if (!q || !mods || !item)
		goto out;
	for (i = 0; i < set->nr; i++) {
		const char *target = set->items[i].def.target, *colon;

		if (!an_entry(&set->items[i]) || set->items[i].def.uprobe)
			continue;
		/* the streams' walk knew it: not read again */
		if (fe_compile_kaddr(set, &set->items[i], &keys[i].addr) >= 0) {
			keys[i].file = keys[i].addr ? "" : NULL;
			continue;
		}
		colon = strchr(target, ':');
		if (colon && !(mods[n] = strndup(target, colon - target)))
			goto out;
		q[n].name = colon ? colon + 1 : target;
		q[n].module = mods[n];
		item[n++] = i;
	}
	/* the kernel's own names only: those not alone are kept for the
	 * boot (ksyms_shared.c), and one alone merges with nothing */
	for (i = 0; i < n && !q[i].module; i++)
		;
	if (i == n)
		fe_ksyms_addrs_shared(kallsyms, q, n);
	else
		fe_ksyms_addrs(kallsyms, q, n);
	for (i = 0; i < n; i++) {
		if (q[i].count <= 0)
			continue;
		keys[item[i]].addr = q[i].addr;
		keys[item[i]].file = "";
	}
	ret = 0;
out:
	for (i = 0; mods && i < set->nr; i++)
		free(mods[i]);
	free(mods);
	free(item);
	free(q);
	return ret;
}

/* keys[i] for every item that is a function's entry; 0, or -1 when out
 * of memory. */
static int entry_keys(struct fe_compile_set *set, const struct fe_compile_opts *opts,
		      struct akey *keys)
{
	const char *elf, *kallsyms;
	int i, nr_kprobes;

	fe_compile_symtabs(opts, &elf, &kallsyms);
	for (i = 0, nr_kprobes = 0; i < set->nr; i++) {
		struct fe_compiled *it = &set->items[i];

		if (!an_entry(it))
			continue;
		nr_kprobes += !it->def.uprobe;
		if (it->def.uprobe) {
			keys[i].file = it->def.target;
			keys[i].addr = it->def.offset;
		}
	}
	/* one kprobe cannot share its address with another: kallsyms, a
	 * fifth of a second of the kernel's time to format in the test VM,
	 * is not read for it */
	if (nr_kprobes < 2 || !kallsyms)
		return 0;
	return kallsyms_keys(set, kallsyms, keys);
}

/* "FILE:0xOFF", or a kernel address. */
static void where(const struct akey *k, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s0x%llx", k->file, *k->file ? ":" : "", k->addr);
}

/* The name a glob's aliases are probed by: the plainest, fewest leading
 * underscores ("open64", not "__open64" or "__GI___open64"), then the
 * shortest. */
static bool plainer(const char *a, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (ua != ub)
		return ua < ub;
	return strlen(a) < strlen(b);
}

/*
 * Items grp[0..nr-1] probe one address with the same reads: the one kept
 * is the earliest prototype's (of a glob, its plainest name); the others
 * leave the set (dropped), their warnings and a note naming them all go
 * to it.  -1 only when out of memory.
 */
static bool said(const struct fe_warnings *w, const char *msg)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (!strcmp(w->msgs[i], msg))
			return true;
	return false;
}

static int merge_one(struct fe_compile_set *set, const struct akey *keys, const int *grp,
		     int nr, bool *dropped)
{
	struct fe_compiled *keep = &set->items[grp[0]];
	struct fe_buf names = { 0 };
	char at[PATH_MAX + 32];
	int k, w, ret = -1;

	for (k = 1; k < nr; k++) {
		struct fe_compiled *c = &set->items[grp[k]];

		if (keep->glob && c->glob == keep->glob &&
		    plainer(c->proto->func, keep->proto->func))
			keep = c;
	}
	for (k = 0; k < nr; k++) {
		struct fe_compiled *c = &set->items[grp[k]];

		fe_buf_printf(&names, "%s%s", !k ? "" : k + 1 == nr ? " and " : ", ",
			      c->proto->func);
		if (c == keep)
			continue;
		dropped[grp[k]] = true;
		for (w = 0; w < c->warnings.nr; w++)
			if (!said(&keep->warnings, c->warnings.msgs[w]) &&
			    fe_warn(&keep->warnings, "%s", c->warnings.msgs[w]))
				goto out;
	}
	where(&keys[grp[0]], at, sizeof(at));
	if (!names.failed &&
	    !fe_warn(&keep->warnings, "%s are one function, at %s: probed once, as event '%s'",
		     names.s, at, keep->def.event))
		ret = 0;
out:
	free(names.s);
	return ret;
}

/* Items order[from..end-1], of one address: those that read as the first
 * left does are merged, until none is left; those that still differ say
 * why a call gives both events.  -1 only when out of memory. */
static bool named_in(const struct fe_compile_set *set, const int *grp, int nr,
		     const char *func)
{
	int k;

	for (k = 0; k < nr; k++)
		if (!strcmp(set->items[grp[k]].proto->func, func))
			return true;
	return false;
}

static int merge_address(struct fe_compile_set *set, const struct akey *keys, const int *order,
			 int from, int end, int *grp, bool *dropped)
{
	const struct fe_compiled *first = NULL;
	char at[PATH_MAX + 32];
	int i, k, nr;

	for (i = from; i < end; i++) {
		if (dropped[order[i]])
			continue;
		/* one name written twice is one prototype twice, which
		 * compile.c's warn_same_events says: not an alias */
		for (nr = 0, k = i; k < end; k++)
			if (k == i || (!dropped[order[k]] &&
				       !named_in(set, grp, nr, set->items[order[k]].proto->func) &&
				       same_reads(&set->items[order[i]], &set->items[order[k]])))
				grp[nr++] = order[k];
		if (nr > 1 && merge_one(set, keys, grp, nr, dropped))
			return -1;
	}
	for (i = from; i < end; i++) {
		struct fe_compiled *c = &set->items[order[i]];

		if (dropped[order[i]] || (first && !strcmp(first->proto->func, c->proto->func)))
			continue;
		where(&keys[order[i]], at, sizeof(at));
		if (first && fe_warn(&c->warnings, "'%s' is the function '%s' names too, at "
				     "%s, read otherwise: each call gives both events",
				     c->proto->func, first->proto->func, at))
			return -1;
		if (!first)
			first = c;
	}
	return 0;
}

/*
 * Two names of one function (libc's open64 and __open64, an alias; the
 * kernel's __x64_sys_getpid and __ia32_sys_getpid in kallsyms), by a glob
 * or by two prototypes, are one address to the kernel: probed twice, each
 * call would give two events.  Those that read the same are probed once,
 * with a note; those that read differently stay, and say why a call gives
 * both.  -1 only when out of memory.
 */
static int merge_aliases(struct fe_compile_set *set, const struct fe_compile_opts *opts)
{
	size_t nr = set->nr ? set->nr : 1;
	int *order = malloc(nr * sizeof(*order));
	int *grp = malloc(nr * sizeof(*grp));
	bool *dropped = calloc(nr, sizeof(*dropped));
	struct akey *keys = calloc(nr, sizeof(*keys));
	int i, j, n = 0, out = 0, ret = -1;

	if (!order || !grp || !dropped || !keys || entry_keys(set, opts, keys))
		goto done;
	for (i = 0; i < set->nr; i++)
		if (keys[i].file && keys[i].addr)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_address, keys);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_address(&keys[order[i]], &keys[order[j]]); j++)
			;
		if (j - i > 1 && merge_address(set, keys, order, i, j, grp, dropped))
			goto done;
	}
	for (i = 0; i < set->nr; i++) {
		if (dropped[i])
			fe_compiled_clear(&set->items[i]);
		else
			set->items[out++] = set->items[i];
	}
	set->nr = out;
	ret = 0;
done:
	free(order);
	free(grp);
	free(dropped);
	free(keys);
	return ret;
}

/*
 * After compiling: a glob's functions that failed leave the set, said
 * once on its first function that compiled; when none did, the first
 * failure stays as the glob's error.  Then two names of one function
 * are probed once (merge_aliases).  Returns how many failures remain.
 */
int fe_compile_settle_globs(struct fe_compile_set *set, const struct fe_compile_opts *opts)
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
		int end = i, good = -1, nr_failed = 0, nr_named = 0, named = -1, total;
		const struct fe_glob_stream *st;

		while (end < set->nr && set->items[i].glob &&
		       set->items[end].glob == set->items[i].glob)
			end++;
		if (end == i) {
			failed += set->items[i].failed;
			moved[i] = out;
			set->items[out++] = set->items[i++];
			continue;
		}
		/* a streamed glob's thin functions compiled; those that
		 * failed are counted alone */
		st = fe_compile_glob_stream(set, set->items[i].glob);
		nr_failed = st ? st->failed : 0;
		total = st ? st->ok + st->failed : 0;
		for (k = i; k < end; k++)
			total += fe_compile_a_name(&set->items[k]);
		for (k = i; k < end; k++) {
			if (set->items[k].failed)
				nr_failed += fe_compile_a_name(&set->items[k]);
			else if (set->items[k].named_by && (nr_named += fe_compile_a_name(&set->items[k]),
							     named < 0))
				named = k;
			else if (!set->items[k].named_by && good < 0)
				good = k;
		}
		if (good < 0 && nr_named) {
			/* earlier prototypes define all that it compiles
			 * (out of memory: nothing said) */
			if (asprintf(&covered[nr_covered].msg, "every %s '%s' names that "
				     "compiles is named by an earlier prototype: it adds none",
				     glob_name_one(&set->items[named]),
				     set->items[named].glob_name) >= 0)
				covered[nr_covered++].to = set->items[named].named_by - 1;
			for (k = i; k < end; k++)
				fe_compiled_clear(&set->items[k]);
			i = end;
			continue;
		}
		if (good < 0) {
			none_compiles(set, i, end, total);
			failed++;
			set->items[out++] = set->items[i];
			i = end;
			continue;
		}
		if (total > 1)
			gather_warnings(set, i, end, good, opts->verbose);
		skipped_warnings(set, i, end, total, good, nr_failed, nr_named, opts->verbose);
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
	return merge_aliases(set, opts) ? -1 : failed;
}
