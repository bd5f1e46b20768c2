// SPDX-License-Identifier: GPL-2.0
/*
 * The --graph sink: calls as a tree per task, an entry held until the
 * next event shows whether calls are inside it.
 */
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
	const struct ev_info *e = first->ev;
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
		fe_buf_add(l, e->func, strlen(e->func));
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
	if (ret && ret->ev->ret && kind != G_OPEN) {
		fe_buf_add(l, " = ", 3);
		fe_buf_add(l, item_val(ret), ret->val_len);
	}
	if (entry && ret && (kind == G_LEAF || kind == G_CLOSE)) {
		unsigned long long ns = ret->ts - entry->ts;
		char d[48];

		snprintf(d, sizeof(d), " <%llu.%03llu us>", ns / 1000, ns % 1000);
		fe_buf_add(l, d, strlen(d));
	}
	if (kind == G_CLOSE) {
		fe_buf_add(l, "  /* ", 5);
		fe_buf_add(l, e->func, strlen(e->func));
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
