// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

bool fe_quiet;
static bool color;

void fe_diag_init(void)
{
	const char *term = getenv("TERM");

	/* https://no-color.org: any NO_COLOR turns it off */
	color = isatty(STDERR_FILENO) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

static void prefix(FILE *out, const char *what, const char *sgr)
{
	if (color)
		fprintf(out, "fevent: \033[%sm%s:\033[0m ", sgr, what);
	else
		fprintf(out, "fevent: %s: ", what);
}

static void say(const char *what, const char *sgr, const char *fmt, va_list ap)
{
	prefix(stderr, what, sgr);
	vfprintf(stderr, fmt, ap);
}

void fe_say_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("error", "1;31", fmt, ap);
	va_end(ap);
}

void fe_say_warning(const char *fmt, ...)
{
	va_list ap;

	if (fe_quiet)
		return;
	va_start(ap, fmt);
	say("warning", "1;33", fmt, ap);
	va_end(ap);
}

void fe_say_loss(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", "1;33", fmt, ap);
	va_end(ap);
}

static void print_where(FILE *out, const struct fe_compiled *it, int col)
{
	if (it->file)
		fprintf(out, "%s:%d:", it->file, it->line);
	if (col > 0)
		fprintf(out, it->file ? "%d: " : "column %d: ", col);
	else if (it->file)
		fputc(' ', out);
}

/* The caret goes under the col-th character; tabs are kept so it lines up. */
static void print_caret(FILE *out, const char *text, int col)
{
	const unsigned char *p = (const unsigned char *)text;
	int c = 1;

	fputs("    ", out);
	for (; *p && c < col; p++) {
		if ((*p & 0xc0) == 0x80)
			continue;
		fputc(*p == '\t' ? '\t' : ' ', out);
		c++;
	}
	fputs(color ? "\033[1;32m^\033[0m\n" : "^\n", out);
}

void fe_print_error(FILE *out, const struct fe_compiled *it)
{
	prefix(out, "error", "1;31");
	print_where(out, it, it->err.col);
	fprintf(out, "%s\n", it->err.msg);
	fprintf(out, "    %s\n", it->text);
	if (it->err.col > 0)
		print_caret(out, it->text, it->err.col);
}

void fe_print_warnings(FILE *out, const struct fe_compiled *it)
{
	int i;

	if (fe_quiet)
		return;
	for (i = 0; i < it->warnings.nr; i++) {
		prefix(out, "warning", "1;33");
		if (it->file)
			fprintf(out, "%s:%d: ", it->file, it->line);
		fprintf(out, "%s\n", it->warnings.msgs[i]);
	}
}
