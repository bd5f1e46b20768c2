// SPDX-License-Identifier: GPL-2.0
/*
 * The --graph sink: calls as a tree per task, an entry held until the
 * next event shows whether calls are inside it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

/* --graph: bytes of lines one held call keeps back at most */
#define MAX_CAPTURED	(1 << 20)

/*
 * --graph: a line of pid's goes into the innermost call of pid held for
 * its filter or its return that carries the arguments (not the one being
 * decided, nor one inside that), to be shown inside that call if it
 * passes (or its return comes); beyond MAX_CAPTURED they go out as they
 * are.
 */
void fe_view_graph_put(struct fe_view *v, struct fe_buf *l, int pid)
{
	int i;

	for (i = v->nr_pending - 1; i >= 0; i--) {
		struct item *h = &v->pending[i];

		/* a call being decided (or given up) is out: its lines go to
		 * one around it, never to one inside it */
		if ((v->deciding >= 0 && i >= v->deciding) || !h->filtered || h->pid != pid ||
		    !(h->ev->call_filter || h->ev->carried))
			continue;
		if (h->spilled)
			break;
		if (!h->captured)
			h->captured = calloc(1, sizeof(*h->captured));
		if (h->captured && h->captured->len + l->len <= MAX_CAPTURED) {
			fe_buf_add(h->captured, l->s ? l->s : "", l->len);
			l->len = 0;
			if (l->s)
				l->s[0] = 0;
			return;
		}
		/* too much held back: out as it is, and the rest as it comes */
		h->spilled = true;
		if (h->captured)
			fe_view_put_line(v, h->captured);
		break;
	}
	fe_view_put_line(v, l);
}

/* One --graph line, indented two spaces per depth. */
void fe_view_print_graph(struct fe_view *v, const struct item *entry, const struct item *ret,
			 int depth, enum graph_line kind)
{
	struct fe_buf *l = &v->line;
	const struct item *first = kind == G_CLOSE || !entry ? ret : entry;
	int i;

	fe_view_put_head(v, l, first);
	for (i = 0; i < depth && i < 64; i++)
		fe_buf_add(l, "  ", 2);
	if (kind == G_CLOSE) {
		fe_buf_addc(l, '}');
	} else {
		if (entry && entry->caller && depth == 0) {
			fe_buf_add(l, entry->caller, strlen(entry->caller));
			fe_buf_add(l, "->", 2);
		}
		fe_buf_add(l, item_func(first), strlen(item_func(first)));
		fe_buf_addc(l, '(');
		if (entry)
			fe_buf_add(l, item_val(entry), entry->val_len);
		else if (ret && ret->args)
			fe_buf_add(l, ret->args, strlen(ret->args));
		else
			fe_buf_addc(l, '?');
		fe_buf_addc(l, ')');
	}
	if (kind == G_OPEN)
		fe_buf_add(l, " {", 2);
	if (ret && (ret->ev->ret || (ret->gfunc && ret->val_len)) && kind != G_OPEN) {
		fe_buf_add(l, " = ", 3);
		fe_buf_add(l, item_val(ret), ret->val_len);
	}
	/* the function graph tracer's own measure where it gave one: its
	 * exit carries it, with its entry or without (6.12 calls the exit
	 * handler of an instance whose entry handler, pid-filtered, refused
	 * the call, when another instance took it: docs/decisions.md) */
	if (ret && (ret->gfunc || (entry && kind != G_PLAIN)) && kind != G_OPEN) {
		unsigned long long ns = ret->gfunc ? ret->gdur : ret->ts - entry->ts;
		char d[48];

		snprintf(d, sizeof(d), " <%llu.%03llu us>", ns / 1000, ns % 1000);
		fe_buf_add(l, d, strlen(d));
	}
	if (kind == G_CLOSE) {
		fe_buf_add(l, "  /* ", 5);
		fe_buf_add(l, item_func(first), strlen(item_func(first)));
		fe_buf_add(l, " */", 3);
	}
	fe_buf_addc(l, '\n');
	fe_view_graph_put(v, l, first->pid);
}

/* --graph lines one level out: the two spaces of a depth after each
 * line's head (which ends at its first ': '). */
void fe_view_graph_dedent(struct fe_buf *c)
{
	size_t i, o = 0;
	bool head = true;

	for (i = 0; i < c->len; i++) {
		char ch = c->s[i];

		c->s[o++] = ch;
		if (ch == '\n') {
			head = true;
		} else if (head && ch == ':' && i + 1 < c->len && c->s[i + 1] == ' ') {
			head = false;
			if (i + 3 < c->len && c->s[i + 2] == ' ' && c->s[i + 3] == ' ') {
				c->s[o++] = ' ';
				i += 3;
			}
		}
	}
	c->len = o;
	if (c->s)
		c->s[o] = 0;
}

/* --- --graph-below: the function graph tracer's records --- */

static unsigned long long gfield(struct fe_view *v, const struct tep_format_field *f,
				 const void *data)
{
	return number(v, (const char *)data + f->offset, f->size);
}

/* The function a funcgraph record names. */
static const char *graph_func(struct fe_view *v, const struct ev_info *e, const void *data)
{
	unsigned long long addr = gfield(v, v->gb.func_f[e->funcgraph - 1], data);
	const char *name = tep_find_function(v->tep, addr);
	const struct sym *y;

	if (name)
		return name;
	y = fe_view_sym(v, addr, true);
	return y ? y->text : "?";
}

/*
 * Is this funcgraph record below the function, or its own call?  The
 * tracer traces every function of the task: only the calls from the
 * function's entry to its exit (at the depth it was entered) are kept,
 * the others counted.  Asked in time order (a task's records may be on
 * several CPUs' pages).
 */
bool fe_view_graph_keep(struct fe_view *v, const struct item *it)
{
	struct task_open *t = fe_view_task_open(v, it->pid);

	if (t && t->below) {
		if (it->ev->funcgraph == 2 && it->gdepth + 1 == t->below &&
		    !strcmp(it->gfunc, v->gb.func))
			t->below = 0;
		return true;
	}
	if (t && it->ev->funcgraph == 1 && !strcmp(it->gfunc, v->gb.func)) {
		t->below = it->gdepth + 1;
		return true;
	}
	v->gb.outside++;
	return false;
}

/* Split "a b c" into *names; the count, or -1 (out of memory: none). */
static int split_names(const char *text, char ***names)
{
	const char *p = text;
	char **m;
	int n = 0;

	*names = NULL;
	while (*p) {
		size_t len = strcspn(p, " ");

		if (len) {
			m = realloc(*names, (n + 1) * sizeof(*m));
			if (!m || !(m[n] = strndup(p, len)))
				goto oom;
			*names = m;
			n++;
		}
		p += len + (p[len] == ' ');
	}
	return n;
oom:
	if (m)
		*names = m;
	while (n--)
		free((*names)[n]);
	free(*names);
	*names = NULL;
	return -1;
}

/* The names of func's parameters, asked once (NULL: not known). */
static const struct gb_params *params_of(struct fe_view *v, const char *func)
{
	struct graph_below *g = &v->gb;
	struct gb_params *k;
	unsigned int i;
	char *text;

	if (!g->params)
		return NULL;
	if (2 * (g->nr_known + 1) > g->known_cap) {
		unsigned int cap = g->known_cap ? 2 * g->known_cap : 256, j;
		struct gb_params *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (j = 0; j < g->known_cap; j++) {
			if (!g->known[j].func)
				continue;
			for (i = ((uintptr_t)g->known[j].func >> 4) & (cap - 1); t[i].func;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = g->known[j];
		}
		free(g->known);
		g->known = t;
		g->known_cap = cap;
	}
	for (i = ((uintptr_t)func >> 4) & (g->known_cap - 1); g->known[i].func;
	     i = (i + 1) & (g->known_cap - 1))
		if (g->known[i].func == func)
			return g->known[i].nr >= 0 ? &g->known[i] : NULL;
	k = &g->known[i];
	k->func = func;
	g->nr_known++;
	text = g->params(g->params_ctx, func);
	/* nr -1: not known (names NULL too) */
	k->nr = text ? split_names(text, &k->names) : -1;
	free(text);
	return k->nr < 0 ? NULL : k;
}

/* An entry's arguments: named, as many as func takes where its names are
 * known; else every word the kernel recorded. */
static void graph_args(struct fe_view *v, const char *func, const void *data, int size,
		       struct fe_buf *f)
{
	const struct gb_params *p = params_of(v, func);
	int off = v->gb.args->offset, i;

	for (i = 0; off + 8 * (i + 1) <= size && (!p || i < p->nr); i++) {
		if (i)
			fe_buf_add(f, ", ", 2);
		if (p)
			fe_buf_printf(f, "%s=", p->names[i]);
		fe_buf_printf(f, "0x%llx", number(v, (const char *)data + off + 8 * i, 8));
	}
}

/*
 * A kept record's values: the function, an entry's arguments as the
 * kernel recorded them (funcgraph-args, named where the function's
 * parameters are known), an exit's return value (funcgraph-retval) and
 * its duration.
 */
void fe_view_graph_values(struct fe_view *v, struct item *it, const void *data, int size)
{
	const struct graph_below *g = &v->gb;
	struct fe_buf *f = &v->fmt;

	it->gfunc = graph_func(v, it->ev, data);
	it->gdepth = gfield(v, g->depth_f[it->ev->funcgraph - 1], data);
	f->len = 0;
	f->failed = false;
	if (it->ev->funcgraph == 1 && g->args) {
		graph_args(v, it->gfunc, data, size, f);
	} else if (it->ev->funcgraph == 2) {
		if (g->retval && g->retval->offset + g->retval->size <= size)
			fe_buf_printf(f, "0x%llx", gfield(v, g->retval, data));
		if (g->calltime && g->rettime)
			it->gdur = gfield(v, g->rettime, data) - gfield(v, g->calltime, data);
	}
	if (f->failed || !f->len)
		return;
	it->val_len = f->len;
	if (f->len < sizeof(it->inl))
		memcpy(it->inl, f->s, f->len + 1);
	else if (!(it->val = strdup(f->s)))
		it->val_len = 0;
}
