// SPDX-License-Identifier: GPL-2.0
/*
 * fevent lines FUNC[:N[-M]]: a function's source lines, numbered from its
 * declaration as perf probe -L numbers them, the probe-able ones with the
 * offsets of their addresses from the function's entry (FUNC+OFF places),
 * with the source text when the file is found (DW_AT_comp_dir and the
 * name, or --source DIR).  FILE:N[-M]: lines of a file, each probe-able
 * one with the FUNC+OFF places of the functions defined there.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compile.h"
#include "dbg_lines.h"
#include "diag.h"
#include "fe_util.h"

#define MAX_SOURCE_LINE	4096

/* FUNC, FUNC:N (N to the end) or FUNC:N-M, lines relative to FUNC's;
 * each may start with MODULE: (a kernel module's function). */
static int parse_place(const char *place, char **module, char **func, long *from, long *to)
{
	const char *colon = strchr(place, ':');
	char *end;

	*from = 0;
	*to = LONG_MAX;
	*module = NULL;
	if (colon && colon[1] && !isdigit((unsigned char)colon[1])) {
		*module = strndup(place, colon - place);
		if (!*module)
			return -1;
		if (!fe_is_ident(*module)) {
			fe_say_error("'%s': expected MODULE:FUNC, with MODULE a kernel module's name\n",
				     place);
			return -1;
		}
		place = colon + 1;
		colon = strchr(place, ':');
	}
	*func = strndup(place, colon ? (size_t)(colon - place) : strlen(place));
	if (!*func)
		return -1;
	if (!fe_is_ident(*func)) {
		fe_say_error("'%s': expected FUNC, FUNC:N or FUNC:N-M (N, M lines from FUNC's declaration)\n",
			     place);
		return -1;
	}
	if (!colon)
		return 0;
	errno = 0;
	*from = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || errno || *from < 0)
		goto bad;
	if (*end == '-') {
		const char *m = end + 1;

		*to = strtol(m, &end, 10);
		if (end == m || errno || *to < *from)
			goto bad;
	}
	if (*end)
		goto bad;
	return 0;
bad:
	fe_say_error("'%s': after ':' comes a line N or a range N-M (N <= M) counted from %s's declaration\n",
		     place, *func);
	return -1;
}

/* The source file's lines, or NULL when it cannot be read. */
static char **read_source(const char *path, int upto)
{
	char **text = calloc(upto + 1, sizeof(*text));
	char buf[MAX_SOURCE_LINE];
	FILE *f;
	int n = 0;

	if (!text)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		free(text);
		return NULL;
	}
	while (n < upto && fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);

		if (len && buf[len - 1] != '\n' && !feof(f)) {
			int ch;

			/* a longer line is cut, and the rest skipped */
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
		}
		buf[strcspn(buf, "\n")] = 0;
		text[n] = strdup(buf);
		if (!text[n])
			break;
		n++;
	}
	fclose(f);
	return text;
}

static void free_source(char **text, int upto)
{
	int i;

	for (i = 0; text && i < upto; i++)
		free(text[i]);
	free(text);
}

/* Where the file is: under --source DIR (its path, then its name alone),
 * else the path DWARF gives, relative to the unit's comp_dir. */
static char *source_path(const struct fe_func_lines *fl, const char *dir)
{
	char *p = NULL;

	if (dir) {
		const char *rel = fl->file;

		if (fl->comp_dir && !strncmp(rel, fl->comp_dir, strlen(fl->comp_dir)))
			rel += strlen(fl->comp_dir);
		while (*rel == '/')
			rel++;
		if (asprintf(&p, "%s/%s", dir, rel) < 0)
			return NULL;
		if (access(p, R_OK) == 0)
			return p;
		free(p);
		rel = strrchr(fl->file, '/') ? strrchr(fl->file, '/') + 1 : fl->file;
		return asprintf(&p, "%s/%s", dir, rel) < 0 ? NULL : p;
	}
	if (fl->file[0] == '/' || !fl->comp_dir)
		return strdup(fl->file);
	return asprintf(&p, "%s/%s", fl->comp_dir, fl->file) < 0 ? NULL : p;
}

static void print_offsets(const struct fe_src_line *l, char *buf, size_t size)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < l->nr_offs && used < size; i++)
		used += snprintf(buf + used, size - used, "%s%s+0x%lx", i ? "," : "",
				 l->in[i] ? l->in[i] : "", l->offs[i]);
}

/* Does the part before ':' name a source file (DESIGN.md section 8)? */
static bool names_file(const char *place)
{
	static const char *const suffixes[] = { ".c", ".h", ".cc", ".cpp", ".S" };
	size_t len = strcspn(place, ":"), i;

	if (memchr(place, '/', len))
		return true;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len > sl && !strncmp(place + len - sl, suffixes[i], sl))
			return true;
	}
	return false;
}

struct file_range {
	struct fe_dbg *dbg;
	long from, to;
	struct fe_buf *marks;	/* per line from..to: "func+0x1a,func+0x30" */
	char *path;		/* the file as the first unit names it */
	char *comp_dir;
};

static int mark_func(const char *func, const char *path, const char *comp_dir, void *arg)
{
	struct file_range *fr = arg;
	struct fe_func_lines fl;
	struct fe_error ignored;
	int i, k;

	if (!fr->path) {
		fr->path = strdup(path);
		fr->comp_dir = comp_dir ? strdup(comp_dir) : NULL;
		if (!fr->path)
			return -1;
	}
	if (fe_dbg_func_lines(fr->dbg, func, &fl, &ignored) != 1)
		return 0;
	for (i = 0; i < fl.nr_lines; i++) {
		const struct fe_src_line *l = &fl.lines[i];
		struct fe_buf *b;

		/* as perf probe -L: not a line whose statements all start
		 * an inlined callee's code (a probe still goes there) */
		if (l->line < fr->from || l->line > fr->to || l->callee_only)
			continue;
		b = &fr->marks[l->line - fr->from];
		for (k = 0; k < l->nr_offs; k++)
			fe_buf_printf(b, "%s%s+0x%lx", b->s ? "," : "", l->in[k] ? l->in[k] : func,
				      l->offs[k]);
	}
	fe_func_lines_clear(&fl);
	return 0;
}

/* fevent lines FILE:N[-M] */
static int file_lines(const char *source, struct fe_dbg *dbg, const char *place)
{
	struct file_range fr = { .dbg = dbg };
	struct fe_func_lines where = { 0 };
	struct fe_error err = { 0 };
	const char *colon = strrchr(place, ':');
	char *file = NULL, *end, *path = NULL, **text = NULL;
	long line;
	int ret = FE_EXIT_USAGE;

	if (!colon)
		goto bad;
	file = strndup(place, colon - place);
	if (!file)
		goto oom;
	errno = 0;
	fr.from = strtol(colon + 1, &end, 10);
	fr.to = fr.from;
	if (end == colon + 1 || errno || fr.from < 1)
		goto bad;
	if (*end == '-') {
		const char *m = end + 1;

		fr.to = strtol(m, &end, 10);
		if (end == m || errno || fr.to < fr.from)
			goto bad;
	}
	if (*end)
		goto bad;
	if (fr.to - fr.from > 100000) {
		fe_say_error("'%s': at most 100000 lines at once\n", place);
		goto out;
	}
	fr.marks = calloc(fr.to - fr.from + 1, sizeof(*fr.marks));
	if (!fr.marks)
		goto oom;
	if (fe_dbg_file_funcs(dbg, file, fr.to, mark_func, &fr, &err)) {
		if (err.msg[0])
			fe_say_error("%s\n", err.msg);
		else
			goto oom;
		goto out;
	}
	/* the source text: as the unit names the file */
	where.file = fr.path;
	where.comp_dir = fr.comp_dir;
	path = fr.path ? source_path(&where, source) : NULL;
	text = path ? read_source(path, (int)fr.to) : NULL;
	if (!text)
		fe_say_warning("%s: %s; the lines are shown without their text (--source DIR says where the sources are)\n",
			       path ? path : file, strerror(errno ? errno : ENOENT));
	printf("<%s:%ld-%ld>\n", path && text ? path : file, fr.from, fr.to);
	for (line = fr.from; line <= fr.to; line++) {
		const char *src = text && text[line - 1] ? text[line - 1] : NULL;
		const struct fe_buf *m = &fr.marks[line - fr.from];

		if (m->failed)
			goto oom;
		if (m->s)
			printf("%7ld  %-24s%s%s\n", line, m->s, src ? "  " : "", src ? src : "");
		else if (src)
			printf("%7s  %-24s  %s\n", "", "", src);
	}
	ret = fflush(stdout) ? FE_EXIT_FAIL : FE_EXIT_OK;
	goto out;
bad:
	fe_say_error("'%s': expected FILE:N or FILE:N-M (N, M lines of the file)\n", place);
	goto out;
oom:
	fe_say_error("out of memory\n");
	ret = FE_EXIT_FAIL;
out:
	free_source(text, (int)fr.to);
	for (line = 0; fr.marks && line <= fr.to - fr.from; line++)
		fe_buf_free(&fr.marks[line]);
	free(fr.marks);
	free(fr.path);
	free(fr.comp_dir);
	free(path);
	free(file);
	return ret;
}

/* lines' options */
struct lines_opts {
	struct fe_dbg_args d;
	const char *source;	/* --source DIR */
};

static int cmd_lines(const struct fe_cmdline *cl, void *opts_)
{
	const struct lines_opts *o = opts_;
	struct fe_compile_opts opts;
	struct fe_func_lines fl = { 0 };
	struct fe_error err = { 0 };
	struct fe_dbg *dbg = NULL;
	char *func = NULL, *module = NULL, *path = NULL, **text = NULL;
	long from = 0, to = 0, last;
	int ret = FE_EXIT_USAGE, found, k, line, nr_text = 0;

	if (cl->nr_args != 1) {
		fe_say_error("lines takes one place: fevent lines FUNC[:N[-M]] or FILE:N[-M]\n");
		return FE_EXIT_USAGE;
	}
	if (!names_file(cl->args[0]) &&
	    parse_place(cl->args[0], &module, &func, &from, &to))
		goto out;
	if (module && o->d.binary) {
		fe_say_error("'%s': MODULE:FUNC is a kernel module's function; with -x the binary's functions are named alone\n",
			     cl->args[0]);
		goto out;
	}
	fe_dbg_args_opts(&o->d, &opts);
	dbg = fe_compile_dwarf(&opts, module, &err);
	if (!dbg) {
		fe_say_error("%s\n", err.msg);
		ret = FE_EXIT_USAGE;	/* as vars and a line probe for the same cause */
		goto out;
	}
	if (names_file(cl->args[0])) {
		ret = file_lines(o->source, dbg, cl->args[0]);
		goto out;
	}
	found = fe_dbg_func_lines(dbg, func, &fl, &err);
	if (found <= 0) {
		if (found == 0 && fe_dbg_inlined_only(dbg, func))
			fe_say_error("'%s' is inlined everywhere in %s, and no copy of it has code left: its lines have no address\n",
				     func, fe_dbg_source(dbg));
		else if (found == 0)
			fe_say_error("no function '%s' in the DWARF of %s\n", func, fe_dbg_source(dbg));
		else
			fe_say_error("%s\n", err.msg);
		goto out;
	}
	last = fl.last_line - fl.decl_line;
	if (from > last) {
		fe_say_error("'%s': %s has lines 0-%ld\n", cl->args[0], func, last);
		goto out;
	}
	if (to > last)
		to = last;
	path = source_path(&fl, o->source);
	nr_text = fl.decl_line + (int)to;
	text = path ? read_source(path, nr_text) : NULL;
	/* numbers alone need a reason, or they look like a bug */
	if (!text)
		fe_say_warning("%s: %s; the lines are shown without their text (--source DIR says where the sources are)\n",
			       path ? path : fl.file, strerror(errno ? errno : ENOENT));
	printf("<%s@%s:%ld>\n", func, path && text ? path : fl.file, from);
	for (line = fl.decl_line + from, k = 0; line <= fl.decl_line + to; line++) {
		const char *src = text && line >= 1 && text[line - 1] ? text[line - 1] : NULL;
		char offs[256];

		while (k < fl.nr_lines && fl.lines[k].line < line)
			k++;
		if (k < fl.nr_lines && fl.lines[k].line == line && !fl.lines[k].callee_only) {
			print_offsets(&fl.lines[k], offs, sizeof(offs));
			printf("%7d  %-12s%s%s\n", line - fl.decl_line, offs, src ? "  " : "",
			       src ? src : "");
		} else if (src) {
			printf("%7s  %-12s  %s\n", "", "", src);
		}
	}
	ret = fflush(stdout) ? FE_EXIT_FAIL : FE_EXIT_OK;
out:
	free_source(text, nr_text);
	free(path);
	free(func);
	free(module);
	fe_func_lines_clear(&fl);
	fe_dbg_close(dbg);
	return ret;
}

/* lines's entry in the command table: its help, the options it takes */
const struct fe_command fe_command_lines = {
	"lines", cmd_lines,
	"fevent lines [-x BIN [-p PID]] [--vmlinux FILE] [--ko FILE]... [--source DIR] [-v] [-q] [MODULE:]FUNC[:N[-M]] | FILE:N[-M]",
	"Print a function's source lines numbered from its declaration (as\n"
	"perf probe -L numbers them); each line a probe can be put on shows the\n"
	"offsets of its addresses from the function's entry.  FILE:N[-M] prints\n"
	"lines of a source file (matched by the end of its path) with the\n"
	"FUNC+OFF places of the functions defined there.  Needs DWARF: the\n"
	"binary's (-x), --vmlinux FILE, or the running kernel's -dbg vmlinux.\n",
	"fevent lines -x ./fx_places walk",
	0,
	{ FE_DWARF_OPTS(struct lines_opts, d),
	  FE_OPTION(FE_OPT_SOURCE, STRING, struct lines_opts, source, NULL), FE_COMMON_OPTS },
	sizeof(struct lines_opts),
	NULL,	/* no checks */
};
