/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack traces under events (record --stack): the frames of a kernel stack
 * (ftrace/kernel_stack, options/stacktrace) named from kallsyms, and of a
 * user stack (ftrace/user_stack, options/userstacktrace) named from the
 * symbols of the binaries mapped in the process, as /proc/PID/maps said
 * while recording (kept in the trace.dat for report).
 */
#ifndef STACK_VIEW_H
#define STACK_VIEW_H

#include <stdbool.h>

#include "fe_util.h"

struct tep_handle;
struct fe_ustacks;

struct fe_ustacks *fe_ustacks_new(void);
void fe_ustacks_free(struct fe_ustacks *u);

/* Keep /proc/TGID/maps as it is now, unless already kept (live); of a
 * process gone from /proc, what the source says it had mapped. */
void fe_ustacks_capture(struct fe_ustacks *u, int tgid);
/* maps lines of tgid (malloc'd) or NULL: record's watch of mappings */
typedef char *(*fe_maps_source_fn)(void *ctx, int tgid);
void fe_ustacks_source(struct fe_ustacks *u, fe_maps_source_fn fn, void *ctx);

/* Every map kept, as "== TGID" lines each followed by its maps lines,
 * for the trace.dat; NULL if none (or out of memory). */
char *fe_ustacks_dump(const struct fe_ustacks *u);
/* The same read back (from a trace.dat): maps of processes not kept yet. */
void fe_ustacks_load(struct fe_ustacks *u, const char *dump);

/*
 * One frame as text: "func+0xOFF (OBJ)", "OBJ+0xFILEOFF" where OBJ has no
 * symbol there, or "0xADDR" outside every mapping.  ret: a return address
 * (every frame but the first of a stack taken at the probed instruction):
 * named by the call before it, as a debugger does.
 */
void fe_ustack_frame(struct fe_ustacks *u, int tgid, unsigned long long addr, bool ret,
		     struct fe_buf *out);
/* The process's [uprobes] mapping, [*lo, *hi), as its maps say: where a
 * return probe's trampoline stands in for a return address; false if
 * they have none. */
bool fe_ustacks_trampoline(struct fe_ustacks *u, int tgid, unsigned long long *lo,
			   unsigned long long *hi);
/* A kernel frame: "func+0xOFF" from the kallsyms tep was given, or "0xADDR". */
void fe_kstack_frame(struct tep_handle *tep, unsigned long long addr, struct fe_buf *out);

/*
 * A stack under an event's line: frames one a line ("        => FRAME"),
 * or as a JSON member (",\"KEY\":[\"FRAME\",...]").  frames[i] is text.
 */
void fe_stack_put(struct fe_buf *l, bool json, const char *key, char *const *frames, int n);

#endif
