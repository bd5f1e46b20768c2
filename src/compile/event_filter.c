// SPDX-License-Identifier: GPL-2.0
/*
 * A filter over the prototype's names, checked and written in the
 * kernel's: the grammar is filter_parse.c's, the fields and their types
 * are this file's.
 *
 *	OP := == != < <= > >= & (numbers) | == != ~ (strings)
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errno_names.h"
#include "event_filter.h"
#include "field_name.h"
#include "fe_util.h"
#include "filter_parse.h"

#define MAX_FIELDS	160

enum ftype { F_NUMBER, F_UNSIGNED, F_STRING, F_ARRAY };

/* The kernel takes a filter of less than a page (event_filter_write). */
#define FE_KERNEL_MAX_FILTER	4095

struct field {
	char name[64];		/* the kernel's */
	char label[64];		/* as the prototype named it */
	enum ftype type;
	bool on_return;
	/* values by name: an errno-valued one, an error pointer, an enum's
	 * enumerators ("NAME=VALUE ...", in the values text) */
	bool is_errno, is_err_ptr;
	const char *enums;
	size_t enums_len;
	bool is_dur;		/* the call's duration: fevent's, over both halves */
};

struct fparser {
	const char *text;
	int col0;
	struct field fields[MAX_FIELDS];
	int nr_fields;
	struct fe_buf out;
	int sides;		/* bit 0: an entry field, bit 1: a return field */
	bool has_return;	/* a return event: 'dur' can be measured */
	struct fe_error *err;
};

static int col_of(struct fparser *fp, const char *at)
{
	return fp->col0 + (int)(at - fp->text);
}

/* Fields of one event's arguments: NAME=FETCH:TYPE separated by spaces. */
static void add_fields(struct fparser *fp, const char *args, bool on_return)
{
	const char *p = args;

	while (p && *p && fp->nr_fields < MAX_FIELDS) {
		const char *end = strchr(p, ' '), *eq, *colon;
		struct field *f = &fp->fields[fp->nr_fields];
		char *dunder;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		colon = eq ? memrchr(eq, ':', end - eq) : NULL;
		if (eq && colon && eq - p < (long)sizeof(f->name)) {
			snprintf(f->name, sizeof(f->name), "%.*s", (int)(eq - p), p);
			/* the label: LABEL[__N][__FLAG] without the suffixes */
			memcpy(f->label, f->name, sizeof(f->label));
			dunder = strrchr(f->label, '_');
			if (dunder && dunder > f->label + 1 && dunder[-1] == '_' &&
			    (dunder[1] == FE_FLAG_SIGNED || dunder[1] == FE_FLAG_TEXT) && !dunder[2])
				dunder[-1] = 0;
			dunder = strrchr(f->label, '_');
			if (dunder && dunder > f->label + 1 && dunder[-1] == '_' &&
			    dunder[1] && strspn(dunder + 1, "0123456789") == strlen(dunder + 1))
				dunder[-1] = 0;
			f->type = memchr(colon, '[', end - colon) ? F_ARRAY :
				  !strncmp(colon + 1, "string", 6) || !strncmp(colon + 1, "ustring", 7) ?
				  F_STRING : colon[1] == 's' ? F_NUMBER : F_UNSIGNED;
			f->on_return = on_return;
			/* fevent's hidden fields (kprobe_emit.h) */
			if (strcmp(f->name, "__caller") && strcmp(f->name, "__retaddr"))
				fp->nr_fields++;
		}
		p = *end ? end + 1 : end;
	}
}

/* "FIELD errno", "FIELD err_ptr", "FIELD enum NAME=VALUE ..." lines. */
static void add_values(struct fparser *fp, const char *values, bool on_return)
{
	const char *line = values;

	while (line && *line) {
		size_t len = strcspn(line, "\n"), nl = strcspn(line, " \n");
		const char *kw = line + nl + (line[nl] == ' ');
		int i;

		for (i = 0; i < fp->nr_fields; i++) {
			struct field *f = &fp->fields[i];

			if (f->on_return != on_return || strlen(f->name) != nl ||
			    strncmp(f->name, line, nl))
				continue;
			if (!strncmp(kw, "errno\n", 6) || !strcmp(kw, "errno"))
				f->is_errno = true;
			else if (!strncmp(kw, "err_ptr\n", 8) || !strcmp(kw, "err_ptr"))
				f->is_err_ptr = true;
			else if (!strncmp(kw, "enum ", 5)) {
				f->enums = kw + 5;
				f->enums_len = line + len - kw - 5;
			}
		}
		line += len + (line[len] == '\n');
	}
}

/* The name of f's enumerator of value v into buf, or false. */
static bool enum_name(const struct field *f, long long v, char *buf, size_t size)
{
	const char *p = f->enums, *end = f->enums ? f->enums + f->enums_len : NULL;

	while (p && p < end) {
		size_t l = strcspn(p, " \n");
		const char *eq;
		char *stop;

		if (l > (size_t)(end - p))
			l = end - p;
		eq = memchr(p, '=', l);
		if (eq && strtoll(eq + 1, &stop, 10) == v && stop == p + l &&
		    (size_t)(eq - p) < size) {
			snprintf(buf, size, "%.*s", (int)(eq - p), p);
			return true;
		}
		p += l + 1;
	}
	return false;
}

/* The value of an enumerator of f named name (len), or false. */
static bool enumerator(const struct field *f, const char *name, size_t len, long long *v)
{
	const char *p = f->enums, *end = f->enums ? f->enums + f->enums_len : NULL;

	while (p && p < end) {
		size_t l = strcspn(p, " \n");

		if (l > (size_t)(end - p))
			l = end - p;
		if (l > len && p[len] == '=' && !strncmp(p, name, len)) {
			*v = strtoll(p + len + 1, NULL, 10);
			return true;
		}
		p += l + 1;
	}
	return false;
}

/* The closest enumerator of f to name, into buf; false if none is near. */
static bool near_enumerator(const struct field *f, const char *name, char *buf, size_t size)
{
	const char *names[256];
	char *copy = f->enums ? strndup(f->enums, f->enums_len) : NULL, *tok, *save = NULL;
	const char *near;
	int n = 0;

	if (!copy)
		return false;
	for (tok = strtok_r(copy, " ", &save); tok && n < 256; tok = strtok_r(NULL, " ", &save)) {
		tok[strcspn(tok, "=")] = 0;
		names[n++] = tok;
	}
	near = fe_closest(name, names, n);
	if (near)
		snprintf(buf, size, "%s", near);
	free(copy);
	return near != NULL;
}

/*
 * A value written by name, [-]NAME, the word at `at` (len): an errno of
 * an errno-valued field or an error pointer, an enumerator of an enum.
 * The number it stands for into out; 0, or -1 with err set (1 when it is
 * no name at all).
 */
static int named_value(struct fparser *fp, const struct field *f, const char *at, size_t wlen,
		       struct fe_buf *out)
{
	const char *name = at;
	bool minus = *name == '-';
	char word[64], near[64];
	size_t len;
	long long v;
	int e;

	if (minus)
		name++;
	if (!isalpha((unsigned char)*name) && *name != '_')
		return 1;
	len = wlen - (name - at);
	snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1),
		 name);
	if (f->is_errno || f->is_err_ptr) {
		e = fe_errno_value(name, len);
		if (!e)
			return fe_err(fp->err, col_of(fp, name), "no errno is named '%s'%s", word,
				      strncmp(word, "E", 1) ? " (errno names start with E, e.g. -ENOENT)" : "");
		v = minus ? -e : e;
		if (f->is_err_ptr)
			fe_buf_printf(out, "0x%llx", (unsigned long long)v);
		else
			fe_buf_printf(out, "%lld", v);
	} else if (f->enums) {
		if (!enumerator(f, name, len, &v)) {
			bool has_near = near_enumerator(f, word, near, sizeof(near));

			return fe_err(fp->err, col_of(fp, name), "'%s' has no enumerator '%s'%s%s%s",
				      f->label, word, has_near ? "; did you mean '" : "",
				      has_near ? near : "", has_near ? "'?" : "");
		}
		if (minus)
			return fe_err(fp->err, col_of(fp, at), "'-' before an enumerator: write its name alone");
		fe_buf_printf(out, "%lld", v);
	} else {
		return fe_err(fp->err, col_of(fp, at),
			      "'%s' is a number: compare it with a number%s", f->label,
			      !strcmp(f->label, "ret") && word[0] == 'E' ?
			      " (errno names such as -ENOENT are for a kernel function's return declared as an integer or pointer)" :
			      "");
	}
	return 0;
}

/* The field a name means: the kernel's name itself, else the one field
 * the prototype labelled so; the kernel's own comm, common_pid, cpu. */
static int find_field(struct fparser *fp, const char *name, size_t len, const char *at,
		      const struct field **out)
{
	static struct field common[] = {
		{ .name = "comm", .label = "comm", .type = F_STRING },
		{ .name = "COMM", .label = "COMM", .type = F_STRING },
		{ .name = "common_pid", .label = "common_pid", .type = F_NUMBER },
		{ .name = "cpu", .label = "cpu", .type = F_UNSIGNED },
		{ .name = "CPU", .label = "CPU", .type = F_UNSIGNED },
	};
	const char *names[MAX_FIELDS + 5];
	const struct field *found = NULL;
	struct fe_buf both = { 0 };
	char word[64];
	size_t i;
	int n = 0, nr = 0;

	if (len >= sizeof(word))
		return fe_err(fp->err, col_of(fp, at), "no field '%.*s' in this event", (int)len, name);
	snprintf(word, sizeof(word), "%.*s", (int)len, name);
	for (i = 0; i < (size_t)fp->nr_fields; i++)
		if (!strcmp(fp->fields[i].name, word)) {
			*out = &fp->fields[i];
			return 0;
		}
	for (i = 0; i < (size_t)fp->nr_fields; i++) {
		if (strcmp(fp->fields[i].label, word))
			continue;
		fe_buf_printf(&both, "%s%s", n ? ", " : "", fp->fields[i].name);
		found = &fp->fields[i];
		n++;
	}
	if (n > 1) {
		fe_err(fp->err, col_of(fp, at), "'%s' labels %d fields: name one (%s)", word, n,
		       both.s ? both.s : "");
		fe_buf_free(&both);
		return -1;
	}
	fe_buf_free(&both);
	if (found) {
		*out = found;
		return 0;
	}
	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (!strcmp(common[i].name, word)) {
			*out = &common[i];
			return 0;
		}
	if (!strcmp(word, "dur")) {
		static const struct field dur = { .name = "dur", .label = "dur",
						  .type = F_UNSIGNED, .is_dur = true };

		if (!fp->has_return)
			return fe_err(fp->err, col_of(fp, at), "'dur' is a call's duration, from its "
				      "entry to its return: it needs the return event (-r, or a "
				      "return type)");
		*out = &dur;
		return 0;
	}
	for (i = 0; i < (size_t)fp->nr_fields; i++)
		names[nr++] = fp->fields[i].label;
	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		names[nr++] = common[i].name;
	found = NULL;
	{
		const char *near = fe_closest(word, names, nr);

		if (near)
			return fe_err(fp->err, col_of(fp, at), "no field '%s' in this event; did you mean '%s'?",
				      word, near);
	}
	for (i = 0; i < (size_t)fp->nr_fields; i++)
		fe_buf_printf(&both, "%s%s", i ? ", " : "", fp->fields[i].label);
	fe_err(fp->err, col_of(fp, at), "no field '%s' in this event (its fields: %s; and comm, common_pid, cpu%s)",
	       word, both.s ? both.s : "none", fp->has_return ? ", dur" : "");
	fe_buf_free(&both);
	return -1;
}

/*
 * A char * return is its pointer and, in LABEL__c, its string
 * (field_name.h): compared with a string ('~', or a quoted value), the
 * label means the string; with a number, the pointer.
 */
static const struct field *string_at(struct fparser *fp, const struct field *f,
				     const struct fe_fnode *n)
{
	const char *op = fp->text + n->op;
	char name[sizeof(f->name) + 4];
	int i;

	if (f->type == F_STRING || !n->op_len)
		return f;
	if (!(n->op_len == 1 && *op == '~') &&
	    !(n->op_len == 2 && (*op == '=' || *op == '!') && n->quote))
		return f;
	snprintf(name, sizeof(name), "%s__%c", f->name, FE_FLAG_STRING_AT);
	for (i = 0; i < fp->nr_fields; i++)
		if (fp->fields[i].type == F_STRING && fp->fields[i].on_return == f->on_return &&
		    !strcmp(fp->fields[i].name, name))
			return &fp->fields[i];
	return f;
}

static const char *const str_ops[] = { "==", "!=", "~" };

/*
 * 'dur > 100us': a duration with its unit (ns, us, ms, s), written in
 * nanoseconds, as the view compares it.  A bare number is refused: a
 * count of what would be a guess.
 */
static int duration_value(struct fparser *fp, const char *at, size_t len, struct fe_buf *out)
{
	static const struct { const char *unit; unsigned long long ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	unsigned long long v;
	size_t digits = 0, i;
	char *end;

	while (digits < len && at[digits] >= '0' && at[digits] <= '9')
		digits++;
	if (!digits)
		return fe_err(fp->err, col_of(fp, at), "'dur' is a duration: compare it with one, "
			      "e.g. 100us (ns, us, ms or s)");
	errno = 0;
	v = strtoull(at, &end, 10);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (len - digits != strlen(units[i].unit) ||
		    strncmp(at + digits, units[i].unit, len - digits))
			continue;
		if (errno == ERANGE || v > ~0ULL / units[i].ns)
			return fe_err(fp->err, col_of(fp, at), "%.*s does not fit 64 bits of "
				      "nanoseconds", (int)len, at);
		fe_buf_printf(out, "%llu", v * units[i].ns);
		return 0;
	}
	return fe_err(fp->err, col_of(fp, at + digits), "'dur' is a duration: give its unit, "
		      "e.g. %.*sus (ns, us, ms or s)", (int)digits, at);
}

/* A number's value as written (a word), checked as the kernel reads it. */
static int number_value(struct fparser *fp, const struct field *f, const char *at, size_t len,
			struct fe_buf *out)
{
	const char *digits = at;
	char *end;
	int named = named_value(fp, f, at, len, out);

	if (named <= 0)
		return named;
	if (*digits == '-' && f->type == F_UNSIGNED)
		return fe_err(fp->err, col_of(fp, at), "'%s' is unsigned: it is never negative",
			      f->label);
	if (*digits == '-')
		digits++;
	errno = 0;
	strtoull(digits, &end, 0);
	if (end == digits || end != at + len)
		return fe_err(fp->err, col_of(fp, at), "'%s' is a number: compare it with a number",
			      f->label);
	if (errno == ERANGE)
		return fe_err(fp->err, col_of(fp, at), "%.*s does not fit 64 bits", (int)len, at);
	fe_buf_printf(out, "%.*s", (int)len, at);
	return 0;
}

/*
 * One comparison checked against its field and written in the kernel's
 * names into out.  A comparison the parse stopped inside (no operator, no
 * value) gets the words its field's type calls for.
 */
static int comparison(struct fparser *fp, const struct fe_fnode *n, struct fe_buf *out)
{
	const char *t = fp->text, *value = t + n->value - (n->quote ? 1 : 0);
	const struct field *f;
	char op[3];
	size_t i;
	bool ok = false;

	if (find_field(fp, t + n->field, n->field_len, t + n->field, &f))
		return -1;
	f = string_at(fp, f, n);
	if (f->type == F_ARRAY)
		return fe_err(fp->err, col_of(fp, t + n->field),
			      "'%s' is an array, which kernel filters cannot compare", f->name);
	fp->sides |= f->is_dur ? 3 : f->on_return ? 2 : 1;
	fe_buf_printf(out, "%s", f->name);
	if (!n->op_len)
		return fe_err(fp->err, col_of(fp, t + n->op), "expected a comparison after '%s' (== != < <= > >= &%s)",
			      f->label, f->type == F_STRING ? ", or ~ for a glob" : "");
	snprintf(op, sizeof(op), "%.*s", n->op_len, t + n->op);
	if (f->type == F_STRING) {
		for (i = 0; i < sizeof(str_ops) / sizeof(str_ops[0]); i++)
			ok |= !strcmp(op, str_ops[i]);
		if (!ok)
			return fe_err(fp->err, col_of(fp, t + n->op), "'%s' is a string: compare it with ==, != or ~ (a glob), not %s",
				      f->label, op);
	} else if (!strcmp(op, "~")) {
		return fe_err(fp->err, col_of(fp, t + n->op), "'~' matches strings; '%s' is a number",
			      f->label);
	} else if (f->is_dur && !strcmp(op, "&")) {
		return fe_err(fp->err, col_of(fp, t + n->op), "'dur' is a duration: compare it with "
			      "== != < <= > >=, not &");
	}
	fe_buf_printf(out, " %s ", op);
	if (f->type != F_STRING) {
		if (n->quote || !n->has_value)
			return fe_err(fp->err, col_of(fp, value), "'%s' is a %s: compare it with %s",
				      f->label, f->is_dur ? "duration" : "number",
				      f->is_dur ? "one, e.g. 100us (ns, us, ms or s)" : "a number");
		if (f->is_dur)
			return duration_value(fp, value, n->value_len, out);
		return number_value(fp, f, value, n->value_len, out);
	}
	if (!n->quote)
		return fe_err(fp->err, col_of(fp, value), "'%s' is a string: write the value in quotes, e.g. \"%s\"",
			      f->label, f->name);
	if (!n->has_value)
		return 1;	/* no closing quote: the parse's error */
	fe_buf_printf(out, "%.*s", n->value_len + 2, value);
	return 0;
}

/* The tree written back, in the kernel's names. */
static int write_node(struct fparser *fp, const struct fe_fnode *n)
{
	switch (n->kind) {
	case FE_FN_OR:
	case FE_FN_AND:
		if (write_node(fp, n->a))
			return -1;
		fe_buf_printf(&fp->out, n->kind == FE_FN_OR ? " || " : " && ");
		return write_node(fp, n->b);
	case FE_FN_NOT:
		fe_buf_printf(&fp->out, "!");
		return write_node(fp, n->a);
	case FE_FN_GROUP:
		fe_buf_printf(&fp->out, "(");
		if (write_node(fp, n->a))
			return -1;
		fe_buf_printf(&fp->out, ")");
		return 0;
	default:
		return comparison(fp, n, &fp->out) ? -1 : 0;
	}
}

/*
 * The leftmost mistake: each comparison parsed is checked in the order
 * written, and a syntax error after them is said only if they are right.
 */
static int check_tree(struct fparser *fp, const struct fe_filter_tree *t)
{
	struct fe_buf scratch = { 0 };
	int i, ret = 0;

	for (i = 0; i < t->nr && !ret; i++)
		if (t->nodes[i].kind == FE_FN_CMP)
			ret = comparison(fp, &t->nodes[i], &scratch);
	fe_buf_free(&scratch);
	if (ret < 0)
		return -1;
	if (t->err != FE_FS_NONE)
		return fe_err(fp->err, col_of(fp, t->text + t->err_at), "%s",
			      fe_filter_syntax_msg(t));
	return 0;
}

int fe_filter_translate(const char *filter, int col, const char *entry_args,
			const char *ret_args, char **out, bool *on_return, bool *on_call,
			struct fe_error *err)
{
	return fe_filter_translate_values(filter, col, entry_args, ret_args, NULL, NULL, out,
					  on_return, on_call, err);
}

int fe_filter_translate_values(const char *filter, int col, const char *entry_args,
			       const char *ret_args, const char *entry_values,
			       const char *ret_values, char **out, bool *on_return,
			       bool *on_call, struct fe_error *err)
{
	struct fparser *fp = calloc(1, sizeof(*fp));
	struct fe_filter_tree tree = { 0 };
	int ret = -1;

	*out = NULL;
	if (!fp)
		return fe_err(err, 0, "out of memory");
	fp->text = filter;
	fp->col0 = col;
	fp->err = err;
	add_fields(fp, entry_args, false);
	add_fields(fp, ret_args, true);
	fp->has_return = ret_args != NULL;
	add_values(fp, entry_args ? entry_values : NULL, false);
	add_values(fp, ret_values, true);
	if (fe_filter_parse(filter, &tree)) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (check_tree(fp, &tree) || write_node(fp, tree.root))
		goto out;
	if (fp->out.failed) {
		fe_err(err, 0, "out of memory");
		goto out;
	}
	if (strlen(fp->out.s) > FE_KERNEL_MAX_FILTER) {
		fe_err(err, col, "the filter is %zu characters; the kernel takes at most %d",
		       strlen(fp->out.s), FE_KERNEL_MAX_FILTER);
		goto out;
	}
	*on_return = fp->sides == 2;
	*on_call = fp->sides == 3;
	*out = fe_buf_take(&fp->out);
	ret = 0;
out:
	fe_filter_tree_free(&tree);
	fe_buf_free(&fp->out);
	free(fp);
	return ret;
}

/*
 * The value at n written by name, as a prototype says it: the inverse of
 * named_value() (an errno of an errno-valued field or error pointer, an
 * enum's enumerator), into out; false where it has no name or is no
 * equality, whose number reads better than a name.
 */
static bool value_name(const struct fparser *fp, const struct fe_fnode *n, struct fe_buf *out)
{
	const char *t = fp->text, *op = t + n->op;
	const struct field *f = NULL;
	char word[32], *end, name[64];
	long long v;
	int i;

	if (n->quote || !n->has_value || n->op_len != 2 || (strncmp(op, "==", 2) &&
	    strncmp(op, "!=", 2)) || n->value_len >= (int)sizeof(word))
		return false;
	for (i = 0; i < fp->nr_fields && !f; i++)
		if ((int)strlen(fp->fields[i].name) == n->field_len &&
		    !strncmp(fp->fields[i].name, t + n->field, n->field_len))
			f = &fp->fields[i];
	if (!f)
		return false;
	snprintf(word, sizeof(word), "%.*s", n->value_len, t + n->value);
	errno = 0;
	v = f->is_err_ptr ? (long long)strtoull(word, &end, 0) : strtoll(word, &end, 0);
	if (*end || errno)
		return false;
	if ((f->is_errno || f->is_err_ptr) && fe_is_errno(v) && fe_errno_name((int)-v)) {
		fe_buf_printf(out, "-%s", fe_errno_name((int)-v));
		return true;
	}
	if (f->enums && enum_name(f, v, name, sizeof(name))) {
		fe_buf_printf(out, "%s", name);
		return true;
	}
	return false;
}

char *fe_filter_show_names(const char *filter, const char *entry_args, const char *ret_args,
			   const char *entry_values, const char *ret_values)
{
	struct fparser *fp = calloc(1, sizeof(*fp));
	struct fe_filter_tree tree = { 0 };
	char *shown = NULL;
	int i, at = 0;

	if (!fp)
		return NULL;
	fp->text = filter;
	add_fields(fp, entry_args, false);
	add_fields(fp, ret_args, true);
	add_values(fp, entry_args ? entry_values : NULL, false);
	add_values(fp, ret_values, true);
	if (fe_filter_parse(filter, &tree))
		goto out;
	/* comparisons in text order: the text between them as it is */
	for (i = 0; i < tree.nr; i++) {
		const struct fe_fnode *n = &tree.nodes[i];
		size_t len = fp->out.len;

		if (n->kind != FE_FN_CMP || n->value < at)
			continue;
		fe_buf_add(&fp->out, filter + at, n->value - at);
		if (value_name(fp, n, &fp->out))
			at = n->value + n->value_len;
		else
			fp->out.len = len;
	}
	fe_buf_add(&fp->out, filter + at, strlen(filter + at));
	if (!fp->out.failed)
		shown = fe_buf_take(&fp->out);
out:
	fe_filter_tree_free(&tree);
	fe_buf_free(&fp->out);
	free(fp);
	return shown;
}
