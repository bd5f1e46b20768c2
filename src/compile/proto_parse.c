// SPDX-License-Identifier: GPL-2.0
/*
 * Prototype parser: text -> struct fe_proto.
 *
 * The text is cut into tokens first (so the parser can look a few tokens
 * ahead to tell "TYPE NAME" from "NAME"), then parsed by recursive descent.
 * Columns count characters, not bytes, so a caret lines up under the text.
 *
 * One file, though long: it is one grammar (DESIGN.md section 2), each
 * production a function calling the next, sharing the tokenizer and its
 * lookahead; cut into files, a reader would follow one rule across them.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fe_util.h"
#include "proto_parse.h"

enum tok_kind {
	T_EOF,
	T_IDENT,
	T_NUM,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_PIPE,
	T_LBRACK,
	T_RBRACK,
	T_PLUS,
	T_EQ,
	T_AT,
	T_STAR,
	T_DOT,
	T_ARROW,
	T_ELLIPSIS,
	T_COLON,
	T_SEMI,
	T_MINUS,
	T_PERCENT,
	T_DOLLAR,
	T_SLASH,
	T_BSLASH,
	T_QMARK,		/* a glob's '?' */
	T_BANG,			/* a glob's '[!...]' */
};

struct tok {
	enum tok_kind kind;
	const char *start;
	int len;
	int col;
	bool space_before;	/* whitespace precedes it */
	unsigned long long num;
	bool is_hex;
};

struct parser {
	const char *text;
	struct tok *toks;
	int nr_toks;
	int i;			/* current token */
	struct fe_error *err;
	/* the tokenizer's place: columns are counted once, forward */
	const char *col_p;
	int col_n;
};

static const char *const atoms[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "char", "short", "int", "long",
	"size_t", "symbol", "string", "ustring",
};

/* Qualifiers and annotations a pasted kernel declaration may carry. */
static const char *const qualifiers[] = {
	"const", "volatile", "restrict", "__restrict", "__user", "__kernel",
	"__iomem", "__percpu", "__rcu", "__force", "__nocast", "__unused",
	"__maybe_unused",
};

/* Words before a pasted prototype's return type that carry no type. */
static const char *const storage_words[] = {
	"static", "extern", "inline", "__inline", "__always_inline",
	"noinline", "asmlinkage", "notrace", "__init", "__exit", "__cold",
	"__weak", "__visible", "__must_check", "noinstr", "__noreturn",
};

static const char *const int_words[] = {
	"signed", "unsigned", "char", "short", "int", "long", "void",
	"float", "double", "_Bool", "bool",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *s, int len, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(list[i]) == len && !strncmp(list[i], s, len))
			return true;
	return false;
}

bool fe_is_atom(const char *name)
{
	return in_list(name, strlen(name), atoms, ARRAY_LEN(atoms));
}

bool fe_arg_takes_slot(const struct fe_arg *arg)
{
	int i;

	if (arg->is_null)
		return true;
	for (i = 0; i < arg->nr_alts; i++)
		if (arg->alts[i].kind != FE_ALT_ADDR && arg->alts[i].kind != FE_ALT_FETCH)
			return true;
	return false;
}

/* Column of a byte offset: count the UTF-8 lead bytes before it. */
static int col_at(const char *text, const char *p)
{
	int col = 1;

	for (; text < p; text++)
		if (((unsigned char)*text & 0xc0) != 0x80)
			col++;
	return col;
}

/*
 * The tokenizer's columns: counted on from the last token's, so a long
 * prototype (a generated -f line of 200 KB) is read in linear time.
 */
static int tok_col(struct parser *ps, const char *p)
{
	if (!ps->col_p || p < ps->col_p) {
		ps->col_p = ps->text;
		ps->col_n = 1;
	}
	ps->col_n += col_at(ps->col_p, p) - 1;
	ps->col_p = p;
	return ps->col_n;
}

/*
 * A word that starts with a digit but is no number ("9J2u"), right after
 * a '/' or a '.': part of a FILE:N place's path, not a number.
 */
static bool path_word(const struct parser *ps, const char *p)
{
	const char *s = p;
	bool letters = false;

	if (!ps->nr_toks || (ps->toks[ps->nr_toks - 1].kind != T_SLASH &&
			     ps->toks[ps->nr_toks - 1].kind != T_DOT))
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return false;
	for (; isalnum((unsigned char)*s) || *s == '_'; s++)
		letters |= !isdigit((unsigned char)*s);
	return letters;
}

static int lex_number(struct parser *ps, struct tok *t, const char *p,
		      const char **endp)
{
	const char *s = p;
	unsigned long long v = 0;
	int base = 10;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	*endp = p;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (s == p)
			return fe_err(ps->err, t->col, "'%.*s' is not a number: hex digits must follow 0x",
				      (int)(p - t->start), t->start);
	}
	for (; s < p; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return fe_err(ps->err, t->col, "'%.*s' is not a number",
				      (int)(p - t->start), t->start);
		if (v > (ULLONG_MAX - d) / base)
			return fe_err(ps->err, t->col, "number '%.*s' is too large",
				      (int)(p - t->start), t->start);
		v = v * base + d;
	}
	t->num = v;
	t->is_hex = base == 16;
	return 0;
}

static int tokenize(struct parser *ps)
{
	const char *p = ps->text;
	int cap = 0;

	bool in_args = false;	/* past the first '(' */

	for (;;) {
		struct tok t = { 0 };
		bool space = false;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
			space = true;
		}
		t.start = p;
		t.col = tok_col(ps, p);
		t.space_before = space;
		if (ps->nr_toks == cap) {
			struct tok *n;

			cap = cap ? cap * 2 : 32;
			n = realloc(ps->toks, cap * sizeof(*n));
			if (!n)
				return fe_err(ps->err, 0, "out of memory");
			ps->toks = n;
		}
		if (!*p) {
			t.kind = T_EOF;
			ps->toks[ps->nr_toks++] = t;
			return 0;
		}
		if ((unsigned char)*p >= 0x80)
			return fe_err(ps->err, t.col, "non-ASCII character: names and types are ASCII identifiers");
		if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			/* A non-ASCII letter inside a name is still a bad name. */
			if ((unsigned char)*p >= 0x80)
				return fe_err(ps->err, tok_col(ps, p),
					      "non-ASCII character: names and types are ASCII identifiers");
			t.kind = T_IDENT;
		} else if (isdigit((unsigned char)*p) && path_word(ps, p)) {
			/* "tmp.9J2u" in "/tmp/tmp.9J2u/f.c:15": a path's word */
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			t.kind = T_IDENT;
		} else if (isdigit((unsigned char)*p)) {
			t.kind = T_NUM;
			if (lex_number(ps, &t, p, &p))
				return -1;
		} else if (p[0] == '-' && p[1] == '>') {
			t.kind = T_ARROW;
			p += 2;
		} else if (p[0] == '.' && p[1] == '.' && p[2] == '.') {
			t.kind = T_ELLIPSIS;
			p += 3;
		} else {
			switch (*p) {
			case '(': t.kind = T_LPAREN; break;
			case ')': t.kind = T_RPAREN; break;
			case ',': t.kind = T_COMMA; break;
			case '|': t.kind = T_PIPE; break;
			case '[': t.kind = T_LBRACK; break;
			case ']': t.kind = T_RBRACK; break;
			case '+': t.kind = T_PLUS; break;
			case '=': t.kind = T_EQ; break;
			case '@': t.kind = T_AT; break;
			case '*': t.kind = T_STAR; break;
			case '.': t.kind = T_DOT; break;
			case ':': t.kind = T_COLON; break;
			case ';': t.kind = T_SEMI; break;
			/* the kernel's own fetch arguments, after 'TYPE LABEL=' */
			case '-': t.kind = T_MINUS; break;
			case '%': t.kind = T_PERCENT; break;
			case '$': t.kind = T_DOLLAR; break;
			case '/': t.kind = T_SLASH; break;
			case '\\': t.kind = T_BSLASH; break;
			/* a glob in the function name (DESIGN.md section 12),
			 * before the first '(' */
			case '?': t.kind = T_QMARK; break;
			case '!': t.kind = T_BANG; break;
			default:
				break;
			}
			if ((t.kind == T_QMARK || t.kind == T_BANG) && in_args)
				t.kind = T_EOF;
			if (t.kind == T_EOF) {
				if (isprint((unsigned char)*p))
					return fe_err(ps->err, t.col, "unexpected character '%c'", *p);
				return fe_err(ps->err, t.col, "unexpected control character 0x%02x",
					      (unsigned char)*p);
			}
			in_args |= t.kind == T_LPAREN;
			p++;
		}
		t.len = p - t.start;
		ps->toks[ps->nr_toks++] = t;
	}
}

static struct tok *cur(struct parser *ps)
{
	return &ps->toks[ps->i];
}

static struct tok *peek(struct parser *ps, int ahead)
{
	int i = ps->i + ahead;

	if (i >= ps->nr_toks)
		i = ps->nr_toks - 1;	/* the EOF token */
	return &ps->toks[i];
}

static bool is_word(const struct tok *t, const char *w)
{
	return t->kind == T_IDENT && t->len == (int)strlen(w) &&
	       !strncmp(t->start, w, t->len);
}

static bool is_in(const struct tok *t, const char *const *list, size_t n)
{
	return t->kind == T_IDENT && in_list(t->start, t->len, list, n);
}

static bool is_qualifier(const struct tok *t)
{
	return is_in(t, qualifiers, ARRAY_LEN(qualifiers));
}

static bool is_int_word(const struct tok *t)
{
	return is_in(t, int_words, ARRAY_LEN(int_words));
}

static bool is_atom_tok(const struct tok *t)
{
	return is_in(t, atoms, ARRAY_LEN(atoms));
}

static bool is_tag_word(const struct tok *t)
{
	return is_word(t, "struct") || is_word(t, "union") || is_word(t, "enum");
}

/* How a token reads in a message. */
static const char *describe(const struct tok *t, char *buf, size_t size)
{
	if (t->kind == T_EOF)
		return "the end";
	snprintf(buf, size, "'%.*s'", t->len > 40 ? 40 : t->len, t->start);
	return buf;
}

static int unexpected(struct parser *ps, const struct tok *t, const char *wanted)
{
	char b[64];

	return fe_err(ps->err, t->col, "expected %s, found %s", wanted,
		      describe(t, b, sizeof(b)));
}

static char *tok_dup(const struct tok *t)
{
	return strndup(t->start, t->len);
}

static int oom(struct parser *ps)
{
	return fe_err(ps->err, 0, "out of memory");
}

static void tspec_free(struct fe_tspec *ts)
{
	if (!ts)
		return;
	free(ts->text);
	free(ts->name);
	free(ts);
}

/*
 * Combine C integer keywords (any order, as C allows) into one type.
 * first..last are the keyword tokens, qualifiers already skipped.
 */
static int int_keywords(struct parser *ps, struct fe_tspec *ts,
			struct tok **kw, int n)
{
	int nsigned = 0, nunsigned = 0, nchar = 0, nshort = 0, nint = 0;
	int nlong = 0, nvoid = 0, nfloat = 0, ndouble = 0, nbool = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct tok *t = kw[i];

		if (is_word(t, "signed")) nsigned++;
		else if (is_word(t, "unsigned")) nunsigned++;
		else if (is_word(t, "char")) nchar++;
		else if (is_word(t, "short")) nshort++;
		else if (is_word(t, "int")) nint++;
		else if (is_word(t, "long")) nlong++;
		else if (is_word(t, "void")) nvoid++;
		else if (is_word(t, "float")) nfloat++;
		else if (is_word(t, "double")) ndouble++;
		else nbool++;
	}
	ts->is_int_kw = true;
	ts->has_unsigned = nunsigned > 0;
	if (nvoid || nbool || nfloat) {
		if (n != 1)
			return fe_err(ps->err, kw[1]->col, "'%.*s' cannot be combined with '%.*s'",
				      kw[0]->len, kw[0]->start, kw[1]->len, kw[1]->start);
		ts->is_int_kw = false;
		ts->is_void = nvoid;
		ts->is_bool = nbool;
		ts->is_float = nfloat;
		ts->int_size = nbool ? 1 : nfloat ? 4 : 0;
		return 0;
	}
	if (ndouble) {
		if (n != ndouble + nlong || ndouble > 1 || nlong > 1)
			return fe_err(ps->err, kw[0]->col, "'double' combines only with one 'long'");
		ts->is_int_kw = false;
		ts->is_float = true;
		ts->int_size = nlong ? 16 : 8;
		return 0;
	}
	if (nsigned + nunsigned > 1)
		return fe_err(ps->err, kw[0]->col, "conflicting or repeated 'signed'/'unsigned'");
	if (nchar > 1 || nshort > 1 || nint > 1 || nlong > 2 ||
	    (nchar && (nshort || nlong || nint)) || (nshort && nlong))
		return fe_err(ps->err, kw[0]->col, "invalid combination of integer keywords");
	ts->is_signed = !nunsigned;
	if (nchar) {
		ts->int_size = 1;
		ts->is_plain_char = !nsigned && !nunsigned;
	} else if (nshort) {
		ts->int_size = 2;
	} else if (nlong) {
		ts->int_size = 8;
	} else {
		ts->int_size = 4;
	}
	return 0;
}

/* Append a token's text to the normalised spelling. */
static void spell(struct fe_buf *b, const struct tok *t)
{
	bool glue = t->kind == T_STAR && b->len && b->s[b->len - 1] == '*';

	if (b->len && !glue)
		fe_buf_printf(b, " ");
	fe_buf_printf(b, "%.*s", t->len, t->start);
}

/*
 * Parse a type.  Stops before the declared name.  Fills *out on success.
 */
/* "b4@3/32": the kernel's bitfield type, an IDENT b<digits> then '@' */
static bool is_bitfield_start(struct parser *ps)
{
	const struct tok *t = cur(ps);
	int i;

	if (t->kind != T_IDENT || t->len < 2 || t->start[0] != 'b' || peek(ps, 1)->kind != T_AT ||
	    peek(ps, 1)->space_before)
		return false;
	for (i = 1; i < t->len; i++)
		if (!isdigit((unsigned char)t->start[i]))
			return false;
	return true;
}

/* b<width>@<offset>/<container bits>, as the kernel writes it */
static int parse_bitfield(struct parser *ps, struct fe_tspec *ts)
{
	struct tok *w = cur(ps), *o = peek(ps, 2), *slash = peek(ps, 3), *c = peek(ps, 4);
	unsigned long width = strtoul(w->start + 1, NULL, 10);

	if (o->kind != T_NUM || o->space_before)
		return unexpected(ps, o, "the bit offset after '@' (b<width>@<offset>/<bits>)");
	if (slash->kind != T_SLASH || slash->space_before)
		return unexpected(ps, slash, "'/' and the container's bits (b<width>@<offset>/<bits>)");
	if (c->kind != T_NUM || c->space_before)
		return unexpected(ps, c, "the container's bits after '/'");
	if (c->num != 8 && c->num != 16 && c->num != 32 && c->num != 64)
		return fe_err(ps->err, c->col, "a bitfield's container is 8, 16, 32 or 64 bits, not %llu",
			      c->num);
	if (!width || width > c->num || o->num > c->num - width)
		return fe_err(ps->err, w->col, "bits %llu..%llu do not fit a %llu-bit container",
			      o->num, o->num + width - 1, c->num);
	ts->bf_width = width;
	ts->bf_offset = o->num;
	ts->bf_container = c->num;
	ps->i += 5;
	return 0;
}

/* The integer keywords of a type ('unsigned long', 'u32 const'). */
static int tspec_int_words(struct parser *ps, struct fe_tspec *ts, struct fe_buf *text)
{
	struct tok *kw[8];
	int nkw = 0;

	while (is_int_word(cur(ps)) || is_qualifier(cur(ps))) {
		if (is_qualifier(cur(ps))) {
			if (is_word(cur(ps), "__user"))
				ts->user[0] = true;
		} else if (nkw == (int)ARRAY_LEN(kw)) {
			return fe_err(ps->err, cur(ps)->col, "too many type keywords");
		} else {
			kw[nkw++] = cur(ps);
		}
		spell(text, cur(ps));
		ps->i++;
	}
	if (nkw == 0)
		return unexpected(ps, cur(ps), "a type");
	if (int_keywords(ps, ts, kw, nkw))
		return -1;
	/*
	 * 'unsigned' alone is 'unsigned int', but 'unsigned x32' or
	 * 'unsigned size_t' mean the writer took it for a modifier.
	 */
	if (ts->is_int_kw && nkw == 1 && (is_word(kw[0], "unsigned") || is_word(kw[0], "signed")) &&
	    cur(ps)->kind == T_IDENT &&
	    (is_atom_tok(cur(ps)) || peek(ps, 1)->kind == T_IDENT ||
	     peek(ps, 1)->kind == T_STAR))
		return fe_err(ps->err, cur(ps)->col,
			      "'%.*s' applies to char, short, int and long, not to '%.*s'",
			      kw[0]->len, kw[0]->start, cur(ps)->len, cur(ps)->start);
	return 0;
}

/* What follows a type's name: qualifiers and pointer levels, then
 * Rostedt's [N], an array of N elements at the address. */
/* The identifier at the cursor is the type's (or tag's) name: keep and spell it. */
static int tspec_name(struct parser *ps, struct fe_tspec *ts, struct fe_buf *text)
{
	ts->name = tok_dup(cur(ps));
	if (!ts->name) {
		oom(ps);
		return -1;
	}
	spell(text, cur(ps));
	ps->i++;
	return 0;
}

/*
 * "__unused" where a name goes (before ',' ')' '=' '->' '.') is the name:
 * the kernel's SYSCALL_DEFINE0 names its wrapper's one parameter so,
 * "const struct pt_regs *__unused", and list renders it back.
 */
static bool is_unused_name(struct parser *ps)
{
	enum tok_kind next = peek(ps, 1)->kind;

	return is_word(cur(ps), "__unused") &&
	       (next == T_COMMA || next == T_RPAREN || next == T_EQ || next == T_ARROW ||
		next == T_DOT || next == T_EOF);
}

static int tspec_suffix(struct parser *ps, struct fe_tspec *ts, struct fe_buf *text)
{
	int level = 0;

	for (;;) {
		struct tok *t = cur(ps);

		if (is_unused_name(ps)) {
			break;
		} else if (is_qualifier(t)) {
			if (is_word(t, "__user"))
				ts->user[level] = true;
		} else if (t->kind == T_STAR) {
			if (level == FE_MAX_PTR_LEVELS)
				return fe_err(ps->err, t->col, "more than %d levels of pointers",
					      FE_MAX_PTR_LEVELS);
			level++;
		} else {
			break;
		}
		spell(text, t);
		ps->i++;
	}
	ts->nr_ptr = level;
	if (cur(ps)->kind == T_LBRACK) {
		struct tok *n = peek(ps, 1);

		if (n->kind != T_NUM)
			return unexpected(ps, n, "an array length");
		if (peek(ps, 2)->kind != T_RBRACK)
			return unexpected(ps, peek(ps, 2), "']'");
		ts->array = n->num;
		ts->array_col = n->col;
		if (ts->array == 0)
			return fe_err(ps->err, n->col, "an array needs at least one element");
		fe_buf_printf(text, "[%llu]", n->num);
		ps->i += 3;
	}
	return 0;
}

/* A bitfield type, 'b4@3/32': one value, no array, no pointer. */
static int tspec_bitfield(struct parser *ps, struct fe_tspec *ts, struct fe_buf *text)
{
	if (parse_bitfield(ps, ts))
		return -1;
	fe_buf_printf(text, "b%u@%u/%u", ts->bf_width, ts->bf_offset, ts->bf_container);
	if (cur(ps)->kind == T_LBRACK || cur(ps)->kind == T_STAR)
		return fe_err(ps->err, cur(ps)->col, "a bitfield type is one value: no array, no pointer");
	return 0;
}

static int parse_tspec(struct parser *ps, struct fe_tspec **out)
{
	struct fe_tspec *ts;
	struct fe_buf text = { 0 };

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return oom(ps);
	ts->col = cur(ps)->col;

	if (is_bitfield_start(ps)) {
		if (tspec_bitfield(ps, ts, &text))
			goto fail;
		goto done;
	}

	/* leading qualifiers */
	while (is_qualifier(cur(ps))) {
		if (is_word(cur(ps), "__user"))
			ts->user[0] = true;
		spell(&text, cur(ps));
		ps->i++;
	}

	if (is_tag_word(cur(ps))) {
		struct tok *tag = cur(ps);

		ts->tag = is_word(tag, "struct") ? FE_TAG_STRUCT :
			  is_word(tag, "union") ? FE_TAG_UNION : FE_TAG_ENUM;
		spell(&text, tag);
		ps->i++;
		if (cur(ps)->kind != T_IDENT) {
			unexpected(ps, cur(ps), "a tag name");
			goto fail;
		}
		if (tspec_name(ps, ts, &text))
			goto fail;
	} else if (is_int_word(cur(ps))) {
		if (tspec_int_words(ps, ts, &text))
			goto fail;
	} else if (cur(ps)->kind == T_IDENT) {
		if (tspec_name(ps, ts, &text))
			goto fail;
	} else {
		unexpected(ps, cur(ps), "a type");
		goto fail;
	}
	if (tspec_suffix(ps, ts, &text))
		goto fail;
done:
	ts->text = fe_buf_take(&text);
	if (!ts->text) {
		oom(ps);
		goto fail;
	}
	*out = ts;
	return 0;
fail:
	fe_buf_free(&text);
	tspec_free(ts);
	return -1;
}

/* Does an argument start with a type (as opposed to a bare name)? */
static bool starts_with_type(struct parser *ps)
{
	struct tok *t = cur(ps);
	struct tok *n = peek(ps, 1);

	if (t->kind != T_IDENT)
		return false;
	if (is_qualifier(t) || is_tag_word(t) || is_int_word(t) || is_atom_tok(t) ||
	    is_bitfield_start(ps))
		return true;
	if (n->kind == T_IDENT || n->kind == T_STAR)
		return true;
	/* "x8[6] name": an array type; "skb[2]" alone is C indexing */
	if (n->kind == T_LBRACK && peek(ps, 2)->kind == T_NUM &&
	    peek(ps, 3)->kind == T_RBRACK && peek(ps, 4)->kind == T_IDENT)
		return true;
	return false;
}

static int add_step(struct parser *ps, struct fe_alt *alt, struct fe_step *s)
{
	struct fe_step *n = fe_grow(&alt->steps, &alt->nr_steps, sizeof(*n));

	if (!n) {
		free(s->member);
		return oom(ps);
	}
	*n = *s;
	return 0;
}

/* { '+' N | '[' N ']' | '->' M | '.' M } */
static int parse_steps(struct parser *ps, struct fe_alt *alt)
{
	for (;;) {
		struct tok *t = cur(ps);
		struct fe_step s = { .col = t->col };

		switch (t->kind) {
		case T_PLUS:
			if (peek(ps, 1)->kind != T_NUM)
				return unexpected(ps, peek(ps, 1), "a byte offset after '+'");
			s.kind = FE_STEP_ADD;
			s.num = peek(ps, 1)->num;
			ps->i += 2;
			break;
		case T_LBRACK:
			if (peek(ps, 1)->kind != T_NUM)
				return unexpected(ps, peek(ps, 1), "an index");
			if (peek(ps, 2)->kind != T_RBRACK)
				return unexpected(ps, peek(ps, 2), "']'");
			s.kind = FE_STEP_INDEX;
			s.num = peek(ps, 1)->num;
			ps->i += 3;
			break;
		case T_ARROW:
		case T_DOT:
			if (peek(ps, 1)->kind == T_STAR && !alt->whole) {
				/* 'p->*', 'p->s.*': every member; nothing after */
				alt->whole = t->kind == T_ARROW ? FE_WHOLE_DEREF : FE_WHOLE_HERE;
				alt->whole_col = peek(ps, 1)->col;
				ps->i += 2;
				return 0;
			}
			if (peek(ps, 1)->kind != T_IDENT)
				return unexpected(ps, peek(ps, 1), "a member name");
			s.kind = t->kind == T_ARROW ? FE_STEP_ARROW : FE_STEP_DOT;
			s.member = tok_dup(peek(ps, 1));
			if (!s.member)
				return oom(ps);
			ps->i += 2;
			break;
		default:
			return 0;
		}
		if (add_step(ps, alt, &s))
			return -1;
	}
}

static bool has_path_step(const struct fe_alt *alt)
{
	int i;

	for (i = 0; i < alt->nr_steps; i++)
		if (alt->steps[i].kind == FE_STEP_ARROW || alt->steps[i].kind == FE_STEP_DOT)
			return true;
	return false;
}

static const struct fe_step *first_step(const struct fe_alt *alt, enum fe_step_kind k)
{
	int i;

	for (i = 0; i < alt->nr_steps; i++)
		if (alt->steps[i].kind == k)
			return &alt->steps[i];
	return NULL;
}

/* '=' ADDR: 0xHEX or @SYMBOL */
static int parse_addr(struct parser *ps, struct fe_alt *alt)
{
	struct tok *t = cur(ps);

	alt->kind = FE_ALT_ADDR;
	if (t->kind == T_AT) {
		if (peek(ps, 1)->kind != T_IDENT)
			return unexpected(ps, peek(ps, 1), "a symbol name after '@'");
		alt->symbol = tok_dup(peek(ps, 1));
		if (!alt->symbol)
			return oom(ps);
		ps->i += 2;
		return 0;
	}
	if (!t->is_hex)
		return fe_err(ps->err, t->col, "an address is written 0xHEX or @symbol");
	alt->addr = t->num;
	ps->i++;
	return 0;
}

/* The pt_regs names the kernel's x86-64 fetch arguments know. */
static const char *const registers[] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11", "r12",
	"r13", "r14", "r15", "ip", "flags", "cs", "ss", "orig_ax",
};

bool fe_fetch_register(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(registers); i++)
		if (strlen(registers[i]) == len && !strncmp(registers[i], name, len))
			return true;
	return false;
}

/* After 'TYPE LABEL=': does the kernel's own notation follow? ('@SYMBOL'
 * alone and 0xADDR are ADDR, the older spelling of the same read.) */
static bool is_fetch_start(struct parser *ps)
{
	const struct tok *t = cur(ps), *n = peek(ps, 1), *n2 = peek(ps, 2);

	switch (t->kind) {
	case T_PERCENT:
	case T_DOLLAR:
	case T_PLUS:
	case T_MINUS:
	case T_BSLASH:
		return true;
	case T_AT:
		return n->kind == T_PLUS || n->kind == T_NUM ||
		       (n->kind == T_IDENT && (n2->kind == T_PLUS || n2->kind == T_MINUS) &&
			!n2->space_before);
	default:
		return false;
	}
}

static int adjacent(struct parser *ps, const struct tok *t, const char *wanted)
{
	if (t->space_before)
		return fe_err(ps->err, t->col,
			      "a fetch argument is written without spaces; expected %s here", wanted);
	return 0;
}

static int parse_fetch(struct parser *ps, struct fe_alt *alt, int depth);

/* '+N(FETCH)', '-N(...)', '+uN(...)': memory at the inner fetch's value plus N. */
static int fetch_deref(struct parser *ps, struct fe_alt *alt, int depth, struct tok *t,
		       struct tok *n)
{
	struct fe_deref *d;
	unsigned long long off;
	bool user = false;

	if (n->kind == T_IDENT && n->start[0] == 'u' && n->len > 1 &&
	    isdigit((unsigned char)n->start[1])) {
		char *end;

		errno = 0;
		off = strtoull(n->start + 1, &end, 0);
		if (errno || end != n->start + n->len)
			return unexpected(ps, n, "an offset after '+u'");
		user = true;
	} else if (n->kind == T_NUM) {
		off = n->num;
	} else {
		return unexpected(ps, n, "an offset after the sign");
	}
	if (adjacent(ps, n, "the offset") || adjacent(ps, peek(ps, 2), "'('"))
		return -1;
	if (off > 0x7fffffffULL + (t->kind == T_MINUS))
		return fe_err(ps->err, n->col,
			      "offset %llu does not fit the kernel's 32-bit fetch offset", off);
	if (peek(ps, 2)->kind != T_LPAREN)
		return unexpected(ps, peek(ps, 2), "'(' after the offset");
	ps->i += 3;
	if (parse_fetch(ps, alt, depth + 1))
		return -1;
	if (cur(ps)->kind != T_RPAREN)
		return unexpected(ps, cur(ps), "')'");
	if (adjacent(ps, cur(ps), "')'"))
		return -1;
	ps->i++;
	d = fe_grow(&alt->derefs, &alt->nr_derefs, sizeof(*d));
	if (!d)
		return oom(ps);
	d->off = t->kind == T_MINUS ? -(long long)off : (long long)off;
	d->user = user;
	d->col = t->col;
	return 0;
}

/* \IMM: a constant (what DWARF gives a propagated value) */
static int fetch_const(struct parser *ps, struct fe_alt *alt, int depth, struct tok *t,
		       struct tok *n)
{
	bool neg = n->kind == T_MINUS;
	const struct tok *num = neg ? peek(ps, 2) : n;

	if (depth)
		return fe_err(ps->err, t->col, "a constant cannot be dereferenced");
	if (num->kind != T_NUM || adjacent(ps, n, "a number after '\\'") ||
	    (neg && adjacent(ps, num, "a number after '\\-'")))
		return unexpected(ps, num, "a number after '\\'");
	if (num->num > (neg ? 0x8000000000000000ULL : ~0ULL))
		return fe_err(ps->err, num->col, "constant out of range");
	if ((neg && asprintf(&alt->base, "\\-%llu", num->num) < 0) ||
	    (!neg && asprintf(&alt->base, "\\%llu", num->num) < 0)) {
		alt->base = NULL;
		return oom(ps);
	}
	ps->i += neg ? 3 : 2;
	return 0;
}

/* %REG: an x86-64 register */
static int fetch_register(struct parser *ps, struct fe_alt *alt, struct tok *n)
{
	char b[64];

	if (n->kind != T_IDENT || !is_in(n, registers, ARRAY_LEN(registers)))
		return fe_err(ps->err, n->col,
			      "expected an x86-64 register after '%%' (%%di, %%si, %%dx, %%cx, %%r8, %%ax, %%sp, ...), found %s",
			      describe(n, b, sizeof(b)));
	if (adjacent(ps, n, "the register name"))
		return -1;
	if (asprintf(&alt->base, "%%%.*s", n->len, n->start) < 0) {
		alt->base = NULL;
		return oom(ps);
	}
	ps->i += 2;
	return 0;
}

/* Is t the word prefix followed by digits only (at least min of them)? */
static bool word_digits(const struct tok *t, const char *prefix, int min)
{
	int len = strlen(prefix), i;

	if (t->kind != T_IDENT || t->len < len + min || strncmp(t->start, prefix, len))
		return false;
	for (i = len; i < t->len; i++)
		if (!isdigit((unsigned char)t->start[i]))
			return false;
	return true;
}

/* $stack, $stackN, and a tracepoint probe's $argN (tp:NAME) */
static int fetch_dollar(struct parser *ps, struct fe_alt *alt, struct tok *n)
{
	bool arg = word_digits(n, "arg", 1);
	char b[64];

	if (!arg && !word_digits(n, "stack", 0)) {
		if (is_word(n, "retval"))
			return fe_err(ps->err, n->col,
				      "the return value is read by a return type: write 'TYPE FUNC(...)'");
		return fe_err(ps->err, n->col, "expected '$stack' or '$stackN' after '$', found %s",
			      describe(n, b, sizeof(b)));
	}
	if (adjacent(ps, n, arg ? "'arg'" : "'stack'"))
		return -1;
	if (asprintf(&alt->base, "$%.*s", n->len, n->start) < 0) {
		alt->base = NULL;
		return oom(ps);
	}
	ps->i += 2;
	return 0;
}

/* @SYMBOL, @SYMBOL+N, @0xADDR, @+OFFSET: memory at an address */
static int fetch_address(struct parser *ps, struct fe_alt *alt, struct tok *n)
{
	struct tok *t;

	if (adjacent(ps, n, "what follows '@'"))
		return -1;
	if (n->kind == T_PLUS) {
		if (peek(ps, 2)->kind != T_NUM || adjacent(ps, peek(ps, 2), "the file offset"))
			return unexpected(ps, peek(ps, 2), "a file offset after '@+'");
		alt->file_offset = true;
		alt->addr = peek(ps, 2)->num;
		ps->i += 3;
		return 0;
	}
	if (n->kind == T_NUM) {
		alt->addr = n->num;
		ps->i += 2;
		return 0;
	}
	if (n->kind != T_IDENT)
		return unexpected(ps, n, "a symbol, an address or '+OFFSET' after '@'");
	alt->symbol = tok_dup(n);
	if (!alt->symbol)
		return oom(ps);
	ps->i += 2;
	t = cur(ps);
	if ((t->kind == T_PLUS || t->kind == T_MINUS) && !t->space_before) {
		n = peek(ps, 1);
		if (n->kind != T_NUM || adjacent(ps, n, "the offset"))
			return unexpected(ps, n, "an offset after the symbol");
		if (n->num > 0x7fffffffULL)
			return fe_err(ps->err, n->col, "offset %llu is too large", n->num);
		alt->addr_off = t->kind == T_MINUS ? -(long long)n->num : (long long)n->num;
		ps->i += 2;
	}
	return 0;
}

/*
 * FETCH := '%'REG | '$stack' | '$stack'N | '$arg'N | '\\'IMM | '@'SYMBOL[+-N] |
 *          '@'ADDR | '@+'OFFSET | ('+'|'-')['u']N'(' FETCH ')'
 * as kprobetrace.rst writes it; derefs are appended innermost first.
 */
static int parse_fetch(struct parser *ps, struct fe_alt *alt, int depth)
{
	struct tok *t = cur(ps), *n = peek(ps, 1);

	if (depth > FE_MAX_FETCH_DEPTH)
		return fe_err(ps->err, t->col, "more than %d nested '+N(...)'", FE_MAX_FETCH_DEPTH);
	if (depth && adjacent(ps, t, "the fetch argument"))
		return -1;
	if (t->kind == T_PLUS || t->kind == T_MINUS)
		return fetch_deref(ps, alt, depth, t, n);
	if (t->kind == T_BSLASH)
		return fetch_const(ps, alt, depth, t, n);
	if (t->kind == T_PERCENT)
		return fetch_register(ps, alt, n);
	if (t->kind == T_DOLLAR)
		return fetch_dollar(ps, alt, n);
	if (t->kind == T_AT)
		return fetch_address(ps, alt, n);
	return unexpected(ps, t,
			  "a register (%di), a stack slot ($stack1), an address (@SYMBOL, @0xADDR, @+OFFSET) or +OFFSET(...)");
}

static int set_name(struct parser *ps, char **dst, int *col)
{
	struct tok *t = cur(ps);

	*dst = tok_dup(t);
	if (!*dst)
		return oom(ps);
	*col = t->col;
	ps->i++;
	return 0;
}

/* "LABEL=PARAM...": what was read as the name is the label; the head follows. */
static int label_then_head(struct parser *ps, struct fe_alt *alt)
{
	alt->label = alt->name;
	alt->label_col = alt->name_col;
	alt->name = NULL;
	alt->kind = FE_ALT_PATH;
	return set_name(ps, &alt->name, &alt->name_col);
}

/* "TYPE NAME", "TYPE NAME->path", "TYPE LABEL=ADDR", "TYPE LABEL=FETCH",
 * "TYPE LABEL=path": a read with a written type. */
static int typed_alt(struct parser *ps, struct fe_alt *alt)
{
	const struct fe_step *add;

	if (parse_tspec(ps, &alt->type))
		return -1;
	if (cur(ps)->kind != T_IDENT) {
		char b[64];

		return fe_err(ps->err, cur(ps)->col, "expected a name after the type '%s', found %s",
			      alt->type->text, describe(cur(ps), b, sizeof(b)));
	}
	if (set_name(ps, &alt->name, &alt->name_col))
		return -1;
	if (cur(ps)->kind == T_EQ) {
		ps->i++;
		if (is_fetch_start(ps)) {
			alt->kind = FE_ALT_FETCH;
			return parse_fetch(ps, alt, 0);
		}
		if (cur(ps)->kind == T_NUM || cur(ps)->kind == T_AT)
			return parse_addr(ps, alt);
		if (cur(ps)->kind != T_IDENT)
			return unexpected(ps, cur(ps), "an address (0xHEX or @symbol) or a parameter path after '='");
		/* TYPE LABEL=EXPR */
		if (label_then_head(ps, alt) || parse_steps(ps, alt))
			return -1;
	} else {
		if (parse_steps(ps, alt))
			return -1;
		alt->kind = has_path_step(alt) ? FE_ALT_PATH : FE_ALT_SLOT;
	}
	if (alt->whole)
		return fe_err(ps->err, alt->type->col,
			      "a whole struct ('%s*') is read member by member, each by its own type: drop '%s'",
			      alt->whole == FE_WHOLE_DEREF ? "->" : ".", alt->type->text);
	add = first_step(alt, FE_STEP_ADD);
	/* "x16 port=uaddr+2" is the resolver's to explain: which
	 * slot 'uaddr' is in decides what to write instead */
	if (alt->kind == FE_ALT_PATH && add && alt->label && !has_path_step(alt))
		return 0;
	if (alt->kind == FE_ALT_PATH && add)
		return fe_err(ps->err, add->col,
			      "'+N' hops and '->'/'.' member paths cannot be mixed in one argument");
	return 0;
}

/* "NAME", "NAME->path", "*p", "LABEL=path": a read typed by the debug info. */
static int named_alt(struct parser *ps, struct fe_alt *alt)
{
	struct tok *t = cur(ps);
	const struct fe_step *add;

	if (t->kind == T_STAR && peek(ps, 1)->kind == T_IDENT) {
		/* '*p': every member of the struct p points to */
		alt->whole = FE_WHOLE_DEREF;
		alt->whole_col = t->col;
		ps->i++;
		t = cur(ps);
	}
	if (t->kind != T_IDENT)
		return unexpected(ps, t, "a type or a parameter name");
	alt->kind = FE_ALT_PATH;
	if (set_name(ps, &alt->name, &alt->name_col))
		return -1;
	if (cur(ps)->kind == T_EQ && !alt->whole) {
		ps->i++;
		if (cur(ps)->kind == T_STAR && peek(ps, 1)->kind == T_IDENT) {
			/* 'LABEL=*p' */
			alt->whole = FE_WHOLE_DEREF;
			alt->whole_col = cur(ps)->col;
			ps->i++;
		}
		if (cur(ps)->kind == T_NUM || cur(ps)->kind == T_AT)
			return fe_err(ps->err, alt->name_col,
				      "an address needs a type: write 'TYPE %s=ADDR'", alt->name);
		if (is_fetch_start(ps))
			return fe_err(ps->err, alt->name_col,
				      "a fetch argument needs a type: write 'TYPE %s=FETCH'", alt->name);
		if (cur(ps)->kind != T_IDENT)
			return unexpected(ps, cur(ps), "a parameter path after '='");
		if (label_then_head(ps, alt))
			return -1;
	}
	{
		enum fe_whole star = alt->whole;
		int star_col = alt->whole_col;

		alt->whole = FE_WHOLE_NONE;
		if (parse_steps(ps, alt))
			return -1;
		if (star && alt->whole)
			return fe_err(ps->err, alt->whole_col,
				      "'*' already reads every member (at column %d): write one of them",
				      star_col);
		if (star) {
			alt->whole = star;
			alt->whole_col = star_col;
		}
	}
	add = first_step(alt, FE_STEP_ADD);
	if (add && alt->whole)
		return fe_err(ps->err, add->col, "'+N' hops cannot be mixed with a whole struct ('*')");
	if (add && alt->label && !has_path_step(alt))
		return 0;	/* "port=uaddr+2": as above */
	if (add)
		return fe_err(ps->err, add->col,
			      "a '+N' hop needs a type before the name, e.g. 'x64 %s+%llu'",
			      alt->name, add->num);
	return 0;
}

/*
 * A type word alone, "u32" in 'f(u32)' or 'f(string, x)': no type (it has
 * no name after it), so a parameter named so (DESIGN.md section 2: NAME,
 * by name), as in 'f(int u32)'; also before '->' or '.', which follow no
 * type.  C's own words (int, long, char, ...) name no parameter of a C
 * function: 'f(int)' stays a type without its name.
 */
static bool lone_type_word(struct parser *ps)
{
	struct tok *t = cur(ps), *n = peek(ps, 1);

	if (!is_atom_tok(t) || is_int_word(t))
		return false;
	return n->kind == T_COMMA || n->kind == T_RPAREN || n->kind == T_PIPE ||
	       n->kind == T_ARROW || n->kind == T_DOT;
}

static int parse_alt(struct parser *ps, struct fe_alt *alt)
{
	alt->col = cur(ps)->col;
	if (lone_type_word(ps)) {
		char b[48];

		alt->lone_type_col = peek(ps, 1)->col;
		snprintf(alt->lone_type_found, sizeof(alt->lone_type_found), "%s",
			 describe(peek(ps, 1), b, sizeof(b)));
		return named_alt(ps, alt);
	}
	if (starts_with_type(ps))
		return typed_alt(ps, alt);
	return named_alt(ps, alt);
}

void fe_alt_clear(struct fe_alt *alt)
{
	int i;

	tspec_free(alt->type);
	free(alt->name);
	free(alt->label);
	free(alt->symbol);
	free(alt->base);
	free(alt->derefs);
	for (i = 0; i < alt->nr_steps; i++)
		free(alt->steps[i].member);
	free(alt->steps);
	memset(alt, 0, sizeof(*alt));
}

/*
 * A field name that would mean two things.  Filters (the kernel's, and
 * libtraceevent's) take 'comm', 'COMM', 'cpu' and 'CPU' for the task's
 * command and CPU, and 'common_*' for every event's own fields; --by
 * takes comm, pid and cpu.  The kernel refuses 'common_*' and '__probe_*'
 * names of a probe; '__caller' and '__retaddr' are fevent's.  Those are
 * refused wherever written.  comm, cpu and pid are refused as a label the
 * user makes up (TYPE LABEL=ADDR, LABEL=PATH), but kept as a slot's name
 * (DESIGN.md's '__queue_work(int cpu, ...)': the parameter's own name) and
 * in TYPE NAME=FETCH, which is the kernel's field verbatim ('list' prints
 * it so, and a tracepoint's fields are named pid and comm): there the
 * event's field comes first, in filters as in --by (README, Decisions).
 */
const char *fe_field_name_clash(const char *name, bool made_up)
{
	static const char *const task[] = { "comm", "cpu", "pid" };
	const char *what = NULL;
	size_t i;

	if (!name)
		return NULL;
	if (!strncmp(name, "common_", 7))
		what = "names starting with 'common_' are the kernel's fields of every event";
	else if (!strncmp(name, "__probe_", 8))
		what = "names starting with '__probe_' are the kernel's own fields of a probe";
	else if (!strcmp(name, "__caller"))
		what = "'__caller' is fevent's field for the caller";
	else if (!strcmp(name, "__retaddr"))
		what = "'__retaddr' is fevent's field for a uprobe's return address";
	else if (!strcmp(name, "COMM"))
		what = "'COMM' is the task's command name in filters";
	else if (!strcmp(name, "CPU"))
		what = "'CPU' is the CPU an event ran on in filters";
	for (i = 0; !what && made_up && i < ARRAY_LEN(task); i++)
		if (!strcmp(name, task[i]))
			what = !strcmp(name, "comm") ? "'comm' is the task's command name in filters and in --by" :
			       !strcmp(name, "cpu") ? "'cpu' is the CPU an event ran on in filters and in --by" :
			       "'pid' is the task's pid in --by";
	return what;
}

static int check_field_name(struct parser *ps, const char *name, int col, bool made_up)
{
	const char *what = fe_field_name_clash(name, made_up);

	if (!what)
		return 0;
	return fe_err(ps->err, col, "the label '%s' would hide what it names: %s; give the value "
		      "another label (e.g. 'arg_%s')", name, what, name + strspn(name, "_"));
}

static int check_alt_names(struct parser *ps, const struct fe_alt *alt)
{
	switch (alt->kind) {
	case FE_ALT_ADDR:
		return check_field_name(ps, alt->name, alt->name_col, true);
	case FE_ALT_PATH:
		return check_field_name(ps, alt->label, alt->label_col, true);
	case FE_ALT_SLOT:
	case FE_ALT_FETCH:
		return check_field_name(ps, alt->name, alt->name_col, false);
	}
	return 0;
}

static int parse_arg(struct parser *ps, struct fe_arg *arg)
{
	struct tok *t = cur(ps);

	arg->col = t->col;
	if (is_word(t, "NULL") &&
	    (peek(ps, 1)->kind == T_COMMA || peek(ps, 1)->kind == T_RPAREN)) {
		arg->is_null = true;
		ps->i++;
		return 0;
	}
	for (;;) {
		struct fe_alt *alt = fe_grow(&arg->alts, &arg->nr_alts, sizeof(*alt));

		if (!alt)
			return oom(ps);
		if (parse_alt(ps, alt) || check_alt_names(ps, alt))
			return -1;
		if (cur(ps)->kind != T_PIPE)
			return 0;
		ps->i++;
		if (cur(ps)->kind == T_COMMA || cur(ps)->kind == T_RPAREN ||
		    cur(ps)->kind == T_PIPE || cur(ps)->kind == T_EOF)
			return unexpected(ps, cur(ps), "an alternative after '|'");
	}
}

static int parse_args(struct parser *ps, struct fe_proto *proto)
{
	struct tok *t = cur(ps);

	/* f() and the C spelling f(void) */
	if (t->kind == T_RPAREN)
		return 0;
	if (is_word(t, "void") && peek(ps, 1)->kind == T_RPAREN) {
		ps->i++;
		return 0;
	}
	for (;;) {
		struct fe_arg *arg;

		t = cur(ps);
		if (t->kind == T_ELLIPSIS) {
			proto->ellipsis = true;
			proto->ellipsis_col = t->col;
			ps->i++;
			if (cur(ps)->kind != T_RPAREN) {
				if (cur(ps)->kind == T_EOF)
					return fe_err(ps->err, cur(ps)->col, "missing ')'");
				return fe_err(ps->err, t->col, "'...' must be the last argument");
			}
			return 0;
		}
		if (t->kind == T_COMMA || t->kind == T_RPAREN)
			return fe_err(ps->err, t->col, "empty argument");
		if (t->kind == T_EOF)
			return fe_err(ps->err, t->col, "missing ')'");
		arg = fe_grow(&proto->args, &proto->nr_args, sizeof(*arg));
		if (!arg)
			return oom(ps);
		if (parse_arg(ps, arg))
			return -1;
		t = cur(ps);
		if (t->kind == T_RPAREN)
			return 0;
		if (t->kind == T_EOF)
			return fe_err(ps->err, t->col, "missing ')'");
		if (t->kind != T_COMMA)
			return unexpected(ps, t, "',' or ')'");
		ps->i++;
	}
}

/* Does the run name a source file: a '/' in it, or a C or assembly
 * suffix (DESIGN.md section 8)? */
/* A glob's '*', '?' or '[' in a function name. */
static bool is_glob_tok(const struct tok *t)
{
	return t->kind == T_STAR || t->kind == T_QMARK || t->kind == T_LBRACK;
}

static bool names_file(struct parser *ps, int start, int end)
{
	static const char *const suffixes[] = { "c", "h", "cc", "cpp", "S" };
	int i;

	for (i = start; i < end; i++)
		if (ps->toks[i].kind == T_SLASH)
			return true;
	return end - start >= 3 && ps->toks[end - 2].kind == T_DOT &&
	       ps->toks[end - 1].kind == T_IDENT &&
	       in_list(ps->toks[end - 1].start, ps->toks[end - 1].len, suffixes,
		       ARRAY_LEN(suffixes));
}

/*
 * The place after the function name: ':N' (a line) or '+OFF' (an
 * offset).  *end is moved back to where the function or file name ends.
 */
static int parse_at(struct parser *ps, struct fe_proto *proto, int start, int *end)
{
	struct tok *num = &ps->toks[*end - 1];
	struct tok *sep = *end - 2 >= start ? &ps->toks[*end - 2] : NULL;
	int i;

	for (i = start; i < *end; i++) {
		struct tok *t = &ps->toks[i];

		if (t->kind == T_PLUS && t != sep)
			return fe_err(ps->err, t->col, "an offset is written FUNC+OFF, OFF a number of bytes");
	}
	if (sep && sep->kind == T_PLUS) {
		if (num->kind != T_NUM)
			return fe_err(ps->err, num->col, "an offset is written FUNC+OFF, OFF a number of bytes");
		if (num->num > 0x7fffffff)
			return fe_err(ps->err, num->col, "offset %llu is past any function's end",
				      num->num);
		proto->at = FE_AT_OFFSET;
		proto->offset = num->num;
		proto->at_col = num->col;
		*end -= 2;
		return 0;
	}
	if (!sep || sep->kind != T_COLON || num->kind != T_NUM)
		return 0;
	if (num->num > 0x7fffffff || (num->num == 0 && names_file(ps, start, *end - 2)))
		return fe_err(ps->err, num->col, "no line %llu", num->num);
	proto->line = (long)num->num;
	proto->at_col = num->col;
	*end -= 2;
	if (names_file(ps, start, *end)) {
		struct fe_buf file = { 0 };

		proto->at = FE_AT_FILE_LINE;
		for (i = start; i < *end; i++)
			fe_buf_printf(&file, "%.*s", ps->toks[i].len, ps->toks[i].start);
		proto->file = fe_buf_take(&file);
		if (!proto->file)
			return oom(ps);
		proto->func_col = ps->toks[start].col;
		return 0;
	}
	proto->at = FE_AT_LINE;
	return 0;
}

/*
 * The run of tokens glued to the first '(' (*lp): [*start, *lp) is the
 * function name with its place.
 */
static int name_run(struct parser *ps, int *lp, int *start)
{
	int end;

	for (*lp = ps->i; *lp < ps->nr_toks; (*lp)++)
		if (ps->toks[*lp].kind == T_LPAREN || ps->toks[*lp].kind == T_RPAREN ||
		    ps->toks[*lp].kind == T_EOF)
			break;
	if (ps->toks[*lp].kind != T_LPAREN) {
		if (*lp == ps->i)
			return unexpected(ps, &ps->toks[*lp], "a function name");
		return unexpected(ps, &ps->toks[*lp], "'(' after the function name");
	}

	*start = *lp;
	while (*start > ps->i) {
		struct tok *t = &ps->toks[*start - 1];
		struct tok *next = &ps->toks[*start];

		if (*start < *lp && next->space_before)
			break;
		if (t->kind != T_IDENT && t->kind != T_NUM && t->kind != T_DOT &&
		    t->kind != T_COLON && t->kind != T_PLUS && t->kind != T_SLASH &&
		    t->kind != T_MINUS && !is_glob_tok(t) && t->kind != T_RBRACK &&
		    t->kind != T_BANG)
			break;
		(*start)--;
	}
	end = *lp;
	/*
	 * The run must begin with a name or a glob: skip stray dots or
	 * digits (a file's path may begin with them), and the '*' of a
	 * pointer return type ("char *foo(").  A '*' that begins the whole
	 * prototype is a glob ("*_read(...)").
	 */
	if (!(end - *start >= 3 && ps->toks[end - 2].kind == T_COLON &&
	      ps->toks[end - 1].kind == T_NUM && names_file(ps, *start, end - 2)))
		while (*start < *lp && ps->toks[*start].kind != T_IDENT &&
		       !(is_glob_tok(&ps->toks[*start]) &&
			 (ps->toks[*start].kind != T_STAR || *start == ps->i)))
			(*start)++;
	if (*start == *lp)
		return fe_err(ps->err, ps->toks[*lp].col, "expected a function name before '('");
	/* C's own type words name no function; the language's atoms
	 * (u32, string, symbol, ...) are C names, and the kernel has a
	 * function 'string' (lib/vsprintf.c) that funcs lists */
	if (*start + 1 == *lp && (is_int_word(&ps->toks[*start]) || is_qualifier(&ps->toks[*start]) ||
				  is_tag_word(&ps->toks[*start])))
		return fe_err(ps->err, ps->toks[*start].col,
			      "'%.*s' is a type, not a function name", ps->toks[*start].len,
			      ps->toks[*start].start);
	return 0;
}

/* The tokens [start, end) of a function name: a glob's, a module's ':'
 * (*colon, or -1), and nothing a function name cannot hold. */
static int check_func_name(struct parser *ps, int start, int end, bool *glob, int *colon)
{
	int i;

	for (i = start; i < end; i++) {
		struct tok *t = &ps->toks[i];

		if (t->kind == T_LBRACK) {
			/* a glob's [abc], [a-z], [!x]: to its ']' */
			int k = i + 1;

			while (k < end && ps->toks[k].kind != T_RBRACK &&
			       (ps->toks[k].kind == T_IDENT || ps->toks[k].kind == T_NUM ||
				ps->toks[k].kind == T_MINUS || ps->toks[k].kind == T_BANG ||
				ps->toks[k].kind == T_DOT))
				k++;
			if (k == end || ps->toks[k].kind != T_RBRACK || k == i + 1)
				return fe_err(ps->err, t->col,
					      "a glob's '[' needs letters and a ']' (as in 'vfs_[rw]*')");
			*glob = true;
			i = k;
		} else if (t->kind == T_STAR || t->kind == T_QMARK) {
			*glob = true;
		} else if (t->kind == T_SLASH || t->kind == T_MINUS || t->kind == T_PLUS ||
			   t->kind == T_RBRACK || t->kind == T_BANG) {
			return fe_err(ps->err, t->col, "bad function name");
		} else if (t->kind == T_COLON) {
			if (*colon >= 0 || i == start || i + 1 == end ||
			    (ps->toks[i + 1].kind != T_IDENT && !is_glob_tok(&ps->toks[i + 1])))
				return fe_err(ps->err, t->col, "a module is written MODULE:function");
			*colon = i;
		} else if (t->kind == T_DOT && (i + 1 == end ||
			   (ps->toks[i + 1].kind != T_IDENT && ps->toks[i + 1].kind != T_NUM &&
			    !is_glob_tok(&ps->toks[i + 1])))) {
			return fe_err(ps->err, t->col, "a function name cannot end with '.'");
		} else if (t->kind == T_NUM && (i == start || (ps->toks[i - 1].kind != T_DOT &&
							      !is_glob_tok(&ps->toks[i - 1]) &&
							      ps->toks[i - 1].kind != T_RBRACK))) {
			return fe_err(ps->err, t->col, "bad function name");
		}
	}
	return 0;
}

/* proto->module from the tokens before colon, proto->func from those after. */
static int take_func_name(struct parser *ps, struct fe_proto *proto, int start, int end,
			  int colon)
{
	struct fe_buf name = { 0 };
	int i;

	if (colon >= 0) {
		for (i = start; i < colon; i++) {
			if (ps->toks[i].kind != T_IDENT && ps->toks[i].kind != T_DOT &&
			    ps->toks[i].kind != T_NUM && !is_glob_tok(&ps->toks[i]) &&
			    ps->toks[i].kind != T_RBRACK && ps->toks[i].kind != T_MINUS &&
			    ps->toks[i].kind != T_BANG) {
				fe_buf_free(&name);
				return fe_err(ps->err, ps->toks[i].col, "bad module name");
			}
			fe_buf_printf(&name, "%.*s", ps->toks[i].len, ps->toks[i].start);
		}
		proto->module = fe_buf_take(&name);
		if (!proto->module)
			return oom(ps);
	}
	for (i = colon >= 0 ? colon + 1 : start; i < end; i++)
		fe_buf_printf(&name, "%.*s", ps->toks[i].len, ps->toks[i].start);
	proto->func = fe_buf_take(&name);
	if (!proto->func)
		return oom(ps);
	proto->func_col = ps->toks[colon >= 0 ? colon + 1 : start].col;
	return 0;
}

/* The return type: the tokens from ps->i to start, the function name's. */
static int parse_rtype(struct parser *ps, struct fe_proto *proto, int start)
{
	/* the type ends where the name begins: a glob's '[a-k]' is no
	 * array length ("int [a-k]*(...)") */
	struct tok saved = ps->toks[start];
	int ret;

	ps->toks[start].kind = T_EOF;
	ret = parse_tspec(ps, &proto->rtype);
	ps->toks[start] = saved;
	if (ret)
		return -1;
	if (ps->i != start)
		return unexpected(ps, cur(ps), "the function name after the return type");
	if (proto->rtype->array)
		return fe_err(ps->err, proto->rtype->array_col,
			      "a return type cannot be an array");
	return 0;
}

/*
 * The function name is the run of tokens glued to the first '(':
 * "foo", "foo.isra.0", "ext4:ext4_sync_file", with a place after it
 * ("foo:12", "foo+0x1a", "fs/read_write.c:470").  Everything before it
 * is the return type.
 */
static int parse_head(struct parser *ps, struct fe_proto *proto)
{
	int lp = 0, start = 0, end;
	bool glob = false;
	int colon = -1;

	if (name_run(ps, &lp, &start))
		return -1;
	end = lp;
	if (parse_at(ps, proto, start, &end))
		return -1;
	if (proto->at != FE_AT_FILE_LINE) {
		if (end == start)
			return fe_err(ps->err, ps->toks[start].col, "expected a function name");
		if (check_func_name(ps, start, end, &glob, &colon))
			return -1;
		if (glob && proto->at != FE_AT_ENTRY)
			return fe_err(ps->err, proto->at_col,
				      "a glob names many functions: a line or offset needs one function");
		if (take_func_name(ps, proto, start, end, colon))
			return -1;
		proto->is_glob = glob;
	}
	/* storage-class words of a pasted declaration carry no type */
	while (ps->i < start && is_in(cur(ps), storage_words, ARRAY_LEN(storage_words)))
		ps->i++;
	if (ps->i < start && parse_rtype(ps, proto, start))
		return -1;
	ps->i = lp + 1;
	return 0;
}

/*
 * Where 'if FILTER' starts after the prototype's closing ')': the filter
 * language (strings, ~, &&, !) is not the prototype's, so the text is cut
 * there before the prototype is tokenized.  NULL if there is none.
 */
static const char *find_filter(const char *text, const char **if_word)
{
	const char *p = text;
	int depth = 0;
	bool opened = false;

	for (; *p; p++) {
		if (*p == '(') {
			depth++;
			opened = true;
		} else if (*p == ')' && depth > 0 && --depth == 0 && opened) {
			const char *q = p + 1;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ';')
				q++;
			while (*q == ' ' || *q == '\t')
				q++;
			if (q[0] == 'i' && q[1] == 'f' && (q[2] == ' ' || q[2] == '\t' || !q[2])) {
				*if_word = q;
				q += 2;
				while (*q == ' ' || *q == '\t')
					q++;
				return q;
			}
			return NULL;
		}
	}
	return NULL;
}

struct fe_proto *fe_proto_parse(const char *text, struct fe_error *err)
{
	struct parser ps = { .text = text, .err = err };
	struct fe_proto *proto;
	const char *filter, *if_word = NULL;
	char *head = NULL;
	struct tok *t;

	proto = calloc(1, sizeof(*proto));
	if (!proto) {
		fe_err(err, 0, "out of memory");
		return NULL;
	}
	proto->text = strdup(text);
	if (!proto->text) {
		oom(&ps);
		goto fail;
	}
	proto->end_col = col_at(text, text + strlen(text));
	filter = find_filter(text, &if_word);
	if (filter) {
		size_t len = strlen(filter);

		while (len && (filter[len - 1] == ' ' || filter[len - 1] == '\t'))
			len--;
		proto->filter_col = col_at(text, filter);
		if (!len) {
			fe_err(err, col_at(text, if_word), "'if' needs a filter after it, e.g. 'if count > 4096'");
			goto fail;
		}
		proto->filter = strndup(filter, len);
		head = strndup(text, if_word - text);
		if (!proto->filter || !head) {
			oom(&ps);
			goto fail;
		}
		/* columns stay those of the whole text */
		ps.text = head;
	}
	if (tokenize(&ps))
		goto fail;
	if (cur(&ps)->kind == T_EOF) {
		fe_err(err, cur(&ps)->col, "empty prototype");
		goto fail;
	}
	if (parse_head(&ps, proto))
		goto fail;
	if (parse_args(&ps, proto))
		goto fail;
	/* at the closing ')' */
	ps.i++;
	t = cur(&ps);
	if (t->kind == T_SEMI)		/* a pasted declaration's ';' */
		t = &ps.toks[++ps.i];
	if (t->kind != T_EOF) {
		char b[64];

		fe_err(err, t->col, "unexpected %s after the closing ')'",
		       describe(t, b, sizeof(b)));
		goto fail;
	}
	free(ps.toks);
	free(head);
	return proto;
fail:
	free(ps.toks);
	free(head);
	fe_proto_free(proto);
	return NULL;
}

struct fe_tspec *fe_type_parse(const char *text, struct fe_error *err)
{
	struct parser ps = { .text = text, .err = err };
	struct fe_tspec *ts = NULL;
	char b[64];

	if (tokenize(&ps))
		goto out;
	if (cur(&ps)->kind == T_EOF) {
		fe_err(err, cur(&ps)->col, "no type");
		goto out;
	}
	if (parse_tspec(&ps, &ts))
		goto out;
	if (cur(&ps)->kind != T_EOF) {
		fe_err(err, cur(&ps)->col, "unexpected %s after the type",
		       describe(cur(&ps), b, sizeof(b)));
		tspec_free(ts);
		ts = NULL;
	}
out:
	free(ps.toks);
	return ts;
}

void fe_tspec_free(struct fe_tspec *ts)
{
	tspec_free(ts);
}

void fe_proto_free(struct fe_proto *proto)
{
	int i, j;

	if (!proto)
		return;
	for (i = 0; i < proto->nr_args; i++) {
		for (j = 0; j < proto->args[i].nr_alts; j++)
			fe_alt_clear(&proto->args[i].alts[j]);
		free(proto->args[i].alts);
	}
	free(proto->args);
	tspec_free(proto->rtype);
	free(proto->func);
	free(proto->file);
	free(proto->filter);
	free(proto->module);
	free(proto->text);
	free(proto);
}
