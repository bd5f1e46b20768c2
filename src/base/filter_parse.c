// SPDX-License-Identifier: GPL-2.0
/*
 * One recursive descent over a filter (filter_parse.h).  Each node takes
 * at least one character of the text, so the nodes fit an array of the
 * text's length: no node moves once made.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "filter_parse.h"

struct parser {
	struct fe_filter_tree *t;
	const char *p;
	int cap;
};

#define STR(x)	#x
#define XSTR(x)	STR(x)

static void skip(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static bool take(struct parser *ps, const char *tok)
{
	skip(ps);
	if (strncmp(ps->p, tok, strlen(tok)))
		return false;
	ps->p += strlen(tok);
	return true;
}

static int off(struct parser *ps, const char *at)
{
	return (int)(at - ps->t->text);
}

static struct fe_fnode *node(struct parser *ps, enum fe_fnode_kind kind)
{
	struct fe_fnode *n = &ps->t->nodes[ps->t->nr++];

	n->kind = kind;
	return n;
}

static struct fe_fnode *fail(struct parser *ps, enum fe_fsyntax err, const char *at,
			     struct fe_fnode *n)
{
	ps->t->err = err;
	ps->t->err_at = off(ps, at);
	ps->t->err_node = n;
	return NULL;
}

static struct fe_fnode *comparison(struct parser *ps)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">", "~", "&" };
	const char *start;
	struct fe_fnode *n;
	size_t i;

	skip(ps);
	start = ps->p;
	if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
		return fail(ps, FE_FS_NO_FIELD, start, NULL);
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
		ps->p++;
	n = node(ps, FE_FN_CMP);
	n->field = off(ps, start);
	n->field_len = (int)(ps->p - start);
	skip(ps);
	n->op = off(ps, ps->p);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !n->op_len; i++)
		if (!strncmp(ps->p, ops[i], strlen(ops[i])) && !(ops[i][0] == '&' && ps->p[1] == '&'))
			n->op_len = (int)strlen(ops[i]);
	if (!n->op_len)
		return fail(ps, FE_FS_NO_OP, ps->p, n);
	ps->p += n->op_len;
	skip(ps);
	n->value = off(ps, ps->p);
	if (*ps->p == '"' || *ps->p == '\'') {
		const char *quote = ps->p;

		n->quote = *ps->p++;
		n->value = off(ps, ps->p);
		while (*ps->p && *ps->p != n->quote)
			ps->p += *ps->p == '\\' && ps->p[1] ? 2 : 1;
		if (*ps->p != n->quote)
			return fail(ps, FE_FS_OPEN_STRING, quote, n);
		n->value_len = (int)(ps->p - quote - 1);
		ps->p++;
	} else {
		const char *word = ps->p;

		if (*ps->p == '-' || *ps->p == '+')
			ps->p++;
		while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
			ps->p++;
		if (ps->p == word || (!isalnum((unsigned char)ps->p[-1]) && ps->p[-1] != '_')) {
			ps->p = word;
			return fail(ps, FE_FS_NO_VALUE, word, n);
		}
		n->value_len = (int)(ps->p - word);
	}
	n->has_value = true;
	return n;
}

static struct fe_fnode *expr(struct parser *ps, int depth);

static struct fe_fnode *factor(struct parser *ps, int depth)
{
	struct fe_fnode *n;

	if (depth > FE_FILTER_MAX_DEPTH)
		return fail(ps, FE_FS_DEPTH, ps->p, NULL);
	skip(ps);
	if (*ps->p == '!' && ps->p[1] != '=') {
		ps->p++;
		n = node(ps, FE_FN_NOT);
		n->a = factor(ps, depth + 1);
		return n->a ? n : NULL;
	}
	if (*ps->p == '(') {
		const char *open = ps->p++;

		n = node(ps, FE_FN_GROUP);
		n->a = expr(ps, depth + 1);
		if (!n->a)
			return NULL;
		if (!take(ps, ")"))
			return fail(ps, *ps->p ? FE_FS_NO_CLOSE : FE_FS_UNCLOSED,
				    *ps->p ? ps->p : open, NULL);
		return n;
	}
	return comparison(ps);
}

static struct fe_fnode *binary(struct parser *ps, int depth, bool is_or)
{
	struct fe_fnode *left = is_or ? binary(ps, depth, false) : factor(ps, depth);

	while (left && take(ps, is_or ? "||" : "&&")) {
		struct fe_fnode *n = node(ps, is_or ? FE_FN_OR : FE_FN_AND);

		n->a = left;
		n->b = is_or ? binary(ps, depth, false) : factor(ps, depth);
		left = n->b ? n : NULL;
	}
	return left;
}

static struct fe_fnode *expr(struct parser *ps, int depth)
{
	return binary(ps, depth, true);
}

int fe_filter_parse(const char *text, struct fe_filter_tree *t)
{
	struct parser ps = { .t = t, .p = text };

	memset(t, 0, sizeof(*t));
	t->text = text;
	/* every node takes a character at least: the end's too, once */
	t->nodes = calloc(strlen(text) + 2, sizeof(*t->nodes));
	if (!t->nodes)
		return -1;
	t->root = expr(&ps, 0);
	if (t->root) {
		skip(&ps);
		if (*ps.p)
			fail(&ps, FE_FS_TRAILING, ps.p, NULL);
	}
	return 0;
}

void fe_filter_tree_free(struct fe_filter_tree *t)
{
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

const char *fe_filter_syntax_msg(const struct fe_filter_tree *t)
{
	switch (t->err) {
	case FE_FS_NO_FIELD:
		return t->text[t->err_at] ? "expected a field name" :
		       "the filter ends where a field name was expected";
	case FE_FS_OPEN_STRING:
		return t->text[t->err_at] == '"' ? "the string has no closing \"" :
		       "the string has no closing '";
	case FE_FS_NO_CLOSE:
		return "expected ')'";
	case FE_FS_UNCLOSED:
		return "the '(' here is never closed";
	case FE_FS_DEPTH:
		return "more than " XSTR(FE_FILTER_MAX_DEPTH) " nested parentheses";
	case FE_FS_TRAILING:
		return "expected '&&', '||' or the end of the filter";
	case FE_FS_NO_OP:
		return "expected a comparison";
	case FE_FS_NO_VALUE:
		return "expected a value";
	default:
		return "";
	}
}
