/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage 6: view.  Raw ring-buffer pages in, readable events out: decoded
 * with libtraceevent from the formats of fevent's events only, merged
 * across CPUs by timestamp, entry and return events paired per task into
 * "func(args) = ret <duration>", as text or one JSON object per line.
 * Lost events are reported where they happened and in a summary.
 */
#ifndef LIVE_VIEW_H
#define LIVE_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "fe_error.h"
#include "fe_util.h"

struct fe_view;

/* An event handed to a sink instead of printed (fevent stats), in time
 * order, entries and returns alike and unpaired. */
struct fe_view_event {
	const char *group;
	const char *event;
	const char *func;	/* the entry event's name */
	bool is_return;
	int pid;
	int cpu;
	unsigned long long ts;
	const void *data;	/* the record */
	int size;
	const unsigned long long *stack;	/* its kernel stack, with options/stacktrace */
	int nr_stack;
};

typedef int (*fe_view_sink_fn)(void *ctx, struct fe_view *v, const struct fe_view_event *e);

/*
 * A call as the view shows it, handed to a call_fn instead of printed, as
 * its return comes (calls inside others first): entry and return paired
 * (either may be missing: an unpaired half, an event without a return
 * event), the values as text or, with opts.json, as JSON.
 */
struct fe_view_call {
	const char *group;
	const char *func;	/* the entry event's name */
	const char *event;	/* the event's own name (the first half's) */
	int pid;
	int cpu;
	const char *comm;
	int tgid;		/* pid's process (fe_view_tgids), or 0: not known */
	bool has_entry, has_return;
	unsigned long long entry_ts, return_ts;
	const char *caller;	/* or NULL */
	const char *args;	/* "name=value, ..." or "{...}"; NULL when not known */
	const char *ret;	/* or NULL: no return, or a void function's */
	int depth;		/* calls of its task open around it */
	/* the return as the value formatter judges it (value_format.h): a
	 * failure, the errno it names (a kernel return's; 0 for user
	 * space, whose errno is not in the value) and whether an ERR_PTR */
	bool failed;
	int err;
	bool err_ptr;
	struct fe_wall_clock *wall;	/* JSON's "time" and "host": the view's */
};

typedef void (*fe_view_call_fn)(void *ctx, const struct fe_view_call *c);

struct fe_view_opts {
	bool json;
	bool graph;	/* --graph: calls of a task nested by depth (text only) */
	FILE *out;
	bool quiet;	/* -q: the summary only when events were lost */
	fe_view_sink_fn sink;	/* set: events go there, nothing is printed */
	void *sink_ctx;
	fe_view_call_fn call_fn;	/* set: calls go there, nothing is printed */
	void *call_ctx;
	bool discard;	/* out is /dev/null: events are counted, not formatted */
	/* a trace.dat's instance buffer the events are from: each line
	 * starts "NAME: ", each JSON object has "buffer", the summary too;
	 * "" for the top buffer of a file with others: the summary says so */
	const char *buffer;
	/* a trace.dat's time options applied as trace-cmd applies them: each
	 * timestamp read from a page of cpu goes through it (NULL: as read) */
	unsigned long long (*ts_fn)(void *ctx, int cpu, unsigned long long ts);
	void *ts_ctx;
};

struct fe_view *fe_view_new(const struct fe_view_opts *opts, const char *header_page,
			    struct fe_error *err);
void fe_view_free(struct fe_view *v);

/*
 * Decode this event: its format file's text, and its fetch arguments as
 * the kernel lists them (they give each field's fetch type, e.g. symbol).
 */
int fe_view_add_event(struct fe_view *v, const char *group, const char *event,
		      const char *format, const char *args, struct fe_error *err);

/*
 * A task event that names tasks and is not printed: sched_process_fork
 * (the child's comm) or sched_process_exec (the new program's name).
 */
int fe_view_add_task_event(struct fe_view *v, const char *system, const char *event,
			   const char *format, struct fe_error *err);

/*
 * A field of a sink's event by its name in the format: as text (a number
 * in decimal, a symbol's name, a string's bytes) and, unless a string, as
 * a number.  -1 if the event has no such field or the record is too short.
 */
int fe_view_field(struct fe_view *v, const struct fe_view_event *e, const char *name,
		  struct fe_buf *text, unsigned long long *num, bool *is_signed);
/* The command of pid as the view knows it. */
const char *fe_view_comm(struct fe_view *v, int pid);
/* Where a fork, exec or rename changed pid's name while the view ran:
 * its name at ts (NULL: none changed it, or not known so early). */
const char *fe_view_comm_changed_at(struct fe_view *v, int pid, unsigned long long ts);

/* ftrace/kernel_stack (options/stacktrace): each one is handed to a sink
 * with the event before it on its CPU. */
int fe_view_add_stack_event(struct fe_view *v, const char *format, struct fe_error *err);
/* ftrace/user_stack (options/userstacktrace): shown under the event before
 * it on its CPU, named from its process's maps. */
int fe_view_add_user_stack_event(struct fe_view *v, const char *format, struct fe_error *err);
/*
 * --graph-below func: the function graph tracer's records (the formats of
 * ftrace/funcgraph_entry and funcgraph_exit) become calls, those below
 * func's calls kept (others counted), nested by the --graph sink.
 */
int fe_view_graph_below(struct fe_view *v, const char *func, const char *entry_format,
			const char *exit_format, struct fe_error *err);
/*
 * --graph-below's arguments (funcgraph-args records the argument
 * registers, whatever the function takes): fn(ctx, func) gives func's
 * parameters' names, space-separated (malloc'd; "" for none), or NULL
 * when it does not know them; then that many are shown, named, else every
 * word the kernel recorded, unnamed.  Asked once a function.
 */
typedef char *(*fe_view_params_fn)(void *ctx, const char *func);
void fe_view_graph_params(struct fe_view *v, fe_view_params_fn fn, void *ctx);
/* group/event is a uprobe: its kernel stack (the breakpoint trap's) is not shown. */
void fe_view_uprobe_event(struct fe_view *v, const char *group, const char *event);
/* Live: keep each process's /proc/PID/maps when its first user stack comes. */
void fe_view_capture_maps(struct fe_view *v);
/* Where to ask the maps of a process that has left /proc (record's watch
 * of the mappings the kernel reported): fn(ctx, tgid), maps lines or NULL. */
void fe_view_maps_source(struct fe_view *v, char *(*fn)(void *ctx, int tgid), void *ctx);
/* The maps kept, for a trace.dat (NULL: none), and read back from one. */
char *fe_view_maps_dump(struct fe_view *v);
void fe_view_maps_load(struct fe_view *v, const char *dump);
/* The function at addr (kallsyms given), or NULL. */
const char *fe_view_symbol(struct fe_view *v, unsigned long long addr);

/* "PID COMM" lines for the tasks fork and exec events named. */
char *fe_view_task_names(struct fe_view *v);

/*
 * A filter on the calls of group/func, which has an entry and a return
 * event (both added first): in the kernel's field names of either half,
 * as 'add' wrote it.  The view holds each entry until its return, shows
 * (or hands a sink) entry and return together when the pair passes and
 * neither when it does not; an entry whose return never comes is counted
 * in the summary, not shown.  -1 with err set on a filter it cannot read.
 */
/*
 * How the fields of group/event are shown beyond their fetch types: the
 * "values" lines add kept beside it (fe_event_values), or a trace.dat's:
 * "FIELD errno", "FIELD err_ptr", "FIELD enum NAME=VALUE ...", "FIELD in
 * GROUP MEMBER".  A line of another kind is ignored; -1 with err set on
 * one that names no field or cannot be read.
 */
int fe_view_values(struct fe_view *v, const char *group, const char *event,
		   const char *values, struct fe_error *err);
int fe_view_call_filter(struct fe_view *v, const char *group, const char *func,
			const char *filter, struct fe_error *err);

/* Symbols for 'symbol' fields (__caller): the text of /proc/kallsyms. */
int fe_view_kallsyms(struct fe_view *v, const char *text);

/* Has an event come from a pid whose command is not known yet? */
bool fe_view_wants_comms(struct fe_view *v);

/* Commands of pids, as in saved_cmdlines ("PID COMM" lines). */
void fe_view_cmdlines(struct fe_view *v, const char *text);

/*
 * One "PID COMM" line of saved_cmdlines at line: the kernel writes
 * "%d %s\n", so the command is all after the one space, spaces of its
 * own (prctl(PR_SET_NAME, " a b")) too.  Into *pid and comm (size);
 * false where the line is no such line.
 */
bool fe_cmdline_parse(const char *line, int *pid, char *comm, size_t size);

/* The processes of tasks, as in saved_tgids ("PID TGID" lines): each
 * call's tgid (struct fe_view_call).  Out of memory: not known. */
void fe_view_tgids(struct fe_view *v, const char *text);

/*
 * Where and when, for JSON's "host" and "time": host the machine's name
 * (NULL: not known), and, with known, the nanoseconds CLOCK_REALTIME was
 * ahead of the events' times.  Out of memory: not known.
 */
void fe_view_wall_clock(struct fe_view *v, const char *host, bool known, long long offset);

/* CPUs 0 to FE_VIEW_MAX_CPUS - 1 */
#define FE_VIEW_MAX_CPUS	1024

/*
 * One ring-buffer sub-buffer read from cpu.  A damaged page (from a file)
 * is decoded as far as it can be: -1 then, and err says what was skipped,
 * at its offset in the page ("+0x40").
 */
int fe_view_page(struct fe_view *v, int cpu, void *page, int size, struct fe_error *err);

/*
 * Print what is queued, oldest first.  final: also entries whose return
 * never came, printed on their own.
 */
void fe_view_flush(struct fe_view *v, bool final);

/* Print what is queued up to (not including) time ts: a reader that
 * feeds pages in time order knows nothing earlier can still come. */
void fe_view_flush_until(struct fe_view *v, unsigned long long ts);
/* The same, and the output flushed: a live reader's lines come now. */
void fe_view_flush_before(struct fe_view *v, unsigned long long ts);
/* The time of the last record of the last page given (0: none read). */
unsigned long long fe_view_last_ts(const struct fe_view *v);

/* "N events; lost: cpu0 M, ..." */
void fe_view_summary(struct fe_view *v, FILE *out);
/* Something the command lost besides events ("3 of 4 calls of f not
 * measured (...)"): the summary says it among the losses, never "none
 * lost". */
void fe_view_note_loss(struct fe_view *v, const char *what);
/* 0, or the errno of a failed write to the output (EPIPE: the reader quit);
 * the view writes nothing more after one. */
int fe_view_output_error(const struct fe_view *v);
/* Whether the output is a pipe whose reader has gone (head, less quit),
 * noticed before anything more is written; it then counts as EPIPE. */
bool fe_view_reader_quit(struct fe_view *v);
unsigned long long fe_view_events(const struct fe_view *v);
/* Records of events the view was given no format for (a trace.dat's
 * ftrace events, such as the function tracer's): skipped, counted. */
unsigned long long fe_view_unknown(const struct fe_view *v);
unsigned long long fe_view_lost(const struct fe_view *v);
/*
 * What only the kernel's counters tell, in any process and at no known
 * time, for the summary: n hits of GROUP/EVENT it never recorded (too
 * large for a ring-buffer page), n calls it did not probe (kprobe misses),
 * or that what it dropped is not known, and why.
 */
void fe_view_dropped(struct fe_view *v, const char *group, const char *event,
		     unsigned long long n);
/* n dropped among nr_events events counted together: whose, unknown. */
void fe_view_dropped_among(struct fe_view *v, unsigned long long n, int nr_events);
void fe_view_missed(struct fe_view *v, const char *group, const char *event,
		    unsigned long long n);
void fe_view_uncounted(struct fe_view *v, const char *group, const char *event,
		       const char *why);
/* The kernel's counts were asked (record): with none, the summary says
 * only "none lost in the buffers". */
void fe_view_kernel_counted(struct fe_view *v);
/* The -b (KB a CPU) that would have held what the buffers lost, for the
 * summary (record knows it from the kernel's overrun counts). */
void fe_view_buffer_would_hold(struct fe_view *v, unsigned long kb);

#endif
