/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the debug info of a target is (DESIGN.md section 6: one locator,
 * asked by every command and every kind of place).  It looks in a fixed
 * order (docs/decisions.md, "One debug-info locator") and, when it finds
 * nothing, says every place it tried and why each gave nothing, in one
 * sentence that every command prints as it is:
 *
 *   no DWARF for TARGET: tried PLACE (WHY); PLACE (WHY); ...: WHAT TO DO
 *
 * - an ELF file (-x BIN, --vmlinux FILE, a module's file): its own DWARF,
 *   /usr/lib/debug/.build-id/NN/REST.debug, its .gnu_debuglink's name
 *   beside it, in .debug/ beside it and under /usr/lib/debug/DIR, then
 *   debuginfod by its build-id.  A binary stripped of its symbol table
 *   takes its symbols from the file found (same addresses).
 * - the running kernel: /sys/kernel/btf/vmlinux (types, no lines), then
 *   its DWARF vmlinux where the -dbg package and kernel builds put it,
 *   then debuginfod by the build-id of /sys/kernel/notes.
 * - a module: --ko FILE, then for the running kernel's modules its file
 *   if it kept its DWARF, the -dbg package's file, debuginfod by its
 *   build-id.
 *
 * Answers are kept for the run: debuginfod is asked once per file.
 */
#ifndef DBG_LOCATE_H
#define DBG_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "btf_or_dwarf.h"
#include "fe_error.h"

#define FE_RUNNING_KERNEL_BTF	"/sys/kernel/btf/vmlinux"

/*
 * The file holding the DWARF of the ELF file at path: 1 with *debugfile
 * (path itself when it has its own; kept for the run), or 0 with *why
 * naming every place tried.  Never NULL pointers on return.
 */
int fe_locate_elf(const char *path, const char **debugfile, const char **why);

/*
 * The separate debug file whose symbol table stands for that of path,
 * which has none (strip): the same section layout, so its addresses are
 * path's.  NULL when path has a symbol table, or no debug file is found.
 */
const char *fe_locate_symtab(const char *path);

/* Is the ELF file at path stripped of its symbol table? */
bool fe_locate_stripped(const char *path);

/* The running kernel's DWARF vmlinux installed (-dbg package, a build
 * tree), in path: true if one is there. */
bool fe_locate_kernel_vmlinux(char *path, size_t size);

/*
 * The running kernel's DWARF: installed, else from debuginfod by its
 * build-id.  NULL with why saying every place tried, as each command says
 * it (the BTF too: lines need DWARF, entries take BTF).
 */
struct fe_dbg *fe_locate_kernel_dwarf(struct fe_error *why);

/* Why the running kernel has no DWARF (need_dwarf: for lines and
 * locals), or no debug info at all (no BTF either: for types): the
 * sentence fe_locate_kernel_dwarf gave, or NULL when it has some or
 * nobody asked yet. */
const char *fe_locate_kernel_why(bool need_dwarf);

/* Where a module's debug info may come from. */
struct fe_locate_mod {
	const char *const *kos;	/* --ko FILE... */
	int nr_kos;
	bool running;		/* the running kernel's modules (no --btf,
				 * --vmlinux, --kallsyms) */
};

/* Does --ko FILE path name module (MODULE.ko[.debug|.xz|...])? */
bool fe_ko_names(const char *path, const char *module);

/* The --ko FILE that names module, or NULL. */
const char *fe_locate_ko(const struct fe_locate_mod *lm, const char *module);

/*
 * A module's own DWARF: --ko FILE of it; for the running kernel's modules
 * then the module's file if it kept its DWARF, the -dbg package's file of
 * it (/usr/lib/debug/lib/modules/RELEASE/...), else debuginfod by the
 * module's build-id; NULL with why saying every place tried.
 */
struct fe_dbg *fe_locate_module(const struct fe_locate_mod *lm, const char *module,
				struct fe_error *why);

#endif
