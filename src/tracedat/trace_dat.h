/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.dat: version 6 (trace-cmd.dat.v6(5)) written by record -o
 * (trace_dat.c), versions 6 and 7 (trace-cmd.dat.v7(5), what trace-cmd 3
 * writes, compressed or not) read by report (trace_dat_read.c): the
 * formats of the recorded events, kallsyms, the command names and the raw
 * ring-buffer pages of every CPU of every buffer, so that trace-cmd
 * report and KernelShark read the same file.  fevent's fetch arguments
 * ride along in an option that other readers skip.
 */
#ifndef TRACE_DAT_H
#define TRACE_DAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fe_error.h"
#include "live_view.h"

#define FE_TRACEDAT_MAGIC	"\x17\x08\x44tracing"
#define FE_TRACEDAT_MAGIC_LEN	10
/* option ids of fevent's own: trace-cmd skips what it does not know */
#define FE_TRACEDAT_OPTION_ARGS	0x6665
/* the maps of the processes whose user stacks were recorded */
#define FE_TRACEDAT_OPTION_MAPS	0x6666
/* trace-cmd's, of who recorded (trace-cmd-private.h's numbers) */
#define FE_TRACEDAT_OPT_TRACECLOCK	4
#define FE_TRACEDAT_OPT_UNAME		5
#define FE_TRACEDAT_OPT_CPUCOUNT	8
#define FE_TRACEDAT_OPT_VERSION		9
#define FE_TRACEDAT_OPT_TRACEID		11
/* each task's process, "PID TGID" lines as saved_tgids has them */
#define FE_TRACEDAT_OPTION_TGIDS	0x6667

struct fe_tracedat;

struct fe_tracedat_event {
	const char *system;
	const char *name;
	const char *format;
	const char *args;	/* fetch arguments, or NULL (not fevent's) */
	bool task_info;		/* sched fork/exec: names tasks */
	const char *call_filter;	/* an entry's filter on whole calls, or NULL */
	const char *values;	/* how fevent shows its fields (fe_event_values), or NULL */
	bool uprobe;		/* its kernel stack is not shown */
};

/* Start a file (through out_file.h's writer); pages are kept aside
 * until fe_tracedat_finish.  0; -2 when the path is refused (bad usage);
 * -1. */
int fe_tracedat_create(struct fe_tracedat **td, const char *path, int nr_cpus, int page_size,
		       struct fe_error *err);
int fe_tracedat_page(struct fe_tracedat *td, int cpu, const void *page, int size);
/*
 * The file holding cpu's pages until the end, for a writer that moves
 * pages into it itself (splice); then it says how many bytes it added
 * (whole pages).  What is there can be read back with pread.
 */
int fe_tracedat_cpu_fd(struct fe_tracedat *td, int cpu);
int fe_tracedat_grew(struct fe_tracedat *td, int cpu, unsigned long long bytes);
unsigned long long fe_tracedat_cpu_size(const struct fe_tracedat *td, int cpu);
/* A write into the file failed: finish will fail and leave no file. */
void fe_tracedat_failed(struct fe_tracedat *td);

struct fe_tracedat_meta {
	const char *header_page;
	const char *header_event;
	const struct fe_tracedat_event *events;
	int nr_events;
	const char *kallsyms;	/* or NULL */
	const char *cmdlines;
	/* ftrace's own events recorded (kernel_stack, user_stack) */
	const char *const *ftrace_formats;
	int nr_ftrace_formats;
	const char *maps;	/* the processes' maps user stacks are named from */
	const char *trace_clock;	/* the trace_clock file's text, or NULL */
	/* CLOCK_REALTIME was wall_offset ns ahead of the times: "@wallclock
	 * NS" in fevent's option (trace-cmd's DATE would move its times) */
	bool wall_known;
	long long wall_offset;
	const char *tgids;	/* or NULL */
};

/* Write the header and the pages; frees td. */
int fe_tracedat_finish(struct fe_tracedat *td, const struct fe_tracedat_meta *meta,
		       struct fe_error *err);
/* Throw away a file being written (a failed record). */
void fe_tracedat_abort(struct fe_tracedat *td);

/*
 * Decode a trace.dat into a view made with opts, the summary to summary
 * (or none); each buffer of the file in turn, each in a view of its own.
 * A file that cannot be read, or a buffer in it, is an error naming the
 * part and its offset; damaged pages are decoded as far as they can be,
 * and what was skipped is told in warn.
 */
int fe_tracedat_report_buf(const char *name, const void *data, size_t size,
			   const struct fe_view_opts *opts, FILE *summary,
			   struct fe_warnings *warn, struct fe_error *err);
/* The same for the file at path, the summary to stderr. */
int fe_tracedat_report(const char *path, const struct fe_view_opts *opts,
		       struct fe_warnings *warn, struct fe_error *err);

#endif
