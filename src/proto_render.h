/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel definition rendered back as a prototype in fevent's notation:
 * registers and stack slots become slots, dereferences become Rostedt's
 * hops.  Compiling the result gives the same fetch arguments back.
 */
#ifndef PROTO_RENDER_H
#define PROTO_RENDER_H

#include <stdbool.h>

/* event: the event name; target: the probed symbol (kprobes) or NULL
 * (uprobes: the function is named after the event); args: the fetch
 * arguments as the kernel lists them; is_return: an r: event. */
char *fe_render_proto(const char *event, const char *target, const char *args,
		      bool is_return);

#endif
