/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fprobe ("f:") events in place of kprobes at a function's entry, where
 * the kernel has them (DESIGN.md section 14): they cost the
 * traced program less (bench/fprobe_cost.py).  fprobes read no registers,
 * only $argN, so a definition converts when every register it reads is an
 * argument register at the entry.
 */
#ifndef FPROBE_H
#define FPROBE_H

#include "kprobe_emit.h"

/*
 * Make def's entry line an "f:" line: its registers as $argN
 * (%di -> $arg1 ... %r9 -> $arg6).  1 done (def->fprobe set), 0 it cannot
 * be one (a uprobe, a tracepoint, a module's function, an offset, another
 * register, an entry with a return event, a string read): def unchanged,
 * -1 out of memory.
 */
int fe_fprobe_convert(struct fe_definition *def);

/* An f: event's arguments with $argN as the registers a kprobe reads,
 * which the renderer knows; NULL when out of memory. */
char *fe_fprobe_args_as_kprobe(const char *args);

#endif
