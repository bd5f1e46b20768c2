// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

bool fe_quiet;
int fe_verbose;
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

/*
 * A long prototype (a generated line of 200 KB) is shown as the part
 * around the caret: this many columns at most, the caret's column with
 * DIAG_BEFORE columns before it, "..." where text is left out.
 */
#define DIAG_WIDTH	100
#define DIAG_BEFORE	60

static bool lead_byte(unsigned char c)
{
	return (c & 0xc0) != 0x80;
}

/* The text from column first to column last, "..." for what is cut. */
static void print_window(FILE *out, const char *text, int first, int last, int ncols)
{
	const unsigned char *p = (const unsigned char *)text;
	int c = 0;

	fputs(first > 1 ? "    ..." : "    ", out);
	for (; *p; p++) {
		if (lead_byte(*p))
			c++;
		if (c > last)
			break;
		if (c >= first)
			fputc(*p, out);
	}
	fputs(last < ncols ? "...\n" : "\n", out);
}

/* The caret goes under the col-th character; tabs are kept so it lines up. */
static void print_caret(FILE *out, const char *text, int col, int first)
{
	const unsigned char *p = (const unsigned char *)text;
	int c = 1;

	fputs(first > 1 ? "       " : "    ", out);
	for (; *p && c < col; p++) {
		if (!lead_byte(*p))
			continue;
		if (c >= first)
			fputc(*p == '\t' ? '\t' : ' ', out);
		c++;
	}
	fputs(color ? "\033[1;32m^\033[0m\n" : "^\n", out);
}

void fe_print_error(FILE *out, const struct fe_compiled *it)
{
	const unsigned char *p;
	int col = fe_compiled_error(it)->col, ncols = 0, first = 1, last;

	prefix(out, "error", "1;31");
	print_where(out, it, col);
	fprintf(out, "%s\n", fe_compiled_error(it)->msg);
	for (p = (const unsigned char *)it->text; *p; p++)
		ncols += lead_byte(*p);
	last = ncols;
	if (ncols > DIAG_WIDTH) {
		if (col > DIAG_BEFORE)
			first = col - DIAG_BEFORE;
		last = first + DIAG_WIDTH - 1;
		if (last > ncols) {
			last = ncols;
			first = ncols - DIAG_WIDTH + 1;
		}
	}
	print_window(out, it->text, first, last, ncols);
	if (col > 0)
		print_caret(out, it->text, col, first);
}

void fe_print_warnings(FILE *out, const struct fe_compiled *it)
{
	fe_print_warnings_but(out, it, NULL);
}

void fe_print_warnings_but(FILE *out, const struct fe_compiled *it, const char *but)
{
	int i;

	if (fe_quiet)
		return;
	for (i = 0; i < it->warnings.nr; i++) {
		if (but && strstr(it->warnings.msgs[i], but))
			continue;
		prefix(out, "warning", "1;33");
		if (it->file)
			fprintf(out, "%s:%d: ", it->file, it->line);
		fprintf(out, "%s\n", it->warnings.msgs[i]);
	}
}
