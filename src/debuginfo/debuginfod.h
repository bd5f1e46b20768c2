/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debug info on demand: DWARF by build-id from the debuginfod servers
 * DEBUGINFOD_URLS names, through libdebuginfod (elfutils), opened when
 * first needed, as libdw opens it.  The download goes to libdebuginfod's
 * cache ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), where
 * the next run finds it.
 */
#ifndef FE_DEBUGINFOD_H
#define FE_DEBUGINFOD_H

#include <stddef.h>

#include "fe_error.h"

struct Dwfl;

/* Is DEBUGINFOD_URLS set (to something)? */
int fe_debuginfod_configured(void);

/* The running kernel's build-id in hex, from /sys/kernel/notes: 0, or -1
 * with err set. */
int fe_kernel_build_id(char *hex, size_t size, struct fe_error *err);

/* The build-id in a file of raw ELF notes (/sys/kernel/notes,
 * /sys/module/MODULE/notes/.note.gnu.build-id), in hex: 0, or -1 with err
 * set. */
int fe_notes_build_id(const char *notes, char *hex, size_t size, struct fe_error *err);

/* The build-id of the ELF file at path (its NT_GNU_BUILD_ID note), in
 * hex: 0, or -1 (no such note, or not an ELF file). */
int fe_elf_build_id(const char *path, char *hex, size_t size);

/*
 * The DWARF file of build-id (hex) from debuginfod; what names it for the
 * progress line and errors ("the running kernel's vmlinux").  0 with *path
 * (malloc'd) the file in the cache; -1 with err saying what was tried
 * (the servers, the build-id) and why it failed.  A download shows its
 * progress on standard error when that is a terminal.
 */
int fe_debuginfod_find(const char *build_id, const char *what, char **path,
		       struct fe_error *err);

/* libdwfl's own debuginfod client (user binaries' separate debug info):
 * the same progress line on a terminal, naming what. */
void fe_debuginfod_watch(struct Dwfl *dwfl, const char *what);

/* A progress line shown ends (the file is there, or not). */
void fe_debuginfod_done(void);

/* Why debuginfod has no DWARF for the ELF file at path (asked again, for
 * the error, after libdwfl found none): a sentence in buf, or "" when
 * DEBUGINFOD_URLS is not set or the file has no build-id. */
void fe_debuginfod_why_not(const char *path, char *buf, size_t size);

#endif
