/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copies of a function the compiler inlined into other functions
 * (DESIGN.md section 15), from DWARF; BTF knows none.
 */
#ifndef DBG_INLINE_H
#define DBG_INLINE_H

#include "btf_or_dwarf.h"
#include "fe_error.h"

struct fe_site;

/*
 * Every inlined copy of the function named name, at its entry: one site
 * each (func, the function symbol whose code holds it, and off into it;
 * inlined, the name; copy_entry set; skip says why a copy cannot be
 * probed), ascending by address, each address once.  Strings point into
 * the debug info.  0 and *sites (malloc'd, NULL when none); -1 err.
 */
int fe_dbg_inline_copies(struct fe_dbg *dbg, const char *name, struct fe_site **sites, int *nr,
			 struct fe_error *err);

/* Call fn with the name of each function with an inlined root (its
 * copies may be none) that matches glob, sorted, each once; stops when fn
 * returns non-zero and returns that; -1 when out of memory. */
int fe_dbg_inline_names(struct fe_dbg *dbg, const char *glob,
			int (*fn)(const char *name, void *arg), void *arg);

#endif
