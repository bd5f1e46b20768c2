/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 4: resolved probe + parameter places -> kprobe_events /
 * uprobe_events definitions, checked against the kernel's own limits so
 * that nothing the kernel would refuse is ever written.
 */
#ifndef KPROBE_EMIT_H
#define KPROBE_EMIT_H

#include "fe_error.h"
#include "fe_util.h"
#include "field_name.h"
#include "fetch_map_x86_64.h"
#include "proto_resolve.h"

/* trace_probe.h and trace.h of the kernel */
#define FE_KERNEL_MAX_ARGS		128	/* MAX_TRACE_ARGS */
#define FE_KERNEL_MAX_ARGSTR		63	/* MAX_ARGSTR_LEN */
#define FE_KERNEL_MAX_ARG_NAME		32	/* MAX_ARG_NAME_LEN */
#define FE_KERNEL_MAX_EVENT_NAME	63	/* MAX_EVENT_NAME_LEN - 1 */
#define FE_KERNEL_MAX_DEREF		12	/* FETCH_INSN_MAX allows 12 */
#define FE_KERNEL_MAX_LINE		4094	/* WRITE_BUFSIZE less newline, NUL */

#define FE_DEFAULT_GROUP	"functions"
#define FE_RETURN_SUFFIX	"__return"
#define FE_CALLER_FIELD		"__caller"
/* a uprobe entry's return address ($stack0) where its function has a return
 * event: the frame a return probe hides from user stacks (view/uret_frames.c) */
#define FE_RETADDR_FIELD	"__retaddr"


struct fe_kcaps;

struct fe_emit_opts {
	const char *group;	/* NULL: FE_DEFAULT_GROUP */
	const char *event;	/* -n NAME, or NULL: from the function name */
	/* the kernel's return probes read $arg<N>: a kprobe's return event
	 * also carries the entry's arguments (DESIGN.md section 14) */
	bool ret_with_args;
	/* the return event's site (FE_SITE_RETURN), or NULL: none */
	const struct fe_site *ret;
	/* the target kernel's capabilities (kernel_caps.h): a constant is
	 * refused where it takes no immediates; NULL, no kernel in
	 * particular, takes them (every kernel since 4.20) */
	const struct fe_kcaps *kcaps;
};

struct fe_definition {
	char *group;
	char *event;		/* entry event name */
	char *entry;		/* "p:GROUP/EVENT TARGET ..." */
	char *ret_event;	/* NULL when there is no return event */
	char *ret;		/* "r:GROUP/EVENT__return TARGET ret=..." */
	/* the same in the parts libtracefs' dynevent API takes */
	bool uprobe;
	bool tracepoint;	/* a "t:" event: target is the tracepoint */
	bool fprobe;		/* "f:" lines (fprobe.h): entry, ret */
	char *target;		/* kprobe: SYMBOL or MODULE:SYMBOL; uprobe: FILE */
	unsigned long long offset;	/* uprobe: file offset */
	unsigned long long ref_ctr;	/* uprobe: an SDT semaphore's file offset, or 0 */
	char *entry_args;	/* "__caller=$stack0:symbol a=%di:x64 ..." */
	char *ret_args;		/* "ret=$retval:s64" */
	/* where each argument starts in entry_args, and the prototype
	 * column it came from (0: none), to place the kernel's complaints */
	int *arg_pos;
	int *arg_col;
	int nr_args;
	/* 'if FILTER': the kernel's filter for the entry event, or for the
	 * return event when it names the return value; NULL if none */
	char *filter;
	bool filter_on_return;
	/* the filter names fields of both events: it filters whole calls,
	 * in fevent (kept in /run/fevent/GROUP/EVENT.filter) */
	bool filter_on_call;
	/* the return event carries the entry's arguments ($arg<N>) too */
	bool ret_has_args;
	/* MODULE:func of a module not loaded whose file typed it (installed,
	 * or --ko FILE): the kernel keeps the probe and arms it at load */
	bool module_waits;
	/* a line or offset: the place as written ("walk:7", "f.c:21",
	 * "walk+11"), and which of its place_count addresses this is (list
	 * shows the place, kept in /run/fevent/GROUP); NULL at
	 * an entry */
	char *place;
	int place_index, place_count;
	/*
	 * How the view shows fields beyond their fetch types (DESIGN.md
	 * section 16), one line a field, kept beside the event: "FIELD
	 * errno", "FIELD err_ptr", "FIELD enum NAME=VALUE ...", "FIELD in
	 * GROUP MEMBER" (one member of a whole struct).  NULL: nothing.
	 */
	char *entry_values;
	char *ret_values;
};

/* The "values" lines of one field into b; line: the arguments, whose
 * last one, from at, is the field's (its name up to '='). */
void fe_field_values(struct fe_buf *b, const struct fe_field *f, const struct fe_buf *line,
		     size_t at);

int fe_emit(const struct fe_probe *probe, const struct fe_place *places,
	    const struct fe_emit_opts *opts, struct fe_definition *def,
	    struct fe_error *err);
void fe_definition_clear(struct fe_definition *def);

/* The event name a function name becomes: [A-Za-z0-9_] kept, the rest '_'. */
char *fe_event_name(const char *func);

/* Is name acceptable to the kernel as a group or event name? */
int fe_check_event_name(const char *name, const char *what, int col,
			struct fe_error *err);

#endif
