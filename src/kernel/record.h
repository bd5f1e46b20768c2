/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fevent record: a private tracefs instance (fevent-PID) with only the
 * chosen events enabled, a command started stopped so its first
 * instruction is covered, the per-CPU raw buffers read into the live view
 * until the command exits, Ctrl-C, SIGTERM or the duration ends; then the
 * buffers are drained and the instance removed.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stdio.h>

#include "fe_error.h"
#include "live_view.h"

struct tracefs_instance;

enum fe_record_target {
	FE_RECORD_COMMAND,	/* -- CMD ARGS: it and its children */
	FE_RECORD_PID,		/* -p PID */
	FE_RECORD_ALL,		/* -a: system-wide */
	FE_RECORD_CGROUP,	/* --cgroup PATH: a cgroup's tasks, joiners too */
};

/* --cgroup ARG: the cgroup v2 directory it names (absolute, or relative
 * to the cgroup2 mount) into path; -1 with err saying why it is none. */
int fe_cgroup_resolve(const char *arg, char *path, size_t size, struct fe_error *err);

struct fe_record_opts {
	const char *group;
	char *const *events;	/* -e: event names (their __return comes along) */
	int nr_events;
	enum fe_record_target target;
	char *const *command;	/* FE_RECORD_COMMAND: argv, NULL-terminated */
	int pid;		/* FE_RECORD_PID */
	const char *cgroup;	/* FE_RECORD_CGROUP: the directory */
	unsigned long buffer_kb;	/* -b: per-CPU buffer, 0: the kernel's */
	double duration;	/* -d: seconds, 0: none */
	struct fe_view_opts view;
	const char *output;	/* -o: also a trace.dat */
	/* --graph-below FUNC: the function graph tracer's calls below FUNC,
	 * fevent's events among them (view.graph set too) */
	const char *graph_below;
	/*
	 * fevent stats.  counted_in_kernel: no event is enabled and no buffer
	 * read; arm() puts the kernel's counters (hist triggers) on the
	 * instance once it filters the tasks, disarm() takes them off before
	 * the instance goes.  report() runs every interval seconds (0: never)
	 * and at the end (final), before disarm().
	 */
	bool counted_in_kernel;
	bool stacks;		/* each event's kernel stack (options/stacktrace) */
	bool no_symbols;	/* nothing is shown as a symbol: kallsyms unread */
	int (*arm)(void *ctx, struct tracefs_instance *inst, struct fe_error *err);
	void (*disarm)(void *ctx, struct tracefs_instance *inst);
	int (*report)(void *ctx, struct tracefs_instance *inst, struct fe_view *v, bool final);
	void *ctx;
	double interval;
};

/*
 * Record until the end; *status is the command's exit status (128+signal
 * if it was killed), or 0.  Returns 0, -1 on a run-time failure, -2 on bad
 * usage (an unknown event); err says why.
 */
int fe_record(const struct fe_record_opts *o, int *status, struct fe_error *err);
/* Is event one of names (-e), or the __return of one?  No names: all. */
bool fe_record_wanted(const char *event, char *const *names, int n);
/* Remember the descriptors fevent was started with, before it opens any:
 * the traced command is given exactly these. */
void fe_record_note_given_fds(void);
/*
 * SIGINT, SIGTERM and SIGHUP end the recording from now on (drained,
 * written), whatever disposition fevent inherited (fe_record calls it
 * too): the commands call it first thing, so that no moment of the
 * set-up dies of one, and nothing it made is left behind.
 */
void fe_record_catch_signals(void);

#endif
