// SPDX-License-Identifier: GPL-2.0
/*
 * PROVIDER:NAME(ARGS) with -x BIN: an SDT probe, placed and typed by its
 * note, not by the resolver.
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
#include "kprobe_emit.h"
#include "ksyms.h"
#include "proto_render.h"
#include "tracepoint.h"

/* "s32", "u64": an SDT argument's type from its spec */
static void spec_type(const struct fe_usdt_arg *a, char *buf, size_t size)
{
	snprintf(buf, size, "%c%d", a->is_signed ? 's' : 'u', a->size * 8);
}

/* " (at its site 2 of 3, 0x11d4)" of site index of a probe with count
 * notes, else "": at the end of what is said of one site, so that
 * fe_compile_merge_sdt_errors finds it there */
static const char *site_suffix(int index, int count, unsigned long off, char *buf, size_t size)
{
	if (count < 2)
		return "";
	snprintf(buf, size, " (at its site %d of %d, 0x%lx)", index + 1, count, off);
	return buf;
}

static const char *site_text(const struct fe_usdt *u, char *buf, size_t size)
{
	return site_suffix(u->site, u->nr_sites, u->offset, buf, size);
}

/* No SDT probe PROVIDER:NAME in the binary: say so, with the nearest
 * name it has.  Always -1. */
static int no_probe(struct fe_compiled *it, const struct fe_compile_opts *opts,
		    const struct fe_usdt *all, int n)
{
	const struct fe_proto *pr = it->proto;
	const char **cands = calloc(n > 0 ? (size_t)n : 1, sizeof(*cands));
	struct fe_buf names = { 0 };
	const char *near = NULL;
	int i;

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
		fe_err(fe_compiled_err(it), pr->func_col - (int)strlen(pr->module) - 1,
		       "%s has no SDT probes (no .note.stapsdt); PROVIDER:NAME names one",
		       opts->binary);
	else
		fe_err(fe_compiled_err(it), pr->func_col - (int)strlen(pr->module) - 1,
		       "no SDT probe '%s:%s' in %s%s%s%s", pr->module, pr->func,
		       opts->binary, near ? "; did you mean '" : "", near ? near : "",
		       near ? "'?" : "");
	for (i = 0; cands && i < n; i++)
		free((char *)cands[i]);
	free(cands);
	fe_buf_free(&names);
	return -1;
}

/*
 * A typed slot against the note's argument, which is the declaration
 * there (DESIGN.md section 13, as resolve_params.c's check_drift for a
 * function's parameter): an integer wider or narrower than the note's,
 * or a string read from what cannot hold an address, prints wrong
 * values.  A warning naming the note's size; an error with --strict.
 * Signedness is a spelling, not drift.  0, or -1 with it->err set.
 */
static int usdt_drift(struct fe_compiled *it, const struct fe_usdt *u, const struct fe_alt *alt,
		      int slot, const struct fe_tinfo *ti, bool strict)
{
	const struct fe_usdt_arg *a = &u->args[slot];
	const char *why = NULL;
	char decl[32], at[64], spec[80] = "";

	if (ti->is_string && a->size < 8)
		why = "a string is read from an address, and it holds none";
	else if (!ti->is_string && ti->size && ti->size != (unsigned int)a->size)
		why = ti->size > (unsigned int)a->size ? "the bytes past it are not its value" :
		      "part of its value is cut off";
	if (!why)
		return 0;
	spec_type(a, decl, sizeof(decl));
	/* a site's spec is proto's to show: one size at each site is one
	 * error (fe_compile_merge_sdt_errors) */
	if (u->nr_sites < 2)
		snprintf(spec, sizeof(spec), " (%s)", u->spec);
	if (strict)
		return fe_err(fe_compiled_err(it), alt->col,
			      "'%s %s' reads argument %d of %s:%s as %u bytes, but its note declares it '%s'%s: %s%s",
			      alt->type->text, alt->name, slot + 1, u->provider, u->name, ti->size,
			      decl, spec, why, site_text(u, at, sizeof(at)));
	fe_warn(&it->warnings,
		"column %d: '%s %s' reads argument %d of %s:%s as %u bytes, but its note declares it '%s'%s: %s%s (--strict makes this an error)",
		alt->col, alt->type->text, alt->name, slot + 1, u->provider, u->name, ti->size,
		decl, spec, why, site_text(u, at, sizeof(at)));
	return 0;
}

/* One argument written in the prototype, read from SDT argument *slot
 * (advanced), appended to args as NAME=FETCH:TYPE; -1 with it->err set. */
static int usdt_arg(struct fe_compiled *it, const struct fe_usdt *u, const struct fe_arg *arg,
		    int *slot, struct fe_buf *args, bool strict)
{
	const struct fe_alt *alt = arg->nr_alts ? &arg->alts[0] : NULL;
	const struct fe_usdt_arg *a;
	char type[32], loc[80], at[64];

	if (arg->is_null) {
		(*slot)++;
		return 0;
	}
	if (arg->nr_alts != 1 ||
	    !(alt->kind == FE_ALT_SLOT || (alt->kind == FE_ALT_PATH && !alt->type &&
					   !alt->label && !alt->nr_steps)) ||
	    (alt->kind == FE_ALT_SLOT && (alt->nr_steps || alt->type->array)))
		return fe_err(fe_compiled_err(it), arg->col, "an SDT argument is read as 'TYPE NAME', 'NAME' or "
			      "'...': it has no C type to follow");
	/* a site's specs are proto's to show: the same count at each site
	 * is one error; no spec, no "()" */
	if (*slot >= u->nr_args) {
		bool spec = u->nr_sites < 2 && *u->spec;

		return fe_err(fe_compiled_err(it), arg->col, "%s:%s has %d argument%s%s%s%s%s",
			      u->provider, u->name, u->nr_args, u->nr_args == 1 ? "" : "s",
			      spec ? " (" : "", spec ? u->spec : "", spec ? ")" : "",
			      site_text(u, at, sizeof(at)));
	}
	a = &u->args[(*slot)++];
	if (a->why)
		return fe_err(fe_compiled_err(it), arg->col,
			      "argument %d of %s:%s cannot be read: its spec is %s%s",
			      *slot, u->provider, u->name, a->why, site_text(u, at, sizeof(at)));
	snprintf(loc, sizeof(loc), "%s", a->fetch);
	if (alt->kind == FE_ALT_SLOT) {
		struct fe_tinfo ti;

		if (fe_tspec_info(alt->type, &ti, fe_compiled_err(it)) ||
		    usdt_drift(it, u, alt, *slot - 1, &ti, strict))
			return -1;
		if (ti.is_string)
			snprintf(loc, sizeof(loc), "+0(%s)", a->fetch);
		if (fe_ftype_name(&ti.ftype, false, true, type, sizeof(type)) < 0)
			return fe_err(fe_compiled_err(it), alt->type->col, "'%s' cannot be read as one value",
				      alt->type->text);
	} else {
		spec_type(a, type, sizeof(type));
	}
	fe_buf_printf(args, "%s%s=%s:%s", args->len ? " " : "", alt->name, loc, type);
	return 0;
}

/* The fetch arguments of the prototype's slots, then '...''s; -1 with
 * it->err set. */
static int usdt_args(struct fe_compiled *it, const struct fe_usdt *u, struct fe_buf *args,
		     bool strict)
{
	const struct fe_proto *pr = it->proto;
	int i, slot = 0;

	for (i = 0; i < pr->nr_args; i++)
		if (usdt_arg(it, u, &pr->args[i], &slot, args, strict))
			return -1;
	for (; pr->ellipsis && slot < u->nr_args; slot++) {
		const struct fe_usdt_arg *a = &u->args[slot];
		char type[32], at[64];

		if (a->why) {
			fe_warn(&it->warnings, "'...' skips arg%d: its spec is %s%s", slot + 1,
				a->why, site_text(u, at, sizeof(at)));
			continue;
		}
		spec_type(a, type, sizeof(type));
		fe_buf_printf(args, "%sarg%d=%s:%s", args->len ? " " : "", slot + 1, a->fetch,
			      type);
	}
	fe_buf_add(args, "", 0);
	return args->failed ? fe_err(fe_compiled_err(it), 0, "out of memory") : 0;
}

/* The uprobe definition at the SDT probe, and what the commands ask of a
 * compiled item's probe; -1 with it->err set. */
static int usdt_definition(struct fe_compiled *it, const struct fe_compile_opts *opts,
			   const struct fe_usdt *u, struct fe_buf *args)
{
	const struct fe_proto *pr = it->proto;
	int ret;

	it->def.group = strdup(opts->group ? opts->group : FE_DEFAULT_GROUP);
	/* site k > 0 of the probe is NAME_k, as a line's further addresses,
	 * unless the binary has a probe NAME_k (usdt.h's event_nr) */
	if (it->event || opts->event)
		it->def.event = strdup(it->event ? it->event : opts->event);
	else if (!u->event_nr)
		it->def.event = strdup(u->name);
	else if (asprintf(&it->def.event, "%s_%d", u->name, u->event_nr) < 0)
		it->def.event = NULL;
	it->def.target = strdup(opts->binary);
	it->def.entry_args = fe_buf_take(args);
	it->def.uprobe = true;
	it->def.offset = u->offset;
	it->def.ref_ctr = u->ref_ctr;
	if (!it->def.group || !it->def.event || !it->def.target || !it->def.entry_args)
		return fe_err(fe_compiled_err(it), 0, "out of memory");
	/* a site's NAME_k can be longer than the kernel takes, as NAME can */
	if (fe_check_event_name(it->def.event, "event", pr->func_col, fe_compiled_err(it))) {
		struct fe_error *e = fe_compiled_err(it);

		if (!opts->event)
			snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
				 " (name the event with -n)");
		return -1;
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
		return fe_err(fe_compiled_err(it), 0, "out of memory");
	}
	it->probe = calloc(1, sizeof(*it->probe));
	if (!it->probe || !(it->probe->func = strdup(pr->func)) ||
	    !(it->probe->target = strdup(it->def.entry + strlen(it->def.group) +
					 strlen(it->def.event) + 4)) ||
	    !(it->probe->uprobe_file = strdup(opts->binary)))
		return fe_err(fe_compiled_err(it), 0, "out of memory");
	*strchrnul(it->probe->target, ' ') = 0;
	it->probe->uprobe = true;
	it->probe->uprobe_offset = u->offset;
	return 0;
}

/* The binary's notes, read and sorted at the first SDT probe; -1 with
 * the read's error (out of memory: the one error) in it->err. */
static int read_notes(struct fe_compiled *it, struct fe_compile_ctx *c)
{
	struct fe_usdt_notes *n = &c->usdt;

	if (!n->state) {
		n->state = -1;
		if (!fe_usdt_read(c->opts->binary, &n->v, &n->nr, &n->err)) {
			n->order = fe_usdt_order(n->v, n->nr);
			if (!n->order) {
				fe_err(&n->err, 0, "out of memory");
				return fe_err(fe_compiled_err(it), 0, "out of memory");
			}
			n->state = 1;
		}
	}
	if (n->state < 0) {
		*fe_compiled_err(it) = n->err;
		return -1;
	}
	return 0;
}

/* Site site (0-based, in note order) of PROVIDER:NAME, or NULL */
static const struct fe_usdt *find_note(const struct fe_usdt_notes *n, const char *provider,
				       const char *name, int site)
{
	int lo = 0, hi = n->nr;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const struct fe_usdt *u = &n->v[n->order[mid]];
		int d = strcmp(u->provider, provider);

		if (!d)
			d = strcmp(u->name, name);
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n->nr && !strcmp(n->v[n->order[lo]].provider, provider) &&
	    !strcmp(n->v[n->order[lo]].name, name) && site < n->v[n->order[lo]].nr_sites)
		return &n->v[n->order[lo + site]];
	return NULL;
}

/*
 * PROVIDER:NAME(ARGS) with -x BIN: the SDT probe's note gives the place
 * and the arguments.  A slot is 'TYPE NAME' (string: the text the
 * argument points to), 'NAME' (typed by the spec's size and sign) or
 * NULL; '...' is every argument left, arg1..argN.  The notes are read
 * once a compile (c->usdt): each probe of a glob looked up in them.
 */
int fe_compile_usdt(struct fe_compiled *it, struct fe_compile_ctx *c)
{
	const struct fe_compile_opts *opts = c->opts;
	const struct fe_proto *pr = it->proto;
	const struct fe_usdt *u;
	struct fe_buf args = { 0 };
	int ret = -1;

	if (read_notes(it, c))
		return -1;
	u = find_note(&c->usdt, pr->module, pr->func, it->has_site ? it->site.index : 0);
	if (u)
		it->site.off = u->offset;	/* for fe_compile_merge_sdt_errors */
	if (!u)
		no_probe(it, opts, c->usdt.v, c->usdt.nr);
	else if (pr->at != FE_AT_ENTRY)
		fe_err(fe_compiled_err(it), pr->at_col, "an SDT probe is one place: no line or offset");
	else if (it->ret_site.rtype)
		fe_err(fe_compiled_err(it), it->ret_site.rtype->col, "an SDT probe has no return value");
	else if (!usdt_args(it, u, &args, opts->strict) && !usdt_definition(it, opts, u, &args))
		ret = 0;
	/* -v says what typed the slots: the note, not debug info */
	if (!ret && opts->verbose) {
		it->probe->described = true;
		it->debug_info = strdup("its SDT note (.note.stapsdt)");
		if (!it->debug_info)
			ret = fe_err(fe_compiled_err(it), 0, "out of memory");
	}
	if (!ret && pr->filter)
		ret = fe_filter_translate(pr->filter, pr->filter_col, it->def.entry_args, NULL,
					  &it->def.filter, &it->def.filter_on_return,
					  &it->def.filter_on_call, fe_compiled_err(it));
	fe_buf_free(&args);
	return ret;
}

void fe_compile_usdt_free(struct fe_usdt_notes *notes)
{
	fe_usdt_free(notes->v, notes->nr);
	free(notes->order);
	memset(notes, 0, sizeof(*notes));
}

/* Item it made site k of the n of its SDT probe: -n NAME's NAME_k for
 * k > 0 (without -n, the note's event_nr names it).  -1 out of memory. */
static int make_site(struct fe_compiled *it, int k, int n, const struct fe_compile_opts *opts)
{
	it->has_site = true;
	it->site.kind = FE_SITE_SDT;
	it->site.index = k;
	it->site.count = n;
	if (k && opts->event && asprintf(&it->event, "%s_%d", opts->event, k) < 0) {
		it->event = NULL;
		return -1;
	}
	return 0;
}

int fe_compile_usdt_sites(struct fe_compiled *it, struct fe_compile_ctx *c)
{
	const struct fe_proto *pr = it->proto;
	const struct fe_usdt *u;

	if (it->failed || !pr || it->site.kind != FE_SITE_SDT || it->has_site || pr->is_glob ||
	    pr->at != FE_AT_ENTRY)
		return 0;
	if (read_notes(it, c))
		return 0;	/* compiling it says why */
	u = find_note(&c->usdt, pr->module, pr->func, 0);
	return u ? u->nr_sites : 0;
}

int fe_compile_usdt_site_items(struct fe_compiled *its, int n, const struct fe_compile_opts *opts)
{
	int k;

	for (k = 0; k < n; k++) {
		struct fe_compiled *c = &its[k];

		if (k) {
			c->file = its->file;
			c->line = its->line;
			c->glob = its->glob;
			c->text = strdup(its->text);
			c->proto = fe_proto_dup(its->proto);
			c->glob_name = its->glob_name ? strdup(its->glob_name) : NULL;
			c->site = its->site;
			if (!c->text || !c->proto || (its->glob_name && !c->glob_name))
				return -1;
		}
		if (make_site(c, k, n, opts))
			return -1;
	}
	/* a glob's stream runs once, after the last site of its first probe */
	its[n - 1].stream = its->stream;
	if (n > 1)
		its->stream = 0;
	return 0;
}

/*
 * Each item of an SDT probe with several notes becomes one item per note
 * (its sites), in note order, named NAME, NAME_1, ... as a line's
 * addresses are (DESIGN.md sections 8 and 11): each probes its note's
 * address, reads its own argument specs and sets its own semaphore.
 */
int fe_compile_expand_sdt(struct fe_compile_set *set, struct fe_compile_ctx *c)
{
	int i, n;

	for (i = 0; i < set->nr; i += n) {
		struct fe_compiled *it;

		n = fe_compile_usdt_sites(&set->items[i], c);
		if (n < 2) {
			n = 1;
			continue;
		}
		it = fe_compile_widen(set, i, n);
		if (!it || fe_compile_usdt_site_items(it, n, c->opts))
			return -1;
	}
	return 0;
}

/*
 * A glob's SDT probe is all its sites or none: one that fails at a site
 * fails at each, with that site's error, so the glob skips the name whole
 * (a command line's probe fails on its own: add takes all or nothing).
 */
void fe_compile_settle_sdt(struct fe_compile_set *set)
{
	int i = 0, end, k, bad;

	while (i < set->nr) {
		const struct fe_compiled *it = &set->items[i];

		end = i + 1;
		if (!it->glob || !it->has_site || it->site.kind != FE_SITE_SDT ||
		    it->site.index || i + it->site.count > set->nr) {
			i = end;
			continue;
		}
		end = i + it->site.count;
		for (bad = -1, k = i; k < end && bad < 0; k++)
			if (set->items[k].failed)
				bad = k;
		for (k = i; bad >= 0 && k < end; k++) {
			if (set->items[k].failed)
				continue;
			set->items[k].failed = true;
			if (fe_compiled_error(&set->items[bad])->msg[0])
				*fe_compiled_err(&set->items[k]) = *fe_compiled_error(&set->items[bad]);
			else	/* a glob's later error, dropped (not -v) */
				fe_err(fe_compiled_err(&set->items[k]), 0,
				       "it does not compile at its site %d of %d",
				       set->items[bad].site.index + 1, it->site.count);
		}
		i = end;
	}
}

/* Do its[j] and its[k] fail saying the same? */
static bool same_error(const struct fe_compiled *its, int j, int k)
{
	const struct fe_error *a = fe_compiled_error(&its[j]), *b = fe_compiled_error(&its[k]);

	return its[j].failed && its[k].failed && a->col == b->col && !strcmp(a->msg, b->msg);
}

/* The suffix of the sites of its (n) that fail saying what its[k] says
 * (same[j]), in buf: " (at each of its 3 sites)", " (at its site 2 of 3,
 * 0x1130)" or " (at its sites 1 and 3 of 3, 0x1130, 0x1150)"; none for
 * what every site says of itself (an unknown type).  had: one of them
 * said its site. */
static void sites_said(const struct fe_compiled *its, int n, int k, const bool *same, bool had,
		       struct fe_buf *buf)
{
	int j, m = 0, nr = 0;

	for (j = k; j < n; j++)
		m += same[j];
	if (m == n) {
		if (had)
			fe_buf_printf(buf, " (at each of its %d sites)", n);
		return;
	}
	for (j = k; j < n; j++)
		if (same[j])
			fe_buf_printf(buf, "%s%d", !nr++ ? m > 1 ? " (at its sites " : " (at its site " :
				      nr == m ? " and " : ", ", j + 1);
	fe_buf_printf(buf, " of %d", n);
	for (j = k; j < n; j++)
		if (same[j])
			fe_buf_printf(buf, ", 0x%lx", its[j].site.off);
	fe_buf_add(buf, ")", 1);
}

/* The index of site j's warning that says what site k's msg says of k
 * (head, site k's suffix, then tail), or -1; -2 out of memory. */
static int same_warning(const struct fe_compiled *its, int n, int j, const char *head,
			size_t head_len, const char *tail)
{
	char at[64], *want = NULL;
	int w;

	site_suffix(j, n, its[j].site.off, at, sizeof(at));
	if (asprintf(&want, "%.*s%s%s", (int)head_len, head, at, tail) < 0)
		return -2;
	for (w = 0; w < its[j].warnings.nr && strcmp(its[j].warnings.msgs[w], want); w++)
		;
	free(want);
	return w < its[j].warnings.nr ? w : -1;
}

static void drop_warning(struct fe_warnings *ws, int w)
{
	free(ws->msgs[w]);
	memmove(&ws->msgs[w], &ws->msgs[w + 1], (ws->nr - w - 1) * sizeof(*ws->msgs));
	ws->nr--;
}

/* Warning w of site k, said of the other sites of its (n) that compiled
 * too, said once on k with the sites it is said at, and dropped from
 * theirs; same, match: n each.  -1 out of memory. */
static int merge_warning(struct fe_compiled *its, int n, int k, int w, bool *same, int *match)
{
	char at[64], *msg = its[k].warnings.msgs[w], *p, *merged = NULL;
	struct fe_buf suffix = { 0 };
	int j, m = 1;

	site_suffix(k, n, its[k].site.off, at, sizeof(at));
	p = strstr(msg, at);
	if (!p)
		return 0;
	for (j = 0; j < n; j++) {
		same[j] = j == k;
		if (j <= k || its[j].failed)
			continue;
		match[j] = same_warning(its, n, j, msg, p - msg, p + strlen(at));
		if (match[j] == -2)
			return -1;
		same[j] = match[j] >= 0;
		m += same[j];
	}
	if (m == 1)
		return 0;
	sites_said(its, n, k, same, true, &suffix);
	fe_buf_add(&suffix, "", 0);
	if (suffix.failed || asprintf(&merged, "%.*s%s%s", (int)(p - msg), msg, suffix.s,
				      p + strlen(at)) < 0) {
		fe_buf_free(&suffix);
		return -1;
	}
	fe_buf_free(&suffix);
	free(msg);
	its[k].warnings.msgs[w] = merged;
	for (j = k + 1; j < n; j++)
		if (same[j])
			drop_warning(&its[j].warnings, match[j]);
	return 0;
}

/* The warnings said at several of the sites of its (n) that compiled:
 * each said once, on the first of them; -1 out of memory. */
static int merge_warnings(struct fe_compiled *its, int n)
{
	bool *same = calloc(n, sizeof(*same));
	int *match = calloc(n, sizeof(*match));
	int k, w, ret = -1;

	if (!same || !match)
		goto out;
	for (k = 0; k < n; k++)
		for (w = 0; !its[k].failed && w < its[k].warnings.nr; w++)
			if (merge_warning(its, n, k, w, same, match))
				goto out;
	ret = 0;
out:
	free(same);
	free(match);
	return ret;
}

/* Each error and warning of the sites of its (n) said once, with the
 * sites it is said at (fe_compile_merge_sdt_errors); -1 out of memory. */
static int merge_sites(struct fe_compiled *its, int n)
{
	bool *had = calloc(n, sizeof(*had)), *done = calloc(n, sizeof(*done));
	bool *same = calloc(n, sizeof(*same));
	int j, k, ret = -1;

	if (!had || !done || !same)
		goto out;
	/* what each says, without the site it says it of */
	for (k = 0; k < n; k++) {
		struct fe_error *e;
		size_t len, sl;
		char at[64];

		if (!its[k].failed)
			continue;
		e = fe_compiled_err(&its[k]);
		len = strlen(e->msg);
		sl = strlen(site_suffix(k, n, its[k].site.off, at, sizeof(at)));
		if (len > sl && !strcmp(e->msg + len - sl, at)) {
			e->msg[len - sl] = 0;
			had[k] = true;
		}
	}
	for (k = 0; k < n; k++) {
		struct fe_buf suffix = { 0 };
		bool any = false;

		if (!its[k].failed || done[k])
			continue;
		for (j = k; j < n; j++) {
			same[j] = !done[j] && same_error(its, j, k);
			any |= same[j] && had[j];
		}
		sites_said(its, n, k, same, any, &suffix);
		fe_buf_add(&suffix, "", 0);
		if (suffix.failed)
			goto out;
		for (j = k; j < n; j++) {
			struct fe_error *e;

			if (!same[j])
				continue;
			e = fe_compiled_err(&its[j]);
			snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg), "%s",
				 suffix.s ? suffix.s : "");
			done[j] = true;
		}
		fe_buf_free(&suffix);
	}
	ret = merge_warnings(its, n);
out:
	free(had);
	free(done);
	free(same);
	return ret;
}

/*
 * A command line's SDT probe of several sites fails at each with its own
 * error: one error said at several sites is said once, naming them (each
 * of them, or which), so the commands print it once; the errors of
 * different sites are said apart.  A warning said at several of the
 * sites that compiled is kept on the first, naming them.  A glob's
 * errors are fe_compile_settle_sdt's.  -1 out of memory.
 */
int fe_compile_merge_sdt_errors(struct fe_compile_set *set)
{
	int i, end;

	for (i = 0; i < set->nr; i = end) {
		const struct fe_compiled *it = &set->items[i];

		end = i + 1;
		if (it->glob || !it->has_site || it->site.kind != FE_SITE_SDT || it->site.index ||
		    it->site.count < 2 || i + it->site.count > set->nr)
			continue;
		end = i + it->site.count;
		if (merge_sites(&set->items[i], it->site.count))
			return -1;
	}
	return 0;
}
