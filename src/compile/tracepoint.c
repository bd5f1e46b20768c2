// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint probes (DESIGN.md section 14): a tracepoint's raw arguments in
 * the prototype language, compiled into a "t:" dynamic event.
 *
 * BTF describes a tracepoint NAME as the typedef btf_trace_NAME, a pointer
 * to the prototype of its probes: (void *__data, ARGS...).  The resolver
 * sees the tracepoint as a function with ARGS for parameters (a view of
 * the debug info whose one function is the tracepoint), so every path,
 * type and filter of the language works unchanged; the places are then
 * the kernel's $argN, which on a "t:" event count the tracepoint's
 * arguments from 1, after __data (seen on 6.12 and 7.2).  Members are
 * read at offsets fevent computes from BTF (+OFF($argN)), the same on
 * every kernel, instead of the kernel's own BTF names.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbg_backend.h"
#include "fe_util.h"
#include "fetch_map_x86_64.h"
#include "kernel_caps.h"
#include "ksyms.h"
#include "tracepoint.h"

/* ---- the view: the tracepoint as the debug info's one function ---- */

struct tp_view {
	struct fe_dbg d;	/* first: fe_dbg_close frees the view */
	struct fe_dbg *base;
	char *name;
};

static struct fe_dbg *base_of(struct fe_dbg *dbg)
{
	return ((struct tp_view *)dbg)->base;
}

static int v_func(struct fe_dbg *dbg, const char *name, struct fe_dfunc *out,
		  struct fe_error *err)
{
	struct tp_view *v = (struct tp_view *)dbg;

	if (strcmp(name, v->name)) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return fe_btf_tracepoint(v->base, v->name, out, err);
}

static int v_func_beside(struct fe_dbg *dbg, const char *name, const char *anchor,
			 struct fe_dfunc *out, struct fe_error *err)
{
	(void)dbg, (void)name, (void)anchor, (void)err;
	memset(out, 0, sizeof(*out));
	return 0;
}

/* the scope at the tracepoint's "entry": its arguments, where the ABI
 * puts them (the places are $argN in the end) */
static int v_scope(struct fe_dbg *dbg, const char *func, unsigned long off,
		   const char *inlined, struct fe_dfunc *out, struct fe_error *err)
{
	(void)off, (void)inlined;
	return v_func(dbg, func, out, err);
}

static int v_describe(struct fe_dbg *dbg, fe_tid id, struct fe_tdesc *out)
{
	return fe_dbg_describe(base_of(dbg), id, out);
}

static int v_member(struct fe_dbg *dbg, fe_tid composite, const char *name,
		    struct fe_member *out)
{
	return fe_dbg_member(base_of(dbg), composite, name, out);
}

static void v_each_member(struct fe_dbg *dbg, fe_tid composite,
			  void (*fn)(const char *name, const struct fe_member *m, void *arg),
			  void *arg)
{
	fe_dbg_each_member_full(base_of(dbg), composite, fn, arg);
}

/* an argument of an enum type shows its enumerator, as a function's */
static void v_each_enumerator(struct fe_dbg *dbg, fe_tid id,
			      void (*fn)(const char *name, long long value, void *arg), void *arg)
{
	fe_dbg_each_enumerator(base_of(dbg), id, fn, arg);
}

static int v_find_type(struct fe_dbg *dbg, const char *tag, const char *name, fe_tid *out)
{
	return fe_dbg_find_type(base_of(dbg), tag, name, out);
}

static int v_spell(struct fe_dbg *dbg, fe_tid id, struct fe_buf *out)
{
	struct fe_dbg *b = base_of(dbg);

	return b->ops->spell(b, id, out);
}

static int v_each_func(struct fe_dbg *dbg, int (*fn)(const char *name, void *arg), void *arg)
{
	return fn(((struct tp_view *)dbg)->name, arg);
}

static bool v_inlined_only(struct fe_dbg *dbg, const char *name)
{
	(void)dbg, (void)name;
	return false;
}

static int v_func_count(struct fe_dbg *dbg, const char *name)
{
	(void)dbg, (void)name;
	return 1;
}

static void v_close(struct fe_dbg *dbg)
{
	free(((struct tp_view *)dbg)->name);
}

static const struct fe_dbg_ops view_ops = {
	.kind = "BTF",
	.func = v_func,
	.func_beside = v_func_beside,
	.describe = v_describe,
	.member = v_member,
	.each_member = v_each_member,
	.find_type = v_find_type,
	.each_enumerator = v_each_enumerator,
	.spell = v_spell,
	.each_func = v_each_func,
	.inlined_only = v_inlined_only,
	.scope = v_scope,
	.func_count = v_func_count,
	.close = v_close,
};

static struct fe_dbg *view_new(struct fe_dbg *base, const char *name)
{
	struct tp_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->d.ops = &view_ops;
	v->base = base;
	v->name = strdup(name);
	v->d.source = strdup(fe_dbg_source(base));
	if (!v->name || !v->d.source) {
		free(v->name);
		free(v->d.source);
		free(v);
		return NULL;
	}
	return &v->d;
}

/* ---- which prototypes name a tracepoint ---- */

bool fe_tp_prefixed(const struct fe_proto *proto, const char *binary)
{
	return !binary && proto->module && !strcmp(proto->module, FE_TP_PREFIX);
}

int fe_tp_take_prefix(struct fe_proto *proto, const char *binary)
{
	if (!fe_tp_prefixed(proto, binary))
		return 0;
	free(proto->module);
	proto->module = NULL;
	proto->tracepoint = true;
	return 1;
}

bool fe_tp_named(const struct fe_proto *proto, const char *binary, struct fe_dbg *dbg,
		 const struct fe_ksyms *ksyms)
{
	struct fe_dfunc f;
	int found;

	if (proto->tracepoint)
		return true;
	/* a bare name: a tracepoint only where no function has it */
	if (binary || proto->module || proto->is_glob || proto->at != FE_AT_ENTRY ||
	    !proto->func || !dbg)
		return false;
	found = fe_dbg_func(dbg, proto->func, &f, NULL);
	fe_dfunc_clear(&f);
	if (found != 0 || fe_ksyms_has(ksyms, proto->func, NULL) == 1)
		return false;
	/* a function the kernel renamed keeps the name in front
	 * (kmem_cache_alloc_noprof): the name then most likely meant the
	 * function, whose tracepoint has other arguments; only tp:NAME says
	 * the tracepoint, and the compile error names the function */
	{
		char near[256];
		size_t len = strlen(proto->func);

		if (fe_dbg_closest_func(dbg, proto->func, near, sizeof(near)) &&
		    !strncmp(near, proto->func, len) && near[len] == '_')
			return false;
	}
	return fe_btf_tracepoint(dbg, proto->func, &f, NULL) == 1;
}

struct tp_match {
	const char *glob;
	struct fe_func_names *out;
	bool oom;
};

static int tp_match(const char *name, void *arg)
{
	struct tp_match *m = arg;
	char **v;

	if (fnmatch(m->glob, name, 0))
		return 0;
	v = realloc(m->out->v, (m->out->nr + 1) * sizeof(*v));
	if (!v) {
		m->oom = true;
		return 1;
	}
	m->out->v = v;
	v[m->out->nr] = strdup(name);
	if (!v[m->out->nr]) {
		m->oom = true;
		return 1;
	}
	m->out->nr++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fe_tp_glob(struct fe_dbg *dbg, const char *glob, struct fe_func_names *out,
	       struct fe_error *err)
{
	struct tp_match m = { .glob = glob, .out = out };

	memset(out, 0, sizeof(*out));
	if (!dbg || strcmp(fe_dbg_kind(dbg), "BTF"))
		return fe_err(err, 0,
			      "tracepoints are named by BTF (typedefs btf_trace_NAME): give the kernel's BTF (--btf FILE)");
	fe_btf_each_tracepoint(dbg, tp_match, &m);
	if (m.oom) {
		fe_func_names_free(out);
		return fe_err(err, 0, "out of memory");
	}
	if (out->nr)	/* no match: no array to sort (qsort wants one) */
		qsort(out->v, out->nr, sizeof(*out->v), by_name);
	return 0;
}

/* ---- its site, for the compile driver ---- */

/* The resolver speaks of a place in a function, "in scope at NAME:0
 * (NAME+0)": here it is the tracepoint's arguments. */
static void tp_words(struct fe_error *err, const char *name)
{
	char where[300], out[sizeof(err->msg)];
	const char *at, *rest, *list;

	snprintf(where, sizeof(where), " in scope at %s:0 (%s+0)", name, name);
	at = strstr(err->msg, where);
	if (strncmp(err->msg, "no '", 4) || !at)
		return;
	rest = at + strlen(where);
	list = strstr(rest, "(in scope: ");
	snprintf(out, sizeof(out), "%.*s is no argument of tracepoint %s%.*s%s%s",
		 (int)(at - (err->msg + 3)), err->msg + 3, name,
		 (int)((list ? list : rest + strlen(rest)) - rest), rest,
		 list ? "(its arguments: " : "", list ? list + strlen("(in scope: ") : "");
	snprintf(err->msg, sizeof(err->msg), "%s", out);
}

/* BTF before __probestub_NAME (6.5) names no tracepoint argument: say so
 * where the resolver found none of that name. */
static void tp_unnamed(struct fe_error *err, struct fe_dbg *dbg, const char *name)
{
	struct fe_error ignored = { 0 };
	struct fe_dfunc f;
	size_t len = strlen(err->msg);
	const char *tail = "(its arguments: nothing)";

	if (!dbg || len < strlen(tail) || strcmp(err->msg + len - strlen(tail), tail))
		return;
	if (fe_btf_tracepoint(dbg, name, &f, &ignored) == 1 && f.nr_params && !f.params[0].name)
		snprintf(err->msg + len - strlen(tail), sizeof(err->msg) - (len - strlen(tail)),
			 "(%s names none of its %d: it has no __probestub_%s, which kernels since 6.5 have; read them by slot, TYPE NAME)",
			 fe_dbg_source(dbg), f.nr_params, name);
	fe_dfunc_clear(&f);
}

void fe_tp_resolve_error(struct fe_error *err, struct fe_dbg *view, const char *name)
{
	tp_words(err, name);
	tp_unnamed(err, view ? base_of(view) : NULL, name);
}

/* Without BTF the tracepoint's arguments are known only as the kernel
 * spells them (what list renders): every argument must be. */
static int tp_without_btf(const struct fe_proto *proto, struct fe_error *err)
{
	int i, j;

	for (i = 0; i < proto->nr_args; i++)
		for (j = 0; j < proto->args[i].nr_alts; j++)
			if (proto->args[i].alts[j].kind != FE_ALT_FETCH)
				return fe_err(err, proto->args[i].alts[j].col,
					      "a tracepoint's arguments come from BTF (typedef btf_trace_%s): give the kernel's BTF (--btf FILE), or write each as TYPE NAME=$argN",
					      proto->func);
	return 0;
}

int fe_tp_site(const struct fe_proto *proto, struct fe_dbg *dbg, const struct fe_kcaps *kcaps,
	       const struct fe_site *ret, struct fe_site *site, struct fe_dbg **view,
	       struct fe_error *err)
{
	struct fe_dfunc f;

	*view = NULL;
	/* first: on such a kernel nothing else about it matters (its BTF
	 * may name no argument, 6.1) */
	if (kcaps && !fe_kcaps_can(kcaps, FE_CAP_TPROBE_EVENTS)) {
		char user[300];

		snprintf(user, sizeof(user), FE_TP_PREFIX ":%s", proto->func);
		return fe_kcaps_refuse(kcaps, FE_CAP_TPROBE_EVENTS, user, proto->func_col, err);
	}
	if (proto->at != FE_AT_ENTRY)
		return fe_err(err, proto->at_col,
			      "a tracepoint has no lines or offsets: name it alone (tp:NAME)");
	if (ret && ret->rtype)
		return fe_err(err, ret->rtype->col,
			      "a tracepoint returns nothing: drop the return type");
	if (ret)
		return fe_err(err, proto->func_col,
			      "a tracepoint returns nothing: -r does not apply to tp:%s", proto->func);
	if (proto->is_glob)
		return fe_err(err, proto->func_col,
			      "a tracepoint is named one at a time (no globs after tp:)");
	memset(site, 0, sizeof(*site));
	site->kind = FE_SITE_TRACEPOINT;
	site->func = proto->func;
	if (!dbg || strcmp(fe_dbg_kind(dbg), "BTF"))
		return tp_without_btf(proto, err);
	/* no memory asked for: err is NULL */
	if (fe_btf_tracepoint(dbg, proto->func, &f, NULL) != 1)
		return fe_err(err, proto->func_col,
			      "no tracepoint '%s' in %s (no typedef btf_trace_%s)", proto->func,
			      fe_dbg_source(dbg), proto->func);
	*view = view_new(dbg, proto->func);
	return *view ? 0 : fe_err(err, 0, "out of memory");
}

int fe_tp_places(struct fe_probe *probe, const char *name, struct fe_place *places,
		 struct fe_error *err)
{
	int i;

	free(probe->target);
	probe->target = strdup(name);
	if (!probe->target)
		return fe_err(err, 0, "out of memory");
	/* $argN for each argument that fits one; else why not */
	for (i = 0; i < probe->nr_params; i++) {
		const struct fe_param *pa = &probe->params[i];
		struct fe_place *pl = &places[i];

		memset(pl, 0, sizeof(*pl));
		if (pa->cls == FE_CLASS_INTEGER && pa->size <= 8) {
			pl->kind = FE_PLACE_VALUE;
			snprintf(pl->base, sizeof(pl->base), "$arg%d", i + 1);
		} else {
			pl->kind = FE_PLACE_NONE;
			pl->sse = pa->cls == FE_CLASS_SSE;
			pl->why = "a tracepoint probe reads an argument through $argN, one register's worth";
		}
	}
	/* no caller: $stack0 of a tracepoint's probe is the tracing code's
	 * own return address */
	probe->in_body = true;
	return 0;
}

void fe_tp_definition(struct fe_definition *def)
{
	def->entry[0] = FE_TP_KIND;
	def->tracepoint = true;
}

/* ---- rendered back ---- */

/* One kernel argument "NAME=FETCH[:TYPE]" as "TYPE NAME=FETCH". */
static void render_arg(struct fe_buf *b, const char *arg, size_t len)
{
	const char *eq = memchr(arg, '=', len);
	const char *colon = NULL, *p;
	int depth = 0;

	for (p = eq ? eq : arg; p < arg + len; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ':' && !depth)
			colon = p;
	}
	if (!eq) {
		fe_buf_printf(b, "%.*s", (int)len, arg);
		return;
	}
	if (colon)
		fe_buf_printf(b, "%.*s ", (int)(arg + len - colon - 1), colon + 1);
	fe_buf_printf(b, "%.*s", (int)((colon ? colon : arg + len) - arg), arg);
}

char *fe_tp_render(const char *target, const char *args)
{
	struct fe_buf b = { 0 };
	const char *p = args;
	bool first = true;

	fe_buf_printf(&b, FE_TP_PREFIX ":%s(", target);
	while (p && *p) {
		size_t len = strcspn(p, " ");

		if (len) {
			fe_buf_printf(&b, "%s", first ? "" : ", ");
			render_arg(&b, p, len);
			first = false;
		}
		p += len;
		p += strspn(p, " ");
	}
	fe_buf_printf(&b, ")");
	return fe_buf_take(&b);
}
