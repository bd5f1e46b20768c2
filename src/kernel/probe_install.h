/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 5: install.  Definitions into the kernel through libtracefs'
 * dynamic-event API, and fevent's events listed and removed again.  Only
 * the group fevent owns is ever touched.
 */
#ifndef PROBE_INSTALL_H
#define PROBE_INSTALL_H

#include <stdbool.h>

#include "fe_error.h"
#include "fe_site.h"
#include "kprobe_emit.h"

struct tracefs_instance;

/*
 * Find tracefs (--tracefs DIR, or where it is mounted; mounted at
 * /sys/kernel/tracing if it is nowhere) and check that this kernel and
 * user can do what is asked: root, kprobe_events or uprobe_events.
 * 0; -2 when DIR is not a tracefs (bad usage); -1.
 */
int fe_tracefs_ready(const char *dir, bool kprobes, bool uprobes, struct fe_error *err);

/* Why an add failed, when the kernel refused a definition. */
struct fe_refusal {
	int def;		/* index into the definitions */
	bool ret;		/* the return event's definition */
	char *log;		/* the kernel's error_log entry, caret included */
	int arg;		/* index of the argument it points at, or -1 */
	int col;		/* its prototype column, or 0 */
};

/*
 * Create every event of defs, all or nothing: if one fails, the events this
 * call created are removed and any it replaced (force) are restored.
 * Returns 0, or -1 with err set and, for a refusal, *refusal filled.
 */
int fe_install(struct fe_definition *const *defs, int n, bool force,
	       struct fe_refusal *refusal, struct fe_error *err);
void fe_refusal_clear(struct fe_refusal *r);

enum fe_event_kind {
	FE_KIND_KPROBE, FE_KIND_KRETPROBE, FE_KIND_UPROBE, FE_KIND_URETPROBE,
	FE_KIND_TPROBE,		/* "t:": a tracepoint probe */
	FE_KIND_FPROBE,		/* "f:": an fprobe at a function's entry */
	FE_KIND_FEXIT,		/* "f:...%return": at its return */
};

/* A uprobe or uretprobe: its hits are in uprobe_profile, keyed by file. */
static inline bool fe_kind_is_uprobe(enum fe_event_kind kind)
{
	return kind == FE_KIND_UPROBE || kind == FE_KIND_URETPROBE;
}

struct fe_event_info {
	char *group;
	char *event;
	enum fe_event_kind kind;
	char *target;		/* "do_sys_openat2", "/bin/prog:0x1130" */
	char *args;		/* fetch arguments as the kernel lists them */
	char *definition;	/* the whole line */
	unsigned long long hits;
	unsigned long long misses;	/* kprobes only */
	unsigned int maxactive;	/* a kretprobe's return instances ("r64:"), 0 unknown */
	bool no_hits;		/* the kernel counts none (tprobes) */
	char **enabled_in;	/* "" for the top level, or instance names */
	int nr_enabled;
	/*
	 * An entry event whose function has a return event, and a filter
	 * on either or over both ('if FILTER', in the kernel's field
	 * names): the filter on its calls, which fevent applies to entry
	 * and return together (DESIGN.md section 9); else NULL.
	 * call_filter_kept: it is kept beside the events, in no filter file.
	 */
	char *call_filter;
	bool call_filter_kept;
	/* an entry whose return event carries the arguments and has a
	 * filter: the kernel filters whole calls there (not call_filter) */
	bool calls_filtered_in_kernel;
	/* how the view shows its fields (value_format.h), or NULL */
	char *values;
	/* add's lines of them were found (/run/fevent/GROUP/+*.notes);
	 * else value_derive.h asks the debug info */
	bool values_kept;
};

/* The "values" lines add kept beside an event (fe_definition's
 * entry_values, ret_values), or NULL: how the view shows its fields.
 * *kept: the file was there (it may hold nothing). */
char *fe_event_values(const char *group, const char *name, bool *kept);

/*
 * Where a definition read back from the kernel probes: *entry (a system
 * call behind its wrapper __x64_sys_NAME, or a function's entry) and, for
 * a return event, *ret paired with it.  Returns the event's own site.
 */
const struct fe_site *fe_event_sites(const struct fe_event_info *e, struct fe_site *entry,
				     struct fe_site *ret);

/* fevent's events (the group), sorted by name. */
int fe_list_events(const char *group, struct fe_event_info **out, int *n,
		   struct fe_error *err);
void fe_event_infos_free(struct fe_event_info *ev, int n);
/* Read the hits and misses of ev[0..n) again; -1 if one could not be read
 * (its counts are then 0 and, given unread, unread[i] true). */
int fe_profile_counts(struct fe_event_info *ev, int n, bool *unread);
/* Enable (on) or disable one event in inst (NULL: the top level): 0, or
 * -1 with errno set. */
int fe_event_set_enabled(struct tracefs_instance *inst, const char *group, const char *event,
			 bool on);
/* The hits and misses of e in the text of its profile file (kprobe_profile
 * for kprobes, uprobe_profile for uprobes); false if not there. */
bool fe_profile_find(const char *text, const struct fe_event_info *e, unsigned long long *hits,
		     unsigned long long *misses);
const char *fe_event_kind_name(enum fe_event_kind kind);
/* A uprobe's file since add: 1 replaced or gone (the probe watches the old
 * inode), 2 named through /proc/PID/root of a process that has exited, 0
 * the same, -1 unknown (not added by fevent, or not a uprobe). */
int fe_uprobe_file_changed(const struct fe_event_info *e);

/* The place a line or offset event was added for, as written ("walk:7"),
 * and which of its count addresses the event is; -1 when none was noted
 * (an entry, or an event fevent did not add). */
int fe_event_place(const char *group, const char *event, char *place, size_t size, int *index,
		   int *count);

/*
 * Remove fevent's events: all of the group, or the named ones (with their
 * __return events).  An event enabled where fevent does not own it stays,
 * with a warning, unless force.  Returns the number removed, or -1.
 */
int fe_clear_events(const char *group, char *const *names, int nr_names, bool force,
		    struct fe_warnings *undone, struct fe_error *err);

/*
 * What fevent processes that are gone (killed) left in tracefs: their
 * fevent-PID[-countN] instances (triggers first) and fevent_PID_N
 * synthetic events, where PID is no process or one that is no fevent (a
 * reused pid).  A live fevent's are kept.  msg: one line saying what was
 * removed, or "".  Returns how many.
 */
int fe_remove_leftovers(char *msg, size_t size);

#endif
