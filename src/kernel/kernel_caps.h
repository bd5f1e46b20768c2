/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a kernel's tracing can do (DESIGN.md sections 6 and 14): read once
 * from its tracefs README, asked by name, never inferred from a version
 * (libbpf's features.c is the model).  Every command asks here: compile
 * and add for the definitions they print and create, install, record and
 * stats for how they drive the kernel.
 *
 * Which kernel: the one whose tracefs is read.  fevent's commands read
 * the running kernel's (--tracefs DIR, else the mounted one); compile for
 * another kernel (--btf, --vmlinux, --kallsyms) reads --tracefs DIR when
 * it is given (that kernel's tracefs, or a copy of its README) and
 * otherwise answers for no kernel in particular: NULL, which can nothing,
 * so that it prints what every kernel with kprobe events takes
 * (docs/decisions.md, "What the kernel can do").
 */
#ifndef KERNEL_CAPS_H
#define KERNEL_CAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "fe_error.h"

enum fe_cap {
	FE_CAP_KPROBE_EVENTS,	/* kprobe_events (CONFIG_KPROBE_EVENTS) */
	FE_CAP_UPROBE_EVENTS,	/* uprobe_events (CONFIG_UPROBE_EVENTS) */
	/* kprobe return probes read $arg<N>: a return event can carry the
	 * entry's arguments (6.12 lists it, 6.1 does not) */
	FE_CAP_RETPROBE_ARGS,
	FE_CAP_KRETPROBE_MAXACTIVE,	/* r[maxactive]: "rN:" sizes return instances */
	FE_CAP_TPROBE_EVENTS,	/* "t:" tracepoint probe events */
	FE_CAP_FPROBE_EVENTS,	/* "f:" fprobe events (FEVENT_NO_FPROBES=1: not used) */
	FE_CAP_HIST_TRIGGERS,	/* hist triggers (CONFIG_HIST_TRIGGERS) */
	FE_CAP_SYNTH_EVENTS,	/* synthetic_events (CONFIG_SYNTH_EVENTS) */
	/* a hist key names the stack 'common_stacktrace' (6.5 renamed
	 * 'stacktrace') */
	FE_CAP_HIST_COMMON_STACKTRACE,
	FE_CAP_SUBBUF_SIZE,	/* buffer_subbuf_size_kb: pages larger than a page */
	/* options/record-tgid and saved_tgids: each task's process (4.14) */
	FE_CAP_RECORD_TGID,
	/* the trace clock mono (CLOCK_MONOTONIC): times a wall clock maps */
	FE_CAP_CLOCK_MONO,
	/* a fetch argument may be an immediate, \imm-value (4.20): a value
	 * DWARF gives as a constant */
	FE_CAP_IMMEDIATES,
	/* "-:GROUP/" removes every dynamic event of a group in one write
	 * (6.1's README shows the event optional; 5.10's does not) */
	FE_CAP_DYNEVENT_GROUP_REMOVE,
	/* the function graph tracer (available_tracers) */
	FE_CAP_FUNCGRAPH,
	/* asked of an instance (fe_kernel_instance_can): the function graph
	 * tracer there (6.12 has it in instances, 6.1 at the top alone), and
	 * its options that record each call's arguments and return value */
	FE_CAP_INSTANCE_FUNCGRAPH,
	FE_CAP_FUNCGRAPH_ARGS,
	FE_CAP_FUNCGRAPH_RETVAL,
	FE_CAP_NR
};

struct fe_kcaps {
	bool can[FE_CAP_NR];
	char dir[PATH_MAX];	/* the tracefs whose README said so; "" none */
};

/* What a README's text says the kernel can do, with files the names of
 * its tracefs' top directory, one a line, and "FILE WORD" for a word a
 * file lists (trace_clock's clocks) (either may be NULL; dir is left as
 * it is). */
void fe_kcaps_parse(struct fe_kcaps *caps, const char *readme, const char *files);

/*
 * The capabilities of the kernel whose tracefs is at dir, read once per
 * dir and kept; NULL when its README cannot be read (no tracefs there,
 * or not root).  Nothing is mounted.
 */
const struct fe_kcaps *fe_kcaps_at(const char *dir);

/* The running kernel's: libtracefs' tracing directory, which
 * fe_tracefs_ready has set up (--tracefs DIR); NULL as above. */
const struct fe_kcaps *fe_kernel_caps(void);

/* The tracefs mounted (in /proc/mounts), as compile reads it without
 * mounting one: path written to buf, false when none is. */
bool fe_kcaps_mounted_dir(char *buf, size_t size);

/* Can it?  caps NULL (no kernel known) can nothing. */
bool fe_kcaps_can(const struct fe_kcaps *caps, enum fe_cap cap);

/* fe_kcaps_can(fe_kernel_caps(), cap) */
bool fe_kernel_can(enum fe_cap cap);

/*
 * A capability of the running kernel's tracefs instances (the rules that
 * say so), read once from the instance at inst_dir (one fevent made: the
 * top directory's files do not say what an instance may do).
 */
bool fe_kernel_instance_can(const char *inst_dir, enum fe_cap cap);

/* The feature's name for messages: "tracepoint probe events (t:)". */
const char *fe_cap_name(enum fe_cap cap);

/*
 * -1 with err saying that the kernel of caps lacks cap, which user (an
 * event, "tp:NAME") needs: the README line it does not have and the
 * kernel option behind it.  col: the column for err.
 */
int fe_kcaps_refuse(const struct fe_kcaps *caps, enum fe_cap cap, const char *user, int col,
		    struct fe_error *err);

#endif
