// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's filter grammar (filter_parse.c), evaluated over a call's
 * two halves, compared as the kernel compares (signed or unsigned by the
 * field, '&' true when a bit is common, '~' a glob without escapes as
 * lib/glob.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "call_filter.h"
#include "filter_parse.h"

struct ev {
	const struct fe_filter_tree *t;
	fe_call_field_fn get;	/* NULL: check only */
	void *ctx;
};

static bool compare_num(const char *op, unsigned long long a, unsigned long long b, bool sgn)
{
	long long sa = (long long)a, sb = (long long)b;

	if (!strcmp(op, "=="))
		return a == b;
	if (!strcmp(op, "!="))
		return a != b;
	if (!strcmp(op, "&"))
		return (a & b) != 0;
	if (!strcmp(op, "<"))
		return sgn ? sa < sb : a < b;
	if (!strcmp(op, "<="))
		return sgn ? sa <= sb : a <= b;
	if (!strcmp(op, ">"))
		return sgn ? sa > sb : a > b;
	return sgn ? sa >= sb : a >= b;
}

/* What the kernel's names and numbers allow: 0, or -1 when the view
 * cannot read the comparison (a filter fevent did not write). */
static int readable(const struct fe_filter_tree *t, const struct fe_fnode *n,
		    unsigned long long *want)
{
	const char *v = t->text + n->value;
	char op[3], *end;

	if (n->field_len >= 128)
		return -1;
	snprintf(op, sizeof(op), "%.*s", n->op_len, t->text + n->op);
	if (n->quote)
		return strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "~") ? -1 : 0;
	if (!strcmp(op, "~"))
		return -1;
	errno = 0;
	*want = *v == '-' ? (unsigned long long)strtoll(v, &end, 0) : strtoull(v, &end, 0);
	return end == v || errno || end != v + n->value_len ? -1 : 0;
}

static bool comparison(struct ev *e, const struct fe_fnode *n)
{
	const struct fe_filter_tree *t = e->t;
	struct fe_buf text = { 0 }, pat = { 0 };
	unsigned long long num = 0, want = 0;
	bool is_str = false, sgn = false, result = false;
	char field[128], op[3];

	if (readable(t, n, &want) || !e->get)
		return false;
	snprintf(field, sizeof(field), "%.*s", n->field_len, t->text + n->field);
	snprintf(op, sizeof(op), "%.*s", n->op_len, t->text + n->op);
	if (e->get(e->ctx, field, &text, &num, &is_str, &sgn) == 0) {
		if (n->quote && is_str) {
			fe_buf_add(&pat, t->text + n->value, n->value_len);
			fe_buf_addc(&pat, 0);
			fe_buf_addc(&text, 0);
			if (!text.failed && !pat.failed) {
				if (!strcmp(op, "~"))
					result = fnmatch(pat.s, text.s, FNM_NOESCAPE) == 0;
				else
					result = (strcmp(pat.s, text.s) == 0) == !strcmp(op, "==");
			}
		} else if (!n->quote && !is_str) {
			result = compare_num(op, num, want, sgn || t->text[n->value] == '-');
		}
	}
	fe_buf_free(&text);
	fe_buf_free(&pat);
	return result;
}

static bool eval(struct ev *e, const struct fe_fnode *n)
{
	switch (n->kind) {
	case FE_FN_OR:
		return eval(e, n->a) || eval(e, n->b);
	case FE_FN_AND:
		return eval(e, n->a) && eval(e, n->b);
	case FE_FN_NOT:
		return !eval(e, n->a);
	case FE_FN_GROUP:
		return eval(e, n->a);
	default:
		return comparison(e, n);
	}
}

/* 0: the whole text parsed and every comparison is readable. */
static int parse(const char *text, struct fe_filter_tree *t)
{
	unsigned long long want;
	int i;

	if (fe_filter_parse(text, t))
		return -1;
	if (t->err != FE_FS_NONE)
		return -1;
	for (i = 0; i < t->nr; i++)
		if (t->nodes[i].kind == FE_FN_CMP && readable(t, &t->nodes[i], &want))
			return -1;
	return 0;
}

int fe_call_filter_check(const char *text, struct fe_error *err)
{
	struct fe_filter_tree t;
	int ret = 0;

	if (parse(text, &t))
		ret = fe_err(err, 0, "not a filter fevent reads, at '%.20s'",
			     t.nodes ? text + t.err_at : text);
	fe_filter_tree_free(&t);
	return ret;
}

/*
 * The view evaluates each event's filter on every call: the trees of the
 * last few texts are kept (a recording has a handful of filters).
 */
#define CACHED	8

static struct cached {
	char *text;
	struct fe_filter_tree t;
	bool ok;
} cache[CACHED];
static unsigned int next_slot;

static void cache_free(void)
{
	int i;

	for (i = 0; i < CACHED; i++) {
		free(cache[i].text);
		fe_filter_tree_free(&cache[i].t);
	}
}

static const struct cached *parsed(const char *text)
{
	static bool registered;
	struct cached *c;
	int i;

	for (i = 0; i < CACHED; i++)
		if (cache[i].text && !strcmp(cache[i].text, text))
			return &cache[i];
	if (!registered)
		registered = !atexit(cache_free);
	c = &cache[next_slot++ % CACHED];
	free(c->text);
	fe_filter_tree_free(&c->t);
	c->text = strdup(text);
	if (!c->text)
		return NULL;
	c->ok = !parse(c->text, &c->t);
	return c;
}

int fe_call_filter_eval(const char *text, fe_call_field_fn get, void *ctx)
{
	const struct cached *c = parsed(text);
	struct ev e = { .get = get, .ctx = ctx };

	if (!c || !c->ok)
		return 0;
	e.t = &c->t;
	return eval(&e, c->t.root);
}
