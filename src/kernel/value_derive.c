// SPDX-License-Identifier: GPL-2.0
/*
 * Enumerators of an event's fields read again from debug info, when add's
 * side file is gone (value_derive.h).  The definition says where each
 * field is read from; this finds which parameter, member path or return
 * value that is, compiles it again, and trusts the result only where the
 * compiled fetch is the same, so a guess never names a value wrongly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf_or_dwarf.h"
#include "compile.h"
#include "fe_util.h"
#include "value_derive.h"

#define MAX_DEPTH	8	/* dereferences followed back */

/* One "NAME=FETCH:TYPE" of a definition's arguments. */
struct arg {
	char name[64];
	char fetch[256];
	char type[32];
};

static const char *const arg_regs[6] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

/* "$arg2" -> "%si": fprobes and return probes name arguments so; the
 * compiler here writes registers */
static void normalize(const char *fetch, char *out, size_t size)
{
	const char *a = strstr(fetch, "$arg");

	if (a && a[4] >= '1' && a[4] <= '6' && (a[5] == ')' || !a[5]))
		snprintf(out, size, "%.*s%s%s", (int)(a - fetch), fetch, arg_regs[a[4] - '1'],
			 a + 5);
	else
		snprintf(out, size, "%s", fetch);
}

static int parse_args(const char *args, struct arg **out, int *n)
{
	const char *p = args;

	*out = NULL;
	*n = 0;
	while (p && *p) {
		size_t len = strcspn(p, " ");
		const char *eq = memchr(p, '=', len);
		const char *colon = eq ? memrchr(eq, ':', p + len - eq) : NULL;

		if (eq && colon && eq - p < 64 && colon - eq - 1 < 256 && p + len - colon - 1 < 32) {
			struct arg *a = fe_grow(out, n, sizeof(*a));
			char fetch[256];

			if (!a)
				return -1;
			snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - p), p);
			snprintf(fetch, sizeof(fetch), "%.*s", (int)(colon - eq - 1), eq + 1);
			normalize(fetch, a->fetch, sizeof(a->fetch));
			snprintf(a->type, sizeof(a->type), "%.*s", (int)(p + len - colon - 1),
				 colon + 1);
		}
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

/* An integer read, the only kind enumerators name: u32, s8, b3@0/32. */
static bool integer_type(const char *t)
{
	return (t[0] == 'u' || t[0] == 's' || t[0] == 'b') && t[1] >= '0' && t[1] <= '9' &&
	       !strchr(t, '[');
}

/*
 * "+28(+8(%si))" -> offsets {8, 28} (innermost first) and base "%si";
 * -1 for what is not dereferences of a base.
 */
static int split_fetch(const char *f, long *offs, int *nr, char *base, size_t size)
{
	int depth = 0, i;
	size_t len = strlen(f);

	while (*f == '+' || *f == '-') {
		char *end;
		long o = strtol(f, &end, 10);

		if (end == f || *end != '(' || depth == MAX_DEPTH)
			return -1;
		offs[depth++] = o;
		f = end + 1;
	}
	len = strlen(f);
	if (len < (size_t)depth || len - depth >= size)
		return -1;
	for (i = 0; i < depth; i++)
		if (f[len - 1 - i] != ')')
			return -1;
	snprintf(base, size, "%.*s", (int)(len - depth), f);
	/* outermost first as written: innermost first for the walk */
	for (i = 0; i < depth / 2; i++) {
		long t = offs[i];

		offs[i] = offs[depth - 1 - i];
		offs[depth - 1 - i] = t;
	}
	*nr = depth;
	return 0;
}

struct member_list {
	struct {
		char *name;
		fe_tid type;
		unsigned long bit_off;
	} m[64];
	int n;
};

static void collect(const char *name, fe_tid type, unsigned long bit_off, void *arg)
{
	struct member_list *l = arg;

	if (l->n < 64) {
		l->m[l->n].name = name ? strdup(name) : NULL;
		l->m[l->n].type = type;
		l->m[l->n].bit_off = bit_off;
		l->n++;
	}
}

static void list_free(struct member_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->m[i].name);
	l->n = 0;
}

/*
 * The member of composite at byte off, appended to path ("in.a" for one
 * in an embedded struct; anonymous ones, which names look through, add
 * nothing); last: the read's own, an enum preferred among a union's; else
 * a pointer, to follow.  *type: its type.  -1: none.
 */
static int member_at(struct fe_dbg *dbg, fe_tid composite, long off, bool last,
		     struct fe_buf *path, fe_tid *type, int budget)
{
	struct member_list l = { .n = 0 };
	int i, pick = -1, inside = -1;

	if (budget <= 0 || off < 0)
		return -1;
	fe_dbg_each_member(dbg, composite, collect, &l);
	for (i = 0; i < l.n; i++) {
		struct fe_tdesc d;
		unsigned long start = l.m[i].bit_off;

		if (start % 8 || fe_dbg_describe(dbg, l.m[i].type, &d))
			continue;
		if ((long)(start / 8) == off && ((last && d.kind != FE_TK_STRUCT &&
						     d.kind != FE_TK_UNION && d.kind != FE_TK_ARRAY) ||
						    (!last && d.kind == FE_TK_PTR))) {
			if (pick < 0 || (last && d.kind == FE_TK_ENUM))
				pick = i;
		} else if ((d.kind == FE_TK_STRUCT || d.kind == FE_TK_UNION) &&
			   (long)(start / 8) <= off && off < (long)(start / 8 + d.size) && inside < 0) {
			inside = i;
		}
	}
	if (pick >= 0) {
		if (!l.m[pick].name) {
			list_free(&l);
			return -1;
		}
		fe_buf_printf(path, "%s", l.m[pick].name);
		*type = l.m[pick].type;
		list_free(&l);
		return 0;
	}
	if (inside >= 0) {
		fe_tid t = l.m[inside].type;
		long at = off - (long)(l.m[inside].bit_off / 8);
		struct fe_tdesc d;
		int ret;

		if (l.m[inside].name)
			fe_buf_printf(path, "%s.", l.m[inside].name);
		if (fe_dbg_describe(dbg, t, &d)) {
			list_free(&l);
			return -1;
		}
		list_free(&l);
		ret = member_at(dbg, d.id, at, last, path, type, budget - 1);
		return ret;
	}
	list_free(&l);
	return -1;
}

/* param, then "->member" for each dereference: the path a prototype
 * names the read by, or NULL */
static char *member_path(struct fe_dbg *dbg, const struct fe_dfunc *fn, const char *param,
			 const long *offs, int nr)
{
	struct fe_buf path = { 0 };
	fe_tid cur = 0;
	int i;

	for (i = 0; i < fn->nr_params && !cur; i++)
		if (fn->params[i].name && !strcmp(fn->params[i].name, param))
			cur = fn->params[i].type;
	if (!cur)
		return NULL;
	fe_buf_printf(&path, "%s", param);
	for (i = 0; i < nr; i++) {
		struct fe_tdesc d, t;

		if (fe_dbg_describe(dbg, cur, &d) || d.kind != FE_TK_PTR ||
		    fe_dbg_describe(dbg, d.target, &t) ||
		    (t.kind != FE_TK_STRUCT && t.kind != FE_TK_UNION)) {
			fe_buf_free(&path);
			return NULL;
		}
		fe_buf_printf(&path, "->");
		if (member_at(dbg, t.id, offs[i], i == nr - 1, &path, &cur, MAX_DEPTH)) {
			fe_buf_free(&path);
			return NULL;
		}
	}
	return fe_buf_take(&path);
}

struct target {
	const char *func;	/* as a prototype names it */
	const char *binary;	/* a uprobe's, or NULL */
	unsigned long long offset;	/* a uprobe's file offset */
	const char *symbol;	/* a kprobe's target */
};

/* The compiled item of text that probes what t names, or NULL. */
static const struct fe_compiled *compiled(struct fe_compile_set *set, struct fe_dbg *dbg,
					  const struct target *t, const char *text, bool ret)
{
	struct fe_compile_opts opts = { 0 };
	struct fe_error err = { 0 };
	int i;

	opts.binary = t->binary;
	opts.open_dbg = dbg;
	opts.want_return = ret;
	if (fe_compile_add_text(set, text, 1) || fe_compile_run(set, &opts, &err) < 0)
		return NULL;
	for (i = 0; i < set->nr; i++) {
		const struct fe_compiled *it = &set->items[i];

		if (it->failed || it->has_site)
			continue;
		if (t->binary ? it->def.uprobe && it->def.offset == t->offset :
		    !it->def.uprobe && it->def.target && !strcmp(it->def.target, t->symbol))
			return it;
	}
	return NULL;
}

/* The enum lines of the one field of args[] (not __caller) in values,
 * renamed to name. */
static void take_enum(struct fe_buf *out, const char *args, const char *values,
		      const struct arg *want, const char *name)
{
	struct arg *got = NULL;
	const struct arg *a = NULL;
	const char *line;
	int n = 0, i;

	if (parse_args(args, &got, &n)) {
		free(got);
		return;
	}
	for (i = 0; i < n; i++)
		if (strcmp(got[i].name, "__caller") && !strcmp(got[i].fetch, want->fetch) &&
		    !strcmp(got[i].type, want->type))
			a = &got[i];
	for (line = values; a && line && *line;) {
		size_t len = strcspn(line, "\n"), nl = strlen(a->name);

		if (len > nl + 6 && !strncmp(line, a->name, nl) && !strncmp(line + nl, " enum ", 6))
			fe_buf_printf(out, "%s%.*s\n", name, (int)(len - nl), line + nl);
		line += len + (line[len] == '\n');
	}
	free(got);
}

/* The enum lines of ev's fields that debug info gives; false when it has
 * none of the function. */
static bool derive_one(struct fe_dbg *dbg, const struct fe_event_info *ev, const struct target *t,
		       struct fe_buf *out)
{
	bool is_ret = ev->kind == FE_KIND_KRETPROBE || ev->kind == FE_KIND_URETPROBE ||
		      ev->kind == FE_KIND_FEXIT;
	struct fe_compile_set all = { 0 };
	const struct fe_compiled *every;
	struct arg *args = NULL, *params = NULL;
	int nargs = 0, nparams = 0, i;
	struct fe_dfunc fn = { 0 };
	struct fe_error err = { 0 };
	char text[1024];
	bool found = false;

	/* FUNC(...): where each parameter is read from at the entry */
	snprintf(text, sizeof(text), "%s(...)", t->func);
	every = compiled(&all, dbg, t, text, false);
	if (!every || parse_args(every->def.entry_args, &params, &nparams) ||
	    parse_args(ev->args, &args, &nargs))
		goto out;
	found = true;
	if (fe_dbg_func(dbg, strchr(t->func, ':') ? strchr(t->func, ':') + 1 : t->func, &fn,
			&err) != 1)
		memset(&fn, 0, sizeof(fn));
	for (i = 0; i < nargs; i++) {
		const struct arg *a = &args[i];
		struct fe_compile_set one = { 0 };
		const struct fe_compiled *it;
		long offs[MAX_DEPTH];
		char base[64], *path = NULL;
		int nr = 0, k;

		if (!integer_type(a->type) || split_fetch(a->fetch, offs, &nr, base, sizeof(base)))
			continue;
		if (!strcmp(base, "$retval")) {
			if (!is_ret || nr)
				continue;
			/* FUNC() with its return typed from debug info */
			snprintf(text, sizeof(text), "%s()", t->func);
			it = compiled(&one, dbg, t, text, true);
			if (it && it->def.ret_args)
				take_enum(out, it->def.ret_args, it->def.ret_values, a, a->name);
			fe_compile_set_free(&one);
			continue;
		}
		for (k = 0; k < nparams && !path; k++)
			if (!strcmp(params[k].fetch, base) && strcmp(params[k].name, "__caller"))
				path = nr ? member_path(dbg, &fn, params[k].name, offs, nr) :
				       strdup(params[k].name);
		if (!path)
			continue;
		snprintf(text, sizeof(text), "%s(%s)", t->func, path);
		free(path);
		it = compiled(&one, dbg, t, text, false);
		if (it)
			take_enum(out, it->def.entry_args, it->def.entry_values, a, a->name);
		fe_compile_set_free(&one);
	}
out:
	fe_dfunc_clear(&fn);
	fe_compile_set_free(&all);
	free(args);
	free(params);
	return found;
}

/* Does the definition read an integer, which an enumerator may name? */
static bool has_integers(const char *args)
{
	struct arg *a = NULL;
	int n = 0, i;
	bool any = false;

	if (parse_args(args, &a, &n)) {
		free(a);
		return true;
	}
	for (i = 0; i < n && !any; i++)
		any = integer_type(a[i].type);
	free(a);
	return any;
}

/* What ev probes, as a prototype names it; false: not a function's
 * entry or return (a line, an offset, a tracepoint). */
static bool target_of(const struct fe_event_info *ev, struct target *t, char *func, size_t fsize,
		      char *binary, size_t bsize)
{
	const char *colon;
	size_t l;

	memset(t, 0, sizeof(*t));
	switch (ev->kind) {
	case FE_KIND_KPROBE:
	case FE_KIND_KRETPROBE:
	case FE_KIND_FPROBE:
	case FE_KIND_FEXIT:
		if (!ev->target || strchr(ev->target, '+') || strchr(ev->target, '/'))
			return false;
		snprintf(func, fsize, "%s", ev->target);
		t->symbol = ev->target;
		break;
	case FE_KIND_UPROBE:
	case FE_KIND_URETPROBE:
		colon = ev->target ? strrchr(ev->target, ':') : NULL;
		if (!colon || (size_t)(colon - ev->target) >= bsize)
			return false;
		snprintf(binary, bsize, "%.*s", (int)(colon - ev->target), ev->target);
		t->offset = strtoull(colon + 1, NULL, 0);
		t->binary = binary;
		/* a uprobe's event is named after its function */
		snprintf(func, fsize, "%s", ev->event);
		l = strlen(func);
		if (l > 8 && !strcmp(func + l - 8, "__return"))
			func[l - 8] = 0;
		break;
	default:
		return false;
	}
	t->func = func;
	return true;
}

int fe_values_derive(struct fe_event_info *ev, int n, const bool *chosen,
		     struct fe_warnings *warn)
{
	struct fe_dbg *kernel = NULL;
	bool kernel_opened = false;
	struct fe_buf unsaid = { 0 };
	int i, nr_unsaid = 0;

	for (i = 0; i < n; i++) {
		struct fe_event_info *e = &ev[i];
		struct fe_buf lines = { 0 };
		struct target t;
		char func[256], binary[4096];
		struct fe_dbg *dbg = NULL;
		struct fe_error err = { 0 };
		bool said;

		if ((chosen && !chosen[i]) || e->values_kept)
			continue;
		e->values_kept = true;	/* asked once */
		if (!target_of(e, &t, func, sizeof(func), binary, sizeof(binary)))
			continue;
		if (t.binary) {
			bool none;

			dbg = fe_dbg_open_dwarf_if_any(t.binary, &none, &err);
		} else {
			if (!kernel_opened) {
				struct fe_compile_opts opts = { 0 };

				kernel_opened = true;
				if (fe_open_debug_info(&opts, &kernel, &err))
					kernel = NULL;
			}
			dbg = kernel;
		}
		said = dbg && derive_one(dbg, e, &t, &lines);
		if (!said && warn && has_integers(e->args))
			fe_buf_printf(&unsaid, "%s%s/%s", nr_unsaid++ ? ", " : "", e->group,
				      e->event);
		if (t.binary && dbg)
			fe_dbg_close(dbg);
		if (lines.failed) {
			fe_buf_free(&lines);
			fe_buf_free(&unsaid);
			fe_dbg_close(kernel);
			return -1;
		}
		if (lines.len) {
			struct fe_buf all = { 0 };

			if (e->values)
				fe_buf_printf(&all, "%s", e->values);
			fe_buf_printf(&all, "%s", lines.s);
			if (all.failed) {
				fe_buf_free(&all);
				fe_buf_free(&lines);
				fe_buf_free(&unsaid);
				fe_dbg_close(kernel);
				return -1;
			}
			free(e->values);
			e->values = fe_buf_take(&all);
		}
		fe_buf_free(&lines);
	}
	if (kernel)
		fe_dbg_close(kernel);
	if (nr_unsaid && unsaid.s)
		fe_warn(warn, "how the fields of %s are shown was not kept beside %s "
			"(/run/fevent/GROUP/EVENT.values), and no debug info of what %s says "
			"it: enumerators show as numbers", unsaid.s,
			nr_unsaid > 1 ? "them" : "it", nr_unsaid > 1 ? "they probe" : "it probes");
	fe_buf_free(&unsaid);
	return 0;
}
