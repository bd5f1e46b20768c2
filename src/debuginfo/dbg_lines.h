/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source lines of a function where a probe can go, from the DWARF
 * line table: what 'fevent lines' prints (perf probe -L's question).
 * BTF has no lines.
 */
#ifndef DBG_LINES_H
#define DBG_LINES_H

#include "btf_or_dwarf.h"
#include "fe_error.h"

/* One probe-able line: the offsets from the function's entry of the
 * addresses the line table gives it, ascending. */
struct fe_src_line {
	int line;			/* absolute */
	unsigned long *offs;
	/* per offset: NULL, an offset from the function's entry; else the
	 * function (symbol) holding an inlined copy of it, whose entry the
	 * offset is from (DESIGN.md section 15) */
	const char **in;
	int nr_offs;
	/* its only statements start where an inlined callee's code does:
	 * a probe goes there (gdb, perf probe -D), perf probe -L does not
	 * list it, nor does 'fevent lines' */
	bool callee_only;
};

struct fe_func_lines {
	char *file;			/* the function's source file, as DWARF names it */
	char *comp_dir;			/* its unit's DW_AT_comp_dir, or NULL */
	int decl_line;			/* where the function is declared: line 0 */
	int last_line;			/* the last line of its code */
	struct fe_src_line *lines;	/* ascending */
	int nr_lines;
	bool own;			/* it has code of its own (else: only
					 * inlined copies) */
};

/* 1 and out filled; 0 no such function in the DWARF; -1 err (BTF only,
 * out of memory). */
int fe_dbg_func_lines(struct fe_dbg *dbg, const char *func, struct fe_func_lines *out,
		      struct fe_error *err);
void fe_func_lines_clear(struct fe_func_lines *fl);

struct fe_site;

/*
 * Call fn for each function with code defined in file (matched by the end
 * of its path) and declared at or above line (0: any), each name once,
 * with the unit's spelling of the file and its comp_dir.  Returns what fn
 * returned if non-zero; -1 with err set when no unit has the file.
 */
int fe_dbg_file_funcs(struct fe_dbg *dbg, const char *file, long line,
		      int (*fn)(const char *func, const char *path, const char *comp_dir,
				void *arg),
		      void *arg, struct fe_error *err);

/* FILE:N: every address of line N of a file (matched by the end of its
 * path) in the functions defined there, as sites (funcs point into the
 * debug info).  0 and *sites (malloc'd) filled; -1 err, also when the
 * line has no code. */
int fe_dbg_file_line_sites(struct fe_dbg *dbg, const char *file, long line,
			   struct fe_site **sites, int *nr, struct fe_error *err);

#endif
