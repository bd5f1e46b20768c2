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

#include <elfutils/libdwfl.h>

#include "fe_error.h"

/* The largest download fevent takes when DEBUGINFOD_MAXSIZE is unset: a
 * distribution's vmlinux with DWARF is under 1 GB, a large C++ program's
 * debug file a few. */
#define FE_DEBUGINFOD_MAXSIZE	(4LL << 30)

/* The running kernel's notes: its build-id */
#define FE_KERNEL_NOTES	"/sys/kernel/notes"

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
 * Is the debug file at path the one of build-id want (hex)?  The one
 * answer for every debug file fevent reads for a build it knows (the
 * running kernel's vmlinux, a module, a binary's separate DWARF; found
 * installed, given, or from debuginfod): another build's would give wrong
 * offsets without a word.  name is how errors call path (NULL: path);
 * what names the build ("the running kernel", "module 'ext4'"), whose
 * where want comes from ("/sys/kernel/notes").  0; or -1 with err "NAME
 * is another build of WHAT (build-id GOT; WHOSE: WANT)", or saying that
 * it has no build-id to tell.
 */
int fe_debug_file_check(const char *path, const char *name, const char *what, const char *want,
			const char *whose, struct fe_error *err);

/*
 * The DWARF file of build-id (hex) from debuginfod; what names it for the
 * progress line and errors ("the running kernel's vmlinux").  0 with *path
 * (malloc'd) the file in the cache; -1 with err saying what was tried
 * (the servers, the build-id) and why it failed.  A download shows its
 * progress on standard error when that is a terminal, else one line saying
 * what is waited for.  Bounded: DEBUGINFOD_TIMEOUT (libdebuginfod's wait
 * for data), DEBUGINFOD_MAXSIZE (else FE_DEBUGINFOD_MAXSIZE), asked once
 * (DEBUGINFOD_RETRY_LIMIT, when unset, is 0).  The file got is checked by
 * fe_debug_file_check; another build's is removed from the cache.  A
 * build-id is asked once a run: the answer is remembered.
 */
int fe_debuginfod_find(const char *build_id, const char *what, char **path,
		       struct fe_error *err);

/*
 * libdwfl's find_debuginfo callback for every Dwfl fevent makes: a
 * binary's separate DWARF from libdwfl's search of the debug directories
 * (by build-id, by debuglink: libdwfl checks each against the build-id),
 * then from debuginfod through fe_debuginfod_find (bounded, its file
 * checked).
 */
int fe_dwfl_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name);

/* A progress line shown ends (the file is there, or not). */
void fe_debuginfod_done(void);

#endif
