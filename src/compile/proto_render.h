/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel definition rendered back as a prototype in fevent's notation:
 * registers and stack slots become slots, dereferences become Rostedt's
 * hops, and what they cannot say in the kernel's own spelling
 * (TYPE NAME=FETCH).  Compiling the result without debug info gives the
 * same fetch arguments back, in the same order.
 */
#ifndef PROTO_RENDER_H
#define PROTO_RENDER_H

#include <stdbool.h>

#include "fe_site.h"

/* event: the event name; target: the probed symbol (kprobes) or NULL
 * (uprobes: the function is named after the event); args: the fetch
 * arguments as the kernel lists them; site: where the definition probes,
 * or NULL for a function's entry: a return site renders its return type
 * (an r: event), a system call's (or its return's) renders SyS_NAME;
 * kernel_fetches: every argument as 'TYPE NAME=FETCH', which reads the
 * same whatever debug info the prototype is compiled with.  NULL when out
 * of memory. */
char *fe_render_proto(const char *event, const char *target, const char *args,
		      const struct fe_site *site, bool kernel_fetches);

#endif
