// SPDX-License-Identifier: GPL-2.0
/*
 * The text parts of a trace.dat (event formats, the page header) read
 * strictly, and rebuilt for libtraceevent from what was understood.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text_escape.h"
#include "trace_dat_text.h"

const char *fe_tracedat_shown(const char *s, char *buf, size_t size)
{
	struct fe_buf b = { 0 };
	size_t i = 0, n, cut = 0;

	/* the one rule for the terminal (text_escape.h); cut between two
	 * characters or escapes, with room kept for "..." */
	fe_text_name(&b, s, strlen(s));
	if (b.failed || !b.s) {
		fe_buf_free(&b);
		snprintf(buf, size, "?");
		return buf;
	}
	if (b.len < size) {
		memcpy(buf, b.s, b.len + 1);
		fe_buf_free(&b);
		return buf;
	}
	while (i < b.len) {
		unsigned char c = b.s[i];

		n = c == '\\' ? (b.s[i + 1] == 'x' ? 4 : 2) : c < 0x80 ? 1 :
		    c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		if (i + n + 4 > size)
			break;
		i += n;
		cut = i;
	}
	memcpy(buf, b.s, cut);
	memcpy(buf + cut, "...", 4);
	fe_buf_free(&b);
	return buf;
}

bool fe_tracedat_is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/*
 * Format text as the kernel writes it, read strictly; libtraceevent gets
 * a copy rebuilt from what was understood, never the file's own text: its
 * parser is not made for hostile input (1.7.1 leaks on a damaged field
 * line), and the view needs the fields, not the print format.
 */
#define MAX_EVENT_ID	65535	/* common_type is 16 bits */

struct text {
	const char *p, *end;
	int line;		/* of the line last taken, from 1 */
};

/* The next line, without its newline; false at the end. */
static bool next_line(struct text *t, const char **line, size_t *len)
{
	const char *nl;

	if (t->p >= t->end)
		return false;
	nl = memchr(t->p, '\n', t->end - t->p);
	*line = t->p;
	*len = (nl ? nl : t->end) - t->p;
	t->p = nl ? nl + 1 : t->end;
	t->line++;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A decimal of at most max (and 10 digits) at *p, which moves past it. */
static bool decimal(const char **p, const char *end, unsigned long max, unsigned long *v)
{
	int digits = 0;

	for (*v = 0; *p < end && **p >= '0' && **p <= '9' && digits < 10; (*p)++, digits++)
		*v = *v * 10 + (**p - '0');
	return digits && *v <= max && (*p == end || **p < '0' || **p > '9');
}

/* blanks, "KEY:", a decimal of at most max, ';' */
static bool number_after(const char **p, const char *end, const char *key, unsigned long max,
			 unsigned long *v)
{
	size_t kl = strlen(key);

	while (*p < end && blank(**p))
		(*p)++;
	if ((size_t)(end - *p) < kl || memcmp(*p, key, kl))
		return false;
	*p += kl;
	if (!decimal(p, end, max, v) || *p >= end || **p != ';')
		return false;
	(*p)++;
	return true;
}

/*
 * A type and a name as the kernel writes them: C words, '*' between them,
 * and one [N] or [] after the name or the word before it ("u8 h[]",
 * "__data_loc char[] s"); libtraceevent leaks on less (a lone word, or
 * one before a '[').
 * Copied into decl, the name's start in *name.
 */
/*
 * libtraceevent's tokenizer turns these words into strings wherever they
 * stand (a work-around for old mac80211 formats), and leaks when one is a
 * field's name: never part of a name or type fevent passes on.
 */
static bool rewritten(const char *s, size_t len)
{
	static const char *const words[] = { "LOCAL_PR_FMT", "STA_PR_FMT", "VIF_PR_FMT" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(s, len, words[i], strlen(words[i])))
			return true;
	return false;
}

static bool is_decl(const char *s, size_t len, char *decl, const char **name)
{
	int words = 0, brackets = 0, bracket_word = 0;
	bool last_word = false;
	size_t i = 0;

	if (!len || len >= FE_TRACEDAT_MAX_DECL || rewritten(s, len))
		return false;
	while (i < len) {
		char c = s[i];

		if (c == ' ') {
			i++;
		} else if (c == '*' && words) {
			last_word = false;
			i++;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
			*name = decl + i;
			while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
					   (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
				i++;
			words++;
			last_word = true;
			if (i < len && s[i] == '[') {
				for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
					;
				if (i >= len || s[i] != ']')
					return false;
				i++;
				brackets++;
				bracket_word = words;
			}
		} else {
			return false;
		}
	}
	/* libtraceevent takes the words before a '[' as the type: two at least */
	if (words < 2 || !last_word || brackets > 1 ||
	    (brackets && (bracket_word < 2 || bracket_word < words - 1)))
		return false;
	memcpy(decl, s, len);
	decl[len] = 0;
	return true;
}

/*
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" rebuilt into out; the
 * field's name (the decl's last word) in name.
 */
static bool field_line(const char *line, size_t len, struct fe_buf *out, char *name,
		       unsigned long *offset, unsigned long *size)
{
	const char *p = line, *end = line + len, *semi, *n = NULL;
	unsigned long sign;
	char decl[FE_TRACEDAT_MAX_DECL];
	size_t nl;

	while (p < end && blank(*p))
		p++;
	if ((size_t)(end - p) < 6 || memcmp(p, "field:", 6))
		return false;
	p += 6;
	while (p < end && blank(*p))
		p++;
	semi = memchr(p, ';', end - p);
	if (!semi || !is_decl(p, semi - p, decl, &n))
		return false;
	p = semi + 1;
	if (!number_after(&p, end, "offset:", FE_TRACEDAT_MAX_PAGE_SIZE, offset) ||
	    !number_after(&p, end, "size:", FE_TRACEDAT_MAX_PAGE_SIZE, size) ||
	    !number_after(&p, end, "signed:", 1, &sign))
		return false;
	while (p < end && blank(*p))
		p++;
	if (p != end)
		return false;
	for (nl = 0; n[nl] && n[nl] != ' ' && n[nl] != '[' && n[nl] != '*'; nl++)
		;
	/* the last word names the field: "char comm[16]", "u8 h[]" */
	if (n[nl] && n[nl] != '[')
		return false;
	snprintf(name, FE_TRACEDAT_MAX_DECL, "%.*s", (int)nl, n);
	fe_buf_printf(out, "\tfield:%s;\toffset:%lu;\tsize:%lu;\tsigned:%lu;\n", decl, *offset,
		      *size, sign);
	return true;
}

/* The rebuilt format of one event; 0, or -1 with why and the line. */
int fe_tracedat_clean_format(const char *s, size_t len, struct fe_buf *out, char *name,
			int *line_no, const char **why)
{
	struct text t = { .p = s, .end = s + len };
	char field[FE_TRACEDAT_MAX_DECL];
	unsigned long id, offset, size;
	const char *line, *p;
	size_t n;
	int part;

	*why = "expected \"name: NAME\"";
	if (!next_line(&t, &line, &n) || n < 7 || n >= FE_TRACEDAT_MAX_DECL || memcmp(line, "name: ", 6))
		goto bad;
	snprintf(name, FE_TRACEDAT_MAX_DECL, "%.*s", (int)(n - 6), line + 6);
	if (!fe_tracedat_is_name(name)) {
		*why = "the event's name is not a name (letters, digits, '_', '-', '.')";
		goto bad;
	}
	if (rewritten(name, strlen(name))) {
		*why = "the event's name holds a word libtraceevent rewrites (LOCAL_PR_FMT, "
		       "STA_PR_FMT, VIF_PR_FMT)";
		goto bad;
	}
	*why = "expected \"ID: N\", N up to 65535";
	if (!next_line(&t, &line, &n) || n < 4 || memcmp(line, "ID: ", 4))
		goto bad;
	p = line + 4;
	if (!decimal(&p, line + n, MAX_EVENT_ID, &id) || p != line + n)
		goto bad;
	*why = "expected \"format:\"";
	if (!next_line(&t, &line, &n) || n != 7 || memcmp(line, "format:", 7))
		goto bad;
	fe_buf_printf(out, "name: %s\nID: %lu\nformat:\n", name, id);
	/* the common fields, a blank line, the event's own, a blank line */
	for (part = 0; part < 2; part++) {
		while (next_line(&t, &line, &n) && n) {
			*why = "expected \"\\tfield:TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"";
			if (!field_line(line, n, out, field, &offset, &size))
				goto bad;
		}
		fe_buf_addc(out, '\n');
	}
	/* the view prints the fields itself */
	fe_buf_printf(out, "print fmt: \"\"\n");
	if (out->failed) {
		*why = "out of memory";
		goto bad;
	}
	return 0;
bad:
	*line_no = t.line;
	return -1;
}

/*
 * The ring buffer's page header: fevent reads the 64-bit one (kbuffer is
 * told nothing else), so that is what it must describe; the view gets it
 * rebuilt.  0, or -1 with why and the line.
 */
int fe_tracedat_clean_header_page(const char *s, uint32_t page_size, struct fe_buf *out,
			     int *line_no, const char **why)
{
	struct text t = { .p = s, .end = s + strlen(s) };
	unsigned long ts = 1, commit = 1, data = 1, offset, size;
	struct fe_buf junk = { 0 };
	char name[FE_TRACEDAT_MAX_DECL];
	const char *line;
	size_t n;

	while (next_line(&t, &line, &n)) {
		if (!n)
			continue;
		if (!field_line(line, n, &junk, name, &offset, &size)) {
			fe_buf_free(&junk);
			*why = "expected \"\\tfield: TYPE NAME;\\toffset:N;\\tsize:N;\\tsigned:0 or 1;\"";
			*line_no = t.line;
			return -1;
		}
		if (!strcmp(name, "timestamp"))
			ts = offset || size != 8;
		else if (!strcmp(name, "commit"))
			commit = offset != 8 || size != 8;
		else if (!strcmp(name, "data"))
			data = offset != 16;
	}
	fe_buf_free(&junk);
	*line_no = 0;
	if (ts || commit || data) {
		*why = "not the 64-bit page header fevent reads (timestamp: 8 bytes at 0, commit: "
		       "8 bytes at 8, data at 16)";
		return -1;
	}
	fe_buf_printf(out, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		      "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n", page_size - 16);
	*why = "out of memory";
	return out->failed ? -1 : 0;
}

/* ---- which fields the print format shows as symbols ---- */

#define MAX_PRINT_ARGS	64

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/*
 * The conversions of the quoted format at *p (which moves past its
 * closing quote): sym[i] is set for the i-th argument printed by %ps,
 * %pS, %pf, %pF or %pB.  The number of arguments, or -1.
 */
static int conversions(const char **p, const char *end, bool *sym)
{
	const char *s = *p;
	int n = 0;

	if (s >= end || *s != '"')
		return -1;
	for (s++; s < end && *s != '"'; s++) {
		if (*s == '\\') {
			s++;
			continue;
		}
		if (*s != '%')
			continue;
		if (++s < end && *s == '%')
			continue;
		/* flags, width, precision ('*' takes an argument), length */
		for (; s < end && strchr("-+ #0", *s); s++)
			;
		for (; s < end && (strchr("0123456789.", *s) || *s == '*'); s++)
			if (*s == '*' && n < MAX_PRINT_ARGS)
				sym[n++] = false;
		for (; s < end && strchr("hlLqjzt", *s); s++)
			;
		/* a '%' the string ends at, or a NUL: nothing fevent follows */
		if (s >= end || n >= MAX_PRINT_ARGS || *s == '"' || !*s)
			return -1;
		sym[n++] = *s == 'p' && s + 1 < end && s[1] && strchr("sSfFB", s[1]);
	}
	if (s >= end)
		return -1;
	*p = s + 1;
	return n;
}

/*
 * One argument of the print format, "REC->NAME" behind any casts
 * ("(void *)REC->ip"): NAME into name; false for anything else.
 */
static bool rec_field(const char *a, size_t len, char *name, size_t size)
{
	const char *end = a + len, *close;
	size_t n;

	for (;;) {
		while (a < end && blank(*a))
			a++;
		if (a >= end || *a != '(')
			break;
		close = memchr(a, ')', end - a);
		if (!close)
			return false;
		a = close + 1;
	}
	while (end > a && blank(end[-1]))
		end--;
	if ((size_t)(end - a) < 6 || memcmp(a, "REC->", 5))
		return false;
	a += 5;
	for (n = 0; a + n < end && ident_char(a[n]); n++)
		;
	if (!n || a + n != end || n >= size)
		return false;
	memcpy(name, a, n);
	name[n] = 0;
	return true;
}

int fe_tracedat_symbol_fields(const char *s, size_t len, struct fe_buf *out)
{
	struct text t = { .p = s, .end = s + len };
	bool sym[MAX_PRINT_ARGS];
	char name[FE_TRACEDAT_MAX_DECL];
	const char *line = NULL, *p, *end, *arg;
	bool found = false;
	int nr, i, depth;
	size_t n = 0;

	while (!found && next_line(&t, &line, &n))
		found = n > 11 && !memcmp(line, "print fmt: ", 11);
	if (!found)
		return 0;
	p = line + 11;
	end = line + n;
	nr = conversions(&p, end, sym);
	/* a format fevent cannot follow names nothing: numbers stay numbers */
	if (nr <= 0)
		return 0;
	/* ", ARG, ARG": commas inside parentheses or quotes do not count */
	for (i = 0; i < nr; i++) {
		while (p < end && blank(*p))
			p++;
		if (p >= end || *p != ',')
			return 0;
		arg = ++p;
		for (depth = 0; p < end && (depth || *p != ','); p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && depth)
				depth--;
			else if (*p == '"')
				return 0;
		}
		if (sym[i] && rec_field(arg, p - arg, name, sizeof(name)))
			fe_buf_printf(out, "%s=REC:symbol ", name);
	}
	return out->failed ? -1 : 0;
}
