/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --stack: the kernel stack of kernel events (options/stacktrace,
 * ftrace/kernel_stack records) and the user stack of uprobes
 * (options/userstacktrace, ftrace/user_stack records), each written right
 * after its event in the same buffer.
 */
#ifndef RECORD_STACKS_H
#define RECORD_STACKS_H

#include <stdbool.h>
#include <sys/types.h>

#include "fe_error.h"
#include "live_view.h"
#include "probe_install.h"

struct tracefs_instance;
struct fe_maps_watch;

/* Which stacks the chosen events want: bit 0 kernel, bit 1 user. */
#define FE_STACK_KERNEL	1
#define FE_STACK_USER	2
int fe_stacks_wanted(const struct fe_event_info *ev, int n, const bool *chosen);

/* The view learns the stack events' formats (and, live, keeps the maps
 * of the processes whose user stacks come). */
int fe_stacks_view(struct fe_view *v, const struct fe_event_info *ev, int n, const bool *chosen,
		   bool live, struct fe_error *err);
/*
 * Where user stacks are wanted, the mappings of pid and its children (-1:
 * of every process, -a) watched as the kernel reports them, and the view
 * told to ask them of a process that left /proc before its stacks were
 * named (NULL: none wanted, or no perf events here).
 * fe_maps_watch_close() after the view's end.
 */
struct fe_maps_watch *fe_stacks_watch_maps(struct fe_view *v, const struct fe_event_info *ev,
					   int n, const bool *chosen, pid_t pid, bool on_exec);
/*
 * Must the view decode as the pages come, on the CPU the traced program
 * wants?  Only for user stacks without a watch of the maps (no perf
 * events): /proc/PID/maps is then read at the first stack decoded, before
 * the process may be gone.  Kernel stacks are named from kallsyms, which
 * stays: they are decoded when the buffers are quiet, as events without
 * stacks are.
 */
bool fe_stacks_decode_early(const struct fe_event_info *ev, int n, const bool *chosen,
			    const struct fe_maps_watch *maps);
/* The instance writes them. */
int fe_stacks_enable(struct tracefs_instance *inst, const struct fe_event_info *ev, int n,
		     const bool *chosen, struct fe_error *err);
/* The ftrace formats of the stack events wanted, for a trace.dat:
 * formats[0..return) to be freed by the caller (at most 2). */
int fe_stacks_formats(const struct fe_event_info *ev, int n, const bool *chosen, char **formats);

#endif
