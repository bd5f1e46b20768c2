/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's modules, to tell MODULE:function apart when the
 * function is not there: a module not loaded (and whether modprobe knows
 * it), one built into the kernel, or a function the loaded module lacks.
 */
#ifndef KMODULE_H
#define KMODULE_H

#include <stddef.h>

#include "fe_error.h"

/* Is module loaded (/proc/modules)?  1 yes, 0 no (also: a kernel without
 * loadable modules), -1 cannot tell. */
int fe_kmod_loaded(const char *module);

/* Is module built into the running kernel (/lib/modules/RELEASE/
 * modules.builtin)?  1 yes, 0 no, -1 cannot tell. */
int fe_kmod_builtin(const char *module);

/*
 * The running kernel's file of module, as modules.dep names it:
 * /lib/modules/RELEASE/kernel/.../MODULE.ko[.xz|.zst|.gz].  1 with its
 * path in buf, 0 when there is none, -1 cannot tell.
 */
int fe_kmod_file(const char *module, char *buf, size_t size);

/*
 * Where the running kernel's -dbg package puts module's DWARF (Debian's
 * linux-image-RELEASE-dbg: /usr/lib/debug/lib/modules/RELEASE/ and the
 * path modules.dep gives, uncompressed).  1 with the path in buf (the
 * file may not be there), 0 when modules.dep has no such module, -1
 * cannot tell.
 */
int fe_kmod_debug_file(const char *module, char *buf, size_t size);

/*
 * A module file as an ELF file can be read: path itself, or for a
 * compressed .ko.xz, .ko.gz or .ko.zst a decompressed copy in memory,
 * named /proc/self/fd/N (kept open for the process: each file
 * decompressed once, each name one file; at most 1 GB).  0 with the name
 * in plain, or -1 with err set (a file that does not decompress, or too
 * large).
 */
int fe_kmod_plain(const char *path, char *plain, size_t size, struct fe_error *err);

/*
 * Why MODULE:function has no module to probe, as a sentence for an error
 * or a warning: module is not loaded per kallsyms (the symbol table that
 * was read).  For the running kernel's /proc/kallsyms, also what
 * /lib/modules/RELEASE says: modprobe can load it, it is built in, or
 * there is no file of it (then every place looked in, and --ko FILE).
 */
void fe_kmod_not_loaded(const char *module, const char *kallsyms, char *buf, size_t size);

#endif
