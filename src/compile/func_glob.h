/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions a glob names (DESIGN.md section 12), by one rule for
 * 'funcs' and for a prototype's 'vfs_*(...)': what the target's symbols
 * and its debug info both have, less what kprobes refuse on the running
 * kernel.  Part of resolve: it knows symbols and debug info, not events.
 */
#ifndef FUNC_GLOB_H
#define FUNC_GLOB_H

#include <stdbool.h>

#include "btf_or_dwarf.h"
#include "fe_error.h"

struct fe_func_names {
	char **v;		/* sorted, unique; a module's as "mod:func" */
	int nr;
};

/* Does a function name have a glob's '*', '?' or '['? */
bool fe_is_glob(const char *name);

/*
 * The functions matching glob.  kallsyms: the kernel's symbol list (a
 * module's functions follow the kernel's, described by their split BTF
 * when they have one), or NULL for the debug info's functions alone
 * (another kernel's BTF, a binary's DWARF).  running: kallsyms is this
 * machine's, so the kprobe blacklist and available_filter_functions
 * apply.  A glob with a ':' matches "mod:func"; without, a module's
 * function by its name.  Returns 0, or -1 with err set.
 */
int fe_func_glob(struct fe_dbg *dbg, const char *kallsyms, bool running, const char *glob,
		 struct fe_func_names *out, struct fe_error *err);
void fe_func_names_free(struct fe_func_names *names);

#endif
