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
#include <stddef.h>

#include "fe_site.h"
#include "proto_parse.h"

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

/* Where a definition read back probes, as a prototype's head says it:
 * [MODULE:]FUNC, [MODULE:]FUNC:N, [MODULE:]FUNC+OFF or FILE:N. */
struct fe_render_head {
	const char *module;	/* or NULL */
	const char *func;	/* NULL for FILE:N */
	const char *file;	/* FILE:N */
	enum fe_at at;
	long line;		/* FUNC:N, FILE:N */
	unsigned long offset;	/* FUNC+OFF */
};

/* The same rendering with its head as head says it (a system call's
 * site still renders SyS_NAME), and in *tree the prototype the text says,
 * built beside it from the definition: what fe_proto_parse gives for the
 * text, so that the caller compiles it without parsing text this stage
 * wrote.  *tree is NULL where the text would not parse.  NULL when out of
 * memory. */
char *fe_render_tree(const struct fe_render_head *head, const char *args,
		     const struct fe_site *site, bool kernel_fetches, struct fe_proto **tree);

/* A kprobe's target as the kernel lists it, [MODULE:]SYMBOL[+OFFSET], as
 * a prototype's head; its names point into buf. */
void fe_render_head_of_target(const char *target, char *buf, size_t size,
			      struct fe_render_head *h);

/* The place add noted of a line or offset (FILE:N, [MODULE:]FUNC:N or
 * [MODULE:]FUNC+OFF, as compile.c's place_of writes it) as a prototype's
 * head; its names point into buf.  -1: it is no such place. */
int fe_render_head_of_place(const char *place, char *buf, size_t size,
			    struct fe_render_head *h);

/* An SDT probe's prototype, PROVIDER:NAME(TYPE NAME, NULL, ...): slot k
 * reads types[k] as names[k], or nothing (NULL) where names[k] is NULL;
 * its tree in *tree as fe_render_tree gives it. */
char *fe_render_sdt(const char *provider, const char *name, const char *const *types,
		    const char *const *names, int nr, struct fe_proto **tree);

#endif
