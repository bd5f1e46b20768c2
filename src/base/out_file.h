/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file fevent writes goes through here (record -o, report --chrome,
 * add's notes under /run/fevent).  fevent runs as root, often on paths in
 * /tmp, on hosts where the kernel's fs.protected_symlinks,
 * protected_regular and protected_fifos are off, so the writer applies
 * their rules itself, to every write:
 *
 *  - a symbolic link in a sticky, world-writable directory is followed
 *    only if fevent's user or the directory's owner owns it;
 *  - an existing regular file or FIFO in such a directory is written (or
 *    replaced) only if fevent's user or the directory's owner owns it;
 *  - a regular file is written under a temporary name beside it
 *    (.FILE.PID.XXXXXX, O_EXCL) and renamed into place when complete, so
 *    FILE is never half written and never a file someone else opened;
 *  - a FIFO, a device or an open descriptor (/dev/stdout, /dev/fd/N) named
 *    by the user is written in place, never replaced.
 */
#ifndef OUT_FILE_H
#define OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "fe_error.h"

struct fe_out;

enum {
	FE_OUT_KEEP_OLD = 1,	/* an existing FILE becomes FILE.old (record -o) */
	FE_OUT_NOTED = 2,	/* note the temporary under /run/fevent: long writes */
};

/*
 * Open path for writing.  0 and *out; -2 when the path is refused (a
 * link or file planted by another user, a directory: bad usage); -1 when
 * it cannot be written.  err names the path and why.
 */
int fe_out_open(struct fe_out **out, const char *path, unsigned int flags,
		struct fe_error *err);
FILE *fe_out_stream(struct fe_out *o);
/* The path as it was given, for messages. */
const char *fe_out_path(const struct fe_out *o);
/* Flush, sync and rename into place; frees o.  On failure nothing is
 * left of the temporary and err names the path. */
int fe_out_commit(struct fe_out *o, struct fe_error *err);
/* Throw away what was written (the temporary); frees o.  NULL is fine. */
void fe_out_abort(struct fe_out *o);

/* A whole small file at once: open, write text, commit. */
int fe_out_write_text(const char *path, const char *text, struct fe_error *err);

/*
 * Remove the temporaries (.FILE.PID.XXXXXX) of writers that are gone
 * (killed), wherever they were written; returns how many.
 */
int fe_out_remove_orphans(void);

#endif
