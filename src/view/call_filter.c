// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's filter grammar, evaluated over a call's two halves:
 *
 *	EXPR := TERM { '||' TERM }      TERM := FACTOR { '&&' FACTOR }
 *	FACTOR := '!' FACTOR | '(' EXPR ')' | FIELD OP VALUE
 *
 * compared as the kernel compares (signed or unsigned by the field, '&'
 * true when a bit is common, '~' a glob without escapes as lib/glob.c).
 * One recursive pass both checks and evaluates: a call's filter is short.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "call_filter.h"

#define MAX_DEPTH	64

struct ev {
	const char *p;
	fe_call_field_fn get;	/* NULL: check only */
	void *ctx;
	bool bad;
};

static void skip(struct ev *e)
{
	while (*e->p == ' ' || *e->p == '\t')
		e->p++;
}

static bool take(struct ev *e, const char *tok)
{
	skip(e);
	if (strncmp(e->p, tok, strlen(tok)))
		return false;
	e->p += strlen(tok);
	return true;
}

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

static bool predicate(struct ev *e)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">", "~", "&" };
	const char *name, *op = NULL, *val;
	char field[128];
	size_t n, i;
	bool result = false;

	skip(e);
	name = e->p;
	while (isalnum((unsigned char)*e->p) || *e->p == '_')
		e->p++;
	n = e->p - name;
	if (!n || n >= sizeof(field)) {
		e->bad = true;
		return false;
	}
	memcpy(field, name, n);
	field[n] = 0;
	skip(e);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !op; i++)
		if (!strncmp(e->p, ops[i], strlen(ops[i])) && !(ops[i][0] == '&' && e->p[1] == '&'))
			op = ops[i];
	if (!op) {
		e->bad = true;
		return false;
	}
	e->p += strlen(op);
	skip(e);
	val = e->p;
	if (*e->p == '"' || *e->p == '\'') {
		char q = *e->p++;
		struct fe_buf text = { 0 }, pat = { 0 };
		unsigned long long num;
		bool is_str = false, sgn;

		val = e->p;
		while (*e->p && *e->p != q)
			e->p += *e->p == '\\' && e->p[1] ? 2 : 1;
		if (*e->p != q || (strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "~"))) {
			e->bad = true;
			return false;
		}
		fe_buf_add(&pat, val, e->p - val);
		fe_buf_addc(&pat, 0);
		e->p++;
		if (e->get && !pat.failed && e->get(e->ctx, field, &text, &num, &is_str, &sgn) == 0 &&
		    is_str) {
			fe_buf_addc(&text, 0);
			if (!text.failed) {
				if (!strcmp(op, "~"))
					result = fnmatch(pat.s, text.s, FNM_NOESCAPE) == 0;
				else
					result = (strcmp(pat.s, text.s) == 0) == !strcmp(op, "==");
			}
		}
		fe_buf_free(&text);
		fe_buf_free(&pat);
		return result;
	} else {
		struct fe_buf text = { 0 };
		unsigned long long want, num = 0;
		bool is_str = false, sgn = false, neg = *e->p == '-';
		char *end;

		if (!strcmp(op, "~")) {
			e->bad = true;
			return false;
		}
		errno = 0;
		want = neg ? (unsigned long long)strtoll(e->p, &end, 0) : strtoull(e->p, &end, 0);
		if (end == e->p || errno || isalnum((unsigned char)*end) || *end == '_') {
			e->bad = true;
			return false;
		}
		e->p = end;
		if (e->get && e->get(e->ctx, field, &text, &num, &is_str, &sgn) == 0 && !is_str)
			result = compare_num(op, num, want, sgn || neg);
		fe_buf_free(&text);
		return result;
	}
}

static bool expr(struct ev *e, int depth);

static bool factor(struct ev *e, int depth)
{
	bool r;

	if (depth > MAX_DEPTH) {
		e->bad = true;
		return false;
	}
	skip(e);
	if (*e->p == '!' && e->p[1] != '=') {
		e->p++;
		return !factor(e, depth + 1);
	}
	if (*e->p == '(') {
		e->p++;
		r = expr(e, depth + 1);
		if (!take(e, ")"))
			e->bad = true;
		return r;
	}
	return predicate(e);
}

static bool term(struct ev *e, int depth)
{
	bool r = factor(e, depth);

	while (!e->bad && take(e, "&&"))
		r = factor(e, depth) && r;	/* parse every factor */
	return r;
}

static bool expr(struct ev *e, int depth)
{
	bool r = term(e, depth);

	while (!e->bad && take(e, "||"))
		r = term(e, depth) || r;
	return r;
}

int fe_call_filter_check(const char *text, struct fe_error *err)
{
	struct ev e = { .p = text };

	expr(&e, 0);
	skip(&e);
	if (e.bad || *e.p)
		return fe_err(err, 0, "not a filter fevent reads, at '%.20s'", e.p);
	return 0;
}

int fe_call_filter_eval(const char *text, fe_call_field_fn get, void *ctx)
{
	struct ev e = { .p = text, .get = get, .ctx = ctx };
	bool r = expr(&e, 0);

	skip(&e);
	return !e.bad && !*e.p && r;
}
