// SPDX-License-Identifier: GPL-2.0
#include "diag.h"

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
	fputs("^\n", out);
}

void fe_print_error(FILE *out, const struct fe_compiled *it)
{
	fputs("fevent: error: ", out);
	print_where(out, it, it->err.col);
	fprintf(out, "%s\n", it->err.msg);
	fprintf(out, "    %s\n", it->text);
	if (it->err.col > 0)
		print_caret(out, it->text, it->err.col);
}

void fe_print_warnings(FILE *out, const struct fe_compiled *it)
{
	int i;

	for (i = 0; i < it->warnings.nr; i++) {
		fputs("fevent: warning: ", out);
		if (it->file)
			fprintf(out, "%s:%d: ", it->file, it->line);
		fprintf(out, "%s\n", it->warnings.msgs[i]);
	}
}
