// SPDX-License-Identifier: GPL-2.0
/*
 * Enumerators of an event's fields read again from debug info, when add's
 * side file is gone (value_derive.h).  The definition says where each
 * field is read from; this finds which parameter, member path or return
 * value that is, compiles it again, and trusts the result only where the
 * compiled fetch is the same, so a guess never names a value wrongly.
 * The events of one debug info are compiled together, each distinct
 * prototype once, in three runs (a compile reads kallsyms whole).
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

/*
 * The compiles of many events at once: each distinct text compiled once,
 * all in one set.  A compile reads kallsyms whole (twice: the symbols,
 * then the aliases' addresses), so an event at a time made record's
 * start cost a read of kallsyms per field (357 kprobes: a minute of CPU
 * in the 6.1 VM, docs/speed.md).
 */
struct req {
	char *text;
	const struct target *t;	/* what its item probes */
	int pos;		/* its line in the set, 1-based */
};

struct batch {
	struct req *r;
	int n;
	bool ret;		/* want_return */
	bool ran;
	struct fe_compile_set set;
	const struct fe_compiled **item;	/* by line: the item of that text */
	bool *present;		/* by line: an item (failed or not) has it */
};

/* A request; its index, or -1 out of memory. */
static int batch_add(struct batch *b, const char *text, const struct target *t)
{
	struct req *r = fe_grow(&b->r, &b->n, sizeof(*r));

	if (!r)
		return -1;
	r->text = strdup(text);
	r->t = t;
	if (!r->text) {
		b->n--;
		return -1;
	}
	return b->n - 1;
}

static int by_text(const void *x, const void *y, void *arg)
{
	const struct req *r = arg, *a = &r[*(const int *)x], *b = &r[*(const int *)y];
	int c = strcmp(a->text, b->text);

	if (c)
		return c;
	return (a->t->offset > b->t->offset) - (a->t->offset < b->t->offset);
}

static bool probes(const struct fe_compiled *it, const struct target *t)
{
	return t->binary ? it->def.uprobe && it->def.offset == t->offset :
	       !it->def.uprobe && it->def.target && !strcmp(it->def.target, t->symbol);
}

/* Each distinct text (and target) once in the set, compiled in one run;
 * -1 out of memory (a run that fails leaves each to compile alone). */
static int batch_run(struct batch *b, struct fe_dbg *dbg, const char *binary)
{
	struct fe_compile_opts opts = { 0 };
	struct fe_error err = { 0 };
	const struct target **of;
	int *order, i, pos = 0;

	if (!b->n)
		return 0;
	order = malloc(b->n * sizeof(*order));
	of = calloc(b->n + 1, sizeof(*of));
	b->item = calloc(b->n + 1, sizeof(*b->item));
	b->present = calloc(b->n + 1, sizeof(*b->present));
	if (!order || !of || !b->item || !b->present) {
		free(order);
		free(of);
		return -1;
	}
	for (i = 0; i < b->n; i++)
		order[i] = i;
	qsort_r(order, b->n, sizeof(*order), by_text, b->r);
	for (i = 0; i < b->n; i++) {
		struct req *r = &b->r[order[i]];

		if (i && !by_text(&order[i - 1], &order[i], b->r)) {
			r->pos = b->r[order[i - 1]].pos;
			continue;
		}
		r->pos = ++pos;
		of[pos] = r->t;
		if (fe_compile_add_text(&b->set, r->text, pos)) {
			free(order);
			free(of);
			return -1;
		}
	}
	opts.binary = binary;
	opts.open_dbg = dbg;
	opts.want_return = b->ret;
	b->ran = fe_compile_run(&b->set, &opts, &err) >= 0;
	for (i = 0; b->ran && i < b->set.nr; i++) {
		const struct fe_compiled *it = &b->set.items[i];

		if (it->line < 1 || it->line > pos)
			continue;
		b->present[it->line] = true;
		if (!b->item[it->line] && !it->failed && !it->has_site && probes(it, of[it->line]))
			b->item[it->line] = it;
	}
	free(order);
	free(of);
	return 0;
}

/* The item of request k; one the batch lost (two names of one function
 * merged into one item) is compiled alone, in spare. */
static const struct fe_compiled *batch_item(struct batch *b, int k, struct fe_dbg *dbg,
					    struct fe_compile_set *spare)
{
	const struct req *r = &b->r[k];

	if (b->ran && b->present[r->pos])
		return b->item[r->pos];
	return compiled(spare, dbg, r->t, r->text, b->ret);
}

static void batch_free(struct batch *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		free(b->r[i].text);
	free(b->r);
	free(b->item);
	free(b->present);
	fe_compile_set_free(&b->set);
	memset(b, 0, sizeof(*b));
}

/* One event whose values are derived. */
struct job {
	struct fe_event_info *e;
	struct target t;
	char func[256];
	char *binary;
	struct fe_dbg *dbg;	/* NULL: none */
	struct arg *args, *params;
	int nargs, nparams;
	struct fe_dfunc fn;
	int every;		/* its FUNC(...) request */
	bool found;		/* debug info has its function */
	struct fe_buf lines;
};

/* A field's compile: its job, field, and request in the entries' (0) or
 * the returns' (1) batch. */
struct want {
	int job, arg, batch, req;
};

/* Job i's integer fields, each a request of b[0] (by its name: FUNC(path))
 * or b[1] (a return: FUNC() typed); -1 out of memory. */
static int want_fields(struct job *jobs, int i, struct fe_dbg *dbg, struct batch *b,
		       struct want **wants, int *nr_wants)
{
	struct job *j = &jobs[i];
	char text[1024];
	int k;

	for (k = 0; k < j->nargs; k++) {
		const struct arg *a = &j->args[k];
		long offs[MAX_DEPTH];
		char base[64], *path = NULL;
		int nro = 0, p, which = 0;
		struct want *w;

		if (!integer_type(a->type) || split_fetch(a->fetch, offs, &nro, base, sizeof(base)))
			continue;
		if (!strcmp(base, "$retval")) {
			if (!(j->e->kind == FE_KIND_KRETPROBE || j->e->kind == FE_KIND_URETPROBE ||
			      j->e->kind == FE_KIND_FEXIT) || nro)
				continue;
			/* FUNC() with its return typed from debug info */
			snprintf(text, sizeof(text), "%s()", j->func);
			which = 1;
		} else {
			for (p = 0; p < j->nparams && !path; p++)
				if (!strcmp(j->params[p].fetch, base) &&
				    strcmp(j->params[p].name, "__caller"))
					path = nro ? member_path(dbg, &j->fn, j->params[p].name, offs,
								 nro) :
					       strdup(j->params[p].name);
			if (!path)
				continue;
			snprintf(text, sizeof(text), "%s(%s)", j->func, path);
			free(path);
		}
		w = fe_grow(wants, nr_wants, sizeof(*w));
		if (!w)
			return -1;
		w->job = i;
		w->arg = k;
		w->batch = which;
		w->req = batch_add(&b[which], text, &j->t);
		if (w->req < 0)
			return -1;
	}
	return 0;
}

/*
 * Where each field of the jobs of dbg reads from (FUNC(...)), then each
 * integer field compiled again by its name: FUNC(path), or FUNC() typed
 * for a return.  -1 out of memory.
 */
static int derive_group(struct job *jobs, int nr, struct fe_dbg *dbg)
{
	struct batch every = { 0 }, b[2] = { { 0 }, { .ret = true } };
	struct want *wants = NULL;
	const char *binary = NULL;
	int nr_wants = 0, i, ret = -1;
	char text[1024];

	for (i = 0; i < nr; i++) {
		if (jobs[i].dbg != dbg)
			continue;
		binary = jobs[i].t.binary;
		snprintf(text, sizeof(text), "%s(...)", jobs[i].t.func);
		jobs[i].every = batch_add(&every, text, &jobs[i].t);
		if (jobs[i].every < 0)
			goto out;
	}
	if (batch_run(&every, dbg, binary))
		goto out;
	for (i = 0; i < nr; i++) {
		struct job *j = &jobs[i];
		struct fe_compile_set spare = { 0 };
		const struct fe_compiled *it;
		struct fe_error err = { 0 };

		if (j->dbg != dbg)
			continue;
		it = batch_item(&every, j->every, dbg, &spare);
		if (!it || parse_args(it->def.entry_args, &j->params, &j->nparams) ||
		    parse_args(j->e->args, &j->args, &j->nargs)) {
			fe_compile_set_free(&spare);
			continue;
		}
		fe_compile_set_free(&spare);
		j->found = true;
		if (fe_dbg_func(dbg, strchr(j->func, ':') ? strchr(j->func, ':') + 1 : j->func,
				&j->fn, &err) != 1)
			memset(&j->fn, 0, sizeof(j->fn));
		if (want_fields(jobs, i, dbg, b, &wants, &nr_wants))
			goto out;
	}
	if (batch_run(&b[0], dbg, binary) || batch_run(&b[1], dbg, binary))
		goto out;
	/* in each event's order of fields, as one at a time gave them */
	for (i = 0; i < nr_wants; i++) {
		const struct want *w = &wants[i];
		struct job *j = &jobs[w->job];
		struct fe_compile_set spare = { 0 };
		const struct fe_compiled *it = batch_item(&b[w->batch], w->req, dbg, &spare);

		if (it && w->batch && it->def.ret_args)
			take_enum(&j->lines, it->def.ret_args, it->def.ret_values, &j->args[w->arg],
				  j->args[w->arg].name);
		else if (it && !w->batch)
			take_enum(&j->lines, it->def.entry_args, it->def.entry_values,
				  &j->args[w->arg], j->args[w->arg].name);
		fe_compile_set_free(&spare);
	}
	ret = 0;
out:
	free(wants);
	batch_free(&every);
	batch_free(&b[0]);
	batch_free(&b[1]);
	return ret;
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

/* The debug info of a uprobe's binary, opened once for all its events. */
struct opened {
	char *binary;
	struct fe_dbg *dbg;
};

static struct fe_dbg *binary_dbg(struct opened **open, int *nr, const char *binary)
{
	struct fe_error err = { 0 };
	struct opened *o;
	bool none;
	int i;

	for (i = 0; i < *nr; i++)	/* a group probes a binary or a few */
		if (!strcmp((*open)[i].binary, binary))
			return (*open)[i].dbg;
	o = fe_grow(open, nr, sizeof(*o));
	if (!o)
		return NULL;
	o->binary = strdup(binary);
	o->dbg = o->binary ? fe_dbg_open_dwarf_if_any(binary, &none, &err) : NULL;
	return o->dbg;
}

/* Each event's lines added to its values, and what no debug info said
 * warned of; -1 out of memory. */
static int settle(struct job *jobs, int nr, struct fe_warnings *warn)
{
	struct fe_buf unsaid = { 0 };
	int i, nr_unsaid = 0, ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct job *j = &jobs[i];
		struct fe_event_info *e = j->e;
		struct fe_buf all = { 0 };

		if (!j->found && warn && has_integers(e->args))
			fe_buf_printf(&unsaid, "%s%s/%s", nr_unsaid++ ? ", " : "", e->group,
				      e->event);
		if (j->lines.failed) {
			ret = -1;
			break;
		}
		if (!j->lines.len)
			continue;
		if (e->values)
			fe_buf_printf(&all, "%s", e->values);
		fe_buf_printf(&all, "%s", j->lines.s);
		if (all.failed) {
			fe_buf_free(&all);
			ret = -1;
			break;
		}
		free(e->values);
		e->values = fe_buf_take(&all);
	}
	if (!ret && nr_unsaid && unsaid.s)
		fe_warn(warn, "how the fields of %s are shown was not kept beside %s "
			"(/run/fevent/GROUP), and no debug info of what %s says "
			"it: enumerators show as numbers", unsaid.s,
			nr_unsaid > 1 ? "them" : "it", nr_unsaid > 1 ? "they probe" : "it probes");
	fe_buf_free(&unsaid);
	return ret;
}

int fe_values_derive(struct fe_event_info *ev, int n, const bool *chosen,
		     struct fe_warnings *warn)
{
	struct fe_dbg *kernel = NULL;
	bool kernel_opened = false;
	struct opened *open = NULL;
	struct job *jobs = NULL;
	int nr = 0, nr_open = 0, i, ret = -1;

	for (i = 0; i < n; i++) {
		struct fe_event_info *e = &ev[i];
		char binary[4096];
		struct job *j;

		if ((chosen && !chosen[i]) || e->values_kept)
			continue;
		e->values_kept = true;	/* asked once */
		j = fe_grow(&jobs, &nr, sizeof(*j));
		if (!j)
			goto out;
		memset(j, 0, sizeof(*j));
		j->e = e;
		if (!target_of(e, &j->t, j->func, sizeof(j->func), binary, sizeof(binary))) {
			nr--;
			continue;
		}
		if (j->t.binary) {
			j->binary = strdup(binary);
			if (!j->binary)
				goto out;
			j->dbg = binary_dbg(&open, &nr_open, binary);
		} else {
			if (!kernel_opened) {
				struct fe_compile_opts opts = { 0 };
				struct fe_error err = { 0 };

				kernel_opened = true;
				if (fe_open_debug_info(&opts, &kernel, &err))
					kernel = NULL;
			}
			j->dbg = kernel;
		}
	}
	/* jobs grew: what each target points into is settled now */
	for (i = 0; i < nr; i++) {
		jobs[i].t.func = jobs[i].func;
		if (jobs[i].t.binary)
			jobs[i].t.binary = jobs[i].binary;
	}
	/* the events of each debug info together */
	for (i = 0; i < nr; i++) {
		int k;

		for (k = 0; k < i && jobs[k].dbg != jobs[i].dbg; k++)
			;
		if (k == i && jobs[i].dbg && derive_group(jobs, nr, jobs[i].dbg))
			goto out;
	}
	ret = settle(jobs, nr, warn);
out:
	for (i = 0; i < nr; i++) {
		fe_dfunc_clear(&jobs[i].fn);
		free(jobs[i].args);
		free(jobs[i].params);
		free(jobs[i].binary);
		fe_buf_free(&jobs[i].lines);
	}
	free(jobs);
	for (i = 0; i < nr_open; i++) {
		fe_dbg_close(open[i].dbg);
		free(open[i].binary);
	}
	free(open);
	fe_dbg_close(kernel);
	return ret;
}
