/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel says that does not change while it runs, kept
 * for the boot in /run/fevent/NAME (root's, 0700, under /run, which only
 * root writes): the kernel's symbols a list asks (ksyms_shared.c), the
 * functions a glob may name (func_glob.c), the kernel's raw BTF
 * and its function index (dbg_btf.c).  The head says what it is and
 * for which boot and state: "fevent NAME 1 BOOT_ID STAMP COUNT", then
 * COUNT lines.  A reader checks everything before it uses anything: the
 * file is root's own, nobody else may write it, it is this boot's and
 * this STAMP's, and it has COUNT whole lines; each line's content is the
 * caller's to check.
 */
#ifndef BOOT_KEPT_H
#define BOOT_KEPT_H

#include <stddef.h>

/* This boot's id (/proc/sys/kernel/random/boot_id, hex and dashes);
 * 0, or -1 where unreadable. */
int fe_boot_id(char *id, size_t size);

/* The lines of /run/fevent/name (after its head), NUL-terminated, each
 * ending in a newline; NULL when there is no such file for this boot and
 * stamp (a word), or it fails a check.  Only for root. */
char *fe_boot_kept_read(const char *name, const char *stamp, size_t *len);

/* Only add writes these files, and only once it said so: compile and
 * funcs touch nothing (DESIGN.md section 1); they read what add kept. */
void fe_boot_kept_allow_write(void);

/* May this process write them: allowed, root, and /run/fevent a
 * directory of root's that nobody else may write (made if missing)?
 * Asked before gathering what would be kept. */
int fe_boot_kept_can_write(void);

/* Write /run/fevent/name whole, mode 0600 (a temporary made O_EXCL and
 * renamed into place): the head, then lines, count of them.  0, or -1
 * (nothing is kept). */
int fe_boot_kept_write(const char *name, const char *stamp, const char *lines, long count);

/* The same for bytes kept whole: the head alone on its page, then size
 * bytes (the STAMP is the caller's, the size is checked here). */
int fe_boot_kept_write_bytes(const char *name, const char *stamp, const void *bytes, size_t size);

/* Those *size bytes mapped read-only, for munmap(*size); or, with *size
 * 0, as many as the head says (then set).  NULL when there is no such
 * file for this boot, stamp and size, or it fails a check.  Only
 * fevent's own writers make these files, by rename: the pages mapped are
 * never truncated under the mapping (root rewriting the file in place
 * would be: the man page says to remove it instead).  Only for root. */
void *fe_boot_kept_map(const char *name, const char *stamp, size_t *size);

/* Write path whole: head then body into a temporary of mode 0600 made with
 * O_EXCL beside it, renamed over path, so a reader sees the old file or
 * the new.  The writer of the kept files and of add's notes (a user's
 * outputs are out_file.c's).  0, or -1 with errno. */
int fe_file_replace(const char *path, const void *head, size_t head_len,
		    const void *body, size_t body_len);

#endif
